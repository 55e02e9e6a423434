//! Slice files: a versioned header, a block index, run-length coded blocks and a checksum.
//!
//! ```text
//! magic      8 bytes  "KROONEDB"
//! version    u16      1
//! flags      u16      bit 0: the codes hold distances (else win 1, draw 0, loss 2); others 0
//! material   4 bytes  own men, own kings, other men, other kings
//! numbers    u64      the slice's size (Layout::size)
//! block      u32      numbers per block
//! blocks     u32      ceil(numbers / block)
//! offsets    u32 × (blocks + 1)   start of each block in the data, then its end
//! data       runs: a value code, then the run's length as a LEB128 number; no run crosses a block
//! checksum   u64      FNV-1a of every byte before it
//! ```
//! All numbers little-endian. Numbers that are no position, and positions with a capture pending
//! (whose value comes from the slices the captures lead into), take the code before them, which
//! lengthens runs; nothing ever looks them up.
#![cfg_attr(
    not(test),
    deny(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing)
)]

use crate::index::Layout;
use crate::material::{Material, MAX_PIECES};
use crate::value::Value;
use kroon_rules::file_header::{self, HeaderError};
use std::io::Write;
use std::path::{Path, PathBuf};

/// The first bytes of a slice file.
pub const MAGIC: &[u8; 8] = b"KROONEDB";
/// The format version this code writes and reads.
pub const VERSION: u16 = 1;
/// Numbers per block.
pub const BLOCK: u32 = 4096;
/// The largest block a file may declare: bounds what one block index entry can expand to.
const MAX_BLOCK: u32 = 1 << 16;
/// File name extension.
pub const EXTENSION: &str = "kdb";
const HEADER: usize = 8 + 2 + 2 + 4 + 8 + 4 + 4;

/// The file of a slice in a directory.
#[must_use]
pub fn path(dir: &Path, m: Material) -> PathBuf {
    dir.join(format!("{m}.{EXTENSION}"))
}

/// Why a slice file does not read.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// The file could not be read.
    #[error("cannot read: {0}")]
    Io(#[from] std::io::Error),
    /// Not a slice file.
    #[error("not a Kroon endgame table (bad magic bytes)")]
    Magic,
    /// A format this code does not know.
    #[error("format version {0}, this build reads version {VERSION}")]
    Version(u16),
    /// The file is shorter or longer than its header says, or its parts disagree.
    #[error("damaged: {0}")]
    Damaged(&'static str),
    /// The checksum does not match: the file was changed or cut.
    #[error("checksum mismatch: the file is corrupt")]
    Checksum,
    /// The file holds another slice than its name says.
    #[error("holds slice {found}, expected {expected}")]
    Material {
        /// The slice asked for.
        expected: Material,
        /// The slice in the file.
        found: Material,
    },
}

/// FNV-1a, 64 bits.
pub use kroon_rules::hash::fnv1a as checksum;

fn push_leb(out: &mut Vec<u8>, mut n: u64) {
    loop {
        let byte = (n & 0x7f) as u8;
        n >>= 7;
        if n == 0 {
            out.push(byte);
            return;
        }
        out.push(byte | 0x80);
    }
}

/// Flag: the codes hold distances to conversion.
const DISTANCES: u16 = 1;

/// The code of a value in a file without distances.
#[must_use]
pub fn wdl_code(v: Value) -> u8 {
    match v {
        Value::Win(_) => 1,
        Value::Draw => 0,
        Value::Loss(_) => 2,
    }
}

/// The file bytes of a slice's codes (`255`, nothing to store, takes the code before it).
#[must_use]
pub fn encode(m: Material, codes: &[u8], distances: bool) -> Vec<u8> {
    let blocks = codes.len().div_ceil(BLOCK as usize);
    let mut data = Vec::new();
    let mut offsets = Vec::with_capacity(blocks + 1);
    let mut last = 0u8;
    for block in codes.chunks(BLOCK as usize) {
        offsets.push(data.len() as u32);
        let mut run: Option<(u8, u64)> = None;
        for &c in block {
            let c = if c == 255 { last } else { c };
            last = c;
            run = match run {
                Some((v, n)) if v == c => Some((v, n + 1)),
                Some((v, n)) => {
                    data.push(v);
                    push_leb(&mut data, n);
                    Some((c, 1))
                }
                None => Some((c, 1)),
            };
        }
        if let Some((v, n)) = run {
            data.push(v);
            push_leb(&mut data, n);
        }
    }
    offsets.push(data.len() as u32);
    let mut out = Vec::with_capacity(HEADER + 4 * offsets.len() + data.len() + 8);
    file_header::write_start(&mut out, MAGIC, VERSION);
    out.extend_from_slice(&(if distances { DISTANCES } else { 0 }).to_le_bytes());
    out.extend_from_slice(&[m.own_men, m.own_kings, m.opp_men, m.opp_kings]);
    out.extend_from_slice(&(codes.len() as u64).to_le_bytes());
    out.extend_from_slice(&BLOCK.to_le_bytes());
    out.extend_from_slice(&(blocks as u32).to_le_bytes());
    for o in offsets {
        out.extend_from_slice(&o.to_le_bytes());
    }
    out.extend_from_slice(&data);
    file_header::seal(&mut out);
    out
}

/// Writes a slice file (under a temporary name first, so a cut write never looks finished);
/// returns its size.
pub fn write_codes(
    path: &Path,
    m: Material,
    codes: &[u8],
    distances: bool,
) -> std::io::Result<u64> {
    let bytes = encode(m, codes, distances);
    // A name of this process's own: another process may be writing the same slice.
    let tmp = path.with_extension(format!("{}.tmp", std::process::id()));
    {
        let mut f = std::fs::File::create(&tmp)?;
        f.write_all(&bytes)?;
        f.sync_all()?;
    }
    std::fs::rename(&tmp, path)?;
    Ok(bytes.len() as u64)
}

/// A slice file read into memory: its blocks stay coded until looked up.
#[derive(Clone, Debug)]
pub struct Slice {
    material: Material,
    distances: bool,
    numbers: u64,
    block: u32,
    offsets: Vec<u32>,
    data: Vec<u8>,
}

fn take<const N: usize>(bytes: &[u8], at: usize) -> Result<[u8; N], StoreError> {
    file_header::read_array(bytes, at).ok_or(StoreError::Damaged("shorter than its header"))
}

impl Slice {
    /// Reads file bytes, checking everything but the runs inside blocks (`code` checks those).
    pub fn parse(bytes: &[u8]) -> Result<Slice, StoreError> {
        file_header::check_start(bytes, MAGIC, VERSION).map_err(|e| match e {
            HeaderError::Version(v) => StoreError::Version(v),
            HeaderError::Truncated(_) => StoreError::Damaged("shorter than its header"),
            _ => StoreError::Magic,
        })?;
        let body = file_header::unseal(bytes)
            .map_err(|_| StoreError::Checksum)?
            .len();
        if body < HEADER {
            return Err(StoreError::Checksum);
        }
        let flags = u16::from_le_bytes(take(bytes, 10)?);
        if flags & !DISTANCES != 0 {
            return Err(StoreError::Damaged("unknown flags"));
        }
        let [a, b, c, d] = take::<4>(bytes, 12)?;
        let material = Material::new(a, b, c, d);
        let numbers = u64::from_le_bytes(take(bytes, 16)?);
        let block = u32::from_le_bytes(take(bytes, 24)?);
        let blocks = u32::from_le_bytes(take(bytes, 28)?) as usize;
        if material.pieces() > MAX_PIECES || numbers != Layout::new(material).size() {
            return Err(StoreError::Damaged("size does not match the slice"));
        }
        if block == 0 || block > MAX_BLOCK || numbers.div_ceil(u64::from(block)) != blocks as u64 {
            return Err(StoreError::Damaged("block count does not match the size"));
        }
        let data_at = HEADER + 4 * (blocks + 1);
        if data_at > body {
            return Err(StoreError::Damaged("shorter than its block index"));
        }
        let mut offsets = Vec::with_capacity(blocks + 1);
        for k in 0..=blocks {
            offsets.push(u32::from_le_bytes(take(bytes, HEADER + 4 * k)?));
        }
        let data = bytes
            .get(data_at..body)
            .ok_or(StoreError::Damaged("shorter than its block index"))?;
        if offsets.first() != Some(&0)
            || offsets.last().map(|&o| o as usize) != Some(data.len())
            || offsets.windows(2).any(|w| w.first() > w.get(1))
        {
            return Err(StoreError::Damaged("block index out of order"));
        }
        Ok(Slice {
            material,
            distances: flags & DISTANCES != 0,
            numbers,
            block,
            offsets,
            data: data.to_vec(),
        })
    }

    /// Reads and checks a slice file.
    pub fn read(path: &Path) -> Result<Slice, StoreError> {
        Slice::parse(&std::fs::read(path)?)
    }

    /// The slice.
    #[must_use]
    pub fn material(&self) -> Material {
        self.material
    }

    /// Whether the codes hold distances to conversion.
    #[must_use]
    pub fn has_distances(&self) -> bool {
        self.distances
    }

    /// Numbers in the slice.
    #[must_use]
    pub fn numbers(&self) -> u64 {
        self.numbers
    }

    /// Bytes the coded blocks take.
    #[must_use]
    pub fn coded_bytes(&self) -> usize {
        self.data.len()
    }

    /// The runs of block `k`: (code, length) pairs, `None` where the data is damaged.
    fn runs(&self, k: usize) -> Option<Runs<'_>> {
        let from = *self.offsets.get(k)? as usize;
        let to = *self.offsets.get(k + 1)? as usize;
        Some(Runs {
            data: self.data.get(from..to)?,
        })
    }

    /// The code of number `index`; `None` beyond the slice or in a damaged block.
    #[must_use]
    pub fn code(&self, index: u64) -> Option<u8> {
        if index >= self.numbers {
            return None;
        }
        let k = (index / u64::from(self.block)) as usize;
        let mut left = index % u64::from(self.block);
        for run in self.runs(k)? {
            let (code, n) = run?;
            if left < n {
                return Some(code);
            }
            left -= n;
        }
        None
    }

    /// Block `k`'s codes into `out` (replacing what it held), checking its runs; `None` beyond
    /// the slice or where the block is damaged.
    pub fn decode_block(&self, k: usize, out: &mut Vec<u8>) -> Option<()> {
        let first = k as u64 * u64::from(self.block);
        let want = self.numbers.checked_sub(first)?.min(self.block.into()) as usize;
        out.clear();
        for run in self.runs(k)? {
            let (code, n) = run?;
            if out.len() as u64 + n > want as u64 {
                return None;
            }
            out.extend(std::iter::repeat_n(code, n as usize));
        }
        (out.len() == want && want > 0).then_some(())
    }

    /// The block of number `index` and its place in the block; `None` beyond the slice.
    #[must_use]
    pub fn block_of(&self, index: u64) -> Option<(usize, usize)> {
        (index < self.numbers).then(|| {
            let block = u64::from(self.block);
            ((index / block) as usize, (index % block) as usize)
        })
    }

    /// Every code, in order (checks every block's runs).
    pub fn codes(&self) -> Result<Vec<u8>, StoreError> {
        // A forged header may claim more numbers than its blocks hold: reserve a bounded amount
        // up front and let the runs grow the vector.
        let mut out = Vec::with_capacity(self.numbers.min(1 << 28) as usize);
        let blocks = self.offsets.len().saturating_sub(1);
        for k in 0..blocks {
            let want = (self.numbers - k as u64 * u64::from(self.block)).min(self.block.into());
            let mut got = 0;
            for run in self.runs(k).ok_or(StoreError::Damaged("block index"))? {
                let (code, n) = run.ok_or(StoreError::Damaged("bad run"))?;
                got += n;
                if got > want || code == 255 || (!self.distances && code > 2) {
                    return Err(StoreError::Damaged("bad run"));
                }
                if out.capacity() - out.len() < n as usize {
                    // Past the first reservation the runs have shown that the numbers are
                    // there: the rest at once, for a large slice not to hold up to twice its
                    // size while the vector doubles.
                    out.reserve_exact((self.numbers - out.len() as u64) as usize);
                }
                out.extend(std::iter::repeat_n(code, n as usize));
            }
            if got != want {
                return Err(StoreError::Damaged("block shorter than its numbers"));
            }
        }
        Ok(out)
    }
}

/// The runs of one block.
struct Runs<'a> {
    data: &'a [u8],
}

impl Iterator for Runs<'_> {
    type Item = Option<(u8, u64)>;
    fn next(&mut self) -> Option<Option<(u8, u64)>> {
        let (&code, rest) = self.data.split_first()?;
        let mut n = 0u64;
        let mut shift = 0;
        let mut rest = rest;
        loop {
            let Some((&byte, tail)) = rest.split_first() else {
                self.data = &[];
                return Some(None);
            };
            rest = tail;
            if shift > 56 {
                self.data = &[];
                return Some(None);
            }
            n |= u64::from(byte & 0x7f) << shift;
            shift += 7;
            if byte & 0x80 == 0 {
                break;
            }
        }
        self.data = rest;
        Some(Some((code, n)))
    }
}

/// Reads and checks a slice file, and that it holds slice `m`.
pub fn read_slice(path: &Path, m: Material) -> Result<Slice, StoreError> {
    let slice = Slice::read(path)?;
    if slice.material != m {
        return Err(StoreError::Material {
            expected: m,
            found: slice.material,
        });
    }
    Ok(slice)
}

/// Reads a slice file back to its codes, checking that it holds slice `m`.
pub fn read_codes(path: &Path, m: Material) -> Result<Vec<u8>, StoreError> {
    read_slice(path, m)?.codes()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_round_trip_and_damage_is_refused() {
        let m = Material::new(0, 1, 0, 1);
        let n = Layout::new(m).size() as usize;
        let codes: Vec<u8> = (0..n).map(|i| if i % 7 == 3 { 5 } else { 0 }).collect();
        let bytes = encode(m, &codes, true);
        let slice = Slice::parse(&bytes).unwrap();
        assert_eq!(slice.codes().unwrap(), codes);
        for (i, &c) in codes.iter().enumerate() {
            assert_eq!(slice.code(i as u64), Some(c));
        }
        assert_eq!(slice.code(n as u64), None);
        for at in [0, 9, 13, 20, 40, bytes.len() - 30, bytes.len() - 1] {
            let mut bad = bytes.clone();
            bad[at] ^= 0x10;
            assert!(Slice::parse(&bad).is_err(), "flip at {at}");
        }
        for cut in [0, 7, 20, HEADER, bytes.len() - 1] {
            assert!(Slice::parse(&bytes[..cut]).is_err(), "cut at {cut}");
        }
    }

    /// A header rewritten with a fresh checksum, as a forger (or a fuzzer) can produce.
    fn forged(mut bytes: Vec<u8>, at: usize, patch: &[u8]) -> Vec<u8> {
        bytes[at..at + patch.len()].copy_from_slice(patch);
        let body = bytes.len() - 8;
        let sum = checksum(&bytes[..body]);
        bytes[body..].copy_from_slice(&sum.to_le_bytes());
        bytes
    }

    #[test]
    fn forged_headers_are_refused_without_panic_or_huge_allocations() {
        let m = Material::new(0, 1, 0, 1);
        let n = Layout::new(m).size() as usize;
        let bytes = encode(m, &vec![0; n], true);
        // Counts whose sum overflows a byte, a slice past the largest, a block of 4 G numbers,
        // and a block index longer than the file.
        let big = Material::new(0, 7, 0, 1);
        let cases = [
            forged(bytes.clone(), 12, &[200, 100, 0, 1]),
            forged(bytes.clone(), 12, &[0, 7, 0, 1]),
            forged(
                forged(bytes.clone(), 12, &[0, 7, 0, 1]),
                16,
                &Layout::new(big).size().to_le_bytes(),
            ),
            forged(bytes.clone(), 24, &u32::MAX.to_le_bytes()),
            forged(
                forged(bytes.clone(), 24, &1u32.to_le_bytes()),
                28,
                &(n as u32).to_le_bytes(),
            ),
        ];
        for (k, bad) in cases.iter().enumerate() {
            assert!(Slice::parse(bad).is_err(), "case {k}");
        }
        assert!(Slice::parse(&forged(bytes.clone(), 12, &[0, 1, 0, 1])).is_ok());
    }
}
