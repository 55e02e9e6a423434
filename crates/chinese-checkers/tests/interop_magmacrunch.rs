//! Legal-move sets against magmacrunch-chinese-checkers (an independent Python implementation),
//! over positions of seeded random games of 2, 3, 4 and 6 players, and perft from the start
//! (depth 4 for 2, 4 and 6 players, 3 for 3). The script
//! `tests/interop/chinese_vs_magmacrunch.py` explains how its hop rule is brought to the
//! standard one. Needs python3 with `magmacrunch-chinese-checkers` (`.ci/run` installs it); the
//! test skips itself without it unless `KROON_REQUIRE_MAGMACRUNCH` is set.

use std::io::Write;
use std::process::{Command, Stdio};

use kroon_chinese_checkers::arena::Rng;
use kroon_chinese_checkers::{Camp, Position};

/// Positions from games where each move is, half the time, one that gains the most ground and
/// otherwise any legal move: the pieces meet in the middle, so chains over own and other pieces
/// are common.
fn positions(players: usize, games: usize, plies: usize, rng: &mut Rng) -> Vec<Position> {
    let mut out = Vec::new();
    for _ in 0..games {
        let mut pos = Position::start(players).unwrap();
        for _ in 0..plies {
            if pos.is_over() {
                break;
            }
            let moves = pos.legal_moves();
            if moves.is_empty() {
                pos = pos.pass();
                continue;
            }
            out.push(pos);
            let me: Camp = pos.to_move();
            let gain = |m: &kroon_chinese_checkers::Move| me.forward(m.to) - me.forward(m.from);
            let mv = if rng.below(2) == 0 {
                let best = moves.iter().map(gain).max().unwrap();
                let top: Vec<_> = moves.iter().filter(|m| gain(m) == best).collect();
                *top[rng.below(top.len())]
            } else {
                moves[rng.below(moves.len())]
            };
            pos = pos.play(mv);
        }
    }
    out
}

#[test]
fn legal_moves_match_magmacrunch() {
    let probe = Command::new("python3")
        .args(["-c", "import chinese_checkers.rules"])
        .output();
    if !probe.is_ok_and(|o| o.status.success()) {
        assert!(
            std::env::var_os("KROON_REQUIRE_MAGMACRUNCH").is_none(),
            "python3 with magmacrunch-chinese-checkers is required"
        );
        eprintln!("skipped: python3 with magmacrunch-chinese-checkers not found");
        return;
    }
    let mut rng = Rng(15);
    let mut input = String::new();
    let mut count = 0;
    for players in [2, 3, 4, 6] {
        for pos in positions(players, 6, 120, &mut rng) {
            let moves: Vec<String> = pos.legal_moves().iter().map(|m| m.to_string()).collect();
            input.push_str(&format!("{pos}\t{}\n", moves.join(" ")));
            count += 1;
        }
    }
    // Perft from the start, the turn order taken from the position text.
    for (players, depth) in [(2, 4), (3, 3), (4, 4), (6, 4)] {
        let pos = Position::start(players).unwrap();
        let n = kroon_chinese_checkers::perft(&pos, depth);
        input.push_str(&format!("perft\t{pos}\t{depth}\t{n}\n"));
        count += 1;
    }
    let script = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../tests/interop/chinese_vs_magmacrunch.py"
    );
    let mut child = Command::new("python3")
        .arg(script)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("python3 runs");
    child
        .stdin
        .take()
        .unwrap()
        .write_all(input.as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "differences:\n{stdout}\n{stderr}");
    assert!(
        stdout.contains(&format!("{count} positions, 0 differ")),
        "{stdout}\n{stderr}"
    );
}
