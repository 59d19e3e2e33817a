//! The text writers of the tables: CSV (RFC 4180, UTF-8, a header row, lines ending with
//! `\n`; a list as its items joined by spaces; an empty field for a missing value) and JSON
//! Lines (one object a row, `null` for a missing value, lists as arrays).

use std::io::{self, Write};

use serde::Serialize;

use super::Table;
use super::columns::{Columns, schema_of};
use super::games::GameRow;
use super::positions::PositionRow;

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

/// A number in decimal, on the stack.
struct Digits {
    buf: [u8; 20],
    start: usize,
}

impl Digits {
    fn of(mut v: u64) -> Digits {
        let mut buf = [0u8; 20];
        let mut start = buf.len();
        loop {
            start -= 1;
            buf[start] = b'0' + (v % 10) as u8;
            v /= 10;
            if v == 0 {
                break;
            }
        }
        Digits { buf, start }
    }

    fn as_bytes(&self) -> &[u8] {
        &self.buf[self.start..]
    }
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
mod tests {
    use super::*;
    use crate::formats::{self, Format};
    use crate::tables::{Options, Origin};

    /// The CSV row written field by field is the row of every cell made a string and written
    /// as one record (how it was written before).
    #[test]
    fn csv_fields_are_the_cells() {
        let text = "V2.2\nN+a, \"b\"\nN-c\n$EVENT:x,y\n$START_TIME:2024/01/02 03:04:05\n\
                    $TIME_LIMIT:00:10+10\nPI\n+\n'black_rate:a:1500.5\n+7776FU\n-3334FU\n\
                    +2726FU\n-8384FU\n%TORYO\n";
        let mut g = formats::read(Format::Csa, text).remove(0);
        let r = crate::validate::validate_game(&mut g, &Default::default());
        let origin = Origin {
            path: "a,b.csa",
            game: 3,
            format: Some("csa"),
            encoding: Some("utf-8"),
        };
        let mut row = GameRow::new(
            origin,
            &g.record,
            &r.result,
            &r.diagnostics,
            &Options { opening_plies: 2 },
        );
        row.codes = vec!["a", "b"];
        row.board_ply = Some(7);
        let got = ours(&row);
        assert_eq!(
            String::from_utf8_lossy(&got),
            String::from_utf8_lossy(&theirs(&row))
        );
        assert!(String::from_utf8_lossy(&got).contains("\"a, \"\"b\"\"\""));
        assert!(String::from_utf8_lossy(&got).contains(",1500.5,"));
        // Fields csv-core quotes or leaves bare: empty first field, line breaks, quotes,
        // a comma inside a list item; a missing number.
        row.path = String::new();
        row.event = Some("x\r\ny\"".into());
        row.site = Some("\"".into());
        row.opening = Some(vec!["a,b".into(), "c\"".into()]);
        row.codes = vec!["q,r"];
        row.black_rating = None;
        row.white_rating = Some(-2.5e-7);
        let got = ours(&row);
        assert_eq!(
            String::from_utf8_lossy(&got),
            String::from_utf8_lossy(&theirs(&row))
        );
        assert!(String::from_utf8_lossy(&got).contains("\n,3,csa,"));
        row.opening = None;
        row.codes = Vec::new();
        assert_eq!(ours(&row), theirs(&row));
    }

    /// The positions rows written field by field are the rows the csv crate writes of their
    /// cells made strings, among them fields that must be quoted, negative numbers, missing
    /// values and lists.
    #[test]
    fn position_fields_are_the_cells() {
        use crate::tables::positions::EngineEval;
        let eval = |cp: Option<i32>, mate: Option<i32>, pv: &[&str]| EngineEval {
            eval_cp: cp,
            mate,
            pv: pv.iter().map(|m| m.to_string()).collect(),
        };
        let evals = [
            None,
            Some(eval(Some(-123), None, &["7g7f", "3c3d"])),
            Some(eval(None, Some(-7), &[])),
            Some(eval(Some(i32::MIN), Some(i32::MAX), &["a,b", "c\"d"])),
            Some(eval(Some(0), Some(0), &["x\ny"])),
        ];
        let rows: Vec<PositionRow<'_>> = evals
            .iter()
            .enumerate()
            .map(|(i, e)| PositionRow {
                game_key: if i == 3 { "" } else { "0123456789abcdef" },
                ply: i as u32 * 1000,
                sfen: "lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1",
                side: if i % 2 == 0 { "b" } else { "w" },
                mv: ["7g7f", "+7776FU,T3", "\"", "７六歩", "a\rb"][i],
                time_ms: (i != 2).then_some(u64::MAX - i as u64),
                eval: e.clone(),
                legal: i % 3 != 0,
                result: [Some("win"), None, Some("draw"), Some("loss"), Some("x,y")][i],
            })
            .collect();
        let mut t = TextTable::new(Vec::new(), TextStyle::Csv, Table::Positions).expect("csv");
        for r in &rows {
            t.position(r).expect("row");
        }
        let got = t.finish().expect("finish");

        let mut want = csv_crate(Table::Positions);
        for r in &rows {
            let e = r.eval.as_ref();
            let int = |v: Option<i32>| v.map(|v| v.to_string()).unwrap_or_default();
            want.write_record([
                r.game_key.to_owned(),
                r.ply.to_string(),
                r.sfen.to_owned(),
                r.side.to_owned(),
                r.mv.to_owned(),
                r.time_ms.map(|v| v.to_string()).unwrap_or_default(),
                int(e.and_then(|e| e.eval_cp)),
                int(e.and_then(|e| e.mate)),
                e.map(|e| e.pv.join(" ")).unwrap_or_default(),
                r.legal.to_string(),
                r.result.unwrap_or("").to_owned(),
            ])
            .expect("cells");
        }
        let want = want.into_inner().expect("bytes");
        assert_eq!(
            String::from_utf8_lossy(&got),
            String::from_utf8_lossy(&want)
        );
        let got = String::from_utf8_lossy(&got);
        assert!(got.contains(",-123,,7g7f 3c3d,true,\n"), "{got}");
        assert!(
            got.contains(",-2147483648,2147483647,\"a,b c\"\"d\","),
            "{got}"
        );
        assert!(got.contains("\n,3000,"), "{got}");
    }

    /// Rows of some columns, in the order asked, are the full rows' cells of those columns
    /// (read back by the csv crate and serde_json), quoted cells and line breaks among them;
    /// the CSV header names them.
    #[test]
    fn chosen_columns_are_the_full_rows_cells() {
        use crate::tables::Columns;
        use crate::tables::positions::EngineEval;
        let eval = EngineEval {
            eval_cp: Some(-5),
            mate: None,
            pv: vec!["a,b".into(), "c\"d".into()],
        };
        let rows: Vec<PositionRow<'_>> = (0..4)
            .map(|i| PositionRow {
                game_key: "0123456789abcdef",
                ply: i + 1,
                sfen: "lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1",
                side: ["b", "w"][i as usize % 2],
                mv: ["7g7f", "a\r\nb", "\"", "x,y"][i as usize],
                time_ms: (i != 2).then_some(u64::from(i) * 1000),
                eval: (i == 1).then(|| eval.clone()),
                legal: i != 3,
                result: [Some("win"), None, Some("draw"), Some("loss")][i as usize],
            })
            .collect();
        let text = "V2.2\nN+a, \"b\"\nN-c\n$EVENT:x\ny\nPI\n+\n+7776FU\n-3334FU\n%TORYO\n";
        let mut g = formats::read(Format::Csa, text).remove(0);
        let r = crate::validate::validate_game(&mut g, &Default::default());
        let origin = Origin {
            path: "a,b.csa",
            game: 0,
            format: Some("csa"),
            encoding: None,
        };
        let game = GameRow::new(
            origin,
            &g.record,
            &r.result,
            &r.diagnostics,
            &Options::default(),
        );
        let write = |style: TextStyle, columns: &Columns| {
            let mut t = TextTable::with_columns(Vec::new(), style, columns).expect("table");
            match columns.table() {
                Table::Positions => rows.iter().for_each(|r| t.position(r).expect("row")),
                Table::Games => t.game(&game).expect("row"),
            }
            t.finish().expect("finish")
        };
        let choices: [(Table, &[&str]); 5] = [
            (Table::Positions, &["sfen", "move", "result"]),
            (Table::Positions, &["pv", "game_key"]),
            (Table::Positions, &["move"]),
            (Table::Games, &["black", "plies", "event", "path"]),
            (Table::Games, &["codes", "opening"]),
        ];
        for (table, names) in choices {
            let columns = Columns::select(table, names).expect("columns");
            let all = Columns::all(table);
            // CSV: the full table's records, each cut down to the chosen cells.
            let full = write(TextStyle::Csv, &all);
            let mut want = csv::WriterBuilder::new()
                .terminator(csv::Terminator::Any(b'\n'))
                .from_writer(Vec::new());
            let mut reader = csv::ReaderBuilder::new()
                .has_headers(false)
                .from_reader(&full[..]);
            for record in reader.records() {
                let record = record.expect("record");
                let cells: Vec<&str> = columns.indices().iter().map(|&i| &record[i]).collect();
                want.write_record(&cells).expect("cells");
            }
            let want = want.into_inner().expect("bytes");
            let got = write(TextStyle::Csv, &columns);
            assert_eq!(
                String::from_utf8_lossy(&got),
                String::from_utf8_lossy(&want),
                "{names:?}"
            );
            assert!(got.starts_with(format!("{}\n", names.join(",")).as_bytes()));
            // JSON Lines: the full objects' values of the chosen keys, in their order.
            let full = write(TextStyle::Json, &all);
            let got = write(TextStyle::Json, &columns);
            let lines = |b: &[u8]| -> Vec<serde_json::Value> {
                let text = String::from_utf8_lossy(b).into_owned();
                text.lines()
                    .map(|l| serde_json::from_str(l).expect("json"))
                    .collect()
            };
            let (full, got) = (lines(&full), lines(&got));
            assert_eq!(full.len(), got.len());
            for (f, g) in full.iter().zip(&got) {
                let keys: Vec<&String> = g.as_object().expect("object").keys().collect();
                assert_eq!(keys, names, "{g}");
                for name in names {
                    assert_eq!(g[name], f[name], "{name}");
                }
            }
        }
    }

    /// A byte that must be quoted is found wherever it stands: in a block of sixteen or in
    /// the bytes after the last whole block.
    #[test]
    fn a_special_byte_is_found_anywhere() {
        for len in [0, 1, 15, 16, 17, 40, 64] {
            let plain = vec![b'a'; len];
            assert!(!needs_quotes(&plain), "{len}");
            for at in 0..len {
                for b in [b',', b'"', b'\r', b'\n'] {
                    let mut v = plain.clone();
                    v[at] = b;
                    assert!(needs_quotes(&v), "{len} {at} {b}");
                }
            }
        }
        assert!(!needs_quotes("７六歩 lnsgkgsnl/1r5b1 b - 1 +-".as_bytes()));
    }

    fn ours(row: &GameRow) -> Vec<u8> {
        let mut t = TextTable::new(Vec::new(), TextStyle::Csv, Table::Games).expect("csv");
        t.game(row).expect("row");
        t.finish().expect("finish")
    }

    /// Every cell made a string and written by the csv crate as one record.
    fn theirs(r: &GameRow) -> Vec<u8> {
        let opt = |v: Option<&str>| v.unwrap_or("").to_owned();
        let num = |v: Option<u64>| v.map(|v| v.to_string()).unwrap_or_default();
        let float = |v: Option<f64>| v.map(|v| format!("{v:?}")).unwrap_or_default();
        let cells = [
            r.path.clone(),
            r.game.to_string(),
            opt(r.format),
            opt(r.encoding),
            opt(r.event.as_deref()),
            opt(r.site.as_deref()),
            opt(r.round.as_deref()),
            r.start_date.map(|d| d.date_iso()).unwrap_or_default(),
            r.start_time.and_then(|d| d.time_iso()).unwrap_or_default(),
            opt(r.black.as_deref()),
            opt(r.white.as_deref()),
            float(r.black_rating),
            float(r.white_rating),
            opt(r.time_control.as_deref()),
            num(r.time_main_ms),
            num(r.time_byoyomi_ms),
            num(r.time_increment_ms),
            opt(r.handicap),
            r.start_sfen.clone(),
            r.plies.to_string(),
            opt(r.ending.as_deref()),
            opt(r.winner),
            opt(r.board_winner),
            opt(r.board_by),
            num(r.board_ply.map(u64::from)),
            r.opening.as_ref().map(|m| m.join(" ")).unwrap_or_default(),
            opt(r.strategy.as_deref()),
            opt(r.black_strategy.as_deref()),
            opt(r.white_strategy.as_deref()),
            opt(r.black_castle.as_deref()),
            opt(r.white_castle.as_deref()),
            opt(r.final_sfen.as_deref()),
            opt(r.final_hash.as_deref()),
            r.variations.to_string(),
            r.comments.to_string(),
            r.errors.to_string(),
            r.warnings.to_string(),
            r.codes.join(" "),
            r.game_key.clone(),
        ];
        let mut want = csv_crate(Table::Games);
        want.write_record(&cells).expect("cells");
        want.into_inner().expect("bytes")
    }

    /// The csv crate's writer as the tables were written with it (a `\n` after each row),
    /// with the table's header row written.
    fn csv_crate(table: Table) -> csv::Writer<Vec<u8>> {
        let mut want = csv::WriterBuilder::new()
            .terminator(csv::Terminator::Any(b'\n'))
            .from_writer(Vec::new());
        let schema = schema_of(table);
        let names: Vec<&str> = schema.fields().iter().map(|f| f.name().as_str()).collect();
        want.write_record(&names).expect("header");
        want
    }
}
