//! The iterators of `kifu.iter_games` and `kifu.validate`: the batch engine runs on a
//! background thread (its own worker pool, reading ahead a bounded number of units) and hands
//! each unit's results, in input order, through a bounded channel to `__next__`, which waits
//! for them with the GIL released. Dropping the iterator closes the channel, which stops the
//! run.

use std::collections::VecDeque;
use std::io;
use std::sync::mpsc::{Receiver, RecvTimeoutError, SyncSender, sync_channel};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use kifu::Code;
use kifu::validate;
use kifu_app::batch::{self, Content, Input};
use pyo3::exceptions::PyRuntimeError;
use pyo3::prelude::*;

use crate::game::{GameData, PyGame};
use crate::report::{PyReport, Severities};

/// The batch engine's window for these streams, in its permits (see
/// `kifu_app::batch::Options::window`: a unit takes one, and one more per 16 KiB it holds), and
/// the size of the chunks a multi-game file is cut into. Python takes the results more
/// slowly than the workers make them, so the window is always full, and a game read takes
/// some twenty times the bytes of a short USI line. The growth of the peak RSS (VmHWM, as
/// python/tests/test_batch.py measures it) of `iter_games` over a file of 900,000 ten-move USI
/// games: 170 to 240 MB with the engine's defaults (768 permits, 512 KiB chunks), 300 to 350
/// over 3.6 million; with 128 permits of 128 KiB chunks, 75 to 110 MB, and 90 over 3.6
/// million, in the same time. Over a directory of small CSA files (a permit each, groups of 21
/// instead of 128 for a worker), no change in time beyond the noise (docs/history/benchmarks-notebook.md,
/// session 28).
const WINDOW: usize = 128;
const CHUNK_BYTES: usize = 128 * 1024;

/// The batch options of a stream: the caller's, with [`WINDOW`] and [`CHUNK_BYTES`].
fn streamed(opts: batch::Options) -> batch::Options {
    batch::Options {
        window: WINDOW,
        chunk_bytes: CHUNK_BYTES,
        ..opts
    }
}

/// Messages that may wait in the channel for Python to take them ...
const CHANNEL_MESSAGES: usize = 8;
/// ... each of up to this many results (or one unit's, when it has more): a message per
/// one-game file cost a thread hand-over per game.
const MESSAGE_ITEMS: usize = 64;

enum Msg<T> {
    Items(Vec<T>),
    /// The run is over (sent after the last unit).
    End,
    /// The run stopped on an error before the end: Python raises it rather than end the
    /// loop as if every game had been read.
    Failed(String),
}

/// The receiving side: a buffer of one unit's results and the channel.
struct Stream<T> {
    rx: Mutex<Receiver<Msg<T>>>,
    buf: Mutex<(VecDeque<T>, bool)>,
}

fn lock<X>(m: &Mutex<X>) -> MutexGuard<'_, X> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

impl<T: Send> Stream<T> {
    /// Starts `run` on a thread with the sending side; then sends `Msg::End`, or
    /// `Msg::Failed` with the run's error.
    fn start(run: impl FnOnce(&SyncSender<Msg<T>>) -> io::Result<()> + Send + 'static) -> Stream<T>
    where
        T: 'static,
    {
        let (tx, rx) = sync_channel(CHANNEL_MESSAGES);
        std::thread::Builder::new()
            .name("kifu-batch".into())
            .spawn(move || {
                let last = match run(&tx) {
                    Ok(()) => Msg::End,
                    Err(e) => Msg::Failed(format!("kifu: {e}")),
                };
                let _ = tx.send(last);
            })
            .map(|_| ())
            .unwrap_or_else(|_| {
                // No thread: the receiver sees a closed channel and raises.
            });
        Stream {
            rx: Mutex::new(rx),
            buf: Mutex::new((VecDeque::new(), false)),
        }
    }

    /// The next result, waiting (GIL released, Ctrl-C heard every 100 ms) for the run.
    fn next(&self, py: Python<'_>) -> PyResult<Option<T>> {
        loop {
            {
                let mut b = lock(&self.buf);
                if let Some(x) = b.0.pop_front() {
                    return Ok(Some(x));
                }
                if b.1 {
                    return Ok(None);
                }
            }
            let got = py.detach(|| lock(&self.rx).recv_timeout(Duration::from_millis(100)));
            match got {
                Ok(Msg::Items(v)) => lock(&self.buf).0.extend(v),
                Ok(Msg::End) => lock(&self.buf).1 = true,
                Ok(Msg::Failed(e)) => {
                    lock(&self.buf).1 = true;
                    return Err(PyRuntimeError::new_err(e));
                }
                Err(RecvTimeoutError::Timeout) => py.check_signals()?,
                Err(RecvTimeoutError::Disconnected) => {
                    lock(&self.buf).1 = true;
                    return Err(PyRuntimeError::new_err(
                        "kifu: the background reader stopped before the end of the input",
                    ));
                }
            }
        }
    }
}

/// The error that stops a run when Python dropped the iterator: a broken pipe, which no other
/// error of a run is (the engine's own are `Other`; an unreadable file is a diagnostic).
fn closed() -> io::Error {
    io::Error::new(io::ErrorKind::BrokenPipe, "the Python iterator was dropped")
}

/// The end of a run: the results held are sent, and its error, if any, is the stream's
/// (none when Python dropped the iterator: nobody is there to hear it).
fn finish<T>(done: io::Result<()>, out: &mut Batch<'_, T>) -> io::Result<()> {
    match done {
        Ok(()) => out.flush(),
        Err(e) if e.kind() == io::ErrorKind::BrokenPipe => Ok(()),
        Err(e) => {
            let _ = out.flush();
            Err(e)
        }
    }
}

/// Results gathered into messages of about [`MESSAGE_ITEMS`].
struct Batch<'a, T> {
    tx: &'a SyncSender<Msg<T>>,
    held: Vec<T>,
}

impl<'a, T> Batch<'a, T> {
    fn new(tx: &'a SyncSender<Msg<T>>) -> Self {
        Batch {
            tx,
            held: Vec::new(),
        }
    }

    /// Adds one unit's results; sends them when enough are held. An error once the Python
    /// side is gone, which stops the run.
    fn add(&mut self, mut items: Vec<T>) -> io::Result<()> {
        if self.held.is_empty() {
            self.held = items;
        } else {
            self.held.append(&mut items);
        }
        if self.held.len() >= MESSAGE_ITEMS {
            return self.flush();
        }
        Ok(())
    }

    fn flush(&mut self) -> io::Result<()> {
        if self.held.is_empty() {
            return Ok(());
        }
        let items = std::mem::take(&mut self.held);
        self.tx.send(Msg::Items(items)).map_err(|_| closed())
    }
}

/// An iterator over the games of many inputs (from `kifu.iter_games`), in input order.
#[pyclass(name = "GameIterator", module = "kifu", frozen)]
pub struct GameIterator(Stream<GameData>);

#[pymethods]
impl GameIterator {
    fn __iter__(slf: PyRef<'_, Self>) -> PyRef<'_, Self> {
        slf
    }

    pub(crate) fn __next__(&self, py: Python<'_>) -> PyResult<Option<PyGame>> {
        Ok(self.0.next(py)?.map(PyGame::from))
    }
}

/// Reads every game of `inputs`, validated, in parallel.
pub fn games(inputs: Vec<Input>, opts: batch::Options) -> GameIterator {
    let opts = streamed(opts);
    GameIterator(Stream::start(move |tx| {
        let mut index = 0u64;
        let mut out = Batch::new(tx);
        let done = batch::run(
            &inputs,
            &opts,
            |u| {
                let path: Arc<str> = Arc::from(u.source.path.as_str());
                // Judged as read where the format allows (CSA, USI): no record built
                // until Python asks for one.
                if let Some(games) = crate::kept::unit_games(u, &path) {
                    return games;
                }
                let parsed = batch::parse_unit(u);
                parsed
                    .games
                    .into_iter()
                    .map(|g| GameData::new(g, parsed.format, Some(path.clone()), 0))
                    .collect::<Vec<_>>()
            },
            |unit, mut games| {
                // kifu failed on this input: `iter_games` skips unreadable files, but must
                // not skip games because of a bug; the games before it come first.
                if let Content::Failed(d) = &unit.content
                    && d.code == Code::Internal
                {
                    out.flush()?;
                    return Err(io::Error::other(format!(
                        "{}: {}",
                        unit.source.path, d.message
                    )));
                }
                if unit.chunk == 0 {
                    index = 0;
                }
                for g in &mut games {
                    g.index = index;
                    index += 1;
                }
                out.add(games)
            },
        );
        finish(done, &mut out)
    }))
}

/// An iterator over validation reports (from `kifu.validate`), in input order.
#[pyclass(name = "ReportIterator", module = "kifu", frozen)]
pub struct ReportIterator(Stream<PyReport>);

#[pymethods]
impl ReportIterator {
    fn __iter__(slf: PyRef<'_, Self>) -> PyRef<'_, Self> {
        slf
    }

    fn __next__(&self, py: Python<'_>) -> PyResult<Option<PyReport>> {
        self.0.next(py)
    }
}

/// Validates every game of `inputs` in parallel (CSA and USI are judged as read).
pub fn reports(inputs: Vec<Input>, opts: batch::Options, sev: Severities) -> ReportIterator {
    let opts = streamed(opts);
    ReportIterator(Stream::start(move |tx| {
        let mut index = 0u64;
        let vopts = validate::Options::default();
        let mut batch_out = Batch::new(tx);
        let done = batch::run(
            &inputs,
            &opts,
            |u| batch::validate_unit(u, &vopts),
            |unit, v| {
                if unit.chunk == 0 {
                    index = 0;
                }
                let path = &unit.source.path;
                let mut out = Vec::with_capacity(v.games.len() + 1);
                if !v.diagnostics.is_empty() {
                    out.push(PyReport::of_file(
                        v.diagnostics,
                        Some(path.clone()),
                        v.format,
                        &sev,
                    ));
                }
                for r in v.games {
                    out.push(PyReport::of_game(
                        r,
                        Some(path.clone()),
                        Some(index),
                        v.format,
                        &sev,
                    ));
                    index += 1;
                }
                batch_out.add(out)
            },
        );
        finish(done, &mut batch_out)
    }))
}
