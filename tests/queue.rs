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
use std::time::Duration;

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
    child: Option<Child>,
}

impl Redis {
    fn start(bin: PathBuf, dir: &Path) -> Redis {
        let port = TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        let mut r = Redis {
            bin,
            dir: dir.to_owned(),
            port,
            child: None,
        };
        r.launch();
        r
    }

    fn launch(&mut self) {
        let child = Command::new(&self.bin)
            .args(["--bind", "127.0.0.1", "--port", &self.port.to_string()])
            .args(["--appendonly", "yes", "--save", ""])
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
                        if buf[..n].starts_with(b"+PONG") {
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
        let mut child = Command::new(env!("CARGO_BIN_EXE_kroon"))
            .args([
                "worker",
                "--queue",
                url,
                "--name",
                name,
                "--visibility",
                "1",
            ])
            .env("KROON_LOG", "info")
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
    let o = Command::new(env!("CARGO_BIN_EXE_kroon"))
        .args(["queue-status", "--queue", &redis.url()])
        .output()
        .unwrap();
    assert!(
        text(&o).contains("4 jobs, 0 pending, 0 running, 4 done, 0 failed"),
        "{}",
        text(&o)
    );
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
