//! Whether the tests that need Python with pydraughts (the interop tests and the scripted fake
//! engines) can run. Without it they are skipped, and say so on the terminal, past the test
//! harness's capture; with `KROON_REQUIRE_PYDRAUGHTS=1` (as `.ci/run` sets) they fail instead,
//! so that CI never skips them silently.

use std::io::Write as _;
use std::process::{Command, Stdio};
use std::sync::OnceLock;

/// The version the tests were written against (`pip install pydraughts==0.6.7`).
const VERSION: &str = "0.6.7";

fn found() -> bool {
    static FOUND: OnceLock<bool> = OnceLock::new();
    *FOUND.get_or_init(|| {
        Command::new("python3")
            .args(["-c", "import draughts"])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
            .is_ok_and(|s| s.success())
    })
}

/// True when `test` can run; false (after a notice) when it must be skipped.
///
/// # Panics
/// When pydraughts is missing and `KROON_REQUIRE_PYDRAUGHTS` is set.
pub fn available(test: &str) -> bool {
    if found() {
        return true;
    }
    let required = std::env::var_os("KROON_REQUIRE_PYDRAUGHTS").is_some_and(|v| v != "0");
    assert!(
        !required,
        "{test}: python3 with pydraughts is required (KROON_REQUIRE_PYDRAUGHTS is set) but \
         `python3 -c 'import draughts'` fails: pip install pydraughts=={VERSION}"
    );
    // Straight to the terminal: `eprintln!` inside a passing test would be swallowed.
    let _ = writeln!(
        std::io::stderr(),
        "SKIPPED {test}: needs python3 with pydraughts (pip install pydraughts=={VERSION}); \
         set KROON_REQUIRE_PYDRAUGHTS=1 to make this a failure"
    );
    false
}
