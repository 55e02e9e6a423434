//! A game: the moves played from a start position, the draw rules (FMJD article 6; Frisian's; the
//! Russian rules 7.2, which Brazilian shares; English's 40 moves) and results.

use crate::mv::Move;
use crate::position::{Colour, IllegalMove, Position};
use crate::variant::Variant;

/// The winner, if the position itself ends the game (the draw rules apart), the one rule the
/// game and the search both apply:
/// - in breakthrough, a king on the board ends the game and its side has won. Only the side that
///   has just moved can have crowned; with kings of both sides (a set-up position) that side wins;
/// - a side to move without a legal move has lost, or won in losing draughts.
///
/// `has_move` says whether the side to move has a legal move; it is asked only when the king rule
/// has not ended the game, so a search that has not generated moves yet passes `|| true` to ask
/// about the kings alone.
#[inline]
#[must_use]
pub fn winner(pos: &Position, has_move: impl FnOnce() -> bool) -> Option<Colour> {
    let (mover, last) = (pos.turn(), !pos.turn());
    if pos.variant() == Variant::Breakthrough {
        for side in [last, mover] {
            if (pos.pieces(side) & pos.kings()).any() {
                return Some(side);
            }
        }
    }
    if has_move() {
        None
    } else if pos.variant() == Variant::Losing {
        Some(mover)
    } else {
        Some(last)
    }
}

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

/// The endgame draw rules: which one a position falls under. A rule's count starts at 0 in the
/// position where the rule begins to apply (the move that made it is not one of its moves) and the
/// game is drawn once both sides have played the rule's moves, that is after `plies()` plies; see
/// [`DrawCounts`] for what a capture or a promotion during a count does.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub enum EndgameRule {
    /// FMJD 6.3: 3 kings, 2 kings + 1 man, or 1 king + 2 men against a lone king: 16 moves each.
    Sixteen,
    /// FMJD 6.3, last sentence: as [`EndgameRule::Sixteen`], but the lone king holds the long
    /// diagonal (5-46) alone: 5 moves each, inside the 16-move maximum that keeps running.
    LongDiagonal,
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
            EndgameRule::Five | EndgameRule::MainRoad | EndgameRule::LongDiagonal => 10,
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
            EndgameRule::LongDiagonal => "long-diagonal rule",
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
            EndgameRule::LongDiagonal => "5 moves against a lone king holding the long diagonal",
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
    // Every rule needs a king and at most seven pieces (Russian balance); the search asks at every
    // node, and most nodes answer here.
    if pos.kings().is_empty() || pos.all().count() > 7 {
        return None;
    }
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

/// The long diagonal of the 10x10 board, 5-46 (FMJD 2.3).
const LONG_DIAGONAL: [u32; 10] = [5, 10, 14, 19, 23, 28, 32, 37, 41, 46];

/// The squares of `fields` on the board of `pos`.
fn squares(pos: &Position, fields: &[u32]) -> crate::Bitboard {
    let g = pos.variant().geometry();
    fields
        .iter()
        .filter_map(|&f| g.square(f))
        .fold(crate::Bitboard::EMPTY, |b, sq| b.with(sq))
}

/// Whether the lone king of `weak` stands on `road` and the other side has nothing on it.
fn holds_alone(pos: &Position, weak: Colour, road: crate::Bitboard) -> bool {
    (pos.pieces(weak) & road).any() && (pos.pieces(!weak) & road).is_empty()
}

fn fmjd_rule(pos: &Position) -> Option<EndgameRule> {
    match lone_king(pos)? {
        (weak, 3, 0) | (weak, 2, 1) | (weak, 1, 2) => {
            if holds_alone(pos, weak, squares(pos, &LONG_DIAGONAL)) {
                Some(EndgameRule::LongDiagonal)
            } else {
                Some(EndgameRule::Sixteen)
            }
        }
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
    if let Some((weak, k, m)) = lone_king(pos) {
        let alone_on_road = holds_alone(pos, weak, squares(pos, &MAIN_ROAD));
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

/// Whether a count of `before` goes on into a position under `after` (rather than a new count
/// starting at 0). FMJD 6.3/6.4 count moves "played after" the configuration arose, and keep a
/// running maximum when a piece is taken, so a count goes on through a promotion and through a
/// capture that stays within the same rule (2 kings against 1 becoming 1 against 1). Elsewhere a
/// count goes on while the rule stays the same and nothing is captured.
fn count_goes_on(before: EndgameRule, after: EndgameRule, capture: bool) -> bool {
    let fmjd = |r| {
        matches!(
            r,
            EndgameRule::Sixteen | EndgameRule::LongDiagonal | EndgameRule::Five
        )
    };
    before == after && (!capture || fmjd(after))
}

/// The draw-rule counters of a position in a game, as the rules and the search both keep them.
///
/// FMJD 6.3 and 6.4 (international draughts) are read as follows; the text leaves the
/// transitions open, and this is the reading Kroon follows (docs/draw-rules.md):
/// - a count starts at 0 in the position where its configuration arises: the capture or
///   promotion that made it is not one of the moves counted, and the game is drawn after both
///   sides have played their moves, 10 plies for 5 moves each and 32 for 16, whichever side
///   moved first;
/// - the 16-move maximum (6.3) keeps running when a piece is taken during it ("the maximum of 16
///   moves remains"), also when the capture turns the ending into a 6.4 one: the 5-move count of
///   6.4 then starts at 0 beside it, and the game is drawn when either runs out;
/// - a promotion inside 6.3 (2 kings + 1 man becoming 3 kings) or inside 6.4 (1 king + 1 man
///   becoming 2 kings) changes nothing: the count goes on;
/// - the long-diagonal case of 6.3 (the lone king holds the long diagonal alone) has its own
///   5-move count, which starts when the lone king takes the diagonal; the 16-move maximum runs
///   on under it and after it.
#[derive(Copy, Clone, PartialEq, Eq, Debug, Default)]
pub struct DrawCounts {
    /// Plies of king moves without capture that led here (FMJD 6.2; the variants' quiet rules).
    pub king_plies: u32,
    /// The endgame rule the position is under, if any.
    pub rule: Option<EndgameRule>,
    /// Plies played since `rule` began to apply.
    pub rule_plies: u32,
    /// FMJD 6.3: plies since a 16-move count began, while the lone-king ending it began goes on.
    pub sixteen_plies: Option<u32>,
}

impl DrawCounts {
    /// The counts of a game's start position, with `king_plies` and `endgame_plies` already run.
    #[must_use]
    pub fn at_start(pos: &Position, king_plies: u32, endgame_plies: u32) -> DrawCounts {
        let rule = endgame_rule(pos);
        DrawCounts {
            king_plies,
            rule,
            rule_plies: endgame_plies,
            sixteen_plies: matches!(rule, Some(EndgameRule::Sixteen | EndgameRule::LongDiagonal))
                .then_some(endgame_plies),
        }
    }

    /// The counts after `mv` is played from `pos` (under these counts) into `child`.
    #[must_use]
    pub fn after(&self, pos: &Position, mv: &Move, child: &Position) -> DrawCounts {
        let king_plies = if is_king_quiet(pos, mv) {
            self.king_plies + 1
        } else {
            0
        };
        let rule = endgame_rule(child);
        let capture = mv.is_capture();
        let rule_plies = match (self.rule, rule) {
            (Some(before), Some(after)) if count_goes_on(before, after, capture) => {
                self.rule_plies + 1
            }
            _ => 0,
        };
        let sixteen_plies = match rule {
            Some(EndgameRule::Sixteen | EndgameRule::LongDiagonal | EndgameRule::Five) => {
                match self.sixteen_plies {
                    Some(n) => Some(n + 1),
                    None if rule != Some(EndgameRule::Five) => Some(0),
                    None => None,
                }
            }
            _ => None,
        };
        DrawCounts {
            king_plies,
            rule,
            rule_plies,
            sixteen_plies,
        }
    }

    /// The endgame rule whose count has run out, if one has.
    #[must_use]
    pub fn endgame_over(&self) -> Option<EndgameRule> {
        if self
            .sixteen_plies
            .is_some_and(|n| n >= EndgameRule::Sixteen.plies())
        {
            return Some(EndgameRule::Sixteen);
        }
        self.rule.filter(|r| self.rule_plies >= r.plies())
    }

    /// Plies left before an endgame count runs out (`u32::MAX` when none runs).
    #[must_use]
    pub fn endgame_plies_left(&self) -> u32 {
        let rule = self
            .rule
            .map_or(u32::MAX, |r| r.plies().saturating_sub(self.rule_plies));
        let sixteen = self
            .sixteen_plies
            .map_or(u32::MAX, |n| EndgameRule::Sixteen.plies().saturating_sub(n));
        rule.min(sixteen)
    }
}

/// Draw rules a game no longer applies, because a claim under them was not accepted and the other
/// side played on: the engine then plays on as if they did not exist rather than treat the game as
/// over.
#[derive(Copy, Clone, PartialEq, Eq, Debug, Default)]
pub struct Waived {
    /// Third repetition.
    pub repetition: bool,
    /// The king-move rule (FMJD 6.2, the variants' quiet rules).
    pub king_moves: bool,
    /// The endgame counts (FMJD 6.3 and 6.4, the variants' endgame rules).
    pub endgame: bool,
}

impl Waived {
    /// No rule waived.
    pub const NONE: Waived = Waived {
        repetition: false,
        king_moves: false,
        endgame: false,
    };

    /// Also waives the rule behind `reason`.
    pub fn waive(&mut self, reason: DrawReason) {
        match reason {
            DrawReason::Repetition => self.repetition = true,
            DrawReason::KingMoves => self.king_moves = true,
            DrawReason::Endgame(_) => self.endgame = true,
        }
    }

    /// Whether any rule is waived.
    #[must_use]
    pub fn any(self) -> bool {
        self.repetition || self.king_moves || self.endgame
    }
}

/// The draw by a counting rule (king moves, endgame counts) that `counts` have reached, if any,
/// leaving out the `waived` rules. One rule for the game and the search alike.
#[must_use]
pub fn counted_draw(counts: &DrawCounts, variant: Variant, waived: Waived) -> Option<DrawReason> {
    if !waived.endgame {
        if let Some(rule) = counts.endgame_over() {
            return Some(DrawReason::Endgame(rule));
        }
    }
    if !waived.king_moves && counts.king_plies >= quiet_limit(variant) {
        return Some(DrawReason::KingMoves);
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
    /// Per position: the draw-rule counters.
    counts: Vec<DrawCounts>,
    /// Draw rules this game no longer applies.
    waived: Waived,
}

impl Game {
    /// A game starting from `start`.
    #[must_use]
    pub fn new(start: Position) -> Game {
        Game::resume(start, 0, 0)
    }

    /// A game resumed at `start` with its draw-rule counters already running: `king_plies` plies of
    /// king moves without capture, and `endgame_plies` plies under the position's endgame rule.
    #[must_use]
    pub fn resume(start: Position, king_plies: u32, endgame_plies: u32) -> Game {
        Game {
            positions: vec![start],
            moves: Vec::new(),
            counts: vec![DrawCounts::at_start(&start, king_plies, endgame_plies)],
            waived: Waived::NONE,
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

    /// The draw-rule counters now.
    #[must_use]
    pub fn counts(&self) -> DrawCounts {
        *self
            .counts
            .last()
            .expect("a game always has its start counts")
    }

    /// Plies of king-only moves without capture up to now.
    #[must_use]
    pub fn king_plies(&self) -> u32 {
        self.counts().king_plies
    }

    /// Plies played under the current endgame rule.
    #[must_use]
    pub fn endgame_plies(&self) -> u32 {
        self.counts().rule_plies
    }

    /// The draw rules this game no longer applies.
    #[must_use]
    pub fn waived(&self) -> Waived {
        self.waived
    }

    /// Stops applying the rule behind `reason` for the rest of the game (a claim under it was
    /// not accepted).
    pub fn waive(&mut self, reason: DrawReason) {
        self.waived.waive(reason);
    }

    /// Plays a legal move.
    ///
    /// # Errors
    /// `IllegalMove` when the move is not legal now; the game is unchanged.
    pub fn play(&mut self, mv: &Move) -> Result<(), IllegalMove> {
        let pos = *self.position();
        let next = pos.try_play(mv)?;
        let counts = self.counts().after(&pos, mv, &next);
        self.positions.push(next);
        self.moves.push(*mv);
        self.counts.push(counts);
        Ok(())
    }

    /// Takes back the last `n` moves (fewer if the game is shorter).
    pub fn undo(&mut self, n: usize) {
        let keep = self.moves.len().saturating_sub(n);
        self.moves.truncate(keep);
        self.positions.truncate(keep + 1);
        self.counts.truncate(keep + 1);
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

    /// The result, if the game is over: the rules on the board ([`winner`]), then the draw rules
    /// not waived.
    #[must_use]
    pub fn outcome(&self) -> Option<Outcome> {
        let pos = self.position();
        let variant = pos.variant();
        if let Some(side) = winner(pos, || !pos.legal_moves().is_empty()) {
            return Some(Outcome::Win(side));
        }
        if !self.waived.repetition && self.repetitions() >= 3 {
            return Some(Outcome::Draw(DrawReason::Repetition));
        }
        counted_draw(&self.counts(), variant, self.waived).map(Outcome::Draw)
    }
}
