//! A DXP engine seen from the referee. The engine listens (it is the DXP server and follower); the
//! manager connects to it as the client and initiator, and stands in for the engine's opponent:
//! it sends the game request (colour, time, start position), relays the opponent's moves as `M`,
//! reads the engine's `M`, and ends each game with `E`.
//!
//! One connection serves many games; it is dropped after a failure and made again for the next
//! game. Reads use blocking sockets with timeouts; the codec, the NUL framing (with its frame
//! limit) and the conversions between positions, moves and their DXP forms are those of
//! `kroon_protocol::dxp`, which Kroon's own DXP server uses.

use super::player::{EndForEngine, FailKind, Failure, Health, Player, Reply, Transcript, Turn};
use super::spec::TimeControl;
use kroon_protocol::dxp::convert::{dxp_colour, dxp_move_text, to_dxp_move, to_dxp_position};
use kroon_protocol::dxp::frame::{self, FrameError, Frames};
use kroon_protocol::dxp::{
    AcceptCode, BackAcc, Dxp, DxpPosition, EndReason, GameEnd, GameReq, StopCode,
};
use kroon_rules::{Colour, Move, Position, Variant};
use std::io::{ErrorKind, Read, Write};
use std::net::{TcpStream, ToSocketAddrs};
use std::time::{Duration, Instant};

/// How long connecting and the game request's answer may take.
const HANDSHAKE: Duration = Duration::from_secs(10);
/// How long to wait for the engine's `E` after the manager's.
const END_WAIT: Duration = Duration::from_secs(2);
/// The name the manager gives as initiator.
const INITIATOR: &str = "Kroon match";

struct Conn {
    stream: TcpStream,
    frames: Frames,
}

enum Recv {
    Frame(String),
    Timeout,
    Closed(String),
}

impl Conn {
    fn send(&mut self, msg: &Dxp, log: &Transcript) -> std::io::Result<()> {
        log.push(format!("> {msg}"));
        self.stream.write_all(&frame::encode(msg))?;
        self.stream.flush()
    }

    /// The next frame (without its NUL) before `deadline`.
    fn recv(&mut self, deadline: Instant, log: &Transcript) -> Recv {
        loop {
            match self.frames.next_frame() {
                Ok(Some(frame)) => {
                    let text = String::from_utf8_lossy(&frame).into_owned();
                    log.push(format!("< {text}"));
                    return Recv::Frame(text);
                }
                Ok(None) => {}
                Err(FrameError::TooLong { limit }) => {
                    return Recv::Closed(format!("a message longer than {limit} bytes"));
                }
                Err(e) => return Recv::Closed(e.to_string()),
            }
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                return Recv::Timeout;
            }
            if self.stream.set_read_timeout(Some(left)).is_err() {
                return Recv::Closed("the socket failed".into());
            }
            let mut chunk = [0u8; 512];
            match self.stream.read(&mut chunk) {
                Ok(0) => return Recv::Closed("the engine closed the connection".into()),
                Ok(n) => self.frames.push(&chunk[..n]),
                Err(e) if matches!(e.kind(), ErrorKind::WouldBlock | ErrorKind::TimedOut) => {}
                Err(e) if e.kind() == ErrorKind::Interrupted => {}
                Err(e) => return Recv::Closed(format!("connection error: {e}")),
            }
        }
    }
}

/// A DXP engine at an address.
pub struct DxpEngine {
    addr: String,
    conn: Option<Conn>,
    health: Health,
    /// When the engine's current turn began: the game accept, or the relayed opponent move.
    turn_start: Instant,
    /// The engine has sent `E` for the current game.
    ended_by_engine: bool,
}

impl DxpEngine {
    /// An engine at `addr` (host:port); nothing is connected until the first game.
    #[must_use]
    pub fn new(addr: &str) -> DxpEngine {
        DxpEngine {
            addr: addr.to_owned(),
            conn: None,
            health: Health::default(),
            turn_start: Instant::now(),
            ended_by_engine: false,
        }
    }

    fn fail(&mut self, kind: FailKind, message: impl Into<String>) -> Failure {
        self.health.fail(kind, message)
    }

    fn connect(&mut self) -> Result<(), Failure> {
        let addrs: Vec<_> = match self.addr.to_socket_addrs() {
            Ok(a) => a.collect(),
            Err(e) => {
                let msg = format!("cannot resolve {}: {e}", self.addr);
                return Err(self.fail(FailKind::Crash, msg));
            }
        };
        let mut last = None;
        for a in addrs {
            match TcpStream::connect_timeout(&a, HANDSHAKE) {
                Ok(stream) => {
                    let _ = stream.set_nodelay(true);
                    self.health.log.push(format!("# connected to {a}"));
                    self.conn = Some(Conn {
                        stream,
                        frames: Frames::new(frame::MAX_FRAME),
                    });
                    return Ok(());
                }
                Err(e) => last = Some(e),
            }
        }
        let msg = format!(
            "cannot connect to {}: {}",
            self.addr,
            last.map_or_else(|| "no address".to_owned(), |e| e.to_string())
        );
        Err(self.fail(FailKind::Crash, msg))
    }

    fn send(&mut self, msg: &Dxp) -> Result<(), Failure> {
        let sent = match self.conn.as_mut() {
            Some(conn) => conn.send(msg, &self.health.log),
            None => Err(std::io::Error::from(ErrorKind::NotConnected)),
        };
        sent.map_err(|e| self.fail(FailKind::Crash, format!("cannot send to the engine: {e}")))
    }

    fn recv(&mut self, deadline: Instant) -> Recv {
        match self.conn.as_mut() {
            Some(conn) => conn.recv(deadline, &self.health.log),
            None => Recv::Closed("not connected".into()),
        }
    }
}

/// The DXP start field of a game request: `None` (`A`) for the initial position with White to
/// move, else the position (`B`).
fn dxp_start(pos: &Position) -> Option<DxpPosition> {
    if *pos == Position::initial(Variant::International) {
        return None;
    }
    to_dxp_position(pos).ok()
}

impl Player for DxpEngine {
    fn new_game(
        &mut self,
        position: &Position,
        colour: Colour,
        tc: &TimeControl,
    ) -> Result<(), Failure> {
        if self.health.broken {
            self.conn = None;
            self.health.broken = false;
        }
        if self.conn.is_none() {
            self.connect()?;
        }
        let (minutes, moves) = tc.dxp_minutes();
        let req = GameReq {
            version: 1,
            initiator: INITIATOR.into(),
            follower_colour: dxp_colour(colour),
            minutes,
            moves,
            start: dxp_start(position),
        };
        self.ended_by_engine = false;
        self.send(&Dxp::GameReq(req))?;
        let deadline = Instant::now() + HANDSHAKE;
        loop {
            match self.recv(deadline) {
                Recv::Frame(text) => match text.parse::<Dxp>() {
                    Ok(Dxp::GameAcc(acc)) if acc.code == AcceptCode::Accepted => {
                        self.turn_start = Instant::now();
                        return Ok(());
                    }
                    Ok(Dxp::GameAcc(acc)) => {
                        return Err(self.fail(
                            FailKind::Protocol,
                            format!("the engine refused the game ({:?})", acc.code),
                        ))
                    }
                    // Chat, or the end of a previous game arriving late.
                    Ok(Dxp::Chat(_) | Dxp::GameEnd(_)) => {}
                    Ok(other) => {
                        return Err(self.fail(
                            FailKind::Protocol,
                            format!("expected a game accept, got `{other}`"),
                        ))
                    }
                    Err(e) => {
                        return Err(self.fail(FailKind::Protocol, format!("bad message: {e}")))
                    }
                },
                Recv::Timeout => {
                    return Err(self.fail(FailKind::Hang, "no answer to the game request"))
                }
                Recv::Closed(why) => return Err(self.fail(FailKind::Crash, why)),
            }
        }
    }

    fn think(&mut self, turn: &Turn<'_>) -> Result<Reply, Failure> {
        let deadline = self.turn_start + turn.patience;
        loop {
            let text = match self.recv(deadline) {
                Recv::Frame(text) => text,
                Recv::Timeout => {
                    let msg = format!("no move within {:.3} s", turn.patience.as_secs_f64());
                    return Err(self.fail(FailKind::Hang, msg));
                }
                Recv::Closed(why) => return Err(self.fail(FailKind::Crash, why)),
            };
            let at = Instant::now();
            match text.parse::<Dxp>() {
                Ok(Dxp::Move(mv)) => {
                    return Ok(Reply {
                        text: dxp_move_text(&mv),
                        elapsed: at.saturating_duration_since(self.turn_start),
                        score: None,
                        depth: None,
                    })
                }
                Ok(Dxp::Chat(_)) => {}
                Ok(Dxp::BackReq(_)) => self.send(&Dxp::BackAcc(BackAcc::NotSupported))?,
                Ok(Dxp::GameEnd(end)) => {
                    self.ended_by_engine = true;
                    return Err(match end.reason {
                        EndReason::SenderLoses => {
                            self.fail(FailKind::Resigned, "the engine resigned (E1)")
                        }
                        reason => self.fail(
                            FailKind::Protocol,
                            format!("the engine ended a game the rules say goes on ({reason:?})"),
                        ),
                    });
                }
                Ok(other) => {
                    return Err(self.fail(
                        FailKind::Protocol,
                        format!("expected a move, got `{other}`"),
                    ))
                }
                Err(e) => return Err(self.fail(FailKind::Protocol, format!("bad message: {e}"))),
            }
        }
    }

    fn opponent_moved(
        &mut self,
        before: &Position,
        mv: &Move,
        used: Duration,
    ) -> Result<(), Failure> {
        let msg = to_dxp_move(mv, used, before.variant())
            .map_err(|e| self.fail(FailKind::Protocol, format!("cannot encode a move: {e}")))?;
        self.send(&Dxp::Move(msg))?;
        self.turn_start = Instant::now();
        Ok(())
    }

    fn game_over(&mut self, end: EndForEngine) {
        if self.health.broken || self.conn.is_none() {
            return;
        }
        // The manager speaks as the engine's opponent.
        let reason = match end {
            EndForEngine::Win => EndReason::SenderLoses,
            EndForEngine::Loss => EndReason::SenderWins,
            EndForEngine::Draw => EndReason::Draw,
            EndForEngine::Aborted => EndReason::Unknown,
        };
        let msg = Dxp::GameEnd(GameEnd {
            reason,
            stop: StopCode::Continue,
        });
        if self.send(&msg).is_err() {
            return;
        }
        if self.ended_by_engine {
            return;
        }
        let deadline = Instant::now() + END_WAIT;
        loop {
            match self.recv(deadline) {
                Recv::Frame(text) => {
                    if matches!(text.parse::<Dxp>(), Ok(Dxp::GameEnd(_))) {
                        return;
                    }
                }
                // An engine that does not confirm is tolerated; the next request will tell.
                Recv::Timeout => return,
                Recv::Closed(_) => {
                    self.conn = None;
                    return;
                }
            }
        }
    }

    fn health(&self) -> &Health {
        &self.health
    }

    fn health_mut(&mut self) -> &mut Health {
        &mut self.health
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use kroon_protocol::dxp::{DxpColour, DxpMove};
    use kroon_rules::parse_move;

    #[test]
    fn start_positions_and_moves() {
        let start = Position::initial(Variant::International);
        assert_eq!(dxp_start(&start), None);
        let after = start.play(&parse_move(&start, "32-28").unwrap());
        let b = dxp_start(&after).unwrap();
        assert_eq!(b.turn, DxpColour::Black);
        assert_eq!(b.to_string().len(), 51);
        let m = DxpMove::new(0, 28, 19, &[23]).unwrap();
        assert_eq!(dxp_move_text(&m), "28x19x23");
        assert_eq!(
            dxp_move_text(&DxpMove::new(3, 32, 28, &[]).unwrap()),
            "32-28"
        );
    }
}
