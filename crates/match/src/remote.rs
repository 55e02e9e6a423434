//! A match whose games are played elsewhere (`kroon match --queue`): the schedule cut into game
//! pairs, each a [`PairTask`] of plain data (settings, the opening, the engines' names), played by
//! [`play_pair`] on a worker with engines from the worker's own [`EngineBook`], and answered with
//! [`GameRecord`]s that the producer checks move by move before [`Match::play_remote`] records
//! them, in schedule order, exactly as the local run does.

use super::game::{self, MoveNote, Played, ScoreDraw, Termination};
use super::hub::{HubEngine, HubLaunch};
use super::openings::Opening;
use super::player::{FailKind, Player};
use super::report::{Finished, GameReport, Job, Output, Report, Stopped};
use super::runner;
use super::spec::{self, EngineKind, EngineSpec, TimeControl};
use super::stats::Decision;
use super::Match;
use anyhow::{bail, Context, Result};
use kroon_rules::game::{DrawReason, EndgameRule};
use kroon_rules::{notation, Colour, GameResult, Position, Variant};
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, HashMap};
use std::path::Path;
use std::sync::atomic::AtomicBool;
use std::time::Duration;

/// Most opening moves a task may carry.
const MAX_OPENING: usize = 400;

/// Longest engine name a task may carry.
const MAX_NAME: usize = 64;

/// How long engines may think, as a task carries it.
#[derive(Serialize, Deserialize, Clone, Copy, Debug, PartialEq, Eq)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum Limit {
    /// Fixed time a move, ms.
    MoveTime {
        /// ms.
        ms: u64,
    },
    /// A game clock, ms.
    Clock {
        /// Time at the start, ms.
        base_ms: u64,
        /// Added before each move, ms.
        inc_ms: u64,
    },
    /// Fixed depth.
    Depth {
        /// Plies.
        depth: u32,
    },
    /// Fixed nodes.
    Nodes {
        /// Nodes.
        nodes: u64,
    },
}

fn ms(d: Duration) -> u64 {
    u64::try_from(d.as_millis()).unwrap_or(u64::MAX)
}

impl From<TimeControl> for Limit {
    fn from(tc: TimeControl) -> Limit {
        match tc {
            TimeControl::MoveTime(t) => Limit::MoveTime { ms: ms(t) },
            TimeControl::Clock { base, inc } => Limit::Clock {
                base_ms: ms(base),
                inc_ms: ms(inc),
            },
            TimeControl::Depth(depth) => Limit::Depth { depth },
            TimeControl::Nodes(nodes) => Limit::Nodes { nodes },
        }
    }
}

impl From<Limit> for TimeControl {
    fn from(l: Limit) -> TimeControl {
        match l {
            Limit::MoveTime { ms } => TimeControl::MoveTime(Duration::from_millis(ms)),
            Limit::Clock { base_ms, inc_ms } => TimeControl::Clock {
                base: Duration::from_millis(base_ms),
                inc: Duration::from_millis(inc_ms),
            },
            Limit::Depth { depth } => TimeControl::Depth(depth),
            Limit::Nodes { nodes } => TimeControl::Nodes(nodes),
        }
    }
}

/// Two games of one opening, colours reversed: what a worker plays for a match.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct PairTask {
    /// The variant's Hub name.
    pub variant: String,
    /// The time control.
    pub limit: Limit,
    /// Overrun allowed past the clock, ms.
    pub margin_ms: u64,
    /// Depth and nodes games: how long a move may take before the engine counts as hung, ms.
    pub timeout_ms: u64,
    /// How long an engine may take to start, ms.
    pub startup_ms: u64,
    /// A draw at this many plies.
    pub max_plies: Option<usize>,
    /// Win adjudication: |score| in men and plies.
    pub win: Option<(f64, usize)>,
    /// Draw adjudication: |score| in men, plies, and the ply it starts at.
    pub draw: Option<(f64, usize, usize)>,
    /// The opening's start (FEN).
    pub start: String,
    /// The opening's moves from it (Hub notation).
    pub opening: Vec<String>,
    /// The engine with White in the first game (Black in the second), by name.
    pub first: String,
    /// The other engine, by name.
    pub second: String,
}

impl PairTask {
    /// Checks every field, as a worker does before it plays: the error says which.
    ///
    /// # Errors
    /// A field out of range: unknown variant, unreadable opening, an odd name.
    pub fn check(&self) -> Result<(Variant, Opening)> {
        let variant: Variant = self
            .variant
            .parse()
            .map_err(|_| anyhow::anyhow!("unknown variant {:?}", self.variant))?;
        for name in [&self.first, &self.second] {
            if name.is_empty()
                || name.len() > MAX_NAME
                || name.chars().any(|c| c.is_control() || c == '"')
            {
                bail!("engine name {name:?}: 1 to {MAX_NAME} plain characters");
            }
        }
        if self.first == self.second {
            bail!("an engine never plays itself");
        }
        match self.limit {
            Limit::Depth { depth } if !(1..=99).contains(&depth) => bail!("depth 1 to 99"),
            Limit::Nodes { nodes: 0 } | Limit::MoveTime { ms: 0 } => bail!("a zero limit"),
            _ => {}
        }
        if self.opening.len() > MAX_OPENING {
            bail!("more than {MAX_OPENING} opening moves");
        }
        let start = kroon_rules::parse_fen(&self.start, variant)
            .map_err(|e| anyhow::anyhow!("opening FEN: {e}"))?;
        let mut pos = start;
        let mut moves = Vec::new();
        for text in &self.opening {
            let mv = notation::parse_hub_move(&pos, text)
                .map_err(|e| anyhow::anyhow!("opening move {text}: {e}"))?;
            pos = pos.play(&mv);
            moves.push(mv);
        }
        Ok((variant, Opening { start, moves }))
    }

    fn settings(&self, variant: Variant) -> game::Settings {
        game::Settings {
            variant,
            tc: self.limit.into(),
            margin: Duration::from_millis(self.margin_ms),
            timeout: Duration::from_millis(self.timeout_ms),
            max_plies: self.max_plies,
            win: self.win,
            draw: self.draw.map(|(score, plies, after)| ScoreDraw {
                score,
                plies,
                after,
            }),
        }
    }
}

/// What an engine said about a move, as a record carries it.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct NoteRecord {
    /// Score in men.
    pub score: Option<f64>,
    /// Depth.
    pub depth: Option<u32>,
    /// Time taken, µs.
    pub us: u64,
}

/// Why a game ended, as a record carries it.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
pub struct EndRecord {
    /// [`Termination::tag`].
    pub tag: String,
    /// For the balance endgame rule: men and kings of each side.
    pub balance: Option<([u8; 2], [u8; 2])>,
}

const FAIL_KINDS: [FailKind; 6] = [
    FailKind::TimeForfeit,
    FailKind::Hang,
    FailKind::Crash,
    FailKind::IllegalMove,
    FailKind::Protocol,
    FailKind::Resigned,
];

const ENDGAME_RULES: [EndgameRule; 7] = [
    EndgameRule::Sixteen,
    EndgameRule::LongDiagonal,
    EndgameRule::Five,
    EndgameRule::TwoKingsAgainstOne,
    EndgameRule::KingAgainstKing,
    EndgameRule::ThreeKings,
    EndgameRule::MainRoad,
];

impl EndRecord {
    fn new(t: Termination) -> EndRecord {
        let balance = match t {
            Termination::Draw(DrawReason::Endgame(EndgameRule::Balance { men, kings })) => {
                Some((men, kings))
            }
            _ => None,
        };
        EndRecord {
            tag: t.tag().to_owned(),
            balance,
        }
    }

    fn termination(&self) -> Option<Termination> {
        if let Some((men, kings)) = self.balance {
            return Some(Termination::Draw(DrawReason::Endgame(
                EndgameRule::Balance { men, kings },
            )));
        }
        [
            Termination::Rules,
            Termination::MaxPlies,
            Termination::AdjudicatedWin,
            Termination::AdjudicatedDraw,
            Termination::Draw(DrawReason::Repetition),
            Termination::Draw(DrawReason::KingMoves),
        ]
        .into_iter()
        .chain(FAIL_KINDS.map(Termination::Failure))
        .chain(ENDGAME_RULES.map(|r| Termination::Draw(DrawReason::Endgame(r))))
        .find(|t| t.tag() == self.tag)
    }
}

/// A game played elsewhere.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct GameRecord {
    /// The engines' moves after the opening (Hub notation).
    pub moves: Vec<String>,
    /// One per engine move.
    pub notes: Vec<NoteRecord>,
    /// `1-0`, `0-1` or `1/2-1/2` (White's side, as [`GameResult::pdn`]).
    pub result: String,
    /// Why it ended.
    pub end: EndRecord,
    /// In words.
    pub reason: String,
    /// `white` or `black`: the side whose engine failed.
    pub culprit: Option<String>,
    /// The failing engine's last lines.
    pub lines: Vec<String>,
}

fn colour_name(c: Colour) -> &'static str {
    match c {
        Colour::White => "white",
        Colour::Black => "black",
    }
}

impl GameRecord {
    fn new(opening: &Opening, p: &Played) -> GameRecord {
        let mut pos = opening.position();
        let moves = p
            .moves
            .iter()
            .map(|mv| {
                let text = notation::hub(mv, pos.variant());
                pos = pos.play(mv);
                text
            })
            .collect();
        GameRecord {
            moves,
            notes: p
                .notes
                .iter()
                .map(|n| NoteRecord {
                    score: n.score,
                    depth: n.depth,
                    us: u64::try_from(n.elapsed.as_micros()).unwrap_or(u64::MAX),
                })
                .collect(),
            result: p.result.pdn().to_owned(),
            end: EndRecord::new(p.termination),
            reason: p.reason.clone(),
            culprit: p.culprit.map(|c| colour_name(c).to_owned()),
            lines: p.lines.clone(),
        }
    }

    /// The game, every move checked against the rules from the opening.
    fn played(&self, opening: &Opening) -> Result<Played> {
        let mut pos: Position = opening.position();
        let mut moves = Vec::with_capacity(self.moves.len());
        for text in &self.moves {
            let mv = notation::parse_hub_move(&pos, text)
                .map_err(|e| anyhow::anyhow!("move {} ({text}): {e}", moves.len() + 1))?;
            pos = pos.play(&mv);
            moves.push(mv);
        }
        let result = [
            GameResult::WhiteWins,
            GameResult::Draw,
            GameResult::BlackWins,
        ]
        .into_iter()
        .find(|r| r.pdn() == self.result)
        .with_context(|| format!("result {:?}", self.result))?;
        let termination = self
            .end
            .termination()
            .with_context(|| format!("termination {:?}", self.end.tag))?;
        let culprit = match self.culprit.as_deref() {
            None => None,
            Some("white") => Some(Colour::White),
            Some("black") => Some(Colour::Black),
            Some(other) => bail!("culprit {other:?}"),
        };
        Ok(Played {
            moves,
            notes: self
                .notes
                .iter()
                .map(|n| MoveNote {
                    score: n.score,
                    depth: n.depth,
                    elapsed: Duration::from_micros(n.us),
                })
                .collect(),
            result,
            termination,
            reason: self.reason.clone(),
            culprit,
            lines: self.lines.clone(),
        })
    }
}

/// The engines a worker plays, by name: its own settings, never the queue's.
#[derive(Clone, Debug, Default)]
pub struct EngineBook(HashMap<String, EngineSpec>);

impl EngineBook {
    /// Reads a file of engines, one `--engine` spec a line (`name=A cmd="kroon hub"
    /// option.hash=16`); blank lines and lines starting with `#` are skipped. Hub engines only.
    ///
    /// # Errors
    /// The file cannot be read, or a line is not a Hub engine spec (the error gives its number).
    pub fn load(path: &Path) -> Result<EngineBook> {
        let text = std::fs::read_to_string(path)
            .with_context(|| format!("reading the engines file {}", path.display()))?;
        EngineBook::parse(&text).with_context(|| format!("engines file {}", path.display()))
    }

    /// Reads the text of an engines file (see [`EngineBook::load`]).
    ///
    /// # Errors
    /// A line that is not a Hub engine spec.
    pub fn parse(text: &str) -> Result<EngineBook> {
        let mut book = HashMap::new();
        for (n, line) in text.lines().enumerate() {
            let line = line.trim();
            if line.is_empty() || line.starts_with('#') {
                continue;
            }
            let e = spec::parse_engine(&[line.to_owned()])
                .with_context(|| format!("line {}", n + 1))?;
            if !matches!(e.kind, EngineKind::Hub { .. }) {
                bail!("line {}: only Hub engines (cmd=) play queued games", n + 1);
            }
            book.insert(e.name.clone(), e);
        }
        Ok(EngineBook(book))
    }

    /// The engine called `name`.
    ///
    /// # Errors
    /// This book has no such engine.
    fn launch(&self, name: &str, variant: Variant, startup: Duration) -> Result<HubLaunch> {
        match self.0.get(name).map(|e| &e.kind) {
            Some(EngineKind::Hub {
                argv,
                dir,
                options,
                levels,
            }) => Ok(HubLaunch {
                argv: argv.clone(),
                dir: dir.clone(),
                options: options.clone(),
                level: crate::spec::level_line(levels),
                variant,
                startup,
            }),
            _ => bail!("this worker has no engine called {name:?} in its engines file"),
        }
    }
}

/// Engines a worker keeps running from one pair to the next, as a local match keeps them from one
/// game to the next: starting two processes for every pair was most of what a queued pair cost
/// over a local one.
#[derive(Default)]
pub struct EnginePool(Vec<(HubLaunch, HubEngine)>);

impl EnginePool {
    /// At most this many engines kept: a worker of one match needs two.
    const KEEP: usize = 4;

    /// A running engine started as `launch`, if one is kept.
    fn take(&mut self, launch: &HubLaunch) -> Option<HubEngine> {
        let i = self.0.iter().position(|(l, _)| l == launch)?;
        Some(self.0.remove(i).1)
    }

    /// Keeps `engine` for a later pair; the engine kept longest goes when there are too many.
    fn keep(&mut self, launch: HubLaunch, engine: HubEngine) {
        if self.0.len() >= Self::KEEP {
            self.0.remove(0);
        }
        self.0.push((launch, engine));
    }
}

/// Plays a pair on this machine: the first engine with White, then with Black, with engines from
/// `kept` where it has them (and they go back there after the pair). `Ok(None)` when `stop` was
/// set during a game.
///
/// # Errors
/// The task is malformed, or names an engine the book lacks.
pub fn play_pair(
    task: &PairTask,
    book: &EngineBook,
    kept: &mut EnginePool,
    stop: &AtomicBool,
) -> Result<Option<Vec<GameRecord>>> {
    let (variant, opening) = task.check()?;
    let startup = Duration::from_millis(task.startup_ms);
    let launches = [
        book.launch(&task.first, variant, startup)?,
        book.launch(&task.second, variant, startup)?,
    ];
    let settings = task.settings(variant);
    let mut pool: [Option<HubEngine>; 2] = [kept.take(&launches[0]), kept.take(&launches[1])];
    let mut records = Vec::new();
    for (white, black) in [(0, 1), (1, 0)] {
        let mut forfeit = None;
        for (i, side) in [(white, Colour::White), (black, Colour::Black)] {
            if pool[i].is_none() && forfeit.is_none() {
                match HubEngine::start(&launches[i]) {
                    Ok(h) => pool[i] = Some(h),
                    Err(f) => forfeit = Some(runner::forfeit(variant, side, f)),
                }
            }
        }
        let played = match forfeit {
            Some(p) => p,
            None => {
                let [a, b] = &mut pool;
                let (Some(a), Some(b)) = (a.as_mut(), b.as_mut()) else {
                    unreachable!("both engines were started above");
                };
                let (w, bl): (&mut dyn Player, &mut dyn Player) =
                    if white == 0 { (a, b) } else { (b, a) };
                match game::play(&opening, w, bl, &settings, stop) {
                    Some(p) => p,
                    None => return Ok(None),
                }
            }
        };
        for slot in &mut pool {
            if slot.as_ref().is_some_and(Player::is_broken) {
                *slot = None;
            }
        }
        records.push(GameRecord::new(&opening, &played));
    }
    for (launch, engine) in launches.into_iter().zip(pool) {
        if let Some(engine) = engine {
            kept.keep(launch, engine);
        }
    }
    Ok(Some(records))
}

/// What [`Match::play_remote`] asks of the queue.
pub trait Courier {
    /// Sends the pairs (index in schedule order, task) that have no result yet.
    ///
    /// # Errors
    /// The queue refused them.
    fn issue(&mut self, tasks: &[(usize, PairTask)]) -> Result<()>;

    /// The next pair played, in any order: its index and games; `None` when the match should
    /// stop (Ctrl-C). A pair whose games do not check is passed to [`Courier::reject`].
    ///
    /// # Errors
    /// The queue failed, or a pair failed on every worker that tried it.
    fn next(&mut self) -> Result<Option<(usize, Vec<GameRecord>)>>;

    /// The games of pair `index` did not check: the queue should have it played again.
    ///
    /// # Errors
    /// The pair failed too often.
    fn reject(&mut self, index: usize, why: &str) -> Result<()>;
}

impl Match {
    /// The schedule's game pairs as tasks, in schedule order.
    ///
    /// # Errors
    /// A DXP engine (a server this machine reaches, and a worker elsewhere may not). Hub engines
    /// and engines given by name alone are named in the tasks; their commands stay here.
    pub fn pair_tasks(&self) -> Result<Vec<PairTask>> {
        let plan = &self.plan;
        if let Some(e) = plan
            .engines
            .iter()
            .find(|e| matches!(e.kind, EngineKind::Dxp { .. }))
        {
            bail!("{}: only Hub engines play queued games", e.name);
        }
        let s = &plan.settings;
        let jobs = runner::schedule(plan);
        Ok(jobs
            .chunks(2)
            .map(|pair| {
                let j = pair[0];
                let opening = &plan.openings[j.opening];
                let mut pos = opening.start;
                PairTask {
                    variant: s.variant.hub_name().to_owned(),
                    limit: s.tc.into(),
                    margin_ms: ms(s.margin),
                    timeout_ms: ms(s.timeout),
                    startup_ms: ms(plan.startup),
                    max_plies: s.max_plies,
                    win: s.win,
                    draw: s.draw.map(|d| (d.score, d.plies, d.after)),
                    start: kroon_rules::write_fen(&opening.start),
                    opening: opening
                        .moves
                        .iter()
                        .map(|mv| {
                            let text = notation::hub(mv, s.variant);
                            pos = pos.play(mv);
                            text
                        })
                        .collect(),
                    first: plan.engines[j.white].name.clone(),
                    second: plan.engines[j.black].name.clone(),
                }
            })
            .collect())
    }

    /// Plays the match through `courier`: issues the pairs, records the games as they come, in
    /// schedule order (so the table, PDN, JSON and SPRT are those of the local run on one
    /// thread), and stops when the schedule is done or the SPRT decides.
    ///
    /// # Errors
    /// The courier failed, or the PDN or JSON file cannot be written.
    pub fn play_remote(&self, courier: &mut dyn Courier) -> Result<Report> {
        let plan = &self.plan;
        let jobs: Vec<Job> = runner::schedule(plan);
        let tasks = self.pair_tasks()?;
        let total = jobs.len();
        let mut out = Output::new(plan, total)?;
        courier.issue(&tasks.iter().cloned().enumerate().collect::<Vec<_>>())?;
        let mut waiting: BTreeMap<usize, Vec<Played>> = BTreeMap::new();
        let mut next = 0;
        let mut games = Vec::new();
        let mut decided = None;
        let mut interrupted = false;
        'pairs: while next < tasks.len() {
            let Some((index, records)) = courier.next()? else {
                interrupted = true;
                break;
            };
            if index < next || waiting.contains_key(&index) || index >= tasks.len() {
                continue; // counted already
            }
            let opening = &plan.openings[jobs[2 * index].opening];
            let checked: Result<Vec<Played>> = if records.len() == 2 {
                records.iter().map(|r| r.played(opening)).collect()
            } else {
                Err(anyhow::anyhow!("{} games where 2 were due", records.len()))
            };
            match checked {
                Ok(played) => {
                    waiting.insert(index, played);
                }
                Err(e) => {
                    courier.reject(index, &format!("{e:#}"))?;
                    continue;
                }
            }
            while let Some(played) = waiting.remove(&next) {
                for (k, p) in played.into_iter().enumerate() {
                    let f = Finished {
                        job: jobs[2 * next + k],
                        played: p,
                    };
                    games.push(GameReport::new(plan, &f));
                    if let Some(d) = out.game(plan, &f)? {
                        if d != Decision::Continue {
                            decided = Some(d);
                            break 'pairs;
                        }
                    }
                }
                next += 1;
            }
        }
        let note = match decided {
            Some(d) => Some(format!("match stopped: SPRT {d}")),
            None if interrupted => Some("match stopped".to_owned()),
            None => None,
        };
        out.finish(plan, note.as_deref())?;
        Ok(Report {
            scheduled: total,
            games,
            stopped: decided.map(Stopped::Sprt),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::MatchArgs;

    #[test]
    fn every_ending_reads_back_from_its_record() {
        let endings = [
            Termination::Rules,
            Termination::MaxPlies,
            Termination::AdjudicatedWin,
            Termination::AdjudicatedDraw,
            Termination::Draw(DrawReason::Repetition),
            Termination::Draw(DrawReason::KingMoves),
            Termination::Draw(DrawReason::Endgame(EndgameRule::Balance {
                men: [2, 1],
                kings: [0, 1],
            })),
        ]
        .into_iter()
        .chain(FAIL_KINDS.map(Termination::Failure))
        .chain(ENDGAME_RULES.map(|r| Termination::Draw(DrawReason::Endgame(r))));
        for t in endings {
            assert_eq!(EndRecord::new(t).termination(), Some(t), "{}", t.tag());
        }
        let unknown = EndRecord {
            tag: "resigned politely".into(),
            balance: None,
        };
        assert_eq!(unknown.termination(), None);
    }

    #[test]
    fn a_game_record_is_checked_move_by_move() {
        let opening = Opening {
            start: Position::initial(Variant::International),
            moves: Vec::new(),
        };
        let record = |moves: &[&str]| GameRecord {
            moves: moves.iter().map(|m| (*m).to_owned()).collect(),
            notes: Vec::new(),
            result: "1-1".into(),
            end: EndRecord::new(Termination::MaxPlies),
            reason: String::new(),
            culprit: None,
            lines: Vec::new(),
        };
        let played = record(&["32-28", "19-23"]).played(&opening).unwrap();
        assert_eq!(played.moves.len(), 2);
        assert_eq!(GameRecord::new(&opening, &played).moves, ["32-28", "19-23"]);
        // Black cannot move first, nor a white man backwards.
        assert!(record(&["19-23"]).played(&opening).is_err());
        assert!(record(&["32-28", "19-23", "28-32"])
            .played(&opening)
            .is_err());
    }

    #[test]
    fn an_engines_file_names_hub_engines_only() {
        let book = EngineBook::parse(
            "# mine\n\nname=A cmd=\"kroon hub\" option.hash=16\nname=B cmd=\"/opt/b hub\"\n",
        )
        .unwrap();
        let a = book
            .launch("A", Variant::International, Duration::ZERO)
            .unwrap();
        assert_eq!(a.argv, ["kroon", "hub"]);
        assert_eq!(a.options, [("hash".to_owned(), "16".to_owned())]);
        assert!(book
            .launch("C", Variant::International, Duration::ZERO)
            .is_err());
        assert!(EngineBook::parse("name=D dxp=127.0.0.1:27531\n").is_err());
        // A worker must know how to start its engines: a name alone is no engine for it.
        assert!(EngineBook::parse("name=E\n").is_err());
    }

    #[test]
    fn engines_given_by_name_alone_play_queued_matches_only() {
        let words = |queue: bool| {
            let mut w = vec![
                "--engine", "name=new", "--engine", "name=old", "--games", "4",
            ];
            if queue {
                w.extend(["--queue", "redis://127.0.0.1:1/0"]);
            }
            MatchArgs::from_words(w).unwrap()
        };
        let err = Match::new(words(false), "normal").unwrap_err().to_string();
        assert!(err.contains("engine new: needs cmd="), "{err}");
        assert!(err.contains("--queue"), "{err}");
        let m = Match::new(words(true), "normal").unwrap();
        let tasks = m.pair_tasks().unwrap();
        assert_eq!(tasks.len(), 2);
        assert!(tasks
            .iter()
            .all(|t| (t.first.as_str(), t.second.as_str()) == ("new", "old")));
        // A DXP engine is a server this machine reaches; a worker elsewhere may not.
        let dxp = MatchArgs::from_words([
            "--engine",
            "name=new",
            "--engine",
            "dxp=127.0.0.1:27531",
            "--queue",
            "redis://127.0.0.1:1/0",
        ])
        .unwrap();
        assert!(Match::new(dxp, "normal").unwrap().pair_tasks().is_err());
    }
}
