//! `kroon worker`: joins the workers' consumer group and runs jobs, one at a time per thread, with
//! the same code as the local commands.
//!
//! Each thread is a consumer named `NAME/T`. It first claims a job whose worker went silent
//! (XAUTOCLAIM after the visibility timeout), else reads a new one (XREADGROUP). While it works, a
//! heartbeat thread renews its claim (XCLAIM resets the idle time) and its heartbeat key, so a job
//! is only taken over from a worker that stopped. The result goes to the run's results stream
//! before the job is acknowledged; if the worker dies in between, the job runs again and the
//! producer counts its result once.
//!
//! A first Ctrl-C (or SIGTERM) lets every thread finish its job and exit; a second hands the jobs
//! back at once (they go on the queue again) and exits.

use crate::link::{add_job, keys, Link};
use crate::record::{self, Build, Job, JobResult, Outcome, Task};
use crate::selfplay::{self, EngineSlot, Playing};
use anyhow::Result;
use kroon_match::remote::EnginePool;
use kroon_rules::{Position, Variant};
use kroon_search::{Eval, EvalKind};
use parking_lot::Mutex;
use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

/// The worker's side of the evaluation: which evaluation it plays a variant with, for a kind.
pub type EvalFor = dyn Fn(Variant, EvalKind) -> Result<Eval> + Send + Sync;

/// The openings this build starts a variant's games from.
pub type OpeningsFor = dyn Fn(Variant) -> Result<Vec<Position>> + Send + Sync;

/// How a worker runs.
pub struct Options {
    /// The queue's URL.
    pub url: String,
    /// The worker's name (each thread is `NAME/T`).
    pub name: String,
    /// Jobs at once.
    pub threads: usize,
    /// A job whose worker has been silent this long is taken over by another.
    pub visibility: Duration,
    /// This build's bench signature.
    pub bench: u64,
    /// This build's evaluations.
    pub eval_for: Box<EvalFor>,
    /// This build's openings.
    pub openings_for: Box<OpeningsFor>,
    /// Stop after this many jobs in all (0: never), for tests and benchmarks.
    pub max_jobs: u64,
    /// Exit once no job has come for this long (`None`: wait for ever).
    pub idle_exit: Option<Duration>,
    /// The engines this worker plays match games with, by name (`--engines FILE`).
    pub engines: Option<kroon_match::remote::EngineBook>,
    /// The directory of endgame-table slices every machine mounts, for table jobs whose slices
    /// travel through it (`--shared-dir`).
    pub shared_dir: Option<std::path::PathBuf>,
    /// A job delivered more often than this (its workers died or hung on it each time) is a
    /// poison job: answered with an error result and dropped, never run again.
    pub max_deliveries: u64,
}

/// The default of [`Options::max_deliveries`].
pub const MAX_DELIVERIES: u64 = 5;

/// What the signals asked: the first to finish the jobs at hand, the second to hand them back.
#[derive(Clone, Default)]
pub struct Stop {
    finish: Arc<AtomicBool>,
    abort: Arc<AtomicBool>,
}

impl Stop {
    /// Set at the first signal.
    #[must_use]
    pub fn finishing(&self) -> &AtomicBool {
        &self.finish
    }

    /// The flag [`Stop::finishing`] reads, to share: a producer's link gives up waiting for an
    /// unreachable server once it is set, since a producer holds nothing the server must still
    /// hear of (what it has collected is written, and a run started again collects the rest).
    #[must_use]
    pub fn finishing_shared(&self) -> Arc<AtomicBool> {
        Arc::clone(&self.finish)
    }

    /// A signal arrived (Ctrl-C, SIGTERM).
    pub fn signal(&self) {
        if self.finish.swap(true, Ordering::Relaxed) {
            self.abort.store(true, Ordering::Relaxed);
        }
    }
}

/// What a thread is doing, for the heartbeat.
#[derive(Clone)]
struct Current {
    entry: String,
    run: String,
    job: String,
    since_ms: u64,
}

fn now_ms() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_millis() as u64)
        .unwrap_or(0)
}

/// What a worker did.
#[derive(Debug, Default, Clone)]
pub struct Tally {
    /// Jobs done.
    pub done: u64,
    /// Jobs answered with an error.
    pub failed: u64,
    /// Jobs handed back.
    pub handed_back: u64,
}

struct Shared {
    options: Options,
    stop: Stop,
    current: Mutex<Vec<Option<Current>>>,
    tally: Mutex<Tally>,
    jobs_taken: std::sync::atomic::AtomicU64,
}

/// Runs the worker until a signal (or `max_jobs`, or `idle_exit`).
///
/// # Errors
/// The URL is refused, or the server refuses a command.
pub fn run(options: Options, stop: Stop) -> Result<Tally> {
    anyhow::ensure!(options.threads >= 1, "--threads must be at least 1");
    let mut link = Link::open(&options.url, Arc::clone(&stop.abort))?;
    link.ensure_group()?;
    tracing::info!(
        "worker {} on {}: {} threads, bench {}",
        options.name,
        link.shown(),
        options.threads,
        options.bench
    );
    let threads = options.threads;
    let shared = Shared {
        options,
        stop,
        current: Mutex::new(vec![None; threads]),
        tally: Mutex::new(Tally::default()),
        jobs_taken: std::sync::atomic::AtomicU64::new(0),
    };
    let all_done = AtomicBool::new(false);
    std::thread::scope(|s| -> Result<()> {
        let hb = std::thread::Builder::new()
            .name("heartbeat".into())
            .spawn_scoped(s, || heartbeat(&shared, &all_done))?;
        let mut handles = Vec::new();
        for t in 0..threads {
            let shared = &shared;
            handles.push(
                std::thread::Builder::new()
                    .name(format!("worker-{t}"))
                    .stack_size(32 << 20)
                    .spawn_scoped(s, move || consume(shared, t))?,
            );
        }
        let mut first_error = None;
        for h in handles {
            match h.join() {
                Ok(Ok(())) => {}
                Ok(Err(e)) => {
                    first_error.get_or_insert(e);
                }
                Err(_) => {
                    first_error.get_or_insert(anyhow::anyhow!("a worker thread panicked"));
                }
            }
        }
        all_done.store(true, Ordering::Relaxed);
        let _ = hb.join();
        first_error.map_or(Ok(()), Err)
    })?;
    let tally = shared.tally.lock().clone();
    Ok(tally)
}

/// Renews every running job's claim and heartbeat key, a few times per visibility timeout.
fn heartbeat(shared: &Shared, all_done: &AtomicBool) {
    let Ok(mut link) = Link::open(&shared.options.url, Arc::clone(&shared.stop.abort)) else {
        return;
    };
    let every = shared.options.visibility / 4;
    let ttl_s = (shared.options.visibility.as_secs() * 3).max(10);
    let mut last = Instant::now() - every;
    while !all_done.load(Ordering::Relaxed) {
        if last.elapsed() >= every {
            last = Instant::now();
            let current = shared.current.lock().clone();
            for (t, c) in current.iter().enumerate() {
                let consumer = format!("{}/{t}", shared.options.name);
                let mut pipe = redis::pipe();
                match c {
                    Some(c) => {
                        pipe.cmd("XCLAIM")
                            .arg(keys::JOBS)
                            .arg(keys::GROUP)
                            .arg(&consumer)
                            .arg(0)
                            .arg(&c.entry)
                            .arg("JUSTID")
                            .ignore();
                        let value = format!("{} {} {}", c.run, c.job, c.since_ms);
                        pipe.cmd("SET")
                            .arg(keys::heartbeat(&consumer))
                            .arg(value)
                            .arg("EX")
                            .arg(ttl_s)
                            .ignore();
                    }
                    None => {
                        pipe.cmd("SET")
                            .arg(keys::heartbeat(&consumer))
                            .arg("idle")
                            .arg("EX")
                            .arg(ttl_s)
                            .ignore();
                    }
                }
                // A heartbeat that cannot get through is retried at the next beat; the link's
                // back-off would hold up the others. It waits for the server no longer than the
                // jobs it stands for.
                if let Err(e) = link.run_unless(Some(all_done), |con| pipe.query::<()>(con)) {
                    tracing::debug!("heartbeat: {e:#}");
                }
            }
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// A job taken from the stream.
struct Taken {
    entry: String,
    bytes: Option<Vec<u8>>,
    /// Times the group has handed it out, this time included.
    deliveries: u64,
}

/// One thread's loop: take, run, post, acknowledge.
fn consume(shared: &Shared, t: usize) -> Result<()> {
    let o = &shared.options;
    let consumer = format!("{}/{t}", o.name);
    let mut link = Link::open(&o.url, Arc::clone(&shared.stop.abort))?;
    let mut kept = Kept::default();
    let mut idle_since = Instant::now();
    loop {
        if shared.stop.finish.load(Ordering::Relaxed) {
            break;
        }
        if o.max_jobs > 0 && shared.jobs_taken.load(Ordering::Relaxed) >= o.max_jobs {
            break;
        }
        if o.idle_exit.is_some_and(|d| idle_since.elapsed() >= d) {
            break;
        }
        let taken = match take(&mut link, &consumer, o.visibility, &shared.stop.finish) {
            Ok(taken) => taken,
            // Told to finish while waiting for the server: no job at hand, nothing owed.
            Err(_) if shared.stop.finish.load(Ordering::Relaxed) => break,
            Err(e) => return Err(e),
        };
        let Some(taken) = taken else {
            continue;
        };
        if o.max_jobs > 0 && shared.jobs_taken.fetch_add(1, Ordering::Relaxed) >= o.max_jobs {
            // Over the count: hand it back untouched.
            hand_back(&mut link, &taken)?;
            break;
        }
        *shared
            .current
            .lock()
            .get_mut(t)
            .expect("one slot per thread") = Some(Current {
            entry: taken.entry.clone(),
            run: String::new(),
            job: String::new(),
            since_ms: now_ms(),
        });
        let r = handle(shared, &mut link, &consumer, &taken, &mut kept, t);
        *shared
            .current
            .lock()
            .get_mut(t)
            .expect("one slot per thread") = None;
        r?;
        idle_since = Instant::now();
    }
    Ok(())
}

/// A stale job (its worker silent for `visibility`), else a new one; `None` after a second's wait.
/// While the server is away it gives up once `finish` is set: the worker has begun no job yet.
fn take(
    link: &mut Link,
    consumer: &str,
    visibility: Duration,
    finish: &AtomicBool,
) -> Result<Option<Taken>> {
    let claimed: redis::streams::StreamAutoClaimReply = link.run_unless(Some(finish), |con| {
        redis::cmd("XAUTOCLAIM")
            .arg(keys::JOBS)
            .arg(keys::GROUP)
            .arg(consumer)
            .arg(visibility.as_millis() as u64)
            .arg("0-0")
            .arg("COUNT")
            .arg(1)
            .query(con)
    })?;
    if let Some(e) = claimed.claimed.into_iter().next() {
        // XAUTOCLAIM counted this delivery; XPENDING tells how many there have been. Told to
        // finish while the server is away, the worker leaves here too: it has not begun the job,
        // which the server still holds as pending, so the visibility timeout hands it to another
        // worker, as it would a killed worker's.
        let pending: Vec<(String, String, u64, u64)> = link.run_unless(Some(finish), |con| {
            redis::cmd("XPENDING")
                .arg(keys::JOBS)
                .arg(keys::GROUP)
                .arg(&e.id)
                .arg(&e.id)
                .arg(1)
                .query(con)
        })?;
        let deliveries = pending.first().map_or(1, |p| p.3);
        tracing::info!(
            "{consumer}: took over job entry {} from a silent worker (delivery {deliveries})",
            e.id
        );
        return Ok(Some(Taken {
            bytes: e.get("job"),
            entry: e.id,
            deliveries,
        }));
    }
    let read: Option<redis::streams::StreamReadReply> = link.run_unless(Some(finish), |con| {
        redis::cmd("XREADGROUP")
            .arg("GROUP")
            .arg(keys::GROUP)
            .arg(consumer)
            .arg("COUNT")
            .arg(1)
            .arg("BLOCK")
            .arg(1000)
            .arg("STREAMS")
            .arg(keys::JOBS)
            .arg(">")
            .query(con)
    })?;
    Ok(read
        .into_iter()
        .flat_map(|r| r.keys)
        .flat_map(|k| k.ids)
        .next()
        .map(|e| Taken {
            bytes: e.get("job"),
            entry: e.id,
            deliveries: 1,
        }))
}

/// Acknowledges a job entry and removes it from the stream.
fn ack(link: &mut Link, entry: &str) -> Result<()> {
    link.run(|con| {
        redis::pipe()
            .cmd("XACK")
            .arg(keys::JOBS)
            .arg(keys::GROUP)
            .arg(entry)
            .ignore()
            .cmd("XDEL")
            .arg(keys::JOBS)
            .arg(entry)
            .ignore()
            .query::<()>(con)
    })
}

/// Puts a job back on the queue for another worker, now.
fn hand_back(link: &mut Link, taken: &Taken) -> Result<()> {
    let bytes = taken.bytes.clone().unwrap_or_default();
    link.run(|con| {
        add_job(redis::pipe().atomic(), &bytes)
            .cmd("XACK")
            .arg(keys::JOBS)
            .arg(keys::GROUP)
            .arg(&taken.entry)
            .ignore()
            .cmd("XDEL")
            .arg(keys::JOBS)
            .arg(&taken.entry)
            .ignore()
            .query::<()>(con)
    })
}

/// Posts a result (with its data) to its run's stream.
fn post(link: &mut Link, result: &JobResult, data: &[u8]) -> Result<()> {
    let bytes = result.to_bytes();
    let key = keys::results(&result.run);
    link.run(|con| {
        redis::cmd("XADD")
            .arg(&key)
            .arg("*")
            .arg("result")
            .arg(&bytes)
            .arg("data")
            .arg(data)
            .query::<String>(con)
    })?;
    Ok(())
}

/// What a worker thread keeps from one job to the next.
#[derive(Default)]
struct Kept {
    /// The self-play search engine.
    search: EngineSlot,
    /// The match engines' processes.
    engines: EnginePool,
    /// The openings, by variant.
    openings: HashMap<Variant, Vec<Position>>,
}

/// Runs one job and answers it.
fn handle(
    shared: &Shared,
    link: &mut Link,
    consumer: &str,
    taken: &Taken,
    kept: &mut Kept,
    t: usize,
) -> Result<()> {
    let o = &shared.options;
    if taken.deliveries > o.max_deliveries {
        let why = format!(
            "job entry {} delivered {} times (its workers stopped before answering each time): \
             a poison job, given up",
            taken.entry, taken.deliveries
        );
        return refuse(shared, link, consumer, taken, &why);
    }
    let job = match taken.bytes.as_deref().map(Job::parse) {
        Some(Ok(job)) => job,
        Some(Err(e)) => {
            let why = format!("job entry {} is malformed: {e}", taken.entry);
            return refuse(shared, link, consumer, taken, &why);
        }
        None => {
            let why = format!("job entry {} has no job field", taken.entry);
            return refuse(shared, link, consumer, taken, &why);
        }
    };
    if let Some(c) = shared.current.lock().get_mut(t).and_then(Option::as_mut) {
        c.run.clone_from(&job.run);
        c.job.clone_from(&job.id);
    }
    tracing::info!("{consumer}: job {} of {} started", job.id, job.run);
    let started = Instant::now();
    // A job that panics the code running it is answered with an error like any other refusal:
    // the engine it may have left half-way is dropped.
    let answer = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        if let Task::Egdb(task) = &job.task {
            // Slices are fetched from the queue and built in a directory of the thread's own.
            let scratch =
                std::env::temp_dir().join(format!("kroon-worker-{}-{t}", std::process::id()));
            let shared = o.shared_dir.as_deref();
            return crate::egdb::play(link, &job.run, task, &scratch, shared).map(|d| Some((d, 2)));
        }
        run_job(o, &job, kept, &shared.stop.abort)
    }))
    .unwrap_or_else(|panic| {
        kept.search = EngineSlot::default();
        kept.engines = EnginePool::default();
        let text = panic
            .downcast_ref::<&str>()
            .map(|s| (*s).to_owned())
            .or_else(|| panic.downcast_ref::<String>().cloned())
            .unwrap_or_default();
        Err(anyhow::anyhow!("the job panicked the worker: {text}"))
    });
    match answer {
        Ok(Some((data, items))) => {
            let result = JobResult {
                version: record::VERSION,
                run: job.run.clone(),
                job: job.id.clone(),
                worker: consumer.to_owned(),
                outcome: Outcome::Done {
                    bytes: data.len() as u64,
                    checksum: record::checksum(&data),
                    items,
                    work_ms: started.elapsed().as_millis() as u64,
                },
            };
            post(link, &result, &data)?;
            shared.tally.lock().done += 1;
            tracing::info!(
                "{consumer}: job {} of {} done in {} ms",
                job.id,
                job.run,
                started.elapsed().as_millis()
            );
        }
        Ok(None) => {
            tracing::info!("{consumer}: handing job {} of {} back", job.id, job.run);
            hand_back(link, taken)?;
            shared.tally.lock().handed_back += 1;
            return Ok(());
        }
        Err(e) => {
            tracing::warn!("{consumer}: job {} of {} refused: {e:#}", job.id, job.run);
            let r = JobResult::failed(&job.run, &job.id, consumer, &format!("{e:#}"));
            post(link, &r, &[])?;
            shared.tally.lock().failed += 1;
        }
    }
    ack(link, &taken.entry)
}

/// Answers a job that cannot be run (malformed, or a poison job) with an error result, and drops
/// it. The error goes to the run's results when the entry names a run and job plainly enough to
/// be read loosely (so its producer hears of it); otherwise, as nothing in it can be trusted, to
/// the errors stream, named by the entry.
fn refuse(
    shared: &Shared,
    link: &mut Link,
    consumer: &str,
    taken: &Taken,
    why: &str,
) -> Result<()> {
    match taken.bytes.as_deref().and_then(|b| record::named(b, "id")) {
        Some((run, job)) => post(link, &JobResult::failed(&run, &job, consumer, why), &[])?,
        None => post_error(
            link,
            &JobResult::failed("_", &record::plain_name(&taken.entry), consumer, why),
        )?,
    }
    // Said once the error is posted, so whoever reads this can find it.
    tracing::warn!("{consumer}: {why}");
    shared.tally.lock().failed += 1;
    ack(link, &taken.entry)
}

fn post_error(link: &mut Link, r: &JobResult) -> Result<()> {
    let bytes = r.to_bytes();
    link.run(|con| {
        redis::cmd("XADD")
            .arg(keys::ERRORS)
            .arg("MAXLEN")
            .arg("~")
            .arg(1000)
            .arg("*")
            .arg("result")
            .arg(&bytes)
            .query::<String>(con)
    })?;
    Ok(())
}

/// The build this worker is: refuses a job made for another.
fn check_build(o: &Options, job: &Build, variant: Variant) -> Result<Eval> {
    let kind = if job.eval.starts_with("learned") {
        EvalKind::Learned
    } else {
        EvalKind::Hand
    };
    let eval = (o.eval_for)(variant, kind)?;
    let mine = Build {
        bench: o.bench,
        eval: kroon_learn::selfplay::eval_id(&eval),
    };
    if &mine != job {
        anyhow::bail!("job made for another build ({job}); this worker is {mine}");
    }
    Ok(eval)
}

/// Runs a job: its data and item count, `None` if stopped, an error if refused.
fn run_job(
    o: &Options,
    job: &Job,
    kept: &mut Kept,
    abort: &AtomicBool,
) -> Result<Option<(Vec<u8>, u64)>> {
    match &job.task {
        Task::Selfplay(task) => {
            let variant: Variant = task
                .variant
                .parse()
                .map_err(|_| anyhow::anyhow!("unknown variant {}", task.variant))?;
            let eval = check_build(o, &job.build, variant)?;
            let openings = match kept.openings.entry(variant) {
                std::collections::hash_map::Entry::Occupied(e) => e.into_mut(),
                std::collections::hash_map::Entry::Vacant(e) => {
                    e.insert((o.openings_for)(variant)?)
                }
            };
            let with = Playing { eval, openings };
            selfplay::play(task, &with, &mut kept.search, abort)
        }
        Task::Egdb(_) => anyhow::bail!("a table job is run by handle"),
        Task::Match(task) => {
            // The engines are the worker's own programs, not this build's search: no build
            // check, but every engine comes from the worker's engines file.
            let Some(book) = &o.engines else {
                anyhow::bail!("this worker has no engines file (kroon worker --engines FILE)");
            };
            Ok(
                kroon_match::remote::play_pair(task, book, &mut kept.engines, abort)?.map(
                    |games| {
                        (
                            serde_json::to_vec(&games).unwrap_or_default(),
                            games.len() as u64,
                        )
                    },
                ),
            )
        }
    }
}
