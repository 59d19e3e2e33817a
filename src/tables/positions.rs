//! One row per move of a game's main line: the position before it (SFEN), the move, its time,
//! an engine's evaluation where a comment gives one, whether it was legal, and the game's
//! result from the mover's side.
//!
//! [`Positions`] replays the main line once and hands out rows that borrow its buffers, so a
//! row costs no allocation.

use crate::core::{Color, Hand, Move, Position, Square};
use crate::record::{MoveNode, NodeKind, Record, Score};
use crate::validate::result::main_ending;
use crate::validate::{ShortGame, Winner};

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

/// The engine evaluation of a move, from the analysis its comments held
/// ([`MoveNode::analysis`]): the score turned to `mover`'s side, and the PV in USI as far as it
/// can be played from `before` the move or `after` it (see the KIF and CSA writers' rule of
/// which). `None` when the move has no analysis.
pub fn engine_eval(
    node: &MoveNode,
    mover: Color,
    before: &Position,
    after: &Position,
) -> Option<EngineEval> {
    let a = node.analysis()?;
    let sign = if mover == Color::Black { 1 } else { -1 };
    let (eval_cp, mate) = match a.score {
        Some(Score::Cp(cp)) => (Some(cp.saturating_mul(sign)), None),
        Some(Score::Mate { winner, plies }) => {
            let plies = plies.map(|p| i32::try_from(p).unwrap_or(i32::MAX));
            (None, plies.map(|p| if winner == mover { p } else { -p }))
        }
        None => (None, None),
    };
    let to = match &node.kind {
        NodeKind::Move {
            resolved: Some(m), ..
        } => Some(m.to()),
        _ => None,
    };
    let pv = crate::formats::analysis::pv_moves(a, before, after, to)
        .into_iter()
        .map(|m| {
            let mut s = String::with_capacity(6);
            write_usi(m, &mut s);
            s
        })
        .collect();
    Some(EngineEval { eval_cp, mate, pv })
}

/// One move's row. Borrowed from [`Positions`]; copy what must outlive the next row.
#[derive(Debug, Clone, PartialEq)]
pub struct PositionRow<'a> {
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

/// The rows of one game.
pub struct Positions<'r> {
    nodes: std::iter::Take<std::slice::Iter<'r, MoveNode>>,
    pos: Option<Position>,
    key: String,
    winner: Option<Winner>,
    ply: u32,
    board: SfenWriter,
    sfen: Vec<u8>,
    mv: String,
}

impl<'r> Positions<'r> {
    /// The rows of a replayed record: the moves of its main line before its ending, as far as
    /// they can be carried out (the row of a move that cannot be, or is unresolved, is the
    /// last one). `key` is the game key, `winner` the game's recorded winner.
    pub fn new(record: &'r Record, key: String, winner: Option<Winner>) -> Positions<'r> {
        let (plies, _) = main_ending(record);
        let pos = Position::from_setup_lenient(&record.start.to_setup()).ok();
        Positions {
            nodes: record.moves.iter().take(plies as usize),
            pos,
            key,
            winner,
            ply: 0,
            board: SfenWriter::new(),
            sfen: Vec::with_capacity(128),
            mv: String::with_capacity(8),
        }
    }

    /// The next row, or `None` at the end.
    #[allow(clippy::should_implement_trait)]
    pub fn next(&mut self) -> Option<PositionRow<'_>> {
        let pos = self.pos.as_mut()?;
        let node = self.nodes.next()?;
        self.ply += 1;
        self.sfen.clear();
        self.board.write(pos, &mut self.sfen);
        let mover = pos.turn();
        self.mv.clear();
        // The position before the move, kept only for a move an engine commented on.
        let before = node.analysis().map(|_| pos.clone());
        let mut eval = None;
        let legal = match &node.kind {
            NodeKind::Move {
                resolved: Some(m), ..
            } => {
                write_usi(*m, &mut self.mv);
                self.board.moved(pos, *m);
                match pos.play_checked(*m) {
                    Ok((_, foul)) => {
                        if let Some(before) = &before {
                            eval = engine_eval(node, mover, before, pos);
                        }
                        foul.is_none()
                    }
                    Err(_) => {
                        self.pos = None;
                        false
                    }
                }
            }
            NodeKind::Move { text, .. } => {
                self.mv.push_str(&text.raw);
                self.pos = None;
                false
            }
            NodeKind::Special(_) => return None,
        };
        Some(PositionRow {
            game_key: &self.key,
            ply: self.ply,
            // Only ASCII is written.
            sfen: std::str::from_utf8(&self.sfen).unwrap_or(""),
            side: side_name(mover),
            mv: &self.mv,
            time_ms: node.time.and_then(|t| t.elapsed_ms),
            eval,
            legal,
            result: result_of(self.winner, mover),
        })
    }
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
    /// The game keys, by [`PositionRows::game`].
    pub(super) keys: Vec<String>,
    /// Each row's game, an index in `keys`.
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
}

impl PositionRows {
    /// No rows.
    pub fn new() -> PositionRows {
        PositionRows::default()
    }

    /// Room for `plies` more rows (a game's at once, or a row group's, not a doubling every
    /// few).
    pub(crate) fn reserve(&mut self, plies: usize) {
        self.game.reserve(plies);
        self.ply.reserve(plies);
        self.sfen.reserve(plies * SFEN_BYTES);
        self.sfen_ends.reserve(plies);
        self.side.reserve(plies);
        self.mv.reserve(plies * 5);
        self.mv_ends.reserve(plies);
        self.time_ms.reserve(plies);
        self.legal.reserve(plies);
        self.result.reserve(plies);
    }

    /// Adds every row of `rows` (one game).
    pub fn push_game(&mut self, mut rows: Positions<'_>) {
        let game = offset(self.keys.len());
        self.keys.push(rows.key.clone());
        self.reserve(rows.nodes.len());
        while let Some(r) = rows.next() {
            if let Some(e) = r.eval {
                self.evals.push((offset(self.game.len()), e));
            }
            self.game.push(game);
            self.ply.push(i32::try_from(r.ply).unwrap_or(i32::MAX));
            self.sfen.extend_from_slice(r.sfen.as_bytes());
            self.sfen_ends.push(offset(self.sfen.len()));
            self.side.push(r.side.as_bytes()[0]);
            self.mv.extend_from_slice(r.mv.as_bytes());
            self.mv_ends.push(offset(self.mv.len()));
            self.time_ms.push(r.time_ms);
            self.legal.push(r.legal);
            self.result.push(r.result);
        }
    }

    /// Adds the rows of a game read the short way ([`ShortGame`], from the even start, every
    /// move legal; see [`crate::validate::gather_text`]): the same rows as [`Positions`] gives
    /// for the game's record, which the short way did not build. `winner` is the game's
    /// recorded winner. Not for a game with an engine's analysis (`game.analysis`), whose
    /// evaluations only the record holds.
    pub fn push_short(&mut self, game: &ShortGame, winner: Option<Winner>) {
        let game_index = offset(self.keys.len());
        self.keys.push(super::hex(game.key));
        let mut pos = Position::startpos();
        let mut board = SfenWriter::new();
        let mut times = game.times.iter().peekable();
        self.reserve(game.moves.len());
        for (i, &m) in game.moves.iter().enumerate() {
            let mover = pos.turn();
            board.write(&pos, &mut self.sfen);
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
            board.moved(&pos, m);
            if pos.play_unchecked(m).is_err() {
                // Not met: the short way played every move.
                break;
            }
        }
    }

    /// Adds a row (its game key kept once for rows of one game added one after the other).
    pub fn push_row(&mut self, r: &PositionRow<'_>) {
        if self.keys.last().is_none_or(|k| k != r.game_key) || self.game.is_empty() {
            self.keys.push(r.game_key.to_owned());
        }
        if let Some(e) = &r.eval {
            self.evals.push((offset(self.game.len()), e.clone()));
        }
        self.game.push(offset(self.keys.len() - 1));
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
        let base = offset(self.keys.len());
        self.keys
            .extend_from_slice(&other.keys[first as usize..=last as usize]);
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
        let game = *self.game.get(i)?;
        fn text<'a>(bytes: &'a [u8], ends: &[u32], i: usize) -> &'a str {
            let start = i.checked_sub(1).map_or(0, |j| ends[j] as usize);
            bytes
                .get(start..ends[i] as usize)
                .and_then(|b| std::str::from_utf8(b).ok())
                .unwrap_or("")
        }
        let eval = self
            .evals
            .binary_search_by_key(&offset(i), |e| e.0)
            .ok()
            .map(|at| self.evals[at].1.clone());
        Some(PositionRow {
            game_key: self.keys.get(game as usize).map_or("", String::as_str),
            ply: u32::try_from(self.ply[i]).unwrap_or(0),
            sfen: text(&self.sfen, &self.sfen_ends, i),
            side: if self.side[i] == b'b' { "b" } else { "w" },
            mv: text(&self.mv, &self.mv_ends, i),
            time_ms: self.time_ms[i],
            eval,
            legal: self.legal[i],
            result: self.result[i],
        })
    }

    /// Every row, in order.
    pub fn iter(&self) -> impl Iterator<Item = PositionRow<'_>> {
        (0..self.len()).filter_map(|i| self.get(i))
    }
}

/// Bytes reserved for a row's SFEN: most take 65 to 75, a hand or a move number of three
/// digits more.
const SFEN_BYTES: usize = 80;

/// A text offset or index as the rows keep it (a unit's rows are far below 4 GiB).
fn offset(n: usize) -> u32 {
    u32::try_from(n).unwrap_or(u32::MAX)
}

/// Each square's SFEN text by [`cell`]: nothing for an empty square (index 0), then Black's
/// kinds by index, then White's (their letter in lower case); two bytes, of which the first
/// `len` count (`+` and the letter for a promoted kind).
const CELLS: [([u8; 2], u8); 32] = {
    const KINDS: [&[u8]; 14] = [
        b"P", b"L", b"N", b"S", b"G", b"B", b"R", b"K", b"+P", b"+L", b"+N", b"+S", b"+B", b"+R",
    ];
    let mut t = [([0u8; 2], 0u8); 32];
    let mut i = 0;
    while i < 28 {
        let k = KINDS[i % 14];
        let mut text = [b' '; 2];
        let mut j = 0;
        while j < k.len() {
            text[j] = if i >= 14 {
                k[j].to_ascii_lowercase()
            } else {
                k[j]
            };
            j += 1;
        }
        t[i + 1] = (text, k.len() as u8);
        i += 1;
    }
    t
};

/// A square's index in [`CELLS`].
#[inline]
fn cell(p: Option<crate::core::Piece>) -> u8 {
    match p {
        None => 0,
        Some(p) => (1 + p.kind.index() + 14 * p.color.index()) as u8,
    }
}

/// Writes the SFENs of the successive positions of a game: the ranks a move did not touch
/// are copied from the SFEN before, only the one or two it changed are written again (when
/// the move is told, from a copy of the board's squares it keeps), and a hand only when it
/// changed (a capture or a drop). The SFEN is put together in place at the end of its
/// output, each rank and hand copied whole (a fixed size, no call). 60 ns a position on
/// this machine, 122 before session 23 (docs/benchmarks.md).
#[derive(Debug, Clone)]
pub(crate) struct SfenWriter {
    /// Each square's index in [`CELLS`], kept by [`SfenWriter::moved`] once filled from the
    /// first position written (`None` before): read from the position, an empty square is
    /// a branch the processor mispredicts about every other square.
    cells: Option<[u8; 81]>,
    /// Each rank's text (at most nine two-letter pieces), top rank first.
    ranks: [[u8; RANK_TEXT]; 9],
    lens: [u8; 9],
    /// The hands (Black's, White's) whose texts `hands_text` holds, if any yet.
    hands: Option<[Hand; 2]>,
    /// The hands' field (`-` when both are empty).
    hands_text: [[u8; HAND_TEXT]; 2],
    hands_len: [u8; 2],
}

/// Room for a rank's text: nine two-letter pieces, and scratch for [`write_rank`] (which
/// masks its indexes to this size).
const RANK_TEXT: usize = 32;

/// Room for a side's hand: seven kinds, each at most two digits and a letter, and scratch
/// for [`write_hand`] (which masks its indexes to this size).
const HAND_TEXT: usize = 32;

/// Room for a whole SFEN: nine ranks of 18 bytes and their 8 slashes, the side between two
/// spaces, the hands, a space and a move number of at most 10 digits (with slack, so each
/// rank and the hands are copied at their full size).
const SFEN_TEXT: usize = 9 * 18 + 8 + 3 + 1 + 2 * HAND_TEXT + 1 + 10 + RANK_TEXT;

impl SfenWriter {
    pub(crate) fn new() -> SfenWriter {
        SfenWriter {
            cells: None,
            ranks: [[0; RANK_TEXT]; 9],
            lens: [0; 9],
            hands: None,
            hands_text: [[0; HAND_TEXT]; 2],
            hands_len: [0; 2],
        }
    }

    /// `m` is about to be played in `pos`: the squares it changes are updated and their
    /// ranks written again, and the hands' field if it takes or drops a piece. Done here, a
    /// move's time before the SFEN is asked for: written just before it is copied, a rank's
    /// bytes would be read back before the processor could forward them.
    #[inline]
    pub(crate) fn moved(&mut self, pos: &Position, m: Move) {
        let Some(cells) = &mut self.cells else {
            // Not written yet: the first SFEN writes every rank.
            return;
        };
        let mover = pos.turn();
        let (from, to) = match m {
            Move::Normal { from, to, promote } => {
                let piece = pos.board()[from.index()];
                let piece = match (piece, promote) {
                    (Some(p), true) => Some(crate::core::Piece::new(
                        p.color,
                        p.kind.promote().unwrap_or(p.kind),
                    )),
                    (p, _) => p,
                };
                if let (Some(taken), Some(hands)) = (pos.board()[to.index()], &mut self.hands) {
                    let c = mover.index();
                    hands[c].add(taken.kind.unpromote());
                    self.hands_len[c] = write_hand(&hands[c], mover, &mut self.hands_text[c]);
                }
                cells[from.index()] = 0;
                cells[to.index()] = cell(piece);
                (from, to)
            }
            Move::Drop { kind, to } => {
                cells[to.index()] = cell(Some(crate::core::Piece::new(mover, kind)));
                if let Some(hands) = &mut self.hands {
                    let c = mover.index();
                    hands[c].remove(kind);
                    self.hands_len[c] = write_hand(&hands[c], mover, &mut self.hands_text[c]);
                }
                (to, to)
            }
        };
        let (a, b) = (from.index() % 9, to.index() % 9);
        self.lens[a] = write_rank(cells, a, &mut self.ranks[a]);
        if b != a {
            self.lens[b] = write_rank(cells, b, &mut self.ranks[b]);
        }
    }

    /// Appends the SFEN of `pos` (as [`Position::to_sfen`] writes it), which differs from the
    /// position last written by the moves told to [`SfenWriter::moved`] since. Written in
    /// place at the end of `out` (room for the longest SFEN is made, then cut to the text's
    /// length).
    pub(crate) fn write(&mut self, pos: &Position, out: &mut Vec<u8>) {
        let start = out.len();
        out.resize(start + SFEN_TEXT, 0);
        let n = match <&mut [u8; SFEN_TEXT]>::try_from(&mut out[start..]) {
            Ok(buf) => self.write_into(pos, buf),
            Err(_) => 0,
        };
        out.truncate(start + n);
    }

    /// Writes the SFEN of `pos` at the start of `buf`; returns its length.
    #[inline]
    fn write_into(&mut self, pos: &Position, buf: &mut [u8; SFEN_TEXT]) -> usize {
        if self.cells.is_none() {
            let mut cells = [0u8; 81];
            for (c, &p) in cells.iter_mut().zip(pos.board()) {
                *c = cell(p);
            }
            for rank in 0..9 {
                self.lens[rank] = write_rank(&cells, rank, &mut self.ranks[rank]);
            }
            self.cells = Some(cells);
        }
        let mut n = 0usize;
        for rank in 0..9usize {
            buf[n..n + RANK_TEXT].copy_from_slice(&self.ranks[rank]);
            n += usize::from(self.lens[rank]);
            buf[n] = b'/';
            n += 1;
        }
        // The last rank's slash becomes the space before the side.
        buf[n - 1] = b' ';
        buf[n] = if pos.turn() == Color::Black {
            b'b'
        } else {
            b'w'
        };
        buf[n + 1] = b' ';
        n += 2;
        let hands = [pos.hand(Color::Black), pos.hand(Color::White)];
        if self.hands != Some(hands) {
            self.hands = Some(hands);
            for c in Color::ALL {
                let i = c.index();
                self.hands_len[i] = write_hand(&hands[i], c, &mut self.hands_text[i]);
            }
        }
        // Both hands copied whole, White's where Black's ends; `-` when both are empty.
        let [black, white] = self.hands_len.map(usize::from);
        buf[n..n + HAND_TEXT].copy_from_slice(&self.hands_text[0]);
        buf[n + black..n + black + HAND_TEXT].copy_from_slice(&self.hands_text[1]);
        if black + white == 0 {
            buf[n] = b'-';
        }
        n += (black + white).max(1);
        buf[n] = b' ';
        n += 1;
        n += write_number(&mut buf[n..n + 10], pos.move_number());
        n
    }
}

/// Writes a side's part of the hands' field of an SFEN (its pieces strongest first, in
/// upper case for Black and lower case for White, each count before its letter when above
/// one); returns its length. Without a branch on the counts: each kind writes a ten's digit,
/// a unit's digit and its letter, and advances past those that count (a count is at most 18).
fn write_hand(hand: &Hand, side: Color, buf: &mut [u8; HAND_TEXT]) -> u8 {
    const LETTERS: [u8; 7] = *b"PLNSGBR";
    let mut n = 0usize;
    let counts = hand.counts();
    let case = if side == Color::Black { 0 } else { b'a' - b'A' };
    for k in (0..7).rev() {
        let count = usize::from(counts[k]);
        let tens = usize::from(count >= 10);
        buf[n & 31] = b'1';
        n += tens;
        buf[n & 31] = b'0' + (count - 10 * tens) as u8;
        n += usize::from(count >= 2);
        buf[n & 31] = LETTERS[k] + case;
        n += usize::from(count >= 1);
    }
    n as u8
}

/// Writes `v` in decimal at the start of `buf` (room for its digits); returns their number.
fn write_number(buf: &mut [u8], mut v: u32) -> usize {
    let mut digits = [0u8; 10];
    let mut i = digits.len();
    loop {
        i -= 1;
        digits[i] = b'0' + (v % 10) as u8;
        v /= 10;
        if v == 0 {
            break;
        }
    }
    let len = digits.len() - i;
    buf[..len].copy_from_slice(&digits[i..]);
    len
}

/// Writes one rank of the board (0: the top one) into `buf`, from each square's index in
/// [`CELLS`]; returns its length. Without a branch on the squares (about half are empty, in
/// no order a predictor learns): each square writes the pending count of empty squares and
/// its piece's two letters, and only advances past what counts; the bytes past the end are
/// scratch. The indexes are masked to the arrays' sizes (they are within them), so no bound
/// is checked either.
#[inline]
fn write_rank(cells: &[u8; 81], rank: usize, buf: &mut [u8; RANK_TEXT]) -> u8 {
    let mut n = 0usize;
    let mut empty = 0usize;
    for file in (0..9usize).rev() {
        let (text, len) = CELLS[usize::from(cells[file * 9 + rank]) & 31];
        let occupied = usize::from(len != 0);
        // Only read when a piece follows empty squares.
        buf[n & 31] = b'0' + empty as u8;
        n += usize::from(empty != 0) & occupied;
        buf[n & 31] = text[0];
        buf[(n + 1) & 31] = text[1];
        n += usize::from(len);
        empty = (empty + 1) * (1 - occupied);
    }
    buf[n & 31] = b'0' + empty as u8;
    n += usize::from(empty != 0);
    n as u8
}

/// The SFEN of `pos` (as [`Position::to_sfen`], in one allocation).
pub(crate) fn sfen(pos: &Position) -> String {
    let mut buf = Vec::with_capacity(128);
    SfenWriter::new().write(pos, &mut buf);
    String::from_utf8(buf).unwrap_or_default()
}

/// A move in USI (as its `Display` writes it), in a buffer: the letters and how many.
pub(crate) fn usi_letters(m: Move) -> ([u8; 5], usize) {
    let mut buf = [0u8; 5];
    let square = |buf: &mut [u8; 5], at: usize, sq: Square| {
        buf[at] = b'0' + sq.file();
        buf[at + 1] = b'a' + sq.rank() - 1;
    };
    match m {
        Move::Normal { from, to, promote } => {
            square(&mut buf, 0, from);
            square(&mut buf, 2, to);
            buf[4] = b'+';
            (buf, if promote { 5 } else { 4 })
        }
        Move::Drop { kind, to } => {
            buf[0] = kind.sfen_letter() as u8;
            buf[1] = b'*';
            square(&mut buf, 2, to);
            (buf, 4)
        }
    }
}

/// [`write_usi`] to bytes.
fn write_usi_bytes(m: Move, out: &mut Vec<u8>) {
    let (buf, n) = usi_letters(m);
    out.extend_from_slice(&buf[..n]);
}

/// Writes a move in USI (as its `Display` does, without allocating).
pub(crate) fn write_usi(m: Move, s: &mut String) {
    let (buf, n) = usi_letters(m);
    s.push_str(std::str::from_utf8(&buf[..n]).unwrap_or(""));
}

#[cfg(test)]
mod tests;
