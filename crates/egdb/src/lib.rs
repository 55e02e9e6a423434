//! Kroon's endgame databases for international draughts: every position with few pieces, its
//! game-theoretic value (win, draw or loss for the side to move, without the counting rules) and
//! its distance to conversion, built by retrograde analysis on the user's machine.
//!
//! - `material`: a slice of the database (men and kings of each side, the side to move first);
//! - `index`: a dense number for each position of a slice, and back;
//! - `value`: what a table stores for one position;
//! - `part`: the parts a slice pair is cut into when it is too large to build at once;
//! - `build`: retrograde analysis of the slices up to a piece count, with verification;
//! - `store`: the compressed slice files (versioned header, block index, checksum);
//! - `probe`: reading a directory of slice files and looking positions up;
//! - `cache`: the decoded blocks the probes read from;
//! - `search` (feature `search`): the tables behind the search's probe.
//!
//! ```
//! use kroon_egdb::{build, Material, Value};
//! let dir = std::env::temp_dir().join(format!("kroon-egdb-doc-{}", std::process::id()));
//! let kk: Material = "1K-1K".parse().unwrap();
//! build::build(&build::Plan::materials(&[kk]), &dir, &build::Options::default(), &|_| {}).unwrap();
//! let tables = kroon_egdb::Tables::open(&dir).unwrap();
//! let pos = kroon_rules::parse_fen("W:WK1:BK50", kroon_rules::Variant::International).unwrap();
//! assert_eq!(tables.probe(&pos).map(|p| p.value), Some(Value::Draw));
//! std::fs::remove_dir_all(&dir).unwrap();
//! ```
#![forbid(unsafe_code)]
#![deny(missing_docs)]

pub mod build;
pub mod cache;
mod captures;
pub mod index;
pub mod material;
pub mod part;
pub mod probe;
#[cfg(feature = "search")]
pub mod search;
pub mod store;
pub mod value;

pub use cache::CacheStats;
pub use material::{Material, MAX_PIECES};
pub use probe::{Probe, Tables};
pub use value::Value;
