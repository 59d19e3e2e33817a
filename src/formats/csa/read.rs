//! The CSA reader: one pass over the lines, one state machine per game, telling a
//! [`Visitor`] what each line says ([`Reader`]); [`read`] builds the records with the
//! [`Builder`].

use super::info::{header_comment_entry, info_entry};
use crate::core::{Color, Handicap, Piece, PieceKind, Setup, Square};
use crate::diag::{Code, Diagnostic};
use crate::formats::ParsedGame;
use crate::formats::analysis::Family;
use crate::formats::lines;
use crate::formats::visit::{Builder, GameReader, Skip, Visitor, WrittenMove, WrittenSpecial};
use crate::record::{MoveTime, Span, SpecialKind, StartPosition, keys};

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

/// [`read`] for a text known not to be the one-line CSA.
pub(crate) fn read_lines(text: &str) -> Vec<ParsedGame> {
    let mut reader = Reader::new(text);
    let mut builder = Builder::new(Some(Family::Csa));
    let mut games = Vec::new();
    while let Some(game) = reader.read_game(&mut builder) {
        games.push(game);
    }
    games
}

/// The games of a CSA text of lines (not the one-line CSA, which [`read`] tells apart), one
/// at a time, each told to a [`Visitor`].
///
/// ```
/// use kifu::formats::csa::Reader;
/// use kifu::formats::visit::{Visitor, WrittenMove};
/// use kifu::record::Span;
///
/// /// Counts the moves of each game.
/// struct Plies(u32);
/// impl Visitor for Plies {
///     type Output = u32;
///     fn begin_game(&mut self, _line: u32) {
///         self.0 = 0;
///     }
///     fn mv(&mut self, _mv: &WrittenMove<'_>, _span: Span) {
///         self.0 += 1;
///     }
///     fn end_game(&mut self) -> u32 {
///         self.0
///     }
/// }
///
/// let mut reader = Reader::new("PI\n+\n+7776FU\n-3334FU\n/\nPI\n+\n+2726FU\n");
/// let mut plies = Plies(0);
/// assert_eq!(reader.read_game(&mut plies), Some(2));
/// assert_eq!(reader.read_game(&mut plies), Some(1));
/// assert_eq!(reader.read_game(&mut plies), None);
/// ```
#[derive(Debug, Clone)]
pub struct Reader<'t> {
    text: &'t str,
    /// Byte offset of the next line (past the end once the text is read).
    at: usize,
    /// Lines read so far.
    line_no: u32,
    /// The text holds a lone CR (else only LFs end lines).
    cr: bool,
    /// Where the game read last began (after the `/` line before it) and the lines before it.
    game_at: (usize, u32),
}

impl<'t> Reader<'t> {
    /// A reader at the start of `text`.
    pub fn new(text: &'t str) -> Reader<'t> {
        Reader {
            text,
            at: 0,
            line_no: 0,
            cr: lines::has_lone_cr(text.as_bytes()),
            game_at: (0, 0),
        }
    }

    /// Reads the next game, telling `visitor` what it says; `None` when the text holds no
    /// more game.
    pub fn read_game<V: Visitor>(&mut self, visitor: &mut V) -> Option<V::Output> {
        let bytes = self.text.as_bytes();
        let mut g = Game::new(visitor);
        self.game_at = (self.at, self.line_no);
        while self.at <= bytes.len() {
            let start = self.at;
            // The usual move line and its line feed (`+7776FU`), read as one word.
            if let Some(word) = bytes
                .get(start..start.wrapping_add(8))
                .and_then(|b| <[u8; 8]>::try_from(b).ok())
                && let Some((color, from, to, kind)) = move_word(u64::from_le_bytes(word))
            {
                self.at = start + 8;
                self.line_no = self.line_no.saturating_add(1);
                let raw = self.text.get(start..start + 7).unwrap_or("");
                g.see(self.line_no);
                g.skip_time = false;
                g.parsed_move(color, from, to, kind, raw, self.line_no, 1);
                continue;
            }
            // The usual time line (`T12`, `T1.5`) and its line feed.
            if let Some((ms, len)) = time_word(bytes, start) {
                self.at = start + len + 1;
                self.line_no = self.line_no.saturating_add(1);
                g.see(self.line_no);
                if !std::mem::take(&mut g.skip_time) {
                    let stmt = self.text.get(start..start + len).unwrap_or("");
                    g.time_ms(ms, stmt, self.line_no, 1);
                }
                continue;
            }
            let (end, next) = if self.cr {
                lines::line_at(bytes, start)
            } else {
                lines::line_at_lf(bytes, start)
            };
            // Line ends are ASCII, so both ends are character boundaries.
            let line = self.text.get(start..end).unwrap_or("");
            let line = line.strip_suffix('\r').unwrap_or(line);
            self.at = next;
            self.line_no = self.line_no.saturating_add(1);
            if super::is_separator(line.as_bytes()) {
                if g.seen {
                    return g.finish();
                }
                // Nothing but blanks before it: no game; the next one starts after it.
                self.game_at = (self.at, self.line_no);
                continue;
            }
            g.line(line, self.line_no);
        }
        g.finish()
    }
}

impl GameReader for Reader<'_> {
    fn has_variations(&self) -> bool {
        false
    }

    fn read_game<V: Visitor>(&mut self, visitor: &mut V) -> Option<V::Output> {
        Reader::read_game(self, visitor)
    }

    fn last_game_record(&mut self) -> Option<ParsedGame> {
        let (from, lines_before) = self.game_at;
        let to = self.at.min(self.text.len());
        let mut again = Reader {
            line_no: lines_before,
            ..Reader::new(self.text.get(from..to).unwrap_or(""))
        };
        again.read_game(&mut Builder::new(Some(Family::Csa)))
    }
}

/// Where the reader is in a game.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Phase {
    /// Version, names, `$` info, position lines.
    Header,
    /// After the side-to-move line.
    Moves,
}

/// One game being read, told to `v` line by line.
struct Game<'v, V> {
    v: &'v mut V,
    phase: Phase,
    /// The position being built by `PI`/`P1..P9`/`P±` lines; `None` until one is seen, and
    /// after a bare `PI` (the usual case), which [`Game::setup`] makes only if another
    /// position line follows.
    setup: Option<Setup>,
    /// The last position line was a bare `PI`: the even position.
    bare_pi: bool,
    /// Anything but blank lines was seen (and the visitor told the game began).
    seen: bool,
    /// The previous statement was a move that could not be parsed: its `T` is skipped.
    skip_time: bool,
    /// Moves told so far.
    plies: u32,
    /// Moves and specials told so far.
    nodes: u32,
    /// A special was told.
    ended: bool,
    /// The side to move at the start, once fixed.
    start_turn: Color,
}

impl<'v, V: Visitor> Game<'v, V> {
    fn new(v: &'v mut V) -> Game<'v, V> {
        Game {
            v,
            phase: Phase::Header,
            setup: None,
            bare_pi: false,
            seen: false,
            skip_time: false,
            plies: 0,
            nodes: 0,
            ended: false,
            start_turn: Color::Black,
        }
    }

    /// Something of substance at line `ln`: the game begins there, if it has not yet.
    #[inline]
    fn see(&mut self, ln: u32) {
        if !self.seen {
            self.seen = true;
            self.v.begin_game(ln);
        }
    }

    fn syntax(&mut self, msg: impl Into<String>, line: u32, column: u32) {
        self.v
            .diagnostic(Diagnostic::new(Code::Syntax, msg).at(Span::new(line, column)));
    }

    fn finish(mut self) -> Option<V::Output> {
        if !self.seen {
            return None;
        }
        if self.phase == Phase::Header {
            self.fix_start(None);
        }
        Some(self.v.end_game())
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
                self.see(ln);
                if !declaration {
                    self.comment(&line[1..], ln, 1);
                }
            }
            b'#' => self.verdict(line, ln),
            b'N' | b'$' => {
                self.see(ln);
                self.info(line, ln);
            }
            b'V' => {
                self.see(ln);
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
                self.see(ln);
                // Statements joined by commas; a comment runs to the end of the line.
                let mut start = 0usize;
                let bytes = line.as_bytes();
                while start < bytes.len() {
                    if bytes[start] == b'\'' {
                        let col = column_of(line, start);
                        self.comment(&line[start + 1..], ln, col);
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

    fn comment(&mut self, text: &str, ln: u32, col: u32) {
        // CRs at the end of a line (`'…\r\r\n`) are line-ending junk, not the comment's text
        // (the writer could not write them back).
        let text = text.trim_end_matches('\r');
        match self.phase {
            Phase::Header => match header_comment_entry(text) {
                Some((key, value)) => self.v.header(key, value, Span::new(ln, 1)),
                None => self.v.header(keys::HEADER_COMMENT, text, Span::new(ln, 1)),
            },
            Phase::Moves if V::SKIP.contains(Skip::COMMENTS) => {}
            Phase::Moves => self.v.comment(text, Span::new(ln, col)),
        }
    }

    /// An information line: a player's name (`N+`, `N-`) or a `$KEY:value` line.
    fn info(&mut self, line: &str, ln: u32) {
        if let Some((key, value)) = info_entry(line) {
            self.v.header(key.header_key(), value, Span::new(ln, 1));
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

    /// Ends the header: fixes the start position (and turn), tells it, and starts the move
    /// section.
    fn fix_start(&mut self, turn: Option<Color>) {
        self.phase = Phase::Moves;
        self.bare_pi = false;
        let start = match self.setup.take() {
            // No position lines at all: the even game, Black to move (or White, told so).
            None if turn != Some(Color::White) => StartPosition::Preset(Handicap::Even),
            None => start_of(Setup::startpos(), turn),
            Some(setup) => start_of(setup, turn),
        };
        self.start_turn = match &start {
            StartPosition::Preset(Handicap::Even) => Color::Black,
            StartPosition::Preset(_) => Color::White,
            StartPosition::Setup(s) => s.turn,
        };
        self.v.start(&start);
    }

    #[inline]
    fn ensure_moves_phase(&mut self, ln: u32, col: u32, color: Color) {
        if self.phase == Phase::Header {
            self.moves_without_turn(ln, col, color);
        }
    }

    /// A move or special before the side-to-move line.
    #[cold]
    #[inline(never)]
    fn moves_without_turn(&mut self, ln: u32, col: u32, color: Color) {
        self.syntax(
            "no side-to-move line (`+` or `-`) before the moves",
            ln,
            col,
        );
        self.fix_start(if self.setup.is_some() || self.bare_pi {
            Some(color)
        } else {
            None
        });
    }

    fn mv(&mut self, stmt: &str, ln: u32, col: u32) {
        let b = stmt.as_bytes();
        let color = if b[0] == b'+' {
            Color::Black
        } else {
            Color::White
        };
        let parsed = <[u8; 6]>::try_from(&b[1..])
            .ok()
            .and_then(|[f1, r1, f2, r2, k1, k2]| move_parts([f1, r1, f2, r2], k1, k2));
        let Some((from, to, kind)) = parsed else {
            // The ply of the move lost: the rules replay stops there, quietly, instead of
            // finding the next move out of turn.
            let ply = self.plies.saturating_add(1);
            let d = Diagnostic::new(Code::Syntax, format!("cannot parse move `{stmt}`"))
                .at(Span::new(ln, col))
                .ply(ply);
            self.v.diagnostic(d);
            self.skip_time = true;
            return;
        };
        self.parsed_move(color, from, to, kind, stmt, ln, col);
    }

    /// A move read: `color` moves to `to` from `from` (`None`: a drop), the piece being `kind`
    /// after it, written `raw` at line `ln`, column `col`.
    #[allow(clippy::too_many_arguments)]
    #[inline(always)]
    fn parsed_move(
        &mut self,
        color: Color,
        from: Option<Square>,
        to: Square,
        kind: PieceKind,
        raw: &str,
        ln: u32,
        col: u32,
    ) {
        self.ensure_moves_phase(ln, col, color);
        self.plies = self.plies.saturating_add(1);
        self.nodes = self.nodes.saturating_add(1);
        let mv = WrittenMove::csa(color, from, to, kind, raw);
        self.v.mv(&mv, Span::new(ln, col));
    }

    fn time(&mut self, stmt: &str, ln: u32, col: u32) {
        let Some(ms) = parse_seconds(&stmt[1..]) else {
            self.syntax(format!("cannot parse time `{stmt}`"), ln, col);
            return;
        };
        self.time_ms(ms, stmt, ln, col);
    }

    /// The time `stmt` (`T12`), of `ms` milliseconds, at line `ln`, column `col`.
    #[inline(always)]
    fn time_ms(&mut self, ms: u64, stmt: &str, ln: u32, col: u32) {
        if self.nodes == 0 || self.phase != Phase::Moves {
            self.syntax(format!("time `{stmt}` before any move"), ln, col);
            return;
        }
        if !V::SKIP.contains(Skip::TIMES) {
            let time = MoveTime {
                elapsed_ms: Some(ms),
                total_ms: None,
            };
            self.v.time(time, Span::new(ln, col));
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
        let color = self.start_turn;
        self.ensure_moves_phase(ln, col, color);
        self.told_special(kind, stmt, side, Span::new(ln, col));
    }

    fn told_special(&mut self, kind: SpecialKind, text: &str, side: Option<Color>, span: Span) {
        self.nodes = self.nodes.saturating_add(1);
        self.ended = true;
        self.v.special(
            &WrittenSpecial {
                kind,
                text,
                side,
                number: None,
            },
            span,
        );
    }

    /// A server's verdict line (`#TIME_UP`) after the moves: the ending, when no `%` line came
    /// before it; then it is checked as the `%` ending would be. Any other `#` line, or a
    /// verdict after an ending, says nothing more.
    fn verdict(&mut self, line: &str, ln: u32) {
        let Some(kind) = super::verdict_kind(line[1..].trim_end()) else {
            return;
        };
        if self.phase != Phase::Moves || self.ended {
            return;
        }
        self.told_special(kind, line.trim_end(), None, Span::new(ln, 1));
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
    /// The position the position lines have built so far.
    fn setup(&mut self) -> &mut Setup {
        if std::mem::take(&mut self.bare_pi) {
            self.setup = Some(Setup::startpos());
        }
        self.setup.get_or_insert_with(Setup::empty)
    }

    fn pi(&mut self, stmt: &str, ln: u32, col: u32) {
        let rest = &stmt.as_bytes()[2..];
        if rest.is_empty() {
            self.setup = None;
            self.bare_pi = true;
            return;
        }
        self.bare_pi = false;
        let mut s = Setup::startpos();
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
        let setup = self.setup();
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
        let setup = self.setup();
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

/// `12` → 12000, `6.123` → 6123, `0.5` → 500 (digits beyond milliseconds are dropped):
/// digits, then maybe `.` and at least one digit; `None` for anything else or an overflow.
#[inline]
pub(crate) fn parse_seconds(s: &str) -> Option<u64> {
    let b = s.as_bytes();
    let int = b.iter().take_while(|c| c.is_ascii_digit()).count();
    let (digits, frac) = b.split_at(int);
    let frac = match frac {
        [] => frac,
        [b'.', f @ ..] if !f.is_empty() && f.iter().all(u8::is_ascii_digit) => f,
        _ => return None,
    };
    if digits.is_empty() {
        return None;
    }
    let mut secs: u64 = 0;
    for &d in digits {
        secs = secs.checked_mul(10)?.checked_add(u64::from(d - b'0'))?;
    }
    let mut ms = 0;
    for (&d, scale) in frac.iter().zip([100, 10, 1]) {
        ms += u64::from(d - b'0') * scale;
    }
    secs.checked_mul(1000)?.checked_add(ms)
}

/// A time line of the usual shape at `at` (`T`, 1 to 15 digits, maybe `.` and digits, a line
/// feed): its milliseconds (as [`parse_seconds`] reads them) and its length without the line
/// feed; `None` for anything else, which the line-by-line reading then reads.
#[inline(always)]
fn time_word(b: &[u8], at: usize) -> Option<(u64, usize)> {
    if b.get(at) != Some(&b'T') {
        return None;
    }
    let mut i = at + 1;
    let mut secs: u64 = 0;
    while let Some(&d) = b.get(i).filter(|d| d.is_ascii_digit()) {
        secs = secs * 10 + u64::from(d - b'0');
        i += 1;
        if i - at > 16 {
            return None;
        }
    }
    if i == at + 1 {
        return None;
    }
    let mut ms = 0;
    if b.get(i) == Some(&b'.') {
        i += 1;
        let frac = i;
        while let Some(&d) = b.get(i).filter(|d| d.is_ascii_digit()) {
            if i - frac < 3 {
                ms += u64::from(d - b'0') * [100, 10, 1][i - frac];
            }
            i += 1;
        }
        if i == frac {
            return None;
        }
    }
    (b.get(i) == Some(&b'\n')).then_some((secs * 1000 + ms, i - at))
}

/// `setup` with `turn` to move (if given), as the record's start: a standard position by its
/// name.
fn start_of(mut setup: Setup, turn: Option<Color>) -> StartPosition {
    if let Some(t) = turn {
        setup.turn = t;
    }
    match recognise(&setup) {
        Some(h) => StartPosition::Preset(h),
        None => StartPosition::Setup(Box::new(setup)),
    }
}

/// The squares of CSA's two digits `file * 10 + rank`: `NO_SQUARE` where a digit is 0.
const SQUARES: [u8; 100] = {
    let mut t = [NO_SQUARE; 100];
    let mut f = 1;
    while f <= 9 {
        let mut r = 1;
        while r <= 9 {
            t[f * 10 + r] = ((f - 1) * 9 + (r - 1)) as u8;
            r += 1;
        }
        f += 1;
    }
    t
};
const NO_SQUARE: u8 = 0xff;

/// A whole move line and its line feed, read as one little-endian word (`+7776FU\n`): the
/// side, source (`None` for a drop), destination and the piece after the move; `None` for
/// anything else, which the line-by-line reading then reads.
#[inline(always)]
fn move_word(w: u64) -> Option<(Color, Option<Square>, Square, PieceKind)> {
    let [sign, f1, r1, f2, r2, k1, k2, lf] = w.to_le_bytes();
    let color = match sign {
        b'+' => Color::Black,
        b'-' => Color::White,
        _ => return None,
    };
    if lf != b'\n' {
        return None;
    }
    let (from, to, kind) = move_parts([f1, r1, f2, r2], k1, k2)?;
    Some((color, from, to, kind))
}

/// The squares and piece of a move's four digits and two letters (`7776`, `FU`): the source
/// (`None` for `00`, a drop), the destination and the piece after the move; `None` unless
/// the digits are ASCII digits naming squares and the letters a piece.
#[inline]
fn move_parts(digits: [u8; 4], k1: u8, k2: u8) -> Option<(Option<Square>, Square, PieceKind)> {
    // All four bytes are digits when each, less b'0' (by xor: '0'..'9' are 0x30..0x39),
    // is at most 9: adding 0x76 then leaves the high bit clear, and no byte overflows
    // into the next because bytes with the high bit set are refused first.
    let d = u32::from_le_bytes(digits) ^ 0x3030_3030;
    if (d | d.wrapping_add(0x7676_7676)) & 0x8080_8080 != 0 {
        return None;
    }
    let [f1, r1, f2, r2] = d.to_le_bytes();
    let square = |f: u8, r: u8| SQUARES[usize::from(f) * 10 + usize::from(r)];
    let to = Square::from_index(usize::from(square(f2, r2)))?;
    let from = if f1 == 0 && r1 == 0 {
        None
    } else {
        Some(Square::from_index(usize::from(square(f1, r1)))?)
    };
    let kind = PieceKind::from_csa_bytes(k1, k2)?;
    Some((from, to, kind))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seconds() {
        assert_eq!(parse_seconds("12"), Some(12_000));
        assert_eq!(parse_seconds("6.123"), Some(6_123));
        assert_eq!(parse_seconds("0.5"), Some(500));
        assert_eq!(parse_seconds("007"), Some(7_000));
        assert_eq!(parse_seconds("1.23456"), Some(1_234));
        assert_eq!(
            parse_seconds("18446744073709551"),
            Some(18_446_744_073_709_551_000)
        );
        for bad in [
            "",
            "1.",
            ".5",
            "-1",
            "+1",
            "1 ",
            "1.2.3",
            "12a",
            "18446744073709552",
        ] {
            assert_eq!(parse_seconds(bad), None, "{bad:?}");
        }
    }

    /// A bare `PI` is the even position whatever follows it: a position line that adds to it,
    /// a move before the side-to-move line, another `PI`.
    #[test]
    fn a_bare_pi_is_the_even_position_whatever_follows() {
        let start = |text: &str| read_lines(text).remove(0).record.start;
        let even = || Setup::startpos();
        assert_eq!(start("PI\n+\n"), StartPosition::Preset(Handicap::Even));
        assert_eq!(
            start("PI82HI\nPI\n+\n"),
            StartPosition::Preset(Handicap::Even)
        );
        let mut with_bishop = even();
        with_bishop
            .hands
            .get_mut(Color::Black)
            .add(PieceKind::Bishop);
        assert_eq!(
            start("PI\nP+00KA\n+\n"),
            StartPosition::Setup(Box::new(with_bishop))
        );
        let mut white = even();
        white.turn = Color::White;
        let game = read_lines("PI\n-3334FU\n").remove(0);
        assert_eq!(game.record.start, StartPosition::Setup(Box::new(white)));
        assert_eq!(game.diagnostics.len(), 1, "{:?}", game.diagnostics);
        assert_eq!(start("-3334FU\n"), StartPosition::Preset(Handicap::Even));
    }

    /// The word lanes (a whole move line or time line with its line feed) read every line as
    /// the line-by-line reading does: the same line behind a CR LF, which the lanes leave to
    /// it, gives the same game.
    #[test]
    fn the_word_lanes_read_as_the_lines_do() {
        let lines = [
            "+7776FU",
            "-0055KA",
            "+2822UM",
            "+7776F",
            "+7776FUU",
            "+7076FU",
            "+7770FU",
            "+0076FU",
            "+0000FU",
            "+7776fu",
            "+7776XX",
            "-5152OU",
            "T0",
            "T12",
            "T1.5",
            "T1.500",
            "T0.05",
            "T1.5000001",
            "T999999999999999",
            "T1234567890123456789012",
            "T1.",
            "T.5",
            "T",
            "T-1",
            "T1.2.3",
            "T12a",
            "%TORYO",
        ];
        for first in lines {
            for second in lines {
                let lf = format!("PI\n+\n{first}\n{second}\n");
                let crlf = lf.replace('\n', "\r\n");
                assert_eq!(read_lines(&lf), read_lines(&crlf), "{first} then {second}");
            }
            // Before the side-to-move line, and after a move that could not be read.
            let lf = format!("PI\n{first}\n+7776FU,T3\n");
            assert_eq!(
                read_lines(&lf),
                read_lines(&lf.replace('\n', "\r\n")),
                "{first}"
            );
        }
    }
}
