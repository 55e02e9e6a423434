//! Growing a book by Kroon's own search.
//!
//! Every position in the tree has a score from a search of its own (node-limited for a book that
//! repeats exactly). A position is expanded by searching each position its legal moves lead to;
//! scores are then backed up by minimax from the leaves. The next positions to expand are the
//! leaves of the lines whose summed loss against the best move, move by move, stays within the
//! margin, cheapest line first, then the shallowest (best-first). They are expanded in batches of
//! a fixed size, whatever the thread count, and each search starts with a cleared table, so one
//! node budget gives the same book on any number of threads.
//!
//! The state (every searched position) is saved to a file now and then and at the end; a build
//! started with the state of an earlier one goes on from where that stopped.

use crate::format::{BookData, BookError};
use crate::state::{self, Node, Nodes};
use crate::Book;
use indicatif::{ProgressBar, ProgressStyle};
use kroon_rules::{Position, Variant};
use kroon_search::{Engine, Eval, Limits, SearchRequest};
use std::collections::hash_map::Entry;
use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

/// Positions expanded per batch. Fixed, so that the book does not depend on the thread count.
const BATCH: usize = 8;
/// Seconds between two saves of the state and the book.
const SAVE_EVERY: Duration = Duration::from_secs(30);

/// What to build.
#[derive(Clone, Debug)]
pub struct BuildOptions {
    /// The variant; the tree grows from its initial position.
    pub variant: Variant,
    /// Book lines reach this many plies: positions up to `plies - 1` are expanded.
    pub plies: u32,
    /// Lines whose moves lose at most this much in all (centi-men) against the best are grown.
    pub margin: i32,
    /// The search of each position (`Nodes` for a book that repeats exactly).
    pub limits: Limits,
    /// Search threads, one position each.
    pub threads: usize,
    /// Stop once this many positions are expanded (the book's entries; the last batch may go
    /// a few over).
    pub max_positions: usize,
    /// The evaluation searched with.
    pub eval: Eval,
    /// Table per search thread, MiB.
    pub hash_mib: usize,
    /// The book file written.
    pub out: PathBuf,
    /// The state file, read when it exists and written as the build goes.
    pub state: PathBuf,
    /// Show a progress bar on standard error.
    pub progress: bool,
}

/// What a build did.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BuildReport {
    /// Positions in the book (expanded positions).
    pub positions: usize,
    /// Positions searched, in all.
    pub searched: usize,
    /// Of those, the ones found in the state file.
    pub resumed: usize,
    /// Size of the book file, bytes.
    pub bytes: usize,
}

/// Why a build failed.
#[derive(Debug, thiserror::Error)]
pub enum BuildError {
    /// Reading or writing a file.
    #[error("{0}: {1}")]
    Io(PathBuf, std::io::Error),
    /// The state file is corrupt.
    #[error("state file {0}: {1}")]
    State(PathBuf, BookError),
    /// The state file is for another variant.
    #[error("state file {0} is for {1}, not {2}")]
    Variant(PathBuf, Variant, Variant),
}

/// Builds (or, from a state file, goes on building) a book as `opts` says, writes it to
/// `opts.out` and returns it.
///
/// # Errors
/// Files that cannot be read or written, and a state file that is corrupt or for another variant.
pub fn build(opts: &BuildOptions) -> Result<(Book, BuildReport), BuildError> {
    let root = Position::initial(opts.variant);
    let mut nodes = load_state(opts)?;
    let resumed = nodes.len();
    let engines: Vec<EngineSlot> = (0..opts.threads.max(1))
        .map(|_| {
            let mut engine = Engine::new(1, opts.hash_mib);
            engine.set_eval(opts.eval.clone());
            EngineSlot(std::sync::Mutex::new(engine))
        })
        .collect();
    if let Entry::Vacant(slot) = nodes.entry(root.key()) {
        let score = search_all(&engines, &[root], &opts.limits)
            .first()
            .copied()
            .unwrap_or(0);
        slot.insert(Node {
            score,
            expanded: false,
        });
    }
    let bar = progress_bar(opts);
    let mut saved = Instant::now();
    loop {
        let expanded = nodes.values().filter(|n| n.expanded).count();
        bar.set_position(expanded as u64);
        let values = Values::of(&root, &nodes);
        let frontier = frontier(&root, &nodes, &values, opts);
        bar.set_message(format!(
            "positions searched {}, frontier {}",
            nodes.len(),
            frontier.len()
        ));
        if expanded >= opts.max_positions || frontier.is_empty() {
            break;
        }
        // Whole batches only, also the last: a build stopped at its cap and resumed with a higher
        // one expands what one build to the higher cap would.
        let batch: Vec<Position> = frontier.into_iter().take(BATCH).collect();
        let mut queued = HashSet::new();
        let mut children = Vec::new();
        for pos in &batch {
            for mv in &pos.legal_moves() {
                let child = pos.play(mv);
                if !nodes.contains_key(&child.key()) && queued.insert(child.key()) {
                    children.push(child);
                }
            }
        }
        let scores = search_all(&engines, &children, &opts.limits);
        for (child, score) in children.iter().zip(scores) {
            let expanded = false;
            nodes.insert(child.key(), Node { score, expanded });
        }
        for pos in &batch {
            if let Some(node) = nodes.get_mut(&pos.key()) {
                node.expanded = true;
            }
        }
        if saved.elapsed() >= SAVE_EVERY {
            save(opts, &root, &nodes)?;
            saved = Instant::now();
        }
    }
    bar.finish();
    let (book, bytes) = save(opts, &root, &nodes)?;
    let report = BuildReport {
        positions: book.len(),
        searched: nodes.len(),
        resumed,
        bytes,
    };
    Ok((book, report))
}

fn progress_bar(opts: &BuildOptions) -> ProgressBar {
    if !opts.progress {
        return ProgressBar::hidden();
    }
    let bar = ProgressBar::new(opts.max_positions as u64);
    let style = ProgressStyle::with_template(
        "{bar:40} {pos}/{len} positions expanded, {msg} [{elapsed_precise}, ETA {eta}]",
    )
    .unwrap_or_else(|_| ProgressStyle::default_bar());
    bar.set_style(style);
    bar
}

fn load_state(opts: &BuildOptions) -> Result<Nodes, BuildError> {
    let path = &opts.state;
    let bytes = match std::fs::read(path) {
        Ok(bytes) => bytes,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Nodes::new()),
        Err(e) => return Err(BuildError::Io(path.clone(), e)),
    };
    let (variant, nodes) =
        state::from_bytes(&bytes).map_err(|e| BuildError::State(path.clone(), e))?;
    if variant != opts.variant {
        return Err(BuildError::Variant(path.clone(), variant, opts.variant));
    }
    Ok(nodes)
}

/// Writes the state and the book (each through a temporary file, so that an interruption leaves
/// the last complete one); returns the book and its size.
fn save(opts: &BuildOptions, root: &Position, nodes: &Nodes) -> Result<(Book, usize), BuildError> {
    write_whole(&opts.state, &state::to_bytes(opts.variant, nodes))?;
    let book = Book {
        data: book_data(root, nodes),
    };
    let bytes = book.to_bytes();
    write_whole(&opts.out, &bytes)?;
    Ok((book, bytes.len()))
}

fn write_whole(path: &Path, bytes: &[u8]) -> Result<(), BuildError> {
    let mut tmp = path.as_os_str().to_owned();
    tmp.push(".tmp");
    let tmp = PathBuf::from(tmp);
    std::fs::write(&tmp, bytes).map_err(|e| BuildError::Io(tmp.clone(), e))?;
    std::fs::rename(&tmp, path).map_err(|e| BuildError::Io(path.to_owned(), e))
}

/// Searches each of `positions` from a cleared table, on as many threads as there are engines;
/// the scores in the order of `positions`.
fn search_all(engines: &[EngineSlot], positions: &[Position], limits: &Limits) -> Vec<i32> {
    let next = AtomicUsize::new(0);
    let mut scores = vec![0; positions.len()];
    let found: Vec<Vec<(usize, i32)>> = std::thread::scope(|s| {
        let workers: Vec<_> = engines
            .iter()
            .map(|slot| {
                let next = &next;
                s.spawn(move || {
                    let mut engine = slot.lock();
                    let mut out = Vec::new();
                    loop {
                        let i = next.fetch_add(1, Ordering::Relaxed);
                        let Some(pos) = positions.get(i) else {
                            return out;
                        };
                        engine.new_game();
                        let req = SearchRequest::position(*pos, limits.clone());
                        out.push((i, engine.search(&req, &|_| {}).score));
                    }
                })
            })
            .collect();
        workers
            .into_iter()
            .map(|w| w.join().unwrap_or_default())
            .collect()
    });
    for (i, score) in found.into_iter().flatten() {
        if let Some(slot) = scores.get_mut(i) {
            *slot = score;
        }
    }
    scores
}

/// Minimax values of the tree's positions, for the side to move, worked out on demand.
struct Values<'a> {
    nodes: &'a Nodes,
    memo: HashMap<u64, i32>,
}

impl<'a> Values<'a> {
    fn of(root: &Position, nodes: &'a Nodes) -> Values<'a> {
        let mut values = Values {
            nodes,
            memo: HashMap::new(),
        };
        values.value(root);
        values
    }

    /// A leaf's search score; an expanded position's best move's value.
    fn value(&mut self, pos: &Position) -> i32 {
        let key = pos.key();
        if let Some(&v) = self.memo.get(&key) {
            return v;
        }
        let Some(node) = self.nodes.get(&key).copied() else {
            return 0;
        };
        // Set first: a position met again below itself (a repetition) counts as its own score.
        self.memo.insert(key, node.score);
        if !node.expanded {
            return node.score;
        }
        let best = pos
            .legal_moves()
            .iter()
            .map(|mv| pos.play(mv))
            .filter(|child| self.nodes.contains_key(&child.key()))
            .map(|child| -self.value(&child))
            .max()
            .unwrap_or(node.score);
        self.memo.insert(key, best);
        best
    }

    fn get(&self, pos: &Position) -> i32 {
        self.memo.get(&pos.key()).copied().unwrap_or(0)
    }
}

/// The leaves to expand next, best first: those reached by lines within the margin, before the
/// last ply, that have moves; ordered by the line's loss, then its length.
fn frontier(root: &Position, nodes: &Nodes, values: &Values, opts: &BuildOptions) -> Vec<Position> {
    let mut best: HashMap<u64, (i32, u32, Position)> = HashMap::new();
    let mut seen: HashMap<u64, i32> = HashMap::new();
    let mut stack = vec![(*root, 0_i32, 0_u32)];
    while let Some((pos, cost, ply)) = stack.pop() {
        let expanded = nodes.get(&pos.key()).is_some_and(|n| n.expanded);
        if !expanded {
            if ply < opts.plies && !pos.legal_moves().is_empty() {
                let e = best.entry(pos.key()).or_insert((cost, ply, pos));
                if (cost, ply) < (e.0, e.1) {
                    *e = (cost, ply, pos);
                }
            }
            continue;
        }
        if seen.get(&pos.key()).is_some_and(|&c| c <= cost) {
            continue;
        }
        seen.insert(pos.key(), cost);
        let value = values.get(&pos);
        for mv in &pos.legal_moves() {
            let child = pos.play(mv);
            if !nodes.contains_key(&child.key()) {
                continue;
            }
            let loss = value - -values.get(&child);
            let total = cost.saturating_add(loss);
            if total <= opts.margin {
                stack.push((child, total, ply + 1));
            }
        }
    }
    let mut out: Vec<(i32, u32, u64, Position)> = best
        .into_iter()
        .map(|(key, (cost, ply, pos))| (cost, ply, key, pos))
        .collect();
    out.sort_unstable_by_key(|&(cost, ply, key, _)| (cost, ply, key));
    out.into_iter().map(|(_, _, _, pos)| pos).collect()
}

/// The book: every expanded position with all its moves and their backed-up scores, best first.
/// A move sharing its from and to squares with another legal move is left out (see `format`).
fn book_data(root: &Position, nodes: &Nodes) -> BookData {
    let mut values = Values::of(root, nodes);
    let mut entries = Vec::new();
    let mut seen = HashSet::new();
    let mut stack = vec![*root];
    while let Some(pos) = stack.pop() {
        let expanded = nodes.get(&pos.key()).is_some_and(|n| n.expanded);
        if !expanded || !seen.insert(pos.key()) {
            continue;
        }
        let legal = pos.legal_moves();
        let mut moves: Vec<(u16, i16)> = Vec::new();
        for mv in &legal {
            let child = pos.play(mv);
            if !nodes.contains_key(&child.key()) {
                continue;
            }
            stack.push(child);
            if legal.iter().filter(|m| m.key() == mv.key()).count() > 1 {
                continue;
            }
            let score = (-values.value(&child)).clamp(i32::from(i16::MIN), i32::from(i16::MAX));
            moves.push((mv.key(), i16::try_from(score).unwrap_or(0)));
        }
        moves.sort_by_key(|&(_, score)| std::cmp::Reverse(score));
        moves.truncate(255);
        if !moves.is_empty() {
            entries.push((pos.key(), moves));
        }
    }
    entries.sort_unstable_by_key(|&(key, _)| key);
    BookData {
        variant: root.variant(),
        entries,
    }
}

/// A search thread's engine, used by one thread at a time.
struct EngineSlot(std::sync::Mutex<Engine>);

impl EngineSlot {
    fn lock(&self) -> std::sync::MutexGuard<'_, Engine> {
        self.0
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn options(dir: &Path, threads: usize) -> BuildOptions {
        BuildOptions {
            variant: Variant::International,
            plies: 3,
            margin: 30,
            limits: Limits::Nodes(300),
            threads,
            max_positions: 12,
            eval: Eval::default(),
            hash_mib: 1,
            out: dir.join("book.kbk"),
            state: dir.join("book.state"),
            progress: false,
        }
    }

    fn scratch(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("kroon-book-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        dir
    }

    #[test]
    fn a_small_build_probes_back_legal_moves_and_repeats_on_two_threads_and_resumed() {
        let dir = scratch("build");
        let (book, report) = build(&options(&dir, 1)).unwrap();
        // The root, then batches of 8.
        assert_eq!(report.positions, 17);
        assert_eq!(report.resumed, 0);
        let file = std::fs::read(dir.join("book.kbk")).unwrap();
        assert_eq!(Book::from_bytes(&file).unwrap(), book);

        // Every book position is reached from the start by book moves, and all are legal.
        let mut reached = 0;
        let mut stack = vec![(Position::initial(Variant::International), 0)];
        let mut seen = HashSet::new();
        while let Some((pos, ply)) = stack.pop() {
            let moves = book.moves(&pos);
            if moves.is_empty() || !seen.insert(pos.key()) {
                continue;
            }
            reached += 1;
            assert!(ply < 3);
            assert!(moves.windows(2).all(|w| w[0].1 >= w[1].1));
            for (mv, _) in moves {
                assert!(pos.legal_moves().contains(&mv));
                stack.push((pos.play(&mv), ply + 1));
            }
        }
        assert_eq!(reached, 17);
        // The start position lists every move (all were searched), and the best line was grown.
        let start = Position::initial(Variant::International);
        let moves = book.moves(&start);
        assert_eq!(moves.len(), start.legal_moves().len());
        assert!(!book.moves(&start.play(&moves[0].0)).is_empty());

        // Two threads: the same book.
        let two = scratch("build-two");
        assert_eq!(build(&options(&two, 2)).unwrap().0, book);

        // Stopped at 4 (9: the root and a batch), then resumed to 12: the same book again.
        let part = scratch("build-part");
        let mut first = options(&part, 1);
        first.max_positions = 4;
        assert_eq!(build(&first).unwrap().1.positions, 9);
        let (resumed, report) = build(&options(&part, 1)).unwrap();
        assert!(report.resumed > 9);
        assert_eq!(resumed, book);

        // A corrupt state file is refused, not read.
        std::fs::write(part.join("book.state"), b"KROONBKS garbage").unwrap();
        assert!(matches!(
            build(&options(&part, 1)),
            Err(BuildError::State(..))
        ));
        for d in [dir, two, part] {
            let _ = std::fs::remove_dir_all(d);
        }
    }
}
