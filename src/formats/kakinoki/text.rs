//! Text helpers of the Kakinoki formats: numerals, squares, spaces, side names, and the words
//! of the special moves (`投了`, `先手 反則負け`) with the endings they name.
//!
//! Formats layer: uses `core` and `record`, nothing above.

use crate::core::{Color, Square};
use crate::record::SpecialKind;

/// A file digit: full-width `１`-`９` or ASCII `1`-`9`.
#[inline]
pub(crate) fn digit_value(c: char) -> Option<u8> {
    match c {
        '1'..='9' => Some(c as u8 - b'0'),
        '１'..='９' => Some((c as u32 - '０' as u32) as u8),
        _ => None,
    }
}

/// A kanji numeral 一-九.
#[inline]
pub(crate) fn kanji_digit(c: char) -> Option<u8> {
    Some(match c {
        '一' => 1,
        '二' => 2,
        '三' => 3,
        '四' => 4,
        '五' => 5,
        '六' => 6,
        '七' => 7,
        '八' => 8,
        '九' => 9,
        _ => return None,
    })
}

pub(super) const KANJI_DIGITS: [char; 10] =
    ['〇', '一', '二', '三', '四', '五', '六', '七', '八', '九'];
pub(super) const ZEN_DIGITS: [char; 10] =
    ['０', '１', '２', '３', '４', '５', '６', '７', '８', '９'];

/// Writes `７六` for a square.
pub(crate) fn push_square(out: &mut String, sq: Square) {
    out.push(ZEN_DIGITS[sq.file() as usize]);
    out.push(KANJI_DIGITS[sq.rank() as usize]);
}

/// Writes a count as a kanji numeral (`二`, `十`, `十八`); counts above 99 fall back to digits.
pub(crate) fn push_kanji_number(out: &mut String, n: u32) {
    if n == 0 || n > 99 {
        out.push_str(&n.to_string());
        return;
    }
    let tens = n / 10;
    let ones = n % 10;
    if tens > 1 {
        out.push(KANJI_DIGITS[tens as usize]);
    }
    if tens > 0 {
        out.push('十');
    }
    if ones > 0 {
        out.push(KANJI_DIGITS[ones as usize]);
    }
}

#[inline]
pub(super) fn is_space(c: char) -> bool {
    c == ' ' || c == '　' || c == '\t'
}

#[inline]
pub(super) fn trim_spaces(s: &str) -> &str {
    s.trim_matches(is_space)
}

/// 1-based character column of byte offset `off` in `line`.
#[inline]
pub(super) fn column(line: &str, off: usize) -> u32 {
    let off = off.min(line.len());
    let prefix = line.get(..off).unwrap_or(line);
    prefix.chars().count() as u32 + 1
}

/// The colour of a KI2 side mark.
#[inline]
pub(super) fn mark_color(c: char) -> Option<Color> {
    match c {
        '▲' | '☗' | '▼' => Some(Color::Black),
        '△' | '☖' | '▽' => Some(Color::White),
        _ => None,
    }
}

/// The kind of a KIF special word, `None` for a word this crate does not know.
pub(crate) fn special_kind(word: &str) -> Option<SpecialKind> {
    Some(match word {
        "投了" => SpecialKind::Resign,
        "中断" => SpecialKind::Interrupt,
        "千日手" => SpecialKind::Repetition,
        "連続王手の千日手" => SpecialKind::PerpetualCheck,
        "持将棋" => SpecialKind::Impasse,
        "詰み" | "詰" => SpecialKind::Mate,
        "不詰" => SpecialKind::NoMate,
        "切れ負け" | "時間切れ" => SpecialKind::Timeout,
        "反則勝ち" => SpecialKind::IllegalWin,
        "反則負け" => SpecialKind::IllegalMove,
        "入玉勝ち" => SpecialKind::Declaration,
        "封じ手" => SpecialKind::Sealed,
        "不戦勝" => SpecialKind::DefaultWin,
        "不戦敗" => SpecialKind::DefaultLoss,
        _ => return None,
    })
}

/// Whether an ending written as `written` reads back as the ending `kind`: the same kind, or
/// both a loss by a foul (`反則勝ち`, `反則負け` and CSA/JKF `ILLEGAL_ACTION` name the same
/// ending from either side).
pub(crate) fn same_ending(kind: SpecialKind, written: Option<SpecialKind>) -> bool {
    let foul = |k: SpecialKind| {
        matches!(
            k,
            SpecialKind::IllegalWin | SpecialKind::IllegalMove | SpecialKind::IllegalAction(_)
        )
    };
    written.is_some_and(|w| w == kind || (foul(w) && foul(kind)))
}

/// A foul's KIF word, named from the side to move (`turn`): its own foul is its `反則負け`,
/// the other side's its `反則勝ち` (formats.md's table of endings). The special line and the
/// `まで…` footer both name it so.
pub(crate) fn foul_word(offender: Color, turn: Color) -> &'static str {
    if offender == turn {
        "反則負け"
    } else {
        "反則勝ち"
    }
}

/// The KIF word for a special kind (`None` for kinds KIF has no word for).
pub(crate) fn kif_special_word(kind: SpecialKind) -> Option<&'static str> {
    Some(match kind {
        SpecialKind::Resign => "投了",
        SpecialKind::Interrupt => "中断",
        SpecialKind::Repetition => "千日手",
        SpecialKind::PerpetualCheck => "連続王手の千日手",
        SpecialKind::Impasse | SpecialKind::MaxMoves | SpecialKind::Draw => "持将棋",
        SpecialKind::Mate => "詰み",
        SpecialKind::NoMate => "不詰",
        SpecialKind::Timeout => "切れ負け",
        SpecialKind::IllegalMove => "反則負け",
        SpecialKind::IllegalWin | SpecialKind::IllegalAction(_) => "反則勝ち",
        SpecialKind::Declaration => "入玉勝ち",
        SpecialKind::Sealed => "封じ手",
        SpecialKind::DefaultWin => "不戦勝",
        SpecialKind::DefaultLoss => "不戦敗",
        SpecialKind::Matta | SpecialKind::Error | SpecialKind::Unknown => return None,
    })
}
