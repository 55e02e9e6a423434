//! Lazy SMP: every thread searches the same root and shares the table; the main thread alone decides
//! when to stop. Each thread publishes the iterations it finishes; the answer is the deepest one any
//! thread finished (the main thread's on a tie), and the main thread takes over an iteration a helper
//! finished before it instead of searching that depth again.

use crate::eval::Eval;
use crate::tables::EndgameTables;
use crate::time::TimeManager;
use crate::tt::Table;
use crate::tuning::Tuning;
use crate::worker::{RootGame, ThreadResult, Worker};
use crate::Info;
use kroon_rules::Position;
use std::sync::atomic::{AtomicBool, AtomicU32, AtomicU64, AtomicUsize, Ordering};
use std::sync::Arc;

/// Places of the busy table: a power of two.
const BUSY_PLACES: usize = 1 << 14;

/// What the search threads share.
#[derive(Debug)]
pub struct Shared {
    /// The transposition table.
    pub tt: Table,
    /// Set to make every thread stop.
    pub stop: AtomicBool,
    /// Nodes per thread, published every thousand nodes or so.
    pub nodes: Vec<AtomicU64>,
    /// Endgame tables to probe, if any.
    pub tables: parking_lot::RwLock<Option<Arc<dyn EndgameTables>>>,
    /// How many best lines the main thread looks for (multi-PV); 1 is the ordinary search.
    pub multipv: AtomicUsize,
    /// The search's tuning values (`KROON_TUNE` overrides them).
    pub tuning: Tuning,
    /// Threads searching now.
    pub active: AtomicUsize,
    /// The keys of positions some thread is searching (see `Tuning::smp_defer_depth`), each at
    /// a place given by its low bits; 0 where none is.
    busy: Box<[AtomicU64]>,
    /// The deepest iteration a thread has finished in this search (0: none yet): the depth of
    /// `deepest`, readable without its lock.
    deepest_depth: AtomicU32,
    /// That iteration's result.
    deepest: parking_lot::Mutex<ThreadResult>,
    /// The depth at which the search ends (a depth limit), for the helpers as for the main thread.
    max_depth: AtomicU32,
}

impl Shared {
    /// Shared state for up to `threads` threads with a table of `hash_mib` MiB.
    #[must_use]
    pub fn new(hash_mib: usize, threads: usize) -> Shared {
        Shared {
            tt: Table::new(hash_mib),
            stop: AtomicBool::new(false),
            nodes: (0..threads.max(1)).map(|_| AtomicU64::new(0)).collect(),
            tables: parking_lot::RwLock::new(None),
            multipv: AtomicUsize::new(1),
            tuning: Tuning::from_env(),
            active: AtomicUsize::new(1),
            busy: (0..BUSY_PLACES).map(|_| AtomicU64::new(0)).collect(),
            deepest_depth: AtomicU32::new(0),
            deepest: parking_lot::Mutex::new(ThreadResult::default()),
            max_depth: AtomicU32::new(crate::MAX_DEPTH),
        }
    }

    /// Whether some thread marked `key` as being searched.
    #[inline]
    #[must_use]
    pub fn is_busy(&self, key: u64) -> bool {
        self.busy[key as usize & (BUSY_PLACES - 1)].load(Ordering::Relaxed) == key
    }

    /// Marks `key` as being searched (or, with `busy` false, no longer).
    #[inline]
    pub fn set_busy(&self, key: u64, busy: bool) {
        self.busy[key as usize & (BUSY_PLACES - 1)]
            .store(if busy { key } else { 0 }, Ordering::Relaxed);
    }

    /// Records `result`, a finished iteration of some thread, if it is deeper than every one so far.
    pub fn publish(&self, result: &ThreadResult) {
        if result.depth <= self.deepest_depth.load(Ordering::Acquire) {
            return;
        }
        let mut deepest = self.deepest.lock();
        if result.depth > deepest.depth {
            deepest.clone_from(result);
            self.deepest_depth.store(result.depth, Ordering::Release);
        }
    }

    /// The depth of the deepest iteration finished so far (0: none).
    #[inline]
    #[must_use]
    pub fn deepest_depth(&self) -> u32 {
        self.deepest_depth.load(Ordering::Acquire)
    }

    /// The deepest iteration finished so far, if it is at least `depth` deep.
    #[must_use]
    pub fn deepest_from(&self, depth: u32) -> Option<ThreadResult> {
        if self.deepest_depth() < depth {
            return None;
        }
        let deepest = self.deepest.lock();
        (deepest.depth >= depth).then(|| deepest.clone())
    }

    /// The depth at which the search ends.
    #[must_use]
    pub fn max_depth(&self) -> u32 {
        self.max_depth.load(Ordering::Relaxed)
    }

    /// Nodes of every thread so far.
    #[must_use]
    pub fn total_nodes(&self) -> u64 {
        self.nodes.iter().map(|n| n.load(Ordering::Relaxed)).sum()
    }
}

/// Searches `root` with `eval` on `threads` threads (at most as many as `shared` was made for) until `clock`
/// says stop; `report` gets the main thread's iterations.
pub fn run(
    shared: &Shared,
    eval: &Eval,
    root: &Position,
    root_game: &RootGame,
    threads: usize,
    clock: &TimeManager,
    report: &dyn Fn(Info),
) -> (ThreadResult, u64) {
    let threads = threads.clamp(1, shared.nodes.len());
    shared.active.store(threads, Ordering::Relaxed);
    for n in &shared.nodes {
        n.store(0, Ordering::Relaxed);
    }
    shared.tt.new_search();
    shared.deepest_depth.store(0, Ordering::Release);
    *shared.deepest.lock() = ThreadResult::default();
    shared.max_depth.store(clock.max_depth(), Ordering::Relaxed);
    let stack = 16 << 20;
    std::thread::scope(|s| {
        let helpers: Vec<_> = (1..threads)
            .map(|id| {
                std::thread::Builder::new()
                    .name(format!("search-{id}"))
                    .stack_size(stack)
                    .spawn_scoped(s, move || {
                        let mut w = Worker::new(shared, eval, id, None);
                        w.iterate(root, root_game, None);
                        w.nodes()
                    })
                    .expect("spawn search thread")
            })
            .collect();
        let mut main = Worker::new(shared, eval, 0, Some(clock));
        let mut outcome = main.iterate(root, root_game, Some(report));
        // While pondering, the answer waits for the ponder hit or a stop.
        while clock.pondering() && !shared.stop.load(Ordering::Relaxed) {
            std::thread::sleep(std::time::Duration::from_millis(1));
        }
        shared.stop.store(true, Ordering::Relaxed);
        let mut nodes = main.nodes();
        for h in helpers {
            nodes += h.join().expect("search thread panicked");
        }
        // A helper may have finished a deeper iteration than the main thread's last one.
        if let Some(deeper) = shared.deepest_from(outcome.depth + 1) {
            if shared.multipv.load(Ordering::Relaxed) == 1 && !deeper.pv.is_empty() {
                main.report_adopted(&deeper, report);
                outcome = deeper;
            }
        }
        (outcome, nodes)
    })
}
