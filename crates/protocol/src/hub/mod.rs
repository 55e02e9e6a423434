//! Hub v2, the line protocol between a draughts GUI and the engine (Scan 3.1 `protocol.txt`).

pub mod codec;
pub mod line;
pub mod numbering;
#[cfg(feature = "sessions")]
pub mod session;

pub use codec::{
    parse, parse_reply, tokenize, Arg, GoMode, HubCommand, HubError, HubReply, Info, Level,
    LevelKeys, ParamKind, Tokens,
};
#[cfg(feature = "sessions")]
pub use session::{Flow, Identity, Session, Settings, Sink, TableOpener, WriterSink};
