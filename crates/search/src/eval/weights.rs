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
//! A file for another variant, another layout or another version, a truncated one and one whose
//! checksum does not match are refused with a [`WeightsError`] that says which.

use super::pattern::{FeatureSink, Layout, WindowIndices};
use crate::score::WIN_BOUND;
use kroon_rules::file_header::{self, CHECKSUM_LEN};
use kroon_rules::{Colour, Position, Variant};

/// Weight units per centi-man: weights are stored as `i16` in 1/32 of a centi-man.
pub const SCALE: i32 = 32;
/// The largest weight a file holds, in centi-men.
pub const MAX_CENTI_MEN: f32 = i16::MAX as f32 / SCALE as f32;
const MAGIC: &[u8; 8] = b"KROONEVW";
const VERSION: u16 = 1;
const HEADER: usize = 40;

/// Why a weights file was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum WeightsError {
    /// The file does not start like a weights file.
    #[error("not a Kroon weights file (it does not start with KROONEVW)")]
    NotWeights,
    /// A format this build does not read.
    #[error("weights format version {0}; this Kroon reads version {VERSION}")]
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
         layout is {expected:016x}): train them again with this version"
    )]
    Layout {
        /// The variant's layout.
        variant: Variant,
        /// This build's fingerprint.
        expected: u64,
        /// The file's.
        found: u64,
    },
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
        let layout = Layout::of(variant);
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
        let mut w = Weights::zeros(variant);
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
        let mut out = Vec::with_capacity(HEADER + 4 * self.values.len() + CHECKSUM_LEN);
        file_header::write_start(&mut out, MAGIC, VERSION);
        out.extend_from_slice(&(SCALE as u16).to_le_bytes());
        file_header::write_variant_name(&mut out, self.variant);
        out.extend_from_slice(&self.layout.fingerprint().to_le_bytes());
        out.extend_from_slice(&(self.values.len() as u32).to_le_bytes());
        out.extend_from_slice(&0u32.to_le_bytes());
        for [mg, eg] in &self.values {
            out.extend_from_slice(&mg.to_le_bytes());
            out.extend_from_slice(&eg.to_le_bytes());
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
        file_header::check_start(bytes, MAGIC, VERSION).map_err(|e| match e {
            HeaderError::Magic => WeightsError::NotWeights,
            HeaderError::Version(v) => WeightsError::Version(v),
            _ => too_short.clone(),
        })?;
        let scale = read_u16(bytes, 10).ok_or(too_short.clone())?;
        if i32::from(scale) != SCALE {
            return Err(WeightsError::Scale(scale));
        }
        let variant = file_header::read_variant_name(bytes, 12).map_err(|e| match e {
            HeaderError::VariantName(name) => WeightsError::Variant(name),
            _ => too_short.clone(),
        })?;
        let layout = Layout::of(variant);
        let fingerprint = read_u64(bytes, 24).ok_or(too_short.clone())?;
        if fingerprint != layout.fingerprint() {
            return Err(WeightsError::Layout {
                variant,
                expected: layout.fingerprint(),
                found: fingerprint,
            });
        }
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

/// How much to shrink White's score `white` in material that rarely wins with flying kings: a side
/// ahead with three pieces or fewer against a king (divided by 8), or kings level and men within
/// one against a king (by 2). 1 otherwise, and always with short kings, which do win such endings.
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
    if ahead.count() <= 3 {
        8
    } else if ahead_kings == behind_kings && ahead_men.abs_diff(behind_men) <= 1 {
        2
    } else {
        1
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use kroon_rules::hash::fnv1a;
    use kroon_rules::parse_fen;

    /// Weights with a value for men and kings and small seeded values everywhere else.
    fn some_weights(variant: Variant) -> Weights {
        let n = Layout::of(variant).features();
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
        Weights::from_centi_men(variant, &mg, &eg)
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
        // The lone king's side, if it scores better, is shrunk the same way.
        assert_eq!(drawish_divisor(&pos("W:WK1,K2,K3:BK50"), -5), 8);
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
