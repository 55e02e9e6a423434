//! `kroon dxp`: DamExchange games over TCP.

use crate::config::Config;
use anyhow::{bail, Result};

/// DXP options.
#[derive(clap::Args, Debug)]
pub struct DxpArgs {}

pub fn run(_args: DxpArgs, _config: &Config) -> Result<()> {
    bail!("DXP is not available yet")
}
