//! The schedule and the workers. `--concurrency` threads each take the next game of the schedule
//! and play it with their own Hub engine processes (started on first use, kept between games,
//! restarted after a failure). A DXP engine serves one game at a time: a worker holds its lock
//! for the game, and locks are always taken in engine order, so two workers cannot deadlock.
//! The main thread only records: PDN, progress, tallies, and the SPRT, which raises the stop flag
//! that ends the games still running (they are not counted).

use super::dxp::DxpEngine;
use super::game::{self, Played, Termination};
use super::hub::{HubEngine, HubLaunch};
use super::player::{FailKind, Failure, Player};
use super::report::{Finished, GameReport, Job, Output, Report, Stopped};
use super::spec::EngineKind;
use super::stats::Decision;
use super::Plan;
use anyhow::Result;
use kroon_rules::{side_name, Colour, GameResult, Variant};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::mpsc::{channel, Sender};
use std::sync::{Mutex, PoisonError};

/// Games an engine may lose in a row by failing before its first move before the match stops.
const FAILURES_IN_A_ROW: usize = 3;

/// The schedule: round by round (one opening per round), every pair, each colour.
#[must_use]
pub fn schedule(plan: &Plan) -> Vec<Job> {
    let mut jobs = Vec::new();
    for round in 0..plan.games / 2 {
        let opening = round % plan.openings.len();
        for (pair, &(a, b)) in plan.pairs.iter().enumerate() {
            for (white, black) in [(a, b), (b, a)] {
                jobs.push(Job {
                    number: jobs.len() + 1,
                    pair,
                    round,
                    opening,
                    white,
                    black,
                });
            }
        }
    }
    jobs
}

enum Msg {
    Game(Box<Finished>),
    Fatal(String),
}

/// What the workers share.
struct Shared<'a> {
    plan: &'a Plan,
    jobs: Vec<Job>,
    next: AtomicUsize,
    stop: AtomicBool,
    hub: Vec<Option<HubLaunch>>,
    dxp: Vec<Option<Mutex<DxpEngine>>>,
    /// Per engine: games lost in a row by failing before its first move.
    failures: Vec<AtomicUsize>,
}

/// Plays the match and prints the result.
///
/// # Errors
/// The PDN or JSON file cannot be written.
pub fn run(plan: &Plan) -> Result<Report> {
    let jobs = schedule(plan);
    let total = jobs.len();
    let shared = Shared {
        plan,
        next: AtomicUsize::new(0),
        stop: AtomicBool::new(false),
        hub: plan
            .engines
            .iter()
            .map(|e| match &e.kind {
                EngineKind::Hub {
                    argv,
                    dir,
                    options,
                    levels,
                } => Some(HubLaunch {
                    argv: argv.clone(),
                    dir: dir.clone(),
                    options: options.clone(),
                    level: crate::spec::level_line(levels),
                    variant: plan.settings.variant,
                    startup: plan.startup,
                }),
                EngineKind::Dxp { .. } | EngineKind::Named => None,
            })
            .collect(),
        dxp: plan
            .engines
            .iter()
            .map(|e| match &e.kind {
                EngineKind::Dxp { addr } => Some(Mutex::new(DxpEngine::new(addr))),
                EngineKind::Hub { .. } | EngineKind::Named => None,
            })
            .collect(),
        failures: plan.engines.iter().map(|_| AtomicUsize::new(0)).collect(),
        jobs,
    };
    let mut out = Output::new(plan, total)?;
    let mut fatal: Option<String> = None;
    let mut error: Option<anyhow::Error> = None;
    let mut decided = None;
    let mut games = Vec::new();
    std::thread::scope(|s| {
        let (tx, rx) = channel();
        for _ in 0..plan.concurrency.min(total) {
            let tx = tx.clone();
            let shared = &shared;
            s.spawn(move || worker(shared, &tx));
        }
        drop(tx);
        for msg in rx {
            match msg {
                Msg::Game(f) => {
                    games.push(GameReport::new(plan, &f));
                    match out.game(plan, &f) {
                        Ok(Some(d)) if d != Decision::Continue && decided.is_none() => {
                            decided = Some(d);
                            shared.stop.store(true, Ordering::Relaxed);
                        }
                        Ok(_) => {}
                        Err(e) => {
                            error.get_or_insert(e);
                            shared.stop.store(true, Ordering::Relaxed);
                        }
                    }
                }
                Msg::Fatal(text) => {
                    fatal.get_or_insert(text);
                    shared.stop.store(true, Ordering::Relaxed);
                }
            }
        }
    });
    let note = match (&fatal, decided) {
        (Some(text), _) => Some(format!("match stopped: {text}")),
        (None, Some(d)) => Some(format!("match stopped: SPRT {d}")),
        (None, None) => None,
    };
    out.finish(plan, note.as_deref())?;
    if let Some(e) = error {
        return Err(e);
    }
    Ok(Report {
        scheduled: total,
        games,
        stopped: fatal.map(Stopped::Failing).or(decided.map(Stopped::Sprt)),
    })
}

fn worker(shared: &Shared<'_>, tx: &Sender<Msg>) {
    let mut pool: Vec<Option<HubEngine>> = shared.plan.engines.iter().map(|_| None).collect();
    while !shared.stop.load(Ordering::Relaxed) {
        let i = shared.next.fetch_add(1, Ordering::Relaxed);
        let Some(job) = shared.jobs.get(i) else { break };
        let Some(played) = play_job(shared, job, &mut pool) else {
            break;
        };
        if let Some(text) = count_failures(shared, job, &played) {
            // Stop here rather than when the main thread reads the message, or this worker
            // would forfeit a few more games first.
            shared.stop.store(true, Ordering::Relaxed);
            let _ = tx.send(Msg::Fatal(text));
        }
        let finished = Finished { job: *job, played };
        if tx.send(Msg::Game(Box::new(finished))).is_err() {
            break;
        }
    }
}

/// Updates the per-engine count of failures before a first move; the message when one reaches
/// the limit.
fn count_failures(shared: &Shared<'_>, job: &Job, played: &Played) -> Option<String> {
    let first = shared.plan.openings[job.opening].position().turn();
    let n = played.moves.len();
    for (engine, colour) in [(job.white, Colour::White), (job.black, Colour::Black)] {
        let own_moves = if colour == first {
            n.div_ceil(2)
        } else {
            n / 2
        };
        let failed = played.culprit == Some(colour)
            && !matches!(played.termination, Termination::Failure(FailKind::Resigned));
        let counter = &shared.failures[engine];
        if failed && own_moves == 0 {
            let k = counter.fetch_add(1, Ordering::Relaxed) + 1;
            if k >= FAILURES_IN_A_ROW {
                return Some(format!(
                    "{} failed {k} games in a row before its first move; last: {}",
                    shared.plan.engines[engine].name, played.reason
                ));
            }
        } else {
            counter.store(0, Ordering::Relaxed);
        }
    }
    None
}

/// A game lost before it began, by the engine playing `side`.
pub(crate) fn forfeit(variant: Variant, side: Colour, f: Failure) -> Played {
    let who = side_name(variant, side);
    Played {
        moves: Vec::new(),
        notes: Vec::new(),
        result: GameResult::win(!side),
        termination: Termination::Failure(f.kind),
        reason: format!("{who} loses: {}: {}", f.kind.tag(), f.message),
        culprit: Some(side),
        lines: f.lines,
    }
}

/// Plays one scheduled game; `None` when the match was stopped during it.
fn play_job(shared: &Shared<'_>, job: &Job, pool: &mut [Option<HubEngine>]) -> Option<Played> {
    let plan = shared.plan;
    for (engine, side) in [(job.white, Colour::White), (job.black, Colour::Black)] {
        if let (Some(launch), None) = (&shared.hub[engine], &pool[engine]) {
            match HubEngine::start(launch) {
                Ok(h) => pool[engine] = Some(h),
                Err(f) => return Some(forfeit(plan.settings.variant, side, f)),
            }
        }
    }
    let lock = |e: usize| {
        shared.dxp[e]
            .as_ref()
            .map(|m| m.lock().unwrap_or_else(PoisonError::into_inner))
    };
    let (lo, hi) = (job.white.min(job.black), job.white.max(job.black));
    debug_assert!(lo < hi, "an engine never plays itself");
    let mut lo_dxp = lock(lo);
    let mut hi_dxp = lock(hi);
    let (below, above) = pool.split_at_mut(hi);
    let lo_player: &mut dyn Player = match (&mut lo_dxp, &mut below[lo]) {
        (Some(g), _) => &mut **g,
        (None, Some(h)) => h,
        (None, None) => unreachable!("engine {lo} was started above"),
    };
    let hi_player: &mut dyn Player = match (&mut hi_dxp, &mut above[0]) {
        (Some(g), _) => &mut **g,
        (None, Some(h)) => h,
        (None, None) => unreachable!("engine {hi} was started above"),
    };
    let (white, black) = if job.white == lo {
        (lo_player, hi_player)
    } else {
        (hi_player, lo_player)
    };
    let opening = &plan.openings[job.opening];
    let played = game::play(opening, white, black, &plan.settings, &shared.stop);
    drop((lo_dxp, hi_dxp));
    // A Hub engine that failed is killed here and started afresh for its next game; a DXP
    // engine reconnects at its next game.
    for slot in pool.iter_mut() {
        if slot.as_ref().is_some_and(Player::is_broken) {
            *slot = None;
        }
    }
    played
}
