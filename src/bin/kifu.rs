//! The `kifu` command line: a thin layer over the library (see `docs/contract` in the shared
//! docs for what it promises). Exit codes: 0 no error, 1 at least one error diagnostic, 2 bad
//! usage or an input that could not be opened. A closed stdout pipe ends the run quietly.
#![forbid(unsafe_code)]

use std::collections::{BTreeMap, HashSet};
use std::io::{self, BufWriter, IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Arc;

use clap::{Args, Parser, Subcommand, ValueEnum};
use serde::Serialize;

use kifu::batch::{self, Encoding, Input, Progress};
use kifu::diag::{Code, Diagnostic, Severity};
use kifu::formats::{self, Format, WriteOptions};
use kifu::stats::{self, GameSummary, Stats};
use kifu::validate::{self, GameResult};

#[derive(Parser, Debug)]
#[command(
    name = "kifu",
    version,
    about = "Read, check, convert and summarise shogi game records (KIF, KI2, CSA, USI/SFEN, JKF)"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Parse every game, replay every move through the rules core, verify the recorded result.
    Validate(ValidateArgs),
    /// Convert records to another format.
    Convert(ConvertArgs),
    /// Aggregate statistics over every game found.
    Stats(StatsArgs),
    /// Count the leaf nodes of the legal-move tree.
    Perft(PerftArgs),
}

#[derive(Args, Debug, Clone)]
struct Common {
    /// Files, directories, archives (.zip, .tar, .tar.gz, .tgz) or `-` for standard input.
    /// With none, standard input is read.
    #[arg(value_name = "PATH")]
    paths: Vec<String>,
    /// Worker threads (default: all cores).
    #[arg(short = 'j', long = "jobs", value_name = "N")]
    jobs: Option<usize>,
    /// Input encoding.
    #[arg(long, value_enum, default_value = "auto")]
    encoding: EncodingArg,
    /// Input format (default: by extension, then by content).
    #[arg(long = "input-format", value_enum, default_value = "auto")]
    input_format: InputFormatArg,
    /// Print less: errors only, no summary, no progress bar.
    #[arg(short, long)]
    quiet: bool,
    /// No progress bar.
    #[arg(long = "no-progress")]
    no_progress: bool,
    /// The most bytes one archive entry may expand to (zip-bomb guard).
    #[arg(long = "max-entry-bytes", value_name = "N", default_value_t = 1 << 32, hide = true)]
    max_entry_bytes: u64,
    /// The most an archive entry (past 16 MiB) may expand relative to its compressed size
    /// (zip-bomb guard); 0: no bound.
    #[arg(
        long = "max-expansion-ratio",
        value_name = "R",
        default_value_t = batch::MAX_EXPANSION_RATIO,
        hide = true
    )]
    max_expansion_ratio: u64,
}

#[derive(ValueEnum, Debug, Clone, Copy, PartialEq, Eq)]
enum EncodingArg {
    Auto,
    #[value(name = "utf-8", alias = "utf8")]
    Utf8,
    #[value(name = "shift_jis", alias = "sjis", alias = "cp932")]
    ShiftJis,
}

#[derive(ValueEnum, Debug, Clone, Copy, PartialEq, Eq)]
enum InputFormatArg {
    Auto,
    Kif,
    Ki2,
    Csa,
    Usi,
    Jkf,
}

#[derive(ValueEnum, Debug, Clone, Copy, PartialEq, Eq)]
enum OutputFormat {
    Human,
    Json,
}

#[derive(ValueEnum, Debug, Clone, Copy, PartialEq, Eq)]
enum StatsFormat {
    Human,
    Json,
    Csv,
}

#[derive(ValueEnum, Debug, Clone, Copy, PartialEq, Eq)]
enum TargetFormat {
    Kif,
    Kifu,
    Ki2,
    Ki2u,
    Csa,
    Usi,
    Jkf,
}

#[derive(Args, Debug)]
struct ValidateArgs {
    #[command(flatten)]
    common: Common,
    /// Output: `human` (compiler-style) or `json` (JSON Lines).
    #[arg(long, value_enum, default_value = "human")]
    format: OutputFormat,
}

#[derive(Args, Debug)]
struct ConvertArgs {
    #[command(flatten)]
    common: Common,
    /// Target format.
    #[arg(long, value_enum)]
    to: TargetFormat,
    /// Output file (one input) or directory (mirrors the input tree).
    #[arg(short = 'o', long = "output", value_name = "OUT")]
    output: Option<PathBuf>,
    /// CSA version to write.
    #[arg(long = "csa-version", default_value = "2.2", value_parser = ["2.2", "3.0"])]
    csa_version: String,
    /// Diagnostics format (they go to stderr).
    #[arg(long, value_enum, default_value = "human")]
    format: OutputFormat,
}

#[derive(Args, Debug)]
struct StatsArgs {
    #[command(flatten)]
    common: Common,
    /// Output format.
    #[arg(long, value_enum, default_value = "human")]
    format: StatsFormat,
    /// Plies that make an opening.
    #[arg(long = "opening-plies", default_value_t = 8, value_name = "N")]
    opening_plies: usize,
    /// Openings listed.
    #[arg(long = "top", default_value_t = 20, value_name = "N")]
    top: usize,
}

#[derive(Args, Debug)]
struct PerftArgs {
    /// Depth in plies.
    depth: u32,
    /// Start position (SFEN, with or without the `sfen ` prefix); default the even start.
    #[arg(long)]
    sfen: Option<String>,
    /// One line per root move.
    #[arg(long)]
    divide: bool,
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Validate(a) => cmd_validate(a),
        Command::Convert(a) => cmd_convert(a),
        Command::Stats(a) => cmd_stats(a),
        Command::Perft(a) => cmd_perft(a),
    };
    match result {
        Ok(code) => ExitCode::from(code),
        Err(e) if is_broken_pipe(&e) => ExitCode::SUCCESS,
        Err(e) => {
            let _ = writeln!(io::stderr(), "kifu: {e:#}");
            ExitCode::from(2)
        }
    }
}

fn is_broken_pipe(e: &anyhow::Error) -> bool {
    e.chain().any(|c| {
        c.downcast_ref::<io::Error>()
            .is_some_and(|e| e.kind() == io::ErrorKind::BrokenPipe)
    })
}

/// A usage error: message and exit code 2.
#[derive(Debug)]
struct Usage(String);

impl std::fmt::Display for Usage {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for Usage {}

fn inputs(common: &Common) -> Vec<Input> {
    let inputs = if common.paths.is_empty() {
        vec![Input::Stdin]
    } else {
        common.paths.iter().map(|p| Input::from_arg(p)).collect()
    };
    if inputs.contains(&Input::Stdin) && io::stdin().is_terminal() && !common.quiet {
        let _ = writeln!(
            io::stderr(),
            "kifu: reading records from standard input (end with Ctrl-D; see --help for paths)"
        );
    }
    inputs
}

fn batch_options(common: &Common) -> batch::Options {
    batch::Options {
        jobs: common.jobs.unwrap_or(0),
        encoding: match common.encoding {
            EncodingArg::Auto => None,
            EncodingArg::Utf8 => Some(Encoding::Utf8),
            EncodingArg::ShiftJis => Some(Encoding::Cp932),
        },
        input_format: match common.input_format {
            InputFormatArg::Auto => None,
            InputFormatArg::Kif => Some(Format::Kif),
            InputFormatArg::Ki2 => Some(Format::Ki2),
            InputFormatArg::Csa => Some(Format::Csa),
            InputFormatArg::Usi => Some(Format::Usi),
            InputFormatArg::Jkf => Some(Format::Jkf),
        },
        max_entry_bytes: common.max_entry_bytes,
        max_expansion_ratio: common.max_expansion_ratio,
        ..batch::Options::default()
    }
}

fn progress(common: &Common, inputs: &[Input]) -> Progress {
    let enabled = !common.quiet && !common.no_progress && io::stderr().is_terminal();
    if !enabled {
        return Progress::new(false, None);
    }
    // Bytes when the sizes are known (one big file then gets a real ETA), else a counter.
    match batch::discover::measure(inputs) {
        Some((_, bytes)) if bytes > 0 => Progress::with_bytes(true, bytes),
        Some((files, _)) => Progress::new(true, Some(files)),
        None => Progress::new(true, None),
    }
}

/// Counts for the summary line.
#[derive(Debug, Default, Serialize)]
struct Summary {
    files: u64,
    games: u64,
    plies: u64,
    errors: u64,
    warnings: u64,
    by_code: BTreeMap<&'static str, u64>,
    #[serde(skip)]
    unreadable: bool,
}

impl Summary {
    fn count(&mut self, diagnostics: &[Diagnostic]) {
        for d in diagnostics {
            match d.severity {
                Severity::Error => self.errors += 1,
                Severity::Warning => self.warnings += 1,
            }
            *self.by_code.entry(d.code.as_str()).or_default() += 1;
            if d.code == Code::Io {
                self.unreadable = true;
            }
        }
    }

    fn exit_code(&self) -> u8 {
        if self.unreadable {
            2
        } else if self.errors > 0 {
            1
        } else {
            0
        }
    }
}

/// The JSON Lines object for one game (or an unreadable file, with `game: null`).
#[derive(Serialize)]
struct GameLine<'a> {
    path: &'a str,
    game: Option<u64>,
    format: Option<&'static str>,
    plies: u32,
    result: &'a GameResult,
    diagnostics: &'a [Diagnostic],
}

/// Writes diagnostics compiler-style: `path:line:col: error[code]: message (ply N, move)`.
fn write_human(
    out: &mut dyn Write,
    path: &str,
    diagnostics: &[Diagnostic],
    written: &[Option<String>],
    quiet: bool,
) -> io::Result<()> {
    write_human_with(out, |_| path, diagnostics, written, quiet)
}

/// Like [`write_human`], with the path shown chosen per diagnostic (a multi-game file shows
/// `path#game` for a finding without a line).
fn write_human_with<'a>(
    out: &mut dyn Write,
    path_of: impl Fn(&Diagnostic) -> &'a str,
    diagnostics: &[Diagnostic],
    written: &[Option<String>],
    quiet: bool,
) -> io::Result<()> {
    for (i, d) in diagnostics.iter().enumerate() {
        let path = path_of(d);
        if quiet && !d.is_error() {
            continue;
        }
        let sev = match d.severity {
            Severity::Error => "error",
            Severity::Warning => "warning",
        };
        match (d.line, d.column) {
            (Some(l), Some(c)) => write!(out, "{path}:{l}:{c}: ")?,
            (Some(l), None) => write!(out, "{path}:{l}: ")?,
            _ => write!(out, "{path}: ")?,
        }
        write!(out, "{sev}[{}]: {}", d.code, d.message)?;
        let mv = written
            .get(i)
            .and_then(|w| w.as_deref())
            .or(d.mv.as_deref());
        match (d.ply, mv) {
            (Some(p), Some(m)) => write!(out, " (ply {p}, {m})")?,
            (Some(p), None) => write!(out, " (ply {p})")?,
            (None, Some(m)) => write!(out, " ({m})")?,
            (None, None) => {}
        }
        writeln!(out)?;
    }
    Ok(())
}

fn cmd_validate(args: ValidateArgs) -> anyhow::Result<u8> {
    let inputs = inputs(&args.common);
    let bopts = batch_options(&args.common);
    let vopts = validate::Options::default();
    let mut progress = progress(&args.common, &inputs);
    let stdout = io::stdout();
    let mut out = BufWriter::with_capacity(1 << 16, stdout.lock());
    let mut summary = Summary::default();
    let mut game_index = 0u64;
    let json = args.format == OutputFormat::Json;
    let quiet = args.common.quiet;
    let empty = GameResult::default();
    let res = batch::run(
        &inputs,
        &bopts,
        |u| batch::validate_unit(u, &vopts),
        |unit, v| {
            if unit.chunk == 0 {
                game_index = 0;
            }
            if unit.last {
                summary.files += 1;
            }
            let path = unit.source.path.as_str();
            let format = v.format.map(Format::name);
            if !v.diagnostics.is_empty() {
                summary.count(&v.diagnostics);
                if json {
                    let line = GameLine {
                        path,
                        game: None,
                        format,
                        plies: 0,
                        result: &empty,
                        diagnostics: &v.diagnostics,
                    };
                    serde_json::to_writer(&mut out, &line).map_err(io::Error::from)?;
                    out.write_all(b"\n")?;
                } else {
                    write_human(&mut out, path, &v.diagnostics, &[], quiet)?;
                }
            }
            for r in &v.games {
                summary.games += 1;
                summary.plies += u64::from(r.plies);
                summary.count(&r.diagnostics);
                if json {
                    let line = GameLine {
                        path,
                        game: Some(game_index),
                        format,
                        plies: r.plies,
                        result: &r.result,
                        diagnostics: &r.diagnostics,
                    };
                    serde_json::to_writer(&mut out, &line).map_err(io::Error::from)?;
                    out.write_all(b"\n")?;
                } else {
                    let multi = unit.chunk > 0 || v.games.len() > 1;
                    let shown = if multi {
                        format!("{path}#{game_index}")
                    } else {
                        path.to_owned()
                    };
                    let shown = |d: &Diagnostic| {
                        if d.line.is_some() {
                            path
                        } else {
                            shown.as_str()
                        }
                    };
                    write_human_with(&mut out, shown, &r.diagnostics, &r.written, quiet)?;
                }
                game_index += 1;
            }
            progress.advance_unit(v.games.len() as u64, unit.len(), unit.last);
            progress.flush(&mut out)
        },
    );
    progress.finish();
    res?;
    if json {
        #[derive(Serialize)]
        struct Line<'a> {
            summary: &'a Summary,
        }
        serde_json::to_writer(&mut out, &Line { summary: &summary }).map_err(io::Error::from)?;
        out.write_all(b"\n")?;
    } else if !quiet {
        let codes: Vec<String> = summary
            .by_code
            .iter()
            .map(|(c, n)| format!("{c}: {n}"))
            .collect();
        writeln!(
            out,
            "{} files, {} games, {} plies: {} errors, {} warnings{}",
            summary.files,
            summary.games,
            summary.plies,
            summary.errors,
            summary.warnings,
            if codes.is_empty() {
                String::new()
            } else {
                format!(" ({})", codes.join(", "))
            }
        )?;
    }
    out.flush()?;
    Ok(summary.exit_code())
}

fn cmd_stats(args: StatsArgs) -> anyhow::Result<u8> {
    let inputs = inputs(&args.common);
    let bopts = batch_options(&args.common);
    let vopts = validate::Options::default();
    let sopts = stats::Options {
        opening_plies: args.opening_plies,
        top_openings: args.top,
        ..stats::Options::default()
    };
    let mut progress = progress(&args.common, &inputs);
    let mut st = Stats::new();
    let mut summary = Summary::default();
    let mut game_index = 0u64;
    let mut current: Option<(Arc<batch::Source>, Arc<str>)> = None;
    let res = batch::run(
        &inputs,
        &bopts,
        |unit| {
            let parsed = batch::parse_unit(unit);
            let games: Vec<(GameSummary, Vec<Diagnostic>)> = parsed
                .games
                .into_iter()
                .map(|mut g| {
                    let r = validate::validate_game(&mut g, &vopts);
                    (
                        GameSummary::new(&g.record, &r.result, &r.diagnostics, &sopts),
                        r.diagnostics,
                    )
                })
                .collect();
            (games, parsed.diagnostics)
        },
        |unit, (games, file)| {
            if unit.chunk == 0 {
                game_index = 0;
            }
            if unit.last {
                st.add_file();
            }
            let path = match &current {
                Some((s, p)) if Arc::ptr_eq(s, &unit.source) => Arc::clone(p),
                _ => {
                    let p: Arc<str> = Arc::from(unit.source.path.as_str());
                    current = Some((Arc::clone(&unit.source), Arc::clone(&p)));
                    p
                }
            };
            st.add_file_diagnostics(&file);
            summary.count(&file);
            for (g, d) in &games {
                summary.count(d);
                st.add(&path, game_index, g);
                game_index += 1;
            }
            progress.advance_unit(games.len() as u64, unit.len(), unit.last);
            Ok(())
        },
    );
    progress.finish();
    res?;
    let report = st.report(&sopts);
    let stdout = io::stdout();
    let mut out = BufWriter::new(stdout.lock());
    match args.format {
        StatsFormat::Human => report.write_human(&mut out)?,
        StatsFormat::Json => {
            serde_json::to_writer(&mut out, &report).map_err(io::Error::from)?;
            out.write_all(b"\n")?;
        }
        StatsFormat::Csv => report.write_csv(&mut out)?,
    }
    out.flush()?;
    Ok(summary.exit_code())
}

fn target_format(t: TargetFormat) -> Format {
    match t {
        TargetFormat::Kif => Format::Kif,
        TargetFormat::Kifu => Format::Kifu,
        TargetFormat::Ki2 => Format::Ki2,
        TargetFormat::Ki2u => Format::Ki2u,
        TargetFormat::Csa => Format::Csa,
        TargetFormat::Usi => Format::Usi,
        TargetFormat::Jkf => Format::Jkf,
    }
}

/// One converted game: its bytes, plus everything worth saying about it.
struct Converted {
    bytes: Vec<u8>,
    diagnostics: Vec<Diagnostic>,
    written: Vec<Option<String>>,
}

/// Where converted games go.
enum Sink {
    Stdout,
    File(PathBuf),
    Dir(PathBuf),
}

/// What keeps `convert`'s outputs where they belong.
struct Guard {
    /// `-o DIR`, canonical, in directory mode: nothing is written through a link below it.
    root: Option<PathBuf>,
    /// The inputs, canonical: never replaced, nor any existing file inside an input directory.
    protected: Vec<PathBuf>,
    /// The output directory when it lies inside an input directory (and is not searched).
    excluded: Option<PathBuf>,
}

/// An output file being written: a temporary file renamed into place when complete.
struct Pending {
    temp: tempfile::NamedTempFile,
    target: PathBuf,
    games: u64,
}

fn cmd_convert(args: ConvertArgs) -> anyhow::Result<u8> {
    let target = target_format(args.to);
    let inputs = inputs(&args.common);
    let mut bopts = batch_options(&args.common);
    let vopts = validate::Options::default();
    let wopts = WriteOptions {
        csa_v3: args.csa_version == "3.0",
    };
    let single_file = matches!(inputs.as_slice(), [Input::Stdin])
        || matches!(inputs.as_slice(), [Input::Path(p)] if p.is_file()
            && batch::discover::archive_kind(&p.to_string_lossy()).is_none());
    let sink = match &args.output {
        None if single_file => Sink::Stdout,
        None => {
            return Err(
                Usage("several inputs, a directory or an archive need -o DIR".to_owned()).into(),
            );
        }
        Some(o) if single_file && !o.is_dir() && !o.to_string_lossy().ends_with('/') => {
            Sink::File(o.clone())
        }
        Some(o) => {
            std::fs::create_dir_all(o)
                .map_err(|e| Usage(format!("cannot create {}: {e}", o.display())))?;
            Sink::Dir(o.canonicalize()?)
        }
    };
    // Inputs, canonicalised, so that no output replaces one.
    let protected: Vec<PathBuf> = inputs
        .iter()
        .filter_map(|i| match i {
            Input::Path(p) => p.canonicalize().ok(),
            Input::Stdin => None,
        })
        .collect();
    let mut guard = Guard {
        root: None,
        protected: Vec::new(),
        excluded: None,
    };
    if let Sink::Dir(dir) = &sink {
        guard.root = Some(dir.clone());
        if protected.iter().any(|p| dir != p && dir.starts_with(p)) {
            // An output directory inside an input directory: never read it as input (its
            // files would be converted again, deeper and deeper).
            bopts.exclude = Some(dir.clone());
            guard.excluded = Some(dir.clone());
        }
    }
    guard.protected = protected;
    let mut progress = progress(&args.common, &inputs);
    let json = args.format == OutputFormat::Json;
    let quiet = args.common.quiet;
    let stdout = io::stdout();
    let mut out = BufWriter::new(stdout.lock());
    let stderr = io::stderr();
    let mut err = BufWriter::new(stderr.lock());
    let mut summary = Summary::default();
    let mut game_index = 0u64;
    let mut pending: Option<Pending> = None;
    let mut games_in_file = 0u64;
    let mut used: HashSet<PathBuf> = HashSet::new();
    let mut current_dest: Option<PathBuf> = None;
    let empty = GameResult::default();
    let res = batch::run(
        &inputs,
        &bopts,
        |unit| {
            let parsed = batch::parse_unit(unit);
            let games: Vec<Converted> = parsed
                .games
                .into_iter()
                .map(|mut g| {
                    let r = validate::validate_game(&mut g, &vopts);
                    let w = formats::write(target, &g.record, &wopts);
                    let (bytes, lossy) = kifu::formats::text::encode_for(target, &w.text);
                    let mut diagnostics = r.diagnostics;
                    let mut written = r.written;
                    diagnostics.extend(w.warnings);
                    for mut d in lossy {
                        // Where in the written text, not in the input the path names.
                        if let (Some(l), Some(c)) = (d.line.take(), d.column.take()) {
                            d.message = format!("{} (output line {l}, column {c})", d.message);
                        }
                        diagnostics.push(d);
                    }
                    written.resize(diagnostics.len(), None);
                    Converted {
                        bytes,
                        diagnostics,
                        written,
                    }
                })
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
            let report = |diags: &[Diagnostic],
                          written: &[Option<String>],
                          game: Option<u64>,
                          err: &mut dyn Write|
             -> io::Result<()> {
                if diags.is_empty() {
                    return Ok(());
                }
                if json {
                    let line = GameLine {
                        path,
                        game,
                        format: unit.source.format.map(Format::name),
                        plies: 0,
                        result: &empty,
                        diagnostics: diags,
                    };
                    serde_json::to_writer(&mut *err, &line).map_err(io::Error::from)?;
                    err.write_all(b"\n")
                } else {
                    let shown = match game {
                        Some(g) if !whole || g > 0 => format!("{path}#{g}"),
                        _ => path.to_owned(),
                    };
                    write_human(err, &shown, diags, written, quiet)
                }
            };
            summary.count(&file);
            report(&file, &[], None, &mut err)?;
            let many = !whole || games.len() > 1;
            let n_games = games.len() as u64;
            for g in games {
                summary.games += 1;
                summary.count(&g.diagnostics);
                report(&g.diagnostics, &g.written, Some(game_index), &mut err)?;
                match &sink {
                    Sink::Stdout => {
                        separate(&mut out, target, games_in_file)?;
                        out.write_all(&g.bytes)?;
                    }
                    Sink::File(p) => {
                        if let Err(d) =
                            append(&mut pending, p, &guard, target, &g.bytes, games_in_file)
                        {
                            summary.count(std::slice::from_ref(&d));
                            report(std::slice::from_ref(&d), &[], Some(game_index), &mut err)?;
                        }
                    }
                    Sink::Dir(dir) => {
                        let dest = if !target.one_game_per_file() && games_in_file > 0 {
                            current_dest
                                .clone()
                                .ok_or_else(|| io_diag("no output for this file".to_owned()))
                        } else {
                            destination(dir, &unit.source, target, many, game_index)
                                .map(|d| unique(d, &unit.source, &mut used))
                        };
                        if let Ok(d) = &dest {
                            current_dest = Some(d.clone());
                        }
                        let res = dest.and_then(|d| {
                            if target.one_game_per_file() {
                                // Each game its own file.
                                finish(&mut pending)?;
                                append(&mut pending, &d, &guard, target, &g.bytes, 0)?;
                                finish(&mut pending)
                            } else {
                                append(&mut pending, &d, &guard, target, &g.bytes, games_in_file)
                            }
                        });
                        if let Err(d) = res {
                            summary.count(std::slice::from_ref(&d));
                            report(std::slice::from_ref(&d), &[], Some(game_index), &mut err)?;
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
                report(std::slice::from_ref(&d), &[], None, &mut err)?;
            }
            if unit.last && !matches!(sink, Sink::Stdout) {
                if let Err(d) = finish(&mut pending) {
                    summary.count(std::slice::from_ref(&d));
                    report(std::slice::from_ref(&d), &[], None, &mut err)?;
                }
            }
            progress.advance_unit(n_games, unit.len(), unit.last);
            progress.flush(&mut err)
        },
    );
    progress.finish();
    res?;
    if let Err(d) = finish(&mut pending) {
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
    Ok(summary.exit_code())
}

/// Writes what goes between two games of one output stream.
fn separate(out: &mut dyn Write, target: Format, games_before: u64) -> io::Result<()> {
    if games_before == 0 {
        return Ok(());
    }
    match target {
        Format::Csa => out.write_all(b"/\n"),
        Format::Usi => Ok(()),
        _ => out.write_all(b"\n"),
    }
}

/// The output path of a game in `-o DIR` mode: the input's relative path with the target's
/// extension, `-N` before it when the file holds several games and the target one per file.
fn destination(
    dir: &Path,
    source: &batch::Source,
    target: Format,
    many: bool,
    game: u64,
) -> Result<PathBuf, Diagnostic> {
    let Some(rel) = &source.rel else {
        return Err(Diagnostic::new(
            Code::Io,
            "refusing to write: the entry's name is absolute or climbs out with `..`",
        ));
    };
    let stem = rel
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_else(|| "game".to_owned());
    let name = if many && target.one_game_per_file() {
        format!("{stem}-{game}.{}", target.extension())
    } else {
        format!("{stem}.{}", target.extension())
    };
    Ok(dir.join(rel.with_file_name(name)))
}

/// Makes an output path unique within the run: `a.kif` and `a.csa` converted to KIFU give
/// `a.kifu` and `a.csa.kifu` (then `-2`, `-3`... should that be taken too), so no output
/// replaces another.
fn unique(dest: PathBuf, source: &batch::Source, used: &mut HashSet<PathBuf>) -> PathBuf {
    if used.insert(dest.clone()) {
        return dest;
    }
    let ext = dest
        .extension()
        .map(|e| e.to_string_lossy().into_owned())
        .unwrap_or_default();
    let stem = dest
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    let orig = source
        .rel
        .as_ref()
        .and_then(|r| r.extension())
        .map(|e| e.to_string_lossy().into_owned())
        .unwrap_or_else(|| "in".to_owned());
    let candidate = dest.with_file_name(format!("{stem}.{orig}.{ext}"));
    if used.insert(candidate.clone()) {
        return candidate;
    }
    let mut n = 2u64;
    loop {
        let c = dest.with_file_name(format!("{stem}.{orig}-{n}.{ext}"));
        if used.insert(c.clone()) {
            return c;
        }
        n += 1;
    }
}

fn io_diag(msg: String) -> Diagnostic {
    Diagnostic::new(Code::Io, msg)
}

/// Appends a game to the pending output for `target_path`, opening it (as a temporary file in
/// the target's directory) if it is not the one pending.
fn append(
    pending: &mut Option<Pending>,
    target_path: &Path,
    guard: &Guard,
    format: Format,
    bytes: &[u8],
    games_before: u64,
) -> Result<(), Diagnostic> {
    if pending.as_ref().is_some_and(|p| p.target != target_path) {
        finish(pending)?;
    }
    if pending.is_none() {
        let parent = match target_path.parent() {
            Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
            _ => PathBuf::from("."),
        };
        if let Some(root) = &guard.root {
            check_within(root, target_path)?;
        }
        std::fs::create_dir_all(&parent)
            .map_err(|e| io_diag(format!("cannot create {}: {e}", parent.display())))?;
        check_target(target_path, guard)?;
        let mut builder = tempfile::Builder::new();
        builder.prefix(".kifu-");
        // A temporary file is created private (0600) and would keep that mode after the
        // rename; an output file gets the usual 0666 less the umask instead.
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            builder.permissions(std::fs::Permissions::from_mode(0o666));
        }
        let temp = builder
            .tempfile_in(&parent)
            .map_err(|e| io_diag(format!("cannot write in {}: {e}", parent.display())))?;
        *pending = Some(Pending {
            temp,
            target: target_path.to_path_buf(),
            games: 0,
        });
    }
    let Some(p) = pending.as_mut() else {
        return Ok(());
    };
    let f = p.temp.as_file_mut();
    let before = if p.games == 0 { 0 } else { games_before.max(1) };
    separate(f, format, before)
        .and_then(|_| f.write_all(bytes))
        .map_err(|e| io_diag(format!("cannot write {}: {e}", target_path.display())))?;
    p.games += 1;
    Ok(())
}

/// Refuses a target under `root` (the `-o DIR`) that would be reached through a symbolic link:
/// its relative part is made of normal components only, so a link is the one way out.
fn check_within(root: &Path, target: &Path) -> Result<(), Diagnostic> {
    let Ok(rel) = target.strip_prefix(root) else {
        return Err(io_diag(format!(
            "refusing to write outside {}: {}",
            root.display(),
            target.display()
        )));
    };
    let mut p = root.to_path_buf();
    for c in rel.components() {
        p.push(c);
        match std::fs::symlink_metadata(&p) {
            Ok(m) if m.file_type().is_symlink() => {
                return Err(io_diag(format!(
                    "refusing to write through the symbolic link {}",
                    p.display()
                )));
            }
            Ok(_) => {}
            Err(_) => break,
        }
    }
    Ok(())
}

/// Refuses a target that is an input or lies inside an input directory.
fn check_target(target: &Path, guard: &Guard) -> Result<(), Diagnostic> {
    let parent = target.parent().unwrap_or(Path::new("."));
    let parent = parent
        .canonicalize()
        .map_err(|e| io_diag(format!("cannot resolve {}: {e}", parent.display())))?;
    let full = match target.file_name() {
        Some(n) => parent.join(n),
        None => return Err(io_diag(format!("not a file name: {}", target.display()))),
    };
    let full = full.canonicalize().unwrap_or(full);
    if guard
        .excluded
        .as_deref()
        .is_some_and(|x| full.starts_with(x))
    {
        // Inside the output directory that is never read as input: no input lives there.
        return Ok(());
    }
    for p in &guard.protected {
        if &full == p || (p.is_dir() && full.starts_with(p) && full.exists()) {
            return Err(io_diag(format!(
                "refusing to overwrite an input: {}",
                target.display()
            )));
        }
    }
    Ok(())
}

/// Renames the pending output into place.
fn finish(pending: &mut Option<Pending>) -> Result<(), Diagnostic> {
    let Some(p) = pending.take() else {
        return Ok(());
    };
    let target = p.target.clone();
    p.temp
        .persist(&target)
        .map_err(|e| io_diag(format!("cannot write {}: {}", target.display(), e.error)))?;
    Ok(())
}

fn cmd_perft(args: PerftArgs) -> anyhow::Result<u8> {
    use kifu::core::{Position, perft, perft_divide};
    let pos = match args.sfen.as_deref().map(str::trim) {
        None | Some("startpos") => Position::startpos(),
        Some(s) => {
            let s = s.strip_prefix("sfen ").unwrap_or(s).trim();
            Position::from_sfen(s).map_err(|e| Usage(format!("bad SFEN {s:?}: {e}")))?
        }
    };
    let stdout = io::stdout();
    let mut out = BufWriter::new(stdout.lock());
    if args.divide {
        let mut total = 0u64;
        for (mv, n) in perft_divide(&pos, args.depth) {
            writeln!(out, "{}: {n}", mv.to_usi())?;
            total += n;
        }
        writeln!(out)?;
        writeln!(out, "{total}")?;
    } else {
        writeln!(out, "{}", perft(&pos, args.depth))?;
    }
    out.flush()?;
    Ok(0)
}
