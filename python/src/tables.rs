//! `games_table` and `positions_table`: the crate's tables job writes Parquet (typed Arrow
//! columns, zstd) to a file the Python side hands over and reads back with pyarrow, so the
//! rows cross into Python as Arrow columns, never as Python objects.

use std::path::PathBuf;

use kifu::batch::Input;
use kifu::report::{Destination, TableFormat, TablesOptions};
use kifu::tables::{self, Filter, Table};
use pyo3::exceptions::{PyOSError, PyValueError};
use pyo3::prelude::*;

/// A `since`/`until` argument as days since 1970-01-01.
pub(crate) fn day(what: &str, s: Option<String>) -> PyResult<Option<i32>> {
    s.map(|s| {
        tables::parse_date(&s).ok_or_else(|| {
            PyValueError::new_err(format!("{what}: {s:?} is not a date (YYYY-MM-DD)"))
        })
    })
    .transpose()
}

/// Writes the table of `inputs` to the Parquet file `out` (replacing it: the caller's own
/// temporary file) with the GIL released; returns the rows written.
pub(crate) fn write_table(
    py: Python<'_>,
    inputs: Vec<Input>,
    batch_opts: kifu::batch::Options,
    positions: bool,
    opening_plies: usize,
    filter: Filter,
    out: PathBuf,
) -> PyResult<u64> {
    if filter.min_rating.is_some_and(|r| !r.is_finite()) {
        return Err(PyValueError::new_err("min_rating takes a finite number"));
    }
    let opts = TablesOptions {
        table: if positions {
            Table::Positions
        } else {
            Table::Games
        },
        rows: tables::Options { opening_plies },
        filter,
        format: TableFormat::Parquet,
        destination: Destination::File(out),
        force: true,
        batch_rows: 0,
        quiet: true,
    };
    let run = py.detach(move || {
        let mut sink = std::io::sink();
        let mut findings = Vec::new();
        kifu::report::tables(
            &inputs,
            &batch_opts,
            &kifu::validate::Options::default(),
            &opts,
            &mut sink,
            &mut findings,
            &mut (),
        )
    });
    match run {
        Ok((_, rows)) => Ok(rows),
        Err(e) => Err(PyOSError::new_err(format!("cannot write the table: {e}"))),
    }
}
