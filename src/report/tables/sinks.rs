//! Where the rows of the table jobs ([`super::tables`], [`super::table_batches`]) go: a
//! [`RowSink`] (a CSV or JSON Lines table, a Parquet file, or Arrow batches handed to a
//! callback, [`BatchSink`]).

use std::io::{self, Write};

use arrow_array::RecordBatch;

use std::ops::Range;

use crate::tables::{GameRow, GamesBatch, ParquetTable, PositionRows, TextTable};

/// The rows of one table being gathered.
pub(super) enum Rows {
    Games(Box<GamesBatch>),
    Positions(Box<PositionRows>),
}

/// Rows gathered into record batches handed to a callback (see [`super::table_batches`]).
pub(super) struct BatchSink<'o> {
    pub(super) rows: Rows,
    pub(super) batch_rows: usize,
    pub(super) sink: &'o mut dyn FnMut(RecordBatch) -> io::Result<()>,
}

impl BatchSink<'_> {
    /// Hands over the rows gathered, if any.
    pub(super) fn flush(&mut self) -> io::Result<()> {
        let batch = match &mut self.rows {
            Rows::Games(b) if !b.is_empty() => b.finish(),
            Rows::Positions(b) if !b.is_empty() => std::mem::take(&mut **b).into_batch(),
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
        range
            .filter_map(|i| rows.get(i))
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
