//! Dense numbering of a slice's positions, and the field-set form of a position the builder works on.
//!
//! A position is seen from the side to move, which moves up the board (towards field 1) as White
//! does; a position with Black to move is turned round first. Its pieces are sets of fields, bit
//! `f - 1` for field `f`. The index of a position in its slice is, most significant first: the side
//! to move's men among fields 6-50 (a man on its far row would be a king), the other side's men
//! among fields 1-45, then the side to move's kings among the squares the men leave free, then the
//! other side's kings among the squares still free. Each part is the colex rank of a combination.
//! Two men on one square make a number that no position has (`decode` says so); the waste is small
//! (under 12% on five pieces) and keeps every part a fixed-size digit.

use crate::material::Material;
use kroon_rules::geometry::{OFF, TEN};
use kroon_rules::{Bitboard, Colour, Move, Position, Variant};

/// All 50 fields.
pub const ALL: u64 = (1 << 50) - 1;
/// Fields a man of the side to move may stand on (6-50).
pub const OWN_MEN: u64 = ALL & !0b11111;
/// Fields a man of the other side may stand on (1-45).
pub const OPP_MEN: u64 = ALL >> 5;

/// A position as field sets, the side to move moving towards field 1.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug, Default)]
pub struct Board {
    /// Men of the side to move.
    pub own_men: u64,
    /// Kings of the side to move.
    pub own_kings: u64,
    /// Men of the other side.
    pub opp_men: u64,
    /// Kings of the other side.
    pub opp_kings: u64,
}

/// Fields turned round (field `f` becomes `51 - f`).
#[inline]
#[must_use]
pub const fn turn_round(set: u64) -> u64 {
    set.reverse_bits() >> 14
}

impl Board {
    /// The slice the position belongs to.
    #[must_use]
    pub fn material(&self) -> Material {
        Material::new(
            self.own_men.count_ones() as u8,
            self.own_kings.count_ones() as u8,
            self.opp_men.count_ones() as u8,
            self.opp_kings.count_ones() as u8,
        )
    }

    /// Every occupied field.
    #[inline]
    #[must_use]
    pub const fn occupied(&self) -> u64 {
        self.own_men | self.own_kings | self.opp_men | self.opp_kings
    }

    /// The position from the other side's point of view (the board turned round, sides swapped).
    #[inline]
    #[must_use]
    pub const fn swapped(&self) -> Board {
        Board {
            own_men: turn_round(self.opp_men),
            own_kings: turn_round(self.opp_kings),
            opp_men: turn_round(self.own_men),
            opp_kings: turn_round(self.own_kings),
        }
    }

    /// An international draughts position, seen from its side to move.
    #[must_use]
    pub fn from_position(pos: &Position) -> Board {
        let mover = pos.turn();
        let b = Board {
            own_men: fields(pos.pieces(mover) & !pos.kings()),
            own_kings: fields(pos.pieces(mover) & pos.kings()),
            opp_men: fields(pos.pieces(!mover) & !pos.kings()),
            opp_kings: fields(pos.pieces(!mover) & pos.kings()),
        };
        if mover == Colour::White {
            b
        } else {
            // Black moves towards field 50: turn the board so that it moves up.
            Board {
                own_men: turn_round(b.own_men),
                own_kings: turn_round(b.own_kings),
                opp_men: turn_round(b.opp_men),
                opp_kings: turn_round(b.opp_kings),
            }
        }
    }

    /// The position after the side to move plays `mv` (a legal move of `to_position`), seen from
    /// the other side, who is then to move.
    #[inline]
    #[must_use]
    pub fn after(&self, mv: &Move) -> Board {
        let from = fields(Bitboard::from_square(mv.from));
        let to = fields(Bitboard::from_square(mv.to));
        let taken = fields(mv.captured);
        let king = self.own_kings & from != 0 || mv.promotes;
        let (mut men, mut kings) = (self.own_men & !from, self.own_kings & !from);
        if king {
            kings |= to;
        } else {
            men |= to;
        }
        Board {
            own_men: men,
            own_kings: kings,
            opp_men: self.opp_men & !taken,
            opp_kings: self.opp_kings & !taken,
        }
        .swapped()
    }

    /// The position with White as the side to move.
    #[must_use]
    pub fn to_position(&self) -> Position {
        let white = squares(self.own_men | self.own_kings);
        let black = squares(self.opp_men | self.opp_kings);
        let kings = squares(self.own_kings | self.opp_kings);
        Position::from_parts(Variant::International, white, black, kings, Colour::White)
    }
}

/// The fields of a 10x10 bitboard as a field set: the layout keeps ten fields, then a ghost bit.
#[inline]
#[must_use]
pub const fn fields(b: Bitboard) -> u64 {
    let b = b.0;
    (b & 0x3ff)
        | ((b >> 11) & 0x3ff) << 10
        | ((b >> 22) & 0x3ff) << 20
        | ((b >> 33) & 0x3ff) << 30
        | ((b >> 44) & 0x3ff) << 40
}

/// The 10x10 bitboard of a field set.
#[inline]
#[must_use]
pub const fn squares(set: u64) -> Bitboard {
    Bitboard(
        (set & 0x3ff)
            | ((set >> 10) & 0x3ff) << 11
            | ((set >> 20) & 0x3ff) << 22
            | ((set >> 30) & 0x3ff) << 33
            | ((set >> 40) & 0x3ff) << 44,
    )
}

/// Neighbour fields (0-based) of each field in the two directions towards field 1, then the two
/// away from it; -1 off the board.
pub static NEIGHBOURS: [[i8; 4]; 50] = neighbours();

const fn neighbours() -> [[i8; 4]; 50] {
    let mut t = [[-1i8; 4]; 50];
    let mut f = 0;
    while f < 50 {
        let sq = TEN.square_of[f + 1] as usize;
        let mut d = 0;
        while d < 4 {
            let n = TEN.next[d][sq];
            if n != OFF {
                t[f][d] = TEN.field_of[n as usize] as i8 - 1;
            }
            d += 1;
        }
        f += 1;
    }
    t
}

/// Binomial coefficients C(n, k) for n, k up to 50.
static BINOMIAL: [[u64; 51]; 51] = binomials();

const fn binomials() -> [[u64; 51]; 51] {
    let mut t = [[0u64; 51]; 51];
    let mut n = 0;
    while n <= 50 {
        t[n][0] = 1;
        let mut k = 1;
        while k <= n {
            t[n][k] = t[n - 1][k - 1] + if k < n { t[n - 1][k] } else { 0 };
            k += 1;
        }
        n += 1;
    }
    t
}

/// C(p, i) for the ranks of at most 7 pieces of a kind, by `[i][p]`: 2 KB, with rows for the
/// few `i` that occur side by side, so that a build's arrays do not push it out of the caches.
/// Past 50 an entry is larger than any rank, so that each row rises all the way for
/// [`unrank`]'s bisection.
static RANKS: [[u32; 64]; 8] = ranks();

const fn ranks() -> [[u32; 64]; 8] {
    let b = binomials();
    let mut t = [[u32::MAX; 64]; 8];
    let mut i = 0;
    while i < 8 {
        let mut p = 0;
        while p <= 50 {
            t[i][p] = b[p][i] as u32;
            p += 1;
        }
        i += 1;
    }
    t
}

/// C(p, i) for `i` below 8 and `p` at most 50.
#[inline(always)]
fn rank_term(p: u32, i: usize) -> u64 {
    debug_assert!(i < 8 && p <= 50);
    u64::from(RANKS[i & 7][(p & 63) as usize])
}

/// C(n, k).
#[inline]
#[must_use]
pub fn binomial(n: u32, k: u32) -> u64 {
    if k > n {
        0
    } else {
        BINOMIAL[n as usize][k as usize]
    }
}

/// Colex rank of a set of small numbers (bits of `set`).
#[inline]
fn rank(mut set: u64) -> u64 {
    let mut r = 0;
    let mut i = 1;
    while set != 0 {
        r += rank_term(set.trailing_zeros(), i);
        set &= set - 1;
        i += 1;
    }
    r
}

/// The `k`-element set of colex rank `r` (`k` below 8).
#[inline]
fn unrank(mut r: u64, k: u32) -> u64 {
    debug_assert!(k < 8);
    // One element is its own rank: the common case of a lone king or man skips the search.
    if k == 1 {
        return 1 << r;
    }
    let mut set = 0;
    for i in (1..=k as usize).rev() {
        // The largest e with C(e, i) <= r, by a bisection of fixed steps over the 64 entries
        // of a row (C(0, i) = 0 <= r, and past 50 no entry is): with no branch to guess, the
        // decoding of scattered numbers does not stall on one mispredicted branch a step.
        // (It lies below the element found before: r < C(that element, i) by construction.)
        let row = &RANKS[i & 7];
        let mut e = 0usize;
        for step in [32, 16, 8, 4, 2, 1] {
            e += if u64::from(row[e + step]) <= r {
                step
            } else {
                0
            };
        }
        set |= 1 << e;
        r -= u64::from(row[e]);
    }
    set
}

/// The set `sub` of fields inside `free`, as positions among the fields of `free`.
#[cfg(test)]
fn compress(sub: u64, free: u64) -> u64 {
    let mut out = 0;
    let mut s = sub;
    while s != 0 {
        let low = s & s.wrapping_neg();
        out |= 1 << (free & (low - 1)).count_ones();
        s &= s - 1;
    }
    out
}

/// The place of the `n`-th set bit (from 0) of each byte value, 8 when there is none.
static SELECT8: [[u8; 8]; 256] = select8();

const fn select8() -> [[u8; 8]; 256] {
    let mut t = [[8u8; 8]; 256];
    let mut byte = 0;
    while byte < 256 {
        let (mut bit, mut n) = (0, 0);
        while bit < 8 {
            if byte & (1 << bit) != 0 {
                t[byte][n] = bit as u8;
                n += 1;
            }
            bit += 1;
        }
        byte += 1;
    }
    t
}

/// The `n`-th set bit (from 0) of `set`, as a one-bit set; 0 when `set` has fewer bits.
#[inline]
fn select(set: u64, mut n: u32) -> u64 {
    let mut shift = 0;
    while shift < 64 {
        let byte = (set >> shift) & 0xff;
        let c = byte.count_ones();
        if n < c {
            return 1 << (shift + u32::from(SELECT8[byte as usize][n as usize]));
        }
        n -= c;
        shift += 8;
    }
    0
}

/// The inverse of `compress`: positions among the fields of `free` back to fields.
#[inline]
fn expand(mut positions: u64, free: u64) -> u64 {
    let mut out = 0;
    while positions != 0 {
        out |= select(free, positions.trailing_zeros());
        positions &= positions - 1;
    }
    out
}

/// The digits of a slice's index, most significant first.
#[derive(Copy, Clone, Debug)]
pub struct Layout {
    material: Material,
    own_men: u64,
    opp_men: u64,
    own_kings: u64,
    opp_kings: u64,
}

impl Layout {
    /// The layout of a slice.
    #[must_use]
    pub fn new(material: Material) -> Layout {
        let m = material;
        let men = u32::from(m.own_men + m.opp_men);
        Layout {
            material,
            own_men: binomial(45, m.own_men.into()),
            opp_men: binomial(45, m.opp_men.into()),
            own_kings: binomial(50 - men, m.own_kings.into()),
            opp_kings: binomial(50 - men - u32::from(m.own_kings), m.opp_kings.into()),
        }
    }

    /// Numbers in the slice (including the few that are no position).
    #[must_use]
    pub fn size(&self) -> u64 {
        self.own_men * self.opp_men * self.own_kings * self.opp_kings
    }

    /// The slice.
    #[must_use]
    pub fn material(&self) -> Material {
        self.material
    }

    /// Values of the men's digits, the most significant ones: the side to move's men's, then
    /// the other side's.
    #[must_use]
    pub fn men_radix(&self) -> (u64, u64) {
        (self.own_men, self.opp_men)
    }

    /// Numbers that share one value of both men's digits (the kings' digits).
    #[must_use]
    pub fn kings_radix(&self) -> u64 {
        self.own_kings * self.opp_kings
    }

    /// The side to move's men of value `r` of their digit.
    #[must_use]
    pub fn own_men_of(&self, r: u64) -> u64 {
        unrank(r, self.material.own_men.into()) << 5
    }

    /// The other side's men of value `r` of their digit.
    #[must_use]
    pub fn opp_men_of(&self, r: u64) -> u64 {
        unrank(r, self.material.opp_men.into())
    }

    /// The index of a position of this slice.
    #[inline]
    #[must_use]
    pub fn encode(&self, b: &Board) -> u64 {
        debug_assert_eq!(b.material(), self.material);
        let men = b.own_men | b.opp_men;
        let free = ALL & !men;
        let own_kings = ranked(b.own_kings, free);
        let opp_kings = ranked(b.opp_kings, free & !b.own_kings);
        ((rank(b.own_men >> 5) * self.opp_men + rank(b.opp_men)) * self.own_kings + own_kings)
            * self.opp_kings
            + opp_kings
    }

    /// The position of an index, or `None` for a number no position has (two men on a square).
    #[inline]
    #[must_use]
    pub fn decode(&self, index: u64) -> Option<Board> {
        let m = self.material;
        let opp_kings = index % self.opp_kings;
        let rest = index / self.opp_kings;
        let own_kings = rest % self.own_kings;
        let rest = rest / self.own_kings;
        let opp_men = unrank(rest % self.opp_men, m.opp_men.into());
        let own_men = unrank(rest / self.opp_men, m.own_men.into()) << 5;
        if own_men & opp_men != 0 {
            return None;
        }
        let free = ALL & !(own_men | opp_men);
        let own_kings = expand(unrank(own_kings, m.own_kings.into()), free);
        let opp_kings = expand(unrank(opp_kings, m.opp_kings.into()), free & !own_kings);
        Some(Board {
            own_men,
            own_kings,
            opp_men,
            opp_kings,
        })
    }
}

/// The fields of `set`, lowest first, as a table: entry `r` is the field of the `r`-th.
#[inline]
fn field_table(mut set: u64, table: &mut [u8; 50]) {
    let mut r = 0;
    while set != 0 {
        table[r] = set.trailing_zeros() as u8;
        set &= set - 1;
        r += 1;
    }
}

/// `positions` (bits: places among a set's fields) mapped to the fields of that set's table.
#[inline]
fn place(mut positions: u64, table: &[u8; 50]) -> u64 {
    let mut out = 0;
    while positions != 0 {
        out |= 1 << table[positions.trailing_zeros() as usize];
        positions &= positions - 1;
    }
    out
}

/// Decodes the indices of one slice as [`Layout::decode`] does, keeping what the last index's
/// more significant digits gave: the men (the most significant digits, shared by runs of
/// `own_kings * opp_kings` numbers) and the side to move's kings (shared by runs of `opp_kings`).
/// Indices taken in order, or near each other, mostly decode the last digit alone.
pub struct Decoder {
    layout: Layout,
    /// `index / (own_kings * opp_kings)` of the men decoded last (`u64::MAX`: none yet).
    men_key: u64,
    /// The men, `None` when two stand on one square.
    men: Option<(u64, u64)>,
    /// The fields free of men, in order.
    free: [u8; 50],
    /// `index / opp_kings` of the side to move's kings decoded last (`u64::MAX`: none).
    kings_key: u64,
    own_kings: u64,
    /// The fields free of men and of the side to move's kings, in order.
    free_of_kings: [u8; 50],
    /// The last index decoded and its other side's kings, as places among `free_of_kings`.
    last: (u64, u64),
}

impl Decoder {
    /// A decoder for the slice of `layout`.
    #[must_use]
    pub fn new(layout: Layout) -> Decoder {
        Decoder {
            layout,
            men_key: u64::MAX,
            men: None,
            free: [0; 50],
            kings_key: u64::MAX,
            own_kings: 0,
            free_of_kings: [0; 50],
            last: (u64::MAX, 0),
        }
    }

    /// [`Layout::decode`] of `index`.
    #[inline]
    pub fn decode(&mut self, index: u64) -> Option<Board> {
        let l = &self.layout;
        let m = l.material;
        let kings_key = index / l.opp_kings;
        let men_key = kings_key / l.own_kings;
        if men_key != self.men_key {
            self.men_key = men_key;
            self.kings_key = u64::MAX;
            let opp_men = unrank(men_key % l.opp_men, m.opp_men.into());
            let own_men = unrank(men_key / l.opp_men, m.own_men.into()) << 5;
            self.men = (own_men & opp_men == 0).then_some((own_men, opp_men));
            if self.men.is_some() {
                field_table(ALL & !(own_men | opp_men), &mut self.free);
            }
        }
        let (own_men, opp_men) = self.men?;
        if kings_key != self.kings_key {
            self.kings_key = kings_key;
            self.last = (u64::MAX, 0);
            let own_kings = place(
                unrank(kings_key % l.own_kings, m.own_kings.into()),
                &self.free,
            );
            self.own_kings = own_kings;
            field_table(
                ALL & !(own_men | opp_men | own_kings),
                &mut self.free_of_kings,
            );
        }
        // The next number after the last one in the same run is the colex successor of its
        // places: the next larger set with as many bits.
        let places = match self.last {
            (last, places) if places != 0 && last.wrapping_add(1) == index => {
                let low = places & places.wrapping_neg();
                let up = places + low;
                up | (((places ^ up) >> 2) >> low.trailing_zeros())
            }
            _ => unrank(index % l.opp_kings, m.opp_kings.into()),
        };
        self.last = (index, places);
        let opp_kings = place(places, &self.free_of_kings);
        Some(Board {
            own_men,
            own_kings: self.own_kings,
            opp_men,
            opp_kings,
        })
    }
}

/// Encodes positions of one slice as [`Layout::encode`] does, keeping the men's part of the
/// index of the last position: the children and predecessors of a position by a king's move all
/// share their men, so most encodes rank the kings alone.
pub struct Encoder {
    layout: Layout,
    own_men: u64,
    opp_men: u64,
    /// The men's digits of the index, in place.
    base: u64,
    /// The fields free of men.
    free: u64,
    /// The side to move's kings of the last position and their digit, in place: the
    /// successors of a position by its own moves share their side to move's kings (the other
    /// side's of the position).
    own_kings: u64,
    own_digit: u64,
}

impl Encoder {
    /// An encoder for the slice of `layout`.
    #[must_use]
    pub fn new(layout: Layout) -> Encoder {
        Encoder {
            layout,
            own_men: u64::MAX,
            opp_men: u64::MAX,
            base: 0,
            free: 0,
            own_kings: u64::MAX,
            own_digit: 0,
        }
    }

    /// [`Layout::encode`] of `b`.
    #[inline]
    pub fn encode(&mut self, b: &Board) -> u64 {
        let l = &self.layout;
        debug_assert_eq!(b.material(), l.material);
        if (b.own_men, b.opp_men) != (self.own_men, self.opp_men) {
            self.own_men = b.own_men;
            self.opp_men = b.opp_men;
            self.base =
                (rank(b.own_men >> 5) * l.opp_men + rank(b.opp_men)) * l.own_kings * l.opp_kings;
            self.free = ALL & !(b.own_men | b.opp_men);
            self.own_kings = u64::MAX;
        }
        if b.own_kings != self.own_kings {
            self.own_kings = b.own_kings;
            self.own_digit = ranked(b.own_kings, self.free) * l.opp_kings;
        }
        self.base + self.own_digit + ranked(b.opp_kings, self.free & !b.own_kings)
    }
}

/// `rank(compress(sub, free))`: the colex rank of the places of `sub`'s fields among `free`'s.
#[inline]
fn ranked(mut sub: u64, free: u64) -> u64 {
    let mut r = 0;
    let mut i = 1;
    while sub != 0 {
        let low = sub & sub.wrapping_neg();
        r += rank_term((free & (low - 1)).count_ones(), i);
        sub &= sub - 1;
        i += 1;
    }
    r
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_index_decodes_and_encodes_back() {
        for m in Material::up_to(3) {
            let layout = Layout::new(m);
            let mut positions = 0;
            // A decoder taking the indices in order, and one taking them in a scattered order.
            let mut near = Decoder::new(layout);
            let mut far = Decoder::new(layout);
            let mut encoder = Encoder::new(layout);
            let scatter = |i: u64| (i * 7_919 + 13) % layout.size();
            for i in 0..layout.size() {
                assert_eq!(far.decode(scatter(i)), layout.decode(scatter(i)), "{m} {i}");
                if layout.decode(i).is_none() {
                    assert_eq!(near.decode(i), None, "{m} {i}");
                }
                if let Some(b) = layout.decode(i) {
                    assert_eq!(b.material(), m);
                    assert_eq!(b.own_men & !OWN_MEN, 0);
                    assert_eq!(b.opp_men & !OPP_MEN, 0);
                    assert_eq!(b.occupied().count_ones(), m.pieces());
                    assert_eq!(layout.encode(&b), i, "{m} {i}");
                    assert_eq!(near.decode(i), Some(b), "{m} {i}");
                    assert_eq!(encoder.encode(&b), i, "{m} {i}");
                    positions += 1;
                }
            }
            assert!(positions * 8 > layout.size() * 7, "{m}");
        }
    }

    #[test]
    fn expand_undoes_compress() {
        let free = ALL & !0x0104_2010_0801;
        for sub in [
            0,
            1 << 1,
            1 << 49,
            (1 << 2) | (1 << 30) | (1 << 47),
            free & 0xf0f0_f0f0_f0f0,
        ] {
            let sub = sub & free;
            assert_eq!(expand(compress(sub, free), free), sub, "{sub:x}");
        }
        assert_eq!(select(0b1011_0000_0000, 2), 1 << 11);
        assert_eq!(select(0b1011, 3), 0);
        assert_eq!(unrank(7, 1), 1 << 7);
    }

    #[test]
    fn positions_convert_both_ways() {
        let pos = kroon_rules::parse_fen("B:W31,K2:BK46,10", Variant::International).unwrap();
        let b = Board::from_position(&pos);
        // Black to move is turned round: its man on 10 stands on 41, its king on 46 on 5.
        assert_eq!(b.own_men, 1 << 40);
        assert_eq!(b.own_kings, 1 << 4);
        assert_eq!(b.opp_men, 1 << 19);
        assert_eq!(b.opp_kings, 1 << 48);
        let back = b.swapped().to_position();
        assert_eq!(back.with_turn(Colour::Black), pos);
        assert_eq!(NEIGHBOURS[0], [-1, -1, 5, 6]);
        for set in [0, 1, ALL, 0x1234_5678_9abc & ALL, 1 << 49] {
            assert_eq!(fields(squares(set)), set);
        }
        let mut sq = Bitboard::EMPTY;
        for f in 1..=50 {
            sq = sq.with(TEN.square(f).unwrap());
        }
        assert_eq!(fields(sq), ALL);
        // Every move's child equals the played position's.
        for fen in ["W:W31,K2:BK46,10", "W:W28,K41:B23,K5,19", "W:W7,K1:B12"] {
            let pos = kroon_rules::parse_fen(fen, Variant::International).unwrap();
            let b = Board::from_position(&pos);
            for mv in pos.legal_moves().iter() {
                assert_eq!(
                    b.after(mv),
                    Board::from_position(&pos.play(mv)),
                    "{fen} {mv:?}"
                );
            }
        }
        assert_eq!(NEIGHBOURS[5], [-1, 0, -1, 10]);
    }
}
