//! Writes a reproducible benchmark corpus of random legal games (see `kifu::random`).
//!
//! ```text
//! cargo run --release --example gencorpus -- OUT_DIR [--games N] [--seed S] [--multi-only]
//!                                          [--repeat R]
//! ```
//!
//! Layout of `OUT_DIR`:
//! * `files/<format>/gNNNNNN.<ext>`: one file per game, for every format (`kif` in CP932,
//!   `kifu` in UTF-8, `ki2`, `ki2u`, `csa`, `usi`, `jkf`);
//! * `multi/games.csa`: every game in one CSA file, separated by `/` lines;
//! * `multi/games.usi`: every game in one USI file, one per line.
//!
//! `--repeat R` writes the N distinct games R times into the multi-game files (for archives of
//! millions of games, which would take long to generate). `--multi-only` skips `files/`.

use std::fs::{self, File};
use std::io::{BufWriter, Write};
use std::path::PathBuf;
use std::process::ExitCode;

use kifu::formats::{self, Format, WriteOptions, decode};
use kifu::random::{GenOptions, random_game};

fn main() -> ExitCode {
    let mut args = std::env::args().skip(1);
    let mut out: Option<PathBuf> = None;
    let mut games = 1000u64;
    let mut seed = 1u64;
    let mut repeat = 1u64;
    let mut multi_only = false;
    while let Some(a) = args.next() {
        let mut num = |name: &str| -> Option<u64> {
            let v = args.next().and_then(|v| v.parse().ok());
            if v.is_none() {
                eprintln!("gencorpus: {name} needs a number");
            }
            v
        };
        match a.as_str() {
            "--games" => match num("--games") {
                Some(v) => games = v,
                None => return ExitCode::from(2),
            },
            "--seed" => match num("--seed") {
                Some(v) => seed = v,
                None => return ExitCode::from(2),
            },
            "--repeat" => match num("--repeat") {
                Some(v) => repeat = v.max(1),
                None => return ExitCode::from(2),
            },
            "--multi-only" => multi_only = true,
            _ if out.is_none() && !a.starts_with('-') => out = Some(PathBuf::from(a)),
            _ => {
                eprintln!(
                    "usage: gencorpus OUT_DIR [--games N] [--seed S] [--repeat R] [--multi-only]"
                );
                return ExitCode::from(2);
            }
        }
    }
    let Some(out) = out else {
        eprintln!("usage: gencorpus OUT_DIR [--games N] [--seed S] [--repeat R] [--multi-only]");
        return ExitCode::from(2);
    };
    match run(&out, games, seed, repeat, multi_only) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("gencorpus: {e}");
            ExitCode::FAILURE
        }
    }
}

fn run(
    out: &std::path::Path,
    games: u64,
    seed: u64,
    repeat: u64,
    multi_only: bool,
) -> std::io::Result<()> {
    let opts = GenOptions::default();
    let wopts = WriteOptions::default();
    fs::create_dir_all(out.join("multi"))?;
    if !multi_only {
        for f in Format::ALL {
            fs::create_dir_all(out.join("files").join(f.name()))?;
        }
    }
    // Keep the CSA and USI text of each game so that repeats need no regeneration.
    let mut csa_texts = Vec::with_capacity(games as usize);
    let mut usi_texts = Vec::with_capacity(games as usize);
    let mut plies = 0u64;
    for i in 0..games {
        let record = random_game(seed.wrapping_mul(1_000_003).wrapping_add(i), &opts);
        plies += record.plies() as u64;
        if !multi_only {
            for f in Format::ALL {
                let written = formats::write(f, &record, &wopts);
                let bytes = if f.writes_cp932() {
                    decode::encode_for(f, &written.text).0
                } else {
                    written.text.into_bytes()
                };
                let path = out
                    .join("files")
                    .join(f.name())
                    .join(format!("g{i:06}.{}", f.extension()));
                fs::write(path, bytes)?;
            }
        }
        csa_texts.push(formats::write(Format::Csa, &record, &wopts).text);
        usi_texts.push(formats::write(Format::Usi, &record, &wopts).text);
    }
    let mut csa = BufWriter::new(File::create(out.join("multi").join("games.csa"))?);
    let mut usi = BufWriter::new(File::create(out.join("multi").join("games.usi"))?);
    let mut first = true;
    for _ in 0..repeat {
        for (c, u) in csa_texts.iter().zip(&usi_texts) {
            if !first {
                csa.write_all(b"/\n")?;
            }
            first = false;
            csa.write_all(c.as_bytes())?;
            if !c.ends_with('\n') {
                csa.write_all(b"\n")?;
            }
            usi.write_all(u.trim_end().as_bytes())?;
            usi.write_all(b"\n")?;
        }
    }
    csa.flush()?;
    usi.flush()?;
    eprintln!(
        "gencorpus: {games} games ({plies} plies, {:.1} plies/game) x {repeat} in {}",
        plies as f64 / games.max(1) as f64,
        out.display()
    );
    Ok(())
}
