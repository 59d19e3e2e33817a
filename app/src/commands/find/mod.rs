//! `kifu find`: the games that reach a position, or that begin with a run of moves.
//!
//! A batch job like `validate`: each unit is read on a worker, each game's main line followed
//! through its positions ([`MainLine`]: a foul is played on, the line ends at its special
//! move or at a move that cannot be carried out), and the hits come back in input order, each
//! written as soon as its unit is done. A position is compared by its Zobrist key, kept by the
//! rules core as moves are played (no SFEN is built per ply); a key that matches is checked
//! square by square (and hand by hand), so a collision never gives a false hit.
//!
//! Layer: commands, above [`batch`].

use std::collections::BTreeMap;
use std::io::{self, Write};

use serde::Serialize;

use crate::batch::{self, Input, Observer};
use kifu::core::{Move, Position};
use kifu::diag::Diagnostic;
use kifu::formats::{Format, kakinoki};
use kifu::record::Record;
use kifu::record::line::MainLine;
use kifu::stats::Outcomes;
use kifu::validate::GameResult;
use kifu::validate::result::recorded_result;

use super::{Style, Summary};

mod matcher;

/// What to look for.
#[derive(Debug, Clone)]
pub enum Query {
    /// Games that reach this position.
    Position {
        /// The position.
        target: Box<Position>,
        /// Either side to move.
        any_side: bool,
        /// The board alone: hands ignored.
        board_only: bool,
    },
    /// Games from the even start whose main line begins with these moves.
    Moves(Vec<Move>),
}

impl Query {
    /// The key a position is compared by.
    fn key(&self, pos: &Position) -> u64 {
        match *self {
            Query::Position {
                any_side,
                board_only,
                ..
            } => match (board_only, any_side) {
                (false, false) => pos.key(),
                (false, true) => pos.key_any_side(),
                (true, false) => pos.key_without_hands(),
                (true, true) => pos.board_key(),
            },
            Query::Moves(_) => pos.key(),
        }
    }

    /// Whether `pos` is the target, compared in full (after the keys matched).
    fn same(&self, pos: &Position) -> bool {
        let Query::Position {
            target,
            any_side,
            board_only,
        } = self
        else {
            return false;
        };
        same_position(pos, target, *any_side, *board_only)
    }
}

/// Whether two positions hold the same pieces on the same squares, with the same side to move
/// (unless `any_side`) and the same hands (unless `board_only`).
fn same_position(a: &Position, b: &Position, any_side: bool, board_only: bool) -> bool {
    kifu::core::Square::all().all(|sq| a.piece_at(sq) == b.piece_at(sq))
        && (any_side || a.turn() == b.turn())
        && (board_only
            || kifu::core::Color::ALL
                .iter()
                .all(|&c| a.hand(c) == b.hand(c)))
}

/// One game found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Hit {
    /// The game's index in its unit.
    index: usize,
    /// Moves played to reach the position (the first time it is reached), or the length of
    /// the run of moves.
    pub ply: u32,
    /// How many times the game reaches the position (1 for a run of moves).
    pub times: u32,
    /// The move played from there, if any.
    pub next: Option<Move>,
    /// The game's recorded result.
    pub result: GameResult,
}

/// What one unit gave.
#[derive(Debug, Default)]
struct UnitHits {
    games: u64,
    plies: u64,
    hits: Vec<Hit>,
    diagnostics: Vec<Diagnostic>,
}

/// Looks for the query in one record: the hit, if any, of its main line, and the plies
/// followed.
pub fn search(record: &Record, query: &Query) -> (Option<Hit>, u32) {
    match MainLine::new(record) {
        Ok(line) => search_line(line, query, || recorded_result(record)),
        Err(_) => (None, 0),
    }
}

/// [`search`] along a record's main line; `result` gives the game's result for a hit.
fn search_line(
    mut line: MainLine<'_>,
    query: &Query,
    result: impl FnOnce() -> GameResult,
) -> (Option<Hit>, u32) {
    match query {
        Query::Moves(moves) => {
            let start = Position::startpos();
            let pos = line.position();
            if pos.key() != start.key() || !same_position(pos, &start, false, false) {
                return (None, 0);
            }
            for &m in moves {
                if line.advance() != Some(m) {
                    return (None, line.ply());
                }
            }
            let hit = Hit {
                index: 0,
                ply: line.ply(),
                times: 1,
                next: line.peek(),
                result: result(),
            };
            (Some(hit), line.ply())
        }
        Query::Position { target, .. } => {
            let want = query.key(target);
            let mut found: Option<(u32, Option<Move>)> = None;
            let mut times = 0;
            loop {
                let pos = line.position();
                if query.key(pos) == want && query.same(pos) {
                    times += 1;
                    if found.is_none() {
                        found = Some((line.ply(), line.peek()));
                    }
                }
                if line.advance().is_none() {
                    break;
                }
            }
            let hit = found.map(|(ply, next)| Hit {
                index: 0,
                ply,
                times,
                next,
                result: result(),
            });
            (hit, line.ply())
        }
    }
}

/// How to write what was found.
#[derive(Debug, Clone, Default)]
pub struct Options {
    /// Human lines or JSON Lines.
    pub style: Style,
    /// No summary (in human style).
    pub quiet: bool,
}

/// The counts of a search.
#[derive(Debug, Clone, Default, Serialize)]
pub struct FindSummary {
    /// Files (and archive entries) read.
    pub files: u64,
    /// Games searched.
    pub games: u64,
    /// Plies followed.
    pub plies: u64,
    /// Games found.
    pub found: u64,
    /// For a run of moves: the move played next, with how the games it was played in ended
    /// (`end` for games that stop there), most played first.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub next: Option<Vec<NextRow>>,
    /// Files that could not be read (`io`, syntax errors about a whole file).
    #[serde(skip)]
    pub unreadable: bool,
}

/// One move played after a run of moves.
#[derive(Debug, Clone, Serialize)]
pub struct NextRow {
    /// The move, USI (`end`: the game stops there).
    #[serde(rename = "move")]
    pub mv: String,
    /// Games.
    pub games: u64,
    /// How they ended.
    pub results: Outcomes,
}

/// The JSON line of one game found.
#[derive(Serialize)]
struct HitLine<'a> {
    path: &'a str,
    game: u64,
    ply: u32,
    times: u32,
    next: Option<String>,
    result: &'a GameResult,
}

/// Searches every game of `inputs` and writes each one found to `out` in input order, then
/// the summary (human: a line, and the table of next moves for a run of moves; JSON: a
/// `{"summary": ...}` line). Diagnostics about inputs that could not be read go to `err`.
pub fn find<W: Write>(
    inputs: &[Input],
    batch_opts: &batch::Options,
    query: &Query,
    opts: &Options,
    out: &mut W,
    err: &mut dyn Write,
    observer: &mut dyn Observer,
) -> io::Result<FindSummary> {
    let mut summary = FindSummary::default();
    let mut game_index = 0u64;
    let json = opts.style == Style::Json;
    let mut next: BTreeMap<String, Outcomes> = BTreeMap::new();
    let res = batch::run(
        inputs,
        batch_opts,
        |unit| search_unit(unit, query),
        |unit, u| {
            if unit.chunk == 0 {
                game_index = 0;
            }
            if unit.last {
                summary.files += 1;
            }
            let path = unit.source.path.as_str();
            let mut counts = Summary::default();
            counts.count(&u.diagnostics);
            summary.unreadable |= counts.unreadable;
            super::write_human(err, path, &u.diagnostics, true)?;
            for h in &u.hits {
                let game = game_index + h.index as u64;
                summary.found += 1;
                let mv = h.next.map_or_else(|| "end".to_owned(), |m| m.to_usi());
                if let Query::Moves(_) = query {
                    next.entry(mv.clone()).or_default().add(h.result.winner);
                }
                if json {
                    let line = HitLine {
                        path,
                        game,
                        ply: h.ply,
                        times: h.times,
                        next: h.next.map(|m| m.to_usi()),
                        result: &h.result,
                    };
                    serde_json::to_writer(&mut *out, &line).map_err(io::Error::from)?;
                    out.write_all(b"\n")?;
                } else {
                    write_hit(out, path, game, h)?;
                }
            }
            game_index += u.games;
            summary.games += u.games;
            summary.plies += u.plies;
            observer.unit_done(u.games, unit.len(), unit.last);
            observer.flush(out)
        },
    );
    observer.finish();
    res?;
    if let Query::Moves(_) = query {
        let mut rows: Vec<NextRow> = next
            .into_iter()
            .map(|(mv, results)| NextRow {
                mv,
                games: results.black + results.white + results.draw + results.other,
                results,
            })
            .collect();
        rows.sort_by(|a, b| b.games.cmp(&a.games).then_with(|| a.mv.cmp(&b.mv)));
        summary.next = Some(rows);
    }
    if json {
        #[derive(Serialize)]
        struct Line<'a> {
            summary: &'a FindSummary,
        }
        serde_json::to_writer(&mut *out, &Line { summary: &summary }).map_err(io::Error::from)?;
        out.write_all(b"\n")?;
    } else if !opts.quiet {
        write_summary(out, &summary)?;
    }
    out.flush()?;
    Ok(summary)
}

/// `path#game: ply N (×T), next 2g2f, TORYO (black)`.
fn write_hit(out: &mut dyn Write, path: &str, game: u64, h: &Hit) -> io::Result<()> {
    let times = if h.times > 1 {
        format!(" ({} times)", h.times)
    } else {
        String::new()
    };
    let next = h.next.map_or_else(|| "none".to_owned(), |m| m.to_usi());
    let result = match (&h.result.recorded, h.result.winner) {
        (Some(r), Some(w)) => format!("{r} ({})", w.as_str()),
        (Some(r), None) => r.clone(),
        (None, Some(w)) => w.as_str().to_owned(),
        (None, None) => "no result".to_owned(),
    };
    writeln!(
        out,
        "{path}#{game}: ply {}{times}, next {next}, {result}",
        h.ply
    )
}

/// The summary line, and for a run of moves the moves played next.
fn write_summary(out: &mut dyn Write, s: &FindSummary) -> io::Result<()> {
    writeln!(
        out,
        "{} files, {} games, {} plies: {} found",
        s.files, s.games, s.plies, s.found
    )?;
    if let Some(rows) = &s.next {
        if !rows.is_empty() {
            writeln!(
                out,
                "{:<8} {:>7} {:>7} {:>7} {:>7} {:>7}",
                "next", "games", "black", "white", "draw", "other"
            )?;
        }
        for r in rows {
            writeln!(
                out,
                "{:<8} {:>7} {:>7} {:>7} {:>7} {:>7}",
                r.mv, r.games, r.results.black, r.results.white, r.results.draw, r.results.other
            )?;
        }
    }
    Ok(())
}

/// Reads a unit and searches each of its games. USI, CSA, KIF and KI2 text that needs no
/// decoding is followed as it is read (`short`).
fn search_unit(unit: &batch::Unit, query: &Query) -> UnitHits {
    if let batch::Content::Bytes(bytes) = &unit.content {
        let read = unit.read_options();
        if let Some((text, _)) = read.decode_in_place(bytes) {
            let short = match read.detect(text) {
                Some(Format::Usi) => matcher::search_usi(text, query),
                Some(Format::Csa) => matcher::search_csa(text, query),
                Some(Format::Kif | Format::Kifu) => {
                    matcher::search_kif(text, kakinoki::Dialect::Kif, query)
                }
                Some(Format::Ki2 | Format::Ki2u) => {
                    matcher::search_kif(text, kakinoki::Dialect::Ki2, query)
                }
                _ => None,
            };
            if let Some(hits) = short {
                return hits;
            }
        }
    }
    let parsed = batch::parse_unit(unit);
    let mut out = UnitHits {
        games: parsed.games.len() as u64,
        diagnostics: parsed.diagnostics,
        ..UnitHits::default()
    };
    for (i, g) in parsed.games.iter().enumerate() {
        let (hit, plies) = search(&g.record, query);
        out.plies += u64::from(plies);
        if let Some(mut h) = hit {
            h.index = i;
            out.hits.push(h);
        }
    }
    out
}

#[cfg(test)]
mod tests;
