//! Diagnostics: what the readers, the validator and the converter report about a record.
//!
//! The codes are the stable names of the command-line contract; never rename one.
//!
//! Layer: just above [`crate::core`] (it names the core's rule violations) and below
//! everything else: the record, the readers, the validator and the batch engine all report
//! through it, and it imports none of them.

use std::fmt;

use serde::Serialize;

use crate::core::Illegal;

/// How serious a diagnostic is. Any `Error` makes `kifu validate` exit with 1.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    /// Worth knowing; does not fail a run.
    Warning,
    /// The record is wrong.
    Error,
}

/// The stable diagnostic codes. `as_str` gives the name used in JSON output.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[non_exhaustive]
pub enum Code {
    /// A pawn dropped on a file that already holds an unpromoted pawn of the same side (二歩).
    Nifu,
    /// A pawn drop that gives immediate checkmate (打ち歩詰め).
    Uchifuzume,
    /// A piece dropped or moved without promotion where it could never move again.
    DeadPiece,
    /// A move that leaves or puts the mover's own king in check.
    SelfCheck,
    /// A promotion of a piece that cannot promote, outside the zone, or on a drop.
    BadPromotion,
    /// A move from a square without a piece of the side to move.
    NoPiece,
    /// The named piece is not the piece on the source square.
    PieceMismatch,
    /// A piece asked to move in a way its movement rules never allow.
    Unreachable,
    /// A ranging piece asked to jump over a piece.
    Blocked,
    /// A move onto a square holding one of the mover's own pieces.
    CaptureOwn,
    /// A drop onto an occupied square.
    DropOccupied,
    /// A drop of a piece the side does not hold.
    NotInHand,
    /// A move recorded for the side that is not to move.
    WrongTurn,
    /// A move recorded after the game was already over.
    MoveAfterEnd,
    /// Move text that more than one move fits.
    AmbiguousMove,
    /// Move text that no move fits.
    NoMatchingMove,
    /// The recorded result contradicts the board.
    ResultMismatch,
    /// The start position is impossible.
    BadPosition,
    /// A line that cannot be parsed.
    Syntax,
    /// Bytes that do not decode in the detected encoding.
    Encoding,
    /// KIF move numbers that are not consecutive.
    MoveNumber,
    /// Cumulative times that disagree with the per-move times.
    TimeMismatch,
    /// A move made after its side's time had run out, under the recorded time control.
    TimeExceeded,
    /// A record that states a time control or an entering-king declaration rule other than
    /// the one given for the run (`--time-control`, `--declaration`): the record's is used.
    RuleMismatch,
    /// An ending that no format defines (`%FOOBAR`); the result is unknown.
    UnknownEnding,
    /// An input with nothing to read: an empty or blank file, a directory without records.
    EmptyInput,
    /// Something the target format of a conversion cannot hold (and what was done instead).
    Lossy,
    /// An archive entry with a record's name that is not read: a symbolic or hard link (its
    /// target is read under its own name when the archive holds it).
    SkippedEntry,
    /// A file or archive entry that could not be read.
    Io,
    /// kifu failed on this input (a bug: it panicked); its games are not read, the run goes
    /// on with the others.
    Internal,
    /// A `convert` output not written: a file of that name exists (and `--force` was not given).
    OutputExists,
    /// A file whose extension names one format while its content is plainly another (a `.kif`
    /// holding a USI `position` line): it is read as its content says.
    FormatMismatch,
}

impl Code {
    /// Every code, in declaration order.
    pub const ALL: [Code; 32] = [
        Code::Nifu,
        Code::Uchifuzume,
        Code::DeadPiece,
        Code::SelfCheck,
        Code::BadPromotion,
        Code::NoPiece,
        Code::PieceMismatch,
        Code::Unreachable,
        Code::Blocked,
        Code::CaptureOwn,
        Code::DropOccupied,
        Code::NotInHand,
        Code::WrongTurn,
        Code::MoveAfterEnd,
        Code::AmbiguousMove,
        Code::NoMatchingMove,
        Code::ResultMismatch,
        Code::BadPosition,
        Code::Syntax,
        Code::Encoding,
        Code::MoveNumber,
        Code::TimeMismatch,
        Code::TimeExceeded,
        Code::RuleMismatch,
        Code::UnknownEnding,
        Code::EmptyInput,
        Code::Lossy,
        Code::SkippedEntry,
        Code::Io,
        Code::Internal,
        Code::OutputExists,
        Code::FormatMismatch,
    ];

    /// The stable name (`nifu`, `self-check`, ...).
    pub const fn as_str(self) -> &'static str {
        match self {
            Code::Nifu => "nifu",
            Code::Uchifuzume => "uchifuzume",
            Code::DeadPiece => "dead-piece",
            Code::SelfCheck => "self-check",
            Code::BadPromotion => "bad-promotion",
            Code::NoPiece => "no-piece",
            Code::PieceMismatch => "piece-mismatch",
            Code::Unreachable => "unreachable",
            Code::Blocked => "blocked",
            Code::CaptureOwn => "capture-own",
            Code::DropOccupied => "drop-occupied",
            Code::NotInHand => "not-in-hand",
            Code::WrongTurn => "wrong-turn",
            Code::MoveAfterEnd => "move-after-end",
            Code::AmbiguousMove => "ambiguous-move",
            Code::NoMatchingMove => "no-matching-move",
            Code::ResultMismatch => "result-mismatch",
            Code::BadPosition => "bad-position",
            Code::Syntax => "syntax",
            Code::Encoding => "encoding",
            Code::MoveNumber => "move-number",
            Code::TimeMismatch => "time-mismatch",
            Code::TimeExceeded => "time-exceeded",
            Code::RuleMismatch => "rule-mismatch",
            Code::UnknownEnding => "unknown-ending",
            Code::EmptyInput => "empty-input",
            Code::Lossy => "lossy",
            Code::SkippedEntry => "skipped-entry",
            Code::Io => "io",
            Code::Internal => "internal",
            Code::OutputExists => "output-exists",
            Code::FormatMismatch => "format-mismatch",
        }
    }

    /// The code with this name.
    pub fn from_name(s: &str) -> Option<Code> {
        Code::ALL.iter().copied().find(|c| c.as_str() == s)
    }

    /// The severity a diagnostic with this code has.
    pub const fn severity(self) -> Severity {
        match self {
            Code::MoveNumber
            | Code::TimeMismatch
            | Code::TimeExceeded
            | Code::RuleMismatch
            | Code::UnknownEnding
            | Code::EmptyInput
            | Code::Lossy
            | Code::SkippedEntry
            | Code::FormatMismatch => Severity::Warning,
            _ => Severity::Error,
        }
    }
}

impl fmt::Display for Code {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl Serialize for Code {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.as_str())
    }
}

/// A position in the decoded text: 1-based line and column (in characters). Line 0 means
/// "unknown". Defined here, below the record, so that diagnostics and records share it without
/// importing each other; [`crate::record::Span`] is the same type.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, PartialOrd, Ord)]
pub struct Span {
    /// 1-based line.
    pub line: u32,
    /// 1-based column in characters.
    pub column: u32,
}

impl Span {
    /// A span.
    pub const fn new(line: u32, column: u32) -> Span {
        Span { line, column }
    }
}

impl From<Illegal> for Code {
    /// The code that names a rule violation of the core.
    fn from(ill: Illegal) -> Code {
        match ill {
            Illegal::Nifu => Code::Nifu,
            Illegal::Uchifuzume => Code::Uchifuzume,
            Illegal::DeadPiece => Code::DeadPiece,
            Illegal::SelfCheck => Code::SelfCheck,
            Illegal::BadPromotion => Code::BadPromotion,
            Illegal::NoPiece => Code::NoPiece,
            Illegal::Unreachable => Code::Unreachable,
            Illegal::Blocked => Code::Blocked,
            Illegal::CaptureOwn => Code::CaptureOwn,
            Illegal::DropOccupied => Code::DropOccupied,
            Illegal::NotInHand => Code::NotInHand,
        }
    }
}

/// One finding about a record, with where it is.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Diagnostic {
    /// The stable code.
    pub code: Code,
    /// Error or warning.
    pub severity: Severity,
    /// A sentence for people.
    pub message: String,
    /// 1-based line in the decoded text of the input, when known.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub line: Option<u32>,
    /// 1-based column (in characters) in that line, when known.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub column: Option<u32>,
    /// 1-based ply of the move concerned, absent for header-level findings.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ply: Option<u32>,
    /// The move concerned, as USI text when it could be resolved, else as written.
    #[serde(rename = "move", skip_serializing_if = "Option::is_none")]
    pub mv: Option<String>,
    /// The move as written in the record (`▲７四歩打`, `+0074FU`), when the diagnostic is about
    /// a move; shown in the human form. Not part of the JSON form, whose `move` is [`Self::mv`].
    #[serde(skip)]
    pub written: Option<String>,
    /// A foul the record already scores (its ending gives the game to the other side, as
    /// `まで9手で後手の反則勝ち` after a 二歩 does): still an error (the move is illegal), but
    /// not one the record missed. In JSON, `"scored": true`, only then.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub scored: bool,
    /// For a finding in a variation (a commentary branch, not the game as played): the plies
    /// its line branches off at, outermost first (`[3]`: the variation that replaces ply 3 of
    /// the main line; `[3, 5]`: one at ply 5 inside it). In JSON `"variation"`, only then.
    #[serde(skip_serializing_if = "<[u32]>::is_empty")]
    pub variation: Box<[u32]>,
}

/// The most characters kept of a message or a move text: a diagnostic may quote its input, and
/// the input may be a 100 MB line.
pub const MAX_TEXT_CHARS: usize = 200;

/// `s` cut to [`MAX_TEXT_CHARS`] characters, with `…` where it was cut.
fn clip(mut s: String) -> String {
    if let Some((at, _)) = s.char_indices().nth(MAX_TEXT_CHARS) {
        s.truncate(at);
        s.push('…');
    }
    s
}

impl Diagnostic {
    /// Adds `by` to the line number, if it has one (for a finding in a piece of a longer
    /// text).
    pub fn shift_line(&mut self, by: u32) {
        if let Some(l) = self.line.as_mut() {
            *l = l.saturating_add(by);
        }
    }

    /// A diagnostic with the code's default severity and no location. A message longer than
    /// [`MAX_TEXT_CHARS`] characters is cut.
    pub fn new(code: Code, message: impl Into<String>) -> Diagnostic {
        Diagnostic {
            code,
            severity: code.severity(),
            message: clip(message.into()),
            line: None,
            column: None,
            ply: None,
            mv: None,
            written: None,
            scored: false,
            variation: Box::default(),
        }
    }

    /// Marks a finding about a move of the variation that branches off at `plies` (outermost
    /// first): the message says so, and [`Diagnostic::variation`] holds them.
    pub fn in_variation(&mut self, plies: &[u32]) {
        if !self.variation.is_empty() || plies.is_empty() {
            return;
        }
        let from: Vec<String> = plies.iter().map(u32::to_string).collect();
        let what = match from.as_slice() {
            [one] => format!(" (in the variation from ply {one})"),
            _ => format!(" (in a variation: from ply {})", from.join(", then ply ")),
        };
        self.message.push_str(&what);
        self.variation = plies.into();
    }

    /// Sets the line and column.
    pub fn at(mut self, span: Span) -> Diagnostic {
        if span.line > 0 {
            self.line = Some(span.line);
            self.column = Some(span.column.max(1));
        }
        self
    }

    /// Sets the ply.
    pub fn ply(mut self, ply: u32) -> Diagnostic {
        self.ply = Some(ply);
        self
    }

    /// Sets the move text (cut to [`MAX_TEXT_CHARS`] characters).
    pub fn with_move(mut self, mv: impl Into<String>) -> Diagnostic {
        self.mv = Some(clip(mv.into()));
        self
    }

    /// Sets the move as written in the record (kept whole, as the human form has always shown
    /// it).
    pub fn written(mut self, text: impl Into<String>) -> Diagnostic {
        self.written = Some(text.into());
        self
    }

    /// Whether this is an error.
    pub fn is_error(&self) -> bool {
        self.severity == Severity::Error
    }
}

/// The human form, as `kifu validate` prints it after the path:
/// `line:column: error[code]: message (ply N, move)`, each part only when known (no line: it
/// starts at the severity).
impl fmt::Display for Diagnostic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match (self.line, self.column) {
            (Some(l), Some(c)) => write!(f, "{l}:{c}: ")?,
            (Some(l), None) => write!(f, "{l}: ")?,
            _ => {}
        }
        let sev = match self.severity {
            Severity::Error => "error",
            Severity::Warning => "warning",
        };
        write!(f, "{sev}[{}]: {}", self.code, self.message)?;
        // The move as the record wrote it, else as USI.
        match (self.ply, self.written.as_deref().or(self.mv.as_deref())) {
            (Some(p), Some(m)) => write!(f, " (ply {p}, {m})"),
            (Some(p), None) => write!(f, " (ply {p})"),
            (None, Some(m)) => write!(f, " ({m})"),
            (None, None) => Ok(()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_violation_has_the_code_of_its_name() {
        for ill in Illegal::ALL {
            assert_eq!(
                Some(Code::from(ill)),
                Code::from_name(ill.as_str()),
                "{ill:?}"
            );
        }
    }

    #[test]
    fn long_texts_are_cut() {
        let d = Diagnostic::new(Code::Syntax, "あ".repeat(1000)).with_move("x".repeat(1000));
        assert_eq!(d.message.chars().count(), MAX_TEXT_CHARS + 1);
        assert!(d.message.ends_with('…'));
        assert_eq!(
            d.mv.as_deref().map(|m| m.chars().count()),
            Some(MAX_TEXT_CHARS + 1)
        );
        let short = Diagnostic::new(Code::Syntax, "short");
        assert_eq!(short.message, "short");
    }

    #[test]
    fn names_are_unique_and_round_trip() {
        let mut names: Vec<_> = Code::ALL.iter().map(|c| c.as_str()).collect();
        names.sort();
        names.dedup();
        assert_eq!(names.len(), Code::ALL.len());
        for c in Code::ALL {
            assert_eq!(Code::from_name(c.as_str()), Some(c));
        }
    }
}
