//! An unvalidated position: what a record or an SFEN says, before anyone checks that it
//! could occur, and the way between it and a [`Position`]: [`Position::from_setup`] (and its
//! relaxed and lenient forms) turns a setup into a playable position or says why not
//! ([`SetupError`]); [`Position::to_setup`] goes back.

use std::fmt;

use super::position::is_dead_square;
use super::{ByColor, Color, Hand, Piece, PieceKind, Position, Square};

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

/// Why a [`Setup`] is not a possible position.
///
/// [`Position::from_setup`] checks, in this order, and reports the first failure: kings
/// (none or more than one per side), hands that hold more of a kind than the set has, more
/// pieces of a kind on board and in hands together than the set has (promoted pieces count
/// with their base kind), pieces on squares from which they can never move, and two
/// unpromoted pawns of one side on one file. Squares are scanned in index order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum SetupError {
    /// The side has no king (accepted only by [`Position::from_setup_relaxed`]).
    MissingKing(Color),
    /// The side has more than one king.
    TooManyKings(Color),
    /// One hand holds more pieces of a kind than the whole set has.
    HandOverflow {
        /// Whose hand.
        color: Color,
        /// The hand kind.
        kind: PieceKind,
        /// How many it holds.
        count: u8,
    },
    /// Board and hands together hold more pieces of a kind than the set has.
    TooManyPieces {
        /// The unpromoted kind (promoted pieces are counted with it).
        kind: PieceKind,
        /// How many there are.
        count: u32,
    },
    /// A pawn or lance on its last rank, or a knight on its last two ranks, unpromoted.
    DeadPiece {
        /// Where.
        square: Square,
        /// Which piece.
        piece: Piece,
    },
    /// Two unpromoted pawns of one side on one file (二歩).
    DoubledPawns {
        /// Whose pawns.
        color: Color,
        /// The file, 1..=9.
        file: u8,
    },
}

impl fmt::Display for SetupError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            SetupError::MissingKing(c) => write!(f, "{} has no king", c.name()),
            SetupError::TooManyKings(c) => write!(f, "{} has more than one king", c.name()),
            SetupError::HandOverflow { color, kind, count } => write!(
                f,
                "{} holds {count} {} in hand, more than the set has",
                color.name(),
                kind.csa()
            ),
            SetupError::TooManyPieces { kind, count } => write!(
                f,
                "{count} pieces of kind {} on board and in hand, the set has {}",
                kind.csa(),
                kind.set_count()
            ),
            SetupError::DeadPiece { square, piece } => write!(
                f,
                "{} {} on {square} can never move",
                piece.color.name(),
                piece.kind.csa()
            ),
            SetupError::DoubledPawns { color, file } => {
                write!(
                    f,
                    "{} has two unpromoted pawns on file {file}",
                    color.name()
                )
            }
        }
    }
}

impl std::error::Error for SetupError {}

impl Position {
    /// Validates a setup; refuses a side without a king or with two, and every impossible
    /// position listed in [`SetupError`].
    pub fn from_setup(setup: &Setup) -> Result<Position, SetupError> {
        validate(setup, false)?;
        Ok(Position::from_setup_unvalidated(setup))
    }

    /// Like [`Position::from_setup`] but accepts a side without a king, as tsume (詰将棋)
    /// problems have (only the defender's king is on the board). Two kings for one side and
    /// every other impossibility are still refused.
    ///
    /// A side without a king is never in check, so none of its moves is a self-check and it
    /// can never be checkmated; pawn drops against it are never uchifuzume.
    pub fn from_setup_relaxed(setup: &Setup) -> Result<Position, SetupError> {
        validate(setup, true)?;
        Ok(Position::from_setup_unvalidated(setup))
    }

    /// Builds a position from any setup the engine can represent, however impossible: it
    /// refuses only two kings for one side ([`SetupError::TooManyKings`]) and a hand holding
    /// more of a kind than the set ([`SetupError::HandOverflow`]). Dead pieces, doubled pawns,
    /// missing kings and surplus pieces are accepted.
    ///
    /// For replaying records whose start position is impossible (reported once as
    /// `bad-position`) so that their moves can still be checked and converted. Rules are
    /// applied to the moves as usual; a rule about the start position itself (a doubled pawn
    /// already there) is not re-reported by the moves.
    pub fn from_setup_lenient(setup: &Setup) -> Result<Position, SetupError> {
        for c in Color::ALL {
            let kings = setup
                .board
                .iter()
                .flatten()
                .filter(|p| p.color == c && p.kind == PieceKind::King)
                .count();
            if kings > 1 {
                return Err(SetupError::TooManyKings(c));
            }
            let h = setup.hands.get(c);
            for k in PieceKind::HAND {
                if h.count(k) > k.set_count() {
                    return Err(SetupError::HandOverflow {
                        color: c,
                        kind: k,
                        count: h.count(k),
                    });
                }
            }
        }
        Ok(Position::from_setup_unvalidated(setup))
    }

    /// The position as an unvalidated setup.
    pub fn to_setup(&self) -> Setup {
        Setup {
            board: self.board,
            hands: ByColor {
                black: self.hands[0],
                white: self.hands[1],
            },
            turn: self.turn,
            move_number: self.move_number,
        }
    }
}

/// Checks a setup for [`Position::from_setup`] and [`Position::from_setup_relaxed`].
fn validate(setup: &Setup, allow_missing_king: bool) -> Result<(), SetupError> {
    // Kings.
    for c in Color::ALL {
        let n = setup
            .board
            .iter()
            .flatten()
            .filter(|p| p.color == c && p.kind == PieceKind::King)
            .count();
        if n > 1 {
            return Err(SetupError::TooManyKings(c));
        }
        if n == 0 && !allow_missing_king {
            return Err(SetupError::MissingKing(c));
        }
    }
    // Hands.
    for c in Color::ALL {
        let h = setup.hands.get(c);
        for k in PieceKind::HAND {
            let n = h.count(k);
            if n > k.set_count() {
                return Err(SetupError::HandOverflow {
                    color: c,
                    kind: k,
                    count: n,
                });
            }
        }
    }
    // Totals.
    let mut totals = [0u32; 8];
    for p in setup.board.iter().flatten() {
        totals[p.kind.unpromote().index()] += 1;
    }
    for c in Color::ALL {
        for k in PieceKind::HAND {
            totals[k.index()] += u32::from(setup.hands.get(c).count(k));
        }
    }
    for k in [
        PieceKind::Pawn,
        PieceKind::Lance,
        PieceKind::Knight,
        PieceKind::Silver,
        PieceKind::Gold,
        PieceKind::Bishop,
        PieceKind::Rook,
        PieceKind::King,
    ] {
        let n = totals[k.index()];
        if n > u32::from(k.set_count()) {
            return Err(SetupError::TooManyPieces { kind: k, count: n });
        }
    }
    // Dead pieces.
    for sq in Square::all() {
        if let Some(p) = setup.piece_at(sq)
            && is_dead_square(p.color, p.kind, sq)
        {
            return Err(SetupError::DeadPiece {
                square: sq,
                piece: p,
            });
        }
    }
    // Doubled pawns.
    for c in Color::ALL {
        for file in 1..=9u8 {
            let n = (1..=9u8)
                .filter_map(|r| Square::new(file, r))
                .filter(|&sq| setup.piece_at(sq) == Some(Piece::new(c, PieceKind::Pawn)))
                .count();
            if n > 1 {
                return Err(SetupError::DoubledPawns { color: c, file });
            }
        }
    }
    Ok(())
}
