//! Monte Carlo tree search (UCT) for 2 to 6 players.
//!
//! Each iteration walks down the tree from the root, at every node choosing for the player to
//! move the child with the best upper confidence bound (UCB1: its mean reward plus
//! `exploration * sqrt(ln N / n)`), an untried child first, in the order of the rows they gain.
//! A leaf visited once before is expanded (all its moves, or a pass when there is none). From
//! the leaf a short playout follows: `playout_plies` moves of the game, each the move that gains
//! the most rows (ties at random) or, one time in ten, any move. The playout is cut there and
//! the evaluation scores it for every player at once: a player's reward is the logistic of the
//! best-placed opponent's cost less its own (in rows, over `scale`), 0 for a player out by the
//! anti-blocking rule; a game decided in the tree or the playout gives 1 to the player who filled
//! its goal and 0 to the others. Each node adds the reward of the player who moved into it
//! (max-n backup, as Sturtevant's UCT for Chinese checkers), and the move played is the root's
//! most visited.
//!
//! The tree keeps moves, not positions: positions are replayed from the root on the way down.
//! The moves are played as in the game, so the rounds end and the anti-blocking rule applies
//! inside the tree and the playouts.

use std::time::Instant;

use crate::arena::Rng;
use crate::board::Camp;
use crate::eval::cost;
use crate::movegen::Move;
use crate::position::Position;
use crate::search::Limit;

/// The parameters of the search.
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct MctsConfig {
    /// The weight of the exploration term of UCB1.
    pub exploration: f64,
    /// Moves of each playout before the evaluation cuts it.
    pub playout_plies: u32,
    /// Hundredths of a row that make one unit of the logistic reward.
    pub scale: f64,
    /// Seed of the playouts' random choices.
    pub seed: u64,
}

impl Default for MctsConfig {
    fn default() -> MctsConfig {
        MctsConfig {
            exploration: 0.4,
            playout_plies: 6,
            scale: 300.0,
            seed: 1,
        }
    }
}

/// One move of the root as the search left it.
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct RootChild {
    /// The move, `None` for a pass.
    pub mv: Option<Move>,
    /// Iterations through it.
    pub visits: u32,
    /// Mean reward of the player to move at the root.
    pub mean: f64,
}

/// The answer of one search.
#[derive(Clone, Debug)]
pub struct MctsResult {
    /// The most visited move, if the player has one.
    pub best: Option<Move>,
    /// Iterations run.
    pub iterations: u64,
    /// Nodes in the tree.
    pub tree_nodes: usize,
    /// The root's moves.
    pub children: Vec<RootChild>,
}

#[derive(Copy, Clone, Debug)]
struct Node {
    /// The move into the node, `None` for the root or a pass.
    mv: Option<Move>,
    /// The player who moved into it.
    mover: Camp,
    visits: u32,
    /// Summed reward of `mover`.
    reward: f64,
    /// Children: `first .. first + count`; `count == 0` and `first == 0` when not expanded.
    first: u32,
    count: u32,
}

/// The Monte Carlo searcher. It keeps nothing between searches but its random state.
pub struct Mcts {
    config: MctsConfig,
    rng: Rng,
    nodes: Vec<Node>,
    /// Players who had filled their goal before the root: their place is settled.
    done_before: u8,
}

fn gain(c: Camp, mv: Move) -> i8 {
    c.forward(mv.to) - c.forward(mv.from)
}

impl Mcts {
    /// A searcher with these parameters.
    pub fn new(config: MctsConfig) -> Mcts {
        Mcts {
            config,
            rng: Rng(config.seed),
            nodes: Vec::new(),
            done_before: 0,
        }
    }

    /// Searches for the player to move: `Limit::Nodes` counts iterations, `Limit::Time` runs
    /// until the time is spent, and `Limit::Depth(d)` is read as `d` iterations.
    pub fn search(&mut self, pos: &Position, limit: Limit) -> MctsResult {
        let start = Instant::now();
        let root_player = pos.to_move();
        self.done_before = pos
            .seats()
            .filter(|&c| pos.has_finished(c))
            .fold(0, |m, c| m | 1 << c.index());
        self.nodes.clear();
        self.nodes.push(Node {
            mv: None,
            mover: root_player,
            visits: 0,
            reward: 0.0,
            first: 0,
            count: 0,
        });
        let mut iterations = 0u64;
        let legal = pos.legal_moves();
        if legal.len() > 1 && self.outcome(pos).is_none() {
            self.expand(0, pos);
            let (max_iter, deadline) = match limit {
                Limit::Nodes(n) => (n.max(1), None),
                Limit::Depth(d) => (u64::from(d.max(1)), None),
                Limit::Time(t) => (u64::MAX, Some(t)),
            };
            while iterations < max_iter {
                if iterations > 0 && deadline.is_some_and(|t| start.elapsed() >= t) {
                    break;
                }
                self.iterate(pos);
                iterations += 1;
            }
        }
        let root = self.nodes[0];
        let children: Vec<RootChild> = (root.first..root.first + root.count)
            .map(|i| {
                let n = self.nodes[i as usize];
                RootChild {
                    mv: n.mv,
                    visits: n.visits,
                    mean: if n.visits == 0 {
                        0.0
                    } else {
                        n.reward / f64::from(n.visits)
                    },
                }
            })
            .collect();
        let best = children
            .iter()
            .max_by(|a, b| {
                a.visits
                    .cmp(&b.visits)
                    .then(a.mean.total_cmp(&b.mean))
                    // Among equals, the first (the larger gain).
                    .then(std::cmp::Ordering::Greater)
            })
            .and_then(|c| c.mv)
            .or_else(|| legal.first().copied());
        MctsResult {
            best,
            iterations,
            tree_nodes: self.nodes.len(),
            children,
        }
    }

    /// One iteration: select, expand, play out, back up.
    fn iterate(&mut self, root: &Position) {
        let mut path = vec![0u32];
        let mut pos = *root;
        let mut at = 0usize;
        let rewards = loop {
            if let Some(r) = self.outcome(&pos) {
                break r;
            }
            let node = self.nodes[at];
            if node.count == 0 {
                if at != 0 && node.visits == 0 {
                    break self.playout(pos);
                }
                self.expand(at, &pos);
            }
            let next = self.select(at);
            let mv = self.nodes[next].mv;
            pos = mv.map_or_else(|| pos.pass(), |m| pos.play(m));
            path.push(next as u32);
            at = next;
        };
        for &i in &path {
            let n = &mut self.nodes[i as usize];
            n.visits += 1;
            n.reward += rewards[n.mover.index()];
        }
    }

    /// The child of `at` with the best upper confidence bound for the player to move there.
    fn select(&self, at: usize) -> usize {
        let node = self.nodes[at];
        let ln = f64::from(node.visits.max(1)).ln();
        let c = self.config.exploration;
        let mut best = node.first as usize;
        let mut best_score = f64::NEG_INFINITY;
        for i in node.first..node.first + node.count {
            let n = &self.nodes[i as usize];
            if n.visits == 0 {
                return i as usize;
            }
            let v = f64::from(n.visits);
            let score = n.reward / v + c * (ln / v).sqrt();
            if score > best_score {
                best_score = score;
                best = i as usize;
            }
        }
        best
    }

    /// Adds the children of `at` (whose position is `pos`): its moves by rows gained, or a pass.
    fn expand(&mut self, at: usize, pos: &Position) {
        let me = pos.to_move();
        let mut moves = pos.legal_moves();
        moves.sort_by_key(|&m| -gain(me, m));
        let first = self.nodes.len() as u32;
        let child = |mv| Node {
            mv,
            mover: me,
            visits: 0,
            reward: 0.0,
            first: 0,
            count: 0,
        };
        if moves.is_empty() {
            self.nodes.push(child(None));
        } else {
            self.nodes.extend(moves.into_iter().map(|m| child(Some(m))));
        }
        let count = self.nodes.len() as u32 - first;
        let node = &mut self.nodes[at];
        node.first = first;
        node.count = count;
    }

    /// The rewards of a decided game: 1 to a player who filled its goal since the root (the
    /// first to do so is the only one: the game is decided there), 0 to the others; `None` while
    /// the game is open.
    fn outcome(&self, pos: &Position) -> Option<[f64; 6]> {
        let mut r = [0.0; 6];
        let winner = pos
            .seats()
            .find(|&c| self.done_before >> c.index() & 1 == 0 && pos.has_finished(c));
        if let Some(w) = winner {
            r[w.index()] = 1.0;
            return Some(r);
        }
        if pos.is_over() {
            // Everyone but one is out or done: the one left moving wins.
            for c in pos.active() {
                r[c.index()] = 1.0;
            }
            return Some(r);
        }
        None
    }

    /// A short greedy playout from `pos`, cut and scored by the evaluation.
    fn playout(&mut self, mut pos: Position) -> [f64; 6] {
        let mut moves = Vec::with_capacity(96);
        for _ in 0..self.config.playout_plies {
            if let Some(r) = self.outcome(&pos) {
                return r;
            }
            let me = pos.to_move();
            moves.clear();
            pos.moves_of(me, &mut moves);
            if moves.is_empty() {
                pos = pos.pass();
                continue;
            }
            let mv = if self.rng.below(10) == 0 {
                moves[self.rng.below(moves.len())]
            } else {
                let top = moves.iter().map(|&m| gain(me, m)).max().unwrap_or(0);
                moves.retain(|&m| gain(me, m) == top);
                moves[self.rng.below(moves.len())]
            };
            pos = pos.play(mv);
        }
        self.outcome(&pos).unwrap_or_else(|| self.evaluate(&pos))
    }

    /// Every player's reward in an open position, from the evaluation.
    fn evaluate(&self, pos: &Position) -> [f64; 6] {
        let mut costs = [None; 6];
        for c in pos.active() {
            costs[c.index()] = Some(f64::from(cost(pos, c)));
        }
        let mut r = [0.0; 6];
        for c in pos.active() {
            let own = costs[c.index()].unwrap_or(0.0);
            let best_other = costs
                .iter()
                .enumerate()
                .filter(|&(i, _)| i != c.index())
                .filter_map(|(_, &k)| k)
                .fold(f64::INFINITY, f64::min);
            r[c.index()] = if best_other.is_finite() {
                1.0 / (1.0 + (-(best_other - own) / self.config.scale).exp())
            } else {
                1.0
            };
        }
        r
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every expanded node other than the root was visited once as a leaf before its children,
    /// so its visits are one more than theirs; the root's equal theirs; rewards stay in [0, 1].
    fn check_tree(m: &Mcts, iterations: u64) {
        let root = m.nodes[0];
        assert_eq!(u64::from(root.visits), iterations);
        for (i, n) in m.nodes.iter().enumerate() {
            assert!(n.reward >= 0.0 && n.reward <= f64::from(n.visits) + 1e-9);
            if n.count == 0 {
                continue;
            }
            let below: u32 = (n.first..n.first + n.count)
                .map(|k| m.nodes[k as usize].visits)
                .sum();
            let own = if i == 0 { 0 } else { 1 };
            assert_eq!(n.visits, below + own, "node {i}");
        }
    }

    #[test]
    fn visit_counts_add_up() {
        for players in [2, 3, 6] {
            let pos = Position::start(players).unwrap();
            let mut m = Mcts::new(MctsConfig::default());
            let r = m.search(&pos, Limit::Nodes(3000));
            assert_eq!(r.iterations, 3000);
            let sum: u32 = r.children.iter().map(|c| c.visits).sum();
            assert_eq!(u64::from(sum), r.iterations, "{players} players");
            assert_eq!(r.children.len(), pos.legal_moves().len());
            check_tree(&m, r.iterations);
            // The tree grew below the root's children.
            assert!(m
                .nodes
                .iter()
                .skip(1 + r.children.len())
                .any(|n| n.visits > 1));
        }
    }

    #[test]
    fn the_same_seed_gives_the_same_search() {
        let pos = Position::start(4).unwrap();
        let run = |seed| {
            let config = MctsConfig {
                seed,
                ..MctsConfig::default()
            };
            Mcts::new(config).search(&pos, Limit::Nodes(2000)).children
        };
        assert_eq!(run(7), run(7));
        // Another seed plays other playouts, so the statistics differ.
        assert_ne!(run(7), run(8));
    }
}
