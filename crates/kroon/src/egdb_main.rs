//! `kroon egdb`: build, probe and list the endgame tables.

use anyhow::{bail, Context, Result};
use clap::{Args, Subcommand};
use indicatif::{ProgressBar, ProgressStyle};
use kroon_egdb::build::{self, Plan, Progress, Stage};
use kroon_egdb::search::SearchTables;
use kroon_egdb::{Material, Tables};
use kroon_rules::{parse_fen, Variant};
use kroon_search::EndgameTables;
use kroon_settings::Config;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// `kroon egdb ...`.
#[derive(Args, Debug)]
pub struct EgdbArgs {
    #[command(subcommand)]
    command: EgdbCommand,
}

#[derive(Subcommand, Debug)]
enum EgdbCommand {
    /// Build the tables of every international draughts position with up to N pieces.
    Build {
        /// Most pieces on the board (2 to 7; default: the most this machine builds within about
        /// an hour and half its memory).
        #[arg(long)]
        pieces: Option<u32>,
        /// Build only these slices (and what they need), e.g. `4K-1K,1K2M-1K`.
        #[arg(long, value_delimiter = ',', conflicts_with = "pieces")]
        slices: Vec<String>,
        /// Directory of the tables (default: from the settings).
        #[arg(long)]
        dir: Option<PathBuf>,
        /// Worker threads (default: all cores).
        #[arg(long)]
        threads: Option<usize>,
        /// Memory the build may hold, e.g. `8G` or `500M` (default: three quarters of the
        /// machine's). Over it, slices are built in parts by the rows of the rearmost men, and
        /// finished slices not needed are dropped from memory.
        #[arg(long, value_parser = parse_bytes)]
        memory: Option<u64>,
        /// Build the slices on the workers of this queue (redis://HOST:PORT/[DB]): each slice
        /// pair is a job, issued once the slices it needs are done; the files come back through
        /// the queue and are checked and written here.
        #[arg(long, value_name = "URL")]
        queue: Option<String>,
        /// With --queue: --dir is a directory every worker mounts too (`kroon worker
        /// --shared-dir`), for slices too large for the queue (6 pieces): the workers read and
        /// write the slices there, and only names and checksums travel through the queue.
        #[arg(long, requires = "queue")]
        shared: bool,
    },
    /// The value of a position: win, draw or loss for the side to move, and plies to conversion.
    Probe {
        /// Position in PDN FEN.
        #[arg(long)]
        fen: String,
        /// Directory of the tables (default: from the settings).
        #[arg(long)]
        dir: Option<PathBuf>,
    },
    /// List the slices found, their sizes and any files left out.
    Info {
        /// Directory of the tables (default: from the settings).
        #[arg(long)]
        dir: Option<PathBuf>,
    },
}

/// The directory `kroon egdb` builds in or reads: `--dir` or the settings.
fn command_dir(config: &Config, flag: Option<&Path>) -> Result<PathBuf> {
    config
        .egdb
        .resolve(flag)
        .context("no directory for the tables: give --dir or set [egdb] dir")
}

/// Runs `kroon egdb`.
pub fn run(args: EgdbArgs, config: &Config) -> Result<()> {
    match args.command {
        EgdbCommand::Build {
            pieces,
            slices,
            dir,
            threads,
            memory,
            queue,
            shared,
        } => {
            let mut options = build::Options::default();
            if let Some(t) = threads {
                options.threads = crate::flags::at_least_one(t)?;
            }
            options.memory = memory.or_else(|| memory_bytes().map(|m| m / 4 * 3));
            let plan = if slices.is_empty() {
                let n = match pieces {
                    Some(n) => n,
                    None => {
                        let n = pieces_for_machine(options.threads, memory_bytes());
                        say!("building every slice up to {n} pieces, the most this machine holds in about an hour")?;
                        n
                    }
                };
                if !(2..=kroon_egdb::MAX_PIECES).contains(&n) {
                    bail!("--pieces must be 2 to {}, not {n}", kroon_egdb::MAX_PIECES);
                }
                Plan::pieces(n)
            } else {
                let wanted: Vec<Material> = slices
                    .iter()
                    .map(|s| s.parse::<Material>())
                    .collect::<Result<_, _>>()?;
                Plan::materials(&wanted)
            };
            let dir = command_dir(config, dir.as_deref())?;
            if let Some(url) = queue {
                return crate::queue_main::egdb_queue(&url, &plan, &dir, options.distances, shared);
            }
            let expected = plan.cpu_time().as_secs_f64();
            let memory = match options.memory {
                Some(budget) if budget < plan.peak_memory() => format!(
                    "{} of memory at most (the budget: the largest pairs are built in parts, \
                     finished slices read back as needed)",
                    bytes(budget)
                ),
                _ => format!(
                    "{} of memory at most (slices found in the directory are kept and take less)",
                    bytes(plan.peak_memory())
                ),
            };
            say!(
                "expected: about {} of CPU, {} on {} thread{}, {memory}",
                duration(expected),
                duration(expected / options.threads as f64),
                options.threads,
                if options.threads == 1 { "" } else { "s" },
            )?;
            build_tables(&plan, &dir, &options)
        }
        EgdbCommand::Probe { fen, dir } => {
            let pos = parse_fen(&fen, Variant::International)
                .with_context(|| format!("bad FEN `{fen}`"))?;
            let tables = open(&command_dir(config, dir.as_deref())?)?;
            match tables.probe(&pos) {
                Some(p) => match p.distance {
                    Some(d) => say!("{} {d}", p.value.name())?,
                    None => say!("{}", p.value.name())?,
                },
                None => bail!(
                    "no table holds this position ({} pieces; tables complete to {})",
                    pos.all().count(),
                    tables.complete_pieces()
                ),
            }
            Ok(())
        }
        EgdbCommand::Info { dir } => {
            let dir = command_dir(config, dir.as_deref())?;
            let tables = open(&dir)?;
            say!("directory {}", dir.display())?;
            let slices = tables.slices();
            let mut total = 0;
            for (slice, numbers) in &slices {
                say!(
                    "{:<10} {:>12} positions {:>12} bytes",
                    slice.material().to_string(),
                    numbers,
                    slice.coded_bytes()
                )?;
                total += slice.coded_bytes();
            }
            say!(
                "slices {} bytes {total} complete to {} pieces",
                slices.len(),
                tables.complete_pieces()
            )?;
            for p in tables.problems() {
                say!("left out {}: {}", p.path.display(), p.error)?;
            }
            Ok(())
        }
    }
}

/// The tables the search probes: those of `flag` (`--egdb DIR`; `none` for none), else of the
/// settings' directory. A directory that is missing or holds no tables means none, silently
/// when it is the default one; files that do not read are left out with a warning. Without
/// `flag`, a settings' directory with no tables gets the small ones, built in the background
/// (see `egdb_auto`).
pub fn for_search(config: &Config, flag: Option<&Path>) -> Result<Option<Arc<dyn EndgameTables>>> {
    if let Some(dir) = auto_dir(config, flag)? {
        return Ok(Some(crate::egdb_auto::start(
            dir,
            crate::egdb_auto::pieces(),
        )));
    }
    match search_dir(config, flag)? {
        Some(dir) => open_for_search(&dir).map_err(anyhow::Error::msg),
        None => Ok(None),
    }
}

/// The directory the small tables are to be built in automatically: the settings' directory,
/// when `--egdb` is not given, `[egdb] auto` is on and the directory holds no tables yet.
pub fn auto_dir(config: &Config, flag: Option<&Path>) -> Result<Option<PathBuf>> {
    let pieces = crate::egdb_auto::pieces();
    if flag.is_some() || !config.egdb.auto || pieces == 0 {
        return Ok(None);
    }
    let Some(dir) = config.egdb.resolve(None) else {
        return Ok(None);
    };
    Ok(crate::egdb_auto::wanted(&dir, pieces).then_some(dir))
}

/// The table directory of `--egdb` or the settings: an error when one named there is missing;
/// `None` for `none` or a default directory that does not exist (no tables built yet).
pub fn search_dir(config: &Config, flag: Option<&Path>) -> Result<Option<PathBuf>> {
    let Some(dir) = config.egdb.resolve(flag) else {
        return Ok(None);
    };
    if dir.is_dir() {
        return Ok(Some(dir));
    }
    if flag.is_some() || !config.egdb.dir.is_empty() {
        bail!("no endgame table directory {}", dir.display());
    }
    Ok(None)
}

/// The tables of `dir` for the search (`None` when it holds none), or a message.
pub fn open_for_search(dir: &Path) -> Result<Option<Arc<dyn EndgameTables>>, String> {
    let tables = open(dir).map_err(|e| format!("{e:#}"))?;
    if tables.is_empty() {
        return Ok(None);
    }
    tracing::info!(
        "endgame tables: {} slices in {}, complete to {} pieces",
        tables.slices().len(),
        dir.display(),
        tables.complete_pieces()
    );
    Ok(Some(Arc::new(SearchTables::new(tables))))
}

/// Opens a table directory, warning about files left out.
pub fn open(dir: &Path) -> Result<Tables> {
    let tables = Tables::open(dir)
        .with_context(|| format!("cannot read the tables in {}", dir.display()))?;
    for p in tables.problems() {
        tracing::warn!("endgame table {} left out: {}", p.path.display(), p.error);
    }
    Ok(tables)
}

/// The wall time a build of every slice up to a piece count may take when no count is given.
const REASONABLE: Duration = Duration::from_secs(3600);

/// The most pieces (at least 2) whose build takes no more than [`REASONABLE`] on `threads`
/// threads and half of `memory` (`None`: unknown, taken as plenty).
fn pieces_for_machine(threads: usize, memory: Option<u64>) -> u32 {
    (3..=kroon_egdb::MAX_PIECES)
        .take_while(|&n| {
            let plan = Plan::pieces(n);
            let wall = plan.cpu_time().as_secs_f64() / threads.max(1) as f64;
            wall <= REASONABLE.as_secs_f64() && memory.is_none_or(|m| plan.peak_memory() <= m / 2)
        })
        .last()
        .unwrap_or(2)
}

/// The machine's memory, where the system says (Linux's `/proc/meminfo`).
fn memory_bytes() -> Option<u64> {
    let text = std::fs::read_to_string("/proc/meminfo").ok()?;
    let line = text.lines().find(|l| l.starts_with("MemTotal:"))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib * 1024)
}

/// `8G`, `500M`, `64K` or a number of bytes (powers of 1024).
fn parse_bytes(text: &str) -> Result<u64, String> {
    let t = text.trim();
    let (digits, unit) = match t.char_indices().last() {
        Some((i, c)) if c.is_ascii_alphabetic() => (&t[..i], c.to_ascii_uppercase()),
        _ => (t, 'B'),
    };
    let shift = match unit {
        'B' => 0,
        'K' => 10,
        'M' => 20,
        'G' => 30,
        'T' => 40,
        _ => return Err(format!("`{text}`: a size is a number with K, M, G or T")),
    };
    let n: f64 = digits
        .trim()
        .parse()
        .map_err(|_| format!("`{text}`: a size is a number with K, M, G or T"))?;
    if !(n.is_finite() && n > 0.0) {
        return Err(format!("`{text}`: the size must be positive"));
    }
    Ok((n * (1u64 << shift) as f64) as u64)
}

/// `40 min`, `2.5 h`, `12 s`.
fn duration(seconds: f64) -> String {
    if seconds < 90.0 {
        format!("{seconds:.0} s")
    } else if seconds < 5400.0 {
        format!("{:.0} min", seconds / 60.0)
    } else {
        format!("{:.1} h", seconds / 3600.0)
    }
}

/// `150 MB`, `4.2 GB`.
fn bytes(n: u64) -> String {
    if n < 1 << 30 {
        format!("{} MB", n.div_ceil(1 << 20))
    } else {
        format!("{:.1} GB", n as f64 / f64::from(1u32 << 30))
    }
}

/// A line above the bar, or on standard error when there is no terminal to draw the bar on.
fn note(bar: &ProgressBar, line: String) {
    if bar.is_hidden() {
        eprintln!("{line}");
    } else {
        bar.println(line);
    }
}

/// Takes `dir`'s build lock, waiting (and saying so) while another build holds it.
pub fn lock_dir(dir: &Path) -> Result<build::DirLock> {
    Ok(match build::lock(dir, false) {
        Err(build::BuildError::Busy(_)) => {
            eprintln!(
                "another build is writing to {} (the engine's background build?): waiting for it",
                dir.display()
            );
            build::lock(dir, true)?
        }
        other => other?,
    })
}

fn build_tables(plan: &Plan, dir: &Path, options: &build::Options) -> Result<()> {
    let lock = lock_dir(dir)?;
    let start = Instant::now();
    // The bar counts numbers through the two passes over every position (settling and checking);
    // the un-moving in between shows as the message.
    let bar = ProgressBar::new(2 * plan.size());
    if let Ok(style) =
        ProgressStyle::with_template("{elapsed_precise} [{bar:30}] {percent}% ETA {eta} {msg}")
    {
        bar.set_style(style.progress_chars("=> "));
    }
    let current = parking_lot::Mutex::new(String::new());
    let report = build::build(plan, dir, options, &|p| match p {
        Progress::Pair { slices, parts, .. } => {
            let names: Vec<String> = slices.iter().map(ToString::to_string).collect();
            *current.lock() = names.join(" ");
            if parts > 1 {
                note(&bar, format!("{}: in {parts} parts", names.join(" ")));
            }
            bar.set_message(current.lock().clone());
        }
        Progress::Step { stage, done } => match stage {
            Stage::Start | Stage::Verify => bar.inc(done),
            Stage::Distance(d) => bar.set_message(format!("{} distance {d}", current.lock())),
        },
        Progress::Reread(m) => note(&bar, format!("{m}: read into memory")),
        Progress::Loaded(m) => {
            bar.inc(2 * kroon_egdb::index::Layout::new(m).size());
            note(&bar, format!("{m}: found, kept"));
        }
        Progress::Written(r) => note(
            &bar,
            format!(
                "{}: {} positions, {} wins {} draws {} losses, longest {} plies, {} bytes, {:.1} s",
                r.material,
                r.positions,
                r.wins,
                r.draws,
                r.losses,
                r.longest,
                r.bytes,
                r.time.as_secs_f64()
            ),
        ),
    })?;
    bar.finish_and_clear();
    drop(lock);
    let positions: u64 = report.built.iter().map(|r| r.positions).sum();
    let bytes: u64 = report.built.iter().map(|r| r.bytes).sum();
    say!(
        "built {} slices ({positions} positions, {bytes} bytes), kept {}, in {:.1} s, in {}",
        report.built.len(),
        report.loaded.len(),
        start.elapsed().as_secs_f64(),
        dir.display()
    )?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_default_piece_count_follows_the_machine() {
        const GB: u64 = 1 << 30;
        // Five pieces take about 22 CPU-minutes and 4 GB; six, hours and far more memory.
        assert_eq!(pieces_for_machine(2, Some(16 * GB)), 5);
        assert_eq!(pieces_for_machine(2, None), 5);
        assert_eq!(pieces_for_machine(2, Some(2 * GB)), 4);
        assert_eq!(pieces_for_machine(64, Some(4096 * GB)), 6);
        assert_eq!(duration(40.0), "40 s");
        assert_eq!(duration(2400.0), "40 min");
        assert_eq!(bytes(150 << 20), "150 MB");
        assert_eq!(parse_bytes("8G"), Ok(8 * GB));
        assert_eq!(parse_bytes("1.5g"), Ok(3 * GB / 2));
        assert_eq!(parse_bytes("500M"), Ok(500 << 20));
        assert_eq!(parse_bytes("4096"), Ok(4096));
        assert!(parse_bytes("8X").is_err());
        assert!(parse_bytes("-1G").is_err());
    }
}
