//! The grammar of the Kakinoki formats' lines.
//!
//! Formats layer: uses `core` and `record`, nothing above.

use super::text::*;
use crate::core::{Color, PieceKind, Square};
use crate::record::{
    CompactString, Footer, Horizontal, MoveText, MoveTime, NamedPiece, NodeKind, Relative, Source,
    Span, Special, SpecialKind, Vertical,
};

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

pub(super) fn footer_result(result: &str) -> (Option<SpecialKind>, Option<Color>) {
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
pub(super) struct MoveSyntax {
    pub(super) msg: &'static str,
    pub(super) at: usize,
}

pub(super) fn syntax(msg: &'static str, at: usize) -> MoveSyntax {
    MoveSyntax { msg, at }
}

/// Parses destination + piece at the start of `s`. Returns (to or None for 同, piece, bytes).
pub(super) fn parse_dest_piece(s: &str) -> Result<(Option<Square>, PieceKind, usize), MoveSyntax> {
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
pub(super) fn parse_time(s: &str) -> Option<(MoveTime, usize)> {
    parse_time_fast(s.as_bytes()).or_else(|| parse_time_slow(s))
}

/// ASCII spaces from `i`.
pub(super) fn skip_ascii_spaces(b: &[u8], mut i: usize) -> usize {
    while b.get(i) == Some(&b' ') {
        i += 1;
    }
    i
}

/// `h:mm:ss`, `m:ss` or `s` (ASCII digits, ASCII spaces around the colons) at `i`: the time in
/// milliseconds and the index after it.
pub(super) fn clock_fast(b: &[u8], mut i: usize) -> Option<(u64, usize)> {
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
pub(super) fn parse_time_fast(b: &[u8]) -> Option<(MoveTime, usize)> {
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
pub(super) fn parse_time_slow(s: &str) -> Option<(MoveTime, usize)> {
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
pub(super) fn parse_clock(s: &str) -> Option<u64> {
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
pub(super) fn skip_spaces_bytes(b: &[u8], mut i: usize) -> usize {
    loop {
        match b.get(i) {
            Some(b' ') | Some(b'\t') => i += 1,
            Some(0xE3) if b.get(i + 1) == Some(&0x80) && b.get(i + 2) == Some(&0x80) => i += 3,
            _ => return i,
        }
    }
}

/// What follows a move on a KIF line: time, `+`, a `#` comment. Returns the time.
pub(super) fn parse_tail(s: &str, base: usize) -> Result<Option<MoveTime>, MoveSyntax> {
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

pub(super) fn parse_kif_move(body: &str) -> Result<(NodeKind, Option<MoveTime>), MoveSyntax> {
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
        let raw = CompactString::from(s.get(..pos).unwrap_or(s));
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
pub(super) const SQ11: Square = match Square::new(1, 1) {
    Some(s) => s,
    None => panic!("1-1 is a square"),
};

/// One KI2 token (`▲同銀右上成`), starting with its side mark.
pub(super) fn parse_ki2_token(tok: &str) -> Result<NodeKind, MoveSyntax> {
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
            raw: CompactString::from(tok.trim_end_matches(is_space)),
        },
        resolved: None,
    })
}

// ---------------------------------------------------------------------------------------------
// The reader
// ---------------------------------------------------------------------------------------------

#[cfg(test)]
mod tests {
    use super::*;

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
}
