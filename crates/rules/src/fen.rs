//! Position text: PDN FEN (`W:W31-50:B1-20`), the Hub position string (`W` + one char per field)
//! and the DXP board string (one char per field, `w`/`z` men, `W`/`Z` kings, `e` empty).

// A reader of outside input: bad bytes must come back as errors, so no panicking shortcuts.
#![cfg_attr(
    not(test),
    deny(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing)
)]

use crate::bitboard::Bitboard;
use crate::naming::{
    looks_like_square, parse_square, range_index, side_called, square_name, Numbering,
};
use crate::position::{Colour, Position};
use crate::square::Square;
use crate::variant::Variant;

/// Why a position text was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum FenError {
    /// Nothing to read.
    #[error("empty position text")]
    Empty,
    /// The side to move is not `W` or `B`.
    #[error("side to move must be W or B, found `{0}`")]
    BadTurn(String),
    /// A piece list does not start with `W` or `B`.
    #[error("piece list must start with W or B, found `{0}`")]
    BadColour(String),
    /// A square that is not written as a square (or a range that runs backwards).
    #[error("bad square `{0}`")]
    BadField(String),
    /// A square the board does not have: a field number out of range, or a light square.
    #[error("no square `{0}` on this board")]
    NoSuchSquare(String),
    /// Two pieces on one square.
    #[error("square {0} is given twice")]
    Occupied(String),
    /// A man standing on the row where it would have been crowned.
    #[error("a man on square {0} should have been crowned")]
    ManOnLastRow(String),
    /// The Hub or DXP string has the wrong number of squares.
    #[error("expected {expected} squares, found {found}")]
    WrongLength {
        /// Squares of the board.
        expected: usize,
        /// Squares given.
        found: usize,
    },
    /// A character that is no square content.
    #[error("unknown square character `{0}`")]
    BadSquare(char),
}

/// Pieces gathered while reading, checked once at the end.
struct Setup {
    variant: Variant,
    white: Bitboard,
    black: Bitboard,
    kings: Bitboard,
}

impl Setup {
    fn new(variant: Variant) -> Setup {
        Setup {
            variant,
            white: Bitboard::EMPTY,
            black: Bitboard::EMPTY,
            kings: Bitboard::EMPTY,
        }
    }

    fn put(&mut self, sq: Square, colour: Colour, king: bool) -> Result<(), FenError> {
        if (self.white | self.black).has(sq) {
            return Err(FenError::Occupied(square_name(self.variant, sq)));
        }
        match colour {
            Colour::White => self.white = self.white.with(sq),
            Colour::Black => self.black = self.black.with(sq),
        }
        if king {
            self.kings = self.kings.with(sq);
        }
        Ok(())
    }

    fn finish(self, turn: Colour) -> Result<Position, FenError> {
        let g = self.variant.geometry();
        let bad =
            (self.white & !self.kings & g.top_row) | (self.black & !self.kings & g.bottom_row);
        if let Some(sq) = bad.first() {
            return Err(FenError::ManOnLastRow(square_name(self.variant, sq)));
        }
        Ok(Position::from_parts(
            self.variant,
            self.white,
            self.black,
            self.kings,
            turn,
        ))
    }
}

fn parse_turn(s: &str) -> Result<Colour, FenError> {
    match s.trim() {
        "W" | "w" => Ok(Colour::White),
        "B" | "b" | "Z" | "z" => Ok(Colour::Black),
        other => Err(FenError::BadTurn(other.to_owned())),
    }
}

/// One square of a piece list: a field number, or an algebraic name where the variant uses them.
fn parse_one(s: &str, variant: Variant) -> Result<Square, FenError> {
    let t = s.trim();
    if let Some(sq) = parse_square(variant, t) {
        return Ok(sq);
    }
    if looks_like_square(t) {
        Err(FenError::NoSuchSquare(t.to_owned()))
    } else {
        Err(FenError::BadField(t.to_owned()))
    }
}

/// The squares of a range `a-b`, both ends included, in `naming::range_index` order.
fn parse_range(item: &str, a: &str, b: &str, variant: Variant) -> Result<Vec<Square>, FenError> {
    let (a, b) = (parse_one(a, variant)?, parse_one(b, variant)?);
    let algebraic = item.trim().starts_with(|c: char| c.is_ascii_alphabetic());
    let index = |sq| range_index(variant, sq, algebraic);
    if index(a) > index(b) {
        return Err(FenError::BadField(item.to_owned()));
    }
    let g = variant.geometry();
    let mut squares: Vec<Square> = (1..=u32::from(g.fields))
        .filter_map(|f| g.square(f))
        .filter(|&sq| (index(a)..=index(b)).contains(&index(sq)))
        .collect();
    squares.sort_unstable_by_key(|&sq| index(sq));
    Ok(squares)
}

/// Reads a PDN FEN such as `W:W31-50:B1-20` or `B:WK4,28:B12,K45.`: kings marked `K`, ranges `a-b`,
/// an optional `[FEN "…"]` wrapper, quotes, a trailing dot and whitespace. Russian and Brazilian
/// positions may name squares algebraically (`W:Wa1,c3:Bh8`); field numbers are read everywhere.
///
/// # Errors
/// A `FenError` naming the first thing that is wrong.
pub fn parse_fen(text: &str, variant: Variant) -> Result<Position, FenError> {
    let mut t = text.trim();
    if let Some(inner) = t.strip_prefix("[FEN").and_then(|r| r.strip_suffix(']')) {
        t = inner.trim();
    }
    let t = t.trim_matches('"').trim().trim_end_matches('.').trim();
    if t.is_empty() {
        return Err(FenError::Empty);
    }
    let mut parts = t.split(':');
    let turn = side_called(variant, parse_turn(parts.next().unwrap_or_default())?);
    let mut setup = Setup::new(variant);
    for part in parts {
        let part = part.trim();
        let (called, list) = match part.chars().next() {
            Some('W' | 'w') => (Colour::White, &part[1..]),
            Some('B' | 'b') => (Colour::Black, &part[1..]),
            _ => return Err(FenError::BadColour(part.to_owned())),
        };
        let colour = side_called(variant, called);
        for item in list.split(',') {
            let item = item.trim();
            if item.is_empty() {
                continue;
            }
            let (king, body) = match item.strip_prefix(['K', 'k']) {
                Some(rest) => (true, rest),
                None => (false, item),
            };
            if let Some((a, b)) = body.split_once('-') {
                for sq in parse_range(body, a, b, variant)? {
                    setup.put(sq, colour, king)?;
                }
            } else {
                setup.put(parse_one(body, variant)?, colour, king)?;
            }
        }
    }
    setup.finish(turn)
}

/// Writes a PDN FEN in the variant's names (see `naming`): side to move, then White's and Black's
/// pieces, kings marked `K`, in number order, or with algebraic names in file-then-rank order
/// (`W:Wa1,a3,b2,…`).
#[must_use]
pub fn write_fen(pos: &Position) -> String {
    let v = pos.variant();
    let mut s = String::from(if side_called(v, pos.turn()) == Colour::White {
        "W"
    } else {
        "B"
    });
    for (called, letter) in [(Colour::White, ":W"), (Colour::Black, ":B")] {
        s.push_str(letter);
        let mut squares: Vec<Square> = pos.pieces(side_called(v, called)).squares().collect();
        match v.numbering() {
            Numbering::Fields => squares.sort_unstable_by_key(|&sq| range_index(v, sq, false)),
            Numbering::Algebraic => squares.sort_by_cached_key(|&sq| square_name(v, sq)),
        }
        let list: Vec<String> = squares
            .iter()
            .map(|&sq| {
                let k = if pos.kings().has(sq) { "K" } else { "" };
                format!("{k}{}", square_name(v, sq))
            })
            .collect();
        s.push_str(&list.join(","));
    }
    s
}

/// Reads the Hub position string: `W` or `B`, then one of `w b W B e` per field.
///
/// # Errors
/// `FenError` on a wrong length or an unknown character.
pub fn parse_hub(text: &str, variant: Variant) -> Result<Position, FenError> {
    let t = text.trim();
    let mut chars = t.chars();
    let turn = match chars.next() {
        None => return Err(FenError::Empty),
        Some(c) => parse_turn(&c.to_string())?,
    };
    read_squares(chars.as_str(), variant, turn, ['w', 'b', 'W', 'B'])
}

/// Writes the Hub position string.
#[must_use]
pub fn write_hub(pos: &Position) -> String {
    let turn = if pos.turn() == Colour::White {
        'W'
    } else {
        'B'
    };
    std::iter::once(turn)
        .chain(write_squares(pos, ['w', 'b', 'W', 'B']).chars())
        .collect()
}

/// Reads a DXP board (50 chars of `e w z W Z`) with the side to move given apart (`W` or `Z`).
///
/// # Errors
/// `FenError` on a wrong length, an unknown character or a bad side.
pub fn parse_dxp(turn: char, board: &str, variant: Variant) -> Result<Position, FenError> {
    read_squares(
        board,
        variant,
        parse_turn(&turn.to_string())?,
        ['w', 'z', 'W', 'Z'],
    )
}

/// Writes a DXP board (without the side to move).
#[must_use]
pub fn write_dxp(pos: &Position) -> String {
    write_squares(pos, ['w', 'z', 'W', 'Z'])
}

/// Characters for white man, black man, white king, black king; `e` is empty.
fn read_squares(
    text: &str,
    variant: Variant,
    turn: Colour,
    set: [char; 4],
) -> Result<Position, FenError> {
    let g = variant.geometry();
    let found = text.chars().count();
    if found != usize::from(g.fields) {
        return Err(FenError::WrongLength {
            expected: usize::from(g.fields),
            found,
        });
    }
    let mut setup = Setup::new(variant);
    let squares = (1..=u32::from(g.fields)).filter_map(|f| g.square(f));
    for (field, c) in squares.zip(text.chars()) {
        match c {
            'e' | 'E' | '.' => {}
            c if c == set[0] => setup.put(field, Colour::White, false)?,
            c if c == set[1] => setup.put(field, Colour::Black, false)?,
            c if c == set[2] => setup.put(field, Colour::White, true)?,
            c if c == set[3] => setup.put(field, Colour::Black, true)?,
            c => return Err(FenError::BadSquare(c)),
        }
    }
    setup.finish(turn)
}

fn write_squares(pos: &Position, set: [char; 4]) -> String {
    let g = pos.variant().geometry();
    (1..=u32::from(g.fields))
        .map(|f| match g.square(f).and_then(|sq| pos.piece_at(sq)) {
            None => 'e',
            Some(p) => match (p.colour, p.king) {
                (Colour::White, false) => set[0],
                (Colour::Black, false) => set[1],
                (Colour::White, true) => set[2],
                (Colour::Black, true) => set[3],
            },
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn initial_position_in_every_format() {
        let p = parse_fen("W:W31-50:B1-20", Variant::International).unwrap();
        assert_eq!(p, Position::initial(Variant::International));
        assert_eq!(
            write_hub(&p),
            format!("W{}{}{}", "b".repeat(20), "e".repeat(10), "w".repeat(20))
        );
        assert_eq!(
            parse_hub(&write_hub(&p), Variant::International).unwrap(),
            p
        );
        assert_eq!(
            parse_dxp('W', &write_dxp(&p), Variant::International).unwrap(),
            p
        );
    }

    #[test]
    fn fen_with_kings_wrapper_and_dot() {
        let p = parse_fen(" [FEN \"B:WK4,28:B12,K45.\"] ", Variant::International).unwrap();
        assert_eq!(write_fen(&p), "B:WK4,28:B12,K45");
        assert_eq!(p.turn(), Colour::Black);
    }

    #[test]
    fn errors_name_the_problem() {
        let v = Variant::International;
        assert_eq!(parse_fen("", v), Err(FenError::Empty));
        assert_eq!(parse_fen("X:W31", v), Err(FenError::BadTurn("X".into())));
        assert_eq!(
            parse_fen("W:W31:Q2", v),
            Err(FenError::BadColour("Q2".into()))
        );
        assert_eq!(
            parse_fen("W:W51", v),
            Err(FenError::NoSuchSquare("51".into()))
        );
        assert_eq!(
            parse_fen("W:W31:B31", v),
            Err(FenError::Occupied("31".into()))
        );
        assert_eq!(parse_fen("W:W3x", v), Err(FenError::BadField("3x".into())));
        assert_eq!(
            parse_fen("W:Wc3", v),
            Err(FenError::NoSuchSquare("c3".into()))
        );
        assert_eq!(
            parse_fen("W:W3", v),
            Err(FenError::ManOnLastRow("3".into()))
        );
        assert_eq!(
            parse_fen("W:W40-31", v),
            Err(FenError::BadField("40-31".into()))
        );
        assert_eq!(
            parse_hub("Wbb", v),
            Err(FenError::WrongLength {
                expected: 50,
                found: 2
            })
        );
        assert_eq!(
            parse_hub(&format!("W{}", "q".repeat(50)), v),
            Err(FenError::BadSquare('q'))
        );
    }

    #[test]
    fn russian_and_brazilian_fens_name_squares_algebraically() {
        for v in [Variant::Russian, Variant::Brazilian] {
            let p = Position::initial(v);
            assert_eq!(
                write_fen(&p),
                "W:Wa1,a3,b2,c1,c3,d2,e1,e3,f2,g1,g3,h2:Ba7,b6,b8,c7,d6,d8,e7,f6,f8,g7,h6,h8"
            );
            assert_eq!(parse_fen(&write_fen(&p), v).unwrap(), p);
            assert_eq!(parse_fen("W:W21-32:B1-12", v).unwrap(), p);
            // Ranges of algebraic squares run rank by rank from White's side, as pydraughts reads them.
            assert_eq!(parse_fen("W:Wa1-g3:Bb6-h8", v).unwrap(), p);
        }
        let p = parse_fen("B:WKa1,c3:Bh8", Variant::Russian).unwrap();
        assert_eq!(write_fen(&p), "B:WKa1,c3:Bh8");
        assert_eq!(
            parse_fen("W:Wa2", Variant::Russian),
            Err(FenError::NoSuchSquare("a2".into()))
        );
        assert_eq!(
            parse_fen("W:Wb8", Variant::Russian),
            Err(FenError::ManOnLastRow("b8".into()))
        );
        // English: the dark side (Black, on 1-12) moves first; Kroon's first mover is its White.
        let start = Position::initial(Variant::English);
        assert_eq!(
            write_fen(&start),
            "B:W21,22,23,24,25,26,27,28,29,30,31,32:B1,2,3,4,5,6,7,8,9,10,11,12"
        );
        assert_eq!(
            parse_fen("B:W21-32:B1-12", Variant::English).unwrap(),
            start
        );
        assert_eq!(start.turn(), Colour::White);
    }
}
