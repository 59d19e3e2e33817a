//! The short ways of [`validate_csa`](super::validate_csa),
//! [`validate_usi`](super::validate_usi), [`validate_kif`](super::validate_kif),
//! [`validate_ki2`](super::validate_ki2) and [`validate_jkf`](super::validate_jkf), gathering
//! as they read what a table's row needs of a game besides its report: the header entries, the
//! comments, the moves of the main line and the final position ([`ShortGame`]), so that `kifu games` runs at the speed of `validate`
//! on those formats. A game the short way leaves to the reader comes back read and validated
//! the full way ([`Gathered::Full`]).

use crate::core::{Move, Position};
use crate::formats::{Format, ParsedGame, ReadOptions};
use crate::record::{Header, Span, game_key};

use super::bytes::{TextRead, judge_bytes, judge_text};
use super::judge::Found;
use super::{Options, Report};

/// What the short way tells a caller that gathers more than the report (the rows of
/// `kifu games`), as it reads a game's lines; `()` gathers nothing.
pub(crate) trait Sink: Default {
    /// Whether the sink gathers anything: a game the judge took another way than the quick
    /// one is then read into a record for it.
    const GATHERS: bool = true;

    /// A header entry, as the reader tells it.
    #[inline]
    fn entry(&mut self, key: &str, value: &str, span: Span) {
        let _ = (key, value, span);
    }

    /// A comment after the header; `at` says where it stands.
    #[inline]
    fn comment(&mut self, text: &str, at: At) {
        let _ = (text, at);
    }

    /// A move of the main line, played.
    #[inline]
    fn played(&mut self, mv: Move) {
        let _ = mv;
    }

    /// The time spent on the last move played, in milliseconds (a CSA `T` line's seconds
    /// after it, a KIF move line's time column), before any special.
    #[inline]
    fn time(&mut self, ms: u64) {
        let _ = ms;
    }
}

impl Sink for () {
    const GATHERS: bool = false;
}

/// Where a comment stands in its game.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum At {
    /// After the start, before any move or special.
    Start,
    /// After a move or a special.
    Moves,
    /// After a move or a special, an engine's analysis (which the record keeps as the node's
    /// analysis, not as a comment).
    Analysis,
}

/// What the short way gathered of a game: what its record would hold, as far as a row reads
/// it. The start is the even position (the only one the short ways take). A KIF or KI2 game
/// read the short way has no comments (a comment sends it the full way).
#[derive(Debug, Clone)]
pub struct ShortGame {
    /// The header entries, as the reader makes them.
    pub header: Header,
    /// The comments before the first move (the record's `start_comments`).
    pub start_comments: Vec<String>,
    /// Comment lines after a move or the ending, analysis lines (`'**`) left out (those the
    /// record's nodes keep as comments).
    pub comments: u32,
    /// The moves of the main line, all legal, before its ending.
    pub moves: Vec<Move>,
    /// The time spent on a move, where its record gives one (a CSA `T` line, a KIF time
    /// column): the move's index in `moves` and the milliseconds (the reader's
    /// `MoveTime::elapsed_ms`; of CSA's `T` lines the last wins). Gathered for
    /// [`Gather::Positions`] only; empty otherwise.
    pub times: Vec<(u32, u64)>,
    /// A comment line after a move holds an engine's analysis (`'** ...`), which the full
    /// way reads into the move's `analysis` (the positions table's `eval_cp`, `mate`, `pv`).
    pub analysis: bool,
    /// The game key of the even start and `moves` ([`game_key::short_key`]), hashed move by
    /// move as they are played.
    pub key: u64,
}

impl Default for ShortGame {
    fn default() -> ShortGame {
        ShortGame {
            header: Header::default(),
            start_comments: Vec::new(),
            comments: 0,
            moves: Vec::new(),
            times: Vec::new(),
            analysis: false,
            key: game_key::EVEN_START,
        }
    }
}

impl Sink for ShortGame {
    fn entry(&mut self, key: &str, value: &str, span: Span) {
        self.header.push(key, value, span);
    }

    fn comment(&mut self, text: &str, at: At) {
        // As the reader keeps it: analysis lines (`'**`, KIF `**`) go to the move's analysis.
        match at {
            At::Start => self.start_comments.push(text.to_owned()),
            At::Analysis => self.analysis = true,
            At::Moves => self.comments += 1,
        }
    }

    #[inline]
    fn played(&mut self, mv: Move) {
        if self.moves.capacity() == 0 {
            // Room for a long game at once, not a doubling every few moves.
            self.moves.reserve(256);
        }
        self.moves.push(mv);
        self.key = game_key::with_move(self.key, mv);
    }
}

/// A [`ShortGame`] that also gathers each move's time ([`Gather::Positions`]).
#[derive(Debug, Default)]
struct Timed(ShortGame);

impl Sink for Timed {
    #[inline]
    fn entry(&mut self, key: &str, value: &str, span: Span) {
        self.0.entry(key, value, span);
    }

    #[inline]
    fn comment(&mut self, text: &str, at: At) {
        self.0.comment(text, at);
    }

    #[inline]
    fn played(&mut self, mv: Move) {
        self.0.played(mv);
    }

    fn time(&mut self, ms: u64) {
        let game = &mut self.0;
        let Some(ply) = game.moves.len().checked_sub(1) else {
            return;
        };
        let ply = u32::try_from(ply).unwrap_or(u32::MAX);
        match game.times.last_mut() {
            Some(last) if last.0 == ply => last.1 = ms,
            _ => game.times.push((ply, ms)),
        }
    }
}

impl From<Timed> for ShortGame {
    fn from(timed: Timed) -> ShortGame {
        timed.0
    }
}

/// What [`gather_text`] gathers of a game besides its report.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Gather {
    /// What a games row reads: the header, the comments, the moves, the final position.
    #[default]
    Games,
    /// That and each move's time ([`ShortGame::times`]), which a positions row reads.
    Positions,
}

/// One game as [`gather_text`] found it.
#[derive(Debug, Clone)]
pub enum Gathered {
    /// Read the short way: its report, what was gathered, and the final position.
    Short(Report, Box<ShortGame>, Box<Position>),
    /// Read and validated the full way: the game (its record replayed) and its report.
    Full(ParsedGame, Report),
}

impl Gathered {
    /// The game's report.
    pub fn report(&self) -> &Report {
        match self {
            Gathered::Short(r, ..) | Gathered::Full(_, r) => r,
        }
    }

    /// The game's report, to change.
    pub fn report_mut(&mut self) -> &mut Report {
        match self {
            Gathered::Short(r, ..) | Gathered::Full(_, r) => r,
        }
    }
}

/// Reads and validates every game of a decoded `text` in `format`, in order: the same reports
/// as [`validate_text`](super::validate_text), each with what the short way (CSA, USI, KIF,
/// KI2, JKF) gathered of its game (`gather` says how much), or with the game read the full
/// way (every game of a format without a short way).
pub fn gather_text(format: Format, text: &str, opts: &Options, gather: Gather) -> Vec<Gathered> {
    match gather {
        Gather::Games => gather_into::<ShortGame>(format, text, opts),
        Gather::Positions => gather_into::<Timed>(format, text, opts),
    }
}

fn gather_into<S: Sink + Into<ShortGame>>(
    format: Format,
    text: &str,
    opts: &Options,
) -> Vec<Gathered> {
    let mut out = Vec::new();
    judge_text::<S>(format, text, opts, |g| out.push(gathered(g)));
    out
}

/// [`gather_text`] on the bytes of a file, read as `read` says, as every command reads them:
/// UTF-8 and ASCII where they lie, KIF in CP932 from its bytes, any other text decoded first.
/// How they were read and the games, or `None` for bytes that do not decode cleanly or whose
/// format cannot be told (then read them with [`formats::read_bytes`](crate::formats::read_bytes),
/// which keeps the decoder's findings, and validate each game).
///
/// ```
/// use kifu::formats::{Format, ReadOptions};
/// use kifu::validate::{Gather, Options, gather_bytes};
///
/// let read = ReadOptions { format: Some(Format::Usi), ..ReadOptions::default() };
/// let (how, games) =
///     gather_bytes(b"startpos moves 7g7f\n", &read, &Options::default(), Gather::Games).unwrap();
/// assert_eq!((how.format, games.len()), (Format::Usi, 1));
/// assert!(gather_bytes(b"\xff\xfe\x00", &read, &Options::default(), Gather::Games).is_none());
/// ```
pub fn gather_bytes(
    bytes: &[u8],
    read: &ReadOptions,
    opts: &Options,
    gather: Gather,
) -> Option<(TextRead, Vec<Gathered>)> {
    fn run<S: Sink + Into<ShortGame>>(
        bytes: &[u8],
        read: &ReadOptions,
        opts: &Options,
    ) -> Option<(TextRead, Vec<Gathered>)> {
        let mut out = Vec::new();
        let how = judge_bytes::<S>(bytes, read, opts, |g| out.push(gathered(g))).ok()?;
        Some((how, out))
    }
    match gather {
        Gather::Games => run::<ShortGame>(bytes, read, opts),
        Gather::Positions => run::<Timed>(bytes, read, opts),
    }
}

/// A game as [`gather_text`] gives it.
fn gathered<S: Into<ShortGame>>(g: Found<S>) -> Gathered {
    match g {
        Found::Short(r, s, pos) => Gathered::Short(r, Box::new(s.into()), Box::new(pos)),
        Found::Full(g, r) => Gathered::Full(g, r),
    }
}
