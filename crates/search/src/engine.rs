//! `Engine`: owns the table and the threads, runs searches in the background, and reports typed
//! events; it knows nothing of any protocol.

use crate::book::BookPlay;
use crate::eval::Eval;
use crate::smp::{self, Shared};
use crate::tables::EndgameTables;
use crate::time::{Limits, TimeManager};
use crate::worker::History;
use crate::{Info, SearchResult};
use kroon_rules::{Game, Outcome, Position, Waived};
use parking_lot::Mutex;
use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::thread::JoinHandle;

/// What a search reports.
#[derive(Clone, Debug)]
pub enum Event {
    /// An iteration finished.
    Iteration(Info),
    /// The search is over: the move to play. Always sent, also after `stop`.
    Done(SearchResult),
}

/// A search to run.
#[derive(Clone, Debug)]
pub struct SearchRequest {
    /// The game so far; the search starts from its current position.
    pub game: Game,
    /// When to stop.
    pub limits: Limits,
    /// Search on the opponent's time: no time limit until `ponder_hit`.
    pub ponder: bool,
}

impl SearchRequest {
    /// A request to search `pos` (with no game history) under `limits`.
    #[must_use]
    pub fn position(pos: Position, limits: Limits) -> SearchRequest {
        SearchRequest {
            game: Game::new(pos),
            limits,
            ponder: false,
        }
    }
}

struct Running {
    handle: JoinHandle<SearchResult>,
    clock: Arc<TimeManager>,
}

/// The engine: configure it, then `go`, `stop`, `ponder_hit`, `wait`.
pub struct Engine {
    shared: Arc<Shared>,
    eval: Arc<Eval>,
    threads: usize,
    hash_mib: usize,
    multipv: usize,
    running: Mutex<Option<Running>>,
    /// The book is played here rather than in each protocol's session, so that Hub, DXP and any
    /// other caller of `go` play from it alike, each session only saying which book and margin.
    book: Option<Arc<BookPlay>>,
}

impl std::fmt::Debug for Engine {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "Engine(threads={}, hash={} MiB, eval={})",
            self.threads,
            self.hash_mib,
            match *self.eval {
                Eval::Hand => "hand",
                Eval::Learned(_) => "learned",
            }
        )
    }
}

impl Engine {
    /// An engine with `threads` search threads and a `hash_mib` MiB table.
    #[must_use]
    pub fn new(threads: usize, hash_mib: usize) -> Engine {
        let threads = threads.max(1);
        Engine {
            shared: Arc::new(Shared::new(hash_mib, threads)),
            eval: Arc::new(Eval::default()),
            threads,
            hash_mib,
            multipv: 1,
            running: Mutex::new(None),
            book: None,
        }
    }

    /// Changes the thread count and table size (waits for a running search first). The table is
    /// rebuilt only when its size changes.
    pub fn configure(&mut self, threads: usize, hash_mib: usize) {
        self.wait();
        let threads = threads.max(1);
        if threads != self.threads || hash_mib != self.hash_mib {
            let tables = self.shared.tables.read().clone();
            self.shared = Arc::new(Shared::new(hash_mib, threads));
            *self.shared.tables.write() = tables;
            self.threads = threads;
            self.hash_mib = hash_mib;
        }
    }

    /// Searches from now on with `eval` (waits for a running search first). The table is cleared
    /// when the evaluation changes, since its stored evaluations came from the old one.
    pub fn set_eval(&mut self, eval: Eval) {
        self.wait();
        let same = match (&*self.eval, &eval) {
            (Eval::Hand, Eval::Hand) => true,
            (Eval::Learned(a), Eval::Learned(b)) => Arc::ptr_eq(a, b),
            _ => false,
        };
        if !same {
            self.eval = Arc::new(eval);
            self.shared.tt.clear();
        }
    }

    /// Probes `tables` from now on (`None`: no tables). The table is cleared, since its scores
    /// were found with other knowledge.
    pub fn set_tables(&mut self, tables: Option<Arc<dyn EndgameTables>>) {
        self.wait();
        *self.shared.tables.write() = tables;
        self.shared.tt.clear();
    }

    /// Looks for the best `count` lines from now on (multi-PV; at least 1, the ordinary search).
    /// Each iteration then reports one [`Info`] per line, numbered by [`Info::multipv`], and the
    /// result carries them in [`SearchResult::lines`]. Line 1 is the ordinary search's
    /// iteration, unchanged; the others cost a root search each. Waits for a running search
    /// first.
    pub fn set_multipv(&mut self, count: usize) {
        self.wait();
        self.multipv = count.max(1);
    }

    /// How many lines searches look for.
    #[must_use]
    pub fn multipv(&self) -> usize {
        self.multipv
    }

    /// The evaluation searches use.
    #[must_use]
    pub fn eval(&self) -> &Eval {
        &self.eval
    }

    /// Plays from `book` (none: always search). Timed, depth and node searches from a book
    /// position answer with a book move at once; analysis (`Infinite`) and pondering search.
    pub fn set_book(&mut self, book: Option<BookPlay>) {
        self.wait();
        self.book = book.map(Arc::new);
    }

    /// The book's answer to `req`, if it has one and the request is one to answer from the book.
    fn book_move(&self, req: &SearchRequest) -> Option<SearchResult> {
        let book = self.book.as_ref()?;
        if req.ponder || matches!(req.limits, Limits::Infinite) {
            return None;
        }
        let (mv, score) = book.pick(req.game.position())?;
        Some(SearchResult {
            best: Some(mv),
            score,
            pv: vec![mv],
            ..SearchResult::default()
        })
    }

    /// Forgets everything learnt (a new game).
    pub fn new_game(&mut self) {
        self.wait();
        self.shared.tt.clear();
    }

    /// Starts a search in the background; `on_event` gets each iteration and then `Done`.
    pub fn go(&self, req: SearchRequest, on_event: impl Fn(Event) + Send + 'static) {
        let mut running = self.running.lock();
        if let Some(r) = running.take() {
            self.shared.stop.store(true, Ordering::Relaxed);
            let _ = r.handle.join();
        }
        self.shared.stop.store(false, Ordering::Relaxed);
        self.shared.multipv.store(self.multipv, Ordering::Relaxed);
        let clock = Arc::new(TimeManager::new(&req.limits, req.ponder));
        let shared = Arc::clone(&self.shared);
        let eval = Arc::clone(&self.eval);
        let threads = self.threads;
        let thread_clock = Arc::clone(&clock);
        let book = self.book_move(&req);
        let handle = std::thread::Builder::new()
            .name("search-main".into())
            .stack_size(16 << 20)
            .spawn(move || {
                let result = book.unwrap_or_else(|| {
                    search_blocking(&shared, &eval, &req, threads, &thread_clock, &|info| {
                        on_event(Event::Iteration(info));
                    })
                });
                on_event(Event::Done(result.clone()));
                result
            })
            .expect("spawn search thread");
        *running = Some(Running { handle, clock });
    }

    /// Asks the running search to stop soon; `Done` still arrives.
    pub fn stop(&self) {
        self.shared.stop.store(true, Ordering::Relaxed);
    }

    /// The opponent played the expected move: the ponder search becomes a timed one.
    pub fn ponder_hit(&self) {
        if let Some(r) = self.running.lock().as_ref() {
            r.clock.ponder_hit();
        }
    }

    /// Whether a search is running.
    #[must_use]
    pub fn is_searching(&self) -> bool {
        self.running
            .lock()
            .as_ref()
            .is_some_and(|r| !r.handle.is_finished())
    }

    /// Waits for the running search, if any, and returns its result.
    pub fn wait(&self) -> Option<SearchResult> {
        let r = self.running.lock().take()?;
        r.handle.join().ok()
    }

    /// Runs a search to the end on the calling thread.
    pub fn search(&self, req: &SearchRequest, on_info: &dyn Fn(Info)) -> SearchResult {
        self.wait();
        if let Some(result) = self.book_move(req) {
            return result;
        }
        self.shared.stop.store(false, Ordering::Relaxed);
        self.shared.multipv.store(self.multipv, Ordering::Relaxed);
        let clock = TimeManager::new(&req.limits, req.ponder);
        search_blocking(&self.shared, &self.eval, req, self.threads, &clock, on_info)
    }
}

/// The draw rules a search of `game` leaves out: those the game waives, and a counting rule or a
/// repetition that has already ended the game at the root. The caller asks for a move all the
/// same (a GUI, or an opponent, that reads the rules otherwise), so the search plays the position
/// out as it stands instead of scoring every move a draw.
fn waived_at_root(game: &Game) -> Waived {
    let mut waived = game.waived();
    if let Some(Outcome::Draw(reason)) = game.outcome() {
        waived.waive(reason);
    }
    waived
}

fn search_blocking(
    shared: &Shared,
    eval: &Eval,
    req: &SearchRequest,
    threads: usize,
    clock: &TimeManager,
    report: &dyn Fn(Info),
) -> SearchResult {
    let game = &req.game;
    let root = *game.position();
    let positions = game.positions();
    let history = History {
        keys: positions[..positions.len() - 1]
            .iter()
            .map(Position::key)
            .collect(),
        counts: game.counts(),
        waived: waived_at_root(game),
    };
    let legal = root.legal_moves();
    // With one legal move and a clock running, there is nothing to think about.
    let timed = matches!(req.limits, Limits::MoveTime(_) | Limits::Clock { .. });
    if legal.len() <= 1 && timed && !req.ponder {
        return SearchResult {
            best: legal.iter().next().copied(),
            ponder: None,
            score: 0,
            depth: 0,
            nodes: 0,
            elapsed: clock.elapsed(),
            pv: legal.iter().copied().collect(),
            lines: Vec::new(),
        };
    }
    let (outcome, nodes) = smp::run(shared, eval, &root, &history, threads, clock, report);
    SearchResult {
        best: outcome.pv.first().copied(),
        ponder: outcome.pv.get(1).copied(),
        score: outcome.score,
        depth: outcome.depth,
        nodes,
        elapsed: clock.elapsed(),
        pv: outcome.pv,
        lines: outcome.lines,
    }
}
