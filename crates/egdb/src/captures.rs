//! The captures of a position, made on the builder's field sets.
//!
//! The build meets a capture at every position that has one pending, and every one is a
//! conversion into a finished slice. Going through the rules' move generator meant building a
//! `Position` (with its hash key) for each such position and turning each move back into field
//! sets. Here the captures are found on the field sets directly, under the FMJD rules: men
//! capture forwards and backwards, kings from any distance along a line and land on any empty
//! field behind the piece taken; a piece taken stays on the board until the capture ends (it
//! cannot be jumped twice, and it blocks the line); the capture that takes the most pieces is
//! compulsory; a man crowns only if the capture ends on the far row.

use crate::build::{fields, king_reach, nearest, JUMPS, RAYS};
use crate::index::Board;

/// A capture found so far: where the piece ends and what it took.
#[derive(Copy, Clone, PartialEq, Eq)]
struct Found {
    from: usize,
    to: usize,
    taken: u64,
}

/// Collects the longest captures.
struct Longest {
    most: u32,
    found: Vec<Found>,
}

impl Longest {
    fn take(&mut self, f: Found) {
        let n = f.taken.count_ones();
        if n > self.most {
            self.most = n;
            self.found.clear();
        }
        // The same capture may be reached along different orders of the same pieces: it is
        // one move.
        if n == self.most && !self.found.contains(&f) {
            self.found.push(f);
        }
    }
}

/// Calls `each` with the position after every legal capture of the side to move of `b`, seen from
/// the other side (as [`Board::after`] gives it). Nothing when `b` has no capture.
pub fn captures(b: &Board, each: impl FnMut(Board)) {
    // The list is kept from one call to the next: the build asks for the captures of hundreds
    // of millions of positions.
    thread_local! {
        static FOUND: std::cell::Cell<Vec<Found>> = const { std::cell::Cell::new(Vec::new()) };
    }
    let mut found = FOUND.take();
    found.clear();
    let mut longest = Longest { most: 0, found };
    collect(b, &mut longest, each);
    FOUND.set(longest.found);
}

fn collect(b: &Board, longest: &mut Longest, mut each: impl FnMut(Board)) {
    let enemy = b.opp_men | b.opp_kings;
    for from in fields(b.own_men) {
        // The capturing piece has left its field: it may pass it or land on it again.
        let occupied = b.occupied() & !(1 << from);
        man(from, from, 0, enemy, occupied, longest);
    }
    for from in fields(b.own_kings) {
        let occupied = b.occupied() & !(1 << from);
        king(from, from, 0, enemy, occupied, longest);
    }
    for f in &longest.found {
        let (from, to) = (1u64 << f.from, 1u64 << f.to);
        let mut child = Board {
            own_men: b.own_men & !from,
            own_kings: b.own_kings & !from,
            opp_men: b.opp_men & !f.taken,
            opp_kings: b.opp_kings & !f.taken,
        };
        // The side to move's men crown on fields 1-5 (0-based 0-4).
        if b.own_kings & from != 0 || f.to < 5 {
            child.own_kings |= to;
        } else {
            child.own_men |= to;
        }
        each(child.swapped());
    }
}

/// Goes on with a man's capture from field `at`, having taken `taken` (still on the board).
fn man(from: usize, at: usize, taken: u64, enemy: u64, occupied: u64, longest: &mut Longest) {
    let mut further = false;
    for j in &JUMPS[at] {
        if j.over & enemy & !taken != 0 && j.to & !occupied != 0 {
            further = true;
            let to = j.to.trailing_zeros() as usize;
            man(from, to, taken | j.over, enemy, occupied, longest);
        }
    }
    if !further && taken != 0 {
        longest.take(Found {
            from,
            to: at,
            taken,
        });
    }
}

/// Goes on with a king's capture from field `at`, having taken `taken` (still on the board).
fn king(from: usize, at: usize, taken: u64, enemy: u64, occupied: u64, longest: &mut Longest) {
    let mut further = false;
    for (dir, &ray) in RAYS[at].iter().enumerate() {
        let blockers = ray & occupied;
        if blockers == 0 {
            continue;
        }
        let g = nearest(blockers, dir);
        let over = 1u64 << g;
        if over & enemy & !taken == 0 {
            continue;
        }
        for to in fields(king_reach(g, dir, occupied)) {
            further = true;
            king(from, to, taken | over, enemy, occupied, longest);
        }
    }
    if !further && taken != 0 {
        longest.take(Found {
            from,
            to: at,
            taken,
        });
    }
}
