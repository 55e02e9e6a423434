//! `Material`: one slice of the database, the men and kings of the side to move and of the other
//! side. Positions are always seen from the side to move, so a slice with White to move and the same
//! material with Black to move are one slice.

use std::fmt;
use std::str::FromStr;

/// The most pieces a slice may hold: the index's numbers and the builder's memory are sized for
/// this, and a file or a name claiming more is refused.
pub const MAX_PIECES: u32 = 7;

/// The pieces of a slice: the side to move's men and kings, then the other side's.
#[derive(Copy, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Debug)]
pub struct Material {
    /// Men of the side to move.
    pub own_men: u8,
    /// Kings of the side to move.
    pub own_kings: u8,
    /// Men of the other side.
    pub opp_men: u8,
    /// Kings of the other side.
    pub opp_kings: u8,
}

impl Material {
    /// A slice from its four counts.
    #[must_use]
    pub const fn new(own_men: u8, own_kings: u8, opp_men: u8, opp_kings: u8) -> Material {
        Material {
            own_men,
            own_kings,
            opp_men,
            opp_kings,
        }
    }

    /// All pieces on the board.
    #[must_use]
    pub const fn pieces(self) -> u32 {
        // Summed in u32: counts read from a file may be anything.
        self.own_men as u32 + self.own_kings as u32 + self.opp_men as u32 + self.opp_kings as u32
    }

    /// All men on the board.
    #[must_use]
    pub const fn men(self) -> u32 {
        self.own_men as u32 + self.opp_men as u32
    }

    /// The same material seen from the other side (after a move that neither captures nor crowns).
    #[must_use]
    pub const fn swapped(self) -> Material {
        Material::new(self.opp_men, self.opp_kings, self.own_men, self.own_kings)
    }

    /// Whether both sides have a piece (a side without pieces has lost; no table holds that).
    #[must_use]
    pub const fn is_stored(self) -> bool {
        (self.own_men > 0 || self.own_kings > 0) && (self.opp_men > 0 || self.opp_kings > 0)
    }

    /// Every stored slice with `pieces` pieces, in build order: fewer men first, since crowning a
    /// man leads into the slice with one man fewer and one king more.
    #[must_use]
    pub fn with_pieces(pieces: u32) -> Vec<Material> {
        let mut all = Vec::new();
        let n = pieces as u8;
        for a in 0..=n {
            for b in 0..=n - a {
                for c in 0..=n - a - b {
                    let m = Material::new(a, b, c, n - a - b - c);
                    if m.is_stored() {
                        all.push(m);
                    }
                }
            }
        }
        all.sort_by_key(|m| (m.men(), *m));
        all
    }

    /// Every stored slice with 2 to `pieces` pieces, in build order.
    #[must_use]
    pub fn up_to(pieces: u32) -> Vec<Material> {
        (2..=pieces).flat_map(Material::with_pieces).collect()
    }
}

fn side(f: &mut fmt::Formatter<'_>, men: u8, kings: u8) -> fmt::Result {
    if kings > 0 {
        write!(f, "{kings}K")?;
    }
    if men > 0 {
        write!(f, "{men}M")?;
    }
    Ok(())
}

/// `3K-1K`, `1K2M-1K`, `2M-1M`: the side to move first, kings then men.
impl fmt::Display for Material {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        side(f, self.own_men, self.own_kings)?;
        f.write_str("-")?;
        side(f, self.opp_men, self.opp_kings)
    }
}

/// A material name that does not read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("not a slice name: {0:?} (write it like 3K-1K, 1K2M-1K or 2M-1M)")]
pub struct BadMaterial(pub String);

fn parse_side(text: &str) -> Option<(u8, u8)> {
    let (mut men, mut kings) = (None, None);
    let mut digits = String::new();
    for ch in text.chars() {
        match ch {
            '0'..='9' => digits.push(ch),
            'k' | 'K' if kings.is_none() && men.is_none() => kings = Some(digits.parse().ok()?),
            'm' | 'M' if men.is_none() => men = Some(digits.parse().ok()?),
            _ => return None,
        }
        if !ch.is_ascii_digit() {
            digits.clear();
        }
    }
    if !digits.is_empty() {
        return None;
    }
    let (men, kings) = (men.unwrap_or(0), kings.unwrap_or(0));
    let pieces = u32::from(men) + u32::from(kings);
    (pieces > 0 && pieces <= MAX_PIECES).then_some((men, kings))
}

impl FromStr for Material {
    type Err = BadMaterial;
    fn from_str(s: &str) -> Result<Material, BadMaterial> {
        let bad = || BadMaterial(s.to_string());
        let (a, b) = s.trim().split_once('-').ok_or_else(bad)?;
        let (own_men, own_kings) = parse_side(a).ok_or_else(bad)?;
        let (opp_men, opp_kings) = parse_side(b).ok_or_else(bad)?;
        let m = Material::new(own_men, own_kings, opp_men, opp_kings);
        if m.pieces() > MAX_PIECES {
            return Err(bad());
        }
        Ok(m)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_read_back() {
        for m in Material::up_to(5) {
            let name = m.to_string();
            assert_eq!(name.parse::<Material>(), Ok(m), "{name}");
        }
        assert_eq!("1k2m-1k".parse(), Ok(Material::new(2, 1, 0, 1)));
        for bad in [
            "", "3K", "-1K", "K-1K", "1M1K-1K", "3X-1K", "3K-", "1K2M3-1K", "4K-4K", "300K-1K",
        ] {
            assert!(bad.parse::<Material>().is_err(), "{bad}");
        }
    }

    #[test]
    fn slices_come_in_build_order() {
        let five = Material::with_pieces(5);
        // s pieces to move (1..=4), each side's pieces split into men and kings: (s + 1)(6 - s).
        assert_eq!(five.len(), 10 + 12 + 12 + 10);
        for w in five.windows(2) {
            assert!(w[0].men() <= w[1].men());
        }
    }
}
