//! Text: decoding bytes into the text every reader takes, encoding written text for a file,
//! and telling a record's format from its content.
//!
//! Every reader takes decoded text, so bytes are decoded once, before any parser, in this
//! order: an explicit (forced) encoding; a byte-order mark (UTF-8, or UTF-16 in either byte
//! order); a declaration in the first lines
//! (`#KIF version=2.0 encoding=UTF-8`, `'CSA encoding=SHIFT_JIS`); then strict UTF-8, falling
//! back to CP932 (Shift_JIS with the Microsoft extensions, which is what `encoding_rs::SHIFT_JIS`
//! implements). `.kif`/`.ki2` files default to CP932 but read as UTF-8 when they are valid
//! UTF-8; the other formats default to UTF-8.
//!
//! Bytes that do not decode never make the decoder fail: each run of them becomes an `encoding`
//! diagnostic with its line and column and a U+FFFD in the text, so parsing can go on.
//!
//! Decoding is in `decode.rs`, encoding for output in `encode.rs`, format detection in
//! `detect.rs`; [`read_bytes`](crate::formats::read_bytes) does all of a file's reading (decode,
//! detect, read) in one call.

mod decode;
mod detect;
mod encode;

pub use decode::utf16_bom;
pub use decode::{DecodedText, declared_encoding, decode, decode_in_place};
pub(crate) use decode::{cp932_body, decode_cp932};
pub(crate) use detect::{detect, kif_move_within};
// For the batch reader of `kifu-app`, which looks at the start of a file before reading it.
pub use detect::{detect_format, mismatch};
#[doc(hidden)]
pub use detect::{plainly_other, plainly_other_ascii};
pub use encode::{encode, encode_for};

/// A text encoding the crate reads and writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum TextEncoding {
    /// UTF-8 (a BOM is accepted on input, never written).
    Utf8,
    /// CP932: Shift_JIS with the Microsoft extensions (WHATWG `Shift_JIS`).
    Cp932,
    /// EUC-JP: read only, as a last resort (old CSA server logs use it); never written.
    EucJp,
    /// UTF-16, little-endian: read when the text starts with its BOM (`FF FE`).
    Utf16Le,
    /// UTF-16, big-endian: read when the text starts with its BOM (`FE FF`).
    Utf16Be,
}

impl TextEncoding {
    /// The command-line name (`utf-8`, `shift_jis`).
    pub const fn name(self) -> &'static str {
        match self {
            TextEncoding::Utf8 => "utf-8",
            TextEncoding::Cp932 => "shift_jis",
            TextEncoding::EucJp => "euc-jp",
            TextEncoding::Utf16Le => "utf-16le",
            TextEncoding::Utf16Be => "utf-16be",
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
            "utf-16le" | "utf16le" => Some(TextEncoding::Utf16Le),
            "utf-16be" | "utf16be" => Some(TextEncoding::Utf16Be),
            _ => None,
        }
    }
}

/// Tracks line and column (in characters) of the end of the decoded text as it grows. LF,
/// CR LF and a lone CR each end a line, as in every reader.
struct Cursor {
    line: u32,
    column: u32,
    counted: usize,
    /// The last character counted was a CR (an LF after it ends no other line).
    after_cr: bool,
}

impl Cursor {
    fn new() -> Cursor {
        Cursor {
            line: 1,
            column: 1,
            counted: 0,
            after_cr: false,
        }
    }

    /// Advances over `text[self.counted..]` and returns the (line, column) of its end.
    fn advance(&mut self, text: &str) -> (u32, u32) {
        let new = text.get(self.counted..).unwrap_or("");
        for c in new.chars() {
            if c == '\r' || (c == '\n' && !self.after_cr) {
                self.line = self.line.saturating_add(1);
                self.column = 1;
            } else if c != '\n' {
                self.column = self.column.saturating_add(1);
            }
            self.after_cr = c == '\r';
        }
        self.counted = text.len();
        (self.line, self.column)
    }
}
