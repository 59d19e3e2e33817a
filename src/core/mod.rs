//! The shogi rules core: squares, pieces, hands, positions, move generation and the rules
//! that decide whether a move is legal. It knows no record format.

mod color;
mod handicap;
mod setup;
mod hand;
mod moves;
mod piece;
mod square;

pub use color::{ByColor, Color};
pub use handicap::Handicap;
pub use setup::Setup;
pub use hand::Hand;
pub use moves::{Move, ParseUsiMoveError};
pub use piece::{Piece, PieceKind};
pub use square::Square;
