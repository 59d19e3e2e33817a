//! Piece kinds and pieces.

use super::Color;

/// The 14 kinds of shogi piece: 8 unpromoted, 6 promoted.
///
/// The discriminants are fixed: the first seven are the kinds a hand can hold, in the
/// order SFEN and KIF list them backwards (P L N S G B R).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum PieceKind {
    /// 歩 FU P
    Pawn = 0,
    /// 香 KY L
    Lance = 1,
    /// 桂 KE N
    Knight = 2,
    /// 銀 GI S
    Silver = 3,
    /// 金 KI G
    Gold = 4,
    /// 角 KA B
    Bishop = 5,
    /// 飛 HI R
    Rook = 6,
    /// 玉 OU K
    King = 7,
    /// と TO +P
    ProPawn = 8,
    /// 成香 NY +L
    ProLance = 9,
    /// 成桂 NK +N
    ProKnight = 10,
    /// 成銀 NG +S
    ProSilver = 11,
    /// 馬 UM +B
    Horse = 12,
    /// 龍 RY +R
    Dragon = 13,
}

use PieceKind::*;

impl PieceKind {
    /// All kinds in discriminant order.
    pub const ALL: [PieceKind; 14] = [
        Pawn, Lance, Knight, Silver, Gold, Bishop, Rook, King, ProPawn, ProLance, ProKnight,
        ProSilver, Horse, Dragon,
    ];

    /// The seven kinds a hand can hold, in discriminant order (P L N S G B R).
    pub const HAND: [PieceKind; 7] = [Pawn, Lance, Knight, Silver, Gold, Bishop, Rook];

    /// Index 0..14.
    #[inline]
    pub const fn index(self) -> usize {
        self as usize
    }

    /// The kind with this index.
    pub const fn from_index(i: usize) -> Option<PieceKind> {
        if i < 14 { Some(Self::ALL[i]) } else { None }
    }

    /// Whether the kind can promote (P L N S B R).
    #[inline]
    pub const fn can_promote(self) -> bool {
        matches!(self, Pawn | Lance | Knight | Silver | Bishop | Rook)
    }

    /// Whether the kind is a promoted one.
    #[inline]
    pub const fn is_promoted(self) -> bool {
        (self as u8) >= 8
    }

    /// The promoted kind, if the kind can promote.
    #[inline]
    pub const fn promote(self) -> Option<PieceKind> {
        Some(match self {
            Pawn => ProPawn,
            Lance => ProLance,
            Knight => ProKnight,
            Silver => ProSilver,
            Bishop => Horse,
            Rook => Dragon,
            _ => return None,
        })
    }

    /// The unpromoted kind (the kind itself if it is not promoted).
    #[inline]
    pub const fn unpromote(self) -> PieceKind {
        match self {
            ProPawn => Pawn,
            ProLance => Lance,
            ProKnight => Knight,
            ProSilver => Silver,
            Horse => Bishop,
            Dragon => Rook,
            k => k,
        }
    }

    /// Whether the kind moves any distance along a line (L B R, horse, dragon).
    #[inline]
    pub const fn is_ranging(self) -> bool {
        matches!(self, Lance | Bishop | Rook | Horse | Dragon)
    }

    /// Whether the kind can be held in hand (P L N S G B R).
    #[inline]
    pub const fn is_hand_kind(self) -> bool {
        (self as u8) < 7
    }

    /// How many pieces of this unpromoted kind a set holds (promoted kinds count with their base).
    pub const fn set_count(self) -> u8 {
        match self.unpromote() {
            Pawn => 18,
            Lance | Knight | Silver | Gold => 4,
            Bishop | Rook | King => 2,
            _ => 0,
        }
    }

    /// CSA two-letter code (`FU`, `TO`, `RY`, ...).
    pub const fn csa(self) -> &'static str {
        match self {
            Pawn => "FU",
            Lance => "KY",
            Knight => "KE",
            Silver => "GI",
            Gold => "KI",
            Bishop => "KA",
            Rook => "HI",
            King => "OU",
            ProPawn => "TO",
            ProLance => "NY",
            ProKnight => "NK",
            ProSilver => "NG",
            Horse => "UM",
            Dragon => "RY",
        }
    }

    /// Parses a CSA two-letter code.
    pub fn from_csa(s: &str) -> Option<PieceKind> {
        match *s.as_bytes() {
            [a, b] => Self::from_csa_bytes(a, b),
            _ => None,
        }
    }

    /// Parses a CSA two-letter code given as its two bytes (`b'F', b'U'`): one table
    /// lookup, no comparisons to mispredict, for readers that see millions of them.
    #[inline]
    pub const fn from_csa_bytes(a: u8, b: u8) -> Option<PieceKind> {
        if !a.is_ascii_uppercase() || !b.is_ascii_uppercase() {
            return None;
        }
        let i = (a - b'A') as usize * 26 + (b - b'A') as usize;
        Self::from_index(CSA_CODES[i] as usize)
    }

    /// The upper-case SFEN letter of the unpromoted kind (`P`, `L`, ... `K`).
    pub const fn sfen_letter(self) -> char {
        match self.unpromote() {
            Pawn => 'P',
            Lance => 'L',
            Knight => 'N',
            Silver => 'S',
            Gold => 'G',
            Bishop => 'B',
            Rook => 'R',
            _ => 'K',
        }
    }

    /// The unpromoted kind for an SFEN letter (either case).
    pub fn from_sfen_letter(c: char) -> Option<PieceKind> {
        Some(match c.to_ascii_uppercase() {
            'P' => Pawn,
            'L' => Lance,
            'N' => Knight,
            'S' => Silver,
            'G' => Gold,
            'B' => Bishop,
            'R' => Rook,
            'K' => King,
            _ => return None,
        })
    }

    /// The name used in KIF/KI2 move text (`歩`, `成銀`, `龍`, ...).
    pub const fn kif_name(self) -> &'static str {
        match self {
            Pawn => "歩",
            Lance => "香",
            Knight => "桂",
            Silver => "銀",
            Gold => "金",
            Bishop => "角",
            Rook => "飛",
            King => "玉",
            ProPawn => "と",
            ProLance => "成香",
            ProKnight => "成桂",
            ProSilver => "成銀",
            Horse => "馬",
            Dragon => "龍",
        }
    }

    /// The one-character name used in board diagrams (`杏`, `圭`, `全` for the promoted minors).
    pub const fn kif_board_char(self) -> char {
        match self {
            Pawn => '歩',
            Lance => '香',
            Knight => '桂',
            Silver => '銀',
            Gold => '金',
            Bishop => '角',
            Rook => '飛',
            King => '玉',
            ProPawn => 'と',
            ProLance => '杏',
            ProKnight => '圭',
            ProSilver => '全',
            Horse => '馬',
            Dragon => '龍',
        }
    }

    /// Parses a KIF/KI2 piece name, accepting every spelling seen in the wild
    /// (王, 竜, 全, 圭, 杏, 仝, 成と ...). Returns the kind and the number of characters used.
    pub fn from_kif_prefix(s: &str) -> Option<(PieceKind, usize)> {
        let mut it = s.chars();
        Self::from_kif_chars(it.next()?, || it.next())
    }

    /// [`PieceKind::from_kif_prefix`] on the characters of a name: the first, and `next` to
    /// ask for the second when the first (`成`) needs it.
    #[inline]
    pub(crate) fn from_kif_chars(
        c0: char,
        next: impl FnOnce() -> Option<char>,
    ) -> Option<(PieceKind, usize)> {
        let k = match c0 {
            '歩' => Pawn,
            '香' => Lance,
            '桂' => Knight,
            '銀' => Silver,
            '金' => Gold,
            '角' => Bishop,
            '飛' => Rook,
            '玉' | '王' => King,
            'と' => ProPawn,
            '杏' => ProLance,
            '圭' => ProKnight,
            '全' => ProSilver,
            '馬' => Horse,
            '龍' | '竜' => Dragon,
            '成' => {
                let k = match next()? {
                    '香' => ProLance,
                    '桂' => ProKnight,
                    '銀' => ProSilver,
                    '歩' => ProPawn,
                    _ => return None,
                };
                return Some((k, 2));
            }
            _ => return None,
        };
        Some((k, 1))
    }

    /// Points for the entering-king rules: 5 for rook, bishop, dragon and horse, 0 for the
    /// king, 1 for every other piece.
    pub const fn impasse_points(self) -> u32 {
        match self {
            Rook | Bishop | Dragon | Horse => 5,
            King => 0,
            _ => 1,
        }
    }
}

/// A piece of a given colour.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Piece {
    /// Whose piece.
    pub color: Color,
    /// What kind.
    pub kind: PieceKind,
}

/// `PieceKind` index (or 255) for each pair of capital letters, `[(a - 'A') * 26 + (b - 'A')]`.
const CSA_CODES: [u8; 26 * 26] = {
    let mut t = [255u8; 26 * 26];
    let mut k = 0;
    while k < PieceKind::ALL.len() {
        let code = PieceKind::ALL[k].csa().as_bytes();
        t[(code[0] - b'A') as usize * 26 + (code[1] - b'A') as usize] = k as u8;
        k += 1;
    }
    t
};

impl Piece {
    /// A piece.
    #[inline]
    pub const fn new(color: Color, kind: PieceKind) -> Piece {
        Piece { color, kind }
    }

    /// SFEN text: upper case for Black, lower for White, `+` before promoted kinds.
    pub fn to_sfen(self) -> String {
        let mut s = String::with_capacity(2);
        if self.kind.is_promoted() {
            s.push('+');
        }
        let c = self.kind.sfen_letter();
        s.push(match self.color {
            Color::Black => c,
            Color::White => c.to_ascii_lowercase(),
        });
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn promotion_pairs() {
        for k in PieceKind::ALL {
            if let Some(p) = k.promote() {
                assert!(k.can_promote());
                assert!(p.is_promoted());
                assert_eq!(p.unpromote(), k);
            } else {
                assert!(!k.can_promote());
            }
            assert_eq!(PieceKind::from_csa(k.csa()), Some(k));
            assert_eq!(PieceKind::from_index(k.index()), Some(k));
        }
    }

    #[test]
    fn csa_codes_parse_exactly_the_fourteen() {
        for a in 0..=255u8 {
            for b in 0..=255u8 {
                let expected = PieceKind::ALL
                    .into_iter()
                    .find(|k| k.csa().as_bytes() == [a, b]);
                assert_eq!(PieceKind::from_csa_bytes(a, b), expected, "{a} {b}");
            }
        }
        assert_eq!(PieceKind::from_csa("FUU"), None);
        assert_eq!(PieceKind::from_csa("F"), None);
        assert_eq!(PieceKind::from_csa("fu"), None);
    }

    #[test]
    fn kif_names() {
        for k in PieceKind::ALL {
            assert_eq!(
                PieceKind::from_kif_prefix(k.kif_name()),
                Some((k, k.kif_name().chars().count()))
            );
            let mut b = [0u8; 4];
            assert_eq!(
                PieceKind::from_kif_prefix(k.kif_board_char().encode_utf8(&mut b)).map(|x| x.0),
                Some(k)
            );
        }
        assert_eq!(PieceKind::from_kif_prefix("竜"), Some((Dragon, 1)));
        assert_eq!(PieceKind::from_kif_prefix("王"), Some((King, 1)));
    }
}
