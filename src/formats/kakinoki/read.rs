//! The reader shared by KIF and KI2.
//!
//! Formats layer: uses `core` and `record`, nothing above.

use super::Dialect;
use super::grammar::*;
use super::text::*;
use crate::core::{Color, Hand, Handicap, Piece, Setup, Square};
use crate::diag::{Code, Diagnostic};
use crate::formats::ParsedGame;
use crate::formats::lines;
use crate::record::{MoveNode, NodeKind, Record, Span, StartPosition};

/// A line of play being built: the main line or a variation.
pub(super) struct Line {
    /// Ply of its first node.
    start_ply: u32,
    nodes: Vec<MoveNode>,
    /// (line, node index) this line is an alternative to.
    parent: Option<(usize, usize)>,
    /// Destination of the move before this line's first node (for `同`).
    prev_to: Option<Square>,
    /// Comments and bookmark read before this line's first node.
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
/// overflowed it; 1,000 are validated and converted to every format in tests/cli/hostile.rs. No
/// real record nests anywhere near this deep.
pub(crate) const MAX_DEPTH: u32 = 1000;

impl Line {
    fn new(start_ply: u32, parent: Option<(usize, usize)>, prev_to: Option<Square>) -> Line {
        Line {
            start_ply,
            nodes: Vec::new(),
            parent,
            prev_to,
            pending_comments: Vec::new(),
            pending_bookmark: None,
            numbered: parent.is_some(),
            depth: 0,
        }
    }

    /// The destination of the last move before index `idx`.
    fn to_before(&self, idx: usize) -> Option<Square> {
        if idx == 0 {
            return self.prev_to;
        }
        match self.nodes.get(idx - 1).map(|n| &n.kind) {
            Some(NodeKind::Move { text, .. }) => Some(text.to),
            Some(NodeKind::Special(_)) => self.to_before(idx - 1),
            None => None,
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

pub(super) struct Parser {
    dialect: Dialect,
    record: Record,
    diags: Vec<Diagnostic>,
    lines: Vec<Line>,
    stack: Vec<usize>,
    /// The line moves go to; `None` after a bad `変化` line (moves are dropped).
    cur: Option<usize>,
    seen_move: bool,
    handicap: Option<Handicap>,
    bod: Bod,
}

/// Reads KIF or KI2 text into one game.
pub(crate) fn parse(text: &str, dialect: Dialect) -> ParsedGame {
    let mut p = Parser {
        dialect,
        record: Record::default(),
        diags: Vec::new(),
        lines: vec![Line::new(1, None, None)],
        stack: vec![0],
        cur: Some(0),
        seen_move: false,
        handicap: None,
        bod: Bod::default(),
    };
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    if let Some(main) = p.lines.first_mut() {
        main.nodes.reserve(text.len() / 48);
    }
    // Lines split by hand: short lines make a byte loop faster than `split('\n')`. LF,
    // CR LF and a lone CR all end a line.
    let bytes = text.as_bytes();
    let mut start = 0;
    let mut lineno: u32 = 0;
    let cr = lines::has_lone_cr(bytes);
    while start <= bytes.len() {
        let (end, next) = if cr {
            lines::line_at(bytes, start)
        } else {
            lines::line_at_lf(bytes, start)
        };
        lineno = lineno.saturating_add(1);
        let line = text.get(start..end).unwrap_or("");
        p.line(line.strip_suffix('\r').unwrap_or(line), lineno);
        start = next;
    }
    p.finish()
}

impl Parser {
    fn err(&mut self, msg: impl Into<String>, line: u32, col: u32) {
        self.diags
            .push(Diagnostic::new(Code::Syntax, msg).at(Span::new(line, col)));
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
                self.comment(line.get(1..).unwrap_or("").to_string());
                return;
            }
            Some(b'&') => {
                self.bookmark(t.get(1..).unwrap_or("").to_string());
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
        if let Some((number, body_off)) = move_number(t) {
            self.kif_move_line(t, body_off, number, no);
            return;
        }
        // 2. 手合割
        if let Some(v) = header_value(line, "手合割") {
            self.position_line_check(no);
            self.handicap = Handicap::from_kif_name(v);
            self.record
                .header
                .push("手合割", v.to_string(), Span::new(no, 1));
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
            self.comment(c.to_string());
            return;
        }
        // 10. bookmark
        if let Some(b) = t.strip_prefix('&') {
            self.bookmark(b.to_string());
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
            self.record.header.push(key, value, Span::new(no, 1));
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
            self.comment(c.to_string());
            return;
        }
        self.err(format!("cannot parse line: {t}"), no, 1);
    }

    fn position_line_check(&mut self, no: u32) {
        if self.seen_move {
            self.err("position line after the first move", no, 1);
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
        Some(u32::try_from(line.nodes.len()).map_or(u32::MAX, |n| n.saturating_add(1)))
    }

    fn cur_line(&mut self) -> Option<&mut Line> {
        self.cur.and_then(|c| self.lines.get_mut(c))
    }

    /// Appends a node to the current line, filling `同` and checking the number: `number` as
    /// read (KIF), `written` the digits of a KIF number too large for a `u32`, which are no
    /// ply either and are reported as written (`None` for any other line).
    fn push_node(
        &mut self,
        mut node: MoveNode,
        number: Option<u32>,
        written: Option<&str>,
        no: u32,
        col: u32,
    ) {
        self.seen_move = true;
        let Some(cur) = self.cur else { return };
        let Some(line) = self.lines.get_mut(cur) else {
            return;
        };
        if line.nodes.is_empty() && !line.numbered {
            if let Some(n) = number {
                line.start_ply = n;
            }
            line.numbered = true;
        }
        let idx = line.nodes.len();
        let expected = line.start_ply.saturating_add(idx as u32);
        let wrong = match (number, written) {
            (Some(n), _) if n != expected => Some(n.to_string()),
            (None, Some(digits)) => Some(digits.to_owned()),
            _ => None,
        };
        if let Some(n) = wrong {
            self.diags.push(
                Diagnostic::new(
                    Code::MoveNumber,
                    format!("move number {n} where {expected} was expected"),
                )
                .at(Span::new(no, 1))
                .ply(expected),
            );
        }
        if let NodeKind::Move { text, .. } = &mut node.kind
            && text.same
        {
            match line.to_before(idx) {
                Some(to) => text.to = to,
                None => {
                    let raw = text.raw.to_string();
                    self.diags.push(
                        Diagnostic::new(Code::Syntax, "同 with no previous move")
                            .at(Span::new(no, col))
                            .ply(expected)
                            .with_move(raw),
                    );
                    return;
                }
            }
        }
        if idx == 0 {
            node.comments.append(&mut line.pending_comments);
            if node.bookmark.is_none() {
                node.bookmark = line.pending_bookmark.take();
            }
        }
        line.nodes.push(node);
    }

    fn kif_move_line(&mut self, t: &str, body_off: usize, number: Option<u32>, no: u32) {
        let body = t.get(body_off..).unwrap_or("");
        let col = column(t, body_off);
        match parse_kif_move(body) {
            Ok((kind, time)) => {
                let mut node = MoveNode::new(kind, Span::new(no, col));
                node.time = time;
                node.number = number;
                // The digits as written, for a number too large to read.
                let written = number
                    .is_none()
                    .then(|| t.get(..body_off).map(trim_spaces))
                    .flatten();
                self.push_node(node, number, written, no, col);
            }
            Err(e) => {
                self.seen_move = true;
                let mv = trim_spaces(body).to_string();
                let mut d = Diagnostic::new(Code::Syntax, format!("bad move line: {}", e.msg))
                    .at(Span::new(no, column(t, body_off + e.at)))
                    .with_move(mv);
                d.ply = self.unread_ply();
                self.diags.push(d);
                // Later moves of this line would be misplaced: drop them.
                self.cur = None;
            }
        }
    }

    fn ki2_line(&mut self, t: &str, start: usize, no: u32) {
        let mut starts: Vec<usize> = t
            .char_indices()
            .filter(|&(i, c)| i >= start && mark_color(c).is_some())
            .map(|(i, _)| i)
            .collect();
        starts.push(t.len());
        for w in starts.windows(2) {
            let (a, b) = (w[0], w[1]);
            let tok = t.get(a..b).unwrap_or("");
            // A program comment ends the line.
            let (tok, stop) = match tok.find('#') {
                Some(i) => (tok.get(..i).unwrap_or(tok), true),
                None => (tok, false),
            };
            let tok = tok.trim_end_matches(is_space);
            let col = column(t, a);
            match parse_ki2_token(tok) {
                Ok(kind) => {
                    let node = MoveNode::new(kind, Span::new(no, col));
                    self.push_node(node, None, None, no, col);
                }
                Err(e) => {
                    self.seen_move = true;
                    let mut d = Diagnostic::new(Code::Syntax, format!("bad move: {}", e.msg))
                        .at(Span::new(no, column(t, a + e.at)))
                        .with_move(tok.to_string());
                    d.ply = self.unread_ply();
                    self.diags.push(d);
                    self.cur = None;
                    return;
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
                    && (at < l.nodes.len()
                        || (at == l.nodes.len()
                            && last_read == Some(top)
                            && l.nodes.last().is_some_and(|m| m.special().is_none())))
            });
            if fits {
                break;
            }
            self.stack.pop();
        }
        let top = self.stack.last().copied().unwrap_or(0);
        let Some(parent) = self.lines.get(top) else {
            return;
        };
        if parent.depth > 0 && (n - parent.start_ply) as usize == parent.nodes.len() {
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
        if idx >= parent.nodes.len() {
            // Past the end of the line so far (one ply after it included): an alternative to
            // a move that is not there. Joining it to the line would make moves that no
            // line holds part of the game without a word; it is reported and not read.
            let last = (parent.start_ply as usize + parent.nodes.len()).saturating_sub(1);
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
        let mut line = Line::new(n, Some((top, idx)), prev_to);
        line.depth = depth;
        self.lines.push(line);
        let new = self.lines.len() - 1;
        self.stack.push(new);
        self.cur = Some(new);
    }

    fn comment(&mut self, c: String) {
        if !self.seen_move {
            self.record.start_comments.push(c);
            return;
        }
        if let Some(line) = self.cur_line() {
            match line.nodes.last_mut() {
                Some(n) => n.comments.push(c),
                None => line.pending_comments.push(c),
            }
        }
    }

    fn bookmark(&mut self, b: String) {
        // A bookmark is a one-line label: a CR left at its end (a line `&name\r\t`, whose
        // CR is not part of a CRLF ending) is dropped with the trailing spaces, as it could
        // not be written back: `&name\r\n` reads as `name`.
        let b = match b.trim_end_matches(|c| is_space(c) || c == '\r') {
            t if t.len() == b.len() => b,
            t => t.to_string(),
        };
        if !self.seen_move {
            self.record.start_bookmark = Some(b);
            return;
        }
        if let Some(line) = self.cur_line() {
            match line.nodes.last_mut() {
                Some(n) => n.bookmark = Some(b),
                None => line.pending_bookmark = Some(b),
            }
        }
    }

    fn footer(&mut self, t: &str, no: u32) {
        let footer = parse_footer(t, Span::new(no, 1));
        let on_main = self.cur == Some(0);
        if self.dialect == Dialect::Ki2
            && let Some(special) = footer.ending()
            && let Some(cur) = self.cur
            && let Some(line) = self.lines.get_mut(cur)
            && line.nodes.last().is_none_or(|n| n.special().is_none())
        {
            let node = MoveNode::new(NodeKind::Special(special), Span::new(no, 1));
            line.nodes.push(node);
            // Comments after the ending are the ending's, even when no move came before it.
            self.seen_move = true;
        }
        if on_main && self.record.footer.is_none() {
            self.record.footer = Some(footer);
        }
    }

    fn finish(mut self) -> ParsedGame {
        if (1..9).contains(&self.bod.drawn) {
            let (n, at) = (self.bod.drawn, self.bod.last_row);
            self.err(
                format!("the board diagram has {n} rows, not nine (the last is here)"),
                at,
                1,
            );
        }
        // Start position.
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
            self.record.start = StartPosition::Setup(Box::new(setup));
        } else if let Some(h) = self.handicap {
            self.record.start = StartPosition::Preset(h);
        }
        // Pending comments of an empty main line belong to the start.
        if let Some(main) = self.lines.first_mut() {
            let mut c = std::mem::take(&mut main.pending_comments);
            self.record.start_comments.append(&mut c);
            if self.record.start_bookmark.is_none() {
                self.record.start_bookmark = main.pending_bookmark.take();
            }
        }
        // Attach variations, deepest (latest) first so every line is complete when moved.
        for i in (1..self.lines.len()).rev() {
            let nodes = std::mem::take(&mut self.lines[i].nodes);
            let Some((p, idx)) = self.lines[i].parent else {
                continue;
            };
            if nodes.is_empty() {
                continue;
            }
            if let Some(node) = self.lines.get_mut(p).and_then(|l| l.nodes.get_mut(idx)) {
                node.variations.insert(0, nodes);
            }
        }
        self.record.moves = self
            .lines
            .first_mut()
            .map(|l| std::mem::take(&mut l.nodes))
            .unwrap_or_default();
        crate::formats::analysis::extract(
            &mut self.record,
            crate::formats::analysis::Family::Kakinoki,
        );
        ParsedGame {
            record: self.record,
            diagnostics: self.diags,
        }
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
