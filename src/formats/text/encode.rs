//! Encoding written text for a file: UTF-8 as it is, CP932 with stand-ins and a `lossy`
//! warning for each character it cannot hold.

use encoding_rs::{EncoderResult, SHIFT_JIS};

use super::{Cursor, TextEncoding};
use crate::diag::{Code, Diagnostic};
use crate::formats::Format;

/// A CP932-encodable stand-in for a character CP932 lacks, if there is a sensible one.
fn substitute(c: char) -> Option<char> {
    Some(match c {
        '☗' | '⛊' => '▲',
        '☖' | '⛉' => '△',
        '〜' => '～',
        '～' => '〜',
        '—' => '―',
        '‖' => '∥',
        '¢' => '￠',
        '£' => '￡',
        '¬' => '￢',
        '\u{00A0}' => ' ',
        _ => return None,
    })
}

/// Encodes text. UTF-8 is a copy; CP932 (and EUC-JP, which is never written: it is treated
/// as CP932) replaces each character it cannot hold with a
/// sensible stand-in (`☗` → `▲`) or `?`, and reports each as a `lossy` warning with its line
/// and column.
pub fn encode(text: &str, enc: TextEncoding) -> (Vec<u8>, Vec<Diagnostic>) {
    match enc {
        TextEncoding::Utf8 => (text.as_bytes().to_vec(), Vec::new()),
        TextEncoding::Cp932 | TextEncoding::EucJp => encode_cp932(text),
        TextEncoding::Utf16Le | TextEncoding::Utf16Be => (encode_utf16(text, enc), Vec::new()),
    }
}

/// UTF-16 with its BOM (every character fits).
fn encode_utf16(text: &str, enc: TextEncoding) -> Vec<u8> {
    let mut out = Vec::with_capacity(2 * text.len() + 2);
    for unit in std::iter::once(0xFEFF).chain(text.encode_utf16()) {
        out.extend_from_slice(&if enc == TextEncoding::Utf16Be {
            unit.to_be_bytes()
        } else {
            unit.to_le_bytes()
        });
    }
    out
}

/// Encodes text written for `format`: CP932 for `kif`/`ki2`, UTF-8 otherwise.
pub fn encode_for(format: Format, text: &str) -> (Vec<u8>, Vec<Diagnostic>) {
    let enc = if format.writes_cp932() {
        TextEncoding::Cp932
    } else {
        TextEncoding::Utf8
    };
    encode(text, enc)
}

/// Characters the Shift_JIS encoder (the WHATWG one, which encoding_rs implements) writes
/// without a complaint as bytes that read back as another character: `¥` (U+00A5) as `\`,
/// `‾` (U+203E) as `~`, `−` (U+2212) as `－` (U+FF0D). Each is reported like a stand-in.
const SILENT: [char; 3] = ['\u{00A5}', '\u{203E}', '\u{2212}'];

fn encode_cp932(text: &str) -> (Vec<u8>, Vec<Diagnostic>) {
    let mut encoder = SHIFT_JIS.new_encoder();
    let mut out: Vec<u8> = Vec::with_capacity(text.len() + 16);
    let mut diags = Vec::new();
    let mut cur = Cursor::new();
    let mut pos = 0usize;
    // Where the next silently replaced character is, looked for again only once passed: found
    // anew at every stop (every character CP932 cannot hold), a text of many such characters
    // took quadratic time.
    let silent_from = |at: usize| {
        text.get(at..)
            .and_then(|rest| rest.find(SILENT))
            .map_or(text.len(), |i| at + i)
    };
    let mut next_silent = silent_from(0);
    loop {
        // Up to the next silently replaced character, which is reported on its own below.
        if next_silent < pos {
            next_silent = silent_from(pos);
        }
        let end = next_silent;
        let src = text.get(pos..end).unwrap_or("");
        let need = encoder
            .max_buffer_length_from_utf8_without_replacement(src.len())
            .unwrap_or(src.len().saturating_mul(2));
        out.reserve(need);
        let (res, read) =
            encoder.encode_from_utf8_to_vec_without_replacement(src, &mut out, end == text.len());
        pos += read;
        match res {
            EncoderResult::InputEmpty if pos >= text.len() => break,
            EncoderResult::InputEmpty => {
                let Some(c) = text.get(pos..).and_then(|r| r.chars().next()) else {
                    break;
                };
                let (line, column) = cur.advance(text.get(..pos).unwrap_or(""));
                let mut b = [0u8; 4];
                let (bytes, _, _) = SHIFT_JIS.encode(c.encode_utf8(&mut b));
                out.extend_from_slice(&bytes);
                let (back, _, _) = SHIFT_JIS.decode(&bytes);
                let mut d = Diagnostic::new(
                    Code::Lossy,
                    format!(
                        "'{c}' (U+{:04X}) cannot be written in CP932; wrote '{back}', which reads back as U+{:04X}",
                        c as u32,
                        back.chars().next().map_or(0, |b| b as u32)
                    ),
                );
                d.line = Some(line);
                d.column = Some(column);
                diags.push(d);
                pos += c.len_utf8();
            }
            EncoderResult::OutputFull => {}
            EncoderResult::Unmappable(c) => {
                let start = pos.saturating_sub(c.len_utf8());
                let (line, column) = cur.advance(text.get(..start).unwrap_or(""));
                let sub = substitute(c).filter(|&s| {
                    let mut b = [0u8; 4];
                    let (_, _, bad) = SHIFT_JIS.encode(s.encode_utf8(&mut b));
                    !bad
                });
                let msg = match sub {
                    Some(s) => {
                        let mut b = [0u8; 4];
                        let (bytes, _, _) = SHIFT_JIS.encode(s.encode_utf8(&mut b));
                        out.extend_from_slice(&bytes);
                        format!(
                            "'{c}' (U+{:04X}) cannot be written in CP932; wrote '{s}'",
                            c as u32
                        )
                    }
                    None => {
                        out.push(b'?');
                        format!(
                            "'{c}' (U+{:04X}) cannot be written in CP932; wrote '?'",
                            c as u32
                        )
                    }
                };
                let mut d = Diagnostic::new(Code::Lossy, msg);
                d.line = Some(line);
                d.column = Some(column);
                diags.push(d);
            }
        }
    }
    (out, diags)
}

#[cfg(test)]
mod tests {

    #[test]
    fn many_characters_cp932_cannot_hold_take_linear_time() {
        // Found by the mutation smoke test: a Shift_JIS file decoded as UTF-8 (U+FFFD
        // everywhere) took seconds to write as KIF, the next silent stand-in being looked for
        // again from every unmappable character to the end of the text.
        let text = "\u{FFFD}a".repeat(60_000) + "\u{2212}";
        let t = std::time::Instant::now();
        let (bytes, diags) = encode_for(Format::Kif, &text);
        assert!(
            t.elapsed() < std::time::Duration::from_secs(5),
            "{:?}",
            t.elapsed()
        );
        assert_eq!(diags.len(), 60_001);
        assert_eq!(bytes.len(), 2 * 60_000 + 2);
    }
    use super::*;

    #[test]
    fn encode_substitutes() {
        let (b, w) = encode("a\n☗７六歩", TextEncoding::Cp932);
        let (back, _, _) = SHIFT_JIS.decode(&b);
        assert_eq!(back, "a\n▲７六歩");
        assert_eq!(w.len(), 1);
        assert_eq!((w[0].line, w[0].column), (Some(2), Some(1)));
    }

    /// `−`, `¥` and `‾` are encoded without an error by the Shift_JIS encoder, but read
    /// back as other characters: each is reported, where it is, in order with the others.
    #[test]
    fn silent_substitutions_are_reported() {
        let text = "評価値 −35\n¥100 ☗ ‾x\nend";
        let (b, w) = encode(text, TextEncoding::Cp932);
        let (back, _, _) = SHIFT_JIS.decode(&b);
        assert_eq!(back, "評価値 －35\n\\100 ▲ ~x\nend");
        let at: Vec<_> = w.iter().map(|d| (d.line, d.column)).collect();
        assert_eq!(
            at,
            [
                (Some(1), Some(5)),
                (Some(2), Some(1)),
                (Some(2), Some(6)),
                (Some(2), Some(8))
            ]
        );
        assert!(w[0].message.contains("U+2212") && w[0].message.contains("U+FF0D"));
        assert!(w[1].message.contains("U+00A5"));
        assert!(w[3].message.contains("U+203E"));
        // Text without them is untouched and unreported.
        let (plain, none) = encode("７六歩\n", TextEncoding::Cp932);
        assert!(none.is_empty());
        assert_eq!(SHIFT_JIS.decode(&plain).0, "７六歩\n");
    }
}
