//! The two sides of a shogi game.

use std::ops::Not;

/// A side. Black (先手, 下手 in handicap games) moves first in an even game;
/// White (後手, 上手) gives the handicap and moves first in handicap games. The default is
/// Black, the side to move at the even start.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub enum Color {
    /// 先手 / 下手, CSA `+`, SFEN `b`, JKF color 0.
    #[default]
    Black = 0,
    /// 後手 / 上手, CSA `-`, SFEN `w`, JKF color 1.
    White = 1,
}

impl Color {
    /// Both colours, Black first.
    pub const ALL: [Color; 2] = [Color::Black, Color::White];

    /// 0 for Black, 1 for White.
    #[inline]
    pub const fn index(self) -> usize {
        self as usize
    }

    /// The colour from an index (0 = Black, anything else = White).
    #[inline]
    pub const fn from_index(i: usize) -> Color {
        if i == 0 { Color::Black } else { Color::White }
    }

    /// The opponent.
    #[inline]
    pub const fn flip(self) -> Color {
        match self {
            Color::Black => Color::White,
            Color::White => Color::Black,
        }
    }

    /// The CSA sign, `+` or `-`.
    pub const fn csa_sign(self) -> char {
        match self {
            Color::Black => '+',
            Color::White => '-',
        }
    }

    /// The SFEN side letter, `b` or `w`.
    pub const fn sfen_char(self) -> char {
        match self {
            Color::Black => 'b',
            Color::White => 'w',
        }
    }

    /// The lower-case English name used in JSON output (`black`, `white`).
    pub const fn name(self) -> &'static str {
        match self {
            Color::Black => "black",
            Color::White => "white",
        }
    }
}

impl Not for Color {
    type Output = Color;
    #[inline]
    fn not(self) -> Color {
        self.flip()
    }
}

/// A pair of values, one per colour.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct ByColor<T> {
    /// Black's value.
    pub black: T,
    /// White's value.
    pub white: T,
}

impl<T> ByColor<T> {
    /// Builds a pair by calling `f` for Black then White.
    pub fn new_with(mut f: impl FnMut(Color) -> T) -> Self {
        ByColor {
            black: f(Color::Black),
            white: f(Color::White),
        }
    }

    /// The value for `c`.
    #[inline]
    pub fn get(&self, c: Color) -> &T {
        match c {
            Color::Black => &self.black,
            Color::White => &self.white,
        }
    }

    /// The value for `c`, mutable.
    #[inline]
    pub fn get_mut(&mut self, c: Color) -> &mut T {
        match c {
            Color::Black => &mut self.black,
            Color::White => &mut self.white,
        }
    }
}
