//! The grammar of a KIF move line's body (`７六歩(77)   ( 0:01/00:00:01)`, `同　銀成(54)`,
//! `投了`) and of a KI2 move token (`▲同銀右上成`), with the KIF time.
//!
//! Formats layer: uses `core` and `record`, nothing above.

use super::*;
use crate::formats::visit::WrittenMove;

// ---------------------------------------------------------------------------------------------
// Move text
// ---------------------------------------------------------------------------------------------

/// A square, `７六` or `76`.
#[inline]
fn square(i: &str) -> PResult<'_, Square> {
    let (r, file) = map_opt(any_char, digit_value).parse(i)?;
    if r.is_empty() {
        return fail(r, "rank expected");
    }
    let rank = map_opt(any_char, |c| kanji_digit(c).or_else(|| digit_value(c)));
    let (r, rank) = expect("rank (一-九) expected", rank)(r)?;
    match Square::new(file, rank) {
        Some(sq) => Ok((r, sq)),
        None => fail(i, "bad square"),
    }
}

/// The destination: a square, or `同` (the previous move's, `None`) and the spaces after it.
#[inline]
fn destination(i: &str) -> PResult<'_, Option<Square>> {
    if i.is_empty() {
        return fail(i, "move text expected");
    }
    let same = value(None, (char('同'), spaces));
    expect(
        "destination square expected",
        alt((same, map(square, Some))),
    )
    .parse(i)
}

/// A piece name (`歩`, `成銀`, `竜`...).
#[inline]
fn piece(i: &str) -> PResult<'_, PieceKind> {
    match PieceKind::from_kif_prefix(i) {
        Some((kind, n)) => {
            let used: usize = i.chars().take(n).map(char::len_utf8).sum();
            Ok((i.get(used..).unwrap_or(""), kind))
        }
        None => fail(i, "piece name expected"),
    }
}

/// `成` (true) or `不成` (false).
#[inline]
fn promotion(i: &str) -> PResult<'_, bool> {
    alt((value(false, tag("不成")), value(true, char('成')))).parse(i)
}

/// A source square as KIF writes it, `(77)` (ASCII digits); `msg` when a `(` opens anything
/// else.
#[inline]
fn source_square<'a>(msg: &'static str) -> impl FnMut(&'a str) -> PResult<'a, Square> {
    move |i: &'a str| {
        let (r, _) = char('(')(i)?;
        let ascii = |c: char| c.is_ascii_digit().then(|| c as u8 - b'0');
        let inner = (
            map_opt(any_char, ascii),
            map_opt(any_char, ascii),
            char(')'),
        )
            .parse(r);
        match inner {
            Ok((r, (f, k, _))) => match Square::new(f, k) {
                Some(sq) => Ok((r, sq)),
                None => fail(i, msg),
            },
            Err(_) => fail(i, msg),
        }
    }
}

/// Where a KIF move comes from: `打`, `(77)` or nothing said.
#[inline]
fn kif_source(i: &str) -> PResult<'_, Source> {
    alt((
        value(Source::Drop, char('打')),
        map(
            source_square("bad source square (expected `(77)`)"),
            Source::Square,
        ),
        success(Source::Unknown),
    ))
    .parse(i)
}

/// `h:mm:ss`, `m:ss` or `s`: one to three fields of at most 19 ASCII digits, spaces around
/// the colons; in milliseconds.
fn clock(i: &str) -> PResult<'_, u64> {
    let field = || {
        map_opt(
            (spaces, verify(digit1, |d: &str| d.len() <= 19), spaces),
            |(_, d, _): (&str, &str, &str)| d.parse::<u64>().ok(),
        )
    };
    let (r, first) = field().parse(i)?;
    let (r, more) = opt((char(':'), field(), opt((char(':'), field())))).parse(r)?;
    let fields = [
        Some(first),
        more.map(|m| m.1),
        more.and_then(|m| m.2.map(|x| x.1)),
    ];
    let mut secs: u64 = 0;
    for v in fields.into_iter().flatten() {
        match secs.checked_mul(60).and_then(|s| s.checked_add(v)) {
            Some(s) => secs = s,
            None => return mismatch(i),
        }
    }
    match secs.checked_mul(1000) {
        Some(ms) => Ok((r, ms)),
        None => mismatch(i),
    }
}

/// A KIF time, `( m:ss/h:mm:ss)`: the elapsed time, and the total after a `/` (which may be
/// left empty); spaces (any) around every part.
#[inline]
fn time(i: &str) -> PResult<'_, MoveTime> {
    if let Some((t, n)) = time_fast(i.as_bytes()) {
        return Ok((i.get(n..).unwrap_or(""), t));
    }
    let (r, _) = char('(')(i)?;
    let (r, elapsed) = clock(r)?;
    let (r, _) = spaces(r)?;
    let (r, total) = opt((char('/'), spaces, opt(clock), spaces)).parse(r)?;
    let (r, _) = char(')')(r)?;
    Ok((
        r,
        MoveTime {
            elapsed_ms: Some(elapsed),
            total_ms: total.and_then(|t| t.2),
        },
    ))
}

/// Parses `( m:ss / h:mm:ss)` at the start of `s`. Returns the time and the bytes used.
#[cfg(test)]
fn parse_time(s: &str) -> Option<(MoveTime, usize)> {
    time(s).ok().map(|(r, t)| (t, s.len() - r.len()))
}

fn skip_ascii_spaces(b: &[u8], mut i: usize) -> usize {
    while b.get(i) == Some(&b' ') {
        i += 1;
    }
    i
}

/// `h:mm:ss`, `m:ss` or `s` (ASCII digits, ASCII spaces around the colons) at `i`: the time in
/// milliseconds and the index after it.
pub(crate) fn clock_fast(b: &[u8], mut i: usize) -> Option<(u64, usize)> {
    let mut secs: u64 = 0;
    let mut fields = 0;
    loop {
        i = skip_ascii_spaces(b, i);
        let start = i;
        let mut v: u64 = 0;
        while let Some(&d) = b.get(i).filter(|d| d.is_ascii_digit()) {
            // Nineteen digits always fit in a u64; a twentieth is refused here.
            if i - start == 19 {
                return None;
            }
            v = v * 10 + u64::from(d - b'0');
            i += 1;
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

/// The common layouts of a KIF time, `( 0:16/00:00:16)` (ASCII digits and spaces), read
/// byte by byte: the time and the bytes used, `None` for any other layout (which [`time`] then
/// reads).
fn time_fast(b: &[u8]) -> Option<(MoveTime, usize)> {
    if b.first() != Some(&b'(') {
        return None;
    }
    if let Some(usual) = usual_time(b) {
        return Some(usual);
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

/// The time as Kifu for Windows writes it, `( m:ss/hh:mm:ss)` (spaces, then one to three
/// minute digits), read at fixed places, as [`time_fast`] reads it; `None` for any other
/// layout.
#[inline(always)]
fn usual_time(b: &[u8]) -> Option<(MoveTime, usize)> {
    let mut i = 1;
    while b.get(i) == Some(&b' ') {
        i += 1;
    }
    let digits = i;
    let mut minutes: u64 = 0;
    while let Some(&c) = b.get(i)
        && c.is_ascii_digit()
    {
        if i - digits == 3 {
            return None;
        }
        minutes = minutes * 10 + u64::from(c - b'0');
        i += 1;
    }
    if i == digits {
        return None;
    }
    let t: &[u8; 13] = b.get(i..i + 13)?.try_into().ok()?;
    if [t[0], t[3], t[6], t[9], t[12]] != [b':', b'/', b':', b':', b')'] {
        return None;
    }
    let two = |hi: u8, lo: u8| {
        (hi.is_ascii_digit() && lo.is_ascii_digit())
            .then(|| u64::from(hi - b'0') * 10 + u64::from(lo - b'0'))
    };
    let elapsed = minutes * 60 + two(t[1], t[2])?;
    let total = (two(t[4], t[5])? * 60 + two(t[7], t[8])?) * 60 + two(t[10], t[11])?;
    let time = MoveTime {
        elapsed_ms: Some(elapsed * 1000),
        total_ms: Some(total * 1000),
    };
    Some((time, i + 13))
}

/// What follows a move on a KIF line: a time, `+` (the move has variations), a `#` comment,
/// spaces between. Returns the time.
#[inline]
fn tail(i: &str) -> PResult<'_, Option<MoveTime>> {
    let (r, _) = spaces(i)?;
    let (r, time) = if r.starts_with('(') {
        map(expect("bad time (expected `( m:ss/h:mm:ss)`)", time), Some).parse(r)?
    } else {
        (r, None)
    };
    let (r, _) = spaces(r)?;
    let (r, _) = opt((char('+'), spaces)).parse(r)?;
    if r.is_empty() || r.starts_with('#') {
        Ok((r, time))
    } else {
        fail(r, "unexpected text after the move")
    }
}

/// The common layouts of [`tail`], read byte by byte: ASCII spaces, a time that
/// [`time_fast`] reads, `+`, then the end of the line or a `#` comment. `None` for anything
/// else (which [`tail`] then reads); where this succeeds it gives what `tail` gives.
#[inline(always)]
fn tail_fast(b: &[u8]) -> Option<Option<MoveTime>> {
    let mut i = skip_ascii_spaces(b, 0);
    let mut time = None;
    if b.get(i) == Some(&b'(') {
        let at = b.get(i..)?;
        let (t, n) = usual_time(at).or_else(|| time_fast(at))?;
        time = Some(t);
        i = skip_ascii_spaces(b, i + n);
    }
    if b.get(i) == Some(&b'+') {
        i = skip_ascii_spaces(b, i + 1);
    }
    matches!(b.get(i), None | Some(b'#')).then_some(time)
}

/// Whether a move's text starts as a move (`同` or a square), not as a special word.
#[inline]
fn starts_as_move(s: &str) -> bool {
    s.chars()
        .next()
        .is_some_and(|c| c == '同' || digit_value(c).is_some())
}

/// A KIF move line's body, after its number: a move (`７六歩(77)`, `同　銀成(54)`, `５五角打`,
/// maybe after a side mark) or a special (`投了`, `先手 反則負け`), then [`tail`].
fn kif_move(body: &str) -> PResult<'_, (NodeKind, Option<MoveTime>)> {
    let (s, color) = opt(side_mark).parse(body)?;
    if s.is_empty() {
        return fail(s, "move expected");
    }
    if !starts_as_move(s) {
        // A special word, possibly after the side it names (`先手 反則負け`).
        let known = |w: &str| special_kind(w).is_some();
        let mut named = consumed((side_name, spaces1, verify(take_till1(is_space), known)));
        let (r, text, side, word) = match named.parse(s) {
            Ok((r, (text, (side, _, word)))) => (r, text, Some(side), word),
            Err(_) => {
                let (r, text) = take_till(is_space)(s)?;
                (r, text, None, text)
            }
        };
        let (r, time) = tail(r)?;
        let special = Special {
            kind: special_kind(word).unwrap_or(SpecialKind::Unknown),
            text: text.to_string(),
            side,
        };
        return Ok((r, (NodeKind::Special(special), time)));
    }
    let (r, (to, kind)) = (destination, piece).parse(s)?;
    let (r, promote) = opt(promotion).parse(r)?;
    let (r, from) = kif_source(r)?;
    let raw = RawText::from(s.get(..s.len() - r.len()).unwrap_or(s));
    let (r, time) = tail(r)?;
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
    let node = NodeKind::Move {
        text,
        resolved: None,
    };
    Ok((r, (node, time)))
}

/// The common layout of a KIF move line's body, read by hand: a move with its square, piece,
/// `成`/`不成`, `(77)` or `打`, then [`tail`]; the square may be `同` and spaces. `None` for
/// anything else (a side mark, a special, an error), which [`kif_move`] then reads; where this succeeds it gives what
/// `kif_move` gives. It is the hot path of reading KIF (one call per move line), where the
/// combinators cost about a tenth of the reading time.
#[inline(always)]
pub(crate) fn kif_move_fast(s: &str) -> Option<(WrittenMove<'_>, Option<MoveTime>)> {
    let (mv, len, time) = kif_move_in::<Utf8>(s.as_bytes())?;
    let mv = WrittenMove {
        raw: s.get(..len)?,
        ..mv
    };
    Some((mv, time))
}

/// [`kif_move_fast`] in either spelling: the move with an empty `raw`, the length in bytes
/// of its text (the caller's `raw`), and its time.
#[inline(always)]
pub(crate) fn kif_move_in<E: Spelling>(
    b: &[u8],
) -> Option<(WrittenMove<'static>, usize, Option<MoveTime>)> {
    let (c0, n0) = E::at(b, 0)?;
    let (to, mut pos) = match glyph(c0) {
        // `同` and the spaces after it.
        Glyph::Same => (None, E::blanks(b, n0).0),
        g0 => {
            let file = match g0 {
                Glyph::Digit(n) => n,
                _ => digit_value(c0)?,
            };
            let (c1, n1) = E::at(b, n0)?;
            let rank = match glyph(c1) {
                Glyph::Kanji(n) | Glyph::Digit(n) => n,
                _ => digit_value(c1)?,
            };
            (Some(Square::new(file, rank)?), n0 + n1)
        }
    };
    let (c, n) = E::at(b, pos)?;
    pos += n;
    let kind = match glyph(c) {
        Glyph::Piece(kind) => kind,
        // `成香`, `成桂`, `成銀` (and `成歩`).
        Glyph::Promote => {
            let (c, m) = E::at(b, pos)?;
            pos += m;
            match glyph(c) {
                Glyph::Piece(
                    k
                    @ (PieceKind::Lance | PieceKind::Knight | PieceKind::Silver | PieceKind::Pawn),
                ) => k.promote()?,
                _ => return None,
            }
        }
        _ => return None,
    };
    let promote = match E::at(b, pos).map(|(c, m)| (glyph(c), m)) {
        Some((Glyph::Promote, m)) => {
            pos += m;
            Some(true)
        }
        Some((Glyph::Not, m)) => match E::at(b, pos + m) {
            Some(('成', k)) => {
                pos += m + k;
                Some(false)
            }
            _ => None,
        },
        _ => None,
    };
    let from = match b.get(pos..)? {
        [b'(', f, r, b')', ..] if f.is_ascii_digit() && r.is_ascii_digit() => {
            pos += 4;
            Source::Square(Square::new(f - b'0', r - b'0')?)
        }
        [b'(', ..] => return None,
        _ => match E::at(b, pos) {
            Some(('打', m)) => {
                pos += m;
                Source::Drop
            }
            _ => Source::Unknown,
        },
    };
    let time = tail_fast(b.get(pos..)?)?;
    let mv = WrittenMove {
        color: None,
        from,
        to: to.unwrap_or(SQ11),
        same: to.is_none(),
        piece: Some(NamedPiece::Before(kind)),
        promote,
        relative: Relative {
            drop: from == Source::Drop,
            ..Relative::default()
        },
        raw: "",
        resolved: None,
        number: None,
    };
    Some((mv, pos, time))
}

/// A move as the record keeps it.
fn node_of(mv: &WrittenMove<'_>) -> NodeKind {
    NodeKind::Move {
        text: mv.to_text(),
        resolved: None,
    }
}

/// A KIF move after the ply number: move or special, with time.
pub(crate) fn parse_kif_move(body: &str) -> Result<(NodeKind, Option<MoveTime>), MoveSyntax> {
    if let Some((mv, time)) = kif_move_fast(body) {
        return Ok((node_of(&mv), time));
    }
    kif_move_by_grammar(body)
}

/// [`parse_kif_move`] for a body [`kif_move_fast`] does not read.
pub(crate) fn kif_move_by_grammar(body: &str) -> Result<(NodeKind, Option<MoveTime>), MoveSyntax> {
    kif_move(body)
        .map(|(_, m)| m)
        .map_err(|e| move_syntax(body, e))
}

/// Whether `text`, written as the body of a KIF move line, reads back as an ending of this
/// kind and side with this very text and no time (an ending's text that ends like a time,
/// `( 0:01/00:00:01)`, would read back with that time).
pub(crate) fn special_body_reads_back(text: &str, kind: SpecialKind, side: Option<Color>) -> bool {
    matches!(parse_kif_move(text), Ok((NodeKind::Special(s), None))
        if s.text == text && s.kind == kind && s.side == side)
}

/// A placeholder destination for `同` until the previous move's destination is filled in.
const SQ11: Square = match Square::new(1, 1) {
    Some(s) => s,
    None => panic!("1-1 is a square"),
};

/// What a KI2 move says after its piece.
#[derive(Clone, Copy)]
enum Ki2Suffix {
    Horizontal(Horizontal),
    Vertical(Vertical),
    Promote(bool),
    Drop,
    From(Square),
}

/// One suffix of a KI2 move: `右左直` (position), `上行寄引` (movement), `成`, `不成`, `打`,
/// or a source square `(77)` as some programs add.
fn ki2_suffix(i: &str) -> PResult<'_, Ki2Suffix> {
    use Ki2Suffix as S;
    let one = map_opt(any_char, |c| {
        Some(match c {
            '右' => S::Horizontal(Horizontal::Right),
            '左' => S::Horizontal(Horizontal::Left),
            '直' => S::Horizontal(Horizontal::Straight),
            '上' | '行' => S::Vertical(Vertical::Up),
            '寄' => S::Vertical(Vertical::Sideways),
            '引' => S::Vertical(Vertical::Down),
            '成' => S::Promote(true),
            '打' => S::Drop,
            _ => return None,
        })
    });
    alt((
        one,
        value(S::Promote(false), tag("不成")),
        map(source_square("bad source square"), S::From),
    ))
    .parse(i)
}

/// One KI2 token (`▲同銀右上成`), starting with its side mark and trimmed at its end: a move,
/// or a special (`▲投了`).
fn ki2_token(tok: &str) -> PResult<'_, NodeKind> {
    if tok.is_empty() {
        return fail(tok, "move expected");
    }
    let (after, color) = expect("side mark expected", side_mark)(tok)?;
    let (_, lead) = spaces(after)?;
    let s = trim_spaces(after);
    if s.is_empty() {
        return fail(
            after.get(lead.len()..).unwrap_or(""),
            "move expected after the side mark",
        );
    }
    if !starts_as_move(s) {
        let (kind, side) = parse_special_text(s);
        let text = s.to_string();
        return Ok(("", NodeKind::Special(Special { kind, text, side })));
    }
    let (r, (to, kind)) = (destination, piece).parse(s)?;
    let (r, (relative, promote, from)) = fold_many0(
        ki2_suffix,
        || (Relative::default(), None, Source::Unknown),
        |(mut rel, mut promote, mut from), suffix| {
            match suffix {
                Ki2Suffix::Horizontal(h) => rel.horizontal = Some(h),
                Ki2Suffix::Vertical(v) => rel.vertical = Some(v),
                Ki2Suffix::Promote(p) => promote = Some(p),
                Ki2Suffix::Drop => rel.drop = true,
                Ki2Suffix::From(sq) => from = Source::Square(sq),
            }
            (rel, promote, from)
        },
    )
    .parse(r)?;
    if !r.is_empty() {
        return fail(r, "unexpected text in the move");
    }
    let from = if relative.drop { Source::Drop } else { from };
    Ok((r, ki2_node(tok, color, to, kind, promote, relative, from)))
}

/// The node of a KI2 token: `to` is `None` for `同`; the raw text is the token, its trailing
/// spaces trimmed.
fn ki2_node(
    tok: &str,
    color: Color,
    to: Option<Square>,
    kind: PieceKind,
    promote: Option<bool>,
    relative: Relative,
    from: Source,
) -> NodeKind {
    node_of(&ki2_written(tok, color, to, kind, promote, relative, from))
}

/// [`ki2_node`], borrowing the token.
fn ki2_written(
    tok: &str,
    color: Color,
    to: Option<Square>,
    kind: PieceKind,
    promote: Option<bool>,
    relative: Relative,
    from: Source,
) -> WrittenMove<'_> {
    WrittenMove {
        color: Some(color),
        from,
        to: to.unwrap_or(SQ11),
        same: to.is_none(),
        piece: Some(NamedPiece::Before(kind)),
        promote,
        relative,
        raw: tok.trim_end_matches(is_space),
        resolved: None,
        number: None,
    }
}

/// The common layout of a KI2 token, read by hand: a side mark, a square or `同`, a piece,
/// suffix characters (`右左直上行寄引成打`, `不成`), spaces at the end. `None` for anything
/// else (spaces after the mark, a source square, a special, an error), which [`ki2_token`]
/// then reads; where this succeeds it gives what `ki2_token` gives. It is the hot path of
/// reading KI2 (one call per move).
#[inline]
pub(crate) fn ki2_token_fast(tok: &str) -> Option<WrittenMove<'_>> {
    use Ki2Suffix as S;
    let mut chars = tok.chars();
    let color = mark_color(chars.next()?)?;
    let c = chars.next()?;
    let to = if c == '同' {
        let (r, _) = spaces(chars.as_str()).ok()?;
        chars = r.chars();
        None
    } else {
        let rank = chars.next()?;
        Some(Square::new(
            digit_value(c)?,
            kanji_digit(rank).or_else(|| digit_value(rank))?,
        )?)
    };
    let rest = chars.as_str();
    let (kind, n) = PieceKind::from_kif_prefix(rest)?;
    let mut chars = rest
        .get(rest.chars().take(n).map(char::len_utf8).sum::<usize>()..)?
        .chars();
    let (mut relative, mut promote) = (Relative::default(), None);
    loop {
        let suffix = match chars.next() {
            None => break,
            Some('右') => S::Horizontal(Horizontal::Right),
            Some('左') => S::Horizontal(Horizontal::Left),
            Some('直') => S::Horizontal(Horizontal::Straight),
            Some('上' | '行') => S::Vertical(Vertical::Up),
            Some('寄') => S::Vertical(Vertical::Sideways),
            Some('引') => S::Vertical(Vertical::Down),
            Some('成') => S::Promote(true),
            Some('打') => S::Drop,
            Some('不') if chars.as_str().starts_with('成') => {
                chars.next();
                S::Promote(false)
            }
            Some(c) if is_space(c) && chars.as_str().chars().all(is_space) => break,
            Some(_) => return None,
        };
        match suffix {
            S::Horizontal(h) => relative.horizontal = Some(h),
            S::Vertical(v) => relative.vertical = Some(v),
            S::Promote(p) => promote = Some(p),
            S::Drop => relative.drop = true,
            S::From(_) => return None,
        }
    }
    let from = if relative.drop {
        Source::Drop
    } else {
        Source::Unknown
    };
    Some(ki2_written(tok, color, to, kind, promote, relative, from))
}

/// One KI2 token (see [`ki2_token`]).
pub(crate) fn parse_ki2_token(tok: &str) -> Result<NodeKind, MoveSyntax> {
    if let Some(mv) = ki2_token_fast(tok) {
        return Ok(node_of(&mv));
    }
    ki2_token_by_grammar(tok)
}

/// [`parse_ki2_token`] for a token [`ki2_token_fast`] does not read.
pub(crate) fn ki2_token_by_grammar(tok: &str) -> Result<NodeKind, MoveSyntax> {
    ki2_token(tok)
        .map(|(_, m)| m)
        .map_err(|e| move_syntax(tok, e))
}

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

    /// Move texts from every corner of the grammar, to hold the fast paths to the grammar.
    const KIF_BODIES: &[&str] = &[
        "７六歩(77)   ( 0:16/00:00:16)",
        "７六歩(77)",
        "７六歩(77)+",
        "７六歩(77)   ( 0:16/00:00:16)+",
        "７六歩(77) ( 0:16/00:00:16) # a comment",
        "７六歩(77)\t( 0:16/00:00:16)",
        "７六歩(77)　( 0:16/00:00:16)",
        "７六歩(77) (0:16/)",
        "７六歩(77) (0:16)",
        "７六歩(77) ( 0 : 16 / 0 : 0 : 16 )",
        "７六歩(77) (99999999999999999999:00/0:0:0)",
        "７六歩(77) (9999999999999999999:00/0:0:0)",
        "７六歩(77) (1:2:3:4/0:0:0)",
        "７六歩(77) (12:34/01:02:03)",
        "７六歩(77) (123:45/10:00:00)",
        "７六歩(77) (  1:05/00:01:05)  ",
        "７六歩(77) (1234:05/00:01:05)",
        "７六歩(77) ( 1:0x/00:01:05)",
        "７六歩(77) ( 1:05/00:01:0x)",
        "７六歩(77) ( 1:05/00:01:05",
        "７六歩(77) ( 0:16/00:00:16",
        "７六歩(77) x",
        "７六歩(77) ( 0:16/00:00:16) x",
        "２二角成(88)",
        "２二角不成(88)",
        "５五角打",
        "５五角",
        "５５角打 ( 0:01/00:00:01)",
        "5五成銀(44)",
        "同　銀(54)",
        "同銀(54)",
        "同  銀成(54)   ( 0:16/00:00:16)",
        "同\u{3000}\u{3000}銀不成(54)",
        "同　",
        "同　x",
        "▲７六歩(77)",
        "投了",
        "先手 反則負け",
        "７六歩(7)",
        "７十歩(77)",
        "",
    ];

    /// Wherever `fast` reads `input`, it reads what `slow` (the grammar) reads.
    fn agrees<T: PartialEq + std::fmt::Debug>(
        inputs: &[&str],
        fast: impl Fn(&str) -> Option<T>,
        slow: impl Fn(&str) -> Option<T>,
    ) {
        for input in inputs {
            if let Some(f) = fast(input) {
                assert_eq!(Some(f), slow(input), "{input:?}");
            }
        }
    }

    #[test]
    fn kif_fast_path_agrees_with_the_grammar() {
        let fast = |b: &str| kif_move_fast(b).map(|(mv, time)| (node_of(&mv), time));
        agrees(KIF_BODIES, fast, |b| kif_move(b).ok().map(|(_, m)| m));
        // The tail alone: what follows the move's text.
        let tails: Vec<&str> = KIF_BODIES
            .iter()
            .map(|b| b.find(')').map_or("", |n| &b[n + 1..]))
            .collect();
        agrees(
            &tails,
            |t| tail_fast(t.as_bytes()),
            |t| tail(t).ok().map(|r| r.1),
        );
        // The common layouts take the fast path.
        for body in [
            "７六歩(77)   ( 0:16/00:00:16)",
            "５五角打",
            "２二角成(88)+",
            "同　銀(31)",
            "同 \u{3000}銀成(31)   ( 0:16/00:00:16)",
        ] {
            assert!(kif_move_fast(body).is_some(), "{body:?}");
        }
    }

    const KI2_TOKENS: &[&str] = &[
        "▲７六歩",
        "△３四歩",
        "▲同銀右上成",
        "▲同　銀",
        "▲同 銀",
        "▲２二角成",
        "▲２二角不成",
        "▲５五角打",
        "☗５五角打",
        "▽5五銀引",
        "▲５八金右  ",
        "▲５八金直行",
        "▲５八金寄\t",
        "▲５八金(69)",
        "▲５八金右(69)",
        "▲ ７六歩",
        "▲７六歩x",
        "▲７六歩不",
        "▲７六",
        "▲投了",
        "▲",
        "７六歩",
        "",
    ];

    #[test]
    fn ki2_fast_path_agrees_with_the_grammar() {
        agrees(
            KI2_TOKENS,
            |t| ki2_token_fast(t).map(|mv| node_of(&mv)),
            |t| ki2_token(t).ok().map(|(_, m)| m),
        );
        for tok in ["▲７六歩", "▲同　銀", "△５八金右上成", "▲５五角打"] {
            assert!(ki2_token_fast(tok).is_some(), "{tok:?}");
        }
    }
}
