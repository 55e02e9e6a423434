//! `kroon bench`: fixed positions, fixed depth, one thread, fresh table. The node total is the
//! search's signature: it changes only when the search does. The time is the searches' alone:
//! one engine serves every position, its table cleared between them outside the clock, so that
//! neither the table's allocation nor its clearing is counted.

use kroon_rules::{parse_fen, Position, Variant};
use kroon_search::{Engine, Eval, Limits, SearchRequest};
use std::io::Read;
use std::path::{Path, PathBuf};
use std::time::Instant;

pub const DEFAULT_DEPTH: u32 = 13;

/// Openings, middlegames and endgames of international draughts.
const POSITIONS: [&str; 10] = [
    "W:W31-50:B1-20",
    "B:W31-48,50:B1-19,23",
    "W:W25,27,28,30,32,33,34,35,37,38:B12,13,14,16,18,19,21,23,24,26",
    "W:W27,28,29,31,32,33,34,35,36,38,39,40,42,43,45:B3,6,7,8,9,11,12,13,14,16,17,18,19,22,24",
    "B:W22,26,27,28,32,33,34,36,37,38,39,41,43,44,48:B2,6,7,8,9,11,12,13,15,16,17,19,20,23,24",
    "W:W24,27,30,32,33,35,38,39,40,42,44,47:B4,8,9,10,12,13,14,16,17,19,21,26",
    "B:BK17,K24:W6,9,10,11,20,21,22,23,30,K31,33,37,41,42,43,44,46",
    "W:W6,7,8,9,10:B41,42,43,44,45",
    "W:W28,32,37,38,43:B9,13,14,19,23",
    "W:WK46,33:B15,K3",
];

/// The bench positions of `v`: the set above on 10x10 (read under `v`'s rules), and on 8x8 the
/// start and the positions 4, 8, ... 28 plies into one fixed line of play.
fn positions(v: Variant) -> Vec<Position> {
    if v.geometry().columns == 10 {
        return POSITIONS
            .iter()
            .map(|fen| parse_fen(fen, v).expect("bench positions are valid"))
            .collect();
    }
    let mut pos = Position::initial(v);
    let mut out = vec![pos];
    for ply in 1..=28 {
        let legal = pos.legal_moves();
        if legal.is_empty() {
            break;
        }
        pos = pos.play(&legal[ply % legal.len()]);
        if ply % 4 == 0 {
            out.push(pos);
        }
    }
    out
}

pub fn run(depth: u32, v: Variant, eval: &Eval) -> std::io::Result<()> {
    let mut total = 0u64;
    let mut secs = 0f64;
    let set = positions(v);
    let mut engine = Engine::new(1, 64);
    engine.set_eval(eval.clone());
    for &pos in &set {
        // Every position starts from an empty table, as a new game would.
        engine.new_game();
        let start = Instant::now();
        total += engine
            .search(&SearchRequest::position(pos, Limits::Depth(depth)), &|_| {})
            .nodes;
        secs += start.elapsed().as_secs_f64();
    }
    let kind = if eval.is_learned_for(v) {
        "learned"
    } else {
        "hand"
    };
    say!(
        "bench depth {depth} positions {} variant {v} eval {kind}",
        set.len()
    )?;
    say!("nodes {total}")?;
    say!("seconds {secs:.3}")?;
    say!("nps {:.0}", total as f64 / secs.max(1e-9))
}

/// Depth of the build signature that queue jobs carry: deep enough that a change to the search
/// shows, shallow enough to compute at a worker's or producer's first start (about 0.3 s; later
/// starts find it in the cache, see [`build_signature`]).
pub const SIGNATURE_DEPTH: u32 = 9;

/// The bench node total at [`SIGNATURE_DEPTH`] with the hand evaluation on international
/// draughts: the search's signature, without the evaluation (whose fingerprint travels apart).
#[must_use]
pub fn signature() -> u64 {
    positions(Variant::International)
        .into_iter()
        .map(|pos| {
            let mut engine = Engine::new(1, 64);
            engine.set_eval(Eval::Hand);
            engine
                .search(
                    &SearchRequest::position(pos, Limits::Depth(SIGNATURE_DEPTH)),
                    &|_| {},
                )
                .nodes
        })
        .sum()
}

/// The file in the user's cache directory (`~/.cache/kroon` on Linux) that keeps [`signature`]
/// for the builds that computed it lately.
const CACHE_FILE: &str = "bench-signature";

/// How many builds' signatures the cache keeps (the latest first).
const CACHE_KEEP: usize = 8;

/// [`signature`], kept in the user's cache directory for each build: a producer or worker that
/// ran before with this very executable reads and hashes its file (some milliseconds) instead of
/// searching the bench positions again (about 0.3 s, most of a short queued run's overhead).
/// The key is the XXH3-128 hash of the executable's bytes, so any other build, one compiled
/// from other sources or with other settings, computes its own. Without a cache directory, an
/// executable it cannot read or a cache it cannot write, it computes as before.
#[must_use]
pub fn build_signature() -> u64 {
    let Some(dirs) = directories::ProjectDirs::from("", "", "kroon") else {
        return signature();
    };
    match executable_key() {
        Ok(key) => cached(&dirs.cache_dir().join(CACHE_FILE), &key, signature),
        Err(e) => {
            tracing::debug!("bench signature: cannot read this executable ({e}); computing it");
            signature()
        }
    }
}

/// The XXH3-128 hash of the running executable's bytes, in hex.
fn executable_key() -> std::io::Result<String> {
    // On Linux the running program's own file, even when its path has since been given to
    // another build (a rebuild renames the new binary into place): that one's bytes must never
    // stand for this one's.
    let proc_exe = Path::new("/proc/self/exe");
    let path = if proc_exe.exists() {
        proc_exe.to_path_buf()
    } else {
        std::env::current_exe()?
    };
    let mut file = std::fs::File::open(path)?;
    let mut hash = xxhash_rust::xxh3::Xxh3::new();
    let mut buf = vec![0u8; 1 << 20];
    loop {
        let n = file.read(&mut buf)?;
        if n == 0 {
            return Ok(format!("{:032x}", hash.digest128()));
        }
        hash.update(&buf[..n]);
    }
}

/// The value `file` holds for `key`, else `compute()`'s, which is then kept in `file`: one line
/// `KEY VALUE` a build, the latest [`CACHE_KEEP`] first, written whole under another name and
/// renamed into place, so a reader never sees half a file. Lines that do not read are dropped.
fn cached(file: &Path, key: &str, compute: impl FnOnce() -> u64) -> u64 {
    let text = std::fs::read_to_string(file).unwrap_or_default();
    let known: Vec<(&str, u64)> = text
        .lines()
        .filter_map(|line| {
            let (k, v) = line.split_once(' ')?;
            Some((k, v.parse().ok()?))
        })
        .collect();
    if let Some(&(_, value)) = known.iter().find(|(k, _)| *k == key) {
        return value;
    }
    let value = compute();
    let mut out = format!("{key} {value}\n");
    for (k, v) in known.iter().take(CACHE_KEEP - 1) {
        out.push_str(&format!("{k} {v}\n"));
    }
    if let Err(e) = write_whole(file, &out) {
        tracing::debug!(
            "bench signature: cannot keep it in {} ({e})",
            file.display()
        );
    }
    value
}

/// `text` into `file`, through a name of this process's own in the same directory.
fn write_whole(file: &Path, text: &str) -> std::io::Result<()> {
    if let Some(dir) = file.parent() {
        std::fs::create_dir_all(dir)?;
    }
    let mut part = file.as_os_str().to_owned();
    part.push(format!(".{}.part", std::process::id()));
    let part = PathBuf::from(part);
    std::fs::write(&part, text)
        .and_then(|()| std::fs::rename(&part, file))
        .inspect_err(|_| {
            let _ = std::fs::remove_file(&part);
        })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::cell::Cell;

    fn scratch(name: &str) -> PathBuf {
        let d = std::env::temp_dir().join(format!("kroon-bench-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        d
    }

    #[test]
    fn the_cache_computes_once_per_key_and_again_for_another() {
        let dir = scratch("cache");
        let file = dir.join("sub").join(CACHE_FILE);
        let runs = Cell::new(0);
        let compute = |v: u64| {
            let runs = &runs;
            move || {
                runs.set(runs.get() + 1);
                v
            }
        };
        // Nothing kept yet: computed, and kept (the directory made).
        assert_eq!(cached(&file, "aa", compute(11)), 11);
        assert_eq!(runs.get(), 1);
        // The same key: read back, not computed (another value would show).
        assert_eq!(cached(&file, "aa", compute(99)), 11);
        assert_eq!(runs.get(), 1);
        // Another key (another build): computed, and both kept, the latest first.
        assert_eq!(cached(&file, "bb", compute(22)), 22);
        assert_eq!(runs.get(), 2);
        assert_eq!(cached(&file, "aa", compute(99)), 11);
        assert_eq!(cached(&file, "bb", compute(99)), 22);
        assert_eq!(runs.get(), 2);
        assert_eq!(std::fs::read_to_string(&file).unwrap(), "bb 22\naa 11\n");
        // A damaged file: its lines that read are kept, the rest dropped.
        std::fs::write(&file, "aa 11\ngarbage\ncc notanumber\n").unwrap();
        assert_eq!(cached(&file, "cc", compute(33)), 33);
        assert_eq!(std::fs::read_to_string(&file).unwrap(), "cc 33\naa 11\n");
        // The oldest builds go beyond CACHE_KEEP.
        for i in 0..CACHE_KEEP {
            cached(&file, &format!("k{i}"), compute(i as u64));
        }
        let text = std::fs::read_to_string(&file).unwrap();
        assert_eq!(text.lines().count(), CACHE_KEEP);
        assert!(text.starts_with(&format!("k{} ", CACHE_KEEP - 1)), "{text}");
        assert!(!text.contains("aa "), "{text}");
        // No part file left behind.
        let left: Vec<_> = std::fs::read_dir(file.parent().unwrap()).unwrap().collect();
        assert_eq!(left.len(), 1);
        // A cache that cannot be written (its directory is a file): computed each time.
        let blocked = dir.join("blocked");
        std::fs::write(&blocked, "").unwrap();
        let before = runs.get();
        assert_eq!(cached(&blocked.join(CACHE_FILE), "aa", compute(44)), 44);
        assert_eq!(cached(&blocked.join(CACHE_FILE), "aa", compute(45)), 45);
        assert_eq!(runs.get(), before + 2);
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn the_key_is_the_hash_of_this_executable() {
        let exe = std::fs::read(std::env::current_exe().unwrap()).unwrap();
        let key = executable_key().unwrap();
        // Read in pieces, hashed as a whole.
        assert_eq!(key, format!("{:032x}", xxhash_rust::xxh3::xxh3_128(&exe)));
    }
}
