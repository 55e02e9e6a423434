//! `kroon match`: a tournament manager for Hub and DXP engines.

use crate::config::Config;
use anyhow::{bail, Result};

/// Match options.
#[derive(clap::Args, Debug)]
pub struct MatchArgs {}

pub fn run(_args: MatchArgs, _config: &Config) -> Result<()> {
    bail!("kroon match is not available yet")
}
