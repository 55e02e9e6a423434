//! Conversions between Kroon's rules types and DXP's messages, and the PDN date a game record
//! carries: pure functions that the DXP session and blocking clients (`kroon match`'s referee) share.

use std::time::Duration;

use kroon_rules::{notation, parse_dxp, write_dxp, Bitboard, Colour, Move, Position, Variant};

use super::codec::{BackReq, DxpColour, DxpError, DxpMove, DxpPosition};

/// DXP colour of a side.
#[must_use]
pub fn dxp_colour(c: Colour) -> DxpColour {
    match c {
        Colour::White => DxpColour::White,
        Colour::Black => DxpColour::Black,
    }
}

/// Side of a DXP colour.
#[must_use]
pub fn colour(c: DxpColour) -> Colour {
    match c {
        DxpColour::White => Colour::White,
        DxpColour::Black => Colour::Black,
    }
}

pub(crate) fn colour_name(c: Colour) -> &'static str {
    match c {
        Colour::White => "White",
        Colour::Black => "Black",
    }
}

/// The DXP form of a position (side to move and 50 fields).
///
/// # Errors
/// Only for a board that is not 10x10.
pub fn to_dxp_position(pos: &Position) -> Result<DxpPosition, DxpError> {
    format!("{}{}", dxp_colour(pos.turn()).to_char(), write_dxp(pos)).parse()
}

/// The position a game request's `B` field describes.
///
/// # Errors
/// A message naming what is wrong with it (e.g. a man on its crowning row).
pub fn from_dxp_position(dp: &DxpPosition, variant: Variant) -> Result<Position, String> {
    let text = dp.to_string();
    let (turn, board) = text.split_at(1);
    parse_dxp(turn.chars().next().unwrap_or('W'), board, variant).map_err(|e| e.to_string())
}

/// A legal move as a DXP move message, with the whole seconds it took (rounded).
///
/// # Errors
/// Never for a legal 10x10 move (field numbers 1-50, at most 20 captures).
pub fn to_dxp_move(mv: &Move, used: Duration, variant: Variant) -> Result<DxpMove, DxpError> {
    let g = variant.geometry();
    let mut caps: Vec<u8> = mv.captured.squares().map(|sq| g.field(sq)).collect();
    caps.sort_unstable();
    let secs = u32::try_from((used.as_millis() + 500) / 1000).unwrap_or(u32::MAX);
    DxpMove::new(secs, g.field(mv.from), g.field(mv.to), &caps)
}

/// `32-28` or `28x19x23` for a DXP move, as received.
#[must_use]
pub fn dxp_move_text(m: &DxpMove) -> String {
    if m.captured().is_empty() {
        format!("{}-{}", m.from(), m.to())
    } else {
        let mut s = format!("{}x{}", m.from(), m.to());
        for c in m.captured() {
            s.push_str(&format!("x{c}"));
        }
        s
    }
}

/// The legal move of `pos` that a DXP move names: same from, same to, same set of captured
/// fields (DXP lists every captured piece).
///
/// # Errors
/// Why no legal move matches, in words for a chat.
pub fn find_move(pos: &Position, m: &DxpMove) -> Result<Move, String> {
    let g = pos.variant().geometry();
    let square = |f: u8| {
        g.square(u32::from(f))
            .ok_or_else(|| format!("field {f} is not on the board"))
    };
    let from = square(m.from())?;
    let to = square(m.to())?;
    let mut captured = Bitboard::EMPTY;
    for &c in m.captured() {
        let sq = square(c)?;
        if captured.has(sq) {
            return Err(format!("captured field {c} is listed twice"));
        }
        captured = captured.with(sq);
    }
    let legal = pos.legal_moves();
    if let Some(mv) = legal
        .iter()
        .find(|mv| mv.from == from && mv.to == to && mv.captured == captured)
    {
        return Ok(*mv);
    }
    let side = colour_name(pos.turn());
    Err(if legal.is_empty() {
        format!("{side} has no legal move")
    } else if !pos.own().has(from) {
        format!("{side} has no piece on field {}", m.from())
    } else if legal.iter().all(|mv| mv.from != from) {
        match legal.iter().next() {
            Some(mv) if mv.is_capture() => "a capture is compulsory".to_owned(),
            _ => format!("the piece on {} cannot move", m.from()),
        }
    } else if legal.iter().any(|mv| mv.is_capture()) && captured.is_empty() {
        "a capture is compulsory".to_owned()
    } else {
        let options: Vec<String> = legal
            .iter()
            .filter(|mv| mv.from == from)
            .map(|mv| notation::long(mv, pos.variant()))
            .collect();
        format!("the piece on {} can play {}", m.from(), options.join(" "))
    })
}

/// The number of half-moves from the start to the position a back request names, if the game
/// reaches it: move `n` (from 1) with `turn` to move; the start is move 1 with its own side to move.
#[must_use]
pub fn back_request_ply(start_turn: Colour, req: &BackReq) -> Option<usize> {
    let n = i64::from(req.move_number);
    let side = |c: Colour| i64::from(c == Colour::Black);
    let ply = 2 * (n - 1) + side(colour(req.turn)) - side(start_turn);
    if n < 1 || ply < 0 {
        None
    } else {
        usize::try_from(ply).ok()
    }
}

/// The date today (UTC) as PDN writes it, `YYYY.MM.DD`.
#[must_use]
pub fn today() -> String {
    let secs = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    let (y, m, d) = civil_date(i64::try_from(secs / 86_400).unwrap_or(0));
    format!("{y:04}.{m:02}.{d:02}")
}

/// Year, month, day of a day count since 1970-01-01 (proleptic Gregorian calendar): count in
/// 400-year eras of 146,097 days, with years starting in March so that the leap day comes last.
pub(crate) fn civil_date(days: i64) -> (i64, u32, u32) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    (
        y,
        u32::try_from(m).unwrap_or(1),
        u32::try_from(d).unwrap_or(1),
    )
}
