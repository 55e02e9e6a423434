//! `Move`: from square, to square and the set of captured pieces — all that identifies a move.

use crate::bitboard::Bitboard;
use crate::square::Square;

/// A move. Two capture paths with the same from, to and captured set are the same move
/// (FMJD convention; Hub and DXP identify captures this way). `to == from` is legal: a king
/// can capture round a circuit and end where it started.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub struct Move {
    /// The square the piece leaves.
    pub from: Square,
    /// The square the piece ends on.
    pub to: Square,
    /// The pieces taken.
    pub captured: Bitboard,
    /// A man that ends its move on the far row and becomes a king.
    pub promotes: bool,
}

impl Move {
    /// Whether the move captures.
    #[inline]
    #[must_use]
    pub const fn is_capture(&self) -> bool {
        self.captured.0 != 0
    }

    /// 12 bits of from and to, for the transposition table and history tables.
    #[inline]
    #[must_use]
    pub fn key(&self) -> u16 {
        u16::from(self.from.index()) << 6 | u16::from(self.to.index())
    }
}
