//! `kroon worker`, `kroon queue-status` and the `--queue` side of `kroon selfplay`: flags and
//! wiring around `kroon_queue`.

use crate::{bench, evaluation};
use anyhow::{Context, Result};
use clap::Args;
use kroon_queue::record::{plain_name, Build};
use kroon_queue::{link, worker};
use kroon_settings::Config;
use std::sync::Arc;
use std::time::Duration;

/// `kroon worker`.
#[derive(Args, Debug)]
pub struct WorkerArgs {
    /// The queue: redis://[user:pass@]HOST:PORT/[DB] (rediss:// for TLS; a client certificate
    /// with ?ssl_certfile=PEM&ssl_keyfile=PEM, authorities with ssl_ca_certs=PEM).
    #[arg(long, value_name = "URL")]
    queue: String,
    /// Jobs run at once (each on one search thread).
    #[arg(long, default_value_t = 1)]
    threads: usize,
    /// The worker's name in the queue's status (default: host name and process id).
    #[arg(long)]
    name: Option<String>,
    /// Seconds after which a silent worker's job is taken over by another.
    #[arg(long, default_value_t = 60)]
    visibility: u64,
    /// Exit after this many jobs (0: never).
    #[arg(long, default_value_t = 0)]
    max_jobs: u64,
    /// Exit once no job has come for this many seconds (default: wait for ever).
    #[arg(long, value_name = "SECONDS")]
    idle_exit: Option<u64>,
    /// A job handed out more often than this (its workers died on it each time) is answered
    /// with an error and dropped.
    #[arg(long, default_value_t = worker::MAX_DELIVERIES)]
    max_deliveries: u64,
    /// The engines this worker plays match games with: one `--engine` spec a line (`name=A
    /// cmd="kroon hub" option.hash=16`). A match job names its engines; a name missing here is
    /// answered with an error. Without it, the worker refuses match jobs.
    #[arg(long, value_name = "FILE")]
    engines: Option<std::path::PathBuf>,
    /// The directory of endgame tables every machine mounts (NFS), here: table jobs of `kroon
    /// egdb build --queue URL --shared` read the slices they need there and write theirs to its
    /// incoming/ folder. Without it, the worker refuses such jobs.
    #[arg(long, value_name = "DIR")]
    shared_dir: Option<std::path::PathBuf>,
}

fn default_name() -> String {
    let host = std::fs::read_to_string("/etc/hostname")
        .ok()
        .map(|h| h.trim().to_owned())
        .filter(|h| !h.is_empty())
        .or_else(|| std::env::var("HOSTNAME").ok())
        .unwrap_or_else(|| "worker".to_owned());
    format!("{host}-{}", std::process::id())
}

/// Ctrl-C and SIGTERM: the first lets the jobs at hand finish, the second hands them back.
fn on_signals(stop: &worker::Stop) -> Result<()> {
    let stop = stop.clone();
    ctrlc::set_handler(move || stop.signal()).context("installing the signal handler")
}

/// What a producer's jobs are made with: this binary's bench signature and `eval`.
fn build(eval: String) -> Build {
    Build {
        bench: bench::build_signature(),
        eval,
    }
}

/// A link to the queue at `url`, for a producer or the status, which nothing aborts.
/// The link to the queue at `url`, which stops waiting for an unreachable server once `stop` is
/// set (a producer told to stop while the server is away exits rather than retrying for ever).
fn open(url: &str, stop: Arc<std::sync::atomic::AtomicBool>) -> Result<link::Link> {
    link::Link::open(url, stop)
}

pub fn worker(args: WorkerArgs, config: &Config) -> Result<()> {
    let name = plain_name(&args.name.unwrap_or_else(default_name));
    let stop = worker::Stop::default();
    on_signals(&stop)?;
    let bench = bench::build_signature();
    let config = Arc::new(config.clone());
    let eval_config = Arc::clone(&config);
    let options = worker::Options {
        url: args.queue.clone(),
        name: name.clone(),
        threads: args.threads,
        visibility: Duration::from_secs(args.visibility.max(1)),
        bench,
        eval_for: Box::new(move |variant, kind| {
            evaluation::for_variant(&eval_config, Some(kind.name()), None, variant)
        }),
        openings_for: Box::new(kroon_match::default_openings),
        max_jobs: args.max_jobs,
        idle_exit: args.idle_exit.map(Duration::from_secs),
        max_deliveries: args.max_deliveries.max(1),
        engines: args
            .engines
            .as_deref()
            .map(kroon_match::remote::EngineBook::load)
            .transpose()?,
        shared_dir: args.shared_dir,
    };
    say!(
        "worker {name} on {}: {} threads, bench {bench}",
        link::redact(&args.queue),
        args.threads
    )?;
    let tally = worker::run(options, stop)?;
    say!(
        "worker {name}: {} jobs done, {} failed, {} handed back",
        tally.done,
        tally.failed,
        tally.handed_back
    )?;
    Ok(())
}

/// `kroon selfplay --queue URL`: the games as jobs, written here in game order.
pub fn selfplay(
    url: &str,
    batch: u32,
    settings: &kroon_learn::selfplay::Settings,
    openings: &[kroon_rules::Position],
    stop: &Arc<std::sync::atomic::AtomicBool>,
) -> Result<kroon_learn::selfplay::Summary> {
    let build = build(settings.eval_id.clone());
    let mut link = open(url, Arc::clone(stop))?;
    say!(
        "queue {}: run {}, {batch} games a job",
        link.shown(),
        kroon_queue::selfplay::run_name(settings, openings, &build)
    )?;
    let (summary, progress) =
        kroon_queue::selfplay::produce(&mut link, settings, openings, &build, batch, stop, |_| {})?;
    if progress.duplicates > 0 {
        say!(
            "{} results repeated one already counted",
            progress.duplicates
        )?;
    }
    Ok(summary)
}

/// `kroon match --queue URL`: the game pairs as jobs, recorded here in schedule order.
pub fn match_queue(args: kroon_match::MatchArgs, variant: &str) -> Result<()> {
    let url = args.queue().unwrap_or_default().to_owned();
    let m = kroon_match::Match::new(args, variant)?;
    let build = build("engines by name".to_owned());
    let stop = worker::Stop::default();
    on_signals(&stop)?;
    let mut link = open(&url, stop.finishing_shared())?;
    let (report, duplicates) =
        kroon_queue::matches::produce(&mut link, &m, &build, stop.finishing())?;
    if duplicates > 0 {
        say!("{duplicates} results repeated one already counted")?;
    }
    if let Some(kroon_match::Stopped::Failing(text)) = report.stopped {
        anyhow::bail!(text);
    }
    Ok(())
}

/// `kroon egdb build --queue URL`: the slice pairs as jobs, checked and written to `dir`.
pub fn egdb_queue(
    url: &str,
    plan: &kroon_egdb::build::Plan,
    dir: &std::path::Path,
    distances: u32,
    shared: bool,
) -> Result<()> {
    let lock = crate::egdb_main::lock_dir(dir)?;
    let build = build("tables".to_owned());
    let stop = worker::Stop::default();
    on_signals(&stop)?;
    let mut link = open(url, stop.finishing_shared())?;
    say!(
        "queue {}: {} slices to build in {}{}",
        link.shown(),
        plan.slices().len(),
        dir.display(),
        if shared {
            ", a directory the workers share"
        } else {
            ""
        }
    )?;
    let start = std::time::Instant::now();
    let summary = kroon_queue::egdb::produce(
        &mut link,
        plan,
        dir,
        distances,
        shared,
        &build,
        stop.finishing(),
        |m, _| {
            let _ = say!("{m}: built on the queue, checked, written");
        },
    )?;
    drop(lock);
    say!(
        "built {} slices on the queue, kept {}, in {:.1} s, in {}",
        summary.built,
        summary.found,
        start.elapsed().as_secs_f64(),
        dir.display()
    )?;
    if summary.duplicates > 0 {
        say!(
            "{} results repeated one already counted",
            summary.duplicates
        )?;
    }
    Ok(())
}

/// `kroon queue-status --queue URL`.
pub fn status(url: &str) -> Result<()> {
    let mut link = open(url, Arc::default())?;
    let status = kroon_queue::status::read(&mut link)?;
    say!("queue {}", link.shown())?;
    say!("{}", status.to_string().trim_end())?;
    Ok(())
}
