//! Reading and validation throughput per format: `cargo bench --bench formats`.
//!
//! The input is a fixed set of random legal games (`kifu::random`, the generator behind
//! `examples/gencorpus.rs`), written once in every format. Three groups, each reporting
//! games per second (criterion's "elements"):
//!
//! * `decode`: bytes to text (UTF-8 and CP932 KIF), as `kifu validate` does for each file;
//! * `parse`: text to records, per format (no replay);
//! * `validate`: decode + parse + replay with every rule and result check, per format (what
//!   `kifu validate` does per game, without the file system).
//!
//! Each benchmark takes a second or two: the whole file runs in about a minute.

use std::hint::black_box;
use std::time::Duration;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use kifu::formats::{self, Format, WriteOptions, decode};
use kifu::random::{GenOptions, random_game};
use kifu::validate;

/// Games per benchmark input (about 145 plies each).
const GAMES: u64 = 100;

/// The games of one format, as files would hold them (CP932 for `kif`/`ki2`).
struct Input {
    format: Format,
    files: Vec<Vec<u8>>,
}

fn inputs() -> Vec<Input> {
    let records: Vec<_> = (0..GAMES)
        .map(|i| random_game(1_000 + i, &GenOptions::default()))
        .collect();
    Format::ALL
        .iter()
        .map(|&format| Input {
            format,
            files: records
                .iter()
                .map(|r| {
                    let text = formats::write(format, r, &WriteOptions::default()).text;
                    if format.writes_cp932() {
                        decode::encode_for(format, &text).0
                    } else {
                        text.into_bytes()
                    }
                })
                .collect(),
        })
        .collect()
}

fn text_of(format: Format, bytes: &[u8]) -> String {
    decode::decode(bytes, Some(format), None).text
}

fn bench(c: &mut Criterion) {
    let inputs = inputs();

    let mut g = c.benchmark_group("decode");
    g.sample_size(20).measurement_time(Duration::from_secs(2));
    g.throughput(Throughput::Elements(GAMES));
    for input in inputs
        .iter()
        .filter(|i| matches!(i.format, Format::Kif | Format::Kifu))
    {
        let name = if input.format == Format::Kif {
            "kif_cp932"
        } else {
            "kifu_utf8"
        };
        g.bench_function(name, |b| {
            b.iter(|| {
                for f in &input.files {
                    black_box(decode::decode(black_box(f), Some(input.format), None));
                }
            })
        });
    }
    g.finish();

    let mut g = c.benchmark_group("parse");
    g.sample_size(20).measurement_time(Duration::from_secs(2));
    g.throughput(Throughput::Elements(GAMES));
    for input in &inputs {
        let texts: Vec<String> = input
            .files
            .iter()
            .map(|f| text_of(input.format, f))
            .collect();
        g.bench_function(input.format.name(), |b| {
            b.iter(|| {
                for t in &texts {
                    black_box(formats::read(input.format, black_box(t)));
                }
            })
        });
    }
    g.finish();

    let mut g = c.benchmark_group("validate");
    g.sample_size(20).measurement_time(Duration::from_secs(2));
    g.throughput(Throughput::Elements(GAMES));
    let opts = validate::Options::default();
    for input in &inputs {
        g.bench_function(input.format.name(), |b| {
            b.iter(|| {
                let mut errors = 0;
                for f in &input.files {
                    let text = text_of(input.format, black_box(f));
                    for mut game in formats::read(input.format, &text) {
                        errors += validate::validate_game(&mut game, &opts).errors();
                    }
                }
                assert_eq!(errors, 0, "generated games are clean");
                errors
            })
        });
    }
    // One CSA file holding every game (the chunked multi-game path reads many games per text).
    if let Some(csa) = inputs.iter().find(|i| i.format == Format::Csa) {
        let mut multi = Vec::new();
        for (i, f) in csa.files.iter().enumerate() {
            if i > 0 {
                multi.extend_from_slice(b"/\n");
            }
            multi.extend_from_slice(f);
            if !f.ends_with(b"\n") {
                multi.push(b'\n');
            }
        }
        g.bench_function("csa_multi", |b| {
            b.iter(|| {
                let text = text_of(Format::Csa, black_box(&multi));
                let games = formats::read(Format::Csa, &text);
                assert_eq!(games.len() as u64, GAMES);
                for mut game in games {
                    black_box(validate::validate_game(&mut game, &opts));
                }
            })
        });
        // The way `kifu validate` takes for CSA: games replayed as their lines are read.
        g.bench_function("csa_multi_short", |b| {
            b.iter(|| {
                let text = text_of(Format::Csa, black_box(&multi));
                let reports = validate::validate_csa(&text, &opts);
                assert_eq!(reports.len() as u64, GAMES);
                black_box(reports)
            })
        });
        g.bench_function("csa_short", |b| {
            b.iter(|| {
                let mut n = 0;
                for f in &csa.files {
                    let text = text_of(Format::Csa, black_box(f));
                    n += validate::validate_csa(&text, &opts).len();
                }
                assert_eq!(n as u64, GAMES);
                n
            })
        });
    }
    if let Some(usi) = inputs.iter().find(|i| i.format == Format::Usi) {
        g.bench_function("usi_short", |b| {
            b.iter(|| {
                let mut n = 0;
                for f in &usi.files {
                    let text = text_of(Format::Usi, black_box(f));
                    n += validate::validate_usi(&text, &opts).len();
                }
                assert_eq!(n as u64, GAMES);
                n
            })
        });
    }
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
