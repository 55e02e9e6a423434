//! `kroon hub` end to end: whole Hub sessions against the real binary, read through a reader thread
//! with timeouts so that a hang fails the test instead of blocking it. Every line the engine writes
//! must parse as a Hub reply (stdout carries protocol lines only), and every `done move=` is checked
//! against the rules, in the exact long form. The last test drives the engine with pydraughts'
//! `HubEngine` through a whole game (tests/interop/hub_pydraughts.py).

use crate::support;
use support::pydraughts;

use kroon_protocol::hub::numbering::{read_move, write_move};
use kroon_protocol::hub::{parse_reply, HubReply};
use kroon_rules::{
    notation, parse_fen, parse_hub, parse_hub_move, write_hub, Move, Position, Variant,
};
use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, Command, ExitStatus, Stdio};
use std::sync::mpsc::{channel, Receiver, RecvTimeoutError};
use std::time::{Duration, Instant};

const START: &str = "Wbbbbbbbbbbbbbbbbbbbbeeeeeeeeeewwwwwwwwwwwwwwwwwwww";
/// Long enough for any search the tests start; only a hang should reach it.
const LONG: Duration = Duration::from_secs(30);

/// A running `kroon hub` and everything said so far.
struct Hub {
    child: Child,
    stdin: Option<ChildStdin>,
    lines: Receiver<String>,
    transcript: Vec<String>,
}

impl Hub {
    fn start() -> Hub {
        let mut child = Command::new(env!("CARGO_BIN_EXE_kroon"))
            .arg("hub")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("start kroon hub");
        let stdout = child.stdout.take().expect("piped stdout");
        let (tx, lines) = channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        Hub {
            stdin: child.stdin.take(),
            child,
            lines,
            transcript: Vec::new(),
        }
    }

    /// A started engine past `hub` and `init`.
    fn ready() -> Hub {
        Hub::ready_with(&[])
    }

    /// A started engine past `hub`, then `set-param` of each `(name, value)`, then `init`.
    fn ready_with(params: &[(&str, &str)]) -> Hub {
        let mut hub = Hub::start();
        hub.send("hub");
        hub.until("wait", LONG);
        for (name, value) in params {
            hub.send(&format!("set-param name={name} value={value}"));
        }
        hub.send("init");
        hub.expect_line("ready");
        hub
    }

    fn fail(&self, what: &str) -> ! {
        panic!("{what}\n--- transcript ---\n{}", self.transcript.join("\n"));
    }

    fn send(&mut self, line: &str) {
        self.send_bytes(line.as_bytes());
    }

    fn send_bytes(&mut self, bytes: &[u8]) {
        self.transcript
            .push(format!("> {}", String::from_utf8_lossy(bytes)));
        let stdin = self.stdin.as_mut().expect("stdin is open");
        stdin.write_all(bytes).expect("write to kroon");
        stdin.write_all(b"\n").expect("write to kroon");
        stdin.flush().expect("flush to kroon");
    }

    fn close_stdin(&mut self) {
        self.transcript.push("> (end of input)".into());
        self.stdin = None;
    }

    /// The next line within `timeout`, or `None`; fails on a line that is not a Hub reply.
    fn recv_within(&mut self, timeout: Duration) -> Option<String> {
        match self.lines.recv_timeout(timeout) {
            Ok(line) => {
                self.transcript.push(format!("< {line}"));
                if parse_reply(&line).is_err() {
                    self.fail(&format!("not a Hub reply on stdout: {line:?}"));
                }
                Some(line)
            }
            Err(RecvTimeoutError::Timeout) => None,
            Err(RecvTimeoutError::Disconnected) => self.fail("kroon closed its output"),
        }
    }

    fn recv(&mut self) -> String {
        match self.recv_within(LONG) {
            Some(line) => line,
            None => self.fail("no reply in time"),
        }
    }

    fn expect_line(&mut self, want: &str) {
        let line = self.recv();
        if line != want {
            self.fail(&format!("expected {want:?}, got {line:?}"));
        }
    }

    /// Lines up to and including the first whose command is `word`, which must come in `timeout`.
    fn until(&mut self, word: &str, timeout: Duration) -> Vec<String> {
        let deadline = Instant::now() + timeout;
        let mut lines = Vec::new();
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            let Some(line) = self.recv_within(left) else {
                self.fail(&format!("no '{word}' within {timeout:?}"));
            };
            let last = line.split(' ').next() == Some(word);
            lines.push(line);
            if last {
                return lines;
            }
        }
    }

    /// Fails if a `done` arrives within `d`; other lines (info) are fine.
    fn no_done_for(&mut self, d: Duration) {
        let deadline = Instant::now() + d;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                return;
            }
            if let Some(line) = self.recv_within(left) {
                if line.starts_with("done") {
                    self.fail("'done' came too early");
                }
            }
        }
    }

    /// `ping`, answered by `pong`; a search still running (pondering, say) may print `info`
    /// lines before it, but nothing else.
    fn ping(&mut self) {
        self.send("ping");
        loop {
            let line = self.recv();
            match line.as_str() {
                "pong" => return,
                l if l.starts_with("info") => {}
                _ => self.fail(&format!("expected \"pong\", got {line:?}")),
            }
        }
    }

    fn expect_error(&mut self, part: &str) {
        let line = self.recv();
        match parse_reply(&line) {
            Ok(HubReply::Error(message)) if message.contains(part) => {}
            _ => self.fail(&format!("expected an error about {part:?}, got {line:?}")),
        }
    }

    /// Searches `pos` under `level` in `mode`; returns the lines up to and including `done`,
    /// which must come by itself (without `stop`).
    fn search(&mut self, pos: &str, level: &str, mode: &str) -> Vec<String> {
        self.send(&format!("pos pos={pos}"));
        self.send(&format!("level {level}"));
        self.send(&format!("go {mode}"));
        self.until("done", LONG)
    }

    fn wait_exit(&mut self, timeout: Duration) -> Option<ExitStatus> {
        let deadline = Instant::now() + timeout;
        while Instant::now() < deadline {
            if let Some(status) = self.child.try_wait().expect("try_wait") {
                return Some(status);
            }
            std::thread::sleep(Duration::from_millis(10));
        }
        None
    }
}

impl Drop for Hub {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn start() -> Position {
    parse_hub(START, Variant::International).unwrap()
}

/// Checks a `done` line against `pos`: the move (if `want_move`) is legal and written in the
/// exact long form, and the ponder move is legal after it. Returns the move.
fn check_done(line: &str, pos: &Position, want_move: bool) -> Option<Move> {
    let Ok(HubReply::Done { mv, ponder }) = parse_reply(line) else {
        panic!("not a done line: {line}");
    };
    let Some(text) = mv else {
        assert!(!want_move, "done without a move: {line}");
        assert!(ponder.is_none(), "{line}");
        return None;
    };
    assert!(want_move, "a move where none was expected: {line}");
    let mv = read_move(pos, &text).unwrap_or_else(|e| panic!("{line}: {e}"));
    assert_eq!(write_move(&mv, pos.variant()), text, "long form");
    if let Some(p) = ponder {
        let after = pos.play(&mv);
        let reply = read_move(&after, &p).unwrap_or_else(|e| panic!("ponder in {line}: {e}"));
        assert_eq!(write_move(&reply, after.variant()), p, "long form");
    }
    Some(mv)
}

fn infos(lines: &[String]) -> Vec<kroon_protocol::hub::Info> {
    lines
        .iter()
        .filter_map(|l| match parse_reply(l) {
            Ok(HubReply::Info(info)) => Some(info),
            _ => None,
        })
        .collect()
}

// ---- start-up --------------------------------------------------------------------------------

#[test]
fn handshake_declares_parameters_and_takes_settings() {
    let mut hub = Hub::start();
    hub.send("hub");
    let lines = hub.until("wait", LONG);
    assert_eq!(
        lines[0],
        format!(
            r#"id name=Kroon version={} author="Kroon developers" country=NL"#,
            env!("CARGO_PKG_VERSION")
        )
    );
    let names: Vec<&str> = Variant::ALL.iter().map(|v| v.hub_name()).collect();
    let variant = format!(
        r#"param name=variant value=normal type=enum values="{}""#,
        names.join(" ")
    );
    for want in [
        variant.as_str(),
        "param name=threads value=1 type=int min=1 max=64",
        "param name=hash value=64 type=int min=1 max=65536",
        "param name=ponder value=false type=bool",
        r#"param name=eval value=learned type=enum values="learned hand""#,
        r#"param name=egdb-path value="" type=string"#,
        "param name=book value=false type=bool",
        "param name=book-margin value=4 type=int min=0 max=100",
    ] {
        assert!(lines.iter().any(|l| l == want), "{want} in {lines:?}");
    }
    assert_eq!(lines.len(), 10, "{lines:?}");

    // Good values and unknown names are taken silently: the next line is the pong.
    for line in [
        "set-param name=threads value=2",
        "set-param name=hash value=16",
        "set-param name=ponder value=true",
        "set-param name=eval value=hand",
        "set-param name=book-file value=\"\"",
    ] {
        hub.send(line);
    }
    hub.ping();
    for (line, part) in [
        ("set-param name=threads value=0", "'threads'"),
        ("set-param name=threads value=two", "'threads'"),
        ("set-param name=hash value=65537", "'hash'"),
        ("set-param name=ponder value=sometimes", "'ponder'"),
        ("set-param name=variant value=chess", "chess"),
        ("set-param name=eval value=neural", "'eval'"),
        ("set-param name=threads", "value"),
    ] {
        hub.send(line);
        hub.expect_error(part);
        hub.ping();
    }
    hub.send("init");
    hub.expect_line("ready");
    hub.send("hub");
    let again = hub.until("wait", LONG);
    assert!(again.contains(&"param name=threads value=2 type=int min=1 max=64".to_owned()));
    assert!(again.contains(&"param name=ponder value=true type=bool".to_owned()));
    // Two threads search fine.
    let lines = hub.search(START, "depth=5", "think");
    check_done(lines.last().unwrap(), &start(), true);
}

#[test]
fn variant_parameter_changes_the_rules() {
    let mut hub = Hub::ready_with(&[("variant", "killer")]);
    let lines = hub.search(START, "depth=3", "think");
    check_done(
        lines.last().unwrap(),
        &Position::initial(Variant::Killer),
        true,
    );
}

// ---- levels ----------------------------------------------------------------------------------

#[test]
fn depth_level_stops_at_that_depth_and_streams_info() {
    let mut hub = Hub::ready();
    hub.send(&format!("pos pos={START} moves=\"32-28 19-23\""));
    hub.send("level depth=4");
    hub.send("go think");
    let lines = hub.until("done", LONG);
    let infos = infos(&lines);
    assert!(!infos.is_empty(), "{lines:?}");
    assert!(infos.iter().all(|i| i.depth.unwrap() <= 4), "{lines:?}");
    for i in &infos {
        assert!(i.score.is_some() && i.nodes.is_some() && i.time.is_some() && i.pv.is_some());
    }
    assert!(lines
        .iter()
        .all(|l| !l.starts_with("info ") || l.contains(" seldepth=")));
    let mut pos = start();
    for mv in ["32-28", "19-23"] {
        pos = pos.play(&parse_hub_move(&pos, mv).unwrap());
    }
    let mv = check_done(lines.last().unwrap(), &pos, true).unwrap();
    assert_eq!(notation::hub(&mv, Variant::International), "28x19x23");
    // The PV is in long notation too.
    assert!(infos[0].pv.as_deref().unwrap().starts_with("28x19x23"));
}

#[test]
fn book_parameter_plays_the_embedded_book() {
    let mut hub = Hub::ready_with(&[("book", "true"), ("book-margin", "0")]);
    let book = kroon_book::Book::embedded(Variant::International).unwrap();
    let (best, _) = book.moves(&start())[0];
    let lines = hub.search(START, "depth=6", "think");
    assert_eq!(lines.len(), 1, "a book move, no search: {lines:?}");
    assert_eq!(check_done(&lines[0], &start(), true), Some(best));
    // Out of book (a black man short), a search.
    let lines = hub.search("W:W31-50:B1-19", "depth=3", "think");
    assert!(lines[0].starts_with("info "), "{lines:?}");
}

#[test]
fn nodes_level_ends_in_a_legal_move() {
    let mut hub = Hub::ready();
    let lines = hub.search(START, "nodes=20000", "think");
    check_done(lines.last().unwrap(), &start(), true);
    // The node level, not a clock, ended the search: every iteration reported stays near it
    // (the count is checked every thousand nodes or so).
    let infos = infos(&lines);
    assert!(!infos.is_empty(), "{lines:?}");
    assert!(
        infos.iter().all(|i| i.nodes.unwrap() <= 2 * 20_000),
        "{lines:?}"
    );
}

/// The time a level allows is the time manager's (its unit tests in crates/search/src/time.rs,
/// the level's limits in the Hub session's); here, that a timed search ends by itself.
#[test]
fn move_time_level_ends_the_search() {
    let mut hub = Hub::ready();
    let lines = hub.search(START, "move-time=0.4", "think");
    check_done(lines.last().unwrap(), &start(), true);
}

#[test]
fn clock_levels_end_the_search() {
    let mut hub = Hub::ready();
    for level in [
        "time=0.3",
        "moves=1 time=0.3",
        "moves=20 time=2 inc=0.1",
        "time=0.5 inc=0.05",
    ] {
        let lines = hub.search(START, level, "think");
        check_done(lines.last().unwrap(), &start(), true);
    }
}

#[test]
fn infinite_level_runs_until_stop() {
    let mut hub = Hub::ready();
    hub.send(&format!("pos pos={START}"));
    hub.send("level infinite");
    hub.send("go think");
    hub.no_done_for(Duration::from_millis(700));
    hub.send("stop");
    let lines = hub.until("done", LONG);
    check_done(lines.last().unwrap(), &start(), true);
    hub.ping();
}

// ---- during a search -------------------------------------------------------------------------

#[test]
fn ping_during_a_search_is_answered_before_done() {
    let mut hub = Hub::ready();
    hub.send(&format!("pos pos={START}"));
    // A search that only `stop` ends: the `pong` cannot wait for its end.
    hub.send("level infinite");
    hub.send("go think");
    hub.until("info", LONG);
    hub.send("ping");
    let lines = hub.until("pong", LONG);
    assert!(lines.iter().all(|l| !l.starts_with("done")), "{lines:?}");
    hub.send("stop");
    let lines = hub.until("done", LONG);
    check_done(lines.last().unwrap(), &start(), true);
}

#[test]
fn analyze_without_a_level_runs_until_stop() {
    let mut hub = Hub::ready();
    hub.send(&format!("pos pos={START}"));
    hub.send("go analyze");
    hub.no_done_for(Duration::from_millis(800));
    hub.ping();
    hub.send("stop");
    let lines = hub.until("done", LONG);
    check_done(lines.last().unwrap(), &start(), true);
}

#[test]
fn ponder_hit_starts_the_clock() {
    let mut hub = Hub::ready();
    // The GUI sends the position after the expected reply (Scan protocol.txt).
    hub.send(&format!("pos pos={START} moves=\"32-28 18-23\""));
    hub.send("level move-time=0.3");
    hub.send("go ponder");
    // The level's clock does not run while pondering.
    hub.no_done_for(Duration::from_millis(800));
    hub.ping();
    // From the hit the move time runs: the search ends by itself, without `stop`.
    hub.send("ponder-hit");
    let lines = hub.until("done", LONG);
    let mut pos = start();
    for mv in ["32-28", "18-23"] {
        pos = pos.play(&parse_hub_move(&pos, mv).unwrap());
    }
    check_done(lines.last().unwrap(), &pos, true);
}

#[test]
fn ponder_then_stop_answers() {
    let mut hub = Hub::ready();
    hub.send(&format!("pos pos={START} moves=\"31-27\""));
    hub.send("level depth=2");
    hub.send("go ponder");
    // A ponder search that is finished early holds its move until ponder-hit or stop.
    hub.no_done_for(Duration::from_millis(500));
    hub.send("stop");
    let lines = hub.until("done", LONG);
    let pos = start().play(&parse_hub_move(&start(), "31-27").unwrap());
    check_done(lines.last().unwrap(), &pos, true);
    // And the next search is a normal one.
    let lines = hub.search(START, "depth=2", "think");
    check_done(lines.last().unwrap(), &start(), true);
}

#[test]
fn new_game_clears_the_position_and_history() {
    let mut hub = Hub::ready();
    let lines = hub.search(START, "depth=4", "think");
    check_done(lines.last().unwrap(), &start(), true);
    hub.send("new-game");
    hub.ping();
    hub.send("go think");
    hub.expect_error("pos");
    hub.expect_line("done");
    let lines = hub.search(START, "depth=4", "think");
    check_done(lines.last().unwrap(), &start(), true);
}

// ---- bad input -------------------------------------------------------------------------------

#[test]
fn bad_input_is_reported_and_the_engine_lives_on() {
    let mut hub = Hub::ready();
    // A fresh engine has no position yet.
    hub.send("level depth=1");
    hub.send("go think");
    hub.expect_error("pos");
    hub.expect_line("done");
    hub.ping();

    let cases: [(&str, &str); 9] = [
        // Malformed lines.
        ("level depth=", "no value"),
        ("level depth=deep", "depth=deep"),
        ("pos pos=\"Wbbb", "closing quote"),
        ("= pos", "command"),
        // Positions.
        (
            "pos pos=Wbbbbbbbbbbbbbbbbbbbbeeeeeeeeeewwwwwwwwwwwwwwwwwwwq",
            "unknown square character `q`",
        ),
        ("pos pos=Wbbbbbbbbbbeeeeewww", "expected 50 squares, found 18"),
        // Moves: illegal (a capture is compulsory), ambiguous, unreadable.
        (
            "pos pos=Wbbbbbbbbbbbbbbbbbbbbeeeeeeeeeewwwwwwwwwwwwwwwwwwww moves=\"32-28 19-23 34-30\"",
            "move 3 in 'moves': illegal move `34-30`",
        ),
        ("pos pos=W:WK37:B9,13,17,32 moves=\"37x21\"", "ambiguous move `37x21`"),
        ("pos pos=Wbbbbbbbbbbbbbbbbbbbbeeeeeeeeeewwwwwwwwwwwwwwwwwwww moves=\"32/28\"", "32/28"),
    ];
    for (line, part) in cases {
        hub.send(line);
        hub.expect_error(part);
        hub.ping();
    }
    // The refused pos is not searched: error, then a bare done.
    hub.send("go think");
    hub.expect_error("refused");
    hub.expect_line("done");
    hub.ping();

    // Ignored without a word on stdout.
    hub.send("");
    hub.send("   ");
    hub.send("frobnicate speed=11");
    hub.send("set-param name=contempt value=3");
    hub.send_bytes(b"\xff\xfe garbage \x00");
    hub.send(&"x".repeat(100_000));
    // Longer than the engine reads (1 MiB): dropped whole, not kept or taken as a command.
    let long = format!("pos pos={}", "x".repeat(3 << 20));
    let stdin = hub.stdin.as_mut().expect("stdin is open");
    stdin.write_all(long.as_bytes()).expect("write to kroon");
    hub.send("");
    hub.send("stop");
    hub.send("ponder-hit");
    hub.ping();

    // The long form with a subset of the captured fields resolves the ambiguity.
    let lines = hub.search("W:WK37:B9,13,17,32", "depth=3", "think");
    let pos = parse_fen("W:WK37:B9,13,17,32", Variant::International).unwrap();
    check_done(lines.last().unwrap(), &pos, true);
    hub.send("pos pos=W:WK37:B9,13,17,32 moves=\"37x21x9\"");
    hub.ping();
}

// ---- special positions -----------------------------------------------------------------------

#[test]
fn one_legal_move_is_answered_from_a_small_search() {
    let mut hub = Hub::ready();
    let pos = parse_fen("W:W28,50:B1,23", Variant::International).unwrap();
    assert_eq!(pos.legal_moves().len(), 1);
    for level in ["time=100", "move-time=10", "moves=40 time=300 inc=1"] {
        let lines = hub.search(&write_hub(&pos), level, "think");
        // Whatever the clock, a search too small to be felt on it: at most 8 plies deep and
        // about 20000 nodes (the engine's forced-move search), where the clock would allow
        // seconds of search.
        let infos = infos(&lines);
        assert!(!infos.is_empty(), "{level}: {lines:?}");
        assert!(
            infos
                .iter()
                .all(|i| i.depth.unwrap() <= 8 && i.nodes.unwrap() <= 2 * 20_000),
            "{level}: {lines:?}"
        );
        let mv = check_done(lines.last().unwrap(), &pos, true).unwrap();
        assert_eq!(notation::hub(&mv, Variant::International), "28x19x23");
    }
}

#[test]
fn a_position_without_a_legal_move_answers_a_bare_done() {
    let mut hub = Hub::ready();
    // Black to move and nothing left to move: the game is over.
    let hub_text = format!("B{}", "e".repeat(30) + "w" + &"e".repeat(19));
    let pos = parse_hub(&hub_text, Variant::International).unwrap();
    assert!(pos.legal_moves().is_empty());
    for mode in ["think", "analyze", "ponder"] {
        // `infinite`, yet a bare `done` comes by itself: there is nothing to search.
        let lines = hub.search(&hub_text, "infinite", mode);
        assert_eq!(lines, ["done"], "{mode}");
        check_done("done", &pos, false);
    }
    // Blocked rather than empty: the white man on 46 can neither move nor capture.
    let blocked = parse_fen("W:W46:B37,41", Variant::International).unwrap();
    assert!(blocked.legal_moves().is_empty());
    let lines = hub.search("W:W46:B37,41", "depth=3", "think");
    assert_eq!(lines, ["done"]);
    hub.ping();
}

// ---- ending ----------------------------------------------------------------------------------

#[test]
fn end_of_input_exits() {
    let mut idle = Hub::ready();
    idle.close_stdin();
    let status = idle.wait_exit(LONG);
    assert!(status.is_some_and(|s| s.success()), "{status:?}");

    let mut busy = Hub::ready();
    busy.send(&format!("pos pos={START}"));
    busy.send("level infinite");
    busy.send("go analyze");
    busy.no_done_for(Duration::from_millis(300));
    busy.close_stdin();
    let status = busy.wait_exit(LONG);
    assert!(status.is_some_and(|s| s.success()), "{status:?}");
}

#[test]
fn quit_during_a_search_exits() {
    let mut hub = Hub::ready();
    hub.send(&format!("pos pos={START}"));
    hub.send("level infinite");
    hub.send("go think");
    hub.no_done_for(Duration::from_millis(300));
    hub.send("quit");
    let status = hub.wait_exit(LONG);
    assert!(status.is_some_and(|s| s.success()), "{status:?}");
}

// ---- pydraughts ------------------------------------------------------------------------------

/// pydraughts' `HubEngine` plays Kroon against itself to the end of a game, checking every move,
/// in every variant both know (10x10 and 8x8: pydraughts 0.6 numbers 8x8 moves its own way).
/// Needs python3 with pydraughts (`.ci/run` installs it), as tests/interop_pydraughts.rs does.
#[test]
fn pydraughts_hub_engine_plays_a_whole_game_in_every_variant() {
    if !pydraughts::available("pydraughts_hub_engine_plays_a_whole_game_in_every_variant") {
        return;
    }
    let script = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../tests/interop/hub_pydraughts.py"
    );
    for variant in [
        "normal",
        "frisian",
        "losing",
        "bt",
        "russian",
        "brazilian",
        "english",
    ] {
        let out = Command::new("python3")
            .args([script, env!("CARGO_BIN_EXE_kroon"), "--variant", variant])
            .output()
            .expect("python3 must be installed (with pydraughts)");
        let stdout = String::from_utf8_lossy(&out.stdout);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(
            out.status.success(),
            "pydraughts Hub game in {variant} failed:\n{stdout}\n{stderr}"
        );
        assert!(stdout.contains("game over:"), "{variant}: {stdout}");
    }
}

/// The calls pydraughts' own engine tests make on a Hub engine (tests/interop/
/// hub_pydraughts_engine_suite.py says which), through pydraughts' `HubEngine`.
#[test]
fn pydraughts_engine_suite_calls_are_answered() {
    if !pydraughts::available("pydraughts_engine_suite_calls_are_answered") {
        return;
    }
    let script = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../tests/interop/hub_pydraughts_engine_suite.py"
    );
    let out = Command::new("python3")
        .args([script, env!("CARGO_BIN_EXE_kroon")])
        .output()
        .expect("python3 must be installed (with pydraughts)");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stdout}\n{stderr}");
    assert!(stdout.contains("all answered"), "{stdout}");
}

#[test]
fn every_variant_plays_a_whole_game_against_itself() {
    for variant in Variant::ALL {
        let mut hub = Hub::start();
        hub.send("hub");
        hub.until("wait", LONG);
        hub.send(&format!(
            "set-param name=variant value={}",
            variant.hub_name()
        ));
        hub.send("init");
        hub.expect_line("ready");
        let start = Position::initial(variant);
        let mut game = kroon_rules::Game::new(start);
        let mut moves: Vec<String> = Vec::new();
        while game.outcome().is_none() {
            if moves.len() >= 600 {
                hub.fail(&format!("{variant}: no result after 600 plies"));
            }
            hub.send(&format!(
                "pos pos={} moves=\"{}\"",
                write_hub(&start),
                moves.join(" ")
            ));
            // `pos` resets the level, as in Scan.
            hub.send("level depth=3");
            hub.send("go think");
            let lines = hub.until("done", LONG);
            let done = lines.last().expect("a done line");
            let mv = check_done(done, game.position(), true).expect("a move");
            game.play(&mv)
                .unwrap_or_else(|e| hub.fail(&format!("{variant}: {e}")));
            moves.push(write_move(&mv, variant));
        }
        eprintln!(
            "{variant}: {:?} after {} plies",
            game.outcome(),
            moves.len()
        );
        assert!(
            moves.len() > 10,
            "{variant}: a game of {} plies",
            moves.len()
        );
    }
}

#[test]
fn multipv_parameter_numbers_one_line_per_info() {
    let mut hub = Hub::ready();
    hub.send("set-param name=multipv value=3");
    hub.send(&format!("pos pos={START}"));
    hub.send("level depth=3");
    hub.send("go think");
    let lines = hub.until("done", LONG);
    let numbered: Vec<(usize, String)> = lines
        .iter()
        .filter(|l| l.starts_with("info "))
        .map(|l| {
            let k = l
                .split_whitespace()
                .find_map(|w| w.strip_prefix("multipv="))
                .unwrap_or_else(|| panic!("no multipv in {l}"));
            let pv = l.split("pv=").nth(1).unwrap().trim_matches('"');
            (
                k.parse().unwrap(),
                pv.split_whitespace().next().unwrap().to_owned(),
            )
        })
        .collect();
    let ks: Vec<usize> = numbered.iter().map(|(k, _)| *k).collect();
    assert_eq!(ks, [1, 2, 3, 1, 2, 3, 1, 2, 3], "{lines:?}");
    for chunk in numbered.chunks(3) {
        assert!(chunk[0].1 != chunk[1].1 && chunk[1].1 != chunk[2].1 && chunk[0].1 != chunk[2].1);
    }
    // Without the parameter, the lines carry no number, as before.
    hub.send("set-param name=multipv value=1");
    // `go` reset the level, as in Scan.
    hub.send("level depth=3");
    hub.send("go think");
    let lines = hub.until("done", LONG);
    assert!(lines.iter().all(|l| !l.contains("multipv")), "{lines:?}");
}

// ---- clients' own command sequences ----------------------------------------------------------

/// The `info` keys a client reads, by name.
fn info_value<'a>(line: &'a str, key: &str) -> Option<&'a str> {
    line.split(' ')
        .find_map(|w| w.strip_prefix(key).and_then(|r| r.strip_prefix('=')))
}

/// What draughtsnet and pydraughts make of a score: centi-men, or plies to the end beyond 9,000.
fn client_win_plies(score: &str) -> Option<i64> {
    let centi = (score.parse::<f64>().unwrap() * 100.0) as i64;
    (centi.abs() > 9000).then_some(10_000 * centi.signum() - centi)
}

/// One AI level's settings.
type LidraughtsLevel = (u8, u64, &'static str, u32, u32, u32, u32);

/// lidraughts' AI levels 1-8 for international draughts, as its Scan client sends them:
/// (handicap, nodes, eval, book-margin, book-ply, depth, move time in ms).
const LIDRAUGHTS_LEVELS: [LidraughtsLevel; 8] = [
    (3, 50, "pst", 100, 4, 0, 50),
    (2, 120, "pst", 100, 4, 0, 100),
    (0, 400, "pst", 90, 4, 0, 150),
    (0, 1200, "pst", 90, 4, 0, 200),
    (0, 0, "pst", 80, 6, 6, 300),
    (0, 0, "pattern", 70, 6, 5, 400),
    (0, 0, "pattern", 60, 8, 11, 500),
    (0, 0, "pattern", 50, 8, 21, 1000),
];

/// Sends one lidraughts AI move request in its own order; returns the lines up to `done`.
fn lidraughts_move(hub: &mut Hub, level: usize, pos: &str, moves: &str) -> Vec<String> {
    let (handicap, nodes, eval, margin, book_ply, depth, ms) = LIDRAUGHTS_LEVELS[level - 1];
    hub.send("new-game");
    if moves.is_empty() {
        hub.send(&format!("pos pos={pos}"));
    } else {
        hub.send(&format!("pos pos={pos} moves=\"{moves}\""));
    }
    if handicap > 0 {
        hub.send(&format!("level handicap={handicap}"));
    }
    if nodes > 0 {
        hub.send(&format!("level nodes={nodes}"));
    }
    hub.send(&format!("set-param name=eval value={eval}"));
    hub.send(&format!("set-param name=book-margin value={margin}"));
    hub.send(&format!("set-param name=book-ply value={book_ply}"));
    if depth > 0 {
        hub.send(&format!("level depth={depth}"));
    }
    hub.send(&format!("level move-time={}", f64::from(ms) / 1000.0));
    hub.send("go think");
    hub.until("done", LONG)
}

#[test]
fn lidraughts_levels_keep_every_limit_and_play_legal_moves() {
    let mut hub = Hub::ready();
    hub.send("set-param name=threads value=1");
    let pos = start();
    for level in 1..=8 {
        let lines = lidraughts_move(&mut hub, level, START, "32-28 18-23");
        assert!(
            lines.iter().all(|l| !l.starts_with("error")),
            "level {level}: {lines:?}"
        );
        let one = pos.play(&parse_hub_move(&pos, "32-28").unwrap());
        let after = one.play(&parse_hub_move(&one, "18-23").unwrap());
        check_done(lines.last().unwrap(), &after, true);
        let last_info = lines.iter().rev().find(|l| l.starts_with("info "));
        let (_, nodes, _, _, _, depth, _) = LIDRAUGHTS_LEVELS[level - 1];
        if let Some(info) = last_info {
            let d: u32 = info_value(info, "depth").unwrap().parse().unwrap();
            let n: u64 = info_value(info, "nodes").unwrap().parse().unwrap();
            if nodes > 0 {
                // Node levels stop after the iteration that reaches the target.
                assert!(n < 2_000, "level {level}: {n} nodes for {nodes}");
            }
            if depth > 0 {
                assert!(d <= depth, "level {level}: depth {d} beyond {depth}");
            }
        }
    }
}

#[test]
fn a_level_one_search_with_fifty_nodes_stays_within_a_few_hundred() {
    let mut hub = Hub::ready();
    hub.send(&format!("pos pos={START}"));
    hub.send("level nodes=50");
    hub.send("level move-time=0.05");
    hub.send("go think");
    let lines = hub.until("done", LONG);
    let nodes: u64 = lines
        .iter()
        .rev()
        .find_map(|l| info_value(l, "nodes"))
        .expect("an info line")
        .parse()
        .unwrap();
    assert!(nodes <= 500, "{nodes}: {lines:?}");
}

#[test]
fn draughtsnet_analysis_stops_at_the_level_and_decodes_wins_to_plies() {
    let mut hub = Hub::ready();
    // draughtsnet's analysis: one level line, `go analyze`, `stop` once the info lines show
    // its node target; Scan also stops by itself at the level's limits.
    hub.send(&format!("pos pos={START} moves=\"32-28 19-23\""));
    hub.send("level depth=4");
    hub.send("go analyze");
    let lines = hub.until("done", LONG);
    assert!(
        lines.iter().any(|l| info_value(l, "depth") == Some("4")),
        "{lines:?}"
    );
    assert!(
        lines.iter().all(|l| info_value(l, "depth") != Some("5")),
        "{lines:?}"
    );
    // Won positions: the client's decoding of the score gives Kroon's own distance, the
    // length of its principal variation to the end.
    for (won, plies) in WON {
        hub.send(&format!("pos pos={won}"));
        hub.send("level depth=12");
        hub.send("go analyze");
        let lines = hub.until("done", LONG);
        let last = lines.iter().rev().find(|l| l.starts_with("info ")).unwrap();
        let score = info_value(last, "score").unwrap();
        let pv = last.split("pv=").nth(1).unwrap().trim_matches('"');
        assert_eq!(client_win_plies(score), Some(plies), "{won}: {last}");
        assert_eq!(pv.split(' ').count() as i64, plies, "{won}: {last}");
    }
}

/// Positions won in a known number of plies.
const WON: [(&str, i64); 3] = [
    ("W:W28:B23", 1),
    ("W:W32,38:B27,22", 5),
    ("W:W33,28:B18,23", 11),
];

#[test]
fn draughtsnet_analysis_sequence_stops_on_its_node_target() {
    // draughtsnet's `go()` for an analysis job: `level move-time=4000`, `go analyze`, and `stop`
    // once an `info` line reports the job's node target; then it reads `done`.
    let mut hub = Hub::ready();
    for moves in ["", "32-28", "32-28 18-23"] {
        if moves.is_empty() {
            hub.send(&format!("pos pos={START}"));
        } else {
            hub.send(&format!("pos pos={START} moves=\"{moves}\""));
        }
        hub.send("level move-time=4000");
        hub.send("go analyze");
        let mut stopped = false;
        loop {
            let line = hub.recv();
            if line.starts_with("done") {
                assert!(stopped, "done before the node target: {line}");
                assert!(line.starts_with("done move="), "{line}");
                break;
            }
            let nodes: u64 = info_value(&line, "nodes").map_or(0, |n| n.parse().unwrap());
            if !stopped && nodes >= 20_000 {
                hub.send("stop");
                stopped = true;
            }
        }
    }
}

#[test]
fn negative_clocks_and_moves_zero_read_as_scan() {
    let mut hub = Hub::ready();
    // pydraughts under lidraughts-bot when its overhead exceeds the clock: a move at once.
    let lines = hub.search(START, "time=-0.613 inc=-0.1", "think");
    assert!(lines.iter().all(|l| !l.starts_with("error")), "{lines:?}");
    check_done(lines.last().unwrap(), &start(), true);
    let lines = hub.search(START, "moves=0 time=3 inc=0.1", "think");
    assert!(lines.iter().all(|l| !l.starts_with("error")), "{lines:?}");
    check_done(lines.last().unwrap(), &start(), true);
}

/// draughtsnet's playing levels 1-8: (handicap, depth, move time in ms), sent as `level handicap=`
/// (when above 0), `level depth=`, `level move-time=` before `go think`.
const DRAUGHTSNET_LEVELS: [(u32, u32, u32); 8] = [
    (3, 2, 50),
    (3, 3, 100),
    (3, 4, 150),
    (2, 5, 200),
    (2, 6, 300),
    (1, 8, 400),
    (0, 11, 500),
    (0, 18, 1000),
];

#[test]
fn draughtsnet_frisian_game_and_its_analysis_replay_whole() {
    // draughtsnet's start-up (its options, then `init`), then a frisian game played move by move
    // as its move jobs ask (`new-game`, the start position with every move so far, the level),
    // then the game analysed as its analysis jobs do: the variant set again, the Stockfish-style
    // options and `ucinewgame` it sends to every engine (unknown to the Hub: ignored, never
    // fatal), and each ply from the last to the first searched to a node target.
    let mut hub = Hub::ready_with(&[("threads", "1"), ("tt-size", "24"), ("variant", "frisian")]);
    let mut pos = parse_hub(START, Variant::Frisian).unwrap();
    let mut moves: Vec<String> = Vec::new();
    for ply in 0..24 {
        // Levels 1 to 5 (the quick ones), in turn.
        let (handicap, depth, ms) = DRAUGHTSNET_LEVELS[ply % 5];
        hub.send("new-game");
        if moves.is_empty() {
            hub.send(&format!("pos pos={START}"));
        } else {
            hub.send(&format!("pos pos={START} moves=\"{}\"", moves.join(" ")));
        }
        if handicap > 0 {
            hub.send(&format!("level handicap={handicap}"));
        }
        hub.send(&format!("level depth={depth}"));
        hub.send(&format!("level move-time={}", f64::from(ms) / 1000.0));
        hub.send("go think");
        let lines = hub.until("done", LONG);
        assert!(
            lines.iter().all(|l| !l.starts_with("error")),
            "ply {ply}: {lines:?}"
        );
        let want = !pos.legal_moves().is_empty();
        let Some(mv) = check_done(lines.last().unwrap(), &pos, want) else {
            break;
        };
        moves.push(write_move(&mv, Variant::Frisian));
        pos = pos.play(&mv);
    }
    assert!(moves.len() >= 10, "a game of some length: {moves:?}");

    hub.send("set-param name=variant value=frisian");
    hub.send("set-param name=Skill Level value=20");
    hub.send("set-param name=UCI_AnalyseMode value=true");
    hub.send("ucinewgame");
    hub.ping();
    let start = parse_hub(START, Variant::Frisian).unwrap();
    for ply in (0..=moves.len()).rev() {
        let mut at = start;
        for text in &moves[..ply] {
            let mv = read_move(&at, text).unwrap();
            at = at.play(&mv);
        }
        if ply == 0 {
            hub.send(&format!("pos pos={START}"));
        } else {
            hub.send(&format!(
                "pos pos={START} moves=\"{}\"",
                moves[..ply].join(" ")
            ));
        }
        hub.send("level move-time=4000");
        hub.send("go analyze");
        let mut stopped = false;
        loop {
            let line = hub.recv();
            if line.starts_with("done") {
                check_done(&line, &at, !at.legal_moves().is_empty());
                break;
            }
            assert!(line.starts_with("info "), "ply {ply}: {line}");
            let nodes: u64 = info_value(&line, "nodes").map_or(0, |n| n.parse().unwrap());
            if !stopped && nodes >= 5_000 {
                hub.send("stop");
                stopped = true;
            }
        }
    }
}
