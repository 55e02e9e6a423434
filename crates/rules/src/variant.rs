//! Variants: the rules of each game as data (`Rules`), and the `Variant` enum that dispatches to them once.

use crate::bitboard::Bitboard;
use crate::geometry::{Geometry, EIGHT, TEN};
use std::fmt;
use std::str::FromStr;

/// The rules of one variant, as constants the move generator is monomorphized over.
pub trait Rules: 'static {
    /// The variant these rules belong to.
    const VARIANT: Variant;
    /// The board.
    const GEO: &'static Geometry;
    /// Kings move and capture over any distance (FMJD 3.9, 4.3).
    const FLYING_KINGS: bool = true;
    /// Men capture backwards as well as forwards (FMJD 4.2).
    const MEN_CAPTURE_BACKWARD: bool = true;
    /// The capture taking the most pieces is compulsory (FMJD 4.13); otherwise free choice.
    const MAJORITY: bool = true;
    /// A king that captures a king must land directly behind the last piece it takes (Killer).
    const KILLER: bool = false;
    /// A man that reaches the far row during a capture is crowned at once and goes on capturing as a
    /// king (Russian).
    const CROWN_IN_CAPTURE: bool = false;
    /// Men and kings also capture orthogonally: over the piece two columns to the side or two rows
    /// ahead or behind, the nearest squares of the same colour (Frisian). Kings still move only
    /// diagonally.
    const ORTHOGONAL_CAPTURE: bool = false;
    /// The most quiet moves in a row one king may make while its side still has men; 0 for no
    /// limit (Frisian: 3). Applied to the legal moves, not by perft (see `movegen`).
    const KING_MOVE_LIMIT: u8 = 0;

    /// The value of a capture under the precedence rule (used when `MAJORITY`): the highest value
    /// must be played. `captured` is the set taken, `kings` every king on the board, `with_king`
    /// whether the capturing piece is a king. By default, the number of pieces (FMJD 4.13).
    #[inline]
    #[must_use]
    fn precedence(captured: Bitboard, _kings: Bitboard, _with_king: bool) -> u32 {
        captured.count()
    }
}

/// International draughts under the FMJD rules.
#[derive(Debug)]
pub struct International;
impl Rules for International {
    const VARIANT: Variant = Variant::International;
    const GEO: &'static Geometry = &TEN;
}

/// Killer draughts: international, except for where a king that takes a king lands.
#[derive(Debug)]
pub struct Killer;
impl Rules for Killer {
    const VARIANT: Variant = Variant::Killer;
    const GEO: &'static Geometry = &TEN;
    const KILLER: bool = true;
}

/// Breakthrough: international moves; the first side to crown a king wins.
#[derive(Debug)]
pub struct Breakthrough;
impl Rules for Breakthrough {
    const VARIANT: Variant = Variant::Breakthrough;
    const GEO: &'static Geometry = &TEN;
}

/// Losing draughts: international moves; the side that cannot move wins.
#[derive(Debug)]
pub struct Losing;
impl Rules for Losing {
    const VARIANT: Variant = Variant::Losing;
    const GEO: &'static Geometry = &TEN;
}

/// Frisian draughts (10x10): men and kings capture diagonally and orthogonally, the capture of
/// highest value is compulsory (a king counts just under two men, then a king must capture rather
/// than a man), and one king may make at most three quiet moves in a row while its side has men.
/// Sources: Scan 3.1 (`gen.cpp`, `list.cpp` `add_capture`, `pos.cpp` `succ`), dctl
/// `core/rules/frisian.hpp` (citing friesdammen.nl article 20), pydraughts `core/game.py`.
#[derive(Debug)]
pub struct Frisian;
impl Rules for Frisian {
    const VARIANT: Variant = Variant::Frisian;
    const GEO: &'static Geometry = &TEN;
    const ORTHOGONAL_CAPTURE: bool = true;
    const KING_MOVE_LIMIT: u8 = 3;

    /// Value first, counting a man as 64 and a king as 126: a king is worth less than two men but
    /// more than anything fewer pieces can reach, so the order is (men + 2 x kings) and then the
    /// fewer kings (two men beat one king; two kings beat three men); on equal value a capture by a
    /// king beats one by a man. Scan scores `64 men + 126 kings + with_king`; dctl orders by
    /// `((pieces + kings) x N - kings, with_king)` with N the capacity of its square set: the same
    /// order for every capture of up to 20 pieces. pydraughts counts a king as 1.501 men instead, which differs from three captured
    /// kings on (three kings against five men); see tests/interop/variants_vs_pydraughts.py.
    #[inline]
    fn precedence(captured: Bitboard, kings: Bitboard, with_king: bool) -> u32 {
        let k = (captured & kings).count();
        let m = captured.count() - k;
        (64 * m + 126 * k) * 2 + u32::from(with_king)
    }
}

/// Brazilian draughts: the international rules on the 8x8 board.
#[derive(Debug)]
pub struct Brazilian;
impl Rules for Brazilian {
    const VARIANT: Variant = Variant::Brazilian;
    const GEO: &'static Geometry = &EIGHT;
}

/// Russian draughts: flying kings, free choice of capture, crowning during a capture.
#[derive(Debug)]
pub struct Russian;
impl Rules for Russian {
    const VARIANT: Variant = Variant::Russian;
    const GEO: &'static Geometry = &EIGHT;
    const MAJORITY: bool = false;
    const CROWN_IN_CAPTURE: bool = true;
}

/// English draughts (American checkers): short kings, men capture forwards only, free choice of
/// capture; the dark side (fields 1-12) moves first.
#[derive(Debug)]
pub struct English;
impl Rules for English {
    const VARIANT: Variant = Variant::English;
    const GEO: &'static Geometry = &EIGHT;
    const FLYING_KINGS: bool = false;
    const MEN_CAPTURE_BACKWARD: bool = false;
    const MAJORITY: bool = false;
}

/// The variants Kroon plays.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug, Default)]
pub enum Variant {
    /// International draughts, 10x10 (Hub name `normal`).
    #[default]
    International,
    /// Killer draughts, 10x10.
    Killer,
    /// Breakthrough draughts, 10x10 (Hub name `bt`).
    Breakthrough,
    /// Losing draughts, 10x10.
    Losing,
    /// Frisian draughts, 10x10: orthogonal captures, capture by value, limited king moves.
    Frisian,
    /// Brazilian draughts, 8x8.
    Brazilian,
    /// Russian draughts, 8x8.
    Russian,
    /// English draughts / American checkers, 8x8.
    English,
}

impl Variant {
    /// Every variant, in the order the Hub `variant` parameter lists them.
    pub const ALL: [Variant; 8] = [
        Variant::International,
        Variant::Killer,
        Variant::Breakthrough,
        Variant::Losing,
        Variant::Frisian,
        Variant::Brazilian,
        Variant::Russian,
        Variant::English,
    ];

    /// The board of this variant.
    #[must_use]
    pub fn geometry(self) -> &'static Geometry {
        match self {
            Variant::International
            | Variant::Killer
            | Variant::Breakthrough
            | Variant::Losing
            | Variant::Frisian => &TEN,
            Variant::Brazilian | Variant::Russian | Variant::English => &EIGHT,
        }
    }

    /// How the variant's players name squares: a1–h8 in Russian and Brazilian, field numbers
    /// elsewhere.
    #[must_use]
    pub fn numbering(self) -> crate::naming::Numbering {
        match self {
            Variant::Russian | Variant::Brazilian => crate::naming::Numbering::Algebraic,
            _ => crate::naming::Numbering::Fields,
        }
    }

    /// Whether kings move and capture over any distance (all but English draughts).
    #[must_use]
    pub fn kings_fly(self) -> bool {
        crate::with_rules!(self, R => R::FLYING_KINGS)
    }

    /// Whether men capture backwards as well as forwards (all but English draughts).
    #[must_use]
    pub fn men_capture_backward(self) -> bool {
        crate::with_rules!(self, R => R::MEN_CAPTURE_BACKWARD)
    }

    /// The variant's name as Hub (Scan) spells it.
    #[must_use]
    pub fn hub_name(self) -> &'static str {
        match self {
            Variant::International => "normal",
            Variant::Killer => "killer",
            Variant::Breakthrough => "bt",
            Variant::Losing => "losing",
            Variant::Frisian => "frisian",
            Variant::Brazilian => "brazilian",
            Variant::Russian => "russian",
            Variant::English => "english",
        }
    }
}

impl fmt::Display for Variant {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.hub_name())
    }
}

/// Every variant's Hub name, in [`Variant::ALL`]'s order, as help texts list them.
pub const NAMES: &str = "normal, killer, bt, losing, frisian, brazilian, russian, english";

/// A variant name that Kroon does not know.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown variant `{0}` (known: {NAMES})")]
pub struct UnknownVariant(pub String);

impl FromStr for Variant {
    type Err = UnknownVariant;
    fn from_str(s: &str) -> Result<Variant, UnknownVariant> {
        match s.to_ascii_lowercase().as_str() {
            "normal" | "international" | "standard" | "intl" => Ok(Variant::International),
            "killer" => Ok(Variant::Killer),
            "bt" | "breakthrough" => Ok(Variant::Breakthrough),
            "losing" | "antidraughts" | "giveaway" => Ok(Variant::Losing),
            "frisian" => Ok(Variant::Frisian),
            "brazilian" => Ok(Variant::Brazilian),
            "russian" => Ok(Variant::Russian),
            "english" | "american" | "checkers" => Ok(Variant::English),
            _ => Err(UnknownVariant(s.to_owned())),
        }
    }
}

/// Calls `$body` with the type alias `$R` bound to the rules of `$variant`: the one place that
/// turns a runtime variant into monomorphized code.
#[macro_export]
macro_rules! with_rules {
    ($variant:expr, $R:ident => $body:expr) => {
        match $variant {
            $crate::Variant::International => {
                type $R = $crate::variant::International;
                $body
            }
            $crate::Variant::Killer => {
                type $R = $crate::variant::Killer;
                $body
            }
            $crate::Variant::Breakthrough => {
                type $R = $crate::variant::Breakthrough;
                $body
            }
            $crate::Variant::Losing => {
                type $R = $crate::variant::Losing;
                $body
            }
            $crate::Variant::Frisian => {
                type $R = $crate::variant::Frisian;
                $body
            }
            $crate::Variant::Brazilian => {
                type $R = $crate::variant::Brazilian;
                $body
            }
            $crate::Variant::Russian => {
                type $R = $crate::variant::Russian;
                $body
            }
            $crate::Variant::English => {
                type $R = $crate::variant::English;
                $body
            }
        }
    };
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_list_every_variant_in_order() {
        let names: Vec<_> = Variant::ALL.iter().map(|v| v.hub_name()).collect();
        assert_eq!(NAMES, names.join(", "));
        for v in Variant::ALL {
            assert_eq!(v.hub_name().parse(), Ok(v));
        }
        let err = "checkerz".parse::<Variant>().unwrap_err().to_string();
        assert!(err.ends_with(&format!("(known: {NAMES})")), "{err}");
    }
}
