//! DamExchange (DXP), the TCP protocol between two draughts engines (mesander.nl/damexchange).

pub mod codec;
pub mod convert;
pub mod frame;
#[cfg(feature = "sessions")]
pub mod net;
#[cfg(feature = "sessions")]
pub mod pdn;
#[cfg(feature = "sessions")]
pub mod session;

pub use codec::{
    AcceptCode, BackAcc, BackReq, Dxp, DxpColour, DxpError, DxpMove, DxpPiece, DxpPosition,
    EndReason, GameAcc, GameEnd, GameReq, StopCode, NAME_WIDTH,
};
