//! The JKF reader's short way: one pass over the text that builds the [`Record`] directly, for
//! documents of the plain shape writers produce (known keys, each once; values of the types
//! the format defines; whole non-negative numbers written plainly; no variations nested deeper
//! than [`MAX_FAST_FORKS`]). On anything else — malformed JSON, a value of another type, a move
//! it cannot read, an unknown or repeated key, a setup position (`preset: "OTHER"`) — it gives
//! up and the general reader ([`super::read`]'s serde path) reads the text again, so every
//! diagnostic stays that reader's. What it accepts, it reads to the same record the general
//! reader would (tests in `fast/tests.rs` and `tests/library/formats_jkf.rs` compare both over every
//! JKF file at hand).
//!
//! It knows each entry's line and column as it reads it (line ends are only in whitespace,
//! other characters than ASCII only in strings: both are counted as they are skipped), and
//! keeps a move's raw text (its compact JSON) by slicing the text, removing whitespace only
//! when the move object has some.

use std::borrow::Cow;

use super::read::{relative_of, special_of};
use crate::core::{Color, Handicap, PieceKind, Square};
use crate::record::{
    Header, MoveNode, MoveText, MoveTime, NamedPiece, NodeKind, Record, Source, StartPosition,
};
use scan::is_ws;

/// The deepest variation nesting the short way reads (each level is three JSON levels, far
/// within serde_json's limit of 128); deeper documents are left to the general reader.
pub(super) const MAX_FAST_FORKS: u32 = 30;

/// Reads `text` (its BOM already removed) to a record, or `None` when the text is not of the
/// plain shape (the general reader then reads it, with its diagnostics). The analysis lines of
/// the comments are not extracted yet.
pub(super) fn read(text: &str) -> Option<Record> {
    let mut p = P::new(text);
    let mut record = Record::default();
    p.ws();
    p.eat(b'{')?;
    let mut seen = 0u8;
    let mut moves = false;
    p.members(|p, key| {
        let bit = document_key(key, &mut seen)?;
        match bit {
            1 => p.header(&mut record.header),
            2 => {
                record.start = p.initial()?;
                Some(())
            }
            _ => {
                moves = true;
                p.moves(&mut record)
            }
        }
    })?;
    p.ws();
    (moves && p.i == p.b.len()).then_some(record)
}

/// Takes `bit` into `seen`, and gives it back; `None` when `seen` has it already (a key
/// repeated in an object).
#[inline(always)]
fn once(seen: &mut u8, bit: u8) -> Option<u8> {
    (*seen & bit == 0).then(|| {
        *seen |= bit;
        bit
    })
}

/// The bit of a key of the document (`header` 1, `initial` 2, `moves` 4), taken into `seen`;
/// `None` for another key, or one already seen.
#[inline(always)]
fn document_key(key: &str, seen: &mut u8) -> Option<u8> {
    let bit = match key {
        "header" => 1,
        "initial" => 2,
        "moves" => 4,
        _ => return None,
    };
    once(seen, bit)
}

/// The bit of a key of an entry of `moves` (`move` 1, `special` 2, `comments` 4, `time` 8,
/// `forks` 16), taken into `seen`; `None` for another key, or one already seen.
#[inline(always)]
fn entry_key(key: &str, seen: &mut u8) -> Option<u8> {
    let bit = match key {
        "move" => 1,
        "special" => 2,
        "comments" => 4,
        "time" => 8,
        "forks" => 16,
        _ => return None,
    };
    once(seen, bit)
}

/// The parser: the text, where it stands, and what makes its line and column.
struct P<'a> {
    b: &'a [u8],
    s: &'a str,
    i: usize,
    /// The line of `i` (line ends as `lines::count` counts them: LF, CR LF, a lone CR).
    line: u32,
    /// Where that line starts.
    line_start: usize,
    /// The bytes after the first of a character (UTF-8 continuation bytes) between
    /// `line_start` and `i`: the column is `i - line_start - wide + 1`.
    wide: usize,
    /// Whether whitespace has been skipped since this was last reset.
    spaced: bool,
}

/// Where a line of moves stands: its first ply and the depth of its variation.
#[derive(Clone, Copy)]
struct At {
    ply: u32,
    depth: u32,
}

impl<'a> P<'a> {
    /// The parser at the start of `text`.
    fn new(text: &'a str) -> P<'a> {
        P {
            b: text.as_bytes(),
            s: text,
            i: 0,
            line: 1,
            line_start: 0,
            wide: 0,
            spaced: false,
        }
    }

    fn header(&mut self, header: &mut Header) -> Option<()> {
        if self.null() {
            return Some(());
        }
        self.eat(b'{')?;
        // Keys with escapes too.
        self.object(Self::string, |p, key| {
            let value = if p.null() {
                Cow::Borrowed("")
            } else {
                p.string()?
            };
            header.push(key, value, Default::default());
            Some(())
        })
    }

    /// `initial`: absent or null is the even start; a preset other than `OTHER` is read here,
    /// a setup is left to the general reader.
    fn initial(&mut self) -> Option<StartPosition> {
        if self.null() {
            return Some(StartPosition::default());
        }
        self.eat(b'{')?;
        let mut preset = None;
        self.members(|p, key| {
            if key != "preset" || preset.is_some() {
                return None;
            }
            preset = Some(p.plain_string()?);
            Some(())
        })?;
        let h = Handicap::from_jkf_preset(preset.filter(|&s| s != "OTHER")?)?;
        Some(StartPosition::Preset(h))
    }

    fn moves(&mut self, record: &mut Record) -> Option<()> {
        self.eat(b'[')?;
        let mut first = true;
        let mut nodes = Vec::new();
        let mut prev_to = None;
        let mut ply = 1;
        self.elements(|p| {
            if first {
                first = false;
                record.start_comments = p.start_entry()?;
            } else {
                let node = p.entry(At { ply, depth: 0 }, prev_to)?;
                if let NodeKind::Move { text, .. } = &node.kind {
                    prev_to = Some(text.to);
                }
                nodes.push(node);
                ply += 1;
            }
            Some(())
        })?;
        record.moves = nodes;
        Some(())
    }

    /// `moves[0]`: an object with `comments` at most.
    fn start_entry(&mut self) -> Option<Vec<String>> {
        self.eat(b'{')?;
        let mut comments = None;
        self.members(|p, key| {
            if key != "comments" || comments.is_some() {
                return None;
            }
            comments = Some(p.comments()?);
            Some(())
        })?;
        Some(comments.unwrap_or_default())
    }

    /// `comments`: an array of strings, one string, or null.
    fn comments(&mut self) -> Option<Vec<String>> {
        if self.null() {
            return Some(Vec::new());
        }
        self.ws();
        if self.peek()? == b'"' {
            return Some(vec![self.string()?.into_owned()]);
        }
        self.eat(b'[')?;
        let mut out = Vec::new();
        self.elements(|p| {
            out.push(p.string()?.into_owned());
            Some(())
        })?;
        Some(out)
    }

    /// A line of moves (a fork) whose `[` is next, first ply `at.ply`.
    fn line(&mut self, at: At) -> Option<Vec<MoveNode>> {
        self.eat(b'[')?;
        let mut out = Vec::new();
        let mut prev_to = None;
        let mut ply = at.ply;
        self.elements(|p| {
            let node = p.entry(
                At {
                    ply,
                    depth: at.depth,
                },
                prev_to,
            )?;
            if let NodeKind::Move { text, .. } = &node.kind {
                prev_to = Some(text.to);
            }
            out.push(node);
            ply += 1;
            Some(())
        })?;
        Some(out)
    }

    /// One move entry at ply `at.ply`.
    fn entry(&mut self, at: At, prev_to: Option<Square>) -> Option<MoveNode> {
        self.ws();
        let span = self.span();
        self.eat(b'{')?;
        let mut seen = 0u8;
        let mut text = None;
        let mut special = None;
        let mut comments = Vec::new();
        let mut time = None;
        let mut variations = Vec::new();
        self.members(|p, key| {
            let bit = entry_key(key, &mut seen)?;
            match bit {
                1 => {
                    if !p.null() {
                        text = Some(p.move_text(prev_to)?);
                    }
                }
                2 => special = Some(p.string()?),
                4 => comments = p.comments()?,
                8 => time = p.time()?,
                _ => variations = p.forks(at)?,
            }
            Some(())
        })?;
        let kind = match (text, special) {
            (Some(text), _) => NodeKind::Move {
                text,
                resolved: None,
            },
            (None, Some(s)) => NodeKind::Special(special_of(&s)),
            (None, None) => return None,
        };
        let mut node = MoveNode::new(kind, span);
        node.comments = comments;
        node.time = time;
        node.variations = variations;
        Some(node)
    }

    /// `forks` of the entry at `at`: lines that replace it, the empty ones dropped.
    fn forks(&mut self, at: At) -> Option<Vec<Vec<MoveNode>>> {
        if self.null() {
            return Some(Vec::new());
        }
        if at.depth >= MAX_FAST_FORKS {
            return None;
        }
        self.eat(b'[')?;
        let mut out = Vec::new();
        self.elements(|p| {
            let line = p.line(At {
                ply: at.ply,
                depth: at.depth + 1,
            })?;
            if !line.is_empty() {
                out.push(line);
            }
            Some(())
        })?;
        Some(out)
    }

    /// `time`: `now` and `total`, each `{h, m, s}` (any of them).
    fn time(&mut self) -> Option<Option<MoveTime>> {
        self.eat(b'{')?;
        let mut t = MoveTime {
            elapsed_ms: None,
            total_ms: None,
        };
        self.members(|p, key| {
            let slot = match key {
                "now" => &mut t.elapsed_ms,
                "total" => &mut t.total_ms,
                _ => return None,
            };
            if slot.is_some() {
                return None;
            }
            *slot = Some(p.hms()?);
            Some(())
        })?;
        Some((t.elapsed_ms.is_some() || t.total_ms.is_some()).then_some(t))
    }

    /// `{h, m, s}` in milliseconds.
    fn hms(&mut self) -> Option<u64> {
        self.eat(b'{')?;
        let mut seen = 0u8;
        let mut ms = 0u64;
        self.members(|p, key| {
            let (bit, unit) = match key {
                "h" => (1, 3_600_000),
                "m" => (2, 60_000),
                "s" => (4, 1_000),
                _ => return None,
            };
            if seen & bit != 0 {
                return None;
            }
            seen |= bit;
            ms = ms.saturating_add(p.uint()?.saturating_mul(unit));
            Some(())
        })?;
        Some(ms)
    }

    /// `{x, y}` as a square (`None` inside when off the board).
    fn square(&mut self) -> Option<Option<Square>> {
        self.eat(b'{')?;
        let (mut x, mut y) = (None, None);
        self.members(|p, key| {
            let slot = match key {
                "x" => &mut x,
                "y" => &mut y,
                _ => return None,
            };
            if slot.is_some() {
                return None;
            }
            *slot = Some(p.uint()?);
            Some(())
        })?;
        let x = u8::try_from(x?).ok();
        let y = u8::try_from(y?).ok();
        Some(x.zip(y).and_then(|(x, y)| Square::new(x, y)))
    }

    /// A `move` object; its raw text is its compact JSON, sliced from the text.
    fn move_text(&mut self, prev_to: Option<Square>) -> Option<MoveText> {
        self.ws();
        let start = self.i;
        self.spaced = false;
        self.eat(b'{')?;
        let m = self.move_members(prev_to)?;
        let slice = self.s.get(start..self.i)?;
        Some(MoveText {
            color: m.color,
            from: m.from.map_or(Source::Drop, Source::Square),
            to: m.to,
            same: m.same,
            piece: Some(NamedPiece::Before(m.kind)),
            promote: m.promote,
            relative: m.relative.map(relative_of).unwrap_or_default(),
            raw: match if self.spaced {
                compact(slice)
            } else {
                Cow::Borrowed(slice)
            } {
                Cow::Borrowed(s) => s.into(),
                Cow::Owned(s) => s.into(),
            },
        })
    }

    /// The members of a `move` object whose `{` is read, through its `}`, as both short ways
    /// read them (this reader's [`P::move_text`], the validator's `plain_move`): the known
    /// keys, each once, with values of the types the format defines; `None` for anything
    /// else. `prev_to` is the previous move's destination, for `same` without a `to`.
    #[inline]
    fn move_members(&mut self, prev_to: Option<Square>) -> Option<MoveMembers<'a>> {
        let mut seen = 0u8;
        let mut color = None;
        let mut from = None;
        let mut to = None;
        let mut kind = None;
        let mut same = false;
        let mut promote = None;
        let mut relative = None;
        self.members(|p, key| {
            let bit = once(
                &mut seen,
                match key {
                    "color" => 1,
                    "from" => 2,
                    "to" => 4,
                    "piece" => 8,
                    "same" => 16,
                    "promote" => 32,
                    "capture" => 64,
                    "relative" => 128,
                    _ => return None,
                },
            )?;
            match bit {
                1 => {
                    color = if p.null() {
                        None
                    } else if let Some(b) = p.boolean() {
                        // Old json-kifu-format output: `true` is Black (先手).
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
                32 => promote = if p.null() { None } else { Some(p.boolean()?) },
                // `capture` names nothing the record keeps.
                64 => {
                    if !p.null() {
                        p.plain_string()?;
                    }
                }
                _ => {
                    if !p.null() {
                        relative = Some(p.plain_string()?);
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
        Some(MoveMembers {
            color,
            from,
            to,
            same,
            kind: kind?,
            promote,
            relative,
        })
    }
}

/// What [`P::move_members`] reads of a `move` object.
struct MoveMembers<'a> {
    /// `color`, when given as a side (`0`, `1`, `true`, `false`).
    color: Option<Color>,
    /// `from`; `None` for a drop (no `from`, or `null`).
    from: Option<Square>,
    /// `to`, or the previous move's destination for `same` without a `to`.
    to: Square,
    /// `same: true`.
    same: bool,
    /// `piece`: the kind before the move.
    kind: PieceKind,
    /// `promote`, unless absent or null.
    promote: Option<bool>,
    /// `relative` as written, unless absent or null.
    relative: Option<&'a str>,
}

/// `json` (an object whose strings hold no escape) without the whitespace between its tokens:
/// borrowed when it has none.
fn compact(json: &str) -> Cow<'_, str> {
    if !json.bytes().any(is_ws) {
        return Cow::Borrowed(json);
    }
    let mut out = String::with_capacity(json.len());
    let mut in_string = false;
    for c in json.chars() {
        if c == '"' {
            in_string = !in_string;
        }
        if in_string || !matches!(c, ' ' | '\t' | '\n' | '\r') {
            out.push(c);
        }
    }
    Cow::Owned(out)
}

pub(crate) mod plain;
mod scan;
#[cfg(test)]
mod tests;
