//! `Square`: a bit index in a board's padded layout (not a field number; see `geometry`).

/// A bit index in the padded layout of a board. Field numbers live in `geometry`.
#[derive(Copy, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Debug)]
pub struct Square(u8);

impl Square {
    /// A square from its bit index (below 64).
    #[inline]
    #[must_use]
    pub const fn new(index: u8) -> Square {
        debug_assert!(index < 64);
        Square(index)
    }

    /// The bit index.
    #[inline]
    #[must_use]
    pub const fn index(self) -> u8 {
        self.0
    }
}
