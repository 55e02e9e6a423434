//! The transposition table, shared by every search thread without locks.
//!
//! Each slot is two `AtomicU64`: the data and `key ^ data`. Threads read and write with relaxed
//! ordering; a write torn by another thread fails the check and reads as a miss, so a racy entry is
//! never trusted. The move stored is only a 12-bit hint; the search matches it against the legal list.

use std::sync::atomic::{AtomicU64, AtomicU8, Ordering::Relaxed};

/// What the stored score says.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub enum Bound {
    /// The exact score.
    Exact = 0,
    /// At least this score (a cut-off).
    Lower = 1,
    /// At most this score (no move beat alpha).
    Upper = 2,
}

/// The `eval` of an entry whose search did not need the static evaluation (no evaluation comes
/// near it: they stay within the scores that are not wins).
pub const NO_EVAL: i32 = i16::MIN as i32;

/// One table entry, unpacked.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub struct Entry {
    /// `Move::key()` of the best move, or 0.
    pub mv: u16,
    /// Score, adjusted to the node (see `score::to_tt`).
    pub score: i32,
    /// Static evaluation of the position, or [`NO_EVAL`].
    pub eval: i32,
    /// Remaining depth of the search that stored it.
    pub depth: u8,
    /// How to read `score`.
    pub bound: Bound,
    /// Search generation that stored it.
    pub age: u8,
}

impl Entry {
    fn pack(&self) -> u64 {
        u64::from(self.mv)
            | u64::from(self.score as i16 as u16) << 16
            | u64::from(self.eval as i16 as u16) << 32
            | u64::from(self.depth) << 48
            | (self.bound as u64) << 56
            | u64::from(self.age & 0x3f) << 58
    }

    fn unpack(d: u64) -> Entry {
        Entry {
            mv: d as u16,
            score: i32::from((d >> 16) as u16 as i16),
            eval: i32::from((d >> 32) as u16 as i16),
            depth: (d >> 48) as u8,
            bound: match (d >> 56) & 3 {
                0 => Bound::Exact,
                1 => Bound::Lower,
                _ => Bound::Upper,
            },
            age: ((d >> 58) & 0x3f) as u8,
        }
    }
}

#[derive(Default)]
struct Slot {
    check: AtomicU64,
    data: AtomicU64,
}

/// Slots per bucket: a key maps to one bucket and may live in any of its slots.
const WAYS: usize = 4;

/// One cache line of slots, so a probe touches memory once.
#[derive(Default)]
#[repr(align(64))]
struct Bucket([Slot; WAYS]);

/// Asks Linux to back the table's memory, not yet touched, with huge pages (2 MiB): a probe
/// goes to a random bucket, and with 4 KiB pages nearly every probe also misses the address
/// translation cache, which costs a second walk through memory. Linux does so on its own only
/// where transparent huge pages are set to `always`; the usual setting is `madvise`. A hint: where
/// it is refused or off, the table works the same.
fn advise_huge_pages(buckets: &Vec<Bucket>) {
    #[cfg(target_os = "linux")]
    {
        let bytes = buckets.capacity() * std::mem::size_of::<Bucket>();
        if bytes >= 4 << 20 {
            // madvise wants a page-aligned start: the first whole page of the allocation.
            let page = 4096;
            let start = buckets.as_ptr() as usize;
            let aligned = start.next_multiple_of(page);
            let len = (bytes - (aligned - start)) / page * page;
            // SAFETY: the range lies within the vector's own allocation, and MADV_HUGEPAGE
            // changes only how the kernel backs those pages, never their contents.
            #[allow(unsafe_code)]
            unsafe {
                libc::madvise(aligned as *mut libc::c_void, len, libc::MADV_HUGEPAGE);
            }
        }
    }
    #[cfg(not(target_os = "linux"))]
    let _ = buckets;
}

/// The shared table.
pub struct Table {
    buckets: Vec<Bucket>,
    age: AtomicU8,
}

impl std::fmt::Debug for Table {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Table({} buckets)", self.buckets.len())
    }
}

impl Table {
    /// A table of about `mib` MiB (at least one bucket). When the memory cannot be had, the size is
    /// halved until it can, so a large setting never aborts the engine.
    #[must_use]
    pub fn new(mib: usize) -> Table {
        let mut n = (mib.max(1).saturating_mul(1024 * 1024) / std::mem::size_of::<Bucket>()).max(1);
        let mut buckets = Vec::new();
        while buckets.try_reserve_exact(n).is_err() && n > 1 {
            n /= 2;
        }
        advise_huge_pages(&buckets);
        buckets.resize_with(n, Bucket::default);
        Table {
            buckets,
            age: AtomicU8::new(0),
        }
    }

    /// Forgets every entry.
    pub fn clear(&self) {
        for s in self.buckets.iter().flat_map(|b| &b.0) {
            s.check.store(0, Relaxed);
            s.data.store(0, Relaxed);
        }
        self.age.store(0, Relaxed);
    }

    /// Starts a new search generation: older entries become cheaper to replace.
    pub fn new_search(&self) {
        self.age.fetch_add(1, Relaxed);
    }

    #[inline]
    fn index(&self, key: u64) -> usize {
        ((u128::from(key) * self.buckets.len() as u128) >> 64) as usize
    }

    #[inline]
    fn bucket(&self, key: u64) -> &[Slot; WAYS] {
        &self.buckets[self.index(key)].0
    }

    /// Asks the processor to start loading `key`'s bucket, so that a probe soon after finds it in
    /// the cache: the table is far larger than the caches, and a probe is a miss otherwise.
    #[inline(always)]
    pub fn prefetch(&self, key: u64) {
        #[cfg(target_arch = "x86_64")]
        {
            let p: *const Bucket = &self.buckets[self.index(key)];
            // SAFETY: a prefetch is a hint. It neither reads memory the program sees nor faults,
            // whatever the address, and SSE (which has it) is part of every x86-64 processor.
            #[allow(unsafe_code)]
            unsafe {
                std::arch::x86_64::_mm_prefetch::<{ std::arch::x86_64::_MM_HINT_T0 }>(p.cast());
            }
        }
        #[cfg(not(target_arch = "x86_64"))]
        let _ = key;
    }

    /// The entry for `key`, if one is stored and intact.
    #[must_use]
    pub fn probe(&self, key: u64) -> Option<Entry> {
        for s in self.bucket(key) {
            let data = s.data.load(Relaxed);
            if data != 0 && s.check.load(Relaxed) ^ data == key {
                return Some(Entry::unpack(data));
            }
        }
        None
    }

    /// Stores an entry: over the same key, else over the shallowest or oldest slot.
    pub fn store(&self, key: u64, mut e: Entry) {
        let age = self.age.load(Relaxed) & 0x3f;
        e.age = age;
        let bucket = self.bucket(key);
        let mut victim = 0;
        let mut worst = i32::MAX;
        for (i, s) in bucket.iter().enumerate() {
            let data = s.data.load(Relaxed);
            if data == 0 || s.check.load(Relaxed) ^ data == key {
                if data != 0 {
                    let old = Entry::unpack(data);
                    // Keep a deeper exact result of this search unless the new one is exact too.
                    if e.mv == 0 {
                        e.mv = old.mv;
                    }
                    if e.eval == NO_EVAL {
                        e.eval = old.eval;
                    }
                    if old.age == age
                        && old.depth > e.depth.saturating_add(2)
                        && e.bound != Bound::Exact
                    {
                        return;
                    }
                }
                victim = i;
                break;
            }
            let old = Entry::unpack(data);
            let stale = i32::from((age.wrapping_sub(old.age)) & 0x3f);
            let value = i32::from(old.depth) - 8 * stale;
            if value < worst {
                worst = value;
                victim = i;
            }
        }
        let d = e.pack();
        bucket[victim].data.store(d, Relaxed);
        bucket[victim].check.store(key ^ d, Relaxed);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stores_and_finds_entries() {
        let t = Table::new(1);
        let e = Entry {
            mv: 0x123,
            score: -2950,
            eval: 17,
            depth: 9,
            bound: Bound::Lower,
            age: 0,
        };
        t.store(0xdead_beef, e);
        assert_eq!(t.probe(0xdead_beef), Some(e));
        assert_eq!(t.probe(0xdead_bee0), None);
        t.clear();
        assert_eq!(t.probe(0xdead_beef), None);
    }

    #[test]
    fn pack_round_trips_extremes() {
        for score in [-30_000, -1, 0, 1, 30_000] {
            let e = Entry {
                mv: 0xfff,
                score,
                eval: -score,
                depth: 255,
                bound: Bound::Upper,
                age: 63,
            };
            assert_eq!(Entry::unpack(e.pack()), e);
        }
    }
}
