//! Kroon, a draughts engine: the command line.

/// Writes a line to standard output and returns the `io::Result`; a closed pipe (`kroon ... | head`)
/// then ends the program quietly instead of panicking as `println!` would.
macro_rules! say {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        writeln!(std::io::stdout().lock(), $($arg)*)
    }};
}

mod analyse;
mod bench;
mod board;
mod book_main;
mod chinese;
mod dxp_main;
mod egdb_auto;
mod egdb_main;
mod evaluation;
mod flags;
mod hub_main;
mod learn_main;
mod logging;
mod perft;
mod queue_main;
mod source;

use anyhow::{bail, Context, Result};
use clap::{Args, Parser, Subcommand};
use kroon::annotate;
use kroon_rules::{divide, notation, parse_fen, Duplicates, Position, Variant};
use kroon_search::Limits;
use std::io::{BufRead, Write};
use std::path::PathBuf;
use std::time::Instant;

#[derive(Parser, Debug)]
#[command(
    name = "kroon",
    version,
    about = "Kroon, a draughts engine (Hub, DXP, analysis, perft)",
    // A flag given twice takes its last value, so wrapper scripts can override their defaults.
    args_override_self = true
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
    /// Variant: normal, killer, bt, losing, frisian, brazilian, russian, english (default: from the settings).
    #[arg(long)]
    variant: Option<String>,
}

/// A game: a position (FEN, or a game of a PDN file cut after some plies) and moves played
/// from it.
#[derive(Args, Debug, Clone)]
struct GameArgs {
    #[command(flatten)]
    position: PositionArgs,
    /// Moves played from the position, e.g. "32-28 19-23".
    #[arg(long)]
    moves: Option<String>,
    /// Take the position from a game of this PDN file (its `GameType` gives the variant).
    #[arg(long, value_name = "FILE", conflicts_with = "fen")]
    pdn: Option<PathBuf>,
    /// Which game of the PDN file, from 1.
    #[arg(long, default_value_t = 1, requires = "pdn")]
    game: usize,
    /// Plies of the game played before the position (default: all of them).
    #[arg(long, requires = "pdn")]
    ply: Option<usize>,
}

impl GameArgs {
    fn resolve(&self, default_variant: &str) -> Result<kroon_rules::Game> {
        let mut game = match &self.pdn {
            Some(path) => {
                let name = self.position.variant.as_deref().unwrap_or(default_variant);
                source::pdn_game(path, name.parse()?, self.game, self.ply)?
            }
            None => kroon_rules::Game::new(self.position.resolve(default_variant)?),
        };
        source::play_moves(&mut game, self.moves.as_deref())?;
        Ok(game)
    }
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Chinese checkers (Stern-Halma) on the 121-hole star, 2 to 6 players.
    Chinese {
        #[command(subcommand)]
        command: chinese::ChineseCommand,
    },
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
    /// Analyse a position: one line per iteration, then the best move.
    Analyse {
        #[command(flatten)]
        game: GameArgs,
        /// Print the best N lines of each iteration.
        #[arg(long, default_value_t = 1, value_name = "N")]
        multipv: usize,
        /// Search to this depth.
        #[arg(long, conflicts_with_all = ["time", "nodes"])]
        depth: Option<u32>,
        #[command(flatten)]
        limit: flags::LimitArgs,
        #[command(flatten)]
        setup: EngineSetup,
    },
    /// Annotate the games of a PDN file: a score after every move, the best line where a move
    /// loses value, ? and ?? for mistakes and blunders, ! for the only good move, a summary per
    /// game and player. Resumes where a stopped run left off.
    Annotate {
        /// The PDN file.
        file: PathBuf,
        #[command(flatten)]
        limit: flags::LimitArgs,
        #[command(flatten)]
        engine: flags::EngineArgs,
        /// Write the annotated games here (default: standard output).
        #[arg(long, value_name = "FILE")]
        out: Option<PathBuf>,
        /// Men lost from which a move is a mistake, marked `?`.
        #[arg(long, default_value_t = 0.5)]
        mistake: f64,
        /// Men lost from which a move is a blunder, marked `??`.
        #[arg(long, default_value_t = 1.5)]
        blunder: f64,
        /// Variant of games without a GameType tag: normal, killer, bt, losing, frisian, brazilian, russian, english (default: from the settings).
        #[arg(long)]
        variant: Option<String>,
        #[command(flatten)]
        eval: EvalArgs,
    },
    /// Search a fixed set of positions on one thread with a fresh table: node count and speed.
    Bench {
        /// Depth of each search.
        #[arg(long, default_value_t = bench::DEFAULT_DEPTH)]
        depth: u32,
        /// Variant: normal, killer, bt, losing, frisian, brazilian, russian, english (default: from the settings).
        #[arg(long)]
        variant: Option<String>,
        #[command(flatten)]
        eval: EvalArgs,
    },
    /// Build or probe an opening book.
    #[command(subcommand)]
    Book(book_main::BookCommand),
    /// Play Kroon against itself and write every position with its result, for `kroon train`.
    Selfplay(learn_main::SelfplayArgs),
    /// Run jobs from a queue (self-play batches, match game pairs, table slices) until stopped:
    /// Ctrl-C finishes the jobs at hand, a second Ctrl-C hands them back.
    Worker(queue_main::WorkerArgs),
    /// Show a queue's runs: jobs pending, running (by whom, for how long), done and failed.
    QueueStatus {
        /// The queue: redis://[user:pass@]HOST:PORT/[DB] (rediss:// for TLS; a client
        /// certificate with ?ssl_certfile=PEM&ssl_keyfile=PEM, authorities with ssl_ca_certs=PEM).
        #[arg(long, value_name = "URL")]
        queue: String,
    },
    /// Fit the pattern evaluation's weights to self-play positions.
    Train(learn_main::TrainArgs),
    /// Speak the Hub protocol (v2) on standard input and output.
    Hub {
        /// Endgame table directory (default: from the settings; `none` for none). Hub's
        /// `egdb-path` parameter changes it.
        #[arg(long, value_name = "DIR")]
        egdb: Option<PathBuf>,
    },
    /// Play engine-vs-engine games over DXP (DamExchange) on TCP.
    Dxp(dxp_main::DxpArgs),
    /// Play a match or tournament between Hub and DXP engines.
    Match(kroon_match::MatchArgs),
    /// Endgame tables: build, probe, list.
    Egdb(egdb_main::EgdbArgs),
    /// Serve the web board: play, analyse and read games in a browser.
    Serve {
        /// Address to listen on (loopback unless you say otherwise; port 0 picks a free one).
        #[arg(long, default_value = "127.0.0.1:8080")]
        listen: std::net::SocketAddr,
        #[command(flatten)]
        setup: EngineSetup,
    },
    /// Print a board diagram with field numbers, or write it as SVG.
    Show {
        #[command(flatten)]
        game: GameArgs,
        /// Write an SVG diagram to this file (with an arrow for the last move) instead.
        #[arg(long, value_name = "FILE")]
        svg: Option<PathBuf>,
    },
}

/// The engine of the commands that analyse and play: threads, table, evaluation, endgame tables.
#[derive(Args, Debug, Clone)]
struct EngineSetup {
    #[command(flatten)]
    engine: flags::EngineArgs,
    #[command(flatten)]
    eval: EvalArgs,
    /// Endgame table directory (default: from the settings; `none` for none).
    #[arg(long, value_name = "DIR")]
    egdb: Option<PathBuf>,
}

/// The evaluation to search with.
#[derive(Args, Debug, Clone)]
struct EvalArgs {
    /// Evaluation: learned or hand (default: from the settings).
    #[arg(long)]
    eval: Option<String>,
    /// Weights file for the learned evaluation (default: from the settings, or embedded).
    #[arg(long, value_name = "FILE")]
    weights: Option<PathBuf>,
}

impl EvalArgs {
    fn resolve(
        &self,
        config: &kroon_settings::Config,
        variant: Variant,
    ) -> Result<kroon_search::Eval> {
        evaluation::for_variant(
            config,
            self.eval.as_deref(),
            self.weights.as_deref(),
            variant,
        )
    }
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
            let closed_pipe = e
                .downcast_ref::<std::io::Error>()
                .is_some_and(|io| io.kind() == std::io::ErrorKind::BrokenPipe);
            if closed_pipe {
                return std::process::ExitCode::SUCCESS;
            }
            eprintln!("kroon: {e:#}");
            std::process::ExitCode::FAILURE
        }
    }
}

fn run() -> Result<()> {
    let cli = Cli::parse();
    let config = kroon_settings::Config::load(cli.config.as_deref())?;
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
            flags::at_least_one(threads)?;
            let dups = if keep_duplicates {
                Duplicates::Keep
            } else {
                Duplicates::Drop
            };
            let start = Instant::now();
            let nodes = if split && depth > 0 {
                let mut total = 0;
                for (mv, n) in divide(&pos, depth, dups) {
                    say!("{} {n}", notation::long(&mv, pos.variant()))?;
                    total += n;
                }
                total
            } else {
                perft::parallel(&pos, depth, dups, threads)
            };
            let secs = start.elapsed().as_secs_f64();
            say!("nodes {nodes}")?;
            say!("seconds {secs:.3}")?;
            say!("mnps {:.2}", nodes as f64 / secs.max(1e-9) / 1e6)?;
        }
        Command::Moves {
            position,
            batch: false,
        } => {
            let pos = position.resolve(&config.engine.variant)?;
            for mv in &pos.legal_moves() {
                say!("{}", notation::long(mv, pos.variant()))?;
            }
        }
        Command::Moves {
            position,
            batch: true,
        } => {
            let variant = flags::variant(position.variant.as_deref(), &config)?;
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
        Command::Analyse {
            game,
            multipv,
            depth,
            limit,
            setup: EngineSetup { engine, eval, egdb },
        } => {
            let game = game.resolve(&config.engine.variant)?;
            let eval = eval.resolve(&config, game.position().variant())?;
            let tables = egdb_main::for_search(&config, egdb.as_deref())?;
            if multipv == 0 {
                bail!("--multipv must be at least 1");
            }
            let limits = match depth {
                Some(d) => Limits::Depth(d.max(1)),
                None => limit.limits(5.0)?,
            };
            analyse::run(
                game,
                limits,
                engine.threads(&config)?,
                engine.hash_or(config.engine.hash),
                eval,
                tables,
                multipv,
            )?;
        }
        Command::Annotate {
            file,
            limit,
            engine,
            out,
            mistake,
            blunder,
            variant,
            eval,
        } => {
            let variant = flags::variant(variant.as_deref(), &config)?;
            let settings = annotate::Settings {
                limits: limit.limits(1.0)?,
                threads: engine.threads(&config)?,
                hash: engine.hash_or(16).max(1),
                mistake,
                blunder,
                variant,
            };
            annotate::run(&file, out.as_deref(), &settings, &|v| {
                eval.resolve(&config, v)
            })?;
        }
        Command::Bench {
            depth,
            variant,
            eval,
        } => {
            let v = flags::variant(variant.as_deref(), &config)?;
            bench::run(depth, v, &eval.resolve(&config, v)?)?;
        }
        Command::Book(cmd) => book_main::run(cmd, &config)?,
        Command::Selfplay(args) => learn_main::selfplay(args, &config)?,
        Command::Train(args) => learn_main::train(args)?,
        Command::Worker(args) => queue_main::worker(args, &config)?,
        Command::QueueStatus { queue } => queue_main::status(&queue)?,
        Command::Hub { egdb } => hub_main::run(&config, egdb.as_deref())?,
        Command::Match(args) if args.queue().is_some() => {
            queue_main::match_queue(args, &config.engine.variant)?;
        }
        Command::Match(args) => match args.openings_to_generate() {
            Some(g) => learn_main::generate_openings(g, &config)?,
            None => kroon_match::run(args, &config.engine.variant)?,
        },
        Command::Dxp(args) => dxp_main::run(args, &config)?,
        Command::Chinese { command } => chinese::run(command)?,
        Command::Egdb(args) => egdb_main::run(args, &config)?,
        Command::Serve {
            listen,
            setup: EngineSetup { engine, eval, egdb },
        } => {
            let threads = engine.threads(&config)?;
            let tables = egdb_main::for_search(&config, egdb.as_deref())?;
            // Each variant's evaluation is resolved once, before the first page connects.
            let evals = Variant::ALL
                .into_iter()
                .map(|v| Ok((v, eval.resolve(&config, v)?)))
                .collect::<Result<Vec<_>>>()?;
            kroon_serve::run(kroon_serve::Options {
                listen,
                threads,
                hash_mib: engine.hash_or(config.engine.hash),
                eval_for: Box::new(move |v| {
                    evals
                        .iter()
                        .find(|(w, _)| *w == v)
                        .map(|(_, e)| e.clone())
                        .unwrap_or_default()
                }),
                tables,
            })?;
        }
        Command::Show { game, svg } => {
            let game = game.resolve(&config.engine.variant)?;
            let pos = *game.position();
            match svg {
                Some(path) => {
                    let last = source::last_move(&game).map(|(_, mv)| mv);
                    let text =
                        kroon::svg::board(&pos, last.as_ref(), &kroon::svg::Options::default());
                    std::fs::write(&path, text)
                        .with_context(|| format!("writing {}", path.display()))?;
                }
                None => say!("{}", board::diagram(&pos).trim_end())?,
            }
        }
    }
    Ok(())
}
