//! Decoding: bytes into text, choosing the encoding (forced, BOM, declaration, then strict
//! UTF-8 against CP932 and EUC-JP), with an `encoding` diagnostic per run of bad bytes.

use encoding_rs::{DecoderResult, EUC_JP, SHIFT_JIS, UTF_16BE, UTF_16LE};

use super::{Cursor, TextEncoding};
use crate::diag::{Code, Diagnostic};
use crate::formats::Format;

/// At most this many `encoding` diagnostics are reported per input; one more says how many
/// were left out.
const MAX_DIAGNOSTICS: usize = 50;

/// Decoded text and how it was decoded.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DecodedText {
    /// The text, without a BOM. Undecodable bytes appear as U+FFFD.
    pub text: String,
    /// The encoding used.
    pub encoding: TextEncoding,
    /// One `encoding` diagnostic per run of bytes that did not decode.
    pub diagnostics: Vec<Diagnostic>,
}

const UTF8_BOM: &[u8] = b"\xEF\xBB\xBF";

/// Decodes bytes into text. `ext_hint` is the format the file name suggests (it chooses the
/// default encoding); `forced` wins over everything else.
///
/// A BOM is certain. A declaration or the extension only sets a preference: when the
/// preferred encoding fails on some bytes and the other one decodes the whole input cleanly,
/// the other one is used (real files declare `encoding=UTF-8` and are CP932).
///
/// ```
/// use kifu::formats::text::{decode, TextEncoding};
/// let d = decode(b"\x82\xa0", None, None); // "あ" in CP932
/// assert_eq!(d.text, "あ");
/// assert_eq!(d.encoding, TextEncoding::Cp932);
/// ```
pub fn decode(bytes: &[u8], ext_hint: Option<Format>, forced: Option<TextEncoding>) -> DecodedText {
    let plan = choose(bytes, ext_hint, forced);
    let body = plan.body;
    if plan.first == TextEncoding::Utf8
        && let Some(s) = utf8(body)
    {
        return utf8_ok(s.to_owned());
    }
    decode_planned(&plan)
}

/// The text and encoding [`decode`] would give, the text borrowed from `bytes` instead of
/// copied, when decoding has nothing to change or report: UTF-8 that is the first choice and
/// valid, or ASCII in any encoding (which reads the same in all three), without its BOM.
/// `None` when decoding has to make a new text; then call [`decode`].
///
/// ```
/// use kifu::formats::text::{decode_in_place, TextEncoding};
/// let utf8 = decode_in_place(b"\xEF\xBB\xBFV2.2\n", None, None);
/// assert_eq!(utf8, Some(("V2.2\n", TextEncoding::Utf8)));
/// assert_eq!(decode_in_place(b"\x82\xa0", None, None), None); // CP932: decoded anew
/// ```
pub fn decode_in_place(
    bytes: &[u8],
    ext_hint: Option<Format>,
    forced: Option<TextEncoding>,
) -> Option<(&str, TextEncoding)> {
    let plan = choose(bytes, ext_hint, forced);
    if matches!(plan.first, TextEncoding::Utf16Le | TextEncoding::Utf16Be) {
        return None;
    }
    if plan.first == TextEncoding::Utf8 || plan.body.is_ascii() {
        Some((utf8(plan.body)?, plan.first))
    } else {
        None
    }
}

/// The bytes [`decode`] reads as CP932 whenever they decode cleanly in it, for a caller that
/// has found [`decode_in_place`] to give nothing: the text without a BOM when CP932 is the
/// first choice (forced or declared), or when UTF-8 is a choice that is not certain and the
/// bytes are not UTF-8 (then CP932 is tried next). `None` when a clean CP932 decoding would
/// not be the answer (UTF-8 certain or valid, EUC-JP declared, UTF-16).
pub(crate) fn cp932_body(
    bytes: &[u8],
    ext_hint: Option<Format>,
    forced: Option<TextEncoding>,
) -> Option<&[u8]> {
    let plan = choose(bytes, ext_hint, forced);
    match plan.first {
        TextEncoding::Cp932 => Some(plan.body),
        TextEncoding::Utf8 if !plan.certain && utf8(plan.body).is_none() => Some(plan.body),
        _ => None,
    }
}

/// `body` decoded as CP932, as [`decode`] decodes it when it chooses CP932 for the bytes
/// [`cp932_body`] gave.
pub(crate) fn decode_cp932(body: &[u8]) -> DecodedText {
    decode_with(body, TextEncoding::Cp932)
}

/// `bytes` as UTF-8 text, if they are. Text in another encoding usually fails in its first
/// line, so the start is looked at first (the standard check stops at the first bad byte);
/// the whole is then checked with SIMD, several times as fast on Japanese text, but to its end
/// whatever it finds.
fn utf8(bytes: &[u8]) -> Option<&str> {
    let head = bytes.get(..256).unwrap_or(bytes);
    if let Err(e) = std::str::from_utf8(head)
        && e.error_len().is_some()
    {
        return None;
    }
    simdutf8::basic::from_utf8(bytes).ok()
}

/// Decoding once the first choice is known not to be clean UTF-8 (or to be CP932).
fn decode_planned(plan: &Plan<'_>) -> DecodedText {
    if plan.certain {
        return decode_with(plan.body, plan.first);
    }
    // Both callers have found already that the body is not clean UTF-8, so when UTF-8 is the
    // first choice its lossy decoding (one diagnostic per bad run: thousands for a CP932
    // file, and half the time of validating one) is only made if it is the answer.
    let first = if plan.first == TextEncoding::Utf8 {
        None
    } else {
        let first = decode_with(plan.body, plan.first);
        if first.diagnostics.is_empty() {
            return first;
        }
        Some(first)
    };
    let other = match plan.first {
        TextEncoding::Utf8 => TextEncoding::Cp932,
        _ => TextEncoding::Utf8,
    };
    let second = decode_with(plan.body, other);
    if second.diagnostics.is_empty() {
        return second;
    }
    let euc = decode_with(plan.body, TextEncoding::EucJp);
    if euc.diagnostics.is_empty() {
        return euc;
    }
    // No encoding decodes every byte: the one with the fewest bad runs, so that a CP932 text
    // with one stray byte is not read as UTF-8 with an error on every kanji; on a tie (the
    // counts are capped at [`MAX_DIAGNOSTICS`]) the fallback the extension or declaration set.
    let first = first.unwrap_or_else(|| decode_with(plan.body, plan.first));
    let mut tried = [first, second, euc];
    tried.sort_by_key(|d| (d.diagnostics.len(), d.encoding != plan.fallback));
    let [best, ..] = tried;
    best
}

fn decode_with(bytes: &[u8], enc: TextEncoding) -> DecodedText {
    match enc {
        TextEncoding::Utf8 => match utf8(bytes) {
            Some(s) => utf8_ok(s.to_owned()),
            None => decode_utf8_lossy(bytes),
        },
        TextEncoding::Cp932
        | TextEncoding::EucJp
        | TextEncoding::Utf16Le
        | TextEncoding::Utf16Be => decode_legacy(bytes, enc),
    }
}

fn utf8_ok(text: String) -> DecodedText {
    DecodedText {
        text,
        encoding: TextEncoding::Utf8,
        diagnostics: Vec::new(),
    }
}

/// What to try: the bytes without a BOM, the encoding to try first, whether it is certain
/// (forced or BOM), and the encoding whose diagnostics are reported when neither is clean.
struct Plan<'a> {
    body: &'a [u8],
    first: TextEncoding,
    certain: bool,
    fallback: TextEncoding,
}

fn choose<'a>(bytes: &'a [u8], ext_hint: Option<Format>, forced: Option<TextEncoding>) -> Plan<'a> {
    let (body, bom) = match utf16_bom(bytes) {
        Some((enc, rest)) if forced.is_none() => (rest, Some(enc)),
        _ => match bytes.strip_prefix(UTF8_BOM) {
            Some(rest) => (rest, Some(TextEncoding::Utf8)),
            None => (bytes, None),
        },
    };
    let certain = |enc| Plan {
        body,
        first: enc,
        certain: true,
        fallback: enc,
    };
    if let Some(enc) = forced {
        return certain(enc);
    }
    if let Some(enc) = bom {
        return certain(enc);
    }
    // A text whose first lines read as ASCII is not UTF-16, whatever it declares.
    if let Some(enc) = declared_encoding(body)
        .filter(|e| !matches!(e, TextEncoding::Utf16Le | TextEncoding::Utf16Be))
    {
        return Plan {
            body,
            first: enc,
            certain: false,
            fallback: enc,
        };
    }
    let fallback = match ext_hint {
        Some(Format::Kif | Format::Ki2) => TextEncoding::Cp932,
        _ => TextEncoding::Utf8,
    };
    // Strict UTF-8 first in every case: a `.kif` that is valid UTF-8 reads as UTF-8.
    Plan {
        body,
        first: TextEncoding::Utf8,
        certain: false,
        fallback,
    }
}

/// The UTF-16 encoding whose BOM starts `bytes`, and the bytes after it.
pub fn utf16_bom(bytes: &[u8]) -> Option<(TextEncoding, &[u8])> {
    match bytes {
        [0xFF, 0xFE, rest @ ..] => Some((TextEncoding::Utf16Le, rest)),
        [0xFE, 0xFF, rest @ ..] => Some((TextEncoding::Utf16Be, rest)),
        _ => None,
    }
}

/// The encoding declared in the first lines, if any: `#KIF version=2.0 encoding=UTF-8` or
/// `'CSA encoding=SHIFT_JIS` (the declaration must be ASCII, so it is found in the raw bytes).
pub fn declared_encoding(bytes: &[u8]) -> Option<TextEncoding> {
    // Line ends found with `memchr`: a one-line file (compact JSON) is otherwise walked byte
    // by byte.
    let mut rest = Some(bytes);
    for _ in 0..3 {
        let Some(text) = rest else {
            break;
        };
        // LF, CR LF or a lone CR ends the line.
        let line = match memchr::memchr2(b'\n', b'\r', text) {
            Some(end) => {
                rest = text.get(crate::formats::lines::after_line_end(text, end)..);
                text.get(..end).unwrap_or_default()
            }
            None => {
                rest = None;
                text
            }
        };
        let is_decl = line.starts_with(b"#KIF") || line.starts_with(b"'CSA");
        if !is_decl {
            continue;
        }
        let pos = find_ascii_ci(line, b"encoding=")?;
        let value = line.get(pos + 9..)?;
        let end = value
            .iter()
            .position(|b| b.is_ascii_whitespace() || *b == b',' || *b == b';')
            .unwrap_or(value.len());
        let label = std::str::from_utf8(value.get(..end)?).ok()?;
        return TextEncoding::from_label(label);
    }
    None
}

fn find_ascii_ci(hay: &[u8], needle: &[u8]) -> Option<usize> {
    hay.windows(needle.len())
        .position(|w| w.eq_ignore_ascii_case(needle))
}
fn push_bad(
    diags: &mut Vec<Diagnostic>,
    dropped: &mut usize,
    bad: &[u8],
    enc: TextEncoding,
    at: (u32, u32),
) {
    if diags.len() >= MAX_DIAGNOSTICS {
        *dropped += 1;
        return;
    }
    let hex: Vec<String> = bad.iter().map(|b| format!("0x{b:02X}")).collect();
    let mut d = Diagnostic::new(
        Code::Encoding,
        format!("bytes {} do not decode as {}", hex.join(" "), enc.name()),
    );
    d.line = Some(at.0);
    d.column = Some(at.1);
    diags.push(d);
}

fn finish_diags(mut diags: Vec<Diagnostic>, dropped: usize, enc: TextEncoding) -> Vec<Diagnostic> {
    if dropped > 0 {
        diags.push(Diagnostic::new(
            Code::Encoding,
            format!(
                "{dropped} more runs of bytes do not decode as {}",
                enc.name()
            ),
        ));
    }
    diags
}

/// UTF-8 with U+FFFD for each invalid sequence and a diagnostic per sequence.
fn decode_utf8_lossy(mut bytes: &[u8]) -> DecodedText {
    let mut text = String::with_capacity(bytes.len() + 16);
    let mut diags = Vec::new();
    let mut dropped = 0;
    let mut cur = Cursor::new();
    loop {
        match std::str::from_utf8(bytes) {
            Ok(s) => {
                text.push_str(s);
                break;
            }
            Err(e) => {
                let (good, rest) = bytes.split_at(e.valid_up_to());
                // `good` is valid by construction.
                text.push_str(std::str::from_utf8(good).unwrap_or(""));
                let n = e.error_len().unwrap_or(rest.len()).max(1).min(rest.len());
                let at = cur.advance(&text);
                push_bad(
                    &mut diags,
                    &mut dropped,
                    rest.get(..n).unwrap_or(rest),
                    TextEncoding::Utf8,
                    at,
                );
                text.push('\u{FFFD}');
                bytes = rest.get(n..).unwrap_or(&[]);
                if bytes.is_empty() {
                    break;
                }
            }
        }
    }
    DecodedText {
        text,
        encoding: TextEncoding::Utf8,
        diagnostics: finish_diags(diags, dropped, TextEncoding::Utf8),
    }
}

/// CP932, EUC-JP or UTF-16 (without its BOM) with U+FFFD for each malformed sequence (an
/// unpaired surrogate, an odd last byte) and a diagnostic per sequence.
fn decode_legacy(bytes: &[u8], enc: TextEncoding) -> DecodedText {
    let encoding = match enc {
        TextEncoding::EucJp => EUC_JP,
        TextEncoding::Utf16Le => UTF_16LE,
        TextEncoding::Utf16Be => UTF_16BE,
        _ => SHIFT_JIS,
    };
    let mut decoder = encoding.new_decoder_without_bom_handling();
    let cap = decoder
        .max_utf8_buffer_length_without_replacement(bytes.len())
        .unwrap_or(bytes.len().saturating_mul(3));
    let mut text = String::with_capacity(cap);
    let mut diags = Vec::new();
    let mut dropped = 0;
    let mut cur = Cursor::new();
    let mut pos = 0usize;
    loop {
        let src = bytes.get(pos..).unwrap_or(&[]);
        let (res, read) = decoder.decode_to_string_without_replacement(src, &mut text, true);
        pos += read;
        match res {
            DecoderResult::InputEmpty => break,
            DecoderResult::OutputFull => {
                text.reserve(src.len().saturating_mul(3).max(16));
            }
            DecoderResult::Malformed(bad, extra) => {
                let end = pos.saturating_sub(extra as usize);
                let start = end.saturating_sub(bad as usize);
                let at = cur.advance(&text);
                let bad_bytes = bytes.get(start..end).unwrap_or(&[]);
                push_bad(&mut diags, &mut dropped, bad_bytes, enc, at);
                text.push('\u{FFFD}');
            }
        }
    }
    DecodedText {
        text,
        encoding: enc,
        diagnostics: finish_diags(diags, dropped, enc),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The two-step UTF-8 check says what the standard one says: a bad byte in the start,
    /// past it, at the end; a character cut by the end of the start; valid text.
    #[test]
    fn utf8_check_agrees_with_std() {
        let text = "先手：あ\n".repeat(100);
        for cut in [0, 1, 2, 84, 85, 86, 254, 255, 256, 257, 600, text.len()] {
            for bad in [None, Some(0x80u8), Some(0xFF), Some(0xE3)] {
                let mut bytes = text.as_bytes()[..cut].to_vec();
                if let Some(b) = bad {
                    bytes.push(b);
                }
                bytes.extend_from_slice(text.as_bytes());
                assert_eq!(
                    utf8(&bytes),
                    std::str::from_utf8(&bytes).ok(),
                    "cut {cut}, {bad:?}"
                );
            }
        }
    }

    #[test]
    fn bom_and_declarations() {
        let d = decode(b"\xEF\xBB\xBFabc", Some(Format::Kif), None);
        assert_eq!((d.text.as_str(), d.encoding), ("abc", TextEncoding::Utf8));
        let (sj, _, _) = SHIFT_JIS.encode("#KIF version=2.0 encoding=Shift_JIS\n先手：あ\n");
        let d = decode(&sj, Some(Format::Kifu), None);
        assert_eq!(d.encoding, TextEncoding::Cp932);
        assert_eq!(d.text, "#KIF version=2.0 encoding=Shift_JIS\n先手：あ\n");
        assert!(d.diagnostics.is_empty());
        assert_eq!(
            declared_encoding(b"'CSA encoding=UTF-8\r\nV3.0\r\n"),
            Some(TextEncoding::Utf8)
        );
        // Only the first three lines are looked at; a file may be one line with no end.
        let third = b"# a\n\n#KIF version=2.0 encoding=Shift_JIS\n";
        assert_eq!(declared_encoding(third), Some(TextEncoding::Cp932));
        let fourth = b"# a\n\n\n#KIF version=2.0 encoding=Shift_JIS\n";
        assert_eq!(declared_encoding(fourth), None);
        assert_eq!(
            declared_encoding(b"#KIF encoding=UTF-8"),
            Some(TextEncoding::Utf8)
        );
        assert_eq!(declared_encoding(b"{\"header\":{}}"), None);
        assert_eq!(declared_encoding(b""), None);
    }

    #[test]
    fn bad_bytes_have_line_and_column() {
        let d = decode(b"ab\ncd\xFFe", Some(Format::Csa), Some(TextEncoding::Utf8));
        assert_eq!(d.text, "ab\ncd\u{FFFD}e");
        assert_eq!(d.diagnostics.len(), 1);
        assert_eq!(d.diagnostics[0].code, Code::Encoding);
        assert_eq!(
            (d.diagnostics[0].line, d.diagnostics[0].column),
            (Some(2), Some(3))
        );
    }
}
