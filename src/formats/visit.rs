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
//!    followed by its [`time`](Visitor::time), [`comment`](Visitor::comment)s (of a record
//!    told by [`tell_game`], then its [`analysis`](Visitor::analysis), which the record keeps
//!    apart from them) and [`bookmark`](Visitor::bookmark); a `comment` or `bookmark` before
//!    the first ply is on the start position;
//! 5. [`end_game`](Visitor::end_game), which gives the visitor's output for the game.
//!
//! Variations are told between [`begin_variation`](Visitor::begin_variation) and
//! [`end_variation`](Visitor::end_variation), which pair up and nest. The moves told between
//! them (with their times, comments and the variations inside them) are an alternative line
//! to the move at the begun ply and the moves after it, on the line open when the variation
//! began (the main line, or the variation begun last and not yet ended); that line holds the
//! ply by then. A format that writes variations after the main line (KIF) tells them there,
//! in text order; one that writes them where they branch (JKF) tells them there. Every
//! variation ends before `end_game`.
//!
//! [`diagnostic`](Visitor::diagnostic) may come anywhere between `begin_game` and `end_game`,
//! as the reader finds what it cannot read; the entry, move or line it is about is then not
//! told. A header entry that a format lets stand after the moves began (a CSA `$` line) is
//! told where it stands, after the moves before it. The KIF footer (`まで64手で後手の勝ち`)
//! is told as [`footer`](Visitor::footer) where it stands. A KIF position line after the
//! first move (which the reader reports) still changes the start position: the reader then
//! tells `start` again, with the position the record keeps, before `end_game`.
//!
//! A reader that can only tell part way through a game that it must read the game another
//! way (a JKF document is known to be of the plain shape its one pass reads only at its end)
//! begins the game again: [`begin_game`](Visitor::begin_game) then comes a second time before
//! `end_game`, and the visitor forgets what it was told of the game.
//!
//! A visitor says what it does not want with [`Visitor::SKIP`]: a reader does not decode
//! what is skipped (CSA times are not parsed for a visitor that skips [`Skip::TIMES`]), and
//! tells nothing of it.

use crate::core::{Color, Move, PieceKind, Position, Square, bitboard};
use crate::diag::{Diagnostic, Span};
use crate::record::resolve::resolve_move;
use crate::record::{
    Analysis, Footer, MoveNode, MoveText, MoveTime, NamedPiece, NodeKind, RawText, Record,
    Relative, Source, Special, SpecialKind, StartPosition,
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
    /// Variations: neither their bounds nor anything in them.
    pub const VARIATIONS: Skip = Skip(4);

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
    /// The move number written before it (KIF).
    pub number: Option<u32>,
}

impl<'a> WrittenMove<'a> {
    /// A CSA move: `color` moves to `to` from `from` (`None`: a drop), `kind` being the piece
    /// after the move.
    #[inline]
    pub fn csa(
        color: Color,
        from: Option<Square>,
        to: Square,
        kind: PieceKind,
        raw: &'a str,
    ) -> WrittenMove<'a> {
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
            number: None,
        }
    }

    /// A move as a record keeps it, borrowed.
    #[inline]
    pub fn of_text(text: &'a MoveText, number: Option<u32>) -> WrittenMove<'a> {
        WrittenMove {
            color: text.color,
            from: text.from,
            to: text.to,
            same: text.same,
            piece: text.piece,
            promote: text.promote,
            relative: text.relative,
            raw: text.raw.as_str(),
            resolved: None,
            number,
        }
    }

    /// A move written whole, by its squares (a USI or USEN move, a USI move of an engine's
    /// PV): no side, the piece only where it is dropped, the promotion said either way.
    #[inline]
    pub fn whole(mv: Move, raw: &'a str) -> WrittenMove<'a> {
        WrittenMove {
            color: None,
            from: match mv {
                Move::Normal { from, .. } => Source::Square(from),
                Move::Drop { .. } => Source::Drop,
            },
            to: mv.to(),
            same: false,
            piece: match mv {
                Move::Drop { kind, .. } => Some(NamedPiece::Before(kind)),
                Move::Normal { .. } => None,
            },
            promote: Some(mv.is_promotion()),
            relative: Relative::default(),
            raw,
            resolved: Some(mv),
            number: None,
        }
    }

    /// The move a written move names in `pos`, or `None` where the record's validation decides
    /// (a move the resolution of the record refuses: of the side not to move, of a piece not
    /// there or not the one named, a drop of a kind no hand holds). The move itself where the
    /// text names it whole (USI); as CSA names it, by the piece after it; as KIF names it, by its
    /// source and the piece before it; as KI2 names it, by the piece and the suffixes, as
    /// [`resolve_move`] resolves it. Whether the move is legal is not looked at.
    #[inline(always)]
    pub fn to_move(&self, pos: &Position) -> Option<Move> {
        let mv = self;
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
    /// The move number written before it (KIF).
    pub number: Option<u32>,
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

    /// A game begins; `line` is its first line of substance. Everything told of an earlier
    /// game, or of this one before a restart, is to be forgotten.
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

    /// Whether the text of the move told next ([`WrittenMove::raw`]) is wanted. A reader
    /// that must decode that text (KIF in CP932, read from its bytes) tells it empty when it
    /// is not, after telling its bytes ([`withheld`](Visitor::withheld)). Asked before each
    /// such move; a visitor that needs the text of some moves only (the validator, while a
    /// clock runs) answers as it goes.
    #[inline]
    fn needs_text(&self) -> bool {
        true
    }

    /// The bytes of the move told next, in the reader's encoding (CP932), where its text is
    /// not decoded because [`needs_text`](Visitor::needs_text) said no: a visitor that finds
    /// it needs the text after all decodes them.
    #[inline]
    fn withheld(&mut self, bytes: &[u8]) {
        let _ = bytes;
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

    /// A bookmark (KIF `&`) on the last move or special (on the start position before any).
    #[inline]
    fn bookmark(&mut self, text: &str) {
        let _ = text;
    }

    /// The engine analysis of the last move or special, where a record told
    /// ([`tell_game`]) keeps it apart from the comments (a reader tells it as the comments
    /// it is written in).
    #[inline]
    fn analysis(&mut self, analysis: &Analysis) {
        let _ = analysis;
    }

    /// A variation begins: an alternative to the move at `ply` (counted from the start as the
    /// record counts) of the open line, read at `span`.
    #[inline]
    fn begin_variation(&mut self, ply: u32, span: Span) {
        let _ = (ply, span);
    }

    /// The variation begun last ends.
    #[inline]
    fn end_variation(&mut self) {}

    /// The KIF footer (`まで…`) of the main line.
    #[inline]
    fn footer(&mut self, footer: &Footer) {
        let _ = footer;
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
pub trait GameReader {
    /// Reads the next game, telling `visitor` what it says; `None` when the text holds no
    /// more game.
    fn read_game<V: Visitor>(&mut self, visitor: &mut V) -> Option<V::Output>;

    /// The game read last, read again by the [`Builder`], with the spans of the text.
    fn last_game_record(&mut self) -> Option<ParsedGame>;

    /// Whether the format can write variations (a visitor that would replay one needs to
    /// keep the moves of the line it branches from).
    fn has_variations(&self) -> bool {
        true
    }
}

/// The reader of a format read whole into records (USEN, whose sections merge into one tree
/// of moves; the one-line CSA of the 2chkifu collection): each game told by [`tell_game`].
pub(crate) struct Records {
    games: std::vec::IntoIter<ParsedGame>,
    /// The game told last.
    last: Option<ParsedGame>,
}

impl Records {
    pub(crate) fn new(games: Vec<ParsedGame>) -> Records {
        Records {
            games: games.into_iter(),
            last: None,
        }
    }
}

impl GameReader for Records {
    fn read_game<V: Visitor>(&mut self, visitor: &mut V) -> Option<V::Output> {
        let game = self.games.next()?;
        let told = tell_game(&game, visitor);
        self.last = Some(game);
        Some(told)
    }

    fn last_game_record(&mut self) -> Option<ParsedGame> {
        self.last.take()
    }
}

/// Tells `v` a game already read into a record, as a reader would: for a format read whole
/// (JKF that is not of the plain shape) and for a job that holds a record. The reader's
/// diagnostics come first; variations are told where they branch (after the move they are
/// alternatives to, as JKF writes them); the comments are those the record keeps (a record
/// whose engine analysis was taken out of its comments does not tell it), the record's
/// trailing comments after the main line.
pub fn tell_game<V: Visitor>(game: &ParsedGame, v: &mut V) -> V::Output {
    let record = &game.record;
    v.begin_game(record.moves.first().map_or(1, |n| n.span.line.max(1)));
    for d in &game.diagnostics {
        v.diagnostic(d.clone());
    }
    for e in &record.header.entries {
        v.header(&e.key, &e.value, e.span);
    }
    v.start(&record.start);
    if !V::SKIP.contains(Skip::COMMENTS) {
        for c in &record.start_comments {
            v.comment(c, Span::default());
        }
    }
    if let Some(b) = &record.start_bookmark {
        v.bookmark(b);
    }
    tell_line(&record.moves, 1, v);
    if !V::SKIP.contains(Skip::COMMENTS) {
        for c in &record.trailing_comments {
            v.comment(c, Span::default());
        }
    }
    if let Some(f) = &record.footer {
        v.footer(f);
    }
    v.end_game()
}

/// Each move node of a record's lines to `f`, in the order [`tell_game`] tells the moves (a
/// node, then its variations, before the next node) to a visitor that skips nothing: how a
/// visitor that kept something per move told gives it back to the record.
pub(crate) fn each_told_move(nodes: &mut [MoveNode], f: &mut impl FnMut(&mut MoveNode)) {
    for node in nodes {
        if matches!(node.kind, NodeKind::Move { .. }) {
            f(node);
        }
        for line in &mut node.variations {
            each_told_move(line, f);
        }
    }
}

/// Tells `v` the nodes of a line whose first ply is `ply`, each with its variations.
fn tell_line<V: Visitor>(nodes: &[MoveNode], mut ply: u32, v: &mut V) {
    for node in nodes {
        match &node.kind {
            NodeKind::Move { text, resolved } => {
                let mv = WrittenMove {
                    resolved: *resolved,
                    ..WrittenMove::of_text(text, node.number)
                };
                v.mv(&mv, node.span);
            }
            NodeKind::Special(s) => {
                let special = WrittenSpecial {
                    kind: s.kind,
                    text: &s.text,
                    side: s.side,
                    number: node.number,
                };
                v.special(&special, node.span);
            }
        }
        if let Some(t) = node.time.filter(|_| !V::SKIP.contains(Skip::TIMES)) {
            v.time(t, node.span);
        }
        if !V::SKIP.contains(Skip::COMMENTS) {
            for c in &node.comments {
                v.comment(c, node.span);
            }
            if let Some(a) = node.analysis() {
                v.analysis(a);
            }
        }
        if let Some(b) = &node.bookmark {
            v.bookmark(b);
        }
        if !V::SKIP.contains(Skip::VARIATIONS) {
            for line in &node.variations {
                v.begin_variation(ply, line.first().map_or(node.span, |n| n.span));
                tell_line(line, ply, v);
                v.end_variation();
            }
        }
        ply = ply.saturating_add(1);
    }
}

/// The visitor that builds the [`Record`] (and the reader's diagnostics) of each game: what
/// [`formats::read`](super::read) returns.
#[derive(Debug)]
pub struct Builder {
    /// How the formats read write engine analysis in comments (`None`: they have no comments).
    family: Option<Family>,
    record: Record,
    diagnostics: Vec<Diagnostic>,
    /// The variations begun and not yet ended, the innermost last.
    open: Vec<OpenVariation>,
    /// Moves to make room for at the start: as many as the last game had, and a quarter more
    /// (games of one file are alike).
    moves_hint: usize,
}

/// A variation being built.
#[derive(Debug)]
struct OpenVariation {
    /// The ply of the move it is an alternative to.
    ply: u32,
    nodes: Vec<MoveNode>,
    /// Comments and a bookmark told before its first move, which go on that move.
    comments: Vec<String>,
    bookmark: Option<String>,
}

impl Builder {
    /// A builder for records of `family`'s formats (which says how engine analysis is
    /// written in comments; `None` for formats without comments).
    pub(crate) fn new(family: Option<Family>) -> Builder {
        Builder {
            family,
            record: Record::default(),
            diagnostics: Vec::new(),
            open: Vec::new(),
            moves_hint: 0,
        }
    }

    /// Room for `moves` moves in the first game's main line.
    pub(crate) fn with_moves_hint(mut self, moves: usize) -> Builder {
        self.moves_hint = moves;
        self
    }

    /// The line moves go on: the variation begun last, or the main line.
    #[inline]
    fn line(&mut self) -> &mut Vec<MoveNode> {
        match self.open.last_mut() {
            Some(v) => &mut v.nodes,
            None => &mut self.record.moves,
        }
    }

    /// Adds a node to the open line (with what was told for the first move of a variation).
    #[inline(always)]
    fn push(&mut self, node: MoveNode) {
        match self.open.last_mut() {
            None => self.record.moves.push(node),
            Some(v) => {
                v.nodes.push(node);
                if let [first] = v.nodes.as_mut_slice() {
                    first.comments = std::mem::take(&mut v.comments);
                    first.bookmark = v.bookmark.take();
                }
            }
        }
    }
}

impl Visitor for Builder {
    type Output = ParsedGame;

    fn begin_game(&mut self, _line: u32) {
        self.record = Record::default();
        self.diagnostics = Vec::new();
        self.open.clear();
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
        let mut node = MoveNode::new(kind, span);
        node.number = mv.number;
        self.push(node);
    }

    fn special(&mut self, special: &WrittenSpecial<'_>, span: Span) {
        let kind = NodeKind::Special(special.to_special());
        let mut node = MoveNode::new(kind, span);
        node.number = special.number;
        self.push(node);
    }

    #[inline]
    fn time(&mut self, time: MoveTime, _span: Span) {
        if let Some(node) = self.line().last_mut() {
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
        let text = text.to_owned();
        if let Some(node) = self.line().last_mut() {
            node.comments.push(text);
            return;
        }
        match self.open.last_mut() {
            Some(v) => v.comments.push(text),
            None => self.record.start_comments.push(text),
        }
    }

    fn bookmark(&mut self, text: &str) {
        let text = text.to_owned();
        if let Some(node) = self.line().last_mut() {
            node.bookmark = Some(text);
            return;
        }
        match self.open.last_mut() {
            Some(v) => v.bookmark = Some(text),
            None => self.record.start_bookmark = Some(text),
        }
    }

    fn begin_variation(&mut self, ply: u32, _span: Span) {
        self.open.push(OpenVariation {
            ply,
            nodes: Vec::new(),
            comments: Vec::new(),
            bookmark: None,
        });
    }

    fn end_variation(&mut self) {
        let Some(v) = self.open.pop() else {
            return;
        };
        if v.nodes.is_empty() {
            return;
        }
        let first = self.open.last().map_or(1, |p| p.ply);
        let at = v.ply.checked_sub(first).map(|i| i as usize);
        if let Some(node) = at.and_then(|i| self.line().get_mut(i)) {
            node.variations.push(v.nodes);
        }
    }

    fn footer(&mut self, footer: &Footer) {
        self.record.footer = Some(footer.clone());
    }

    fn diagnostic(&mut self, diagnostic: Diagnostic) {
        self.diagnostics.push(diagnostic);
    }

    fn end_game(&mut self) -> ParsedGame {
        while !self.open.is_empty() {
            self.end_variation();
        }
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

/// A KI2 move (no source): resolved as [`resolve_move`] resolves it. Out of line, so that
/// the readers' loops that inline [`WrittenMove::to_move`] stay small.
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
    use super::*;

    /// The moves a visitor is told, by their text.
    #[derive(Default)]
    struct Told(Vec<String>);

    impl Visitor for Told {
        type Output = Vec<String>;

        fn mv(&mut self, mv: &WrittenMove<'_>, _span: Span) {
            self.0.push(mv.raw.to_owned());
        }

        fn end_game(&mut self) -> Vec<String> {
            std::mem::take(&mut self.0)
        }
    }

    /// [`each_told_move`] walks a record's moves in the order [`tell_game`] tells them, nested
    /// variations and all (the judge gives its resolutions back to the record by it).
    #[test]
    fn moves_are_walked_in_the_order_they_are_told() {
        let text = "手数----指手---------消費時間--\n   1 ７六歩(77)\n   2 ３四歩(33)\n   3 ２六歩(27)\n\
                    \n変化：2手\n   2 ８四歩(83)\n   3 ２六歩(27)\n\n変化：3手\n   3 ６八銀(79)\n\
                    \n変化：3手\n   3 ５六歩(57)\n";
        let mut game = crate::formats::read(crate::formats::Format::Kif, text).remove(0);
        let told = tell_game(&game, &mut Told::default());
        assert_eq!(told.len(), 7, "{told:?}");
        let mut walked = Vec::new();
        each_told_move(&mut game.record.moves, &mut |node| {
            if let NodeKind::Move { text, .. } = &node.kind {
                walked.push(text.raw.to_string());
            }
        });
        assert_eq!(walked, told);
    }
}
