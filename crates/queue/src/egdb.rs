//! Endgame tables through the queue (`kroon egdb build --queue`): each slice and its mirror (the
//! builder makes them together) is a job, issued once every slice it converts into is done. The
//! worker fetches those slices from Redis, builds the pair with the local builder's code on one
//! thread, and returns the two files with their checksum; the producer checks them (the job's
//! checksum, then each file's own header and checksum, then that it holds the slice asked for),
//! writes them to its directory and puts them on Redis for the jobs that need them next.
//!
//! Slices travel through Redis: up to 5 pieces they are a few MB at most, and a worker then
//! needs nothing but the queue's address. Larger slices (6 pieces: hundreds of MB each) travel
//! through a directory every machine mounts (`egdb build --shared`, `worker --shared-dir`): the
//! worker reads the slices it needs there and writes its pair to the directory's `incoming/`,
//! and only the files' names, lengths and checksums go on the queue; the producer checks the
//! files there and moves them into place.

use crate::link::{keys, Link};
use crate::record::{self, Build, EgdbTask, Job, Outcome, Task};
use anyhow::{bail, Context, Result};
use kroon_egdb::build::{self, Plan};
use kroon_egdb::store::{self, Slice};
use kroon_egdb::Material;
use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

/// How often a pair that failed is issued again before the build gives up on it.
const ATTEMPTS: u32 = 3;

/// The Redis key of a finished slice file of `run`.
#[must_use]
pub fn slice_key(run: &str, m: Material) -> String {
    format!("kroon:run:{run}:slice:{m}")
}

/// The slices of the pair `m` belongs to: `m` first, then its mirror if that is another.
fn pair_of(m: Material) -> Vec<Material> {
    if m.swapped() == m {
        vec![m]
    } else {
        vec![m, m.swapped()]
    }
}

/// The slices the pair of `m` needs, built before it: everything its plan holds but the pair.
fn needs(m: Material) -> Vec<Material> {
    let pair = pair_of(m);
    Plan::materials(&[m])
        .slices()
        .iter()
        .copied()
        .filter(|s| !pair.contains(s))
        .collect()
}

/// Files as a job's data: for each, its length (8 bytes, little-endian) and its bytes.
fn pack(files: &[Vec<u8>]) -> Vec<u8> {
    let mut out = Vec::new();
    for f in files {
        out.extend_from_slice(&(f.len() as u64).to_le_bytes());
        out.extend_from_slice(f);
    }
    out
}

fn unpack(mut data: &[u8]) -> Result<Vec<&[u8]>> {
    let mut files = Vec::new();
    while !data.is_empty() {
        let Some((len, rest)) = data.split_first_chunk::<8>() else {
            bail!("a file's length is cut");
        };
        let len = usize::try_from(u64::from_le_bytes(*len)).context("file length")?;
        if len > rest.len() {
            bail!("a file is cut ({len} bytes announced, {} left)", rest.len());
        }
        files.push(&rest[..len]);
        data = &rest[len..];
    }
    Ok(files)
}

/// The folder of a shared directory where workers put the slices they built, for the producer
/// to check and move into place.
pub const INCOMING: &str = "incoming";

/// A slice `shared` (a directory every worker mounts) holds, or `None`.
fn read_shared(shared: &Path, m: Material) -> Result<Option<Vec<u8>>> {
    let path = store::path(shared, m);
    match std::fs::read(&path) {
        Ok(bytes) => Ok(Some(bytes)),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(e).with_context(|| format!("reading {}", path.display())),
    }
}

/// A shared job's data: a line `NAME LENGTH CHECKSUM` for each file put in `incoming/`.
fn manifest(files: &[(String, Vec<u8>)]) -> Vec<u8> {
    files
        .iter()
        .map(|(name, bytes)| format!("{name} {} {:016x}\n", bytes.len(), record::checksum(bytes)))
        .collect::<String>()
        .into_bytes()
}

/// The worker's side: builds the pair of `task`'s slice in a directory of its own, from the
/// slices it needs as the queue holds them (or, for a shared job, as `shared` does); the two
/// files, packed (for a shared job: put in `shared`'s `incoming/`, and their manifest).
///
/// # Errors
/// A slice it needs is missing or does not check, a shared job comes to a worker without a
/// shared directory, or the build failed.
pub fn play(
    link: &mut Link,
    run: &str,
    task: &EgdbTask,
    scratch: &Path,
    shared: Option<&Path>,
) -> Result<Vec<u8>> {
    let m: Material = task
        .slice
        .parse()
        .map_err(|e| anyhow::anyhow!("slice {}: {e}", task.slice))?;
    let shared = match (task.shared, shared) {
        (true, None) => bail!(
            "a table job through a shared directory, and this worker has none (kroon worker \
             --shared-dir DIR)"
        ),
        (true, Some(dir)) => Some(dir),
        (false, _) => None,
    };
    let _ = std::fs::remove_dir_all(scratch);
    std::fs::create_dir_all(scratch).with_context(|| format!("{}", scratch.display()))?;
    let result = (|| {
        for need in needs(m) {
            let bytes: Option<Vec<u8>> = match shared {
                Some(dir) => read_shared(dir, need)?,
                None => link.run(|con| redis::cmd("GET").arg(slice_key(run, need)).query(con))?,
            };
            let Some(bytes) = bytes else {
                let place = if shared.is_some() {
                    "in the shared directory"
                } else {
                    "on the queue"
                };
                bail!("slice {need}, which {m} needs, is not {place}");
            };
            check_slice(need, &bytes)?;
            std::fs::write(store::path(scratch, need), &bytes)?;
        }
        let options = build::Options {
            threads: 1,
            distances: task.distances,
            memory: None,
        };
        build::build(&Plan::materials(&[m]), scratch, &options, &|_| {})?;
        let files = pair_of(m)
            .into_iter()
            .map(|s| std::fs::read(store::path(scratch, s)))
            .collect::<std::io::Result<Vec<_>>>()?;
        let Some(dir) = shared else {
            return Ok(pack(&files));
        };
        // Named after this thread's scratch directory, so that two workers never write the same
        // file; whole (under another name first) before the producer hears of it.
        let incoming = dir.join(INCOMING);
        std::fs::create_dir_all(&incoming).with_context(|| format!("{}", incoming.display()))?;
        let tag = scratch
            .file_name()
            .map_or_else(|| "worker".into(), |t| t.to_string_lossy());
        let mut named = Vec::new();
        for (s, bytes) in pair_of(m).into_iter().zip(files) {
            let name = format!("{s}.{tag}.kdb");
            write_whole(&incoming.join(&name), &bytes)?;
            named.push((name, bytes));
        }
        Ok(manifest(&named))
    })();
    let _ = std::fs::remove_dir_all(scratch);
    result
}

/// What a producer did.
#[derive(Clone, Debug, Default)]
pub struct Summary {
    /// Slices found in the directory.
    pub found: usize,
    /// Slices built by workers (checked and written).
    pub built: usize,
    /// Results that repeated one already counted.
    pub duplicates: usize,
}

/// A pair's files as a result brings them: in its data, or in the shared directory.
enum Arrived<'a> {
    Queue(Vec<&'a [u8]>),
    Shared(Vec<PathBuf>),
}

/// Builds `plan` in `dir` through the queue; `shared` when `dir` is a directory every worker
/// mounts (each at its `--shared-dir`), through which the slices then travel. The caller holds
/// the directory's lock.
///
/// # Errors
/// The server refuses a command, a pair failed [`ATTEMPTS`] times, or a file cannot be written.
#[allow(clippy::too_many_lines, clippy::too_many_arguments)]
pub fn produce(
    link: &mut Link,
    plan: &Plan,
    dir: &Path,
    distances: u32,
    shared: bool,
    build_id: &Build,
    stop: &AtomicBool,
    mut on_slice: impl FnMut(Material, bool),
) -> Result<Summary> {
    std::fs::create_dir_all(dir).with_context(|| format!("{}", dir.display()))?;
    let names: Vec<String> = plan.slices().iter().map(ToString::to_string).collect();
    let run = format!(
        "egdb-{:016x}-d{distances}-v{}",
        record::checksum(names.join(",").as_bytes()),
        store::VERSION
    );
    // Pairs by their first slice (in plan order), with what each needs.
    let mut pairs: BTreeMap<usize, Material> = BTreeMap::new();
    let mut placed: BTreeSet<Material> = BTreeSet::new();
    for (i, &m) in plan.slices().iter().enumerate() {
        if placed.contains(&m) {
            continue;
        }
        placed.extend(pair_of(m));
        pairs.insert(i, m);
    }
    let id_of = |m: Material| m.to_string();
    let by_id: HashMap<String, Material> = pairs.values().map(|&m| (id_of(m), m)).collect();
    let mut summary = Summary::default();
    let mut done: BTreeSet<Material> = BTreeSet::new();
    link.register(&run, "egdb", pairs.len())?;
    // Slices already here go on the queue for the jobs that need them.
    for &m in pairs.values() {
        let files: Option<Vec<Vec<u8>>> = pair_of(m)
            .into_iter()
            .map(|s| {
                let bytes = std::fs::read(store::path(dir, s)).ok()?;
                (Slice::parse(&bytes).ok()?.material() == s).then_some(bytes)
            })
            .collect();
        if let Some(files) = files {
            // Shared: the workers read them in the directory.
            for (s, bytes) in pair_of(m).into_iter().zip(&files).filter(|_| !shared) {
                link.run(|con| {
                    redis::cmd("SET")
                        .arg(slice_key(&run, s))
                        .arg(bytes)
                        .query::<()>(con)
                })?;
            }
            done.insert(m);
            summary.found += files.len();
        }
    }
    let job = |m: Material| Job {
        version: record::VERSION,
        run: run.clone(),
        id: id_of(m),
        build: build_id.clone(),
        task: Task::Egdb(EgdbTask {
            slice: m.to_string(),
            distances,
            shared,
        }),
    };
    let issue = |link: &mut Link, m: Material| link.issue(&run, &job(m));
    let needs_of: HashMap<Material, Vec<Material>> =
        pairs.values().map(|&m| (m, needs(m))).collect();
    // `done` holds each pair by its first slice, which may be either of the two.
    let pair_done =
        |done: &BTreeSet<Material>, s: Material| done.contains(&s) || done.contains(&s.swapped());
    let mut out: BTreeSet<Material> = BTreeSet::new();
    let mut attempts: HashMap<Material, u32> = HashMap::new();
    let mut failures: HashMap<Material, Vec<String>> = HashMap::new();
    let mut last_id = "0-0".to_owned();
    let mut first_pass = true;
    while done.len() < pairs.len() {
        if stop.load(Ordering::Relaxed) {
            bail!("stopped; run the build again to carry on");
        }
        // Issue what is ready: every slice it needs is done, and it is not out already. The
        // first time, a job a producer before this one issued is not issued again.
        for &m in pairs.values() {
            if done.contains(&m) || out.contains(&m) {
                continue;
            }
            if !needs_of[&m].iter().all(|&s| pair_done(&done, s)) {
                continue;
            }
            let issued: bool = first_pass
                && link.run(|con| {
                    redis::cmd("SISMEMBER")
                        .arg(keys::issued(&run))
                        .arg(id_of(m))
                        .query(con)
                })?;
            if !issued {
                issue(link, m)?;
            }
            out.insert(m);
            attempts.entry(m).or_insert(1);
        }
        first_pass = false;
        for (m, errors) in std::mem::take(&mut failures) {
            if done.contains(&m) {
                continue;
            }
            let tries = attempts.entry(m).or_insert(1);
            if *tries >= ATTEMPTS {
                bail!("slice {m} failed {ATTEMPTS} times ({})", errors.join("; "));
            }
            *tries += 1;
            issue(link, m)?;
        }
        let entries = link.results(&run, &last_id, 16, Some(Duration::from_millis(500)))?;
        for e in entries {
            last_id.clone_from(&e.id);
            let result: Option<Vec<u8>> = e.get("result");
            let data: Vec<u8> = e.get("data").unwrap_or_default();
            let r = match record::read_result(&e.id, &run, result.as_deref()) {
                Ok(r) => r,
                Err(None) => continue,
                Err(Some(r)) => r,
            };
            let Some(&m) = by_id.get(&r.job) else {
                tracing::warn!("result entry {} names no slice of this build", e.id);
                continue;
            };
            if done.contains(&m) {
                summary.duplicates += 1;
                continue;
            }
            let checked = match r.outcome {
                Outcome::Done {
                    bytes, checksum, ..
                } if bytes == data.len() as u64 && checksum == record::checksum(&data) => {
                    if shared {
                        check_shared(m, dir, &data).map(Arrived::Shared)
                    } else {
                        check_pair(m, &data).map(Arrived::Queue)
                    }
                }
                Outcome::Done { .. } => Err(anyhow::anyhow!("data does not match its checksum")),
                Outcome::Failed { error } => Err(anyhow::anyhow!(error)),
            };
            match checked {
                Ok(arrived) => {
                    for (i, s) in pair_of(m).into_iter().enumerate() {
                        let path = store::path(dir, s);
                        match &arrived {
                            Arrived::Queue(files) => {
                                write_whole(&path, files[i])?;
                                link.run(|con| {
                                    redis::cmd("SET")
                                        .arg(slice_key(&run, s))
                                        .arg(files[i])
                                        .query::<()>(con)
                                })?;
                            }
                            Arrived::Shared(paths) => std::fs::rename(&paths[i], &path)
                                .with_context(|| format!("moving into {}", path.display()))?,
                        }
                        on_slice(s, true);
                        summary.built += 1;
                    }
                    done.insert(m);
                }
                Err(err) => {
                    tracing::warn!("slice {m} from {}: {err:#}", r.worker);
                    failures
                        .entry(m)
                        .or_default()
                        .push(format!("{}: {err:#}", r.worker));
                }
            }
        }
    }
    // The slices stay on Redis only while the build needs them.
    let keys: Vec<String> = placed.iter().map(|&s| slice_key(&run, s)).collect();
    link.run(|con| redis::cmd("DEL").arg(&keys).query::<()>(con))?;
    if shared {
        let removed = clear_incoming(dir, &placed);
        if removed > 0 {
            tracing::info!("removed {removed} files left in incoming/ by jobs run twice");
        }
    }
    Ok(summary)
}

/// Removes what jobs run twice (taken over from a worker that seemed silent) left in `dir`'s
/// `incoming/`, once every slice of the build is in place: the files named after one of
/// `slices` (`SLICE.TAG.kdb`, or `.part` when cut short). Other files are left alone, and the
/// folder goes when empty. Returns how many files it removed.
fn clear_incoming(dir: &Path, slices: &BTreeSet<Material>) -> usize {
    let incoming = dir.join(INCOMING);
    let Ok(entries) = std::fs::read_dir(&incoming) else {
        return 0;
    };
    let names: BTreeSet<String> = slices.iter().map(ToString::to_string).collect();
    let mut removed = 0;
    for entry in entries.flatten() {
        let file = entry.file_name();
        let Some((slice, rest)) = file.to_str().and_then(|f| f.split_once('.')) else {
            continue;
        };
        let ours = names.contains(slice)
            && Path::new(rest)
                .extension()
                .is_some_and(|e| e == "kdb" || e == "part");
        if ours && std::fs::remove_file(entry.path()).is_ok() {
            removed += 1;
        }
    }
    // Only when empty; a late worker makes it again.
    let _ = std::fs::remove_dir(&incoming);
    removed
}

/// The files of the pair of `m` in a result's data, each checked: its header, its checksum, and
/// the slice it holds.
fn check_pair(m: Material, data: &[u8]) -> Result<Vec<&[u8]>> {
    let files = unpack(data)?;
    let want = pair_of(m);
    if files.len() != want.len() {
        bail!("{} files where {} were due", files.len(), want.len());
    }
    for (&s, bytes) in want.iter().zip(&files) {
        check_slice(s, bytes)?;
    }
    Ok(files)
}

/// Writes `bytes` to `path` under another name first, so that a file there is always whole.
fn write_whole(path: &Path, bytes: &[u8]) -> Result<()> {
    let part = path.with_extension("part");
    std::fs::write(&part, bytes)
        .and_then(|()| std::fs::rename(&part, path))
        .with_context(|| format!("writing {}", path.display()))
}

/// A slice file: its header and checksum, and that it holds `s`.
fn check_slice(s: Material, bytes: &[u8]) -> Result<()> {
    let slice = Slice::parse(bytes).map_err(|e| anyhow::anyhow!("slice {s}: {e}"))?;
    if slice.material() != s {
        bail!("slice {s}: the file holds {}", slice.material());
    }
    Ok(())
}

/// The files of the pair of `m` a shared result's manifest names in `dir`'s `incoming/`, each
/// checked: a plain file name there, the length and checksum the worker gave, then as
/// [`check_pair`].
fn check_shared(m: Material, dir: &Path, data: &[u8]) -> Result<Vec<PathBuf>> {
    let text = std::str::from_utf8(data).context("the manifest is not text")?;
    let lines: Vec<&str> = text.lines().collect();
    let want = pair_of(m);
    if lines.len() != want.len() {
        bail!("{} files where {} were due", lines.len(), want.len());
    }
    let mut paths = Vec::new();
    for (&s, line) in want.iter().zip(lines) {
        let [name, len, sum] = line.split(' ').collect::<Vec<_>>()[..] else {
            bail!("manifest line {line:?} is not NAME LENGTH CHECKSUM");
        };
        // A file in incoming/, never a path elsewhere.
        if name.starts_with('.')
            || !name
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || "-._".contains(c))
        {
            bail!("manifest names {name:?}, not a plain file name");
        }
        let path = dir.join(INCOMING).join(name);
        let bytes = std::fs::read(&path).with_context(|| format!("reading {}", path.display()))?;
        if bytes.len().to_string() != len || format!("{:016x}", record::checksum(&bytes)) != sum {
            bail!(
                "{}: not the length and checksum its worker gave",
                path.display()
            );
        }
        check_slice(s, &bytes)?;
        paths.push(path);
    }
    Ok(paths)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn files_pack_and_unpack_and_a_cut_is_refused() {
        let files = vec![b"abc".to_vec(), Vec::new(), vec![7; 300]];
        let data = pack(&files);
        let back: Vec<Vec<u8>> = unpack(&data)
            .unwrap()
            .into_iter()
            .map(<[u8]>::to_vec)
            .collect();
        assert_eq!(back, files);
        assert!(unpack(&data[..data.len() - 1]).is_err());
        assert!(unpack(&data[..5]).is_err());
    }

    #[test]
    fn a_shared_manifest_names_files_in_incoming_only() {
        let dir = std::env::temp_dir().join(format!("kroon-egdb-shared-{}", std::process::id()));
        let m: Material = "1K-1K".parse().unwrap();
        for (data, why) in [
            (
                &b"../1K-1K.kdb 1 0000000000000001\n"[..],
                "not a plain file name",
            ),
            (b"/etc/passwd 1 0000000000000001\n", "not a plain file name"),
            (b"1K-1K.w.kdb 1\n", "is not NAME LENGTH CHECKSUM"),
            (b"", "0 files where 1 were due"),
            (b"1K-1K.w.kdb 1 0000000000000001\n", "reading"),
        ] {
            let err = format!("{:#}", check_shared(m, &dir, data).unwrap_err());
            assert!(err.contains(why), "{err}");
        }
    }

    #[test]
    fn a_pair_needs_what_it_converts_into_and_not_itself() {
        let m: Material = "2M-1K".parse().unwrap();
        let n = needs(m);
        assert!(!n.contains(&m) && !n.contains(&m.swapped()));
        assert!(n.contains(&"1K-1K".parse().unwrap()), "{n:?}");
    }
}
