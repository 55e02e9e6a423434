//! Kroon's search: evaluation, transposition table, iterative-deepening PVS with quiescence, lazy
//! SMP threads and time management. It takes a game, limits and a callback, and knows no protocol.

pub mod book;
pub mod engine;
pub mod eval;
pub mod score;
mod smp;
pub mod tables;
mod time;
mod tt;
pub mod tuning;
mod worker;

pub use book::{BookPlay, BookProbe};
pub use engine::{Engine, Event, SearchRequest};
pub use eval::{Eval, EvalKind, Weights, WeightsError};
pub use tables::{EndgameTables, TableProbe, TableValue};
pub use time::{Bounds, Limits, TimeManager};
pub use tuning::Tuning;

use kroon_rules::Move;
use std::time::Duration;

/// Deepest iteration.
pub const MAX_DEPTH: u32 = 100;
/// Deepest ply, quiescence included.
pub const MAX_PLY: usize = 200;

/// One finished iteration.
#[derive(Clone, Debug)]
pub struct Info {
    /// Nominal depth.
    pub depth: u32,
    /// Deepest ply reached.
    pub seldepth: u32,
    /// Score for the side to move, in centi-men (see `score`).
    pub score: i32,
    /// Nodes so far, all threads.
    pub nodes: u64,
    /// Time so far.
    pub elapsed: Duration,
    /// Principal variation.
    pub pv: Vec<Move>,
    /// Which line this is, from 1, in a multi-PV search (see [`Engine::set_multipv`]); 1 when
    /// the search looks for one line.
    pub multipv: usize,
}

/// One of the best lines of a multi-PV search.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Line {
    /// Score for the side to move, in centi-men.
    pub score: i32,
    /// The line, starting with its root move.
    pub pv: Vec<Move>,
}

/// The answer of a search.
#[derive(Clone, Debug, Default)]
pub struct SearchResult {
    /// The move to play (none when there is no legal move).
    pub best: Option<Move>,
    /// The expected reply.
    pub ponder: Option<Move>,
    /// Score of the last finished iteration.
    pub score: i32,
    /// Its depth.
    pub depth: u32,
    /// Nodes searched, all threads.
    pub nodes: u64,
    /// Time used.
    pub elapsed: Duration,
    /// Principal variation.
    pub pv: Vec<Move>,
    /// In a multi-PV search, the best lines of the deepest iteration that finished all of them,
    /// best first, with distinct root moves and scores that never rise; empty otherwise.
    pub lines: Vec<Line>,
}
