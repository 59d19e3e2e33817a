//! Issue #20 from the command line: a file whose extension names one format and whose content
//! is plainly another (`format-mismatch`), the one-line CSA of the 2chkifu collection, and a
//! zip cut short (its entries read from their local headers up to the damage).

use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::Output;

use serde_json::Value;

use crate::cli_common;
use cli_common::{code, p, parse_lines, run, stderr, stdout};

fn dialects() -> PathBuf {
    crate::common::repo().join("fixtures/dialects")
}

/// The JSON lines of a `validate --format json` run on `paths`.
fn validate_json(extra: &[&str], paths: &[&Path]) -> (Output, Vec<Value>) {
    let mut args = vec!["validate", "--format", "json"];
    args.extend_from_slice(extra);
    args.extend(paths.iter().map(|x| p(x)));
    let o = run(&args);
    let lines = parse_lines(&stdout(&o));
    (o, lines)
}

/// The codes of a game line's diagnostics.
fn codes(line: &Value) -> Vec<String> {
    line["diagnostics"]
        .as_array()
        .expect("diagnostics")
        .iter()
        .map(|d| d["code"].as_str().expect("code").to_owned())
        .collect()
}

/// The game lines (not the summary) of a run.
fn games(lines: &[Value]) -> Vec<&Value> {
    lines.iter().filter(|l| l.get("game").is_some()).collect()
}

#[test]
fn content_plainly_of_another_format_is_read_as_such_with_a_warning() {
    let usi = dialects().join("usi-in.kif");
    let kif = dialects().join("kif-in.csa");
    let (o, lines) = validate_json(&[], &[&usi, &kif]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let g = games(&lines);
    assert_eq!(g.len(), 2, "{lines:?}");
    assert_eq!(g[0]["format"], "usi");
    assert_eq!(g[0]["plies"], 4);
    assert_eq!(codes(g[0]), ["format-mismatch"]);
    let message = g[0]["diagnostics"][0]["message"].as_str().unwrap();
    assert!(
        message.contains("KIF") && message.contains("USI"),
        "{message}"
    );
    assert_eq!(g[0]["diagnostics"][0]["severity"], "warning");
    assert_eq!(g[1]["format"], "kifu");
    assert_eq!(g[1]["plies"], 2);
    assert_eq!(codes(g[1]), ["format-mismatch"]);
    // `--input-format` is obeyed without a word: the USI line is no KIF.
    let (o, lines) = validate_json(&["--input-format", "kif"], &[&usi]);
    assert_eq!(code(&o), 1, "{}", stderr(&o));
    let g = games(&lines);
    assert_eq!(codes(g[0]), ["syntax"]);
    // Converted, the record is whole.
    let o = run(&["convert", "--to", "csa", p(&usi)]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    assert!(
        stdout(&o).contains("+7776FU\n-3334FU\n+8822UM\n-3122GI\n"),
        "{}",
        stdout(&o)
    );
    assert!(stderr(&o).contains("format-mismatch"), "{}", stderr(&o));
}

#[test]
fn the_one_line_csa_of_2chkifu_is_read() {
    let file = dialects().join("2chkifu.csa1");
    let (o, lines) = validate_json(&[], &[&file]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let g = games(&lines);
    let plies: Vec<_> = g.iter().map(|l| l["plies"].as_u64().unwrap()).collect();
    assert_eq!(plies, [5, 4, 2]);
    assert!(g.iter().all(|l| codes(l).is_empty()), "{lines:?}");
    assert!(g.iter().all(|l| l["format"] == "csa"));
    assert_eq!(g[0]["result"]["winner"], "black", "{}", g[0]);
    assert_eq!(g[1]["result"]["winner"], "white", "{}", g[1]);
    // Told by its content under any name.
    let dir = tempfile::tempdir().expect("tempdir");
    let txt = dir.path().join("2chkifu.txt");
    fs::copy(&file, &txt).expect("copy");
    let (o, lines) = validate_json(&[], &[&txt]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    assert_eq!(games(&lines).len(), 3);
    // Converted: names (Shift_JIS in the file), event, opening and the result are kept.
    let o = run(&["convert", "--to", "csa", p(&file)]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let csa = stdout(&o);
    for want in [
        "N+甲田\nN-乙川\n",
        "$EVENT:王位戦\n",
        "$OPENING:角換わり\n",
        "+7776FU\n-3334FU\n+8822UM\n-3122GI\n+0045KA\n%TORYO\n",
        "$OPENING:相掛かり\n",
    ] {
        assert!(csa.contains(want), "{want:?} not in {csa}");
    }
    let o = run(&["convert", "--to", "kifu", p(&file)]);
    assert!(stdout(&o).contains("まで4手で後手の勝ち"), "{}", stdout(&o));
}

/// A zip of `entries`, deflated, as the `zip` crate writes it.
fn zip_of(entries: &[(&str, &str)]) -> Vec<u8> {
    let mut w = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
    for (name, text) in entries {
        let opts = zip::write::SimpleFileOptions::default()
            .compression_method(zip::CompressionMethod::Deflated);
        w.start_file(*name, opts).expect("start");
        w.write_all(text.as_bytes()).expect("write");
    }
    w.finish().expect("finish").into_inner()
}

fn find(hay: &[u8], needle: &[u8]) -> Vec<usize> {
    (0..hay.len().saturating_sub(needle.len()))
        .filter(|&i| hay.get(i..i + needle.len()) == Some(needle))
        .collect()
}

#[test]
fn a_zip_cut_short_gives_the_entries_before_the_damage() {
    let first = "position startpos moves 7g7f 3c3d\n";
    let second = "V2.2\nPI\n+\n+7776FU\n-3334FU\n%TORYO\n";
    let third = "startpos moves 2g2f 8c8d 2f2e\n".repeat(40);
    let zip = zip_of(&[("a/1.usi", first), ("a/2.csa", second), ("a/3.usi", &third)]);
    let locals = find(&zip, b"PK\x03\x04");
    let central = find(&zip, b"PK\x01\x02")[0];
    assert_eq!(locals.len(), 3);
    let dir = tempfile::tempdir().expect("tempdir");
    let cases = [
        // Cut inside the central directory: every entry is whole.
        ("in-directory.zip", central + 20, 3),
        // Cut just before it.
        ("at-directory.zip", central, 3),
        // Cut inside the third entry's data: two entries read, the third reported.
        ("in-entry.zip", locals[2] + 60, 2),
    ];
    for (name, cut, whole) in cases {
        let path = dir.path().join(name);
        fs::write(&path, &zip[..cut]).expect("write");
        let (o, lines) = validate_json(&[], &[&path]);
        assert_eq!(code(&o), 2, "{name}: {}", stderr(&o));
        let mut read: Vec<&str> = games(&lines)
            .iter()
            .filter(|l| codes(l).is_empty())
            .filter_map(|l| l["path"].as_str())
            .collect();
        // One line a game for each game of a USI entry.
        read.dedup();
        let want: Vec<String> = ["a/1.usi", "a/2.csa", "a/3.usi"][..whole]
            .iter()
            .map(|e| format!("{}/{e}", p(&path)))
            .collect();
        assert_eq!(read, want, "{name}: {lines:?}");
        let said = lines.iter().any(|l| {
            l["path"] == p(&path)
                && l["diagnostics"][0]["message"]
                    .as_str()
                    .is_some_and(|m| m.contains("central directory"))
        });
        assert!(said, "{name}: {lines:?}");
        if whole == 2 {
            // The cut entry is reported on its own, not read in part.
            let cut_entry = format!("{}/a/3.usi", p(&path));
            let entry = lines.iter().find(|l| l["path"] == cut_entry.as_str());
            assert!(
                entry.is_some_and(|l| codes(l) == ["io"]),
                "{name}: {lines:?}"
            );
        }
    }
}

/// The local entries of a zip written as a stream writes them: deflated, each with its sizes
/// and CRC-32 in a data descriptor after its data (flag bit 3), and no central directory (the
/// stream was cut before it).
fn streamed_zip_without_directory(entries: &[(&str, &str)]) -> Vec<u8> {
    let mut out = Vec::new();
    for (name, text) in entries {
        let mut enc =
            flate2::write::DeflateEncoder::new(Vec::new(), flate2::Compression::default());
        enc.write_all(text.as_bytes()).expect("deflate");
        let data = enc.finish().expect("deflate");
        let mut crc = flate2::Crc::new();
        crc.update(text.as_bytes());
        out.extend_from_slice(b"PK\x03\x04");
        out.extend_from_slice(&20u16.to_le_bytes()); // version
        out.extend_from_slice(&8u16.to_le_bytes()); // flags: data descriptor
        out.extend_from_slice(&8u16.to_le_bytes()); // deflate
        out.extend_from_slice(&[0; 4]); // time, date
        out.extend_from_slice(&[0; 12]); // CRC and sizes: in the descriptor
        out.extend_from_slice(&(name.len() as u16).to_le_bytes());
        out.extend_from_slice(&0u16.to_le_bytes());
        out.extend_from_slice(name.as_bytes());
        out.extend_from_slice(&data);
        out.extend_from_slice(b"PK\x07\x08");
        out.extend_from_slice(&crc.sum().to_le_bytes());
        out.extend_from_slice(&(data.len() as u32).to_le_bytes());
        out.extend_from_slice(&(text.len() as u32).to_le_bytes());
    }
    out
}

#[test]
fn a_streamed_zip_cut_before_its_directory_gives_every_entry() {
    let entries = [
        ("1.usi", "position startpos moves 7g7f 3c3d\n"),
        ("2.csa", "V2.2\nPI\n+\n+7776FU\n-3334FU\n%TORYO\n"),
    ];
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("streamed.zip");
    fs::write(&path, streamed_zip_without_directory(&entries)).expect("write");
    let (o, lines) = validate_json(&[], &[&path]);
    assert_eq!(code(&o), 2, "{}", stderr(&o));
    let g = games(&lines);
    let clean: Vec<_> = g
        .iter()
        .filter(|l| codes(l).is_empty())
        .filter_map(|l| l["path"].as_str())
        .collect();
    assert_eq!(
        clean,
        [format!("{}/1.usi", p(&path)), format!("{}/2.csa", p(&path))],
        "{lines:?}"
    );
    assert_eq!(g[1]["plies"], 2);
}
