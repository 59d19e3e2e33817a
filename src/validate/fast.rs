//! The short ways through CSA and USI text ([`validate_csa`], [`validate_usi`]): each game is
//! replayed as its lines are read, with no record built, when it is written the plain way
//! machines write it (for CSA: one statement per line, the even start, known specials; for
//! USI: `startpos` and moves in ASCII) and every move is legal. At the first line or move the
//! reader or the rules would report, the game is read and validated the full way, so the
//! reports are exactly those of [`formats::read`](crate::formats::read) followed by
//! [`validate_game`](super::validate_game) (`tests/library/fast_equivalence.rs` and the
//! `validate_fast` fuzz target compare the two).

use std::sync::OnceLock;

use crate::core::{Color, Move, Position, RepetitionOutcome, RepetitionTracker};
use crate::formats::csa::{
    self, InfoKey,
    scan::{GameLines, Line},
};
use crate::formats::time_control::TimeControl;
use crate::record::{Span, Special, SpecialKind};

use super::clock::Clock;
use super::ending::{Ending, verify_ending};
use super::gather::{At, Sink};
use super::replay::{LineEnd, Over};
use super::result::GameResult;
use super::{GameInfo, Options, Report};

/// What the short way made of one game.
// Made and matched at once, one per game: not worth a box.
#[allow(clippy::large_enum_variant)]
enum Fast {
    /// Only blank lines: no game.
    Empty,
    /// The game's report and its final position.
    Done(Report, Position),
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
    let short = csa_games::<()>(text, opts, |g| reports.push(g.into_report()));
    (reports, short)
}

/// One game of a text as [`csa_games`] or [`usi_games`] found it.
// Handed to the caller at once, one per game: not worth a box.
#[allow(clippy::large_enum_variant)]
pub(crate) enum Found<S> {
    /// Read the short way: its report, what the sink gathered, the final position.
    Short(Report, S, Position),
    /// Read and validated the full way.
    Full(crate::formats::ParsedGame, Report),
}

impl<S> Found<S> {
    fn into_report(self) -> Report {
        match self {
            Found::Short(r, ..) | Found::Full(_, r) => r,
        }
    }
}

/// Every game of a CSA text, in order, to `each` (as [`validate_csa`] finds them); returns
/// how many took the short way.
pub(crate) fn csa_games<S: Sink>(
    text: &str,
    opts: &Options,
    mut each: impl FnMut(Found<S>),
) -> usize {
    // The one-line CSA of the 2chkifu collection has no short way: the reader reads it.
    if csa::is_one_line(text) {
        for mut g in csa::read(text) {
            let r = super::validate_game(&mut g, opts);
            each(Found::Full(g, r));
        }
        return 0;
    }
    let mut short = 0usize;
    let mut history = take_history();
    let mut lines = GameLines::new(text);
    loop {
        let game_start = lines.at;
        let lines_before = lines.line_no;
        let mut sink = S::default();
        let fast = replay_plain(&mut lines, &mut history, opts, &mut sink);
        let game_end = if matches!(fast, Fast::Fallback) {
            lines.skip_game()
        } else {
            lines.game_end
        };
        match fast {
            Fast::Empty => {}
            Fast::Done(mut r, pos) => {
                short += 1;
                for d in &mut r.diagnostics {
                    d.shift_line(lines_before);
                }
                each(Found::Short(r, sink, pos));
            }
            Fast::Fallback => {
                // Read as part of the whole text: never as the one-line CSA on its own.
                let game = text.get(game_start..game_end).unwrap_or("");
                for mut g in csa::read_lines(game) {
                    g.shift_lines(lines_before);
                    let r = super::validate_game(&mut g, opts);
                    each(Found::Full(g, r));
                }
            }
        }
        if !lines.more_games {
            break;
        }
    }
    give_back_history(history);
    short
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

/// Reads and validates every game of a USI text (one per line), in order: the same reports
/// as reading it with [`usi::read`](crate::formats::usi::read) and validating each game with
/// [`validate_game`](super::validate_game), found faster for `[position] startpos [moves
/// ...]` lines of ASCII whose moves are all legal.
pub fn validate_usi(text: &str, opts: &Options) -> Vec<Report> {
    validate_usi_counting(text, opts).0
}

/// [`validate_usi`], and how many of the games took the short way (for tests and
/// benchmarks).
#[doc(hidden)]
pub fn validate_usi_counting(text: &str, opts: &Options) -> (Vec<Report>, usize) {
    let mut reports = Vec::new();
    let short = usi_games::<()>(text, opts, |g| reports.push(g.into_report()));
    (reports, short)
}

/// Every game of a USI text, in order, to `each` (as [`validate_usi`] finds them); returns
/// how many took the short way.
pub(crate) fn usi_games<S: Sink>(
    text: &str,
    opts: &Options,
    mut each: impl FnMut(Found<S>),
) -> usize {
    let mut short = 0usize;
    let mut history = take_history();
    for (ln, line) in crate::formats::usi::game_lines(text) {
        let mut sink = S::default();
        match usi_line(line, ln, &mut history, opts, &mut sink) {
            Some((r, pos)) => {
                short += 1;
                each(Found::Short(r, sink, pos));
            }
            None => {
                for mut g in crate::formats::usi::read(line) {
                    g.shift_lines(ln - 1);
                    let r = super::validate_game(&mut g, opts);
                    each(Found::Full(g, r));
                }
            }
        }
    }
    give_back_history(history);
    short
}

/// One USI line the short way, or `None` for the reader.
fn usi_line<S: Sink>(
    line: &str,
    ln: u32,
    history: &mut RepetitionTracker,
    opts: &Options,
    sink: &mut S,
) -> Option<(Report, Position)> {
    let tokens = crate::formats::usi::Tokens::new(line);
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
        None => {}
        Some(("moves", _)) => {}
        Some(_) => return None,
    }
    let mut game = Plain::new(history);
    let mut special: Option<Special> = None;
    let mut last_span = Span::default();
    while let Some((tok, col)) = tokens.next() {
        let span = Span::new(ln, col);
        if let Some(kind) = crate::formats::usi::special_of(tok) {
            if tokens.peek().is_some() {
                return None;
            }
            special = Some(Special {
                kind,
                text: tok.to_owned(),
                side: None,
            });
            last_span = span;
            break;
        }
        let mv = Move::from_usi(tok).ok()?;
        if !game.play(mv) {
            return None;
        }
        sink.played(mv);
        last_span = span;
    }
    Some(finish(game, special, last_span, GameInfo::default(), opts))
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

impl<'h> Plain<'h> {
    pub(super) fn new(history: &'h mut RepetitionTracker) -> Plain<'h> {
        static START: OnceLock<Position> = OnceLock::new();
        let pos = START.get_or_init(Position::startpos).clone();
        history.reset(&pos);
        Plain {
            pos,
            history,
            plies: 0,
            over: None,
            over_at: None,
            repetition_at_end: None,
            check_pending: false,
            clock: None,
            awaiting_time: None,
        }
    }

    /// The time of the move just played (a `T` line's seconds); `Err` when the full way must
    /// decide: the move was made with no time left, or the line is not the time of a move.
    #[inline]
    fn time(&mut self, seconds: &[u8]) -> Result<(), ()> {
        let Some(clock) = &mut self.clock else {
            return Ok(());
        };
        let side = self.awaiting_time.take().ok_or(())?;
        let ms = csa::scan::seconds_ms(seconds).ok_or(())?;
        clock.play(side, ms).map_err(|_| ())
    }

    /// Whether the clock contradicts a loss on time recorded for the side to move, whose
    /// thinking is written as `seconds` after the ending.
    fn flag_contradicted(&self, seconds: Option<&[u8]>) -> bool {
        let (Some(clock), None, Some(s)) = (&self.clock, self.awaiting_time, seconds) else {
            return false;
        };
        csa::scan::seconds_ms(s)
            .filter(|&ms| ms > 0)
            .is_some_and(|ms| clock.time_left_at_flag(self.pos.turn(), ms).is_some())
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
                let rep = Over::Repetition {
                    perpetual: match outcome {
                        RepetitionOutcome::PerpetualCheck { loser } => Some(loser),
                        RepetitionOutcome::Draw => None,
                    },
                };
                self.over = Some(rep);
                self.repetition_at_end = Some(rep);
            }
        } else {
            self.check_pending = gives_check;
        }
        self.plies += 1;
        true
    }

    /// The final position, the plies, how the game ended on the board (and at which ply), and
    /// the repetition reached by the last move, if any.
    fn end(self) -> (Position, u32, Option<Over>, Option<u32>, Option<Over>) {
        let (mut over, mut over_at) = (self.over, self.over_at);
        if self.check_pending && !self.pos.has_legal_move() {
            over = Some(Over::Mate(self.pos.turn()));
            over_at = Some(self.plies);
        }
        (self.pos, self.plies, over, over_at, self.repetition_at_end)
    }

    /// [`Plain::end`] as the rules replay gives a line's end (no fouls: the short way has none).
    pub(super) fn line_end(self) -> LineEnd {
        let (pos, _, over, over_at, repetition_at_end) = self.end();
        LineEnd {
            pos: Some(pos),
            over,
            over_at,
            fouls: Vec::new(),
            repetition_at_end,
        }
    }
}

/// What [`GameInfo`] and the clock take of a CSA game's information lines, read by the
/// reader's [`csa::info_entry`]: the names (`N+`, `N-`, `N+:name`), `$EVENT`, `$START_TIME` and
/// the time control's keys, the first of each.
#[derive(Default)]
struct InfoLines {
    info: GameInfo,
    /// Which of black, white, event and date a line has given (an empty one too).
    seen: [bool; 4],
    /// The first of the `$TIME_LIMIT` and `$TIME` values (the reader gives both the one key
    /// `持ち時間`), the first `$TIME+` and `$TIME-` values, as written.
    times: [Option<String>; 3],
}

impl InfoLines {
    /// Takes one information line. Out of line: a game has a few of these against a hundred
    /// move lines or more, and the scanning loop it is called from stays small.
    #[inline(never)]
    fn line(&mut self, line: &[u8]) {
        // Comments (`'`, one per move in some logs) and version lines give nothing.
        if !matches!(line.first(), Some(b'N' | b'$')) {
            return;
        }
        let Some(line) = std::str::from_utf8(line).ok() else {
            return;
        };
        let Some((key, value)) = csa::info_entry(line.trim_end_matches('\r')) else {
            return;
        };
        let slot = match key {
            InfoKey::Black => 0,
            InfoKey::White => 1,
            InfoKey::Info("$EVENT") => 2,
            InfoKey::Info("$START_TIME") => 3,
            InfoKey::Info(key) => {
                let time = match key {
                    "$TIME_LIMIT" | "$TIME" => Some(0),
                    "$TIME+" => Some(1),
                    "$TIME-" => Some(2),
                    _ => None,
                };
                if let Some(slot) = time.and_then(|i| self.times.get_mut(i)) {
                    slot.get_or_insert_with(|| value.to_owned());
                }
                return;
            }
        };
        if std::mem::replace(&mut self.seen[slot], true) {
            return;
        }
        // As `GameInfo::of` takes a header's value.
        let value = Some(value.trim())
            .filter(|v| !v.is_empty())
            .map(str::to_owned);
        let i = &mut self.info;
        *[&mut i.black, &mut i.white, &mut i.event, &mut i.date][slot] = value;
    }
}

/// Whether a `'` line before the moves is one the reader takes as a header entry.
#[inline(never)]
fn header_entry_comment(line: &[u8]) -> bool {
    std::str::from_utf8(line.get(1..).unwrap_or_default())
        .is_ok_and(|t| csa::header_comment_entry(t.trim_end_matches('\r')).is_some())
}

impl InfoLines {
    /// The game's time control, read from these lines as [`TimeControl::of`] reads the
    /// reader's header.
    fn time_control(&self) -> Option<TimeControl> {
        let [limit, black, white] = &self.times;
        TimeControl::from_keys(|key| match key {
            crate::record::keys::TIME_CONTROL => limit.as_deref(),
            crate::record::keys::BLACK_TIME_CONTROL => black.as_deref(),
            crate::record::keys::WHITE_TIME_CONTROL => white.as_deref(),
            crate::record::keys::EVENT => self.info.event.as_deref(),
            _ => None,
        })
    }
}

/// The report of a game replayed the short way to its end.
fn finish(
    game: Plain<'_>,
    special: Option<Special>,
    last_span: Span,
    info: GameInfo,
    opts: &Options,
) -> (Report, Position) {
    let (pos, plies, over, over_at, repetition_at_end) = game.end();
    let to_move = pos.turn();
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
        footer: None,
        declaration_points: opts.declaration_points.unwrap_or(27),
    };
    let mut end = LineEnd {
        pos: Some(pos),
        over,
        over_at,
        fouls: Vec::new(),
        repetition_at_end,
    };
    verify_ending(&ending, &end, &mut report);
    super::sort_by_position(&mut report);
    let pos = end.pos.take().unwrap_or_else(Position::startpos);
    (report, pos)
}

/// Whether a `'summary:` line is a verdict the short way may leave unread: one the reader
/// ignores too (not a summary it reads), or one naming the `%` special that ends the game
/// and the winner that special gives with `to_move` to move.
fn summary_agrees(line: &[u8], special: Option<&Special>, to_move: Color) -> bool {
    let Some(summary) = std::str::from_utf8(&line[1..])
        .ok()
        .and_then(crate::formats::csa::server_summary)
    else {
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

/// The move a CSA move line names in `pos`, or `None` when the short way leaves it to the
/// full way: a move of the side not to move, a drop of a kind no hand holds, or a board move
/// whose piece is not there or is not the written kind or its promotion.
#[inline]
fn resolve(
    pos: &Position,
    color: Color,
    from: Option<crate::core::Square>,
    to: crate::core::Square,
    kind: crate::core::PieceKind,
) -> Option<Move> {
    if color != pos.turn() {
        return None;
    }
    match from {
        None if kind.is_hand_kind() => Some(Move::Drop { kind, to }),
        None => None,
        Some(from) => {
            let p = pos.piece_at(from).filter(|p| p.color == color)?;
            let promote = if p.kind == kind {
                false
            } else if p.kind.promote() == Some(kind) {
                true
            } else {
                return None;
            };
            Some(Move::Normal { from, to, promote })
        }
    }
}

/// The usual run of a game's moves: move lines of the usual shape, each maybe followed by a
/// time line, taken and played without classifying (the same checks as `replay_plain` makes
/// for these lines in the moves phase, before any special). Stops at the first other line;
/// returns the span of the last move played, or `Err` when the game must go the full way.
#[inline]
fn plain_run<S: Sink>(
    lines: &mut GameLines<'_>,
    game: &mut Plain<'_>,
    base: u32,
    sink: &mut S,
) -> Result<Option<Span>, ()> {
    let mut last = None;
    loop {
        if let Some((color, from, to, kind)) = lines.peek_plain_move() {
            let mv = resolve(&game.pos, color, from, to, kind).ok_or(())?;
            lines.take_plain_move();
            if !game.play(mv) {
                return Err(());
            }
            sink.played(mv);
            last = Some(Span::new(lines.line_no - base, 1));
            continue;
        }
        // A time before the first move is for the full way.
        if game.plies > 0
            && let Some(seconds) = lines.take_plain_time()
        {
            game.time(seconds)?;
            sink_time(sink, seconds);
            continue;
        }
        return Ok(last);
    }
}

/// Hands a `T` line's seconds (accepted by the short way, so plain seconds the reader reads
/// alike) to a sink that wants times.
#[inline]
fn sink_time<S: Sink>(sink: &mut S, seconds: &[u8]) {
    if S::TIMES
        && let Some(ms) = crate::formats::csa::scan::seconds_ms(seconds)
    {
        sink.time(ms);
    }
}

/// Replays one game line by line; `Fallback` at the first line or move the short way does
/// not handle (anything the reader or the rules would report, and unusual layouts).
fn replay_plain<S: Sink>(
    lines: &mut GameLines<'_>,
    history: &mut RepetitionTracker,
    opts: &Options,
    sink: &mut S,
) -> Fast {
    let mut seen = false;
    let mut moves_phase = false;
    let mut game = Plain::new(history);
    let mut special: Option<Special> = None;
    let mut last_span = Span::default();
    let mut info = InfoLines::default();
    let mut special_time: Option<&[u8]> = None;
    let base = lines.line_no;
    lines.fresh = true;
    loop {
        if moves_phase && special.is_none() {
            match plain_run(lines, &mut game, base, sink) {
                Err(()) => return Fast::Fallback,
                Ok(Some(span)) => last_span = span,
                Ok(None) => {}
            }
        }
        let Some(line) = lines.next_line() else {
            break;
        };
        let line_no = lines.line_no - base;
        match line {
            Line::Blank => continue,
            Line::Info(b) => {
                // A time control stated after the moves began: the full way reads it.
                if moves_phase && (b.starts_with(b"$TIME") || b.starts_with(b"$EVENT")) {
                    return Fast::Fallback;
                }
                // A header comment the reader takes as a header entry (`'持ち時間：…`, as the
                // CSA writer carries KIF keys over): the full way reads it.
                if !moves_phase && b.first() == Some(&b'\'') && header_entry_comment(b) {
                    return Fast::Fallback;
                }
                // shogi-server's verdict: the short way takes it only where it says what the
                // `%` line says; otherwise the full way holds it to the line and the board.
                if moves_phase
                    && b.starts_with(b"'summary:")
                    && !summary_agrees(b, special.as_ref(), game.pos.turn())
                {
                    return Fast::Fallback;
                }
                info.line(b);
                sink.info(
                    b,
                    match (moves_phase, game.plies > 0 || special.is_some()) {
                        (false, _) => At::Header { first: !seen },
                        (true, false) => At::Start,
                        (true, true) => At::Moves,
                    },
                );
            }
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
                game.clock = info.time_control().or(opts.time_control).map(Clock::new);
            }
            Line::Time(seconds) => {
                if !moves_phase || (game.plies == 0 && special.is_none()) {
                    return Fast::Fallback;
                }
                if special.is_some() {
                    special_time = Some(seconds);
                } else if game.time(seconds).is_err() {
                    return Fast::Fallback;
                } else {
                    sink_time(sink, seconds);
                }
            }
            Line::Special(kind, text) => {
                if !moves_phase || special.is_some() {
                    return Fast::Fallback;
                }
                special = Some(Special {
                    kind,
                    text: String::from_utf8_lossy(text).into_owned(),
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
                if !moves_phase || special.is_some() {
                    return Fast::Fallback;
                }
                let Some(mv) = resolve(&game.pos, color, from, to, kind) else {
                    return Fast::Fallback;
                };
                if !game.play(mv) {
                    return Fast::Fallback;
                }
                sink.played(mv);
                last_span = Span::new(line_no, 1);
            }
            Line::Other => return Fast::Fallback,
        }
        seen = true;
        lines.fresh = false;
    }
    if !seen {
        return Fast::Empty;
    }
    // A record that states another time control than the run's: the full way says so.
    if let (Some(given), Some(stated)) = (opts.time_control, info.time_control())
        && given != stated
    {
        return Fast::Fallback;
    }
    let time_up = special
        .as_ref()
        .is_some_and(|s| s.kind == SpecialKind::Timeout);
    if time_up && game.flag_contradicted(special_time) {
        return Fast::Fallback;
    }
    let (report, pos) = finish(game, special, last_span, info.info, opts);
    Fast::Done(report, pos)
}
