//! A validated, playable position: board, hands, side to move, move number and an
//! incremental Zobrist key.
//!
//! A [`Position`] is built from an unvalidated [`Setup`] by [`Position::from_setup`], which
//! refuses impossible positions with a [`SetupError`]. The rules (which moves are legal and why
//! a move is not) live in `rules.rs` and `movegen.rs`; this file keeps the state and the
//! primitive operations on it.

use std::fmt;

use super::bitboard::{self, Bitboard};
use super::zobrist::{KEYS, hand_key};
use super::{ByColor, Color, Hand, Piece, PieceKind, Setup, Square};

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

    fn from_setup_unvalidated(setup: &Setup) -> Position {
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
        if let Some(p) = setup.piece_at(sq) {
            if is_dead_square(p.color, p.kind, sq) {
                return Err(SetupError::DeadPiece {
                    square: sq,
                    piece: p,
                });
            }
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
