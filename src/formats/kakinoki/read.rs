//! The reader shared by KIF and KI2: each line classified and told to a
//! [`Visitor`](crate::formats::visit::Visitor) as it is read. The record is the
//! [`Builder`](crate::formats::visit::Builder)'s work.
//!
//! Formats layer: uses `core` and `record`, nothing above.

use super::Dialect;
use super::grammar::*;
use super::spelling::{Cp932, Spelling, Utf8, decode_cp932_line};
use super::text::*;
use crate::core::{Color, Hand, Handicap, Piece, Setup, Square};
use crate::diag::{Code, Diagnostic};
use crate::formats::ParsedGame;
use crate::formats::analysis::Family;
use crate::formats::lines;
use crate::formats::visit::{Builder, GameReader, Skip, Visitor, WrittenMove, WrittenSpecial};
use crate::record::{MoveTime, NodeKind, Span, StartPosition};

/// A line of play as the reader follows it (the main line or a variation): what the rules of
/// `同` and of `変化` blocks read, not its moves.
pub(super) struct Line {
    /// Ply of its first node, as the text numbers moves.
    start_ply: u32,
    /// Ply of its first node counted from the start of the game (what the visitor is told).
    told_ply: u32,
    /// The destination of each node's move (`None` for a special).
    dests: Vec<Option<Square>>,
    /// Destination of the move before this line's first node (for `同`).
    prev_to: Option<Square>,
    /// Comments and bookmark read before this line's first node (told after it).
    pending_comments: Vec<String>,
    pending_bookmark: Option<String>,
    /// Whether `start_ply` came from a written number.
    numbered: bool,
    /// Nesting depth (0 for the main line).
    depth: u32,
}

/// Deepest nesting of variations kept (a variation of a variation ... of the main line):
/// deeper blocks are reported and dropped, so that no input can build a tree whose recursive
/// handling (validate, writers, clone, drop) exhausts a worker thread's stack: 3,000 levels
/// overflowed it; 1,000 are validated and converted to every format in app/tests/cli/hostile.rs. No
/// real record nests anywhere near this deep.
pub(crate) const MAX_DEPTH: u32 = 1000;

impl Line {
    fn new(start_ply: u32, told_ply: u32, prev_to: Option<Square>, variation: bool) -> Line {
        Line {
            start_ply,
            told_ply,
            dests: Vec::new(),
            prev_to,
            pending_comments: Vec::new(),
            pending_bookmark: None,
            numbered: variation,
            depth: 0,
        }
    }

    /// The destination of the last move before index `idx`.
    fn to_before(&self, idx: usize) -> Option<Square> {
        let mut i = idx;
        while i > 0 {
            match self.dests.get(i - 1) {
                Some(Some(to)) => return Some(*to),
                Some(None) => i -= 1,
                None => return None,
            }
        }
        self.prev_to
    }

    /// Whether the line's last node is a move (not a special).
    fn ends_in_move(&self) -> bool {
        self.dests.last().is_some_and(|d| d.is_some())
    }
}

/// Whether `c` is a KI2 side mark (one compare rules out almost every other character).
#[inline]
fn is_mark(c: char) -> bool {
    ('\u{25B2}'..='\u{2617}').contains(&c) && mark_color(c).is_some()
}

/// A node as the reader tells it, borrowed from the text or from a node the grammar built.
enum Told<'a> {
    Move(WrittenMove<'a>),
    Special(WrittenSpecial<'a>),
}

impl<'a> Told<'a> {
    fn of(kind: &'a NodeKind) -> Told<'a> {
        match kind {
            NodeKind::Move { text, .. } => Told::Move(WrittenMove::of_text(text, None)),
            NodeKind::Special(sp) => Told::Special(WrittenSpecial {
                kind: sp.kind,
                text: &sp.text,
                side: sp.side,
                number: None,
            }),
        }
    }
}

/// A board-diagram row as read: its nine cells as drawn (leftmost first) and the rank
/// written after it, if any.
type Row = ([Option<Piece>; 9], Option<u8>);

/// Board-diagram state.
#[derive(Default)]
pub(super) struct Bod {
    seen: bool,
    /// The rows, in the order drawn (the board is built once all are read, as a `盤面反転`
    /// line may come before or after them).
    rows: Vec<Row>,
    hands: [Hand; 2],
    turn: Option<Color>,
    /// `盤面反転`: the diagram is drawn from White's side (turned half a circle).
    flipped: bool,
    /// `手数＝N`: moves played before the position (the SFEN move number is N + 1).
    plies: Option<u32>,
    /// The rows drawn (read or not) and the line of the last: a diagram has nine.
    drawn: u32,
    last_row: u32,
}

impl Bod {
    /// The board the rows draw: each row at the rank written after it, or counted from the
    /// top (rank 1 first; rank 9 first when the diagram is drawn from White's side). A
    /// diagram drawn from White's side (`盤面反転`) is the usual one turned half a circle: its
    /// leftmost cell is file 1, and its `v` pieces, drawn upside down at the top, are
    /// Black's. `None` when there are no rows.
    fn board(&self) -> Option<Setup> {
        if self.rows.is_empty() {
            return None;
        }
        let mut board = Setup::empty();
        let mut prev: u8 = if self.flipped { 10 } else { 0 };
        for (cells, rank) in &self.rows {
            let rank = rank.unwrap_or(if self.flipped {
                prev.saturating_sub(1)
            } else {
                prev.saturating_add(1)
            });
            prev = rank;
            for (i, cell) in cells.iter().enumerate() {
                let (file, piece) = if self.flipped {
                    (
                        i as u8 + 1,
                        cell.map(|p| Piece::new(p.color.flip(), p.kind)),
                    )
                } else {
                    (9 - i as u8, *cell)
                };
                if let Some(sq) = Square::new(file, rank) {
                    board.set_piece(sq, piece);
                }
            }
        }
        Some(board)
    }
}

pub(super) struct Parser<'v, V> {
    v: &'v mut V,
    dialect: Dialect,
    lines: Vec<Line>,
    stack: Vec<usize>,
    /// The line moves go to; `None` after a bad `変化` line (moves are dropped).
    cur: Option<usize>,
    seen_move: bool,
    handicap: Option<Handicap>,
    bod: Bod,
    /// A position line came after the first move (the start is told again at the end).
    late_position: bool,
    /// A bookmark on the start was told.
    start_bookmark: bool,
    /// The footer of the main line was told.
    footer: bool,
}

/// Reads KIF or KI2 text into one game.
pub(crate) fn parse(text: &str, dialect: Dialect) -> ParsedGame {
    tell(text, dialect, &mut builder(text.len()))
}

/// The record builder for a text of `len` bytes.
fn builder(len: usize) -> Builder {
    Builder::new(Some(Family::Kakinoki)).with_moves_hint(len / 48)
}

/// Tells `v` the game of a KIF or KI2 text.
pub(crate) fn tell<V: Visitor>(text: &str, dialect: Dialect, v: &mut V) -> V::Output {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let mut p = Parser::new(v, dialect, text.len());
    each_line(text.as_bytes(), |start, end, no| {
        let line = text.get(start..end).unwrap_or("");
        p.line(line, no);
        true
    });
    p.finish()
}

/// Tells `v` the game of a KIF text in CP932 (its bytes after any BOM): what [`tell`] tells
/// of the text they decode to, or `None` (the game told in part) when a line does not decode
/// cleanly. A move line in the common layout is read from its bytes ([`Cp932`]); every other
/// line is decoded alone.
pub(crate) fn tell_cp932<V: Visitor>(bytes: &[u8], v: &mut V) -> Option<V::Output> {
    let mut p = Parser::new(v, Dialect::Kif, bytes.len());
    let mut decoded = String::new();
    let mut raw = String::new();
    let whole = each_line(bytes, |start, end, no| {
        let line = bytes.get(start..end).unwrap_or_default();
        if let Some((Some(number), col, body, (mv, len, time))) = cp932_move_line(line) {
            raw.clear();
            // The start is told first: what the visitor needs may follow from it.
            p.begin_moves();
            let bytes = body.get(..len).unwrap_or_default();
            let withheld = !p.v.needs_text();
            if withheld || Cp932::push_to(bytes, &mut raw).is_some() {
                if withheld {
                    p.v.withheld(bytes);
                }
                let mv = WrittenMove { raw: &raw, ..mv };
                p.push_node(Told::Move(mv), time, Some(number), None, Span::new(no, col));
                return true;
            }
        }
        decoded.clear();
        if !decode_cp932_line(line, &mut decoded) {
            return false;
        }
        p.line(&decoded, no);
        true
    });
    whole.then(|| p.finish())
}

/// A KIF move line in CP932 in the common layout, as [`cp932_move_line`] reads it: the number
/// (`None` when it does not fit a `u32`), the body's column, the body, and what
/// [`kif_move_in`] reads of it (the move, the length of its text, its time).
type Cp932MoveLine<'b> = (
    Option<u32>,
    u32,
    &'b [u8],
    (WrittenMove<'static>, usize, Option<MoveTime>),
);

/// A KIF move line in CP932 in the common layout, read from its bytes.
#[inline(always)]
fn cp932_move_line(line: &[u8]) -> Option<Cp932MoveLine<'_>> {
    let (number, off, col) = move_number_in::<Cp932>(line)?;
    let body = line.get(off..)?;
    Some((number, col, body, kif_move_in::<Cp932>(body)?))
}

/// At most this many lines that are not blank are looked through for the first move line
/// (the format is told from the first 400).
const FIRST_MOVE_WITHIN: usize = 400;

/// The end (the index of its line end, or of the text's end) of the first line of a KIF text
/// in CP932 that is a move line in the common layout, looked for among the first
/// [`FIRST_MOVE_WITHIN`] lines that are not blank. Such a line has at most five fields
/// between ASCII spaces, so it is never taken for a one-line CSA header.
pub(crate) fn cp932_first_move_end(bytes: &[u8]) -> Option<usize> {
    let mut seen = 0;
    let mut found = None;
    each_line(bytes, |start, end, _| {
        let line = bytes.get(start..end).unwrap_or_default();
        if cp932_move_line(line).is_some() {
            found = Some(end);
            return false;
        }
        if !line.trim_ascii().is_empty() {
            seen += 1;
        }
        seen <= FIRST_MOVE_WITHIN
    });
    found
}

/// Calls `f` with the start, the end and the number of each line of `bytes` (LF, CR LF and a
/// lone CR end a line; the end is before them) until it returns `false`; whether it never
/// did.
#[inline(always)]
fn each_line(bytes: &[u8], mut f: impl FnMut(usize, usize, u32) -> bool) -> bool {
    // Lines split by hand: short lines make a byte loop faster than `split('\n')`.
    let mut start = 0;
    let mut lineno: u32 = 0;
    let cr = lines::has_lone_cr(bytes);
    while start <= bytes.len() {
        // KIF lines are long enough (forty bytes and more) for a vector search to pay.
        let (mut end, next) = if cr {
            lines::line_at(bytes, start)
        } else {
            match memchr::memchr(b'\n', bytes.get(start..).unwrap_or_default()) {
                Some(i) => (start + i, start + i + 1),
                None => (bytes.len(), bytes.len() + 1),
            }
        };
        if end > start && bytes.get(end - 1) == Some(&b'\r') {
            end -= 1;
        }
        lineno = lineno.saturating_add(1);
        if !f(start, end, lineno) {
            return false;
        }
        start = next;
    }
    true
}

/// Where a [`Reader`]'s game is: text, or CP932 bytes.
enum Text<'t> {
    Utf8(&'t str),
    Cp932(&'t [u8]),
}

/// The streaming reader of a KIF or KI2 text, which holds one game: it tells a
/// [`Visitor`](crate::formats::visit::Visitor) the game through
/// [`GameReader`](crate::formats::visit::GameReader).
pub struct Reader<'t> {
    text: Text<'t>,
    dialect: Dialect,
    /// The game was read.
    read: bool,
    /// A line of the CP932 bytes did not decode cleanly: no game was read.
    undecodable: bool,
}

impl<'t> Reader<'t> {
    /// The reader of `text` (after any BOM) as `dialect`.
    pub fn new(text: &'t str, dialect: Dialect) -> Reader<'t> {
        Reader {
            text: Text::Utf8(text),
            dialect,
            read: false,
            undecodable: false,
        }
    }

    /// The reader of a KIF text in CP932, its bytes after any BOM, read without decoding them
    /// whole ([`tell_cp932`]).
    pub(crate) fn cp932(bytes: &'t [u8]) -> Reader<'t> {
        Reader {
            text: Text::Cp932(bytes),
            dialect: Dialect::Kif,
            read: false,
            undecodable: false,
        }
    }

    /// Whether the CP932 bytes were found not to decode cleanly: then the reader read no game
    /// (whatever it told the visitor is to be dropped), and the bytes are to be decoded whole.
    pub(crate) fn undecodable(&self) -> bool {
        self.undecodable
    }
}

impl GameReader for Reader<'_> {
    fn read_game<V: Visitor>(&mut self, visitor: &mut V) -> Option<V::Output> {
        if std::mem::replace(&mut self.read, true) {
            return None;
        }
        match self.text {
            Text::Utf8(text) => Some(tell(text, self.dialect, visitor)),
            Text::Cp932(bytes) => {
                let told = tell_cp932(bytes, visitor);
                self.undecodable = told.is_none();
                told
            }
        }
    }

    fn last_game_record(&mut self) -> Option<ParsedGame> {
        if !self.read || self.undecodable {
            return None;
        }
        match self.text {
            Text::Utf8(text) => Some(parse(text, self.dialect)),
            Text::Cp932(bytes) => tell_cp932(bytes, &mut builder(bytes.len())),
        }
    }
}

impl<'v, V: Visitor> Parser<'v, V> {
    /// A parser of a text of `len` bytes, which has told `v` that the game begins.
    fn new(v: &'v mut V, dialect: Dialect, len: usize) -> Parser<'v, V> {
        v.begin_game(1);
        let mut main = Line::new(1, 1, None, false);
        main.dests.reserve(len / 48);
        Parser {
            v,
            dialect,
            lines: vec![main],
            stack: vec![0],
            cur: Some(0),
            seen_move: false,
            handicap: None,
            bod: Bod::default(),
            late_position: false,
            start_bookmark: false,
            footer: false,
        }
    }
}

impl<V: Visitor> Parser<'_, V> {
    fn err(&mut self, msg: impl Into<String>, line: u32, col: u32) {
        self.v
            .diagnostic(Diagnostic::new(Code::Syntax, msg).at(Span::new(line, col)));
    }

    /// The moves begin (a move line, good or bad, or a KI2 ending): the start is told.
    #[inline(always)]
    fn begin_moves(&mut self) {
        if !self.seen_move {
            self.tell_start();
        }
    }

    /// The first move line: the start is told.
    #[cold]
    fn tell_start(&mut self) {
        self.seen_move = true;
        let start = self.start_position();
        self.v.start(&start);
    }

    /// The start position the diagram and the handicap lines read so far give.
    fn start_position(&self) -> StartPosition {
        if self.bod.seen {
            let mut setup = match self.bod.board() {
                Some(b) => b,
                None => self.handicap.unwrap_or(Handicap::Even).setup(),
            };
            setup.hands.black = self.bod.hands[0];
            setup.hands.white = self.bod.hands[1];
            if let Some(turn) = self.bod.turn {
                setup.turn = turn;
            } else if !self.bod.rows.is_empty() {
                setup.turn = Color::Black;
            }
            if let Some(n) = self.bod.plies {
                setup.move_number = n.saturating_add(1);
            }
            StartPosition::Setup(Box::new(setup))
        } else {
            StartPosition::Preset(self.handicap.unwrap_or(Handicap::Even))
        }
    }

    fn line(&mut self, line: &str, no: u32) {
        let t = line.trim_end_matches(is_space);
        if t.is_empty() || t.starts_with('#') {
            return;
        }
        // Lines whose first character decides their class (rules 9, 10 and 4 cannot clash
        // with any earlier rule), for speed.
        match t.as_bytes().first() {
            Some(b'*') => {
                self.comment(line.get(1..).unwrap_or(""));
                return;
            }
            Some(b'&') => {
                self.bookmark(t.get(1..).unwrap_or(""));
                return;
            }
            Some(b'|') => {
                self.position_line_check(no);
                self.board_row(t, no);
                return;
            }
            _ => {}
        }
        // 6. KIF move line (checked first: rules 2-5 never start with a space or a digit)
        if let Some((number, body_off, col)) = move_number_in::<Utf8>(t.as_bytes()) {
            self.kif_move_line(t, body_off, col, number, no);
            return;
        }
        // 2. 手合割
        if let Some(v) = header_value(line, "手合割") {
            self.position_line_check(no);
            self.handicap = Handicap::from_kif_name(v);
            self.v.header("手合割", v, Span::new(no, 1));
            return;
        }
        // 3. hands
        if let Some((c, v)) = hand_key(t) {
            self.position_line_check(no);
            self.hand_line(v, c, t, no);
            return;
        }
        // 4. board row
        if t.starts_with('|') {
            self.position_line_check(no);
            self.board_row(t, no);
            return;
        }
        // 5. side to move
        match t {
            "先手番" | "下手番" => {
                self.position_line_check(no);
                self.bod.seen = true;
                self.bod.turn = Some(Color::Black);
                return;
            }
            "後手番" | "上手番" => {
                self.position_line_check(no);
                self.bod.seen = true;
                self.bod.turn = Some(Color::White);
                return;
            }
            _ => {}
        }
        // 7. KI2 move line
        let lead2 = t.len() - t.trim_start_matches(is_space).len();
        if t.get(lead2..)
            .and_then(|r| r.chars().next())
            .and_then(mark_color)
            .is_some()
        {
            self.ki2_line(t, lead2, no);
            return;
        }
        // 8. variation
        if let Some(v) = header_value(t, "変化") {
            self.variation(v, t, no);
            return;
        }
        // 9. comment
        if let Some(c) = t.strip_prefix('*') {
            // Keep the comment as written (only the line ending is removed).
            let c = line.strip_prefix('*').unwrap_or(c);
            self.comment(c);
            return;
        }
        // 10. bookmark
        if let Some(b) = t.strip_prefix('&') {
            self.bookmark(b);
            return;
        }
        // 11. footer
        if t.starts_with("まで") {
            self.footer(t, no);
            return;
        }
        // 12. header
        if let Some((key, value_off)) = header_line(t) {
            // Keep the value as written, trailing spaces included.
            let value = line.get(value_off..).unwrap_or("");
            self.v.header(key, value, Span::new(no, 1));
            return;
        }
        // `手数＝N` before the moves: the moves played before the diagram's position.
        if !self.seen_move
            && let Some(n) = ply_count(t)
        {
            self.bod.plies = Some(n);
            return;
        }
        if trim_spaces(t) == "盤面反転" {
            self.position_line_check(no);
            self.bod.flipped = true;
            return;
        }
        if is_decoration(t) {
            return;
        }
        // A comment line indented with spaces (`  *text`, as some writers put comments in
        // the header): a comment all the same, its text after the `*`.
        if let Some(c) = trim_spaces(t).strip_prefix('*') {
            let at = line.find('*').map_or(0, |i| i + 1);
            let c = line.get(at..).unwrap_or(c);
            self.comment(c);
            return;
        }
        self.err(format!("cannot parse line: {t}"), no, 1);
    }

    fn position_line_check(&mut self, no: u32) {
        if self.seen_move {
            self.err("position line after the first move", no, 1);
            self.late_position = true;
        }
    }

    fn hand_line(&mut self, v: &str, color: Color, t: &str, no: u32) {
        self.bod.seen = true;
        let base = t.len() - v.len();
        match hand(v) {
            Ok(hand) => self.bod.hands[color.index()] = hand,
            Err((at, msg)) => self.err(msg, no, column(t, base + at)),
        }
    }

    fn board_row(&mut self, t: &str, no: u32) {
        self.bod.seen = true;
        // A diagram has nine rows: the tenth is reported (once), too few when all are read.
        self.bod.drawn = self.bod.drawn.saturating_add(1);
        self.bod.last_row = no;
        if self.bod.drawn == 10 {
            self.err("a board diagram has nine rows; this is a tenth", no, 1);
        }
        let row = match board_row(t) {
            Ok(row) => row,
            Err(RowError::At(at, msg)) => {
                self.err(msg, no, column(t, at));
                return;
            }
            Err(RowError::Cells) => {
                self.err("a board row needs nine cells between `|`", no, 1);
                return;
            }
        };
        // More than nine rows are kept too: each goes where its rank says (or past the
        // board, where it is dropped), as rows were placed before.
        if self.bod.rows.len() < 64 {
            self.bod.rows.push(row);
        }
    }

    /// The ply (counted from 1 as the replay counts) a move that cannot be read stands at,
    /// when it stands on the main line: the main line's replay stops quietly before it. A
    /// variation's bad move stops no replay.
    fn unread_ply(&self) -> Option<u32> {
        let line = self.lines.first().filter(|_| self.cur == Some(0))?;
        Some(u32::try_from(line.dests.len()).map_or(u32::MAX, |n| n.saturating_add(1)))
    }

    /// Tells a node of the current line, filling `同` and checking the number: `number` as
    /// read (KIF), `written` the digits of a KIF number too large for a `u32`, which are no
    /// ply either and are reported as written (`None` for any other line).
    #[inline(always)]
    fn push_node(
        &mut self,
        mut node: Told<'_>,
        time: Option<MoveTime>,
        number: Option<u32>,
        written: Option<&str>,
        span: Span,
    ) {
        self.begin_moves();
        let Some(cur) = self.cur else { return };
        let Some(line) = self.lines.get_mut(cur) else {
            return;
        };
        if line.dests.is_empty() && !line.numbered {
            if let Some(n) = number {
                line.start_ply = n;
            }
            line.numbered = true;
        }
        let idx = line.dests.len();
        let expected = line.start_ply.saturating_add(idx as u32);
        let wrong = match (number, written) {
            (Some(n), _) if n != expected => Some(n.to_string()),
            (None, Some(digits)) => Some(digits.to_owned()),
            _ => None,
        };
        if let Some(n) = wrong {
            self.v.diagnostic(
                Diagnostic::new(
                    Code::MoveNumber,
                    format!("move number {n} where {expected} was expected"),
                )
                .at(Span::new(span.line, 1))
                .ply(expected),
            );
        }
        if let Told::Move(mv) = &mut node
            && mv.same
        {
            match line.to_before(idx) {
                Some(to) => mv.to = to,
                None => {
                    let raw = mv.raw.to_owned();
                    self.v.diagnostic(
                        Diagnostic::new(Code::Syntax, "同 with no previous move")
                            .at(span)
                            .ply(expected)
                            .with_move(raw),
                    );
                    return;
                }
            }
        }
        match &mut node {
            Told::Move(mv) => {
                line.dests.push(Some(mv.to));
                mv.number = number;
                self.v.mv(mv, span);
            }
            Told::Special(sp) => {
                line.dests.push(None);
                sp.number = number;
                self.v.special(sp, span);
            }
        }
        if let Some(t) = time {
            self.v.time(t, span);
        }
        if idx == 0 {
            self.flush_pending(cur);
        }
    }

    /// Tells the comments and bookmark read before line `i`'s first node.
    fn flush_pending(&mut self, i: usize) {
        let Some(line) = self.lines.get_mut(i) else {
            return;
        };
        for c in std::mem::take(&mut line.pending_comments) {
            self.v.comment(&c, Span::default());
        }
        if let Some(b) = line.pending_bookmark.take() {
            self.v.bookmark(&b);
        }
    }

    /// A KIF move line `t` whose body starts at byte `body_off`, in column `col`.
    fn kif_move_line(&mut self, t: &str, body_off: usize, col: u32, number: Option<u32>, no: u32) {
        let body = t.get(body_off..).unwrap_or("");
        // The digits as written, for a number too large to read.
        let written = number
            .is_none()
            .then(|| t.get(..body_off).map(trim_spaces))
            .flatten();
        let span = Span::new(no, col);
        if let Some((mv, time)) = kif_move_fast(body) {
            self.push_node(Told::Move(mv), time, number, written, span);
            return;
        }
        match kif_move_by_grammar(body) {
            Ok((kind, time)) => self.push_node(Told::of(&kind), time, number, written, span),
            Err(e) => {
                self.begin_moves();
                let mv = trim_spaces(body).to_string();
                let mut d = Diagnostic::new(Code::Syntax, format!("bad move line: {}", e.msg))
                    .at(Span::new(no, column(t, body_off + e.at)))
                    .with_move(mv);
                d.ply = self.unread_ply();
                self.v.diagnostic(d);
                // Later moves of this line would be misplaced: drop them.
                self.cur = None;
            }
        }
    }

    fn ki2_line(&mut self, t: &str, start: usize, no: u32) {
        // Each token runs from its side mark to the next; columns are counted as the tokens
        // are walked.
        let mut col = column(t, start);
        let mut rest = t.get(start..).unwrap_or("");
        while let Some(first) = rest.chars().next() {
            let lead = first.len_utf8();
            let (mut end, mut chars) = (rest.len(), 1u32);
            for (i, c) in rest.get(lead..).unwrap_or("").char_indices() {
                if is_mark(c) {
                    end = lead + i;
                    break;
                }
                chars += 1;
            }
            let (tok, after) = rest.split_at(end);
            rest = after;
            let at = col;
            col = col.saturating_add(chars);
            // A program comment ends the line.
            let (tok, stop) = match tok.find('#') {
                Some(i) => (tok.get(..i).unwrap_or(tok), true),
                None => (tok, false),
            };
            let tok = tok.trim_end_matches(is_space);
            let span = Span::new(no, at);
            if let Some(mv) = ki2_token_fast(tok) {
                self.push_node(Told::Move(mv), None, None, None, span);
            } else {
                match ki2_token_by_grammar(tok) {
                    Ok(kind) => self.push_node(Told::of(&kind), None, None, None, span),
                    Err(e) => {
                        self.begin_moves();
                        let col = at + column(tok, e.at) - 1;
                        let mut d = Diagnostic::new(Code::Syntax, format!("bad move: {}", e.msg))
                            .at(Span::new(no, col))
                            .with_move(tok.to_string());
                        d.ply = self.unread_ply();
                        self.v.diagnostic(d);
                        self.cur = None;
                        return;
                    }
                }
            }
            if stop {
                return;
            }
        }
    }

    fn variation(&mut self, v: &str, t: &str, no: u32) {
        if !self.seen_move {
            // A 変化 line in the header area is a writer bug: ignore it.
            return;
        }
        if V::SKIP.contains(Skip::VARIATIONS) {
            // Variations follow the main line: nothing after this line is told.
            self.cur = None;
            return;
        }
        let v = match v.find('#') {
            Some(i) => v.get(..i).unwrap_or(v),
            None => v,
        };
        let Some(n) = variation_ply(v) else {
            self.err(
                "bad variation line (expected `変化：N手`)",
                no,
                column(t, t.len() - v.len()),
            );
            self.cur = None;
            return;
        };
        // The block attaches to the most recently opened line it fits (docs/formats.md §1.9,
        // as tsshogi reads it): a line holding ply n (the block is an alternative to that
        // move), or the variation the moves before went on, when its last move is ply n - 1
        // (the block continues it, as `変化：5手目` after a block of plies 3 and 4; not after a
        // block that was not read). Lines it fits neither way are closed.
        let last_read = self.cur;
        while self.stack.len() > 1 {
            let top = self.stack.last().copied().unwrap_or(0);
            let fits = self.lines.get(top).is_some_and(|l| {
                let at = n.saturating_sub(l.start_ply) as usize;
                l.start_ply < n
                    && (at < l.dests.len()
                        || (at == l.dests.len() && last_read == Some(top) && l.ends_in_move()))
            });
            if fits {
                break;
            }
            self.stack.pop();
            self.v.end_variation();
        }
        let top = self.stack.last().copied().unwrap_or(0);
        let Some(parent) = self.lines.get(top) else {
            return;
        };
        if parent.depth > 0 && (n - parent.start_ply) as usize == parent.dests.len() {
            // A continuation of the variation: its moves go on the same line.
            self.cur = Some(top);
            return;
        }
        let Some(idx) = n.checked_sub(parent.start_ply).map(|i| i as usize) else {
            self.err(
                format!("variation at ply {n} is before the first move"),
                no,
                1,
            );
            self.cur = None;
            return;
        };
        if idx >= parent.dests.len() {
            // Past the end of the line so far (one ply after it included): an alternative to
            // a move that is not there. Joining it to the line would make moves that no
            // line holds part of the game without a word; it is reported and not read.
            let last = (parent.start_ply as usize + parent.dests.len()).saturating_sub(1);
            self.err(
                format!(
                    "variation at ply {n} is past the end of its line (ply {last}); its \
                     moves are not read"
                ),
                no,
                1,
            );
            self.cur = None;
            return;
        }
        let prev_to = parent.to_before(idx);
        let depth = parent.depth + 1;
        if depth > MAX_DEPTH {
            self.err(
                format!("variations nested deeper than {MAX_DEPTH} levels are not read"),
                no,
                1,
            );
            self.cur = None;
            return;
        }
        let told_ply = parent.told_ply.saturating_add(idx as u32);
        let mut line = Line::new(n, told_ply, prev_to, true);
        line.depth = depth;
        self.lines.push(line);
        let new = self.lines.len() - 1;
        self.stack.push(new);
        self.cur = Some(new);
        self.v.begin_variation(told_ply, Span::new(no, 1));
    }

    fn comment(&mut self, c: &str) {
        if V::SKIP.contains(Skip::COMMENTS) {
            return;
        }
        if !self.seen_move {
            self.v.comment(c, Span::default());
            return;
        }
        let Some(line) = self.cur.and_then(|i| self.lines.get_mut(i)) else {
            return;
        };
        if line.dests.is_empty() {
            line.pending_comments.push(c.to_owned());
        } else {
            self.v.comment(c, Span::default());
        }
    }

    fn bookmark(&mut self, b: &str) {
        // A bookmark is a one-line label: a CR left at its end (a line `&name\r\t`, whose
        // CR is not part of a CRLF ending) is dropped with the trailing spaces, as it could
        // not be written back: `&name\r\n` reads as `name`.
        let b = b.trim_end_matches(|c| is_space(c) || c == '\r');
        if !self.seen_move {
            self.v.bookmark(b);
            self.start_bookmark = true;
            return;
        }
        let Some(line) = self.cur.and_then(|i| self.lines.get_mut(i)) else {
            return;
        };
        if line.dests.is_empty() {
            line.pending_bookmark = Some(b.to_owned());
        } else {
            self.v.bookmark(b);
        }
    }

    /// Tells what was read before the main line's first node, which has none: the start's.
    fn flush_main_pending(&mut self) {
        let Some(main) = self.lines.first_mut() else {
            return;
        };
        let comments = std::mem::take(&mut main.pending_comments);
        let bookmark = main.pending_bookmark.take();
        for c in comments {
            self.v.comment(&c, Span::default());
        }
        if let Some(b) = bookmark
            && !self.start_bookmark
        {
            self.v.bookmark(&b);
            self.start_bookmark = true;
        }
    }

    fn footer(&mut self, t: &str, no: u32) {
        let footer = parse_footer(t, Span::new(no, 1));
        let on_main = self.cur == Some(0);
        if self.dialect == Dialect::Ki2
            && let Some(special) = footer.ending()
            && let Some(cur) = self.cur
            && self
                .lines
                .get(cur)
                .is_some_and(|l| l.dests.last().is_none_or(|d| d.is_some()))
        {
            // What waits for the main line's first node is the start's: told before the
            // ending that takes that place (a variation's waits in vain).
            if cur == 0 && self.lines.first().is_some_and(|l| l.dests.is_empty()) {
                self.flush_main_pending();
            }
            // Comments after the ending are the ending's, even when no move came before it.
            self.begin_moves();
            if let Some(line) = self.lines.get_mut(cur) {
                line.dests.push(None);
            }
            let special = WrittenSpecial {
                kind: special.kind,
                text: &special.text,
                side: special.side,
                number: None,
            };
            self.v.special(&special, Span::new(no, 1));
        }
        if on_main && !self.footer {
            self.footer = true;
            self.v.footer(&footer);
        }
    }

    fn finish(mut self) -> V::Output {
        if (1..9).contains(&self.bod.drawn) {
            let (n, at) = (self.bod.drawn, self.bod.last_row);
            self.err(
                format!("the board diagram has {n} rows, not nine (the last is here)"),
                at,
                1,
            );
        }
        if !self.seen_move || self.late_position {
            // No move: the start is told now; a position line after the first move changed
            // it: told again.
            let start = self.start_position();
            self.v.start(&start);
        }
        self.flush_main_pending();
        for _ in 1..self.stack.len() {
            self.v.end_variation();
        }
        self.v.end_game()
    }
}

/// The N of a `手数＝N …` line (a board diagram's count of the moves played before it,
/// followed perhaps by the last move and `まで`), in ASCII or full-width digits.
fn ply_count(t: &str) -> Option<u32> {
    let rest = trim_spaces(t).strip_prefix("手数")?;
    let rest = rest.strip_prefix('＝').or_else(|| rest.strip_prefix('='))?;
    let rest = rest.trim_start_matches(is_space);
    let mut n: u32 = 0;
    let mut digits = 0;
    for c in rest.chars() {
        let d = match c {
            '0'..='9' => c as u32 - '0' as u32,
            '０'..='９' => c as u32 - '０' as u32,
            _ => break,
        };
        n = n.checked_mul(10)?.checked_add(d)?;
        digits += 1;
    }
    (digits > 0).then_some(n)
}

/// Lines that carry no data: the move-list heading, the diagram's ruler and frame, etc.
pub(super) fn is_decoration(t: &str) -> bool {
    let t = trim_spaces(t);
    t.starts_with("手数")
        || t.starts_with("盤面回転")
        || t.starts_with('+') && t.chars().all(|c| c == '+' || c == '-')
        || t.chars().all(|c| is_space(c) || digit_value(c).is_some())
}

#[cfg(test)]
mod tests;
