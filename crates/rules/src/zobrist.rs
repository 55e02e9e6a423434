//! Zobrist keys, built at compile time from a fixed seed.

use crate::hash::splitmix64 as splitmix;

/// Keys per piece kind (white man, white king, black man, black king) and square index.
pub const PIECE: [[u64; 64]; 4] = build();
/// Key toggled when Black is to move.
pub const BLACK_TO_MOVE: u64 = splitmix(0x6b72_6f6f_6e00_0002).1;
/// Keys of a Frisian king run: per side, run length 1..=3 (index `moves - 1`) and the king's square.
pub const KING_RUN: [[[u64; 64]; 3]; 2] = build_runs();

const fn build() -> [[u64; 64]; 4] {
    let mut keys = [[0u64; 64]; 4];
    let mut state = 0x6b72_6f6f_6e00_0001u64;
    let mut k = 0;
    while k < 4 {
        (keys[k], state) = row(state);
        k += 1;
    }
    keys
}

const fn build_runs() -> [[[u64; 64]; 3]; 2] {
    let mut keys = [[[0u64; 64]; 3]; 2];
    let mut state = 0x6b72_6f6f_6e00_0003u64;
    let mut side = 0;
    while side < 2 {
        let mut n = 0;
        while n < 3 {
            (keys[side][n], state) = row(state);
            n += 1;
        }
        side += 1;
    }
    keys
}

/// The next 64 keys of the splitmix64 stream at `state`, one a square, and the state after them.
const fn row(mut state: u64) -> ([u64; 64], u64) {
    let mut keys = [0u64; 64];
    let mut sq = 0;
    while sq < 64 {
        let (s, v) = splitmix(state);
        state = s;
        keys[sq] = v;
        sq += 1;
    }
    (keys, state)
}

/// Index into `PIECE` for a piece of `colour` (0 white, 1 black), man or king.
#[inline]
#[must_use]
pub const fn kind(colour: usize, king: bool) -> usize {
    colour * 2 + king as usize
}
