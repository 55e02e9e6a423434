//! The Hub session: the state machine between parsed Hub lines and the engine. It owns the
//! settings (`param` / `set-param`, applied at `init`), the position and level of the next search,
//! and starts searches whose events it formats as `info` and `done` lines (Scan 3.1 `protocol.txt`).
//!
//! The session does no I/O of its own. Lines go in through [`Session::handle_line`]; replies go out
//! through a [`Sink`], one whole line per call, from the caller's thread and from the search thread
//! alike. The binary wires stdin (on a reader thread, so that `ping`, `stop` and `ponder-hit` are
//! served while a search runs) and stdout; tests wire a channel.
//!
//! Choices the protocol leaves open, made here:
//! - Every `go` is answered by exactly one `done`. A `go` that cannot run (no position, or the last
//!   `pos` was refused) answers `error message="..."` and then a bare `done`, so a GUI waiting for
//!   the end of the search is never left hanging. A position without a legal move (game over; Hub
//!   says GUIs never send one) answers a bare `done` at once, in every mode.
//! - `pos` with no `pos=` (bare, `pos start`, `pos moves="..."`) starts from the variant's start
//!   position, as Scan. A refused `pos` (bad position text, a bad move in `moves=`, or a line
//!   that does not parse) forgets the position: a later `go` must not search something the GUI
//!   did not ask for.
//! - `level` keys add up, as in Scan: each `level` line changes only the keys it names, and `pos`
//!   and `go` reset them all; with none set, searches are infinite. Every limit set applies, in
//!   `go analyze` too; the first reached ends the search. `moves=0` means no control ahead;
//!   negative clock values read as 0. `handicap=N` (0-3) weakens play and `ply=N` caps the
//!   depth, as lidraughts' Scan reads them.
//! - `go ponder` searches the position given: Hub's GUI has already played the expected reply in it.
//!   The level's clock starts at `ponder-hit`; a ponder search that ends early holds its `done`
//!   until `ponder-hit` or `stop`.
//! - Commands Hub only allows between searches (`go`, `init`, `new-game`) end a running search
//!   first, as `stop` would, and its `done` is sent before anything else. `pos`, `level`,
//!   `set-param` and `hub` only prepare the next search and leave the running one alone.
//! - `new-game` clears the table and forgets the position and its history.
//! - `set-param` is taken at any time; `threads`, `hash` and `egdb-path` (a directory of Kroon's
//!   endgame tables, an extension; empty for none) take effect at the next `init` or `go`.
//!   Unknown parameters and commands are ignored (logged at debug level, never on stdout).
//! - `book` and `book-margin` (Scan's parameters) choose whether the engine plays from the book
//!   the session was given and within what margin of the best book move (centi-men) it picks.
//!   The engine answers a book position with the book move at once, no `info` line; `go analyze`
//!   and `go ponder` always search.
//! - `info` carries `depth`, `seldepth` (an extra key, which Hub allows; the codec has no field for
//!   it), `score` in men, `nodes`, `time`, `nps` in millions and the PV in long Hub notation.

use std::io::Write;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use kroon_rules::{parse_fen, parse_hub, Game, Move, Position, Variant};
use kroon_search::{
    score, BookPlay, BookProbe, Bounds, EndgameTables, Engine, EvalKind, Event, Limits,
    SearchRequest, SearchResult, Weights,
};

use super::codec::{parse, GoMode, HubCommand, HubError, HubReply, Info, LevelKeys, ParamKind};
use super::numbering::{read_move, write_move};

// ---- output ------------------------------------------------------------------------------------

/// Where reply lines go. Each call carries one whole line without its line ending; an
/// implementation must write it atomically (no other line may interleave) and make it visible to
/// the GUI at once, since both the session and the search thread call it.
pub trait Sink: Send + Sync {
    /// Sends one protocol line.
    fn line(&self, line: &str);
}

/// A [`Sink`] over any writer: each line is written with its `\n` and flushed under one lock.
#[derive(Debug)]
pub struct WriterSink<W> {
    inner: Mutex<W>,
}

impl<W: Write + Send> WriterSink<W> {
    /// Wraps `writer` (for the binary, `std::io::stdout()`).
    pub fn new(writer: W) -> WriterSink<W> {
        WriterSink {
            inner: Mutex::new(writer),
        }
    }
}

impl<W: Write + Send> Sink for WriterSink<W> {
    fn line(&self, line: &str) {
        debug_assert!(!line.contains('\n'), "a Hub line holds no line break");
        // A panic elsewhere while holding the lock leaves the writer usable: lines are whole.
        let mut w = self.inner.lock().unwrap_or_else(PoisonError::into_inner);
        let written = w
            .write_all(line.as_bytes())
            .and_then(|()| w.write_all(b"\n"))
            .and_then(|()| w.flush());
        if let Err(e) = written {
            // The GUI is gone; stdin will reach its end and the session will quit.
            tracing::debug!("cannot write a Hub line: {e}");
        }
    }
}

// ---- settings ----------------------------------------------------------------------------------

/// Who the engine says it is in its `id` line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Identity {
    /// Engine name.
    pub name: String,
    /// Engine version.
    pub version: String,
    /// Author(s).
    pub author: String,
    /// Country.
    pub country: String,
}

impl Identity {
    /// Kroon's identity with the given version.
    #[must_use]
    pub fn kroon(version: &str) -> Identity {
        Identity {
            name: "Kroon".into(),
            version: version.into(),
            author: "Kroon developers".into(),
            country: "NL".into(),
        }
    }
}

/// The engine settings a GUI can see and change, one `param` line each.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Settings {
    /// Rules of the positions read by `pos`.
    pub variant: Variant,
    /// Search threads, within [`Settings::THREADS`].
    pub threads: usize,
    /// Transposition table in MiB, within [`Settings::HASH`].
    pub hash: usize,
    /// Whether the engine may be asked to ponder. Informational: the GUI decides, by sending
    /// `go ponder`, and the engine ponders when asked.
    pub ponder: bool,
    /// The evaluation: the learned weights (where the variant has them) or the hand-set one.
    pub eval: EvalKind,
    /// Directory of the endgame tables (`egdb-path`); empty for none.
    pub egdb_path: String,
    /// Best lines per iteration, within [`Settings::MULTIPV`]: a Kroon extension, not declared
    /// by `param` (GUIs that do not know it never send it). Above 1, each `info` line carries
    /// `multipv=K` and one line.
    pub multipv: usize,
    /// Play from the book (when the session has one for the variant).
    pub book: bool,
    /// Pick among the book moves within this many centi-men of the best, within
    /// [`Settings::BOOK_MARGIN`].
    pub book_margin: i32,
}

impl Default for Settings {
    fn default() -> Settings {
        Settings {
            variant: Variant::International,
            threads: 1,
            hash: 64,
            ponder: false,
            eval: EvalKind::Learned,
            egdb_path: String::new(),
            multipv: 1,
            book: false,
            book_margin: 4,
        }
    }
}

impl Settings {
    /// The `threads` range declared to the GUI.
    pub const THREADS: (usize, usize) = (1, 64);
    /// The `hash` range (MiB) declared to the GUI.
    pub const HASH: (usize, usize) = (1, 65_536);
    /// The `multipv` range.
    pub const MULTIPV: (usize, usize) = (1, 64);
    /// The `book-margin` range (centi-men).
    pub const BOOK_MARGIN: (usize, usize) = (0, 100);

    /// The same settings with `threads` and `hash` brought into their declared ranges.
    #[must_use]
    pub fn clamped(mut self) -> Settings {
        self.threads = self.threads.clamp(Self::THREADS.0, Self::THREADS.1);
        self.hash = self.hash.clamp(Self::HASH.0, Self::HASH.1);
        let (low, high) = Self::BOOK_MARGIN;
        self.book_margin = self.book_margin.clamp(
            i32::try_from(low).unwrap_or(0),
            i32::try_from(high).unwrap_or(i32::MAX),
        );
        self
    }

    /// One `param` line per setting, with the current values.
    #[must_use]
    pub fn params(&self) -> Vec<HubReply> {
        let int = |(min, max): (usize, usize)| ParamKind::Int {
            min: i64::try_from(min).unwrap_or(i64::MAX),
            max: i64::try_from(max).unwrap_or(i64::MAX),
        };
        vec![
            HubReply::Param {
                name: "variant".into(),
                value: self.variant.hub_name().into(),
                kind: ParamKind::Enum(
                    Variant::ALL
                        .iter()
                        .map(|v| v.hub_name().to_owned())
                        .collect(),
                ),
            },
            HubReply::Param {
                name: "threads".into(),
                value: self.threads.to_string(),
                kind: int(Self::THREADS),
            },
            HubReply::Param {
                name: "hash".into(),
                value: self.hash.to_string(),
                kind: int(Self::HASH),
            },
            HubReply::Param {
                name: "ponder".into(),
                value: self.ponder.to_string(),
                kind: ParamKind::Bool,
            },
            HubReply::Param {
                name: "eval".into(),
                value: self.eval.name().into(),
                kind: ParamKind::Enum(EvalKind::ALL.iter().map(|k| k.name().to_owned()).collect()),
            },
            HubReply::Param {
                name: "egdb-path".into(),
                value: self.egdb_path.clone(),
                kind: ParamKind::String,
            },
            HubReply::Param {
                name: "book".into(),
                value: self.book.to_string(),
                kind: ParamKind::Bool,
            },
            HubReply::Param {
                name: "book-margin".into(),
                value: self.book_margin.to_string(),
                kind: int(Self::BOOK_MARGIN),
            },
        ]
    }

    /// Applies `set-param name=... value=...`. Returns whether the name is known; an unknown
    /// name changes nothing (Hub says to ignore it).
    ///
    /// # Errors
    /// A message for the GUI when the value does not fit the parameter; nothing changes then.
    pub fn set(&mut self, name: &str, value: &str) -> Result<bool, String> {
        let value = value.trim();
        match name {
            "variant" => {
                // Only the variants declared in the `param` line, whatever else the rules know.
                let names = || {
                    let names: Vec<_> = Variant::ALL.iter().map(|v| v.hub_name()).collect();
                    names.join(", ")
                };
                self.variant = value
                    .parse()
                    .ok()
                    .filter(|v| Variant::ALL.contains(v))
                    .ok_or_else(|| {
                        format!("'variant' takes one of {}, not '{}'", names(), clip(value))
                    })?;
            }
            "threads" => self.threads = whole_in(name, value, Self::THREADS)?,
            "eval" => {
                // lidraughts' Scan names its evaluations `pattern` (full) and `pst` (the weak
                // piece-square one); they read as Kroon's learned and hand evaluations.
                let name = match value {
                    "pattern" => "learned",
                    "pst" => "hand",
                    other => other,
                };
                self.eval = name.parse().map_err(|_| {
                    format!(
                        "'eval' takes learned, hand, pattern or pst, not '{}'",
                        clip(value)
                    )
                })?;
            }
            "hash" => self.hash = whole_in(name, value, Self::HASH)?,
            "egdb-path" => value.clone_into(&mut self.egdb_path),
            "multipv" => self.multipv = whole_in(name, value, Self::MULTIPV)?,
            "ponder" => self.ponder = boolean(name, value)?,
            "book" => self.book = boolean(name, value)?,
            "book-margin" => {
                let margin = whole_in(name, value, Self::BOOK_MARGIN)?;
                self.book_margin = i32::try_from(margin).unwrap_or(0);
            }
            _ => return Ok(false),
        }
        Ok(true)
    }
}

fn boolean(name: &str, value: &str) -> Result<bool, String> {
    match value.to_ascii_lowercase().as_str() {
        "true" | "1" | "yes" | "on" => Ok(true),
        "false" | "0" | "no" | "off" => Ok(false),
        _ => Err(format!(
            "'{name}' takes true or false, not '{}'",
            clip(value)
        )),
    }
}

fn whole_in(name: &str, value: &str, (min, max): (usize, usize)) -> Result<usize, String> {
    match value.parse::<usize>() {
        Ok(n) if (min..=max).contains(&n) => Ok(n),
        _ => Err(format!(
            "'{name}' takes a whole number from {min} to {max}, not '{}'",
            clip(value)
        )),
    }
}

/// Input echoed in an error message, cut short so that a runaway line stays readable.
fn clip(text: &str) -> String {
    const MAX: usize = 64;
    match text.char_indices().nth(MAX) {
        Some((cut, _)) => format!("{}...", &text[..cut]),
        None => text.to_owned(),
    }
}

// ---- session -----------------------------------------------------------------------------------

/// Whether the caller should go on reading lines.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Flow {
    /// Read the next line.
    Continue,
    /// `quit` was handled (any search is over): exit.
    Quit,
}

/// The position of the next search, as the last `pos` left it.
#[derive(Clone, Debug)]
enum Setup {
    /// No `pos` yet, or `new-game` since.
    Missing,
    /// The last `pos` was refused, for this reason.
    Refused(String),
    /// The game from the `pos` position through its `moves=`.
    Ready(Game),
}

/// Seconds beyond this are treated as this (about 31 years): no `Duration` overflow downstream.
const MAX_SECONDS: f64 = 1e9;

/// A Hub session; see the module documentation for its behaviour.
pub struct Session {
    id: Identity,
    settings: Settings,
    out: Arc<dyn Sink>,
    /// Made at `init`, or at the first `go` when a GUI skips `init`.
    engine: Option<Engine>,
    setup: Setup,
    /// The `level` keys since the last `pos` or `go`.
    level: LevelKeys,
    /// The mode of the search started last; `ponder-hit` turns `Ponder` into `Think`.
    mode: Option<GoMode>,
    /// The weights `eval=learned` plays with, per variant (a variant without: the hand evaluation).
    learned: Vec<Arc<Weights>>,
    /// Opens the endgame tables of a directory (`egdb-path`); none: the parameter has no effect.
    open_tables: Option<Box<TableOpener>>,
    /// The directory whose tables the engine has now.
    tables_path: String,
    /// The book `book=true` plays from (it answers only for the variants it has).
    book: Option<Arc<dyn BookProbe>>,
}

/// Opens the endgame tables of a directory, or says why it cannot.
pub type TableOpener = dyn Fn(&str) -> Result<Arc<dyn EndgameTables>, String> + Send;

impl std::fmt::Debug for Session {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Session")
            .field("settings", &self.settings)
            .field("engine", &self.engine)
            .field("setup", &self.setup)
            .field("level", &self.level)
            .field("mode", &self.mode)
            .finish_non_exhaustive()
    }
}

impl Session {
    /// A session that answers to `out`, with `settings` as the declared defaults.
    #[must_use]
    pub fn new(id: Identity, settings: Settings, out: Arc<dyn Sink>) -> Session {
        Session {
            id,
            settings: settings.clamped(),
            out,
            engine: None,
            setup: Setup::Missing,
            level: LevelKeys::default(),
            mode: None,
            learned: Vec::new(),
            open_tables: None,
            tables_path: String::new(),
            book: None,
        }
    }

    /// Probes endgame tables opened by `open` from the directory `egdb-path` names.
    #[must_use]
    pub fn with_table_opener(mut self, open: Box<TableOpener>) -> Session {
        self.open_tables = Some(open);
        self
    }

    /// Plays from `book` while the `book` parameter is on.
    #[must_use]
    pub fn with_book(mut self, book: Arc<dyn BookProbe>) -> Session {
        self.book = Some(book);
        self
    }

    /// Plays `eval=learned` with `weights`, each for its variant (other variants get the hand
    /// evaluation).
    #[must_use]
    pub fn with_learned_weights(mut self, weights: Vec<Arc<Weights>>) -> Session {
        self.learned = weights;
        self
    }

    /// The current settings (after any `set-param`).
    #[must_use]
    pub fn settings(&self) -> &Settings {
        &self.settings
    }

    /// Handles one line from the GUI. Malformed lines are answered with `error message="..."`;
    /// blank lines are ignored.
    pub fn handle_line(&mut self, line: &str) -> Flow {
        match parse(line) {
            Ok(cmd) => self.handle(cmd),
            Err(HubError::Empty) => Flow::Continue,
            Err(e) => {
                self.error(&e.to_string());
                // A `pos` that cannot be read leaves no position behind, and no level.
                if line.split_whitespace().next() == Some("pos") {
                    self.setup = Setup::Refused(e.to_string());
                    self.level = LevelKeys::default();
                }
                Flow::Continue
            }
        }
    }

    /// Handles one parsed command.
    pub fn handle(&mut self, cmd: HubCommand) -> Flow {
        match cmd {
            HubCommand::Hub => self.announce(),
            HubCommand::Init => {
                self.finish_search();
                self.ready_engine();
                self.send(&HubReply::Ready);
            }
            HubCommand::NewGame => {
                self.finish_search();
                if let Some(engine) = &mut self.engine {
                    engine.new_game();
                }
                self.setup = Setup::Missing;
            }
            HubCommand::Ping => self.send(&HubReply::Pong),
            HubCommand::Stop => {
                if let Some(engine) = &self.engine {
                    if engine.is_searching() {
                        engine.stop();
                    }
                }
            }
            HubCommand::PonderHit => {
                if self.mode == Some(GoMode::Ponder) {
                    if let Some(engine) = &self.engine {
                        engine.ponder_hit();
                    }
                    self.mode = Some(GoMode::Think);
                }
            }
            HubCommand::Quit => {
                self.finish_search();
                return Flow::Quit;
            }
            HubCommand::SetParam { name, value } => match self.settings.set(&name, &value) {
                Ok(true) => tracing::debug!("set-param {name}={value}"),
                Ok(false) => tracing::debug!("set-param: unknown parameter '{name}' ignored"),
                Err(message) => self.error(&message),
            },
            HubCommand::Pos { pos, moves } => {
                self.set_position(pos.as_deref(), &moves);
                self.level = LevelKeys::default();
            }
            HubCommand::Level(keys) => merge_level(&mut self.level, &keys),
            HubCommand::Go(mode) => {
                self.finish_search();
                self.go(mode);
            }
            HubCommand::Unknown(word) => tracing::debug!("unknown Hub command '{word}' ignored"),
        }
        Flow::Continue
    }

    /// Ends any running search (its `done` is sent) and waits for it. Call before exiting.
    pub fn finish_search(&mut self) {
        if let Some(engine) = &self.engine {
            if engine.is_searching() {
                engine.stop();
            }
            engine.wait();
        }
        self.mode = None;
    }

    fn send(&self, reply: &HubReply) {
        self.out.line(&reply.to_string());
    }

    fn error(&self, message: &str) {
        tracing::debug!("Hub error: {message}");
        self.send(&HubReply::Error(message.to_owned()));
    }

    fn announce(&self) {
        self.send(&HubReply::Id {
            name: self.id.name.clone(),
            version: self.id.version.clone(),
            author: self.id.author.clone(),
            country: self.id.country.clone(),
        });
        for param in self.settings.params() {
            self.send(&param);
        }
        self.send(&HubReply::Wait);
    }

    /// Makes the engine, or brings it to the current settings (a no-op when they are unchanged).
    fn ready_engine(&mut self) -> &mut Engine {
        let Settings {
            threads,
            hash,
            eval,
            variant,
            multipv,
            book,
            book_margin,
            ..
        } = self.settings;
        let weights = self.learned.iter().find(|w| w.variant() == variant);
        let play = match &self.book {
            Some(probe) if book => Some(BookPlay::new(Arc::clone(probe), book_margin)),
            _ => None,
        };
        let engine = self
            .engine
            .get_or_insert_with(|| Engine::new(threads, hash));
        engine.configure(threads, hash);
        engine.set_eval(eval.with(weights));
        let path = &self.settings.egdb_path;
        if *path != self.tables_path {
            self.tables_path.clone_from(path);
            let tables = match (&self.open_tables, path.is_empty()) {
                (Some(open), false) => match open(path) {
                    Ok(t) => Some(t),
                    Err(message) => {
                        let reply = HubReply::Error(message);
                        self.out.line(&reply.to_string());
                        None
                    }
                },
                _ => None,
            };
            engine.set_tables(tables);
        }
        engine.set_multipv(multipv);
        engine.set_book(play);
        engine
    }

    fn set_position(&mut self, text: Option<&str>, moves: &[String]) {
        self.setup = match read_game(text, moves, self.settings.variant) {
            Ok(game) => Setup::Ready(game),
            Err(message) => {
                self.error(&message);
                Setup::Refused(message)
            }
        };
    }

    fn go(&mut self, mode: GoMode) {
        let game = match &self.setup {
            Setup::Ready(game) => game.clone(),
            Setup::Missing => {
                self.error("'go' needs a position: send 'pos' first");
                self.send(&HubReply::Done {
                    mv: None,
                    ponder: None,
                });
                return;
            }
            Setup::Refused(why) => {
                let message = format!("'go' has no position, as the last 'pos' was refused: {why}");
                self.error(&message);
                self.send(&HubReply::Done {
                    mv: None,
                    ponder: None,
                });
                return;
            }
        };
        let root = *game.position();
        if root.legal_moves().is_empty() {
            tracing::debug!("go: the side to move has no legal move");
            self.send(&HubReply::Done {
                mv: None,
                ponder: None,
            });
            return;
        }
        // Scan resets the level after each search, as at `pos`.
        let level = std::mem::take(&mut self.level);
        let limits = limits(&level);
        let handicap = match mode {
            GoMode::Analyze => 0,
            GoMode::Think | GoMode::Ponder => level.handicap.unwrap_or(0),
        };
        let req = SearchRequest {
            game,
            limits,
            ponder: mode == GoMode::Ponder,
        };
        let out = Arc::clone(&self.out);
        let numbered = self.settings.multipv > 1;
        let engine = self.ready_engine();
        engine.set_handicap(handicap);
        engine.go(req, move |event| match event {
            // Lines beyond the first are the handicap's choice unless the GUI asked for them.
            Event::Iteration(info) if !numbered && info.multipv > 1 => {}
            Event::Iteration(info) => out.line(&info_line(&info, root.variant(), numbered)),
            Event::Done(result) => out.line(&done(&result, &root).to_string()),
        });
        self.mode = Some(mode);
    }
}

impl Drop for Session {
    fn drop(&mut self) {
        self.finish_search();
    }
}

// ---- translation -------------------------------------------------------------------------------

/// Reads `pos pos=... moves="..."`: a Hub position (or a PDN FEN, as other Hub engines accept),
/// then each move, checked against the rules and played, so that the search sees the history.
/// No `pos=` is the variant's start position.
fn read_game(text: Option<&str>, moves: &[String], variant: Variant) -> Result<Game, String> {
    let start = match text {
        None => Position::initial(variant),
        Some(text) => {
            let parsed = if text.contains(':') {
                parse_fen(text, variant)
            } else {
                parse_hub(text, variant)
            };
            parsed.map_err(|e| format!("bad position '{}': {e}", clip(text)))?
        }
    };
    let mut game = Game::new(start);
    for (i, text) in moves.iter().enumerate() {
        let mv = read_move(game.position(), text)
            .map_err(|e| format!("move {} in 'moves': {e}", i + 1))?;
        game.play(&mv)
            .map_err(|e| format!("move {} in 'moves': {e}", i + 1))?;
    }
    Ok(game)
}

fn seconds(s: f64) -> Duration {
    // The codec guarantees finite non-negative seconds; the clamp only bounds them.
    Duration::from_secs_f64(s.clamp(0.0, MAX_SECONDS))
}

/// Applies one `level` line to the keys in force, as Scan does: each key named replaces its
/// value; a clock key (`moves`, `time`, `inc`) sets the whole clock, the others at Scan's
/// defaults (no control, 30 s, no increment); `infinite` clears every limit first.
pub fn merge_level(level: &mut LevelKeys, keys: &LevelKeys) {
    if keys.infinite {
        *level = LevelKeys::default();
    }
    fn keep<T>(old: &mut Option<T>, new: Option<T>) {
        if new.is_some() {
            *old = new;
        }
    }
    keep(&mut level.depth, keys.depth);
    keep(&mut level.nodes, keys.nodes);
    keep(&mut level.move_time, keys.move_time);
    keep(&mut level.handicap, keys.handicap);
    keep(&mut level.ply, keys.ply);
    if keys.has_clock() {
        level.moves = Some(keys.moves.unwrap_or(0));
        level.time = Some(keys.time.unwrap_or(30.0));
        level.inc = Some(keys.inc.unwrap_or(0.0));
    }
}

/// The search limits of the `level` keys in force (seconds as reals): every one set applies.
#[must_use]
pub fn limits(level: &LevelKeys) -> Limits {
    let depth = match (level.depth, level.ply) {
        (Some(d), Some(p)) => Some(d.min(p)),
        (d, p) => d.or(p),
    };
    let bounds = Bounds {
        depth,
        nodes: level.nodes,
        move_time: level.move_time.map(seconds),
        // Hub adds the increment before every move; the time manager already spends most of the
        // increment on each move, so `left` stays the time the GUI shows and the hard limit
        // stays within it. `moves=0`: no control ahead (Scan).
        clock: level.time.map(|time| {
            (
                seconds(time),
                seconds(level.inc.unwrap_or(0.0)),
                level.moves.filter(|&m| m > 0),
            )
        }),
    };
    if bounds == Bounds::default() {
        Limits::Infinite
    } else {
        Limits::Combined(bounds)
    }
}

fn pv_text(pv: &[Move], variant: Variant) -> String {
    pv.iter()
        .map(|mv| write_move(mv, variant))
        .collect::<Vec<_>>()
        .join(" ")
}

/// `info depth=.. seldepth=.. score=.. nodes=.. time=.. nps=.. pv=".."`, with `multipv=K` after
/// the depths when `numbered` (a multi-PV search).
fn info_line(info: &kroon_search::Info, variant: Variant, numbered: bool) -> String {
    let secs = info.elapsed.as_secs_f64();
    let pv = pv_text(&info.pv, variant);
    // The codec formats every key it knows; depth and seldepth go first by hand, since the
    // codec's `Info` has no seldepth.
    let rest = HubReply::Info(Info {
        depth: None,
        mean_depth: None,
        score: Some(score::in_men(info.score)),
        nodes: Some(info.nodes),
        time: Some(secs),
        nps: (secs > 0.0).then(|| info.nodes as f64 / secs / 1e6),
        pv: (!pv.is_empty()).then_some(pv),
    })
    .to_string();
    let rest = rest.strip_prefix("info").unwrap_or(&rest);
    let line = if numbered {
        format!(" multipv={}", info.multipv)
    } else {
        String::new()
    };
    format!(
        "info depth={} seldepth={}{line}{rest}",
        info.depth, info.seldepth
    )
}

/// `done move=.. ponder=..` for a finished search from `root`. The move is checked against the
/// rules; should the search ever give none (or a wrong one) while a legal move exists, the first
/// legal move is sent instead, since a `done` without a move means the game is over.
fn done(result: &SearchResult, root: &Position) -> HubReply {
    let legal = root.legal_moves();
    let best = result.best.filter(|mv| legal.contains(mv));
    if best.is_none() && !legal.is_empty() {
        tracing::error!(
            "search gave no legal move ({:?}); sending the first",
            result.best
        );
    }
    let Some(mv) = best.or_else(|| legal.iter().next().copied()) else {
        return HubReply::Done {
            mv: None,
            ponder: None,
        };
    };
    let ponder = result
        .ponder
        .filter(|p| best.is_some() && root.play(&mv).legal_moves().contains(p));
    let variant = root.variant();
    HubReply::Done {
        mv: Some(write_move(&mv, variant)),
        ponder: ponder.map(|p| write_move(&p, variant)),
    }
}

// ---- tests -------------------------------------------------------------------------------------

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hub::codec::{parse_reply, Level};
    use kroon_rules::{notation, parse_hub_move, write_hub};
    use std::sync::mpsc::{channel, Receiver, Sender};
    use std::time::Instant;

    const START: &str = "Wbbbbbbbbbbbbbbbbbbbbeeeeeeeeeewwwwwwwwwwwwwwwwwwww";
    const WAIT: Duration = Duration::from_secs(20);

    struct ChannelSink(Mutex<Sender<String>>);

    impl Sink for ChannelSink {
        fn line(&self, line: &str) {
            let _ = self.0.lock().unwrap().send(line.to_owned());
        }
    }

    fn session() -> (Session, Receiver<String>) {
        session_with(Settings::default())
    }

    fn session_with(settings: Settings) -> (Session, Receiver<String>) {
        let (tx, rx) = channel();
        let s = Session::new(
            Identity::kroon("9.9.9"),
            settings,
            Arc::new(ChannelSink(Mutex::new(tx))),
        );
        (s, rx)
    }

    fn next(rx: &Receiver<String>) -> String {
        let line = rx.recv_timeout(WAIT).expect("a reply line");
        assert!(parse_reply(&line).is_ok(), "not a Hub reply: {line}");
        line
    }

    /// Lines up to and including the first that starts with `word`.
    fn until(rx: &Receiver<String>, word: &str) -> Vec<String> {
        let mut lines = Vec::new();
        loop {
            let line = next(rx);
            let stop = line.split(' ').next() == Some(word);
            lines.push(line);
            if stop {
                return lines;
            }
        }
    }

    fn silent(rx: &Receiver<String>) {
        assert_eq!(rx.try_recv().ok(), None::<String>);
    }

    fn feed(s: &mut Session, lines: &[&str]) {
        for line in lines {
            assert_eq!(s.handle_line(line), Flow::Continue, "{line}");
        }
    }

    fn done_move(line: &str) -> Option<String> {
        match parse_reply(line) {
            Ok(HubReply::Done { mv, .. }) => mv,
            other => panic!("expected done, got {other:?}"),
        }
    }

    #[test]
    fn announces_identity_and_every_parameter() {
        let (mut s, rx) = session();
        feed(&mut s, &["hub"]);
        let lines = until(&rx, "wait");
        assert_eq!(
            lines[0],
            r#"id name=Kroon version=9.9.9 author="Kroon developers" country=NL"#
        );
        let names: Vec<&str> = Variant::ALL.iter().map(|v| v.hub_name()).collect();
        assert_eq!(
            lines[1],
            format!(
                r#"param name=variant value=normal type=enum values="{}""#,
                names.join(" ")
            )
        );
        assert_eq!(lines[2], "param name=threads value=1 type=int min=1 max=64");
        assert_eq!(
            lines[3],
            "param name=hash value=64 type=int min=1 max=65536"
        );
        assert_eq!(lines[4], "param name=ponder value=false type=bool");
        assert_eq!(
            lines[5],
            r#"param name=eval value=learned type=enum values="learned hand""#
        );
        assert_eq!(lines[6], r#"param name=egdb-path value="" type=string"#);
        assert_eq!(lines[7], "param name=book value=false type=bool");
        assert_eq!(
            lines[8],
            "param name=book-margin value=4 type=int min=0 max=100"
        );
        assert_eq!(lines.len(), 10);
        feed(&mut s, &["init"]);
        assert_eq!(next(&rx), "ready");
    }

    #[test]
    fn set_param_checks_values_and_ignores_unknown_names() {
        let (mut s, rx) = session();
        feed(
            &mut s,
            &[
                "set-param name=threads value=2",
                "set-param name=hash value=8",
                "set-param name=ponder value=true",
                "set-param name=variant value=killer",
                "set-param name=book value=true",
                "set-param name=book-margin value=20",
                "set-param name=eval value=hand",
                "set-param name=egdb-path value=\"/data/my tables\"",
                "set-param name=multipv value=3",
            ],
        );
        silent(&rx);
        assert_eq!(
            *s.settings(),
            Settings {
                variant: Variant::Killer,
                threads: 2,
                hash: 8,
                ponder: true,
                eval: EvalKind::Hand,
                egdb_path: "/data/my tables".into(),
                multipv: 3,
                book: true,
                book_margin: 20,
            }
        );
        for bad in [
            "set-param name=threads value=0",
            "set-param name=threads value=65",
            "set-param name=hash value=lots",
            "set-param name=ponder value=maybe",
            "set-param name=variant value=chess",
            "set-param name=eval value=neural",
            "set-param name=multipv value=0",
            "set-param name=book value=often",
            "set-param name=book-margin value=101",
        ] {
            feed(&mut s, &[bad]);
            assert!(next(&rx).starts_with("error message="), "{bad}");
        }
        assert_eq!(s.settings().threads, 2);
        feed(&mut s, &["hub"]);
        let lines = until(&rx, "wait");
        assert!(lines.contains(&"param name=threads value=2 type=int min=1 max=64".to_owned()));
        assert!(lines
            .iter()
            .any(|l| l.starts_with("param name=variant value=killer ")));
    }

    #[test]
    fn bad_input_is_answered_and_the_session_goes_on() {
        let (mut s, rx) = session();
        let cases: [(&str, &str); 9] = [
            ("level depth=", "no value"),
            ("level depth=x", "depth=x"),
            ("pos pos=\"Wbb", "closing quote"),
            ("=3", "command"),
            ("pos pos=Wbbbbbbbbbbbbbbbbbbbbeeeeeeeeexwwwwwwwwwwwwwwwwwwww", "`x`"),
            ("pos pos=Wbbbb", "expected 50 squares, found 4"),
            (
                "pos pos=Wbbbbbbbbbbbbbbbbbbbbeeeeeeeeeewwwwwwwwwwwwwwwwwwww moves=\"32-28 19-23 34-30\"",
                "move 3 in 'moves': illegal move `34-30`",
            ),
            ("pos pos=Wbbbbbbbbbbbbbbbbbbbbeeeeeeeeeewwwwwwwwwwwwwwwwwwww moves=\"32to28\"", "32to28"),
            ("pos pos=W:W31-50:B1-20:Q", "W or B"),
        ];
        for (line, want) in cases {
            feed(&mut s, &[line]);
            let reply = next(&rx);
            assert!(
                reply.starts_with("error message=") && reply.contains(want),
                "{line} -> {reply}"
            );
            feed(&mut s, &["ping"]);
            assert_eq!(next(&rx), "pong");
        }
        feed(
            &mut s,
            &[
                "",
                "   ",
                "frobnicate x=1",
                "set-param name=nothing value=1",
            ],
        );
        silent(&rx);
    }

    #[test]
    fn go_without_a_position_answers_error_then_done() {
        let (mut s, rx) = session();
        feed(&mut s, &["level depth=1", "go think"]);
        assert!(next(&rx).starts_with("error message="));
        assert_eq!(next(&rx), "done");
        feed(&mut s, &["pos pos=Wbbbbb", "go think"]);
        assert!(next(&rx).starts_with("error message=")); // the pos
        let e = next(&rx);
        assert!(e.contains("refused"), "{e}");
        assert_eq!(next(&rx), "done");
    }

    #[test]
    fn depth_search_streams_info_and_a_legal_move() {
        let (mut s, rx) = session();
        feed(
            &mut s,
            &[
                "init",
                &format!("pos pos={START} moves=\"32-28 19-23\""),
                "level depth=3",
                "go think",
            ],
        );
        assert_eq!(next(&rx), "ready");
        let lines = until(&rx, "done");
        let infos: Vec<_> = lines.iter().filter(|l| l.starts_with("info ")).collect();
        assert!(!infos.is_empty() && infos.len() <= 3, "{lines:?}");
        assert!(
            infos[0].starts_with("info depth=1 seldepth="),
            "{}",
            infos[0]
        );
        assert!(infos
            .iter()
            .all(|l| l.contains(" score=") && l.contains(" pv=")));
        let mv = done_move(lines.last().unwrap()).unwrap();
        // After 32-28 19-23 White must capture 28x19x23.
        assert_eq!(mv, "28x19x23");
    }

    /// A book of one position, the initial one, whose only book move is its last legal move.
    struct OneLine;

    impl BookProbe for OneLine {
        fn probe(&self, pos: &Position) -> Vec<(Move, i32)> {
            let legal = pos.legal_moves();
            match legal.iter().last() {
                Some(&mv) if *pos == Position::initial(pos.variant()) => vec![(mv, 12)],
                _ => Vec::new(),
            }
        }
    }

    #[test]
    fn plays_the_book_move_when_book_is_on_and_searches_when_off() {
        let (s, rx) = session();
        let mut s = s.with_book(Arc::new(OneLine));
        let start = Position::initial(Variant::International);
        let book_move = notation::hub(start.legal_moves().iter().last().unwrap(), start.variant());
        feed(
            &mut s,
            &[
                "set-param name=book value=true",
                "init",
                &format!("pos pos={START}"),
                "level depth=2",
            ],
        );
        assert_eq!(next(&rx), "ready");
        feed(&mut s, &["go think"]);
        assert_eq!(until(&rx, "done"), [format!("done move={book_move}")]);
        // Out of book: a search.
        feed(
            &mut s,
            &[
                &format!("pos pos={START} moves=\"32-28\""),
                "level depth=2",
                "go think",
            ],
        );
        assert!(next(&rx).starts_with("info depth=1 "));
        until(&rx, "done");
        // Analysis searches, in book or not.
        feed(&mut s, &[&format!("pos pos={START}"), "go analyze"]);
        assert!(next(&rx).starts_with("info depth=1 "));
        feed(&mut s, &["stop"]);
        until(&rx, "done");
        // Book off: a search.
        feed(
            &mut s,
            &[
                "set-param name=book value=false",
                &format!("pos pos={START}"),
                "level depth=2",
                "go think",
            ],
        );
        let lines = until(&rx, "done");
        assert!(lines[0].starts_with("info depth=1 "), "{lines:?}");
    }

    #[test]
    fn pdn_fen_is_accepted() {
        let (mut s, rx) = session();
        feed(
            &mut s,
            &["pos pos=B:W28:B23,1", "level depth=2", "go think"],
        );
        let lines = until(&rx, "done");
        let mv = done_move(lines.last().unwrap()).unwrap();
        let pos = parse_fen("B:W28:B23,1", Variant::International).unwrap();
        assert!(parse_hub_move(&pos, &mv).is_ok(), "{mv}");
    }

    #[test]
    fn no_legal_move_answers_a_bare_done_in_every_mode() {
        let (mut s, rx) = session();
        for go in ["go think", "go ponder", "go analyze"] {
            feed(&mut s, &["pos pos=B:W31:B", "level infinite", go]);
            assert_eq!(next(&rx), "done", "{go}");
        }
    }

    #[test]
    fn stop_ends_an_infinite_analysis_and_ping_is_served_meanwhile() {
        let (mut s, rx) = session();
        feed(&mut s, &[&format!("pos pos={START}"), "go analyze"]);
        std::thread::sleep(Duration::from_millis(200));
        feed(&mut s, &["ping"]);
        // Without a level, analysis runs until stopped, so no done has come yet.
        let lines = until(&rx, "pong");
        assert!(
            lines.iter().all(|l| l.starts_with("info ") || l == "pong"),
            "{lines:?}"
        );
        let t = Instant::now();
        feed(&mut s, &["stop"]);
        let lines = until(&rx, "done");
        assert!(t.elapsed() < Duration::from_secs(1));
        assert!(done_move(lines.last().unwrap()).is_some());
    }

    #[test]
    fn ponder_waits_for_ponder_hit() {
        let (mut s, rx) = session();
        feed(
            &mut s,
            &[&format!("pos pos={START}"), "level depth=2", "go ponder"],
        );
        std::thread::sleep(Duration::from_millis(300));
        while let Ok(line) = rx.try_recv() {
            assert!(line.starts_with("info "), "{line}");
        }
        feed(&mut s, &["ponder-hit"]);
        let lines = until(&rx, "done");
        assert!(done_move(lines.last().unwrap()).is_some());
    }

    #[test]
    fn go_during_a_search_ends_it_first() {
        let (mut s, rx) = session();
        feed(
            &mut s,
            &[
                &format!("pos pos={START}"),
                "level infinite",
                "go think",
                "level depth=1",
                "go think",
            ],
        );
        let first = until(&rx, "done");
        assert!(done_move(first.last().unwrap()).is_some());
        let second = until(&rx, "done");
        assert!(done_move(second.last().unwrap()).is_some());
    }

    #[test]
    fn new_game_forgets_the_position() {
        let (mut s, rx) = session();
        feed(
            &mut s,
            &[
                &format!("pos pos={START}"),
                "new-game",
                "level depth=1",
                "go think",
            ],
        );
        assert!(next(&rx).starts_with("error message="));
        assert_eq!(next(&rx), "done");
    }

    #[test]
    fn one_legal_move_is_played_at_once_on_a_clock() {
        let (mut s, rx) = session();
        let pos = parse_fen("W:W28,50:B23,1", Variant::International).unwrap();
        assert_eq!(pos.legal_moves().len(), 1);
        feed(&mut s, &["init"]);
        assert_eq!(next(&rx), "ready");
        let t = Instant::now();
        feed(
            &mut s,
            &[
                &format!("pos pos={}", write_hub(&pos)),
                "level time=60",
                "go think",
            ],
        );
        let lines = until(&rx, "done");
        assert!(t.elapsed() < Duration::from_millis(500));
        assert_eq!(
            done_move(lines.last().unwrap()).as_deref(),
            Some("28x19x23")
        );
    }

    #[test]
    fn quit_ends_the_search() {
        let (mut s, rx) = session();
        feed(
            &mut s,
            &[&format!("pos pos={START}"), "level infinite", "go think"],
        );
        assert_eq!(s.handle_line("quit"), Flow::Quit);
        let lines = until(&rx, "done");
        assert!(done_move(lines.last().unwrap()).is_some());
    }

    #[test]
    fn a_refused_pos_leaves_no_position_and_start_forms_read_as_scan() {
        let (mut s, rx) = session();
        // A game, then a `pos` line that does not parse, then one with a bad move: each time
        // `go` has no position rather than the previous game's.
        for bad in [
            "pos pos=\"Wbb",
            &format!("pos pos={START} moves=\"32-28 32-28\""),
        ] {
            feed(&mut s, &[&format!("pos pos={START} moves=\"32-28 19-23\"")]);
            feed(&mut s, &[bad, "level depth=2", "go think"]);
            assert!(next(&rx).starts_with("error message="), "{bad}");
            assert!(next(&rx).contains("refused"), "{bad}");
            assert_eq!(next(&rx), "done", "{bad}");
        }
        // `pos`, `pos start` and `pos moves=...` start from the start position.
        for (line, after) in [
            ("pos", None),
            ("pos start", None),
            ("pos moves=\"32-28 19-23\"", Some("28x19x23")),
        ] {
            feed(&mut s, &[line, "level depth=1", "go think"]);
            let lines = until(&rx, "done");
            let mv = done_move(lines.last().unwrap()).unwrap();
            match after {
                Some(want) => assert_eq!(mv, want),
                None => assert!(
                    parse_hub_move(&Position::initial(Variant::International), &mv).is_ok(),
                    "{line}: {mv}"
                ),
            }
        }
    }

    #[test]
    fn analysis_stops_at_the_level_and_the_level_resets_at_pos() {
        let (mut s, rx) = session();
        feed(
            &mut s,
            &[&format!("pos pos={START}"), "level depth=3", "go analyze"],
        );
        let lines = until(&rx, "done");
        assert!(
            lines.iter().any(|l| l.starts_with("info depth=3 ")),
            "{lines:?}"
        );
        assert!(
            !lines.iter().any(|l| l.starts_with("info depth=4 ")),
            "{lines:?}"
        );
        // A node level stops a think at once after the first iteration that reaches it.
        feed(
            &mut s,
            &[&format!("pos pos={START}"), "level nodes=50", "go think"],
        );
        let lines = until(&rx, "done");
        let nodes: Vec<u64> = lines
            .iter()
            .filter_map(|l| l.split(' ').find_map(|w| w.strip_prefix("nodes=")))
            .map(|n| n.parse().unwrap())
            .collect();
        assert!(
            !nodes.is_empty() && *nodes.last().unwrap() < 1_000,
            "{lines:?}"
        );
    }

    #[test]
    fn a_forced_move_comes_with_a_score_and_a_reply() {
        let (mut s, rx) = session();
        // White must take 28x19x23, its only move.
        let pos = parse_fen("W:W28,50:B23,1", Variant::International).unwrap();
        assert_eq!(pos.legal_moves().len(), 1);
        feed(
            &mut s,
            &[
                &format!("pos pos={}", write_hub(&pos)),
                "level move-time=5",
                "go think",
            ],
        );
        let lines = until(&rx, "done");
        assert!(
            lines
                .iter()
                .any(|l| l.starts_with("info ") && l.contains(" score=")),
            "{lines:?}"
        );
        let after = pos.play(&pos.legal_moves()[0]);
        match parse_reply(lines.last().unwrap()) {
            Ok(HubReply::Done {
                mv: Some(mv),
                ponder: Some(reply),
            }) => {
                assert_eq!(mv, "28x19x23");
                assert!(parse_hub_move(&after, &reply).is_ok(), "{reply}");
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn lidraughts_eval_names_are_taken() {
        let mut settings = Settings::default();
        assert_eq!(settings.set("eval", "pst"), Ok(true));
        assert_eq!(settings.eval, EvalKind::Hand);
        assert_eq!(settings.set("eval", "pattern"), Ok(true));
        assert_eq!(settings.eval, EvalKind::Learned);
    }

    fn merged(lines: &[&str]) -> LevelKeys {
        let mut level = LevelKeys::default();
        for line in lines {
            match parse(line) {
                Ok(HubCommand::Level(keys)) => merge_level(&mut level, &keys),
                other => panic!("{line}: {other:?}"),
            }
        }
        level
    }

    #[test]
    fn level_keys_add_up_as_in_scan() {
        // lidraughts' weakest level and a middle one, as draughtsnet and the app send them.
        assert_eq!(
            limits(&merged(&["level nodes=50", "level move-time=0.05"])),
            Limits::Combined(Bounds {
                nodes: Some(50),
                move_time: Some(Duration::from_millis(50)),
                ..Bounds::default()
            })
        );
        assert_eq!(
            limits(&merged(&["level depth=6", "level move-time=0.3"])),
            Limits::Combined(Bounds {
                depth: Some(6),
                move_time: Some(Duration::from_millis(300)),
                ..Bounds::default()
            })
        );
        assert_eq!(
            limits(&merged(&["level depth=3 move-time=0.2"])),
            limits(&merged(&["level depth=3", "level move-time=0.2"]))
        );
        // `ply` caps the depth; `handicap` is kept for the engine.
        let lidraughts = merged(&["level handicap=3", "level ply=4", "level depth=6"]);
        assert_eq!(lidraughts.handicap, Some(3));
        assert!(matches!(
            limits(&lidraughts),
            Limits::Combined(Bounds { depth: Some(4), .. })
        ));
        // Clocks: `moves=0` is no control ahead; negative values are 0; a later clock line
        // replaces the whole clock.
        assert_eq!(
            limits(&merged(&["level moves=0 time=3 inc=0.1"])),
            Limits::Combined(Bounds {
                clock: Some((Duration::from_secs(3), Duration::from_millis(100), None)),
                ..Bounds::default()
            })
        );
        assert_eq!(
            limits(&merged(&[
                "level time=60 inc=1",
                "level time=-0.613 inc=-0.1"
            ])),
            Limits::Combined(Bounds {
                clock: Some((Duration::ZERO, Duration::ZERO, None)),
                ..Bounds::default()
            })
        );
        assert_eq!(
            limits(&merged(&["level moves=9 time=291.5 inc=0.5"])),
            Limits::Combined(Bounds {
                clock: Some((
                    Duration::from_millis(291_500),
                    Duration::from_millis(500),
                    Some(9)
                )),
                ..Bounds::default()
            })
        );
        assert_eq!(
            limits(&merged(&["level depth=5", "level infinite"])),
            Limits::Infinite
        );
        assert_eq!(limits(&LevelKeys::default()), Limits::Infinite);
        assert_eq!(
            limits(&Level::MoveTime(f64::MAX).into()),
            Limits::Combined(Bounds {
                move_time: Some(Duration::from_secs(1_000_000_000)),
                ..Bounds::default()
            })
        );
    }

    #[test]
    fn writer_sink_writes_whole_lines() {
        let sink = WriterSink::new(Vec::new());
        sink.line("pong");
        sink.line("done move=32-28");
        let bytes = sink.inner.into_inner().unwrap();
        assert_eq!(String::from_utf8(bytes).unwrap(), "pong\ndone move=32-28\n");
    }
}
