//! Perft: the number of leaf nodes of the legal move tree, the move generator's proof.
//! Counts at depth 1 are bulk-counted (quiet moves are counted, not listed).

use crate::movegen::{self, Duplicates};
use crate::movelist::MoveList;
use crate::mv::Move;
use crate::position::Position;
use crate::variant::Rules;
use crate::with_rules;

/// The number of leaves `depth` plies below `pos`. Published tables drop duplicate captures
/// (`Duplicates::Drop`); some also give the count with every capture path kept.
///
/// Like the published tables, perft leaves out the Frisian limit on quiet king moves (it counts
/// the moves of `movegen::generate_for`, ignoring the king runs of `pos`); from the initial
/// position the counts match the tables to depth 11. The legal moves (`Position::legal_moves`)
/// do apply it.
#[must_use]
pub fn perft(pos: &Position, depth: u32, dups: Duplicates) -> u64 {
    let pos = &pos.without_king_runs();
    let mut lists: Vec<MoveList> = (0..=depth).map(|_| MoveList::new()).collect();
    match dups {
        Duplicates::Drop => {
            with_rules!(pos.variant(), R => count::<R, false>(pos, depth, &mut lists))
        }
        Duplicates::Keep => {
            with_rules!(pos.variant(), R => count::<R, true>(pos, depth, &mut lists))
        }
    }
}

/// Perft split by the first move: each move with the leaves below it (without the Frisian king-move
/// limit, as `perft`).
#[must_use]
pub fn divide(pos: &Position, depth: u32, dups: Duplicates) -> Vec<(Move, u64)> {
    let pos = &pos.without_king_runs();
    let mut list = MoveList::new();
    match dups {
        Duplicates::Drop => {
            with_rules!(pos.variant(), R => movegen::generate_for::<R, false>(pos, &mut list))
        }
        Duplicates::Keep => {
            with_rules!(pos.variant(), R => movegen::generate_for::<R, true>(pos, &mut list))
        }
    }
    list.iter()
        .map(|mv| {
            (
                *mv,
                if depth == 0 {
                    1
                } else {
                    perft(&pos.play_pieces(mv, pos.key_after(mv)), depth - 1, dups)
                },
            )
        })
        .collect()
}

fn count<R: Rules, const KEEP: bool>(pos: &Position, depth: u32, lists: &mut [MoveList]) -> u64 {
    let Some((list, rest)) = lists.split_first_mut() else {
        return 1;
    };
    match depth {
        0 => 1,
        1 => movegen::count_for::<R, KEEP>(pos, list),
        _ => {
            movegen::generate_for::<R, KEEP>(pos, list);
            let mut n = 0;
            for mv in list.iter() {
                n += count::<R, KEEP>(&pos.play_pieces(mv, pos.key_after(mv)), depth - 1, rest);
            }
            n
        }
    }
}
