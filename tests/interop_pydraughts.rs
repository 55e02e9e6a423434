//! Legal-move sets of `kroon moves --batch` against pydraughts (an independent implementation),
//! over positions from seeded random games. `KROON_DIFF_POSITIONS` sets the count (20,000 in
//! scripts/diff-pydraughts.sh). Needs python3 with pydraughts (`.ci/run` installs it).

use crate::support;
use support::pydraughts;

use std::process::Command;

#[test]
fn legal_moves_match_pydraughts() {
    if !pydraughts::available("legal_moves_match_pydraughts") {
        return;
    }
    let positions = std::env::var("KROON_DIFF_POSITIONS").unwrap_or_else(|_| "3000".into());
    let script = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../tests/interop/moves_vs_pydraughts.py"
    );
    let out = Command::new("python3")
        .args([
            script,
            env!("CARGO_BIN_EXE_kroon"),
            "--positions",
            &positions,
        ])
        .output()
        .expect("python3 must be installed (with pydraughts)");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.success(),
        "differential test failed:\n{stdout}\n{stderr}"
    );
    assert!(stdout.contains(" 0 differ"), "{stdout}");
}
