//! The job and result records: what travels through Redis. A job is data (settings, seeds, a
//! range of game numbers), never a command line; a result names its job and carries either the
//! work's checksum or an error. Both are JSON objects with a version, read by a total parser: any
//! bytes give a record or an error, never a panic.

use serde::{Deserialize, Serialize};

/// The record format's version; a record of another version is refused, not guessed at.
pub const VERSION: u32 = 1;

/// Longest run or job name: they become parts of Redis keys.
pub const MAX_NAME: usize = 128;

/// Most games in one self-play job.
pub const MAX_BATCH: u32 = 10_000;

/// Largest transposition table a job may ask a worker for, MiB.
pub const MAX_HASH_MIB: u32 = 4096;

/// Longest error text a result carries.
pub const MAX_ERROR: usize = 2000;

/// Why a record was refused.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum RecordError {
    /// Not JSON, or not a record of this shape.
    #[error("malformed record: {0}")]
    Malformed(String),
    /// Another format version.
    #[error("record version {found}; this Kroon reads version {VERSION}")]
    Version {
        /// The record's version.
        found: u32,
    },
    /// A field out of its range.
    #[error("bad {field}: {why}")]
    Field {
        /// The field.
        field: &'static str,
        /// What is wrong with it.
        why: String,
    },
}

fn field(field: &'static str, why: impl Into<String>) -> RecordError {
    RecordError::Field {
        field,
        why: why.into(),
    }
}

/// The engine a job is made for: a result is only ever mixed from one engine.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq, Eq, Hash)]
#[serde(deny_unknown_fields)]
pub struct Build {
    /// The bench signature: the node total of a fixed search (changes with the search).
    pub bench: u64,
    /// The evaluation's fingerprint: `hand`, or `learned` and the weights' hash.
    pub eval: String,
}

impl std::fmt::Display for Build {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "bench {} eval {}", self.bench, self.eval)
    }
}

/// A self-play batch: games `first..end` of the run these settings describe, played as
/// `kroon selfplay` plays them.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
pub struct SelfplayTask {
    /// The variant's Hub name.
    pub variant: String,
    /// Nodes a move (exactly one of `nodes` and `depth`).
    pub nodes: Option<u64>,
    /// Depth a move.
    pub depth: Option<u32>,
    /// Table per game, MiB.
    pub hash_mib: u32,
    /// Seed of every game's start.
    pub seed: u64,
    /// Random plies after the opening.
    pub random_plies: u32,
    /// Game length cap.
    pub max_plies: u32,
    /// Adjudication score, centi-men.
    pub adjudicate_score: i32,
    /// Adjudication plies (0: none).
    pub adjudicate_plies: u32,
    /// The settings' hash as the producer computed it (`Settings::fingerprint`): the worker
    /// computes its own and refuses the job when they differ.
    pub fingerprint: u64,
    /// First game.
    pub first: u32,
    /// One past the last game.
    pub end: u32,
}

/// The pair of endgame-table slices `slice` belongs to (it and its mirror), built by
/// `kroon egdb build`'s code from the slices it needs, which the worker fetches from the queue.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
pub struct EgdbTask {
    /// The slice's name (`1K2M-1K`).
    pub slice: String,
    /// Slices up to this many pieces keep their distances to conversion (as `build::Options`).
    pub distances: u32,
    /// The slices travel through a directory every worker mounts (each worker's own
    /// `--shared-dir`), not through the queue: only file names and checksums are on it.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub shared: bool,
}

impl EgdbTask {
    fn check(&self) -> Result<(), RecordError> {
        let m: kroon_egdb::Material = self
            .slice
            .parse()
            .map_err(|e| field("slice", format!("{:?}: {e}", self.slice)))?;
        if !m.is_stored() || m.pieces() > kroon_egdb::MAX_PIECES {
            return Err(field(
                "slice",
                format!("{m} is not a slice the tables store"),
            ));
        }
        if self.distances > kroon_egdb::MAX_PIECES {
            return Err(field(
                "distances",
                format!("0 to {}", kroon_egdb::MAX_PIECES),
            ));
        }
        Ok(())
    }
}

/// What a job asks for.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum Task {
    /// Self-play games.
    Selfplay(SelfplayTask),
    /// A game pair of a match, its engines named (each worker maps names to its own engines).
    Match(kroon_match::remote::PairTask),
    /// A pair of endgame-table slices.
    Egdb(EgdbTask),
}

/// A job.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Job {
    /// [`VERSION`].
    pub version: u32,
    /// The run it belongs to (its results go to that run's stream).
    pub run: String,
    /// Its name within the run; a result is keyed by it, so a job run twice counts once.
    pub id: String,
    /// The engine it is made for.
    pub build: Build,
    /// The work.
    pub task: Task,
}

/// How a job ended.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq, Eq)]
#[serde(tag = "status", rename_all = "snake_case", deny_unknown_fields)]
pub enum Outcome {
    /// Done: the data that comes with the result has this many bytes and this checksum.
    Done {
        /// Bytes of data.
        bytes: u64,
        /// FNV-1a of the data.
        checksum: u64,
        /// Items made (games, pairs, positions).
        items: u64,
        /// Time the work took on the worker, ms.
        work_ms: u64,
    },
    /// Not done, and why (the producer counts it failed and re-issues it when restarted).
    Failed {
        /// What went wrong.
        error: String,
    },
}

/// A job's result.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
pub struct JobResult {
    /// [`VERSION`].
    pub version: u32,
    /// The job's run.
    pub run: String,
    /// The job's id.
    pub job: String,
    /// The worker that ran it.
    pub worker: String,
    /// How it ended.
    pub outcome: Outcome,
}

/// Names are plain: letters, digits and `-_.:/`, at most [`MAX_NAME`] bytes.
fn check_name(what: &'static str, name: &str) -> Result<(), RecordError> {
    if name.is_empty() || name.len() > MAX_NAME {
        return Err(field(
            what,
            format!("length {} (1 to {MAX_NAME})", name.len()),
        ));
    }
    if let Some(c) = name
        .chars()
        .find(|c| !(c.is_ascii_alphanumeric() || "-_.:/".contains(*c)))
    {
        return Err(field(what, format!("character {c:?}")));
    }
    Ok(())
}

fn check_version(version: u32) -> Result<(), RecordError> {
    if version == VERSION {
        Ok(())
    } else {
        Err(RecordError::Version { found: version })
    }
}

fn parse_json<T: serde::de::DeserializeOwned>(bytes: &[u8]) -> Result<T, RecordError> {
    // The version is read first, so that a record of a later version says so rather than
    // failing on a field this Kroon does not know.
    #[derive(Deserialize)]
    struct Versioned {
        version: u32,
    }
    match serde_json::from_slice::<Versioned>(bytes) {
        Ok(v) => check_version(v.version)?,
        Err(e) => return Err(RecordError::Malformed(e.to_string())),
    }
    serde_json::from_slice(bytes).map_err(|e| RecordError::Malformed(e.to_string()))
}

impl SelfplayTask {
    fn check(&self) -> Result<(), RecordError> {
        if self.variant.parse::<kroon_rules::Variant>().is_err() {
            return Err(field(
                "variant",
                format!("unknown variant {:?}", self.variant),
            ));
        }
        match (self.nodes, self.depth) {
            (Some(n), None) if n >= 1 => {}
            (None, Some(d)) if (1..=99).contains(&d) => {}
            _ => return Err(field("limit", "one of nodes (>= 1) or depth (1 to 99)")),
        }
        if !(1..=MAX_HASH_MIB).contains(&self.hash_mib) {
            return Err(field("hash_mib", format!("1 to {MAX_HASH_MIB}")));
        }
        if self.first >= self.end || self.end - self.first > MAX_BATCH {
            return Err(field(
                "games",
                format!("{}..{}: 1 to {MAX_BATCH} games", self.first, self.end),
            ));
        }
        Ok(())
    }
}

impl Job {
    /// Reads a job.
    ///
    /// # Errors
    /// Bytes that are not a job of this version with every field in range.
    pub fn parse(bytes: &[u8]) -> Result<Job, RecordError> {
        let job: Job = parse_json(bytes)?;
        check_name("run", &job.run)?;
        check_name("id", &job.id)?;
        if job.build.eval.len() > MAX_NAME {
            return Err(field("build.eval", "too long"));
        }
        match &job.task {
            Task::Selfplay(t) => t.check()?,
            Task::Egdb(t) => t.check()?,
            Task::Match(t) => {
                t.check()
                    .map_err(|e| field("task", format!("match pair: {e:#}")))?;
            }
        }
        Ok(job)
    }

    /// The record as bytes, which [`Job::parse`] reads back to the same job.
    #[must_use]
    pub fn to_bytes(&self) -> Vec<u8> {
        serde_json::to_vec(self).unwrap_or_default()
    }
}

impl JobResult {
    /// Reads a result.
    ///
    /// # Errors
    /// Bytes that are not a result of this version with every field in range.
    pub fn parse(bytes: &[u8]) -> Result<JobResult, RecordError> {
        let r: JobResult = parse_json(bytes)?;
        check_name("run", &r.run)?;
        check_name("job", &r.job)?;
        check_name("worker", &r.worker)?;
        if let Outcome::Failed { error } = &r.outcome {
            if error.len() > MAX_ERROR {
                return Err(field("error", "too long"));
            }
        }
        Ok(r)
    }

    /// The record as bytes, which [`JobResult::parse`] reads back to the same result.
    #[must_use]
    pub fn to_bytes(&self) -> Vec<u8> {
        serde_json::to_vec(self).unwrap_or_default()
    }

    /// A failed result for `job`, the error cut to [`MAX_ERROR`] bytes.
    #[must_use]
    pub fn failed(run: &str, job: &str, worker: &str, error: &str) -> JobResult {
        let mut error = error.to_owned();
        if error.len() > MAX_ERROR {
            let mut cut = MAX_ERROR;
            while !error.is_char_boundary(cut) {
                cut -= 1;
            }
            error.truncate(cut);
        }
        JobResult {
            version: VERSION,
            run: run.to_owned(),
            job: job.to_owned(),
            worker: worker.to_owned(),
            outcome: Outcome::Failed { error },
        }
    }
}

/// The run and job a record names, read loosely from a record too malformed to parse (a field out
/// of range, an unknown task): enough to send its error where its producer looks. `None` unless
/// both are plain names.
#[must_use]
pub fn named(bytes: &[u8], job_field: &str) -> Option<(String, String)> {
    let value: serde_json::Value = serde_json::from_slice(bytes).ok()?;
    let run = value.get("run")?.as_str()?;
    let job = value.get(job_field)?.as_str()?;
    (check_name("run", run).is_ok() && check_name("job", job).is_ok())
        .then(|| (run.to_owned(), job.to_owned()))
}

/// Reads the result record of entry `entry` in `run`'s results stream, as a producer does: a
/// malformed one is logged with the entry's id and, when it names one of the run's jobs loosely,
/// turned into a failure of that job (`Err(Some(..))`) so that the job is issued again rather
/// than waited for; otherwise it is dropped (`Err(None)`).
///
/// # Errors
/// As said: `Err` is a record that was not read as sent.
pub fn read_result(
    entry: &str,
    run: &str,
    bytes: Option<&[u8]>,
) -> Result<JobResult, Option<JobResult>> {
    let Some(bytes) = bytes else {
        tracing::warn!("result entry {entry} of run {run} has no result field; ignored");
        return Err(None);
    };
    let err = match JobResult::parse(bytes) {
        Ok(r) => return Ok(r),
        Err(err) => err,
    };
    match named(bytes, "job") {
        Some((r, job)) if r == run => {
            let worker = serde_json::from_slice::<serde_json::Value>(bytes)
                .ok()
                .and_then(|v| v.get("worker")?.as_str().map(plain_name))
                .unwrap_or_else(|| "_".to_owned());
            tracing::warn!(
                "result entry {entry} of run {run} (job {job} from {worker}) is malformed: {err}; \
                 counted as a failure"
            );
            Err(Some(JobResult::failed(
                run,
                &job,
                &worker,
                &format!("malformed result entry {entry}: {err}"),
            )))
        }
        _ => {
            tracing::warn!("result entry {entry} of run {run} is malformed: {err}; ignored");
            Err(None)
        }
    }
}

/// A name made plain for a record: characters outside the allowed set become `_`, cut to
/// [`MAX_NAME`]; an empty name becomes `_`.
#[must_use]
pub fn plain_name(name: &str) -> String {
    let mut out: String = name
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || "-_.:/".contains(c) {
                c
            } else {
                '_'
            }
        })
        .take(MAX_NAME)
        .collect();
    if out.is_empty() {
        out.push('_');
    }
    out
}

/// FNV-1a over the data a result carries.
#[must_use]
pub fn checksum(data: &[u8]) -> u64 {
    kroon_rules::hash::fnv1a(data)
}

#[cfg(test)]
mod tests {
    use super::*;

    pub(crate) fn job() -> Job {
        Job {
            version: VERSION,
            run: "selfplay-0123456789abcdef".into(),
            id: "0-8".into(),
            build: Build {
                bench: 388_572,
                eval: "hand".into(),
            },
            task: Task::Selfplay(SelfplayTask {
                variant: "normal".into(),
                nodes: Some(300),
                depth: None,
                hash_mib: 1,
                seed: 9,
                random_plies: 4,
                max_plies: 120,
                adjudicate_score: 600,
                adjudicate_plies: 4,
                fingerprint: u64::MAX,
                first: 0,
                end: 8,
            }),
        }
    }

    #[test]
    fn a_table_job_says_shared_only_when_it_is() {
        let mut j = job();
        for shared in [false, true] {
            j.task = Task::Egdb(EgdbTask {
                slice: "2M-1K".into(),
                distances: 4,
                shared,
            });
            let bytes = j.to_bytes();
            assert_eq!(Job::parse(&bytes), Ok(j.clone()));
            // A job through the queue reads as the records before the shared directory did.
            let text = String::from_utf8(bytes).unwrap();
            assert_eq!(text.contains(r#""shared":true"#), shared, "{text}");
            assert!(!text.contains(r#""shared":false"#), "{text}");
        }
    }

    #[test]
    fn a_job_reads_back_and_out_of_range_fields_are_refused() {
        let j = job();
        let bytes = j.to_bytes();
        assert_eq!(Job::parse(&bytes), Ok(j.clone()));
        let text = String::from_utf8(bytes).unwrap();
        for (from, to) in [
            ("\"version\":1", "\"version\":2"),
            ("\"first\":0", "\"first\":8"),
            ("\"hash_mib\":1", "\"hash_mib\":100000"),
            ("\"nodes\":300", "\"nodes\":null"),
            ("\"variant\":\"normal\"", "\"variant\":\"chess\""),
            ("\"id\":\"0-8\"", "\"id\":\"a b\""),
            ("\"kind\":\"selfplay\"", "\"kind\":\"shell\""),
            ("\"seed\":9", "\"seed\":9,\"command\":\"rm -rf /\""),
        ] {
            assert!(text.contains(from), "{from}");
            let bad = text.replacen(from, to, 1);
            assert!(Job::parse(bad.as_bytes()).is_err(), "{bad}");
        }
        assert!(matches!(
            Job::parse(
                text.replacen("\"version\":1", "\"version\":2", 1)
                    .as_bytes()
            ),
            Err(RecordError::Version { found: 2 })
        ));
        assert!(Job::parse(b"").is_err());
        assert!(Job::parse(&[0xff, 0xfe]).is_err());
    }

    #[test]
    fn a_result_reads_back_and_its_error_is_cut_to_size() {
        let r = JobResult {
            version: VERSION,
            run: "r".into(),
            job: "0-8".into(),
            worker: "w/0".into(),
            outcome: Outcome::Done {
                bytes: 64,
                checksum: 5,
                items: 8,
                work_ms: 12,
            },
        };
        assert_eq!(JobResult::parse(&r.to_bytes()), Ok(r));
        let long = "é".repeat(MAX_ERROR);
        let f = JobResult::failed("r", "j", "w", &long);
        assert!(matches!(&f.outcome, Outcome::Failed { error } if error.len() <= MAX_ERROR));
        assert_eq!(JobResult::parse(&f.to_bytes()), Ok(f));
        assert_eq!(plain_name("host name!"), "host_name_");
        assert_eq!(
            named(br#"{"run":"r1","id":"0-2","task":{"kind":"shell"}}"#, "id"),
            Some(("r1".into(), "0-2".into()))
        );
        assert_eq!(named(br#"{"run":"r 1","id":"0-2"}"#, "id"), None);
        assert_eq!(named(b"\xff", "id"), None);
        assert_eq!(plain_name(""), "_");
    }
}
