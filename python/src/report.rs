//! `kifu.Diagnostic` and `kifu.Report`: what validation finds, as Python objects.

use std::collections::BTreeMap;

use kifu::validate::Report;
use kifu::{Code, Diagnostic, Severity};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

/// One finding: a stable `code`, its `severity` (`"error"` or `"warning"`), a `message`, and
/// where it is (`line` and `column` in the file, from 1, and `ply`, the move number), each
/// None when not known; `move` is the move in USI, `written` the move as the record writes it.
#[pyclass(name = "Diagnostic", module = "kifu", frozen, eq)]
#[derive(Clone, PartialEq)]
pub struct PyDiagnostic {
    /// The diagnostic code (`nifu`, `syntax`, ...; see docs/diagnostics.md).
    #[pyo3(get)]
    code: &'static str,
    /// `"error"` or `"warning"`.
    #[pyo3(get)]
    severity: &'static str,
    /// What is wrong, in English.
    #[pyo3(get)]
    message: String,
    /// Line in the file, from 1.
    #[pyo3(get)]
    line: Option<u32>,
    /// Column (in characters), from 1.
    #[pyo3(get)]
    column: Option<u32>,
    /// Ply of the move concerned (the first move is ply 1).
    #[pyo3(get)]
    ply: Option<u32>,
    /// The move in USI, when known.
    #[pyo3(get, name = "move")]
    mv: Option<String>,
    /// The move as written in the record.
    #[pyo3(get)]
    written: Option<String>,
}

impl From<&Diagnostic> for PyDiagnostic {
    fn from(d: &Diagnostic) -> PyDiagnostic {
        PyDiagnostic {
            code: d.code.as_str(),
            severity: severity_name(d.severity),
            message: d.message.clone(),
            line: d.line,
            column: d.column,
            ply: d.ply,
            mv: d.mv.clone(),
            written: d.written.clone(),
        }
    }
}

fn severity_name(s: Severity) -> &'static str {
    match s {
        Severity::Error => "error",
        Severity::Warning => "warning",
    }
}

#[pymethods]
impl PyDiagnostic {
    /// Whether it is an error (any error makes a record invalid).
    #[getter]
    fn is_error(&self) -> bool {
        self.severity == "error"
    }

    fn __repr__(&self) -> String {
        let at = match (self.line, self.column) {
            (Some(l), Some(c)) => format!(" at {l}:{c}"),
            (Some(l), None) => format!(" at line {l}"),
            _ => String::new(),
        };
        let ply = self.ply.map(|p| format!(" ply {p}")).unwrap_or_default();
        format!(
            "<Diagnostic {}[{}]{at}{ply}: {}>",
            self.severity, self.code, self.message
        )
    }

    fn __str__(&self) -> String {
        self.__repr__()
    }
}

/// The severities a user gives codes (`allow`: warnings, `deny`: errors; deny wins).
#[derive(Clone, Default)]
pub struct Severities(BTreeMap<Code, Severity>);

impl Severities {
    pub fn new(allow: &[String], deny: &[String]) -> PyResult<Severities> {
        let mut map = BTreeMap::new();
        for (names, sev) in [(allow, Severity::Warning), (deny, Severity::Error)] {
            for name in names {
                let code = Code::from_name(name.trim()).ok_or_else(|| {
                    PyValueError::new_err(format!(
                        "unknown diagnostic code {name:?} (see docs/diagnostics.md)"
                    ))
                })?;
                map.insert(code, sev);
            }
        }
        Ok(Severities(map))
    }

    pub fn apply(&self, ds: &mut [Diagnostic]) {
        if self.0.is_empty() {
            return;
        }
        for d in ds {
            if let Some(&s) = self.0.get(&d.code) {
                d.severity = s;
            }
        }
    }
}

/// What validating one game found (or, with `game` None, what was found about a file that
/// gave no game: unreadable, unknown format, empty).
#[pyclass(name = "Report", module = "kifu", frozen)]
pub struct PyReport {
    /// The file (inside an archive: `archive.zip/entry.kif`), or None for text.
    path: Option<String>,
    /// Index of the game in its file, from 0; None for a finding about the file itself.
    #[pyo3(get)]
    game: Option<u64>,
    /// The format read (`kif`, `csa`, ...), when it was told.
    #[pyo3(get)]
    format: Option<&'static str>,
    /// Moves in the main line.
    #[pyo3(get)]
    plies: u32,
    /// The recorded ending, by its CSA name (`TORYO`, `SENNICHITE`, ...), or None.
    #[pyo3(get)]
    result: Option<String>,
    /// `"black"`, `"white"`, `"draw"` or None, as the record says.
    #[pyo3(get)]
    winner: Option<&'static str>,
    /// Black's player, as the header says.
    #[pyo3(get)]
    black: Option<String>,
    /// White's player.
    #[pyo3(get)]
    white: Option<String>,
    /// The event.
    #[pyo3(get)]
    event: Option<String>,
    /// The start date as written.
    #[pyo3(get)]
    date: Option<String>,
    /// What the board decides, where it decides (`validate`'s `result.by_board`): `"black"`,
    /// `"white"` or `"draw"`, or None.
    #[pyo3(get)]
    board_winner: Option<&'static str>,
    /// How the board decided: `"foul"`, `"mate"`, `"repetition"` or `"perpetual-check"`.
    #[pyo3(get)]
    board_by: Option<&'static str>,
    /// The ply of the move that decided it.
    #[pyo3(get)]
    board_ply: Option<u32>,
    diagnostics: Vec<Diagnostic>,
}

impl PyReport {
    /// The report of a game.
    pub fn of_game(
        mut r: Report,
        path: Option<String>,
        game: Option<u64>,
        format: Option<kifu::Format>,
        sev: &Severities,
    ) -> PyReport {
        sev.apply(&mut r.diagnostics);
        PyReport {
            path,
            game,
            format: format.map(kifu::Format::name),
            plies: r.plies,
            result: r.result.recorded,
            winner: r.result.winner.map(|w| w.as_str()),
            black: r.info.black,
            white: r.info.white,
            event: r.info.event,
            date: r.info.date,
            board_winner: r.result.by_board.map(|b| b.winner.as_str()),
            board_by: r.result.by_board.map(|b| b.by),
            board_ply: r.result.by_board.map(|b| b.ply),
            diagnostics: r.diagnostics,
        }
    }

    /// The report of findings about a file that are not about one game.
    pub fn of_file(
        mut ds: Vec<Diagnostic>,
        path: Option<String>,
        format: Option<kifu::Format>,
        sev: &Severities,
    ) -> PyReport {
        sev.apply(&mut ds);
        PyReport {
            path,
            game: None,
            format: format.map(kifu::Format::name),
            plies: 0,
            result: None,
            winner: None,
            black: None,
            white: None,
            event: None,
            date: None,
            board_winner: None,
            board_by: None,
            board_ply: None,
            diagnostics: ds,
        }
    }
}

#[pymethods]
impl PyReport {
    /// The file it was read from (inside an archive: `archive.zip/entry.kif`), or None for
    /// text: a name that is not UTF-8 as `os.fsdecode` gives it.
    #[getter]
    fn path<'py>(&self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyAny>>> {
        self.path
            .as_deref()
            .map(|p| crate::path_out(py, p))
            .transpose()
    }
    /// Every finding, sorted by line and column (a new list of `Diagnostic` each time).
    #[getter]
    fn diagnostics(&self) -> Vec<PyDiagnostic> {
        self.diagnostics.iter().map(PyDiagnostic::from).collect()
    }

    /// The number of errors.
    #[getter]
    fn errors(&self) -> usize {
        self.diagnostics.iter().filter(|d| d.is_error()).count()
    }

    /// The number of warnings.
    #[getter]
    fn warnings(&self) -> usize {
        self.diagnostics.len() - self.errors()
    }

    /// True when there is no error (warnings allowed).
    #[getter]
    fn ok(&self) -> bool {
        !self.diagnostics.iter().any(Diagnostic::is_error)
    }

    /// The codes found, in order, each once.
    #[getter]
    fn codes(&self) -> Vec<&'static str> {
        let mut out: Vec<&'static str> = Vec::new();
        for d in &self.diagnostics {
            if !out.contains(&d.code.as_str()) {
                out.push(d.code.as_str());
            }
        }
        out
    }

    fn __repr__(&self) -> String {
        let game = self.game.map(|g| format!("#{g}")).unwrap_or_default();
        format!(
            "<Report {}{game} plies={} errors={} warnings={}>",
            self.path.as_deref().unwrap_or("<text>"),
            self.plies,
            self.errors(),
            self.warnings()
        )
    }
}
