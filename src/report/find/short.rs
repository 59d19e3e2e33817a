//! The short ways of `find` through USI and CSA text: plain lines and games are followed
//! without building a record (as `validate`'s short ways do), anything else goes through the
//! reader; `tests.rs` checks that both find the same.

use crate::core::{Color, Move, Position};
use crate::formats::csa;
use crate::formats::csa::scan::{GameLines, Line};
use crate::formats::usi::{Tokens, game_lines};
use crate::validate::GameResult;
use crate::validate::result::recorded_result;

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

/// What the short way made of one CSA game.
enum CsaGame {
    /// Only blank lines: no game.
    Empty,
    /// The even start and these moves, every line of the usual kind, with the query's key of
    /// each position (the start and after each move).
    Moves(Vec<Move>, Vec<u64>),
    /// Anything else: the reader reads the game.
    Fallback,
}

/// Scans one CSA game (up to its `/` line or the end): the moves of a game from the even
/// start written the plain way (version, names, `$` lines, comments, `PI`, `+`, move lines
/// that resolve and can be carried out, `T` lines, one known `%` ending, in that order).
fn plain_csa(lines: &mut GameLines<'_>, query: &Query) -> CsaGame {
    let (mut seen, mut even, mut moves_phase, mut ended) = (false, false, false, false);
    let mut pos = Position::startpos();
    let mut moves = Vec::new();
    let mut keys = vec![query.key(&pos)];
    while let Some(line) = lines.next_line() {
        match line {
            Line::Blank => continue,
            Line::Info(_) if !moves_phase => {}
            Line::EvenStart if !moves_phase => even = true,
            Line::Turn(Color::Black) if even && !moves_phase => moves_phase = true,
            Line::Time(_) if moves_phase => {}
            Line::Special(..) if moves_phase && !ended => ended = true,
            Line::Move {
                color,
                from,
                to,
                kind,
            } if moves_phase && !ended && color == pos.turn() => {
                let mv = match from {
                    None if kind.is_hand_kind() => Move::Drop { kind, to },
                    None => return CsaGame::Fallback,
                    Some(from) => match pos.piece_at(from) {
                        Some(p) if p.color == color && p.kind == kind => Move::Normal {
                            from,
                            to,
                            promote: false,
                        },
                        Some(p) if p.color == color && p.kind.promote() == Some(kind) => {
                            Move::Normal {
                                from,
                                to,
                                promote: true,
                            }
                        }
                        _ => return CsaGame::Fallback,
                    },
                };
                if pos.play_unchecked(mv).is_err() {
                    return CsaGame::Fallback;
                }
                moves.push(mv);
                keys.push(query.key(&pos));
            }
            _ => return CsaGame::Fallback,
        }
        seen = true;
    }
    match (seen, moves_phase) {
        (false, _) => CsaGame::Empty,
        (true, true) => CsaGame::Moves(moves, keys),
        (true, false) => CsaGame::Fallback,
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
    let mut lines = GameLines::new(text);
    loop {
        let start = lines.at;
        let found: Vec<(Option<Hit>, u32)> = match plain_csa(&mut lines, query) {
            CsaGame::Empty => Vec::new(),
            CsaGame::Moves(moves, keys) => {
                let game = text.get(start..lines.game_end).unwrap_or("");
                let result = || {
                    csa::read_lines(game)
                        .first()
                        .map(|g| recorded_result(&g.record))
                        .unwrap_or_default()
                };
                vec![search_scanned(&moves, &keys, query, result)]
            }
            CsaGame::Fallback => {
                let end = lines.skip_game();
                let game = text.get(start..end).unwrap_or("");
                csa::read_lines(game)
                    .iter()
                    .map(|g| search(&g.record, query))
                    .collect()
            }
        };
        for (hit, plies) in found {
            out.plies += u64::from(plies);
            if let Some(mut h) = hit {
                h.index = out.games as usize;
                out.hits.push(h);
            }
            out.games += 1;
        }
        if !lines.more_games {
            break;
        }
    }
    (out.games > 0).then_some(out)
}
