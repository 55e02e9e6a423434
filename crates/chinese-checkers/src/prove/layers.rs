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

use super::{apply, Bounds, Perimeter};
use crate::board::{rotate_half, Holes, HOLES};
use crate::movegen::destinations;
use crate::solve::Puzzle;

/// Why a search stopped before its threshold was settled.
pub(super) enum Stop {
    Memory,
    Nodes,
}

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

/// One end's layers.
struct Side {
    /// The bound toward the other end.
    bounds: Bounds,
    /// Every position kept so far, with its distance from this end.
    seen: Perimeter,
    /// The last layer's keys.
    layer: Vec<u128>,
    sizes: Vec<u64>,
    obstacles: u128,
    long_hop: bool,
}

impl Side {
    fn new(puzzle: &Puzzle) -> Side {
        let bounds = Bounds::new(puzzle);
        let mut seen = Perimeter {
            slots: Vec::new(),
            len: 0,
            depth: 0,
            layers: Vec::new(),
        };
        let start = bounds.key(puzzle.start.0);
        seen.insert(start, 0);
        Side {
            bounds,
            seen,
            layer: vec![start],
            sizes: vec![1],
            obstacles: puzzle.obstacles.0,
            long_hop: puzzle.long_hop,
        }
    }

    /// The next layer: every child of the last one not seen before whose distance plus its bound
    /// fits in `threshold`.
    fn grow(
        &mut self,
        threshold: i32,
        budget: usize,
        nodes: &mut u64,
        max_nodes: u64,
    ) -> Result<(), Stop> {
        let d = self.sizes.len() as u32;
        let mut next = Vec::new();
        for &pieces in &self.layer {
            *nodes += 1;
            if *nodes > max_nodes {
                return Err(Stop::Nodes);
            }
            let occupied = Holes(pieces | self.obstacles);
            for from in Holes(pieces).iter() {
                for to in destinations(occupied, from, self.long_hop).iter() {
                    let child = pieces ^ from.bit().0 ^ to.bit().0;
                    if d as i32 + self.bounds.lower_bound(child) > threshold {
                        continue;
                    }
                    // Growing past the budget doubles the table: stop before.
                    let s = &self.seen;
                    if (s.len + 1) * 3 > s.slots.len() * 2 && s.slots.len() * 32 > budget {
                        return Err(Stop::Memory);
                    }
                    let key = self.bounds.key(child);
                    if self.seen.insert(key, d) {
                        next.push(key);
                    }
                }
            }
        }
        self.sizes.push(next.len() as u64);
        self.layer = next;
        Ok(())
    }

    /// A line of `d` moves from this end to `pieces`, which is at distance `d`: this end first.
    fn line_to(&self, mut pieces: u128, mut d: u32) -> Vec<u128> {
        let mut line = vec![pieces];
        while d > 0 {
            let occupied = Holes(pieces | self.obstacles);
            pieces = Holes(pieces)
                .iter()
                .flat_map(|from| {
                    destinations(occupied, from, self.long_hop)
                        .iter()
                        .map(move |to| pieces ^ from.bit().0 ^ to.bit().0)
                })
                .find(|&c| self.seen.get(self.bounds.key(c)) == Some(d - 1))
                .expect("a position at distance d has a neighbour at distance d - 1");
            line.push(pieces);
            d -= 1;
        }
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

/// Searches for a line of `threshold` moves or fewer (see the module text), with `megabytes` for
/// the tables and at most `max_nodes` positions expanded.
pub(super) fn search(
    puzzle: &Puzzle,
    threshold: u32,
    megabytes: usize,
    max_nodes: u64,
) -> Result<Layered, Stop> {
    let threshold = threshold as i32;
    let turn = turned_round(puzzle);
    let budget = (megabytes << 20) / if turn.is_some() { 1 } else { 2 };
    let mut forward = Side::new(puzzle);
    let mut backward = match turn {
        Some(_) => None,
        None => Some(Side::new(&Puzzle {
            start: puzzle.goal,
            goal: puzzle.start,
            camp: puzzle.camp.opposite(),
            ..*puzzle
        })),
    };
    let mut nodes = 0;
    // The distance from the goal of a position, where the layers so far know it.
    let from_goal = |forward: &Side, backward: &Option<Side>, pieces: u128| match (&turn, backward)
    {
        (Some(map), _) => forward.seen.get(forward.bounds.key(apply(map, pieces))),
        (None, Some(b)) => b.seen.get(b.bounds.key(pieces)),
        (None, None) => unreachable!("one side or the other"),
    };
    let mut meet: Option<(u32, u128, u32)> = None;
    let done = |s: Option<(u32, u128, u32)>| s.is_some();
    if puzzle.start == puzzle.goal {
        meet = Some((0, puzzle.start.0, 0));
    }
    let mut k = 0;
    while !done(meet) {
        k += 1;
        if 2 * k - 1 > threshold || forward.layer.is_empty() {
            break;
        }
        forward.grow(threshold, budget, &mut nodes, max_nodes)?;
        // Lines of 2k - 1 moves (and 2k, turned round): layer k from the start against what the
        // goal's side holds.
        for &p in &forward.layer {
            if let Some(j) = from_goal(&forward, &backward, p) {
                let len = k as u32 + j;
                if len as i32 <= threshold && meet.is_none_or(|(best, _, _)| len < best) {
                    meet = Some((len, p, k as u32));
                }
            }
        }
        if done(meet) || 2 * k > threshold {
            break;
        }
        if let Some(b) = backward.as_mut() {
            if b.layer.is_empty() {
                break;
            }
            b.grow(threshold, budget, &mut nodes, max_nodes)?;
            // Lines of 2k moves: layer k from the goal against the start's side.
            for &q in &b.layer {
                if let Some(i) = forward.seen.get(forward.bounds.key(q)) {
                    let len = i + k as u32;
                    if len as i32 <= threshold && meet.is_none_or(|(best, _, _)| len < best) {
                        meet = Some((len, q, i));
                    }
                }
            }
        }
    }
    let line = meet.map(|(len, p, i)| {
        // `p` may be the mirror image of the line's own position; the mirrored line runs
        // through it as well, and each half is walked from `p` itself.
        let mut line = forward.line_to(p, i);
        let rest = len - i;
        let mut back = match (&turn, &backward) {
            (Some(map), _) => forward
                .line_to(apply(map, p), rest)
                .into_iter()
                .map(|q| apply(map, q))
                .collect::<Vec<_>>(),
            (None, Some(b)) => b.line_to(p, rest),
            (None, None) => unreachable!("one side or the other"),
        };
        // From the goal's side the line runs goal first; it must end at the goal.
        back.reverse();
        join(&mut line, back);
        line
    });
    let stored = forward.seen.len as u64 + backward.as_ref().map_or(0, |b| b.seen.len as u64);
    let bytes = forward.seen.bytes() + backward.as_ref().map_or(0, |b| b.seen.bytes());
    Ok(Layered {
        line,
        nodes,
        stored,
        bytes,
        layers: forward.sizes,
    })
}

/// Appends the second half, whose first position is the first half's last one.
fn join(line: &mut Vec<u128>, back: Vec<u128>) {
    line.pop();
    line.extend(back);
}
