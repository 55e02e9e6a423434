//! A game: the moves played from a start position, and the FMJD draw rules (article 6) and results.

use crate::mv::Move;
use crate::position::{Colour, IllegalMove, Position};
use crate::variant::Variant;

/// Why a game was drawn.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub enum DrawReason {
    /// The same position with the same side to move for the third time (FMJD 6.1).
    Repetition,
    /// 25 moves each with only kings moved and nothing captured (FMJD 6.2).
    TwentyFiveMoves,
    /// 16 moves each in three pieces (at least one king) against a lone king (FMJD 6.3).
    SixteenMoves,
    /// 5 moves each in two pieces or one king against a lone king (FMJD 6.4).
    FiveMoves,
}

/// How a game ended.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub enum Outcome {
    /// A side won.
    Win(Colour),
    /// A draw, and by which rule.
    Draw(DrawReason),
}

/// The endgame draw rules: which one a position falls under.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub enum EndgameRule {
    /// 3 kings, 2 kings + 1 man, or 1 king + 2 men against a lone king: draw after 16 moves each.
    Sixteen,
    /// 2 kings, 1 king + 1 man, or 1 king against a lone king: draw after 5 moves each.
    Five,
}

impl EndgameRule {
    /// Plies (half-moves) the rule allows before the game is a draw.
    #[must_use]
    pub const fn plies(self) -> u32 {
        match self {
            EndgameRule::Sixteen => 32,
            EndgameRule::Five => 10,
        }
    }
}

/// Plies of king moves without capture after which the game is drawn (FMJD 6.2).
pub const KING_MOVE_PLIES: u32 = 50;

/// Plies without a capture or a man move after which an English game is drawn (the 40-move rule).
pub const ENGLISH_QUIET_PLIES: u32 = 80;

/// Plies of king-only moves without capture that draw a game of `variant`.
#[must_use]
pub const fn quiet_limit(variant: Variant) -> u32 {
    match variant {
        Variant::English => ENGLISH_QUIET_PLIES,
        _ => KING_MOVE_PLIES,
    }
}

/// The endgame rule a position falls under, if any: one side has a lone king and the other has
/// at least one king among at most three pieces.
#[must_use]
pub fn endgame_rule(pos: &Position) -> Option<EndgameRule> {
    if pos.variant() == Variant::English {
        return None;
    }
    let kings = pos.kings();
    for side in [Colour::White, Colour::Black] {
        let strong = pos.pieces(side);
        let weak = pos.pieces(!side);
        if weak.count() != 1 || (weak & kings).is_empty() {
            continue;
        }
        let k = (strong & kings).count();
        let m = strong.count() - k;
        return match (k, m) {
            (3, 0) | (2, 1) | (1, 2) => Some(EndgameRule::Sixteen),
            (2, 0) | (1, 1) | (1, 0) => Some(EndgameRule::Five),
            _ => None,
        };
    }
    None
}

/// Whether a move keeps the 25-move count going: a king move that captures nothing.
#[must_use]
pub fn is_king_quiet(pos: &Position, mv: &Move) -> bool {
    !mv.is_capture() && pos.kings().has(mv.from)
}

/// A game from a start position: every position reached, the moves, and the draw-rule counters.
#[derive(Clone, Debug)]
pub struct Game {
    positions: Vec<Position>,
    moves: Vec<Move>,
    /// Per position: plies of king moves without capture that led to it.
    king_plies: Vec<u32>,
    /// Per position: plies spent under the current endgame rule.
    endgame_plies: Vec<u32>,
}

impl Game {
    /// A game starting from `start`.
    #[must_use]
    pub fn new(start: Position) -> Game {
        Game {
            positions: vec![start],
            moves: Vec::new(),
            king_plies: vec![0],
            endgame_plies: vec![0],
        }
    }

    /// A game resumed at `start` with its draw-rule counters already running: `king_plies` plies of
    /// king moves without capture, and `endgame_plies` plies under the position's endgame rule.
    #[must_use]
    pub fn resume(start: Position, king_plies: u32, endgame_plies: u32) -> Game {
        Game {
            positions: vec![start],
            moves: Vec::new(),
            king_plies: vec![king_plies],
            endgame_plies: vec![endgame_plies],
        }
    }

    /// The position now.
    #[must_use]
    pub fn position(&self) -> &Position {
        self.positions
            .last()
            .expect("a game always has its start position")
    }

    /// The start position.
    #[must_use]
    pub fn start(&self) -> &Position {
        &self.positions[0]
    }

    /// The moves played.
    #[must_use]
    pub fn moves(&self) -> &[Move] {
        &self.moves
    }

    /// Every position of the game, the start first.
    #[must_use]
    pub fn positions(&self) -> &[Position] {
        &self.positions
    }

    /// Plies of king-only moves without capture up to now.
    #[must_use]
    pub fn king_plies(&self) -> u32 {
        *self.king_plies.last().unwrap_or(&0)
    }

    /// Plies played under the current endgame rule.
    #[must_use]
    pub fn endgame_plies(&self) -> u32 {
        *self.endgame_plies.last().unwrap_or(&0)
    }

    /// Plays a legal move.
    ///
    /// # Errors
    /// `IllegalMove` when the move is not legal now; the game is unchanged.
    pub fn play(&mut self, mv: &Move) -> Result<(), IllegalMove> {
        let pos = *self.position();
        let next = pos.try_play(mv)?;
        let kp = if is_king_quiet(&pos, mv) {
            self.king_plies() + 1
        } else {
            0
        };
        let ep = match (endgame_rule(&pos), endgame_rule(&next)) {
            (Some(a), Some(b)) if a == b => self.endgame_plies() + 1,
            (_, Some(_)) => 1,
            _ => 0,
        };
        self.positions.push(next);
        self.moves.push(*mv);
        self.king_plies.push(kp);
        self.endgame_plies.push(ep);
        Ok(())
    }

    /// Takes back the last `n` moves (fewer if the game is shorter).
    pub fn undo(&mut self, n: usize) {
        let keep = self.moves.len().saturating_sub(n);
        self.moves.truncate(keep);
        self.positions.truncate(keep + 1);
        self.king_plies.truncate(keep + 1);
        self.endgame_plies.truncate(keep + 1);
    }

    /// How often the current position has occurred (with the same side to move).
    #[must_use]
    pub fn repetitions(&self) -> usize {
        let now = self.position();
        self.positions
            .iter()
            .rev()
            .step_by(2)
            .filter(|p| *p == now)
            .count()
    }

    /// The result, if the game is over: a side without a legal move has lost (won, in losing
    /// draughts); in breakthrough the first king wins; otherwise the draw rules.
    #[must_use]
    pub fn outcome(&self) -> Option<Outcome> {
        let pos = self.position();
        let variant = pos.variant();
        if variant == Variant::Breakthrough {
            for side in [Colour::White, Colour::Black] {
                if (pos.pieces(side) & pos.kings()).any() {
                    return Some(Outcome::Win(side));
                }
            }
        }
        if pos.legal_moves().is_empty() {
            let loser = pos.turn();
            return Some(Outcome::Win(if variant == Variant::Losing {
                loser
            } else {
                !loser
            }));
        }
        if self.repetitions() >= 3 {
            return Some(Outcome::Draw(DrawReason::Repetition));
        }
        if let Some(rule) = endgame_rule(pos) {
            if self.endgame_plies() >= rule.plies() {
                return Some(Outcome::Draw(match rule {
                    EndgameRule::Sixteen => DrawReason::SixteenMoves,
                    EndgameRule::Five => DrawReason::FiveMoves,
                }));
            }
        }
        if self.king_plies() >= quiet_limit(variant) {
            return Some(Outcome::Draw(DrawReason::TwentyFiveMoves));
        }
        None
    }
}
