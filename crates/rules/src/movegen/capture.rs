//! Captures (FMJD 4): men take forwards and backwards, kings at a distance; a piece is taken at most
//! once and stays on the board, blocking, until the move ends; the majority rule is applied as each
//! capture is added. In Frisian draughts both also capture orthogonally (`R::ORTHOGONAL_CAPTURE`:
//! the directions `UP..=DOWN` of `geometry`), and precedence is by value (`R::precedence`).

use crate::bitboard::Bitboard;
use crate::geometry::{DOWN, OFF, UP};
use crate::movelist::MoveList;
use crate::mv::Move;
use crate::position::{Colour, Position};
use crate::square::Square;
use crate::variant::Rules;

/// Whether the side to move has a capture.
#[must_use]
pub fn has_capture(pos: &Position) -> bool {
    crate::with_rules!(pos.variant(), R => has_capture_for::<R>(pos))
}

#[inline]
pub(crate) fn has_capture_for<R: Rules>(pos: &Position) -> bool {
    let g = R::GEO;
    let empty = pos.empty();
    let opp = pos.opp();
    let own = pos.own();
    let men = own & !pos.kings();
    let dirs: &[usize] = if R::MEN_CAPTURE_BACKWARD {
        &[0, 1, 2, 3]
    } else if pos.turn() == Colour::White {
        &[0, 1]
    } else {
        &[2, 3]
    };
    for &d in dirs {
        if (g.shift(g.shift(men, d) & opp, d) & empty).any() {
            return true;
        }
    }
    if R::ORTHOGONAL_CAPTURE {
        for d in UP..=DOWN {
            if (g.shift_any(g.shift_any(men, d) & opp, d) & empty).any() {
                return true;
            }
        }
    }
    let kings = own & pos.kings();
    if kings.is_empty() {
        return false;
    }
    for k in kings {
        for d in 0..directions::<R>() {
            let mut t = g.step(k.index(), d);
            if R::FLYING_KINGS {
                while t != OFF && empty.0 & (1 << t) != 0 {
                    t = g.step(t, d);
                }
            }
            if t != OFF && opp.0 & (1 << t) != 0 {
                let l = g.step(t, d);
                if l != OFF && empty.0 & (1 << l) != 0 {
                    return true;
                }
            }
        }
    }
    false
}

/// The directions a piece captures in: the four diagonals, and in Frisian the four orthogonals.
#[inline(always)]
const fn directions<R: Rules>() -> usize {
    if R::ORTHOGONAL_CAPTURE {
        8
    } else {
        4
    }
}

/// Every direction, diagonal then orthogonal (`geometry::UP_LEFT..=DOWN`).
const ALL_DIRECTIONS: [usize; 8] = [0, 1, 2, 3, 4, 5, 6, 7];

/// The state of one capture search: the moving piece's start, the board as the capturing piece sees
/// it (its start square empty), and the best capture value found so far.
struct Builder<'a, R: Rules, const KEEP: bool> {
    out: &'a mut MoveList,
    from: Square,
    empty: u64,
    opp: u64,
    kings: u64,
    promo: Bitboard,
    man: bool,
    /// A man crowned during this capture (Russian).
    crowned: bool,
    best: u32,
    _rules: std::marker::PhantomData<R>,
}

impl<R: Rules, const KEEP: bool> Builder<'_, R, KEEP> {
    #[inline]
    fn is_empty(&self, sq: u8) -> bool {
        sq != OFF && self.empty & (1 << sq) != 0
    }

    #[inline]
    fn capturable(&self, sq: u8, captured: u64) -> bool {
        sq != OFF && (self.opp & !captured) & (1 << sq) != 0
    }

    /// Records a finished capture, keeping only the best under the precedence rule.
    fn add(&mut self, to: u8, captured: u64) {
        let n = captured.count_ones();
        if R::MAJORITY {
            let value = R::precedence(Bitboard(captured), Bitboard(self.kings), !self.man);
            if value < self.best {
                return;
            }
            if value > self.best {
                self.best = value;
                self.out.clear();
            }
        }
        let to = Square::new(to);
        let mv = Move {
            from: self.from,
            to,
            captured: Bitboard(captured),
            // A man crowned on the way (Russian) stays a king wherever its capture ends.
            promotes: self.man && (self.crowned || self.promo.has(to)),
        };
        // Only captures of three or more pieces can be reached by two paths.
        if !KEEP && n >= 3 && self.out.contains(&mv) {
            return;
        }
        self.out.push(mv);
    }

    /// Captures by a man (or a short king) standing on `sq` after taking `captured`.
    fn step_captures(&mut self, sq: u8, captured: u64, dirs: &[usize]) {
        let g = R::GEO;
        let mut found = false;
        for &d in dirs {
            let v = g.step(sq, d);
            if self.capturable(v, captured) {
                let l = g.step(v, d);
                if self.is_empty(l) {
                    found = true;
                    if R::CROWN_IN_CAPTURE
                        && self.man
                        && !self.crowned
                        && self.promo.0 & (1 << l) != 0
                    {
                        self.crowned = true;
                        self.crowned_at(l, d, captured | 1 << v);
                        self.crowned = false;
                    } else {
                        self.step_captures(l, captured | 1 << v, dirs);
                    }
                }
            }
        }
        if !found && captured != 0 {
            self.add(sq, captured);
        }
    }

    /// A man crowned on `l` after capturing in direction `d` goes on capturing as a flying king.
    fn crowned_at(&mut self, l: u8, d: usize, captured: u64) {
        let mut found = false;
        for d2 in [d, d ^ 1, d ^ 2] {
            if let Some(v2) = self.victim(l, d2, captured) {
                found = true;
                self.king_after(v2, d2, captured | 1 << v2);
            }
        }
        if !found {
            self.add(l, captured);
        }
    }

    /// The first piece a flying king on `sq` meets in direction `d`, if it can be taken.
    #[inline]
    fn victim(&self, sq: u8, d: usize, captured: u64) -> Option<u8> {
        let g = R::GEO;
        let mut t = g.step(sq, d);
        while self.is_empty(t) {
            t = g.step(t, d);
        }
        (self.capturable(t, captured) && self.is_empty(g.step(t, d))).then_some(t)
    }

    /// From landing square `l`, a flying king turns into direction `d2` if it finds a piece to take.
    #[inline(always)]
    fn turn(&mut self, l: u8, d2: usize, captured: u64, found: &mut bool) {
        if let Some(v2) = self.victim(l, d2, captured) {
            *found = true;
            self.king_after(v2, d2, captured | 1 << v2);
        }
    }

    /// A flying king has just taken `v` moving in direction `d`; `captured` includes `v`.
    /// It may land on any free square beyond, and from each it may turn; going on straight is
    /// tried once, from the last free square, so that landing choices do not multiply paths.
    /// Turning back is never possible: the piece just taken still stands in the way.
    fn king_after(&mut self, v: u8, d: usize, captured: u64) {
        let g = R::GEO;
        let first = g.step(v, d);
        let mut last;
        let mut found = false;
        let mut l = first;
        loop {
            if R::ORTHOGONAL_CAPTURE {
                for d2 in 0..8 {
                    if d2 != d && d2 != d ^ 3 {
                        self.turn(l, d2, captured, &mut found);
                    }
                }
            } else {
                for d2 in [d ^ 1, d ^ 2] {
                    self.turn(l, d2, captured, &mut found);
                }
            }
            last = l;
            l = g.step(l, d);
            if !self.is_empty(l) {
                break;
            }
        }
        if self.capturable(l, captured) && self.is_empty(g.step(l, d)) {
            found = true;
            self.king_after(l, d, captured | 1 << l);
        }
        if !found {
            if R::KILLER && self.kings & (1 << v) != 0 {
                self.add(first, captured);
                return;
            }
            let mut t = first;
            loop {
                self.add(t, captured);
                if t == last {
                    break;
                }
                t = g.step(t, d);
            }
        }
    }
}

/// Every legal capture of the side to move into `out` (which the caller has cleared).
pub(crate) fn generate<R: Rules, const KEEP: bool>(pos: &Position, out: &mut MoveList) {
    let empty = pos.empty().0;
    let opp = pos.opp().0;
    let own = pos.own();
    let kings = pos.kings();
    let (promo, forward): (Bitboard, &[usize]) = match pos.turn() {
        Colour::White => (R::GEO.top_row, &[0, 1]),
        Colour::Black => (R::GEO.bottom_row, &[2, 3]),
    };
    let diagonal: &[usize] = if R::MEN_CAPTURE_BACKWARD {
        &[0, 1, 2, 3]
    } else {
        forward
    };
    let man_dirs: &[usize] = if R::ORTHOGONAL_CAPTURE {
        &ALL_DIRECTIONS
    } else {
        diagonal
    };
    let mut b = Builder::<R, KEEP> {
        out,
        from: Square::new(0),
        empty,
        opp,
        kings: kings.0,
        promo,
        man: true,
        crowned: false,
        best: 1,
        _rules: std::marker::PhantomData,
    };
    // Only men with an enemy piece next to them and a free square beyond can start a capture.
    let g = R::GEO;
    let men = own & !kings;
    let mut starters = Bitboard::EMPTY;
    for &d in diagonal {
        let victims = g.shift(Bitboard(empty), d ^ 3) & Bitboard(opp);
        starters |= g.shift(victims, d ^ 3) & men;
    }
    if R::ORTHOGONAL_CAPTURE {
        for d in UP..=DOWN {
            let victims = g.shift_any(Bitboard(empty), d ^ 3) & Bitboard(opp);
            starters |= g.shift_any(victims, d ^ 3) & men;
        }
    }
    for from in starters {
        b.from = from;
        b.empty = empty | 1 << from.index();
        b.man = true;
        b.step_captures(from.index(), 0, man_dirs);
    }
    for from in own & kings {
        b.from = from;
        b.empty = empty | 1 << from.index();
        b.man = false;
        if R::FLYING_KINGS {
            for d in 0..directions::<R>() {
                if let Some(v) = b.victim(from.index(), d, 0) {
                    b.king_after(v, d, 1 << v);
                }
            }
        } else {
            b.step_captures(from.index(), 0, &[0, 1, 2, 3]);
        }
    }
}
