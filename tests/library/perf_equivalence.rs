//! The fast paths added for speed must agree exactly with the plain ones they replace.

use kifu::core::{Illegal, Move, PieceKind, Position, Square};
use kifu::random::Rng;

fn random_square(rng: &mut Rng) -> Square {
    Square::from_index(rng.below(81) as usize).expect("index below 81")
}

/// A move that is legal about half the time; otherwise anything at all.
fn candidate(pos: &Position, rng: &mut Rng) -> Move {
    let legal = pos.legal_moves();
    if !legal.is_empty() && rng.below(2) == 0 {
        return legal[rng.below(legal.len() as u64) as usize];
    }
    if rng.below(3) == 0 {
        let kind = PieceKind::ALL[rng.below(14) as usize];
        Move::Drop {
            kind,
            to: random_square(rng),
        }
    } else {
        Move::Normal {
            from: random_square(rng),
            to: random_square(rng),
            promote: rng.below(2) == 0,
        }
    }
}

/// `play_checked` = `check_move` then `play_unchecked`: same refusals, same fouls (first
/// violation in the documented order), same position and capture after the move. The walk
/// goes on through fouls, so it reaches positions that legal play never does (a side left
/// in check, doubled pawns, a captured king).
#[test]
fn play_checked_is_check_move_then_play_unchecked() {
    let mut fouls = 0u32;
    let mut kinds = std::collections::BTreeSet::new();
    let mut refusals = 0u32;
    let mut moves = 0u32;
    for seed in 0..300u64 {
        let mut rng = Rng::new(seed);
        let mut pos = Position::startpos();
        for _ in 0..200 {
            let mv = candidate(&pos, &mut rng);
            let checked = pos.check_move(mv);
            let mut plain = pos.clone();
            let played = plain.play_unchecked(mv);
            let mut fast = pos.clone();
            match (played, fast.play_checked(mv)) {
                (Err(a), Err(b)) => {
                    assert_eq!(a, b, "{mv:?} in {pos:?}");
                    assert_eq!(checked, Err(a));
                    assert_eq!(fast, pos, "a refused move leaves the position unchanged");
                    refusals += 1;
                }
                (Ok(cap), Ok((cap2, foul))) => {
                    assert_eq!(cap, cap2, "{mv:?} in {pos:?}");
                    assert_eq!(checked.err(), foul, "{mv:?} in {pos:?}");
                    assert_eq!(fast, plain, "{mv:?} in {pos:?}");
                    assert_eq!(fast.key(), fast.key_from_scratch());
                    assert_eq!(fast.checkers(), fast.checkers_from_scratch());
                    fouls += u32::from(foul.is_some());
                    kinds.extend(foul);
                    moves += 1;
                    pos = plain;
                }
                (a, b) => panic!("{mv:?} in {pos:?}: play_unchecked {a:?}, play_checked {b:?}"),
            }
        }
    }
    // The walk really exercised all three outcomes.
    assert!(moves > 10_000, "{moves}");
    assert!(fouls > 100, "{fouls}");
    for k in [
        Illegal::SelfCheck,
        Illegal::BadPromotion,
        Illegal::DeadPiece,
        Illegal::Nifu,
    ] {
        assert!(kinds.contains(&k), "no {k:?} among {kinds:?}");
    }
    assert!(refusals > 10_000, "{refusals}");
}

/// A long repetitive tail after a fourfold repetition is still replayed move by move (one
/// `move-after-end`, nothing else), and the tail's positions stay in the history: a
/// variation branching inside the tail still sees the repetition it completes.
#[test]
fn long_repetitive_tail_is_replayed() {
    use kifu::formats::{self, Format};
    use kifu::validate;
    let cycle = ["5i5h", "5a5b", "5h5i", "5b5a"];
    let moves: Vec<&str> = cycle.iter().cycle().take(20_000).copied().collect();
    let text = format!("startpos moves {}\n", moves.join(" "));
    let mut games = formats::read(Format::Usi, &text);
    assert_eq!(games.len(), 1);
    let report = validate::validate_game(&mut games[0], &validate::Options::default());
    let codes: Vec<&str> = report.diagnostics.iter().map(|d| d.code.as_str()).collect();
    assert_eq!(codes, vec!["move-after-end"]);
    assert_eq!(report.diagnostics[0].ply, Some(13));
    assert_eq!(report.plies, 20_000);
}
