//! Parquet: rows gathered into bounded Arrow batches and written by `parquet`'s `ArrowWriter`
//! (zstd), one row group per batch as it fills, so memory stays flat however many rows pass.
//! The encoding and compression of a row group may run on a thread of their own
//! ([`ParquetTable::background`]) while the next row group is gathered.

use std::io::{self, Write};
use std::ops::Range;
use std::sync::mpsc::{SyncSender, sync_channel};
use std::thread::JoinHandle;

use arrow_array::RecordBatch;
use parquet::arrow::ArrowWriter;
use parquet::basic::{Compression, ZstdLevel};
use parquet::file::properties::{EnabledStatistics, WriterProperties};
use parquet::schema::types::ColumnPath;

use super::Table;
use super::arrow::GamesBatch;
use super::columns::Columns;
use super::games::GameRow;
use super::positions::{PositionRow, PositionRows};

/// Rows per row group (and per Arrow batch) of the positions table unless told otherwise.
pub const ROW_GROUP_ROWS: usize = 65_536;

/// Rows per row group of the games table (a game's row is several times a move's: two SFENs,
/// the path, the names, lists) unless told otherwise.
pub const GAMES_ROW_GROUP_ROWS: usize = 16_384;

enum Rows {
    Games(Box<GamesBatch>),
    /// Gathered column by column, made a batch when a row group is full.
    Positions(Box<PositionRows>),
}

/// Where the row groups are encoded and written.
enum Encoder<W: Write + Send> {
    /// On the thread that gathers the rows.
    Here(Box<ArrowWriter<W>>),
    /// On a thread of its own, handed each batch through a rendezvous channel (so at most one
    /// batch is being encoded while the next is gathered); the thread hands the writer back
    /// when the channel closes, or the first error.
    Thread {
        batches: SyncSender<RecordBatch>,
        thread: JoinHandle<io::Result<W>>,
    },
}

/// A Parquet file being written.
pub struct ParquetTable<W: Write + Send> {
    encoder: Encoder<W>,
    rows: Rows,
    /// The columns written, by index in the table's schema (`None`: all, in order).
    columns: Option<Vec<usize>>,
    batch_rows: usize,
    written: u64,
}

/// The positions table's column settings, measured in docs/history/benchmarks-notebook.md ("`positions` to
/// Parquet", session 15): together a tenth fewer instructions for the same file size.
///
/// * No dictionary for `sfen` (a position is seldom repeated: a dictionary costs a hash per
///   row and is dropped once it outgrows its page limit anyway), nor for `game_key`, `side`
///   and `result`: their values repeat, but in runs that zstd packs as small as a dictionary
///   does, so the dictionary's hashing buys nothing. `move` keeps its dictionary (without it
///   the file grows by 5 %), and so does `path` (a few values a row group).
/// * No minimum and maximum for the text columns: `sfen`, `move` and `pv` are of no use to a
///   reader's filter, `side` and `result` have a handful of values, the game keys are
///   hashes spread over every row group, and a game is found by its `path` and `game` with
///   the games table's join, not by a filter on a row group's range. The number columns keep theirs (cheap, and a `ply`
///   or `time_ms` range can skip pages).
fn positions_columns(
    mut props: parquet::file::properties::WriterPropertiesBuilder,
) -> parquet::file::properties::WriterPropertiesBuilder {
    for col in ["sfen", "game_key", "side", "result"] {
        props = props.set_column_dictionary_enabled(ColumnPath::from(col), false);
    }
    for col in ["path", "sfen", "game_key", "side", "move", "result"] {
        props = props.set_column_statistics_enabled(ColumnPath::from(col), EnabledStatistics::None);
    }
    props.set_column_statistics_enabled(
        ColumnPath::new(vec!["pv".into(), "list".into(), "item".into()]),
        EnabledStatistics::None,
    )
}

fn to_io(e: parquet::errors::ParquetError) -> io::Error {
    match e {
        parquet::errors::ParquetError::External(e) => match e.downcast::<io::Error>() {
            Ok(e) => *e,
            Err(e) => io::Error::other(e.to_string()),
        },
        e => io::Error::other(e.to_string()),
    }
}

impl<W: Write + Send> ParquetTable<W> {
    /// Starts a file of `table` on `out`, without the column `drop` (the column a Hive-style
    /// partition directory names), a row group every `batch_rows` rows (0: the table's
    /// default, [`GAMES_ROW_GROUP_ROWS`] or [`ROW_GROUP_ROWS`]).
    pub fn new(
        out: W,
        table: Table,
        drop: Option<&str>,
        batch_rows: usize,
    ) -> io::Result<ParquetTable<W>> {
        let all = Columns::all(table);
        let columns = match drop {
            Some(name) => all.without(name),
            None => all,
        };
        ParquetTable::with_columns(out, &columns, batch_rows)
    }

    /// Starts a file of some columns of a table on `out`, in their order, a row group every
    /// `batch_rows` rows (0: the table's default).
    pub fn with_columns(
        out: W,
        columns: &Columns,
        batch_rows: usize,
    ) -> io::Result<ParquetTable<W>> {
        ParquetTable::with_compression(out, columns, batch_rows, true)
    }

    /// [`ParquetTable::with_columns`], compressed with zstd or not at all. A file of a few
    /// rows is better left uncompressed: the codec's set-up, per column, costs more than the
    /// bytes it saves (71 % of the time of a run writing 43,000 small partition shards went
    /// to making zstd contexts).
    pub fn with_compression(
        out: W,
        columns: &Columns,
        batch_rows: usize,
        zstd: bool,
    ) -> io::Result<ParquetTable<W>> {
        let table = columns.table();
        let schema = columns.schema();
        let batch_rows = match (batch_rows, table) {
            (0, Table::Games) => GAMES_ROW_GROUP_ROWS,
            (0, Table::Positions) => ROW_GROUP_ROWS,
            (n, _) => n,
        };
        let mut props = WriterProperties::builder();
        if table == Table::Positions {
            props = positions_columns(props);
        }
        let compression = match zstd {
            true => Compression::ZSTD(ZstdLevel::default()),
            false => Compression::UNCOMPRESSED,
        };
        let props = props
            .set_compression(compression)
            .set_max_row_group_row_count(Some(batch_rows))
            .set_created_by(format!("kifu {}", env!("CARGO_PKG_VERSION")))
            .build();
        let writer = ArrowWriter::try_new(out, schema, Some(props)).map_err(to_io)?;
        Ok(ParquetTable {
            encoder: Encoder::Here(Box::new(writer)),
            rows: match table {
                Table::Games => Rows::Games(Box::default()),
                Table::Positions => Rows::Positions(Box::default()),
            },
            columns: columns.picked(),
            batch_rows,
            written: 0,
        })
    }

    /// Adds a game's row (a file of the games table).
    pub fn game(&mut self, r: &GameRow) -> io::Result<()> {
        if let Rows::Games(b) = &mut self.rows {
            b.push(r);
            if b.len() >= self.batch_rows {
                return self.flush_rows();
            }
        }
        Ok(())
    }

    /// Adds a move's row (a file of the positions table).
    pub fn position(&mut self, r: &PositionRow<'_>) -> io::Result<()> {
        if let Rows::Positions(b) = &mut self.rows {
            b.push_row(r);
            if b.len() >= self.batch_rows {
                return self.flush_rows();
            }
        }
        Ok(())
    }

    /// Adds the rows `range` of `rows` (a file of the positions table): their columns'
    /// slices copied, a row group written each time one fills.
    pub fn positions(&mut self, rows: &PositionRows, range: Range<usize>) -> io::Result<()> {
        let mut range = range;
        while !range.is_empty() {
            let Rows::Positions(b) = &mut self.rows else {
                return Ok(());
            };
            if b.fill(rows, &mut range, self.batch_rows) {
                self.flush_rows()?;
            }
        }
        Ok(())
    }

    /// Adds the rows of a batch of the file's columns (as [`ParquetTable::with_columns`] was
    /// given them), after the rows gathered; row groups are still cut every `batch_rows` rows.
    pub fn batch(&mut self, batch: RecordBatch) -> io::Result<()> {
        self.flush_rows()?;
        self.written += batch.num_rows() as u64;
        match &mut self.encoder {
            Encoder::Here(writer) => writer.write(&batch).map_err(to_io),
            Encoder::Thread { batches, .. } => batches
                .send(batch)
                .map_err(|_| io::Error::other("the Parquet encoder stopped")),
        }
    }

    /// Rows written so far (gathered rows included).
    pub fn rows(&self) -> u64 {
        self.written
            + match &self.rows {
                Rows::Games(b) => b.len() as u64,
                Rows::Positions(b) => b.len() as u64,
            }
    }

    /// Writes the rows gathered as one row group.
    fn flush_rows(&mut self) -> io::Result<()> {
        let columns = self.columns.as_deref();
        let batch: RecordBatch = match &mut self.rows {
            Rows::Games(b) if !b.is_empty() => project(b.finish(), columns)?,
            Rows::Positions(b) if !b.is_empty() => std::mem::take(&mut **b).into_batch_of(columns),
            _ => return Ok(()),
        };
        self.written += batch.num_rows() as u64;
        match &mut self.encoder {
            Encoder::Here(writer) => write_group(writer, &batch),
            Encoder::Thread { batches, .. } => match batches.send(batch) {
                Ok(()) => Ok(()),
                // The thread stopped at an error: `finish` tells it.
                Err(_) => Err(io::Error::other("the Parquet encoder stopped")),
            },
        }
    }

    /// Writes what is left and the footer; hands back the writer.
    pub fn finish(mut self) -> io::Result<W> {
        let flushed = self.flush_rows();
        let writer = match self.encoder {
            Encoder::Here(writer) => writer,
            Encoder::Thread { batches, thread } => {
                drop(batches);
                let out = thread
                    .join()
                    .map_err(|_| io::Error::other("the Parquet encoder stopped"))?;
                // The thread's own error says more than the closed channel.
                let out = out?;
                flushed?;
                return Ok(out);
            }
        };
        flushed?;
        writer.into_inner().map_err(to_io)
    }
}

impl<W: Write + Send + 'static> ParquetTable<W> {
    /// The same table with its row groups encoded, compressed and written on a thread of its
    /// own, while the rows of the next one are gathered: the file is the same, byte for byte,
    /// and one more row group is held in memory. The rows gathered so far stay with the
    /// caller's thread until their row group is full.
    pub fn background(self) -> io::Result<ParquetTable<W>> {
        let ParquetTable {
            encoder,
            rows,
            columns,
            batch_rows,
            written,
        } = self;
        let encoder = match encoder {
            Encoder::Here(mut writer) => {
                let (batches, received) = sync_channel::<RecordBatch>(0);
                let thread = std::thread::Builder::new()
                    .name("kifu-parquet".into())
                    .spawn(move || {
                        for batch in received {
                            write_group(&mut writer, &batch)?;
                        }
                        writer.into_inner().map_err(to_io)
                    })?;
                Encoder::Thread { batches, thread }
            }
            e => e,
        };
        Ok(ParquetTable {
            encoder,
            rows,
            columns,
            batch_rows,
            written,
        })
    }
}

/// `batch` with only `columns` (all: `None`), in their order.
pub fn project(batch: RecordBatch, columns: Option<&[usize]>) -> io::Result<RecordBatch> {
    match columns {
        None => Ok(batch),
        Some(c) => batch
            .project(c)
            .map_err(|e| io::Error::other(e.to_string())),
    }
}

/// Writes a batch as one row group.
fn write_group<W: Write + Send>(
    writer: &mut ArrowWriter<W>,
    batch: &RecordBatch,
) -> io::Result<()> {
    writer.write(batch).map_err(to_io)?;
    writer.flush().map_err(to_io)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tables::positions::EngineEval;
    use parquet::file::reader::{FileReader, SerializedFileReader};

    fn rows_of(game: u32, plies: u32) -> Vec<(String, u32, String, String)> {
        (1..=plies)
            .map(|ply| {
                let key = format!("{game:016x}");
                let sfen = format!("lnsgkgsnl/9/9/9/9/9/9/9/LNSGKGSNL b - {ply}{game}");
                let mv = format!("{}g{}f", 1 + ply % 9, 1 + (ply + game) % 9);
                (key, ply, sfen, mv)
            })
            .collect()
    }

    fn write_rows(mut t: ParquetTable<Vec<u8>>, games: u32) -> Vec<u8> {
        for game in 0..games {
            for (key, ply, sfen, mv) in rows_of(game, 1 + game % 50) {
                t.position(&PositionRow {
                    path: "a.csa",
                    game: 0,
                    game_key: &key,
                    ply,
                    sfen: &sfen,
                    side: if ply % 2 == 1 { "b" } else { "w" },
                    mv: &mv,
                    time_ms: (ply % 3 != 0).then_some(u64::from(ply) * 1000),
                    eval: None,
                    legal: ply % 7 != 0,
                    result: Some("draw"),
                })
                .unwrap();
            }
        }
        t.finish().unwrap()
    }

    /// Row groups encoded on a thread of their own give the same file, byte for byte, and
    /// the rows all come back.
    #[test]
    fn the_background_encoder_writes_the_same_bytes() {
        let here = ParquetTable::new(Vec::new(), Table::Positions, None, 100).unwrap();
        let there = ParquetTable::new(Vec::new(), Table::Positions, None, 100)
            .unwrap()
            .background()
            .unwrap();
        let (a, b) = (write_rows(here, 300), write_rows(there, 300));
        assert_eq!(a, b);
        let mut file = tempfile::tempfile().unwrap();
        file.write_all(&b).unwrap();
        let reader = SerializedFileReader::new(file).unwrap();
        let rows: u32 = (0..300).map(|g| 1 + g % 50).sum();
        assert_eq!(
            reader.metadata().file_metadata().num_rows(),
            i64::from(rows)
        );
        assert!(reader.metadata().num_row_groups() > 10);
    }

    /// An error of the writer on the encoder's thread comes back from `finish`.
    #[test]
    fn the_background_encoders_error_comes_back() {
        struct Full;
        impl Write for Full {
            fn write(&mut self, _: &[u8]) -> io::Result<usize> {
                Err(io::Error::new(io::ErrorKind::StorageFull, "disk full"))
            }
            fn flush(&mut self) -> io::Result<()> {
                Ok(())
            }
        }
        // The header may fail at once; if not, a row group or the footer does, and `finish`
        // tells the thread's error (a row pushed after it stopped only says it stopped).
        let err = match ParquetTable::new(Full, Table::Positions, None, 10)
            .and_then(ParquetTable::background)
        {
            Err(e) => e.kind(),
            Ok(mut t) => {
                for (key, ply, sfen, mv) in rows_of(1, 200) {
                    let row = PositionRow {
                        path: "a.csa",
                        game: 0,
                        game_key: &key,
                        ply,
                        sfen: &sfen,
                        side: "b",
                        mv: &mv,
                        time_ms: None,
                        eval: None,
                        legal: true,
                        result: None,
                    };
                    if let Err(e) = t.position(&row) {
                        assert!(e.to_string().contains("encoder stopped"), "{e}");
                        break;
                    }
                }
                t.finish().map(|_| ()).unwrap_err().kind()
            }
        };
        assert_eq!(err, io::ErrorKind::StorageFull);
    }

    /// The positions table's chunks: dictionaries and statistics where `positions_columns`
    /// says, read back from a written file.
    #[test]
    fn positions_columns_dictionaries_and_statistics() {
        let file = tempfile::tempfile().unwrap();
        let mut t = ParquetTable::new(file, Table::Positions, None, 0).unwrap();
        let moves = ["7g7f", "3c3d", "2g2f", "8c8d"];
        for game in 0..3u32 {
            let key = format!("{game:016x}");
            for (ply, mv) in (1u32..).zip(moves) {
                let sfen = format!("lnsgkgsnl/9/9/9/9/9/9/9/LNSGKGSNL b - {ply}{game}");
                let eval = EngineEval {
                    eval_cp: Some(ply as i32 * 10),
                    mate: None,
                    pv: vec![mv.to_string()],
                };
                t.position(&PositionRow {
                    path: "a.csa",
                    game: 0,
                    game_key: &key,
                    ply,
                    sfen: &sfen,
                    side: if ply % 2 == 1 { "b" } else { "w" },
                    mv,
                    time_ms: Some(u64::from(ply) * 1000),
                    eval: Some(eval),
                    legal: true,
                    result: Some("win"),
                })
                .unwrap();
            }
        }
        let file = t.finish().unwrap();
        let reader = SerializedFileReader::new(file).unwrap();
        let group = reader.metadata().row_group(0);
        assert_eq!(group.num_rows(), 12);
        for chunk in group.columns() {
            let path = chunk.column_path().string();
            let dictionary = chunk.dictionary_page_offset().is_some();
            let statistics = chunk
                .statistics()
                .is_some_and(|s| s.min_bytes_opt().is_some());
            // (dictionary, statistics); None: not looked at (a boolean has no dictionary,
            // an all-null column no minimum).
            let (want_dictionary, want_statistics) = match path.as_str() {
                "sfen" | "game_key" | "side" | "result" => (Some(false), Some(false)),
                "path" | "move" | "pv.list.item" => (Some(true), Some(false)),
                "game" | "ply" | "time_ms" | "eval_cp" => (Some(true), Some(true)),
                "legal" => (None, Some(true)),
                "mate" => (None, None),
                _ => panic!("unexpected column {path}"),
            };
            if let Some(want) = want_dictionary {
                assert_eq!(dictionary, want, "dictionary of {path}");
            }
            if let Some(want) = want_statistics {
                assert_eq!(statistics, want, "statistics of {path}");
            }
        }
    }
}
