//! Validate reports, written for people (compiler style: `path:line:col: error[code]: message
//! (ply N, move)`) and for machines (JSON Lines: one object per game, then a `summary` object),
//! and the counts behind the summary line and the exit code.
//!
//! Layer: above [`batch`](crate::batch), beside [`convert`](crate::convert) (which uses it for
//! its diagnostics). Each command's run has its file: [`validate`](fn@validate) (`validation`)
//! drives a `batch::run` and writes what each unit gives, in input order; the writers themselves ([`write_human`], [`GameLine`], [`Summary`])
//! need only [`diag`](kifu::diag) and [`validate`](mod@kifu::validate). Nothing below uses
//! this module. [`stats`](fn@stats) drives the statistics job the same way; the statistics
//! report has its own writers, in [`stats`](mod@kifu::stats). [`find`] is the search job
//! (positions and runs of moves); [`show`] finds one game's position and draws it with
//! [`formats::diagram`](kifu::formats::diagram), and gives `validate --show-board` its boards.

use std::collections::BTreeMap;
use std::io::{self, Write};

use serde::Serialize;

use kifu::diag::{Code, Diagnostic, Severity};
use kifu::tables::Filter;
use kifu::validate::{GameInfo, GameResult};

pub mod find;
pub mod show;
mod statistics;
mod validation;
// The `tables` job writes CSV, JSON Lines and Parquet, which need the `parquet` feature.
#[cfg(feature = "parquet")]
mod tables;

pub use statistics::stats;
#[cfg(feature = "parquet")]
pub use tables::{Destination, Partition, TableFormat, TablesOptions, table_batches, tables};
pub(crate) use validation::shown;
pub use validation::{Reporter, Worked, validate};

/// How reports are written.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Style {
    /// Compiler-style lines, then a summary line.
    #[default]
    Human,
    /// JSON Lines: a [`GameLine`] per game (or unreadable file), then `{"summary": ...}`.
    Json,
}

/// What to write.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Options {
    /// Human or JSON Lines.
    pub style: Style,
    /// Errors only: in human style without the summary line; in JSON the lines of games
    /// with an error, with their errors, then the summary.
    pub quiet: bool,
    /// Severities the user gives codes instead of their own (`--allow CODE`, `--deny CODE`):
    /// applied to every diagnostic before it is counted or written; a later pair wins.
    pub severities: BTreeMap<Code, Severity>,
    /// The games reported (`validate`) or converted (`convert`); the others are read and
    /// left out of the report and the counts (their game indexes stay what they are in
    /// their files).
    pub filter: Filter,
    /// Human style: under each error about a move of a main line, the board diagram (BOD) of
    /// the position before that move (`validate --show-board`).
    pub show_board: bool,
}

impl Options {
    /// The diagnostics with the user's severities.
    fn apply(&self, diagnostics: &mut [Diagnostic]) {
        if self.severities.is_empty() {
            return;
        }
        for d in diagnostics {
            if let Some(&s) = self.severities.get(&d.code) {
                d.severity = s;
            }
        }
    }
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}

/// Counts for the summary line and the exit code.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Summary {
    /// Files (and archive entries) read.
    pub files: u64,
    /// Games read.
    pub games: u64,
    /// Plies of the main lines read.
    pub plies: u64,
    /// Error diagnostics.
    pub errors: u64,
    /// Warning diagnostics.
    pub warnings: u64,
    /// Diagnostics by code name.
    pub by_code: BTreeMap<&'static str, u64>,
    /// Fouls that their record scores (a foul loss it states for the side that made it), of
    /// the errors counted: an organiser's "scored", against the rest, "missed". In JSON
    /// `scored_fouls`, only when there are some.
    #[serde(skip_serializing_if = "is_zero")]
    pub scored_fouls: u64,
    /// Whether some input could not be read (an `io` diagnostic).
    #[serde(skip)]
    pub unreadable: bool,
    /// The output files: written, refused and failed (keys `outputs_written`,
    /// `outputs_refused`, `outputs_failed`; in `convert`'s summary, absent from the others).
    #[serde(flatten)]
    pub outputs: Option<Outputs>,
}

/// How many output files a run wrote, refused and failed to write (`convert`, and the files of
/// `games` and `positions`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct Outputs {
    /// Files renamed into place (standard output is not counted).
    #[serde(rename = "outputs_written")]
    pub written: u64,
    /// Files not written: one exists (`output-exists`), is an input, or lies out of bounds.
    #[serde(rename = "outputs_refused")]
    pub refused: u64,
    /// Files not written because writing failed (a full disk, an I/O error; an `io`
    /// diagnostic each): nothing is left under their names, and a file there is kept.
    #[serde(rename = "outputs_failed")]
    pub failed: u64,
}

impl Summary {
    /// Counts diagnostics.
    pub fn count(&mut self, diagnostics: &[Diagnostic]) {
        for d in diagnostics {
            match d.severity {
                Severity::Error => self.errors += 1,
                Severity::Warning => self.warnings += 1,
            }
            *self.by_code.entry(d.code.as_str()).or_default() += 1;
            if d.scored {
                self.scored_fouls += 1;
            }
            if matches!(d.code, Code::Io | Code::Internal) {
                self.unreadable = true;
            }
        }
    }

    /// The exit code of the command line: 2 when an input could not be read (or kifu failed on
    /// one: `internal`), else 1 when there
    /// was an error, else 0.
    pub fn exit_code(&self) -> u8 {
        if self.unreadable {
            2
        } else if self.errors > 0 {
            1
        } else {
            0
        }
    }

    /// Writes the human summary line of `validate`: `F files, G games, P plies: E errors, W
    /// warnings (code: n, ...)`.
    pub fn write_human(&self, out: &mut dyn Write) -> io::Result<()> {
        let codes: Vec<String> = self
            .by_code
            .iter()
            .map(|(c, n)| format!("{c}: {n}"))
            .collect();
        let scored = match self.scored_fouls {
            0 => String::new(),
            1 => "; 1 foul already scored by its record".to_owned(),
            n => format!("; {n} fouls already scored by their records"),
        };
        writeln!(
            out,
            "{} files, {} games, {} plies: {} errors, {} warnings{}{scored}",
            self.files,
            self.games,
            self.plies,
            self.errors,
            self.warnings,
            if codes.is_empty() {
                String::new()
            } else {
                format!(" ({})", codes.join(", "))
            }
        )
    }

    /// Writes the JSON Lines summary object, `{"summary": {...}}`, and a newline.
    pub fn write_json<W: Write + ?Sized>(&self, out: &mut W) -> io::Result<()> {
        #[derive(Serialize)]
        struct Line<'a> {
            summary: &'a Summary,
        }
        write_json_line(out, &Line { summary: self })
    }
}

/// The JSON Lines object for one game (or an unreadable file, with `game: null`).
#[derive(Debug, Clone, Serialize)]
pub struct GameLine<'a> {
    /// The path as shown to users.
    pub path: &'a str,
    /// The game's index within its file; `None` for findings about the file as a whole.
    pub game: Option<u64>,
    /// The format read.
    pub format: Option<&'static str>,
    /// Plies of the main line.
    pub plies: u32,
    /// The players, event and date, where recorded (keys left out when not).
    #[serde(flatten)]
    pub info: &'a GameInfo,
    /// The recorded result.
    pub result: &'a GameResult,
    /// The findings.
    pub diagnostics: &'a [Diagnostic],
}

/// No players, no event, no date: a unit's findings have none.
pub(crate) const NO_INFO: GameInfo = GameInfo {
    black: None,
    white: None,
    event: None,
    date: None,
};

/// No recorded result: a unit's findings have none.
pub(crate) const NO_RESULT: GameResult = GameResult {
    recorded: None,
    winner: None,
    by_board: None,
};

impl<'a> GameLine<'a> {
    /// The object for findings about a file (or a unit of it) as a whole: `game: null`, no
    /// plies, no players, no result.
    pub fn unit(
        path: &'a str,
        format: Option<&'static str>,
        diagnostics: &'a [Diagnostic],
    ) -> GameLine<'a> {
        GameLine {
            path,
            game: None,
            format,
            plies: 0,
            info: &NO_INFO,
            result: &NO_RESULT,
            diagnostics,
        }
    }

    /// Writes the object and a newline.
    pub fn write<W: Write + ?Sized>(&self, out: &mut W) -> io::Result<()> {
        write_json_line(out, self)
    }
}

/// The JSON Lines object of `convert` for one game (or a finding about a whole file): the
/// [`GameLine`] of `validate` and where the game was written (`null` when it was not).
#[derive(Debug, Clone, Serialize)]
pub struct ConvertLine<'a> {
    /// What `validate` says of the game.
    #[serde(flatten)]
    pub game: GameLine<'a>,
    /// The output file (`-` for standard output); `None` when the game was not written.
    pub output: Option<&'a str>,
}

impl ConvertLine<'_> {
    /// Writes the object and a newline.
    pub fn write<W: Write + ?Sized>(&self, out: &mut W) -> io::Result<()> {
        write_json_line(out, self)
    }
}

/// Writes `value` as JSON and a newline.
fn write_json_line<W: Write + ?Sized, T: Serialize>(out: &mut W, value: &T) -> io::Result<()> {
    serde_json::to_writer(&mut *out, value).map_err(io::Error::from)?;
    out.write_all(b"\n")
}

/// Writes diagnostics compiler-style: `path:line:col: error[code]: message (ply N, move)`
/// (the [`Display`](std::fmt::Display) form of a [`Diagnostic`] after the path, which shows
/// the move as the record wrote it); `quiet` leaves out warnings.
pub fn write_human(
    out: &mut dyn Write,
    path: &str,
    diagnostics: &[Diagnostic],
    quiet: bool,
) -> io::Result<()> {
    write_human_with(out, path, None, diagnostics, quiet)
}

/// Like [`write_human`], for game `game` of a multi-game file: a finding without a line is
/// shown `path#game`, one with a line ends with ` (game N)`, so that `kifu show FILE:N` can be
/// typed from it while `path:line:col` stays what editors jump to.
pub fn write_human_with(
    out: &mut dyn Write,
    path: &str,
    game: Option<u64>,
    diagnostics: &[Diagnostic],
    quiet: bool,
) -> io::Result<()> {
    for d in diagnostics {
        if quiet && !d.is_error() {
            continue;
        }
        match (d.line.is_some(), game) {
            (true, Some(g)) => writeln!(out, "{path}:{d} (game {g})")?,
            (true, None) => writeln!(out, "{path}:{d}")?,
            (false, Some(g)) => writeln!(out, "{path}#{g}: {d}")?,
            (false, None) => writeln!(out, "{path}: {d}")?,
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn human_lines_show_the_written_move_and_the_location_known() {
        let d = Diagnostic::new(Code::Nifu, "two pawns")
            .ply(7)
            .with_move("P*5e");
        let mut at = d.clone().written("５五歩打");
        at.line = Some(12);
        at.column = Some(3);
        let mut line_only = Diagnostic::new(Code::Syntax, "bad line");
        line_only.line = Some(4);
        let warning = Diagnostic::new(Code::Lossy, "dropped");
        let mut out = Vec::new();
        write_human(
            &mut out,
            "a.kif",
            &[d, at, line_only, warning.clone()],
            false,
        )
        .expect("write");
        assert_eq!(
            String::from_utf8(out).expect("utf-8"),
            "a.kif: error[nifu]: two pawns (ply 7, P*5e)\n\
             a.kif:12:3: error[nifu]: two pawns (ply 7, ５五歩打)\n\
             a.kif:4: error[syntax]: bad line\n\
             a.kif: warning[lossy]: dropped\n"
        );
        let mut quiet = Vec::new();
        write_human(&mut quiet, "a.kif", &[warning], true).expect("write");
        assert!(quiet.is_empty());
    }

    #[test]
    fn the_exit_code_follows_the_worst_finding() {
        let mut s = Summary::default();
        assert_eq!(s.exit_code(), 0);
        s.count(&[Diagnostic::new(Code::Lossy, "w")]);
        assert_eq!(s.exit_code(), 0);
        s.count(&[Diagnostic::new(Code::Nifu, "e")]);
        assert_eq!(s.exit_code(), 1);
        s.count(&[Diagnostic::new(Code::Io, "unreadable")]);
        assert_eq!(s.exit_code(), 2);
        let mut out = Vec::new();
        s.write_human(&mut out).expect("write");
        assert_eq!(
            String::from_utf8(out).expect("utf-8"),
            "0 files, 0 games, 0 plies: 2 errors, 1 warnings (io: 1, lossy: 1, nifu: 1)\n"
        );
    }
}
