//! Kroon's draughts rules: boards, positions, legal moves, notation, position text, perft and the
//! game rules. Pure: no I/O, no threads, no clocks.
//!
//! ```
//! use kroon_rules::{perft, Duplicates, Position, Variant};
//! let start = Position::initial(Variant::International);
//! assert_eq!(start.legal_moves().len(), 9);
//! assert_eq!(perft(&start, 3, Duplicates::Drop), 658);
//! ```
#![forbid(unsafe_code)]
#![deny(missing_docs)]

pub mod bitboard;
pub mod fen;
pub mod file_header;
pub mod game;
pub mod geometry;
pub mod hash;
pub mod movegen;
pub mod movelist;
pub mod mv;
pub mod naming;
pub mod notation;
pub mod pdn;
pub mod perft;
pub mod position;
pub mod square;
pub mod variant;
pub mod zobrist;

pub use bitboard::Bitboard;
pub use fen::{parse_dxp, parse_fen, parse_hub, write_dxp, write_fen, write_hub, FenError};
pub use game::{
    counted_draw, endgame_rule, DrawCounts, DrawReason, EndgameRule, Game, GameResult, Outcome,
    Waived,
};
pub use geometry::Geometry;
pub use movegen::{has_capture, Duplicates};
pub use movelist::MoveList;
pub use mv::Move;
pub use naming::{
    diagram_place, parse_square, piece_letter, side_called, side_name, square_at, square_name,
    Numbering,
};
pub use notation::{parse_hub_move, parse_move, MoveError};
pub use pdn::{decode_text, read_pdn, write_pdn, PdnError, PdnFile, PdnGame, PdnLine, PdnMove};
pub use perft::{divide, perft};
pub use position::{Colour, IllegalMove, Piece, Position};
pub use square::Square;
pub use variant::{Rules, Variant};
