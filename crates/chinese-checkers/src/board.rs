//! The star board: 121 holes, their names, neighbours, hop landings and rays, and the six camps.
//!
//! Holes live in cube coordinates (q, r, s) with q + r + s = 0. The star is the union of two
//! triangles of 91 holes each: every coordinate >= -4, or every coordinate <= 4. Rows run along
//! r from -8 (the bottom point, row `a`) to 8 (the top point, row `q`); a hole is named by its
//! row letter and its place in the row counted from the left, so the bottom point is `a1`, the
//! long rows are `e1`..`e13` and `m1`..`m13`, and the centre is `i5`. Bit `i` of a [`Holes`] set
//! is the `i`-th hole in that reading order (row by row from the bottom, left to right).

use std::fmt;

/// Number of holes on the star.
pub const HOLES: usize = 121;

/// A hole, as its bit index in reading order (0 = `a1`, 120 = `q1`).
#[derive(Copy, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Debug)]
pub struct Hole(u8);

impl Hole {
    /// The hole with this bit index, if there is one.
    pub const fn new(index: usize) -> Option<Hole> {
        if index < HOLES {
            Some(Hole(index as u8))
        } else {
            None
        }
    }
    /// Bit index in reading order.
    pub const fn index(self) -> usize {
        self.0 as usize
    }
    /// The one-hole set.
    pub const fn bit(self) -> Holes {
        Holes(1u128 << self.0)
    }
    /// Cube coordinates (q, r, s).
    pub const fn cube(self) -> (i8, i8, i8) {
        let (q, r) = GEOMETRY.coords[self.0 as usize];
        (q, r, -q - r)
    }
    /// The hole at these axial coordinates, if it is on the star.
    pub const fn at(q: i8, r: i8) -> Option<Hole> {
        if !on_star(q, r) {
            return None;
        }
        let row = (r + 8) as usize;
        Some(Hole(
            GEOMETRY.row_start[row] + (q - GEOMETRY.row_qmin[row]) as u8,
        ))
    }
    /// The neighbour in direction `dir` (0..6), if on the star.
    pub fn step(self, dir: usize) -> Option<Hole> {
        let n = GEOMETRY.neighbour[self.index()][dir];
        (n != NONE).then_some(Hole(n))
    }
    /// The holes along direction `dir`, nearest first, up to the board's edge.
    pub fn ray(self, dir: usize) -> impl Iterator<Item = Hole> {
        GEOMETRY.ray[self.index()][dir]
            .into_iter()
            .take_while(|&h| h != NONE)
            .map(Hole)
    }
    /// Row letter index 0..17 (`a` = 0, bottom) and place in the row from 1.
    pub const fn row_and_place(self) -> (usize, usize) {
        let (q, r) = GEOMETRY.coords[self.0 as usize];
        let row = (r + 8) as usize;
        (row, (q - GEOMETRY.row_qmin[row]) as usize + 1)
    }
    /// Parses a name such as `a1`, `e13` or `i5`.
    pub fn parse(text: &str) -> Option<Hole> {
        let mut chars = text.chars();
        let letter = chars.next()?;
        if !letter.is_ascii_lowercase() {
            return None;
        }
        let row = (letter as u8 - b'a') as usize;
        if row >= 17 {
            return None;
        }
        let digits = chars.as_str();
        if digits.is_empty() || digits.len() > 2 || !digits.bytes().all(|b| b.is_ascii_digit()) {
            return None;
        }
        let place: usize = digits.parse().ok()?;
        if place == 0 || place > GEOMETRY.row_len[row] as usize {
            return None;
        }
        Some(Hole(GEOMETRY.row_start[row] + place as u8 - 1))
    }
}

impl fmt::Display for Hole {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (row, place) = self.row_and_place();
        write!(f, "{}{}", (b'a' + row as u8) as char, place)
    }
}

/// A set of holes: one bit per hole in reading order.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Default, Debug)]
pub struct Holes(pub u128);

impl Holes {
    /// No hole.
    pub const EMPTY: Holes = Holes(0);
    /// Every hole of the star.
    pub const ALL: Holes = Holes((1u128 << HOLES) - 1);
    /// Whether the hole is in the set.
    pub const fn has(self, h: Hole) -> bool {
        self.0 >> h.0 & 1 != 0
    }
    /// Number of holes in the set.
    pub const fn count(self) -> u32 {
        self.0.count_ones()
    }
    /// Whether the set is empty.
    pub const fn is_empty(self) -> bool {
        self.0 == 0
    }
    /// The holes, in reading order.
    pub fn iter(self) -> impl Iterator<Item = Hole> {
        let mut bits = self.0;
        std::iter::from_fn(move || {
            if bits == 0 {
                return None;
            }
            let i = bits.trailing_zeros() as u8;
            bits &= bits - 1;
            Some(Hole(i))
        })
    }
}

impl std::ops::BitOr for Holes {
    type Output = Holes;
    fn bitor(self, o: Holes) -> Holes {
        Holes(self.0 | o.0)
    }
}
impl std::ops::BitAnd for Holes {
    type Output = Holes;
    fn bitand(self, o: Holes) -> Holes {
        Holes(self.0 & o.0)
    }
}
impl std::ops::Not for Holes {
    type Output = Holes;
    fn not(self) -> Holes {
        Holes(!self.0 & Holes::ALL.0)
    }
}
impl std::ops::BitOrAssign for Holes {
    fn bitor_assign(&mut self, o: Holes) {
        self.0 |= o.0;
    }
}

/// One of the six camps (the star's points), clockwise from the bottom: `A` bottom, `B` lower
/// left, `C` upper left, `D` top, `E` upper right, `F` lower right. A player is named by the
/// camp it starts in; its goal is the camp straight across (`A` <-> `D`, `B` <-> `E`, `C` <-> `F`).
#[derive(Copy, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Debug)]
pub struct Camp(u8);

impl Camp {
    /// The six camps in turn order.
    pub const ALL: [Camp; 6] = [Camp(0), Camp(1), Camp(2), Camp(3), Camp(4), Camp(5)];
    /// The camp with this index (0 = `A` .. 5 = `F`).
    pub const fn new(index: usize) -> Option<Camp> {
        if index < 6 {
            Some(Camp(index as u8))
        } else {
            None
        }
    }
    /// Index 0..6.
    pub const fn index(self) -> usize {
        self.0 as usize
    }
    /// The camp straight across: where this camp's player must go.
    pub const fn opposite(self) -> Camp {
        Camp((self.0 + 3) % 6)
    }
    /// The ten holes of the camp.
    pub const fn holes(self) -> Holes {
        GEOMETRY.camps[self.0 as usize]
    }
    /// Capital letter `A`..`F`.
    pub const fn letter(self) -> char {
        (b'A' + self.0) as char
    }
    /// The camp of a capital letter.
    pub fn from_letter(c: char) -> Option<Camp> {
        ('A'..='F').contains(&c).then(|| Camp(c as u8 - b'A'))
    }
    /// How far the hole lies along this camp's way to its goal: from -8 (the tip of the home
    /// camp) to 8 (the tip of the goal); the goal camp is exactly the holes at 5 or more.
    pub const fn forward(self, h: Hole) -> i8 {
        let (q, r, s) = h.cube();
        match self.0 {
            0 => r,
            1 => -s,
            2 => q,
            3 => -r,
            4 => s,
            _ => -q,
        }
    }
    /// How far the hole lies off the straight line from home to goal (0 on it).
    pub const fn lateral(self, h: Hole) -> i8 {
        let (q, r, s) = h.cube();
        let d = match self.0 % 3 {
            0 => q - s,
            1 => q - r,
            _ => r - s,
        };
        if d < 0 {
            -d
        } else {
            d
        }
    }
    /// The two directions that gain ground toward the goal.
    pub const fn forward_dirs(self) -> [usize; 2] {
        FORWARD_DIRS[self.0 as usize]
    }
}

impl fmt::Display for Camp {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.letter())
    }
}

/// The six directions in axial (dq, dr): E, NE, NW, W, SW, SE. `d` and `(d + 3) % 6` are opposite.
pub const DIRS: [(i8, i8); 6] = [(1, 0), (0, 1), (-1, 1), (-1, 0), (0, -1), (1, -1)];

/// For each camp, the directions whose step raises [`Camp::forward`] by one.
const FORWARD_DIRS: [[usize; 2]; 6] = {
    let mut out = [[0usize; 2]; 6];
    let mut c = 0;
    while c < 6 {
        let mut k = 0;
        let mut d = 0;
        while d < 6 {
            let (dq, dr) = DIRS[d];
            let ds = -dq - dr;
            let gain = match c {
                0 => dr,
                1 => -ds,
                2 => dq,
                3 => -dr,
                4 => ds,
                _ => -dq,
            };
            if gain == 1 {
                out[c][k] = d;
                k += 1;
            }
            d += 1;
        }
        c += 1;
    }
    out
};

const NONE: u8 = u8::MAX;

const fn on_star(q: i8, r: i8) -> bool {
    let s = -q - r;
    (q >= -4 && r >= -4 && s >= -4) || (q <= 4 && r <= 4 && s <= 4)
}

/// Every table the rules read, built at compile time.
struct Geometry {
    coords: [(i8, i8); HOLES],
    row_start: [u8; 17],
    row_len: [u8; 17],
    row_qmin: [i8; 17],
    neighbour: [[u8; 6]; HOLES],
    ray: [[[u8; 16]; 6]; HOLES],
    camps: [Holes; 6],
}

const GEOMETRY: Geometry = build();

const fn build() -> Geometry {
    let mut g = Geometry {
        coords: [(0, 0); HOLES],
        row_start: [0; 17],
        row_len: [0; 17],
        row_qmin: [0; 17],
        neighbour: [[NONE; 6]; HOLES],
        ray: [[[NONE; 16]; 6]; HOLES],
        camps: [Holes(0); 6],
    };
    let mut n = 0usize;
    let mut row = 0usize;
    while row < 17 {
        let r = row as i8 - 8;
        g.row_start[row] = n as u8;
        let mut q = -8i8;
        let mut first = true;
        while q <= 8 {
            if on_star(q, r) {
                if first {
                    g.row_qmin[row] = q;
                    first = false;
                }
                g.coords[n] = (q, r);
                n += 1;
            }
            q += 1;
        }
        g.row_len[row] = n as u8 - g.row_start[row];
        row += 1;
    }
    let mut i = 0;
    while i < HOLES {
        let (q, r) = g.coords[i];
        let s = -q - r;
        let camp = if r < -4 {
            0
        } else if s > 4 {
            1
        } else if q < -4 {
            2
        } else if r > 4 {
            3
        } else if s < -4 {
            4
        } else if q > 4 {
            5
        } else {
            6
        };
        if camp < 6 {
            g.camps[camp].0 |= 1u128 << i;
        }
        let mut d = 0;
        while d < 6 {
            let (dq, dr) = DIRS[d];
            let mut k = 0;
            let (mut cq, mut cr) = (q + dq, r + dr);
            while on_star(cq, cr) {
                let row = (cr + 8) as usize;
                let idx = g.row_start[row] + (cq - g.row_qmin[row]) as u8;
                g.ray[i][d][k] = idx;
                if k == 0 {
                    g.neighbour[i][d] = idx;
                }
                k += 1;
                cq += dq;
                cr += dr;
            }
            d += 1;
        }
        i += 1;
    }
    g
}

/// Per hole and direction: the neighbour (`over`) and the hole beyond it (`land`), as one-bit sets
/// (zero off the board), for hop generation with set operations.
pub(crate) struct HopTable {
    pub(crate) steps: [Holes; HOLES],
    pub(crate) over: [[u128; 6]; HOLES],
    pub(crate) land: [[u128; 6]; HOLES],
}

pub(crate) const HOP_TABLE: HopTable = {
    let mut t = HopTable {
        steps: [Holes(0); HOLES],
        over: [[0; 6]; HOLES],
        land: [[0; 6]; HOLES],
    };
    let mut i = 0;
    while i < HOLES {
        let mut d = 0;
        while d < 6 {
            let a = GEOMETRY.ray[i][d][0];
            let b = GEOMETRY.ray[i][d][1];
            if a != NONE {
                t.steps[i].0 |= 1u128 << a;
                if b != NONE {
                    t.over[i][d] = 1u128 << a;
                    t.land[i][d] = 1u128 << b;
                }
            }
            d += 1;
        }
        i += 1;
    }
    t
};

/// The holes along a ray as raw indices, for the long-hop generator.
pub(crate) fn ray_indices(h: Hole, dir: usize) -> &'static [u8; 16] {
    &GEOMETRY.ray[h.index()][dir]
}

/// Sentinel that ends a ray in [`ray_indices`].
pub(crate) const RAY_END: u8 = NONE;

/// The point reflection through the centre: maps every camp onto the one across.
pub fn rotate_half(h: Hole) -> Hole {
    let (q, r, _) = h.cube();
    Hole::at(-q, -r).expect("the star is centrally symmetric")
}

/// The mirror in the line through the centre across the `A`-`D` axis (swaps `A` and `D`, keeps
/// left and right): (q, r, s) -> (-s, -r, -q).
pub fn mirror_ad(h: Hole) -> Hole {
    let (q, r, s) = h.cube();
    let _ = q;
    Hole::at(-s, -r).expect("the star is symmetric in this mirror")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn star_has_rows_of_the_right_lengths() {
        let lens: Vec<u8> = GEOMETRY.row_len.to_vec();
        assert_eq!(
            lens,
            [1, 2, 3, 4, 13, 12, 11, 10, 9, 10, 11, 12, 13, 4, 3, 2, 1]
        );
        for c in Camp::ALL {
            assert_eq!(c.holes().count(), 10, "camp {c}");
        }
        let mut union = Holes::EMPTY;
        for c in Camp::ALL {
            union |= c.holes();
        }
        assert_eq!(union.count(), 60);
    }

    #[test]
    fn names_round_trip() {
        for i in 0..HOLES {
            let h = Hole::new(i).unwrap();
            assert_eq!(Hole::parse(&h.to_string()), Some(h));
        }
        assert_eq!(Hole::parse("a1").unwrap().index(), 0);
        assert_eq!(Hole::parse("q1").unwrap().index(), 120);
        assert_eq!(Hole::parse("i5").unwrap().cube(), (0, 0, 0));
        for bad in ["", "a0", "a2", "r1", "e14", "A1", "e", "e1x", "e001"] {
            assert_eq!(Hole::parse(bad), None, "{bad}");
        }
    }

    #[test]
    fn camps_sit_where_the_letters_say() {
        assert!(Camp::ALL[0].holes().has(Hole::parse("a1").unwrap()));
        assert!(Camp::ALL[3].holes().has(Hole::parse("q1").unwrap()));
        // Row e, place 1 is the lower-left point's tip; place 13 the lower-right's.
        assert!(Camp::ALL[1].holes().has(Hole::parse("e1").unwrap()));
        assert!(Camp::ALL[5].holes().has(Hole::parse("e13").unwrap()));
        assert!(Camp::ALL[2].holes().has(Hole::parse("m1").unwrap()));
        assert!(Camp::ALL[4].holes().has(Hole::parse("m13").unwrap()));
        for c in Camp::ALL {
            for h in c.holes().iter() {
                assert!(c.forward(h) <= -5);
                assert!(c.opposite().forward(h) >= 5);
            }
            let ahead = (0..HOLES)
                .filter_map(Hole::new)
                .filter(|&h| c.forward(h) >= 5)
                .count();
            assert_eq!(ahead, 10);
        }
    }

    #[test]
    fn symmetries_map_home_onto_goal() {
        let a = Camp::ALL[0].holes();
        let d = Camp::ALL[3].holes();
        for h in a.iter() {
            assert!(d.has(rotate_half(h)));
            assert!(d.has(mirror_ad(h)));
        }
    }
}
