//! The `kifu` command line: a thin layer over the library (see `docs/contract` in the shared
//! docs for what it promises). Exit codes: 0 no error, 1 at least one error diagnostic, 2 bad
//! usage or an input that could not be opened; `stats` gives 0 whenever it could read its
//! input. A closed stdout pipe ends the run quietly.
#![deny(unsafe_code)]

use std::io::{self, BufWriter, IsTerminal, Write};
use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Args, Parser, Subcommand, ValueEnum};

use kifu::formats::{Format, WriteOptions};
use kifu::stats;
use kifu::validate;
use kifu::{Code, Severity};
use kifu_app::batch::{self, Encoding, Input};
use kifu_app::commands;
use kifu_app::convert::{self, Plan};

/// mimalloc for small blocks, the system allocator for large ones (see `alloc.rs`).
#[global_allocator]
static ALLOC: alloc::Split = alloc::Split;

#[path = "kifu/alloc.rs"]
#[allow(unsafe_code)]
mod alloc;

#[path = "kifu/look.rs"]
mod look;
#[path = "kifu/progress.rs"]
mod progress;
#[path = "kifu/tables.rs"]
mod tables;

use look::{cmd_find, cmd_show};
use progress::Progress;
use tables::{FilterArgs, TableArgs};

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
    /// One row per game: players, ratings, dates, result, opening, final position, codes...
    /// (CSV, JSON Lines or Parquet; see docs/tables.md).
    Games(TableArgs),
    /// One row per move: game key, position (SFEN), move, time, legality, result for the
    /// mover (CSV, JSON Lines or Parquet; see docs/tables.md).
    Positions(TableArgs),
    /// Count the leaf nodes of the legal-move tree.
    Perft(PerftArgs),
    /// Show a game's position: a KIF board diagram (BOD), an SVG drawing or the SFEN.
    Show(ShowArgs),
    /// Find the games that reach a position (--sfen) or begin with some moves (--moves).
    Find(FindArgs),
}

#[derive(Args, Debug, Clone)]
struct Common {
    /// Files, directories, archives (.zip, .tar, .tar.gz, .tgz) or `-` for standard input.
    /// With none, standard input is read.
    /// Paths need not be UTF-8 (shown with `\xNN` for each byte that is not).
    #[arg(value_name = "PATH")]
    paths: Vec<std::ffi::OsString>,
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
    #[value(name = "euc-jp", alias = "eucjp")]
    EucJp,
    #[value(name = "utf-16le", alias = "utf16le")]
    Utf16Le,
    #[value(name = "utf-16be", alias = "utf16be")]
    Utf16Be,
}

#[derive(ValueEnum, Debug, Clone, Copy, PartialEq, Eq)]
enum InputFormatArg {
    Auto,
    Kif,
    Ki2,
    Csa,
    Usi,
    Jkf,
    Usen,
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
    Html,
}

#[derive(ValueEnum, Debug, Clone, Copy, PartialEq, Eq)]
enum ShowFormat {
    Bod,
    Svg,
    Sfen,
}

#[derive(ValueEnum, Debug, Clone, Copy, PartialEq, Eq)]
enum TargetFormat {
    /// KIF in Shift_JIS (`.kif`, as Kifu for Windows writes it)
    Kif,
    /// KIF in UTF-8 (`.kifu`)
    Kifu,
    /// KI2 in Shift_JIS (`.ki2`)
    Ki2,
    /// KI2 in UTF-8 (`.ki2u`)
    Ki2u,
    /// CSA (V2.2, or V3.0 with --csa-version)
    Csa,
    /// USI `position` lines (also `sfen`)
    #[value(alias = "sfen")]
    Usi,
    /// JSON Kifu Format
    Jkf,
    /// USEN (the compact URL form)
    Usen,
}

#[derive(Args, Debug)]
struct ValidateArgs {
    #[command(flatten)]
    common: Common,
    /// Output: `human` (compiler-style) or `json` (JSON Lines).
    #[arg(long, value_enum, default_value = "human")]
    format: OutputFormat,
    /// Report these codes as warnings (comma-separated or repeated: `--allow nifu,move-number`).
    #[arg(long, value_name = "CODE", value_delimiter = ',', value_parser = code_name)]
    allow: Vec<Code>,
    /// Report these codes as errors (`--deny time-mismatch`); wins over `--allow`.
    #[arg(long, value_name = "CODE", value_delimiter = ',', value_parser = code_name)]
    deny: Vec<Code>,
    #[command(flatten)]
    filter: FilterArgs,
    #[command(flatten)]
    rules: RuleArgs,
    /// Human output: under each error about a move, the board (BOD) before that move.
    #[arg(long = "show-board")]
    show_board: bool,
}

/// A diagnostic code by its name (`nifu`, `time-mismatch`...).
fn code_name(s: &str) -> Result<Code, String> {
    Code::from_name(s).ok_or_else(|| {
        let names: Vec<&str> = Code::ALL.iter().map(|c| c.as_str()).collect();
        format!("unknown code `{s}` (codes: {})", names.join(", "))
    })
}

/// The organiser's rules for the run, applied where a record states none (its own header
/// wins; a record stating other rules gets a `rule-mismatch` warning).
#[derive(Args, Debug, Clone, Default)]
pub struct RuleArgs {
    /// The time control to hold recorded times to: `10m+10s` (10 s 秒読み), `600+10`,
    /// `1h/30s byoyomi`, `10m+10s increment` or `300+10F` (Fischer), `10m` (sudden death),
    /// `600+0+10` (as CSA V3.0's $TIME), or a header's wording (`10分切れ負け`).
    #[arg(long = "time-control", value_name = "SPEC", value_parser = time_control_arg, help_heading = "Rules")]
    time_control: Option<kifu::formats::time_control::TimeControl>,
    /// The entering-king declaration rule: 27 (the 27-point rule, the default) or 24.
    #[arg(long, value_name = "POINTS", value_parser = ["27", "24"], help_heading = "Rules")]
    declaration: Option<String>,
}

impl RuleArgs {
    /// The validation options these give.
    pub fn options(&self) -> validate::Options {
        validate::Options {
            declaration_points: self.declaration.as_deref().and_then(|d| d.parse().ok()),
            time_control: self.time_control,
        }
    }
}

fn time_control_arg(s: &str) -> Result<kifu::formats::time_control::TimeControl, String> {
    kifu::formats::time_control::TimeControl::from_spec(s).ok_or_else(|| {
        format!(
            "cannot read the time control `{s}` (forms: 10m+10s, 600+10, 1h/30s byoyomi, \
             10m+10s increment, 300+10F, 10m, 600+0+10, 10分切れ負け)"
        )
    })
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
    /// Replace existing output files (never an input).
    #[arg(long)]
    force: bool,
    /// USI: end each `position` line with the game's ending (`resign`, `win`, `rep_draw`...),
    /// which few readers accept; by default the line is plain and the ending a `lossy` warning.
    #[arg(long = "usi-endings")]
    usi_endings: bool,
    /// Diagnostics format (they go to stderr).
    #[arg(long, value_enum, default_value = "human")]
    format: OutputFormat,
    #[command(flatten)]
    filter: FilterArgs,
    #[command(flatten)]
    rules: RuleArgs,
}

#[derive(Args, Debug)]
struct StatsArgs {
    #[command(flatten)]
    common: Common,
    /// Output format: `human`, `json` (one object), `csv` (one table of fixed columns,
    /// `section,key,value,...`; see docs/tables.md) or `html` (one self-contained page of
    /// charts and tables).
    #[arg(long, value_enum, default_value = "human")]
    format: StatsFormat,
    /// Write to this file (atomically) instead of standard output.
    #[arg(short = 'o', long = "output", value_name = "FILE")]
    output: Option<PathBuf>,
    /// Replace the output file if it exists.
    #[arg(long, requires = "output")]
    force: bool,
    /// Plies that make an opening (at least 1); a game shorter than this has none.
    #[arg(long = "opening-plies", default_value_t = 8, value_name = "N", value_parser = at_least_one)]
    opening_plies: usize,
    /// The most entries of every ranked list (openings and players, most games first)
    /// [default: 20 in human output, every entry in json and csv].
    #[arg(long = "top", value_name = "N", value_parser = at_least_one)]
    top: Option<usize>,
    #[command(flatten)]
    filter: FilterArgs,
    #[command(flatten)]
    rules: RuleArgs,
}

/// A count of 1 or more.
fn at_least_one(s: &str) -> Result<usize, String> {
    match s.parse::<usize>() {
        Ok(0) => Err("must be at least 1".to_owned()),
        Ok(n) => Ok(n),
        Err(e) => Err(e.to_string()),
    }
}

#[derive(Args, Debug)]
struct PerftArgs {
    /// Depth in plies.
    depth: u32,
    /// Start position: an SFEN, `sfen SFEN` or `startpos`, maybe after `position ` and with
    /// `moves ...` played; default the even start.
    #[arg(long)]
    sfen: Option<String>,
    /// One line per root move.
    #[arg(long)]
    divide: bool,
}

#[derive(Args, Debug)]
struct ShowArgs {
    /// The file and the game in it, from 0 (`games.csa:3`; default game 0). A path that
    /// exists as given is the file, `:` and all. `-` is standard input.
    #[arg(value_name = "FILE[:GAME]")]
    target: std::ffi::OsString,
    /// The position after N moves of the main line (0: the start), or `last` [default: last].
    #[arg(long, value_name = "N|last", value_parser = ply_arg, conflicts_with = "at_diagnostic")]
    ply: Option<Ply>,
    /// The position before the move of the game's first error (else warning), its squares
    /// marked.
    #[arg(long = "at-diagnostic")]
    at_diagnostic: bool,
    /// `bod` (KIF board diagram), `svg` (a drawing) or `sfen`.
    #[arg(long, value_enum, default_value = "bod")]
    format: ShowFormat,
    /// From White's side (White at the bottom).
    #[arg(long)]
    flip: bool,
    /// Write to this file (atomically) instead of standard output.
    #[arg(short = 'o', long = "output", value_name = "FILE")]
    output: Option<PathBuf>,
    /// Replace the output file if it exists.
    #[arg(long, requires = "output")]
    force: bool,
    /// Input encoding.
    #[arg(long, value_enum, default_value = "auto")]
    encoding: EncodingArg,
    /// Input format (default: by extension, then by content).
    #[arg(long = "input-format", value_enum, default_value = "auto")]
    input_format: InputFormatArg,
}

/// `--ply`: a number of moves or `last`.
#[derive(Debug, Clone, Copy)]
enum Ply {
    N(u32),
    Last,
}

fn ply_arg(s: &str) -> Result<Ply, String> {
    if s == "last" {
        return Ok(Ply::Last);
    }
    s.parse::<u32>()
        .map(Ply::N)
        .map_err(|_| format!("`{s}` is neither a number of moves nor `last`"))
}

#[derive(Args, Debug)]
#[command(group(clap::ArgGroup::new("query").required(true).args(["sfen", "moves"])))]
struct FindArgs {
    #[command(flatten)]
    common: Common,
    /// The position: an SFEN, `sfen SFEN` or `startpos`, maybe after `position ` and with
    /// `moves ...` played (the move number is ignored).
    #[arg(long)]
    sfen: Option<String>,
    /// The first moves of the game, USI, space-separated (`"7g7f 3c3d"`), from the even start.
    #[arg(long)]
    moves: Option<String>,
    /// With --sfen: either side to move.
    #[arg(long = "any-side")]
    any_side: bool,
    /// With --sfen: the board alone (hands ignored).
    #[arg(long = "board-only")]
    board_only: bool,
    /// Output: `human` or `json` (JSON Lines: a line per game found, then a summary).
    #[arg(long, value_enum, default_value = "human")]
    format: OutputFormat,
}

fn main() -> ExitCode {
    alloc::configure();
    // Ctrl-C, SIGTERM, SIGHUP: the outputs being written are left as they were (their hidden
    // temporaries removed), and the exit code is 130, a shell's for an interrupted command.
    // Nothing can do this on SIGKILL.
    let _ = ctrlc::set_handler(|| {
        kifu_app::batch::atomic::remove_temporaries();
        std::process::exit(130);
    });
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Validate(a) => cmd_validate(a),
        Command::Convert(a) => cmd_convert(a),
        Command::Stats(a) => cmd_stats(a),
        Command::Games(a) => tables::cmd_table(a, kifu::tables::Table::Games),
        Command::Positions(a) => tables::cmd_table(a, kifu::tables::Table::Positions),
        Command::Perft(a) => cmd_perft(a),
        Command::Show(a) => cmd_show(a),
        Command::Find(a) => cmd_find(a),
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
        common.paths.iter().map(|p| Input::from_os_arg(p)).collect()
    };
    if inputs.contains(&Input::Stdin) && io::stdin().is_terminal() && !common.quiet {
        let _ = writeln!(
            io::stderr(),
            "kifu: reading records from standard input (end with Ctrl-D; see --help for paths)"
        );
    }
    inputs
}

fn encoding(e: EncodingArg) -> Option<Encoding> {
    match e {
        EncodingArg::Auto => None,
        EncodingArg::Utf8 => Some(Encoding::Utf8),
        EncodingArg::ShiftJis => Some(Encoding::Cp932),
        EncodingArg::EucJp => Some(Encoding::EucJp),
        EncodingArg::Utf16Le => Some(Encoding::Utf16Le),
        EncodingArg::Utf16Be => Some(Encoding::Utf16Be),
    }
}

fn input_format(f: InputFormatArg) -> Option<Format> {
    match f {
        InputFormatArg::Auto => None,
        InputFormatArg::Kif => Some(Format::Kif),
        InputFormatArg::Ki2 => Some(Format::Ki2),
        InputFormatArg::Csa => Some(Format::Csa),
        InputFormatArg::Usi => Some(Format::Usi),
        InputFormatArg::Jkf => Some(Format::Jkf),
        InputFormatArg::Usen => Some(Format::Usen),
    }
}

fn batch_options(common: &Common) -> batch::Options {
    batch::Options {
        jobs: common.jobs.unwrap_or(0),
        encoding: encoding(common.encoding),
        input_format: input_format(common.input_format),
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

/// The report options of `--format`, `--quiet` and the filters.
fn report_options(
    format: OutputFormat,
    common: &Common,
    filter: &FilterArgs,
) -> Result<commands::Options, Usage> {
    Ok(commands::Options {
        style: match format {
            OutputFormat::Human => commands::Style::Human,
            OutputFormat::Json => commands::Style::Json,
        },
        quiet: common.quiet,
        severities: Default::default(),
        filter: filter.filter()?,
        show_board: false,
    })
}

fn cmd_validate(args: ValidateArgs) -> anyhow::Result<u8> {
    let inputs = inputs(&args.common);
    let bopts = batch_options(&args.common);
    let vopts = args.rules.options();
    let mut progress = progress(&args.common, &inputs);
    let mut ropts = report_options(args.format, &args.common, &args.filter)?;
    let allowed = args.allow.iter().map(|&c| (c, Severity::Warning));
    let denied = args.deny.iter().map(|&c| (c, Severity::Error));
    ropts.severities = allowed.chain(denied).collect();
    ropts.show_board = args.show_board;
    let stdout = io::stdout();
    let mut out = BufWriter::with_capacity(1 << 16, stdout.lock());
    let summary = commands::validate(&inputs, &bopts, &vopts, &ropts, &mut out, &mut progress)?;
    Ok(summary.exit_code())
}

fn cmd_stats(args: StatsArgs) -> anyhow::Result<u8> {
    let inputs = inputs(&args.common);
    let bopts = batch_options(&args.common);
    let vopts = args.rules.options();
    let sopts = stats::Options {
        opening_plies: args.opening_plies,
        // People read the top of each list; machines get every entry unless told.
        top: match args.format {
            StatsFormat::Human | StatsFormat::Html => Some(args.top.unwrap_or(20)),
            StatsFormat::Json | StatsFormat::Csv => args.top,
        },
    };
    let mut progress = progress(&args.common, &inputs);
    let filter = args.filter.filter()?;
    let (report, summary) =
        commands::stats(&inputs, &bopts, &vopts, &sopts, &filter, &mut progress)?;
    if let Some(note) = report.openings_note().filter(|_| !args.common.quiet) {
        let _ = writeln!(io::stderr(), "kifu: note: no openings: {note}");
    }
    let mut text = Vec::new();
    match args.format {
        StatsFormat::Human => report.write_human(&mut text)?,
        StatsFormat::Json => {
            serde_json::to_writer(&mut text, &report).map_err(io::Error::from)?;
            text.write_all(b"\n")?;
        }
        StatsFormat::Csv => report.write_csv(&mut text)?,
        StatsFormat::Html => {
            let names: Vec<String> = args
                .common
                .paths
                .iter()
                .map(|p| p.to_string_lossy().into_owned())
                .collect();
            let title = if names.is_empty() {
                "standard input".to_owned()
            } else {
                names.join(" ")
            };
            report.write_html(&mut text, &title)?;
        }
    }
    if let Some(code) = emit(&text, args.output.as_deref(), args.force)? {
        return Ok(code);
    }
    // The fouls counted are findings (`validate` reports them), not failures: 0 whenever the
    // input could be read.
    Ok(if summary.unreadable { 2 } else { 0 })
}

/// Writes `bytes` to `path` atomically (refusing an existing file unless `force`), or to
/// standard output. `Some(1)` when the file was refused (an `output-exists` error).
fn emit(bytes: &[u8], path: Option<&std::path::Path>, force: bool) -> anyhow::Result<Option<u8>> {
    match path {
        Some(p) => match commands::show::write_file(p, bytes, force) {
            Ok(()) => Ok(None),
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => {
                let _ = writeln!(
                    io::stderr(),
                    "{}: error[output-exists]: the file exists; not replaced (--force replaces it)",
                    p.display()
                );
                Ok(Some(1))
            }
            Err(e) => Err(anyhow::Error::new(e).context(format!("cannot write {}", p.display()))),
        },
        None => {
            let stdout = io::stdout();
            let mut out = stdout.lock();
            out.write_all(bytes)?;
            out.flush()?;
            Ok(None)
        }
    }
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
        TargetFormat::Usen => Format::Usen,
    }
}

fn cmd_convert(args: ConvertArgs) -> anyhow::Result<u8> {
    let mut target = target_format(args.to);
    let inputs = inputs(&args.common);
    // KIF and KI2 are Shift_JIS, which a terminal shows as mojibake: to a terminal they are
    // written in UTF-8 (as `kifu`, `ki2u`), with a note; to a file or a pipe, as asked.
    let to_terminal = args.output.is_none() && io::stdout().is_terminal();
    if to_terminal && matches!(target, Format::Kif | Format::Ki2) {
        let utf8 = if target == Format::Kif {
            Format::Kifu
        } else {
            Format::Ki2u
        };
        if !args.common.quiet {
            eprintln!(
                "kifu: note: --to {} writes Shift_JIS; to this terminal it is written in UTF-8, as --to {} (redirect it to a file for Shift_JIS)",
                target.name(),
                utf8.name()
            );
        }
        target = utf8;
    }
    let mut bopts = batch_options(&args.common);
    let opts = convert::Options {
        target,
        write: WriteOptions {
            csa_v3: args.csa_version == "3.0",
            usi_endings: args.usi_endings,
        },
        validate: args.rules.options(),
        report: report_options(args.format, &args.common, &args.filter)?,
    };
    let plan = Plan::new(&inputs, args.output.as_deref(), target)?.force(args.force);
    bopts.exclude = plan.exclude().map(PathBuf::from);
    let mut progress = progress(&args.common, &inputs);
    let stdout = io::stdout();
    let mut out = BufWriter::new(stdout.lock());
    let stderr = io::stderr();
    let mut err = BufWriter::new(stderr.lock());
    let summary = convert::run(
        &inputs,
        &bopts,
        &plan,
        &opts,
        &mut out,
        &mut err,
        &mut progress,
    )?;
    Ok(summary.exit_code())
}

/// A position given on the command line as USI writes one (`kifu::formats::usi::parse_position`:
/// an SFEN, `sfen SFEN`, `startpos`, the same after `position `, and moves after `moves`,
/// played), made a position by `make` (strict for perft, relaxed for find).
fn sfen_arg<E: std::fmt::Display>(
    s: &str,
    make: impl Fn(&kifu::core::Setup) -> Result<kifu::core::Position, E>,
) -> Result<kifu::core::Position, Usage> {
    let bad = |why: String| Usage(format!("bad position {:?}: {why}", s.trim()));
    let (setup, moves) = kifu::formats::usi::parse_position(s).map_err(|e| bad(e.to_string()))?;
    let mut pos = make(&setup).map_err(|e| bad(e.to_string()))?;
    for m in moves {
        pos.play(m).map_err(|e| bad(format!("move {m}: {e}")))?;
    }
    Ok(pos)
}

fn cmd_perft(args: PerftArgs) -> anyhow::Result<u8> {
    use kifu::core::{Position, perft, perft_divide};
    let pos = match args.sfen.as_deref() {
        None => Position::startpos(),
        Some(s) => sfen_arg(s, Position::from_setup)?,
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
