//! Scores: centi-men from the side to move's point of view; wins and losses encode the distance in plies.

/// One man, in score units.
pub const MAN: i32 = 100;
/// A win at the root; a win in `n` plies scores `WIN - n`.
pub const WIN: i32 = 30_000;
/// Scores beyond this (in absolute value) are wins or losses.
pub const WIN_BOUND: i32 = WIN - 1_000;
/// Above every real score; used for windows.
pub const INF: i32 = WIN + 1;

/// Whether a score is a proven win or loss.
#[must_use]
pub const fn is_decisive(score: i32) -> bool {
    score > WIN_BOUND || score < -WIN_BOUND
}

/// A score stored in the table counts plies from the node, not from the root.
#[must_use]
pub const fn to_tt(score: i32, ply: i32) -> i32 {
    if score > WIN_BOUND {
        score + ply
    } else if score < -WIN_BOUND {
        score - ply
    } else {
        score
    }
}

/// The inverse of `to_tt`.
#[must_use]
pub const fn from_tt(score: i32, ply: i32) -> i32 {
    if score > WIN_BOUND {
        score - ply
    } else if score < -WIN_BOUND {
        score + ply
    } else {
        score
    }
}

/// Plies to the end for a decisive score (positive: we win), for display.
#[must_use]
pub const fn plies_to_end(score: i32) -> Option<i32> {
    if score > WIN_BOUND {
        Some(WIN - score)
    } else if score < -WIN_BOUND {
        Some(-(WIN + score))
    } else {
        None
    }
}

/// The score in men, as Hub prints it (a decisive score prints as ±(1000 - plies)/10 beyond any material).
#[must_use]
pub fn in_men(score: i32) -> f64 {
    match plies_to_end(score) {
        Some(p) if p >= 0 => 1000.0 - f64::from(p) / 100.0,
        Some(p) => -1000.0 - f64::from(p) / 100.0,
        None => f64::from(score) / f64::from(MAN),
    }
}
