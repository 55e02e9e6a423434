//! What a game needs from a participant, whatever protocol it speaks: start a game, think about
//! a move, hear the opponent's move, end the game. Failures carry the engine's last lines.

use super::spec::TimeControl;
use kroon_protocol::hub::Level;
use kroon_rules::{Colour, Move, Position};
use std::collections::VecDeque;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

/// Lines kept per engine for failure reports.
pub const TRANSCRIPT_LINES: usize = 20;

/// The last lines exchanged with an engine, shared with its reader threads. Lines the manager sent
/// start with `> `, lines the engine wrote with `< `, its standard error with `! `, and notes of
/// the manager's (connection closed, ...) with `# `.
#[derive(Clone, Debug, Default)]
pub struct Transcript(Arc<Mutex<VecDeque<String>>>);

impl Transcript {
    /// Adds a line, dropping the oldest beyond [`TRANSCRIPT_LINES`]. Very long lines are cut.
    pub fn push(&self, line: String) {
        let mut q = self.lock();
        if q.len() == TRANSCRIPT_LINES {
            q.pop_front();
        }
        let line = if line.len() > 400 {
            let mut cut = 400;
            while !line.is_char_boundary(cut) {
                cut -= 1;
            }
            format!("{} ...", &line[..cut])
        } else {
            line
        };
        q.push_back(line);
    }

    /// The lines kept, oldest first.
    #[must_use]
    pub fn lines(&self) -> Vec<String> {
        self.lock().iter().cloned().collect()
    }

    /// A reader thread that panicked cannot leave the queue half-written, so a poisoned lock is
    /// still good to use.
    fn lock(&self) -> MutexGuard<'_, VecDeque<String>> {
        self.0
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}

/// How an engine failed; each loses the game.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum FailKind {
    /// It answered, but after its time (plus the margin) ran out.
    TimeForfeit,
    /// No answer at all: past the clock, margin and grace, or the fixed timeout.
    Hang,
    /// The process ended or the connection closed (or it could not be started or reached).
    Crash,
    /// A move that is not legal (or not readable, or ambiguous).
    IllegalMove,
    /// Anything else against the protocol: `done` without a move, an `error` line, an
    /// unexpected DXP message, a game request refused, a game ended without reason.
    Protocol,
    /// A DXP engine ended the game saying it loses.
    Resigned,
}

impl FailKind {
    /// The word used in the results file and PDN `Termination` tag.
    #[must_use]
    pub fn tag(self) -> &'static str {
        match self {
            FailKind::TimeForfeit => "time forfeit",
            FailKind::Hang => "hang",
            FailKind::Crash => "crash",
            FailKind::IllegalMove => "illegal move",
            FailKind::Protocol => "protocol error",
            FailKind::Resigned => "resignation",
        }
    }

    /// Whether the engine must be restarted (or reconnected) before its next game.
    #[must_use]
    pub fn needs_restart(self) -> bool {
        !matches!(self, FailKind::TimeForfeit | FailKind::Resigned)
    }
}

/// A failure, with what the engine said last.
#[derive(Clone, Debug)]
pub struct Failure {
    /// What went wrong.
    pub kind: FailKind,
    /// In words.
    pub message: String,
    /// The engine's transcript at that moment.
    pub lines: Vec<String>,
}

impl Failure {
    /// A failure of `kind`, with the transcript so far.
    #[must_use]
    pub fn new(kind: FailKind, message: impl Into<String>, log: &Transcript) -> Failure {
        let message = message.into();
        log.push(format!("# {}: {message}", kind.tag()));
        Failure {
            kind,
            message,
            lines: log.lines(),
        }
    }
}

/// What every player keeps, whatever protocol it speaks: its transcript, and whether it failed in
/// a way that needs a restart (or a new connection) before its next game.
#[derive(Clone, Debug, Default)]
pub struct Health {
    /// The last lines exchanged with the engine.
    pub log: Transcript,
    /// It must be restarted (or reconnected) before it plays again.
    pub broken: bool,
}

impl Health {
    /// A failure of `kind`, with the transcript so far; a kind that needs a restart marks the
    /// engine broken.
    pub fn fail(&mut self, kind: FailKind, message: impl Into<String>) -> Failure {
        if kind.needs_restart() {
            self.broken = true;
        }
        Failure::new(kind, message, &self.log)
    }
}

/// One request for a move.
#[derive(Clone, Debug)]
pub struct Turn<'a> {
    /// The start of the game (as the opening gives it).
    pub start: &'a Position,
    /// Every move since `start`, opening moves included.
    pub moves: &'a [Move],
    /// The Hub `level` for this move.
    pub level: Level,
    /// How long to wait for an answer before calling it a hang; the game decides separately
    /// whether a move that did come was in time.
    pub patience: Duration,
}

/// An engine's move, as it wrote it, and what it said while thinking.
#[derive(Clone, Debug)]
pub struct Reply {
    /// The move text (Hub notation, or a DXP move written as `from-to` / `fromxtoxcaptured...`).
    pub text: String,
    /// From the request (Hub `go`, or the opponent's move sent over DXP) to the answer.
    pub elapsed: Duration,
    /// The last score reported, in men, from the mover's side.
    pub score: Option<f64>,
    /// The depth of that report.
    pub depth: Option<u32>,
}

/// How the game ended for one engine, for protocols that tell the engine (DXP `E`).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum EndForEngine {
    /// The engine won.
    Win,
    /// The engine lost.
    Loss,
    /// A draw.
    Draw,
    /// The match was stopped before the game finished.
    Aborted,
}

/// A participant in one game.
pub trait Player {
    /// Prepares for a game in which the engine plays `colour`; `position` is where the engines
    /// take over (after the opening moves).
    ///
    /// # Errors
    /// The engine cannot play (it crashed, refused the game, ...): it loses this game.
    fn new_game(
        &mut self,
        position: &Position,
        colour: Colour,
        tc: &TimeControl,
    ) -> Result<(), Failure>;

    /// Asks for a move and waits at most `turn.patience`.
    ///
    /// # Errors
    /// A failure: the engine loses the game.
    fn think(&mut self, turn: &Turn<'_>) -> Result<Reply, Failure>;

    /// The opponent played `mv` from `before`, taking `used`.
    ///
    /// # Errors
    /// The engine cannot be told (its connection broke): it loses the game.
    fn opponent_moved(
        &mut self,
        before: &Position,
        mv: &Move,
        used: Duration,
    ) -> Result<(), Failure>;

    /// The game is over.
    fn game_over(&mut self, end: EndForEngine);

    /// Its transcript and whether it is broken.
    fn health(&self) -> &Health;

    /// The same, to change.
    fn health_mut(&mut self) -> &mut Health;

    /// The engine failed in a way that needs a restart before its next game.
    fn mark_broken(&mut self) {
        self.health_mut().broken = true;
    }

    /// Whether the engine must be restarted (or reconnected) before it plays again.
    fn is_broken(&self) -> bool {
        self.health().broken
    }

    /// Its recent transcript.
    fn transcript(&self) -> Vec<String> {
        self.health().log.lines()
    }
}
