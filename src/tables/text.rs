//! The text writers of the tables: CSV (RFC 4180, UTF-8, a header row, lines ending with
//! `\n`; a list as its items joined by spaces; an empty field for a missing value) and JSON
//! Lines (one object a row, `null` for a missing value, lists as arrays).

use std::io::{self, Write};

use serde::Serialize;

use super::Table;
use super::columns::{Columns, schema_of};
use super::games::GameRow;
use super::positions::PositionRow;
use crate::core::Digits;

/// CSV or JSON Lines.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TextStyle {
    /// CSV with a header row.
    Csv,
    /// JSON Lines.
    Json,
}

/// A table being written as text.
pub struct TextTable<W: Write> {
    out: Out<W>,
}

enum Out<W: Write> {
    /// JSON Lines, each row serialised into `buf` (written out by [`FLUSH_AT`] bytes); with
    /// some columns chosen, the names of those.
    Json {
        out: W,
        buf: Vec<u8>,
        pick: Option<Vec<String>>,
    },
    /// CSV, written by [`Row`] into `buf` (what csv-core writes with this configuration,
    /// without its per-field state machine and without a string made for each number).
    Csv {
        out: W,
        buf: Vec<u8>,
        table: Table,
        pick: Option<Pick>,
    },
}

/// The cells of the CSV rows that some chosen columns keep: a row is written whole into
/// `scratch`, where each cell starts is noted, and the chosen cells are copied out in their
/// order.
struct Pick {
    indices: Vec<usize>,
    scratch: Vec<u8>,
    starts: Vec<usize>,
}

/// A CSV row into `buf`, or into the scratch of `pick` (see [`picked`]).
fn csv_row<'b>(buf: &'b mut Vec<u8>, pick: &'b mut Option<Pick>) -> Row<'b> {
    match pick {
        None => Row::on(buf),
        Some(p) => {
            p.scratch.clear();
            p.starts.clear();
            Row {
                buf: &mut p.scratch,
                first: true,
                starts: Some(&mut p.starts),
            }
        }
    }
}

/// Copies the chosen cells of the row in `pick`'s scratch (if any) into `buf`, as a row.
fn picked(buf: &mut Vec<u8>, pick: &Option<Pick>) {
    let Some(p) = pick else { return };
    // Each cell ends where the next one's comma is, the last one before the row's `\n`.
    let end = |i: usize| {
        p.starts
            .get(i + 1)
            .map_or(p.scratch.len().saturating_sub(1), |&s| s - 1)
    };
    for (k, &i) in p.indices.iter().enumerate() {
        if k > 0 {
            buf.push(b',');
        }
        if let Some(&start) = p.starts.get(i) {
            buf.extend_from_slice(&p.scratch[start..end(i)]);
        }
    }
    buf.push(b'\n');
}

/// The buffered CSV is written out once it holds this many bytes.
const FLUSH_AT: usize = 64 * 1024;

/// A CSV row being written into a buffer: fields separated by `,`, a field quoted only when
/// it holds `,` `"` `\r` or `\n` (a `"` inside doubled), the row ended by `\n`; the bytes
/// csv-core writes with `QuoteStyle::Necessary` and a `\n` terminator.
struct Row<'a> {
    buf: &'a mut Vec<u8>,
    first: bool,
    /// Where each field starts, when noted (for [`Pick`]).
    starts: Option<&'a mut Vec<usize>>,
}

impl Row<'_> {
    fn on(buf: &mut Vec<u8>) -> Row<'_> {
        Row {
            buf,
            first: true,
            starts: None,
        }
    }

    /// Starts a field: a comma unless it is the row's first.
    fn sep(&mut self) {
        if !self.first {
            self.buf.push(b',');
        }
        self.first = false;
        if let Some(starts) = &mut self.starts {
            starts.push(self.buf.len());
        }
    }

    /// A text field, quoted when it must be.
    fn text(&mut self, v: &str) {
        self.sep();
        self.raw(v.as_bytes());
    }

    fn raw(&mut self, v: &[u8]) {
        if !needs_quotes(v) {
            self.buf.extend_from_slice(v);
            return;
        }
        self.buf.push(b'"');
        for &b in v {
            if b == b'"' {
                self.buf.push(b'"');
            }
            self.buf.push(b);
        }
        self.buf.push(b'"');
    }

    /// A missing value is an empty field.
    fn opt(&mut self, v: Option<&str>) {
        self.text(v.unwrap_or(""));
    }

    fn num(&mut self, v: Option<u64>) {
        self.sep();
        if let Some(v) = v {
            self.buf.extend_from_slice(Digits::of(v).as_bytes());
        }
    }

    /// A signed number (`-` and its digits when negative).
    fn int(&mut self, v: Option<i32>) {
        self.sep();
        if let Some(v) = v {
            if v < 0 {
                self.buf.push(b'-');
            }
            self.buf
                .extend_from_slice(Digits::of(u64::from(v.unsigned_abs())).as_bytes());
        }
    }

    fn float(&mut self, v: Option<f64>) {
        self.sep();
        if let Some(v) = v {
            // Digits, `.`, `-`, `e` and `inf`/`NaN`: never quoted.
            let _ = write!(self.buf, "{v:?}");
        }
    }

    /// A list: its items joined by spaces, in one field.
    fn list<S: AsRef<str>>(&mut self, items: &[S]) {
        self.sep();
        let special = items.iter().any(|m| needs_quotes(m.as_ref().as_bytes()));
        if special {
            let joined: Vec<&str> = items.iter().map(AsRef::as_ref).collect();
            self.raw(joined.join(" ").as_bytes());
            return;
        }
        for (i, m) in items.iter().enumerate() {
            if i > 0 {
                self.buf.push(b' ');
            }
            self.buf.extend_from_slice(m.as_ref().as_bytes());
        }
    }

    /// Ends the row.
    fn end(self) {
        self.buf.push(b'\n');
    }
}

impl<W: Write> TextTable<W> {
    /// Starts a table on `out` (the CSV header row is written here).
    pub fn new(out: W, style: TextStyle, table: Table) -> io::Result<TextTable<W>> {
        TextTable::with_columns(out, style, &Columns::all(table))
    }

    /// Starts a table of some columns on `out`, in their order.
    pub fn with_columns(out: W, style: TextStyle, columns: &Columns) -> io::Result<TextTable<W>> {
        let table = columns.table();
        let full = schema_of(table);
        let all = columns.is_all();
        let out = match style {
            TextStyle::Json => Out::Json {
                out,
                buf: Vec::with_capacity(FLUSH_AT + 4096),
                pick: (!all).then(|| {
                    let names = columns.indices().iter();
                    names.map(|&i| full.field(i).name().clone()).collect()
                }),
            },
            TextStyle::Csv => {
                let mut buf = Vec::with_capacity(FLUSH_AT + 4096);
                let mut row = Row::on(&mut buf);
                for &i in columns.indices() {
                    row.text(full.field(i).name());
                }
                row.end();
                let pick = (!all).then(|| Pick {
                    indices: columns.indices().to_vec(),
                    scratch: Vec::with_capacity(1024),
                    starts: Vec::with_capacity(full.fields().len()),
                });
                Out::Csv {
                    out,
                    buf,
                    table,
                    pick,
                }
            }
        };
        Ok(TextTable { out })
    }

    /// Writes a game's row.
    pub fn game(&mut self, r: &GameRow) -> io::Result<()> {
        match &mut self.out {
            Out::Json { out, buf, pick } => {
                json_line(buf, r, pick.as_deref())?;
                flush_full(out, buf)
            }
            Out::Csv {
                out,
                buf,
                table: Table::Games,
                pick,
            } => {
                let start = r.start_date;
                let time = r.start_time;
                let mut row = csv_row(buf, pick);
                row.text(&r.path);
                row.num(Some(r.game));
                row.opt(r.format);
                row.opt(r.encoding);
                row.opt(r.event.as_deref());
                row.opt(r.site.as_deref());
                row.opt(r.round.as_deref());
                row.opt(start.map(|d| d.date_iso()).as_deref());
                row.opt(time.and_then(|d| d.time_iso()).as_deref());
                row.opt(r.black.as_deref());
                row.opt(r.white.as_deref());
                row.float(r.black_rating);
                row.float(r.white_rating);
                row.opt(r.time_control.as_deref());
                row.num(r.time_main_ms);
                row.num(r.time_byoyomi_ms);
                row.num(r.time_increment_ms);
                row.opt(r.handicap);
                row.text(&r.start_sfen);
                row.num(Some(u64::from(r.plies)));
                row.opt(r.ending.as_deref());
                row.opt(r.winner);
                row.opt(r.board_winner);
                row.opt(r.board_by);
                row.num(r.board_ply.map(u64::from));
                row.list(r.opening.as_deref().unwrap_or_default());
                row.opt(r.strategy.as_deref());
                row.opt(r.black_strategy.as_deref());
                row.opt(r.white_strategy.as_deref());
                row.opt(r.black_castle.as_deref());
                row.opt(r.white_castle.as_deref());
                row.opt(r.final_sfen.as_deref());
                row.opt(r.final_hash.as_deref());
                row.num(Some(u64::from(r.variations)));
                row.num(Some(u64::from(r.comments)));
                row.num(Some(u64::from(r.errors)));
                row.num(Some(u64::from(r.warnings)));
                row.list(&r.codes);
                row.text(&r.game_key);
                row.end();
                picked(buf, pick);
                flush_full(out, buf)
            }
            Out::Csv { .. } => Err(io::Error::other("a games row on a positions table")),
        }
    }

    /// Writes a move's row.
    pub fn position(&mut self, r: &PositionRow<'_>) -> io::Result<()> {
        let eval = r.eval.as_ref();
        match &mut self.out {
            Out::Json { out, buf, pick } => {
                #[derive(Serialize)]
                struct Line<'a> {
                    path: &'a str,
                    game: u64,
                    game_key: &'a str,
                    ply: u32,
                    sfen: &'a str,
                    side: &'a str,
                    #[serde(rename = "move")]
                    mv: &'a str,
                    time_ms: Option<u64>,
                    eval_cp: Option<i32>,
                    mate: Option<i32>,
                    pv: Option<&'a [String]>,
                    legal: bool,
                    result: Option<&'a str>,
                }
                json_line(
                    buf,
                    &Line {
                        path: r.path,
                        game: r.game,
                        game_key: r.game_key,
                        ply: r.ply,
                        sfen: r.sfen,
                        side: r.side,
                        mv: r.mv,
                        time_ms: r.time_ms,
                        eval_cp: eval.and_then(|e| e.eval_cp),
                        mate: eval.and_then(|e| e.mate),
                        pv: eval.filter(|e| !e.pv.is_empty()).map(|e| &e.pv[..]),
                        legal: r.legal,
                        result: r.result,
                    },
                    pick.as_deref(),
                )?;
                flush_full(out, buf)
            }
            Out::Csv {
                out,
                buf,
                table: Table::Positions,
                pick,
            } => {
                let mut row = csv_row(buf, pick);
                row.text(r.path);
                row.num(Some(r.game));
                row.text(r.game_key);
                row.num(Some(u64::from(r.ply)));
                row.text(r.sfen);
                row.text(r.side);
                row.text(r.mv);
                row.num(r.time_ms);
                row.int(eval.and_then(|e| e.eval_cp));
                row.int(eval.and_then(|e| e.mate));
                row.list(eval.map_or(&[][..], |e| &e.pv[..]));
                row.text(if r.legal { "true" } else { "false" });
                row.opt(r.result);
                row.end();
                picked(buf, pick);
                flush_full(out, buf)
            }
            Out::Csv { .. } => Err(io::Error::other("a positions row on a games table")),
        }
    }

    /// Flushes and hands back the writer.
    pub fn finish(self) -> io::Result<W> {
        match self.out {
            Out::Json { mut out, buf, .. } => {
                out.write_all(&buf)?;
                out.flush()?;
                Ok(out)
            }
            Out::Csv { mut out, buf, .. } => {
                out.write_all(&buf)?;
                out.flush()?;
                Ok(out)
            }
        }
    }
}

/// Whether a field holds `,` `"` `\r` or `\n`. Sixteen bytes at a time, each looked at
/// (no way out inside a block), so that a block is one vector comparison: most fields are
/// SFENs, keys and moves that hold none, and a byte at a time this was a sixth of
/// `positions --format csv`.
#[inline]
fn needs_quotes(v: &[u8]) -> bool {
    #[inline(always)]
    fn special(b: u8) -> u8 {
        u8::from(b == b',') | u8::from(b == b'"') | u8::from(b == b'\r') | u8::from(b == b'\n')
    }
    let mut blocks = v.chunks_exact(16);
    for block in &mut blocks {
        if block.iter().fold(0, |found, &b| found | special(b)) != 0 {
            return true;
        }
    }
    blocks.remainder().iter().any(|&b| special(b) != 0)
}

/// Writes the buffered rows out once they are [`FLUSH_AT`] bytes or more.
#[inline]
fn flush_full<W: Write>(out: &mut W, buf: &mut Vec<u8>) -> io::Result<()> {
    if buf.len() >= FLUSH_AT {
        out.write_all(buf)?;
        buf.clear();
    }
    Ok(())
}

/// A row as a JSON object and a newline: every field of `v`, or the fields named in `pick`
/// in that order (through a `serde_json::Value`, slower but only for chosen columns).
fn json_line<T: Serialize>(buf: &mut Vec<u8>, v: &T, pick: Option<&[String]>) -> io::Result<()> {
    let Some(names) = pick else {
        serde_json::to_writer(&mut *buf, v).map_err(io::Error::from)?;
        buf.push(b'\n');
        return Ok(());
    };
    let value = serde_json::to_value(v).map_err(io::Error::from)?;
    buf.push(b'{');
    for (k, name) in names.iter().enumerate() {
        if k > 0 {
            buf.push(b',');
        }
        serde_json::to_writer(&mut *buf, name).map_err(io::Error::from)?;
        buf.push(b':');
        let cell = value.get(name).unwrap_or(&serde_json::Value::Null);
        serde_json::to_writer(&mut *buf, cell).map_err(io::Error::from)?;
    }
    buf.extend_from_slice(b"}\n");
    Ok(())
}

#[cfg(test)]
mod tests;
