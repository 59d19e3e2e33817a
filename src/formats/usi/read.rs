//! The USI reader: one game per line, tokens with their columns.

use crate::core::{Handicap, Move, Setup};
use crate::diag::{Code, Diagnostic};
use crate::formats::ParsedGame;
use crate::record::{
    MoveNode, MoveText, NodeKind, RawText, Record, Relative, Source, Span, Special, SpecialKind,
    StartPosition,
};

/// Reads USI/SFEN text: one game per non-empty line.
///
/// ```
/// let g = kifu::formats::usi::read("position startpos moves 7g7f 3c3d resign\n");
/// assert_eq!(g.len(), 1);
/// assert_eq!(g[0].record.plies(), 2);
/// ```
pub fn read(text: &str) -> Vec<ParsedGame> {
    game_lines(text)
        .map(|(ln, line)| read_line(line, ln))
        .collect()
}

/// The lines of a USI text that hold a game, with their 1-based numbers (blank lines and
/// `#` comments are skipped; LF, CR LF and a lone CR all end a line).
pub(crate) fn game_lines(text: &str) -> impl Iterator<Item = (u32, &str)> {
    crate::formats::lines::numbered(text).filter(|(_, line)| {
        let t = line.trim_matches(|c: char| c.is_whitespace() || c == '\u{feff}');
        !t.is_empty() && !t.starts_with('#')
    })
}

/// Whitespace-separated tokens with their 1-based character columns.
fn tokens(line: &str) -> Vec<(&str, u32)> {
    Tokens::new(line).collect()
}

/// The tokens of a line (separated by Unicode white space) with their 1-based character
/// columns. The reader and the short way of `validate` (`validate_usi`) both take tokens so.
/// An ASCII line (the usual one) is walked byte by byte, its columns being byte offsets;
/// another is walked character by character.
pub(crate) struct Tokens<'a> {
    line: &'a str,
    ascii: bool,
    /// Byte offset of the next character.
    at: usize,
    /// Its 1-based column (kept for a line that is not ASCII).
    col: u32,
}

impl<'a> Tokens<'a> {
    pub(crate) fn new(line: &'a str) -> Tokens<'a> {
        Tokens {
            line,
            ascii: line.is_ascii(),
            at: 0,
            col: 1,
        }
    }

    /// Whether the line is ASCII (the short way of `validate` takes only those).
    pub(crate) fn is_ascii(&self) -> bool {
        self.ascii
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

fn read_line(line: &str, ln: u32) -> ParsedGame {
    let mut record = Record::default();
    let mut diags = Vec::new();
    let syntax = |msg: String, col: u32| Diagnostic::new(Code::Syntax, msg).at(Span::new(ln, col));
    let toks = tokens(line);
    // The position is the game's start even when what follows it is not `moves`.
    let mut i = match position_of(&toks).and_then(|(s, end)| {
        record.start = match Handicap::recognise(&s) {
            Some(Handicap::Even) if s.move_number == 1 => StartPosition::Preset(Handicap::Even),
            _ => StartPosition::Setup(Box::new(s)),
        };
        moves_at(&toks, end)
    }) {
        Ok(first) => first,
        Err(e) => {
            diags.push(syntax(e.message, e.column));
            return ParsedGame {
                record,
                diagnostics: diags,
            };
        }
    };
    while let Some(&(tok, col)) = toks.get(i) {
        i += 1;
        let span = Span::new(ln, col);
        if let Some(kind) = special_of(tok) {
            let special = Special {
                kind,
                text: tok.to_owned(),
                side: None,
            };
            // Moves after the ending are kept: validation reports them (`move-after-end`).
            record
                .moves
                .push(MoveNode::new(NodeKind::Special(special), span));
            continue;
        }
        match Move::from_usi(tok) {
            Ok(mv) => {
                let text = MoveText {
                    color: None,
                    from: match mv {
                        Move::Normal { from, .. } => Source::Square(from),
                        Move::Drop { .. } => Source::Drop,
                    },
                    to: mv.to(),
                    same: false,
                    piece: None,
                    promote: mv.is_promotion().then_some(true),
                    relative: Relative::default(),
                    raw: RawText::from(tok),
                };
                record.moves.push(MoveNode::new(
                    NodeKind::Move {
                        text,
                        resolved: Some(mv),
                    },
                    span,
                ));
            }
            Err(e) => {
                diags.push(syntax(
                    format!("`{tok}`: {e}; the rest of the line is ignored"),
                    col,
                ));
                break;
            }
        }
    }
    ParsedGame {
        record,
        diagnostics: diags,
    }
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
