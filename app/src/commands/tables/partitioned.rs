//! Parquet shards in Hive-style partition directories (`--partition-by year|event`), each
//! partition written once, whatever the order its rows come in.
//!
//! Rows are gathered as they come, each tagged with its partition, into runs of a row
//! group's size (the memory one open Parquet file holds). A full run is sorted by partition
//! (stably: input order within a partition) and spilled to an unnamed temporary file beside
//! the output (Arrow IPC, in slices of [`SLICE_ROWS`] rows). At the end the runs are merged:
//! each partition's rows are read from every run in turn, a slice at a time, and written to
//! one shard, `DIR/KEY=VALUE/part-0000.parquet`. So a stream of many interleaved events
//! gives one file per event (it gave one at nearly every game when 16 shards were kept open
//! and the oldest closed), and memory stays at a run and a slice per run.

use std::collections::HashMap;
use std::fs::File;
use std::io::{self, Seek};
use std::ops::Range;
use std::path::PathBuf;

use arrow_array::{RecordBatch, UInt32Array};
use arrow_ipc::reader::FileReader;
use arrow_ipc::writer::FileWriter;
use arrow_schema::ArrowError;

use kifu::tables::{self, Columns, GameRow, ParquetTable, PositionRows};

use super::sinks::{RowSink, Rows};
use super::{commit, stage};

/// Rows of a slice of a spilled run: what the merge holds of each run at a time.
const SLICE_ROWS: usize = 4096;

/// A shard of fewer rows is written uncompressed: zstd's set-up, for every column, cost more
/// than it saved (`ParquetTable::with_compression`).
const SMALL_SHARD_ROWS: usize = 1024;

fn to_io(e: ArrowError) -> io::Error {
    match e {
        ArrowError::IoError(_, e) => e,
        e => io::Error::other(e.to_string()),
    }
}

/// Each partition's rows in a run sorted by partition: `(partition, first row, rows)`, by
/// partition.
type Parts = Vec<(u32, usize, usize)>;

/// A run of rows sorted by partition: where its slices are in the spill file, and each
/// partition's rows in it.
struct Run {
    /// The spill file's batch that holds the run's first slice.
    first_slice: usize,
    parts: Parts,
}

/// The rows of a partitioned table on their way to their shards.
pub(in crate::commands) struct Partitioned {
    root: PathBuf,
    /// The columns written (a partition's own column left out).
    columns: Columns,
    picked: Option<Vec<usize>>,
    batch_rows: usize,
    force: bool,
    /// The partition directories (`year=2024`), by id in order of first sight.
    names: Vec<String>,
    ids: HashMap<String, u32>,
    /// The partition of the rows being added.
    current: u32,
    /// The run being gathered, and the partition of each of its rows.
    rows: Rows,
    partitions: Vec<u32>,
    /// The runs spilled, and the file (unnamed: gone with the process however it ends).
    runs: Vec<Run>,
    spill: Option<FileWriter<File>>,
    slices: usize,
}

impl Partitioned {
    pub(in crate::commands) fn new(
        root: PathBuf,
        columns: Columns,
        batch_rows: usize,
        force: bool,
    ) -> Partitioned {
        let table = columns.table();
        let batch_rows = match (batch_rows, table) {
            (0, tables::Table::Games) => tables::GAMES_ROW_GROUP_ROWS,
            (0, tables::Table::Positions) => tables::ROW_GROUP_ROWS,
            (n, _) => n,
        };
        Partitioned {
            root,
            picked: columns.picked(),
            columns,
            batch_rows,
            force,
            names: Vec::new(),
            ids: HashMap::new(),
            current: 0,
            rows: match table {
                tables::Table::Games => Rows::Games(Box::default()),
                tables::Table::Positions => Rows::Positions(Box::default()),
            },
            partitions: Vec::new(),
            runs: Vec::new(),
            spill: None,
            slices: 0,
        }
    }

    /// The rows added next go to the partition directory `dir`.
    pub(in crate::commands) fn enter(&mut self, dir: String) {
        self.current = match self.ids.get(&dir) {
            Some(&id) => id,
            None => {
                let id = self.names.len() as u32;
                self.ids.insert(dir.clone(), id);
                self.names.push(dir);
                id
            }
        };
    }

    /// The run gathered as a batch of the written columns sorted by partition (stably), and
    /// its partitions' ranges; `None` when it is empty.
    fn sorted_run(&mut self) -> io::Result<Option<(RecordBatch, Parts)>> {
        let columns = self.picked.as_deref();
        let batch = match &mut self.rows {
            Rows::Games(b) if !b.is_empty() => tables::project(b.finish(), columns)?,
            Rows::Positions(b) if !b.is_empty() => std::mem::take(&mut **b).into_batch_of(columns),
            _ => return Ok(None),
        };
        let tags = std::mem::take(&mut self.partitions);
        let mut order: Vec<u32> = (0..tags.len() as u32).collect();
        order.sort_by_key(|&i| tags[i as usize]);
        let mut parts: Parts = Vec::new();
        for (at, &i) in order.iter().enumerate() {
            let p = tags[i as usize];
            match parts.last_mut() {
                Some((q, _, n)) if *q == p => *n += 1,
                _ => parts.push((p, at, 1)),
            }
        }
        let sorted = if parts.len() == 1 {
            batch
        } else {
            arrow_select::take::take_record_batch(&batch, &UInt32Array::from(order))
                .map_err(to_io)?
        };
        Ok(Some((sorted, parts)))
    }

    /// Sorts the run gathered and writes it to the spill file.
    fn spill(&mut self) -> io::Result<()> {
        let Some((batch, parts)) = self.sorted_run()? else {
            return Ok(());
        };
        if self.spill.is_none() {
            std::fs::create_dir_all(&self.root)?;
            let file = tempfile::tempfile_in(&self.root)?;
            self.spill = Some(FileWriter::try_new(file, &self.columns.schema()).map_err(to_io)?);
        }
        let Some(w) = self.spill.as_mut() else {
            return Ok(());
        };
        let first_slice = self.slices;
        let mut at = 0;
        while at < batch.num_rows() {
            let n = SLICE_ROWS.min(batch.num_rows() - at);
            w.write(&batch.slice(at, n)).map_err(to_io)?;
            self.slices += 1;
            at += n;
        }
        self.runs.push(Run { first_slice, parts });
        Ok(())
    }

    /// Writes every partition's shard; returns how many files were written.
    pub(in crate::commands) fn finish(mut self) -> io::Result<u64> {
        // The last run stays in memory; the others are read back from the spill file.
        let last = self.sorted_run()?;
        let mut reader = match self.spill.take() {
            Some(mut w) => {
                w.finish().map_err(to_io)?;
                let mut file = w.into_inner().map_err(to_io)?;
                file.rewind()?;
                Some(FileReader::try_new(io::BufReader::new(file), None).map_err(to_io)?)
            }
            None => None,
        };
        let mut cursors: Vec<Cursor> = self.runs.iter().map(|_| Cursor::default()).collect();
        let mut last_at = 0usize;
        let mut files = 0;
        // Each partition's rows, for the choice of compression.
        let mut sizes = vec![0usize; self.names.len()];
        let all = self
            .runs
            .iter()
            .map(|r| &r.parts)
            .chain(last.as_ref().map(|(_, p)| p));
        for parts in all {
            for &(p, _, n) in parts {
                sizes[p as usize] += n;
            }
        }
        for (id, dir) in self.names.iter().enumerate() {
            let zstd = sizes[id] >= SMALL_SHARD_ROWS;
            let id = id as u32;
            let path = self.root.join(dir).join("part-0000.parquet");
            let mut shard = None;
            for (run, cursor) in self.runs.iter().zip(cursors.iter_mut()) {
                let Some(&(p, start, n)) = run.parts.get(cursor.part) else {
                    continue;
                };
                if p != id {
                    continue;
                }
                cursor.part += 1;
                let reader = reader
                    .as_mut()
                    .ok_or_else(|| io::Error::other("a run spilled without its file"))?;
                let table = open(&mut shard, &path, &self, zstd)?;
                cursor.copy(reader, run.first_slice, start..start + n, table)?;
            }
            if let Some((batch, parts)) = &last
                && let Some(&(p, start, n)) = parts.get(last_at)
                && p == id
            {
                last_at += 1;
                let table = open(&mut shard, &path, &self, zstd)?;
                table.batch(batch.slice(start, n))?;
            }
            if let Some(table) = shard {
                commit(table.finish()?, self.force)?;
                files += 1;
            }
        }
        Ok(files)
    }
}

/// The shard of a partition, opened when its first rows come.
fn open<'s>(
    shard: &'s mut Option<ParquetTable<super::Staged>>,
    path: &std::path::Path,
    to: &Partitioned,
    zstd: bool,
) -> io::Result<&'s mut ParquetTable<super::Staged>> {
    if shard.is_none() {
        *shard = Some(ParquetTable::with_compression(
            stage(path, to.force)?,
            &to.columns,
            to.batch_rows,
            zstd,
        )?);
    }
    shard.as_mut().ok_or_else(|| io::Error::other("no shard"))
}

/// Where the merge stands in one spilled run: the next partition, and the slice held.
#[derive(Default)]
struct Cursor {
    part: usize,
    /// The run's slice held (its index in the run) and its rows.
    held: Option<(usize, RecordBatch)>,
}

impl Cursor {
    /// Writes the run's rows `rows` to `table`, reading its slices as they are needed (the
    /// rows asked for only grow, so each slice is read once).
    fn copy<R: io::Read + Seek>(
        &mut self,
        reader: &mut FileReader<R>,
        first_slice: usize,
        rows: Range<usize>,
        table: &mut ParquetTable<super::Staged>,
    ) -> io::Result<()> {
        let mut at = rows.start;
        while at < rows.end {
            let slice = at / SLICE_ROWS;
            if self.held.as_ref().is_none_or(|(i, _)| *i != slice) {
                reader.set_index(first_slice + slice).map_err(to_io)?;
                let batch = reader
                    .next()
                    .ok_or_else(|| io::Error::other("the spill file ends early"))?
                    .map_err(to_io)?;
                self.held = Some((slice, batch));
            }
            let Some((_, batch)) = &self.held else {
                return Ok(());
            };
            let offset = at - slice * SLICE_ROWS;
            let n = (rows.end - at).min(batch.num_rows().saturating_sub(offset));
            if n == 0 {
                return Err(io::Error::other("the spill file lacks rows"));
            }
            table.batch(batch.slice(offset, n))?;
            at += n;
        }
        Ok(())
    }
}

impl RowSink for Partitioned {
    fn game(&mut self, r: &GameRow) -> io::Result<()> {
        if let Rows::Games(b) = &mut self.rows {
            b.push(r);
            self.partitions.push(self.current);
        }
        if self.partitions.len() >= self.batch_rows {
            self.spill()?;
        }
        Ok(())
    }

    fn positions(&mut self, rows: &PositionRows, range: Range<usize>) -> io::Result<()> {
        let mut range = range;
        while !range.is_empty() {
            let Rows::Positions(b) = &mut self.rows else {
                return Ok(());
            };
            let before = range.start;
            let full = b.fill(rows, &mut range, self.batch_rows);
            let added = range.start - before;
            self.partitions
                .extend(std::iter::repeat_n(self.current, added));
            if full {
                self.spill()?;
            }
        }
        Ok(())
    }
}
