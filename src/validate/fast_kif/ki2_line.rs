//! The KI2 side of the short way: a line of moves (`▲７六歩    △３四歩`), each token read with
//! the reader's own grammar and resolved as the rules replay resolves it.

use crate::core::{Move, Position, bitboard};
use crate::formats::kif;
use crate::record::resolve::resolve_move;
use crate::record::{MoveText, NamedPiece, NodeKind, Source, Span, SpecialKind};

use super::{Game, MARKS, Plain, Sink, is_space};

/// Whether `c` is a KI2 side mark (one compare for almost every other character).
#[inline]
fn is_mark(c: char) -> bool {
    ('\u{25B2}'..='\u{2617}').contains(&c) && MARKS.contains(&c)
}

impl<S: Sink> Game<S> {
    /// A line of KI2 moves, its first mark at byte `start`; `None` for the full way.
    pub(super) fn ki2_line(
        &mut self,
        t: &str,
        start: usize,
        no: u32,
        board: &mut Plain<'_>,
    ) -> Option<()> {
        let mut col = u32::try_from(t.get(..start)?.chars().count() + 1).ok()?;
        let mut rest = t.get(start..)?;
        while let Some(first) = rest.chars().next() {
            // The token runs to the next mark (the reader's split); `chars` counts its
            // characters for the next token's column.
            let lead = first.len_utf8();
            let mut end = rest.len();
            let mut chars = 1;
            for (i, c) in rest.get(lead..)?.char_indices() {
                if is_mark(c) {
                    end = lead + i;
                    break;
                }
                chars += 1;
            }
            let (tok, after) = rest.split_at(end);
            rest = after;
            let span = Span::new(no, col);
            col = col.checked_add(chars)?;
            // A program comment (`#`), or anything after the ending: the full way reads it.
            if tok.contains('#') || self.special.is_some() {
                return None;
            }
            self.seen_move = true;
            match kif::parse_ki2_token(tok.trim_end_matches(is_space)).ok()? {
                NodeKind::Special(s) => {
                    if s.kind == SpecialKind::Declaration {
                        return None;
                    }
                    self.special = Some((s, span));
                }
                NodeKind::Move { mut text, .. } => {
                    if text.same {
                        text.to = self.prev_to?;
                    }
                    // A move of the side not to move is `wrong-turn` for the full way.
                    let mv = match plain_resolve(&board.pos, &text) {
                        Some(mv) => mv,
                        None => resolve_move(&board.pos, &text).ok()?,
                    };
                    if !board.play(mv) {
                        return None;
                    }
                    self.sink.played(mv);
                    self.prev_to = Some(mv.to());
                    self.last_span = Some(span);
                }
            }
        }
        Some(())
    }
}

/// What [`resolve_move`] gives for a KI2 move with no suffix but `成`/`不成` that one piece of
/// the side to move can make, or that only a drop can make, without building its list of
/// candidates; `None` for every other move (which `resolve_move` then resolves).
#[inline]
fn plain_resolve(pos: &Position, text: &MoveText) -> Option<Move> {
    let turn = pos.turn();
    let rel = &text.relative;
    if text.color != Some(turn)
        || text.from != Source::Unknown
        || rel.horizontal.is_some()
        || rel.vertical.is_some()
    {
        return None;
    }
    let (Some(NamedPiece::Before(kind)) | Some(NamedPiece::After(kind))) = text.piece else {
        return None;
    };
    let to = text.to;
    let from = bitboard::attacks(turn.flip(), kind, to, pos.occupied()) & pos.pieces(turn, kind);
    let mut squares = from.squares();
    match (squares.next(), squares.next()) {
        (Some(from), None) => Some(Move::Normal {
            from,
            to,
            promote: text.promote == Some(true),
        }),
        (None, _)
            if kind.is_hand_kind()
                && text.promote != Some(true)
                && pos.hand(turn).count(kind) > 0 =>
        {
            Some(Move::Drop { kind, to })
        }
        _ => None,
    }
}
