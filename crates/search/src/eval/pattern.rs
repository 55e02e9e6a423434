//! The pattern evaluation's features: which parts of a position it looks at, and the index of each
//! in the weight table. The weights themselves, their file format and the sum are in `weights`.
//!
//! The board is cut into windows of 4 rows by 4 columns (8 playable squares), at every even row and
//! column offset, so that windows overlap by two rows and two columns and every pair of
//! neighbouring squares, diagonal or not, shares a window. On 10x10 that makes 16 windows, on 8x8
//! nine. A window's state is one of 3^8: each square empty, an own man or an opponent man (kings
//! count as empty here; they have features of their own). Each side scores the windows of the half
//! of the board in front of it (rows 0-5 of its own view, where its attack meets the opponent's
//! defence) and the opponent scores the other half the same way, on the board turned round. So every
//! window is scored once, by one table per window and colour-swapped view, and the evaluation is
//! colour-symmetric by construction: the other side's score is the same function of the board
//! turned round (a bit reversal of the padded layout) with the colours swapped.
//!
//! Beside the windows, per side and again mirrored for the other: men; the first king and each
//! further king; tempo (rows advanced, summed over the men); left/right skew; king squares; king
//! mobility over safe and unsafe squares; and the runaway man that no enemy man can stop while the
//! opponent has no king (which no window can see: the path runs the length of the board). Plus one
//! feature for the side to move. Every feature has a middle-game and an endgame weight, blended by
//! the number of pieces on the board.

use kroon_rules::geometry::{Geometry, DOWN_LEFT, DOWN_RIGHT, OFF, UP_LEFT, UP_RIGHT};
use kroon_rules::hash::fnv1a;
use kroon_rules::{Bitboard, Colour, Move, Position, Variant};
use std::sync::LazyLock;

/// Column bands and row pairs of the largest board.
const MAX_BANDS: usize = 4;
/// Windows a side scores on the largest board: the lanes of one side in [`WindowIndices`].
const MAX_WINDOWS: usize = 8;
/// The lanes of [`WindowIndices`] beyond the windows: per side (White's, then Black's on the
/// board turned round), the rows its men have advanced and their column indices, summed.
const COUNTS: usize = 2 * MAX_WINDOWS;
/// All lanes of [`WindowIndices`].
const LANES: usize = COUNTS + 4;

/// Squares in a window.
pub const WINDOW_SQUARES: u32 = 8;
/// States of a window: 3^8.
pub const WINDOW_STATES: usize = 6561;

/// Squares in a large window (4 rows by 6 columns, the "large" 10x10 layout).
pub const LARGE_SQUARES: u32 = 12;
/// States of a large window: 3^12.
pub const LARGE_STATES: usize = 531_441;
/// Large windows a side scores: row pairs 0 and 1 of its view, three column bands each.
const LARGE_WINDOWS: usize = 6;
/// Column bands of large windows on 10x10 (fields 0-2, 1-3, 2-4 of each row).
const LARGE_BANDS: usize = 3;

/// The features besides kings' squares and windows, in index order.
pub const MEN: usize = 0;
/// A side has at least one king.
pub const FIRST_KING: usize = 1;
/// Each king beyond the first.
pub const EXTRA_KINGS: usize = 2;
/// Rows advanced, summed over a side's men.
pub const TEMPO: usize = 3;
/// The absolute skew of a side's men: how far their mean column is from the centre.
pub const SKEW: usize = 4;
/// The side to move.
pub const TURN: usize = 5;
/// Empty squares a king reaches that no enemy man attacks.
pub const KING_SAFE: usize = 6;
/// Empty squares a king reaches where an enemy man could take it.
pub const KING_UNSAFE: usize = 7;
/// The first runaway feature: a man with one row to go that no enemy man can stop; the next ones
/// count two, three, ... rows.
pub const RUNAWAY: usize = 8;

/// The base-3 value of `squares` squares from `bits`: the side's men in the low `squares` bits,
/// the opponent's in the next `squares`; digit i is 0 (empty), 1 (own man) or 2 (opponent's man)
/// for bit i.
const fn ternary(bits: usize, squares: u32) -> u16 {
    let (mut v, mut p, mut i) = (0u16, 1u16, 0);
    while i < squares {
        if bits & (1 << i) != 0 {
            v += p;
        } else if bits & (1 << (i + squares)) != 0 {
            v += 2 * p;
        }
        p *= 3;
        i += 1;
    }
    v
}

/// The base-3 value of a row pair's four squares in a column band, from the four bits of the
/// side's men (low nibble) and the four of the opponent's (high nibble), digit i for bit i.
static TERNARY: [u8; 256] = {
    let mut t = [0u8; 256];
    let mut b = 0;
    while b < 256 {
        t[b] = ternary(b, 4) as u8;
        b += 1;
    }
    t
};

/// The base-3 value of a row pair's six squares in a large window's column band, from the six bits
/// of the side's men (low bits) and the six of the opponent's (high bits), digit i for bit i.
static TERNARY6: [u16; 4096] = {
    let mut t = [0u16; 4096];
    let mut b = 0;
    while b < 4096 {
        t[b] = ternary(b, 6);
        b += 1;
    }
    t
};

/// The state of every window of a position, both sides: lane `w` is White's window `w` (on the
/// board as it is), lane `8 + w` Black's window `w` (on the board turned round), each as the
/// window's state, its index into the window's table; then each side's men's tempo and column
/// sum (see `COUNTS`), which like the states change only where a man leaves or arrives. A search keeps them move by move
/// ([`Layout::indices_after`]): a move changes only the windows of the squares it empties or
/// fills, so the evaluation need not build them from the bitboards at every call.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Default)]
pub struct WindowIndices([u16; LANES]);

impl WindowIndices {
    /// No man on the board.
    const NONE: WindowIndices = WindowIndices([0; LANES]);

    /// Lane by lane, `self + add - sub` (each lane stays within a window's states).
    #[inline(always)]
    fn moved(mut self, add: &WindowIndices, sub: &WindowIndices) -> WindowIndices {
        for ((x, a), s) in self.0.iter_mut().zip(add.0).zip(sub.0) {
            *x = x.wrapping_add(a).wrapping_sub(s);
        }
        self
    }
}

/// The states of the large layout's 4x6 windows, kept move by move beside [`WindowIndices`]
/// (which the large layout keeps too, for its 4x4 windows): lane `w` is White's large window `w`,
/// lane `6 + w` Black's on the board turned round. 3^12 states need more than 16 bits, so these
/// lanes are apart, and the 4x4 layout's evaluation never touches them.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Default)]
pub struct LargeIndices([u32; 2 * LARGE_WINDOWS]);

/// Lanes of window states that a man's arrival adds to and its departure subtracts from.
trait Lanes: Copy {
    const NONE: Self;
    fn moved(self, add: &Self, sub: &Self) -> Self;
}

impl Lanes for WindowIndices {
    const NONE: WindowIndices = WindowIndices::NONE;
    #[inline(always)]
    fn moved(self, add: &Self, sub: &Self) -> Self {
        WindowIndices::moved(self, add, sub)
    }
}

impl Lanes for LargeIndices {
    const NONE: LargeIndices = LargeIndices([0; 2 * LARGE_WINDOWS]);
    #[inline(always)]
    fn moved(mut self, add: &Self, sub: &Self) -> Self {
        for ((x, a), s) in self.0.iter_mut().zip(add.0).zip(sub.0) {
            *x = x.wrapping_add(a).wrapping_sub(s);
        }
        self
    }
}

/// The large layout's 4x6 windows (on 10x10, beside the 4x4 ones).
#[derive(Debug)]
struct Large {
    /// The large windows each side scores: (band, row pair of its top row).
    windows: Vec<(usize, u32)>,
    /// The first feature of the large windows' tables.
    base: usize,
    /// The low three bits of every row pair, and the next three.
    low3: u64,
    high3: u64,
    /// What a man adds to each large window's state, by colour and square.
    man_states: Box<[[LargeIndices; 64]; 2]>,
}

/// Where a visited feature goes: the evaluation adds its weights, the trainer records it.
pub trait FeatureSink {
    /// Feature `feature` occurs with `value` (its count, or ±1 for a side's pattern).
    fn add(&mut self, feature: usize, value: i32);
}

/// One board size's feature layout: windows, feature indices and the tables that find them.
#[derive(Debug)]
pub struct Layout {
    geometry: &'static Geometry,
    /// Pieces at the start: the evaluation is all middle game there and all endgame at none.
    full: i32,
    /// Right shift after a 64-bit reversal that turns the board round.
    reverse_shift: u32,
    /// Bits between the starts of two row pairs (columns + 1).
    stride: u32,
    /// Per column band: the field offset of its left field within a row.
    bands: Vec<u32>,
    /// The low two bits of every row pair, and the next two.
    low_pairs: u64,
    high_pairs: u64,
    /// The windows each side scores: (band, row pair of its top row).
    windows: Vec<(usize, u32)>,
    /// Bit planes of the rows advanced from White's back row (bit j of the count).
    advance: [u64; 4],
    /// Bit planes of the column index.
    column: [u64; 4],
    /// Row of each square (0: where White crowns).
    row: [u8; 64],
    /// Each square's forward cone: the squares a man there could meet on its way to crowning
    /// (every square ahead of it within the diagonals through it).
    cone: [u64; 64],
    /// Field number minus one of each square.
    dense: [u8; 64],
    /// What a man adds to each window's state, by colour and square (see [`WindowIndices`]).
    man_states: [[WindowIndices; 64]; 2],
    king_squares: usize,
    patterns: usize,
    features: usize,
    fingerprint: u64,
    /// The 4x6 windows of the large layout, if this is it.
    large: Option<Large>,
}

static TEN: LazyLock<Layout> = LazyLock::new(|| Layout::build(&kroon_rules::geometry::TEN, false));
static TEN_LARGE: LazyLock<Layout> =
    LazyLock::new(|| Layout::build(&kroon_rules::geometry::TEN, true));
static EIGHT: LazyLock<Layout> =
    LazyLock::new(|| Layout::build(&kroon_rules::geometry::EIGHT, false));

impl Layout {
    /// The layout of a variant's board.
    #[must_use]
    pub fn of(variant: Variant) -> &'static Layout {
        if variant.geometry().columns == 10 {
            &TEN
        } else {
            &EIGHT
        }
    }

    /// The large layout of a variant's board (the 4x4 windows and every other feature of
    /// [`Layout::of`], in the same order, then 4x6 windows): 10x10 only.
    #[must_use]
    pub fn large(variant: Variant) -> Option<&'static Layout> {
        (variant.geometry().columns == 10).then(|| &*TEN_LARGE)
    }

    /// The layouts of a variant's board that a weights file may name.
    #[must_use]
    pub fn all_of(variant: Variant) -> Vec<&'static Layout> {
        std::iter::once(Layout::of(variant))
            .chain(Layout::large(variant))
            .collect()
    }

    /// Whether this is a large layout (with 4x6 windows).
    #[must_use]
    pub fn is_large(&self) -> bool {
        self.large.is_some()
    }

    /// Whether every feature of `base` has the same index here (this layout only adds features
    /// after them): weights of `base` can start this layout's.
    #[must_use]
    pub fn extends(&self, base: &Layout) -> bool {
        std::ptr::eq(self, base)
            || (std::ptr::eq(self.geometry, base.geometry)
                && base.large.is_none()
                && base.features <= self.features)
    }

    fn build(g: &'static Geometry, large: bool) -> Layout {
        let columns = u32::from(g.columns);
        let h = columns / 2;
        let stride = columns + 1;
        let top_bit = 63 - g.mask.0.leading_zeros();
        let row_pairs = columns / 2;
        let mut low_pairs = 0;
        let mut high_pairs = 0;
        for k in 0..row_pairs {
            low_pairs |= 0b11 << (k * stride);
            high_pairs |= 0b1100 << (k * stride);
        }
        let bands: Vec<u32> = (0..=(columns - 4) / 2).collect();
        // Row pairs k and k + 1 make a window of rows 2k..2k+3; turning the board round maps
        // window (k, band) to (K - k, B - band). A side scores the first of each such pair (and a
        // window that is its own image, which then counts for both sides, antisymmetrically).
        let (last_k, last_band) = (row_pairs - 2, bands.len() - 1);
        let mut windows = Vec::new();
        for k in 0..=last_k {
            for band in 0..bands.len() {
                if (k, band) <= (last_k - k, last_band - band) {
                    windows.push((band, k));
                }
            }
        }
        // A side's windows reach its first three row pairs, which `windows_for` relies on.
        debug_assert!(windows.iter().all(|&(_, k)| k <= 1));
        let mut advance = [0u64; 4];
        let mut column = [0u64; 4];
        let mut row = [0u8; 64];
        let mut cone = [0u64; 64];
        let mut dense = [0u8; 64];
        for sq in g.mask {
            let f = u32::from(g.field(sq)) - 1;
            let r = f / h;
            let c = 2 * (f % h) + u32::from(r % 2 == 0);
            let i = usize::from(sq.index());
            row[i] = r as u8;
            dense[i] = f as u8;
            let mut front = Bitboard(1 << i);
            while front.any() {
                front = g.shift(front, UP_LEFT) | g.shift(front, UP_RIGHT);
                cone[i] |= front.0;
            }
            for j in 0..4 {
                if (columns - 1 - r) & (1 << j) != 0 {
                    advance[j] |= 1 << i;
                }
                if c & (1 << j) != 0 {
                    column[j] |= 1 << i;
                }
            }
        }
        let king_squares = RUNAWAY + (columns as usize - 1);
        let patterns = king_squares + usize::from(g.fields);
        let features = patterns + windows.len() * WINDOW_STATES;
        let mut layout = Layout {
            geometry: g,
            full: 2 * g.initial[0].count() as i32,
            reverse_shift: 63 - top_bit,
            stride,
            bands,
            low_pairs,
            high_pairs,
            windows,
            advance,
            column,
            row,
            cone,
            dense,
            man_states: [[WindowIndices::NONE; 64]; 2],
            king_squares,
            patterns,
            features,
            fingerprint: 0,
            large: None,
        };
        if large {
            layout.large = Some(layout.build_large());
            layout.features += LARGE_WINDOWS * LARGE_STATES;
        }
        layout.fingerprint = fnv1a(layout.description().as_bytes());
        // Digit p of a window's state is 3^p for the scoring side's man on the window's p-th
        // square and 2 * 3^p for the opponent's. Black's windows lie on the board turned round.
        for w in 0..layout.windows.len() {
            let mut power = 1;
            for s in layout.window_squares(w) {
                let turned = layout.turned(Bitboard(1 << s)).trailing_zeros() as usize;
                let s = usize::from(s);
                let states = &mut layout.man_states;
                states[0][s].0[w] += power;
                states[1][s].0[w] += 2 * power;
                states[1][turned].0[MAX_WINDOWS + w] += power;
                states[0][turned].0[MAX_WINDOWS + w] += 2 * power;
                power *= 3;
            }
        }
        for sq in g.mask {
            let (s, turned) = (
                usize::from(sq.index()),
                layout.turned(Bitboard(1 << sq.index())),
            );
            let t = turned.trailing_zeros() as usize;
            let plane_sum = |planes: &[u64; 4], i: usize| -> u16 {
                (0..4)
                    .map(|j| u16::from(planes[j] & (1 << i) != 0) << j)
                    .sum()
            };
            let states = &mut layout.man_states;
            states[0][s].0[COUNTS] = plane_sum(&layout.advance, s);
            states[0][s].0[COUNTS + 1] = plane_sum(&layout.column, s);
            states[1][s].0[COUNTS + 2] = plane_sum(&layout.advance, t);
            states[1][s].0[COUNTS + 3] = plane_sum(&layout.column, t);
        }
        layout
    }

    /// The 4x6 windows on 10x10: in row pairs `k` and `k + 1` and column band `band` (fields
    /// `band..band + 3` of each row); turning the board round maps (k, band) to (3 - k, 2 -
    /// band), and a side scores the first of each pair, as with the 4x4 windows.
    fn build_large(&self) -> Large {
        let (last_k, last_band) = (3u32, LARGE_BANDS - 1);
        let mut windows = Vec::new();
        for k in 0..=last_k {
            for band in 0..LARGE_BANDS {
                if (k, band) <= (last_k - k, last_band - band) {
                    windows.push((band, k));
                }
            }
        }
        assert_eq!(windows.len(), LARGE_WINDOWS);
        let (mut low3, mut high3) = (0, 0);
        for k in 0..u32::from(self.geometry.columns) / 2 {
            low3 |= 0b111 << (k * self.stride);
            high3 |= 0b111_000 << (k * self.stride);
        }
        let mut large = Large {
            windows,
            base: self.features,
            low3,
            high3,
            man_states: Box::new([[LargeIndices::NONE; 64]; 2]),
        };
        for w in 0..LARGE_WINDOWS {
            let mut power = 1;
            for s in self.large_squares(&large, w) {
                let turned = self.turned(Bitboard(1 << s)).trailing_zeros() as usize;
                let s = usize::from(s);
                let states = &mut large.man_states;
                states[0][s].0[w] += power;
                states[1][s].0[w] += 2 * power;
                states[1][turned].0[LARGE_WINDOWS + w] += power;
                states[0][turned].0[LARGE_WINDOWS + w] += 2 * power;
                power *= 3;
            }
        }
        large
    }

    /// The squares of large window `w` in the order of its index's digits.
    fn large_squares(&self, large: &Large, w: usize) -> Vec<u8> {
        let (band, k) = large.windows[w];
        let h = u32::from(self.geometry.columns) / 2;
        let mut out = Vec::new();
        for pair in [k, k + 1] {
            for half in [0, h] {
                for i in 0..3 {
                    out.push((pair * self.stride + half + band as u32 + i) as u8);
                }
            }
        }
        out
    }

    /// The window states of `pos`, from its men.
    #[must_use]
    pub fn window_indices(&self, pos: &Position) -> WindowIndices {
        Self::lanes_of(&self.man_states, pos)
    }

    /// The large windows' states of `pos`, from its men (all zero in a layout without them).
    #[must_use]
    pub fn large_indices(&self, pos: &Position) -> LargeIndices {
        match &self.large {
            Some(large) => Self::lanes_of(&large.man_states, pos),
            None => LargeIndices::NONE,
        }
    }

    fn lanes_of<L: Lanes>(man_states: &[[L; 64]; 2], pos: &Position) -> L {
        let mut indices = L::NONE;
        for colour in [Colour::White, Colour::Black] {
            for sq in pos.pieces(colour) & pos.men() {
                let add = &man_states[colour.index()][usize::from(sq.index())];
                indices = indices.moved(add, &L::NONE);
            }
        }
        indices
    }

    /// [`Self::indices_after`] for the large windows' states.
    #[inline]
    #[must_use]
    pub fn large_after(&self, before: &LargeIndices, pos: &Position, mv: &Move) -> LargeIndices {
        match &self.large {
            Some(large) => Self::lanes_after(&large.man_states, before, pos, mv),
            None => *before,
        }
    }

    /// The window states after `mv` is played in `pos`, whose states are `before`: the moving
    /// man leaves its square (a king or a crowning man is no man on the square it reaches) and
    /// the men it takes leave theirs.
    #[inline]
    #[must_use]
    pub fn indices_after(
        &self,
        before: &WindowIndices,
        pos: &Position,
        mv: &Move,
    ) -> WindowIndices {
        Self::lanes_after(&self.man_states, before, pos, mv)
    }

    #[inline(always)]
    fn lanes_after<L: Lanes>(
        man_states: &[[L; 64]; 2],
        before: &L,
        pos: &Position,
        mv: &Move,
    ) -> L {
        let us = pos.turn().index();
        let kings = pos.kings();
        let mut after = *before;
        if !kings.has(mv.from) {
            let states = &man_states[us];
            let to = if mv.promotes {
                &L::NONE
            } else {
                &states[usize::from(mv.to.index())]
            };
            after = after.moved(to, &states[usize::from(mv.from.index())]);
        }
        let taken = mv.captured & !kings;
        if taken.any() {
            let states = &man_states[1 - us];
            for sq in taken {
                after = after.moved(&L::NONE, &states[usize::from(sq.index())]);
            }
        }
        after
    }

    /// A text that names everything the feature indices depend on; its hash is the fingerprint a
    /// weights file must carry.
    fn description(&self) -> String {
        let base = self.base_description();
        match &self.large {
            None => base,
            Some(large) => format!(
                "{base}; plus windows 4x6 of men at {:?} (band, row pair), {} states per window, \
                 from feature {}",
                large.windows, LARGE_STATES, large.base
            ),
        }
    }

    /// The description of the 4x4 layout (the whole description of it; unchanged, so that its
    /// fingerprint stays the one its weights carry).
    fn base_description(&self) -> String {
        format!(
            "kroon pattern layout 1: board {}, windows 4x4 of men at {:?} (band, row pair), \
             features men first-king extra-kings tempo skew turn king-safe king-unsafe, \
             runaway 1..{}, king squares {}, {} states per window, {} features, stage {} pieces",
            self.geometry.columns,
            self.windows,
            self.geometry.columns - 1,
            self.geometry.fields,
            WINDOW_STATES,
            self.features,
            self.full
        )
    }

    /// Number of features (each has two weights: middle game and endgame).
    #[must_use]
    pub fn features(&self) -> usize {
        self.features
    }

    /// The hash of the layout's description: weights made for another layout are refused.
    #[must_use]
    pub fn fingerprint(&self) -> u64 {
        self.fingerprint
    }

    /// The number of windows each side scores.
    #[must_use]
    pub fn windows(&self) -> usize {
        self.windows.len()
    }

    /// The first feature of window `w`'s table.
    #[must_use]
    pub fn window_base(&self, w: usize) -> usize {
        self.patterns + w * WINDOW_STATES
    }

    /// The feature of a king on the field `field` (1-based, seen from the king's side).
    #[must_use]
    pub fn king_square(&self, field: u8) -> usize {
        self.king_squares + usize::from(field) - 1
    }

    /// Whether a feature is a window state or a king square (the sparse ones, which training
    /// regularises).
    #[must_use]
    pub fn is_sparse(&self, feature: usize) -> bool {
        feature >= self.king_squares
    }

    /// A short name for a feature, for reports.
    #[must_use]
    pub fn name(&self, feature: usize) -> String {
        const NAMES: [&str; RUNAWAY] = [
            "men",
            "first king",
            "extra kings",
            "tempo",
            "skew",
            "turn",
            "king safe squares",
            "king unsafe squares",
        ];
        if feature < RUNAWAY {
            NAMES[feature].to_owned()
        } else if feature < self.king_squares {
            format!("runaway, {} rows to go", feature - RUNAWAY + 1)
        } else if feature < self.patterns {
            format!("king on {}", feature - self.king_squares + 1)
        } else if let Some(large) = self.large.as_ref().filter(|l| feature >= l.base) {
            let w = (feature - large.base) / LARGE_STATES;
            let (band, k) = large.windows[w];
            format!(
                "large window rows {}-{} columns {}-{} state {}",
                2 * k,
                2 * k + 3,
                2 * band,
                2 * band + 5,
                (feature - large.base) % LARGE_STATES
            )
        } else {
            let w = (feature - self.patterns) / WINDOW_STATES;
            let (band, k) = self.windows[w];
            format!(
                "window rows {}-{} columns {}-{} state {}",
                2 * k,
                2 * k + 3,
                2 * band,
                2 * band + 3,
                (feature - self.patterns) % WINDOW_STATES
            )
        }
    }

    /// Pieces on the board, capped at the start's count: the weight of the middle-game values.
    #[must_use]
    pub fn stage(&self, pos: &Position) -> i32 {
        (pos.all().count() as i32).min(self.full)
    }

    /// The stage of a full board (all middle game).
    #[must_use]
    pub fn full_stage(&self) -> i32 {
        self.full
    }

    /// The board turned round: square i becomes the last square minus i, in the same layout.
    #[inline]
    fn turned(&self, b: Bitboard) -> u64 {
        b.0.reverse_bits() >> self.reverse_shift
    }

    /// Every feature of `pos`, from White's point of view (Black's count negatively).
    #[inline(always)]
    pub fn visit<S: FeatureSink>(&self, pos: &Position, sink: &mut S) {
        self.visit_with(pos, None, None, sink);
    }

    /// [`Self::visit`] with the window states given (those of `pos`, kept move by move).
    #[inline(always)]
    pub fn visit_indexed<S: FeatureSink>(
        &self,
        pos: &Position,
        indices: &WindowIndices,
        sink: &mut S,
    ) {
        self.visit_with(pos, Some(indices), None, sink);
    }

    /// [`Self::visit_indexed`] with the large windows' states given too (large layout).
    #[inline(always)]
    pub fn visit_indexed_large<S: FeatureSink>(
        &self,
        pos: &Position,
        indices: &WindowIndices,
        large: &LargeIndices,
        sink: &mut S,
    ) {
        self.visit_with(pos, Some(indices), Some(large), sink);
    }

    /// [`Self::visit`], the windows from `indices` if given, else from the men.
    #[inline(always)]
    fn visit_with<S: FeatureSink>(
        &self,
        pos: &Position,
        indices: Option<&WindowIndices>,
        large_indices: Option<&LargeIndices>,
        sink: &mut S,
    ) {
        let kings = pos.kings();
        let white = pos.pieces(Colour::White);
        let black = pos.pieces(Colour::Black);
        let v = pos.variant();
        let (wm, wk) = ((white & !kings).0, (white & kings).0);
        let (bm, bk) = ((black & !kings).0, (black & kings).0);
        let lanes = |offset: usize, counts: usize| {
            indices.map(|ix| {
                let c = [ix.0[COUNTS + counts], ix.0[COUNTS + counts + 1]];
                (&ix.0[offset..offset + MAX_WINDOWS], c)
            })
        };
        self.side(v, [wm, wk, bm, bk], lanes(0, 0), 1, sink);
        // Turning the board round costs a bit reversal; an empty set (kings, mostly) needs none.
        let t = |b: u64| if b == 0 { 0 } else { self.turned(Bitboard(b)) };
        self.side(
            v,
            [t(bm), t(bk), t(wm), t(wk)],
            lanes(MAX_WINDOWS, 2),
            -1,
            sink,
        );
        sink.add(TURN, if pos.turn() == Colour::White { 1 } else { -1 });
        if let Some(large) = &self.large {
            match large_indices {
                Some(ix) => {
                    for (w, &state) in ix.0.iter().enumerate() {
                        let sign = if w < LARGE_WINDOWS { 1 } else { -1 };
                        let table = large.base + (w % LARGE_WINDOWS) * LARGE_STATES;
                        sink.add(table + state as usize, sign);
                    }
                }
                None => {
                    self.large_windows(large, wm, bm, 1, sink);
                    self.large_windows(large, t(bm), t(wm), -1, sink);
                }
            }
        }
    }

    /// A side's large windows from its men and the opponent's, on a board where it plays up:
    /// each row pair's three fields of a row in a band are turned into base 3 by one lookup of
    /// the six own and six opposing bits, and a window is two row pairs, upper + 729 * lower.
    #[inline(always)]
    fn large_windows<S: FeatureSink>(
        &self,
        large: &Large,
        men: u64,
        opp_men: u64,
        sign: i32,
        sink: &mut S,
    ) {
        let h = u32::from(self.geometry.columns) / 2;
        let mut ternary = [[0usize; 3]; LARGE_BANDS];
        for (b, t) in ternary.iter_mut().enumerate() {
            let band = |y: u64| (y & large.low3) | ((y >> (h - 3)) & large.high3);
            let (own, opp) = (band(men >> b), band(opp_men >> b));
            for (pair, t) in t.iter_mut().enumerate() {
                let s = pair as u32 * self.stride;
                let bits = ((own >> s) & 63) | (((opp >> s) & 63) << 6);
                *t = usize::from(TERNARY6[bits as usize]);
            }
        }
        for (w, &(band, k)) in large.windows.iter().enumerate() {
            let k = k as usize;
            let state = ternary[band][k] + 729 * ternary[band][k + 1];
            sink.add(large.base + w * LARGE_STATES + state, sign);
        }
    }

    /// One side's features, on a board where that side plays up the board (towards row 0), as
    /// White does: `[own men, own kings, opponent men, opponent kings]`; the window states, and
    /// the men's tempo and column sum, are `kept` when given (the side's lanes of
    /// [`WindowIndices`]).
    #[inline(always)]
    fn side<S: FeatureSink>(
        &self,
        v: Variant,
        [men, kings, opp_men, opp_kings]: [u64; 4],
        kept: Option<(&[u16], [u16; 2])>,
        sign: i32,
        sink: &mut S,
    ) {
        let g = self.geometry;
        let n_men = men.count_ones() as i32;
        let n_kings = kings.count_ones() as i32;
        if n_men != 0 {
            sink.add(MEN, sign * n_men);
            let planes = |p: &[u64; 4]| -> i32 {
                p.iter()
                    .enumerate()
                    .map(|(j, &m)| ((men & m).count_ones() << j) as i32)
                    .sum()
            };
            let (tempo, columns) = match kept {
                Some((_, [tempo, columns])) => (i32::from(tempo), i32::from(columns)),
                None => (planes(&self.advance), planes(&self.column)),
            };
            if tempo != 0 {
                sink.add(TEMPO, sign * tempo);
            }
            // Twice the men's mean column offset from the centre, times their number.
            let skew = (2 * columns - (i32::from(g.columns) - 1) * n_men).abs();
            if skew != 0 {
                sink.add(SKEW, sign * skew);
            }
        }
        if n_kings != 0 {
            sink.add(FIRST_KING, sign);
            if n_kings > 1 {
                sink.add(EXTRA_KINGS, sign * (n_kings - 1));
            }
            self.king_features(
                v,
                kings,
                men | kings | opp_men | opp_kings,
                opp_men,
                sign,
                sink,
            );
        }
        if opp_kings == 0 && men != 0 {
            self.runaway(men, opp_men, sign, sink);
        }
        match kept {
            Some((states, _)) => self.windows_indexed(states, sign, sink),
            None => self.windows_of(men, opp_men, sign, sink),
        }
    }

    /// King squares and mobility: the empty squares each king reaches in one move, safe or not.
    /// Inlined so that the sum stays in registers rather than going through memory at every
    /// feature for the sake of a call.
    #[inline(always)]
    fn king_features<S: FeatureSink>(
        &self,
        v: Variant,
        kings: u64,
        occupied: u64,
        opp_men: u64,
        sign: i32,
        sink: &mut S,
    ) {
        let g = self.geometry;
        let empty = g.mask.0 & !occupied;
        // Squares where an enemy man next to it could take a king: the square beyond is empty.
        // Enemy men move down this board; in English draughts they take only that way.
        let dirs: &[usize] = if v.men_capture_backward() {
            &[0, 1, 2, 3]
        } else {
            &[DOWN_LEFT, DOWN_RIGHT]
        };
        let mut attacked = 0;
        for &d in dirs {
            attacked |= g.shift(Bitboard(opp_men), d).0 & g.shift(Bitboard(empty), d ^ 3).0;
        }
        let flying = v.kings_fly();
        let (mut safe, mut unsafe_) = (0, 0);
        let mut k = kings;
        while k != 0 {
            let sq = k.trailing_zeros() as u8;
            k &= k - 1;
            sink.add(
                self.king_squares + usize::from(self.dense[usize::from(sq)]),
                sign,
            );
            let mut reach = 0u64;
            for d in 0..4 {
                let mut s = g.step(sq, d);
                while s != OFF && empty & (1 << s) != 0 {
                    reach |= 1 << s;
                    if !flying {
                        break;
                    }
                    s = g.step(s, d);
                }
            }
            safe += (reach & !attacked).count_ones() as i32;
            unsafe_ += (reach & attacked).count_ones() as i32;
        }
        if safe != 0 {
            sink.add(KING_SAFE, sign * safe);
        }
        if unsafe_ != 0 {
            sink.add(KING_UNSAFE, sign * unsafe_);
        }
    }

    /// The most advanced man that no enemy man stands in front of, within its forward cone.
    /// Men are tried from the most advanced (the lowest bit is on the lowest row, the one
    /// nearest to crowning) until one has an empty cone; in the middle game most have none.
    #[inline]
    fn runaway<S: FeatureSink>(&self, men: u64, opp_men: u64, sign: i32, sink: &mut S) {
        let mut m = men;
        while m != 0 {
            let s = m.trailing_zeros() as usize;
            if self.cone[s] & opp_men == 0 {
                sink.add(RUNAWAY + usize::from(self.row[s].max(1)) - 1, sign);
                return;
            }
            m &= m - 1;
        }
    }

    /// The side's windows from their states.
    #[inline(always)]
    fn windows_indexed<S: FeatureSink>(&self, states: &[u16], sign: i32, sink: &mut S) {
        // A constant count of windows, so that the loop unrolls.
        let windows = if self.geometry.columns == 10 {
            MAX_WINDOWS
        } else {
            5
        };
        debug_assert_eq!(windows, self.windows.len());
        for (w, &state) in states[..windows].iter().enumerate() {
            sink.add(self.patterns + w * WINDOW_STATES + usize::from(state), sign);
        }
    }

    /// The side's windows, from its men and the opponent's.
    #[inline(always)]
    fn windows_of<S: FeatureSink>(&self, men: u64, opp_men: u64, sign: i32, sink: &mut S) {
        if self.geometry.columns == 10 {
            self.windows_for::<10, S>(men, opp_men, sign, sink);
        } else {
            self.windows_for::<8, S>(men, opp_men, sign, sink);
        }
    }

    /// [`Self::windows_of`] for a board of `COLUMNS`, where every shift is a constant. A window is
    /// two row pairs of a band, so each row pair's four squares are turned into base 3 once and
    /// shared by the windows that hold them: state = upper pair + 81 * lower pair. The windows are
    /// taken in the order of `Layout::build`.
    #[inline(always)]
    fn windows_for<const COLUMNS: u32, S: FeatureSink>(
        &self,
        men: u64,
        opp_men: u64,
        sign: i32,
        sink: &mut S,
    ) {
        let stride = COLUMNS + 1;
        let h = COLUMNS / 2;
        let bands = (COLUMNS as usize - 4) / 2 + 1;
        let (last_k, last_band) = (COLUMNS as usize / 2 - 2, bands - 1);
        let mut ternary = [[0usize; 3]; MAX_BANDS];
        for (b, t) in ternary.iter_mut().enumerate().take(bands) {
            let own = self.band(men >> b, h);
            let opp = self.band(opp_men >> b, h);
            for (pair, t) in t.iter_mut().enumerate() {
                let s = pair as u32 * stride;
                let nibbles = ((own >> s) & 0xF) | (((opp >> s) & 0xF) << 4);
                *t = usize::from(TERNARY[nibbles as usize]);
            }
        }
        let mut w = 0;
        for k in 0..2 {
            // The bands that `Layout::build` keeps in row pair k: (k, band) <= (last_k - k,
            // last_band - band), counted here so that the loop has a constant length.
            let kept = match k.cmp(&(last_k - k)) {
                std::cmp::Ordering::Less => bands,
                std::cmp::Ordering::Equal => last_band / 2 + 1,
                std::cmp::Ordering::Greater => 0,
            };
            for t in &ternary[..kept] {
                let state = t[k] + 81 * t[k + 1];
                sink.add(self.patterns + w * WINDOW_STATES + state, sign);
                w += 1;
            }
        }
    }

    /// A column band's squares packed into 4 bits per row pair: the two fields of the first row,
    /// then the two of the second (`y` is the board shifted to the band's first field, `h` the
    /// fields per row).
    #[inline(always)]
    fn band(&self, y: u64, h: u32) -> u64 {
        (y & self.low_pairs) | ((y >> (h - 2)) & self.high_pairs)
    }

    /// The squares of window `w` in the order of its index's digits (for tests and reports).
    #[must_use]
    pub fn window_squares(&self, w: usize) -> Vec<u8> {
        let (band, k) = self.windows[w];
        let h = u32::from(self.geometry.columns) / 2;
        let mut out = Vec::new();
        for pair in [k, k + 1] {
            for half in [0, h] {
                for i in 0..2 {
                    out.push((pair * self.stride + half + self.bands[band] + i) as u8);
                }
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use kroon_rules::hash::SplitMix64;
    use kroon_rules::{parse_fen, Square};

    /// A sink that keeps every feature.
    #[derive(Default)]
    struct Collect(Vec<(usize, i32)>);
    impl FeatureSink for Collect {
        fn add(&mut self, feature: usize, value: i32) {
            self.0.push((feature, value));
        }
    }

    /// A position from a seeded walk of legal moves.
    fn walk(variant: Variant, seed: u64, plies: usize) -> Position {
        let mut pos = Position::initial(variant);
        let mut x = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
        for _ in 0..plies {
            let moves = pos.legal_moves();
            if moves.is_empty() {
                break;
            }
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            pos = pos.play(&moves[(x % moves.len() as u64) as usize]);
        }
        pos
    }

    #[test]
    fn windows_cover_the_board_with_overlap() {
        for v in [Variant::International, Variant::Russian] {
            let l = Layout::of(v);
            let g = v.geometry();
            let mut seen = [0u32; 64];
            for w in 0..l.windows() {
                let squares = l.window_squares(w);
                assert_eq!(squares.len(), WINDOW_SQUARES as usize);
                for &s in &squares {
                    assert!(g.mask.has(Square::new(s)), "window {w} leaves the board");
                    seen[usize::from(s)] += 1;
                    // The other side scores the same window on the board turned round.
                    let t = (1u64 << s).reverse_bits() >> l.reverse_shift;
                    seen[t.trailing_zeros() as usize] += 1;
                }
            }
            for sq in g.mask {
                assert!(seen[usize::from(sq.index())] >= 1, "{v}: {sq:?} uncovered");
            }
            // Inner squares lie in several windows.
            let centre = g.square(u32::from(g.fields) / 2).unwrap();
            assert!(seen[usize::from(centre.index())] >= 2);
        }
        assert_eq!(Layout::of(Variant::International).windows(), 8);
        assert_eq!(Layout::of(Variant::English).windows(), 5);
    }

    /// Every window table of a layout: its first feature, its states and its squares in the
    /// order of the index's digits.
    fn tables(l: &Layout) -> Vec<(usize, usize, Vec<u8>)> {
        let mut out: Vec<_> = (0..l.windows())
            .map(|w| (l.window_base(w), WINDOW_STATES, l.window_squares(w)))
            .collect();
        if let Some(large) = &l.large {
            out.extend((0..LARGE_WINDOWS).map(|w| {
                let base = large.base + w * LARGE_STATES;
                (base, LARGE_STATES, l.large_squares(large, w))
            }));
        }
        out
    }

    /// The layouts to test: each board's, and the large one.
    fn layouts(variants: &[Variant]) -> Vec<(Variant, &'static Layout)> {
        variants
            .iter()
            .map(|&v| (v, Layout::of(v)))
            .chain(std::iter::once((
                Variant::International,
                Layout::large(Variant::International).unwrap(),
            )))
            .collect()
    }

    #[test]
    fn window_indices_round_trip_on_random_positions() {
        for (v, l) in layouts(&[Variant::International, Variant::Brazilian]) {
            for seed in 0..200 {
                let pos = walk(v, seed, (seed % 80) as usize);
                let mut c = Collect::default();
                l.visit(&pos, &mut c);
                let kings = pos.kings();
                for (w_side, turned) in [(1, false), (-1, true)] {
                    let view = |b: Bitboard| {
                        if turned {
                            Bitboard(l.turned(b))
                        } else {
                            b
                        }
                    };
                    let (own, opp) = if turned {
                        (pos.pieces(Colour::Black), pos.pieces(Colour::White))
                    } else {
                        (pos.pieces(Colour::White), pos.pieces(Colour::Black))
                    };
                    let (own, opp) = (view(own & !kings), view(opp & !kings));
                    for (w, (base, states, squares)) in tables(l).into_iter().enumerate() {
                        let found: Vec<_> = c
                            .0
                            .iter()
                            .filter(|&&(f, s)| s == w_side && (base..base + states).contains(&f))
                            .collect();
                        assert_eq!(found.len(), 1);
                        // Decode the state digit by digit and compare with the board.
                        let mut state = found[0].0 - base;
                        for &s in &squares {
                            let sq = Square::new(s);
                            let want = if own.has(sq) {
                                1
                            } else if opp.has(sq) {
                                2
                            } else {
                                0
                            };
                            assert_eq!(state % 3, want, "{v} seed {seed} window {w}");
                            state /= 3;
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn window_states_kept_move_by_move_match_the_board() {
        for (v, l) in layouts(&[Variant::International, Variant::Frisian, Variant::Russian]) {
            let (mut captures, mut crownings, mut king_moves) = (0, 0, 0);
            for seed in 0..60u64 {
                let mut pos = Position::initial(v);
                let mut indices = l.window_indices(&pos);
                let mut large = l.large_indices(&pos);
                let mut rng = SplitMix64(seed ^ u64::from(l.is_large()) << 32);
                for _ in 0..(seed as usize % 120 + 20) {
                    // The states the features are made of, against the ones visit finds from
                    // the bitboards.
                    let (mut from_board, mut given) = (Collect::default(), Collect::default());
                    l.visit(&pos, &mut from_board);
                    if l.is_large() {
                        l.visit_indexed_large(&pos, &indices, &large, &mut given);
                    } else {
                        l.visit_indexed(&pos, &indices, &mut given);
                    }
                    from_board.0.sort_unstable();
                    given.0.sort_unstable();
                    assert_eq!(from_board.0, given.0, "{}", kroon_rules::write_fen(&pos));
                    let moves = pos.legal_moves();
                    if moves.is_empty() {
                        break;
                    }
                    for mv in &moves {
                        captures += usize::from(mv.is_capture());
                        crownings += usize::from(mv.promotes);
                        king_moves += usize::from(pos.kings().has(mv.from));
                        assert_eq!(
                            l.indices_after(&indices, &pos, mv),
                            l.window_indices(&pos.play(mv)),
                            "{} {mv:?}",
                            kroon_rules::write_fen(&pos)
                        );
                        assert_eq!(
                            l.large_after(&large, &pos, mv),
                            l.large_indices(&pos.play(mv)),
                            "{} {mv:?}",
                            kroon_rules::write_fen(&pos)
                        );
                    }
                    let mv = &moves[rng.below(moves.len())];
                    indices = l.indices_after(&indices, &pos, mv);
                    large = l.large_after(&large, &pos, mv);
                    pos = pos.play(mv);
                }
            }
            // The walks reach every kind of change.
            assert!(captures > 100 && crownings > 10 && king_moves > 100, "{v}");
        }
    }

    #[test]
    fn features_are_antisymmetric_under_the_colour_flip() {
        for (v, l) in layouts(&[Variant::International, Variant::English]) {
            for seed in 0..100 {
                let pos = walk(v, seed, 10 + (seed % 70) as usize);
                let mut a = Collect::default();
                let mut b = Collect::default();
                l.visit(&pos, &mut a);
                l.visit(&pos.flipped(), &mut b);
                let mut a: Vec<_> = a.0.into_iter().map(|(f, x)| (f, -x)).collect();
                a.sort_unstable();
                b.0.sort_unstable();
                assert_eq!(a, b.0, "{}", kroon_rules::write_fen(&pos));
            }
        }
    }

    #[test]
    fn runaway_and_tempo_features() {
        let l = Layout::of(Variant::International);
        let features = |fen: &str| {
            let mut c = Collect::default();
            l.visit(&parse_fen(fen, Variant::International).unwrap(), &mut c);
            c.0
        };
        // White's man on 15 (row 2) is free; Black's on 36 is not: 46 stands in its way.
        let f = features("W:W15,46:B36");
        assert!(f.contains(&(RUNAWAY + 1, 1)), "{f:?}");
        assert!(!f
            .iter()
            .any(|&(x, s)| s == -1 && (RUNAWAY..l.king_squares).contains(&x)));
        // Without 46, Black's man runs too, two rows from its crowning row.
        let f = features("W:W15,50:B36");
        assert!(f.contains(&(RUNAWAY + 1, -1)), "{f:?}");
        // A black man on 4 stands in 15's cone.
        let f = features("W:W15,46:B4,36");
        assert!(!f
            .iter()
            .any(|&(x, s)| s == 1 && (RUNAWAY..l.king_squares).contains(&x)));
        // Tempo: 46 has advanced 0 rows, 15 seven.
        let f = features("W:W15,46:B36");
        assert!(f.contains(&(TEMPO, 7)) && f.contains(&(TEMPO, -7)), "{f:?}");
        // No runaway feature against a king.
        let f = features("W:W15:BK50");
        assert!(!f
            .iter()
            .any(|&(x, _)| (RUNAWAY..l.king_squares).contains(&x)));
    }

    #[test]
    fn large_windows_cover_the_board_once_a_window() {
        let v = Variant::International;
        let (l, g) = (Layout::large(v).unwrap(), v.geometry());
        let large = l.large.as_ref().unwrap();
        // The twelve 4x6 windows of the board, each scored by one side: the side's own, and the
        // other side's turned round, are all distinct and 12 squares each on the board.
        let mut all = Vec::new();
        for w in 0..LARGE_WINDOWS {
            let squares = l.large_squares(large, w);
            assert_eq!(squares.len(), LARGE_SQUARES as usize);
            let mut own = 0u64;
            for &s in &squares {
                assert!(g.mask.has(Square::new(s)), "window {w} leaves the board");
                own |= 1 << s;
            }
            all.push(own);
            all.push(l.turned(Bitboard(own)));
        }
        all.sort_unstable();
        all.dedup();
        assert_eq!(all.len(), 2 * LARGE_WINDOWS);
        let covered = all.iter().fold(0, |a, b| a | b);
        assert_eq!(covered, g.mask.0);
        // Every other feature keeps its index, so that 4x4 weights start the large layout's.
        let small = Layout::of(v);
        assert!(l.extends(small) && !small.extends(l));
        assert_eq!(l.features(), small.features() + 6 * 531_441);
        assert_eq!(large.base, small.features());
        assert!(Layout::large(Variant::Russian).is_none());
    }

    #[test]
    fn fingerprints_differ_by_board() {
        assert_ne!(
            Layout::of(Variant::International).fingerprint(),
            Layout::large(Variant::International).unwrap().fingerprint()
        );
        assert_ne!(
            Layout::of(Variant::International).fingerprint(),
            Layout::of(Variant::Russian).fingerprint()
        );
        assert_eq!(
            Layout::of(Variant::International).features(),
            8 + 9 + 50 + 8 * 6561
        );
    }
}
