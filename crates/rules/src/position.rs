//! `Position`: men, kings, colours and the side to move, with its Zobrist key; copy-make play.

use crate::bitboard::Bitboard;
use crate::movegen;
use crate::movelist::MoveList;
use crate::mv::Move;
use crate::square::Square;
use crate::variant::Variant;
use crate::zobrist;
use std::ops::Not;

/// A side.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub enum Colour {
    /// White: starts on the high fields, moves first in international draughts.
    White = 0,
    /// Black.
    Black = 1,
}

impl Not for Colour {
    type Output = Colour;
    #[inline]
    fn not(self) -> Colour {
        match self {
            Colour::White => Colour::Black,
            Colour::Black => Colour::White,
        }
    }
}

impl Colour {
    /// 0 for White, 1 for Black.
    #[inline]
    #[must_use]
    pub const fn index(self) -> usize {
        self as usize
    }
}

/// A piece kind of one side.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub struct Piece {
    /// Whose piece.
    pub colour: Colour,
    /// A king rather than a man.
    pub king: bool,
}

/// A move that is not legal in the position it was played in.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("illegal move {mv:?}")]
pub struct IllegalMove {
    /// The move that was refused.
    pub mv: Move,
}

/// Frisian only: the king that made a side's latest quiet moves, and how many it made in a row.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug, Default)]
struct KingRun {
    /// Square index of the king (0 when `moves` is 0).
    square: u8,
    /// Quiet moves in a row by that king, 0..=`KING_MOVE_LIMIT`.
    moves: u8,
}

/// A position: where the pieces stand and who is to move. Small and `Copy`; `play` returns a new one.
///
/// In Frisian draughts it also carries, per side, the run of quiet moves of one king: a king may
/// make at most three in a row while its side has men, so the legal moves depend on it. The run is
/// state, not history: `play` keeps it, equality, hashing and the Zobrist key include it, and it is
/// zero in every other variant, in positions read from text and whenever a side has no men.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub struct Position {
    pieces: [Bitboard; 2],
    kings: Bitboard,
    turn: Colour,
    variant: Variant,
    runs: [KingRun; 2],
    key: u64,
}

impl Position {
    /// The initial position of a variant.
    #[must_use]
    pub fn initial(variant: Variant) -> Position {
        let g = variant.geometry();
        Position::from_parts(
            variant,
            g.initial[0],
            g.initial[1],
            Bitboard::EMPTY,
            Colour::White,
        )
    }

    /// A position from its pieces. The caller guarantees that the sets are disjoint where they must
    /// be and lie on the board (the FEN readers check this).
    #[must_use]
    pub fn from_parts(
        variant: Variant,
        white: Bitboard,
        black: Bitboard,
        kings: Bitboard,
        turn: Colour,
    ) -> Position {
        debug_assert!((white & black).is_empty());
        debug_assert!((kings & !(white | black)).is_empty());
        let mut pos = Position {
            pieces: [white, black],
            kings,
            turn,
            variant,
            runs: [KingRun::default(); 2],
            key: 0,
        };
        pos.key = pos.compute_key();
        pos
    }

    /// The Zobrist key computed from scratch (equal to the incremental `key`).
    #[must_use]
    pub fn compute_key(&self) -> u64 {
        let mut k = if self.turn == Colour::Black {
            zobrist::BLACK_TO_MOVE
        } else {
            0
        };
        for c in 0..2 {
            for sq in self.pieces[c] {
                k ^= zobrist::PIECE[zobrist::kind(c, self.kings.has(sq))][sq.index() as usize];
            }
            k ^= run_key(c, self.runs[c]);
        }
        k
    }

    /// The variant whose rules apply.
    #[inline]
    #[must_use]
    pub fn variant(&self) -> Variant {
        self.variant
    }
    /// The side to move.
    #[inline]
    #[must_use]
    pub fn turn(&self) -> Colour {
        self.turn
    }
    /// The Zobrist key (pieces and side to move).
    #[inline]
    #[must_use]
    pub fn key(&self) -> u64 {
        self.key
    }
    /// All pieces of a side.
    #[inline]
    #[must_use]
    pub fn pieces(&self, c: Colour) -> Bitboard {
        self.pieces[c.index()]
    }
    /// All kings, both sides.
    #[inline]
    #[must_use]
    pub fn kings(&self) -> Bitboard {
        self.kings
    }
    /// All men, both sides.
    #[inline]
    #[must_use]
    pub fn men(&self) -> Bitboard {
        self.all() & !self.kings
    }
    /// Every occupied square.
    #[inline]
    #[must_use]
    pub fn all(&self) -> Bitboard {
        self.pieces[0] | self.pieces[1]
    }
    /// The empty playable squares.
    #[inline]
    #[must_use]
    pub fn empty(&self) -> Bitboard {
        self.variant.geometry().mask & !self.all()
    }
    /// The side to move's pieces.
    #[inline]
    #[must_use]
    pub fn own(&self) -> Bitboard {
        self.pieces[self.turn.index()]
    }
    /// The opponent's pieces.
    #[inline]
    #[must_use]
    pub fn opp(&self) -> Bitboard {
        self.pieces[1 - self.turn.index()]
    }
    /// Frisian: the king that made `side`'s latest quiet moves and how many it made in a row
    /// (1 to 3), if that run still counts; `None` in every other variant.
    #[inline]
    #[must_use]
    pub fn king_run(&self, side: Colour) -> Option<(Square, u8)> {
        let r = self.runs[side.index()];
        (r.moves > 0).then(|| (Square::new(r.square), r.moves))
    }

    /// The same position with no king run for either side: the state of a position read from text.
    #[must_use]
    pub fn without_king_runs(&self) -> Position {
        let mut p = *self;
        for c in 0..2 {
            p.key ^= run_key(c, p.runs[c]);
        }
        p.runs = [KingRun::default(); 2];
        p
    }

    /// The piece on a square, if any.
    #[must_use]
    pub fn piece_at(&self, sq: Square) -> Option<Piece> {
        let king = self.kings.has(sq);
        if self.pieces[0].has(sq) {
            Some(Piece {
                colour: Colour::White,
                king,
            })
        } else if self.pieces[1].has(sq) {
            Some(Piece {
                colour: Colour::Black,
                king,
            })
        } else {
            None
        }
    }

    /// The position after `mv`, which must be legal here (checked in debug builds only; see `try_play`).
    #[must_use]
    #[inline]
    pub fn play(&self, mv: &Move) -> Position {
        self.play_keyed(mv, self.key_after(mv))
    }

    /// [`Position::play`] given the key [`Position::key_after`] returned for `mv` (a search that
    /// asked for it before making the move need not compute it twice).
    #[must_use]
    #[inline]
    pub fn play_keyed(&self, mv: &Move, key_after: u64) -> Position {
        let mut next = self.play_pieces(mv, key_after);
        if self.variant == Variant::Frisian {
            next.follow_king_runs(self, mv);
        }
        next
    }

    /// Frisian: the king runs after `mv` was played in `prev` (FMJD-free rule; Scan `Pos::succ`).
    /// The mover's run grows with a quiet move of the same king and restarts at 1 with another
    /// king; any man move or capture ends it, and so does having no men. The opponent's run lasts
    /// while its king stands and it keeps a man.
    fn follow_king_runs(&mut self, prev: &Position, mv: &Move) {
        let us = prev.turn.index();
        let them = 1 - us;
        let men = self.all() & !self.kings;
        let mut runs = prev.runs;
        let theirs = runs[them];
        if theirs.moves > 0
            && (mv.captured.has(Square::new(theirs.square)) || (men & self.pieces[them]).is_empty())
        {
            runs[them] = KingRun::default();
        }
        runs[us] = if !mv.is_capture() && prev.kings.has(mv.from) && (men & self.pieces[us]).any() {
            let mine = prev.runs[us];
            let moves = if mine.moves > 0 && mine.square == mv.from.index() {
                (mine.moves + 1).min(3)
            } else {
                1
            };
            KingRun {
                square: mv.to.index(),
                moves,
            }
        } else {
            KingRun::default()
        };
        for (c, (old, new)) in self.runs.iter().zip(runs).enumerate() {
            self.key ^= run_key(c, *old) ^ run_key(c, new);
        }
        self.runs = runs;
    }

    /// The position after `mv` without following the Frisian king runs, which are copied unchanged:
    /// for perft, which does not apply the king-move limit (see `movegen::generate_for`).
    #[must_use]
    #[inline(always)]
    pub(crate) fn play_pieces(&self, mv: &Move, key_after: u64) -> Position {
        let us = self.turn.index();
        let them = 1 - us;
        debug_assert!(
            self.pieces[us].has(mv.from),
            "no piece of the side to move on {:?}",
            mv.from
        );
        debug_assert!((mv.captured & !self.pieces[them]).is_empty());
        let mut next = *self;
        let was_king = self.kings.has(mv.from);
        let becomes_king = was_king || mv.promotes;
        // Both colours' sets chosen by the mover rather than written through `pieces[us]`: a
        // store at a computed index kept the pair in memory, and the copy that followed read it
        // back in one 16-byte load over the 8-byte store, which the processor cannot forward.
        let moved = self.pieces[us].without(mv.from).with(mv.to);
        let taken = self.pieces[them] & !mv.captured;
        next.pieces = if us == 0 {
            [moved, taken]
        } else {
            [taken, moved]
        };
        next.kings &= !mv.captured;
        next.kings = next.kings.without(mv.from);
        if becomes_king {
            next.kings = next.kings.with(mv.to);
        }
        next.turn = !self.turn;
        next.key = key_after;
        next
    }

    /// The hash key of the position after `mv`, without playing it (a search asks for the
    /// child's table entry before it makes the move). In Frisian draughts the king runs are
    /// keyed too, and only [`Position::play`] follows them.
    #[must_use]
    #[inline(always)]
    pub fn key_after(&self, mv: &Move) -> u64 {
        let us = self.turn.index();
        let was_king = self.kings.has(mv.from);
        let becomes_king = was_king || mv.promotes;
        let mut key = self.key ^ zobrist::BLACK_TO_MOVE;
        key ^= zobrist::PIECE[zobrist::kind(us, was_king)][mv.from.index() as usize];
        key ^= zobrist::PIECE[zobrist::kind(us, becomes_king)][mv.to.index() as usize];
        for sq in mv.captured {
            key ^= zobrist::PIECE[zobrist::kind(1 - us, self.kings.has(sq))][sq.index() as usize];
        }
        key
    }

    /// The position after `mv` if it is legal here.
    ///
    /// # Errors
    /// `IllegalMove` when `mv` is not one of the legal moves.
    pub fn try_play(&self, mv: &Move) -> Result<Position, IllegalMove> {
        if self.legal_moves().contains(mv) {
            Ok(self.play(mv))
        } else {
            Err(IllegalMove { mv: *mv })
        }
    }

    /// The legal moves (duplicate capture paths dropped).
    #[must_use]
    pub fn legal_moves(&self) -> MoveList {
        let mut list = MoveList::new();
        movegen::generate(self, &mut list);
        list
    }

    /// The same position with colours swapped and the board turned round (for symmetry tests); the
    /// Frisian king runs go with their kings.
    #[must_use]
    pub fn flipped(&self) -> Position {
        let g = self.variant.geometry();
        let turn = |b: Bitboard| {
            let mut r = Bitboard::EMPTY;
            for sq in b {
                let f = u32::from(g.field(sq));
                if let Some(t) = g.square(u32::from(g.fields) + 1 - f) {
                    r = r.with(t);
                }
            }
            r
        };
        let mut p = Position::from_parts(
            self.variant,
            turn(self.pieces[1]),
            turn(self.pieces[0]),
            turn(self.kings),
            !self.turn,
        );
        for c in 0..2 {
            let r = self.runs[1 - c];
            if r.moves > 0 {
                let b = turn(Bitboard::from_square(Square::new(r.square)));
                p.runs[c] = KingRun {
                    square: b.first().map_or(0, Square::index),
                    moves: r.moves,
                };
            }
        }
        p.key = p.compute_key();
        p
    }

    /// The same pieces with `turn` to move (and no Frisian king runs).
    #[must_use]
    pub fn with_turn(&self, turn: Colour) -> Position {
        Position::from_parts(
            self.variant,
            self.pieces[0],
            self.pieces[1],
            self.kings,
            turn,
        )
    }
}

/// The Zobrist contribution of a side's king run (nothing when there is none).
#[inline]
fn run_key(side: usize, run: KingRun) -> u64 {
    if run.moves == 0 {
        0
    } else {
        zobrist::KING_RUN[side][usize::from(run.moves) - 1][usize::from(run.square)]
    }
}
