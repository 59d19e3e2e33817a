//! `kifu validate`'s run: every game of the inputs validated on the batch engine's workers,
//! judged against the filter, and its report written in input order (human or JSON Lines),
//! then the summary. The writers it uses ([`write_human`], [`GameLine`], [`Summary`]) are the
//! module's, shared with `convert`.

use std::io::{self, Write};

use super::{GameLine, Options, Style, Summary, show, write_human, write_human_with};
use crate::batch::{self, Input, Observer};
use kifu::diag::Diagnostic;
use kifu::formats::Format;
use kifu::tables::{Dedup, Facts, Filter};
use kifu::validate;

/// Validates every game of `inputs` (see [`batch::validate_unit`]) and writes the reports to
/// `out` in input order, then the summary (unless quiet, in human style). Tells `observer`
/// of each unit done. Returns the counts; the error is the first write that failed.
pub fn validate<W: Write>(
    inputs: &[Input],
    batch_opts: &batch::Options,
    validate_opts: &validate::Options,
    opts: &Options,
    out: &mut W,
    observer: &mut dyn Observer,
) -> io::Result<Summary> {
    let mut reporter = Reporter::new(opts);
    let res = batch::run(
        inputs,
        batch_opts,
        |u| Reporter::work(u, validate_opts, opts),
        |unit, worked| {
            let games = worked.validated.games.len() as u64;
            reporter.emit(unit, worked, out)?;
            observer.unit_done(games, unit.len(), unit.last);
            observer.flush(out)
        },
    );
    observer.finish();
    res?;
    reporter.finish(out)
}

/// What [`Reporter::work`] makes of a unit, for [`Reporter::emit`].
#[derive(Debug)]
pub struct Worked {
    validated: batch::ValidatedUnit,
    keys: Option<Vec<Option<u64>>>,
    boards: Vec<Vec<Option<String>>>,
}

/// The report of [`validate`](fn@validate), unit by unit: for a caller that finds its units
/// itself (the page of `web/`, with [`batch::discover::produce_bytes`]) and must write what
/// `kifu validate` writes of them, byte for byte. Give it every unit in input order.
#[derive(Debug)]
pub struct Reporter<'a> {
    opts: &'a Options,
    summary: Summary,
    game_index: u64,
    dedup: Dedup,
}

impl<'a> Reporter<'a> {
    /// A report with nothing in it yet.
    pub fn new(opts: &'a Options) -> Reporter<'a> {
        Reporter {
            opts,
            summary: Summary::default(),
            game_index: 0,
            dedup: Dedup::new(),
        }
    }

    /// Validates a unit (the part that may run on any thread).
    pub fn work(unit: &batch::Unit, validate_opts: &validate::Options, opts: &Options) -> Worked {
        let (validated, keys) = validate_filtered(unit, validate_opts, &opts.filter);
        let boards = if opts.show_board && opts.style != Style::Json {
            show::unit_boards(unit, &validated, validate_opts)
        } else {
            Vec::new()
        };
        Worked {
            validated,
            keys,
            boards,
        }
    }

    /// The counts so far.
    pub fn summary(&self) -> &Summary {
        &self.summary
    }

    /// Writes the summary (unless quiet, in human style), flushes `out` and returns the counts.
    pub fn finish<W: Write + ?Sized>(self, out: &mut W) -> io::Result<Summary> {
        if self.opts.style == Style::Json {
            self.summary.write_json(out)?;
        } else if !self.opts.quiet {
            self.summary.write_human(&mut WriteRef(&mut *out))?;
        }
        out.flush()?;
        Ok(self.summary)
    }

    /// Writes the report of the next unit in input order, as [`Reporter::work`] made it.
    pub fn emit<W: Write + ?Sized>(
        &mut self,
        unit: &batch::Unit,
        worked: Worked,
        out: &mut W,
    ) -> io::Result<()> {
        let Worked {
            validated: mut v,
            keys,
            boards,
        } = worked;
        let opts = self.opts;
        let summary = &mut self.summary;
        let json = opts.style == Style::Json;
        let quiet = opts.quiet;
        let filter = &opts.filter;
        if unit.chunk == 0 {
            self.game_index = 0;
        }
        opts.apply(&mut v.diagnostics);
        for r in &mut v.games {
            opts.apply(&mut r.diagnostics);
        }
        if unit.last {
            summary.files += 1;
        }
        let path = unit.source.path.as_str();
        let format = v.format.map(Format::name);
        if !v.diagnostics.is_empty() {
            summary.count(&v.diagnostics);
            if json {
                let shown: Vec<Diagnostic> = v
                    .diagnostics
                    .iter()
                    .filter(|d| !quiet || d.is_error())
                    .cloned()
                    .collect();
                if !shown.is_empty() {
                    GameLine::unit(path, format, &shown).write(out)?;
                }
            } else {
                let out: &mut dyn Write = &mut WriteRef(out);
                write_human(out, path, &v.diagnostics, quiet)?;
            }
        }
        for (i, r) in v.games.iter().enumerate() {
            let game_index = self.game_index;
            self.game_index += 1;
            if let Some(keys) = &keys {
                let keep = keys.get(i).copied().flatten().is_some_and(|key| {
                    !(filter.clean && r.has_errors()) && (!filter.dedup || self.dedup.first(key))
                });
                if !keep {
                    continue;
                }
            }
            summary.games += 1;
            summary.plies += u64::from(r.plies);
            summary.count(&r.diagnostics);
            if json {
                // Quiet: errors only, and only the games that have one.
                let shown = shown(&r.diagnostics, quiet);
                let shown = &shown[..];
                if !(quiet && shown.is_empty()) {
                    GameLine {
                        path,
                        game: Some(game_index),
                        format,
                        plies: r.plies,
                        info: &r.info,
                        result: &r.result,
                        diagnostics: shown,
                    }
                    .write(out)?;
                }
            } else {
                let out: &mut dyn Write = &mut WriteRef(out);
                let multi = unit.chunk > 0 || v.games.len() > 1;
                let game = multi.then_some(game_index);
                match boards.get(i) {
                    Some(b) => show::write_human_boards(out, path, game, &r.diagnostics, b, quiet)?,
                    None => write_human_with(out, path, game, &r.diagnostics, quiet)?,
                }
            }
        }
        Ok(())
    }
}

/// A `&mut W` for a `W` that may be unsized, as a sized writer (`&mut dyn Write` wants one).
struct WriteRef<'w, W: ?Sized>(&'w mut W);

impl<W: Write + ?Sized> Write for WriteRef<'_, W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.0.write(buf)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.0.flush()
    }

    fn write_all(&mut self, buf: &[u8]) -> io::Result<()> {
        self.0.write_all(buf)
    }
}

/// Validates a unit's games and judges each against `filter`: the unit's reports and, when
/// the filter is not empty, each game's key if it passes the filter (`None` if not; `clean`
/// and `dedup` are left to the caller, which applies `--allow`/`--deny` first and sees the
/// games in order). The games are judged as [`batch::validate_unit`] judges them, with
/// their digests where the filter reads them.
pub(crate) fn validate_filtered(
    unit: &batch::Unit,
    validate_opts: &validate::Options,
    filter: &Filter,
) -> (batch::ValidatedUnit, Option<Vec<Option<u64>>>) {
    if filter.is_empty() {
        return (batch::validate_unit(unit, validate_opts), None);
    }
    let worker = Filter {
        clean: false,
        ..filter.clone()
    };
    let g = batch::gather_unit(unit, validate_opts, validate::Gather::Games);
    let mut keys = Vec::with_capacity(g.games.len());
    let games = g
        .games
        .into_iter()
        .map(|(r, game)| {
            let facts = Facts::of(&game, &r);
            keys.push(worker.admits(&facts).then_some(facts.key));
            r
        })
        .collect();
    let v = batch::ValidatedUnit {
        format: g.format,
        encoding: g.encoding,
        games,
        diagnostics: g.diagnostics,
        as_read: g.as_read,
    };
    (v, Some(keys))
}

/// The diagnostics a report shows: all of them, or with `quiet` the errors alone.
pub(crate) fn shown(diagnostics: &[Diagnostic], quiet: bool) -> std::borrow::Cow<'_, [Diagnostic]> {
    if quiet {
        diagnostics
            .iter()
            .filter(|d| d.is_error())
            .cloned()
            .collect()
    } else {
        std::borrow::Cow::Borrowed(diagnostics)
    }
}
