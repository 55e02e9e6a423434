//! What a queue holds: per run, its jobs pending, running (by whom, for how long), done and
//! failed; the workers alive; jobs too malformed to name their run.

use crate::link::{keys, Link};
use crate::record::{JobResult, Outcome};
use anyhow::Result;
use std::collections::{BTreeMap, HashSet};
use std::fmt;
use std::time::{SystemTime, UNIX_EPOCH};

/// A job being run.
#[derive(Clone, Debug)]
pub struct Running {
    /// The job.
    pub job: String,
    /// The worker thread (`NAME/T`).
    pub worker: String,
    /// Seconds since it started.
    pub seconds: u64,
}

/// One run's jobs.
#[derive(Clone, Debug, Default)]
pub struct RunStatus {
    /// What it makes (`selfplay`).
    pub kind: String,
    /// Jobs the producer issued (the batches its file lacked when it last started).
    pub jobs: u64,
    /// Jobs with a result.
    pub done: u64,
    /// Jobs whose every result so far is an error.
    pub failed: u64,
    /// Jobs being run.
    pub running: Vec<Running>,
    /// Jobs waiting for a worker.
    pub pending: u64,
    /// Results that repeated one already posted.
    pub duplicates: u64,
}

/// The queue.
#[derive(Clone, Debug, Default)]
pub struct Status {
    /// The runs, by name.
    pub runs: BTreeMap<String, RunStatus>,
    /// Worker threads with a live heartbeat and no job.
    pub idle: Vec<String>,
    /// Job entries too malformed to name their run.
    pub malformed: u64,
}

/// Reads the queue's status.
///
/// # Errors
/// The server refuses a command.
pub fn read(link: &mut Link) -> Result<Status> {
    let now_ms = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_millis() as u64)
        .unwrap_or(0);
    let mut status = Status::default();
    let runs: Vec<String> = link.run(|con| redis::cmd("SMEMBERS").arg(keys::RUNS).query(con))?;
    let beats: Vec<String> = link.run(|con| {
        let mut found = Vec::new();
        let mut cursor = 0u64;
        loop {
            let (next, batch): (u64, Vec<String>) = redis::cmd("SCAN")
                .arg(cursor)
                .arg("MATCH")
                .arg(keys::HEARTBEATS)
                .arg("COUNT")
                .arg(1000)
                .query(con)?;
            found.extend(batch);
            if next == 0 {
                return Ok(found);
            }
            cursor = next;
        }
    })?;
    let mut running: Vec<(String, Running)> = Vec::new();
    for key in beats {
        let value: Option<String> = link.run(|con| redis::cmd("GET").arg(&key).query(con))?;
        let worker = key.trim_start_matches("kroon:worker:").to_owned();
        let Some(value) = value else { continue };
        let mut parts = value.split(' ');
        match (parts.next(), parts.next(), parts.next()) {
            (Some(run), Some(job), Some(since)) if !job.is_empty() => {
                let since: u64 = since.parse().unwrap_or(now_ms);
                running.push((
                    run.to_owned(),
                    Running {
                        job: job.to_owned(),
                        worker,
                        seconds: now_ms.saturating_sub(since) / 1000,
                    },
                ));
            }
            _ => status.idle.push(worker),
        }
    }
    status.idle.sort();
    for run in runs {
        let (kind, jobs): (Option<String>, Option<u64>) = link.run(|con| {
            redis::cmd("HMGET")
                .arg(keys::run(&run))
                .arg("kind")
                .arg("jobs")
                .query(con)
        })?;
        let entries: redis::streams::StreamRangeReply = link.run(|con| {
            redis::cmd("XRANGE")
                .arg(keys::results(&run))
                .arg("-")
                .arg("+")
                .query(con)
        })?;
        let mut done = HashSet::new();
        let mut failed = HashSet::new();
        let mut duplicates = 0;
        for e in entries.ids {
            let Some(Ok(r)) = e.get::<Vec<u8>>("result").map(|b| JobResult::parse(&b)) else {
                continue;
            };
            match r.outcome {
                Outcome::Done { .. } => {
                    if !done.insert(r.job) {
                        duplicates += 1;
                    }
                }
                Outcome::Failed { .. } => {
                    failed.insert(r.job);
                }
            }
        }
        failed.retain(|j| !done.contains(j));
        let mut s = RunStatus {
            kind: kind.unwrap_or_default(),
            jobs: jobs.unwrap_or(0),
            done: done.len() as u64,
            failed: failed.len() as u64,
            duplicates,
            ..RunStatus::default()
        };
        s.running = running
            .iter()
            .filter(|(r, j)| *r == run && !done.contains(&j.job))
            .map(|(_, j)| j.clone())
            .collect();
        s.pending = s
            .jobs
            .saturating_sub(s.done + s.failed + s.running.len() as u64);
        status.runs.insert(run, s);
    }
    status.malformed = link.run(|con| redis::cmd("XLEN").arg(keys::ERRORS).query(con))?;
    Ok(status)
}

impl fmt::Display for Status {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.runs.is_empty() {
            writeln!(f, "no runs")?;
        }
        for (name, r) in &self.runs {
            writeln!(
                f,
                "run {name} ({}): {} jobs, {} pending, {} running, {} done, {} failed{}",
                r.kind,
                r.jobs,
                r.pending,
                r.running.len(),
                r.done,
                r.failed,
                if r.duplicates > 0 {
                    format!(", {} repeated results counted once", r.duplicates)
                } else {
                    String::new()
                }
            )?;
            for j in &r.running {
                writeln!(f, "  job {} on {} for {} s", j.job, j.worker, j.seconds)?;
            }
        }
        writeln!(f, "idle workers: {}", self.idle.len())?;
        for w in &self.idle {
            writeln!(f, "  {w}")?;
        }
        if self.malformed > 0 {
            writeln!(f, "malformed job entries: {}", self.malformed)?;
        }
        Ok(())
    }
}
