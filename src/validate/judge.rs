//! The judge: validation as the moves are read, a [`Visitor`] of every format's reader (CSA,
//! USI, KIF, KI2, JKF; USEN and one-line CSA through their records) that replays each move as
//! it is told (on the board of `board.rs`), follows the clock and the stated totals, and judges the
//! ending (with a KIF footer), with no record built. A game it cannot judge this way
//! (something the reader could not read, a move the rules refuse, a start other than the even
//! one, a variation, a rule stated in the record) is read again by the same reader into a
//! record and validated from it ([`validate_game`](super::validate_game)), so the reports are
//! those of reading and validating every game from its record
//! (`tests/library/fast_equivalence.rs`, `fast_kif_equivalence.rs`, `fast_jkf_equivalence.rs`
//! and the `validate_fast` fuzz target compare the two). KIF in CP932 is read from its bytes
//! (`kif_games_cp932`).

use crate::core::{Handicap, Move, PieceKind, Position, bitboard};
use crate::formats::analysis::Family;
use crate::formats::kakinoki::{self, Dialect};
use crate::formats::time_control::TimeControl;
use crate::formats::visit::{GameReader, Records, Visitor, WrittenMove, WrittenSpecial};
use crate::formats::{csa, jkf, usen, usi};
use crate::record::keys;
use crate::record::resolve::resolve_move;
use crate::record::{
    Footer, MoveTime, NamedPiece, RawText, Source, Span, Special, SpecialKind, StartPosition,
};

use super::board::{
    Found, OverrunAt, Plain, TimeFault, finish, give_back_history, summary_agrees, take_history,
};
use super::gather::{At, Sink};
use super::{GameInfo, Options, Report};

/// Reads and validates every game of a CSA text (games separated by `/` lines), in order:
/// the same reports as reading the text with [`csa::read`] and validating each game with
/// [`validate_game`](super::validate_game), found faster for games the rules accept move by
/// move.
pub fn validate_csa(text: &str, opts: &Options) -> Vec<Report> {
    validate_csa_counting(text, opts).0
}

/// [`validate_csa`], and how many of the games were judged as they were read (for tests and
/// benchmarks).
#[doc(hidden)]
pub fn validate_csa_counting(text: &str, opts: &Options) -> (Vec<Report>, usize) {
    counted(|each| csa_games(text, opts, each))
}

/// Reads and validates every game of a USI text (one per line), in order: the same reports
/// as reading it with [`usi::read`](crate::formats::usi::read) and validating each game with
/// [`validate_game`](super::validate_game), found faster for games from the even start whose
/// moves are all legal.
pub fn validate_usi(text: &str, opts: &Options) -> Vec<Report> {
    validate_usi_counting(text, opts).0
}

/// [`validate_usi`], and how many of the games were judged as they were read (for tests and
/// benchmarks).
#[doc(hidden)]
pub fn validate_usi_counting(text: &str, opts: &Options) -> (Vec<Report>, usize) {
    counted(|each| usi_games(text, opts, each))
}

/// Reads and validates a KIF text (one game): the same report as reading it with
/// [`kif::read`](crate::formats::kif::read) and validating the game with
/// [`validate_game`](super::validate_game), found faster for games whose moves the rules
/// accept.
pub fn validate_kif(text: &str, opts: &Options) -> Vec<Report> {
    validate_kif_counting(text, opts).0
}

/// [`validate_kif`], and how many of the games were judged as they were read (for tests and
/// benchmarks).
#[doc(hidden)]
pub fn validate_kif_counting(text: &str, opts: &Options) -> (Vec<Report>, usize) {
    counted(|each| kif_games(Dialect::Kif, text, opts, each))
}

/// Reads and validates KIF text in CP932 from its bytes (after any BOM), without decoding
/// them whole: the reports of [`validate_kif`] on the text the bytes decode to, or `None` when
/// they do not decode cleanly in CP932. For tests: commands read bytes through
/// [`gather_bytes`](super::gather_bytes), which takes this way where it applies.
#[cfg(feature = "testing")]
#[doc(hidden)]
pub fn validate_kif_cp932(bytes: &[u8], opts: &Options) -> Option<Vec<Report>> {
    validate_kif_cp932_counting(bytes, opts).map(|(reports, _)| reports)
}

/// [`validate_kif_cp932`], and how many of the games were judged as they were read (for
/// tests and benchmarks).
#[cfg(feature = "testing")]
#[doc(hidden)]
pub fn validate_kif_cp932_counting(bytes: &[u8], opts: &Options) -> Option<(Vec<Report>, usize)> {
    let mut reports = Vec::new();
    let short = kif_games_cp932::<()>(bytes, opts, |g| reports.push(g.into_report()))?;
    Some((reports, short))
}

/// Reads and validates a KI2 text (one game): the same report as reading it with
/// [`ki2::read`](crate::formats::ki2::read) and validating the game with
/// [`validate_game`](super::validate_game), found faster for games whose moves the rules
/// accept.
pub fn validate_ki2(text: &str, opts: &Options) -> Vec<Report> {
    validate_ki2_counting(text, opts).0
}

/// [`validate_ki2`], and how many of the games were judged as they were read (for tests and
/// benchmarks).
#[doc(hidden)]
pub fn validate_ki2_counting(text: &str, opts: &Options) -> (Vec<Report>, usize) {
    counted(|each| kif_games(Dialect::Ki2, text, opts, each))
}

/// Reads and validates a USEN text: the same reports as reading it with
/// [`usen::read`](crate::formats::usen::read) and validating each game with
/// [`validate_game`](super::validate_game), found faster for games the rules accept move by
/// move.
pub fn validate_usen(text: &str, opts: &Options) -> Vec<Report> {
    counted(|each| usen_games(text, opts, each)).0
}

/// Reads and validates a JKF text (one game): the same report as reading it with
/// [`jkf::read`] and validating the game with [`validate_game`](super::validate_game), found
/// faster for documents of the plain shape.
pub fn validate_jkf(text: &str, opts: &Options) -> Vec<Report> {
    validate_jkf_counting(text, opts).0
}

/// [`validate_jkf`], and how many of the games were judged as they were read (for tests and
/// benchmarks).
#[doc(hidden)]
pub fn validate_jkf_counting(text: &str, opts: &Options) -> (Vec<Report>, usize) {
    counted(|each| jkf_games(text, opts, each))
}

/// The reports `judge` hands to the function it is given, and what it returns (how many
/// games were judged as they were read).
fn counted(judge: impl FnOnce(&mut dyn FnMut(Found<()>)) -> usize) -> (Vec<Report>, usize) {
    let mut reports = Vec::new();
    let short = judge(&mut |g| reports.push(g.into_report()));
    (reports, short)
}

/// Every game of a CSA text, in order, to `each` (as [`validate_csa`] finds them); returns
/// how many were judged as they were read.
pub(crate) fn csa_games<S: Sink>(text: &str, opts: &Options, each: impl FnMut(Found<S>)) -> usize {
    // The one-line CSA of the 2chkifu collection is read into records.
    if csa::is_one_line(text) {
        return judge_games(&mut Records::new(csa::read(text)), Family::Csa, opts, each);
    }
    judge_games(&mut csa::Reader::new(text), Family::Csa, opts, each)
}

/// Every game of a USI text, in order, to `each` (as [`validate_usi`] finds them); returns
/// how many were judged as they were read.
pub(crate) fn usi_games<S: Sink>(text: &str, opts: &Options, each: impl FnMut(Found<S>)) -> usize {
    judge_games(&mut usi::Reader::new(text), Family::Csa, opts, each)
}

/// Every game of a KIF or KI2 text (one), to `each` (as [`validate_kif`](super::validate_kif)
/// and [`validate_ki2`](super::validate_ki2) find them); returns how many were judged as they
/// were read.
pub(crate) fn kif_games<S: Sink>(
    dialect: Dialect,
    text: &str,
    opts: &Options,
    each: impl FnMut(Found<S>),
) -> usize {
    let mut reader = kakinoki::Reader::new(text, dialect);
    judge_games(&mut reader, Family::Kakinoki, opts, each)
}

/// Every game of a USEN text, in order, to `each` (as [`validate_usen`] finds them); returns
/// how many were judged as they were read.
pub(crate) fn usen_games<S: Sink>(text: &str, opts: &Options, each: impl FnMut(Found<S>)) -> usize {
    // USEN has no comments: the family is never asked.
    judge_games(&mut Records::new(usen::read(text)), Family::Csa, opts, each)
}

/// The game of a JKF text to `each` (as [`validate_jkf`] finds it); returns how many were
/// judged as they were read (0 or 1).
pub(crate) fn jkf_games<S: Sink>(text: &str, opts: &Options, each: impl FnMut(Found<S>)) -> usize {
    judge_games(&mut jkf::Reader::new(text), Family::Jkf, opts, each)
}

/// Every game of a KIF text in CP932 (one), read from its bytes, to `each`, as [`kif_games`]
/// finds them in the text the bytes decode to; how many were judged as they were read, or
/// `None` (nothing given to `each`) when the bytes do not decode cleanly.
pub(crate) fn kif_games_cp932<S: Sink>(
    bytes: &[u8],
    opts: &Options,
    each: impl FnMut(Found<S>),
) -> Option<usize> {
    let mut reader = kakinoki::Reader::cp932(bytes);
    let short = judge_games(&mut reader, Family::Kakinoki, opts, each);
    (!reader.undecodable()).then_some(short)
}

/// Every game `reader` reads, judged as it is read where it can be and validated from its
/// record where not, to `each`; returns how many were judged as they were read.
fn judge_games<S: Sink>(
    reader: &mut impl GameReader,
    family: Family,
    opts: &Options,
    mut each: impl FnMut(Found<S>),
) -> usize {
    let mut history = take_history();
    let mut short = 0usize;
    {
        let mut judge = Judge {
            board: Plain::new(&mut history),
            opts,
            family,
            game: Judging::<S>::default(),
        };
        while let Some(judged) = reader.read_game(&mut judge) {
            match judged {
                Some((report, sink, pos)) => {
                    short += 1;
                    each(Found::Short(report, sink, pos));
                }
                None => {
                    if let Some(mut g) = reader.last_game_record() {
                        let r = super::validate_game(&mut g, opts);
                        each(Found::Full(g, r));
                    }
                }
            }
        }
    }
    give_back_history(history);
    short
}

/// A move-by-move judge of the games of an even start: each game's report, what the sink
/// gathered and the final position, or `None` where the game needs its record.
struct Judge<'h, 'o, S> {
    board: Plain<'h>,
    opts: &'o Options,
    /// How the format writes engine analysis in comments.
    family: Family,
    game: Judging<S>,
}

/// What the judge knows of the game being read.
#[derive(Default)]
struct Judging<S> {
    sink: S,
    /// The game cannot be judged as it is read.
    unsure: bool,
    /// The start was told.
    started: bool,
    /// What the header states that the judge reads.
    stated: Stated,
    /// The time control the header states, read at the start (no entry may follow it).
    control: Option<TimeControl>,
    special: Option<Special>,
    /// The time written after the special.
    special_ms: Option<u64>,
    /// Where the last move or special was read.
    last_span: Span,
    /// The last move played and its text, while a clock runs (the move a `time-exceeded`
    /// names).
    last_move: Option<(Move, RawText)>,
    /// The first move made with no time left for it.
    overrun: Option<OverrunAt>,
    /// The ply whose time was told last.
    timed: u32,
    /// A move or special was told.
    nodes: bool,
    /// The KIF footer.
    footer: Option<Footer>,
    /// Each side's cumulative time as the times stated so far give it (`check_times`).
    totals: [Option<u64>; 2],
}

/// The header keys validation reads without a record: those of [`GameInfo`] and of the
/// time control ([`TimeControl::from_keys`]).
const READ_KEYS: [&str; 14] = [
    keys::BLACK,
    keys::SHITATE,
    keys::WHITE,
    keys::UWATE,
    keys::EVENT,
    keys::START,
    keys::TIME_CONTROL,
    keys::BLACK_TIME_CONTROL,
    keys::WHITE_TIME_CONTROL,
    keys::BYOYOMI,
    "$TIME",
    "$TIME+",
    "$TIME-",
    "表題",
];

/// The first value of each of [`READ_KEYS`] in a header (`Stated::slot` gives each key's
/// place; a unit test holds the two to the same order).
#[derive(Default)]
struct Stated {
    values: [Option<String>; READ_KEYS.len()],
}

impl Stated {
    /// The place of `key` in [`READ_KEYS`].
    #[inline]
    fn slot(key: &str) -> Option<usize> {
        // A match, not a search of the list: one compare of the length rules out most keys.
        Some(match key {
            keys::BLACK => 0,
            keys::SHITATE => 1,
            keys::WHITE => 2,
            keys::UWATE => 3,
            keys::EVENT => 4,
            keys::START => 5,
            keys::TIME_CONTROL => 6,
            keys::BLACK_TIME_CONTROL => 7,
            keys::WHITE_TIME_CONTROL => 8,
            keys::BYOYOMI => 9,
            "$TIME" => 10,
            "$TIME+" => 11,
            "$TIME-" => 12,
            "表題" => 13,
            _ => return None,
        })
    }

    fn take(&mut self, key: &str, value: &str) {
        if let Some(slot) = Self::slot(key).and_then(|i| self.values.get_mut(i)) {
            slot.get_or_insert_with(|| value.to_owned());
        }
    }

    fn get(&self, key: &str) -> Option<&str> {
        self.values.get(Self::slot(key)?)?.as_deref()
    }

    fn time_control(&self) -> Option<TimeControl> {
        TimeControl::from_keys(|key| self.get(key))
    }

    fn info(&self) -> GameInfo {
        GameInfo::from_keys(|key| self.get(key))
    }
}

impl<S: Sink> Visitor for Judge<'_, '_, S> {
    type Output = Option<(Report, S, Position)>;

    /// A move's text is kept only while a clock runs (the move a `time-exceeded` names).
    #[inline]
    fn needs_text(&self) -> bool {
        self.board.clock_runs()
    }

    fn begin_game(&mut self, _line: u32) {
        self.board.restart();
        self.game = Judging {
            totals: [Some(0); 2],
            ..Judging::default()
        };
    }

    fn header(&mut self, key: &str, value: &str, span: Span) {
        // An entry after the moves began (a time control stated late), or one that chooses
        // the declaration rule: the record's validation reads it.
        if self.game.started || DECLARATION_KEYS.contains(&key) {
            self.game.unsure = true;
            return;
        }
        self.game.stated.take(key, value);
        self.game.sink.entry(key, value, span);
    }

    fn start(&mut self, start: &StartPosition) {
        self.game.started = true;
        if *start != StartPosition::Preset(Handicap::Even) {
            self.game.unsure = true;
            return;
        }
        self.game.control = self.game.stated.time_control();
        self.board
            .set_clock(self.game.control.or(self.opts.time_control));
    }

    #[inline(always)]
    fn mv(&mut self, mv: &WrittenMove<'_>, span: Span) {
        // A move number other than the ply (KIF) is the record's validation's to report.
        if self.game.unsure || mv.number.is_some_and(|n| n != self.board.plies + 1) {
            self.game.unsure = true;
            return;
        }
        let Some(m) = written_move(&self.board.pos, mv) else {
            self.game.unsure = true;
            return;
        };
        if self.game.special.is_some() || !self.board.play(m) {
            self.game.unsure = true;
            return;
        }
        self.game.nodes = true;
        self.game.sink.played(m);
        self.game.last_span = span;
        if self.board.clock_runs() {
            self.game.last_move = Some((m, RawText::from(mv.raw)));
        }
    }

    fn special(&mut self, special: &WrittenSpecial<'_>, span: Span) {
        if self.game.special.is_some()
            || special.kind == SpecialKind::Unknown
            || special.number.is_some_and(|n| n != self.board.plies + 1)
        {
            self.game.unsure = true;
            return;
        }
        self.game.special = Some(special.to_special());
        self.game.last_span = span;
        self.game.nodes = true;
    }

    #[inline(always)]
    fn time(&mut self, time: MoveTime, _span: Span) {
        if self.game.unsure {
            return;
        }
        let Some(ms) = time.elapsed_ms else {
            self.game.unsure = true;
            return;
        };
        if !self.totals_agree(time) {
            self.game.unsure = true;
            return;
        }
        if self.game.special.is_some() {
            self.game.special_ms = Some(ms);
            return;
        }
        // A second time for a move (the last one stands): the record's validation reads it.
        if std::mem::replace(&mut self.game.timed, self.board.plies) == self.board.plies {
            self.game.unsure = true;
            return;
        }
        match self.board.time(ms) {
            Ok(()) => {}
            Err(TimeFault::Overrun(overrun)) => {
                if let Some((mv, raw)) = self.game.last_move.take() {
                    self.game.overrun = Some(OverrunAt {
                        overrun,
                        ply: self.board.plies,
                        span: self.game.last_span,
                        mv,
                        raw,
                    });
                }
            }
            Err(TimeFault::Unsure) => {
                self.game.unsure = true;
                return;
            }
        }
        self.game.sink.time(ms);
    }

    fn comment(&mut self, text: &str, _span: Span) {
        if self.game.unsure {
            return;
        }
        // shogi-server's verdict: taken here only where it says what the `%` line says;
        // otherwise the record's validation holds it to the line and the board.
        if text.starts_with("summary:")
            && !summary_agrees(text, self.game.special.as_ref(), self.board.pos.turn())
        {
            self.game.unsure = true;
            return;
        }
        let at = if self.board.plies == 0 && self.game.special.is_none() {
            At::Start
        } else if self.family.is_analysis(text) {
            At::Analysis
        } else {
            At::Moves
        };
        self.game.sink.comment(text, at);
    }

    fn begin_variation(&mut self, _ply: u32, _span: Span) {
        // Variations are validated from the record.
        self.game.unsure = true;
    }

    fn footer(&mut self, footer: &Footer) {
        self.game.footer = Some(footer.clone());
    }

    fn diagnostic(&mut self, _diagnostic: crate::diag::Diagnostic) {
        self.game.unsure = true;
    }

    fn end_game(&mut self) -> Self::Output {
        // A footer with no ending to hold it to, or a game with neither moves nor an ending:
        // the record's validation judges them.
        if self.game.unsure
            || (self.game.special.is_none() && (self.game.footer.is_some() || !self.game.nodes))
        {
            return None;
        }
        // A record that states another time control than the run's: its validation says so.
        let stated = self.game.control;
        if let (Some(given), Some(stated)) = (self.opts.time_control, stated)
            && given != stated
        {
            return None;
        }
        let time_up = self
            .game
            .special
            .as_ref()
            .is_some_and(|s| s.kind == SpecialKind::Timeout);
        if time_up && self.board.flag_contradicted(self.game.special_ms) {
            return None;
        }
        let overrun = self
            .game
            .overrun
            .take()
            .zip(stated.or(self.opts.time_control));
        let (report, pos) = finish(
            &mut self.board,
            self.game.special.take(),
            self.game.last_span,
            self.game.stated.info(),
            self.game.footer.as_ref(),
            self.opts,
            overrun,
        );
        Some((report, std::mem::take(&mut self.game.sink), pos))
    }
}

impl<S> Judge<'_, '_, S> {
    /// Whether a time's stated total agrees with the totals before it, as the record's
    /// validation holds them (`check_times`), counting it in; a zero time on an ending is its
    /// writer's "no time".
    fn totals_agree(&mut self, time: MoveTime) -> bool {
        let on_ending = self.game.special.is_some();
        if on_ending && time.elapsed_ms == Some(0) && time.total_ms == Some(0) {
            return true;
        }
        // The side whose clock it is: the mover's, or for an ending the side to move.
        let side = if on_ending {
            self.board.pos.turn()
        } else {
            self.board.pos.turn().flip()
        };
        let Some(slot) = self.game.totals.get_mut(side.index()) else {
            return false;
        };
        match (time.elapsed_ms, time.total_ms) {
            (Some(elapsed), Some(total)) => {
                if slot.is_some_and(|prev| prev.saturating_add(elapsed).abs_diff(total) > 1000) {
                    return false;
                }
                *slot = Some(total);
            }
            (_, Some(total)) => *slot = Some(total),
            (elapsed, None) => *slot = slot.map(|p| p.saturating_add(elapsed.unwrap_or(0))),
        }
        true
    }
}

/// The header keys that choose the entering-king declaration's rule: the record's validation
/// reads them.
const DECLARATION_KEYS: [&str; 4] = [keys::JISHOGI, "持将棋", "入玉宣言", "入玉"];

/// The move a written move names in `pos`, or `None` where the record's validation decides
/// (a move the resolution of the record refuses: of the side not to move, of a piece not
/// there or not the one named, a drop of a kind no hand holds). The move itself where the
/// text names it whole (USI); as CSA names it, by the piece after it; as KIF names it, by its
/// source and the piece before it; as KI2 names it, by the piece and the suffixes, as
/// [`resolve_move`] resolves it. Whether the move is legal is not looked at.
#[inline(always)]
pub(crate) fn written_move(pos: &Position, mv: &WrittenMove<'_>) -> Option<Move> {
    if mv.resolved.is_some() {
        return mv.resolved;
    }
    let turn = pos.turn();
    if mv.color.is_some_and(|c| c != turn) {
        return None;
    }
    match (mv.piece?, mv.from) {
        (NamedPiece::After(kind), Source::Square(from)) => {
            // CSA names the side.
            mv.color?;
            let p = pos.piece_at(from).filter(|p| p.color == turn)?;
            let promote = if p.kind == kind {
                false
            } else if p.kind.promote() == Some(kind) {
                true
            } else {
                return None;
            };
            Some(Move::Normal {
                from,
                to: mv.to,
                promote,
            })
        }
        (NamedPiece::After(kind), Source::Drop) => {
            mv.color?;
            kind.is_hand_kind()
                .then_some(Move::Drop { kind, to: mv.to })
        }
        (NamedPiece::Before(kind), Source::Square(from)) => {
            let p = pos.piece_at(from).filter(|p| p.color == turn)?;
            (p.kind == kind).then_some(Move::Normal {
                from,
                to: mv.to,
                promote: mv.promote == Some(true),
            })
        }
        (NamedPiece::Before(kind), Source::Drop) => kind
            .is_hand_kind()
            .then_some(Move::Drop { kind, to: mv.to }),
        (NamedPiece::Before(kind), Source::Unknown) => ki2_move(pos, mv, kind),
        (NamedPiece::After(_), Source::Unknown) => None,
    }
}

/// A KI2 move (no source): resolved as [`resolve_move`] resolves it. Out of line, so that
/// the readers' loops that inline [`written_move`] stay small.
#[inline(never)]
fn ki2_move(pos: &Position, mv: &WrittenMove<'_>, kind: PieceKind) -> Option<Move> {
    plain_ki2(pos, mv, kind).or_else(|| resolve_move(pos, &mv.to_text()).ok())
}

/// What [`resolve_move`] gives for a KI2 move of `kind` with no suffix but `成`/`不成` that one
/// piece of the side to move can make, or that only a drop can make, without building its
/// list of candidates; `None` for every other move (which `resolve_move` then resolves).
#[inline]
fn plain_ki2(pos: &Position, mv: &WrittenMove<'_>, kind: PieceKind) -> Option<Move> {
    let turn = pos.turn();
    let rel = &mv.relative;
    if rel.horizontal.is_some() || rel.vertical.is_some() {
        return None;
    }
    let to = mv.to;
    let from = bitboard::attacks(turn.flip(), kind, to, pos.occupied()) & pos.pieces(turn, kind);
    let mut squares = from.squares();
    match (squares.next(), squares.next()) {
        (Some(from), None) => Some(Move::Normal {
            from,
            to,
            promote: mv.promote == Some(true),
        }),
        (None, _)
            if kind.is_hand_kind()
                && mv.promote != Some(true)
                && pos.hand(turn).count(kind) > 0 =>
        {
            Some(Move::Drop { kind, to })
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::{READ_KEYS, Stated};

    /// Every key read has its own place, the one the list gives it; no other key has one.
    #[test]
    fn each_key_read_has_its_place() {
        for (i, key) in READ_KEYS.iter().enumerate() {
            assert_eq!(Stated::slot(key), Some(i), "{key}");
        }
        assert_eq!(Stated::slot("$EVENT"), None);
        assert_eq!(Stated::slot(""), None);
    }
}
