//! A mutation smoke test on stable Rust, for CI: records from `fixtures/`, `tests/regressions/`,
//! the shared corpus (when present) and random games written in every format are mutated (bit
//! flips, random bytes, insertions of format tokens, deletions, duplications, splices) and run
//! through the whole pipeline: decoding in both encodings, every reader, validate, every writer
//! and reading back; the checks of the `validate_as_read` and `roundtrip` fuzz targets (`validate`
//! judging as it reads gives the reports of judging the records; a round trip keeps what each format holds)
//! run on every input too. Any panic, failed check or input slower than a few seconds fails
//! the test, with the input saved under `target/mutation-smoke/`.
//!
//! `mutation_smoke_quick` runs for 2 seconds in every `cargo test`; `mutation_smoke` (ignored,
//! so it runs in `cargo test --release -- --ignored`) runs for `KIFU_SMOKE_SECS` seconds
//! (default 60). `KIFU_SMOKE_SEED` picks the random seed (default 1).

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::PathBuf;
use std::time::{Duration, Instant};

use crate::archive;
use crate::as_read;
use crate::common;
use crate::roundtrip;

use kifu::formats::decode::{self, TextEncoding};
use kifu::formats::{self, Format, WriteOptions};
use kifu::random::{GenOptions, Rng, random_game};
use kifu::validate::{self, Gather, Options};

/// Tokens that mean something to some reader, spliced in to reach deeper code.
const TOKENS: &[&str] = &[
    "\n",
    "\r\n",
    "/\n",
    "変化：",
    "手\n",
    "まで",
    "手で先手の勝ち",
    "同　",
    "成",
    "不成",
    "打",
    "右",
    "左",
    "直",
    "上",
    "引",
    "寄",
    "▲",
    "△",
    "*",
    "&",
    "手合割：",
    "香落ち",
    "先手の持駒：",
    "後手番",
    "|",
    "+7776FU",
    "-3334FU",
    "%TORYO",
    "%SENNICHITE",
    "%KACHI",
    "T",
    "'",
    "PI",
    "P1",
    "P+",
    "00AL",
    "V2.2",
    "$EVENT:",
    "position sfen ",
    " moves ",
    "startpos",
    "lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1",
    "resign",
    "{\"moves\":[{},",
    "\"forks\":[[",
    "\"special\":\"TORYO\"",
    "\"move\":{\"to\":{\"x\":7,\"y\":6},\"piece\":\"FU\"}",
    "4294967295",
    "4294967296",
    "18446744073709551616",
    "-1",
    "( 0:01/00:00:01)",
    "\u{feff}",
    "\u{fffd}",
    // Header values with multi-byte text where a parser slices (dates, times, time controls,
    // ratings): a weekday in full-width brackets once made the date parser panic.
    "開始日時：2024/05/01（水）午後10:00\n",
    "$START_TIME:2024/05/01 午前10:00:00\n",
    "（水）",
    "午後１２：３０",
    "持ち時間：各１時間（秒読み３０秒）\n",
    "秒読み：３０秒\n",
    "$TIME_LIMIT:01:00+30\n",
    "$TIME:600+10+0\n",
    "'black_rate:名人:３０００.５\n",
    "棋戦：wdoor+floodgate-300-10F+名人+竜王+20240501\n",
];

fn seeds() -> Vec<(Option<Format>, Vec<u8>)> {
    let root = crate::common::repo();
    let mut files: Vec<PathBuf> = common::files_with(&root.join("fixtures"), &[]);
    files.extend(common::files_with(&root.join("tests/regressions"), &[]));
    files.extend(common::corpus_files("hostile_mutation (its seeds)", &[]).unwrap_or_default());
    files.retain(|p| std::fs::symlink_metadata(p).is_ok_and(|m| m.len() < 64 * 1024));
    files.sort();
    let mut out: Vec<(Option<Format>, Vec<u8>)> = files
        .iter()
        .filter_map(|p| {
            let name = p.file_name()?.to_str()?;
            let fmt = kifu_app::batch::discover::format_of_name(name);
            Some((fmt, std::fs::read(p).ok()?))
        })
        .collect();
    // Random games in every format, with variations where the format holds them.
    let opts = GenOptions {
        min_plies: 10,
        max_plies: 60,
        times: true,
        comments: true,
    };
    for seed in 0..4 {
        let game = random_game(seed, &opts);
        for f in Format::ALL {
            let w = formats::write(f, &game, &WriteOptions::default());
            out.push((Some(f), decode::encode_for(f, &w.text).0));
        }
    }
    out
}

fn mutate(rng: &mut Rng, data: &mut Vec<u8>, other: &[u8]) {
    let n = 1 + rng.below(8);
    for _ in 0..n {
        let len = data.len() as u64;
        let at = if len == 0 { 0 } else { rng.below(len + 1) } as usize;
        match rng.below(9) {
            0 if !data.is_empty() => {
                let i = at.min(data.len() - 1);
                data[i] ^= 1 << rng.below(8);
            }
            1 if !data.is_empty() => {
                let i = at.min(data.len() - 1);
                data[i] = rng.next_u64() as u8;
            }
            2 | 3 => {
                let t = TOKENS[rng.below(TOKENS.len() as u64) as usize];
                data.splice(at..at, t.bytes());
            }
            4 if !data.is_empty() => {
                let end = (at + 1 + rng.below(64) as usize).min(data.len());
                data.drain(at.min(end)..end);
            }
            5 if !data.is_empty() => {
                let end = (at + 1 + rng.below(256) as usize).min(data.len());
                let chunk: Vec<u8> = data[at.min(end)..end].to_vec();
                let times = 1 + rng.below(4);
                for _ in 0..times {
                    data.splice(at..at, chunk.iter().copied());
                }
            }
            6 if !other.is_empty() => {
                let s = rng.below(other.len() as u64) as usize;
                let e = (s + 1 + rng.below(512) as usize).min(other.len());
                data.splice(at..at, other[s..e].iter().copied());
            }
            7 => {
                let digits = format!("{}", rng.next_u64() >> rng.below(64));
                data.splice(at..at, digits.bytes());
            }
            _ => data.truncate(at),
        }
    }
    data.truncate(256 * 1024);
}

/// The whole pipeline on one input.
fn pipeline(format: Option<Format>, data: &[u8], pick: u64) {
    let forced = [None, Some(TextEncoding::Utf8), Some(TextEncoding::Cp932)][(pick % 3) as usize];
    let d = decode::decode(data, format, forced);
    let detected = decode::detect_format(None, &d.text);
    let mut targets: Vec<Format> = format.into_iter().chain(detected).collect();
    targets.push(Format::ALL[(pick / 3 % 7) as usize]);
    targets.dedup();
    // `validate` judging as it reads agrees with judging the records on CSA and USI text (the check of
    // the `validate_as_read` fuzz target).
    for f in [Format::Csa, Format::Usi] {
        if targets.contains(&f) {
            as_read::assert_agree(f, &d.text, &Options::default());
        }
    }
    // A write-then-read keeps what each format holds (the check of the `roundtrip` fuzz
    // target), from the input's own format.
    if let Some(sel) = targets
        .first()
        .and_then(|f| Format::ALL.iter().position(|x| x == f))
    {
        let mut input = Vec::with_capacity(data.len() + 1);
        input.push(sel as u8);
        input.extend_from_slice(data);
        roundtrip::check_roundtrip(&input);
    }
    for f in targets {
        for mut g in formats::read(f, &d.text).into_iter().take(3) {
            let (r, digest) = validate::digest(&mut g, &Options::default(), Gather::Positions);
            // The games table's row reads every header value (dates, time control, ratings),
            // the positions rows every move.
            let origin = kifu::tables::Origin {
                path: "m",
                game: 0,
                format: None,
                encoding: None,
            };
            let _ = kifu::tables::GameRow::new(origin, &digest, &r, &Default::default());
            let mut rows = kifu::tables::PositionRows::new();
            rows.push(&digest, r.plies, r.result.winner, "m".into(), 0);
            let to = Format::ALL[(pick / 21 % 7) as usize];
            let w = formats::write(to, &g.record, &WriteOptions::default());
            let _ = decode::encode_for(to, &w.text);
            for mut back in formats::read(to, &w.text).into_iter().take(2) {
                let _ = validate::validate_game(&mut back, &Options::default());
            }
        }
    }
}

/// The `archive` fuzz target's input for an archive of one to three seeds: a selector byte
/// (the kind, and now and then a forced input format) and the archive's bytes.
fn archive_input(rng: &mut Rng, seeds: &[(Option<Format>, Vec<u8>)]) -> Vec<u8> {
    let n = 1 + rng.below(3) as usize;
    let entries: Vec<(String, Vec<u8>)> = (0..n)
        .map(|i| {
            let (format, bytes) = &seeds[rng.below(seeds.len() as u64) as usize];
            let ext = format.map_or("txt", |f| f.extension());
            (format!("d{i}/g{i}.{ext}"), bytes.clone())
        })
        .collect();
    let formats = if rng.below(4) == 0 { 8 } else { 1 };
    let sel = rng.below(archive::KINDS.len() as u64 * formats);
    let mut input = vec![sel as u8];
    input.extend(archive::archive_of(sel as usize, &entries));
    input
}

fn smoke(budget: Duration) {
    let seed: u64 = std::env::var("KIFU_SMOKE_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(1);
    let seeds = seeds();
    assert!(!seeds.is_empty());
    let mut rng = Rng::new(seed);
    let start = Instant::now();
    let mut runs = 0u64;
    let mut slowest = Duration::ZERO;
    // Panics are caught and reported with the input; keep the default hook quiet meanwhile.
    let hook = std::panic::take_hook();
    std::panic::set_hook(Box::new(|_| {}));
    let mut failure: Option<(String, Vec<u8>)> = None;
    while start.elapsed() < budget {
        let (format, base) = &seeds[rng.below(seeds.len() as u64) as usize];
        let other = &seeds[rng.below(seeds.len() as u64) as usize].1;
        let mut data = base.clone();
        // One input in eight is an archive of a few records, mutated as a whole (the check
        // of the `archive` fuzz target; the saved input is that target's).
        let in_archive = rng.below(8) == 0;
        if in_archive {
            data = archive_input(&mut rng, &seeds);
        }
        mutate(&mut rng, &mut data, other);
        let pick = rng.next_u64();
        let t = Instant::now();
        let r = catch_unwind(AssertUnwindSafe(|| {
            if in_archive {
                archive::check_archive(&data);
            } else {
                pipeline(*format, &data, pick);
            }
        }));
        let took = t.elapsed();
        slowest = slowest.max(took);
        runs += 1;
        if let Err(e) = r {
            let msg = e
                .downcast_ref::<String>()
                .cloned()
                .or_else(|| e.downcast_ref::<&str>().map(|s| (*s).to_owned()))
                .unwrap_or_default();
            failure = Some((format!("panic: {msg}"), data));
            break;
        }
        if took > Duration::from_secs(5) {
            failure = Some((format!("slow input: {took:?}"), data));
            break;
        }
    }
    std::panic::set_hook(hook);
    if let Some((what, data)) = failure {
        let dir = crate::common::repo().join("target/mutation-smoke");
        let _ = std::fs::create_dir_all(&dir);
        let path = dir.join(format!("failure-seed{seed}-run{runs}"));
        let _ = std::fs::write(&path, &data);
        panic!(
            "{what} (seed {seed}, run {runs}); input saved to {}",
            path.display()
        );
    }
    eprintln!(
        "mutation smoke: {runs} inputs in {:?} from {} seeds, slowest {slowest:?}",
        start.elapsed(),
        seeds.len()
    );
    assert!(runs > 0);
}

#[test]
fn mutation_smoke_quick() {
    smoke(Duration::from_secs(2));
}

#[test]
#[ignore = "about a minute; runs in CI's release pass"]
fn mutation_smoke() {
    let secs = std::env::var("KIFU_SMOKE_SECS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(60);
    smoke(Duration::from_secs(secs));
}
