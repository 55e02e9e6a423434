//! Board geometry: field numbers, the padded bit layout, neighbour tables and special rows.
//!
//! Both boards put the playable squares of each row side by side in the bit layout and leave one
//! ghost bit after every two rows (`columns` fields), so a diagonal step is always the same shift:
//! `-(h+1)`, `-h`, `+h`, `+(h+1)` with `h = columns / 2`. On 10x10 the ghosts are bits 10, 21, 32, 43;
//! a step off the board lands on a ghost or outside the mask. Field 1 is the top-left playable square
//! (the second square of the top row, from White's side) and Black starts on the low fields.
//!
//! Frisian draughts also captures orthogonally: over the piece two columns to the side on the same
//! row, or two rows up or down in the same column (the nearest squares of the same colour). In this
//! layout those neighbours are not one uniform shift: `+1` from the last field of a row lands on the
//! first field of the next row. So the orthogonal neighbours are tables built from row and column
//! (`next[UP..=DOWN]`), and bulk shifts first keep only the squares that have such a neighbour
//! (`ortho_from`), after which the step is uniform (`±1` sideways, `±(columns+1)` vertically).

use crate::bitboard::Bitboard;
use crate::square::Square;

/// Sentinel square index of the neighbour tables: off the board. Bit 63 is in no board's mask.
pub const OFF: u8 = 63;

/// The four diagonal directions, in the order of `Geometry::steps`.
/// `d ^ 3` is the reverse of `d`; `d ^ 1` and `d ^ 2` are the two perpendicular directions.
pub const UP_LEFT: usize = 0;
/// Towards field 1's row, to the right.
pub const UP_RIGHT: usize = 1;
/// Towards the last row, to the left.
pub const DOWN_LEFT: usize = 2;
/// Towards the last row, to the right.
pub const DOWN_RIGHT: usize = 3;
/// Orthogonal: two rows towards field 1's row, same column (Frisian captures only).
/// The orthogonal directions follow the diagonal ones so that `d ^ 3` is still the reverse.
pub const UP: usize = 4;
/// Orthogonal: two columns to the left, same row.
pub const LEFT: usize = 5;
/// Orthogonal: two columns to the right, same row.
pub const RIGHT: usize = 6;
/// Orthogonal: two rows towards the last row, same column.
pub const DOWN: usize = 7;

/// Everything about one board size that move generation and notation need, built at compile time.
#[derive(Debug)]
pub struct Geometry {
    /// Squares per row and column (10 or 8).
    pub columns: u8,
    /// Number of playable fields (50 or 32).
    pub fields: u8,
    /// All playable squares.
    pub mask: Bitboard,
    /// Bit-index step per diagonal direction.
    pub steps: [i8; 4],
    /// Neighbour of a square per direction, `OFF` when there is none: the four diagonal directions,
    /// then the four orthogonal ones (`UP`, `LEFT`, `RIGHT`, `DOWN`: the nearest square of the same
    /// colour, two columns or two rows away).
    pub next: [[u8; 64]; 8],
    /// Bit-index step per orthogonal direction (`d - UP`), valid from the squares of `ortho_from`.
    pub ortho_steps: [i8; 4],
    /// Per orthogonal direction (`d - UP`): the squares that have a neighbour that way.
    pub ortho_from: [Bitboard; 4],
    /// Field number of each square index (0 for ghosts and unused bits).
    pub field_of: [u8; 64],
    /// Square index of each field number (index 0 unused).
    pub square_of: [u8; 51],
    /// Row 0 (where White promotes) and the last row (where Black promotes).
    pub top_row: Bitboard,
    /// The last row, where Black promotes.
    pub bottom_row: Bitboard,
    /// The men of each side at the start: White's fields, then Black's.
    pub initial: [Bitboard; 2],
}

const fn bit_of(columns: u8, field: u8) -> u8 {
    (field - 1) + (field - 1) / columns
}

/// Row and column of a field on the board (row 0 holds field 1; even rows start at column 1).
const fn coords(columns: u8, field: u8) -> (i32, i32) {
    let h = (columns / 2) as i32;
    let r = (field as i32 - 1) / h;
    let i = (field as i32 - 1) % h;
    (r, 2 * i + if r % 2 == 0 { 1 } else { 0 })
}

const fn field_at(columns: u8, r: i32, c: i32) -> u8 {
    let n = columns as i32;
    if r < 0 || c < 0 || r >= n || c >= n || (r + c) % 2 == 0 {
        return 0;
    }
    (r * (n / 2) + c / 2 + 1) as u8
}

impl Geometry {
    const fn build(columns: u8) -> Geometry {
        let fields = columns * columns / 2;
        let h = (columns / 2) as i8;
        let mut mask = 0u64;
        let mut field_of = [0u8; 64];
        let mut square_of = [0u8; 51];
        let mut next = [[OFF; 64]; 8];
        let mut ortho_from = [Bitboard(0); 4];
        let mut top = 0u64;
        let mut bottom = 0u64;
        let mut white = 0u64;
        let mut black = 0u64;
        let rows_each = (columns / 2 - 1) as i32;
        let mut f = 1u8;
        while f <= fields {
            let b = bit_of(columns, f);
            mask |= 1 << b;
            field_of[b as usize] = f;
            square_of[f as usize] = b;
            let (r, c) = coords(columns, f);
            if r == 0 {
                top |= 1 << b;
            }
            if r == columns as i32 - 1 {
                bottom |= 1 << b;
            }
            if r < rows_each {
                black |= 1 << b;
            }
            if r >= columns as i32 - rows_each {
                white |= 1 << b;
            }
            // Diagonal, then orthogonal (same colour: two rows or two columns away).
            let dr = [-1, -1, 1, 1, -2, 0, 0, 2];
            let dc = [-1, 1, -1, 1, 0, -2, 2, 0];
            let mut d = 0;
            while d < 8 {
                let g = field_at(columns, r + dr[d], c + dc[d]);
                if g != 0 {
                    next[d][b as usize] = bit_of(columns, g);
                    if d >= UP {
                        ortho_from[d - UP].0 |= 1 << b;
                    }
                }
                d += 1;
            }
            f += 1;
        }
        Geometry {
            columns,
            fields,
            mask: Bitboard(mask),
            steps: [-(h + 1), -h, h, h + 1],
            next,
            // Two rows are `columns` fields plus one ghost bit; a row's fields are consecutive bits.
            ortho_steps: [-(columns as i8 + 1), -1, 1, columns as i8 + 1],
            ortho_from,
            field_of,
            square_of,
            top_row: Bitboard(top),
            bottom_row: Bitboard(bottom),
            initial: [Bitboard(white), Bitboard(black)],
        }
    }

    /// The square of a field number, if the board has that field.
    #[must_use]
    pub fn square(&self, field: u32) -> Option<Square> {
        (1..=u32::from(self.fields))
            .contains(&field)
            .then(|| Square::new(self.square_of[field as usize]))
    }

    /// The field number of a square of this board.
    #[must_use]
    pub fn field(&self, sq: Square) -> u8 {
        self.field_of[sq.index() as usize]
    }

    /// Every square shifted one step in direction `d`, restricted to the board.
    #[inline]
    #[must_use]
    pub const fn shift(&self, b: Bitboard, d: usize) -> Bitboard {
        let s = self.steps[d];
        let moved = if s > 0 { b.0 << s } else { b.0 >> -s };
        Bitboard(moved & self.mask.0)
    }

    /// Every square shifted one step in direction `d`, diagonal or orthogonal (`d < 8`).
    #[inline]
    #[must_use]
    pub const fn shift_any(&self, b: Bitboard, d: usize) -> Bitboard {
        if d < UP {
            return self.shift(b, d);
        }
        let s = self.ortho_steps[d - UP];
        let from = b.0 & self.ortho_from[d - UP].0;
        Bitboard(if s > 0 { from << s } else { from >> -s })
    }

    /// The neighbour of `sq` in direction `d` (diagonal or orthogonal), as a raw index (`OFF` when
    /// off the board).
    #[inline]
    #[must_use]
    pub const fn step(&self, sq: u8, d: usize) -> u8 {
        self.next[d][sq as usize]
    }
}

/// The international 10x10 board: fields 1..=50.
pub const TEN: Geometry = Geometry::build(10);
/// The 8x8 board: fields 1..=32.
pub const EIGHT: Geometry = Geometry::build(8);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ten_by_ten_layout_matches_the_documented_mask() {
        assert_eq!(TEN.mask.0, 0x003f_f7fe_ffdf_fbff);
        assert_eq!(TEN.mask.count(), 50);
        assert_eq!(EIGHT.mask.count(), 32);
    }

    #[test]
    fn shifts_agree_with_neighbour_tables() {
        for g in [&TEN, &EIGHT] {
            for sq in g.mask {
                for d in 0..4 {
                    let by_shift = g.shift(Bitboard::from_square(sq), d);
                    let by_table = g.step(sq.index(), d);
                    if by_table == OFF {
                        assert!(by_shift.is_empty(), "{d} from field {}", g.field(sq));
                    } else {
                        assert_eq!(by_shift.0, 1 << by_table, "{d} from field {}", g.field(sq));
                    }
                }
            }
        }
    }

    #[test]
    fn field_neighbours_on_ten_by_ten() {
        let n = |f: u32, d| {
            let t = TEN.step(TEN.square(f).unwrap().index(), d);
            if t == OFF {
                0
            } else {
                TEN.field_of[t as usize]
            }
        };
        assert_eq!(
            [
                n(1, UP_LEFT),
                n(1, UP_RIGHT),
                n(1, DOWN_LEFT),
                n(1, DOWN_RIGHT)
            ],
            [0, 0, 6, 7]
        );
        assert_eq!(
            [n(6, DOWN_LEFT), n(6, DOWN_RIGHT), n(6, UP_RIGHT)],
            [0, 11, 1]
        );
        assert_eq!(
            [
                n(28, UP_LEFT),
                n(28, UP_RIGHT),
                n(28, DOWN_LEFT),
                n(28, DOWN_RIGHT)
            ],
            [22, 23, 32, 33]
        );
        assert_eq!(
            [n(45, DOWN_LEFT), n(45, DOWN_RIGHT), n(46, UP_RIGHT)],
            [50, 0, 41]
        );
    }

    /// The neighbour of field `f` in direction `d` as a field number (0 when off the board).
    fn neighbour(g: &Geometry, f: u32, d: usize) -> u8 {
        let t = g.step(g.square(f).unwrap().index(), d);
        if t == OFF {
            0
        } else {
            g.field_of[t as usize]
        }
    }

    #[test]
    fn orthogonal_neighbours_on_ten_by_ten() {
        let n = |f, d| neighbour(&TEN, f, d);
        // Field 28 is row 5, column 4: up 18 (row 3), down 38 (row 7), left 27, right 29.
        assert_eq!(
            [n(28, UP), n(28, LEFT), n(28, RIGHT), n(28, DOWN)],
            [18, 27, 29, 38]
        );
        // Row ends: 5 is the last field of row 0 and 6 the first of row 1; no wrap between them.
        assert_eq!(
            [n(5, RIGHT), n(6, LEFT), n(5, LEFT), n(6, RIGHT)],
            [0, 0, 4, 7]
        );
        assert_eq!([n(1, UP), n(1, DOWN), n(6, UP), n(6, DOWN)], [0, 11, 0, 16]);
        assert_eq!(
            [n(46, DOWN), n(46, UP), n(50, DOWN), n(45, DOWN)],
            [0, 36, 0, 0]
        );
        assert_eq!(
            [n(41, DOWN), n(41, UP), n(40, DOWN), n(10, RIGHT)],
            [0, 31, 50, 0]
        );
    }

    #[test]
    fn orthogonal_neighbours_on_eight_by_eight() {
        let n = |f, d| neighbour(&EIGHT, f, d);
        assert_eq!(
            [n(14, UP), n(14, LEFT), n(14, RIGHT), n(14, DOWN)],
            [6, 13, 15, 22]
        );
        assert_eq!(
            [n(4, RIGHT), n(5, LEFT), n(29, DOWN), n(32, UP)],
            [0, 0, 0, 24]
        );
    }

    #[test]
    fn orthogonal_neighbours_by_coordinates() {
        // Every pair of fields on one row two columns apart, or in one column two rows apart, is a
        // pair of orthogonal neighbours, and nothing else is.
        for g in [&TEN, &EIGHT] {
            let n = i32::from(g.columns);
            for f in 1..=u32::from(g.fields) {
                let (r, c) = coords(g.columns, f as u8);
                for (d, dr, dc) in [(UP, -2, 0), (LEFT, 0, -2), (RIGHT, 0, 2), (DOWN, 2, 0)] {
                    let want = field_at(g.columns, r + dr, c + dc);
                    assert_eq!(neighbour(g, f, d), want, "{n}x{n} field {f} dir {d}");
                    if want != 0 {
                        assert_eq!(neighbour(g, u32::from(want), d ^ 3), f as u8);
                    }
                }
            }
        }
    }

    #[test]
    fn orthogonal_shifts_agree_with_neighbour_tables() {
        for g in [&TEN, &EIGHT] {
            for sq in g.mask {
                for d in 0..8 {
                    let by_shift = g.shift_any(Bitboard::from_square(sq), d);
                    let by_table = g.step(sq.index(), d);
                    if by_table == OFF {
                        assert!(by_shift.is_empty(), "{d} from field {}", g.field(sq));
                    } else {
                        assert_eq!(by_shift.0, 1 << by_table, "{d} from field {}", g.field(sq));
                    }
                }
            }
            // A whole-board shift moves every square that has a neighbour, and only those.
            for d in UP..=DOWN {
                assert_eq!(g.shift_any(g.mask, d).count(), g.ortho_from[d - UP].count());
                assert!((g.shift_any(g.mask, d) & !g.mask).is_empty());
            }
        }
    }

    #[test]
    fn initial_rows() {
        assert_eq!(TEN.initial[1].count(), 20);
        assert_eq!(TEN.field(TEN.initial[0].first().unwrap()), 31);
        assert_eq!(EIGHT.initial[1].count(), 12);
        assert_eq!(EIGHT.field(EIGHT.initial[0].first().unwrap()), 21);
    }
}
