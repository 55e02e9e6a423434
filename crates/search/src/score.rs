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

/// Scan's scale, which Hub clients decode: a win in `n` plies is `100 - n/100` men (Scan's
/// infinity is 10,000 centi-men, less one per ply), so that `10000 - 100 * score` gives `n` back.
const SCAN_WIN: f64 = 100.0;
/// Scan scores a win its endgame tables know 10 men lower (`BB_Inf`, 9,000 centi-men) less one per
/// ply; clients read that band as an ordinary score, as they do Scan's.
const SCAN_TABLE_WIN: f64 = 90.0;

/// The score in men, on Scan's scale, as Hub, DXP chat and analysis print it: an evaluation as is;
/// a proven win in `n` plies as `±(100 - n/100)`; a table win as `±(90 - k/100)`, `k` growing
/// (up to 9.99) the further the table's conversion is.
#[must_use]
pub fn in_men(score: i32) -> f64 {
    if let Some(p) = plies_to_end(score) {
        let magnitude = SCAN_WIN - f64::from(p.abs()) / 100.0;
        return if p >= 0 { magnitude } else { -magnitude };
    }
    if crate::tables::is_table_score(score) {
        let behind = (crate::tables::TABLE_WIN - score.abs()).clamp(0, 999);
        let magnitude = SCAN_TABLE_WIN - f64::from(behind) / 100.0;
        return if score > 0 { magnitude } else { -magnitude };
    }
    f64::from(score) / f64::from(MAN)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tables::{is_table_score, TABLE_WIN};

    /// What pydraughts' Hub engine and draughtsnet do with a printed score: centi-men, and plies
    /// to the end beyond 9,000.
    fn client_plies(printed: &str) -> Option<i32> {
        let centi = (printed.parse::<f64>().unwrap() * 100.0) as i32;
        (centi.abs() > 9000).then_some(10_000 * centi.signum() - centi)
    }

    #[test]
    fn wins_print_on_scans_scale_and_decode_to_their_plies() {
        for n in [0, 1, 11, 13, 150, 999] {
            let win = format!("{:.2}", in_men(WIN - n));
            let loss = format!("{:.2}", in_men(-(WIN - n)));
            assert_eq!(client_plies(&win), Some(n), "{win}");
            assert_eq!(client_plies(&loss), Some(-n), "{loss}");
        }
        assert_eq!(format!("{:.2}", in_men(WIN - 11)), "99.89");
        assert_eq!(format!("{:.2}", in_men(-(WIN - 13))), "-99.87");
    }

    #[test]
    fn table_wins_print_in_scans_table_band_and_evaluations_in_men() {
        for s in [TABLE_WIN, TABLE_WIN - 7, TABLE_WIN - 2_999] {
            assert!(is_table_score(s));
            let m = in_men(s);
            assert!((80.0..=90.0).contains(&m), "{s} -> {m}");
            assert!((in_men(-s) + m).abs() < 1e-9);
            assert_eq!(client_plies(&format!("{m:.2}")), None);
        }
        assert!(in_men(TABLE_WIN) > in_men(TABLE_WIN - 7));
        assert_eq!(format!("{:.2}", in_men(TABLE_WIN - 7)), "89.93");
        assert_eq!(in_men(-250), -2.5);
        assert_eq!(in_men(0), 0.0);
    }
}
