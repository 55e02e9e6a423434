//! Layered A* from both ends: the positions at each distance from the start, and from the goal,
//! a layer at a time, each kept only while its distance plus the lower bound to the other end
//! stays within the threshold `T`; every position is stored once, with its distance.
//!
//! Every position on a line of `L <= T` moves passes that test (its distance is exact and the
//! bound never exceeds the rest), so a shortest line of `L` moves shows up as a position in layer
//! `ceil(L / 2)` from the start that is also in layer `floor(L / 2)` from the goal. Where the goal
//! is the start turned round (the point reflection maps one onto the other and keeps the
//! obstacles), the layers from the goal are those from the start turned round, and only one side
//! is searched. Against depth-first search, each position is expanded once however many move
//! orders reach it, and the search stops halfway.

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

use super::{apply, children, unrank, Bounds, Insert, Perimeter, Stop};
use crate::board::{rotate_half, HOLES};
use crate::solve::Puzzle;

/// What one threshold's search found.
pub(super) struct Layered {
    /// The positions of a shortest line, start and goal included, if one of `threshold` moves
    /// or fewer exists.
    pub line: Option<Vec<u128>>,
    /// Positions expanded.
    pub nodes: u64,
    /// Positions stored, both sides.
    pub stored: u64,
    /// Bytes of the tables, both sides.
    pub bytes: usize,
    /// Positions in each layer from the start (mirror images counted once).
    pub layers: Vec<u64>,
}

/// One end's layers: the search from `puzzle.start` toward `puzzle.goal`.
struct Side {
    puzzle: Puzzle,
    /// The bound toward the other end.
    bounds: Bounds,
    /// Every position kept so far, with its distance from this end.
    seen: Perimeter,
    /// The last layer's compact keys.
    layer: Vec<u64>,
    sizes: Vec<u64>,
}

/// Positions of a layer expanded between two checks of the table's room.
const ROUND: usize = 1 << 18;

/// Positions a thread takes at a time within a round.
const CHUNK: usize = 1 << 10;

impl Side {
    fn new(puzzle: &Puzzle) -> Side {
        let bounds = Bounds::new(puzzle);
        let mut seen = Perimeter::empty();
        let start = bounds.compact(puzzle.start.0);
        seen.add(start, 0);
        Side {
            puzzle: *puzzle,
            bounds,
            seen,
            layer: vec![start],
            sizes: vec![1],
        }
    }

    /// The next layer: every child of the last one not seen before whose distance plus its bound
    /// fits in `threshold`, found by `threads` threads a round of the last layer at a time.
    fn grow(
        &mut self,
        threshold: i32,
        budget: usize,
        nodes: &mut u64,
        max_nodes: u64,
        threads: usize,
    ) -> Result<(), Stop> {
        let d = self.sizes.len() as u32;
        let layer = std::mem::take(&mut self.layer);
        let mut next = Vec::new();
        for whole in layer.chunks(ROUND) {
            // The limit on positions falls inside this round: expand up to it, then stop.
            let left = usize::try_from(max_nodes.saturating_sub(*nodes)).unwrap_or(usize::MAX);
            let round = &whole[..whole.len().min(left)];
            // Room for a few new positions per position expanded, where the budget allows; a
            // round that fills the table anyway stops, and is expanded again once it has grown
            // (what it added is kept, and adding a position twice finds it there).
            self.seen.reserve(round.len() * 4, budget);
            loop {
                let (added, complete) = self.expand(round, d, threshold, threads);
                next.extend(added);
                if complete {
                    break;
                }
                if !self.seen.reserve(self.seen.slots.len() / 4, budget) {
                    return Err(Stop::Memory);
                }
            }
            *nodes += round.len() as u64;
            if round.len() < whole.len() {
                return Err(Stop::Positions);
            }
        }
        self.sizes.push(next.len() as u64);
        self.layer = next;
        Ok(())
    }

    /// Expands `round` on `threads` threads: the keys it added at distance `d`, and whether it
    /// got through (`false`: the table filled up first).
    fn expand(&self, round: &[u64], d: u32, threshold: i32, threads: usize) -> (Vec<u64>, bool) {
        let next_chunk = AtomicUsize::new(0);
        let full = AtomicBool::new(false);
        let k = self.puzzle.start.0.count_ones();
        let work = || {
            let mut added = Vec::new();
            let mut keys = Vec::new();
            'chunks: loop {
                let at = next_chunk.fetch_add(CHUNK, Ordering::Relaxed);
                if at >= round.len() || full.load(Ordering::Relaxed) {
                    break;
                }
                for &key in &round[at..(at + CHUNK).min(round.len())] {
                    // The children's keys first, their slots read at once, then the inserts:
                    // the table's reads (nearly all outside the caches) overlap.
                    keys.clear();
                    for child in children(&self.puzzle, unrank(key, k)) {
                        if d as i32 + self.bounds.lower_bound(child) <= threshold {
                            keys.push(self.bounds.compact(child));
                        }
                    }
                    self.seen.touch(&keys);
                    for &key in &keys {
                        match self.seen.insert(key, d) {
                            Insert::Added => added.push(key),
                            Insert::Present => {}
                            Insert::Full => {
                                full.store(true, Ordering::Relaxed);
                                break 'chunks;
                            }
                        }
                    }
                }
            }
            added
        };
        let added = if threads <= 1 || round.len() <= CHUNK {
            work()
        } else {
            std::thread::scope(|scope| {
                let helpers: Vec<_> = (1..threads).map(|_| scope.spawn(work)).collect();
                let mut added = work();
                for h in helpers {
                    added.extend(h.join().expect("a layer's thread panicked"));
                }
                added
            })
        };
        (added, !full.load(Ordering::Relaxed))
    }

    /// A line of `d` moves from this end to `pieces`, which is at distance `d`: this end first.
    fn line_to(&self, pieces: u128, d: u32) -> Vec<u128> {
        let mut line = vec![pieces];
        line.extend(
            self.seen
                .line_to_goal(&self.puzzle, &self.bounds, pieces, d),
        );
        line.reverse();
        line
    }
}

/// The point reflection as a hole map, if it maps the puzzle onto itself played backwards.
fn turned_round(puzzle: &Puzzle) -> Option<[u8; HOLES]> {
    let mut map = [0u8; HOLES];
    for (i, slot) in map.iter_mut().enumerate() {
        let h = crate::Hole::new(i).expect("hole index");
        *slot = rotate_half(h).index() as u8;
    }
    let symmetric = apply(&map, puzzle.start.0) == puzzle.goal.0
        && apply(&map, puzzle.obstacles.0) == puzzle.obstacles.0;
    symmetric.then_some(map)
}

/// The goal's side of the search.
enum GoalSide {
    /// The goal is the start turned round by this hole map: its layers are the start's turned
    /// round.
    Turned([u8; HOLES]),
    /// Searched on its own: the puzzle played backwards.
    Searched(Box<Side>),
}

impl GoalSide {
    /// The distance from the goal of a position, where the layers so far know it.
    fn distance(&self, forward: &Side, pieces: u128) -> Option<u32> {
        match self {
            GoalSide::Turned(map) => forward.seen.get(forward.bounds.compact(apply(map, pieces))),
            GoalSide::Searched(b) => b.seen.get(b.bounds.compact(pieces)),
        }
    }

    /// A line of `d` moves from `pieces`, at distance `d` from the goal, to the goal.
    fn line_from(&self, forward: &Side, pieces: u128, d: u32) -> Vec<u128> {
        let mut line = match self {
            GoalSide::Turned(map) => forward
                .line_to(apply(map, pieces), d)
                .into_iter()
                .map(|q| apply(map, q))
                .collect(),
            GoalSide::Searched(b) => b.line_to(pieces, d),
        };
        // Walked from the goal's end: turn it to run toward the goal.
        line.reverse();
        line
    }
}

/// Searches for a line of `threshold` moves or fewer (see the module text), with `megabytes` for
/// the tables and at most `max_nodes` positions expanded.
pub(super) fn search(
    puzzle: &Puzzle,
    threshold: u32,
    megabytes: usize,
    max_nodes: u64,
    threads: usize,
) -> Result<Layered, Stop> {
    let threshold = threshold as i32;
    let mut forward = Side::new(puzzle);
    let mut goal_side = match turned_round(puzzle) {
        Some(map) => GoalSide::Turned(map),
        None => GoalSide::Searched(Box::new(Side::new(&Puzzle {
            start: puzzle.goal,
            goal: puzzle.start,
            camp: puzzle.camp.opposite(),
            ..*puzzle
        }))),
    };
    let budget = match goal_side {
        GoalSide::Turned(_) => megabytes << 20,
        GoalSide::Searched(_) => (megabytes << 20) / 2,
    };
    let mut nodes = 0;
    let pieces = puzzle.start.0.count_ones();
    // The shortest meeting so far: its length, the position, and its distance from the start.
    let mut meet: Option<(u32, u128, u32)> = None;
    let offer = |meet: &mut Option<(u32, u128, u32)>, len: u32, at: u128, from_start: u32| {
        if len as i32 <= threshold && meet.is_none_or(|(best, _, _)| len < best) {
            *meet = Some((len, at, from_start));
        }
    };
    if puzzle.start == puzzle.goal {
        offer(&mut meet, 0, puzzle.start.0, 0);
    }
    let mut k = 0;
    while meet.is_none() {
        k += 1;
        if 2 * k - 1 > threshold || forward.layer.is_empty() {
            break;
        }
        forward.grow(threshold, budget, &mut nodes, max_nodes, threads)?;
        // Lines of 2k - 1 moves (and 2k, turned round): layer k from the start against what the
        // goal's side holds.
        for &p in &forward.layer {
            let p = unrank(p, pieces);
            if let Some(j) = goal_side.distance(&forward, p) {
                offer(&mut meet, k as u32 + j, p, k as u32);
            }
        }
        if meet.is_some() || 2 * k > threshold {
            break;
        }
        if let GoalSide::Searched(b) = &mut goal_side {
            if b.layer.is_empty() {
                break;
            }
            b.grow(threshold, budget, &mut nodes, max_nodes, threads)?;
            // Lines of 2k moves: layer k from the goal against the start's side.
            for &q in &b.layer {
                let q = unrank(q, pieces);
                if let Some(i) = forward.seen.get(forward.bounds.compact(q)) {
                    offer(&mut meet, i + k as u32, q, i);
                }
            }
        }
    }
    let line = meet.map(|(len, p, i)| {
        // `p` may be the mirror image of the line's own position; the mirrored line runs
        // through it as well, and each half is walked from `p` itself.
        let mut line = forward.line_to(p, i);
        line.pop();
        line.extend(goal_side.line_from(&forward, p, len - i));
        line
    });
    let searched = match &goal_side {
        GoalSide::Turned(_) => None,
        GoalSide::Searched(b) => Some(b),
    };
    Ok(Layered {
        line,
        nodes,
        stored: (forward.seen.len() + searched.map_or(0, |b| b.seen.len())) as u64,
        bytes: forward.seen.bytes() + searched.map_or(0, |b| b.seen.bytes()),
        layers: forward.sizes,
    })
}
