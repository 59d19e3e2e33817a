//! The shogi rules core: squares, pieces, hands, positions, move generation and the rules
//! that decide whether a move is legal. It knows no record format.

pub mod bitboard;
mod color;
mod hand;
mod handicap;
mod impasse;
mod movegen;
mod moves;
mod perft;
mod piece;
mod position;
mod repetition;
mod rules;
mod setup;
mod sfen;
mod square;
mod zobrist;

pub use bitboard::Bitboard;
pub use color::{ByColor, Color};
pub use hand::Hand;
pub use handicap::Handicap;
pub use impasse::{
    Declaration, DeclarationFailure, DeclarationOutcome, DeclarationRule, jsa24_agreement,
    jsa24_points,
};
pub use movegen::{MAX_MOVES, MoveList};
pub use moves::{Move, ParseUsiMoveError};
pub use perft::{perft, perft_divide};
pub use piece::{Piece, PieceKind};
pub use position::{Position, SetupError};
pub use repetition::{RepetitionOutcome, RepetitionTracker};
pub use rules::Illegal;
pub use setup::Setup;
pub use sfen::SfenError;
pub use square::Square;
