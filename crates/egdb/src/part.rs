//! Parts of a slice pair, for pairs too large to build in memory at once: the positions whose
//! sides' rearmost men stand in given bands of rows.
//!
//! A man only moves forward, so inside a pair (captures and crownings leave it) the row of each
//! side's rearmost man never goes back. With the rows cut into bands, a position's part is the
//! band of each side's rearmost man, and every move leads into the same part or into one further
//! forward. Built from the furthest forward, each part finds the parts its moves leave into
//! already finished. A part's numbers are the men's digits of the slice index restricted to its
//! bands (the kings' digits whole), so the positions of a part are found and numbered from
//! small tables, and the slice's own index stays what it is.

use crate::index::{Board, Layout};

/// How far a side's rearmost man has come: rows from the side's back row (0 to 8), 9 for a
/// side without men. The side to move's men move towards field 1.
#[inline]
#[must_use]
pub fn own_rear(men: u64) -> usize {
    if men == 0 {
        9
    } else {
        9 - (63 - men.leading_zeros() as usize) / 5
    }
}

/// [`own_rear`] of the other side's men, which move towards field 50.
#[inline]
#[must_use]
pub fn opp_rear(men: u64) -> usize {
    if men == 0 {
        9
    } else {
        men.trailing_zeros() as usize / 5
    }
}

/// The band of each row: rows 0 to 8 cut into `count` runs, and row 9 (no men) alone after them.
#[derive(Copy, Clone, Debug)]
struct Bands {
    of: [u8; 10],
}

impl Bands {
    fn new(count: usize) -> Bands {
        let mut of = [0u8; 10];
        for (row, band) in of.iter_mut().enumerate().take(9) {
            *band = (row * count / 9) as u8;
        }
        of[9] = count as u8;
        Bands { of }
    }
}

/// Where no value of a digit is in a region.
const NONE: u32 = u32::MAX;

/// The positions of one slice in a part: values of the men's digits in the part's bands, every
/// value of the kings' digits.
#[derive(Debug)]
struct Region {
    /// The slice's place in its pair.
    slice: usize,
    /// The bands of the side to move's and the other side's rearmost men.
    bands: (u8, u8),
    /// The first of the part's numbers that is this region's.
    offset: u64,
    /// The other side's men's digit values in the whole slice, and the kings' numbers.
    opp_radix: u64,
    kings: u64,
    /// The men's digit values in the region, in order.
    own: Vec<u32>,
    opp: Vec<u32>,
    /// The place of each digit value among the region's ([`NONE`] if not there).
    own_place: Vec<u32>,
    opp_place: Vec<u32>,
}

impl Region {
    fn new(slice: usize, layout: &Layout, bands: &Bands, own_band: u8, opp_band: u8) -> Region {
        let (own_radix, opp_radix) = layout.men_radix();
        let select = |radix: u64, band: u8, men: &dyn Fn(u64) -> u64, rear: fn(u64) -> usize| {
            let values: Vec<u32> = (0..radix)
                .filter(|&r| bands.of[rear(men(r))] == band)
                .map(|r| r as u32)
                .collect();
            let mut place = vec![NONE; radix as usize];
            for (i, &r) in values.iter().enumerate() {
                place[r as usize] = i as u32;
            }
            (values, place)
        };
        let (own, own_place) = select(own_radix, own_band, &|r| layout.own_men_of(r), own_rear);
        let (opp, opp_place) = select(opp_radix, opp_band, &|r| layout.opp_men_of(r), opp_rear);
        Region {
            slice,
            bands: (own_band, opp_band),
            offset: 0,
            opp_radix,
            kings: layout.kings_radix(),
            own,
            opp,
            own_place,
            opp_place,
        }
    }

    fn size(&self) -> u64 {
        (self.own.len() * self.opp.len()) as u64 * self.kings
    }

    /// The slice index of the region's `l`-th number.
    #[inline]
    fn global(&self, l: u64) -> u64 {
        let kings = l % self.kings;
        let men = l / self.kings;
        let opp = men % self.opp.len() as u64;
        let own = men / self.opp.len() as u64;
        (u64::from(self.own[own as usize]) * self.opp_radix + u64::from(self.opp[opp as usize]))
            * self.kings
            + kings
    }

    /// The region's number of slice index `g`, if it is the region's.
    #[inline]
    fn local(&self, g: u64) -> Option<u64> {
        let kings = g % self.kings;
        let men = g / self.kings;
        let own = self.own_place[(men / self.opp_radix) as usize];
        let opp = self.opp_place[(men % self.opp_radix) as usize];
        if own == NONE || opp == NONE {
            return None;
        }
        Some((u64::from(own) * self.opp.len() as u64 + u64::from(opp)) * self.kings + kings)
    }
}

/// The numbers of a part's positions, from their slice and index and back.
pub trait Numbering: Sync {
    /// The number of index `g` of slice `slice`, or `None` if that position is not in the part.
    fn number(&self, slice: usize, g: u64) -> Option<usize>;
    /// The slice and index of number `n`.
    fn locate(&self, n: usize) -> (usize, u64);
}

/// The numbering of a whole pair, its second slice's numbers after the first's: what a whole
/// [`Part`] numbers, without asking which kind of part it is.
#[derive(Copy, Clone, Debug)]
pub struct Whole {
    second: u64,
}

impl Whole {
    /// Where the numbers of slice `slice` start.
    #[inline(always)]
    fn start(self, slice: usize) -> u64 {
        if slice == 0 {
            0
        } else {
            self.second
        }
    }
}

impl Numbering for Whole {
    #[inline(always)]
    fn number(&self, slice: usize, g: u64) -> Option<usize> {
        Some((self.start(slice) + g) as usize)
    }

    fn locate(&self, n: usize) -> (usize, u64) {
        let n = n as u64;
        if n < self.second {
            (0, n)
        } else {
            (1, n - self.second)
        }
    }
}

/// A part of a slice pair: its positions and their numbers `0..size()`, region by region.
#[derive(Debug)]
pub struct Part {
    /// The pair's slices' sizes (one slice when it is its own mirror).
    sizes: Vec<u64>,
    /// How the part is cut from the pair; `None` for the whole pair, numbered as its slices one
    /// after the other.
    cut: Option<Cut>,
}

/// The bands of rows a part is cut by, and its regions.
#[derive(Debug)]
struct Cut {
    bands: Bands,
    regions: Vec<Region>,
}

/// One slice's share of a part, for iterating over it.
#[derive(Copy, Clone, Debug)]
pub struct Share<'a> {
    part: &'a Part,
    region: usize,
}

impl Share<'_> {
    /// The slice's place in its pair.
    #[must_use]
    pub fn slice(&self) -> usize {
        match &self.part.cut {
            None => self.region,
            Some(cut) => cut.regions[self.region].slice,
        }
    }

    /// Numbers in this share.
    #[must_use]
    pub fn len(&self) -> u64 {
        match &self.part.cut {
            None => self.part.sizes[self.region],
            Some(cut) => cut.regions[self.region].size(),
        }
    }

    /// Whether the share has no numbers.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The slice index of the share's `l`-th number.
    #[inline]
    #[must_use]
    pub fn global(&self, l: u64) -> u64 {
        match &self.part.cut {
            None => l,
            Some(cut) => cut.regions[self.region].global(l),
        }
    }

    /// The part's number of the share's `l`-th number.
    #[inline]
    #[must_use]
    pub fn number(&self, l: u64) -> usize {
        match &self.part.cut {
            None => (self.part.pair_numbering().start(self.region) + l) as usize,
            Some(cut) => (cut.regions[self.region].offset + l) as usize,
        }
    }

    /// The share of the same part that holds these positions turned round (the other slice's,
    /// the sides' bands exchanged), where their successors are.
    #[must_use]
    pub fn mirror(&self) -> Share<'_> {
        let slices = self.part.sizes.len();
        let region = match &self.part.cut {
            None => slices - 1 - self.region,
            Some(cut) => {
                let r = &cut.regions[self.region];
                let other = if slices == 1 { 0 } else { 1 - r.slice };
                cut.regions
                    .iter()
                    .position(|m| m.slice == other && m.bands == (r.bands.1, r.bands.0))
                    .expect("a part holds its positions turned round")
            }
        };
        Share {
            part: self.part,
            region,
        }
    }
}

impl Part {
    /// The whole pair of `layouts` (one slice when it is its own mirror).
    #[must_use]
    pub fn whole(layouts: &[Layout]) -> Part {
        Part {
            sizes: layouts.iter().map(Layout::size).collect(),
            cut: None,
        }
    }

    /// The pair of `layouts` cut into parts by `count` bands of rows for each side's rearmost
    /// man, in an order where every part comes after those its moves lead into. Parts without
    /// positions are left out; one band is the whole pair.
    #[must_use]
    pub fn split(layouts: &[Layout], count: usize) -> Vec<Part> {
        if count <= 1 {
            return vec![Part::whole(layouts)];
        }
        let bands = Bands::new(count);
        let first = layouts[0].material();
        // The bands each side's rearmost man can be in.
        let present = |men: u8| -> Vec<u8> {
            if men == 0 {
                vec![count as u8]
            } else {
                (0..count as u8).collect()
            }
        };
        let (ours, theirs) = (present(first.own_men), present(first.opp_men));
        let mut keys: Vec<(u8, u8)> = Vec::new();
        for &i in &ours {
            for &j in &theirs {
                // A slice that is its own mirror holds (i, j) and (j, i) in one part.
                if layouts.len() == 1 && i < j {
                    continue;
                }
                keys.push((i, j));
            }
        }
        // Furthest forward first: a move raises one side's band or keeps both.
        keys.sort_by_key(|&(i, j)| std::cmp::Reverse(u16::from(i) + u16::from(j)));
        let mut parts = Vec::new();
        for (i, j) in keys {
            let mut regions = vec![Region::new(0, &layouts[0], &bands, i, j)];
            if layouts.len() == 2 {
                regions.push(Region::new(1, &layouts[1], &bands, j, i));
            } else if i != j {
                regions.push(Region::new(0, &layouts[0], &bands, j, i));
            }
            let mut offset = 0;
            for r in &mut regions {
                r.offset = offset;
                offset += r.size();
            }
            if offset == 0 {
                continue;
            }
            parts.push(Part {
                sizes: layouts.iter().map(Layout::size).collect(),
                cut: Some(Cut { bands, regions }),
            });
        }
        parts
    }

    /// Numbers in the part.
    #[must_use]
    pub fn size(&self) -> u64 {
        match &self.cut {
            None => self.sizes.iter().sum(),
            Some(cut) => cut.regions.iter().map(Region::size).sum(),
        }
    }

    /// Whether the part is the whole pair.
    #[must_use]
    pub fn is_whole(&self) -> bool {
        self.cut.is_none()
    }

    /// The numbering of the whole pair.
    fn pair_numbering(&self) -> Whole {
        Whole {
            second: self.sizes[0],
        }
    }

    /// The whole pair's numbering, if the part is the whole pair.
    #[must_use]
    pub fn whole_numbering(&self) -> Option<Whole> {
        self.cut.is_none().then(|| self.pair_numbering())
    }

    /// Each slice's share of the part.
    pub fn shares(&self) -> impl Iterator<Item = Share<'_>> {
        let n = match &self.cut {
            None => self.sizes.len(),
            Some(cut) => cut.regions.len(),
        };
        (0..n).map(move |region| Share { part: self, region })
    }

    /// Whether position `b` of slice `slice` is in the part.
    #[inline]
    #[must_use]
    pub fn contains(&self, slice: usize, b: &Board) -> bool {
        let Some(cut) = &self.cut else {
            return true;
        };
        let key = (
            cut.bands.of[own_rear(b.own_men)],
            cut.bands.of[opp_rear(b.opp_men)],
        );
        cut.regions
            .iter()
            .any(|r| r.slice == slice && r.bands == key)
    }
}

impl Numbering for Part {
    #[inline]
    fn number(&self, slice: usize, g: u64) -> Option<usize> {
        let Some(cut) = &self.cut else {
            return self.pair_numbering().number(slice, g);
        };
        cut.regions
            .iter()
            .filter(|r| r.slice == slice)
            .find_map(|r| r.local(g).map(|l| (r.offset + l) as usize))
    }

    fn locate(&self, n: usize) -> (usize, u64) {
        let Some(cut) = &self.cut else {
            return self.pair_numbering().locate(n);
        };
        let n = n as u64;
        let r = cut
            .regions
            .iter()
            .rev()
            .find(|r| r.offset <= n)
            .expect("the first region starts at 0");
        (r.slice, r.global(n - r.offset))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::index::turn_round;
    use crate::material::Material;

    /// Every number of a pair is in exactly one part, numbered once, and back.
    #[test]
    fn parts_cover_the_pair_once() {
        for (name, count) in [("2M-1K1M", 3), ("1K1M-1K1M", 4), ("2M-1K", 9), ("1K-1K", 5)] {
            let m: Material = name.parse().unwrap();
            let layouts: Vec<Layout> = if m.swapped() == m {
                vec![Layout::new(m)]
            } else {
                vec![Layout::new(m), Layout::new(m.swapped())]
            };
            let parts = Part::split(&layouts, count);
            let mut seen: Vec<Vec<u8>> =
                layouts.iter().map(|l| vec![0; l.size() as usize]).collect();
            for part in &parts {
                let mut numbers = vec![false; part.size() as usize];
                for share in part.shares() {
                    let s = share.slice();
                    for l in 0..share.len() {
                        let g = share.global(l);
                        seen[s][g as usize] += 1;
                        let n = share.number(l);
                        assert!(!numbers[n], "{name}: number {n} twice");
                        numbers[n] = true;
                        if let Some(b) = layouts[s].decode(g) {
                            assert!(part.contains(s, &b));
                            assert_eq!(part.number(s, g), Some(n), "{name}");
                            assert_eq!(part.locate(n), (s, g), "{name}");
                        }
                    }
                }
                assert!(numbers.iter().all(|&x| x), "{name}: a number unused");
            }
            assert!(seen.iter().flatten().all(|&n| n == 1), "{name}");
        }
    }

    /// A side's rearmost man is as far from its back row seen from either side.
    #[test]
    fn rearmost_rows_agree_turned_round() {
        for f in 0..45 {
            let men = (1u64 << f) | (1u64 << 44);
            assert_eq!(own_rear(turn_round(men)), opp_rear(men));
            assert_eq!(own_rear(turn_round(1 << f)), f / 5);
        }
        assert_eq!(own_rear(1 << 49), 0);
        assert_eq!(own_rear(1 << 5), 8);
        assert_eq!(opp_rear(0), 9);
    }
}
