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
        '−' => '－',
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

fn encode_cp932(text: &str) -> (Vec<u8>, Vec<Diagnostic>) {
    let mut encoder = SHIFT_JIS.new_encoder();
    let mut out: Vec<u8> = Vec::with_capacity(text.len() + 16);
    let mut diags = Vec::new();
    let mut cur = Cursor::new();
    let mut pos = 0usize;
    loop {
        let src = text.get(pos..).unwrap_or("");
        let need = encoder
            .max_buffer_length_from_utf8_without_replacement(src.len())
            .unwrap_or(src.len().saturating_mul(2));
        out.reserve(need);
        let (res, read) = encoder.encode_from_utf8_to_vec_without_replacement(src, &mut out, true);
        pos += read;
        match res {
            EncoderResult::InputEmpty => break,
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
    use super::*;

    #[test]
    fn encode_substitutes() {
        let (b, w) = encode("a\n☗７六歩", TextEncoding::Cp932);
        let (back, _, _) = SHIFT_JIS.decode(&b);
        assert_eq!(back, "a\n▲７六歩");
        assert_eq!(w.len(), 1);
        assert_eq!((w[0].line, w[0].column), (Some(2), Some(1)));
    }
}
