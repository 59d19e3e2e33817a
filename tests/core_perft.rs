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

#[test]
#[ignore = "timing; run with --release -- --ignored --nocapture"]
fn speed_report() {
    let only = std::env::var("KIFU_PERFT_CASE").ok();
    let cases = [
        ("startpos perft 5", Position::startpos(), 5),
        ("middle perft 3", Position::from_sfen(MID_POS).unwrap(), 3),
        (
            "max-moves perft 3",
            Position::from_sfen(MAX_POS).unwrap(),
            3,
        ),
    ];
    for (name, p, d) in cases {
        if only.as_deref().is_some_and(|o| !name.contains(o)) {
            continue;
        }
        let mut best = f64::MAX;
        let mut n = 0;
        for _ in 0..5 {
            let t = std::time::Instant::now();
            n = perft(&p, d);
            best = best.min(t.elapsed().as_secs_f64());
        }
        println!(
            "{name}: {n} leaves, best of 5 {best:.3}s = {:.1}M leaves/s",
            n as f64 / best / 1e6
        );
    }
}

/// One start-position perft 4, for instruction counting under `valgrind --tool=cachegrind`.
#[test]
#[ignore = "profiling probe"]
fn probe_startpos_d4() {
    assert_eq!(perft(&Position::startpos(), 4), 719_731);
}

/// Replay throughput as a validator uses the core: check_move, play_unchecked, in_check and
/// a checkmate test after checks, over pseudo-random legal games.
#[test]
#[ignore = "timing; run with --release -- --ignored --nocapture"]
fn replay_speed_report() {
    // A fixed set of games chosen by a small linear congruential generator.
    let mut games = Vec::new();
    let mut seed = 0x2545_f491_4f6c_dd1du64;
    for _ in 0..2000 {
        let mut p = Position::startpos();
        let mut moves = Vec::new();
        for _ in 0..120 {
            let legal = p.legal_moves();
            if legal.is_empty() {
                break;
            }
            seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            let m = legal[(seed >> 33) as usize % legal.len()];
            p.play(m).unwrap();
            moves.push(m);
        }
        games.push(moves);
    }
    let plies: usize = games.iter().map(Vec::len).sum();
    let t = std::time::Instant::now();
    let mut mates = 0;
    for g in &games {
        let mut p = Position::startpos();
        for &m in g {
            p.check_move(m).unwrap();
            p.play_unchecked(m).unwrap();
            if p.in_check() && p.is_checkmate() {
                mates += 1;
            }
        }
    }
    let s = t.elapsed().as_secs_f64();
    println!(
        "replay: {plies} plies in {s:.3}s = {:.0} ns/ply ({mates} mates)",
        s * 1e9 / plies as f64
    );
}
