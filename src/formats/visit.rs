//! The reader's side of every job: a [`Visitor`] is told what a record says as the reader
//! reads it, in text order, and never needs a [`Record`] built. Building a record
//! ([`Builder`]) is one visitor among others; validating as the moves come, gathering table
//! rows and finding a position are others.
//!
//! # The call order
//!
//! For each game of a text, a reader calls, in this order:
//!
//! 1. [`begin_game`](Visitor::begin_game), at the game's first line of substance (blank lines
//!    and lines the format ignores before it make no game);
//! 2. [`header`](Visitor::header) for each header entry, in text order, with the key as the
//!    record's [`Header`](crate::record::Header) keeps it (CSA's `$EVENT` as `棋戦`, a
//!    header comment as [`keys::HEADER_COMMENT`](crate::record::keys::HEADER_COMMENT));
//! 3. [`start`](Visitor::start) once, with the start position, before the first move (also for
//!    a game with no move);
//! 4. for each ply of the main line, [`mv`](Visitor::mv) or [`special`](Visitor::special), each
//!    followed by its [`time`](Visitor::time) and [`comment`](Visitor::comment)s; a
//!    `comment` before the first ply is a comment on the start position;
//! 5. [`end_game`](Visitor::end_game), which gives the visitor's output for the game.
//!
//! [`diagnostic`](Visitor::diagnostic) may come anywhere between `begin_game` and `end_game`,
//! as the reader finds what it cannot read; the entry, move or line it is about is then not
//! told. A header entry that a format lets stand after the moves began (a CSA `$` line) is
//! told where it stands, after the moves before it.
//!
//! A visitor says what it does not want with [`Visitor::SKIP`]: a reader does not decode
//! what is skipped (CSA times are not parsed for a visitor that skips [`Skip::TIMES`]), and
//! tells nothing of it.

use crate::core::{Color, Move, PieceKind, Square};
use crate::diag::{Diagnostic, Span};
use crate::record::{
    MoveNode, MoveText, MoveTime, NamedPiece, NodeKind, RawText, Record, Relative, Source, Special,
    SpecialKind, StartPosition,
};

use super::ParsedGame;
use super::analysis::{self, Family};

/// What a visitor leaves out; a reader does not decode it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Skip(u8);

impl Skip {
    /// Everything is wanted.
    pub const NOTHING: Skip = Skip(0);
    /// Move times ([`Visitor::time`]).
    pub const TIMES: Skip = Skip(1);
    /// Comments ([`Visitor::comment`]).
    pub const COMMENTS: Skip = Skip(2);

    /// Whether every part of `other` is skipped.
    pub const fn contains(self, other: Skip) -> bool {
        self.0 & other.0 == other.0
    }

    /// Both sets.
    pub const fn and(self, other: Skip) -> Skip {
        Skip(self.0 | other.0)
    }
}

/// A move as the text writes it, borrowed from the text: what a record keeps as a
/// [`MoveText`], with nothing checked against a position.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct WrittenMove<'a> {
    /// The side the text says moves, if it says.
    pub color: Option<Color>,
    /// Source square, drop, or unknown.
    pub from: Source,
    /// Destination.
    pub to: Square,
    /// Written as `同`.
    pub same: bool,
    /// The piece named, if any.
    pub piece: Option<NamedPiece>,
    /// `Some(true)` for a promotion, `Some(false)` for an explicit 不成, `None` when unsaid.
    pub promote: Option<bool>,
    /// KI2 suffixes.
    pub relative: Relative,
    /// The text as written.
    pub raw: &'a str,
    /// The move itself, where the text names it whole with no position needed (USI, USEN):
    /// what the record keeps as the move's resolution before any replay.
    pub resolved: Option<Move>,
}

impl WrittenMove<'_> {
    /// A CSA move: `color` moves to `to` from `from` (`None`: a drop), `kind` being the piece
    /// after the move.
    #[inline]
    pub fn csa(
        color: Color,
        from: Option<Square>,
        to: Square,
        kind: PieceKind,
        raw: &str,
    ) -> WrittenMove<'_> {
        WrittenMove {
            color: Some(color),
            from: from.map_or(Source::Drop, Source::Square),
            to,
            same: false,
            piece: Some(NamedPiece::After(kind)),
            promote: None,
            relative: Relative::default(),
            raw,
            resolved: None,
        }
    }

    /// A move written whole, by its squares (a USI or USEN move): no side, no piece, the
    /// promotion mark only where it promotes.
    #[inline]
    pub fn whole(mv: Move, raw: &str) -> WrittenMove<'_> {
        WrittenMove {
            color: None,
            from: match mv {
                Move::Normal { from, .. } => Source::Square(from),
                Move::Drop { .. } => Source::Drop,
            },
            to: mv.to(),
            same: false,
            piece: None,
            promote: mv.is_promotion().then_some(true),
            relative: Relative::default(),
            raw,
            resolved: Some(mv),
        }
    }

    /// The record's form of the move.
    pub fn to_text(&self) -> MoveText {
        MoveText {
            color: self.color,
            from: self.from,
            to: self.to,
            same: self.same,
            piece: self.piece,
            promote: self.promote,
            relative: self.relative,
            raw: RawText::from(self.raw),
        }
    }
}

/// A special move (the game's end) as the text writes it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct WrittenSpecial<'a> {
    /// What it means.
    pub kind: SpecialKind,
    /// Exactly as written.
    pub text: &'a str,
    /// A side the text names, if any.
    pub side: Option<Color>,
}

impl WrittenSpecial<'_> {
    /// The record's form of the special.
    pub fn to_special(&self) -> Special {
        Special {
            kind: self.kind,
            text: self.text.to_owned(),
            side: self.side,
        }
    }
}

/// What a reader tells of a text, game by game, in the order the module's documentation
/// gives. Every method but [`end_game`](Visitor::end_game) does nothing unless implemented.
pub trait Visitor {
    /// What the visitor makes of one game.
    type Output;

    /// What the reader need not decode.
    const SKIP: Skip = Skip::NOTHING;

    /// A game begins; `line` is its first line of substance.
    #[inline]
    fn begin_game(&mut self, line: u32) {
        let _ = line;
    }

    /// A header entry.
    #[inline]
    fn header(&mut self, key: &str, value: &str, span: Span) {
        let _ = (key, value, span);
    }

    /// The start position, before the first move.
    #[inline]
    fn start(&mut self, start: &StartPosition) {
        let _ = start;
    }

    /// A move of the main line, as written.
    #[inline]
    fn mv(&mut self, mv: &WrittenMove<'_>, span: Span) {
        let _ = (mv, span);
    }

    /// A special move of the main line.
    #[inline]
    fn special(&mut self, special: &WrittenSpecial<'_>, span: Span) {
        let _ = (special, span);
    }

    /// The time of the last move or special. Told again for the same ply when the text gives
    /// it twice (the last one stands).
    #[inline]
    fn time(&mut self, time: MoveTime, span: Span) {
        let _ = (time, span);
    }

    /// A comment line after the last move or special (on the start position before any),
    /// without its marker.
    #[inline]
    fn comment(&mut self, text: &str, span: Span) {
        let _ = (text, span);
    }

    /// What the reader could not read.
    #[inline]
    fn diagnostic(&mut self, diagnostic: Diagnostic) {
        let _ = diagnostic;
    }

    /// The game ends: the visitor's output for it.
    fn end_game(&mut self) -> Self::Output;
}

/// A streaming reader of one format: each game told to a visitor, and the game read last
/// read again into a record, for a visitor that found that it needs one.
pub(crate) trait GameReader {
    /// Reads the next game, telling `visitor` what it says; `None` when the text holds no
    /// more game.
    fn read_game<V: Visitor>(&mut self, visitor: &mut V) -> Option<V::Output>;

    /// The game read last, read again by the [`Builder`], with the spans of the text.
    fn last_game_record(&self) -> Option<ParsedGame>;
}

/// The visitor that builds the [`Record`] (and the reader's diagnostics) of each game: what
/// [`formats::read`](super::read) returns.
#[derive(Debug)]
pub struct Builder {
    /// How the formats read write engine analysis in comments (`None`: they have no comments).
    family: Option<Family>,
    record: Record,
    diagnostics: Vec<Diagnostic>,
    /// Moves to make room for at the start: as many as the last game had, and a quarter more
    /// (games of one file are alike).
    moves_hint: usize,
}

impl Builder {
    /// A builder for records of `family`'s formats (which says how engine analysis is
    /// written in comments; `None` for formats without comments).
    pub(crate) fn new(family: Option<Family>) -> Builder {
        Builder {
            family,
            record: Record::default(),
            diagnostics: Vec::new(),
            moves_hint: 0,
        }
    }
}

impl Visitor for Builder {
    type Output = ParsedGame;

    fn begin_game(&mut self, _line: u32) {
        self.record = Record::default();
        self.diagnostics = Vec::new();
    }

    fn header(&mut self, key: &str, value: &str, span: Span) {
        self.record.header.push(key, value, span);
    }

    fn start(&mut self, start: &StartPosition) {
        self.record.start = start.clone();
        self.record.moves.reserve(self.moves_hint);
    }

    #[inline]
    fn mv(&mut self, mv: &WrittenMove<'_>, span: Span) {
        let kind = NodeKind::Move {
            text: mv.to_text(),
            resolved: mv.resolved,
        };
        self.record.moves.push(MoveNode::new(kind, span));
    }

    fn special(&mut self, special: &WrittenSpecial<'_>, span: Span) {
        let kind = NodeKind::Special(special.to_special());
        self.record.moves.push(MoveNode::new(kind, span));
    }

    #[inline]
    fn time(&mut self, time: MoveTime, _span: Span) {
        if let Some(node) = self.record.moves.last_mut() {
            let t = node.time.get_or_insert_with(MoveTime::default);
            if time.elapsed_ms.is_some() {
                t.elapsed_ms = time.elapsed_ms;
            }
            if time.total_ms.is_some() {
                t.total_ms = time.total_ms;
            }
        }
    }

    fn comment(&mut self, text: &str, _span: Span) {
        match self.record.moves.last_mut() {
            Some(node) => node.comments.push(text.to_owned()),
            None => self.record.start_comments.push(text.to_owned()),
        }
    }

    fn diagnostic(&mut self, diagnostic: Diagnostic) {
        self.diagnostics.push(diagnostic);
    }

    fn end_game(&mut self) -> ParsedGame {
        let mut record = std::mem::take(&mut self.record);
        let plies = record.moves.len();
        self.moves_hint = plies.saturating_add(plies / 4).min(4096);
        if let Some(family) = self.family {
            analysis::extract(&mut record, family);
        }
        ParsedGame {
            record,
            diagnostics: std::mem::take(&mut self.diagnostics),
        }
    }
}
