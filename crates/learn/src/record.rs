//! Self-play records: one position of a finished game with its result and the search's score, in
//! 32 bytes, after a 32-byte file header.
//!
//! Header (little-endian): `KROONSPR`, format version (`u16`, 1), record size (`u16`, 32), the
//! variant's Hub name padded to 12 bytes with zeros, and a hash of the settings that made the
//! games (so that a file is only resumed with the settings that began it).
//!
//! Record: White's pieces, Black's pieces and the kings as `u64` bit sets in the board's padded
//! layout (see `kroon_rules::geometry`), whose top bits are never squares; the kings word carries
//! the flags there (bits 56-61, [`Flags`]). Then the search score for the side to move in
//! centi-men (`i16`), the ply of the game (`u16`) and the game's number (`u32`).
//!
//! Games are written whole, each ending with a record flagged [`Flags::LAST`], so a file cut short
//! by a crash loses at most the game being written, which [`scan`] finds and drops.

// A reader of outside input: bad bytes must come back as errors, so no panicking shortcuts.
#![cfg_attr(
    not(test),
    deny(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing)
)]

use anyhow::{bail, Context, Result};
use kroon_rules::file_header::{self, HeaderError};
use kroon_rules::{Bitboard, Colour, GameResult, Position, Variant};
use std::collections::HashSet;
use std::fs::{File, OpenOptions};
use std::io::{Read, Seek, SeekFrom, Write};
use std::path::Path;

/// Bytes of the file header.
pub const HEADER_SIZE: usize = 32;
/// Bytes of one record.
pub const RECORD_SIZE: usize = 32;
const MAGIC: &[u8; 8] = b"KROONSPR";
const VERSION: u16 = 1;
const FLAG_SHIFT: u32 = 56;

/// The flag bits of a record (stored in the kings word, above every square).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Default)]
pub struct Flags(u8);

impl Flags {
    /// Black is to move.
    pub const BLACK_TO_MOVE: u8 = 1;
    /// The side to move has a capture.
    pub const CAPTURE: u8 = 2;
    /// The other side would have a capture if it were to move.
    pub const THREAT: u8 = 4;
    /// The game's last record.
    pub const LAST: u8 = 8;

    /// These flags and `bits`.
    #[must_use]
    pub fn with(self, bits: u8) -> Flags {
        Flags(self.0 | bits)
    }

    /// Whether every bit of `bits` is set.
    #[must_use]
    pub fn has(self, bits: u8) -> bool {
        self.0 & bits == bits
    }
}

/// One position of a self-play game.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Record {
    /// White's pieces.
    pub white: u64,
    /// Black's pieces.
    pub black: u64,
    /// The kings of both sides.
    pub kings: u64,
    /// Side to move, captures, last of its game.
    pub flags: Flags,
    /// The game's result.
    pub result: GameResult,
    /// The search's score for the side to move, in centi-men (clipped to `i16`).
    pub score: i16,
    /// Plies played in the game before this position.
    pub ply: u16,
    /// The game's number.
    pub game: u32,
}

impl Record {
    /// The record of `pos` in game `game` at `ply`, scored `score` by the search.
    #[must_use]
    pub fn new(pos: &Position, score: i32, ply: usize, game: u32, result: GameResult) -> Record {
        let mut flags = 0;
        if pos.turn() == Colour::Black {
            flags |= Flags::BLACK_TO_MOVE;
        }
        if kroon_rules::has_capture(pos) {
            flags |= Flags::CAPTURE;
        }
        if kroon_rules::has_capture(&pos.with_turn(!pos.turn())) {
            flags |= Flags::THREAT;
        }
        Record {
            white: pos.pieces(Colour::White).0,
            black: pos.pieces(Colour::Black).0,
            kings: pos.kings().0,
            flags: Flags(flags),
            result,
            score: score.clamp(i32::from(i16::MIN), i32::from(i16::MAX)) as i16,
            ply: ply.min(usize::from(u16::MAX)) as u16,
            game,
        }
    }

    /// Whether neither side has a capture: the positions an evaluation is meant for.
    #[must_use]
    pub fn is_quiet(&self) -> bool {
        self.flags.0 & (Flags::CAPTURE | Flags::THREAT) == 0
    }

    /// The side to move.
    #[must_use]
    pub fn turn(&self) -> Colour {
        if self.flags.has(Flags::BLACK_TO_MOVE) {
            Colour::Black
        } else {
            Colour::White
        }
    }

    /// The position, in `variant` (the file's).
    #[must_use]
    pub fn position(&self, variant: Variant) -> Position {
        Position::from_parts(
            variant,
            Bitboard(self.white),
            Bitboard(self.black),
            Bitboard(self.kings),
            self.turn(),
        )
    }

    /// The result as White's score: 1, ½ or 0.
    #[must_use]
    pub fn white_points(&self) -> f32 {
        self.result.points(Colour::White) as f32
    }

    /// The record's 32 bytes.
    #[must_use]
    pub fn to_bytes(&self) -> [u8; RECORD_SIZE] {
        let result = match self.result {
            GameResult::WhiteWins => 2u64,
            GameResult::Draw => 1,
            GameResult::BlackWins => 0,
        };
        let top = (u64::from(self.flags.0) | result << 4) << FLAG_SHIFT;
        let mut b = [0u8; RECORD_SIZE];
        b[0..8].copy_from_slice(&self.white.to_le_bytes());
        b[8..16].copy_from_slice(&self.black.to_le_bytes());
        b[16..24].copy_from_slice(&(self.kings | top).to_le_bytes());
        b[24..26].copy_from_slice(&self.score.to_le_bytes());
        b[26..28].copy_from_slice(&self.ply.to_le_bytes());
        b[28..32].copy_from_slice(&self.game.to_le_bytes());
        b
    }

    /// A record from its bytes, checked against `variant`'s board: pieces on squares, no square
    /// taken twice, kings only where pieces are, a known result.
    ///
    /// # Errors
    /// A message saying what is wrong with the bytes.
    pub fn from_bytes(b: &[u8; RECORD_SIZE], variant: Variant) -> Result<Record, String> {
        let (white, black, packed) = (u64_at(b, 0), u64_at(b, 8), u64_at(b, 16));
        let top = packed >> FLAG_SHIFT;
        let kings = packed & ((1 << FLAG_SHIFT) - 1);
        let mask = variant.geometry().mask.0;
        if (white | black | kings) & !mask != 0
            || white & black != 0
            || kings & !(white | black) != 0
        {
            return Err("pieces off the board or on one square twice".into());
        }
        if top >> 6 != 0 {
            return Err("unknown flag bits".into());
        }
        let result = match (top >> 4) & 3 {
            2 => GameResult::WhiteWins,
            1 => GameResult::Draw,
            0 => GameResult::BlackWins,
            _ => return Err("unknown result code".into()),
        };
        Ok(Record {
            white,
            black,
            kings,
            flags: Flags((top & 0xF) as u8),
            result,
            score: i16::from_le_bytes(bytes_at(b, 24)),
            ply: u16::from_le_bytes(bytes_at(b, 26)),
            game: u32::from_le_bytes(bytes_at(b, 28)),
        })
    }
}

/// `N` bytes of `b` from `at`, zeros where `b` ends first.
fn bytes_at<const N: usize>(b: &[u8], at: usize) -> [u8; N] {
    file_header::read_array(b, at).unwrap_or([0; N])
}

fn u64_at(b: &[u8], at: usize) -> u64 {
    u64::from_le_bytes(bytes_at(b, at))
}

/// The header of a new file for `variant`'s games made with settings hashing to `settings`.
#[must_use]
pub fn header(variant: Variant, settings: u64) -> [u8; HEADER_SIZE] {
    let mut h = Vec::with_capacity(HEADER_SIZE);
    file_header::write_start(&mut h, MAGIC, VERSION);
    h.extend_from_slice(&(RECORD_SIZE as u16).to_le_bytes());
    file_header::write_variant_name(&mut h, variant);
    h.extend_from_slice(&settings.to_le_bytes());
    bytes_at(&h, 0)
}

/// A file's header, read back.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Header {
    /// The games' variant.
    pub variant: Variant,
    /// The hash of the settings that made them.
    pub settings: u64,
}

/// Reads a header.
///
/// # Errors
/// Not a records file, another version or record size, or an unknown variant.
pub fn read_header(bytes: &[u8]) -> Result<Header> {
    let not_records =
        || anyhow::anyhow!("not a Kroon self-play file (it does not start with KROONSPR)");
    if bytes.len() < HEADER_SIZE {
        return Err(not_records());
    }
    match file_header::check_start(bytes, MAGIC, VERSION) {
        Err(HeaderError::Version(version)) => {
            bail!("self-play format version {version}; this Kroon reads version {VERSION}")
        }
        Err(_) => return Err(not_records()),
        Ok(()) => {}
    }
    let size = u16::from_le_bytes(bytes_at(bytes, 10));
    if usize::from(size) != RECORD_SIZE {
        bail!("records of {size} bytes; this Kroon writes {RECORD_SIZE}");
    }
    let variant = file_header::read_variant_name(bytes, 12).map_err(|e| match e {
        // The name as `header` writes it: the Hub name, then zeros (no alias, no stray bytes).
        HeaderError::VariantName(name) if name.parse::<Variant>().is_ok() => {
            anyhow::anyhow!("self-play file with a damaged variant name")
        }
        HeaderError::VariantName(name) => {
            anyhow::anyhow!("self-play file for an unknown variant '{name}'")
        }
        _ => not_records(),
    })?;
    Ok(Header {
        variant,
        settings: u64_at(bytes, 24),
    })
}

/// What an existing file holds, for resuming it.
#[derive(Debug, Default)]
pub struct Scan {
    /// The numbers of the games it holds whole.
    pub games: HashSet<u32>,
    /// Positions in those games.
    pub positions: u64,
    /// Bytes of whole games (with the header): anything beyond is a game cut short.
    pub whole_bytes: u64,
}

/// Reads every whole game of an open file (positioned anywhere), checking its header.
///
/// # Errors
/// I/O errors, a bad header, another variant, or settings other than `settings`.
pub fn scan(file: &mut File, variant: Variant, settings: u64) -> Result<Scan> {
    file.seek(SeekFrom::Start(0))?;
    let mut bytes = Vec::new();
    file.read_to_end(&mut bytes)?;
    let h = read_header(&bytes)?;
    if h.variant != variant {
        bail!("the file holds {} games, not {variant}", h.variant);
    }
    if h.settings != settings {
        bail!(
            "the file was begun with other self-play settings; resume it with the same ones, or \
             write to a new file"
        );
    }
    let mut out = Scan {
        whole_bytes: HEADER_SIZE as u64,
        ..Scan::default()
    };
    let mut pending = 0u64;
    let body = bytes.get(HEADER_SIZE..).unwrap_or_default();
    for (i, chunk) in body.chunks_exact(RECORD_SIZE).enumerate() {
        let chunk: &[u8; RECORD_SIZE] = chunk.try_into().context("record size")?;
        let r = Record::from_bytes(chunk, variant)
            .map_err(|e| anyhow::anyhow!("record {}: {e}", i + 1))?;
        pending += 1;
        if r.flags.has(Flags::LAST) {
            out.games.insert(r.game);
            out.positions += pending;
            pending = 0;
            out.whole_bytes = (HEADER_SIZE + (i + 1) * RECORD_SIZE) as u64;
        }
    }
    Ok(out)
}

/// Opens `path` to append games: creates it with a header, or checks and resumes it, cutting off
/// a game left unfinished. Returns the file (positioned at its end) and what it held.
///
/// # Errors
/// I/O errors, or a file that is not one of these games' (see [`scan`]).
pub fn open_for_append(path: &Path, variant: Variant, settings: u64) -> Result<(File, Scan)> {
    let exists = path.metadata().map(|m| m.len() > 0).unwrap_or(false);
    let mut file = OpenOptions::new()
        .read(true)
        .write(true)
        .create(true)
        .truncate(false)
        .open(path)
        .with_context(|| format!("opening {}", path.display()))?;
    if !exists {
        file.write_all(&header(variant, settings))?;
        return Ok((
            file,
            Scan {
                whole_bytes: HEADER_SIZE as u64,
                ..Scan::default()
            },
        ));
    }
    let found =
        scan(&mut file, variant, settings).with_context(|| format!("{}", path.display()))?;
    file.set_len(found.whole_bytes)?;
    file.seek(SeekFrom::End(0))?;
    Ok((file, found))
}

/// Every record of a file, checked.
///
/// # Errors
/// I/O errors, a bad header, a damaged record or a file of another variant than `variant` (when
/// given).
pub fn read_all(path: &Path, variant: Option<Variant>) -> Result<(Variant, Vec<Record>)> {
    let bytes = std::fs::read(path).with_context(|| format!("reading {}", path.display()))?;
    let h = read_header(&bytes).with_context(|| format!("{}", path.display()))?;
    if let Some(v) = variant {
        if v != h.variant {
            bail!("{} holds {} games, not {v}", path.display(), h.variant);
        }
    }
    let body = bytes.get(HEADER_SIZE..).unwrap_or_default();
    if body.len() % RECORD_SIZE != 0 {
        tracing::warn!(
            "{}: {} bytes after the last whole record are ignored",
            path.display(),
            body.len() % RECORD_SIZE
        );
    }
    let mut out = Vec::with_capacity(body.len() / RECORD_SIZE);
    for (i, chunk) in body.chunks_exact(RECORD_SIZE).enumerate() {
        let chunk: &[u8; RECORD_SIZE] = chunk.try_into().context("record size")?;
        out.push(
            Record::from_bytes(chunk, h.variant)
                .map_err(|e| anyhow::anyhow!("{} record {}: {e}", path.display(), i + 1))?,
        );
    }
    Ok((h.variant, out))
}

#[cfg(test)]
mod tests {
    use super::*;
    use kroon_rules::parse_fen;

    #[test]
    fn records_round_trip() {
        let v = Variant::International;
        let pos = parse_fen("B:W15,K28,46:B4,K36,40", v).unwrap();
        let r = Record::new(&pos, -345, 77, 123_456, GameResult::BlackWins);
        let back = Record::from_bytes(&r.to_bytes(), v).unwrap();
        assert_eq!(back, r);
        assert_eq!(back.position(v), pos);
        assert_eq!(back.turn(), Colour::Black);
        assert_eq!(back.white_points(), 0.0);
        // Neither side has anything to take.
        assert!(back.is_quiet());
        let capture = parse_fen("W:W28:B23", v).unwrap();
        let r = Record::new(&capture, 0, 0, 0, GameResult::Draw);
        assert!(!r.is_quiet() && r.flags.has(Flags::CAPTURE));
        let threat = parse_fen("W:W28,50:B22,5", v).unwrap();
        assert!(Record::new(&threat, 0, 0, 0, GameResult::Draw)
            .flags
            .has(Flags::THREAT));
    }

    #[test]
    fn damaged_records_are_refused() {
        let v = Variant::International;
        let r = Record::new(&Position::initial(v), 0, 0, 0, GameResult::Draw);
        // A white piece on field 15, where Black has one.
        let mut b = r.to_bytes();
        b[1] |= 0x80;
        assert!(Record::from_bytes(&b, v).is_err());
        // A piece on bit 10, a ghost square between rows.
        let mut b = r.to_bytes();
        b[1] |= 0x04;
        assert!(Record::from_bytes(&b, v).is_err());
        // Result code 3.
        let mut b = r.to_bytes();
        b[23] |= 0x30;
        assert!(Record::from_bytes(&b, v).is_err());
        // Flag bits no writer sets (found by fuzzing: they were read, then written back as 0).
        let mut b = r.to_bytes();
        b[23] |= 0x40;
        assert!(Record::from_bytes(&b, v).is_err());
        assert!(Record::from_bytes(&r.to_bytes(), v).is_ok());
        // A header with a byte after the variant's name.
        let mut h = header(v, 7);
        h[20] = b'x';
        assert!(read_header(&h).is_err());
        assert_eq!(read_header(&header(v, 7)).unwrap().settings, 7);
    }

    #[test]
    fn the_header_is_laid_out_as_documented() {
        // Magic, version 1, record size 32, the Hub name padded to 12 bytes, the settings hash:
        // the layout of the files written so far, which the shared header code must keep.
        let mut want = b"KROONSPR\x01\x00\x20\x00russian\0\0\0\0\0".to_vec();
        want.extend_from_slice(&0x0102_0304_0506_0708u64.to_le_bytes());
        assert_eq!(
            header(Variant::Russian, 0x0102_0304_0506_0708).as_slice(),
            want
        );
        let h = read_header(&want).unwrap();
        assert_eq!(
            (h.variant, h.settings),
            (Variant::Russian, 0x0102_0304_0506_0708)
        );
        want[9] = 1;
        let e = read_header(&want).unwrap_err().to_string();
        assert!(e.contains("version 257"), "{e}");
    }

    #[test]
    fn a_game_cut_short_is_dropped_on_resume() {
        let dir = std::env::temp_dir().join(format!("kroon-records-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("games.bin");
        let _ = std::fs::remove_file(&path);
        let v = Variant::International;
        let pos = Position::initial(v);
        {
            let (mut f, s) = open_for_append(&path, v, 7).unwrap();
            assert!(s.games.is_empty());
            let mut last = Record::new(&pos, 0, 1, 5, GameResult::Draw);
            last.flags.0 |= Flags::LAST;
            f.write_all(&Record::new(&pos, 0, 0, 5, GameResult::Draw).to_bytes())
                .unwrap();
            f.write_all(&last.to_bytes()).unwrap();
            // Game 6 never got its last record, and half a record follows.
            f.write_all(&Record::new(&pos, 0, 0, 6, GameResult::Draw).to_bytes())
                .unwrap();
            f.write_all(&[1, 2, 3]).unwrap();
        }
        let (_, s) = open_for_append(&path, v, 7).unwrap();
        assert_eq!(s.games, HashSet::from([5]));
        assert_eq!(s.positions, 2);
        assert_eq!(
            std::fs::metadata(&path).unwrap().len(),
            (HEADER_SIZE + 2 * RECORD_SIZE) as u64
        );
        // Other settings or another variant: refused.
        assert!(open_for_append(&path, v, 8).is_err());
        assert!(open_for_append(&path, Variant::Frisian, 7).is_err());
        let (_, records) = read_all(&path, Some(v)).unwrap();
        assert_eq!(records.len(), 2);
        std::fs::write(&path, b"KROONSPX").unwrap();
        assert!(read_all(&path, None).is_err());
        let _ = std::fs::remove_dir_all(&dir);
    }
}
