//! The search's tuning values in one place. Each is a named field with the value that A/B matches
//! chose; `KROON_TUNE` overrides any of them for a test without a patch, e.g.
//! `KROON_TUNE="futility_margin=100,reduction_min_depth=4" kroon hub` (`scripts/ab-match.sh -b`).

use std::fmt;
use std::ops::RangeInclusive;

/// The environment variable read by [`Tuning::from_env`].
pub const TUNE_VAR: &str = "KROON_TUNE";

/// Pruning, reduction and window parameters of the search. All are whole numbers, so that one
/// table ([`FIELDS`]) names, bounds and reaches each of them.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Tuning {
    /// Reverse futility: the evaluation must clear beta by this many centi-men per ply of depth.
    pub futility_margin: i32,
    /// Reverse futility applies at this depth and below.
    pub futility_depth: i32,
    /// Probe cut: the shallow search must clear beta by this many centi-men per ply of depth.
    pub probe_cut_margin: i32,
    /// Probe cut applies from this depth on.
    pub probe_cut_min_depth: i32,
    /// The shallow search's depth, in percent of the node's (rounded down).
    pub probe_cut_depth_percent: i32,
    /// Late quiet moves are reduced from this depth on.
    pub reduction_min_depth: i32,
    /// Moves before this place in the ordering are never reduced.
    pub reduction_first_move: i32,
    /// From this place on (at depth 4 or more) the reduction is two plies.
    pub reduction_second_move: i32,
    /// From this place on (at depth 6 or more) the reduction is three plies.
    pub reduction_third_move: i32,
    /// The first aspiration window's half width, in centi-men; it triples on each failure.
    pub aspiration_delta: i32,
    /// Iterations below this depth search the full window.
    pub aspiration_min_depth: i32,
    /// With several threads: from this depth on, a move another thread is searching is put off
    /// until the node's other moves are done (0: never).
    pub smp_defer_depth: i32,
    /// With several threads: whether the helpers leave out iterations in staggered patterns (not
    /// 0) or search every depth (0).
    pub smp_skip: i32,
    /// With several threads: whether a thread drops its iteration as soon as another thread has
    /// finished that depth (not 0), instead of finishing it.
    pub smp_supersede: i32,
    /// Singular extension from this depth on (0: never): the table's move is searched one ply
    /// deeper when every other move, searched to half the depth, stays below its table score
    /// less `singular_margin` per ply of depth.
    pub singular_min_depth: i32,
    /// See `singular_min_depth`, in centi-men per ply.
    pub singular_margin: i32,
    /// Whether the table's move is searched before the other moves are scored (not 0), so that a
    /// cut-off by it spares their ordering; they are then ordered by the history as its search
    /// left it, which changes the tree.
    pub tt_move_first: i32,
}

impl Default for Tuning {
    fn default() -> Tuning {
        Tuning {
            futility_margin: 120,
            futility_depth: 3,
            probe_cut_margin: 5,
            probe_cut_min_depth: 3,
            probe_cut_depth_percent: 40,
            reduction_min_depth: 3,
            reduction_first_move: 3,
            reduction_second_move: 6,
            reduction_third_move: 12,
            aspiration_delta: 25,
            aspiration_min_depth: 5,
            smp_defer_depth: 0,
            smp_skip: 1,
            smp_supersede: 1,
            singular_min_depth: 0,
            singular_margin: 4,
            tt_move_first: 0,
        }
    }
}

/// A field of [`Tuning`]: its name, the values it may take, and where it lives.
struct Field {
    name: &'static str,
    range: RangeInclusive<i32>,
    at: fn(&mut Tuning) -> &mut i32,
}

const ANY: RangeInclusive<i32> = i32::MIN..=i32::MAX;
/// A place in the move ordering, or a depth: not negative.
const PLACE: RangeInclusive<i32> = 0..=i32::MAX;

/// A [`Field`] for the field `name` of [`Tuning`]: its name is the field's own.
macro_rules! field {
    ($name:ident, $range:expr) => {
        Field {
            name: stringify!($name),
            range: $range,
            at: |t| &mut t.$name,
        }
    };
}

/// Every field of [`Tuning`], in the order of its declaration.
const FIELDS: [Field; 17] = [
    field!(futility_margin, ANY),
    field!(futility_depth, ANY),
    field!(probe_cut_margin, ANY),
    field!(probe_cut_min_depth, ANY),
    field!(probe_cut_depth_percent, 0..=99),
    field!(reduction_min_depth, ANY),
    field!(reduction_first_move, PLACE),
    field!(reduction_second_move, PLACE),
    field!(reduction_third_move, PLACE),
    field!(aspiration_delta, 1..=i32::MAX),
    field!(aspiration_min_depth, PLACE),
    field!(smp_defer_depth, PLACE),
    field!(smp_skip, PLACE),
    field!(smp_supersede, PLACE),
    field!(singular_min_depth, PLACE),
    field!(singular_margin, ANY),
    field!(tt_move_first, PLACE),
];

/// A tuning text that does not parse.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum TuningError {
    /// An item without `=`.
    #[error("`{0}` is not NAME=VALUE")]
    Syntax(String),
    /// A name that is not a field.
    #[error("no tuning value is called `{name}` (there are: {})", Tuning::names().join(", "))]
    Name {
        /// The name given.
        name: String,
    },
    /// A value that is not a whole number in range.
    #[error("`{value}` is not a valid value for `{name}`")]
    Value {
        /// The field.
        name: String,
        /// The value given.
        value: String,
    },
}

impl Tuning {
    /// The field names, as `set` and `KROON_TUNE` take them.
    #[must_use]
    pub fn names() -> Vec<&'static str> {
        FIELDS.iter().map(|f| f.name).collect()
    }

    /// Sets the field `name` to `value`.
    ///
    /// # Errors
    /// An unknown name, or a value that is not a whole number of the field's range.
    pub fn set(&mut self, name: &str, value: &str) -> Result<(), TuningError> {
        let name = name.trim();
        let field = FIELDS
            .iter()
            .find(|f| f.name == name)
            .ok_or_else(|| TuningError::Name {
                name: name.to_string(),
            })?;
        let v = value
            .trim()
            .parse::<i32>()
            .ok()
            .filter(|v| field.range.contains(v))
            .ok_or_else(|| TuningError::Value {
                name: name.to_string(),
                value: value.to_string(),
            })?;
        *(field.at)(self) = v;
        Ok(())
    }

    /// The defaults with the items of `text` applied: `NAME=VALUE` separated by commas or spaces.
    ///
    /// # Errors
    /// The first item that does not parse.
    pub fn parse(text: &str) -> Result<Tuning, TuningError> {
        let mut t = Tuning::default();
        for item in text.split([',', ' ']).filter(|s| !s.is_empty()) {
            let (name, value) = item
                .split_once('=')
                .ok_or_else(|| TuningError::Syntax(item.to_string()))?;
            t.set(name, value)?;
        }
        Ok(t)
    }

    /// The defaults, or what `KROON_TUNE` makes of them when it is set.
    ///
    /// # Panics
    /// If `KROON_TUNE` is set and does not parse: a test must not run with settings it did not ask
    /// for.
    #[must_use]
    pub fn from_env() -> Tuning {
        match std::env::var(TUNE_VAR) {
            Ok(text) => Tuning::parse(&text).unwrap_or_else(|e| panic!("{TUNE_VAR}: {e}")),
            Err(_) => Tuning::default(),
        }
    }
}

impl fmt::Display for Tuning {
    /// Every field as `NAME=VALUE`, comma-separated: what `parse` reads back.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut t = *self;
        for (i, field) in FIELDS.iter().enumerate() {
            if i > 0 {
                f.write_str(",")?;
            }
            write!(f, "{}={}", field.name, (field.at)(&mut t))?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_name_reads_back_from_the_display() {
        let mut t = Tuning::default();
        for (k, name) in Tuning::names().into_iter().enumerate() {
            t.set(name, &(k + 7).to_string()).unwrap();
        }
        // Each name reaches its own field, in the order of the declaration.
        let expected = Tuning {
            futility_margin: 7,
            futility_depth: 8,
            probe_cut_margin: 9,
            probe_cut_min_depth: 10,
            probe_cut_depth_percent: 11,
            reduction_min_depth: 12,
            reduction_first_move: 13,
            reduction_second_move: 14,
            reduction_third_move: 15,
            aspiration_delta: 16,
            aspiration_min_depth: 17,
            smp_defer_depth: 18,
            smp_skip: 19,
            smp_supersede: 20,
            singular_min_depth: 21,
            singular_margin: 22,
            tt_move_first: 23,
        };
        assert_eq!(t, expected);
        let text = t.to_string();
        assert_eq!(Tuning::parse(&text).unwrap(), t);
        assert_ne!(t, Tuning::default(), "{text}");
        assert_eq!(text.split(',').count(), Tuning::names().len());
    }

    #[test]
    fn bad_items_are_errors_that_name_them() {
        assert_eq!(
            Tuning::parse("futility_margin=90 aspiration_delta=30").unwrap(),
            Tuning {
                futility_margin: 90,
                aspiration_delta: 30,
                ..Tuning::default()
            }
        );
        assert!(
            matches!(Tuning::parse("futility"), Err(TuningError::Syntax(s)) if s == "futility")
        );
        let e = Tuning::parse("futility_margn=9").unwrap_err();
        assert!(e.to_string().contains("futility_margin"), "{e}");
        assert!(matches!(
            Tuning::parse("aspiration_delta=0"),
            Err(TuningError::Value { .. })
        ));
        assert!(matches!(
            Tuning::parse("reduction_first_move=-1"),
            Err(TuningError::Value { .. })
        ));
    }
}
