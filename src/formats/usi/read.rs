//! The USI reader: one game per line, tokens with their columns, told to a
//! [`Visitor`](crate::formats::visit::Visitor) as they are read.

use crate::core::{Handicap, Move, Setup};
use crate::diag::{Code, Diagnostic};
use crate::formats::ParsedGame;
use crate::formats::lines::{self, Numbered};
use crate::formats::visit::{Builder, GameReader, Visitor, WrittenMove, WrittenSpecial};
use crate::record::{Span, SpecialKind, StartPosition};

/// Reads USI/SFEN text: one game per non-empty line.
///
/// ```
/// let g = kifu::formats::usi::read("position startpos moves 7g7f 3c3d resign\n");
/// assert_eq!(g.len(), 1);
/// assert_eq!(g[0].record.plies(), 2);
/// ```
pub fn read(text: &str) -> Vec<ParsedGame> {
    let mut reader = Reader::new(text);
    let mut builder = Builder::new(None);
    std::iter::from_fn(|| reader.read_game(&mut builder)).collect()
}

/// Whether a line holds a game: not blank, not a `#` comment.
fn is_game_line(line: &str) -> bool {
    let t = line.trim_matches(|c: char| c.is_whitespace() || c == '\u{feff}');
    !t.is_empty() && !t.starts_with('#')
}

/// The lines of a USI text that hold a game, with their 1-based numbers (blank lines and
/// `#` comments are skipped; LF, CR LF and a lone CR all end a line).
pub(crate) fn game_lines(text: &str) -> impl Iterator<Item = (u32, &str)> {
    lines::numbered(text).filter(|(_, line)| is_game_line(line))
}

/// The streaming USI reader: each line that holds a game is told to a visitor (the start,
/// then each move or ending token with its column; a token that is not a move is a `syntax`
/// diagnostic and ends the line).
///
/// ```
/// use kifu::formats::usi::Reader;
/// use kifu::formats::visit::{Visitor, WrittenMove};
/// use kifu::record::Span;
///
/// /// Counts the promotions of each game.
/// struct Promotions(u32);
///
/// impl Visitor for Promotions {
///     type Output = u32;
///     fn begin_game(&mut self, _line: u32) {
///         self.0 = 0;
///     }
///     fn mv(&mut self, mv: &WrittenMove<'_>, _span: Span) {
///         self.0 += u32::from(mv.promote == Some(true));
///     }
///     fn end_game(&mut self) -> u32 {
///         self.0
///     }
/// }
///
/// let mut reader = Reader::new("startpos moves 7g7f 3c3d 8h2b+\n\n# a comment\nstartpos\n");
/// let mut v = Promotions(0);
/// assert_eq!(reader.read_game(&mut v), Some(1));
/// assert_eq!(reader.read_game(&mut v), Some(0));
/// assert_eq!(reader.read_game(&mut v), None);
/// ```
#[derive(Debug, Clone)]
pub struct Reader<'t> {
    lines: Numbered<'t>,
    /// The line read last and its number.
    last: (u32, &'t str),
}

impl<'t> Reader<'t> {
    /// A reader at the start of `text`.
    pub fn new(text: &'t str) -> Reader<'t> {
        Reader {
            lines: lines::numbered(text),
            last: (0, ""),
        }
    }

    /// Reads the next game (line), telling `visitor` what it says; `None` when the text holds
    /// no more game.
    pub fn read_game<V: Visitor>(&mut self, visitor: &mut V) -> Option<V::Output> {
        let (ln, line) = self.lines.find(|(_, line)| is_game_line(line))?;
        self.last = (ln, line);
        Some(tell_line(line, ln, visitor))
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
        let (ln, line) = self.last;
        Some(tell_line(line, ln, &mut Builder::new(None)))
    }
}

/// The most tokens a position takes, with the word after it: `position sfen` and the four
/// fields of an SFEN, then `moves`.
const POSITION_TOKENS: usize = 7;

/// Tells `v` the game of `line` (line `ln`).
fn tell_line<V: Visitor>(line: &str, ln: u32, v: &mut V) -> V::Output {
    v.begin_game(ln);
    let syntax = |msg: String, col: u32| Diagnostic::new(Code::Syntax, msg).at(Span::new(ln, col));
    let mut tokens = Tokens::new(line);
    // The position is the game's start even when what follows it is not `moves`.
    let mut room = [("", 0u32); POSITION_TOKENS];
    let mut n = 0;
    for (slot, t) in room.iter_mut().zip(tokens.clone()) {
        *slot = t;
        n += 1;
    }
    let head = room.get(..n).unwrap_or_default();
    let first = match start_of(head) {
        Ok((start, end)) => {
            v.start(&start);
            moves_at(head, end)
        }
        Err(e) => Err(e),
    };
    match first {
        Ok(first) => {
            for _ in 0..first {
                tokens.next();
            }
        }
        Err(e) => {
            v.diagnostic(syntax(e.message, e.column));
            return v.end_game();
        }
    }
    for (tok, col) in tokens {
        let span = Span::new(ln, col);
        match Move::from_usi(tok) {
            Ok(mv) => v.mv(&WrittenMove::whole(mv, tok), span),
            // Moves after the ending are told too: validation reports them
            // (`move-after-end`). No ending token reads as a move.
            Err(e) => match special_of(tok) {
                Some(kind) => {
                    let special = WrittenSpecial {
                        kind,
                        text: tok,
                        side: None,
                        number: None,
                    };
                    v.special(&special, span);
                }
                None => {
                    v.diagnostic(syntax(
                        format!("`{tok}`: {e}; the rest of the line is ignored"),
                        col,
                    ));
                    break;
                }
            },
        }
    }
    v.end_game()
}

/// The start position of a line's tokens and the index of the token after it: the even
/// start for `startpos` (made without a board), a preset for an SFEN of the even start at
/// move 1, else the SFEN's setup.
fn start_of(toks: &[(&str, u32)]) -> Result<(StartPosition, usize), PositionTextError> {
    let i = usize::from(toks.first().is_some_and(|t| t.0 == "position"));
    if toks.get(i).is_some_and(|t| t.0 == "startpos") {
        return Ok((StartPosition::Preset(Handicap::Even), i + 1));
    }
    let (s, end) = position_of(toks)?;
    let start = match Handicap::recognise(&s) {
        Some(Handicap::Even) if s.move_number == 1 => StartPosition::Preset(Handicap::Even),
        _ => StartPosition::Setup(Box::new(s)),
    };
    Ok((start, end))
}

/// Whitespace-separated tokens with their 1-based character columns.
fn tokens(line: &str) -> Vec<(&str, u32)> {
    Tokens::new(line).collect()
}

/// The tokens of a line (separated by Unicode white space) with their 1-based character
/// columns.
/// An ASCII line (the usual one) is walked byte by byte, its columns being byte offsets;
/// another is walked character by character.
#[derive(Clone)]
struct Tokens<'a> {
    line: &'a str,
    ascii: bool,
    /// Byte offset of the next character.
    at: usize,
    /// Its 1-based column (kept for a line that is not ASCII).
    col: u32,
}

impl<'a> Tokens<'a> {
    fn new(line: &'a str) -> Tokens<'a> {
        Tokens {
            line,
            ascii: line.is_ascii(),
            at: 0,
            col: 1,
        }
    }

    /// Whether the byte at `i` of an ASCII line separates tokens (`None` past the end).
    /// 0x0b (vertical tab) is white space to `char::is_whitespace`, not to
    /// `u8::is_ascii_whitespace`.
    #[inline]
    fn ascii_space(&self, i: usize) -> Option<bool> {
        let b = *self.line.as_bytes().get(i)?;
        Some(b.is_ascii_whitespace() || b == 0x0b)
    }

    /// The next token of a line that is not ASCII.
    fn next_char_token(&mut self) -> Option<(&'a str, u32)> {
        let mut start = None;
        while let Some(c) = self.line.get(self.at..).and_then(|r| r.chars().next()) {
            // A BOM separates too: files joined with `cat` keep each file's at its line start.
            match (c.is_whitespace() || c == '\u{feff}', start) {
                (true, Some(_)) => break,
                (true, None) => {}
                (false, None) => start = Some((self.at, self.col)),
                (false, Some(_)) => {}
            }
            self.at += c.len_utf8();
            self.col = self.col.saturating_add(1);
        }
        let (s, col) = start?;
        Some((self.line.get(s..self.at)?, col))
    }
}

impl<'a> Iterator for Tokens<'a> {
    type Item = (&'a str, u32);

    #[inline]
    fn next(&mut self) -> Option<(&'a str, u32)> {
        if !self.ascii {
            return self.next_char_token();
        }
        while self.ascii_space(self.at) == Some(true) {
            self.at += 1;
        }
        let start = self.at;
        while self.ascii_space(self.at) == Some(false) {
            self.at += 1;
        }
        if start == self.at {
            return None;
        }
        let col = u32::try_from(start + 1).unwrap_or(u32::MAX);
        Some((self.line.get(start..self.at)?, col))
    }
}

/// The special a USI end token stands for (`resign`, `win`, ... and the null moves).
pub(crate) fn special_of(tok: &str) -> Option<SpecialKind> {
    Some(match tok {
        "resign" => SpecialKind::Resign,
        "win" => SpecialKind::Declaration,
        "draw" => SpecialKind::Draw,
        "rep_draw" => SpecialKind::Repetition,
        "rep_win" => SpecialKind::IllegalWin,
        "rep_lose" => SpecialKind::IllegalMove,
        "timeout" => SpecialKind::Timeout,
        "break" => SpecialKind::Interrupt,
        "0000" | "none" | "rep_sup" | "rep_inf" => SpecialKind::Unknown,
        _ => return None,
    })
}

/// A position as USI writes one, and people type: `startpos`, `sfen <SFEN>` or the SFEN alone,
/// each maybe after `position`, maybe followed by `moves` and the moves. Why it is not one:
/// the message and the 1-based column of the token at fault.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PositionTextError {
    /// What is wrong (`bad SFEN: ...`, ``expected `startpos` or `sfen`, found `x` ``).
    pub message: String,
    /// The column of the token at fault.
    pub column: u32,
}

impl std::fmt::Display for PositionTextError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for PositionTextError {}

/// The position of a USI `position` line's tokens (see [`parse_position`]), and the index of
/// the token after it.
fn position_of(toks: &[(&str, u32)]) -> Result<(Setup, usize), PositionTextError> {
    let fail = |message: String, column: u32| PositionTextError { message, column };
    let mut i = usize::from(toks.first().is_some_and(|t| t.0 == "position"));
    let setup = match toks.get(i) {
        Some(("startpos", _)) => {
            i += 1;
            Setup::startpos()
        }
        // `sfen <4 fields>`, or the fields alone (a bare SFEN line).
        Some((tok, col)) if *tok == "sfen" || tok.contains('/') => {
            if *tok == "sfen" {
                i += 1;
            }
            let start = i;
            while i < toks.len() && i < start + 4 && toks[i].0 != "moves" {
                i += 1;
            }
            let sfen: Vec<&str> = toks[start..i].iter().map(|t| t.0).collect();
            Setup::from_sfen(&sfen.join(" ")).map_err(|e| {
                fail(
                    format!("bad SFEN: {e}"),
                    toks.get(start).map_or(*col, |t| t.1),
                )
            })?
        }
        Some((tok, col)) => {
            return Err(fail(
                format!("expected `startpos` or `sfen`, found `{tok}`"),
                *col,
            ));
        }
        None => return Err(fail("`position` without a position".into(), 1)),
    };
    Ok((setup, i))
}

/// The index of the first move token after the position, which ends at `i`: past `moves`, or
/// `toks.len()` when nothing follows.
fn moves_at(toks: &[(&str, u32)], i: usize) -> Result<usize, PositionTextError> {
    match toks.get(i) {
        None => Ok(i),
        Some(("moves", _)) => Ok(i + 1),
        Some((tok, col)) => Err(PositionTextError {
            message: format!("expected `moves`, found `{tok}`"),
            column: *col,
        }),
    }
}

/// A position as USI writes one and people type it: `startpos`, `sfen <SFEN>` or the SFEN
/// alone, each maybe after `position`, maybe followed by `moves` and USI moves (the words of
/// [`read`]'s lines; the moves are parsed, not played). What `kifu perft --sfen`, `kifu find
/// --sfen`, Python's `Position(...)` and the USI reader take.
///
/// ```
/// use kifu::formats::usi::parse_position;
///
/// let (setup, moves) = parse_position("position startpos moves 7g7f 3c3d").unwrap();
/// assert_eq!(setup, kifu::core::Setup::startpos());
/// assert_eq!(moves.len(), 2);
/// let (s, none) = parse_position("lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1").unwrap();
/// assert!(none.is_empty() && s == setup);
/// assert!(parse_position("startpos moves 7g7x").is_err());
/// ```
pub fn parse_position(text: &str) -> Result<(Setup, Vec<Move>), PositionTextError> {
    let toks = tokens(text);
    let (setup, end) = position_of(&toks)?;
    let first = moves_at(&toks, end)?;
    let moves = toks[first..]
        .iter()
        .map(|&(tok, column)| {
            Move::from_usi(tok).map_err(|e| PositionTextError {
                message: format!("`{tok}`: {e}"),
                column,
            })
        })
        .collect::<Result<_, _>>()?;
    Ok((setup, moves))
}

#[cfg(test)]
mod tests {
    use super::Tokens;

    /// A position followed by something other than `moves` is still the game's start, with a
    /// `syntax` error at the word (found by the differential run of issue #48).
    #[test]
    fn the_start_stays_when_moves_is_misspelt() {
        let g = super::read("sfen 4k4/9/4P4/9/9/9/9/9/4K4 b G 11 mvoes 5i4h\n").remove(0);
        assert_eq!(
            g.record.start.to_setup().to_sfen(),
            "4k4/9/4P4/9/9/9/9/9/4K4 b G 11"
        );
        assert_eq!(g.diagnostics.len(), 1);
        assert!(
            g.diagnostics[0]
                .message
                .contains("expected `moves`, found `mvoes`")
        );
        assert!(super::parse_position("startpos mvoes").is_err());
    }

    /// Tokens and columns as a plain walk over the characters finds them, on ASCII lines and
    /// others (ideographic space, NBSP, NEL, vertical tab, multi-byte tokens).
    #[test]
    fn tokens_are_split_at_white_space_with_character_columns() {
        let naive = |line: &str| {
            let mut out = Vec::new();
            let mut start: Option<(usize, u32)> = None;
            let mut col = 0u32;
            for (i, c) in line.char_indices() {
                col += 1;
                if c.is_whitespace() {
                    if let Some((s, sc)) = start.take() {
                        out.push((line[s..i].to_string(), sc));
                    }
                } else if start.is_none() {
                    start = Some((i, col));
                }
            }
            if let Some((s, sc)) = start {
                out.push((line[s..].to_string(), sc));
            }
            out
        };
        for line in [
            "",
            "   ",
            "position startpos moves 7g7f 3c3d",
            "\tstartpos\x0bmoves  7g7f\x0c8c8d\r",
            "startpos moves　7g7f\u{a0}3c3d\u{85}2g2f",
            "位置 startpos 手 7g7f",
            "7g7f",
        ] {
            let got: Vec<(String, u32)> =
                Tokens::new(line).map(|(t, c)| (t.to_string(), c)).collect();
            assert_eq!(got, naive(line), "{line:?}");
        }
    }
}
