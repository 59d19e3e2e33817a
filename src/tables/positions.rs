//! One row per move of a game's main line: the position before it (SFEN), the move, its time,
//! an engine's evaluation where a comment gives one, whether it was legal, and the game's
//! result from the mover's side.
//!
//! [`Positions`] replays the main line once and hands out rows that borrow its buffers, so a
//! row costs no allocation.

use crate::core::{Color, Move, Position, Square};
use crate::record::{MoveNode, NodeKind, Record, Score};
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

/// The engine evaluation of a move, from the analysis its comments held
/// ([`MoveNode::analysis`]): the score turned to `mover`'s side, and the PV in USI as far as it
/// can be played from `before` the move or `after` it (see the KIF and CSA writers' rule of
/// which). `None` when the move has no analysis.
pub fn engine_eval(
    node: &MoveNode,
    mover: Color,
    before: &Position,
    after: &Position,
) -> Option<EngineEval> {
    let a = node.analysis()?;
    let sign = if mover == Color::Black { 1 } else { -1 };
    let (eval_cp, mate) = match a.score {
        Some(Score::Cp(cp)) => (Some(cp.saturating_mul(sign)), None),
        Some(Score::Mate { winner, plies }) => {
            let plies = plies.map(|p| i32::try_from(p).unwrap_or(i32::MAX));
            (None, plies.map(|p| if winner == mover { p } else { -p }))
        }
        None => (None, None),
    };
    let to = match &node.kind {
        NodeKind::Move {
            resolved: Some(m), ..
        } => Some(m.to()),
        _ => None,
    };
    let pv = crate::formats::analysis::pv_moves(a, before, after, to)
        .into_iter()
        .map(|m| {
            let mut s = String::with_capacity(6);
            write_usi(m, &mut s);
            s
        })
        .collect();
    Some(EngineEval { eval_cp, mate, pv })
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
        // The position before the move, kept only for a move an engine commented on.
        let before = node.analysis().map(|_| pos.clone());
        let mut eval = None;
        let legal = match &node.kind {
            NodeKind::Move {
                resolved: Some(m), ..
            } => {
                write_usi(*m, &mut self.mv);
                match pos.play_checked(*m) {
                    Ok((_, foul)) => {
                        if let Some(before) = &before {
                            eval = engine_eval(node, mover, before, pos);
                        }
                        foul.is_none()
                    }
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
            eval,
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
    }

    #[test]
    fn engine_comments_give_the_eval_from_the_movers_side_and_the_pv_in_usi() {
        let text = std::fs::read_to_string(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/fixtures/csa/analysis-floodgate.csa"
        ))
        .expect("fixture");
        let mut g = formats::read(Format::Csa, &text).remove(0);
        crate::validate::validate_game(&mut g, &Default::default());
        let mut rows = Positions::new(&g.record, "k".into(), None);
        let mut evals = Vec::new();
        while let Some(r) = rows.next() {
            evals.push(r.eval.clone());
        }
        let e = |cp: i32, pv: &[&str]| {
            Some(EngineEval {
                eval_cp: Some(cp),
                mate: None,
                pv: pv.iter().map(|s| (*s).to_owned()).collect(),
            })
        };
        // Scores are Black's in the file: White's moves (plies 2 and 4) are turned.
        assert_eq!(evals[0], e(30, &["3c3d", "2g2f"]));
        assert_eq!(evals[1], e(45, &["2g2f", "8c8d"]));
        assert_eq!(evals[2], e(52, &["8c8d", "2f2e"]));
        assert_eq!(evals[3], e(0, &[]));
        assert_eq!(evals[4], None, "not an analysis line");
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
