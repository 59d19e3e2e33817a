//! What a table's row reads of a game besides its report, gathered by the judge as it reads
//! the game ([`Digest`]), so that `kifu games` and `kifu positions` run at the speed of
//! `validate` and no game is read twice: the header, the start, the comments, the moves of
//! the main line, their times and engine analysis, and the final position.

use crate::core::{Move, Position};
use crate::formats::text::DecodedText;
use crate::formats::{Format, ReadOptions};
use crate::record::{Analysis, Header, Span, StartPosition, game_key};

use super::bytes::{TextRead, judge_bytes, judge_text};
use super::judge::Found;
use super::{Options, Report};

/// What the judge tells a gatherer of a game as it reads it (the rows of `kifu games` and
/// `kifu positions`); `()` gathers nothing. The calls come in the order of
/// [`Visitor`](crate::formats::visit::Visitor)'s, with each main-line move resolved.
pub(crate) trait Sink: Default {
    /// A header entry, as the reader tells it.
    #[inline]
    fn entry(&mut self, key: &str, value: &str, span: Span) {
        let _ = (key, value, span);
    }

    /// The start position.
    #[inline]
    fn start(&mut self, start: &StartPosition) {
        let _ = start;
    }

    /// A move of the main line, legal and played the quick way.
    #[inline]
    fn played(&mut self, mv: Move) {
        let _ = mv;
    }

    /// Any other move of the main line: the move it resolves to as its record keeps it
    /// (`None`: not resolved), and its text as written.
    #[inline]
    fn told(&mut self, resolved: Option<Move>, raw: &str) {
        let _ = (resolved, raw);
    }

    /// A special (an ending) of the main line.
    #[inline]
    fn special(&mut self) {}

    /// The time spent on the main line's last move or special, in milliseconds (a CSA `T`
    /// line's seconds after it, a KIF move line's time column).
    #[inline]
    fn time(&mut self, ms: u64) {
        let _ = ms;
    }

    /// A comment, where `at` says.
    #[inline]
    fn comment(&mut self, text: &str, at: At) {
        let _ = (text, at);
    }

    /// The engine analysis of the main line's last move or special, as a record keeps it.
    #[inline]
    fn analysis(&mut self, analysis: &Analysis) {
        let _ = analysis;
    }

    /// A variation begins (of any line).
    #[inline]
    fn begin_variation(&mut self) {}

    /// The variation begun last ends; `kept`: the record holds it (it has a move, and
    /// branches off a move its line has).
    #[inline]
    fn end_variation(&mut self, kept: bool) {
        let _ = kept;
    }

    /// The game is over; `end` is the main line's final position as replayed (that of
    /// [`Digest::final_position`] where every move was played the quick way).
    #[inline]
    fn finish(&mut self, end: &Position) {
        let _ = end;
    }
}

impl Sink for () {}

/// Where a comment stands in its game.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum At {
    /// On the start, before any move or special.
    Start,
    /// After a move or a special of any line, in a format of `family` (which says whether
    /// it is an engine's analysis, which the record keeps as the node's analysis, not as a
    /// comment).
    Moves(crate::formats::analysis::Family),
}

/// A move of a game's main line after [`Digest::moves`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum MainMove {
    /// Resolved (by the replay, or by its text where that names it whole).
    Resolved(Move),
    /// Not resolved: the move as written.
    Written(String),
}

impl MainMove {
    /// The move, where it was resolved; else its text as written.
    pub fn as_result(&self) -> Result<Move, &str> {
        match self {
            MainMove::Resolved(m) => Ok(*m),
            MainMove::Written(text) => Err(text),
        }
    }
}

/// What a table's row reads of a game, as its record would hold it: gathered by the judge as
/// the game is read ([`gather_text`], [`gather_bytes`]), or from a record ([`digest`]).
#[derive(Debug, Clone)]
pub struct Digest {
    /// The header entries, as the reader makes them.
    pub header: Header,
    /// The start position.
    pub start: StartPosition,
    /// The comments before the first move (the record's `start_comments`).
    pub start_comments: Vec<String>,
    /// Comment lines after a move or an ending, in every line the record holds, analysis
    /// lines left out (those the record's nodes keep as comments).
    pub comments: u32,
    /// The variations the record holds, nested ones included.
    pub variations: u32,
    /// The moves of the main line before its first ending, as resolved, up to the first that
    /// is not.
    pub moves: Vec<Move>,
    /// The main line's moves after those (after the ending, or from the first move not
    /// resolved).
    pub rest: Vec<MainMove>,
    /// The time spent on a move of the main line before its ending, where its record gives
    /// one (a CSA `T` line, a KIF time column): the move's index (from 0) and the
    /// milliseconds (of CSA's `T` lines the last wins). Gathered for [`Gather::Positions`]
    /// only; empty otherwise.
    pub times: Vec<(u32, u64)>,
    /// The engine analysis of a move of the main line before its ending, by the move's index.
    /// Gathered for [`Gather::Positions`] only.
    pub evals: Vec<(u32, Box<Analysis>)>,
    /// The time used by the moves and endings of the main line that record one: how many,
    /// and the milliseconds.
    pub spent: (u64, u64),
    /// The game key ([`game_key`]), hashed move by move as they are told.
    pub key: u64,
    /// The main line's final position where every move of it was played the quick way from
    /// the even start (all legal, all in `moves`); `None` for any other game (its final
    /// position is made by replaying `moves`).
    pub end: Option<Position>,
    /// The main line's moves told before its first ending.
    told: u32,
    /// The main line's first ending was told.
    ended: bool,
    /// Every move was played the quick way from the even start, so far.
    quick: bool,
    /// The variations open, innermost last: the comments and variations counted in each
    /// (the record holds them only if it holds the variation: see `end_variation`).
    open: Vec<(u32, u32)>,
}

impl Default for Digest {
    fn default() -> Digest {
        Digest {
            header: Header::default(),
            start: StartPosition::default(),
            start_comments: Vec::new(),
            comments: 0,
            variations: 0,
            moves: Vec::new(),
            rest: Vec::new(),
            times: Vec::new(),
            evals: Vec::new(),
            spent: (0, 0),
            key: game_key::EVEN_START,
            end: None,
            told: 0,
            ended: false,
            quick: true,
            open: Vec::new(),
        }
    }
}

impl Digest {
    /// Every move of the main line in order, as resolved, or as written where it is not.
    pub fn main_line(&self) -> impl Iterator<Item = Result<Move, &str>> + '_ {
        let rest = self.rest.iter().map(MainMove::as_result);
        self.moves.iter().map(|&m| Ok(m)).chain(rest)
    }

    /// The position after the first `plies` moves of the main line, played as far as the
    /// rules let them be carried out (fouls such as nifu are played); `None` when the start
    /// cannot be set up or a move is unresolved or cannot be carried out.
    pub fn final_position(&self, plies: u32) -> Option<Position> {
        if let Some(end) = &self.end {
            return Some(end.clone());
        }
        let mut pos = Position::from_setup_lenient(&self.start.to_setup()).ok()?;
        for m in self.main_line().take(plies as usize) {
            pos.play_unchecked(m.ok()?).ok()?;
        }
        Some(pos)
    }

    /// Whether the main line's moves before its ending are still all in `moves`.
    #[inline]
    fn in_moves(&self) -> bool {
        !self.ended && self.rest.is_empty()
    }

    /// The index of the main line's last move before its ending, if one was told.
    #[inline]
    fn last_move(&self) -> Option<u32> {
        self.told.checked_sub(1).filter(|_| !self.ended)
    }
}

impl Sink for Digest {
    fn entry(&mut self, key: &str, value: &str, span: Span) {
        self.header.push(key, value, span);
    }

    fn start(&mut self, start: &StartPosition) {
        if *start != StartPosition::default() {
            self.quick = false;
            self.key = game_key::start_key(start);
            self.start = start.clone();
        }
    }

    #[inline]
    fn played(&mut self, mv: Move) {
        if self.moves.capacity() == 0 {
            // Room for a long game at once, not a doubling every few moves.
            self.moves.reserve(256);
        }
        self.moves.push(mv);
        self.told += 1;
        self.key = game_key::with_move(self.key, mv);
    }

    fn told(&mut self, resolved: Option<Move>, raw: &str) {
        self.quick = false;
        match resolved {
            Some(m) => {
                self.key = game_key::with_move(self.key, m);
                if self.in_moves() {
                    self.moves.push(m);
                } else {
                    self.rest.push(MainMove::Resolved(m));
                }
            }
            None => {
                self.key = game_key::with_text(self.key, raw);
                self.rest.push(MainMove::Written(raw.to_owned()));
            }
        }
        if !self.ended {
            self.told += 1;
        }
    }

    fn special(&mut self) {
        self.ended = true;
    }

    fn time(&mut self, ms: u64) {
        self.spent.0 += 1;
        self.spent.1 = self.spent.1.saturating_add(ms);
    }

    fn comment(&mut self, text: &str, at: At) {
        // As the record keeps it: analysis lines go to the move's analysis.
        match (at, self.open.last_mut()) {
            (At::Start, None) => self.start_comments.push(text.to_owned()),
            (At::Moves(family), _) if family.is_analysis(text) => {}
            (_, Some(open)) => open.0 += 1,
            (_, None) => self.comments += 1,
        }
    }

    fn begin_variation(&mut self) {
        self.open.push((0, 0));
    }

    fn end_variation(&mut self, kept: bool) {
        let Some((comments, variations)) = self.open.pop().filter(|_| kept) else {
            return;
        };
        match self.open.last_mut() {
            Some(open) => {
                open.0 += comments;
                open.1 += 1 + variations;
            }
            None => {
                self.comments += comments;
                self.variations += 1 + variations;
            }
        }
    }

    fn finish(&mut self, end: &Position) {
        if self.quick {
            self.end = Some(end.clone());
        }
    }
}

/// A [`Digest`] that also gathers each move's time and engine analysis
/// ([`Gather::Positions`]).
#[derive(Debug, Default)]
struct Timed(Digest);

impl Sink for Timed {
    #[inline]
    fn entry(&mut self, key: &str, value: &str, span: Span) {
        self.0.entry(key, value, span);
    }

    #[inline]
    fn start(&mut self, start: &StartPosition) {
        self.0.start(start);
    }

    #[inline]
    fn played(&mut self, mv: Move) {
        self.0.played(mv);
    }

    #[inline]
    fn told(&mut self, resolved: Option<Move>, raw: &str) {
        self.0.told(resolved, raw);
    }

    #[inline]
    fn special(&mut self) {
        self.0.special();
    }

    fn time(&mut self, ms: u64) {
        let game = &mut self.0;
        game.time(ms);
        let Some(ply) = game.last_move() else {
            return;
        };
        match game.times.last_mut() {
            Some(last) if last.0 == ply => last.1 = ms,
            _ => game.times.push((ply, ms)),
        }
    }

    fn comment(&mut self, text: &str, at: At) {
        let game = &mut self.0;
        if let (At::Moves(family), Some(ply), true) = (at, game.last_move(), game.open.is_empty()) {
            // The lines after one move make one analysis.
            let mut slot = match game.evals.last() {
                Some((at, _)) if *at == ply => game.evals.pop().map(|(_, a)| a),
                _ => None,
            };
            let analysis = crate::formats::analysis::read_into(&mut slot, text, family);
            if let Some(a) = slot {
                game.evals.push((ply, a));
            }
            if analysis {
                // Not a comment of the record's.
                return;
            }
        }
        game.comment(text, at);
    }

    fn analysis(&mut self, analysis: &Analysis) {
        let game = &mut self.0;
        if let (Some(ply), true) = (game.last_move(), game.open.is_empty()) {
            game.evals.push((ply, Box::new(analysis.clone())));
        }
    }

    #[inline]
    fn begin_variation(&mut self) {
        self.0.begin_variation();
    }

    #[inline]
    fn end_variation(&mut self, kept: bool) {
        self.0.end_variation(kept);
    }

    #[inline]
    fn finish(&mut self, end: &Position) {
        self.0.finish(end);
    }
}

impl From<Timed> for Digest {
    fn from(timed: Timed) -> Digest {
        timed.0
    }
}

/// What [`gather_text`] gathers of a game besides its report.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Gather {
    /// What a games row reads: the header, the start, the comments, the moves, the final
    /// position.
    #[default]
    Games,
    /// That and each move's time and engine analysis ([`Digest::times`],
    /// [`Digest::evals`]), which a positions row reads.
    Positions,
}

/// Reads and validates every game of a decoded `text` in `format`, in order: the same reports
/// as [`validate_text`](super::validate_text), each with the [`Digest`] of its game (`gather`
/// says how much).
pub fn gather_text(
    format: Format,
    text: &str,
    opts: &Options,
    gather: Gather,
) -> Vec<(Report, Digest)> {
    fn run<S: Sink + Into<Digest>>(
        format: Format,
        text: &str,
        opts: &Options,
    ) -> Vec<(Report, Digest)> {
        let mut out = Vec::new();
        judge_text::<S>(format, text, opts, |g| out.push(digested(g)));
        out
    }
    match gather {
        Gather::Games => run::<Digest>(format, text, opts),
        Gather::Positions => run::<Timed>(format, text, opts),
    }
}

/// [`gather_text`] on the bytes of a file, read as `read` says, as every command reads them:
/// UTF-8 and ASCII where they lie, KIF in CP932 from its bytes, any other text decoded first.
/// How they were read and the games, or the bytes decoded (`Err`) where they do not decode
/// cleanly or their format cannot be told: read those with
/// [`formats::read_decoded`](crate::formats::read_decoded), which keeps the decoder's
/// findings, and take each game's [`digest`].
///
/// ```
/// use kifu::formats::{Format, ReadOptions};
/// use kifu::validate::{Gather, Options, gather_bytes};
///
/// let read = ReadOptions { format: Some(Format::Usi), ..ReadOptions::default() };
/// let (how, games) =
///     gather_bytes(b"startpos moves 7g7f\n", &read, &Options::default(), Gather::Games).unwrap();
/// assert_eq!((how.format, games.len()), (Format::Usi, 1));
/// assert_eq!(games[0].1.moves.len(), 1);
/// let undecodable = gather_bytes(b"\xff\xfe\x00", &read, &Options::default(), Gather::Games);
/// assert!(!undecodable.unwrap_err().diagnostics.is_empty());
/// ```
pub fn gather_bytes(
    bytes: &[u8],
    read: &ReadOptions,
    opts: &Options,
    gather: Gather,
) -> Result<(TextRead, Vec<(Report, Digest)>), DecodedText> {
    fn run<S: Sink + Into<Digest>>(
        bytes: &[u8],
        read: &ReadOptions,
        opts: &Options,
    ) -> Result<(TextRead, Vec<(Report, Digest)>), DecodedText> {
        let mut out = Vec::new();
        let how = judge_bytes::<S>(bytes, read, opts, |g| out.push(digested(g)))?;
        Ok((how, out))
    }
    match gather {
        Gather::Games => run::<Digest>(bytes, read, opts),
        Gather::Positions => run::<Timed>(bytes, read, opts),
    }
}

/// Validates a game read into a record, as [`validate_game`](super::validate_game) does
/// (filling in its resolved moves), and gathers its [`Digest`] as [`gather_text`] gathers
/// a game's as it reads it.
pub fn digest(
    game: &mut crate::formats::ParsedGame,
    opts: &Options,
    gather: Gather,
) -> (Report, Digest) {
    match gather {
        Gather::Games => super::judge::judge_record::<Digest>(game, opts),
        Gather::Positions => {
            let (report, timed) = super::judge::judge_record::<Timed>(game, opts);
            (report, timed.into())
        }
    }
}

/// A game as [`gather_text`] gives it.
fn digested<S: Into<Digest>>(g: Found<S>) -> (Report, Digest) {
    (g.report, g.sink.into())
}
