//! Inputs at the edges (issue #20): empty files and empty archive entries of every format give
//! the one `empty-input` warning and the exit code of the other inputs; links in a tar are
//! skipped with a warning that names them; a path that is not UTF-8 can be named on the
//! command line and is shown distinctly.

use crate::archive;

use std::ffi::OsStr;
use std::path::Path;
use std::process::{Command, Output};

use serde_json::Value;

const EXTS: [&str; 9] = [
    "kif", "kifu", "ki2", "ki2u", "csa", "usi", "sfen", "jkf", "json",
];

fn kifu(args: &[&OsStr]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_kifu"))
        .args(args)
        .output()
        .expect("run kifu")
}

/// `kifu validate --format json PATH...`: the game lines and the exit code.
fn validate_json(paths: &[&Path]) -> (Vec<Value>, i32) {
    let mut args: Vec<&OsStr> = ["validate", "--format", "json", "--no-progress"]
        .iter()
        .map(OsStr::new)
        .collect();
    args.extend(paths.iter().map(|p| p.as_os_str()));
    let out = kifu(&args);
    let text = String::from_utf8(out.stdout).expect("UTF-8");
    let mut lines: Vec<Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).expect("JSON"))
        .collect();
    lines.pop().expect("summary");
    (lines, out.status.code().expect("exit code"))
}

/// Each line is one input with nothing in it: one `empty-input` warning, no game.
fn assert_one_empty_input_each(lines: &[Value], what: &str) {
    for l in lines {
        assert_eq!(l["game"], Value::Null, "{what}: {l}");
        let d = l["diagnostics"].as_array().expect("diagnostics");
        assert_eq!(d.len(), 1, "{what}: {l}");
        assert_eq!(d[0]["code"], "empty-input", "{what}: {l}");
        assert_eq!(d[0]["severity"], "warning", "{what}: {l}");
    }
}

#[test]
fn empty_files_and_entries_give_one_empty_input_warning_in_every_format() {
    let dir = tempfile::tempdir().expect("tempdir");
    let contents: [(&str, &[u8]); 4] = [
        ("empty", b""),
        ("blank", b" \r\n\t\r"),
        ("bom", b"\xEF\xBB\xBF"),
        ("bom-blank", b"\xEF\xBB\xBF\n\n"),
    ];
    let mut entries = Vec::new();
    let mut files = Vec::new();
    for ext in EXTS {
        for (what, bytes) in contents {
            let name = format!("{what}.{ext}");
            std::fs::write(dir.path().join(&name), bytes).expect("write");
            files.push(dir.path().join(&name));
            entries.push((format!("sub/{name}"), bytes.to_vec()));
        }
    }
    // Each file alone: the same line and exit code 0 whatever the format.
    for f in &files {
        let (lines, code) = validate_json(&[f]);
        assert_eq!(lines.len(), 1, "{}", f.display());
        assert_one_empty_input_each(&lines, &f.display().to_string());
        assert_eq!(code, 0, "{}", f.display());
    }
    // Each archive kind: one line per entry.
    for (i, kind) in archive::KINDS.iter().enumerate() {
        let path = dir.path().join(format!("empties.{kind}"));
        std::fs::write(&path, archive::archive_of(i, &entries)).expect("write");
        let (lines, code) = validate_json(&[&path]);
        assert_eq!(lines.len(), entries.len(), "{kind}");
        assert_one_empty_input_each(&lines, kind);
        assert_eq!(code, 0, "{kind}");
        for (l, (name, _)) in lines.iter().zip(&entries) {
            assert_eq!(
                l["path"].as_str(),
                Some(format!("{}/{name}", path.display()).as_str())
            );
        }
        // With a record that breaks a rule, the exit code is that record's.
        let nifu = dir.path().join("nifu.usi");
        std::fs::write(&nifu, "startpos moves 7g7f 3c3d 8h2b+ 3a2b P*3d\n").expect("write");
        let (lines, code) = validate_json(&[&path, &nifu]);
        assert_eq!(lines.len(), entries.len() + 1);
        assert_eq!(code, 1, "{kind} and an error");
        let missing = dir.path().join("missing.csa");
        let (_, code) = validate_json(&[&path, &missing]);
        assert_eq!(code, 2, "{kind} and an unreadable input");
        // `convert` writes nothing for them, and says so the same way.
        let out = dir.path().join(format!("out-{i}"));
        let o = kifu(&[
            OsStr::new("convert"),
            path.as_os_str(),
            OsStr::new("--to"),
            OsStr::new("csa"),
            OsStr::new("-o"),
            out.as_os_str(),
        ]);
        assert_eq!(o.status.code(), Some(0), "{kind}: {o:?}");
        let stderr = String::from_utf8_lossy(&o.stderr);
        assert_eq!(
            stderr.matches("warning[empty-input]").count(),
            entries.len(),
            "{kind}: {stderr}"
        );
        let written = std::fs::read_dir(&out)
            .map(|d| d.count())
            .unwrap_or_default();
        assert_eq!(written, 0, "{kind}: no output for an empty input");
    }
}

/// A tar holding a record, a symbolic link and a hard link to it (with record names), and a
/// symbolic link with another name.
fn tar_with_links() -> Vec<u8> {
    let mut b = tar::Builder::new(Vec::new());
    let game = b"V2.2\nPI\n+\n+7776FU\n-3334FU\n%TORYO\n";
    let mut h = tar::Header::new_gnu();
    h.set_size(game.len() as u64);
    h.set_mode(0o644);
    h.set_cksum();
    b.append_data(&mut h, "games/a.csa", &game[..])
        .expect("append");
    for (kind, name, target) in [
        (tar::EntryType::Symlink, "games/b.csa", "a.csa"),
        (tar::EntryType::Link, "games/c.kif", "games/a.csa"),
        (tar::EntryType::Symlink, "games/latest", "a.csa"),
    ] {
        let mut h = tar::Header::new_gnu();
        h.set_entry_type(kind);
        h.set_size(0);
        h.set_mode(0o777);
        b.append_link(&mut h, name, target).expect("link");
    }
    b.into_inner().expect("finish")
}

#[test]
fn links_in_a_tar_are_skipped_with_a_warning_that_names_them() {
    let dir = tempfile::tempdir().expect("tempdir");
    let tar = tar_with_links();
    for (i, kind) in ["tar", "tar.gz"].iter().enumerate() {
        let path = dir.path().join(format!("links.{kind}"));
        let bytes = if i == 0 {
            tar.clone()
        } else {
            archive::gz_of(&tar)
        };
        std::fs::write(&path, bytes).expect("write");
        let (lines, code) = validate_json(&[&path]);
        assert_eq!(code, 0, "{kind}: warnings only");
        let shown = |name: &str| format!("{}/games/{name}", path.display());
        let paths: Vec<&str> = lines.iter().filter_map(|l| l["path"].as_str()).collect();
        // The record, then each link with a record's name; `latest` is no record's name.
        assert_eq!(
            paths,
            [shown("a.csa"), shown("b.csa"), shown("c.kif")],
            "{kind}"
        );
        assert_eq!(lines[0]["plies"], 2);
        for (l, (what, target)) in lines[1..]
            .iter()
            .zip([("a symbolic link", "a.csa"), ("a hard link", "games/a.csa")])
        {
            let d = l["diagnostics"].as_array().expect("diagnostics");
            assert_eq!(d.len(), 1, "{l}");
            assert_eq!(d[0]["code"], "skipped-entry");
            assert_eq!(d[0]["severity"], "warning");
            let message = d[0]["message"].as_str().expect("message");
            assert!(
                message.starts_with(&format!("{what} to `{target}`: not read")),
                "{message}"
            );
        }
        // Human output names them too.
        let o = kifu(&[
            OsStr::new("validate"),
            OsStr::new("--no-progress"),
            path.as_os_str(),
        ]);
        let stdout = String::from_utf8_lossy(&o.stdout);
        assert!(
            stdout.contains(&format!(
                "{}: warning[skipped-entry]: a hard link",
                shown("c.kif")
            )),
            "{stdout}"
        );
    }
}

#[cfg(unix)]
#[test]
fn a_path_that_is_not_utf8_is_read_and_shown_with_escapes() {
    use std::os::unix::ffi::OsStrExt;
    let dir = tempfile::tempdir().expect("tempdir");
    let sub = dir.path().join("sub");
    std::fs::create_dir(&sub).expect("mkdir");
    // Two names that a lossy conversion would show alike (`g\u{FFFD}\u{FFFD}.csa`).
    let names: [&[u8]; 2] = [b"g\xff\x82.csa", b"g\xfe\x80.csa"];
    let game = "V2.2\nPI\n+\n+7776FU\n-3334FU\n+2829HI\n";
    for n in names {
        std::fs::write(sub.join(OsStr::from_bytes(n)), game).expect("write");
    }
    let first = sub.join(OsStr::from_bytes(names[0]));
    let shown = format!("{}/g\\xFF\\x82.csa", sub.display());
    // Named on the command line.
    let (lines, code) = validate_json(&[&first]);
    assert_eq!(code, 1, "the game has a foul");
    assert_eq!(lines.len(), 1);
    assert_eq!(lines[0]["path"].as_str(), Some(shown.as_str()));
    assert_eq!(lines[0]["plies"], 3);
    let o = kifu(&[
        OsStr::new("validate"),
        OsStr::new("--no-progress"),
        first.as_os_str(),
    ]);
    let stdout = String::from_utf8(o.stdout).expect("UTF-8 output");
    assert!(
        stdout.starts_with(&format!("{shown}:6:1: error[")),
        "{stdout}"
    );
    // Found in a directory: shown the same way, and the two names apart.
    let (lines, _) = validate_json(&[&sub]);
    let paths: Vec<&str> = lines.iter().filter_map(|l| l["path"].as_str()).collect();
    assert_eq!(
        paths,
        [format!("{}/g\\xFE\\x80.csa", sub.display()), shown.clone()]
    );
    // Converted: both are read and written (the output names are convert's to choose).
    let out = dir.path().join("out");
    let o = kifu(&[
        OsStr::new("convert"),
        sub.as_os_str(),
        OsStr::new("--to"),
        OsStr::new("kifu"),
        OsStr::new("-o"),
        out.as_os_str(),
    ]);
    let written = std::fs::read_dir(&out)
        .map(|d| d.count())
        .unwrap_or_default();
    assert_eq!(written, 2, "{o:?}");
}

/// `text` in UTF-16 with its BOM, little- or big-endian.
fn utf16(text: &str, be: bool) -> Vec<u8> {
    let mut out = Vec::new();
    for unit in std::iter::once(0xFEFF_u16).chain(text.encode_utf16()) {
        out.extend_from_slice(&if be {
            unit.to_be_bytes()
        } else {
            unit.to_le_bytes()
        });
    }
    out
}

/// A record of each format, with non-ASCII text where the format has some.
const RECORDS: [(&str, &str); 5] = [
    (
        "kif",
        "先手：甲\r\n後手：乙\r\n手数----指手---------消費時間--\r\n   1 ７六歩(77)\r\n   2 ３四歩(33)\r\n   3 ２二角成(88)\r\n   4 同　銀(31)\r\n   5 投了\r\n",
    ),
    (
        "ki2",
        "先手：甲\n▲７六歩 △３四歩\n▲２二角成 △同　銀\nまで4手で後手の勝ち\n",
    ),
    (
        "csa",
        "V2.2\nN+甲\nN-乙\nPI\n+\n+7776FU\n-3334FU\n%TORYO\n/\nPI\n+\n+2726FU\n+8822UM\n",
    ),
    (
        "usi",
        "startpos moves 7g7f 3c3d\nstartpos moves 2g2f 8c8d 2f2e\n",
    ),
    (
        "jkf",
        r#"{"header":{"先手":"甲"},"moves":[{},{"move":{"color":0,"from":{"x":7,"y":7},"to":{"x":7,"y":6},"piece":"FU"}}]}"#,
    ),
];

#[test]
fn utf16_records_with_a_bom_are_decoded() {
    use kifu::formats::{self, Format, ReadOptions, TextEncoding};
    let dir = tempfile::tempdir().expect("tempdir");
    let mut entries = Vec::new();
    for (ext, text) in RECORDS {
        let opts = ReadOptions {
            hint: Format::from_extension(ext),
            ..ReadOptions::default()
        };
        let want = formats::read_bytes(text.as_bytes(), &opts);
        assert!(!want.games.is_empty(), "{ext}");
        let plain = dir.path().join(format!("plain.{ext}"));
        std::fs::write(&plain, text).expect("write");
        let (want_lines, want_code) = validate_json(&[&plain]);
        for (be, enc) in [
            (false, TextEncoding::Utf16Le),
            (true, TextEncoding::Utf16Be),
        ] {
            let bytes = utf16(text, be);
            let got = formats::read_bytes(&bytes, &opts);
            assert_eq!(got.encoding, enc, "{ext}");
            assert_eq!(got.format, want.format, "{ext} {enc:?}");
            assert_eq!(got.games, want.games, "{ext} {enc:?}");
            assert!(got.diagnostics.is_empty(), "{ext} {enc:?}");
            // Through the command line, named and inside archives: the same reports.
            let name = format!("{}.{ext}", enc.name());
            let path = dir.path().join(&name);
            std::fs::write(&path, &bytes).expect("write");
            entries.push((name, bytes, want_lines.clone()));
            let (lines, code) = validate_json(&[&path]);
            assert_eq!(code, want_code, "{ext} {enc:?}");
            assert_eq!(lines.len(), want_lines.len(), "{ext} {enc:?}");
            for (l, w) in lines.iter().zip(&want_lines) {
                let strip = |v: &Value| {
                    let mut v = v.clone();
                    v.as_object_mut().map(|o| o.remove("path"));
                    v
                };
                assert_eq!(strip(l), strip(w), "{ext} {enc:?}");
            }
        }
    }
    let plain: Vec<(String, Vec<u8>)> = entries
        .iter()
        .map(|(n, b, _)| (n.clone(), b.clone()))
        .collect();
    for (i, kind) in archive::KINDS.iter().enumerate() {
        let path = dir.path().join(format!("utf16.{kind}"));
        std::fs::write(&path, archive::archive_of(i, &plain)).expect("write");
        let (lines, _) = validate_json(&[&path]);
        let want: usize = entries.iter().map(|e| e.2.len()).sum();
        assert_eq!(lines.len(), want, "{kind}");
        let mut at = 0;
        for (_, _, want_lines) in &entries {
            for w in want_lines {
                assert_eq!(lines[at]["plies"], w["plies"], "{kind}");
                assert_eq!(lines[at]["diagnostics"], w["diagnostics"], "{kind}");
                assert_eq!(lines[at]["black"], w["black"], "{kind}");
                at += 1;
            }
        }
    }
    // An unpaired surrogate on line 2: an `encoding` error there, of the game on that line;
    // the rest read.
    let mut bytes = utf16("startpos moves 7g7f\nstartpos moves ", false);
    bytes.extend_from_slice(&0xD800_u16.to_le_bytes());
    bytes.extend_from_slice(&utf16(" 2g2f\n", false)[2..]);
    let d = formats::read_bytes(&bytes, &ReadOptions::default());
    assert_eq!(d.encoding, TextEncoding::Utf16Le);
    assert_eq!(d.games.len(), 2);
    assert!(d.games[0].diagnostics.is_empty());
    let e = &d.games[1].diagnostics[0];
    assert_eq!(e.code, kifu::Code::Encoding);
    assert_eq!((e.line, e.column), (Some(2), Some(16)));
    // A BOM and blanks only: an empty input.
    let blank = dir.path().join("blank.csa");
    std::fs::write(&blank, utf16(" \r\n", true)).expect("write");
    let (lines, code) = validate_json(&[&blank]);
    assert_one_empty_input_each(&lines, "UTF-16 blanks");
    assert_eq!((lines.len(), code), (1, 0));
}
