//! What the match tells the user: a line (or a progress bar) per game, the PDN file, the final
//! tables and the JSON results file. The counting lives in [`Tally`], which does no I/O.

use super::game::{Played, Termination};
use super::openings::{movetext, Opening};
use super::pdn;
use super::stats::{Decision, Penta, Sprt, Wdl};
use super::Plan;
use anyhow::{Context, Result};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use kroon_rules::{Colour, GameResult};
use serde_json::json;
use std::collections::{BTreeMap, HashMap};
use std::fs::File;
use std::io::{IsTerminal, Write};
use std::time::Duration;

/// One scheduled game.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Job {
    /// 1-based number in the schedule (the PDN `Round`).
    pub number: usize,
    /// Index into the plan's pairs.
    pub pair: usize,
    /// Which opening of the pair's sequence: the two games of a round share it.
    pub round: usize,
    /// Index into the plan's openings.
    pub opening: usize,
    /// Engine index with White.
    pub white: usize,
    /// Engine index with Black.
    pub black: usize,
}

/// A finished game and its place in the schedule.
#[derive(Clone, Debug)]
pub struct Finished {
    /// The schedule entry.
    pub job: Job,
    /// The game.
    pub played: Played,
}

/// One game of a match, as it ended.
#[derive(Clone, Debug)]
pub struct GameReport {
    /// Its number in the schedule, from 1 (the PDN `Round`).
    pub number: usize,
    /// The engine with White.
    pub white: String,
    /// The engine with Black.
    pub black: String,
    /// The result.
    pub result: GameResult,
    /// Why it ended.
    pub termination: Termination,
    /// The engine that failed (crashed, hung, played an illegal move, ...) and so lost, if one did.
    pub culprit: Option<String>,
    /// In words.
    pub reason: String,
    /// Moves the engines played, after the opening's.
    pub engine_plies: usize,
}

impl GameReport {
    /// The report of a finished game.
    #[must_use]
    pub(crate) fn new(plan: &Plan, f: &Finished) -> GameReport {
        let name = |i: usize| plan.engines[i].name.clone();
        GameReport {
            number: f.job.number,
            white: name(f.job.white),
            black: name(f.job.black),
            result: f.played.result,
            termination: f.played.termination,
            culprit: f.played.culprit.map(|c| match c {
                Colour::White => name(f.job.white),
                Colour::Black => name(f.job.black),
            }),
            reason: f.played.reason.clone(),
            engine_plies: f.played.moves.len(),
        }
    }
}

/// Why a match ended before its schedule did.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Stopped {
    /// The SPRT decided.
    Sprt(Decision),
    /// An engine kept failing before its first move (the message says which, and how).
    Failing(String),
}

/// How a match went.
#[derive(Clone, Debug)]
pub struct Report {
    /// Games in the schedule.
    pub scheduled: usize,
    /// Every game played to its end, in the order they ended; games still running when the match
    /// stopped early are not among them.
    pub games: Vec<GameReport>,
    /// Why the match stopped early, if it did.
    pub stopped: Option<Stopped>,
}

/// Counts for one pair, from its first engine's side.
#[derive(Clone, Debug, Default)]
struct PairTally {
    wdl: Wdl,
    penta: Penta,
    /// Rounds with one game finished: half-points of the first engine so far.
    open: HashMap<usize, usize>,
}

/// Everything counted so far.
#[derive(Debug)]
pub struct Tally {
    names: Vec<String>,
    pairs: Vec<(usize, usize)>,
    per_pair: Vec<PairTally>,
    per_engine: Vec<Wdl>,
    endings: BTreeMap<&'static str, u32>,
    sprt: Option<Sprt>,
    games: Vec<serde_json::Value>,
}

impl Tally {
    /// An empty tally for `names` and the plan's pairs.
    #[must_use]
    pub fn new(names: Vec<String>, pairs: Vec<(usize, usize)>, sprt: Option<Sprt>) -> Tally {
        Tally {
            per_pair: vec![PairTally::default(); pairs.len()],
            per_engine: vec![Wdl::default(); names.len()],
            names,
            pairs,
            endings: BTreeMap::new(),
            sprt,
            games: Vec::new(),
        }
    }

    /// Counts a game.
    pub fn add(&mut self, f: &Finished, opening: &Opening) {
        let job = &f.job;
        let result = f.played.result;
        let (a, _) = self.pairs[job.pair];
        let a_colour = if job.white == a {
            Colour::White
        } else {
            Colour::Black
        };
        let pair = &mut self.per_pair[job.pair];
        count(&mut pair.wdl, result.points(a_colour));
        let half = result.draughts_points(a_colour) as usize;
        match pair.open.remove(&job.round) {
            Some(first) => pair.penta.add(first + half),
            None => {
                pair.open.insert(job.round, half);
            }
        }
        count(
            &mut self.per_engine[job.white],
            result.points(Colour::White),
        );
        count(
            &mut self.per_engine[job.black],
            result.points(Colour::Black),
        );
        *self.endings.entry(f.played.termination.tag()).or_default() += 1;
        let culprit = f.played.culprit.map(|c| match c {
            Colour::White => &self.names[job.white],
            Colour::Black => &self.names[job.black],
        });
        let mut all_moves = opening.moves.clone();
        all_moves.extend_from_slice(&f.played.moves);
        self.games.push(json!({
            "number": job.number,
            "round": job.round + 1,
            "white": self.names[job.white],
            "black": self.names[job.black],
            "opening": opening.describe(),
            "result": result.pdn(),
            "winner": match result {
                GameResult::WhiteWins => Some(&self.names[job.white]),
                GameResult::BlackWins => Some(&self.names[job.black]),
                GameResult::Draw => None,
            },
            "termination": f.played.termination.tag(),
            "reason": f.played.reason,
            "culprit": culprit,
            "engine_plies": f.played.moves.len(),
            "moves": movetext(&opening.start, &all_moves),
            "last_lines": f.played.lines,
        }));
    }

    /// The SPRT's state, when one runs: LLR, bounds and decision.
    #[must_use]
    pub fn sprt_state(&self) -> Option<(Sprt, f64, Decision)> {
        let sprt = self.sprt?;
        let llr = sprt.llr(&self.per_pair[0].penta);
        Some((sprt, llr, sprt.decide(llr)))
    }

    /// One line: the first pair's score and Elo (or, with several pairs, the first engine's
    /// total), and the LLR.
    #[must_use]
    pub fn summary(&self) -> String {
        let (name, wdl) = if self.pairs.len() == 1 {
            let (a, b) = self.pairs[0];
            (
                format!("{} vs {}", self.names[a], self.names[b]),
                self.per_pair[0].wdl,
            )
        } else {
            (self.names[0].clone(), self.per_engine[0])
        };
        let mut s = format!("{name} +{} ={} -{}", wdl.wins, wdl.draws, wdl.losses);
        if let (Some(score), Some(elo)) = (wdl.score(), wdl.elo()) {
            s.push_str(&format!(" {:.1}% Elo {elo}", score * 100.0));
        }
        if let Some((sprt, llr, _)) = self.sprt_state() {
            let (lo, hi) = sprt.bounds();
            s.push_str(&format!(" | LLR {llr:+.2} [{lo:+.2}, {hi:+.2}]"));
        }
        s
    }

    /// The final tables.
    #[must_use]
    pub fn table(&self) -> String {
        let mut out = String::new();
        let width = self
            .pairs
            .iter()
            .map(|&(a, b)| self.names[a].len() + self.names[b].len() + 4)
            .max()
            .unwrap_or(4)
            .max(4);
        out.push_str(&format!(
            "{:<width$} {:>5} {:>5} {:>5} {:>5} {:>7} {:>18} {:>10}   pairs: {:>3} {:>3} {:>3} {:>3} {:>3}\n",
            "pair", "games", "+", "=", "-", "score", "Elo ± 95%", "by pairs", "0", "½", "1", "1½", "2"
        ));
        for (i, &(a, b)) in self.pairs.iter().enumerate() {
            let t = &self.per_pair[i];
            let w = t.wdl;
            let score = w
                .score()
                .map_or_else(|| "-".to_owned(), |s| format!("{:.1}%", s * 100.0));
            let elo = w.elo().map_or_else(|| "-".to_owned(), |e| e.to_string());
            let pairs = t
                .penta
                .elo()
                .map_or_else(|| "-".to_owned(), |e| format!("± {}", margin(e.margin)));
            let p = t.penta.0;
            out.push_str(&format!(
                "{:<width$} {:>5} {:>5} {:>5} {:>5} {:>7} {:>18} {:>10}          {:>3} {:>3} {:>3} {:>3} {:>3}\n",
                format!("{} vs {}", self.names[a], self.names[b]),
                w.games(),
                w.wins,
                w.draws,
                w.losses,
                score,
                elo,
                pairs,
                p[0],
                p[1],
                p[2],
                p[3],
                p[4]
            ));
            if !t.open.is_empty() {
                out.push_str(&format!(
                    "{:<width$} ({} game(s) without their pair, not in the pentanomial counts)\n",
                    "",
                    t.open.len()
                ));
            }
        }
        if self.names.len() > 2 {
            out.push('\n');
            let nw = self.names.iter().map(String::len).max().unwrap_or(6).max(6);
            out.push_str(&format!(
                "{:<nw$} {:>5} {:>7} {:>7}\n",
                "engine", "games", "points", "score"
            ));
            let mut order: Vec<usize> = (0..self.names.len()).collect();
            order.sort_by(|&x, &y| {
                let s = |i: usize| self.per_engine[i].score().unwrap_or(0.0);
                s(y).total_cmp(&s(x))
            });
            for i in order {
                let w = self.per_engine[i];
                out.push_str(&format!(
                    "{:<nw$} {:>5} {:>7.1} {:>7}\n",
                    self.names[i],
                    w.games(),
                    w.points(),
                    w.score()
                        .map_or_else(|| "-".to_owned(), |s| format!("{:.1}%", s * 100.0))
                ));
            }
        }
        if !self.endings.is_empty() {
            let list: Vec<String> = self
                .endings
                .iter()
                .map(|(k, n)| format!("{k} {n}"))
                .collect();
            out.push_str(&format!("endings: {}\n", list.join(", ")));
        }
        if let Some((sprt, llr, decision)) = self.sprt_state() {
            let (lo, hi) = sprt.bounds();
            out.push_str(&format!(
                "SPRT elo0={} elo1={} alpha={} beta={} (GSPRT on {} game pairs, logistic Elo): LLR {llr:+.3} [{lo:+.3}, {hi:+.3}] {decision}\n",
                sprt.elo0,
                sprt.elo1,
                sprt.alpha,
                sprt.beta,
                self.per_pair[0].penta.pairs()
            ));
        }
        out
    }

    /// Everything as JSON.
    #[must_use]
    pub fn json(&self, plan: &Plan) -> serde_json::Value {
        let finite = |x: f64| x.is_finite().then_some(x);
        let pairs: Vec<_> = self
            .pairs
            .iter()
            .enumerate()
            .map(|(i, &(a, b))| {
                let t = &self.per_pair[i];
                let elo = t.wdl.elo();
                let penta_elo = t.penta.elo();
                json!({
                    "first": self.names[a],
                    "second": self.names[b],
                    "games": t.wdl.games(),
                    "wins": t.wdl.wins,
                    "draws": t.wdl.draws,
                    "losses": t.wdl.losses,
                    "score": t.wdl.score(),
                    "elo": elo.and_then(|e| finite(e.elo)),
                    "elo_margin": elo.and_then(|e| finite(e.margin)),
                    "elo_margin_pairs": penta_elo.and_then(|e| finite(e.margin)),
                    "pentanomial": t.penta.0,
                    "unpaired_games": t.open.len(),
                })
            })
            .collect();
        let sprt = self.sprt_state().map(|(s, llr, d)| {
            let (lower, upper) = s.bounds();
            json!({
                "elo0": s.elo0, "elo1": s.elo1, "alpha": s.alpha, "beta": s.beta,
                "model": "logistic Elo, GSPRT on pentanomial game pairs",
                "llr": llr, "lower": lower, "upper": upper, "decision": d.to_string(),
            })
        });
        json!({
            "engines": self.names,
            "time_control": plan.settings.tc.to_string(),
            "games_per_pair": plan.games,
            "games": self.games,
            "pairs": pairs,
            "endings": self.endings,
            "sprt": sprt,
        })
    }
}

fn count(wdl: &mut Wdl, points: f64) {
    if points > 0.75 {
        wdl.wins += 1;
    } else if points < 0.25 {
        wdl.losses += 1;
    } else {
        wdl.draws += 1;
    }
}

fn margin(m: f64) -> String {
    if m.is_finite() {
        format!("{m:.1}")
    } else {
        "inf".into()
    }
}

/// The running output: progress, per-game lines, the PDN file.
pub struct Output {
    tally: Tally,
    bar: Option<ProgressBar>,
    pdn: Option<File>,
    done: usize,
    total: usize,
    date: String,
    tc: String,
}

impl Output {
    /// Opens the PDN file (for appending) and starts the progress display.
    ///
    /// # Errors
    /// The PDN file cannot be opened.
    pub fn new(plan: &Plan, total: usize) -> Result<Output> {
        let pdn = plan
            .pdn
            .as_ref()
            .map(|path| {
                std::fs::OpenOptions::new()
                    .create(true)
                    .append(true)
                    .open(path)
                    .with_context(|| format!("opening {}", path.display()))
            })
            .transpose()?;
        let names = plan.engines.iter().map(|e| e.name.clone()).collect();
        let bar = std::io::stdout().is_terminal().then(|| {
            let bar =
                ProgressBar::with_draw_target(Some(total as u64), ProgressDrawTarget::stdout());
            if let Ok(style) = ProgressStyle::with_template(
                "{bar:24.cyan/blue} {pos}/{len} games [{elapsed}] {wide_msg}",
            ) {
                bar.set_style(style.progress_chars("=> "));
            }
            bar.enable_steady_tick(Duration::from_millis(500));
            bar
        });
        let out = Output {
            tally: Tally::new(names, plan.pairs.clone(), plan.sprt),
            bar,
            pdn,
            done: 0,
            total,
            date: pdn::today(),
            tc: plan.settings.tc.to_string(),
        };
        let names: Vec<&str> = plan.engines.iter().map(|e| e.name.as_str()).collect();
        out.line(&format!(
            "kroon match: {} ({}), {} games, {}, {} openings, concurrency {}",
            names.join(", "),
            if plan.pairs.len() == 1 {
                "one pair"
            } else if plan.pairs.iter().all(|p| p.0 == 0) {
                "gauntlet"
            } else {
                "round robin"
            },
            total,
            out.tc,
            plan.openings.len(),
            plan.concurrency
        ));
        Ok(out)
    }

    fn line(&self, text: &str) {
        match &self.bar {
            Some(bar) => bar.println(text),
            None => {
                let _ = writeln!(std::io::stdout().lock(), "{text}");
            }
        }
    }

    /// Records a game: PDN, tally, a line (and the failing engine's last lines). Returns the
    /// SPRT's decision, if one runs.
    ///
    /// # Errors
    /// Writing the PDN file failed.
    pub fn game(&mut self, plan: &Plan, f: &Finished) -> Result<Option<Decision>> {
        let job = &f.job;
        let opening = &plan.openings[job.opening];
        let (white, black) = (
            plan.engines[job.white].name.as_str(),
            plan.engines[job.black].name.as_str(),
        );
        if let Some(file) = self.pdn.as_mut() {
            let header = pdn::Header {
                event: &plan.event,
                date: &self.date,
                round: job.number,
                white,
                black,
                time_control: &self.tc,
            };
            file.write_all(pdn::write(&header, opening, &f.played).as_bytes())
                .and_then(|()| file.flush())
                .context("writing the PDN file")?;
        }
        self.tally.add(f, opening);
        self.done += 1;
        let plies = opening.moves.len() + f.played.moves.len();
        self.line(&format!(
            "[{:>w$}/{}] {white} - {black} {} ({}; {plies} plies) | {}",
            self.done,
            self.total,
            f.played.result.pdn(),
            f.played.reason,
            self.tally.summary(),
            w = self.total.to_string().len()
        ));
        if let Some(c) = f.played.culprit {
            let name = if c == Colour::White { white } else { black };
            let mut text = format!("    last lines of {name}:");
            for l in &f.played.lines {
                text.push_str("\n      ");
                text.push_str(l);
            }
            self.line(&text);
        }
        if let Some(bar) = &self.bar {
            bar.set_position(self.done as u64);
            bar.set_message(self.tally.summary());
        }
        Ok(self.tally.sprt_state().map(|(_, _, d)| d))
    }

    /// Ends the progress display, prints the tables and writes the JSON file.
    ///
    /// # Errors
    /// Writing the JSON file failed.
    pub fn finish(self, plan: &Plan, note: Option<&str>) -> Result<()> {
        if let Some(bar) = &self.bar {
            bar.finish_and_clear();
        }
        let mut text = String::new();
        if let Some(note) = note {
            text.push_str(note);
            text.push('\n');
        }
        text.push_str(&format!(
            "\n{} of {} games played, {}\n",
            self.done, self.total, self.tc
        ));
        text.push_str(&self.tally.table());
        let _ = write!(std::io::stdout().lock(), "{text}");
        if let Some(path) = &plan.results_json {
            let body = serde_json::to_string_pretty(&self.tally.json(plan))?;
            std::fs::write(path, body + "\n")
                .with_context(|| format!("writing {}", path.display()))?;
        }
        Ok(())
    }
}
