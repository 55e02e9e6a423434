//! Move generation over u128 hole sets: steps, hop chains deduplicated by destination, and the
//! long hop (空跳) when the rule option is on.

use crate::board::{ray_indices, Hole, Holes, HOP_TABLE, RAY_END};

/// One move: the piece on `from` ends on `to`. A chain of hops is one move per destination:
/// which path it took does not change the position, so only the destination is kept.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub struct Move {
    /// The hole the piece leaves.
    pub from: Hole,
    /// The hole it ends on.
    pub to: Hole,
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
