//! `Value`: what a table knows of a position, and its one-byte code.
//!
//! The distance counts plies to conversion: to the next capture or crowning, which leaves the
//! slice, with the winner hurrying and the loser holding out (the conversion may be the loser's
//! forced capture). A win ends in a conversion that keeps it won; the tables of the smaller slices take over from there. So a side that plays each time
//! the move of least distance among its winning moves converts, and since every conversion takes
//! material off the board or crowns a man, it wins.

/// A position's game value for the side to move, without the counting rules.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub enum Value {
    /// Won: the next conversion comes in this many plies (at least 1) and keeps the win.
    Win(u16),
    /// Drawn with best play.
    Draw,
    /// Lost: the next conversion comes in this many plies and keeps the loss (0: no legal move).
    Loss(u16),
}

/// Longest distance a code holds.
pub const MAX_DISTANCE: u16 = 126;

impl Value {
    /// The value's code: 0 a draw, `2d - 1` a win in `d`, `2d + 2` a loss in `d`; `None` when the
    /// distance is beyond `MAX_DISTANCE`.
    #[must_use]
    pub fn code(self) -> Option<u8> {
        match self {
            Value::Draw => Some(0),
            Value::Win(d) if (1..=MAX_DISTANCE + 1).contains(&d) => u8::try_from(2 * d - 1).ok(),
            Value::Loss(d) if d <= MAX_DISTANCE => u8::try_from(2 * d + 2).ok(),
            _ => None,
        }
    }

    /// The value of a code (255, which no value has, reads as `None`).
    #[must_use]
    pub const fn from_code(code: u8) -> Option<Value> {
        match code {
            0 => Some(Value::Draw),
            255 => None,
            c if c % 2 == 1 => Some(Value::Win((c as u16).div_ceil(2))),
            c => Some(Value::Loss((c as u16 - 2) / 2)),
        }
    }

    /// The value one ply earlier, for the side that moved into this position.
    #[must_use]
    pub const fn before(self) -> Value {
        match self {
            Value::Win(d) => Value::Loss(d + 1),
            Value::Draw => Value::Draw,
            Value::Loss(d) => Value::Win(d + 1),
        }
    }

    /// `win`, `draw` or `loss`.
    #[must_use]
    pub const fn name(self) -> &'static str {
        match self {
            Value::Win(_) => "win",
            Value::Draw => "draw",
            Value::Loss(_) => "loss",
        }
    }

    /// Plies to conversion, for wins and losses.
    #[must_use]
    pub const fn distance(self) -> Option<u16> {
        match self {
            Value::Win(d) | Value::Loss(d) => Some(d),
            Value::Draw => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_read_back() {
        for code in 0..=254u8 {
            let v = Value::from_code(code).unwrap();
            assert_eq!(v.code(), Some(code), "{v:?}");
        }
        assert_eq!(Value::from_code(255), None);
        assert_eq!(Value::Win(0).code(), None);
        assert_eq!(Value::Loss(MAX_DISTANCE + 1).code(), None);
        assert_eq!(Value::Loss(0).before(), Value::Win(1));
    }
}
