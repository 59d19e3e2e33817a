//! Reading one file or stream into [`Unit`]s: a one-game format whole, a multi-game format
//! (CSA, USI) in chunks of about [`Options::chunk_bytes`] cut at game boundaries, with the
//! line each chunk starts on, the stream and per-game size limits, and the failure that ends a
//! file at a game too big.

use std::io::{self, BufRead, Read};
use std::sync::Arc;

use kifu::diag::{Code, Diagnostic};
use kifu::formats::{Format, ReadOptions, TextEncoding, csa, lines, text};

use super::{Sink, failed, failed_at};
use crate::batch::{Content, Options, Source, Unit};

/// The encoding a chunk of a multi-game file tells, for the chunks after it: the one it
/// decodes in (as `parse_unit` decodes it) when it holds a byte that is not ASCII, else
/// `None` (plain ASCII reads the same in every encoding, and tells nothing). The first chunk
/// that tells decides for the rest of the file, so that a later chunk of EUC-JP bytes that
/// happen to be clean CP932 (EUC-JP kana are) does not change the encoding, while a file of
/// ASCII games and then one Shift_JIS game reads as it would whole.
fn chunk_encoding(bytes: &[u8], format: Option<Format>) -> Option<TextEncoding> {
    if bytes.is_ascii() {
        return None;
    }
    Some(text::decode(bytes, format, None).encoding)
}

/// Reads one file's bytes: whole for one-game formats, in chunks cut at game boundaries for
/// CSA and USI. At most `limit` bytes are read from one stream.
pub(super) fn read_stream(
    mut source: Source,
    mut reader: impl BufRead,
    opts: &Options,
    limit: u64,
    sink: &mut Sink<'_>,
) -> bool {
    // Look at the start: a UTF-16 text is read whole (its line ends are two bytes, which the
    // cuts between games do not look for), and an unknown format is told by the content.
    let head = match reader.fill_buf() {
        Ok(h) => h,
        Err(e) => return sink(failed(source, Code::Io, format!("cannot read: {e}"))),
    };
    let utf16 = opts.encoding.is_none() && text::utf16_bom(head).is_some();
    if opts.input_format.is_none() {
        match source.format {
            // The format the extension names is read unless the content plainly is another
            // (a `.kif` holding a USI line): then the content's, with a warning naming both.
            Some(named) => {
                if let Some(content) = plainly_other(named, head) {
                    source.named_format = Some(named);
                    source.format = Some(content);
                }
            }
            None => {
                let sniff = ReadOptions {
                    encoding: opts.encoding,
                    ..ReadOptions::default()
                };
                source.format = sniff.detect(&sniff.decode(head).text);
            }
        }
    }
    // The one-line CSA of the 2chkifu collection is cut after each game's line of moves.
    let cut = match source.format {
        Some(Format::Csa) if csa::starts_one_line(head) => Cut::OneLine,
        Some(Format::Csa) => Cut::Csa,
        _ => Cut::Lines,
    };
    let source = Arc::new(source);
    let multi = source.format.is_some_and(|f| !f.one_game_per_file());
    if !multi || utf16 {
        let mut bytes = Vec::new();
        // A UTF-16 file of many games may take as much as sixteen games.
        let (game_limit, whole) = if multi {
            (
                opts.max_game_bytes.saturating_mul(16),
                "for a UTF-16 file, read whole",
            )
        } else {
            (opts.max_game_bytes, "for one game")
        };
        let (limit, what) = if game_limit < limit {
            (game_limit, whole)
        } else {
            (limit, "")
        };
        let mut limited = (&mut reader).take(limit.saturating_add(1));
        let unit = match limited.read_to_end(&mut bytes) {
            Ok(n) if n as u64 > limit => {
                let msg = format!("larger than the limit of {limit} bytes {what}; not read");
                failed_at(source, Diagnostic::new(Code::Io, msg), 0, 0, None)
            }
            Ok(_) => Unit {
                source,
                content: Content::Bytes(bytes),
                first_line: 0,
                chunk: 0,
                last: true,
                encoding: opts.encoding,
            },
            Err(e) => {
                let d = Diagnostic::new(Code::Io, format!("cannot read: {e}"));
                failed_at(source, d, 0, 0, None)
            }
        };
        return sink(unit);
    }
    let max_game = usize::try_from(opts.max_game_bytes).unwrap_or(usize::MAX);
    let chunk_bytes = opts.chunk();
    // The chunk being gathered; starts at a line start. Grown as needed: most files are far
    // smaller than a chunk.
    let mut buf: Vec<u8> = Vec::new();
    // Complete lines of `buf` looked at so far end here (a line start), and their number.
    let mut scanned = 0usize;
    let mut lines_in_buf = 0u32;
    // `lines_in_buf` counts the lines of `buf` up to here.
    let mut counted = 0usize;
    let mut first_line = 0u32;
    let mut chunk = 0u32;
    let mut total: u64 = 0;
    let mut encoding = opts.encoding;
    // The encoding of the chunks: forced, or told by the first chunk that is not plain ASCII
    // (`chunk_encoding`).
    // Where the game being read starts in `buf` (after the last `/` line for CSA; the line
    // for USI), and the lines of `buf` before it.
    let mut game_start = 0usize;
    let mut lines_before_game = 0u32;
    loop {
        // Read a block, not a line at a time: line-by-line reading was a tenth of the CPU
        // time of validating a multi-game file, and the reader thread's share limits what a
        // second worker can add. Never more than the stream limit allows (plus one byte).
        let room =
            usize::try_from(limit.saturating_sub(total).saturating_add(1)).unwrap_or(usize::MAX);
        let n = loop {
            match reader.fill_buf() {
                Ok(block) => {
                    let take = block.len().min(room);
                    buf.extend_from_slice(block.get(..take).unwrap_or_default());
                    break take;
                }
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => {
                    let d = Diagnostic::new(Code::Io, format!("cannot read: {e}"));
                    return sink(failed_at(source, d, first_line, chunk, encoding));
                }
            }
        };
        reader.consume(n);
        total = total.saturating_add(n as u64);
        let eof = n == 0;
        // Bytes of `buf` within the stream limit: a line that reaches past it is not used.
        let over_limit = usize::try_from(total.saturating_sub(limit)).unwrap_or(usize::MAX);
        let mut usable = buf.len().saturating_sub(over_limit);
        // Find the game boundaries among the complete lines (for CSA, SIMD searches for `/`
        // and line ends rather than a walk over every line); check game sizes; cut.
        loop {
            let rest = buf.get(scanned..usable).unwrap_or_default();
            let end = match next_boundary(rest, cut) {
                Next::Boundary(off) => scanned + off,
                Next::None(advance) => {
                    scanned += advance;
                    break;
                }
            };
            lines_in_buf =
                lines_in_buf.saturating_add(count_lines(buf.get(counted..end).unwrap_or_default()));
            counted = end;
            if end - game_start > max_game {
                // Too big: `usable` is past `end`, so the test below refuses it.
                break;
            }
            scanned = end;
            game_start = end;
            lines_before_game = lines_in_buf;
            if end >= chunk_bytes {
                let mut rest_buf = Vec::with_capacity(chunk_bytes + 64 * 1024);
                rest_buf.extend_from_slice(buf.get(end..).unwrap_or_default());
                buf.truncate(end);
                let bytes = std::mem::replace(&mut buf, rest_buf);
                // `buf` now starts at `end`: so does what is usable of it.
                usable = usable.saturating_sub(end);
                if encoding.is_none() {
                    encoding = chunk_encoding(&bytes, source.format);
                }
                let unit = Unit {
                    source: Arc::clone(&source),
                    content: Content::Bytes(bytes),
                    first_line,
                    chunk,
                    last: false,
                    encoding,
                };
                if !sink(unit) {
                    return false;
                }
                first_line = first_line.saturating_add(lines_in_buf);
                chunk = chunk.saturating_add(1);
                lines_in_buf = 0;
                lines_before_game = 0;
                scanned = 0;
                counted = 0;
                game_start = 0;
            }
        }
        // The current game, with its unfinished line (or the last, unterminated one), or a
        // game found too big above.
        if usable.saturating_sub(game_start) > max_game {
            return game_too_big(
                &source,
                &mut buf,
                game_start,
                &mut first_line,
                &mut chunk,
                lines_before_game,
                encoding,
                max_game,
                sink,
            );
        }
        if total > limit {
            let d = Diagnostic::new(
                Code::Io,
                format!("larger than the limit of {limit} bytes; the rest is not read"),
            );
            return sink(failed_at(source, d, first_line, chunk, encoding));
        }
        if eof {
            // A file of one chunk is left to `parse_unit` to detect its encoding (the same
            // detection on the same bytes); later chunks use the first telling chunk's.
            return sink(Unit {
                source,
                content: Content::Bytes(buf),
                first_line,
                chunk,
                last: true,
                encoding,
            });
        }
    }
}

/// The format a file's start plainly is when it is not of `named`'s family
/// ([`text::plainly_other`]), from the signals of its first 2 KiB (all ASCII but the kanji
/// after a KIF move number, which stays not ASCII): the text itself when it is UTF-8, else the
/// first KiB with every byte that is not ASCII as U+0080 (cheaper than decoding; only the lines
/// looked at are made so, and most starts stop at their first lines). Only whole lines: a line
/// the window cuts is left out. A signal past the window is not seen, and then the extension
/// stands.
fn plainly_other(named: Format, head: &[u8]) -> Option<Format> {
    const WINDOW: usize = 2048;
    let mut window = head.get(..WINDOW).unwrap_or(head);
    if window.len() < head.len() {
        let end = memchr::memrchr2(b'\n', b'\r', window).map_or(0, |i| i + 1);
        window = window.get(..end).unwrap_or_default();
    }
    match std::str::from_utf8(window) {
        Ok(t) => text::plainly_other(named, t),
        Err(_) => {
            let short = window.get(..WINDOW / 2).unwrap_or(window);
            let end = memchr::memrchr2(b'\n', b'\r', short).map_or(0, |i| i + 1);
            text::plainly_other_ascii(named, short.get(..end).unwrap_or_default())
        }
    }
}

/// Where a multi-game stream may be cut ([`next_boundary`]).
#[derive(Clone, Copy, PartialEq, Eq)]
enum Cut {
    /// After any line (USI: a game a line).
    Lines,
    /// After a `/` line (CSA).
    Csa,
    /// After a line of moves (the one-line CSA of 2chkifu: a header line, a moves line).
    OneLine,
}

/// What [`next_boundary`] found.
enum Next {
    /// A line that ends a game ends at this offset (after its line end).
    Boundary(usize),
    /// No such complete line; the lines before this offset (a line start) need no second
    /// look.
    None(usize),
}

/// The next complete line of `rest` (which starts at a line start) after which a unit may
/// be cut: a `/` line for CSA ([`csa::is_separator`], the reader's own rule), any line for
/// the other formats. LF, CR LF and a lone CR end lines; a CR that is the last byte of `rest`
/// may be half of a CR LF, so its line is not complete yet (a cut there would leave its LF to
/// start the next chunk as one more line).
fn next_boundary(rest: &[u8], cut: Cut) -> Next {
    // The end of the line whose line end is at `i`, if the line end is complete.
    let line_end = |i: usize| -> Option<usize> {
        if rest.get(i) == Some(&b'\r') && i + 1 == rest.len() {
            None
        } else {
            Some(lines::after_line_end(rest, i))
        }
    };
    match cut {
        Cut::Lines => {
            return match memchr::memchr2(b'\n', b'\r', rest).and_then(line_end) {
                Some(end) => Next::Boundary(end),
                None => Next::None(0),
            };
        }
        Cut::OneLine => {
            let mut from = 0usize;
            loop {
                let tail = rest.get(from..).unwrap_or_default();
                let Some(end) = memchr::memchr2(b'\n', b'\r', tail).map(|i| from + i) else {
                    return Next::None(from);
                };
                let Some(next) = line_end(end) else {
                    return Next::None(from);
                };
                let line = rest.get(from..end).unwrap_or_default();
                if std::str::from_utf8(line).is_ok_and(csa::is_moves_line) {
                    return Next::Boundary(next);
                }
                from = next;
            }
        }
        Cut::Csa => {}
    }
    let mut from = 0usize;
    loop {
        let tail = rest.get(from..).unwrap_or_default();
        let Some(i) = memchr::memchr(b'/', tail) else {
            return Next::None(lines::last_line_start(rest));
        };
        let slash = from + i;
        let line_start = memchr::memrchr2(b'\n', b'\r', rest.get(..slash).unwrap_or_default())
            .map_or(0, |j| j + 1);
        let Some(end) =
            memchr::memchr2(b'\n', b'\r', rest.get(slash..).unwrap_or_default()).map(|j| slash + j)
        else {
            return Next::None(line_start);
        };
        let Some(next) = line_end(end) else {
            return Next::None(line_start);
        };
        if csa::is_separator(rest.get(line_start..end).unwrap_or_default()) {
            return Next::Boundary(next);
        }
        from = next;
    }
}

/// Line ends in `b` (LF, CR LF and a lone CR, as the readers count them).
fn count_lines(b: &[u8]) -> u32 {
    u32::try_from(lines::count(b)).unwrap_or(u32::MAX)
}

/// A game of a multi-game stream is over `max_game` bytes: the whole games before it (in the
/// chunk being gathered) go out as one unit, then an `io` failure at the line the big game
/// starts on ends the file.
#[allow(clippy::too_many_arguments)]
fn game_too_big(
    source: &Arc<Source>,
    buf: &mut Vec<u8>,
    game_start: usize,
    first_line: &mut u32,
    chunk: &mut u32,
    lines_before_game: u32,
    mut encoding: Option<TextEncoding>,
    max_game: usize,
    sink: &mut Sink<'_>,
) -> bool {
    let d = Diagnostic::new(
        Code::Io,
        format!("a game larger than the limit of {max_game} bytes; the rest is not read"),
    )
    .at(kifu::record::Span {
        line: first_line
            .saturating_add(lines_before_game)
            .saturating_add(1),
        column: 1,
    });
    // The whole games read before it are still worth reading.
    buf.truncate(game_start);
    if !buf.is_empty() {
        if encoding.is_none() {
            encoding = chunk_encoding(buf, source.format);
        }
        let unit = Unit {
            source: Arc::clone(source),
            content: Content::Bytes(std::mem::take(buf)),
            first_line: *first_line,
            chunk: *chunk,
            last: false,
            encoding,
        };
        if !sink(unit) {
            return false;
        }
        *first_line = first_line.saturating_add(lines_before_game);
        *chunk = chunk.saturating_add(1);
    }
    sink(failed_at(
        Arc::clone(source),
        d,
        *first_line,
        *chunk,
        encoding,
    ))
}

#[cfg(test)]
mod tests;
