//! DXP over TCP: a server that plays one connection at a time and refuses others while it does,
//! and a client that connects (retrying while the server starts).

use std::collections::VecDeque;
use std::net::SocketAddr;
use std::time::Duration;

use tokio::io::AsyncWriteExt;
use tokio::net::{TcpListener, TcpStream};
use tokio::time::Instant;
use tracing::{debug, info, info_span, warn, Instrument};

use super::codec::{AcceptCode, Dxp, GameAcc};
use super::frame::{self, FrameReader};
use super::session::{run_session, GameRecord, Player, Role, SessionConfig, SessionEnd};

/// How long a refused second connection may take to send its game request.
pub const REFUSE_WAIT: Duration = Duration::from_secs(5);

/// How long a connection that arrives during a session waits for that session to end before it
/// is refused. A peer that closes and at once reconnects is served, not turned away.
pub const HANDOFF_WAIT: Duration = Duration::from_secs(1);
/// Connections held in that wait at most; more are refused at once.
const MAX_WAITING: usize = 4;
/// Pause after a failed accept before the next one. An accept fails when the process is out of
/// file descriptors, and keeps failing until some are closed: retrying at once would spin.
pub const ACCEPT_BACKOFF: Duration = Duration::from_millis(100);

/// Serves DXP on `listener`, one connection at a time, until stopped from outside. A follower
/// goes back to listening after every connection, however it ended; an initiator returns once a
/// connection has ended normally (its match is played).
///
/// A connection that arrives while another is being served waits up to [`HANDOFF_WAIT`] for that
/// session to end; if it does not, the newcomer is refused: Kroon waits up to [`REFUSE_WAIT`] for
/// its game request, answers it with game accept code 3 ("no games"), and closes (anything else
/// is closed without an answer).
///
/// A failed accept (out of file descriptors, say) is logged and tried again after
/// [`ACCEPT_BACKOFF`], during a session as between them; the session is not disturbed.
///
/// # Errors
/// Only when the listener's own address cannot be read; failed accepts are logged and retried.
pub async fn serve<P: Player + ?Sized>(
    listener: &TcpListener,
    cfg: &SessionConfig,
    player: &mut P,
    on_game: &mut dyn FnMut(&GameRecord),
) -> std::io::Result<()> {
    let local = listener.local_addr()?;
    info!("DXP server listening on {local}");
    let mut waiting: VecDeque<(TcpStream, SocketAddr, Instant)> = VecDeque::new();
    loop {
        let (stream, peer) = match waiting.pop_front() {
            Some((stream, peer, _)) => (stream, peer),
            None => match listener.accept().await {
                Ok((stream, peer)) => (stream, peer),
                Err(e) => {
                    warn!("accept failed: {e}");
                    tokio::time::sleep(ACCEPT_BACKOFF).await;
                    continue;
                }
            },
        };
        if let Err(e) = stream.set_nodelay(true) {
            debug!("cannot set TCP_NODELAY: {e}");
        }
        info!("connection from {peer}");
        let session = run_session(stream, cfg, &mut *player, &mut *on_game)
            .instrument(info_span!("dxp", %peer));
        tokio::pin!(session);
        // After a failed accept, no accept until then (the session goes on meanwhile).
        let mut accept_again: Option<Instant> = None;
        let end = loop {
            let deadline = waiting.front().map(|(_, _, since)| *since + HANDOFF_WAIT);
            tokio::select! {
                end = &mut session => break end,
                other = listener.accept(), if accept_again.is_none() => match other {
                    Ok((stream, addr)) if waiting.len() < MAX_WAITING => {
                        debug!("connection from {addr} waits: a session is running");
                        waiting.push_back((stream, addr, Instant::now()));
                    }
                    Ok((stream, addr)) => {
                        tokio::spawn(refuse(stream, addr, cfg.name.clone()));
                    }
                    Err(e) => {
                        warn!("accept failed: {e}");
                        accept_again = Some(Instant::now() + ACCEPT_BACKOFF);
                    }
                },
                () = sleep_until_some(accept_again) => accept_again = None,
                () = sleep_until_some(deadline) => {
                    if let Some((stream, addr, _)) = waiting.pop_front() {
                        tokio::spawn(refuse(stream, addr, cfg.name.clone()));
                    }
                }
            }
        };
        match end {
            Ok(end) => {
                info!("connection from {peer} over ({end:?})");
                if matches!(cfg.role, Role::Initiator(_)) {
                    return Ok(());
                }
            }
            Err(e) => warn!("connection from {peer} ended: {e}; listening again"),
        }
    }
}

/// Sleeps until `deadline`, or forever without one.
async fn sleep_until_some(deadline: Option<Instant>) {
    match deadline {
        Some(t) => tokio::time::sleep_until(t).await,
        None => std::future::pending().await,
    }
}

/// Turns away a connection that arrives while a game runs.
async fn refuse(stream: TcpStream, addr: SocketAddr, name: String) {
    warn!("refusing connection from {addr}: a game is already running");
    let (read, mut write) = stream.into_split();
    let mut reader = FrameReader::new(read);
    if let Ok(Ok(Some(bytes))) = tokio::time::timeout(REFUSE_WAIT, reader.next_frame()).await {
        if let Ok(Dxp::GameReq(_)) = frame::decode(&bytes) {
            let answer = Dxp::GameAcc(GameAcc {
                follower: name,
                code: AcceptCode::NoMoreGames,
            });
            if let Err(e) = frame::write_message(&mut write, &answer).await {
                debug!("cannot answer {addr}: {e}");
            }
        }
    }
    let _ = write.shutdown().await;
}

/// Connects to a DXP server, retrying for up to `patience` while it is not yet listening.
///
/// # Errors
/// The last connection error once `patience` is spent.
pub async fn connect(addr: &str, patience: Duration) -> std::io::Result<TcpStream> {
    let deadline = Instant::now() + patience;
    loop {
        match TcpStream::connect(addr).await {
            Ok(stream) => {
                if let Err(e) = stream.set_nodelay(true) {
                    debug!("cannot set TCP_NODELAY: {e}");
                }
                info!("connected to {addr}");
                return Ok(stream);
            }
            Err(e) if Instant::now() < deadline => {
                debug!("cannot connect to {addr} yet: {e}");
                tokio::time::sleep(Duration::from_millis(200)).await;
            }
            Err(e) => return Err(e),
        }
    }
}

/// Plays one session as a client on `stream`.
///
/// # Errors
/// As [`run_session`].
pub async fn play_client<P: Player + ?Sized>(
    stream: TcpStream,
    cfg: &SessionConfig,
    player: &mut P,
    on_game: &mut dyn FnMut(&GameRecord),
) -> Result<SessionEnd, super::session::SessionError> {
    let peer = stream
        .peer_addr()
        .map_or_else(|_| "?".to_owned(), |a| a.to_string());
    run_session(stream, cfg, player, on_game)
        .instrument(info_span!("dxp", %peer))
        .await
}
