//! Moves and their USI notation.

use std::fmt;

use super::{PieceKind, Square};

/// A move in a position: a board move (with or without promotion) or a drop.
///
/// A `Move` says nothing about legality; check it with `Position::check_move`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Move {
    /// A piece moves on the board.
    Normal {
        /// Source square.
        from: Square,
        /// Destination square.
        to: Square,
        /// Whether the piece promotes.
        promote: bool,
    },
    /// A piece is dropped from hand.
    Drop {
        /// The unpromoted kind dropped.
        kind: PieceKind,
        /// Destination square.
        to: Square,
    },
}

/// Why text is not a USI move.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ParseUsiMoveError;

impl fmt::Display for ParseUsiMoveError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("not a USI move (expected e.g. 7g7f, 8h2b+ or P*5e)")
    }
}

impl std::error::Error for ParseUsiMoveError {}

impl Move {
    /// The destination square.
    #[inline]
    pub fn to(self) -> Square {
        match self {
            Move::Normal { to, .. } | Move::Drop { to, .. } => to,
        }
    }

    /// The source square, `None` for drops.
    #[inline]
    pub fn from(self) -> Option<Square> {
        match self {
            Move::Normal { from, .. } => Some(from),
            Move::Drop { .. } => None,
        }
    }

    /// Whether the move promotes.
    #[inline]
    pub fn is_promotion(self) -> bool {
        matches!(self, Move::Normal { promote: true, .. })
    }

    /// Whether the move is a drop.
    #[inline]
    pub fn is_drop(self) -> bool {
        matches!(self, Move::Drop { .. })
    }

    /// Parses USI move syntax: `7g7f`, `8h2b+`, `P*5e`.
    pub fn from_usi(s: &str) -> Result<Move, ParseUsiMoveError> {
        let b = s.as_bytes();
        if b.len() == 4 && b[1] == b'*' {
            let kind = match b[0] {
                b'P' => PieceKind::Pawn,
                b'L' => PieceKind::Lance,
                b'N' => PieceKind::Knight,
                b'S' => PieceKind::Silver,
                b'G' => PieceKind::Gold,
                b'B' => PieceKind::Bishop,
                b'R' => PieceKind::Rook,
                _ => return Err(ParseUsiMoveError),
            };
            let to = Square::from_usi(&s[2..4]).ok_or(ParseUsiMoveError)?;
            return Ok(Move::Drop { kind, to });
        }
        let promote = match b.len() {
            4 => false,
            5 if b[4] == b'+' => true,
            _ => return Err(ParseUsiMoveError),
        };
        if !s.is_char_boundary(2) || !s.is_char_boundary(4) {
            return Err(ParseUsiMoveError);
        }
        let from = Square::from_usi(&s[0..2]).ok_or(ParseUsiMoveError)?;
        let to = Square::from_usi(&s[2..4]).ok_or(ParseUsiMoveError)?;
        Ok(Move::Normal { from, to, promote })
    }

    /// USI text.
    pub fn to_usi(self) -> String {
        self.to_string()
    }
}

impl fmt::Display for Move {
    /// Writes USI notation (the core's one USI writer, `sfen_writer::usi_letters`).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (letters, n) = super::sfen_writer::usi_letters(*self);
        f.write_str(std::str::from_utf8(&letters[..n]).unwrap_or_default())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn usi_round_trip() {
        for s in ["7g7f", "8h2b+", "P*5e", "R*1a", "1i1a+"] {
            assert_eq!(Move::from_usi(s).unwrap().to_usi(), s);
        }
        for bad in [
            "", "7g7", "7g7f=", "K*5e", "+P*5e", "0a1a", "7j7f", "p*5e", "7g7f++", "あい",
        ] {
            assert!(Move::from_usi(bad).is_err(), "{bad}");
        }
    }
}
