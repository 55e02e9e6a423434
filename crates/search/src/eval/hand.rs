//! The hand-set evaluation: a weighted sum of features, computed for White and, on the mirrored board, for
//! Black, so it is colour-symmetric by construction. The weights are data (`Weights`) so they can be
//! tuned apart from the code.

use crate::score::MAN;
use kroon_rules::geometry::{Geometry, OFF};
use kroon_rules::{Bitboard, Colour, Position, Variant};

/// Feature weights, in centi-men.
#[derive(Clone, Debug)]
pub struct Weights {
    /// A king, in centi-men (a man is 100).
    pub king: i32,
    /// Per row a man has advanced, in the opening and in the endgame.
    pub advance: [i32; 2],
    /// A man on one of the six centre fields.
    pub centre: i32,
    /// Per man of imbalance between the two wings.
    pub balance: i32,
    /// A man still guarding the back rank while the opponent has no king.
    pub back_guard: i32,
    /// A man that cannot move forward.
    pub locked: i32,
    /// A man that no enemy man can stop from crowning, minus `runaway_step` per row to go.
    pub runaway: i32,
    /// See `runaway`.
    pub runaway_step: i32,
    /// Per square a king can reach.
    pub king_mobility: i32,
    /// A man with a friendly man behind it on each side (solid chain).
    pub support: i32,
    /// An outpost: a man on the first row of the opponent's half, off the edges, with at least two
    /// friendly men in the two rows behind it that could back it and no more enemy men in the two
    /// rows ahead that could attack it.
    pub outpost: i32,
}

/// The weights Kroon plays with.
pub const WEIGHTS: Weights = Weights {
    king: 300,
    advance: [2, 6],
    centre: 6,
    balance: 3,
    back_guard: 6,
    locked: 4,
    runaway: 160,
    runaway_step: 12,
    king_mobility: 2,
    support: 3,
    outpost: 10,
};

/// Per-square data for one side of a 10x10 board: White's tables, and Black's built on the
/// mirrored board, so that one `side_score` serves both colours.
struct Tables {
    /// Rows advanced from the own back row.
    advance: [i32; 64],
    /// The forward cone: squares a man could cross on its way to the last row.
    cone: [u64; 64],
    centre: u64,
    left_wing: u64,
    guards: u64,
    /// The first row of the opponent's half without the side columns: where a man is an outpost.
    outposts: u64,
    /// The squares of the two rows behind a square, within its backward diagonals (its backers).
    rear: [u64; 64],
    /// The squares of the two rows ahead of a square, within its forward diagonals (its attackers).
    front: [u64; 64],
    /// Directions of the side's forward moves, then of its backward ones.
    forward: [usize; 2],
    backward: [usize; 2],
}

const fn row_col(g: &Geometry, sq: usize, mirrored: bool) -> (i32, i32) {
    let mut f = g.field_of[sq] as i32;
    if mirrored {
        f = g.fields as i32 + 1 - f;
    }
    let h = g.columns as i32 / 2;
    let r = (f - 1) / h;
    (r, 2 * ((f - 1) % h) + if r % 2 == 0 { 1 } else { 0 })
}

const fn build_tables(g: &Geometry, mirrored: bool) -> Tables {
    let mut t = Tables {
        advance: [0; 64],
        cone: [0; 64],
        centre: 0,
        left_wing: 0,
        guards: 0,
        outposts: 0,
        rear: [0; 64],
        front: [0; 64],
        forward: if mirrored { [2, 3] } else { [0, 1] },
        backward: if mirrored { [0, 1] } else { [2, 3] },
    };
    let n = g.columns as i32;
    let mut sq = 0;
    while sq < 64 {
        if g.field_of[sq] != 0 {
            let (r, c) = row_col(g, sq, mirrored);
            t.advance[sq] = n - 1 - r;
            let mut cone = 0u64;
            let mut s2 = 0;
            while s2 < 64 {
                if g.field_of[s2] != 0 {
                    let (r2, c2) = row_col(g, s2, mirrored);
                    let dc = if c2 > c { c2 - c } else { c - c2 };
                    if r2 < r && dc <= r - r2 {
                        cone |= 1 << s2;
                        if r - r2 <= 2 {
                            t.front[sq] |= 1 << s2;
                        }
                    }
                    if r2 > r && r2 - r <= 2 && dc <= r2 - r {
                        t.rear[sq] |= 1 << s2;
                    }
                }
                s2 += 1;
            }
            t.cone[sq] = cone;
            if r >= n / 2 - 1 && r <= n / 2 && c >= 2 && c <= n - 3 {
                t.centre |= 1 << sq;
            }
            if r == n / 2 - 1 && c >= 1 && c <= n - 2 {
                t.outposts |= 1 << sq;
            }
            if c < n / 2 {
                t.left_wing |= 1 << sq;
            }
            // The classic back-rank guards: the second and fourth fields of the back row (47, 49).
            let i = c / 2;
            if r == n - 1 && (i == 1 || i == 3) {
                t.guards |= 1 << sq;
            }
        }
        sq += 1;
    }
    t
}

static TEN: [Tables; 2] = [
    build_tables(&kroon_rules::geometry::TEN, false),
    build_tables(&kroon_rules::geometry::TEN, true),
];
static EIGHT: [Tables; 2] = [
    build_tables(&kroon_rules::geometry::EIGHT, false),
    build_tables(&kroon_rules::geometry::EIGHT, true),
];

/// A side's men and kings and the opponent's.
struct Side {
    men: Bitboard,
    kings: Bitboard,
    opp_men: Bitboard,
    opp_kings: Bitboard,
}

fn side_score(g: &Geometry, t: &Tables, s: &Side, w: &Weights, phase: i32) -> i32 {
    let empty = g.mask & !(s.men | s.kings | s.opp_men | s.opp_kings);
    let mut score = s.men.count() as i32 * MAN + s.kings.count() as i32 * w.king;
    let mut adv = 0;
    for sq in s.men {
        adv += t.advance[usize::from(sq.index())];
    }
    // Advancing is worth more as the board empties (phase 0 opening .. 256 endgame).
    score += adv * (w.advance[0] * (256 - phase) + w.advance[1] * phase) / 256;
    score += (s.men & Bitboard(t.centre)).count() as i32 * w.centre;
    let left = (s.men & Bitboard(t.left_wing)).count() as i32;
    let right = s.men.count() as i32 - left;
    score -= (left - right).abs() * w.balance;
    if s.opp_kings.is_empty() {
        score += (s.men & Bitboard(t.guards)).count() as i32 * w.back_guard;
    }
    // Men with both forward squares taken (or off the board) cannot move.
    let ahead_free = g.shift(empty, t.backward[0]) | g.shift(empty, t.backward[1]);
    score -= (s.men & !ahead_free).count() as i32 * w.locked;
    // A man covered from behind on both sides cannot be taken from the front.
    let covered = g.shift(s.men, t.forward[0]) & g.shift(s.men, t.forward[1]);
    score += (s.men & covered).count() as i32 * w.support;
    for sq in s.men & Bitboard(t.outposts) {
        let i = usize::from(sq.index());
        let backers = (s.men & Bitboard(t.rear[i])).count();
        if backers >= 2 && backers >= (s.opp_men & Bitboard(t.front[i])).count() {
            score += w.outpost;
        }
    }
    if s.opp_kings.is_empty() {
        let opp = s.opp_men.0;
        let mut best = 0;
        for sq in s.men {
            let i = usize::from(sq.index());
            if t.cone[i] & opp == 0 {
                let to_go = i32::from(g.columns) - 1 - t.advance[i];
                best = best.max(w.runaway - w.runaway_step * to_go);
            }
        }
        score += best;
    }
    for k in s.kings {
        for d in 0..4 {
            let mut sq = g.step(k.index(), d);
            while sq != OFF && empty.0 & (1 << sq) != 0 {
                score += w.king_mobility;
                sq = g.step(sq, d);
            }
        }
    }
    score
}

/// The static evaluation of `pos` for the side to move, in centi-men.
#[must_use]
pub fn evaluate(pos: &Position) -> i32 {
    let variant = pos.variant();
    let g = variant.geometry();
    let short_kings;
    let w = if !variant.kings_fly() {
        // A king that moves one square at a time is worth much less.
        short_kings = Weights {
            king: 150,
            king_mobility: 4,
            ..WEIGHTS
        };
        &short_kings
    } else {
        &WEIGHTS
    };
    let tables = if g.columns == 10 { &TEN } else { &EIGHT };
    let kings = pos.kings();
    let (white, black) = (pos.pieces(Colour::White), pos.pieces(Colour::Black));
    let pieces = (white | black).count() as i32;
    let full = 2 * g.initial[0].count() as i32;
    let phase = ((full - pieces.min(full)) * 256 / full).clamp(0, 256);
    let white_side = Side {
        men: white & !kings,
        kings: white & kings,
        opp_men: black & !kings,
        opp_kings: black & kings,
    };
    let black_side = Side {
        men: black & !kings,
        kings: black & kings,
        opp_men: white & !kings,
        opp_kings: white & kings,
    };
    let mut score = side_score(g, &tables[0], &white_side, w, phase)
        - side_score(g, &tables[1], &black_side, w, phase);
    // Flying kings against a lone king, or a king against a few men, rarely win: pull toward a
    // draw. Short kings (English) do beat a lone one. Two pieces against a lone king win only by a
    // shot the search sees, so they are worth almost nothing: less than the three they came from,
    // or a king given away for a restarted count would look like a gain.
    let (wk, bk) = ((white & kings).count(), (black & kings).count());
    let (fewest, most) = (
        white.count().min(black.count()),
        white.count().max(black.count()),
    );
    if variant.kings_fly()
        && wk > 0
        && bk > 0
        && ((fewest == 1 && most <= 3) || (most - fewest <= 1 && pieces <= 6))
    {
        score /= if fewest == 1 && most <= 2 { 64 } else { 8 };
    }
    if pos.variant() == Variant::Losing {
        score = -score;
    }
    if pos.turn() == Colour::White {
        score
    } else {
        -score
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use kroon_rules::parse_fen;

    fn symmetric(pos: &Position, depth: u32) {
        assert_eq!(
            evaluate(pos),
            evaluate(&pos.flipped()),
            "{}",
            kroon_rules::write_fen(pos)
        );
        if depth > 0 {
            for mv in &pos.legal_moves() {
                symmetric(&pos.play(mv), depth - 1);
            }
        }
    }

    #[test]
    fn eval_is_colour_symmetric_over_a_perft_tree() {
        symmetric(&Position::initial(Variant::International), 4);
        symmetric(
            &parse_fen(
                "B:BK17,K24:W6,9,10,11,20,21,22,23,30,K31,33,37,41,42,43,44,46",
                Variant::International,
            )
            .unwrap(),
            3,
        );
        symmetric(
            &parse_fen("W:W6,7,8,9,10:B41,42,43,44,45", Variant::International).unwrap(),
            3,
        );
        for v in [Variant::Brazilian, Variant::Russian, Variant::English] {
            symmetric(&Position::initial(v), 5);
        }
    }

    #[test]
    fn initial_position_is_balanced_and_material_counts() {
        assert_eq!(evaluate(&Position::initial(Variant::International)), 0);
        let up = parse_fen("W:W31-50:B1-19", Variant::International).unwrap();
        assert!(evaluate(&up) > 60, "{}", evaluate(&up));
    }

    /// White's outpost score in `fen`, in units of the outpost weight.
    fn outposts(fen: &str) -> i32 {
        let pos = parse_fen(fen, Variant::International).unwrap();
        let g = pos.variant().geometry();
        let (white, black) = (pos.pieces(Colour::White), pos.pieces(Colour::Black));
        let side = Side {
            men: white & !pos.kings(),
            kings: white & pos.kings(),
            opp_men: black & !pos.kings(),
            opp_kings: black & pos.kings(),
        };
        let without = Weights {
            outpost: 0,
            ..WEIGHTS
        };
        (side_score(g, &TEN[0], &side, &WEIGHTS, 0) - side_score(g, &TEN[0], &side, &without, 0))
            / WEIGHTS.outpost
    }

    #[test]
    fn outposts_are_backed_men_past_the_middle() {
        // 24 backed by 29, 30 and 34 against 19 and 13: an outpost.
        assert_eq!(outposts("W:W24,29,30,34:B13,19"), 1);
        // Two backers against three attackers: not one.
        assert_eq!(outposts("W:W24,29,30:B13,14,19"), 0);
        // One backer is not enough, even unopposed.
        assert_eq!(outposts("W:W24,30:B1"), 0);
        // 23 and 24 each backed by 28/29 and 29/30: two outposts.
        assert_eq!(outposts("W:W23,24,28,29,30:B1"), 2);
        // Deeper than the first row of Black's half (19), or on the edge (25): not outposts.
        assert_eq!(outposts("W:W19,23,24,25,30:B1"), 0);
        // Black's outpost on 27 (backed by 21 and 22) is one for Black, not White.
        assert_eq!(outposts("W:W45:B21,22,27"), 0);
    }

    #[test]
    fn two_kings_against_one_count_only_with_short_kings() {
        // With flying kings two kings cannot catch a third: little more than level.
        let flying = parse_fen("W:WK1,K2:BK50", Variant::International).unwrap();
        assert!(evaluate(&flying).abs() < 60, "{}", evaluate(&flying));
        // In English draughts they win: the full material edge stays.
        let short = parse_fen("W:WK1,K2:BK32", Variant::English).unwrap();
        assert!(evaluate(&short) > 120, "{}", evaluate(&short));
    }

    #[test]
    fn two_pieces_against_a_lone_king_are_worth_less_than_the_three_they_came_from() {
        // Giving a king away to restart the king-move count must never look like a gain.
        let two = parse_fen("W:WK1,K2:BK50", Variant::International).unwrap();
        let three = parse_fen("W:WK1,K2,K3:BK50", Variant::International).unwrap();
        let (e2, e3) = (evaluate(&two), evaluate(&three));
        assert!((0..=10).contains(&e2), "{e2}");
        assert!(e3 > e2, "{e3} {e2}");
    }

    #[test]
    fn runaway_man_is_seen() {
        let free = parse_fen("W:W15,46:B36", Variant::International).unwrap();
        let blocked = parse_fen("W:W15,46:B4,36", Variant::International).unwrap();
        assert!(evaluate(&free) > evaluate(&blocked) + 100);
    }
}
