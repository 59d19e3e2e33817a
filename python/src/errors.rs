//! The exceptions: `kifu.KifuError` (a `ValueError`), and under it `kifu.ParseError` and
//! `kifu.IllegalMove`, each carrying the fields of the diagnostic that caused it.

use kifu::Diagnostic;
use pyo3::create_exception;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

create_exception!(
    kifu,
    KifuError,
    PyValueError,
    "The base of kifu's exceptions. Attributes: `code` (the diagnostic code, as in \
     docs/diagnostics.md), `line`, `column`, `ply` (each an int or None) and `message`."
);
create_exception!(
    kifu,
    ParseError,
    KifuError,
    "Text that cannot be read as a game record (no game at all, an unknown format, a bad \
     SFEN or USI move)."
);
create_exception!(
    kifu,
    IllegalMove,
    KifuError,
    "A move the rules refuse (`Position.push`); `code` names the rule (`nifu`, `self-check`...)."
);

/// Which exception class to raise.
#[derive(Clone, Copy)]
pub enum Kind {
    Parse,
    Illegal,
}

/// An exception of `kind` with the fields of `d`, and `diagnostics` (every finding, as
/// `kifu.Diagnostic` objects) when given.
pub fn raise(py: Python<'_>, kind: Kind, d: &Diagnostic, all: &[Diagnostic]) -> PyErr {
    let err = match kind {
        Kind::Parse => ParseError::new_err(d.message.clone()),
        Kind::Illegal => IllegalMove::new_err(d.message.clone()),
    };
    if let Err(e) = fill(py, &err, d, all) {
        return e;
    }
    err
}

fn fill(py: Python<'_>, err: &PyErr, d: &Diagnostic, all: &[Diagnostic]) -> PyResult<()> {
    let v = err.value(py);
    v.setattr("code", d.code.as_str())?;
    v.setattr("line", d.line)?;
    v.setattr("column", d.column)?;
    v.setattr("ply", d.ply)?;
    v.setattr("message", d.message.as_str())?;
    let list: Vec<crate::report::PyDiagnostic> =
        all.iter().map(crate::report::PyDiagnostic::from).collect();
    v.setattr("diagnostics", list)?;
    Ok(())
}

/// A `ParseError` with code `syntax` and `message`.
pub fn syntax(py: Python<'_>, message: impl Into<String>) -> PyErr {
    let d = Diagnostic::new(kifu::Code::Syntax, message);
    raise(py, Kind::Parse, &d, &[])
}
