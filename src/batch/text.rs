//! Text decoding and format sniffing for the batch layer.
//!
//! A thin seam over [`crate::formats::decode`]: the batch layer only needs "bytes in, text and
//! diagnostics out" and "which format is this", and keeps those two questions here.

use crate::diag::{Code, Diagnostic};
use crate::formats::Format;

/// The encoding a user forces with `--encoding`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Encoding {
    /// UTF-8 (a BOM is stripped).
    Utf8,
    /// Shift_JIS, read as CP932 (the Microsoft superset every Japanese writer uses).
    ShiftJis,
}

/// Decoded text, the encoding it was read in, and any `encoding` diagnostics.
#[derive(Debug, Clone)]
pub struct DecodedText {
    /// The text, without a BOM.
    pub text: String,
    /// The encoding used.
    pub encoding: Encoding,
    /// Bytes that did not decode.
    pub diagnostics: Vec<Diagnostic>,
}

/// Decodes `bytes`: a forced encoding wins; otherwise a BOM, a `#KIF ... encoding=` or
/// `'CSA encoding=` line, clean UTF-8, and finally CP932.
pub fn decode(bytes: &[u8], forced: Option<Encoding>) -> DecodedText {
    let (bytes, had_bom) = match bytes.strip_prefix(b"\xEF\xBB\xBF") {
        Some(rest) => (rest, true),
        None => (bytes, false),
    };
    let encoding = match forced {
        Some(e) => e,
        None if had_bom => Encoding::Utf8,
        None => match declared(bytes) {
            Some(e) => e,
            None if std::str::from_utf8(bytes).is_ok() => Encoding::Utf8,
            None => Encoding::ShiftJis,
        },
    };
    let (text, bad) = match encoding {
        Encoding::Utf8 => {
            let (t, _, bad) = encoding_rs::UTF_8.decode(bytes);
            (t.into_owned(), bad)
        }
        Encoding::ShiftJis => {
            let (t, _, bad) = encoding_rs::SHIFT_JIS.decode(bytes);
            (t.into_owned(), bad)
        }
    };
    let mut diagnostics = Vec::new();
    if bad {
        let mut d = Diagnostic::new(
            Code::Encoding,
            format!(
                "bytes that are not valid {}; replaced with U+FFFD",
                match encoding {
                    Encoding::Utf8 => "UTF-8",
                    Encoding::ShiftJis => "Shift_JIS (CP932)",
                }
            ),
        );
        if let Some((line, col)) = first_replacement(&text) {
            d.line = Some(line);
            d.column = Some(col);
        }
        diagnostics.push(d);
    }
    DecodedText {
        text,
        encoding,
        diagnostics,
    }
}

/// Finds the first U+FFFD in decoded text as (line, column), 1-based.
fn first_replacement(text: &str) -> Option<(u32, u32)> {
    for (i, line) in text.lines().enumerate() {
        if let Some(col) = line.chars().position(|c| c == '\u{FFFD}') {
            return Some((
                u32::try_from(i + 1).unwrap_or(u32::MAX),
                u32::try_from(col + 1).unwrap_or(u32::MAX),
            ));
        }
    }
    None
}

/// An encoding declared on the first line (`#KIF version=2.0 encoding=UTF-8`,
/// `'CSA encoding=SHIFT_JIS`).
fn declared(bytes: &[u8]) -> Option<Encoding> {
    let end = bytes
        .iter()
        .position(|&b| b == b'\n')
        .unwrap_or(bytes.len());
    let first = bytes.get(..end.min(200))?;
    let first = String::from_utf8_lossy(first).to_ascii_lowercase();
    if !(first.starts_with("#kif") || first.starts_with("'csa")) {
        return None;
    }
    let pos = first.find("encoding=")?;
    let value = first.get(pos + "encoding=".len()..)?.trim();
    if value.starts_with("utf-8") || value.starts_with("utf8") {
        Some(Encoding::Utf8)
    } else if value.starts_with("shift_jis")
        || value.starts_with("sjis")
        || value.starts_with("cp932")
    {
        Some(Encoding::ShiftJis)
    } else {
        None
    }
}

/// Guesses a format from decoded text (used when the extension says nothing).
pub fn sniff(text: &str) -> Option<Format> {
    let trimmed = text.trim_start_matches('\u{FEFF}').trim_start();
    if trimmed.starts_with('{') {
        return Some(Format::Jkf);
    }
    let mut kif_moves = false;
    let mut ki2_moves = false;
    for line in trimmed.lines().take(400) {
        let l = line.trim();
        if l.is_empty() || l.starts_with('#') && !l.starts_with("#KIF") {
            continue;
        }
        if l.starts_with("position ")
            || l.starts_with("startpos")
            || l.starts_with("sfen ")
            || l == "position"
        {
            return Some(Format::Usi);
        }
        if l.starts_with("'CSA")
            || l == "PI"
            || l.starts_with("PI")
                && l.len() >= 2
                && l[2..].bytes().all(|b| b.is_ascii_alphanumeric())
            || l.starts_with("P1")
            || l.starts_with("N+")
            || l.starts_with("N-")
            || l.starts_with("$EVENT")
            || l.starts_with("V2")
            || l.starts_with("V3")
            || is_csa_move(l)
        {
            return Some(Format::Csa);
        }
        if l.starts_with('▲') || l.starts_with('△') || l.starts_with('☗') || l.starts_with('☖')
        {
            ki2_moves = true;
        }
        if l.starts_with("手数") || l.split_whitespace().next().is_some_and(is_number) {
            kif_moves = true;
            break;
        }
    }
    if kif_moves {
        Some(Format::Kifu)
    } else if ki2_moves {
        Some(Format::Ki2u)
    } else if trimmed.contains('：') || trimmed.contains("手合割") {
        Some(Format::Kifu)
    } else {
        None
    }
}

fn is_number(s: &str) -> bool {
    !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit())
}

fn is_csa_move(l: &str) -> bool {
    let b = l.as_bytes();
    b.len() >= 7
        && (b[0] == b'+' || b[0] == b'-')
        && b[1..5].iter().all(u8::is_ascii_digit)
        && b[5..7].iter().all(u8::is_ascii_uppercase)
}

/// Encodes text for a file of `format`: CP932 for `kif`/`ki2`, UTF-8 otherwise. A character
/// CP932 lacks becomes `?` and a `lossy` warning with its line and column.
pub fn encode_for(format: Format, text: &str) -> (Vec<u8>, Vec<Diagnostic>) {
    if !format.writes_cp932() {
        return (text.as_bytes().to_vec(), Vec::new());
    }
    let mut out = Vec::with_capacity(text.len());
    let mut diagnostics = Vec::new();
    let mut buf = [0u8; 4];
    for (i, line) in text.split_inclusive('\n').enumerate() {
        let (bytes, _, bad) = encoding_rs::SHIFT_JIS.encode(line);
        if !bad {
            out.extend_from_slice(&bytes);
            continue;
        }
        for (col, c) in line.chars().enumerate() {
            let (b, _, bad) = encoding_rs::SHIFT_JIS.encode(c.encode_utf8(&mut buf));
            if bad {
                out.push(b'?');
                let mut d = Diagnostic::new(
                    Code::Lossy,
                    format!(
                        "{c:?} (U+{:04X}) has no Shift_JIS code; written as '?'",
                        u32::from(c)
                    ),
                );
                d.line = u32::try_from(i + 1).ok();
                d.column = u32::try_from(col + 1).ok();
                diagnostics.push(d);
            } else {
                out.extend_from_slice(&b);
            }
        }
    }
    (out, diagnostics)
}

/// Whether `format` may hold many games in one file, so its input can be split into chunks at
/// game boundaries without parsing it.
pub fn splittable(format: Format) -> bool {
    matches!(format, Format::Csa | Format::Usi)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decodes_utf8_and_cp932() {
        let d = decode("先手：a".as_bytes(), None);
        assert_eq!(d.encoding, Encoding::Utf8);
        assert_eq!(d.text, "先手：a");
        let (sjis, _, _) = encoding_rs::SHIFT_JIS.encode("先手：a");
        let d = decode(&sjis, None);
        assert_eq!(d.encoding, Encoding::ShiftJis);
        assert_eq!(d.text, "先手：a");
        assert!(d.diagnostics.is_empty());
    }

    #[test]
    fn bad_utf8_forced_is_reported_with_position() {
        let d = decode(b"ok\nab\xff", Some(Encoding::Utf8));
        assert_eq!(d.diagnostics.len(), 1);
        assert_eq!(d.diagnostics[0].line, Some(2));
        assert_eq!(d.diagnostics[0].column, Some(3));
    }

    #[test]
    fn sniffs_formats() {
        assert_eq!(sniff("V2.2\nPI\n+\n+7776FU\n"), Some(Format::Csa));
        assert_eq!(sniff("startpos moves 7g7f\n"), Some(Format::Usi));
        assert_eq!(sniff("{\"header\":{}}"), Some(Format::Jkf));
        assert_eq!(
            sniff("先手：a\n手数----指手--\n   1 ７六歩(77)\n"),
            Some(Format::Kifu)
        );
        assert_eq!(sniff("▲７六歩 △３四歩\n"), Some(Format::Ki2u));
    }
}
