//! Where the rows of the table jobs ([`super::tables`], [`super::table_batches`]) go: a
//! [`RowSink`] (a CSV or JSON Lines table, a Parquet file, or Arrow batches handed to a
//! callback, [`BatchSink`]).

use std::io::{self, Write};
use std::path::PathBuf;

use arrow_array::RecordBatch;

use std::ops::Range;

use kifu::tables::{self, GameRow, GamesBatch, ParquetTable, PositionRows, TextStyle, TextTable};

use super::partitioned::Partitioned;
use super::{
    Destination, Kept, Partition, Staged, TableFormat, TablesOptions, commit, partition_dir, stage,
};

/// The rows of one table being gathered.
pub(super) enum Rows {
    Games(Box<GamesBatch>),
    Positions(Box<PositionRows>),
}

/// Rows gathered into record batches handed to a callback (see [`super::table_batches`]).
pub(super) struct BatchSink<'o> {
    pub(super) rows: Rows,
    pub(super) batch_rows: usize,
    /// The columns handed over, by index in the table's schema (`None`: all, in order).
    pub(super) columns: Option<Vec<usize>>,
    pub(super) sink: &'o mut dyn FnMut(RecordBatch) -> io::Result<()>,
}

impl BatchSink<'_> {
    /// Hands over the rows gathered, if any.
    pub(super) fn flush(&mut self) -> io::Result<()> {
        let columns = self.columns.as_deref();
        let batch = match &mut self.rows {
            Rows::Games(b) if !b.is_empty() => tables::project(b.finish(), columns)?,
            Rows::Positions(b) if !b.is_empty() => std::mem::take(&mut **b).into_batch_of(columns),
            _ => return Ok(()),
        };
        (self.sink)(batch)
    }
}

impl RowSink for BatchSink<'_> {
    fn game(&mut self, r: &GameRow) -> io::Result<()> {
        if let Rows::Games(b) = &mut self.rows {
            b.push(r);
            if b.len() >= self.batch_rows {
                return self.flush();
            }
        }
        Ok(())
    }
    fn positions(&mut self, rows: &PositionRows, range: Range<usize>) -> io::Result<()> {
        let mut range = range;
        while !range.is_empty() {
            let Rows::Positions(b) = &mut self.rows else {
                return Ok(());
            };
            if b.fill(rows, &mut range, self.batch_rows) {
                self.flush()?;
            }
        }
        Ok(())
    }
}

/// Something rows are written to.
pub(super) trait RowSink {
    fn game(&mut self, r: &GameRow) -> io::Result<()>;
    /// The rows `range` of a unit's positions rows.
    fn positions(&mut self, rows: &PositionRows, range: Range<usize>) -> io::Result<()>;
}

impl<W: Write> RowSink for TextTable<W> {
    fn game(&mut self, r: &GameRow) -> io::Result<()> {
        TextTable::game(self, r)
    }
    fn positions(&mut self, rows: &PositionRows, range: Range<usize>) -> io::Result<()> {
        rows.rows_in(range)
            .try_for_each(|r| TextTable::position(self, &r))
    }
}

impl<W: Write + Send> RowSink for ParquetTable<W> {
    fn game(&mut self, r: &GameRow) -> io::Result<()> {
        ParquetTable::game(self, r)
    }
    fn positions(&mut self, rows: &PositionRows, range: Range<usize>) -> io::Result<()> {
        ParquetTable::positions(self, rows, range)
    }
}

/// Where the rows of a table job go.
pub(super) enum Writer<'o> {
    Text(TextTable<&'o mut dyn Write>),
    Batches(Box<BatchSink<'o>>),
    TextFile(Box<TextTable<Staged>>),
    Parquet(Box<ParquetTable<Staged>>),
    /// A directory without partitions: its one shard, `DIR/part-0000.parquet`, opened with
    /// the first row (no file when no row comes).
    Shards {
        root: PathBuf,
        /// The shard, once opened.
        open: Option<ParquetTable<Staged>>,
    },
    /// Parquet shards in Hive-style partition directories, each partition written once.
    Partitioned(Box<Partitioned>, Partition),
}

impl<'o> Writer<'o> {
    pub(super) fn new(opts: &TablesOptions, stdout: &'o mut dyn Write) -> io::Result<Writer<'o>> {
        let style = match opts.format {
            TableFormat::Csv => Some(TextStyle::Csv),
            TableFormat::Json => Some(TextStyle::Json),
            TableFormat::Parquet => None,
        };
        Ok(match (&opts.destination, style) {
            (Destination::Stdout, Some(style)) => {
                Writer::Text(TextTable::with_columns(stdout, style, &opts.columns())?)
            }
            (Destination::File(p), Some(style)) => Writer::TextFile(Box::new(
                TextTable::with_columns(stage(p, opts.force)?, style, &opts.columns())?,
            )),
            // One file: its row groups encoded on a thread of their own (shards stay on
            // this thread: each open one would hold another row group).
            (Destination::File(p), None) => Writer::Parquet(Box::new(
                ParquetTable::with_columns(
                    stage(p, opts.force)?,
                    &opts.columns(),
                    opts.batch_rows,
                )?
                .background()?,
            )),
            (Destination::Dir(root, None), None) => Writer::Shards {
                root: root.clone(),
                open: None,
            },
            (Destination::Dir(root, Some(partition)), None) => {
                let columns = match partition {
                    Partition::Event => opts.columns().without("event"),
                    Partition::Year => opts.columns(),
                };
                Writer::Partitioned(
                    Box::new(Partitioned::new(
                        root.clone(),
                        columns,
                        opts.batch_rows,
                        opts.force,
                    )),
                    *partition,
                )
            }
            (Destination::Stdout, None) | (Destination::Dir(..), Some(_)) => {
                return Err(io::Error::new(
                    io::ErrorKind::InvalidInput,
                    "this output takes Parquet to a file or directory (-o), CSV and JSON to \
                     standard output or a file",
                ));
            }
        })
    }

    /// Writes what is left and puts the files in place; returns how many files were written.
    pub(super) fn finish(self, force: bool) -> io::Result<u64> {
        match self {
            Writer::Text(t) => t.finish()?.flush().map(|_| 0),
            Writer::Batches(mut b) => b.flush().map(|_| 0),
            Writer::TextFile(t) => commit((*t).finish()?, force).map(|_| 1),
            Writer::Parquet(p) => commit((*p).finish()?, force).map(|_| 1),
            Writer::Shards { open, .. } => match open {
                Some(p) => commit(p.finish()?, force).map(|_| 1),
                None => Ok(0),
            },
            Writer::Partitioned(p, _) => p.finish(),
        }
    }
}

/// Where the rows go, when that is one table (not shards).
pub(super) fn unsharded<'w>(writer: &'w mut Writer<'_>) -> Option<&'w mut dyn RowSink> {
    match writer {
        Writer::Text(t) => Some(t),
        Writer::Batches(b) => Some(&mut **b),
        Writer::TextFile(t) => Some(&mut **t),
        Writer::Parquet(p) => Some(&mut **p),
        Writer::Shards { .. } | Writer::Partitioned(..) => None,
    }
}

/// Where a kept game's rows go: its shard (opened if need be), or the one table.
pub(super) fn sink<'w>(
    writer: &'w mut Writer<'_>,
    opts: &TablesOptions,
    k: &Kept,
) -> io::Result<&'w mut dyn RowSink> {
    let (root, open) = match writer {
        Writer::Text(t) => return Ok(t),
        Writer::Batches(b) => return Ok(&mut **b),
        Writer::TextFile(t) => return Ok(&mut **t),
        Writer::Parquet(p) => return Ok(&mut **p),
        Writer::Partitioned(p, partition) => {
            p.enter(partition_dir(*partition, k.row.as_ref(), &k.facts));
            return Ok(&mut **p);
        }
        Writer::Shards { root, open } => (root, open),
    };
    if open.is_none() {
        let path = root.join("part-0000.parquet");
        *open = Some(ParquetTable::with_columns(
            stage(&path, opts.force)?,
            &opts.columns(),
            opts.batch_rows,
        )?);
    }
    open.as_mut()
        .map(|t| t as &mut dyn RowSink)
        .ok_or_else(|| io::Error::other("no shard"))
}

/// Writes the positions rows `range` of a unit's `positions`; returns how many.
pub(super) fn write_positions(
    target: &mut dyn RowSink,
    range: Range<usize>,
    positions: &PositionRows,
) -> io::Result<u64> {
    let n = range.len() as u64;
    target.positions(positions, range)?;
    Ok(n)
}
