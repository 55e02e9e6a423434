//! A match through the queue (`kroon match --queue`): each game pair of the schedule is a job
//! naming its engines; workers play it with engines from their own engines file, and the
//! producer checks every move and records the games in schedule order
//! (`kroon_match::Match::play_remote`), so the table, PDN, JSON and SPRT are those of the local
//! run on one thread. A producer restarted later collects the pairs already played.

use crate::link::{keys, Link};
use crate::record::{self, Build, Job, Outcome, Task};
use anyhow::{bail, Result};
use kroon_match::remote::{Courier, GameRecord, PairTask};
use kroon_match::{Match, Report};
use std::collections::{HashMap, VecDeque};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

/// How often a pair that failed is issued again before the match gives up on it.
const ATTEMPTS: u32 = 3;

/// The run's name: a hash of its tasks (settings, openings, engines' names) and the build.
#[must_use]
pub fn run_name(tasks: &[PairTask], build: &Build) -> String {
    let bytes = serde_json::to_vec(tasks).unwrap_or_default();
    format!("match-{:016x}-{}", record::checksum(&bytes), build.bench)
}

fn job_id(index: usize) -> String {
    format!("pair-{index}")
}

/// The producer's side of the queue.
struct Queue<'a> {
    link: &'a mut Link,
    run: String,
    build: Build,
    tasks: Vec<PairTask>,
    stop: &'a AtomicBool,
    last_id: String,
    ready: VecDeque<(usize, Vec<GameRecord>)>,
    failures: HashMap<usize, Vec<String>>,
    attempts: HashMap<usize, u32>,
    /// Results that repeated one already counted.
    duplicates: usize,
    seen: std::collections::HashSet<usize>,
}

impl Queue<'_> {
    fn job(&self, index: usize) -> Job {
        Job {
            version: record::VERSION,
            run: self.run.clone(),
            id: job_id(index),
            build: self.build.clone(),
            task: Task::Match(self.tasks[index].clone()),
        }
    }

    fn send(&mut self, index: usize) -> Result<()> {
        let job = self.job(index);
        self.link.issue(&self.run, &job)
    }

    /// Reads the results after `last_id` into `ready` and `failures`; `block` waits for one.
    fn read(&mut self, block: Option<Duration>) -> Result<usize> {
        let entries = self.link.results(&self.run, &self.last_id, 64, block)?;
        let n = entries.len();
        for e in entries {
            self.last_id.clone_from(&e.id);
            let result: Option<Vec<u8>> = e.get("result");
            let data: Vec<u8> = e.get("data").unwrap_or_default();
            let r = match record::read_result(&e.id, &self.run, result.as_deref()) {
                Ok(r) => r,
                Err(None) => continue,
                Err(Some(r)) => r,
            };
            let Some(index) = r
                .job
                .strip_prefix("pair-")
                .and_then(|i| i.parse::<usize>().ok())
                .filter(|&i| i < self.tasks.len())
            else {
                tracing::warn!("result entry {} names no pair of this match", e.id);
                continue;
            };
            if self.seen.contains(&index) {
                self.duplicates += 1;
                continue;
            }
            let games = match r.outcome {
                Outcome::Done {
                    bytes, checksum, ..
                } => {
                    if bytes != data.len() as u64 || checksum != record::checksum(&data) {
                        Err("data does not match its checksum".to_owned())
                    } else {
                        serde_json::from_slice::<Vec<GameRecord>>(&data)
                            .map_err(|err| format!("games unreadable: {err}"))
                    }
                }
                Outcome::Failed { error } => Err(error),
            };
            match games {
                Ok(games) => {
                    self.seen.insert(index);
                    self.ready.push_back((index, games));
                }
                Err(why) => {
                    tracing::warn!("pair {index} failed on {}: {why}", r.worker);
                    self.failures
                        .entry(index)
                        .or_default()
                        .push(format!("{}: {why}", r.worker));
                }
            }
        }
        Ok(n)
    }

    /// Issues again the pairs that failed, up to their last attempt.
    fn retry(&mut self) -> Result<()> {
        for (index, errors) in std::mem::take(&mut self.failures) {
            if self.seen.contains(&index) {
                continue;
            }
            let tries = self.attempts.entry(index).or_insert(1);
            if *tries >= ATTEMPTS {
                bail!(
                    "game pair {index} failed {ATTEMPTS} times ({}); run the match again to \
                     re-issue it",
                    errors.join("; ")
                );
            }
            *tries += 1;
            self.send(index)?;
        }
        Ok(())
    }
}

impl Courier for Queue<'_> {
    fn issue(&mut self, tasks: &[(usize, PairTask)]) -> Result<()> {
        // What earlier producers of this match left: results, then the pairs still out.
        while self.read(None)? > 0 {}
        for &(index, _) in tasks {
            if self.seen.contains(&index) {
                continue;
            }
            let failed_before = self.failures.remove(&index).is_some();
            let issued: bool = self.link.run(|con| {
                redis::cmd("SISMEMBER")
                    .arg(keys::issued(&self.run))
                    .arg(job_id(index))
                    .query(con)
            })?;
            if !issued || failed_before {
                self.send(index)?;
            }
            self.attempts.insert(index, 1);
        }
        Ok(())
    }

    fn next(&mut self) -> Result<Option<(usize, Vec<GameRecord>)>> {
        loop {
            if let Some(r) = self.ready.pop_front() {
                return Ok(Some(r));
            }
            if self.stop.load(Ordering::Relaxed) {
                return Ok(None);
            }
            self.retry()?;
            self.read(Some(Duration::from_millis(500)))?;
        }
    }

    fn reject(&mut self, index: usize, why: &str) -> Result<()> {
        tracing::warn!("pair {index}: the games do not check ({why})");
        self.seen.remove(&index);
        self.failures
            .entry(index)
            .or_default()
            .push(format!("games do not check: {why}"));
        Ok(())
    }
}

/// Plays `m` through the queue; returns its report and the results that repeated one already
/// counted.
///
/// # Errors
/// The match has engines that cannot play queued games, the server refuses a command, a pair
/// failed [`ATTEMPTS`] times, or an output file cannot be written.
pub fn produce(
    link: &mut Link,
    m: &Match,
    build: &Build,
    stop: &AtomicBool,
) -> Result<(Report, usize)> {
    let tasks = m.pair_tasks()?;
    let run = run_name(&tasks, build);
    link.register(&run, "match", tasks.len())?;
    tracing::info!(
        "queue {}: match run {run}, {} pairs",
        link.shown(),
        tasks.len()
    );
    let mut queue = Queue {
        link,
        run,
        build: build.clone(),
        tasks,
        stop,
        last_id: "0-0".to_owned(),
        ready: VecDeque::new(),
        failures: HashMap::new(),
        attempts: HashMap::new(),
        duplicates: 0,
        seen: std::collections::HashSet::new(),
    };
    let report = m.play_remote(&mut queue)?;
    Ok((report, queue.duplicates))
}
