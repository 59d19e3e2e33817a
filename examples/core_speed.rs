//! Speed of the rules core, for docs/history/benchmarks-notebook.md (measurements, not tests):
//!
//! ```text
//! cargo run --release --example core_speed            # perft, best of 5, and replay
//! KIFU_PERFT_CASE=startpos cargo run --release --example core_speed
//! ```
//!
//! Perft counts the last ply without playing it, as cshogi and rsshogi do. The replay figure
//! is what a validator pays per ply: check, play, and a mate test after every check.

use kifu::core::{Position, perft};

const MAX_POS: &str = "R8/2K1S1SSk/4B4/9/9/9/9/9/1L1L1L3 b RBGSNLP3g3n17p 1";
const MID_POS: &str = "l6nl/5+P1gk/2np1S3/p1p4Pp/3P2Sp1/1PPb2P1P/P5GS1/R8/LN4bKL w RGgsn5p 1";

fn main() {
    let only = std::env::var("KIFU_PERFT_CASE").ok();
    let cases = [
        ("startpos perft 5", MAX_POS, 0u32, 5u32),
        ("middle perft 3", MID_POS, 1, 3),
        ("max-moves perft 3", MAX_POS, 2, 3),
    ];
    for (name, sfen, which, depth) in cases {
        if only.as_deref().is_some_and(|o| !name.contains(o)) {
            continue;
        }
        let p = if which == 0 {
            Position::startpos()
        } else {
            match Position::from_sfen(sfen) {
                Ok(p) => p,
                Err(e) => {
                    eprintln!("{name}: {e}");
                    continue;
                }
            }
        };
        let mut best = f64::MAX;
        let mut n = 0;
        for _ in 0..5 {
            let t = std::time::Instant::now();
            n = perft(&p, depth);
            best = best.min(t.elapsed().as_secs_f64());
        }
        println!(
            "{name}: {n} leaves, best of 5 {best:.3}s = {:.1}M leaves/s",
            n as f64 / best / 1e6
        );
    }
    if only.is_none() {
        replay_speed();
    }
}

/// Replay throughput as a validator uses the core, over pseudo-random legal games.
fn replay_speed() {
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
            if p.play(m).is_err() {
                break;
            }
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
            if p.play_checked(m).is_err() {
                break;
            }
            if p.in_check() && p.is_checkmate() {
                mates += 1;
            }
        }
    }
    let s = t.elapsed().as_secs_f64();
    println!(
        "replay (play_checked + mate test after checks): {plies} plies in {s:.3}s = {:.0} ns/ply ({mates} mates)",
        s * 1e9 / plies as f64
    );
}
