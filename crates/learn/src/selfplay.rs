//! Self-play: Kroon plays itself at a fixed node count or depth from varied starts, and every
//! position it searched is written with the game's result and its score (see `record`).
//!
//! Game `g` is a function of the settings and `g` alone: its start (an opening and a few random
//! plies) comes from a generator seeded by the seed and `g`, and each search is single-threaded
//! with a cleared table. So a file holds the same games whatever the number of threads; with one
//! thread it is the same file, byte for byte. A run appends to its file and, when the file exists,
//! plays only the games it lacks, so an interrupted run resumes where it stopped.

use crate::record::{self, Flags, Record};
use crate::rng::Rng;
use anyhow::{Context, Result};
use crossbeam::channel;
use indicatif::{ProgressBar, ProgressStyle};
use kroon_rules::{Colour, Game, GameResult, Outcome, Position, Variant};
use kroon_search::{score, Engine, Eval, Limits, SearchRequest};
use std::io::{BufWriter, Write};
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

/// How hard each move is searched.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum MoveLimit {
    /// About this many nodes a move.
    Nodes(u64),
    /// This depth a move.
    Depth(u32),
}

/// Everything that decides a self-play run.
#[derive(Clone, Debug)]
pub struct Settings {
    /// The rules.
    pub variant: Variant,
    /// Games the file should hold when the run ends.
    pub games: u32,
    /// Each move's search.
    pub limit: MoveLimit,
    /// Games played at once.
    pub threads: usize,
    /// Table per game, MiB.
    pub hash_mib: usize,
    /// Seed of every game's start.
    pub seed: u64,
    /// Random legal moves played after the opening.
    pub random_plies: u32,
    /// A game this long is a draw.
    pub max_plies: u32,
    /// A game is won once the searches give one side at least this many centi-men...
    pub adjudicate_score: i32,
    /// ... for this many plies in a row (0: never adjudicate on score). A proven win always ends
    /// the game.
    pub adjudicate_plies: u32,
    /// The evaluation that plays.
    pub eval: Eval,
    /// A name for the evaluation that changes with its weights (part of the settings' hash).
    pub eval_id: String,
    /// Where the games go.
    pub out: PathBuf,
}

impl Settings {
    /// A hash of everything that decides the games (not their number): a file is only resumed by
    /// a run that would make the same games.
    #[must_use]
    pub fn fingerprint(&self, openings: &[Position]) -> u64 {
        let mut text = format!(
            "selfplay 1 {} {:?} seed {} random {} max {} adjudicate {} {} eval {}",
            self.variant,
            self.limit,
            self.seed,
            self.random_plies,
            self.max_plies,
            self.adjudicate_score,
            self.adjudicate_plies,
            self.eval_id
        );
        for p in openings {
            text.push(' ');
            text.push_str(&kroon_rules::write_fen(p));
        }
        kroon_rules::hash::fnv1a(text.as_bytes())
    }
}

/// The evaluation's name as the settings' hash knows it: `hand`, or `learned` and the weights'
/// hash.
#[must_use]
pub fn eval_id(eval: &Eval) -> String {
    eval.id()
}

/// What a run did.
#[derive(Clone, Debug, Default)]
pub struct Summary {
    /// Games the file held before.
    pub resumed_games: usize,
    /// Games played and written by this run.
    pub games: usize,
    /// Positions written by this run.
    pub positions: u64,
    /// White wins, draws, Black wins of this run.
    pub results: [usize; 3],
    /// Time taken.
    pub elapsed: Duration,
    /// Stopped before all games were played.
    pub stopped: bool,
}

/// Plays the missing games of `settings.out` from `openings` (each game starts from one of them,
/// chosen by its seed), until done or until `stop` is set; games in progress then are dropped.
///
/// # Errors
/// The file cannot be opened or written, or holds other games (see `record::open_for_append`).
pub fn run(settings: &Settings, openings: &[Position], stop: &AtomicBool) -> Result<Summary> {
    anyhow::ensure!(!openings.is_empty(), "no openings to start from");
    let fingerprint = settings.fingerprint(openings);
    let (file, found) = record::open_for_append(&settings.out, settings.variant, fingerprint)?;
    let todo: Vec<u32> = (0..settings.games)
        .filter(|g| !found.games.contains(g))
        .collect();
    let mut summary = Summary {
        resumed_games: found.games.len(),
        ..Summary::default()
    };
    if todo.is_empty() {
        return Ok(summary);
    }
    let start = Instant::now();
    let bar = ProgressBar::new(todo.len() as u64);
    if let Ok(style) = ProgressStyle::with_template(
        "{elapsed_precise} [{bar:30}] {pos}/{len} games, {per_sec}, ETA {eta} {msg}",
    ) {
        bar.set_style(style.progress_chars("=> "));
    }
    let next = AtomicUsize::new(0);
    let (tx, rx) = channel::bounded::<Vec<Record>>(64);
    let mut out = BufWriter::new(file);
    let written = std::thread::scope(|s| -> Result<()> {
        for _ in 0..settings.threads.max(1) {
            let tx = tx.clone();
            let (next, todo) = (&next, &todo);
            std::thread::Builder::new()
                .name("selfplay".into())
                .stack_size(32 << 20)
                .spawn_scoped(s, move || {
                    let mut engine = Engine::new(1, settings.hash_mib);
                    engine.set_eval(settings.eval.clone());
                    loop {
                        let i = next.fetch_add(1, Ordering::Relaxed);
                        let Some(&g) = todo.get(i) else { break };
                        match play(settings, openings, g, &mut engine, stop) {
                            Some(records) => {
                                if tx.send(records).is_err() {
                                    break;
                                }
                            }
                            None => break,
                        }
                    }
                })
                .context("starting a self-play thread")?;
        }
        drop(tx);
        for records in rx {
            for r in &records {
                out.write_all(&r.to_bytes())?;
            }
            summary.games += 1;
            summary.positions += records.len() as u64;
            if let Some(r) = records.first() {
                summary.results[match r.result {
                    GameResult::WhiteWins => 0,
                    GameResult::Draw => 1,
                    GameResult::BlackWins => 2,
                }] += 1;
            }
            bar.inc(1);
            bar.set_message(format!(
                "{} positions, +{} ={} -{}",
                summary.positions, summary.results[0], summary.results[1], summary.results[2]
            ));
        }
        Ok(())
    });
    out.flush()?;
    bar.finish_and_clear();
    written.context("writing the games")?;
    summary.elapsed = start.elapsed();
    summary.stopped = summary.games < todo.len();
    Ok(summary)
}

/// Plays game `g` to its end; `None` if `stop` was set first. The engine's own history does not
/// matter (each game starts with `new_game`), so any engine made with `Engine::new(1,
/// settings.hash_mib)` and `settings.eval` plays the same game: `run` and the work queue's
/// workers both play through here.
pub fn play(
    settings: &Settings,
    openings: &[Position],
    g: u32,
    engine: &mut Engine,
    stop: &AtomicBool,
) -> Option<Vec<Record>> {
    let mut rng = Rng::new(settings.seed ^ (u64::from(g) + 1).wrapping_mul(0x9E37_79B9_7F4A_7C15));
    let mut game = start(openings, settings.random_plies, &mut rng);
    engine.new_game();
    let limits = match settings.limit {
        MoveLimit::Nodes(n) => Limits::Nodes(n),
        MoveLimit::Depth(d) => Limits::Depth(d),
    };
    // Positions searched: the position, its score for the side to move, its ply.
    let mut seen: Vec<(Position, i32, usize)> = Vec::new();
    let mut streak: (Option<Colour>, u32) = (None, 0);
    let result = loop {
        if let Some(outcome) = game.outcome() {
            break match outcome {
                Outcome::Win(side) => GameResult::win(side),
                Outcome::Draw(_) => GameResult::Draw,
            };
        }
        if game.moves().len() >= settings.max_plies as usize {
            break GameResult::Draw;
        }
        if stop.load(Ordering::Relaxed) {
            return None;
        }
        let pos = *game.position();
        let req = SearchRequest {
            game: game.clone(),
            limits: limits.clone(),
            ponder: false,
        };
        let found = engine.search(&req, &|_| {});
        let Some(best) = found.best else {
            // The rules say the game is over (no legal move), which `outcome` reports next.
            break GameResult::win(!pos.turn());
        };
        seen.push((pos, found.score, game.moves().len()));
        // The side the search favours, for adjudication.
        let ahead = if found.score > 0 {
            pos.turn()
        } else {
            !pos.turn()
        };
        if score::is_decisive(found.score) {
            break GameResult::win(ahead);
        }
        if settings.adjudicate_plies > 0 && found.score.abs() >= settings.adjudicate_score {
            streak = if streak.0 == Some(ahead) {
                (streak.0, streak.1 + 1)
            } else {
                (Some(ahead), 1)
            };
            if streak.1 >= settings.adjudicate_plies {
                break GameResult::win(ahead);
            }
        } else {
            streak = (None, 0);
        }
        if game.play(&best).is_err() {
            // The search only returns legal moves; should it not, the game is void.
            return None;
        }
    };
    let mut records: Vec<Record> = seen
        .iter()
        .map(|(pos, s, ply)| Record::new(pos, *s, *ply, g, result))
        .collect();
    if records.is_empty() {
        // The start was already over: keep its final position, so the game counts as played.
        records.push(Record::new(
            game.position(),
            0,
            game.moves().len(),
            g,
            result,
        ));
    }
    if let Some(last) = records.last_mut() {
        last.flags = last.flags.with(Flags::LAST);
    }
    Some(records)
}

/// The start of a game: an opening, then `plies` random legal moves (fewer if the game ends).
fn start(openings: &[Position], plies: u32, rng: &mut Rng) -> Game {
    let opening = openings[rng.below(openings.len() as u64) as usize];
    let mut game = Game::new(opening);
    for _ in 0..plies {
        if game.outcome().is_some() {
            break;
        }
        let moves = game.position().legal_moves();
        let mv = moves[rng.below(moves.len() as u64) as usize];
        if game.play(&mv).is_err() {
            break;
        }
    }
    game
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::record::read_all;

    fn settings(out: PathBuf, games: u32, threads: usize) -> Settings {
        Settings {
            variant: Variant::International,
            games,
            limit: MoveLimit::Nodes(300),
            threads,
            hash_mib: 1,
            seed: 9,
            random_plies: 4,
            max_plies: 120,
            adjudicate_score: 600,
            adjudicate_plies: 4,
            eval: Eval::Hand,
            eval_id: "hand".into(),
            out,
        }
    }

    fn dir(name: &str) -> PathBuf {
        let d = std::env::temp_dir().join(format!("kroon-selfplay-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(&d).unwrap();
        d
    }

    #[test]
    fn games_repeat_for_a_seed_and_resume_where_they_stopped() {
        let d = dir("repeat");
        let openings = vec![Position::initial(Variant::International)];
        let never = AtomicBool::new(false);
        let (a, b, c) = (d.join("a.bin"), d.join("b.bin"), d.join("c.bin"));
        let s = run(&settings(a.clone(), 6, 1), &openings, &never).unwrap();
        assert_eq!((s.games, s.stopped), (6, false));
        assert!(s.positions > 6 * 20, "{s:?}");
        // The same run again: the same bytes.
        run(&settings(b.clone(), 6, 1), &openings, &never).unwrap();
        assert_eq!(std::fs::read(&a).unwrap(), std::fs::read(&b).unwrap());
        // Half the games, then the rest (resumed): the same bytes again.
        run(&settings(c.clone(), 3, 1), &openings, &never).unwrap();
        let again = run(&settings(c.clone(), 6, 1), &openings, &never).unwrap();
        assert_eq!((again.resumed_games, again.games), (3, 3));
        assert_eq!(std::fs::read(&a).unwrap(), std::fs::read(&c).unwrap());
        // Nothing left to do.
        assert_eq!(
            run(&settings(c.clone(), 6, 1), &openings, &never)
                .unwrap()
                .games,
            0
        );
        // Other settings are refused rather than mixed in.
        let mut other = settings(c.clone(), 8, 1);
        other.seed = 10;
        assert!(run(&other, &openings, &never).is_err());
        // Two threads: the same games, perhaps in another order.
        let t = d.join("t.bin");
        run(&settings(t.clone(), 6, 2), &openings, &never).unwrap();
        let key = |path: &PathBuf| {
            let (_, mut r) = read_all(path, None).unwrap();
            r.sort_by_key(|r| (r.game, r.ply));
            r
        };
        assert_eq!(key(&a), key(&t));
        // Every game ends with its last record, and its result agrees with its records.
        let (_, records) = read_all(&a, None).unwrap();
        let ends = records.iter().filter(|r| r.flags.has(Flags::LAST)).count();
        assert_eq!(ends, 6);
        let _ = std::fs::remove_dir_all(&d);
    }

    #[test]
    fn a_stop_plays_nothing_more() {
        let d = dir("stop");
        let openings = vec![Position::initial(Variant::International)];
        let stop = AtomicBool::new(true);
        let s = run(&settings(d.join("s.bin"), 4, 2), &openings, &stop).unwrap();
        assert!(s.stopped && s.games == 0, "{s:?}");
        assert_eq!(
            std::fs::metadata(d.join("s.bin")).unwrap().len(),
            record::HEADER_SIZE as u64
        );
        let _ = std::fs::remove_dir_all(&d);
    }
}
