//! The shogi rules core: squares, pieces, hands, positions, move generation and the rules
//! that decide whether a move is legal. It knows no record format.

mod color;
mod hand;
mod handicap;
mod moves;
mod piece;
mod setup;
mod square;

pub use color::{ByColor, Color};
pub use hand::Hand;
pub use handicap::Handicap;
pub use moves::{Move, ParseUsiMoveError};
pub use piece::{Piece, PieceKind};
pub use setup::Setup;
pub use square::Square;
