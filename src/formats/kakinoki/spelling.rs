//! How a text spells the characters of a KIF move line that are not ASCII (the file digits,
//! the kanji ranks, the pieces, `同`, `成`, `不`, `打` and the full-width space): UTF-8, or
//! CP932 (Shift_JIS as Kifu for Windows writes it), so that one hand-written reading of a move
//! line serves text and the bytes of a CP932 file, which are then not decoded. Decoding costs
//! about a quarter of validating such a file; its other lines (a dozen or so a game) are
//! decoded one at a time.
//!
//! Formats layer: uses `core`, nothing above.

use crate::core::PieceKind;

/// A text's spelling of the characters a move line is made of.
pub(crate) trait Spelling {
    /// The character at byte `i` of `b` (the first byte of a character) and its length in
    /// bytes: every ASCII character, and those non-ASCII characters that a move line in the
    /// common layout holds (UTF-8 gives any character). `None` at the end, or for a character
    /// this spelling does not read here.
    fn at(b: &[u8], i: usize) -> Option<(char, usize)>;

    /// The index after the spaces of the KIF grammar (ASCII space, tab, the full-width space)
    /// from `i`, and how many characters they are.
    #[inline(always)]
    fn blanks(b: &[u8], mut i: usize) -> (usize, u32) {
        let mut chars = 0;
        loop {
            match b.get(i) {
                Some(b' ' | b'\t') => i += 1,
                Some(0x80..) => match Self::at(b, i) {
                    Some(('\u{3000}', n)) => i += n,
                    _ => return (i, chars),
                },
                _ => return (i, chars),
            }
            chars += 1;
        }
    }

    /// Appends `b`, made only of characters [`Spelling::at`] reads, to `out` as text; `None`
    /// (with part of it appended) if one of them is not.
    fn push_to(b: &[u8], out: &mut String) -> Option<()> {
        let mut i = 0;
        while i < b.len() {
            let (c, n) = Self::at(b, i)?;
            out.push(c);
            i += n;
        }
        Some(())
    }
}

/// Text in UTF-8.
pub(crate) struct Utf8;

impl Spelling for Utf8 {
    /// ASCII and the characters of three bytes (the digits, kanji and kana of a move) are
    /// decoded by hand; `b` is UTF-8 from `i`, whose other characters are decoded as such.
    #[inline(always)]
    fn at(b: &[u8], i: usize) -> Option<(char, usize)> {
        match *b.get(i..)? {
            [a, ..] if a < 0x80 => Some((char::from(a), 1)),
            [a @ 0xE0..=0xEF, c1, c2, ..] => {
                let u = (u32::from(a & 0x0F) << 12)
                    | (u32::from(c1 & 0x3F) << 6)
                    | u32::from(c2 & 0x3F);
                Some((char::from_u32(u)?, 3))
            }
            [a, ..] => {
                let n = if a >= 0xF0 { 4 } else { 2 };
                let c = std::str::from_utf8(b.get(i..i + n)?).ok()?.chars().next()?;
                Some((c, n))
            }
            [] => None,
        }
    }
}

/// The text of a move's CP932 bytes as the CP932 reader reads it, or `None` where one of its
/// characters is not one the reader reads from bytes.
pub(crate) fn cp932_text(bytes: &[u8]) -> Option<String> {
    let mut out = String::with_capacity(bytes.len() * 2);
    Cp932::push_to(bytes, &mut out)?;
    Some(out)
}

/// Shift_JIS as CP932 spells it (the WHATWG `Shift_JIS` of `encoding_rs`): only the
/// characters of a move line in the common layout are read; any other is `None`.
pub(crate) struct Cp932;

impl Spelling for Cp932 {
    #[inline(always)]
    fn at(b: &[u8], i: usize) -> Option<(char, usize)> {
        let [hi, lo, ..] = *b.get(i..)? else {
            return b
                .get(i)
                .filter(|a| a.is_ascii())
                .map(|&a| (char::from(a), 1));
        };
        if hi < 0x80 {
            return Some((char::from(hi), 1));
        }
        // One look into a table, not a chain of comparisons: the characters of a move line
        // come in no order a branch predictor learns.
        let code = u16::from_be_bytes([hi, lo]);
        let (k, c) = CP932_TABLE[cp932_slot(code)];
        (k == code).then_some((c, 2))
    }
}

/// The two-byte CP932 codes [`Cp932::at`] reads, and their characters.
const CP932_CHARS: [(u16, char); 39] = [
    (0x8140, '\u{3000}'),
    (0x8250, '１'),
    (0x8251, '２'),
    (0x8252, '３'),
    (0x8253, '４'),
    (0x8254, '５'),
    (0x8255, '６'),
    (0x8256, '７'),
    (0x8257, '８'),
    (0x8258, '９'),
    (0x88EA, '一'),
    (0x93F1, '二'),
    (0x8E4F, '三'),
    (0x8E6C, '四'),
    (0x8CDC, '五'),
    (0x985A, '六'),
    (0x8EB5, '七'),
    (0x94AA, '八'),
    (0x8BE3, '九'),
    (0x93AF, '同'),
    (0x95E0, '歩'),
    (0x8D81, '香'),
    (0x8C6A, '桂'),
    (0x8BE2, '銀'),
    (0x8BE0, '金'),
    (0x8A70, '角'),
    (0x94F2, '飛'),
    (0x8BCA, '玉'),
    (0x89A4, '王'),
    (0x82C6, 'と'),
    (0x88C7, '杏'),
    (0x8C5C, '圭'),
    (0x9153, '全'),
    (0x946E, '馬'),
    (0x97B4, '龍'),
    (0x97B3, '竜'),
    (0x90AC, '成'),
    (0x9573, '不'),
    (0x91C5, '打'),
];

/// The slot of a code in [`CP932_TABLE`]: a multiplicative hash that puts each of
/// [`CP932_CHARS`] in a slot of its own (the table's construction checks it).
#[inline(always)]
const fn cp932_slot(code: u16) -> usize {
    ((code as u32).wrapping_mul(0x3BAF_7C75) >> 26) as usize
}

/// [`CP932_CHARS`] by [`cp932_slot`]; an empty slot holds code 0, which no two-byte
/// character has.
const CP932_TABLE: [(u16, char); 64] = {
    let mut table = [(0u16, '\0'); 64];
    let mut i = 0;
    while i < CP932_CHARS.len() {
        let (code, c) = CP932_CHARS[i];
        let slot = cp932_slot(code);
        assert!(table[slot].0 == 0, "two codes in one slot");
        table[slot] = (code, c);
        i += 1;
    }
    table
};

/// What a character of a move line is, found by one look into a table ([`glyph`]) rather
/// than by a chain of comparisons, whose branches a predictor cannot learn (the pieces and
/// ranks of a game come in no order).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Glyph {
    /// Any character not below.
    Other,
    /// A full-width digit `１` to `９`.
    Digit(u8),
    /// A kanji numeral `一` to `九`.
    Kanji(u8),
    /// A piece's name of one character (`歩`, `と`, `龍`, `竜`, ...).
    Piece(PieceKind),
    /// `成`.
    Promote,
    /// `不`.
    Not,
    /// `打`.
    Drop,
    /// `同`.
    Same,
    /// The full-width space.
    Space,
}

/// The glyph of `c`.
#[inline(always)]
pub(crate) fn glyph(c: char) -> Glyph {
    let (k, g) = GLYPHS[glyph_slot(c)];
    if k == c { g } else { Glyph::Other }
}

/// The characters [`glyph`] knows.
const GLYPH_CHARS: [(char, Glyph); 39] = {
    use Glyph::{Digit, Kanji, Piece};
    use PieceKind::*;
    [
        ('１', Digit(1)),
        ('２', Digit(2)),
        ('３', Digit(3)),
        ('４', Digit(4)),
        ('５', Digit(5)),
        ('６', Digit(6)),
        ('７', Digit(7)),
        ('８', Digit(8)),
        ('９', Digit(9)),
        ('一', Kanji(1)),
        ('二', Kanji(2)),
        ('三', Kanji(3)),
        ('四', Kanji(4)),
        ('五', Kanji(5)),
        ('六', Kanji(6)),
        ('七', Kanji(7)),
        ('八', Kanji(8)),
        ('九', Kanji(9)),
        ('歩', Piece(Pawn)),
        ('香', Piece(Lance)),
        ('桂', Piece(Knight)),
        ('銀', Piece(Silver)),
        ('金', Piece(Gold)),
        ('角', Piece(Bishop)),
        ('飛', Piece(Rook)),
        ('玉', Piece(King)),
        ('王', Piece(King)),
        ('と', Piece(ProPawn)),
        ('杏', Piece(ProLance)),
        ('圭', Piece(ProKnight)),
        ('全', Piece(ProSilver)),
        ('馬', Piece(Horse)),
        ('龍', Piece(Dragon)),
        ('竜', Piece(Dragon)),
        ('成', Glyph::Promote),
        ('不', Glyph::Not),
        ('打', Glyph::Drop),
        ('同', Glyph::Same),
        ('\u{3000}', Glyph::Space),
    ]
};

/// The slot of a character in [`GLYPHS`]: a multiplicative hash that puts each of
/// [`GLYPH_CHARS`] in a slot of its own (the table's construction checks it).
#[inline(always)]
const fn glyph_slot(c: char) -> usize {
    ((c as u32).wrapping_mul(0x590F_CD77) >> 26) as usize
}

/// [`GLYPH_CHARS`] by [`glyph_slot`]; an empty slot holds NUL, which is no glyph.
const GLYPHS: [(char, Glyph); 64] = {
    let mut table = [('\0', Glyph::Other); 64];
    let mut i = 0;
    while i < GLYPH_CHARS.len() {
        let (c, g) = GLYPH_CHARS[i];
        let slot = glyph_slot(c);
        assert!(table[slot].0 == '\0', "two characters in one slot");
        table[slot] = (c, g);
        i += 1;
    }
    table
};

/// Appends `bytes` decoded as CP932 to `out`; `false` if any of them does not decode. CP932
/// keeps no state across a line end (no byte of a character is an LF or a CR), so a text
/// decoded line by line is the text decoded whole.
pub(crate) fn decode_cp932_line(bytes: &[u8], out: &mut String) -> bool {
    if bytes.is_ascii() {
        // ASCII is itself in CP932 (a byte below 0x80 is never part of a character there).
        out.push_str(std::str::from_utf8(bytes).unwrap_or_default());
        return true;
    }
    let mut decoder = encoding_rs::SHIFT_JIS.new_decoder_without_bom_handling();
    out.reserve(
        decoder
            .max_utf8_buffer_length_without_replacement(bytes.len())
            .unwrap_or(bytes.len() * 3),
    );
    let (result, _) = decoder.decode_to_string_without_replacement(bytes, out, true);
    result == encoding_rs::DecoderResult::InputEmpty
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every character [`Cp932::at`] reads is the one `encoding_rs` decodes from its bytes.
    #[test]
    fn cp932_reads_what_the_decoder_decodes() {
        let mut read = 0;
        for hi in 0x81..=0x9Fu8 {
            for lo in 0x40..=0xFCu8 {
                let b = [hi, lo];
                let Some((c, 2)) = Cp932::at(&b, 0) else {
                    continue;
                };
                let (text, _, bad) = encoding_rs::SHIFT_JIS.decode(&b);
                assert!(!bad);
                assert_eq!(
                    text.chars().collect::<Vec<_>>(),
                    vec![c],
                    "{hi:02X}{lo:02X}"
                );
                read += 1;
            }
        }
        // The full-width space, nine digits, nine kanji numerals and the 20 other characters.
        assert_eq!(read, 1 + 9 + 9 + 20);
        assert_eq!(Cp932::at(b"a", 0), Some(('a', 1)));
        assert_eq!(Cp932::at(b"\x81", 0), None);
    }

    /// The table of glyphs gives what the reader's matches give, for every character they
    /// know and for others.
    #[test]
    fn glyphs_are_the_readers_characters() {
        use crate::formats::kakinoki::text::{digit_value, kanji_digit};
        for c in ('\u{0}'..='\u{ffff}').filter(|c| !c.is_ascii()) {
            let want = if let Some(n) = digit_value(c) {
                Glyph::Digit(n)
            } else if let Some(n) = kanji_digit(c) {
                Glyph::Kanji(n)
            } else if let Some((k, 1)) = PieceKind::from_kif_chars(c, || None) {
                Glyph::Piece(k)
            } else {
                match c {
                    '成' => Glyph::Promote,
                    '不' => Glyph::Not,
                    '打' => Glyph::Drop,
                    '同' => Glyph::Same,
                    '\u{3000}' => Glyph::Space,
                    _ => Glyph::Other,
                }
            };
            assert_eq!(glyph(c), want, "{c:?}");
        }
    }

    /// UTF-8 characters of one to four bytes are read whole.
    #[test]
    fn utf8_reads_every_length() {
        let s = "a\u{e9}同\u{1F600}";
        let mut i = 0;
        let mut chars = Vec::new();
        while let Some((c, n)) = Utf8::at(s.as_bytes(), i) {
            chars.push(c);
            i += n;
        }
        assert_eq!(chars, s.chars().collect::<Vec<_>>());
        assert_eq!(Utf8::blanks(" \t\u{3000}x".as_bytes(), 0), (5, 3));
    }
}
