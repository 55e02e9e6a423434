//! Whether the tests that need Python with pydraughts (the interop tests and the scripted fake
//! engines) can run, under the skip policy of [`super::skip`] with `KROON_REQUIRE_PYDRAUGHTS`.

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

/// True when `test` can run; false (after a `SKIPPED` line) when it must be skipped.
///
/// # Panics
/// When pydraughts is missing and `KROON_REQUIRE_PYDRAUGHTS` is set.
pub fn available(test: &str) -> bool {
    super::skip::unless_missing(
        found(),
        test,
        &format!("python3 with pydraughts (pip install pydraughts=={VERSION})"),
        "KROON_REQUIRE_PYDRAUGHTS",
    )
}
