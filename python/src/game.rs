//! `kifu.Game`: one game read from a record, validated, with its Python views built lazily.
//!
//! The Rust record stays inside; the lists Python sees (`moves`, `header`) are built on first
//! access and kept, the rest on each access. Moves are held as 4-byte `Move`s until then.

use std::sync::{Arc, OnceLock};

use kifu::core::{PieceKind, Setup, Square};
use kifu::formats::{ParsedGame, WriteOptions};
use kifu::record::{HeaderEntry, MoveNode, NodeKind, Record, StartPosition};
use kifu::validate::{self, Report};
use kifu::{Format, Move};
use pyo3::exceptions::{PyIndexError, PyValueError};
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{PyDict, PyList, PyString};

use crate::errors;
use crate::kept::Kept;
use crate::position::PyPosition;
use crate::report::{PyDiagnostic, PyReport, Severities};

/// A game read and validated in Rust, before Python sees it.
pub struct GameData {
    /// What reading and validating found (reader's findings first, sorted by line).
    pub report: Report,
    pub format: Option<Format>,
    pub path: Option<Arc<str>>,
    pub index: u64,
    /// The main line's moves that can be played from the start position, in order.
    pub moves: Vec<Move>,
    /// The record: set when the game was read into records, else read from the kept text on
    /// first use.
    record: OnceLock<Record>,
    /// What a game judged as read keeps to make its record (`None`: from the records).
    kept: Option<Kept>,
}

impl GameData {
    /// Validates `game` (resolving its moves) and keeps what Python will ask for.
    pub fn new(
        mut game: ParsedGame,
        format: Option<Format>,
        path: Option<Arc<str>>,
        index: u64,
    ) -> GameData {
        let report = validate::validate_game(&mut game, &validate::Options::default());
        GameData::validated(game.record, report, format, path, index)
    }

    /// A game read and validated from the records: `record` replayed, `report` its findings.
    pub fn validated(
        record: Record,
        report: Report,
        format: Option<Format>,
        path: Option<Arc<str>>,
        index: u64,
    ) -> GameData {
        let moves = played_moves(&record, &report);
        GameData {
            report,
            format,
            path,
            index,
            moves,
            record: OnceLock::from(record),
            kept: None,
        }
    }

    /// A game judged as read: every move of `moves` legal from the even start, the
    /// record made from `kept` when asked.
    pub fn short(
        report: Report,
        moves: Vec<Move>,
        kept: Kept,
        format: Option<Format>,
        path: Option<Arc<str>>,
        index: u64,
    ) -> GameData {
        GameData {
            report,
            format,
            path,
            index,
            moves,
            record: OnceLock::new(),
            kept: Some(kept),
        }
    }

    /// The record, read from the kept text the first time for a game judged as read.
    pub fn record(&self) -> &Record {
        self.record.get_or_init(|| match &self.kept {
            Some(k) => k.record(),
            None => Record::default(),
        })
    }

    /// Whether the record is still to be made (a game judged as read, not yet asked).
    pub fn lazy(&self) -> bool {
        self.record.get().is_none()
    }

    /// The header entries in file order.
    fn header_entries(&self) -> &[HeaderEntry] {
        match &self.kept {
            Some(k) => &k.header.entries,
            None => &self.record().header.entries,
        }
    }

    /// The start position (the even one for a game judged as read), or why there is
    /// none the engine can represent.
    fn start(&self) -> Result<kifu::Position, String> {
        match &self.kept {
            Some(Kept { full: Some(f), .. }) => {
                kifu::Position::from_setup_lenient(&f.start).map_err(|e| e.to_string())
            }
            Some(_) => {
                kifu::Position::from_setup_lenient(&Setup::startpos()).map_err(|e| e.to_string())
            }
            None => start_position(self.record()),
        }
    }

    /// Moves recorded in the main line: all played, for a game judged as read.
    fn plies(&self) -> u32 {
        match &self.kept {
            Some(Kept { full: Some(f), .. }) => f.plies,
            Some(_) => self.moves.len() as u32,
            None => self.record().plies(),
        }
    }

    fn start_sfen(&self) -> String {
        match &self.kept {
            Some(Kept { full: Some(f), .. }) => f.start.to_sfen(),
            Some(_) => Setup::startpos().to_sfen(),
            None => self.record().start.to_setup().to_sfen(),
        }
    }
}

/// The start position the engine can represent (impossible ones too, as validation replays
/// them), or why not.
pub fn start_position(record: &Record) -> Result<kifu::Position, String> {
    kifu::Position::from_setup_lenient(&record.start.to_setup()).map_err(|e| e.to_string())
}

/// The moves of a validated record's main line that can be played: without an error,
/// validation resolved and played every one (a move it could not resolve or carry out, a
/// wrong turn, an unreadable move and an impossible start are all errors), so no second replay
/// is needed.
pub fn played_moves(record: &Record, report: &Report) -> Vec<Move> {
    if report.has_errors() {
        main_line(record)
    } else {
        record.moves.iter().map_while(MoveNode::resolved).collect()
    }
}

/// [`played_moves`] of a game's digest (its start, and its `moves`, taken).
pub fn digest_moves(start: &StartPosition, mut moves: Vec<Move>, report: &Report) -> Vec<Move> {
    if !report.has_errors() {
        return moves;
    }
    let Ok(mut pos) = kifu::Position::from_setup_lenient(&start.to_setup()) else {
        return Vec::new();
    };
    let played = moves
        .iter()
        .take_while(|&&m| pos.play_unchecked(m).is_ok())
        .count();
    moves.truncate(played);
    moves
}

/// The main line's resolved moves up to the first that is unresolved or cannot be carried out.
fn main_line(record: &Record) -> Vec<Move> {
    let Ok(mut pos) = start_position(record) else {
        return Vec::new();
    };
    let mut out = Vec::with_capacity(record.moves.len());
    for node in &record.moves {
        let Some(mv) = node.resolved() else { break };
        if pos.play_unchecked(mv).is_err() {
            break;
        }
        out.push(mv);
    }
    out
}

/// One game: header, start position, moves (USI), result, comments, times, variations;
/// conversion to every format and validation.
///
/// Games come from `kifu.read`, `kifu.parse` and `kifu.iter_games`. They are already
/// validated: `validate()` returns the report at no cost.
#[pyclass(name = "Game", module = "kifu", frozen)]
pub struct PyGame {
    data: GameData,
    moves: PyOnceLock<Py<PyList>>,
    header: PyOnceLock<Py<PyDict>>,
}

impl From<GameData> for PyGame {
    fn from(data: GameData) -> PyGame {
        PyGame {
            data,
            moves: PyOnceLock::new(),
            header: PyOnceLock::new(),
        }
    }
}

/// Slots of [`USI`]: a board move by source, destination and promotion, then a drop by kind
/// and destination.
const USI_SLOTS: usize = 81 * 81 * 2 + 14 * 81;

/// Each move's USI text as one shared Python string, all made on first use (some 14,000, about
/// a millisecond): a list of moves is then a list of references, a game's 150 moves not 150
/// string allocations. Made all at once rather than each on its first use, a move's string is
/// one load away, where a cell made on demand checked its state first and took twice the
/// room (`iter_games` over the bench's 2,000 CSA games spent 11 % of its time making `moves`
/// lists that way).
static USI: PyOnceLock<Box<[Py<PyString>]>> = PyOnceLock::new();

fn usi_slot(m: Move) -> usize {
    match m {
        Move::Normal { from, to, promote } => {
            (from.index() * 81 + to.index()) * 2 + usize::from(promote)
        }
        Move::Drop { kind, to } => 81 * 81 * 2 + kind.index() * 81 + to.index(),
    }
}

/// The move of a slot of [`USI`] (the inverse of [`usi_slot`]).
fn slot_move(slot: usize) -> Option<Move> {
    if slot < 81 * 81 * 2 {
        return Some(Move::Normal {
            from: Square::from_index(slot / 2 / 81)?,
            to: Square::from_index(slot / 2 % 81)?,
            promote: slot % 2 == 1,
        });
    }
    let drop = slot - 81 * 81 * 2;
    Some(Move::Drop {
        kind: PieceKind::from_index(drop / 81)?,
        to: Square::from_index(drop % 81)?,
    })
}

/// The shared strings of every slot of [`USI`].
fn usi_table(py: Python<'_>) -> &[Py<PyString>] {
    USI.get_or_init(py, || {
        (0..USI_SLOTS)
            .map(|slot| {
                let text = slot_move(slot).map(Move::to_usi).unwrap_or_default();
                PyString::new(py, &text).unbind()
            })
            .collect()
    })
}

/// The USI text of `m` as a Python string (shared, see [`USI`]).
fn usi_str<'py>(py: Python<'py>, table: &[Py<PyString>], m: Move) -> Bound<'py, PyString> {
    match table.get(usi_slot(m)) {
        Some(s) => s.bind(py).clone(),
        None => PyString::new(py, &m.to_usi()),
    }
}

fn usi_list(py: Python<'_>, moves: &[Move]) -> PyResult<Py<PyList>> {
    let table = usi_table(py);
    Ok(PyList::new(py, moves.iter().map(|&m| usi_str(py, table, m)))?.unbind())
}

/// The variations of `line` (whose first node is at `first_ply`), nested, as dicts.
fn variations<'py>(
    py: Python<'py>,
    line: &[MoveNode],
    first_ply: u32,
) -> PyResult<Bound<'py, PyList>> {
    let out = PyList::empty(py);
    for (i, node) in line.iter().enumerate() {
        let ply = first_ply + i as u32;
        for var in &node.variations {
            let moves: Vec<String> = var
                .iter()
                .map_while(|n| n.resolved())
                .map(Move::to_usi)
                .collect();
            let d = PyDict::new(py);
            d.set_item("ply", ply)?;
            d.set_item("moves", moves)?;
            d.set_item("variations", variations(py, var, ply)?)?;
            out.append(d)?;
        }
    }
    Ok(out)
}

impl PyGame {
    fn write(&self, format: Format, opts: &WriteOptions) -> String {
        kifu::write(format, self.data.record(), opts).text
    }

    fn move_nodes(&self) -> impl Iterator<Item = &MoveNode> {
        self.data
            .record()
            .moves
            .iter()
            .filter(|n| matches!(n.kind, NodeKind::Move { .. }))
    }

    fn position_after(&self, ply: i64) -> PyResult<kifu::Position> {
        let n = self.data.moves.len() as i64;
        let ply = if ply < 0 { n + 1 + ply } else { ply };
        if ply < 0 || ply > n {
            return Err(PyIndexError::new_err(format!(
                "ply {ply} is outside 0..={n} (the playable moves of the main line)"
            )));
        }
        let mut pos = self.data.start().map_err(|e| {
            let d = kifu::Diagnostic::new(kifu::Code::BadPosition, e);
            Python::attach(|py| errors::raise(py, errors::Kind::Parse, &d, &[]))
        })?;
        for &mv in self.data.moves.iter().take(ply as usize) {
            // Every move of `moves` was played this way when the game was read.
            let _ = pos.play_unchecked(mv);
        }
        Ok(pos)
    }
}

#[pymethods]
impl PyGame {
    /// The header, key to value, in file order (the first value of a repeated key). Keys
    /// are as the reader maps them: `先手`, `後手`, `棋戦`, `開始日時`, ... (CSA `N+` becomes
    /// `先手`), others as written (`$TIME_LIMIT`).
    #[getter]
    fn header(&self, py: Python<'_>) -> PyResult<Py<PyDict>> {
        let d = self
            .header
            .get_or_try_init(py, || -> PyResult<Py<PyDict>> {
                let d = PyDict::new(py);
                for e in self.data.header_entries() {
                    if !d.contains(&e.key)? {
                        d.set_item(&e.key, &e.value)?;
                    }
                }
                Ok(d.unbind())
            })?;
        Ok(d.clone_ref(py))
    }

    /// The start position as SFEN.
    #[getter]
    fn start_sfen(&self) -> String {
        self.data.start_sfen()
    }

    /// The main line's moves in USI (`7g7f`, `P*5e`, `8h2b+`), up to the first move that
    /// cannot be resolved or carried out (see `validate()` for why). Built on first access;
    /// changing the list changes nothing else.
    #[getter]
    fn moves(&self, py: Python<'_>) -> PyResult<Py<PyList>> {
        let l = self
            .moves
            .get_or_try_init(py, || usi_list(py, &self.data.moves))?;
        Ok(l.clone_ref(py))
    }

    /// Moves recorded in the main line (including any after one that could not be played).
    #[getter]
    fn plies(&self) -> u32 {
        self.data.plies()
    }

    /// The recorded ending by its CSA name (`TORYO`, `SENNICHITE`, `TIME_UP`, ...), or None.
    #[getter]
    fn result(&self) -> Option<String> {
        self.data.report.result.recorded.clone()
    }

    /// `"black"`, `"white"`, `"draw"`, or None when the record does not say.
    #[getter]
    fn winner(&self) -> Option<&'static str> {
        self.data.report.result.winner.map(|w| w.as_str())
    }

    /// Black's player (先手 or 下手), if recorded.
    #[getter]
    fn black(&self) -> Option<String> {
        self.data.report.info.black.clone()
    }

    /// White's player (後手 or 上手), if recorded.
    #[getter]
    fn white(&self) -> Option<String> {
        self.data.report.info.white.clone()
    }

    /// Comments as `(ply, text)` pairs in order: ply 0 for the start position, ply N for the
    /// comment after the N-th node of the main line (the ending included); a comment of
    /// several lines is one text joined with newlines.
    #[getter]
    fn comments(&self) -> Vec<(u32, String)> {
        let r = self.data.record();
        let mut out = Vec::new();
        if !r.start_comments.is_empty() {
            out.push((0, r.start_comments.join("\n")));
        }
        for (i, n) in r.moves.iter().enumerate() {
            if !n.comments.is_empty() {
                out.push((i as u32 + 1, n.comments.join("\n")));
            }
        }
        out
    }

    /// Milliseconds each move of the main line took (None where not recorded), one per move
    /// recorded.
    #[getter]
    fn times(&self) -> Vec<Option<u64>> {
        self.move_nodes()
            .map(|n| n.time.and_then(|t| t.elapsed_ms))
            .collect()
    }

    /// The mover's total time in milliseconds after each move (None where not recorded).
    #[getter]
    fn total_times(&self) -> Vec<Option<u64>> {
        self.move_nodes()
            .map(|n| n.time.and_then(|t| t.total_ms))
            .collect()
    }

    /// Variations as dicts `{"ply": P, "moves": [...USI], "variations": [...]}`: the line's
    /// first move replaces the move at ply P; nested variations count plies alike.
    #[getter]
    fn variations<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        variations(py, &self.data.record().moves, 1)
    }

    /// The format the game was read from (`kif`, `kifu`, `ki2`, `csa`, `usi`, `jkf`).
    #[getter]
    fn format(&self) -> Option<&'static str> {
        self.data.format.map(Format::name)
    }

    /// The file it was read from (inside an archive: `archive.zip/entry.kif`), or None.
    #[getter]
    fn path<'py>(&self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyAny>>> {
        self.data
            .path
            .as_deref()
            .map(|p| crate::path_out(py, p))
            .transpose()
    }

    /// Index of the game in its file, from 0.
    #[getter]
    fn index(&self) -> u64 {
        self.data.index
    }

    /// What reading and validating found (the same list as `validate().diagnostics`).
    #[getter]
    fn diagnostics(&self) -> Vec<PyDiagnostic> {
        self.data
            .report
            .diagnostics
            .iter()
            .map(PyDiagnostic::from)
            .collect()
    }

    /// The position after `ply` moves of `moves` as SFEN (0: the start; negative counts from
    /// the end, -1 the final position). IndexError past the end.
    #[pyo3(signature = (ply))]
    fn sfen_at(&self, ply: i64) -> PyResult<String> {
        Ok(self.position_after(ply)?.to_sfen())
    }

    /// The SFEN of every position of the main line, in one pass: before the first move
    /// (index 0), then after each move of `moves` (`len(moves) + 1` strings). For training
    /// data: `zip(game.sfens(), game.moves)` pairs each position with the move played in it.
    ///
    /// A line of legal moves (every game without an error) is written by the positions
    /// table's SFEN writer into one buffer, each string made from its slice: under 300 ns a
    /// position, against 700 to 1,100 for a `Position` replayed and asked `to_sfen()` at each
    /// ply, which the moves from a foul on still take (docs/history/benchmarks-notebook.md, session 28).
    fn sfens<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        let data = &self.data;
        // The SFENs one after the other, and where each ends.
        let all = py.detach(|| -> Result<(Vec<u8>, Vec<usize>), String> {
            let mut pos = data.start()?;
            let (mut text, mut ends) = (Vec::new(), Vec::new());
            let played = kifu::tables::line_sfens(&mut pos, &data.moves, &mut text, &mut ends);
            // The moves from a foul on (`pos` stands before it), played as they can be carried
            // out.
            for &mv in &data.moves[played..] {
                let _ = pos.play_unchecked(mv);
                text.extend_from_slice(pos.to_sfen().as_bytes());
                ends.push(text.len());
            }
            Ok((text, ends))
        });
        match all {
            Ok((text, ends)) => {
                let mut at = 0;
                let strs = ends.iter().map(|&end| {
                    // Whole SFENs, ASCII only.
                    let s = std::str::from_utf8(&text[at..end]).unwrap_or("");
                    at = end;
                    s
                });
                PyList::new(py, strs)
            }
            Err(e) => {
                let d = kifu::Diagnostic::new(kifu::Code::BadPosition, e);
                Err(errors::raise(py, errors::Kind::Parse, &d, &[]))
            }
        }
    }

    /// The position after `ply` moves, as a `Position` to explore from.
    #[pyo3(signature = (ply))]
    fn position_at(&self, ply: i64) -> PyResult<PyPosition> {
        Ok(PyPosition::from(self.position_after(ply)?))
    }

    /// The game as KIF text (a str; encode it as CP932 or UTF-8 to write a file).
    fn to_kif(&self) -> String {
        self.write(Format::Kif, &WriteOptions::default())
    }

    /// The game as KI2 text.
    fn to_ki2(&self) -> String {
        self.write(Format::Ki2, &WriteOptions::default())
    }

    /// The game as CSA text (V2.2, or V3.0 with `v3=True`).
    #[pyo3(signature = (v3 = false))]
    fn to_csa(&self, v3: bool) -> String {
        let opts = WriteOptions {
            csa_v3: v3,
            ..WriteOptions::default()
        };
        self.write(Format::Csa, &opts)
    }

    /// The game as a USI `position ... moves ...` line; `endings=True` appends the ending
    /// (`resign`, ...), which only some programs read.
    #[pyo3(signature = (endings = false))]
    fn to_usi(&self, endings: bool) -> String {
        let opts = WriteOptions {
            usi_endings: endings,
            ..WriteOptions::default()
        };
        self.write(Format::Usi, &opts)
    }

    /// The game as JSON Kifu Format text (parse it with `json.loads`).
    fn to_jkf(&self) -> String {
        self.write(Format::Jkf, &WriteOptions::default())
    }

    /// The game as text in `format` (`kif`, `kifu`, `ki2`, `ki2u`, `csa`, `usi`, `jkf`).
    fn to(&self, format: &str) -> PyResult<String> {
        Ok(self.write(parse_format(format)?, &WriteOptions::default()))
    }

    /// The validation report: every finding with its code, line, column and ply. `allow`
    /// and `deny` give codes the severity warning or error (deny wins).
    #[pyo3(signature = (allow = Vec::new(), deny = Vec::new()))]
    fn validate(&self, allow: Vec<String>, deny: Vec<String>) -> PyResult<PyReport> {
        let sev = Severities::new(&allow, &deny)?;
        Ok(PyReport::of_game(
            self.data.report.clone(),
            self.data.path.as_deref().map(str::to_owned),
            Some(self.data.index),
            self.data.format,
            &sev,
        ))
    }

    /// Whether the record is still to be read (a game judged as read whose comments,
    /// times, variations or conversions were not asked for yet). For tests.
    #[getter]
    fn _lazy(&self) -> bool {
        self.data.lazy()
    }

    fn __len__(&self) -> usize {
        self.data.moves.len()
    }

    /// A game does not pickle: what it was read from (its report's lines and columns point
    /// there) would not go with it. The error says what to send instead.
    fn __reduce__(&self) -> PyResult<()> {
        Err(pyo3::exceptions::PyTypeError::new_err(
            "a kifu.Game does not pickle: send its path and read it there, or its text \
             (game.to_jkf(), which kifu.parse reads back)",
        ))
    }

    fn __repr__(&self) -> String {
        let d = &self.data;
        let path = d.path.as_deref().unwrap_or("<text>");
        format!(
            "<Game {path}#{} {} plies={} {} vs {} result={}>",
            d.index,
            d.format.map_or("?", Format::name),
            d.plies(),
            d.report.info.black.as_deref().unwrap_or("?"),
            d.report.info.white.as_deref().unwrap_or("?"),
            d.report.result.recorded.as_deref().unwrap_or("None"),
        )
    }
}

/// A format by name, or ValueError naming every format there is.
pub fn parse_format(name: &str) -> PyResult<Format> {
    Format::from_name(&name.to_ascii_lowercase()).ok_or_else(|| {
        PyValueError::new_err(format!("unknown format {name:?} ({})", format_names()))
    })
}

/// The names of every format (`Format::ALL`, so that none is left out): `kif, kifu, ..., jkf
/// or usen`.
fn format_names() -> String {
    let names: Vec<&str> = Format::ALL.iter().map(|f| f.name()).collect();
    match names.split_last() {
        Some((last, rest)) if !rest.is_empty() => format!("{} or {last}", rest.join(", ")),
        _ => names.concat(),
    }
}
