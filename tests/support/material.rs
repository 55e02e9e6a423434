//! Material played out through the captures the rules force: what a move leaves to exchanges.

use kroon_rules::{Move, Position};

/// Material for the side to move (a man 1, a king 3) once the captures the rules force are played
/// out, each side taking what is best for it.
pub fn material_after_captures(pos: &Position) -> i32 {
    let moves = pos.legal_moves();
    if moves.is_empty() || !moves[0].is_capture() {
        let count = |c| {
            let p = pos.pieces(c);
            (p & pos.men()).count() as i32 + 3 * (p & pos.kings()).count() as i32
        };
        return count(pos.turn()) - count(!pos.turn());
    }
    moves
        .iter()
        .map(|m| -material_after_captures(&pos.play(m)))
        .max()
        .unwrap()
}

/// Whether `mv`, played in `pos`, gives material away in the captures that follow it.
pub fn gives_away(pos: &Position, mv: &Move) -> bool {
    -material_after_captures(&pos.play(mv)) < material_after_captures(pos)
}
