//! `kroon dxp`: DamExchange games over TCP. This file reads the flags and the settings, starts the
//! engine and a tokio runtime, and hands over to `kroon_protocol::dxp` (session, server, client).
//! Standard output gets the listening address, one line per finished game and, for an initiator,
//! the match score; it is written on its own thread, so that the server never waits for it.

use anyhow::{bail, Context, Result};
use kroon_protocol::dxp::net;
use kroon_protocol::dxp::pdn;
use kroon_protocol::dxp::session::{
    GameRecord, MatchPlan, Role, SessionConfig, SessionEnd, DEFAULT_END_GRACE,
    DEFAULT_FIRST_MOVE_DELAY,
};
use kroon_protocol::dxp::AcceptCode;
use kroon_rules::{parse_fen, Variant};
use kroon_search::Engine;
use kroon_settings::Config;
use std::io::Write;
use std::path::PathBuf;
use std::sync::mpsc;
use std::time::Duration;

/// How long `--connect` keeps trying while the server is not listening yet.
const CONNECT_PATIENCE: Duration = Duration::from_secs(10);

/// DXP options. Without `--connect`, Kroon listens (on `dxp.listen` from the settings unless an
/// address is given); without `--initiator`, it answers the peer's game requests.
#[derive(clap::Args, Debug)]
pub struct DxpArgs {
    /// Be the server: listen on ADDR:PORT (default: `dxp.listen` from the settings,
    /// 127.0.0.1:27531). Port 0 picks a free port; the address is printed on standard output.
    #[arg(
        long,
        value_name = "ADDR:PORT",
        num_args = 0..=1,
        default_missing_value = "",
        conflicts_with = "connect"
    )]
    listen: Option<String>,
    /// Endgame table directory (default: from the settings; `none` for none).
    #[arg(long, value_name = "DIR")]
    egdb: Option<PathBuf>,
    /// Be the client: connect to a DXP server at ADDR:PORT.
    #[arg(long, value_name = "ADDR:PORT")]
    connect: Option<String>,
    /// Propose the games (send game requests) instead of answering them.
    #[arg(long)]
    initiator: bool,
    /// Initiator: number of games; Kroon plays White in the odd ones.
    #[arg(long, default_value_t = 2, requires = "initiator",
          value_parser = clap::value_parser!(u32).range(1..))]
    games: u32,
    /// Initiator: thinking time per side for each game, in minutes.
    #[arg(long, value_name = "MINUTES", default_value_t = 10, requires = "initiator",
          value_parser = clap::value_parser!(u16).range(1..=999))]
    time: u16,
    /// Initiator: moves in that time; the game is adjudicated when both have played them (0: no limit).
    #[arg(long, default_value_t = 75, requires = "initiator",
          value_parser = clap::value_parser!(u16).range(0..=999))]
    moves: u16,
    /// Initiator: start every game from this position (PDN FEN) instead of the initial one.
    #[arg(long, value_name = "FEN", requires = "initiator")]
    fen: Option<String>,
    #[command(flatten)]
    engine: crate::flags::EngineArgs,
    /// Name sent to the peer (default: `dxp.name` from the settings).
    #[arg(long)]
    name: Option<String>,
    /// Append every finished game to this PDN file.
    #[arg(long, value_name = "FILE")]
    pdn: Option<PathBuf>,
    /// Give up a peer that sends nothing for this long, in seconds (longer while its clock runs).
    #[arg(long, value_name = "SECONDS", default_value_t = 600,
          value_parser = clap::value_parser!(u64).range(1..))]
    idle_timeout: u64,
    /// Think at most this long per move, in seconds, even when the clock allows more.
    #[arg(long, value_name = "SECONDS")]
    move_time: Option<f64>,
    /// Search about this many nodes per move instead of by time: games that repeat on one thread
    /// (the clocks still run).
    #[arg(long, value_name = "NODES", conflicts_with = "move_time",
          value_parser = clap::value_parser!(u64).range(1..))]
    move_nodes: Option<u64>,
}

/// Kroon's results, from its side.
#[derive(Default, Debug)]
struct Tally {
    wins: u32,
    draws: u32,
    losses: u32,
    unknown: u32,
    peer: String,
}

impl Tally {
    fn add(&mut self, rec: &GameRecord) {
        self.peer = if rec.kroon == kroon_rules::Colour::White {
            rec.black.clone()
        } else {
            rec.white.clone()
        };
        match rec.kroon_points() {
            Some(2) => self.wins += 1,
            Some(1) => self.draws += 1,
            Some(_) => self.losses += 1,
            None => self.unknown += 1,
        }
    }

    fn games(&self) -> u32 {
        self.wins + self.draws + self.losses + self.unknown
    }

    /// `match Kroon - Scan: 5-3 in 4 games (+2 =1 -1, 0 unknown)`, in draughts points.
    fn line(&self, name: &str) -> String {
        let peer = if self.peer.is_empty() {
            "peer"
        } else {
            &self.peer
        };
        format!(
            "match {name} - {peer}: {}-{} in {} games (+{} ={} -{}, {} unknown)",
            2 * self.wins + self.draws,
            2 * self.losses + self.draws,
            self.games(),
            self.wins,
            self.draws,
            self.losses,
            self.unknown
        )
    }
}

/// Lines that may wait for standard output before new ones are dropped.
const PRINT_QUEUE: usize = 256;
/// How long the end of a run waits for its last lines to be written.
const PRINT_DRAIN: Duration = Duration::from_secs(5);

/// Standard output, written on its own thread. The server must never wait for whoever reads its
/// output: a pipe that nobody reads fills up (after some 700 game lines on Linux), and a write
/// to it would block the runtime and every connection with it. Lines wait in a bounded queue
/// instead; a line that finds the queue full, or standard output gone (a closed pipe, where
/// `println!` would panic), is logged and dropped.
struct Printer {
    tx: Option<mpsc::SyncSender<String>>,
    written: mpsc::Receiver<()>,
}

impl Printer {
    fn start() -> Result<Printer> {
        let (tx, rx) = mpsc::sync_channel::<String>(PRINT_QUEUE);
        let (written_tx, written) = mpsc::channel();
        std::thread::Builder::new()
            .name("stdout".into())
            .spawn(move || {
                for line in rx {
                    let mut out = std::io::stdout().lock();
                    if let Err(e) = writeln!(out, "{line}").and_then(|()| out.flush()) {
                        tracing::warn!("cannot write to standard output ({e}): {line}");
                    }
                }
                let _ = written_tx.send(());
            })
            .context("starting the standard output thread")?;
        Ok(Printer {
            tx: Some(tx),
            written,
        })
    }

    /// Queues one line; never waits.
    fn line(&self, line: String) {
        let Some(tx) = &self.tx else { return };
        match tx.try_send(line) {
            Ok(()) => {}
            Err(mpsc::TrySendError::Full(line)) => {
                tracing::warn!("standard output is not being read; line dropped: {line}");
            }
            Err(mpsc::TrySendError::Disconnected(line)) => {
                tracing::warn!("standard output is gone; line dropped: {line}");
            }
        }
    }

    /// Writes what is queued, waiting at most [`PRINT_DRAIN`] for a reader.
    fn finish(mut self) {
        self.tx = None;
        if self.written.recv_timeout(PRINT_DRAIN).is_err() {
            tracing::warn!("standard output is not being read: its last lines may be lost");
        }
    }
}

fn append_pdn(path: &PathBuf, rec: &GameRecord) -> std::io::Result<()> {
    let mut file = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)?;
    file.write_all(pdn::write_game(rec).as_bytes())?;
    file.flush()
}

pub fn run(args: DxpArgs, config: &Config) -> Result<()> {
    let variant: Variant = config.engine.variant.parse()?;
    let threads = args.engine.threads(config)?;
    let hash = args.engine.hash_or(config.engine.hash);
    let name = args.name.unwrap_or_else(|| config.dxp.name.clone());
    if name.is_empty() || name.len() > kroon_protocol::dxp::NAME_WIDTH || !name.is_ascii() {
        bail!("--name must be 1 to 32 ASCII characters, not `{name}`");
    }
    let move_time = match args.move_time {
        None => None,
        Some(s) if s.is_finite() && s > 0.0 && s < 1e6 => Some(Duration::from_secs_f64(s)),
        Some(s) => bail!("--move-time must be a positive number of seconds, not {s}"),
    };
    let role = if args.initiator {
        let start = match &args.fen {
            None => None,
            Some(text) => {
                Some(parse_fen(text, variant).with_context(|| format!("bad --fen `{text}`"))?)
            }
        };
        Role::Initiator(MatchPlan {
            games: args.games,
            minutes: args.time,
            moves: args.moves,
            start,
        })
    } else {
        Role::Follower
    };
    let initiator = args.initiator;
    let cfg = SessionConfig {
        name: name.clone(),
        variant,
        role,
        idle_timeout: Duration::from_secs(args.idle_timeout),
        move_time,
        move_nodes: args.move_nodes,
        end_grace: DEFAULT_END_GRACE,
        first_move_delay: DEFAULT_FIRST_MOVE_DELAY,
    };

    let mut engine = Engine::new(threads, hash);
    engine.set_eval(crate::evaluation::for_variant(config, None, None, variant)?);
    engine.set_tables(crate::egdb_main::for_search(config, args.egdb.as_deref())?);
    engine.set_book(crate::book_main::play(config, variant)?);
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .context("starting the tokio runtime")?;
    let mut tally = Tally::default();
    let pdn_path = args.pdn;
    let printer = Printer::start()?;
    let mut on_game = |rec: &GameRecord| {
        printer.line(rec.to_string());
        tally.add(rec);
        if let Some(path) = &pdn_path {
            if let Err(e) = append_pdn(path, rec) {
                tracing::error!(
                    "cannot append game {} to {}: {e}",
                    rec.number,
                    path.display()
                );
            }
        }
    };

    let outcome: Result<Option<SessionEnd>> = runtime.block_on(async {
        if let Some(addr) = &args.connect {
            let stream = net::connect(addr, CONNECT_PATIENCE)
                .await
                .with_context(|| format!("cannot connect to {addr}"))?;
            let end = net::play_client(stream, &cfg, &mut engine, &mut on_game).await?;
            tracing::info!("connection to {addr} over ({end:?})");
            Ok(Some(end))
        } else {
            let addr = match args.listen.as_deref() {
                None | Some("") => config.dxp.listen.as_str(),
                Some(addr) => addr,
            };
            let listener = tokio::net::TcpListener::bind(addr)
                .await
                .with_context(|| format!("cannot listen on {addr}"))?;
            printer.line(format!("listening on {}", listener.local_addr()?));
            net::serve(&listener, &cfg, &mut engine, &mut on_game).await?;
            Ok(None)
        }
    });
    if initiator {
        printer.line(tally.line(&name));
    }
    printer.finish();
    match outcome? {
        Some(SessionEnd::Refused(code)) => {
            let why = match code {
                AcceptCode::UnsupportedVersion => "does not support DXP version 01",
                AcceptCode::Declined => "declined the game",
                AcceptCode::NoMoreGames => "wants no more games",
                AcceptCode::Accepted => "accepted",
            };
            bail!("the peer {why} (game accept code {code:?})")
        }
        Some(SessionEnd::PeerClosed) if initiator => {
            bail!("the peer closed the connection before the match was over")
        }
        _ => Ok(()),
    }
}
