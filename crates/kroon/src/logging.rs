//! Logging through tracing, to standard error or a file; standard output stays for protocol lines.

use anyhow::{Context, Result};
use tracing_subscriber::EnvFilter;

/// Installs the global subscriber. `KROON_LOG` overrides the configured level.
pub fn init(level: &str, file: &str) -> Result<()> {
    let filter = EnvFilter::try_from_env("KROON_LOG").unwrap_or_else(|_| EnvFilter::new(level));
    let builder = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_target(false);
    if file.is_empty() {
        builder.with_writer(std::io::stderr).try_init().ok();
    } else {
        let f = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(file)
            .with_context(|| format!("opening log file {file}"))?;
        builder
            .with_ansi(false)
            .with_writer(std::sync::Mutex::new(f))
            .try_init()
            .ok();
    }
    Ok(())
}
