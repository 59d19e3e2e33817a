//! One row per move of a game's main line: the position before it (SFEN), the move, its time,
//! an engine's evaluation where a comment gives one, whether it was legal, and the game's
//! result from the mover's side.
//!
//! [`PositionRows`] holds the rows of many games column by column, as Arrow lays them out.

use std::sync::Arc;

use crate::core::{Color, Move, Position};
use crate::record::{Analysis, Score};
use crate::validate::{Digest, Winner};

/// What an engine said about a move, from its comment.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct EngineEval {
    /// The evaluation in centipawns, from the mover's side.
    pub eval_cp: Option<i32>,
    /// Mate in this many plies (negative: the mover is mated).
    pub mate: Option<i32>,
    /// The principal variation, USI moves.
    pub pv: Vec<String>,
}

/// The engine evaluation of a move `mv` (`None`: not resolved), from the analysis its
/// comments held: the score turned to `mover`'s side, and the PV in USI as far as it can be
/// played from `before` the move or `after` it (see the KIF and CSA writers' rule of which).
pub fn engine_eval(
    a: &Analysis,
    mv: Option<Move>,
    mover: Color,
    before: &Position,
    after: &Position,
) -> EngineEval {
    let sign = if mover == Color::Black { 1 } else { -1 };
    let (eval_cp, mate) = match a.score {
        Some(Score::Cp(cp)) => (Some(cp.saturating_mul(sign)), None),
        Some(Score::Mate { winner, plies }) => {
            let plies = plies.map(|p| i32::try_from(p).unwrap_or(i32::MAX));
            (None, plies.map(|p| if winner == mover { p } else { -p }))
        }
        None => (None, None),
    };
    let pv = crate::formats::analysis::pv_moves(a, before, after, mv.map(|m| m.to()))
        .into_iter()
        .map(|m| {
            let mut s = String::with_capacity(6);
            write_usi(m, &mut s);
            s
        })
        .collect();
    EngineEval { eval_cp, mate, pv }
}

/// One move's row, borrowed from [`PositionRows`].
#[derive(Debug, Clone, PartialEq)]
pub struct PositionRow<'a> {
    /// The path of the game's file, as the games table shows it.
    pub path: &'a str,
    /// The game's index in its file, from 0.
    pub game: u64,
    /// The game key, 16 hexadecimal digits.
    pub game_key: &'a str,
    /// The ply of the move, from 1.
    pub ply: u32,
    /// The position before the move, SFEN (its move number is the record's).
    pub sfen: &'a str,
    /// The side to move: `b` or `w`.
    pub side: &'static str,
    /// The move in USI, or as written when it could not be resolved.
    pub mv: &'a str,
    /// Time spent on the move, in milliseconds.
    pub time_ms: Option<u64>,
    /// What an engine said ([`engine_eval`]).
    pub eval: Option<EngineEval>,
    /// Whether the move was legal in the position.
    pub legal: bool,
    /// The game's result from the mover's side: `win`, `loss` or `draw`.
    pub result: Option<&'static str>,
}

/// Where the text of row `i` starts in a text column of [`PositionRows`]: where the row
/// before ends (`ends` holds each row's end), 0 for the first.
fn end_before(ends: &[u32], i: usize) -> usize {
    i.checked_sub(1).map_or(0, |j| ends[j] as usize)
}

fn side_name(c: Color) -> &'static str {
    if c == Color::Black { "b" } else { "w" }
}

/// The game's result from `mover`'s side.
fn result_of(winner: Option<Winner>, mover: Color) -> Option<&'static str> {
    winner.map(|w| match (w, mover) {
        (Winner::Draw, _) => "draw",
        (Winner::Black, Color::Black) | (Winner::White, Color::White) => "win",
        _ => "loss",
    })
}

/// The rows of one or more games held column by column as Arrow lays them out (each text
/// column one buffer and its offsets), made where the games were read (a worker thread) and
/// written elsewhere: [`PositionRows::get`] gives a row back as a [`PositionRow`], and with
/// the `parquet` feature [`PositionRows::into_batch`] makes the rows an Arrow batch without
/// copying their texts again.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct PositionRows {
    /// The games of the rows, by [`PositionRows::game`].
    pub(super) games: Vec<GameOfRows>,
    /// Each row's game, an index in `games`.
    pub(super) game: Vec<u32>,
    pub(super) ply: Vec<i32>,
    /// The SFENs one after the other, and where each ends.
    pub(super) sfen: Vec<u8>,
    pub(super) sfen_ends: Vec<u32>,
    /// Each row's side to move, `b` or `w`.
    pub(super) side: Vec<u8>,
    /// The moves one after the other, and where each ends.
    pub(super) mv: Vec<u8>,
    pub(super) mv_ends: Vec<u32>,
    pub(super) time_ms: Vec<Option<u64>>,
    pub(super) legal: Vec<bool>,
    pub(super) result: Vec<Option<&'static str>>,
    /// The engine evaluations, by row (few rows have one), in row order.
    pub(super) evals: Vec<(u32, EngineEval)>,
    /// Whether rows added from games ([`PositionRows::push`]) leave their SFENs empty (a
    /// table without the `sfen` column, a third of the table's work).
    pub(super) no_sfens: bool,
}

/// The game some rows are moves of: its file, index in the file and key.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct GameOfRows {
    pub(super) path: Arc<str>,
    pub(super) index: u64,
    pub(super) key: String,
}

impl PositionRows {
    /// No rows.
    pub fn new() -> PositionRows {
        PositionRows::default()
    }

    /// No rows; the games' rows added will have an empty SFEN each (for a table without the
    /// `sfen` column).
    pub fn without_sfens() -> PositionRows {
        PositionRows {
            no_sfens: true,
            ..PositionRows::default()
        }
    }

    /// Room for `plies` more rows (a game's at once, or a row group's, not a doubling every
    /// few).
    pub fn reserve(&mut self, plies: usize) {
        self.game.reserve(plies);
        self.ply.reserve(plies);
        if !self.no_sfens {
            self.sfen.reserve(plies * SFEN_BYTES);
        }
        self.sfen_ends.reserve(plies);
        self.side.reserve(plies);
        self.mv.reserve(plies * 5);
        self.mv_ends.reserve(plies);
        self.time_ms.reserve(plies);
        self.legal.reserve(plies);
        self.result.reserve(plies);
    }

    /// Adds the rows of a game: one per move of its main line before its ending (`plies`
    /// moves), as far as they can be carried out (the row of a move that cannot be, or is
    /// unresolved, is the last one). `winner` is the game's recorded winner, `path` and
    /// `index` the game's file and index in it.
    pub fn push(
        &mut self,
        game: &Digest,
        plies: u32,
        winner: Option<Winner>,
        path: Arc<str>,
        index: u64,
    ) {
        let game_index = offset(self.games.len());
        self.games.push(GameOfRows {
            path,
            index,
            key: super::hex(game.key),
        });
        if game.end.is_some() && game.evals.is_empty() {
            self.push_quick(game, game_index, winner);
            return;
        }
        let Ok(mut pos) = Position::from_setup_lenient(&game.start.to_setup()) else {
            return;
        };
        let mut board = (!self.no_sfens).then(|| SfenWriter::new(&pos));
        let mut times = game.times.iter().peekable();
        let mut evals = game.evals.iter().peekable();
        self.reserve(plies as usize);
        for (i, m) in game.main_line().take(plies as usize).enumerate() {
            let at = offset(i);
            if let Some(board) = &board {
                board.write(&mut self.sfen);
            }
            self.sfen_ends.push(offset(self.sfen.len()));
            let mover = pos.turn();
            let analysis = evals.next_if(|e| e.0 == at).map(|e| &e.1);
            // The position before the move, kept only for a move an engine commented on.
            let before = analysis.map(|_| pos.clone());
            let mut eval = None;
            let mut last = false;
            let legal = match m {
                Ok(m) => {
                    write_usi_bytes(m, &mut self.mv);
                    if let Some(board) = &mut board {
                        board.play(m);
                    }
                    match pos.play_checked(m) {
                        Ok((_, foul)) => {
                            if let (Some(a), Some(before)) = (analysis, &before) {
                                eval = Some(engine_eval(a, Some(m), mover, before, &pos));
                            }
                            foul.is_none()
                        }
                        Err(_) => {
                            last = true;
                            false
                        }
                    }
                }
                Err(text) => {
                    self.mv.extend_from_slice(text.as_bytes());
                    last = true;
                    false
                }
            };
            self.mv_ends.push(offset(self.mv.len()));
            if let Some(e) = eval {
                self.evals.push((offset(self.game.len()), e));
            }
            self.game.push(game_index);
            self.ply.push(i32::try_from(i + 1).unwrap_or(i32::MAX));
            self.side.push(side_name(mover).as_bytes()[0]);
            self.time_ms.push(times.next_if(|t| t.0 == at).map(|t| t.1));
            self.legal.push(legal);
            self.result.push(result_of(winner, mover));
            if last {
                break;
            }
        }
    }

    /// The rows of a game whose every move was played the quick way from the even start
    /// (all legal): the writer keeps the position itself, nothing is replayed here.
    fn push_quick(&mut self, game: &Digest, game_index: u32, winner: Option<Winner>) {
        let mut board = (!self.no_sfens).then(|| even_writer().clone());
        let mut mover = Color::Black;
        let mut times = game.times.iter().peekable();
        self.reserve(game.moves.len());
        for (i, &m) in game.moves.iter().enumerate() {
            if let Some(board) = &board {
                board.write(&mut self.sfen);
            }
            self.sfen_ends.push(offset(self.sfen.len()));
            write_usi_bytes(m, &mut self.mv);
            self.mv_ends.push(offset(self.mv.len()));
            let index = offset(i);
            self.game.push(game_index);
            self.ply.push(i32::try_from(i + 1).unwrap_or(i32::MAX));
            self.side
                .push(if mover == Color::Black { b'b' } else { b'w' });
            self.time_ms
                .push(times.next_if(|t| t.0 == index).map(|t| t.1));
            self.legal.push(true);
            self.result.push(result_of(winner, mover));
            if let Some(board) = &mut board {
                board.play(m);
            }
            mover = mover.flip();
        }
    }

    /// Adds a row (its game kept once for rows of one game added one after the other).
    pub fn push_row(&mut self, r: &PositionRow<'_>) {
        let same = |g: &GameOfRows| g.key == r.game_key && g.index == r.game && *g.path == *r.path;
        if self.games.last().is_none_or(|g| !same(g)) || self.game.is_empty() {
            self.games.push(GameOfRows {
                path: Arc::from(r.path),
                index: r.game,
                key: r.game_key.to_owned(),
            });
        }
        if let Some(e) = &r.eval {
            self.evals.push((offset(self.game.len()), e.clone()));
        }
        self.game.push(offset(self.games.len() - 1));
        self.ply.push(i32::try_from(r.ply).unwrap_or(i32::MAX));
        self.sfen.extend_from_slice(r.sfen.as_bytes());
        self.sfen_ends.push(offset(self.sfen.len()));
        self.side.push(if r.side == "b" { b'b' } else { b'w' });
        self.mv.extend_from_slice(r.mv.as_bytes());
        self.mv_ends.push(offset(self.mv.len()));
        self.time_ms.push(r.time_ms);
        self.legal.push(r.legal);
        self.result.push(r.result);
    }

    /// Adds the rows `range` of `other` (a few copies of its columns' slices, no row read).
    pub fn extend_from(&mut self, other: &PositionRows, range: std::ops::Range<usize>) {
        let range = range.start.min(other.len())..range.end.min(other.len());
        if range.is_empty() {
            return;
        }
        let (start, end) = (range.start, range.end);
        // The games of the rows, and where their keys go.
        let first = other.game[start];
        let last = other.game[end - 1];
        let base = offset(self.games.len());
        self.games
            .extend_from_slice(&other.games[first as usize..=last as usize]);
        self.game
            .extend(other.game[range.clone()].iter().map(|&g| g - first + base));
        self.ply.extend_from_slice(&other.ply[range.clone()]);
        let texts = |to: &mut Vec<u8>, ends: &mut Vec<u32>, from: &[u8], from_ends: &[u32]| {
            let at = if start == 0 { 0 } else { from_ends[start - 1] };
            let shift = offset(to.len()).wrapping_sub(at);
            to.extend_from_slice(&from[at as usize..from_ends[end - 1] as usize]);
            ends.extend(from_ends[start..end].iter().map(|&e| e.wrapping_add(shift)));
        };
        texts(
            &mut self.sfen,
            &mut self.sfen_ends,
            &other.sfen,
            &other.sfen_ends,
        );
        texts(&mut self.mv, &mut self.mv_ends, &other.mv, &other.mv_ends);
        self.side.extend_from_slice(&other.side[range.clone()]);
        self.time_ms
            .extend_from_slice(&other.time_ms[range.clone()]);
        self.legal.extend_from_slice(&other.legal[range.clone()]);
        self.result.extend_from_slice(&other.result[range.clone()]);
        let rows = offset(self.game.len() - (end - start));
        for (row, e) in &other.evals {
            if (start..end).contains(&(*row as usize)) {
                self.evals.push((*row - offset(start) + rows, e.clone()));
            }
        }
    }

    /// How many rows.
    pub fn len(&self) -> usize {
        self.game.len()
    }

    /// Whether there is no row.
    pub fn is_empty(&self) -> bool {
        self.game.is_empty()
    }

    /// The `i`th row, in the order they were added.
    pub fn get(&self, i: usize) -> Option<PositionRow<'_>> {
        fn text<'a>(bytes: &'a [u8], ends: &[u32], i: usize) -> &'a str {
            bytes
                .get(end_before(ends, i)..ends[i] as usize)
                .and_then(|b| std::str::from_utf8(b).ok())
                .unwrap_or("")
        }
        self.game.get(i)?;
        let (sfen, mv) = (
            text(&self.sfen, &self.sfen_ends, i),
            text(&self.mv, &self.mv_ends, i),
        );
        Some(self.row(i, sfen, mv))
    }

    /// The rows of `range`, in order, as [`PositionRows::get`] gives them; their texts are
    /// checked as UTF-8 once for the whole range, not row by row (that was 6.5 % of the
    /// CSV positions table's time).
    pub fn rows_in(&self, range: std::ops::Range<usize>) -> impl Iterator<Item = PositionRow<'_>> {
        /// The bytes of the range's texts as one str, and where they start (`None` if they
        /// were not UTF-8, which the writers never make: then each row is checked alone).
        fn span<'a>(bytes: &'a [u8], ends: &[u32], range: &std::ops::Range<usize>) -> Span<'a> {
            let (start, end) = (end_before(ends, range.start), end_before(ends, range.end));
            let text = bytes
                .get(start..end)
                .and_then(|b| std::str::from_utf8(b).ok());
            (start, text)
        }
        /// The text of row `i` in a span.
        fn text<'a>((base, span): Span<'a>, ends: &[u32], i: usize) -> Option<&'a str> {
            let (start, end) = (end_before(ends, i), ends[i] as usize);
            span?.get(start.checked_sub(base)?..end.checked_sub(base)?)
        }
        type Span<'a> = (usize, Option<&'a str>);
        let range = range.start.min(self.len())..range.end.min(self.len());
        let sfen = span(&self.sfen, &self.sfen_ends, &range);
        let mv = span(&self.mv, &self.mv_ends, &range);
        range.filter_map(move |i| {
            match (text(sfen, &self.sfen_ends, i), text(mv, &self.mv_ends, i)) {
                (Some(s), Some(m)) => Some(self.row(i, s, m)),
                _ => self.get(i),
            }
        })
    }

    /// The `i`th row (`i` below [`PositionRows::len`]) with these texts.
    fn row<'a>(&'a self, i: usize, sfen: &'a str, mv: &'a str) -> PositionRow<'a> {
        let game = self.game[i];
        let eval = self
            .evals
            .binary_search_by_key(&offset(i), |e| e.0)
            .ok()
            .map(|at| self.evals[at].1.clone());
        let of = self.games.get(game as usize);
        PositionRow {
            path: of.map_or("", |g| &g.path),
            game: of.map_or(0, |g| g.index),
            game_key: of.map_or("", |g| g.key.as_str()),
            ply: u32::try_from(self.ply[i]).unwrap_or(0),
            sfen,
            side: if self.side[i] == b'b' { "b" } else { "w" },
            mv,
            time_ms: self.time_ms[i],
            eval,
            legal: self.legal[i],
            result: self.result[i],
        }
    }

    /// Gives the game whose rows start at row `first` its index in its file (the rows of a
    /// file's games are made before the games are counted across the file's parts).
    pub fn set_game_index(&mut self, first: usize, index: u64) {
        if let Some(of) = self
            .game
            .get(first)
            .and_then(|&g| self.games.get_mut(g as usize))
        {
            of.index = index;
        }
    }

    /// Every row, in order.
    pub fn iter(&self) -> impl Iterator<Item = PositionRow<'_>> {
        (0..self.len()).filter_map(|i| self.get(i))
    }
}

/// The SFEN writer at the even start position (made once).
fn even_writer() -> &'static SfenWriter {
    static EVEN: std::sync::OnceLock<SfenWriter> = std::sync::OnceLock::new();
    EVEN.get_or_init(|| SfenWriter::new(&Position::startpos()))
}

/// Bytes reserved for a row's SFEN: most take 65 to 75, a hand or a move number of three
/// digits more.
const SFEN_BYTES: usize = 80;

/// A text offset or index as the rows keep it (a unit's rows are far below 4 GiB).
fn offset(n: usize) -> u32 {
    u32::try_from(n).unwrap_or(u32::MAX)
}

pub use crate::core::line_sfens;
use crate::core::{SfenWriter, write_usi, write_usi_bytes};

#[cfg(test)]
mod tests;
