//! Evaluation: the hand-set one (`hand`), the learned pattern one (`pattern` for its features,
//! `weights` for their values and file format), and [`Eval`], the choice between them that an
//! engine searches with.

pub mod hand;
pub mod pattern;
pub mod weights;

pub use weights::{Weights, WeightsError};

use kroon_rules::{Position, Variant};
use std::fmt;
use std::str::FromStr;
use std::sync::Arc;

/// The evaluation a user chooses by name: `learned` or `hand`.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Default)]
pub enum EvalKind {
    /// The pattern weights, where there are weights for the variant.
    #[default]
    Learned,
    /// The hand-set evaluation.
    Hand,
}

impl EvalKind {
    /// Both kinds, as `param` lines and help texts list them.
    pub const ALL: [EvalKind; 2] = [EvalKind::Learned, EvalKind::Hand];

    /// The kind's name.
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            EvalKind::Learned => "learned",
            EvalKind::Hand => "hand",
        }
    }

    /// The evaluation of this kind, given the learned weights at hand (if any).
    #[must_use]
    pub fn with(self, learned: Option<&Arc<Weights>>) -> Eval {
        match (self, learned) {
            (EvalKind::Learned, Some(w)) => Eval::Learned(Arc::clone(w)),
            _ => Eval::Hand,
        }
    }
}

impl fmt::Display for EvalKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// An evaluation name that is neither `learned` nor `hand`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown evaluation '{0}': learned or hand")]
pub struct UnknownEval(pub String);

impl FromStr for EvalKind {
    type Err = UnknownEval;
    fn from_str(s: &str) -> Result<EvalKind, UnknownEval> {
        match s.trim().to_ascii_lowercase().as_str() {
            "learned" => Ok(EvalKind::Learned),
            "hand" => Ok(EvalKind::Hand),
            _ => Err(UnknownEval(s.to_owned())),
        }
    }
}

/// Which evaluation a search uses.
#[derive(Clone, Debug, Default)]
pub enum Eval {
    /// The hand-set evaluation, for every variant.
    #[default]
    Hand,
    /// Learned weights for their variant; positions of other variants get the hand evaluation.
    Learned(Arc<Weights>),
}

impl Eval {
    /// The evaluation of `pos` for the side to move, in centi-men.
    #[must_use]
    #[inline]
    pub fn evaluate(&self, pos: &Position) -> i32 {
        match self {
            Eval::Learned(w) if w.variant() == pos.variant() => w.evaluate(pos),
            _ => hand::evaluate(pos),
        }
    }

    /// The evaluation's name for keys that must change with it: `hand`, or `learned` and the
    /// weights' FNV-1a hash (so other weights give another key).
    #[must_use]
    pub fn id(&self) -> String {
        match self {
            Eval::Hand => "hand".to_owned(),
            Eval::Learned(w) => format!("learned {:016x}", kroon_rules::hash::fnv1a(&w.to_bytes())),
        }
    }

    /// Whether positions of `variant` get learned weights.
    #[must_use]
    pub fn is_learned_for(&self, variant: Variant) -> bool {
        matches!(self, Eval::Learned(w) if w.variant() == variant)
    }
}

/// The weights files built into the binary, one per variant that has them (made by
/// `scripts/train-eval.sh`; see README.md).
const EMBEDDED: &[&[u8]] = &[
    include_bytes!("../../weights/normal.kew"),
    include_bytes!("../../weights/russian.kew"),
    include_bytes!("../../weights/brazilian.kew"),
    include_bytes!("../../weights/english.kew"),
    include_bytes!("../../weights/frisian.kew"),
    include_bytes!("../../weights/breakthrough.kew"),
    include_bytes!("../../weights/killer.kew"),
    include_bytes!("../../weights/losing.kew"),
];

/// The embedded weights for `variant`, if it has some.
#[must_use]
pub fn embedded_for(variant: Variant) -> Option<Arc<Weights>> {
    embedded().into_iter().find(|w| w.variant() == variant)
}

/// The embedded weights, read once (a file that fails to read is a build defect, which a test
/// rules out; it is left out rather than stopping the engine).
#[must_use]
pub fn embedded() -> Vec<Arc<Weights>> {
    static READ: std::sync::LazyLock<Vec<Arc<Weights>>> = std::sync::LazyLock::new(|| {
        EMBEDDED
            .iter()
            .filter_map(|bytes| match Weights::from_bytes(bytes) {
                Ok(w) => Some(Arc::new(w)),
                Err(e) => {
                    tracing::error!("embedded weights refused: {e}");
                    None
                }
            })
            .collect()
    });
    READ.clone()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn embedded_weights_read_and_cover_distinct_variants() {
        let all = embedded();
        assert_eq!(all.len(), EMBEDDED.len());
        for (i, w) in all.iter().enumerate() {
            assert!(all[..i].iter().all(|o| o.variant() != w.variant()));
            // Sane values: the start is level, a man up is an edge, a man down a deficit (the
            // other way round in losing draughts, where giving men away is the aim, and whose
            // weights were fitted with K near 700 rather than 200: its scores run wider).
            let v = w.variant();
            let (edge, level) = if v == Variant::Losing {
                (-1, 90)
            } else {
                (1, 30)
            };
            let start = Position::initial(v);
            assert!(
                w.evaluate(&start).abs() < level,
                "{v}: {}",
                w.evaluate(&start)
            );
            let g = v.geometry();
            let first_black = g.initial[1].first().unwrap();
            let up = Position::from_parts(
                v,
                g.initial[0],
                g.initial[1].without(first_black),
                kroon_rules::Bitboard::EMPTY,
                kroon_rules::Colour::White,
            );
            assert!(edge * w.evaluate(&up) > 50, "{v}: {}", w.evaluate(&up));
            assert!(edge * w.evaluate(&up.with_turn(kroon_rules::Colour::Black)) < -50);
        }
        for v in Variant::ALL {
            assert!(all.iter().any(|w| w.variant() == v), "no weights for {v}");
        }
    }

    #[test]
    fn embedded_weights_write_back_byte_for_byte() {
        // The shared header code (kroon_rules::file_header) reads and writes the files made
        // before it existed, unchanged.
        for bytes in EMBEDDED {
            let w = Weights::from_bytes(bytes).unwrap();
            assert!(w.to_bytes() == *bytes, "{} weights differ", w.variant());
        }
    }

    #[test]
    fn eval_kinds_parse_by_name() {
        assert_eq!("learned".parse::<EvalKind>().unwrap(), EvalKind::Learned);
        assert_eq!(" Hand ".parse::<EvalKind>().unwrap(), EvalKind::Hand);
        assert!("nnue".parse::<EvalKind>().is_err());
        assert!(matches!(EvalKind::Learned.with(None), Eval::Hand));
    }
}
