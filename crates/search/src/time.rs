//! Limits of a search and the time manager: the only code that reads the clock.

use parking_lot::Mutex;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

/// What the caller asked for.
#[derive(Clone, Debug, PartialEq)]
pub enum Limits {
    /// Until stopped.
    Infinite,
    /// To a fixed depth.
    Depth(u32),
    /// About this many nodes.
    Nodes(u64),
    /// This long for the move.
    MoveTime(Duration),
    /// A game clock: time left, increment per move, and moves to the next control (none: sudden death).
    Clock {
        /// Time left on our clock.
        left: Duration,
        /// Added after each move.
        inc: Duration,
        /// Moves until the next time control.
        moves_to_go: Option<u32>,
    },
}

/// Kept back from every clock for the time it takes to send the move.
const OVERHEAD: Duration = Duration::from_millis(30);

/// Decides when a search stops. A soft limit is checked between iterations, a hard one inside.
#[derive(Debug)]
pub struct TimeManager {
    start: Mutex<Instant>,
    soft: Option<Duration>,
    hard: Option<Duration>,
    max_depth: u32,
    max_nodes: u64,
    pondering: AtomicBool,
}

impl TimeManager {
    /// A manager for `limits`, started now. While `ponder` is set no time limit applies;
    /// `ponder_hit` starts the clock.
    #[must_use]
    pub fn new(limits: &Limits, ponder: bool) -> TimeManager {
        let (mut soft, mut hard, mut max_depth, mut max_nodes) =
            (None, None, crate::MAX_DEPTH, u64::MAX);
        match *limits {
            Limits::Infinite => {}
            Limits::Depth(d) => max_depth = d.clamp(1, crate::MAX_DEPTH),
            Limits::Nodes(n) => max_nodes = n.max(1),
            Limits::MoveTime(t) => {
                // A fixed time per move is the caller's to keep: hold back only a little of it.
                let t = t
                    .saturating_sub(OVERHEAD.min(t / 10))
                    .max(Duration::from_millis(1));
                soft = Some(t);
                hard = Some(t);
            }
            Limits::Clock {
                left,
                inc,
                moves_to_go,
            } => {
                let usable = left.saturating_sub(OVERHEAD);
                let moves = f64::from(moves_to_go.unwrap_or(30).clamp(1, 30));
                // Aim at an even share of what is left, plus most of the increment; allow up to four
                // times that when an iteration is unfinished, never more than a third of the clock
                // (all of it, less a margin, on the last move before the control).
                let share = usable.as_secs_f64() / moves + inc.as_secs_f64() * 0.8;
                let cap = if moves_to_go == Some(1) {
                    usable.as_secs_f64() * 0.9
                } else {
                    usable.as_secs_f64() / 3.0
                };
                let soft_s = share.min(cap);
                soft = Some(Duration::from_secs_f64(soft_s * 0.6));
                hard = Some(
                    Duration::from_secs_f64((soft_s * 4.0).min(cap)).max(Duration::from_millis(1)),
                );
            }
        }
        TimeManager {
            start: Mutex::new(Instant::now()),
            soft,
            hard,
            max_depth,
            max_nodes,
            pondering: AtomicBool::new(ponder),
        }
    }

    /// The opponent played the expected move: the clock starts now. Outside pondering it does nothing.
    pub fn ponder_hit(&self) {
        if self.pondering.swap(false, Ordering::AcqRel) {
            *self.start.lock() = Instant::now();
        }
    }

    /// Whether the search is still pondering.
    #[must_use]
    pub fn pondering(&self) -> bool {
        self.pondering.load(Ordering::Acquire)
    }

    /// Time since the search (or the ponder hit) started.
    #[must_use]
    pub fn elapsed(&self) -> Duration {
        self.start.lock().elapsed()
    }

    /// The deepest iteration allowed.
    #[must_use]
    pub fn max_depth(&self) -> u32 {
        self.max_depth
    }

    /// Whether another iteration may start after `depth` finished.
    #[must_use]
    pub fn next_iteration(&self, depth: u32, nodes: u64) -> bool {
        if depth >= self.max_depth || nodes >= self.max_nodes {
            return false;
        }
        if self.pondering() {
            return true;
        }
        self.soft.is_none_or(|s| self.elapsed() < s)
    }

    /// Whether the search must stop now (checked every few thousand nodes).
    #[must_use]
    pub fn must_stop(&self, nodes: u64) -> bool {
        if nodes >= self.max_nodes {
            return true;
        }
        if self.pondering() {
            return false;
        }
        self.hard.is_some_and(|h| self.elapsed() >= h)
    }

    /// The elapsed time is checked at most this often (in nodes): rarely for node limits, which must
    /// not depend on the clock.
    #[must_use]
    pub fn has_clock(&self) -> bool {
        self.hard.is_some()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clock_budget_is_a_fraction_of_the_time_left() {
        let tm = TimeManager::new(
            &Limits::Clock {
                left: Duration::from_secs(60),
                inc: Duration::ZERO,
                moves_to_go: None,
            },
            false,
        );
        let hard = tm.hard.unwrap();
        assert!(hard <= Duration::from_secs(20), "{hard:?}");
        assert!(tm.soft.unwrap() < hard);
    }

    #[test]
    fn tiny_clock_still_moves() {
        let tm = TimeManager::new(
            &Limits::Clock {
                left: Duration::from_millis(5),
                inc: Duration::ZERO,
                moves_to_go: Some(1),
            },
            false,
        );
        assert!(tm.hard.unwrap() <= Duration::from_millis(5));
    }

    #[test]
    fn pondering_ignores_time_until_hit() {
        let tm = TimeManager::new(&Limits::MoveTime(Duration::from_millis(1)), true);
        std::thread::sleep(Duration::from_millis(40));
        assert!(!tm.must_stop(0));
        tm.ponder_hit();
        assert!(!tm.must_stop(0) || tm.elapsed() >= Duration::from_millis(1));
        std::thread::sleep(Duration::from_millis(5));
        assert!(tm.must_stop(0));
    }
}
