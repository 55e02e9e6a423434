//! `kroon selfplay`, `kroon train` and `kroon match --generate-openings`: flags and wiring around
//! `kroon_learn`.

use crate::evaluation;
use anyhow::{Context, Result};
use clap::Args;
use kroon_learn::{selfplay, train};
use kroon_search::eval::pattern;
use kroon_settings::Config;
use std::io::Write as _;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

/// `kroon selfplay`.
#[derive(Args, Debug)]
pub struct SelfplayArgs {
    /// The file the games are appended to (created if missing; resumed if it holds games of the
    /// same settings).
    #[arg(long, value_name = "FILE")]
    out: PathBuf,
    /// Games the file should hold at the end.
    #[arg(long, default_value_t = 1000)]
    games: u32,
    /// Nodes per move (the default limit, at 6000).
    #[arg(long, conflicts_with = "depth")]
    nodes: Option<u64>,
    /// Depth per move instead of nodes.
    #[arg(long)]
    depth: Option<u32>,
    /// Games played at once.
    #[arg(long, default_value_t = 1)]
    threads: usize,
    /// Transposition table per game, MiB.
    #[arg(long, default_value_t = 8)]
    hash: usize,
    /// Seed of the starts: the same seed gives the same games.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Random legal moves after the opening.
    #[arg(long, default_value_t = 4)]
    random_plies: u32,
    /// Plies after which a game is a draw.
    #[arg(long, default_value_t = 400)]
    max_plies: u32,
    /// A game is won once every search gives one side this many centi-men ...
    #[arg(long, default_value_t = 800)]
    adjudicate_score: i32,
    /// ... for this many plies in a row (0: play every game out).
    #[arg(long, default_value_t = 6)]
    adjudicate_plies: u32,
    /// Variant: normal, killer, bt, losing, frisian, brazilian, russian, english (default: from the settings).
    #[arg(long)]
    variant: Option<String>,
    /// Evaluation that plays: learned or hand (default: from the settings).
    #[arg(long)]
    eval: Option<String>,
    /// Weights file for the learned evaluation (default: from the settings, or embedded).
    #[arg(long, value_name = "FILE")]
    weights: Option<PathBuf>,
    /// Play the games on the workers of this queue (redis://HOST:PORT/[DB]) instead of here;
    /// the file is the same, byte for byte.
    #[arg(long, value_name = "URL")]
    queue: Option<String>,
    /// Games per job with --queue.
    #[arg(long, default_value_t = 16, requires = "queue")]
    batch: u32,
}

/// `kroon train`.
#[derive(Args, Debug)]
pub struct TrainArgs {
    /// Self-play files to learn from (`kroon selfplay --out`), all of one variant.
    #[arg(long, value_name = "FILE", num_args = 1.., required = true)]
    data: Vec<PathBuf>,
    /// The weights file to write.
    #[arg(long, value_name = "FILE")]
    out: PathBuf,
    /// Passes over the data.
    #[arg(long, default_value_t = 20)]
    epochs: u32,
    /// Positions per step.
    #[arg(long, default_value_t = 16_384)]
    batch: usize,
    /// Adam step size in centi-men, first epoch.
    #[arg(long, default_value_t = 1.0)]
    lr: f32,
    /// Step size factor per epoch.
    #[arg(long, default_value_t = 0.85)]
    lr_decay: f32,
    /// L2 regularisation of the window and king-square weights.
    #[arg(long, default_value_t = 1e-4)]
    l2: f32,
    /// Share of the game result in the target; the rest is the search score (1: result only).
    #[arg(long, default_value_t = 1.0)]
    lambda: f32,
    /// Share of the games held out to measure the fit.
    #[arg(long, default_value_t = 0.05)]
    holdout: f32,
    /// Logistic scale in centi-men (default: fitted to the data's scores and results).
    #[arg(long)]
    k: Option<f32>,
    /// Threads.
    #[arg(long, default_value_t = 1)]
    threads: usize,
    /// Seed of the shuffles.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Weights to start from (default: material only).
    #[arg(long, value_name = "FILE")]
    init: Option<PathBuf>,
    /// Leave out positions before this ply of their game.
    #[arg(long, default_value_t = 0)]
    min_ply: u16,
    /// The feature layout: `small` (4x4 windows) or `large` (4x6 windows too; 10x10 only).
    #[arg(long, default_value = "small", value_parser = ["small", "large"])]
    layout: String,
}

pub fn selfplay(args: SelfplayArgs, config: &Config) -> Result<()> {
    let variant = crate::flags::variant(args.variant.as_deref(), config)?;
    crate::flags::at_least_one(args.threads)?;
    let eval = evaluation::for_variant(
        config,
        args.eval.as_deref(),
        args.weights.as_deref(),
        variant,
    )?;
    let eval_id = selfplay::eval_id(&eval);
    let limit = match (args.nodes, args.depth) {
        (_, Some(d)) => selfplay::MoveLimit::Depth(d.max(1)),
        (Some(n), _) => selfplay::MoveLimit::Nodes(n.max(1)),
        _ => selfplay::MoveLimit::Nodes(6000),
    };
    let openings: Vec<_> = kroon_match::default_openings(variant)?;
    let settings = selfplay::Settings {
        variant,
        games: args.games,
        limit,
        threads: args.threads,
        hash_mib: args.hash.max(1),
        seed: args.seed,
        random_plies: args.random_plies,
        max_plies: args.max_plies,
        adjudicate_score: args.adjudicate_score,
        adjudicate_plies: args.adjudicate_plies,
        eval,
        eval_id: eval_id.clone(),
        out: args.out.clone(),
    };
    let stop = Arc::new(AtomicBool::new(false));
    {
        let stop = Arc::clone(&stop);
        // A second Ctrl-C while the games in progress are dropped ends the program at once.
        ctrlc::set_handler(move || {
            if stop.swap(true, Ordering::Relaxed) {
                std::process::exit(130);
            }
        })
        .context("installing the Ctrl-C handler")?;
    }
    say!(
        "selfplay {variant}: {} games, {limit:?} a move, eval {eval_id}, {} threads, into {}",
        args.games,
        args.threads,
        args.out.display()
    )?;
    let s = match &args.queue {
        Some(url) => crate::queue_main::selfplay(url, args.batch, &settings, &openings, &stop)?,
        None => selfplay::run(&settings, &openings, &stop)?,
    };
    let secs = s.elapsed.as_secs_f64();
    say!(
        "games {} (+{} ={} -{} for White), positions {}, {:.1} s, {:.2} games/s, {:.0} positions/s{}",
        s.games,
        s.results[0],
        s.results[1],
        s.results[2],
        s.positions,
        secs,
        s.games as f64 / secs.max(1e-9),
        s.positions as f64 / secs.max(1e-9),
        if s.resumed_games > 0 {
            format!(" (the file already held {} games)", s.resumed_games)
        } else {
            String::new()
        }
    )?;
    if s.stopped {
        say!("stopped: run the same command again to play the remaining games")?;
    }
    Ok(())
}

pub fn train(args: TrainArgs) -> Result<()> {
    let init = args
        .init
        .as_deref()
        .map(evaluation::read_weights)
        .transpose()?;
    let settings = train::Settings {
        data: args.data.clone(),
        epochs: args.epochs,
        batch: args.batch.max(1),
        lr: args.lr,
        lr_decay: args.lr_decay,
        l2: args.l2,
        lambda: args.lambda.clamp(0.0, 1.0),
        holdout: args.holdout.clamp(0.0, 0.9),
        k: args.k,
        threads: args.threads.max(1),
        seed: args.seed,
        init,
        min_ply: args.min_ply,
        large: args.layout == "large",
    };
    say!("epoch  train loss  held-out loss  step size  seconds")?;
    let (weights, report) = train::train(&settings, |e| {
        let _ = say!(
            "{:>5}  {:>10.6}  {:>13.6}  {:>9.4}  {:>7.1}",
            e.epoch,
            e.train_loss,
            e.holdout_loss,
            e.lr,
            e.elapsed.as_secs_f64()
        );
    })?;
    let bytes = weights.to_bytes();
    std::fs::write(&args.out, &bytes).with_context(|| format!("writing {}", args.out.display()))?;
    say!(
        "data: {} records ({} distinct positions, {:.1}%), {} quiet positions for training, {} held out; read in {:.1} s",
        report.records,
        report.distinct,
        100.0 * report.distinct as f64 / report.records.max(1) as f64,
        report.train,
        report.holdout,
        report.load_time.as_secs_f64()
    )?;
    say!(
        "K {:.1}; held-out loss: constant {:.6}, hand evaluation {:.6}, written weights {:.6}",
        report.k,
        report.constant_loss,
        report.hand_loss,
        report.written_loss
    )?;
    if let Some(loss) = report.init_loss {
        say!("held-out loss of the starting weights (--init): {loss:.6}")?;
    }
    let layout = weights.layout();
    for f in 0..pattern::RUNAWAY + 3 {
        let (mg, eg) = weights.centi_men(f);
        say!("  {:<22} {:>8.1} {:>8.1}", layout.name(f), mg, eg)?;
    }
    say!(
        "wrote {} ({} bytes, {} weights, {})",
        args.out.display(),
        bytes.len(),
        2 * layout.features(),
        report.variant
    )?;
    Ok(())
}

/// `kroon match --generate-openings`: the openings on standard output, one PDN line each, and
/// each one kept on standard error as it comes.
pub fn generate_openings(g: kroon_match::OpeningsToGenerate, config: &Config) -> Result<()> {
    let variant = crate::flags::variant(g.variant.as_deref(), config)?;
    let lines = kroon_learn::openings::generate(
        variant,
        g.count,
        g.depth,
        g.max_score,
        g.seed,
        &|n, line| eprintln!("{n:4} {line}"),
    );
    let mut out = std::io::stdout().lock();
    for line in lines {
        writeln!(out, "{line}")?;
    }
    Ok(())
}
