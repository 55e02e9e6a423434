//! How each variant's players name squares and sides, for FEN, move text and diagrams:
//! - field numbers, 1 at the top left of White's view (international, Frisian, Scan's variants);
//! - algebraic a1–h8 in Russian and Brazilian, White on ranks 1–3 (field numbers are read too);
//! - English: the side that moves first is the dark one, Black, on squares 1–12. Kroon's geometry
//!   has the first mover at the bottom as White, so English names turn the board round: square
//!   `33 - field` and the other colour's name.
//!
//! The Hub protocol does not go through these names: it speaks Kroon's own field numbers and
//! colours in every variant (as pydraughts sends them), and so does DXP (international only).

// A reader of outside input: bad bytes must come back as errors, so no panicking shortcuts.
#![cfg_attr(
    not(test),
    deny(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing)
)]

use crate::position::{Colour, Piece};
use crate::square::Square;
use crate::variant::Variant;

/// A variant's usual way of naming squares.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Numbering {
    /// Field numbers, 1 at the top left of White's view.
    Fields,
    /// File letter and rank, `a1` at White's bottom left.
    Algebraic,
}

/// File (0 = a) and rank (1 = White's back rank) of a field number.
fn file_rank(columns: u8, field: u8) -> (u8, u8) {
    let per_row = columns / 2;
    let row = (field - 1) / per_row;
    let file = 2 * ((field - 1) % per_row) + u8::from(row.is_multiple_of(2));
    (file, columns - row)
}

/// The field number on `file`/`rank`, if that square is a playable one.
fn field_at(columns: u8, file: u8, rank: u8) -> Option<u8> {
    if file >= columns || rank == 0 || rank > columns {
        return None;
    }
    let row = columns - rank;
    (file % 2 == u8::from(row.is_multiple_of(2))).then(|| row * (columns / 2) + file / 2 + 1)
}

/// Whether the variant's names turn Kroon's board round (English).
fn turned(v: Variant) -> bool {
    v == Variant::English
}

/// The number a variant's players give a field of Kroon's geometry, and back (it is its own
/// inverse).
fn number(v: Variant, field: u8) -> u8 {
    if turned(v) {
        v.geometry().fields + 1 - field
    } else {
        field
    }
}

/// The colour the variant's players call a side of Kroon's (and back): swapped in English.
#[must_use]
pub fn side_called(v: Variant, c: Colour) -> Colour {
    if turned(v) {
        !c
    } else {
        c
    }
}

/// `White` or `Black`, as the variant's players call the side.
#[must_use]
pub fn side_name(v: Variant, c: Colour) -> &'static str {
    match side_called(v, c) {
        Colour::White => "White",
        Colour::Black => "Black",
    }
}

/// The name of `sq` as the variant's players write it: `32` or `c3`.
#[must_use]
pub fn square_name(v: Variant, sq: Square) -> String {
    let g = v.geometry();
    let field = g.field(sq);
    match v.numbering() {
        Numbering::Fields => number(v, field).to_string(),
        Numbering::Algebraic => {
            let (file, rank) = file_rank(g.columns, field);
            format!("{}{rank}", char::from(b'a' + file))
        }
    }
}

/// The square on row `row` and column `column` of a board diagram (0, 0 at the top left, White
/// at the bottom, as the variant's players see the board), if it is a playable one. Playable
/// squares are numbered from the top left in every variant's own names, which is how
/// [`parse_square`] reads a number. `kroon show`, its SVG diagrams and the web board draw so.
#[must_use]
pub fn square_at(v: Variant, row: usize, column: usize) -> Option<Square> {
    let n = usize::from(v.geometry().columns);
    if row >= n || column >= n || (row + column).is_multiple_of(2) {
        return None;
    }
    parse_square(v, &(row * n / 2 + column / 2 + 1).to_string())
}

/// Row and column of a square in a board diagram (the inverse of [`square_at`]).
#[must_use]
pub fn diagram_place(v: Variant, sq: Square) -> Option<(usize, usize)> {
    let n = usize::from(v.geometry().columns);
    (0..n)
        .flat_map(|r| (0..n).map(move |c| (r, c)))
        .find(|&(r, c)| square_at(v, r, c) == Some(sq))
}

/// A piece in a board diagram, by the side the variant's players call it: `w` and `b` for men,
/// `W` and `B` for kings.
#[must_use]
pub fn piece_letter(v: Variant, p: Piece) -> &'static str {
    match (side_called(v, p.colour), p.king) {
        (Colour::White, false) => "w",
        (Colour::White, true) => "W",
        (Colour::Black, false) => "b",
        (Colour::Black, true) => "B",
    }
}

/// Whether `text` has the shape of a square name (a field number, or a letter and a rank) whether
/// or not the board has that square: naming a missing square is not a syntax error.
pub(crate) fn looks_like_square(text: &str) -> bool {
    let digits = text
        .strip_prefix(|c: char| c.is_ascii_alphabetic())
        .unwrap_or(text);
    (1..=3).contains(&digits.len()) && digits.bytes().all(|b| b.is_ascii_digit())
}

/// Reads a square: a field number in any variant, or an algebraic name (`c3`, `C3`) in a variant
/// that uses them. `None` for anything that is no square of the board.
#[must_use]
pub fn parse_square(v: Variant, text: &str) -> Option<Square> {
    let g = v.geometry();
    let t = text.trim();
    if !t.is_empty() && t.len() <= 2 && t.bytes().all(|b| b.is_ascii_digit()) {
        let n: u8 = t.parse().ok()?;
        if n == 0 || n > g.fields {
            return None;
        }
        return g.square(u32::from(number(v, n)));
    }
    if v.numbering() != Numbering::Algebraic {
        return None;
    }
    let (&letter, digits) = t.as_bytes().split_first()?;
    let letter = letter.to_ascii_lowercase();
    if !letter.is_ascii_lowercase()
        || digits.is_empty()
        || digits.len() > 2
        || !digits.iter().all(u8::is_ascii_digit)
    {
        return None;
    }
    let rank: u8 = std::str::from_utf8(digits).ok()?.parse().ok()?;
    let field = field_at(g.columns, letter - b'a', rank)?;
    g.square(u32::from(field))
}

/// Where a square comes in a range such as `a1-h2`: rank by rank from White's side for algebraic
/// names, field order for numbers. Ranges in PDN FEN run in this order.
#[must_use]
pub fn range_index(v: Variant, sq: Square, algebraic: bool) -> u32 {
    let g = v.geometry();
    let field = g.field(sq);
    if algebraic {
        let (file, rank) = file_rank(g.columns, field);
        u32::from(rank - 1) * u32::from(g.columns) + u32::from(file)
    } else {
        u32::from(number(v, field))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_square_has_one_place_in_the_diagram() {
        for v in Variant::ALL {
            let g = v.geometry();
            let n = usize::from(g.columns);
            let mut seen = 0;
            for r in 0..n {
                for c in 0..n {
                    if let Some(sq) = square_at(v, r, c) {
                        seen += 1;
                        assert_eq!(diagram_place(v, sq), Some((r, c)), "{v} {r} {c}");
                        // Dark squares only, and field 1 at the top left as every variant
                        // numbers its playable squares from the top left.
                        assert_eq!((r + c) % 2, 1, "{v}");
                    }
                }
            }
            assert_eq!(seen, usize::from(g.fields), "{v}");
            let first = (0..n).find_map(|c| square_at(v, 0, c)).unwrap();
            assert_eq!(parse_square(v, "1"), Some(first), "{v}");
        }
    }

    #[test]
    fn russian_corners_and_every_square_round_trips() {
        let v = Variant::Russian;
        let g = v.geometry();
        let name = |f: u32| square_name(v, g.square(f).unwrap());
        assert_eq!(
            [name(1), name(4), name(5), name(29), name(32)],
            ["b8", "h8", "a7", "a1", "g1"]
        );
        for f in 1..=32 {
            let sq = g.square(f).unwrap();
            assert_eq!(parse_square(v, &square_name(v, sq)), Some(sq));
            assert_eq!(parse_square(v, &f.to_string()), Some(sq));
        }
        assert_eq!(parse_square(v, "C3"), parse_square(v, "c3"));
        for bad in [
            "a2", "b1", "i1", "a0", "a9", "33", "0", "", "c", "3c", "c33",
        ] {
            assert_eq!(parse_square(v, bad), None, "{bad}");
        }
    }

    #[test]
    fn numbered_variants_name_fields_and_refuse_letters() {
        let sq = Variant::International.geometry().square(32).unwrap();
        assert_eq!(square_name(Variant::International, sq), "32");
        assert_eq!(parse_square(Variant::International, "c3"), None);
        assert_eq!(parse_square(Variant::English, "c3"), None);
        // English turns the board: Kroon's field 32 (White's bottom right) is the first mover's
        // square 1.
        let g = Variant::English.geometry();
        let sq = g.square(32).unwrap();
        assert_eq!(square_name(Variant::English, sq), "1");
        assert_eq!(parse_square(Variant::English, "1"), Some(sq));
        assert_eq!(side_name(Variant::English, Colour::White), "Black");
        assert_eq!(side_name(Variant::Russian, Colour::White), "White");
        assert_eq!(
            parse_square(Variant::Brazilian, "c3"),
            parse_square(Variant::Russian, "c3")
        );
    }
}
