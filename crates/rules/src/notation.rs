//! Move text: `32-28`, `28x19`, and the Hub long form `28x19x23` (from, to, then every captured field
//! in any order); `c3-d4` and `c3:e5` in the variants named algebraically. Reading checks the text
//! against the legal moves of the position.

// A reader of outside input: bad bytes must come back as errors, so no panicking shortcuts.
#![cfg_attr(
    not(test),
    deny(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing)
)]

use crate::mv::Move;
use crate::naming::{looks_like_square, parse_square, square_name, Numbering};
use crate::position::Position;
use crate::square::Square;
use crate::variant::Variant;

/// Why a move text was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum MoveError {
    /// The text is not move notation.
    #[error("cannot read move `{0}`")]
    Syntax(String),
    /// No legal move matches.
    #[error("illegal move `{0}`")]
    Illegal(String),
    /// More than one legal move matches; the long form names the captured fields.
    #[error("ambiguous move `{0}`: give the captured fields (from x to x captured ...)")]
    Ambiguous(String),
}

/// Move text before it is checked against a position.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MoveText {
    /// Squares as written.
    pub squares: Vec<Square>,
    /// Written with `x` or `:`.
    pub capture: bool,
}

/// Whose square names a move text uses.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Names {
    /// The variant's players' (see `naming`): `c3-d4` in Russian, English squares turned round.
    Variant,
    /// Kroon's own field numbers, as the Hub protocol has them in every variant.
    Hub,
}

impl MoveText {
    /// Reads `32-28`, `28x19x23`, `c3-d4` or `c3:e5` (algebraic in the variants that use it).
    ///
    /// # Errors
    /// `Syntax` for text that is no move notation, `Illegal` when a square is well formed but not on
    /// the board.
    pub fn parse(text: &str, v: Variant, names: Names) -> Result<MoveText, MoveError> {
        let t = text.trim();
        let err = || MoveError::Syntax(t.to_owned());
        let capture = t.contains(['x', 'X', ':']);
        let quiet = t.contains('-');
        if capture == quiet {
            return Err(err());
        }
        let mut squares = Vec::new();
        let square = |part: &str| match names {
            Names::Variant => parse_square(v, part),
            Names::Hub => {
                let digits = !part.is_empty() && part.bytes().all(|b| b.is_ascii_digit());
                let field = if digits { part.parse().ok() } else { None };
                field.and_then(|f| v.geometry().square(f))
            }
        };
        for part in t.split(['x', 'X', ':', '-']) {
            match square(part) {
                Some(sq) => squares.push(sq),
                None if looks_like_square(part) => return Err(MoveError::Illegal(t.to_owned())),
                None => return Err(err()),
            }
        }
        if squares.len() < 2 || (quiet && squares.len() != 2) {
            return Err(err());
        }
        Ok(MoveText { squares, capture })
    }

    /// Hub reading: from, to, then captured squares (a subset of the move's captures).
    fn matches_hub(&self, mv: &Move) -> bool {
        let [from, to, captured @ ..] = self.squares.as_slice() else {
            return false;
        };
        self.capture == mv.is_capture()
            && mv.from == *from
            && mv.to == *to
            && captured.iter().all(|&sq| mv.captured.has(sq))
    }

    /// PDN path reading: from, landing squares, to; only the ends are checked.
    fn matches_path(&self, mv: &Move) -> bool {
        self.capture
            && mv.is_capture()
            && self.squares.first() == Some(&mv.from)
            && self.squares.last() == Some(&mv.to)
    }
}

/// Reads a move in `pos` in the variant's names: from, to and captured squares first, then (for
/// longer captures) a PDN path.
///
/// # Errors
/// `Syntax` for text that is no move, `Illegal` when no legal move matches, `Ambiguous` when several do.
pub fn parse_move(pos: &Position, text: &str) -> Result<Move, MoveError> {
    read(pos, text, Names::Variant)
}

/// Reads a move in `pos` as the Hub protocol writes it: Kroon's field numbers in every variant.
///
/// # Errors
/// As `parse_move`.
pub fn parse_hub_move(pos: &Position, text: &str) -> Result<Move, MoveError> {
    read(pos, text, Names::Hub)
}

fn read(pos: &Position, text: &str, names: Names) -> Result<Move, MoveError> {
    let want = MoveText::parse(text, pos.variant(), names)?;
    let legal = pos.legal_moves();
    let pick = |pred: &dyn Fn(&Move) -> bool| {
        let mut hits = legal.iter().filter(|m| pred(m));
        match (hits.next(), hits.next()) {
            (Some(m), None) => Ok(*m),
            (None, _) => Err(MoveError::Illegal(text.trim().to_owned())),
            (Some(_), Some(_)) => Err(MoveError::Ambiguous(text.trim().to_owned())),
        }
    };
    match pick(&|m| want.matches_hub(m)) {
        Err(MoveError::Illegal(_)) if want.squares.len() > 2 => pick(&|m| want.matches_path(m)),
        other => other,
    }
}

/// Quiet and capture separators: `-` and `x`, or `-` and `:` with algebraic names.
fn separator(mv: &Move, v: Variant) -> char {
    match (mv.is_capture(), v.numbering()) {
        (false, _) => '-',
        (true, Numbering::Fields) => 'x',
        (true, Numbering::Algebraic) => ':',
    }
}

/// The long form in the variant's notation: `32-28`, or `28x19x23` with every captured square after
/// from and to, in field order (`c3:g7:d4:f6` with algebraic names, captures in name order).
#[must_use]
pub fn long(mv: &Move, v: Variant) -> String {
    let mut caps: Vec<Square> = mv.captured.squares().collect();
    match v.numbering() {
        Numbering::Fields => caps.sort_unstable_by_key(|&sq| v.geometry().field(sq)),
        Numbering::Algebraic => caps.sort_by_cached_key(|&sq| square_name(v, sq)),
    }
    std::iter::once(mv.from)
        .chain(std::iter::once(mv.to))
        .chain(caps)
        .map(|sq| square_name(v, sq))
        .collect::<Vec<_>>()
        .join(&separator(mv, v).to_string())
}

/// The Hub form: the long form in field numbers whatever the variant, as the Hub protocol has it.
#[must_use]
pub fn hub(mv: &Move, v: Variant) -> String {
    let g = v.geometry();
    if !mv.is_capture() {
        return format!("{}-{}", g.field(mv.from), g.field(mv.to));
    }
    let mut caps: Vec<u8> = mv.captured.squares().map(|sq| g.field(sq)).collect();
    caps.sort_unstable();
    let mut s = format!("{}x{}", g.field(mv.from), g.field(mv.to));
    for c in caps {
        s.push('x');
        s.push_str(&c.to_string());
    }
    s
}

/// The short form: `32-28` or `28x19` (`c3-d4`, `c3:e5`).
#[must_use]
pub fn short(mv: &Move, v: Variant) -> String {
    format!(
        "{}{}{}",
        square_name(v, mv.from),
        separator(mv, v),
        square_name(v, mv.to)
    )
}

/// The short form unless another legal move has the same from and to; then the long form.
#[must_use]
pub fn display(pos: &Position, mv: &Move) -> String {
    let clash = pos
        .legal_moves()
        .iter()
        .any(|m| m != mv && m.from == mv.from && m.to == mv.to);
    if clash {
        long(mv, pos.variant())
    } else {
        short(mv, pos.variant())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fen::parse_fen;

    #[test]
    fn reads_quiet_and_capture_moves() {
        let p = Position::initial(Variant::International);
        let mv = parse_move(&p, "32-28").unwrap();
        assert_eq!(long(&mv, p.variant()), "32-28");
        assert_eq!(
            parse_move(&p, "32-26"),
            Err(MoveError::Illegal("32-26".into()))
        );
        assert_eq!(
            parse_move(&p, "32+28"),
            Err(MoveError::Syntax("32+28".into()))
        );
        assert_eq!(
            parse_move(&p, "32x28"),
            Err(MoveError::Illegal("32x28".into()))
        );
        let p = parse_fen("W:W28:B23,13", Variant::International).unwrap();
        let moves: Vec<String> = p
            .legal_moves()
            .iter()
            .map(|m| long(m, p.variant()))
            .collect();
        assert_eq!(moves, vec!["28x8x13x23"]);
        assert_eq!(
            long(&parse_move(&p, "28x8").unwrap(), p.variant()),
            "28x8x13x23"
        );
        assert_eq!(
            long(&parse_move(&p, "28x8x23x13").unwrap(), p.variant()),
            "28x8x13x23"
        );
        assert_eq!(
            long(&parse_move(&p, "28x8x23").unwrap(), p.variant()),
            "28x8x13x23"
        );
        assert_eq!(
            long(&parse_move(&p, "28x19x8").unwrap(), p.variant()),
            "28x8x13x23"
        );
        assert_eq!(
            parse_move(&p, "28x8x24"),
            Err(MoveError::Illegal("28x8x24".into()))
        );
    }

    #[test]
    fn same_from_and_to_with_different_captures_is_ambiguous_in_short_form() {
        // The king on 37 takes 32, 17 and then 13 or 9, ending on 21 or on 26 either way: two
        // pairs of moves that share their from and to and differ in what they take.
        let p = parse_fen("W:WK37:B9,13,17,32", Variant::International).unwrap();
        let legal = p.legal_moves();
        let pairs = legal
            .iter()
            .filter(|a| {
                legal
                    .iter()
                    .any(|b| b != *a && b.from == a.from && b.to == a.to)
            })
            .count();
        assert_eq!(pairs, 4, "the position must hold the ambiguous pairs");
        for m in &legal {
            let text = display(&p, m);
            assert_eq!(
                text,
                long(m, p.variant()),
                "an ambiguous move is shown long"
            );
            assert_eq!(parse_move(&p, &text).unwrap(), *m, "{text}");
            let short_text = short(m, p.variant());
            assert_eq!(
                parse_move(&p, &short_text),
                Err(MoveError::Ambiguous(short_text.clone()))
            );
        }
    }

    #[test]
    fn russian_moves_are_algebraic_and_hub_keeps_field_numbers() {
        let p = Position::initial(Variant::Russian);
        let mut moves: Vec<String> = p
            .legal_moves()
            .iter()
            .map(|m| short(m, p.variant()))
            .collect();
        moves.sort();
        assert_eq!(
            moves,
            ["a3-b4", "c3-b4", "c3-d4", "e3-d4", "e3-f4", "g3-f4", "g3-h4"]
        );
        let mv = parse_move(&p, "c3-d4").unwrap();
        assert_eq!(parse_move(&p, "C3-D4").unwrap(), mv);
        assert_eq!(parse_move(&p, "22-18").unwrap(), mv);
        assert_eq!(hub(&mv, p.variant()), "22-18");
        assert_eq!(
            parse_move(&p, "c3-c4"),
            Err(MoveError::Illegal("c3-c4".into()))
        );
        assert_eq!(
            parse_move(&p, "c3-z4"),
            Err(MoveError::Illegal("c3-z4".into()))
        );
        // A double capture, read in every form: short, long (captured squares), path, Hub.
        let p = parse_fen("W:Wc3:Bd4,f6", Variant::Russian).unwrap();
        let mv = parse_move(&p, "c3:g7").unwrap();
        assert_eq!(short(&mv, p.variant()), "c3:g7");
        assert_eq!(long(&mv, p.variant()), "c3:g7:d4:f6");
        assert_eq!(parse_move(&p, "c3:e5:g7").unwrap(), mv);
        assert_eq!(parse_move(&p, "c3xg7").unwrap(), mv);
        assert_eq!(parse_hub_move(&p, &hub(&mv, p.variant())).unwrap(), mv);
        assert_eq!(hub(&mv, p.variant()), "22x8x11x18");
    }

    #[test]
    fn english_squares_are_turned_round_except_in_the_hub() {
        // The dark side, on 1-12, moves first: 11-15 is its classic first move; Hub says 22-18.
        let p = Position::initial(Variant::English);
        let mut moves: Vec<String> = p
            .legal_moves()
            .iter()
            .map(|m| short(m, p.variant()))
            .collect();
        moves.sort();
        assert_eq!(
            moves,
            ["10-14", "10-15", "11-15", "11-16", "12-16", "9-13", "9-14"]
        );
        let mv = parse_move(&p, "11-15").unwrap();
        assert_eq!(hub(&mv, p.variant()), "22-18");
        assert_eq!(parse_hub_move(&p, "22-18").unwrap(), mv);
        assert_eq!(
            parse_move(&p, "22-18"),
            Err(MoveError::Illegal("22-18".into()))
        );
        assert_eq!(
            parse_hub_move(&p, "c3-d4"),
            Err(MoveError::Illegal("c3-d4".into()))
        );
    }
}
