//! One search thread: iterative deepening, principal-variation search and quiescence.

use crate::eval::pattern::{LargeIndices, WindowIndices};
use crate::eval::{Eval, Weights};
use crate::score::{from_tt, is_decisive, to_tt, INF, WIN};
use crate::smp::Shared;
use crate::tables::{self, EndgameTables, TableProbe, TableValue};
use crate::time::TimeManager;
use crate::tt::{Bound, Entry, NO_EVAL};
use crate::tuning::Tuning;
use crate::{Info, Line, MAX_PLY};
use kroon_rules::game::{self, quiet_limit};
use kroon_rules::{counted_draw, DrawCounts, DrawReason, Waived};
use kroon_rules::{has_capture, movegen, Colour, Move, MoveList, Position, Variant};
use std::sync::atomic::Ordering;
use std::sync::Arc;

/// Where a game stands at the root, for the draw rules inside the search.
#[derive(Clone, Debug)]
pub struct RootGame {
    /// Keys of the positions before the root, oldest first.
    pub keys: Vec<u64>,
    /// The draw-rule counters at the root.
    pub counts: DrawCounts,
    /// Draw rules the game no longer applies (a claim the other side did not accept, or a count
    /// that has already run out at the root: the game goes on, so the search plays it out).
    pub waived: Waived,
}

/// Draw-rule counters of one ply.
type Frame = DrawCounts;

/// The result of one thread's iterative deepening.
#[derive(Clone, Debug, Default)]
pub struct ThreadResult {
    /// The principal variation of the last trusted iteration.
    pub pv: Vec<Move>,
    /// Its score.
    pub score: i32,
    /// Its depth.
    pub depth: u32,
    /// The deepest ply it reached.
    pub seldepth: u32,
    /// Multi-PV: the lines of the deepest iteration that finished all of them.
    pub lines: Vec<Line>,
}

/// Whether helper `id` leaves out iteration `depth` (the staggered pattern of lazy SMP engines).
fn skips(id: usize, depth: u32) -> bool {
    const SIZE: [u32; 20] = [1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 3, 3, 4, 4, 4, 4, 4, 4, 4, 4];
    const PHASE: [u32; 20] = [0, 1, 0, 1, 2, 3, 0, 1, 2, 3, 4, 5, 0, 1, 2, 3, 4, 5, 6, 7];
    let i = (id - 1) % 20;
    ((depth + PHASE[i]) / SIZE[i]) % 2 == 1
}

/// How far from 0 the end of an endgame count may score (centi-men): enough to rank the material
/// a last move keeps or gives away, too little to rival any real advantage.
const COUNT_END_BAND: i32 = 16;
/// Centi-men per unit of material (a man 1, a king 3) won or lost at the end of a count.
const COUNT_END_UNIT: i32 = 4;

/// White's material less Black's, a man 1 and a king 3.
fn material(pos: &Position) -> i32 {
    let of = |c| {
        let p = pos.pieces(c);
        (p & pos.men()).count() as i32 + 3 * (p & pos.kings()).count() as i32
    };
    of(Colour::White) - of(Colour::Black)
}

/// The material (a man 1, a king 3, a crowning 2) the side to move wins in the captures the
/// rules force from `pos`, each side taking what is best for it; 0 when nothing is to be taken.
fn capture_swing(pos: &Position, depth: u32) -> i32 {
    if depth >= 16 || !has_capture(pos) {
        return 0;
    }
    let mut list = MoveList::new();
    movegen::generate(pos, &mut list);
    let kings = pos.kings();
    list.iter()
        .map(|m| {
            let taken = m.captured.count() as i32 + 2 * (m.captured & kings).count() as i32;
            taken + 2 * i32::from(m.promotes) - capture_swing(&pos.play(m), depth + 1)
        })
        .max()
        .unwrap_or(0)
}

/// Slots of a thread's evaluation cache (8 bytes each).
const EVAL_CACHE: usize = 1 << 15;
/// An empty slot: no key's upper half matches it and keeps a value 0.
const EVAL_CACHE_EMPTY: u64 = 0xFFFF_FFFF_0000_0001;

/// Signals that the search was stopped; the unfinished iteration is thrown away.
struct Stopped;

type Res = Result<i32, Stopped>;

/// One search thread's state.
pub struct Worker<'a> {
    shared: &'a Shared,
    eval: &'a Eval,
    id: usize,
    clock: Option<&'a TimeManager>,
    nodes: u64,
    seldepth: u32,
    keys: Vec<u64>,
    frames: Vec<Frame>,
    /// Draw rules this search does not apply.
    waived: Waived,
    /// White's material less Black's at the root (see `count_end_score`).
    root_material: i32,
    lists: Vec<MoveList>,
    killers: Vec<[u16; 2]>,
    /// Ordering scores of each ply's moves, parallel to `lists`.
    scores: Vec<Vec<i32>>,
    history: Box<[[i32; 4096]; 2]>,
    pv: Vec<Vec<Move>>,
    variant: Variant,
    /// Inside a probe-cut search, which does not probe again.
    probing: bool,
    /// Per ply: the move a singular-extension search leaves out (0: none).
    excluded: Vec<u16>,
    /// Endgame tables, when the variant has them.
    tables: Option<Arc<dyn EndgameTables>>,
    /// Positions with at most this many pieces are probed (0: none).
    table_pieces: u32,
    /// Evaluations of recent positions (see `cached_evaluation`).
    eval_cache: Box<[u64]>,
    /// The learned weights, when they evaluate this search's variant.
    learned: Option<&'a Weights>,
    /// With `learned`: the window states of the position at each ply, kept move by move.
    windows: Vec<WindowIndices>,
    /// With `learned` weights of a large layout: its 4x6 windows' states at each ply.
    large: Option<Vec<LargeIndices>>,
    /// Whether searches store into the table: not while multi-PV looks for lines 2 and on, so
    /// that line 1 of every iteration finds the table as the ordinary search would.
    stores: bool,
    /// The shared tuning values, copied where the nodes read them.
    tuning: Tuning,
    /// The iteration in progress is dropped once another thread has finished this depth
    /// (`u32::MAX`: never).
    superseded_at: u32,
}

impl<'a> Worker<'a> {
    /// A worker for thread `id`; only the main thread (with a clock) decides when to stop.
    pub fn new(
        shared: &'a Shared,
        eval: &'a Eval,
        id: usize,
        clock: Option<&'a TimeManager>,
    ) -> Worker<'a> {
        Worker {
            shared,
            eval,
            id,
            clock,
            nodes: 0,
            seldepth: 0,
            keys: Vec::with_capacity(1024),
            frames: vec![Frame::default(); MAX_PLY + 2],
            waived: Waived::NONE,
            root_material: 0,
            lists: (0..MAX_PLY + 2).map(|_| MoveList::new()).collect(),
            killers: vec![[0; 2]; MAX_PLY + 2],
            scores: (0..MAX_PLY + 2).map(|_| Vec::with_capacity(64)).collect(),
            history: Box::new([[0; 4096]; 2]),
            pv: vec![Vec::new(); MAX_PLY + 2],
            variant: Variant::International,
            probing: false,
            excluded: vec![0; MAX_PLY + 2],
            tables: None,
            table_pieces: 0,
            stores: true,
            eval_cache: vec![EVAL_CACHE_EMPTY; EVAL_CACHE].into_boxed_slice(),
            learned: None,
            windows: vec![WindowIndices::default(); MAX_PLY + 2],
            large: None,
            tuning: shared.tuning,
            superseded_at: u32::MAX,
        }
    }

    /// Nodes searched by this worker.
    pub fn nodes(&self) -> u64 {
        self.nodes
    }

    fn poll(&mut self) -> Result<(), Stopped> {
        if self.nodes & 1023 == 0 {
            self.shared.nodes[self.id].store(self.nodes, Ordering::Relaxed);
            if let Some(clock) = self.clock {
                if clock.must_stop(self.shared.total_nodes()) {
                    self.shared.stop.store(true, Ordering::Relaxed);
                }
            }
            // Another thread finished this iteration: this one drops it and goes on from there.
            if self.shared.deepest_depth() >= self.superseded_at {
                return Err(Stopped);
            }
        }
        if self.shared.stop.load(Ordering::Relaxed) {
            return Err(Stopped);
        }
        Ok(())
    }

    /// Iterative deepening from `root`; `report` receives each finished iteration (main thread).
    pub fn iterate(
        &mut self,
        root: &Position,
        root_game: &RootGame,
        report: Option<&dyn Fn(Info)>,
    ) -> ThreadResult {
        self.variant = root.variant();
        // The tables hold international draughts.
        self.tables = self
            .shared
            .tables
            .read()
            .clone()
            .filter(|_| self.variant == Variant::International);
        self.table_pieces = self.tables.as_ref().map_or(0, |t| t.pieces());
        self.keys.clear();
        self.keys.extend_from_slice(&root_game.keys);
        self.frames[0] = root_game.counts;
        self.waived = root_game.waived;
        self.root_material = material(root);
        self.learned = match self.eval {
            Eval::Learned(w) if w.variant() == self.variant => Some(w),
            _ => None,
        };
        self.large = None;
        if let Some(w) = self.learned {
            self.windows[0] = w.layout().window_indices(root);
            if w.layout().is_large() {
                let mut large = vec![LargeIndices::default(); MAX_PLY + 2];
                large[0] = w.layout().large_indices(root);
                self.large = Some(large);
            }
        }
        let mut root_moves = root.legal_moves();
        let mut best = ThreadResult::default();
        if root_moves.is_empty() {
            return best;
        }
        best.pv = vec![root_moves[0]];
        let max_depth = self.shared.max_depth();
        let multipv = if self.id == 0 {
            self.shared.multipv.load(Ordering::Relaxed)
        } else {
            1
        };
        // Helpers start one ply deeper on odd threads, so that the threads spread over depths.
        let mut depth = 1 + u32::from(self.tuning.smp_skip != 0) * (self.id % 2) as u32;
        while depth <= max_depth {
            // Helpers skip depths in staggered patterns, so that the threads spread over several
            // depths instead of repeating the main thread's iteration.
            if self.id > 0 && self.tuning.smp_skip != 0 && skips(self.id, depth) {
                depth += 1;
                continue;
            }
            // An iteration another thread already finished is taken over, not searched again.
            let adopted = if multipv == 1 {
                self.shared.deepest_from(depth)
            } else {
                None
            };
            let score = if let Some(done) = adopted.filter(|d| !d.pv.is_empty()) {
                if self.id > 0 {
                    // A helper goes on past it, in its own pattern.
                    depth = done.depth + 1;
                    best = done;
                    continue;
                }
                depth = done.depth;
                if let Some(at) = root_moves.iter().position(|m| *m == done.pv[0]) {
                    root_moves.as_mut_slice()[..=at].rotate_right(1);
                }
                best = done;
                if let Some(report) = report {
                    self.report_adopted(&best, report);
                }
                best.score
            } else {
                if multipv == 1 && self.tuning.smp_supersede != 0 {
                    self.superseded_at = depth;
                }
                let result = self.aspiration(root, &mut root_moves, depth, best.score);
                self.superseded_at = u32::MAX;
                let Ok(score) = result else {
                    if self.shared.stop.load(Ordering::Relaxed) {
                        break;
                    }
                    // Superseded: the next turn of the loop takes over the finished iteration.
                    continue;
                };
                best = ThreadResult {
                    pv: self.pv[0].clone(),
                    score,
                    depth,
                    seldepth: self.seldepth,
                    lines: std::mem::take(&mut best.lines),
                };
                if multipv == 1 {
                    self.shared.publish(&best);
                }
                if let Some(report) = report {
                    report(self.info(&best, &best.pv, score, 1));
                }
                score
            };
            if self.id > 0 {
                // A helper that finished the last depth asked for ends the search.
                if depth >= max_depth {
                    self.shared.stop.store(true, Ordering::Relaxed);
                }
                depth += 1;
                continue;
            }
            // Multi-PV (main thread): line 1 is the ordinary iteration above, untouched; the
            // next lines search the other root moves after it.
            if multipv > 1 {
                let mut lines = vec![Line {
                    score,
                    pv: best.pv.clone(),
                }];
                let stopped = self.other_lines(root, &root_moves, depth, multipv, &mut lines);
                if let Some(report) = report {
                    for (k, line) in lines.iter().enumerate().skip(1) {
                        report(self.info(&best, &line.pv, line.score, k + 1));
                    }
                }
                if stopped.is_err() {
                    break;
                }
                best.lines = lines;
            }
            if let Some(clock) = self.clock {
                if !clock.next_iteration(depth, self.shared.total_nodes().max(self.nodes)) {
                    break;
                }
                // A forced win or loss found: deeper iterations cannot change it.
                if is_decisive(score)
                    && depth > 2 * (WIN - score.abs()) as u32 + 4
                    && !clock.pondering()
                {
                    break;
                }
            }
            depth += 1;
        }
        self.shared.nodes[self.id].store(self.nodes, Ordering::Relaxed);
        best
    }

    fn aspiration(&mut self, root: &Position, moves: &mut MoveList, depth: u32, prev: i32) -> Res {
        if (depth as i32) < self.tuning.aspiration_min_depth || is_decisive(prev) {
            return self.root_search(root, moves, depth, -INF, INF);
        }
        let mut delta = self.tuning.aspiration_delta;
        let (mut alpha, mut beta) = (prev - delta, prev + delta);
        loop {
            let score = self.root_search(root, moves, depth, alpha, beta)?;
            if score <= alpha {
                alpha = (score - delta).max(-INF);
            } else if score >= beta {
                beta = (score + delta).min(INF);
            } else {
                return Ok(score);
            }
            delta *= 3;
            if delta > 1000 {
                alpha = -INF;
                beta = INF;
            }
        }
    }

    fn root_search(
        &mut self,
        root: &Position,
        moves: &mut MoveList,
        depth: u32,
        mut alpha: i32,
        beta: i32,
    ) -> Res {
        self.seldepth = 0;
        self.keys.push(root.key());
        let mut best = -INF;
        let mut best_index = 0;
        let mut result = Ok(());
        for i in 0..moves.len() {
            let mv = moves[i];
            let child = root.play(&mv);
            self.enter(root, &mv, &child, 0);
            let score = self.search_child(&child, i == 0, depth as i32 - 1, 0, alpha, beta, 0);
            self.keys.pop();
            let score = match score {
                Ok(s) => s,
                Err(e) => {
                    result = Err(e);
                    break;
                }
            };
            if score > best {
                best = score;
                best_index = i;
                self.set_pv(0, mv);
                if score > alpha {
                    alpha = score;
                }
                if score >= beta {
                    break;
                }
            }
        }
        self.keys.pop();
        // The best move is searched first next time.
        moves.as_mut_slice()[..=best_index].rotate_right(1);
        result?;
        Ok(best)
    }

    /// Lines 2 to `count` of a multi-PV iteration at `depth`, after line 1 (in `lines`, its move
    /// first in `moves`): each the best of the root moves not yet in a line, found by an
    /// ordinary root search over those moves. These searches leave no trace: they store nothing
    /// in the table, and the history, the killers and the root move order are put back after
    /// them, so that line 1 of the next iteration is exactly the ordinary search's (one thread).
    /// A line can come back higher than the one before only through search instability; it is
    /// then capped at that score, so that scores never rise from line to line.
    fn other_lines(
        &mut self,
        root: &Position,
        moves: &MoveList,
        depth: u32,
        count: usize,
        lines: &mut Vec<Line>,
    ) -> Result<(), Stopped> {
        let history = self.history.clone();
        let killers = self.killers.clone();
        self.stores = false;
        let mut result = Ok(());
        while lines.len() < count.min(moves.len()) {
            let mut rest = MoveList::new();
            for mv in moves.iter() {
                if !lines.iter().any(|l| l.pv.first() == Some(mv)) {
                    rest.push(*mv);
                }
            }
            let score = match self.root_search(root, &mut rest, depth, -INF, INF) {
                Ok(s) => s,
                Err(e) => {
                    result = Err(e);
                    break;
                }
            };
            let cap = lines.last().map_or(INF, |l| l.score);
            lines.push(Line {
                score: score.min(cap),
                pv: self.pv[0].clone(),
            });
        }
        self.stores = true;
        self.history = history;
        self.killers = killers;
        result
    }

    /// Reports `result`, an iteration another thread finished, as the search's own.
    pub fn report_adopted(&self, result: &ThreadResult, report: &dyn Fn(Info)) {
        report(self.info(result, &result.pv, result.score, 1));
    }

    /// What is reported of line `multipv` (`pv`, `score`) of the iteration `result`.
    fn info(&self, result: &ThreadResult, pv: &[Move], score: i32, multipv: usize) -> Info {
        Info {
            depth: result.depth,
            seldepth: result.seldepth,
            score,
            nodes: self.shared.total_nodes().max(self.nodes),
            elapsed: self.clock.map(TimeManager::elapsed).unwrap_or_default(),
            pv: pv.to_vec(),
            multipv,
        }
    }

    /// The principal variation at `ply` becomes `mv` followed by the one found below it.
    #[inline]
    fn set_pv(&mut self, ply: usize, mv: Move) {
        let tail = std::mem::take(&mut self.pv[ply + 1]);
        let line = &mut self.pv[ply];
        line.clear();
        line.push(mv);
        line.extend_from_slice(&tail);
        self.pv[ply + 1] = tail;
    }

    /// Updates the draw-rule counters and the key stack for the move into `child` from ply `ply`.
    #[inline]
    fn enter(&mut self, pos: &Position, mv: &Move, child: &Position, ply: usize) {
        self.frames[ply + 1] = self.frames[ply].after(pos, mv, child);
        self.keys.push(child.key());
        if let Some(w) = self.learned {
            self.windows[ply + 1] = w.layout().indices_after(&self.windows[ply], pos, mv);
            if let Some(large) = &mut self.large {
                large[ply + 1] = w.layout().large_after(&large[ply], pos, mv);
            }
        }
    }

    /// Whether the position at `ply` is drawn by repetition or a counting rule, and by which.
    #[inline]
    fn draw_at(&self, pos: &Position, ply: usize) -> Option<DrawReason> {
        let f = &self.frames[ply];
        if let Some(reason) = counted_draw(f, self.variant, self.waived) {
            return Some(reason);
        }
        if self.waived.repetition {
            return None;
        }
        // A repetition is possible only across king moves without capture.
        let n = self.keys.len();
        let key = pos.key();
        let mut back = 4;
        while back <= f.king_plies as usize && back < n {
            if self.keys[n - 1 - back] == key {
                return Some(DrawReason::Repetition);
            }
            back += 2;
        }
        None
    }

    /// The score of a table's verdict at `ply`, with the counting rules on top: a win whose
    /// conversion is further off than the plies a counting rule has left is the draw it is (a
    /// bound: crowning a man does not restart the FMJD counts, and a man move restarts the king
    /// count inside the distance, so only the counts that surely run on are applied).
    fn table_score(&self, pos: &Position, probe: TableProbe, ply: usize) -> i32 {
        let f = self.frames[ply];
        let mut left = u32::MAX;
        if pos.men().is_empty() && !self.waived.king_moves {
            left = quiet_limit(self.variant).saturating_sub(f.king_plies);
        }
        if !self.waived.endgame {
            left = left.min(f.endgame_plies_left());
        }
        let too_far = probe.distance.is_some_and(|d| u32::from(d) > left);
        // A win the count will not leave time for is a draw by Kroon's count, but only just: an
        // opponent that counts otherwise plays on, so the defender still prefers a real draw.
        match probe.value {
            TableValue::Draw => self.drawn_material_score(pos),
            TableValue::Win if too_far => COUNT_END_BAND,
            TableValue::Loss if too_far => -COUNT_END_BAND,
            TableValue::Win => tables::win_score(pos, probe.distance, ply),
            TableValue::Loss => -tables::win_score(pos, probe.distance, ply),
        }
    }

    /// The score where a count (an endgame rule's, or the king moves') runs out: a draw, but one
    /// that still knows the material.
    /// The other side may count differently and play on (docs/draw-rules.md); a line that gives
    /// a piece away before the count ends, or hangs one on its last ply, must then look worse
    /// than one that keeps it. The material won or lost since the root, with the captures
    /// pending here played out (the evaluation would not do: it rightly rates most of these
    /// endings as draws whatever the material), is squeezed into a few centi-men, so that all
    /// these lines stay draws for everything else the search compares.
    ///
    /// Where the tables know the position, their verdict is that score instead: a table loss
    /// behind the end of the count is what the other side wins by playing on, whatever the
    /// material says (three kings against a king off the long diagonal lose no piece).
    fn count_end_score(&self, pos: &Position) -> i32 {
        if pos.all().count() <= self.table_pieces {
            if let Some(probe) = self.tables.as_ref().and_then(|t| t.probe(pos)) {
                return match probe.value {
                    TableValue::Win => COUNT_END_BAND,
                    TableValue::Draw => self.drawn_material_score(pos),
                    TableValue::Loss => -COUNT_END_BAND,
                };
            }
        }
        (self.material_gained(pos) * COUNT_END_UNIT).clamp(-COUNT_END_BAND, COUNT_END_BAND)
    }

    /// The material the side to move has gained since the root, with the captures pending at
    /// `pos` played out.
    fn material_gained(&self, pos: &Position) -> i32 {
        let side = if pos.turn() == Colour::White { 1 } else { -1 };
        side * (material(pos) - self.root_material) + capture_swing(pos, 0)
    }

    /// The score of a position the tables call drawn: a draw, less by a few centi-men for each
    /// piece given away since the root (more for each one won), inside the band that table wins
    /// and losses beyond a count take. A drawn ending stays drawn with a man less, but only
    /// against perfect play: an opponent that plays on gets chances it did not have.
    fn drawn_material_score(&self, pos: &Position) -> i32 {
        let band = COUNT_END_BAND - COUNT_END_UNIT;
        (self.material_gained(pos) * COUNT_END_UNIT).clamp(-band, band)
    }

    /// The static evaluation at `ply`. In an ending under a counting rule (a lone king against a
    /// few pieces) it also counts, by a few centi-men, the material won or lost since the root:
    /// most such endings are draws whatever the material, and the evaluation rightly says so, but
    /// an opponent that reads the count otherwise plays on, and then every piece given away for
    /// nothing is a risk (docs/draw-rules.md).
    #[inline]
    fn evaluate(&mut self, pos: &Position, ply: usize) -> i32 {
        let e = self.cached_evaluation(pos, ply);
        if self.frames[ply].rule.is_none() {
            return e;
        }
        let side = if pos.turn() == Colour::White { 1 } else { -1 };
        e + side * (material(pos) - self.root_material) * COUNT_END_UNIT
    }

    /// The evaluation of `pos`, from the thread's evaluation cache when it holds the position. An
    /// entry keeps the key's upper 32 bits beside the value; the lower bits choose the slot.
    #[inline]
    fn cached_evaluation(&mut self, pos: &Position, ply: usize) -> i32 {
        let key = pos.key();
        let slot = &mut self.eval_cache[key as usize & (EVAL_CACHE - 1)];
        if *slot >> 32 == key >> 32 {
            return *slot as u32 as i32;
        }
        let e = match self.learned {
            Some(w) => {
                let indices = &self.windows[ply];
                debug_assert_eq!(*indices, w.layout().window_indices(pos));
                match &self.large {
                    None => w.evaluate_indexed(pos, indices),
                    Some(large) => {
                        debug_assert_eq!(large[ply], w.layout().large_indices(pos));
                        w.evaluate_indexed_large(pos, indices, &large[ply])
                    }
                }
            }
            None => self.eval.evaluate(pos),
        };
        *slot = (key & !0xFFFF_FFFF) | u64::from(e as u32);
        e
    }

    /// Score of a position whose side to move has no legal move (lost, or won in losing draughts:
    /// [`game::winner`]).
    #[inline]
    fn no_moves_score(pos: &Position, ply: usize) -> i32 {
        let winner = game::winner(pos, || false).unwrap_or(!pos.turn());
        Self::decided_score(pos, winner, ply)
    }

    /// Score of a position the rules have ended, won by `winner`, for the side to move.
    #[inline]
    fn decided_score(pos: &Position, winner: Colour, ply: usize) -> i32 {
        if winner == pos.turn() {
            WIN - ply as i32
        } else {
            -WIN + ply as i32
        }
    }

    fn search(&mut self, pos: &Position, depth: i32, mut alpha: i32, beta: i32, ply: usize) -> Res {
        self.nodes += 1;
        self.seldepth = self.seldepth.max(ply as u32);
        self.poll()?;
        self.pv[ply].clear();
        // A king ends a breakthrough game; the moves are looked at further on.
        if let Some(winner) = game::winner(pos, || true) {
            return Ok(Self::decided_score(pos, winner, ply));
        }
        match self.draw_at(pos, ply) {
            None => {}
            Some(DrawReason::Repetition) => return Ok(0),
            Some(_) => return Ok(self.count_end_score(pos)),
        }
        if ply >= MAX_PLY {
            return Ok(self.eval.evaluate(pos));
        }
        // Mate-distance pruning.
        let alpha0 = alpha.max(-WIN + ply as i32);
        let beta0 = beta.min(WIN - ply as i32 - 1);
        if alpha0 >= beta0 {
            return Ok(alpha0);
        }
        let pv_node = beta - alpha > 1;
        // The table first: a cut-off there needs no move generated. An entry is stored only at the
        // end of this function, so a position that the code below ends earlier (no move, or a
        // verdict of the endgame tables) has none. Where the tables may answer, they still come
        // first, since they may have been loaded after the entry was stored.
        let key = pos.key();
        let entry = if depth > 0 {
            self.shared.tt.probe(key)
        } else {
            None
        };
        let excluded = self.excluded[ply];
        let cut = entry
            .filter(|_| excluded == 0)
            .and_then(|e| Self::tt_cut(e, pv_node, depth, alpha, beta, ply));
        let tables_first = ply > 0 && pos.all().count() <= self.table_pieces;
        if let Some(s) = cut.filter(|_| !tables_first) {
            return Ok(s);
        }
        // Staged generation: the captures now; the quiet moves only once no cut-off came first.
        let mut list = std::mem::take(&mut self.lists[ply]);
        movegen::generate_captures(pos, &mut list);
        let forced = !list.is_empty();
        if !forced && !movegen::has_quiet_move(pos) {
            self.lists[ply] = list;
            return Ok(Self::no_moves_score(pos, ply));
        }
        // A capture pending is no reason to skip the tables: they resolve it themselves.
        if tables_first {
            if let Some(probe) = self.tables.as_ref().and_then(|t| t.probe(pos)) {
                self.lists[ply] = list;
                return Ok(self.table_score(pos, probe, ply));
            }
        }
        if depth <= 0 {
            let r = self.quiescence_moves(pos, &mut list, alpha, beta, ply);
            self.lists[ply] = list;
            return r;
        }
        if let Some(s) = cut {
            self.lists[ply] = list;
            return Ok(s);
        }
        let tt_move = entry.map_or(0, |e| e.mv);
        let static_eval = entry.and_then(|e| (e.eval != NO_EVAL).then_some(e.eval));
        // Reverse futility: far above beta at low depth with nothing forced, trust the evaluation.
        // It is the one use of the static evaluation here, which is computed only for it.
        let t = self.tuning;
        let futile = !pv_node && !forced && depth <= t.futility_depth && !is_decisive(beta);
        let eval = static_eval.or_else(|| futile.then(|| self.evaluate(pos, ply)));
        if let Some(eval) = eval.filter(|e| futile && e - t.futility_margin * depth >= beta) {
            self.lists[ply] = list;
            return Ok(eval);
        }
        // Probe cut: if a much shallower search of this position clears beta by a margin, the full
        // one would too. No probe runs inside another, so the cuts never stack.
        if !pv_node
            && !self.probing
            && excluded == 0
            && depth >= t.probe_cut_min_depth
            && !is_decisive(beta)
        {
            let margin = t.probe_cut_margin * depth;
            let probe_beta = beta + margin;
            self.probing = true;
            let r = self.search(
                pos,
                depth * t.probe_cut_depth_percent / 100,
                probe_beta - 1,
                probe_beta,
                ply,
            );
            self.probing = false;
            match r {
                Ok(s) if s < probe_beta => {}
                r => {
                    self.lists[ply] = list;
                    return r.map(|s| s - margin);
                }
            }
        }
        if !forced {
            movegen::generate_quiets(pos, &mut list);
        }
        // The table's move goes first; the others are scored now, or (`tt_move_first`) only once
        // it has failed to cut.
        let mut scored = true;
        let tt_at = (t.tt_move_first != 0 && tt_move != 0 && list.len() > 1)
            .then(|| list.iter().position(|m| m.key() == tt_move))
            .flatten();
        match tt_at {
            Some(at) => {
                list.as_mut_slice().swap(0, at);
                scored = false;
            }
            None => self.order(pos, &mut list, tt_move, ply),
        }
        // A single legal move costs nothing to look at more deeply.
        let ext = i32::from(list.len() == 1 && ply < 2 * depth as usize + 8);
        // Singular extension: the table's move, when no other comes near its score.
        let mut singular = 0;
        if let Some(e) = entry.filter(|e| {
            t.singular_min_depth > 0
                && depth >= t.singular_min_depth
                && ply > 0
                && excluded == 0
                && ext == 0
                && e.mv != 0
                && e.bound != Bound::Upper
                && i32::from(e.depth) >= depth - 3
                && !is_decisive(from_tt(e.score, ply as i32))
        }) {
            let s_beta = from_tt(e.score, ply as i32) - t.singular_margin * depth;
            self.excluded[ply] = e.mv;
            let r = self.search(pos, (depth - 1) / 2, s_beta - 1, s_beta, ply);
            self.excluded[ply] = 0;
            match r {
                Ok(s) if s < s_beta => singular = 1,
                Ok(_) => {}
                Err(e) => {
                    self.lists[ply] = list;
                    return Err(e);
                }
            }
        }
        let mut best = -INF;
        let mut best_move = 0u16;
        let mut result = Ok(());
        let turn = pos.turn().index();
        // With other threads searching, a move one of them is in the middle of waits until the
        // rest are done, so that the threads split the node's moves instead of repeating them.
        let defer = depth >= t.smp_defer_depth
            && t.smp_defer_depth > 0
            && self.shared.active.load(Ordering::Relaxed) > 1;
        let mut deferred = [0u8; 32];
        let mut put_off = 0;
        let len = list.len();
        let mut step = 0;
        // Moves `list[..picked]` are in their final order (the next one may be picked early).
        let mut picked = 1;
        while step < len + put_off {
            let i = if step < len {
                if step >= picked {
                    if !scored {
                        self.order(pos, &mut list, tt_move, ply);
                        scored = true;
                    }
                    self.pick(ply, &mut list, step);
                    picked = step + 1;
                }
                step
            } else {
                usize::from(deferred[step - len])
            };
            step += 1;
            let mv = list[i];
            if excluded != 0 && mv.key() == excluded {
                continue;
            }
            let quiet = !mv.is_capture() && !mv.promotes;
            let d = depth - 1 + ext + if mv.key() == tt_move { singular } else { 0 };
            let mut reduction = 0;
            let place = i as i32;
            if depth >= t.reduction_min_depth
                && place >= t.reduction_first_move
                && quiet
                && !pv_node
                && self.killers[ply][0] != mv.key()
            {
                reduction = 1
                    + i32::from(place >= t.reduction_second_move && depth >= 4)
                    + i32::from(place >= t.reduction_third_move && depth >= 6);
            }
            // The child probes the table unless it is a quiescence node: its bucket is asked
            // for before the move is made, so that the load overlaps making it.
            let key = pos.key_after(&mv);
            if defer
                && i > 0
                && i < 256
                && step <= len
                && put_off < deferred.len()
                && self.shared.is_busy(key)
            {
                deferred[put_off] = i as u8;
                put_off += 1;
                continue;
            }
            if d - reduction > 0 {
                self.shared.tt.prefetch(key);
            }
            // The next move's bucket too: it then has this child's whole search to arrive.
            if step < len && depth > 1 && scored {
                self.pick(ply, &mut list, step);
                picked = step + 1;
                self.shared.tt.prefetch(pos.key_after(&list[step]));
            }
            let child = pos.play_keyed(&mv, key);
            self.enter(pos, &mv, &child, ply);
            if defer {
                self.shared.set_busy(key, true);
            }
            let score = self.search_child(&child, i == 0, d, reduction, alpha, beta, ply);
            if defer {
                self.shared.set_busy(key, false);
            }
            self.keys.pop();
            let score = match score {
                Ok(s) => s,
                Err(e) => {
                    result = Err(e);
                    break;
                }
            };
            if score > best {
                best = score;
                best_move = mv.key();
                if score > alpha {
                    alpha = score;
                    if pv_node {
                        self.set_pv(ply, mv);
                    }
                }
                if score >= beta {
                    if quiet {
                        let k = &mut self.killers[ply];
                        if k[0] != mv.key() {
                            k[1] = k[0];
                            k[0] = mv.key();
                        }
                        // Capped: past 4096 the update overshoots and the values diverge.
                        let bonus = (depth * depth).min(1024);
                        let h = &mut self.history[turn][usize::from(mv.key())];
                        *h += bonus - *h * bonus / 4096;
                        for m in &list.as_slice()[..i] {
                            if !m.is_capture() {
                                let h = &mut self.history[turn][usize::from(m.key())];
                                *h -= bonus + *h * bonus / 4096;
                            }
                        }
                    }
                    break;
                }
            }
        }
        self.lists[ply] = list;
        result?;
        let bound = if best >= beta {
            Bound::Lower
        } else if best > alpha0 {
            Bound::Exact
        } else {
            Bound::Upper
        };
        if self.stores && excluded == 0 {
            self.store(
                key,
                best_move,
                best,
                eval.unwrap_or(NO_EVAL),
                depth,
                bound,
                ply,
            );
        }
        Ok(best)
    }

    /// The score of `child`, a move at `ply`, by principal variation search: the `first` move
    /// with the full window to depth `d`; a later one with a null window, first `reduction`
    /// plies shallower, again to `d` if it beats alpha, and with the full window if it then lands
    /// inside it.
    #[inline(always)]
    #[allow(clippy::too_many_arguments)]
    fn search_child(
        &mut self,
        child: &Position,
        first: bool,
        d: i32,
        reduction: i32,
        alpha: i32,
        beta: i32,
        ply: usize,
    ) -> Res {
        let ply = ply + 1;
        if first {
            return self.search(child, d, -beta, -alpha, ply).map(|s| -s);
        }
        let mut s = self
            .search(child, d - reduction, -alpha - 1, -alpha, ply)
            .map(|s| -s);
        if matches!(s, Ok(v) if v > alpha && reduction > 0) {
            s = self.search(child, d, -alpha - 1, -alpha, ply).map(|s| -s);
        }
        if matches!(s, Ok(v) if v > alpha && v < beta) {
            s = self.search(child, d, -beta, -alpha, ply).map(|s| -s);
        }
        s
    }

    /// The score of a table entry that ends the node by itself: deep enough, outside a PV node,
    /// and a bound on the right side of the window.
    #[inline]
    fn tt_cut(
        e: Entry,
        pv_node: bool,
        depth: i32,
        alpha: i32,
        beta: i32,
        ply: usize,
    ) -> Option<i32> {
        if pv_node || i32::from(e.depth) < depth {
            return None;
        }
        let s = from_tt(e.score, ply as i32);
        let cut = match e.bound {
            Bound::Exact => true,
            Bound::Lower => s >= beta,
            Bound::Upper => s <= alpha,
        };
        cut.then_some(s)
    }

    #[allow(clippy::too_many_arguments)]
    #[inline]
    fn store(
        &self,
        key: u64,
        best_move: u16,
        best: i32,
        eval: i32,
        depth: i32,
        bound: Bound,
        ply: usize,
    ) {
        self.shared.tt.store(
            key,
            Entry {
                mv: best_move,
                score: to_tt(best, ply as i32),
                eval,
                depth: depth.clamp(0, 255) as u8,
                bound,
                age: 0,
            },
        );
    }

    /// Captures are forced, so a position with one is never scored as quiet: search them all. A
    /// quiet position stands pat or, if that does not cut, tries the moves that crown a man.
    /// `list` holds the captures of `pos` (staged generation); when it is empty, `pos` is quiet
    /// but has a move, and the crowning moves are generated here only if standing pat does not cut.
    fn quiescence_moves(
        &mut self,
        pos: &Position,
        list: &mut MoveList,
        mut alpha: i32,
        beta: i32,
        ply: usize,
    ) -> Res {
        self.seldepth = self.seldepth.max(ply as u32);
        let mut best = -INF;
        if list.is_empty() {
            // Standing pat, unless a man can crown: that gain is too large to leave to the horizon.
            best = self.evaluate(pos, ply);
            if best >= beta {
                return Ok(best);
            }
            alpha = alpha.max(best);
            movegen::generate_promotions(pos, list);
        }
        for mv in list.iter() {
            let child = pos.play(mv);
            self.enter(pos, mv, &child, ply);
            let r = self.quiescence(&child, -beta, -alpha, ply + 1);
            self.keys.pop();
            let score = -r?;
            if score > best {
                best = score;
                if score > alpha {
                    alpha = score;
                }
                if score >= beta {
                    break;
                }
            }
        }
        Ok(best)
    }

    /// A node of the quiescence search: counted, its captures generated, then searched by
    /// [`Self::quiescence_moves`] (or scored as lost when it has no move at all).
    fn quiescence(&mut self, pos: &Position, alpha: i32, beta: i32, ply: usize) -> Res {
        self.nodes += 1;
        self.poll()?;
        self.pv[ply].clear();
        // A king ends a breakthrough game; the moves are looked at further on.
        if let Some(winner) = game::winner(pos, || true) {
            return Ok(Self::decided_score(pos, winner, ply));
        }
        if ply >= MAX_PLY {
            return Ok(self.eval.evaluate(pos));
        }
        let mut list = std::mem::take(&mut self.lists[ply]);
        movegen::generate_captures(pos, &mut list);
        let r = if list.is_empty() && !movegen::has_quiet_move(pos) {
            Ok(Self::no_moves_score(pos, ply))
        } else {
            self.quiescence_moves(pos, &mut list, alpha, beta, ply)
        };
        self.lists[ply] = list;
        r
    }

    /// Scores the moves for ordering: TT move first, then the largest captures, promotions, killers,
    /// and history. `pick` then brings them forward one at a time, so a cut-off saves the sorting.
    /// The best-scored move is brought to the front here, in the same pass.
    fn order(&mut self, pos: &Position, list: &mut MoveList, tt_move: u16, ply: usize) {
        let turn = pos.turn().index();
        let [k0, k1] = self.killers[ply];
        let history = &self.history[turn];
        let scores = &mut self.scores[ply];
        scores.clear();
        scores.extend(list.iter().map(|m| {
            let k = m.key();
            if k == tt_move && tt_move != 0 {
                1 << 30
            } else if m.is_capture() {
                (1 << 29) + m.captured.count() as i32 * 1000
            } else if m.promotes {
                1 << 28
            } else if k == k0 {
                1 << 27
            } else if k == k1 {
                (1 << 27) - 1
            } else {
                history[usize::from(k)]
            }
        }));
        Self::bring_best(scores, list.as_mut_slice(), 0);
    }

    /// Moves the best-scored of the moves from `i` on to place `i` (the first of equals).
    #[inline]
    fn pick(&mut self, ply: usize, list: &mut MoveList, i: usize) {
        if i > 0 {
            Self::bring_best(&mut self.scores[ply], list.as_mut_slice(), i);
        }
    }

    #[inline]
    fn bring_best(scores: &mut [i32], moves: &mut [Move], i: usize) {
        let Some(&first) = scores.get(i) else { return };
        let (mut best, mut top) = (i, first);
        for (j, &s) in scores.iter().enumerate().skip(i + 1) {
            if s > top {
                (best, top) = (j, s);
            }
        }
        if best != i {
            scores.swap(i, best);
            moves.swap(i, best);
        }
    }
}
