//! The one skip policy of the tests that need something outside Rust (Python with pydraughts, a
//! browser). Without it such a test returns early, passing, after a `SKIPPED` line written
//! straight to the process's standard error: the test harness captures only `print!` and
//! `eprint!`, so the line shows in `cargo test`'s output whether the test passes or not (a line
//! through `eprintln!` would be swallowed). With the test's `KROON_REQUIRE_*` variable set to
//! anything but `0` (as `.ci/run` sets them all), the missing tool fails the test instead, so
//! that CI never skips silently.

use std::io::Write as _;

/// True when `test` can run (`found`); otherwise false after the `SKIPPED` line, or a failure
/// when `require` is set. `needs` says what is missing and how to install it.
///
/// # Panics
/// When the tool is missing and the variable `require` is set.
pub fn unless_missing(found: bool, test: &str, needs: &str, require: &str) -> bool {
    if found {
        return true;
    }
    let required = std::env::var_os(require).is_some_and(|v| v != "0");
    assert!(!required, "{test}: needs {needs}, and {require} is set");
    let _ = writeln!(
        std::io::stderr(),
        "SKIPPED {test}: needs {needs}; set {require}=1 to make this a failure"
    );
    false
}
