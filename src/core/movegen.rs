//! Legal move generation, checkmate detection and `movers_to`.
//!
//! Generation is fully legal (no pseudo-legal list filtered by playing moves): it computes
//! the checkers and the pinned pieces once, restricts targets when in check, restricts
//! pinned pieces to their pin line, tests king destinations against the attacks with the
//! king removed from the occupancy, and tests pawn drops that give check for uchifuzume
//! with a dedicated evasion test. Nothing allocates.

use std::ops::{Deref, DerefMut};

use super::bitboard::{self, Bitboard};
use super::{Color, Move, PieceKind, Position, Square};

/// Capacity of a [`MoveList`]. The most legal moves known in any shogi position is 593.
pub const MAX_MOVES: usize = 1024;

/// A fixed-capacity list of moves living on the stack. Dereferences to `[Move]`.
#[derive(Clone)]
pub struct MoveList {
    moves: [Move; MAX_MOVES],
    len: usize,
}

impl std::fmt::Debug for MoveList {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}

impl Default for MoveList {
    fn default() -> Self {
        MoveList::new()
    }
}

impl MoveList {
    /// An empty list.
    #[inline]
    pub fn new() -> MoveList {
        MoveList {
            moves: [Move::Drop {
                kind: PieceKind::Pawn,
                to: Square::from_index_unchecked(0),
            }; MAX_MOVES],
            len: 0,
        }
    }

    /// Appends a move (ignored when the list is full, which no position can cause).
    #[inline]
    pub fn push(&mut self, mv: Move) {
        if let Some(slot) = self.moves.get_mut(self.len) {
            *slot = mv;
            self.len += 1;
        }
    }

    /// Removes every move.
    #[inline]
    pub fn clear(&mut self) {
        self.len = 0;
    }
}

impl Deref for MoveList {
    type Target = [Move];
    #[inline]
    fn deref(&self) -> &[Move] {
        &self.moves[..self.len]
    }
}

impl DerefMut for MoveList {
    #[inline]
    fn deref_mut(&mut self) -> &mut [Move] {
        &mut self.moves[..self.len]
    }
}

impl<'a> IntoIterator for &'a MoveList {
    type Item = &'a Move;
    type IntoIter = std::slice::Iter<'a, Move>;
    fn into_iter(self) -> Self::IntoIter {
        self.iter()
    }
}

/// Where moves go: a list, or a counter, or an early-exit probe.
trait Sink {
    /// Adds a move; returns true to stop generation.
    fn add(&mut self, mv: Move) -> bool;

    /// Adds the board moves of a non-king piece from `from` to every square of `targets`,
    /// with promotion and non-promotion as the rules allow; returns true to stop.
    #[inline]
    fn add_board(&mut self, us: Color, kind: PieceKind, from: Square, targets: Bitboard) -> bool {
        for to in targets {
            if push_board_moves(self, us, kind, from, to) {
                return true;
            }
        }
        false
    }

    /// Adds the moves of the pawns that move to the squares of `targets` (one pawn per
    /// target, coming from the square behind it); returns true to stop.
    #[inline]
    fn add_pawns(&mut self, us: Color, targets: Bitboard) -> bool {
        for to in targets {
            let from = match us {
                Color::Black => to.index() + 1,
                Color::White => to.index().wrapping_sub(1),
            };
            if let Some(from) = Square::from_index(from)
                && push_board_moves(self, us, PieceKind::Pawn, from, to)
            {
                return true;
            }
        }
        false
    }

    /// Adds drops of `kind` on every square of `targets`; returns true to stop.
    #[inline]
    fn add_drops(&mut self, kind: PieceKind, targets: Bitboard) -> bool {
        for to in targets {
            if self.add(Move::Drop { kind, to }) {
                return true;
            }
        }
        false
    }
}

impl Sink for MoveList {
    #[inline]
    fn add(&mut self, mv: Move) -> bool {
        self.push(mv);
        false
    }
}

struct Counter(u64);
impl Sink for Counter {
    #[inline]
    fn add(&mut self, _: Move) -> bool {
        self.0 += 1;
        false
    }

    #[inline]
    fn add_board(&mut self, us: Color, kind: PieceKind, from: Square, targets: Bitboard) -> bool {
        if !kind.can_promote() {
            self.0 += u64::from(targets.count());
            return false;
        }
        if targets.is_empty() {
            return false;
        }
        let mut n = targets.count();
        let promo = if from.in_zone(us) {
            targets
        } else {
            targets & Bitboard::far_ranks(us, 3)
        };
        if promo.any() {
            n += promo.count();
            let dead = match kind {
                PieceKind::Pawn | PieceKind::Lance => Bitboard::far_ranks(us, 1),
                PieceKind::Knight => Bitboard::far_ranks(us, 2),
                _ => Bitboard::EMPTY,
            } & targets;
            if dead.any() {
                n -= dead.count();
            }
        }
        self.0 += u64::from(n);
        false
    }

    #[inline]
    fn add_pawns(&mut self, us: Color, targets: Bitboard) -> bool {
        let promo = targets & Bitboard::far_ranks(us, 3);
        let stay = targets & !Bitboard::far_ranks(us, 1);
        self.0 += u64::from(promo.count()) + u64::from(stay.count());
        false
    }

    #[inline]
    fn add_drops(&mut self, _: PieceKind, targets: Bitboard) -> bool {
        self.0 += u64::from(targets.count());
        false
    }
}

struct FnSink<F>(F);
impl<F: FnMut(Move)> Sink for FnSink<F> {
    #[inline]
    fn add(&mut self, mv: Move) -> bool {
        (self.0)(mv);
        false
    }
}

struct Any(bool);
impl Sink for Any {
    #[inline]
    fn add(&mut self, _: Move) -> bool {
        self.0 = true;
        true
    }
}

impl Position {
    /// Every legal move, in a fixed order: pawn moves, then the other pieces kind by kind
    /// (lance, knight, silver, gold-like, bishop, rook, horse, dragon; by source square,
    /// then destination; promotion before non-promotion), pinned pieces, king moves, and
    /// drops (by kind P L N S G B R, then square). Non-promotions that are legal but pointless (a
    /// bishop staying unpromoted in the zone) are included, as the rules allow them.
    pub fn legal_moves(&self) -> MoveList {
        let mut list = MoveList::new();
        self.generate(&mut list);
        list
    }

    /// Fills `list` with the legal moves (cleared first).
    pub fn legal_moves_into(&self, list: &mut MoveList) {
        list.clear();
        self.generate(list);
    }

    /// Calls `f` with every legal move, in the order of [`Position::legal_moves`], without
    /// building a list.
    pub fn for_each_legal_move(&self, f: impl FnMut(Move)) {
        self.generate(&mut FnSink(f));
    }

    /// The number of legal moves.
    pub fn count_legal_moves(&self) -> u64 {
        let mut c = Counter(0);
        self.generate(&mut c);
        c.0
    }

    /// Whether the side to move has at least one legal move. A side with none has lost.
    pub fn has_legal_move(&self) -> bool {
        let mut a = Any(false);
        self.generate(&mut a);
        a.0
    }

    /// Whether the side to move is checkmated (in check with no legal move).
    pub fn is_checkmate(&self) -> bool {
        self.in_check() && !self.has_legal_move()
    }

    /// The squares of `color`'s pieces of `kind` whose movement reaches `to` on the current
    /// board without jumping, ignoring pins, checks, promotion rules and whose turn it is.
    pub fn movers_to(&self, to: Square, color: Color, kind: PieceKind) -> Vec<Square> {
        let from =
            bitboard::attacks(color.flip(), kind, to, self.occupied()) & self.pieces(color, kind);
        from.squares().collect()
    }

    /// Whether dropping a pawn of the side to move on `to` (which must attack the
    /// opponent's king) would be checkmate. `to` must be empty.
    pub(super) fn pawn_drop_mates(&self, to: Square) -> bool {
        let us = self.turn;
        let them = us.flip();
        let Some(ksq) = self.kings[them.index()] else {
            return false;
        };
        if self.attackers_to(ksq, us, self.occupied()).any() {
            // The opponent is already in check (a position reached by unchecked play): the
            // fast test below assumes the pawn is the only checker, so play it out.
            let mut after = self.clone();
            after.do_move(Move::Drop {
                kind: PieceKind::Pawn,
                to,
            });
            return !after.has_legal_move();
        }
        let occ = self.occupied().with(to);
        // King escapes (including capturing the pawn when it is undefended).
        let own_them = self.by_color[them.index()];
        let occ_no_king = occ.without(ksq);
        for s in bitboard::king_attacks(ksq) & !own_them {
            if self.attackers_to(s, us, occ_no_king).is_empty() {
                return false;
            }
        }
        // Captures of the pawn by a piece other than the king that is not pinned.
        let capturers = self.attackers_to(to, them, occ).without(ksq);
        if capturers.is_empty() {
            return true;
        }
        // Pins are computed with the pawn on the board.
        let pinned = self.pinned_with(them, occ);
        for c in capturers {
            if !pinned.contains(c) || bitboard::line(ksq, c).contains(to) {
                return false;
            }
        }
        true
    }

    /// `pinned` for a hypothetical occupancy (the pieces themselves are unchanged).
    fn pinned_with(&self, c: Color, occ: Bitboard) -> Bitboard {
        self.pinned(c, occ)
    }

    fn generate<S: Sink>(&self, sink: &mut S) {
        let us = self.turn;
        let them = us.flip();
        let occ = self.occupied();
        let own = self.by_color[us.index()];
        let ksq = self.kings[us.index()];
        let (checkers, pinned) = match ksq {
            Some(_) => (self.checkers, self.pinned(us, occ)),
            None => (Bitboard::EMPTY, Bitboard::EMPTY),
        };
        let (target, drop_target) = match (ksq, checkers.first()) {
            (Some(k), Some(c)) if !checkers.more_than_one() => {
                let b = bitboard::between(k, c);
                (b.with(c), b)
            }
            (Some(_), Some(_)) => (Bitboard::EMPTY, Bitboard::EMPTY),
            _ => (Bitboard::FULL, !occ),
        };

        // Board moves of pieces other than the king.
        if target.any() {
            use PieceKind::*;
            let free = !own & target;
            // Unpinned pawns, all at once.
            let pawns = self.pieces(us, Pawn) & !pinned & !Bitboard::far_ranks(us, 1);
            let pawn_to = match us {
                Color::Black => Bitboard(pawns.0 >> 1),
                Color::White => Bitboard(pawns.0 << 1),
            } & free;
            if sink.add_pawns(us, pawn_to) {
                return;
            }
            // Other unpinned pieces, kind by kind. The gold-like kinds share one entry:
            // none of them promotes, so the kind passed on only decides the movement.
            let bb = |k: PieceKind| self.by_kind[k.index()];
            let golds = bb(Gold) | bb(ProPawn) | bb(ProLance) | bb(ProKnight) | bb(ProSilver);
            let mine = own & !pinned;
            macro_rules! each {
                ($kind:expr, $pieces:expr, |$from:ident| $att:expr) => {
                    for $from in $pieces & mine {
                        if sink.add_board(us, $kind, $from, $att & free) {
                            return;
                        }
                    }
                };
            }
            each!(Lance, bb(Lance), |f| bitboard::lance_attacks(us, f, occ));
            each!(Knight, bb(Knight), |f| bitboard::knight_attacks(us, f));
            each!(Silver, bb(Silver), |f| bitboard::silver_attacks(us, f));
            each!(Gold, golds, |f| bitboard::gold_attacks(us, f));
            each!(Bishop, bb(Bishop), |f| bitboard::bishop_attacks(f, occ));
            each!(Rook, bb(Rook), |f| bitboard::rook_attacks(f, occ));
            each!(Horse, bb(Horse), |f| bitboard::bishop_attacks(f, occ)
                | bitboard::king_attacks(f));
            each!(Dragon, bb(Dragon), |f| bitboard::rook_attacks(f, occ)
                | bitboard::king_attacks(f));
            // Pinned pieces may only move along the line through their king.
            if let Some(k) = ksq {
                for from in pinned {
                    let Some(pc) = self.board[from.index()] else {
                        continue;
                    };
                    let t =
                        bitboard::attacks(us, pc.kind, from, occ) & free & bitboard::line(k, from);
                    if sink.add_board(us, pc.kind, from, t) {
                        return;
                    }
                }
            }
        }

        // King moves.
        if let Some(k) = ksq {
            let occ_no_king = occ.without(k);
            let enemy = self.attack_sets(them);
            for to in bitboard::king_attacks(k) & !own {
                if !enemy.attack(to, occ_no_king)
                    && sink.add(Move::Normal {
                        from: k,
                        to,
                        promote: false,
                    })
                {
                    return;
                }
            }
        }

        // Drops.
        if drop_target.is_empty() {
            return;
        }
        let hand = self.hands[us.index()];
        if hand.is_empty() {
            return;
        }
        for kind in PieceKind::HAND {
            if hand.count(kind) == 0 {
                continue;
            }
            let mut t = drop_target;
            match kind {
                PieceKind::Pawn => {
                    t &= !Bitboard::far_ranks(us, 1);
                    for p in self.pieces(us, PieceKind::Pawn) {
                        t &= !Bitboard::file(p.file());
                    }
                    // Uchifuzume: a pawn drop that checks and mates.
                    if let Some(tk) = self.kings[them.index()] {
                        let check_sq = bitboard::pawn_attacks(them, tk);
                        if let Some(s) = (check_sq & t).first()
                            && self.pawn_drop_mates(s)
                        {
                            t = t.without(s);
                        }
                    }
                }
                PieceKind::Lance => t &= !Bitboard::far_ranks(us, 1),
                PieceKind::Knight => t &= !Bitboard::far_ranks(us, 2),
                _ => {}
            }
            if sink.add_drops(kind, t) {
                return;
            }
        }
    }
}

#[inline]
fn push_board_moves<S: Sink + ?Sized>(
    sink: &mut S,
    us: Color,
    kind: PieceKind,
    from: Square,
    to: Square,
) -> bool {
    let can_promote = kind.can_promote() && (from.in_zone(us) || to.in_zone(us));
    if can_promote
        && sink.add(Move::Normal {
            from,
            to,
            promote: true,
        })
    {
        return true;
    }
    if !super::position::is_dead_square(us, kind, to) {
        return sink.add(Move::Normal {
            from,
            to,
            promote: false,
        });
    }
    false
}
