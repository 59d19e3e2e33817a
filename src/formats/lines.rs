//! Line ends, as every reader takes them: LF, CR LF and a CR alone each end a line (old Mac
//! editors and some web forms write bare CRs), and line numbers count them alike, a CR LF
//! once.

/// The line that starts at byte `start` of `bytes`: where it ends (the offset of its line end,
/// or the end of the text) and where the next line starts (past `bytes.len()` for the last
/// line). `start` must be a line start.
///
/// A plain loop over the bytes: lines are short, and a vector search costs more to set up
/// than it saves on them.
#[inline]
pub(crate) fn line_at(bytes: &[u8], start: usize) -> (usize, usize) {
    let rest = bytes.get(start..).unwrap_or_default();
    match rest.iter().position(|&b| is_line_end(b)) {
        None => (bytes.len(), bytes.len() + 1),
        Some(i) => {
            let end = start + i;
            (end, after_line_end(bytes, end))
        }
    }
}

/// [`line_at`] for a text without a lone CR ([`has_lone_cr`] is false): the lines end at
/// LFs only, and one compare a byte finds them; the end given is that of the line with its
/// CR, if it has one (drop it).
#[inline]
pub(crate) fn line_at_lf(bytes: &[u8], start: usize) -> (usize, usize) {
    let rest = bytes.get(start..).unwrap_or_default();
    match rest.iter().position(|&b| b == b'\n') {
        None => (bytes.len(), bytes.len() + 1),
        Some(i) => (start + i, start + i + 1),
    }
}

/// Whether the text holds a CR.
#[inline]
pub(crate) fn has_cr(bytes: &[u8]) -> bool {
    memchr::memchr(b'\r', bytes).is_some()
}

/// Whether the text holds a CR that is not the first half of a CR LF. When it does not (LF
/// and CR LF text, the usual kinds), the readers split it with [`line_at_lf`], which looks
/// for one byte only, and drop the CR before each LF.
#[inline]
pub(crate) fn has_lone_cr(bytes: &[u8]) -> bool {
    has_cr(bytes) && (bytes.last() == Some(&b'\r') || count_byte(bytes, b'\r') != count_crlf(bytes))
}

/// Whether `b` ends a line (LF or CR; a CR LF is one line end, see [`after_line_end`]).
#[inline(always)]
pub(crate) fn is_line_end(b: u8) -> bool {
    // Both are at most 0x0d: one compare rules out almost every byte of a line.
    b <= b'\r' && (b == b'\n' || b == b'\r')
}

/// The offset after the line end at `end` (a LF or a CR, taking a CR LF as one).
#[inline(always)]
pub fn after_line_end(bytes: &[u8], end: usize) -> usize {
    if bytes.get(end) == Some(&b'\r') && bytes.get(end + 1) == Some(&b'\n') {
        end + 2
    } else {
        end + 1
    }
}

/// The lines of `text` one at a time, found only as they are asked for (LF, CR LF and a lone
/// CR end a line; a CR LF gives an empty line between): for a look at a text's first lines.
pub(crate) fn lazy(text: &str) -> impl Iterator<Item = &str> {
    let mut rest = Some(text);
    std::iter::from_fn(move || {
        let r = rest?;
        match memchr::memchr2(b'\n', b'\r', r.as_bytes()) {
            // Line ends are ASCII, so both ends are character boundaries.
            Some(i) => {
                rest = r.get(i + 1..);
                r.get(..i)
            }
            None => {
                rest = None;
                Some(r)
            }
        }
    })
}

/// The lines of `text` with their 1-based numbers, without their line ends; the text after
/// the last line end is a line too (empty when the text ends with one). Lines are found with
/// a vector search (USI lines are long).
pub(crate) fn numbered(text: &str) -> Numbered<'_> {
    Numbered {
        text,
        cr: has_cr(text.as_bytes()),
        start: 0,
        no: 0,
    }
}

/// The iterator of [`numbered`].
#[derive(Debug, Clone)]
pub(crate) struct Numbered<'t> {
    text: &'t str,
    /// The text holds a CR.
    cr: bool,
    /// Byte offset of the next line (past the end once every line is read).
    start: usize,
    /// Lines read so far.
    no: u32,
}

impl<'t> Iterator for Numbered<'t> {
    type Item = (u32, &'t str);

    fn next(&mut self) -> Option<(u32, &'t str)> {
        let bytes = self.text.as_bytes();
        let start = self.start;
        if start > bytes.len() {
            return None;
        }
        let rest = bytes.get(start..).unwrap_or_default();
        let found = if self.cr {
            memchr::memchr2(b'\n', b'\r', rest)
        } else {
            memchr::memchr(b'\n', rest)
        };
        let (end, next) = match found {
            Some(i) => (start + i, after_line_end(bytes, start + i)),
            None => (bytes.len(), bytes.len() + 1),
        };
        // Line ends are ASCII, so both ends are character boundaries.
        let line = self.text.get(start..end).unwrap_or_default();
        self.start = next;
        self.no = self.no.saturating_add(1);
        Some((self.no, line))
    }
}

/// Line ends in `b`, a CR LF counted once (a CR as the last byte counts as one whole line
/// end). Text without a CR (the usual kind) is counted in one vectorised pass.
pub fn count(b: &[u8]) -> usize {
    let lf = count_byte(b, b'\n');
    if !has_cr(b) {
        return lf;
    }
    // Each CR is a line end, and each LF after a CR is not another one.
    lf + count_byte(b, b'\r') - count_crlf(b)
}

/// How many CR LF pairs `b` holds (blocks of 0/1 sums, as [`count_byte`]).
fn count_crlf(b: &[u8]) -> usize {
    let (Some(first), Some(second)) = (b.get(..b.len().saturating_sub(1)), b.get(1..)) else {
        return 0;
    };
    let mut n = 0usize;
    let mut a = first.chunks_exact(64);
    let mut c = second.chunks_exact(64);
    for (x, y) in (&mut a).zip(&mut c) {
        n += x
            .iter()
            .zip(y)
            .map(|(&p, &q)| u8::from(p == b'\r') & u8::from(q == b'\n'))
            .sum::<u8>() as usize;
    }
    n + a
        .remainder()
        .iter()
        .zip(c.remainder())
        .filter(|&(&p, &q)| p == b'\r' && q == b'\n')
        .count()
}

/// How many bytes of `b` are `x` (sums of 0/1 bytes over blocks, a form the compiler turns
/// into vector compares).
fn count_byte(b: &[u8], x: u8) -> usize {
    let mut n = 0usize;
    let mut blocks = b.chunks_exact(64);
    for block in &mut blocks {
        n += block.iter().map(|&c| u8::from(c == x)).sum::<u8>() as usize;
    }
    n + blocks.remainder().iter().filter(|&&c| c == x).count()
}

/// Where the last line of `b` starts: after its last line end (0 when it has none). A CR as
/// the last byte may be the first half of a CR LF: then the line start is not known yet, and
/// the start of the line that CR ends is given instead.
pub fn last_line_start(b: &[u8]) -> usize {
    let body = b.strip_suffix(b"\r").unwrap_or(b);
    memchr::memrchr2(b'\n', b'\r', body).map_or(0, |i| i + 1)
}

/// The byte offset of a place given as (1-based line, 1-based byte column) with only LFs
/// counted as line ends (as serde_json counts), clamped to the text.
pub(crate) fn offset_of(text: &str, line: usize, column: usize) -> usize {
    let b = text.as_bytes();
    let start = if line <= 1 {
        0
    } else {
        memchr::memchr_iter(b'\n', b)
            .nth(line - 2)
            .map_or(b.len(), |i| i + 1)
    };
    start.saturating_add(column.saturating_sub(1)).min(b.len())
}

/// The 1-based line (every line end counted as [`count`] does) and character column of byte
/// `at` of `text` (a character boundary at or before it).
pub(crate) fn line_column(text: &str, at: usize) -> (u32, u32) {
    let b = text.as_bytes();
    let mut at = at.min(b.len());
    while !text.is_char_boundary(at) {
        at -= 1;
    }
    // The LF of a CR LF is where its CR is.
    if at > 0 && b.get(at) == Some(&b'\n') && b.get(at - 1) == Some(&b'\r') {
        at -= 1;
    }
    let before = b.get(..at).unwrap_or_default();
    let line_start = memchr::memrchr2(b'\n', b'\r', before).map_or(0, |i| i + 1);
    let column = text.get(line_start..at).map_or(0, |s| s.chars().count()) + 1;
    let clamp = |n: usize| u32::try_from(n).unwrap_or(u32::MAX);
    (clamp(count(before) + 1), clamp(column))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cr_lf_and_crlf_are_each_one_line_end() {
        let lines: Vec<_> = numbered("a\nb\r\nc\rd\r\re").collect();
        assert_eq!(
            lines,
            [(1, "a"), (2, "b"), (3, "c"), (4, "d"), (5, ""), (6, "e")]
        );
        let lines: Vec<_> = numbered("a\r").collect();
        assert_eq!(lines, [(1, "a"), (2, "")]);
        let lines: Vec<_> = numbered("").collect();
        assert_eq!(lines, [(1, "")]);
        for (text, n) in [
            ("", 0),
            ("a", 0),
            ("a\n", 1),
            ("a\r\n", 1),
            ("a\r", 1),
            ("\r\r\n\n\r", 4),
            ("\n\r", 2),
        ] {
            assert_eq!(count(text.as_bytes()), n, "{text:?}");
            assert_eq!(
                numbered(text).count() - 1,
                n,
                "{text:?}: lines are line ends plus one"
            );
        }
        let long = "x\r\n".repeat(100) + &"y\r".repeat(50) + &"z\n".repeat(70);
        assert_eq!(count(long.as_bytes()), 220);
        assert_eq!(last_line_start(b"ab\ncd"), 3);
        assert_eq!(last_line_start(b"ab\rcd"), 3);
        assert_eq!(last_line_start(b"ab\rcd\r"), 3);
        assert_eq!(last_line_start(b"ab\r\n"), 4);
        assert_eq!(last_line_start(b"abc"), 0);
        for (text, lone) in [
            ("", false),
            ("a\nb", false),
            ("a\r\nb\r\n", false),
            ("a\r", true),
            ("a\rb", true),
            ("a\r\r\n", true),
            (&*"x\r\n".repeat(100), false),
            (&*("x\r\n".repeat(100) + "\ry"), true),
        ] {
            assert_eq!(has_lone_cr(text.as_bytes()), lone, "{text:?}");
        }
        let t = "ab\r\ncd\ref\ngé\rh";
        assert_eq!(line_column(t, 0), (1, 1));
        assert_eq!(line_column(t, 3), (1, 3));
        assert_eq!(line_column(t, 4), (2, 1));
        assert_eq!(line_column(t, 7), (3, 1));
        assert_eq!(line_column(t, 13), (4, 3));
        assert_eq!(line_column(t, 14), (5, 1));
        assert_eq!(offset_of(t, 3, 2), 11);
        assert_eq!(offset_of(t, 9, 1), t.len());
    }
}
