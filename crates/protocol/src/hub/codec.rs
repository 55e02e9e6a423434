//! Hub v2 line codec: one text line to a [`HubCommand`] or [`HubReply`] and back, with no I/O.
//!
//! Every Hub line is `command key=value key="quoted value" flag ...` (Scan 3.1 `protocol.txt`).
//! A value must be quoted when it is empty or holds a blank, a control character, `=` or `"`.
//! Hub itself has no escapes, so a value holding `"` could not be written at all; this codec
//! accepts `\"` and `\\` inside quotes. Every other backslash is literal, so a Windows path such as
//! `"C:\Program Files\book"` still reads as the GUI meant it, and the writer escapes a backslash
//! only where the reader would otherwise misread it.
//!
//! Parsing is total: any `&str` gives `Ok` or a [`HubError`], never a panic. Positions and
//! moves stay text here, because what they mean depends on the variant, which only the session knows.

// A reader of outside input: bad bytes must come back as errors, so no panicking shortcuts.
#![cfg_attr(
    not(test),
    deny(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing)
)]

use std::fmt::{self, Write};

use thiserror::Error;

// ---- errors ----------------------------------------------------------------------------------

/// What was wrong with a Hub line; the session sends the message back as `error message="..."`.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub enum HubError {
    /// The line is empty or only blanks. The session may ignore it rather than answer.
    #[error("empty line")]
    Empty,
    /// The line does not start with a command word.
    #[error("expected a command name at the start of the line, found {found:?}")]
    ExpectedCommand {
        /// The first character that is not a blank.
        found: char,
    },
    /// Where a `key` or `key=value` should be, something else was found.
    #[error("expected a key, found {found:?}")]
    ExpectedKey {
        /// The character found where a key should start.
        found: char,
    },
    /// `key=` with nothing usable after the `=`.
    #[error("'{key}=' has no value")]
    MissingValue {
        /// The key that lacks its value.
        key: String,
    },
    /// A quoted value runs to the end of the line.
    #[error("the value of '{key}' has no closing quote")]
    UnterminatedQuote {
        /// The key whose value is unterminated.
        key: String,
    },
    /// A command or reply lacks a key it cannot do without.
    #[error("'{command}' needs '{key}='")]
    MissingKey {
        /// The command or reply word.
        command: &'static str,
        /// The missing key.
        key: &'static str,
    },
    /// A value that should be a number is not one, or is out of range.
    #[error("'{key}={value}' is not {expected}")]
    BadNumber {
        /// The key whose value is wrong.
        key: &'static str,
        /// The value as received.
        value: String,
        /// What the value should have been.
        expected: &'static str,
    },
    /// [`parse_reply`] got a word that is not an engine reply.
    #[error("unknown reply '{0}'")]
    UnknownReply(String),
}

// ---- tokenizer -------------------------------------------------------------------------------

/// One `key` or `key=value` argument. A flag (`key` alone) has no value.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Arg {
    /// The key, never empty.
    pub key: String,
    /// The value with quotes and escapes removed; `None` for a flag.
    pub value: Option<String>,
}

/// A tokenized line: the command word and its arguments, in order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Tokens {
    /// The first word of the line, never empty.
    pub command: String,
    /// The arguments after the command.
    pub args: Vec<Arg>,
}

impl Tokens {
    /// The value of `key`; a flag reads as `""` (Hub says so). When a key is repeated the last
    /// one wins, as when a reader applies the arguments one after the other.
    #[must_use]
    pub fn get(&self, key: &str) -> Option<&str> {
        self.args
            .iter()
            .rev()
            .find(|a| a.key == key)
            .map(|a| a.value.as_deref().unwrap_or(""))
    }

    /// Whether `key` appears at all, as a flag or with a value.
    #[must_use]
    pub fn has(&self, key: &str) -> bool {
        self.args.iter().any(|a| a.key == key)
    }
}

/// Splits a line into its command word and arguments.
///
/// # Errors
/// [`HubError::Empty`] for a blank line, and the syntax errors (no command, a stray `=` or `"`,
/// `key=` without a value, a missing closing quote).
pub fn tokenize(line: &str) -> Result<Tokens, HubError> {
    let mut sc = Scanner::new(line);
    let command = sc.command()?.to_owned();
    let args = sc.args()?;
    Ok(Tokens { command, args })
}

/// Blanks separate words. Vertical tab is included because C's `isspace` (Scan) treats it so.
fn is_blank(c: char) -> bool {
    c.is_ascii_whitespace() || c == '\u{0b}'
}

/// Characters allowed in a command, a key or an unquoted value (Scan `Scanner::is_id`).
fn is_word_char(c: char) -> bool {
    !c.is_control() && !is_blank(c) && c != '=' && c != '"'
}

/// A cursor over the rest of the line. It only advances by whole words or whole characters, so
/// every slice it takes falls on a char boundary.
struct Scanner<'a> {
    rest: &'a str,
}

impl<'a> Scanner<'a> {
    fn new(line: &'a str) -> Self {
        Scanner { rest: line }
    }

    fn peek(&self) -> Option<char> {
        self.rest.chars().next()
    }

    fn bump(&mut self) -> Option<char> {
        let mut chars = self.rest.chars();
        let c = chars.next()?;
        self.rest = chars.as_str();
        Some(c)
    }

    fn skip_blanks(&mut self) {
        self.rest = self.rest.trim_start_matches(is_blank);
    }

    /// The longest run of word characters, possibly empty.
    fn word(&mut self) -> &'a str {
        let end = self
            .rest
            .find(|c| !is_word_char(c))
            .unwrap_or(self.rest.len());
        let (word, rest) = self.rest.split_at(end);
        self.rest = rest;
        word
    }

    fn command(&mut self) -> Result<&'a str, HubError> {
        self.skip_blanks();
        let Some(first) = self.peek() else {
            return Err(HubError::Empty);
        };
        let word = self.word();
        if word.is_empty() {
            return Err(HubError::ExpectedCommand { found: first });
        }
        Ok(word)
    }

    fn args(&mut self) -> Result<Vec<Arg>, HubError> {
        let mut args = Vec::new();
        loop {
            self.skip_blanks();
            let Some(first) = self.peek() else {
                return Ok(args);
            };
            let key = self.word();
            if key.is_empty() {
                return Err(HubError::ExpectedKey { found: first });
            }
            // Scan allows blanks around '=', so `key = value` is one pair.
            self.skip_blanks();
            let value = if self.peek() == Some('=') {
                self.bump();
                Some(self.value(key)?)
            } else {
                None
            };
            args.push(Arg {
                key: key.to_owned(),
                value,
            });
        }
    }

    fn value(&mut self, key: &str) -> Result<String, HubError> {
        self.skip_blanks();
        if self.peek() != Some('"') {
            let word = self.word();
            if word.is_empty() {
                return Err(HubError::MissingValue {
                    key: key.to_owned(),
                });
            }
            return Ok(word.to_owned());
        }
        self.bump();
        let mut value = String::new();
        loop {
            match self.bump() {
                None => {
                    return Err(HubError::UnterminatedQuote {
                        key: key.to_owned(),
                    })
                }
                Some('"') => return Ok(value),
                Some('\\') => match self.peek() {
                    Some(c @ ('"' | '\\')) => {
                        self.bump();
                        value.push(c);
                    }
                    _ => value.push('\\'),
                },
                Some(c) => value.push(c),
            }
        }
    }
}

/// Writes a value, quoting and escaping only when a reader would otherwise split or misread it.
fn write_value(f: &mut impl Write, value: &str) -> fmt::Result {
    if !value.is_empty() && value.chars().all(is_word_char) {
        return f.write_str(value);
    }
    f.write_char('"')?;
    let mut chars = value.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '"' => f.write_str("\\\"")?,
            // A lone backslash is literal to the reader unless a quote, another backslash or the
            // closing quote follows it; only then does it need doubling.
            '\\' if matches!(chars.peek(), None | Some('"' | '\\')) => f.write_str("\\\\")?,
            // The protocol has no escape for a line break, and one would split the line: a
            // value that carries one (an echo of bad input) gets a blank instead.
            '\n' | '\r' => f.write_char(' ')?,
            c => f.write_char(c)?,
        }
    }
    f.write_char('"')
}

/// Writes ` key=value`.
fn write_pair(f: &mut impl Write, key: &str, value: &str) -> fmt::Result {
    write!(f, " {key}=")?;
    write_value(f, value)
}

/// Writes ` key=value` with a value already known to need no quotes (numbers).
fn write_plain(f: &mut impl Write, key: &str, value: impl fmt::Display) -> fmt::Result {
    write!(f, " {key}={value}")
}

/// [`write_plain`] when there is a value; nothing when there is none.
fn write_some(f: &mut impl Write, key: &str, value: Option<impl fmt::Display>) -> fmt::Result {
    value.map_or(Ok(()), |v| write_plain(f, key, v))
}

// ---- numbers ---------------------------------------------------------------------------------

fn bad_number(key: &'static str, value: &str, expected: &'static str) -> HubError {
    HubError::BadNumber {
        key,
        value: value.to_owned(),
        expected,
    }
}

fn whole<T: std::str::FromStr>(key: &'static str, value: &str) -> Result<T, HubError> {
    value
        .parse()
        .map_err(|_| bad_number(key, value, "a whole number in range"))
}

fn real(key: &'static str, value: &str) -> Result<f64, HubError> {
    match value.parse::<f64>() {
        Ok(x) if x.is_finite() => Ok(x),
        _ => Err(bad_number(key, value, "a finite real number")),
    }
}

/// Seconds: finite, and a negative value reads as 0 (as Scan clamps it: a client whose own
/// overhead exceeds its clock sends `time=-0.6`), so the session can build a `Duration` at once.
fn seconds(key: &'static str, value: &str) -> Result<f64, HubError> {
    match value.parse::<f64>() {
        Ok(x) if x.is_finite() => Ok(x.max(0.0)),
        _ => Err(bad_number(key, value, "a number of seconds (a real)")),
    }
}

/// The optional key `key`, read by `read` (`whole`, `real` or `seconds`) when present.
fn optional<T>(
    t: &Tokens,
    key: &'static str,
    read: fn(&'static str, &str) -> Result<T, HubError>,
) -> Result<Option<T>, HubError> {
    t.get(key).map(|v| read(key, v)).transpose()
}

fn require<'t>(
    t: &'t Tokens,
    command: &'static str,
    key: &'static str,
) -> Result<&'t str, HubError> {
    t.get(key).ok_or(HubError::MissingKey { command, key })
}

// ---- commands (GUI to engine) ----------------------------------------------------------------

/// The keys of one `level` line, each optional, in Hub's own units (seconds as reals). As in
/// Scan, a session keeps each key of successive `level` lines until the next `pos`, so a line
/// says only what it changes; the limits set all apply, the first reached ending the search.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct LevelKeys {
    /// `depth=N`: search to this depth.
    pub depth: Option<u32>,
    /// `nodes=N`: search about this many nodes.
    pub nodes: Option<u64>,
    /// `move-time=T`: spend about this many seconds on the move.
    pub move_time: Option<f64>,
    /// `moves=N`: moves to the next time control (0: none, as in Scan).
    pub moves: Option<u32>,
    /// `time=T`: seconds on the clock.
    pub time: Option<f64>,
    /// `inc=I`: seconds added before every move.
    pub inc: Option<f64>,
    /// `infinite`: no limit (clears the others).
    pub infinite: bool,
    /// `handicap=N`: play weaker (lidraughts' Scan; 0 is full strength).
    pub handicap: Option<u8>,
    /// `ply=N`: search no deeper than N plies (lidraughts' Scan).
    pub ply: Option<u32>,
}

impl LevelKeys {
    /// Whether the line sets a game clock (`moves`, `time` or `inc`).
    #[must_use]
    pub fn has_clock(&self) -> bool {
        self.moves.is_some() || self.time.is_some() || self.inc.is_some()
    }
}

impl From<Level> for LevelKeys {
    fn from(level: Level) -> LevelKeys {
        let mut keys = LevelKeys::default();
        match level {
            Level::Depth(d) => keys.depth = Some(d),
            Level::Nodes(n) => keys.nodes = Some(n),
            Level::MoveTime(t) => keys.move_time = Some(t),
            Level::Infinite => keys.infinite = true,
            Level::Clock { moves, time, inc } => {
                keys.moves = moves;
                keys.time = Some(time);
                keys.inc = (inc != 0.0).then_some(inc);
            }
        }
        keys
    }
}

/// One limit of `level`, as a GUI that sets one at a time sends it; it converts into
/// [`LevelKeys`].
#[derive(Clone, Debug, PartialEq)]
pub enum Level {
    /// `level depth=N`: search to this depth.
    Depth(u32),
    /// `level nodes=N`: search about this many nodes.
    Nodes(u64),
    /// `level move-time=T`: spend about this many seconds on the move.
    MoveTime(f64),
    /// `level infinite`: search until `stop`.
    Infinite,
    /// `level [moves=N] time=T [inc=I]`: a game clock.
    Clock {
        /// Moves left until the next time control; `None` for sudden death or increment.
        moves: Option<u32>,
        /// Seconds left on the clock.
        time: f64,
        /// Seconds added before every move (Hub adds it before, not after); 0 when absent.
        inc: f64,
    },
}

/// How `go` wants the engine to search.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum GoMode {
    /// `go think` (or bare `go`): search and play a move.
    Think,
    /// `go ponder`: search on the opponent's time until `ponder-hit` or `stop`.
    Ponder,
    /// `go analyze` (or `go analyse`): no game context, the GUI wants scores and PVs.
    Analyze,
}

/// A line from the GUI.
#[derive(Clone, Debug, PartialEq)]
pub enum HubCommand {
    /// `hub`: the engine should answer `id`, its `param` lines and `wait`.
    Hub,
    /// `init`: finish initialising, then answer `ready`.
    Init,
    /// `new-game`: the next search has nothing to do with the previous ones.
    NewGame,
    /// `ping`: answer `pong`, even while searching.
    Ping,
    /// `stop`: end the search soon; `done` must still follow.
    Stop,
    /// `ponder-hit`: the opponent played the expected move, so the clock now runs.
    PonderHit,
    /// `quit`.
    Quit,
    /// `set-param name=... value=...` (a flag `value` reads as the empty string).
    SetParam {
        /// The parameter's name.
        name: String,
        /// Its new value, as text.
        value: String,
    },
    /// `pos [pos=...|start] [moves="..."]`: the position as Hub text (none: the start position,
    /// as for Scan's `pos start` or a bare `pos`), and moves played from it.
    Pos {
        /// The Hub position, unchecked; `None` for the variant's start position.
        pos: Option<String>,
        /// The moves in Hub notation, unchecked; empty when `moves=` is absent or empty.
        moves: Vec<String>,
    },
    /// `level ...`: the keys it sets.
    Level(LevelKeys),
    /// `go ...`.
    Go(GoMode),
    /// A command this codec does not know, by its first word; Hub says to ignore it.
    Unknown(String),
}

/// Parses a line from the GUI.
///
/// A blank line is an error ([`HubError::Empty`]) rather than [`HubCommand::Unknown`], so the
/// session can tell it apart and choose to stay silent. Unknown commands are not an error, and
/// their arguments are not even read: a newer GUI may send syntax this codec does not follow.
/// For the same reason the argument-less commands (`hub`, `stop`, ...) ignore whatever follows
/// them. Unknown keys are ignored everywhere.
///
/// # Errors
/// A [`HubError`] saying what is wrong: syntax, a missing key, a bad number.
pub fn parse(line: &str) -> Result<HubCommand, HubError> {
    let mut sc = Scanner::new(line);
    let command = sc.command()?;
    let simple = match command {
        "hub" => Some(HubCommand::Hub),
        "init" => Some(HubCommand::Init),
        "new-game" => Some(HubCommand::NewGame),
        "ping" => Some(HubCommand::Ping),
        "stop" => Some(HubCommand::Stop),
        "ponder-hit" => Some(HubCommand::PonderHit),
        "quit" => Some(HubCommand::Quit),
        "set-param" | "pos" | "level" | "go" => None,
        other => Some(HubCommand::Unknown(other.to_owned())),
    };
    if let Some(cmd) = simple {
        return Ok(cmd);
    }
    let t = Tokens {
        command: command.to_owned(),
        args: sc.args()?,
    };
    Ok(match command {
        "set-param" => HubCommand::SetParam {
            name: require(&t, "set-param", "name")?.to_owned(),
            value: require(&t, "set-param", "value")?.to_owned(),
        },
        "pos" => HubCommand::Pos {
            // The last of `pos=` and `start` counts, as Scan reads them in turn. `pos=startpos`
            // is the start position too, as in UCI: pydraughts' engine tests send it.
            pos: t
                .args
                .iter()
                .rev()
                .find(|a| a.key == "pos" || a.key == "start")
                .and_then(|a| (a.key == "pos").then(|| a.value.clone().unwrap_or_default()))
                .filter(|p| p != "startpos"),
            moves: t
                .get("moves")
                .unwrap_or("")
                .split_whitespace()
                .map(str::to_owned)
                .collect(),
        },
        "level" => HubCommand::Level(parse_level(&t)?),
        _ => HubCommand::Go(parse_go(&t)),
    })
}

fn parse_level(t: &Tokens) -> Result<LevelKeys, HubError> {
    // Every key is optional and unknown ones are ignored, as in Scan.
    Ok(LevelKeys {
        depth: optional(t, "depth", whole)?,
        nodes: optional(t, "nodes", whole)?,
        move_time: optional(t, "move-time", seconds)?,
        moves: optional(t, "moves", whole)?,
        time: optional(t, "time", seconds)?,
        inc: optional(t, "inc", seconds)?,
        infinite: t.has("infinite"),
        handicap: optional(t, "handicap", whole)?,
        ply: optional(t, "ply", whole)?,
    })
}

fn parse_go(t: &Tokens) -> GoMode {
    t.args
        .iter()
        .find_map(|a| match a.key.as_str() {
            "think" => Some(GoMode::Think),
            "ponder" => Some(GoMode::Ponder),
            "analyze" | "analyse" => Some(GoMode::Analyze),
            _ => None,
        })
        .unwrap_or(GoMode::Think)
}

impl fmt::Display for Level {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // Reals use `{}`, Rust's shortest form that reads back to the same f64.
        f.write_str("level")?;
        match self {
            Level::Depth(d) => write_plain(f, "depth", d),
            Level::Nodes(n) => write_plain(f, "nodes", n),
            Level::MoveTime(t) => write_plain(f, "move-time", t),
            Level::Infinite => f.write_str(" infinite"),
            Level::Clock { moves, time, inc } => {
                if let Some(m) = moves {
                    write_plain(f, "moves", m)?;
                }
                write_plain(f, "time", time)?;
                if *inc != 0.0 {
                    write_plain(f, "inc", inc)?;
                }
                Ok(())
            }
        }
    }
}

impl fmt::Display for LevelKeys {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("level")?;
        write_some(f, "depth", self.depth)?;
        write_some(f, "nodes", self.nodes)?;
        write_some(f, "move-time", self.move_time)?;
        write_some(f, "moves", self.moves)?;
        write_some(f, "time", self.time)?;
        write_some(f, "inc", self.inc)?;
        write_some(f, "handicap", self.handicap)?;
        write_some(f, "ply", self.ply)?;
        if self.infinite {
            f.write_str(" infinite")?;
        }
        Ok(())
    }
}

impl fmt::Display for GoMode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            GoMode::Think => "think",
            GoMode::Ponder => "ponder",
            GoMode::Analyze => "analyze",
        })
    }
}

/// Prints the line a GUI would send, so that [`parse`] reads back an equal command.
///
/// That holds except where the text cannot carry the value: a move that is empty or holds a
/// blank, and an `Unknown` that is not a single word or is a known command's name.
impl fmt::Display for HubCommand {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            HubCommand::Hub => f.write_str("hub"),
            HubCommand::Init => f.write_str("init"),
            HubCommand::NewGame => f.write_str("new-game"),
            HubCommand::Ping => f.write_str("ping"),
            HubCommand::Stop => f.write_str("stop"),
            HubCommand::PonderHit => f.write_str("ponder-hit"),
            HubCommand::Quit => f.write_str("quit"),
            HubCommand::SetParam { name, value } => {
                f.write_str("set-param")?;
                write_pair(f, "name", name)?;
                write_pair(f, "value", value)
            }
            HubCommand::Pos { pos, moves } => {
                f.write_str("pos")?;
                match pos {
                    Some(pos) => write_pair(f, "pos", pos)?,
                    None => f.write_str(" start")?,
                }
                if !moves.is_empty() {
                    write_pair(f, "moves", &moves.join(" "))?;
                }
                Ok(())
            }
            HubCommand::Level(level) => level.fmt(f),
            HubCommand::Go(mode) => write!(f, "go {mode}"),
            HubCommand::Unknown(word) => f.write_str(word),
        }
    }
}

// ---- replies (engine to GUI) -----------------------------------------------------------------

/// The type of an engine parameter, as declared in its `param` line.
#[derive(Clone, Debug, PartialEq)]
pub enum ParamKind {
    /// `type=bool`.
    Bool,
    /// `type=int min=... max=...`.
    Int {
        /// Smallest allowed value.
        min: i64,
        /// Largest allowed value.
        max: i64,
    },
    /// `type=real min=... max=...`.
    Real {
        /// Smallest allowed value.
        min: f64,
        /// Largest allowed value.
        max: f64,
    },
    /// `type=string`. Also what an absent or unknown `type=` reads as, since the Hub GUI treats
    /// every parameter as a string anyway.
    String,
    /// `type=enum values="a b c"`; each value must be one word.
    Enum(Vec<String>),
}

/// Search information for `info`; every field is optional and absent ones are not printed.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Info {
    /// Nominal depth of the finished iteration.
    pub depth: Option<u32>,
    /// Average leaf depth (`mean-depth`), printed with 1 decimal.
    pub mean_depth: Option<f64>,
    /// Score in men, from the side to move; printed with 2 decimals.
    pub score: Option<f64>,
    /// Nodes searched.
    pub nodes: Option<u64>,
    /// Seconds since the search started, printed with 3 decimals.
    pub time: Option<f64>,
    /// Speed in millions of nodes per second (as Scan), printed with 2 decimals.
    pub nps: Option<f64>,
    /// Principal variation: moves in Hub notation separated by spaces.
    pub pv: Option<String>,
}

/// A line from the engine.
#[derive(Clone, Debug, PartialEq)]
pub enum HubReply {
    /// `id name=... version=... author=... country=...`; empty fields are not printed.
    Id {
        /// Engine name.
        name: String,
        /// Engine version.
        version: String,
        /// Author(s).
        author: String,
        /// Country.
        country: String,
    },
    /// `param name=... value=... type=...` declaring one engine parameter.
    Param {
        /// The parameter's name.
        name: String,
        /// Its current value, as text.
        value: String,
        /// Its type and constraints.
        kind: ParamKind,
    },
    /// `wait`: the end of the parameter list.
    Wait,
    /// `ready`: initialisation is done.
    Ready,
    /// `pong`: the answer to `ping`.
    Pong,
    /// `info ...`: progress of a search.
    Info(Info),
    /// `done [move=...] [ponder=...]`: the end of a search. Without a move, `move=` is left out.
    Done {
        /// The move to play, in Hub notation.
        mv: Option<String>,
        /// The expected reply, for pondering.
        ponder: Option<String>,
    },
    /// `error message="..."`.
    Error(String),
}

/// Prints the exact Hub line, without a line ending.
///
/// [`parse_reply`] reads it back to an equal value when the reals are finite and already at the
/// printed precision (see [`Info`]), enum values are single non-empty words, and `info` and `done`
/// hold no empty moves. A value containing a line break prints as a quoted value with that break
/// in it; the session must not send such values, since Hub is line based.
impl fmt::Display for HubReply {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            HubReply::Id {
                name,
                version,
                author,
                country,
            } => {
                f.write_str("id")?;
                for (key, value) in [
                    ("name", name),
                    ("version", version),
                    ("author", author),
                    ("country", country),
                ] {
                    if !value.is_empty() {
                        write_pair(f, key, value)?;
                    }
                }
                Ok(())
            }
            HubReply::Param { name, value, kind } => {
                f.write_str("param")?;
                write_pair(f, "name", name)?;
                write_pair(f, "value", value)?;
                match kind {
                    ParamKind::Bool => f.write_str(" type=bool"),
                    ParamKind::Int { min, max } => write!(f, " type=int min={min} max={max}"),
                    ParamKind::Real { min, max } => write!(f, " type=real min={min} max={max}"),
                    ParamKind::String => f.write_str(" type=string"),
                    ParamKind::Enum(values) => {
                        f.write_str(" type=enum")?;
                        write_pair(f, "values", &values.join(" "))
                    }
                }
            }
            HubReply::Wait => f.write_str("wait"),
            HubReply::Ready => f.write_str("ready"),
            HubReply::Pong => f.write_str("pong"),
            HubReply::Info(info) => {
                f.write_str("info")?;
                write_some(f, "depth", info.depth)?;
                write_some(f, "mean-depth", info.mean_depth.map(|d| format!("{d:.1}")))?;
                write_some(f, "score", info.score.map(|s| format!("{s:.2}")))?;
                write_some(f, "nodes", info.nodes)?;
                write_some(f, "time", info.time.map(|t| format!("{t:.3}")))?;
                write_some(f, "nps", info.nps.map(|n| format!("{n:.2}")))?;
                if let Some(pv) = &info.pv {
                    write_pair(f, "pv", pv)?;
                }
                Ok(())
            }
            HubReply::Done { mv, ponder } => {
                f.write_str("done")?;
                if let Some(mv) = mv {
                    write_pair(f, "move", mv)?;
                }
                if let Some(p) = ponder {
                    write_pair(f, "ponder", p)?;
                }
                Ok(())
            }
            HubReply::Error(message) => {
                f.write_str("error")?;
                write_pair(f, "message", message)
            }
        }
    }
}

/// Parses a line from the engine; the inverse of `Display for HubReply`. A GUI-side reader
/// (tests, engine matches) uses it. Missing `id` fields read as empty, a missing `error message`
/// as an empty message; unknown keys are ignored.
///
/// # Errors
/// Syntax errors as for [`parse`], [`HubError::UnknownReply`] for an unknown first word, and
/// [`HubError::BadNumber`] or [`HubError::MissingKey`] for a bad `param` or `info`.
pub fn parse_reply(line: &str) -> Result<HubReply, HubError> {
    let t = tokenize(line)?;
    let text = |key| t.get(key).unwrap_or("").to_owned();
    Ok(match t.command.as_str() {
        "id" => HubReply::Id {
            name: text("name"),
            version: text("version"),
            author: text("author"),
            country: text("country"),
        },
        "param" => HubReply::Param {
            name: require(&t, "param", "name")?.to_owned(),
            value: require(&t, "param", "value")?.to_owned(),
            kind: parse_param_kind(&t)?,
        },
        "wait" => HubReply::Wait,
        "ready" => HubReply::Ready,
        "pong" => HubReply::Pong,
        "info" => HubReply::Info(Info {
            depth: optional(&t, "depth", whole)?,
            mean_depth: optional(&t, "mean-depth", real)?,
            score: optional(&t, "score", real)?,
            nodes: optional(&t, "nodes", whole)?,
            time: optional(&t, "time", real)?,
            nps: optional(&t, "nps", real)?,
            pv: t.get("pv").map(str::to_owned),
        }),
        "done" => HubReply::Done {
            mv: t.get("move").map(str::to_owned),
            ponder: t.get("ponder").map(str::to_owned),
        },
        "error" => HubReply::Error(text("message")),
        other => return Err(HubError::UnknownReply(other.to_owned())),
    })
}

fn parse_param_kind(t: &Tokens) -> Result<ParamKind, HubError> {
    let get = |key| require(t, "param", key);
    Ok(match t.get("type").unwrap_or("string") {
        "bool" => ParamKind::Bool,
        "int" => ParamKind::Int {
            min: whole("min", get("min")?)?,
            max: whole("max", get("max")?)?,
        },
        "real" => ParamKind::Real {
            min: real("min", get("min")?)?,
            max: real("max", get("max")?)?,
        },
        "enum" => ParamKind::Enum(
            t.get("values")
                .unwrap_or("")
                .split_whitespace()
                .map(str::to_owned)
                .collect(),
        ),
        _ => ParamKind::String,
    })
}

// ---- tests -----------------------------------------------------------------------------------

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn args(pairs: &[(&str, Option<&str>)]) -> Vec<Arg> {
        pairs
            .iter()
            .map(|(k, v)| Arg {
                key: (*k).to_owned(),
                value: v.map(str::to_owned),
            })
            .collect()
    }

    // -- tokenizer

    #[test]
    fn tokenizes_pairs_quotes_and_flags() {
        let t =
            tokenize(r#"  param name=variant value="" type=enum values="normal killer" flag  "#)
                .unwrap();
        assert_eq!(t.command, "param");
        assert_eq!(
            t.args,
            args(&[
                ("name", Some("variant")),
                ("value", Some("")),
                ("type", Some("enum")),
                ("values", Some("normal killer")),
                ("flag", None),
            ])
        );
        assert_eq!(t.get("flag"), Some(""));
        assert_eq!(t.get("absent"), None);
        assert!(t.has("flag"));
    }

    #[test]
    fn tokenizer_allows_blanks_around_equals_and_tabs() {
        let t = tokenize("set-param\tname = book\tvalue=\t\"a b\"\r").unwrap();
        assert_eq!(
            t.args,
            args(&[("name", Some("book")), ("value", Some("a b"))])
        );
    }

    #[test]
    fn last_repeated_key_wins() {
        let t = tokenize("x a=1 a=2").unwrap();
        assert_eq!(t.get("a"), Some("2"));
    }

    #[test]
    fn tokenizer_reads_escapes_and_keeps_other_backslashes() {
        let t = tokenize(r#"x a="say \"hi\"" b="C:\Program Files\book" c="end\\" d=C:\x"#).unwrap();
        assert_eq!(t.get("a"), Some(r#"say "hi""#));
        assert_eq!(t.get("b"), Some(r"C:\Program Files\book"));
        assert_eq!(t.get("c"), Some("end\\"));
        assert_eq!(t.get("d"), Some(r"C:\x"));
    }

    #[test]
    fn tokenizer_errors() {
        assert_eq!(tokenize(""), Err(HubError::Empty));
        assert_eq!(tokenize(" \t\r"), Err(HubError::Empty));
        assert_eq!(
            tokenize("=x"),
            Err(HubError::ExpectedCommand { found: '=' })
        );
        assert_eq!(
            tokenize("\"hub\""),
            Err(HubError::ExpectedCommand { found: '"' })
        );
        assert_eq!(tokenize("x =1"), Err(HubError::ExpectedKey { found: '=' }));
        assert_eq!(
            tokenize("x a=1 \"b\""),
            Err(HubError::ExpectedKey { found: '"' })
        );
        assert_eq!(
            tokenize("x a="),
            Err(HubError::MissingValue { key: "a".into() })
        );
        assert_eq!(
            tokenize("x a==1"),
            Err(HubError::MissingValue { key: "a".into() })
        );
        assert_eq!(
            tokenize(r#"x pv="32-28 17-22"#),
            Err(HubError::UnterminatedQuote { key: "pv".into() })
        );
        assert_eq!(
            tokenize(r#"x a="ends in escape\""#),
            Err(HubError::UnterminatedQuote { key: "a".into() })
        );
    }

    #[test]
    fn tokenizer_takes_non_ascii_words() {
        let t = tokenize("id author=Jürgen country=Ελλάδα").unwrap();
        assert_eq!(t.get("author"), Some("Jürgen"));
        assert_eq!(t.get("country"), Some("Ελλάδα"));
    }

    #[test]
    fn values_are_quoted_only_when_needed() {
        let show = |v: &str| {
            let mut s = String::new();
            write_value(&mut s, v).unwrap();
            s
        };
        assert_eq!(show("normal"), "normal");
        assert_eq!(show("32-28"), "32-28");
        assert_eq!(show(r"C:\x"), r"C:\x");
        assert_eq!(show(""), r#""""#);
        assert_eq!(show("a b"), r#""a b""#);
        assert_eq!(show("a=b"), r#""a=b""#);
        assert_eq!(show(r#"say "hi""#), r#""say \"hi\"""#);
        assert_eq!(show(r"C:\Program Files\"), r#""C:\Program Files\\""#);
        assert_eq!(show("tab\there"), "\"tab\there\"");
    }

    #[test]
    fn line_breaks_become_blanks() {
        let reply = HubReply::Error("bad pos \"W\r\nquit\"".into());
        assert_eq!(reply.to_string(), r#"error message="bad pos \"W  quit\"""#);
    }

    // -- commands

    #[test]
    fn parses_simple_commands() {
        for (line, cmd) in [
            ("hub", HubCommand::Hub),
            ("init", HubCommand::Init),
            ("new-game", HubCommand::NewGame),
            ("ping", HubCommand::Ping),
            ("stop", HubCommand::Stop),
            ("ponder-hit", HubCommand::PonderHit),
            ("quit", HubCommand::Quit),
            ("  quit  \r", HubCommand::Quit),
            // Arguments of argument-less commands are ignored, even malformed ones.
            ("stop now=\"unterminated", HubCommand::Stop),
        ] {
            assert_eq!(parse(line), Ok(cmd), "{line}");
        }
    }

    #[test]
    fn blank_line_is_an_error() {
        assert_eq!(parse(""), Err(HubError::Empty));
        assert_eq!(parse("   "), Err(HubError::Empty));
    }

    #[test]
    fn unknown_commands_are_values_and_their_arguments_are_not_read() {
        assert_eq!(
            parse("frobnicate"),
            Ok(HubCommand::Unknown("frobnicate".into()))
        );
        assert_eq!(
            parse("future x=\"open"),
            Ok(HubCommand::Unknown("future".into()))
        );
        assert_eq!(parse("Hub"), Ok(HubCommand::Unknown("Hub".into())));
    }

    #[test]
    fn parses_set_param() {
        assert_eq!(
            parse("set-param name=variant value=killer"),
            Ok(HubCommand::SetParam {
                name: "variant".into(),
                value: "killer".into()
            })
        );
        assert_eq!(
            parse(r#"set-param name=book-file value="my book.bin" extra=1"#),
            Ok(HubCommand::SetParam {
                name: "book-file".into(),
                value: "my book.bin".into()
            })
        );
        assert_eq!(
            parse("set-param name=ponder value"),
            Ok(HubCommand::SetParam {
                name: "ponder".into(),
                value: String::new()
            })
        );
        assert_eq!(
            parse("set-param value=1"),
            Err(HubError::MissingKey {
                command: "set-param",
                key: "name"
            })
        );
        assert_eq!(
            parse("set-param name=x"),
            Err(HubError::MissingKey {
                command: "set-param",
                key: "value"
            })
        );
    }

    #[test]
    fn parses_pos() {
        let start = "Wbbbbbbbbbbbbbbbbbbbbeeeeeeeeeewwwwwwwwwwwwwwwwwwww";
        assert_eq!(
            parse(&format!("pos pos={start}")),
            Ok(HubCommand::Pos {
                pos: Some(start.into()),
                moves: vec![]
            })
        );
        assert_eq!(
            parse(&format!("pos pos={start} moves=\"\"")),
            Ok(HubCommand::Pos {
                pos: Some(start.into()),
                moves: vec![]
            })
        );
        assert_eq!(
            parse(&format!("pos moves=\"38-15  5-41 48-26\" pos={start}")),
            Ok(HubCommand::Pos {
                pos: Some(start.into()),
                moves: vec!["38-15".into(), "5-41".into(), "48-26".into()]
            })
        );
        assert_eq!(
            parse(&format!("pos pos={start} moves=28x19x23")),
            Ok(HubCommand::Pos {
                pos: Some(start.into()),
                moves: vec!["28x19x23".into()]
            })
        );
        // The start position, as Scan reads these.
        for line in ["pos", "pos start", "pos pos=Wee start", "pos pos=startpos"] {
            assert_eq!(
                parse(line),
                Ok(HubCommand::Pos {
                    pos: None,
                    moves: vec![]
                }),
                "{line}"
            );
        }
        assert_eq!(
            parse("pos moves=32-28"),
            Ok(HubCommand::Pos {
                pos: None,
                moves: vec!["32-28".into()]
            })
        );
    }

    #[test]
    fn parses_level_keys_in_any_combination() {
        let level = |line: &str| {
            parse(line).map(|c| match c {
                HubCommand::Level(l) => l,
                other => panic!("not a level: {other:?}"),
            })
        };
        let keys = LevelKeys::default;
        assert_eq!(level("level depth=12"), Ok(Level::Depth(12).into()));
        assert_eq!(
            level("level nodes=1000000"),
            Ok(Level::Nodes(1_000_000).into())
        );
        assert_eq!(
            level("level move-time=0.25"),
            Ok(Level::MoveTime(0.25).into())
        );
        assert_eq!(level("level infinite"), Ok(Level::Infinite.into()));
        assert_eq!(
            level("level moves=9 time=291.587"),
            Ok(LevelKeys {
                moves: Some(9),
                time: Some(291.587),
                ..keys()
            })
        );
        // Several limits on one line, as lidraughts and draughtsnet send them.
        assert_eq!(
            level("level depth=3 move-time=0.2 colour=blue"),
            Ok(LevelKeys {
                depth: Some(3),
                move_time: Some(0.2),
                ..keys()
            })
        );
        assert_eq!(
            level("level handicap=3 ply=4"),
            Ok(LevelKeys {
                handicap: Some(3),
                ply: Some(4),
                ..keys()
            })
        );
        // A client whose overhead exceeds its clock: Scan clamps to zero.
        assert_eq!(
            level("level time=-0.613 inc=-0.1"),
            Ok(LevelKeys {
                time: Some(0.0),
                inc: Some(0.0),
                ..keys()
            })
        );
        assert_eq!(
            level("level moves=0 time=3 inc=0.1"),
            Ok(LevelKeys {
                moves: Some(0),
                time: Some(3.0),
                inc: Some(0.1),
                ..keys()
            })
        );
        assert_eq!(level("level"), Ok(keys()));
        assert_eq!(level("level colour=blue"), Ok(keys()));
    }

    #[test]
    fn level_rejects_bad_numbers() {
        let bad = |key: &'static str, value: &str| match parse(&format!("level {key}={value}")) {
            Err(HubError::BadNumber {
                key: k, value: v, ..
            }) => k == key && v == value,
            _ => false,
        };
        assert!(bad("depth", "ten"));
        assert!(bad("depth", "-1"));
        assert!(bad("depth", "1.5"));
        assert!(bad("depth", "99999999999"));
        assert!(bad("nodes", "1e6"));
        assert!(bad("move-time", "NaN"));
        assert!(bad("move-time", "inf"));
        assert!(bad("time", "soon"));
        assert!(bad("handicap", "300"));
        assert!(matches!(
            parse("level time=1 inc=x"),
            Err(HubError::BadNumber { key: "inc", .. })
        ));
        assert!(matches!(
            parse("level time=1 moves=1.5"),
            Err(HubError::BadNumber { key: "moves", .. })
        ));
        assert_eq!(
            parse("level depth"),
            Err(bad_number("depth", "", "a whole number in range"))
        );
    }

    #[test]
    fn parses_go_modes() {
        for (line, mode) in [
            ("go", GoMode::Think),
            ("go think", GoMode::Think),
            ("go ponder", GoMode::Ponder),
            ("go analyze", GoMode::Analyze),
            ("go analyse", GoMode::Analyze),
            ("go fast ponder", GoMode::Ponder),
            ("go fast", GoMode::Think),
        ] {
            assert_eq!(parse(line), Ok(HubCommand::Go(mode)), "{line}");
        }
    }

    #[test]
    fn error_messages_say_what_was_wrong() {
        assert_eq!(
            parse("level depth=ten").unwrap_err().to_string(),
            "'depth=ten' is not a whole number in range"
        );
        assert_eq!(
            parse(r#"pos pos="Wee"#).unwrap_err().to_string(),
            "the value of 'pos' has no closing quote"
        );
    }

    #[test]
    fn commands_print_as_hub_lines() {
        let pos = HubCommand::Pos {
            pos: Some("Wbbbbbbbbbbbbbbbbbbbbeeeeeeeeeewwwwwwwwwwwwwwwwwwww".into()),
            moves: vec!["32-28".into(), "19-23".into()],
        };
        assert_eq!(
            pos.to_string(),
            "pos pos=Wbbbbbbbbbbbbbbbbbbbbeeeeeeeeeewwwwwwwwwwwwwwwwwwww moves=\"32-28 19-23\""
        );
        assert_eq!(
            HubCommand::Level(
                Level::Clock {
                    moves: Some(9),
                    time: 291.587,
                    inc: 0.0
                }
                .into()
            )
            .to_string(),
            "level moves=9 time=291.587"
        );
        assert_eq!(
            HubCommand::Level(
                Level::Clock {
                    moves: None,
                    time: 60.0,
                    inc: 0.5
                }
                .into()
            )
            .to_string(),
            "level time=60 inc=0.5"
        );
        assert_eq!(
            HubCommand::Level(Level::Infinite.into()).to_string(),
            "level infinite"
        );
        assert_eq!(HubCommand::Go(GoMode::Analyze).to_string(), "go analyze");
        assert_eq!(
            HubCommand::SetParam {
                name: "book".into(),
                value: String::new()
            }
            .to_string(),
            "set-param name=book value=\"\""
        );
    }

    // -- replies

    #[test]
    fn replies_print_exact_lines() {
        let id = HubReply::Id {
            name: "Kroon".into(),
            version: "0.1".into(),
            author: "A. N. Author".into(),
            country: "Netherlands".into(),
        };
        assert_eq!(
            id.to_string(),
            r#"id name=Kroon version=0.1 author="A. N. Author" country=Netherlands"#
        );
        let variant = HubReply::Param {
            name: "variant".into(),
            value: "normal".into(),
            kind: ParamKind::Enum(vec!["normal".into(), "killer".into()]),
        };
        assert_eq!(
            variant.to_string(),
            r#"param name=variant value=normal type=enum values="normal killer""#
        );
        let threads = HubReply::Param {
            name: "threads".into(),
            value: "1".into(),
            kind: ParamKind::Int { min: 1, max: 64 },
        };
        assert_eq!(
            threads.to_string(),
            "param name=threads value=1 type=int min=1 max=64"
        );
        let margin = HubReply::Param {
            name: "margin".into(),
            value: "0.5".into(),
            kind: ParamKind::Real { min: 0.0, max: 2.5 },
        };
        assert_eq!(
            margin.to_string(),
            "param name=margin value=0.5 type=real min=0 max=2.5"
        );
        let book = HubReply::Param {
            name: "book".into(),
            value: "true".into(),
            kind: ParamKind::Bool,
        };
        assert_eq!(book.to_string(), "param name=book value=true type=bool");
        let file = HubReply::Param {
            name: "book-file".into(),
            value: String::new(),
            kind: ParamKind::String,
        };
        assert_eq!(
            file.to_string(),
            r#"param name=book-file value="" type=string"#
        );
        assert_eq!(HubReply::Wait.to_string(), "wait");
        assert_eq!(HubReply::Ready.to_string(), "ready");
        assert_eq!(HubReply::Pong.to_string(), "pong");
        assert_eq!(
            HubReply::Done {
                mv: Some("32-28".into()),
                ponder: Some("17-22".into())
            }
            .to_string(),
            "done move=32-28 ponder=17-22"
        );
        assert_eq!(
            HubReply::Done {
                mv: Some("28x19x23".into()),
                ponder: None
            }
            .to_string(),
            "done move=28x19x23"
        );
        assert_eq!(
            HubReply::Done {
                mv: None,
                ponder: None
            }
            .to_string(),
            "done"
        );
        assert_eq!(
            HubReply::Error("'depth=x' is not a number".into()).to_string(),
            r#"error message="'depth=x' is not a number""#
        );
    }

    #[test]
    fn info_prints_compact_reals() {
        let info = Info {
            depth: Some(21),
            mean_depth: Some(20.8),
            score: Some(-0.01),
            nodes: Some(31_261_613),
            time: Some(3.906),
            nps: Some(8.0),
            pv: Some("32-28 17-22".into()),
        };
        assert_eq!(
            HubReply::Info(info).to_string(),
            r#"info depth=21 mean-depth=20.8 score=-0.01 nodes=31261613 time=3.906 nps=8.00 pv="32-28 17-22""#
        );
        let partial = Info {
            depth: Some(12),
            score: Some(0.1),
            pv: Some("32-28".into()),
            ..Info::default()
        };
        assert_eq!(
            HubReply::Info(partial).to_string(),
            "info depth=12 score=0.10 pv=32-28"
        );
        assert_eq!(HubReply::Info(Info::default()).to_string(), "info");
    }

    #[test]
    fn parses_scan_style_replies() {
        assert_eq!(
            parse_reply(r#"id name=Scan version=3.0 author="Fabien Letouzey" country=France"#),
            Ok(HubReply::Id {
                name: "Scan".into(),
                version: "3.0".into(),
                author: "Fabien Letouzey".into(),
                country: "France".into(),
            })
        );
        assert_eq!(
            parse_reply("id name=X"),
            Ok(HubReply::Id {
                name: "X".into(),
                version: String::new(),
                author: String::new(),
                country: String::new()
            })
        );
        assert_eq!(
            parse_reply(r#"param name=variant value=normal type=enum values="normal killer bt""#),
            Ok(HubReply::Param {
                name: "variant".into(),
                value: "normal".into(),
                kind: ParamKind::Enum(vec!["normal".into(), "killer".into(), "bt".into()]),
            })
        );
        assert_eq!(
            parse_reply("param name=x value=1"),
            Ok(HubReply::Param {
                name: "x".into(),
                value: "1".into(),
                kind: ParamKind::String
            })
        );
        assert_eq!(
            parse_reply("param name=x value=1 type=colour"),
            Ok(HubReply::Param {
                name: "x".into(),
                value: "1".into(),
                kind: ParamKind::String
            })
        );
        let line = r#"info depth=21 mean-depth=20.8 score=-0.01 nodes=31261613 time=3.906 nps=8.0 pv="32-28 17-22 28x17x22""#;
        assert_eq!(
            parse_reply(line),
            Ok(HubReply::Info(Info {
                depth: Some(21),
                mean_depth: Some(20.8),
                score: Some(-0.01),
                nodes: Some(31_261_613),
                time: Some(3.906),
                nps: Some(8.0),
                pv: Some("32-28 17-22 28x17x22".into()),
            }))
        );
        assert_eq!(
            parse_reply("done move=32-28 ponder=17-22"),
            Ok(HubReply::Done {
                mv: Some("32-28".into()),
                ponder: Some("17-22".into())
            })
        );
        assert_eq!(parse_reply("error"), Ok(HubReply::Error(String::new())));
    }

    #[test]
    fn reply_errors() {
        assert_eq!(
            parse_reply("bestmove 32-28"),
            Err(HubError::UnknownReply("bestmove".into()))
        );
        assert_eq!(
            parse_reply("param value=1"),
            Err(HubError::MissingKey {
                command: "param",
                key: "name"
            })
        );
        assert_eq!(
            parse_reply("param name=t value=1 type=int min=1"),
            Err(HubError::MissingKey {
                command: "param",
                key: "max"
            })
        );
        assert!(matches!(
            parse_reply("param name=t value=1 type=int min=1 max=lots"),
            Err(HubError::BadNumber { key: "max", .. })
        ));
        assert!(matches!(
            parse_reply("info depth=-3"),
            Err(HubError::BadNumber { key: "depth", .. })
        ));
        assert!(matches!(
            parse_reply("info score=NaN"),
            Err(HubError::BadNumber { key: "score", .. })
        ));
        assert_eq!(parse_reply(""), Err(HubError::Empty));
    }

    // -- properties

    /// Values without line breaks: a line cannot carry one (see `line_breaks_become_blanks`).
    fn any_text() -> impl Strategy<Value = String> {
        prop_oneof![
            "[^\r\n]*",
            "[a-z0-9 =\"\\\\-]{0,12}",
            Just(String::new()),
            Just("\\".to_owned()),
            Just("\"".to_owned()),
        ]
    }

    fn hub_move() -> impl Strategy<Value = String> {
        "[1-9][0-9]?(-[1-9][0-9]?|(x[1-9][0-9]?){2,5})"
    }

    fn level() -> impl Strategy<Value = LevelKeys> {
        let secs = || (0u32..10_000_000).prop_map(|ms| f64::from(ms) / 1000.0);
        prop_oneof![
            any::<u32>().prop_map(Level::Depth),
            any::<u64>().prop_map(Level::Nodes),
            secs().prop_map(Level::MoveTime),
            Just(Level::Infinite),
            (proptest::option::of(any::<u32>()), secs(), secs())
                .prop_map(|(moves, time, inc)| Level::Clock { moves, time, inc }),
            // Any finite non-negative f64 survives too, since `{}` prints the shortest exact form.
            (0.0..f64::MAX).prop_map(Level::MoveTime),
        ]
        .prop_map(LevelKeys::from)
    }

    fn command() -> impl Strategy<Value = HubCommand> {
        prop_oneof![
            Just(HubCommand::Hub),
            Just(HubCommand::Init),
            Just(HubCommand::NewGame),
            Just(HubCommand::Ping),
            Just(HubCommand::Stop),
            Just(HubCommand::PonderHit),
            Just(HubCommand::Quit),
            (any_text(), any_text()).prop_map(|(name, value)| HubCommand::SetParam { name, value }),
            (
                proptest::option::of(any_text()),
                prop::collection::vec(hub_move(), 0..6)
            )
                .prop_map(|(pos, moves)| HubCommand::Pos { pos, moves }),
            level().prop_map(HubCommand::Level),
            prop_oneof![
                Just(GoMode::Think),
                Just(GoMode::Ponder),
                Just(GoMode::Analyze)
            ]
            .prop_map(HubCommand::Go),
            "[a-z][a-z-]{0,10}"
                .prop_filter("known command", |w| !KNOWN.contains(&w.as_str()))
                .prop_map(HubCommand::Unknown),
        ]
    }

    const KNOWN: [&str; 11] = [
        "hub",
        "init",
        "new-game",
        "ping",
        "stop",
        "ponder-hit",
        "quit",
        "set-param",
        "pos",
        "level",
        "go",
    ];

    fn scaled(scale: f64) -> impl Strategy<Value = f64> {
        (-1_000_000_000i32..1_000_000_000).prop_map(move |k| f64::from(k) / scale)
    }

    fn reply() -> impl Strategy<Value = HubReply> {
        let word = || "[a-z0-9-]{1,8}";
        let kind = prop_oneof![
            Just(ParamKind::Bool),
            (any::<i64>(), any::<i64>()).prop_map(|(min, max)| ParamKind::Int { min, max }),
            (-1e300..1e300, -1e300..1e300f64).prop_map(|(min, max)| ParamKind::Real { min, max }),
            Just(ParamKind::String),
            prop::collection::vec(word(), 0..5).prop_map(ParamKind::Enum),
        ];
        let info = (
            proptest::option::of(any::<u32>()),
            proptest::option::of(scaled(10.0)),
            proptest::option::of(scaled(100.0)),
            proptest::option::of(any::<u64>()),
            proptest::option::of(scaled(1000.0)),
            proptest::option::of(scaled(100.0)),
            proptest::option::of(prop_oneof![
                any_text(),
                prop::collection::vec(hub_move(), 0..8).prop_map(|m| m.join(" "))
            ]),
        )
            .prop_map(|(depth, mean_depth, score, nodes, time, nps, pv)| Info {
                depth,
                mean_depth,
                score,
                nodes,
                time,
                nps,
                pv,
            });
        prop_oneof![
            (any_text(), any_text(), any_text(), any_text()).prop_map(
                |(name, version, author, country)| HubReply::Id {
                    name,
                    version,
                    author,
                    country
                }
            ),
            (any_text(), any_text(), kind).prop_map(|(name, value, kind)| HubReply::Param {
                name,
                value,
                kind
            }),
            Just(HubReply::Wait),
            Just(HubReply::Ready),
            Just(HubReply::Pong),
            info.prop_map(HubReply::Info),
            (
                proptest::option::of(any_text()),
                proptest::option::of(any_text())
            )
                .prop_map(|(mv, ponder)| HubReply::Done { mv, ponder }),
            any_text().prop_map(HubReply::Error),
        ]
    }

    /// Lines that look like commands, so that the canonical-form property sees many successes.
    fn command_like() -> impl Strategy<Value = String> {
        let arg = "[a-z-]{1,9}(=([0-9.]{1,6}|[a-z0-9-]{1,6}|\"[^\"\\\\]{0,8}\"))?";
        (
            "(go|level|pos|set-param|hub|stop|ping|[a-z]{1,5})",
            prop::collection::vec(arg, 0..5),
        )
            .prop_map(|(cmd, args)| format!("{cmd} {}", args.join(" ")))
    }

    proptest! {
        #[test]
        fn parse_never_panics(line in ".*") {
            let _ = parse(&line);
            let _ = parse_reply(&line);
            let _ = tokenize(&line);
        }

        #[test]
        fn parse_never_panics_on_lossy_bytes(bytes in prop::collection::vec(any::<u8>(), 0..200)) {
            let line = String::from_utf8_lossy(&bytes);
            let _ = parse(&line);
            let _ = parse_reply(&line);
        }

        #[test]
        fn reply_display_then_parse_is_identity(r in reply()) {
            let line = r.to_string();
            prop_assert_eq!(parse_reply(&line), Ok(r), "line: {}", line);
        }

        #[test]
        fn command_display_then_parse_is_identity(c in command()) {
            let line = c.to_string();
            prop_assert_eq!(parse(&line), Ok(c), "line: {}", line);
        }

        #[test]
        fn any_value_survives_quoting(value in any_text()) {
            let mut line = String::from("x k=");
            write_value(&mut line, &value).unwrap();
            let t = tokenize(&line).unwrap();
            prop_assert_eq!(t.get("k"), Some(value.as_str()));
        }

        #[test]
        fn printing_a_parsed_command_is_canonical(line in command_like()) {
            if let Ok(cmd) = parse(&line) {
                let again = cmd.to_string();
                prop_assert_eq!(parse(&again), Ok(cmd), "from {:?} via {:?}", line, again);
            }
        }
    }
}
