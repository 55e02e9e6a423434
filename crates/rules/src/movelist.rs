//! `MoveList`: the legal moves of a position, in a buffer that is reused from node to node.

use crate::mv::Move;

/// A list of moves. It keeps its allocation across `clear`, so a search or perft that owns one list
/// per ply allocates only while warming up, and there is no capacity limit to overflow.
#[derive(Clone, Debug, Default)]
pub struct MoveList(Vec<Move>);

impl MoveList {
    /// An empty list with room for a typical position.
    #[must_use]
    pub fn new() -> MoveList {
        MoveList(Vec::with_capacity(64))
    }
    /// Removes every move, keeping the allocation.
    #[inline]
    pub fn clear(&mut self) {
        self.0.clear();
    }
    /// Appends a move.
    #[inline]
    pub fn push(&mut self, mv: Move) {
        self.0.push(mv);
    }
    /// Number of moves.
    #[inline]
    #[must_use]
    pub fn len(&self) -> usize {
        self.0.len()
    }
    /// Whether there is no move.
    #[inline]
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
    /// Keeps only the moves for which `keep` holds, in order.
    #[inline]
    pub fn retain(&mut self, keep: impl FnMut(&Move) -> bool) {
        self.0.retain(keep);
    }
    /// Whether `mv` is in the list.
    #[inline]
    #[must_use]
    pub fn contains(&self, mv: &Move) -> bool {
        self.0.contains(mv)
    }
    /// The moves as a slice.
    #[inline]
    #[must_use]
    pub fn as_slice(&self) -> &[Move] {
        &self.0
    }
    /// The moves as a mutable slice (for ordering).
    #[inline]
    pub fn as_mut_slice(&mut self) -> &mut [Move] {
        &mut self.0
    }
    /// Iterates over the moves.
    pub fn iter(&self) -> std::slice::Iter<'_, Move> {
        self.0.iter()
    }
}

impl std::ops::Index<usize> for MoveList {
    type Output = Move;
    fn index(&self, i: usize) -> &Move {
        &self.0[i]
    }
}

impl<'a> IntoIterator for &'a MoveList {
    type Item = &'a Move;
    type IntoIter = std::slice::Iter<'a, Move>;
    fn into_iter(self) -> Self::IntoIter {
        self.0.iter()
    }
}
