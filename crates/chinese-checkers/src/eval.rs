//! The evaluation: for each player a cost, in hundredths of a row, of what it still has to do.
//!
//! - Distance: rows still to go, summed over the pieces, less the 20 that a full goal camp has.
//! - Stragglers: a piece more than three rows behind the mean of its fellows has nothing left to
//!   hop over at the end, so every row it lags further costs extra.
//! - Width: a piece wide of the home-goal axis beyond the goal camp's width must come back.
//! - Hop ladders: a piece that can hop forward right now (a piece next to it ahead, the hole
//!   beyond empty) is worth part of a move.
//! - Blockers: from round 10, pieces still in the home camp cost extra, and more for each piece
//!   short of the next count of the anti-blocking rule (5, 8, 10 out at rounds 20, 25, 30); a piece of another player sitting in the
//!   player's goal costs it too, since that hole must wait.

use crate::board::{Camp, HOP_TABLE};
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
    let occupied = pos.occupied().0;
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
    if pos.round() >= 10 {
        blockers += 60 * (pieces & home).count() as i32;
        // Short of the next anti-blocking count, each missing piece costs four rows.
        let out = (pieces & !home).count();
        if let Some(&(_, need)) = ANTI_BLOCKING.iter().find(|&&(r, _)| r >= pos.round()) {
            blockers += 400 * need.saturating_sub(out) as i32;
        }
    }
    let strangers = (goal & pos.occupied() & !pieces).count() as i32;
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
