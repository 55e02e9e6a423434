//! Which evaluation the engine plays with: `[eval]` in the settings, or a flag, resolved to the
//! weights at hand (a weights file, or those embedded in the binary).

use anyhow::{Context, Result};
use kroon_rules::Variant;
use kroon_search::{Eval, EvalKind, Weights};
use kroon_settings::Config;
use std::path::Path;
use std::sync::Arc;

/// Reads a weights file.
///
/// # Errors
/// The file cannot be read or is not valid weights (the message says why).
pub fn read_weights(path: &Path) -> Result<Weights> {
    let bytes = std::fs::read(path).with_context(|| format!("reading {}", path.display()))?;
    Weights::from_bytes(&bytes).with_context(|| format!("weights file {}", path.display()))
}

/// The learned weights the settings give: `[eval] file` (or `file`, when given, instead), then the
/// embedded weights of every variant the file does not cover.
///
/// # Errors
/// A weights file that cannot be read or is refused.
pub fn learned_weights(config: &Config, file: Option<&Path>) -> Result<Vec<Arc<Weights>>> {
    let mut out: Vec<Arc<Weights>> = Vec::new();
    let file =
        file.or_else(|| (!config.eval.file.is_empty()).then(|| Path::new(&config.eval.file)));
    if let Some(path) = file {
        out.push(Arc::new(read_weights(path)?));
    }
    for w in kroon_search::eval::embedded() {
        if !out.iter().any(|o| o.variant() == w.variant()) {
            out.push(w);
        }
    }
    Ok(out)
}

/// The evaluation kind the settings ask for, unless `flag` overrides it.
///
/// # Errors
/// A kind that is neither `learned` nor `hand`.
pub fn kind(config: &Config, flag: Option<&str>) -> Result<EvalKind> {
    let name = flag.unwrap_or(&config.eval.kind);
    name.parse()
        .with_context(|| format!("evaluation `{name}` (eval.kind in the settings, or --eval)"))
}

/// The evaluation to search `variant` with.
///
/// # Errors
/// As [`kind`] and [`learned_weights`].
pub fn for_variant(
    config: &Config,
    flag: Option<&str>,
    file: Option<&Path>,
    variant: Variant,
) -> Result<Eval> {
    let kind = kind(config, flag)?;
    if kind == EvalKind::Hand {
        return Ok(Eval::Hand);
    }
    let weights = learned_weights(config, file)?;
    let found = weights.iter().find(|w| w.variant() == variant);
    if found.is_none() {
        tracing::info!("no learned weights for {variant}: the hand evaluation plays");
    }
    Ok(kind.with(found))
}
