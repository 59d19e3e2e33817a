//! One row per move of a game's main line: the position before it (SFEN), the move, its time,
//! an engine's evaluation where a comment gives one, whether it was legal, and the game's
//! result from the mover's side.
//!
//! [`Positions`] replays the main line once and hands out rows that borrow its buffers, so a
//! row costs no allocation.

use crate::core::{Color, Move, Position, Square};
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
                write_usi(*m, &mut self.mv);
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

/// Each piece's SFEN letters, by kind index (Black's; White's are lower case), promoted kinds
/// with their `+`.
const LETTERS: [&[u8]; 14] = [
    b"P", b"L", b"N", b"S", b"G", b"B", b"R", b"K", b"+P", b"+L", b"+N", b"+S", b"+B", b"+R",
];

/// Writes the SFEN of `pos` (as [`Position::to_sfen`], without its allocations): the board
/// is written into a buffer on the stack, a byte at a time.
pub(crate) fn write_sfen(pos: &Position, s: &mut String) {
    // 81 squares of two letters and 8 slashes at most (a lenient start may hold any pieces).
    let mut buf = [0u8; 176];
    let mut n = 0usize;
    for rank in 0..9usize {
        if rank > 0 {
            buf[n] = b'/';
            n += 1;
        }
        let mut empty = 0u8;
        for file in (0..9usize).rev() {
            let Some(sq) = Square::from_index(file * 9 + rank) else {
                continue;
            };
            match pos.piece_at(sq) {
                None => empty += 1,
                Some(p) => {
                    if empty > 0 {
                        buf[n] = b'0' + empty;
                        n += 1;
                        empty = 0;
                    }
                    let letters = LETTERS.get(p.kind.index()).copied().unwrap_or(b"?");
                    let lower = if p.color == Color::White { 0x20 } else { 0 };
                    for &c in letters {
                        buf[n] = if c == b'+' { c } else { c | lower };
                        n += 1;
                    }
                }
            }
        }
        if empty > 0 {
            buf[n] = b'0' + empty;
            n += 1;
        }
    }
    s.push_str(std::str::from_utf8(&buf[..n]).unwrap_or(""));
    s.push(' ');
    s.push(pos.turn().sfen_char());
    s.push(' ');
    let mut any = false;
    for c in Color::ALL {
        for (k, n) in pos.hand(c).iter() {
            if n > 1 {
                push_number(s, u32::from(n));
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
    s.push(' ');
    push_number(s, pos.move_number());
}

/// Writes a number in decimal (as `write!` would, without its machinery).
fn push_number(s: &mut String, mut n: u32) {
    let mut digits = [0u8; 10];
    let mut i = digits.len();
    loop {
        i -= 1;
        digits[i] = b'0' + (n % 10) as u8;
        n /= 10;
        if n == 0 {
            break;
        }
    }
    for &d in &digits[i..] {
        s.push(d as char);
    }
}

/// Writes a move in USI (as its `Display` does, without allocating).
pub(crate) fn write_usi(m: Move, s: &mut String) {
    let square = |s: &mut String, sq: Square| {
        s.push((b'0' + sq.file()) as char);
        s.push((b'a' + sq.rank() - 1) as char);
    };
    match m {
        Move::Normal { from, to, promote } => {
            square(s, from);
            square(s, to);
            if promote {
                s.push('+');
            }
        }
        Move::Drop { kind, to } => {
            s.push(kind.sfen_letter());
            s.push('*');
            square(s, to);
        }
    }
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
            let m = Move::from_usi(r.mv).expect("usi");
            assert_eq!(r.mv, m.to_usi());
            let _ = pos.play_unchecked(m);
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

    #[test]
    fn numbers_and_moves_are_written_as_display_writes_them() {
        for n in [0, 1, 9, 10, 99, 100, 4_294_967_295] {
            let mut s = String::new();
            push_number(&mut s, n);
            assert_eq!(s, n.to_string());
        }
        let mut pos = Position::startpos();
        let mut rng = 7u64;
        for _ in 0..200 {
            let moves: Vec<Move> = pos.legal_moves().into_iter().copied().collect();
            if moves.is_empty() {
                break;
            }
            rng = rng.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1);
            let m = moves[(rng >> 33) as usize % moves.len()];
            let mut s = String::new();
            write_usi(m, &mut s);
            assert_eq!(s, m.to_usi());
            pos.play(m).expect("legal");
            let mut sfen = String::new();
            write_sfen(&pos, &mut sfen);
            assert_eq!(sfen, pos.to_sfen());
        }
        // A board full of promoted pieces (only a lenient start can hold one) still fits.
        let full = "+R+R+R+R+R+R+R+R+R/".repeat(8) + "+r+r+r+r+r+r+r+r+r b - 1";
        let setup = crate::core::Setup::from_sfen(&full).expect("sfen");
        let pos = Position::from_setup_lenient(&setup).expect("lenient");
        let mut sfen = String::new();
        write_sfen(&pos, &mut sfen);
        assert_eq!(sfen, pos.to_sfen());
    }
}
