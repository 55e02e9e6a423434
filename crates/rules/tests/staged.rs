//! Staged generation (captures, then quiet moves, promotions, "has a quiet move") gives exactly
//! what `movegen::generate` gives, in the same order, in every variant: over the first plies and
//! along long seeded games that reach kings, king runs and endings.

use kroon_rules::movegen::{
    generate, generate_captures, generate_promotions, generate_quiets, has_quiet_move,
};
use kroon_rules::{MoveList, Position, Variant};

fn check(pos: &Position) {
    let mut all = MoveList::new();
    generate(pos, &mut all);
    let mut staged = MoveList::new();
    generate_captures(pos, &mut staged);
    if staged.is_empty() {
        assert_eq!(has_quiet_move(pos), !all.is_empty(), "{pos:?}");
        let mut promotions = MoveList::new();
        generate_promotions(pos, &mut promotions);
        let crowning: Vec<_> = all.iter().filter(|m| m.promotes).copied().collect();
        assert_eq!(promotions.as_slice(), crowning.as_slice(), "{pos:?}");
        generate_quiets(pos, &mut staged);
    }
    assert_eq!(staged.as_slice(), all.as_slice(), "{pos:?}");
}

fn tree(pos: &Position, depth: u32) {
    check(pos);
    if depth > 0 {
        for mv in &pos.legal_moves() {
            tree(&pos.play(mv), depth - 1);
        }
    }
}

#[test]
fn staged_generation_matches_generate_near_the_start() {
    for v in Variant::ALL {
        tree(&Position::initial(v), 3);
    }
}

#[test]
fn staged_generation_matches_generate_along_long_games() {
    for v in Variant::ALL {
        for seed in 1..=60u64 {
            let mut x = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
            let mut pos = Position::initial(v);
            for _ in 0..200 {
                check(&pos);
                let moves = pos.legal_moves();
                if moves.is_empty() {
                    break;
                }
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                pos = pos.play(&moves[(x % moves.len() as u64) as usize]);
            }
        }
    }
}
