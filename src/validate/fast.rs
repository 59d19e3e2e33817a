//! The short way through CSA text: each game is replayed as its lines are read, with no
//! record built, when it is written the plain way machines write it (see
//! [`crate::formats::csa::scan`]) and every move is legal. Any other game is read and
//! validated the full way, so the reports are exactly those of
//! [`formats::read`](crate::formats::read) followed by [`validate_game`](super::validate_game)
//! (`tests/fast_equivalence.rs` compares the two).

use crate::core::{Color, Move, Position, RepetitionOutcome, RepetitionTracker};
use crate::formats::csa::{self, scan::Line};
use crate::record::{Span, Special};

use super::replay::{Ending, LineEnd, Over, verify_ending};
use super::result::{GameResult, special_name, winner_of};
use super::{Options, Report};

/// What the short way made of one game.
enum Fast {
    /// Only blank lines: no game.
    Empty,
    /// The game's report.
    Done(Report),
    /// The game needs the reader.
    Fallback,
}

/// Reads and validates every game of a CSA text (games separated by `/` lines), in order:
/// the same reports as reading the text with [`csa::read`] and validating each game with
/// [`validate_game`](super::validate_game), found faster for games written the plain way.
pub fn validate_csa(text: &str, opts: &Options) -> Vec<Report> {
    validate_csa_counting(text, opts).0
}

/// [`validate_csa`], and how many of the games took the short way (for tests and
/// benchmarks).
#[doc(hidden)]
pub fn validate_csa_counting(text: &str, opts: &Options) -> (Vec<Report>, usize) {
    let mut reports = Vec::new();
    let mut short = 0usize;
    let bytes = text.as_bytes();
    // The current game: its first byte and the line number of its first line (from 0).
    let mut game_start = 0usize;
    let mut game_line = 0u32;
    let mut line_no = 0u32;
    let mut start = 0usize;
    loop {
        let end = memchr_newline(bytes, start);
        let raw = text.get(start..end).unwrap_or("");
        let line = raw.strip_suffix('\r').unwrap_or(raw);
        let last = end >= bytes.len();
        if line == "/" {
            let game = text.get(game_start..start).unwrap_or("");
            short += usize::from(one_game(game, game_line, opts, &mut reports));
            game_start = end + 1;
            game_line = line_no + 1;
        } else if last {
            let game = text.get(game_start..).unwrap_or("");
            short += usize::from(one_game(game, game_line, opts, &mut reports));
        }
        if last {
            break;
        }
        start = end + 1;
        line_no = line_no.saturating_add(1);
    }
    (reports, short)
}

fn memchr_newline(bytes: &[u8], from: usize) -> usize {
    bytes
        .get(from..)
        .and_then(|rest| rest.iter().position(|&b| b == b'\n'))
        .map_or(bytes.len(), |i| from + i)
}

/// Validates one game (no `/` line in it) whose first line is line `first_line + 1` of the
/// text, and appends its report, if it is a game. Returns whether it took the short way.
fn one_game(game: &str, first_line: u32, opts: &Options, reports: &mut Vec<Report>) -> bool {
    match replay_plain(game, opts) {
        Fast::Empty => false,
        Fast::Done(mut r) => {
            if first_line > 0 {
                for d in &mut r.diagnostics {
                    if let Some(l) = d.line.as_mut() {
                        *l = l.saturating_add(first_line);
                    }
                }
            }
            reports.push(r);
            true
        }
        Fast::Fallback => {
            for mut g in csa::read(game) {
                if first_line > 0 {
                    g.record.shift_lines(first_line);
                    for d in &mut g.diagnostics {
                        if let Some(l) = d.line.as_mut() {
                            *l = l.saturating_add(first_line);
                        }
                    }
                }
                reports.push(super::validate_game(&mut g, opts));
            }
            false
        }
    }
}

/// Replays one game line by line; `Fallback` at the first line or move the short way does
/// not handle (anything the reader or the rules would report, and unusual layouts).
fn replay_plain(game: &str, opts: &Options) -> Fast {
    let mut seen = false;
    let mut moves_phase = false;
    let mut pos = Position::startpos();
    let mut history: Option<RepetitionTracker> = None;
    let mut plies = 0u32;
    let mut over: Option<Over> = None;
    let mut repetition_at_end: Option<Over> = None;
    let mut special: Option<Special> = None;
    let mut last_span = Span::default();
    let bytes = game.as_bytes();
    let mut start = 0usize;
    let mut line_no = 0u32;
    while start < bytes.len() {
        let end = memchr_newline(bytes, start);
        let raw = game.get(start..end).unwrap_or("");
        start = end + 1;
        line_no += 1;
        let line = raw.strip_suffix('\r').unwrap_or(raw);
        match csa::scan::classify(line) {
            Line::Blank => continue,
            Line::Info => {}
            Line::EvenStart => {
                if moves_phase {
                    return Fast::Fallback;
                }
            }
            Line::Turn(c) => {
                if moves_phase || c != Color::Black {
                    return Fast::Fallback;
                }
                moves_phase = true;
            }
            Line::Time => {
                if !moves_phase || (plies == 0 && special.is_none()) {
                    return Fast::Fallback;
                }
            }
            Line::Special(kind, text) => {
                if !moves_phase || special.is_some() {
                    return Fast::Fallback;
                }
                special = Some(Special {
                    kind,
                    text: text.to_owned(),
                    side: kind.named_side(),
                });
                last_span = Span::new(line_no, 1);
            }
            Line::Move {
                color,
                from,
                to,
                kind,
            } => {
                if !moves_phase || special.is_some() || over.is_some() || color != pos.turn() {
                    return Fast::Fallback;
                }
                let mv = match from {
                    None if kind.is_hand_kind() => Move::Drop { kind, to },
                    None => return Fast::Fallback,
                    Some(from) => {
                        let Some(p) = pos.piece_at(from).filter(|p| p.color == color) else {
                            return Fast::Fallback;
                        };
                        let promote = if p.kind == kind {
                            false
                        } else if p.kind.promote() == Some(kind) {
                            true
                        } else {
                            return Fast::Fallback;
                        };
                        Move::Normal { from, to, promote }
                    }
                };
                if !matches!(pos.play_checked(mv), Ok((_, None))) {
                    return Fast::Fallback;
                }
                let gives_check = pos.in_check();
                let history = history.get_or_insert_with(|| {
                    let mut h = RepetitionTracker::new(&Position::startpos());
                    h.reserve(256);
                    h
                });
                let repetition = history.push_with_check(&pos, gives_check);
                repetition_at_end = None;
                if gives_check && !pos.has_legal_move() {
                    over = Some(Over::Mate(pos.turn()));
                } else if let Some(outcome) = repetition {
                    let rep = Over::Repetition {
                        perpetual: match outcome {
                            RepetitionOutcome::PerpetualCheck { loser } => Some(loser),
                            RepetitionOutcome::Draw => None,
                        },
                    };
                    over = Some(rep);
                    repetition_at_end = Some(rep);
                }
                plies += 1;
                last_span = Span::new(line_no, 1);
            }
            Line::Other => return Fast::Fallback,
        }
        seen = true;
    }
    if !seen {
        return Fast::Empty;
    }
    let to_move = pos.turn();
    let mut report = Report {
        plies,
        result: match &special {
            Some(s) => GameResult {
                recorded: Some(special_name(s.kind).to_owned()),
                winner: winner_of(s, to_move),
            },
            None => GameResult::default(),
        },
        ..Report::default()
    };
    let ending = Ending {
        plies,
        to_move,
        span: last_span,
        special: special.as_ref(),
        specials: u32::from(special.is_some()),
        footer: None,
        declaration_points: opts.declaration_points.unwrap_or(27),
    };
    let end = LineEnd {
        pos: Some(pos),
        over,
        fouls: Vec::new(),
        repetition_at_end,
    };
    verify_ending(&ending, &end, &mut report);
    super::sort_by_position(&mut report);
    Fast::Done(report)
}
