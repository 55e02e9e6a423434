//! The tables behind the search's probe: `SearchTables` answers `kroon_search::EndgameTables`
//! (feature `search`).

use crate::{Tables, Value};
use kroon_rules::Position;
use kroon_search::{EndgameTables, TableProbe, TableValue};

/// Kroon's tables behind the search's probe.
#[derive(Debug)]
pub struct SearchTables(Tables);

impl SearchTables {
    /// The search's view of `tables`.
    #[must_use]
    pub fn new(tables: Tables) -> SearchTables {
        SearchTables(tables)
    }

    /// The tables.
    #[must_use]
    pub fn tables(&self) -> &Tables {
        &self.0
    }
}

impl EndgameTables for SearchTables {
    fn pieces(&self) -> u32 {
        self.0.max_pieces()
    }

    fn probe(&self, pos: &Position) -> Option<TableProbe> {
        // A capture pending is resolved through the slices it leads into.
        let p = self.0.probe(pos)?;
        let value = match p.value {
            Value::Win(_) => TableValue::Win,
            Value::Draw => TableValue::Draw,
            Value::Loss(_) => TableValue::Loss,
        };
        Some(TableProbe {
            value,
            distance: p.distance,
        })
    }

    fn usage(&self) -> Option<String> {
        let s = self.0.cache_stats();
        Some(format!(
            "{} table reads, {:.1}% from decoded blocks",
            s.hits + s.misses,
            100.0 * s.hit_rate()
        ))
    }
}
