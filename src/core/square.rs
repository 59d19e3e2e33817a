//! Squares of the 9x9 board.
//!
//! Files (筋) are numbered 1-9 from Black's right, ranks (段) 1-9 from White's side.
//! A square's index is `(file - 1) * 9 + (rank - 1)`, so one file is 9 consecutive indices.

use std::fmt;

use super::Color;

/// A square on the board, index 0..81.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Square(u8);

impl Square {
    /// Number of squares.
    pub const COUNT: usize = 81;

    /// The square at `file` and `rank`, both 1..=9.
    #[inline]
    pub const fn new(file: u8, rank: u8) -> Option<Square> {
        if file >= 1 && file <= 9 && rank >= 1 && rank <= 9 {
            Some(Square((file - 1) * 9 + (rank - 1)))
        } else {
            None
        }
    }

    /// The square with this index, if it is below 81.
    #[inline]
    pub const fn from_index(i: usize) -> Option<Square> {
        if i < 81 { Some(Square(i as u8)) } else { None }
    }

    /// The square with this index; `i` must be below 81.
    #[inline]
    pub(crate) const fn from_index_unchecked(i: usize) -> Square {
        debug_assert!(i < 81);
        Square(i as u8)
    }

    /// Index 0..81.
    #[inline]
    pub const fn index(self) -> usize {
        self.0 as usize
    }

    /// File 1..=9.
    #[inline]
    pub const fn file(self) -> u8 {
        self.0 / 9 + 1
    }

    /// Rank 1..=9.
    #[inline]
    pub const fn rank(self) -> u8 {
        self.0 % 9 + 1
    }

    /// Every square, in index order.
    pub fn all() -> impl Iterator<Item = Square> {
        (0..81u8).map(Square)
    }

    /// The rank counted from `c`'s own side: 1 is the opponent's back rank for `c`.
    /// For Black this is the rank; for White it is `10 - rank`.
    #[inline]
    pub const fn relative_rank(self, c: Color) -> u8 {
        match c {
            Color::Black => self.rank(),
            Color::White => 10 - self.rank(),
        }
    }

    /// Whether the square is in `c`'s promotion zone (the opponent's three ranks).
    #[inline]
    pub const fn in_zone(self, c: Color) -> bool {
        self.relative_rank(c) <= 3
    }

    /// USI text, e.g. `7g`.
    pub fn to_usi(self) -> String {
        let mut s = String::with_capacity(2);
        s.push((b'0' + self.file()) as char);
        s.push((b'a' + self.rank() - 1) as char);
        s
    }

    /// Parses USI text such as `7g`.
    pub fn from_usi(s: &str) -> Option<Square> {
        let b = s.as_bytes();
        if b.len() != 2 || !(b'1'..=b'9').contains(&b[0]) || !(b'a'..=b'i').contains(&b[1]) {
            return None;
        }
        Square::new(b[0] - b'0', b[1] - b'a' + 1)
    }

    /// The square mirrored through the centre (the same square seen from the other side).
    #[inline]
    pub const fn flip(self) -> Square {
        Square(80 - self.0)
    }
}

impl fmt::Debug for Square {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}{}", self.file(), self.rank())
    }
}

impl fmt::Display for Square {
    /// Two digits, file then rank, as CSA and KIF sources write it (`76`).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}{}", self.file(), self.rank())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn coordinates_round_trip() {
        for f in 1..=9 {
            for r in 1..=9 {
                let s = Square::new(f, r).unwrap();
                assert_eq!((s.file(), s.rank()), (f, r));
                assert_eq!(Square::from_usi(&s.to_usi()), Some(s));
            }
        }
        assert_eq!(Square::new(0, 1), None);
        assert_eq!(Square::new(1, 10), None);
        assert_eq!(Square::from_usi("7g").unwrap(), Square::new(7, 7).unwrap());
    }

    #[test]
    fn zones() {
        let s = Square::new(5, 3).unwrap();
        assert!(s.in_zone(Color::Black));
        assert!(!s.in_zone(Color::White));
        assert!(Square::new(5, 7).unwrap().in_zone(Color::White));
    }
}
