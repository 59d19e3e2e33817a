//! The short way through JKF text ([`validate_jkf`]): the game is replayed as its entries are
//! read, with no record built, when the document has the plain shape writers produce (a
//! header, the even start, entries of a `move` with its `time` or a `special`, no comments,
//! no variations: [`jkf::plain_game`]) and every move is legal. At the first entry the reader
//! or the rules would report, or that carries what the short way does not follow (a comment,
//! a variation, a move after the ending, a declaration, a time control in the header), the
//! text is read and validated the full way, so the reports are exactly those of
//! [`jkf::read`] followed by [`validate_game`](super::validate_game)
//! (`tests/library/fast_jkf_equivalence.rs` compares the two).

use crate::core::{Color, Move, Position, RepetitionTracker};
use crate::formats::jkf::{self, PlainEntry, PlainMove};
use crate::formats::time_control::TimeControl;
use crate::record::{Footer, Header, MoveTime, Span, Special, SpecialKind};

use super::ending::{Ending, verify_ending};
use super::fast::{Found, Plain, give_back_history, take_history};
use super::gather::Sink;
use super::result::GameResult;
use super::{GameInfo, Options, Report};

/// Reads and validates a JKF text (one game): the same report as reading it with
/// [`jkf::read`] and validating the game with [`validate_game`](super::validate_game), found
/// faster for documents of the plain shape.
pub fn validate_jkf(text: &str, opts: &Options) -> Vec<Report> {
    validate_jkf_counting(text, opts).0
}

/// [`validate_jkf`], and how many of the games took the short way (for tests and
/// benchmarks).
#[doc(hidden)]
pub fn validate_jkf_counting(text: &str, opts: &Options) -> (Vec<Report>, usize) {
    let mut reports = Vec::new();
    let short = jkf_games::<()>(text, opts, |g| {
        reports.push(match g {
            Found::Short(r, ..) | Found::Full(_, r) => r,
        });
    });
    (reports, short)
}

/// The game of a JKF text to `each` (as [`validate_jkf`] finds it): read the short way, with
/// what `S` gathered of it and its final position, or read the full way; returns how many
/// took the short way (0 or 1).
pub(crate) fn jkf_games<S: Sink>(
    text: &str,
    opts: &Options,
    mut each: impl FnMut(Found<S>),
) -> usize {
    let mut history = take_history();
    // The options bear on declarations, which the full way judges, and on the clock, which
    // the full way follows where a time control is given for the run.
    let fast = opts
        .time_control
        .is_none()
        .then(|| plain::<S>(text, &mut history))
        .flatten();
    give_back_history(history);
    match fast {
        Some((report, sink, pos)) => {
            each(Found::Short(report, sink, pos));
            1
        }
        None => {
            for mut g in jkf::read(text) {
                let r = super::validate_game(&mut g, opts);
                each(Found::Full(g, r));
            }
            0
        }
    }
}

/// What the replay has read of the entries.
struct Game<S> {
    special: Option<(Special, Span)>,
    last_span: Option<Span>,
    /// Each side's cumulative time so far (`check_times`).
    totals: [u64; 2],
    sink: S,
}

/// The report of `text` the short way, what `S` gathered and the final position, or `None`
/// for the full way.
fn plain<S: Sink>(text: &str, history: &mut RepetitionTracker) -> Option<(Report, S, Position)> {
    let mut board = Plain::new(history);
    let mut game = Game {
        special: None,
        last_span: None,
        totals: [0, 0],
        sink: S::default(),
    };
    let header = jkf::plain_game(text, |entry, time, span| {
        game.entry(entry, time, span, &mut board)
    })?;
    let Game {
        special,
        last_span,
        sink,
        ..
    } = game;
    // JKF has no footer.
    finish(header, None, special, last_span, sink, board)
}

impl<S: Sink> Game<S> {
    /// Takes one entry; `None` when the full way must read the text.
    #[inline]
    fn entry(
        &mut self,
        entry: PlainEntry,
        time: Option<MoveTime>,
        span: Span,
        board: &mut Plain<'_>,
    ) -> Option<()> {
        // Nothing after the ending: a move there, or a second ending, is the full way's.
        if self.special.is_some() {
            return None;
        }
        let mover = board.pos.turn();
        match entry {
            PlainEntry::Move(m) => {
                let mv = resolve(&board.pos, &m)?;
                if !board.play(mv) {
                    return None;
                }
                self.time(mover, time)?;
                self.sink.played(mv);
                if S::TIMES
                    && let Some(ms) = time.and_then(|t| t.elapsed_ms)
                {
                    self.sink.time(ms);
                }
                self.last_span = Some(span);
            }
            PlainEntry::Special(s) => {
                if s.kind == SpecialKind::Declaration {
                    return None;
                }
                // An ending's time is on the clock of the side to move.
                self.time(mover, time)?;
                self.special = Some((s, span));
            }
        }
        Some(())
    }

    /// A time on `side`'s clock, counted as `check_times` counts it: `None` when the total
    /// is not the previous one plus this time, to within a second (a `time-mismatch` for the
    /// full way).
    #[inline]
    fn time(&mut self, side: Color, time: Option<MoveTime>) -> Option<()> {
        let Some(t) = time else {
            return Some(());
        };
        let slot = self.totals.get_mut(side.index())?;
        *slot = match (t.elapsed_ms, t.total_ms) {
            (Some(elapsed), Some(total)) => {
                if slot.saturating_add(elapsed).abs_diff(total) > 1000 {
                    return None;
                }
                total
            }
            (_, Some(total)) => total,
            (elapsed, None) => slot.saturating_add(elapsed.unwrap_or(0)),
        };
        Some(())
    }
}

/// The move a plain move names in `pos`, or `None` when the full way must decide: a move
/// written for the side not to move, no piece of the side to move at the source, another
/// piece than the one named, a drop of a piece that cannot be in hand.
#[inline]
fn resolve(pos: &Position, m: &PlainMove) -> Option<Move> {
    if m.color.is_some_and(|c| c != pos.turn()) {
        return None;
    }
    match m.from {
        None => m.kind.is_hand_kind().then_some(Move::Drop {
            kind: m.kind,
            to: m.to,
        }),
        Some(from) => {
            let p = pos.piece_at(from).filter(|p| p.color == pos.turn())?;
            (p.kind == m.kind).then_some(Move::Normal {
                from,
                to: m.to,
                promote: m.promote,
            })
        }
    }
}

/// The report of a game of KIF, KI2 or JKF replayed the short way to its end (its `header`,
/// its `footer` if any, its ending `special`, the span of its last move and what `sink`
/// gathered), with `sink` and the final position; `None` for endings the short way leaves to
/// the full way (none but the footer's, or none at all in an empty text), or a time control to
/// follow.
pub(super) fn finish<S: Sink>(
    header: Header,
    footer: Option<Footer>,
    special: Option<(Special, Span)>,
    last_span: Option<Span>,
    mut sink: S,
    board: Plain<'_>,
) -> Option<(Report, S, Position)> {
    if (special.is_none() && (footer.is_some() || last_span.is_none()))
        || TimeControl::of(&header).is_some()
    {
        return None;
    }
    let plies = board.plies;
    let to_move = board.pos.turn();
    let mut report = Report {
        plies,
        result: special.as_ref().map_or_else(GameResult::default, |(s, _)| {
            GameResult::of_special(s, to_move)
        }),
        info: GameInfo::of(&header),
        ..Report::default()
    };
    let ending = Ending {
        plies,
        to_move,
        span: special
            .as_ref()
            .map(|(_, span)| *span)
            .or(last_span)
            .unwrap_or_default(),
        special: special.as_ref().map(|(s, _)| s),
        // The count of specials is only read for a footer that counts moves.
        specials: match &footer {
            Some(f) if f.plies.is_some() => u32::from(special.is_some()),
            _ => 0,
        },
        last_special: None,
        footer: footer.as_ref(),
        declaration_points: 0,
    };
    let end = board.line_end();
    verify_ending(&ending, &end, &mut report);
    super::sort_by_position(&mut report);
    sink.header(header);
    Some((report, sink, end.pos?))
}
