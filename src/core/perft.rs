//! Perft: counting the leaves of the legal-move tree, the standard test of move generation.

use super::{Move, Position};

/// Counts the leaves of the legal-move tree `depth` plies deep. At depth 1 the legal moves
/// are counted without being played (bulk counting).
pub fn perft(pos: &Position, depth: u32) -> u64 {
    match depth {
        0 => 1,
        1 => pos.count_legal_moves(),
        _ => {
            let mut n = 0;
            pos.for_each_legal_move(|mv| {
                let mut p = pos.clone();
                p.do_move(mv);
                n += perft(&p, depth - 1);
            });
            n
        }
    }
}

/// `perft` split by root move: each legal move with the leaf count below it, in generation
/// order. Depth 0 gives an empty list.
pub fn perft_divide(pos: &Position, depth: u32) -> Vec<(Move, u64)> {
    if depth == 0 {
        return Vec::new();
    }
    pos.legal_moves()
        .iter()
        .map(|&mv| {
            let mut p = pos.clone();
            p.do_move(mv);
            (mv, perft(&p, depth - 1))
        })
        .collect()
}
