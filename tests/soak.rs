//! Soak and load tests against the real binary, on 127.0.0.1 only, each bounded in count and in
//! time (a watchdog kills the engine and fails the test when a phase hangs).
//!
//! - `kroon dxp` as a server takes 2,000 connections in a row (a tenth of them garbage, truncated
//!   or oversized messages), then 50 at once while a game runs on another connection, then a fresh
//!   game. Every valid exchange gets its exact answer, the running game is not disturbed (legal
//!   moves, on time), the crowd is turned away as `net::serve` documents it (a game request gets
//!   game accept code 3, anything else is closed without an answer), every finished game is
//!   recorded once, and the server's memory and open files stay bounded.
//! - `kroon hub` takes 100,000 random and half-valid lines with `ping` interleaved: every `ping`
//!   is answered by `pong`, every `go` by one `done`, every `init` by `ready` and every `hub` by
//!   `wait`; stdout carries Hub lines only, and a last search still ends in a legal move.
//!
//! The randomness is a seeded xorshift; the seed is printed, and `KROON_SOAK_SEED` replays a run.
//! The figures (counts, times, memory) go to stderr: `cargo test --release -p kroon --test
//! end_to_end -- soak:: --nocapture` shows them.

use std::io::{BufRead, BufReader, ErrorKind, Read, Write};
use std::net::{Shutdown, SocketAddr, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{self, RecvTimeoutError};
use std::sync::{Arc, Barrier, Condvar, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use kroon_protocol::dxp::session::{find_move, to_dxp_move};
use kroon_protocol::dxp::{
    AcceptCode, BackReq, Dxp, DxpColour, DxpMove, DxpPosition, GameAcc, GameReq,
};
use kroon_protocol::hub::{parse, parse_reply, HubCommand, HubReply};
use kroon_rules::{
    has_capture, notation, parse_hub, parse_hub_move, write_fen, write_hub, Game, Position, Variant,
};

const KROON: &str = env!("CARGO_BIN_EXE_kroon");

// ---- shared helpers ----------------------------------------------------------------------------

/// The engine's seeded generator (kroon_learn::rng), with the picks the soaks need.
struct Rng(kroon_learn::rng::Rng);

impl Rng {
    fn new(seed: u64) -> Rng {
        Rng(kroon_learn::rng::Rng::new(seed))
    }

    fn next(&mut self) -> u64 {
        self.0.next_u64()
    }

    /// A number in `0..n` (`n` > 0).
    fn below(&mut self, n: usize) -> usize {
        self.0.below(n as u64) as usize
    }

    fn chance(&mut self, percent: usize) -> bool {
        self.below(100) < percent
    }

    fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len())]
    }

    fn bytes(&mut self, n: usize) -> Vec<u8> {
        (0..n).map(|_| self.next() as u8).collect()
    }
}

/// The seed of this run: `KROON_SOAK_SEED` (decimal or 0x-hex) or a fixed default, so that CI
/// runs the same cases every time.
fn seed() -> u64 {
    let default = 0x6b72_6f6f_6e53_6f6b;
    match std::env::var("KROON_SOAK_SEED") {
        Ok(text) => {
            let text = text.trim();
            let parsed = match text.strip_prefix("0x") {
                Some(hex) => u64::from_str_radix(hex, 16),
                None => text.parse(),
            };
            parsed.unwrap_or_else(|_| panic!("KROON_SOAK_SEED={text} is not a number"))
        }
        Err(_) => default,
    }
}

fn log_path(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("soak-{name}-{}.log", std::process::id()))
}

/// Runs `body` on its own thread and waits at most `limit` for it. On a hang, the process under
/// test is killed (which unblocks the body's reads) and the test fails; a panic in the body is
/// passed on.
fn with_deadline(
    limit: Duration,
    what: &str,
    child: &Arc<Mutex<Child>>,
    body: impl FnOnce() + Send + 'static,
) {
    let (tx, rx) = mpsc::channel::<()>();
    let handle = std::thread::spawn(move || {
        body();
        let _ = tx.send(());
    });
    match rx.recv_timeout(limit) {
        Ok(()) | Err(RecvTimeoutError::Disconnected) => {
            if let Err(panic) = handle.join() {
                std::panic::resume_unwind(panic);
            }
        }
        Err(RecvTimeoutError::Timeout) => {
            let mut child = child.lock().unwrap_or_else(|e| e.into_inner());
            let _ = child.kill();
            let _ = child.wait();
            panic!("{what} did not finish within {limit:?}: the engine was killed");
        }
    }
}

/// Kills the process when the test ends, however it ends.
struct KillOnDrop(Arc<Mutex<Child>>);

impl Drop for KillOnDrop {
    fn drop(&mut self) {
        let mut child = self.0.lock().unwrap_or_else(|e| e.into_inner());
        let _ = child.kill();
        let _ = child.wait();
    }
}

/// Resident memory of a process in KiB (`VmRSS`), where /proc has it.
fn rss_kib(pid: u32) -> Option<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let line = status.lines().find(|l| l.starts_with("VmRSS:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

/// Open file descriptors of a process, where /proc has them.
fn open_files(pid: u32) -> Option<usize> {
    Some(std::fs::read_dir(format!("/proc/{pid}/fd")).ok()?.count())
}

// ---- DXP ---------------------------------------------------------------------------------------

/// The server's name on the wire.
const NAME: &str = "Soak";
/// Kroon's thinking time per move on the server, in seconds.
const MOVE_TIME: &str = "0.02";
/// The slowest acceptable answer to a move: the 0.02 s search, the 0.1 s pause before a first
/// move, and ample room for a loaded two-core CI machine.
const MOVE_DEADLINE: Duration = Duration::from_secs(2);
/// Any single read or write; only a hang reaches it.
const IO_TIMEOUT: Duration = Duration::from_secs(10);
/// Connections in a row, and how many of them arrive at once during a game.
const IN_A_ROW: usize = 2_000;
const CROWD: usize = 50;
/// The crowd arrives within this; after it, none of it may still wait for the game to end.
const CROWD_SETTLED: Duration = Duration::from_secs(2);
/// Moves the game goes on after the crowd has been turned away. With the pause of 0.15 s before
/// each of our moves the game is then about 17 moves old; in trial runs Kroon needed 36 moves or
/// more to win it.
const MOVES_AFTER_CROWD: usize = 5;
/// Every connection of the crowd is closed within this: the 1 s hand-off wait, the 5 s wait for a
/// game request, and room for a loaded machine.
const CROWD_CLOSED: Duration = Duration::from_secs(9);
/// Oversized messages are this long, without a NUL.
const OVERSIZED: usize = 1 << 20;
/// Allowed growth of the server's resident memory over the run, from after the warm-up to the end.
/// The transposition table (8 MiB) is allocated and written when the server starts, so it is in
/// the baseline, and so are the allocator's arenas and the runtime's buffers after the warm-up; a
/// connection's state (buffers, session, a spawned refusal) is a few KiB and freed when it ends.
/// Measured growth is 0.1 to 0.2 MiB; 8 MiB leaves room for fragmentation and still fails a leak
/// of 4 KiB or more per connection (over 2,000 of them).
const RSS_SLACK_KIB: u64 = 8 * 1024;

/// A `kroon dxp` server on a free loopback port; its standard output is collected.
struct Server {
    child: Arc<Mutex<Child>>,
    pid: u32,
    addr: SocketAddr,
    lines: Arc<Mutex<Vec<String>>>,
    log: PathBuf,
}

impl Server {
    fn start() -> Server {
        Server::start_with("dxp", Command::new(KROON))
    }

    /// A server allowed `files` open file descriptors (`ulimit -n` in a shell that then execs
    /// Kroon, so the process is Kroon's).
    fn with_open_files(files: u32) -> Server {
        let mut sh = Command::new("sh");
        sh.args([
            "-c",
            &format!("ulimit -n {files} && exec \"$0\" \"$@\""),
            KROON,
        ]);
        Server::start_with("dxp-files", sh)
    }

    fn start_with(name: &str, mut command: Command) -> Server {
        let log = log_path(name);
        let mut child = command
            .arg("dxp")
            .args(["--listen", "127.0.0.1:0", "--name", NAME])
            .args(["--threads", "1", "--hash", "8", "--move-time", MOVE_TIME])
            .args(["--idle-timeout", "10"])
            .env("KROON_LOG", "info")
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(std::fs::File::create(&log).expect("create the log file"))
            .spawn()
            .expect("start kroon dxp");
        let stdout = child.stdout.take().expect("piped stdout");
        let pid = child.id();
        let lines: Arc<Mutex<Vec<String>>> = Arc::default();
        let sink = Arc::clone(&lines);
        // Read stdout to its end: a full pipe would block the server's game records.
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines().map_while(Result::ok) {
                sink.lock().unwrap().push(line);
            }
        });
        let start = Instant::now();
        let addr = loop {
            let found = lines
                .lock()
                .unwrap()
                .iter()
                .find_map(|l| l.strip_prefix("listening on ").map(str::to_owned));
            if let Some(addr) = found {
                break addr.parse().expect("a socket address");
            }
            assert!(
                start.elapsed() < Duration::from_secs(20),
                "kroon dxp does not listen: {}",
                std::fs::read_to_string(&log).unwrap_or_default()
            );
            std::thread::sleep(Duration::from_millis(20));
        };
        Server {
            child: Arc::new(Mutex::new(child)),
            pid,
            addr,
            lines,
            log,
        }
    }

    fn alive(&self) -> bool {
        matches!(self.child.lock().unwrap().try_wait(), Ok(None))
    }

    fn log_text(&self) -> String {
        std::fs::read_to_string(&self.log).unwrap_or_default()
    }

    /// Game records on stdout so far (`game N: ...`).
    fn records(&self) -> usize {
        let lines = self.lines.lock().unwrap();
        lines.iter().filter(|l| l.starts_with("game ")).count()
    }
}

/// A raw DXP connection.
struct Conn {
    stream: TcpStream,
    buf: Vec<u8>,
}

impl Conn {
    fn open(addr: SocketAddr) -> Result<Conn, String> {
        let stream =
            TcpStream::connect_timeout(&addr, IO_TIMEOUT).map_err(|e| format!("connect: {e}"))?;
        stream.set_read_timeout(Some(IO_TIMEOUT)).unwrap();
        stream.set_write_timeout(Some(IO_TIMEOUT)).unwrap();
        stream.set_nodelay(true).unwrap();
        Ok(Conn {
            stream,
            buf: Vec::new(),
        })
    }

    fn send_raw(&mut self, bytes: &[u8]) -> std::io::Result<()> {
        self.stream.write_all(bytes)
    }

    fn send(&mut self, msg: &Dxp) -> Result<(), String> {
        let mut bytes = msg.to_string().into_bytes();
        bytes.push(0);
        self.send_raw(&bytes)
            .map_err(|e| format!("sending {msg}: {e}"))
    }

    fn send_text(&mut self, text: &str) -> Result<(), String> {
        self.send(&text.parse().expect("a valid DXP message"))
    }

    /// The next message, or `None` once the server has closed (or reset) the connection.
    fn recv(&mut self) -> Result<Option<String>, String> {
        loop {
            if let Some(end) = self.buf.iter().position(|&b| b == 0) {
                let frame: Vec<u8> = self.buf.drain(..=end).collect();
                return Ok(Some(String::from_utf8_lossy(&frame[..end]).into_owned()));
            }
            let mut chunk = [0u8; 4096];
            match self.stream.read(&mut chunk) {
                Ok(0) => return Ok(None),
                Ok(n) => self.buf.extend_from_slice(&chunk[..n]),
                Err(e) if e.kind() == ErrorKind::ConnectionReset => return Ok(None),
                Err(e) if e.kind() == ErrorKind::Interrupted => {}
                Err(e) => return Err(format!("no message from the server: {e}")),
            }
        }
    }

    fn expect(&mut self, prefix: &str) -> Result<String, String> {
        match self.recv()? {
            Some(msg) if msg.starts_with(prefix) => Ok(msg),
            Some(msg) => Err(format!("expected {prefix:?}, got {msg:?}")),
            None => Err(format!("the server closed where {prefix:?} was expected")),
        }
    }

    /// Closes our side and reads what the server still says until it closes too.
    fn finish(mut self) -> Result<Vec<String>, String> {
        let _ = self.stream.shutdown(Shutdown::Write);
        let mut seen = Vec::new();
        while let Some(msg) = self.recv()? {
            seen.push(msg);
            if seen.len() > 64 {
                return Err(format!("the server keeps talking: {:?}", &seen[..8]));
            }
        }
        Ok(seen)
    }

    /// Closes our side; the server must close without another word.
    fn finish_silent(self) -> Result<(), String> {
        match self.finish()? {
            seen if seen.is_empty() => Ok(()),
            seen => Err(format!("unexpected messages before the close: {seen:?}")),
        }
    }
}

fn game_request(kroon: DxpColour, version: u8, start: Option<DxpPosition>) -> Dxp {
    Dxp::GameReq(GameReq {
        version,
        initiator: "Soak peer".into(),
        follower_colour: kroon,
        minutes: 5,
        moves: 0,
        start,
    })
}

/// Sends a game request and returns the accept code of the answer.
fn request(conn: &mut Conn, kroon: DxpColour) -> Result<AcceptCode, String> {
    conn.send(&game_request(kroon, 1, None))?;
    accept_code(&conn.expect("A")?)
}

fn accept_code(text: &str) -> Result<AcceptCode, String> {
    match text.parse::<Dxp>() {
        Ok(Dxp::GameAcc(GameAcc { follower, code })) if follower == NAME => Ok(code),
        _ => Err(format!("not a game accept from {NAME}: {text:?}")),
    }
}

/// Why a game could not be played: the server turned the request down, or anything
/// else went wrong.
#[derive(Debug)]
enum GameError {
    Refused(AcceptCode),
    Failed(String),
}

impl std::fmt::Display for GameError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            GameError::Refused(code) => write!(f, "game refused: {code:?}"),
            GameError::Failed(e) => f.write_str(e),
        }
    }
}

impl From<String> for GameError {
    fn from(e: String) -> GameError {
        GameError::Failed(e)
    }
}

impl From<GameError> for String {
    fn from(e: GameError) -> String {
        e.to_string()
    }
}

fn accepted(code: AcceptCode) -> Result<(), GameError> {
    match code {
        AcceptCode::Accepted => Ok(()),
        other => Err(GameError::Refused(other)),
    }
}

/// Checks Kroon's move against the game and plays it.
fn take_kroon_move(game: &mut Game, text: &str) -> Result<(), String> {
    let m: DxpMove = text.parse().map_err(|e| format!("{text:?}: {e}"))?;
    if m.time() > 1 {
        return Err(format!(
            "{text:?} reports {} s for a {MOVE_TIME} s move",
            m.time()
        ));
    }
    let mv = find_move(game.position(), &m).map_err(|e| format!("illegal move {text:?}: {e}"))?;
    game.play(&mv).map_err(|e| e.to_string())
}

/// Our move: the first legal one that leaves Kroon nothing to capture, or else the first legal
/// one (so that a game lasts long enough to watch). `None` when we have none.
fn our_move(game: &mut Game) -> Option<Dxp> {
    let pos = *game.position();
    let legal = pos.legal_moves();
    let mv = *legal
        .iter()
        .find(|mv| !has_capture(&pos.play(mv)))
        .or_else(|| legal.iter().next())?;
    game.play(&mv).expect("a legal move");
    Some(Dxp::Move(
        to_dxp_move(&mv, Duration::ZERO, Variant::International).expect("a 10x10 move"),
    ))
}

/// Ends a game from our side (no more games) and expects Kroon's answer, then the close.
fn resign(mut conn: Conn) -> Result<(), String> {
    conn.send_text("E11")?;
    let answer = conn.expect("E")?;
    if answer != "E00" {
        return Err(format!("game end answered with {answer:?}"));
    }
    conn.finish_silent()
}

/// What one connection of the series does.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
enum Visit {
    /// Connects and closes.
    Silent,
    /// Game request (Kroon Black), then gone without a word.
    Abandon,
    /// Game request (Kroon Black), then a game end.
    Resign,
    /// Game request (Kroon White), then gone while Kroon thinks.
    AbandonWhileThinking,
    /// Game request (Kroon White), Kroon's move, then a game end.
    KroonFirst,
    /// Chat, stray messages outside a game, a game with a move each and a take-back, a game end.
    Script,
    /// Game requests Kroon must refuse: DXP version 2, and a position with a man on its
    /// crowning row.
    Refused,
    /// Random bytes, NULs included.
    Garbage,
    /// A valid message cut before its NUL, then close.
    Truncated,
    /// 1 MiB without a NUL.
    Oversized,
}

impl Visit {
    fn pick(i: usize, rng: &mut Rng) -> Visit {
        if i.is_multiple_of(10) {
            return *rng.pick(&[Visit::Garbage, Visit::Truncated, Visit::Oversized]);
        }
        match rng.below(100) {
            0..=29 => Visit::Silent,
            30..=49 => Visit::Abandon,
            50..=74 => Visit::Resign,
            75..=76 => Visit::AbandonWhileThinking,
            77..=78 => Visit::KroonFirst,
            79..=82 => Visit::Script,
            _ => Visit::Refused,
        }
    }

    /// Whether the server records a finished game for this visit.
    fn records_a_game(self) -> bool {
        matches!(self, Visit::Resign | Visit::KroonFirst | Visit::Script)
    }
}

fn visit(addr: SocketAddr, kind: Visit, rng: &mut Rng) -> Result<(), String> {
    let mut conn = Conn::open(addr)?;
    let mut game = Game::new(Position::initial(Variant::International));
    match kind {
        Visit::Silent => conn.finish_silent(),
        Visit::Abandon => {
            accepted(request(&mut conn, DxpColour::Black)?)?;
            drop(conn);
            Ok(())
        }
        Visit::Resign => {
            accepted(request(&mut conn, DxpColour::Black)?)?;
            resign(conn)
        }
        Visit::AbandonWhileThinking => {
            accepted(request(&mut conn, DxpColour::White)?)?;
            // Kroon may have sent its move before it saw the close; nothing else.
            match conn.finish()?.as_slice() {
                [] => Ok(()),
                [m] if m.starts_with('M') => Ok(()),
                other => Err(format!("unexpected messages: {other:?}")),
            }
        }
        Visit::KroonFirst => {
            accepted(request(&mut conn, DxpColour::White)?)?;
            take_kroon_move(&mut game, &conn.expect("M")?)?;
            resign(conn)
        }
        Visit::Script => {
            conn.send(&Dxp::Chat("soak test".into()))?;
            conn.send(&Dxp::BackReq(BackReq {
                move_number: 3,
                turn: DxpColour::White,
            }))?;
            let answer = conn.expect("K")?;
            if answer != "K2" {
                return Err(format!("back request outside a game answered {answer:?}"));
            }
            conn.send_text("M0000322800")?;
            let chat = conn.expect("C")?;
            if !chat.contains("no game is running") {
                return Err(format!("stray move answered {chat:?}"));
            }
            // A game end outside a game is an acknowledgement: no answer.
            conn.send_text("E00")?;
            accepted(request(&mut conn, DxpColour::Black)?)?;
            conn.send(&our_move(&mut game).expect("a move"))?;
            take_kroon_move(&mut game, &conn.expect("M")?)?;
            conn.send(&Dxp::BackReq(BackReq {
                move_number: 1,
                turn: DxpColour::White,
            }))?;
            let answer = conn.expect("K")?;
            if answer != "K0" {
                return Err(format!("back request to move 1 answered {answer:?}"));
            }
            game.undo(2);
            conn.send(&our_move(&mut game).expect("a move"))?;
            take_kroon_move(&mut game, &conn.expect("M")?)?;
            resign(conn)
        }
        Visit::Refused => {
            conn.send(&game_request(DxpColour::Black, 2, None))?;
            match accept_code(&conn.expect("A")?)? {
                AcceptCode::UnsupportedVersion => {}
                other => return Err(format!("DXP version 2 answered {other:?}")),
            }
            conn.expect("C")?;
            let crowned: DxpPosition = format!("Ww{}", "e".repeat(49))
                .parse()
                .expect("a DXP position");
            conn.send(&game_request(DxpColour::Black, 1, Some(crowned)))?;
            match accept_code(&conn.expect("A")?)? {
                AcceptCode::Declined => {}
                other => return Err(format!("a man on its crowning row answered {other:?}")),
            }
            conn.expect("C")?;
            conn.finish_silent()
        }
        Visit::Garbage => {
            let len = 1 + rng.below(3000);
            let mut bytes = rng.bytes(len);
            // More NULs than chance gives, so that many short frames arrive too.
            for _ in 0..rng.below(16) {
                let at = rng.below(len);
                bytes[at] = 0;
            }
            // The server may close before it has read everything: a failed write is fine.
            let _ = conn.send_raw(&bytes);
            conn.finish().map(drop)
        }
        Visit::Truncated => {
            let msg = match rng.below(5) {
                0 => game_request(DxpColour::Black, 1, None),
                1 => Dxp::Chat("a chat that never ends".into()),
                2 => "M0012322800".parse().unwrap(),
                3 => "E00".parse().unwrap(),
                _ => Dxp::BackReq(BackReq {
                    move_number: 1,
                    turn: DxpColour::White,
                }),
            };
            let text = msg.to_string();
            let cut = 1 + rng.below(text.len());
            conn.send_raw(&text.as_bytes()[..cut])
                .map_err(|e| format!("sending: {e}"))?;
            // A message without its NUL is never acted on.
            conn.finish_silent()
        }
        Visit::Oversized => {
            let mut bytes = rng.bytes(OVERSIZED);
            for b in &mut bytes {
                if *b == 0 {
                    *b = b'C';
                }
            }
            bytes[0] = b'C';
            let _ = conn.send_raw(&bytes);
            // A refused frame is a reset connection: what arrives before it does not matter.
            let _ = conn.finish();
            Ok(())
        }
    }
}

/// A game played to `moves` moves of Kroon's (or to its end by the rules) with the server as
/// follower; `during` is called after each of Kroon's moves and says whether to go on. Returns
/// the moves Kroon played and its slowest answer.
fn play_game(
    addr: SocketAddr,
    kroon: DxpColour,
    pace: Duration,
    go_on: impl FnMut(usize) -> bool,
) -> Result<(usize, Duration), GameError> {
    let mut conn = Conn::open(addr)?;
    accepted(request(&mut conn, kroon)?)?;
    Ok(play_accepted(conn, kroon, pace, go_on)?)
}

/// The game of [`play_game`] once the server has accepted it on `conn`.
fn play_accepted(
    mut conn: Conn,
    kroon: DxpColour,
    pace: Duration,
    mut go_on: impl FnMut(usize) -> bool,
) -> Result<(usize, Duration), String> {
    let mut game = Game::new(Position::initial(Variant::International));
    let mut asked = Instant::now();
    if kroon == DxpColour::Black {
        conn.send(&our_move(&mut game).expect("a move"))?;
        asked = Instant::now();
    }
    let (mut played, mut slowest) = (0, Duration::ZERO);
    loop {
        let msg = conn
            .recv()?
            .ok_or_else(|| format!("the server closed the game after {played} moves"))?;
        let waited = asked.elapsed();
        if msg.starts_with('E') {
            // Kroon ends the game by the rules at its turn: confirm, and no more games.
            if game.outcome().is_none() {
                return Err(format!("game end {msg:?} in a running game"));
            }
            conn.send_text("E01")?;
            conn.finish_silent()?;
            return Ok((played, slowest));
        }
        if !msg.starts_with('M') {
            return Err(format!("expected a move after {played} moves, got {msg:?}"));
        }
        take_kroon_move(&mut game, &msg)?;
        played += 1;
        slowest = slowest.max(waited);
        if waited > MOVE_DEADLINE {
            return Err(format!(
                "move {played} took {} ms (deadline {MOVE_DEADLINE:?})",
                waited.as_millis()
            ));
        }
        if !go_on(played) {
            resign(conn)?;
            return Ok((played, slowest));
        }
        if game.outcome().is_some() {
            // We are to move and the game is over: the side to move sends the game end.
            resign(conn)?;
            return Ok((played, slowest));
        }
        std::thread::sleep(pace);
        conn.send(&our_move(&mut game).expect("a legal move"))?;
        asked = Instant::now();
    }
}

/// What a connection of the crowd does.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
enum Member {
    /// Sends a game request: refused with game accept code 3, then closed.
    Request,
    /// Connects and says nothing: closed without an answer once the server stops waiting.
    Silent,
    /// Random bytes: closed without an answer.
    Garbage,
    /// 1 MiB without a NUL: closed without an answer.
    Oversized,
}

impl Member {
    fn of(i: usize) -> Member {
        match i % 10 {
            0..=5 => Member::Request,
            6 | 7 => Member::Silent,
            8 => Member::Garbage,
            _ => Member::Oversized,
        }
    }
}

type Arrival = JoinHandle<Result<Duration, String>>;

/// `CROWD` connections at once, as `net::serve` documents them: while a session runs, a newcomer
/// waits at most `HANDOFF_WAIT` (1 s) for it to end, then it is refused: a game request within
/// `REFUSE_WAIT` (5 s) gets game accept code 3, anything else is closed without an answer. Each
/// thread returns its time to the close.
fn crowd(addr: SocketAddr, rng: &mut Rng) -> Vec<(Member, Arrival)> {
    let barrier = Arc::new(Barrier::new(CROWD));
    (0..CROWD)
        .map(|i| {
            let barrier = Arc::clone(&barrier);
            let member = Member::of(i);
            let mut rng = Rng::new(rng.next());
            let arrival = std::thread::spawn(move || {
                let fail = |e: String| format!("crowd {i} ({member:?}): {e}");
                barrier.wait();
                let start = Instant::now();
                let mut conn = Conn::open(addr).map_err(fail)?;
                let rest = match member {
                    Member::Request => {
                        let code = request(&mut conn, DxpColour::White).map_err(fail)?;
                        if code != AcceptCode::NoMoreGames {
                            return Err(fail(format!("answered {code:?}, not a refusal")));
                        }
                        conn.finish().map_err(fail)?
                    }
                    Member::Silent => {
                        // Holds the connection open until the server closes it.
                        let rest = conn.recv().map_err(fail)?;
                        rest.into_iter().collect()
                    }
                    Member::Garbage => {
                        let len = 1 + rng.below(400);
                        let mut bytes = rng.bytes(len);
                        bytes.push(0);
                        let _ = conn.send_raw(&bytes);
                        conn.finish().map_err(fail)?
                    }
                    Member::Oversized => {
                        let _ = conn.send_raw(&vec![b'C'; OVERSIZED]);
                        conn.finish().unwrap_or_default()
                    }
                };
                if !rest.is_empty() {
                    return Err(fail(format!("more than a refusal: {rest:?}")));
                }
                Ok(start.elapsed())
            });
            (member, arrival)
        })
        .collect()
}

#[test]
fn dxp_server_survives_2000_connections_and_a_crowd_during_a_game() {
    let seed = seed();
    eprintln!("soak dxp: seed {seed:#x} (KROON_SOAK_SEED replays it)");
    let server = Server::start();
    let child = Arc::clone(&server.child);
    let _guard = KillOnDrop(Arc::clone(&child));
    with_deadline(
        Duration::from_secs(150),
        "the DXP soak",
        &child,
        move || {
            dxp_soak(&server, seed);
        },
    );
}

fn dxp_soak(server: &Server, seed: u64) {
    let addr = server.addr;
    let mut rng = Rng::new(seed ^ 0xd8b0);
    let mut games = 0;

    // Warm-up: a short game and one connection of each kind, so that the baseline below holds
    // the allocator's arenas and the runtime's buffers, not the first use of them.
    let started = Instant::now();
    play_game(addr, DxpColour::White, Duration::ZERO, |n| n < 3)
        .unwrap_or_else(|e| fail_soak(server, Some(seed), &format!("warm-up game: {e}")));
    games += 1;
    for kind in [
        Visit::Silent,
        Visit::Abandon,
        Visit::Resign,
        Visit::AbandonWhileThinking,
        Visit::KroonFirst,
        Visit::Script,
        Visit::Refused,
        Visit::Garbage,
        Visit::Truncated,
        Visit::Oversized,
    ] {
        visit(addr, kind, &mut rng)
            .unwrap_or_else(|e| fail_soak(server, Some(seed), &format!("warm-up {kind:?}: {e}")));
        games += usize::from(kind.records_a_game());
    }
    let warm_up = started.elapsed();
    std::thread::sleep(Duration::from_millis(300));
    let rss_before = rss_kib(server.pid);
    let files_before = open_files(server.pid);

    // 2,000 connections in a row.
    let t = Instant::now();
    let mut counts = std::collections::BTreeMap::<Visit, usize>::new();
    let mut slowest = (Duration::ZERO, Visit::Silent);
    for i in 0..IN_A_ROW {
        let kind = Visit::pick(i, &mut rng);
        let one = Instant::now();
        visit(addr, kind, &mut rng).unwrap_or_else(|e| {
            fail_soak(
                server,
                Some(seed),
                &format!("connection {i} of {IN_A_ROW} ({kind:?}): {e}"),
            )
        });
        if one.elapsed() > slowest.0 {
            slowest = (one.elapsed(), kind);
        }
        *counts.entry(kind).or_default() += 1;
        games += usize::from(kind.records_a_game());
    }
    let in_a_row = t.elapsed();
    if !server.alive() {
        fail_soak(
            server,
            Some(seed),
            "the server died during the connections in a row",
        );
    }

    // 50 at once while a game runs on another connection. The game goes on until every
    // newcomer has been turned away (none is left waiting for it to end), then a few moves more.
    let t = Instant::now();
    let mut arrived: Option<(Instant, Vec<(Member, Arrival)>)> = None;
    let mut crowd_moves = 0;
    let (played, game_slowest) =
        play_game(addr, DxpColour::White, Duration::from_millis(150), |n| {
            match &arrived {
                // The game has begun: let the crowd in.
                None if n == 1 => arrived = Some((Instant::now(), crowd(addr, &mut rng))),
                None => {}
                Some((since, members))
                    if since.elapsed() > CROWD_SETTLED
                        && members
                            .iter()
                            .filter(|(m, _)| *m == Member::Request)
                            .all(|(_, h)| h.is_finished()) =>
                {
                    return n < crowd_moves + MOVES_AFTER_CROWD
                }
                Some(_) => crowd_moves = n,
            }
            true
        })
        .unwrap_or_else(|e| {
            fail_soak(
                server,
                Some(seed),
                &format!("the game beside the crowd: {e}"),
            )
        });
    games += 1;
    let Some((_, members)) = arrived else {
        fail_soak(
            server,
            Some(seed),
            &format!("the game ended after {played} moves, before the crowd came"),
        );
    };
    if crowd_moves + MOVES_AFTER_CROWD > played {
        fail_soak(
            server,
            Some(seed),
            &format!(
                "the game ended by the rules after {played} moves, while the crowd was at move \
                 {crowd_moves}"
            ),
        );
    }
    let crowd_game_time = t.elapsed();

    // A fresh connection still plays a normal game.
    let (fresh, fresh_slowest) = play_game(addr, DxpColour::Black, Duration::ZERO, |n| n < 10)
        .unwrap_or_else(|e| {
            fail_soak(
                server,
                Some(seed),
                &format!("the game after the crowd: {e}"),
            )
        });
    games += 1;

    // The crowd was refused as documented, and every connection of it closed.
    let mut refusals = std::collections::BTreeMap::<Member, (usize, Duration)>::new();
    for (member, arrival) in members {
        match arrival.join().expect("crowd thread") {
            Ok(d) if d < CROWD_CLOSED => {
                let entry = refusals.entry(member).or_default();
                entry.0 += 1;
                entry.1 = entry.1.max(d);
            }
            Ok(d) => fail_soak(
                server,
                Some(seed),
                &format!("a {member:?} of the crowd was closed after {d:?}"),
            ),
            Err(e) => fail_soak(server, Some(seed), &e),
        }
    }
    let crowd_time = t.elapsed();

    // Every finished game is on stdout, once.
    let deadline = Instant::now() + Duration::from_secs(5);
    while server.records() < games && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(20));
    }
    if server.records() != games {
        fail_soak(
            server,
            Some(seed),
            &format!(
                "{} game records on stdout, {games} games ended",
                server.records()
            ),
        );
    }

    std::thread::sleep(Duration::from_millis(300));
    let rss_after = rss_kib(server.pid);
    let files_after = open_files(server.pid);
    if !server.alive() {
        fail_soak(server, Some(seed), "the server died");
    }
    let log = server.log_text();
    if log.contains("panicked") {
        fail_soak(server, Some(seed), "a panic in the server log");
    }

    let crowd_figures: Vec<String> = refusals
        .iter()
        .map(|(m, (count, slowest))| format!("{count} {m:?} (slowest {} ms)", slowest.as_millis()))
        .collect();
    let kb = |v: Option<u64>| v.map_or_else(|| "?".to_owned(), |k| k.to_string());
    let n = |v: Option<usize>| v.map_or_else(|| "?".to_owned(), |k| k.to_string());
    eprintln!(
        "soak dxp: warm-up {:.1} s; {IN_A_ROW} connections in a row in {:.1} s \
         ({:.2} ms each, slowest {} ms, a {:?}): {counts:?}",
        warm_up.as_secs_f64(),
        in_a_row.as_secs_f64(),
        in_a_row.as_secs_f64() * 1000.0 / IN_A_ROW as f64,
        slowest.0.as_millis(),
        slowest.1
    );
    eprintln!(
        "soak dxp: {CROWD} connections at once turned away: {}; meanwhile a game played \
         {played} moves (slowest answer {} ms) in {:.1} s; then a fresh game played {fresh} \
         moves (slowest {} ms); crowd closed after {:.1} s; {games} game records",
        crowd_figures.join(", "),
        game_slowest.as_millis(),
        crowd_game_time.as_secs_f64(),
        fresh_slowest.as_millis(),
        crowd_time.as_secs_f64()
    );
    eprintln!(
        "soak dxp: VmRSS {} KiB before the connections in a row, {} KiB at the end (bound: + {} \
         KiB); open files {} before, {} after",
        kb(rss_before),
        kb(rss_after),
        RSS_SLACK_KIB,
        n(files_before),
        n(files_after)
    );
    if let (Some(before), Some(after)) = (rss_before, rss_after) {
        if after > before + RSS_SLACK_KIB {
            fail_soak(
                server,
                Some(seed),
                &format!(
                "resident memory grew from {before} KiB to {after} KiB (bound + {RSS_SLACK_KIB})"
            ),
            );
        }
    }
    if let (Some(before), Some(after)) = (files_before, files_after) {
        // The listener and the log are open throughout; every connection is closed again.
        if after > before {
            fail_soak(
                server,
                Some(seed),
                &format!("open files grew from {before} to {after}"),
            );
        }
    }
}

/// CPU time a process has used, in ticks of 10 ms (`utime` + `stime`), where /proc has it.
fn cpu_ticks(pid: u32) -> Option<u64> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    let fields: Vec<&str> = stat.rsplit_once(')')?.1.split_whitespace().collect();
    Some(fields.get(11)?.parse::<u64>().ok()? + fields.get(12)?.parse::<u64>().ok()?)
}

/// Regression: during a game, an accept that failed (out of file descriptors) was retried at once
/// and failed again, in a loop that took a core and wrote a million log lines in three seconds.
/// With 32 open files allowed and 40 connections holding on, accepts fail until some close: the
/// server must wait between tries, and the game must go on.
#[test]
fn dxp_server_backs_off_when_out_of_file_descriptors() {
    let server = Server::with_open_files(32);
    let child = Arc::clone(&server.child);
    let _guard = KillOnDrop(Arc::clone(&child));
    with_deadline(
        Duration::from_secs(60),
        "the file descriptor test",
        &child,
        move || {
            out_of_files(&server);
        },
    );
}

fn out_of_files(server: &Server) {
    let addr = server.addr;
    let failures = || server.log_text().matches("accept failed").count();
    let mut conn = Conn::open(addr).unwrap_or_else(|e| fail_soak(server, None, &e));
    let mut game = Game::new(Position::initial(Variant::International));
    accepted(request(&mut conn, DxpColour::Black).unwrap_or_else(|e| fail_soak(server, None, &e)))
        .unwrap_or_else(|e| fail_soak(server, None, &e.to_string()));
    let exchange = |conn: &mut Conn, game: &mut Game| -> Duration {
        let asked = Instant::now();
        conn.send(&our_move(game).expect("a move"))
            .unwrap_or_else(|e| fail_soak(server, None, &e));
        let msg = conn
            .expect("M")
            .unwrap_or_else(|e| fail_soak(server, None, &e));
        take_kroon_move(game, &msg).unwrap_or_else(|e| fail_soak(server, None, &e));
        asked.elapsed()
    };
    exchange(&mut conn, &mut game);

    // More connections than the server may open files: the kernel queues them, the server's
    // accepts fail until it closes some.
    let held: Vec<TcpStream> = (0..40)
        .map(|_| TcpStream::connect_timeout(&addr, IO_TIMEOUT).expect("a queued connection"))
        .collect();
    let since = Instant::now();
    while failures() == 0 && since.elapsed() < Duration::from_secs(5) {
        std::thread::sleep(Duration::from_millis(20));
    }
    let (before, ticks_before) = (failures(), cpu_ticks(server.pid));
    let window = Instant::now();
    let mut moves = 0;
    let mut slowest = Duration::ZERO;
    while window.elapsed() < Duration::from_secs(2) {
        slowest = slowest.max(exchange(&mut conn, &mut game));
        moves += 1;
        std::thread::sleep(Duration::from_millis(100));
    }
    let seconds = window.elapsed().as_secs_f64();
    let (after, ticks_after) = (failures(), cpu_ticks(server.pid));
    drop(held);
    let ticks = match (ticks_before, ticks_after) {
        (Some(b), Some(a)) => format!("{} ms", (a - b) * 10),
        _ => "?".to_owned(),
    };
    eprintln!(
        "soak dxp: out of file descriptors for {seconds:.1} s: {} failed accepts, {ticks} of CPU, \
         {moves} moves played (slowest answer {} ms)",
        after - before,
        slowest.as_millis()
    );
    if before == 0 {
        fail_soak(
            server,
            None,
            "no accept failed: the limit on open files did not take",
        );
    }
    // One try per `ACCEPT_BACKOFF` (0.1 s), with room to spare.
    let bound = (seconds * 10.0) as usize * 2 + 10;
    if after - before > bound {
        fail_soak(
            server,
            None,
            &format!(
                "{} failed accepts in {seconds:.1} s: the server does not back off (bound {bound})",
                after - before
            ),
        );
    }
    if slowest > MOVE_DEADLINE {
        fail_soak(
            server,
            None,
            &format!("a move took {slowest:?} while accepts failed"),
        );
    }

    // Once the connections are gone, the server serves again.
    resign(conn).unwrap_or_else(|e| fail_soak(server, None, &e));
    // The 40 closed connections are still queued in the kernel. The server takes them one at a
    // time and turns a newcomer away while its few waiting places hold them, so a refusal with
    // "no games" is asked again until they are drained.
    let drained = Instant::now() + Duration::from_secs(10);
    loop {
        match play_game(addr, DxpColour::White, Duration::ZERO, |n| n < 3) {
            Err(GameError::Refused(AcceptCode::NoMoreGames)) if Instant::now() < drained => {
                std::thread::sleep(Duration::from_millis(100));
            }
            Err(e) => fail_soak(server, None, &format!("the game after: {e}")),
            Ok(_) => break,
        }
    }
    if !server.alive() || server.log_text().contains("panicked") {
        fail_soak(server, None, "the server did not survive");
    }
}

/// Regression: the server wrote its game records to standard output on the runtime's thread, so a
/// pipe that nobody read filled up after some 750 games, and the next write blocked every
/// connection. With standard output never read, 1,000 short games must all be played (the queue
/// of 256 lines and the pipe fill up, and the lines after them are dropped with a warning).
#[test]
fn dxp_server_does_not_wait_for_its_standard_output() {
    let log = log_path("dxp-unread");
    let mut child = Command::new(KROON)
        .arg("dxp")
        .args(["--listen", "127.0.0.1:0", "--name", NAME])
        .args(["--threads", "1", "--hash", "8", "--move-time", MOVE_TIME])
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(std::fs::File::create(&log).expect("create the log file"))
        .spawn()
        .expect("start kroon dxp");
    let mut stdout = BufReader::new(child.stdout.take().expect("piped stdout"));
    let child = Arc::new(Mutex::new(child));
    let _guard = KillOnDrop(Arc::clone(&child));
    with_deadline(
        Duration::from_secs(60),
        "the unread output test",
        &child,
        move || {
            let mut line = String::new();
            stdout.read_line(&mut line).expect("the listening line");
            let addr: SocketAddr = line
                .trim()
                .trim_start_matches("listening on ")
                .parse()
                .expect("a socket address");
            // Kept open and never read from here on.
            let _unread = stdout;
            let long_name = format!("{:-<32}", "Soak peer");
            let t = Instant::now();
            for i in 0..1_000 {
                let game = || -> Result<(), String> {
                    let mut conn = Conn::open(addr)?;
                    conn.send(&Dxp::GameReq(GameReq {
                        version: 1,
                        initiator: long_name.clone(),
                        follower_colour: DxpColour::Black,
                        minutes: 5,
                        moves: 0,
                        start: None,
                    }))?;
                    accepted(accept_code(&conn.expect("A")?)?)?;
                    resign(conn)
                };
                if let Err(e) = game() {
                    panic!(
                        "game {i} with standard output unread: {e}\n{}",
                        tail(&std::fs::read_to_string(&log).unwrap_or_default(), 20)
                    );
                }
            }
            let text = std::fs::read_to_string(&log).unwrap_or_default();
            let dropped = text.matches("standard output is not being read").count();
            eprintln!(
            "soak dxp: 1000 games with standard output unread in {:.1} s; {dropped} record lines \
             dropped",
            t.elapsed().as_secs_f64()
        );
            assert!(dropped > 0, "the queue never filled: the test did not test");
            assert!(!text.contains("panicked"), "{}", tail(&text, 20));
        },
    );
}

fn fail_soak(server: &Server, seed: Option<u64>, what: &str) -> ! {
    let seed = seed.map_or_else(String::new, |s| format!(" (seed {s:#x})"));
    panic!(
        "{what}{seed}\n--- server log (tail) ---\n{}",
        tail(&server.log_text(), 40)
    )
}

fn tail(text: &str, lines: usize) -> String {
    let all: Vec<&str> = text.lines().collect();
    all[all.len().saturating_sub(lines)..].join("\n")
}

// ---- Hub ---------------------------------------------------------------------------------------

const START: &str = "Wbbbbbbbbbbbbbbbbbbbbeeeeeeeeeewwwwwwwwwwwwwwwwwwww";
/// Random and half-valid lines sent (the pings come on top).
const HUB_LINES: usize = 100_000;
/// A `ping` after every this many lines.
const PING_EVERY: usize = 50;
/// Pings sent ahead of the pongs received at most: the input never runs far ahead.
const PING_WINDOW: usize = 32;
/// Longest wait for any answer; only a hang reaches it.
const HUB_PATIENCE: Duration = Duration::from_secs(20);

/// What the reader thread has seen on stdout.
#[derive(Default, Debug)]
struct Seen {
    pong: usize,
    done: usize,
    ready: usize,
    wait: usize,
    error: usize,
    info: usize,
    lines: usize,
    last_done: Option<String>,
    /// Lines that are not Hub replies (the first few).
    bad: Vec<String>,
    closed: bool,
}

type Shared = Arc<(Mutex<Seen>, Condvar)>;

/// Waits until `ready` holds for what was seen, or fails after `limit`.
fn wait_for(shared: &Shared, limit: Duration, what: &str, ready: impl Fn(&Seen) -> bool) {
    let (lock, cv) = &**shared;
    let deadline = Instant::now() + limit;
    let mut seen = lock.lock().unwrap();
    while !ready(&seen) {
        let left = deadline.saturating_duration_since(Instant::now());
        assert!(
            !left.is_zero() && !seen.closed,
            "kroon hub: {what} did not come within {limit:?}; seen {seen:?}"
        );
        seen = cv.wait_timeout(seen, left).unwrap().0;
    }
}

/// Reads stdout to its end, checking and counting every line.
fn read_hub(stdout: impl Read, shared: &Shared) {
    let mut reader = BufReader::new(stdout);
    let mut buf = Vec::new();
    let (lock, cv) = &**shared;
    loop {
        buf.clear();
        let n = reader.read_until(b'\n', &mut buf).unwrap_or(0);
        let mut seen = lock.lock().unwrap();
        if n == 0 {
            seen.closed = true;
            cv.notify_all();
            return;
        }
        seen.lines += 1;
        let text = std::str::from_utf8(&buf)
            .ok()
            .and_then(|t| t.strip_suffix('\n'));
        match text.map(|t| (t, parse_reply(t))) {
            Some((_, Ok(HubReply::Pong))) => seen.pong += 1,
            Some((t, Ok(HubReply::Done { .. }))) => {
                seen.done += 1;
                seen.last_done = Some(t.to_owned());
            }
            Some((_, Ok(HubReply::Ready))) => seen.ready += 1,
            Some((_, Ok(HubReply::Wait))) => seen.wait += 1,
            Some((_, Ok(HubReply::Error(_)))) => seen.error += 1,
            Some((_, Ok(HubReply::Info(_)))) => seen.info += 1,
            Some((_, Ok(HubReply::Id { .. } | HubReply::Param { .. }))) => {}
            _ => {
                if seen.bad.len() < 10 {
                    seen.bad.push(String::from_utf8_lossy(&buf).into_owned());
                }
            }
        }
        cv.notify_all();
    }
}

/// Valid positions for `pos`: a start (Hub text or PDN FEN) and the moves played from it, taken
/// from random games.
fn random_games(rng: &mut Rng, n: usize) -> Vec<HubCommand> {
    (0..n)
        .map(|_| {
            let mut pos = Position::initial(Variant::International);
            let mut positions = vec![pos];
            let mut texts = Vec::new();
            for _ in 0..rng.below(40) {
                let legal = pos.legal_moves();
                if legal.is_empty() {
                    break;
                }
                let mv = legal[rng.below(legal.len())];
                texts.push(notation::hub(&mv, Variant::International));
                pos = pos.play(&mv);
                positions.push(pos);
            }
            let cut = rng.below(positions.len());
            let start = &positions[cut];
            HubCommand::Pos {
                pos: Some(if rng.chance(30) {
                    write_fen(start)
                } else {
                    write_hub(start)
                }),
                moves: texts[cut..].to_vec(),
            }
        })
        .collect()
}

/// Makes the fuzz lines.
struct HubFuzz {
    rng: Rng,
    games: Vec<HubCommand>,
}

const JUNK: &[&str] = &[
    "",
    "-1",
    "0",
    "abc",
    "1e999",
    "NaN",
    "inf",
    "-inf",
    "0x10",
    "99999999999999999999999",
    "3.5",
    "\"2\"",
    "\"",
    "=",
    "1 2",
    "\"unterminated",
    "\u{e9}t\u{e9}",
    "\u{1f600}",
    "W",
    "\t",
];

const KEYS: &[&str] = &[
    "depth",
    "nodes",
    "move-time",
    "time",
    "moves",
    "inc",
    "infinite",
    "think",
    "ponder",
    "analyze",
    "pos",
    "name",
    "value",
    "x",
    "",
];

const COMMANDS: &[&str] = &[
    "hub",
    "init",
    "new-game",
    "ping",
    "stop",
    "ponder-hit",
    "set-param",
    "pos",
    "level",
    "go",
];

impl HubFuzz {
    fn junk(&mut self) -> String {
        if self.rng.chance(30) {
            let len = self.rng.below(12);
            (0..len)
                .map(|_| char::from(b' ' + self.rng.below(95) as u8))
                .collect()
        } else {
            (*self.rng.pick(JUNK)).to_owned()
        }
    }

    fn args(&mut self) -> String {
        let mut line = String::new();
        for _ in 0..self.rng.below(5) {
            let key = *self.rng.pick(KEYS);
            line.push(' ');
            line.push_str(key);
            if self.rng.chance(70) {
                line.push('=');
                line.push_str(&self.junk());
            }
        }
        line
    }

    fn valid_pos(&mut self) -> String {
        self.rng.pick(&self.games).to_string()
    }

    /// A position text with one thing wrong (or, by chance, nothing).
    fn wrong_position(&mut self) -> String {
        let base = match self.rng.pick(&self.games) {
            HubCommand::Pos { pos: Some(pos), .. } => pos.clone(),
            _ => START.to_owned(),
        };
        let mut chars: Vec<char> = base.chars().collect();
        match self.rng.below(6) {
            0 => {
                let at = self.rng.below(chars.len());
                chars[at] = char::from(b'!' + self.rng.below(94) as u8);
            }
            1 => {
                let at = self.rng.below(chars.len());
                chars.remove(at);
            }
            2 => {
                let at = self.rng.below(chars.len());
                let c = chars[at];
                chars.insert(at, c);
            }
            3 => chars.truncate(self.rng.below(chars.len())),
            4 => chars[0] = *self.rng.pick(&['X', 'w', 'b', ':', '0']),
            _ => {
                return (*self.rng.pick(&[
                    "W:W31-55:B1-20",
                    "W:W31-50:B1-20:K",
                    "B:W:B",
                    "W:WK0:B1",
                    "W:W51:B1",
                    "W:W1,1:B2",
                    "W:W31-50:B25-45",
                    "[FEN \"W:W31-50:B1-20\"",
                    "W::",
                    ":",
                ]))
                .to_owned()
            }
        }
        chars.into_iter().collect()
    }

    fn line(&mut self) -> Vec<u8> {
        let r = self.rng.below(100);
        let text = match r {
            // Random bytes (no line break: that would make two lines).
            0..=14 => {
                let len = self.rng.below(200);
                let mut bytes = self.rng.bytes(len);
                for b in &mut bytes {
                    if *b == b'\n' {
                        *b = b' ';
                    }
                }
                return bytes;
            }
            // Known commands with bad arguments.
            15..=39 => format!("{}{}", self.rng.pick(COMMANDS), self.args()),
            // Truncated pos lines.
            40..=47 => {
                let line = self.valid_pos();
                let cut = self.rng.below(line.len());
                line[..cut].to_owned()
            }
            // Wrong positions.
            48..=57 => {
                let pos = self.wrong_position();
                HubCommand::Pos {
                    pos: Some(pos),
                    moves: Vec::new(),
                }
                .to_string()
            }
            // Unknown parameters and commands.
            58..=62 => format!(
                "set-param name={} value={}",
                self.rng
                    .pick(&["contempt", "book", "x", "Threads", "hash-size", "\"\""]),
                self.junk()
            ),
            63..=67 => format!(
                "{}{}",
                self.rng
                    .pick(&["uci", "isready", "position", "bestmove", "xyzzy", "Go", "PING"]),
                self.args()
            ),
            // `go` with bad options (a `stop` follows).
            68..=69 => format!(
                "go{}",
                self.rng.pick(&[
                    " think=1",
                    " ponder analyze",
                    " depth=3",
                    " \"think\"",
                    " =",
                    " bogus",
                    " think extra=\"",
                ])
            ),
            // Valid commands, with searches kept short.
            70..=79 => self.valid_pos(),
            80..=85 => match self.rng.below(6) {
                0 => format!("level depth={}", 1 + self.rng.below(4)),
                1 => format!("level nodes={}", 1 + self.rng.below(5000)),
                2 => format!("level move-time=0.00{}", self.rng.below(10)),
                3 => "level time=0.05 inc=0.01".to_owned(),
                4 => "level moves=40 time=0.1".to_owned(),
                _ => "level infinite".to_owned(),
            },
            86..=89 => (*self
                .rng
                .pick(&["go think", "go ponder", "go analyze", "go"]))
            .to_owned(),
            90..=93 => (*self.rng.pick(&["stop", "ponder-hit"])).to_owned(),
            94 => (*self.rng.pick(&["new-game", "init", "hub"])).to_owned(),
            95..=97 => match self.rng.below(5) {
                0 => format!(
                    "set-param name=variant value={}",
                    self.rng.pick(&Variant::ALL).hub_name()
                ),
                1 => format!("set-param name=threads value={}", 1 + self.rng.below(2)),
                2 => format!("set-param name=hash value={}", 1 + self.rng.below(4)),
                3 => format!(
                    "set-param name=ponder value={}",
                    self.rng.pick(&["true", "false"])
                ),
                _ => format!(
                    "set-param name=eval value={}",
                    self.rng.pick(&["learned", "hand"])
                ),
            },
            // Now and then a very long line.
            98 if self.rng.chance(5) => "x".repeat(100_000),
            _ => "ping".to_owned(),
        };
        text.into_bytes()
    }
}

/// How the engine will read a line: lossy UTF-8 without its line ending, as `kroon hub` does.
fn as_read(bytes: &[u8]) -> String {
    let mut text = String::from_utf8_lossy(bytes).into_owned();
    while text.ends_with('\r') {
        text.pop();
    }
    text
}

/// Lines the fuzz must not send: `quit` ends the session, and large `threads` or `hash` values
/// only make the run slow (or, for a huge table, take the machine's memory).
fn harmless(cmd: &Result<HubCommand, kroon_protocol::hub::HubError>) -> bool {
    let too_big = |value: &str, max: usize| value.trim().parse::<usize>().is_ok_and(|n| n > max);
    match cmd {
        Ok(HubCommand::Quit) => false,
        Ok(HubCommand::SetParam { name, value }) if name == "hash" => !too_big(value, 4),
        Ok(HubCommand::SetParam { name, value }) if name == "threads" => !too_big(value, 2),
        _ => true,
    }
}

struct HubIn {
    stdin: ChildStdin,
    sent: usize,
}

impl HubIn {
    fn send(&mut self, line: &[u8]) {
        self.stdin
            .write_all(line)
            .and_then(|()| self.stdin.write_all(b"\n"))
            .unwrap_or_else(|e| panic!("kroon hub stopped reading after {} lines: {e}", self.sent));
        self.sent += 1;
    }
}

#[test]
fn hub_answers_every_ping_through_100000_random_and_half_valid_lines() {
    let seed = seed();
    eprintln!("soak hub: seed {seed:#x} (KROON_SOAK_SEED replays it)");
    let log = log_path("hub");
    let mut child = Command::new(KROON)
        .arg("hub")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(std::fs::File::create(&log).expect("create the log file"))
        .spawn()
        .expect("start kroon hub");
    let stdin = child.stdin.take().expect("piped stdin");
    let stdout = child.stdout.take().expect("piped stdout");
    let child = Arc::new(Mutex::new(child));
    let _guard = KillOnDrop(Arc::clone(&child));
    let shared: Shared = Arc::default();
    let reader = Arc::clone(&shared);
    std::thread::spawn(move || read_hub(stdout, &reader));
    let exit = Arc::clone(&child);
    with_deadline(
        Duration::from_secs(150),
        "the Hub soak",
        &child,
        move || {
            hub_soak(HubIn { stdin, sent: 0 }, &shared, &exit, seed, &log);
        },
    );
}

fn hub_soak(mut input: HubIn, shared: &Shared, child: &Arc<Mutex<Child>>, seed: u64, log: &Path) {
    // A small table, so that `new-game` and `init` stay cheap.
    input.send(b"hub");
    wait_for(shared, HUB_PATIENCE, "wait", |s| s.wait == 1);
    input.send(b"set-param name=hash value=1");
    input.send(b"init");
    wait_for(shared, HUB_PATIENCE, "ready", |s| s.ready == 1);

    let mut rng = Rng::new(seed ^ 0x4ab);
    let games = random_games(&mut rng, 64);
    let mut fuzz = HubFuzz { rng, games };
    let (mut pings, mut gos, mut inits, mut hubs) = (0usize, 0usize, 1usize, 1usize);
    let mut stop_in: Option<usize> = None;
    let mut skipped = 0;
    let t = Instant::now();
    for i in 0..HUB_LINES {
        let line = match stop_in {
            Some(0) => b"stop".to_vec(),
            _ => loop {
                let line = fuzz.line();
                if harmless(&parse(&as_read(&line))) {
                    break line;
                }
                skipped += 1;
            },
        };
        stop_in = stop_in.and_then(|n| n.checked_sub(1));
        match parse(&as_read(&line)) {
            Ok(HubCommand::Go(_)) => {
                gos += 1;
                // Every search is stopped within a few lines.
                stop_in = stop_in.or(Some(fuzz.rng.below(4)));
            }
            Ok(HubCommand::Ping) => pings += 1,
            Ok(HubCommand::Init) => inits += 1,
            Ok(HubCommand::Hub) => hubs += 1,
            _ => {}
        }
        input.send(&line);
        if i % PING_EVERY == PING_EVERY - 1 {
            input.send(b"ping");
            pings += 1;
            let behind = pings.saturating_sub(PING_WINDOW);
            wait_for(shared, HUB_PATIENCE, &format!("pong {behind}"), |s| {
                s.pong >= behind
            });
        }
    }
    input.send(b"stop");
    let fuzz_time = t.elapsed();

    // Everything asked for was answered: every ping, every go, every init and hub.
    input.send(b"ping");
    pings += 1;
    wait_for(shared, HUB_PATIENCE, "the last pong", |s| {
        s.pong == pings && s.done == gos
    });
    {
        let s = shared.0.lock().unwrap();
        assert_eq!(s.ready, inits, "one ready per init");
        assert_eq!(s.wait, hubs, "one wait per hub");
    }

    // A last search ends in a legal move.
    input.send(b"set-param name=variant value=normal");
    input.send(format!("pos pos={START}").as_bytes());
    input.send(b"level move-time=0.1");
    let search = Instant::now();
    input.send(b"go think");
    wait_for(shared, HUB_PATIENCE, "the last done", |s| s.done == gos + 1);
    let search_time = search.elapsed();
    let done = shared.0.lock().unwrap().last_done.clone().unwrap();
    let start = parse_hub(START, Variant::International).unwrap();
    let Ok(HubReply::Done { mv: Some(text), .. }) = parse_reply(&done) else {
        panic!("the last search gave no move: {done}");
    };
    let mv = parse_hub_move(&start, &text).unwrap_or_else(|e| panic!("{done}: {e}"));
    assert_eq!(
        notation::hub(&mv, Variant::International),
        text,
        "long form"
    );
    assert!(
        search_time < Duration::from_secs(3),
        "a 0.1 s search took {search_time:?}"
    );
    input.send(b"ping");
    wait_for(shared, HUB_PATIENCE, "the pong after the search", |s| {
        s.pong == pings + 1
    });

    // End of input: the engine exits, cleanly.
    drop(input);
    let deadline = Instant::now() + Duration::from_secs(5);
    let status = loop {
        if let Some(status) = child.lock().unwrap().try_wait().unwrap() {
            break status;
        }
        assert!(
            Instant::now() < deadline,
            "kroon hub did not exit at the end of its input"
        );
        std::thread::sleep(Duration::from_millis(20));
    };
    let stderr = std::fs::read_to_string(log).unwrap_or_default();
    assert!(
        status.success(),
        "kroon hub exited with {status}\n{}",
        tail(&stderr, 40)
    );
    assert!(!stderr.contains("panicked"), "{}", tail(&stderr, 40));
    let s = shared.0.lock().unwrap();
    assert!(s.bad.is_empty(), "not Hub replies on stdout: {:?}", s.bad);
    eprintln!(
        "soak hub: {HUB_LINES} lines ({skipped} drawn and not sent: quit, or large threads/hash) \
         and {pings} pings in {:.1} s; {} pongs, {gos} go and {} done, {inits} init, {hubs} hub; \
         {} stdout lines ({} error, {} info), none outside the protocol; last search {} ms",
        fuzz_time.as_secs_f64(),
        s.pong,
        s.done,
        s.lines,
        s.error,
        s.info,
        search_time.as_millis()
    );
}
