//! The opening book as the search sees it: a probe that lists a position's book moves with their
//! scores, and the choice among the moves within a margin of the best. How a book is stored and
//! built lives elsewhere (the `kroon-book` crate); the engine holds only this trait.

use kroon_rules::hash::{mix64, GOLDEN_GAMMA};
use kroon_rules::{Move, Position};
use std::hash::{BuildHasher, Hasher};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

/// A source of book moves.
pub trait BookProbe: Send + Sync {
    /// The book moves of `pos` with their scores for the side to move (centi-men), only legal
    /// moves; empty when the position is not in the book.
    fn probe(&self, pos: &Position) -> Vec<(Move, i32)>;
}

/// A book the engine plays from, with the margin it picks within.
pub struct BookPlay {
    probe: Arc<dyn BookProbe>,
    margin: i32,
    /// splitmix64 state: the pick only has to vary from game to game, not be unpredictable.
    state: AtomicU64,
}

impl std::fmt::Debug for BookPlay {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "BookPlay(margin={})", self.margin)
    }
}

impl BookPlay {
    /// Plays from `probe`, picking at random among the moves scored within `margin` of the best
    /// (0: always the best, the first listed among equals). The seed differs per process.
    #[must_use]
    pub fn new(probe: Arc<dyn BookProbe>, margin: i32) -> BookPlay {
        let seed = std::collections::hash_map::RandomState::new()
            .build_hasher()
            .finish();
        BookPlay::seeded(probe, margin, seed)
    }

    /// As [`BookPlay::new`] with a chosen seed, for picks that repeat.
    #[must_use]
    pub fn seeded(probe: Arc<dyn BookProbe>, margin: i32, seed: u64) -> BookPlay {
        BookPlay {
            probe,
            margin: margin.max(0),
            state: AtomicU64::new(seed),
        }
    }

    /// The book move for `pos` with its score, or `None` when the position is out of book.
    pub fn pick(&self, pos: &Position) -> Option<(Move, i32)> {
        let moves = self.probe.probe(pos);
        let best = moves.iter().map(|&(_, s)| s).max()?;
        let near: Vec<(Move, i32)> = moves
            .into_iter()
            .filter(|&(_, s)| s >= best.saturating_sub(self.margin))
            .collect();
        if near.len() == 1 || self.margin == 0 {
            return near.into_iter().find(|&(_, s)| s == best);
        }
        let r = self.next_u64() % near.len() as u64;
        near.get(usize::try_from(r).unwrap_or(0)).copied()
    }

    fn next_u64(&self) -> u64 {
        // splitmix64 on an atomic state, so that a shared book draws without a lock.
        let s = self
            .state
            .fetch_add(GOLDEN_GAMMA, Ordering::Relaxed)
            .wrapping_add(GOLDEN_GAMMA);
        mix64(s)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use kroon_rules::Variant;

    /// Every legal move of the initial position, scored 0, 1, 2, ... in list order.
    struct Ramp;

    impl BookProbe for Ramp {
        fn probe(&self, pos: &Position) -> Vec<(Move, i32)> {
            if *pos != Position::initial(pos.variant()) {
                return Vec::new();
            }
            (0..)
                .zip(pos.legal_moves().iter())
                .map(|(i, &mv)| (mv, i))
                .collect()
        }
    }

    #[test]
    fn margin_zero_plays_the_best_and_a_margin_only_moves_near_it() {
        let start = Position::initial(Variant::International);
        let moves = start.legal_moves();
        let n = i32::try_from(moves.len()).unwrap();
        let best = moves[moves.len() - 1];
        let exact = BookPlay::seeded(Arc::new(Ramp), 0, 1);
        assert_eq!(exact.pick(&start), Some((best, n - 1)));
        let wide = BookPlay::seeded(Arc::new(Ramp), 2, 7);
        let mut seen = std::collections::HashSet::new();
        for _ in 0..200 {
            let (mv, score) = wide.pick(&start).unwrap();
            assert!(score >= n - 3, "{score}");
            assert!(moves.contains(&mv));
            seen.insert(mv);
        }
        assert_eq!(
            seen.len(),
            3,
            "all three moves within the margin get played"
        );
        assert_eq!(exact.pick(&start.play(&best)), None);
    }
}
