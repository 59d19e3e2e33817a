//! Bytes handed over whole (the page of `web/`, which has no file system) read as the files on
//! disk are: `batch::discover::produce_bytes` gives the same units as the walk of the same
//! files and archives, and `commands::Reporter` over them writes what `commands::validate` writes,
//! byte for byte.

use std::io::Write;
use std::path::{Path, PathBuf};

use kifu::validate;
use kifu_app::batch::{self, Input, Unit, discover};
use kifu_app::commands::{self, Reporter, Style};

const FILES: [&str; 6] = [
    "fixtures/validate/fouls/nifu.kifu",
    "fixtures/validate/fouls/uchifuzume.csa",
    "fixtures/validate/ok/games.usi",
    "fixtures/validate/ok/resign.kif",
    "fixtures/validate/ok/interrupted.ki2u",
    "fixtures/validate/endings/perpetual-check-foul.kifu",
];

/// A zip of some fixtures (one in a folder, one that is no record) and a tar of others,
/// written into `dir`; their paths.
fn archives(dir: &Path) -> Vec<PathBuf> {
    let zip_path = dir.join("games.zip");
    let mut zip = zip::ZipWriter::new(std::fs::File::create(&zip_path).expect("create"));
    let o = zip::write::SimpleFileOptions::default();
    for (name, f) in [
        ("club/nifu.kifu", FILES[0]),
        ("games.usi", FILES[2]),
        ("readme.txt", "fixtures/README.md"),
    ] {
        zip.start_file(name, o).expect("entry");
        zip.write_all(&std::fs::read(crate::common::repo().join(f)).expect("fixture"))
            .expect("write");
    }
    zip.finish().expect("finish");
    let tar_path = dir.join("more.tar");
    let mut tar = tar::Builder::new(std::fs::File::create(&tar_path).expect("create"));
    for f in &FILES[3..] {
        let name = Path::new(f).file_name().expect("name");
        tar.append_path_with_name(crate::common::repo().join(f), name)
            .expect("append");
    }
    tar.finish().expect("finish");
    vec![zip_path, tar_path]
}

fn inputs(dir: &Path) -> Vec<PathBuf> {
    let mut all: Vec<PathBuf> = FILES
        .iter()
        .map(|f| crate::common::repo().join(f))
        .collect();
    all.extend(archives(dir));
    all
}

fn summary(u: &Unit) -> (String, Option<&'static str>, u32, u32, bool, Vec<u8>) {
    let bytes = match &u.content {
        batch::Content::Bytes(b) => b.clone(),
        other => format!("{other:?}").into_bytes(),
    };
    (
        u.source.path.clone(),
        u.source.format.map(kifu::Format::name),
        u.first_line,
        u.chunk,
        u.last,
        bytes,
    )
}

#[test]
fn bytes_give_the_units_the_files_give() {
    let dir = tempfile::tempdir().expect("tempdir");
    let opts = batch::Options::default();
    for p in inputs(dir.path()) {
        let mut from_disk = Vec::new();
        discover::produce(&[Input::Path(p.clone())], &opts, &mut |u| {
            from_disk.push(summary(&u));
            true
        });
        let shown = discover::display_path(&p);
        let bytes = std::fs::read(&p).expect("read");
        let mut from_bytes = Vec::new();
        discover::produce_bytes(&shown, &bytes, &opts, &mut |u| {
            from_bytes.push(summary(&u));
            true
        });
        assert!(!from_disk.is_empty(), "{shown}");
        assert_eq!(from_bytes, from_disk, "{shown}");
    }
}

#[test]
fn the_reporter_over_bytes_writes_what_validate_writes() {
    let dir = tempfile::tempdir().expect("tempdir");
    let paths = inputs(dir.path());
    let opts = commands::Options {
        style: Style::Json,
        ..commands::Options::default()
    };
    let vopts = validate::Options::default();
    let batch_opts = batch::Options::default();
    let inputs: Vec<Input> = paths.iter().cloned().map(Input::Path).collect();
    let mut expected = Vec::new();
    commands::validate(&inputs, &batch_opts, &vopts, &opts, &mut expected, &mut ()).expect("run");

    let mut reporter = Reporter::new(&opts);
    let mut got = Vec::new();
    for p in &paths {
        let bytes = std::fs::read(p).expect("read");
        let shown = discover::display_path(p);
        discover::produce_bytes(&shown, &bytes, &batch_opts, &mut |u| {
            let worked = Reporter::work(&u, &vopts, &opts);
            reporter.emit(&u, worked, &mut got).expect("write");
            true
        });
    }
    let summary = reporter.finish(&mut got).expect("finish");
    let text = String::from_utf8(got).expect("utf-8");
    assert_eq!(text, String::from_utf8(expected).expect("utf-8"));
    assert!(summary.errors > 0, "the fouls are found");
    assert!(text.contains("\"path\":\"") && text.contains("games.zip/club/nifu.kifu"));
}
