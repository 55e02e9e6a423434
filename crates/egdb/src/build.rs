//! Retrograde analysis: the values of every position of a set of slices, each slice from the
//! slices its conversions lead into.
//!
//! A slice is built together with its mirror (the same material with the other side to move),
//! since a move that neither captures nor crowns leads from one to the other. Each position first
//! gets what it can know alone: no legal move is a loss; a capture or a crowning leaves the pair
//! for a finished slice, so a position with a capture is settled at once, and one with a winning
//! crowning too. The others count their moves that stay in the pair (plus one if a crowning keeps
//! a draw, which then can never be a loss). Then, distance by distance, each settled position
//! un-moves the piece that last moved: a predecessor of a loss is a win one ply longer; a
//! predecessor of a win loses one move, and when it has none left it is a loss one ply longer
//! than its longest. What stays unsettled is a draw. Last, every position is checked against its
//! successors before the slice files are written.
//!
//! Resumable: a slice whose file reads back is loaded, not built; files are written under a
//! temporary name and renamed, so a half-written one never counts.

use crate::captures::captures;
use crate::index::{Board, Decoder, Encoder, Layout, ALL, NEIGHBOURS};
use crate::material::Material;
use crate::part::{Numbering, Part};
use crate::store;
use crate::value::{Value, MAX_DISTANCE};
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, AtomicU8, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// Code of a number that is no position, in memory only.
const INVALID: u8 = 255;
/// Code of a position not settled yet (a draw when the build ends).
const OPEN: u8 = 0;
/// Positions per work item of the parallel passes.
const CHUNK: usize = 1 << 14;
/// Positions whose lookups the first pass makes in one go.
const START_BATCH: usize = 16;
/// Positions whose own capture bits and codes the verification reads in one go.
const VERIFY_BATCH: usize = 32;

/// How to build.
#[derive(Clone, Debug)]
pub struct Options {
    /// Worker threads.
    pub threads: usize,
    /// Slices with up to this many pieces, and all slices of kings only, keep their distances to
    /// conversion in their files; the others keep win, draw or loss only, which takes far less
    /// room (their wins convert with the help of the search and the smaller slices' distances).
    pub distances: u32,
    /// Bytes the build may hold (`None`: no limit). Finished slices found on disk are read only
    /// when a pair leads into them; over the limit, those the pair being built does not lead
    /// into are dropped from memory (and read again when needed), and a pair
    /// is built in parts ([`Part::split`]); a pair that does not fit even in its smallest parts
    /// stops the build with [`BuildError::Memory`].
    pub memory: Option<u64>,
}

impl Default for Options {
    fn default() -> Options {
        Options {
            threads: std::thread::available_parallelism().map_or(1, usize::from),
            distances: 4,
            memory: None,
        }
    }
}

/// The slices to build, in an order where each comes after those it depends on.
#[derive(Clone, Debug)]
pub struct Plan {
    order: Vec<Material>,
}

/// The slices a slice's conversions lead into (captures and crownings by the side to move).
fn successors(m: Material) -> Vec<Material> {
    let mut out = Vec::new();
    let crown = |men: u8, kings: u8, up: bool| {
        if up {
            (men - 1, kings + 1)
        } else {
            (men, kings)
        }
    };
    for up in [false, true] {
        if up && m.own_men == 0 {
            continue;
        }
        let (men, kings) = crown(m.own_men, m.own_kings, up);
        for x in 0..=m.opp_men {
            for y in 0..=m.opp_kings {
                if x + y == 0 && !up {
                    continue;
                }
                let next = Material::new(m.opp_men - x, m.opp_kings - y, men, kings);
                if next.is_stored() {
                    out.push(next);
                }
            }
        }
    }
    out
}

impl Plan {
    /// Every slice with up to `pieces` pieces.
    #[must_use]
    pub fn pieces(pieces: u32) -> Plan {
        Plan {
            order: Material::up_to(pieces),
        }
    }

    /// The given slices, their mirrors and everything they depend on.
    #[must_use]
    pub fn materials(wanted: &[Material]) -> Plan {
        let mut seen = BTreeSet::new();
        let mut todo: Vec<Material> = wanted.to_vec();
        while let Some(m) = todo.pop() {
            if !m.is_stored() || !seen.insert(m) {
                continue;
            }
            todo.push(m.swapped());
            todo.extend(successors(m));
        }
        let mut order: Vec<Material> = seen.into_iter().collect();
        order.sort_by_key(|m| (m.pieces(), m.men(), *m));
        Plan { order }
    }

    /// The slices, in build order.
    #[must_use]
    pub fn slices(&self) -> &[Material] {
        &self.order
    }

    /// Numbers of all slices together (positions plus the few unused numbers).
    #[must_use]
    pub fn size(&self) -> u64 {
        self.order.iter().map(|&m| Layout::new(m).size()).sum()
    }

    /// The CPU time the build is expected to take on one core, from [`CPU_SECONDS_PER_NUMBER`].
    #[must_use]
    pub fn cpu_time(&self) -> Duration {
        Duration::from_secs_f64(self.size() as f64 * CPU_SECONDS_PER_NUMBER)
    }

    /// Bytes of memory the build is expected to need at its peak: a byte per number of every
    /// slice built so far (conversions are looked up there), and for the largest pair its codes,
    /// move counts, capture flags and the lists of positions settled at a distance.
    #[must_use]
    pub fn peak_memory(&self) -> u64 {
        let pair = self
            .order
            .iter()
            .map(|&m| {
                let mirror = if m.swapped() == m {
                    0
                } else {
                    Layout::new(m.swapped()).size()
                };
                Layout::new(m).size() + mirror
            })
            .max()
            .unwrap_or(0);
        self.size() + 7 * pair
    }
}

/// CPU seconds the builder spends per number of a slice, on a 2020s desktop core: 0.76 µs on
/// the 4K-1M pair and what it needs, 0.77 µs on the 4K1M-1K pair and what it needs (the 5-piece
/// build of the first builder took 1.4 µs).
pub const CPU_SECONDS_PER_NUMBER: f64 = 0.8e-6;

/// The stage of a slice pair's build.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub enum Stage {
    /// Settling what each position knows alone.
    Start,
    /// Un-moving from the positions settled at a distance.
    Distance(u16),
    /// Checking every position against its successors.
    Verify,
}

/// What a build reports as it goes.
#[derive(Clone, Debug)]
pub enum Progress {
    /// A pair of slices starts: its names and numbers.
    Pair {
        /// The slice and its mirror (once when they are the same).
        slices: Vec<Material>,
        /// Numbers in the pair.
        size: u64,
        /// The parts it is built in (1: whole).
        parts: usize,
    },
    /// Work done in the pair's current stage: numbers handled in the stage so far.
    Step {
        /// The stage.
        stage: Stage,
        /// Numbers handled since the last step report.
        done: u64,
    },
    /// A slice was found on disk instead of built (loaded; with a memory budget, read only
    /// when a pair needs it).
    Loaded(Material),
    /// A finished slice was read from disk for the pair to be built (with a memory budget).
    Reread(Material),
    /// A slice was built, checked and written.
    Written(SliceReport),
}

/// The outcome of one slice.
#[derive(Clone, Debug)]
pub struct SliceReport {
    /// The slice.
    pub material: Material,
    /// Positions (numbers that are a position).
    pub positions: u64,
    /// Won, drawn and lost positions for the side to move.
    pub wins: u64,
    /// Drawn positions.
    pub draws: u64,
    /// Lost positions.
    pub losses: u64,
    /// Longest distance to conversion.
    pub longest: u16,
    /// Bytes of its file.
    pub bytes: u64,
    /// Time its pair took to build (shared by both slices of a pair).
    pub time: Duration,
}

/// The outcome of a build.
#[derive(Clone, Debug, Default)]
pub struct Report {
    /// Slices built now.
    pub built: Vec<SliceReport>,
    /// Slices found on disk.
    pub loaded: Vec<Material>,
}

/// Why a build stopped.
#[derive(Debug, thiserror::Error)]
pub enum BuildError {
    /// A file could not be written or read.
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// What went wrong.
        source: std::io::Error,
    },
    /// A distance to conversion beyond what the format holds.
    #[error("slice {0}: a distance to conversion beyond {MAX_DISTANCE} plies")]
    TooLong(Material),
    /// The check of a slice against its successors failed.
    #[error(
        "slice {material}: {wrong} positions disagree with their successors (first: index {first})"
    )]
    Inconsistent {
        /// The slice.
        material: Material,
        /// How many positions.
        wrong: u64,
        /// The first of them.
        first: u64,
    },
    /// A slice needed another that is not in the plan.
    #[error("slice {0} is needed but not built")]
    Missing(Material),
    /// Another build is writing to the directory.
    #[error("another build is writing to {0}")]
    Busy(PathBuf),
    /// A pair does not fit in the memory budget even in its smallest parts.
    #[error(
        "slice {material} needs {:.1} MB of memory even in parts, more than the {:.1} MB allowed \
         (the finished slices are kept: give more and build again to go on)",
        *.needed as f64 / f64::from(1 << 20),
        *.budget as f64 / f64::from(1 << 20)
    )]
    Memory {
        /// The slice.
        material: Material,
        /// Bytes it needs at the least.
        needed: u64,
        /// Bytes allowed.
        budget: u64,
    },
    /// A part of a pair with more numbers than its lists hold (2^32).
    #[error("slice {0}: a part too large to number")]
    TooLarge(Material),
}

/// A build's hold on its directory, so that two builds (say the engine's background build and
/// `kroon egdb build`) never write the same slice at once. The operating system releases it when
/// it is dropped or the process ends, so a build that was killed leaves nothing stale.
#[derive(Debug)]
pub struct DirLock {
    _file: std::fs::File,
}

/// The file whose lock a directory's builds take.
const LOCK_FILE: &str = ".lock";

/// Takes `dir`'s build lock (making the directory): waits for a build that holds it to end when
/// `wait`, else fails at once with [`BuildError::Busy`].
pub fn lock(dir: &Path, wait: bool) -> Result<DirLock, BuildError> {
    let io = |source| BuildError::Io {
        path: dir.to_path_buf(),
        source,
    };
    std::fs::create_dir_all(dir).map_err(io)?;
    let file = std::fs::OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(dir.join(LOCK_FILE))
        .map_err(io)?;
    if wait {
        file.lock().map_err(io)?;
    } else {
        match file.try_lock() {
            Ok(()) => {}
            Err(std::fs::TryLockError::WouldBlock) => {
                return Err(BuildError::Busy(dir.to_path_buf()))
            }
            Err(std::fs::TryLockError::Error(e)) => return Err(io(e)),
        }
    }
    Ok(DirLock { _file: file })
}

/// The values of one slice in memory, one code per number.
type Codes = Vec<u8>;

/// Builds (or loads) every slice of `plan` in `dir`; `progress` hears about each step. The caller
/// holds the directory's [`lock`].
pub fn build(
    plan: &Plan,
    dir: &Path,
    options: &Options,
    progress: &(dyn Fn(Progress) + Sync),
) -> Result<Report, BuildError> {
    std::fs::create_dir_all(dir).map_err(|source| BuildError::Io {
        path: dir.to_path_buf(),
        source,
    })?;
    let threads = options.threads.max(1);
    let mut known = Known::new();
    let mut done = BTreeSet::new();
    let mut report = Report::default();
    for &m in plan.slices() {
        if done.contains(&m) {
            continue;
        }
        let pair: Vec<Material> = if m.swapped() == m {
            vec![m]
        } else {
            vec![m, m.swapped()]
        };
        done.extend(pair.iter().copied());
        // With a budget a finished slice stays on disk until a pair needs it ([`make_room`]):
        // all of them read at once would not fit. Its file is checked now (header, size and
        // checksum), so that a damaged one is built again, as it is without a budget.
        let sound = |s: Material| store::read_slice(&store::path(dir, s), s).is_ok();
        if options.memory.is_some() && pair.iter().all(|&s| sound(s)) {
            for &s in &pair {
                progress(Progress::Loaded(s));
                report.loaded.push(s);
            }
            continue;
        }
        let loaded: Option<Vec<Codes>> = pair
            .iter()
            .map(|&s| store::read_codes(&store::path(dir, s), s).ok())
            .collect();
        if let Some(codes) = loaded {
            for (&s, mut c) in pair.iter().zip(codes) {
                restore_captures(s, &mut c, &known, threads, progress)?;
                progress(Progress::Loaded(s));
                report.loaded.push(s);
                known.insert(s, c);
            }
            continue;
        }
        let layouts: Vec<Layout> = pair.iter().map(|&s| Layout::new(s)).collect();
        let parts = match options.memory {
            None => vec![Part::whole(&layouts)],
            Some(budget) => {
                make_room(&layouts, &mut known, dir, budget, threads, progress)?;
                parts_within(&layouts, known.bytes(), budget)?
            }
        };
        let start = Instant::now();
        let size = layouts.iter().map(Layout::size).sum();
        progress(Progress::Pair {
            slices: pair.clone(),
            size,
            parts: parts.len(),
        });
        let built = build_pair(&pair, &known, &parts, threads, progress)?;
        let time = start.elapsed();
        for (&s, (codes, captures)) in pair.iter().zip(built) {
            let path = store::path(dir, s);
            let distances = s.pieces() <= options.distances || s.men() == 0;
            let file: Vec<u8> = codes
                .iter()
                .enumerate()
                .map(|(i, &c)| match Value::from_code(c) {
                    // A position with a capture pending is found from the slices it leads into.
                    _ if has(&captures, i) => INVALID,
                    None => INVALID,
                    Some(_) if distances => c,
                    Some(v) => store::wdl_code(v),
                })
                .collect();
            let bytes = store::write_codes(&path, s, &file, distances)
                .map_err(|source| BuildError::Io { path, source })?;
            let r = tally(s, &codes, bytes, time);
            progress(Progress::Written(r.clone()));
            report.built.push(r);
            known.insert(s, codes);
        }
    }
    Ok(report)
}

/// Bytes a part needs for each of its numbers while it is built, beyond the pair's codes: its
/// move counts and the lists of positions settled at each distance (4 bytes a position, which
/// can hold nearly all of them at once: the 4K1M-1K pair, 858 M numbers almost all settled,
/// peaked at 4.9 GB built whole with the 17 slices it needs).
pub const PART_BYTES_PER_NUMBER: u64 = 8;

/// Bytes more per number of a part when the pair is cut: the moves into finished parts, 4 bytes
/// each (the 4K1M-1K pair in 9 parts, its man's moves all leaving the part).
pub const SEEN_BYTES_PER_NUMBER: u64 = 4;

/// Bytes that building `parts` of the pair of `layouts` needs at the most, beside `known` bytes
/// of finished slices: the pair's codes and capture bits, and the largest part's lists.
fn bytes_needed(layouts: &[Layout], parts: &[Part], known: u64) -> u64 {
    let pair: u64 = layouts.iter().map(|l| l.size() + l.size() / 8).sum();
    let largest = parts.iter().map(Part::size).max().unwrap_or(0);
    let per_number = if parts.len() > 1 {
        PART_BYTES_PER_NUMBER + SEEN_BYTES_PER_NUMBER
    } else {
        PART_BYTES_PER_NUMBER
    };
    known + pair + per_number * largest
}

/// The fewest parts of the pair of `layouts` whose largest fits in `budget` beside the pair's
/// codes and `known` bytes of finished slices.
fn parts_within(layouts: &[Layout], known: u64, budget: u64) -> Result<Vec<Part>, BuildError> {
    let mut least = u64::MAX;
    for bands in 1..=9 {
        let parts = Part::split(layouts, bands);
        let needed = bytes_needed(layouts, &parts, known);
        if needed <= budget {
            return Ok(parts);
        }
        least = least.min(needed);
    }
    Err(BuildError::Memory {
        material: layouts[0].material(),
        needed: least,
        budget,
    })
}

/// Before the pair of `layouts` is built within `budget` bytes: when the finished slices in
/// memory and the whole pair would not fit, drops those of the pair's piece count that its moves
/// do not lead into (the smaller ones, which the larger ones' captures lead into, are kept while
/// there is room); reads from `dir` the ones it leads into that are not in memory, after those
/// their captures lead into (to restore their capture positions); and, when the whole pair
/// still would not fit, drops every slice it does not lead into.
fn make_room(
    layouts: &[Layout],
    known: &mut Known,
    dir: &Path,
    budget: u64,
    threads: usize,
    progress: &(dyn Fn(Progress) + Sync),
) -> Result<(), BuildError> {
    let needed: BTreeSet<Material> = layouts
        .iter()
        .flat_map(|l| successors(l.material()))
        .collect();
    let pieces = layouts[0].material().pieces();
    let fits =
        |known: &Known| bytes_needed(layouts, &[Part::whole(layouts)], known.bytes()) <= budget;
    if !fits(known) {
        known.retain(|m| m.pieces() < pieces || needed.contains(&m));
    }
    // What is to be read, with the slices its captures lead into (fewer pieces, read first).
    let mut todo: BTreeSet<(u32, Material)> = BTreeSet::new();
    let mut stack: Vec<Material> = needed.iter().copied().collect();
    while let Some(m) = stack.pop() {
        if known.contains(m) || !todo.insert((m.pieces(), m)) {
            continue;
        }
        stack.extend(
            successors(m)
                .into_iter()
                .filter(|s| s.pieces() < m.pieces()),
        );
    }
    for (_, m) in todo {
        let path = store::path(dir, m);
        let mut codes = store::read_codes(&path, m).map_err(|e| BuildError::Io {
            path,
            source: std::io::Error::other(e.to_string()),
        })?;
        restore_captures(m, &mut codes, known, threads, progress)?;
        known.insert(m, codes);
        progress(Progress::Reread(m));
    }
    if !fits(known) {
        known.retain(|m| needed.contains(&m));
    }
    Ok(())
}

/// A slice read from its file holds no values where a capture is pending (the file keeps a
/// neighbour's code there): settles those again from the slices the captures lead into, which
/// are loaded before it.
fn restore_captures(
    m: Material,
    codes: &mut Codes,
    known: &Known,
    threads: usize,
    progress: &(dyn Fn(Progress) + Sync),
) -> Result<(), BuildError> {
    let layout = Layout::new(m);
    let len = codes.len();
    parallel(
        len,
        CHUNK,
        threads,
        Stage::Start,
        progress,
        &|range| {
            let mut out = Vec::new();
            let mut decoder = Decoder::new(layout);
            // Every move of a capture position is a conversion into another slice: a batch of
            // positions' lookups is made in one go, as in the first pass of a build.
            let mut batch = Batch::default();
            let mut found = Vec::new();
            let mut i = range.start;
            while i < range.end {
                batch.clear();
                while i < range.end && batch.positions.len() < START_BATCH {
                    if let Some(b) = decoder.decode(i as u64) {
                        if has_capture(&b) {
                            batch.gather(&b, i as u64, i, true, known, None)?;
                        }
                    }
                    i += 1;
                }
                batch.read(&[]);
                for k in 0..batch.positions.len() {
                    if let Start::Settled(v) = batch.settle(k, &mut found)? {
                        out.push((
                            batch.positions[k].number,
                            v.code().ok_or(BuildError::TooLong(m))?,
                        ));
                    }
                }
            }
            Ok(out)
        },
        |settled| {
            for (i, c) in settled {
                codes[i] = c;
            }
        },
    )
}

fn tally(material: Material, codes: &[u8], bytes: u64, time: Duration) -> SliceReport {
    let mut r = SliceReport {
        material,
        positions: 0,
        wins: 0,
        draws: 0,
        losses: 0,
        longest: 0,
        bytes,
        time,
    };
    for &c in codes {
        match Value::from_code(c) {
            None => continue,
            Some(Value::Win(d)) => {
                r.wins += 1;
                r.longest = r.longest.max(d);
            }
            Some(Value::Draw) => r.draws += 1,
            Some(Value::Loss(d)) => {
                r.losses += 1;
                r.longest = r.longest.max(d);
            }
        }
        r.positions += 1;
    }
    r
}

/// The finished slices in memory, by material, for looking conversions up.
#[derive(Default)]
struct Known {
    tables: Vec<Option<(Layout, Codes)>>,
}

/// A slot per material with at most 7 of each piece kind.
fn slot(m: Material) -> Option<usize> {
    let k = [m.own_men, m.own_kings, m.opp_men, m.opp_kings];
    k.iter()
        .all(|&n| n < 8)
        .then(|| k.iter().fold(0, |acc, &n| acc * 8 + usize::from(n)))
}

impl Known {
    fn new() -> Known {
        Known {
            tables: (0..4096).map(|_| None).collect(),
        }
    }

    fn contains(&self, m: Material) -> bool {
        slot(m).is_some_and(|k| self.tables[k].is_some())
    }

    /// Bytes of the slices held.
    fn bytes(&self) -> u64 {
        self.tables
            .iter()
            .flatten()
            .map(|(_, c)| c.len() as u64)
            .sum()
    }

    /// Keeps the slices for which `keep` holds.
    fn retain(&mut self, keep: impl Fn(Material) -> bool) {
        for t in &mut self.tables {
            if t.as_ref().is_some_and(|(l, _)| !keep(l.material())) {
                *t = None;
            }
        }
    }

    fn insert(&mut self, m: Material, codes: Codes) {
        if let Some(k) = slot(m) {
            self.tables[k] = Some((Layout::new(m), codes));
        }
    }

    /// Where the value of a position outside the pair is to be read.
    #[inline(always)]
    fn locate(&self, b: &Board) -> Result<Read<'_>, BuildError> {
        let m = b.material();
        if m.own_men + m.own_kings == 0 {
            return Ok(Read::Value(Value::Loss(0)));
        }
        let (layout, codes) = slot(m)
            .and_then(|k| self.tables[k].as_ref())
            .ok_or(BuildError::Missing(m))?;
        Ok(Read::Known(codes, layout.encode(b) as usize, m))
    }

    /// The value of a position outside the pair, for its side to move.
    #[inline(always)]
    fn value(&self, b: &Board) -> Result<Value, BuildError> {
        match self.locate(b)? {
            Read::Known(codes, i, m) => codes
                .get(i)
                .and_then(|&c| Value::from_code(c))
                .ok_or(BuildError::Missing(m)),
            Read::Value(v) => Ok(v),
            Read::Outside(..) => unreachable!("a position outside the pair is no move inside it"),
        }
    }
}

/// What a position knows before the un-moving: settled, or open with moves left to refute.
enum Start {
    Settled(Value),
    Open(u8),
}

/// The better of two values for the side to move.
fn better(a: Value, b: Value) -> Value {
    fn rank(v: Value) -> i32 {
        match v {
            Value::Win(d) => 1000 - i32::from(d),
            Value::Draw => 0,
            Value::Loss(d) => -1000 + i32::from(d),
        }
    }
    if rank(b) > rank(a) {
        b
    } else {
        a
    }
}

/// The value a conversion into a position of value `after` gives the side that made it.
fn converted(after: Value) -> Value {
    match after {
        Value::Loss(_) => Value::Win(1),
        Value::Draw => Value::Draw,
        Value::Win(_) => Value::Loss(1),
    }
}

/// The successors of a position inside the pair, for the verification: their slice's encoder and
/// codes, and room for their indices. The indices are all taken first and then looked up in one
/// go, so that the lookups (mostly outside the processor's caches) overlap.
struct Inside<'a> {
    encoder: Encoder,
    codes: &'a [AtomicU8],
    indices: Vec<usize>,
}

/// A lookup the first pass needs, made for a whole batch of positions in one go.
enum Read<'a> {
    /// A conversion into a finished slice: its codes and the successor's number there.
    Known(&'a [u8], usize, Material),
    /// A conversion whose value needs no lookup (the side to move has no pieces left).
    Value(Value),
    /// A move into a finished part of the pair: the successor's number and bucket.
    Outside(usize, u8),
}

/// What a position's moves have shown: how many there are, the best of its conversions (and
/// of its moves inside the pair once they are known), whether a conversion draws, and the moves
/// inside the pair not yet known.
#[derive(Copy, Clone, Default)]
struct Successors {
    moves: u32,
    open: u8,
    best: Option<Value>,
    draw_out: bool,
}

impl Successors {
    /// A conversion into a position of value `after`.
    fn conversion(&mut self, after: Value) {
        let v = converted(after);
        self.draw_out |= v == Value::Draw;
        self.take(v);
    }

    /// A successor worth `v` to the side to move.
    fn take(&mut self, v: Value) {
        self.best = Some(self.best.map_or(v, |b| better(b, v)));
    }

    /// What the position knows; `exact` when every move inside the pair has been taken.
    fn start(&self, exact: bool) -> Start {
        if self.moves == 0 {
            return Start::Settled(Value::Loss(0));
        }
        match self.best {
            Some(v @ Value::Win(1)) => Start::Settled(v),
            _ if exact => Start::Settled(self.best.unwrap_or(Value::Loss(0))),
            _ if self.open == 0 => Start::Settled(self.best.unwrap_or(Value::Loss(1))),
            _ => Start::Open(self.open + u8::from(self.draw_out)),
        }
    }
}

/// A position of the first pass waiting for its lookups.
struct Pending {
    index: u64,
    number: usize,
    bucket: u8,
    /// Its moves, the conversions not yet taken.
    successors: Successors,
    /// Its lookups: `reads[reads_from..reads_to]`.
    reads_from: usize,
    reads_to: usize,
}

/// The first pass's positions of one batch, their lookups and the codes read for them.
#[derive(Default)]
struct Batch<'a> {
    positions: Vec<Pending>,
    reads: Vec<Read<'a>>,
    codes: Vec<u8>,
}

impl<'a> Batch<'a> {
    fn clear(&mut self) {
        self.positions.clear();
        self.reads.clear();
        self.codes.clear();
    }

    /// Takes the moves of position `b` (number `index` of its slice, `number` in the part) and
    /// the lookups they need. `outside` is, when the part is not the whole pair, the part, the
    /// successors' slice in the pair and its encoder: moves into finished parts are looked up.
    #[allow(clippy::too_many_arguments)]
    fn gather(
        &mut self,
        b: &Board,
        index: u64,
        number: usize,
        capture: bool,
        lookup: &'a Known,
        mut outside: Option<(&Part, usize, &mut Encoder)>,
    ) -> Result<(), BuildError> {
        let reads_from = self.reads.len();
        let mut successors = Successors::default();
        let mut failure = None;
        moves_of(b, capture, |child, conversion| {
            successors.moves += 1;
            if conversion {
                match lookup.locate(&child) {
                    Ok(read) => self.reads.push(read),
                    Err(e) => failure = Some(e),
                }
                return;
            }
            successors.open += 1;
            if let Some((part, slice, encoder)) = outside.as_mut() {
                if !part.contains(*slice, &child) {
                    let i = encoder.encode(&child) as usize;
                    self.reads.push(Read::Outside(i, bucket(&child) as u8));
                }
            }
        });
        if let Some(e) = failure {
            return Err(e);
        }
        self.positions.push(Pending {
            index,
            number,
            bucket: bucket(b) as u8,
            successors,
            reads_from,
            reads_to: self.reads.len(),
        });
        Ok(())
    }

    /// Reads every code the batch's lookups need, in one tight loop.
    fn read(&mut self, outside: &[AtomicU8]) {
        self.codes.extend(self.reads.iter().map(|r| match *r {
            Read::Known(codes, i, _) => codes.get(i).copied().unwrap_or(INVALID),
            Read::Value(_) => 0,
            Read::Outside(i, _) => outside[i].load(Ordering::Relaxed),
        }));
    }

    /// What position `k` of the batch knows alone (as [`examine`] without `inside` says), with
    /// its successors in finished parts that have a distance in `found`: (distance, bucket,
    /// whether it is won).
    fn settle(&self, k: usize, found: &mut Vec<(u16, u8, bool)>) -> Result<Start, BuildError> {
        let q = &self.positions[k];
        found.clear();
        let mut successors = q.successors;
        for (read, &code) in self.reads[q.reads_from..q.reads_to]
            .iter()
            .zip(&self.codes[q.reads_from..q.reads_to])
        {
            let after = match *read {
                Read::Known(_, _, m) => Value::from_code(code).ok_or(BuildError::Missing(m))?,
                Read::Value(v) => v,
                Read::Outside(_, bucket) => {
                    debug_assert_ne!(code, INVALID, "a move leads into a part not built yet");
                    match Value::from_code(code) {
                        Some(Value::Win(d)) => found.push((d, bucket, true)),
                        Some(Value::Loss(d)) => found.push((d, bucket, false)),
                        _ => {}
                    }
                    continue;
                }
            };
            successors.conversion(after);
        }
        Ok(successors.start(false))
    }
}

/// What position `b` knows alone, or (with `inside`) its exact value from its successors;
/// `capture` says whether it has a capture pending ([`has_capture`]).
fn examine(
    b: &Board,
    capture: bool,
    lookup: &Known,
    mut inside: Option<&mut Inside>,
) -> Result<Start, BuildError> {
    let mut successors = Successors::default();
    let mut failure = None;
    if let Some(inside) = inside.as_mut() {
        inside.indices.clear();
    }
    moves_of(b, capture, |child, conversion| {
        successors.moves += 1;
        if conversion {
            match lookup.value(&child) {
                Ok(after) => successors.conversion(after),
                Err(e) => failure = Some(e),
            }
        } else if let Some(inside) = inside.as_mut() {
            inside.indices.push(inside.encoder.encode(&child) as usize);
        } else {
            successors.open += 1;
        }
    });
    if let Some(e) = failure {
        return Err(e);
    }
    if let Some(inside) = inside.as_ref() {
        // The successor best for the side to move: the highest of `order` over their codes.
        let best_inside = inside
            .indices
            .iter()
            .map(|&i| inside.codes[i].load(Ordering::Relaxed))
            .max_by_key(|&c| ORDER[usize::from(c)]);
        if let Some(c) = best_inside {
            successors.take(Value::from_code(c).unwrap_or(Value::Draw).before());
        }
    }
    Ok(successors.start(inside.is_some()))
}

/// For each code of a successor, how good a move into it is for the side that makes it: higher
/// is better, in the order of [`better`] (a successor's loss in fewer plies best, its win in
/// fewer plies worst).
static ORDER: [i16; 256] = order();

const fn order() -> [i16; 256] {
    let mut t = [0i16; 256];
    let mut c = 0;
    while c < 256 {
        t[c] = match Value::from_code(c as u8) {
            Some(Value::Loss(d)) => 1000 - d as i16,
            Some(Value::Win(d)) => -1000 + d as i16,
            _ => 0,
        };
        c += 1;
    }
    t
}

/// Calls `each(child, conversion)` for every legal move of `b`, with the position after it (seen
/// from the side then to move) and whether it captures or crowns; `capture` is whether `b` has a
/// capture pending ([`has_capture`], which the caller knows). Both kinds of moves are made on
/// the field sets directly (captures in [`captures`]).
fn moves_of(b: &Board, capture: bool, mut each: impl FnMut(Board, bool)) {
    if capture {
        captures(b, |child| each(child, true));
        return;
    }
    // The children seen from the other side: `b` turned round once, then the moved piece's
    // fields turned one by one (field `f` is `49 - f` turned round, 0-based).
    let turned = b.swapped();
    quiet_steps(b.own_men, b.own_kings, b.occupied(), |f, g, king| {
        let (from, to) = (1u64 << (49 - f), 1u64 << (49 - g));
        // The side to move's men crown on fields 1-5.
        let crowns = !king && g < 5;
        let mut child = turned;
        if king {
            child.opp_kings ^= from | to;
        } else {
            child.opp_men &= !from;
            if crowns {
                child.opp_kings |= to;
            } else {
                child.opp_men |= to;
            }
        }
        each(child, crowns);
    });
}

/// Whether the side to move of `b` has a capture: a man next to an enemy piece with an empty
/// field beyond it, in any of the four directions; a king seeing one along a line with an
/// empty field right behind it.
#[must_use]
pub fn has_capture(b: &Board) -> bool {
    let occupied = b.occupied();
    let enemy = b.opp_men | b.opp_kings;
    let empty = ALL & !occupied;
    // Enemy pieces with an empty field beyond them, by direction.
    for f in fields(b.own_men) {
        for j in &JUMPS[f] {
            if enemy & j.over != 0 && empty & j.to != 0 {
                return true;
            }
        }
    }
    for f in fields(b.own_kings) {
        for (dir, &ray) in RAYS[f].iter().enumerate() {
            let blockers = ray & occupied;
            if blockers == 0 {
                continue;
            }
            let g = nearest(blockers, dir);
            if enemy & (1 << g) != 0 && empty & JUMPS[g][dir].over != 0 {
                return true;
            }
        }
    }
    false
}

/// A man's capture in one direction: the field it jumps over and the one it lands on (one-bit
/// sets, both 0 where the board ends).
#[derive(Copy, Clone)]
pub(crate) struct Jump {
    pub(crate) over: u64,
    pub(crate) to: u64,
}

/// The jumps of a man on each field in the four directions of `NEIGHBOURS` (`over` is also the
/// neighbour field in that direction).
pub(crate) static JUMPS: [[Jump; 4]; 50] = jumps();

const fn jumps() -> [[Jump; 4]; 50] {
    let mut t = [[Jump { over: 0, to: 0 }; 4]; 50];
    let mut f = 0;
    while f < 50 {
        let mut d = 0;
        while d < 4 {
            let g = NEIGHBOURS[f][d];
            if g >= 0 {
                t[f][d].over = 1 << g;
                let h = NEIGHBOURS[g as usize][d];
                if h >= 0 {
                    t[f][d].to = 1 << h;
                }
            }
            d += 1;
        }
        f += 1;
    }
    t
}

/// The fields along each of the four lines from each field (the field itself left out).
pub(crate) static RAYS: [[u64; 4]; 50] = rays();

const fn rays() -> [[u64; 4]; 50] {
    let mut t = [[0u64; 4]; 50];
    let mut f = 0;
    while f < 50 {
        let mut d = 0;
        while d < 4 {
            let mut g = NEIGHBOURS[f][d];
            while g >= 0 {
                t[f][d] |= 1 << g;
                g = NEIGHBOURS[g as usize][d];
            }
            d += 1;
        }
        f += 1;
    }
    t
}

/// The field of `set` (part of a line in direction `dir`) nearest the line's start: the first
/// two directions run towards field 1 (lower fields), the others away from it.
#[inline]
pub(crate) fn nearest(set: u64, dir: usize) -> usize {
    if dir < 2 {
        63 - set.leading_zeros() as usize
    } else {
        set.trailing_zeros() as usize
    }
}

/// The empty fields a king on `f` reaches along line `dir` among the `occupied` fields.
#[inline]
pub(crate) fn king_reach(f: usize, dir: usize, occupied: u64) -> u64 {
    let ray = RAYS[f][dir];
    let blockers = ray & occupied;
    if blockers == 0 {
        ray
    } else {
        let g = nearest(blockers, dir);
        ray & !RAYS[g][dir] & !(1 << g)
    }
}

/// Runs `work` on chunks of `chunk` items of `0..len` on `threads` threads, reporting each chunk
/// as a step. Each chunk's result goes to `take` as soon as it is done, in no fixed order: the
/// results of a pass never all wait in memory at once.
fn parallel<T: Send>(
    len: usize,
    chunk: usize,
    threads: usize,
    stage: Stage,
    progress: &(dyn Fn(Progress) + Sync),
    work: &(dyn Fn(std::ops::Range<usize>) -> Result<T, BuildError> + Sync),
    take: impl FnMut(T) + Send,
) -> Result<(), BuildError> {
    let next = AtomicU64::new(0);
    let take = Mutex::new(take);
    let failure = Mutex::new(None);
    std::thread::scope(|scope| {
        for _ in 0..threads {
            scope.spawn(|| loop {
                let start = next.fetch_add(chunk as u64, Ordering::Relaxed) as usize;
                if start >= len {
                    break;
                }
                let range = start..(start + chunk).min(len);
                let n = range.len() as u64;
                match work(range) {
                    Ok(t) => (take.lock().unwrap_or_else(|e| e.into_inner()))(t),
                    Err(e) => {
                        *failure.lock().unwrap_or_else(|e| e.into_inner()) = Some(e);
                        next.store(len as u64, Ordering::Relaxed);
                        break;
                    }
                }
                progress(Progress::Step { stage, done: n });
            });
        }
    });
    match failure.into_inner().unwrap_or_else(|e| e.into_inner()) {
        Some(e) => Err(e),
        None => Ok(()),
    }
}

/// Buckets the positions settled at one distance fall into, for the un-moving.
const BUCKETS: usize = 64;

/// Positions settled at one distance, by bucket and lane: for the positions of the pair the
/// lane is their slice and the entry their index; for the successors in finished parts, the lane
/// says whether the successor is won and the entry is the predecessor's number in the part. An
/// entry is 4 bytes: these lists can hold nearly every position of a part at once.
struct Level {
    lists: Vec<Vec<u32>>,
}

/// Lanes of a [`Level`].
const LANES: usize = 2;

impl Default for Level {
    fn default() -> Level {
        Level::new()
    }
}

impl Level {
    fn new() -> Level {
        Level {
            lists: vec![Vec::new(); LANES * BUCKETS],
        }
    }

    #[inline]
    fn push(&mut self, lane: usize, bucket: usize, entry: u32) {
        self.lists[lane * BUCKETS + bucket].push(entry);
    }

    /// The entries of `lane` in `bucket`.
    fn list(&self, lane: usize, bucket: usize) -> &[u32] {
        &self.lists[lane * BUCKETS + bucket]
    }

    fn is_empty(&self) -> bool {
        self.lists.iter().all(Vec::is_empty)
    }

    /// Moves `other`'s entries into this level.
    fn append(&mut self, other: Level) {
        for (mine, theirs) in self.lists.iter_mut().zip(other.lists) {
            if mine.is_empty() {
                *mine = theirs;
            } else {
                mine.extend(theirs);
            }
        }
    }
}

/// The bucket of a settled position: a mix of the side to move's pieces, which are the other
/// side's in all its predecessors.
#[inline]
fn bucket(b: &Board) -> usize {
    let own = b.own_men ^ b.own_kings.rotate_left(29);
    (own.wrapping_mul(0x9e37_79b9_7f4a_7c15) >> 58) as usize
}

/// Positions with a capture pending, a bit per number of a slice.
type Captures = Vec<u64>;

/// Whether number `i` has its bit in `set`.
#[inline]
fn has(set: &[u64], i: usize) -> bool {
    set[i / 64] >> (i % 64) & 1 != 0
}

/// Builds a slice and its mirror (`pair` holds one slice when they are the same), part by part
/// in the order of `parts` (one part for the whole pair, or [`Part::split`]'s).
fn build_pair(
    pair: &[Material],
    tables: &Known,
    parts: &[Part],
    threads: usize,
    progress: &(dyn Fn(Progress) + Sync),
) -> Result<Vec<(Codes, Captures)>, BuildError> {
    let layouts: Vec<Layout> = pair.iter().map(|&m| Layout::new(m)).collect();
    // Every number's code, for the whole pair (a part looks up the finished ones its moves lead
    // into); no position until its part says otherwise.
    let codes: Vec<Vec<AtomicU8>> = layouts
        .iter()
        .map(|l| atomics(l.size() as usize, INVALID))
        .collect();
    let mut captures: Vec<Captures> = layouts
        .iter()
        .map(|l| vec![0; (l.size() as usize).div_ceil(64)])
        .collect();
    let pair = Pair {
        materials: pair,
        layouts: &layouts,
        codes: &codes,
        lookup: tables,
        threads,
        progress,
    };
    for part in parts {
        pair.build_part(part, &mut captures)?;
    }
    let codes = codes
        .into_iter()
        .map(|c| c.into_iter().map(AtomicU8::into_inner).collect())
        .collect::<Vec<Codes>>();
    Ok(codes.into_iter().zip(captures).collect())
}

/// `n` bytes of value `v` that threads may share.
fn atomics(n: usize, v: u8) -> Vec<AtomicU8> {
    std::iter::repeat_with(|| AtomicU8::new(v))
        .take(n)
        .collect()
}

/// What the parts of a pair share while it is built.
struct Pair<'a> {
    materials: &'a [Material],
    layouts: &'a [Layout],
    codes: &'a [Vec<AtomicU8>],
    lookup: &'a Known,
    threads: usize,
    progress: &'a (dyn Fn(Progress) + Sync),
}

/// The successors in finished parts that positions of a part were seen to have, by their
/// distance and bucket, in the lane of whether the successor is won: the position's number in
/// the part.
type Seen = Vec<Level>;

impl Pair<'_> {
    /// The slice a move inside the pair leads to.
    fn other(&self, s: usize) -> usize {
        if self.materials.len() == 1 {
            0
        } else {
            1 - s
        }
    }

    /// Settles every position of `part` (the parts its moves lead into are finished), sets its
    /// capture bits in `captures` and checks it.
    fn build_part(&self, part: &Part, captures: &mut [Captures]) -> Result<(), BuildError> {
        // The moves of an open position still to refute, by its number in the part.
        let counts = atomics(part.size() as usize, 0);
        // Settled positions by distance and bucket: (side, index).
        let mut levels: Vec<Level> = vec![Level::new(), Level::new()];
        let mut seen: Seen = Vec::new();
        for share in part.shares() {
            let s = share.slice();
            let (layout, codes, counts) = (&self.layouts[s], &self.codes[s], &counts);
            let p = self.other(s);
            let captures = &mut captures[s];
            parallel(
                share.len() as usize,
                CHUNK,
                self.threads,
                Stage::Start,
                self.progress,
                &|range| {
                    // Positions settled at a distance: (distance, bucket, index).
                    let mut settled = Vec::new();
                    let mut capturing = Vec::new();
                    let mut outside_seen = Vec::new();
                    let mut decoder = Decoder::new(*layout);
                    let mut encoder = (!part.is_whole()).then(|| Encoder::new(self.layouts[p]));
                    let mut batch = Batch::default();
                    let mut found = Vec::new();
                    let mut l = range.start;
                    while l < range.end {
                        // A batch of positions' moves first, with the codes they need looked
                        // up in one go afterwards, so that those reads (conversions into
                        // finished slices, moves into finished parts: mostly cache misses)
                        // overlap instead of waiting one by one.
                        batch.clear();
                        while l < range.end && batch.positions.len() < START_BATCH {
                            let i = share.global(l as u64);
                            if let Some(b) = decoder.decode(i) {
                                let capture = has_capture(&b);
                                if capture {
                                    capturing.push(i as u32);
                                }
                                let outside = encoder.as_mut().map(|e| (part, p, e));
                                batch.gather(&b, i, l, capture, self.lookup, outside)?;
                            }
                            l += 1;
                        }
                        batch.read(&self.codes[p]);
                        for k in 0..batch.positions.len() {
                            let (i, l, bucket) = {
                                let q = &batch.positions[k];
                                (q.index, q.number, q.bucket)
                            };
                            match batch.settle(k, &mut found)? {
                                Start::Settled(v) => {
                                    let c =
                                        v.code().ok_or(BuildError::TooLong(self.materials[s]))?;
                                    codes[i as usize].store(c, Ordering::Relaxed);
                                    if let Some(d) = v.distance() {
                                        settled.push((d, bucket, i as u32));
                                    }
                                }
                                Start::Open(k) => {
                                    codes[i as usize].store(OPEN, Ordering::Relaxed);
                                    let n = share.number(l as u64);
                                    counts[n].store(k, Ordering::Relaxed);
                                    let n = u32::try_from(n)
                                        .map_err(|_| BuildError::TooLarge(self.materials[s]))?;
                                    for &(d, k, won) in &found {
                                        outside_seen.push((d, k, won, n));
                                    }
                                }
                            }
                        }
                    }
                    Ok((settled, capturing, outside_seen))
                },
                |(settled, capturing, outside_seen)| {
                    for i in capturing {
                        captures[(i / 64) as usize] |= 1 << (i % 64);
                    }
                    for (d, k, i) in settled {
                        levels[usize::from(d)].push(s, usize::from(k), i);
                    }
                    for (d, k, won, n) in outside_seen {
                        let d = usize::from(d);
                        if seen.len() <= d {
                            seen.resize_with(d + 1, Level::new);
                        }
                        seen[d].push(usize::from(won), usize::from(k), n);
                    }
                },
            )?;
        }
        match part.whole_numbering() {
            Some(whole) => self.unmove(&whole, &counts, levels, seen)?,
            None => self.unmove(part, &counts, levels, seen)?,
        }
        drop(counts);
        self.verify(part, captures)
    }

    /// Un-moving, distance by distance. The threads share the codes and counts, but never a
    /// position: the predecessors of a position have the other side's pieces where it has its
    /// own (turned round), so positions of different buckets (which are by the side to move's
    /// pieces) have no predecessor in common, and a bucket is un-moved by one thread; the
    /// successors in finished parts are taken with the bucket they would be un-moved from. So a
    /// count is read and written in place, and the values do not depend on the threads: a count
    /// only falls, and only the un-move that settles a position (the first from a lost
    /// successor, or the one that takes the count to zero) writes its code. Predecessors in
    /// other parts (further back) are left for their own part, which will see this one's values.
    fn unmove(
        &self,
        part: &impl Numbering,
        counts: &[AtomicU8],
        mut levels: Vec<Level>,
        mut seen: Seen,
    ) -> Result<(), BuildError> {
        let mut d = 0usize;
        while d < levels.len().max(seen.len()) {
            let level = levels.get_mut(d).map(std::mem::take).unwrap_or_default();
            let seen_here = seen.get_mut(d).map(std::mem::take).unwrap_or_default();
            let next = d + 1;
            let win_code = Value::Win(next as u16).code();
            let loss_code = Value::Loss(next as u16).code();
            let (level, seen_here) = (&level, &seen_here);
            // A position `i` (number `n` in the part) of slice `p` with a successor won (`win`)
            // or lost: it loses a move, or wins; `left` is its count.
            // (A distance beyond the format's is found when the codes run out: `too_long`.)
            let settle = |p: usize,
                          i: u32,
                          count: &AtomicU8,
                          left: u8,
                          win: bool,
                          too_long: &mut Option<BuildError>|
             -> bool {
                if left == 0 {
                    return false;
                }
                if win && left > 1 {
                    count.store(left - 1, Ordering::Relaxed);
                    return false;
                }
                count.store(0, Ordering::Relaxed);
                match if win { loss_code } else { win_code } {
                    Some(c) => {
                        self.codes[p][i as usize].store(c, Ordering::Relaxed);
                        true
                    }
                    None => {
                        *too_long = Some(BuildError::TooLong(self.materials[p]));
                        false
                    }
                }
            };
            parallel(
                BUCKETS,
                1,
                self.threads,
                Stage::Distance(d as u16),
                self.progress,
                &|range| {
                    let mut settled = Level::new();
                    let mut too_long = None;
                    let mut decoders: Vec<Decoder> =
                        self.layouts.iter().map(|&l| Decoder::new(l)).collect();
                    let mut encoders: Vec<Encoder> =
                        self.layouts.iter().map(|&l| Encoder::new(l)).collect();
                    // Each bucket in the order of the numbers, so that consecutive positions
                    // share the digits the decoder keeps. The order does not change the values:
                    // a count reaches zero only once every move inside the pair leads to a win,
                    // so a predecessor of a loss is never settled as lost first.
                    let mut sorted = Vec::new();
                    let (mut preds, mut lefts) = (Vec::new(), Vec::new());
                    for k in range {
                        for (s, decoder) in decoders.iter_mut().enumerate() {
                            sorted.clear();
                            sorted.extend_from_slice(level.list(s, k));
                            sorted.sort_unstable();
                            for &q in &sorted {
                                let code = self.codes[s][q as usize].load(Ordering::Relaxed);
                                let win = matches!(Value::from_code(code), Some(Value::Win(_)));
                                let b = decoder
                                    .decode(u64::from(q))
                                    .ok_or(BuildError::Missing(self.materials[s]))?;
                                let p = self.other(s);
                                let encoder = &mut encoders[p];
                                // The predecessors' numbers first, then their counts in one go, so
                                // that the reads (mostly outside the caches) overlap; a position's
                                // predecessors are all different, so none is written before it is
                                // read.
                                // (One in another part counts as settled: that part will see
                                // this one's values.)
                                preds.clear();
                                unmoves(&b, |pb| {
                                    let i = encoder.encode(&pb);
                                    if let Some(n) = part.number(p, i) {
                                        preds.push((n, i as u32, bucket(&pb) as u8));
                                    }
                                });
                                lefts.clear();
                                lefts.extend(
                                    preds
                                        .iter()
                                        .map(|&(n, _, _)| counts[n].load(Ordering::Relaxed)),
                                );
                                for (&(n, i, k), &left) in preds.iter().zip(&lefts) {
                                    // A predecessor of a win loses a move; of a loss, it wins.
                                    if settle(p, i, &counts[n], left, win, &mut too_long) {
                                        settled.push(p, usize::from(k), i);
                                    }
                                }
                            }
                        }
                        for won in 0..LANES {
                            for &n in seen_here.list(won, k) {
                                let (p, i) = part.locate(n as usize);
                                let count = &counts[n as usize];
                                let left = count.load(Ordering::Relaxed);
                                if settle(p, i as u32, count, left, won == 1, &mut too_long) {
                                    let b = decoders[p]
                                        .decode(i)
                                        .ok_or(BuildError::Missing(self.materials[p]))?;
                                    settled.push(p, bucket(&b), i as u32);
                                }
                            }
                        }
                    }
                    too_long.map_or(Ok(settled), Err)
                },
                |found| {
                    if found.is_empty() {
                        return;
                    }
                    if levels.len() <= next {
                        levels.resize_with(next + 1, Level::new);
                    }
                    levels[next].append(found);
                },
            )?;
            d += 1;
        }
        Ok(())
    }

    /// Every position of `part` against its successors. A position with a capture pending was
    /// settled by the first pass from the finished slices alone and never written again, so
    /// checking it would repeat that pass's examination exactly: it is left out. The positions
    /// are taken in the order of their mirrors' numbers (each position turned round is a
    /// position of the mirror slice, where its successors are): the successors by a king's move
    /// differ from the mirror only in its least significant digit, so a run of positions reads
    /// its successors' codes from one small block of the mirror slice instead of all over it.
    fn verify(&self, part: &Part, captures: &[Captures]) -> Result<(), BuildError> {
        for share in part.shares() {
            let s = share.slice();
            let mirror = share.mirror();
            let p = mirror.slice();
            let (captures, codes) = (&captures[s], &self.codes[s]);
            // Positions that disagree, and the first of them.
            let (mut wrong, mut first) = (0u64, u64::MAX);
            parallel(
                mirror.len() as usize,
                CHUNK,
                self.threads,
                Stage::Verify,
                self.progress,
                &|range| {
                    let mut bad = (0u64, u64::MAX);
                    let mut mirrors = Decoder::new(self.layouts[p]);
                    let mut encoder = Encoder::new(self.layouts[s]);
                    let mut inside = Inside {
                        encoder: Encoder::new(self.layouts[p]),
                        codes: &self.codes[p],
                        indices: Vec::new(),
                    };
                    // Positions in the mirror's order lie far apart in their own slice, so
                    // their capture bits and codes are read a batch at a time, in one tight
                    // loop, for the reads (mostly outside the caches) to overlap.
                    let mut batch: Vec<(Board, usize)> = Vec::with_capacity(VERIFY_BATCH);
                    let mut known = [(false, 0u8); VERIFY_BATCH];
                    let mut l = range.start;
                    while l < range.end {
                        batch.clear();
                        while l < range.end && batch.len() < VERIFY_BATCH {
                            if let Some(turned) = mirrors.decode(mirror.global(l as u64)) {
                                let b = turned.swapped();
                                batch.push((b, encoder.encode(&b) as usize));
                            }
                            l += 1;
                        }
                        for (k, &(_, i)) in batch.iter().enumerate() {
                            known[k] = (has(captures, i), codes[i].load(Ordering::Relaxed));
                        }
                        for (&(b, i), &(capture, code)) in batch.iter().zip(&known) {
                            if capture {
                                continue;
                            }
                            let Start::Settled(v) =
                                examine(&b, false, self.lookup, Some(&mut inside))?
                            else {
                                unreachable!("a position with its successors known is settled");
                            };
                            if Value::from_code(code) != Some(v) {
                                bad.0 += 1;
                                bad.1 = bad.1.min(i as u64);
                            }
                        }
                    }
                    Ok(bad)
                },
                |(n, at)| {
                    wrong += n;
                    first = first.min(at);
                },
            )?;
            if wrong > 0 {
                return Err(BuildError::Inconsistent {
                    material: self.materials[s],
                    wrong,
                    first,
                });
            }
        }
        Ok(())
    }
}

/// Calls `found` with every position from which the side that just moved (the other side of `b`)
/// reached `b` by a move that neither captured nor crowned, seen from that side (it is to move).
pub fn unmoves(b: &Board, mut found: impl FnMut(Board)) {
    // The other side's men move towards field 50 and came from the fields towards field 1: the
    // steps of a man of the side to move.
    let turned = b.swapped();
    quiet_steps(b.opp_men, b.opp_kings, b.occupied(), |f, g, king| {
        let mut before = turned;
        let pieces = if king {
            &mut before.own_kings
        } else {
            &mut before.own_men
        };
        *pieces ^= (1u64 << (49 - f)) | (1u64 << (49 - g));
        found(before);
    });
}

/// The fields of `set`, lowest first.
pub(crate) fn fields(mut set: u64) -> impl Iterator<Item = usize> {
    std::iter::from_fn(move || {
        let f = (set != 0).then(|| set.trailing_zeros() as usize)?;
        set &= set - 1;
        Some(f)
    })
}

/// Calls `step(from, to, king)` for every quiet step of the pieces `men` and `kings` among the
/// `occupied` fields, kings first: a king any distance along its four lines, a man one field
/// towards field 1 (the first two directions of `NEIGHBOURS`).
#[inline]
fn quiet_steps(men: u64, kings: u64, occupied: u64, mut step: impl FnMut(usize, usize, bool)) {
    for f in fields(kings) {
        for dir in [0, 1, 2, 3] {
            for g in fields(king_reach(f, dir, occupied)) {
                step(f, g, true);
            }
        }
    }
    for f in fields(men) {
        for j in &JUMPS[f][..2] {
            if j.over != 0 && occupied & j.over == 0 {
                step(f, j.over.trailing_zeros() as usize, false);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Built in parts (by 2 and 9 bands of rows), pairs with men on both sides (one that is its
    /// own mirror, and with kings) get the codes and capture bits they get built whole.
    #[test]
    fn a_pair_built_in_parts_is_the_pair_built_whole() {
        let wanted = ["2M-2M", "2M-1M", "1K1M-1M"].map(|s| s.parse::<Material>().unwrap());
        let mut known = Known::new();
        let mut compared = 0;
        for &m in Plan::materials(&wanted).slices() {
            if known.contains(m) {
                continue;
            }
            let pair: Vec<Material> = if m.swapped() == m {
                vec![m]
            } else {
                vec![m, m.swapped()]
            };
            let layouts: Vec<Layout> = pair.iter().map(|&s| Layout::new(s)).collect();
            let whole = build_pair(&pair, &known, &[Part::whole(&layouts)], 2, &|_| {}).unwrap();
            if pair.iter().any(|s| wanted.contains(s)) {
                for bands in [2, 9] {
                    let parts = Part::split(&layouts, bands);
                    assert!(parts.len() > 1);
                    let split = build_pair(&pair, &known, &parts, 2, &|_| {}).unwrap();
                    assert!(split == whole, "{m} in {bands} bands");
                    compared += 1;
                }
            }
            for (&s, (codes, _)) in pair.iter().zip(whole) {
                known.insert(s, codes);
            }
        }
        assert_eq!(compared, 6);
    }

    /// The builder's own move making (quiet moves and captures) agrees with the move generator
    /// on every position of the slices up to 3 pieces and on a spread of a few of 4 and 5: same
    /// captures pending, same successors.
    #[test]
    fn successors_match_the_move_generator() {
        let mut slices = Material::up_to(3);
        slices.extend(
            [
                "2K-1K1M",
                "1K1M-2M",
                "2M-2M",
                "3M-1K",
                "2K1M-2K",
                "1K2M-1K1M",
                "3M-2M",
                "4K-1M",
                "1K1M-3M",
            ]
            .map(|s| s.parse::<Material>().unwrap()),
        );
        for m in slices {
            let layout = Layout::new(m);
            // Every position of the small slices, a spread of the larger ones.
            let step = (layout.size() / 200_000).max(1);
            for i in (0..layout.size()).step_by(step as usize) {
                let Some(b) = layout.decode(i) else {
                    continue;
                };
                let pos = b.to_position();
                assert_eq!(has_capture(&b), kroon_rules::has_capture(&pos), "{m} {i}");
                let mut ours = Vec::new();
                let capture = has_capture(&b);
                moves_of(&b, capture, |c, conversion| {
                    ours.push((c, conversion));
                });
                let mut theirs: Vec<(Board, bool)> = pos
                    .legal_moves()
                    .iter()
                    .map(|mv| (b.after(mv), mv.is_capture() || mv.promotes))
                    .collect();
                let key = |x: &(Board, bool)| {
                    (x.0.own_men, x.0.own_kings, x.0.opp_men, x.0.opp_kings, x.1)
                };
                ours.sort_by_key(key);
                theirs.sort_by_key(key);
                assert_eq!(ours, theirs, "{m} {i}");
            }
        }
    }
}
