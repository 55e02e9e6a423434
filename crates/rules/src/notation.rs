//! Move text: `32-28`, `28x19`, and the Hub long form `28x19x23` (from, to, then every captured field
//! in any order). Reading checks the text against the legal moves of the position.

use crate::mv::Move;
use crate::position::Position;
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
    /// Field numbers as written.
    pub fields: Vec<u32>,
    /// Written with `x`.
    pub capture: bool,
}

impl std::str::FromStr for MoveText {
    type Err = MoveError;
    fn from_str(s: &str) -> Result<MoveText, MoveError> {
        let t = s.trim();
        let err = || MoveError::Syntax(s.to_owned());
        let capture = t.contains(['x', 'X', ':']);
        let quiet = t.contains('-');
        if capture == quiet {
            return Err(err());
        }
        let mut fields = Vec::new();
        for part in t.split(['x', 'X', ':', '-']) {
            if part.is_empty() || part.len() > 2 || !part.bytes().all(|b| b.is_ascii_digit()) {
                return Err(err());
            }
            fields.push(part.parse().map_err(|_| err())?);
        }
        if fields.len() < 2 || (quiet && fields.len() != 2) {
            return Err(err());
        }
        Ok(MoveText { fields, capture })
    }
}

impl MoveText {
    /// Hub reading: from, to, then captured fields (a subset of the move's captures).
    fn matches_hub(&self, mv: &Move, v: Variant) -> bool {
        let g = v.geometry();
        let field = |sq| u32::from(g.field(sq));
        if self.capture != mv.is_capture()
            || field(mv.from) != self.fields[0]
            || field(mv.to) != self.fields[1]
        {
            return false;
        }
        self.fields[2..]
            .iter()
            .all(|&f| g.square(f).is_some_and(|sq| mv.captured.has(sq)))
    }

    /// PDN path reading: from, landing squares, to; only the ends are checked.
    fn matches_path(&self, mv: &Move, v: Variant) -> bool {
        let g = v.geometry();
        let last = *self.fields.last().unwrap_or(&0);
        self.capture
            && mv.is_capture()
            && u32::from(g.field(mv.from)) == self.fields[0]
            && u32::from(g.field(mv.to)) == last
    }
}

/// Reads a move in `pos`: Hub long form first, then (for longer captures) a PDN path.
///
/// # Errors
/// `Syntax` for text that is no move, `Illegal` when no legal move matches, `Ambiguous` when several do.
pub fn parse_move(pos: &Position, text: &str) -> Result<Move, MoveError> {
    let want: MoveText = text.parse()?;
    let legal = pos.legal_moves();
    let v = pos.variant();
    let pick = |pred: &dyn Fn(&Move) -> bool| {
        let mut hits = legal.iter().filter(|m| pred(m));
        match (hits.next(), hits.next()) {
            (Some(m), None) => Ok(*m),
            (None, _) => Err(MoveError::Illegal(text.trim().to_owned())),
            (Some(_), Some(_)) => Err(MoveError::Ambiguous(text.trim().to_owned())),
        }
    };
    match pick(&|m| want.matches_hub(m, v)) {
        Err(MoveError::Illegal(_)) if want.fields.len() > 2 => pick(&|m| want.matches_path(m, v)),
        other => other,
    }
}

/// The long form: `32-28`, or `28x19x23` with every captured field in field order.
#[must_use]
pub fn long(mv: &Move, v: Variant) -> String {
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

/// The short form: `32-28` or `28x19`.
#[must_use]
pub fn short(mv: &Move, v: Variant) -> String {
    let g = v.geometry();
    let sep = if mv.is_capture() { 'x' } else { '-' };
    format!("{}{sep}{}", g.field(mv.from), g.field(mv.to))
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
        // White king on 1 can take 7 and 18 or 12 and 29-type paths ending on the same square; build a
        // simple case: king 47 takes 41 and 23-like pieces on two routes to the same field.
        let p = parse_fen("W:WK46:B41,37,19,31,42", Variant::International).unwrap();
        let legal = p.legal_moves();
        for m in &legal {
            let text = display(&p, m);
            assert_eq!(parse_move(&p, &text).unwrap(), *m, "{text}");
            assert_eq!(parse_move(&p, &long(m, p.variant())).unwrap(), *m);
        }
    }
}
