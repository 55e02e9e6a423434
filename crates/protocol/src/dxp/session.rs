//! One DXP connection: the game-request exchange, the games themselves, the clock, take-backs and
//! game ends, as a state machine over any byte stream (a TCP socket, or an in-memory duplex in tests).
//!
//! The session is transport-neutral: [`run_session`] takes an `AsyncRead + AsyncWrite` stream, a
//! [`Player`] that finds moves, and a callback that gets each finished game. Who listens and who
//! connects is decided in `net`; who proposes games is the [`Role`].
//!
//! Conventions, as Scan (`src/dxp.cpp`) and Moby Dam (`main/dxp.c`) practise them:
//! - The side to move when the game is over (no legal move, the move count of the time control)
//!   sends the game end. After Kroon's own last move it waits [`SessionConfig::end_grace`] for the
//!   peer to do so, then sends its own.
//! - A draw by the rules (repetition, the king-move and endgame counts) is claimed by Kroon at
//!   once, whoever moved last: a chat naming the rule and its count, then the game end. A peer
//!   that plays on instead (it, or its arbiter, counts otherwise) gets its game back, with the
//!   rule waived for the rest of the game, so that Kroon plays on at full strength.
//! - A game end received during a game is answered with a game end (reason 0) carrying Kroon's stop
//!   code; a game end received outside a game is an acknowledgement and is not answered.
//! - A back request names a move number (from 1) and the side to move there (Moby Dam `rcv_backreq`).

use std::fmt;
use std::time::Duration;

use kroon_rules::{
    notation, write_fen, Colour, DrawReason, EndgameRule, Game, GameResult, Move, Outcome,
    Position, Variant,
};
use kroon_search::{score, Engine, Event, Limits, SearchRequest, SearchResult};
use thiserror::Error;
use tokio::io::{AsyncRead, AsyncWrite, AsyncWriteExt, ReadHalf, WriteHalf};
use tokio::sync::oneshot;
use tokio::time::Instant;
use tracing::{debug, info, warn};

use super::codec::{
    AcceptCode, BackAcc, BackReq, Dxp, DxpError, DxpMove, EndReason, GameAcc, GameEnd, GameReq,
    StopCode,
};
#[cfg(test)]
use super::convert::civil_date;
use super::convert::colour_name;
pub use super::convert::{
    back_request_ply, colour, dxp_colour, dxp_move_text, find_move, from_dxp_position, to_dxp_move,
    to_dxp_position, today,
};
use super::frame::{self, FrameError, FrameReader};

// ---- settings --------------------------------------------------------------------------------

/// Silence after which a peer is given up, unless its clock allows it to think longer.
pub const DEFAULT_IDLE_TIMEOUT: Duration = Duration::from_secs(600);
/// How long Kroon waits for the peer's game end (or its echo) once a game is over.
pub const DEFAULT_END_GRACE: Duration = Duration::from_secs(5);
/// Pause between a game accept and Kroon's first move: some clients (pydraughts) lose a message
/// that arrives in the same read as the one before it (Moby Dam has a `delay` switch for this).
pub const DEFAULT_FIRST_MOVE_DELAY: Duration = Duration::from_millis(100);
/// Thinking time per move when a game request gives no time (0 minutes).
pub const NO_CLOCK_MOVE_TIME: Duration = Duration::from_secs(1);
/// Score (centi-men) from which an adjudicated game counts as won: two men.
pub const ADJUDICATION_MARGIN: i32 = 2 * score::MAN;
/// Chats are cut to this length: Moby Dam reads at most 127 bytes per message.
pub const MAX_CHAT: usize = 120;
/// Unreadable messages in a row after which the connection is closed.
pub const MAX_BAD_MESSAGES: u32 = 8;
/// How long a closing session reads on, so that closing does not reset the connection.
pub const LINGER: Duration = Duration::from_millis(500);
/// The DXP version Kroon speaks.
pub const VERSION: u8 = 1;

/// Finds moves: the search engine, or a scripted stand-in in tests.
pub trait Player: Send {
    /// A new game starts: forget what was learnt.
    fn new_game(&mut self);
    /// Starts thinking on the current position of `game`, in the background; the answer goes to
    /// `done` (dropping `done` without an answer counts as a failed search).
    fn go(&mut self, game: Game, limits: Limits, done: oneshot::Sender<SearchResult>);
    /// Asks a running search to answer soon.
    fn stop(&mut self);
}

impl Player for Engine {
    fn new_game(&mut self) {
        Engine::new_game(self);
    }

    fn go(&mut self, game: Game, limits: Limits, done: oneshot::Sender<SearchResult>) {
        let slot = std::sync::Mutex::new(Some(done));
        let req = SearchRequest {
            game,
            limits,
            ponder: false,
        };
        Engine::go(self, req, move |event| match event {
            Event::Iteration(info) => {
                debug!(
                    depth = info.depth,
                    score = info.score,
                    nodes = info.nodes,
                    "iteration"
                );
            }
            Event::Done(result) => {
                if let Some(tx) = slot.lock().ok().and_then(|mut s| s.take()) {
                    let _ = tx.send(result);
                }
            }
        });
    }

    fn stop(&mut self) {
        Engine::stop(self);
    }
}

/// The games an initiator proposes on one connection.
#[derive(Clone, Debug, PartialEq)]
pub struct MatchPlan {
    /// Number of games; Kroon plays White in the odd ones.
    pub games: u32,
    /// Thinking time per side for the game, in minutes (1-999).
    pub minutes: u16,
    /// Moves in that time; the game is adjudicated when both sides have played them (0: no limit).
    pub moves: u16,
    /// Start position of every game (`None`: the initial position).
    pub start: Option<Position>,
}

/// Which side of the game-request exchange Kroon takes.
#[derive(Clone, Debug, PartialEq)]
pub enum Role {
    /// Answers game requests.
    Follower,
    /// Sends game requests.
    Initiator(MatchPlan),
}

/// How a session behaves.
#[derive(Clone, Debug)]
pub struct SessionConfig {
    /// Kroon's name on the wire (cut to 32 characters).
    pub name: String,
    /// The rules (DXP itself knows only the 10x10 board).
    pub variant: Variant,
    /// Follower or initiator.
    pub role: Role,
    /// Silence after which the peer is given up.
    pub idle_timeout: Duration,
    /// Upper bound on the thinking time per move (the clock still applies when it allows less).
    pub move_time: Option<Duration>,
    /// Search about this many nodes per move instead of by time (repeatable games on one thread);
    /// the clocks still run and are still reported to the peer.
    pub move_nodes: Option<u64>,
    /// Wait for the peer's game end, or its echo, at the end of a game.
    pub end_grace: Duration,
    /// Pause between a game accept and Kroon's first move.
    pub first_move_delay: Duration,
}

impl SessionConfig {
    /// A session in `role` under the name `name`, with the default timeouts, playing international
    /// draughts.
    #[must_use]
    pub fn new(name: &str, role: Role) -> SessionConfig {
        SessionConfig {
            name: name.to_owned(),
            variant: Variant::International,
            role,
            idle_timeout: DEFAULT_IDLE_TIMEOUT,
            move_time: None,
            move_nodes: None,
            end_grace: DEFAULT_END_GRACE,
            first_move_delay: DEFAULT_FIRST_MOVE_DELAY,
        }
    }
}

// ---- results ---------------------------------------------------------------------------------

/// The game end reason for `result` (`None`: not known) in a message sent by `sender`.
fn end_reason(result: Option<GameResult>, sender: Colour) -> EndReason {
    match result.map(|r| r.draughts_points(sender)) {
        None => EndReason::Unknown,
        Some(2) => EndReason::SenderWins,
        Some(1) => EndReason::Draw,
        Some(_) => EndReason::SenderLoses,
    }
}

/// The result a game end reason stands for, when `sender` sent it (`None`: not known).
fn reason_result(reason: EndReason, sender: Colour) -> Option<GameResult> {
    match reason {
        EndReason::Unknown => None,
        EndReason::Draw => Some(GameResult::Draw),
        EndReason::SenderWins => Some(GameResult::win(sender)),
        EndReason::SenderLoses => Some(GameResult::win(!sender)),
    }
}

/// A result in PDN: `2-0`, `0-2`, `1-1`, or `*` when not known.
#[must_use]
pub(crate) fn pdn_result(result: Option<GameResult>) -> &'static str {
    result.map_or("*", GameResult::pdn)
}

/// A finished game, as handed to the session's callback (and written to PDN).
#[derive(Clone, Debug, PartialEq)]
pub struct GameRecord {
    /// Game number on this connection, from 1.
    pub number: u32,
    /// Date the game started, `YYYY.MM.DD` (UTC).
    pub date: String,
    /// White's name.
    pub white: String,
    /// Black's name.
    pub black: String,
    /// Kroon's colour.
    pub kroon: Colour,
    /// Start position.
    pub start: Position,
    /// The moves played (after any take-backs).
    pub moves: Vec<Move>,
    /// The result; `None` when the game ended without one (an illegal move, a broken message, an
    /// unknown game end).
    pub result: Option<GameResult>,
    /// Why the game ended, in words.
    pub termination: String,
    /// Time control: minutes per side.
    pub minutes: u16,
    /// Time control: moves in that time (0: the whole game).
    pub moves_limit: u16,
}

impl GameRecord {
    /// Kroon's points in draughts scoring (2 win, 1 draw, 0 loss); `None` for an unknown result.
    #[must_use]
    pub fn kroon_points(&self) -> Option<u32> {
        self.result.map(|r| r.draughts_points(self.kroon))
    }
}

impl fmt::Display for GameRecord {
    /// One line: `game 1: Kroon - Scan 2-0 (Black has no legal move)`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let moves = self.moves.len().div_ceil(2);
        write!(
            f,
            "game {}: {} - {} {} ({}, {moves} move{})",
            self.number,
            self.white,
            self.black,
            pdn_result(self.result),
            self.termination,
            if moves == 1 { "" } else { "s" }
        )
    }
}

/// How a session ended normally.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum SessionEnd {
    /// The initiator played every game of its plan.
    MatchComplete,
    /// The peer asked for no more games (stop code 1).
    PeerStopped,
    /// The peer closed the connection between games.
    PeerClosed,
    /// The follower refused a game request.
    Refused(AcceptCode),
}

/// Why a session broke off.
#[derive(Debug, Error)]
pub enum SessionError {
    /// The stream failed or a frame was too long.
    #[error(transparent)]
    Frame(#[from] FrameError),
    /// The peer closed the connection during a game.
    #[error("peer closed the connection during game {game}")]
    ClosedMidGame {
        /// The game that was running.
        game: u32,
    },
    /// The peer sent nothing for too long.
    #[error("peer sent nothing for {} s", .0.as_secs())]
    Idle(Duration),
    /// The peer kept sending unreadable messages.
    #[error("{0} unreadable messages in a row")]
    Garbage(u32),
    /// The search failed (a broken invariant, not the peer's doing).
    #[error("search failed: {0}")]
    Player(String),
}

fn clip_chat(text: &str) -> String {
    text.chars().take(MAX_CHAT).collect()
}

fn men(centi: i32) -> String {
    format!("{:+.2}", score::in_men(centi))
}

/// The result and its description for a game the rules have ended.
fn rules_result(game: &Game, outcome: Outcome) -> (GameResult, String) {
    let pos = game.position();
    match outcome {
        Outcome::Win(side) => {
            let why = if pos.legal_moves().is_empty() {
                format!("{} has no legal move", colour_name(pos.turn()))
            } else {
                format!("{} wins by the rules", colour_name(side))
            };
            (GameResult::win(side), why)
        }
        Outcome::Draw(DrawReason::Repetition) => {
            (GameResult::Draw, "draw by threefold repetition".to_owned())
        }
        Outcome::Draw(reason) => (GameResult::Draw, format!("draw by the {}", reason.tag())),
    }
}

/// The chat line of a draw claim: the rule and how far its count has run.
fn claim_text(game: &Game, reason: DrawReason) -> String {
    let counts = game.counts();
    let count = match reason {
        DrawReason::Repetition => "the same position for the third time".to_owned(),
        DrawReason::KingMoves => format!("{} plies of king moves", counts.king_plies),
        DrawReason::Endgame(EndgameRule::Sixteen) => format!(
            "{} plies since the ending arose",
            counts.sixteen_plies.unwrap_or(counts.rule_plies)
        ),
        DrawReason::Endgame(_) => format!("{} plies since the ending arose", counts.rule_plies),
    };
    format!(
        "draw claimed: {} ({count})",
        reason.describe(game.position().variant())
    )
}

// ---- the game at the table --------------------------------------------------------------------

/// A game in progress and its clocks.
struct Table {
    number: u32,
    date: String,
    game: Game,
    kroon: Colour,
    minutes: u16,
    moves: u16,
    /// Kroon's time left (`None` when the request gave no time).
    own_left: Option<Duration>,
    /// The peer's time left as Kroon measures it (only to know how long to wait).
    peer_left: Option<Duration>,
    /// When the side to move started thinking (for Kroon: when the peer's move arrived).
    turn_started: Instant,
    /// Score of Kroon's last search, from its side.
    last_score: Option<i32>,
}

impl Table {
    fn new(number: u32, start: Position, kroon: Colour, minutes: u16, moves: u16) -> Table {
        let clock = (minutes > 0).then(|| Duration::from_secs(u64::from(minutes) * 60));
        Table {
            number,
            date: today(),
            game: Game::new(start),
            kroon,
            minutes,
            moves,
            own_left: clock,
            peer_left: clock,
            turn_started: Instant::now(),
            last_score: None,
        }
    }

    fn our_turn(&self) -> bool {
        self.game.position().turn() == self.kroon
    }

    /// Moves Kroon has played so far.
    fn own_moves(&self) -> u32 {
        let plies = self.game.moves().len() + usize::from(self.game.start().turn() == self.kroon);
        u32::try_from(plies / 2).unwrap_or(u32::MAX)
    }

    /// The search limits for Kroon's next move: the time left (less a safety margin) for the
    /// moves left, capped by `cap` when the clock allows that much.
    fn limits(&self, cap: Option<Duration>) -> Limits {
        let Some(own) = self.own_left else {
            return Limits::MoveTime(cap.unwrap_or(NO_CLOCK_MOVE_TIME));
        };
        let total = Duration::from_secs(u64::from(self.minutes) * 60);
        // Kept back for the network and the peer's measuring: 0.1 s and 2% of the game's time.
        let margin = (Duration::from_millis(100) + total / 50).min(Duration::from_secs(5));
        let left = own
            .saturating_sub(self.turn_started.elapsed())
            .saturating_sub(margin)
            .max(Duration::from_millis(10));
        let moves_to_go = (self.moves > 0).then(|| {
            u32::from(self.moves)
                .saturating_sub(self.own_moves())
                .max(1)
        });
        if let Some(cap) = cap {
            if cap <= left / moves_to_go.unwrap_or(30) {
                return Limits::MoveTime(cap);
            }
        }
        Limits::Clock {
            left,
            inc: Duration::ZERO,
            moves_to_go,
        }
    }

    fn charge_own(&mut self, used: Duration) {
        if let Some(left) = self.own_left.as_mut() {
            if used > *left {
                warn!(
                    game = self.number,
                    "Kroon overstepped its clock by {} ms",
                    (used - *left).as_millis()
                );
            }
            *left = left.saturating_sub(used);
        }
    }

    fn charge_peer(&mut self) {
        let used = self.turn_started.elapsed();
        if let Some(left) = self.peer_left.as_mut() {
            *left = left.saturating_sub(used);
        }
    }

    /// How long to wait for the peer's move: the idle timeout, or longer if its clock allows.
    fn peer_wait(&self, idle: Duration) -> Duration {
        match self.peer_left {
            Some(left) => idle.max(left + Duration::from_secs(60)),
            None => idle,
        }
    }

    /// At Kroon's turn once both sides have played the moves of the time control: the result by
    /// Kroon's last score, and the chat saying so.
    fn adjudication(&self, name: &str) -> Option<(GameResult, String)> {
        if self.moves == 0 || self.game.moves().len() < 2 * usize::from(self.moves) {
            return None;
        }
        let score = self.last_score.unwrap_or(0);
        let result = if score >= ADJUDICATION_MARGIN {
            GameResult::win(self.kroon)
        } else if score <= -ADJUDICATION_MARGIN {
            GameResult::win(!self.kroon)
        } else {
            GameResult::Draw
        };
        let verdict = match result {
            GameResult::Draw => "a draw".to_owned(),
            _ if result == GameResult::win(self.kroon) => format!("a win for {name}"),
            _ => format!("a loss for {name}"),
        };
        let text = format!(
            "{} moves played: adjudicated {verdict} by {name}'s last score {}",
            self.moves,
            men(score)
        );
        Some((result, text))
    }
}

// ---- the session -----------------------------------------------------------------------------

/// What arrived on the wire.
enum Recv {
    Msg(Dxp),
    /// A frame that is no DXP message: its text (escaped) and why.
    Bad(String, DxpError),
    Closed,
    TimedOut,
}

/// What a message means for the game in progress.
enum InGame {
    /// Nothing (a chat, or an answer that needs no action).
    Nothing,
    Move(DxpMove),
    End(GameEnd),
    Back(BackReq),
    /// A new game request: the follower abandons the current game for it.
    Request(GameReq),
    /// An unreadable message: the description for the chat.
    Unreadable(String),
    Closed,
}

/// What became of a draw claim.
enum Claim {
    /// The game is over, and what comes next.
    Ended(After),
    /// The peer plays on; its message, if one came, is for the game to handle.
    PlayOn(Option<InGame>),
}

/// What comes after a game.
enum After {
    Next,
    Stop,
    Closed,
    Request(GameReq),
}

struct Session<'a, S, P: ?Sized> {
    cfg: &'a SessionConfig,
    reader: FrameReader<ReadHalf<S>>,
    writer: WriteHalf<S>,
    player: &'a mut P,
    on_game: &'a mut dyn FnMut(&GameRecord),
    peer: String,
    games: u32,
    bad_in_a_row: u32,
}

/// Runs one DXP connection to its end: as follower until the peer stops or leaves, as initiator
/// until the plan is played. Every finished game goes to `on_game`. The player's search is stopped
/// on every way out.
///
/// # Errors
/// A broken connection, an over-long frame, an idle peer, a peer that closes during a game, a
/// stream of garbage, or a failed search. Each is logged where it is found.
pub async fn run_session<S, P>(
    stream: S,
    cfg: &SessionConfig,
    player: &mut P,
    on_game: &mut dyn FnMut(&GameRecord),
) -> Result<SessionEnd, SessionError>
where
    S: AsyncRead + AsyncWrite,
    P: Player + ?Sized,
{
    let (reader, writer) = tokio::io::split(stream);
    let mut s = Session {
        cfg,
        reader: FrameReader::new(reader),
        writer,
        player,
        on_game,
        peer: "peer".to_owned(),
        games: 0,
        bad_in_a_row: 0,
    };
    let end = match &cfg.role {
        Role::Follower => s.run_follower().await,
        Role::Initiator(plan) => s.run_initiator(plan).await,
    };
    s.player.stop();
    let _ = tokio::time::timeout(Duration::from_secs(1), s.writer.shutdown()).await;
    let _ = tokio::time::timeout(LINGER, s.reader.drain(64 * 1024)).await;
    // The cause of an error was logged where it was found; the caller reports the outcome.
    match &end {
        Ok(e) => debug!(games = s.games, "session over: {e:?}"),
        Err(e) => debug!(games = s.games, "session broken off: {e}"),
    }
    end
}

impl<S, P> Session<'_, S, P>
where
    S: AsyncRead + AsyncWrite,
    P: Player + ?Sized,
{
    // -- wire

    async fn send(&mut self, msg: Dxp) -> Result<(), SessionError> {
        debug!("> {msg}");
        frame::write_message(&mut self.writer, &msg).await?;
        Ok(())
    }

    async fn chat(&mut self, text: &str) -> Result<(), SessionError> {
        let text = clip_chat(text);
        info!("chat to {}: {text}", self.peer);
        self.send(Dxp::Chat(text)).await
    }

    /// Turns a frame (or the end of the stream) into a message, counting unreadable ones.
    async fn classify(
        &mut self,
        frame: Result<Option<Vec<u8>>, FrameError>,
    ) -> Result<Recv, SessionError> {
        match frame {
            Err(FrameError::TooLong { limit }) => {
                warn!("peer sent more than {limit} bytes without a NUL: closing the connection");
                let _ = self
                    .chat(&format!(
                        "message longer than {limit} bytes: closing the connection"
                    ))
                    .await;
                Err(FrameError::TooLong { limit }.into())
            }
            Err(e) => {
                warn!("connection failed: {e}");
                Err(e.into())
            }
            Ok(None) => {
                if self.reader.dropped() > 0 {
                    warn!(
                        "peer closed the connection in the middle of a message ({} bytes dropped)",
                        self.reader.dropped()
                    );
                }
                Ok(Recv::Closed)
            }
            Ok(Some(bytes)) => match frame::decode(&bytes) {
                Ok(msg) => {
                    debug!("< {msg}");
                    self.bad_in_a_row = 0;
                    Ok(Recv::Msg(msg))
                }
                Err(e) => {
                    let text = frame::show(&bytes);
                    warn!("unreadable message `{text}`: {e}");
                    self.bad_in_a_row += 1;
                    if self.bad_in_a_row >= MAX_BAD_MESSAGES {
                        warn!("{MAX_BAD_MESSAGES} unreadable messages in a row: closing");
                        return Err(SessionError::Garbage(self.bad_in_a_row));
                    }
                    Ok(Recv::Bad(text, e))
                }
            },
        }
    }

    /// The next message, or `TimedOut` after `limit`.
    async fn recv(&mut self, limit: Duration) -> Result<Recv, SessionError> {
        match tokio::time::timeout(limit, self.reader.next_frame()).await {
            Err(_) => Ok(Recv::TimedOut),
            Ok(frame) => self.classify(frame).await,
        }
    }

    fn our_stop(&self, number: u32) -> StopCode {
        match &self.cfg.role {
            Role::Initiator(plan) if number < plan.games => StopCode::Continue,
            Role::Initiator(_) => StopCode::Stop,
            Role::Follower => StopCode::Continue,
        }
    }

    /// A message that needs no game: chat, stray answers, moves and back requests with no game.
    async fn outside_game(&mut self, msg: Dxp) -> Result<(), SessionError> {
        match msg {
            Dxp::Chat(text) => info!("chat from {}: {text}", self.peer),
            Dxp::Move(m) => {
                warn!("move {} received with no game running", dxp_move_text(&m));
                self.chat("move received while no game is running; ignored")
                    .await?;
            }
            Dxp::BackReq(b) => {
                warn!(
                    "back request to move {} with no game running",
                    b.move_number
                );
                self.send(Dxp::BackAcc(BackAcc::Declined)).await?;
            }
            Dxp::BackAcc(code) => {
                info!("back accept {code:?} received; Kroon sent no back request")
            }
            Dxp::GameAcc(acc) => info!(
                "game accept from {} received; Kroon sent no game request",
                acc.follower
            ),
            Dxp::GameReq(req) => {
                // Only an initiator gets here: it makes the requests on this connection.
                warn!(
                    "game request from {} refused: Kroon is the initiator",
                    req.initiator
                );
                self.send(Dxp::GameAcc(GameAcc {
                    follower: self.cfg.name.clone(),
                    code: AcceptCode::Declined,
                }))
                .await?;
                self.chat("Kroon is the initiator on this connection")
                    .await?;
            }
            Dxp::GameEnd(e) => debug!("game end {e:?} outside a game: an acknowledgement"),
        }
        Ok(())
    }

    async fn unreadable(&mut self, text: &str, err: &DxpError) -> Result<(), SessionError> {
        self.chat(&format!("cannot read message `{text}`: {err}"))
            .await
    }

    // -- roles

    async fn run_follower(&mut self) -> Result<SessionEnd, SessionError> {
        let mut pending = None;
        loop {
            let req = match pending.take() {
                Some(req) => req,
                None => match self.recv(self.cfg.idle_timeout).await? {
                    Recv::Msg(Dxp::GameReq(req)) => req,
                    Recv::Msg(Dxp::GameEnd(e)) if e.stop == StopCode::Stop => {
                        info!("peer wants no more games");
                        return Ok(SessionEnd::PeerStopped);
                    }
                    Recv::Msg(msg) => {
                        self.outside_game(msg).await?;
                        continue;
                    }
                    Recv::Bad(text, e) => {
                        self.unreadable(&text, &e).await?;
                        continue;
                    }
                    Recv::Closed => return Ok(SessionEnd::PeerClosed),
                    Recv::TimedOut => {
                        warn!(
                            "no game request for {} s: closing",
                            self.cfg.idle_timeout.as_secs()
                        );
                        return Err(SessionError::Idle(self.cfg.idle_timeout));
                    }
                },
            };
            let Some(table) = self.accept(req).await? else {
                continue;
            };
            match self.play(table).await? {
                After::Next => {}
                After::Stop => return Ok(SessionEnd::PeerStopped),
                After::Closed => return Ok(SessionEnd::PeerClosed),
                After::Request(req) => pending = Some(req),
            }
        }
    }

    /// Answers a game request: a table to play at, or `None` when refused.
    async fn accept(&mut self, req: GameReq) -> Result<Option<Table>, SessionError> {
        self.peer = if req.initiator.is_empty() {
            "peer".to_owned()
        } else {
            req.initiator.clone()
        };
        let cfg = self.cfg;
        let refuse = |code| {
            Dxp::GameAcc(GameAcc {
                follower: cfg.name.clone(),
                code,
            })
        };
        if req.version != VERSION {
            warn!(
                "game request from {} in DXP version {:02}: refused (code 1)",
                self.peer, req.version
            );
            self.send(refuse(AcceptCode::UnsupportedVersion)).await?;
            self.chat(&format!(
                "DXP version {:02} is not supported; Kroon speaks version {VERSION:02}",
                req.version
            ))
            .await?;
            return Ok(None);
        }
        let start = match &req.start {
            None => Position::initial(self.cfg.variant),
            Some(dp) => match from_dxp_position(dp, self.cfg.variant) {
                Ok(pos) => pos,
                Err(why) => {
                    warn!("game request from {} with a bad position: {why}", self.peer);
                    self.send(refuse(AcceptCode::Declined)).await?;
                    self.chat(&format!("cannot play from that position: {why}"))
                        .await?;
                    return Ok(None);
                }
            },
        };
        self.send(refuse(AcceptCode::Accepted)).await?;
        let kroon = colour(req.follower_colour);
        let table = Table::new(self.games + 1, start, kroon, req.minutes, req.moves);
        info!(
            game = table.number,
            "game accepted: {} plays {}, {} min for {} moves, from {}",
            self.cfg.name,
            colour_name(kroon),
            req.minutes,
            req.moves,
            write_fen(&start)
        );
        Ok(Some(table))
    }

    async fn run_initiator(&mut self, plan: &MatchPlan) -> Result<SessionEnd, SessionError> {
        let initial = Position::initial(self.cfg.variant);
        let start = plan.start.unwrap_or(initial);
        let start_field = if start == initial {
            None
        } else {
            Some(to_dxp_position(&start).map_err(|e| SessionError::Player(e.to_string()))?)
        };
        for number in 1..=plan.games {
            let kroon = if number % 2 == 1 {
                Colour::White
            } else {
                Colour::Black
            };
            self.send(Dxp::GameReq(GameReq {
                version: VERSION,
                initiator: self.cfg.name.clone(),
                follower_colour: dxp_colour(!kroon),
                minutes: plan.minutes,
                moves: plan.moves,
                start: start_field,
            }))
            .await?;
            let acc = loop {
                match self.recv(self.cfg.idle_timeout).await? {
                    Recv::Msg(Dxp::GameAcc(acc)) => break acc,
                    Recv::Msg(Dxp::GameEnd(e)) if e.stop == StopCode::Stop => {
                        return Ok(SessionEnd::PeerStopped)
                    }
                    Recv::Msg(msg) => self.outside_game(msg).await?,
                    Recv::Bad(text, e) => self.unreadable(&text, &e).await?,
                    Recv::Closed => {
                        warn!("peer closed the connection before answering game request {number}");
                        return Ok(SessionEnd::PeerClosed);
                    }
                    Recv::TimedOut => {
                        warn!("no answer to game request {number}: closing");
                        return Err(SessionError::Idle(self.cfg.idle_timeout));
                    }
                }
            };
            if !acc.follower.is_empty() {
                self.peer = acc.follower.clone();
            }
            let why = match acc.code {
                AcceptCode::Accepted => None,
                AcceptCode::UnsupportedVersion => Some("does not support DXP version 01"),
                AcceptCode::Declined => Some("does not want this game"),
                AcceptCode::NoMoreGames => Some("wants no more games"),
            };
            if let Some(why) = why {
                warn!(
                    "game {number} refused: {} {why} ({:?})",
                    self.peer, acc.code
                );
                return Ok(SessionEnd::Refused(acc.code));
            }
            info!(
                game = number,
                "{} accepted: {} plays {}",
                self.peer,
                self.cfg.name,
                colour_name(kroon)
            );
            let table = Table::new(number, start, kroon, plan.minutes, plan.moves);
            let last = number == plan.games;
            match self.play(table).await? {
                After::Next | After::Request(_) => {}
                After::Stop if last => return Ok(SessionEnd::MatchComplete),
                After::Stop => return Ok(SessionEnd::PeerStopped),
                After::Closed if last => return Ok(SessionEnd::MatchComplete),
                After::Closed => return Ok(SessionEnd::PeerClosed),
            }
        }
        Ok(SessionEnd::MatchComplete)
    }

    // -- a game

    async fn play(&mut self, mut t: Table) -> Result<After, SessionError> {
        self.player.new_game();
        if t.our_turn() && !self.cfg.first_move_delay.is_zero() {
            tokio::time::sleep(self.cfg.first_move_delay).await;
        }
        loop {
            // A draw by the rules is claimed at once, whoever moved last; if the peer plays on,
            // the rule is waived for the rest of the game and its move is played below.
            let mut pending = None;
            while let Some(Outcome::Draw(reason)) = t.game.outcome() {
                match self.claim_draw(&mut t, reason).await? {
                    Claim::Ended(after) => return Ok(after),
                    Claim::PlayOn(event) => {
                        t.game.waive(reason);
                        if event.is_some() {
                            pending = event;
                            break;
                        }
                    }
                }
            }
            let outcome = t.game.outcome();
            let event = if let Some(event) = pending {
                event
            } else if t.our_turn() {
                if let Some(outcome) = outcome {
                    let (result, why) = rules_result(&t.game, outcome);
                    return self.end_by_us(t, Some(result), why, None).await;
                }
                if let Some((result, text)) = t.adjudication(&self.cfg.name) {
                    return self
                        .end_by_us(t, Some(result), text.clone(), Some(text))
                        .await;
                }
                match self.think(&mut t).await? {
                    None => continue,
                    Some(event) => event,
                }
            } else {
                let limit = if outcome.is_some() {
                    self.cfg.end_grace
                } else {
                    t.peer_wait(self.cfg.idle_timeout)
                };
                match self.recv(limit).await? {
                    Recv::TimedOut => match outcome {
                        Some(outcome) => {
                            let (result, why) = rules_result(&t.game, outcome);
                            debug!("no game end from the peer: sending it");
                            return self.end_by_us(t, Some(result), why, None).await;
                        }
                        None => {
                            warn!(
                                game = t.number,
                                "no move from {} for {} s: closing",
                                self.peer,
                                limit.as_secs()
                            );
                            return Err(SessionError::Idle(limit));
                        }
                    },
                    recv => self.in_game(recv).await?,
                }
            };
            match event {
                InGame::Nothing => {}
                InGame::Move(m) => {
                    if let Some(outcome) = outcome {
                        let (result, why) = rules_result(&t.game, outcome);
                        let chat = format!("move {} after the end: {why}", dxp_move_text(&m));
                        return self.end_by_us(t, Some(result), why, Some(chat)).await;
                    }
                    if t.our_turn() {
                        let why = format!(
                            "move {} received while {} is to move",
                            dxp_move_text(&m),
                            self.cfg.name
                        );
                        return self.end_illegal(t, why).await;
                    }
                    let pos = *t.game.position();
                    match find_move(&pos, &m) {
                        Ok(mv) => {
                            t.charge_peer();
                            debug!(
                                game = t.number,
                                "{} plays {}",
                                self.peer,
                                notation::display(&pos, &mv)
                            );
                            t.game
                                .play(&mv)
                                .map_err(|e| SessionError::Player(e.to_string()))?;
                            t.turn_started = Instant::now();
                        }
                        Err(why) => {
                            let text = format!("illegal move {}: {why}", dxp_move_text(&m));
                            return self.end_illegal(t, text).await;
                        }
                    }
                }
                InGame::End(e) => return self.end_by_peer(t, e).await,
                InGame::Back(b) => self.take_back(&mut t, b).await?,
                InGame::Request(req) => {
                    warn!(
                        game = t.number,
                        "new game request during the game: game abandoned unfinished"
                    );
                    return Ok(After::Request(req));
                }
                InGame::Unreadable(text) => return self.end_illegal(t, text).await,
                InGame::Closed => {
                    if let Some(outcome) = outcome {
                        let (result, why) = rules_result(&t.game, outcome);
                        self.record(&t, Some(result), why);
                        return Ok(After::Closed);
                    }
                    warn!(
                        game = t.number,
                        "peer closed the connection during the game (after {} moves)",
                        t.game.moves().len()
                    );
                    return Err(SessionError::ClosedMidGame { game: t.number });
                }
            }
        }
    }

    /// What a message means during a game; chats and stray answers are dealt with here.
    async fn in_game(&mut self, recv: Recv) -> Result<InGame, SessionError> {
        Ok(match recv {
            Recv::Msg(Dxp::Move(m)) => InGame::Move(m),
            Recv::Msg(Dxp::GameEnd(e)) => InGame::End(e),
            Recv::Msg(Dxp::BackReq(b)) => InGame::Back(b),
            Recv::Msg(Dxp::GameReq(req)) if self.cfg.role == Role::Follower => InGame::Request(req),
            Recv::Msg(msg) => {
                self.outside_game(msg).await?;
                InGame::Nothing
            }
            Recv::Bad(text, e) => InGame::Unreadable(format!("cannot read message `{text}`: {e}")),
            Recv::Closed => InGame::Closed,
            Recv::TimedOut => InGame::Nothing,
        })
    }

    /// Searches and plays Kroon's move, listening to the peer meanwhile. A message that changes
    /// the game (a game end, a back request, a move out of turn...) stops the search and is
    /// returned; its move is then thrown away.
    async fn think(&mut self, t: &mut Table) -> Result<Option<InGame>, SessionError> {
        let limits = match self.cfg.move_nodes {
            Some(nodes) => Limits::Nodes(nodes),
            None => t.limits(self.cfg.move_time),
        };
        debug!(game = t.number, ?limits, "thinking");
        let (tx, mut rx) = oneshot::channel();
        self.player.go(t.game.clone(), limits, tx);
        loop {
            tokio::select! {
                done = &mut rx => {
                    let result = done.map_err(|_| {
                        SessionError::Player("the search ended without an answer".into())
                    })?;
                    self.play_own(t, &result).await?;
                    return Ok(None);
                }
                frame = self.reader.next_frame() => {
                    let event = match self.classify(frame).await {
                        Ok(recv) => self.in_game(recv).await,
                        Err(e) => Err(e),
                    };
                    if let Ok(InGame::Nothing) = event {
                        continue;
                    }
                    self.player.stop();
                    let _ = (&mut rx).await;
                    return event.map(Some);
                }
            }
        }
    }

    /// Sends and plays the move the search found, and charges its time to Kroon's clock.
    async fn play_own(&mut self, t: &mut Table, result: &SearchResult) -> Result<(), SessionError> {
        let pos = *t.game.position();
        let mv = result
            .best
            .filter(|mv| pos.legal_moves().contains(mv))
            .ok_or_else(|| {
                SessionError::Player(format!(
                    "no legal move found in {} (best {:?})",
                    write_fen(&pos),
                    result.best
                ))
            })?;
        let used = t.turn_started.elapsed();
        t.charge_own(used);
        let m = to_dxp_move(&mv, used, self.cfg.variant)
            .map_err(|e| SessionError::Player(e.to_string()))?;
        self.send(Dxp::Move(m)).await?;
        t.game
            .play(&mv)
            .map_err(|e| SessionError::Player(e.to_string()))?;
        // A forced move is played without a search (depth 0): its score means nothing.
        if result.depth > 0 {
            t.last_score = Some(result.score);
        }
        t.turn_started = Instant::now();
        debug!(
            game = t.number,
            depth = result.depth,
            nodes = result.nodes,
            used_ms = u64::try_from(used.as_millis()).unwrap_or(u64::MAX),
            left_ms = t
                .own_left
                .map(|l| u64::try_from(l.as_millis()).unwrap_or(u64::MAX)),
            "{} plays {} ({})",
            self.cfg.name,
            notation::display(&pos, &mv),
            men(result.score)
        );
        Ok(())
    }

    /// Takes back to the move a back request names, or declines it.
    async fn take_back(&mut self, t: &mut Table, b: BackReq) -> Result<(), SessionError> {
        let played = t.game.moves().len();
        let side = dxp_colour(colour(b.turn)).to_char();
        match back_request_ply(t.game.start().turn(), &b) {
            Some(ply) if ply <= played => {
                t.game.undo(played - ply);
                t.turn_started = Instant::now();
                info!(
                    game = t.number,
                    "back request accepted: back to move {}{side} ({} half-moves taken back)",
                    b.move_number,
                    played - ply
                );
                self.send(Dxp::BackAcc(BackAcc::Accepted)).await
            }
            _ => {
                warn!(
                    game = t.number,
                    "back request to move {}{side} declined: not in this game", b.move_number
                );
                self.send(Dxp::BackAcc(BackAcc::Declined)).await?;
                self.chat(&format!(
                    "cannot go back to move {}{side}: the game has {played} half-moves",
                    b.move_number
                ))
                .await
            }
        }
    }

    fn record(&mut self, t: &Table, result: Option<GameResult>, termination: String) {
        let (white, black) = match t.kroon {
            Colour::White => (self.cfg.name.clone(), self.peer.clone()),
            Colour::Black => (self.peer.clone(), self.cfg.name.clone()),
        };
        let record = GameRecord {
            number: t.number,
            date: t.date.clone(),
            white,
            black,
            kroon: t.kroon,
            start: *t.game.start(),
            moves: t.game.moves().to_vec(),
            result,
            termination,
            minutes: t.minutes,
            moves_limit: t.moves,
        };
        info!("{record}");
        self.games = t.number;
        (self.on_game)(&record);
    }

    /// Claims the draw `reason` gives: a chat naming the rule and its count, and a game end
    /// with the draw. The game is over when the peer answers with its game end; a peer that
    /// plays on instead (its reading of the rule, or its arbiter's, differs) gets its game back,
    /// and so does one that does not answer when Kroon is to move.
    async fn claim_draw(
        &mut self,
        t: &mut Table,
        reason: DrawReason,
    ) -> Result<Claim, SessionError> {
        let (result, why) = rules_result(&t.game, Outcome::Draw(reason));
        let claim = claim_text(&t.game, reason);
        info!(game = t.number, "{claim}");
        self.chat(&claim).await?;
        let stop = self.our_stop(t.number);
        self.send(Dxp::GameEnd(GameEnd {
            reason: end_reason(Some(result), t.kroon),
            stop,
        }))
        .await?;
        let deadline = Instant::now() + self.cfg.end_grace;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            let event = match self.recv(left).await? {
                Recv::TimedOut if t.our_turn() => None,
                Recv::TimedOut => {
                    debug!("no answer to the draw claim: waiting for the peer's move");
                    None
                }
                Recv::Closed => {
                    self.record(t, Some(result), why);
                    return Ok(Claim::Ended(After::Closed));
                }
                Recv::Msg(Dxp::GameEnd(e)) => {
                    self.record(t, Some(result), why);
                    let stop = stop == StopCode::Stop || e.stop == StopCode::Stop;
                    return Ok(Claim::Ended(if stop { After::Stop } else { After::Next }));
                }
                Recv::Msg(Dxp::GameReq(req)) if self.cfg.role == Role::Follower => {
                    self.record(t, Some(result), why);
                    return Ok(Claim::Ended(After::Request(req)));
                }
                Recv::Msg(Dxp::Move(m)) if !t.our_turn() => Some(InGame::Move(m)),
                Recv::Msg(Dxp::BackReq(b)) => Some(InGame::Back(b)),
                Recv::Msg(Dxp::Move(m)) => {
                    debug!(
                        "move {} out of turn after the draw claim: ignored",
                        dxp_move_text(&m)
                    );
                    continue;
                }
                Recv::Msg(msg) => {
                    self.outside_game(msg).await?;
                    continue;
                }
                Recv::Bad(text, e) => {
                    self.unreadable(&text, &e).await?;
                    continue;
                }
            };
            warn!(
                game = t.number,
                "{} plays on after the draw claim: the {} no longer applies in this game",
                self.peer,
                reason.tag()
            );
            self.chat(&format!(
                "playing on: {} no longer applies in this game",
                reason.describe(t.game.position().variant())
            ))
            .await?;
            return Ok(Claim::PlayOn(event));
        }
    }

    async fn end_illegal(&mut self, t: Table, why: String) -> Result<After, SessionError> {
        warn!(game = t.number, "{why}: ending the game");
        let chat = format!("{why}; game over");
        self.end_by_us(t, None, why, Some(chat)).await
    }

    /// Kroon ends the game: a chat if any, the game end, the record, then a short wait for the
    /// peer's game end.
    async fn end_by_us(
        &mut self,
        t: Table,
        result: Option<GameResult>,
        why: String,
        chat: Option<String>,
    ) -> Result<After, SessionError> {
        if let Some(text) = chat {
            self.chat(&text).await?;
        }
        let stop = self.our_stop(t.number);
        self.send(Dxp::GameEnd(GameEnd {
            reason: end_reason(result, t.kroon),
            stop,
        }))
        .await?;
        self.record(&t, result, why);
        let deadline = Instant::now() + self.cfg.end_grace;
        let mut peer_stop = StopCode::Continue;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.recv(left).await? {
                Recv::TimedOut => {
                    debug!("peer did not answer the game end");
                    break;
                }
                Recv::Closed => return Ok(After::Closed),
                Recv::Msg(Dxp::GameEnd(e)) => {
                    peer_stop = e.stop;
                    break;
                }
                Recv::Msg(Dxp::GameReq(req)) if self.cfg.role == Role::Follower => {
                    return Ok(After::Request(req));
                }
                Recv::Msg(Dxp::Move(m)) => {
                    debug!("move {} after the game end: ignored", dxp_move_text(&m));
                }
                Recv::Msg(msg) => self.outside_game(msg).await?,
                Recv::Bad(text, e) => self.unreadable(&text, &e).await?,
            }
        }
        Ok(if stop == StopCode::Stop || peer_stop == StopCode::Stop {
            After::Stop
        } else {
            After::Next
        })
    }

    /// The peer ends the game: answer with a game end and record the result (by the rules when
    /// they have ended the game, otherwise as the peer gives it).
    async fn end_by_peer(&mut self, t: Table, e: GameEnd) -> Result<After, SessionError> {
        let stop = self.our_stop(t.number);
        self.send(Dxp::GameEnd(GameEnd {
            reason: EndReason::Unknown,
            stop,
        }))
        .await?;
        let (result, why) = match t.game.outcome() {
            Some(outcome) => {
                let (result, why) = rules_result(&t.game, outcome);
                (Some(result), why)
            }
            None => {
                let result = reason_result(e.reason, !t.kroon);
                let said = match e.reason {
                    EndReason::Unknown => "without a result",
                    EndReason::SenderLoses => "as a loss for itself",
                    EndReason::Draw => "as a draw",
                    EndReason::SenderWins => "as a win for itself",
                };
                (result, format!("{} ended the game {said}", self.peer))
            }
        };
        self.record(&t, result, why);
        Ok(if e.stop == StopCode::Stop || stop == StopCode::Stop {
            After::Stop
        } else {
            After::Next
        })
    }
}

#[cfg(test)]
#[path = "session_tests.rs"]
mod tests;
