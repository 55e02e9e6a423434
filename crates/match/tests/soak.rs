//! The manager against engines that misbehave, two games at a time: engines that crash, hang,
//! play an illegal move, answer with garbage, flood their output with megabytes of junk (with or
//! without answering after it, in lines or in one line that never ends), or never stop writing.
//! Every scheduled game must end with a result, lost by the misbehaving engine by the manager's
//! rules; the match must end in bounded time without the manager's memory growing with the
//! floods; and no engine process may be left behind, running or as a zombie.
//!
//! The engines are tests/fake_engines/fake_hub.py (Python with pydraughts).

#[path = "../../../tests/support/pydraughts.rs"]
mod pydraughts;
#[path = "../../../tests/support/skip.rs"]
mod skip;

use kroon_match::{Match, MatchArgs, Report, Termination};
use kroon_rules::GameResult;
use std::collections::BTreeSet;
use std::path::Path;
use std::sync::mpsc;
use std::time::{Duration, Instant};

const FAKE_HUB: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../../tests/fake_engines/fake_hub.py"
);

/// Far above what the match needs (about 15 s on two busy cores); it only turns a manager that
/// hangs into a failure.
const BUDGET: Duration = Duration::from_secs(50);

/// Largest peak resident size of this test process: the floods add up to well over 100 MB, the
/// manager must not keep them (it needs a few MB).
const MAX_PEAK_MB: u64 = 40;

/// The misbehaving participants: name, the fake engine's arguments, and how each of its games
/// must end (the termination it loses by; `None`: normally, with no culprit). With `--after 2`
/// an engine plays its first move of each process well, so that its failures come after a move
/// and are not a run of failures before the first one, which would stop the match.
const ENTRANTS: &[(&str, &str, Option<&str>)] = &[
    ("crash", "crash --after 2", Some("crash")),
    ("hang", "hang --after 2", Some("hang")),
    ("illegal", "illegal --after 2", Some("illegal move")),
    ("garbage", "garbage --after 2", Some("hang")),
    (
        "garbage-bad-done",
        "garbage --then bad --after 2",
        Some("protocol error"),
    ),
    ("flood", "flood --mb 5 --after 2", Some("hang")),
    (
        "flood-endless-line",
        "flood --mb 64 --line-bytes 0 --after 2",
        Some("hang"),
    ),
    // A flood the engine then answers: 1 MB, which a starved machine still reads within the
    // 1.5 s timeout; the 5 and 64 MB floods above are the ones that test memory.
    ("flood-then-move", "flood --mb 1 --then first", None),
    ("spam", "spam", None),
];

/// The state letter of a process (`R`, `S`, `Z`, ...) and its parent, if it exists.
fn process(pid: u32) -> Option<(char, u32, String)> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // `pid (comm) state ppid ...`; comm may hold spaces and parentheses, so read after the last `)`.
    let rest = &stat[stat.rfind(')')? + 1..];
    let mut fields = rest.split_whitespace();
    let state = fields.next()?.chars().next()?;
    let ppid = fields.next()?.parse().ok()?;
    let cmdline = std::fs::read(format!("/proc/{pid}/cmdline")).unwrap_or_default();
    let cmdline = String::from_utf8_lossy(&cmdline).replace('\0', " ");
    Some((state, ppid, cmdline))
}

/// Peak resident set size of this process, in MB.
fn peak_rss_mb() -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").expect("read /proc/self/status");
    let line = status
        .lines()
        .find(|l| l.starts_with("VmHWM:"))
        .expect("VmHWM line");
    let kb: u64 = line
        .split_whitespace()
        .nth(1)
        .and_then(|v| v.parse().ok())
        .expect("VmHWM value");
    kb / 1024
}

fn args(pids: &Path) -> Vec<String> {
    let mut words = Vec::new();
    let mut engine = |name: &str, mode: &str| {
        words.push("--engine".to_owned());
        words.push(format!("name={name}"));
        words.push(format!(
            "cmd=python3 {FAKE_HUB} {mode} --pidlog {}",
            pids.display()
        ));
    };
    // A tenth of a second a move, so that an engine writing without pause has time to pile up
    // lines while its opponent thinks.
    engine("good", "slow --sleep 0.1");
    for (name, mode, _) in ENTRANTS {
        engine(name, mode);
    }
    let rest = [
        "--gauntlet",
        "--games",
        "2",
        "--concurrency",
        "2",
        // Depth games: the fixed timeout is the only limit, so a slow machine cannot turn a
        // flood that is answered into a time forfeit, and a hang costs 1.5 s.
        "--depth",
        "1",
        "--timeout",
        "1.5",
        "--startup-timeout",
        "5",
        // The openings are 4 to 6 plies: each engine makes a few moves at most.
        "--max-plies",
        "10",
    ];
    words.extend(rest.iter().map(|w| (*w).to_owned()));
    words
}

#[test]
fn misbehaving_engines_lose_every_game_and_leave_no_process_behind() {
    if !pydraughts::available("misbehaving_engines_lose_every_game_and_leave_no_process_behind") {
        return;
    }
    let dir = std::env::temp_dir().join(format!("kroon-soak-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("create scratch dir");
    let pids = dir.join("pids");
    let args = MatchArgs::from_words(args(&pids)).expect("valid options");
    let game = Match::new(args, "normal").expect("a valid match");
    let scheduled = game.scheduled();
    assert_eq!(scheduled, 2 * ENTRANTS.len());

    let start = Instant::now();
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(game.play());
    });
    let report: Report = match rx.recv_timeout(BUDGET) {
        Ok(r) => r.expect("the match runs"),
        Err(_) => panic!("the match ran over {BUDGET:?}"),
    };
    let took = start.elapsed();
    eprintln!("soak: {scheduled} games in {took:.1?}");

    // Every scheduled game has its result.
    assert_eq!(report.stopped, None, "{report:#?}");
    assert_eq!(report.scheduled, scheduled);
    let numbers: BTreeSet<usize> = report.games.iter().map(|g| g.number).collect();
    assert_eq!(numbers, (1..=scheduled).collect(), "{report:#?}");
    assert_eq!(report.games.len(), scheduled, "{report:#?}");

    // ... and the misbehaving engine lost it, the way its misbehaviour calls for.
    for g in &report.games {
        let other = if g.white == "good" {
            &g.black
        } else {
            &g.white
        };
        let (name, _, loses_by) = ENTRANTS
            .iter()
            .find(|e| e.0 == other)
            .expect("a gauntlet game");
        match loses_by {
            Some(tag) => {
                assert_eq!(g.culprit.as_deref(), Some(*name), "{g:#?}");
                assert!(
                    matches!(g.termination, Termination::Failure(k) if k.tag() == *tag),
                    "{name} should lose by {tag}: {g:#?}"
                );
                let want = if g.white == "good" {
                    GameResult::WhiteWins
                } else {
                    GameResult::BlackWins
                };
                assert_eq!(g.result, want, "{g:#?}");
                assert!(g.engine_plies >= 1, "{g:#?}");
            }
            None => {
                assert_eq!(g.culprit, None, "{g:#?}");
                assert_eq!(g.termination, Termination::MaxPlies, "{g:#?}");
            }
        }
    }

    // Every engine process the match started has ended and been reaped. The engines are children
    // of this process, so one the manager failed to wait for would show here as a zombie.
    let me = std::process::id();
    let started: Vec<u32> = std::fs::read_to_string(&pids)
        .expect("pid log")
        .lines()
        .map(|l| l.trim().parse().expect("a pid"))
        .collect();
    // One `good` per worker, at least one process per entrant, and a restart per failed game.
    let failures = report.games.iter().filter(|g| g.culprit.is_some()).count();
    assert!(started.len() > failures, "{} pids", started.len());
    for pid in started {
        if let Some((state, ppid, cmdline)) = process(pid) {
            assert!(
                !(state == 'Z' && ppid == me),
                "engine process {pid} is a zombie"
            );
            assert!(
                !cmdline.contains("fake_hub.py"),
                "engine process {pid} is still there (state {state}, parent {ppid}): {cmdline}"
            );
        }
    }

    let peak = peak_rss_mb();
    eprintln!("soak: peak resident size {peak} MB");
    assert!(peak < MAX_PEAK_MB, "peak resident size {peak} MB");
    assert!(took < BUDGET);
    let _ = std::fs::remove_dir_all(&dir);
}
