//! How the Hub protocol numbers the squares of moves, per variant.
//!
//! Hub positions (`pos pos=W...`) list the fields in Kroon's order in every variant: 1 is the
//! top-left dark square seen from the side that starts at the bottom, and on 8x8 `W` is that
//! side. Moves on 10x10 use the same numbers. On 8x8 the one Hub client there is, pydraughts,
//! writes moves in each variant's own numbers since version 0.6 (0.5 used the position's):
//! English numbers from the other side (`33 - field`: Kroon's `22-18` is `11-15`), Russian and
//! Brazilian number along the ranks from a1 (field 21, a3, is 9). Both are their own inverse.
//! Kroon reads and writes Hub moves in these numbers, so that pydraughts 0.6 plays it.

use kroon_rules::{notation, parse_hub_move, Move, MoveError, Position, Variant};

/// The Hub move number of Kroon's field `field` in `v`, and back (each map is its own inverse).
#[must_use]
pub fn hub_square(field: u32, v: Variant) -> u32 {
    match v {
        Variant::English => 33 - field,
        Variant::Russian | Variant::Brazilian => {
            // Mirror the ranks: field `f` on row `r` (from the top), column slot `c`, becomes
            // row `7 - r`, the same slot counted from the other edge.
            let s = 32 - field; // 0-based, the board turned round
            let (row, slot) = (s / 4, s % 4);
            row * 4 + (3 - slot) + 1
        }
        _ => field,
    }
}

/// Renumbers every square of a move text (`22-18`, `28x19x23`) through [`hub_square`].
fn renumber(text: &str, v: Variant) -> String {
    let mut out = String::with_capacity(text.len());
    let mut digits = String::new();
    let flush = |digits: &mut String, out: &mut String| {
        if !digits.is_empty() {
            match digits.parse::<u32>() {
                Ok(n) if (1..=32).contains(&n) => out.push_str(&hub_square(n, v).to_string()),
                _ => out.push_str(digits),
            }
            digits.clear();
        }
    };
    for c in text.chars() {
        if c.is_ascii_digit() {
            digits.push(c);
        } else {
            flush(&mut digits, &mut out);
            out.push(c);
        }
    }
    flush(&mut digits, &mut out);
    out
}

fn is_renumbered(v: Variant) -> bool {
    matches!(v, Variant::English | Variant::Russian | Variant::Brazilian)
}

/// A move as Hub writes it in `v`.
#[must_use]
pub fn write_move(mv: &Move, v: Variant) -> String {
    let text = notation::hub(mv, v);
    if !is_renumbered(v) {
        return text;
    }
    // Captured squares stay in increasing order in the client's numbers.
    let squares: Vec<u32> = text
        .split(['-', 'x'])
        .filter_map(|n| n.parse().ok())
        .map(|n| hub_square(n, v))
        .collect();
    let sep = if mv.is_capture() { "x" } else { "-" };
    let (ends, caps) = squares.split_at(2.min(squares.len()));
    let mut caps = caps.to_vec();
    caps.sort_unstable();
    ends.iter()
        .chain(&caps)
        .map(u32::to_string)
        .collect::<Vec<_>>()
        .join(sep)
}

/// Reads a Hub move in `pos`.
///
/// # Errors
/// As [`parse_hub_move`].
pub fn read_move(pos: &Position, text: &str) -> Result<Move, MoveError> {
    let v = pos.variant();
    if !is_renumbered(v) {
        return parse_hub_move(pos, text);
    }
    parse_hub_move(pos, &renumber(text, v)).map_err(|e| match e {
        // Say what the client sent, not its renumbering.
        MoveError::Illegal(_) => MoveError::Illegal(text.trim().to_owned()),
        MoveError::Ambiguous(_) => MoveError::Ambiguous(text.trim().to_owned()),
        other => other,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn squares_follow_pydraughts_0_6() {
        // pydraughts 0.6.7's first moves from the start (tests/interop replays whole games).
        assert_eq!(hub_square(22, Variant::English), 11);
        assert_eq!(hub_square(18, Variant::English), 15);
        for v in [Variant::Russian, Variant::Brazilian] {
            // a3 (field 21) is 9, b4 (field 17) is 13, h2 (field 28) is 8, b8 (1) is 29.
            assert_eq!(hub_square(21, v), 9);
            assert_eq!(hub_square(17, v), 13);
            assert_eq!(hub_square(28, v), 8);
            assert_eq!(hub_square(1, v), 29);
        }
        for v in Variant::ALL {
            for f in 1..=32 {
                assert_eq!(hub_square(hub_square(f, v), v), f, "{v:?} {f}");
            }
        }
        assert_eq!(hub_square(32, Variant::International), 32);
    }

    #[test]
    fn moves_read_back_in_every_variant() {
        for v in Variant::ALL {
            let mut pos = Position::initial(v);
            for _ in 0..12 {
                let legal = pos.legal_moves();
                let Some(&mv) = legal.iter().last() else {
                    break;
                };
                for m in legal.iter() {
                    assert_eq!(read_move(&pos, &write_move(m, v)), Ok(*m), "{v:?}");
                }
                pos = pos.play(&mv);
            }
        }
        let english = Position::initial(Variant::English);
        assert_eq!(
            write_move(&read_move(&english, "11-15").unwrap(), Variant::English),
            "11-15"
        );
        assert!(read_move(&english, "22-18").is_err());
        let russian = Position::initial(Variant::Russian);
        assert!(read_move(&russian, "9-13").is_ok());
    }
}
