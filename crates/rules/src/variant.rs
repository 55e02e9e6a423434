//! Variants: the rules of each game as data (`Rules`), and the `Variant` enum that dispatches to them once.

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
    /// Brazilian draughts, 8x8.
    Brazilian,
    /// Russian draughts, 8x8.
    Russian,
    /// English draughts / American checkers, 8x8.
    English,
}

impl Variant {
    /// Every variant, in the order the Hub `variant` parameter lists them.
    pub const ALL: [Variant; 7] = [
        Variant::International,
        Variant::Killer,
        Variant::Breakthrough,
        Variant::Losing,
        Variant::Brazilian,
        Variant::Russian,
        Variant::English,
    ];

    /// The board of this variant.
    #[must_use]
    pub fn geometry(self) -> &'static Geometry {
        match self {
            Variant::International | Variant::Killer | Variant::Breakthrough | Variant::Losing => {
                &TEN
            }
            Variant::Brazilian | Variant::Russian | Variant::English => &EIGHT,
        }
    }

    /// The variant's name as Hub (Scan) spells it.
    #[must_use]
    pub fn hub_name(self) -> &'static str {
        match self {
            Variant::International => "normal",
            Variant::Killer => "killer",
            Variant::Breakthrough => "bt",
            Variant::Losing => "losing",
            Variant::Brazilian => "brazilian",
            Variant::Russian => "russian",
            Variant::English => "english",
        }
    }

    /// The side that moves first: White, except in English draughts where the dark side (Black,
    /// on fields 1-12) starts.
    #[must_use]
    pub fn first_to_move(self) -> crate::Colour {
        if self == Variant::English {
            crate::Colour::Black
        } else {
            crate::Colour::White
        }
    }
}

impl fmt::Display for Variant {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.hub_name())
    }
}

/// A variant name that Kroon does not know.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown variant `{0}` (known: normal, killer, bt, losing, brazilian, russian, english)")]
pub struct UnknownVariant(pub String);

impl FromStr for Variant {
    type Err = UnknownVariant;
    fn from_str(s: &str) -> Result<Variant, UnknownVariant> {
        match s.to_ascii_lowercase().as_str() {
            "normal" | "international" | "standard" | "intl" => Ok(Variant::International),
            "killer" => Ok(Variant::Killer),
            "bt" | "breakthrough" => Ok(Variant::Breakthrough),
            "losing" | "antidraughts" | "giveaway" => Ok(Variant::Losing),
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
