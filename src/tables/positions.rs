//! One row per move of a game's main line: the position before it (SFEN), the move, its time,
//! an engine's evaluation where a comment gives one, whether it was legal, and the game's
//! result from the mover's side.
//!
//! [`Positions`] replays the main line once and hands out rows that borrow its buffers, so a
//! row costs no allocation.

use std::fmt::Write as _;

use crate::core::{Color, Position, Square};
use crate::record::{MoveNode, NodeKind, Record};
use crate::validate::Winner;
use crate::validate::result::main_ending;

/// What an engine said about a move, from its comment.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct EngineEval {
    /// The evaluation in centipawns, from the mover's side.
    pub eval_cp: Option<i32>,
    /// Mate in this many plies (negative: the mover is mated).
    pub mate: Option<i32>,
    /// The principal variation, USI moves.
    pub pv: Vec<String>,
}

/// The engine evaluation of a move from its comments, if an engine comment gives one.
///
/// TODO(merge wt-annot): returns `None` until the structured engine-comment analysis of the
/// record (branch wt-annot) is merged; then it maps that analysis of `node` to an
/// [`EngineEval`]. Every caller (the `eval_cp`, `mate` and `pv` columns) goes through here.
pub fn engine_eval(node: &MoveNode) -> Option<EngineEval> {
    let _ = node;
    None
}

/// One move's row. Borrowed from [`Positions`]; copy what must outlive the next row.
#[derive(Debug, Clone, PartialEq)]
pub struct PositionRow<'a> {
    /// The game key, 16 hexadecimal digits.
    pub game_key: &'a str,
    /// The ply of the move, from 1.
    pub ply: u32,
    /// The position before the move, SFEN (its move number is the record's).
    pub sfen: &'a str,
    /// The side to move: `b` or `w`.
    pub side: &'static str,
    /// The move in USI, or as written when it could not be resolved.
    pub mv: &'a str,
    /// Time spent on the move, in milliseconds.
    pub time_ms: Option<u64>,
    /// What an engine said ([`engine_eval`]).
    pub eval: Option<EngineEval>,
    /// Whether the move was legal in the position.
    pub legal: bool,
    /// The game's result from the mover's side: `win`, `loss` or `draw`.
    pub result: Option<&'static str>,
}

/// The rows of one game.
pub struct Positions<'r> {
    nodes: std::iter::Take<std::slice::Iter<'r, MoveNode>>,
    pos: Option<Position>,
    key: String,
    winner: Option<Winner>,
    ply: u32,
    sfen: String,
    mv: String,
}

impl<'r> Positions<'r> {
    /// The rows of a replayed record: the moves of its main line before its ending, as far as
    /// they can be carried out (the row of a move that cannot be, or is unresolved, is the
    /// last one). `key` is the game key, `winner` the game's recorded winner.
    pub fn new(record: &'r Record, key: String, winner: Option<Winner>) -> Positions<'r> {
        let (plies, _) = main_ending(record);
        let pos = Position::from_setup_lenient(&record.start.to_setup()).ok();
        Positions {
            nodes: record.moves.iter().take(plies as usize),
            pos,
            key,
            winner,
            ply: 0,
            sfen: String::with_capacity(128),
            mv: String::with_capacity(8),
        }
    }

    /// The next row, or `None` at the end.
    #[allow(clippy::should_implement_trait)]
    pub fn next(&mut self) -> Option<PositionRow<'_>> {
        let pos = self.pos.as_mut()?;
        let node = self.nodes.next()?;
        self.ply += 1;
        self.sfen.clear();
        write_sfen(pos, &mut self.sfen);
        let mover = pos.turn();
        self.mv.clear();
        let legal = match &node.kind {
            NodeKind::Move {
                resolved: Some(m), ..
            } => {
                let _ = write!(self.mv, "{m}");
                match pos.play_checked(*m) {
                    Ok((_, foul)) => foul.is_none(),
                    Err(_) => {
                        self.pos = None;
                        false
                    }
                }
            }
            NodeKind::Move { text, .. } => {
                self.mv.push_str(&text.raw);
                self.pos = None;
                false
            }
            NodeKind::Special(_) => return None,
        };
        let result = self.winner.map(|w| match (w, mover) {
            (Winner::Draw, _) => "draw",
            (Winner::Black, Color::Black) | (Winner::White, Color::White) => "win",
            _ => "loss",
        });
        Some(PositionRow {
            game_key: &self.key,
            ply: self.ply,
            sfen: &self.sfen,
            side: if mover == Color::Black { "b" } else { "w" },
            mv: &self.mv,
            time_ms: node.time.and_then(|t| t.elapsed_ms),
            eval: engine_eval(node),
            legal,
            result,
        })
    }
}

/// Writes the SFEN of `pos` (as [`Position::to_sfen`], without its allocations).
pub(crate) fn write_sfen(pos: &Position, s: &mut String) {
    for rank in 1..=9u8 {
        if rank > 1 {
            s.push('/');
        }
        let mut empty = 0u8;
        for file in (1..=9u8).rev() {
            match Square::new(file, rank).and_then(|sq| pos.piece_at(sq)) {
                None => empty += 1,
                Some(p) => {
                    if empty > 0 {
                        s.push((b'0' + empty) as char);
                        empty = 0;
                    }
                    if p.kind.is_promoted() {
                        s.push('+');
                    }
                    let c = p.kind.sfen_letter();
                    s.push(match p.color {
                        Color::Black => c,
                        Color::White => c.to_ascii_lowercase(),
                    });
                }
            }
        }
        if empty > 0 {
            s.push((b'0' + empty) as char);
        }
    }
    s.push(' ');
    s.push(pos.turn().sfen_char());
    s.push(' ');
    let mut any = false;
    for c in Color::ALL {
        for (k, n) in pos.hand(c).iter() {
            if n > 1 {
                let _ = write!(s, "{n}");
            }
            let l = k.sfen_letter();
            s.push(if c == Color::Black {
                l
            } else {
                l.to_ascii_lowercase()
            });
            any = true;
        }
    }
    if !any {
        s.push('-');
    }
    let _ = write!(s, " {}", pos.move_number());
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::formats::{self, Format};

    #[test]
    fn rows_follow_the_main_line_and_flag_fouls() {
        let text = "startpos moves 2g2f 8c8d 2f2e 8d8e 2e2d 2c2d 2h2d 8e8f P*7d P*2c\n";
        let mut g = formats::read(Format::Usi, text).remove(0);
        crate::validate::validate_game(&mut g, &Default::default());
        let mut rows = Positions::new(&g.record, "k".into(), Some(Winner::White));
        let mut seen = Vec::new();
        let mut pos = Position::startpos();
        while let Some(r) = rows.next() {
            assert_eq!(r.sfen, pos.to_sfen(), "ply {}", r.ply);
            let _ = pos.play_unchecked(crate::core::Move::from_usi(r.mv).expect("usi"));
            seen.push((r.ply, r.side, r.mv.to_owned(), r.legal, r.result));
        }
        assert_eq!(seen.len(), 10);
        assert_eq!(seen[0], (1, "b", "2g2f".to_owned(), true, Some("loss")));
        assert_eq!(seen[1].4, Some("win"));
        assert_eq!(
            seen[8],
            (9, "b", "P*7d".to_owned(), false, Some("loss")),
            "nifu"
        );
        assert!(seen[9].3, "the reply is legal");
        assert!(engine_eval(&g.record.moves[0]).is_none());
    }
}
