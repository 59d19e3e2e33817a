//! The replay and the ending of a game judged as it is read ([`judge`](super::judge)): the
//! board of a main line played move by move with no record built ([`Plain`]), and the report
//! at its end ([`finish`]), which are exactly what [`validate_game`](super::validate_game)
//! finds for a game whose moves the rules accept.

use std::sync::OnceLock;

use crate::core::{Color, Move, Position, RepetitionTracker};
use crate::formats::time_control::TimeControl;
use crate::record::{Footer, RawText, Span, Special};

use super::clock::{Clock, Overrun};
use super::ending::{Ending, verify_ending};
use super::replay::{LineEnd, Over};
use super::result::GameResult;
use super::{GameInfo, Options, Report};

/// One game of a text as the readers' judges found it.
// Handed to the caller at once, one per game: not worth a box.
#[allow(clippy::large_enum_variant)]
pub(crate) enum Found<S> {
    /// Read the short way: its report, what the sink gathered, the final position.
    Short(Report, S, Position),
    /// Read and validated the full way.
    Full(crate::formats::ParsedGame, Report),
}

impl<S> Found<S> {
    pub(super) fn into_report(self) -> Report {
        match self {
            Found::Short(r, ..) | Found::Full(_, r) => r,
        }
    }
}

thread_local! {
    /// Each thread's repetition table, kept between texts: a batch validates thousands of
    /// small files, and the table is cleared per game in constant time.
    static HISTORY: std::cell::Cell<Option<RepetitionTracker>> = const { std::cell::Cell::new(None) };
}

/// This thread's repetition table (a new one the first time), with room for a long game.
pub(super) fn take_history() -> RepetitionTracker {
    HISTORY.with(|h| h.take()).unwrap_or_else(|| {
        let mut t = RepetitionTracker::default();
        t.reserve(512);
        t
    })
}

/// Keeps `history` for this thread's next text.
pub(super) fn give_back_history(history: RepetitionTracker) {
    HISTORY.with(|h| h.set(Some(history)));
}

/// A main line replayed move by move as the rules replay (`replay::Replayer`) does for a line without fouls,
/// with one difference that changes no result: the mate test after a check waits until it
/// matters. A legal next move shows that the side in check had one; only a check that ends
/// the line (or meets a repetition) is tested.
pub(super) struct Plain<'h> {
    pub(super) pos: Position,
    history: &'h mut RepetitionTracker,
    pub(super) plies: u32,
    over: Option<Over>,
    /// The ply of the move that ended the game on the board.
    over_at: Option<u32>,
    repetition_at_end: Option<Over>,
    /// The last move gave check and its mate test is put off.
    check_pending: bool,
    /// The clocks, where the game has a time control and every move so far has its time.
    clock: Option<Clock>,
    /// The side whose move's `T` line is still to come.
    awaiting_time: Option<Color>,
}

/// The even start, made once.
fn start() -> &'static Position {
    static START: OnceLock<Position> = OnceLock::new();
    START.get_or_init(Position::startpos)
}

impl<'h> Plain<'h> {
    pub(super) fn new(history: &'h mut RepetitionTracker) -> Plain<'h> {
        let plain = Plain {
            pos: start().clone(),
            history,
            plies: 0,
            over: None,
            over_at: None,
            repetition_at_end: None,
            check_pending: false,
            clock: None,
            awaiting_time: None,
        };
        plain.history.reset(&plain.pos);
        plain
    }

    /// Back to the even start, for the next game.
    pub(super) fn restart(&mut self) {
        self.pos.clone_from(start());
        self.history.reset(&self.pos);
        self.plies = 0;
        self.over = None;
        self.over_at = None;
        self.repetition_at_end = None;
        self.check_pending = false;
        self.clock = None;
        self.awaiting_time = None;
    }

    /// Follows the clocks of `control` from here (none: no clock).
    pub(super) fn set_clock(&mut self, control: Option<TimeControl>) {
        self.clock = control.map(Clock::new);
    }

    /// Whether the clocks are followed.
    #[inline]
    pub(super) fn clock_runs(&self) -> bool {
        self.clock.is_some()
    }

    /// The time of the move just played, `ms` milliseconds: `Err` when it was made with no
    /// time left (the clock is not followed further, as the record's validation stops at the
    /// first), or when the time is not the time of a move (a second time for one move).
    #[inline]
    pub(super) fn time(&mut self, ms: u64) -> Result<(), TimeFault> {
        let Some(clock) = &mut self.clock else {
            return Ok(());
        };
        let side = self.awaiting_time.take().ok_or(TimeFault::Unsure)?;
        clock.play(side, ms).map_err(|o| {
            self.clock = None;
            TimeFault::Overrun(o)
        })
    }

    /// Whether the clock contradicts a loss on time recorded for the side to move, whose
    /// thinking is written as `ms` after the ending.
    pub(super) fn flag_contradicted(&self, ms: Option<u64>) -> bool {
        let (Some(clock), None, Some(ms)) = (&self.clock, self.awaiting_time, ms) else {
            return false;
        };
        ms > 0 && clock.time_left_at_flag(self.pos.turn(), ms).is_some()
    }

    /// Plays a move; `false` when the full way must decide (a rule broken, or a move after
    /// the end of the game). After a mate every move breaks a rule, so a put-off mate test
    /// never lets a move after the end through.
    #[inline]
    pub(super) fn play(&mut self, mv: Move) -> bool {
        // Every move so far was legal, so the side not to move is not in check: what
        // `play_if_legal` needs.
        let to_move = self.pos.turn().flip();
        if self.over.is_some() || !self.pos.play_if_legal(mv) {
            return false;
        }
        self.check_pending = false;
        if self.clock.is_some() && self.awaiting_time.replace(to_move.flip()).is_some() {
            // The move before had no time: the clock cannot be followed further.
            self.clock = None;
        }
        let gives_check = self.pos.in_check();
        let repetition = self
            .history
            .push_parts(self.pos.key(), to_move, gives_check);
        self.repetition_at_end = None;
        if repetition.is_some() {
            self.over_at = Some(self.plies + 1);
        }
        if let Some(outcome) = repetition {
            // A mate comes before a repetition: test it now.
            if gives_check && !self.pos.has_legal_move() {
                self.over = Some(Over::Mate(self.pos.turn()));
            } else {
                let rep = Over::repetition(outcome);
                self.over = Some(rep);
                self.repetition_at_end = Some(rep);
            }
        } else {
            self.check_pending = gives_check;
        }
        self.plies += 1;
        true
    }

    /// The line's end as the rules replay gives it (no fouls: none is played here), the final
    /// position taken.
    fn end(&mut self) -> LineEnd {
        let (mut over, mut over_at) = (self.over, self.over_at);
        if self.check_pending && !self.pos.has_legal_move() {
            over = Some(Over::Mate(self.pos.turn()));
            over_at = Some(self.plies);
        }
        LineEnd {
            pos: Some(std::mem::replace(&mut self.pos, start().clone())),
            over,
            over_at,
            fouls: Vec::new(),
            repetition_at_end: self.repetition_at_end,
        }
    }
}

/// Why a move's time does not simply go on the clock.
pub(super) enum TimeFault {
    /// The move was made with no time left for it.
    Overrun(Overrun),
    /// The record's validation decides (the time is not the time of a move).
    Unsure,
}

/// The first move of a game made with no time left for it: the overrun, the move's ply,
/// where it was read, the move and its text.
pub(super) struct OverrunAt {
    pub(super) overrun: Overrun,
    pub(super) ply: u32,
    pub(super) span: Span,
    pub(super) mv: Move,
    pub(super) raw: RawText,
}

/// The report of a game replayed the short way to its end, with the findings of its first
/// move made with no time left under the time control given, if any (what the record's
/// clock check finds).
pub(super) fn finish(
    game: &mut Plain<'_>,
    special: Option<Special>,
    last_span: Span,
    info: GameInfo,
    footer: Option<&Footer>,
    opts: &Options,
    overrun: Option<(OverrunAt, TimeControl)>,
) -> (Report, Position) {
    let (plies, to_move) = (game.plies, game.pos.turn());
    let mut end = game.end();
    let mut report = Report {
        plies,
        result: special
            .as_ref()
            .map_or_else(GameResult::default, |s| GameResult::of_special(s, to_move)),
        info,
        ..Report::default()
    };
    let ending = Ending {
        plies,
        to_move,
        span: last_span,
        special: special.as_ref(),
        specials: u32::from(special.is_some()),
        last_special: None,
        footer,
        declaration_points: opts.declaration_points.unwrap_or(27),
    };
    verify_ending(&ending, &end, &mut report);
    if let Some((at, control)) = overrun {
        super::clock::overrun_findings(
            &at.overrun,
            &control,
            (at.ply, at.span),
            &at.mv.to_usi(),
            &at.raw,
            &mut report,
        );
    }
    super::sort_by_position(&mut report);
    let pos = end.pos.take().unwrap_or_else(Position::startpos);
    (report, pos)
}

/// Whether a `'summary:` line (`text`, after its `'`) is a verdict the short way may leave unread: one the reader
/// ignores too (not a summary it reads), or one naming the `%` special that ends the game
/// and the winner that special gives with `to_move` to move.
pub(super) fn summary_agrees(text: &str, special: Option<&Special>, to_move: Color) -> bool {
    let Some(summary) = crate::formats::csa::server_summary(text) else {
        return true;
    };
    special.is_some_and(|s| {
        summary.kind == Some(s.kind)
            && super::result::winner_of(s, to_move)
                == Some(
                    summary
                        .winner
                        .map_or(super::Winner::Draw, super::Winner::of),
                )
    })
}
