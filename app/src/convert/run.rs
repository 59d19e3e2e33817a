//! The run: every unit read, every game converted and put where the plan says, and one report
//! per game (and per finding about a whole file), in input order.

use std::io::{self, Write};
use std::path::{Path, PathBuf};

use super::output::Output;
use super::plan::{Names, Plan, Sink, input_names};
use super::{Converted, Options, convert_game, separate, write_game};
use crate::batch::{self, Input, Observer, Unit};
use crate::commands::{self, ConvertLine, GameLine, Outputs, Summary};
use kifu::diag::{Code, Diagnostic};
use kifu::formats::Format;
use kifu::tables::{Dedup, Facts};
use kifu::validate::{self, GameInfo, GameResult};

/// What is written of the run so far, and where the current input's games go.
struct State<'p> {
    plan: &'p Plan,
    target: Format,
    json: bool,
    quiet: bool,
    summary: Summary,
    output: Output,
    names: Names,
    /// The game's index within its file.
    game_index: u64,
    /// Games of the current file met so far (written or not).
    games_in_file: u64,
    /// The output of the current file, for a target that holds many games per file.
    current_dest: Option<PathBuf>,
}

/// One line of the report: a game (`Some(index)`), or a finding about the whole file.
struct Line<'a> {
    path: &'a str,
    whole: bool,
    format: Option<&'static str>,
    game: Option<u64>,
    plies: u32,
    info: &'a GameInfo,
    result: &'a GameResult,
    output: Option<&'a str>,
}

pub(super) fn run<O: Write, E: Write>(
    inputs: &[Input],
    batch_opts: &batch::Options,
    plan: &Plan,
    opts: &Options,
    out: &mut O,
    err: &mut E,
    observer: &mut dyn Observer,
) -> io::Result<Summary> {
    let target = opts.target;
    // In `-o DIR` mode the names are planned from every input's name before anything is
    // written, so that none depends on the order the inputs are read in.
    let one_file = matches!(inputs, [Input::Path(p)] if p.is_file()
        && batch::discover::archive_kind(&p.to_string_lossy()).is_none());
    let names = match plan.sink() {
        Sink::Dir(_) if !one_file => {
            let rels = input_names(inputs, batch_opts);
            Names::planned(rels.iter().map(PathBuf::as_path), target)
        }
        _ => Names::new(),
    };
    let mut st = State {
        plan,
        target,
        json: opts.report.style == commands::Style::Json,
        quiet: opts.report.quiet,
        summary: Summary::default(),
        output: Output::default(),
        names,
        game_index: 0,
        games_in_file: 0,
        current_dest: None,
    };
    let filter = &opts.report.filter;
    let mut dedup = Dedup::new();
    let res = batch::run(
        inputs,
        batch_opts,
        |unit| {
            let parsed = batch::parse_unit(unit);
            let mut keys = Vec::new();
            let games: Vec<Converted> = parsed
                .games
                .into_iter()
                .map(|mut g| {
                    if filter.is_empty() {
                        return convert_game(&mut g, target, &opts.validate, &opts.write);
                    }
                    let gather = validate::Gather::Games;
                    let (r, game) = validate::digest(&mut g, &opts.validate, gather);
                    let facts = Facts::of(&game, &r);
                    keys.push(filter.admits(&facts).then_some(facts.key));
                    write_game(&g, r, target, &opts.write)
                })
                .collect();
            (
                games,
                keys,
                parsed.diagnostics,
                unit.chunk == 0 && unit.last,
            )
        },
        |unit, (games, keys, file, whole)| {
            let n_games = games.len() as u64;
            // The games the filter keeps (all of them when it is empty), in input order.
            let games: Vec<(Converted, bool)> = games
                .into_iter()
                .enumerate()
                .map(|(i, g)| {
                    let keep = filter.is_empty()
                        || keys[i].is_some_and(|k| !filter.dedup || dedup.first(k));
                    (g, keep)
                })
                .collect();
            st.unit(unit, games, file, whole, out, err)?;
            observer.unit_done(n_games, unit.len(), unit.last);
            observer.flush(err)
        },
    );
    observer.finish();
    res?;
    if let Err(d) = st.output.finish() {
        st.summary.count(std::slice::from_ref(&d));
        st.report(&Line::file("<output>", true, None), &[d], err)?;
    }
    out.flush()?;
    let mut summary = st.summary;
    summary.outputs = Some(Outputs {
        written: st.output.written,
        refused: st.output.refused_files,
        failed: st.output.failed_files,
    });
    if st.json {
        summary.write_json(err)?;
    } else if !st.quiet {
        let o = summary.outputs.unwrap_or_default();
        let to = match plan.sink() {
            Sink::Stdout => String::new(),
            _ if o.failed > 0 => format!(
                " to {} files ({} refused, {} failed)",
                o.written, o.refused, o.failed
            ),
            _ => format!(" to {} files ({} refused)", o.written, o.refused),
        };
        writeln!(
            err,
            "converted {} games from {} files{to}: {} errors, {} warnings",
            summary.games, summary.files, summary.errors, summary.warnings
        )?;
    }
    err.flush()?;
    Ok(summary)
}

impl<'a> Line<'a> {
    fn file(path: &'a str, whole: bool, format: Option<&'static str>) -> Line<'a> {
        Line {
            path,
            whole,
            format,
            game: None,
            plies: 0,
            info: &commands::NO_INFO,
            result: &commands::NO_RESULT,
            output: None,
        }
    }
}

impl State<'_> {
    /// Writes and reports the games of one unit (those the filter keeps).
    fn unit(
        &mut self,
        unit: &Unit,
        games: Vec<(Converted, bool)>,
        file: Vec<Diagnostic>,
        whole: bool,
        out: &mut dyn Write,
        err: &mut dyn Write,
    ) -> io::Result<()> {
        if unit.chunk == 0 {
            self.game_index = 0;
            self.games_in_file = 0;
            self.current_dest = None;
        }
        if unit.last {
            self.summary.files += 1;
        }
        let path = unit.source.path.as_str();
        let format = unit.source.format.map(Format::name);
        self.summary.count(&file);
        self.report(&Line::file(path, whole, format), &file, err)?;
        let many = !whole || games.len() > 1;
        for (g, keep) in games {
            if !keep {
                self.game_index += 1;
                continue;
            }
            self.summary.games += 1;
            self.summary.plies += u64::from(g.plies);
            let mut diagnostics = g.diagnostics;
            let written = if g.unread {
                None
            } else {
                self.write(unit, &g.bytes, many, out, &mut diagnostics)?
            };
            self.summary.count(&diagnostics);
            let line = Line {
                path,
                whole,
                format,
                game: Some(self.game_index),
                plies: g.plies,
                info: &g.info,
                result: &g.result,
                output: written.as_deref(),
            };
            self.report(&line, &diagnostics, err)?;
            self.game_index += 1;
            self.games_in_file += 1;
        }
        let target = self.target;
        let sink = self.plan.sink();
        let mut end = Vec::new();
        if unit.last
            && self.games_in_file > 1
            && target.one_game_per_file()
            && !matches!(sink, Sink::Dir(_))
        {
            end.push(Diagnostic::new(
                Code::Lossy,
                format!(
                    "{} games written one after another, but {} holds one game per file; use -o DIR for one file per game",
                    self.games_in_file,
                    target.name()
                ),
            ));
        }
        if unit.last
            && !matches!(sink, Sink::Stdout)
            && let Err(d) = self.output.finish()
        {
            end.push(d);
        }
        self.summary.count(&end);
        self.report(&Line::file(path, whole, format), &end, err)
    }

    /// Writes one game where the plan says. Returns the output as shown to the user (`-`
    /// for standard output), or `None` when it was not written; a refusal is added to
    /// `diagnostics`.
    fn write(
        &mut self,
        unit: &Unit,
        bytes: &[u8],
        many: bool,
        out: &mut dyn Write,
        diagnostics: &mut Vec<Diagnostic>,
    ) -> io::Result<Option<String>> {
        let target = self.target;
        let plan = self.plan;
        let guard = &plan.guard;
        let dest = match plan.sink() {
            Sink::Stdout => {
                separate(out, target, self.games_in_file)?;
                out.write_all(bytes)?;
                return Ok(Some("-".to_owned()));
            }
            Sink::File(p) => Ok(p.clone()),
            Sink::Dir(dir) => match &self.current_dest {
                Some(d) if !target.one_game_per_file() => Ok(d.clone()),
                _ => {
                    let rel = unit.source.rel.as_deref();
                    let game = self.game_index;
                    self.names.next(dir, rel, target, many, game)
                }
            },
        };
        let res = dest.map_err(Some).and_then(|d| {
            let shown = plan.shown(&d);
            self.current_dest = Some(d.clone());
            if target.one_game_per_file() && matches!(plan.sink(), Sink::Dir(_)) {
                // Each game its own file.
                self.output.append(&d, &shown, guard, target, bytes, 0)?;
                self.output.finish().map_err(Some)?;
            } else {
                let before = self.games_in_file;
                self.output
                    .append(&d, &shown, guard, target, bytes, before)?;
            }
            Ok(shown)
        });
        Ok(match res {
            Ok(shown) => Some(shown.to_string_lossy().into_owned()),
            Err(d) => {
                diagnostics.extend(d);
                None
            }
        })
    }

    /// Reports the findings of one line: compiler style (none, none written), or a JSON line
    /// (for a game always, unless quiet and without an error; for a file only with findings).
    fn report(
        &self,
        line: &Line<'_>,
        diagnostics: &[Diagnostic],
        err: &mut dyn Write,
    ) -> io::Result<()> {
        let shown = commands::shown(diagnostics, self.quiet);
        let shown = &shown[..];
        if !self.json {
            let game = line.game.filter(|&g| !line.whole || g > 0);
            return commands::write_human_with(err, line.path, game, shown, self.quiet);
        }
        if shown.is_empty() && (line.game.is_none() || self.quiet) {
            return Ok(());
        }
        ConvertLine {
            game: GameLine {
                path: line.path,
                game: line.game,
                format: line.format,
                plies: line.plies,
                info: line.info,
                result: line.result,
                diagnostics: shown,
            },
            output: line.output,
        }
        .write(err)
    }
}

impl Plan {
    /// `dest` as the user named its place: under `-o DIR` as given on the command line, not
    /// the canonical directory the plan writes to.
    pub(crate) fn shown(&self, dest: &Path) -> PathBuf {
        match (self.sink(), &self.shown_dir) {
            (Sink::Dir(dir), Some(given)) => match dest.strip_prefix(dir) {
                Ok(rest) => given.join(rest),
                Err(_) => dest.to_path_buf(),
            },
            _ => dest.to_path_buf(),
        }
    }
}
