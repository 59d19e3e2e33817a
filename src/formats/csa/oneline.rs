//! The one-line CSA of the 2chkifu collection (files `2chkifu.csa1`, `*.csa`), which shogi
//! engine trainers read: two lines per game, a header line of fields separated by spaces,
//!
//! ```text
//! 1 2003/09/08 先手名 後手名 2 126 王位戦 その他の戦型
//! ```
//!
//! (number, date, Black, White, result: 0 a draw, 1 Black won, 2 White won, the number of
//! moves, the event, the opening), then every move of the game on one line, each as CSA writes
//! it without the sign (`7776FU3334FU…`, six characters a move; the sides alternate from
//! Black, from the even start). Moves written with their sign (`+7776FU-3334FU…`) are read too.
//!
//! Mapping: `開始日時`, `先手`, `後手`, `棋戦`, `戦型` headers (a `???` field is left out), the
//! number as `番号`, and the result as a KIF footer (`まで126手で後手の勝ち`: a win, by
//! resignation or mate, as KIF says it; `まで126手で引き分け` for a draw, which names no
//! ending), so that it is validated and written as every other format writes a footer.
//!
//! Formats layer: uses `core` and `record`, nothing above.

use crate::core::{Color, PieceKind, Square};
use crate::diag::{Code, Diagnostic};
use crate::formats::ParsedGame;
use crate::formats::visit::WrittenMove;
use crate::record::{Footer, MoveNode, NodeKind, Record, Source, Span, SpecialKind};

/// Whether `header` and `moves` (two lines, without their line ends) are a game of the
/// one-line CSA: a header line of at least six fields whose first and sixth are numbers and
/// whose fifth is 0, 1 or 2, then a line of moves only.
pub fn is_one_line_pair(header: &str, moves: &str) -> bool {
    header_fields(header).is_some() && is_moves_line(moves)
}

/// Whether the text starts (after blank lines) as the one-line CSA does.
pub fn looks_like(text: &str) -> bool {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    // Lazily: only the first two lines that are not blank are looked at.
    let mut lines = crate::formats::lines::lazy(text).filter(|l| !l.trim().is_empty());
    match (lines.next(), lines.next()) {
        (Some(h), Some(m)) => is_one_line_pair(h, m),
        _ => false,
    }
}

/// [`looks_like`] on the first bytes of a file (of any encoding: the header line's names may
/// be Shift_JIS; the moves line is ASCII), looking at two lines only.
pub fn starts_one_line(head: &[u8]) -> bool {
    let head = head.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(head);
    let mut lines = head
        .split(|&b| b == b'\n' || b == b'\r')
        .filter(|l| !l.trim_ascii().is_empty());
    match (lines.next(), lines.next()) {
        (Some(h), Some(m)) => {
            let h: String = h.iter().map(|&b| char::from(b)).collect();
            header_fields(&h).is_some() && std::str::from_utf8(m).is_ok_and(is_moves_line)
        }
        _ => false,
    }
}

/// The fields of a header line: number, date, Black, White, result, moves, and the rest
/// (event, opening).
fn header_fields(line: &str) -> Option<[&str; 6]> {
    let mut f = line.split_ascii_whitespace();
    let fields = [
        f.next()?,
        f.next()?,
        f.next()?,
        f.next()?,
        f.next()?,
        f.next()?,
    ];
    let number = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    (number(fields[0]) && matches!(fields[4], "0" | "1" | "2") && number(fields[5]))
        .then_some(fields)
}

/// A line of moves only: six-character moves (`7776FU`), or seven with their sign.
pub fn is_moves_line(line: &str) -> bool {
    let line = line.trim_end();
    !line.is_empty() && Moves::new(line).all(|m| m.is_some())
}

/// One move of a moves line: its byte offset, its sign (if written) and its text.
type Token<'a> = (usize, Option<Color>, &'a str);

/// The moves of a moves line, `None` at the first piece of text that is not one (and then no
/// more).
struct Moves<'a> {
    line: &'a str,
    at: usize,
    done: bool,
}

impl<'a> Moves<'a> {
    fn new(line: &'a str) -> Moves<'a> {
        Moves {
            line,
            at: 0,
            done: false,
        }
    }
}

impl<'a> Iterator for Moves<'a> {
    type Item = Option<Token<'a>>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.done || self.at >= self.line.len() {
            return None;
        }
        let b = self.line.as_bytes();
        let start = self.at;
        let (sign, body) = match b.get(start) {
            Some(b'+') => (Some(Color::Black), start + 1),
            Some(b'-') => (Some(Color::White), start + 1),
            _ => (None, start),
        };
        let end = body + 6;
        let ok = b.get(body..end).is_some_and(|m| {
            m[..4].iter().all(u8::is_ascii_digit) && m[4..].iter().all(u8::is_ascii_uppercase)
        });
        if !ok {
            self.done = true;
            return Some(None);
        }
        self.at = end;
        Some(Some((start, sign, self.line.get(body..end).unwrap_or(""))))
    }
}

/// Reads one-line CSA text: every game in it (two lines a game; blank lines between games are
/// allowed). A header line without its moves line, or a moves line that cannot be read to its
/// end, gets a `syntax` error; the moves before the bad one are kept.
pub(crate) fn read(text: &str) -> Vec<ParsedGame> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let mut games = Vec::new();
    // A BOM at the start of a line is skipped: files joined with `cat` keep each file's BOM
    // at the start of its first header line.
    let mut lines = crate::formats::lines::numbered(text)
        .map(|(ln, l)| (ln, l.strip_prefix('\u{feff}').unwrap_or(l)))
        .filter(|(_, l)| !l.trim().is_empty())
        .peekable();
    while let Some((ln, line)) = lines.next() {
        let mut game = ParsedGame {
            record: Record::default(),
            diagnostics: Vec::new(),
        };
        let Some(fields) = header_fields(line) else {
            game.diagnostics.push(
                Diagnostic::new(
                    Code::Syntax,
                    format!("expected a one-line CSA header (`1 2003/09/08 Black White 1 126 …`), found `{}`", line.trim_end()),
                )
                .at(Span::new(ln, 1)),
            );
            // Its moves line, if it is one, goes with it.
            if lines.peek().is_some_and(|&(_, l)| is_moves_line(l)) {
                lines.next();
            }
            games.push(game);
            continue;
        };
        header(&mut game.record, line, fields, ln);
        match lines.peek() {
            Some(&(mln, moves)) if header_fields(moves).is_none() => {
                lines.next();
                read_moves(&mut game, moves.trim_end(), mln);
            }
            // A game of no moves has an empty moves line.
            _ if fields[5].bytes().all(|b| b == b'0') => {}
            _ => game.diagnostics.push(
                Diagnostic::new(
                    Code::Syntax,
                    "a one-line CSA header without its line of moves",
                )
                .at(Span::new(ln, 1)),
            ),
        }
        footer(&mut game.record, fields, ln);
        games.push(game);
    }
    games
}

/// The header entries of a game.
fn header(record: &mut Record, line: &str, f: [&str; 6], ln: u32) {
    let span = Span::new(ln, 1);
    let known = |s: &str| !s.is_empty() && s.bytes().any(|b| b != b'?');
    record.header.push("番号", f[0], span);
    if known(f[1]) {
        record.header.push("開始日時", f[1], span);
    }
    if known(f[2]) {
        record.header.push("先手", f[2], span);
    }
    if known(f[3]) {
        record.header.push("後手", f[3], span);
    }
    // The rest of the line after the sixth field: the event, then the opening.
    let mut rest = line;
    for field in f {
        rest = rest
            .trim_start()
            .strip_prefix(field)
            .unwrap_or(rest)
            .trim_start();
    }
    let mut tail = rest.trim_end().splitn(2, |c: char| c.is_ascii_whitespace());
    if let Some(event) = tail.next().filter(|s| known(s)) {
        record.header.push("棋戦", event, span);
    }
    if let Some(opening) = tail.next().map(str::trim).filter(|s| known(s)) {
        record.header.push("戦型", opening, span);
    }
}

/// The result field as a KIF footer.
fn footer(record: &mut Record, f: [&str; 6], ln: u32) {
    let n = f[5];
    let (text, winner, kind) = match f[4] {
        "1" => (
            format!("まで{n}手で先手の勝ち"),
            Some(Color::Black),
            Some(SpecialKind::Resign),
        ),
        "2" => (
            format!("まで{n}手で後手の勝ち"),
            Some(Color::White),
            Some(SpecialKind::Resign),
        ),
        _ => (format!("まで{n}手で引き分け"), None, None),
    };
    // The count as the KIF reader reads the same footer (a number past u32 is u32::MAX), so
    // that the record states what its KIF form will state.
    let plies = crate::formats::kakinoki::parse_footer(&text, Span::new(ln, 1)).plies;
    record.footer = Some(Footer {
        text,
        plies,
        winner,
        kind,
        span: Span::new(ln, 1),
    });
}

/// The moves of a moves line.
fn read_moves(game: &mut ParsedGame, line: &str, ln: u32) {
    let mut turn = Color::Black;
    game.record.moves.reserve(line.len() / 6);
    for token in Moves::new(line) {
        let parsed = token.and_then(|(at, sign, m)| {
            let b = m.as_bytes();
            let d = |i: usize| b.get(i).map(|c| c - b'0');
            let (f1, r1, f2, r2) = (d(0)?, d(1)?, d(2)?, d(3)?);
            let from = if f1 == 0 && r1 == 0 {
                Source::Drop
            } else {
                Source::Square(Square::new(f1, r1)?)
            };
            let to = Square::new(f2, r2)?;
            let kind = PieceKind::from_csa_bytes(*b.get(4)?, *b.get(5)?)?;
            Some((at, sign, m, from, to, kind))
        });
        let col_of = |at: usize| u32::try_from(at).map_or(u32::MAX, |a| a.saturating_add(1));
        let Some((at, sign, m, from, to, kind)) = parsed else {
            let at = game.record.moves.len() * 6;
            let ply = game.record.plies().saturating_add(1);
            let rest: String = line.get(at..).unwrap_or("").chars().take(7).collect();
            game.diagnostics.push(
                Diagnostic::new(Code::Syntax, format!("cannot parse move `{rest}`"))
                    .at(Span::new(ln, col_of(at)))
                    .ply(ply),
            );
            return;
        };
        let color = sign.unwrap_or(turn);
        turn = color.flip();
        let text = WrittenMove::csa(color, from.square(), to, kind, m).to_text();
        let node = NodeKind::Move {
            text,
            resolved: None,
        };
        game.record
            .moves
            .push(MoveNode::new(node, Span::new(ln, col_of(at))));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pairs_are_told() {
        assert!(is_one_line_pair("1 2003/09/08 a b 2 2 e o", "7776FU3334FU"));
        assert!(is_one_line_pair("7 ??/??/?? a b 0 1", "+7776FU"));
        assert!(!is_one_line_pair("1 2003/09/08 a b 3 2 e o", "7776FU"));
        assert!(!is_one_line_pair("1 2003/09/08 a b 1 2 e o", "7776FU3334F"));
        assert!(!is_one_line_pair("V2.2", "+7776FU"));
        assert!(!is_one_line_pair("1 2003/09/08 a b 1 2 e o", ""));
        // Shift_JIS names (`甲`, `乙`) and CR LF.
        assert!(starts_one_line(
            b"\r\n1 2003/09/08 \x8d\x62 \x89\x9d 1 1\r\n7776FU\r\n"
        ));
        assert!(!starts_one_line(b"V2.2\r\n+7776FU\r\n"));
    }

    #[test]
    fn games_read() {
        let games = read(
            "1 2003/09/08 甲 乙 2 3 王位戦 矢倉\n7776FU3334FU2726FU\n\n2 ??/??/?? 丙 丁 0 4 ??? ???\n\n",
        );
        // The second game has no moves line: reported.
        assert_eq!(games.len(), 2);
        let g = &games[0];
        assert!(g.diagnostics.is_empty(), "{:?}", g.diagnostics);
        assert_eq!(g.record.plies(), 3);
        assert_eq!(g.record.header.get("先手"), Some("甲"));
        assert_eq!(g.record.header.get("棋戦"), Some("王位戦"));
        assert_eq!(g.record.header.get("戦型"), Some("矢倉"));
        let f = g.record.footer.as_ref().unwrap();
        assert_eq!((f.plies, f.winner), (Some(3), Some(Color::White)));
        assert_eq!(games[1].diagnostics.len(), 1);
        assert_eq!(games[1].record.header.get("棋戦"), None);
        let bad = read("1 x a b 1 2\n7776FU33X4FU\n");
        assert_eq!(bad[0].record.plies(), 1);
        assert_eq!(bad[0].diagnostics[0].column, Some(7));
    }

    /// The moves of a one-line record are the nodes the CSA reader makes of the same moves,
    /// each side's in turn.
    #[test]
    fn moves_are_the_csa_readers() {
        let one = read("1 2003/09/08 a b 2 3\n7776FU3334FU0055KA\n");
        let full = crate::formats::read(
            crate::formats::Format::Csa,
            "PI\n+\n+7776FU\n-3334FU\n+0055KA\n",
        );
        let texts = |moves: &[crate::record::MoveNode]| -> Vec<_> {
            moves
                .iter()
                .map(|n| match &n.kind {
                    crate::record::NodeKind::Move { text, resolved } => {
                        (text.color, text.from, text.to, text.piece, *resolved)
                    }
                    other => panic!("{other:?}"),
                })
                .collect()
        };
        let got = texts(&one[0].record.moves);
        assert_eq!(got.len(), 3);
        assert_eq!(got, texts(&full[0].record.moves));
        assert_eq!(got[1].0, Some(Color::White));
        assert_eq!(got[2].1, Source::Drop);
    }
}
