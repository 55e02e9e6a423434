//! The work queue against a real Redis: `kroon selfplay --queue` with workers writes the file the
//! one-machine run writes, byte for byte, also when a worker is killed mid-job and when the server
//! restarts mid-run.
//!
//! Each test starts its own `redis-server` (Debian's package) on a free loopback port in a
//! temporary directory, with its append-only file, and kills it at the end. Without the server
//! the tests print a skip line, unless `KROON_REQUIRE_REDIS` is set (as `.ci/run` sets it): then
//! they fail.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStderr, Command, Output, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

const SERVER: &str = "redis-server";

fn server_path() -> Option<PathBuf> {
    let paths = std::env::var_os("PATH").unwrap_or_default();
    std::env::split_paths(&paths)
        .chain([PathBuf::from("/usr/bin"), PathBuf::from("/usr/sbin")])
        .map(|d| d.join(SERVER))
        .find(|p| p.is_file())
}

fn server() -> Option<PathBuf> {
    if let Some(p) = server_path() {
        return Some(p);
    }
    let required = std::env::var_os("KROON_REQUIRE_REDIS").is_some_and(|v| v != "0");
    assert!(
        !required,
        "KROON_REQUIRE_REDIS is set but {SERVER} is missing: apt-get install -y redis-server"
    );
    let _ = writeln!(
        std::io::stderr(),
        "SKIPPED queue test: needs {SERVER} (apt-get install -y redis-server); set \
         KROON_REQUIRE_REDIS=1 to make this a failure"
    );
    None
}

fn temp_dir(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("kroon-queue-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// A redis-server of the test's own, killed when dropped.
struct Redis {
    bin: PathBuf,
    dir: PathBuf,
    port: u16,
    /// Extra arguments (a password).
    args: Vec<String>,
    child: Option<Child>,
}

impl Redis {
    fn start(bin: PathBuf, dir: &Path) -> Redis {
        Redis::start_with(bin, dir, &[])
    }

    fn start_with(bin: PathBuf, dir: &Path, args: &[&str]) -> Redis {
        let port = TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        let mut r = Redis {
            bin,
            dir: dir.to_owned(),
            port,
            args: args.iter().map(|a| (*a).to_owned()).collect(),
            child: None,
        };
        r.launch();
        r
    }

    fn launch(&mut self) {
        let child = Command::new(&self.bin)
            .args(["--bind", "127.0.0.1", "--port", &self.port.to_string()])
            .args(["--appendonly", "yes", "--save", ""])
            .args(&self.args)
            .arg("--dir")
            .arg(&self.dir)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("start redis-server");
        self.child = Some(child);
        // Ready once it answers PING (LOADING while it replays its file).
        loop {
            if let Ok(mut s) = TcpStream::connect(("127.0.0.1", self.port)) {
                let mut buf = [0u8; 64];
                if s.write_all(b"PING\r\n").is_ok() {
                    if let Ok(n) = s.read(&mut buf) {
                        // -NOAUTH: up, and asking for the password.
                        if buf[..n].starts_with(b"+PONG") || buf[..n].starts_with(b"-NOAUTH") {
                            return;
                        }
                    }
                }
            }
            if let Some(status) = self.child.as_mut().unwrap().try_wait().unwrap() {
                panic!("redis-server exited at start: {status}");
            }
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// A clean shutdown (SIGTERM: the server writes its append-only file and exits), then the
    /// same server again on the same port and directory.
    fn restart(&mut self) {
        let mut child = self.child.take().unwrap();
        let _ = Command::new("kill")
            .args(["-TERM", &child.id().to_string()])
            .status();
        child.wait().unwrap();
        self.launch();
    }

    fn url(&self) -> String {
        format!("redis://127.0.0.1:{}/0", self.port)
    }
}

impl Drop for Redis {
    fn drop(&mut self) {
        if let Some(mut c) = self.child.take() {
            let _ = c.kill();
            let _ = c.wait();
        }
    }
}

/// A `kroon worker`, killed when dropped; its log lines arrive on a channel.
struct Worker {
    child: Child,
    lines: mpsc::Receiver<String>,
}

impl Worker {
    fn start(url: &str, name: &str) -> Worker {
        Worker::start_with(url, name, &[])
    }

    fn start_with(url: &str, name: &str, args: &[&str]) -> Worker {
        Worker::start_env(url, name, args, &[])
    }

    /// A worker with the environment variables `env` set too.
    fn start_env(url: &str, name: &str, args: &[&str], env: &[(&str, &Path)]) -> Worker {
        let worker = [
            "worker",
            "--queue",
            url,
            "--name",
            name,
            "--visibility",
            "1",
        ];
        Worker::spawn(&[&worker[..], args].concat(), env)
    }

    /// Any `kroon` command (a producer too), its log read line by line as a worker's is.
    fn spawn(args: &[&str], env: &[(&str, &Path)]) -> Worker {
        let mut child = Command::new(env!("CARGO_BIN_EXE_kroon"))
            .args(args)
            .envs(env.iter().copied())
            .env("KROON_LOG", "debug")
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .expect("start kroon worker");
        let err: ChildStderr = child.stderr.take().unwrap();
        let (tx, lines) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(err).lines().map_while(Result::ok) {
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        Worker { child, lines }
    }

    /// Waits for a log line containing `text`.
    fn wait_for(&self, text: &str) -> String {
        loop {
            let line = self
                .lines
                .recv()
                .unwrap_or_else(|_| panic!("the worker ended before logging {text:?}"));
            if line.contains(text) {
                return line;
            }
        }
    }

    /// Waits for log lines containing each of `texts`, in any order; returns every line read.
    fn wait_for_all(&self, texts: &[String]) -> Vec<String> {
        let mut seen = Vec::new();
        let mut missing: Vec<&String> = texts.iter().collect();
        while !missing.is_empty() {
            let line = self
                .lines
                .recv()
                .unwrap_or_else(|_| panic!("the worker ended before logging {missing:?}"));
            missing.retain(|t| !line.contains(t.as_str()));
            seen.push(line);
        }
        seen
    }

    /// Every line logged so far.
    fn lines_so_far(&self) -> Vec<String> {
        self.lines.try_iter().collect()
    }

    /// Kills the worker; every line it logged that was not read yet.
    fn kill(&mut self) -> Vec<String> {
        let _ = self.child.kill();
        let _ = self.child.wait();
        // Its standard error is closed now: the reader ends and the channel with it.
        self.lines.iter().collect()
    }
}

impl Drop for Worker {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The self-play settings of these tests: few games, few nodes.
const SETTINGS: [&str; 12] = [
    "--games",
    "8",
    "--nodes",
    "200",
    "--hash",
    "1",
    "--max-plies",
    "100",
    "--eval",
    "hand",
    "--seed",
    "5",
];

fn local(out: &Path) -> Vec<u8> {
    let o = Command::new(env!("CARGO_BIN_EXE_kroon"))
        .args(["selfplay", "--out", out.to_str().unwrap()])
        .args(SETTINGS)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", text(&o));
    std::fs::read(out).unwrap()
}

fn producer(url: &str, out: &Path) -> Child {
    Command::new(env!("CARGO_BIN_EXE_kroon"))
        .args(["selfplay", "--out", out.to_str().unwrap(), "--queue", url])
        .args(["--batch", "2"])
        .args(SETTINGS)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap()
}

fn text(o: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    )
}

fn finish(p: Child) -> String {
    let o = p.wait_with_output().unwrap();
    assert!(o.status.success(), "{}", text(&o));
    text(&o)
}

/// `queue-status` says that all `jobs` jobs of the run are done.
fn assert_all_done(url: &str, jobs: usize) {
    let o = Command::new(env!("CARGO_BIN_EXE_kroon"))
        .args(["queue-status", "--queue", url])
        .output()
        .unwrap();
    let expected = format!("{jobs} jobs, 0 pending, 0 running, {jobs} done, 0 failed");
    assert!(text(&o).contains(&expected), "{}", text(&o));
}

#[test]
fn selfplay_on_three_workers_writes_the_local_file() {
    let Some(bin) = server() else { return };
    let d = temp_dir("three");
    let redis = Redis::start(bin, &d);
    let expected = local(&d.join("local.bin"));
    let workers: Vec<Worker> = (0..3)
        .map(|i| Worker::start(&redis.url(), &format!("w{i}")))
        .collect();
    let out = d.join("queue.bin");
    let said = finish(producer(&redis.url(), &out));
    assert!(said.contains("games 8 "), "{said}");
    assert_eq!(std::fs::read(&out).unwrap(), expected);
    assert_all_done(&redis.url(), 4);
    // Run again: the file is whole, nothing is issued.
    let said = finish(producer(&redis.url(), &out));
    assert!(said.contains("games 0 "), "{said}");
    assert_eq!(std::fs::read(&out).unwrap(), expected);
    drop(workers);
    drop(redis);
    let _ = std::fs::remove_dir_all(&d);
}

#[test]
fn a_worker_killed_mid_job_is_replaced_and_the_file_is_the_same() {
    let Some(bin) = server() else { return };
    let d = temp_dir("killed");
    let redis = Redis::start(bin, &d);
    let expected = local(&d.join("local.bin"));
    let out = d.join("queue.bin");
    let p = producer(&redis.url(), &out);
    let doomed = Worker::start(&redis.url(), "doomed");
    doomed.wait_for("started");
    // kill -9: no chance to hand the job back; another worker must take it over.
    drop(doomed);
    let survivor = Worker::start(&redis.url(), "survivor");
    finish(p);
    assert_eq!(std::fs::read(&out).unwrap(), expected);
    drop(survivor);
    drop(redis);
    let _ = std::fs::remove_dir_all(&d);
}

#[test]
fn a_redis_restart_mid_run_changes_nothing() {
    let Some(bin) = server() else { return };
    let d = temp_dir("restart");
    let mut redis = Redis::start(bin, &d);
    let expected = local(&d.join("local.bin"));
    let out = d.join("queue.bin");
    let p = producer(&redis.url(), &out);
    let w = Worker::start(&redis.url(), "steady");
    w.wait_for("done");
    redis.restart();
    finish(p);
    assert_eq!(std::fs::read(&out).unwrap(), expected);
    drop(w);
    drop(redis);
    let _ = std::fs::remove_dir_all(&d);
}

#[test]
fn a_worker_of_another_build_refuses_the_jobs_and_says_so() {
    let Some(bin) = server() else { return };
    let d = temp_dir("stranger");
    let redis = Redis::start(bin, &d);
    let expected = local(&d.join("local.bin"));
    // A worker keeps its build's bench signature in its cache directory, under the hash of its
    // executable: one started with a cache that says another signature for this executable
    // takes itself for another build.
    let cache = d.join("cache");
    let env = [("XDG_CACHE_HOME", cache.as_path())];
    let mut probe = Worker::start_env(&redis.url(), "probe", &[], &env);
    let ready = probe.wait_for("threads, bench");
    probe.kill();
    let bench: u64 = ready.rsplit(' ').next().unwrap().trim().parse().unwrap();
    let file = cache.join("kroon").join("bench-signature");
    let kept = std::fs::read_to_string(&file).unwrap();
    let key = kept
        .strip_suffix(&format!(" {bench}\n"))
        .unwrap_or_else(|| panic!("{kept:?}"));
    std::fs::write(&file, format!("{key} {}\n", bench + 1)).unwrap();

    let out = d.join("queue.bin");
    let p = producer(&redis.url(), &out);
    let stranger = Worker::start_env(&redis.url(), "stranger", &["--max-jobs", "1"], &env);
    let line = stranger.wait_for("refused");
    assert!(
        line.contains("another build") && line.contains(&format!("bench {}", bench + 1)),
        "{line}"
    );
    // A worker of this build then plays them all, the refused job too.
    let w = Worker::start(&redis.url(), "native");
    let said = finish(p);
    assert!(said.contains("failed on stranger/0"), "{said}");
    assert_eq!(std::fs::read(&out).unwrap(), expected);
    drop(stranger);
    drop(w);
    drop(redis);
    let _ = std::fs::remove_dir_all(&d);
}

/// A producer whose run's name has been read from its first line.
fn producer_run(url: &str, out: &Path) -> (Child, String, BufReader<std::process::ChildStdout>) {
    let mut p = Command::new(env!("CARGO_BIN_EXE_kroon"))
        .args(["selfplay", "--out", out.to_str().unwrap(), "--queue", url])
        .args(["--batch", "2"])
        .args(SETTINGS)
        .env("KROON_LOG", "debug")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdout = BufReader::new(p.stdout.take().unwrap());
    // The line that names the run comes after the settings.
    let mut first = String::new();
    while !first.contains(": run ") {
        first.clear();
        assert!(
            stdout.read_line(&mut first).unwrap() > 0,
            "the producer ended"
        );
    }
    let run = first
        .split("run ")
        .nth(1)
        .and_then(|r| r.split(',').next())
        .unwrap_or_else(|| panic!("no run name in {first:?}"))
        .to_owned();
    (p, run, stdout)
}

/// The producer's whole output (its first line was read already), once it succeeded.
fn finish_run(p: Child, mut stdout: BufReader<std::process::ChildStdout>) -> String {
    let mut said = String::new();
    stdout.read_to_string(&mut said).unwrap();
    let o = p.wait_with_output().unwrap();
    let all = format!("{said}{}", String::from_utf8_lossy(&o.stderr));
    assert!(o.status.success(), "{all}");
    all
}

fn xadd(con: &mut redis::Connection, key: &str, fields: &[(&str, &[u8])]) -> String {
    let mut cmd = redis::cmd("XADD");
    cmd.arg(key).arg("*");
    for (k, v) in fields {
        cmd.arg(*k).arg(*v);
    }
    cmd.query(con).unwrap()
}

/// Every entry of a stream, as (id, field, value) text.
fn entries(con: &mut redis::Connection, key: &str) -> Vec<(String, String)> {
    let r: redis::streams::StreamRangeReply = redis::cmd("XRANGE")
        .arg(key)
        .arg("-")
        .arg("+")
        .query(con)
        .unwrap();
    r.ids
        .into_iter()
        .map(|e| {
            let text = e
                .map
                .iter()
                .map(|(k, v)| {
                    let v: Vec<u8> = redis::from_redis_value_ref(v).unwrap_or_default();
                    format!("{k}={}", String::from_utf8_lossy(&v))
                })
                .collect::<Vec<_>>()
                .join(" ");
            (e.id, text)
        })
        .collect()
}

#[test]
fn malformed_records_and_a_poison_job_get_error_results_and_the_run_completes() {
    let Some(bin) = server() else { return };
    let d = temp_dir("malformed");
    let redis = Redis::start(bin, &d);
    let expected = local(&d.join("local.bin"));
    let mut con = redis::Client::open(redis.url())
        .unwrap()
        .get_connection()
        .unwrap();
    let _: () = redis::cmd("XGROUP")
        .arg("CREATE")
        .arg("kroon:jobs")
        .arg("workers")
        .arg("0")
        .arg("MKSTREAM")
        .query(&mut con)
        .unwrap();
    // A poison job: handed out 9 times already to workers that never answered.
    let poison = br#"{"version":1,"run":"poisoned","id":"p1","build":{"bench":1,"eval":"hand"},"task":{"kind":"selfplay"}}"#;
    let poison = xadd(&mut con, "kroon:jobs", &[("job", poison)]);
    let _: redis::Value = redis::cmd("XREADGROUP")
        .arg("GROUP")
        .arg("workers")
        .arg("ghost")
        .arg("COUNT")
        .arg(1)
        .arg("STREAMS")
        .arg("kroon:jobs")
        .arg(">")
        .query(&mut con)
        .unwrap();
    let _: redis::Value = redis::cmd("XCLAIM")
        .arg("kroon:jobs")
        .arg("workers")
        .arg("ghost")
        .arg(0)
        .arg(&poison)
        .arg("RETRYCOUNT")
        .arg(9)
        .query(&mut con)
        .unwrap();
    // Jobs that are not: no JSON, no job field, and one that names its run but asks for
    // something no worker does.
    let junk = xadd(&mut con, "kroon:jobs", &[("job", b"\x00not json")]);
    let empty = xadd(&mut con, "kroon:jobs", &[("other", b"1")]);
    let shell = br#"{"version":1,"run":"shell","id":"s1","build":{"bench":1,"eval":"hand"},"task":{"kind":"shell","cmd":"rm -rf /"}}"#;
    let shell = xadd(&mut con, "kroon:jobs", &[("job", shell)]);

    let out = d.join("queue.bin");
    let (p, run, stdout) = producer_run(&redis.url(), &out);
    let results = format!("kroon:run:{run}:results");
    // Results that are not: bytes that are no record, an entry without one, and one that names
    // a job of the run but is no result (it counts as that job failing: the job runs again).
    let garbage = xadd(&mut con, &results, &[("result", b"{{{\xff"), ("data", b"")]);
    let bare = xadd(&mut con, &results, &[("data", b"x")]);
    let forged = format!(
        r#"{{"version":1,"run":"{run}","job":"2-4","worker":"forger","outcome":{{"status":"won"}}}}"#
    );
    let forged = xadd(&mut con, &results, &[("result", forged.as_bytes())]);

    let w = Worker::start_with(&redis.url(), "sturdy", &["--max-deliveries", "5"]);
    w.wait_for_all(&[
        format!("job entry {junk} is malformed"),
        format!("job entry {empty} has no job field"),
        format!("job entry {shell} is malformed"),
        format!("job entry {poison} delivered 10 times"),
    ]);
    // The same worker, still up, then plays the whole run.
    let said = finish_run(p, stdout);
    assert_eq!(std::fs::read(&out).unwrap(), expected);
    for (entry, what) in [
        (&garbage, "is malformed"),
        (&bare, "has no result field"),
        (&forged, "counted as a failure"),
    ] {
        assert!(
            said.lines()
                .any(|l| l.contains(&format!("result entry {entry} ")) && l.contains(what)),
            "{entry} {what}: {said}"
        );
    }

    // Each refused job has its error result: where its run's producer looks when it names a run
    // plainly, else on the errors stream, named by its entry.
    let errors = entries(&mut con, "kroon:errors");
    assert_eq!(errors.len(), 2, "{errors:?}");
    assert!(errors[0]
        .1
        .contains(&format!("job entry {junk} is malformed")));
    assert!(errors[1]
        .1
        .contains(&format!("job entry {empty} has no job field")));
    let shell_results = entries(&mut con, "kroon:run:shell:results");
    assert_eq!(shell_results.len(), 1, "{shell_results:?}");
    assert!(shell_results[0].1.contains(r#""job":"s1""#));
    assert!(shell_results[0].1.contains(r#""status":"failed""#));
    let poisoned = entries(&mut con, "kroon:run:poisoned:results");
    assert_eq!(poisoned.len(), 1, "{poisoned:?}");
    assert!(poisoned[0].1.contains("poison job"), "{poisoned:?}");
    // Nothing is left on the queue, pending or waiting, once the worker has acknowledged the job
    // whose result ended the run (it posts a result before it acknowledges the job, so the run
    // can end a moment before the last acknowledgement).
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        let pending: (u64, redis::Value, redis::Value, redis::Value) = redis::cmd("XPENDING")
            .arg("kroon:jobs")
            .arg("workers")
            .query(&mut con)
            .unwrap();
        let waiting: u64 = redis::cmd("XLEN")
            .arg("kroon:jobs")
            .query(&mut con)
            .unwrap();
        if pending.0 == 0 && waiting == 0 {
            break;
        }
        assert!(
            Instant::now() < deadline,
            "left on the queue: {} pending, {waiting} waiting",
            pending.0
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    assert!(
        !w.lines_so_far().iter().any(|l| l.contains("panicked")),
        "the worker panicked"
    );
    drop(w);
    drop(redis);
    let _ = std::fs::remove_dir_all(&d);
}

#[test]
fn a_password_in_the_url_is_never_logged() {
    let Some(bin) = server() else { return };
    let d = temp_dir("password");
    const SECRET: &str = "pw-s3cret-4711";
    let redis = Redis::start_with(bin, &d, &["--requirepass", SECRET]);
    let expected = local(&d.join("local.bin"));
    let url = format!("redis://:{SECRET}@127.0.0.1:{}/0", redis.port);
    // A wrong password: refused, and neither password shown.
    let wrong = format!("redis://:wrong-{SECRET}@127.0.0.1:{}/0", redis.port);
    let o = Command::new(env!("CARGO_BIN_EXE_kroon"))
        .args(["queue-status", "--queue", &wrong])
        .env("KROON_LOG", "trace")
        .output()
        .unwrap();
    assert!(!o.status.success(), "{}", text(&o));
    assert!(!text(&o).contains(SECRET), "{}", text(&o));
    assert!(text(&o).contains(":***@"), "{}", text(&o));

    let mut w = Worker::start(&url, "guarded");
    let out = d.join("queue.bin");
    let (p, _run, stdout) = producer_run(&url, &out);
    let said = finish_run(p, stdout);
    assert_eq!(std::fs::read(&out).unwrap(), expected);
    let o = Command::new(env!("CARGO_BIN_EXE_kroon"))
        .args(["queue-status", "--queue", &url])
        .env("KROON_LOG", "trace")
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", text(&o));
    let status = text(&o);
    let logged = w.kill().join("\n");
    assert!(!said.contains(SECRET), "producer: {said}");
    for (who, t) in [("status", &status), ("worker", &logged)] {
        assert!(!t.contains(SECRET), "{who}: {t}");
        assert!(t.contains(":***@"), "{who}: {t}");
    }
    drop(redis);
    let _ = std::fs::remove_dir_all(&d);
}

/// The match of these tests: Kroon against itself with another table size, few nodes a move.
const MATCH: [&str; 10] = [
    "--games",
    "6",
    "--nodes",
    "300",
    "--max-plies",
    "80",
    "--sprt",
    "elo0=0 elo1=20",
    "--event",
    "queued",
];

fn engine_words(name: &str, hash: u32) -> Vec<String> {
    vec![
        format!("name={name}"),
        format!("cmd={} hub", env!("CARGO_BIN_EXE_kroon")),
        "option.threads=1".to_owned(),
        format!("option.hash={hash}"),
    ]
}

fn engine_line(name: &str, hash: u32) -> String {
    format!(
        "name={name} cmd=\"{} hub\" option.threads=1 option.hash={hash}\n",
        env!("CARGO_BIN_EXE_kroon")
    )
}

/// A match's outputs: standard output, the PDN, the results file. Queued, the engines are given
/// by name alone: the workers' engines files say how to start them.
fn run_match(dir: &Path, queue: Option<&str>) -> Child {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_kroon"));
    cmd.arg("match");
    for (name, hash) in [("A", 1), ("B", 2)] {
        cmd.arg("--engine");
        match queue {
            Some(_) => cmd.arg(format!("name={name}")),
            None => cmd.args(engine_words(name, hash)),
        };
    }
    cmd.args(MATCH)
        .arg("--pdn")
        .arg(dir.join("games.pdn"))
        .arg("--results-json")
        .arg(dir.join("results.json"));
    if let Some(url) = queue {
        cmd.args(["--queue", url]);
    }
    cmd.env("KROON_LOG", "info")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap()
}

/// The PDN without the times of the moves (`0.012s`), which no two runs share.
fn without_times(pdn: &str) -> String {
    pdn.split_whitespace()
        .filter(|w| {
            let w = w.trim_end_matches('}');
            !(w.ends_with('s') && w[..w.len() - 1].parse::<f64>().is_ok())
        })
        .collect::<Vec<_>>()
        .join(" ")
}

/// Standard output and standard error of a command that succeeded.
fn finish_apart(p: Child) -> (String, String) {
    let o = p.wait_with_output().unwrap();
    assert!(o.status.success(), "{}", text(&o));
    (
        String::from_utf8_lossy(&o.stdout).into_owned(),
        String::from_utf8_lossy(&o.stderr).into_owned(),
    )
}

/// The table at the end of a match's output.
fn table(out: &str) -> String {
    let from = out.find("games played").expect("the final table");
    out[from..].to_owned()
}

#[test]
fn a_match_on_two_workers_is_the_local_match() {
    let Some(bin) = server() else { return };
    let d = temp_dir("match");
    let redis = Redis::start(bin, &d);
    let (here, there) = (d.join("local"), d.join("queue"));
    std::fs::create_dir_all(&here).unwrap();
    std::fs::create_dir_all(&there).unwrap();
    let (local, _) = finish_apart(run_match(&here, None));

    let full = d.join("engines.txt");
    std::fs::write(
        &full,
        format!("# both\n{}{}", engine_line("A", 1), engine_line("B", 2)),
    )
    .unwrap();
    let partial = d.join("partial.txt");
    std::fs::write(&partial, engine_line("A", 1)).unwrap();
    let producer = run_match(&there, Some(&redis.url()));
    // A worker that lacks engine B answers its job with an error; the job goes out again.
    let lacking = Worker::start_with(
        &redis.url(),
        "lacking",
        &["--engines", partial.to_str().unwrap(), "--max-jobs", "1"],
    );
    let line = lacking.wait_for("refused");
    assert!(line.contains("no engine called \"B\""), "{line}");
    let workers: Vec<Worker> = (0..2)
        .map(|i| {
            Worker::start_with(
                &redis.url(),
                &format!("m{i}"),
                &["--engines", full.to_str().unwrap()],
            )
        })
        .collect();
    let (queued, log) = finish_apart(producer);
    assert!(log.contains("failed on lacking/0"), "{log}");
    assert_eq!(table(&queued), table(&local));
    let read = |dir: &Path, f: &str| std::fs::read_to_string(dir.join(f)).unwrap();
    assert_eq!(read(&there, "results.json"), read(&here, "results.json"));
    assert_eq!(
        without_times(&read(&there, "games.pdn")),
        without_times(&read(&here, "games.pdn"))
    );
    assert_eq!(read(&here, "games.pdn").matches("[Event").count(), 6);
    drop(workers);
    drop(lacking);
    drop(redis);
    let _ = std::fs::remove_dir_all(&d);
}

/// Every file of a directory of tables: name and bytes.
fn table_files(dir: &Path) -> Vec<(String, Vec<u8>)> {
    let mut files: Vec<(String, Vec<u8>)> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "kdb"))
        .map(|p| {
            (
                p.file_name().unwrap().to_string_lossy().into_owned(),
                std::fs::read(&p).unwrap(),
            )
        })
        .collect();
    files.sort();
    files
}

fn egdb_build(slices: &str, dir: &Path, queue: Option<&str>, shared: bool) -> Child {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_kroon"));
    cmd.args([
        "egdb",
        "build",
        "--slices",
        slices,
        "--threads",
        "1",
        "--dir",
    ])
    .arg(dir);
    if let Some(url) = queue {
        cmd.args(["--queue", url]);
    }
    if shared {
        cmd.arg("--shared");
    }
    cmd.stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap()
}

/// Builds `slices` and the `count` slices in all they need here, then on the queue with two
/// workers: the same files, byte for byte. `shared`: the slices travel through the producer's
/// directory, which the workers share, and only their names and checksums through the queue.
fn a_table_build_on_two_workers(name: &str, slices: &str, count: usize, shared: bool) {
    let Some(bin) = server() else { return };
    let d = temp_dir(name);
    let redis = Redis::start(bin, &d);
    let (here, there) = (d.join("local"), d.join("queue"));
    finish(egdb_build(slices, &here, None, false));
    let expected = table_files(&here);
    let names: Vec<&String> = expected.iter().map(|f| &f.0).collect();
    assert_eq!(expected.len(), count, "{names:?}");

    // What a job run twice leaves in incoming/ (another worker's copy of a pair, or a file cut
    // short): the producer removes it at the end, and leaves other files alone.
    let incoming = there.join("incoming");
    let left = [format!("{slices}.gone.kdb"), format!("{slices}.gone.part")];
    if shared {
        std::fs::create_dir_all(&incoming).unwrap();
        for f in left.iter().chain([&"notes.txt".to_owned()]) {
            std::fs::write(incoming.join(f), b"left over").unwrap();
        }
    }
    let producer = egdb_build(slices, &there, Some(&redis.url()), shared);
    let there_text = there.to_str().unwrap();
    let shared_dir: &[&str] = if shared {
        // A worker without the shared directory refuses the job; it goes out again.
        let lacking = Worker::start_with(&redis.url(), "lacking", &["--max-jobs", "1"]);
        let line = lacking.wait_for("refused");
        assert!(line.contains("this worker has none"), "{line}");
        &["--shared-dir", there_text]
    } else {
        &[]
    };
    let workers: Vec<Worker> = (0..2)
        .map(|i| Worker::start_with(&redis.url(), &format!("t{i}"), shared_dir))
        .collect();
    let said = finish(producer);
    assert!(
        said.contains(&format!("built {} slices on the queue", expected.len())),
        "{said}"
    );
    if shared {
        let mut now: Vec<String> = std::fs::read_dir(&incoming)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        now.sort();
        assert_eq!(now, ["notes.txt"], "incoming/ after the build");
    }
    let built = table_files(&there);
    assert_eq!(built.iter().map(|f| &f.0).collect::<Vec<_>>(), names);
    assert!(
        built == expected,
        "the queued files differ from the local ones"
    );
    if shared {
        // Every slice came through the directory: each result brought a line for each file of
        // its pair (a name, a length and a checksum), never a file. (A job run twice, taken
        // over from a worker that seemed silent, names its slices again.)
        let mut con = redis::Client::open(redis.url())
            .unwrap()
            .get_connection()
            .unwrap();
        let runs: Vec<String> = redis::cmd("KEYS")
            .arg("kroon:run:egdb-*:results")
            .query(&mut con)
            .unwrap();
        assert_eq!(runs.len(), 1, "{runs:?}");
        let results: redis::streams::StreamRangeReply = redis::cmd("XRANGE")
            .arg(&runs[0])
            .arg("-")
            .arg("+")
            .query(&mut con)
            .unwrap();
        let mut came = std::collections::BTreeSet::new();
        for e in &results.ids {
            let result: String = e.get("result").unwrap_or_default();
            if result.contains(r#""status":"failed""#) {
                continue;
            }
            let data: String = e.get("data").unwrap_or_default();
            assert!(data.len() < 300, "{}: {data}", e.id);
            for line in data.lines() {
                assert!(line.contains(".kdb "), "{}: {line}", e.id);
                came.insert(format!(
                    "{}.kdb",
                    line.split('.').next().unwrap_or_default()
                ));
            }
        }
        assert_eq!(came.iter().collect::<Vec<_>>(), names);
    }
    // Again: every slice is found, none is issued.
    let said = finish(egdb_build(slices, &there, Some(&redis.url()), shared));
    assert!(said.contains("built 0 slices on the queue"), "{said}");
    drop(workers);
    drop(redis);
    let _ = std::fs::remove_dir_all(&d);
}

/// 2M-2M and the 24 slices it converts into (all 16 of 2M-1M's among them): about 42 s of CPU
/// and as much wall time on a 2-core machine shared with other work, 10 to 12 s of it the local
/// build.
#[test]
fn a_four_piece_table_build_on_two_workers_writes_the_local_files() {
    a_table_build_on_two_workers("egdb4", "2M-2M", 25, false);
}

#[test]
fn a_table_build_through_a_shared_directory_writes_the_local_files() {
    // 2M-1M and the 15 slices of up to 3 pieces it converts into.
    a_table_build_on_two_workers("egdb-shared", "2M-1M", 16, true);
}

/// A throwaway certificate for 127.0.0.1 and its key in `dir` (`NAME.pem`, `NAME.key`), signed
/// by the authority `by` (its certificate and key) or by itself; `None`, after a skip line,
/// where `openssl` cannot make one.
fn certificate(
    dir: &Path,
    name: &str,
    by: Option<&(PathBuf, PathBuf)>,
) -> Option<(PathBuf, PathBuf)> {
    let (cert, key) = (
        dir.join(format!("{name}.pem")),
        dir.join(format!("{name}.key")),
    );
    let mut cmd = Command::new("openssl");
    cmd.args([
        "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1",
    ])
    .args([
        "-subj",
        "/CN=127.0.0.1",
        "-addext",
        "subjectAltName=IP:127.0.0.1",
    ])
    .arg("-keyout")
    .arg(&key)
    .arg("-out")
    .arg(&cert);
    if let Some((ca, ca_key)) = by {
        cmd.arg("-CA").arg(ca).arg("-CAkey").arg(ca_key);
    }
    match cmd.output() {
        Ok(o) if o.status.success() => Some((cert, key)),
        other => {
            let required = std::env::var_os("KROON_REQUIRE_REDIS").is_some_and(|v| v != "0");
            assert!(!required, "openssl cannot make a certificate: {other:?}");
            let _ = writeln!(std::io::stderr(), "SKIPPED TLS test: no openssl");
            None
        }
    }
}

/// A free loopback port, as text.
fn free_port() -> String {
    TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
        .to_string()
}

/// A server that also speaks TLS on `tls_port`, with the certificate and key `cert`, trusting
/// the authority `ca` for its clients' certificates and asking for one when `clients` is set.
fn start_tls(
    bin: PathBuf,
    dir: &Path,
    tls_port: &str,
    cert: &(PathBuf, PathBuf),
    ca: &Path,
    clients: bool,
    args: &[&str],
) -> Redis {
    let mut all = vec![
        "--tls-port",
        tls_port,
        "--tls-cert-file",
        cert.0.to_str().unwrap(),
        "--tls-key-file",
        cert.1.to_str().unwrap(),
        "--tls-ca-cert-file",
        ca.to_str().unwrap(),
        "--tls-auth-clients",
        if clients { "yes" } else { "no" },
    ];
    all.extend_from_slice(args);
    Redis::start_with(bin, dir, &all)
}

/// Self-play through `url` (with `env` set): the file must be the one of the local run.
fn selfplay_through(url: &str, env: &[(&str, &Path)], out: &Path, expected: &[u8]) -> String {
    let mut p = Command::new(env!("CARGO_BIN_EXE_kroon"));
    p.args(["selfplay", "--out", out.to_str().unwrap(), "--queue", url])
        .args(["--batch", "2"])
        .args(SETTINGS)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    for (k, v) in env {
        p.env(k, v);
    }
    let said = finish(p.spawn().unwrap());
    assert_eq!(std::fs::read(out).unwrap(), expected);
    said
}

#[test]
fn self_play_over_tls_writes_the_local_file() {
    let Some(bin) = server() else { return };
    let d = temp_dir("tls");
    // A throwaway certificate for 127.0.0.1, its own authority.
    let Some(cert) = certificate(&d, "cert", None) else {
        return;
    };
    let tls_port = free_port();
    let redis = start_tls(
        bin,
        &d,
        &tls_port,
        &cert,
        &cert.0,
        false,
        &["--requirepass", "tls-pw-0815"],
    );
    let expected = local(&d.join("local.bin"));
    let url = format!("rediss://:tls-pw-0815@127.0.0.1:{tls_port}/0");
    // The certificate is checked: the throwaway authority is the only one trusted here.
    let trust = [("SSL_CERT_FILE", cert.0.as_path())];
    let w = Worker::start_env(&url, "tls", &[], &trust);
    let said = selfplay_through(&url, &trust, &d.join("queue.bin"), &expected);
    assert!(!said.contains("tls-pw-0815"), "{said}");
    drop(w);
    drop(redis);
    let _ = std::fs::remove_dir_all(&d);
}

/// `kroon ARGS`, which must end (with failure) within a minute: a refused certificate is said,
/// not retried for ever as if the server were down. What it said.
fn refused(args: &[&str]) -> String {
    let child = Command::new(env!("CARGO_BIN_EXE_kroon"))
        .args(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let pid = child.id().to_string();
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(child.wait_with_output());
    });
    let Ok(o) = rx.recv_timeout(Duration::from_secs(60)) else {
        let _ = Command::new("kill").args(["-KILL", &pid]).status();
        panic!("kroon {args:?} still retrying after a minute");
    };
    let o = o.unwrap();
    assert!(!o.status.success(), "{}", text(&o));
    text(&o)
}

#[test]
fn a_server_that_checks_client_certificates_takes_only_its_own() {
    let Some(bin) = server() else { return };
    let d = temp_dir("mtls");
    // An authority of the test's own signs the server's certificate and the client's; another
    // authority signs a stranger's.
    let mut made: Vec<(PathBuf, PathBuf)> = Vec::new();
    for (name, by) in [
        ("ca", None),
        ("server", Some(0)),
        ("client", Some(0)),
        ("other-ca", None),
        ("stranger", Some(3)),
    ] {
        let Some(c) = certificate(&d, name, by.map(|i| &made[i])) else {
            return;
        };
        made.push(c);
    }
    let [ca, server_cert, client, other_ca, stranger] = <[_; 5]>::try_from(made).unwrap();
    let tls_port = free_port();
    let redis = start_tls(bin, &d, &tls_port, &server_cert, &ca.0, true, &[]);
    let expected = local(&d.join("local.bin"));
    let base = format!(
        "rediss://127.0.0.1:{tls_port}/0?ssl_ca_certs={}",
        ca.0.display()
    );
    let with = |(cert, key): &(PathBuf, PathBuf)| {
        format!(
            "{base}&ssl_certfile={}&ssl_keyfile={}",
            cert.display(),
            key.display()
        )
    };
    let url = with(&client);

    // Refused at once, not retried: no client certificate, one the server's authority did not
    // sign, and a server whose certificate this side cannot check (its authority not given).
    // The server's refusal is an alert; this side's, a failed verification.
    let other_authority = url.replace(
        &format!("ssl_ca_certs={}", ca.0.display()),
        &format!("ssl_ca_certs={}", other_ca.0.display()),
    );
    for (what, bad, reason) in [
        ("no client certificate", &base, "alert certificate required"),
        (
            "a stranger's certificate",
            &with(&stranger),
            "alert unknown ca",
        ),
        (
            "another authority",
            &other_authority,
            "certificate verify failed",
        ),
    ] {
        let said = refused(&["queue-status", "--queue", bad]);
        assert!(said.contains(reason), "{what}: {said}");
    }
    let said = refused(&[
        "queue-status",
        "--queue",
        &format!("{base}&ssl_certfile={}", client.0.display()),
    ]);
    assert!(said.contains("go together"), "{said}");

    // With the client's certificate: a worker and a producer, and the local run's file.
    let w = Worker::start_env(&url, "mtls", &[], &[]);
    selfplay_through(&url, &[], &d.join("queue.bin"), &expected);
    assert_all_done(&url, 4);
    drop(w);
    drop(redis);
    let _ = std::fs::remove_dir_all(&d);
}

#[test]
fn a_producer_told_to_stop_while_the_server_is_away_exits() {
    // A producer holds nothing the server must still hear of: stopped while the server cannot
    // be reached, each kind exits at the first SIGTERM rather than retrying for ever. No server
    // runs at all on the port, so the producers wait from their first command.
    let d = temp_dir("producer-away");
    let url = format!("redis://127.0.0.1:{}/0", free_port());
    let out = d.join("games.bin");
    let tables = d.join("tables");
    let producers: [Vec<&str>; 3] = [
        vec!["selfplay", "--out", out.to_str().unwrap(), "--games", "4"],
        vec![
            "match", "--engine", "name=A", "--engine", "name=B", "--games", "2", "--nodes", "300",
        ],
        vec![
            "egdb",
            "build",
            "--slices",
            "1M-1M",
            "--dir",
            tables.to_str().unwrap(),
        ],
    ];
    for args in producers {
        let mut producer = Worker::spawn(&[&args[..], &["--queue", &url]].concat(), &[]);
        producer.wait_for("with back-off");
        let _ = Command::new("kill")
            .args(["-TERM", &producer.child.id().to_string()])
            .status();
        let asked = Instant::now();
        while producer.child.try_wait().unwrap().is_none() {
            assert!(
                asked.elapsed() < Duration::from_secs(30),
                "{args:?}: the producer still runs 30 s after SIGTERM: {:?}",
                producer.lines_so_far()
            );
            std::thread::sleep(Duration::from_millis(50));
        }
        let lines = producer.kill();
        assert!(
            lines
                .iter()
                .any(|l| l.contains("gave up waiting for the server")),
            "{args:?}: {lines:?}"
        );
    }
    let _ = std::fs::remove_dir_all(&d);
}

#[test]
fn a_worker_told_to_finish_while_the_server_is_away_exits() {
    // Between jobs a worker holds nothing, so the first SIGTERM ends it even while it waits for
    // a server that has gone away, rather than retrying until a second signal.
    let Some(bin) = server() else { return };
    let d = temp_dir("finish-away");
    let mut redis = Redis::start(bin, &d);
    let mut worker = Worker::start(&redis.url(), "away");
    worker.wait_for("threads, bench");
    let mut server = redis.child.take().unwrap();
    server.kill().unwrap();
    server.wait().unwrap();
    // "connection lost ...; reconnecting" or "cannot connect ...; retrying", by where it was.
    worker.wait_for("with back-off");
    let _ = Command::new("kill")
        .args(["-TERM", &worker.child.id().to_string()])
        .status();
    let asked = Instant::now();
    let status = loop {
        if let Some(status) = worker.child.try_wait().unwrap() {
            break status;
        }
        assert!(
            asked.elapsed() < Duration::from_secs(30),
            "the worker still runs 30 s after SIGTERM: {:?}",
            worker.lines_so_far()
        );
        std::thread::sleep(Duration::from_millis(50));
    };
    assert!(status.success(), "{status}: {:?}", worker.lines_so_far());
    drop(redis);
    let _ = std::fs::remove_dir_all(&d);
}
