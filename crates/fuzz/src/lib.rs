//! Fuzz targets for every reader of outside input. Each target takes arbitrary bytes, feeds them to
//! one reader and checks a property of what the reader accepts (it writes back to what it read),
//! not only that it does not panic. A broken property panics, which is what a fuzzer reports.
//!
//! The same functions run under libFuzzer (`fuzz/`, `scripts/fuzz.sh`) and under the test suite
//! (`tests/targets.rs`: the committed corpus and random inputs), so a crash found once stays a test.

use std::future::Future;
use std::pin::pin;
use std::task::{Context, Poll, Waker};

use kroon_protocol::dxp::frame::{self, FrameError, FrameReader};
use kroon_protocol::hub::codec as hub;
use kroon_rules::{fen, notation, parse_hub_move, parse_move, Colour, Position, Variant};
use kroon_search::Weights;

/// A fuzz target: bytes in, a panic when a property breaks.
pub type Target = fn(&[u8]);

/// Every target by name, as `fuzz/fuzz_targets/NAME.rs` and `scripts/fuzz.sh` know them.
pub const TARGETS: &[(&str, Target)] = &[
    ("fen", fen_text),
    ("move_text", move_text),
    ("hub_line", hub_line),
    ("dxp_frames", dxp_frames),
    ("dxp_message", dxp_message),
    ("settings", settings),
    ("weights", weights),
    ("records", records),
    ("openings", openings),
    ("egdb_slice", egdb_slice),
    ("pdn", pdn),
    ("book", book),
    ("queue_record", queue_record),
];

/// The target called `name`.
#[must_use]
pub fn target(name: &str) -> Option<Target> {
    TARGETS.iter().find(|(n, _)| *n == name).map(|&(_, t)| t)
}

/// The variant a selector byte names: every variant Kroon plays is reachable.
fn variant_of(byte: u8) -> Variant {
    Variant::ALL[usize::from(byte) % Variant::ALL.len()]
}

/// Position text in each of its three forms (PDN FEN, Hub, DXP), in every variant: what parses
/// writes back to text that parses to the same position.
///
/// Input: a byte choosing variant and form, then the text.
pub fn fen_text(data: &[u8]) {
    let Some((&sel, rest)) = data.split_first() else {
        return;
    };
    let v = variant_of(sel);
    let text = String::from_utf8_lossy(rest);
    match (sel / 8) % 3 {
        0 => reads_back(&text, v, fen::parse_fen, fen::write_fen),
        1 => reads_back(&text, v, fen::parse_hub, fen::write_hub),
        _ => {
            let mut chars = text.chars();
            let turn = chars.next().unwrap_or('W');
            let board = chars.as_str();
            if let Ok(pos) = fen::parse_dxp(turn, board, v) {
                let again = fen::write_dxp(&pos);
                let t = if pos.turn() == Colour::White {
                    'W'
                } else {
                    'Z'
                };
                assert_eq!(
                    fen::parse_dxp(t, &again, v),
                    Ok(pos),
                    "{text:?} wrote {again:?}"
                );
            }
        }
    }
}

/// What `parse` reads of `text`, `write` writes back to text that `parse` reads as the same position.
fn reads_back(
    text: &str,
    v: Variant,
    parse: fn(&str, Variant) -> Result<kroon_rules::Position, fen::FenError>,
    write: fn(&kroon_rules::Position) -> String,
) {
    if let Ok(pos) = parse(text, v) {
        let again = write(&pos);
        assert_eq!(parse(&again, v), Ok(pos), "{text:?} wrote {again:?}");
    }
}

/// Move text in a position the input reaches: a move that reads is legal, and its long and Hub
/// forms read back to the same move.
///
/// Input: a variant byte, move choices from the initial position up to a `;`, then the text.
pub fn move_text(data: &[u8]) {
    let Some((&sel, rest)) = data.split_first() else {
        return;
    };
    let v = variant_of(sel);
    let split = rest.iter().position(|&b| b == b';').unwrap_or(0);
    let (choices, text) = rest.split_at(split);
    let text = String::from_utf8_lossy(text.get(1..).unwrap_or_default());
    let mut pos = Position::initial(v);
    for &c in choices.iter().take(80) {
        let moves = pos.legal_moves();
        if moves.is_empty() {
            break;
        }
        let mv = moves[usize::from(c) % moves.len()];
        pos = pos.play(&mv);
    }
    let legal = pos.legal_moves();
    for (read, write) in [
        (
            parse_move as fn(&Position, &str) -> _,
            notation::long as fn(&_, Variant) -> String,
        ),
        (parse_hub_move, notation::hub),
    ] {
        if let Ok(mv) = read(&pos, &text) {
            assert!(
                legal.iter().any(|m| *m == mv),
                "{text:?} read an illegal move"
            );
            let again = write(&mv, v);
            assert_eq!(read(&pos, &again), Ok(mv), "{text:?} wrote {again:?}");
        }
    }
}

/// A Hub line, read as a command and as a reply: what parses prints back as one line (no line
/// break, whatever the values held) that parses to the same thing. Line breaks inside quotes
/// come back as blanks, so such a line is only required to settle after one more round.
pub fn hub_line(data: &[u8]) {
    let line = String::from_utf8_lossy(data);
    hub_reads_back(&line, hub::parse, |_| true);
    // `info` prints its reals at display precision (depth 0.1, time 0.001), so only the written
    // line is required to read back to itself.
    hub_reads_back(&line, hub::parse_reply, |reply| {
        !matches!(reply, hub::HubReply::Info(_))
    });
}

/// What `parse` reads of `line` prints as one line; that line parses to the same value when the
/// input had no line break and `exact` holds for the value, else it prints the same again.
fn hub_reads_back<T, E>(line: &str, parse: fn(&str) -> Result<T, E>, exact: fn(&T) -> bool)
where
    T: std::fmt::Display + std::fmt::Debug + PartialEq,
    E: std::fmt::Debug + PartialEq,
{
    let Ok(value) = parse(line) else {
        return;
    };
    let again = value.to_string();
    assert!(!again.contains(['\n', '\r']), "{line:?} wrote {again:?}");
    let back = parse(&again);
    if !line.contains(['\n', '\r']) && exact(&value) {
        assert_eq!(back, Ok(value), "{line:?} wrote {again:?}");
    } else {
        let once = back.map(|v| v.to_string()).expect("a written line parses");
        assert_eq!(parse(&once).map(|v| v.to_string()), Ok(once), "{line:?}");
    }
}

/// Polls a future that never waits (a reader over a byte slice) to its end.
fn run_ready<F: Future>(f: F) -> F::Output {
    let mut f = pin!(f);
    let mut cx = Context::from_waker(Waker::noop());
    loop {
        if let Poll::Ready(out) = f.as_mut().poll(&mut cx) {
            return out;
        }
    }
}

/// The DXP frame splitter over a byte stream: it yields exactly the NUL-terminated pieces, in
/// order, stops with `TooLong` at the first piece longer than the limit, and counts an unfinished
/// tail as dropped.
///
/// Input: a byte choosing the frame limit (1 to 256, or the standard one), then the stream.
pub fn dxp_frames(data: &[u8]) {
    let Some((&sel, stream)) = data.split_first() else {
        return;
    };
    let limit = if sel == 0 {
        frame::MAX_FRAME
    } else {
        usize::from(sel)
    };
    let mut reader = FrameReader::with_limit(stream, limit);
    let mut pieces = stream.split(|&b| b == 0).peekable();
    loop {
        let got = run_ready(reader.next_frame());
        let piece = pieces.next().unwrap_or_default();
        let finished = pieces.peek().is_some();
        match got {
            Ok(Some(f)) => {
                assert!(
                    finished && piece.len() <= limit,
                    "frame {f:?} is not a piece"
                );
                assert_eq!(f, piece);
            }
            Ok(None) => {
                assert!(!finished && piece.len() <= limit, "stream ended early");
                assert_eq!(reader.dropped(), piece.len());
                return;
            }
            Err(FrameError::TooLong { limit: l }) => {
                assert_eq!(l, limit);
                assert!(piece.len() > limit, "a piece of {} refused", piece.len());
                return;
            }
            Err(e) => panic!("a byte slice cannot fail: {e}"),
        }
    }
}

/// One DXP frame: a message that decodes encodes back to the very same bytes.
pub fn dxp_message(data: &[u8]) {
    if let Ok(msg) = frame::decode(data) {
        let again = msg.to_string();
        assert_eq!(again.as_bytes(), data, "decoded {msg:?}");
    }
}

/// The settings file: what reads writes back (as TOML) to text that reads the same.
pub fn settings(data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    if let Ok(config) = kroon_settings::Config::parse(&text) {
        let again = toml::to_string(&config).expect("settings always serialize");
        let back = kroon_settings::Config::parse(&again).expect("written settings read back");
        assert_eq!(back, config, "{text:?} wrote {again:?}");
    }
}

/// A weights file image: one that loads writes back to the same bytes.
pub fn weights(data: &[u8]) {
    if let Ok(w) = Weights::from_bytes(data) {
        assert!(
            w.to_bytes() == data,
            "weights read from {} bytes write back others",
            data.len()
        );
    }
}

/// An endgame table file: one that reads answers every number the same through its block index
/// as in full, and its codes written again read back to the same codes. The input is tried as it
/// is and with its checksum made right, so that mutated headers and blocks get past the checksum.
pub fn egdb_slice(data: &[u8]) {
    egdb_slice_file(data);
    if let Some(body) = data.len().checked_sub(8) {
        let mut fixed = data.to_vec();
        let sum = kroon_egdb::store::checksum(&data[..body]);
        fixed[body..].copy_from_slice(&sum.to_le_bytes());
        egdb_slice_file(&fixed);
    }
}

fn egdb_slice_file(data: &[u8]) {
    use kroon_egdb::store::{encode, Slice};
    let Ok(slice) = Slice::parse(data) else {
        return;
    };
    let Ok(codes) = slice.codes() else {
        // A damaged block: every lookup still answers or says no.
        for i in (0..slice.numbers()).step_by(97) {
            let _ = slice.code(i);
        }
        return;
    };
    for (i, &c) in codes.iter().enumerate() {
        assert_eq!(slice.code(i as u64), Some(c), "number {i}");
    }
    let again = Slice::parse(&encode(slice.material(), &codes, slice.has_distances()))
        .expect("written slices read");
    assert_eq!(again.codes().expect("written blocks read"), codes);
}

/// A book file image: one that loads writes back to the same bytes, and its moves for the
/// initial position (whose key it may hold) are legal there.
pub fn book(data: &[u8]) {
    if let Ok(b) = kroon_book::Book::from_bytes(data) {
        assert!(
            b.to_bytes() == data,
            "a book read from {} bytes writes back others",
            data.len()
        );
        let start = Position::initial(b.variant());
        let legal = start.legal_moves();
        assert!(b.moves(&start).iter().all(|(mv, _)| legal.contains(mv)));
    }
}

/// A self-play records file: the header, then 32-byte records; a record that reads writes back
/// to the same bytes, and gives a position that can be searched from (its moves generate).
pub fn records(data: &[u8]) {
    let Ok(h) = kroon_learn::record::read_header(data) else {
        return;
    };
    assert_eq!(
        kroon_learn::record::header(h.variant, h.settings).as_slice(),
        data.get(..kroon_learn::record::HEADER_SIZE)
            .unwrap_or_default()
    );
    let body = data
        .get(kroon_learn::record::HEADER_SIZE..)
        .unwrap_or_default();
    for chunk in body.chunks_exact(kroon_learn::record::RECORD_SIZE) {
        let bytes: &[u8; kroon_learn::record::RECORD_SIZE] =
            chunk.try_into().expect("chunks_exact gives whole records");
        if let Ok(r) = kroon_learn::record::Record::from_bytes(bytes, h.variant) {
            assert_eq!(&r.to_bytes(), bytes);
            let _ = r.position(h.variant).legal_moves();
        }
    }
}

/// A job or result record from the work queue (whatever a stranger can put on a stream): what
/// reads writes back to bytes that read to the same record, and a job's fields are in range.
///
/// Input: a byte choosing job or result, then the record.
pub fn queue_record(data: &[u8]) {
    use kroon_queue::record::{Job, JobResult, Task, MAX_BATCH};
    let Some((&sel, rest)) = data.split_first() else {
        return;
    };
    if sel % 2 == 0 {
        if let Ok(job) = Job::parse(rest) {
            assert_eq!(Job::parse(&job.to_bytes()).as_ref(), Ok(&job));
            match &job.task {
                Task::Selfplay(t) => {
                    assert!(t.first < t.end && t.end - t.first <= MAX_BATCH);
                    assert!(t.variant.parse::<Variant>().is_ok());
                }
                Task::Match(t) => assert!(t.check().is_ok()),
                Task::Egdb(t) => assert!(t.slice.parse::<kroon_egdb::Material>().is_ok()),
            }
        }
    } else if let Ok(r) = JobResult::parse(rest) {
        assert_eq!(JobResult::parse(&r.to_bytes()).as_ref(), Ok(&r));
    }
}

/// An openings file for `kroon match` (FEN lines, or PDN games): every opening that reads replays
/// legally from its start, and written back as PDN (a `FEN` tag and the movetext) reads back to
/// the same opening.
///
/// Input: a variant byte, then the file's text.
pub fn openings(data: &[u8]) {
    use kroon_match::openings::{movetext, parse};
    let Some((&sel, rest)) = data.split_first() else {
        return;
    };
    let v = variant_of(sel);
    let text = String::from_utf8_lossy(rest);
    let Ok(openings) = parse(&text, v, None) else {
        return;
    };
    for o in openings {
        let mut pos = o.start;
        for mv in &o.moves {
            assert!(
                pos.legal_moves().iter().any(|m| m == mv),
                "{text:?}: illegal {mv:?}"
            );
            pos = pos.play(mv);
        }
        let pdn = format!(
            "[FEN \"{}\"]\n{} *\n",
            fen::write_fen(&o.start),
            movetext(&o.start, &o.moves)
        );
        let back = parse(&pdn, v, None).expect("a written opening reads");
        let [back] = back.as_slice() else {
            panic!("{pdn:?} read as {} openings", back.len());
        };
        assert!(
            back.start == o.start && back.moves == o.moves,
            "{text:?} wrote {pdn:?}"
        );
    }
}

/// PDN files (`kroon annotate`, `kroon analyse --pdn`, the openings of `kroon match`): every
/// game that reads has legal moves in its line and its variations, and written back it reads as
/// the same game (tags, start, moves, marks, comments, variations, result) and writes the same
/// text again.
///
/// Input: a variant byte (the variant of games without a `GameType`), then the file's bytes
/// (UTF-8, or else Latin-1).
pub fn pdn(data: &[u8]) {
    use kroon_rules::pdn::{decode_text, read_pdn, write_pdn, PdnLine};
    fn legal(line: &PdnLine, start: Position) {
        let mut pos = start;
        for m in &line.moves {
            for v in &m.variations {
                legal(v, pos);
            }
            assert!(pos.legal_moves().iter().any(|l| *l == m.mv), "{:?}", m.mv);
            pos = pos.play(&m.mv);
        }
    }
    let Some((&sel, rest)) = data.split_first() else {
        return;
    };
    let v = variant_of(sel);
    let text = decode_text(rest);
    for game in read_pdn(&text, v).games {
        legal(&game.line, game.start);
        let written = write_pdn(&game);
        let back = read_pdn(&written, v);
        assert!(
            back.skipped.is_empty(),
            "{text:?} wrote {written:?}: {:?}",
            back.skipped
        );
        assert_eq!(
            back.games.as_slice(),
            std::slice::from_ref(&game),
            "{text:?} wrote {written:?}"
        );
        assert_eq!(write_pdn(&game), written);
    }
}

/// The embedded weights, the only valid weights image there is to start from.
const WEIGHTS: &[u8] = include_bytes!("../../search/weights/normal.kew");

/// Starting inputs for `name`: valid and nearly valid texts and files, from which the fuzzer and
/// the tests' mutations grow others.
#[must_use]
/// The embedded weights in the large layout (its 4x6 windows zero): a sparse (version 2) image.
fn large_weights() -> Vec<u8> {
    let Ok(small) = Weights::from_bytes(WEIGHTS) else {
        return Vec::new();
    };
    let variant = small.variant();
    let Some(large) = kroon_search::eval::pattern::Layout::large(variant) else {
        return Vec::new();
    };
    let (mut mg, mut eg) = (vec![0.0; large.features()], vec![0.0; large.features()]);
    for f in 0..small.layout().features() {
        (mg[f], eg[f]) = small.centi_men(f);
    }
    Weights::from_centi_men_in(large, variant, &mg, &eg).to_bytes()
}

pub fn seeds(name: &str) -> Vec<Vec<u8>> {
    let lines = |l: &[&str]| l.iter().map(|s| s.as_bytes().to_vec()).collect();
    match name {
        "fen" => {
            let mut out = Vec::new();
            for (i, &v) in Variant::ALL.iter().enumerate() {
                let start = Position::initial(v);
                let moved = start.play(&start.legal_moves()[0]);
                for pos in [start, moved] {
                    let t = if pos.turn() == Colour::White { 'W' } else { 'Z' };
                    for (form, text) in [
                        (0, fen::write_fen(&pos)),
                        (1, fen::write_hub(&pos)),
                        (2, format!("{t}{}", fen::write_dxp(&pos))),
                    ] {
                        let mut seed = vec![(form * 8 + i) as u8];
                        seed.extend_from_slice(text.as_bytes());
                        out.push(seed);
                    }
                }
            }
            out.push(b"\x00W:W31-50:B1-20".to_vec());
            out.push(b"\x00B:WK46,28:B1,K2,3".to_vec());
            out
        }
        "move_text" => {
            let mut out = Vec::new();
            for (i, &v) in Variant::ALL.iter().enumerate() {
                let mv = Position::initial(v).legal_moves()[0];
                for text in [notation::long(&mv, v), notation::hub(&mv, v)] {
                    let mut seed = vec![i as u8, b';'];
                    seed.extend_from_slice(text.as_bytes());
                    out.push(seed);
                }
            }
            // International: 32-28 19-23 leaves 28x19 for White, then 14x23 for Black.
            out.push(b"\x00\x03\x04;28x19".to_vec());
            out.push(b"\x00\x03\x04\x00;14x23".to_vec());
            out.push(b"\x02\x01\x02\x03;c3:e5".to_vec());
            out
        }
        "hub_line" => lines(&[
            "hub",
            "init",
            "ping",
            "new-game",
            "stop",
            "ponder-hit",
            "quit",
            "set-param name=variant value=killer",
            "set-param name=book-file value=\"my book.bin\"",
            "pos pos=Wbbbbbbbbbbbbbbbbbbbbeeeeeeeeeewwwwwwwwwwwwwwwwwwww moves=\"32-28 19-23\"",
            "pos pos=Wbbbbbbbbbbbbbbbbbbbbeeeeeeeeeewwwwwwwwwwwwwwwwwwww moves=32-28",
            "level depth=12",
            "level move-time=0.5",
            "level moves=40 time=300 inc=1",
            "go think",
            "go ponder",
            "go analyze",
            "id name=Kroon version=0.1 author=\"the authors\"",
            "param name=threads value=1 type=int min=1 max=64",
            "wait",
            "ready",
            "pong",
            "info depth=12 mean-depth=11.5 score=0.25 nodes=1000 time=0.2 nps=5000 pv=\"32-28 19-23\"",
            "done move=32-28 ponder=19-23",
            "error message=\"bad\"",
        ]),
        "dxp_frames" => vec![
            b"\x00R01Kroon                           W010050A\x00".to_vec(),
            b"\x10M0012322800\x00M000528190123\x00tail".to_vec(),
            b"\x05abc\x00abcdefgh\x00".to_vec(),
        ],
        "dxp_message" => lines(&[
            "R01Kroon                           W010050A",
            "R01Moby Dam                        Z120075BWzzzzzzzzzzzzzzzzzzzzeeeeeeeeeewwwwwwwwwwwwwwwwwwww",
            "AScan 3.1                        0",
            "M0012322800",
            "M000528190123",
            "E00",
            "E21",
            "B012W",
            "K1",
            "Chello, world",
        ]),
        "settings" => lines(&[
            "",
            "[engine]\nthreads = 2\n",
            "[engine]\nvariant = \"russian\"\nhash = 16\nponder = false\n[dxp]\nlisten = \"127.0.0.1:27531\"\nname = \"Kroon\"\n",
            "[eval]\nkind = \"hand\"\nfile = \"\"\n[log]\nlevel = \"debug\"\nfile = \"kroon.log\"\n",
        ]),
        "egdb_slice" => {
            use kroon_egdb::{index::Layout, store::encode, Material};
            let m = Material::new(0, 1, 1, 0);
            let n = Layout::new(m).size() as usize;
            let codes: Vec<u8> = (0..n).map(|i| [0, 0, 3, 0, 2][i % 5]).collect();
            let wdl: Vec<u8> = (0..n).map(|i| u8::from(i % 9 == 0)).collect();
            vec![encode(m, &codes, true), encode(m, &wdl, false)]
        }
        "book" => {
            let book = kroon_book::Book::embedded(Variant::International)
                .map(|b| b.to_bytes())
                .unwrap_or_default();
            let mut cut = book.clone();
            cut.truncate(200);
            vec![book, cut]
        }
        "weights" => {
            let mut cut = WEIGHTS.to_vec();
            cut.truncate(64);
            vec![WEIGHTS.to_vec(), cut, large_weights()]
        }
        "records" => {
            use kroon_learn::record::{header, Record};
            use kroon_rules::GameResult;
            let mut out = Vec::new();
            for (i, &v) in Variant::ALL.iter().enumerate() {
                let mut file = header(v, 0x1234_5678_9abc_def0 + i as u64).to_vec();
                let mut pos = Position::initial(v);
                for ply in 0..6 {
                    let r = Record::new(&pos, 10 * ply as i32 - 20, ply, 7, GameResult::Draw);
                    file.extend_from_slice(&r.to_bytes());
                    pos = pos.play(&pos.legal_moves()[0]);
                }
                out.push(file);
            }
            out
        }
        "queue_record" => {
            let job = concat!(
                r#"{"version":1,"run":"selfplay-00ff-388572","id":"0-8","#,
                r#""build":{"bench":388572,"eval":"hand"},"task":{"kind":"selfplay","#,
                r#""variant":"normal","nodes":300,"depth":null,"hash_mib":1,"seed":9,"#,
                r#""random_plies":4,"max_plies":120,"adjudicate_score":600,"#,
                r#""adjudicate_plies":4,"fingerprint":18446744073709551615,"first":0,"end":8}}"#
            );
            let done = concat!(
                r#"{"version":1,"run":"r","job":"0-8","worker":"host-1/0","outcome":"#,
                r#"{"status":"done","bytes":64,"checksum":5,"items":8,"work_ms":12}}"#
            );
            let failed = concat!(
                r#"{"version":1,"run":"r","job":"0-8","worker":"w/1","outcome":"#,
                r#"{"status":"failed","error":"job made for another build"}}"#
            );
            vec![
                [&b"\x00"[..], job.as_bytes()].concat(),
                [&b"\x01"[..], done.as_bytes()].concat(),
                [&b"\x01"[..], failed.as_bytes()].concat(),
            ]
        }
        "openings" => {
            let mut out: Vec<Vec<u8>> = vec![
                b"\x00W:W31-50:B1-20\nW:W31-50:B1-19,21\n".to_vec(),
                b"\x00[Event \"x\"]\n1. 32-28 19-23 2. 28x19 14x23 {a comment} (2... 13x24) 1-1\n"
                    .to_vec(),
                b"\x00[FEN \"B:W31-50:B1-20\"]\n1... 19-23 2. 32-28 23x32 0-2\n".to_vec(),
                b"\x06[GameType \"25\"]\n1. c3-d4 f6-e5 2. d4xf6 g7xe5 *\n".to_vec(),
            ];
            let default = include_str!("../../../scripts/openings/openings.txt");
            let mut first = vec![0u8];
            first.extend(default.lines().take(20).flat_map(|l| format!("{l}\n").into_bytes()));
            out.push(first);
            out
        }
        "pdn" => {
            let corpus: [&[u8]; 5] = [
                include_bytes!("../../rules/tests/data/pdn/lidraughts.pdn"),
                include_bytes!("../../rules/tests/data/pdn/latin1-crlf.pdn"),
                include_bytes!("../../rules/tests/data/pdn/annotated.pdn"),
                include_bytes!("../../rules/tests/data/pdn/variants.pdn"),
                include_bytes!("../../rules/tests/data/pdn/broken.pdn"),
            ];
            corpus
                .iter()
                .map(|file| [&[0u8][..], file].concat())
                .collect()
        }
        _ => Vec::new(),
    }
}
