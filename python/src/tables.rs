//! `games_table`, `positions_table` and their streaming forms: the crate's table run
//! ([`kifu_app::commands::table_batches`]) makes Arrow record batches on a thread of its own, which
//! never takes the GIL, and hands them over through Arrow's C stream interface
//! (`FFI_ArrowArrayStream` in a PyCapsule named `arrow_array_stream`, the Arrow PyCapsule
//! interface's `__arrow_c_stream__`), so pyarrow, polars or any other Arrow reader imports the
//! columns as they are, without a copy, a file or a Python object per row.
//!
//! Memory stays flat: the run waits while [`QUEUED`] batches wait for the reader, and stops
//! when the reader is dropped.

use std::sync::mpsc::{Receiver, SyncSender, sync_channel};

use arrow_array::ffi::FFI_ArrowSchema;
use arrow_array::ffi_stream::FFI_ArrowArrayStream;
use arrow_array::{RecordBatch, RecordBatchReader};
use arrow_schema::{ArrowError, SchemaRef};
use kifu::tables::{self, Columns, Filter, Table};
use kifu_app::batch::Input;
use kifu_app::commands::{Destination, TableFormat, TablesOptions};
use pyo3::exceptions::{PyRuntimeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyCapsule;

/// Batches made and not yet taken by the reader, at most.
const QUEUED: usize = 2;

/// A `since`/`until` argument as days since 1970-01-01.
pub(crate) fn day(what: &str, s: Option<String>) -> PyResult<Option<i32>> {
    s.map(|s| {
        tables::parse_date(&s).ok_or_else(|| {
            PyValueError::new_err(format!("{what}: {s:?} is not a date (YYYY-MM-DD)"))
        })
    })
    .transpose()
}

/// What a table run needs.
pub(crate) struct Job {
    pub inputs: Vec<Input>,
    pub batch_opts: kifu_app::batch::Options,
    /// Which table: one row per game or one per move.
    pub table: Table,
    pub opening_plies: usize,
    pub filter: Filter,
    pub batch_rows: usize,
    /// The columns asked for (`None`: all).
    pub columns: Option<Columns>,
}

/// A table not yet read: an Arrow stream for whoever asks first (`__arrow_c_stream__`), as
/// `pyarrow.RecordBatchReader.from_stream`, `pyarrow.table`, `polars.DataFrame` and DuckDB do.
#[pyclass(module = "kifu._kifu", name = "TableStream")]
pub(crate) struct TableStream {
    schema: SchemaRef,
    job: Option<Job>,
}

impl TableStream {
    pub(crate) fn new(job: Job) -> PyResult<TableStream> {
        if job.filter.min_rating.is_some_and(|r| !r.is_finite()) {
            return Err(PyValueError::new_err("min_rating takes a finite number"));
        }
        let schema = match &job.columns {
            Some(c) => c.schema(),
            None => Columns::all(job.table).schema(),
        };
        Ok(TableStream {
            schema,
            job: Some(job),
        })
    }
}

#[pymethods]
impl TableStream {
    /// The table's rows as an Arrow C stream in a PyCapsule (the Arrow PyCapsule interface).
    /// The run starts now, on a thread of its own; a stream can be taken once. The batches
    /// have the table's own schema: a `requested_schema` is not applied (the Arrow interface
    /// lets a producer ignore it).
    #[pyo3(signature = (requested_schema = None))]
    fn __arrow_c_stream__<'py>(
        &mut self,
        py: Python<'py>,
        requested_schema: Option<Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyCapsule>> {
        let _ = requested_schema;
        let job = self
            .job
            .take()
            .ok_or_else(|| PyRuntimeError::new_err("this table stream was already read"))?;
        let (tx, rx) = sync_channel(QUEUED);
        std::thread::Builder::new()
            .name("kifu-table".into())
            .spawn(move || produce(job, tx))
            .map_err(|e| PyRuntimeError::new_err(format!("cannot start the table run: {e}")))?;
        let reader = Batches {
            schema: self.schema.clone(),
            rx,
            done: false,
        };
        let stream = FFI_ArrowArrayStream::new(Box::new(reader));
        // The capsule owns the stream: a reader moves it out (leaving a released one behind);
        // one never read is released when the capsule goes (`FFI_ArrowArrayStream` drops so).
        PyCapsule::new_with_value(py, stream, c"arrow_array_stream")
    }

    /// The table's schema as an Arrow C schema in a PyCapsule (the Arrow PyCapsule
    /// interface), known before the run: a reader that asks for the schema first and the
    /// stream after, as DuckDB does, reads the stream once. Asked as often as one likes.
    fn __arrow_c_schema__<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyCapsule>> {
        let schema = FFI_ArrowSchema::try_from(self.schema.as_ref())
            .map_err(|e| PyRuntimeError::new_err(format!("cannot export the schema: {e}")))?;
        // As the stream's capsule: a reader moves the schema out; one never read is released
        // when the capsule goes.
        PyCapsule::new_with_value(py, schema, c"arrow_schema")
    }

    /// The names of the table's columns.
    #[getter]
    fn column_names(&self) -> Vec<String> {
        self.schema
            .fields()
            .iter()
            .map(|f| f.name().clone())
            .collect()
    }
}

/// What the table's thread hands the reader: a batch, the run's error, or the end (`None`). A
/// channel that closes without the end (the thread died) is an error for the reader, never
/// a shorter table.
type Sent = Result<Option<RecordBatch>, ArrowError>;

/// Runs the table job, sending each batch (or the run's error) to the reader, then the end;
/// stops when the reader is gone. A panic of the run (a bug) is sent as an error.
fn produce(job: Job, tx: SyncSender<Sent>) {
    let run = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| run_job(job, &tx)));
    let last = match run {
        Ok(true) => Ok(None),
        Ok(false) => return,
        Err(_) => Err(ArrowError::ExternalError(
            "kifu: internal error: the table's run panicked; the table is not complete".into(),
        )),
    };
    let _ = tx.send(last);
}

/// The table job proper: `true` when it ran to the end, `false` when it failed (and its
/// error was sent).
fn run_job(job: Job, tx: &SyncSender<Sent>) -> bool {
    let opts = TablesOptions {
        table: job.table,
        rows: tables::Options {
            opening_plies: job.opening_plies,
        },
        filter: job.filter,
        // Not used: the batches go to the sink.
        format: TableFormat::Parquet,
        destination: Destination::Stdout,
        force: false,
        batch_rows: job.batch_rows,
        quiet: true,
        columns: job.columns,
    };
    let mut sink = |b: RecordBatch| {
        tx.send(Ok(Some(b)))
            .map_err(|_| std::io::Error::other("the table's reader is gone"))
    };
    let mut told = Internal::default();
    let run = kifu_app::commands::table_batches(
        &job.inputs,
        &job.batch_opts,
        &kifu::validate::Options::default(),
        &opts,
        &mut sink,
        &mut told,
        &mut (),
    );
    // kifu failed on an input (an `internal` diagnostic): the table lacks its rows, which
    // must not pass for a whole table.
    let run = run.and_then(|(summary, _)| match summary.by_code.get("internal") {
        Some(&n) if n > 0 => Err(std::io::Error::other(format!(
            "kifu failed on {n} input(s), whose rows are missing: {}",
            told.first.trim_end()
        ))),
        _ => Ok(()),
    });
    if let Err(e) = run {
        // EIO across the C interface: pyarrow raises OSError. Nobody to tell if the reader
        // is gone.
        let _ = tx.send(Err(ArrowError::IoError(
            format!("cannot make the table: {e}"),
            e,
        )));
        return false;
    }
    true
}

/// The run's messages, of which it keeps the first `internal` one (the others are not shown:
/// Python reads the table, not the messages).
#[derive(Default)]
struct Internal {
    line: Vec<u8>,
    first: String,
}

impl std::io::Write for Internal {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        for &b in buf {
            if b != b'\n' {
                if self.line.len() < 4096 {
                    self.line.push(b);
                }
                continue;
            }
            let line = String::from_utf8_lossy(&self.line);
            if self.first.is_empty() && line.contains("[internal]") {
                self.first = line.into_owned();
            }
            self.line.clear();
        }
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// The reader's side: the batches as they come.
struct Batches {
    schema: SchemaRef,
    rx: Receiver<Sent>,
    done: bool,
}

impl Iterator for Batches {
    type Item = Result<RecordBatch, ArrowError>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.done {
            return None;
        }
        let r = match self.rx.recv() {
            Ok(Ok(Some(b))) => return Some(Ok(b)),
            Ok(Ok(None)) => None,
            Ok(Err(e)) => Some(Err(e)),
            // The thread is gone without saying the table ended.
            Err(_) => Some(Err(ArrowError::ExternalError(
                "kifu: internal error: the table's run stopped before its end".into(),
            ))),
        };
        self.done = true;
        r
    }
}

impl RecordBatchReader for Batches {
    fn schema(&self) -> SchemaRef {
        self.schema.clone()
    }
}
