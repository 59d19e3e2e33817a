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

    /// The bytes of a file to read as KIF in CP932 without decoding them, and the format
    /// ([`Format::Kif`] or [`Format::Kifu`]) they are read as then, for a caller that has
    /// found [`ReadOptions::decode_in_place`] to give nothing: when decoding would choose CP932
    /// for bytes that decode cleanly in it ([`text::decode`]), and the format is told as KIF
    /// ([`ReadOptions::format`], or the hint when the lines down to the first move line
    /// decode cleanly and show a KIF move, so that the content would not tell another format).
    pub fn kif_cp932<'a>(&self, bytes: &'a [u8]) -> Option<(&'a [u8], Format)> {
        let format = match self.format.or(self.hint)? {
            f @ (Format::Kif | Format::Kifu) => f,
            _ => return None,
        };
        let body = text::cp932_body(bytes, self.format.or(self.hint), self.encoding)?;
        if self.format.is_none() {
            let end = super::kakinoki::cp932_first_move_end(body)?;
            let head = text::decode_cp932(body.get(..end)?);
            if !head.diagnostics.is_empty() || !text::kif_move_within(&head.text) {
                return None;
            }
        }
        Some((body, format))
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

/// Reads decoded `text`; each of the decoder's `diagnostics` goes with the game whose text
/// holds its line (see [`place_decoder_findings`]).
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
    // Read as the content says, not as the file name: the `format-mismatch` warning first
    // (it has no line: it goes with the first game).
    if let (None, Some(named), Some(read)) = (opts.format, opts.hint, format)
        && let Some(d) = text::mismatch(named, read)
    {
        diagnostics.insert(0, d);
    }
    let diagnostics = if diagnostics.is_empty() {
        diagnostics
    } else {
        let starts = game_starts(format, text, &games);
        place_decoder_findings(diagnostics, &mut games, &starts)
    };
    Decoded {
        encoding,
        format,
        games,
        diagnostics,
    }
}

/// The line each game's text begins on (0: unknown). In CSA, the line after the `/` before
/// it (where its position lines and comments, which carry no line, begin), when the
/// separators cut the text into as many games as were read; else, and in other formats, the
/// first line the record's spans or the game's own findings know.
fn game_starts(format: Option<Format>, text: &str, games: &[ParsedGame]) -> Vec<u32> {
    if format == Some(Format::Csa) && games.len() > 1 {
        let mut starts = Vec::with_capacity(games.len());
        let mut start = 1u32;
        let mut blank = true;
        for (no, line) in super::lines::numbered(text) {
            if super::csa::is_separator(line.as_bytes()) {
                if !blank {
                    starts.push(start);
                }
                start = no.saturating_add(1);
                blank = true;
            } else if !line.trim().is_empty() {
                blank = false;
            }
        }
        if !blank {
            starts.push(start);
        }
        if starts.len() == games.len() {
            return starts;
        }
    }
    games
        .iter()
        .map(|g| {
            let own = g.diagnostics.iter().filter_map(|d| d.line);
            own.chain([g.record.first_line()])
                .filter(|&l| l > 0)
                .min()
                .unwrap_or(0)
        })
        .collect()
}

/// Hands the decoder's findings to the games: each goes to the last game that begins (at
/// `starts`) at or before its line (the first game when it has no line or comes before every
/// game), ahead of the game's own diagnostics, so that a bad byte in the fifth game of a
/// multi-game file is reported on the fifth game, whether the file was read whole or in
/// chunks. With no game, the findings are returned, for the file.
fn place_decoder_findings(
    findings: Vec<Diagnostic>,
    games: &mut [ParsedGame],
    starts: &[u32],
) -> Vec<Diagnostic> {
    if games.is_empty() {
        return findings;
    }
    let mut placed: Vec<Vec<Diagnostic>> = vec![Vec::new(); games.len()];
    for d in findings {
        let line = d.line.unwrap_or(0);
        let at = starts
            .iter()
            .rposition(|&s| s > 0 && s <= line)
            .unwrap_or(0);
        placed[at].push(d);
    }
    for (game, mut mine) in games.iter_mut().zip(placed) {
        if !mine.is_empty() {
            mine.append(&mut game.diagnostics);
            game.diagnostics = mine;
        }
    }
    Vec::new()
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
    fn with_no_clean_encoding_the_fewest_bad_bytes_win() {
        // CP932 names and one byte no encoding decodes, in a `.csa` (UTF-8 by default):
        // read as CP932 with one finding, not as UTF-8 with one per kanji.
        let (names, _, _) = encoding_rs::SHIFT_JIS.encode("N+先手名人\nN-後手\n");
        let mut bytes = b"V2.2\n".to_vec();
        bytes.extend_from_slice(&names);
        bytes.extend_from_slice(b"'\xFF\nPI\n+\n+7776FU\n");
        let opts = ReadOptions {
            hint: Some(Format::Csa),
            ..ReadOptions::default()
        };
        let d = read_bytes(&bytes, &opts);
        assert_eq!(d.encoding, TextEncoding::Cp932);
        let game = &d.games[0];
        assert_eq!(game.record.header.get("先手"), Some("先手名人"));
        let bad: Vec<_> = game
            .diagnostics
            .iter()
            .filter(|d| d.code == Code::Encoding)
            .collect();
        assert_eq!(bad.len(), 1, "{bad:?}");
        assert_eq!(bad[0].line, Some(4));
    }

    #[test]
    fn decoder_findings_go_to_the_game_that_holds_them() {
        // Three CSA games; a bad byte in the comment of the third.
        let text = b"PI\n+\n+7776FU\n/\nPI\n+\n+2726FU\n/\nPI\n+\n'\xFF\n+5756FU\n";
        let d = read_bytes(text, &ReadOptions::default());
        assert_eq!(d.games.len(), 3);
        let with: Vec<usize> = (0..3)
            .filter(|&i| {
                d.games[i]
                    .diagnostics
                    .iter()
                    .any(|x| x.code == Code::Encoding)
            })
            .collect();
        assert_eq!(with, [2]);
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
    fn bad_bytes_go_to_their_game_or_stay_with_the_text() {
        let d = read_bytes(
            b"startpos moves 7g7f\nstartpos moves 2g\xff2f\n",
            &forced(TextEncoding::Utf8),
        );
        assert_eq!(d.format, Some(Format::Usi));
        assert_eq!(d.games.len(), 2);
        assert!(d.diagnostics.is_empty());
        assert!(d.games[0].diagnostics.is_empty());
        // The second game has no move read, only its syntax finding, which tells its line.
        let second = &d.games[1].diagnostics;
        assert_eq!(second[0].code, Code::Encoding);
        assert_eq!((second[0].line, second[0].column), (Some(2), Some(18)));
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
