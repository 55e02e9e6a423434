//! The evaluation: for each player a cost, in hundredths of a row, of what it still has to do.
//!
//! - Distance: rows still to go, summed over the pieces, less the 20 that a full goal camp has.
//! - Stragglers: a piece more than three rows behind the mean of its fellows has nothing left to
//!   hop over at the end, so every row it lags further costs extra.
//! - Width: a piece wide of the home-goal axis beyond the goal camp's width must come back.
//! - Hop ladders: a piece that can hop forward right now (a piece next to it ahead, the hole
//!   beyond empty) is worth part of a move.
//! - Blockers: from round 10, a piece still in the home camp costs extra by the rows it has to
//!   go to leave the camp, at a price per row that rises each round up to round 25 (the other
//!   side's pieces arriving in this camp, their goal, wall in what is left there), and more when
//!   it has no move at all. Each piece short of a coming count of the anti-blocking rule (5, 8,
//!   10 out at rounds 20, 25, 30) costs four rows, scaled down while that deadline is more than
//!   five rounds off. A piece of another player sitting in the player's goal costs it too, since
//!   that hole must wait.

use crate::board::{Camp, HOP_TABLE};
use crate::movegen::destinations;
use crate::position::{Position, ANTI_BLOCKING};

/// A win, from the winner's side; real evaluations stay far below it.
pub const WIN: i32 = 1_000_000;

/// Rows still to go for `c`'s pieces: 0 when its goal camp is full.
pub fn distance(pos: &Position, c: Camp) -> i32 {
    let pieces = pos.pieces(c);
    let d: i32 = pieces.iter().map(|h| 8 - i32::from(c.forward(h))).sum();
    d - min_distance(pieces.count())
}

/// The least total distance `n` pieces can have: the goal camp filled from its tip.
fn min_distance(n: u32) -> i32 {
    // Rows 0, 1, 1, 2, 2, 2, 3, 3, 3, 3 from the tip.
    const ROWS: [i32; 10] = [0, 1, 1, 2, 2, 2, 3, 3, 3, 3];
    ROWS.iter().take(n as usize).sum()
}

/// The cost of `c`'s task in `pos`, in hundredths of a row.
pub fn cost(pos: &Position, c: Camp) -> i32 {
    let pieces = pos.pieces(c);
    let n = pieces.count() as i32;
    if n == 0 {
        return 0;
    }
    let dist = distance(pos, c);
    let goal = c.opposite().holes();
    let home = c.holes();
    let mut total_rows = 0;
    for h in pieces.iter() {
        total_rows += 8 - i32::from(c.forward(h));
    }
    let mean = total_rows / n;
    let occupied_set = pos.occupied();
    let occupied = occupied_set.0;
    let mut straggle = 0;
    let mut wide = 0;
    let mut ladders = 0;
    let fwd = c.forward_dirs();
    for h in pieces.iter() {
        let behind = 8 - i32::from(c.forward(h)) - mean - 3;
        if behind > 0 {
            straggle += behind;
        }
        if !goal.has(h) {
            let lat = i32::from(c.lateral(h)) - 3;
            if lat > 0 {
                wide += lat;
            }
        }
        let i = h.index();
        for d in fwd {
            let land = HOP_TABLE.land[i][d];
            if land != 0 && occupied & HOP_TABLE.over[i][d] != 0 && occupied & land == 0 {
                ladders += 1;
                break;
            }
        }
    }
    let mut blockers = 0;
    let round = i32::from(pos.round());
    if round >= 10 {
        let at_home = pieces & home;
        // A piece at home costs more the deeper in the camp it stands and the nearer the last
        // deadline: once the other side's pieces arrive in this camp (their goal) they wall in
        // whatever is left there, so each row towards the camp's mouth is worth more than a row
        // elsewhere.
        let per_row = 15 * (round - 10).clamp(1, 15);
        for h in at_home.iter() {
            let to_leave = -4 - i32::from(c.forward(h));
            blockers += 40 + per_row * to_leave;
            // A piece at home with no move at all may stay walled in.
            if destinations(occupied_set, h, pos.long_hop()).is_empty() {
                blockers += 2 * per_row;
            }
        }
        // Each piece short of a coming anti-blocking count costs four rows when the deadline is
        // at most five rounds off, less the further off it is.
        let out = (pieces & !home).count() as i32;
        for &(r, need) in ANTI_BLOCKING.iter() {
            let ahead = i32::from(r) - round;
            if ahead >= 0 {
                let short = (need as i32 - out).max(0);
                blockers += short * 400 * 5 / ahead.max(5);
            }
        }
    }
    let strangers = (goal & occupied_set & !pieces).count() as i32;
    blockers += 25 * strangers;
    100 * dist + 40 * straggle + 20 * wide - 30 * ladders + blockers
}

/// The position from `me`'s side: the best-placed opponent's cost less `me`'s (higher is better).
pub fn evaluate(pos: &Position, me: Camp) -> i32 {
    if pos.has_finished(me) {
        return WIN;
    }
    let mut best_other = i32::MAX;
    for c in pos.seats() {
        if c == me || pos.is_out(c) {
            continue;
        }
        if pos.has_finished(c) {
            return -WIN;
        }
        best_other = best_other.min(cost(pos, c));
    }
    if best_other == i32::MAX {
        return 0;
    }
    best_other - cost(pos, me)
}
