//! The short ways of `find` through USI and CSA text: plain lines and games are followed
//! without building a record (as `validate`'s short ways do), anything else goes through the
//! reader; `tests.rs` checks that both find the same.

use crate::core::{Handicap, Move, Position};
use crate::formats::csa;
use crate::formats::usi::{Tokens, game_lines};
use crate::formats::visit::{Skip, Visitor, WrittenMove, WrittenSpecial};
use crate::record::{Span, StartPosition};
use crate::validate::result::recorded_result;
use crate::validate::{GameResult, csa_move};

use super::{Hit, Query, UnitHits, UsiLine, search, search_line};

/// The short way through a plain USI line (`[position] startpos [moves m1 m2 ...]`, ASCII,
/// every token a move): its moves, without building a record. `None` for any other line
/// (another start, an ending token, a token that is not a move), which the reader reads.
fn plain_usi(line: &str) -> Option<UsiLine> {
    let tokens = Tokens::new(line);
    if !tokens.is_ascii() {
        return None;
    }
    let mut tokens = tokens.peekable();
    if tokens.peek().is_some_and(|(t, _)| *t == "position") {
        tokens.next();
    }
    if tokens.next()?.0 != "startpos" {
        return None;
    }
    match tokens.next() {
        None | Some(("moves", _)) => {}
        Some(_) => return None,
    }
    let moves = tokens
        .map(|(t, _)| Move::from_usi(t).ok())
        .collect::<Option<Vec<Move>>>()?;
    Some(UsiLine {
        pos: Position::startpos(),
        moves,
        ply: 0,
    })
}

/// Searches the games of a USI text (one per line): plain lines the short way, any other
/// through the reader. `None` when the text holds no game (the reader says why).
pub(super) fn search_usi(text: &str, query: &Query) -> Option<UnitHits> {
    let mut out = UnitHits::default();
    for (i, (_, line)) in game_lines(text).enumerate() {
        let (hit, plies) = match plain_usi(line) {
            // A line with no ending and no footer has no recorded result.
            Some(cursor) => search_line(cursor, query, GameResult::default),
            None => match crate::formats::usi::read(line).first() {
                Some(g) => search(&g.record, query),
                None => (None, 0),
            },
        };
        out.games += 1;
        out.plies += u64::from(plies);
        if let Some(mut h) = hit {
            h.index = i;
            out.hits.push(h);
        }
    }
    (out.games > 0).then_some(out)
}

/// The short way of `find` through a CSA game, told by the reader: the moves of a game from
/// the even start that the reader read without a finding (each move carried out), with the
/// query's key of each position (the start and after each move), or `None`: the game is read
/// into a record.
struct CsaMoves<'q> {
    query: &'q Query,
    pos: Position,
    moves: Vec<Move>,
    keys: Vec<u64>,
    /// The game needs its record.
    unsure: bool,
    ended: bool,
}

impl Visitor for CsaMoves<'_> {
    type Output = Option<(Vec<Move>, Vec<u64>)>;
    const SKIP: Skip = Skip::TIMES.and(Skip::COMMENTS);

    fn begin_game(&mut self, _line: u32) {
        self.pos = Position::startpos();
        self.moves = Vec::new();
        self.keys = vec![self.query.key(&self.pos)];
        self.unsure = false;
        self.ended = false;
    }

    fn start(&mut self, start: &StartPosition) {
        self.unsure |= *start != StartPosition::Preset(Handicap::Even);
    }

    fn mv(&mut self, mv: &WrittenMove<'_>, _span: Span) {
        if self.unsure {
            return;
        }
        let played = (!self.ended)
            .then(|| csa_move(&self.pos, mv))
            .flatten()
            .filter(|&m| self.pos.play_unchecked(m).is_ok());
        match played {
            Some(m) => {
                self.moves.push(m);
                self.keys.push(self.query.key(&self.pos));
            }
            None => self.unsure = true,
        }
    }

    fn special(&mut self, _special: &WrittenSpecial<'_>, _span: Span) {
        self.unsure |= std::mem::replace(&mut self.ended, true);
    }

    fn diagnostic(&mut self, _diagnostic: crate::diag::Diagnostic) {
        self.unsure = true;
    }

    fn end_game(&mut self) -> Self::Output {
        if self.unsure {
            return None;
        }
        Some((
            std::mem::take(&mut self.moves),
            std::mem::take(&mut self.keys),
        ))
    }
}

/// [`search_line`] for a game already played from the even start (every move carried out):
/// the keys are compared, and a position whose key matches is played again to be compared in
/// full.
fn search_scanned(
    moves: &[Move],
    keys: &[u64],
    query: &Query,
    result: impl FnOnce() -> GameResult,
) -> (Option<Hit>, u32) {
    let plies = moves.len() as u32;
    match query {
        Query::Moves(want) => {
            if let Some(j) = want.iter().zip(moves).position(|(a, b)| a != b) {
                return (None, j as u32 + 1);
            }
            if want.len() > moves.len() {
                return (None, plies);
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
        Query::Position { target, .. } => {
            let want = query.key(target);
            let mut found: Option<u32> = None;
            let mut times = 0;
            let mut line: Option<UsiLine> = None;
            for (i, _) in keys.iter().enumerate().filter(|&(_, &k)| k == want) {
                let line = line.get_or_insert_with(|| UsiLine {
                    pos: Position::startpos(),
                    moves: moves.to_vec(),
                    ply: 0,
                });
                line.advance_to(i as u32);
                if query.same(&line.pos) {
                    times += 1;
                    found.get_or_insert(i as u32);
                }
            }
            let hit = found.map(|ply| Hit {
                index: 0,
                ply,
                times,
                next: moves.get(ply as usize).copied(),
                result: result(),
            });
            (hit, plies)
        }
    }
}

/// Searches the games of a CSA text (games separated by `/` lines): plain games the short way
/// (the result of a game found read by the reader), any other through the reader. `None` when
/// the text holds no game (the reader says why).
pub(super) fn search_csa(text: &str, query: &Query) -> Option<UnitHits> {
    // The one-line CSA of the 2chkifu collection is the reader's alone; a game of any other
    // text is read as part of it (`read_lines`), never as the one-line CSA on its own.
    if csa::is_one_line(text) {
        return None;
    }
    let mut out = UnitHits::default();
    let mut reader = csa::Reader::new(text);
    let mut short = CsaMoves {
        query,
        pos: Position::startpos(),
        moves: Vec::new(),
        keys: Vec::new(),
        unsure: false,
        ended: false,
    };
    while let Some(scanned) = reader.read_game(&mut short) {
        let (hit, plies) = match scanned {
            Some((moves, keys)) => {
                let result = || {
                    reader
                        .last_game_record()
                        .map(|g| recorded_result(&g.record))
                        .unwrap_or_default()
                };
                search_scanned(&moves, &keys, query, result)
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
