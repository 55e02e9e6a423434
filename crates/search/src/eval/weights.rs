//! Pattern weights: the values of `pattern`'s features, the evaluation that sums them, and their
//! file format.
//!
//! A weights file is little-endian throughout:
//!
//! | bytes | what |
//! |---|---|
//! | 8 | `KROONEVW` |
//! | 2 | format version (1) |
//! | 2 | weight units per centi-man ([`SCALE`]) |
//! | 12 | the variant's Hub name, padded with zero bytes |
//! | 8 | the feature layout's fingerprint ([`Layout::fingerprint`]) |
//! | 4 | number of features |
//! | 4 | zero (reserved) |
//! | 4 per feature | middle-game and endgame weight, `i16` each |
//! | 8 | FNV-1a hash of every byte before it |
//!
//! Version 2, written for the large layout (whose 4x6 windows' weights are mostly zero: states the
//! data never met), has the same header and stores the weights sparsely: blocks of a varint
//! (LEB128) count of features whose two weights are zero, a varint count `n` of features that
//! follow, and their `n` pairs of `i16`; the blocks' counts add up to the number of features.
//! A file names its layout by the fingerprint; the version goes with it (1 for the 4x4 layout, 2
//! for the large one), and the blocks are the writer's (each as long as it can be), so that a file
//! that loads writes back byte for byte.
//!
//! A file for another variant, another layout or another version, a truncated one and one whose
//! checksum does not match are refused with a [`WeightsError`] that says which.

use super::pattern::{FeatureSink, LargeIndices, Layout, WindowIndices};
use crate::score::WIN_BOUND;
use kroon_rules::file_header::{self, CHECKSUM_LEN};
use kroon_rules::{Colour, Position, Variant};

/// Weight units per centi-man: weights are stored as `i16` in 1/32 of a centi-man.
pub const SCALE: i32 = 32;
/// The largest weight a file holds, in centi-men.
pub const MAX_CENTI_MEN: f32 = i16::MAX as f32 / SCALE as f32;
const MAGIC: &[u8; 8] = b"KROONEVW";
const VERSION: u16 = 1;
/// The sparse format's version.
const SPARSE: u16 = 2;
const HEADER: usize = 40;

/// Why a weights file was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum WeightsError {
    /// The file does not start like a weights file.
    #[error("not a Kroon weights file (it does not start with KROONEVW)")]
    NotWeights,
    /// A format this build does not read.
    #[error("weights format version {0}; this Kroon reads versions {VERSION} and {SPARSE}")]
    Version(u16),
    /// Weights in other units.
    #[error("weights in units of 1/{0} centi-man; this Kroon uses 1/{SCALE}")]
    Scale(u16),
    /// A variant name that is not one of Kroon's.
    #[error("weights for an unknown variant '{0}'")]
    Variant(String),
    /// Made for a different feature layout.
    #[error(
        "weights made for another feature layout (fingerprint {found:016x}; this Kroon's {variant} \
         layouts are {expected:016x}{}): train them again with this version",
        large.map(|l| format!(" (4x4 windows) and {l:016x} (large, 4x6 windows too)")).unwrap_or_default()
    )]
    Layout {
        /// The variant's layout.
        variant: Variant,
        /// This build's fingerprint.
        expected: u64,
        /// The file's.
        found: u64,
        /// The variant's large layout's fingerprint, if it has one.
        large: Option<u64>,
    },
    /// The sparse weights' blocks do not add up to the header's count.
    #[error("the sparse weights' blocks do not add up to the feature count: damage")]
    Blocks,
    /// A format version that does not go with the file's layout.
    #[error(
        "weights format version {0} does not go with the file's layout (1: 4x4 windows, 2: large)"
    )]
    Mismatch(u16),
    /// A feature count that does not match the layout.
    #[error("{found} features in the file, the layout has {expected}")]
    Count {
        /// The layout's count.
        expected: usize,
        /// The file's.
        found: usize,
    },
    /// Shorter or longer than its header says.
    #[error(
        "the file has {found} bytes where its header calls for {expected}: truncated or padded"
    )]
    Size {
        /// Bytes the header implies.
        expected: usize,
        /// Bytes present.
        found: usize,
    },
    /// The header's reserved field is not zero.
    #[error("the weights header's reserved field is not zero: a newer format, or damage")]
    Reserved,
    /// The bytes do not hash to the stored checksum.
    #[error("checksum mismatch: the weights file is corrupt")]
    Checksum,
}

/// A full set of pattern weights for one variant.
#[derive(Clone)]
pub struct Weights {
    variant: Variant,
    layout: &'static Layout,
    /// Middle-game and endgame weight of each feature, in 1/`SCALE` centi-men.
    values: Vec<[i16; 2]>,
}

impl std::fmt::Debug for Weights {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "Weights({}, {} features)",
            self.variant,
            self.values.len()
        )
    }
}

/// Adds the weights of visited features.
struct Sum<'a> {
    mg: i32,
    eg: i32,
    values: &'a [[i16; 2]],
}

impl FeatureSink for Sum<'_> {
    #[inline(always)]
    fn add(&mut self, feature: usize, value: i32) {
        let [mg, eg] = self.values[feature];
        self.mg += i32::from(mg) * value;
        self.eg += i32::from(eg) * value;
    }
}

impl Weights {
    /// Every weight zero.
    #[must_use]
    pub fn zeros(variant: Variant) -> Weights {
        Weights::zeros_in(Layout::of(variant), variant)
    }

    /// Every weight zero, in `layout` (one of `variant`'s board).
    #[must_use]
    pub fn zeros_in(layout: &'static Layout, variant: Variant) -> Weights {
        Weights {
            variant,
            layout,
            values: vec![[0; 2]; layout.features()],
        }
    }

    /// Weights from real values in centi-men (middle game, endgame), rounded to the stored units;
    /// values beyond the `i16` range are clipped.
    ///
    /// # Panics
    /// If either slice is not as long as the variant's layout has features.
    #[must_use]
    pub fn from_centi_men(variant: Variant, mg: &[f32], eg: &[f32]) -> Weights {
        Weights::from_centi_men_in(Layout::of(variant), variant, mg, eg)
    }

    /// [`Weights::from_centi_men`] in `layout` (one of `variant`'s board).
    ///
    /// # Panics
    /// If either slice is not as long as the layout has features.
    #[must_use]
    pub fn from_centi_men_in(
        layout: &'static Layout,
        variant: Variant,
        mg: &[f32],
        eg: &[f32],
    ) -> Weights {
        let mut w = Weights::zeros_in(layout, variant);
        assert!(mg.len() == w.values.len() && eg.len() == w.values.len());
        let q = |x: f32| (x.clamp(-MAX_CENTI_MEN, MAX_CENTI_MEN) * SCALE as f32).round() as i16;
        for (i, v) in w.values.iter_mut().enumerate() {
            *v = [q(mg[i]), q(eg[i])];
        }
        w
    }

    /// The variant these weights are for.
    #[must_use]
    pub fn variant(&self) -> Variant {
        self.variant
    }

    /// The feature layout.
    #[must_use]
    pub fn layout(&self) -> &'static Layout {
        self.layout
    }

    /// A feature's weights in centi-men (middle game, endgame).
    #[must_use]
    pub fn centi_men(&self, feature: usize) -> (f32, f32) {
        let [mg, eg] = self.values[feature];
        (f32::from(mg) / SCALE as f32, f32::from(eg) / SCALE as f32)
    }

    /// The evaluation of `pos` for the side to move, in centi-men. `pos` must be of this
    /// weights' variant's board.
    #[must_use]
    #[inline]
    pub fn evaluate(&self, pos: &Position) -> i32 {
        let mut sum = self.sum();
        self.layout.visit(pos, &mut sum);
        self.score(pos, &sum)
    }

    /// [`Self::evaluate`] with the window states of `pos` at hand (kept move by move).
    #[must_use]
    #[inline]
    pub fn evaluate_indexed(&self, pos: &Position, indices: &WindowIndices) -> i32 {
        let mut sum = self.sum();
        self.layout.visit_indexed(pos, indices, &mut sum);
        self.score(pos, &sum)
    }

    /// [`Self::evaluate_indexed`] with the large windows' states at hand too (large layout).
    #[must_use]
    #[inline]
    pub fn evaluate_indexed_large(
        &self,
        pos: &Position,
        indices: &WindowIndices,
        large: &LargeIndices,
    ) -> i32 {
        let mut sum = self.sum();
        self.layout
            .visit_indexed_large(pos, indices, large, &mut sum);
        self.score(pos, &sum)
    }

    /// An empty sum of these weights.
    #[inline(always)]
    fn sum(&self) -> Sum<'_> {
        Sum {
            mg: 0,
            eg: 0,
            values: &self.values,
        }
    }

    /// The score for the side to move of the features' sum `sum` of `pos`.
    #[inline(always)]
    fn score(&self, pos: &Position, sum: &Sum) -> i32 {
        let stage = i64::from(self.layout.stage(pos));
        let full = i64::from(self.layout.full_stage());
        let blended = i64::from(sum.mg) * stage + i64::from(sum.eg) * (full - stage);
        // Each board's divisor as a constant: a division by a run-time value costs dozens of
        // cycles on every evaluation; by a constant, a multiplication.
        let white = match full {
            40 => blended / (40 * i64::from(SCALE)),
            24 => blended / (24 * i64::from(SCALE)),
            _ => blended / (full * i64::from(SCALE)),
        } as i32;
        let white = match drawish_divisor(pos, white) {
            1 => white,
            d => white / d,
        };
        let white = white.clamp(-WIN_BOUND + 1, WIN_BOUND - 1);
        if pos.turn() == Colour::White {
            white
        } else {
            -white
        }
    }

    /// The file image of these weights.
    #[must_use]
    pub fn to_bytes(&self) -> Vec<u8> {
        let sparse = self.layout.is_large();
        let mut out = Vec::with_capacity(if sparse {
            1 << 20
        } else {
            HEADER + 4 * self.values.len() + CHECKSUM_LEN
        });
        file_header::write_start(&mut out, MAGIC, if sparse { SPARSE } else { VERSION });
        out.extend_from_slice(&(SCALE as u16).to_le_bytes());
        file_header::write_variant_name(&mut out, self.variant);
        out.extend_from_slice(&self.layout.fingerprint().to_le_bytes());
        out.extend_from_slice(&(self.values.len() as u32).to_le_bytes());
        out.extend_from_slice(&0u32.to_le_bytes());
        let pair = |out: &mut Vec<u8>, [mg, eg]: [i16; 2]| {
            out.extend_from_slice(&mg.to_le_bytes());
            out.extend_from_slice(&eg.to_le_bytes());
        };
        if sparse {
            let mut i = 0;
            while i < self.values.len() {
                let zeros = self.values[i..]
                    .iter()
                    .take_while(|v| **v == [0; 2])
                    .count();
                let run = self.values[i + zeros..]
                    .iter()
                    .take_while(|v| **v != [0; 2])
                    .count();
                write_varint(&mut out, zeros as u64);
                write_varint(&mut out, run as u64);
                for &v in &self.values[i + zeros..i + zeros + run] {
                    pair(&mut out, v);
                }
                i += zeros + run;
            }
        } else {
            for &v in &self.values {
                pair(&mut out, v);
            }
        }
        file_header::seal(&mut out);
        out
    }

    /// Reads a weights file image.
    ///
    /// # Errors
    /// A [`WeightsError`] naming what is wrong; nothing in `bytes` can make this panic.
    // The reader of outside input: bad bytes come back as errors, so no panicking shortcuts.
    #[deny(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing)]
    pub fn from_bytes(bytes: &[u8]) -> Result<Weights, WeightsError> {
        use file_header::{read_u16, read_u32, read_u64, HeaderError};
        let too_short = WeightsError::Size {
            expected: HEADER,
            found: bytes.len(),
        };
        let version = match file_header::check_start(bytes, MAGIC, VERSION) {
            Ok(()) => VERSION,
            Err(HeaderError::Version(SPARSE)) => SPARSE,
            Err(HeaderError::Magic) => return Err(WeightsError::NotWeights),
            Err(HeaderError::Version(v)) => return Err(WeightsError::Version(v)),
            Err(_) => return Err(too_short),
        };
        let scale = read_u16(bytes, 10).ok_or(too_short.clone())?;
        if i32::from(scale) != SCALE {
            return Err(WeightsError::Scale(scale));
        }
        let variant = file_header::read_variant_name(bytes, 12).map_err(|e| match e {
            HeaderError::VariantName(name) => WeightsError::Variant(name),
            _ => too_short.clone(),
        })?;
        let fingerprint = read_u64(bytes, 24).ok_or(too_short.clone())?;
        let layout = Layout::all_of(variant)
            .into_iter()
            .find(|l| l.fingerprint() == fingerprint)
            .ok_or(WeightsError::Layout {
                variant,
                expected: Layout::of(variant).fingerprint(),
                found: fingerprint,
                large: Layout::large(variant).map(Layout::fingerprint),
            })?;
        let count = read_u32(bytes, 32).ok_or(too_short.clone())? as usize;
        let reserved = read_u32(bytes, 36).ok_or(too_short)?;
        if count != layout.features() {
            return Err(WeightsError::Count {
                expected: layout.features(),
                found: count,
            });
        }
        if reserved != 0 {
            return Err(WeightsError::Reserved);
        }
        if (version == SPARSE) != layout.is_large() {
            return Err(WeightsError::Mismatch(version));
        }
        if version == SPARSE {
            let body = file_header::unseal(bytes).map_err(|e| match e {
                HeaderError::Checksum => WeightsError::Checksum,
                _ => WeightsError::Size {
                    expected: HEADER + CHECKSUM_LEN,
                    found: bytes.len(),
                },
            })?;
            let values = read_sparse(body.get(HEADER..).unwrap_or_default(), count)?;
            return Ok(Weights {
                variant,
                layout,
                values,
            });
        }
        let expected = HEADER + 4 * count + CHECKSUM_LEN;
        if bytes.len() != expected {
            return Err(WeightsError::Size {
                expected,
                found: bytes.len(),
            });
        }
        let body = file_header::unseal(bytes).map_err(|_| WeightsError::Checksum)?;
        let values = body
            .get(HEADER..)
            .unwrap_or_default()
            .chunks_exact(4)
            .map(|c| {
                let [a, b, c, d] = c.try_into().unwrap_or([0; 4]);
                [i16::from_le_bytes([a, b]), i16::from_le_bytes([c, d])]
            })
            .collect();
        Ok(Weights {
            variant,
            layout,
            values,
        })
    }
}

/// Appends `x` as LEB128: seven bits a byte, low first, the top bit set on all but the last.
fn write_varint(out: &mut Vec<u8>, mut x: u64) {
    while x >= 0x80 {
        out.push((x as u8 & 0x7F) | 0x80);
        x >>= 7;
    }
    out.push(x as u8);
}

/// The LEB128 number at the start of `bytes` and the bytes after it; `None` if cut short or
/// longer than 35 bits (no count in a file needs more).
fn read_varint(bytes: &[u8]) -> Option<(u64, &[u8])> {
    let mut x = 0u64;
    for (i, &b) in bytes.iter().enumerate().take(5) {
        x |= u64::from(b & 0x7F) << (7 * i);
        if b & 0x80 == 0 {
            // The shortest encoding only: a file that loads writes back the same bytes.
            if i > 0 && b == 0 {
                return None;
            }
            return Some((x, bytes.get(i + 1..).unwrap_or_default()));
        }
    }
    None
}

/// The `count` weight pairs of a sparse body (the bytes between header and checksum).
#[deny(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing)]
fn read_sparse(mut body: &[u8], count: usize) -> Result<Vec<[i16; 2]>, WeightsError> {
    let mut values = Vec::with_capacity(count);
    while values.len() < count {
        let (zeros, rest) = read_varint(body).ok_or(WeightsError::Blocks)?;
        let (run, rest) = read_varint(rest).ok_or(WeightsError::Blocks)?;
        let (zeros, run) = (zeros as usize, run as usize);
        // The writer's blocks only: zeros, then weights, each run as long as it goes (so no
        // empty block, which would also let the loop spin).
        let end = values.len() + zeros + run;
        let first = values.is_empty();
        if end > count || (zeros == 0 && !first) || (run == 0 && end != count) {
            return Err(WeightsError::Blocks);
        }
        let pairs = rest.get(..4 * run).ok_or(WeightsError::Blocks)?;
        if pairs.chunks_exact(4).any(|c| c == [0; 4]) {
            return Err(WeightsError::Blocks);
        }
        values.resize(values.len() + zeros, [0; 2]);
        values.extend(pairs.chunks_exact(4).map(|c| {
            let [a, b, c, d] = c.try_into().unwrap_or([0; 4]);
            [i16::from_le_bytes([a, b]), i16::from_le_bytes([c, d])]
        }));
        body = rest.get(4 * run..).unwrap_or_default();
    }
    if !body.is_empty() {
        return Err(WeightsError::Blocks);
    }
    Ok(values)
}

/// How much to shrink White's score `white` in material that rarely wins with flying kings: a side
/// ahead with two pieces or fewer against a king, which cannot win but by a shot the search sees
/// (divided by 64, to almost nothing: the evaluation must not rate such an ending above one with a
/// piece more), three pieces against a king (by 8), or kings level and men within one against a
/// king (by 2). 1 otherwise, and always with short kings, which do win such endings.
#[must_use]
pub fn drawish_divisor(pos: &Position, white: i32) -> i32 {
    if white == 0 || !pos.variant().kings_fly() {
        return 1;
    }
    let kings = pos.kings();
    let (ahead, behind) = if white > 0 {
        (pos.pieces(Colour::White), pos.pieces(Colour::Black))
    } else {
        (pos.pieces(Colour::Black), pos.pieces(Colour::White))
    };
    let behind_kings = (behind & kings).count();
    if behind_kings == 0 {
        return 1;
    }
    let ahead_kings = (ahead & kings).count();
    let (ahead_men, behind_men) = ((ahead & !kings).count(), (behind & !kings).count());
    match ahead.count() {
        0..=2 => 64,
        3 => 8,
        _ if ahead_kings == behind_kings && ahead_men.abs_diff(behind_men) <= 1 => 2,
        _ => 1,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use kroon_rules::hash::fnv1a;
    use kroon_rules::parse_fen;

    /// Weights with a value for men and kings and small seeded values everywhere else.
    fn some_weights(variant: Variant) -> Weights {
        some_weights_in(Layout::of(variant), variant)
    }

    fn some_weights_in(layout: &'static Layout, variant: Variant) -> Weights {
        let n = layout.features();
        let mut x = 0x2545_f491_4f6c_dd1du64;
        let mut next = || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            (x % 2001) as f32 / 100.0 - 10.0
        };
        let mut mg: Vec<f32> = (0..n).map(|_| next()).collect();
        let mut eg: Vec<f32> = (0..n).map(|_| next()).collect();
        mg[super::super::pattern::MEN] = 100.0;
        eg[super::super::pattern::MEN] = 120.0;
        Weights::from_centi_men_in(layout, variant, &mg, &eg)
    }

    #[test]
    fn the_large_layout_is_colour_symmetric_over_perft_trees() {
        let v = Variant::International;
        let w = some_weights_in(Layout::large(v).unwrap(), v);
        symmetric(&w, &Position::initial(v), 3);
        symmetric(
            &w,
            &parse_fen("W:W15,K28,31,32,33,46:B4,K36,17,18,19,40", v).unwrap(),
            2,
        );
    }

    /// Large-layout weights as training leaves them: the 4x4 layout's features all set, a few
    /// of the 4x6 windows' states.
    fn sparse_weights() -> Weights {
        let v = Variant::International;
        let small = some_weights(v);
        let large = Layout::large(v).unwrap();
        let mut w = Weights::zeros_in(large, v);
        w.values[..small.values.len()].copy_from_slice(&small.values);
        let mut x = 7u64;
        for _ in 0..5000 {
            x = x.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1);
            let f =
                small.values.len() + (x >> 20) as usize % (large.features() - small.values.len());
            w.values[f] = [(x >> 8) as i16 | 1, (x >> 40) as i16];
        }
        w
    }

    #[test]
    fn a_sparse_large_file_round_trips_and_is_small() {
        let w = sparse_weights();
        let bytes = w.to_bytes();
        assert_eq!(u16::from_le_bytes([bytes[8], bytes[9]]), SPARSE);
        // The dense part (4 bytes a weight pair), then at most 4 + 2 * 3 bytes per lone pair.
        let dense = 4 * Layout::of(Variant::International).features();
        assert!(
            bytes.len() < HEADER + dense + 5000 * 10 + 16,
            "{}",
            bytes.len()
        );
        let back = Weights::from_bytes(&bytes).unwrap();
        assert!(back.layout().is_large());
        assert!(back.values == w.values);
        assert!(back.to_bytes() == bytes);
        let pos = parse_fen(
            "W:W15,K28,31,32,33,46:B4,K36,17,18,19,40",
            Variant::International,
        )
        .unwrap();
        assert_eq!(back.evaluate(&pos), w.evaluate(&pos));
        // Damage anywhere is refused, never a panic.
        for cut in [
            40,
            41,
            1000,
            bytes.len() / 2,
            bytes.len() - 9,
            bytes.len() - 1,
        ] {
            assert!(Weights::from_bytes(&bytes[..cut]).is_err(), "cut at {cut}");
        }
        let mut flipped = bytes.clone();
        flipped[bytes.len() - 100] ^= 1;
        assert_eq!(
            Weights::from_bytes(&flipped).unwrap_err(),
            WeightsError::Checksum
        );
        // Blocks that are not the writer's, under a good checksum: an empty run mid-file.
        let mut body = bytes[..HEADER].to_vec();
        body.extend_from_slice(&[0, 0]);
        body.extend_from_slice(&bytes[HEADER..bytes.len() - 8]);
        file_header::seal(&mut body);
        assert_eq!(
            Weights::from_bytes(&body).unwrap_err(),
            WeightsError::Blocks
        );
        // A sparse version number on the 4x4 layout, or a dense one on the large layout.
        let mut small = some_weights(Variant::International).to_bytes();
        small[8] = 2;
        let end = small.len() - 8;
        let sum = fnv1a(&small[..end]);
        small[end..].copy_from_slice(&sum.to_le_bytes());
        assert_eq!(
            Weights::from_bytes(&small).unwrap_err(),
            WeightsError::Mismatch(2)
        );
    }

    #[test]
    fn a_file_of_a_third_layout_is_refused_naming_both() {
        let mut bytes = sparse_weights().to_bytes();
        bytes[24] ^= 1;
        let end = bytes.len() - 8;
        let sum = fnv1a(&bytes[..end]);
        bytes[end..].copy_from_slice(&sum.to_le_bytes());
        let e = Weights::from_bytes(&bytes).unwrap_err();
        assert!(
            matches!(e, WeightsError::Layout { large: Some(_), .. }),
            "{e}"
        );
        let text = e.to_string();
        let small = format!("{:016x}", Layout::of(Variant::International).fingerprint());
        let large = format!(
            "{:016x}",
            Layout::large(Variant::International).unwrap().fingerprint()
        );
        assert!(text.contains(&small) && text.contains(&large), "{text}");
    }

    #[test]
    fn kept_large_states_evaluate_as_the_board_does() {
        let w = sparse_weights();
        let l = w.layout();
        let mut pos = Position::initial(Variant::International);
        let mut rng = kroon_rules::hash::SplitMix64(3);
        for _ in 0..80 {
            let (ix, large) = (l.window_indices(&pos), l.large_indices(&pos));
            assert_eq!(
                w.evaluate_indexed_large(&pos, &ix, &large),
                w.evaluate(&pos)
            );
            let moves = pos.legal_moves();
            if moves.is_empty() {
                break;
            }
            pos = pos.play(&moves[rng.below(moves.len())]);
        }
    }

    fn symmetric(w: &Weights, pos: &Position, depth: u32) {
        assert_eq!(
            w.evaluate(pos),
            w.evaluate(&pos.flipped()),
            "{}",
            kroon_rules::write_fen(pos)
        );
        if depth > 0 {
            for mv in &pos.legal_moves() {
                symmetric(w, &pos.play(mv), depth - 1);
            }
        }
    }

    #[test]
    fn flipping_the_board_gives_the_same_score_over_perft_trees() {
        let w = some_weights(Variant::International);
        symmetric(&w, &Position::initial(Variant::International), 4);
        for fen in [
            "B:BK17,K24:W6,9,10,11,20,21,22,23,30,K31,33,37,41,42,43,44,46",
            "W:W6,7,8,9,10:B41,42,43,44,45",
            "W:W15,K28,46:B4,K36,40",
        ] {
            symmetric(&w, &parse_fen(fen, Variant::International).unwrap(), 3);
        }
        let w = some_weights(Variant::Russian);
        symmetric(&w, &Position::initial(Variant::Russian), 5);
    }

    #[test]
    fn a_man_up_scores_for_the_side_to_move() {
        let mut mg = vec![0.0; Layout::of(Variant::International).features()];
        mg[super::super::pattern::MEN] = 100.0;
        let w = Weights::from_centi_men(Variant::International, &mg, &mg);
        let up = parse_fen("W:W31-50:B1-19", Variant::International).unwrap();
        assert_eq!(w.evaluate(&up), 100);
        assert_eq!(w.evaluate(&up.with_turn(Colour::Black)), -100);
        assert_eq!(w.evaluate(&Position::initial(Variant::International)), 0);
    }

    #[test]
    fn the_file_round_trips() {
        let w = some_weights(Variant::International);
        let bytes = w.to_bytes();
        assert_eq!(bytes.len(), HEADER + 4 * w.layout().features() + 8);
        let back = Weights::from_bytes(&bytes).unwrap();
        assert_eq!(back.values, w.values);
        assert_eq!(back.variant(), Variant::International);
        let pos = parse_fen("W:W15,K28,46:B4,K36,40", Variant::International).unwrap();
        assert_eq!(back.evaluate(&pos), w.evaluate(&pos));
    }

    #[test]
    fn damaged_files_are_refused_with_a_reason() {
        let bytes = some_weights(Variant::International).to_bytes();
        let err = |b: &[u8]| Weights::from_bytes(b).unwrap_err();
        assert_eq!(err(b""), WeightsError::NotWeights);
        assert_eq!(err(b"PK\x03\x04 a zip file"), WeightsError::NotWeights);
        // Truncated anywhere: never a panic, always a reason.
        for cut in [9, 11, 20, 30, 36, 40, 1000, bytes.len() - 1] {
            let e = err(&bytes[..cut]);
            assert!(matches!(e, WeightsError::Size { .. }), "cut at {cut}: {e}");
        }
        let mut longer = bytes.clone();
        longer.push(0);
        assert!(matches!(err(&longer), WeightsError::Size { .. }));
        // One flipped bit in the weights.
        let mut flipped = bytes.clone();
        flipped[HEADER + 1234] ^= 4;
        assert_eq!(err(&flipped), WeightsError::Checksum);
        // Another version, another layout, another variant's name.
        let mut v = bytes.clone();
        v[8] = 9;
        assert_eq!(err(&v), WeightsError::Version(9));
        let mut l = bytes.clone();
        l[24] ^= 1;
        assert!(matches!(err(&l), WeightsError::Layout { .. }));
        let mut n = bytes.clone();
        n[12..18].copy_from_slice(b"chess\0");
        assert_eq!(err(&n), WeightsError::Variant("chess".into()));
        // What the writer never writes, even under a good checksum (found by fuzzing: such a
        // file loaded, then wrote back other bytes): a byte after the name, a reserved field.
        let resum = |mut b: Vec<u8>| {
            let end = b.len() - 8;
            let sum = fnv1a(&b[..end]);
            b[end..].copy_from_slice(&sum.to_le_bytes());
            b
        };
        let mut tail = bytes.clone();
        tail[20] = b'x';
        assert_eq!(err(&resum(tail)), WeightsError::Variant("normal".into()));
        let mut reserved = bytes.clone();
        reserved[36] = 1;
        assert_eq!(err(&resum(reserved)), WeightsError::Reserved);
        // An 8x8 file's layout differs from the 10x10 one it claims to be.
        let mut r = some_weights(Variant::Russian).to_bytes();
        r[12..24].copy_from_slice(b"normal\0\0\0\0\0\0");
        assert!(matches!(err(&r), WeightsError::Layout { .. }));
    }

    #[test]
    fn drawish_material_is_scaled_down() {
        let v = Variant::International;
        let pos = |fen| parse_fen(fen, v).unwrap();
        // Three kings against one: hard to win.
        assert_eq!(drawish_divisor(&pos("W:WK1,K2,K3:BK50"), 500), 8);
        // The lone king's side, if it scores better, is shrunk to almost nothing: it cannot win.
        assert_eq!(drawish_divisor(&pos("W:WK1,K2,K3:BK50"), -5), 64);
        // Two kings, or a king and a man, against a king: a draw but for a shot.
        assert_eq!(drawish_divisor(&pos("W:WK1,K2:BK50"), 300), 64);
        assert_eq!(drawish_divisor(&pos("W:WK1,15:BK50"), 300), 64);
        assert_eq!(drawish_divisor(&pos("W:WK1,K2:BK50,45"), 300), 64);
        assert_eq!(drawish_divisor(&pos("W:WK1,K2,K3,K4:BK50"), 500), 1);
        // A king and five men against a king and four.
        assert_eq!(drawish_divisor(&pos("W:WK1,31-35:BK50,16-19"), 100), 2);
        // No king to defend with: play on.
        assert_eq!(drawish_divisor(&pos("W:WK1,K2,K3:B45"), 500), 1);
        assert_eq!(
            drawish_divisor(&parse_fen("W:WK1,K2:BK32", Variant::English).unwrap(), 300),
            1
        );
    }
}
