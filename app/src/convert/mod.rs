//! Conversion: read every game, validate it (which resolves its moves), write it in the target
//! format, and put it where the [`Plan`] says, reporting what went wrong per game.
//!
//! * [`plan`](Plan): where the outputs go (standard output, `-o FILE`, `-o DIR` mirroring the
//!   input tree), what they are named ([`destination`], [`Names`]: collisions, `name-N.ext` for
//!   the games of a multi-game file when the target holds one game per file), and the
//!   refusals (an archive entry named with `..` or an absolute path, a path through a
//!   symbolic link out of `-o DIR`, an output that would replace an input).
//! * output: each file written as a temporary file and renamed into place when complete;
//!   several games in one CSA or USI file, or on standard output, with
//!   [`formats::game_separator`] between them.
//!
//! Layer: the top of the library with [`commands`], whose writers it uses for its diagnostics:
//! above [`batch`], whose units it consumes and whose run it drives ([`run`]), and so above
//! [`formats`], [`validate`] and [`diag`](kifu::diag). Nothing in the library uses it; the
//! command line does.

use std::io::{self, Write};

use crate::batch::{self, Input, Observer};
use crate::commands::{self, Summary};
use kifu::diag::{Code, Diagnostic};
use kifu::formats::{self, Format, ParsedGame, WriteOptions};
use kifu::record::{Record, StartPosition};
use kifu::validate::{self, GameInfo, GameResult};

mod output;
mod plan;
mod run;

pub use output::separate;
pub use plan::{Names, Plan, PlanError, Sink, destination, input_names};

/// How to convert and what to report.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Options {
    /// The target format.
    pub target: Format,
    /// How to write it.
    pub write: WriteOptions,
    /// How to judge the games read.
    pub validate: validate::Options,
    /// How to write the diagnostics (to the error stream).
    pub report: commands::Options,
}

/// One converted game: its bytes in the target's encoding, plus everything worth saying about
/// it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Converted {
    /// The game written in the target format and encoded for it.
    pub bytes: Vec<u8>,
    /// The validator's findings, then the writer's and the encoder's.
    pub diagnostics: Vec<Diagnostic>,
    /// Plies of the main line read, as `validate` counts them.
    pub plies: u32,
    /// The recorded result, and what the board decides.
    pub result: GameResult,
    /// Who played, where and when.
    pub info: GameInfo,
    /// Whether nothing at all could be read from the game (see [`nothing_read`]): it is not
    /// written.
    pub unread: bool,
}

/// Validates a game read and writes it in `target`: the bytes, and what the validator, the
/// writer and the encoder found (a character the target's encoding lacks is located in the
/// written text, in the message, not at a line of the input).
pub fn convert_game(
    game: &mut ParsedGame,
    target: Format,
    validate_opts: &validate::Options,
    write_opts: &WriteOptions,
) -> Converted {
    let r = validate::validate_game(game, validate_opts);
    write_game(game, r, target, write_opts)
}

/// [`convert_game`] of a game already validated, `r` its report.
pub fn write_game(
    game: &ParsedGame,
    r: validate::Report,
    target: Format,
    write_opts: &WriteOptions,
) -> Converted {
    let unread = nothing_read(&game.record, &r.diagnostics);
    let w = formats::write(target, &game.record, write_opts);
    let (bytes, lossy) = kifu::formats::text::encode_for(target, &w.text);
    let mut diagnostics = r.diagnostics;
    if !unread {
        diagnostics.extend(w.warnings);
    }
    for mut d in lossy {
        // Where in the written text, not in the input the path names.
        if let (Some(l), Some(c)) = (d.line.take(), d.column.take()) {
            d.message = format!("{} (output line {l}, column {c})", d.message);
        }
        diagnostics.push(d);
    }
    Converted {
        bytes,
        diagnostics,
        plies: r.plies,
        result: r.result,
        info: r.info,
        unread,
    }
}

/// Whether nothing could be read from a game: its record is empty (no header, no move, no
/// comment, the even start position) and its reading gave an error or found nothing to read
/// (`empty-input`). Such a game is reported, not written: a text that is not a record gives
/// no output file. (A record that is empty and said so cleanly, `PI` and `+` in CSA, is
/// written.)
pub fn nothing_read(record: &Record, diagnostics: &[Diagnostic]) -> bool {
    let empty = record.header.entries.is_empty()
        && record.moves.is_empty()
        && record.start_comments.is_empty()
        && record.start_bookmark.is_none()
        && record.footer.is_none()
        && record.trailing_comments.is_empty()
        && record.start == StartPosition::default();
    empty
        && diagnostics
            .iter()
            .any(|d| d.is_error() || d.code == Code::EmptyInput)
}

/// Converts every game of `inputs` and writes each where `plan` says: to `out` (standard
/// output) or to files. Diagnostics go to `err`, per game in input order: compiler style, or
/// JSON Lines ([`commands::ConvertLine`]: one line per game, with its output, then the summary
/// with the counts of output files written and refused). In human style, not quiet, the last
/// line is `converted G games from F files to O files (R refused): E errors, W warnings` (without
/// `to ...` when the games go to standard output).
/// Tells `observer` of each unit done. Returns the counts; the error is the first write to
/// `out` or `err` that failed (a file that could not be written is a diagnostic instead).
pub fn run<O: Write, E: Write>(
    inputs: &[Input],
    batch_opts: &batch::Options,
    plan: &Plan,
    opts: &Options,
    out: &mut O,
    err: &mut E,
    observer: &mut dyn Observer,
) -> io::Result<Summary> {
    run::run(inputs, batch_opts, plan, opts, out, err, observer)
}

#[cfg(test)]
mod tests;
