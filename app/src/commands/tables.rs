//! The table jobs of `kifu games` and `kifu positions`: every game of the inputs read and
//! validated on the workers, filtered ([`Filter`]), and written in input order as CSV or JSON
//! Lines (to standard output or a file) or Parquet (a file, or Hive-style shards in a
//! directory), each file written atomically.
//!
//! Layer: commands, above [`batch`] (whose run it drives and whose [`AtomicFile`] it writes
//! with) and [`tables`](kifu::tables) (the rows and their writers). The rows are made on
//! the workers (a game's positions too, held compactly as [`PositionRows`]) and written in
//! order on the calling thread, so nothing but the rows of the units in flight is held.

use std::io::{self, BufWriter, Write};
use std::ops::Range;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use crate::batch::atomic::{AtomicFile, PersistError};
use crate::batch::{self, Input, Observer};
use arrow_array::RecordBatch;
use kifu::diag::Diagnostic;
use kifu::formats::Format;
use kifu::tables::{self, Columns, Dedup, Facts, Filter, GameRow, Origin, PositionRows, Table};
use kifu::validate;

use super::{Outputs, Summary};

mod partitioned;
mod sinks;
use sinks::{BatchSink, Rows, Writer, sink, unsharded, write_positions};

/// The file format of a table.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TableFormat {
    /// CSV with a header row.
    Csv,
    /// JSON Lines.
    Json,
    /// Parquet (zstd).
    Parquet,
}

/// How Parquet shards are split into Hive-style directories.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Partition {
    /// `year=2024/`, by the start date (`year=__HIVE_DEFAULT_PARTITION__` without one).
    Year,
    /// `event=NAME/`, by the event (percent-encoded), the `event` column then left out of the
    /// files (games table only).
    Event,
}

/// Where a table goes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Destination {
    /// Standard output (CSV and JSON Lines).
    Stdout,
    /// One file.
    File(PathBuf),
    /// A directory of Parquet shards: `part-0000.parquet`, or per partition
    /// `KEY=VALUE/part-0000.parquet`.
    Dir(PathBuf, Option<Partition>),
}

/// What to write, and where.
#[derive(Debug, Clone, PartialEq)]
pub struct TablesOptions {
    /// Games or positions.
    pub table: Table,
    /// How to make the rows.
    pub rows: tables::Options,
    /// Which games to keep.
    pub filter: Filter,
    /// The file format.
    pub format: TableFormat,
    /// Where it goes.
    pub destination: Destination,
    /// Replace existing output files.
    pub force: bool,
    /// Rows per Parquet row group (and per Arrow batch); 0: the table's default.
    pub batch_rows: usize,
    /// Findings about unreadable inputs: errors only.
    pub quiet: bool,
    /// The columns written, in their order (`None`: all). Must be of `table`.
    pub columns: Option<Columns>,
}

impl TablesOptions {
    /// The columns written.
    fn columns(&self) -> Columns {
        self.columns
            .clone()
            .filter(|c| c.table() == self.table)
            .unwrap_or_else(|| Columns::all(self.table))
    }
}

/// The window of the positions table (see [`batch::Options::window`]): 96 permits, that is
/// 96 files listed for the workers to read, or 32 chunks of [`POSITIONS_CHUNK`] (a chunk
/// weighs three). A unit's rows take about twelve times its bytes, and wait for the writer
/// when it is the slow part (Parquet's encoder). A file listed weighs one permit whatever
/// its size (it is not read yet): a one-game file holds one game's rows, and a multi-game
/// file (CSA, USI) bigger than a chunk is cut into chunks, so at most about 96 times 32 KiB
/// of input, some 40 MB of rows, wait. The window was 4 units in sessions 15 to 22 (the
/// workers of `-j2` spent the run waking each other: 41,000 context switches on 10,000
/// files), then 36 permits with chunks of 128 KiB, with which every thread of `-j2` was
/// busy about half the time (session 25: 96 and 32 KiB are 5 to 20 % faster at `-j2` on
/// small files and on a file of 100,000 games, as runs go; docs/history/benchmarks-notebook.md).
const POSITIONS_WINDOW: usize = 96;

/// Chunks of multi-game files for the positions table (see [`batch::Options::chunk_bytes`]),
/// and the most of one a worker reads whole: a sixteenth of the default. With
/// the default's 512 KiB, four units' rows took the peak memory of a million CSA games to
/// Parquet from 86 MB to 113 MB; with 32 KiB the window holds more units for the same
/// memory, and one worker alone (`-j1`) is no slower (4.40 -> 4.21 s on 100,000 games).
const POSITIONS_CHUNK: usize = 32 * 1024;

/// A file being written, renamed into place when done.
type Staged = BufWriter<AtomicFile>;

/// What a worker keeps of a game for the writer.
struct Kept {
    facts: Facts,
    pass: bool,
    row: Option<GameRow>,
    /// The positions table's rows of the game: these rows of its unit's [`PositionRows`].
    positions: Option<Range<usize>>,
    diagnostics: Vec<Diagnostic>,
    plies: u32,
}

fn exists(path: &Path) -> io::Error {
    io::Error::new(
        io::ErrorKind::AlreadyExists,
        format!(
            "{} exists; not replaced (--force replaces it)",
            path.display()
        ),
    )
}

fn stage(path: &Path, force: bool) -> io::Result<Staged> {
    if !force && path.exists() {
        return Err(exists(path));
    }
    let f = AtomicFile::create(path)
        .map_err(|e| io::Error::new(e.kind(), format!("cannot write {}: {e}", path.display())))?;
    Ok(BufWriter::with_capacity(1 << 16, f))
}

fn commit(staged: Staged, force: bool) -> io::Result<()> {
    let f = staged.into_inner().map_err(|e| e.into_error())?;
    let target = f.target().to_path_buf();
    match f.persist(force) {
        Ok(()) => Ok(()),
        Err(PersistError::Exists) => Err(exists(&target)),
        Err(PersistError::Io(e)) => Err(io::Error::new(
            e.kind(),
            format!("cannot write {}: {e}", target.display()),
        )),
    }
}

/// A Hive partition value: the ASCII characters a path or a Hive reader would take for
/// something else percent-encoded (as Hive and Spark escape them), other text kept; a value
/// longer than 200 bytes is cut at a character boundary and ends with `~` and a hash of the
/// whole (a file name holds at most 255 bytes).
fn hive_value(v: &str) -> String {
    let mut s = String::new();
    for c in v.chars() {
        match c {
            '"' | '#' | '%' | '\'' | '*' | '/' | ':' | '=' | '?' | '\\' | '{' | '[' | ']' | '^'
            | '+' | ' ' | '\u{7f}' => s.push_str(&format!("%{:02X}", c as u32)),
            c if c.is_control() && c.is_ascii() => s.push_str(&format!("%{:02X}", c as u32)),
            c => s.push(c),
        }
    }
    // An empty value is the null partition; the names `.` and `..` (no directory can have
    // them) and the null partition's own name are kept as values, their first character
    // percent-encoded (a Hive reader decodes it back).
    match s.as_str() {
        "" => return "__HIVE_DEFAULT_PARTITION__".to_owned(),
        "." => return "%2E".to_owned(),
        ".." => return "%2E.".to_owned(),
        "__HIVE_DEFAULT_PARTITION__" => return "%5F_HIVE_DEFAULT_PARTITION__".to_owned(),
        _ => {}
    }
    if s.len() > 200 {
        let mut cut = 200;
        while !s.is_char_boundary(cut) {
            cut -= 1;
        }
        let mut h: u32 = 0x811c_9dc5;
        for b in v.bytes() {
            h = (h ^ u32::from(b)).wrapping_mul(0x0100_0193);
        }
        s.truncate(cut);
        s.push_str(&format!("~{h:08x}"));
    }
    s
}

fn partition_dir(p: Partition, row: Option<&GameRow>, facts: &Facts) -> String {
    match p {
        Partition::Year => match row.and_then(|r| r.start_date).or_else(|| {
            facts.date.map(|days| tables::DateTime {
                days,
                seconds: None,
            })
        }) {
            Some(d) => format!("year={}", d.year()),
            None => "year=__HIVE_DEFAULT_PARTITION__".to_owned(),
        },
        Partition::Event => format!(
            "event={}",
            facts
                .event
                .as_deref()
                .filter(|e| !e.is_empty())
                .map_or_else(|| "__HIVE_DEFAULT_PARTITION__".to_owned(), hive_value)
        ),
    }
}

/// Reads, validates, filters and writes every game of `inputs` as a table; findings about
/// inputs that could not be read go to `err` (human style). Returns the counts (of the games
/// kept) and the rows written.
pub fn tables(
    inputs: &[Input],
    batch_opts: &batch::Options,
    validate_opts: &validate::Options,
    opts: &TablesOptions,
    out: &mut dyn Write,
    err: &mut dyn Write,
    observer: &mut dyn Observer,
) -> io::Result<(Summary, u64)> {
    if let (Destination::Dir(root, _), false) = (&opts.destination, opts.force)
        && std::fs::read_dir(root).is_ok_and(|mut d| d.next().is_some())
    {
        return Err(exists(root));
    }
    let writer = Writer::new(opts, out)?;
    run(
        inputs,
        batch_opts,
        validate_opts,
        opts,
        writer,
        err,
        observer,
    )
}

/// Reads, validates and filters every game of `inputs` as [`tables`](fn@tables) does, and hands the
/// table over as Arrow record batches of `opts.batch_rows` rows (0: the table's default,
/// [`GAMES_ROW_GROUP_ROWS`](tables::GAMES_ROW_GROUP_ROWS) or
/// [`ROW_GROUP_ROWS`](tables::ROW_GROUP_ROWS)) to `sink`, one at a time in input order,
/// instead of writing a file (`opts.format`, `opts.destination` and `opts.force` are not
/// used). An error from `sink` stops the run and is returned. Returns the counts and the
/// rows handed over.
pub fn table_batches(
    inputs: &[Input],
    batch_opts: &batch::Options,
    validate_opts: &validate::Options,
    opts: &TablesOptions,
    sink: &mut dyn FnMut(RecordBatch) -> io::Result<()>,
    err: &mut dyn Write,
    observer: &mut dyn Observer,
) -> io::Result<(Summary, u64)> {
    let batch_rows = match (opts.batch_rows, opts.table) {
        (0, Table::Games) => tables::GAMES_ROW_GROUP_ROWS,
        (0, Table::Positions) => tables::ROW_GROUP_ROWS,
        (n, _) => n,
    };
    let rows = match opts.table {
        Table::Games => Rows::Games(Box::default()),
        Table::Positions => Rows::Positions(Box::default()),
    };
    let columns = opts.columns();
    let writer = Writer::Batches(Box::new(BatchSink {
        rows,
        batch_rows,
        columns: columns.picked(),
        sink,
    }));
    run(
        inputs,
        batch_opts,
        validate_opts,
        opts,
        writer,
        err,
        observer,
    )
}

/// The run behind [`tables`] and [`table_batches`].
fn run(
    inputs: &[Input],
    batch_opts: &batch::Options,
    validate_opts: &validate::Options,
    opts: &TablesOptions,
    mut writer: Writer<'_>,
    err: &mut dyn Write,
    observer: &mut dyn Observer,
) -> io::Result<(Summary, u64)> {
    let mut summary = Summary::default();
    let mut dedup = Dedup::new();
    let mut rows = 0u64;
    let mut game_index = 0u64;
    let table = opts.table;
    // The positions rows of a unit (a hundred bytes and more a move) wait for this thread:
    // few units may wait.
    let mut batch_opts = batch_opts.clone();
    if table == Table::Positions {
        if batch_opts.window == 0 {
            batch_opts.window = POSITIONS_WINDOW;
        }
        if batch_opts.chunk_bytes == 0 {
            batch_opts.chunk_bytes = POSITIONS_CHUNK;
        }
        // One Parquet file's row groups are encoded on a thread of their own, and on this
        // table that thread is as busy as a worker (zstd over a hundred bytes a row): it
        // takes one of the jobs. With a worker more than the cores can run beside it,
        // `-j2` on two cores was slower than `-j1` (docs/history/benchmarks-notebook.md, session 25).
        if matches!(writer, Writer::Parquet(_)) {
            batch_opts.jobs = batch_opts.threads().saturating_sub(1).max(1);
        }
    }
    // A table without the `sfen` column is made without writing them.
    let sfens = opts.columns().has("sfen");
    let res = batch::run(
        inputs,
        &batch_opts,
        |unit| {
            let mut positions = match sfens {
                true => PositionRows::new(),
                false => PositionRows::without_sfens(),
            };
            let gather = match table {
                Table::Games => validate::Gather::Games,
                Table::Positions => validate::Gather::Positions,
            };
            // Each game's digest, gathered as `validate` judges the game.
            let g = batch::gather_unit(unit, validate_opts, gather);
            let (games, file) = (g.games, g.diagnostics);
            if table == Table::Positions {
                // The unit's rows at once: grown game by game, its columns' large blocks
                // taken and freed again left the allocator holding tens of megabytes.
                positions.reserve(games.iter().map(|(r, _)| r.plies as usize).sum());
            }
            // The positions rows name the file; their games are numbered across the file
            // where the units come back in order (`set_game_index`).
            let path: Arc<str> = Arc::from(unit.source.path.as_str());
            let origin = Origin {
                path: &unit.source.path,
                game: 0,
                format: g.format.map(Format::name),
                encoding: g.encoding.map(|e| e.name()),
            };
            let games: Vec<Kept> = games
                .into_iter()
                .map(|(r, game)| kept(r, &game, origin, opts, &mut positions, &path))
                .collect();
            (games, file, positions)
        },
        |unit, (games, file, mut positions)| {
            if unit.chunk == 0 {
                game_index = 0;
            }
            if unit.last {
                summary.files += 1;
            }
            summary.count(&file);
            super::write_human(err, &unit.source.path, &file, opts.quiet)?;
            let n = games.len() as u64;
            // The positions rows of the unit's games written next to each other go together
            // (one slice of its batch, not one a game), except into shards, where each
            // game's may go to another file.
            let shards = matches!(writer, Writer::Shards { .. } | Writer::Partitioned(..));
            let mut together: Option<Range<usize>> = None;
            for mut k in games {
                let index = game_index;
                game_index += 1;
                if !k.pass || (opts.filter.dedup && !dedup.first(k.facts.key)) {
                    continue;
                }
                summary.games += 1;
                summary.plies += u64::from(k.plies);
                summary.count(&k.diagnostics);
                if let Some(row) = &mut k.row {
                    row.game = index;
                }
                if let Some(r) = k.positions.clone().filter(|r| !r.is_empty()) {
                    positions.set_game_index(r.start, index);
                }
                match (k.positions.clone(), shards) {
                    (Some(r), false) => match &mut together {
                        Some(t) if t.end == r.start => t.end = r.end,
                        _ => {
                            if let Some(t) = together.replace(r) {
                                let target = sink(&mut writer, opts, &k)?;
                                rows += write_positions(target, t, &positions)?;
                            }
                        }
                    },
                    (Some(r), true) => {
                        let target = sink(&mut writer, opts, &k)?;
                        rows += write_positions(target, r, &positions)?;
                    }
                    (None, _) => {
                        if let Some(row) = &k.row {
                            sink(&mut writer, opts, &k)?.game(row)?;
                            rows += 1;
                        }
                    }
                }
            }
            if let (Some(t), Some(target)) = (together, unsharded(&mut writer)) {
                rows += write_positions(target, t, &positions)?;
            }
            observer.unit_done(n, unit.len(), unit.last);
            Ok(())
        },
    );
    observer.finish();
    res?;
    let files = writer.finish(opts.force)?;
    summary.outputs = Some(Outputs {
        written: files,
        ..Outputs::default()
    });
    Ok((summary, rows))
}

/// What a worker keeps of a game: its games row, or its positions rows added to
/// `positions`, if the filter passes it.
fn kept(
    report: validate::Report,
    game: &validate::Digest,
    origin: Origin<'_>,
    opts: &TablesOptions,
    positions: &mut PositionRows,
    path: &Arc<str>,
) -> Kept {
    let games = opts.table == Table::Games;
    let start = positions.len();
    let facts = Facts::of(game, &report);
    let pass = opts.filter.admits(&facts);
    let row = (pass && games).then(|| GameRow::new(origin, game, &report, &opts.rows));
    if pass && !games {
        let winner = report.result.winner;
        positions.push(game, report.plies, winner, Arc::clone(path), 0);
    }
    Kept {
        pass,
        facts,
        row,
        positions: (pass && !games).then(|| start..positions.len()),
        diagnostics: report.diagnostics,
        plies: report.plies,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn partition_values_are_escaped() {
        assert_eq!(hive_value("floodgate-300-10F"), "floodgate-300-10F");
        assert_eq!(hive_value("a/b=c"), "a%2Fb%3Dc");
        assert_eq!(hive_value("竜王戦 a+b"), "竜王戦%20a%2Bb");
        let long = hive_value(&"王".repeat(100));
        assert!(
            long.len() <= 210 && long.starts_with("王王") && long.contains('~'),
            "{long}"
        );
        assert_eq!(hive_value(".."), "%2E.");
        assert_eq!(hive_value("."), "%2E");
        assert_eq!(hive_value(""), "__HIVE_DEFAULT_PARTITION__");
        assert_eq!(
            hive_value("__HIVE_DEFAULT_PARTITION__"),
            "%5F_HIVE_DEFAULT_PARTITION__"
        );
    }

    fn batches_of(
        table: Table,
        batch_rows: usize,
        stop_after: usize,
    ) -> (Vec<usize>, io::Result<u64>) {
        let dir = tempfile::tempdir().unwrap();
        let game = "startpos moves 7g7f 3c3d 2g2f resign\n";
        std::fs::write(dir.path().join("a.usi"), game.repeat(5)).unwrap();
        let opts = TablesOptions {
            table,
            rows: tables::Options::default(),
            filter: Filter::default(),
            format: TableFormat::Parquet,
            destination: Destination::Stdout,
            force: false,
            batch_rows,
            quiet: true,
            columns: None,
        };
        let mut sizes = Vec::new();
        let mut sink = |b: RecordBatch| {
            if sizes.len() == stop_after {
                return Err(io::Error::other("the reader is gone"));
            }
            sizes.push(b.num_rows());
            Ok(())
        };
        let r = table_batches(
            &[Input::Path(dir.path().to_path_buf())],
            &batch::Options::default(),
            &validate::Options::default(),
            &opts,
            &mut sink,
            &mut io::sink(),
            &mut (),
        );
        (sizes, r.map(|(_, rows)| rows))
    }

    #[test]
    fn batches_are_handed_over_a_few_rows_at_a_time() {
        let (sizes, rows) = batches_of(Table::Games, 2, usize::MAX);
        assert_eq!(sizes, [2, 2, 1]);
        assert_eq!(rows.unwrap(), 5);
        // 5 games of 3 moves: 15 positions, 4 to a batch.
        let (sizes, rows) = batches_of(Table::Positions, 4, usize::MAX);
        assert_eq!(sizes, [4, 4, 4, 3]);
        assert_eq!(rows.unwrap(), 15);
        // The default size: everything in one batch.
        assert_eq!(batches_of(Table::Positions, 0, usize::MAX).0, [15]);
        // A sink that fails stops the run with its error.
        let (sizes, rows) = batches_of(Table::Positions, 4, 1);
        assert_eq!(sizes, [4]);
        assert_eq!(rows.unwrap_err().to_string(), "the reader is gone");
    }
}
