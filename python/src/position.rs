//! `kifu.Position`: a shogi position with the rules, for engine authors' scripts.

use kifu::core::{Illegal, perft};
use kifu::{Code, Diagnostic, Move};
use pyo3::exceptions::PyIndexError;
use pyo3::prelude::*;

use crate::errors;

/// A position: board, hands, side to move, move number. `push` plays a move after checking
/// every rule; `pop` takes the last pushed move back.
///
/// ```python
/// p = kifu.Position()            # the start position
/// p.push("7g7f"); p.push("3c3d")
/// p.legal_moves()                # ['1g1f', ...]
/// ```
#[pyclass(name = "Position", module = "kifu")]
#[derive(Clone)]
pub struct PyPosition {
    pos: kifu::Position,
    history: Vec<kifu::Position>,
}

impl From<kifu::Position> for PyPosition {
    fn from(pos: kifu::Position) -> PyPosition {
        PyPosition {
            pos,
            history: Vec::new(),
        }
    }
}

fn parse_move(py: Python<'_>, usi: &str) -> PyResult<Move> {
    Move::from_usi(usi).map_err(|_| {
        let mut shown: String = usi.chars().take(40).collect();
        if shown.len() < usi.len() {
            shown.push('…');
        }
        errors::syntax(
            py,
            format!("{shown:?} is not a USI move (7g7f, 8h2b+, P*5e)"),
        )
    })
}

fn bad_sfen(py: Python<'_>, e: kifu::core::SfenError) -> PyErr {
    let code = match e {
        kifu::core::SfenError::Position(_) => Code::BadPosition,
        _ => Code::Syntax,
    };
    let d = Diagnostic::new(code, format!("bad SFEN: {e}"));
    errors::raise(py, errors::Kind::Parse, &d, &[])
}

#[pymethods]
impl PyPosition {
    /// The start position of an even game, or the position an SFEN gives (`sfen` may start
    /// with `sfen `, or be `startpos`).
    #[new]
    #[pyo3(signature = (sfen = None))]
    fn new(py: Python<'_>, sfen: Option<&str>) -> PyResult<PyPosition> {
        match sfen {
            None => Ok(PyPosition::from(kifu::Position::startpos())),
            Some(s) => PyPosition::from_sfen(py, s),
        }
    }

    /// The position an SFEN gives (or `startpos`, `sfen SFEN`, a USI `position` line: the
    /// text `kifu perft --sfen` takes, moves after `moves` played). Raises ParseError (code
    /// `syntax`, or `bad-position` for an impossible position: two kings of a side, a pawn
    /// on the last rank...). A side without a king is allowed (tsume problems).
    #[staticmethod]
    fn from_sfen(py: Python<'_>, sfen: &str) -> PyResult<PyPosition> {
        let (setup, moves) =
            kifu::formats::usi::parse_position(sfen).map_err(|e| errors::syntax(py, e.message))?;
        let mut pos = kifu::Position::from_setup_relaxed(&setup)
            .map_err(|e| bad_sfen(py, kifu::core::SfenError::Position(e)))?;
        for m in moves {
            if let Err(e) = pos.play(m) {
                return Err(errors::syntax(py, format!("{m}: {e}")));
            }
        }
        Ok(PyPosition::from(pos))
    }

    /// The SFEN of the position.
    fn sfen(&self) -> String {
        self.pos.to_sfen()
    }

    /// `"black"` or `"white"`: the side to move.
    #[getter]
    fn turn(&self) -> &'static str {
        self.pos.turn().name()
    }

    /// The move number (1 at the start, as SFEN counts).
    #[getter]
    fn move_number(&self) -> u32 {
        self.pos.move_number()
    }

    /// Every legal move in USI, in generation order.
    fn legal_moves(&self) -> Vec<String> {
        self.pos.legal_moves().iter().map(|m| m.to_usi()).collect()
    }

    /// Whether `usi` is a legal move here (False for text that is no move).
    fn is_legal(&self, usi: &str) -> bool {
        Move::from_usi(usi).is_ok_and(|m| self.pos.is_legal(m))
    }

    /// Plays a move after checking every rule. Raises IllegalMove (`code` names the rule:
    /// `nifu`, `uchifuzume`, `self-check`, `no-piece`...) and leaves the position as it was,
    /// or ParseError for text that is not a USI move.
    fn push(&mut self, py: Python<'_>, usi: &str) -> PyResult<()> {
        let mv = parse_move(py, usi)?;
        let before = self.pos.clone();
        match self.pos.play(mv) {
            Ok(_) => {
                self.history.push(before);
                Ok(())
            }
            Err(ill) => Err(illegal(py, ill, mv, &before)),
        }
    }

    /// Takes back the last move pushed; IndexError when there is none.
    fn pop(&mut self) -> PyResult<()> {
        match self.history.pop() {
            Some(p) => {
                self.pos = p;
                Ok(())
            }
            None => Err(PyIndexError::new_err("no move to take back")),
        }
    }

    /// Whether the side to move is in check.
    fn is_check(&self) -> bool {
        self.pos.in_check()
    }

    /// Whether the side to move is checkmated.
    fn is_mate(&self) -> bool {
        self.pos.is_checkmate()
    }

    /// The number of leaves of the legal-move tree `depth` plies deep (the GIL is released
    /// while it counts).
    fn perft(&self, py: Python<'_>, depth: u32) -> u64 {
        let pos = self.pos.clone();
        py.detach(move || perft(&pos, depth))
    }

    /// A copy (with its own move history).
    fn copy(&self) -> PyPosition {
        self.clone()
    }

    fn __copy__(&self) -> PyPosition {
        self.clone()
    }

    fn __deepcopy__(&self, _memo: &Bound<'_, PyAny>) -> PyPosition {
        self.clone()
    }

    /// Pickled (for `multiprocessing`, say) as its SFEN, with the SFENs of the positions
    /// `pop` goes back to as its state.
    fn __reduce__<'py>(
        slf: &Bound<'py, Self>,
    ) -> (Bound<'py, pyo3::types::PyType>, (String,), Vec<String>) {
        let me = slf.borrow();
        let history = me.history.iter().map(kifu::Position::to_sfen).collect();
        (slf.get_type(), (me.pos.to_sfen(),), history)
    }

    fn __setstate__(&mut self, py: Python<'_>, history: Vec<String>) -> PyResult<()> {
        self.history = history
            .iter()
            .map(|s| kifu::Position::from_sfen_relaxed(s).map_err(|e| bad_sfen(py, e)))
            .collect::<PyResult<_>>()?;
        Ok(())
    }

    fn __eq__(&self, other: PyRef<'_, PyPosition>) -> bool {
        self.pos.to_sfen() == other.pos.to_sfen()
    }

    /// The Zobrist key of the position (board, hands, side to move): equal positions have
    /// equal keys. A `Position` itself is not hashable, being mutable; use `key` or `sfen()`.
    #[getter]
    fn key(&self) -> u64 {
        self.pos.key()
    }

    fn __hash__(&self) -> PyResult<isize> {
        Err(pyo3::exceptions::PyTypeError::new_err(
            "a Position is mutable, so unhashable: use p.key or p.sfen()",
        ))
    }

    fn __str__(&self) -> String {
        self.pos.to_sfen()
    }

    fn __repr__(&self) -> String {
        format!("Position({:?})", self.pos.to_sfen())
    }
}

fn illegal(py: Python<'_>, ill: Illegal, mv: Move, pos: &kifu::Position) -> PyErr {
    let code = Code::from(ill);
    let d = Diagnostic::new(
        code,
        format!(
            "{} is illegal for {} here: {}",
            mv.to_usi(),
            pos.turn().name(),
            ill.as_str()
        ),
    )
    .ply(pos.move_number())
    .with_move(mv.to_usi());
    errors::raise(py, errors::Kind::Illegal, &d, &[])
}
