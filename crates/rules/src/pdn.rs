//! PDN: files of games as databases and websites export them, read into [`PdnGame`] values
//! (tags, start position, moves with their comments, marks and variations, result) and written
//! back. One reader and one writer serve every command: `kroon match` (its openings and its
//! games), `kroon dxp`'s game records, `kroon annotate` and `kroon analyse --pdn`.
//!
//! What the reader takes: tag pairs with escaped quotes; `{comments}` and `;` line comments;
//! `(variations)`, nested; NAGs (`$1`) and the marks `!`, `?`, `!!`, `??`, `!?`, `?!`, glued to
//! the move or apart; move numbers with and without `...`, glued to the move or apart; moves as
//! the variant's players write them, captures with or without their landing squares (`28x19`,
//! `26x37x48`); a `FEN` start (with or without `SetUp`); `GameType` (20 international, 21
//! English, 25 Russian, 26 Brazilian, 40 Frisian; also the full form `20,W,10,10,N2,0`) or
//! Kroon's own `Variant` tag; the results `2-0 1-1 0-2 1-0 0-1 0-0 *`; `%` escape lines;
//! Windows line ends. [`decode_text`] turns Latin-1 files into text. A game that cannot be read
//! is skipped and reported with its name and its first bad move; the others are kept.

// A reader of outside input: bad text must come back as errors, so no panicking shortcuts.
#![cfg_attr(
    not(test),
    deny(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing)
)]

use crate::fen::{parse_fen, write_fen, FenError};
use crate::mv::Move;
use crate::notation::{self, MoveError};
use crate::position::{Colour, Position};
use crate::variant::Variant;
use std::fmt;

/// Longest line of move text.
const LINE: usize = 80;

/// Deepest nesting of variations read; deeper text is refused rather than recursed into.
const MAX_DEPTH: usize = 64;

/// The result tokens read; `*` is an unfinished game.
pub const RESULTS: [&str; 10] = [
    "2-0", "0-2", "1-1", "1-0", "0-1", "0-0", "*", "1/2-1/2", "½-½", "2-2",
];

/// Tags the writer puts before `GameType` and `FEN` (the PDN seven-tag roster).
const ROSTER: [&str; 7] = ["Event", "Site", "Date", "Round", "White", "Black", "Result"];

/// Tags that say the variant or the start: read into [`PdnGame::start`], written from it.
const SETUP_TAGS: [&str; 4] = ["GameType", "FEN", "SetUp", "Variant"];

/// A game as a PDN file holds it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PdnGame {
    /// Tag pairs in order, without the ones that set the variant and the start (`GameType`,
    /// `FEN`, `SetUp`, `Variant`): those are [`PdnGame::start`].
    pub tags: Vec<(String, String)>,
    /// The start position, of the game's variant.
    pub start: Position,
    /// The moves played, with their comments, marks and variations.
    pub line: PdnLine,
    /// The result token (one of [`RESULTS`]).
    pub result: String,
}

/// A line of moves: the game's, or a variation.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PdnLine {
    /// Comments before the first move.
    pub intro: Vec<String>,
    /// The moves in order.
    pub moves: Vec<PdnMove>,
}

/// A move of a line and what is written after it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PdnMove {
    /// The move, legal in the position the line reaches.
    pub mv: Move,
    /// Numeric annotation glyphs: 1 `!`, 2 `?`, 3 `!!`, 4 `??`, 5 `!?`, 6 `?!`, others as `$n`.
    pub nags: Vec<u8>,
    /// Comments after the move, without their braces.
    pub comments: Vec<String>,
    /// Variations: other moves in place of this one, from the position before it.
    pub variations: Vec<PdnLine>,
}

impl PdnMove {
    /// A move with nothing written after it.
    #[must_use]
    pub fn new(mv: Move) -> PdnMove {
        PdnMove {
            mv,
            nags: Vec::new(),
            comments: Vec::new(),
            variations: Vec::new(),
        }
    }
}

impl PdnGame {
    /// A game of `moves` from `start`, without comments.
    #[must_use]
    pub fn new(tags: Vec<(String, String)>, start: Position, moves: &[Move], result: &str) -> Self {
        debug_assert!(RESULTS.contains(&result), "{result}");
        PdnGame {
            tags,
            start,
            line: PdnLine {
                intro: Vec::new(),
                moves: moves.iter().copied().map(PdnMove::new).collect(),
            },
            result: result.to_owned(),
        }
    }

    /// The value of a tag (names compare without case).
    #[must_use]
    pub fn tag(&self, name: &str) -> Option<&str> {
        self.tags
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }

    /// The moves of the game, without variations.
    #[must_use]
    pub fn moves(&self) -> Vec<Move> {
        self.line.moves.iter().map(|m| m.mv).collect()
    }

    /// The position after the first `ply` moves (all of them when the game is shorter).
    #[must_use]
    pub fn position_at(&self, ply: usize) -> Position {
        self.line
            .moves
            .iter()
            .take(ply)
            .fold(self.start, |pos, m| pos.play(&m.mv))
    }

    /// Adds a comment after the last move (before the first when there is none), such as why the
    /// game ended.
    pub fn comment_last(&mut self, text: String) {
        match self.line.moves.last_mut() {
            Some(m) => m.comments.push(text),
            None => self.line.intro.push(text),
        }
    }

    /// The game's name for messages: `White - Black`, with the event and round where given.
    #[must_use]
    pub fn name(&self) -> String {
        describe(&self.tags)
    }
}

/// `White - Black (Event, round R)` from whichever of those tags there are.
fn describe(tags: &[(String, String)]) -> String {
    let get = |name: &str| {
        tags.iter()
            .find(|(k, v)| k.eq_ignore_ascii_case(name) && !v.trim().is_empty() && v != "?")
            .map(|(_, v)| v.trim())
    };
    let mut out = match (get("White"), get("Black")) {
        (Some(w), Some(b)) => format!("{w} - {b}"),
        (Some(w), None) => w.to_owned(),
        (None, Some(b)) => b.to_owned(),
        (None, None) => String::new(),
    };
    let place: Vec<String> = [
        get("Event").map(str::to_owned),
        get("Round").map(|r| format!("round {r}")),
    ]
    .into_iter()
    .flatten()
    .collect();
    match (out.is_empty(), place.is_empty()) {
        (_, true) => {}
        (true, false) => out = place.join(", "),
        (false, false) => out.push_str(&format!(" ({})", place.join(", "))),
    }
    out
}

/// Why a game could not be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PdnError {
    /// A `{` comment that never closes.
    #[error("unclosed comment {{")]
    UnclosedComment,
    /// A `[` tag that never closes.
    #[error("unclosed tag [")]
    UnclosedTag,
    /// A `(` variation that never closes.
    #[error("unclosed variation (")]
    UnclosedVariation,
    /// A `)` without its `(`.
    #[error("`)` without `(`")]
    StrayClose,
    /// A variation before any move it could replace.
    #[error("a variation before the first move")]
    VariationFirst,
    /// Variations nested deeper than the reader follows.
    #[error("variations nested more than {MAX_DEPTH} deep")]
    TooDeep,
    /// A `GameType` or `Variant` tag Kroon does not play.
    #[error("variant `{0}` is not one Kroon plays")]
    Variant(String),
    /// A `FEN` tag that does not read.
    #[error("FEN tag `{0}`: {1}")]
    Fen(String, FenError),
    /// A move that does not read or is not legal where it stands.
    #[error("move {number} `{text}`: {error}")]
    Move {
        /// The move number as PDN writes it: `12.` for the first mover, `12...` for the second.
        number: String,
        /// The move as written.
        text: String,
        /// What is wrong with it.
        error: MoveError,
    },
}

/// A game left out of a file, and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Skipped {
    /// Its place in the file, from 1.
    pub number: usize,
    /// Its name from the tags (players, event, round), empty without them.
    pub name: String,
    /// What could not be read.
    pub error: PdnError,
}

impl fmt::Display for Skipped {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "game {}", self.number)?;
        if !self.name.is_empty() {
            write!(f, " ({})", self.name)?;
        }
        write!(f, ": {}", self.error)
    }
}

/// What a PDN file gave: the games read, in order, and the ones skipped.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PdnFile {
    /// Every game that reads.
    pub games: Vec<PdnGame>,
    /// Every game that does not, with the reason.
    pub skipped: Vec<Skipped>,
}

/// File bytes as text: UTF-8 when they are (a byte-order mark dropped), else Latin-1, as older
/// databases write.
#[must_use]
pub fn decode_text(bytes: &[u8]) -> String {
    let bytes = bytes.strip_prefix(b"\xef\xbb\xbf").unwrap_or(bytes);
    match std::str::from_utf8(bytes) {
        Ok(text) => text.to_owned(),
        Err(_) => bytes.iter().map(|&b| char::from(b)).collect(),
    }
}

/// PDN `GameType` numbers (PDN 3.0) for the variants that have one.
#[must_use]
pub fn game_type(v: Variant) -> Option<u32> {
    match v {
        Variant::International => Some(20),
        Variant::English => Some(21),
        Variant::Russian => Some(25),
        Variant::Brazilian => Some(26),
        Variant::Frisian => Some(40),
        _ => None,
    }
}

/// The variant of a `GameType` value (`20`, or the full `20,W,10,10,N2,0`).
fn variant_of_game_type(value: &str) -> Result<Variant, PdnError> {
    let number = value.split(',').next().unwrap_or_default().trim();
    Variant::ALL
        .into_iter()
        .find(|&v| game_type(v).is_some_and(|t| number.parse() == Ok(t)))
        .ok_or_else(|| PdnError::Variant(format!("GameType {value}")))
}

/// What the lexer sees.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Token {
    Tag(String, String),
    Comment(String),
    Open,
    Close,
    Nag(u8),
    /// A move as written, without its number or marks.
    Move(String),
    Result(String),
}

/// The NAG of a mark written after a move.
fn mark_nag(mark: &str) -> Option<u8> {
    match mark {
        "!" => Some(1),
        "?" => Some(2),
        "!!" => Some(3),
        "??" => Some(4),
        "!?" => Some(5),
        "?!" => Some(6),
        _ => None,
    }
}

/// The mark a NAG is written as, for 1 to 6.
fn nag_mark(nag: u8) -> Option<&'static str> {
    ["!", "?", "!!", "??", "!?", "?!"]
        .get(usize::from(nag).wrapping_sub(1))
        .copied()
}

/// Comment text as kept: whitespace runs become one blank (the writer keeps a comment on one
/// line), and a `{` becomes `|` as the writer writes it, so that readers that pair braces agree.
fn comment_text(raw: &str) -> String {
    raw.split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .replace(['{', '}'], "|")
}

/// Splits text into tokens, in games: each entry is one game's tokens, or the error that ended
/// the text inside it.
struct Lexer<'a> {
    chars: std::iter::Peekable<std::str::Chars<'a>>,
    line_start: bool,
}

impl Lexer<'_> {
    fn new(text: &str) -> Lexer<'_> {
        Lexer {
            chars: text.chars().peekable(),
            line_start: true,
        }
    }

    fn take_line(&mut self) {
        for c in self.chars.by_ref() {
            if c == '\n' {
                break;
            }
        }
        self.line_start = true;
    }

    /// The next token; `None` at the end of the text.
    fn next_token(&mut self) -> Option<Result<Token, PdnError>> {
        loop {
            let &c = self.chars.peek()?;
            if self.line_start && c == '%' {
                self.take_line();
                continue;
            }
            if c.is_whitespace() {
                self.line_start = c == '\n';
                self.chars.next();
                continue;
            }
            self.line_start = false;
            self.chars.next();
            return Some(match c {
                '[' => self.tag(),
                '{' => {
                    let mut raw = String::new();
                    loop {
                        match self.chars.next() {
                            Some('}') => break Ok(Token::Comment(comment_text(&raw))),
                            Some(c) => raw.push(c),
                            None => break Err(PdnError::UnclosedComment),
                        }
                    }
                }
                ';' => {
                    let raw: String = self.chars.by_ref().take_while(|&c| c != '\n').collect();
                    self.line_start = true;
                    Ok(Token::Comment(comment_text(&raw)))
                }
                '(' => Ok(Token::Open),
                ')' => Ok(Token::Close),
                ']' => continue,
                _ => {
                    let mut word = String::from(c);
                    while let Some(&c) = self.chars.peek() {
                        if c.is_whitespace() || "[]{}();$".contains(c) {
                            break;
                        }
                        word.push(c);
                        self.chars.next();
                    }
                    match word_token(&word) {
                        Some(t) => Ok(t),
                        None => continue,
                    }
                }
            });
        }
    }

    /// After `[`: a name, then a value in quotes (with `\"` and `\\` escapes) or bare, then `]`.
    fn tag(&mut self) -> Result<Token, PdnError> {
        let mut name = String::new();
        while let Some(&c) = self.chars.peek() {
            if c.is_whitespace() || c == '"' || c == ']' {
                break;
            }
            name.push(c);
            self.chars.next();
        }
        while self.chars.peek().is_some_and(|c| c.is_whitespace()) {
            self.chars.next();
        }
        let mut value = String::new();
        if self.chars.peek() == Some(&'"') {
            self.chars.next();
            loop {
                match self.chars.next() {
                    Some('"') => break,
                    Some('\\') => match self.chars.next() {
                        Some(c @ ('"' | '\\')) => value.push(c),
                        Some(c) => {
                            value.push('\\');
                            value.push(c);
                        }
                        None => return Err(PdnError::UnclosedTag),
                    },
                    Some(c) => value.push(c),
                    None => return Err(PdnError::UnclosedTag),
                }
            }
            for c in self.chars.by_ref() {
                if c == ']' {
                    return Ok(Token::Tag(name, value));
                }
            }
            Err(PdnError::UnclosedTag)
        } else {
            for c in self.chars.by_ref() {
                if c == ']' {
                    return Ok(Token::Tag(name, value.trim().to_owned()));
                }
                value.push(c);
            }
            Err(PdnError::UnclosedTag)
        }
    }
}

/// A word of movetext: a result, a NAG, a mark, a move number (skipped: `None`), or a move with
/// its number and marks taken off. Marks come back as NAG tokens after the move, so a word can
/// be two tokens; the second is queued by the caller through [`split_marks`].
fn word_token(word: &str) -> Option<Token> {
    if RESULTS.contains(&word) {
        return Some(Token::Result(word.to_owned()));
    }
    if let Some(n) = word.strip_prefix('$') {
        return Some(Token::Nag(n.parse().unwrap_or(0)));
    }
    // `12.`, `12...`, alone or glued to the move (`12.32-28`); `...` alone.
    let rest = word.trim_start_matches(|c: char| c.is_ascii_digit());
    let rest = if rest.starts_with('.') {
        rest.trim_start_matches('.')
    } else {
        word
    };
    if rest.is_empty() {
        return None;
    }
    Some(Token::Move(rest.to_owned()))
}

/// A move word split into the move and its marks (`32-28!?` gives `32-28` and 5).
fn split_marks(word: &str) -> (&str, Option<u8>) {
    let body = word.trim_end_matches(['!', '?']);
    let mark = word.get(body.len()..).unwrap_or_default();
    if mark.is_empty() {
        (word, None)
    } else {
        (body, Some(mark_nag(mark).unwrap_or(0)))
    }
}

/// One game's tokens, or the error that ended the text inside it.
struct RawGame {
    tokens: Vec<Token>,
    error: Option<PdnError>,
}

/// Cuts the text into games: a game is its tags, then movetext up to a result, the next tag or
/// the end of the text.
fn split_games(text: &str) -> Vec<RawGame> {
    let mut lexer = Lexer::new(text);
    let mut games = Vec::new();
    let mut tokens: Vec<Token> = Vec::new();
    let mut in_moves = false;
    let close = |tokens: &mut Vec<Token>, games: &mut Vec<RawGame>, error: Option<PdnError>| {
        let useful = tokens
            .iter()
            .any(|t| matches!(t, Token::Tag(..) | Token::Move(_)));
        if useful || error.is_some() {
            games.push(RawGame {
                tokens: std::mem::take(tokens),
                error,
            });
        }
        tokens.clear();
    };
    while let Some(token) = lexer.next_token() {
        match token {
            Err(e) => {
                close(&mut tokens, &mut games, Some(e));
                return games;
            }
            Ok(Token::Tag(name, value)) => {
                if in_moves {
                    close(&mut tokens, &mut games, None);
                    in_moves = false;
                }
                tokens.push(Token::Tag(name, value));
            }
            Ok(Token::Result(r)) => {
                tokens.push(Token::Result(r));
                close(&mut tokens, &mut games, None);
                in_moves = false;
            }
            Ok(Token::Move(word)) => {
                in_moves = true;
                // A mark glued to its move, or alone after it.
                let (mv, nag) = split_marks(&word);
                if !mv.is_empty() {
                    tokens.push(Token::Move(mv.to_owned()));
                }
                if let Some(n) = nag {
                    tokens.push(Token::Nag(n));
                }
            }
            Ok(t) => {
                in_moves = true;
                tokens.push(t);
            }
        }
    }
    close(&mut tokens, &mut games, None);
    games
}

/// Reads every game of a PDN text. Games without a `GameType` or `Variant` tag are of
/// `default`. A game that cannot be read lands in [`PdnFile::skipped`] with its first error.
#[must_use]
pub fn read_pdn(text: &str, default: Variant) -> PdnFile {
    let mut file = PdnFile::default();
    for (i, raw) in split_games(text).into_iter().enumerate() {
        let tags: Vec<(String, String)> = raw
            .tokens
            .iter()
            .filter_map(|t| match t {
                Token::Tag(k, v) => Some((k.clone(), v.clone())),
                _ => None,
            })
            .collect();
        let read = match raw.error {
            Some(e) => Err(e),
            None => build(&raw.tokens, tags.clone(), default),
        };
        match read {
            Ok(game) => file.games.push(game),
            Err(error) => file.skipped.push(Skipped {
                number: i + 1,
                name: describe(&tags),
                error,
            }),
        }
    }
    file
}

/// A game from its tokens: the variant and start from the tags, then the moves checked by the
/// rules.
fn build(
    tokens: &[Token],
    all_tags: Vec<(String, String)>,
    default: Variant,
) -> Result<PdnGame, PdnError> {
    let find = |name: &str| {
        all_tags
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.trim())
    };
    // Kroon's `Variant` tag names the variants without a `GameType`; other programs' names
    // that Kroon does not know leave the choice to `GameType`.
    let named = find("Variant").map(|name| (name, name.parse::<Variant>()));
    let variant = match (named, find("GameType")) {
        (Some((_, Ok(v))), _) => v,
        (_, Some(t)) => variant_of_game_type(t)?,
        (Some((name, Err(_))), None) => return Err(PdnError::Variant(name.to_owned())),
        (None, None) => default,
    };
    let start = match find("FEN") {
        Some(fen) if !fen.is_empty() => {
            // Lidraughts adds the half-move clock and move number (`:H0:F1`).
            let text = fen
                .trim_end_matches('.')
                .split(':')
                .filter(|part| {
                    let counter = part.trim().strip_prefix(['H', 'F']);
                    !counter.is_some_and(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
                })
                .collect::<Vec<_>>()
                .join(":");
            parse_fen(&text, variant).map_err(|e| PdnError::Fen(fen.to_owned(), e))?
        }
        _ => Position::initial(variant),
    };
    let tags = all_tags
        .into_iter()
        .filter(|(k, _)| !k.is_empty() && !SETUP_TAGS.iter().any(|s| s.eq_ignore_ascii_case(k)))
        .collect();
    let mut moves = tokens
        .iter()
        .filter(|t| !matches!(t, Token::Tag(..)))
        .peekable();
    let line = read_line(&mut moves, start, 0, 0, start.turn())?;
    let result = tokens
        .iter()
        .find_map(|t| match t {
            Token::Result(r) => Some(r.clone()),
            _ => None,
        })
        .unwrap_or_else(|| "*".to_owned());
    Ok(PdnGame {
        tags,
        start,
        line,
        result,
    })
}

/// `12.` or `12...`: the number of the move played after `ply` plies of a game whose first
/// position had `first` to move.
fn move_number(ply: usize, first: Colour) -> String {
    let ply = ply + usize::from(first == Colour::Black);
    let dots = if ply.is_multiple_of(2) { "." } else { "..." };
    format!("{}{dots}", ply / 2 + 1)
}

/// Reads a line from `pos` (reached after `ply` plies) up to the `)` that closes it (or the
/// end, at depth 0).
fn read_line<'a>(
    tokens: &mut std::iter::Peekable<impl Iterator<Item = &'a Token>>,
    mut pos: Position,
    mut ply: usize,
    depth: usize,
    first: Colour,
) -> Result<PdnLine, PdnError> {
    let mut line = PdnLine::default();
    let mut before = pos;
    loop {
        let Some(token) = tokens.next() else {
            return if depth == 0 {
                Ok(line)
            } else {
                Err(PdnError::UnclosedVariation)
            };
        };
        match token {
            Token::Tag(..) | Token::Result(_) => {}
            Token::Comment(c) => match line.moves.last_mut() {
                Some(m) => m.comments.push(c.clone()),
                None => line.intro.push(c.clone()),
            },
            Token::Nag(n) => {
                if let Some(m) = line.moves.last_mut() {
                    m.nags.push(*n);
                }
            }
            Token::Move(text) => {
                let mv = notation::parse_move(&pos, text).map_err(|error| PdnError::Move {
                    number: move_number(ply, first),
                    text: text.clone(),
                    error,
                })?;
                before = pos;
                pos = pos.play(&mv);
                ply += 1;
                line.moves.push(PdnMove::new(mv));
            }
            Token::Open => {
                if depth + 1 > MAX_DEPTH {
                    return Err(PdnError::TooDeep);
                }
                let variation = read_line(tokens, before, ply.saturating_sub(1), depth + 1, first)?;
                match line.moves.last_mut() {
                    Some(m) => m.variations.push(variation),
                    None => return Err(PdnError::VariationFirst),
                }
            }
            Token::Close => {
                return if depth == 0 {
                    Err(PdnError::StrayClose)
                } else {
                    Ok(line)
                };
            }
        }
    }
}

/// A tag value with `\` and `"` escaped.
fn quoted(value: &str) -> String {
    format!("\"{}\"", value.replace('\\', "\\\\").replace('"', "\\\""))
}

/// A comment: braces inside would end it early, so they become `|`; a line break would let a
/// `%` start an escape line, so whitespace runs become one blank.
fn comment(text: &str) -> String {
    format!("{{{}}}", comment_text(text))
}

/// The units of a line's movetext, each never broken across lines: `1. 32-28`, `19-23`, a
/// comment, `(2... 13x24` ... `34-29)`.
fn line_units(line: &PdnLine, start: Position, start_ply: usize, first: Colour) -> Vec<String> {
    let mut units: Vec<String> = line.intro.iter().map(|c| comment(c)).collect();
    let mut pos = start;
    // The second side's move is numbered (`1...`) only where a line starts: after a comment or
    // a variation it goes unnumbered, which PDN allows and which readers that count two moves
    // per number (pydraughts) need.
    let mut number_due = true;
    for (ply, m) in (start_ply..).zip(&line.moves) {
        let number = move_number(ply, first);
        let mut text = notation::display(&pos, &m.mv);
        match m.nags.as_slice() {
            [n] if nag_mark(*n).is_some() => text.push_str(nag_mark(*n).unwrap_or_default()),
            _ => {}
        }
        units.push(if number.ends_with("...") && !number_due {
            text
        } else {
            format!("{number} {text}")
        });
        match m.nags.as_slice() {
            [n] if nag_mark(*n).is_some() => {}
            nags => units.extend(nags.iter().map(|n| format!("${n}"))),
        }
        units.extend(m.comments.iter().map(|c| comment(c)));
        number_due = false;
        for v in &m.variations {
            let mut inner = line_units(v, pos, ply, first);
            match inner.first_mut() {
                Some(head) => head.insert(0, '('),
                None => inner.push("(".to_owned()),
            }
            if let Some(tail) = inner.last_mut() {
                tail.push(')');
            }
            units.extend(inner);
        }
        pos = pos.play(&m.mv);
    }
    units
}

/// The whole game as PDN text, ending with a blank line, ready to append to a file. The tags
/// come in order, with `GameType` (or Kroon's `Variant` tag) and `FEN` (when the start is not
/// the initial position) after the roster tags; moves are in the variant's notation, the long
/// form where a short one would be ambiguous; lines are wrapped at 80 columns.
#[must_use]
pub fn write_pdn(game: &PdnGame) -> String {
    let v = game.start.variant();
    let mut setup = vec![match game_type(v) {
        Some(t) => ("GameType", t.to_string()),
        None => ("Variant", v.hub_name().to_owned()),
    }];
    if game.start != Position::initial(v) {
        setup.push(("FEN", write_fen(&game.start)));
    }
    let at = game
        .tags
        .iter()
        .position(|(k, _)| !ROSTER.contains(&k.as_str()))
        .unwrap_or(game.tags.len());
    let mut out = String::new();
    let (head, tail) = game.tags.split_at(at);
    let tags = head
        .iter()
        .map(|(k, v)| (k.as_str(), v.clone()))
        .chain(setup)
        .chain(tail.iter().map(|(k, v)| (k.as_str(), v.clone())));
    for (name, value) in tags {
        out.push_str(&format!("[{name} {}]\n", quoted(&value)));
    }
    out.push('\n');
    let mut units = line_units(&game.line, game.start, 0, game.start.turn());
    units.push(game.result.clone());
    let mut line = String::new();
    for u in units {
        if !line.is_empty() && line.len() + 1 + u.len() > LINE {
            out.push_str(&line);
            out.push('\n');
            line.clear();
        }
        if !line.is_empty() {
            line.push(' ');
        }
        line.push_str(&u);
    }
    out.push_str(&line);
    out.push_str("\n\n");
    out
}

/// Moves as PDN movetext from `start`, without tags or result: `1. 32-28 19-23 2. ...`, starting
/// `1...` when the second side moves first.
#[must_use]
pub fn movetext(start: &Position, moves: &[Move]) -> String {
    let line = PdnLine {
        intro: Vec::new(),
        moves: moves.iter().copied().map(PdnMove::new).collect(),
    };
    line_units(&line, *start, 0, start.turn()).join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::notation::parse_move;

    const V: Variant = Variant::International;

    fn moves(start: &Position, texts: &[&str]) -> Vec<Move> {
        let mut pos = *start;
        texts
            .iter()
            .map(|t| {
                let mv = parse_move(&pos, t).unwrap();
                pos = pos.play(&mv);
                mv
            })
            .collect()
    }

    fn tags(pairs: &[(&str, &str)]) -> Vec<(String, String)> {
        pairs
            .iter()
            .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
            .collect()
    }

    #[test]
    fn tags_moves_comments_and_wrapping() {
        let start = Position::initial(V);
        let played = moves(&start, &["32-28", "19-23", "28x19", "14x23"]);
        let mut game = PdnGame::new(
            tags(&[
                ("White", "A \"1\""),
                ("Result", "1-1"),
                ("Termination", "normal"),
            ]),
            start,
            &played,
            "1-1",
        );
        game.line.moves[2].comments.push("+0.12/7 {x}".into());
        game.comment_last("draw".into());
        let text = write_pdn(&game);
        assert!(text.starts_with(
            "[White \"A \\\"1\\\"\"]\n[Result \"1-1\"]\n[GameType \"20\"]\n[Termination \"normal\"]\n\n"
        ));
        assert!(
            text.ends_with("1. 32-28 19-23 2. 28x19 {+0.12/7 |x|} 14x23 {draw} 1-1\n\n"),
            "{text}"
        );
        let mut many = Vec::new();
        let mut pos = start;
        for _ in 0..14 {
            let mv = pos.legal_moves()[0];
            pos = pos.play(&mv);
            many.push(mv);
        }
        let mut game = PdnGame::new(Vec::new(), start, &many, "*");
        for m in &mut game.line.moves {
            m.comments
                .push("a comment long enough to push the line".into());
        }
        let text = write_pdn(&game);
        assert!(text.lines().all(|l| l.len() <= LINE), "{text}");
    }

    #[test]
    fn a_start_position_with_the_second_side_to_move() {
        let start = parse_fen("B:W38,K46:B19,23", V).unwrap();
        let text = write_pdn(&PdnGame::new(
            Vec::new(),
            start,
            &moves(&start, &["19-24"]),
            "*",
        ));
        assert!(text.contains("[FEN \"B:W38,K46:B19,23\"]"), "{text}");
        assert!(text.ends_with("1... 19-24 *\n\n"), "{text}");
        let r = Position::initial(Variant::Russian);
        let text = write_pdn(&PdnGame::new(Vec::new(), r, &moves(&r, &["c3-d4"]), "*"));
        assert!(text.contains("[GameType \"25\"]\n\n1. c3-d4 *"), "{text}");
    }

    #[test]
    fn variations_marks_and_comments_read_and_write_back() {
        let text = "[Event \"e\"]\n{before} 1. 32-28! {good} (1. 33-29?! $14 {also} (1. 31-26 \
                    20-25) 1... 19-23) 1... 19-23 2. 28x19 14x23 $7 1-1";
        let file = read_pdn(text, V);
        assert!(file.skipped.is_empty(), "{:?}", file.skipped);
        let [game] = file.games.as_slice() else {
            panic!("{file:?}")
        };
        assert_eq!(game.line.intro, ["before"]);
        let first = &game.line.moves[0];
        assert_eq!(first.nags, [1]);
        assert_eq!(first.comments, ["good"]);
        assert_eq!(first.variations.len(), 1);
        let alt = &first.variations[0];
        assert_eq!(alt.moves.len(), 2);
        assert_eq!(alt.moves[0].nags, [6, 14]);
        assert_eq!(alt.moves[0].variations[0].moves.len(), 2);
        assert_eq!(game.line.moves[3].nags, [7]);
        let written = write_pdn(game);
        assert!(
            written.replace('\n', " ").contains(
                "{before} 1. 32-28! {good} (1. 33-29 $6 $14 {also} (1. 31-26 20-25) 19-23) 19-23"
            ),
            "{written}"
        );
        let back = read_pdn(&written, V);
        assert_eq!(back.games, file.games);
    }

    #[test]
    fn a_bad_game_is_skipped_by_name_and_move() {
        let text = "[White \"A\"]\n[Black \"B\"]\n[Round \"3\"]\n1. 32-28 19-23 2. 28-22 *\n\n\
                    [White \"C\"]\n1. 33-29 *\n";
        let file = read_pdn(text, V);
        assert_eq!(file.games.len(), 1);
        assert_eq!(file.games[0].tag("White"), Some("C"));
        assert_eq!(
            file.skipped[0].to_string(),
            "game 1 (A - B (round 3)): move 2. `28-22`: illegal move `28-22`"
        );
    }

    #[test]
    fn game_types_and_latin1() {
        assert_eq!(variant_of_game_type("25,W,8,8,A0,0"), Ok(Variant::Russian));
        assert!(variant_of_game_type("22").is_err());
        assert_eq!(decode_text(b"caf\xe9"), "café");
        assert_eq!(decode_text("café".as_bytes()), "café");
        assert_eq!(move_number(0, Colour::White), "1.");
        assert_eq!(move_number(3, Colour::White), "2...");
        assert_eq!(move_number(0, Colour::Black), "1...");
    }
}
