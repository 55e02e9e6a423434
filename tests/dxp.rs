//! `kroon dxp` end to end over 127.0.0.1: two Kroon processes play a match; a scripted raw-socket
//! peer sends bad input, a back request and a second connection to a running server, which must
//! survive all of it; pydraughts' DXPEngine drives a Kroon server through whole games.

use crate::support;
use support::material::gives_away;
use support::pydraughts;

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use kroon_protocol::dxp::session::{find_move, to_dxp_move, to_dxp_position};
use kroon_protocol::dxp::{BackReq, Dxp, DxpColour, DxpMove, GameReq};
use kroon_rules::{parse_fen, parse_move, DrawReason, EndgameRule, Game, Position, Variant};
use kroon_search::{Engine, Limits, SearchRequest};

const KROON: &str = env!("CARGO_BIN_EXE_kroon");

fn log_path(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("dxp-{name}-{}.log", std::process::id()))
}

/// A `kroon dxp` process; killed when dropped. Its standard output is collected line by line.
struct Kroon {
    child: Child,
    lines: Arc<Mutex<Vec<String>>>,
    log: PathBuf,
    /// The thread reading standard output; it ends once the process has closed it.
    reader: Option<std::thread::JoinHandle<()>>,
}

impl Kroon {
    fn spawn(name: &str, args: &[&str]) -> Kroon {
        let log = log_path(name);
        let child = Command::new(KROON)
            .arg("dxp")
            .args(["--threads", "1", "--hash", "8"])
            .args(args)
            .env("KROON_LOG", "info")
            .stdout(Stdio::piped())
            .stderr(std::fs::File::create(&log).unwrap())
            .spawn()
            .expect("start kroon dxp");
        let mut kroon = Kroon {
            child,
            lines: Arc::default(),
            log,
            reader: None,
        };
        let stdout = kroon.child.stdout.take().unwrap();
        let lines = Arc::clone(&kroon.lines);
        kroon.reader = Some(std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines().map_while(Result::ok) {
                lines.lock().unwrap().push(line);
            }
        }));
        kroon
    }

    /// A follower server on a free port; returns it and its address.
    fn server(name: &str, args: &[&str]) -> (Kroon, String) {
        let mut all = vec!["--listen", "127.0.0.1:0", "--name", name];
        all.extend_from_slice(args);
        let kroon = Kroon::spawn(name, &all);
        let line = kroon.wait_line("listening on ", Duration::from_secs(20));
        let addr = line.trim_start_matches("listening on ").to_owned();
        (kroon, addr)
    }

    fn lines(&self) -> Vec<String> {
        self.lines.lock().unwrap().clone()
    }

    fn wait_line(&self, prefix: &str, limit: Duration) -> String {
        let start = Instant::now();
        loop {
            if let Some(l) = self.lines().into_iter().find(|l| l.starts_with(prefix)) {
                return l;
            }
            assert!(
                start.elapsed() < limit,
                "no `{prefix}` line from kroon within {limit:?}; output {:?}\n{}",
                self.lines(),
                self.log_text()
            );
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    fn log_text(&self) -> String {
        std::fs::read_to_string(&self.log).unwrap_or_default()
    }

    /// Waits until the log holds `text` (written by another thread of the process, at a time of
    /// its own); fails after `limit`, a bound for a hang only.
    fn wait_log(&self, text: &str, limit: Duration) -> String {
        let start = Instant::now();
        loop {
            let log = self.log_text();
            if log.contains(text) {
                return log;
            }
            assert!(
                start.elapsed() < limit,
                "no `{text}` in the log within {limit:?}:\n{log}"
            );
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// Waits for the process to end, and for its last lines to be read; kills it and fails after
    /// `limit`.
    fn wait(&mut self, limit: Duration) -> std::process::ExitStatus {
        let start = Instant::now();
        loop {
            if let Some(status) = self.child.try_wait().unwrap() {
                // The process has exited, but the reader may not have seen its last lines yet.
                if let Some(reader) = self.reader.take() {
                    let _ = reader.join();
                }
                return status;
            }
            if start.elapsed() > limit {
                let _ = self.child.kill();
                panic!(
                    "kroon did not finish within {limit:?}; output {:?}\n{}",
                    self.lines(),
                    self.log_text()
                );
            }
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    fn alive(&mut self) -> bool {
        self.child.try_wait().unwrap().is_none()
    }
}

impl Drop for Kroon {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A peer speaking raw DXP over a socket, with the game as it sees it.
struct Peer {
    stream: TcpStream,
    buf: Vec<u8>,
    game: Game,
}

impl Peer {
    fn connect(addr: &str) -> Peer {
        let stream = TcpStream::connect(addr).expect("connect to kroon");
        stream
            .set_read_timeout(Some(Duration::from_secs(15)))
            .unwrap();
        Peer {
            stream,
            buf: Vec::new(),
            game: Game::new(Position::initial(Variant::International)),
        }
    }

    fn send_raw(&mut self, bytes: &[u8]) {
        self.stream.write_all(bytes).unwrap();
    }

    fn send(&mut self, msg: &Dxp) {
        let mut bytes = msg.to_string().into_bytes();
        bytes.push(0);
        self.send_raw(&bytes);
    }

    fn send_text(&mut self, text: &str) {
        self.send(&text.parse().unwrap());
    }

    /// The next message, or `None` once Kroon has closed the connection.
    fn recv(&mut self) -> Option<String> {
        loop {
            if let Some(end) = self.buf.iter().position(|&b| b == 0) {
                let frame: Vec<u8> = self.buf.drain(..=end).collect();
                return Some(String::from_utf8_lossy(&frame[..end]).into_owned());
            }
            let mut chunk = [0u8; 512];
            match self.stream.read(&mut chunk) {
                Ok(0) => return None,
                Ok(n) => self.buf.extend_from_slice(&chunk[..n]),
                Err(e) if e.kind() == std::io::ErrorKind::ConnectionReset => return None,
                Err(e) => panic!("no message from kroon: {e}"),
            }
        }
    }

    fn expect_any(&mut self) -> String {
        self.recv().expect("kroon closed the connection")
    }

    fn expect(&mut self, prefix: &str) -> String {
        let msg = self.recv().expect("kroon closed the connection");
        assert!(msg.starts_with(prefix), "expected {prefix:?}, got {msg:?}");
        msg
    }

    /// Reads the messages until Kroon closes; fails after a limit.
    fn expect_close(&mut self) -> Vec<String> {
        let mut seen = Vec::new();
        while let Some(msg) = self.recv() {
            seen.push(msg);
            assert!(seen.len() < 10, "kroon keeps talking: {seen:?}");
        }
        seen
    }

    fn request(&mut self, kroon: DxpColour) {
        self.game = Game::new(Position::initial(Variant::International));
        self.send(&Dxp::GameReq(GameReq {
            version: 1,
            initiator: "Raw peer".into(),
            follower_colour: kroon,
            minutes: 5,
            moves: 0,
            start: None,
        }));
        assert_eq!(self.expect("A"), format!("A{:<32}0", "Server"));
    }

    fn play(&mut self, text: &str) {
        let mv = parse_move(self.game.position(), text).unwrap();
        let m = to_dxp_move(&mv, Duration::from_secs(1), Variant::International).unwrap();
        self.send(&Dxp::Move(m));
        self.game.play(&mv).unwrap();
    }

    fn expect_move(&mut self) {
        let text = self.expect("M");
        let m: DxpMove = text.parse().unwrap();
        let mv = find_move(self.game.position(), &m)
            .unwrap_or_else(|e| panic!("kroon's move {text} is illegal: {e}"));
        self.game.play(&mv).unwrap();
    }
}

#[test]
fn two_kroons_play_a_match() {
    let (mut server, addr) = Kroon::server("Follower", &["--move-time", "0.05"]);
    let pdn = log_path("match").with_extension("pdn");
    let _ = std::fs::remove_file(&pdn);
    let mut client = Kroon::spawn(
        "initiator",
        &[
            "--connect",
            &addr,
            "--name",
            "Initiator",
            "--initiator",
            "--games",
            "2",
            "--time",
            "1",
            "--moves",
            "25",
            "--move-time",
            "0.05",
            "--pdn",
            pdn.to_str().unwrap(),
        ],
    );
    let status = client.wait(Duration::from_secs(120));
    let out = client.lines();
    assert!(status.success(), "{out:?}\n{}", client.log_text());
    let score = out
        .iter()
        .find(|l| l.starts_with("match "))
        .unwrap_or_else(|| panic!("no match line in {out:?}\n{}", client.log_text()));
    assert!(
        score.starts_with("match Initiator - Follower: ") && score.contains(" in 2 games "),
        "{score}"
    );
    let games: Vec<&String> = out.iter().filter(|l| l.starts_with("game ")).collect();
    assert_eq!(games.len(), 2, "{out:?}");
    assert!(
        games[0].starts_with("game 1: Initiator - Follower "),
        "{}",
        games[0]
    );
    assert!(
        games[1].starts_with("game 2: Follower - Initiator "),
        "{}",
        games[1]
    );
    let text = std::fs::read_to_string(&pdn).unwrap();
    assert_eq!(text.matches("[Event \"DXP match\"]").count(), 2, "{text}");
    assert!(
        text.contains("[White \"Initiator\"]\n[Black \"Follower\"]"),
        "{text}"
    );
    assert!(
        text.contains("[White \"Follower\"]\n[Black \"Initiator\"]"),
        "{text}"
    );
    assert!(text.contains("[TimeControl \"25/60\"]"), "{text}");
    // The follower saw both games end and keeps listening.
    server.wait_line("game 2:", Duration::from_secs(10));
    assert!(server.alive());
}

#[test]
fn server_survives_bad_peers() {
    let (mut server, addr) =
        Kroon::server("Server", &["--move-time", "0.05", "--idle-timeout", "2"]);

    // A header that is no DXP message: a chat says so, the connection stays usable.
    let mut peer = Peer::connect(&addr);
    peer.send_raw(b"Xhello\0");
    assert!(peer.expect("C").contains("unknown message header"));
    peer.send_raw(b"C\xff\xfe\0");
    assert!(peer.expect("C").contains("non-ASCII"));
    drop(peer);

    // 600 bytes without a NUL: Kroon closes the connection.
    let mut peer = Peer::connect(&addr);
    peer.send_raw(&[b'C'; 600]);
    let seen = peer.expect_close();
    assert!(
        seen.iter().any(|m| m.contains("longer than 512")),
        "{seen:?}"
    );

    // An illegal move mid-game: a chat saying why and a game end.
    let mut peer = Peer::connect(&addr);
    peer.request(DxpColour::Black);
    peer.send_text("M0000322900");
    assert!(peer.expect("C").contains("illegal move 32-29"));
    assert_eq!(peer.expect("E"), "E00");
    peer.send_text("E00");
    drop(peer);

    // A back request, and a second connection while that game runs.
    let mut peer = Peer::connect(&addr);
    peer.request(DxpColour::Black);
    peer.play("32-28");
    peer.expect_move();
    let mut intruder = Peer::connect(&addr);
    intruder.send(&Dxp::GameReq(GameReq {
        version: 1,
        initiator: "Intruder".into(),
        follower_colour: DxpColour::White,
        minutes: 5,
        moves: 0,
        start: None,
    }));
    assert_eq!(intruder.expect("A"), format!("A{:<32}3", "Server"));
    assert!(intruder.expect_close().is_empty());
    peer.send(&Dxp::BackReq(BackReq {
        move_number: 1,
        turn: DxpColour::White,
    }));
    assert_eq!(peer.expect("K"), "K0");
    peer.game.undo(2);
    peer.play("33-28");
    peer.expect_move();
    peer.send_text("E01");
    assert_eq!(peer.expect("E"), "E00");
    assert!(peer.expect_close().is_empty());

    // Gone in the middle of a game, while Kroon thinks.
    let mut peer = Peer::connect(&addr);
    peer.request(DxpColour::White);
    drop(peer);

    // Silent: closed after the idle timeout.
    let mut peer = Peer::connect(&addr);
    let start = Instant::now();
    assert!(peer.expect_close().is_empty());
    assert!(start.elapsed() < Duration::from_secs(10));

    // After all that, a full game request is accepted and played.
    let mut peer = Peer::connect(&addr);
    peer.request(DxpColour::White);
    peer.expect_move();
    peer.send_text("E01");
    assert_eq!(peer.expect("E"), "E00");
    assert!(server.alive());

    let log = server.log_text();
    for needle in [
        "unknown message header",
        "non-ASCII",
        "more than 512 bytes without a NUL",
        "illegal move 32-29",
        "refusing connection",
        "back request accepted",
        "closed the connection during the game",
        "no game request for 2 s",
    ] {
        assert!(log.contains(needle), "no log line with `{needle}`:\n{log}");
    }
    assert!(!log.contains("panicked"), "{log}");
}

/// Plays a drawn ending from `fen` against Kroon, which plays `kroon`; the peer never accepts a
/// draw claim (it neither answers the game end nor stops) and plays on to win, by a search that
/// knows no draw rule. Returns the chats Kroon sent, the plies at which Kroon gave material away
/// when it need not have, and the game as played.
fn play_on_against_claims(
    addr: &str,
    fen: &str,
    kroon: DxpColour,
    plies: usize,
) -> (Vec<String>, Vec<usize>, Game) {
    let mut peer = Peer::connect(addr);
    let start = parse_fen(fen, Variant::International).unwrap();
    peer.game = Game::new(start);
    peer.send(&Dxp::GameReq(GameReq {
        version: 1,
        initiator: "Arbiter".into(),
        follower_colour: kroon,
        minutes: 5,
        moves: 0,
        start: Some(to_dxp_position(&start).unwrap()),
    }));
    assert_eq!(peer.expect("A"), format!("A{:<32}0", "Server"));
    let kroon_colour = match kroon {
        DxpColour::White => kroon_rules::Colour::White,
        DxpColour::Black => kroon_rules::Colour::Black,
    };
    let mut chats = Vec::new();
    let mut sacrifices = Vec::new();
    let engine = Engine::new(1, 8);
    let mut referee = Game::new(start);
    for reason in [
        DrawReason::Repetition,
        DrawReason::KingMoves,
        DrawReason::Endgame(EndgameRule::Five),
    ] {
        referee.waive(reason);
    }
    while peer.game.moves().len() < plies && !peer.game.position().legal_moves().is_empty() {
        let pos = *peer.game.position();
        if pos.turn() == kroon_colour {
            let msg = peer.recv().expect("kroon closed the connection");
            match &msg[..1] {
                // Claims and their chats are heard and ignored: the arbiter counts otherwise.
                "C" | "E" => chats.push(msg),
                "M" => {
                    let m: DxpMove = msg.parse().unwrap();
                    let mv = find_move(&pos, &m).unwrap_or_else(|e| panic!("{msg}: {e}"));
                    let safe = pos.legal_moves().iter().any(|m| !gives_away(&pos, m));
                    if safe && gives_away(&pos, &mv) {
                        sacrifices.push(peer.game.moves().len());
                    }
                    peer.game.play(&mv).unwrap();
                    referee.play(&mv).unwrap();
                }
                _ => panic!("unexpected {msg}"),
            }
        } else {
            // The peer is an engine of its own that knows no draw rule: it plays to win.
            let req = SearchRequest {
                game: referee.clone(),
                limits: Limits::Nodes(20_000),
                ponder: false,
            };
            let mv = engine.search(&req, &|_| {}).best.expect("a legal move");
            let m = to_dxp_move(&mv, Duration::from_millis(10), Variant::International).unwrap();
            peer.send(&Dxp::Move(m));
            peer.game.play(&mv).unwrap();
            referee.play(&mv).unwrap();
        }
    }
    peer.send_text("E00");
    loop {
        let msg = peer.expect_any();
        if msg.starts_with('E') {
            break;
        }
        chats.push(msg);
    }
    (chats, sacrifices, peer.game)
}

#[test]
fn drawn_endings_are_claimed_then_played_on_without_giving_pieces_away() {
    // Two endings Kroon once lost against an engine whose arbiter counted the FMJD 6.3/6.4
    // draws otherwise: Kroon claims the draw when its count ends, and when the game goes on it
    // keeps its pieces and loses nothing. A node budget rather than a move time, so that the
    // games repeat exactly however loaded the machine is.
    let (_server, addr) = Kroon::server("Server", &["--move-nodes", "100000", "--egdb", "none"]);
    for (fen, kroon) in [
        ("W:W6,K21,35:BK25", DxpColour::White),
        ("W:WK43:B1,24,K48", DxpColour::Black),
    ] {
        let (chats, sacrifices, game) = play_on_against_claims(&addr, fen, kroon, 80);
        let end = game.position();
        let kroon_to_move =
            (end.turn() == kroon_rules::Colour::White) == (kroon == DxpColour::White);
        let over = end.legal_moves().is_empty();
        let moves: Vec<String> = game
            .moves()
            .iter()
            .map(|m| kroon_rules::notation::long(m, Variant::International))
            .collect();
        assert!(!(over && kroon_to_move), "{fen}: kroon lost: {moves:?}");
        // Material given away is a sacrifice only when it wins.
        assert!(
            sacrifices.is_empty() || (over && !kroon_to_move),
            "{fen}: kroon gave material away at plies {sacrifices:?} and did not win: {moves:?}"
        );
        if !over {
            assert!(
                chats.iter().any(|c| c.contains("draw claimed: ")),
                "{fen}: {chats:?}"
            );
            assert!(
                chats.iter().any(|c| c.contains("playing on")),
                "{fen}: {chats:?}"
            );
        }
        println!(
            "{fen}: {} plies, won {}, chats {chats:?}",
            moves.len(),
            over
        );
    }
}

#[test]
fn server_outlives_its_standard_output() {
    // `kroon dxp --listen ... | head -1`, or a supervisor that stopped reading: the record of each
    // finished game can no longer be written, and the server must go on serving regardless.
    let log = log_path("closed-stdout");
    let mut child = Command::new(KROON)
        .arg("dxp")
        .args(["--threads", "1", "--hash", "8", "--move-time", "0.05"])
        .args(["--listen", "127.0.0.1:0", "--name", "Server"])
        .env("KROON_LOG", "info")
        .stdout(Stdio::piped())
        .stderr(std::fs::File::create(&log).unwrap())
        .spawn()
        .expect("start kroon dxp");
    let mut stdout = BufReader::new(child.stdout.take().unwrap());
    let mut line = String::new();
    stdout.read_line(&mut line).unwrap();
    let addr = line.trim().trim_start_matches("listening on ").to_owned();
    drop(stdout);
    let mut server = Kroon {
        child,
        lines: Arc::default(),
        log,
        reader: None,
    };
    for _ in 0..2 {
        let mut peer = Peer::connect(&addr);
        peer.request(DxpColour::Black);
        peer.send_text("E11");
        assert_eq!(peer.expect("E"), "E00");
        assert!(peer.expect_close().is_empty());
    }
    // The game records are written by the server's output thread after the games end, so the
    // failed write is waited for, not looked for at once.
    let log = server.wait_log("cannot write to standard output", Duration::from_secs(60));
    assert!(server.alive(), "{log}");
    assert!(!log.contains("panicked"), "{log}");
}

#[test]
fn pydraughts_drives_kroon_through_whole_games() {
    if !pydraughts::available("pydraughts_drives_kroon_through_whole_games") {
        return;
    }
    let script = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../tests/interop/dxp_pydraughts.py"
    );
    let mut child = Command::new("python3")
        .args([script, KROON])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("python3 must be installed (with pydraughts)");
    let (tx, rx) = mpsc::channel();
    let mut stdout = child.stdout.take().unwrap();
    let mut stderr = child.stderr.take().unwrap();
    std::thread::spawn(move || {
        let (mut out, mut err) = (String::new(), String::new());
        let _ = stdout.read_to_string(&mut out);
        let _ = stderr.read_to_string(&mut err);
        let _ = tx.send((out, err));
    });
    let start = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if start.elapsed() > Duration::from_secs(150) {
            let _ = child.kill();
            let _ = child.wait();
            panic!("dxp_pydraughts.py hung");
        }
        std::thread::sleep(Duration::from_millis(100));
    };
    let (out, err) = rx.recv_timeout(Duration::from_secs(10)).unwrap_or_default();
    assert!(status.success(), "pydraughts interop failed:\n{out}\n{err}");
    assert!(out.contains("ok: "), "{out}");
}
