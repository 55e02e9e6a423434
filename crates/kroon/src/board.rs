//! `kroon show`: a board diagram with the square names beside it, as the variant's players see
//! the board (White at the bottom; in English the first mover, Black, at the top).

use kroon_rules::{side_called, side_name, square_name, write_fen, Colour, Position};

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
            let Some(sq) = kroon::svg::square_at(v, r, c) else {
                continue;
            };
            let ch = match pos.piece_at(sq) {
                None => '.',
                Some(p) => match (side_called(v, p.colour), p.king) {
                    (Colour::White, false) => 'w',
                    (Colour::White, true) => 'W',
                    (Colour::Black, false) => 'b',
                    (Colour::Black, true) => 'B',
                },
            };
            pieces.push(' ');
            pieces.push(ch);
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
