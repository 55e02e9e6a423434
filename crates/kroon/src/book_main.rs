//! `kroon book build` and `kroon book probe`: flags and wiring around `kroon_book`, and the book
//! the settings ask the engine to play from.

use crate::evaluation;
use anyhow::{bail, Context, Result};
use clap::{Args, Subcommand};
use kroon_book::{Book, BuildOptions};
use kroon_rules::{notation, parse_fen, Position, Variant};
use kroon_search::{score, BookPlay, Limits};
use kroon_settings::Config;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// `kroon book`.
#[derive(Subcommand, Debug)]
pub enum BookCommand {
    /// Grow a book from the initial position by Kroon's own search.
    Build(BuildArgs),
    /// List the book moves of a position with their scores, best first.
    Probe(ProbeArgs),
}

/// `kroon book build`.
#[derive(Args, Debug)]
pub struct BuildArgs {
    /// Book lines reach this many plies.
    #[arg(long, default_value_t = 12)]
    plies: u32,
    /// Grow the lines whose moves lose at most this much in all against the best, centi-men.
    #[arg(long, default_value_t = 10)]
    margin: i32,
    /// Seconds per position searched (a book that depends on the machine's speed).
    #[arg(long, conflicts_with = "nodes")]
    time: Option<f64>,
    /// Nodes per position searched (the default, at 100000: the same nodes give the same book).
    #[arg(long)]
    nodes: Option<u64>,
    /// Stop once this many positions are expanded (the book's size).
    #[arg(long, default_value_t = 2000)]
    positions: usize,
    /// Positions searched at once (the book does not depend on it).
    #[arg(long, default_value_t = 1)]
    threads: usize,
    /// Table per search thread, MiB.
    #[arg(long, default_value_t = 16)]
    hash: usize,
    /// The book file written; its state goes to FILE.state, from which an interrupted build goes
    /// on.
    #[arg(long, value_name = "FILE", default_value = "book.kbk")]
    out: PathBuf,
    /// Variant (default: from the settings).
    #[arg(long)]
    variant: Option<String>,
    /// No progress bar.
    #[arg(long)]
    quiet: bool,
}

/// `kroon book probe`.
#[derive(Args, Debug)]
pub struct ProbeArgs {
    /// Position in PDN FEN (default: the initial position).
    #[arg(long)]
    fen: Option<String>,
    /// Variant (default: from the settings).
    #[arg(long)]
    variant: Option<String>,
    /// A book file instead of the one the settings give.
    #[arg(long, value_name = "FILE")]
    book: Option<PathBuf>,
}

/// Runs `kroon book ...`.
///
/// # Errors
/// Bad flags, files that cannot be read or written, a refused book.
pub fn run(cmd: BookCommand, config: &Config) -> Result<()> {
    match cmd {
        BookCommand::Build(args) => build(&args, config),
        BookCommand::Probe(args) => probe(&args, config),
    }
}

use crate::flags::variant;

fn build(args: &BuildArgs, config: &Config) -> Result<()> {
    let variant = variant(args.variant.as_deref(), config)?;
    let limits = match (args.time, args.nodes) {
        (Some(t), _) if t.is_finite() && t > 0.0 => Limits::MoveTime(Duration::from_secs_f64(t)),
        (Some(t), _) => bail!("--time must be a positive number of seconds, not {t}"),
        (None, n) => Limits::Nodes(n.unwrap_or(100_000).max(1)),
    };
    crate::flags::at_least_one(args.threads)?;
    if args.margin < 0 {
        bail!("--margin must be 0 or more");
    }
    let mut state = args.out.as_os_str().to_owned();
    state.push(".state");
    let opts = BuildOptions {
        variant,
        plies: args.plies,
        margin: args.margin,
        limits,
        threads: args.threads,
        max_positions: args.positions,
        eval: evaluation::for_variant(config, None, None, variant)?,
        hash_mib: args.hash.max(1),
        out: args.out.clone(),
        state: PathBuf::from(state),
        progress: !args.quiet,
    };
    let start = Instant::now();
    let (_, report) = kroon_book::build(&opts)?;
    say!(
        "book {}: {} positions, {} bytes; {} positions searched ({} from the state file) in {:.0} s",
        args.out.display(),
        report.positions,
        report.bytes,
        report.searched,
        report.resumed,
        start.elapsed().as_secs_f64()
    )?;
    Ok(())
}

fn probe(args: &ProbeArgs, config: &Config) -> Result<()> {
    let variant = variant(args.variant.as_deref(), config)?;
    let pos = match &args.fen {
        None => Position::initial(variant),
        Some(text) => parse_fen(text, variant).with_context(|| format!("bad FEN `{text}`"))?,
    };
    let Some(book) = load(config, args.book.as_deref(), variant)? else {
        bail!("no book for {variant}");
    };
    let moves = book.moves(&pos);
    if moves.is_empty() {
        say!("not in book")?;
    }
    for (mv, s) in moves {
        say!("{} {:.2}", notation::long(&mv, variant), score::in_men(s))?;
    }
    Ok(())
}

/// Reads a book file.
///
/// # Errors
/// The file cannot be read or is refused (the message says why).
pub fn read_book(path: &Path) -> Result<Book> {
    let bytes = std::fs::read(path).with_context(|| format!("reading {}", path.display()))?;
    Book::from_bytes(&bytes).with_context(|| format!("book file {}", path.display()))
}

/// The book for `variant`: `file`, else `[book] file`, else the embedded one (international
/// only); `None` when there is none.
///
/// # Errors
/// A book file that cannot be read, is refused or is for another variant.
pub fn load(config: &Config, file: Option<&Path>, variant: Variant) -> Result<Option<Book>> {
    let file =
        file.or_else(|| (!config.book.file.is_empty()).then(|| Path::new(&config.book.file)));
    match file {
        Some(path) => {
            let book = read_book(path)?;
            if book.variant() != variant {
                bail!(
                    "book file {} is for {}, not {variant}",
                    path.display(),
                    book.variant()
                );
            }
            Ok(Some(book))
        }
        None => Ok(Book::embedded(variant)),
    }
}

/// What the engine plays from when the settings enable the book: the book of `variant`, picked
/// within `[book] margin`.
///
/// # Errors
/// As [`load`].
pub fn play(config: &Config, variant: Variant) -> Result<Option<BookPlay>> {
    if !config.book.enabled {
        return Ok(None);
    }
    let margin = config.book.margin;
    Ok(load(config, None, variant)?.map(|book| BookPlay::new(Arc::new(book), margin)))
}
