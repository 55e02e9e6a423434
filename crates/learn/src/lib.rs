//! Kroon's offline learning: self-play games written as compact records (`record`, `selfplay`),
//! the trainer that fits the pattern evaluation's weights to them (`train`), and the balanced
//! openings matches start from, made with the search (`openings`). The search never depends on
//! this crate; the binary wires it into `kroon selfplay`, `kroon train` and `kroon match
//! --generate-openings`.
#![forbid(unsafe_code)]

pub mod openings;
pub mod record;
pub mod rng;
pub mod selfplay;
pub mod train;
