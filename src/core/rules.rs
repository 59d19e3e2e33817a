//! Move legality: [`Illegal`], [`Position::check_move`], [`Position::play`] and
//! [`Position::play_unchecked`].

use std::fmt;

use super::bitboard::{self, Bitboard};
use super::position::is_dead_square;
use super::{Color, Move, PieceKind, Position, Square};

/// Why a move is illegal. `as_str` gives the diagnostic code of the command-line contract.
///
/// When a move breaks several rules, [`Position::check_move`] reports the first in this
/// fixed order:
///
/// * board moves: `NoPiece` > `Unreachable` > `Blocked` > `CaptureOwn` > `BadPromotion` >
///   `DeadPiece` > `SelfCheck`;
/// * drops: `DropOccupied` > `NotInHand` > `BadPromotion` > `DeadPiece` > `Nifu` >
///   `SelfCheck` > `Uchifuzume`.
///
/// The reasoning: first whether the move can be carried out at all (is there a piece, can it
/// get there, is the square free), in the order one would notice while moving the piece;
/// then the rules about the piece's state after the move (promotion, then whether it could
/// move again); then the drop rule about the file; then the rules that need the resulting
/// position (own king left in check); uchifuzume comes last because it is about a move that
/// is otherwise legal and gives check. Every variant before `BadPromotion` is one that
/// [`Position::play_unchecked`] refuses ([`Illegal::is_playable`] is false): the moves it
/// can play are exactly those whose first violation is playable.
///
/// A drop of a king is `NotInHand` (no hand ever holds one); a drop of a promoted kind whose
/// base kind is in hand is `BadPromotion` ("promotes on a drop"). A board move with
/// `from == to` is `Unreachable`. Moving an opponent's piece is `NoPiece` (the square holds
/// no piece of the side to move).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Illegal {
    /// 二歩: a pawn dropped on a file that already holds an unpromoted pawn of the same side.
    Nifu,
    /// 打ち歩詰め: a pawn drop that gives immediate checkmate.
    Uchifuzume,
    /// 行き所のない駒: a pawn or lance dropped or moved without promotion to the last rank, or
    /// a knight to the last two ranks.
    DeadPiece,
    /// The move leaves or puts the mover's own king in check.
    SelfCheck,
    /// Promotion of a piece that cannot promote, outside the zone, or on a drop.
    BadPromotion,
    /// The source square holds no piece of the side to move.
    NoPiece,
    /// The piece's movement never reaches the destination.
    Unreachable,
    /// A ranging piece would have to jump over a piece.
    Blocked,
    /// The destination holds one of the mover's own pieces.
    CaptureOwn,
    /// A drop onto an occupied square.
    DropOccupied,
    /// A drop of a piece the side does not hold.
    NotInHand,
}

impl Illegal {
    /// All violations.
    pub const ALL: [Illegal; 11] = [
        Illegal::Nifu,
        Illegal::Uchifuzume,
        Illegal::DeadPiece,
        Illegal::SelfCheck,
        Illegal::BadPromotion,
        Illegal::NoPiece,
        Illegal::Unreachable,
        Illegal::Blocked,
        Illegal::CaptureOwn,
        Illegal::DropOccupied,
        Illegal::NotInHand,
    ];

    /// The diagnostic code (`nifu`, `self-check`, ...), as in the command-line contract.
    pub const fn as_str(self) -> &'static str {
        match self {
            Illegal::Nifu => "nifu",
            Illegal::Uchifuzume => "uchifuzume",
            Illegal::DeadPiece => "dead-piece",
            Illegal::SelfCheck => "self-check",
            Illegal::BadPromotion => "bad-promotion",
            Illegal::NoPiece => "no-piece",
            Illegal::Unreachable => "unreachable",
            Illegal::Blocked => "blocked",
            Illegal::CaptureOwn => "capture-own",
            Illegal::DropOccupied => "drop-occupied",
            Illegal::NotInHand => "not-in-hand",
        }
    }

    /// Whether a move with this violation can still be played by
    /// [`Position::play_unchecked`] (nifu, uchifuzume, dead-piece, self-check, bad-promotion).
    pub const fn is_playable(self) -> bool {
        matches!(
            self,
            Illegal::Nifu
                | Illegal::Uchifuzume
                | Illegal::DeadPiece
                | Illegal::SelfCheck
                | Illegal::BadPromotion
        )
    }
}

impl fmt::Display for Illegal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl std::error::Error for Illegal {}

impl Position {
    /// The first violation (in the order documented on [`Illegal`]) among those that make a
    /// move impossible to carry out; `Ok` when it can be played.
    fn check_playable(&self, mv: Move) -> Result<(), Illegal> {
        let us = self.turn;
        match mv {
            Move::Normal { from, to, .. } => {
                let pc = match self.board[from.index()] {
                    Some(p) if p.color == us => p,
                    _ => return Err(Illegal::NoPiece),
                };
                if !bitboard::pseudo_attacks(us, pc.kind, from).contains(to) {
                    return Err(Illegal::Unreachable);
                }
                // `to` is on the piece's movement: only a ranging move can be blocked, by a
                // piece strictly between (the step kinds never are).
                if pc.kind.is_ranging() && (bitboard::between(from, to) & self.occupied()).any() {
                    return Err(Illegal::Blocked);
                }
                if self.by_color[us.index()].contains(to) {
                    return Err(Illegal::CaptureOwn);
                }
                Ok(())
            }
            Move::Drop { kind, to } => {
                if self.board[to.index()].is_some() {
                    return Err(Illegal::DropOccupied);
                }
                let base = kind.unpromote();
                if !base.is_hand_kind() || self.hands[us.index()].count(base) == 0 {
                    return Err(Illegal::NotInHand);
                }
                Ok(())
            }
        }
    }

    /// The rules that need only the position before a playable move (promotion, dead piece,
    /// nifu), in the order documented on [`Illegal`].
    fn check_static(&self, mv: Move) -> Result<(), Illegal> {
        let us = self.turn;
        match mv {
            Move::Normal { from, to, promote } => {
                let kind = match self.board[from.index()] {
                    Some(p) => p.kind,
                    None => return Err(Illegal::NoPiece),
                };
                if promote && (!kind.can_promote() || !(from.in_zone(us) || to.in_zone(us))) {
                    return Err(Illegal::BadPromotion);
                }
                if !promote && is_dead_square(us, kind, to) {
                    return Err(Illegal::DeadPiece);
                }
            }
            Move::Drop { kind, to } => {
                if kind.is_promoted() {
                    return Err(Illegal::BadPromotion);
                }
                if is_dead_square(us, kind, to) {
                    return Err(Illegal::DeadPiece);
                }
                if kind == PieceKind::Pawn
                    && (self.pieces(us, PieceKind::Pawn) & Bitboard::file(to.file())).any()
                {
                    return Err(Illegal::Nifu);
                }
            }
        }
        Ok(())
    }

    /// Checks a move, legal or not: `Ok` or the first violation in the order documented on
    /// [`Illegal`].
    pub fn check_move(&self, mv: Move) -> Result<(), Illegal> {
        self.check_playable(mv)?;
        self.check_static(mv)?;
        let us = self.turn;
        if self.leaves_king_attacked(mv) {
            return Err(Illegal::SelfCheck);
        }
        if let Move::Drop {
            kind: PieceKind::Pawn,
            to,
        } = mv
        {
            // The pawn itself must give the check (the opponent may already have been in
            // check in a position reached by unchecked play).
            let gives_check = self
                .king_square(us.flip())
                .is_some_and(|k| bitboard::pawn_attacks(us, to).contains(k));
            if gives_check {
                let mut after = self.clone();
                after.do_move(mv);
                if !after.has_legal_move() {
                    return Err(Illegal::Uchifuzume);
                }
            }
        }
        Ok(())
    }

    /// Whether the mover's king would be attacked after a playable move (false when the
    /// mover has no king). Works on occupancy only, without making the move.
    fn leaves_king_attacked(&self, mv: Move) -> bool {
        let us = self.turn;
        let them = us.flip();
        let Some(ksq) = self.king_square(us) else {
            return false;
        };
        match mv {
            Move::Normal { from, to, .. } => {
                let occ = self.occupied().without(from).with(to);
                let king = if from == ksq { to } else { ksq };
                // A piece captured on `to` no longer attacks.
                (self.attackers_to(king, them, occ) & !Bitboard::from_square(to)).any()
            }
            Move::Drop { to, .. } => {
                let occ = self.occupied().with(to);
                self.attackers_to(ksq, them, occ).any()
            }
        }
    }

    /// Whether a piece leaving `from` opens the line from the side to move's king `k` to an
    /// opponent's ranging piece standing on it (the only way a move other than a king's can
    /// expose a king not in check; the full attack test decides).
    #[inline]
    fn leaves_line_to_ranger(&self, k: Square, from: Square) -> bool {
        let them = self.by_color[self.turn.flip().index()];
        (bitboard::line(k, from) & them & self.rangers()).any()
    }

    /// Plays `mv` if it is legal and says whether it was: the quick way for a replay that
    /// only needs to know, not which rule a move breaks (the
    /// quick way of [`validate`](crate::validate)'s judge, which looks into the move at the
    /// first `false`).
    ///
    /// The caller must know that the side not to move is not in check, as in every position
    /// reached from a legal start by legal moves (the checkers of the new position are found
    /// from the move alone: the moved piece, and ranging pieces behind the square it left;
    /// from any other position the checkers it leaves may be wrong). After `false` the
    /// position is unchanged. `tests/library/core_props.rs` checks it against [`Position::check_move`]
    /// and [`Position::play`] over every move of random positions.
    #[inline]
    pub fn play_if_legal(&mut self, mv: Move) -> bool {
        let us = self.turn;
        let them = us.flip();
        let occ = self.occupied();
        match mv {
            Move::Normal { from, to, promote } => {
                let Some(pc) = self.board[from.index()].filter(|p| p.color == us) else {
                    return false;
                };
                if !bitboard::pseudo_attacks(us, pc.kind, from).contains(to)
                    || (pc.kind.is_ranging() && (bitboard::between(from, to) & occ).any())
                    || self.by_color[us.index()].contains(to)
                {
                    return false;
                }
                let kind = if promote {
                    match pc.kind.promote() {
                        Some(k) if from.in_zone(us) || to.in_zone(us) => k,
                        _ => return false,
                    }
                } else if is_dead_square(us, pc.kind, to) {
                    return false;
                } else {
                    pc.kind
                };
                // The own king: a king move must not land on an attacked square; any other
                // move only matters in check, or when the piece leaves a line through the
                // king held by an opponent's ranging piece.
                if let Some(k) = self.kings[us.index()] {
                    let at_risk =
                        from == k || self.checkers.any() || self.leaves_line_to_ranger(k, from);
                    if at_risk && self.leaves_king_attacked(mv) {
                        return false;
                    }
                }
                // Before the move no piece of ours attacked their king; after it the moved
                // piece may, and a ranging piece may see it through the square just left.
                // Found before the board changes (reading it straight after the update is
                // slow): the pieces other than the mover are where they will be.
                let after = occ.without(from).with(to);
                let mut checkers = Bitboard::EMPTY;
                if let Some(k) = self.kings[them.index()].filter(|&k| k != to) {
                    if attacks_on_line(us, kind, to, k, after) {
                        checkers = Bitboard::from_square(to);
                    }
                    let others = self.by_color[us.index()].without(from);
                    if (bitboard::line(k, from) & others & self.rangers()).any() {
                        checkers |= self.slider_attackers(k, us, after).without(from);
                    }
                }
                self.move_board_piece(from, to, pc.kind, kind);
                self.checkers = checkers;
                true
            }
            Move::Drop { kind, to } => {
                if self.board[to.index()].is_some()
                    || !kind.is_hand_kind()
                    || self.hands[us.index()].count(kind) == 0
                    || is_dead_square(us, kind, to)
                {
                    return false;
                }
                let pawn = kind == PieceKind::Pawn;
                if pawn && (self.pieces(us, PieceKind::Pawn) & Bitboard::file(to.file())).any() {
                    return false;
                }
                // In check, the drop must block it.
                if self.checkers.any() && self.leaves_king_attacked(mv) {
                    return false;
                }
                let after = occ.with(to);
                let gives_check = self.kings[them.index()]
                    .is_some_and(|k| attacks_on_line(us, kind, to, k, after));
                if pawn && gives_check {
                    // Uchifuzume: decided on a copy, so that `false` leaves this position.
                    let mut next = self.clone();
                    next.do_move(mv);
                    if !next.has_legal_move() {
                        return false;
                    }
                    *self = next;
                    return true;
                }
                self.move_pieces(mv);
                self.checkers = if gives_check {
                    Bitboard::from_square(to)
                } else {
                    Bitboard::EMPTY
                };
                true
            }
        }
    }

    /// Whether a move is legal.
    #[inline]
    pub fn is_legal(&self, mv: Move) -> bool {
        self.check_move(mv).is_ok()
    }

    /// Checks a move and plays it if it is legal; returns the captured kind (as it stood on
    /// the board, possibly promoted). On error the position is unchanged.
    pub fn play(&mut self, mv: Move) -> Result<Option<PieceKind>, Illegal> {
        self.check_move(mv)?;
        Ok(self.do_move(mv))
    }

    /// Plays a move without the rules that do not stop it from being carried out: a move
    /// that breaks only nifu, uchifuzume, dead-piece, self-check or bad-promotion is played
    /// (a "promotion" of a piece that cannot promote leaves it as it is; a drop of a promoted
    /// kind takes its base kind from hand and puts the promoted piece down). A move that
    /// cannot be carried out (no-piece, unreachable, blocked, capture-own, drop-occupied,
    /// not-in-hand) is refused with that violation and the position is unchanged.
    /// Returns the captured kind. Never panics, whatever the move.
    pub fn play_unchecked(&mut self, mv: Move) -> Result<Option<PieceKind>, Illegal> {
        self.check_playable(mv)?;
        Ok(self.do_move(mv))
    }

    /// [`Position::check_move`] and then [`Position::play_unchecked`] in one pass, without
    /// copying the position: a move that cannot be carried out is refused with its violation
    /// (the position is unchanged); any other move is played, and the result holds the
    /// captured kind and the first rule the move breaks (as `check_move` would report it), if
    /// any.
    pub fn play_checked(
        &mut self,
        mv: Move,
    ) -> Result<(Option<PieceKind>, Option<Illegal>), Illegal> {
        self.check_playable(mv)?;
        let us = self.turn;
        let mut foul = self.check_static(mv).err();
        // Only a pawn drop that itself gives check can be uchifuzume.
        let pawn_check = match mv {
            Move::Drop {
                kind: PieceKind::Pawn,
                to,
            } => self
                .king_square(us.flip())
                .is_some_and(|k| bitboard::pawn_attacks(us, to).contains(k)),
            _ => false,
        };
        // Without a check to answer, only a king move or a piece leaving a line through
        // its own king can leave the king attacked: every other move skips the attack test.
        let exposed = match (mv, self.kings[us.index()]) {
            (_, None) => false,
            _ if self.checkers.any() => true,
            (Move::Normal { from, .. }, Some(k)) => {
                // A piece leaving the line through its king exposes it only to an opponent's
                // ranging piece on that line (the full test below decides).
                from == k || self.leaves_line_to_ranger(k, from)
            }
            (Move::Drop { .. }, Some(_)) => false,
        };
        let captured = self.do_move(mv);
        if foul.is_none() {
            if exposed && self.king_attacked(us) {
                foul = Some(Illegal::SelfCheck);
            } else if pawn_check && !self.has_legal_move() {
                foul = Some(Illegal::Uchifuzume);
            }
        }
        Ok((captured, foul))
    }
}

/// Whether a piece of `c` and `kind` on `from` attacks `target` given occupancy `occ` (its
/// movement reaches it and, for a ranging move, nothing stands between).
#[inline]
fn attacks_on_line(c: Color, kind: PieceKind, from: Square, target: Square, occ: Bitboard) -> bool {
    bitboard::pseudo_attacks(c, kind, from).contains(target)
        && (bitboard::between(from, target) & occ).is_empty()
}
