//! Hub v2 and DamExchange (DXP) protocol codecs and sessions.
//!
//! The codecs (messages, DXP framing, move and position conversions, the Hub line reader) are
//! pure and always built. The sessions (the Hub state machine over an engine, the DXP session and
//! its TCP server and client on tokio) come with the `sessions` feature, on by default; a crate
//! that needs only the codecs depends with `default-features = false` and builds neither tokio
//! nor the search.
#![forbid(unsafe_code)]

pub mod dxp;
pub mod hub;
