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
use super::P;
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
    let mut p = P {
        b: text.as_bytes(),
        s: text,
        i: 0,
        line: 1,
        line_start: 0,
        wide: 0,
        spaced: false,
    };
    let mut header = Header::default();
    p.ws();
    p.eat(b'{')?;
    let mut seen = 0u8;
    p.members(|p, key| {
        let bit = match key {
            "header" => 1,
            "initial" => 2,
            "moves" => 4,
            _ => return None,
        };
        if seen & bit != 0 {
            return None;
        }
        seen |= bit;
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
                p.plain_entry(&mut prev_to, each)
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
            let bit = match key {
                "move" => 1,
                "special" => 2,
                "comments" => 4,
                "time" => 8,
                "forks" => 16,
                _ => return None,
            };
            if seen & bit != 0 {
                return None;
            }
            seen |= bit;
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
        let mut seen = 0u8;
        let mut color = None;
        let mut from = None;
        let mut to = None;
        let mut kind = None;
        let mut same = false;
        let mut promote = false;
        self.members(|p, key| {
            let bit = match key {
                "color" => 1,
                "from" => 2,
                "to" => 4,
                "piece" => 8,
                "same" => 16,
                "promote" => 32,
                "capture" => 64,
                "relative" => 128,
                _ => return None,
            };
            if seen & bit != 0 {
                return None;
            }
            seen |= bit;
            match bit {
                1 => {
                    color = if p.null() {
                        None
                    } else if let Some(b) = p.boolean() {
                        Some(if b { Color::Black } else { Color::White })
                    } else {
                        match p.uint()? {
                            0 => Some(Color::Black),
                            1 => Some(Color::White),
                            _ => None,
                        }
                    }
                }
                2 => {
                    if !p.null() {
                        from = Some(p.square()??);
                    }
                }
                4 => {
                    if !p.null() {
                        to = p.square()?;
                    }
                }
                8 => kind = Some(PieceKind::from_csa(p.plain_string()?)?),
                16 => same = !p.null() && p.boolean()?,
                32 => promote = !p.null() && p.boolean()?,
                // `capture` and `relative` name nothing a move with its source needs.
                _ => {
                    if !p.null() {
                        p.plain_string()?;
                    }
                }
            }
            Some(())
        })?;
        let to = match to {
            Some(sq) => sq,
            None if same => prev_to?,
            None => return None,
        };
        Some(PlainMove {
            color,
            from,
            to,
            kind: kind?,
            promote,
        })
    }
}
