//! What KIF and KI2 (the Kakinoki formats) share: the line-classifying reader (headers, board
//! diagrams, comments, bookmarks, variations, the `まで` footer) and small text helpers used by
//! both writers.
//!
//! One reader serves both formats: it accepts numbered KIF move lines and `▲△` KI2 move lines
//! wherever they occur, as tsshogi does, so a file with the "wrong" extension still reads. The
//! only difference is that for KI2 (which has no special-move lines) the `まで` line also ends
//! the line it follows with a synthesised special node.
//!
//! Choices made here:
//! * A board diagram defines `StartPosition::Setup` even when it equals a standard handicap
//!   (it is not turned into a preset), so a KIF written back holds the diagram again and a KIF
//!   round trip is the identity. Use `Handicap::recognise` to name such a position.
//! * An unknown `手合割` value (`その他`, `詰将棋`, ...) is kept in the header; without a diagram
//!   the game starts from the even position.
//! * Decoration lines (`手数----指手--`, the ruler and frame of a diagram, `盤面回転`, `手数＝N …`)
//!   are ignored; any other line that fits no rule is a `syntax` error.
//! * A `#` after a move line, a `変化` line or a `*` comment is a program comment: it is
//!   ignored on move and `変化` lines (comment lines keep it as text).

use crate::core::{Color, Hand, Handicap, Piece, PieceKind, Setup, Square};
use crate::diag::{Code, Diagnostic};
use crate::formats::ParsedGame;
use crate::record::{
    Footer, Horizontal, MoveNode, MoveText, MoveTime, NamedPiece, NodeKind, RawText, Record,
    Relative, Source, Span, Special, SpecialKind, StartPosition, Vertical,
};

/// Which format the text is read as.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Dialect {
    /// KIF: specials are move lines; the footer is only kept.
    Kif,
    /// KI2: the footer also ends the line with a special node.
    Ki2,
}

// ---------------------------------------------------------------------------------------------
// Character helpers
// ---------------------------------------------------------------------------------------------

/// A file digit: full-width `１`-`９` or ASCII `1`-`9`.
pub(crate) fn digit_value(c: char) -> Option<u8> {
    match c {
        '1'..='9' => Some(c as u8 - b'0'),
        '１'..='９' => Some((c as u32 - '０' as u32) as u8),
        _ => None,
    }
}

/// A kanji numeral 一-九.
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

const KANJI_DIGITS: [char; 10] = ['〇', '一', '二', '三', '四', '五', '六', '七', '八', '九'];
const ZEN_DIGITS: [char; 10] = ['０', '１', '２', '３', '４', '５', '６', '７', '８', '９'];

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

/// Parses a number written in kanji (`十八`, `二`) or digits (ASCII or full-width) at the start
/// of `s`. Returns the value and the bytes used.
fn parse_count(s: &str) -> Option<(u32, usize)> {
    let mut total: u32 = 0;
    let mut cur: u32 = 0;
    let mut used = 0;
    let mut any = false;
    let mut digits = false;
    for (i, c) in s.char_indices() {
        if let Some(d) = kanji_digit(c) {
            if digits {
                break;
            }
            cur = d as u32;
        } else if c == '十' {
            if digits {
                break;
            }
            total = total.saturating_add(cur.max(1) * 10);
            cur = 0;
        } else if let Some(d) = c
            .to_digit(10)
            .or_else(|| ('０'..='９').contains(&c).then(|| c as u32 - '０' as u32))
        {
            if any && !digits {
                break;
            }
            digits = true;
            cur = cur.saturating_mul(10).saturating_add(d);
        } else {
            break;
        }
        any = true;
        used = i + c.len_utf8();
    }
    any.then_some((total.saturating_add(cur), used))
}

fn is_space(c: char) -> bool {
    c == ' ' || c == '　' || c == '\t'
}

fn trim_spaces(s: &str) -> &str {
    s.trim_matches(is_space)
}

/// 1-based character column of byte offset `off` in `line`.
fn column(line: &str, off: usize) -> u32 {
    let off = off.min(line.len());
    let prefix = line.get(..off).unwrap_or(line);
    prefix.chars().count() as u32 + 1
}

/// The side named by `先手`/`下手` (Black) or `後手`/`上手` (White) at the start of `s`.
fn side_prefix(s: &str) -> Option<(Color, usize)> {
    for (w, c) in [
        ("先手", Color::Black),
        ("下手", Color::Black),
        ("後手", Color::White),
        ("上手", Color::White),
    ] {
        if s.starts_with(w) {
            return Some((c, w.len()));
        }
    }
    None
}

/// The colour of a KI2 side mark.
fn mark_color(c: char) -> Option<Color> {
    match c {
        '▲' | '☗' | '▼' => Some(Color::Black),
        '△' | '☖' | '▽' => Some(Color::White),
        _ => None,
    }
}

// ---------------------------------------------------------------------------------------------
// Special moves and the footer
// ---------------------------------------------------------------------------------------------

/// The kind of a KIF special word, `None` for a word this crate does not know.
pub(crate) fn special_kind(word: &str) -> Option<SpecialKind> {
    Some(match word {
        "投了" => SpecialKind::Resign,
        "中断" => SpecialKind::Interrupt,
        "千日手" => SpecialKind::Repetition,
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

/// Parses special text as KIF writes it (`投了`, `先手 反則負け`): kind and named side.
pub(crate) fn parse_special_text(text: &str) -> (SpecialKind, Option<Color>) {
    let t = trim_spaces(text);
    if let Some((side, n)) = side_prefix(t) {
        let rest = t.get(n..).unwrap_or("");
        if rest.starts_with(is_space) {
            let w = trim_spaces(rest);
            if let Some(k) = special_kind(w) {
                return (k, Some(side));
            }
        }
    }
    (special_kind(t).unwrap_or(SpecialKind::Unknown), None)
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

/// The KIF word for a special kind (`None` for kinds KIF has no word for).
pub(crate) fn kif_special_word(kind: SpecialKind) -> Option<&'static str> {
    Some(match kind {
        SpecialKind::Resign => "投了",
        SpecialKind::Interrupt => "中断",
        SpecialKind::Repetition => "千日手",
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

/// Parses a `まで…` line (already known to start with `まで`).
pub(crate) fn parse_footer(text: &str, span: Span) -> Footer {
    let mut footer = Footer {
        text: text.to_string(),
        plies: None,
        winner: None,
        kind: None,
        span,
    };
    let mut rest = text.strip_prefix("まで").unwrap_or(text);
    rest = rest.trim_start_matches(['、', ',', '，']);
    rest = rest.trim_start_matches(is_space);
    if let Some((n, used)) = parse_count(rest) {
        footer.plies = Some(n);
        rest = rest.get(used..).unwrap_or("");
    }
    rest = rest.strip_prefix('手').unwrap_or(rest);
    rest = rest.strip_prefix('で').unwrap_or(rest);
    // A program comment after the result (`…負け#メモ`) is not part of it.
    if let Some(i) = rest.find('#') {
        rest = rest.get(..i).unwrap_or(rest);
    }
    let result = trim_spaces(rest);
    let (kind, winner) = footer_result(result);
    footer.kind = kind;
    footer.winner = winner;
    footer
}

fn footer_result(result: &str) -> (Option<SpecialKind>, Option<Color>) {
    match result {
        "詰" | "詰み" => return (Some(SpecialKind::Mate), None),
        "不詰" => return (Some(SpecialKind::NoMate), None),
        "中断" => return (Some(SpecialKind::Interrupt), None),
        "千日手" => return (Some(SpecialKind::Repetition), None),
        "持将棋" => return (Some(SpecialKind::Impasse), None),
        "封じ手" => return (Some(SpecialKind::Sealed), None),
        _ => {}
    }
    let (timeout, r) = match result.strip_prefix("時間切れにより") {
        Some(r) => (true, r),
        None => (false, result),
    };
    let Some((side, n)) = side_prefix(r) else {
        return (None, None);
    };
    let tail = r.get(n..).unwrap_or("");
    let tail = tail.strip_prefix('の').unwrap_or(tail);
    let (kind, winner) = match tail {
        "勝ち" if timeout => (SpecialKind::Timeout, side),
        "勝ち" => (SpecialKind::Resign, side),
        "反則勝ち" => (SpecialKind::IllegalWin, side),
        "反則負け" => (SpecialKind::IllegalMove, side.flip()),
        "入玉勝ち" => (SpecialKind::Declaration, side),
        "切れ負け" | "時間切れ負け" => (SpecialKind::Timeout, side.flip()),
        "不戦勝" => (SpecialKind::DefaultWin, side),
        "不戦敗" => (SpecialKind::DefaultLoss, side.flip()),
        _ => return (None, None),
    };
    (Some(kind), Some(winner))
}

// ---------------------------------------------------------------------------------------------
// Move text
// ---------------------------------------------------------------------------------------------

/// Why move text did not parse: a message and the byte offset (in the text) where.
#[derive(Debug)]
struct MoveSyntax {
    msg: &'static str,
    at: usize,
}

fn syntax(msg: &'static str, at: usize) -> MoveSyntax {
    MoveSyntax { msg, at }
}

/// Parses destination + piece at the start of `s`. Returns (to or None for 同, piece, bytes).
fn parse_dest_piece(s: &str) -> Result<(Option<Square>, PieceKind, usize), MoveSyntax> {
    let mut it = s.char_indices();
    let (_, c0) = it.next().ok_or(syntax("move text expected", 0))?;
    let (to, mut pos) = if c0 == '同' {
        let mut p = c0.len_utf8();
        for c in s.get(p..).unwrap_or("").chars() {
            if is_space(c) {
                p += c.len_utf8();
            } else {
                break;
            }
        }
        (None, p)
    } else {
        let file = digit_value(c0).ok_or(syntax("destination square expected", 0))?;
        let (i1, c1) = it.next().ok_or(syntax("rank expected", c0.len_utf8()))?;
        let rank = kanji_digit(c1)
            .or_else(|| digit_value(c1))
            .ok_or(syntax("rank (一-九) expected", i1))?;
        let sq = Square::new(file, rank).ok_or(syntax("bad square", 0))?;
        (Some(sq), i1 + c1.len_utf8())
    };
    let rest = s.get(pos..).unwrap_or("");
    let (kind, n) = PieceKind::from_kif_prefix(rest).ok_or(syntax("piece name expected", pos))?;
    for c in rest.chars().take(n) {
        pos += c.len_utf8();
    }
    Ok((to, kind, pos))
}

/// Parses `( m:ss / h:mm:ss)` at the start of `s`. Returns the time and the bytes used.
fn parse_time(s: &str) -> Option<(MoveTime, usize)> {
    parse_time_fast(s.as_bytes()).or_else(|| parse_time_slow(s))
}

/// ASCII spaces from `i`.
fn skip_ascii_spaces(b: &[u8], mut i: usize) -> usize {
    while b.get(i) == Some(&b' ') {
        i += 1;
    }
    i
}

/// `h:mm:ss`, `m:ss` or `s` (ASCII digits, ASCII spaces around the colons) at `i`: the time in
/// milliseconds and the index after it.
fn clock_fast(b: &[u8], mut i: usize) -> Option<(u64, usize)> {
    let mut secs: u64 = 0;
    let mut fields = 0;
    loop {
        i = skip_ascii_spaces(b, i);
        let start = i;
        let mut v: u64 = 0;
        while let Some(&d) = b.get(i).filter(|d| d.is_ascii_digit()) {
            v = v.checked_mul(10)?.checked_add(u64::from(d - b'0'))?;
            i += 1;
            if i - start > 19 {
                return None;
            }
        }
        if i == start {
            return None;
        }
        secs = secs.checked_mul(60)?.checked_add(v)?;
        fields += 1;
        i = skip_ascii_spaces(b, i);
        if fields < 3 && b.get(i) == Some(&b':') {
            i += 1;
            continue;
        }
        return Some((secs.checked_mul(1000)?, i));
    }
}

/// The common layouts of a KIF time, read byte by byte.
fn parse_time_fast(b: &[u8]) -> Option<(MoveTime, usize)> {
    if b.first() != Some(&b'(') {
        return None;
    }
    let (elapsed, mut i) = clock_fast(b, 1)?;
    let mut total = None;
    if b.get(i) == Some(&b'/') {
        i = skip_ascii_spaces(b, i + 1);
        if b.get(i) != Some(&b')') {
            let (t, j) = clock_fast(b, i)?;
            total = Some(t);
            i = j;
        }
    }
    (b.get(i) == Some(&b')')).then_some((
        MoveTime {
            elapsed_ms: Some(elapsed),
            total_ms: total,
        },
        i + 1,
    ))
}

/// Any other layout (full-width spaces...).
fn parse_time_slow(s: &str) -> Option<(MoveTime, usize)> {
    let inner_end = s.find(')')?;
    let inner = s.get(1..inner_end)?;
    let (now, total) = match inner.split_once('/') {
        Some((a, b)) => (a, Some(b)),
        None => (inner, None),
    };
    let elapsed = parse_clock(trim_spaces(now))?;
    let total = match total.map(trim_spaces) {
        None | Some("") => None,
        Some(t) => Some(parse_clock(t)?),
    };
    Some((
        MoveTime {
            elapsed_ms: Some(elapsed),
            total_ms: total,
        },
        inner_end + 1,
    ))
}

/// `m:ss`, `h:mm:ss` (any number of digits per field) in milliseconds.
fn parse_clock(s: &str) -> Option<u64> {
    let mut secs: u64 = 0;
    let mut parts = 0;
    for p in s.split(':') {
        let p = trim_spaces(p);
        if p.is_empty() || p.len() > 19 || !p.bytes().all(|b| b.is_ascii_digit()) {
            return None;
        }
        let v: u64 = p.parse().ok()?;
        secs = secs.checked_mul(60)?.checked_add(v)?;
        parts += 1;
    }
    if !(1..=3).contains(&parts) {
        return None;
    }
    secs.checked_mul(1000)
}

/// Spaces (ASCII, tab, full-width) from byte `i`.
fn skip_spaces_bytes(b: &[u8], mut i: usize) -> usize {
    loop {
        match b.get(i) {
            Some(b' ') | Some(b'\t') => i += 1,
            Some(0xE3) if b.get(i + 1) == Some(&0x80) && b.get(i + 2) == Some(&0x80) => i += 3,
            _ => return i,
        }
    }
}

/// What follows a move on a KIF line: time, `+`, a `#` comment. Returns the time.
fn parse_tail(s: &str, base: usize) -> Result<Option<MoveTime>, MoveSyntax> {
    let b = s.as_bytes();
    let mut pos = skip_spaces_bytes(b, 0);
    let mut time = None;
    if b.get(pos) == Some(&b'(') {
        let (t, n) = parse_time(s.get(pos..).unwrap_or(""))
            .ok_or(syntax("bad time (expected `( m:ss/h:mm:ss)`)", base + pos))?;
        time = Some(t);
        pos = skip_spaces_bytes(b, pos + n);
    }
    if b.get(pos) == Some(&b'+') {
        pos = skip_spaces_bytes(b, pos + 1);
    }
    match b.get(pos) {
        None | Some(b'#') => Ok(time),
        Some(_) => Err(syntax("unexpected text after the move", base + pos)),
    }
}

/// A KIF move after the ply number: move or special, with time.
/// Whether `text`, written as the body of a KIF move line, reads back as an ending of this
/// kind and side with this very text and no time (an ending's text that ends like a time,
/// `( 0:01/00:00:01)`, would read back with that time).
pub(crate) fn special_body_reads_back(text: &str, kind: SpecialKind, side: Option<Color>) -> bool {
    matches!(parse_kif_move(text), Ok((NodeKind::Special(s), None))
        if s.text == text && s.kind == kind && s.side == side)
}

fn parse_kif_move(body: &str) -> Result<(NodeKind, Option<MoveTime>), MoveSyntax> {
    let mut s = body;
    let mut off = 0;
    let mut color = None;
    if let Some(c) = s.chars().next().and_then(mark_color) {
        color = Some(c);
        let n = s.chars().next().map_or(0, char::len_utf8);
        s = s.get(n..).unwrap_or("");
        off += n;
    }
    let first = s.chars().next().ok_or(syntax("move expected", off))?;
    if first == '同' || digit_value(first).is_some() {
        let (to, kind, mut pos) = parse_dest_piece(s).map_err(|e| syntax(e.msg, e.at + off))?;
        let mut promote = None;
        let rest = s.get(pos..).unwrap_or("");
        if rest.starts_with("不成") {
            promote = Some(false);
            pos += "不成".len();
        } else if rest.starts_with('成') {
            promote = Some(true);
            pos += '成'.len_utf8();
        }
        let rest = s.get(pos..).unwrap_or("");
        let from = if rest.starts_with('打') {
            pos += '打'.len_utf8();
            Source::Drop
        } else if rest.starts_with('(') {
            let b = rest.as_bytes();
            let sq = match (b.get(1), b.get(2), b.get(3)) {
                (Some(&f), Some(&r), Some(b')')) if f.is_ascii_digit() && r.is_ascii_digit() => {
                    Square::new(f - b'0', r - b'0')
                }
                _ => None,
            };
            let sq = sq.ok_or(syntax("bad source square (expected `(77)`)", off + pos))?;
            pos += 4;
            Source::Square(sq)
        } else {
            Source::Unknown
        };
        let raw = RawText::from(s.get(..pos).unwrap_or(s));
        let time = parse_tail(s.get(pos..).unwrap_or(""), off + pos)?;
        let text = MoveText {
            color,
            from,
            to: to.unwrap_or(SQ11),
            same: to.is_none(),
            piece: Some(NamedPiece::Before(kind)),
            promote,
            relative: Relative {
                drop: from == Source::Drop,
                ..Relative::default()
            },
            raw,
        };
        return Ok((
            NodeKind::Move {
                text,
                resolved: None,
            },
            time,
        ));
    }
    // A special word, possibly preceded by the side it names (`先手 反則負け`).
    let word_end = |t: &str| t.find(is_space).unwrap_or(t.len());
    let mut end = word_end(s);
    let mut side = None;
    if let Some((c, n)) = side_prefix(s)
        && n == end
    {
        let after = s.get(end..).unwrap_or("");
        let skipped = after.len() - after.trim_start_matches(is_space).len();
        let w2 = after.get(skipped..).unwrap_or("");
        let e2 = word_end(w2);
        if e2 > 0 && special_kind(w2.get(..e2).unwrap_or("")).is_some() {
            side = Some(c);
            end += skipped + e2;
        }
    }
    let text = s.get(..end).unwrap_or(s);
    let word = match side {
        Some(_) => trim_spaces(
            text.get(side_prefix(text).map_or(0, |x| x.1)..)
                .unwrap_or(""),
        ),
        None => text,
    };
    let kind = special_kind(word).unwrap_or(SpecialKind::Unknown);
    let time = parse_tail(s.get(end..).unwrap_or(""), off + end)?;
    Ok((
        NodeKind::Special(Special {
            kind,
            text: text.to_string(),
            side,
        }),
        time,
    ))
}

/// A placeholder destination for `同` until the previous move's destination is filled in.
const SQ11: Square = match Square::new(1, 1) {
    Some(s) => s,
    None => panic!("1-1 is a square"),
};

/// One KI2 token (`▲同銀右上成`), starting with its side mark.
fn parse_ki2_token(tok: &str) -> Result<NodeKind, MoveSyntax> {
    let mut chars = tok.chars();
    let mark = chars.next().ok_or(syntax("move expected", 0))?;
    let color = mark_color(mark).ok_or(syntax("side mark expected", 0))?;
    let off = mark.len_utf8();
    let s = trim_spaces(tok.get(off..).unwrap_or(""));
    let lead = tok
        .get(off..)
        .map_or(0, |t| t.len() - t.trim_start_matches(is_space).len());
    let off = off + lead;
    let first = s
        .chars()
        .next()
        .ok_or(syntax("move expected after the side mark", off))?;
    if first != '同' && digit_value(first).is_none() {
        let (kind, side) = parse_special_text(s);
        return Ok(NodeKind::Special(Special {
            kind,
            text: s.to_string(),
            side,
        }));
    }
    let (to, kind, mut pos) = parse_dest_piece(s).map_err(|e| syntax(e.msg, e.at + off))?;
    let mut relative = Relative::default();
    let mut promote = None;
    let mut from = Source::Unknown;
    loop {
        let rest = s.get(pos..).unwrap_or("");
        let Some(c) = rest.chars().next() else { break };
        match c {
            '右' => relative.horizontal = Some(Horizontal::Right),
            '左' => relative.horizontal = Some(Horizontal::Left),
            '直' => relative.horizontal = Some(Horizontal::Straight),
            '上' | '行' => relative.vertical = Some(Vertical::Up),
            '寄' => relative.vertical = Some(Vertical::Sideways),
            '引' => relative.vertical = Some(Vertical::Down),
            '成' => promote = Some(true),
            '打' => relative.drop = true,
            '不' if rest.starts_with("不成") => {
                promote = Some(false);
                pos += '不'.len_utf8();
            }
            '(' => {
                let b = rest.as_bytes();
                let sq = match (b.get(1), b.get(2), b.get(3)) {
                    (Some(&f), Some(&r), Some(b')'))
                        if f.is_ascii_digit() && r.is_ascii_digit() =>
                    {
                        Square::new(f - b'0', r - b'0')
                    }
                    _ => None,
                };
                from = Source::Square(sq.ok_or(syntax("bad source square", off + pos))?);
                pos += 4;
                continue;
            }
            _ => return Err(syntax("unexpected text in the move", off + pos)),
        }
        pos += c.len_utf8();
    }
    if relative.drop {
        from = Source::Drop;
    }
    Ok(NodeKind::Move {
        text: MoveText {
            color: Some(color),
            from,
            to: to.unwrap_or(SQ11),
            same: to.is_none(),
            piece: Some(NamedPiece::Before(kind)),
            promote,
            relative,
            raw: RawText::from(tok.trim_end_matches(is_space)),
        },
        resolved: None,
    })
}

// ---------------------------------------------------------------------------------------------
// The reader
// ---------------------------------------------------------------------------------------------

/// A line of play being built: the main line or a variation.
struct Line {
    /// Ply of its first node.
    start_ply: u32,
    nodes: Vec<MoveNode>,
    /// (line, node index) this line is an alternative to.
    parent: Option<(usize, usize)>,
    /// Destination of the move before this line's first node (for `同`).
    prev_to: Option<Square>,
    /// Comments and bookmark read before this line's first node.
    pending_comments: Vec<String>,
    pending_bookmark: Option<String>,
    /// Whether `start_ply` came from a written number.
    numbered: bool,
    /// Nesting depth (0 for the main line).
    depth: u32,
}

/// Deepest nesting of variations kept (a variation of a variation ... of the main line):
/// deeper blocks are reported and dropped, so that no input can build a tree whose recursive
/// handling (validate, writers, clone, drop) exhausts a worker thread's stack: 3,000 levels
/// overflowed it; 1,000 are validated and converted to every format in tests/hostile.rs. No
/// real record nests anywhere near this deep.
pub(crate) const MAX_DEPTH: u32 = 1000;

impl Line {
    fn new(start_ply: u32, parent: Option<(usize, usize)>, prev_to: Option<Square>) -> Line {
        Line {
            start_ply,
            nodes: Vec::new(),
            parent,
            prev_to,
            pending_comments: Vec::new(),
            pending_bookmark: None,
            numbered: parent.is_some(),
            depth: 0,
        }
    }

    /// The destination of the last move before index `idx`.
    fn to_before(&self, idx: usize) -> Option<Square> {
        if idx == 0 {
            return self.prev_to;
        }
        match self.nodes.get(idx - 1).map(|n| &n.kind) {
            Some(NodeKind::Move { text, .. }) => Some(text.to),
            Some(NodeKind::Special(_)) => self.to_before(idx - 1),
            None => None,
        }
    }
}

/// Board-diagram state.
#[derive(Default)]
struct Bod {
    seen: bool,
    rows: bool,
    board: Option<Box<Setup>>,
    hands: [Hand; 2],
    turn: Option<Color>,
    next_rank: u8,
}

struct Parser {
    dialect: Dialect,
    record: Record,
    diags: Vec<Diagnostic>,
    lines: Vec<Line>,
    stack: Vec<usize>,
    /// The line moves go to; `None` after a bad `変化` line (moves are dropped).
    cur: Option<usize>,
    seen_move: bool,
    handicap: Option<Handicap>,
    bod: Bod,
}

/// Reads KIF or KI2 text into one game.
pub(crate) fn parse(text: &str, dialect: Dialect) -> ParsedGame {
    let mut p = Parser {
        dialect,
        record: Record::default(),
        diags: Vec::new(),
        lines: vec![Line::new(1, None, None)],
        stack: vec![0],
        cur: Some(0),
        seen_move: false,
        handicap: None,
        bod: Bod::default(),
    };
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    if let Some(main) = p.lines.first_mut() {
        main.nodes.reserve(text.len() / 48);
    }
    // Lines split by hand: short lines make a byte loop faster than `split('\n')`.
    let bytes = text.as_bytes();
    let mut start = 0;
    let mut lineno: u32 = 0;
    while start <= bytes.len() {
        let end = bytes
            .get(start..)
            .and_then(|r| r.iter().position(|&b| b == b'\n'))
            .map_or(bytes.len(), |n| start + n);
        lineno = lineno.saturating_add(1);
        let raw = text.get(start..end).unwrap_or("");
        p.line(raw.trim_end_matches('\r'), lineno);
        start = end + 1;
    }
    p.finish()
}

impl Parser {
    fn err(&mut self, msg: impl Into<String>, line: u32, col: u32) {
        self.diags
            .push(Diagnostic::new(Code::Syntax, msg).at(Span::new(line, col)));
    }

    fn line(&mut self, line: &str, no: u32) {
        let t = line.trim_end_matches(is_space);
        if t.is_empty() || t.starts_with('#') {
            return;
        }
        // Lines whose first character decides their class (rules 9, 10 and 4 cannot clash
        // with any earlier rule), for speed.
        match t.as_bytes().first() {
            Some(b'*') => {
                self.comment(line.get(1..).unwrap_or("").to_string());
                return;
            }
            Some(b'&') => {
                self.bookmark(t.get(1..).unwrap_or("").to_string());
                return;
            }
            Some(b'|') => {
                self.position_line_check(no);
                self.board_row(t, no);
                return;
            }
            _ => {}
        }
        // 6. KIF move line (checked first: rules 2-5 never start with a space or a digit)
        let lead = t.len() - t.trim_start_matches(' ').len();
        let after_lead = t.get(lead..).unwrap_or("");
        let ndig = after_lead.bytes().take_while(u8::is_ascii_digit).count();
        if ndig > 0 {
            let after_num = after_lead.get(ndig..).unwrap_or("");
            if after_num.starts_with(is_space) {
                let number: Option<u32> = after_lead.get(..ndig).and_then(|d| d.parse().ok());
                let body_off = t.len() - after_num.trim_start_matches(is_space).len();
                self.kif_move_line(t, body_off, number, no);
                return;
            }
        }
        // 2. 手合割
        if let Some(v) = header_value(line, "手合割") {
            self.position_line_check(no);
            self.handicap = Handicap::from_kif_name(v);
            self.record
                .header
                .push("手合割", v.to_string(), Span::new(no, 1));
            return;
        }
        // 3. hands
        for (w, c) in [
            ("先手の持駒", Color::Black),
            ("下手の持駒", Color::Black),
            ("後手の持駒", Color::White),
            ("上手の持駒", Color::White),
            ("先手持駒", Color::Black),
            ("下手持駒", Color::Black),
            ("後手持駒", Color::White),
            ("上手持駒", Color::White),
        ] {
            if let Some(v) = header_value(t, w) {
                self.position_line_check(no);
                self.hand_line(v, c, t, no);
                return;
            }
        }
        // 4. board row
        if t.starts_with('|') {
            self.position_line_check(no);
            self.board_row(t, no);
            return;
        }
        // 5. side to move
        match t {
            "先手番" | "下手番" => {
                self.position_line_check(no);
                self.bod.seen = true;
                self.bod.turn = Some(Color::Black);
                return;
            }
            "後手番" | "上手番" => {
                self.position_line_check(no);
                self.bod.seen = true;
                self.bod.turn = Some(Color::White);
                return;
            }
            _ => {}
        }
        // 7. KI2 move line
        let lead2 = t.len() - t.trim_start_matches(is_space).len();
        if t.get(lead2..)
            .and_then(|r| r.chars().next())
            .and_then(mark_color)
            .is_some()
        {
            self.ki2_line(t, lead2, no);
            return;
        }
        // 8. variation
        if let Some(v) = t
            .strip_prefix("変化")
            .and_then(|r| r.strip_prefix(['：', ':']))
        {
            self.variation(v, t, no);
            return;
        }
        // 9. comment
        if let Some(c) = t.strip_prefix('*') {
            // Keep the comment as written (only the line ending is removed).
            let c = line.strip_prefix('*').unwrap_or(c);
            self.comment(c.to_string());
            return;
        }
        // 10. bookmark
        if let Some(b) = t.strip_prefix('&') {
            self.bookmark(b.to_string());
            return;
        }
        // 11. footer
        if t.starts_with("まで") {
            self.footer(t, no);
            return;
        }
        // 12. header
        if let Some(i) = t.find(['：', ':']) {
            let key = t.get(..i).unwrap_or("");
            if !key.is_empty() && !key.contains(is_space) {
                let sep = t
                    .get(i..)
                    .and_then(|r| r.chars().next())
                    .map_or(1, char::len_utf8);
                let value = t.get(i + sep..).unwrap_or("");
                // Keep the value as written, trailing spaces included.
                let value = line.get(i + sep..).unwrap_or(value);
                self.record.header.push(key, value, Span::new(no, 1));
                return;
            }
        }
        if is_decoration(t) {
            return;
        }
        self.err(format!("cannot parse line: {t}"), no, 1);
    }

    fn position_line_check(&mut self, no: u32) {
        if self.seen_move {
            self.err("position line after the first move", no, 1);
        }
    }

    fn hand_line(&mut self, v: &str, color: Color, t: &str, no: u32) {
        self.bod.seen = true;
        let base = t.len() - v.len();
        let mut hand = Hand::EMPTY;
        let v_trim = trim_spaces(v);
        if v_trim != "なし" && !v_trim.is_empty() {
            let mut pos = 0;
            while pos < v.len() {
                let rest = v.get(pos..).unwrap_or("");
                let Some(c) = rest.chars().next() else { break };
                if is_space(c) || c == '、' || c == ',' {
                    pos += c.len_utf8();
                    continue;
                }
                let Some((kind, 1)) = PieceKind::from_kif_prefix(rest) else {
                    self.err("piece name expected in hand", no, column(t, base + pos));
                    return;
                };
                if !kind.is_hand_kind() {
                    self.err(
                        "this piece cannot be held in hand",
                        no,
                        column(t, base + pos),
                    );
                    return;
                }
                pos += c.len_utf8();
                let (n, used) = parse_count(v.get(pos..).unwrap_or("")).unwrap_or((1, 0));
                pos += used;
                let total = u32::from(hand.count(kind)).saturating_add(n).min(255) as u8;
                hand.set(kind, total);
            }
        }
        self.bod.hands[color.index()] = hand;
    }

    fn board_row(&mut self, t: &str, no: u32) {
        self.bod.seen = true;
        self.bod.rows = true;
        let board = self
            .bod
            .board
            .get_or_insert_with(|| Box::new(Setup::empty()));
        let body = t.get(1..).unwrap_or("");
        let mut cells: [Option<Piece>; 9] = [None; 9];
        let mut chars = body.char_indices();
        let mut n = 0usize;
        let mut end = None;
        let mut bad = None;
        while let Some((i, c)) = chars.next() {
            if c == '|' {
                end = Some(i + 1);
                break;
            }
            if n >= 9 {
                bad = Some((i, "more than nine cells in a board row"));
                break;
            }
            let color = match c {
                ' ' | '^' | '+' => Color::Black,
                'v' | 'V' => Color::White,
                '・' | '　' => {
                    // An empty cell written without its leading space.
                    cells[n] = None;
                    n += 1;
                    continue;
                }
                _ => {
                    bad = Some((i, "side mark (space or v) expected"));
                    break;
                }
            };
            let Some((j, pc)) = chars.next() else {
                bad = Some((i, "piece expected"));
                break;
            };
            if pc == '・' || pc == '　' || pc == ' ' {
                cells[n] = None;
            } else {
                let mut b = [0u8; 4];
                match PieceKind::from_kif_prefix(pc.encode_utf8(&mut b)) {
                    Some((k, 1)) => cells[n] = Some(Piece::new(color, k)),
                    _ => {
                        bad = Some((j, "piece expected"));
                        break;
                    }
                }
            }
            n += 1;
        }
        if let Some((i, msg)) = bad {
            self.err(msg, no, column(t, i + 1));
            return;
        }
        let Some(end) = end.filter(|_| n == 9) else {
            self.err("a board row needs nine cells between `|`", no, 1);
            return;
        };
        let rank = body
            .get(end..)
            .and_then(|r| r.chars().next())
            .and_then(kanji_digit)
            .unwrap_or(self.bod.next_rank.saturating_add(1));
        self.bod.next_rank = rank;
        for (i, cell) in cells.iter().enumerate() {
            if let Some(sq) = Square::new(9 - i as u8, rank) {
                board.set_piece(sq, *cell);
            }
        }
    }

    fn cur_line(&mut self) -> Option<&mut Line> {
        self.cur.and_then(|c| self.lines.get_mut(c))
    }

    /// Appends a node to the current line, filling `同` and checking the number.
    fn push_node(&mut self, mut node: MoveNode, number: Option<u32>, no: u32, col: u32) {
        self.seen_move = true;
        let Some(cur) = self.cur else { return };
        let Some(line) = self.lines.get_mut(cur) else {
            return;
        };
        if line.nodes.is_empty() && !line.numbered {
            if let Some(n) = number {
                line.start_ply = n;
            }
            line.numbered = true;
        }
        let idx = line.nodes.len();
        let expected = line.start_ply.saturating_add(idx as u32);
        if let Some(n) = number
            && n != expected
        {
            self.diags.push(
                Diagnostic::new(
                    Code::MoveNumber,
                    format!("move number {n} where {expected} was expected"),
                )
                .at(Span::new(no, 1))
                .ply(expected),
            );
        }
        if let NodeKind::Move { text, .. } = &mut node.kind
            && text.same
        {
            match line.to_before(idx) {
                Some(to) => text.to = to,
                None => {
                    let raw = text.raw.to_string();
                    self.diags.push(
                        Diagnostic::new(Code::Syntax, "同 with no previous move")
                            .at(Span::new(no, col))
                            .ply(expected)
                            .with_move(raw),
                    );
                    return;
                }
            }
        }
        if idx == 0 {
            node.comments.append(&mut line.pending_comments);
            if node.bookmark.is_none() {
                node.bookmark = line.pending_bookmark.take();
            }
        }
        line.nodes.push(node);
    }

    fn kif_move_line(&mut self, t: &str, body_off: usize, number: Option<u32>, no: u32) {
        let body = t.get(body_off..).unwrap_or("");
        let col = column(t, body_off);
        match parse_kif_move(body) {
            Ok((kind, time)) => {
                let mut node = MoveNode::new(kind, Span::new(no, col));
                node.time = time;
                node.number = number;
                self.push_node(node, number, no, col);
            }
            Err(e) => {
                self.seen_move = true;
                let mv = trim_spaces(body).to_string();
                self.diags.push(
                    Diagnostic::new(Code::Syntax, format!("bad move line: {}", e.msg))
                        .at(Span::new(no, column(t, body_off + e.at)))
                        .with_move(mv),
                );
                // Later moves of this line would be misplaced: drop them.
                self.cur = None;
            }
        }
    }

    fn ki2_line(&mut self, t: &str, start: usize, no: u32) {
        let mut starts: Vec<usize> = t
            .char_indices()
            .filter(|&(i, c)| i >= start && mark_color(c).is_some())
            .map(|(i, _)| i)
            .collect();
        starts.push(t.len());
        for w in starts.windows(2) {
            let (a, b) = (w[0], w[1]);
            let tok = t.get(a..b).unwrap_or("");
            // A program comment ends the line.
            let (tok, stop) = match tok.find('#') {
                Some(i) => (tok.get(..i).unwrap_or(tok), true),
                None => (tok, false),
            };
            let tok = tok.trim_end_matches(is_space);
            let col = column(t, a);
            match parse_ki2_token(tok) {
                Ok(kind) => {
                    let node = MoveNode::new(kind, Span::new(no, col));
                    self.push_node(node, None, no, col);
                }
                Err(e) => {
                    self.seen_move = true;
                    self.diags.push(
                        Diagnostic::new(Code::Syntax, format!("bad move: {}", e.msg))
                            .at(Span::new(no, column(t, a + e.at)))
                            .with_move(tok.to_string()),
                    );
                    self.cur = None;
                    return;
                }
            }
            if stop {
                return;
            }
        }
    }

    fn variation(&mut self, v: &str, t: &str, no: u32) {
        if !self.seen_move {
            // A 変化 line in the header area is a writer bug: ignore it.
            return;
        }
        let v = match v.find('#') {
            Some(i) => v.get(..i).unwrap_or(v),
            None => v,
        };
        let s = trim_spaces(v);
        let n = s
            .strip_suffix('手')
            .map(trim_spaces)
            .filter(|d| {
                d.chars()
                    .all(|c| c.is_ascii_digit() || ('０'..='９').contains(&c))
            })
            .and_then(|d| parse_count(d).filter(|&(_, used)| used == d.len()))
            .map(|(n, _)| n);
        let Some(n) = n else {
            self.err(
                "bad variation line (expected `変化：N手`)",
                no,
                column(t, t.len() - v.len()),
            );
            self.cur = None;
            return;
        };
        while self.stack.len() > 1 {
            let top = self.stack.last().copied().unwrap_or(0);
            // Pop lines that do not hold ply n (the block is an alternative to ply n).
            if self
                .lines
                .get(top)
                .is_some_and(|l| l.start_ply >= n || (n - l.start_ply) as usize >= l.nodes.len())
            {
                self.stack.pop();
            } else {
                break;
            }
        }
        let top = self.stack.last().copied().unwrap_or(0);
        let Some(parent) = self.lines.get(top) else {
            return;
        };
        let Some(idx) = n.checked_sub(parent.start_ply).map(|i| i as usize) else {
            self.err(
                format!("variation at ply {n} is before the first move"),
                no,
                1,
            );
            self.cur = None;
            return;
        };
        if idx == parent.nodes.len() {
            // A branch one ply after the end of its line continues that line.
            self.cur = Some(top);
            return;
        }
        if idx > parent.nodes.len() {
            self.err(
                format!("variation at ply {n} is after the end of its line"),
                no,
                1,
            );
            self.cur = None;
            return;
        }
        let prev_to = parent.to_before(idx);
        let depth = parent.depth + 1;
        if depth > MAX_DEPTH {
            self.err(
                format!("variations nested deeper than {MAX_DEPTH} levels are not read"),
                no,
                1,
            );
            self.cur = None;
            return;
        }
        let mut line = Line::new(n, Some((top, idx)), prev_to);
        line.depth = depth;
        self.lines.push(line);
        let new = self.lines.len() - 1;
        self.stack.push(new);
        self.cur = Some(new);
    }

    fn comment(&mut self, c: String) {
        if !self.seen_move {
            self.record.start_comments.push(c);
            return;
        }
        if let Some(line) = self.cur_line() {
            match line.nodes.last_mut() {
                Some(n) => n.comments.push(c),
                None => line.pending_comments.push(c),
            }
        }
    }

    fn bookmark(&mut self, b: String) {
        // A bookmark is a one-line label: a CR left at its end (a line `&name\r\t`, whose
        // CR is not part of a CRLF ending) is dropped with the trailing spaces, as it could
        // not be written back: `&name\r\n` reads as `name`.
        let b = match b.trim_end_matches(|c| is_space(c) || c == '\r') {
            t if t.len() == b.len() => b,
            t => t.to_string(),
        };
        if !self.seen_move {
            self.record.start_bookmark = Some(b);
            return;
        }
        if let Some(line) = self.cur_line() {
            match line.nodes.last_mut() {
                Some(n) => n.bookmark = Some(b),
                None => line.pending_bookmark = Some(b),
            }
        }
    }

    fn footer(&mut self, t: &str, no: u32) {
        let footer = parse_footer(t, Span::new(no, 1));
        let on_main = self.cur == Some(0);
        if self.dialect == Dialect::Ki2
            && let Some(special) = footer.ending()
            && let Some(cur) = self.cur
            && let Some(line) = self.lines.get_mut(cur)
            && line.nodes.last().is_none_or(|n| n.special().is_none())
        {
            let node = MoveNode::new(NodeKind::Special(special), Span::new(no, 1));
            line.nodes.push(node);
            // Comments after the ending are the ending's, even when no move came before it.
            self.seen_move = true;
        }
        if on_main && self.record.footer.is_none() {
            self.record.footer = Some(footer);
        }
    }

    fn finish(mut self) -> ParsedGame {
        // Start position.
        if self.bod.seen {
            let mut setup = match self.bod.board.take() {
                Some(b) => *b,
                None => self.handicap.unwrap_or(Handicap::Even).setup(),
            };
            setup.hands.black = self.bod.hands[0];
            setup.hands.white = self.bod.hands[1];
            if let Some(turn) = self.bod.turn {
                setup.turn = turn;
            } else if self.bod.rows {
                setup.turn = Color::Black;
            }
            self.record.start = StartPosition::Setup(Box::new(setup));
        } else if let Some(h) = self.handicap {
            self.record.start = StartPosition::Preset(h);
        }
        // Pending comments of an empty main line belong to the start.
        if let Some(main) = self.lines.first_mut() {
            let mut c = std::mem::take(&mut main.pending_comments);
            self.record.start_comments.append(&mut c);
            if self.record.start_bookmark.is_none() {
                self.record.start_bookmark = main.pending_bookmark.take();
            }
        }
        // Attach variations, deepest (latest) first so every line is complete when moved.
        for i in (1..self.lines.len()).rev() {
            let nodes = std::mem::take(&mut self.lines[i].nodes);
            let Some((p, idx)) = self.lines[i].parent else {
                continue;
            };
            if nodes.is_empty() {
                continue;
            }
            if let Some(node) = self.lines.get_mut(p).and_then(|l| l.nodes.get_mut(idx)) {
                node.variations.insert(0, nodes);
            }
        }
        self.record.moves = self
            .lines
            .first_mut()
            .map(|l| std::mem::take(&mut l.nodes))
            .unwrap_or_default();
        ParsedGame {
            record: self.record,
            diagnostics: self.diags,
        }
    }
}

/// The value of `key：value` (or `key:value`) when the line starts with `key`.
fn header_value<'a>(t: &'a str, key: &str) -> Option<&'a str> {
    t.strip_prefix(key)?.strip_prefix(['：', ':'])
}

/// Lines that carry no data: the move-list heading, the diagram's ruler and frame, etc.
fn is_decoration(t: &str) -> bool {
    let t = trim_spaces(t);
    t.starts_with("手数")
        || t.starts_with("盤面回転")
        || t.starts_with('+') && t.chars().all(|c| c == '+' || c == '-')
        || t.chars().all(|c| is_space(c) || digit_value(c).is_some())
}

// ---------------------------------------------------------------------------------------------
// Writer helpers shared by KIF and KI2
// ---------------------------------------------------------------------------------------------

/// Display width of text in a fixed-pitch Japanese font: 1 for ASCII, 2 for everything else.
pub(crate) fn display_width(s: &str) -> usize {
    s.chars().map(|c| if c.is_ascii() { 1 } else { 2 }).sum()
}

/// Whether the record starts from a handicap preset (players are then 下手/上手).
pub(crate) fn is_handicap(record: &Record) -> bool {
    matches!(record.start, StartPosition::Preset(h) if h != Handicap::Even)
}

/// The name of a side in footers and diagrams.
pub(crate) fn side_name(color: Color, handicap: bool) -> &'static str {
    match (color, handicap) {
        (Color::Black, false) => "先手",
        (Color::White, false) => "後手",
        (Color::Black, true) => "下手",
        (Color::White, true) => "上手",
    }
}

/// Whether a header line `key：value` reads back as a header with this key: the reader takes a
/// line as a header only when no earlier rule of `Parser::line` claims it, and cuts the key
/// at the first colon.
fn header_key_reads_back(key: &str) -> bool {
    const HAND_KEYS: [&str; 8] = [
        "先手の持駒",
        "下手の持駒",
        "後手の持駒",
        "上手の持駒",
        "先手持駒",
        "下手持駒",
        "後手持駒",
        "上手持駒",
    ];
    let Some(first) = key.chars().next() else {
        return false;
    };
    !key.contains(|c: char| is_space(c) || matches!(c, '：' | ':' | '\n' | '\r'))
        && !matches!(first, '#' | '*' | '&' | '|' | '\u{feff}')
        && mark_color(first).is_none()
        && !key.starts_with("まで")
        && key != "変化"
        && !HAND_KEYS.contains(&key)
}

/// A header value and its line end. A value cannot span lines: its line breaks are written as
/// spaces (noted in `lost`).
fn push_header_value(out: &mut String, key: &str, value: &str, lost: &mut Vec<String>) {
    if value.contains(['\n', '\r']) {
        lost.push(format!(
            "header `{key}`: its line breaks were written as spaces"
        ));
    }
    for c in value.chars() {
        out.push(if c == '\n' || c == '\r' { ' ' } else { c });
    }
    out.push('\n');
}

/// Writes the header entries in order with the start position: `手合割：…` for a preset (in
/// place of a `手合割` entry, or before the players when there is none; omitted for an even
/// game without one) and a board diagram for a setup (after the entries). Returns what could
/// not be written as it was (for `lossy` warnings): an entry whose key would read back as
/// something else (a move, a comment, a hand...) is left out; line breaks in a value are
/// written as spaces.
pub(crate) fn write_header(out: &mut String, record: &Record) -> Vec<String> {
    let mut lost = Vec::new();
    let preset = match record.start {
        StartPosition::Preset(h) => Some(h),
        StartPosition::Setup(_) => None,
    };
    let has_entry = record.header.entries.iter().any(|e| e.key == "手合割");
    let mut handicap_written = has_entry || preset == Some(Handicap::Even) || preset.is_none();
    let write_handicap = |out: &mut String, h: Handicap| {
        out.push_str("手合割：");
        out.push_str(h.kif_name());
        out.push('\n');
    };
    for e in &record.header.entries {
        if e.key == "手合割" {
            match preset {
                // Keep the value as written when it reads back as the same start.
                Some(h)
                    if Handicap::from_kif_name(&e.value).is_some_and(|v| v != h)
                        || (h != Handicap::Even && Handicap::from_kif_name(&e.value).is_none()) =>
                {
                    write_handicap(out, h)
                }
                _ => {
                    out.push_str("手合割：");
                    push_header_value(out, &e.key, &e.value, &mut lost);
                }
            }
            continue;
        }
        if !handicap_written && matches!(e.key.as_str(), "先手" | "後手" | "下手" | "上手")
        {
            if let Some(h) = preset {
                write_handicap(out, h);
            }
            handicap_written = true;
        }
        if !header_key_reads_back(&e.key) {
            lost.push(format!(
                "header `{}` left out: as a header line it would read back as something else",
                e.key
            ));
            continue;
        }
        out.push_str(&e.key);
        out.push('：');
        push_header_value(out, &e.key, &e.value, &mut lost);
    }
    if !handicap_written && let Some(h) = preset {
        write_handicap(out, h);
    }
    if let StartPosition::Setup(setup) = &record.start {
        write_bod(out, setup);
    }
    lost
}

fn write_hand(out: &mut String, label: &str, hand: &Hand) {
    out.push_str(label);
    out.push_str("の持駒：");
    if hand.is_empty() {
        out.push_str("なし");
    } else {
        let mut first = true;
        for (k, n) in hand.iter() {
            if !first {
                out.push('　');
            }
            first = false;
            out.push(k.kif_board_char());
            if n > 1 {
                push_kanji_number(out, u32::from(n));
            }
        }
    }
    out.push('\n');
}

/// Writes a board diagram (BOD) for a setup.
pub(crate) fn write_bod(out: &mut String, setup: &Setup) {
    write_hand(out, "後手", &setup.hands.white);
    out.push_str("  ９ ８ ７ ６ ５ ４ ３ ２ １\n");
    out.push_str("+---------------------------+\n");
    for rank in 1..=9u8 {
        out.push('|');
        for file in (1..=9u8).rev() {
            match Square::new(file, rank).and_then(|sq| setup.piece_at(sq)) {
                None => out.push_str(" ・"),
                Some(p) => {
                    out.push(if p.color == Color::White { 'v' } else { ' ' });
                    out.push(p.kind.kif_board_char());
                }
            }
        }
        out.push('|');
        out.push(KANJI_DIGITS[rank as usize]);
        out.push('\n');
    }
    out.push_str("+---------------------------+\n");
    write_hand(out, "先手", &setup.hands.black);
    if setup.turn == Color::White {
        out.push_str("後手番\n");
    }
}

/// Writes comment lines (`*…`) and a bookmark (`&…`).
pub(crate) fn write_annotations(out: &mut String, comments: &[String], bookmark: Option<&str>) {
    for c in comments {
        for l in c.split('\n') {
            out.push('*');
            out.push_str(l.strip_suffix('\r').unwrap_or(l));
            out.push('\n');
        }
    }
    if let Some(b) = bookmark {
        // A bookmark is one line: a line feed in one (only a record built by hand has one)
        // is written as a space. A lone CR reads back as it is, so it stays.
        out.push('&');
        out.push_str(&b.replace("\r\n", " ").replace('\n', " "));
        out.push('\n');
    }
}

/// The `まで…` line for a line of `plies` moves ending with `special` (`None` when the ending
/// has no KIF wording). `turn` is the side to move at the special.
pub(crate) fn footer_text(
    special: &Special,
    plies: u32,
    turn: Color,
    handicap: bool,
) -> Option<String> {
    let name = |c: Color| side_name(c, handicap);
    let result = match special.kind {
        SpecialKind::Resign => {
            format!("{}の勝ち", name(turn.flip()))
        }
        SpecialKind::Mate => "詰み".to_string(),
        SpecialKind::Timeout => format!("時間切れにより{}の勝ち", name(turn.flip())),
        SpecialKind::IllegalMove => format!("{}の反則負け", name(special.side.unwrap_or(turn))),
        SpecialKind::IllegalWin => format!("{}の反則勝ち", name(turn)),
        SpecialKind::IllegalAction(c) => format!("{}の反則負け", name(c)),
        SpecialKind::Declaration => format!("{}の入玉勝ち", name(turn)),
        SpecialKind::Interrupt => "中断".to_string(),
        SpecialKind::Repetition => "千日手".to_string(),
        SpecialKind::Impasse | SpecialKind::MaxMoves | SpecialKind::Draw => "持将棋".to_string(),
        SpecialKind::NoMate => "不詰".to_string(),
        SpecialKind::Sealed => "封じ手".to_string(),
        SpecialKind::DefaultWin => format!("{}の不戦勝", name(turn)),
        SpecialKind::DefaultLoss => format!("{}の不戦敗", name(turn)),
        SpecialKind::Matta | SpecialKind::Error | SpecialKind::Unknown => return None,
    };
    Some(format!("まで{plies}手で{result}"))
}

/// A board that follows moves without checking them, for writers that need the piece on a
/// square (KIF names the piece that moves).
pub(crate) struct Tracker {
    /// The current board and hands.
    pub setup: Setup,
}

impl Tracker {
    /// Starts from a record's start position.
    pub fn new(record: &Record) -> Tracker {
        Tracker {
            setup: record.start.to_setup(),
        }
    }

    /// The kind that `mv` moves, if the board agrees with it.
    pub fn moving_kind(&self, mv: crate::core::Move) -> Option<PieceKind> {
        match mv {
            crate::core::Move::Normal { from, .. } => self.setup.piece_at(from).map(|p| p.kind),
            crate::core::Move::Drop { kind, .. } => Some(kind),
        }
    }

    /// Plays `mv` for the side to move (no checks). Returns the captured piece kind.
    pub fn play(&mut self, mv: crate::core::Move) -> Option<PieceKind> {
        let turn = self.setup.turn;
        let captured = match mv {
            crate::core::Move::Normal { from, to, promote } => {
                let piece = self.setup.piece_at(from);
                let captured = self.setup.piece_at(to);
                self.setup.set_piece(from, None);
                let placed = piece.map(|p| {
                    let kind = if promote {
                        p.kind.promote().unwrap_or(p.kind)
                    } else {
                        p.kind
                    };
                    Piece::new(p.color, kind)
                });
                self.setup.set_piece(to, placed);
                if let Some(c) = captured {
                    self.setup.hands.get_mut(turn).add(c.kind);
                }
                captured.map(|c| c.kind)
            }
            crate::core::Move::Drop { kind, to } => {
                self.setup.hands.get_mut(turn).remove(kind);
                self.setup.set_piece(to, Some(Piece::new(turn, kind)));
                None
            }
        };
        self.setup.turn = turn.flip();
        captured
    }
}

/// The resolved move of a node, or the move its text fully states (source square or drop with
/// a named piece; `replay::stated_move`), for moves left unresolved (after a foul, or never
/// resolved); `on` is the kind on the source square. KIF and KI2 name every piece they write,
/// so a text that names none is not written, nor the drop of a piece that cannot be in hand.
pub(crate) fn node_move(
    text: &MoveText,
    resolved: Option<crate::core::Move>,
    on: Option<PieceKind>,
) -> Option<crate::core::Move> {
    if resolved.is_some() {
        return resolved;
    }
    text.piece?;
    super::replay::stated_move(text, on).filter(|m| match m {
        crate::core::Move::Drop { kind, .. } => kind.is_hand_kind(),
        crate::core::Move::Normal { .. } => true,
    })
}

/// Pads the current line of `out` with spaces to the next multiple of `cell` columns.
pub(crate) fn pad_to(out: &mut String, cell: usize) {
    let line = out.rsplit('\n').next().unwrap_or("");
    let w = display_width(line);
    let target = w.div_ceil(cell).max(1) * cell;
    let n = target.saturating_sub(w).max(1);
    out.extend(std::iter::repeat_n(' ', n));
}

/// Ends an unfinished line of KI2 moves.
pub(crate) fn end_cells(out: &mut String, on_line: usize) {
    if on_line > 0 {
        out.push('\n');
    }
}

/// Queues the variation blocks met while writing a line for the writer's stack of pending
/// blocks, which pops from the end: pushed so that the highest ply (and, at one ply, the first
/// alternative) comes out first. `ply` gives a block's first ply.
pub(crate) fn queue_blocks<B>(pending: &mut Vec<B>, mut blocks: Vec<B>, ply: impl Fn(&B) -> u32) {
    blocks.sort_by_key(&ply);
    let mut i = 0;
    while i < blocks.len() {
        let first = ply(&blocks[i]);
        let j = blocks[i..]
            .iter()
            .position(|b| ply(b) != first)
            .map_or(blocks.len(), |k| i + k);
        blocks[i..j].reverse();
        i = j;
    }
    pending.extend(blocks);
}

#[cfg(test)]
mod tests {
    /// `header_key_reads_back` says exactly which keys the reader takes back from a header
    /// line `key：v` (the KIF writer leaves the others out, with a warning).
    #[test]
    fn header_keys_that_read_back_are_the_ones_the_reader_takes() {
        let keys = [
            "先手",
            "後手",
            "棋戦",
            "'",
            "1",
            "12",
            "a b",
            "a　b",
            "",
            "▲先手",
            "△後手",
            "☗x",
            "▽y",
            "*c",
            "&b",
            "|x",
            "#x",
            "まで",
            "まで1手",
            "変化",
            "変化1",
            "先手の持駒",
            "後手持駒",
            "先手番",
            "手合割",
            "key:x",
            "key：x",
            "手数",
            "\u{feff}k",
            "x\ty",
            "１",
            "先手番号",
        ];
        for key in keys {
            let text = format!("{key}：v\n手数----指手---------消費時間--\n");
            let g = crate::formats::kif::read(&text);
            let back = g.first().is_some_and(|g| {
                g.record
                    .header
                    .entries
                    .iter()
                    .any(|e| e.key == key && e.value == "v")
            });
            let predicted = key == "手合割" || header_key_reads_back(key);
            assert_eq!(back, predicted, "{key:?}");
        }
    }

    use super::*;

    #[test]
    fn counts() {
        assert_eq!(parse_count("十八"), Some((18, "十八".len())));
        assert_eq!(parse_count("十"), Some((10, "十".len())));
        assert_eq!(parse_count("四　"), Some((4, "四".len())));
        assert_eq!(parse_count("二十三"), Some((23, "二十三".len())));
        assert_eq!(parse_count("12手"), Some((12, 2)));
        assert_eq!(parse_count("１２"), Some((12, "１２".len())));
        assert_eq!(parse_count("歩"), None);
        let mut s = String::new();
        for n in [1, 9, 10, 11, 18, 20, 99] {
            s.clear();
            push_kanji_number(&mut s, n);
            assert_eq!(parse_count(&s).map(|x| x.0), Some(n), "{s}");
        }
    }

    #[test]
    fn times() {
        let t = |s: &str| parse_time(s).map(|(t, n)| (t.elapsed_ms, t.total_ms, n));
        assert_eq!(
            t("( 0:16/00:00:16)"),
            Some((Some(16_000), Some(16_000), 16))
        );
        assert_eq!(t("(00:00 / 00:00:00)"), Some((Some(0), Some(0), 18)));
        assert_eq!(t("(1:9/0:2:13)"), Some((Some(69_000), Some(133_000), 12)));
        assert_eq!(t("( 0:0/)"), Some((Some(0), None, 7)));
        assert_eq!(
            t("(120:05/02:00:05)"),
            Some((Some(7_205_000), Some(7_205_000), 17))
        );
        assert_eq!(t("(　0:16/00:00:16)").map(|x| x.0), Some(Some(16_000)));
        assert_eq!(t("(0:16/00:00:16"), None);
        assert_eq!(t("(a:16)"), None);
    }

    #[test]
    fn footers() {
        let f = |s: &str| {
            let f = parse_footer(s, Span::default());
            (f.plies, f.kind, f.winner)
        };
        use SpecialKind::*;
        assert_eq!(
            f("まで76手で先手の勝ち"),
            (Some(76), Some(Resign), Some(Color::Black))
        );
        assert_eq!(
            f("まで、76手で後手の勝ち"),
            (Some(76), Some(Resign), Some(Color::White))
        );
        assert_eq!(
            f("まで104手で下手の勝ち"),
            (Some(104), Some(Resign), Some(Color::Black))
        );
        assert_eq!(
            f("まで117手で上手の勝ち"),
            (Some(117), Some(Resign), Some(Color::White))
        );
        assert_eq!(
            f("まで14手で時間切れにより後手の勝ち"),
            (Some(14), Some(Timeout), Some(Color::White))
        );
        assert_eq!(
            f("まで2手で先手の反則負け"),
            (Some(2), Some(IllegalMove), Some(Color::White))
        );
        assert_eq!(
            f("まで2手で先手の反則勝ち"),
            (Some(2), Some(IllegalWin), Some(Color::Black))
        );
        assert_eq!(
            f("まで9手で先手の入玉勝ち"),
            (Some(9), Some(Declaration), Some(Color::Black))
        );
        assert_eq!(f("まで9手詰"), (Some(9), Some(Mate), None));
        assert_eq!(f("まで7手で詰み"), (Some(7), Some(Mate), None));
        assert_eq!(f("まで3手で不詰"), (Some(3), Some(NoMate), None));
        assert_eq!(f("まで52手で封じ手"), (Some(52), Some(Sealed), None));
        assert_eq!(f("まで85手で千日手"), (Some(85), Some(Repetition), None));
        assert_eq!(f("まで258手で持将棋"), (Some(258), Some(Impasse), None));
        assert_eq!(f("まで50手で中断"), (Some(50), Some(Interrupt), None));
        assert_eq!(
            f("まで3手で先手の反則負け#メモ"),
            (Some(3), Some(IllegalMove), Some(Color::White))
        );
        assert_eq!(f("まで何か"), (None, None, None));
    }

    #[test]
    fn special_words_round_trip() {
        for k in [
            SpecialKind::Resign,
            SpecialKind::Interrupt,
            SpecialKind::Repetition,
            SpecialKind::Impasse,
            SpecialKind::Mate,
            SpecialKind::NoMate,
            SpecialKind::Timeout,
            SpecialKind::IllegalMove,
            SpecialKind::IllegalWin,
            SpecialKind::Declaration,
            SpecialKind::Sealed,
            SpecialKind::DefaultWin,
            SpecialKind::DefaultLoss,
        ] {
            let w = kif_special_word(k).unwrap();
            assert_eq!(parse_special_text(w), (k, None));
        }
        assert_eq!(
            parse_special_text("先手 反則負け"),
            (SpecialKind::IllegalMove, Some(Color::Black))
        );
        assert_eq!(parse_special_text("先手"), (SpecialKind::Unknown, None));
    }
}
