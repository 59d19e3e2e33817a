//! `kifu find`: the games that reach a position, or that begin with a run of moves.
//!
//! A batch job like `validate`: each unit is read on a worker, each game's main line followed
//! through its positions ([`MainLine`]: a foul is played on, the line ends at its special
//! move or at a move that cannot be carried out), and the hits come back in input order, each
//! written as soon as its unit is done. A position is compared by its Zobrist key, kept by the
//! rules core as moves are played (no SFEN is built per ply); a key that matches is checked
//! square by square (and hand by hand), so a collision never gives a false hit.
//!
//! Layer: report, above [`batch`].

use std::collections::BTreeMap;
use std::io::{self, Write};

use serde::Serialize;

use crate::batch::{self, Input, Observer};
use crate::core::{Color, Move, Position};
use crate::diag::Diagnostic;
use crate::formats::Format;
use crate::formats::csa::scan::{GameLines, Line};
use crate::formats::usi::{Tokens, game_lines};
use crate::record::Record;
use crate::record::line::MainLine;
use crate::stats::Outcomes;
use crate::validate::GameResult;
use crate::validate::result::recorded_result;

use super::{Style, Summary};

/// What to look for.
#[derive(Debug, Clone)]
pub enum Query {
    /// Games that reach this position.
    Position {
        /// The position.
        target: Position,
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
    crate::core::Square::all().all(|sq| a.piece_at(sq) == b.piece_at(sq))
        && (any_side || a.turn() == b.turn())
        && (board_only
            || crate::core::Color::ALL
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

/// A main line followed ply by ply: [`MainLine`] over a record, or [`UsiLine`] over the
/// moves of a plain USI line (the short way), which follow the line the same way.
trait Cursor {
    fn position(&self) -> &Position;
    fn ply(&self) -> u32;
    fn peek(&self) -> Option<Move>;
    fn advance(&mut self) -> Option<Move>;
}

impl Cursor for MainLine<'_> {
    fn position(&self) -> &Position {
        MainLine::position(self)
    }
    fn ply(&self) -> u32 {
        MainLine::ply(self)
    }
    fn peek(&self) -> Option<Move> {
        MainLine::peek(self)
    }
    fn advance(&mut self) -> Option<Move> {
        MainLine::advance(self)
    }
}

/// The moves of a USI line from the even start, played as [`MainLine`] plays them (the line
/// ends at a move that cannot be carried out).
struct UsiLine {
    pos: Position,
    moves: Vec<Move>,
    ply: u32,
}

impl UsiLine {
    /// Plays on to `ply` moves (the moves are known to be playable).
    fn advance_to(&mut self, ply: u32) {
        while self.ply < ply && self.advance().is_some() {}
    }
}

impl Cursor for UsiLine {
    fn position(&self) -> &Position {
        &self.pos
    }
    fn ply(&self) -> u32 {
        self.ply
    }
    fn peek(&self) -> Option<Move> {
        self.moves.get(self.ply as usize).copied()
    }
    fn advance(&mut self) -> Option<Move> {
        let mv = self.peek()?;
        self.pos.play_unchecked(mv).ok()?;
        self.ply += 1;
        Some(mv)
    }
}

/// Looks for the query in one record: the hit, if any, of its main line, and the plies
/// followed.
pub fn search(record: &Record, query: &Query) -> (Option<Hit>, u32) {
    match MainLine::new(record) {
        Ok(line) => search_line(line, query, || recorded_result(record)),
        Err(_) => (None, 0),
    }
}

/// [`search`] along any cursor; `result` gives the game's result for a hit.
fn search_line<C: Cursor>(
    mut line: C,
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

/// The short way through a plain USI line (`[position] startpos [moves m1 m2 ...]`, ASCII,
/// every token a move): its moves, without building a record. `None` for any other line
/// (another start, an ending token, a token that is not a move), which the reader reads.
fn plain_usi(line: &str) -> Option<UsiLine> {
    let tokens = Tokens::new(line);
    if !tokens.is_ascii() {
        return None;
    }
    let mut tokens = tokens.peekable();
    if tokens.peek().is_some_and(|(t, _)| *t == "position") {
        tokens.next();
    }
    if tokens.next()?.0 != "startpos" {
        return None;
    }
    match tokens.next() {
        None | Some(("moves", _)) => {}
        Some(_) => return None,
    }
    let moves = tokens
        .map(|(t, _)| Move::from_usi(t).ok())
        .collect::<Option<Vec<Move>>>()?;
    Some(UsiLine {
        pos: Position::startpos(),
        moves,
        ply: 0,
    })
}

/// Searches the games of a USI text (one per line): plain lines the short way, any other
/// through the reader. `None` when the text holds no game (the reader says why).
fn search_usi(text: &str, query: &Query) -> Option<UnitHits> {
    let mut out = UnitHits::default();
    for (i, (_, line)) in game_lines(text).enumerate() {
        let (hit, plies) = match plain_usi(line) {
            // A line with no ending and no footer has no recorded result.
            Some(cursor) => search_line(cursor, query, GameResult::default),
            None => match crate::formats::usi::read(line).first() {
                Some(g) => search(&g.record, query),
                None => (None, 0),
            },
        };
        out.games += 1;
        out.plies += u64::from(plies);
        if let Some(mut h) = hit {
            h.index = i;
            out.hits.push(h);
        }
    }
    (out.games > 0).then_some(out)
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

/// What the short way made of one CSA game.
enum CsaGame {
    /// Only blank lines: no game.
    Empty,
    /// The even start and these moves, every line of the usual kind, with the query's key of
    /// each position (the start and after each move).
    Moves(Vec<Move>, Vec<u64>),
    /// Anything else: the reader reads the game.
    Fallback,
}

/// Scans one CSA game (up to its `/` line or the end): the moves of a game from the even
/// start written the plain way (version, names, `$` lines, comments, `PI`, `+`, move lines
/// that resolve and can be carried out, `T` lines, one known `%` ending, in that order).
fn plain_csa(lines: &mut GameLines<'_>, query: &Query) -> CsaGame {
    let (mut seen, mut even, mut moves_phase, mut ended) = (false, false, false, false);
    let mut pos = Position::startpos();
    let mut moves = Vec::new();
    let mut keys = vec![query.key(&pos)];
    while let Some(line) = lines.next_line() {
        match line {
            Line::Blank => continue,
            Line::Info(_) if !moves_phase => {}
            Line::EvenStart if !moves_phase => even = true,
            Line::Turn(Color::Black) if even && !moves_phase => moves_phase = true,
            Line::Time(_) if moves_phase => {}
            Line::Special(..) if moves_phase && !ended => ended = true,
            Line::Move {
                color,
                from,
                to,
                kind,
            } if moves_phase && !ended && color == pos.turn() => {
                let mv = match from {
                    None if kind.is_hand_kind() => Move::Drop { kind, to },
                    None => return CsaGame::Fallback,
                    Some(from) => match pos.piece_at(from) {
                        Some(p) if p.color == color && p.kind == kind => Move::Normal {
                            from,
                            to,
                            promote: false,
                        },
                        Some(p) if p.color == color && p.kind.promote() == Some(kind) => {
                            Move::Normal {
                                from,
                                to,
                                promote: true,
                            }
                        }
                        _ => return CsaGame::Fallback,
                    },
                };
                if pos.play_unchecked(mv).is_err() {
                    return CsaGame::Fallback;
                }
                moves.push(mv);
                keys.push(query.key(&pos));
            }
            _ => return CsaGame::Fallback,
        }
        seen = true;
    }
    match (seen, moves_phase) {
        (false, _) => CsaGame::Empty,
        (true, true) => CsaGame::Moves(moves, keys),
        (true, false) => CsaGame::Fallback,
    }
}

/// [`search_line`] for a game already played from the even start (every move carried out):
/// the keys are compared, and a position whose key matches is played again to be compared in
/// full.
fn search_scanned(
    moves: &[Move],
    keys: &[u64],
    query: &Query,
    result: impl FnOnce() -> GameResult,
) -> (Option<Hit>, u32) {
    let plies = moves.len() as u32;
    match query {
        Query::Moves(want) => {
            if let Some(j) = want.iter().zip(moves).position(|(a, b)| a != b) {
                return (None, j as u32 + 1);
            }
            if want.len() > moves.len() {
                return (None, plies);
            }
            let hit = Hit {
                index: 0,
                ply: want.len() as u32,
                times: 1,
                next: moves.get(want.len()).copied(),
                result: result(),
            };
            (Some(hit), want.len() as u32)
        }
        Query::Position { target, .. } => {
            let want = query.key(target);
            let mut found: Option<u32> = None;
            let mut times = 0;
            let mut line: Option<UsiLine> = None;
            for (i, _) in keys.iter().enumerate().filter(|&(_, &k)| k == want) {
                let line = line.get_or_insert_with(|| UsiLine {
                    pos: Position::startpos(),
                    moves: moves.to_vec(),
                    ply: 0,
                });
                line.advance_to(i as u32);
                if query.same(&line.pos) {
                    times += 1;
                    found.get_or_insert(i as u32);
                }
            }
            let hit = found.map(|ply| Hit {
                index: 0,
                ply,
                times,
                next: moves.get(ply as usize).copied(),
                result: result(),
            });
            (hit, plies)
        }
    }
}

/// Searches the games of a CSA text (games separated by `/` lines): plain games the short way
/// (the result of a game found read by the reader), any other through the reader. `None` when
/// the text holds no game (the reader says why).
fn search_csa(text: &str, query: &Query) -> Option<UnitHits> {
    let mut out = UnitHits::default();
    let mut lines = GameLines::new(text);
    loop {
        let start = lines.at;
        let found: Vec<(Option<Hit>, u32)> = match plain_csa(&mut lines, query) {
            CsaGame::Empty => Vec::new(),
            CsaGame::Moves(moves, keys) => {
                let game = text.get(start..lines.game_end).unwrap_or("");
                let result = || {
                    crate::formats::csa::read(game)
                        .first()
                        .map(|g| recorded_result(&g.record))
                        .unwrap_or_default()
                };
                vec![search_scanned(&moves, &keys, query, result)]
            }
            CsaGame::Fallback => {
                let end = lines.skip_game();
                let game = text.get(start..end).unwrap_or("");
                crate::formats::csa::read(game)
                    .iter()
                    .map(|g| search(&g.record, query))
                    .collect()
            }
        };
        for (hit, plies) in found {
            out.plies += u64::from(plies);
            if let Some(mut h) = hit {
                h.index = out.games as usize;
                out.hits.push(h);
            }
            out.games += 1;
        }
        if !lines.more_games {
            break;
        }
    }
    (out.games > 0).then_some(out)
}

/// Reads a unit and searches each of its games. USI and CSA text that needs no decoding takes
/// the short way ([`search_usi`], [`search_csa`]).
fn search_unit(unit: &batch::Unit, query: &Query) -> UnitHits {
    if let batch::Content::Bytes(bytes) = &unit.content {
        let read = unit.read_options();
        if let Some((text, _)) = read.decode_in_place(bytes) {
            let short = match read.detect(text) {
                Some(Format::Usi) => search_usi(text, query),
                Some(Format::Csa) => search_csa(text, query),
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
mod tests {
    use super::*;
    use crate::formats::{Format, read};

    fn hit(text: &str, query: &Query) -> Option<Hit> {
        search(&read(Format::Usi, text)[0].record, query).0
    }

    fn at(sfen: &str, any_side: bool, board_only: bool) -> Query {
        Query::Position {
            target: Position::from_sfen(sfen).expect("sfen"),
            any_side,
            board_only,
        }
    }

    #[test]
    fn a_position_is_found_at_its_first_ply_with_the_move_played_from_it() {
        let after_two = "lnsgkgsnl/1r5b1/pppppp1pp/6p2/9/2P6/PP1PPPPPP/1B5R1/LNSGKGSNL b - 3";
        let q = at(after_two, false, false);
        let h = hit("startpos moves 7g7f 3c3d 2g2f resign\n", &q).expect("found");
        assert_eq!((h.ply, h.times), (2, 1));
        assert_eq!(h.next, Move::from_usi("2g2f").ok());
        assert_eq!(h.result.recorded.as_deref(), Some("TORYO"));
        // The same position by another order of moves; not in a game that misses it.
        assert!(hit("startpos moves 3g3f 3c3d 7g7f\n", &q).is_none());
        assert_eq!(
            hit("startpos moves 7g7f 3c3d\n", &q)
                .expect("at the end")
                .next,
            None
        );
        // The side to move counts unless told.
        let white = "lnsgkgsnl/1r5b1/pppppp1pp/6p2/9/2P6/PP1PPPPPP/1B5R1/LNSGKGSNL w - 3";
        assert!(hit("startpos moves 7g7f 3c3d\n", &at(white, false, false)).is_none());
        assert!(hit("startpos moves 7g7f 3c3d\n", &at(white, true, false)).is_some());
    }

    #[test]
    fn board_only_ignores_the_hands_and_repeats_are_counted() {
        // After the bishop exchange each side holds a bishop; the board alone matches a
        // position with other hands.
        let text = "startpos moves 7g7f 3c3d 8h2b+ 3a2b\n";
        let board = "lnsgkg1nl/1r5s1/pppppp1pp/6p2/9/2P6/PP1PPPPPP/7R1/LNSGKGSNL b 2b 5";
        assert!(hit(text, &at(board, false, false)).is_none());
        assert_eq!(hit(text, &at(board, false, true)).expect("board").ply, 4);
        let shuffle = "startpos moves 5i5h 5a5b 5h5i 5b5a 5i5h\n";
        let start = "lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1";
        let h = hit(shuffle, &at(start, false, false)).expect("start");
        assert_eq!((h.ply, h.times), (0, 2));
    }

    #[test]
    fn the_short_way_through_usi_finds_what_the_reader_finds() {
        let mut text = String::from(
            "startpos moves 7g7f 3c3d 2g2f\n\
             position startpos moves 7g7f 3c3d 8h2b+ 3a2b B*4e R*5e 2g2f\n\
             startpos moves 7g7f 3c3d resign\n\
             startpos\n\
             sfen lnsgkgsnl/1r5b1/pppppp1pp/6p2/9/2P6/PP1PPPPPP/1B5R1/LNSGKGSNL b - 3 moves 2g2f\n\
             # a comment\n\
             startpos moves 7g7f 3c3d 7f7e xx\n",
        );
        // Games of moves picked from the legal ones by a small generator; the first moves
        // are drawn from few, so that positions recur across games.
        let mut seed = 12345u64;
        for _ in 0..30 {
            let mut pos = Position::startpos();
            text.push_str("startpos moves");
            for ply in 0..60 {
                let legal = pos.legal_moves();
                if legal.is_empty() {
                    break;
                }
                seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
                let n = if ply < 2 { 2 } else { legal.len() };
                let mv = legal[(seed >> 33) as usize % n];
                text.push(' ');
                text.push_str(&mv.to_usi());
                pos.play(mv).expect("legal");
            }
            text.push('\n');
        }
        let after_two = "lnsgkgsnl/1r5b1/pppppp1pp/6p2/9/2P6/PP1PPPPPP/1B5R1/LNSGKGSNL b - 3";
        let queries = [
            at(after_two, false, false),
            at(after_two, true, true),
            Query::Moves(vec![Move::from_usi("7g7f").expect("usi")]),
            Query::Moves(vec![]),
        ];
        let games = read(Format::Usi, &text);
        for q in &queries {
            let short = search_usi(&text, q).expect("games");
            let mut hits = Vec::new();
            let mut plies = 0;
            for (i, g) in games.iter().enumerate() {
                let (h, p) = search(&g.record, q);
                plies += u64::from(p);
                hits.extend(h.map(|h| Hit { index: i, ..h }));
            }
            assert_eq!(short.games, games.len() as u64);
            assert_eq!(short.plies, plies, "{q:?}");
            assert_eq!(short.hits, hits, "{q:?}");
            assert!(!hits.is_empty(), "{q:?}");
        }
    }

    #[test]
    fn the_short_way_through_csa_finds_what_the_reader_finds() {
        let mut text = String::from(
            "V2.2\nN+a\nN-b\nPI\n+\n+7776FU\nT3\n-3334FU\n+2726FU\n%TORYO\n/\n\
             PI\n+\n+7776FU\n-3334FU\n+8822UM\n-3122GI\n+0045KA\n-0055HI\n+2726FU\n/\n\
             \n\n/\n\
             P1-KY-KE-GI-KI-OU-KI-GI-KE * \nP2 * -HI *  *  *  *  * -KA * \n\
             P3-FU-FU-FU-FU-FU-FU-FU-FU-FU\nP4 *  *  *  *  *  *  *  *  * \n\
             P5 *  *  *  *  *  *  *  *  * \nP6 *  *  *  *  *  *  *  *  * \n\
             P7+FU+FU+FU+FU+FU+FU+FU+FU+FU\nP8 * +KA *  *  *  *  * +HI * \n\
             P9+KY+KE+GI+KI+OU+KI+GI+KE+KY\n-\n-3334FU\n/\n\
             PI\n+\n+7776FU\n-3334FU\n%CHUDAN\n+2726FU\n/\n\
             PI\n+\n+7776FU,T1\n-3334FU\n'a comment\n+2726FU\n",
        );
        let mut seed = 777u64;
        for _ in 0..20 {
            let mut pos = Position::startpos();
            text.push_str("/\nPI\n+\n");
            for ply in 0..60 {
                let legal = pos.legal_moves();
                if legal.is_empty() {
                    break;
                }
                seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
                let n = if ply < 2 { 2 } else { legal.len() };
                let mv = legal[(seed >> 33) as usize % n];
                let before = match mv {
                    Move::Normal { from, .. } => pos.piece_at(from).map(|p| p.kind),
                    Move::Drop { kind, .. } => Some(kind),
                };
                let after = match (before, mv.is_promotion()) {
                    (Some(k), true) => k.promote(),
                    (k, false) => k,
                    (None, _) => None,
                };
                let sq = |s: crate::core::Square| format!("{}{}", s.file(), s.rank());
                text.push_str(&format!(
                    "{}{}{}{}\nT1\n",
                    if pos.turn() == Color::Black { '+' } else { '-' },
                    mv.from().map_or_else(|| "00".to_owned(), sq),
                    sq(mv.to()),
                    after.map_or("??", |k| k.csa())
                ));
                pos.play(mv).expect("legal");
            }
            text.push_str("%TORYO\n");
        }
        let after_two = "lnsgkgsnl/1r5b1/pppppp1pp/6p2/9/2P6/PP1PPPPPP/1B5R1/LNSGKGSNL b - 3";
        let queries = [
            at(after_two, false, false),
            at(after_two, true, true),
            Query::Moves(vec![Move::from_usi("7g7f").expect("usi")]),
            Query::Moves(vec![]),
        ];
        let games = read(Format::Csa, &text);
        assert!(games.len() > 20);
        for q in &queries {
            let short = search_csa(&text, q).expect("games");
            let mut hits = Vec::new();
            let mut plies = 0;
            for (i, g) in games.iter().enumerate() {
                let (h, p) = search(&g.record, q);
                plies += u64::from(p);
                hits.extend(h.map(|h| Hit { index: i, ..h }));
            }
            assert_eq!(short.games, games.len() as u64, "{q:?}");
            assert_eq!(short.plies, plies, "{q:?}");
            assert_eq!(short.hits, hits, "{q:?}");
            assert!(!hits.is_empty(), "{q:?}");
        }
    }

    #[test]
    fn a_run_of_moves_matches_games_from_the_even_start_only() {
        let q = Query::Moves(vec![
            Move::from_usi("7g7f").expect("usi"),
            Move::from_usi("3c3d").expect("usi"),
        ]);
        let h = hit("startpos moves 7g7f 3c3d 2g2f\n", &q).expect("prefix");
        assert_eq!((h.ply, h.next), (2, Move::from_usi("2g2f").ok()));
        assert!(hit("startpos moves 7g7f 8c8d\n", &q).is_none());
        assert!(hit("startpos moves 7g7f\n", &q).is_none());
        let odd = "sfen lnsgkgsn1/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1 moves 7g7f 3c3d\n";
        assert!(hit(odd, &q).is_none());
    }
}
