//! What the end-to-end tests share: running the binary, scratch directories that remove
//! themselves, reading `key value` lines from its output, and the one skip policy ([`skip`]).

pub mod material;
pub mod pydraughts;
pub mod server;
pub mod skip;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::atomic::{AtomicUsize, Ordering};

/// The binary under test, built by Cargo in the same profile as the tests.
pub const KROON: &str = env!("CARGO_BIN_EXE_kroon");

/// Runs `kroon ARGS` to the end, standard input closed, and returns what it wrote.
pub fn kroon(args: &[&str]) -> Output {
    Command::new(KROON).args(args).output().expect("run kroon")
}

/// Standard output as text.
pub fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

/// Standard output then standard error, as text.
pub fn text(o: &Output) -> String {
    stdout(o) + &String::from_utf8_lossy(&o.stderr)
}

/// The value of the first line `KEY VALUE` of `out`: the whole rest of the line, so that
/// `value(out, "nodes") == Some("81")` fails on `nodes 810`, where `contains("nodes 81")` would not.
pub fn value<'a>(out: &'a str, key: &str) -> Option<&'a str> {
    out.lines()
        .find_map(|line| line.strip_prefix(key)?.strip_prefix(' '))
        .map(str::trim_end)
}

/// A fresh directory under Cargo's scratch directory for tests, removed when dropped, except
/// when the test is failing, so that what it left can be read.
pub struct TempDir(PathBuf);

impl TempDir {
    /// `name` says which test owns it; a counter keeps two directories of one test apart.
    pub fn new(name: &str) -> TempDir {
        static NEXT: AtomicUsize = AtomicUsize::new(0);
        let n = NEXT.fetch_add(1, Ordering::Relaxed);
        let dir = Path::new(env!("CARGO_TARGET_TMPDIR"))
            .join(format!("{name}-{}-{n}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("create the scratch directory");
        TempDir(dir)
    }

    /// A path inside the directory.
    pub fn join(&self, name: &str) -> PathBuf {
        self.0.join(name)
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        if !std::thread::panicking() {
            let _ = std::fs::remove_dir_all(&self.0);
        }
    }
}
