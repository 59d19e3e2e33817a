//! `games_table` and `positions_table`: the crate's tables job writes Parquet (typed Arrow
//! columns, zstd) to a file the Python side hands over and reads back with pyarrow, so the
//! rows cross into Python as Arrow columns, never as Python objects.

use std::path::PathBuf;

use kifu::batch::Input;
use kifu::report::{Destination, TableFormat, TablesOptions};
use kifu::tables::{self, Filter, Table};
use pyo3::exceptions::{PyOSError, PyValueError};
use pyo3::prelude::*;

/// The filters of the tables, as the command line's `--min-rating`... take them.
#[derive(Default)]
pub(crate) struct FilterArgs {
    pub min_rating: Option<f64>,
    pub min_rating_any: bool,
    pub min_plies: Option<u32>,
    pub max_plies: Option<u32>,
    pub endings: Vec<String>,
    pub clean: bool,
    pub since: Option<String>,
    pub until: Option<String>,
    pub players: Vec<String>,
    pub events: Vec<String>,
    pub dedup: bool,
}

impl FilterArgs {
    fn filter(self) -> PyResult<Filter> {
        if self.min_rating.is_some_and(|r| !r.is_finite()) {
            return Err(PyValueError::new_err("min_rating takes a finite number"));
        }
        let day = |what: &str, s: Option<String>| -> PyResult<Option<i32>> {
            s.map(|s| {
                tables::parse_date(&s).ok_or_else(|| {
                    PyValueError::new_err(format!("{what}: {s:?} is not a date (YYYY-MM-DD)"))
                })
            })
            .transpose()
        };
        Ok(Filter {
            min_rating: self.min_rating,
            min_rating_any: self.min_rating_any,
            min_plies: self.min_plies,
            max_plies: self.max_plies,
            endings: self.endings,
            clean: self.clean,
            since: day("since", self.since)?,
            until: day("until", self.until)?,
            players: self.players,
            events: self.events,
            dedup: self.dedup,
        })
    }
}

/// Writes the table of `inputs` to the Parquet file `out` (replacing it: the caller's own
/// temporary file) with the GIL released; returns the rows written.
pub(crate) fn write_table(
    py: Python<'_>,
    inputs: Vec<Input>,
    batch_opts: kifu::batch::Options,
    positions: bool,
    opening_plies: usize,
    filter: FilterArgs,
    out: PathBuf,
) -> PyResult<u64> {
    let opts = TablesOptions {
        table: if positions {
            Table::Positions
        } else {
            Table::Games
        },
        rows: tables::Options { opening_plies },
        filter: filter.filter()?,
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
