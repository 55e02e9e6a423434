//! DamExchange (DXP), the TCP protocol between two draughts engines (mesander.nl/damexchange).

pub mod codec;
pub mod frame;
pub mod net;
pub mod pdn;
pub mod session;

pub use codec::{
    AcceptCode, BackAcc, BackReq, Dxp, DxpColour, DxpError, DxpMove, DxpPiece, DxpPosition,
    EndReason, GameAcc, GameEnd, GameReq, StopCode, NAME_WIDTH,
};
