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
//! Files: this one (errors, words, numbers), `moves` (a KIF move line's body and its time,
//! KI2 move tokens), `lines` (every other kind of line, the footer).
//!
//! Formats layer: uses `core` and `record`, nothing above.

use nom::branch::alt;
use nom::bytes::complete::{tag, take_till, take_till1, take_while};
use nom::character::complete::{anychar, char, digit1, one_of};
use nom::combinator::{consumed, map, map_opt, opt, rest, success, value, verify};
use nom::error::{ErrorKind, ParseError};
use nom::multi::{fold_many0, fold_many1};
use nom::{IResult, Parser};

use super::spelling::{Glyph, Spelling, Utf8, glyph};
use super::text::*;
use crate::core::{Color, Hand, Piece, PieceKind, Square};
use crate::record::{
    Footer, Horizontal, MoveText, MoveTime, NamedPiece, NodeKind, RawText, Relative, Source, Span,
    Special, SpecialKind, Vertical,
};

mod lines;
mod moves;

pub(crate) use lines::*;
pub(crate) use moves::*;

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
#[inline]
fn mismatch<T>(rest: &str) -> PResult<'_, T> {
    Err(nom::Err::Error(Syntax::from_error_kind(
        rest,
        ErrorKind::Verify,
    )))
}

/// A failure (no other branch is tried) with `msg` at `rest`.
#[inline]
fn fail<'a, T>(rest: &'a str, msg: &'static str) -> PResult<'a, T> {
    Err(nom::Err::Failure(Syntax { rest, msg }))
}

/// `p`, or a failure with `msg` where `p` started when `p` does not match.
#[inline]
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
pub(crate) struct MoveSyntax {
    pub(crate) msg: &'static str,
    pub(crate) at: usize,
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
#[inline]
fn any_char(i: &str) -> PResult<'_, char> {
    anychar(i)
}

/// Spaces: ASCII, tab, full-width (none or more).
/// (A byte loop: spaces come between every two parts of a move line.)
#[inline]
fn spaces(i: &str) -> PResult<'_, &str> {
    let b = i.as_bytes();
    let mut n = 0;
    loop {
        match b.get(n) {
            Some(b' ' | b'\t') => n += 1,
            // U+3000, the full-width space
            Some(0xE3) if b.get(n + 1) == Some(&0x80) && b.get(n + 2) == Some(&0x80) => n += 3,
            _ => break,
        }
    }
    Ok((i.get(n..).unwrap_or(""), i.get(..n).unwrap_or("")))
}

/// One space or more.
#[inline]
fn spaces1(i: &str) -> PResult<'_, &str> {
    match spaces(i)? {
        (_, "") => mismatch(i),
        done => Ok(done),
    }
}

/// `先手`/`下手` (Black) or `後手`/`上手` (White).
#[inline]
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
#[inline]
fn side_mark(i: &str) -> PResult<'_, Color> {
    map_opt(any_char, mark_color).parse(i)
}

/// A decimal digit, ASCII or full-width (`０`-`９`).
#[inline]
fn decimal(c: char) -> Option<u32> {
    c.to_digit(10)
        .or_else(|| ('０'..='９').contains(&c).then(|| c as u32 - '０' as u32))
}

/// Digits, ASCII or full-width (`12`, `１２`), as a number (saturating).
#[inline]
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

#[cfg(test)]
mod tests {
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
