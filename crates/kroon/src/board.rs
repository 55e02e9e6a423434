//! `kroon show`: a board diagram with field numbers, White at the bottom.

use kroon_rules::{write_fen, Colour, Position};

/// The diagram: pieces on the left (`w`/`b` men, `W`/`B` kings, `.` empty playable square),
/// field numbers on the right.
pub fn diagram(pos: &Position) -> String {
    let g = pos.variant().geometry();
    let n = usize::from(g.columns);
    let mut out = String::new();
    for r in 0..n {
        let mut pieces = String::new();
        let mut numbers = String::new();
        for c in 0..n {
            if (r + c) % 2 == 0 {
                pieces.push_str("  ");
                numbers.push_str("   ");
                continue;
            }
            let field = (r * n / 2 + c / 2 + 1) as u32;
            let ch = match g.square(field).and_then(|sq| pos.piece_at(sq)) {
                None => '.',
                Some(p) => match (p.colour, p.king) {
                    (Colour::White, false) => 'w',
                    (Colour::White, true) => 'W',
                    (Colour::Black, false) => 'b',
                    (Colour::Black, true) => 'B',
                },
            };
            pieces.push(' ');
            pieces.push(ch);
            numbers.push_str(&format!("{field:>3}"));
        }
        out.push_str(&format!("{pieces}    {numbers}\n"));
    }
    let side = if pos.turn() == Colour::White {
        "White"
    } else {
        "Black"
    };
    out.push_str(&format!(
        "{side} to move   {}   {}\n",
        pos.variant(),
        write_fen(pos)
    ));
    out
}
