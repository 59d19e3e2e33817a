//! `kifu games` and `kifu positions`, and the game filter every command shares: arguments
//! only; the library does the work (`kifu_app::commands::tables`, `kifu::tables::Filter`).

use std::io::{self, BufWriter, Write};
use std::path::PathBuf;

use clap::{Args, ValueEnum};

use kifu::tables::{self, Filter, Table};
use kifu_app::commands::{self, Destination, Partition, TableFormat, TablesOptions};

use super::{Common, Usage, at_least_one, batch_options, inputs, progress};

/// Which games to keep (`validate`, `stats`, `convert`, `games`, `positions`).
#[derive(Args, Debug, Clone, Default)]
pub struct FilterArgs {
    /// Keep games whose two players are rated at least N (floodgate's `'black_rate:` and
    /// `'white_rate:` lines); a game without ratings is left out.
    #[arg(long = "min-rating", value_name = "N", help_heading = "Filters")]
    min_rating: Option<f64>,
    /// With --min-rating: one player rated at least N is enough.
    #[arg(
        long = "min-rating-any",
        requires = "min_rating",
        help_heading = "Filters"
    )]
    min_rating_any: bool,
    /// Keep games of at least N plies.
    #[arg(long = "min-plies", value_name = "N", help_heading = "Filters")]
    min_plies: Option<u32>,
    /// Keep games of at most N plies.
    #[arg(long = "max-plies", value_name = "N", help_heading = "Filters")]
    max_plies: Option<u32>,
    /// Keep games whose recorded ending is one of these (`TORYO,KACHI,...`; `none`: no ending).
    #[arg(
        long,
        value_name = "ENDING",
        value_delimiter = ',',
        help_heading = "Filters"
    )]
    ending: Vec<String>,
    /// Keep games without an error diagnostic.
    #[arg(long, help_heading = "Filters")]
    clean: bool,
    /// Keep games started on this date or later (YYYY-MM-DD); a game without a date is left out.
    #[arg(long, value_name = "DATE", value_parser = date_arg, help_heading = "Filters")]
    since: Option<i32>,
    /// Keep games started on this date or earlier (YYYY-MM-DD).
    #[arg(long, value_name = "DATE", value_parser = date_arg, help_heading = "Filters")]
    until: Option<i32>,
    /// Keep games one of whose players is named exactly NAME (repeatable).
    #[arg(long, value_name = "NAME", help_heading = "Filters")]
    player: Vec<String>,
    /// Keep games whose event contains TEXT (repeatable).
    #[arg(long, value_name = "TEXT", help_heading = "Filters")]
    event: Vec<String>,
    /// Keep only the first game (in input order) of each game key (same start and moves).
    #[arg(long, help_heading = "Filters")]
    dedup: bool,
}

fn date_arg(s: &str) -> Result<i32, String> {
    tables::parse_date(s).ok_or_else(|| format!("not a date (YYYY-MM-DD): {s}"))
}

impl FilterArgs {
    /// The library's filter.
    pub fn filter(&self) -> Result<Filter, Usage> {
        if self.min_rating.is_some_and(|r| !r.is_finite()) {
            return Err(Usage("--min-rating takes a number".to_owned()));
        }
        Ok(Filter {
            min_rating: self.min_rating,
            min_rating_any: self.min_rating_any,
            min_plies: self.min_plies,
            max_plies: self.max_plies,
            endings: self.ending.clone(),
            clean: self.clean,
            since: self.since,
            until: self.until,
            players: self.player.clone(),
            events: self.event.clone(),
            dedup: self.dedup,
        })
    }
}

#[derive(ValueEnum, Debug, Clone, Copy, PartialEq, Eq)]
pub enum TableFormatArg {
    Csv,
    Json,
    Parquet,
}

#[derive(ValueEnum, Debug, Clone, Copy, PartialEq, Eq)]
pub enum PartitionArg {
    Year,
    Event,
}

/// The arguments of `games` and `positions`.
#[derive(Args, Debug)]
pub struct TableArgs {
    #[command(flatten)]
    common: Common,
    /// Output format: `csv` (a header row), `json` (JSON Lines) or `parquet` (needs -o).
    #[arg(long, value_enum, default_value = "csv")]
    format: TableFormatArg,
    /// Output file; with `parquet`, a directory (existing, ending in `/`, or with
    /// --partition-by) gets `part-0000.parquet` shards. Default: standard output.
    #[arg(short = 'o', long = "output", value_name = "OUT")]
    output: Option<PathBuf>,
    /// Parquet into a directory: one Hive-style shard directory per year or per event
    /// (`year=2024/part-0000.parquet`).
    #[arg(long = "partition-by", value_enum, value_name = "KEY")]
    partition_by: Option<PartitionArg>,
    /// Replace existing output files.
    #[arg(long)]
    force: bool,
    /// Only these columns, in this order (comma-separated: `--columns sfen,move,result`);
    /// docs/tables.md lists them. Default: every column.
    #[arg(long, value_name = "NAMES", value_delimiter = ',')]
    columns: Vec<String>,
    /// Plies of the `opening` column (games table).
    #[arg(long = "opening-plies", default_value_t = 8, value_name = "N", value_parser = at_least_one)]
    opening_plies: usize,
    /// Rows per Parquet row group (default: 16,384 games or 65,536 moves).
    #[arg(long = "batch-rows", value_name = "N", value_parser = at_least_one, hide = true)]
    batch_rows: Option<usize>,
    #[command(flatten)]
    filter: FilterArgs,
    #[command(flatten)]
    rules: super::RuleArgs,
}

/// Runs `games` or `positions`.
pub fn cmd_table(args: TableArgs, table: Table) -> anyhow::Result<u8> {
    let format = match args.format {
        TableFormatArg::Csv => TableFormat::Csv,
        TableFormatArg::Json => TableFormat::Json,
        TableFormatArg::Parquet => TableFormat::Parquet,
    };
    let partition = args.partition_by.map(|p| match p {
        PartitionArg::Year => Partition::Year,
        PartitionArg::Event => Partition::Event,
    });
    let destination = match (&args.output, format) {
        (None, TableFormat::Parquet) => {
            return Err(
                Usage("--format parquet writes to a file or directory: give -o".into()).into(),
            );
        }
        (None, _) if partition.is_some() => {
            return Err(Usage("--partition-by needs --format parquet and -o DIR".into()).into());
        }
        (None, _) => Destination::Stdout,
        (Some(p), TableFormat::Parquet) => {
            let dir =
                partition.is_some() || p.is_dir() || p.as_os_str().to_string_lossy().ends_with('/');
            if dir {
                Destination::Dir(p.clone(), partition)
            } else {
                Destination::File(p.clone())
            }
        }
        (Some(_), _) if partition.is_some() => {
            return Err(Usage("--partition-by needs --format parquet".into()).into());
        }
        (Some(p), _) if p.is_dir() => {
            return Err(Usage(format!(
                "{} is a directory: CSV and JSON go to one file",
                p.display()
            ))
            .into());
        }
        (Some(p), _) => Destination::File(p.clone()),
    };
    let columns = match args.columns.is_empty() {
        true => None,
        false => Some(
            tables::Columns::select(table, &args.columns)
                .map_err(|e| Usage(format!("--columns: {e}")))?,
        ),
    };
    let opts = TablesOptions {
        table,
        columns,
        rows: tables::Options {
            opening_plies: args.opening_plies,
        },
        filter: args.filter.filter()?,
        format,
        destination,
        force: args.force,
        batch_rows: args.batch_rows.unwrap_or(0),
        quiet: args.common.quiet,
    };
    let inputs = inputs(&args.common);
    let bopts = batch_options(&args.common);
    let vopts = args.rules.options();
    let mut progress = progress(&args.common, &inputs);
    let stdout = io::stdout();
    let mut out = BufWriter::with_capacity(1 << 16, stdout.lock());
    let stderr = io::stderr();
    let mut err = stderr.lock();
    let (summary, rows) = commands::tables(
        &inputs,
        &bopts,
        &vopts,
        &opts,
        &mut out,
        &mut err,
        &mut progress,
    )?;
    out.flush()?;
    // Written to files: what was written, as `convert` says it (on standard output the table
    // speaks for itself).
    let files = summary.outputs.map_or(0, |o| o.written);
    if !args.common.quiet && !matches!(opts.destination, Destination::Stdout) {
        let what = match table {
            kifu::tables::Table::Games => "game",
            kifu::tables::Table::Positions => "position",
        };
        writeln!(
            err,
            "wrote {rows} {what} rows of {} games from {} files to {files} file{}",
            summary.games,
            summary.files,
            if files == 1 { "" } else { "s" }
        )?;
    }
    // As `stats`: the fouls are in the table; 0 whenever the input could be read.
    Ok(if summary.unreadable { 2 } else { 0 })
}
