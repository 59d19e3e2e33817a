//! Perft throughput: `cargo bench --bench perft`.
//!
//! Each benchmark counts the leaves of a fixed tree; divide the node count by the time
//! criterion reports to get leaves per second (the last ply is counted, not played).

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use kifu::core::{Position, perft};

fn bench(c: &mut Criterion) {
    let cases = [
        ("startpos_d4", Position::startpos(), 4u32),
        (
            "middle_d2",
            Position::from_sfen(
                "l6nl/5+P1gk/2np1S3/p1p4Pp/3P2Sp1/1PPb2P1P/P5GS1/R8/LN4bKL w RGgsn5p 1",
            )
            .expect("valid sfen"),
            2,
        ),
        (
            "max_moves_d2",
            Position::from_sfen("R8/2K1S1SSk/4B4/9/9/9/9/9/1L1L1L3 b RBGSNLP3g3n17p 1")
                .expect("valid sfen"),
            2,
        ),
    ];
    let mut g = c.benchmark_group("perft");
    g.sample_size(10);
    for (name, pos, depth) in cases {
        let nodes = perft(&pos, depth);
        g.throughput(Throughput::Elements(nodes));
        g.bench_function(name, |b| {
            b.iter(|| perft(std::hint::black_box(&pos), depth))
        });
    }
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
