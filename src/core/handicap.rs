//! The standard starting positions: the even game and the 16 handicaps (手合割).

use super::{Color, Setup, Square};

/// A standard starting position. In every handicap White (上手) gives the pieces and moves first.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Handicap {
    /// 平手 (even game)
    Even,
    /// 香落ち
    Lance,
    /// 右香落ち
    RightLance,
    /// 角落ち
    Bishop,
    /// 飛車落ち
    Rook,
    /// 飛香落ち
    RookLance,
    /// 二枚落ち
    TwoPieces,
    /// 三枚落ち
    ThreePieces,
    /// 四枚落ち
    FourPieces,
    /// 五枚落ち
    FivePieces,
    /// 左五枚落ち
    LeftFivePieces,
    /// 六枚落ち
    SixPieces,
    /// 左七枚落ち
    LeftSevenPieces,
    /// 右七枚落ち
    RightSevenPieces,
    /// 八枚落ち
    EightPieces,
    /// 十枚落ち
    TenPieces,
}

use Handicap::*;

impl Handicap {
    /// The even game and all 16 handicaps.
    pub const ALL: [Handicap; 16] = [
        Even,
        Lance,
        RightLance,
        Bishop,
        Rook,
        RookLance,
        TwoPieces,
        ThreePieces,
        FourPieces,
        FivePieces,
        LeftFivePieces,
        SixPieces,
        LeftSevenPieces,
        RightSevenPieces,
        EightPieces,
        TenPieces,
    ];

    /// The KIF 手合割 name.
    pub const fn kif_name(self) -> &'static str {
        match self {
            Even => "平手",
            Lance => "香落ち",
            RightLance => "右香落ち",
            Bishop => "角落ち",
            Rook => "飛車落ち",
            RookLance => "飛香落ち",
            TwoPieces => "二枚落ち",
            ThreePieces => "三枚落ち",
            FourPieces => "四枚落ち",
            FivePieces => "五枚落ち",
            LeftFivePieces => "左五枚落ち",
            SixPieces => "六枚落ち",
            LeftSevenPieces => "左七枚落ち",
            RightSevenPieces => "右七枚落ち",
            EightPieces => "八枚落ち",
            TenPieces => "十枚落ち",
        }
    }

    /// The JKF preset name.
    pub const fn jkf_preset(self) -> &'static str {
        match self {
            Even => "HIRATE",
            Lance => "KY",
            RightLance => "KY_R",
            Bishop => "KA",
            Rook => "HI",
            RookLance => "HIKY",
            TwoPieces => "2",
            ThreePieces => "3",
            FourPieces => "4",
            FivePieces => "5",
            LeftFivePieces => "5_L",
            SixPieces => "6",
            LeftSevenPieces => "7_L",
            RightSevenPieces => "7_R",
            EightPieces => "8",
            TenPieces => "10",
        }
    }

    /// Parses a KIF 手合割 value (surrounding ASCII and full-width spaces are ignored).
    pub fn from_kif_name(s: &str) -> Option<Handicap> {
        let s = s.trim_matches(|c: char| c.is_whitespace() || c == '　');
        Self::ALL.iter().copied().find(|h| h.kif_name() == s)
    }

    /// Parses a JKF preset name.
    pub fn from_jkf_preset(s: &str) -> Option<Handicap> {
        Self::ALL.iter().copied().find(|h| h.jkf_preset() == s)
    }

    /// The squares (file, rank) emptied on White's side, as CSA `PI` lists them.
    pub const fn removed(self) -> &'static [(u8, u8)] {
        match self {
            Even => &[],
            Lance => &[(1, 1)],
            RightLance => &[(9, 1)],
            Bishop => &[(2, 2)],
            Rook => &[(8, 2)],
            RookLance => &[(8, 2), (1, 1)],
            TwoPieces => &[(8, 2), (2, 2)],
            ThreePieces => &[(8, 2), (2, 2), (1, 1)],
            FourPieces => &[(8, 2), (2, 2), (1, 1), (9, 1)],
            FivePieces => &[(8, 2), (2, 2), (1, 1), (9, 1), (8, 1)],
            LeftFivePieces => &[(8, 2), (2, 2), (1, 1), (9, 1), (2, 1)],
            SixPieces => &[(8, 2), (2, 2), (1, 1), (9, 1), (8, 1), (2, 1)],
            LeftSevenPieces => &[(8, 2), (2, 2), (1, 1), (9, 1), (8, 1), (2, 1), (3, 1)],
            RightSevenPieces => &[(8, 2), (2, 2), (1, 1), (9, 1), (8, 1), (2, 1), (7, 1)],
            EightPieces => &[
                (8, 2),
                (2, 2),
                (1, 1),
                (9, 1),
                (8, 1),
                (2, 1),
                (3, 1),
                (7, 1),
            ],
            TenPieces => &[
                (8, 2),
                (2, 2),
                (1, 1),
                (9, 1),
                (8, 1),
                (2, 1),
                (3, 1),
                (7, 1),
                (4, 1),
                (6, 1),
            ],
        }
    }

    /// The starting position: White to move in every handicap, Black in the even game.
    pub fn setup(self) -> Setup {
        let mut s = Setup::startpos();
        for &(f, r) in self.removed() {
            s.set_piece(Square::new(f, r).expect("valid square"), None);
        }
        if self != Even {
            s.turn = Color::White;
        }
        s
    }

    /// The handicap whose start position equals `setup` (hands empty, move number ignored).
    pub fn recognise(setup: &Setup) -> Option<Handicap> {
        Self::ALL.iter().copied().find(|h| {
            let s = h.setup();
            s.board == setup.board && s.hands == setup.hands && s.turn == setup.turn
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip_and_positions_differ() {
        for h in Handicap::ALL {
            assert_eq!(Handicap::from_kif_name(h.kif_name()), Some(h));
            assert_eq!(Handicap::from_jkf_preset(h.jkf_preset()), Some(h));
            assert_eq!(Handicap::recognise(&h.setup()), Some(h));
            let pieces = h.setup().board.iter().flatten().count();
            assert_eq!(pieces, 40 - h.removed().len());
        }
        assert_eq!(Handicap::from_kif_name("平手　　"), Some(Handicap::Even));
    }
}
