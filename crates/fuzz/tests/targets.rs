//! Every fuzz target under the test suite: its seeds, every input kept in `regressions/NAME/`
//! (crashes found by `scripts/fuzz.sh`, kept for good), and a few thousand mutations of the seeds,
//! the same ones each run.

use std::path::Path;

use kroon_fuzz::{seeds, target, TARGETS};

/// Mutated inputs per target and run.
const MUTATIONS: usize = 20_000;

/// Deterministic, so a failure here repeats.
struct Rng(kroon_learn::rng::Rng);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0.next_u64()
    }

    fn below(&mut self, n: usize) -> usize {
        self.0.below(n as u64) as usize
    }
}

/// Bytes that readers give meaning to, so mutations reach past the first check.
const TOKENS: &[&[u8]] = &[
    b" ",
    b"=",
    b"\"",
    b"\\",
    b"\n",
    b"\0",
    b":",
    b",",
    b"-",
    b"x",
    b"K",
    b"W",
    b"B",
    b"Z",
    b"e",
    b"w",
    b"b",
    b"0",
    b"9",
    b"50",
    b"100000",
    b"-1",
    b"99999999999999999999",
    b"pos=",
    b"moves=",
    b"[engine]",
    b"= 1",
    b"= \"",
    b"\xc3\xa9",
    b"\xff",
];

/// One random edit of `input`: flip, insert, delete, duplicate, or splice in a token.
fn mutate(rng: &mut Rng, input: &mut Vec<u8>) {
    let at = rng.below(input.len() + 1);
    match rng.below(6) {
        0 if !input.is_empty() => {
            let i = at.min(input.len() - 1);
            input[i] ^= 1 << rng.below(8);
        }
        1 => input.insert(at, rng.next() as u8),
        2 if !input.is_empty() => {
            let end = (at + 1 + rng.below(8)).min(input.len());
            input.drain(at.min(end)..end);
        }
        3 if !input.is_empty() => {
            let start = rng.below(input.len());
            let end = (start + 1 + rng.below(16)).min(input.len());
            let piece = input[start..end].to_vec();
            input.splice(at..at, piece);
        }
        4 => {
            let token = TOKENS[rng.below(TOKENS.len())];
            input.splice(at..at, token.iter().copied());
        }
        _ => input.truncate(at),
    }
}

fn regressions(name: &str) -> Vec<Vec<u8>> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("regressions")
        .join(name);
    let Ok(entries) = std::fs::read_dir(&dir) else {
        return Vec::new();
    };
    let mut files: Vec<_> = entries.filter_map(|e| e.ok().map(|e| e.path())).collect();
    files.sort();
    files
        .iter()
        .map(|f| std::fs::read(f).expect("a regression input reads"))
        .collect()
}

fn exercise(name: &str) {
    let run = target(name).expect("a known target");
    let seeds = seeds(name);
    assert!(!seeds.is_empty(), "{name} has no seeds");
    for input in seeds.iter().chain(&regressions(name)) {
        run(input);
    }
    // Weights images are 210 kB and the book 36 kB; fewer of them keep the test quick.
    let count = if name == "weights" || name == "book" {
        MUTATIONS / 20
    } else {
        MUTATIONS
    };
    let mut rng = Rng(kroon_learn::rng::Rng::new(name.len() as u64));
    for _ in 0..count {
        let mut input = seeds[rng.below(seeds.len())].clone();
        for _ in 0..1 + rng.below(4) {
            mutate(&mut rng, &mut input);
        }
        run(&input);
    }
}

#[test]
fn every_target_has_a_harness_binary_and_a_test() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fuzz/fuzz_targets");
    for (name, _) in TARGETS {
        assert!(
            dir.join(format!("{name}.rs")).is_file(),
            "fuzz/fuzz_targets/{name}.rs"
        );
    }
    assert_eq!(TARGETS.len(), 13, "a new target needs its test below");
}

/// The seeds are meant to be accepted by their readers, so that mutations start from valid input;
/// the property checks then run on every one of them.
#[test]
fn seeds_are_mostly_valid_input() {
    use kroon_protocol::dxp::frame::decode;
    use kroon_protocol::hub::codec::{parse, parse_reply};
    for line in seeds("hub_line") {
        let text = String::from_utf8(line).unwrap();
        assert!(
            parse(&text).is_ok() || parse_reply(&text).is_ok(),
            "{text:?}"
        );
    }
    for frame in seeds("dxp_message") {
        assert!(
            decode(&frame).is_ok(),
            "{:?}",
            String::from_utf8_lossy(&frame)
        );
    }
    for text in seeds("settings") {
        let text = String::from_utf8(text).unwrap();
        assert!(kroon_settings::Config::parse(&text).is_ok(), "{text:?}");
    }
    assert!(kroon_search::Weights::from_bytes(&seeds("weights")[0]).is_ok());
    for file in seeds("pdn") {
        let text = kroon_rules::pdn::decode_text(&file[1..]);
        let read = kroon_rules::read_pdn(&text, kroon_rules::Variant::International);
        assert!(read.games.len() >= 2, "{text:?}");
    }
    assert!(kroon_book::Book::from_bytes(&seeds("book")[0]).is_ok());
    let queue = seeds("queue_record");
    assert!(kroon_queue::record::Job::parse(&queue[0][1..]).is_ok());
    for r in &queue[1..] {
        assert!(kroon_queue::record::JobResult::parse(&r[1..]).is_ok());
    }
    for file in seeds("openings") {
        let v = kroon_rules::Variant::ALL[usize::from(file[0])];
        let text = String::from_utf8_lossy(&file[1..]);
        assert!(
            kroon_match::openings::parse(&text, v, None).is_ok(),
            "{text:?}"
        );
    }
}

#[test]
fn fen() {
    exercise("fen");
}

#[test]
fn move_text() {
    exercise("move_text");
}

#[test]
fn hub_line() {
    exercise("hub_line");
}

#[test]
fn dxp_frames() {
    exercise("dxp_frames");
}

#[test]
fn dxp_message() {
    exercise("dxp_message");
}

#[test]
fn settings() {
    exercise("settings");
}

#[test]
fn weights() {
    exercise("weights");
}

#[test]
fn records() {
    exercise("records");
}

#[test]
fn openings() {
    exercise("openings");
}

#[test]
fn egdb_slice() {
    exercise("egdb_slice");
}

#[test]
fn pdn() {
    exercise("pdn");
}

#[test]
fn book() {
    exercise("book");
}

#[test]
fn queue_record() {
    exercise("queue_record");
}
