//! The book file: a versioned header, the entries sorted by position key, and a checksum.
//!
//! ```text
//! offset  size  field
//! 0       8     magic "KROONBOK"
//! 8       2     format version (u16, little-endian; this is version 1)
//! 10      1     variant (its index in Variant::ALL)
//! 11      1     reserved, 0
//! 12      4     entry count (u32)
//! 16      ...   entries, keys strictly increasing:
//!                 key u64 (Position::key), move count u8 (1-255),
//!                 per move: code u16 (Move::key: from and to squares), score i16 (centi-men
//!                 for the side to move), best first, codes distinct
//! end-8   8     FNV-1a 64 of every byte before it
//! ```
//! A move is stored by its from and to squares only; the builder leaves out a move whose from and
//! to another legal move shares (two captures along different paths), so a code names one legal
//! move. The reader is total: any bytes give a book or an error, never a panic.

// A reader of outside input: bad bytes must come back as errors, so no panicking shortcuts.
#![cfg_attr(
    not(test),
    deny(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing)
)]

use kroon_rules::file_header::{self, HeaderError};
use kroon_rules::Variant;

const MAGIC: &[u8; 8] = b"KROONBOK";
/// The format version this code reads and writes.
pub const VERSION: u16 = 1;
const HEADER: usize = 16;
const SUM: usize = file_header::CHECKSUM_LEN;
/// Highest move code: 6 bits of from, 6 of to.
const MAX_CODE: u16 = (1 << 12) - 1;

/// Why a book file was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum BookError {
    /// Too short to hold a header and a checksum.
    #[error("book file too short ({0} bytes)")]
    Truncated(usize),
    /// Not a book file.
    #[error("not a Kroon book file (bad magic)")]
    Magic,
    /// Another format version.
    #[error("book format version {0}; this Kroon reads version {VERSION}")]
    Version(u16),
    /// A variant index Kroon does not know.
    #[error("unknown variant number {0}")]
    Variant(u8),
    /// The bytes do not hash to the stored checksum.
    #[error("checksum mismatch: the book file is corrupt")]
    Checksum,
    /// The entries do not fill the file exactly as the header says.
    #[error("entry {0}: {1}")]
    Entry(usize, &'static str),
}

/// One position's moves: (move code, score), best first.
pub type Moves = Vec<(u16, i16)>;

/// A book as stored: its variant and its entries by key, keys increasing.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct BookData {
    /// The variant the book is for.
    pub variant: Variant,
    /// (position key, its moves), keys strictly increasing.
    pub entries: Vec<(u64, Moves)>,
}

/// Writes the header: `magic`, the version, the variant and the entry count.
pub(crate) fn header(out: &mut Vec<u8>, magic: &[u8; 8], variant: Variant, count: usize) {
    file_header::write_start(out, magic, VERSION);
    out.push(file_header::variant_index(variant));
    out.push(0);
    out.extend_from_slice(&u32::try_from(count).unwrap_or(u32::MAX).to_le_bytes());
}

/// Appends the checksum of everything written so far.
pub(crate) fn seal(out: &mut Vec<u8>) {
    file_header::seal(out);
}

/// Checks the header and the checksum of a file written by [`header`] and [`seal`]: the variant,
/// the entry count (at most what the bytes can hold at `min_entry` bytes an entry) and the
/// entry bytes.
pub(crate) fn open<'a>(
    bytes: &'a [u8],
    magic: &[u8; 8],
    min_entry: usize,
) -> Result<(Variant, usize, &'a [u8]), BookError> {
    if bytes.len() < HEADER + SUM {
        return Err(BookError::Truncated(bytes.len()));
    }
    file_header::check_start(bytes, magic, VERSION).map_err(|e| match e {
        HeaderError::Version(v) => BookError::Version(v),
        _ => BookError::Magic,
    })?;
    let mut rest = bytes
        .get(file_header::START_LEN..bytes.len() - SUM)
        .unwrap_or_default();
    let [variant, reserved] = array(&mut rest).ok_or(BookError::Magic)?;
    let variant = file_header::variant_at(variant).map_err(|_| BookError::Variant(variant))?;
    let count = u32::from_le_bytes(array(&mut rest).ok_or(BookError::Magic)?);
    file_header::unseal(bytes).map_err(|_| BookError::Checksum)?;
    if reserved != 0 {
        return Err(BookError::Entry(0, "reserved header byte is not 0"));
    }
    let count = usize::try_from(count).map_err(|_| BookError::Entry(0, "too many"))?;
    // A count the file cannot hold is refused before anything is allocated for it.
    if count > rest.len() / min_entry.max(1) {
        return Err(BookError::Entry(0, "more entries than the file holds"));
    }
    Ok((variant, count, rest))
}

/// Takes `n` bytes off the front of `rest`.
pub(crate) fn take<'a>(rest: &mut &'a [u8], n: usize) -> Option<&'a [u8]> {
    let (head, tail) = rest.split_at_checked(n)?;
    *rest = tail;
    Some(head)
}

pub(crate) fn array<const N: usize>(rest: &mut &[u8]) -> Option<[u8; N]> {
    take(rest, N).and_then(|b| b.try_into().ok())
}

impl BookData {
    /// The file image.
    ///
    /// Entries must be as [`BookData::from_bytes`] accepts them (keys increasing, 1-255 moves of
    /// distinct codes each); the builder makes them so.
    #[must_use]
    pub fn to_bytes(&self) -> Vec<u8> {
        let moves: usize = self.entries.iter().map(|(_, m)| m.len()).sum();
        let mut out = Vec::with_capacity(HEADER + self.entries.len() * 9 + moves * 4 + SUM);
        header(&mut out, MAGIC, self.variant, self.entries.len());
        for (key, moves) in &self.entries {
            out.extend_from_slice(&key.to_le_bytes());
            out.push(u8::try_from(moves.len()).unwrap_or(0));
            for &(code, score) in moves {
                out.extend_from_slice(&code.to_le_bytes());
                out.extend_from_slice(&score.to_le_bytes());
            }
        }
        seal(&mut out);
        out
    }

    /// Reads a file image.
    ///
    /// # Errors
    /// A [`BookError`] saying what is wrong: truncation, magic, version, variant, checksum, or an
    /// entry out of order, empty, with a bad or repeated code, or bytes left over.
    pub fn from_bytes(bytes: &[u8]) -> Result<BookData, BookError> {
        let (variant, count, mut rest) = open(bytes, MAGIC, 13)?;
        let mut entries: Vec<(u64, Moves)> = Vec::with_capacity(count);
        for i in 0..count {
            let cut = BookError::Entry(i, "cut short");
            let key = u64::from_le_bytes(array(&mut rest).ok_or(cut.clone())?);
            if entries.last().is_some_and(|&(last, _)| last >= key) {
                return Err(BookError::Entry(i, "keys out of order"));
            }
            let [n] = array(&mut rest).ok_or(cut.clone())?;
            if n == 0 {
                return Err(BookError::Entry(i, "no moves"));
            }
            let mut moves = Vec::with_capacity(usize::from(n));
            for _ in 0..n {
                let code = u16::from_le_bytes(array(&mut rest).ok_or(cut.clone())?);
                let score = i16::from_le_bytes(array(&mut rest).ok_or(cut.clone())?);
                if code > MAX_CODE {
                    return Err(BookError::Entry(i, "move code out of range"));
                }
                if moves.iter().any(|&(c, _)| c == code) {
                    return Err(BookError::Entry(i, "a move twice"));
                }
                moves.push((code, score));
            }
            entries.push((key, moves));
        }
        if !rest.is_empty() {
            return Err(BookError::Entry(count, "bytes after the last entry"));
        }
        Ok(BookData { variant, entries })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use kroon_rules::hash::fnv1a;

    fn sample() -> BookData {
        BookData {
            variant: Variant::International,
            entries: vec![
                (3, vec![(0x123, 10), (0x456, -4)]),
                (0x0100, vec![(MAX_CODE, i16::MIN)]),
            ],
        }
    }

    #[test]
    fn round_trips() {
        let bytes = sample().to_bytes();
        assert_eq!(bytes.len(), HEADER + 2 * 9 + 3 * 4 + SUM);
        assert_eq!(BookData::from_bytes(&bytes), Ok(sample()));
        let empty = BookData {
            variant: Variant::Frisian,
            entries: Vec::new(),
        };
        assert_eq!(BookData::from_bytes(&empty.to_bytes()), Ok(empty));
    }

    /// Rewrites the checksum, so that what is checked is the structure behind it.
    fn resum(mut b: Vec<u8>) -> Vec<u8> {
        let end = b.len() - SUM;
        let sum = fnv1a(&b[..end]);
        b[end..].copy_from_slice(&sum.to_le_bytes());
        b
    }

    #[test]
    fn refuses_corrupt_files() {
        let good = sample().to_bytes();
        for n in 0..good.len() {
            assert!(BookData::from_bytes(&good[..n]).is_err(), "cut at {n}");
        }
        for i in 0..good.len() {
            let mut bad = good.clone();
            bad[i] ^= 0x10;
            assert!(BookData::from_bytes(&bad).is_err(), "byte {i} flipped");
        }
        let with = |i: usize, v: u8| {
            let mut b = good.clone();
            b[i] = v;
            BookData::from_bytes(&resum(b))
        };
        assert_eq!(with(8, 2), Err(BookError::Version(2)));
        assert_eq!(with(10, 8), Err(BookError::Variant(8)));
        assert!(matches!(with(11, 1), Err(BookError::Entry(0, _))));
        assert!(matches!(with(12, 3), Err(BookError::Entry(0, _))));
        // The second entry's key below the first's.
        assert!(matches!(with(16 + 17 + 1, 0), Err(BookError::Entry(1, _))));
        // No moves; a code out of range; a code twice.
        assert!(matches!(with(16 + 8, 0), Err(BookError::Entry(0, _))));
        assert!(matches!(with(16 + 10, 0xff), Err(BookError::Entry(0, _))));
        let mut twice = good.clone();
        twice[16 + 13] = twice[16 + 9];
        twice[16 + 14] = twice[16 + 10];
        assert!(matches!(
            BookData::from_bytes(&resum(twice)),
            Err(BookError::Entry(0, "a move twice"))
        ));
        let mut longer = good[..good.len() - SUM].to_vec();
        longer.push(0);
        longer.extend_from_slice(&[0; SUM]);
        assert!(matches!(
            BookData::from_bytes(&resum(longer)),
            Err(BookError::Entry(2, _))
        ));
    }
}
