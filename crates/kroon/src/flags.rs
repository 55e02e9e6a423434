//! The search flags the searching commands share (`--threads`, `--hash`, `--time`, `--nodes`),
//! flattened into each, and the one check of a thread count.

use anyhow::{bail, Context, Result};
use clap::Args;
use kroon_rules::Variant;
use kroon_search::Limits;
use kroon_settings::Config;
use std::time::Duration;

/// The engine's threads and table.
#[derive(Args, Debug, Clone)]
pub struct EngineArgs {
    /// Search threads (default: from the settings).
    #[arg(long)]
    pub threads: Option<usize>,
    /// Transposition table in MiB (default: from the settings; annotate: 16, cleared for each
    /// position).
    #[arg(long)]
    pub hash: Option<usize>,
}

impl EngineArgs {
    /// `--threads`, or the settings' count.
    pub fn threads(&self, config: &Config) -> Result<usize> {
        at_least_one(self.threads.unwrap_or(config.engine.threads))
    }

    /// `--hash`, or `default` MiB.
    pub fn hash_or(&self, default: usize) -> usize {
        self.hash.unwrap_or(default)
    }
}

/// How long each search runs.
#[derive(Args, Debug, Clone)]
pub struct LimitArgs {
    /// Seconds a search (default: 5 for analyse, 1 for annotate).
    #[arg(long, conflicts_with = "nodes")]
    pub time: Option<f64>,
    /// About this many nodes a search (repeatable results on one thread).
    #[arg(long)]
    pub nodes: Option<u64>,
}

impl LimitArgs {
    /// `--time S` or `--nodes N` as limits, `default` seconds without either.
    pub fn limits(&self, default: f64) -> Result<Limits> {
        Ok(match (self.time, self.nodes) {
            (Some(t), _) if t.is_finite() && t > 0.0 => {
                Limits::MoveTime(Duration::from_secs_f64(t))
            }
            (Some(t), _) => bail!("--time must be a positive number of seconds, not {t}"),
            (None, Some(n)) => Limits::Nodes(n.max(1)),
            (None, None) => Limits::MoveTime(Duration::from_secs_f64(default)),
        })
    }
}

/// `--variant`, or the settings' variant.
pub fn variant(flag: Option<&str>, config: &Config) -> Result<Variant> {
    let name = flag.unwrap_or(&config.engine.variant);
    name.parse().with_context(|| format!("variant `{name}`"))
}

/// A `--threads` count, checked: at least one.
pub fn at_least_one(threads: usize) -> Result<usize> {
    if threads == 0 {
        bail!("--threads must be at least 1");
    }
    Ok(threads)
}
