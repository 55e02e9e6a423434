//! Kroon's work queue: self-play, matches and endgame-table builds cut into jobs on Redis
//! streams, run by `kroon worker` on any machine that reaches the server.
//!
//! - `record`: the job and result records (versioned JSON, a total parser).
//! - `link`: the connection, with reconnection and back-off; key names.
//! - `worker`: the consumer-group loop (`kroon worker`).
//! - `selfplay`: the self-play producer and the worker's side of its jobs.
//! - `egdb`: endgame-table slices as jobs (`kroon egdb build --queue`), both sides.
//! - `matches`: the match producer (`kroon match --queue`); workers play pairs with
//!   `kroon_match::remote`.
//! - `status`: what a queue holds, for `kroon queue-status`.
//!
//! Without its `client` feature (on by default) the crate is `record` alone.
//!
//! The search, rules and tables crates know nothing of this one.
#![forbid(unsafe_code)]

#[cfg(feature = "client")]
pub mod egdb;
#[cfg(feature = "client")]
pub mod link;
#[cfg(feature = "client")]
pub mod matches;
pub mod record;
#[cfg(feature = "client")]
pub mod selfplay;
#[cfg(feature = "client")]
pub mod status;
#[cfg(feature = "client")]
pub mod worker;
