//! Every command gives the same bytes whatever `--jobs` is (issue #24): the workers read the
//! small files of a directory themselves, in parallel, and the order is put back by sequence
//! number. Inputs of every kind at once: a tree of small files (every fixture, several times
//! over), a multi-game file cut into chunks, a file that grew from nothing (empty), a zip and a
//! tar.gz of small files, and a name that cannot be read.

use std::fs;
use std::path::Path;
use std::process::{Command, Output, Stdio};

use crate::archive;
use crate::cli_common;
use cli_common::fixtures;

fn kifu(dir: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_kifu"))
        .args(args)
        .current_dir(dir)
        .stdin(Stdio::null())
        .output()
        .expect("run kifu")
}

/// Every fixture file, as (relative name, bytes).
fn fixture_files() -> Vec<(String, Vec<u8>)> {
    let root = fixtures();
    let mut out = Vec::new();
    for e in walkdir::WalkDir::new(&root).sort_by_file_name() {
        let e = e.expect("walk");
        if e.file_type().is_file() && e.file_name() != "README.md" {
            let rel = e.path().strip_prefix(&root).expect("under fixtures");
            let name = rel.to_string_lossy().into_owned();
            out.push((name, fs::read(e.path()).expect("read")));
        }
    }
    out
}

/// The input tree under `dir/in`.
fn inputs(dir: &Path) {
    let files = fixture_files();
    let input = dir.join("in");
    for i in 0..6 {
        for (name, bytes) in &files {
            let path = input.join(format!("t{i}")).join(name);
            fs::create_dir_all(path.parent().expect("parent")).expect("mkdir");
            fs::write(path, bytes).expect("write");
        }
    }
    // A multi-game file well over a chunk, with a foul now and then. In a directory, it is
    // listed unmeasured; the worker that opens it hands it back, and it is cut into chunks by
    // a run of its own (`batch::engine::run_with`): the outputs below hold it in its place.
    let good = fs::read_to_string(fixtures().join("ok/mate.csa")).expect("read");
    let bad = fs::read_to_string(fixtures().join("fouls/uchifuzume.csa")).expect("read");
    let mut big = String::new();
    for i in 0..3000 {
        if i > 0 {
            big.push_str("/\n");
        }
        big.push_str(if i % 89 == 0 { &bad } else { &good });
    }
    fs::write(input.join("big.csa"), big).expect("write");
    fs::write(input.join("empty.kif"), b"").expect("write");
    let entries: Vec<(String, Vec<u8>)> = files.iter().take(40).cloned().collect();
    fs::write(input.join("a.zip"), archive::archive_of(0, &entries)).expect("write");
    fs::write(input.join("b.tar.gz"), archive::archive_of(2, &entries)).expect("write");
    #[cfg(unix)]
    std::os::unix::fs::symlink(dir.join("nowhere.csa"), input.join("dangling.csa"))
        .expect("symlink");
}

/// The files under `root`, with their bytes, sorted by path.
fn tree(root: &Path) -> Vec<(String, Vec<u8>)> {
    let mut out = Vec::new();
    for e in walkdir::WalkDir::new(root).sort_by_file_name() {
        let e = e.expect("walk");
        if e.file_type().is_file() {
            let rel = e.path().strip_prefix(root).expect("under root");
            out.push((
                rel.to_string_lossy().into_owned(),
                fs::read(e.path()).expect("read"),
            ));
        }
    }
    out
}

#[test]
fn every_command_gives_the_same_bytes_whatever_the_jobs() {
    let dir = tempfile::tempdir().expect("tempdir");
    inputs(dir.path());
    let commands: [&[&str]; 8] = [
        &["validate", "--format", "json", "in"],
        &["validate", "in"],
        &["stats", "--format", "json", "in"],
        &["stats", "--format", "csv", "in"],
        &["convert", "--to", "csa", "--format", "json", "in"],
        &["games", "--format", "csv", "in"],
        &["games", "--format", "json", "--dedup", "in"],
        &["positions", "--format", "json", "in"],
    ];
    for args in commands {
        let mut first: Option<(String, Output)> = None;
        for jobs in ["1", "2", "3", "8"] {
            let mut all = args.to_vec();
            all.extend(["--no-progress", "-j", jobs]);
            let o = kifu(dir.path(), &all);
            let what = format!("{args:?} -j{jobs}");
            // 2: the dangling link could not be opened; never a crash.
            assert!(
                o.status.code().is_some_and(|c| c <= 2),
                "{what}: {}",
                o.status
            );
            assert!(!o.stdout.is_empty() || !o.stderr.is_empty(), "{what}");
            match &first {
                None => first = Some((what, o)),
                Some((w1, o1)) => {
                    assert_eq!(o.status.code(), o1.status.code(), "{what} vs {w1}");
                    assert!(o.stdout == o1.stdout, "{what}: stdout differs from {w1}");
                    assert!(o.stderr == o1.stderr, "{what}: stderr differs from {w1}");
                }
            }
        }
    }
    // convert's outputs, file by file.
    let mut first = None;
    for jobs in ["1", "2", "5"] {
        let out = format!("out-j{jobs}");
        let o = kifu(
            dir.path(),
            &["convert", "in", "--to", "kifu", "-o", &out, "-j", jobs],
        );
        assert!(o.status.code().is_some_and(|c| c <= 2), "{}", o.status);
        let t = tree(&dir.path().join(&out));
        assert!(t.len() > 300, "outputs written: {}", t.len());
        match &first {
            None => first = Some(t),
            Some(t1) => assert!(&t == t1, "-j{jobs}: outputs differ from -j1"),
        }
    }
}

/// The bytes of every unit `batch::run` hands its work function (where the workers read and
/// inflate), as (path, bytes or the diagnostic's message).
fn run_units(path: &Path) -> Vec<(String, Result<Vec<u8>, String>)> {
    use kifu_app::batch::{self, Content, Input, Options};
    let mut out = Vec::new();
    let opts = Options {
        jobs: 2,
        ..Options::default()
    };
    batch::run(
        &[Input::Path(path.to_path_buf())],
        &opts,
        |u| match &u.content {
            Content::Bytes(b) => Ok(b.clone()),
            Content::Failed(d) => Err(d.message.clone()),
            _ => Err("an unread unit reached the work function".to_owned()),
        },
        |u, r| {
            out.push((u.source.path.clone(), r));
            Ok(())
        },
    )
    .expect("run");
    out
}

/// The entries of a zip, each inflated by a worker, are those the reader gives when it
/// inflates them itself (`discover::produce`); an entry whose header lies about its size or
/// checksum is an `io` failure of that entry alone.
#[test]
fn zip_entries_inflated_by_the_workers_are_the_entries() {
    let dir = tempfile::tempdir().expect("tempdir");
    let entries: Vec<(String, Vec<u8>)> = fixture_files().into_iter().take(30).collect();
    for deflated in [true, false] {
        let path = dir.path().join(format!("z{deflated}.zip"));
        fs::write(&path, archive::zip_of(&entries, deflated)).expect("write");
        let got = run_units(&path);
        assert_eq!(got.len(), entries.len(), "deflated {deflated}");
        for ((p, bytes), (name, want)) in got.iter().zip(&entries) {
            assert!(p.ends_with(name.as_str()), "{p} for {name}");
            assert_eq!(
                bytes.as_ref().ok(),
                Some(want),
                "{name} (deflated {deflated})"
            );
        }
    }
    // Headers that lie: the first entry's size one byte short, the second's CRC-32 wrong,
    // in the local header and the central directory alike.
    let mut z = archive::zip_of(&entries[..3], true);
    let (mut local, mut central) = (Vec::new(), Vec::new());
    for i in 0..z.len().saturating_sub(4) {
        match &z[i..i + 4] {
            b"PK\x03\x04" => local.push(i),
            b"PK\x01\x02" => central.push(i),
            _ => {}
        }
    }
    assert_eq!((local.len(), central.len()), (3, 3));
    for (at, off) in [(local[0], 22), (central[0], 24)] {
        let n = u32::from_le_bytes(z[at + off..at + off + 4].try_into().expect("4 bytes"));
        z[at + off..at + off + 4].copy_from_slice(&(n - 1).to_le_bytes());
    }
    for (at, off) in [(local[1], 14), (central[1], 16)] {
        z[at + off] ^= 0x55;
    }
    let path = dir.path().join("lies.zip");
    fs::write(&path, &z).expect("write");
    let got = run_units(&path);
    assert_eq!(got.len(), 3, "{got:?}");
    let why = |i: usize| got[i].1.clone().expect_err("a failure");
    assert!(why(0).contains("more than"), "{}", why(0));
    assert!(why(1).contains("CRC-32"), "{}", why(1));
    assert_eq!(got[2].1.as_ref().ok(), Some(&entries[2].1));
}
