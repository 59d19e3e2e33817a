//! Perft against published counts.

use kifu::core::{Position, perft};

const MAX_POS: &str = "R8/2K1S1SSk/4B4/9/9/9/9/9/1L1L1L3 b RBGSNLP3g3n17p 1";
const MID_POS: &str = "l6nl/5+P1gk/2np1S3/p1p4Pp/3P2Sp1/1PPb2P1P/P5GS1/R8/LN4bKL w RGgsn5p 1";

#[test]
fn startpos_depth_1_to_3() {
    let p = Position::startpos();
    assert_eq!(perft(&p, 1), 30);
    assert_eq!(perft(&p, 2), 900);
    assert_eq!(perft(&p, 3), 25_470);
}

#[test]
fn startpos_depth_4() {
    assert_eq!(perft(&Position::startpos(), 4), 719_731);
}

#[test]
#[ignore = "slow in debug; run with --release -- --ignored"]
fn startpos_depth_5() {
    assert_eq!(perft(&Position::startpos(), 5), 19_861_490);
}

#[test]
fn max_moves_position() {
    let p = Position::from_sfen(MAX_POS).unwrap();
    assert_eq!(p.legal_moves().len(), 593);
    assert_eq!(perft(&p, 1), 593);
    assert_eq!(perft(&p, 2), 105_677);
}

#[test]
#[ignore = "slow in debug; run with --release -- --ignored"]
fn max_moves_position_depth_3() {
    let p = Position::from_sfen(MAX_POS).unwrap();
    assert_eq!(perft(&p, 3), 53_393_368);
}

#[test]
fn divide_sums_to_perft() {
    let p = Position::from_sfen(MID_POS).unwrap();
    let d = kifu::core::perft_divide(&p, 2);
    assert_eq!(d.len() as u64, perft(&p, 1));
    assert_eq!(d.iter().map(|x| x.1).sum::<u64>(), perft(&p, 2));
    assert!(kifu::core::perft_divide(&p, 0).is_empty());
    assert_eq!(perft(&p, 0), 1);
}

#[test]
fn middle_game_depth_1_and_2() {
    let p = Position::from_sfen(MID_POS).unwrap();
    let d1 = perft(&p, 1);
    let d2 = perft(&p, 2);
    let sum: u64 = p
        .legal_moves()
        .iter()
        .map(|&m| {
            let mut q = p.clone();
            q.play(m).unwrap();
            q.legal_moves().len() as u64
        })
        .sum();
    assert_eq!(d2, sum);
    assert!(d1 > 0);
}

#[test]
#[ignore = "slow in debug; run with --release -- --ignored"]
fn middle_game_depth_3() {
    let p = Position::from_sfen(MID_POS).unwrap();
    assert_eq!(perft(&p, 3), 4_809_015);
}

/// One start-position perft 4, for instruction counting under `valgrind --tool=cachegrind`.
#[test]
#[ignore = "profiling probe"]
fn probe_startpos_d4() {
    assert_eq!(perft(&Position::startpos(), 4), 719_731);
}
