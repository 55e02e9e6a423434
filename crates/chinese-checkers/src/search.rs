//! The search: iterative-deepening alpha-beta with a transposition table, for any number of
//! players, as best-reply search (BRS, Schadd and Winands 2011) or as paranoid search.
//!
//! With two players BRS is plain minimax with alpha-beta. With three to six, the searching
//! player's moves alternate with one "best reply" layer: the moves of all opponents together,
//! of which the minimising side picks the one that hurts most, while the other opponents pass.
//! It was chosen over max-n and paranoid search because it keeps alpha-beta's pruning (max-n
//! cannot prune deeply) and, unlike paranoid, reaches the searching player's own next move
//! within two plies however many opponents there are; Schadd and Winands measured it stronger
//! than both in Chinese checkers among other games. The positions it searches (one opponent
//! moves, the others pass) are not all reachable, which the evaluation does not mind: it scores
//! distances, not turns.
//!
//! The search keeps the round: where a round ends within its horizon (after the searching
//! player's layer when it sits last in turn order, else after the opponents'), the round
//! advances and the anti-blocking rule applies, so a forfeit in reach scores as a loss for the
//! searching player, or as a win when it takes out the last opponent. The round is part of the
//! table key, since the evaluation depends on it.
//!
//! Paranoid search (Sturtevant and Korf 2000) is the other reduction to two sides: every
//! opponent moves in its turn, each as if all of them played together against the searching
//! player, whose own next move lies as many plies away as there are players. Its positions are
//! the game's own, with the round ending and the anti-blocking rule applied as in play.
//!
//! The search runs on one thread. The draughts search's lazy SMP shares nothing with this one
//! but the idea; its table and worker types are built around draughts moves.

use std::time::{Duration, Instant};

use crate::board::Camp;
use crate::eval::{evaluate, WIN};
use crate::movegen::Move;
use crate::position::Position;

/// How the opponents of the searching player are searched.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Algorithm {
    /// Best-reply search: one layer holds every opponent's moves, the others pass.
    BestReply,
    /// Paranoid search: each opponent moves in turn, all of them minimising.
    Paranoid,
}

/// What to stop on.
#[derive(Copy, Clone, Debug, PartialEq)]
pub enum Limit {
    /// Complete this many plies.
    Depth(u32),
    /// About this many nodes: no iteration starts after the budget is spent, and a running one
    /// is cut at twice the budget.
    Nodes(u64),
    /// About this long: no iteration starts after half of it, and a running one is cut at it.
    Time(Duration),
}

/// The answer of one search.
#[derive(Clone, Debug)]
pub struct SearchResult {
    /// Best move found, if the player has one.
    pub best: Option<Move>,
    /// Score from the searching player's side, in hundredths of a row.
    pub score: i32,
    /// Deepest completed iteration.
    pub depth: u32,
    /// Nodes visited.
    pub nodes: u64,
}

/// One line of the iteration report.
#[derive(Clone, Debug)]
pub struct Iteration {
    /// Plies.
    pub depth: u32,
    /// Score from the searching player's side.
    pub score: i32,
    /// Nodes so far.
    pub nodes: u64,
    /// Time so far.
    pub elapsed: Duration,
    /// Best move of the iteration.
    pub best: Move,
}

#[derive(Copy, Clone, Default)]
struct Entry {
    key: u64,
    score: i32,
    depth: u8,
    bound: u8,
    mv: Option<(Camp, Move)>,
}

const EXACT: u8 = 0;
const LOWER: u8 = 1;
const UPPER: u8 = 2;
const MAX_DEPTH: u32 = 64;

/// A searcher with its transposition table, kept across the moves of a game.
pub struct Searcher {
    table: Vec<Entry>,
    nodes: u64,
    start: Instant,
    hard_nodes: u64,
    hard_time: Option<Duration>,
    stopped: bool,
    /// Whether a round ends after the searching player's moves (it sits last in turn order)
    /// rather than after the opponents'.
    round_after_max: bool,
    algorithm: Algorithm,
}

fn side_key(root: Camp, maximising: bool) -> u64 {
    const KEYS: [u64; 12] = [
        0x243f_6a88_85a3_08d3,
        0x1319_8a2e_0370_7344,
        0xa409_3822_299f_31d0,
        0x082e_fa98_ec4e_6c89,
        0x4528_21e6_38d0_1377,
        0xbe54_66cf_34e9_0c6c,
        0xc0ac_29b7_c97c_50dd,
        0x3f84_d5b5_b547_0917,
        0x9216_d5d9_8979_fb1b,
        0xd131_0ba6_98df_b5ac,
        0x2ffd_72db_d01a_dfb7,
        0xb8e1_afed_6a26_7e96,
    ];
    KEYS[root.index() * 2 + usize::from(maximising)]
}

/// The round enters the table key: the evaluation and the anti-blocking rule depend on it.
fn round_key(round: u16) -> u64 {
    kroon_rules::hash::mix64(0x726f_756e_6400_0000 ^ u64::from(round))
}

fn gain(c: Camp, mv: Move) -> i8 {
    c.forward(mv.to) - c.forward(mv.from)
}

impl Searcher {
    /// A best-reply searcher with a table of about `mib` MiB.
    pub fn new(mib: usize) -> Searcher {
        Searcher::with_algorithm(mib, Algorithm::BestReply)
    }

    /// A searcher of either algorithm with a table of about `mib` MiB.
    pub fn with_algorithm(mib: usize, algorithm: Algorithm) -> Searcher {
        let entries = (mib.max(1) << 20) / std::mem::size_of::<Entry>();
        let size = entries.next_power_of_two() / 2;
        Searcher {
            table: vec![Entry::default(); size.max(1024)],
            nodes: 0,
            start: Instant::now(),
            hard_nodes: u64::MAX,
            hard_time: None,
            stopped: false,
            round_after_max: false,
            algorithm,
        }
    }

    /// Searches for the player to move. `report` hears each completed iteration.
    pub fn search(
        &mut self,
        pos: &Position,
        limit: Limit,
        report: &mut dyn FnMut(&Iteration),
    ) -> SearchResult {
        let root = pos.to_move();
        self.round_after_max = pos.active().last() == Some(root);
        self.nodes = 0;
        self.start = Instant::now();
        self.stopped = false;
        let (max_depth, soft_nodes, soft_time) = match limit {
            Limit::Depth(d) => (d.clamp(1, MAX_DEPTH), u64::MAX, None),
            Limit::Nodes(n) => (MAX_DEPTH, n, None),
            Limit::Time(t) => (MAX_DEPTH, u64::MAX, Some(t / 2)),
        };
        self.hard_nodes = match limit {
            Limit::Nodes(n) => n.saturating_mul(2),
            _ => u64::MAX,
        };
        self.hard_time = match limit {
            Limit::Time(t) => Some(t),
            _ => None,
        };
        let mut moves = Vec::new();
        pos.moves_of(root, &mut moves);
        let mut result = SearchResult {
            best: moves.first().copied(),
            score: evaluate(pos, root),
            depth: 0,
            nodes: 0,
        };
        if moves.is_empty() || pos.is_over() {
            return result;
        }
        moves.sort_by_key(|&m| -gain(root, m));
        for depth in 1..=max_depth {
            let mut alpha = -WIN - 1;
            let mut best = moves[0];
            let mut complete = true;
            for (i, &mv) in moves.iter().enumerate() {
                let Some(score) = self.after(
                    pos,
                    root,
                    Some(mv),
                    root,
                    depth as i32 - 1,
                    alpha,
                    WIN + 1,
                    1,
                    true,
                ) else {
                    complete = false;
                    break;
                };
                if score > alpha || i == 0 {
                    alpha = score;
                    best = mv;
                }
            }
            if !complete {
                break;
            }
            if let Some(i) = moves.iter().position(|&m| m == best) {
                moves[..=i].rotate_right(1);
            }
            result = SearchResult {
                best: Some(best),
                score: alpha,
                depth,
                nodes: self.nodes,
            };
            report(&Iteration {
                depth,
                score: alpha,
                nodes: self.nodes,
                elapsed: self.start.elapsed(),
                best,
            });
            if alpha.abs() > WIN - 1000
                || self.nodes >= soft_nodes
                || soft_time.is_some_and(|t| self.start.elapsed() >= t)
            {
                break;
            }
        }
        result.nodes = self.nodes;
        result
    }

    fn out_of_budget(&mut self) -> bool {
        if self.stopped {
            return true;
        }
        if self.nodes >= self.hard_nodes
            || (self.nodes & 1023 == 0 && self.hard_time.is_some_and(|t| self.start.elapsed() >= t))
        {
            self.stopped = true;
        }
        self.stopped
    }

    /// The search below `pos` after `c` plays `mv` (`None`: the side to move has no move and
    /// passes) at a node of the `maximising` side. Best-reply moves the piece and leaves the turn to the layers; paranoid plays the
    /// move as the game does, and a searching player forfeited by the anti-blocking rule at the
    /// round's end has lost.
    #[allow(clippy::too_many_arguments)]
    fn after(
        &mut self,
        pos: &Position,
        c: Camp,
        mv: Option<Move>,
        root: Camp,
        depth: i32,
        alpha: i32,
        beta: i32,
        ply: i32,
        maximising: bool,
    ) -> Option<i32> {
        match self.algorithm {
            Algorithm::BestReply => {
                let next = mv.map_or(*pos, |mv| pos.moved(c, mv));
                self.child(next, root, depth, alpha, beta, ply, maximising)
            }
            Algorithm::Paranoid => {
                let next = mv.map_or_else(|| pos.pass(), |mv| pos.play(mv));
                if next.is_out(root) {
                    self.nodes += 1;
                    return Some(-WIN + ply);
                }
                self.node(&next, root, depth, alpha, beta, ply, next.to_move() == root)
            }
        }
    }

    /// The position after a layer of moves (`moved`: the searching player's layer, or the
    /// opponents'), searched on. Where a round ends there, the round advances and the
    /// anti-blocking rule applies: the searching player falling short loses; an opponent falling
    /// short is out, and with no opponent left the searching player has won.
    #[allow(clippy::too_many_arguments)]
    fn child(
        &mut self,
        mut pos: Position,
        root: Camp,
        depth: i32,
        alpha: i32,
        beta: i32,
        ply: i32,
        moved: bool,
    ) -> Option<i32> {
        if moved == self.round_after_max {
            let opponents = pos.active().any(|c| c != root);
            pos.end_round();
            if !pos.is_active(root) {
                self.nodes += 1;
                return Some(-WIN + ply);
            }
            if opponents && pos.active().all(|c| c == root) {
                self.nodes += 1;
                return Some(WIN - ply);
            }
        }
        self.node(&pos, root, depth, alpha, beta, ply, !moved)
    }

    /// Alpha-beta from `root`'s side: `maximising` nodes are `root`'s moves, the others the best
    /// reply of any opponent. `None` when the budget ran out.
    #[allow(clippy::too_many_arguments)]
    fn node(
        &mut self,
        pos: &Position,
        root: Camp,
        depth: i32,
        mut alpha: i32,
        mut beta: i32,
        ply: i32,
        maximising: bool,
    ) -> Option<i32> {
        self.nodes += 1;
        if self.out_of_budget() {
            return None;
        }
        if pos.has_finished(root) {
            return Some(WIN - ply);
        }
        if pos.seats().any(|c| c != root && pos.has_finished(c)) {
            return Some(-WIN + ply);
        }
        // Paranoid plays the round's end as the game does: every opponent forfeited is a win.
        if self.algorithm == Algorithm::Paranoid && pos.active().all(|c| c == root) {
            return Some(WIN - ply);
        }
        if depth <= 0 {
            return Some(evaluate(pos, root));
        }
        let key = pos.key() ^ side_key(root, maximising) ^ round_key(pos.round());
        let slot = (key as usize) & (self.table.len() - 1);
        let entry = self.table[slot];
        let mut tt_move = None;
        if entry.key == key {
            tt_move = entry.mv;
            if i32::from(entry.depth) >= depth {
                let s = from_tt(entry.score, ply);
                match entry.bound {
                    EXACT => return Some(s),
                    LOWER if s >= beta => return Some(s),
                    UPPER if s <= alpha => return Some(s),
                    _ => {}
                }
            }
        }
        let mut moves: Vec<(Camp, Move)> = Vec::with_capacity(128);
        let mut buf = Vec::with_capacity(96);
        if self.algorithm == Algorithm::Paranoid {
            let c = pos.to_move();
            pos.moves_of(c, &mut buf);
            moves.extend(buf.iter().map(|&m| (c, m)));
        } else if maximising {
            pos.moves_of(root, &mut buf);
            moves.extend(buf.iter().map(|&m| (root, m)));
        } else {
            for c in pos.active().filter(|&c| c != root) {
                buf.clear();
                pos.moves_of(c, &mut buf);
                moves.extend(buf.iter().map(|&m| (c, m)));
            }
        }
        if moves.is_empty() {
            return self.after(
                pos,
                pos.to_move(),
                None,
                root,
                depth - 1,
                alpha,
                beta,
                ply + 1,
                maximising,
            );
        }
        moves.sort_by_key(|&(c, m)| -i32::from(gain(c, m)));
        if let Some(t) = tt_move {
            if let Some(i) = moves.iter().position(|&x| x == t) {
                moves[..=i].rotate_right(1);
            }
        }
        let (alpha0, beta0) = (alpha, beta);
        let mut best = if maximising { -WIN - 1 } else { WIN + 1 };
        let mut best_move = moves[0];
        for &(c, mv) in &moves {
            let s = self.after(
                pos,
                c,
                Some(mv),
                root,
                depth - 1,
                alpha,
                beta,
                ply + 1,
                maximising,
            )?;
            if maximising {
                if s > best {
                    best = s;
                    best_move = (c, mv);
                }
                alpha = alpha.max(s);
            } else {
                if s < best {
                    best = s;
                    best_move = (c, mv);
                }
                beta = beta.min(s);
            }
            if alpha >= beta {
                break;
            }
        }
        let bound = if best <= alpha0 {
            UPPER
        } else if best >= beta0 {
            LOWER
        } else {
            EXACT
        };
        self.table[slot] = Entry {
            key,
            score: to_tt(best, ply),
            depth: depth as u8,
            bound,
            mv: Some(best_move),
        };
        Some(best)
    }
}

fn to_tt(score: i32, ply: i32) -> i32 {
    if score > WIN - 1000 {
        score + ply
    } else if score < -WIN + 1000 {
        score - ply
    } else {
        score
    }
}

fn from_tt(score: i32, ply: i32) -> i32 {
    if score > WIN - 1000 {
        score - ply
    } else if score < -WIN + 1000 {
        score + ply
    } else {
        score
    }
}

/// The greedy player: the move that most reduces the total distance to the goal (ties: the
/// first in reading order).
pub fn greedy(pos: &Position) -> Option<Move> {
    let me = pos.to_move();
    pos.legal_moves()
        .into_iter()
        .max_by_key(|&m| (gain(me, m), std::cmp::Reverse((m.from, m.to))))
}
