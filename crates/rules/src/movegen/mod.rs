//! Legal move generation: captures first (compulsory, majority rule, duplicates filtered at
//! insertion); quiet moves only when there is no capture.

mod capture;
mod quiet;

use crate::movelist::MoveList;
use crate::position::Position;
use crate::variant::Rules;
use crate::with_rules;

pub use capture::has_capture;

/// Whether two capture paths that take the same pieces from the same square to the same square
/// count as one move (the FMJD convention and the published perft tables) or as one move each.
#[derive(Copy, Clone, PartialEq, Eq, Debug, Default)]
pub enum Duplicates {
    /// One move per (from, to, captured set).
    #[default]
    Drop,
    /// One move per capture path (the "keep" columns of some perft tables).
    Keep,
}

/// The legal moves of `pos` into `out` (cleared first), duplicates dropped.
pub fn generate(pos: &Position, out: &mut MoveList) {
    with_rules!(pos.variant(), R => generate_for::<R, false>(pos, out));
}

/// The legal moves of `pos` under the given duplicate policy.
pub fn generate_with(pos: &Position, out: &mut MoveList, dups: Duplicates) {
    match dups {
        Duplicates::Drop => with_rules!(pos.variant(), R => generate_for::<R, false>(pos, out)),
        Duplicates::Keep => with_rules!(pos.variant(), R => generate_for::<R, true>(pos, out)),
    }
}

/// The legal moves for rules `R`; `KEEP` keeps duplicate capture paths.
#[inline]
pub fn generate_for<R: Rules, const KEEP: bool>(pos: &Position, out: &mut MoveList) {
    out.clear();
    capture::generate::<R, KEEP>(pos, out);
    if out.is_empty() {
        quiet::generate::<R>(pos, out);
    }
}

/// The number of legal moves, without building the list when there is no capture (bulk counting).
#[inline]
pub fn count_for<R: Rules, const KEEP: bool>(pos: &Position, scratch: &mut MoveList) -> u64 {
    if capture::has_capture_for::<R>(pos) {
        scratch.clear();
        capture::generate::<R, KEEP>(pos, scratch);
        scratch.len() as u64
    } else {
        quiet::count::<R>(pos)
    }
}
