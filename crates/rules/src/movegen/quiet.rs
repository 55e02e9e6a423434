//! Non-capturing moves: men one step forward (FMJD 3.5), kings along free diagonals (FMJD 3.9).

use crate::bitboard::Bitboard;
use crate::geometry::{DOWN_LEFT, DOWN_RIGHT, OFF, UP_LEFT, UP_RIGHT};
use crate::movelist::MoveList;
use crate::mv::Move;
use crate::position::{Colour, Position};
use crate::square::Square;
use crate::variant::Rules;

/// The two forward directions of a side, and the row where its men promote.
#[inline]
fn forward<R: Rules>(turn: Colour) -> ([usize; 2], Bitboard) {
    match turn {
        Colour::White => ([UP_LEFT, UP_RIGHT], R::GEO.top_row),
        Colour::Black => ([DOWN_LEFT, DOWN_RIGHT], R::GEO.bottom_row),
    }
}

pub(super) fn generate<R: Rules>(pos: &Position, out: &mut MoveList) {
    let g = R::GEO;
    let empty = pos.empty();
    let own = pos.own();
    let men = own & !pos.kings();
    let (dirs, promo) = forward::<R>(pos.turn());
    for d in dirs {
        let back = d ^ 3;
        for to in g.shift(men, d) & empty {
            let from = Square::new(g.step(to.index(), back));
            out.push(Move {
                from,
                to,
                captured: Bitboard::EMPTY,
                promotes: promo.has(to),
            });
        }
    }
    for from in own & pos.kings() {
        for d in 0..4 {
            let mut t = g.step(from.index(), d);
            while t != OFF && empty.0 & (1 << t) != 0 {
                out.push(Move {
                    from,
                    to: Square::new(t),
                    captured: Bitboard::EMPTY,
                    promotes: false,
                });
                if !R::FLYING_KINGS {
                    break;
                }
                t = g.step(t, d);
            }
        }
    }
}

/// The men's moves onto the crowning row, in the order `generate` lists them.
pub(super) fn promotions<R: Rules>(pos: &Position, out: &mut MoveList) {
    let g = R::GEO;
    let men = pos.own() & !pos.kings();
    let (dirs, promo) = forward::<R>(pos.turn());
    let targets = pos.empty() & promo;
    for d in dirs {
        let back = d ^ 3;
        for to in g.shift(men, d) & targets {
            out.push(Move {
                from: Square::new(g.step(to.index(), back)),
                to,
                captured: Bitboard::EMPTY,
                promotes: true,
            });
        }
    }
}

/// Whether any piece has a quiet move: a man a free square ahead, a king a free neighbour.
pub(super) fn any<R: Rules>(pos: &Position) -> bool {
    let g = R::GEO;
    let empty = pos.empty();
    let own = pos.own();
    let men = own & !pos.kings();
    let (dirs, _) = forward::<R>(pos.turn());
    if ((g.shift(men, dirs[0]) | g.shift(men, dirs[1])) & empty).any() {
        return true;
    }
    let kings = own & pos.kings();
    kings.any() && (0..4).any(|d| (g.shift(kings, d) & empty).any())
}

/// The number of quiet moves, counted with shifts for men and walks for kings.
pub(super) fn count<R: Rules>(pos: &Position) -> u64 {
    let g = R::GEO;
    let empty = pos.empty();
    let own = pos.own();
    let men = own & !pos.kings();
    let (dirs, _) = forward::<R>(pos.turn());
    let mut n = u64::from(
        (g.shift(men, dirs[0]) & empty).count() + (g.shift(men, dirs[1]) & empty).count(),
    );
    for from in own & pos.kings() {
        for d in 0..4 {
            let mut t = g.step(from.index(), d);
            while t != OFF && empty.0 & (1 << t) != 0 {
                n += 1;
                if !R::FLYING_KINGS {
                    break;
                }
                t = g.step(t, d);
            }
        }
    }
    n
}
