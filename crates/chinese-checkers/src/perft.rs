//! Perft: the number of move sequences of a given length, the move generator's test.

use crate::movegen::Move;
use crate::position::Position;

/// Leaves of the move tree `depth` plies deep. A player without a move passes (one edge); a
/// finished game is a leaf.
pub fn perft(pos: &Position, depth: u32) -> u64 {
    if depth == 0 || pos.is_over() {
        return 1;
    }
    if depth == 1 {
        return pos.count_moves().max(1);
    }
    let moves = pos.legal_moves();
    if moves.is_empty() {
        return perft(&pos.pass(), depth - 1);
    }
    moves
        .iter()
        .map(|&mv| perft(&pos.play(mv), depth - 1))
        .sum()
}

/// Perft below each legal move.
pub fn divide(pos: &Position, depth: u32) -> Vec<(Move, u64)> {
    pos.legal_moves()
        .into_iter()
        .map(|mv| (mv, perft(&pos.play(mv), depth.saturating_sub(1))))
        .collect()
}
