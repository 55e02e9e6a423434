//! Endgame tables through the real binary: `kroon egdb build | probe | info`, and the search
//! using them in `analyse` and over Hub (`egdb-path`).

use crate::support;
use support::{kroon, text};

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::OnceLock;

/// Tables of 2M-1M and all it leads into, built once by `kroon egdb build`.
fn tables() -> &'static PathBuf {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| {
        let dir = std::env::temp_dir().join(format!("kroon-egdb-cli-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let d = dir.to_str().unwrap();
        let o = kroon(&[
            "egdb",
            "build",
            "--slices",
            "2M-1M",
            "--dir",
            d,
            "--threads",
            "2",
        ]);
        assert!(o.status.success(), "{}", text(&o));
        assert!(
            String::from_utf8_lossy(&o.stdout).contains("built "),
            "{}",
            text(&o)
        );
        dir
    })
}

fn probe(dir: &Path, fen: &str) -> String {
    let o = kroon(&[
        "egdb",
        "probe",
        "--fen",
        fen,
        "--dir",
        dir.to_str().unwrap(),
    ]);
    text(&o).trim().to_string()
}

#[test]
fn build_probe_and_info() {
    let dir = tables();
    assert_eq!(probe(dir, "W:W27,28:B18"), "win 3");
    assert_eq!(probe(dir, "W:W16:B10"), "win 5");
    assert_eq!(probe(dir, "W:WK46:BK5"), "loss 2");
    assert_eq!(probe(dir, "B:W31,32:B19"), "draw");
    // A capture pending is played out: White must take 23x14 or so and the value follows.
    assert!(
        probe(dir, "W:W28:B23").starts_with("win") || probe(dir, "W:W28:B23").starts_with("loss")
    );
    let o = kroon(&[
        "egdb",
        "probe",
        "--fen",
        "W:W31-50:B1-20",
        "--dir",
        dir.to_str().unwrap(),
    ]);
    assert!(
        !o.status.success() && text(&o).contains("no table holds"),
        "{}",
        text(&o)
    );
    let o = kroon(&["egdb", "info", "--dir", dir.to_str().unwrap()]);
    let s = text(&o);
    assert!(
        s.contains("2M-1M") && s.contains("complete to 3 pieces"),
        "{s}"
    );
    // A second build finds everything done.
    let o = kroon(&[
        "egdb",
        "build",
        "--slices",
        "2M-1M",
        "--dir",
        dir.to_str().unwrap(),
    ]);
    assert!(text(&o).contains("built 0 slices"), "{}", text(&o));
}

#[test]
fn a_damaged_file_is_reported_and_left_out() {
    let copy = tables().with_extension("damaged");
    let _ = std::fs::remove_dir_all(&copy);
    std::fs::create_dir_all(&copy).unwrap();
    for e in std::fs::read_dir(tables()).unwrap() {
        let p = e.unwrap().path();
        std::fs::copy(&p, copy.join(p.file_name().unwrap())).unwrap();
    }
    std::fs::write(copy.join("2M-1M.kdb"), b"KROONEDB but cut short").unwrap();
    let d = copy.to_str().unwrap();
    let o = kroon(&["egdb", "info", "--dir", d]);
    assert!(
        text(&o).contains("left out") && text(&o).contains("2M-1M.kdb"),
        "{}",
        text(&o)
    );
    assert!(probe(&copy, "W:W16:B10").starts_with("win"));
    assert!(probe(&copy, "W:W27,28:B18").contains("no table holds"));
    // The search goes on without the damaged slice.
    let o = kroon(&[
        "analyse",
        "--fen",
        "W:W27,28:B18",
        "--depth",
        "3",
        "--egdb",
        d,
    ]);
    assert!(
        o.status.success() && text(&o).contains("best "),
        "{}",
        text(&o)
    );
    std::fs::remove_dir_all(&copy).unwrap();
}

/// The score of the last `depth` line of `kroon analyse`.
fn analyse_score(fen: &str, egdb: &str) -> f64 {
    let o = kroon(&["analyse", "--fen", fen, "--depth", "3", "--egdb", egdb]);
    assert!(o.status.success(), "{}", text(&o));
    let s = String::from_utf8_lossy(&o.stdout).into_owned();
    let line = s
        .lines()
        .rfind(|l| l.starts_with("depth"))
        .unwrap()
        .to_string();
    let score = line
        .split_whitespace()
        .skip_while(|w| *w != "score")
        .nth(1)
        .unwrap();
    score.parse().unwrap()
}

#[test]
fn analyse_knows_won_endings_only_with_the_tables() {
    // Two men against one far behind: the tables know it is won; a depth-3 search alone does not.
    let with = analyse_score("W:W41,42:B10", tables().to_str().unwrap());
    let without = analyse_score("W:W41,42:B10", "none");
    // Table wins print in Scan's table band, 80 to 90 men.
    assert!(
        (80.0..=90.0).contains(&with) && without < 20.0,
        "{with} {without}"
    );
    // A drawn one scores 0 exactly with the tables, not the evaluation's guess.
    assert_eq!(
        analyse_score("W:W31,36:B15", tables().to_str().unwrap()),
        0.0
    );
}

#[test]
fn hub_egdb_path_parameter() {
    let mut child = Command::new(support::KROON)
        .args(["hub", "--egdb", "none"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    let mut send = |l: &str| writeln!(stdin, "{l}").unwrap();
    let pos = kroon_rules::write_hub(
        &kroon_rules::parse_fen("W:W41,42:B10", kroon_rules::Variant::International).unwrap(),
    );
    let empty = std::env::temp_dir().join(format!("kroon-egdb-empty-{}", std::process::id()));
    std::fs::create_dir_all(&empty).unwrap();
    send("hub");
    let mut declared = false;
    for line in lines.by_ref() {
        let line = line.unwrap();
        declared |= line.starts_with("param name=egdb-path");
        if line == "wait" {
            break;
        }
    }
    assert!(declared);
    let mut search = |send: &mut dyn FnMut(&str), path: &Path| -> (Vec<String>, f64) {
        send(&format!(
            "set-param name=egdb-path value=\"{}\"",
            path.display()
        ));
        send(&format!("pos pos={pos}"));
        send("level depth=3");
        send("go think");
        let mut seen = Vec::new();
        let mut score = 0.0;
        for line in lines.by_ref() {
            let line = line.unwrap();
            if let Some(s) = line
                .split_whitespace()
                .find_map(|w| w.strip_prefix("score="))
            {
                score = s.parse().unwrap();
            }
            let done = line.starts_with("done");
            seen.push(line);
            if done {
                break;
            }
        }
        (seen, score)
    };
    send("init");
    let (_, with) = search(&mut send, tables());
    let (lines_empty, without) = search(&mut send, &empty);
    assert!(
        (80.0..=90.0).contains(&with) && without < 20.0,
        "{with} {without}"
    );
    assert!(
        lines_empty
            .iter()
            .any(|l| l.starts_with("error") && l.contains("no endgame tables")),
        "{lines_empty:?}"
    );
    send("quit");
    child.wait().unwrap();
    std::fs::remove_dir_all(&empty).unwrap();
}

#[test]
fn a_missing_table_directory_is_an_error_in_every_searching_command() {
    let missing = std::env::temp_dir().join(format!("kroon-egdb-missing-{}", std::process::id()));
    let m = missing.to_str().unwrap();
    for args in [
        vec!["analyse", "--nodes", "1000", "--egdb", m],
        vec!["hub", "--egdb", m],
        vec!["dxp", "--egdb", m],
    ] {
        // Hub and DXP would wait for input (`output` gives them a closed stdin); the error
        // comes before they read any.
        let o = kroon(&args);
        assert!(!o.status.success(), "{args:?}: {}", text(&o));
        assert!(
            text(&o).contains("no endgame table directory"),
            "{args:?}: {}",
            text(&o)
        );
        assert!(
            o.stdout.is_empty(),
            "{args:?} wrote to stdout: {}",
            text(&o)
        );
    }
}

/// A Hub session and an analysis with a fresh data directory: the first builds the small tables
/// (3 pieces here, to be quick) in the background, says so on standard error, keeps standard
/// output for protocol lines, and searches with them once they are done; the second finds them.
#[test]
fn search_commands_build_the_small_tables_when_there_are_none() {
    let home = std::env::temp_dir().join(format!("kroon-egdb-auto-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&home);
    std::fs::create_dir_all(&home).unwrap();
    let env = |c: &mut Command| {
        c.env("XDG_DATA_HOME", &home)
            .env("HOME", &home)
            .env("KROON_EGDB_AUTO_PIECES", "3")
            .env("KROON_LOG", "info");
    };
    let mut hub = Command::new(env!("CARGO_BIN_EXE_kroon"));
    hub.arg("hub")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    env(&mut hub);
    let mut child = hub.spawn().unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    let (log_tx, log) = std::sync::mpsc::channel();
    let stderr = BufReader::new(child.stderr.take().unwrap());
    std::thread::spawn(move || {
        for line in stderr.lines().map_while(Result::ok) {
            if log_tx.send(line).is_err() {
                break;
            }
        }
    });
    let mut send = |l: &str| writeln!(stdin, "{l}").unwrap();
    let mut stdout = Vec::new();
    let mut read_until = |stop: &str, stdout: &mut Vec<String>| {
        for line in lines.by_ref() {
            let line = line.unwrap();
            let done = line.starts_with(stop);
            stdout.push(line);
            if done {
                return;
            }
        }
        panic!("kroon hub ended before `{stop}`: {stdout:?}");
    };
    send("hub");
    read_until("wait", &mut stdout);
    send("init");
    read_until("ready", &mut stdout);
    // The build ends with a log line; the search sees the tables from then on.
    let mut seen = Vec::new();
    loop {
        let line = log
            .recv_timeout(std::time::Duration::from_secs(600))
            .unwrap_or_else(|e| panic!("no end of the background build ({e}): {seen:?}"));
        let done = line.contains("from now on");
        seen.push(line);
        if done {
            break;
        }
    }
    assert!(
        seen.iter()
            .any(|l| l.contains("building those up to 3 pieces")),
        "{seen:?}"
    );
    let pos = kroon_rules::write_hub(
        &kroon_rules::parse_fen("W:W41,42:B10", kroon_rules::Variant::International).unwrap(),
    );
    send(&format!("pos pos={pos}"));
    send("level depth=3");
    send("go think");
    let from = stdout.len();
    read_until("done", &mut stdout);
    let score: f64 = stdout[from..]
        .iter()
        .rev()
        .find_map(|l| l.split_whitespace().find_map(|w| w.strip_prefix("score=")))
        .unwrap()
        .parse()
        .unwrap();
    // Two men against one far behind: a table win, which a depth-3 search alone does not see.
    assert!(score > 50.0, "{:?}", &stdout[from..]);
    send("quit");
    child.wait().unwrap();
    let words = ["id", "param", "wait", "ready", "info", "done", "pong"];
    for line in &stdout {
        let word = line.split_whitespace().next().unwrap_or("");
        assert!(words.contains(&word), "not a Hub line on stdout: {line:?}");
    }
    let dir = home.join("kroon").join("egdb");
    let slices = std::fs::read_dir(&dir)
        .unwrap()
        .filter(|e| {
            e.as_ref()
                .unwrap()
                .path()
                .extension()
                .is_some_and(|x| x == "kdb")
        })
        .count();
    // Every slice of 2 and 3 pieces: 4 of 2 pieces, 12 of 3.
    assert_eq!(slices, 4 + 12, "{}", dir.display());

    // The next command finds them and builds nothing.
    let mut analyse = Command::new(env!("CARGO_BIN_EXE_kroon"));
    analyse.args(["analyse", "--fen", "W:W41,42:B10", "--depth", "3"]);
    env(&mut analyse);
    let o = analyse.output().unwrap();
    assert!(o.status.success(), "{}", text(&o));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("16 slices") && !err.contains("building"),
        "{err}"
    );

    // `[egdb] auto = false`: a fresh directory stays empty.
    let other = home.join("other");
    let config = home.join("engine.toml");
    std::fs::write(&config, "[egdb]\nauto = false\n").unwrap();
    let mut analyse = Command::new(env!("CARGO_BIN_EXE_kroon"));
    analyse.args([
        "analyse",
        "--fen",
        "W:W41,42:B10",
        "--depth",
        "3",
        "--config",
    ]);
    analyse.arg(&config);
    env(&mut analyse);
    analyse.env("XDG_DATA_HOME", &other);
    let o = analyse.output().unwrap();
    assert!(o.status.success(), "{}", text(&o));
    assert!(!other.join("kroon").exists(), "{}", text(&o));
    std::fs::remove_dir_all(&home).unwrap();
}
