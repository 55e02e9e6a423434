//! The position text (in the spirit of FEN) and the board diagram.
//!
//! A position text has four fields and an optional fifth, separated by spaces:
//! 1. the 17 rows from the top point (row `q`) down to the bottom point (row `a`), separated by
//!    `/`; in a row, a capital `A`..`F` is a piece of that camp's player and a number is a run of
//!    empty holes (rows hold 1, 2, 3, 4, 13, 12, 11, 10, 9, 10, 11, 12, 13, 4, 3, 2, 1 holes);
//! 2. the player to move, as its camp letter;
//! 3. the camps in play in turn order, a lower-case letter for a player out by forfeit;
//! 4. the round being played, from 1;
//! 5. `long` if the long-hop option is on.
//!
//! The two-player start is
//! `D/DD/DDD/DDDD/13/12/11/10/9/10/11/12/13/AAAA/AAA/AA/A A AD 1`.

use std::fmt;
use std::str::FromStr;

use crate::board::{Camp, Hole, Holes};
use crate::position::Position;

/// Why a position text was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PositionError {
    /// Not 4 or 5 fields.
    #[error("a position has 4 or 5 fields (rows, to move, players, round[, long]), found {0}")]
    Fields(usize),
    /// Not 17 rows.
    #[error("the board has 17 rows separated by '/', found {0}")]
    Rows(usize),
    /// A row of the wrong length.
    #[error("row {row} holds {want} holes, the text gives {got}")]
    RowLength {
        /// Row letter.
        row: char,
        /// Holes in that row.
        want: usize,
        /// Holes the text gave.
        got: usize,
    },
    /// A character that is neither a camp letter nor a digit.
    #[error("unexpected character {0:?} in the board")]
    Char(char),
    /// A bad player field.
    #[error("bad player list {0:?}: camp letters A-F in turn order, each once")]
    Players(String),
    /// A piece of a camp that does not play.
    #[error("pieces of camp {0} on the board, but {0} is not playing")]
    Stranger(char),
    /// More than ten pieces.
    #[error("camp {0} has {1} pieces; at most 10")]
    TooMany(char, u32),
    /// Bad side to move.
    #[error("bad side to move {0:?}: a camp letter of a player still moving")]
    ToMove(String),
    /// Bad round.
    #[error("bad round {0:?}: a number from 1")]
    Round(String),
    /// Bad option.
    #[error("unknown option {0:?} (only \"long\")")]
    Option(String),
}

const ROW_LENS: [usize; 17] = [1, 2, 3, 4, 13, 12, 11, 10, 9, 10, 11, 12, 13, 4, 3, 2, 1];

fn row_start(row: usize) -> usize {
    ROW_LENS[..row].iter().sum()
}

impl FromStr for Position {
    type Err = PositionError;

    fn from_str(text: &str) -> Result<Position, PositionError> {
        let fields: Vec<&str> = text.split_whitespace().collect();
        if !(4..=5).contains(&fields.len()) {
            return Err(PositionError::Fields(fields.len()));
        }
        let rows: Vec<&str> = fields[0].split('/').collect();
        if rows.len() != 17 {
            return Err(PositionError::Rows(rows.len()));
        }
        let mut pieces = [Holes::EMPTY; 6];
        for (k, row_text) in rows.iter().enumerate() {
            let row = 16 - k;
            let mut place = 0usize;
            let mut run = 0usize;
            let flush = |run: &mut usize, place: &mut usize| {
                *place += *run;
                *run = 0;
            };
            for ch in row_text.chars() {
                if let Some(d) = ch.to_digit(10) {
                    run = run * 10 + d as usize;
                    if run > 13 {
                        return Err(PositionError::RowLength {
                            row: (b'a' + row as u8) as char,
                            want: ROW_LENS[row],
                            got: place + run,
                        });
                    }
                } else if let Some(c) = Camp::from_letter(ch) {
                    flush(&mut run, &mut place);
                    if place < ROW_LENS[row] {
                        let h = Hole::new(row_start(row) + place).expect("inside the row");
                        pieces[c.index()] |= h.bit();
                    }
                    place += 1;
                } else {
                    return Err(PositionError::Char(ch));
                }
            }
            flush(&mut run, &mut place);
            if place != ROW_LENS[row] {
                return Err(PositionError::RowLength {
                    row: (b'a' + row as u8) as char,
                    want: ROW_LENS[row],
                    got: place,
                });
            }
        }
        let (seats, out) = parse_players(fields[2])?;
        for c in Camp::ALL {
            let n = pieces[c.index()].count();
            if n > 0 && (seats >> c.index() & 1 == 0 || out >> c.index() & 1 != 0) {
                return Err(PositionError::Stranger(c.letter()));
            }
            if n > 10 {
                return Err(PositionError::TooMany(c.letter(), n));
            }
        }
        let to_move = match fields[1].chars().collect::<Vec<_>>().as_slice() {
            [ch] => Camp::from_letter(*ch),
            _ => None,
        }
        .filter(|c| seats >> c.index() & 1 != 0 && out >> c.index() & 1 == 0)
        .ok_or_else(|| PositionError::ToMove(fields[1].to_owned()))?;
        let round: u16 = fields[3]
            .parse()
            .ok()
            .filter(|&r| r >= 1)
            .ok_or_else(|| PositionError::Round(fields[3].to_owned()))?;
        let long_hop = match fields.get(4) {
            None => false,
            Some(&"long") => true,
            Some(other) => return Err(PositionError::Option((*other).to_owned())),
        };
        Ok(Position::from_parts(
            pieces, seats, out, to_move, round, long_hop,
        ))
    }
}

fn parse_players(text: &str) -> Result<(u8, u8), PositionError> {
    let bad = || PositionError::Players(text.to_owned());
    let mut seats = 0u8;
    let mut out = 0u8;
    let mut last: Option<usize> = None;
    for ch in text.chars() {
        let c = Camp::from_letter(ch.to_ascii_uppercase()).ok_or_else(bad)?;
        if last.is_some_and(|l| c.index() <= l) {
            return Err(bad());
        }
        last = Some(c.index());
        seats |= 1 << c.index();
        if ch.is_ascii_lowercase() {
            out |= 1 << c.index();
        }
    }
    if seats == 0 {
        return Err(bad());
    }
    Ok((seats, out))
}

fn occupant(pos: &Position, h: Hole) -> Option<Camp> {
    Camp::ALL.into_iter().find(|&c| pos.pieces(c).has(h))
}

impl fmt::Display for Position {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for k in 0..17 {
            let row = 16 - k;
            if k > 0 {
                write!(f, "/")?;
            }
            let mut run = 0;
            for place in 0..ROW_LENS[row] {
                let h = Hole::new(row_start(row) + place).expect("inside the row");
                match occupant(self, h) {
                    Some(c) => {
                        if run > 0 {
                            write!(f, "{run}")?;
                            run = 0;
                        }
                        write!(f, "{}", c.letter())?;
                    }
                    None => run += 1,
                }
            }
            if run > 0 {
                write!(f, "{run}")?;
            }
        }
        write!(f, " {} ", self.to_move().letter())?;
        for c in self.seats() {
            let l = c.letter();
            write!(
                f,
                "{}",
                if self.is_out(c) {
                    l.to_ascii_lowercase()
                } else {
                    l
                }
            )?;
        }
        write!(f, " {}", self.round())?;
        if self.long_hop() {
            write!(f, " long")?;
        }
        Ok(())
    }
}

/// The board as a diagram: one line per row from the top, row letters on the left, each hole a
/// camp letter or `.`, laid out so that neighbours touch as on the real board. Place numbers run
/// from the left within each row.
pub fn diagram(pos: &Position) -> String {
    let mut out = String::new();
    for k in 0..17 {
        let row = 16 - k;
        let first = Hole::new(row_start(row)).expect("row start");
        let (q, r, _) = first.cube();
        // Screen column 2q + r puts every hole on a lattice where neighbours are 2 apart.
        let x = (2 * i32::from(q) + i32::from(r) + 12) as usize;
        out.push((b'a' + row as u8) as char);
        out.push_str("  ");
        out.push_str(&" ".repeat(x));
        for place in 0..ROW_LENS[row] {
            let h = Hole::new(row_start(row) + place).expect("inside the row");
            if place > 0 {
                out.push(' ');
            }
            out.push(occupant(pos, h).map_or('.', |c| c.letter()));
        }
        out.push('\n');
    }
    out
}
