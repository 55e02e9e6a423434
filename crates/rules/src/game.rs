//! A game: the moves played from a start position, the draw rules (FMJD article 6; Frisian's; the
//! Russian rules 7.2, which Brazilian shares; English's 40 moves) and results.

use crate::mv::Move;
use crate::position::{Colour, IllegalMove, Position};
use crate::variant::Variant;

/// Why a game was drawn.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub enum DrawReason {
    /// The same position with the same side to move for the third time (FMJD 6.1).
    Repetition,
    /// Only kings moved and nothing was captured for the variant's count: 25 moves each (FMJD 6.2),
    /// 15 moves in Russian and Brazilian (7.2.5), 40 moves in English.
    KingMoves,
    /// An endgame rule's count ran out.
    Endgame(EndgameRule),
}

impl DrawReason {
    /// A short name, for result files and PDN `Termination` tags.
    #[must_use]
    pub fn tag(self) -> &'static str {
        match self {
            DrawReason::Repetition => "repetition",
            DrawReason::KingMoves => "king-move rule",
            DrawReason::Endgame(rule) => rule.tag(),
        }
    }

    /// The rule in words, with the variant's counts.
    #[must_use]
    pub fn describe(self, variant: Variant) -> String {
        match self {
            DrawReason::Repetition => "third repetition".to_owned(),
            DrawReason::KingMoves => format!(
                "{} king moves each without capture or man move",
                quiet_limit(variant) / 2
            ),
            DrawReason::Endgame(rule) => rule.describe().to_owned(),
        }
    }
}

/// How a game ended.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub enum Outcome {
    /// A side won.
    Win(Colour),
    /// A draw, and by which rule.
    Draw(DrawReason),
}

/// The result of a finished game, whoever decided it (the rules, a resignation, an adjudication).
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub enum GameResult {
    /// White won.
    WhiteWins,
    /// Black won.
    BlackWins,
    /// A draw.
    Draw,
}

impl GameResult {
    /// A win for `side`.
    #[must_use]
    pub fn win(side: Colour) -> GameResult {
        match side {
            Colour::White => GameResult::WhiteWins,
            Colour::Black => GameResult::BlackWins,
        }
    }

    /// The PDN result, in draughts points: `2-0`, `0-2` or `1-1`.
    #[must_use]
    pub fn pdn(self) -> &'static str {
        match self {
            GameResult::WhiteWins => "2-0",
            GameResult::BlackWins => "0-2",
            GameResult::Draw => "1-1",
        }
    }

    /// The score of `side` in draughts points: 2 for a win, 1 for a draw, 0 for a loss.
    #[must_use]
    pub fn draughts_points(self, side: Colour) -> u32 {
        match self {
            GameResult::Draw => 1,
            r if r == GameResult::win(side) => 2,
            _ => 0,
        }
    }

    /// The score of `side` as a fraction: 1, ½ or 0.
    #[must_use]
    pub fn points(self, side: Colour) -> f64 {
        f64::from(self.draughts_points(side)) / 2.0
    }
}

/// The endgame draw rules: which one a position falls under. The count of a rule runs while the
/// position stays under that same rule and nothing is captured.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub enum EndgameRule {
    /// FMJD 6.3: 3 kings, 2 kings + 1 man, or 1 king + 2 men against a lone king: 16 moves each.
    Sixteen,
    /// FMJD 6.4 (and Russian 7.2.8): 2 kings, 1 king + 1 man, or 1 king against a lone king:
    /// 5 moves each.
    Five,
    /// Frisian: 2 kings against 1 king: 7 moves each.
    TwoKingsAgainstOne,
    /// Frisian: 1 king against 1 king: 2 moves each.
    KingAgainstKing,
    /// Russian 7.2.4: 3 or more kings against a lone king: 15 moves.
    ThreeKings,
    /// Russian 7.2.7: three pieces with a king against a lone king holding the main road (the long
    /// diagonal a1-h8) alone: 5 moves.
    MainRoad,
    /// Russian 7.2.6: both sides have kings and the balance of men and kings (per side) stays as it
    /// is: 30 moves with 4 or 5 pieces on the board, 60 moves with 6 or 7.
    Balance {
        /// Men of White and Black.
        men: [u8; 2],
        /// Kings of White and Black.
        kings: [u8; 2],
    },
}

impl EndgameRule {
    /// Plies (half-moves) the rule allows before the game is a draw.
    #[must_use]
    pub const fn plies(self) -> u32 {
        match self {
            EndgameRule::Sixteen => 32,
            EndgameRule::Five | EndgameRule::MainRoad => 10,
            EndgameRule::TwoKingsAgainstOne => 14,
            EndgameRule::KingAgainstKing => 4,
            EndgameRule::ThreeKings => 30,
            EndgameRule::Balance { men, kings } => {
                if men[0] + men[1] + kings[0] + kings[1] <= 5 {
                    60
                } else {
                    120
                }
            }
        }
    }

    /// A short name.
    #[must_use]
    pub const fn tag(self) -> &'static str {
        match self {
            EndgameRule::Sixteen => "16-move rule",
            EndgameRule::Five => "5-move rule",
            EndgameRule::TwoKingsAgainstOne => "7-move rule",
            EndgameRule::KingAgainstKing => "2-move rule",
            EndgameRule::ThreeKings => "15-move rule",
            EndgameRule::MainRoad => "main-road rule",
            EndgameRule::Balance { .. } => {
                if self.plies() == 60 {
                    "30-move rule"
                } else {
                    "60-move rule"
                }
            }
        }
    }

    /// The rule in words.
    #[must_use]
    pub const fn describe(self) -> &'static str {
        match self {
            EndgameRule::Sixteen => "16-move endgame rule",
            EndgameRule::Five => "5-move endgame rule",
            EndgameRule::TwoKingsAgainstOne => "7 moves each in 2 kings against 1",
            EndgameRule::KingAgainstKing => "2 moves each in king against king",
            EndgameRule::ThreeKings => "15 moves in 3 kings or more against 1",
            EndgameRule::MainRoad => "5 moves against a lone king on the main road",
            EndgameRule::Balance { .. } => {
                if self.plies() == 60 {
                    "30 moves in a 4- or 5-piece ending with the balance unchanged"
                } else {
                    "60 moves in a 6- or 7-piece ending with the balance unchanged"
                }
            }
        }
    }
}

/// Plies of king moves without capture after which the game is drawn (FMJD 6.2).
pub const KING_MOVE_PLIES: u32 = 50;

/// Plies without a capture or a man move after which an English game is drawn (the 40-move rule).
pub const ENGLISH_QUIET_PLIES: u32 = 80;

/// Plies of king-only moves without capture in Russian and Brazilian (7.2.5: 15 moves).
pub const RUSSIAN_QUIET_PLIES: u32 = 30;

/// Plies of king-only moves without capture that draw a game of `variant`; `u32::MAX` where there
/// is no such rule (Frisian, whose kings are limited otherwise).
#[must_use]
pub const fn quiet_limit(variant: Variant) -> u32 {
    match variant {
        Variant::English => ENGLISH_QUIET_PLIES,
        Variant::Russian | Variant::Brazilian => RUSSIAN_QUIET_PLIES,
        Variant::Frisian => u32::MAX,
        _ => KING_MOVE_PLIES,
    }
}

/// The squares of the 8x8 main road, a1-h8, in fields.
const MAIN_ROAD: [u32; 8] = [4, 8, 11, 15, 18, 22, 25, 29];

/// The endgame rule a position falls under, if any.
#[must_use]
pub fn endgame_rule(pos: &Position) -> Option<EndgameRule> {
    match pos.variant() {
        Variant::English => None,
        Variant::Frisian => frisian_rule(pos),
        Variant::Russian | Variant::Brazilian => russian_rule(pos),
        _ => fmjd_rule(pos),
    }
}

/// The side with a lone king, if one has, and the other side's kings and men.
fn lone_king(pos: &Position) -> Option<(Colour, u32, u32)> {
    let kings = pos.kings();
    [Colour::White, Colour::Black].into_iter().find_map(|weak| {
        let mine = pos.pieces(weak);
        if mine.count() != 1 || (mine & kings).is_empty() {
            return None;
        }
        let strong = pos.pieces(!weak);
        let k = (strong & kings).count();
        Some((weak, k, strong.count() - k))
    })
}

fn fmjd_rule(pos: &Position) -> Option<EndgameRule> {
    match lone_king(pos)? {
        (_, 3, 0) | (_, 2, 1) | (_, 1, 2) => Some(EndgameRule::Sixteen),
        (_, 2, 0) | (_, 1, 1) | (_, 1, 0) => Some(EndgameRule::Five),
        _ => None,
    }
}

fn frisian_rule(pos: &Position) -> Option<EndgameRule> {
    match lone_king(pos)? {
        (_, 2, 0) => Some(EndgameRule::TwoKingsAgainstOne),
        (_, 1, 0) => Some(EndgameRule::KingAgainstKing),
        _ => None,
    }
}

fn russian_rule(pos: &Position) -> Option<EndgameRule> {
    let g = pos.variant().geometry();
    if let Some((weak, k, m)) = lone_king(pos) {
        let road = MAIN_ROAD
            .iter()
            .filter_map(|&f| g.square(f))
            .fold(crate::Bitboard::EMPTY, |b, sq| b.with(sq));
        let alone_on_road =
            (pos.pieces(weak) & road).any() && (pos.pieces(!weak) & road).is_empty();
        let rule = match (k, m) {
            (k, m) if k >= 1 && k + m == 3 && alone_on_road => Some(EndgameRule::MainRoad),
            (k, 0) if k >= 3 => Some(EndgameRule::ThreeKings),
            (k, m) if k >= 1 && k + m <= 2 => Some(EndgameRule::Five),
            _ => None,
        };
        if rule.is_some() {
            return rule;
        }
    }
    let kings = pos.kings();
    let count = |c: Colour| {
        let k = (pos.pieces(c) & kings).count();
        (k as u8, (pos.pieces(c).count() - k) as u8)
    };
    let (wk, wm) = count(Colour::White);
    let (bk, bm) = count(Colour::Black);
    let total = wk + wm + bk + bm;
    (wk >= 1 && bk >= 1 && (4..=7).contains(&total)).then_some(EndgameRule::Balance {
        men: [wm, bm],
        kings: [wk, bk],
    })
}

/// The endgame count after a move from a position under `before` to one under `after`: it goes on
/// while the rule stays the same and nothing is captured, and starts again at 1 under a new rule.
#[must_use]
pub fn next_endgame_plies(
    plies: u32,
    before: Option<EndgameRule>,
    after: Option<EndgameRule>,
    capture: bool,
) -> u32 {
    match after {
        None => 0,
        Some(rule) if before == Some(rule) && !capture => plies + 1,
        Some(_) => 1,
    }
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
        let ep = next_endgame_plies(
            self.endgame_plies(),
            endgame_rule(&pos),
            endgame_rule(&next),
            mv.is_capture(),
        );
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
                return Some(Outcome::Draw(DrawReason::Endgame(rule)));
            }
        }
        if self.king_plies() >= quiet_limit(variant) {
            return Some(Outcome::Draw(DrawReason::KingMoves));
        }
        None
    }
}
