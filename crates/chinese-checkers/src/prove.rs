//! Proof of optimality for the solitaire: iterative-deepening A* (IDA*) with an admissible lower
//! bound on the moves still needed, a transposition table of learned bounds, and the left-right
//! mirror folded into the table's key.
//!
//! The bound is the largest of four counts, each of which no line can beat:
//! - **The front.** A piece lands at most one row beyond the furthest hole occupied before the
//!   move (a step gains one row; a hop lands one row beyond the piece it passes), so the front
//!   (the furthest row of pieces and obstacles) advances at most one row a move. For each row
//!   `t`, the front must first reach `t - 1` (moves that put no piece on row `t` or beyond) and
//!   then each piece still missing at `t` or beyond needs a move of its own.
//! - **The rear.** Moves are reversible, so the same count holds backwards from the goal with the
//!   rearmost row: a straggler needs the others to come back and form a bridge.
//! - **Pieces off the goal.** Each needs at least one move.
//! - **Hop classes.** A hop keeps a piece on the same class of holes (both axial coordinates
//!   modulo 2); only a step changes it, one piece at a time. Pieces in a class beyond what the
//!   goal holds of it each need a step.
//!
//! Each IDA* iteration with threshold `T` that finds no line proves that no line of `T` moves or
//! fewer exists; the table keeps, for each position met, the best lower bound learned so far
//! (the least `1 + bound` over its children once all have failed), which stays valid across
//! iterations.
//!
//! The search is bidirectional in the perimeter sense: a breadth-first search back from the
//! goal first stores every position within `k` moves of it with its exact distance. In the
//! forward search, a position found there is known exactly (and closes a line when its distance
//! fits the threshold); any other is at least `k + 1` moves away.

mod layers;

use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use crate::board::{Hole, Holes, HOLES};
use crate::movegen::destinations;
use crate::solve::{move_between, Puzzle};
use crate::Move;

/// Rows run from -8 to 8 along the puzzle's axis; index `row + 8`.
const ROWS: usize = 17;

/// Tables the bound reads, for one puzzle.
struct Bounds {
    /// A piece on each hole in the bound's packed counts: its row's nibble, the same only on
    /// the goal's holes, its hop class's byte.
    row_unit: [u128; HOLES],
    goal_unit: [u128; HOLES],
    class_unit: [u32; HOLES],
    /// The mirror that keeps the axis, hole by hole; `None` when the puzzle is not symmetric.
    mirror: Option<[u8; HOLES]>,
    goal: u128,
    /// Goal pieces at each row and beyond (`at_or_above[i]` for row `i - 8`).
    goal_at_or_above: [i32; ROWS + 1],
    goal_class: [i32; 4],
    goal_rear: i32,
    obstacle_front: i32,
    obstacle_rear: i32,
    long_hop: bool,
}

impl Bounds {
    fn new(puzzle: &Puzzle) -> Bounds {
        let mut row = [0i8; HOLES];
        let mut class = [0u8; HOLES];
        for (i, (r, c)) in row.iter_mut().zip(class.iter_mut()).enumerate() {
            let h = Hole::new(i).expect("hole index");
            *r = puzzle.camp.forward(h);
            let (q, rr, _) = h.cube();
            *c = (q.rem_euclid(2) * 2 + rr.rem_euclid(2)) as u8;
        }
        let mirror = {
            let mut m = [0u8; HOLES];
            for (i, slot) in m.iter_mut().enumerate() {
                let (q, r, s) = Hole::new(i).expect("hole index").cube();
                // Keep the axis coordinate, swap the other two.
                let (q2, r2) = match puzzle.camp.index() % 3 {
                    0 => (s, r),
                    1 => (r, q),
                    _ => (q, s),
                };
                *slot = Hole::at(q2, r2)
                    .expect("the star is mirror-symmetric")
                    .index() as u8;
            }
            let map = |set: u128| apply(&m, set);
            let symmetric = map(puzzle.start.0) == puzzle.start.0
                && map(puzzle.goal.0) == puzzle.goal.0
                && map(puzzle.obstacles.0) == puzzle.obstacles.0;
            symmetric.then_some(m)
        };
        let mut goal_rows = [0i32; ROWS];
        let mut goal_class = [0i32; 4];
        for h in puzzle.goal.iter() {
            goal_rows[(row[h.index()] + 8) as usize] += 1;
            goal_class[class[h.index()] as usize] += 1;
        }
        let mut goal_at_or_above = [0i32; ROWS + 1];
        for i in (0..ROWS).rev() {
            goal_at_or_above[i] = goal_at_or_above[i + 1] + goal_rows[i];
        }
        let row_unit: [u128; HOLES] = std::array::from_fn(|i| 1u128 << (4 * (row[i] + 8)));
        let goal_unit: [u128; HOLES] = std::array::from_fn(|i| {
            if puzzle.goal.0 >> i & 1 == 1 {
                row_unit[i]
            } else {
                0
            }
        });
        let class_unit: [u32; HOLES] = std::array::from_fn(|i| 1u32 << (8 * class[i]));
        let rows_of = |set: Holes| set.iter().map(|h| i32::from(row[h.index()]));
        Bounds {
            goal_rear: rows_of(puzzle.goal).min().unwrap_or(8),
            obstacle_front: rows_of(puzzle.obstacles).max().unwrap_or(-9),
            obstacle_rear: rows_of(puzzle.obstacles).min().unwrap_or(9),
            mirror,
            goal: puzzle.goal.0,
            goal_at_or_above,
            goal_class,
            row_unit,
            goal_unit,
            class_unit,
            long_hop: puzzle.long_hop,
        }
    }

    /// The key of a position in the table: the smaller of it and its mirror image.
    fn key(&self, pieces: u128) -> u128 {
        match &self.mirror {
            Some(m) => pieces.min(apply(m, pieces)),
            None => pieces,
        }
    }

    /// A lower bound on the moves from `pieces` to the goal (see the module text).
    fn lower_bound(&self, pieces: u128) -> i32 {
        // One pass over the pieces, in registers: how many stand on each row and how many of
        // those on the goal (a nibble a row), and in each hop class (a byte a class).
        let (mut rows, mut on_goal_rows, mut classes_packed) = (0u128, 0u128, 0u32);
        for (k, half) in [pieces as u64, (pieces >> 64) as u64]
            .into_iter()
            .enumerate()
        {
            let mut bits = half;
            while bits != 0 {
                let i = bits.trailing_zeros() as usize + 64 * k;
                bits &= bits - 1;
                rows += self.row_unit[i];
                on_goal_rows += self.goal_unit[i];
                classes_packed += self.class_unit[i];
            }
        }
        let row = |packed: u128, i: usize| ((packed >> (4 * i)) & 0xf) as i32;
        let class = |c: usize| ((classes_packed >> (8 * c)) & 0xff) as i32;
        let top = (127 - (rows | 1).leading_zeros() as usize) / 4;
        let front = self.obstacle_front.max(top as i32 - 8);
        let off_goal = (pieces & !self.goal).count_ones() as i32;
        let mut best = off_goal;
        let classes: i32 = (0..4).map(|c| (class(c) - self.goal_class[c]).max(0)).sum();
        best = best.max(classes);
        if self.long_hop {
            // A long hop lands any distance beyond the piece it passes: no front or rear count.
            return best;
        }
        // Front: pieces at row t or beyond. Besides the pieces missing there, each piece there
        // off the goal needs a move that does not bring a new piece to row t. Below the goal's
        // rearmost row every goal hole is at t or beyond, so the pieces missing plus those off
        // the goal there are the pieces off the goal, whatever t: the goal's rearmost row
        // counts the most of those rows, and the rows below it are left out.
        let goal_rear = (self.goal_rear + 8) as usize;
        let (mut at_or_above, mut off_above) = (0, 0);
        for i in (goal_rear..ROWS).rev() {
            at_or_above += row(rows, i);
            off_above += row(rows, i) - row(on_goal_rows, i);
            let t = i as i32 - 8;
            let missing = (self.goal_at_or_above[i] - at_or_above).max(0);
            if missing > 0 {
                best = best.max((t - 1 - front).max(0) + missing + off_above);
            }
        }
        // Rear, the same count backwards from the goal: pieces at row u or below. From the
        // goal's (or the obstacles') rearmost row on, the pieces beyond the goal's there plus
        // the empty goal holes are pieces off the goal, counted above: those rows are left out.
        let rear = self.goal_rear.min(self.obstacle_rear);
        let mut at_or_below = 0;
        for i in 0..(rear + 8).max(0) as usize {
            at_or_below += row(rows, i);
            if at_or_below > 0 {
                best = best.max(rear - 1 - (i as i32 - 8) + at_or_below);
            }
        }
        best
    }

    /// The compact key of a position: the colex rank of [`Self::key`]'s holes.
    fn compact(&self, pieces: u128) -> u64 {
        rank(self.key(pieces))
    }
}

/// Binomial coefficients C(n, k) for the holes (n up to 127) and up to ten pieces.
static BINOMIAL: [[u64; 11]; 128] = binomials();

const fn binomials() -> [[u64; 11]; 128] {
    let mut t = [[0u64; 11]; 128];
    let mut n = 0;
    while n < 128 {
        t[n][0] = 1;
        let mut k = 1;
        while k <= 10 && k <= n {
            t[n][k] = t[n - 1][k - 1] + if k < n { t[n - 1][k] } else { 0 };
            k += 1;
        }
        n += 1;
    }
    t
}

/// Most pieces a compact key holds: C(121, 10) < 2^47.
const MAX_PIECES: u32 = 10;

/// The colex rank of a set of at most [`MAX_PIECES`] holes: a dense number below C(121, k).
fn rank(set: u128) -> u64 {
    debug_assert!(set.count_ones() <= MAX_PIECES);
    let mut r = 0;
    let mut k = 1;
    let mut bits = set;
    while bits != 0 {
        r += BINOMIAL[bits.trailing_zeros() as usize][k];
        bits &= bits - 1;
        k += 1;
    }
    r
}

/// The set of `k` holes of colex rank `r`.
fn unrank(mut r: u64, k: u32) -> u128 {
    let mut set = 0u128;
    let mut top = HOLES;
    for i in (1..=k as usize).rev() {
        // The largest n below `top` with C(n, i) <= r.
        let (mut lo, mut hi) = (i - 1, top);
        while hi - lo > 1 {
            let mid = (lo + hi) / 2;
            if BINOMIAL[mid][i] <= r {
                lo = mid;
            } else {
                hi = mid;
            }
        }
        set |= 1u128 << lo;
        r -= BINOMIAL[lo][i];
        top = lo;
    }
    set
}

fn apply(map: &[u8; HOLES], set: u128) -> u128 {
    let mut out = 0u128;
    for h in Holes(set).iter() {
        out |= 1u128 << map[h.index()];
    }
    out
}

/// Every position one move from `pieces`; moves are reversible, so these are also the positions
/// one move before it.
fn children(puzzle: &Puzzle, pieces: u128) -> impl Iterator<Item = u128> + '_ {
    let occupied = Holes(pieces | puzzle.obstacles.0);
    Holes(pieces).iter().flat_map(move |from| {
        destinations(occupied, from, puzzle.long_hop)
            .iter()
            .map(move |to| pieces ^ from.bit().0 ^ to.bit().0)
    })
}

/// A lower bound on the moves the puzzle still needs from `pieces` (exposed for tests).
pub fn lower_bound(puzzle: &Puzzle, pieces: Holes) -> u32 {
    Bounds::new(puzzle).lower_bound(pieces.0) as u32
}

/// A fixed-size table of learned lower bounds, keyed by the whole (mirror-folded) position, so
/// that a hit is never a collision: every bound it returns is proven.
struct Table {
    keys: Vec<u128>,
    bounds: Vec<u8>,
    shift: u32,
    stored: u64,
}

impl Table {
    fn new(megabytes: usize) -> Table {
        let entries = (megabytes.max(1) << 20) / 17;
        let size = entries.next_power_of_two() / 2;
        let size = size.max(1024);
        Table {
            keys: vec![0; size],
            bounds: vec![0; size],
            shift: 64 - size.trailing_zeros(),
            stored: 0,
        }
    }
    fn bytes(&self) -> usize {
        self.keys.len() * 17
    }
    fn slot(&self, key: u128) -> usize {
        // The top bits of the product depend on every bit of the key.
        let h =
            (key as u64 ^ ((key >> 64) as u64).rotate_left(29)).wrapping_mul(0x9e37_79b9_7f4a_7c15);
        (h >> self.shift) as usize
    }
    fn get(&self, key: u128) -> u8 {
        let i = self.slot(key);
        if self.keys[i] == key {
            self.bounds[i]
        } else {
            0
        }
    }
    fn put(&mut self, key: u128, bound: u8) {
        let i = self.slot(key);
        if self.keys[i] != key {
            self.stored += 1;
        }
        self.keys[i] = key;
        self.bounds[i] = bound;
    }
}

/// The perimeter: every position within `depth` moves of the goal, with its exact distance,
/// found by a breadth-first search back from the goal (moves are reversible, so the positions
/// one move from the goal are the goal's children). A position met in the forward search is
/// either in it, and then its distance is known exactly, or at least `depth + 1` moves from the
/// goal. The layered search keeps its layers in the same set.
///
/// Keys are compact (the colex rank of the mirror-folded holes, under 2^47) and the distance
/// plus one rides in an entry's top 16 bits, so an entry is 8 bytes, never 0, in an
/// open-addressed table. Threads add entries at once (a compare-and-swap claims an empty
/// slot); only growing the table needs it alone ([`Perimeter::reserve`]).
struct Perimeter {
    slots: Vec<AtomicU64>,
    len: AtomicUsize,
    /// Every position within this many moves is in the set.
    depth: u32,
    /// Positions in each layer, from the goal's (0) on.
    layers: Vec<u64>,
}

/// The key's bits in an entry; the distance plus one is above them.
const KEY_BITS: u64 = (1 << 48) - 1;

/// What [`Perimeter::insert`] did.
#[derive(PartialEq, Eq)]
enum Insert {
    Added,
    Present,
    /// The table is too full to take it: grow it and try again.
    Full,
}

impl Perimeter {
    fn empty() -> Perimeter {
        Perimeter {
            slots: Vec::new(),
            len: AtomicUsize::new(0),
            depth: 0,
            layers: Vec::new(),
        }
    }
    fn len(&self) -> usize {
        self.len.load(Ordering::Relaxed)
    }
    /// Whether `extra` more positions keep the load within seven eighths.
    fn fits(&self, extra: usize) -> bool {
        (self.len() + extra) * 8 <= self.slots.len() * 7
    }
    /// Grows the table (doubling) until `extra` more positions fit; `false`, leaving it as it
    /// is, if the old and the new table together would take more than `budget` bytes.
    fn reserve(&mut self, extra: usize, budget: usize) -> bool {
        if self.fits(extra) {
            return true;
        }
        let mut size = self.slots.len().max(1024);
        while (self.len() + extra) * 8 > size * 7 {
            size *= 2;
        }
        if (size + self.slots.len()) * 8 > budget && !self.slots.is_empty() {
            return false;
        }
        let old = std::mem::replace(
            &mut self.slots,
            (0..size).map(|_| AtomicU64::new(0)).collect(),
        );
        for e in old
            .into_iter()
            .map(AtomicU64::into_inner)
            .filter(|&e| e != 0)
        {
            let mask = size - 1;
            let mut i = self.slot_of(e & KEY_BITS);
            while *self.slots[i].get_mut() != 0 {
                i = (i + 1) & mask;
            }
            *self.slots[i].get_mut() = e;
        }
        true
    }
    fn slot_of(&self, key: u64) -> usize {
        let mask = self.slots.len() - 1;
        (key.wrapping_mul(0x9e37_79b9_7f4a_7c15) >> 20) as usize & mask
    }
    /// Reads the slots of `keys` in one go, so that the reads (nearly all outside the caches)
    /// overlap and the inserts that follow find them in the cache.
    fn touch(&self, keys: &[u64]) {
        if self.slots.is_empty() {
            return;
        }
        let any = keys.iter().fold(0, |acc, &key| {
            acc ^ self.slots[self.slot_of(key)].load(Ordering::Relaxed)
        });
        std::hint::black_box(any);
    }
    /// The exact distance of a compact key, if it is in the set.
    fn get(&self, key: u64) -> Option<u32> {
        if self.slots.is_empty() {
            return None;
        }
        let mask = self.slots.len() - 1;
        let mut i = self.slot_of(key);
        loop {
            let e = self.slots[i].load(Ordering::Relaxed);
            if e == 0 {
                return None;
            }
            if e & KEY_BITS == key {
                return Some((e >> 48) as u32 - 1);
            }
            i = (i + 1) & mask;
        }
    }
    /// Adds a compact key at distance `d` unless it is there. Refuses past fifteen sixteenths of
    /// the slots, where probing would grow long (and the last empty slot must stay empty).
    fn insert(&self, key: u64, d: u32) -> Insert {
        debug_assert!(key <= KEY_BITS && d < 0xffff);
        if self.slots.is_empty() || self.len() * 16 >= self.slots.len() * 15 {
            return Insert::Full;
        }
        let entry = key | u64::from(d + 1) << 48;
        let mask = self.slots.len() - 1;
        let mut i = self.slot_of(key);
        loop {
            let slot = &self.slots[i];
            let mut e = slot.load(Ordering::Relaxed);
            if e == 0 {
                match slot.compare_exchange(0, entry, Ordering::Relaxed, Ordering::Relaxed) {
                    Ok(_) => {
                        self.len.fetch_add(1, Ordering::Relaxed);
                        return Insert::Added;
                    }
                    // Another thread took the slot first: look at what it wrote.
                    Err(now) => e = now,
                }
            }
            if e & KEY_BITS == key {
                return Insert::Present;
            }
            i = (i + 1) & mask;
        }
    }
    /// Adds a key at distance `d` unless it is there, growing the table as needed; whether it
    /// was added.
    fn add(&mut self, key: u64, d: u32) -> bool {
        self.reserve(1, usize::MAX);
        self.insert(key, d) == Insert::Added
    }
    fn bytes(&self) -> usize {
        self.slots.len() * 8
    }

    /// Breadth-first search back from the goal, a layer at a time, up to `max_depth` layers and
    /// while the table fits in `megabytes`. A layer cut short leaves its positions in (their
    /// distances are exact) but does not count in `depth`.
    fn build(puzzle: &Puzzle, bounds: &Bounds, max_depth: u32, megabytes: usize) -> Perimeter {
        let mut p = Perimeter::empty();
        if max_depth == 0 || megabytes == 0 {
            return p;
        }
        let budget = megabytes << 20;
        let goal = bounds.key(puzzle.goal.0);
        p.add(rank(goal), 0);
        p.layers.push(1);
        let mut layer = vec![goal];
        for d in 1..=max_depth {
            let mut next = Vec::new();
            let mut complete = true;
            'layer: for &pieces in &layer {
                for child in children(puzzle, pieces) {
                    // Growing past the budget doubles the table: stop before.
                    if !p.reserve(1, budget) {
                        complete = false;
                        break 'layer;
                    }
                    let key = bounds.key(child);
                    if p.insert(rank(key), d) == Insert::Added {
                        next.push(key);
                    }
                }
            }
            p.layers.push(next.len() as u64);
            if !complete || next.is_empty() {
                break;
            }
            p.depth = d;
            layer = next;
        }
        p
    }

    /// From `pieces` at distance `d`, a line of `d` moves through the set to the position it
    /// was built from (the goal for the perimeter), `pieces` itself left out.
    fn line_to_goal(
        &self,
        puzzle: &Puzzle,
        bounds: &Bounds,
        mut pieces: u128,
        mut d: u32,
    ) -> Vec<u128> {
        let mut line = Vec::with_capacity(d as usize);
        while d > 0 {
            let next = children(puzzle, pieces)
                .find(|&c| self.get(bounds.compact(c)) == Some(d - 1))
                .expect("a position at distance d has a child at distance d - 1");
            line.push(next);
            pieces = next;
            d -= 1;
        }
        line
    }
}

/// What a proof search found.
#[derive(Clone, Debug)]
pub struct Proof {
    /// A shortest line, if one was found within the limits.
    pub line: Option<Vec<Move>>,
    /// No line of this many moves or fewer exists (proved by the bound at the start and the
    /// iterations completed); `None` if the start is the goal.
    pub no_line_within: Option<u32>,
    /// The lower bound at the start position.
    pub start_bound: u32,
    /// Positions searched, over all iterations.
    pub nodes: u64,
    /// Positions stored in the table.
    pub stored: u64,
    /// Size of the table in bytes.
    pub table_bytes: usize,
    /// Wall time.
    pub elapsed: Duration,
    /// One entry per completed iteration.
    pub iterations: Vec<Iteration>,
    /// Every position within this many moves of the goal was stored with its distance.
    pub perimeter_depth: u32,
    /// Positions stored in the perimeter, layer by layer from the goal (a last layer cut short
    /// by the memory limit included).
    pub perimeter_layers: Vec<u64>,
    /// Size of the perimeter's table in bytes.
    pub perimeter_bytes: usize,
    /// Time spent building the perimeter.
    pub perimeter_time: Duration,
    /// Why the search stopped short, if it did.
    pub stopped_by: Option<Stop>,
}

/// What stopped a proof search short.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Stop {
    /// The limit on positions (`ProofLimits::max_nodes`).
    Positions,
    /// The memory for the layers (`ProofLimits::table_mb`).
    Memory,
}

/// One completed iteration.
#[derive(Clone, Debug)]
pub struct Iteration {
    /// No line of this many moves or fewer exists.
    pub threshold: u32,
    /// Positions searched (IDA*) or expanded (layers) in it.
    pub nodes: u64,
    /// Its time.
    pub time: Duration,
    /// Layers only: the positions kept in each layer from the start.
    pub layers: Vec<u64>,
}

/// How the proof searches.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Method {
    /// Layered A* from both ends, each position stored once (`prove/layers.rs`).
    Layers,
    /// Iterative-deepening A*, depth first, with a table of learned bounds and the perimeter.
    Ida,
}

/// Limits of a proof search.
#[derive(Copy, Clone, Debug)]
pub struct ProofLimits {
    /// Stop after this many positions.
    pub max_nodes: u64,
    /// Table size in megabytes.
    pub table_mb: usize,
    /// Stop looking beyond this many moves (a known line's length: proving that nothing
    /// shorter exists needs only the iterations below it).
    pub max_moves: u32,
    /// Depth of the perimeter around the goal (0: none).
    pub perimeter: u32,
    /// Memory for the perimeter in megabytes; it stops at the last layer that fits.
    pub perimeter_mb: usize,
    /// The search; with [`Method::Layers`], `table_mb` is the memory for its layers and the
    /// perimeter is not used.
    pub method: Method,
    /// Layers only: the first threshold searched, if above the start's bound. A layered search
    /// with threshold `T` finds a line of `T` moves or fewer if there is one, so one search at
    /// `T` proves alone that none exists; the ones below only find the shortest line sooner.
    pub min_moves: u32,
    /// Layers only: threads that expand each layer.
    pub threads: usize,
}

enum Outcome {
    Found,
    Bound(i32),
    Stopped,
}

struct Ida<'a> {
    puzzle: &'a Puzzle,
    bounds: Bounds,
    table: Table,
    perimeter: Perimeter,
    nodes: u64,
    max_nodes: u64,
    path: Vec<u128>,
    kids: Vec<Vec<(i32, u128)>>,
}

impl Ida<'_> {
    fn search(&mut self, pieces: u128, g: i32, threshold: i32) -> Outcome {
        self.nodes += 1;
        if self.nodes > self.max_nodes {
            return Outcome::Stopped;
        }
        if pieces == self.bounds.goal {
            return Outcome::Found;
        }
        let key = self.bounds.key(pieces);
        let mut h = self
            .bounds
            .lower_bound(pieces)
            .max(i32::from(self.table.get(key)));
        if g + h > threshold {
            return Outcome::Bound(h);
        }
        if self.perimeter.depth > 0 {
            match self.perimeter.get(rank(key)) {
                Some(d) if g + d as i32 <= threshold => {
                    let rest = self
                        .perimeter
                        .line_to_goal(self.puzzle, &self.bounds, pieces, d);
                    self.path.extend(rest);
                    return Outcome::Found;
                }
                Some(d) => return Outcome::Bound(d as i32),
                None => h = h.max(self.perimeter.depth as i32 + 1),
            }
            if g + h > threshold {
                return Outcome::Bound(h);
            }
        }
        let depth = g as usize;
        if self.kids.len() <= depth {
            self.kids.push(Vec::new());
        }
        let mut kids = std::mem::take(&mut self.kids[depth]);
        kids.clear();
        let occ = Holes(pieces | self.puzzle.obstacles.0);
        for from in Holes(pieces).iter() {
            for to in destinations(occ, from, self.puzzle.long_hop).iter() {
                let child = pieces ^ from.bit().0 ^ to.bit().0;
                kids.push((self.bounds.lower_bound(child), child));
            }
        }
        // Nearest first, so the last iteration meets a line early.
        kids.sort_unstable_by_key(|&(b, c)| (b, c));
        let mut best = i32::MAX;
        let mut outcome = None;
        for &(_, child) in &kids {
            self.path.push(child);
            match self.search(child, g + 1, threshold) {
                Outcome::Found => {
                    outcome = Some(Outcome::Found);
                    break;
                }
                Outcome::Stopped => {
                    self.path.pop();
                    outcome = Some(Outcome::Stopped);
                    break;
                }
                Outcome::Bound(b) => best = best.min(b.saturating_add(1)),
            }
            self.path.pop();
        }
        self.kids[depth] = kids;
        if let Some(o) = outcome {
            return o;
        }
        // Every child failed: the least of their bounds plus one is a proven bound here.
        let learned = best.max(h).min(i32::from(u8::MAX));
        self.table.put(key, learned as u8);
        Outcome::Bound(learned)
    }
}

/// Proves the length of the shortest line by IDA*: iterations with a rising threshold, each
/// searching every line within it; the first that reaches the goal gives a shortest line.
pub fn prove(puzzle: &Puzzle, limits: ProofLimits) -> Proof {
    if limits.method == Method::Layers {
        return prove_by_layers(puzzle, limits);
    }
    let began = Instant::now();
    let bounds = Bounds::new(puzzle);
    let start_bound = bounds.lower_bound(puzzle.start.0);
    let built = Instant::now();
    let perimeter = Perimeter::build(puzzle, &bounds, limits.perimeter, limits.perimeter_mb);
    let perimeter_time = built.elapsed();
    let mut ida = Ida {
        puzzle,
        bounds,
        table: Table::new(limits.table_mb),
        perimeter,
        nodes: 0,
        max_nodes: limits.max_nodes,
        path: Vec::new(),
        kids: Vec::new(),
    };
    let mut proof = Proof {
        line: None,
        // The bound itself proves that much.
        no_line_within: (start_bound as u32).checked_sub(1),
        start_bound: start_bound as u32,
        nodes: 0,
        stored: 0,
        table_bytes: ida.table.bytes(),
        elapsed: Duration::ZERO,
        iterations: Vec::new(),
        perimeter_depth: ida.perimeter.depth,
        perimeter_layers: ida.perimeter.layers.clone(),
        perimeter_bytes: ida.perimeter.bytes(),
        perimeter_time,
        stopped_by: None,
    };
    let mut threshold = start_bound;
    loop {
        if threshold > limits.max_moves as i32 {
            break;
        }
        let before = ida.nodes;
        let began_iteration = Instant::now();
        ida.path.clear();
        match ida.search(puzzle.start.0, 0, threshold) {
            Outcome::Found => {
                let mut moves = Vec::with_capacity(ida.path.len());
                let mut at = puzzle.start.0;
                for &next in &ida.path {
                    moves.push(move_between(at, next));
                    at = next;
                }
                if threshold > 0 {
                    proof.no_line_within = Some(moves.len() as u32 - 1);
                }
                proof.line = Some(moves);
                break;
            }
            Outcome::Stopped => {
                proof.stopped_by = Some(Stop::Positions);
                break;
            }
            Outcome::Bound(b) => {
                proof.iterations.push(Iteration {
                    threshold: threshold as u32,
                    nodes: ida.nodes - before,
                    time: began_iteration.elapsed(),
                    layers: Vec::new(),
                });
                proof.no_line_within = Some(b as u32 - 1);
                if b == i32::from(u8::MAX) {
                    break;
                }
                threshold = b;
            }
        }
    }
    proof.nodes = ida.nodes;
    proof.stored = ida.table.stored;
    proof.elapsed = began.elapsed();
    proof
}

/// The proof by layers: one layered search for each threshold from the start's bound on, each
/// from scratch (a higher threshold keeps more of every layer); the first that meets gives a
/// shortest line.
fn prove_by_layers(puzzle: &Puzzle, limits: ProofLimits) -> Proof {
    let began = Instant::now();
    let start_bound = Bounds::new(puzzle).lower_bound(puzzle.start.0) as u32;
    let mut proof = Proof {
        line: None,
        no_line_within: start_bound.checked_sub(1),
        start_bound,
        nodes: 0,
        stored: 0,
        table_bytes: 0,
        elapsed: Duration::ZERO,
        iterations: Vec::new(),
        perimeter_depth: 0,
        perimeter_layers: Vec::new(),
        perimeter_bytes: 0,
        perimeter_time: Duration::ZERO,
        stopped_by: None,
    };
    let mut threshold = start_bound.max(limits.min_moves);
    while threshold <= limits.max_moves {
        let began_iteration = Instant::now();
        let left = limits.max_nodes.saturating_sub(proof.nodes);
        let found = match layers::search(puzzle, threshold, limits.table_mb, left, limits.threads) {
            Ok(found) => found,
            Err(stop) => {
                proof.stopped_by = Some(stop);
                break;
            }
        };
        proof.nodes += found.nodes;
        proof.stored = found.stored;
        proof.table_bytes = proof.table_bytes.max(found.bytes);
        if let Some(line) = found.line {
            let moves: Vec<Move> = line.windows(2).map(|w| move_between(w[0], w[1])).collect();
            proof.no_line_within = (moves.len() as u32).checked_sub(1);
            proof.line = Some(moves);
            break;
        }
        proof.iterations.push(Iteration {
            threshold,
            nodes: found.nodes,
            time: began_iteration.elapsed(),
            layers: found.layers,
        });
        proof.no_line_within = Some(threshold);
        threshold += 1;
    }
    proof.elapsed = began.elapsed();
    proof
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn compact_keys_are_dense_and_decode_back() {
        // The ten holes at the end of the reading order have the largest rank of all.
        let last: u128 = ((1u128 << 10) - 1) << (HOLES - 10);
        assert_eq!(rank(last), BINOMIAL[HOLES][10] - 1);
        assert!(rank(last) <= KEY_BITS);
        assert_eq!(rank((1 << 10) - 1), 0);
        // A spread of sets of every size round-trips.
        let mut x = 0x2545_f491_4f6c_dd1d_u64;
        for k in 0..=MAX_PIECES {
            for _ in 0..200 {
                let mut set = 0u128;
                while set.count_ones() < k {
                    x ^= x << 13;
                    x ^= x >> 7;
                    x ^= x << 17;
                    set |= 1u128 << (x % HOLES as u64);
                }
                let r = rank(set);
                assert!(r < BINOMIAL[HOLES][k as usize].max(1));
                assert_eq!(unrank(r, k), set);
            }
        }
    }

    /// The four counts of the module text, every row taken.
    fn plain_bound(puzzle: &Puzzle, pieces: u128) -> i32 {
        let row = |i: usize| i32::from(puzzle.camp.forward(Hole::new(i).expect("hole")));
        let class = |i: usize| {
            let (q, r, _) = Hole::new(i).expect("hole").cube();
            (q.rem_euclid(2) * 2 + r.rem_euclid(2)) as usize
        };
        let holes = |set: u128| (0..HOLES).filter(move |&i| set >> i & 1 == 1);
        let count = |set: u128, f: &dyn Fn(i32) -> bool| holes(set).filter(|&i| f(row(i))).count();
        let (goal, obstacles) = (puzzle.goal.0, puzzle.obstacles.0);
        let mut best = (pieces & !goal).count_ones() as i32;
        let (mut have, mut want) = ([0i32; 4], [0i32; 4]);
        holes(pieces).for_each(|i| have[class(i)] += 1);
        holes(goal).for_each(|i| want[class(i)] += 1);
        best = best.max((0..4).map(|c| (have[c] - want[c]).max(0)).sum());
        let front = holes(pieces | obstacles).map(row).max().unwrap_or(-9);
        let rear = holes(goal | obstacles).map(row).min().unwrap_or(9);
        for t in -8..=8 {
            let missing = count(goal, &|r| r >= t) as i32 - count(pieces, &|r| r >= t) as i32;
            if missing > 0 {
                let off = count(pieces & !goal, &|r| r >= t) as i32;
                best = best.max((t - 1 - front).max(0) + missing + off);
            }
            let extra = count(pieces, &|r| r <= t) as i32 - count(goal, &|r| r <= t) as i32;
            if extra > 0 {
                let empty = count(goal & !pieces, &|r| r <= t) as i32;
                best = best.max((rear - 1 - t).max(0) + extra + empty);
            }
        }
        best
    }

    #[test]
    fn the_bound_is_the_four_counts_of_every_row() {
        let puzzle = Puzzle::camp_to_camp(crate::Camp::ALL[0]);
        let bounds = Bounds::new(&puzzle);
        // Positions along random walks from the start, and the same walks with obstacles.
        let mut x = 0x9e37_79b9_7f4a_7c15_u64;
        for walk in 0..60 {
            let puzzle = Puzzle {
                obstacles: if walk % 2 == 0 {
                    Holes::EMPTY
                } else {
                    Holes(1u128 << 60 | 1u128 << (40 + walk))
                },
                ..puzzle
            };
            let bounds = if walk % 2 == 0 {
                &bounds
            } else {
                &Bounds::new(&puzzle)
            };
            let mut pieces = puzzle.start.0;
            for _ in 0..40 {
                assert_eq!(bounds.lower_bound(pieces), plain_bound(&puzzle, pieces));
                let kids: Vec<u128> = children(&puzzle, pieces).collect();
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                pieces = kids[(x % kids.len() as u64) as usize];
            }
        }
    }

    #[test]
    fn threads_add_each_key_once() {
        let mut seen = Perimeter::empty();
        assert!(seen.reserve(40_000, usize::MAX));
        let added = AtomicUsize::new(0);
        std::thread::scope(|scope| {
            for _ in 0..4 {
                scope.spawn(|| {
                    for key in 0..30_000u64 {
                        if seen.insert(key * 7919, 3) == Insert::Added {
                            added.fetch_add(1, Ordering::Relaxed);
                        }
                    }
                });
            }
        });
        assert_eq!(added.into_inner(), 30_000);
        assert_eq!(seen.len(), 30_000);
        assert_eq!(seen.get(7919 * 29_999), Some(3));
        assert_eq!(seen.get(1), None);
    }
}
