//! Archives read by the batch reader (`kifu_app::batch::discover`): any bytes under a zip, tar or
//! tar.gz name give units and diagnostics, never a panic, within the zip-bomb bound, and with
//! relative paths that cannot lead `convert -o` outside its directory. Shared by
//! `app/tests/cli/hostile.rs`, `app/tests/cli/hostile_regressions.rs`, `app/tests/long/hostile_mutation.rs` and
//! `fuzz/fuzz_targets/archive.rs`, which include this file by path.

use std::io::Write;
use std::path::{Component, PathBuf};
use std::sync::Arc;

use kifu::diag::Code;
use kifu::formats::Format;
use kifu_app::batch::{self, Content, Input, Options, Unit, discover};

/// The archive kinds, as file name endings; the selector byte picks one.
pub const KINDS: [&str; 3] = ["zip", "tar", "tar.gz"];

/// Expansion always allowed in these checks (the CLI allows 16 MiB): small, so that a bomb
/// found by a fuzzer costs little, and so the bound is reached by small inputs.
pub const RATIO_FREE: u64 = 256 << 10;

/// A file in the temporary directory for this process and thread, named `*.EXT`.
pub fn scratch_path(ext: &str) -> PathBuf {
    let thread = format!("{:?}", std::thread::current().id());
    let thread: String = thread.chars().filter(char::is_ascii_digit).collect();
    std::env::temp_dir().join(format!(
        "kifu-archive-check-{}-{thread}.{ext}",
        std::process::id()
    ))
}

/// The fuzz target's check: `data[0] % 3` picks the archive kind (zip, tar, tar.gz) and
/// `data[0] / 3 % 8` a forced input format (0: none, else `Format::ALL[n - 1]`); the rest is
/// the archive file's bytes.
pub fn check_archive(data: &[u8]) {
    let Some((&sel, bytes)) = data.split_first() else {
        return;
    };
    let ext = KINDS[usize::from(sel) % KINDS.len()];
    let forced = match usize::from(sel) / KINDS.len() % 8 {
        0 => None,
        n => Format::ALL.get(n - 1).copied(),
    };
    let units = read_archive(ext, bytes, forced);
    check_units(&units, ext, bytes.len() as u64);
}

/// The units the batch reader makes of `bytes` written to a file named `*.EXT`.
pub fn read_archive(ext: &str, bytes: &[u8], forced: Option<Format>) -> Vec<Unit> {
    let path = scratch_path(ext);
    std::fs::write(&path, bytes).expect("write the archive to the temporary directory");
    let opts = options(forced);
    let mut units = Vec::new();
    discover::produce(&[Input::Path(path.clone())], &opts, &mut |u| {
        units.push(u);
        true
    });
    let _ = std::fs::remove_file(&path);
    units
}

fn options(forced: Option<Format>) -> Options {
    Options {
        input_format: forced,
        ratio_free_bytes: RATIO_FREE,
        ..Options::default()
    }
}

/// What must hold of the units of any archive of `size` bytes:
/// - the bytes handed out stay within the expansion bound (an uncompressed tar within its
///   size);
/// - every relative path is made of plain names only (no root, `..` or `.`);
/// - the units of one source are its chunks 0, 1, 2, … and only the last is marked last;
/// - a unit that could not be read carries an `io` diagnostic;
/// - reading and validating every unit does not panic, and a failed unit's report says why.
pub fn check_units(units: &[Unit], ext: &str, size: u64) {
    let bytes: u64 = units
        .iter()
        .map(|u| match &u.content {
            Content::Bytes(b) => b.len() as u64,
            Content::Failed(_) => 0,
            Content::Pending | Content::Zipped(_) => {
                panic!("discover::produce gave an unread unit")
            }
        })
        .sum();
    let bound = if ext == "tar" {
        size
    } else {
        (batch::MAX_EXPANSION_RATIO * size).max(RATIO_FREE)
    };
    assert!(
        bytes <= bound,
        "{bytes} bytes handed out from a {size}-byte .{ext}, over the bound of {bound}"
    );
    let mut i = 0;
    while i < units.len() {
        let source = &units[i].source;
        let same: Vec<&Unit> = units[i..]
            .iter()
            .take_while(|u| Arc::ptr_eq(&u.source, source))
            .collect();
        for (n, u) in same.iter().enumerate() {
            assert_eq!(
                u.chunk as usize, n,
                "chunks of {} out of order",
                source.path
            );
            assert_eq!(
                u.last,
                n + 1 == same.len(),
                "last chunk of {} misplaced",
                source.path
            );
        }
        i += same.len();
        if let Some(rel) = &source.rel {
            assert!(
                rel.components().all(|c| matches!(c, Component::Normal(_))),
                "unsafe relative path {rel:?} for {}",
                source.path
            );
        }
    }
    let opts = kifu::validate::Options::default();
    for u in units {
        let validated = batch::validate_unit(u, &opts);
        if let Content::Failed(d) = &u.content {
            assert_eq!(d.code, Code::Io, "{}: {}", u.source.path, d.message);
            assert!(validated.diagnostics.iter().any(|x| x.code == Code::Io));
        }
        let _ = batch::parse_unit(u);
    }
}

/// Why the units are not exactly `entries` (record files `(name, bytes)`, in order), if
/// they are not: for each entry, units whose path ends with its name and whose bytes, put
/// together, are the entry's.
pub fn read_back_mismatch(units: &[Unit], entries: &[(String, Vec<u8>)]) -> Option<String> {
    let mut got: Vec<(&str, Vec<u8>)> = Vec::new();
    for u in units {
        let Content::Bytes(b) = &u.content else {
            return Some(format!("{}: {:?}", u.source.path, u.content));
        };
        if u.chunk == 0 {
            got.push((&u.source.path, Vec::new()));
        }
        got.last_mut()?.1.extend_from_slice(b);
    }
    if got.len() != entries.len() {
        let names: Vec<&str> = got.iter().map(|(n, _)| *n).collect();
        return Some(format!("{} entries read: {names:?}", got.len()));
    }
    for ((path, bytes), (name, want)) in got.iter().zip(entries) {
        if !path.ends_with(&format!("/{name}")) {
            return Some(format!("{path} is not {name}"));
        }
        if bytes != want {
            return Some(format!("{path}: the bytes read differ from the entry's"));
        }
    }
    None
}

/// Asserts that an intact archive gives back exactly its entries ([`read_back_mismatch`]).
pub fn assert_entries_read_back(units: &[Unit], entries: &[(String, Vec<u8>)]) {
    if let Some(why) = read_back_mismatch(units, entries) {
        panic!("{why}");
    }
}

/// A zip of `entries` (deflated, or stored).
pub fn zip_of(entries: &[(String, Vec<u8>)], deflated: bool) -> Vec<u8> {
    let mut z = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
    let method = if deflated {
        zip::CompressionMethod::Deflated
    } else {
        zip::CompressionMethod::Stored
    };
    let opts = zip::write::SimpleFileOptions::default().compression_method(method);
    for (name, bytes) in entries {
        z.start_file(name.as_str(), opts).expect("start");
        z.write_all(bytes).expect("write");
    }
    z.finish().expect("finish").into_inner()
}

/// A tar of `entries` (GNU headers, as GNU tar writes them).
pub fn tar_of(entries: &[(String, Vec<u8>)]) -> Vec<u8> {
    let mut b = tar::Builder::new(Vec::new());
    for (name, bytes) in entries {
        let mut h = tar::Header::new_gnu();
        h.set_size(bytes.len() as u64);
        h.set_mode(0o644);
        h.set_cksum();
        b.append_data(&mut h, name, bytes.as_slice())
            .expect("append");
    }
    b.into_inner().expect("finish")
}

/// `bytes` gzipped.
pub fn gz_of(bytes: &[u8]) -> Vec<u8> {
    let mut g = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    g.write_all(bytes).expect("gzip");
    g.finish().expect("gzip")
}

/// An archive of `entries` of the kind `KINDS[kind % 3]`.
pub fn archive_of(kind: usize, entries: &[(String, Vec<u8>)]) -> Vec<u8> {
    match kind % KINDS.len() {
        0 => zip_of(entries, true),
        1 => tar_of(entries),
        _ => gz_of(&tar_of(entries)),
    }
}
