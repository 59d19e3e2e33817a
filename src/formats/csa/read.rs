//! The CSA reader: one pass over the lines, one state machine per game.

use super::info::{header_comment_entry, info_entry};
use crate::core::{Color, Handicap, Piece, PieceKind, Setup, Square};
use crate::diag::{Code, Diagnostic};
use crate::formats::ParsedGame;
use crate::formats::lines;
use crate::record::{
    MoveNode, MoveText, MoveTime, NamedPiece, NodeKind, RawText, Record, Relative, Source, Span,
    Special, SpecialKind, StartPosition, keys,
};

/// Reads CSA text: every game in it (games are separated by `/` lines).
///
/// ```
/// let games = kifu::formats::csa::read("V2.2\nN+a\nN-b\nPI\n+\n+7776FU\nT3\n%TORYO\n");
/// assert_eq!(games.len(), 1);
/// assert_eq!(games[0].record.plies(), 1);
/// assert_eq!(games[0].record.header.player(kifu::core::Color::Black), Some("a"));
/// ```
pub fn read(text: &str) -> Vec<ParsedGame> {
    if super::is_one_line(text) {
        return super::oneline::read(text);
    }
    read_lines(text)
}

/// [`read`] for a text known not to be the one-line CSA: a part of a CSA text (a game between
/// `/` lines, as `validate`'s short way hands it back) is read as the whole text reads it,
/// even where that part alone would look like the one-line CSA.
pub(crate) fn read_lines(text: &str) -> Vec<ParsedGame> {
    let mut games = Vec::new();
    let mut g = Game::new();
    let mut line_no: u32 = 0;
    // Lines are short (`+7776FU`, `T3`): a plain byte loop finds their ends faster than a
    // `str::split`, whose searcher is tuned for long haystacks. LF, CR LF and a lone CR all
    // end a line.
    let bytes = text.as_bytes();
    let mut start = 0usize;
    let cr = lines::has_lone_cr(bytes);
    while start <= bytes.len() {
        let (end, next) = if cr {
            lines::line_at(bytes, start)
        } else {
            lines::line_at_lf(bytes, start)
        };
        // Line ends are ASCII, so both ends are character boundaries.
        let line = text.get(start..end).unwrap_or("");
        let line = line.strip_suffix('\r').unwrap_or(line);
        start = next;
        line_no = line_no.saturating_add(1);
        if super::is_separator(line.as_bytes()) {
            if let Some(done) = g.finish() {
                // Games of one file are alike: room for as many moves as the last one had
                // (and a quarter more) saves regrowing the move vector move by move.
                let plies = done.record.moves.len();
                games.push(done);
                g = Game::new();
                g.moves_hint = plies.saturating_add(plies / 4).min(4096);
            } else {
                g = Game::new();
            }
            continue;
        }
        g.line(line, line_no);
    }
    if let Some(done) = g.finish() {
        games.push(done);
    }
    games
}

/// Where the reader is in a game.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Phase {
    /// Version, names, `$` info, position lines.
    Header,
    /// After the side-to-move line.
    Moves,
}

struct Game {
    record: Record,
    diags: Vec<Diagnostic>,
    phase: Phase,
    /// The position being built by `PI`/`P1..P9`/`P±` lines; `None` until one is seen.
    setup: Option<Setup>,
    /// Anything but blank lines was seen.
    seen: bool,
    /// The previous statement was a move that could not be parsed: its `T` is skipped.
    skip_time: bool,
    /// Moves to make room for when the move section starts.
    moves_hint: usize,
}

impl Game {
    fn new() -> Game {
        Game {
            record: Record::default(),
            diags: Vec::new(),
            phase: Phase::Header,
            setup: None,
            seen: false,
            skip_time: false,
            moves_hint: 0,
        }
    }

    fn syntax(&mut self, msg: impl Into<String>, line: u32, column: u32) {
        self.diags
            .push(Diagnostic::new(Code::Syntax, msg).at(Span::new(line, column)));
    }

    fn finish(mut self) -> Option<ParsedGame> {
        if !self.seen {
            return None;
        }
        if self.phase == Phase::Header {
            self.fix_start(None);
        }
        crate::formats::analysis::extract(&mut self.record, crate::formats::analysis::Family::Csa);
        Some(ParsedGame {
            record: self.record,
            diagnostics: self.diags,
        })
    }

    fn line(&mut self, line: &str, ln: u32) {
        // A BOM before anything of the game is skipped, as the text's own first one is:
        // files joined with `cat` keep each file's BOM at the start of its game.
        let line = match line.strip_prefix('\u{feff}') {
            Some(rest) if !self.seen => rest,
            _ => line,
        };
        let Some(&first) = line.as_bytes().first() else {
            return;
        };
        match first {
            b'\'' => {
                // The V3.0 encoding line is the first of a game; anywhere else it is a
                // comment (the writer puts header comments after its version line).
                let declaration = !self.seen && line.starts_with("'CSA encoding=");
                self.seen = true;
                if !declaration {
                    self.comment(&line[1..], ln);
                }
            }
            b'#' => self.verdict(line, ln),
            b'N' | b'$' => {
                self.seen = true;
                self.info(line, ln);
            }
            b'V' => {
                self.seen = true;
                if !matches!(line.trim_end(), "V1" | "V2" | "V2.1" | "V2.2" | "V3.0") {
                    self.syntax(format!("unknown CSA version line `{line}`"), ln, 1);
                }
            }
            _ => {
                // A line starting with a printable ASCII character is not blank: `trim` (a
                // Unicode scan) only for the others.
                if !matches!(first, b'!'..=b'~') && line.trim().is_empty() {
                    return;
                }
                self.seen = true;
                // Statements joined by commas; a comment runs to the end of the line.
                let mut start = 0usize;
                let bytes = line.as_bytes();
                while start < bytes.len() {
                    if bytes[start] == b'\'' {
                        self.comment(&line[start + 1..], ln);
                        break;
                    }
                    let end = memchr_comma(&bytes[start..]).map_or(bytes.len(), |i| start + i);
                    let mut stmt_end = end;
                    while stmt_end > start && matches!(bytes.get(stmt_end - 1), Some(b' ' | b'\t'))
                    {
                        stmt_end -= 1;
                    }
                    // Only ASCII bytes were stepped over: a character boundary.
                    let stmt = line.get(start..stmt_end).unwrap_or("");
                    let col = column_of(line, start);
                    self.statement(stmt, ln, col);
                    start = end + 1;
                }
            }
        }
    }

    fn comment(&mut self, text: &str, ln: u32) {
        // CRs at the end of a line (`'…\r\r\n`) are line-ending junk, not the comment's text
        // (the writer could not write them back).
        let text = text.trim_end_matches('\r');
        match self.phase {
            Phase::Header => match header_comment_entry(text) {
                Some((key, value)) => self.record.header.push(key, value, Span::new(ln, 1)),
                None => self
                    .record
                    .header
                    .push(keys::HEADER_COMMENT, text, Span::new(ln, 1)),
            },
            Phase::Moves => match self.record.moves.last_mut() {
                Some(node) => node.comments.push(text.to_owned()),
                None => self.record.start_comments.push(text.to_owned()),
            },
        }
    }

    /// An information line: a player's name (`N+`, `N-`) or a `$KEY:value` line.
    fn info(&mut self, line: &str, ln: u32) {
        if let Some((key, value)) = info_entry(line) {
            self.record
                .header
                .push(key.header_key(), value, Span::new(ln, 1));
            return;
        }
        let message = match line.split_once(':') {
            _ if line.starts_with('N') => format!("expected `N+name` or `N-name`, found `{line}`"),
            None => format!("expected `$KEY:value`, found `{line}`"),
            Some((key, _)) => format!("bad game-information key `{key}`"),
        };
        self.syntax(message, ln, 1);
    }

    fn statement(&mut self, stmt: &str, ln: u32, col: u32) {
        let b = stmt.as_bytes();
        if std::mem::take(&mut self.skip_time) && b.first() == Some(&b'T') {
            return;
        }
        match b.first() {
            Some(b'+' | b'-') if b.len() == 1 => self.turn(b[0], ln, col),
            Some(b'+' | b'-') => self.mv(stmt, ln, col),
            Some(b'T') => self.time(stmt, ln, col),
            Some(b'%') => self.special(stmt, ln, col),
            Some(b'P') => self.position(stmt, ln, col),
            _ if stmt.trim().is_empty() => {}
            _ => self.syntax(format!("cannot parse `{stmt}`"), ln, col),
        }
    }

    fn turn(&mut self, sign: u8, ln: u32, col: u32) {
        let color = if sign == b'+' {
            Color::Black
        } else {
            Color::White
        };
        if self.phase == Phase::Moves {
            self.syntax("a side-to-move line after the moves began", ln, col);
            return;
        }
        self.fix_start(Some(color));
    }

    /// Ends the header: fixes the start position (and turn) and starts the move section.
    fn fix_start(&mut self, turn: Option<Color>) {
        self.phase = Phase::Moves;
        self.record.moves.reserve(self.moves_hint);
        let mut setup = match self.setup.take() {
            Some(s) => s,
            // No position lines at all: the even game.
            None => Setup::startpos(),
        };
        if let Some(t) = turn {
            setup.turn = t;
        }
        self.record.start = match recognise(&setup) {
            Some(h) => StartPosition::Preset(h),
            None => StartPosition::Setup(Box::new(setup)),
        };
    }

    fn ensure_moves_phase(&mut self, ln: u32, col: u32, color: Color) {
        if self.phase == Phase::Header {
            self.syntax(
                "no side-to-move line (`+` or `-`) before the moves",
                ln,
                col,
            );
            self.fix_start(if self.setup.is_some() {
                Some(color)
            } else {
                None
            });
        }
    }

    fn mv(&mut self, stmt: &str, ln: u32, col: u32) {
        let b = stmt.as_bytes();
        let color = if b[0] == b'+' {
            Color::Black
        } else {
            Color::White
        };
        let parsed = (|| {
            if b.len() != 7 {
                return None;
            }
            let d = |i: usize| b[i].is_ascii_digit().then(|| b[i] - b'0');
            let (f1, r1, f2, r2) = (d(1)?, d(2)?, d(3)?, d(4)?);
            let from = if f1 == 0 && r1 == 0 {
                Source::Drop
            } else {
                Source::Square(Square::new(f1, r1)?)
            };
            let to = Square::new(f2, r2)?;
            let kind = PieceKind::from_csa_bytes(b[5], b[6])?;
            Some((from, to, kind))
        })();
        let Some((from, to, kind)) = parsed else {
            // The ply of the move lost: the rules replay stops there, quietly, instead of
            // finding the next move out of turn.
            let ply = self.record.plies().saturating_add(1);
            self.syntax(format!("cannot parse move `{stmt}`"), ln, col);
            if let Some(d) = self.diags.last_mut() {
                d.ply = Some(ply);
            }
            self.skip_time = true;
            return;
        };
        self.ensure_moves_phase(ln, col, color);
        self.record
            .moves
            .push(move_node(color, from, to, kind, stmt, Span::new(ln, col)));
    }

    fn time(&mut self, stmt: &str, ln: u32, col: u32) {
        let Some(ms) = parse_seconds(&stmt[1..]) else {
            self.syntax(format!("cannot parse time `{stmt}`"), ln, col);
            return;
        };
        match self.record.moves.last_mut() {
            Some(node) if self.phase == Phase::Moves => {
                node.time.get_or_insert_with(MoveTime::default).elapsed_ms = Some(ms);
            }
            _ => self.syntax(format!("time `{stmt}` before any move"), ln, col),
        }
    }

    fn special(&mut self, stmt: &str, ln: u32, col: u32) {
        let word = &stmt[1..];
        let (kind, side) = match super::special_kind(word) {
            Some(kind) => (kind, kind.named_side()),
            None if !word.is_empty()
                && word
                    .bytes()
                    .all(|c| c.is_ascii_alphanumeric() || matches!(c, b'_' | b'+' | b'-')) =>
            {
                (SpecialKind::Unknown, None)
            }
            _ => {
                self.syntax(format!("cannot parse special move `{stmt}`"), ln, col);
                return;
            }
        };
        let color = self.record.start.to_setup_turn();
        self.ensure_moves_phase(ln, col, color);
        let special = Special {
            kind,
            text: stmt.to_owned(),
            side,
        };
        self.record.moves.push(MoveNode::new(
            NodeKind::Special(special),
            Span::new(ln, col),
        ));
    }

    /// A server's verdict line (`#TIME_UP`) after the moves: the ending, when no `%` line came
    /// before it; then it is checked as the `%` ending would be. Any other `#` line, or a
    /// verdict after an ending, says nothing more.
    fn verdict(&mut self, line: &str, ln: u32) {
        let Some(kind) = super::verdict_kind(line[1..].trim_end()) else {
            return;
        };
        if self.phase != Phase::Moves || self.record.moves.iter().any(|n| n.special().is_some()) {
            return;
        }
        let special = Special {
            kind,
            text: line.trim_end().to_owned(),
            side: None,
        };
        self.record
            .moves
            .push(MoveNode::new(NodeKind::Special(special), Span::new(ln, 1)));
    }

    fn position(&mut self, stmt: &str, ln: u32, col: u32) {
        if self.phase == Phase::Moves {
            self.syntax(
                format!("position line `{stmt}` after the moves began"),
                ln,
                col,
            );
            return;
        }
        let b = stmt.as_bytes();
        match b.get(1) {
            Some(b'I') => self.pi(stmt, ln, col),
            Some(r @ b'1'..=b'9') => self.rank(*r - b'0', stmt, ln, col),
            Some(b'+') => self.placements(Color::Black, stmt, ln, col),
            Some(b'-') => self.placements(Color::White, stmt, ln, col),
            _ => self.syntax(format!("cannot parse position line `{stmt}`"), ln, col),
        }
    }

    fn pi(&mut self, stmt: &str, ln: u32, col: u32) {
        let mut s = Setup::startpos();
        let rest = &stmt.as_bytes()[2..];
        for (i, chunk) in rest.chunks(4).enumerate() {
            let at = col + 2 + (i as u32) * 4;
            let sq = (chunk.len() == 4)
                .then(|| square_of(chunk[0], chunk[1]))
                .flatten();
            let kind = std::str::from_utf8(chunk.get(2..4).unwrap_or(&[]))
                .ok()
                .and_then(PieceKind::from_csa);
            match (sq, kind) {
                (Some(sq), Some(k)) if s.piece_at(sq).map(|p| p.kind) == Some(k) => {
                    s.set_piece(sq, None)
                }
                _ => {
                    let text = String::from_utf8_lossy(chunk).into_owned();
                    self.syntax(format!("`PI`: cannot remove `{text}`"), ln, at);
                }
            }
        }
        self.setup = Some(s);
    }

    fn rank(&mut self, rank: u8, stmt: &str, ln: u32, col: u32) {
        let setup = self.setup.get_or_insert_with(Setup::empty);
        let b = stmt.as_bytes();
        let mut i = 2usize;
        let mut file = 9u8;
        let mut bad: Option<usize> = None;
        // Blanks between squares are skipped: mail and HTML collapse a row's runs of spaces
        // (` * * *`), and its last square may lack its trailing space.
        while i < b.len() && file > 0 {
            match b[i] {
                b' ' => i += 1,
                b'*' => {
                    if let Some(sq) = Square::new(file, rank) {
                        setup.set_piece(sq, None);
                    }
                    file -= 1;
                    i += 1;
                }
                c @ (b'+' | b'-') => {
                    let kind = stmt.get(i + 1..i + 3).and_then(PieceKind::from_csa);
                    match (kind, file) {
                        (Some(k), 1..=9) => {
                            let color = if c == b'+' {
                                Color::Black
                            } else {
                                Color::White
                            };
                            if let Some(sq) = Square::new(file, rank) {
                                setup.set_piece(sq, Some(Piece::new(color, k)));
                            }
                            file -= 1;
                            i += 3;
                        }
                        _ => {
                            bad = Some(i);
                            break;
                        }
                    }
                }
                _ => {
                    bad = Some(i);
                    break;
                }
            }
        }
        if let Some(i) = bad {
            let at = col + column_of(stmt, i) - 1;
            self.syntax(format!("cannot parse board row `{stmt}`"), ln, at);
            return;
        }
        // A row is nine squares. A shorter row leaves the rest of its rank as it was (empty);
        // squares past the ninth, or anything else there but blanks, are not read. Either is the row's shape, not the position's: `syntax`, where the row
        // goes wrong.
        if file > 0 {
            let at = col + column_of(stmt, b.len()) - 1;
            let n = 9 - file;
            self.syntax(
                format!("board row `{stmt}` has {n} squares, not nine"),
                ln,
                at,
            );
        } else if let Some(off) = b
            .get(i..)
            .and_then(|r| r.iter().position(|c| !c.is_ascii_whitespace()))
            // An empty ninth square spelled ` *.` (the dot in the place of its trailing
            // space) is a real writer's spelling (seen in an elmo vs YaneuraOu export, the
            // shared corpus's mog-core-scala csa/game/002.csa): read as empty, no finding.
            .filter(|&off| !(off == 0 && b.get(i - 1) == Some(&b'*') && &b[i..] == b"."))
        {
            let i = i + off;
            let at = col + column_of(stmt, i) - 1;
            let what = match b.get(i) {
                Some(b'*' | b'+' | b'-') => "more than nine squares",
                _ => "something after the ninth square",
            };
            self.syntax(format!("board row `{stmt}` has {what}"), ln, at);
        }
    }

    fn placements(&mut self, color: Color, stmt: &str, ln: u32, col: u32) {
        let setup = self.setup.get_or_insert_with(Setup::empty);
        let rest = &stmt.as_bytes()[2..];
        let mut errors = Vec::new();
        for (i, chunk) in rest.chunks(4).enumerate() {
            let at = col + 2 + (i as u32) * 4;
            if chunk == b"00AL" {
                fill_rest(setup, color);
                continue;
            }
            let kind = std::str::from_utf8(chunk.get(2..4).unwrap_or(&[]))
                .ok()
                .and_then(PieceKind::from_csa);
            let ok = match (chunk.len(), chunk.first(), chunk.get(1), kind) {
                (4, Some(b'0'), Some(b'0'), Some(k)) if k.unpromote().is_hand_kind() => {
                    setup.hands.get_mut(color).add(k.unpromote());
                    true
                }
                (4, Some(&f), Some(&r), Some(k)) => match square_of(f, r) {
                    Some(sq) => {
                        setup.set_piece(sq, Some(Piece::new(color, k)));
                        true
                    }
                    None => false,
                },
                _ => false,
            };
            if !ok {
                errors.push((String::from_utf8_lossy(chunk).into_owned(), at));
            }
        }
        for (text, at) in errors {
            self.syntax(format!("cannot place `{text}`"), ln, at);
        }
    }
}

/// The standard position a setup is, checking the even game first without building all 16.
fn recognise(setup: &Setup) -> Option<Handicap> {
    static EVEN: std::sync::OnceLock<Setup> = std::sync::OnceLock::new();
    let even = EVEN.get_or_init(Setup::startpos);
    if setup.board == even.board && setup.hands == even.hands {
        return (setup.turn == even.turn).then_some(Handicap::Even);
    }
    // Handicaps have empty hands and at most 40 pieces, all of Black's in place.
    if !setup.hands.black.is_empty() || !setup.hands.white.is_empty() {
        return None;
    }
    Handicap::recognise(setup)
}

/// `00AL`: every piece not on the board or in a hand goes to `color`'s hand (kings excepted).
fn fill_rest(setup: &mut Setup, color: Color) {
    let mut used = [0u8; 7];
    for p in setup.board.iter().flatten() {
        let k = p.kind.unpromote();
        if k.is_hand_kind() {
            used[k.index()] = used[k.index()].saturating_add(1);
        }
    }
    for c in Color::ALL {
        for (k, n) in setup.hands.get(c).iter() {
            used[k.index()] = used[k.index()].saturating_add(n);
        }
    }
    let hand = setup.hands.get_mut(color);
    for k in PieceKind::HAND {
        let rest = k.set_count().saturating_sub(used[k.index()]);
        hand.set(k, hand.count(k).saturating_add(rest));
    }
}

fn square_of(f: u8, r: u8) -> Option<Square> {
    if !f.is_ascii_digit() || !r.is_ascii_digit() {
        return None;
    }
    Square::new(f - b'0', r - b'0')
}

fn memchr_comma(b: &[u8]) -> Option<usize> {
    b.iter().position(|&c| c == b',')
}

/// 1-based character column of byte offset `at` in `line`.
fn column_of(line: &str, at: usize) -> u32 {
    let prefix = line.get(..at).unwrap_or(line);
    let n = if prefix.is_ascii() {
        prefix.len()
    } else {
        prefix.chars().count()
    };
    u32::try_from(n).unwrap_or(u32::MAX - 1) + 1
}

/// `12` → 12000, `6.123` → 6123, `0.5` → 500 (digits beyond milliseconds are dropped).
pub(crate) fn parse_seconds(s: &str) -> Option<u64> {
    let (int, frac) = match s.split_once('.') {
        Some((i, f)) => (i, f),
        None => (s, ""),
    };
    if int.is_empty() || !int.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    if !frac.bytes().all(|b| b.is_ascii_digit()) || (s.contains('.') && frac.is_empty()) {
        return None;
    }
    let secs: u64 = int.parse().ok()?;
    let mut ms = 0u64;
    for (i, d) in frac.bytes().take(3).enumerate() {
        ms += u64::from(d - b'0') * [100, 10, 1][i];
    }
    secs.checked_mul(1000)?.checked_add(ms)
}

trait TurnOf {
    fn to_setup_turn(&self) -> Color;
}

impl TurnOf for StartPosition {
    fn to_setup_turn(&self) -> Color {
        match self {
            StartPosition::Preset(Handicap::Even) => Color::Black,
            StartPosition::Preset(_) => Color::White,
            StartPosition::Setup(s) => s.turn,
        }
    }
}

/// The node of a CSA move written `raw` (as the line or the one-line record has it), read as
/// `color` moving `kind` (the kind after the move) from `from` to `to`, at `span`: the move
/// as both CSA readers make it.
pub(super) fn move_node(
    color: Color,
    from: Source,
    to: Square,
    kind: PieceKind,
    raw: &str,
    span: Span,
) -> MoveNode {
    let text = MoveText {
        color: Some(color),
        from,
        to,
        same: false,
        piece: Some(NamedPiece::After(kind)),
        promote: None,
        relative: Relative::default(),
        raw: RawText::from(raw),
    };
    MoveNode::new(
        NodeKind::Move {
            text,
            resolved: None,
        },
        span,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seconds() {
        assert_eq!(parse_seconds("12"), Some(12_000));
        assert_eq!(parse_seconds("6.123"), Some(6_123));
        assert_eq!(parse_seconds("0.5"), Some(500));
        assert_eq!(parse_seconds("1.23456"), Some(1_234));
        assert_eq!(parse_seconds(""), None);
        assert_eq!(parse_seconds("1."), None);
        assert_eq!(parse_seconds("-1"), None);
    }
}
