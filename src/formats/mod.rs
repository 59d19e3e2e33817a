//! Record formats: read text into [`Record`]s and write records as text, plus text decoding
//! and format detection ([`text`]); [`read_bytes`] does decoding, detection and reading in one
//! call.
//!
//! Every reader has the signature `fn read(text: &str) -> Vec<ParsedGame>`: it takes decoded
//! text (one file or one chunk of a multi-game file), never checks legality, and reports a line
//! it cannot parse as a `syntax` diagnostic and goes on. Every writer has the signature
//! `fn write(record: &Record, opts: &WriteOptions) -> Written` and needs resolved moves (see
//! `validate::replay`).

use crate::diag::Diagnostic;
use crate::record::Record;

pub(crate) mod analysis;
pub(crate) mod board;
mod bytes;
pub mod csa;
pub mod diagram;
pub mod jkf;
pub mod kakinoki;
pub mod ki2;
pub mod kif;
// Line ends as every reader counts them; public for the batch reader of `kifu-app`, which
// cuts multi-game files between lines.
#[doc(hidden)]
pub mod lines;
pub mod text;
pub mod time_control;
pub mod usen;
pub mod usi;
pub mod visit;

pub use bytes::{Decoded, ReadOptions, read_bytes, read_decoded};
/// The former path of [`text`] (`formats::decode::decode` and the rest still work).
pub use text as decode;
pub use text::TextEncoding;

/// A record format, by its command-line name.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Format {
    /// Kakinoki KIF, written in CP932 (`.kif`).
    Kif,
    /// KIF in UTF-8 (`.kifu`).
    Kifu,
    /// KI2, written in CP932 (`.ki2`).
    Ki2,
    /// KI2 in UTF-8 (`.ki2u`).
    Ki2u,
    /// CSA standard record (`.csa`).
    Csa,
    /// USI `position` lines, one game per line (`.usi`, `.sfen`).
    Usi,
    /// JSON Kifu Format (`.jkf`, `.json`).
    Jkf,
    /// USEN, the compact URL form of tsshogi and ShogiHome, one game per line (`.usen`).
    Usen,
}

impl Format {
    /// Every format.
    pub const ALL: [Format; 8] = [
        Format::Kif,
        Format::Kifu,
        Format::Ki2,
        Format::Ki2u,
        Format::Csa,
        Format::Usi,
        Format::Jkf,
        Format::Usen,
    ];

    /// The command-line name.
    pub const fn name(self) -> &'static str {
        match self {
            Format::Kif => "kif",
            Format::Kifu => "kifu",
            Format::Ki2 => "ki2",
            Format::Ki2u => "ki2u",
            Format::Csa => "csa",
            Format::Usi => "usi",
            Format::Jkf => "jkf",
            Format::Usen => "usen",
        }
    }

    /// The format with this command-line name.
    pub fn from_name(s: &str) -> Option<Format> {
        Format::ALL.iter().copied().find(|f| f.name() == s)
    }

    /// The file extension written for this format (without the dot).
    pub const fn extension(self) -> &'static str {
        match self {
            Format::Jkf => "jkf",
            f => f.name(),
        }
    }

    /// The format for a file extension (case-insensitive), if it is a known one.
    pub fn from_extension(ext: &str) -> Option<Format> {
        Some(match ext.to_ascii_lowercase().as_str() {
            "kif" => Format::Kif,
            "kifu" => Format::Kifu,
            "ki2" => Format::Ki2,
            "ki2u" => Format::Ki2u,
            // `.csa1`: the one-line CSA of the 2chkifu collection, read by the CSA reader.
            "csa" | "csa1" => Format::Csa,
            "usi" | "sfen" => Format::Usi,
            "jkf" | "json" => Format::Jkf,
            "usen" => Format::Usen,
            _ => return None,
        })
    }

    /// Whether files of this format are written in CP932 by default.
    pub const fn writes_cp932(self) -> bool {
        matches!(self, Format::Kif | Format::Ki2)
    }

    /// Whether a file of this format holds one game (KIF, KI2, JKF) or may hold many (CSA, USI).
    pub const fn one_game_per_file(self) -> bool {
        !matches!(self, Format::Csa | Format::Usi | Format::Usen)
    }

    /// What a record written in this format keeps besides the moves (what a write-then-read
    /// round trip can be expected to give back).
    pub const fn holds(self) -> Holds {
        match self {
            Format::Kif | Format::Kifu | Format::Jkf => Holds {
                elapsed: true,
                total: true,
                comments: true,
                variations: true,
                ending: true,
            },
            Format::Ki2 | Format::Ki2u => Holds {
                elapsed: false,
                total: false,
                comments: true,
                variations: true,
                ending: true,
            },
            Format::Csa => Holds {
                elapsed: true,
                total: false,
                comments: true,
                variations: false,
                ending: true,
            },
            Format::Usi => Holds {
                elapsed: false,
                total: false,
                comments: false,
                variations: false,
                ending: false,
            },
            // Four endings only (resignation, loss on time, impasse, interruption).
            Format::Usen => Holds {
                elapsed: false,
                total: false,
                comments: false,
                variations: true,
                ending: false,
            },
        }
    }
}

/// What goes between two games written one after another in `format` (to standard output, or
/// into one CSA or USI file): CSA's `/` line, nothing for USI (a game is a line), else an
/// empty line.
pub const fn game_separator(format: Format) -> &'static [u8] {
    match format {
        Format::Csa => b"/\n",
        Format::Usi | Format::Usen => b"",
        _ => b"\n",
    }
}

/// What a format keeps of a record besides the main line's moves ([`Format::holds`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Holds {
    /// Per-move elapsed time (whole seconds).
    pub elapsed: bool,
    /// Cumulative time per move.
    pub total: bool,
    /// Comments on moves and before the first move.
    pub comments: bool,
    /// Variations.
    pub variations: bool,
    /// Specials (the ending of a line: resignation, interruption...).
    pub ending: bool,
}

/// One game read from text, with what the reader found wrong.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParsedGame {
    /// The record.
    pub record: Record,
    /// Syntax and similar diagnostics (no legality checks).
    pub diagnostics: Vec<Diagnostic>,
}

impl ParsedGame {
    /// Adds `by` to every line number of the game and of its diagnostics (for a game read
    /// from a piece of a longer text).
    pub fn shift_lines(&mut self, by: u32) {
        if by == 0 {
            return;
        }
        self.record.shift_lines(by);
        for d in &mut self.diagnostics {
            d.shift_line(by);
        }
    }
}

/// Options for writers.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct WriteOptions {
    /// CSA version to write: `false` for V2.2 (default), `true` for V3.0.
    pub csa_v3: bool,
    /// USI: end the `position` line with the game's ending (`resign`, `win`, `draw`,
    /// `rep_draw`...), a form only some programs read. By default (`false`) the line is plain
    /// USI, `position ... moves ...`, as every engine and library reads it, and the ending is
    /// a `lossy` warning.
    pub usi_endings: bool,
}

/// A written record and what the target could not hold.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Written {
    /// The text (UTF-8; encode it with [`text::encode_for`] for CP932 targets).
    pub text: String,
    /// `lossy` warnings: what was dropped or replaced, and why.
    pub warnings: Vec<Diagnostic>,
}

/// Reads text in `format`.
pub fn read(format: Format, text: &str) -> Vec<ParsedGame> {
    match format {
        Format::Kif | Format::Kifu => kif::read(text),
        Format::Ki2 | Format::Ki2u => ki2::read(text),
        Format::Csa => csa::read(text),
        Format::Usi => usi::read(text),
        Format::Jkf => jkf::read(text),
        Format::Usen => usen::read(text),
    }
}

/// Writes a record (with resolved moves) in `format`. What the format cannot hold is listed
/// in [`Written::warnings`]. Formats without a footer (CSA, USI, JKF) write the ending that the
/// record's KIF footer states, when the main line has none ([`Record::footer_ending`]).
pub fn write(format: Format, record: &Record, opts: &WriteOptions) -> Written {
    let footerless = matches!(
        format,
        Format::Csa | Format::Usi | Format::Jkf | Format::Usen
    );
    // A format without a footer writes the ending the KIF footer states as its own ending
    // (`まで64手で後手の勝ち` becomes `%TORYO`), or it would be lost without a word.
    let ended;
    let (record, unsaid) = match (footerless, record.footer_ending()) {
        (true, Some(special)) => {
            let mut r = record.clone();
            let span = r.footer.as_ref().map(|f| f.span).unwrap_or_default();
            r.moves.push(crate::record::MoveNode::new(
                crate::record::NodeKind::Special(special),
                span,
            ));
            ended = r;
            (&ended, None)
        }
        // A footer stating an ending after another number of moves than the line has.
        (true, None) if record.end().is_none() => {
            (record, record.footer.as_ref().filter(|f| f.kind.is_some()))
        }
        _ => (record, None),
    };
    let mut written = match format {
        Format::Kif | Format::Kifu => kif::write(record, opts),
        Format::Ki2 | Format::Ki2u => ki2::write(record, opts),
        Format::Csa => csa::write(record, opts),
        Format::Usi => usi::write(record, opts),
        Format::Jkf => jkf::write(record, opts),
        Format::Usen => usen::write(record, opts),
    };
    // The start's move number (SFEN `w - 2`): KIF and KI2 write it as `手数＝1`, USI in the
    // SFEN; CSA and JKF have no standard place for it.
    let number = match &record.start {
        crate::record::StartPosition::Setup(s) if s.move_number != 1 => Some(s.move_number),
        _ => None,
    };
    if let (Some(n), Format::Csa | Format::Jkf) = (number, format) {
        written.warnings.push(Diagnostic::new(
            crate::diag::Code::Lossy,
            format!(
                "{} has no place for the start position's move number {n} (the SFEN move \
                 number); the position is written without it",
                if format == Format::Csa { "CSA" } else { "JKF" }
            ),
        ));
    }
    if let Some(f) = unsaid {
        written.warnings.push(Diagnostic::new(
            crate::diag::Code::Lossy,
            format!(
                "{} has no footer; `{}` was dropped (it does not count the moves of the main \
                 line, so its ending was not written as the game's)",
                match format {
                    Format::Csa => "CSA",
                    Format::Usi => "USI",
                    Format::Usen => "USEN",
                    _ => "JKF",
                },
                f.text
            ),
        ));
    }
    written
}

/// Appends `n` in decimal, right-aligned in `width` characters filled with `fill` (as
/// `{n:>width$}` or `{n:0width$}`; a longer number is written whole).
pub(crate) fn push_num(out: &mut String, n: u64, width: usize, fill: char) {
    let mut digits = [0u8; 20];
    let mut i = digits.len();
    let mut rest = n;
    loop {
        i -= 1;
        if let Some(d) = digits.get_mut(i) {
            *d = b'0' + (rest % 10) as u8;
        }
        rest /= 10;
        if rest == 0 || i == 0 {
            break;
        }
    }
    let len = digits.len() - i;
    out.extend(std::iter::repeat_n(fill, width.saturating_sub(len)));
    for &d in digits.get(i..).unwrap_or_default() {
        out.push(char::from(d));
    }
}

/// Appends a square as CSA and KIF sources write it: file digit, rank digit (`76`).
pub(crate) fn push_square(out: &mut String, sq: crate::core::Square) {
    out.push(char::from(b'0' + sq.file()));
    out.push(char::from(b'0' + sq.rank()));
}

#[cfg(test)]
mod tests {
    use super::push_num;

    /// `push_num` writes what `format!` writes for `{n:>w$}` and `{n:0w$}`.
    #[test]
    fn numbers_are_padded_as_format_pads_them() {
        for n in [0u64, 7, 9, 10, 59, 99, 100, 1234, 99_999, u64::MAX] {
            for w in [0usize, 1, 2, 4, 25] {
                let mut s = String::new();
                push_num(&mut s, n, w, ' ');
                assert_eq!(s, format!("{n:>w$}"));
                let mut z = String::new();
                push_num(&mut z, n, w, '0');
                assert_eq!(z, format!("{n:0w$}"));
            }
        }
    }
}
