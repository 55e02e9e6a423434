//! One game between two players: the manager keeps the board and the clocks, checks every move
//! against the rules, and ends the game by the rules (FMJD draws included), by a move cap, by
//! agreed engine scores, or by an engine's failure.

use super::openings::Opening;
use super::player::{EndForEngine, FailKind, Failure, Player, Turn};
use super::spec::TimeControl;
use kroon_rules::{side_name, Colour, DrawReason, Game, GameResult, Move, Outcome, Variant};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

/// Adjudication and timing settings shared by every game.
#[derive(Clone, Debug)]
pub struct Settings {
    /// The variant, for the names of the sides.
    pub variant: Variant,
    /// The time control.
    pub tc: TimeControl,
    /// Allowed overrun of the clock before a move counts as late.
    pub margin: Duration,
    /// For depth and nodes games: how long a move may take before the engine counts as hung.
    pub timeout: Duration,
    /// A draw once the game has this many plies (opening included).
    pub max_plies: Option<usize>,
    /// A win when both engines' scores agree: |score| ≥ this many men, with one sign, for the
    /// last `plies` plies.
    pub win: Option<(f64, usize)>,
    /// A draw when both engines' scores are within ± this many men for the last `plies` plies,
    /// once the game has `after` plies.
    pub draw: Option<ScoreDraw>,
}

/// Draw adjudication by scores.
#[derive(Copy, Clone, Debug)]
pub struct ScoreDraw {
    /// Largest |score| in men that counts as level.
    pub score: f64,
    /// Consecutive plies it must hold.
    pub plies: usize,
    /// Not before the game has this many plies.
    pub after: usize,
}

/// How a result looks to the engine that played `c`.
fn for_engine(result: GameResult, c: Colour) -> EndForEngine {
    match result.draughts_points(c) {
        2 => EndForEngine::Win,
        1 => EndForEngine::Draw,
        _ => EndForEngine::Loss,
    }
}

/// Why a game ended.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Termination {
    /// By the rules: the side to move had no legal move (or, in breakthrough, a king appeared).
    Rules,
    /// A draw rule of FMJD article 6.
    Draw(DrawReason),
    /// The `--max-plies` cap.
    MaxPlies,
    /// Both engines' scores agreed on a winner.
    AdjudicatedWin,
    /// Both engines' scores stayed level.
    AdjudicatedDraw,
    /// An engine failed.
    Failure(FailKind),
}

impl Termination {
    /// A short word for the results file and the PDN `Termination` tag.
    #[must_use]
    pub fn tag(self) -> &'static str {
        match self {
            Termination::Rules => "normal",
            Termination::Draw(reason) => reason.tag(),
            Termination::MaxPlies => "move cap",
            Termination::AdjudicatedWin => "adjudicated win",
            Termination::AdjudicatedDraw => "adjudicated draw",
            Termination::Failure(kind) => kind.tag(),
        }
    }
}

/// What an engine said about one of its moves.
#[derive(Copy, Clone, Debug, Default)]
pub struct MoveNote {
    /// Score in men from the mover's side.
    pub score: Option<f64>,
    /// Depth of that score.
    pub depth: Option<u32>,
    /// Time taken.
    pub elapsed: Duration,
}

/// A finished game.
#[derive(Clone, Debug)]
pub struct Played {
    /// The engines' moves (after the opening's).
    pub moves: Vec<Move>,
    /// One note per engine move.
    pub notes: Vec<MoveNote>,
    /// The result.
    pub result: GameResult,
    /// Why it ended.
    pub termination: Termination,
    /// In words.
    pub reason: String,
    /// The side whose engine failed, if one did.
    pub culprit: Option<Colour>,
    /// The failing engine's last lines.
    pub lines: Vec<String>,
}

/// How long to wait past a timed move's limit before calling the engine hung rather than late:
/// as long as the move itself, between 1 and 10 seconds.
fn grace(allowed: Duration) -> Duration {
    allowed.clamp(Duration::from_secs(1), Duration::from_secs(10))
}

/// Scores of the last plies, from White's side: `Some((winner, ...))` when the score adjudication
/// applies.
fn adjudicate(
    notes: &[(Colour, Option<f64>)],
    plies: usize,
    s: &Settings,
) -> Option<(GameResult, Termination, String)> {
    let white = |(c, score): &(Colour, Option<f64>)| {
        score.map(|x| if *c == Colour::White { x } else { -x })
    };
    if let Some((limit, n)) = s.win {
        if n > 0 && notes.len() >= n {
            let last: Option<Vec<f64>> = notes[notes.len() - n..].iter().map(white).collect();
            if let Some(last) = last {
                for (side, sign) in [(Colour::White, 1.0), (Colour::Black, -1.0)] {
                    if last.iter().all(|x| x * sign >= limit) {
                        return Some((
                            GameResult::win(side),
                            Termination::AdjudicatedWin,
                            format!(
                                "{} wins by adjudication: both engines scored it at least {limit} for {n} plies",
                                side_name(s.variant, side)
                            ),
                        ));
                    }
                }
            }
        }
    }
    if let Some(d) = s.draw {
        if plies >= d.after && d.plies > 0 && notes.len() >= d.plies {
            let level = notes[notes.len() - d.plies..]
                .iter()
                .all(|n| white(n).is_some_and(|x| x.abs() <= d.score));
            if level {
                return Some((
                    GameResult::Draw,
                    Termination::AdjudicatedDraw,
                    format!(
                        "draw by adjudication: both engines scored within ±{} for {} plies",
                        d.score, d.plies
                    ),
                ));
            }
        }
    }
    None
}

/// The rules' verdict on a game that is over at `pos`.
fn by_rules(outcome: Outcome, pos: &kroon_rules::Position) -> (GameResult, Termination, String) {
    match outcome {
        Outcome::Win(c) => {
            // No move loses (wins, in losing draughts); otherwise a breakthrough king won.
            let why = if pos.legal_moves().is_empty() {
                format!("{} has no move", side_name(pos.variant(), pos.turn()))
            } else {
                format!("{} made a king", side_name(pos.variant(), c))
            };
            (
                GameResult::win(c),
                Termination::Rules,
                format!("{} wins: {why}", side_name(pos.variant(), c)),
            )
        }
        Outcome::Draw(reason) => {
            let why = reason.describe(pos.variant());
            (
                GameResult::Draw,
                Termination::Draw(reason),
                format!("draw: {why}"),
            )
        }
    }
}

/// Plays one game from `opening`; `None` when `stop` was raised before it ended.
pub fn play(
    opening: &Opening,
    white: &mut dyn Player,
    black: &mut dyn Player,
    s: &Settings,
    stop: &AtomicBool,
) -> Option<Played> {
    let mut game = Game::new(opening.start);
    for mv in &opening.moves {
        game.play(mv).expect("opening moves were checked when read");
    }
    let first = game.moves().len();
    let mut played = Played {
        moves: Vec::new(),
        notes: Vec::new(),
        result: GameResult::Draw,
        termination: Termination::Rules,
        reason: String::new(),
        culprit: None,
        lines: Vec::new(),
    };
    let mut started = [false; 2];
    let outcome = run(
        &mut game,
        [white, black],
        s,
        stop,
        &mut played,
        &mut started,
    );
    let [white, black] = outcome.players;
    let end = outcome.end;
    played.moves = game.moves()[first..].to_vec();
    let result = match end {
        None => {
            for (p, on) in [(white, started[0]), (black, started[1])] {
                if on {
                    p.game_over(EndForEngine::Aborted);
                }
            }
            return None;
        }
        Some(r) => r,
    };
    played.result = result.0;
    played.termination = result.1;
    played.reason = result.2;
    for (p, c, on) in [
        (white, Colour::White, started[0]),
        (black, Colour::Black, started[1]),
    ] {
        if on {
            p.game_over(for_engine(played.result, c));
        }
    }
    Some(played)
}

struct RunEnd<'p> {
    players: [&'p mut dyn Player; 2],
    end: Option<(GameResult, Termination, String)>,
}

fn run<'p>(
    game: &mut Game,
    players: [&'p mut dyn Player; 2],
    s: &Settings,
    stop: &AtomicBool,
    played: &mut Played,
    started: &mut [bool; 2],
) -> RunEnd<'p> {
    let lost = |played: &mut Played, side: Colour, f: Failure| {
        played.culprit = Some(side);
        played.lines = f.lines;
        (
            GameResult::win(!side),
            Termination::Failure(f.kind),
            format!(
                "{} loses: {}: {}",
                side_name(s.variant, side),
                f.kind.tag(),
                f.message
            ),
        )
    };
    let engine_start = *game.position();
    for side in [Colour::White, Colour::Black] {
        let i = side.index();
        match players[i].new_game(&engine_start, side, &s.tc) {
            Ok(()) => started[i] = true,
            Err(f) => {
                let end = lost(played, side, f);
                return RunEnd {
                    players,
                    end: Some(end),
                };
            }
        }
    }
    let mut clock = match s.tc {
        TimeControl::Clock { base, .. } => [base; 2],
        _ => [Duration::ZERO; 2],
    };
    let mut scores: Vec<(Colour, Option<f64>)> = Vec::new();
    loop {
        if stop.load(Ordering::Relaxed) {
            return RunEnd { players, end: None };
        }
        if let Some(outcome) = game.outcome() {
            return RunEnd {
                players,
                end: Some(by_rules(outcome, game.position())),
            };
        }
        let plies = game.moves().len();
        if s.max_plies.is_some_and(|m| plies >= m) {
            let end = (
                GameResult::Draw,
                Termination::MaxPlies,
                format!("draw: move cap of {plies} plies"),
            );
            return RunEnd {
                players,
                end: Some(end),
            };
        }
        if let Some(end) = adjudicate(&scores, plies, s) {
            return RunEnd {
                players,
                end: Some(end),
            };
        }
        let before = *game.position();
        let side = before.turn();
        let i = side.index();
        let (allowed, patience) = match s.tc {
            TimeControl::MoveTime(t) => (Some(t), t + s.margin + grace(t)),
            TimeControl::Clock { inc, .. } => {
                let a = clock[i] + inc;
                (Some(a), a + s.margin + grace(a))
            }
            TimeControl::Depth(_) | TimeControl::Nodes(_) => (None, s.timeout),
        };
        let turn = Turn {
            start: game.start(),
            moves: game.moves(),
            level: s.tc.level(clock[i]),
            patience,
        };
        let reply = match players[i].think(&turn) {
            Ok(r) => r,
            Err(f) => {
                let end = lost(played, side, f);
                return RunEnd {
                    players,
                    end: Some(end),
                };
            }
        };
        if let Some(a) = allowed {
            if reply.elapsed > a + s.margin {
                let f = Failure {
                    kind: FailKind::TimeForfeit,
                    message: format!(
                        "took {:.3} s, {:.3} s allowed (margin {} ms)",
                        reply.elapsed.as_secs_f64(),
                        a.as_secs_f64(),
                        s.margin.as_millis()
                    ),
                    lines: players[i].transcript(),
                };
                let end = lost(played, side, f);
                return RunEnd {
                    players,
                    end: Some(end),
                };
            }
        }
        let mv = match kroon_protocol::hub::numbering::read_move(&before, &reply.text) {
            Ok(mv) => mv,
            Err(e) => {
                players[i].mark_broken();
                let f = Failure {
                    kind: FailKind::IllegalMove,
                    message: format!("{e} in {}", kroon_rules::write_fen(&before)),
                    lines: players[i].transcript(),
                };
                let end = lost(played, side, f);
                return RunEnd {
                    players,
                    end: Some(end),
                };
            }
        };
        game.play(&mv).expect("read_move gives legal moves");
        if let TimeControl::Clock { inc, .. } = s.tc {
            clock[i] = (clock[i] + inc).saturating_sub(reply.elapsed);
        }
        played.notes.push(MoveNote {
            score: reply.score,
            depth: reply.depth,
            elapsed: reply.elapsed,
        });
        scores.push((side, reply.score));
        let other = (!side).index();
        if let Err(f) = players[other].opponent_moved(&before, &mv, reply.elapsed) {
            let end = lost(played, !side, f);
            return RunEnd {
                players,
                end: Some(end),
            };
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn settings() -> Settings {
        Settings {
            variant: Variant::International,
            tc: TimeControl::Depth(1),
            margin: Duration::ZERO,
            timeout: Duration::from_secs(1),
            max_plies: None,
            win: Some((3.0, 4)),
            draw: Some(ScoreDraw {
                score: 0.1,
                plies: 4,
                after: 40,
            }),
        }
    }

    fn notes(white_view: &[Option<f64>]) -> Vec<(Colour, Option<f64>)> {
        // Alternate movers, each reporting from its own side.
        white_view
            .iter()
            .enumerate()
            .map(|(i, s)| {
                let c = if i % 2 == 0 {
                    Colour::White
                } else {
                    Colour::Black
                };
                (c, s.map(|x| if c == Colour::White { x } else { -x }))
            })
            .collect()
    }

    #[test]
    fn score_adjudication() {
        let s = settings();
        let win = adjudicate(
            &notes(&[Some(0.0), Some(3.0), Some(3.5), Some(4.0), Some(3.1)]),
            10,
            &s,
        );
        assert_eq!(
            win.map(|w| (w.0, w.1)),
            Some((GameResult::WhiteWins, Termination::AdjudicatedWin))
        );
        let black = adjudicate(
            &notes(&[Some(-3.0), Some(-9.0), Some(-3.0), Some(-5.0)]),
            10,
            &s,
        );
        assert_eq!(black.map(|w| w.0), Some(GameResult::BlackWins));
        // In English checkers the side that moves first is called Black.
        let english = Settings {
            variant: Variant::English,
            ..settings()
        };
        let first = adjudicate(&notes(&[Some(3.0); 4]), 10, &english);
        assert!(first.is_some_and(|w| w.2.starts_with("Black wins by adjudication")));
        // One engine disagrees, or stays silent: no adjudication.
        assert!(adjudicate(
            &notes(&[Some(3.0), Some(3.0), Some(-3.0), Some(3.0)]),
            10,
            &s
        )
        .is_none());
        assert!(adjudicate(&notes(&[Some(3.0), None, Some(3.0), Some(3.0)]), 10, &s).is_none());
        // Draws only after ply 40.
        let level = notes(&[Some(0.05), Some(-0.1), Some(0.0), Some(0.02)]);
        assert!(adjudicate(&level, 39, &s).is_none());
        assert_eq!(
            adjudicate(&level, 40, &s).map(|d| d.1),
            Some(Termination::AdjudicatedDraw)
        );
        assert!(adjudicate(
            &notes(&[Some(0.05), Some(0.2), Some(0.0), Some(0.02)]),
            40,
            &s
        )
        .is_none());
    }

    #[test]
    fn results_and_points() {
        assert_eq!(GameResult::WhiteWins.points(Colour::White), 1.0);
        assert_eq!(GameResult::WhiteWins.points(Colour::Black), 0.0);
        assert_eq!(GameResult::Draw.points(Colour::Black), 0.5);
        assert_eq!(GameResult::win(Colour::Black).pdn(), "0-2");
        assert_eq!(
            for_engine(GameResult::BlackWins, Colour::Black),
            EndForEngine::Win
        );
        assert_eq!(grace(Duration::from_millis(100)), Duration::from_secs(1));
        assert_eq!(grace(Duration::from_secs(60)), Duration::from_secs(10));
    }
}
