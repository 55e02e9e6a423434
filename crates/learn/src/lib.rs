//! Kroon's offline learning: self-play games written as compact records (`record`, `selfplay`) and
//! the trainer that fits the pattern evaluation's weights to them (`train`). The search never
//! depends on this crate; the binary wires it into `kroon selfplay` and `kroon train`.
#![forbid(unsafe_code)]

pub mod record;
pub mod rng;
pub mod selfplay;
pub mod train;
