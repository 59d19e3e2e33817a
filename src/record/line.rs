//! Following a record's main line through the positions it reaches, one ply at a time, for
//! what looks at positions rather than judges moves (`kifu show`, `kifu find`, the board under
//! a diagnostic).
//!
//! Each move is the node's resolved move when a replay filled it in, else its text resolved
//! against the position ([`resolve_move`](crate::record::resolve::resolve_move)); it is played as the rules core plays any move that
//! can physically be carried out ([`Position::play_unchecked`](crate::core::Position::play_unchecked)), so a foul (a second pawn on a
//! file, a move into check) is played on, as `validate` replays it. The line ends at its
//! special move, at text that does not resolve, or at a move that cannot be carried out.
//!
//! Layer: record (uses the core and the resolver, knows no format).

use crate::core::{Move, PieceKind, Position, SetupError};
use crate::record::resolve::resolve_move;
use crate::record::{MoveNode, NodeKind, Record};

/// A cursor on a record's main line: the position after [`MainLine::ply`] moves.
#[derive(Debug, Clone)]
pub struct MainLine<'a> {
    pos: Position,
    nodes: &'a [MoveNode],
    ply: u32,
    last: Option<Played>,
}

/// A move played on the line, with what the board knew of it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Played {
    /// The move.
    pub mv: Move,
    /// The kind of the piece that moved, before the move (the dropped kind for a drop).
    pub kind: PieceKind,
}

impl<'a> MainLine<'a> {
    /// The cursor at the start of `record` (before its first move). Refuses only a start that
    /// the core cannot represent at all (two kings for one side, an overfull hand); an
    /// impossible start (reported by `validate` as `bad-position`) is followed all the same.
    pub fn new(record: &'a Record) -> Result<MainLine<'a>, SetupError> {
        Ok(MainLine {
            pos: Position::from_setup_lenient(&record.start.to_setup())?,
            nodes: &record.moves,
            ply: 0,
            last: None,
        })
    }

    /// The position reached.
    pub fn position(&self) -> &Position {
        &self.pos
    }

    /// Moves played so far.
    pub fn ply(&self) -> u32 {
        self.ply
    }

    /// The move that led here (`None` at the start).
    pub fn last(&self) -> Option<Played> {
        self.last
    }

    /// The next move of the line, resolved against the position, without playing it; `None`
    /// at the end of the line (a special move, the last node, text that does not resolve).
    pub fn peek(&self) -> Option<Move> {
        let node = self.nodes.first()?;
        let NodeKind::Move { text, resolved } = &node.kind else {
            return None;
        };
        match resolved {
            Some(m) => Some(*m),
            None => resolve_move(&self.pos, text).ok(),
        }
    }

    /// Plays the next move and returns it; `None`, changing nothing, at the end of the line
    /// or when the move cannot be carried out (its source square is empty, the dropped piece
    /// is not in hand).
    pub fn advance(&mut self) -> Option<Move> {
        let mv = self.peek()?;
        let kind = match mv {
            Move::Normal { from, .. } => self.pos.piece_at(from)?.kind,
            Move::Drop { kind, .. } => kind,
        };
        self.pos.play_unchecked(mv).ok()?;
        self.nodes = self.nodes.get(1..).unwrap_or_default();
        self.ply += 1;
        self.last = Some(Played { mv, kind });
        Some(mv)
    }

    /// How many variations replace the next move (alternatives to it).
    pub fn variations(&self) -> usize {
        self.nodes.first().map_or(0, |n| n.variations.len())
    }

    /// Follows the `k`th variation that replaces the next move instead of the line: the
    /// cursor stays at this position and goes on along the variation. Returns whether there
    /// is such a variation (else nothing changes).
    pub fn enter_variation(&mut self, k: usize) -> bool {
        match self.nodes.first().and_then(|n| n.variations.get(k)) {
            Some(v) => {
                self.nodes = v;
                true
            }
            None => false,
        }
    }

    /// Plays moves until `ply` moves have been played or the line ends; returns whether `ply`
    /// was reached.
    pub fn advance_to(&mut self, ply: u32) -> bool {
        while self.ply < ply {
            if self.advance().is_none() {
                return false;
            }
        }
        self.ply == ply
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::formats::{Format, read};

    #[test]
    fn the_cursor_follows_resolved_and_unresolved_moves_to_the_end() {
        // KI2 text carries no source square: the cursor resolves it.
        let games = read(
            Format::Ki2u,
            "▲７六歩 △３四歩 ▲２二角成\nまで3手で先手の勝ち\n",
        );
        let rec = &games[0].record;
        let mut line = MainLine::new(rec).expect("start");
        assert_eq!(line.peek(), Move::from_usi("7g7f").ok());
        assert!(line.advance_to(2));
        assert_eq!(line.ply(), 2);
        assert_eq!(line.advance(), Move::from_usi("8h2b+").ok());
        assert_eq!(
            line.last().map(|p| p.kind),
            Some(PieceKind::Bishop),
            "the kind before the move"
        );
        assert_eq!(line.advance(), None, "the line ends");
        assert!(!line.advance_to(9));
        assert_eq!(
            line.position().to_sfen(),
            "lnsgkgsnl/1r5+B1/pppppp1pp/6p2/9/2P6/PP1PPPPPP/7R1/LNSGKGSNL w B 4"
        );
    }

    #[test]
    fn a_move_that_cannot_be_carried_out_ends_the_line() {
        let games = read(Format::Usi, "startpos moves 7g7f 5e5d\n");
        let mut line = MainLine::new(&games[0].record).expect("start");
        assert!(line.advance().is_some());
        assert_eq!(line.advance(), None);
        assert_eq!(line.ply(), 1);
    }
}
