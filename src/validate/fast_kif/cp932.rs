//! The short way through KIF in CP932 (Shift_JIS), read from its bytes without decoding them
//! ([`validate_kif_cp932`]). Decoding a KIF file of Kifu for Windows costs about a quarter of
//! its validation; here a move line in the plain layout is read from its Shift_JIS bytes by
//! the grammar [`plain_move_in`] shares with the UTF-8 short way, and only the other lines
//! (the header, the heading, the ending and the footer: a dozen or so a game) are decoded, one
//! at a time, and taken as the UTF-8 short way takes them. The lines down to the first move are
//! decoded together, to tell the format from them as the batch's detection would.
//!
//! What comes out is what [`validate_kif`](super::validate_kif) gives for the text the bytes
//! decode to: a move line read from its bytes is one the UTF-8 way reads the same, and any
//! other line is decoded and read by that way itself (`tests/library/fast_kif_equivalence.rs` holds
//! the two to it on every text it tries).

use crate::formats::{lines, text};
use crate::record::Span;

use super::super::fast::{Found, Plain, give_back_history, take_history};
use super::super::gather::Sink;
use super::super::{Options, Report};
use super::{Game, Spelling, move_number_in, plain_move_in};
use crate::core::{Position, RepetitionTracker};

/// Shift_JIS as CP932 spells it (the WHATWG `Shift_JIS` of `encoding_rs`).
pub(crate) struct Cp932;

impl Spelling for Cp932 {
    #[inline(always)]
    fn wide(b: &[u8]) -> Option<(char, usize)> {
        let [hi, lo, ..] = *b else {
            return None;
        };
        let c = match u16::from_be_bytes([hi, lo]) {
            0x8140 => '\u{3000}',
            // `１` to `９`.
            0x8250..=0x8258 => char::from_u32(0xFF11 + u32::from(lo - 0x50))?,
            0x88EA => '一',
            0x93F1 => '二',
            0x8E4F => '三',
            0x8E6C => '四',
            0x8CDC => '五',
            0x985A => '六',
            0x8EB5 => '七',
            0x94AA => '八',
            0x8BE3 => '九',
            0x93AF => '同',
            0x95E0 => '歩',
            0x8D81 => '香',
            0x8C6A => '桂',
            0x8BE2 => '銀',
            0x8BE0 => '金',
            0x8A70 => '角',
            0x94F2 => '飛',
            0x8BCA => '玉',
            0x89A4 => '王',
            0x82C6 => 'と',
            0x88C7 => '杏',
            0x8C5C => '圭',
            0x9153 => '全',
            0x946E => '馬',
            0x97B4 => '龍',
            0x97B3 => '竜',
            0x90AC => '成',
            0x9573 => '不',
            0x91C5 => '打',
            _ => return None,
        };
        Some((c, 2))
    }
}

/// Reads and validates KIF text in CP932 from its bytes: the reports of
/// [`validate_kif`](super::validate_kif) on the text `bytes` decode to, or `None` when they do
/// not decode cleanly in CP932 or their first lines do not show a KIF move (then decode them
/// and validate the text).
///
/// `bytes` are the text as [`text::decode`] sees it after a BOM: the caller knows that the
/// decoder would choose CP932 for them if they decode cleanly, and that the text is to be read
/// as KIF when its first lines show a KIF move (a `.kif` file, or `--input-format kif`).
///
/// ```
/// use kifu::validate::{Options, validate_kif, validate_kif_cp932};
///
/// let text = "手合割：平手\n手数----指手---------消費時間--\n   1 ７六歩(77)\n   2 投了\n";
/// let (bytes, _, _) = encoding_rs::SHIFT_JIS.encode(text);
/// let reports = validate_kif_cp932(&bytes, &Options::default()).unwrap();
/// assert_eq!(reports, validate_kif(text, &Options::default()));
/// assert_eq!(reports[0].plies, 1);
/// ```
pub fn validate_kif_cp932(bytes: &[u8], opts: &Options) -> Option<Vec<Report>> {
    validate_kif_cp932_counting(bytes, opts).map(|(reports, _)| reports)
}

/// [`validate_kif_cp932`], and how many of the games took the short way (for tests and
/// benchmarks).
#[doc(hidden)]
pub fn validate_kif_cp932_counting(bytes: &[u8], opts: &Options) -> Option<(Vec<Report>, usize)> {
    let mut reports = Vec::new();
    let short = kif_games_cp932::<()>(bytes, opts, |g| {
        reports.push(match g {
            Found::Short(r, ..) | Found::Full(_, r) => r,
        });
    })?;
    Some((reports, short))
}

/// Every game of KIF text in CP932, in order, to `each`, as
/// [`kif_games`](super::kif_games) finds them in the decoded text; how many took the short way
/// (0 or 1), or `None` (and nothing given to `each`) where [`validate_kif_cp932`] gives `None`.
pub(crate) fn kif_games_cp932<S: Sink>(
    bytes: &[u8],
    opts: &Options,
    mut each: impl FnMut(Found<S>),
) -> Option<usize> {
    let mut history = take_history();
    // With a time control given for the run, the full way follows the clock.
    let way = match opts.time_control {
        Some(_) => Way::Full,
        None => plain::<S>(bytes, &mut history),
    };
    give_back_history(history);
    match way {
        Way::Short(report, sink, pos) => {
            each(Found::Short(report, sink, pos));
            Some(1)
        }
        Way::Full => {
            // The short way read its lines as the UTF-8 way would have, and left it here:
            // so would that way, and the text goes straight to the reader.
            let decoded = text::decode_cp932(bytes);
            if !decoded.diagnostics.is_empty() {
                return None;
            }
            Some(super::super::stream::kif_games(
                crate::formats::kakinoki::Dialect::Kif,
                &decoded.text,
                opts,
                each,
            ))
        }
        Way::NotHere => None,
    }
}

/// Where the short way over CP932 bytes ended.
// Made and matched at once, one per game: not worth a box.
#[allow(clippy::large_enum_variant)]
enum Way<S> {
    /// Read to the end: the report, what the sink gathered, the final position.
    Short(Report, S, Position),
    /// The text is KIF, and the full way must read it (if it decodes cleanly).
    Full,
    /// Not for this way: bytes that do not decode, a start that does not show KIF moves.
    NotHere,
}

/// At most this many lines that are not blank are looked through for the first move line (the
/// format is told from the first 400).
const FIRST_MOVE_WITHIN: usize = 400;

fn plain<S: Sink>(bytes: &[u8], history: &mut RepetitionTracker) -> Way<S> {
    // A lone CR ends a line for the reader too: such texts go the UTF-8 way.
    if lines::has_lone_cr(bytes) {
        return Way::NotHere;
    }
    let Some(end) = first_move_end(bytes) else {
        return Way::NotHere;
    };
    // The lines down to the first move, decoded together: the format is told from them.
    let head = text::decode_cp932(bytes.get(..end).unwrap_or_default());
    if !head.diagnostics.is_empty() {
        return Way::NotHere;
    }
    let head = head.text;
    if !text::kif_move_within(&head) {
        return Way::NotHere;
    }
    let mut game = Game::<S>::new();
    let mut board = Plain::new(history);
    let mut no = 0u32;
    for line in head.split('\n') {
        no += 1;
        if game
            .line(line.strip_suffix('\r').unwrap_or(line), no, &mut board)
            .is_none()
        {
            return Way::Full;
        }
    }
    let mut decoded = String::new();
    let mut start = end + 1;
    // Split as the reader splits (its lines at LFs, a CR before each dropped).
    while start <= bytes.len() {
        let rest = bytes.get(start..).unwrap_or_default();
        let (stop, next) = match memchr::memchr(b'\n', rest) {
            Some(n) => (start + n, start + n + 1),
            None => (bytes.len(), bytes.len() + 1),
        };
        let Some(n) = no.checked_add(1) else {
            return Way::Full;
        };
        no = n;
        let raw = bytes.get(start..stop).unwrap_or_default();
        let raw = raw.strip_suffix(b"\r").unwrap_or(raw);
        match game.cp932_move_line(raw, no, &mut board) {
            Some(true) => {}
            Some(false) => {
                decoded.clear();
                if !decode_line(raw, &mut decoded) {
                    return Way::NotHere;
                }
                if game.line(&decoded, no, &mut board).is_none() {
                    return Way::Full;
                }
            }
            None => return Way::Full,
        }
        start = next;
    }
    match game.finish(board) {
        Some((report, sink, pos)) => Way::Short(report, sink, pos),
        None => Way::Full,
    }
}

/// A move line in the plain layout read from its bytes, as [`plain_move_in`] reads it.
/// `(number, body offset, full-width spaces before it, the move)`.
pub(super) fn plain_line(raw: &[u8]) -> Option<(Option<u32>, usize, usize, super::PlainMove)> {
    let (number, off, wide) = move_number_in::<Cp932>(raw)?;
    let m = plain_move_in::<Cp932>(raw.get(off..)?)?;
    Some((number, off, wide, m))
}

/// The end (the index of its LF, or of the text's end) of the first line that is a move in
/// the plain layout, looked for among the first [`FIRST_MOVE_WITHIN`] lines that are not
/// blank. Such a line has at most five fields between ASCII spaces, so it is never taken
/// for a one-line CSA header ([`text::kif_move_within`]).
fn first_move_end(bytes: &[u8]) -> Option<usize> {
    let mut start = 0;
    let mut seen = 0;
    while start <= bytes.len() && seen <= FIRST_MOVE_WITHIN {
        let rest = bytes.get(start..)?;
        let stop = memchr::memchr(b'\n', rest).map_or(bytes.len(), |n| start + n);
        let raw = bytes.get(start..stop)?;
        let raw = raw.strip_suffix(b"\r").unwrap_or(raw);
        if plain_line(raw).is_some() {
            return Some(stop);
        }
        if !raw.trim_ascii().is_empty() {
            seen += 1;
        }
        start = stop + 1;
    }
    None
}

/// Appends `bytes` decoded as CP932 to `out`; `false` if any of them does not decode. CP932
/// keeps no state across a line end (no byte of a character is an LF or CR), so a text
/// decoded line by line is the text decoded whole.
fn decode_line(bytes: &[u8], out: &mut String) -> bool {
    if bytes.is_ascii() {
        // ASCII is itself in CP932 (bytes below 0x80 are never part of a character here).
        out.push_str(std::str::from_utf8(bytes).unwrap_or_default());
        return true;
    }
    let mut decoder = encoding_rs::SHIFT_JIS.new_decoder_without_bom_handling();
    out.reserve(
        decoder
            .max_utf8_buffer_length_without_replacement(bytes.len())
            .unwrap_or(bytes.len() * 3),
    );
    let (result, _) = decoder.decode_to_string_without_replacement(bytes, out, true);
    result == encoding_rs::DecoderResult::InputEmpty
}

impl<S: Sink> Game<S> {
    /// A line read from its bytes when it is a move in the plain layout: `Some(true)` when it
    /// was played, `Some(false)` when it is to be decoded and read as any other line, `None`
    /// for the full way (as the UTF-8 way decides on the same line).
    #[inline]
    fn cp932_move_line(&mut self, raw: &[u8], no: u32, board: &mut Plain<'_>) -> Option<bool> {
        let Some((Some(number), off, wide, m)) = plain_line(raw) else {
            return Some(false);
        };
        self.next_move(number, board)?;
        // The bytes before the body are ASCII and full-width spaces of two bytes each.
        let col = u32::try_from(off - wide + 1).ok()?;
        self.play_plain(&m, Span::new(no, col), board)?;
        Some(true)
    }
}
