//! Text decoding, encoding for output, and format detection.
//!
//! Every reader takes decoded text, so bytes are decoded once, before any parser, in this
//! order: an explicit (forced) encoding; a byte-order mark; a declaration in the first lines
//! (`#KIF version=2.0 encoding=UTF-8`, `'CSA encoding=SHIFT_JIS`); then strict UTF-8, falling
//! back to CP932 (Shift_JIS with the Microsoft extensions, which is what `encoding_rs::SHIFT_JIS`
//! implements). `.kif`/`.ki2` files default to CP932 but read as UTF-8 when they are valid
//! UTF-8; the other formats default to UTF-8.
//!
//! Bytes that do not decode never make the decoder fail: each run of them becomes an `encoding`
//! diagnostic with its line and column and a U+FFFD in the text, so parsing can go on.

use encoding_rs::{DecoderResult, EUC_JP, EncoderResult, SHIFT_JIS};

use super::Format;
use crate::diag::{Code, Diagnostic};

/// At most this many `encoding` diagnostics are reported per input; one more says how many
/// were left out.
const MAX_DIAGNOSTICS: usize = 50;

/// A text encoding the crate reads and writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum TextEncoding {
    /// UTF-8 (a BOM is accepted on input, never written).
    Utf8,
    /// CP932: Shift_JIS with the Microsoft extensions (WHATWG `Shift_JIS`).
    Cp932,
    /// EUC-JP: read only, as a last resort (old CSA server logs use it); never written.
    EucJp,
}

impl TextEncoding {
    /// The command-line name (`utf-8`, `shift_jis`).
    pub const fn name(self) -> &'static str {
        match self {
            TextEncoding::Utf8 => "utf-8",
            TextEncoding::Cp932 => "shift_jis",
            TextEncoding::EucJp => "euc-jp",
        }
    }

    /// The encoding for a label such as `UTF-8`, `utf8`, `Shift_JIS`, `SJIS`, `CP932`,
    /// `windows-31j` (case-insensitive).
    pub fn from_label(label: &str) -> Option<TextEncoding> {
        let l = label.trim().to_ascii_lowercase().replace('_', "-");
        match l.as_str() {
            "utf-8" | "utf8" => Some(TextEncoding::Utf8),
            "shift-jis" | "sjis" | "shiftjis" | "cp932" | "windows-31j" | "ms932" | "x-sjis"
            | "ms-kanji" => Some(TextEncoding::Cp932),
            "euc-jp" | "eucjp" => Some(TextEncoding::EucJp),
            _ => None,
        }
    }
}

/// Decoded text and how it was decoded.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Decoded {
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
/// use kifu::formats::decode::{decode, TextEncoding};
/// let d = decode(b"\x82\xa0", None, None); // "あ" in CP932
/// assert_eq!(d.text, "あ");
/// assert_eq!(d.encoding, TextEncoding::Cp932);
/// ```
pub fn decode(bytes: &[u8], ext_hint: Option<Format>, forced: Option<TextEncoding>) -> Decoded {
    let plan = choose(bytes, ext_hint, forced);
    let body = plan.body;
    if plan.first == TextEncoding::Utf8 {
        if let Ok(s) = std::str::from_utf8(body) {
            return utf8_ok(s.to_owned());
        }
    }
    decode_planned(&plan)
}

/// Like [`decode`], but takes the bytes by value so that valid UTF-8 (the common case) becomes
/// the returned `String` without being copied.
pub fn decode_owned(
    mut bytes: Vec<u8>,
    ext_hint: Option<Format>,
    forced: Option<TextEncoding>,
) -> Decoded {
    let plan = choose(&bytes, ext_hint, forced);
    if plan.first == TextEncoding::Utf8 && std::str::from_utf8(plan.body).is_ok() {
        let skip = bytes.len() - plan.body.len();
        if skip > 0 {
            bytes.drain(..skip);
        }
        // Checked just above; the error arm cannot happen.
        return match String::from_utf8(bytes) {
            Ok(s) => utf8_ok(s),
            Err(e) => decode_utf8_lossy(e.as_bytes()),
        };
    }
    decode_planned(&plan)
}

/// Decoding once the first choice is known not to be clean UTF-8 (or to be CP932).
fn decode_planned(plan: &Plan<'_>) -> Decoded {
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
        TextEncoding::Cp932 | TextEncoding::EucJp => TextEncoding::Utf8,
    };
    let second = decode_with(plan.body, other);
    if second.diagnostics.is_empty() {
        return second;
    }
    let euc = decode_with(plan.body, TextEncoding::EucJp);
    if euc.diagnostics.is_empty() {
        return euc;
    }
    if plan.fallback == plan.first {
        first.unwrap_or_else(|| decode_with(plan.body, plan.first))
    } else {
        second
    }
}

fn decode_with(bytes: &[u8], enc: TextEncoding) -> Decoded {
    match enc {
        TextEncoding::Utf8 => match std::str::from_utf8(bytes) {
            Ok(s) => utf8_ok(s.to_owned()),
            Err(_) => decode_utf8_lossy(bytes),
        },
        TextEncoding::Cp932 => decode_legacy(bytes, TextEncoding::Cp932),
        TextEncoding::EucJp => decode_legacy(bytes, TextEncoding::EucJp),
    }
}

fn utf8_ok(text: String) -> Decoded {
    Decoded {
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
    let (body, bom) = match bytes.strip_prefix(UTF8_BOM) {
        Some(rest) => (rest, true),
        None => (bytes, false),
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
    if bom {
        return certain(TextEncoding::Utf8);
    }
    if let Some(enc) = declared_encoding(body) {
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
        let line = match memchr::memchr(b'\n', text) {
            Some(end) => {
                rest = text.get(end + 1..);
                text.get(..end).unwrap_or_default()
            }
            None => {
                rest = None;
                text
            }
        };
        let line = line.strip_suffix(b"\r").unwrap_or(line);
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

/// Tracks line and column (in characters) of the end of the decoded text as it grows.
struct Cursor {
    line: u32,
    column: u32,
    counted: usize,
}

impl Cursor {
    fn new() -> Cursor {
        Cursor {
            line: 1,
            column: 1,
            counted: 0,
        }
    }

    /// Advances over `text[self.counted..]` and returns the (line, column) of its end.
    fn advance(&mut self, text: &str) -> (u32, u32) {
        let new = text.get(self.counted..).unwrap_or("");
        for c in new.chars() {
            if c == '\n' {
                self.line = self.line.saturating_add(1);
                self.column = 1;
            } else {
                self.column = self.column.saturating_add(1);
            }
        }
        self.counted = text.len();
        (self.line, self.column)
    }
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
fn decode_utf8_lossy(mut bytes: &[u8]) -> Decoded {
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
    Decoded {
        text,
        encoding: TextEncoding::Utf8,
        diagnostics: finish_diags(diags, dropped, TextEncoding::Utf8),
    }
}

/// CP932 or EUC-JP with U+FFFD for each malformed sequence and a diagnostic per sequence.
fn decode_legacy(bytes: &[u8], enc: TextEncoding) -> Decoded {
    let encoding = match enc {
        TextEncoding::EucJp => EUC_JP,
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
    Decoded {
        text,
        encoding: enc,
        diagnostics: finish_diags(diags, dropped, enc),
    }
}

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
    }
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

/// The format of a file: by its extension when that is a known one and the content does not
/// plainly say otherwise, else by content. `None` when neither tells.
pub fn detect_format(ext: Option<&str>, text: &str) -> Option<Format> {
    let by_ext = ext.and_then(Format::from_extension);
    let by_content = sniff(text);
    match (by_ext, by_content) {
        (Some(e), None) => Some(e),
        (None, c) => c,
        (Some(e), Some(c)) => Some(match (e, c) {
            // KIF and KI2 content keep the encoding flavour of the extension.
            (Format::Kif | Format::Ki2, Format::Kif | Format::Kifu) => Format::Kif,
            (Format::Kif | Format::Ki2, Format::Ki2 | Format::Ki2u) => Format::Ki2,
            (Format::Kifu | Format::Ki2u, Format::Kif | Format::Kifu) => Format::Kifu,
            (Format::Kifu | Format::Ki2u, Format::Ki2 | Format::Ki2u) => Format::Ki2u,
            (e, c) if e == c => e,
            (_, c) => c,
        }),
    }
}

/// How many lines content sniffing looks at.
const SNIFF_LINES: usize = 400;

/// The format the content looks like, from strong signals only.
fn sniff(text: &str) -> Option<Format> {
    let t = text.trim_start_matches('\u{FEFF}').trim_start();
    if t.starts_with('{') {
        return t.contains("\"moves\"").then_some(Format::Jkf);
    }
    let mut kif = false;
    let mut ki2 = false;
    let mut kif_header = false;
    for line in t.lines().take(SNIFF_LINES) {
        let line = line.trim_end_matches('\r');
        if is_csa_signal(line) {
            return Some(Format::Csa);
        }
        if is_usi_signal(line) {
            return Some(Format::Usi);
        }
        if line.starts_with("手数----") || is_kif_move_line(line) {
            kif = true;
        } else if is_ki2_move_line(line) {
            ki2 = true;
        } else if is_kif_header_line(line) {
            kif_header = true;
        }
    }
    if kif {
        Some(Format::Kifu)
    } else if ki2 {
        Some(Format::Ki2u)
    } else if kif_header {
        Some(Format::Kifu)
    } else {
        None
    }
}

/// `key：value` with a non-ASCII key (the KIF header shape).
fn is_kif_header_line(line: &str) -> bool {
    match line.split_once('：') {
        Some((key, _)) => !key.is_empty() && !key.starts_with(|c: char| c.is_ascii()),
        None => false,
    }
}

fn is_csa_signal(line: &str) -> bool {
    let b = line.as_bytes();
    if matches!(line, "V1" | "V2" | "V2.1" | "V2.2" | "V3.0") || line.starts_with("'CSA encoding") {
        return true;
    }
    if line.starts_with("PI") || (b.len() >= 3 && b[0] == b'P' && (b'1'..=b'9').contains(&b[1])) {
        return b.len() == 2 || line.starts_with("PI") || matches!(b[2], b' ' | b'+' | b'-');
    }
    if line.starts_with("N+") || line.starts_with("N-") || line.starts_with("$EVENT:") {
        return true;
    }
    // A move: sign, four digits, two capitals.
    b.len() >= 7
        && matches!(b[0], b'+' | b'-')
        && b[1..5].iter().all(u8::is_ascii_digit)
        && b[5..7].iter().all(u8::is_ascii_uppercase)
}

fn is_usi_signal(line: &str) -> bool {
    let l = line.trim_start();
    if l.starts_with("position ")
        || l == "startpos"
        || l.starts_with("startpos ")
        || l.starts_with("sfen ")
    {
        return true;
    }
    // A bare SFEN: nine ranks, then the side.
    let mut f = l.split_ascii_whitespace();
    matches!(
        (f.next(), f.next()),
        (Some(board), Some("b" | "w")) if board.bytes().filter(|&b| b == b'/').count() == 8
    )
}

/// ` *[0-9]+ +` followed by a non-space: a KIF move line.
fn is_kif_move_line(line: &str) -> bool {
    let l = line.trim_start_matches(' ');
    let digits = l.bytes().take_while(u8::is_ascii_digit).count();
    if digits == 0 {
        return false;
    }
    let rest = &l[digits..];
    let after = rest.trim_start_matches([' ', '　']);
    after.len() < rest.len() && !after.is_empty() && !after.starts_with(|c: char| c.is_ascii())
}

/// A line starting with ▲/△ (or ☗☖▼▽) followed by a full-width digit or 同.
fn is_ki2_move_line(line: &str) -> bool {
    let l = line.trim_start_matches([' ', '　']);
    let mut it = l.chars();
    matches!(it.next(), Some('▲' | '△' | '☗' | '☖' | '▼' | '▽'))
        && matches!(it.next(), Some('１'..='９' | '同'))
}

#[cfg(test)]
mod tests {
    use super::*;

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

    #[test]
    fn encode_substitutes() {
        let (b, w) = encode("a\n☗７六歩", TextEncoding::Cp932);
        let (back, _, _) = SHIFT_JIS.decode(&b);
        assert_eq!(back, "a\n▲７六歩");
        assert_eq!(w.len(), 1);
        assert_eq!((w[0].line, w[0].column), (Some(2), Some(1)));
    }
}
