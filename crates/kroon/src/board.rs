//! `kroon show`: a board diagram with the square names beside it, as the variant's players see
//! the board (White at the bottom; in English the first mover, Black, at the top).

use kroon_rules::{piece_letter, side_name, square_at, square_name, write_fen, Position};

/// The diagram: pieces on the left (`w`/`b` men, `W`/`B` kings, `.` empty playable square),
/// square names on the right.
pub fn diagram(pos: &Position) -> String {
    let v = pos.variant();
    let g = v.geometry();
    let n = usize::from(g.columns);
    let mut out = String::new();
    for r in 0..n {
        let mut pieces = String::new();
        let mut names = String::new();
        for c in 0..n {
            if (r + c) % 2 == 0 {
                pieces.push_str("  ");
                names.push_str("   ");
                continue;
            }
            let Some(sq) = square_at(v, r, c) else {
                continue;
            };
            pieces.push(' ');
            pieces.push_str(pos.piece_at(sq).map_or(".", |p| piece_letter(v, p)));
            names.push_str(&format!("{:>3}", square_name(v, sq)));
        }
        out.push_str(&format!("{pieces}    {names}\n"));
    }
    out.push_str(&format!(
        "{} to move   {}   {}\n",
        side_name(v, pos.turn()),
        v,
        write_fen(pos)
    ));
    out
}
