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
//! Layer: the top of the library with [`report`], whose writers it uses for its diagnostics:
//! above [`batch`], whose units it consumes and whose run it drives ([`run`]), and so above
//! [`formats`], [`validate`] and [`diag`](crate::diag). Nothing in the library uses it; the
//! command line does.

use std::io::{self, Write};

use crate::batch::{self, Input, Observer};
use crate::diag::{Code, Diagnostic};
use crate::formats::{self, Format, ParsedGame, WriteOptions};
use crate::report::{self, GameLine, Summary};
use crate::validate::{self, GameInfo, GameResult};

mod output;
mod plan;

pub use output::separate;
pub use plan::{Names, Plan, PlanError, Sink, destination};

use output::Output;

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
    pub report: report::Options,
}

/// One converted game: its bytes in the target's encoding, plus everything worth saying about
/// it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Converted {
    /// The game written in the target format and encoded for it.
    pub bytes: Vec<u8>,
    /// The validator's findings, then the writer's and the encoder's.
    pub diagnostics: Vec<Diagnostic>,
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
    let w = formats::write(target, &game.record, write_opts);
    let (bytes, lossy) = crate::formats::text::encode_for(target, &w.text);
    let mut diagnostics = r.diagnostics;
    diagnostics.extend(w.warnings);
    for mut d in lossy {
        // Where in the written text, not in the input the path names.
        if let (Some(l), Some(c)) = (d.line.take(), d.column.take()) {
            d.message = format!("{} (output line {l}, column {c})", d.message);
        }
        diagnostics.push(d);
    }
    Converted { bytes, diagnostics }
}

/// Converts every game of `inputs` and writes each where `plan` says: to `out` (standard
/// output) or to files. Diagnostics go to `err` (compiler style or JSON Lines, per game, in
/// input order), then (human style, not quiet) the line `converted G games from F files: E
/// errors, W warnings`. Tells `observer` of each unit done. Returns the counts; the error is
/// the first write to `out` or `err` that failed (a file that could not be written is an `io`
/// diagnostic instead).
pub fn run<O: Write, E: Write>(
    inputs: &[Input],
    batch_opts: &batch::Options,
    plan: &Plan,
    opts: &Options,
    out: &mut O,
    err: &mut E,
    observer: &mut dyn Observer,
) -> io::Result<Summary> {
    let target = opts.target;
    let json = opts.report.style == report::Style::Json;
    let quiet = opts.report.quiet;
    let sink = plan.sink();
    let guard = &plan.guard;
    let mut summary = Summary::default();
    let mut game_index = 0u64;
    let mut output = Output::default();
    let mut games_in_file = 0u64;
    let mut names = Names::new();
    let mut current_dest: Option<std::path::PathBuf> = None;
    let empty = GameResult::default();
    let res = batch::run(
        inputs,
        batch_opts,
        |unit| {
            let parsed = batch::parse_unit(unit);
            let games: Vec<Converted> = parsed
                .games
                .into_iter()
                .map(|mut g| convert_game(&mut g, target, &opts.validate, &opts.write))
                .collect();
            (games, parsed.diagnostics, unit.chunk == 0 && unit.last)
        },
        |unit, (games, file, whole)| {
            if unit.chunk == 0 {
                game_index = 0;
                games_in_file = 0;
                current_dest = None;
            }
            if unit.last {
                summary.files += 1;
            }
            let path = unit.source.path.as_str();
            let rel = unit.source.rel.as_deref();
            let report =
                |diags: &[Diagnostic], game: Option<u64>, err: &mut dyn Write| -> io::Result<()> {
                    if diags.is_empty() {
                        return Ok(());
                    }
                    if json {
                        GameLine {
                            path,
                            game,
                            format: unit.source.format.map(Format::name),
                            plies: 0,
                            info: &GameInfo::default(),
                            result: &empty,
                            diagnostics: diags,
                        }
                        .write(err)
                    } else {
                        let shown = match game {
                            Some(g) if !whole || g > 0 => format!("{path}#{g}"),
                            _ => path.to_owned(),
                        };
                        report::write_human(err, &shown, diags, quiet)
                    }
                };
            summary.count(&file);
            report(&file, None, err)?;
            let many = !whole || games.len() > 1;
            let n_games = games.len() as u64;
            for g in games {
                summary.games += 1;
                summary.count(&g.diagnostics);
                report(&g.diagnostics, Some(game_index), err)?;
                match sink {
                    Sink::Stdout => {
                        separate(out, target, games_in_file)?;
                        out.write_all(&g.bytes)?;
                    }
                    Sink::File(p) => {
                        if let Err(d) = output.append(p, guard, target, &g.bytes, games_in_file) {
                            summary.count(std::slice::from_ref(&d));
                            report(std::slice::from_ref(&d), Some(game_index), err)?;
                        }
                    }
                    Sink::Dir(dir) => {
                        let dest = if !target.one_game_per_file() && games_in_file > 0 {
                            current_dest
                                .clone()
                                .ok_or_else(|| Diagnostic::new(Code::Io, "no output for this file"))
                        } else {
                            names.next(dir, rel, target, many, game_index)
                        };
                        if let Ok(d) = &dest {
                            current_dest = Some(d.clone());
                        }
                        let res = dest.and_then(|d| {
                            if target.one_game_per_file() {
                                // Each game its own file.
                                output.finish()?;
                                output.append(&d, guard, target, &g.bytes, 0)?;
                                output.finish()
                            } else {
                                output.append(&d, guard, target, &g.bytes, games_in_file)
                            }
                        });
                        if let Err(d) = res {
                            summary.count(std::slice::from_ref(&d));
                            report(std::slice::from_ref(&d), Some(game_index), err)?;
                        }
                    }
                }
                game_index += 1;
                games_in_file += 1;
            }
            if unit.last
                && games_in_file > 1
                && target.one_game_per_file()
                && !matches!(sink, Sink::Dir(_))
            {
                let d = Diagnostic::new(
                    Code::Lossy,
                    format!(
                        "{games_in_file} games written one after another, but {} holds one game per file; use -o DIR for one file per game",
                        target.name()
                    ),
                );
                summary.count(std::slice::from_ref(&d));
                report(std::slice::from_ref(&d), None, err)?;
            }
            if unit.last && !matches!(sink, Sink::Stdout) {
                if let Err(d) = output.finish() {
                    summary.count(std::slice::from_ref(&d));
                    report(std::slice::from_ref(&d), None, err)?;
                }
            }
            observer.unit_done(n_games, unit.len(), unit.last);
            observer.flush(err)
        },
    );
    observer.finish();
    res?;
    if let Err(d) = output.finish() {
        summary.count(std::slice::from_ref(&d));
    }
    out.flush()?;
    if !quiet && !json {
        writeln!(
            err,
            "converted {} games from {} files: {} errors, {} warnings",
            summary.games, summary.files, summary.errors, summary.warnings
        )?;
    }
    err.flush()?;
    Ok(summary)
}

#[cfg(test)]
mod tests;
