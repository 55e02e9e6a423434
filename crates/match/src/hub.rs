//! A Hub engine as a child process: started with `hub` … `wait`, `set-param`, `init` … `ready`;
//! each move is `pos` (the game's start and every move since), `level`, `go think`, then `info`
//! lines until `done`. Two reader threads drain standard output (into a channel, time-stamped)
//! and standard error (into the transcript only), so a silent or chatty engine can never block
//! the manager, and every wait has a deadline. What they keep is bounded: lines are cut at
//! [`MAX_LINE`] bytes and at most [`LINES_AHEAD`] wait to be read.

use super::player::{EndForEngine, FailKind, Failure, Health, Player, Reply, Transcript, Turn};
use super::spec::TimeControl;
use kroon_protocol::hub::line::read_line;
use kroon_protocol::hub::{numbering, parse_reply, GoMode, HubCommand, HubError, HubReply};
use kroon_rules::{write_hub, Colour, Move, Position, Variant};
use std::io::{BufReader, Write};
use std::path::PathBuf;
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{sync_channel, Receiver, RecvTimeoutError};
use std::time::{Duration, Instant};

/// How to start a Hub engine.
#[derive(Clone, Debug, PartialEq)]
pub struct HubLaunch {
    /// Program and arguments.
    pub argv: Vec<String>,
    /// Working directory.
    pub dir: Option<PathBuf>,
    /// `set-param` pairs sent before `init`.
    pub options: Vec<(String, String)>,
    /// A `level` line of the engine's own, sent after the match's before every move.
    pub level: Option<String>,
    /// The variant; sent as `set-param name=variant` when the engine declares that parameter
    /// and the options do not set it.
    pub variant: Variant,
    /// How long `hub` … `wait` and `init` … `ready` may take.
    pub startup: Duration,
}

/// A line from the engine's standard output and when it was read; `None` at end of file.
type Line = (Instant, Option<String>);

/// Lines read ahead of the manager. When they are all waiting, the reader stops reading, and an
/// engine that writes without pause while its opponent thinks waits on the pipe instead of
/// filling the manager's memory.
const LINES_AHEAD: usize = 256;

/// Longest line kept from an engine; the rest of a longer line is dropped. Hub lines are short
/// (a long `info pv=...` has a few hundred bytes), so this only bounds what a broken engine that
/// writes without a line end can cost.
const MAX_LINE: usize = 16 * 1024;

/// A running Hub engine.
#[derive(Debug)]
pub struct HubEngine {
    child: Child,
    stdin: Option<ChildStdin>,
    lines: Receiver<Line>,
    health: Health,
    /// The engine's own `level` line (see [`HubLaunch::level`]), parsed.
    level: Option<HubCommand>,
}

enum Wait {
    Timeout,
    Closed,
}

impl HubEngine {
    /// Starts the engine and takes it through the start-up dialogue.
    ///
    /// # Errors
    /// The program cannot be started (`Crash`), exits or closes its output (`Crash`), does not
    /// finish the dialogue in time (`Hang`) or answers `init` with an error (`Protocol`).
    pub fn start(launch: &HubLaunch) -> Result<HubEngine, Failure> {
        let log = Transcript::default();
        let mut cmd = Command::new(&launch.argv[0]);
        cmd.args(&launch.argv[1..])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        if let Some(dir) = &launch.dir {
            cmd.current_dir(dir);
        }
        let mut child = cmd.spawn().map_err(|e| {
            Failure::new(
                FailKind::Crash,
                format!("cannot start `{}`: {e}", launch.argv.join(" ")),
                &log,
            )
        })?;
        let stdout = child.stdout.take().expect("stdout is piped");
        let stderr = child.stderr.take().expect("stderr is piped");
        let (tx, lines) = sync_channel(LINES_AHEAD);
        let out_log = log.clone();
        std::thread::spawn(move || {
            let mut reader = BufReader::new(stdout);
            let mut buf = Vec::new();
            while let Ok(Some(_)) = read_line(&mut reader, &mut buf, MAX_LINE) {
                let line = String::from_utf8_lossy(&buf)
                    .trim_end_matches('\r')
                    .to_owned();
                out_log.push(format!("< {line}"));
                if tx.send((Instant::now(), Some(line))).is_err() {
                    return;
                }
            }
            let _ = tx.send((Instant::now(), None));
        });
        let err_log = log.clone();
        std::thread::spawn(move || {
            let mut reader = BufReader::new(stderr);
            let mut buf = Vec::new();
            while let Ok(Some(_)) = read_line(&mut reader, &mut buf, MAX_LINE) {
                let line = String::from_utf8_lossy(&buf);
                err_log.push(format!("! {}", line.trim_end_matches('\r')));
            }
        });
        let mut engine = HubEngine {
            stdin: child.stdin.take(),
            child,
            lines,
            health: Health { log, broken: false },
            // Checked when the spec was read.
            level: launch
                .level
                .as_deref()
                .and_then(|l| kroon_protocol::hub::parse(l).ok()),
        };
        match engine.handshake(launch) {
            Ok(()) => Ok(engine),
            Err(f) => {
                engine.health.broken = true;
                Err(f)
            }
        }
    }

    fn handshake(&mut self, launch: &HubLaunch) -> Result<(), Failure> {
        let deadline = Instant::now() + launch.startup;
        self.send(&HubCommand::Hub)?;
        let mut params = Vec::new();
        loop {
            let (_, line) = self.next_line(deadline, "`wait` after `hub`")?;
            match parse_reply(&line) {
                Ok(HubReply::Wait) => break,
                Ok(HubReply::Param { name, .. }) => params.push(name),
                _ => {}
            }
        }
        let mut options = launch.options.clone();
        let variant_set = options.iter().any(|(k, _)| k == "variant");
        if params.iter().any(|p| p == "variant") && !variant_set {
            options.insert(0, ("variant".into(), launch.variant.hub_name().into()));
        }
        for (name, value) in options {
            self.send(&HubCommand::SetParam { name, value })?;
        }
        self.send(&HubCommand::Init)?;
        loop {
            let (_, line) = self.next_line(deadline, "`ready` after `init`")?;
            match parse_reply(&line) {
                Ok(HubReply::Ready) => return Ok(()),
                Ok(HubReply::Error(msg)) => {
                    return Err(self.fail(FailKind::Protocol, format!("`init` failed: {msg}")))
                }
                _ => {}
            }
        }
    }

    fn fail(&mut self, kind: FailKind, message: impl Into<String>) -> Failure {
        self.health.fail(kind, message)
    }

    fn send(&mut self, cmd: &HubCommand) -> Result<(), Failure> {
        let line = cmd.to_string();
        self.health.log.push(format!("> {line}"));
        let written = match self.stdin.as_mut() {
            Some(stdin) => writeln!(stdin, "{line}").and_then(|()| stdin.flush()),
            None => Err(std::io::Error::from(std::io::ErrorKind::BrokenPipe)),
        };
        written.map_err(|e| {
            let status = self.exit_status();
            self.fail(
                FailKind::Crash,
                format!("cannot write to the engine ({e}){status}"),
            )
        })
    }

    /// The next line, or a `Hang` or `Crash` failure naming what was awaited.
    fn next_line(&mut self, deadline: Instant, what: &str) -> Result<(Instant, String), Failure> {
        match self.recv(deadline) {
            Ok(line) => Ok(line),
            Err(Wait::Timeout) => Err(self.fail(FailKind::Hang, format!("no {what} in time"))),
            Err(Wait::Closed) => {
                let status = self.exit_status();
                Err(self.fail(
                    FailKind::Crash,
                    format!(
                        "the engine closed its output while the manager waited for {what}{status}"
                    ),
                ))
            }
        }
    }

    fn recv(&mut self, deadline: Instant) -> Result<(Instant, String), Wait> {
        let left = deadline.saturating_duration_since(Instant::now());
        match self.lines.recv_timeout(left) {
            Ok((at, Some(line))) => Ok((at, line)),
            Ok((_, None)) | Err(RecvTimeoutError::Disconnected) => Err(Wait::Closed),
            Err(RecvTimeoutError::Timeout) => Err(Wait::Timeout),
        }
    }

    /// `: exit status: 3` once the process has ended (waiting up to a second for it), else "".
    fn exit_status(&mut self) -> String {
        let until = Instant::now() + Duration::from_secs(1);
        loop {
            match self.child.try_wait() {
                Ok(Some(status)) => return format!("; it ended with {status}"),
                Ok(None) if Instant::now() < until => {
                    std::thread::sleep(Duration::from_millis(10));
                }
                _ => return String::new(),
            }
        }
    }

    /// Ends the process: `quit`, a moment to obey, then a kill.
    fn shut_down(&mut self) {
        if !self.health.broken {
            self.health.log.push("> quit".into());
            if let Some(stdin) = self.stdin.as_mut() {
                let _ = writeln!(stdin, "quit").and_then(|()| stdin.flush());
            }
        }
        self.stdin = None;
        let until = Instant::now()
            + if self.health.broken {
                Duration::ZERO
            } else {
                Duration::from_millis(500)
            };
        while Instant::now() < until {
            if matches!(self.child.try_wait(), Ok(Some(_))) {
                return;
            }
            // Keep reading, or an engine still writing could block on the pipe and never
            // get to its `quit`.
            while Instant::now() < until && self.lines.try_recv().is_ok() {}
            std::thread::sleep(Duration::from_millis(10));
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Drop for HubEngine {
    fn drop(&mut self) {
        self.shut_down();
    }
}

impl Player for HubEngine {
    fn new_game(&mut self, _: &Position, _: Colour, _: &TimeControl) -> Result<(), Failure> {
        self.send(&HubCommand::NewGame)
    }

    fn think(&mut self, turn: &Turn<'_>) -> Result<Reply, Failure> {
        // Whatever the engine wrote since its last `done` (late `info`, chatter) must not be
        // read as the answer to this request. Only lines read before now are dropped, so an
        // engine that never stops writing cannot keep the manager here.
        let asked = Instant::now();
        while let Ok((at, line)) = self.lines.try_recv() {
            if line.is_none() {
                let status = self.exit_status();
                return Err(self.fail(
                    FailKind::Crash,
                    format!("the engine closed its output between moves{status}"),
                ));
            }
            if at >= asked {
                break;
            }
        }
        let variant = turn.start.variant();
        self.send(&HubCommand::Pos {
            pos: Some(write_hub(turn.start)),
            moves: turn
                .moves
                .iter()
                .map(|mv| numbering::write_move(mv, variant))
                .collect(),
        })?;
        self.send(&HubCommand::Level(turn.level.clone().into()))?;
        if let Some(own) = self.level.clone() {
            self.send(&own)?;
        }
        self.send(&HubCommand::Go(GoMode::Think))?;
        let sent = Instant::now();
        let deadline = sent + turn.patience;
        let (mut score, mut depth) = (None, None);
        loop {
            let (at, line) = match self.recv(deadline) {
                Ok(line) => line,
                Err(Wait::Timeout) => {
                    return Err(self.fail(
                        FailKind::Hang,
                        format!(
                            "no `done` within {:.3} s of `go think`",
                            turn.patience.as_secs_f64()
                        ),
                    ))
                }
                Err(Wait::Closed) => {
                    let status = self.exit_status();
                    return Err(self.fail(
                        FailKind::Crash,
                        format!("the engine closed its output while thinking{status}"),
                    ));
                }
            };
            match parse_reply(&line) {
                Ok(HubReply::Info(info)) => {
                    if info.score.is_some() {
                        score = info.score;
                        depth = info.depth;
                    }
                }
                Ok(HubReply::Done { mv: Some(mv), .. }) => {
                    return Ok(Reply {
                        text: mv,
                        elapsed: at.saturating_duration_since(sent),
                        score,
                        depth,
                    })
                }
                Ok(HubReply::Done { mv: None, .. }) => {
                    return Err(self.fail(
                        FailKind::Protocol,
                        "`done` without a move in a position with legal moves",
                    ))
                }
                Ok(HubReply::Error(msg)) => {
                    return Err(self.fail(FailKind::Protocol, format!("the engine said: {msg}")))
                }
                // Hub: ignore what you do not know. A broken `done` is not ignorable.
                Ok(_) | Err(HubError::Empty | HubError::UnknownReply(_)) => {}
                Err(e) if line.trim_start().starts_with("done") => {
                    return Err(
                        self.fail(FailKind::Protocol, format!("unreadable `done` line: {e}"))
                    )
                }
                Err(_) => {}
            }
        }
    }

    fn opponent_moved(&mut self, _: &Position, _: &Move, _: Duration) -> Result<(), Failure> {
        // Hub engines get the whole game with each `pos`.
        Ok(())
    }

    fn game_over(&mut self, _: EndForEngine) {}

    fn health(&self) -> &Health {
        &self.health
    }

    fn health_mut(&mut self) -> &mut Health {
        &mut self.health
    }
}
