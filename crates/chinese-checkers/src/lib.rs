//! Chinese checkers (Stern-Halma) on the 121-hole star for 2 to 6 players: the board and its
//! hole names, the rules (steps, hop chains, the long-hop option, the anti-blocking rule), a
//! position text, perft, an evaluation, searches for two and for many players (best-reply,
//! paranoid and Monte Carlo tree search), and a solver for the one-player puzzle (all ten pieces
//! across in the fewest moves).
//!
//! ```
//! use kroon_chinese_checkers::{perft, Position};
//! let start = Position::start(2).unwrap();
//! assert_eq!(start.to_string(), "D/DD/DDD/DDDD/13/12/11/10/9/10/11/12/13/AAAA/AAA/AA/A A AD 1");
//! assert_eq!(perft(&start, 1), start.legal_moves().len() as u64);
//! ```

#![forbid(unsafe_code)]
#![deny(missing_docs)]

pub mod arena;
pub mod board;
pub mod eval;
pub mod game;
pub mod mcts;
pub mod movegen;
pub mod perft;
pub mod position;
pub mod prove;
pub mod search;
pub mod solve;
pub mod text;

pub use board::{Camp, Hole, Holes};
pub use movegen::Move;
pub use perft::{divide, perft};
pub use position::{seats_for, Position};
pub use text::{diagram, PositionError};
