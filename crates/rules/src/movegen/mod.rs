//! Legal move generation: captures first (compulsory, majority rule, duplicates filtered at
//! insertion); quiet moves only when there is no capture.
//!
//! Two levels. `generate_for` applies the rules of movement and capture: it is what perft counts,
//! as the published tables do. `legal_for` (behind `generate`, `generate_with` and
//! `Position::legal_moves`) adds the one rule that depends on state carried from earlier moves:
//! the Frisian limit of three quiet moves in a row by one king while its side has men (the king
//! run kept in `Position`). The published Frisian perft counts leave that limit out (Kroon's match
//! them to depth 11 that way; the shared perft notes put the first difference at depth 13).

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
    with_rules!(pos.variant(), R => legal_for::<R, false>(pos, out));
}

/// The legal moves of `pos` under the given duplicate policy.
pub fn generate_with(pos: &Position, out: &mut MoveList, dups: Duplicates) {
    match dups {
        Duplicates::Drop => with_rules!(pos.variant(), R => legal_for::<R, false>(pos, out)),
        Duplicates::Keep => with_rules!(pos.variant(), R => legal_for::<R, true>(pos, out)),
    }
}

/// The legal moves for rules `R`: `generate_for`, then the king-move limit (`R::KING_MOVE_LIMIT`,
/// a constant, so other variants do not test it).
#[inline]
pub fn legal_for<R: Rules, const KEEP: bool>(pos: &Position, out: &mut MoveList) {
    generate_for::<R, KEEP>(pos, out);
    if R::KING_MOVE_LIMIT > 0 {
        limit_king_moves::<R>(pos, out);
    }
}

/// The moves for rules `R` without the king-move limit, which needs the king runs of earlier
/// moves: what perft counts. `KEEP` keeps duplicate capture paths.
#[inline]
pub fn generate_for<R: Rules, const KEEP: bool>(pos: &Position, out: &mut MoveList) {
    out.clear();
    capture::generate::<R, KEEP>(pos, out);
    if out.is_empty() {
        quiet::generate::<R>(pos, out);
    }
}

/// Staged generation for searches, first stage: the captures of `pos` into `out` (cleared first).
/// An empty list means no capture; `generate_quiets` then gives what `generate` would have.
pub fn generate_captures(pos: &Position, out: &mut MoveList) {
    out.clear();
    with_rules!(pos.variant(), R => capture::generate::<R, false>(pos, out));
}

/// Second stage, for a position without capture: its legal quiet moves appended to `out`, in
/// `generate`'s order.
pub fn generate_quiets(pos: &Position, out: &mut MoveList) {
    with_rules!(pos.variant(), R => quiets_for::<R>(pos, out));
}

#[inline]
fn quiets_for<R: Rules>(pos: &Position, out: &mut MoveList) {
    quiet::generate::<R>(pos, out);
    if R::KING_MOVE_LIMIT > 0 {
        limit_king_moves::<R>(pos, out);
    }
}

/// For a position without capture: only the quiet moves that crown a man, appended to `out` in
/// `generate`'s order (what a quiescence search looks at).
pub fn generate_promotions(pos: &Position, out: &mut MoveList) {
    with_rules!(pos.variant(), R => quiet::promotions::<R>(pos, out));
}

/// For a position without capture: whether the side to move has a legal quiet move (without
/// one, it has no move at all).
#[must_use]
pub fn has_quiet_move(pos: &Position) -> bool {
    with_rules!(pos.variant(), R => has_quiet_for::<R>(pos))
}

#[inline]
fn has_quiet_for<R: Rules>(pos: &Position) -> bool {
    if R::KING_MOVE_LIMIT > 0 && pos.king_run(pos.turn()).is_some() {
        let mut out = MoveList::new();
        quiets_for::<R>(pos, &mut out);
        !out.is_empty()
    } else {
        quiet::any::<R>(pos)
    }
}

/// Frisian: a king that has made `KING_MOVE_LIMIT` quiet moves in a row may not make another
/// while its side has men; it may still capture, and the other pieces may move. The run ends with
/// any other move of that side, when the king is taken or when the side has no men left; it spans
/// moves, so `Position` keeps it (see `Position::king_run`).
fn limit_king_moves<R: Rules>(pos: &Position, out: &mut MoveList) {
    let Some((king, moves)) = pos.king_run(pos.turn()) else {
        return;
    };
    debug_assert!(pos.kings().has(king) && pos.own().has(king));
    debug_assert!((pos.own() & !pos.kings()).any(), "a run needs men");
    if moves >= R::KING_MOVE_LIMIT {
        out.retain(|mv| mv.is_capture() || mv.from != king);
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
