//! The solitaire: one player alone brings its pieces from its camp into the one across in as few
//! moves as it can. The published optimum for ten pieces is 27 moves (Levenspiel, 1971; proved
//! optimal by G. I. Bell, "The shortest game of Chinese Checkers and related problems",
//! INTEGERS 9, 2009).
//!
//! [`beam`] searches level by level: every position one move deeper than the kept ones,
//! duplicates merged, and the `width` nearest to the goal (by the total distance along the axis)
//! kept. It is not exhaustive, so its length is an upper bound; with a width of 10,000 it finds a
//! 27-move line. [`shortest`] is an exhaustive breadth-first search, exact but only for small
//! puzzles (a few pieces); the tests hold the two against each other there.

use std::collections::HashMap;

use crate::board::{Camp, Holes};
use crate::movegen::{destinations, Move};

/// A one-player puzzle: move the pieces on `start` onto `goal`; `obstacles` never move.
#[derive(Copy, Clone, Debug)]
pub struct Puzzle {
    /// Where the pieces stand.
    pub start: Holes,
    /// Where they must end, as many holes as pieces.
    pub goal: Holes,
    /// Pieces of others that stay where they are.
    pub obstacles: Holes,
    /// The camp whose axis measures the distance (the player's home camp).
    pub camp: Camp,
    /// Rule option: the long hop.
    pub long_hop: bool,
}

impl Puzzle {
    /// The classic puzzle: the ten pieces of `camp` into the camp across, on an empty board.
    pub fn camp_to_camp(camp: Camp) -> Puzzle {
        Puzzle {
            start: camp.holes(),
            goal: camp.opposite().holes(),
            obstacles: Holes::EMPTY,
            camp,
            long_hop: false,
        }
    }

    fn children(&self, pieces: u128, out: &mut Vec<u128>) {
        let occ = Holes(pieces | self.obstacles.0);
        for from in Holes(pieces).iter() {
            for to in destinations(occ, from, self.long_hop).iter() {
                out.push(pieces ^ from.bit().0 ^ to.bit().0);
            }
        }
    }

    /// Total distance still to go along the axis (0 at the goal when the goal is the far camp).
    fn distance(&self, pieces: u128) -> i32 {
        Holes(pieces)
            .iter()
            .map(|h| 8 - i32::from(self.camp.forward(h)))
            .sum()
    }
}

/// The move that turns `before` into `after` (one piece moved).
pub(crate) fn move_between(before: u128, after: u128) -> Move {
    let from = Holes(before & !after).iter().next().expect("a piece left");
    let to = Holes(after & !before)
        .iter()
        .next()
        .expect("a piece arrived");
    Move { from, to }
}

fn line(levels: &[HashMap<u128, u128>], end: u128) -> Vec<Move> {
    let mut moves = Vec::with_capacity(levels.len());
    let mut at = end;
    for level in levels.iter().rev() {
        let parent = level[&at];
        moves.push(move_between(parent, at));
        at = parent;
    }
    moves.reverse();
    moves
}

/// Beam search of width `width`, at most `max_moves` deep: a line to the goal, or `None`.
/// Deterministic: ties are broken by the position's bits.
pub fn beam(puzzle: &Puzzle, width: usize, max_moves: usize) -> Option<Vec<Move>> {
    if puzzle.start == puzzle.goal {
        return Some(Vec::new());
    }
    let goal = puzzle.goal.0;
    let mut kept = vec![puzzle.start.0];
    let mut levels: Vec<HashMap<u128, u128>> = Vec::new();
    let mut kids = Vec::new();
    for _ in 0..max_moves {
        let mut next: HashMap<u128, u128> = HashMap::with_capacity(kept.len() * 64);
        for &p in &kept {
            kids.clear();
            puzzle.children(p, &mut kids);
            for &c in &kids {
                next.entry(c).or_insert(p);
            }
        }
        if next.contains_key(&goal) {
            levels.push(next);
            return Some(line(&levels, goal));
        }
        let mut ranked: Vec<(i32, u128)> = next.keys().map(|&c| (puzzle.distance(c), c)).collect();
        ranked.sort_unstable();
        ranked.truncate(width);
        kept = ranked.into_iter().map(|(_, c)| c).collect();
        levels.push(next);
        if kept.is_empty() {
            return None;
        }
    }
    None
}

/// Exhaustive breadth-first search: a shortest line, or `None` if none within `max_moves` or the
/// search would hold more than `max_states` positions.
pub fn shortest(puzzle: &Puzzle, max_moves: usize, max_states: usize) -> Option<Vec<Move>> {
    if puzzle.start == puzzle.goal {
        return Some(Vec::new());
    }
    let goal = puzzle.goal.0;
    let mut seen: HashMap<u128, u128> = HashMap::new();
    seen.insert(puzzle.start.0, puzzle.start.0);
    let mut frontier = vec![puzzle.start.0];
    let mut kids = Vec::new();
    for _ in 0..max_moves {
        let mut next = Vec::new();
        for &p in &frontier {
            kids.clear();
            puzzle.children(p, &mut kids);
            for &c in &kids {
                if let std::collections::hash_map::Entry::Vacant(e) = seen.entry(c) {
                    e.insert(p);
                    next.push(c);
                    if c == goal {
                        let mut moves = Vec::new();
                        let mut at = c;
                        while at != puzzle.start.0 {
                            let parent = seen[&at];
                            moves.push(move_between(parent, at));
                            at = parent;
                        }
                        moves.reverse();
                        return Some(moves);
                    }
                }
            }
            if seen.len() > max_states {
                return None;
            }
        }
        if next.is_empty() {
            return None;
        }
        frontier = next;
    }
    None
}

/// Plays `moves` from the puzzle's start, checking each against the rules; the pieces at the end,
/// or the index of the first illegal move.
pub fn replay(puzzle: &Puzzle, moves: &[Move]) -> Result<Holes, usize> {
    let mut pieces = puzzle.start.0;
    for (i, mv) in moves.iter().enumerate() {
        let occ = Holes(pieces | puzzle.obstacles.0);
        if !Holes(pieces).has(mv.from) || !destinations(occ, mv.from, puzzle.long_hop).has(mv.to) {
            return Err(i);
        }
        pieces ^= mv.from.bit().0 ^ mv.to.bit().0;
    }
    Ok(Holes(pieces))
}

/// The shortest two-player game, as a cooperative puzzle: A and D alternate from the start (A
/// first) and play together so that `target` fills its goal in as few moves in all as they can
/// find. The other side's pieces start in that goal and must leave it, but they also serve as
/// stones to hop over. A beam search of width `width` over the pairs of piece sets, at most
/// `max_plies` moves deep, ranked by twice the target's total distance to go, plus the other
/// side's (its pieces coming forward clear the goal and stand in the target's path to be hopped
/// over), plus four rows for each of its pieces still in the target's goal, plus sixteen rows
/// for each of the target's pieces not yet in its goal; ties by the bits. The last term is what
/// a short game needs: with about fifteen moves for ten pieces, most pieces must cross in one
/// long chain, so a position with a piece home counts for more than rows gained by several.
/// Lines in which the other side fills its own goal first are dropped. An upper bound, like
/// [`beam`]. Returns the moves of both sides in order.
///
/// The last term makes the beam greedy, and at some widths it runs into a dead end (the last
/// pieces cannot get home in time) that the ranking without it avoids; so both rankings are
/// searched and the shorter line is kept.
pub fn beam_two(target: Camp, width: usize, max_plies: usize) -> Option<Vec<Move>> {
    [HOME_WEIGHT, 0]
        .into_iter()
        .filter_map(|home| beam_two_ranked(target, width, max_plies, home))
        .min_by_key(Vec::len)
}

/// Rows a target's piece outside its goal counts for in [`beam_two`]'s ranking.
const HOME_WEIGHT: i32 = 16;

/// [`beam_two`] with the ranking's weight of a piece not yet home (`home`).
fn beam_two_ranked(target: Camp, width: usize, max_plies: usize, home: i32) -> Option<Vec<Move>> {
    let (a, d) = (Camp::ALL[0], Camp::ALL[3]);
    if target != a && target != d {
        return None;
    }
    let goal = target.opposite().holes().0;
    let score = |(pa, pd): (u128, u128)| {
        let (mine, other) = if target == a { (pa, pd) } else { (pd, pa) };
        let dist: i32 = Holes(mine)
            .iter()
            .map(|h| 8 - i32::from(target.forward(h)))
            .sum();
        let other_dist: i32 = Holes(other)
            .iter()
            .map(|h| 8 + i32::from(target.forward(h)))
            .sum();
        2 * dist
            + other_dist
            + 4 * (other & goal).count_ones() as i32
            + home * (mine & !goal).count_ones() as i32
    };
    let other_goal = if target == a { d } else { a }.opposite().holes().0;
    let other_done = |(pa, pd): (u128, u128)| (if target == a { pd } else { pa }) == other_goal;
    type State = (u128, u128);
    let mut kept: Vec<State> = vec![(a.holes().0, d.holes().0)];
    let mut levels: Vec<HashMap<State, State>> = Vec::new();
    for ply in 0..max_plies {
        let a_moves = ply % 2 == 0;
        let mut next: HashMap<State, State> = HashMap::with_capacity(kept.len() * 64);
        for &(pa, pd) in &kept {
            let occ = Holes(pa | pd);
            let mover = if a_moves { pa } else { pd };
            for from in Holes(mover).iter() {
                for to in destinations(occ, from, false).iter() {
                    let bits = from.bit().0 | to.bit().0;
                    let child = if a_moves {
                        (pa ^ bits, pd)
                    } else {
                        (pa, pd ^ bits)
                    };
                    // The other side filling its goal first would end the game.
                    if other_done(child) {
                        continue;
                    }
                    next.entry(child).or_insert((pa, pd));
                }
            }
        }
        let done = next
            .keys()
            .copied()
            .filter(|&(pa, pd)| (if target == a { pa } else { pd }) == goal)
            .min();
        if let Some(end) = done {
            levels.push(HashMap::from([(end, next[&end])]));
            let mut moves = Vec::with_capacity(levels.len());
            let mut at = end;
            for (k, level) in levels.iter().enumerate().rev() {
                let parent = level[&at];
                moves.push(if k % 2 == 0 {
                    move_between(parent.0, at.0)
                } else {
                    move_between(parent.1, at.1)
                });
                at = parent;
            }
            moves.reverse();
            return Some(moves);
        }
        let mut ranked: Vec<(i32, State)> = next.keys().map(|&c| (score(c), c)).collect();
        ranked.sort_unstable();
        ranked.truncate(width);
        kept = ranked.into_iter().map(|(_, c)| c).collect();
        // Only the kept positions' parents are needed to write the line out.
        levels.push(kept.iter().map(|c| (*c, next[c])).collect());
    }
    None
}
