//! `kroon hub`: the Hub protocol on standard input and output. This file only wires I/O: a reader
//! thread turns stdin into a channel of lines (so that `ping`, `stop` and `ponder-hit` are seen
//! while a search runs), the session in `kroon_protocol::hub::session` does the rest, and stdout
//! carries protocol lines only, one whole line per write.

use anyhow::{Context, Result};
use kroon_protocol::hub::line::read_line;
use kroon_protocol::hub::{Flow, Identity, Session, Settings, WriterSink};
use kroon_rules::Variant;
use kroon_search::EndgameTables;
use kroon_settings::Config;
use std::path::Path;
use std::sync::mpsc;
use std::sync::{Arc, OnceLock};

/// What the reader thread sees on stdin.
enum Input {
    /// One line, without its line ending; invalid UTF-8 is replaced, not fatal.
    Line(String),
    /// Stdin is closed (or unreadable): the GUI is gone.
    End,
}

/// Runs a Hub session until `quit` or the end of stdin.
///
/// # Errors
/// Only for settings in the configuration that Hub cannot declare (an unknown variant or
/// evaluation), a weights or book file that is refused, or a table directory that is missing.
pub fn run(config: &Config, egdb: Option<&Path>) -> Result<()> {
    let variant: Variant = config
        .engine
        .variant
        .parse()
        .with_context(|| "engine.variant in the settings")?;
    let auto = crate::egdb_main::auto_dir(config, egdb)?;
    let settings = Settings {
        variant,
        threads: config.engine.threads,
        hash: config.engine.hash,
        ponder: config.engine.ponder,
        eval: crate::evaluation::kind(config, None)?,
        // The tables of the settings or `--egdb`; a directory named there must exist, unless the
        // small tables are to be built in it.
        egdb_path: match &auto {
            Some(dir) => dir.display().to_string(),
            None => crate::egdb_main::search_dir(config, egdb)?
                .map(|d| d.display().to_string())
                .unwrap_or_default(),
        },
        multipv: 1,
        book: config.book.enabled,
        book_margin: config.book.margin,
    };
    let clamped = settings.clone().clamped();
    if clamped != settings {
        tracing::warn!(
            "threads {} and hash {} MiB are brought into the Hub ranges: {} and {}",
            settings.threads,
            settings.hash,
            clamped.threads,
            clamped.hash
        );
    }
    let background = OnceLock::new();
    let out = Arc::new(WriterSink::new(std::io::stdout()));
    let mut session = Session::new(Identity::kroon(env!("CARGO_PKG_VERSION")), clamped, out)
        .with_learned_weights(crate::evaluation::learned_weights(config, None)?)
        .with_table_opener(Box::new(move |dir: &str| {
            // The settings' directory without tables: the background build fills it, started
            // when the engine first wants tables and shared by every later `egdb-path` to it.
            if let Some(auto) = auto.as_deref().filter(|a| *a == Path::new(dir)) {
                let tables = background.get_or_init(|| {
                    crate::egdb_auto::start(auto.to_path_buf(), crate::egdb_auto::pieces())
                });
                return Ok(Arc::clone(tables) as Arc<dyn EndgameTables>);
            }
            crate::egdb_main::open_for_search(Path::new(dir))?
                .ok_or_else(|| format!("no endgame tables in {dir}"))
        }));
    // The book of the settings' variant; `book=false` (or the setting) only turns it off.
    if let Some(book) = crate::book_main::load(config, None, variant)? {
        session = session.with_book(Arc::new(book));
    }

    let (tx, rx) = mpsc::channel();
    std::thread::Builder::new()
        .name("stdin-reader".into())
        .spawn(move || read_stdin(&tx))
        .context("starting the stdin reader")?;

    while let Ok(Input::Line(line)) = rx.recv() {
        if session.handle_line(&line) == Flow::Quit {
            break;
        }
    }
    // Quit or the end of stdin: end any search at once (its `done` is still sent).
    session.finish_search();
    Ok(())
}

/// Longest stdin line read. A Hub `pos` line with a whole game's moves has a few kilobytes; this
/// only bounds what a GUI that writes without line ends can cost.
const MAX_LINE: usize = 1 << 20;

/// Sends each stdin line to `tx`, then `End`. Returns when stdin ends or the session is gone.
fn read_stdin(tx: &mpsc::Sender<Input>) {
    let stdin = std::io::stdin();
    let mut stdin = stdin.lock();
    let mut buf = Vec::new();
    loop {
        match read_line(&mut stdin, &mut buf, MAX_LINE) {
            Ok(None) => break,
            Ok(Some(dropped)) if dropped > 0 => {
                tracing::warn!("ignored a line of {} bytes", buf.len() + dropped);
            }
            Ok(Some(_)) => {
                while matches!(buf.last(), Some(b'\r')) {
                    buf.pop();
                }
                let line = String::from_utf8_lossy(&buf).into_owned();
                if tx.send(Input::Line(line)).is_err() {
                    return;
                }
            }
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => {
                tracing::debug!("stdin: {e}");
                break;
            }
        }
    }
    let _ = tx.send(Input::End);
}
