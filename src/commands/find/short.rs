//! `find` through USI, CSA, KIF and KI2 text as the reader reads it: plain games are followed without
//! building a record (as `validate` judges them), anything else is read again into a record;
//! `tests.rs` checks that both find the same.

use crate::core::{Color, Handicap, Move, Position};
use crate::formats::kakinoki::{self, Dialect};
use crate::formats::visit::{GameReader, Skip, Visitor, WrittenMove, WrittenSpecial};
use crate::formats::{csa, usi};
use crate::record::{Footer, Span, Special, SpecialKind, StartPosition};
use crate::validate::result::recorded_result;
use crate::validate::{GameResult, written_move};

use super::{Hit, Query, UnitHits, search};

/// The short way of `find` through a game told by a reader: the moves of a game from the even
/// start that the reader read without a finding (each move carried out), as far as the query
/// needs them, and the recorded result where the reader's words give it; `None`: the game is
/// read into a record.
struct PlainMoves<'q> {
    query: &'q Query,
    /// The key of the position a position query looks for.
    want: u64,
    pos: Position,
    game: Scanned,
    /// Moves before the ending.
    plies: u32,
    /// The ending, and the side to move at it.
    ending: Option<(Special, Color)>,
    /// A comment holds shogi-server's verdict, or a KIF footer was told (which the recorded
    /// result may read).
    summary: bool,
    /// The game needs its record.
    unsure: bool,
    /// The query needs no more of the game's moves.
    enough: bool,
}

/// A game as [`PlainMoves`] read it.
#[derive(Default)]
struct Scanned {
    /// The moves: for a position query every move, for a moves query up to the first that
    /// differs from it or the one after them.
    moves: Vec<Move>,
    /// The plies (0: the start) whose position is the one looked for (a position query).
    found: Vec<u32>,
    /// The recorded result, `None` where the record must be read to know it (an
    /// entering-king declaration, which the server's verdict may overturn; no ending but a
    /// verdict or a footer).
    result: Option<GameResult>,
}

impl PlainMoves<'_> {
    /// For a position query, notes `ply` if the position there is the one looked for.
    #[inline]
    fn note_target(&mut self, ply: u32) {
        if matches!(self.query, Query::Position { .. })
            && self.query.key(&self.pos) == self.want
            && self.query.same(&self.pos)
        {
            self.game.found.push(ply);
        }
    }

    /// Whether a moves query has all it needs of `moves`: the first move that differs from
    /// it, or the move after it.
    fn moves_known(want: &[Move], moves: &[Move]) -> bool {
        let n = moves.len();
        n > want.len() || (n > 0 && moves.get(n - 1) != want.get(n - 1))
    }
}

impl Visitor for PlainMoves<'_> {
    type Output = Option<Scanned>;
    const SKIP: Skip = Skip::TIMES.and(Skip::VARIATIONS);

    fn begin_game(&mut self, _line: u32) {
        self.pos = Position::startpos();
        self.game = Scanned::default();
        self.note_target(0);
        self.plies = 0;
        self.ending = None;
        self.summary = false;
        self.unsure = false;
        self.enough = false;
    }

    fn start(&mut self, start: &StartPosition) {
        self.unsure |= *start != StartPosition::Preset(Handicap::Even);
    }

    fn mv(&mut self, mv: &WrittenMove<'_>, _span: Span) {
        if self.unsure {
            return;
        }
        // A move after the ending: the record's line stops at the ending, but the reader's
        // findings on the rest are the record's to weigh unless the query has what it needs.
        if self.ending.is_some() {
            self.unsure = !self.enough;
            return;
        }
        self.plies += 1;
        if self.enough {
            return;
        }
        let played = written_move(&self.pos, mv).filter(|&m| self.pos.play_unchecked(m).is_ok());
        let Some(m) = played else {
            self.unsure = true;
            return;
        };
        self.game.moves.push(m);
        match self.query {
            Query::Position { .. } => self.note_target(self.game.moves.len() as u32),
            Query::Moves(want) => self.enough = Self::moves_known(want, &self.game.moves),
        }
    }

    fn special(&mut self, special: &WrittenSpecial<'_>, _span: Span) {
        if self.ending.is_some() {
            self.unsure |= !self.enough;
            return;
        }
        let to_move = if self.plies.is_multiple_of(2) {
            Color::Black
        } else {
            Color::White
        };
        self.ending = Some((special.to_special(), to_move));
    }

    fn comment(&mut self, text: &str, _span: Span) {
        self.summary |= text.starts_with("summary:");
    }

    fn footer(&mut self, _footer: &Footer) {
        // The footer states a result where no ending does: the record's reading of it decides.
        self.summary = true;
    }

    fn diagnostic(&mut self, _diagnostic: crate::diag::Diagnostic) {
        self.unsure = true;
    }

    fn end_game(&mut self) -> Self::Output {
        if self.unsure {
            return None;
        }
        let mut game = std::mem::take(&mut self.game);
        game.result = match &self.ending {
            Some((special, _)) if special.kind == SpecialKind::Declaration => None,
            Some((special, to_move)) => Some(GameResult::of_special(special, *to_move)),
            None if self.summary => None,
            None => Some(GameResult::default()),
        };
        Some(game)
    }
}

/// [`search_line`] for a game already played from the even start.
fn search_scanned(
    game: &Scanned,
    query: &Query,
    result: impl FnOnce() -> GameResult,
) -> (Option<Hit>, u32) {
    let moves = &game.moves;
    match query {
        Query::Moves(want) => {
            if let Some(j) = want.iter().zip(moves).position(|(a, b)| a != b) {
                return (None, j as u32 + 1);
            }
            if want.len() > moves.len() {
                return (None, moves.len() as u32);
            }
            let hit = Hit {
                index: 0,
                ply: want.len() as u32,
                times: 1,
                next: moves.get(want.len()).copied(),
                result: result(),
            };
            (Some(hit), want.len() as u32)
        }
        Query::Position { .. } => {
            let hit = game.found.first().map(|&ply| Hit {
                index: 0,
                ply,
                times: game.found.len() as u32,
                next: moves.get(ply as usize).copied(),
                result: result(),
            });
            (hit, moves.len() as u32)
        }
    }
}

/// Searches the games of a USI text (one per line). `None` when the text holds no game.
pub(super) fn search_usi(text: &str, query: &Query) -> Option<UnitHits> {
    search_games(&mut usi::Reader::new(text), query)
}

/// Searches the games of a CSA text (games separated by `/` lines). `None` when the text
/// holds no game (the reader says why).
pub(super) fn search_csa(text: &str, query: &Query) -> Option<UnitHits> {
    // The one-line CSA of the 2chkifu collection is the reader's alone; a game of any other
    // text is read as part of it (`read_lines`), never as the one-line CSA on its own.
    if csa::is_one_line(text) {
        return None;
    }
    search_games(&mut csa::Reader::new(text), query)
}

/// Searches the game of a KIF or KI2 text. `None` for a text of blank lines, which holds no
/// game (the batch's reading says so).
pub(super) fn search_kif(text: &str, dialect: Dialect, query: &Query) -> Option<UnitHits> {
    let body = text.strip_prefix('\u{feff}').unwrap_or(text);
    if body.bytes().all(|b| b.is_ascii_whitespace()) {
        return None;
    }
    search_games(&mut kakinoki::Reader::new(text, dialect), query)
}

/// Searches the games `reader` reads: plain games the short way, any other from its record.
fn search_games(reader: &mut impl GameReader, query: &Query) -> Option<UnitHits> {
    let mut out = UnitHits::default();
    let mut short = PlainMoves {
        query,
        want: match query {
            Query::Position { target, .. } => query.key(target),
            Query::Moves(_) => 0,
        },
        pos: Position::startpos(),
        game: Scanned::default(),
        plies: 0,
        ending: None,
        summary: false,
        unsure: false,
        enough: false,
    };
    while let Some(scanned) = reader.read_game(&mut short) {
        let (hit, plies) = match scanned {
            Some(game) => {
                let result = || {
                    game.result.clone().unwrap_or_else(|| {
                        reader
                            .last_game_record()
                            .map(|g| recorded_result(&g.record))
                            .unwrap_or_default()
                    })
                };
                search_scanned(&game, query, result)
            }
            None => match reader.last_game_record() {
                Some(g) => search(&g.record, query),
                None => (None, 0),
            },
        };
        out.plies += u64::from(plies);
        if let Some(mut h) = hit {
            h.index = out.games as usize;
            out.hits.push(h);
        }
        out.games += 1;
    }
    (out.games > 0).then_some(out)
}
