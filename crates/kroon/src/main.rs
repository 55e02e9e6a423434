//! Kroon, a draughts engine: the command line.

mod board;
mod config;
mod logging;
mod perft;

use anyhow::{bail, Context, Result};
use clap::{Args, Parser, Subcommand};
use kroon_rules::{divide, notation, parse_fen, Duplicates, Position, Variant};
use std::io::{BufRead, Write};
use std::path::PathBuf;
use std::time::Instant;

#[derive(Parser, Debug)]
#[command(
    name = "kroon",
    version,
    about = "Kroon, a draughts engine (Hub, DXP, analysis, perft)"
)]
struct Cli {
    /// Settings file (TOML) overriding the embedded engine.toml.
    #[arg(long, global = true)]
    config: Option<PathBuf>,
    #[command(subcommand)]
    command: Command,
}

/// A position: FEN (PDN style) in a variant.
#[derive(Args, Debug, Clone)]
struct PositionArgs {
    /// Position in PDN FEN, e.g. `W:W31-50:B1-20` (default: the initial position).
    #[arg(long)]
    fen: Option<String>,
    /// Variant: normal, killer, bt, losing (default: from the settings).
    #[arg(long)]
    variant: Option<String>,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Count the leaves of the legal move tree.
    Perft {
        #[command(flatten)]
        position: PositionArgs,
        /// Plies to look ahead.
        #[arg(long, short)]
        depth: u32,
        /// Print the count below each legal move.
        #[arg(long)]
        divide: bool,
        /// Threads to count on.
        #[arg(long, default_value_t = 1)]
        threads: usize,
        /// Count every capture path, not one move per (from, to, captured set).
        #[arg(long)]
        keep_duplicates: bool,
    },
    /// List the legal moves, one per line, in long Hub notation.
    Moves {
        #[command(flatten)]
        position: PositionArgs,
        /// Read one FEN per line from standard input; answer each with one line of moves.
        #[arg(long, conflicts_with = "fen")]
        batch: bool,
    },
    /// Print a board diagram with field numbers.
    Show {
        #[command(flatten)]
        position: PositionArgs,
    },
}

impl PositionArgs {
    fn resolve(&self, default_variant: &str) -> Result<Position> {
        let name = self.variant.as_deref().unwrap_or(default_variant);
        let variant: Variant = name.parse()?;
        match &self.fen {
            None => Ok(Position::initial(variant)),
            Some(text) => parse_fen(text, variant).with_context(|| format!("bad FEN `{text}`")),
        }
    }
}

fn main() -> std::process::ExitCode {
    match run() {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("kroon: {e:#}");
            std::process::ExitCode::FAILURE
        }
    }
}

fn run() -> Result<()> {
    let cli = Cli::parse();
    let config = config::Config::load(cli.config.as_deref())?;
    logging::init(&config.log.level, &config.log.file)?;
    match cli.command {
        Command::Perft {
            position,
            depth,
            divide: split,
            threads,
            keep_duplicates,
        } => {
            let pos = position.resolve(&config.engine.variant)?;
            if threads == 0 {
                bail!("--threads must be at least 1");
            }
            let dups = if keep_duplicates {
                Duplicates::Keep
            } else {
                Duplicates::Drop
            };
            let start = Instant::now();
            let nodes = if split && depth > 0 {
                let mut total = 0;
                for (mv, n) in divide(&pos, depth, dups) {
                    println!("{} {n}", notation::long(&mv, pos.variant()));
                    total += n;
                }
                total
            } else {
                perft::parallel(&pos, depth, dups, threads)
            };
            let secs = start.elapsed().as_secs_f64();
            println!("nodes {nodes}");
            println!("seconds {secs:.3}");
            println!("mnps {:.2}", nodes as f64 / secs.max(1e-9) / 1e6);
        }
        Command::Moves {
            position,
            batch: false,
        } => {
            let pos = position.resolve(&config.engine.variant)?;
            for mv in &pos.legal_moves() {
                println!("{}", notation::long(mv, pos.variant()));
            }
        }
        Command::Moves {
            position,
            batch: true,
        } => {
            let variant: Variant = position
                .variant
                .as_deref()
                .unwrap_or(&config.engine.variant)
                .parse()?;
            let mut out = std::io::BufWriter::new(std::io::stdout().lock());
            for line in std::io::stdin().lock().lines() {
                let line = line?;
                match parse_fen(&line, variant) {
                    Ok(pos) => {
                        let moves: Vec<String> = pos
                            .legal_moves()
                            .iter()
                            .map(|mv| notation::long(mv, variant))
                            .collect();
                        writeln!(out, "{}", moves.join(" "))?;
                    }
                    Err(e) => writeln!(out, "error {e}")?,
                }
            }
        }
        Command::Show { position } => {
            let pos = position.resolve(&config.engine.variant)?;
            print!("{}", board::diagram(&pos));
        }
    }
    Ok(())
}
