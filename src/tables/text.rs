//! The text writers of the tables: CSV (RFC 4180, UTF-8, a header row, lines ending with
//! `\n`; a list as its items joined by spaces; an empty field for a missing value) and JSON
//! Lines (one object a row, `null` for a missing value, lists as arrays).

use std::io::{self, Write};

use serde::Serialize;

use super::games::GameRow;
use super::positions::PositionRow;
use super::{Table, games_schema, positions_schema};

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
    /// Room to join a list cell in.
    scratch: String,
}

enum Out<W: Write> {
    Csv(Box<csv::Writer<W>>),
    Json(W),
}

impl<W: Write> TextTable<W> {
    /// Starts a table on `out` (the CSV header row is written here).
    pub fn new(out: W, style: TextStyle, table: Table) -> io::Result<TextTable<W>> {
        let out = match style {
            TextStyle::Json => Out::Json(out),
            TextStyle::Csv => {
                let mut csv = csv::WriterBuilder::new()
                    .terminator(csv::Terminator::Any(b'\n'))
                    .from_writer(out);
                let schema = match table {
                    Table::Games => games_schema(),
                    Table::Positions => positions_schema(),
                };
                let names: Vec<&str> = schema.fields().iter().map(|f| f.name().as_str()).collect();
                csv.write_record(&names)?;
                Out::Csv(Box::new(csv))
            }
        };
        Ok(TextTable {
            out,
            scratch: String::new(),
        })
    }

    /// Writes a game's row.
    pub fn game(&mut self, r: &GameRow) -> io::Result<()> {
        match &mut self.out {
            Out::Json(out) => json_line(out, r),
            Out::Csv(csv) => {
                // Field by field, without a String per cell.
                let csv = &mut **csv;
                let scratch = &mut self.scratch;
                let text =
                    |csv: &mut csv::Writer<W>, v: Option<&str>| csv.write_field(v.unwrap_or(""));
                let num = |csv: &mut csv::Writer<W>, v: Option<u64>| match v {
                    Some(v) => csv.write_field(Digits::of(v).as_bytes()),
                    None => csv.write_field(""),
                };
                let float = |csv: &mut csv::Writer<W>, v: Option<f64>| match v {
                    Some(v) => csv.write_field(format!("{v:?}")),
                    None => csv.write_field(""),
                };
                let list =
                    |csv: &mut csv::Writer<W>, scratch: &mut String, v: Option<&[String]>| {
                        scratch.clear();
                        for (i, m) in v.unwrap_or_default().iter().enumerate() {
                            if i > 0 {
                                scratch.push(' ');
                            }
                            scratch.push_str(m);
                        }
                        csv.write_field(&*scratch)
                    };
                text(csv, Some(&r.path))?;
                num(csv, Some(r.game))?;
                text(csv, r.format)?;
                text(csv, r.encoding)?;
                text(csv, r.event.as_deref())?;
                text(csv, r.site.as_deref())?;
                text(csv, r.round.as_deref())?;
                text(csv, r.start_date.map(|d| d.date_iso()).as_deref())?;
                text(csv, r.start_time.and_then(|d| d.time_iso()).as_deref())?;
                text(csv, r.black.as_deref())?;
                text(csv, r.white.as_deref())?;
                float(csv, r.black_rating)?;
                float(csv, r.white_rating)?;
                text(csv, r.time_control.as_deref())?;
                num(csv, r.time_main_ms)?;
                num(csv, r.time_byoyomi_ms)?;
                num(csv, r.time_increment_ms)?;
                text(csv, r.handicap)?;
                text(csv, Some(&r.start_sfen))?;
                num(csv, Some(u64::from(r.plies)))?;
                text(csv, r.ending.as_deref())?;
                text(csv, r.winner)?;
                text(csv, r.board_winner)?;
                text(csv, r.board_by)?;
                num(csv, r.board_ply.map(u64::from))?;
                list(csv, scratch, r.opening.as_deref())?;
                text(csv, r.strategy.as_deref())?;
                text(csv, r.black_strategy.as_deref())?;
                text(csv, r.white_strategy.as_deref())?;
                text(csv, r.black_castle.as_deref())?;
                text(csv, r.white_castle.as_deref())?;
                text(csv, r.final_sfen.as_deref())?;
                text(csv, r.final_hash.as_deref())?;
                num(csv, Some(u64::from(r.variations)))?;
                num(csv, Some(u64::from(r.comments)))?;
                num(csv, Some(u64::from(r.errors)))?;
                num(csv, Some(u64::from(r.warnings)))?;
                scratch.clear();
                for (i, c) in r.codes.iter().enumerate() {
                    if i > 0 {
                        scratch.push(' ');
                    }
                    scratch.push_str(c);
                }
                csv.write_field(&*scratch)?;
                text(csv, Some(&r.game_key))?;
                csv.write_record(None::<&[u8]>)?;
                Ok(())
            }
        }
    }

    /// Writes a move's row.
    pub fn position(&mut self, r: &PositionRow<'_>) -> io::Result<()> {
        let eval = r.eval.as_ref();
        match &mut self.out {
            Out::Json(out) => {
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
                    out,
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
                )
            }
            Out::Csv(csv) => {
                let mut ply = itoa(u64::from(r.ply));
                let time = r.time_ms.map(itoa).unwrap_or_default();
                let cp = eval
                    .and_then(|e| e.eval_cp)
                    .map(|v| v.to_string())
                    .unwrap_or_default();
                let mate = eval
                    .and_then(|e| e.mate)
                    .map(|v| v.to_string())
                    .unwrap_or_default();
                let pv = eval.map(|e| e.pv.join(" ")).unwrap_or_default();
                let legal = if r.legal { "true" } else { "false" };
                let fields: [&str; 11] = [
                    r.game_key,
                    &ply,
                    r.sfen,
                    r.side,
                    r.mv,
                    &time,
                    &cp,
                    &mate,
                    &pv,
                    legal,
                    r.result.unwrap_or(""),
                ];
                csv.write_record(fields)?;
                ply.clear();
                Ok(())
            }
        }
    }

    /// Flushes and hands back the writer.
    pub fn finish(self) -> io::Result<W> {
        match self.out {
            Out::Json(mut out) => {
                out.flush()?;
                Ok(out)
            }
            Out::Csv(csv) => (*csv)
                .into_inner()
                .map_err(|e| io::Error::new(e.error().kind(), e.error().to_string())),
        }
    }
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

fn itoa(v: u64) -> String {
    v.to_string()
}

fn json_line<W: Write, T: Serialize>(out: &mut W, v: &T) -> io::Result<()> {
    serde_json::to_writer(&mut *out, v).map_err(io::Error::from)?;
    out.write_all(b"\n")
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
        let mut t = TextTable::new(Vec::new(), TextStyle::Csv, Table::Games).expect("csv");
        t.game(&row).expect("row");
        let got = t.finish().expect("finish");
        let opt = |v: Option<&str>| v.unwrap_or("").to_owned();
        let num = |v: Option<u64>| v.map(|v| v.to_string()).unwrap_or_default();
        let float = |v: Option<f64>| v.map(|v| format!("{v:?}")).unwrap_or_default();
        let r = &row;
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
        let mut want = csv::WriterBuilder::new()
            .terminator(csv::Terminator::Any(b'\n'))
            .from_writer(Vec::new());
        let names: Vec<String> = games_schema()
            .fields()
            .iter()
            .map(|f| f.name().clone())
            .collect();
        want.write_record(&names).expect("header");
        want.write_record(&cells).expect("cells");
        let want = want.into_inner().expect("bytes");
        assert_eq!(
            String::from_utf8_lossy(&got),
            String::from_utf8_lossy(&want)
        );
        assert!(String::from_utf8_lossy(&got).contains("\"a, \"\"b\"\"\""));
        assert!(String::from_utf8_lossy(&got).contains(",1500.5,"));
    }
}
