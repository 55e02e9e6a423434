//! Lazy SMP: every thread searches the same root and shares the table; the main thread alone decides
//! when to stop, and its result is the answer.

use crate::eval::Eval;
use crate::tables::EndgameTables;
use crate::time::TimeManager;
use crate::tt::Table;
use crate::tuning::Tuning;
use crate::worker::{RootGame, ThreadResult, Worker};
use crate::Info;
use kroon_rules::Position;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
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
        let outcome = main.iterate(root, root_game, Some(report));
        // While pondering, the answer waits for the ponder hit or a stop.
        while clock.pondering() && !shared.stop.load(Ordering::Relaxed) {
            std::thread::sleep(std::time::Duration::from_millis(1));
        }
        shared.stop.store(true, Ordering::Relaxed);
        let mut nodes = main.nodes();
        for h in helpers {
            nodes += h.join().expect("search thread panicked");
        }
        (outcome, nodes)
    })
}
