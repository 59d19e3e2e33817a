//! Random legal games, for benchmarks and property tests.
//!
//! The games are played by a biased random player: captures, promotions and checks are
//! preferred, and from `min_plies` on a mating move is always taken when one exists, so that
//! most games end in checkmate somewhere between `min_plies` and `max_plies`. The same seed
//! always gives the same game.

use crate::core::{Color, Move, Position};
use crate::record::resolve::text_for_move;
use crate::record::{MoveNode, MoveTime, NodeKind, Record, Span, Special, SpecialKind, keys};

/// A small, fast, reproducible pseudo-random generator (SplitMix64).
#[derive(Debug, Clone)]
pub struct Rng(u64);

impl Rng {
    /// A generator seeded with `seed`.
    pub fn new(seed: u64) -> Rng {
        Rng(seed)
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// A number in `0..n` (`n` > 0).
    pub fn below(&mut self, n: u64) -> u64 {
        ((self.next_u64() as u128 * n as u128) >> 64) as u64
    }
}

/// How the generated games look.
#[derive(Debug, Clone)]
pub struct GenOptions {
    /// From this ply on, a mating move is played whenever one exists.
    pub min_plies: u32,
    /// The game stops (the side to move resigns) after this many plies.
    pub max_plies: u32,
    /// Record per-move and cumulative times.
    pub times: bool,
    /// Attach a comment to some moves.
    pub comments: bool,
}

impl Default for GenOptions {
    fn default() -> Self {
        GenOptions {
            min_plies: 80,
            max_plies: 200,
            times: true,
            comments: false,
        }
    }
}

/// Plays one random game from the even start position and returns it as a record whose moves
/// are all resolved. A mated side resigns (`投了`), or, in one game of four, the record says
/// `詰み`; a game that reaches `max_plies` ends with a resignation.
pub fn random_game(seed: u64, opts: &GenOptions) -> Record {
    let mut rng = Rng::new(seed);
    let mut pos = Position::startpos();
    let mut record = Record::default();
    record.header.push(
        keys::BLACK,
        format!("gen-{}", rng.below(1000)),
        Span::default(),
    );
    record.header.push(
        keys::WHITE,
        format!("gen-{}", rng.below(1000)),
        Span::default(),
    );
    record
        .header
        .push(keys::EVENT, "kifu random games", Span::default());
    let mut totals = [0u64; 2];
    let mut last_to = None;
    let mut mated = false;
    for ply in 1..=opts.max_plies {
        let legal = pos.legal_moves();
        if legal.is_empty() {
            mated = true;
            break;
        }
        let mv = choose(&mut rng, &pos, &legal, ply >= opts.min_plies);
        let mover = pos.turn();
        let text = text_for_move(&pos, mv, last_to);
        let mut node = MoveNode::new(
            NodeKind::Move {
                text,
                resolved: Some(mv),
            },
            Span::default(),
        );
        if opts.times {
            let secs = rng.below(60);
            totals[mover.index()] += secs;
            node.time = Some(MoveTime {
                elapsed_ms: Some(secs * 1000),
                total_ms: Some(totals[mover.index()] * 1000),
            });
        }
        if opts.comments && rng.below(16) == 0 {
            node.comments.push(format!("comment at ply {ply}"));
        }
        if pos.play(mv).is_err() {
            // Unreachable: the move came from the legal list. Stop rather than record it.
            break;
        }
        last_to = Some(mv.to());
        record.moves.push(node);
    }
    let (kind, text) = if mated && rng.below(4) == 0 {
        (SpecialKind::Mate, "詰み")
    } else {
        (SpecialKind::Resign, "投了")
    };
    let mut end = MoveNode::new(
        NodeKind::Special(Special {
            kind,
            text: text.to_string(),
            side: None,
        }),
        Span::default(),
    );
    if opts.times {
        let mover: Color = pos.turn();
        let secs = rng.below(10);
        totals[mover.index()] += secs;
        end.time = Some(MoveTime {
            elapsed_ms: Some(secs * 1000),
            total_ms: Some(totals[mover.index()] * 1000),
        });
    }
    record.moves.push(end);
    record
}

fn choose(rng: &mut Rng, pos: &Position, legal: &[Move], hunt_mate: bool) -> Move {
    let mut weights = Vec::with_capacity(legal.len());
    let mut total = 0u64;
    for &mv in legal {
        let mut after = pos.clone();
        let captured = after.play(mv).ok().flatten();
        let check = after.in_check();
        if hunt_mate && check && after.is_checkmate() {
            return mv;
        }
        let mut w = 1;
        if let Some(k) = captured {
            w += 6 + 2 * k.impasse_points() as u64;
        }
        if mv.is_promotion() {
            w += 6;
        }
        if check {
            w += if hunt_mate { 12 } else { 3 };
        }
        if mv.is_drop() {
            w += 1;
        }
        total += w;
        weights.push(w);
    }
    let mut pick = rng.below(total.max(1));
    for (i, &w) in weights.iter().enumerate() {
        if pick < w {
            return legal[i];
        }
        pick -= w;
    }
    legal[0]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn games_are_legal_reproducible_and_mostly_mates() {
        let opts = GenOptions::default();
        let mut mates = 0;
        for seed in 0..20 {
            let g = random_game(seed, &opts);
            assert_eq!(g, random_game(seed, &opts));
            let mut pos = Position::startpos();
            for node in &g.moves {
                if let Some(mv) = node.resolved() {
                    assert_eq!(pos.check_move(mv), Ok(()), "seed {seed}");
                    pos.play(mv).unwrap();
                }
            }
            assert!(g.plies() <= opts.max_plies);
            if pos.is_checkmate() {
                mates += 1;
            }
        }
        assert!(mates >= 10, "only {mates} of 20 games ended in mate");
    }
}
