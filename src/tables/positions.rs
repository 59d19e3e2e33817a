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
                self.board.moved(*m);
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

/// The rows of one or more games held compactly (their texts in one buffer), made where the
/// game was read (a worker thread) and written elsewhere: [`PositionRows::get`] gives each
/// back as a [`PositionRow`].
#[derive(Debug, Clone, Default, PartialEq)]
pub struct PositionRows {
    /// Every row's SFEN then move, one after the other.
    text: String,
    /// The game keys of the rows, by [`Compact::game`].
    keys: Vec<String>,
    rows: Vec<Compact>,
}

/// A row of [`PositionRows`] without its texts.
#[derive(Debug, Clone, PartialEq)]
struct Compact {
    game: u32,
    ply: u32,
    /// Where the SFEN ends and the move begins in the text; the move ends where the next
    /// row's SFEN begins.
    sfen_end: u32,
    mv_end: u32,
    black: bool,
    legal: bool,
    result: Option<&'static str>,
    time_ms: Option<u64>,
    eval: Option<Box<EngineEval>>,
}

impl PositionRows {
    /// No rows.
    pub fn new() -> PositionRows {
        PositionRows::default()
    }

    /// Adds every row of `rows` (one game).
    pub fn push_game(&mut self, mut rows: Positions<'_>) {
        let game = u32::try_from(self.keys.len()).unwrap_or(u32::MAX);
        self.keys.push(rows.key.clone());
        // A game's rows at once, not a doubling every few.
        let plies = rows.nodes.len();
        self.rows.reserve(plies);
        self.text.reserve(plies * ROW_TEXT);
        while let Some(r) = rows.next() {
            self.text.push_str(r.sfen);
            let sfen_end = offset(self.text.len());
            self.text.push_str(r.mv);
            self.rows.push(Compact {
                game,
                ply: r.ply,
                sfen_end,
                mv_end: offset(self.text.len()),
                black: r.side == "b",
                legal: r.legal,
                result: r.result,
                time_ms: r.time_ms,
                eval: r.eval.map(Box::new),
            });
        }
    }

    /// Adds the rows of a game read the short way ([`ShortGame`], from the even start, every
    /// move legal; see [`crate::validate::gather_text`]): the same rows as [`Positions`] gives
    /// for the game's record, which the short way did not build. `winner` is the game's
    /// recorded winner. Not for a game with an engine's analysis (`game.analysis`), whose
    /// evaluations only the record holds.
    pub fn push_short(&mut self, game: &ShortGame, winner: Option<Winner>) {
        let game_index = u32::try_from(self.keys.len()).unwrap_or(u32::MAX);
        self.keys.push(super::hex(game.key));
        let mut pos = Position::startpos();
        let mut board = SfenWriter::new();
        let mut times = game.times.iter().peekable();
        // Written as bytes and made a string at the end (only ASCII is written).
        let mut text = std::mem::take(&mut self.text).into_bytes();
        text.reserve(game.moves.len() * ROW_TEXT);
        self.rows.reserve(game.moves.len());
        for (i, &m) in game.moves.iter().enumerate() {
            let mover = pos.turn();
            board.write(&pos, &mut text);
            let sfen_end = offset(text.len());
            write_usi_bytes(m, &mut text);
            let index = offset(i);
            let time_ms = times.next_if(|t| t.0 == index).map(|t| t.1);
            self.rows.push(Compact {
                game: game_index,
                ply: index.saturating_add(1),
                sfen_end,
                mv_end: offset(text.len()),
                black: mover == Color::Black,
                legal: true,
                result: result_of(winner, mover),
                time_ms,
                eval: None,
            });
            board.moved(m);
            if pos.play_unchecked(m).is_err() {
                // Not met: the short way played every move.
                break;
            }
        }
        self.text = String::from_utf8(text).unwrap_or_default();
    }

    /// How many rows.
    pub fn len(&self) -> usize {
        self.rows.len()
    }

    /// Whether there is no row.
    pub fn is_empty(&self) -> bool {
        self.rows.is_empty()
    }

    /// The `i`th row, in the order they were added.
    pub fn get(&self, i: usize) -> Option<PositionRow<'_>> {
        let r = self.rows.get(i)?;
        let start = match i.checked_sub(1).and_then(|j| self.rows.get(j)) {
            Some(prev) => prev.mv_end as usize,
            None => 0,
        };
        Some(PositionRow {
            game_key: self.keys.get(r.game as usize).map_or("", String::as_str),
            ply: r.ply,
            sfen: self.text.get(start..r.sfen_end as usize).unwrap_or(""),
            side: if r.black { "b" } else { "w" },
            mv: self
                .text
                .get(r.sfen_end as usize..r.mv_end as usize)
                .unwrap_or(""),
            time_ms: r.time_ms,
            eval: r.eval.as_deref().cloned(),
            legal: r.legal,
            result: r.result,
        })
    }

    /// Every row, in order.
    pub fn iter(&self) -> impl Iterator<Item = PositionRow<'_>> {
        (0..self.rows.len()).filter_map(|i| self.get(i))
    }
}

/// Bytes reserved for a row's SFEN and move: most take 70 to 80, a hand or a move number of
/// three digits more.
const ROW_TEXT: usize = 96;

/// A text offset as the compact rows keep it (a unit's rows are far below 4 GiB).
fn offset(n: usize) -> u32 {
    u32::try_from(n).unwrap_or(u32::MAX)
}

/// Each square's SFEN text by [`cell`]: nothing for an empty square (index 0), then Black's
/// kinds by index, then White's (their letter in lower case); two bytes, of which the first
/// `len` count (`+` and the letter for a promoted kind).
const CELLS: [([u8; 2], u8); 29] = {
    const KINDS: [&[u8]; 14] = [
        b"P", b"L", b"N", b"S", b"G", b"B", b"R", b"K", b"+P", b"+L", b"+N", b"+S", b"+B", b"+R",
    ];
    let mut t = [([0u8; 2], 0u8); 29];
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
fn cell(p: Option<crate::core::Piece>) -> usize {
    match p {
        None => 0,
        Some(p) => 1 + p.kind.index() + 14 * p.color.index(),
    }
}

/// Writes the SFENs of the successive positions of a game: the ranks a move did not touch
/// are copied from the SFEN before, only the one or two it changed are written again, and the
/// hands are written again only when they changed (a capture or a drop). The SFEN is put
/// together in a buffer on the stack, each rank copied whole (a fixed size, no call), and
/// appended at once.
#[derive(Debug, Clone)]
pub(crate) struct SfenWriter {
    /// Each rank's text (at most nine two-letter pieces), top rank first.
    ranks: [[u8; RANK_TEXT]; 9],
    lens: [u8; 9],
    /// The ranks to write again, a bit each.
    stale: u16,
    /// The hands (Black's, White's) whose text `hands_text` holds, if any yet.
    hands: Option<[Hand; 2]>,
    /// The hands' field (`-` when both are empty).
    hands_text: [u8; HANDS_TEXT],
    hands_len: u8,
    /// Where the SFEN is put together (kept, so it is not cleared for each).
    buf: [u8; SFEN_TEXT],
}

/// Room for a rank's text: nine two-letter pieces, and two bytes of scratch for
/// [`write_rank`].
const RANK_TEXT: usize = 20;

/// Room for the hands' field: seven kinds a side, each at most three digits and a letter.
const HANDS_TEXT: usize = 2 * 7 * 4;

/// Room for a whole SFEN: nine ranks of 18 bytes and their 8 slashes, the side between two
/// spaces, the hands, a space and a move number of at most 10 digits (with slack, so each
/// rank and the hands are copied at their full size).
const SFEN_TEXT: usize = 9 * 18 + 8 + 3 + HANDS_TEXT + 1 + 10 + RANK_TEXT;

impl SfenWriter {
    pub(crate) fn new() -> SfenWriter {
        SfenWriter {
            ranks: [[0; RANK_TEXT]; 9],
            lens: [0; 9],
            stale: 0x1ff,
            hands: None,
            hands_text: [0; HANDS_TEXT],
            hands_len: 0,
            buf: [0; SFEN_TEXT],
        }
    }

    /// `m` is about to be played (or was): the ranks it changes are written again.
    #[inline]
    pub(crate) fn moved(&mut self, m: Move) {
        let bit = |sq: Square| 1u16 << (sq.index() % 9);
        self.stale |= match m {
            Move::Normal { from, to, .. } => bit(from) | bit(to),
            Move::Drop { to, .. } => bit(to),
        };
    }

    /// Appends the SFEN of `pos` (as [`Position::to_sfen`] writes it), which differs from the
    /// position last written by the moves told to [`SfenWriter::moved`] since.
    pub(crate) fn write(&mut self, pos: &Position, out: &mut Vec<u8>) {
        let buf = &mut self.buf;
        let mut n = 0usize;
        for rank in 0..9usize {
            if self.stale & (1 << rank) != 0 {
                self.lens[rank] = write_rank(pos, rank, &mut self.ranks[rank]);
            }
            buf[n..n + RANK_TEXT].copy_from_slice(&self.ranks[rank]);
            n += usize::from(self.lens[rank]);
            buf[n] = b'/';
            n += 1;
        }
        self.stale = 0;
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
            self.hands_len = write_hands(&hands, &mut self.hands_text);
        }
        buf[n..n + HANDS_TEXT].copy_from_slice(&self.hands_text);
        n += usize::from(self.hands_len);
        buf[n] = b' ';
        n += 1;
        n += write_number(&mut buf[n..n + 10], pos.move_number());
        out.extend_from_slice(&buf[..n]);
    }
}

/// Writes the hands' field of an SFEN (Black's pieces, then White's in lower case, each
/// count before its letter when above one; `-` when both are empty); returns its length.
fn write_hands(hands: &[Hand; 2], buf: &mut [u8; HANDS_TEXT]) -> u8 {
    let mut n = 0usize;
    for (c, hand) in Color::ALL.into_iter().zip(hands) {
        for (k, count) in hand.iter() {
            if count > 1 {
                n += write_number(&mut buf[n..n + 3], u32::from(count));
            }
            let l = k.sfen_letter() as u8;
            buf[n] = if c == Color::Black {
                l
            } else {
                l.to_ascii_lowercase()
            };
            n += 1;
        }
    }
    if n == 0 {
        buf[0] = b'-';
        n = 1;
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

/// Writes one rank of the board (0: the top one) into `buf`; returns its length. Without a
/// branch on the squares (about half are empty, in no order a predictor learns): each square
/// writes the pending count of empty squares and its piece's two letters, and only advances
/// past what counts; the bytes past the end are scratch (hence the two spare bytes).
#[inline]
fn write_rank(pos: &Position, rank: usize, buf: &mut [u8; RANK_TEXT]) -> u8 {
    let mut n = 0usize;
    let mut empty = 0usize;
    let board = pos.board();
    for file in (0..9usize).rev() {
        let c = board[file * 9 + rank];
        let (text, len) = CELLS[cell(c)];
        let occupied = usize::from(len != 0);
        // Only read when a piece follows empty squares.
        buf[n] = b'0' + empty as u8;
        n += usize::from(empty != 0) & occupied;
        buf[n] = text[0];
        buf[n + 1] = text[1];
        n += usize::from(len);
        empty = (empty + 1) * (1 - occupied);
    }
    buf[n] = b'0' + empty as u8;
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
mod tests {
    use super::*;
    use crate::formats::{self, Format};

    #[test]
    fn rows_follow_the_main_line_and_flag_fouls() {
        let text = "startpos moves 2g2f 8c8d 2f2e 8d8e 2e2d 2c2d 2h2d 8e8f P*7d P*2c\n";
        let mut g = formats::read(Format::Usi, text).remove(0);
        crate::validate::validate_game(&mut g, &Default::default());
        let mut rows = Positions::new(&g.record, "k".into(), Some(Winner::White));
        let mut seen = Vec::new();
        let mut pos = Position::startpos();
        while let Some(r) = rows.next() {
            assert_eq!(r.sfen, pos.to_sfen(), "ply {}", r.ply);
            let m = Move::from_usi(r.mv).expect("usi");
            assert_eq!(r.mv, m.to_usi());
            let _ = pos.play_unchecked(m);
            seen.push((r.ply, r.side, r.mv.to_owned(), r.legal, r.result));
        }
        assert_eq!(seen.len(), 10);
        assert_eq!(seen[0], (1, "b", "2g2f".to_owned(), true, Some("loss")));
        assert_eq!(seen[1].4, Some("win"));
        assert_eq!(
            seen[8],
            (9, "b", "P*7d".to_owned(), false, Some("loss")),
            "nifu"
        );
        assert!(seen[9].3, "the reply is legal");
    }

    #[test]
    fn engine_comments_give_the_eval_from_the_movers_side_and_the_pv_in_usi() {
        let text = std::fs::read_to_string(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/fixtures/csa/analysis-floodgate.csa"
        ))
        .expect("fixture");
        let mut g = formats::read(Format::Csa, &text).remove(0);
        crate::validate::validate_game(&mut g, &Default::default());
        let mut rows = Positions::new(&g.record, "k".into(), None);
        let mut evals = Vec::new();
        while let Some(r) = rows.next() {
            evals.push(r.eval.clone());
        }
        let e = |cp: i32, pv: &[&str]| {
            Some(EngineEval {
                eval_cp: Some(cp),
                mate: None,
                pv: pv.iter().map(|s| (*s).to_owned()).collect(),
            })
        };
        // Scores are Black's in the file: White's moves (plies 2 and 4) are turned.
        assert_eq!(evals[0], e(30, &["3c3d", "2g2f"]));
        assert_eq!(evals[1], e(45, &["2g2f", "8c8d"]));
        assert_eq!(evals[2], e(52, &["8c8d", "2f2e"]));
        assert_eq!(evals[3], e(0, &[]));
        assert_eq!(evals[4], None, "not an analysis line");
    }

    #[test]
    fn numbers_and_moves_are_written_as_display_writes_them() {
        for n in [0, 1, 9, 10, 99, 100, 4_294_967_295] {
            let mut s = [0u8; 10];
            let len = write_number(&mut s, n);
            assert_eq!(&s[..len], n.to_string().as_bytes());
        }
        let mut pos = Position::startpos();
        let mut rng = 7u64;
        for _ in 0..200 {
            let moves: Vec<Move> = pos.legal_moves().into_iter().copied().collect();
            if moves.is_empty() {
                break;
            }
            rng = rng.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1);
            let m = moves[(rng >> 33) as usize % moves.len()];
            let mut s = String::new();
            write_usi(m, &mut s);
            assert_eq!(s, m.to_usi());
            pos.play(m).expect("legal");
            assert_eq!(sfen(&pos), pos.to_sfen());
        }
        // A board full of promoted pieces (only a lenient start can hold one) still fits.
        let full = "+R+R+R+R+R+R+R+R+R/".repeat(8) + "+r+r+r+r+r+r+r+r+r b - 1";
        let setup = crate::core::Setup::from_sfen(&full).expect("sfen");
        let pos = Position::from_setup_lenient(&setup).expect("lenient");
        assert_eq!(sfen(&pos), pos.to_sfen());
    }
}
