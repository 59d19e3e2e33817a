//! The shogi rules core: squares, pieces, hands, positions, move generation and the rules
//! that decide whether a move is legal. It knows no record format.
//!
//! * [`Setup`] is what a record says (unvalidated); [`Position`] is a validated, playable
//!   position built by [`Position::from_setup`] (refusals: [`SetupError`]). A side without a
//!   king, as in tsume problems, is accepted only by [`Position::from_setup_relaxed`] /
//!   [`Position::from_sfen_relaxed`].
//! * [`Position::check_move`] says whether any [`Move`] is legal or which rule it breaks
//!   ([`Illegal`], with a fixed reporting order documented there); [`Position::play`] checks
//!   and plays; [`Position::play_unchecked`] plays every move that can physically be carried
//!   out; [`Position::play_checked`] does `check_move` and `play_unchecked` in one pass.
//!   [`Position::play_if_legal`] is the quick way for a replay from a legal start that only
//!   needs to know whether each move is legal. [`Position::legal_moves`] generates all legal
//!   moves; [`perft`] counts the tree.
//! * Game ends: [`Position::is_checkmate`], [`Position::has_legal_move`],
//!   [`RepetitionTracker`] (千日手 and perpetual check), [`Position::declare`] (入玉宣言).
//!
//! ```
//! use kifu::core::{Illegal, Move, Position};
//!
//! let mut pos = Position::startpos();
//! pos.play(Move::from_usi("7g7f").unwrap()).unwrap();
//! assert_eq!(pos.check_move(Move::from_usi("P*5e").unwrap()), Err(Illegal::NotInHand));
//! assert_eq!(pos.legal_moves().len(), 30);
//! assert_eq!(kifu::core::perft(&Position::startpos(), 3), 25_470);
//! ```

pub(crate) mod bitboard;
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
mod sfen_writer;
mod square;
mod zobrist;

pub use bitboard::{Bitboard, Squares};
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
pub use position::Position;
pub use repetition::{RepetitionOutcome, RepetitionTracker};
pub use rules::Illegal;
pub use setup::{Setup, SetupError};
pub use sfen::SfenError;
#[cfg(feature = "parquet")]
pub(crate) use sfen_writer::Digits;
pub use sfen_writer::line_sfens;
pub(crate) use sfen_writer::{SfenWriter, sfen, usi_letters, write_usi, write_usi_bytes};
pub use square::Square;
