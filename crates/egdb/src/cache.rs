//! Decoded blocks, kept for the probes that follow: a slice's codes are run-length coded in
//! blocks of 4096 numbers, and reading one code walks its block's runs from the start, which costs
//! about as much as a search node. A search that lives in the tables probes the same few blocks
//! again and again (the positions around one ending share their men and most of their kings), so
//! a probe that finds its block decoded reads one byte.
#![cfg_attr(
    not(test),
    deny(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing)
)]

use crate::store::Slice;
use std::sync::{Mutex, MutexGuard};

/// Lines of the cache by default: 4096 blocks of 4096 codes, 16 MiB once all are used.
pub const DEFAULT_LINES: usize = 4096;

/// Marks a line that holds no block.
const EMPTY: u64 = u64::MAX;

/// A direct-mapped cache of decoded blocks, shared by the search's threads: each line has its
/// own lock, so two threads only wait for each other when they want the same line.
pub struct BlockCache {
    lines: Box<[Mutex<Line>]>,
}

/// One line: which block it holds and its codes, and what the probes that came to it found.
struct Line {
    key: u64,
    codes: Vec<u8>,
    hits: u64,
    misses: u64,
}

/// What the probes found in the cache since it was made.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct CacheStats {
    /// Probes whose block was decoded already.
    pub hits: u64,
    /// Probes that decoded their block.
    pub misses: u64,
}

impl CacheStats {
    /// The share of probes that found their block, 0 to 1 (0 before any probe).
    #[must_use]
    pub fn hit_rate(&self) -> f64 {
        let all = self.hits + self.misses;
        if all == 0 {
            0.0
        } else {
            self.hits as f64 / all as f64
        }
    }
}

impl BlockCache {
    /// A cache of `lines` blocks (rounded up to a power of two, at least one); a line's memory
    /// is taken when it is first used.
    #[must_use]
    pub fn new(lines: usize) -> BlockCache {
        let lines = lines.max(1).next_power_of_two();
        BlockCache {
            lines: (0..lines)
                .map(|_| {
                    Mutex::new(Line {
                        key: EMPTY,
                        codes: Vec::new(),
                        hits: 0,
                        misses: 0,
                    })
                })
                .collect(),
        }
    }

    /// The code of number `index` of `slice`, whose number among the open slices is `id`;
    /// `None` beyond the slice or in a damaged block.
    pub fn code(&self, id: u32, slice: &Slice, index: u64) -> Option<u8> {
        let (block, at) = slice.block_of(index)?;
        let key = (u64::from(id) << 40) | block as u64;
        // The golden-ratio multiply spreads neighbouring blocks of one slice over the lines.
        let mixed = key.wrapping_mul(0x9E37_79B9_7F4A_7C15);
        let bits = self.lines.len().trailing_zeros();
        let at_line = if bits == 0 {
            0
        } else {
            (mixed >> (64 - bits)) as usize
        };
        let mut line = lock(self.lines.get(at_line)?);
        if line.key == key {
            line.hits += 1;
        } else {
            line.misses += 1;
            line.key = EMPTY;
            slice.decode_block(block, &mut line.codes)?;
            line.key = key;
        }
        line.codes.get(at).copied()
    }

    /// The probes' hits and misses so far.
    #[must_use]
    pub fn stats(&self) -> CacheStats {
        self.lines.iter().fold(CacheStats::default(), |s, line| {
            let line = lock(line);
            CacheStats {
                hits: s.hits + line.hits,
                misses: s.misses + line.misses,
            }
        })
    }
}

/// A line, even when a thread panicked holding it: a line is only ever left holding a whole
/// block or marked empty, so what it holds stays true.
fn lock(line: &Mutex<Line>) -> MutexGuard<'_, Line> {
    line.lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

impl Default for BlockCache {
    fn default() -> BlockCache {
        BlockCache::new(DEFAULT_LINES)
    }
}

impl std::fmt::Debug for BlockCache {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("BlockCache")
            .field("lines", &self.lines.len())
            .finish_non_exhaustive()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::index::Layout;
    use crate::material::Material;
    use crate::store::encode;

    #[test]
    fn cached_codes_are_the_slices_codes_and_repeats_hit() {
        let m = Material::new(0, 1, 0, 2);
        let n = Layout::new(m).size() as usize;
        let codes: Vec<u8> = (0..n).map(|i| (i % 13 % 5) as u8).collect();
        let slice = Slice::parse(&encode(m, &codes, true)).unwrap();
        // Two lines for many blocks: lines are replaced all the time.
        let cache = BlockCache::new(2);
        for i in (0..n).step_by(7).chain((0..n).rev().step_by(11)) {
            assert_eq!(
                cache.code(3, &slice, i as u64),
                Some(codes[i]),
                "number {i}"
            );
        }
        assert_eq!(cache.code(3, &slice, n as u64), None);
        assert!(cache.stats().misses > 0);
        assert_eq!(cache.code(3, &slice, 5), Some(codes[5]));
        let before = cache.stats();
        assert_eq!(cache.code(3, &slice, 6), Some(codes[6]));
        let after = cache.stats();
        assert_eq!(
            after.hits,
            before.hits + 1,
            "the next probe of a block hits"
        );
        assert!(after.hit_rate() > 0.0 && after.hit_rate() < 1.0);
    }

    #[test]
    fn slices_with_the_same_block_numbers_do_not_share_lines_wrongly() {
        let m = Material::new(0, 1, 0, 1);
        let n = Layout::new(m).size() as usize;
        let a: Vec<u8> = vec![1; n];
        let b: Vec<u8> = vec![2; n];
        let (a, b) = (
            Slice::parse(&encode(m, &a, false)).unwrap(),
            Slice::parse(&encode(m, &b, false)).unwrap(),
        );
        let cache = BlockCache::new(1);
        for i in 0..20 {
            assert_eq!(cache.code(0, &a, i), Some(1));
            assert_eq!(cache.code(1, &b, i), Some(2));
        }
    }
}
