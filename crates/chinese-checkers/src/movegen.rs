//! Move generation over u128 hole sets: steps, hop chains deduplicated by destination, and the
//! long hop (空跳) when the rule option is on.

use crate::board::{ray_indices, Hole, Holes, HOP_TABLE, RAY_END};
use crate::position::Position;

/// One move: the piece on `from` ends on `to`. A chain of hops is one move per destination:
/// which path it took does not change the position, so only the destination is kept.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub struct Move {
    /// The hole the piece leaves.
    pub from: Hole,
    /// The hole it ends on.
    pub to: Hole,
}

/// Why a move text was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum MoveError {
    /// No `-` between the holes.
    #[error("a move is written from-to, e.g. d4-e5")]
    Syntax,
    /// A name that is no hole.
    #[error("no hole {0:?} (rows a-q, places from 1)")]
    Hole(String),
    /// Well formed but not legal here.
    #[error("{0} is not a legal move for {1}")]
    Illegal(Move, crate::board::Camp),
}

impl Move {
    /// Parses `from-to` (e.g. `d4-e5`) as a legal move of the player to move in `pos`.
    pub fn parse(pos: &Position, text: &str) -> Result<Move, MoveError> {
        let (f, t) = text.trim().split_once('-').ok_or(MoveError::Syntax)?;
        let hole = |name: &str| Hole::parse(name).ok_or_else(|| MoveError::Hole(name.to_owned()));
        let mv = Move {
            from: hole(f)?,
            to: hole(t)?,
        };
        if !pos.is_legal(mv) {
            return Err(MoveError::Illegal(mv, pos.to_move()));
        }
        Ok(mv)
    }
}

impl std::fmt::Display for Move {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}-{}", self.from, self.to)
    }
}

/// Every hole the piece on `from` can end its move on, given the occupied holes `occupied` (which
/// include `from`). Hops may pass over any piece, own or other; a chain never revisits a hole, and
/// since only destinations count, the reachable set of a breadth-first walk is exactly the set of
/// chain ends. The moving piece has left `from`, so it neither blocks nor bridges its own chain.
pub fn destinations(occupied: Holes, from: Hole, long_hop: bool) -> Holes {
    let start = 1u128 << from.index();
    let occ = occupied.0 & !start;
    let mut visited = start;
    let mut frontier = start;
    while frontier != 0 {
        let h = frontier.trailing_zeros() as usize;
        frontier &= frontier - 1;
        let landings = if long_hop {
            long_hop_landings(occ, h)
        } else {
            short_hop_landings(occ, h)
        };
        let new = landings & !visited;
        visited |= new;
        frontier |= new;
    }
    Holes((visited & !start) | (HOP_TABLE.steps[from.index()].0 & !occ))
}

/// The holes a move passes through, `from` first and `to` last: the step, or the hop chain with
/// the fewest hops that ends on `to` (for showing a chain hole by hole). `None` if the piece on
/// `from` cannot end on `to`.
pub fn path(occupied: Holes, mv: Move, long_hop: bool) -> Option<Vec<Hole>> {
    let (from, to) = (mv.from.index(), mv.to.index());
    if !destinations(occupied, mv.from, long_hop).has(mv.to) {
        return None;
    }
    if HOP_TABLE.steps[from].has(mv.to) && occupied.0 >> to & 1 == 0 {
        // A step, unless the same hole is also a hop's landing (never: a step lands next door).
        return Some(vec![mv.from, mv.to]);
    }
    let occ = occupied.0 & !(1u128 << from);
    let mut parent = [u8::MAX; crate::board::HOLES];
    let mut queue = std::collections::VecDeque::from([from]);
    parent[from] = from as u8;
    while let Some(h) = queue.pop_front() {
        if h == to {
            break;
        }
        let mut landings = if long_hop {
            long_hop_landings(occ, h)
        } else {
            short_hop_landings(occ, h)
        };
        while landings != 0 {
            let n = landings.trailing_zeros() as usize;
            landings &= landings - 1;
            if parent[n] == u8::MAX {
                parent[n] = h as u8;
                queue.push_back(n);
            }
        }
    }
    let mut holes = vec![mv.to];
    let mut at = to;
    while at != from {
        at = parent[at] as usize;
        holes.push(Hole::new(at).expect("a hole index"));
    }
    holes.reverse();
    Some(holes)
}

/// Landings of single hops from `h` over an adjacent piece.
#[inline]
fn short_hop_landings(occ: u128, h: usize) -> u128 {
    let over = &HOP_TABLE.over[h];
    let land = &HOP_TABLE.land[h];
    let mut out = 0;
    for d in 0..6 {
        if occ & over[d] != 0 && occ & land[d] == 0 {
            out |= land[d];
        }
    }
    out
}

/// Landings of long hops from `h`: along each line, the first piece at distance k + 1 (k empty
/// holes before it), then k empty holes after it, and the mirror point 2k + 2 away empty. With
/// k = 0 this is the ordinary hop.
fn long_hop_landings(occ: u128, h: usize) -> u128 {
    let mut out = 0;
    let hole = Hole::new(h).expect("hole index from a hole set");
    for d in 0..6 {
        let ray = ray_indices(hole, d);
        let Some(j) = ray
            .iter()
            .take_while(|&&x| x != RAY_END)
            .position(|&x| occ >> x & 1 != 0)
        else {
            continue;
        };
        let landing = 2 * j + 1;
        if landing >= ray.len() || ray[landing] == RAY_END {
            continue;
        }
        let clear = ray[j + 1..=landing].iter().all(|&x| occ >> x & 1 == 0);
        if clear {
            out |= 1u128 << ray[landing];
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(q: i8, r: i8) -> Hole {
        Hole::at(q, r).unwrap()
    }

    #[test]
    fn a_chain_is_shown_hole_by_hole() {
        let from = at(0, 0);
        let occupied = from.bit() | at(1, 0).bit() | at(3, 0).bit();
        let chain = path(occupied, Move { from, to: at(4, 0) }, false).unwrap();
        assert_eq!(chain, [from, at(2, 0), at(4, 0)]);
        let step = path(occupied, Move { from, to: at(0, 1) }, false).unwrap();
        assert_eq!(step, [from, at(0, 1)]);
        assert_eq!(
            path(
                occupied,
                Move {
                    from,
                    to: at(-2, 0)
                },
                false
            ),
            None
        );
    }
}
