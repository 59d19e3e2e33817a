//! The judge: the validator, a [`Visitor`] of every format's reader (CSA, USI, KIF, KI2, JKF;
//! USEN and one-line CSA through their records) that replays each line as its moves are told
//! (`line.rs`: variations from the position before the move they replace, a stack of open
//! lines), follows the main line's stated totals and clock (`clock.rs`) and judges the ending
//! (with a KIF footer, `ending.rs`), with no record built. A record is judged by telling it
//! ([`judge_record`]). A game whose telling the judge cannot follow (see [`Judged::NeedsRecord`])
//! is read into a record by the same reader and judged from it. A gatherer (a [`Sink`]: the
//! rows of `games` and `positions`) is told each game as the judge takes it, either way. KIF in
//! CP932 is read from its bytes (`kif_games_cp932`); the text of a move is decoded only where a
//! finding or the clock needs it.

use crate::core::{Color, Handicap, Move, Position, RepetitionTracker};
use crate::diag::{Code, Diagnostic};
use crate::formats::analysis::Family;
use crate::formats::kakinoki::{self, Dialect};
use crate::formats::time_control::TimeControl;
use crate::formats::visit::{
    GameReader, Records, Visitor, WrittenMove, WrittenSpecial, each_told_move, tell_game,
};
use crate::formats::{csa, jkf, usen, usi};
use crate::record::keys;
use crate::record::{Footer, MoveNode, MoveTime, NodeKind, RawText, Span, StartPosition};

use super::clock::{MainTimes, STATING, TimedNode, control_mismatch, overrun_findings};
use super::digest::{At, Sink};
use super::ending::{DECLARATION_KEYS, declaration_of, verify_result};
use super::findings::{Check, Findings};
use super::line::{Line, even};
use super::result::{MainLine, summary_footer};
use super::{GameInfo, Options, Report};

/// Reads and validates every game of a CSA text (games separated by `/` lines), in order:
/// the same reports as reading the text with [`csa::read`] and validating each game with
/// [`validate_game`](super::validate_game), found as the text is read.
pub fn validate_csa(text: &str, opts: &Options) -> Vec<Report> {
    counted(|each| csa_games(text, opts, each)).0
}

/// Reads and validates every game of a USI text (one per line), in order: the same reports
/// as reading it with [`usi::read`](crate::formats::usi::read) and validating each game with
/// [`validate_game`](super::validate_game), found as the text is read.
pub fn validate_usi(text: &str, opts: &Options) -> Vec<Report> {
    counted(|each| usi_games(text, opts, each)).0
}

/// Reads and validates a KIF text (one game): the same report as reading it with
/// [`kif::read`](crate::formats::kif::read) and validating the game with
/// [`validate_game`](super::validate_game), found as the text is read.
pub fn validate_kif(text: &str, opts: &Options) -> Vec<Report> {
    counted(|each| kif_games(Dialect::Kif, text, opts, each)).0
}

/// Reads and validates a KI2 text (one game): the same report as reading it with
/// [`ki2::read`](crate::formats::ki2::read) and validating the game with
/// [`validate_game`](super::validate_game), found as the text is read.
pub fn validate_ki2(text: &str, opts: &Options) -> Vec<Report> {
    counted(|each| kif_games(Dialect::Ki2, text, opts, each)).0
}

/// Reads and validates a USEN text: the same reports as reading it with
/// [`usen::read`](crate::formats::usen::read) and validating each game with
/// [`validate_game`](super::validate_game), told from its records.
pub fn validate_usen(text: &str, opts: &Options) -> Vec<Report> {
    counted(|each| usen_games(text, opts, each)).0
}

/// Reads and validates a JKF text (one game): the same report as reading it with
/// [`jkf::read`] and validating the game with [`validate_game`](super::validate_game), found
/// as the document is read.
pub fn validate_jkf(text: &str, opts: &Options) -> Vec<Report> {
    counted(|each| jkf_games(text, opts, each)).0
}

/// For tests and benchmarks: the reports of the `validate_*` function of `format` on `text`,
/// and how many of the games the judge took as they were read (the others it had read into
/// records first: see [`Judged::NeedsRecord`]).
#[cfg(feature = "testing")]
#[doc(hidden)]
pub fn judged_as_read(
    format: crate::formats::Format,
    text: &str,
    opts: &Options,
) -> (Vec<Report>, usize) {
    counted(|each| super::bytes::judge_text(format, text, opts, each))
}

/// For tests and benchmarks: KIF in CP932 judged from its bytes (after any BOM), without
/// decoding them whole, as commands read it through [`gather_bytes`](super::gather_bytes):
/// the reports of [`validate_kif`] on the text the bytes decode to and how many games were
/// judged as they were read, or `None` when the bytes do not decode cleanly in CP932.
#[cfg(feature = "testing")]
#[doc(hidden)]
pub fn judged_as_read_cp932(bytes: &[u8], opts: &Options) -> Option<(Vec<Report>, usize)> {
    let mut reports = Vec::new();
    let taken = kif_games_cp932::<()>(bytes, opts, |g| reports.push(g.report))?;
    Some((reports, taken))
}

/// The reports `judge` hands to the function it is given, and what it returns (how many
/// games were judged as they were read).
fn counted(judge: impl FnOnce(&mut dyn FnMut(Found<()>)) -> usize) -> (Vec<Report>, usize) {
    let mut reports = Vec::new();
    let short = judge(&mut |g| reports.push(g.report));
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

/// One game of a text as the judge found it (as it was read, or from its record where the
/// judge needed one: see [`Judged::NeedsRecord`]): its report and what the sink gathered.
pub(crate) struct Found<S> {
    pub(crate) report: Report,
    pub(crate) sink: S,
}

thread_local! {
    /// Each thread's main line (its repetition table and lists), kept between texts: a batch
    /// validates thousands of small files, and the line is cleared per game in constant time.
    static MAIN: std::cell::Cell<Option<Line>> = const { std::cell::Cell::new(None) };
}

/// This thread's main line (a new one the first time), with room for a long game.
fn take_main() -> Line {
    MAIN.with(|h| h.take()).unwrap_or_else(|| {
        let mut history = RepetitionTracker::default();
        history.reserve(512);
        let mut line = Line::new(even().clone(), history, 1);
        line.reserve(512);
        line
    })
}

/// Every game `reader` reads, judged as it is read, to `each`; a game the judge needs the
/// record of is read into one and judged from it. Returns how many were judged as they
/// were read.
fn judge_games<S: Sink>(
    reader: &mut impl GameReader,
    family: Family,
    opts: &Options,
    mut each: impl FnMut(Found<S>),
) -> usize {
    let mut short = 0usize;
    let mut judge = Judge::<S>::new(opts, family);
    // CSA and USI have no variations: the moves of their main lines need not be kept.
    judge.main.keeps_moves = reader.has_variations();
    while let Some(judged) = reader.read_game(&mut judge) {
        match judged {
            Judged::Done(report, sink) => {
                short += 1;
                each(Found { report, sink });
            }
            Judged::NeedsRecord => {
                if let Some(mut g) = reader.last_game_record() {
                    let (report, sink) = judge.record(&mut g);
                    each(Found { report, sink });
                }
            }
        }
    }
    short
}

/// Validates a game read into a record: what [`validate_game`](super::validate_game) finds,
/// and what `S` gathers of it. Fills in the resolved move of every move the replay resolved.
pub(super) fn judge_record<S: Sink>(
    game: &mut crate::formats::ParsedGame,
    opts: &Options,
) -> (Report, S) {
    Judge::<S>::new(opts, Family::Csa).record(game)
}

/// What the judge makes of one game.
// Handed to the caller at once, one per game: not worth a box.
#[allow(clippy::large_enum_variant)]
enum Judged<S> {
    /// The report and what the sink gathered.
    Done(Report, S),
    /// The game must be read into a record and judged from it: the reader told something
    /// out of the order the judge follows (a reader's finding, which may be about a move
    /// before it; a second start; a time control stated after the moves; a second time for
    /// a move), or a finding needs the text of a move the reader did not decode.
    NeedsRecord,
}

/// The validator: a [`Visitor`] that replays each line as its moves are told (variations from
/// the position before the move they replace), follows the main line's recorded times and
/// clock, and holds the ending to the board at the end of the game, with no record built.
/// Its findings, by kind: the reader's (of a record), move numbers, times, moves after an
/// ending, the replay and the result, the clock; sorted by line and column at the end.
struct Judge<'o, S> {
    main: Line,
    /// The variations begun and not ended, the innermost last; `None` for one the record
    /// would not hold (of a node its line does not have).
    open: Vec<Option<Line>>,
    opts: &'o Options,
    /// How the format writes engine analysis in comments.
    family: Family,
    /// Judging a record told by [`tell_game`]: the reader's findings are the record's, and the
    /// moves the replay resolves are kept for it.
    record_mode: bool,
    /// The moves resolved, in the order told (record mode).
    resolved: Vec<Option<Move>>,
    /// A move cannot take the quick way whatever it is: the game needs its record, a
    /// variation is open, or a record is judged.
    detour: bool,
    /// The bytes of the move told next, where the reader withheld its text.
    withheld: Vec<u8>,
    /// The reader's findings of the record being judged, taken from it (not told).
    reader: Vec<Diagnostic>,
    game: Judging<S>,
}

/// What the judge knows of the game being read.
#[derive(Default)]
struct Judging<S> {
    sink: S,
    /// The game must be read into a record ([`Judged::NeedsRecord`]).
    needs_record: bool,
    /// The start was told.
    started: bool,
    /// The start position could not be set up: nothing is replayed.
    no_board: bool,
    /// What the header states that the judge reads.
    stated: Stated,
    /// The first entry of each key that states the declaration rule.
    declaration: [Option<(String, Span)>; 4],
    /// The first entry of a key a time control is stated by.
    stating: Option<Span>,
    /// The time control the header states, as read at the start.
    control: Option<TimeControl>,
    /// The main line as the result check reads it (its counts made at the end), the node
    /// its last special was, and the number of nodes when its summary was read.
    main: MainLine,
    last_special_node: Option<u32>,
    summary_node: u32,
    times: MainTimes,
    /// What was found, by check.
    found: Findings,
    /// Where the main line's last node was read.
    last_span: Span,
    /// The reader reported a move number: its findings stand for the judge's, which are
    /// not looked for.
    reader_numbers: bool,
}

impl<'o, S: Sink> Judge<'o, S> {
    fn new(opts: &'o Options, family: Family) -> Judge<'o, S> {
        Judge {
            main: take_main(),
            open: Vec::new(),
            opts,
            family,
            record_mode: false,
            resolved: Vec::new(),
            detour: false,
            withheld: Vec::new(),
            reader: Vec::new(),
            game: Judging::default(),
        }
    }

    /// Judges a game read into a record (told by [`tell_game`]), filling in the moves the
    /// replay resolves; the report and what the sink gathered.
    fn record(&mut self, game: &mut crate::formats::ParsedGame) -> (Report, S) {
        let keeps_moves = std::mem::replace(&mut self.main.keeps_moves, true);
        self.record_mode = true;
        self.detour = true;
        // The reader's findings go into the report as they are (the record keeps none after).
        self.reader = std::mem::take(&mut game.diagnostics);
        let judged = tell_game(game, self);
        self.record_mode = false;
        self.detour = false;
        self.main.keeps_moves = keeps_moves;
        let mut resolved = self.resolved.drain(..);
        write_back(&mut game.record.moves, &mut resolved);
        match judged {
            Judged::Done(report, sink) => (report, sink),
            Judged::NeedsRecord => (Report::default(), S::default()),
        }
    }

    /// The game must be read into a record (never when judging one).
    #[cold]
    fn give_up(&mut self) {
        if !self.record_mode {
            self.game.needs_record = true;
            self.detour = true;
        }
    }

    /// Whether the text of the moves is kept and asked for: while a clock runs, and of a
    /// record.
    #[inline]
    fn keeps_text(&self) -> bool {
        self.record_mode || self.game.times.clock_runs()
    }

    /// A move of the main line the quick way did not take.
    #[inline(never)]
    fn main_move(&mut self, mv: &WrittenMove<'_>, span: Span) {
        // The text a finding may need, where the reader did not decode it.
        let Some(raw) = self.text_of(mv) else {
            return self.give_up();
        };
        let g = &mut self.game;
        if !g.reader_numbers {
            self.main.number(mv.number, span, &raw, &mut g.found);
        }
        self.main.after_ending(span, &raw, &mut g.found);
        let node = self.main.nodes;
        let ply = self.main.first_ply + node;
        let resolved = self.main.play(mv, &raw, span, &mut g.found);
        self.told(resolved);
        let keeps_text = self.keeps_text();
        let g = &mut self.game;
        // As the record keeps it: the replay's move, else the one the text names whole.
        g.sink.told(resolved.or(mv.resolved), &raw);
        g.times.wrote(node - g.main.specials, mv.color);
        if keeps_text {
            let text = Some(RawText::from(&*raw));
            g.times
                .node(node, ply, false, resolved, text, self.main.unread);
        }
    }

    /// A move told while the quick way is closed whatever the move (see `detour`).
    #[inline(never)]
    fn detour_move(&mut self, mv: &WrittenMove<'_>, span: Span) {
        if self.game.needs_record {
            return;
        }
        if !self.open.is_empty() {
            return self.variation_move(mv, span);
        }
        self.game.last_span = span;
        self.main_move(mv, span);
    }

    /// A move of a variation.
    fn variation_move(&mut self, mv: &WrittenMove<'_>, span: Span) {
        let Some(raw) = self.text_of(mv) else {
            return self.give_up();
        };
        let g = &mut self.game;
        let resolved = match self.open.last_mut() {
            Some(Some(line)) => {
                if !g.reader_numbers {
                    line.number(mv.number, span, &raw, &mut g.found);
                }
                line.after_ending(span, &raw, &mut g.found);
                line.play(mv, &raw, span, &mut g.found)
            }
            _ => None,
        };
        self.told(resolved);
    }

    /// The text of `mv` as written: its `raw`, or the bytes the reader withheld, decoded now
    /// (`None` where they do not decode as the reader reads them).
    fn text_of<'m>(&mut self, mv: &WrittenMove<'m>) -> Option<std::borrow::Cow<'m, str>> {
        if !mv.raw.is_empty() || self.withheld.is_empty() {
            self.withheld.clear();
            return Some(std::borrow::Cow::Borrowed(mv.raw));
        }
        self.take_withheld().map(std::borrow::Cow::Owned)
    }

    /// The text of the move whose bytes the reader withheld, decoded as the reader decodes
    /// it (`None` where they do not decode); the bytes are let go.
    fn take_withheld(&mut self) -> Option<String> {
        let text = crate::formats::kakinoki::cp932_text(&self.withheld);
        self.withheld.clear();
        text
    }

    /// What a reader's finding tells the judge: a move the reader could not read stops the
    /// main line's replay there (no `wrong-turn` for the move after it, no verdict) and its
    /// clock; a move number it reported stands for the judge's (those the judge found before
    /// it are dropped).
    fn reader_finding(&mut self, d: &Diagnostic) {
        if d.code == Code::Syntax
            && let Some(ply) = d.ply
        {
            self.main.unread_at(ply);
        }
        if d.code == Code::MoveNumber && !std::mem::replace(&mut self.game.reader_numbers, true) {
            drop(self.game.found.take(|c| c == Check::Numbers));
        }
    }

    /// Whether a reader's finding told as the game is read means what it means in the
    /// game's record, where the judge is told it first: it is not about a move of the main
    /// line already played, and no variation is open (the record's findings stop the main
    /// line).
    fn takes_finding(&self, d: &Diagnostic) -> bool {
        if self.game.needs_record || !self.open.is_empty() {
            return false;
        }
        match (d.code, d.ply) {
            (Code::Syntax, Some(ply)) => ply >= self.main.first_ply + self.main.nodes,
            _ => true,
        }
    }

    /// Keeps the move a told move resolved to (record mode).
    #[inline]
    fn told(&mut self, resolved: Option<Move>) {
        if self.record_mode {
            self.resolved.push(resolved);
        }
    }

    /// The start position `start`'s board, or `None` (with a `bad-position` finding) where it
    /// cannot be set up; a problem position without a king is one.
    fn board_of(&mut self, start: &StartPosition) -> Option<Position> {
        let setup = start.to_setup();
        match Position::from_setup(&setup) {
            Ok(p) => Some(p),
            Err(e) => match Position::from_setup_relaxed(&setup) {
                // A problem (tsume) position without the defender's or attacker's king is fine.
                Ok(p) if matches!(e, crate::core::SetupError::MissingKing(_)) => Some(p),
                relaxed => {
                    // Past a missing king (tsume), the relaxed check names the real problem.
                    let reason = relaxed.err().unwrap_or(e);
                    self.game.found.push(
                        Check::Replay,
                        Diagnostic::new(
                            Code::BadPosition,
                            format!("impossible start position: {reason}"),
                        ),
                    );
                    // Still check the moves when the engine can represent the position.
                    Position::from_setup_lenient(&setup).ok()
                }
            },
        }
    }

    /// The declaration rule the header states, and where: the first key of
    /// [`DECLARATION_KEYS`] whose first entry writes a number.
    fn stated_declaration(&self) -> Option<(u32, Span)> {
        self.game
            .declaration
            .iter()
            .flatten()
            .find_map(|(value, span)| declaration_of(value).map(|n| (n, *span)))
    }

    /// The report of the game told, and the final position.
    fn report(&mut self) -> (Report, Position) {
        let declaration = self.stated_declaration();
        let opts = self.opts;
        let g = &mut self.game;
        let nodes = self.main.nodes;
        let main = &mut g.main;
        // The counts of the main line, and what stands after its last node.
        main.moves = nodes - main.specials;
        if main.ending.is_none() {
            main.plies = main.moves;
        }
        main.ends_in_special = nodes > 0 && g.last_special_node == Some(nodes - 1);
        main.last_span = (nodes > 0).then_some(g.last_span);
        if !main.ends_in_special {
            main.last_special = None;
        }
        if main.footer.is_some() || g.summary_node != nodes {
            main.summary = None;
        }
        let mut report = Report {
            plies: g.main.plies,
            result: g.main.recorded_result(),
            info: g.stated.info(),
            ..Report::default()
        };
        let end = self.main.end();
        report.diagnostics = g.found.take(|c| c != Check::Clock);
        if !g.no_board {
            verify_result(&g.main, declaration, opts, &end, &mut report);
        }
        let given = opts.time_control.as_ref();
        if let Some(d) = control_mismatch(g.control.as_ref(), given, g.stating.unwrap_or_default())
        {
            report.push(d);
        }
        report
            .diagnostics
            .append(&mut g.found.take(|c| c == Check::Clock));
        if let (Some(at), Some(control)) = (g.times.overrun.take(), g.control.or(given.copied())) {
            overrun_findings(
                &at.overrun,
                &control,
                (at.ply, at.span),
                &at.usi,
                &at.raw,
                &mut report,
            );
        }
        super::sort_by_position(&mut report);
        let pos = end.pos.unwrap_or_else(|| even().clone());
        (report, pos)
    }
}

impl<S> Drop for Judge<'_, S> {
    fn drop(&mut self) {
        let main = std::mem::replace(
            &mut self.main,
            Line::new(even().clone(), RepetitionTracker::default(), 1),
        );
        MAIN.with(|h| h.set(Some(main)));
    }
}

/// Puts the moves a record's judge resolved, in the order [`tell_game`] told them, into the
/// record's nodes.
fn write_back(nodes: &mut [MoveNode], resolved: &mut impl Iterator<Item = Option<Move>>) {
    each_told_move(nodes, &mut |node| {
        if let NodeKind::Move { resolved: slot, .. } = &mut node.kind
            && let Some(m) = resolved.next().flatten()
        {
            *slot = Some(m);
        }
    });
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

    /// Whether a time control is read from `key` ([`TimeControl::from_keys`]).
    fn states_time(key: &str) -> bool {
        Self::slot(key).is_some_and(|i| i == 4 || i >= 6)
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

impl<S: Sink> Visitor for Judge<'_, S> {
    type Output = Judged<S>;

    /// A move's text is kept only while a clock runs (the move a `time-exceeded` names), and
    /// of a record.
    #[inline]
    fn needs_text(&self) -> bool {
        self.keeps_text()
    }

    fn withheld(&mut self, bytes: &[u8]) {
        self.withheld.clear();
        self.withheld.extend_from_slice(bytes);
    }

    fn begin_game(&mut self, _line: u32) {
        self.main.unread = None;
        self.main.restart(None);
        self.open.clear();
        self.detour = self.record_mode;
        self.resolved.clear();
        self.game = Judging {
            times: MainTimes::new(Color::Black, None),
            ..Judging::default()
        };
        // A record's findings, taken from it (`record`), come first.
        let reader = std::mem::take(&mut self.reader);
        for d in &reader {
            self.reader_finding(d);
        }
        self.game.found.append(Check::Reader, reader);
    }

    fn header(&mut self, key: &str, value: &str, span: Span) {
        let g = &mut self.game;
        if let Some(i) = DECLARATION_KEYS.iter().position(|&k| k == key)
            && let Some(slot) = g.declaration.get_mut(i)
        {
            slot.get_or_insert_with(|| (value.to_owned(), span));
        }
        if g.stating.is_none() && STATING.contains(&key) {
            g.stating = Some(span);
        }
        g.sink.entry(key, value, span);
        g.stated.take(key, value);
        if !g.started {
            return;
        }
        // An entry after the moves began (a CSA `$` line).
        if Stated::states_time(key) && g.stated.time_control() != g.control {
            // A time control stated late: the clock is followed from the first move.
            self.give_up();
        }
    }

    fn start(&mut self, start: &StartPosition) {
        if std::mem::replace(&mut self.game.started, true) {
            // A position told again after the moves (KIF): the record's is the last one.
            return self.give_up();
        }
        self.game.sink.start(start);
        let turn = if *start == StartPosition::Preset(Handicap::Even) {
            Color::Black
        } else {
            match self.board_of(start) {
                Some(pos) => {
                    self.main.restart(Some(&pos));
                    pos.turn()
                }
                None => {
                    self.game.no_board = true;
                    self.main.without_board();
                    start.to_setup().turn
                }
            }
        };
        let g = &mut self.game;
        g.control = g.stated.time_control();
        g.main.start_turn = turn;
        g.times = MainTimes::new(turn, g.control.or(self.opts.time_control));
    }

    #[inline(always)]
    fn mv(&mut self, mv: &WrittenMove<'_>, span: Span) {
        if self.detour {
            return self.detour_move(mv, span);
        }
        self.game.last_span = span;
        if self.main.open() && mv.number.is_none_or(|n| n == self.main.expected()) {
            let node = self.main.nodes;
            if let Some(m) = mv.to_move(&self.main.pos)
                && self.main.quick(m)
            {
                self.game.sink.played(m);
                if self.game.times.clock_runs() {
                    let text = Some(RawText::from(mv.raw));
                    let ply = self.main.first_ply + node;
                    self.game.times.node(node, ply, false, Some(m), text, None);
                }
                return;
            }
        }
        self.main_move(mv, span);
    }

    fn special(&mut self, special: &WrittenSpecial<'_>, span: Span) {
        if self.game.needs_record {
            return;
        }
        if let Some(open) = self.open.last_mut() {
            if let Some(line) = open {
                if !self.game.reader_numbers {
                    line.number(special.number, span, special.text, &mut self.game.found);
                }
                line.special(special.text);
            }
            return;
        }
        let keeps_text = self.keeps_text();
        let g = &mut self.game;
        g.sink.special();
        let nodes = self.main.nodes;
        g.main
            .ended(special.to_special(), span, nodes - g.main.specials);
        g.last_special_node = Some(nodes);
        g.last_span = span;
        if keeps_text {
            let ply = self.main.first_ply + nodes;
            g.times.node(nodes, ply, true, None, None, self.main.unread);
        }
        if !g.reader_numbers {
            self.main
                .number(special.number, span, special.text, &mut g.found);
        }
        self.main.special(special.text);
    }

    #[inline(always)]
    fn time(&mut self, time: MoveTime, _span: Span) {
        if self.detour && (self.game.needs_record || !self.open.is_empty()) {
            return;
        }
        let g = &mut self.game;
        // The main line's last node (a time before any is read as none).
        let Some(node) = self.main.nodes.checked_sub(1) else {
            return;
        };
        // While every move is played the quick way, the last node is a move of the side
        // not to move.
        let mover = self.main.open().then(|| self.main.pos.turn().flip());
        let main = &g.main;
        let (first_ply, nodes, span) = (self.main.first_ply, self.main.nodes, g.last_span);
        let last_special = g.last_special_node;
        let at = || TimedNode {
            node,
            // The ply counts every node of the main line.
            ply: first_ply + node,
            span,
            moves: nodes - main.specials,
            // The last special is the first (the ending) or a later one.
            special: if last_special == Some(node) {
                let first = main.ending.as_ref().map(|(s, _)| s);
                main.last_special
                    .as_ref()
                    .or(first)
                    .map(|s| (s.kind, s.text.as_str()))
            } else {
                None
            },
        };
        if g.times.time(time, node, mover, at, &mut g.found).is_err() {
            return self.give_up();
        }
        let g = &mut self.game;
        if let Some(ms) = time.elapsed_ms {
            g.sink.time(ms);
        }
    }

    fn comment(&mut self, text: &str, _span: Span) {
        if self.game.needs_record {
            return;
        }
        let g = &mut self.game;
        if self.main.nodes == 0 {
            g.sink.comment(text, At::Start);
            return;
        }
        // The sink tells an engine's analysis from a comment, if it gathers either.
        let at = At::Moves(self.family);
        if !self.open.is_empty() {
            g.sink.comment(text, at);
            return;
        }
        let span = g.last_span;
        if text.starts_with("summary:") {
            // shogi-server's verdict: the last one after the main line's last node stands.
            if let Some(f) = summary_footer(text, span) {
                g.main.summary = Some(f);
                g.summary_node = self.main.nodes;
            }
            if g.main.ending.is_none() {
                g.main.plies = self.main.nodes - g.main.specials;
            }
        }
        g.sink.comment(text, at);
    }

    fn analysis(&mut self, analysis: &crate::record::Analysis) {
        if !self.game.needs_record {
            self.game.sink.analysis(analysis);
        }
    }

    fn begin_variation(&mut self, ply: u32, _span: Span) {
        self.game.sink.begin_variation();
        if !self.main.keeps_moves {
            // A format without variations told one: its moves were not kept.
            return self.give_up();
        }
        let child = match self.open.last() {
            None => self.main.branch(ply),
            Some(Some(line)) => line.branch(ply),
            Some(None) => None,
        };
        self.open.push(child);
        self.detour = true;
    }

    fn end_variation(&mut self) {
        // The record holds a variation with a move, of a node its line has.
        let kept = matches!(self.open.pop(), Some(Some(line)) if line.nodes > 0);
        self.game.sink.end_variation(kept);
        self.detour = self.record_mode || self.game.needs_record || !self.open.is_empty();
    }

    fn footer(&mut self, footer: &Footer) {
        self.game.main.footer = Some(footer.clone());
    }

    fn diagnostic(&mut self, mut diagnostic: Diagnostic) {
        if !self.record_mode {
            if !self.takes_finding(&diagnostic) {
                return self.give_up();
            }
            // A finding about the move whose text the reader withheld: its text, decoded
            // now, as the reader writes it when it decodes the move.
            if diagnostic.mv.as_deref() == Some("") && !self.withheld.is_empty() {
                let Some(text) = self.take_withheld() else {
                    return self.give_up();
                };
                diagnostic = diagnostic.with_move(text);
            }
        }
        self.reader_finding(&diagnostic);
        self.game.found.push(Check::Reader, diagnostic);
    }

    fn end_game(&mut self) -> Judged<S> {
        self.open.clear();
        if self.game.needs_record {
            return Judged::NeedsRecord;
        }
        let (report, pos) = self.report();
        let mut sink = std::mem::take(&mut self.game.sink);
        sink.finish(&pos);
        Judged::Done(report, sink)
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
