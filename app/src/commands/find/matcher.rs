//! `find` through USI, CSA, KIF and KI2 text as the reader reads it: each game's main line is
//! followed as its moves are told, from any start, as [`MainLine`](kifu::record::line::MainLine)
//! follows a record's (a foul played on, the line ending at its ending, at a move that does
//! not resolve or cannot be carried out), without building a record: a record holds what its
//! reader told, so a finding of the reader changes nothing here. A game whose start is told
//! twice is read again into a record, and so is one whose result a hit needs and only the
//! record tells (a declaration, a server's verdict, a footer); `tests.rs` checks that both
//! ways find the same.

use kifu::core::{Color, Handicap, Move, Position};
use kifu::formats::kakinoki::{self, Dialect};
use kifu::formats::visit::{GameReader, Skip, Visitor, WrittenMove, WrittenSpecial};
use kifu::formats::{csa, usi};
use kifu::record::{Footer, Span, Special, SpecialKind, StartPosition};
use kifu::validate::GameResult;
use kifu::validate::result::recorded_result;

use super::{Hit, Query, UnitHits, same_position, search};
use kifu::record::resolve::resolve_move;

/// `find` through a game told by a reader: the moves of its main line that can be carried
/// out, as far as the query needs them, and the recorded result where the reader's words give
/// it; `None`: the game is read into a record.
struct Matcher<'q> {
    query: &'q Query,
    /// The key of the position a position query looks for.
    want: u64,
    pos: Position,
    /// The side to move at the start.
    start_turn: Color,
    /// The start was told.
    started: bool,
    /// The main line is still followed (it ends at a move that does not resolve or cannot
    /// be carried out).
    open: bool,
    game: Followed,
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

/// A game as [`Matcher`] read it.
#[derive(Default)]
struct Followed {
    /// The moves: for a position query every move, for a moves query up to the first that
    /// differs from it or the one after them.
    moves: Vec<Move>,
    /// The plies (0: the start) whose position is the one looked for (a position query).
    found: Vec<u32>,
    /// The recorded result, `None` where the record must be read to know it (an
    /// entering-king declaration, which the server's verdict may overturn; no ending but a
    /// verdict or a footer).
    result: Option<GameResult>,
    /// The start is the even position (a run of moves is looked for from it alone).
    from_even: bool,
    /// The start cannot be set up: nothing is followed.
    no_board: bool,
    /// The move that ended the line where it resolved but could not be carried out: the
    /// line's next move after `moves`, as a record's line peeks it.
    stuck: Option<Move>,
}

impl Matcher<'_> {
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

impl Visitor for Matcher<'_> {
    type Output = Option<Followed>;
    const SKIP: Skip = Skip::TIMES.and(Skip::VARIATIONS);

    fn begin_game(&mut self, _line: u32) {
        self.pos = Position::startpos();
        self.start_turn = Color::Black;
        self.started = false;
        self.open = true;
        self.game = Followed::default();
        self.plies = 0;
        self.ending = None;
        self.summary = false;
        self.unsure = false;
        self.enough = false;
    }

    fn start(&mut self, start: &StartPosition) {
        if std::mem::replace(&mut self.started, true) {
            // Told again after the moves (KIF): the record's start is the last one.
            self.unsure = true;
            return;
        }
        if *start == StartPosition::Preset(Handicap::Even) {
            // The position set at the game's beginning.
            self.game.from_even = true;
            self.note_target(0);
            return;
        }
        let setup = start.to_setup();
        self.start_turn = setup.turn;
        match Position::from_setup_lenient(&setup) {
            Ok(pos) => self.pos = pos,
            Err(_) => {
                self.game.no_board = true;
                self.open = false;
                return;
            }
        }
        let even = Position::startpos();
        self.game.from_even =
            self.pos.key() == even.key() && same_position(&self.pos, &even, false, false);
        self.note_target(0);
    }

    fn mv(&mut self, mv: &WrittenMove<'_>, _span: Span) {
        if self.unsure {
            return;
        }
        // The line stops at its ending.
        if self.ending.is_some() {
            return;
        }
        self.plies += 1;
        if self.enough || !self.open {
            return;
        }
        // As a record's main line resolves it: the move the text names whole, else the
        // text resolved against the position.
        let resolved = mv
            .to_move(&self.pos)
            .or_else(|| resolved_from_text(&self.pos, mv));
        let played = resolved.filter(|&m| self.pos.play_unchecked(m).is_ok());
        let Some(m) = played else {
            self.open = false;
            self.game.stuck = resolved;
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
            return;
        }
        let to_move = if self.plies.is_multiple_of(2) {
            self.start_turn
        } else {
            self.start_turn.flip()
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

/// A move `written_move` leaves to the record's resolution, resolved as a record's line
/// resolves its text.
#[cold]
#[inline(never)]
fn resolved_from_text(pos: &Position, mv: &WrittenMove<'_>) -> Option<Move> {
    resolve_move(pos, &mv.to_text()).ok()
}

/// [`search_line`] for a game followed as it was read.
fn search_followed(
    game: &Followed,
    query: &Query,
    result: impl FnOnce() -> GameResult,
) -> (Option<Hit>, u32) {
    let moves = &game.moves;
    // The move after `i` moves, as a record's line peeks it.
    let next = |i: usize| {
        moves
            .get(i)
            .copied()
            .or(game.stuck.filter(|_| i == moves.len()))
    };
    if game.no_board {
        return (None, 0);
    }
    match query {
        Query::Moves(_) if !game.from_even => (None, 0),
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
                next: next(want.len()),
                result: result(),
            };
            (Some(hit), want.len() as u32)
        }
        Query::Position { .. } => {
            let hit = game.found.first().map(|&ply| Hit {
                index: 0,
                ply,
                times: game.found.len() as u32,
                next: next(ply as usize),
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

/// Searches the games `reader` reads: as they are read, or from their records (see the
/// module's note).
fn search_games(reader: &mut impl GameReader, query: &Query) -> Option<UnitHits> {
    let mut out = UnitHits::default();
    let mut matcher = Matcher {
        query,
        want: match query {
            Query::Position { target, .. } => query.key(target),
            Query::Moves(_) => 0,
        },
        pos: Position::startpos(),
        start_turn: Color::Black,
        started: false,
        open: true,
        game: Followed::default(),
        plies: 0,
        ending: None,
        summary: false,
        unsure: false,
        enough: false,
    };
    while let Some(followed) = reader.read_game(&mut matcher) {
        let (hit, plies) = match followed {
            Some(game) => {
                let result = || {
                    game.result.clone().unwrap_or_else(|| {
                        reader
                            .last_game_record()
                            .map(|g| recorded_result(&g.record))
                            .unwrap_or_default()
                    })
                };
                search_followed(&game, query, result)
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
