//! `kroon hub`: the Hub protocol on standard input and output.

use crate::config::Config;
use anyhow::{bail, Result};

pub fn run(_config: &Config) -> Result<()> {
    bail!("the Hub protocol is not available yet")
}
