//! An unvalidated position: what a record or an SFEN says, before anyone checks that it
//! could occur. `Position::from_setup` turns it into a playable position or says why not.

use super::{ByColor, Color, Hand, Piece, PieceKind, Square};

/// Board, hands, side to move and move number, as written. May be impossible.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Setup {
    /// The board, indexed by `Square::index()`.
    pub board: [Option<Piece>; 81],
    /// Both hands.
    pub hands: ByColor<Hand>,
    /// Side to move.
    pub turn: Color,
    /// The SFEN move number (1 for a fresh position).
    pub move_number: u32,
}

impl Default for Setup {
    fn default() -> Self {
        Setup::empty()
    }
}

impl Setup {
    /// An empty board, empty hands, Black to move, move number 1.
    pub fn empty() -> Setup {
        Setup {
            board: [None; 81],
            hands: ByColor::default(),
            turn: Color::Black,
            move_number: 1,
        }
    }

    /// The even-game start position.
    pub fn startpos() -> Setup {
        let mut s = Setup::empty();
        use PieceKind::*;
        let back = [
            Lance, Knight, Silver, Gold, King, Gold, Silver, Knight, Lance,
        ];
        for (i, &k) in back.iter().enumerate() {
            let file = 9 - i as u8;
            s.put(file, 1, Color::White, k);
            s.put(file, 9, Color::Black, k);
            s.put(file, 3, Color::White, Pawn);
            s.put(file, 7, Color::Black, Pawn);
        }
        s.put(8, 2, Color::White, Rook);
        s.put(2, 2, Color::White, Bishop);
        s.put(2, 8, Color::Black, Rook);
        s.put(8, 8, Color::Black, Bishop);
        s
    }

    fn put(&mut self, file: u8, rank: u8, color: Color, kind: PieceKind) {
        let sq = Square::new(file, rank).expect("valid square");
        self.board[sq.index()] = Some(Piece::new(color, kind));
    }

    /// The piece on a square.
    #[inline]
    pub fn piece_at(&self, sq: Square) -> Option<Piece> {
        self.board[sq.index()]
    }

    /// Puts (or clears) a piece on a square.
    #[inline]
    pub fn set_piece(&mut self, sq: Square, piece: Option<Piece>) {
        self.board[sq.index()] = piece;
    }
}
