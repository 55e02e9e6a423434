//! Limits of a search and the time manager: the only code that reads the clock.

use parking_lot::Mutex;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
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
    /// Several limits at once (Hub's `level` keys add up, as in Scan): the search stops at the
    /// first one reached. Nothing set is `Infinite`.
    Combined(Bounds),
}

/// The limits of [`Limits::Combined`]; each one set applies.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Bounds {
    /// Deepest iteration.
    pub depth: Option<u32>,
    /// About this many nodes (the first iteration always finishes).
    pub nodes: Option<u64>,
    /// Time for the move.
    pub move_time: Option<Duration>,
    /// A game clock: time left, increment and moves to the next control.
    pub clock: Option<(Duration, Duration, Option<u32>)>,
}

/// The soft and hard time limits of a fixed time for the move.
fn move_time_limits(t: Duration) -> (Duration, Duration) {
    // A fixed time per move is the caller's to keep: hold back only a little of it.
    let t = t
        .saturating_sub(OVERHEAD.min(t / 10))
        .max(Duration::from_millis(1));
    (t, t)
}

/// The soft and hard time limits of a game clock.
fn clock_limits(left: Duration, inc: Duration, moves_to_go: Option<u32>) -> (Duration, Duration) {
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
    (
        Duration::from_secs_f64(soft_s * 0.6),
        Duration::from_secs_f64((soft_s * 4.0).min(cap)).max(Duration::from_millis(1)),
    )
}

/// The earlier of two optional limits.
fn earlier(a: Option<Duration>, b: Option<Duration>) -> Option<Duration> {
    match (a, b) {
        (Some(a), Some(b)) => Some(a.min(b)),
        (a, b) => a.or(b),
    }
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
    /// Nodes searched before the ponder hit: the count, like the clock, starts again there.
    nodes_before: AtomicU64,
}

impl TimeManager {
    /// A manager for `limits`, started now. While `ponder` is set no time limit applies;
    /// `ponder_hit` starts the clock.
    #[must_use]
    pub fn new(limits: &Limits, ponder: bool) -> TimeManager {
        let (mut soft, mut hard, mut max_depth, mut max_nodes): (
            Option<Duration>,
            Option<Duration>,
            _,
            _,
        ) = (None, None, crate::MAX_DEPTH, u64::MAX);
        match *limits {
            Limits::Infinite => {}
            Limits::Depth(d) => max_depth = d.clamp(1, crate::MAX_DEPTH),
            Limits::Nodes(n) => max_nodes = n.max(1),
            Limits::MoveTime(t) => {
                let (s, h) = move_time_limits(t);
                (soft, hard) = (Some(s), Some(h));
            }
            Limits::Clock {
                left,
                inc,
                moves_to_go,
            } => {
                let (s, h) = clock_limits(left, inc, moves_to_go);
                (soft, hard) = (Some(s), Some(h));
            }
            Limits::Combined(ref b) => {
                if let Some(d) = b.depth {
                    max_depth = d.clamp(1, crate::MAX_DEPTH);
                }
                if let Some(n) = b.nodes {
                    max_nodes = n.max(1);
                }
                for (s, h) in b
                    .move_time
                    .map(move_time_limits)
                    .into_iter()
                    .chain(b.clock.map(|(l, i, m)| clock_limits(l, i, m)))
                {
                    soft = earlier(soft, Some(s));
                    hard = earlier(hard, Some(h));
                }
            }
        }
        TimeManager {
            start: Mutex::new(Instant::now()),
            soft,
            hard,
            max_depth,
            max_nodes,
            pondering: AtomicBool::new(ponder),
            nodes_before: AtomicU64::new(0),
        }
    }

    /// The opponent played the expected move: the clock starts now. Outside pondering it does nothing.
    pub fn ponder_hit(&self) {
        self.ponder_hit_after(0);
    }

    /// As [`TimeManager::ponder_hit`], with `nodes` searched so far: node counts and node limits
    /// start again from there, so that the speed reported after the hit is right.
    pub fn ponder_hit_after(&self, nodes: u64) {
        if self.pondering.swap(false, Ordering::AcqRel) {
            *self.start.lock() = Instant::now();
            self.nodes_before.store(nodes, Ordering::Release);
        }
    }

    /// Nodes since the search (or the ponder hit) started, given the nodes of the whole search.
    #[must_use]
    pub fn counted(&self, nodes: u64) -> u64 {
        nodes.saturating_sub(self.nodes_before.load(Ordering::Acquire))
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
        let nodes = self.counted(nodes);
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
        if self.counted(nodes) >= self.max_nodes {
            return true;
        }
        if self.pondering() {
            return false;
        }
        self.hard.is_some_and(|h| self.elapsed() >= h)
    }

    /// Whether a time limit applies (a move time or a game clock): without one, only the depth,
    /// the node count or a stop ends the search.
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
    fn combined_limits_keep_each_limit_set() {
        let tm = TimeManager::new(
            &Limits::Combined(Bounds {
                depth: Some(6),
                nodes: Some(50),
                move_time: Some(Duration::from_millis(300)),
                clock: Some((Duration::from_secs(3), Duration::ZERO, None)),
            }),
            false,
        );
        assert_eq!(tm.max_depth(), 6);
        assert!(!tm.next_iteration(1, 50) && tm.next_iteration(1, 49));
        assert!(tm.must_stop(50));
        // The earlier of the move time and the clock's share.
        assert!(tm.hard.unwrap() <= Duration::from_millis(300));
        let none = TimeManager::new(&Limits::Combined(Bounds::default()), false);
        assert!(!none.has_clock() && none.max_depth() == crate::MAX_DEPTH);
    }

    /// The budgets of Hub levels (as the Hub session turns them into limits): a move time is
    /// spent nearly whole, and a clock's hard limit stays within the time left.
    #[test]
    fn a_move_time_is_kept_and_a_clock_never_overstepped() {
        let ms = Duration::from_millis;
        let budget = |bounds: Bounds| {
            let tm = TimeManager::new(&Limits::Combined(bounds), false);
            (tm.soft.unwrap(), tm.hard.unwrap())
        };
        // `move-time=0.4`: all of it but 30 ms, soft and hard alike.
        let (soft, hard) = budget(Bounds {
            move_time: Some(ms(400)),
            ..Bounds::default()
        });
        assert_eq!((soft, hard), (ms(370), ms(370)));
        // `time=0.3`, `moves=1 time=0.3`, `moves=20 time=2 inc=0.1`, `time=0.5 inc=0.05`.
        for (left, inc, moves) in [
            (ms(300), Duration::ZERO, None),
            (ms(300), Duration::ZERO, Some(1)),
            (ms(2000), ms(100), Some(20)),
            (ms(500), ms(50), None),
        ] {
            let (soft, hard) = budget(Bounds {
                clock: Some((left, inc, moves)),
                ..Bounds::default()
            });
            let what = format!("{left:?} + {inc:?}, {moves:?} moves: {soft:?}, {hard:?}");
            assert!(soft <= hard, "{what}");
            assert!(hard > Duration::ZERO && hard <= left - OVERHEAD, "{what}");
        }
        // The last move before the control may take nine tenths of what is left.
        assert_eq!(
            budget(Bounds {
                clock: Some((ms(300), Duration::ZERO, Some(1))),
                ..Bounds::default()
            })
            .1,
            Duration::from_secs_f64(0.27 * 0.9)
        );
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

    #[test]
    fn nodes_count_again_from_the_ponder_hit() {
        let tm = TimeManager::new(&Limits::Nodes(100), true);
        assert_eq!(tm.counted(5_000), 5_000);
        tm.ponder_hit_after(5_000);
        assert_eq!(tm.counted(5_040), 40);
        assert!(!tm.must_stop(5_040) && tm.must_stop(5_100));
        // A second hit changes nothing.
        tm.ponder_hit_after(9_000);
        assert_eq!(tm.counted(5_040), 40);
    }
}
