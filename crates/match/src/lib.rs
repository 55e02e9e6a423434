//! Kroon's tournament manager (`kroon match`) for Hub and DXP engines.
//!
//! The manager keeps the board (every move is checked by `kroon_rules`) and the clocks, and plays
//! each opening twice with colours reversed. Hub engines are child processes, one set per worker
//! thread, restarted after a failure; DXP engines are servers the manager connects to as the
//! referee, one game at a time. Results go to a progress display, a PDN file, a JSON file and a
//! final table with Elo, pentanomial counts and an optional SPRT.
//!
//! Layout: `spec` (engine specs, time control), `openings`, `player` (the interface of a
//! participant), `hub` and `dxp` (the two kinds), `game` (one game: clocks, rules, adjudication),
//! `pdn` (output), `stats` (Elo, pentanomial, SPRT), `runner` (workers and schedule), `report`
//! (progress, tables, JSON, and the [`Report`] a caller gets back).
//!
//! [`run`] is `kroon match`. A program that wants the games rather than the printout builds a
//! [`Match`] and reads the [`Report`] of [`Match::play`]:
//!
//! ```no_run
//! let args = kroon_match::MatchArgs::from_words([
//!     "--engine", "name=A", "cmd=kroon hub",
//!     "--engine", "name=B", "cmd=kroon hub",
//!     "--games", "2", "--movetime", "0.1",
//! ])?;
//! let report = kroon_match::Match::new(args, "normal")?.play()?;
//! for game in &report.games {
//!     println!("{} {} - {} {}", game.number, game.white, game.black, game.result.pdn());
//! }
//! # Ok::<(), anyhow::Error>(())
//! ```

mod dxp;
mod game;
mod hub;
pub mod openings;
mod pdn;
mod player;
pub mod remote;
mod report;
mod runner;
mod spec;
mod stats;

use anyhow::{bail, Result};
use kroon_rules::Variant;
use std::ffi::OsString;
use std::path::PathBuf;
use std::time::Duration;

pub use game::Termination;
pub use player::FailKind;
pub use report::{GameReport, Report, Stopped};
pub use stats::Decision;

/// Match options: `--engine` (kept per occurrence, see the `clap::Args` impl below) and the rest.
#[derive(Debug)]
pub struct MatchArgs {
    /// The words of each `--engine`, one list per occurrence.
    engines: Vec<Vec<String>>,
    /// Boxed: the options are many, and `main`'s command enum should stay small.
    opts: Box<MatchOpts>,
}

const ENGINE_HELP: &str =
    "A participant, one per --engine: `name=NAME cmd=\"PROGRAM ARGS\" [dir=DIR] \
[option.PARAM=VALUE ...] [level.KEY=VALUE ...]` for a Hub engine (`option.*` sent as set-param \
before init; `level.*` as a level line of its own after the match's before every move, e.g. \
level.handicap=2 level.nodes=120), or `name=NAME dxp=HOST:PORT` for a DXP engine that is \
listening (the manager connects to it as the referee)";

/// `--engine` takes several words and may be repeated; clap's derive cannot keep the words of
/// each occurrence apart (`Vec<Vec<String>>` needs an unstable feature), so the argument is
/// declared and read here by hand.
impl clap::FromArgMatches for MatchArgs {
    fn from_arg_matches(m: &clap::ArgMatches) -> Result<Self, clap::Error> {
        let engines = m
            .get_occurrences::<String>("engine")
            .map(|occ| occ.map(|words| words.cloned().collect()).collect())
            .unwrap_or_default();
        Ok(MatchArgs {
            engines,
            opts: Box::new(MatchOpts::from_arg_matches(m)?),
        })
    }

    fn update_from_arg_matches(&mut self, m: &clap::ArgMatches) -> Result<(), clap::Error> {
        *self = MatchArgs::from_arg_matches(m)?;
        Ok(())
    }
}

impl clap::Args for MatchArgs {
    fn augment_args(cmd: clap::Command) -> clap::Command {
        MatchOpts::augment_args(cmd).arg(
            clap::Arg::new("engine")
                .long("engine")
                .num_args(1..)
                .action(clap::ArgAction::Append)
                .value_name("KEY=VALUE")
                .help(ENGINE_HELP)
                .display_order(0),
        )
    }

    fn augment_args_for_update(cmd: clap::Command) -> clap::Command {
        MatchArgs::augment_args(cmd)
    }
}

impl MatchArgs {
    /// The queue the games are to be played on (`--queue`), if any.
    #[must_use]
    pub fn queue(&self) -> Option<&str> {
        self.opts.queue.as_deref()
    }

    /// What `--generate-openings` asks for, if it was given. Making openings needs a search, which
    /// this crate does not have, so the caller makes them (`kroon match` with
    /// `kroon_learn::openings::generate`); [`Match::new`] refuses these options.
    #[must_use]
    pub fn openings_to_generate(&self) -> Option<OpeningsToGenerate> {
        let opts = &self.opts;
        opts.generate_openings.map(|count| OpeningsToGenerate {
            variant: opts.variant.clone(),
            count,
            depth: opts.generate_depth,
            max_score: opts.generate_max_score,
            seed: opts.seed,
        })
    }

    /// Reads the options from the words that follow `kroon match` on its command line.
    ///
    /// # Errors
    /// Words `kroon match` would refuse, with the message it would print.
    pub fn from_words<I, T>(words: I) -> Result<MatchArgs, clap::Error>
    where
        I: IntoIterator<Item = T>,
        T: Into<OsString>,
    {
        use clap::{Args as _, FromArgMatches as _};
        let cmd = MatchArgs::augment_args(clap::Command::new("match").args_override_self(true));
        let words =
            std::iter::once(OsString::from("match")).chain(words.into_iter().map(Into::into));
        MatchArgs::from_arg_matches(&cmd.try_get_matches_from(words)?)
    }
}

/// The developer tool `--generate-openings`: make `count` balanced openings, each scored by a
/// `depth` search within `max_score` men of equal, from `seed`.
#[derive(Clone, Debug, PartialEq)]
pub struct OpeningsToGenerate {
    /// The variant (`--variant`, a Hub name), if given; the caller's default otherwise.
    pub variant: Option<String>,
    /// How many openings.
    pub count: usize,
    /// The search depth that scores them (`--generate-depth`).
    pub depth: u32,
    /// Largest |score| in men kept (`--generate-max-score`).
    pub max_score: f64,
    /// The random games' seed (`--seed`).
    pub seed: u64,
}

/// Every match option but `--engine`.
#[derive(clap::Args, Debug)]
#[command(after_help = "Example:
  kroon match --engine name=Kroon cmd=\"target/release/kroon hub\" option.threads=1 \\
              --engine name=dame cmd=\"dame hub\" --games 20 --movetime 0.1 --pdn /tmp/x.pdn")]
pub struct MatchOpts {
    /// The first engine plays each of the others (default: round robin, every pair).
    #[arg(long)]
    gauntlet: bool,
    /// Games per pair of engines, rounded up to an even number (each opening is played twice,
    /// colours reversed).
    #[arg(long, default_value_t = 20)]
    games: usize,
    /// Openings: a file of FEN lines, or PDN games (cut at --opening-plies). Default: the
    /// variant's embedded set of balanced 2-3 move openings.
    #[arg(long, value_name = "FILE")]
    openings: Option<PathBuf>,
    /// Plies of each PDN game to use as the opening (default: all its moves).
    #[arg(long, value_name = "N")]
    opening_plies: Option<usize>,
    /// Take the openings in a random order (see --seed) instead of the file's order.
    #[arg(long)]
    shuffle: bool,
    /// Seed for --shuffle.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Variant: normal, killer, bt, losing, frisian, brazilian, russian, english (default: from the settings). Sent to engines that
    /// declare a `variant` parameter.
    #[arg(long)]
    variant: Option<String>,
    /// Seconds per move (the default, at 1 s, when no other limit is given).
    #[arg(long, value_name = "S", group = "limit")]
    movetime: Option<f64>,
    /// Game clock with increment in seconds, e.g. `60+0.5` (also `1:30+1`).
    #[arg(long, value_name = "BASE+INC", group = "limit")]
    tc: Option<String>,
    /// Fixed depth per move.
    #[arg(long, value_name = "N", group = "limit")]
    depth: Option<u32>,
    /// Fixed nodes per move.
    #[arg(long, value_name = "N", group = "limit")]
    nodes: Option<u64>,
    /// Overrun allowed past the clock or move time before a move loses on time.
    #[arg(long, value_name = "MS", default_value_t = 100)]
    margin_ms: u64,
    /// Depth and nodes games: seconds a move may take before the engine counts as hung.
    #[arg(long, value_name = "S", default_value_t = 60.0)]
    timeout: f64,
    /// Seconds an engine may take to start (`hub` … `wait`, `init` … `ready`).
    #[arg(long, value_name = "S", default_value_t = 10.0)]
    startup_timeout: f64,
    /// Adjudicate a draw once a game has this many plies (opening included).
    #[arg(long, value_name = "N")]
    max_plies: Option<usize>,
    /// Adjudicate a win when both engines report |score| ≥ X men with the same winner...
    #[arg(long, value_name = "X")]
    adjudicate_score: Option<f64>,
    /// ... for this many consecutive plies (at least 2, so both engines agree).
    #[arg(long, value_name = "N", default_value_t = 6)]
    adjudicate_plies: usize,
    /// Adjudicate a draw when both engines report |score| ≤ D men...
    #[arg(long, value_name = "D")]
    adjudicate_draw: Option<f64>,
    /// ... for this many consecutive plies...
    #[arg(long, value_name = "N", default_value_t = 20)]
    adjudicate_draw_plies: usize,
    /// ... once the game has this many plies.
    #[arg(long, value_name = "P", default_value_t = 80)]
    adjudicate_draw_after: usize,
    /// Games played at once, each on its own thread with its own engine processes.
    #[arg(long, value_name = "N", default_value_t = 1)]
    concurrency: usize,
    /// Append every game to this PDN file.
    #[arg(long, value_name = "FILE")]
    pdn: Option<PathBuf>,
    /// Write every game's result and the tables as JSON to this file at the end.
    #[arg(long, value_name = "FILE")]
    results_json: Option<PathBuf>,
    /// Stop when a sequential test decides, e.g. `elo0=0 elo1=5 alpha=0.05 beta=0.05` (GSPRT on
    /// game pairs, logistic Elo; needs exactly one pair of engines).
    #[arg(long, value_name = "PARAMS")]
    sprt: Option<String>,
    /// The PDN `Event` tag.
    #[arg(long, default_value = "kroon match")]
    event: String,
    /// Play the game pairs on the workers of this queue (redis://HOST:PORT/[DB]) instead of
    /// here; each worker starts the engines named here from its own engines file (`kroon worker
    /// --engines FILE`), so only the engines' names are used from the --engine specs, and
    /// `--engine name=NAME` alone (no cmd=) is enough.
    #[arg(long, value_name = "URL")]
    queue: Option<String>,
    /// Developer tool: print N balanced openings (PDN, one per line) made with Kroon's search,
    /// as in scripts/openings/openings.txt, and exit.
    #[arg(long, value_name = "N", hide = true)]
    generate_openings: Option<usize>,
    /// Search depth for --generate-openings.
    #[arg(long, value_name = "N", default_value_t = 12, hide = true)]
    generate_depth: u32,
    /// Largest |score| in men a generated opening may have.
    #[arg(long, value_name = "X", default_value_t = 0.1, hide = true)]
    generate_max_score: f64,
}

/// Everything a match needs, checked.
#[derive(Debug)]
pub(crate) struct Plan {
    pub engines: Vec<spec::EngineSpec>,
    pub openings: Vec<openings::Opening>,
    pub settings: game::Settings,
    pub startup: Duration,
    /// Pairs of engine indices; the first of each pair is the side the statistics speak for.
    pub pairs: Vec<(usize, usize)>,
    /// Games per pair (even).
    pub games: usize,
    pub concurrency: usize,
    pub pdn: Option<PathBuf>,
    pub results_json: Option<PathBuf>,
    pub sprt: Option<stats::Sprt>,
    pub event: String,
}

/// Plays the match the options describe, with `default_variant` (a Hub variant name, from the
/// settings) when `--variant` is not given. `--generate-openings` is the caller's to answer (see
/// [`MatchArgs::openings_to_generate`]).
///
/// # Errors
/// Options that do not make a match, an engine that keeps failing before its first move, or an
/// output file that cannot be written.
pub fn run(args: MatchArgs, default_variant: &str) -> Result<()> {
    let report = Match::new(args, default_variant)?.play()?;
    if let Some(Stopped::Failing(text)) = report.stopped {
        bail!(text);
    }
    Ok(())
}

/// A match ready to play: the options checked, the openings read.
#[derive(Debug)]
pub struct Match {
    plan: Plan,
}

impl Match {
    /// Checks the options and reads the openings, with `default_variant` (a Hub variant name)
    /// when `--variant` is not given.
    ///
    /// # Errors
    /// Options that do not make a match, or an openings file that cannot be read.
    pub fn new(args: MatchArgs, default_variant: &str) -> Result<Match> {
        if args.opts.generate_openings.is_some() {
            bail!("--generate-openings makes openings, not a match");
        }
        Ok(Match {
            plan: plan(&args.engines, *args.opts, default_variant)?,
        })
    }

    /// Games in the schedule.
    #[must_use]
    pub fn scheduled(&self) -> usize {
        runner::schedule(&self.plan).len()
    }

    /// Plays the match: a line per game and the final tables on standard output, the PDN and
    /// JSON files when the options ask for them. The match stops early when an SPRT decides or
    /// an engine keeps failing before its first move; the report says which.
    ///
    /// # Errors
    /// The PDN or JSON file cannot be written.
    pub fn play(&self) -> Result<Report> {
        runner::run(&self.plan)
    }
}

fn plan(engines: &[Vec<String>], args: MatchOpts, default_variant: &str) -> Result<Plan> {
    let engines = engines
        .iter()
        .map(|words| spec::parse_engine(words))
        .collect::<Result<Vec<_>>>()?;
    if engines.len() < 2 {
        bail!("a match needs at least two --engine");
    }
    if args.queue.is_none() {
        if let Some(e) = engines.iter().find(|e| e.kind == spec::EngineKind::Named) {
            bail!(
                "engine {}: needs cmd=\"PROGRAM ARGS\" (Hub) or dxp=HOST:PORT to play here; a name \
                 alone is enough only with --queue, whose workers start the engines of their own \
                 engines files",
                e.name
            );
        }
    }
    let variant: Variant = args.variant.as_deref().unwrap_or(default_variant).parse()?;
    if variant != Variant::International
        && engines
            .iter()
            .any(|e| matches!(e.kind, spec::EngineKind::Dxp { .. }))
    {
        bail!("DXP engines play international draughts only, not {variant}");
    }
    let mut openings = match &args.openings {
        Some(path) => openings::load(path, variant, args.opening_plies)?,
        None => openings::default_set(variant)?,
    };
    if args.shuffle {
        kroon_rules::hash::SplitMix64(args.seed).shuffle(&mut openings);
    }
    let tc = if let Some(t) = args.movetime {
        let t = spec::duration(t, "--movetime")?;
        if t.is_zero() {
            bail!("--movetime must be above 0");
        }
        spec::TimeControl::MoveTime(t)
    } else if let Some(text) = &args.tc {
        spec::TimeControl::parse_clock(text)?
    } else if let Some(d) = args.depth {
        spec::TimeControl::Depth(d.max(1))
    } else if let Some(n) = args.nodes {
        spec::TimeControl::Nodes(n.max(1))
    } else {
        spec::TimeControl::MoveTime(Duration::from_secs(1))
    };
    if args.adjudicate_score.is_some() && args.adjudicate_plies < 2 {
        bail!("--adjudicate-plies must be at least 2, so that both engines agree");
    }
    if args.adjudicate_draw.is_some() && args.adjudicate_draw_plies < 2 {
        bail!("--adjudicate-draw-plies must be at least 2, so that both engines agree");
    }
    let settings = game::Settings {
        variant,
        tc,
        margin: Duration::from_millis(args.margin_ms),
        timeout: spec::duration(args.timeout, "--timeout")?,
        max_plies: args.max_plies,
        win: args
            .adjudicate_score
            .map(|x| (x.abs(), args.adjudicate_plies)),
        draw: args.adjudicate_draw.map(|d| game::ScoreDraw {
            score: d.abs(),
            plies: args.adjudicate_draw_plies,
            after: args.adjudicate_draw_after,
        }),
    };
    let pairs: Vec<(usize, usize)> = if args.gauntlet {
        (1..engines.len()).map(|j| (0, j)).collect()
    } else {
        (0..engines.len())
            .flat_map(|i| (i + 1..engines.len()).map(move |j| (i, j)))
            .collect()
    };
    let sprt = args
        .sprt
        .as_deref()
        .map(stats::Sprt::parse)
        .transpose()
        .map_err(|e| anyhow::anyhow!("--sprt: {e}"))?;
    if sprt.is_some() && pairs.len() != 1 {
        bail!(
            "--sprt tests one pair of engines; this match has {} pairs",
            pairs.len()
        );
    }
    if args.games == 0 {
        bail!("--games must be at least 1");
    }
    if args.concurrency == 0 {
        bail!("--concurrency must be at least 1");
    }
    Ok(Plan {
        engines,
        openings,
        settings,
        startup: spec::duration(args.startup_timeout, "--startup-timeout")?,
        pairs,
        games: args.games.div_ceil(2) * 2,
        concurrency: args.concurrency,
        pdn: args.pdn,
        results_json: args.results_json,
        sprt,
        event: args.event,
    })
}

/// The positions of the embedded openings of `variant` (for self-play starts).
///
/// # Errors
/// Only if the embedded file is broken, which a unit test rules out.
pub fn default_openings(variant: Variant) -> Result<Vec<kroon_rules::Position>> {
    Ok(openings::default_set(variant)?
        .iter()
        .map(openings::Opening::position)
        .collect())
}
