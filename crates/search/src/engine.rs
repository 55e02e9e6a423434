//! `Engine`: owns the table and the threads, runs searches in the background, and reports typed
//! events; it knows nothing of any protocol.

use crate::book::BookPlay;
use crate::eval::Eval;
use crate::score::is_decisive;
use crate::smp::{self, Shared};
use crate::tables::EndgameTables;
use crate::time::{Bounds, Limits, TimeManager};
use crate::worker::RootGame;
use crate::{Info, SearchResult};
use kroon_rules::{Game, Outcome, Position, Waived};
use parking_lot::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};
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
    /// Strength handicap, 0 (none) to [`MAX_HANDICAP`]: see [`Engine::set_handicap`].
    handicap: u8,
    /// Draws of the handicap's choices, so that games differ.
    draws: Arc<AtomicU64>,
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
            handicap: 0,
            draws: Arc::new(AtomicU64::new(0)),
            book: None,
        }
    }

    /// Plays weaker from now on: with handicap `h` (1 to [`MAX_HANDICAP`]; 0 for full strength)
    /// the search looks at several lines and a move is drawn at random among those within a
    /// margin of the best (40, 100, 200 centi-men), and now and then (never, 3 %, 8 % of the
    /// moves) among all of them but proven losses: the weakest levels drop pieces. Analysis
    /// (`Limits::Infinite`) and pondering are never handicapped. Waits for a running search.
    pub fn set_handicap(&mut self, h: u8) {
        self.wait();
        self.handicap = h.min(MAX_HANDICAP);
    }

    /// The handicap searches play with.
    #[must_use]
    pub fn handicap(&self) -> u8 {
        self.handicap
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
        let handicap = self.handicap_for(&req);
        self.shared
            .multipv
            .store(self.lines_for(handicap), Ordering::Relaxed);
        let clock = Arc::new(TimeManager::new(&req.limits, req.ponder));
        let draw = self.draws.fetch_add(1, Ordering::Relaxed);
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
                    let result =
                        search_blocking(&shared, &eval, &req, threads, &thread_clock, &|info| {
                            on_event(Event::Iteration(info));
                        });
                    handicapped(result, handicap, req.game.position().key() ^ draw)
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
            r.clock.ponder_hit_after(self.shared.total_nodes());
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
        let handicap = self.handicap_for(req);
        self.shared
            .multipv
            .store(self.lines_for(handicap), Ordering::Relaxed);
        let clock = TimeManager::new(&req.limits, req.ponder);
        let draw = self.draws.fetch_add(1, Ordering::Relaxed);
        let result = search_blocking(&self.shared, &self.eval, req, self.threads, &clock, on_info);
        handicapped(result, handicap, req.game.position().key() ^ draw)
    }

    /// The handicap that applies to `req`: none for analysis and pondering.
    fn handicap_for(&self, req: &SearchRequest) -> u8 {
        if req.ponder || matches!(req.limits, Limits::Infinite) {
            0
        } else {
            self.handicap
        }
    }

    /// Lines to search: a handicapped search needs some to choose from.
    fn lines_for(&self, handicap: u8) -> usize {
        if handicap > 0 {
            self.multipv.max(HANDICAP_LINES)
        } else {
            self.multipv
        }
    }
}

/// The largest strength handicap.
pub const MAX_HANDICAP: u8 = 3;
/// Lines a handicapped search looks at.
const HANDICAP_LINES: usize = 6;

/// The move a handicapped engine plays instead of the best: drawn with `seed` among the lines
/// of the result (see [`Engine::set_handicap`]). Without lines, the best move stays.
fn handicapped(mut result: SearchResult, handicap: u8, seed: u64) -> SearchResult {
    const MARGIN: [i32; 4] = [0, 40, 100, 200];
    const BLUNDER_PERCENT: [u64; 4] = [0, 0, 3, 8];
    let h = usize::from(handicap.min(MAX_HANDICAP));
    let Some(best) = result.lines.first().map(|l| l.score) else {
        return result;
    };
    if h == 0 {
        return result;
    }
    let mut rng = kroon_rules::hash::SplitMix64(seed);
    let lost = |s: i32| is_decisive(s) && s < 0;
    // A proven loss is never chosen, unless every line is one.
    let not_lost = |s: i32| !lost(s) || lost(best);
    let blunder = rng.next_u64() % 100 < BLUNDER_PERCENT[h];
    let candidates: Vec<usize> = result
        .lines
        .iter()
        .enumerate()
        .filter(|(_, l)| not_lost(l.score) && (blunder || best - l.score <= MARGIN[h]))
        .map(|(i, _)| i)
        .collect();
    if candidates.is_empty() {
        return result;
    }
    let pick = candidates[(rng.next_u64() % candidates.len() as u64) as usize];
    let line = result.lines[pick].clone();
    result.best = line.pv.first().copied();
    result.ponder = line.pv.get(1).copied();
    result.score = line.score;
    result.pv = line.pv;
    result
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
    let root_game = RootGame {
        keys: positions[..positions.len() - 1]
            .iter()
            .map(Position::key)
            .collect(),
        counts: game.counts(),
        waived: waived_at_root(game),
    };
    let legal = root.legal_moves();
    // With one legal move and a clock running there is nothing to think about; as Scan, the
    // engine still says what it expects (a score and a reply to ponder on), from a search
    // too small to be felt on the clock.
    let timed = match &req.limits {
        Limits::MoveTime(_) | Limits::Clock { .. } => true,
        Limits::Combined(b) => b.move_time.is_some() || b.clock.is_some(),
        _ => false,
    };
    let forced_clock;
    let clock = if legal.len() <= 1 && timed && !req.ponder {
        forced_clock = TimeManager::new(
            &Limits::Combined(Bounds {
                depth: Some(FORCED_DEPTH),
                nodes: Some(FORCED_NODES),
                ..Bounds::default()
            }),
            false,
        );
        &forced_clock
    } else {
        clock
    };
    // After a ponder hit, node counts start again with the clock.
    let counted = |mut info: Info| {
        info.nodes = clock.counted(info.nodes);
        report(info);
    };
    let (outcome, nodes) = smp::run(shared, eval, &root, &root_game, threads, clock, &counted);
    SearchResult {
        best: outcome.pv.first().copied(),
        ponder: outcome.pv.get(1).copied(),
        score: outcome.score,
        depth: outcome.depth,
        nodes: clock.counted(nodes),
        elapsed: clock.elapsed(),
        pv: outcome.pv,
        lines: outcome.lines,
    }
}

/// The search behind a forced move: deep enough for a score and a reply, a few milliseconds.
const FORCED_DEPTH: u32 = 8;
/// Its node limit.
const FORCED_NODES: u64 = 20_000;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Line;
    use kroon_rules::Variant;

    fn result_with(scores: &[i32]) -> SearchResult {
        let pos = Position::initial(Variant::International);
        let moves: Vec<_> = pos.legal_moves().iter().copied().collect();
        let lines: Vec<Line> = scores
            .iter()
            .zip(&moves)
            .map(|(&score, &mv)| Line {
                score,
                pv: vec![mv],
            })
            .collect();
        SearchResult {
            best: Some(moves[0]),
            score: scores[0],
            pv: vec![moves[0]],
            lines,
            ..SearchResult::default()
        }
    }

    #[test]
    fn handicaps_pick_within_their_margin_and_the_lowest_blunders() {
        let scores = [10, 0, -60, -150, -400, -30_000 + 5];
        let picked = |h: u8| -> Vec<i32> {
            (0..2_000u64)
                .map(|seed| handicapped(result_with(&scores), h, seed).score)
                .collect()
        };
        assert!(picked(0).iter().all(|&s| s == 10));
        let one = picked(1);
        assert!(one.iter().all(|&s| s >= -30) && one.contains(&0) && one.contains(&10));
        let two = picked(2);
        assert!(two.contains(&-60) && two.iter().filter(|&&s| s < -90).count() < 200);
        let three = picked(3);
        // Now and then a piece (and more) goes; a proven loss is never chosen.
        assert!(three.contains(&-400) && three.contains(&-150));
        assert!(three.iter().all(|&s| s > -1_000));
        // Without lines (a book move, a stopped first iteration) the best move stays.
        let mut bare = result_with(&scores);
        bare.lines.clear();
        assert_eq!(handicapped(bare, 3, 7).score, 10);
    }
}
