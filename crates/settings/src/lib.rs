//! Kroon's settings: the embedded `engine.toml`, then a user file, then command-line flags, merged
//! as TOML tables and deserialized once. A library of its own so that its reader is fuzzed and
//! tested without the binary.

// A reader of outside input: bad bytes must come back as errors, so no panicking shortcuts.
#![cfg_attr(
    not(test),
    deny(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing)
)]

use anyhow::{Context, Result};
use serde::{Deserialize, Serialize};
use std::path::Path;
use std::sync::OnceLock;

const DEFAULTS: &str = include_str!("../../../engine.toml");

/// Every setting Kroon has.
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Config {
    /// Rules and search.
    pub engine: EngineConfig,
    /// DamExchange.
    pub dxp: DxpConfig,
    /// Evaluation.
    pub eval: EvalConfig,
    /// Opening book.
    pub book: BookConfig,
    /// Logging.
    pub log: LogConfig,
    /// Endgame tables.
    pub egdb: EgdbConfig,
}

/// Endgame table settings.
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct EgdbConfig {
    /// Directory of the tables; empty for the user's data directory.
    pub dir: String,
    /// Build the small tables in the background when a searching command finds none in `dir`.
    pub auto: bool,
}

impl EgdbConfig {
    /// The table directory: `flag` when given (`none`: no tables), else the setting, else the
    /// user's data directory (`None` when there is no home to find it in).
    #[must_use]
    pub fn resolve(&self, flag: Option<&Path>) -> Option<std::path::PathBuf> {
        if let Some(dir) = flag {
            return (dir != Path::new("none")).then(|| dir.to_path_buf());
        }
        if !self.dir.is_empty() {
            return Some(self.dir.clone().into());
        }
        directories::ProjectDirs::from("", "", "kroon").map(|d| d.data_dir().join("egdb"))
    }
}

/// Rules and search settings.
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct EngineConfig {
    /// Variant name (Hub spelling).
    pub variant: String,
    /// Search threads.
    pub threads: usize,
    /// Transposition table in MiB.
    pub hash: usize,
    /// Pondering allowed.
    pub ponder: bool,
}

/// Evaluation settings.
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct EvalConfig {
    /// `learned` or `hand`.
    pub kind: String,
    /// A weights file to play with instead of the embedded weights; empty for none.
    pub file: String,
}

/// Opening book settings.
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct BookConfig {
    /// Play from the book in `hub`, `dxp` and `match`.
    pub enabled: bool,
    /// Pick at random among the book moves within this many centi-men of the best.
    pub margin: i32,
    /// A book file written by `kroon book build`, used instead of the embedded book; empty for
    /// none.
    pub file: String,
}

/// DXP settings.
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct DxpConfig {
    /// Listening address.
    pub listen: String,
    /// Name sent to the peer.
    pub name: String,
}

/// Log settings.
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct LogConfig {
    /// tracing filter.
    pub level: String,
    /// Log file, empty for standard error.
    pub file: String,
}

fn merge(base: &mut toml::Table, over: toml::Table) {
    for (k, v) in over {
        match (base.get_mut(&k), v) {
            (Some(toml::Value::Table(b)), toml::Value::Table(o)) => merge(b, o),
            (_, v) => {
                base.insert(k, v);
            }
        }
    }
}

impl Config {
    /// The embedded defaults, overridden by `user` (a TOML file) when given.
    pub fn load(user: Option<&Path>) -> Result<Config> {
        match user {
            None => Config::parse(""),
            Some(path) => {
                let text = std::fs::read_to_string(path)
                    .with_context(|| format!("reading {}", path.display()))?;
                Config::parse(&text).with_context(|| format!("settings file {}", path.display()))
            }
        }
    }

    /// The embedded defaults, overridden by the TOML text `user` (empty for none).
    ///
    /// # Errors
    /// Text that is not TOML, unknown keys and values of the wrong type; nothing in `user` can
    /// make this panic.
    pub fn parse(user: &str) -> Result<Config> {
        static EMBEDDED: OnceLock<Result<toml::Table, toml::de::Error>> = OnceLock::new();
        let embedded = EMBEDDED.get_or_init(|| DEFAULTS.parse());
        let mut table = embedded.clone().context("embedded engine.toml")?;
        let over: toml::Table = user.parse().context("not valid TOML")?;
        merge(&mut table, over);
        toml::Value::Table(table).try_into().context("settings")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn embedded_defaults_parse() {
        let c = Config::load(None).unwrap();
        assert_eq!(c.engine.variant, "normal");
        assert_eq!(c.dxp.listen, "127.0.0.1:27531");
        assert_eq!(c.eval.kind, "learned");
        assert!(c.eval.file.is_empty());
        assert!(!c.book.enabled);
        assert_eq!(c.book.margin, 4);
    }

    #[test]
    fn user_file_overrides_one_key() {
        let dir = std::env::temp_dir().join(format!("kroon-config-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let f = dir.join("user.toml");
        std::fs::write(&f, "[engine]\nthreads = 2\n").unwrap();
        let c = Config::load(Some(&f)).unwrap();
        assert_eq!(c.engine.threads, 2);
        assert_eq!(c.engine.hash, 64);
        std::fs::write(&f, "[engine]\nthreadz = 2\n").unwrap();
        assert!(Config::load(Some(&f)).is_err());
    }
}
