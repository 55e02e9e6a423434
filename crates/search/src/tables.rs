//! Endgame tables as the search sees them: a probe behind a small trait, so that the search does
//! not depend on how tables are built or stored, and the scores it gives their answers.

use crate::score::WIN_BOUND;
use kroon_rules::Position;

/// A table's verdict for the side to move.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub enum TableValue {
    /// Won.
    Win,
    /// Drawn.
    Draw,
    /// Lost.
    Loss,
}

/// What a table says of a position.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub struct TableProbe {
    /// The game value, without the counting rules.
    pub value: TableValue,
    /// Plies to the next capture or crowning that keeps the value, where the table knows it.
    pub distance: Option<u16>,
}

/// Endgame tables the search can probe.
pub trait EndgameTables: Send + Sync + std::fmt::Debug {
    /// Positions with at most this many pieces are all in the tables.
    fn pieces(&self) -> u32;
    /// The value of a position; `None` when no table has it. A position with a capture pending
    /// may be answered from the tables its captures lead into, or not at all.
    fn probe(&self, pos: &Position) -> Option<TableProbe>;
    /// What the probes have found so far, for a log line (`None`: nothing to say).
    fn usage(&self) -> Option<String> {
        None
    }
}

/// Scores of table wins lie in `TABLE_WIN - 3000 ..= TABLE_WIN`, above every evaluation and below
/// the proven wins of the search itself.
pub const TABLE_WIN: i32 = WIN_BOUND - 1_000;

/// The score of a table win for the side to move, `ply` plies from the root: fewer pieces and men
/// score higher, so a capture or a crowning that keeps the win is always preferred; then a shorter
/// distance to it; `ply` makes the quicker of two equal lines better.
#[must_use]
pub fn win_score(pos: &Position, distance: Option<u16>, ply: usize) -> i32 {
    let material = pos.all().count() + pos.men().count();
    // Without a distance the table cannot rank its wins; the middle keeps them apart from the
    // conversions on either side.
    let d = i32::from(distance.unwrap_or(64).min(255));
    TABLE_WIN - 256 * material as i32 - d - ply as i32
}

/// Whether a score is a table win or loss.
#[must_use]
pub const fn is_table_score(score: i32) -> bool {
    let s = score.abs();
    s > TABLE_WIN - 3_000 && s <= TABLE_WIN
}

#[cfg(test)]
mod tests {
    use super::*;
    use kroon_rules::{parse_fen, Variant};

    #[test]
    fn conversions_score_above_staying() {
        let p = |f| parse_fen(f, Variant::International).unwrap();
        let before = win_score(&p("W:WK1,K2,K3,K4:BK50"), Some(1), 3);
        let taken = win_score(&p("W:WK1,K2,K3,K4:B"), Some(0), 4);
        let crowned = win_score(&p("W:WK1,K2,K3:B45,K50"), Some(127), 4);
        let with_man = win_score(&p("W:WK1,K2,K3,12:B45,K50"), Some(1), 4);
        assert!(taken > before && crowned > with_man);
        for s in [before, taken, crowned, with_man] {
            assert!(is_table_score(s) && is_table_score(-s) && s > 20_000 && s < WIN_BOUND);
        }
        assert!(!is_table_score(500));
    }
}
