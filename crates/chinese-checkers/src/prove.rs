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

use std::time::{Duration, Instant};

use crate::board::{Hole, Holes, HOLES};
use crate::movegen::destinations;
use crate::solve::{move_between, Puzzle};
use crate::Move;

/// Rows run from -8 to 8 along the puzzle's axis; index `row + 8`.
const ROWS: usize = 17;

/// Tables the bound reads, for one puzzle.
struct Bounds {
    row: [i8; HOLES],
    class: [u8; HOLES],
    /// The mirror that keeps the axis, hole by hole; `None` when the puzzle is not symmetric.
    mirror: Option<[u8; HOLES]>,
    goal: u128,
    /// Goal pieces at each row and beyond (`at_or_above[i]` for row `i - 8`).
    goal_at_or_above: [i32; ROWS + 1],
    /// Goal pieces at each row and below.
    goal_at_or_below: [i32; ROWS],
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
        let mut goal_at_or_below = [0i32; ROWS];
        let mut acc = 0;
        for i in 0..ROWS {
            acc += goal_rows[i];
            goal_at_or_below[i] = acc;
        }
        let rows_of = |set: Holes| set.iter().map(|h| i32::from(row[h.index()]));
        Bounds {
            goal_rear: rows_of(puzzle.goal).min().unwrap_or(8),
            obstacle_front: rows_of(puzzle.obstacles).max().unwrap_or(-9),
            obstacle_rear: rows_of(puzzle.obstacles).min().unwrap_or(9),
            row,
            class,
            mirror,
            goal: puzzle.goal.0,
            goal_at_or_above,
            goal_at_or_below,
            goal_class,
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
        let mut rows = [0i32; ROWS];
        let mut off_goal_rows = [0i32; ROWS];
        let mut empty_goal_rows = [0i32; ROWS];
        let mut class = [0i32; 4];
        let mut front = self.obstacle_front;
        for h in Holes(pieces).iter() {
            let i = h.index();
            let r = i32::from(self.row[i]);
            rows[(r + 8) as usize] += 1;
            class[self.class[i] as usize] += 1;
            front = front.max(r);
        }
        for h in Holes(pieces & !self.goal).iter() {
            off_goal_rows[(i32::from(self.row[h.index()]) + 8) as usize] += 1;
        }
        for h in Holes(self.goal & !pieces).iter() {
            empty_goal_rows[(i32::from(self.row[h.index()]) + 8) as usize] += 1;
        }
        let off_goal = (pieces & !self.goal).count_ones() as i32;
        let mut best = off_goal;
        let classes: i32 = (0..4).map(|c| (class[c] - self.goal_class[c]).max(0)).sum();
        best = best.max(classes);
        if self.long_hop {
            // A long hop lands any distance beyond the piece it passes: no front or rear count.
            return best;
        }
        // Front: pieces at row t or beyond. Besides the pieces missing there, each piece there
        // off the goal needs a move that does not bring a new piece to row t.
        let (mut at_or_above, mut off_above) = (0, 0);
        for i in (0..ROWS).rev() {
            at_or_above += rows[i];
            off_above += off_goal_rows[i];
            let t = i as i32 - 8;
            let missing = (self.goal_at_or_above[i] - at_or_above).max(0);
            if missing > 0 {
                best = best.max((t - 1 - front).max(0) + missing + off_above);
            }
        }
        // Rear, the same count backwards from the goal: pieces at row u or below.
        let goal_rear = self.goal_rear.min(self.obstacle_rear);
        let (mut at_or_below, mut empty_below) = (0, 0);
        for i in 0..ROWS {
            at_or_below += rows[i];
            empty_below += empty_goal_rows[i];
            let u = i as i32 - 8;
            let extra = (at_or_below - self.goal_at_or_below[i]).max(0);
            if extra > 0 {
                best = best.max((goal_rear - 1 - u).max(0) + extra + empty_below);
            }
        }
        best
    }
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
/// goal. Keys are mirror-folded like the table's; the distance rides in the key's top bits
/// (a position uses 121 of the 128), so an entry is 16 bytes in an open-addressed table.
struct Perimeter {
    slots: Vec<u128>,
    len: usize,
    /// Every position within this many moves is in the set.
    depth: u32,
    /// Positions in each layer, from the goal's (0) on.
    layers: Vec<u64>,
}

const POSITION_BITS: u128 = (1u128 << HOLES) - 1;

impl Perimeter {
    fn empty() -> Perimeter {
        Perimeter {
            slots: Vec::new(),
            len: 0,
            depth: 0,
            layers: Vec::new(),
        }
    }
    /// Whether one more position would double the table past `budget` bytes.
    fn would_outgrow(&self, budget: usize) -> bool {
        (self.len + 1) * 3 > self.slots.len() * 2 && self.slots.len() * 32 > budget
    }
    fn slot_of(&self, key: u128) -> usize {
        let mask = self.slots.len() - 1;
        let h =
            (key as u64 ^ ((key >> 64) as u64).rotate_left(29)).wrapping_mul(0x9e37_79b9_7f4a_7c15);
        (h >> 20) as usize & mask
    }
    /// The exact distance of a folded key, if it is in the set.
    fn get(&self, key: u128) -> Option<u32> {
        if self.slots.is_empty() {
            return None;
        }
        let mask = self.slots.len() - 1;
        let mut i = self.slot_of(key);
        loop {
            let e = self.slots[i];
            if e == 0 {
                return None;
            }
            if e & POSITION_BITS == key {
                return Some((e >> HOLES) as u32);
            }
            i = (i + 1) & mask;
        }
    }
    /// Adds a key at distance `d` unless it is there; whether it was added.
    fn insert(&mut self, key: u128, d: u32) -> bool {
        if (self.len + 1) * 3 > self.slots.len() * 2 {
            let size = (self.slots.len() * 2).max(1024);
            let old = std::mem::replace(&mut self.slots, vec![0; size]);
            for e in old.into_iter().filter(|&e| e != 0) {
                let mut i = self.slot_of(e & POSITION_BITS);
                while self.slots[i] != 0 {
                    i = (i + 1) & (self.slots.len() - 1);
                }
                self.slots[i] = e;
            }
        }
        let mask = self.slots.len() - 1;
        let mut i = self.slot_of(key);
        loop {
            let e = self.slots[i];
            if e == 0 {
                self.slots[i] = key | u128::from(d) << HOLES;
                self.len += 1;
                return true;
            }
            if e & POSITION_BITS == key {
                return false;
            }
            i = (i + 1) & mask;
        }
    }
    fn bytes(&self) -> usize {
        self.slots.len() * 16
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
        p.insert(goal, 0);
        p.layers.push(1);
        let mut layer = vec![goal];
        for d in 1..=max_depth {
            let mut next = Vec::new();
            let mut complete = true;
            'layer: for &pieces in &layer {
                for child in children(puzzle, pieces) {
                    // Growing past the budget doubles the table: stop before.
                    if p.would_outgrow(budget) {
                        complete = false;
                        break 'layer;
                    }
                    let key = bounds.key(child);
                    if p.insert(key, d) {
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
                .find(|&c| self.get(bounds.key(c)) == Some(d - 1))
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
            match self.perimeter.get(key) {
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
    let mut threshold = start_bound;
    while threshold <= limits.max_moves {
        let began_iteration = Instant::now();
        let left = limits.max_nodes.saturating_sub(proof.nodes);
        let found = match layers::search(puzzle, threshold, limits.table_mb, left) {
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
