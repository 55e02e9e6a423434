//! Legal-move sets against pydraughts (an independent implementation) in every variant it shares
//! with Kroon: normal, frisian, losing (antidraughts), bt (breakthrough), russian, brazilian and
//! english; pydraughts has no killer draughts. Two parts, run side by side:
//!
//! - `kroon moves --batch` on positions from seeded random games and random placements with kings
//!   (tests/interop/variants_vs_pydraughts.py; `KROON_VARIANT_GAMES` and `KROON_VARIANT_PLACEMENTS`
//!   set the counts per variant, scripts/diff-variants.sh runs large ones);
//! - games of every variant replayed here with `Game`, against pydraughts' legal moves inside the
//!   game (`KROON_VARIANT_HISTORIES` positions per variant, seed `KROON_VARIANT_SEED`). This checks
//!   what a FEN cannot: the position a move leaves (a man crowned during a Russian capture is a
//!   king where it stops) and the Frisian limit on quiet king moves, which pydraughts applies from
//!   the game's history and Kroon from the king runs kept in `Position`.
//!
//! Needs python3 with pydraughts (`.ci/run` installs it).

use crate::support;
use support::pydraughts;

use kroon_rules::movegen::generate_for;
use kroon_rules::variant::Frisian;
use kroon_rules::{notation, parse_fen, parse_hub_move, Game, MoveList, Variant};
use std::collections::BTreeMap;
use std::process::{Command, Output};

/// The variants both know, by Kroon's names (pydraughts: standard, antidraughts, breakthrough).
const VARIANTS: [&str; 7] = [
    "normal",
    "frisian",
    "losing",
    "bt",
    "russian",
    "brazilian",
    "english",
];

const SCRIPT: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../../tests/interop/variants_vs_pydraughts.py"
);

fn env_or(name: &str, default: &str) -> String {
    std::env::var(name).unwrap_or_else(|_| default.into())
}

fn run(args: &[&str]) -> Output {
    Command::new("python3")
        .arg(SCRIPT)
        .args(args)
        .output()
        .expect("python3 must be installed (with pydraughts)")
}

#[test]
fn legal_moves_match_pydraughts_in_every_variant() {
    if !pydraughts::available("legal_moves_match_pydraughts_in_every_variant") {
        return;
    }
    let histories = env_or("KROON_VARIANT_HISTORIES", "30");
    let least = histories.parse::<usize>().unwrap().min(20);
    let seed = env_or("KROON_VARIANT_SEED", "7");
    let records = std::thread::spawn(move || run(&["--histories", &histories, "--seed", &seed]));

    let games = env_or("KROON_VARIANT_GAMES", "120");
    let placements = env_or("KROON_VARIANT_PLACEMENTS", "120");
    let out = run(&[
        env!("CARGO_BIN_EXE_kroon"),
        "--games",
        &games,
        "--placements",
        &placements,
    ]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.success(),
        "differential test failed:\n{stdout}\n{stderr}"
    );
    assert!(stdout.contains("all variants: 0 differ"), "{stdout}");
    for v in VARIANTS {
        assert!(
            stdout.lines().any(|l| l.starts_with(&format!("{v}: "))),
            "{v} missing:\n{stdout}"
        );
    }

    let out = records.join().expect("history thread");
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "pydraughts histories failed:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let (checked, limited) = replay(&text);
    for v in VARIANTS {
        assert!(
            checked.get(v).copied().unwrap_or(0) >= least,
            "{v}: {checked:?}"
        );
    }
    assert!(
        limited > 0,
        "no position where the Frisian king-move limit applies"
    );
}

/// Replays each `variant|start|moves|legal` record with `Game` and compares the legal moves.
/// Returns the positions checked per variant, and the Frisian ones where the king-move limit
/// removed moves.
fn replay(text: &str) -> (BTreeMap<String, usize>, usize) {
    let (mut checked, mut limited) = (BTreeMap::new(), 0);
    let mut all = MoveList::new();
    for line in text.lines().filter(|l| !l.trim().is_empty()) {
        let parts: Vec<&str> = line.split('|').collect();
        let [name, start, moves, legal] = parts[..] else {
            panic!("bad record `{line}`");
        };
        let variant: Variant = name.parse().unwrap();
        let mut game = Game::new(parse_fen(start, variant).unwrap());
        for t in moves.split_whitespace() {
            let mv = parse_hub_move(game.position(), t)
                .unwrap_or_else(|e| panic!("{variant}: {e} after {moves:?} from {start}"));
            game.play(&mv).unwrap();
        }
        let pos = *game.position();
        let mut got: Vec<String> = pos
            .legal_moves()
            .iter()
            .map(|m| notation::hub(m, variant))
            .collect();
        got.sort();
        let mut want: Vec<&str> = legal.split_whitespace().collect();
        want.sort_unstable();
        assert_eq!(got, want, "{variant}, from {start} after {moves}");
        if variant == Variant::Frisian {
            generate_for::<Frisian, false>(&pos, &mut all);
            limited += usize::from(all.len() != got.len());
        }
        *checked.entry(name.to_owned()).or_default() += 1;
    }
    (checked, limited)
}
