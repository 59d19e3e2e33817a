//! What a record says about how the game ended: the recorded special as a stable name and the
//! winner it implies.

use serde::Serialize;

use crate::core::Color;
use crate::record::{Footer, NodeKind, Record, Span, Special, SpecialKind};

/// Who won, as the record says.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Winner {
    /// Black (先手/下手) won.
    Black,
    /// White (後手/上手) won.
    White,
    /// A draw (千日手, 持将棋, declared draw, move limit).
    Draw,
}

impl Winner {
    /// The winner `color`.
    pub fn of(color: Color) -> Winner {
        match color {
            Color::Black => Winner::Black,
            Color::White => Winner::White,
        }
    }

    /// `black`, `white` or `draw`.
    pub fn as_str(self) -> &'static str {
        match self {
            Winner::Black => "black",
            Winner::White => "white",
            Winner::Draw => "draw",
        }
    }
}

/// The recorded result of a game, and what the board decides.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize)]
pub struct GameResult {
    /// The special that ends the main line, by its CSA/JKF name (`TORYO`, `SENNICHITE`,
    /// `+ILLEGAL_ACTION`...), or the text as written for a word this crate does not know.
    pub recorded: Option<String>,
    /// The winner the record implies.
    pub winner: Option<Winner>,
    /// The result the board decides, where it decides one: the first foul, a checkmate or a
    /// fourfold repetition, whichever came first (`null` when the game ended by a word the
    /// board cannot check: a resignation, a loss on time...).
    pub by_board: Option<BoardVerdict>,
}

impl GameResult {
    /// The recorded result of a main line ending with `special`, recorded with `to_move` to
    /// move: its stable name (the text as written for a word this crate does not know) and
    /// the winner it implies; the board's verdict is left to the result check.
    pub fn of_special(special: &Special, to_move: Color) -> GameResult {
        GameResult {
            recorded: Some(if special.kind == SpecialKind::Unknown {
                special.text.clone()
            } else {
                special_name(special.kind).to_owned()
            }),
            winner: winner_of(special, to_move),
            by_board: None,
        }
    }
}

/// How the board ended a game.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct BoardVerdict {
    /// Who won (a draw for a plain fourfold repetition).
    pub winner: Winner,
    /// `foul` (the first rule broken loses), `mate`, `repetition` (a draw) or
    /// `perpetual-check` (the checking side loses).
    pub by: &'static str,
    /// The ply of the move that decided it.
    pub ply: u32,
}

/// The stable name of a special kind (CSA/JKF spelling; a few KIF-only endings get their
/// romanised names).
pub fn special_name(kind: SpecialKind) -> &'static str {
    crate::formats::csa::special_word(kind).unwrap_or(match kind {
        SpecialKind::IllegalWin => "ILLEGAL_WIN",
        SpecialKind::PerpetualCheck => "OUTE_SENNICHITE",
        SpecialKind::Sealed => "FUUJITE",
        SpecialKind::DefaultWin => "FUSENSHO",
        SpecialKind::DefaultLoss => "FUSENPAI",
        _ => "UNKNOWN",
    })
}

/// The winner a special implies, given the side to move when it was recorded.
pub fn winner_of(special: &Special, to_move: Color) -> Option<Winner> {
    let other = to_move.flip();
    Some(match special.kind {
        SpecialKind::Resign
        | SpecialKind::Timeout
        | SpecialKind::Mate
        | SpecialKind::DefaultLoss => Winner::of(other),
        SpecialKind::IllegalMove => Winner::of(special.side.unwrap_or(to_move).flip()),
        SpecialKind::IllegalWin => Winner::of(special.side.map(Color::flip).unwrap_or(to_move)),
        SpecialKind::IllegalAction(offender) => Winner::of(offender.flip()),
        SpecialKind::Declaration | SpecialKind::DefaultWin => Winner::of(to_move),
        SpecialKind::Repetition
        | SpecialKind::Impasse
        | SpecialKind::Draw
        | SpecialKind::MaxMoves => Winner::Draw,
        // The side that gave the perpetual check loses: the board says which.
        SpecialKind::PerpetualCheck
        | SpecialKind::Interrupt
        | SpecialKind::NoMate
        | SpecialKind::Matta
        | SpecialKind::Error
        | SpecialKind::Sealed
        | SpecialKind::Unknown => return None,
    })
}

/// How the main line ends: the moves before its first special, and that special with where it
/// was read (moves recorded after it are `move-after-end`: the game was over).
pub fn main_ending(record: &Record) -> (u32, Option<(&Special, Span)>) {
    let mut plies = 0;
    for node in &record.moves {
        match &node.kind {
            NodeKind::Move { .. } => plies += 1,
            NodeKind::Special(s) => return (plies, Some((s, node.span))),
        }
    }
    (plies, None)
}

/// What the recorded result is read from: the main line's moves and specials as far as the
/// result goes, the footer and shogi-server's summary. Made from a record
/// ([`MainLine::of`]) or as a reader tells the game (the validator).
#[derive(Debug, Clone, Default)]
pub(crate) struct MainLine {
    /// The moves before the first special.
    pub(crate) plies: u32,
    /// The first special and where it was read.
    pub(crate) ending: Option<(Special, Span)>,
    /// Every move of the main line (after an ending too).
    pub(crate) moves: u32,
    /// Every special of the main line.
    pub(crate) specials: u32,
    /// The main line's last node, when it is a special other than the first
    /// (`投了` then `中断`: a footer may name either).
    pub(crate) last_special: Option<Special>,
    /// Whether the main line's last node is a special.
    pub(crate) ends_in_special: bool,
    /// Where the main line's last node was read.
    pub(crate) last_span: Option<Span>,
    /// The side to move at the start.
    pub(crate) start_turn: Color,
    /// The footer.
    pub(crate) footer: Option<Footer>,
    /// shogi-server's verdict read as a footer ([`server_summary_footer`]), for a record
    /// without a footer of its own.
    pub(crate) summary: Option<Footer>,
}

impl MainLine {
    /// The main line of `record`.
    pub(crate) fn of(record: &Record) -> MainLine {
        let (plies, ending) = main_ending(record);
        let last = record.moves.last();
        let end = record.end();
        MainLine {
            plies,
            ending: ending.map(|(s, span)| (s.clone(), span)),
            moves: record.plies(),
            specials: record
                .moves
                .iter()
                .filter(|n| n.special().is_some())
                .count() as u32,
            last_special: end
                .filter(|&s| ending.is_none_or(|(f, _)| !std::ptr::eq(f, s)))
                .cloned(),
            ends_in_special: end.is_some(),
            last_span: last.map(|n| n.span),
            start_turn: record.start.to_setup().turn,
            footer: record.footer.clone(),
            summary: server_summary_footer(record),
        }
    }

    /// A special of the main line read at `span`, after `moves` moves: the ending if it is
    /// the first.
    pub(crate) fn ended(&mut self, special: Special, span: Span, moves: u32) {
        self.specials += 1;
        if self.ending.is_none() {
            self.ending = Some((special, span));
            self.plies = moves;
            self.last_special = None;
        } else {
            self.last_special = Some(special);
        }
    }

    /// The side to move after the moves before the ending.
    pub(crate) fn to_move(&self) -> Color {
        if self.plies.is_multiple_of(2) {
            self.start_turn
        } else {
            self.start_turn.flip()
        }
    }

    /// The ending the footer states ([`Record::footer_ending`]).
    pub(crate) fn footer_ending(&self) -> Option<Special> {
        if self.ends_in_special {
            return None;
        }
        let f = self.footer.as_ref()?;
        if f.plies.is_some_and(|n| n != self.moves) {
            return None;
        }
        f.ending()
    }

    /// The recorded result: the first special if there is one, else what the footer says (or
    /// the server's summary).
    pub(crate) fn recorded_result(&self) -> GameResult {
        let to_move = self.to_move();
        if let Some((special, _)) = &self.ending {
            let mut result = GameResult::of_special(special, to_move);
            if self
                .summary
                .as_ref()
                .is_some_and(|f| refused_declaration(special, f, to_move))
            {
                result.winner = Some(Winner::of(to_move.flip()));
            }
            return result;
        }
        if let Some(footer) = self.footer.as_ref().or(self.summary.as_ref()) {
            let winner = footer.winner.map(Winner::of).or_else(|| {
                footer.kind.and_then(|k| {
                    let s = Special {
                        kind: k,
                        text: String::new(),
                        side: None,
                    };
                    winner_of(&s, to_move)
                })
            });
            return GameResult {
                recorded: footer.kind.map(|k| special_name(k).to_owned()),
                winner,
                by_board: None,
            };
        }
        GameResult::default()
    }
}

/// shogi-server's verdict (`'summary:…`, [`crate::formats::csa::server_summary`]) as a footer:
/// the record's word on the result after its last move. Read from the comments after the main
/// line's last node, or after the game; `None` for a record with a footer of its own or no
/// summary. The span is the last node's (comments keep none of their own).
pub fn server_summary_footer(record: &Record) -> Option<Footer> {
    if record.footer.is_some() {
        return None;
    }
    let last = record.moves.last();
    let comments = record
        .trailing_comments
        .iter()
        .rev()
        .chain(last.into_iter().flat_map(|n| n.comments.iter().rev()));
    comments
        .into_iter()
        .find_map(|c| summary_footer(c, last.map(|n| n.span).unwrap_or_default()))
}

/// A comment (`c`, without its `'`) read as shogi-server's summary footer, said at `span`.
pub(crate) fn summary_footer(c: &str, span: Span) -> Option<Footer> {
    let summary = crate::formats::csa::server_summary(c)?;
    Some(Footer {
        text: format!("'{c}"),
        plies: None,
        winner: summary.winner,
        kind: summary.kind,
        span,
    })
}

/// Whether `summary` is the server refusing the entering-king declaration that ends the main
/// line (`%KACHI`, which shogi-server logs whether the declaration held or not, then
/// `'summary:illegal kachi`): the declarer, `to_move`, loses.
pub fn refused_declaration(special: &Special, summary: &Footer, to_move: Color) -> bool {
    special.kind == SpecialKind::Declaration
        && summary.kind == Some(SpecialKind::IllegalMove)
        && summary.winner == Some(to_move.flip())
}

/// The recorded result: the final special if there is one, else what the footer says (or the
/// server's summary, [`server_summary_footer`]).
pub fn recorded_result(record: &Record) -> GameResult {
    MainLine::of(record).recorded_result()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn special(kind: SpecialKind, side: Option<Color>) -> Special {
        Special {
            kind,
            text: String::new(),
            side,
        }
    }

    #[test]
    fn winners() {
        let b = Color::Black;
        let w = Color::White;
        assert_eq!(
            winner_of(&special(SpecialKind::Resign, None), b),
            Some(Winner::White)
        );
        assert_eq!(
            winner_of(&special(SpecialKind::Mate, None), w),
            Some(Winner::Black)
        );
        assert_eq!(
            winner_of(&special(SpecialKind::Declaration, None), w),
            Some(Winner::White)
        );
        assert_eq!(
            winner_of(&special(SpecialKind::IllegalAction(b), None), b),
            Some(Winner::White)
        );
        assert_eq!(
            winner_of(&special(SpecialKind::IllegalMove, Some(w)), b),
            Some(Winner::Black)
        );
        assert_eq!(
            winner_of(&special(SpecialKind::IllegalWin, None), b),
            Some(Winner::Black)
        );
        assert_eq!(
            winner_of(&special(SpecialKind::Repetition, None), b),
            Some(Winner::Draw)
        );
        assert_eq!(winner_of(&special(SpecialKind::Interrupt, None), b), None);
    }

    #[test]
    fn result_of_a_special() {
        let resign = GameResult::of_special(&special(SpecialKind::Resign, None), Color::White);
        assert_eq!(resign.recorded.as_deref(), Some("TORYO"));
        assert_eq!(resign.winner, Some(Winner::Black));
        assert_eq!(resign.by_board, None);
        // A word this crate does not know keeps its text, and implies no winner.
        let unknown = Special {
            kind: SpecialKind::Unknown,
            text: "%HOGE".to_owned(),
            side: None,
        };
        let r = GameResult::of_special(&unknown, Color::Black);
        assert_eq!(r.recorded.as_deref(), Some("%HOGE"));
        assert_eq!(r.winner, None);
        let sealed = GameResult::of_special(&special(SpecialKind::Sealed, None), Color::Black);
        assert_eq!(sealed.recorded.as_deref(), Some("FUUJITE"));
    }
}
