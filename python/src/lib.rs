//! `kifu._kifu`: the Rust side of the `kifu` Python package (python/kifu/ wraps it).
//!
//! Everything goes through the `kifu` crate's public API. Reading, validating and converting
//! run with the GIL released; `iter_games` and `validate` over many inputs run on the crate's
//! batch engine (a worker pool, output in input order). No Rust panic crosses into Python:
//! PyO3 turns one into `pyo3_runtime.PanicException`, and the crate's readers promise none.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use kifu::formats::{self, ReadOptions, TextEncoding};
use kifu::{Code, Diagnostic, Format};
use kifu_app::batch::{self, Input};
use pyo3::exceptions::{PyFileNotFoundError, PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyString};

mod errors;
mod game;
mod kept;
mod position;
mod report;
mod stream;
mod tables;

use game::{GameData, PyGame, parse_format};

/// mimalloc for every allocation of the extension's Rust code (Python's own objects keep
/// CPython's allocator): games are made on the batch workers and freed on the Python thread,
/// which mimalloc handles without the arena locks of glibc. Its options are read from the
/// environment when the extension is loaded (see kifu/__init__.py).
#[global_allocator]
static ALLOC: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// Games in one text above which validation is spread over the worker threads.
const PARALLEL_GAMES: usize = 64;

fn encoding_arg(encoding: Option<&str>) -> PyResult<Option<TextEncoding>> {
    match encoding {
        None => Ok(None),
        Some(e) if e.eq_ignore_ascii_case("auto") => Ok(None),
        Some(e) => TextEncoding::from_label(e).map(Some).ok_or_else(|| {
            PyValueError::new_err(format!(
                "unknown encoding {e:?} (utf-8, shift_jis/cp932, euc-jp, utf-16le, utf-16be)"
            ))
        }),
    }
}

fn format_arg(format: Option<&str>) -> PyResult<Option<Format>> {
    match format {
        None => Ok(None),
        Some(f) if f.eq_ignore_ascii_case("auto") => Ok(None),
        Some(f) => parse_format(f).map(Some),
    }
}

/// The `empty-input` finding for bytes that hold nothing but blanks (after a UTF-8 BOM).
fn empty(bytes: &[u8]) -> Option<Diagnostic> {
    let body = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
    body.iter()
        .all(u8::is_ascii_whitespace)
        .then(|| Diagnostic::new(Code::EmptyInput, "the input is empty (or blank lines only)"))
}

/// Validates the games read from one text (in parallel when there are many), or explains
/// why there are none.
fn games_of(
    decoded: formats::Decoded,
    path: Option<Arc<str>>,
) -> Result<Vec<GameData>, Diagnostic> {
    let formats::Decoded {
        format,
        games,
        diagnostics,
        ..
    } = decoded;
    if games.is_empty() {
        let d = diagnostics
            .into_iter()
            .next()
            .unwrap_or_else(|| match format {
                None => {
                    Diagnostic::new(Code::Syntax, "cannot tell the record format (give format=)")
                }
                Some(_) => Diagnostic::new(Code::Syntax, "no game found"),
            });
        return Err(d);
    }
    let make =
        |(i, g): (usize, formats::ParsedGame)| GameData::new(g, format, path.clone(), i as u64);
    if games.len() > PARALLEL_GAMES {
        use rayon::prelude::*;
        Ok(games.into_par_iter().enumerate().map(make).collect())
    } else {
        Ok(games.into_iter().enumerate().map(make).collect())
    }
}

fn into_games(py: Python<'_>, r: Result<Vec<GameData>, Diagnostic>) -> PyResult<Vec<PyGame>> {
    match r {
        Ok(v) => Ok(v.into_iter().map(PyGame::from).collect()),
        Err(d) => Err(errors::raise(
            py,
            errors::Kind::Parse,
            &d,
            std::slice::from_ref(&d),
        )),
    }
}

/// The bytes of a file, read into room for a record file of common size (most are a few
/// KiB): no `stat` for its size, and so one read and the one that finds the end.
fn read_whole(path: &Path, limit: Option<usize>) -> std::io::Result<Vec<u8>> {
    use std::io::Read;
    let mut bytes = Vec::with_capacity(READ_ROOM);
    let file = std::fs::File::open(path)?;
    match limit {
        // One byte past the limit says the file is longer: the rest is not read.
        Some(n) => file.take(n as u64 + 1).read_to_end(&mut bytes)?,
        None => (&file).read_to_end(&mut bytes)?,
    };
    Ok(bytes)
}

/// The first room [`read_whole`] makes.
const READ_ROOM: usize = 64 * 1024;

fn io_error(path: &Path, e: std::io::Error) -> PyErr {
    let shown = batch::discover::display_path(path);
    PyErr::from(std::io::Error::new(e.kind(), format!("{shown}: {e}")))
}

/// Reads every game of a record file (KIF, KI2, CSA, USI/SFEN, JKF; the format from the
/// extension, then the content; the encoding detected) and validates it. A directory or an
/// archive is read as `iter_games` reads it.
///
/// Raises ParseError only when no game can be read at all; what is wrong inside a game is
/// in `game.validate()` (or `game.diagnostics`). OSError when the file cannot be read.
#[pyfunction]
#[pyo3(signature = (path, format = None, encoding = None))]
fn read(
    py: Python<'_>,
    path: &Bound<'_, PyAny>,
    format: Option<&str>,
    encoding: Option<&str>,
) -> PyResult<Vec<PyGame>> {
    read_file(py, path_arg(path)?, format, encoding, true)
}

/// `read` from the records only (every game's record built at once): the oracle of the tests
/// that compare judging as read with it.
#[pyfunction]
#[pyo3(signature = (path, format = None, encoding = None))]
fn _read_full(
    py: Python<'_>,
    path: &Bound<'_, PyAny>,
    format: Option<&str>,
    encoding: Option<&str>,
) -> PyResult<Vec<PyGame>> {
    read_file(py, path_arg(path)?, format, encoding, false)
}

/// Texts up to this size are judged as read on the calling thread; a longer file as
/// `iter_games` reads it (on the worker threads, a chunk of games at a time), a longer text
/// (`parse`, and `_read_full`) from the records, its games validated on the worker threads.
const DIRECT_BYTES: usize = 256 * 1024;

/// The games of `bytes`: judged as read (`direct`, for a text of at most [`DIRECT_BYTES`])
/// where it applies, else read in full and validated.
fn read_games(
    bytes: &[u8],
    opts: &ReadOptions,
    path: Option<Arc<str>>,
    direct: bool,
) -> Result<Vec<GameData>, Diagnostic> {
    if direct
        && bytes.len() <= DIRECT_BYTES
        && let Some(games) = kept::text_games(bytes, opts, path.clone())
    {
        return Ok(games);
    }
    games_of(formats::read_bytes(bytes, opts), path)
}

fn read_file(
    py: Python<'_>,
    path: PathBuf,
    format: Option<&str>,
    encoding: Option<&str>,
    direct: bool,
) -> PyResult<Vec<PyGame>> {
    read_path(
        py,
        path,
        format_arg(format)?,
        encoding_arg(encoding)?,
        direct,
    )
}

fn read_path(
    py: Python<'_>,
    path: PathBuf,
    format: Option<Format>,
    encoding: Option<TextEncoding>,
    direct: bool,
) -> PyResult<Vec<PyGame>> {
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy())
        .unwrap_or_default();
    let batch_read = |py: Python<'_>, path: PathBuf| -> PyResult<Vec<PyGame>> {
        let opts = batch_options(None, format, encoding);
        let it = stream::games(vec![Input::Path(path)], opts);
        let mut out = Vec::new();
        while let Some(g) = it.__next__(py)? {
            out.push(g);
            // Ctrl-C is heard while the games come, not only when they stop coming.
            if out.len() % 1024 == 0 {
                py.check_signals()?;
            }
        }
        Ok(out)
    };
    if batch::discover::archive_kind(&name).is_some() {
        return batch_read(py, path);
    }
    // As the batch engine reads a file (and so `iter_games`): the format its extension names
    // unless the content is plainly another (then read as that, with a `format-mismatch`
    // warning), else what its content says.
    let hint = batch::discover::format_of_name(&name);
    let shown: Arc<str> = Arc::from(batch::discover::display_path(&path));
    let r = py.detach(|| {
        // A directory is found when reading it fails (on Linux it opens, then its read
        // fails), not by a `stat` first: a record file is read with one open, two reads and
        // a close.
        let bytes = match read_whole(&path, direct.then_some(DIRECT_BYTES)) {
            Ok(b) => b,
            Err(e) if e.kind() == std::io::ErrorKind::IsADirectory || path.is_dir() => {
                return Ok(Whole::Directory);
            }
            Err(e) => return Err(io_error(&path, e)),
        };
        // A long file (only its first 256 KiB and a byte were read) goes the way of
        // `iter_games`: a chunk of games at a time, each game keeping its chunk's bytes and
        // its moves, not a record built at once for every game beside the whole decoded text
        // (a 36 MB CSA file of 10,666 games: 560 MB before).
        if direct && bytes.len() > DIRECT_BYTES {
            return Ok(Whole::Long);
        }
        if let Some(d) = empty(&bytes) {
            return Ok(Whole::Games(Err(d)));
        }
        let opts = ReadOptions {
            format,
            hint,
            encoding,
        };
        Ok::<_, PyErr>(Whole::Games(read_games(&bytes, &opts, Some(shown), direct)))
    })?;
    match r {
        Whole::Directory => batch_read(py, path),
        Whole::Long => {
            // Read as `iter_games` reads it; should that give no game, reading into records says why
            // (`ParseError`).
            let games = batch_read(py, path.clone())?;
            if !games.is_empty() {
                return Ok(games);
            }
            read_path(py, path, format, encoding, false)
        }
        Whole::Games(r) => into_games(py, r),
    }
}

/// What [`read_path`] found of a file on the calling thread.
enum Whole {
    /// A directory: read as `iter_games` reads one.
    Directory,
    /// A file longer than [`DIRECT_BYTES`]: read as `iter_games` reads it.
    Long,
    /// Its games, or why there is none.
    Games(Result<Vec<GameData>, Diagnostic>),
}

/// Reads every game of a text (`str`) or of the bytes of a file (`bytes`, encoding
/// detected unless given) and validates it; the format is detected unless given.
#[pyfunction]
#[pyo3(signature = (text, format = None, encoding = None))]
fn parse(
    py: Python<'_>,
    text: &Bound<'_, PyAny>,
    format: Option<&str>,
    encoding: Option<&str>,
) -> PyResult<Vec<PyGame>> {
    let format = format_arg(format)?;
    let encoding = encoding_arg(encoding)?;
    let opts = ReadOptions {
        format,
        hint: None,
        encoding,
    };
    let r = if let Ok(b) = text.cast::<PyBytes>() {
        let bytes = b.as_bytes();
        match empty(bytes) {
            Some(d) => Err(d),
            None => py.detach(|| read_games(bytes, &opts, None, true)),
        }
    } else if let Ok(s) = text.cast::<PyString>() {
        if encoding.is_some() {
            return Err(PyValueError::new_err(
                "encoding= applies to bytes; a str is already decoded",
            ));
        }
        let s = s.to_cow()?;
        let s: &str = &s;
        if let Some(d) = empty(s.as_bytes()) {
            return into_games(py, Err(d));
        }
        // Already decoded: an `encoding=Shift_JIS` line in it says nothing any more.
        let opts = ReadOptions {
            encoding: Some(TextEncoding::Utf8),
            ..opts
        };
        py.detach(|| read_games(s.as_bytes(), &opts, None, true))
    } else {
        return Err(PyTypeError::new_err(format!(
            "parse() takes str or bytes, not {}",
            text.get_type().name()?
        )));
    };
    into_games(py, r)
}

/// A path given as `str`, `bytes` (a name that need not be UTF-8, as `os.fsencode` gives)
/// or `os.PathLike` (whose `__fspath__` gives either).
pub(crate) fn path_arg(p: &Bound<'_, PyAny>) -> PyResult<PathBuf> {
    let p = if p.is_instance_of::<PyString>() || p.is_instance_of::<PyBytes>() {
        p.clone()
    } else if p.hasattr("__fspath__")? {
        p.call_method0("__fspath__")?
    } else {
        return Err(PyTypeError::new_err(format!(
            "expected a path (str, bytes or os.PathLike), not {}",
            p.get_type().name()?
        )));
    };
    if let Ok(b) = p.cast::<PyBytes>() {
        #[cfg(unix)]
        {
            use std::os::unix::ffi::OsStrExt;
            return Ok(PathBuf::from(std::ffi::OsStr::from_bytes(b.as_bytes())));
        }
        #[cfg(not(unix))]
        {
            return Ok(PathBuf::from(
                String::from_utf8_lossy(b.as_bytes()).into_owned(),
            ));
        }
    }
    p.extract::<PathBuf>()
}

/// A path as shown in kifu's output ([`batch::discover::display_path`]) as Python gives file
/// names: a `str` that `open` takes (`os.fsdecode` of the name's bytes, where a byte that is
/// not UTF-8 is a lone surrogate, as `os.listdir` gives it).
pub(crate) fn path_out<'py>(py: Python<'py>, shown: &str) -> PyResult<Bound<'py, PyAny>> {
    if !shown.contains('\\') {
        return Ok(PyString::new(py, shown).into_any());
    }
    let bytes = PyBytes::new(py, &batch::discover::undisplay_path(shown));
    py.import("os")?.call_method1("fsdecode", (bytes,))
}

/// One path, or any iterable of paths (str, bytes or os.PathLike).
fn paths_arg(paths: &Bound<'_, PyAny>) -> PyResult<Vec<Input>> {
    let one = |p: PathBuf| -> PyResult<Input> {
        if std::fs::symlink_metadata(&p).is_err() {
            return Err(PyFileNotFoundError::new_err(format!(
                "{}: no such file or directory",
                batch::discover::display_path(&p)
            )));
        }
        Ok(Input::Path(p))
    };
    if paths.is_instance_of::<PyString>()
        || paths.is_instance_of::<PyBytes>()
        || paths.hasattr("__fspath__")?
    {
        return Ok(vec![one(path_arg(paths)?)?]);
    }
    let mut out = Vec::new();
    for p in paths.try_iter()? {
        out.push(one(path_arg(&p?)?)?);
    }
    Ok(out)
}

fn batch_options(
    jobs: Option<usize>,
    format: Option<Format>,
    encoding: Option<TextEncoding>,
) -> batch::Options {
    batch::Options {
        jobs: jobs.unwrap_or(0),
        input_format: format,
        encoding,
        ..batch::Options::default()
    }
}

/// Iterates over every game of files, directories (searched recursively for records and
/// archives) and `.zip`/`.tar`/`.tar.gz` archives, validated, in input order, reading and
/// validating on `jobs` threads (default: all cores). Files that give no game are skipped
/// (`kifu.validate` reports them).
#[pyfunction]
#[pyo3(signature = (paths, jobs = None, format = None, encoding = None))]
fn iter_games(
    paths: &Bound<'_, PyAny>,
    jobs: Option<usize>,
    format: Option<&str>,
    encoding: Option<&str>,
) -> PyResult<stream::GameIterator> {
    let inputs = paths_arg(paths)?;
    let opts = batch_options(jobs, format_arg(format)?, encoding_arg(encoding)?);
    Ok(stream::games(inputs, opts))
}

/// Validates every game of files, directories and archives on `jobs` threads and yields a
/// `Report` per game in input order (and one with `game=None` for a file that gives no
/// game: unreadable, empty, of no known format). `allow` and `deny` give codes the severity
/// warning or error (deny wins).
#[pyfunction]
#[pyo3(signature = (paths, jobs = None, allow = Vec::new(), deny = Vec::new(), format = None, encoding = None))]
fn validate(
    paths: &Bound<'_, PyAny>,
    jobs: Option<usize>,
    allow: Vec<String>,
    deny: Vec<String>,
    format: Option<&str>,
    encoding: Option<&str>,
) -> PyResult<stream::ReportIterator> {
    let sev = report::Severities::new(&allow, &deny)?;
    let inputs = paths_arg(paths)?;
    let opts = batch_options(jobs, format_arg(format)?, encoding_arg(encoding)?);
    Ok(stream::reports(inputs, opts, sev))
}

/// Every diagnostic code, in the order of docs/diagnostics.md.
#[pyfunction]
fn codes() -> Vec<&'static str> {
    Code::ALL.iter().map(|c| c.as_str()).collect()
}

/// The games table (or, with `positions`, the positions table) of `paths` as an Arrow
/// stream not yet started, for `kifu.games_table`, `kifu.positions_table` and their
/// `*_batches` forms: batches of `batch_rows` rows (0: the table's default).
#[pyfunction]
#[pyo3(signature = (paths, positions = false, jobs = None, format = None, encoding = None,
    opening_plies = 8, min_rating = None, min_rating_any = false, min_plies = None,
    max_plies = None, ending = Vec::new(), clean = false, since = None, until = None,
    player = Vec::new(), event = Vec::new(), dedup = false, batch_rows = 0, columns = None))]
#[allow(clippy::too_many_arguments)]
fn _table_stream(
    paths: &Bound<'_, PyAny>,
    positions: bool,
    jobs: Option<usize>,
    format: Option<&str>,
    encoding: Option<&str>,
    opening_plies: usize,
    min_rating: Option<f64>,
    min_rating_any: bool,
    min_plies: Option<u32>,
    max_plies: Option<u32>,
    ending: Vec<String>,
    clean: bool,
    since: Option<String>,
    until: Option<String>,
    player: Vec<String>,
    event: Vec<String>,
    dedup: bool,
    batch_rows: usize,
    columns: Option<Vec<String>>,
) -> PyResult<tables::TableStream> {
    let inputs = paths_arg(paths)?;
    let batch_opts = batch_options(jobs, format_arg(format)?, encoding_arg(encoding)?);
    let filter = kifu::tables::Filter {
        min_rating,
        min_rating_any,
        min_plies,
        max_plies,
        endings: ending,
        clean,
        since: tables::day("since", since)?,
        until: tables::day("until", until)?,
        players: player,
        events: event,
        dedup,
    };
    let table = match positions {
        true => kifu::tables::Table::Positions,
        false => kifu::tables::Table::Games,
    };
    let columns = columns
        .map(|names| kifu::tables::Columns::select(table, &names))
        .transpose()
        .map_err(|e| PyValueError::new_err(format!("columns: {e}")))?;
    tables::TableStream::new(tables::Job {
        inputs,
        batch_opts,
        table,
        opening_plies,
        filter,
        batch_rows,
        columns,
    })
}

#[pymodule]
fn _kifu(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = m.py();
    m.add_function(wrap_pyfunction!(read, m)?)?;
    m.add_function(wrap_pyfunction!(_read_full, m)?)?;
    m.add_function(wrap_pyfunction!(parse, m)?)?;
    m.add_function(wrap_pyfunction!(iter_games, m)?)?;
    m.add_function(wrap_pyfunction!(validate, m)?)?;
    m.add_function(wrap_pyfunction!(codes, m)?)?;
    m.add_function(wrap_pyfunction!(_table_stream, m)?)?;
    m.add_class::<PyGame>()?;
    m.add_class::<position::PyPosition>()?;
    m.add_class::<report::PyReport>()?;
    m.add_class::<report::PyDiagnostic>()?;
    m.add_class::<stream::GameIterator>()?;
    m.add_class::<stream::ReportIterator>()?;
    m.add_class::<tables::TableStream>()?;
    m.add("KifuError", py.get_type::<errors::KifuError>())?;
    m.add("ParseError", py.get_type::<errors::ParseError>())?;
    m.add("IllegalMove", py.get_type::<errors::IllegalMove>())?;
    Ok(())
}
