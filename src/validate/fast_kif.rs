//! The plain KIF lines that the CP932 byte way ([`validate_kif_cp932`]) reads without
//! decoding (its `cp932` module), and the lines it decodes one at a time: the game is replayed
//! as its lines are read, with no record built, when it is written the plain way programs write
//! it (header lines `key：value`, `手合割：平手` or none, the `手数----指手--` heading, numbered
//! move lines with a source square or `打` and both times, one ending line, a `まで` footer) and
//! every move is legal. At the first line it does not take, the text is decoded and judged by
//! the one KIF reader and its judge ([`validate_kif`](super::validate_kif)), so the reports are
//! exactly those of [`kif::read`] followed by [`validate_game`](super::validate_game)
//! (`tests/library/fast_kif_equivalence.rs` compares them). This is the last second reader of
//! KIF (issue #48): it goes once the one reader reads CP932 bytes itself.
//!
//! The lines are classified in the reader's order and with the reader's own grammar
//! (`kif::header_line`, `kif::parse_footer`, ...), so a line taken here is one the reader
//! reads the same way. Read by hand, for speed: the move number (as the reader's
//! `move_number`, which a unit test holds it to), and the move text only in the one layout the
//! reader's own fast path reads (`７六歩(77)`, `同　銀成(54)`, `５五角打`, then
//! `( 0:16/00:00:16)`).

use crate::core::{Color, Handicap, Move, PieceKind, Position, Square};
use crate::formats::kif;
use crate::formats::time_control::TimeControl;
use crate::record::{Footer, Header, NodeKind, Span, Special, SpecialKind};

use super::ending::{Ending, verify_ending};
use super::fast::Plain;
use super::gather::Sink;
use super::result::GameResult;
use super::{GameInfo, Report};

/// The side marks that start a KI2 move.
const MARKS: [char; 6] = ['▲', '☗', '▼', '△', '☖', '▽'];

/// A space as the KIF grammar counts one: ASCII space, tab, the full-width space.
fn is_space(c: char) -> bool {
    c == ' ' || c == '　' || c == '\t'
}

/// A move line's move in the one layout read by hand: destination, piece, `成`/`不成`,
/// source, and the time (elapsed, total) if written.
struct PlainMove {
    /// `None` for `同`.
    to: Option<Square>,
    kind: PieceKind,
    promote: bool,
    /// `None` for a drop (`打`).
    from: Option<Square>,
    time: Option<(u64, u64)>,
}

/// How a text spells the characters of a move line that are not ASCII (the file digits, the
/// kanji ranks, the pieces, `同`, `成`, `不`, `打` and the full-width space): UTF-8 or CP932,
/// so that one grammar reads a move line in either.
pub(crate) trait Spelling {
    /// The character that starts `b` and its length in bytes, when it is one a move line may
    /// hold; `None` for ASCII, the end, or any other character.
    fn wide(b: &[u8]) -> Option<(char, usize)>;
}

/// Text in UTF-8, read where it lies.
pub(crate) struct Utf8;

impl Spelling for Utf8 {
    /// The characters of a move line are three bytes long in UTF-8; `b` starts at a
    /// character's first byte, so three bytes from `E0` to `EF` are one character.
    #[inline(always)]
    fn wide(b: &[u8]) -> Option<(char, usize)> {
        let [a @ 0xE0..=0xEF, c1, c2, ..] = *b else {
            return None;
        };
        let u = (u32::from(a & 0x0F) << 12) | (u32::from(c1 & 0x3F) << 6) | u32::from(c2 & 0x3F);
        char::from_u32(u).map(|c| (c, 3))
    }
}

/// The start of a KIF move line as the reader's `move_number` reads it: ASCII spaces, ASCII
/// digits, then at least one space (ASCII, tab or full-width). The number (`None` when it does
/// not fit a `u32`), the byte offset of the body, and whether the bytes before it are ASCII.
#[inline]
fn move_number(t: &str) -> Option<(Option<u32>, usize, bool)> {
    move_number_in::<Utf8>(t.as_bytes()).map(|(n, off, wide)| (n, off, wide == 0))
}

/// [`move_number`] in either spelling, with the number of full-width spaces before the body
/// (the rest of the bytes before it are ASCII, one character each).
#[inline]
fn move_number_in<E: Spelling>(b: &[u8]) -> Option<(Option<u32>, usize, usize)> {
    let mut i = skip_spaces(b, 0);
    let digits = i;
    let mut n: Option<u32> = Some(0);
    while let Some(&d) = b.get(i).filter(|d| d.is_ascii_digit()) {
        n = n
            .and_then(|n| n.checked_mul(10))
            .and_then(|n| n.checked_add(u32::from(d - b'0')));
        i += 1;
    }
    if i == digits {
        return None;
    }
    let (end, wide) = blanks::<E>(b, i);
    (end > i).then_some((n, end, wide))
}

/// The spaces the KIF grammar counts (ASCII space, tab, full-width space) from `i`: the index
/// after them, and how many of them are full-width.
#[inline]
fn blanks<E: Spelling>(b: &[u8], mut i: usize) -> (usize, usize) {
    let mut wide = 0;
    loop {
        match b.get(i) {
            Some(b' ' | b'\t') => i += 1,
            Some(0x80..) => match E::wide(b.get(i..).unwrap_or_default()) {
                Some(('\u{3000}', n)) => {
                    i += n;
                    wide += 1;
                }
                _ => return (i, wide),
            },
            _ => return (i, wide),
        }
    }
}

/// The index after the spaces [`blanks`] counts from `i`.
#[inline]
fn skip_blank<E: Spelling>(b: &[u8], i: usize) -> usize {
    blanks::<E>(b, i).0
}

/// Reads a move line's body in the plain layout, or `None` (the full way reads it).
#[inline]
fn plain_move(body: &str) -> Option<PlainMove> {
    plain_move_in::<Utf8>(body.as_bytes())
}

/// [`plain_move`] in either spelling. The body may end in spaces (a CP932 line is not trimmed
/// first: its last bytes cannot be read backwards).
#[inline]
fn plain_move_in<E: Spelling>(b: &[u8]) -> Option<PlainMove> {
    let wide_at = |i: usize| E::wide(b.get(i..).unwrap_or_default());
    let (c, n) = wide_at(0)?;
    let (to, mut i) = if c == '同' {
        (None, skip_blank::<E>(b, n))
    } else {
        // A full-width file digit, then a kanji rank.
        let file = u8::try_from(u32::from(c).wrapping_sub(0xFF10)).ok()?;
        if !(1..=9).contains(&file) {
            return None;
        }
        let (r, m) = wide_at(n)?;
        (Some(Square::new(file, kif::kanji_digit(r)?)?), n + m)
    };
    let (c0, n0) = wide_at(i)?;
    i += n0;
    let mut second = 0;
    let (kind, used) = PieceKind::from_kif_chars(c0, || {
        let (c, n) = wide_at(i)?;
        second = n;
        Some(c)
    })?;
    if used == 2 {
        i += second;
    }
    let promote = match wide_at(i) {
        Some(('不', n)) => match wide_at(i + n) {
            Some(('成', m)) => {
                i += n + m;
                false
            }
            _ => false,
        },
        Some(('成', n)) => {
            i += n;
            true
        }
        _ => false,
    };
    let (from, mut i) = match b.get(i..)? {
        [b'(', f, r, b')', ..] if f.is_ascii_digit() && r.is_ascii_digit() => {
            (Some(Square::new(f - b'0', r - b'0')?), i + 4)
        }
        _ => match wide_at(i) {
            Some(('打', n)) => (None, i + n),
            _ => return None,
        },
    };
    i = skip_spaces(b, i);
    let mut time = None;
    if let Some((t, j)) = usual_time(b, i) {
        time = Some(t);
        i = skip_spaces(b, j);
    } else if b.get(i) == Some(&b'(') {
        let (elapsed, j) = clock(b, i + 1)?;
        if b.get(j) != Some(&b'/') {
            return None;
        }
        let (total, j) = clock(b, skip_spaces(b, j + 1))?;
        if b.get(j) != Some(&b')') {
            return None;
        }
        time = Some((elapsed, total));
        i = skip_spaces(b, j + 1);
    }
    (skip_blank::<E>(b, i) == b.len()).then_some(PlainMove {
        to,
        kind,
        promote,
        from,
        time,
    })
}

/// The time as Kifu for Windows writes it, `( m:ss/hh:mm:ss)` (one or more spaces, then one to
/// three minute digits), read at fixed places: (elapsed, total) in milliseconds and the index
/// after the `)`; `None` for any other layout, which [`clock`] reads.
#[inline(always)]
fn usual_time(b: &[u8], i: usize) -> Option<((u64, u64), usize)> {
    let rest = b.get(i..)?;
    let [b'(', rest @ ..] = rest else {
        return None;
    };
    let lead = rest.iter().take_while(|&&c| c == b' ').count();
    let rest = rest.get(lead..)?;
    let digits = rest.iter().take_while(|c| c.is_ascii_digit()).count();
    if !(1..=3).contains(&digits) {
        return None;
    }
    let (m, rest) = rest.split_at(digits);
    let [
        b':',
        s1,
        s0,
        b'/',
        h1,
        h0,
        b':',
        n1,
        n0,
        b':',
        t1,
        t0,
        b')',
        ..,
    ] = *rest
    else {
        return None;
    };
    let d = |c: u8| c.is_ascii_digit().then(|| u64::from(c - b'0'));
    let minutes = m.iter().fold(0, |v, &c| v * 10 + u64::from(c - b'0'));
    let elapsed = minutes * 60 + d(s1)? * 10 + d(s0)?;
    let total = ((d(h1)? * 10 + d(h0)?) * 60 + d(n1)? * 10 + d(n0)?) * 60 + d(t1)? * 10 + d(t0)?;
    let used = 1 + lead + digits + 13;
    Some(((elapsed * 1000, total * 1000), i + used))
}

fn skip_spaces(b: &[u8], mut i: usize) -> usize {
    while b.get(i) == Some(&b' ') {
        i += 1;
    }
    i
}

/// `h:mm:ss`, `m:ss` or `s` at `i` (ASCII digits, ASCII spaces around the colons), as the
/// reader reads it: milliseconds and the index after it. Any layout but the usual one is
/// read by the reader's own [`kif::clock_fast`].
#[inline]
fn clock(b: &[u8], i: usize) -> Option<(u64, usize)> {
    // The usual layout, fields of one to three digits joined by colons (`0:16`, `00:00:16`),
    // read in one pass; anything else by the general loop.
    let mut j = skip_spaces(b, i);
    let mut secs: u64 = 0;
    for field in 0..3 {
        let mut v: u64 = 0;
        let start = j;
        while let Some(&d) = b.get(j).filter(|d| d.is_ascii_digit()) {
            // More than three digits: the general loop (which bounds them) reads it.
            if j - start == 3 {
                return kif::clock_fast(b, i);
            }
            v = v * 10 + u64::from(d - b'0');
            j += 1;
        }
        if j == start {
            return kif::clock_fast(b, i);
        }
        secs = secs * 60 + v;
        match b.get(j) {
            Some(b':') if field < 2 => j += 1,
            Some(b'/' | b')') => return Some((secs * 1000, j)),
            _ => return kif::clock_fast(b, i),
        }
    }
    kif::clock_fast(b, i)
}

/// The move a plain move names in `pos` (`prev_to` for `同`), or `None` when the full way
/// must decide: no piece of the side to move at the source, another piece than the one
/// named, a drop of a piece that cannot be in hand.
#[inline]
fn resolve(pos: &Position, m: &PlainMove, prev_to: Option<Square>) -> Option<Move> {
    let to = m.to.or(prev_to)?;
    match m.from {
        None => m
            .kind
            .is_hand_kind()
            .then_some(Move::Drop { kind: m.kind, to }),
        Some(from) => {
            let p = pos.piece_at(from).filter(|p| p.color == pos.turn())?;
            (p.kind == m.kind).then_some(Move::Normal {
                from,
                to,
                promote: m.promote,
            })
        }
    }
}

/// What the replay has read of the game's lines.
struct Game<S> {
    header: Header,
    footer: Option<Footer>,
    special: Option<(Special, Span)>,
    last_span: Option<Span>,
    seen_move: bool,
    prev_to: Option<Square>,
    /// Each side's cumulative time so far (`check_times`).
    totals: [u64; 2],
    /// What a caller gathers besides the report: the moves played, then the header.
    sink: S,
}

impl<S: Sink> Game<S> {
    fn new() -> Game<S> {
        Game {
            header: Header::default(),
            footer: None,
            special: None,
            last_span: None,
            seen_move: false,
            prev_to: None,
            totals: [0, 0],
            sink: S::default(),
        }
    }

    /// The report once every line is read ([`finish`]).
    fn finish(self, board: Plain<'_>) -> Option<(Report, S, Position)> {
        finish(
            self.header,
            self.footer,
            self.special,
            self.last_span,
            self.sink,
            board,
        )
    }

    /// Takes one line (its ending removed); `None` when the full way must read the text.
    #[inline]
    fn line(&mut self, line: &str, no: u32, board: &mut Plain<'_>) -> Option<()> {
        let t = line.trim_end_matches(is_space);
        if t.is_empty() || t.starts_with('#') {
            return Some(());
        }
        if matches!(t.as_bytes().first(), Some(b'*' | b'&' | b'|')) {
            return None;
        }
        if let Some((number, off, ascii)) = move_number(t) {
            return self.move_line(t, off, ascii, number?, no, board);
        }
        if let Some(v) = kif::header_value(line, "手合割") {
            if self.seen_move || Handicap::from_kif_name(v) != Some(Handicap::Even) {
                return None;
            }
            self.header.push("手合割", v, Span::new(no, 1));
            return Some(());
        }
        if kif::hand_key(t).is_some() || matches!(t, "先手番" | "下手番" | "後手番" | "上手番")
        {
            return None;
        }
        let lead = t.trim_start_matches(is_space);
        if lead.starts_with(MARKS) {
            return None;
        }
        if kif::header_value(t, "変化").is_some() {
            return None;
        }
        if t.starts_with("まで") {
            let footer = kif::parse_footer(t, Span::new(no, 1));
            if self.footer.is_none() {
                self.footer = Some(footer);
            }
            return Some(());
        }
        if let Some((key, off)) = kif::header_line(t) {
            self.header.push(key, line.get(off..)?, Span::new(no, 1));
            return Some(());
        }
        // The heading of the moves (`手数----指手---------消費時間--`), not a `手数＝N` line.
        let heading = lead.trim_end_matches(is_space).strip_prefix("手数")?;
        (!heading.starts_with(['＝', '='])).then_some(())
    }

    /// A numbered line: a move or the ending.
    #[inline]
    fn move_line(
        &mut self,
        t: &str,
        off: usize,
        ascii: bool,
        number: u32,
        no: u32,
        board: &mut Plain<'_>,
    ) -> Option<()> {
        self.next_move(number, board)?;
        let body = t.get(off..)?;
        let col = if ascii {
            off + 1
        } else {
            t.get(..off)?.chars().count() + 1
        };
        let span = Span::new(no, u32::try_from(col).ok()?);
        // `同`, an ASCII digit or a full-width one (U+FF10 to U+FF19), as the reader decides.
        let starts_as_move = match body.as_bytes() {
            [b'0'..=b'9', ..] | [0xEF, 0xBC, 0x90..=0x99, ..] => true,
            _ => body.starts_with('同'),
        };
        if !starts_as_move {
            let mover = board.pos.turn();
            let Ok((NodeKind::Special(s), time)) = kif::parse_kif_move(body) else {
                return None;
            };
            if s.kind == SpecialKind::Declaration {
                return None;
            }
            // A zero time on an ending is its writer's "no time" (`check_times`).
            if let Some(t) = time.filter(|t| t.elapsed_ms != Some(0) || t.total_ms != Some(0)) {
                self.time(mover, t.elapsed_ms?, t.total_ms?)?;
            }
            self.special = Some((s, span));
            return Some(());
        }
        self.play_plain(&plain_move(body)?, span, board)
    }

    /// A move line numbered `number` begins: `None` when the full way must read it (a line
    /// after the ending, a number out of turn).
    #[inline]
    fn next_move(&mut self, number: u32, board: &Plain<'_>) -> Option<()> {
        // Nothing after the ending: a move there, or a second ending, is the full way's.
        if self.special.is_some() || number != board.plies + 1 {
            return None;
        }
        self.seen_move = true;
        Some(())
    }

    /// Plays a plain move written at `span`, and follows its time.
    #[inline]
    fn play_plain(&mut self, m: &PlainMove, span: Span, board: &mut Plain<'_>) -> Option<()> {
        let mover = board.pos.turn();
        let mv = resolve(&board.pos, m, self.prev_to)?;
        if !board.play(mv) {
            return None;
        }
        self.sink.played(mv);
        if let Some((elapsed, total)) = m.time {
            self.time(mover, elapsed, total)?;
            if S::TIMES {
                self.sink.time(elapsed);
            }
        }
        self.prev_to = Some(mv.to());
        self.last_span = Some(span);
        Some(())
    }

    /// A time on `side`'s clock: `None` when the total is not the previous one plus this
    /// time, to within a second (a `time-mismatch` for the full way).
    fn time(&mut self, side: Color, elapsed: u64, total: u64) -> Option<()> {
        let slot = self.totals.get_mut(side.index())?;
        if slot.saturating_add(elapsed).abs_diff(total) > 1000 {
            return None;
        }
        *slot = total;
        Some(())
    }
}

/// The report of a game of KIF, KI2 or JKF replayed the short way to its end (its `header`,
/// its `footer` if any, its ending `special`, the span of its last move and what `sink`
/// gathered), with `sink` and the final position; `None` for endings the short way leaves to
/// the full way (none but the footer's, or none at all in an empty text), or a time control to
/// follow.
pub(super) fn finish<S: Sink>(
    header: Header,
    footer: Option<Footer>,
    special: Option<(Special, Span)>,
    last_span: Option<Span>,
    mut sink: S,
    board: Plain<'_>,
) -> Option<(Report, S, Position)> {
    if (special.is_none() && (footer.is_some() || last_span.is_none()))
        || TimeControl::of(&header).is_some()
    {
        return None;
    }
    let plies = board.plies;
    let to_move = board.pos.turn();
    let mut report = Report {
        plies,
        result: special.as_ref().map_or_else(GameResult::default, |(s, _)| {
            GameResult::of_special(s, to_move)
        }),
        info: GameInfo::of(&header),
        ..Report::default()
    };
    let ending = Ending {
        plies,
        to_move,
        span: special
            .as_ref()
            .map(|(_, span)| *span)
            .or(last_span)
            .unwrap_or_default(),
        special: special.as_ref().map(|(s, _)| s),
        // The count of specials is only read for a footer that counts moves.
        specials: match &footer {
            Some(f) if f.plies.is_some() => u32::from(special.is_some()),
            _ => 0,
        },
        last_special: None,
        footer: footer.as_ref(),
        declaration_points: 0,
    };
    let end = board.line_end();
    verify_ending(&ending, &end, &mut report);
    super::sort_by_position(&mut report);
    sink.header(header);
    Some((report, sink, end.pos?))
}

mod cp932;

pub(crate) use cp932::kif_games_cp932;
pub use cp932::validate_kif_cp932;
#[cfg(feature = "testing")]
pub use cp932::validate_kif_cp932_counting;
#[cfg(test)]
mod tests;
