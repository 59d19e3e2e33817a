//! The JKF reader's one pass: the document told to a [`Visitor`] as it is read, with the
//! diagnostics of the general reader ([`super::read`]'s serde path) where it has any: a move
//! it cannot read, an entry with neither a move nor a special, no `moves`, an unknown preset
//! or a setup without data. It reads the known keys, each once, and skips the others (but in
//! a move object, whose raw text is serde_json's); a value of another type than the format's
//! is taken as the general reader takes it (as none, as 0 in a time, as JSON text in a header
//! or a comment) where its JSON text is the document's: `null`, truth values, whole numbers
//! written plainly, strings without escapes (fractions too in a time). A setup
//! (`preset: "OTHER"`) of nine files of nine squares, each empty or a piece, and hands of
//! kinds that can be held; variations nested at most [`MAX_ONE_PASS_FORKS`] deep; an entry's
//! `forks` before its move, read once the entry is; a `header` or `initial` after `moves`, read
//! where it stands once the document's keys are found ([`tell_in_order`]). On anything else —
//! malformed JSON, a repeated key, a value whose JSON text serde_json would write otherwise, a
//! setup the general reader says anything about, a fork that is no line — it gives up part
//! way, and the general reader reads the text again. What it reads, it tells as the general
//! reader's record and diagnostics say it (tests in `one_pass/tests.rs` and
//! `tests/library/formats_jkf.rs` compare both over every JKF file at hand).
//!
//! It knows each entry's line and column as it reads it (line ends are only in whitespace,
//! other characters than ASCII only in strings: both are counted as they are skipped), and
//! tells a move's raw text (its compact JSON) by slicing the text, removing whitespace only
//! when the move object has some. Forks are told where they stand, after the move they are
//! alternatives to.

use std::borrow::Cow;

use super::read::{relative_of, special_of};
use crate::core::{Color, Handicap, Piece, PieceKind, Setup, Square};
use crate::diag::{Code, Diagnostic};
use crate::formats::visit::{Skip, Visitor, WrittenMove, WrittenSpecial};
use crate::record::{MoveTime, NamedPiece, Source, Span, StartPosition};
use compact::written;
use scan::is_ws;

/// The deepest variation nesting the one pass reads (each level is three JSON levels, far
/// within serde_json's limit of 128); deeper documents are left to the general reader.
pub(super) const MAX_ONE_PASS_FORKS: u32 = 30;

/// Tells `v` the game of `text` (its BOM already removed), or gives up (`None`, the game
/// told in part) when the text is not of the plain shape: the general reader then reads it,
/// with its diagnostics.
pub(super) fn tell<V: Visitor>(text: &str, v: &mut V) -> Option<V::Output> {
    let mut p = P::new(text);
    v.begin_game(1);
    p.ws();
    p.eat(b'{')?;
    let mut seen = 0u8;
    let mut start = None;
    let mut late = false;
    let read = p.members(|p, key| {
        let Some(bit) = document_key(key) else {
            return p.skip_value(UNKNOWN_DEPTH);
        };
        match once(&mut seen, bit)? {
            // The start is told before the moves, the header before the start.
            1 | 2 if seen & 4 != 0 => {
                late = true;
                None
            }
            1 => p.header(v),
            2 => {
                start = Some(p.initial(v)?);
                Some(())
            }
            _ => {
                v.start(&start.take().unwrap_or_default());
                p.moves(v)
            }
        }
    });
    if late {
        // The header or the start after the moves: the game told again, in order.
        return tell_in_order(text, v);
    }
    read?;
    p.at_end().then_some(())?;
    if seen & 4 == 0 {
        no_moves(start.unwrap_or_default(), v);
    }
    Some(v.end_game())
}

/// A document without `moves`: its start told, and the general reader's diagnostic.
fn no_moves<V: Visitor>(start: StartPosition, v: &mut V) {
    v.start(&start);
    v.diagnostic(Diagnostic::new(
        Code::Syntax,
        "JKF: `moves` is missing".to_owned(),
    ));
}

/// [`tell`] for a document whose `header` or `initial` comes after its `moves`: the game
/// begun again, the document's keys found first (their values checked and skipped), then the
/// header, the start and the moves read where they stand.
fn tell_in_order<V: Visitor>(text: &str, v: &mut V) -> Option<V::Output> {
    let mut p = P::new(text);
    v.begin_game(1);
    p.ws();
    p.eat(b'{')?;
    // Where the values of `header`, `initial` and `moves` start.
    let mut at: [Option<P<'_>>; 3] = [None; 3];
    p.members(|p, key| {
        let Some(bit) = document_key(key) else {
            return p.skip_value(UNKNOWN_DEPTH);
        };
        let slot = at.get_mut(bit.trailing_zeros() as usize)?;
        if slot.is_some() {
            return None;
        }
        p.ws();
        *slot = Some(*p);
        p.skip_value(DOCUMENT_DEPTH)
    })?;
    p.at_end().then_some(())?;
    let [header, initial, moves] = at;
    if let Some(mut q) = header {
        q.header(v)?;
    }
    let start = match initial {
        Some(mut q) => q.initial(v)?,
        None => StartPosition::default(),
    };
    match moves {
        Some(mut q) => {
            v.start(&start);
            q.moves(v)?;
        }
        None => no_moves(start, v),
    }
    Some(v.end_game())
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

/// The bit of a key of the document (`header` 1, `initial` 2, `moves` 4); `None` for a key
/// the format does not define (skipped, as the general reader ignores it).
#[inline(always)]
fn document_key(key: &str) -> Option<u8> {
    Some(match key {
        "header" => 1,
        "initial" => 2,
        "moves" => 4,
        _ => return None,
    })
}

/// The bit of a key of an entry of `moves` (`move` 1, `special` 2, `comments` 4, `time` 8,
/// `forks` 16); `None` for a key the format does not define.
#[inline(always)]
fn entry_key(key: &str) -> Option<u8> {
    Some(match key {
        "move" => 1,
        "special" => 2,
        "comments" => 4,
        "time" => 8,
        "forks" => 16,
        _ => return None,
    })
}

/// How deep a value of the document may nest where [`tell_in_order`] skips it: within
/// serde_json's limit of 128 levels, which the general reader reads.
const DOCUMENT_DEPTH: u32 = 120;

/// How deep the value of a key the format does not define may nest: with the deepest
/// variations the one pass reads, well within serde_json's limit of 128 levels.
const UNKNOWN_DEPTH: u32 = 16;

/// The parser: the text, where it stands, and what makes its line and column.
#[derive(Clone, Copy)]
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

/// Where a line of moves (or an entry) stands: its first ply counted by the entries of the
/// text, as the general reader's diagnostics count it; its first ply counted by the moves told
/// (an entry that is a diagnostic is not a move of the record), as a variation names where it
/// branches; and the depth of its variation.
#[derive(Clone, Copy)]
struct At {
    ply: u32,
    told: u32,
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

    fn header<V: Visitor>(&mut self, v: &mut V) -> Option<()> {
        if self.null() {
            return Some(());
        }
        self.eat(b'{')?;
        // Keys with escapes too.
        self.object(Self::string, |p, key| {
            p.ws();
            // A value of another type than a string is kept as JSON writes it (as the
            // general reader keeps it): here a truth value or a whole number written plainly.
            let value = if p.null() {
                Cow::Borrowed("")
            } else if let Some(b) = p.boolean() {
                Cow::Borrowed(if b { "true" } else { "false" })
            } else if p.peek()?.is_ascii_digit() {
                Cow::Owned(p.uint()?.to_string())
            } else {
                p.string()?
            };
            v.header(&key, &value, Span::default());
            Some(())
        })
    }

    /// `initial`: absent or null is the even start; a preset names a standard start, `OTHER`
    /// (or no preset) the position its `data` sets up. A setup the general reader would say
    /// anything about (a board of another shape, a bad cell or hand entry) is left to it.
    fn initial<V: Visitor>(&mut self, v: &mut V) -> Option<StartPosition> {
        if self.null() {
            return Some(StartPosition::default());
        }
        let mut preset = None;
        let mut data = None;
        // A value that is no object has neither: a setup without data, as the general reader
        // takes it.
        if self.value_is(b'{')? {
            self.eat(b'{')?;
            self.members(|p, key| {
                match key {
                    "preset" if preset.is_none() => preset = Some(p.plain_string()?),
                    "data" if data.is_none() => data = Some(p.setup()?),
                    "preset" | "data" => return None,
                    _ => return p.skip_value(UNKNOWN_DEPTH),
                }
                Some(())
            })?;
        }
        // What the general reader says of a start it cannot take, which is then the even one.
        let mut unread = |message: String| {
            v.diagnostic(Diagnostic::new(Code::Syntax, message));
            Some(StartPosition::default())
        };
        match preset {
            // A standard start: its `data`, if any, is not read.
            Some(name) if name != "OTHER" => match Handicap::from_jkf_preset(name) {
                Some(h) => Some(StartPosition::Preset(h)),
                None => unread(format!("JKF: unknown preset `{name}`")),
            },
            _ => match data {
                Some(setup) => Some(StartPosition::Setup(Box::new(setup))),
                None => unread("JKF: preset OTHER without `data`".into()),
            },
        }
    }

    /// `initial.data`: the side to move (`color`: absent or null is Black), the board as nine
    /// files of nine squares from file 1, rank 1 down (each `{}` or `{color, kind}`), and the
    /// hands (Black's, then White's: a kind and a count each).
    fn setup(&mut self) -> Option<Setup> {
        self.eat(b'{')?;
        let mut s = Setup::empty();
        let mut seen = 0u8;
        self.members(|p, key| {
            match once(
                &mut seen,
                match key {
                    "color" => 1,
                    "board" => 2,
                    "hands" => 4,
                    _ => return p.skip_value(UNKNOWN_DEPTH),
                },
            )? {
                1 => {
                    if !p.null() {
                        s.turn = p.side()?;
                    }
                }
                2 => p.board(&mut s)?,
                _ => p.hands(&mut s)?,
            }
            Some(())
        })?;
        // A setup with no board is the general reader's to report.
        (seen & 2 != 0).then_some(s)
    }

    /// A side: `0` or `1`, or the old `true` (Black) and `false`.
    fn side(&mut self) -> Option<Color> {
        if let Some(b) = self.boolean() {
            return Some(if b { Color::Black } else { Color::White });
        }
        match self.uint()? {
            0 => Some(Color::Black),
            1 => Some(Color::White),
            _ => None,
        }
    }

    /// `data.board`: exactly nine files of nine squares, each empty (`{}`) or a piece.
    fn board(&mut self, s: &mut Setup) -> Option<()> {
        self.eat(b'[')?;
        let mut x = 0u8;
        self.elements(|p| {
            x += 1;
            p.eat(b'[')?;
            let mut y = 0u8;
            p.elements(|p| {
                y += 1;
                let sq = Square::new(x, y)?;
                p.eat(b'{')?;
                let mut seen = 0u8;
                let (mut color, mut kind) = (None, None);
                p.members(|p, key| {
                    match once(
                        &mut seen,
                        match key {
                            "color" => 1,
                            "kind" => 2,
                            _ => return None,
                        },
                    )? {
                        1 => color = Some(p.side()?),
                        _ => kind = Some(PieceKind::from_csa(p.plain_string()?)?),
                    }
                    Some(())
                })?;
                match (color, kind) {
                    (Some(c), Some(k)) => s.set_piece(sq, Some(Piece::new(c, k))),
                    (None, None) => {}
                    // Half a piece: a bad cell.
                    _ => return None,
                }
                Some(())
            })?;
            (y == 9).then_some(())
        })?;
        (x == 9).then_some(())
    }

    /// `data.hands`: Black's hand and White's, each an object of kinds that can be held and
    /// their counts.
    fn hands(&mut self, s: &mut Setup) -> Option<()> {
        self.eat(b'[')?;
        let mut i = 0usize;
        self.elements(|p| {
            let color = match i {
                0 => Color::Black,
                1 => Color::White,
                // A third hand: the general reader's to read (it reads two).
                _ => return None,
            };
            i += 1;
            p.eat(b'{')?;
            let mut seen = 0u8;
            p.members(|p, key| {
                let kind = PieceKind::from_csa(key).filter(|k| k.is_hand_kind())?;
                // A kind named twice: the general reader's to read.
                once(&mut seen, 1 << (kind as u8))?;
                let n = p.uint()?;
                s.hands
                    .get_mut(color)
                    .set(kind, u8::try_from(n).unwrap_or(u8::MAX));
                Some(())
            })
        })
    }

    /// `moves`: the start's entry, then the main line.
    fn moves<V: Visitor>(&mut self, v: &mut V) -> Option<()> {
        self.line(
            At {
                ply: 1,
                told: 1,
                depth: 0,
            },
            true,
            v,
        )
    }

    /// `moves[0]`: an object with `comments` at most (and keys the format does not define).
    fn start_entry(&mut self) -> Option<Vec<String>> {
        // A value that is no object holds no comment.
        if !self.value_is(b'{')? {
            return Some(Vec::new());
        }
        self.eat(b'{')?;
        let mut comments = None;
        self.members(|p, key| {
            if key != "comments" {
                return p.skip_value(UNKNOWN_DEPTH);
            }
            if comments.is_some() {
                return None;
            }
            comments = Some(p.comments()?);
            Some(())
        })?;
        Some(comments.unwrap_or_default())
    }

    /// `comments`: an array of strings (an element that is `null`, a truth value or a whole
    /// number kept as JSON writes it, as the general reader keeps it), one string, or null.
    fn comments(&mut self) -> Option<Vec<String>> {
        self.ws();
        match self.peek()? {
            b'"' => return Some(vec![self.string()?.into_owned()]),
            b'[' => {}
            // Null, and any value but a string or an array, is no comment (as the general
            // reader takes it).
            _ => {
                self.skip_value(UNKNOWN_DEPTH)?;
                return Some(Vec::new());
            }
        }
        self.eat(b'[')?;
        let mut out = Vec::new();
        self.elements(|p| {
            p.ws();
            let c = match p.peek()? {
                b'"' => p.string()?.into_owned(),
                _ => match p.scalar()? {
                    Scalar::Null => "null".to_owned(),
                    Scalar::Bool(b) => b.to_string(),
                    Scalar::Uint(n) => n.to_string(),
                    Scalar::Str(_) => return None,
                },
            };
            out.push(c);
            Some(())
        })?;
        Some(out)
    }

    /// A line of moves whose `[` is next, first ply `at.ply`: a fork, or the main line after
    /// the start's entry (`start`).
    fn line<V: Visitor>(&mut self, at: At, mut start: bool, v: &mut V) -> Option<()> {
        self.eat(b'[')?;
        let mut prev_to = None;
        let mut ply = at.ply;
        let mut told = at.told;
        self.elements(|p| {
            p.ws();
            if std::mem::take(&mut start) {
                let span = p.span();
                for c in p.start_entry()? {
                    if !V::SKIP.contains(Skip::COMMENTS) {
                        v.comment(&c, span);
                    }
                }
                return Some(());
            }
            if p.peek()? != b'{' {
                // An entry that is no object has neither a move nor a special.
                let span = p.span();
                p.skip_value(UNKNOWN_DEPTH)?;
                v.diagnostic(neither(ply, span));
                ply += 1;
                return Some(());
            } else if let Some((mv, time, end)) = written(p.s, p.i) {
                // ASCII with no line end: the place of the entry's end is counted by its
                // length.
                let span = p.span();
                p.i = end;
                prev_to = Some(mv.to);
                v.mv(&mv, span);
                if let Some(t) = time.filter(|_| !V::SKIP.contains(Skip::TIMES)) {
                    v.time(t, span);
                }
            } else if !p.entry(
                At {
                    ply,
                    told,
                    depth: at.depth,
                },
                &mut prev_to,
                v,
            )? {
                // An entry that is a diagnostic: no move of the record.
                ply += 1;
                return Some(());
            }
            ply += 1;
            told += 1;
            Some(())
        })
    }

    /// One move entry at ply `at.ply`, told with its time, its comments and then its forks;
    /// whether it was told (`false`: it was a diagnostic).
    /// `prev_to` is the previous move's destination on its line, and becomes this one's. An
    /// entry whose move cannot be read, or with neither a move nor a special, is a `syntax`
    /// diagnostic, as the general reader says it, and is not told (nor are its forks).
    fn entry<V: Visitor>(
        &mut self,
        at: At,
        prev_to: &mut Option<Square>,
        v: &mut V,
    ) -> Option<bool> {
        self.ws();
        let span = self.span();
        self.eat(b'{')?;
        let mut seen = 0u8;
        let mut node = Node::default();
        // Where forks written before the move or special stand.
        let mut later: Option<P<'a>> = None;
        self.members(|p, key| {
            let Some(bit) = entry_key(key) else {
                return p.skip_value(UNKNOWN_DEPTH);
            };
            match once(&mut seen, bit)? {
                // The node is told before its forks: nothing of it may follow them.
                1 | 2 if node.told => return None,
                1 => {
                    if !p.null() {
                        node.mv = Some(p.move_entry(*prev_to)?);
                    }
                }
                2 => {
                    // A special that is no string is none.
                    node.special = if p.value_is(b'"')? {
                        Some(p.string()?)
                    } else {
                        None
                    };
                }
                4 => {
                    let comments = p.comments()?;
                    if node.told {
                        if !node.skipped && !V::SKIP.contains(Skip::COMMENTS) {
                            for c in &comments {
                                v.comment(c, span);
                            }
                        }
                    } else {
                        node.comments = comments;
                    }
                }
                8 => {
                    // A time that is no object is none.
                    let time = if p.value_is(b'{')? { p.time()? } else { None };
                    match time {
                        Some(t) if node.told => {
                            if !node.skipped && !V::SKIP.contains(Skip::TIMES) {
                                v.time(t, span);
                            }
                        }
                        _ => node.time = time,
                    }
                }
                _ if seen & 3 == 0 => {
                    // Forks before the entry's move or special: read once the entry is,
                    // from where they stand.
                    p.ws();
                    later = Some(*p);
                    p.skip_value(DOCUMENT_DEPTH)?;
                }
                _ => {
                    if !node.told {
                        node.tell(span, at.ply, prev_to, v);
                    }
                    if node.skipped {
                        // The forks of an entry that is not told are not told either.
                        p.forks(at, &mut Unheard)?;
                    } else {
                        p.forks(at, v)?;
                    }
                }
            }
            Some(())
        })?;
        if !node.told {
            node.tell(span, at.ply, prev_to, v);
        }
        if let Some(mut q) = later
            && !node.skipped
        {
            q.forks(at, v)?;
        }
        Some(!node.skipped)
    }

    /// `forks` of the entry at `at`: lines that replace it, each told as a variation (not at
    /// all to a visitor that skips variations, which are read all the same).
    fn forks<V: Visitor>(&mut self, at: At, v: &mut V) -> Option<()> {
        // Null, and any value but an array, holds no fork.
        if !self.value_is(b'[')? {
            return Some(());
        }
        if at.depth >= MAX_ONE_PASS_FORKS {
            return None;
        }
        self.eat(b'[')?;
        let inner = At {
            ply: at.ply,
            told: at.told,
            depth: at.depth + 1,
        };
        self.elements(|p| {
            // An element that is no line is left to the general reader (whose scan for the
            // entries' places then finds none).
            if V::SKIP.contains(Skip::VARIATIONS) {
                return p.line(inner, false, &mut Unheard);
            }
            p.ws();
            v.begin_variation(at.told, p.span());
            p.line(inner, false, v)?;
            v.end_variation();
            Some(())
        })
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
                _ => return p.skip_value(UNKNOWN_DEPTH),
            };
            if slot.is_some() {
                return None;
            }
            *slot = Some(p.hms()?);
            Some(())
        })?;
        Some((t.elapsed_ms.is_some() || t.total_ms.is_some()).then_some(t))
    }

    /// `{h, m, s}` in milliseconds, as the general reader counts them: a value that is no
    /// object is 0; each field a whole number exactly, a fraction rounded to the millisecond,
    /// anything else (a negative number, `null`, a string...) 0.
    fn hms(&mut self) -> Option<u64> {
        if !self.value_is(b'{')? {
            return Some(0);
        }
        self.eat(b'{')?;
        let mut seen = 0u8;
        let mut ms = 0u64;
        self.members(|p, key| {
            let (bit, unit) = match key {
                "h" => (1, 3_600_000),
                "m" => (2, 60_000),
                "s" => (4, 1_000),
                _ => return p.skip_value(UNKNOWN_DEPTH),
            };
            if seen & bit != 0 {
                return None;
            }
            seen |= bit;
            ms = ms.saturating_add(p.time_field(unit)?);
            Some(())
        })?;
        Some(ms)
    }

    /// A field of a time (`h`, `m` or `s`) in milliseconds, `unit` being the field's.
    fn time_field(&mut self, unit: u64) -> Option<u64> {
        self.ws();
        let c = self.peek()?;
        // A whole number written plainly, exactly; `uint` leaves any other number where it
        // stands.
        if c.is_ascii_digit()
            && let Some(n) = self.uint()
        {
            return Some(n.saturating_mul(unit));
        }
        if c == b'-' || c.is_ascii_digit() {
            let x: f64 = self.number_text()?.parse().ok()?;
            return Some(if x.is_finite() && x > 0.0 {
                (x * unit as f64).round() as u64
            } else {
                0
            });
        }
        self.skip_value(UNKNOWN_DEPTH)?;
        Some(0)
    }

    /// `{x, y}` as a square of a `move` object: `None` inside when it is none (off the board,
    /// a coordinate not given or not a whole number).
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
            *slot = Some(match p.scalar()? {
                Scalar::Uint(n) => u8::try_from(n).ok(),
                _ => None,
            });
            Some(())
        })?;
        Some(
            x.flatten()
                .zip(y.flatten())
                .and_then(|(x, y)| Square::new(x, y)),
        )
    }

    /// A `move` object, and its raw text: its compact JSON, sliced from the text. The move is
    /// `None` where the general reader cannot read it (the entry is then a `syntax`
    /// diagnostic); the whole is `None` (the one pass gives up) where the object holds what
    /// the general reader would write back otherwise than the text has it.
    #[allow(clippy::type_complexity)]
    fn move_entry(
        &mut self,
        prev_to: Option<Square>,
    ) -> Option<(Option<MoveMembers<'a>>, Cow<'a, str>)> {
        self.ws();
        let start = self.i;
        self.spaced = false;
        self.eat(b'{')?;
        let m = self.move_members(prev_to)?;
        let slice = self.s.get(start..self.i)?;
        let raw = if self.spaced {
            compact(slice)
        } else {
            Cow::Borrowed(slice)
        };
        Some((m, raw))
    }

    /// The members of a `move` object whose `{` is read, through its `}`, read as the general
    /// reader reads them: the known keys, each once, each value `null`, a truth value, a whole
    /// number or a string without escapes (a square an object of `x` and `y` such numbers),
    /// whose compact JSON is the text's; `None` for anything else (the one pass gives up), and
    /// `Some(None)` for a move the general reader cannot read (no piece it knows, a square off
    /// the board or not given, `same` with no move before). A value of another type than the
    /// format's is taken as the general reader takes it (a side that is none, `same` false).
    /// `prev_to` is the previous move's destination, for `same` without a `to`.
    #[inline]
    fn move_members(&mut self, prev_to: Option<Square>) -> Option<Option<MoveMembers<'a>>> {
        let mut seen = 0u8;
        let mut color = None;
        // Absent or null: a drop; else the square, if it is one.
        let mut from: Option<Option<Square>> = None;
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
                    color = match p.scalar()? {
                        Scalar::Bool(b) => Some(if b { Color::Black } else { Color::White }),
                        Scalar::Uint(0) => Some(Color::Black),
                        Scalar::Uint(1) => Some(Color::White),
                        _ => None,
                    }
                }
                2 => {
                    p.ws();
                    from = if p.peek()? == b'{' {
                        Some(p.square()?)
                    } else if p.scalar()? == Scalar::Null {
                        None
                    } else {
                        // A value that is no square: the move cannot be read.
                        Some(None)
                    }
                }
                4 => {
                    p.ws();
                    to = if p.peek()? == b'{' {
                        p.square()?
                    } else {
                        p.scalar()?;
                        None
                    }
                }
                8 => {
                    kind = match p.scalar()? {
                        Scalar::Str(s) => PieceKind::from_csa(s),
                        _ => None,
                    }
                }
                16 => same = p.scalar()? == Scalar::Bool(true),
                32 => {
                    promote = match p.scalar()? {
                        Scalar::Bool(b) => Some(b),
                        _ => None,
                    }
                }
                // `capture` names nothing the record keeps.
                64 => {
                    p.scalar()?;
                }
                _ => {
                    relative = match p.scalar()? {
                        Scalar::Str(s) => Some(s),
                        _ => None,
                    }
                }
            }
            Some(())
        })?;
        let to = match (to, same) {
            (Some(sq), _) => sq,
            (None, true) => match prev_to {
                Some(sq) => sq,
                None => return Some(None),
            },
            (None, false) => return Some(None),
        };
        let from = match from {
            None => None,
            Some(Some(sq)) => Some(sq),
            Some(None) => return Some(None),
        };
        let Some(kind) = kind else {
            return Some(None);
        };
        Some(Some(MoveMembers {
            color,
            from,
            to,
            same,
            kind,
            promote,
            relative,
        }))
    }

    /// A value of a `move` object that is no object or array: `null`, a truth value, a whole
    /// number written plainly or a string without escapes (whose compact JSON is the text's);
    /// `None` for anything else.
    #[inline(always)]
    fn scalar(&mut self) -> Option<Scalar<'a>> {
        self.ws();
        Some(match self.peek()? {
            b'n' if self.null() => Scalar::Null,
            b't' | b'f' => Scalar::Bool(self.boolean()?),
            b'"' => Scalar::Str(self.plain_string()?),
            _ => Scalar::Uint(self.uint()?),
        })
    }
}

/// A value [`P::scalar`] reads.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Scalar<'a> {
    Null,
    Bool(bool),
    Uint(u64),
    Str(&'a str),
}

impl MoveMembers<'_> {
    /// The move as written, with its raw text.
    #[inline]
    fn written<'r>(&self, raw: &'r str) -> WrittenMove<'r> {
        WrittenMove {
            color: self.color,
            from: self.from.map_or(Source::Drop, Source::Square),
            to: self.to,
            same: self.same,
            piece: Some(NamedPiece::Before(self.kind)),
            promote: self.promote,
            relative: self.relative.map(relative_of).unwrap_or_default(),
            raw,
            resolved: None,
            number: None,
        }
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

/// An entry of `moves` read and not yet told (its forks tell it first).
#[derive(Default)]
struct Node<'a> {
    /// The move, or `None` where it cannot be read, and its raw text.
    mv: Option<(Option<MoveMembers<'a>>, Cow<'a, str>)>,
    special: Option<Cow<'a, str>>,
    comments: Vec<String>,
    time: Option<MoveTime>,
    told: bool,
    /// The entry was a diagnostic, not a move or special: nothing more of it is told.
    skipped: bool,
}

impl Node<'_> {
    /// Tells the entry's move (or else its special), its time and its comments; or, for an
    /// entry whose move cannot be read or with neither, the `syntax` diagnostic the general
    /// reader gives it (`ply` is the entry's).
    fn tell<V: Visitor>(&mut self, span: Span, ply: u32, prev_to: &mut Option<Square>, v: &mut V) {
        self.told = true;
        match (&self.mv, &self.special) {
            (Some((Some(m), raw)), _) => {
                *prev_to = Some(m.to);
                v.mv(&m.written(raw), span);
            }
            (Some((None, raw)), _) => {
                self.skipped = true;
                let d = Diagnostic::new(Code::Syntax, format!("JKF: cannot read move {raw}"));
                v.diagnostic(d.at(span).ply(ply));
                return;
            }
            (None, Some(s)) => {
                let sp = special_of(s);
                let written = WrittenSpecial {
                    kind: sp.kind,
                    text: s,
                    side: sp.side,
                    number: None,
                };
                v.special(&written, span);
            }
            (None, None) => {
                self.skipped = true;
                v.diagnostic(neither(ply, span));
                return;
            }
        }
        if let Some(t) = self.time.filter(|_| !V::SKIP.contains(Skip::TIMES)) {
            v.time(t, span);
        }
        if !V::SKIP.contains(Skip::COMMENTS) {
            for c in &self.comments {
                v.comment(c, span);
            }
        }
    }
}

/// The general reader's diagnostic for the entry at `ply`, at `span`, that has neither a move
/// nor a special (or is no object).
fn neither(ply: u32, span: Span) -> Diagnostic {
    Diagnostic::new(
        Code::Syntax,
        format!("JKF: entry {ply} has neither `move` nor `special`"),
    )
    .at(span)
    .ply(ply)
}

/// The visitor told the variations of a visitor that skips them: it hears nothing.
struct Unheard;

impl Visitor for Unheard {
    type Output = ();
    const SKIP: Skip = Skip::VARIATIONS.and(Skip::COMMENTS).and(Skip::TIMES);

    fn end_game(&mut self) {}
}

mod compact;
mod scan;
#[cfg(test)]
mod tests;
