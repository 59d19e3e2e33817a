//! CSA lines classified one at a time, without building a record: for a validator that only
//! needs the moves of games written the plain way machines write them (one statement per line,
//! even start position, no comments after statements). Every line the reader would treat in any
//! other way, or report, is [`Line::Other`], and the caller hands the game to the reader.

use crate::core::{Color, PieceKind, Square};
use crate::formats::lines;
use crate::record::SpecialKind;

/// What one line of a CSA game is, as far as a move-by-move validator cares.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Line<'a> {
    /// A blank line or a `#` line: not even the start of a game.
    Blank,
    /// A line the reader keeps but that changes nothing on the board or in the result: a
    /// valid version line, `N+`/`N-` names, a `$KEY:value` line (other than `$JISHOGI`,
    /// which chooses the declaration rule), a comment; with the whole line.
    Info(&'a [u8]),
    /// `PI` with no pieces removed.
    EvenStart,
    /// `+` or `-` alone.
    Turn(Color),
    /// A move: `from` is `None` for a drop; `kind` is the piece after the move.
    Move {
        color: Color,
        from: Option<Square>,
        to: Square,
        kind: PieceKind,
    },
    /// A valid `T` line, with its seconds (`12`, `6.5`).
    Time(&'a [u8]),
    /// A known `%` special, with its whole text.
    Special(SpecialKind, &'a [u8]),
    /// Anything else (the reader decides).
    Other,
}

/// Classifies one line (without its line end). `line` is a whole line of UTF-8 text.
#[inline]
pub(crate) fn classify(b: &[u8]) -> Line<'_> {
    let Some(&first) = b.first() else {
        return Line::Blank;
    };
    match first {
        b'+' | b'-' => {
            let color = if first == b'+' {
                Color::Black
            } else {
                Color::White
            };
            match *b {
                [_] => Line::Turn(color),
                [_, f1, r1, f2, r2, k1, k2] => move_line(color, [f1, r1, f2, r2, k1, k2]),
                _ => Line::Other,
            }
        }
        b'T' => {
            if plain_seconds(b.get(1..).unwrap_or_default()) {
                Line::Time(b.get(1..).unwrap_or_default())
            } else {
                Line::Other
            }
        }
        b'%' => match std::str::from_utf8(b.get(1..).unwrap_or_default())
            .ok()
            .and_then(super::special_kind)
        {
            Some(kind) => Line::Special(kind, b),
            None => Line::Other,
        },
        b'\'' => Line::Info(b),
        // A server's verdict (`#TIME_UP`) can be the ending: the full reader decides.
        b'#' if std::str::from_utf8(b.get(1..).unwrap_or_default())
            .is_ok_and(|w| super::verdict_kind(w.trim_end()).is_some()) =>
        {
            Line::Other
        }
        b'#' => Line::Blank,
        b'N' if b.get(1).is_some_and(|&c| c == b'+' || c == b'-') => Line::Info(b),
        b'$' => match b.iter().position(|&c| c == b':') {
            Some(colon) if colon > 1 && b.get(..colon) != Some(b"$JISHOGI") => {
                let ok = b.get(1..colon).unwrap_or_default().iter().all(|&c| {
                    c.is_ascii_uppercase() || c.is_ascii_digit() || matches!(c, b'_' | b'+' | b'-')
                });
                if ok { Line::Info(b) } else { Line::Other }
            }
            _ => Line::Other,
        },
        b'V' => match b.trim_ascii_end() {
            b"V1" | b"V2" | b"V2.1" | b"V2.2" | b"V3.0" => Line::Info(b),
            _ => Line::Other,
        },
        b'P' if b == b"PI" => Line::EvenStart,
        b'!'..=b'~' => Line::Other,
        _ if std::str::from_utf8(b).is_ok_and(|s| s.trim().is_empty()) => Line::Blank,
        _ => Line::Other,
    }
}

/// The move line `±ffrrKK` (its sign given as `color`, then the six bytes after it) taken
/// apart: `Other` unless the four digits name two squares (or `00` and a square, a drop) and
/// the two letters a piece.
#[inline]
pub(crate) fn move_line(color: Color, b: [u8; 6]) -> Line<'static> {
    let [f1, r1, f2, r2, k1, k2] = b;
    match move_parts(u32::from_le_bytes([f1, r1, f2, r2]), k1, k2) {
        Some((from, to, kind)) => Line::Move {
            color,
            from,
            to,
            kind,
        },
        None => Line::Other,
    }
}

/// A whole move line and its line feed, read as one little-endian word (`+7776FU\n`): the
/// move, or `None` for anything else (which [`classify`] then looks at). Agrees with
/// [`classify`] on every line it takes.
#[inline]
pub(crate) fn move_word(w: u64) -> Option<Line<'static>> {
    let [sign, f1, r1, f2, r2, k1, k2, lf] = w.to_le_bytes();
    let color = match sign {
        b'+' => Color::Black,
        b'-' => Color::White,
        _ => return None,
    };
    if lf != b'\n' {
        return None;
    }
    let (from, to, kind) = move_parts(u32::from_le_bytes([f1, r1, f2, r2]), k1, k2)?;
    Some(Line::Move {
        color,
        from,
        to,
        kind,
    })
}

/// The squares of CSA's two digits `file * 10 + rank`: `NO_SQUARE` where a digit is 0.
const SQUARES: [u8; 100] = {
    let mut t = [NO_SQUARE; 100];
    let mut f = 1;
    while f <= 9 {
        let mut r = 1;
        while r <= 9 {
            t[f * 10 + r] = ((f - 1) * 9 + (r - 1)) as u8;
            r += 1;
        }
        f += 1;
    }
    t
};
const NO_SQUARE: u8 = 0xff;

/// From, to and kind of a move whose four digits are the bytes of `digits` (little-endian)
/// and whose letters are `k1 k2`; `None` unless the digits are ASCII digits naming two squares
/// or `00` and a square, and the letters a piece.
#[inline]
fn move_parts(digits: u32, k1: u8, k2: u8) -> Option<(Option<Square>, Square, PieceKind)> {
    // All four bytes are digits when each, less b'0' (by xor: '0'..'9' are 0x30..0x39),
    // is at most 9: adding 0x76 then leaves the high bit clear, and no byte overflows
    // into the next because bytes with the high bit set are refused first.
    let d = digits ^ 0x3030_3030;
    if (d | d.wrapping_add(0x7676_7676)) & 0x8080_8080 != 0 {
        return None;
    }
    let [f1, r1, f2, r2] = d.to_le_bytes();
    let square = |f: u8, r: u8| SQUARES[usize::from(f) * 10 + usize::from(r)];
    let to = Square::from_index(usize::from(square(f2, r2)))?;
    let from = if f1 == 0 && r1 == 0 {
        None
    } else {
        Some(Square::from_index(usize::from(square(f1, r1)))?)
    };
    let kind = PieceKind::from_csa_bytes(k1, k2)?;
    Some((from, to, kind))
}

/// Whether `b` is seconds the reader takes without a second look: 1 to 15 digits, then
/// optionally `.` and at least one digit (so the milliseconds cannot overflow); anything
/// else, valid or not, is left to the reader.
#[inline]
fn plain_seconds(b: &[u8]) -> bool {
    let int = b.iter().take_while(|c| c.is_ascii_digit()).count();
    if int == 0 || int > 15 {
        return false;
    }
    match b.get(int..) {
        Some([]) => true,
        Some([b'.', frac @ ..]) => !frac.is_empty() && frac.iter().all(u8::is_ascii_digit),
        _ => false,
    }
}

/// The UTF-8 byte order mark.
const BOM: &[u8] = b"\xEF\xBB\xBF";

/// The lines of a CSA text, game by game: the games are separated by `/` lines
/// ([`super::is_separator`]).
pub(crate) struct GameLines<'a> {
    text: &'a str,
    /// Byte offset of the next line.
    pub(crate) at: usize,
    /// Lines read so far.
    pub(crate) line_no: u32,
    /// Where the game just read ended (the start of its `/` line, or the end of the text).
    pub(crate) game_end: usize,
    /// Whether a `/` line ended it (another game may follow).
    pub(crate) more_games: bool,
    /// Whether the text holds a lone CR (else only LFs end lines, a CR before one dropped).
    cr: bool,
    /// Whether nothing but blank lines of the current game has been read (the caller says
    /// when something has): a BOM at the start of a line is skipped then, as the reader
    /// skips it (files joined with `cat` keep each file's BOM at the start of its game).
    pub(crate) fresh: bool,
}

impl<'a> GameLines<'a> {
    /// The lines of `text`, from its start.
    pub(crate) fn new(text: &'a str) -> GameLines<'a> {
        GameLines {
            text,
            at: 0,
            line_no: 0,
            game_end: 0,
            more_games: false,
            cr: lines::has_lone_cr(text.as_bytes()),
            fresh: true,
        }
    }

    /// The next line of the current game (without its line end), or `None` at its `/` line
    /// (which is consumed) or at the end of the text.
    #[inline]
    pub(crate) fn next(&mut self) -> Option<&'a [u8]> {
        let bytes = self.text.as_bytes();
        let start = self.at;
        let Some(rest) = bytes.get(start..) else {
            self.game_end = bytes.len();
            self.more_games = false;
            return None;
        };
        // LF, CR LF and a lone CR all end a line; a text without a lone CR looks for LFs only
        // (kept small, so that this stays inlined in the validator's loop).
        if self.cr {
            return self.next_cr(start);
        }
        // Lines are short: a plain loop over a few bytes beats the set-up of a vector search.
        let len = match rest.iter().take(16).position(|&b| b == b'\n') {
            Some(i) => i,
            None => memchr::memchr(b'\n', rest).unwrap_or(rest.len()),
        };
        self.at = start + len + 1;
        let len = if rest.get(..len).is_some_and(|l| l.ends_with(b"\r")) {
            len - 1
        } else {
            len
        };
        self.line_of(start, len)
    }

    /// [`Self::next`] in a text that holds a lone CR.
    #[inline(never)]
    fn next_cr(&mut self, start: usize) -> Option<&'a [u8]> {
        let bytes = self.text.as_bytes();
        let rest = bytes.get(start..).unwrap_or_default();
        let len = match rest.iter().take(16).position(|&b| lines::is_line_end(b)) {
            Some(i) => i,
            None => memchr::memchr2(b'\n', b'\r', rest).unwrap_or(rest.len()),
        };
        self.at = lines::after_line_end(bytes, start + len);
        self.line_of(start, len)
    }

    /// The line of `len` bytes at `start` (its line end passed), or `None` at a `/` line.
    #[inline]
    fn line_of(&mut self, start: usize, len: usize) -> Option<&'a [u8]> {
        let rest = self.text.as_bytes().get(start..).unwrap_or_default();
        self.line_no = self.line_no.saturating_add(1);
        let line = rest.get(..len).unwrap_or_default();
        if super::is_separator(line) {
            self.game_end = start;
            self.more_games = true;
            return None;
        }
        if self.fresh {
            return Some(line.strip_prefix(BOM).unwrap_or(line));
        }
        Some(line)
    }

    /// The next line of the current game, classified; a move line of the usual shape
    /// (`+7776FU` and a line feed) is taken apart on the spot.
    #[inline]
    pub(crate) fn next_line(&mut self) -> Option<Line<'a>> {
        let start = self.at;
        // A move line of the usual shape and its line feed, read as one word. Only a
        // well-formed move (digits and capitals: no line feed among them) is taken as a whole
        // line here; anything else is looked at line by line below.
        if let Some(word) = self
            .text
            .as_bytes()
            .get(start..start.wrapping_add(8))
            .and_then(|b| <[u8; 8]>::try_from(b).ok())
            && let Some(line) = move_word(u64::from_le_bytes(word))
        {
            self.at = start + 8;
            self.line_no = self.line_no.saturating_add(1);
            return Some(line);
        }
        if let Some(end) = plain_time_line(self.text.as_bytes(), start) {
            self.at = end + 1;
            self.line_no = self.line_no.saturating_add(1);
            let seconds = self.text.as_bytes().get(start + 1..end).unwrap_or_default();
            return Some(Line::Time(seconds));
        }
        self.next().map(classify)
    }

    /// The move of a move line of the usual shape (`+7776FU` and a line feed) at the reading
    /// point, without taking it: (side, source or `None` for a drop, destination, piece after
    /// the move).
    #[inline]
    pub(crate) fn peek_plain_move(&self) -> Option<(Color, Option<Square>, Square, PieceKind)> {
        let word = self
            .text
            .as_bytes()
            .get(self.at..self.at.wrapping_add(8))
            .and_then(|w| <[u8; 8]>::try_from(w).ok())?;
        match move_word(u64::from_le_bytes(word)) {
            Some(Line::Move {
                color,
                from,
                to,
                kind,
            }) => Some((color, from, to, kind)),
            _ => None,
        }
    }

    /// Takes the line [`Self::peek_plain_move`] found.
    #[inline]
    pub(crate) fn take_plain_move(&mut self) {
        self.at += 8;
        self.line_no = self.line_no.saturating_add(1);
    }

    /// Takes a plain `T` line at the reading point, if there is one: its seconds (`12`,
    /// `6.5`).
    #[inline]
    pub(crate) fn take_plain_time(&mut self) -> Option<&'a [u8]> {
        let end = plain_time_line(self.text.as_bytes(), self.at)?;
        let seconds = self
            .text
            .as_bytes()
            .get(self.at + 1..end)
            .unwrap_or_default();
        self.at = end + 1;
        self.line_no = self.line_no.saturating_add(1);
        Some(seconds)
    }

    /// Skips the rest of the current game; returns where it ends.
    pub(crate) fn skip_game(&mut self) -> usize {
        while self.next().is_some() {}
        self.game_end
    }
}

/// The milliseconds of a `T` line's seconds, as [`plain_seconds`] accepts them (digits, maybe
/// `.` and digits; digits beyond milliseconds dropped, as the reader's `parse_seconds` does).
#[inline]
pub(crate) fn seconds_ms(b: &[u8]) -> Option<u64> {
    let mut secs: u64 = 0;
    let mut i = 0;
    while let Some(d) = b.get(i).filter(|d| d.is_ascii_digit()) {
        secs = secs.checked_mul(10)?.checked_add(u64::from(d - b'0'))?;
        i += 1;
    }
    let mut ms = 0;
    if b.get(i) == Some(&b'.') {
        for (d, scale) in b.get(i + 1..).unwrap_or_default().iter().zip([100, 10, 1]) {
            ms += u64::from(d.wrapping_sub(b'0')) * scale;
        }
    }
    secs.checked_mul(1000)?.checked_add(ms)
}

/// If a `T` line of 1 to 15 digits (optionally `.` and more digits) and a line feed starts
/// at `at`, where its line feed is (the reader takes such a line as a time).
#[inline]
fn plain_time_line(b: &[u8], at: usize) -> Option<usize> {
    if b.get(at) != Some(&b'T') {
        return None;
    }
    let digits = |mut i: usize| {
        while b.get(i).is_some_and(u8::is_ascii_digit) {
            i += 1;
        }
        i
    };
    let int_end = digits(at + 1);
    if int_end == at + 1 || int_end - at - 1 > 15 {
        return None;
    }
    let end = match b.get(int_end) {
        Some(b'.') => {
            let frac_end = digits(int_end + 1);
            if frac_end == int_end + 1 {
                return None;
            }
            frac_end
        }
        _ => int_end,
    };
    (b.get(end) == Some(&b'\n')).then_some(end)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines() {
        let sq = |f, r| Square::new(f, r).unwrap();
        assert_eq!(
            classify(b"+7776FU"),
            Line::Move {
                color: Color::Black,
                from: Some(sq(7, 7)),
                to: sq(7, 6),
                kind: PieceKind::Pawn
            }
        );
        assert_eq!(
            classify(b"-0055KA"),
            Line::Move {
                color: Color::White,
                from: None,
                to: sq(5, 5),
                kind: PieceKind::Bishop
            }
        );
        for other in [
            "+7776F",
            "+7776FUU",
            "+7076FU",
            "+7770FU",
            "+7776fu",
            "+7776FU,T3",
            "+7776FU ",
            "T",
            "T1.",
            "T-1",
            "T3,'x",
            "%UNKNOWN",
            "%TORYO ",
            "$JISHOGI:24",
            "$:x",
            "$bad:x",
            "$EVENT",
            "V9",
            "P1 * ",
            "PI82HI",
            "N",
            "Nx",
            "x",
            " +7776FU",
            "\u{3000}x",
        ] {
            assert_eq!(classify(other.as_bytes()), Line::Other, "{other:?}");
        }
        assert_eq!(classify(b"T12.5"), Line::Time(b"12.5"));
        for (t, reader_takes_it) in [
            ("T0", true),
            ("T12", true),
            ("T1.500", true),
            ("T1.5000001", true),
            ("T999999999999999", true),
            ("T1.", false),
            ("T.5", false),
            ("T1.2.3", false),
            ("T+1", false),
            ("T1 ", false),
        ] {
            assert_eq!(
                matches!(classify(t.as_bytes()), Line::Time(_)),
                reader_takes_it,
                "{t}"
            );
            assert_eq!(
                super::super::read::parse_seconds(&t[1..]).is_some(),
                reader_takes_it,
                "{t}"
            );
        }
        // Valid, but longer than the short way looks at: left to the reader.
        assert_eq!(classify(b"T1234567890123456"), Line::Other);
        assert_eq!(
            classify(b"%TORYO"),
            Line::Special(SpecialKind::Resign, b"%TORYO")
        );
        assert_eq!(classify(b"+"), Line::Turn(Color::Black));
        assert_eq!(classify(b"-"), Line::Turn(Color::White));
        assert_eq!(classify(b"PI"), Line::EvenStart);
        for info in [
            "V2.2", "V3.0 ", "N+a", "N-", "$EVENT:x", "$X_1+-:", "'c", "'",
        ] {
            assert_eq!(
                classify(info.as_bytes()),
                Line::Info(info.as_bytes()),
                "{info:?}"
            );
        }
        for blank in ["", "#x", "  ", "\t", "\u{3000}"] {
            assert_eq!(classify(blank.as_bytes()), Line::Blank, "{blank:?}");
        }
    }

    #[test]
    fn seconds_read_as_the_reader_reads_them() {
        for t in [
            "T0",
            "T12",
            "T1.5",
            "T1.500",
            "T0.05",
            "T1.5000001",
            "T999999999999999",
            "T6.123",
        ] {
            let Line::Time(seconds) = classify(t.as_bytes()) else {
                panic!("{t} is a time");
            };
            assert_eq!(
                seconds_ms(seconds),
                super::super::read::parse_seconds(&t[1..]),
                "{t}"
            );
        }
    }

    #[test]
    fn the_time_lane_takes_only_what_the_classifier_calls_a_time() {
        let cases = [
            "T0",
            "T12",
            "T1.5",
            "T1.",
            "T.5",
            "T",
            "T1.2.3",
            "T12a",
            "T 1",
            "T1 ",
            "Tx",
            "T999999999999999",
            "T1234567890123456",
            "T3,+7776FU",
            "T3'c",
            "+7776FU",
        ];
        for c in cases {
            let text = format!("{c}\n");
            let lane = plain_time_line(text.as_bytes(), 0);
            let classified = matches!(classify(c.as_bytes()), Line::Time(_));
            // The lane may leave a time to the classifier, never take a non-time.
            assert!(lane.is_none() || classified, "{c:?}");
            if classified {
                assert_eq!(lane, Some(c.len()), "{c:?}");
            }
        }
        // Without its line feed (last line, or `\r\n`) the lane leaves it to the classifier.
        assert_eq!(plain_time_line(b"T3", 0), None);
        assert_eq!(plain_time_line(b"T3\r\n", 0), None);
    }
}
