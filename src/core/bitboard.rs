//! Bitboards: a set of squares as the low 81 bits of a `u128`, bit `i` = `Square` index `i`.
//!
//! Because a square's index is `(file - 1) * 9 + (rank - 1)`, one file is nine consecutive
//! bits. All attack tables are computed at compile time (`const fn`), so there is no start-up
//! cost and no lazy initialisation in the hot paths. Sliding attacks use the classical
//! ray-and-first-blocker method: for each of the eight directions a ray table, and the nearest
//! blocker found with `trailing_zeros`/`leading_zeros` on the masked occupancy.

use std::ops::{BitAnd, BitAndAssign, BitOr, BitOrAssign, BitXor, BitXorAssign, Not};

use super::{Color, PieceKind, Square};

/// A set of squares. Bits above 80 are ignored by every method that yields squares.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct Bitboard(pub u128);

const FULL: u128 = (1u128 << 81) - 1;

impl Bitboard {
    /// The empty set.
    pub const EMPTY: Bitboard = Bitboard(0);
    /// All 81 squares.
    pub const FULL: Bitboard = Bitboard(FULL);

    /// The set holding only `sq`.
    #[inline]
    pub const fn from_square(sq: Square) -> Bitboard {
        Bitboard(1u128 << sq.index())
    }

    /// Whether the set holds `sq`.
    #[inline]
    pub const fn contains(self, sq: Square) -> bool {
        self.0 >> sq.index() & 1 != 0
    }

    /// Whether the set is empty.
    #[inline]
    pub const fn is_empty(self) -> bool {
        self.0 == 0
    }

    /// Whether the set is not empty.
    #[inline]
    pub const fn any(self) -> bool {
        self.0 != 0
    }

    /// Number of squares in the set.
    #[inline]
    pub const fn count(self) -> u32 {
        self.0.count_ones()
    }

    /// Whether the set holds more than one square.
    #[inline]
    pub const fn more_than_one(self) -> bool {
        self.0 & self.0.wrapping_sub(1) != 0
    }

    /// The square with the lowest index, if any.
    #[inline]
    pub const fn first(self) -> Option<Square> {
        if self.0 == 0 {
            None
        } else {
            Some(Square::from_index_unchecked(
                self.0.trailing_zeros() as usize
            ))
        }
    }

    /// The set with `sq` added.
    #[inline]
    pub const fn with(self, sq: Square) -> Bitboard {
        Bitboard(self.0 | 1u128 << sq.index())
    }

    /// The set with `sq` removed.
    #[inline]
    pub const fn without(self, sq: Square) -> Bitboard {
        Bitboard(self.0 & !(1u128 << sq.index()))
    }

    /// Adds or removes `sq` (toggles it).
    #[inline]
    pub fn toggle(&mut self, sq: Square) {
        self.0 ^= 1u128 << sq.index();
    }

    /// The nine squares of a file (1..=9); empty for other numbers.
    #[inline]
    pub const fn file(file: u8) -> Bitboard {
        if file >= 1 && file <= 9 {
            Bitboard(0x1ff << ((file as u32 - 1) * 9))
        } else {
            Bitboard(0)
        }
    }

    /// The squares of ranks `lo..=hi` (relative to Black; 1 = White's back rank).
    pub const fn ranks(lo: u8, hi: u8) -> Bitboard {
        let mut b = 0u128;
        let mut f = 0;
        while f < 9 {
            let mut r = lo;
            while r <= hi && r <= 9 {
                if r >= 1 {
                    b |= 1u128 << (f * 9 + r as usize - 1);
                }
                r += 1;
            }
            f += 1;
        }
        Bitboard(b)
    }

    /// The ranks, counted from `c`'s side, numbered `1..=n` (its `n` farthest ranks).
    #[inline]
    pub const fn far_ranks(c: Color, n: u8) -> Bitboard {
        let n = if n > 9 { 9 } else { n } as usize;
        FAR_RANKS[c.index()][n]
    }

    /// The squares, lowest index first.
    #[inline]
    pub fn squares(self) -> Squares {
        Squares(self.0 & FULL)
    }
}

impl std::fmt::Debug for Bitboard {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_set().entries(self.squares()).finish()
    }
}

const fn build_far_ranks() -> [[Bitboard; 10]; 2] {
    let mut t = [[Bitboard(0); 10]; 2];
    let mut n = 1;
    while n <= 9 {
        t[0][n] = Bitboard::ranks(1, n as u8);
        t[1][n] = Bitboard::ranks(10 - n as u8, 9);
        n += 1;
    }
    t
}

const FAR_RANKS: [[Bitboard; 10]; 2] = build_far_ranks();

/// Iterator over the squares of a bitboard.
#[derive(Debug, Clone)]
pub struct Squares(u128);

impl Iterator for Squares {
    type Item = Square;
    #[inline]
    fn next(&mut self) -> Option<Square> {
        if self.0 == 0 {
            return None;
        }
        let i = self.0.trailing_zeros() as usize;
        self.0 &= self.0 - 1;
        Some(Square::from_index_unchecked(i))
    }
    #[inline]
    fn size_hint(&self) -> (usize, Option<usize>) {
        let n = self.0.count_ones() as usize;
        (n, Some(n))
    }
}

impl ExactSizeIterator for Squares {}

impl IntoIterator for Bitboard {
    type Item = Square;
    type IntoIter = Squares;
    #[inline]
    fn into_iter(self) -> Squares {
        Squares(self.0 & FULL)
    }
}

macro_rules! binop {
    ($tr:ident, $f:ident, $tra:ident, $fa:ident, $op:tt) => {
        impl $tr for Bitboard {
            type Output = Bitboard;
            #[inline]
            fn $f(self, o: Bitboard) -> Bitboard {
                Bitboard(self.0 $op o.0)
            }
        }
        impl $tra for Bitboard {
            #[inline]
            fn $fa(&mut self, o: Bitboard) {
                self.0 = self.0 $op o.0;
            }
        }
    };
}
binop!(BitAnd, bitand, BitAndAssign, bitand_assign, &);
binop!(BitOr, bitor, BitOrAssign, bitor_assign, |);
binop!(BitXor, bitxor, BitXorAssign, bitxor_assign, ^);

impl Not for Bitboard {
    type Output = Bitboard;
    #[inline]
    fn not(self) -> Bitboard {
        Bitboard(!self.0 & FULL)
    }
}

// ---------------------------------------------------------------------------------------
// Tables.

/// Direction deltas as (file, rank) steps. Index order matters: the first four increase the
/// square index (first blocker = lowest bit), the last four decrease it (highest bit).
const DIRS: [(i8, i8); 8] = [
    (0, 1),   // +1  rank down (towards Black)
    (1, 0),   // +9  file up
    (1, 1),   // +10
    (1, -1),  // +8
    (0, -1),  // -1  rank up (towards White)
    (-1, 0),  // -9
    (-1, -1), // -10
    (-1, 1),  // -8
];

const fn step(sq: usize, df: i8, dr: i8) -> Option<usize> {
    let f = (sq / 9) as i8 + df;
    let r = (sq % 9) as i8 + dr;
    if f >= 0 && f < 9 && r >= 0 && r < 9 {
        Some(f as usize * 9 + r as usize)
    } else {
        None
    }
}

const fn build_rays() -> [[u128; 81]; 8] {
    let mut t = [[0u128; 81]; 8];
    let mut d = 0;
    while d < 8 {
        let mut sq = 0;
        while sq < 81 {
            let mut b = 0u128;
            let mut cur = sq;
            while let Some(n) = step(cur, DIRS[d].0, DIRS[d].1) {
                b |= 1u128 << n;
                cur = n;
            }
            t[d][sq] = b;
            sq += 1;
        }
        d += 1;
    }
    t
}

static RAYS: [[u128; 81]; 8] = RAYS_C;

/// Step patterns for Black, as (file, rank) deltas; White's are the negations.
const fn pattern(kind: usize) -> &'static [(i8, i8)] {
    // Forward for Black is rank - 1.
    match kind {
        0 => &[(0, -1)],                                             // pawn
        2 => &[(1, -2), (-1, -2)],                                   // knight
        3 => &[(0, -1), (1, -1), (-1, -1), (1, 1), (-1, 1)],         // silver
        4 => &[(0, -1), (1, -1), (-1, -1), (1, 0), (-1, 0), (0, 1)], // gold
        7 => &[
            (0, -1),
            (1, -1),
            (-1, -1),
            (1, 0),
            (-1, 0),
            (0, 1),
            (1, 1),
            (-1, 1),
        ], // king
        _ => &[],
    }
}

const fn build_steps() -> [[[u128; 81]; 8]; 2] {
    let mut t = [[[0u128; 81]; 8]; 2];
    let mut c = 0;
    while c < 2 {
        let mut k = 0;
        while k < 8 {
            let p = pattern(k);
            let mut sq = 0;
            while sq < 81 {
                let mut b = 0u128;
                let mut i = 0;
                while i < p.len() {
                    let (df, dr) = p[i];
                    let (df, dr) = if c == 0 { (df, dr) } else { (-df, -dr) };
                    if let Some(n) = step(sq, df, dr) {
                        b |= 1u128 << n;
                    }
                    i += 1;
                }
                t[c][k][sq] = b;
                sq += 1;
            }
            k += 1;
        }
        c += 1;
    }
    t
}

/// Step attacks indexed `[color][base kind index 0..8][square]` (only P N S G K filled).
static STEPS: [[[u128; 81]; 8]; 2] = build_steps();

const fn build_between() -> ([[u128; 81]; 81], [[u128; 81]; 81]) {
    let mut between = [[0u128; 81]; 81];
    let mut line = [[0u128; 81]; 81];
    let mut a = 0;
    while a < 81 {
        let mut d = 0;
        while d < 8 {
            let mut cur = a;
            let mut acc = 0u128;
            while let Some(n) = step(cur, DIRS[d].0, DIRS[d].1) {
                between[a][n] = acc;
                // The full line through a and n: both rays from a plus a itself.
                let opp = (d + 4) % 8;
                line[a][n] = RAYS_C[d][a] | RAYS_C[opp][a] | (1u128 << a);
                acc |= 1u128 << n;
                cur = n;
            }
            d += 1;
        }
        a += 1;
    }
    (between, line)
}

const RAYS_C: [[u128; 81]; 8] = build_rays();
static BETWEEN_LINE: ([[u128; 81]; 81], [[u128; 81]; 81]) = build_between();

/// Attacks along a file, by rank (0..9) and the occupancy of the file's seven inner squares:
/// `[0]` both directions (rook), `[1]` towards rank 1 (Black lance), `[2]` towards rank 9
/// (White lance). Each entry is the nine-bit file mask.
const fn build_file_tables() -> [[[u16; 128]; 9]; 3] {
    let mut t = [[[0u16; 128]; 9]; 3];
    let mut r0 = 0;
    while r0 < 9 {
        let mut o = 0;
        while o < 128 {
            let mut up = 0u16;
            let mut r = r0 as i32 - 1;
            while r >= 0 {
                up |= 1 << r;
                if r >= 1 && r <= 7 && (o >> (r - 1)) & 1 != 0 {
                    break;
                }
                r -= 1;
            }
            let mut down = 0u16;
            let mut r = r0 + 1;
            while r < 9 {
                down |= 1 << r;
                if r >= 1 && r <= 7 && (o >> (r - 1)) & 1 != 0 {
                    break;
                }
                r += 1;
            }
            t[0][r0][o] = up | down;
            t[1][r0][o] = up;
            t[2][r0][o] = down;
            o += 1;
        }
        r0 += 1;
    }
    t
}

static FILE_TABLES: [[[u16; 128]; 9]; 3] = build_file_tables();

#[inline]
fn file_attack(which: usize, sq: Square, occ: u128) -> u128 {
    let i = sq.index();
    let base = (i / 9) * 9;
    let o = ((occ >> (base + 1)) & 0x7f) as usize;
    (FILE_TABLES[which][i - base][o] as u128) << base
}

#[inline]
fn ray_attack(dir: usize, sq: Square, occ: u128) -> u128 {
    let ray = RAYS[dir][sq.index()];
    let blockers = ray & occ;
    if blockers == 0 {
        return ray;
    }
    let b = if dir < 4 {
        blockers.trailing_zeros() as usize
    } else {
        127 - blockers.leading_zeros() as usize
    };
    ray ^ RAYS[dir][b]
}

const fn build_pseudo() -> [[u128; 81]; 2] {
    let mut t = [[0u128; 81]; 2];
    let mut sq = 0;
    while sq < 81 {
        t[0][sq] = RAYS_C[2][sq] | RAYS_C[3][sq] | RAYS_C[6][sq] | RAYS_C[7][sq];
        t[1][sq] = RAYS_C[0][sq] | RAYS_C[1][sq] | RAYS_C[4][sq] | RAYS_C[5][sq];
        sq += 1;
    }
    t
}

/// Empty-board bishop (`[0]`) and rook (`[1]`) attacks.
static PSEUDO: [[u128; 81]; 2] = build_pseudo();

/// Squares a bishop on `sq` attacks on an empty board.
#[inline]
pub(crate) fn bishop_pseudo(sq: Square) -> Bitboard {
    Bitboard(PSEUDO[0][sq.index()])
}

/// Squares a rook on `sq` attacks on an empty board.
#[inline]
pub(crate) fn rook_pseudo(sq: Square) -> Bitboard {
    Bitboard(PSEUDO[1][sq.index()])
}

/// Squares strictly between `a` and `b` when they share a file, rank or diagonal; else empty.
#[inline]
pub(crate) fn between(a: Square, b: Square) -> Bitboard {
    Bitboard(BETWEEN_LINE.0[a.index()][b.index()])
}

/// The whole line (file, rank or diagonal) through `a` and `b`, or empty if they share none.
#[inline]
pub(crate) fn line(a: Square, b: Square) -> Bitboard {
    Bitboard(BETWEEN_LINE.1[a.index()][b.index()])
}

/// Squares a lance of `c` on `sq` attacks.
#[inline]
pub(crate) fn lance_attacks(c: Color, sq: Square, occ: Bitboard) -> Bitboard {
    Bitboard(file_attack(
        if c == Color::Black { 1 } else { 2 },
        sq,
        occ.0,
    ))
}

/// Squares a bishop on `sq` attacks.
#[inline]
pub(crate) fn bishop_attacks(sq: Square, occ: Bitboard) -> Bitboard {
    Bitboard(
        ray_attack(2, sq, occ.0)
            | ray_attack(3, sq, occ.0)
            | ray_attack(6, sq, occ.0)
            | ray_attack(7, sq, occ.0),
    )
}

/// Squares a rook on `sq` attacks.
#[inline]
pub(crate) fn rook_attacks(sq: Square, occ: Bitboard) -> Bitboard {
    Bitboard(file_attack(0, sq, occ.0) | ray_attack(1, sq, occ.0) | ray_attack(5, sq, occ.0))
}

/// Squares a step piece (kind index 0 pawn, 2 knight, 3 silver, 4 gold, 7 king) attacks.
#[inline]
fn step_attacks(c: Color, kind: usize, sq: Square) -> Bitboard {
    Bitboard(STEPS[c.index()][kind][sq.index()])
}

/// Squares a king attacks (colour-independent).
#[inline]
pub(crate) fn king_attacks(sq: Square) -> Bitboard {
    step_attacks(Color::Black, 7, sq)
}

/// Squares a gold (or a promoted minor piece) of `c` attacks.
#[inline]
pub(crate) fn gold_attacks(c: Color, sq: Square) -> Bitboard {
    step_attacks(c, 4, sq)
}

/// Squares a silver of `c` attacks.
#[inline]
pub(crate) fn silver_attacks(c: Color, sq: Square) -> Bitboard {
    step_attacks(c, 3, sq)
}

/// Squares a knight of `c` attacks.
#[inline]
pub(crate) fn knight_attacks(c: Color, sq: Square) -> Bitboard {
    step_attacks(c, 2, sq)
}

/// The square a pawn of `c` attacks.
#[inline]
pub(crate) fn pawn_attacks(c: Color, sq: Square) -> Bitboard {
    step_attacks(c, 0, sq)
}

/// Squares a piece of colour `c` and kind `kind` on `sq` attacks with occupancy `occ`.
#[inline]
pub(crate) fn attacks(c: Color, kind: PieceKind, sq: Square, occ: Bitboard) -> Bitboard {
    use PieceKind::*;
    match kind {
        Pawn => pawn_attacks(c, sq),
        Lance => lance_attacks(c, sq, occ),
        Knight => knight_attacks(c, sq),
        Silver => silver_attacks(c, sq),
        Gold | ProPawn | ProLance | ProKnight | ProSilver => gold_attacks(c, sq),
        Bishop => bishop_attacks(sq, occ),
        Rook => rook_attacks(sq, occ),
        King => king_attacks(sq),
        Horse => bishop_attacks(sq, occ) | king_attacks(sq),
        Dragon => rook_attacks(sq, occ) | king_attacks(sq),
    }
}

/// The one-square sets, by square: a load instead of a 128-bit shift.
static SQUARE_BB: [u128; 81] = {
    let mut t = [0u128; 81];
    let mut i = 0;
    while i < 81 {
        t[i] = 1u128 << i;
        i += 1;
    }
    t
};

/// The set holding only `sq` (as [`Bitboard::from_square`], from a table).
#[inline(always)]
pub(crate) fn square_bb(sq: Square) -> Bitboard {
    Bitboard(SQUARE_BB[sq.index()])
}

/// Every kind's empty-board movement, `[color][kind index][square]`: one lookup for
/// [`pseudo_attacks`] (the rules ask it for every move).
static KIND_PSEUDO: [[[u128; 81]; 14]; 2] = {
    let steps = build_steps();
    let sliders = build_pseudo();
    let files = build_file_tables();
    let mut t = [[[0u128; 81]; 14]; 2];
    let mut c = 0;
    while c < 2 {
        let mut sq = 0;
        while sq < 81 {
            let base = (sq / 9) * 9;
            let gold = steps[c][4][sq];
            let king = steps[c][7][sq];
            t[c][0][sq] = steps[c][0][sq];
            // Black's lance looks towards rank 1 (`[1]`), White's towards rank 9 (`[2]`).
            t[c][1][sq] = (files[1 + c][sq - base][0] as u128) << base;
            t[c][2][sq] = steps[c][2][sq];
            t[c][3][sq] = steps[c][3][sq];
            t[c][4][sq] = gold;
            t[c][5][sq] = sliders[0][sq];
            t[c][6][sq] = sliders[1][sq];
            t[c][7][sq] = king;
            t[c][8][sq] = gold;
            t[c][9][sq] = gold;
            t[c][10][sq] = gold;
            t[c][11][sq] = gold;
            t[c][12][sq] = sliders[0][sq] | king;
            t[c][13][sq] = sliders[1][sq] | king;
            sq += 1;
        }
        c += 1;
    }
    t
};

/// Squares a piece attacks on an empty board (its full movement pattern).
#[inline]
pub(crate) fn pseudo_attacks(c: Color, kind: PieceKind, sq: Square) -> Bitboard {
    Bitboard(KIND_PSEUDO[c.index()][kind.index()][sq.index()])
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sq(f: u8, r: u8) -> Square {
        Square::new(f, r).unwrap()
    }

    #[test]
    fn pseudo_attacks_are_attacks_on_an_empty_board() {
        for c in Color::ALL {
            for k in PieceKind::ALL {
                for s in Square::all() {
                    assert_eq!(
                        pseudo_attacks(c, k, s),
                        attacks(c, k, s, Bitboard::EMPTY),
                        "{c:?} {k:?} {s:?}"
                    );
                }
            }
        }
    }

    #[test]
    fn step_patterns() {
        // Black pawn on 7g attacks 7f; White pawn on 3c attacks 3d.
        assert_eq!(
            pawn_attacks(Color::Black, sq(7, 7)),
            Bitboard::from_square(sq(7, 6))
        );
        assert_eq!(
            pawn_attacks(Color::White, sq(3, 3)),
            Bitboard::from_square(sq(3, 4))
        );
        assert_eq!(
            knight_attacks(Color::Black, sq(8, 9)),
            Bitboard::from_square(sq(9, 7)) | Bitboard::from_square(sq(7, 7))
        );
        assert_eq!(king_attacks(sq(5, 5)).count(), 8);
        assert_eq!(king_attacks(sq(1, 1)).count(), 3);
        assert_eq!(gold_attacks(Color::Black, sq(5, 5)).count(), 6);
        assert!(!gold_attacks(Color::Black, sq(5, 5)).contains(sq(4, 6)));
        assert!(gold_attacks(Color::White, sq(5, 5)).contains(sq(4, 6)));
        assert_eq!(silver_attacks(Color::White, sq(5, 5)).count(), 5);
    }

    #[test]
    fn sliders() {
        let occ = Bitboard::from_square(sq(5, 3)) | Bitboard::from_square(sq(2, 5));
        let r = rook_attacks(sq(5, 5), occ);
        assert!(r.contains(sq(5, 3)) && !r.contains(sq(5, 2)));
        assert!(r.contains(sq(2, 5)) && !r.contains(sq(1, 5)));
        assert!(r.contains(sq(9, 5)) && r.contains(sq(5, 9)));
        assert_eq!(r.count(), 2 + 4 + 3 + 4);
        assert_eq!(bishop_attacks(sq(5, 5), Bitboard::EMPTY).count(), 16);
        assert_eq!(bishop_attacks(sq(1, 1), Bitboard::EMPTY).count(), 8);
        assert_eq!(lance_attacks(Color::Black, sq(1, 9), occ).count(), 8);
        assert_eq!(lance_attacks(Color::White, sq(5, 1), occ).count(), 2);
        assert_eq!(between(sq(1, 1), sq(9, 9)).count(), 7);
        assert_eq!(between(sq(1, 1), sq(2, 3)), Bitboard::EMPTY);
        assert_eq!(line(sq(1, 1), sq(3, 3)).count(), 9);
        assert!(line(sq(5, 5), sq(5, 7)).contains(sq(5, 1)));
    }
}
