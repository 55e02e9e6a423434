//! `kroon annotate`: searches every position of every game of a PDN file and writes the games
//! back with, after each move, the score and depth; the best line where the move loses value;
//! `?` and `??` for mistakes and blunders by the stated thresholds; `!` for the only good move;
//! and a summary per game and player.
//!
//! Each position is searched from an empty table, so its analysis depends on nothing before
//! it: a node-limited run on one thread repeats exactly, and a run that was stopped resumes
//! from a progress file beside the input (`FILE.kroon-progress`) with the same results. That
//! file is keyed by the input's bytes and the settings, and removed once the output is written.

use anyhow::{bail, Context, Result};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use kroon_rules::{
    decode_text, notation, parse_hub_move, read_pdn, side_called, side_name, write_pdn, Colour,
    Move, PdnGame, PdnLine, PdnMove, Position, Variant,
};
use kroon_search::score::{self, plies_to_end, MAN};
use kroon_search::{Engine, Eval, Limits, SearchRequest};
use std::collections::HashMap;
use std::fmt::Write as _;
use std::io::{BufRead, Write as _};
use std::path::{Path, PathBuf};

/// What to search and how to judge.
#[derive(Clone, Debug)]
pub struct Settings {
    /// The search of each position.
    pub limits: Limits,
    /// Search threads.
    pub threads: usize,
    /// Table size, MiB.
    pub hash: usize,
    /// A loss of at least this many men is a mistake (`?`).
    pub mistake: f64,
    /// A loss of at least this many men is a blunder (`??`).
    pub blunder: f64,
    /// The variant of games without a `GameType` tag.
    pub variant: Variant,
}

/// A loss below this (men) is no loss: the best line is shown from here.
const LOSES_VALUE: f64 = 0.10;

/// Scores are capped here (centi-men) before losses are taken, so that a win in 9 against a
/// win in 7, or a lost position lost faster, is no blunder.
const CAP: i32 = 10 * MAN;

/// The analysis of one position.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Analysis {
    /// Best score for the side to move.
    score: i32,
    depth: u32,
    /// The second best root move's score, when there is one.
    second: Option<i32>,
    /// The best line.
    pv: Vec<Move>,
}

fn progress_path(input: &Path) -> PathBuf {
    let mut name = input.as_os_str().to_owned();
    name.push(".kroon-progress");
    PathBuf::from(name)
}

/// The analyses of an earlier run with the same key, by (game, ply).
fn load_progress(path: &Path, key: &str, games: &[PdnGame]) -> HashMap<(usize, usize), Analysis> {
    let mut done = HashMap::new();
    let Ok(file) = std::fs::File::open(path) else {
        return done;
    };
    let mut lines = std::io::BufReader::new(file).lines();
    if lines.next().and_then(Result::ok).as_deref() != Some(key) {
        return done;
    }
    for line in lines.map_while(Result::ok) {
        // A line cut short by a stop reads as nothing, and that position is searched again.
        let Some(parsed) = parse_progress(&line, games) else {
            break;
        };
        done.insert(parsed.0, parsed.1);
    }
    done
}

/// `game ply score depth second|- pv...`, the pv in Hub moves.
fn parse_progress(line: &str, games: &[PdnGame]) -> Option<((usize, usize), Analysis)> {
    let mut w = line.split_whitespace();
    let game: usize = w.next()?.parse().ok()?;
    let ply: usize = w.next()?.parse().ok()?;
    let score = w.next()?.parse().ok()?;
    let depth = w.next()?.parse().ok()?;
    let second = match w.next()? {
        "-" => None,
        s => Some(s.parse().ok()?),
    };
    if w.next()? != "pv" {
        return None;
    }
    let mut pos = games.get(game)?.position_at(ply);
    let mut pv = Vec::new();
    for text in w {
        let mv = parse_hub_move(&pos, text).ok()?;
        pos = pos.play(&mv);
        pv.push(mv);
    }
    Some((
        (game, ply),
        Analysis {
            score,
            depth,
            second,
            pv,
        },
    ))
}

fn progress_line(game: usize, ply: usize, start: &Position, a: &Analysis) -> String {
    let mut pos = *start;
    let mut pv = String::new();
    for mv in &a.pv {
        pv.push(' ');
        pv.push_str(&notation::hub(mv, pos.variant()));
        pos = pos.play(mv);
    }
    let second = a.second.map_or("-".to_owned(), |s| s.to_string());
    format!("{game} {ply} {} {} {second} pv{pv}", a.score, a.depth)
}

/// A score as the comment shows it: from White's side (as the variant names the sides), in
/// men, or `#N` for a win in N plies.
fn shown(score_for_mover: i32, mover: Colour, v: Variant) -> String {
    let white = if side_called(v, mover) == Colour::White {
        score_for_mover
    } else {
        -score_for_mover
    };
    match plies_to_end(white) {
        Some(p) if p >= 0 => format!("+#{p}"),
        Some(p) => format!("-#{}", -p),
        None => format!("{:+.2}", score::in_men(white)),
    }
}

/// What one side did in one game.
#[derive(Clone, Debug, Default)]
struct Tally {
    moves: u32,
    loss: f64,
    mistakes: u32,
    blunders: u32,
}

impl Tally {
    fn describe(&self) -> String {
        let average = if self.moves == 0 {
            0.0
        } else {
            self.loss / f64::from(self.moves)
        };
        format!(
            "average loss {average:.2}, {} mistake{}, {} blunder{}",
            self.mistakes,
            if self.mistakes == 1 { "" } else { "s" },
            self.blunders,
            if self.blunders == 1 { "" } else { "s" }
        )
    }
}

/// Runs `kroon annotate` on `input`, writing to `out` (standard output when `None`); `eval`
/// gives the evaluation of each game's variant.
pub fn run(
    input: &Path,
    out: Option<&Path>,
    settings: &Settings,
    eval: &dyn Fn(Variant) -> Result<Eval>,
) -> Result<()> {
    if !(settings.mistake > 0.0 && settings.blunder >= settings.mistake) {
        bail!("--mistake must be above 0 and --blunder at least --mistake");
    }
    let bytes = std::fs::read(input).with_context(|| format!("reading {}", input.display()))?;
    let file = read_pdn(&decode_text(&bytes), settings.variant);
    for s in &file.skipped {
        tracing::warn!("{}: skipped {s}", input.display());
        eprintln!("kroon annotate: {}: skipped {s}", input.display());
    }
    let mut games = file.games;
    let limit = describe_limits(&settings.limits);
    // The evaluation of every variant the games are in, weights by their hash: analyses made
    // with other weights are not taken up again.
    let mut variants = vec![settings.variant];
    variants.extend(games.iter().map(|g| g.start.variant()));
    variants.sort_by_key(|v| v.to_string());
    variants.dedup();
    let mut evals = Vec::new();
    for v in variants {
        evals.push(format!("{v}:{}", eval(v)?.id()));
    }
    let key = format!(
        "kroon-annotate 2 {:016x} {limit} threads={} hash={} eval={}",
        kroon_rules::hash::fnv1a(&bytes),
        settings.threads,
        settings.hash,
        evals.join(",")
    );
    let sidecar = progress_path(input);
    let mut done = load_progress(&sidecar, &key, &games);
    let total: usize = games.iter().map(|g| g.line.moves.len() + 1).sum();
    let mut progress = std::fs::File::create(&sidecar)
        .with_context(|| format!("writing {}", sidecar.display()))?;
    writeln!(progress, "{key}")?;
    let mut resumed: Vec<_> = done.iter().collect();
    resumed.sort_by_key(|(k, _)| **k);
    for (&(g, p), a) in resumed {
        if let Some(game) = games.get(g) {
            writeln!(progress, "{}", progress_line(g, p, &game.position_at(p), a))?;
        }
    }
    progress.flush()?;
    if !done.is_empty() {
        eprintln!(
            "kroon annotate: resuming, {} of {total} positions already searched",
            done.len()
        );
    }

    let mut engine = Engine::new(settings.threads, settings.hash);
    engine.set_multipv(2);
    let bar = ProgressBar::with_draw_target(Some(total as u64), ProgressDrawTarget::stderr());
    if let Ok(style) = ProgressStyle::with_template(
        "{bar:30.cyan/blue} {pos}/{len} positions [{elapsed}<{eta}] {msg}",
    ) {
        bar.set_style(style.progress_chars("=> "));
    }
    bar.set_position(done.len() as u64);
    for (g, game) in games.iter().enumerate() {
        bar.set_message(format!("game {}", g + 1));
        engine.set_eval(eval(game.start.variant())?);
        let mut pos = game.start;
        let mut history = kroon_rules::Game::new(game.start);
        for ply in 0..=game.line.moves.len() {
            if !done.contains_key(&(g, ply)) && !pos.legal_moves().is_empty() {
                engine.new_game();
                let req = SearchRequest {
                    game: history.clone(),
                    limits: settings.limits.clone(),
                    ponder: false,
                };
                let r = engine.search(&req, &|_| {});
                let a = Analysis {
                    score: r.score,
                    depth: r.depth,
                    second: r.lines.get(1).map(|l| l.score),
                    pv: r.pv,
                };
                writeln!(progress, "{}", progress_line(g, ply, &pos, &a))?;
                progress.flush()?;
                done.insert((g, ply), a);
                bar.inc(1);
            } else if !done.contains_key(&(g, ply)) {
                bar.inc(1);
            }
            if let Some(m) = game.line.moves.get(ply) {
                pos = pos.play(&m.mv);
                history
                    .play(&m.mv)
                    .map_err(|e| anyhow::anyhow!("game {}: {e}", g + 1))?;
            }
        }
    }
    bar.finish_and_clear();

    let mut text = String::new();
    for (g, game) in games.iter_mut().enumerate() {
        let summary = annotate(game, g, &done, settings, &limit);
        eprintln!("game {}: {summary}", g + 1);
        text.push_str(&write_pdn(game));
    }
    match out {
        Some(path) => {
            std::fs::write(path, text).with_context(|| format!("writing {}", path.display()))?
        }
        None => {
            let mut stdout = std::io::stdout().lock();
            stdout.write_all(text.as_bytes())?;
            stdout.flush()?;
        }
    }
    drop(progress);
    let _ = std::fs::remove_file(&sidecar);
    Ok(())
}

fn describe_limits(limits: &Limits) -> String {
    match limits {
        Limits::Nodes(n) => format!("{n} nodes"),
        Limits::Depth(d) => format!("depth {d}"),
        Limits::MoveTime(t) => format!("{:.2} s", t.as_secs_f64()),
        other => format!("{other:?}"),
    }
}

/// Writes the analysis into `game` and returns its summary line.
fn annotate(
    game: &mut PdnGame,
    g: usize,
    done: &HashMap<(usize, usize), Analysis>,
    settings: &Settings,
    limit: &str,
) -> String {
    let v = game.start.variant();
    let mut tallies = [Tally::default(), Tally::default()];
    let mut pos = game.start;
    let capped = |s: i32| s.clamp(-CAP, CAP);
    let men = |cp: i32| f64::from(cp) / f64::from(MAN);
    for (ply, m) in game.line.moves.iter_mut().enumerate() {
        let mover = pos.turn();
        let after = pos.play(&m.mv);
        let here = done.get(&(g, ply));
        let next = done.get(&(g, ply + 1));
        // The move's value for the mover: the next position's score turned round; a move that
        // leaves the opponent without a move keeps the best score.
        let value = match (next, after.legal_moves().is_empty()) {
            (Some(n), false) => Some(-n.score),
            (_, true) => here.map(|h| h.score),
            (None, false) => None,
        };
        m.nags.retain(|n| !(1..=6).contains(n));
        let (Some(here), Some(value)) = (here, value) else {
            pos = after;
            continue;
        };
        let loss = men((capped(here.score) - capped(value)).max(0));
        let tally = &mut tallies[usize::from(mover != Colour::White)];
        tally.moves += 1;
        tally.loss += loss;
        let depth = next.map_or(here.depth, |n| n.depth);
        m.comments
            .push(format!("{}/{depth}", shown(value, mover, v)));
        if loss >= settings.blunder {
            m.nags.push(4);
            tally.blunders += 1;
        } else if loss >= settings.mistake {
            m.nags.push(2);
            tally.mistakes += 1;
        }
        let best = here.pv.first();
        if loss >= LOSES_VALUE && best.is_some_and(|b| *b != m.mv) {
            let mut line = PdnLine {
                intro: Vec::new(),
                moves: here.pv.iter().copied().map(PdnMove::new).collect(),
            };
            if let Some(first) = line.moves.first_mut() {
                first
                    .comments
                    .push(format!("{}/{}", shown(here.score, mover, v), here.depth));
            }
            m.variations.push(line);
        } else if best == Some(&m.mv)
            && loss == 0.0
            && here
                .second
                .is_some_and(|s| men(capped(here.score) - capped(s)) >= settings.mistake)
        {
            m.nags.push(1);
        }
        pos = after;
    }
    let names = [Colour::White, Colour::Black].map(|c| {
        let side = side_name(v, c);
        match game.tag(side) {
            Some(n) if !n.trim().is_empty() && n != "?" => format!("{side} ({n})"),
            _ => side.to_owned(),
        }
    });
    let mut summary = String::new();
    // Internal White moves first; list the sides as the variant's players name them.
    let order = if side_called(v, Colour::White) == Colour::White {
        [0, 1]
    } else {
        [1, 0]
    };
    for (i, &k) in order.iter().enumerate() {
        if i > 0 {
            summary.push_str("; ");
        }
        let _ = write!(summary, "{}: {}", names[k], tallies[k].describe());
    }
    game.line.intro.push(format!(
        "Kroon, {limit} a position; ? from {:.2} and ?? from {:.2} men lost; {summary}",
        settings.mistake, settings.blunder
    ));
    game.tags
        .retain(|(k, _)| !k.eq_ignore_ascii_case("Annotator"));
    game.tags.push((
        "Annotator".to_owned(),
        format!("Kroon {}", env!("CARGO_PKG_VERSION")),
    ));
    summary
}
