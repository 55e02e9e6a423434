//! DamExchange (DXP) message codec: the seven fixed-width text messages and their types, with no I/O.
//!
//! A message is a header letter and fixed-width ASCII fields: numbers zero-padded, names padded
//! with spaces to 32 (DamExchange pages, mirrored in Scan `src/dxp.cpp` and Moby Dam `main/dxp.c`).
//! The NUL byte that ends each message on the wire is framing and is not part of these strings.
//!
//! `FromStr` and `Display` are inverses: every string that parses prints back to itself, and every
//! value prints to a string that parses back to it, with two exceptions that the types document
//! (names longer than 32 characters or with trailing spaces, and text that is not printable ASCII).
//! Parsing is total: a peer's bytes can give an error, never a panic. Nothing here checks a move
//! against the rules; that is the session's job.

// A reader of outside input: bad bytes must come back as errors, so no panicking shortcuts.
#![cfg_attr(
    not(test),
    deny(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing)
)]

use std::fmt::{self, Write as _};
use std::str::FromStr;

use thiserror::Error;

/// Width of the name fields in game request and game accept.
pub const NAME_WIDTH: usize = 32;

// ---- errors ----------------------------------------------------------------------------------

/// Why a DXP message could not be read.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub enum DxpError {
    /// No header letter at all.
    #[error("empty message")]
    Empty,
    /// DXP is ASCII; any other byte makes the message unreadable.
    #[error("message contains non-ASCII bytes")]
    NonAscii,
    /// The frame was not even UTF-8 (the session converts bytes with `DxpError::from`).
    #[error("message is not UTF-8: {0}")]
    Utf8(#[from] std::str::Utf8Error),
    /// The header letter is none of R, A, M, E, C, B, K.
    #[error("unknown message header {0:?}")]
    UnknownHeader(char),
    /// A single message type was asked to parse another message.
    #[error("expected a message with header {expected:?}, found {found:?}")]
    WrongHeader {
        /// The header of the type being parsed.
        expected: char,
        /// The header found.
        found: char,
    },
    /// The message ends inside a field.
    #[error("{message} message too short: {field} needs {needed} byte(s), {left} left")]
    TooShort {
        /// Which message.
        message: &'static str,
        /// Which field was cut off.
        field: &'static str,
        /// The field's width.
        needed: usize,
        /// What was left of the message.
        left: usize,
    },
    /// A numeric field holds something other than digits.
    #[error("{field}: {text:?} is not a number")]
    BadDigit {
        /// Which field.
        field: &'static str,
        /// The field's text.
        text: String,
    },
    /// A character that the field does not allow.
    #[error("{field}: unexpected character {found:?}")]
    BadChar {
        /// Which field.
        field: &'static str,
        /// The character found.
        found: char,
    },
    /// A square number outside 1..=50.
    #[error("{field}: {value} is not a field number (1-50)")]
    BadField {
        /// Which field.
        field: &'static str,
        /// The number found.
        value: u8,
    },
    /// A move whose capture count does not match the squares that follow it.
    #[error("move declares {count} captured piece(s) but {digits} digit(s) follow")]
    CountMismatch {
        /// The declared number of captured pieces.
        count: usize,
        /// How many digits follow the count.
        digits: usize,
    },
    /// More bytes after the last field.
    #[error("{message} message has {extra} trailing byte(s)")]
    TrailingBytes {
        /// Which message.
        message: &'static str,
        /// How many bytes too many.
        extra: usize,
    },
    /// A move built with more captured pieces than the two-digit count can carry.
    #[error("{0} captured pieces do not fit the two-digit count")]
    TooManyCaptures(usize),
}

// ---- field reader ----------------------------------------------------------------------------

/// Reads fixed-width fields from the bytes of one message. The message has been checked to be
/// ASCII before, so every byte is one character; all slicing goes through `get`.
struct Fields<'a> {
    message: &'static str,
    bytes: &'a [u8],
    pos: usize,
}

impl<'a> Fields<'a> {
    /// Checks the message is ASCII and starts with `header`, and positions after the header.
    fn open(text: &'a str, header: u8, message: &'static str) -> Result<Self, DxpError> {
        let bytes = text.as_bytes();
        let Some(&first) = bytes.first() else {
            return Err(DxpError::Empty);
        };
        if !text.is_ascii() {
            return Err(DxpError::NonAscii);
        }
        if first != header {
            return Err(DxpError::WrongHeader {
                expected: char::from(header),
                found: char::from(first),
            });
        }
        Ok(Fields {
            message,
            bytes,
            pos: 1,
        })
    }

    fn left(&self) -> usize {
        self.bytes.len().saturating_sub(self.pos)
    }

    fn take(&mut self, width: usize, field: &'static str) -> Result<&'a [u8], DxpError> {
        let short = DxpError::TooShort {
            message: self.message,
            field,
            needed: width,
            left: self.left(),
        };
        let end = self.pos.checked_add(width).ok_or(short.clone())?;
        let slice = self.bytes.get(self.pos..end).ok_or(short)?;
        self.pos = end;
        Ok(slice)
    }

    fn number(&mut self, width: usize, field: &'static str) -> Result<u32, DxpError> {
        let digits = self.take(width, field)?;
        if !digits.iter().all(u8::is_ascii_digit) {
            return Err(DxpError::BadDigit {
                field,
                text: String::from_utf8_lossy(digits).into_owned(),
            });
        }
        // At most four digits, so this cannot overflow.
        Ok(digits.iter().fold(0, |n, d| n * 10 + u32::from(d - b'0')))
    }

    /// A two-digit field number, which must name a square of the 10x10 board.
    fn square(&mut self, field: &'static str) -> Result<u8, DxpError> {
        let value = u8::try_from(self.number(2, field)?).unwrap_or(u8::MAX);
        check_square(field, value)
    }

    fn byte(&mut self, field: &'static str) -> Result<u8, DxpError> {
        Ok(self.take(1, field)?.first().copied().unwrap_or(0))
    }

    /// A 32-character name; trailing spaces are padding.
    fn name(&mut self, field: &'static str) -> Result<String, DxpError> {
        let raw = self.take(NAME_WIDTH, field)?;
        printable(field, raw)?;
        let text = String::from_utf8_lossy(raw);
        Ok(text.trim_end_matches(' ').to_owned())
    }

    fn rest(&mut self) -> &'a [u8] {
        let rest = self.bytes.get(self.pos..).unwrap_or_default();
        self.pos = self.bytes.len();
        rest
    }

    fn finish(self) -> Result<(), DxpError> {
        match self.left() {
            0 => Ok(()),
            extra => Err(DxpError::TrailingBytes {
                message: self.message,
                extra,
            }),
        }
    }
}

fn check_square(field: &'static str, value: u8) -> Result<u8, DxpError> {
    if (1..=50).contains(&value) {
        Ok(value)
    } else {
        Err(DxpError::BadField { field, value })
    }
}

/// Names and chat are printable ASCII: a control byte (NUL above all) would break the framing.
fn printable(field: &'static str, bytes: &[u8]) -> Result<(), DxpError> {
    match bytes.iter().find(|b| !is_printable(**b)) {
        Some(&b) => Err(DxpError::BadChar {
            field,
            found: char::from(b),
        }),
        None => Ok(()),
    }
}

fn is_printable(b: u8) -> bool {
    (b' '..=b'~').contains(&b)
}

/// Writes text that must stay printable ASCII, replacing anything else with `?`.
fn write_printable(f: &mut fmt::Formatter<'_>, text: &str) -> fmt::Result {
    for c in text.chars() {
        let printable = u8::try_from(c).is_ok_and(is_printable);
        f.write_char(if printable { c } else { '?' })?;
    }
    Ok(())
}

/// Writes a name as exactly 32 characters: cut if longer, space-padded if shorter.
fn write_name(f: &mut fmt::Formatter<'_>, name: &str) -> fmt::Result {
    let mut width = 0;
    for c in name.chars().take(NAME_WIDTH) {
        let printable = u8::try_from(c).is_ok_and(is_printable);
        f.write_char(if printable { c } else { '?' })?;
        width += 1;
    }
    for _ in width..NAME_WIDTH {
        f.write_char(' ')?;
    }
    Ok(())
}

/// Writes a number zero-padded to `width` digits; a value too large for the field prints as the
/// largest the field holds, so that the message keeps its length.
fn write_number(f: &mut fmt::Formatter<'_>, value: u32, width: usize) -> fmt::Result {
    let max = 10u32
        .saturating_pow(u32::try_from(width).unwrap_or(u32::MAX))
        .saturating_sub(1);
    write!(f, "{:0width$}", value.min(max))
}

// ---- small enums -----------------------------------------------------------------------------

/// A side in DXP: `W` white, `Z` black ("zwart").
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum DxpColour {
    /// `W`.
    White,
    /// `Z`.
    Black,
}

impl DxpColour {
    fn from_byte(field: &'static str, b: u8) -> Result<Self, DxpError> {
        match b {
            b'W' => Ok(DxpColour::White),
            b'Z' => Ok(DxpColour::Black),
            _ => Err(DxpError::BadChar {
                field,
                found: char::from(b),
            }),
        }
    }

    /// The letter on the wire.
    #[must_use]
    pub fn to_char(self) -> char {
        match self {
            DxpColour::White => 'W',
            DxpColour::Black => 'Z',
        }
    }
}

/// The contents of one square in a DXP position.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum DxpPiece {
    /// `e`.
    Empty,
    /// `w`.
    WhiteMan,
    /// `z`.
    BlackMan,
    /// `W`.
    WhiteKing,
    /// `Z`.
    BlackKing,
}

impl DxpPiece {
    fn from_byte(b: u8) -> Result<Self, DxpError> {
        match b {
            b'e' => Ok(DxpPiece::Empty),
            b'w' => Ok(DxpPiece::WhiteMan),
            b'z' => Ok(DxpPiece::BlackMan),
            b'W' => Ok(DxpPiece::WhiteKing),
            b'Z' => Ok(DxpPiece::BlackKing),
            _ => Err(DxpError::BadChar {
                field: "position",
                found: char::from(b),
            }),
        }
    }

    /// The letter on the wire.
    #[must_use]
    pub fn to_char(self) -> char {
        match self {
            DxpPiece::Empty => 'e',
            DxpPiece::WhiteMan => 'w',
            DxpPiece::BlackMan => 'z',
            DxpPiece::WhiteKing => 'W',
            DxpPiece::BlackKing => 'Z',
        }
    }
}

/// A starting position sent with `B` in a game request: side to move, then fields 1 to 50.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct DxpPosition {
    /// The side to move first.
    pub turn: DxpColour,
    /// The contents of fields 1..=50, at indices 0..50.
    pub squares: [DxpPiece; 50],
}

impl DxpPosition {
    /// Reads the 51 characters `turn` + 50 squares from `fields`.
    fn read(fields: &mut Fields<'_>) -> Result<Self, DxpError> {
        let turn = DxpColour::from_byte("colour to move", fields.byte("colour to move")?)?;
        let text = fields.take(50, "position")?;
        let mut squares = [DxpPiece::Empty; 50];
        for (square, &b) in squares.iter_mut().zip(text) {
            *square = DxpPiece::from_byte(b)?;
        }
        Ok(DxpPosition { turn, squares })
    }
}

/// The 51 characters as they appear after `B` in a game request.
impl fmt::Display for DxpPosition {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_char(self.turn.to_char())?;
        self.squares
            .iter()
            .try_for_each(|p| f.write_char(p.to_char()))
    }
}

/// Parses the 51 characters `W`/`Z` + 50 of `ewzWZ`.
impl FromStr for DxpPosition {
    type Err = DxpError;
    fn from_str(s: &str) -> Result<Self, DxpError> {
        if !s.is_ascii() {
            return Err(DxpError::NonAscii);
        }
        let mut fields = Fields {
            message: "position",
            bytes: s.as_bytes(),
            pos: 0,
        };
        let pos = DxpPosition::read(&mut fields)?;
        fields.finish()?;
        Ok(pos)
    }
}

/// Game accept code.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum AcceptCode {
    /// `0`: the game is accepted.
    Accepted,
    /// `1`: the protocol version is not supported.
    UnsupportedVersion,
    /// `2`: not this game (colour, time or position).
    Declined,
    /// `3`: no more games.
    NoMoreGames,
}

/// Why the game ended, from the sender's point of view.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum EndReason {
    /// `0`: unknown.
    Unknown,
    /// `1`: the sender loses.
    SenderLoses,
    /// `2`: draw.
    Draw,
    /// `3`: the sender wins.
    SenderWins,
}

/// Whether the sender wants another game.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum StopCode {
    /// `0`: a next game is welcome.
    Continue,
    /// `1`: no more games.
    Stop,
}

/// Answer to a take-back request.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum BackAcc {
    /// `0`: accepted.
    Accepted,
    /// `1`: take-back is not supported.
    NotSupported,
    /// `2`: declined.
    Declined,
}

/// Maps a one-digit code to its variant, `table[digit]`.
fn code<T: Copy>(field: &'static str, b: u8, table: &[T]) -> Result<T, DxpError> {
    b.checked_sub(b'0')
        .and_then(|i| table.get(usize::from(i)))
        .copied()
        .ok_or(DxpError::BadChar {
            field,
            found: char::from(b),
        })
}

/// The digit of `value` in `table`; the tables below list every variant, so it is always found.
fn digit<T: PartialEq>(value: &T, table: &[T]) -> char {
    let i = table.iter().position(|t| t == value).unwrap_or(0);
    char::from(b'0' + u8::try_from(i).unwrap_or(0))
}

const ACCEPT_CODES: [AcceptCode; 4] = [
    AcceptCode::Accepted,
    AcceptCode::UnsupportedVersion,
    AcceptCode::Declined,
    AcceptCode::NoMoreGames,
];
const END_REASONS: [EndReason; 4] = [
    EndReason::Unknown,
    EndReason::SenderLoses,
    EndReason::Draw,
    EndReason::SenderWins,
];
const STOP_CODES: [StopCode; 2] = [StopCode::Continue, StopCode::Stop];
const BACK_CODES: [BackAcc; 3] = [BackAcc::Accepted, BackAcc::NotSupported, BackAcc::Declined];

// ---- messages --------------------------------------------------------------------------------

/// `R`: the initiator proposes a game.
///
/// Printing cuts names to 32 characters, replaces non-printable characters with `?`, and caps
/// numbers at the field's maximum (99 for the version, 999 for minutes and moves); a name of at
/// most 32 printable characters without trailing spaces, with numbers in range, reads back equal.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct GameReq {
    /// Protocol version, 2 digits; the current one is 1.
    pub version: u8,
    /// The initiator's name.
    pub initiator: String,
    /// The colour the follower plays.
    pub follower_colour: DxpColour,
    /// Thinking time for the game, in minutes (3 digits).
    pub minutes: u16,
    /// Number of moves to play in that time (3 digits).
    pub moves: u16,
    /// `None` (`A`): the initial position; `Some` (`B`): this position.
    pub start: Option<DxpPosition>,
}

impl FromStr for GameReq {
    type Err = DxpError;
    fn from_str(s: &str) -> Result<Self, DxpError> {
        let mut f = Fields::open(s, b'R', "game request")?;
        let version = u8::try_from(f.number(2, "version")?).unwrap_or(u8::MAX);
        let initiator = f.name("initiator name")?;
        let follower_colour = DxpColour::from_byte("follower colour", f.byte("follower colour")?)?;
        let minutes = u16::try_from(f.number(3, "thinking time")?).unwrap_or(u16::MAX);
        let moves = u16::try_from(f.number(3, "number of moves")?).unwrap_or(u16::MAX);
        let start = match f.byte("starting position")? {
            b'A' => None,
            b'B' => Some(DxpPosition::read(&mut f)?),
            b => {
                return Err(DxpError::BadChar {
                    field: "starting position",
                    found: char::from(b),
                })
            }
        };
        f.finish()?;
        Ok(GameReq {
            version,
            initiator,
            follower_colour,
            minutes,
            moves,
            start,
        })
    }
}

impl fmt::Display for GameReq {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_char('R')?;
        write_number(f, self.version.into(), 2)?;
        write_name(f, &self.initiator)?;
        f.write_char(self.follower_colour.to_char())?;
        write_number(f, self.minutes.into(), 3)?;
        write_number(f, self.moves.into(), 3)?;
        match &self.start {
            None => f.write_char('A'),
            Some(pos) => write!(f, "B{pos}"),
        }
    }
}

/// `A`: the follower answers a game request. Names print as in [`GameReq`].
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct GameAcc {
    /// The follower's name.
    pub follower: String,
    /// Whether the game is accepted, and if not, why.
    pub code: AcceptCode,
}

impl FromStr for GameAcc {
    type Err = DxpError;
    fn from_str(s: &str) -> Result<Self, DxpError> {
        let mut f = Fields::open(s, b'A', "game accept")?;
        let follower = f.name("follower name")?;
        let code = code("acceptance code", f.byte("acceptance code")?, &ACCEPT_CODES)?;
        f.finish()?;
        Ok(GameAcc { follower, code })
    }
}

impl fmt::Display for GameAcc {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_char('A')?;
        write_name(f, &self.follower)?;
        f.write_char(digit(&self.code, &ACCEPT_CODES))
    }
}

/// `M`: a move, as from field, to field and the captured fields (in any order).
///
/// The fields are private so that every value holds field numbers in 1..=50 and at most 99
/// captures, which is what makes printing exact; build one with [`DxpMove::new`].
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct DxpMove {
    time: u16,
    from: u8,
    to: u8,
    captured: Vec<u8>,
}

impl DxpMove {
    /// Largest time the four-digit field can carry, in seconds.
    pub const MAX_TIME: u16 = 9999;

    /// A move that took `seconds` to find. A longer time is sent as [`DxpMove::MAX_TIME`], since
    /// the field has four digits and the exact figure is only informative.
    ///
    /// # Errors
    /// [`DxpError::BadField`] for a field number outside 1..=50, and
    /// [`DxpError::TooManyCaptures`] for more than 99 captured pieces.
    pub fn new(seconds: u32, from: u8, to: u8, captured: &[u8]) -> Result<Self, DxpError> {
        check_square("from", from)?;
        check_square("to", to)?;
        for &c in captured {
            check_square("captured", c)?;
        }
        if captured.len() > 99 {
            return Err(DxpError::TooManyCaptures(captured.len()));
        }
        let time = u16::try_from(seconds.min(u32::from(Self::MAX_TIME))).unwrap_or(Self::MAX_TIME);
        Ok(DxpMove {
            time,
            from,
            to,
            captured: captured.to_vec(),
        })
    }

    /// Seconds the sender used for this move.
    #[must_use]
    pub fn time(&self) -> u16 {
        self.time
    }

    /// The field the piece starts on, 1..=50.
    #[must_use]
    pub fn from(&self) -> u8 {
        self.from
    }

    /// The field the piece ends on, 1..=50 (equal to `from` for a king capturing in a circle).
    #[must_use]
    pub fn to(&self) -> u8 {
        self.to
    }

    /// The fields of the captured pieces, in the order sent.
    #[must_use]
    pub fn captured(&self) -> &[u8] {
        &self.captured
    }
}

impl FromStr for DxpMove {
    type Err = DxpError;
    fn from_str(s: &str) -> Result<Self, DxpError> {
        let mut f = Fields::open(s, b'M', "move")?;
        let time = u16::try_from(f.number(4, "time")?).unwrap_or(Self::MAX_TIME);
        let from = f.square("from")?;
        let to = f.square("to")?;
        let count = usize::try_from(f.number(2, "number captured")?).unwrap_or(usize::MAX);
        // Check the count against what follows before reading: a peer's count is not to be trusted.
        if count.checked_mul(2) != Some(f.left()) {
            return Err(DxpError::CountMismatch {
                count,
                digits: f.left(),
            });
        }
        let captured = (0..count)
            .map(|_| f.square("captured"))
            .collect::<Result<Vec<_>, _>>()?;
        f.finish()?;
        Ok(DxpMove {
            time,
            from,
            to,
            captured,
        })
    }
}

impl fmt::Display for DxpMove {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_char('M')?;
        write_number(f, self.time.into(), 4)?;
        write_number(f, self.from.into(), 2)?;
        write_number(f, self.to.into(), 2)?;
        write_number(f, u32::try_from(self.captured.len()).unwrap_or(u32::MAX), 2)?;
        self.captured
            .iter()
            .try_for_each(|&c| write_number(f, c.into(), 2))
    }
}

/// `E`: the sender ends the game.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct GameEnd {
    /// The result as the sender sees it.
    pub reason: EndReason,
    /// Whether the sender wants another game.
    pub stop: StopCode,
}

impl FromStr for GameEnd {
    type Err = DxpError;
    fn from_str(s: &str) -> Result<Self, DxpError> {
        let mut f = Fields::open(s, b'E', "game end")?;
        let reason = code("reason", f.byte("reason")?, &END_REASONS)?;
        let stop = code("stop code", f.byte("stop code")?, &STOP_CODES)?;
        f.finish()?;
        Ok(GameEnd { reason, stop })
    }
}

impl fmt::Display for GameEnd {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "E{}{}",
            digit(&self.reason, &END_REASONS),
            digit(&self.stop, &STOP_CODES)
        )
    }
}

/// `B`: the sender asks to go back to a move number, with the side to move there.
/// The move number prints capped at 999.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct BackReq {
    /// The move number to return to (3 digits).
    pub move_number: u16,
    /// The side to move at that point.
    pub turn: DxpColour,
}

impl FromStr for BackReq {
    type Err = DxpError;
    fn from_str(s: &str) -> Result<Self, DxpError> {
        let mut f = Fields::open(s, b'B', "back request")?;
        let move_number = u16::try_from(f.number(3, "move number")?).unwrap_or(u16::MAX);
        let turn = DxpColour::from_byte("colour to move", f.byte("colour to move")?)?;
        f.finish()?;
        Ok(BackReq { move_number, turn })
    }
}

impl fmt::Display for BackReq {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_char('B')?;
        write_number(f, self.move_number.into(), 3)?;
        f.write_char(self.turn.to_char())
    }
}

impl FromStr for BackAcc {
    type Err = DxpError;
    fn from_str(s: &str) -> Result<Self, DxpError> {
        let mut f = Fields::open(s, b'K', "back accept")?;
        let acc = code("acceptance code", f.byte("acceptance code")?, &BACK_CODES)?;
        f.finish()?;
        Ok(acc)
    }
}

/// `K` and the code.
impl fmt::Display for BackAcc {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "K{}", digit(self, &BACK_CODES))
    }
}

/// Any DXP message, chosen by its header letter (Scan `handle_string`).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Dxp {
    /// `R`.
    GameReq(GameReq),
    /// `A`.
    GameAcc(GameAcc),
    /// `M`.
    Move(DxpMove),
    /// `E`.
    GameEnd(GameEnd),
    /// `C`: free text. It must be printable ASCII; printing replaces anything else with `?`,
    /// so that a NUL or a line break can never reach the wire. DXP sets no length limit, but Moby
    /// Dam reads at most 127 bytes per message, so the session should keep chat short.
    Chat(String),
    /// `B`.
    BackReq(BackReq),
    /// `K`.
    BackAcc(BackAcc),
}

impl FromStr for Dxp {
    type Err = DxpError;
    fn from_str(s: &str) -> Result<Self, DxpError> {
        let Some(&header) = s.as_bytes().first() else {
            return Err(DxpError::Empty);
        };
        if !s.is_ascii() {
            return Err(DxpError::NonAscii);
        }
        Ok(match header {
            b'R' => Dxp::GameReq(s.parse()?),
            b'A' => Dxp::GameAcc(s.parse()?),
            b'M' => Dxp::Move(s.parse()?),
            b'E' => Dxp::GameEnd(s.parse()?),
            b'C' => {
                let mut f = Fields::open(s, b'C', "chat")?;
                let text = f.rest();
                printable("chat text", text)?;
                Dxp::Chat(String::from_utf8_lossy(text).into_owned())
            }
            b'B' => Dxp::BackReq(s.parse()?),
            b'K' => Dxp::BackAcc(s.parse()?),
            other => return Err(DxpError::UnknownHeader(char::from(other))),
        })
    }
}

impl fmt::Display for Dxp {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Dxp::GameReq(m) => m.fmt(f),
            Dxp::GameAcc(m) => m.fmt(f),
            Dxp::Move(m) => m.fmt(f),
            Dxp::GameEnd(m) => m.fmt(f),
            Dxp::Chat(text) => {
                f.write_char('C')?;
                write_printable(f, text)
            }
            Dxp::BackReq(m) => m.fmt(f),
            Dxp::BackAcc(m) => m.fmt(f),
        }
    }
}

// ---- tests -----------------------------------------------------------------------------------

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn pad(name: &str) -> String {
        format!("{name:<32}")
    }

    fn mv(time: u32, from: u8, to: u8, captured: &[u8]) -> DxpMove {
        DxpMove::new(time, from, to, captured).unwrap()
    }

    fn roundtrip(text: &str, msg: &Dxp) {
        assert_eq!(text.parse::<Dxp>().as_ref(), Ok(msg), "{text:?}");
        assert_eq!(msg.to_string(), text);
    }

    // -- examples

    #[test]
    fn game_request_initial_position() {
        let text = "R01Kroon                           W010050A";
        assert_eq!(text.len(), 1 + 2 + 32 + 1 + 3 + 3 + 1);
        let req = GameReq {
            version: 1,
            initiator: "Kroon".into(),
            follower_colour: DxpColour::White,
            minutes: 10,
            moves: 50,
            start: None,
        };
        roundtrip(text, &Dxp::GameReq(req.clone()));
        assert_eq!(text.parse::<GameReq>(), Ok(req));
    }

    #[test]
    fn game_request_with_position() {
        let board = "zzzzzzzzzzzzzzzzzzzzeeeeeeeeeewwwwwwwwwwwwwwwwwwww";
        let text = format!("R01{}Z120075BW{board}", pad("Moby Dam"));
        assert_eq!(text.len(), 1 + 2 + 32 + 1 + 3 + 3 + 1 + 1 + 50);
        let pos: DxpPosition = format!("W{board}").parse().unwrap();
        assert_eq!(pos.squares[0], DxpPiece::BlackMan);
        assert_eq!(pos.squares[25], DxpPiece::Empty);
        assert_eq!(pos.squares[49], DxpPiece::WhiteMan);
        let req = GameReq {
            version: 1,
            initiator: "Moby Dam".into(),
            follower_colour: DxpColour::Black,
            minutes: 120,
            moves: 75,
            start: Some(pos),
        };
        roundtrip(&text, &Dxp::GameReq(req));
    }

    #[test]
    fn game_request_keeps_other_versions_for_the_session_to_refuse() {
        let text = format!("R02{}W005000A", pad("Next"));
        assert!(matches!(
            text.parse::<Dxp>(),
            Ok(Dxp::GameReq(GameReq { version: 2, .. }))
        ));
    }

    #[test]
    fn game_accept() {
        let text = format!("A{}0", pad("Scan 3.1"));
        roundtrip(
            &text,
            &Dxp::GameAcc(GameAcc {
                follower: "Scan 3.1".into(),
                code: AcceptCode::Accepted,
            }),
        );
        for (digit, code) in ["0", "1", "2", "3"].iter().zip(ACCEPT_CODES) {
            let text = format!("A{}{digit}", pad("x"));
            assert_eq!(
                text.parse::<GameAcc>(),
                Ok(GameAcc {
                    follower: "x".into(),
                    code
                })
            );
        }
    }

    #[test]
    fn names_keep_leading_and_inner_spaces() {
        let text = format!("A{}0", pad("  two  words"));
        let acc: GameAcc = text.parse().unwrap();
        assert_eq!(acc.follower, "  two  words");
        assert_eq!(acc.to_string(), text);
        let blank = format!("A{}1", pad(""));
        assert_eq!(blank.parse::<GameAcc>().unwrap().follower, "");
    }

    #[test]
    fn long_names_are_cut_and_odd_characters_replaced() {
        let acc = GameAcc {
            follower: "x".repeat(40),
            code: AcceptCode::NoMoreGames,
        };
        assert_eq!(acc.to_string(), format!("A{}3", "x".repeat(32)));
        let acc = GameAcc {
            follower: "Jürgen\0".into(),
            code: AcceptCode::Accepted,
        };
        assert_eq!(acc.to_string(), format!("A{}0", pad("J?rgen?")));
    }

    #[test]
    fn moves() {
        roundtrip("M0012322800", &Dxp::Move(mv(12, 32, 28, &[])));
        roundtrip("M000528190123", &Dxp::Move(mv(5, 28, 19, &[23])));
        // A king capture that ends where it started, taking four pieces.
        roundtrip(
            "M999946460437283918",
            &Dxp::Move(mv(9999, 46, 46, &[37, 28, 39, 18])),
        );
        let m: DxpMove = "M0000010600".parse().unwrap();
        assert_eq!(
            (m.time(), m.from(), m.to(), m.captured()),
            (0, 1, 6, &[][..])
        );
    }

    #[test]
    fn move_time_saturates() {
        assert_eq!(mv(123_456, 1, 6, &[]).to_string(), "M9999010600");
    }

    #[test]
    fn move_constructor_checks_fields() {
        assert_eq!(
            DxpMove::new(0, 0, 6, &[]),
            Err(DxpError::BadField {
                field: "from",
                value: 0
            })
        );
        assert_eq!(
            DxpMove::new(0, 1, 51, &[]),
            Err(DxpError::BadField {
                field: "to",
                value: 51
            })
        );
        assert_eq!(
            DxpMove::new(0, 1, 12, &[7, 99]),
            Err(DxpError::BadField {
                field: "captured",
                value: 99
            })
        );
        assert_eq!(
            DxpMove::new(0, 1, 12, &[7; 100]),
            Err(DxpError::TooManyCaptures(100))
        );
    }

    #[test]
    fn game_end() {
        roundtrip(
            "E20",
            &Dxp::GameEnd(GameEnd {
                reason: EndReason::Draw,
                stop: StopCode::Continue,
            }),
        );
        roundtrip(
            "E11",
            &Dxp::GameEnd(GameEnd {
                reason: EndReason::SenderLoses,
                stop: StopCode::Stop,
            }),
        );
        roundtrip(
            "E30",
            &Dxp::GameEnd(GameEnd {
                reason: EndReason::SenderWins,
                stop: StopCode::Continue,
            }),
        );
        roundtrip(
            "E01",
            &Dxp::GameEnd(GameEnd {
                reason: EndReason::Unknown,
                stop: StopCode::Stop,
            }),
        );
    }

    #[test]
    fn chat() {
        roundtrip("Chello, world", &Dxp::Chat("hello, world".into()));
        roundtrip("C", &Dxp::Chat(String::new()));
        roundtrip("C  spaced  ", &Dxp::Chat("  spaced  ".into()));
        assert_eq!(Dxp::Chat("a\0b\nc é".into()).to_string(), "Ca?b?c ?");
    }

    #[test]
    fn back_request_and_accept() {
        roundtrip(
            "B012W",
            &Dxp::BackReq(BackReq {
                move_number: 12,
                turn: DxpColour::White,
            }),
        );
        roundtrip(
            "B999Z",
            &Dxp::BackReq(BackReq {
                move_number: 999,
                turn: DxpColour::Black,
            }),
        );
        assert_eq!(
            BackReq {
                move_number: 5000,
                turn: DxpColour::White
            }
            .to_string(),
            "B999W"
        );
        roundtrip("K0", &Dxp::BackAcc(BackAcc::Accepted));
        roundtrip("K1", &Dxp::BackAcc(BackAcc::NotSupported));
        roundtrip("K2", &Dxp::BackAcc(BackAcc::Declined));
    }

    #[test]
    fn numbers_cap_at_field_width() {
        let req = GameReq {
            version: 255,
            initiator: "k".into(),
            follower_colour: DxpColour::White,
            minutes: 1000,
            moves: u16::MAX,
            start: None,
        };
        assert_eq!(req.to_string(), format!("R99{}W999999A", pad("k")));
    }

    // -- malformed input

    #[test]
    fn header_errors() {
        assert_eq!("".parse::<Dxp>(), Err(DxpError::Empty));
        assert_eq!("X123".parse::<Dxp>(), Err(DxpError::UnknownHeader('X')));
        assert_eq!(
            "m0012322800".parse::<Dxp>(),
            Err(DxpError::UnknownHeader('m'))
        );
        assert_eq!(
            "E20".parse::<DxpMove>(),
            Err(DxpError::WrongHeader {
                expected: 'M',
                found: 'E'
            })
        );
        assert_eq!("".parse::<GameEnd>(), Err(DxpError::Empty));
    }

    #[test]
    fn non_ascii_is_rejected_before_any_slicing() {
        assert_eq!("Cé".parse::<Dxp>(), Err(DxpError::NonAscii));
        assert_eq!("éM".parse::<Dxp>(), Err(DxpError::NonAscii));
        // A multi-byte char straddling a field boundary must not panic.
        assert_eq!("M00é2322800".parse::<Dxp>(), Err(DxpError::NonAscii));
        assert_eq!(
            format!("A{}€0", "x".repeat(31)).parse::<Dxp>(),
            Err(DxpError::NonAscii)
        );
        assert_eq!("Wé".parse::<DxpPosition>(), Err(DxpError::NonAscii));
    }

    #[test]
    fn utf8_errors_convert() {
        let bytes: Vec<u8> = std::iter::once(b'C').chain([0xff]).collect();
        let err = std::str::from_utf8(&bytes)
            .map_err(DxpError::from)
            .unwrap_err();
        assert!(matches!(err, DxpError::Utf8(_)));
    }

    #[test]
    fn short_fields() {
        assert_eq!(
            "M00123228".parse::<Dxp>(),
            Err(DxpError::TooShort {
                message: "move",
                field: "number captured",
                needed: 2,
                left: 0
            })
        );
        assert_eq!(
            "M001".parse::<Dxp>(),
            Err(DxpError::TooShort {
                message: "move",
                field: "time",
                needed: 4,
                left: 3
            })
        );
        assert_eq!(
            "R01Kroon".parse::<Dxp>(),
            Err(DxpError::TooShort {
                message: "game request",
                field: "initiator name",
                needed: 32,
                left: 5
            })
        );
        assert!(matches!(
            format!("R01{}W010050B", pad("k")).parse::<Dxp>(),
            Err(DxpError::TooShort {
                field: "colour to move",
                ..
            })
        ));
        assert!(matches!(
            format!("R01{}W010050BWeeee", pad("k")).parse::<Dxp>(),
            Err(DxpError::TooShort {
                field: "position",
                ..
            })
        ));
        assert!(matches!(
            format!("A{}", pad("k")).parse::<Dxp>(),
            Err(DxpError::TooShort { .. })
        ));
        assert!(matches!(
            "E2".parse::<Dxp>(),
            Err(DxpError::TooShort {
                field: "stop code",
                ..
            })
        ));
        assert!(matches!(
            "B01".parse::<Dxp>(),
            Err(DxpError::TooShort { .. })
        ));
        assert!(matches!("K".parse::<Dxp>(), Err(DxpError::TooShort { .. })));
    }

    #[test]
    fn bad_digits_and_codes() {
        assert_eq!(
            "M00x2322800".parse::<Dxp>(),
            Err(DxpError::BadDigit {
                field: "time",
                text: "00x2".into()
            })
        );
        assert_eq!(
            "M0012+32800".parse::<Dxp>(),
            Err(DxpError::BadDigit {
                field: "from",
                text: "+3".into()
            })
        );
        assert_eq!(
            "M0012 32800".parse::<Dxp>(),
            Err(DxpError::BadDigit {
                field: "from",
                text: " 3".into()
            })
        );
        assert_eq!(
            "M0012003200".parse::<Dxp>(),
            Err(DxpError::BadField {
                field: "from",
                value: 0
            })
        );
        assert_eq!(
            "M0012325100".parse::<Dxp>(),
            Err(DxpError::BadField {
                field: "to",
                value: 51
            })
        );
        assert_eq!(
            "M00122819019 ".parse::<Dxp>(),
            Err(DxpError::BadDigit {
                field: "captured",
                text: "9 ".into()
            })
        );
        assert_eq!(
            "M001228190199".parse::<Dxp>(),
            Err(DxpError::BadField {
                field: "captured",
                value: 99
            })
        );
        assert_eq!(
            format!("Rx1{}W010050A", pad("k"))
                .parse::<Dxp>()
                .unwrap_err(),
            DxpError::BadDigit {
                field: "version",
                text: "x1".into()
            }
        );
        assert_eq!(
            format!("R01{}X010050A", pad("k")).parse::<Dxp>(),
            Err(DxpError::BadChar {
                field: "follower colour",
                found: 'X'
            })
        );
        assert_eq!(
            format!("R01{}W010050C", pad("k")).parse::<Dxp>(),
            Err(DxpError::BadChar {
                field: "starting position",
                found: 'C'
            })
        );
        assert_eq!(
            format!("R01{}W010050BW{}", pad("k"), "b".repeat(50)).parse::<Dxp>(),
            Err(DxpError::BadChar {
                field: "position",
                found: 'b'
            })
        );
        assert_eq!(
            format!("R01{}W010050BB{}", pad("k"), "e".repeat(50)).parse::<Dxp>(),
            Err(DxpError::BadChar {
                field: "colour to move",
                found: 'B'
            })
        );
        assert_eq!(
            format!("A{}4", pad("k")).parse::<Dxp>(),
            Err(DxpError::BadChar {
                field: "acceptance code",
                found: '4'
            })
        );
        assert_eq!(
            "E40".parse::<Dxp>(),
            Err(DxpError::BadChar {
                field: "reason",
                found: '4'
            })
        );
        assert_eq!(
            "E02".parse::<Dxp>(),
            Err(DxpError::BadChar {
                field: "stop code",
                found: '2'
            })
        );
        assert_eq!(
            "E/0".parse::<Dxp>(),
            Err(DxpError::BadChar {
                field: "reason",
                found: '/'
            })
        );
        assert_eq!(
            "K3".parse::<Dxp>(),
            Err(DxpError::BadChar {
                field: "acceptance code",
                found: '3'
            })
        );
        assert_eq!(
            "B012w".parse::<Dxp>(),
            Err(DxpError::BadChar {
                field: "colour to move",
                found: 'w'
            })
        );
        assert_eq!(
            format!("A{}\t{}0", "k", " ".repeat(30)).parse::<Dxp>(),
            Err(DxpError::BadChar {
                field: "follower name",
                found: '\t'
            })
        );
        assert_eq!(
            "Cbell\x07".parse::<Dxp>(),
            Err(DxpError::BadChar {
                field: "chat text",
                found: '\x07'
            })
        );
    }

    #[test]
    fn capture_count_must_match() {
        assert_eq!(
            "M0012322805".parse::<Dxp>(),
            Err(DxpError::CountMismatch {
                count: 5,
                digits: 0
            })
        );
        assert_eq!(
            "M001228190223".parse::<Dxp>(),
            Err(DxpError::CountMismatch {
                count: 2,
                digits: 2
            })
        );
        assert_eq!(
            "M00122819012".parse::<Dxp>(),
            Err(DxpError::CountMismatch {
                count: 1,
                digits: 1
            })
        );
        assert_eq!(
            "M0012281901233".parse::<Dxp>(),
            Err(DxpError::CountMismatch {
                count: 1,
                digits: 3
            })
        );
        assert_eq!(
            "M001232280012".parse::<Dxp>(),
            Err(DxpError::CountMismatch {
                count: 0,
                digits: 2
            })
        );
        assert_eq!(
            "M001232".parse::<Dxp>(),
            Err(DxpError::TooShort {
                message: "move",
                field: "to",
                needed: 2,
                left: 0
            })
        );
        assert_eq!(
            "M00124646990102".parse::<Dxp>(),
            Err(DxpError::CountMismatch {
                count: 99,
                digits: 4
            })
        );
    }

    #[test]
    fn trailing_bytes() {
        assert_eq!(
            format!("R01{}W010050A ", pad("k")).parse::<Dxp>(),
            Err(DxpError::TrailingBytes {
                message: "game request",
                extra: 1
            })
        );
        assert_eq!(
            format!("A{}0xx", pad("k")).parse::<Dxp>(),
            Err(DxpError::TrailingBytes {
                message: "game accept",
                extra: 2
            })
        );
        assert_eq!(
            "E200".parse::<Dxp>(),
            Err(DxpError::TrailingBytes {
                message: "game end",
                extra: 1
            })
        );
        assert_eq!(
            "B012W\0".parse::<Dxp>(),
            Err(DxpError::TrailingBytes {
                message: "back request",
                extra: 1
            })
        );
        assert_eq!(
            "K0K0".parse::<Dxp>(),
            Err(DxpError::TrailingBytes {
                message: "back accept",
                extra: 2
            })
        );
        assert_eq!(
            format!("W{}e", "e".repeat(50)).parse::<DxpPosition>(),
            Err(DxpError::TrailingBytes {
                message: "position",
                extra: 1
            })
        );
    }

    #[test]
    fn errors_read_well() {
        assert_eq!(
            "M0012322805".parse::<Dxp>().unwrap_err().to_string(),
            "move declares 5 captured piece(s) but 0 digit(s) follow"
        );
        assert_eq!(
            "M001".parse::<Dxp>().unwrap_err().to_string(),
            "move message too short: time needs 4 byte(s), 3 left"
        );
    }

    // -- properties

    fn name() -> impl Strategy<Value = String> {
        // Printable ASCII, at most 32, no trailing space: exactly the names that round-trip.
        "[ -~]{0,32}".prop_map(|s| s.trim_end_matches(' ').to_owned())
    }

    fn colour() -> impl Strategy<Value = DxpColour> {
        prop_oneof![Just(DxpColour::White), Just(DxpColour::Black)]
    }

    fn piece() -> impl Strategy<Value = DxpPiece> {
        prop_oneof![
            Just(DxpPiece::Empty),
            Just(DxpPiece::WhiteMan),
            Just(DxpPiece::BlackMan),
            Just(DxpPiece::WhiteKing),
            Just(DxpPiece::BlackKing),
        ]
    }

    fn position() -> impl Strategy<Value = DxpPosition> {
        (colour(), prop::collection::vec(piece(), 50)).prop_map(|(turn, v)| {
            let mut squares = [DxpPiece::Empty; 50];
            squares.copy_from_slice(&v);
            DxpPosition { turn, squares }
        })
    }

    fn message() -> impl Strategy<Value = Dxp> {
        let square = || 1u8..=50;
        prop_oneof![
            (
                0u8..=99,
                name(),
                colour(),
                0u16..=999,
                0u16..=999,
                proptest::option::of(position())
            )
                .prop_map(
                    |(version, initiator, follower_colour, minutes, moves, start)| {
                        Dxp::GameReq(GameReq {
                            version,
                            initiator,
                            follower_colour,
                            minutes,
                            moves,
                            start,
                        })
                    }
                ),
            (name(), proptest::sample::select(ACCEPT_CODES.to_vec()))
                .prop_map(|(follower, code)| Dxp::GameAcc(GameAcc { follower, code })),
            (
                0u32..=9999,
                square(),
                square(),
                prop::collection::vec(square(), 0..=99)
            )
                .prop_map(|(t, from, to, caps)| Dxp::Move(
                    DxpMove::new(t, from, to, &caps).unwrap()
                )),
            (
                proptest::sample::select(END_REASONS.to_vec()),
                proptest::sample::select(STOP_CODES.to_vec())
            )
                .prop_map(|(reason, stop)| Dxp::GameEnd(GameEnd { reason, stop })),
            "[ -~]{0,100}".prop_map(Dxp::Chat),
            (0u16..=999, colour())
                .prop_map(|(move_number, turn)| Dxp::BackReq(BackReq { move_number, turn })),
            proptest::sample::select(BACK_CODES.to_vec()).prop_map(Dxp::BackAcc),
        ]
    }

    /// Strings shaped like messages, often valid, often slightly broken.
    fn message_like() -> impl Strategy<Value = String> {
        (
            "[RAMECBKX]",
            prop_oneof![
                "[0-9]{0,16}",
                "[0-9]{2}[ -~]{30,34}[WZ][0-9]{6}[AB][WZ]?[ewzWZ]{0,52}",
                "[ -~]{31,34}[0-4]",
                "[0-9]{8}(0[0-3]|[0-9]{2})([0-9]{2}){0,4}",
                "[0-4][0-2]",
                "[0-9]{3}[WZwz]",
                "[ -~]{0,20}",
            ],
        )
            .prop_map(|(h, body)| format!("{h}{body}"))
    }

    proptest! {
        #[test]
        fn every_message_roundtrips(msg in message()) {
            let text = msg.to_string();
            prop_assert!(text.is_ascii());
            prop_assert!(!text.contains('\0'));
            prop_assert_eq!(text.parse::<Dxp>(), Ok(msg), "text: {:?}", text);
        }

        #[test]
        fn whatever_parses_prints_back_the_same(text in message_like()) {
            if let Ok(msg) = text.parse::<Dxp>() {
                prop_assert_eq!(msg.to_string(), text);
            }
        }

        #[test]
        fn parse_never_panics(text in ".*") {
            let _ = text.parse::<Dxp>();
            let _ = text.parse::<GameReq>();
            let _ = text.parse::<GameAcc>();
            let _ = text.parse::<DxpMove>();
            let _ = text.parse::<GameEnd>();
            let _ = text.parse::<BackReq>();
            let _ = text.parse::<BackAcc>();
            let _ = text.parse::<DxpPosition>();
        }

        #[test]
        fn parse_never_panics_on_lossy_bytes(bytes in prop::collection::vec(any::<u8>(), 0..120)) {
            let text = String::from_utf8_lossy(&bytes);
            let _ = text.parse::<Dxp>();
            let _ = text.parse::<DxpPosition>();
        }

        #[test]
        fn display_never_panics_and_keeps_the_wire_clean(
            name in ".{0,40}", chat in ".{0,40}", version: u8, minutes: u16, moves: u16,
        ) {
            let req = Dxp::GameReq(GameReq {
                version, initiator: name.clone(), follower_colour: DxpColour::White, minutes, moves, start: None,
            });
            let text = req.to_string();
            prop_assert_eq!(text.len(), 43);
            prop_assert!(text.parse::<Dxp>().is_ok());
            let acc = Dxp::GameAcc(GameAcc { follower: name, code: AcceptCode::Accepted });
            prop_assert!(acc.to_string().parse::<Dxp>().is_ok());
            let chat = Dxp::Chat(chat).to_string();
            prop_assert!(chat.parse::<Dxp>().is_ok());
        }
    }
}
