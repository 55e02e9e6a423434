//! Tables that are simply there: when a searching command finds no tables in the settings'
//! directory, the small ones are built there once, on a background thread at the lowest
//! priority, and the search probes them from the moment they are done. `[egdb] auto = false`
//! turns this off.
//!
//! The search holds a [`BackgroundTables`] from the start: it knows no position until the build
//! has ended, then all of them. Nothing is written to standard output (Hub and DXP speak there);
//! the build logs through tracing.

use kroon_egdb::build::{self, Plan, Progress};
use kroon_egdb::search::SearchTables;
use kroon_egdb::store::EXTENSION;
use kroon_egdb::Material;
use kroon_rules::Position;
use kroon_search::{EndgameTables, TableProbe};
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock};
use std::time::Instant;

/// Pieces of the tables built automatically: every slice up to 4 pieces takes about 12 MB and
/// well under a minute of one core.
pub const PIECES: u32 = 4;

/// Overrides [`PIECES`] (2 to 4; 0 turns the automatic build off). For tests, which build 3
/// pieces in a temporary data directory, and keep the user's own directory out of the suite.
pub const PIECES_VAR: &str = "KROON_EGDB_AUTO_PIECES";

/// The piece count of the automatic build (0: none).
#[must_use]
pub fn pieces() -> u32 {
    match std::env::var(PIECES_VAR) {
        Ok(v) => match v.trim().parse::<u32>() {
            Ok(n) if n == 0 || (2..=PIECES).contains(&n) => n,
            _ => {
                tracing::warn!("{PIECES_VAR}={v:?} is not 0 or 2 to {PIECES}; using {PIECES}");
                PIECES
            }
        },
        Err(_) => PIECES,
    }
}

/// Whether `dir` calls for the automatic build: it is missing, or its slice files (by name) hold
/// nothing beyond `pieces` pieces and not every slice up to it (none at all, or a build that was
/// stopped halfway). A directory holding bigger slices was filled by hand and is left alone.
#[must_use]
pub fn wanted(dir: &Path, pieces: u32) -> bool {
    if pieces < 2 {
        return false;
    }
    let Ok(entries) = std::fs::read_dir(dir) else {
        return !dir.exists();
    };
    let found: BTreeSet<Material> = entries
        .filter_map(|e| {
            let path = e.ok()?.path();
            if path.extension()? != EXTENSION {
                return None;
            }
            path.file_stem()?.to_str()?.parse().ok()
        })
        .collect();
    found.iter().all(|m| m.pieces() <= pieces)
        && !Material::up_to(pieces).iter().all(|m| found.contains(m))
}

/// Tables being built in the background: none until the build ends, then all of them.
#[derive(Debug, Default)]
pub struct BackgroundTables {
    ready: OnceLock<SearchTables>,
}

impl EndgameTables for BackgroundTables {
    fn pieces(&self) -> u32 {
        self.ready.get().map_or(0, EndgameTables::pieces)
    }

    fn probe(&self, pos: &Position) -> Option<TableProbe> {
        self.ready.get()?.probe(pos)
    }

    fn usage(&self) -> Option<String> {
        self.ready.get()?.usage()
    }
}

/// Starts building every slice up to `pieces` pieces in `dir` on a background thread at the
/// lowest priority; the tables returned know nothing until it is done. A build another process
/// is running in `dir` is waited for, not repeated; slices already there are kept.
pub fn start(dir: PathBuf, pieces: u32) -> Arc<BackgroundTables> {
    let tables = Arc::new(BackgroundTables::default());
    let filled = Arc::clone(&tables);
    let spawned = std::thread::Builder::new()
        .name("egdb-build".into())
        .spawn(move || match build_in_background(&dir, pieces) {
            Ok((t, message)) => {
                // `set` fails only if it was set before, which nothing else does.
                let _ = filled.ready.set(t);
                // Said once the search can see them: from here on its searches probe them.
                tracing::info!("{message}");
            }
            Err(e) => tracing::warn!(
                "endgame tables: the background build in {} failed: {e:#}",
                dir.display()
            ),
        });
    if let Err(e) = spawned {
        tracing::warn!("endgame tables: cannot start the background build: {e}");
    }
    tables
}

/// Builds (or waits for another process to build) the slices up to `pieces` in `dir`; the tables
/// and what to log once they are in use.
fn build_in_background(dir: &Path, pieces: u32) -> anyhow::Result<(SearchTables, String)> {
    lower_priority();
    tracing::info!(
        "endgame tables: none in {}; building those up to {pieces} pieces in the background",
        dir.display()
    );
    let start = Instant::now();
    let lock = build::lock(dir, true)?;
    // Another process may have built them while this one waited for the lock.
    let found = crate::egdb_main::open(dir)?;
    if found.complete_pieces() < pieces {
        let options = build::Options {
            // One core: the search keeps the others.
            threads: 1,
            ..build::Options::default()
        };
        build::build(&Plan::pieces(pieces), dir, &options, &|p| {
            if let Progress::Written(r) = p {
                tracing::debug!("endgame tables: built {}", r.material);
            }
        })?;
    }
    drop(lock);
    let tables = crate::egdb_main::open(dir)?;
    let message = format!(
        "endgame tables: built in the background in {:.1} s; the search uses {} slices in {}, \
         complete to {} pieces, from now on",
        start.elapsed().as_secs_f64(),
        tables.slices().len(),
        dir.display(),
        tables.complete_pieces()
    );
    Ok((SearchTables::new(tables), message))
}

/// Puts the calling thread (and the threads it starts) at the lowest ordinary priority (nice 19
/// on Linux): the search and everything else run first, yet the build still moves on a busy
/// machine, which the idle class would not promise.
fn lower_priority() {
    use thread_priority::{set_current_thread_priority, ThreadPriority};
    if let Err(e) = set_current_thread_priority(ThreadPriority::Min) {
        tracing::debug!("endgame tables: the background build keeps its priority: {e:?}");
    }
}
