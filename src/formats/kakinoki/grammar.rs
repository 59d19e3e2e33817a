//! The grammar of the Kakinoki formats' lines, in nom: one parser per kind of line or of text
//! inside a line (header `key：value`, a KIF move line's body with its time, a KI2 move token,
//! `変化：N手`, a board-diagram row, a hand, the `まで…` footer, counts). The line loop of
//! `read` decides which kind a line is and keeps the line numbers; a parser here sees one
//! line (never the whole file) and reports what it expected with the place in the line where
//! it stopped ([`Syntax`]), which the reader turns into a diagnostic with a column.
//!
//! Hand-written on purpose: the common layouts of a KIF time (`( 0:16/00:00:16)`, ASCII only)
//! are read byte by byte ([`time_fast`]) before the general grammar ([`time`]) is tried: it is
//! read on every move line of a KIF file, and the byte loop is the faster.
//!
//! Formats layer: uses `core` and `record`, nothing above.

use nom::branch::alt;
use nom::bytes::complete::{tag, take_till, take_till1, take_while, take_while1};
use nom::character::complete::{anychar, char, digit1, one_of};
use nom::combinator::{consumed, map, map_opt, opt, rest, success, value, verify};
use nom::error::{ErrorKind, ParseError};
use nom::multi::{fold_many0, fold_many1};
use nom::{IResult, Parser};

use super::text::*;
use crate::core::{Color, Hand, Piece, PieceKind, Square};
use crate::record::{
    CompactString, Footer, Horizontal, MoveText, MoveTime, NamedPiece, NodeKind, Relative, Source,
    Span, Special, SpecialKind, Vertical,
};

// ---------------------------------------------------------------------------------------------
// Errors
// ---------------------------------------------------------------------------------------------

/// Why a line's text did not parse: what was expected, and the rest of the text from where
/// (a suffix of the text given to the parser, so its offset is the text's length minus
/// this one's).
#[derive(Debug, Clone, Copy)]
pub(super) struct Syntax<'a> {
    rest: &'a str,
    msg: &'static str,
}

impl<'a> ParseError<&'a str> for Syntax<'a> {
    fn from_error_kind(rest: &'a str, _: ErrorKind) -> Self {
        Syntax {
            rest,
            msg: "unexpected text",
        }
    }

    fn append(_: &'a str, _: ErrorKind, other: Self) -> Self {
        other
    }
}

type PResult<'a, T> = IResult<&'a str, T, Syntax<'a>>;

/// A mismatch at `rest` (an enclosing `alt`, `opt` or [`expect`] decides what it means).
fn mismatch<T>(rest: &str) -> PResult<'_, T> {
    Err(nom::Err::Error(Syntax::from_error_kind(
        rest,
        ErrorKind::Verify,
    )))
}

/// A failure (no other branch is tried) with `msg` at `rest`.
fn fail<'a, T>(rest: &'a str, msg: &'static str) -> PResult<'a, T> {
    Err(nom::Err::Failure(Syntax { rest, msg }))
}

/// `p`, or a failure with `msg` where `p` started when `p` does not match.
fn expect<'a, O>(
    msg: &'static str,
    mut p: impl Parser<&'a str, Output = O, Error = Syntax<'a>>,
) -> impl FnMut(&'a str) -> PResult<'a, O> {
    move |i: &'a str| {
        p.parse(i).map_err(|e| match e {
            nom::Err::Error(_) => nom::Err::Failure(Syntax { rest: i, msg }),
            other => other,
        })
    }
}

/// Why move text did not parse: a message and the byte offset (in the text) where.
#[derive(Debug)]
pub(super) struct MoveSyntax {
    pub(super) msg: &'static str,
    pub(super) at: usize,
}

/// The [`MoveSyntax`] of a nom error met in `text`.
fn move_syntax(text: &str, e: nom::Err<Syntax<'_>>) -> MoveSyntax {
    match e {
        nom::Err::Error(s) | nom::Err::Failure(s) => MoveSyntax {
            msg: s.msg,
            at: text.len() - s.rest.len(),
        },
        nom::Err::Incomplete(_) => MoveSyntax {
            msg: "unexpected end of the text",
            at: text.len(),
        },
    }
}

// ---------------------------------------------------------------------------------------------
// Words and numbers
// ---------------------------------------------------------------------------------------------

/// Any one character.
fn any_char(i: &str) -> PResult<'_, char> {
    anychar(i)
}

/// Spaces: ASCII, tab, full-width (none or more).
fn spaces(i: &str) -> PResult<'_, &str> {
    take_while(is_space)(i)
}

/// One space or more.
fn spaces1(i: &str) -> PResult<'_, &str> {
    take_while1(is_space)(i)
}

/// `先手`/`下手` (Black) or `後手`/`上手` (White).
fn side_name(i: &str) -> PResult<'_, Color> {
    alt((
        value(Color::Black, tag("先手")),
        value(Color::Black, tag("下手")),
        value(Color::White, tag("後手")),
        value(Color::White, tag("上手")),
    ))
    .parse(i)
}

/// A KI2 side mark (`▲△☗☖▼▽`).
fn side_mark(i: &str) -> PResult<'_, Color> {
    map_opt(any_char, mark_color).parse(i)
}

/// A decimal digit, ASCII or full-width (`０`-`９`).
fn decimal(c: char) -> Option<u32> {
    c.to_digit(10)
        .or_else(|| ('０'..='９').contains(&c).then(|| c as u32 - '０' as u32))
}

/// Digits, ASCII or full-width (`12`, `１２`), as a number (saturating).
fn digits(i: &str) -> PResult<'_, u32> {
    fold_many1(
        map_opt(any_char, decimal),
        || 0u32,
        |n, d| n.saturating_mul(10).saturating_add(d),
    )
    .parse(i)
}

/// A kanji numeral (`十八`, `二十三`, `二`): `Some(d)` for a digit, `None` for `十`.
fn kanji_numeral(i: &str) -> PResult<'_, u32> {
    let place = map_opt(any_char, |c| match c {
        '十' => Some(None),
        c => kanji_digit(c).map(|d| Some(u32::from(d))),
    });
    map(
        fold_many1(
            place,
            || (0u32, 0u32),
            |(total, cur), p| match p {
                Some(d) => (total, d),
                None => (total.saturating_add(cur.max(1) * 10), 0),
            },
        ),
        |(total, cur)| total.saturating_add(cur),
    )
    .parse(i)
}

/// A count in digits or in kanji.
fn count(i: &str) -> PResult<'_, u32> {
    alt((digits, kanji_numeral)).parse(i)
}

/// A count at the start of `s` (see [`count`]): the value and the bytes used.
#[cfg(test)]
fn parse_count(s: &str) -> Option<(u32, usize)> {
    count(s).ok().map(|(r, n)| (n, s.len() - r.len()))
}

/// Parses special text as KIF writes it (`投了`, `先手 反則負け`): kind and named side.
pub(crate) fn parse_special_text(text: &str) -> (SpecialKind, Option<Color>) {
    let t = trim_spaces(text);
    let named = (side_name, spaces1, map_opt(rest, special_kind)).parse(t);
    match named {
        Ok((_, (side, _, kind))) => (kind, Some(side)),
        Err(_) => (special_kind(t).unwrap_or(SpecialKind::Unknown), None),
    }
}

// ---------------------------------------------------------------------------------------------
// Move text
// ---------------------------------------------------------------------------------------------

/// A square, `７六` or `76`.
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
fn promotion(i: &str) -> PResult<'_, bool> {
    alt((value(false, tag("不成")), value(true, char('成')))).parse(i)
}

/// A source square as KIF writes it, `(77)` (ASCII digits); `msg` when a `(` opens anything
/// else.
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

/// The common layouts of a KIF time, `( 0:16/00:00:16)` (ASCII digits and spaces), read
/// byte by byte: the time and the bytes used, `None` for any other layout (which [`time`] then
/// reads).
fn time_fast(b: &[u8]) -> Option<(MoveTime, usize)> {
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

/// What follows a move on a KIF line: a time, `+` (the move has variations), a `#` comment,
/// spaces between. Returns the time.
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

/// Whether a move's text starts as a move (`同` or a square), not as a special word.
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
    let raw = CompactString::from(s.get(..s.len() - r.len()).unwrap_or(s));
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

/// A KIF move after the ply number: move or special, with time.
pub(super) fn parse_kif_move(body: &str) -> Result<(NodeKind, Option<MoveTime>), MoveSyntax> {
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
    alt((
        value(S::Horizontal(Horizontal::Right), char('右')),
        value(S::Horizontal(Horizontal::Left), char('左')),
        value(S::Horizontal(Horizontal::Straight), char('直')),
        value(S::Vertical(Vertical::Up), one_of("上行")),
        value(S::Vertical(Vertical::Sideways), char('寄')),
        value(S::Vertical(Vertical::Down), char('引')),
        value(S::Promote(true), char('成')),
        value(S::Promote(false), tag("不成")),
        value(S::Drop, char('打')),
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
    let text = MoveText {
        color: Some(color),
        from,
        to: to.unwrap_or(SQ11),
        same: to.is_none(),
        piece: Some(NamedPiece::Before(kind)),
        promote,
        relative,
        raw: CompactString::from(tok.trim_end_matches(is_space)),
    };
    Ok((
        r,
        NodeKind::Move {
            text,
            resolved: None,
        },
    ))
}

/// One KI2 token (see [`ki2_token`]).
pub(super) fn parse_ki2_token(tok: &str) -> Result<NodeKind, MoveSyntax> {
    ki2_token(tok)
        .map(|(_, m)| m)
        .map_err(|e| move_syntax(tok, e))
}

// ---------------------------------------------------------------------------------------------
// Lines other than moves
// ---------------------------------------------------------------------------------------------

/// The start of a KIF move line: ASCII spaces, the move number, spaces. Returns the number
/// (`None` when it does not fit a `u32`) and the byte offset of the body after it.
pub(super) fn move_number(t: &str) -> Option<(Option<u32>, usize)> {
    let (r, (_, number, _)) = (take_while(|c| c == ' '), digit1, spaces1).parse(t).ok()?;
    Some((number.parse().ok(), t.len() - r.len()))
}

/// A header separator, `：` or `:`.
fn colon(i: &str) -> PResult<'_, char> {
    one_of("：:")(i)
}

/// The value of `key：value` (or `key:value`) when the line starts with `key`.
pub(super) fn header_value<'a>(t: &'a str, key: &str) -> Option<&'a str> {
    (tag(key), colon).parse(t).ok().map(|(v, _)| v)
}

/// A hand line's key (`先手の持駒：`, `後手持駒:`...): the side whose hand it is and the value.
pub(super) fn hand_key(t: &str) -> Option<(Color, &str)> {
    let key = alt((
        value(Color::Black, tag("先手の持駒")),
        value(Color::Black, tag("下手の持駒")),
        value(Color::White, tag("後手の持駒")),
        value(Color::White, tag("上手の持駒")),
        value(Color::Black, tag("先手持駒")),
        value(Color::Black, tag("下手持駒")),
        value(Color::White, tag("後手持駒")),
        value(Color::White, tag("上手持駒")),
    ));
    (key, colon).parse(t).ok().map(|(v, (c, _))| (c, v))
}

/// Any other header line, `key：value`: the key (cut at the first colon, without spaces) and
/// the byte offset of the value.
pub(super) fn header_line(t: &str) -> Option<(&str, usize)> {
    let key = verify(take_till1(|c| c == '：' || c == ':'), |k: &str| {
        !k.contains(is_space)
    });
    let (v, (key, _)) = (key, colon).parse(t).ok()?;
    Some((key, t.len() - v.len()))
}

/// A hand's pieces, `飛　角二　歩十八` (`なし` or nothing for none; `、` and `,` also
/// separate): the hand, or the byte offset of the first piece that cannot be read and why.
pub(super) fn hand(v: &str) -> Result<Hand, (usize, &'static str)> {
    let mut hand = Hand::EMPTY;
    let t = trim_spaces(v);
    if t == "なし" || t.is_empty() {
        return Ok(hand);
    }
    let separators =
        |i| -> PResult<'_, &str> { take_while(|c| is_space(c) || c == '、' || c == ',')(i) };
    let mut r = separators(v).map_or(v, |(r, _)| r);
    while !r.is_empty() {
        let at = v.len() - r.len();
        let kind = match PieceKind::from_kif_prefix(r) {
            Some((kind, 1)) => kind,
            _ => return Err((at, "piece name expected in hand")),
        };
        if !kind.is_hand_kind() {
            return Err((at, "this piece cannot be held in hand"));
        }
        let (after, _) =
            anychar::<_, Syntax<'_>>(r).map_err(|_| (at, "piece name expected in hand"))?;
        let (after, n) = opt(count).parse(after).unwrap_or((after, None));
        let total = u32::from(hand.count(kind))
            .saturating_add(n.unwrap_or(1))
            .min(255) as u8;
        hand.set(kind, total);
        r = separators(after).map_or(after, |(r, _)| r);
    }
    Ok(hand)
}

/// `N手` after `変化：` (spaces around it, a `#` comment after it): the ply N, in digits
/// (ASCII or full-width).
pub(super) fn variation_ply(v: &str) -> Option<u32> {
    let v = take_till::<_, _, Syntax<'_>>(|c| c == '#')(v).map_or(v, |(_, b)| b);
    let (r, (_, n, _, _, _)) = (spaces, digits, spaces, char('手'), spaces).parse(v).ok()?;
    r.is_empty().then_some(n)
}

/// What a board-diagram row did not hold.
pub(super) enum RowError {
    /// The text at this byte offset of the row is not a cell (the message says what was
    /// expected).
    At(usize, &'static str),
    /// The row does not hold nine cells between `|`.
    Cells,
}

/// One cell of a board-diagram row: ` 歩`, `v金`, ` ・` (or a lone `・`/`　`, an empty cell
/// written without its side mark).
fn cell(i: &str) -> PResult<'_, Option<Piece>> {
    if let Ok((r, _)) = one_of::<_, _, Syntax<'_>>("・　")(i) {
        return Ok((r, None));
    }
    let mark = map_opt(any_char, |c| match c {
        ' ' | '^' | '+' => Some(Color::Black),
        'v' | 'V' => Some(Color::White),
        _ => None,
    });
    let (r, color) = expect("side mark (space or v) expected", mark)(i)?;
    if r.is_empty() {
        return fail(i, "piece expected");
    }
    let one = map_opt(any_char, |c| {
        let mut b = [0u8; 4];
        match PieceKind::from_kif_prefix(c.encode_utf8(&mut b)) {
            Some((k, 1)) => Some(Some(Piece::new(color, k))),
            _ => None,
        }
    });
    expect("piece expected", alt((value(None, one_of("・　 ")), one))).parse(r)
}

/// A board-diagram row, `|v香v桂 ・ ・…|一`: its nine cells (file 9 first) and the rank
/// written after it, if any.
pub(super) fn board_row(t: &str) -> Result<([Option<Piece>; 9], Option<u8>), RowError> {
    let at = |r: &str, msg| RowError::At(t.len() - r.len(), msg);
    let mut cells: [Option<Piece>; 9] = [None; 9];
    let mut r = t.strip_prefix('|').unwrap_or(t);
    let mut n = 0;
    loop {
        if let Some(after) = r.strip_prefix('|') {
            if n != 9 {
                return Err(RowError::Cells);
            }
            let rank = map_opt(any_char, kanji_digit).parse(after);
            let rank: PResult<'_, u8> = rank;
            return Ok((cells, rank.ok().map(|(_, k)| k)));
        }
        if r.is_empty() {
            return Err(RowError::Cells);
        }
        if n >= 9 {
            return Err(at(r, "more than nine cells in a board row"));
        }
        match cell(r) {
            Ok((rest, c)) => {
                cells[n] = c;
                n += 1;
                r = rest;
            }
            Err(nom::Err::Error(e) | nom::Err::Failure(e)) => return Err(at(e.rest, e.msg)),
            Err(nom::Err::Incomplete(_)) => return Err(RowError::Cells),
        }
    }
}

// ---------------------------------------------------------------------------------------------
// The footer
// ---------------------------------------------------------------------------------------------

/// Parses a `まで…` line: `まで`, the number of moves, `手で` and the result (`先手の勝ち`,
/// `詰み`, `時間切れにより後手の勝ち`...), before a `#` comment.
pub(crate) fn parse_footer(text: &str, span: Span) -> Footer {
    let mut head = (
        opt(tag("まで")),
        take_while(|c| matches!(c, '、' | ',' | '，')),
        spaces,
        opt(count),
        opt(char('手')),
        opt(char('で')),
        take_till(|c| c == '#'),
    );
    let parsed: PResult<'_, _> = head.parse(text);
    let (plies, result) = match parsed {
        Ok((_, (_, _, _, plies, _, _, result))) => (plies, trim_spaces(result)),
        Err(_) => (None, ""),
    };
    let (kind, winner) = footer_result(result);
    Footer {
        text: text.to_string(),
        plies,
        winner,
        kind,
        span,
    }
}

/// The result of a `まで` line: the ending and the winner.
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
    // `[時間切れにより]` side `[の]` outcome
    let mut won = (opt(tag("時間切れにより")), side_name, opt(char('の')), rest);
    let parsed: PResult<'_, _> = won.parse(result);
    let Ok((_, (timeout, side, _, outcome))) = parsed else {
        return (None, None);
    };
    let (kind, winner) = match outcome {
        "勝ち" if timeout.is_some() => (SpecialKind::Timeout, side),
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
