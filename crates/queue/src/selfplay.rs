//! Self-play through the queue: the producer cuts the games into batches (one job each), gathers
//! the results in any order and writes them in game order, so the file is the one `kroon
//! selfplay` writes on one thread, byte for byte; the worker plays a batch with the same code
//! (`kroon_learn::selfplay::play`).

use crate::link::{keys, Link};
use crate::record::{self, Build, Job, Outcome, SelfplayTask, Task};
use anyhow::{bail, Context, Result};
use kroon_learn::record::{open_for_append, Flags, Record, RECORD_SIZE};
use kroon_learn::selfplay::{self, MoveLimit, Settings, Summary};
use kroon_rules::{GameResult, Position, Variant};
use kroon_search::Engine;
use std::collections::{BTreeMap, HashMap, HashSet};
use std::io::Write;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

/// How often a job that failed is issued again before the run gives up on it.
const ATTEMPTS: u32 = 3;

/// The run's name: its settings' hash and the bench signature, so that neither a run with other
/// settings nor one of another build ever reads these results.
#[must_use]
pub fn run_name(settings: &Settings, openings: &[Position], build: &Build) -> String {
    format!(
        "selfplay-{:016x}-{}",
        settings.fingerprint(openings),
        build.bench
    )
}

/// The job for games `first..end`.
#[must_use]
pub fn job(
    run: &str,
    settings: &Settings,
    fingerprint: u64,
    build: &Build,
    first: u32,
    end: u32,
) -> Job {
    let (nodes, depth) = match settings.limit {
        MoveLimit::Nodes(n) => (Some(n), None),
        MoveLimit::Depth(d) => (None, Some(d)),
    };
    Job {
        version: record::VERSION,
        run: run.to_owned(),
        id: format!("{first}-{end}"),
        build: build.clone(),
        task: Task::Selfplay(SelfplayTask {
            variant: settings.variant.hub_name().to_owned(),
            nodes,
            depth,
            hash_mib: u32::try_from(settings.hash_mib).unwrap_or(u32::MAX),
            seed: settings.seed,
            random_plies: settings.random_plies,
            max_plies: settings.max_plies,
            adjudicate_score: settings.adjudicate_score,
            adjudicate_plies: settings.adjudicate_plies,
            fingerprint,
            first,
            end,
        }),
    }
}

/// A worker's engine, kept between jobs while their table size stays the same.
#[derive(Default)]
pub struct EngineSlot(Option<(usize, Engine)>);

impl EngineSlot {
    fn get(&mut self, hash_mib: usize) -> &mut Engine {
        if self.0.as_ref().map(|(h, _)| *h) != Some(hash_mib) {
            self.0 = Some((hash_mib, Engine::new(1, hash_mib)));
        }
        &mut self
            .0
            .get_or_insert_with(|| (hash_mib, Engine::new(1, hash_mib)))
            .1
    }
}

/// What a worker needs to play a job: its evaluation for the job's variant, and the openings.
pub struct Playing<'a> {
    /// The evaluation the worker plays this variant with, for the kind the job names.
    pub eval: kroon_search::Eval,
    /// The openings the worker's build starts games from.
    pub openings: &'a [Position],
}

/// Plays a job's games; `Ok(None)` when `stop` was set first (the job is then handed back).
///
/// # Errors
/// The job's settings hash to another value here than at the producer (another build's openings
/// or rules): the job is refused.
pub fn play(
    task: &SelfplayTask,
    with: &Playing<'_>,
    engine: &mut EngineSlot,
    stop: &AtomicBool,
) -> Result<Option<(Vec<u8>, u64)>> {
    let variant: Variant = task
        .variant
        .parse()
        .map_err(|_| anyhow::anyhow!("unknown variant {}", task.variant))?;
    let limit = match (task.nodes, task.depth) {
        (Some(n), _) => MoveLimit::Nodes(n),
        (_, Some(d)) => MoveLimit::Depth(d),
        _ => bail!("no move limit"),
    };
    let settings = Settings {
        variant,
        games: task.end,
        limit,
        threads: 1,
        hash_mib: task.hash_mib as usize,
        seed: task.seed,
        random_plies: task.random_plies,
        max_plies: task.max_plies,
        adjudicate_score: task.adjudicate_score,
        adjudicate_plies: task.adjudicate_plies,
        eval: with.eval.clone(),
        eval_id: selfplay::eval_id(&with.eval),
        out: std::path::PathBuf::new(),
    };
    let here = settings.fingerprint(with.openings);
    if here != task.fingerprint {
        bail!(
            "the job's settings hash to {here:016x} on this worker, not {:016x}: another build \
             (openings or rules differ)",
            task.fingerprint
        );
    }
    let engine = engine.get(settings.hash_mib);
    engine.set_eval(settings.eval.clone());
    let mut data = Vec::new();
    for g in task.first..task.end {
        let Some(records) = selfplay::play(&settings, with.openings, g, engine, stop) else {
            return Ok(None);
        };
        for r in &records {
            data.extend_from_slice(&r.to_bytes());
        }
    }
    Ok(Some((data, u64::from(task.end - task.first))))
}

/// Checks a batch's data: whole records of `variant`, games `first..end` in order, each ending
/// with its last record. Returns each game's records.
fn split_games(data: &[u8], variant: Variant, first: u32, end: u32) -> Result<Vec<Vec<Record>>> {
    if !data.len().is_multiple_of(RECORD_SIZE) {
        bail!("{} bytes is not a whole number of records", data.len());
    }
    let mut games: Vec<Vec<Record>> = Vec::new();
    let mut current: Vec<Record> = Vec::new();
    for chunk in data.chunks_exact(RECORD_SIZE) {
        let bytes: &[u8; RECORD_SIZE] = chunk.try_into().context("record size")?;
        let r = Record::from_bytes(bytes, variant).map_err(|e| anyhow::anyhow!("record: {e}"))?;
        let want = first + games.len() as u32;
        if r.game != want {
            bail!("record of game {} where game {want} was due", r.game);
        }
        let last = r.flags.has(Flags::LAST);
        current.push(r);
        if last {
            games.push(std::mem::take(&mut current));
        }
    }
    if !current.is_empty() || games.len() != (end - first) as usize {
        bail!("{} whole games where {} were due", games.len(), end - first);
    }
    Ok(games)
}

/// Progress as the producer sees it.
#[derive(Clone, Debug, Default)]
pub struct Progress {
    /// Jobs of this run still to write.
    pub jobs_left: usize,
    /// Games written.
    pub games: usize,
    /// Results that repeated one already counted.
    pub duplicates: usize,
}

/// Runs `settings` through the queue: issues the batches the file lacks, writes results in game
/// order as they arrive, and returns when the file is whole (or `stop` is set). A producer
/// restarted later collects the results already posted and issues only what is missing.
///
/// # Errors
/// The file cannot be written or holds other games, the server refuses a command, or a job
/// failed [`ATTEMPTS`] times (the message gives the workers' errors).
#[allow(clippy::too_many_lines)]
pub fn produce(
    link: &mut Link,
    settings: &Settings,
    openings: &[Position],
    build: &Build,
    batch: u32,
    stop: &AtomicBool,
    mut on_progress: impl FnMut(&Progress),
) -> Result<(Summary, Progress)> {
    anyhow::ensure!(!openings.is_empty(), "no openings to start from");
    anyhow::ensure!(
        (1..=record::MAX_BATCH).contains(&batch),
        "--batch must be 1 to {}",
        record::MAX_BATCH
    );
    let start = Instant::now();
    let fingerprint = settings.fingerprint(openings);
    let run = run_name(settings, openings, build);
    let (file, found) = open_for_append(&settings.out, settings.variant, fingerprint)?;
    let mut out = std::io::BufWriter::new(file);
    let mut summary = Summary {
        resumed_games: found.games.len(),
        ..Summary::default()
    };
    // Every batch with a game the file lacks, by its first game.
    let mut wanted: BTreeMap<u32, u32> = BTreeMap::new();
    let mut b = 0u32;
    while b < settings.games {
        let end = b.saturating_add(batch).min(settings.games);
        if (b..end).any(|g| !found.games.contains(&g)) {
            wanted.insert(b, end);
        }
        b = end;
    }
    let ids: HashMap<String, u32> = wanted
        .iter()
        .map(|(&first, &end)| (format!("{first}-{end}"), first))
        .collect();
    let mut progress = Progress {
        jobs_left: wanted.len(),
        ..Progress::default()
    };
    if wanted.is_empty() {
        return Ok((summary, progress));
    }
    link.register(&run, "selfplay", settings.games.div_ceil(batch) as usize)?;
    link.run(|con| {
        redis::cmd("HSET")
            .arg(keys::run(&run))
            .arg("out")
            .arg(settings.out.display().to_string())
            .query::<()>(con)
    })?;
    let mut done: HashMap<u32, Vec<Vec<Record>>> = HashMap::new();
    let mut failures: HashMap<u32, Vec<String>> = HashMap::new();
    let mut last_id = "0-0".to_owned();

    // Reads the results after `last_id`: `block` waits for one.
    let read = |link: &mut Link,
                last_id: &mut String,
                block: Option<Duration>,
                done: &mut HashMap<u32, Vec<Vec<Record>>>,
                failures: &mut HashMap<u32, Vec<String>>,
                progress: &mut Progress|
     -> Result<usize> {
        let entries = link.results(&run, last_id, 256, block)?;
        let n = entries.len();
        for e in entries {
            last_id.clone_from(&e.id);
            let result: Option<Vec<u8>> = e.get("result");
            let data: Vec<u8> = e.get("data").unwrap_or_default();
            let r = match crate::record::read_result(&e.id, &run, result.as_deref()) {
                Ok(r) => r,
                Err(None) => continue,
                Err(Some(r)) => r,
            };
            let Some(&first) = ids.get(&r.job) else {
                continue; // a batch the file already holds, or another cut of the run
            };
            if r.run != run || !wanted.contains_key(&first) {
                continue;
            }
            if done.contains_key(&first) {
                progress.duplicates += 1;
                continue;
            }
            let end = wanted[&first];
            match r.outcome {
                Outcome::Done {
                    bytes, checksum, ..
                } => {
                    let checked =
                        if bytes != data.len() as u64 || checksum != record::checksum(&data) {
                            Err(anyhow::anyhow!("data does not match its checksum"))
                        } else {
                            split_games(&data, settings.variant, first, end)
                        };
                    match checked {
                        Ok(games) => {
                            done.insert(first, games);
                        }
                        Err(err) => {
                            tracing::warn!("job {} from {}: {err:#}", r.job, r.worker);
                            failures
                                .entry(first)
                                .or_default()
                                .push(format!("{}: {err:#}", r.worker));
                        }
                    }
                }
                Outcome::Failed { error } => {
                    tracing::warn!("job {} failed on {}: {error}", r.job, r.worker);
                    failures
                        .entry(first)
                        .or_default()
                        .push(format!("{}: {error}", r.worker));
                }
            }
        }
        Ok(n)
    };

    // What earlier producers of this run left: results, then the jobs still out.
    while read(
        link,
        &mut last_id,
        None,
        &mut done,
        &mut failures,
        &mut progress,
    )? > 0
    {}
    let mut attempts: HashMap<u32, u32> = HashMap::new();
    for (&first, &end) in &wanted {
        if done.contains_key(&first) {
            continue;
        }
        let job = job(&run, settings, fingerprint, build, first, end);
        let failed_before = failures.remove(&first).is_some();
        let issued: bool = link.run(|con| {
            redis::cmd("SISMEMBER")
                .arg(keys::issued(&run))
                .arg(&job.id)
                .query(con)
        })?;
        if !issued || failed_before {
            link.issue(&run, &job)?;
        }
        attempts.insert(first, 1);
    }

    let mut next = *wanted.keys().next().unwrap_or(&0);
    let mut written: HashSet<u32> = HashSet::new();
    loop {
        // Write every batch that is next in game order.
        while let Some(games) = done.get(&next) {
            if !written.insert(next) {
                break;
            }
            for game in games {
                let Some(first) = game.first() else { continue };
                if found.games.contains(&first.game) {
                    continue;
                }
                for r in game {
                    out.write_all(&r.to_bytes())?;
                }
                summary.games += 1;
                summary.positions += game.len() as u64;
                summary.results[match first.result {
                    GameResult::WhiteWins => 0,
                    GameResult::Draw => 1,
                    GameResult::BlackWins => 2,
                }] += 1;
            }
            out.flush()?;
            progress.games = summary.games;
            progress.jobs_left -= 1;
            on_progress(&progress);
            match wanted.range(next + 1..).next() {
                Some((&f, _)) => next = f,
                None => {
                    summary.elapsed = start.elapsed();
                    return Ok((summary, progress));
                }
            }
        }
        if stop.load(Ordering::Relaxed) {
            summary.stopped = true;
            summary.elapsed = start.elapsed();
            return Ok((summary, progress));
        }
        // Failed jobs go out again, up to their last attempt.
        for (first, errors) in std::mem::take(&mut failures) {
            if done.contains_key(&first) {
                continue;
            }
            let tries = attempts.entry(first).or_insert(1);
            if *tries >= ATTEMPTS {
                bail!(
                    "games {first}-{} failed {ATTEMPTS} times ({}); run the producer again to \
                     re-issue them",
                    wanted[&first],
                    errors.join("; ")
                );
            }
            *tries += 1;
            link.issue(
                &run,
                &job(&run, settings, fingerprint, build, first, wanted[&first]),
            )?;
        }
        read(
            link,
            &mut last_id,
            Some(Duration::from_millis(500)),
            &mut done,
            &mut failures,
            &mut progress,
        )?;
    }
}
