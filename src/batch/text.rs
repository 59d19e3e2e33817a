//! Text decoding and format sniffing for the batch layer.
//!
//! A thin seam over [`crate::formats::decode`]: the batch layer only needs "bytes in, text and
//! diagnostics out" and "which format is this", and keeps those two questions here.

use crate::diag::Diagnostic;
use crate::formats::Format;
use crate::formats::decode::TextEncoding;

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
    /// The encoding used (`None` for one that cannot be forced, such as EUC-JP).
    pub encoding: Option<Encoding>,
    /// Bytes that did not decode.
    pub diagnostics: Vec<Diagnostic>,
}

/// Decodes `bytes` with [`crate::formats::decode::decode`]: a forced encoding wins; otherwise
/// a BOM, a `#KIF ... encoding=` or `'CSA encoding=` line and the format's default encoding are
/// preferences that clean UTF-8 or CP932 can overrule (real files declare UTF-8 and are
/// Shift_JIS).
pub fn decode(bytes: &[u8], hint: Option<Format>, forced: Option<Encoding>) -> DecodedText {
    let forced = forced.map(|e| match e {
        Encoding::Utf8 => TextEncoding::Utf8,
        Encoding::ShiftJis => TextEncoding::Cp932,
    });
    let d = crate::formats::decode::decode(bytes, hint, forced);
    DecodedText {
        text: d.text,
        encoding: match d.encoding {
            TextEncoding::Utf8 => Some(Encoding::Utf8),
            TextEncoding::Cp932 => Some(Encoding::ShiftJis),
            TextEncoding::EucJp => None,
        },
        diagnostics: d.diagnostics,
    }
}

/// Guesses a format from decoded text (used when the extension says nothing).
pub fn sniff(text: &str) -> Option<Format> {
    crate::formats::decode::detect_format(None, text)
}

/// Encodes text for a file of `format`: CP932 for `kif`/`ki2`, UTF-8 otherwise; a character
/// CP932 lacks is replaced and reported as a `lossy` warning with its line and column.
pub fn encode_for(format: Format, text: &str) -> (Vec<u8>, Vec<Diagnostic>) {
    crate::formats::decode::encode_for(format, text)
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
        let d = decode("先手：a".as_bytes(), None, None);
        assert_eq!(d.encoding, Some(Encoding::Utf8));
        assert_eq!(d.text, "先手：a");
        let (sjis, _, _) = encoding_rs::SHIFT_JIS.encode("先手：a");
        let d = decode(&sjis, Some(Format::Kif), None);
        assert_eq!(d.encoding, Some(Encoding::ShiftJis));
        assert_eq!(d.text, "先手：a");
        assert!(d.diagnostics.is_empty());
    }

    #[test]
    fn a_wrong_utf8_declaration_is_overruled() {
        // Seen in real files: `#KIF ... encoding=UTF-8` on a Shift_JIS body.
        let (body, _, _) = encoding_rs::SHIFT_JIS.encode("先手：甲\n");
        let mut bytes = b"#KIF version=2.0 encoding=UTF-8\n".to_vec();
        bytes.extend_from_slice(&body);
        let d = decode(&bytes, Some(Format::Kif), None);
        assert_eq!(d.encoding, Some(Encoding::ShiftJis));
        assert!(d.text.contains("先手：甲"));
    }

    #[test]
    fn bad_utf8_forced_is_reported_with_position() {
        let d = decode(b"ok\nab\xff", None, Some(Encoding::Utf8));
        assert_eq!(d.diagnostics.len(), 1);
        assert_eq!(d.diagnostics[0].line, Some(2));
        assert_eq!(d.diagnostics[0].column, Some(3));
    }

    #[test]
    fn sniffs_formats() {
        assert_eq!(sniff("V2.2\nPI\n+\n+7776FU\n"), Some(Format::Csa));
        assert_eq!(sniff("startpos moves 7g7f\n"), Some(Format::Usi));
        assert_eq!(sniff("{\"header\":{},\"moves\":[]}"), Some(Format::Jkf));
        assert!(matches!(
            sniff("先手：a\n手数----指手--\n   1 ７六歩(77)\n"),
            Some(Format::Kif | Format::Kifu)
        ));
        assert!(matches!(
            sniff("▲７六歩 △３四歩\n"),
            Some(Format::Ki2 | Format::Ki2u)
        ));
    }
}
