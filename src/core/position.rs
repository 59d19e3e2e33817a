//! A validated, playable position: board, hands, side to move, move number and an
//! incremental Zobrist key.
//!
//! This file keeps the state, the queries on it (pieces, attacks, checkers, pins) and the
//! primitive operations that change it. A [`Position`] is built from an unvalidated [`Setup`]
//! by [`Position::from_setup`] and its relatives, which live beside `Setup` in `setup.rs` with
//! the checks they make ([`SetupError`](super::SetupError)). The rules (which moves are legal
//! and why a move is not) live in `rules.rs` and `movegen.rs`.

use std::fmt;

use super::bitboard::{self, Bitboard};
use super::zobrist::{KEYS, hand_key};
use super::{Color, Hand, Piece, PieceKind, Setup, Square};

/// A legal, playable shogi position.
///
/// Invariants (established by `from_setup`, kept by every move): the bitboards, the board
/// array, the king squares and the Zobrist key agree; each side has at most one king (exactly
/// one unless built with [`Position::from_setup_relaxed`] or a king was captured by an
/// unchecked play). Methods never panic, whatever the position or move.
#[derive(Clone, PartialEq, Eq)]
pub struct Position {
    pub(super) board: [Option<Piece>; 81],
    pub(super) by_color: [Bitboard; 2],
    pub(super) by_kind: [Bitboard; 14],
    pub(super) hands: [Hand; 2],
    pub(super) turn: Color,
    pub(super) move_number: u32,
    pub(super) key: u64,
    pub(super) kings: [Option<Square>; 2],
    /// The opponent pieces giving check to the side to move (kept by every move: the
    /// validator asks after every ply, move generation at every node).
    pub(super) checkers: Bitboard,
}

impl fmt::Debug for Position {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Position({})", self.to_sfen())
    }
}

impl std::hash::Hash for Position {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.key.hash(state);
    }
}

impl Default for Position {
    fn default() -> Self {
        Position::startpos()
    }
}

/// Whether an unpromoted piece of `kind` and colour `c` on `sq` could never move again.
#[inline]
pub(super) fn is_dead_square(c: Color, kind: PieceKind, sq: Square) -> bool {
    match kind {
        PieceKind::Pawn | PieceKind::Lance => sq.relative_rank(c) <= 1,
        PieceKind::Knight => sq.relative_rank(c) <= 2,
        _ => false,
    }
}

impl Position {
    /// The even-game start position.
    pub fn startpos() -> Position {
        Position::from_setup_unvalidated(&Setup::startpos())
    }

    /// The position a setup describes, unchecked (the checks are `Position::from_setup`'s).
    pub(super) fn from_setup_unvalidated(setup: &Setup) -> Position {
        let mut p = Position {
            board: [None; 81],
            by_color: [Bitboard::EMPTY; 2],
            by_kind: [Bitboard::EMPTY; 14],
            hands: [setup.hands.black, setup.hands.white],
            turn: setup.turn,
            move_number: setup.move_number,
            key: 0,
            kings: [None; 2],
            checkers: Bitboard::EMPTY,
        };
        for sq in Square::all() {
            if let Some(pc) = setup.piece_at(sq) {
                p.put(sq, pc);
            }
        }
        for c in Color::ALL {
            for k in PieceKind::HAND {
                p.key ^= hand_key(c.index(), k.index(), p.hands[c.index()].count(k));
            }
        }
        if p.turn == Color::White {
            p.key ^= KEYS.side;
        }
        p.checkers = p.find_checkers();
        p
    }

    /// Side to move.
    #[inline]
    pub fn turn(&self) -> Color {
        self.turn
    }

    /// The move number of the next move (the SFEN move number; 1 in a fresh position). It
    /// goes up by one with every move played.
    #[inline]
    pub fn move_number(&self) -> u32 {
        self.move_number
    }

    /// The piece on a square.
    #[inline]
    pub fn piece_at(&self, sq: Square) -> Option<Piece> {
        self.board[sq.index()]
    }

    /// The whole board by [`Square::index`] (file 1's nine squares from rank 1 down, then
    /// file 2's, and so on).
    #[inline]
    pub fn board(&self) -> &[Option<Piece>; 81] {
        &self.board
    }

    /// A side's hand.
    #[inline]
    pub fn hand(&self, c: Color) -> Hand {
        self.hands[c.index()]
    }

    /// The Zobrist key of board, hands and side to move (not the move number).
    #[inline]
    pub fn key(&self) -> u64 {
        self.key
    }

    /// The Zobrist key of the board alone: [`Position::key`] without the hands and the side
    /// to move (fourteen lookups taken out of the incremental key). Two positions with the
    /// same pieces on the same squares have the same board key, whatever they hold in hand.
    pub fn board_key(&self) -> u64 {
        self.key ^ self.hands_key() ^ self.side_key()
    }

    /// [`Position::key`] without the hands (board and side to move).
    pub fn key_without_hands(&self) -> u64 {
        self.key ^ self.hands_key()
    }

    /// [`Position::key`] without the side to move: the same board and hands with either side
    /// to move have the same key.
    pub fn key_any_side(&self) -> u64 {
        self.key ^ self.side_key()
    }

    /// The hands' share of the key.
    fn hands_key(&self) -> u64 {
        let mut k = 0;
        for c in Color::ALL {
            for kind in PieceKind::HAND {
                k ^= hand_key(c.index(), kind.index(), self.hands[c.index()].count(kind));
            }
        }
        k
    }

    /// The side to move's share of the key.
    fn side_key(&self) -> u64 {
        if self.turn == Color::White {
            KEYS.side
        } else {
            0
        }
    }

    /// The Zobrist key computed from scratch (for tests of the incremental key).
    pub fn key_from_scratch(&self) -> u64 {
        Position::from_setup_unvalidated(&self.to_setup()).key
    }

    /// The checkers worked out again from the board, for tests of the invariant that
    /// [`Position::checkers`] keeps.
    #[doc(hidden)]
    pub fn checkers_from_scratch(&self) -> Bitboard {
        self.find_checkers()
    }

    /// The square of a side's king, if it has one.
    #[inline]
    pub fn king_square(&self, c: Color) -> Option<Square> {
        self.kings[c.index()]
    }

    /// All occupied squares.
    #[inline]
    pub fn occupied(&self) -> Bitboard {
        self.by_color[0] | self.by_color[1]
    }

    /// The squares of a side's pieces.
    #[inline]
    pub fn pieces_of(&self, c: Color) -> Bitboard {
        self.by_color[c.index()]
    }

    /// The squares of a side's pieces of one kind.
    #[inline]
    pub fn pieces(&self, c: Color, kind: PieceKind) -> Bitboard {
        self.by_color[c.index()] & self.by_kind[kind.index()]
    }

    /// Puts a piece on an empty square, updating bitboards and key.
    #[inline]
    pub(super) fn put(&mut self, sq: Square, pc: Piece) {
        self.board[sq.index()] = Some(pc);
        self.by_color[pc.color.index()].toggle(sq);
        self.by_kind[pc.kind.index()].toggle(sq);
        self.key ^= KEYS.board[pc.color.index()][pc.kind.index()][sq.index()];
        if pc.kind == PieceKind::King {
            self.kings[pc.color.index()] = Some(sq);
        }
    }

    /// Removes the piece on a square (if any), updating bitboards and key.
    #[inline]
    pub(super) fn remove(&mut self, sq: Square) -> Option<Piece> {
        let pc = self.board[sq.index()].take()?;
        self.by_color[pc.color.index()].toggle(sq);
        self.by_kind[pc.kind.index()].toggle(sq);
        self.key ^= KEYS.board[pc.color.index()][pc.kind.index()][sq.index()];
        if pc.kind == PieceKind::King && self.kings[pc.color.index()] == Some(sq) {
            self.kings[pc.color.index()] = None;
        }
        Some(pc)
    }

    #[inline]
    pub(super) fn hand_add(&mut self, c: Color, kind: PieceKind) {
        let k = kind.unpromote();
        if !k.is_hand_kind() {
            return;
        }
        let h = &mut self.hands[c.index()];
        let n = h.count(k);
        if usize::from(n) >= super::zobrist::HAND_MAX {
            // Cannot happen in a validated position (the set has 18 pawns); refuse silently
            // rather than break the key.
            return;
        }
        self.key ^= hand_key(c.index(), k.index(), n) ^ hand_key(c.index(), k.index(), n + 1);
        h.add(k);
    }

    #[inline]
    pub(super) fn hand_remove(&mut self, c: Color, kind: PieceKind) -> bool {
        let k = kind.unpromote();
        let h = &mut self.hands[c.index()];
        let n = h.count(k);
        if !h.remove(k) {
            return false;
        }
        self.key ^= hand_key(c.index(), k.index(), n) ^ hand_key(c.index(), k.index(), n - 1);
        true
    }

    /// Squares holding pieces of `c` that attack `sq`, given occupancy `occ`.
    #[inline]
    pub fn attackers_to(&self, sq: Square, c: Color, occ: Bitboard) -> Bitboard {
        use PieceKind::*;
        let them = c.flip();
        let mine = self.by_color[c.index()];
        let bb = |k: PieceKind| self.by_kind[k.index()];
        // A step attack comes from a neighbouring square or a knight's square: when none
        // holds a piece of `c` (the usual case for a king), skip the five step tests.
        let near = bitboard::king_attacks(sq) | bitboard::knight_attacks(them, sq);
        let mut att = Bitboard::EMPTY;
        if (near & mine).any() {
            let golds = bb(Gold) | bb(ProPawn) | bb(ProLance) | bb(ProKnight) | bb(ProSilver);
            let kings = bb(King) | bb(Horse) | bb(Dragon);
            att = (bitboard::pawn_attacks(them, sq) & bb(Pawn))
                | (bitboard::knight_attacks(them, sq) & bb(Knight))
                | (bitboard::silver_attacks(them, sq) & bb(Silver))
                | (bitboard::gold_attacks(them, sq) & golds)
                | (bitboard::king_attacks(sq) & kings);
        }
        (att & mine) | self.slider_attackers(sq, c, occ)
    }

    /// The squares of all ranging pieces (lances, bishops, rooks, horses, dragons), both
    /// sides.
    #[inline]
    pub(super) fn rangers(&self) -> Bitboard {
        use PieceKind::*;
        self.by_kind[Lance.index()]
            | self.by_kind[Bishop.index()]
            | self.by_kind[Rook.index()]
            | self.by_kind[Horse.index()]
            | self.by_kind[Dragon.index()]
    }

    /// Squares holding ranging pieces of `c` that attack `sq` along a line, given `occ` (the
    /// ranging part of [`Position::attackers_to`]). A kind's attacks are worked out only when
    /// one of its pieces stands on a line through the square (cheap table tests).
    #[inline]
    pub(super) fn slider_attackers(&self, sq: Square, c: Color, occ: Bitboard) -> Bitboard {
        use PieceKind::*;
        let mine = self.by_color[c.index()];
        let bb = |k: PieceKind| self.by_kind[k.index()];
        let mut att = Bitboard::EMPTY;
        let orth_lines = bitboard::rook_pseudo(sq);
        let lances = bb(Lance) & mine & orth_lines;
        if lances.any() {
            att |= bitboard::lance_attacks(c.flip(), sq, occ) & lances;
        }
        let diag = (bb(Bishop) | bb(Horse)) & mine;
        if (bitboard::bishop_pseudo(sq) & diag).any() {
            att |= bitboard::bishop_attacks(sq, occ) & diag;
        }
        let orth = (bb(Rook) | bb(Dragon)) & mine & orth_lines;
        if orth.any() {
            att |= bitboard::rook_attacks(sq, occ) & orth;
        }
        att
    }

    /// The attacking sets of side `c`, grouped by movement, for repeated attack tests.
    #[inline]
    pub(super) fn attack_sets(&self, c: Color) -> AttackSets {
        use PieceKind::*;
        let mine = self.by_color[c.index()];
        let bb = |k: PieceKind| self.by_kind[k.index()] & mine;
        AttackSets {
            color: c,
            pawns: bb(Pawn),
            knights: bb(Knight),
            silvers: bb(Silver),
            golds: bb(Gold) | bb(ProPawn) | bb(ProLance) | bb(ProKnight) | bb(ProSilver),
            kings: bb(King) | bb(Horse) | bb(Dragon),
            lances: bb(Lance),
            diag: bb(Bishop) | bb(Horse),
            orth: bb(Rook) | bb(Dragon),
        }
    }

    /// Whether a side's pieces attack a square in the current position.
    #[inline]
    pub fn is_attacked(&self, sq: Square, by: Color) -> bool {
        self.attackers_to(sq, by, self.occupied()).any()
    }

    /// The opponent pieces giving check to the side to move.
    #[inline]
    pub fn checkers(&self) -> Bitboard {
        self.checkers
    }

    /// The checkers worked out from the board (what [`Position::checkers`] keeps).
    #[inline]
    fn find_checkers(&self) -> Bitboard {
        match self.kings[self.turn.index()] {
            Some(k) => self.attackers_to(k, self.turn.flip(), self.occupied()),
            None => Bitboard::EMPTY,
        }
    }

    /// Whether the side to move is in check.
    #[inline]
    pub fn in_check(&self) -> bool {
        self.checkers.any()
    }

    /// Whether side `c`'s king is attacked (false when it has no king).
    #[inline]
    pub fn king_attacked(&self, c: Color) -> bool {
        match self.kings[c.index()] {
            Some(k) => self.is_attacked(k, c.flip()),
            None => false,
        }
    }

    /// Pieces of `c` pinned to `c`'s king by the opponent's ranging pieces, given `occ`.
    pub(super) fn pinned(&self, c: Color, occ: Bitboard) -> Bitboard {
        use PieceKind::*;
        let Some(ksq) = self.kings[c.index()] else {
            return Bitboard::EMPTY;
        };
        let them = self.by_color[c.flip().index()];
        let bb = |k: PieceKind| self.by_kind[k.index()];
        let snipers = ((bitboard::lance_attacks(c, ksq, Bitboard::EMPTY) & bb(Lance))
            | (bitboard::bishop_pseudo(ksq) & (bb(Bishop) | bb(Horse)))
            | (bitboard::rook_pseudo(ksq) & (bb(Rook) | bb(Dragon))))
            & them;
        let mut pinned = Bitboard::EMPTY;
        for s in snipers {
            let b = bitboard::between(ksq, s) & occ;
            if b.any() && !b.more_than_one() {
                pinned |= b & self.by_color[c.index()];
            }
        }
        pinned
    }

    /// Plays a move that is known to be structurally playable (the piece exists and belongs
    /// to the mover, the destination is not its own piece; for drops the hand holds the base
    /// kind and the square is empty). Returns the captured kind.
    pub(super) fn do_move(&mut self, mv: super::Move) -> Option<PieceKind> {
        let captured = self.move_pieces(mv);
        self.checkers = self.find_checkers();
        captured
    }

    /// [`Position::do_move`] without finding the checkers (the caller sets them).
    #[inline]
    pub(super) fn move_pieces(&mut self, mv: super::Move) -> Option<PieceKind> {
        let us = self.turn;
        let captured = match mv {
            super::Move::Normal { from, to, promote } => {
                let pc = self.board[from.index()]?;
                let kind = if promote {
                    pc.kind.promote().unwrap_or(pc.kind)
                } else {
                    pc.kind
                };
                if pc.color == us && from != to {
                    return self.move_board_piece(from, to, pc.kind, kind);
                }
                // Not a move of the side to move, or no move at all (never reached from the
                // checked entry points, which refuse both): piece by piece.
                self.remove(from);
                let cap = self.remove(to);
                if let Some(c) = cap {
                    self.hand_add(us, c.kind);
                }
                self.put(to, Piece::new(us, kind));
                cap.map(|c| c.kind)
            }
            super::Move::Drop { kind, to } => {
                if self.board[to.index()].is_some() || !self.hand_remove(us, kind) {
                    return None;
                }
                self.put(to, Piece::new(us, kind));
                None
            }
        };
        self.turn = us.flip();
        self.key ^= KEYS.side;
        self.move_number = self.move_number.saturating_add(1);
        captured
    }

    /// A board move of the side to move's `old` piece from `from` to `to` (another square),
    /// where it stands as `new` (promoted or not), capturing what stands there: the part of
    /// [`Position::move_pieces`] the rules check first. Returns the captured kind.
    #[inline(always)]
    pub(super) fn move_board_piece(
        &mut self,
        from: Square,
        to: Square,
        old: PieceKind,
        new: PieceKind,
    ) -> Option<PieceKind> {
        let us = self.turn;
        let from_bb = bitboard::square_bb(from);
        let to_bb = bitboard::square_bb(to);
        let cap = self.board[to.index()];
        self.board[from.index()] = None;
        self.board[to.index()] = Some(Piece::new(us, new));
        // Each set changes once, by a whole mask.
        self.by_color[us.index()] ^= from_bb | to_bb;
        self.by_kind[old.index()] ^= from_bb;
        self.by_kind[new.index()] ^= to_bb;
        let keys = &KEYS.board[us.index()];
        let mut key =
            self.key ^ KEYS.side ^ keys[old.index()][from.index()] ^ keys[new.index()][to.index()];
        if old == PieceKind::King {
            self.kings[us.index()] = Some(to);
        }
        if let Some(c) = cap {
            let them = c.color.index();
            self.by_color[them] ^= to_bb;
            self.by_kind[c.kind.index()] ^= to_bb;
            key ^= KEYS.board[them][c.kind.index()][to.index()];
            if c.kind == PieceKind::King && self.kings[them] == Some(to) {
                self.kings[them] = None;
            }
        }
        self.key = key;
        if let Some(c) = cap {
            self.hand_add(us, c.kind);
        }
        self.turn = us.flip();
        self.move_number = self.move_number.saturating_add(1);
        cap.map(|c| c.kind)
    }
}

/// One side's pieces grouped by how they attack (see [`Position::attack_sets`]).
#[derive(Clone, Copy)]
pub(super) struct AttackSets {
    color: Color,
    pawns: Bitboard,
    knights: Bitboard,
    silvers: Bitboard,
    golds: Bitboard,
    kings: Bitboard,
    lances: Bitboard,
    diag: Bitboard,
    orth: Bitboard,
}

impl AttackSets {
    /// Whether any of these pieces attacks `sq` with occupancy `occ`.
    #[inline]
    pub(super) fn attack(&self, sq: Square, occ: Bitboard) -> bool {
        let them = self.color.flip();
        if ((bitboard::pawn_attacks(them, sq) & self.pawns)
            | (bitboard::knight_attacks(them, sq) & self.knights)
            | (bitboard::silver_attacks(them, sq) & self.silvers)
            | (bitboard::gold_attacks(them, sq) & self.golds)
            | (bitboard::king_attacks(sq) & self.kings))
            .any()
        {
            return true;
        }
        if self.lances.any() && (bitboard::lance_attacks(them, sq, occ) & self.lances).any() {
            return true;
        }
        if (bitboard::bishop_pseudo(sq) & self.diag).any()
            && (bitboard::bishop_attacks(sq, occ) & self.diag).any()
        {
            return true;
        }
        (bitboard::rook_pseudo(sq) & self.orth).any()
            && (bitboard::rook_attacks(sq, occ) & self.orth).any()
    }
}
