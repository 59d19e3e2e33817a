//! The clock: each side's recorded times held against the recorded time control, move by move.
//!
//! Two findings come of it. A move made when its side had no time left for it is
//! `time-exceeded` (a warning: clocks in records are often written by hand or rounded; an
//! organiser who trusts them makes it an error with `--deny time-exceeded`). A loss on time
//! (`%TIME_UP`, `切れ負け`, `時間切れ`) recorded for a side that the recorded times show had time
//! left is `result-mismatch`. Where the record states no time control this module reads
//! ([`TimeControl`]), or its moves carry no times, it says nothing.
//!
//! How the time is counted. Each side has its main time; a move takes its recorded time from
//! it; once it is spent, each move may take the byoyomi; an increment (Fischer) is added after
//! each move. Recorded times are the programs' whole seconds (CSA `T`, KIF `m:ss`), truncated,
//! so the recorded sum never exceeds the time really used: a move is reported only when the
//! recorded times exceed the allowance by more than a second, and an increment is granted
//! before the first move too (servers differ on it; the reading that allows more is taken). A
//! time-up claim is contradicted only when the time left, on the reading that allows less, is
//! more than the thinking time written on the ending plus one time unit per move the side made
//! (what truncation can have hidden: a second, or a minute where every time is in whole
//! minutes); a thinking time of zero on the ending is taken as not written (ShogiHome writes
//! `( 0:00/...)` on a `切れ負け` it did not time). Times that are all zero are placeholders, not
//! a clock.
//!
//! Layer: validate.

use crate::core::{Color, Move};
use crate::diag::{Code, Diagnostic};
use crate::formats::time_control::TimeControl;
use crate::record::{MoveTime, RawText, Span, SpecialKind, keys};

use super::findings::{Check, Findings};
use super::line::side as name;
use super::{Report, Winner};

/// What truncating to whole seconds can hide in one move's recorded time.
const SECOND: u64 = 1_000;

/// Both sides' clocks during a game.
#[derive(Debug, Clone)]
pub(crate) struct Clock {
    control: TimeControl,
    /// Main time left, on the reading that allows more (the increment granted at the start).
    left: [u64; 2],
    /// Moves made, per side.
    moves: [u32; 2],
    /// Every recorded time so far is a whole number of minutes.
    whole_minutes: bool,
    /// Some recorded time so far is not zero.
    ticking: bool,
}

/// A move made with no time left for it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Overrun {
    /// The side whose time ran out.
    pub side: Color,
    /// The move's recorded time.
    pub elapsed_ms: u64,
    /// What the side had for it: main time left plus byoyomi.
    pub allowed_ms: u64,
}

impl Clock {
    /// Both clocks at the start of a game under `control`.
    pub(crate) fn new(control: TimeControl) -> Clock {
        let start = |c: Color| {
            let s = control.side(c);
            s.main_ms.saturating_add(s.increment_ms)
        };
        Clock {
            control,
            left: [start(Color::Black), start(Color::White)],
            moves: [0, 0],
            whole_minutes: true,
            ticking: false,
        }
    }

    #[inline]
    fn note(&mut self, elapsed_ms: u64) {
        self.whole_minutes &= elapsed_ms.is_multiple_of(60_000);
        self.ticking |= elapsed_ms > 0;
    }

    /// A move by `side` that took `elapsed_ms`; `Err` when the side had no time left for it
    /// (the clock is then past use: the game was lost on time).
    #[inline]
    pub(crate) fn play(&mut self, side: Color, elapsed_ms: u64) -> Result<(), Overrun> {
        self.note(elapsed_ms);
        let control = *self.control.side(side);
        let left = &mut self.left[side.index()];
        if let Some(byoyomi) = control.byoyomi_ms {
            let allowed_ms = left.saturating_add(byoyomi);
            if elapsed_ms > allowed_ms.saturating_add(SECOND) {
                return Err(Overrun {
                    side,
                    elapsed_ms,
                    allowed_ms,
                });
            }
        }
        *left = left
            .saturating_sub(elapsed_ms)
            .saturating_add(control.increment_ms);
        self.moves[side.index()] += 1;
        Ok(())
    }

    /// A loss on time recorded for `side`, whose thinking until the flag fell is written as
    /// `elapsed_ms`: the time the side still had by the recorded times, where they show it
    /// beyond doubt.
    pub(crate) fn time_left_at_flag(&self, side: Color, elapsed_ms: u64) -> Option<u64> {
        let mut clock = self.clone();
        clock.note(elapsed_ms);
        if !clock.ticking {
            return None;
        }
        let control = clock.control.side(side);
        let left = clock.left[side.index()]
            .saturating_sub(control.increment_ms)
            .saturating_add(control.byoyomi_ms.unwrap_or(0));
        let unit = if clock.whole_minutes {
            60 * SECOND
        } else {
            SECOND
        };
        let slack = unit.saturating_mul(u64::from(clock.moves[side.index()]) + 1);
        let shown = left.saturating_sub(elapsed_ms);
        (shown > slack).then_some(shown)
    }
}

/// The main line's recorded times as the reader tells them, node by node: the stated totals
/// held to the moves' times (`time-mismatch`, once per game) over every node, and the clock
/// of the time control (where there is one) up to the first ending, a move without a time or
/// the first move made with no time left. Nothing is done for a move unless the clock runs
/// or a time comes: the side whose clock a node's time is on follows from the count of
/// moves, and from the side a move names where it is not the one expected.
#[derive(Default)]
pub(super) struct MainTimes {
    /// The side to move after `base` moves as the written moves give it (a move's side where
    /// it names one); it alternates after.
    base: u32,
    base_turn: Color,
    /// The node whose time was told last, plus one (0: none yet).
    timed: u32,
    /// Each side's cumulative time as the stated times give it; `None` once a side's count is
    /// lost. The check stops at its first finding.
    totals: [Option<u64>; 2],
    totals_done: bool,
    /// The clock, while it is followed, and each side's cumulative time by its moves' times.
    clock: Option<Clock>,
    clock_totals: [u64; 2],
    /// Where the text is kept: the last node (its index, whether it is an ending), its move
    /// and its text.
    last: Option<(u32, bool)>,
    mv: Option<Move>,
    text: Option<RawText>,
    /// The first move made with no time left for it: what to report once the result is known.
    pub(super) overrun: Option<OverrunAt>,
}

/// The main line's last node, as [`MainTimes::time`] needs it: its index among the main
/// line's nodes and its ply, where it was read, the moves before it, and the ending it is
/// (if it is one, with its text).
pub(super) struct TimedNode<'a> {
    pub(super) node: u32,
    pub(super) ply: u32,
    pub(super) span: Span,
    pub(super) moves: u32,
    pub(super) special: Option<(SpecialKind, &'a str)>,
}

/// The first move of a game made with no time left for it: the overrun, the move's ply,
/// where it was read, the move (as USI, or as written where it did not resolve) and its text.
pub(super) struct OverrunAt {
    pub(super) overrun: Overrun,
    pub(super) ply: u32,
    pub(super) span: Span,
    pub(super) usi: String,
    pub(super) raw: RawText,
}

/// Why a time could not be taken from what was told: the record must be read.
pub(super) struct NeedsText;

impl MainTimes {
    /// A game from the start, `turn` to move, its clock under `control` (none: no clock).
    pub(super) fn new(turn: Color, control: Option<TimeControl>) -> MainTimes {
        MainTimes {
            base_turn: turn,
            totals: [Some(0); 2],
            clock: control.map(Clock::new),
            ..MainTimes::default()
        }
    }

    /// Whether the clock is followed: a move's text is then kept (a `time-exceeded` names it).
    #[inline(always)]
    pub(super) fn clock_runs(&self) -> bool {
        self.clock.is_some()
    }

    /// The side to move after `moves` moves, as the written moves give it.
    #[inline]
    fn turn_after(&self, moves: u32) -> Color {
        if moves.wrapping_sub(self.base).is_multiple_of(2) {
            self.base_turn
        } else {
            self.base_turn.flip()
        }
    }

    /// A move written for `color` after `moves` moves (a move the quick way did not take):
    /// the side to move after it is the other one.
    pub(super) fn wrote(&mut self, moves: u32, color: Option<Color>) {
        if let Some(c) = color
            && c != self.turn_after(moves)
        {
            self.base = moves + 1;
            self.base_turn = c.flip();
        }
    }

    /// The node at index `node` (ply `ply`) of the main line, where its text is kept (while
    /// the clock runs, and of a record): the clock is not followed past a move without a
    /// time, an ending, or an unread move (at `unread`).
    #[inline(never)]
    pub(super) fn node(
        &mut self,
        node: u32,
        ply: u32,
        ending: bool,
        mv: Option<Move>,
        text: Option<RawText>,
        unread: Option<u32>,
    ) {
        let past = match self.last {
            Some((at, true)) => at + 1 == node,
            Some((at, false)) => self.timed != at + 1,
            None => false,
        };
        if past || unread.is_some_and(|u| ply >= u) {
            self.clock = None;
        }
        self.last = Some((node, ending));
        self.mv = mv;
        self.text = text;
    }

    /// The time of the main line's last node, at index `node`: a move by `mover` where the
    /// caller knows it (a move played the quick way), else the node `at` gives. Its findings
    /// (`time-mismatch`, a loss on time the times contradict) to `out`, and whether there
    /// were any; `Err` when a finding needs the text of a move that was not kept, or the
    /// node's time was told already (the record's reading decides).
    #[inline(always)]
    pub(super) fn time<'a>(
        &mut self,
        time: MoveTime,
        node: u32,
        mover: Option<Color>,
        at: impl Fn() -> TimedNode<'a>,
        out: &mut Findings,
    ) -> Result<bool, NeedsText> {
        if std::mem::replace(&mut self.timed, node + 1) == node + 1 {
            return Err(NeedsText);
        }
        // An ending is on the side to move's clock; a move on its mover's.
        let (side, ending) = match mover {
            Some(mover) => (mover, false),
            None => {
                let at = at();
                match at.special {
                    Some(_) => (self.turn_after(at.moves), true),
                    None => (self.turn_after(at.moves.wrapping_sub(1)), false),
                }
            }
        };
        let mut found = false;
        if !self.totals_done {
            found = self.totals(time, ending, side, &at, out)?;
        }
        if self.clock.is_some() {
            found |= self.on_clock(time, &at(), side, out)?;
        }
        Ok(found)
    }

    /// The stated totals of the last node's `time` (on `side`'s clock) held to the times
    /// before it.
    #[inline(always)]
    fn totals<'a>(
        &mut self,
        time: MoveTime,
        ending: bool,
        side: Color,
        at: &impl Fn() -> TimedNode<'a>,
        out: &mut Findings,
    ) -> Result<bool, NeedsText> {
        // An ending written with a zero time (`投了 ( 0:00/00:00:00)`, as Shogi Wars exports
        // do) says "no time" in its writer's way, not that the clock went back to zero.
        if ending && time.elapsed_ms == Some(0) && time.total_ms == Some(0) {
            return Ok(false);
        }
        let slot = &mut self.totals[side.index()];
        match (time.elapsed_ms, time.total_ms) {
            (Some(elapsed), Some(total)) => {
                if let Some(prev) = *slot
                    && prev.saturating_add(elapsed).abs_diff(total) > 1000
                {
                    return self
                        .mismatch(prev, elapsed, total, &at(), out)
                        .map(|()| true);
                }
                *slot = Some(total);
            }
            // A move without both times: its total is the previous one plus its own time,
            // as writers that must state totals fill it in (`Record::fill_total_times`), so
            // that a later total contradicting it is found in the record as in what is
            // written from it; a stated total alone starts the count afresh.
            (_, Some(total)) => *slot = Some(total),
            (elapsed, None) => *slot = slot.map(|p| p.saturating_add(elapsed.unwrap_or(0))),
        }
        Ok(false)
    }

    /// `time-mismatch` for the last node, whose total is not `prev` plus `elapsed`.
    #[cold]
    fn mismatch(
        &mut self,
        prev: u64,
        elapsed: u64,
        total: u64,
        at: &TimedNode<'_>,
        out: &mut Findings,
    ) -> Result<(), NeedsText> {
        let text = match at.special {
            Some((_, text)) => text,
            None => self
                .text
                .as_ref()
                .filter(|_| self.last.is_some_and(|(n, _)| n == at.node))
                .ok_or(NeedsText)?
                .as_str(),
        };
        let d = Diagnostic::new(
            Code::TimeMismatch,
            format!(
                "cumulative time {} is not the previous total {} plus this move's {}",
                hms(total),
                hms(prev),
                hms(elapsed)
            ),
        )
        .at(at.span)
        .ply(at.ply)
        .written(text);
        out.push(Check::Times, d);
        self.totals_done = true;
        Ok(())
    }

    /// The last node's `time` on `side`'s clock.
    #[inline(never)]
    fn on_clock(
        &mut self,
        time: MoveTime,
        at: &TimedNode<'_>,
        side: Color,
        out: &mut Findings,
    ) -> Result<bool, NeedsText> {
        let elapsed = elapsed_of(time, &mut self.clock_totals[side.index()]);
        let Some(c) = &mut self.clock else {
            return Ok(false);
        };
        let Some((kind, text)) = at.special else {
            // A move without a time: the clock cannot be followed past it.
            let Some(elapsed) = elapsed else {
                self.clock = None;
                return Ok(false);
            };
            if let Err(o) = c.play(side, elapsed) {
                let raw = self.text.clone().ok_or(NeedsText)?;
                let usi = self.mv.map_or_else(|| raw.to_string(), |m| m.to_usi());
                self.overrun = Some(OverrunAt {
                    overrun: o,
                    ply: at.ply,
                    span: at.span,
                    usi,
                    raw,
                });
                self.clock = None;
            }
            return Ok(false);
        };
        let mut any = false;
        // A zero is what writers put where they did not time the flag fall.
        if kind == SpecialKind::Timeout
            && let Some(left) = elapsed
                .filter(|&e| e > 0)
                .and_then(|e| c.time_left_at_flag(side, e))
        {
            let who = name(side);
            let d = Diagnostic::new(
                Code::ResultMismatch,
                format!(
                    "a loss on time is recorded for {who}, but by the recorded times {who} \
                     still had {} (time control {})",
                    hms(left),
                    describe(&c.control)
                ),
            )
            .at(at.span)
            .ply(at.ply)
            .written(text);
            out.push(Check::Clock, d);
            any = true;
        }
        self.clock = None;
        Ok(any)
    }
}

/// `rule-mismatch` where the record states a time control (`stated`, at `at`: the first
/// header entry of a key it is read from) other than the run's (`given`): the record's is
/// used.
pub(super) fn control_mismatch(
    stated: Option<&TimeControl>,
    given: Option<&TimeControl>,
    at: Span,
) -> Option<Diagnostic> {
    let (Some(stated), Some(given)) = (stated, given) else {
        return None;
    };
    (stated != given).then(|| {
        Diagnostic::new(
            Code::RuleMismatch,
            format!(
                "the record states the time control {}, not the {} given for the run: the \
                 record's is used",
                describe(stated),
                describe(given)
            ),
        )
        .at(at)
    })
}

/// The header keys a time control is stated by: the first entry of one is where a
/// `rule-mismatch` about it points.
pub(super) const STATING: [&str; 7] = [
    "$TIME+",
    "$TIME",
    keys::TIME_CONTROL,
    keys::BLACK_TIME_CONTROL,
    keys::BYOYOMI,
    keys::EVENT,
    "表題",
];

/// What a move made with no time left for it gives: `time-exceeded`, and `result-mismatch`
/// where the record gives the game to the side whose time ran out. The move is at `at` (its
/// ply and span), named `usi` and written `raw`.
pub(crate) fn overrun_findings(
    o: &Overrun,
    control: &TimeControl,
    at: (u32, crate::record::Span),
    usi: &str,
    raw: &str,
    report: &mut Report,
) {
    let (ply, span) = at;
    let d = Diagnostic::new(Code::TimeExceeded, overrun_message(o, control))
        .at(span)
        .ply(ply)
        .with_move(usi);
    report.push_move(d, raw);
    // The side whose flag fell lost there: a record that ends later with the game given to
    // it (the other side's later loss on time, or resignation) is wrong.
    if report.result.winner == Some(Winner::of(o.side)) {
        let who = name(o.side);
        let d = Diagnostic::new(
            Code::ResultMismatch,
            format!(
                "{who}'s time ran out at ply {ply} (time control {}), which lost the game, but \
                 the record gives it to {who}",
                describe(control)
            ),
        )
        .at(span)
        .ply(ply)
        .with_move(usi);
        report.push_move(d, raw);
    }
}

/// A node's own time: as written, or its total less the side's previous total (`total`,
/// which it then becomes).
fn elapsed_of(t: MoveTime, total: &mut u64) -> Option<u64> {
    let elapsed = match (t.elapsed_ms, t.total_ms) {
        (Some(e), _) => e,
        (None, Some(now)) => now.checked_sub(*total)?,
        (None, None) => return None,
    };
    *total = t.total_ms.unwrap_or_else(|| total.saturating_add(elapsed));
    Some(elapsed)
}

/// The `time-exceeded` message: the figures that show it.
pub(crate) fn overrun_message(o: &Overrun, control: &TimeControl) -> String {
    format!(
        "{} took {} with {} left (time control {}): {}'s time had run out",
        name(o.side),
        hms(o.elapsed_ms),
        hms(o.allowed_ms),
        describe(control),
        name(o.side)
    )
}

/// A time control in words: `10:00 sudden death`, `1:00:00 + 60 s byoyomi`, `5:00 + 10 s per
/// move`; `black ...; white ...` where the sides differ.
pub(crate) fn describe(control: &TimeControl) -> String {
    let side = |c: Color| {
        let s = control.side(c);
        let mut out = hms(s.main_ms);
        match s.byoyomi_ms {
            Some(0) if s.increment_ms == 0 => out.push_str(" sudden death"),
            Some(0) | None => {}
            Some(b) => out.push_str(&format!(" + {} byoyomi", secs(b))),
        }
        if s.increment_ms > 0 {
            out.push_str(&format!(" + {} per move", secs(s.increment_ms)));
        }
        out
    };
    let (b, w) = (side(Color::Black), side(Color::White));
    if b == w {
        b
    } else {
        format!("black {b}; white {w}")
    }
}

fn secs(ms: u64) -> String {
    if ms.is_multiple_of(1000) {
        format!("{} s", ms / 1000)
    } else {
        format!("{}.{:03} s", ms / 1000, ms % 1000)
    }
}

/// `h:mm:ss` (and `.mmm` where the time has milliseconds): how validation writes a time.
pub(super) fn hms(ms: u64) -> String {
    let s = ms / 1000;
    let mut out = format!("{}:{:02}:{:02}", s / 3600, s / 60 % 60, s % 60);
    if !ms.is_multiple_of(1000) {
        out.push_str(&format!(".{:03}", ms % 1000));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::formats::time_control::SideTime;

    fn control(main_s: u64, byoyomi_s: Option<u64>, inc_s: u64) -> TimeControl {
        TimeControl::both(SideTime {
            main_ms: main_s * 1000,
            byoyomi_ms: byoyomi_s.map(|b| b * 1000),
            increment_ms: inc_s * 1000,
        })
    }

    #[test]
    fn sudden_death_runs_out() {
        let mut c = Clock::new(control(60, Some(0), 0));
        assert!(c.play(Color::Black, 30_000).is_ok());
        assert!(c.play(Color::White, 50_000).is_ok());
        // 30 s left: 31 s is within the second truncation can hide, 32 s is not.
        assert!(c.clone().play(Color::Black, 31_000).is_ok());
        assert_eq!(
            c.play(Color::Black, 32_000),
            Err(Overrun {
                side: Color::Black,
                elapsed_ms: 32_000,
                allowed_ms: 30_000
            })
        );
    }

    #[test]
    fn byoyomi_and_increment() {
        let mut c = Clock::new(control(10, Some(30), 0));
        assert!(c.play(Color::Black, 40_000).is_ok());
        assert!(c.play(Color::Black, 30_000).is_ok());
        assert!(c.play(Color::Black, 32_000).is_err());
        // Fischer: 10 s + 5 s a move (and 5 s before the first move).
        let mut c = Clock::new(control(10, Some(0), 5));
        assert!(c.play(Color::White, 15_000).is_ok());
        assert!(c.play(Color::White, 5_000).is_ok());
        assert!(c.play(Color::White, 7_000).is_err());
        // No byoyomi stated: no move can be said to be late.
        let mut c = Clock::new(control(10, None, 0));
        assert!(c.play(Color::Black, 100_000).is_ok());
    }

    #[test]
    fn time_up_claims() {
        let mut c = Clock::new(control(600, Some(0), 0));
        for _ in 0..10 {
            c.play(Color::Black, 30_000).unwrap();
            c.play(Color::White, 10_000).unwrap();
        }
        // Black used 300 s of 600: a flag after 100 s of thinking leaves 200 s, far more than
        // the 11 s truncation can hide.
        assert_eq!(c.time_left_at_flag(Color::Black, 100_000), Some(200_000));
        assert_eq!(c.time_left_at_flag(Color::Black, 290_000), None);
        assert_eq!(c.time_left_at_flag(Color::White, 500_000), None);
        // All times zero: placeholders, no verdict.
        let mut z = Clock::new(control(600, Some(0), 0));
        z.play(Color::Black, 0).unwrap();
        assert_eq!(z.time_left_at_flag(Color::White, 0), None);
        // Whole minutes: a minute of slack per move.
        let mut m = Clock::new(control(3600, None, 0));
        for _ in 0..5 {
            m.play(Color::Black, 60_000).unwrap();
        }
        assert_eq!(m.time_left_at_flag(Color::Black, 3_000_000), None);
        assert_eq!(m.time_left_at_flag(Color::Black, 2_400_000), Some(900_000));
    }

    #[test]
    fn words() {
        assert_eq!(describe(&control(600, Some(0), 0)), "0:10:00 sudden death");
        assert_eq!(
            describe(&control(3600, Some(60), 0)),
            "1:00:00 + 60 s byoyomi"
        );
        assert_eq!(
            describe(&control(300, Some(0), 10)),
            "0:05:00 + 10 s per move"
        );
        assert_eq!(describe(&control(300, None, 0)), "0:05:00");
    }
}
