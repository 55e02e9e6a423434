//! Hub v2 and DamExchange (DXP) protocol codecs and sessions.
#![forbid(unsafe_code)]

pub mod dxp;
pub mod hub;
