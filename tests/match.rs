//! `kroon match` end to end, against scripted fake engines (tests/fake_engines/, Python with
//! pydraughts, as `.ci/run` installs): normal games, each way an engine can lose (illegal move,
//! crash, hang, time, protocol), restarts, score adjudication, the SPRT stop, schedules, the DXP
//! referee, and one match with the real `kroon hub`. Each run is checked through the PDN file and
//! the `--results-json` file, and is killed if it outlives a watchdog.

use crate::support;
use support::pydraughts;

use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

const KROON: &str = env!("CARGO_BIN_EXE_kroon");
const FAKE_HUB: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../../tests/fake_engines/fake_hub.py"
);
const FAKE_DXP: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../../tests/fake_engines/fake_dxp.py"
);
/// No run here should come near this; it only turns a hang into a failure.
const WATCHDOG: Duration = Duration::from_secs(90);

/// A fresh directory for one test's files.
fn scratch(test: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("kroon-match-{}-{test}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("create scratch dir");
    dir
}

/// `--engine` words for a fake Hub engine.
fn fake(name: &str, mode: &str) -> Vec<String> {
    vec![
        format!("name={name}"),
        format!("cmd=python3 {FAKE_HUB} {mode}"),
    ]
}

fn wait_with_watchdog(mut child: Child) -> Output {
    let start = Instant::now();
    loop {
        match child.try_wait().expect("wait for kroon") {
            Some(_) => return child.wait_with_output().expect("collect output"),
            None if start.elapsed() > WATCHDOG => {
                let _ = child.kill();
                let out = child.wait_with_output().expect("collect output");
                panic!(
                    "kroon match ran over {WATCHDOG:?}\n{}\n{}",
                    String::from_utf8_lossy(&out.stdout),
                    String::from_utf8_lossy(&out.stderr)
                );
            }
            None => std::thread::sleep(Duration::from_millis(20)),
        }
    }
}

/// A finished `kroon match` run.
struct Run {
    out: Output,
    stdout: String,
    json: Value,
    pdn: String,
}

impl Run {
    fn games(&self) -> &Vec<Value> {
        self.json["games"].as_array().expect("games array")
    }

    fn context(&self) -> String {
        format!(
            "--- stdout ---\n{}\n--- stderr ---\n{}",
            self.stdout,
            String::from_utf8_lossy(&self.out.stderr)
        )
    }

    /// Every game ended with `termination` and the named culprit.
    fn all_lost_by(&self, termination: &str, culprit: &str) {
        assert!(!self.games().is_empty(), "{}", self.context());
        for g in self.games() {
            assert_eq!(g["termination"], termination, "{g:#}\n{}", self.context());
            assert_eq!(g["culprit"], culprit, "{g:#}");
            let expected = if g["white"] == culprit { "0-2" } else { "2-0" };
            assert_eq!(g["result"], expected, "{g:#}");
        }
    }
}

fn run_match(dir: &Path, engines: &[Vec<String>], extra: &[&str]) -> Run {
    let pdn = dir.join("games.pdn");
    let json = dir.join("results.json");
    let mut cmd = Command::new(KROON);
    cmd.arg("match");
    for e in engines {
        cmd.arg("--engine").args(e);
    }
    cmd.args(extra)
        .arg("--pdn")
        .arg(&pdn)
        .arg("--results-json")
        .arg(&json)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let out = wait_with_watchdog(cmd.spawn().expect("start kroon match"));
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    let json = std::fs::read_to_string(&json)
        .ok()
        .and_then(|t| serde_json::from_str(&t).ok())
        .unwrap_or(Value::Null);
    let pdn = std::fs::read_to_string(&pdn).unwrap_or_default();
    Run {
        out,
        stdout,
        json,
        pdn,
    }
}

fn lines_of(path: &Path) -> usize {
    std::fs::read_to_string(path)
        .unwrap_or_default()
        .lines()
        .count()
}

#[test]
fn complete_games_from_fen_openings_two_at_a_time() {
    if !pydraughts::available("complete_games_from_fen_openings_two_at_a_time") {
        return;
    }
    let dir = scratch("complete");
    let openings = dir.join("openings.fen");
    std::fs::write(&openings, "W:W31-50:B1-20\nB:W31-50:B1-20\n").unwrap();
    let run = run_match(
        &dir,
        &[fake("A", "first"), fake("B", "first")],
        &[
            "--openings",
            openings.to_str().unwrap(),
            "--games",
            "4",
            "--concurrency",
            "2",
            "--depth",
            "1",
            "--max-plies",
            "16",
        ],
    );
    assert!(run.out.status.success(), "{}", run.context());
    let games = run.games();
    assert_eq!(games.len(), 4, "{}", run.context());
    let mut numbers: Vec<u64> = games
        .iter()
        .map(|g| g["number"].as_u64().unwrap())
        .collect();
    numbers.sort_unstable();
    assert_eq!(numbers, [1, 2, 3, 4]);
    for g in games {
        assert_eq!(g["termination"], "move cap", "{g:#}");
        assert_eq!(g["result"], "1-1");
        assert_eq!(g["engine_plies"], 16);
        assert!(g["culprit"].is_null());
    }
    let pair = &run.json["pairs"][0];
    assert_eq!(
        (pair["first"].as_str(), pair["draws"].as_u64()),
        (Some("A"), Some(4))
    );
    assert_eq!(pair["pentanomial"], serde_json::json!([0, 0, 2, 0, 0]));
    // Four games in the PDN file, the second opening with its FEN and Black to move first.
    assert_eq!(run.pdn.matches("[Event \"kroon match\"]").count(), 4);
    assert_eq!(run.pdn.matches("[Result \"1-1\"]").count(), 4);
    assert_eq!(run.pdn.matches("[FEN \"B:W31,").count(), 2, "{}", run.pdn);
    assert!(run.pdn.contains("1... "), "{}", run.pdn);
    assert!(run.pdn.contains("[White \"B\"]") && run.pdn.contains("[Black \"B\"]"));
    // The final table.
    assert!(run.stdout.contains("A vs B"), "{}", run.stdout);
    assert!(run.stdout.contains("4 of 4 games played"), "{}", run.stdout);
}

#[test]
fn pdn_openings_are_cut_at_the_ply_count() {
    if !pydraughts::available("pdn_openings_are_cut_at_the_ply_count") {
        return;
    }
    let dir = scratch("pdn-openings");
    let openings = dir.join("openings.pdn");
    std::fs::write(
        &openings,
        "[Event \"x\"]\n1. 32-28 18-23 2. 37-32 12-18 3. 41-37 7-12 2-0\n",
    )
    .unwrap();
    let run = run_match(
        &dir,
        &[fake("A", "first"), fake("B", "first")],
        &[
            "--openings",
            openings.to_str().unwrap(),
            "--opening-plies",
            "4",
            "--games",
            "2",
            "--depth",
            "1",
            "--max-plies",
            "8",
        ],
    );
    assert!(run.out.status.success(), "{}", run.context());
    for g in run.games() {
        assert_eq!(g["opening"], "32-28 18-23 37-32 12-18");
        assert_eq!(g["engine_plies"], 4, "{g:#}");
        assert!(g["moves"]
            .as_str()
            .unwrap()
            .starts_with("1. 32-28 18-23 2. 37-32 12-18 3. "));
    }
}

#[test]
fn an_illegal_move_loses_and_the_engine_restarts() {
    if !pydraughts::available("an_illegal_move_loses_and_the_engine_restarts") {
        return;
    }
    let dir = scratch("illegal");
    let pids = dir.join("pids");
    let run = run_match(
        &dir,
        &[
            fake("good", "first"),
            fake(
                "bad",
                &format!("illegal --after 2 --pidlog {}", pids.display()),
            ),
        ],
        &["--games", "2", "--movetime", "2"],
    );
    assert!(run.out.status.success(), "{}", run.context());
    run.all_lost_by("illegal move", "bad");
    for g in run.games() {
        let lines = g["last_lines"].to_string();
        assert!(lines.contains("< done move=11-15"), "{lines}");
        assert!(g["reason"].as_str().unwrap().contains("11-15"));
    }
    assert_eq!(
        lines_of(&pids),
        2,
        "one start per game after an illegal move"
    );
    assert!(run.pdn.contains("[Termination \"illegal move\"]"));
    assert!(run.stdout.contains("last lines of bad"), "{}", run.stdout);
}

#[test]
fn a_crash_loses_and_its_standard_error_is_reported() {
    if !pydraughts::available("a_crash_loses_and_its_standard_error_is_reported") {
        return;
    }
    let dir = scratch("crash");
    let pids = dir.join("pids");
    let run = run_match(
        &dir,
        &[
            fake("good", "first"),
            fake(
                "bad",
                &format!("crash --after 2 --pidlog {}", pids.display()),
            ),
        ],
        &["--games", "2", "--movetime", "2"],
    );
    assert!(run.out.status.success(), "{}", run.context());
    run.all_lost_by("crash", "bad");
    for g in run.games() {
        let lines = g["last_lines"].to_string();
        assert!(lines.contains("! fake engine: simulated crash"), "{lines}");
        assert!(
            g["reason"].as_str().unwrap().contains("exit status: 3"),
            "{g:#}"
        );
    }
    assert_eq!(lines_of(&pids), 2);
}

#[test]
fn a_hang_loses_at_the_fixed_timeout() {
    if !pydraughts::available("a_hang_loses_at_the_fixed_timeout") {
        return;
    }
    let dir = scratch("hang");
    let pids = dir.join("pids");
    let start = Instant::now();
    let run = run_match(
        &dir,
        &[
            fake("good", "first"),
            fake("bad", &format!("hang --pidlog {}", pids.display())),
        ],
        &["--games", "2", "--depth", "3", "--timeout", "2"],
    );
    assert!(run.out.status.success(), "{}", run.context());
    run.all_lost_by("hang", "bad");
    assert_eq!(lines_of(&pids), 2, "a hung engine is killed and restarted");
    assert!(start.elapsed() < Duration::from_secs(30));
}

#[test]
fn a_late_move_loses_on_time() {
    if !pydraughts::available("a_late_move_loses_on_time") {
        return;
    }
    let dir = scratch("late");
    let pids = dir.join("pids");
    let run = run_match(
        &dir,
        &[
            fake("good", "first"),
            fake(
                "slow",
                &format!("slow --sleep 3.5 --pidlog {}", pids.display()),
            ),
        ],
        // The slow engine is late whatever the machine's load: it sleeps 3.5 s after it reads
        // `go`, which the manager sent before, so the manager sees at least 3.5 s against the
        // 3.2 s allowed. The other bounds leave seconds to spare, not milliseconds: the good
        // engine answers at once with 3.2 s allowed, and the slow one counts as hung only after
        // 3.2 s + 3 s of grace, 2.7 s after its answer.
        &["--games", "2", "--movetime", "3", "--margin-ms", "200"],
    );
    assert!(run.out.status.success(), "{}", run.context());
    run.all_lost_by("time forfeit", "slow");
    // It did answer, so it is still usable: no restart.
    assert_eq!(lines_of(&pids), 1);
}

#[test]
fn the_game_clock_runs_down() {
    if !pydraughts::available("the_game_clock_runs_down") {
        return;
    }
    let dir = scratch("clock");
    let run = run_match(
        &dir,
        // 0.6 s a move on a 2 s clock: the third or fourth move is too late.
        &[fake("good", "first"), fake("slow", "slow --sleep 0.6")],
        &["--games", "2", "--tc", "2+0", "--margin-ms", "50"],
    );
    assert!(run.out.status.success(), "{}", run.context());
    run.all_lost_by("time forfeit", "slow");
    for g in run.games() {
        // The slow engine made at least one move in time before its clock ran out.
        let own = if g["white"] == "slow" { 1 } else { 2 };
        assert!(g["engine_plies"].as_u64().unwrap() > own, "{g:#}");
        let lines = g["last_lines"].to_string();
        assert!(lines.contains("> level time="), "{lines}");
    }
}

#[test]
fn done_without_a_move_is_a_protocol_error() {
    if !pydraughts::available("done_without_a_move_is_a_protocol_error") {
        return;
    }
    let dir = scratch("protocol");
    let run = run_match(
        &dir,
        &[fake("good", "first"), fake("bad", "nomove")],
        &["--games", "2", "--movetime", "2"],
    );
    assert!(run.out.status.success(), "{}", run.context());
    run.all_lost_by("protocol error", "bad");
}

#[test]
fn agreed_scores_adjudicate_wins_and_draws() {
    if !pydraughts::available("agreed_scores_adjudicate_wins_and_draws") {
        return;
    }
    let dir = scratch("adjudicate");
    // "winner" always claims +5 for itself and "loser" -5 for itself: they agree on who wins,
    // whatever the colours.
    let run = run_match(
        &dir,
        &[
            fake("winner", "first --score 5"),
            fake("loser", "first --score -5"),
        ],
        &[
            "--games",
            "2",
            "--depth",
            "1",
            "--adjudicate-score",
            "3",
            "--adjudicate-plies",
            "2",
        ],
    );
    assert!(run.out.status.success(), "{}", run.context());
    for g in run.games() {
        assert_eq!(g["termination"], "adjudicated win", "{g:#}");
        assert_eq!(g["winner"], "winner");
        assert_eq!(g["engine_plies"], 2);
    }
    assert_eq!(
        run.json["pairs"][0]["pentanomial"],
        serde_json::json!([0, 0, 0, 0, 1])
    );

    let dir = scratch("adjudicate-draw");
    let openings = dir.join("start.fen");
    std::fs::write(&openings, "W:W31-50:B1-20\n").unwrap();
    let level = fake("level", "first --score-white 0");
    let run = run_match(
        &dir,
        &[level.clone(), fake("level2", "first --score-white 0.05")],
        &[
            "--openings",
            openings.to_str().unwrap(),
            "--games",
            "2",
            "--depth",
            "1",
            "--adjudicate-draw",
            "0.1",
            "--adjudicate-draw-plies",
            "4",
            "--adjudicate-draw-after",
            "10",
        ],
    );
    assert!(run.out.status.success(), "{}", run.context());
    for g in run.games() {
        assert_eq!(g["termination"], "adjudicated draw", "{g:#}");
        assert_eq!(g["engine_plies"], 10);
    }
}

#[test]
fn the_sprt_stops_the_match_once_it_decides() {
    if !pydraughts::available("the_sprt_stops_the_match_once_it_decides") {
        return;
    }
    let dir = scratch("sprt");
    let run = run_match(
        &dir,
        &[
            fake("winner", "first --score 5"),
            fake("loser", "first --score -5"),
        ],
        &[
            "--games",
            "40",
            "--depth",
            "1",
            "--adjudicate-score",
            "3",
            "--adjudicate-plies",
            "2",
            "--sprt",
            "elo0=0 elo1=5 alpha=0.05 beta=0.05",
        ],
    );
    assert!(run.out.status.success(), "{}", run.context());
    let sprt = &run.json["sprt"];
    assert_eq!(sprt["decision"], "H1 accepted", "{}", run.context());
    assert!(sprt["llr"].as_f64().unwrap() >= sprt["upper"].as_f64().unwrap());
    assert!(run.games().len() < 40, "{}", run.context());
    assert!(
        run.stdout.contains("match stopped: SPRT H1 accepted"),
        "{}",
        run.stdout
    );
    assert!(run.stdout.contains("LLR"), "{}", run.stdout);
}

#[test]
fn round_robin_and_gauntlet_schedules() {
    if !pydraughts::available("round_robin_and_gauntlet_schedules") {
        return;
    }
    let engines = [fake("A", "first"), fake("B", "first"), fake("C", "first")];
    let args = ["--games", "2", "--depth", "1", "--max-plies", "6"];
    let dir = scratch("round-robin");
    let run = run_match(&dir, &engines, &args);
    assert!(run.out.status.success(), "{}", run.context());
    assert_eq!(run.games().len(), 6);
    let pairs: Vec<(String, String)> = run.json["pairs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| (p["first"].to_string(), p["second"].to_string()))
        .collect();
    assert_eq!(pairs.len(), 3, "{pairs:?}");
    assert!(
        run.stdout.contains("engine"),
        "standings table: {}",
        run.stdout
    );

    let dir = scratch("gauntlet");
    let mut gauntlet_args = args.to_vec();
    gauntlet_args.push("--gauntlet");
    let run = run_match(&dir, &engines, &gauntlet_args);
    assert!(run.out.status.success(), "{}", run.context());
    assert_eq!(run.games().len(), 4);
    let pairs = run.json["pairs"].as_array().unwrap();
    assert_eq!(pairs.len(), 2);
    assert!(pairs.iter().all(|p| p["first"] == "A"));
}

#[test]
fn an_engine_that_cannot_start_stops_the_match() {
    if !pydraughts::available("an_engine_that_cannot_start_stops_the_match") {
        return;
    }
    let dir = scratch("no-start");
    let run = run_match(
        &dir,
        &[
            fake("good", "first"),
            vec!["name=ghost".into(), "cmd=/nonexistent/engine hub".into()],
        ],
        &["--games", "20", "--depth", "1"],
    );
    assert!(!run.out.status.success(), "{}", run.context());
    let stderr = String::from_utf8_lossy(&run.out.stderr);
    assert!(stderr.contains("ghost failed 3 games in a row"), "{stderr}");
    run.all_lost_by("crash", "ghost");
    assert_eq!(run.games().len(), 3, "{}", run.context());
}

/// Starts the fake DXP server and returns it with its address.
fn start_fake_dxp(mode: &str, log: &Path) -> (Child, String) {
    let mut child = Command::new("python3")
        .args([FAKE_DXP, mode, "--log", log.to_str().unwrap()])
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .expect("start the fake DXP engine");
    let mut first = String::new();
    use std::io::BufRead;
    std::io::BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut first)
        .expect("read the port");
    let port = first
        .trim()
        .strip_prefix("port ")
        .expect("port line")
        .to_owned();
    (child, format!("127.0.0.1:{port}"))
}

#[test]
fn the_referee_plays_dxp_engines() {
    if !pydraughts::available("the_referee_plays_dxp_engines") {
        return;
    }
    let dir = scratch("dxp");
    let log = dir.join("dxp.log");
    let (mut server, addr) = start_fake_dxp("first", &log);
    let run = run_match(
        &dir,
        &[
            fake("hub", "first"),
            vec!["name=dxp".into(), format!("dxp={addr}")],
        ],
        &["--games", "2", "--movetime", "2", "--max-plies", "20"],
    );
    let _ = server.kill();
    let _ = server.wait();
    assert!(run.out.status.success(), "{}", run.context());
    for g in run.games() {
        assert_eq!(g["termination"], "move cap", "{g:#}");
    }
    let seen = std::fs::read_to_string(&log).unwrap();
    // Two game requests on one connection (the follower's colour at index 35: Z, then W), the
    // hub engine's moves relayed, and an end message per game.
    let requests: Vec<&str> = seen.lines().filter(|l| l.starts_with('R')).collect();
    assert_eq!(requests.len(), 2, "{seen}");
    assert_eq!(&requests[0][35..36], "Z");
    assert_eq!(&requests[1][35..36], "W");
    assert!(
        requests.iter().all(|r| r.len() == 94 && &r[42..43] == "B"),
        "{seen}"
    );
    assert_eq!(
        seen.lines().filter(|l| l.starts_with('E')).count(),
        2,
        "{seen}"
    );
    assert!(
        seen.lines().filter(|l| l.starts_with('M')).count() >= 16,
        "{seen}"
    );

    // A DXP engine sending an illegal move loses, and the referee reconnects for the next game.
    let dir = scratch("dxp-illegal");
    let log = dir.join("dxp.log");
    let (mut server, addr) = start_fake_dxp("illegal", &log);
    let run = run_match(
        &dir,
        &[
            fake("hub", "first"),
            vec!["name=dxp".into(), format!("dxp={addr}")],
        ],
        &["--games", "2", "--movetime", "2"],
    );
    let _ = server.kill();
    let _ = server.wait();
    assert!(run.out.status.success(), "{}", run.context());
    run.all_lost_by("illegal move", "dxp");
    assert!(run.games()[0]["last_lines"]
        .to_string()
        .contains("< M0000111500"));
}

#[test]
fn kroon_hub_plays_a_whole_match() {
    if !pydraughts::available("kroon_hub_plays_a_whole_match") {
        return;
    }
    let dir = scratch("kroon-hub");
    let run = run_match(
        &dir,
        &[
            vec![
                "name=Kroon".into(),
                format!("cmd={KROON} hub"),
                "option.threads=1".into(),
                "option.hash=16".into(),
            ],
            fake("first", "first"),
        ],
        &["--games", "2", "--depth", "3", "--max-plies", "60"],
    );
    assert!(run.out.status.success(), "{}", run.context());
    assert_eq!(run.games().len(), 2);
    for g in run.games() {
        assert!(g["culprit"].is_null(), "{g:#}");
    }
}
