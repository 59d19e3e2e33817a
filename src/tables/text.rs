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
    cells: Vec<String>,
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
            cells: Vec::new(),
        })
    }

    /// Writes a game's row.
    pub fn game(&mut self, r: &GameRow) -> io::Result<()> {
        match &mut self.out {
            Out::Json(out) => json_line(out, r),
            Out::Csv(csv) => {
                let opt = |v: Option<&str>| v.unwrap_or("").to_owned();
                let num = |v: Option<u64>| v.map(|v| v.to_string()).unwrap_or_default();
                let float = |v: Option<f64>| v.map(|v| format!("{v:?}")).unwrap_or_default();
                self.cells.clear();
                self.cells.extend([
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
                ]);
                csv.write_record(&self.cells)?;
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

fn itoa(v: u64) -> String {
    v.to_string()
}

fn json_line<W: Write, T: Serialize>(out: &mut W, v: &T) -> io::Result<()> {
    serde_json::to_writer(&mut *out, v).map_err(io::Error::from)?;
    out.write_all(b"\n")
}
