//! Bytes to games in one call: decode the text, tell its format, read its games
//! ([`read_bytes`]), for the batch engine and for library users alike.

use super::text::{self, DecodedText, TextEncoding};
use super::{Format, ParsedGame};
use crate::diag::Diagnostic;

/// What [`read_bytes`] is told instead of finding out for itself. The default detects
/// everything.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct ReadOptions {
    /// Read the text as this format, without looking at it (`--input-format`). It also
    /// chooses the default encoding (CP932 for KIF and KI2), as [`ReadOptions::hint`] does.
    pub format: Option<Format>,
    /// The format the file name suggests ([`Format::from_extension`]): it chooses the default
    /// encoding, and is the format read unless the content plainly says otherwise (as in
    /// [`text::detect_format`]). Ignored when [`ReadOptions::format`] is set.
    pub hint: Option<Format>,
    /// Decode in this encoding instead of detecting it (`--encoding`).
    pub encoding: Option<TextEncoding>,
}

impl ReadOptions {
    /// Decodes `bytes` as [`read_bytes`] does ([`text::decode`] with these options).
    pub fn decode(&self, bytes: &[u8]) -> DecodedText {
        text::decode(bytes, self.format.or(self.hint), self.encoding)
    }

    /// What [`ReadOptions::decode`] gives, borrowed, when decoding changes nothing
    /// ([`text::decode_in_place`]).
    pub fn decode_in_place<'a>(&self, bytes: &'a [u8]) -> Option<(&'a str, TextEncoding)> {
        text::decode_in_place(bytes, self.format.or(self.hint), self.encoding)
    }

    /// The format [`read_bytes`] reads decoded `text` as: [`ReadOptions::format`] if set,
    /// else what the hint and the content say (`None` when neither tells).
    pub fn detect(&self, text: &str) -> Option<Format> {
        self.format.or_else(|| text::detect(self.hint, text))
    }
}

/// The games read from some bytes, and how they were read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Decoded {
    /// The encoding the bytes were decoded in.
    pub encoding: TextEncoding,
    /// The format read; `None` when it could not be told (then there are no games).
    pub format: Option<Format>,
    /// The games, in order. Each has its own syntax diagnostics; the first also has the
    /// `format-mismatch` warning, if any, and the `encoding` diagnostics of the whole text,
    /// before its own.
    pub games: Vec<ParsedGame>,
    /// `encoding` diagnostics (and the `format-mismatch` warning of text read as its content
    /// says rather than as [`ReadOptions::hint`] names) when there is no game to hold them (no
    /// format told, or no game found).
    pub diagnostics: Vec<Diagnostic>,
}

/// Reads bytes (a whole file, or whole games of a multi-game file) into games: decodes them
/// ([`text::decode`]), tells their format unless it is given ([`ReadOptions::detect`]) and
/// reads them ([`super::read`]). No legality checks (see `validate`).
///
/// ```
/// use kifu::formats::{Format, ReadOptions, read_bytes, text::TextEncoding};
///
/// // `+7776FU` and `-3334FU` in a CSA file, told by its content.
/// let d = read_bytes(b"V2.2\nPI\n+\n+7776FU\n-3334FU\n", &ReadOptions::default());
/// assert_eq!(d.format, Some(Format::Csa));
/// assert_eq!(d.encoding, TextEncoding::Utf8);
/// assert_eq!(d.games.len(), 1);
/// assert_eq!(d.games[0].record.plies(), 2);
///
/// // A file name's extension as a hint: `.kif` text defaults to CP932.
/// let opts = ReadOptions {
///     hint: Format::from_extension("kif"),
///     ..ReadOptions::default()
/// };
/// let d = read_bytes(b"\x90\xe6\x8e\xe8\x81\x46A\n", &opts); // `先手：A`
/// assert_eq!((d.format, d.encoding), (Some(Format::Kif), TextEncoding::Cp932));
/// ```
pub fn read_bytes(bytes: &[u8], opts: &ReadOptions) -> Decoded {
    // Text that needs no decoding is read where it lies.
    match opts.decode_in_place(bytes) {
        Some((text, encoding)) => read_text(text, encoding, Vec::new(), opts),
        None => read_decoded(opts.decode(bytes), opts),
    }
}

/// The rest of [`read_bytes`] once the bytes are decoded (for a caller that looks at the text
/// first).
pub fn read_decoded(decoded: DecodedText, opts: &ReadOptions) -> Decoded {
    read_text(&decoded.text, decoded.encoding, decoded.diagnostics, opts)
}

/// Reads decoded `text`; the decoder's `diagnostics` go with the first game.
fn read_text(
    text: &str,
    encoding: TextEncoding,
    mut diagnostics: Vec<Diagnostic>,
    opts: &ReadOptions,
) -> Decoded {
    let format = opts.detect(text);
    let mut games = match format {
        Some(format) => super::read(format, text),
        None => Vec::new(),
    };
    // Read as the content says, not as the file name: the `format-mismatch` warning first.
    if let (None, Some(named), Some(read)) = (opts.format, opts.hint, format)
        && let Some(d) = text::mismatch(named, read)
    {
        diagnostics.insert(0, d);
    }
    if !diagnostics.is_empty() {
        if let Some(first) = games.first_mut() {
            diagnostics.append(&mut first.diagnostics);
            first.diagnostics = diagnostics;
            diagnostics = Vec::new();
        }
    }
    Decoded {
        encoding,
        format,
        games,
        diagnostics,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diag::Code;

    fn forced(encoding: TextEncoding) -> ReadOptions {
        ReadOptions {
            encoding: Some(encoding),
            ..ReadOptions::default()
        }
    }

    #[test]
    fn decodes_utf8_and_cp932() {
        let d = ReadOptions::default().decode("先手：a".as_bytes());
        assert_eq!(d.encoding, TextEncoding::Utf8);
        assert_eq!(d.text, "先手：a");
        let (sjis, _, _) = encoding_rs::SHIFT_JIS.encode("先手：a");
        let kif = ReadOptions {
            format: Some(Format::Kif),
            ..ReadOptions::default()
        };
        let d = kif.decode(&sjis);
        assert_eq!(d.encoding, TextEncoding::Cp932);
        assert_eq!(d.text, "先手：a");
        assert!(d.diagnostics.is_empty());
    }

    #[test]
    fn a_wrong_utf8_declaration_is_overruled() {
        // Seen in real files: `#KIF ... encoding=UTF-8` on a Shift_JIS body.
        let (body, _, _) = encoding_rs::SHIFT_JIS.encode("先手：甲\n");
        let mut bytes = b"#KIF version=2.0 encoding=UTF-8\n".to_vec();
        bytes.extend_from_slice(&body);
        let d = read_bytes(&bytes, &ReadOptions::default());
        assert_eq!(d.encoding, TextEncoding::Cp932);
        assert_eq!(d.format, Some(Format::Kifu));
        assert_eq!(d.games[0].record.header.get("先手"), Some("甲"));
    }

    #[test]
    fn bad_bytes_go_to_the_first_game_or_stay_with_the_text() {
        let d = read_bytes(
            b"startpos moves 7g7f\nstartpos moves 2g\xff2f\n",
            &forced(TextEncoding::Utf8),
        );
        assert_eq!(d.format, Some(Format::Usi));
        assert_eq!(d.games.len(), 2);
        assert!(d.diagnostics.is_empty());
        let first = &d.games[0].diagnostics;
        assert_eq!(first[0].code, Code::Encoding);
        assert_eq!((first[0].line, first[0].column), (Some(2), Some(18)));
        let d = read_bytes(b"ok\nab\xff", &forced(TextEncoding::Utf8));
        assert_eq!(d.format, None);
        assert!(d.games.is_empty());
        assert_eq!(d.diagnostics.len(), 1);
        assert_eq!(d.diagnostics[0].line, Some(2));
        assert_eq!(d.diagnostics[0].column, Some(3));
    }

    #[test]
    fn formats_are_told_by_the_content_and_the_hint() {
        let detect = |text: &str| ReadOptions::default().detect(text);
        assert_eq!(detect("V2.2\nPI\n+\n+7776FU\n"), Some(Format::Csa));
        assert_eq!(detect("startpos moves 7g7f\n"), Some(Format::Usi));
        assert_eq!(detect("{\"header\":{},\"moves\":[]}"), Some(Format::Jkf));
        assert_eq!(
            detect("先手：a\n手数----指手--\n   1 ７六歩(77)\n"),
            Some(Format::Kifu)
        );
        assert_eq!(detect("▲７六歩 △３四歩\n"), Some(Format::Ki2u));
        assert_eq!(detect("hello\n"), None);
        let hinted = ReadOptions {
            hint: Some(Format::Ki2),
            ..ReadOptions::default()
        };
        assert_eq!(hinted.detect("▲７六歩 △３四歩\n"), Some(Format::Ki2));
        assert_eq!(hinted.detect("hello\n"), Some(Format::Ki2));
        assert_eq!(hinted.detect("+7776FU\n"), Some(Format::Csa));
        let forced = ReadOptions {
            format: Some(Format::Usi),
            hint: Some(Format::Ki2),
            ..ReadOptions::default()
        };
        assert_eq!(forced.detect("+7776FU\n"), Some(Format::Usi));
    }

    #[test]
    fn content_plainly_of_another_format_is_read_with_a_warning() {
        let kif = ReadOptions {
            hint: Some(Format::Kif),
            ..ReadOptions::default()
        };
        let d = read_bytes(b"position startpos moves 7g7f 3c3d\n", &kif);
        assert_eq!(d.format, Some(Format::Usi));
        assert_eq!(d.games[0].record.plies(), 2);
        let codes: Vec<_> = d.games[0].diagnostics.iter().map(|d| d.code).collect();
        assert_eq!(codes, [Code::FormatMismatch]);
        // Signals of two families: not plain, the extension stands (and no warning).
        let mixed = "手数----指手--\n   1 ７六歩(77)\n+7776FU\n";
        assert_eq!(kif.detect(mixed), Some(Format::Kif));
        let d = read_bytes(mixed.as_bytes(), &kif);
        assert!(
            d.games[0]
                .diagnostics
                .iter()
                .all(|d| d.code != Code::FormatMismatch)
        );
        // Given, the format is read without a word.
        let forced = ReadOptions {
            format: Some(Format::Kif),
            hint: Some(Format::Kif),
            ..ReadOptions::default()
        };
        let d = read_bytes(b"position startpos moves 7g7f\n", &forced);
        assert!(
            d.games[0]
                .diagnostics
                .iter()
                .all(|d| d.code != Code::FormatMismatch)
        );
    }
}
