//! The lenient board every writer follows a line on ([`LenientBoard`]): what a written move
//! needs to know about the position (the piece that moved, what it captured, which other
//! pieces could have gone to the same square), without judging legality. Writers must be able
//! to write illegal records too, so this applies any move whose source holds a piece and never
//! refuses a move that can be applied at all; a writer that must stop where the rules core
//! could not carry a move out (KI2) asks [`LenientBoard::playable`] first. Not the rules
//! replay of `validate` (`validate/replay.rs`), which judges every move.
//!
//! Formats layer: uses `core` and `record`, nothing above.

use crate::core::bitboard::Bitboard;
use crate::core::bitboard::{between, pseudo_attacks};
use crate::core::{Color, Illegal, Move, Piece, PieceKind, Position, Setup, SetupError, Square};
use crate::record::{MoveNode, MoveText, NamedPiece, NodeKind, Source, StartPosition};

/// A board and hands, with the side to move, that follows moves without judging them.
#[derive(Debug, Clone)]
pub(crate) struct LenientBoard {
    setup: Setup,
    /// The squares of each side's pieces of each kind, `[color][kind]`, kept with `setup`
    /// (`movers_to` looks only where such pieces stand).
    squares: [[Bitboard; 14]; 2],
}

/// What applying a move found.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Applied {
    /// The side that moved.
    pub color: Color,
    /// The kind of the piece before the move (the dropped kind for drops).
    pub before: PieceKind,
    /// The kind after the move.
    pub after: PieceKind,
    /// The kind captured, as it stood on the board (promoted kinds kept).
    pub captured: Option<PieceKind>,
}

impl LenientBoard {
    /// The start position of a record.
    pub fn new(start: &StartPosition) -> LenientBoard {
        LenientBoard::from_setup(start.to_setup())
    }

    /// A board holding `setup`.
    pub fn from_setup(setup: Setup) -> LenientBoard {
        let mut squares = [[Bitboard::EMPTY; 14]; 2];
        for sq in Square::all() {
            if let Some(p) = setup.piece_at(sq)
                && let Some(set) = squares
                    .get_mut(p.color.index())
                    .and_then(|s| s.get_mut(p.kind.index()))
            {
                set.toggle(sq);
            }
        }
        LenientBoard { setup, squares }
    }

    /// Puts `piece` (or nothing) on `sq`, keeping `squares`.
    fn set(&mut self, sq: Square, piece: Option<Piece>) {
        for p in [self.setup.piece_at(sq), piece].into_iter().flatten() {
            if let Some(set) = self
                .squares
                .get_mut(p.color.index())
                .and_then(|s| s.get_mut(p.kind.index()))
            {
                set.toggle(sq);
            }
        }
        self.setup.set_piece(sq, piece);
    }

    /// The position as a setup.
    pub fn setup(&self) -> &Setup {
        &self.setup
    }

    /// The side to move.
    pub fn turn(&self) -> Color {
        self.setup.turn
    }

    /// The piece on a square.
    pub fn piece_at(&self, sq: Square) -> Option<Piece> {
        self.setup.piece_at(sq)
    }

    /// The kind that `mv` moves: the piece on its source square, or the dropped kind.
    pub fn moving_kind(&self, mv: Move) -> Option<PieceKind> {
        match mv {
            Move::Normal { from, .. } => self.piece_at(from).map(|p| p.kind),
            Move::Drop { kind, .. } => Some(kind),
        }
    }

    /// The move a node denotes: its resolved move, else what its text says when the text
    /// names the source (CSA, KIF, JKF). `None` for specials and unresolved KI2 text.
    pub fn move_of(&self, node: &MoveNode) -> Option<Move> {
        let NodeKind::Move { text, resolved } = &node.kind else {
            return None;
        };
        if let Some(m) = resolved {
            return Some(*m);
        }
        self.move_from_text(text)
    }

    /// The move a text denotes when it names its source.
    pub fn move_from_text(&self, text: &MoveText) -> Option<Move> {
        let on = text.from.square().and_then(|sq| self.piece_at(sq));
        stated_move(text, on.map(|p| p.kind))
    }

    /// Applies a move for `color` (the side to move when `None`). Returns `None`, changing
    /// nothing, when the source square is empty (or the drop's kind cannot be dropped).
    pub fn apply(&mut self, mv: Move, color: Option<Color>) -> Option<Applied> {
        match mv {
            Move::Normal { from, to, promote } => {
                let piece = self.setup.piece_at(from)?;
                // A move that does not say its side is the side to move's, as validate
                // takes it, even when the piece is the other side's (a foul).
                let color = color.unwrap_or(self.setup.turn);
                let before = piece.kind;
                let after = if promote {
                    before.promote().unwrap_or(before)
                } else {
                    before
                };
                let captured = self.setup.piece_at(to).map(|p| p.kind);
                if let Some(c) = captured {
                    self.setup.hands.get_mut(color).add(c);
                }
                self.set(from, None);
                self.set(to, Some(Piece::new(color, after)));
                self.setup.turn = color.flip();
                Some(Applied {
                    color,
                    before,
                    after,
                    captured,
                })
            }
            Move::Drop { kind, to } => {
                if !kind.is_hand_kind() {
                    return None;
                }
                let color = color.unwrap_or(self.setup.turn);
                let _ = self.setup.hands.get_mut(color).remove(kind);
                self.set(to, Some(Piece::new(color, kind)));
                self.setup.turn = color.flip();
                Some(Applied {
                    color,
                    before: kind,
                    after: kind,
                    captured: None,
                })
            }
        }
    }

    /// Plays `mv` for the side to move whatever the board holds, as a line written from its
    /// text alone goes on: [`LenientBoard::apply`], and for a move it refuses, a move from an
    /// empty square still empties its destination (what stood there is captured) and a drop
    /// of a kind no hand holds still puts the piece down; the turn passes either way. The KIF
    /// writer follows its lines so (it writes the piece the record names).
    pub fn force(&mut self, mv: Move) {
        if self.apply(mv, None).is_some() {
            return;
        }
        let turn = self.setup.turn;
        match mv {
            Move::Normal { to, .. } => {
                if let Some(c) = self.setup.piece_at(to) {
                    self.setup.hands.get_mut(turn).add(c.kind);
                }
                self.set(to, None);
            }
            Move::Drop { kind, to } => self.set(to, Some(Piece::new(turn, kind))),
        }
        self.setup.turn = turn.flip();
    }

    /// Whether the rules core could carry `mv` out for the side to move (as
    /// `Position::play_unchecked` would): `Err` with the first reason it could not (no piece
    /// of the side to move, unreachable, blocked, a capture of its own piece, a drop onto an
    /// occupied square or of a piece not in hand). The rules that do not stop a move from
    /// being carried out (nifu, dead piece, self-check...) are not looked at.
    pub fn playable(&self, mv: Move) -> Result<(), Illegal> {
        let us = self.setup.turn;
        match mv {
            Move::Normal { from, to, .. } => {
                let pc = match self.setup.piece_at(from) {
                    Some(p) if p.color == us => p,
                    _ => return Err(Illegal::NoPiece),
                };
                if !pseudo_attacks(us, pc.kind, from).contains(to) {
                    return Err(Illegal::Unreachable);
                }
                if pc.kind.is_ranging()
                    && between(from, to)
                        .into_iter()
                        .any(|sq| self.setup.piece_at(sq).is_some())
                {
                    return Err(Illegal::Blocked);
                }
                if self.setup.piece_at(to).is_some_and(|p| p.color == us) {
                    return Err(Illegal::CaptureOwn);
                }
                Ok(())
            }
            Move::Drop { kind, to } => {
                if self.setup.piece_at(to).is_some() {
                    return Err(Illegal::DropOccupied);
                }
                let base = kind.unpromote();
                if !base.is_hand_kind() || self.setup.hands.get(us).count(base) == 0 {
                    return Err(Illegal::NotInHand);
                }
                Ok(())
            }
        }
    }

    /// Whether the rules core takes the board as a start position at all
    /// (`Position::from_setup_lenient`: one king at most per side, hands within the set).
    pub fn check_start(&self) -> Result<(), SetupError> {
        Position::from_setup_lenient(&self.setup).map(|_| ())
    }

    /// Passes the turn (after a special, for instance).
    #[allow(dead_code)]
    pub fn set_turn(&mut self, c: Color) {
        self.setup.turn = c;
    }

    /// Squares of `color`'s pieces of `kind` whose movement reaches `to` without jumping
    /// (pins ignored).
    pub fn movers_to(&self, to: Square, color: Color, kind: PieceKind) -> Vec<Square> {
        let set = self
            .squares
            .get(color.index())
            .and_then(|s| s.get(kind.index()))
            .copied()
            .unwrap_or(Bitboard::EMPTY);
        // In square order, as a walk over the board finds them.
        set.into_iter()
            .filter(|&from| from != to && self.reaches(from, to, color, kind))
            .collect()
    }

    fn reaches(&self, from: Square, to: Square, color: Color, kind: PieceKind) -> bool {
        use PieceKind::*;
        // Offsets from the mover's point of view: dy < 0 is forward.
        let fwd: i8 = if color == Color::Black { -1 } else { 1 };
        let dx = to.file() as i8 - from.file() as i8;
        let dy = (to.rank() as i8 - from.rank() as i8) * fwd; // > 0: forward
        let gold = |dx: i8, dy: i8| {
            (dx.abs() <= 1 && dy == 1) || (dx.abs() == 1 && dy == 0) || (dx == 0 && dy == -1)
        };
        let king = |dx: i8, dy: i8| dx.abs() <= 1 && dy.abs() <= 1 && (dx, dy) != (0, 0);
        match kind {
            Pawn => dx == 0 && dy == 1,
            Knight => dx.abs() == 1 && dy == 2,
            Silver => (dx.abs() == 1 && dy.abs() == 1) || (dx == 0 && dy == 1),
            Gold | ProPawn | ProLance | ProKnight | ProSilver => gold(dx, dy),
            King => king(dx, dy),
            Lance => dx == 0 && dy > 0 && self.clear(from, to),
            Rook => (dx == 0 || dy == 0) && self.clear(from, to),
            Bishop => dx.abs() == dy.abs() && self.clear(from, to),
            Dragon => king(dx, dy) || ((dx == 0 || dy == 0) && self.clear(from, to)),
            Horse => king(dx, dy) || (dx.abs() == dy.abs() && self.clear(from, to)),
        }
    }

    /// Whether the squares strictly between `from` and `to` (on a line) are empty.
    fn clear(&self, from: Square, to: Square) -> bool {
        let df = (to.file() as i8 - from.file() as i8).signum();
        let dr = (to.rank() as i8 - from.rank() as i8).signum();
        let (mut f, mut r) = (from.file() as i8 + df, from.rank() as i8 + dr);
        while (f, r) != (to.file() as i8, to.rank() as i8) {
            let Some(sq) = Square::new(f as u8, r as u8) else {
                return false;
            };
            if self.setup.piece_at(sq).is_some() {
                return false;
            }
            f += df;
            r += dr;
        }
        true
    }
}

/// The kind a move text names for the piece before it moves: KIF, KI2 and JKF name that
/// piece; CSA names the piece after the move, so a promoted name on a promotion stands for its
/// unpromoted form. `None` when the text names no piece (USI). In a resolved move this is
/// the piece on the source square; in a foul (`piece-mismatch`) it is not, and a writer that
/// names pieces writes the name the record gave, so the foul reads back as it was.
pub(crate) fn named_before(text: &MoveText, mv: Move) -> Option<PieceKind> {
    Some(match text.piece? {
        NamedPiece::Before(k) => k,
        NamedPiece::After(k) if mv.is_promotion() => k.unpromote(),
        NamedPiece::After(k) => k,
    })
}

/// The kind a move text names for the piece after it moves (what CSA writes): the named
/// piece, promoted when the move promotes and it can.
pub(crate) fn named_after(text: &MoveText, mv: Move) -> Option<PieceKind> {
    Some(match text.piece? {
        NamedPiece::After(k) => k,
        NamedPiece::Before(k) if mv.is_promotion() => k.promote().unwrap_or(k),
        NamedPiece::Before(k) => k,
    })
}

/// Whether a CSA move naming `after` for the piece `on` its source square reads as that
/// piece's own move (not a `piece-mismatch`): the same kind, or its promotion.
pub(crate) fn csa_name_fits(after: PieceKind, on: PieceKind) -> bool {
    after == on || on.promote() == Some(after)
}

/// The move a text states when it names its source (a square, or a drop of a named piece),
/// whether or not it can be played; `on` is the kind on the source square. A CSA text names
/// the piece after the move: it promotes when it names the promoted form of an unpromoted
/// piece there. `None` for a KI2 text (no source).
pub(crate) fn stated_move(text: &MoveText, on: Option<PieceKind>) -> Option<Move> {
    match text.from {
        Source::Square(from) => {
            let promote = match (text.promote, text.piece) {
                (Some(p), _) => p,
                (None, Some(NamedPiece::After(k))) => {
                    on.is_some_and(|b| !b.is_promoted() && k.is_promoted())
                }
                (None, _) => false,
            };
            Some(Move::Normal {
                from,
                to: text.to,
                promote,
            })
        }
        Source::Drop => {
            let kind = match text.piece? {
                NamedPiece::After(k) | NamedPiece::Before(k) => k,
            };
            Some(Move::Drop { kind, to: text.to })
        }
        Source::Unknown => None,
    }
}
