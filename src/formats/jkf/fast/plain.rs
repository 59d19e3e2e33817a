//! The JKF document as the validator's short way reads it: entry by entry, with no record
//! built. It takes the plain shape writers produce — `header`, `initial` absent, null or the
//! `HIRATE` preset (before `moves`), a first entry with no comments, then entries of a `move`
//! (and its `time`) or a `special`, with no comments and no variations — and hands each entry
//! over as it is read. On anything else it gives up (`None`), as the reader's own short way
//! does ([`super::read`]), and the caller reads the document the full way.
//!
//! What it accepts is a part of what [`super::read`] accepts, read to the same values: the
//! same scanner ([`P`]) and the same rules for each member (a repeated key, an unknown key, a
//! value of another type give up), so the record that reader would build holds exactly the
//! moves, times and specials handed over here, at the same places.

use std::borrow::Cow;

use super::super::read::special_of;
use super::{P, document_key, entry_key};
use crate::core::{Color, Handicap, PieceKind, Square};
use crate::record::{Header, MoveTime, Span, Special, StartPosition};

/// A `move` object, as the reader reads it into a `MoveText`: what resolving it needs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct PlainMove {
    /// `color`, when given as a side (`0`, `1`, `true`, `false`).
    pub(crate) color: Option<Color>,
    /// `from`; `None` for a drop (no `from`, or `null`).
    pub(crate) from: Option<Square>,
    /// `to`, or the previous move's destination for `same` without a `to`.
    pub(crate) to: Square,
    /// `piece`: the kind before the move.
    pub(crate) kind: PieceKind,
    /// `promote: true`.
    pub(crate) promote: bool,
}

/// One entry of `moves` after the first.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum PlainEntry {
    /// A move.
    Move(PlainMove),
    /// A `special` (an entry without a `move`), as the reader makes it.
    Special(Special),
}

/// Reads `text` entry by entry, handing each to `each` with its time and where the entry
/// starts (its `{`); returns the header. `None` when the text is not of the plain shape, or
/// when `each` gives up: the caller then reads it the full way.
pub(crate) fn plain_game(
    text: &str,
    mut each: impl FnMut(PlainEntry, Option<MoveTime>, Span) -> Option<()>,
) -> Option<Header> {
    let text = text.trim_start_matches('\u{FEFF}');
    let mut p = P::new(text);
    let mut header = Header::default();
    p.ws();
    p.eat(b'{')?;
    let mut seen = 0u8;
    p.members(|p, key| {
        let bit = document_key(key, &mut seen)?;
        match bit {
            1 => p.header(&mut header),
            // The moves are played as they are read: the start must be known before them.
            2 if seen & 4 == 0 => {
                (p.initial()? == StartPosition::Preset(Handicap::Even)).then_some(())
            }
            2 => None,
            _ => p.plain_moves(&mut each),
        }
    })?;
    p.ws();
    (seen & 4 != 0 && p.i == p.b.len()).then_some(header)
}

impl P<'_> {
    /// `moves`: the first entry (no comments), then the entries to `each`.
    fn plain_moves(
        &mut self,
        each: &mut impl FnMut(PlainEntry, Option<MoveTime>, Span) -> Option<()>,
    ) -> Option<()> {
        self.eat(b'[')?;
        let mut first = true;
        let mut prev_to = None;
        self.elements(|p| {
            if first {
                first = false;
                p.eat(b'{')?;
                let mut comments = false;
                p.members(|p, key| {
                    if key != "comments" || comments {
                        return None;
                    }
                    comments = true;
                    p.no_comments()
                })
            } else {
                p.ws();
                let span = p.span();
                match written(p.b, p.i) {
                    Some((entry, time, end)) => {
                        p.i = end;
                        if let PlainEntry::Move(m) = &entry {
                            prev_to = Some(m.to);
                        }
                        each(entry, time, span)
                    }
                    None => p.plain_entry(&mut prev_to, each),
                }
            }
        })
    }

    /// `comments` that hold none (null, `[]`); `None` for any other value.
    fn no_comments(&mut self) -> Option<()> {
        if self.null() {
            return Some(());
        }
        self.eat(b'[')?;
        self.ws();
        (self.peek()? == b']').then(|| self.i += 1)
    }

    /// One entry after the first, to `each`; `prev_to` is the destination of the line's last
    /// move (`same`).
    fn plain_entry(
        &mut self,
        prev_to: &mut Option<Square>,
        each: &mut impl FnMut(PlainEntry, Option<MoveTime>, Span) -> Option<()>,
    ) -> Option<()> {
        self.ws();
        let span = self.span();
        self.eat(b'{')?;
        let mut seen = 0u8;
        let mut mv = None;
        let mut special: Option<Cow<'_, str>> = None;
        let mut time = None;
        self.members(|p, key| {
            let bit = entry_key(key, &mut seen)?;
            match bit {
                1 => {
                    if !p.null() {
                        mv = Some(p.plain_move(*prev_to)?);
                    }
                }
                2 => special = Some(p.string()?),
                8 => time = p.time()?,
                // No comments, no variations (`forks` null or `[]`).
                _ => p.no_comments()?,
            }
            Some(())
        })?;
        let entry = match (mv, special) {
            (Some(m), _) => {
                *prev_to = Some(m.to);
                PlainEntry::Move(m)
            }
            (None, Some(s)) => PlainEntry::Special(special_of(&s)),
            (None, None) => return None,
        };
        each(entry, time, span)
    }

    /// A `move` object, read as the reader's `move_text` reads it.
    fn plain_move(&mut self, prev_to: Option<Square>) -> Option<PlainMove> {
        self.eat(b'{')?;
        let m = self.move_members(prev_to)?;
        Some(PlainMove {
            color: m.color,
            from: m.from,
            to: m.to,
            kind: m.kind,
            promote: m.promote == Some(true),
        })
    }
}

/// A cursor over the bytes of the layout writers use, for [`written`].
struct Cur<'a> {
    b: &'a [u8],
    i: usize,
}

impl Cur<'_> {
    /// Takes `lit` if it is next.
    #[inline(always)]
    fn lit(&mut self, lit: &[u8]) -> bool {
        let hit = self.b.get(self.i..self.i + lit.len()) == Some(lit);
        if hit {
            self.i += lit.len();
        }
        hit
    }

    /// A digit from `0` to `max`, one byte.
    #[inline(always)]
    fn digit(&mut self, max: u8) -> Option<u8> {
        let d = self.b.get(self.i)?.wrapping_sub(b'0');
        (d <= max).then(|| {
            self.i += 1;
            d
        })
    }

    /// A whole number as [`P::uint`] reads it (no leading zero, at most 18 digits); what
    /// follows is checked by the caller's next literal.
    #[inline(always)]
    fn uint(&mut self) -> Option<u64> {
        let first = self.digit(9)?;
        let mut n = u64::from(first);
        let start = self.i;
        while let Some(d) = self.digit(9) {
            if first == 0 || self.i - start >= 18 {
                return None;
            }
            n = n * 10 + u64::from(d);
        }
        Some(n)
    }

    /// `{"x":X,"y":Y}`, one digit each: a square on the board.
    #[inline(always)]
    fn square(&mut self) -> Option<Square> {
        if !self.lit(b"{\"x\":") {
            return None;
        }
        let x = self.digit(9)?;
        if !self.lit(b",\"y\":") {
            return None;
        }
        let y = self.digit(9)?;
        self.lit(b"}").then_some(())?;
        Square::new(x, y)
    }

    /// A string of one to three ASCII capitals, its quotes included: the text of `piece`,
    /// `capture`, `relative`.
    #[inline(always)]
    fn caps(&mut self) -> Option<&[u8]> {
        let b = self.b.get(self.i..)?;
        let n = match b {
            [b'"', x, b'"', ..] if x.is_ascii_uppercase() => 1,
            [b'"', x, y, b'"', ..] if x.is_ascii_uppercase() && y.is_ascii_uppercase() => 2,
            [b'"', x, y, z, b'"', ..]
                if x.is_ascii_uppercase() && y.is_ascii_uppercase() && z.is_ascii_uppercase() =>
            {
                3
            }
            _ => return None,
        };
        self.i += n + 2;
        b.get(1..=n)
    }

    /// `{"m":M,"s":S}`, or `{"h":H,"m":M,"s":S}` when `hours`, in milliseconds (as
    /// [`P::time`] counts them).
    #[inline(always)]
    fn hms(&mut self, hours: bool) -> Option<u64> {
        let h = if hours {
            if !self.lit(b"{\"h\":") {
                return None;
            }
            let h = self.uint()?;
            if !self.lit(b",\"m\":") {
                return None;
            }
            h
        } else {
            if !self.lit(b"{\"m\":") {
                return None;
            }
            0
        };
        let m = self.uint()?;
        if !self.lit(b",\"s\":") {
            return None;
        }
        let s = self.uint()?;
        self.lit(b"}").then_some(())?;
        Some(
            h.saturating_mul(3_600_000)
                .saturating_add(m.saturating_mul(60_000))
                .saturating_add(s.saturating_mul(1_000)),
        )
    }
}

/// The move entry at `i` in the one layout kifu's writer and json-kifu-format's normalizer
/// write, compact: `{"move":{"color":C,"from":{"x":X,"y":Y},"to":{..},"piece":"FU"` then
/// `"same":true`, `"promote":true|false`, `"capture":"FU"`, `"relative":"L"` as they apply,
/// then `}` and maybe `,"time":{"now":{"m":M,"s":S},"total":{"h":H,"m":M,"s":S}}`, then `}`.
/// Read by fixed literals, it gives what [`P::plain_entry`] gives of the same bytes (whose
/// keys, values and places are those), and the index after the entry; `None` for any other
/// layout, which [`P::plain_entry`] then reads.
#[inline]
fn written(b: &[u8], i: usize) -> Option<(PlainEntry, Option<MoveTime>, usize)> {
    let mut c = Cur { b, i };
    if !c.lit(b"{\"move\":{\"color\":") {
        return None;
    }
    let color = match c.digit(1)? {
        0 => Color::Black,
        _ => Color::White,
    };
    let from = if c.lit(b",\"from\":") {
        Some(c.square()?)
    } else {
        None
    };
    if !c.lit(b",\"to\":") {
        return None;
    }
    let to = c.square()?;
    if !c.lit(b",\"piece\":") {
        return None;
    }
    let kind = match *c.caps()? {
        [x, y] => PieceKind::from_csa_bytes(x, y)?,
        _ => return None,
    };
    // `same` names the square `to` already gives.
    c.lit(b",\"same\":true");
    let promote = if c.lit(b",\"promote\":true") {
        true
    } else {
        c.lit(b",\"promote\":false");
        false
    };
    if c.lit(b",\"capture\":") {
        c.caps()?;
    }
    if c.lit(b",\"relative\":") {
        c.caps()?;
    }
    if !c.lit(b"}") {
        return None;
    }
    let time = if c.lit(b",\"time\":{\"now\":") {
        let elapsed = c.hms(false)?;
        if !c.lit(b",\"total\":") {
            return None;
        }
        let total = c.hms(true)?;
        if !c.lit(b"}") {
            return None;
        }
        Some(MoveTime {
            elapsed_ms: Some(elapsed),
            total_ms: Some(total),
        })
    } else {
        None
    };
    if !c.lit(b"}") {
        return None;
    }
    let m = PlainMove {
        color: Some(color),
        from,
        to,
        kind,
        promote,
    };
    Some((PlainEntry::Move(m), time, c.i))
}
#[cfg(test)]
mod tests;
