//! Integration tests that run the `kifu` binary on the fixtures and on inputs built here.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use serde_json::Value;

use crate::cli_common;
use cli_common::{code, fixtures, parse_lines, stderr, stdout};

fn kifu() -> Command {
    Command::new(env!("CARGO_BIN_EXE_kifu"))
}

fn run(args: &[&str]) -> Output {
    kifu()
        .args(args)
        .stdin(Stdio::null())
        .output()
        .expect("run kifu")
}

fn run_stdin(args: &[&str], input: &[u8]) -> Output {
    let mut child = kifu()
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn kifu");
    let mut stdin = child.stdin.take().expect("stdin");
    let input = input.to_vec();
    let writer = std::thread::spawn(move || {
        let _ = stdin.write_all(&input);
    });
    let out = child.wait_with_output().expect("wait");
    writer.join().expect("writer");
    out
}

fn json_lines(o: &Output) -> Vec<Value> {
    parse_lines(&stdout(o))
}

/// The codes of every diagnostic in a JSON Lines run, per path.
fn codes_by_path(lines: &[Value]) -> BTreeMap<String, BTreeSet<String>> {
    let mut out: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for l in lines {
        let Some(path) = l.get("path").and_then(Value::as_str) else {
            continue;
        };
        let entry = out.entry(path.to_owned()).or_default();
        for d in l["diagnostics"].as_array().expect("diagnostics array") {
            entry.insert(d["code"].as_str().expect("code").to_owned());
        }
    }
    out
}

fn p(path: &Path) -> &str {
    path.to_str().expect("utf-8 path")
}

#[test]
fn legal_fixtures_validate_clean() {
    let dir = fixtures().join("ok");
    let o = run(&["validate", "--format", "json", p(&dir)]);
    assert_eq!(
        code(&o),
        0,
        "stdout: {}\nstderr: {}",
        stdout(&o),
        stderr(&o)
    );
    let lines = json_lines(&o);
    let games: Vec<_> = lines.iter().filter(|l| l.get("game").is_some()).collect();
    // mate.csa 1, games.usi 3, interrupted.ki2u 1, resign.kif 1, sennichite.kifu 1.
    assert_eq!(games.len(), 7, "{lines:#?}");
    for g in &games {
        assert_eq!(g["diagnostics"], Value::Array(vec![]), "{g}");
    }
    let resign = games
        .iter()
        .find(|g| {
            g["path"]
                .as_str()
                .is_some_and(|s| s.ends_with("resign.kif"))
        })
        .expect("resign.kif");
    assert_eq!(resign["plies"], 4);
    assert_eq!(resign["result"]["recorded"], "TORYO");
    assert_eq!(resign["result"]["winner"], "white");
    assert_eq!(resign["format"], "kif");
    let mate = games
        .iter()
        .find(|g| g["path"].as_str().is_some_and(|s| s.ends_with("mate.csa")))
        .expect("mate.csa");
    assert_eq!(mate["result"]["recorded"], "TSUMI");
    assert_eq!(mate["result"]["winner"], "black");
    let usi: Vec<_> = games
        .iter()
        .filter(|g| g["path"].as_str().is_some_and(|s| s.ends_with("games.usi")))
        .map(|g| g["game"].as_u64().expect("game index"))
        .collect();
    assert_eq!(usi, vec![0, 1, 2]);
    let sum = lines.last().expect("summary")["summary"].clone();
    assert_eq!(sum["errors"], 0);
    assert_eq!(sum["games"], 7);
}

#[test]
fn each_foul_fixture_gives_its_codes() {
    let expected: &[(&str, &[&str])] = &[
        ("nifu.kifu", &["nifu"]),
        ("uchifuzume.csa", &["uchifuzume"]),
        ("dead-piece.csa", &["dead-piece"]),
        ("self-check.csa", &["self-check"]),
        ("bad-position.csa", &["bad-position"]),
        ("move-after-end.csa", &["move-after-end", "self-check"]),
        ("result-mismatch.kifu", &["result-mismatch"]),
        ("sennichite-early.kifu", &["result-mismatch"]),
        ("time-mismatch.kifu", &["time-mismatch"]),
        ("move-number.kifu", &["move-number"]),
    ];
    for (file, codes) in expected {
        let path = fixtures().join("fouls").join(file);
        let o = run(&["validate", "--format", "json", p(&path)]);
        let lines = json_lines(&o);
        let got: BTreeSet<String> = codes_by_path(&lines).into_values().flatten().collect();
        let want: BTreeSet<String> = codes.iter().map(|s| s.to_string()).collect();
        assert_eq!(got, want, "{file}: {}", stdout(&o));
        let warnings_only = codes
            .iter()
            .all(|c| *c == "time-mismatch" || *c == "move-number");
        assert_eq!(code(&o), if warnings_only { 0 } else { 1 }, "{file}");
    }
}

/// fixtures/validate/endings: every ending family of issue #19, scored rightly and wrongly;
/// each file gives these findings (code, ply) and this winner.
#[test]
fn each_ending_fixture_gives_its_verdict() {
    type Case = (
        &'static str,
        &'static [(&'static str, u64)],
        Option<&'static str>,
    );
    let expected: &[Case] = &[
        ("foul-claim-unlogged.csa", &[], Some("black")),
        (
            "foul-then-other-resigns.csa",
            &[("nifu", 1), ("result-mismatch", 4)],
            Some("black"),
        ),
        (
            "foul-then-other-resigns.kifu",
            &[("nifu", 1), ("result-mismatch", 4)],
            Some("black"),
        ),
        (
            "move-after-toryo.csa",
            &[("move-after-end", 3)],
            Some("black"),
        ),
        (
            "oute-sennichite-without-repetition.csa",
            &[("result-mismatch", 2)],
            None,
        ),
        ("oute-sennichite.csa", &[], Some("white")),
        (
            "perpetual-check-as-draw.csa",
            &[("result-mismatch", 13)],
            Some("draw"),
        ),
        (
            "perpetual-check-as-draw.kifu",
            &[("result-mismatch", 13)],
            Some("draw"),
        ),
        ("perpetual-check-foul.csa", &[], Some("white")),
        ("perpetual-check-foul.kifu", &[], Some("white")),
        (
            "perpetual-check-wrong-side.csa",
            &[("result-mismatch", 13)],
            Some("black"),
        ),
        (
            "repetition-and-one-more.csa",
            &[("move-after-end", 13)],
            Some("draw"),
        ),
        (
            "repetition-then-toryo.csa",
            &[("result-mismatch", 13)],
            Some("white"),
        ),
        (
            "repetition-then-toryo.kifu",
            &[("result-mismatch", 13)],
            Some("white"),
        ),
        ("server-time-up.csa", &[], Some("white")),
        ("unknown-ending.csa", &[("unknown-ending", 2)], None),
    ];
    let dir = fixtures().join("endings");
    let on_disk = std::fs::read_dir(&dir).expect("endings").count();
    assert_eq!(
        on_disk,
        expected.len(),
        "every ending fixture has its expectation"
    );
    for (file, findings, winner) in expected {
        let o = run(&["validate", "--format", "json", p(&dir.join(file))]);
        let lines = json_lines(&o);
        let game = &lines[0];
        let got: Vec<(String, u64)> = game["diagnostics"]
            .as_array()
            .expect("diagnostics")
            .iter()
            .map(|d| {
                let code = d["code"].as_str().expect("code").to_owned();
                (code, d["ply"].as_u64().expect("ply"))
            })
            .collect();
        let want: Vec<(String, u64)> = findings.iter().map(|(c, p)| (c.to_string(), *p)).collect();
        assert_eq!(got, want, "{file}: {}", stdout(&o));
        assert_eq!(game["result"]["winner"].as_str(), *winner, "{file}");
        let errors = findings.iter().any(|(c, _)| *c != "unknown-ending");
        assert_eq!(code(&o), i32::from(errors), "{file}");
    }
}

#[test]
fn human_output_is_compiler_style() {
    let path = fixtures().join("fouls/nifu.kifu");
    let o = run(&["validate", p(&path)]);
    assert_eq!(code(&o), 1);
    let out = stdout(&o);
    let first = out.lines().next().expect("a line");
    let prefix = format!("{}:", p(&path));
    assert!(first.starts_with(&prefix), "{first}");
    assert!(first.contains(": error[nifu]: "), "{first}");
    assert!(first.contains("(ply 9, ７四歩打)"), "{first}");
    // line 16: 7 header lines, the separator, then ply 9 is the 9th move line.
    assert!(first.starts_with(&format!("{}:16:", p(&path))), "{first}");
    let last = out.lines().last().expect("summary");
    assert!(
        last.contains("1 games") && last.contains("1 errors"),
        "{last}"
    );
}

#[test]
fn json_lines_follow_the_contract() {
    let o = run(&["validate", "--format", "json", p(&fixtures())]);
    assert_eq!(code(&o), 1);
    let lines = json_lines(&o);
    let (summary, games) = lines.split_last().expect("lines");
    let mut errors = 0;
    let mut warnings = 0;
    let mut plies = 0;
    let mut by_code: BTreeMap<String, u64> = BTreeMap::new();
    let mut files = BTreeSet::new();
    for g in games {
        let obj = g.as_object().expect("object");
        for key in ["path", "game", "format", "plies", "result", "diagnostics"] {
            assert!(obj.contains_key(key), "missing {key} in {g}");
        }
        files.insert(g["path"].as_str().expect("path").to_owned());
        assert!(g["game"].is_u64() || g["game"].is_null());
        plies += g["plies"].as_u64().expect("plies");
        let r = g["result"].as_object().expect("result");
        assert!(r.contains_key("recorded") && r.contains_key("winner"));
        for d in g["diagnostics"].as_array().expect("array") {
            let code = d["code"].as_str().expect("code");
            assert!(kifu::Code::from_name(code).is_some(), "unknown code {code}");
            match d["severity"].as_str() {
                Some("error") => errors += 1,
                Some("warning") => warnings += 1,
                other => panic!("severity {other:?}"),
            }
            assert!(d["message"].is_string());
            for k in ["line", "column", "ply"] {
                if let Some(v) = d.get(k) {
                    assert!(v.as_u64().is_some_and(|n| n >= 1), "{k} in {d}");
                }
            }
            *by_code.entry(code.to_owned()).or_default() += 1;
        }
    }
    let s = &summary["summary"];
    assert_eq!(
        s["games"].as_u64(),
        Some(games.iter().filter(|g| g["game"].is_u64()).count() as u64)
    );
    assert_eq!(s["files"].as_u64(), Some(files.len() as u64));
    assert_eq!(s["plies"].as_u64(), Some(plies));
    assert_eq!(s["errors"].as_u64(), Some(errors));
    assert_eq!(s["warnings"].as_u64(), Some(warnings));
    let got: BTreeMap<String, u64> = serde_json::from_value(s["by_code"].clone()).expect("by_code");
    assert_eq!(got, by_code);
}

#[test]
fn usage_errors_and_missing_inputs_exit_2() {
    assert_eq!(code(&run(&["validate", "--no-such-flag"])), 2);
    assert_eq!(code(&run(&["frobnicate"])), 2);
    assert_eq!(code(&run(&["validate", "--format", "xml", "x"])), 2);
    let o = run(&[
        "validate",
        "--format",
        "json",
        "/no/such/file.kif",
        p(&fixtures().join("ok/mate.csa")),
    ]);
    assert_eq!(code(&o), 2);
    let lines = json_lines(&o);
    assert_eq!(lines[0]["game"], Value::Null);
    assert_eq!(lines[0]["diagnostics"][0]["code"], "io");
    // The run went on with the next input.
    assert!(
        lines[1]["path"]
            .as_str()
            .is_some_and(|s| s.ends_with("mate.csa"))
    );
}

/// Every fixture file under `fixtures/validate`, as (relative name, bytes).
fn fixture_files() -> Vec<(String, Vec<u8>)> {
    let mut out = Vec::new();
    // Every folder of fixtures/validate (ok, fouls, endings, clock, ...).
    let mut subs: Vec<String> = fs::read_dir(fixtures())
        .expect("read_dir")
        .map(|e| e.expect("entry"))
        .filter(|e| e.path().is_dir())
        .map(|e| e.file_name().into_string().expect("name"))
        .collect();
    subs.sort();
    for sub in &subs {
        let mut names: Vec<_> = fs::read_dir(fixtures().join(sub))
            .expect("read_dir")
            .map(|e| e.expect("entry").file_name().into_string().expect("name"))
            .collect();
        names.sort();
        for n in names {
            let bytes = fs::read(fixtures().join(sub).join(&n)).expect("read");
            out.push((format!("{sub}/{n}"), bytes));
        }
    }
    out
}

/// (file name, code, line, ply) of every diagnostic, keyed by the part of the path after `sep`.
fn findings(lines: &[Value], sep: &str) -> BTreeSet<(String, String, u64, u64)> {
    let mut out = BTreeSet::new();
    for l in lines {
        let Some(path) = l["path"].as_str() else {
            continue;
        };
        let name = path
            .rsplit_once(sep)
            .map(|x| x.1)
            .unwrap_or(path)
            .to_owned();
        for d in l["diagnostics"].as_array().expect("array") {
            out.insert((
                name.clone(),
                d["code"].as_str().expect("code").to_owned(),
                d["line"].as_u64().unwrap_or(0),
                d["ply"].as_u64().unwrap_or(0),
            ));
        }
    }
    out
}

#[test]
fn zip_tar_and_targz_inputs_match_plain_files() {
    let dir = tempfile::tempdir().expect("tempdir");
    let files = fixture_files();
    // zip
    let zip_path = dir.path().join("set.zip");
    {
        let f = fs::File::create(&zip_path).expect("create");
        let mut z = zip::ZipWriter::new(f);
        let opts = zip::write::SimpleFileOptions::default()
            .compression_method(zip::CompressionMethod::Deflated);
        z.add_directory("inner/", opts).expect("dir");
        for (name, bytes) in &files {
            z.start_file(format!("inner/{name}"), opts).expect("start");
            z.write_all(bytes).expect("write");
        }
        z.start_file("inner/readme.txt", opts).expect("start");
        z.write_all(b"not a record").expect("write");
        z.finish().expect("finish");
    }
    // tar and tar.gz
    let tar_bytes = {
        let mut b = tar::Builder::new(Vec::new());
        for (name, bytes) in &files {
            let mut h = tar::Header::new_gnu();
            h.set_size(bytes.len() as u64);
            h.set_mode(0o644);
            h.set_cksum();
            b.append_data(&mut h, format!("inner/{name}"), &bytes[..])
                .expect("append");
        }
        b.into_inner().expect("tar")
    };
    fs::write(dir.path().join("set.tar"), &tar_bytes).expect("write tar");
    {
        let f = fs::File::create(dir.path().join("set.tar.gz")).expect("create");
        let mut gz = flate2::write::GzEncoder::new(f, flate2::Compression::fast());
        gz.write_all(&tar_bytes).expect("gz");
        gz.finish().expect("finish");
    }
    let plain = run(&["validate", "--format", "json", p(&fixtures())]);
    let want = findings(&json_lines(&plain), "fixtures/validate/");
    assert!(!want.is_empty());
    for name in ["set.zip", "set.tar", "set.tar.gz"] {
        let path = dir.path().join(name);
        let o = run(&["validate", "--format", "json", p(&path)]);
        assert_eq!(code(&o), 1, "{name}: {}", stderr(&o));
        let lines = json_lines(&o);
        let first = lines[0]["path"].as_str().expect("path");
        assert!(
            first.starts_with(&format!("{}/inner/", p(&path))),
            "{name}: {first}"
        );
        assert_eq!(findings(&lines, "/inner/"), want, "{name}");
        let s = &lines.last().expect("summary")["summary"];
        assert_eq!(s["files"].as_u64(), Some(files.len() as u64), "{name}");
    }
}

#[test]
fn standard_input_is_read() {
    let text = fs::read(fixtures().join("ok/games.usi")).expect("read");
    for args in [
        &["validate", "--format", "json", "-"][..],
        &["validate", "--format", "json"][..],
    ] {
        let o = run_stdin(args, &text);
        assert_eq!(code(&o), 0, "{}", stderr(&o));
        let lines = json_lines(&o);
        assert_eq!(lines.len(), 4);
        assert_eq!(lines[0]["path"], "<stdin>");
        assert_eq!(lines[0]["format"], "usi");
        assert_eq!(lines[2]["game"], 2);
    }
    let nifu = fs::read(fixtures().join("fouls/nifu.kifu")).expect("read");
    let o = run_stdin(&["validate", "-"], &nifu);
    assert_eq!(code(&o), 1);
    assert!(stdout(&o).starts_with("<stdin>:16:"), "{}", stdout(&o));
}

#[test]
fn directories_are_searched_recursively() {
    let dir = tempfile::tempdir().expect("tempdir");
    let deep = dir.path().join("a/b/c");
    fs::create_dir_all(&deep).expect("mkdir");
    fs::copy(fixtures().join("ok/mate.csa"), deep.join("m.csa")).expect("copy");
    fs::copy(
        fixtures().join("fouls/nifu.kifu"),
        dir.path().join("a/n.kifu"),
    )
    .expect("copy");
    fs::write(dir.path().join("a/notes.txt"), "ignored").expect("write");
    let o = run(&["validate", "--format", "json", p(dir.path())]);
    let lines = json_lines(&o);
    let paths: Vec<&str> = lines.iter().filter_map(|l| l["path"].as_str()).collect();
    assert_eq!(paths.len(), 2, "{paths:?}");
    // Sorted by name at each level: a/b/... before a/n.kifu.
    assert!(paths[0].ends_with("a/b/c/m.csa"), "{paths:?}");
    assert!(paths[1].ends_with("a/n.kifu"), "{paths:?}");
    #[cfg(unix)]
    {
        // A symbolic link back up the tree does not loop.
        std::os::unix::fs::symlink(dir.path().join("a"), deep.join("loop")).expect("symlink");
        let o = run(&["validate", "--format", "json", p(dir.path())]);
        let n = json_lines(&o)
            .iter()
            .filter(|l| l["path"].is_string())
            .count();
        assert_eq!(n, 2);
    }
}

/// A directory with many small files and one large multi-game CSA file.
fn many_games(dir: &Path) {
    let files = fixture_files();
    for i in 0..40 {
        for (name, bytes) in &files {
            let path = dir.join(format!("{i:02}")).join(name);
            fs::create_dir_all(path.parent().expect("parent")).expect("mkdir");
            fs::write(path, bytes).expect("write");
        }
    }
    let game = fs::read_to_string(fixtures().join("ok/mate.csa")).expect("read");
    let bad = fs::read_to_string(fixtures().join("fouls/uchifuzume.csa")).expect("read");
    let mut big = String::new();
    for i in 0..6000 {
        if i > 0 {
            big.push_str("/\n");
        }
        big.push_str(if i % 97 == 0 { &bad } else { &game });
    }
    fs::write(dir.join("big.csa"), big).expect("write");
}

#[test]
fn output_order_does_not_depend_on_jobs() {
    let dir = tempfile::tempdir().expect("tempdir");
    many_games(dir.path());
    let a = run(&["validate", "--format", "json", "-j1", p(dir.path())]);
    let b = run(&["validate", "--format", "json", "-j2", p(dir.path())]);
    let c = run(&["validate", "-j", "4", p(dir.path())]);
    let d = run(&["validate", "-j", "1", p(dir.path())]);
    assert_eq!(code(&a), 1);
    assert!(a.stdout == b.stdout, "-j1 and -j2 differ");
    assert!(c.stdout == d.stdout, "-j4 and -j1 differ (human)");
    let lines = json_lines(&a);
    let big: Vec<u64> = lines
        .iter()
        .filter(|l| l["path"].as_str().is_some_and(|s| s.ends_with("big.csa")))
        .map(|l| l["game"].as_u64().expect("game"))
        .collect();
    assert_eq!(big, (0..6000).collect::<Vec<_>>());
    // Line numbers in later chunks count from the start of the file (13 lines per game + `/`).
    let foul = lines
        .iter()
        .find(|l| l["path"].as_str().is_some_and(|s| s.ends_with("big.csa")) && l["game"] == 5820)
        .expect("game 5820");
    assert_eq!(foul["diagnostics"][0]["code"], "uchifuzume");
    let per_game = fs::read_to_string(fixtures().join("ok/mate.csa"))
        .expect("read")
        .lines()
        .count() as u64
        + 1;
    let line_in_game = 16; // the `+0012FU` line of uchifuzume.csa
    assert_eq!(
        foul["diagnostics"][0]["line"].as_u64(),
        Some(5820 * per_game + line_in_game)
    );
}

#[test]
fn a_closed_stdout_pipe_ends_the_run_quietly() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut text = String::new();
    for _ in 0..200_000 {
        text.push_str("startpos moves 7g7f 3c3d 8h2b+ 3a2b\n");
    }
    let path = dir.path().join("many.usi");
    fs::write(&path, text).expect("write");
    let mut child = kifu()
        .args(["validate", "--format", "json", p(&path)])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn");
    let mut out = child.stdout.take().expect("stdout");
    let mut buf = [0u8; 256];
    out.read_exact(&mut buf).expect("read some");
    drop(out);
    let o = child.wait_with_output().expect("wait");
    let err = stderr(&o);
    assert!(!err.contains("panicked"), "{err}");
    assert_eq!(o.status.code(), Some(0), "{err}");
}

#[test]
fn convert_writes_stdout_for_one_input() {
    let o = run(&[
        "convert",
        "--to",
        "csa",
        p(&fixtures().join("ok/games.usi")),
    ]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let out = stdout(&o);
    assert_eq!(out.lines().filter(|l| l.trim() == "/").count(), 2, "{out}");
    assert!(out.contains("+7776FU"), "{out}");
    let o = run(&[
        "convert",
        "--to",
        "usi",
        p(&fixtures().join("ok/resign.kif")),
    ]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    assert!(stdout(&o).contains("7g7f 3c3d 2g2f 8c8d"), "{}", stdout(&o));
}

#[test]
fn convert_mirrors_a_tree_into_a_directory() {
    let out = tempfile::tempdir().expect("tempdir");
    let o = run(&[
        "convert",
        "--to",
        "kifu",
        "-o",
        p(out.path()),
        p(&fixtures().join("ok")),
    ]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    for name in [
        "mate.kifu",
        "resign.kifu",
        "sennichite.kifu",
        "interrupted.kifu",
        "games-0.kifu",
        "games-1.kifu",
        "games-2.kifu",
    ] {
        assert!(out.path().join(name).is_file(), "{name} missing");
    }
    // No temporary file is left behind.
    for e in fs::read_dir(out.path()).expect("read_dir") {
        let n = e.expect("entry").file_name().into_string().expect("name");
        assert!(!n.starts_with(".kifu-"), "{n}");
    }
    // Several inputs without -o is a usage error.
    let o = run(&["convert", "--to", "csa", p(&fixtures().join("ok"))]);
    assert_eq!(code(&o), 2);
}

#[test]
fn convert_never_overwrites_an_input() {
    let dir = tempfile::tempdir().expect("tempdir");
    let input = dir.path().join("mate.csa");
    fs::copy(fixtures().join("ok/mate.csa"), &input).expect("copy");
    let before = fs::read(&input).expect("read");
    // The input directory as the output directory: refused as a whole (a rerun would read
    // the outputs as inputs), before anything is written.
    let o = run(&["convert", "--to", "csa", "-o", p(dir.path()), p(dir.path())]);
    assert_eq!(code(&o), 2, "{}", stderr(&o));
    assert!(
        stderr(&o).contains("is an input directory"),
        "{}",
        stderr(&o)
    );
    assert_eq!(fs::read(&input).expect("read"), before);
    // An output directory that holds an input by another route (the input named as a file):
    // that one output is refused.
    let o = run(&["convert", "--to", "csa", "-o", p(dir.path()), p(&input)]);
    assert_eq!(code(&o), 2, "{}", stderr(&o));
    assert!(
        stderr(&o).contains("refusing to overwrite an input")
            || stderr(&o).contains("names a file"),
        "{}",
        stderr(&o)
    );
    assert_eq!(fs::read(&input).expect("read"), before);
    // A single input named as its own output.
    let o = run(&["convert", "--to", "csa", "-o", p(&input), p(&input)]);
    assert_eq!(code(&o), 2, "{}", stderr(&o));
    assert_eq!(fs::read(&input).expect("read"), before);
}

#[test]
fn convert_refuses_archive_names_that_escape() {
    let dir = tempfile::tempdir().expect("tempdir");
    let zip_path = dir.path().join("evil.zip");
    {
        let f = fs::File::create(&zip_path).expect("create");
        let mut z = zip::ZipWriter::new(f);
        let opts = zip::write::SimpleFileOptions::default();
        let game = fs::read(fixtures().join("ok/mate.csa")).expect("read");
        z.start_file("../escaped.csa", opts).expect("start");
        z.write_all(&game).expect("write");
        z.start_file("fine/kept.csa", opts).expect("start");
        z.write_all(&game).expect("write");
        z.finish().expect("finish");
    }
    let out = dir.path().join("out");
    let o = run(&["convert", "--to", "kifu", "-o", p(&out), p(&zip_path)]);
    assert_eq!(code(&o), 2, "{}", stderr(&o));
    assert!(!dir.path().join("escaped.kifu").exists());
    assert!(out.join("fine/kept.kifu").is_file());
}

#[test]
fn stats_reports_the_contract_keys() {
    let o = run(&["stats", "--format", "json", p(&fixtures().join("ok"))]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let v: Value = serde_json::from_str(stdout(&o).trim()).expect("json");
    for key in [
        "games",
        "plies",
        "results",
        "endings",
        "lengths",
        "openings",
        "players",
        "fouls",
        "duplicates",
    ] {
        assert!(v.get(key).is_some(), "missing {key}");
    }
    assert_eq!(v["games"], 7);
    // resign.kif and the second game of games.usi end in resignation (White wins both);
    // mate.csa is Black's; the repetition is a draw; the rest have no result.
    assert_eq!(v["endings"]["TORYO"], 2);
    assert_eq!(v["endings"]["TSUMI"], 1);
    assert_eq!(v["endings"]["SENNICHITE"], 1);
    assert_eq!(v["results"]["white"], 2);
    assert_eq!(v["results"]["black"], 1);
    assert_eq!(v["results"]["draw"], 1);
    assert_eq!(v["results"]["other"], 3);
    assert_eq!(v["lengths"]["max"], 12);
    let csv = run(&["stats", "--format", "csv", p(&fixtures().join("ok"))]);
    assert!(stdout(&csv).starts_with("section,key,value,"));
    let human = run(&["stats", p(&fixtures().join("ok"))]);
    assert!(stdout(&human).contains("games: 7"), "{}", stdout(&human));
}

#[test]
fn perft_counts() {
    let o = run(&["perft", "3"]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    assert_eq!(stdout(&o).trim(), "25470");
    let o = run(&["perft", "1", "--divide"]);
    let out = stdout(&o);
    assert_eq!(out.lines().filter(|l| l.contains(':')).count(), 30, "{out}");
    let o = run(&["perft", "1", "--sfen", "4k4/9/4P4/9/9/9/9/9/4K4 b G 1"]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
}

#[test]
fn archive_entries_have_bounded_expansion() {
    let dir = tempfile::tempdir().expect("tempdir");
    let zip_path = dir.path().join("bomb.zip");
    {
        let f = fs::File::create(&zip_path).expect("create");
        let mut z = zip::ZipWriter::new(f);
        let opts = zip::write::SimpleFileOptions::default()
            .compression_method(zip::CompressionMethod::Deflated);
        z.start_file("zeros.kif", opts).expect("start");
        z.write_all(&vec![b' '; 4 << 20]).expect("write");
        z.start_file("after.csa", opts).expect("start");
        z.write_all(&fs::read(fixtures().join("ok/mate.csa")).expect("read"))
            .expect("write");
        z.finish().expect("finish");
    }
    assert!(fs::metadata(&zip_path).expect("meta").len() < 100_000);
    let o = run(&[
        "validate",
        "--format",
        "json",
        "--max-entry-bytes",
        "1000000",
        p(&zip_path),
    ]);
    assert_eq!(code(&o), 2, "{}", stderr(&o));
    let lines = json_lines(&o);
    assert_eq!(lines[0]["game"], Value::Null);
    assert_eq!(lines[0]["diagnostics"][0]["code"], "io");
    assert!(
        lines[0]["diagnostics"][0]["message"]
            .as_str()
            .is_some_and(|m| m.contains("limit")),
        "{}",
        lines[0]
    );
    // The next entry is still read.
    assert!(
        lines[1]["path"]
            .as_str()
            .is_some_and(|s| s.ends_with("after.csa"))
    );
}

#[test]
fn convert_keeps_outputs_apart_when_names_collide() {
    let dir = tempfile::tempdir().expect("tempdir");
    let input = dir.path().join("in");
    fs::create_dir_all(&input).expect("mkdir");
    fs::copy(fixtures().join("ok/mate.csa"), input.join("a.csa")).expect("copy");
    fs::write(input.join("a.usi"), "startpos moves 7g7f\n").expect("write");
    let out = dir.path().join("out");
    let o = run(&["convert", "--to", "kifu", "-o", p(&out), p(&input)]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let a = fs::read_to_string(out.join("a.csa.kifu")).expect("a.csa.kifu");
    let b = fs::read_to_string(out.join("a.usi.kifu")).expect("a.usi.kifu");
    assert!(a.contains("５二金打"), "{a}");
    assert!(b.contains("７六歩(77)"), "{b}");
}

#[test]
fn a_large_multi_game_stream_on_stdin_keeps_indices_and_lines() {
    let mut text = String::new();
    for i in 0..20_000 {
        if i == 12_345 {
            text.push_str("startpos moves 7g7f 3c3d 7f7e 7e7d\n");
        } else {
            text.push_str("startpos moves 7g7f 3c3d 2g2f\n");
        }
    }
    let o = run_stdin(&["validate", "--format", "json"], text.as_bytes());
    assert_eq!(code(&o), 1, "{}", stderr(&o));
    let lines = json_lines(&o);
    assert_eq!(lines.len(), 20_001);
    assert_eq!(lines[19_999]["game"], 19_999);
    let bad = &lines[12_345];
    assert_eq!(bad["game"], 12_345);
    // 7e7d is played on White's turn: no White piece on 7e.
    assert_eq!(bad["diagnostics"][0]["code"], "no-piece");
    assert_eq!(bad["diagnostics"][0]["line"], 12_346);
    assert_eq!(bad["diagnostics"][0]["ply"], 4);
}

#[cfg(unix)]
#[test]
fn convert_does_not_write_through_symbolic_links_in_the_output_tree() {
    let dir = tempfile::tempdir().expect("tempdir");
    let input = dir.path().join("in/sub");
    fs::create_dir_all(&input).expect("mkdir");
    fs::copy(fixtures().join("ok/mate.csa"), input.join("a.csa")).expect("copy");
    let outside = dir.path().join("outside");
    fs::create_dir_all(&outside).expect("mkdir");
    let out = dir.path().join("out");
    fs::create_dir_all(&out).expect("mkdir");
    std::os::unix::fs::symlink(&outside, out.join("sub")).expect("symlink");
    let o = run(&[
        "convert",
        "--to",
        "kifu",
        "-o",
        p(&out),
        p(&dir.path().join("in")),
    ]);
    assert_eq!(code(&o), 2, "{}", stderr(&o));
    assert!(stderr(&o).contains("symbolic link"), "{}", stderr(&o));
    assert_eq!(fs::read_dir(&outside).expect("read_dir").count(), 0);
}

#[test]
fn convert_into_a_directory_inside_the_input_does_not_feed_on_itself() {
    let dir = tempfile::tempdir().expect("tempdir");
    let input = dir.path().join("in");
    fs::create_dir_all(input.join("sub")).expect("mkdir");
    fs::copy(fixtures().join("ok/mate.csa"), input.join("sub/a.csa")).expect("copy");
    let out = input.join("out");
    for round in 0..2 {
        let o = run(&[
            "convert",
            "--to",
            "csa",
            "--force",
            "-o",
            p(&out),
            p(&input),
        ]);
        assert_eq!(code(&o), 0, "round {round}: {}", stderr(&o));
        assert!(out.join("sub/a.csa").is_file());
        assert!(
            !out.join("out").exists(),
            "round {round}: outputs were read back"
        );
    }
    // Next to the inputs: the output would replace an input, which is refused.
    let o = run(&["convert", "--to", "csa", "-o", p(&input), p(&input)]);
    assert_eq!(code(&o), 2, "{}", stderr(&o));
}

#[cfg(unix)]
#[test]
fn converted_files_get_the_usual_mode_not_the_temporary_files() {
    use std::os::unix::fs::PermissionsExt;
    let umask = Command::new("sh")
        .args(["-c", "umask"])
        .output()
        .expect("sh");
    let umask = u32::from_str_radix(String::from_utf8_lossy(&umask.stdout).trim(), 8)
        .expect("umask is octal");
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    let o = run(&[
        "convert",
        p(&fixtures().join("ok")),
        "--to",
        "csa",
        "-o",
        p(&out),
    ]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let mut seen = 0;
    for e in walkdir::WalkDir::new(&out) {
        let e = e.unwrap();
        if e.file_type().is_file() {
            let mode = e.metadata().unwrap().permissions().mode() & 0o777;
            assert_eq!(mode, 0o666 & !umask, "{}", e.path().display());
            seen += 1;
        }
    }
    assert!(seen > 0);
}

#[test]
fn allow_and_deny_set_the_severity_of_a_code() {
    let nifu = fixtures().join("fouls/nifu.kifu");
    let o = run(&["validate", "--format", "json", "--allow", "nifu", p(&nifu)]);
    assert_eq!(code(&o), 0, "{}", stdout(&o));
    let lines = json_lines(&o);
    assert_eq!(lines[0]["diagnostics"][0]["code"], "nifu");
    assert_eq!(lines[0]["diagnostics"][0]["severity"], "warning");
    assert_eq!(lines.last().expect("summary")["summary"]["errors"], 0);
    let times = fixtures().join("fouls/time-mismatch.kifu");
    assert_eq!(code(&run(&["validate", p(&times)])), 0);
    let o = run(&["validate", "--deny", "time-mismatch,move-number", p(&times)]);
    assert_eq!(code(&o), 1, "{}", stdout(&o));
    assert!(
        stdout(&o).contains("error[time-mismatch]"),
        "{}",
        stdout(&o)
    );
    // `--deny` wins over `--allow`; an unknown code is a usage error.
    let o = run(&["validate", "--allow", "nifu", "--deny", "nifu", p(&nifu)]);
    assert_eq!(code(&o), 1);
    let o = run(&["validate", "--allow", "no-such-code", p(&nifu)]);
    assert_eq!(code(&o), 2);
    assert!(
        stderr(&o).contains("unknown code `no-such-code`"),
        "{}",
        stderr(&o)
    );
}

#[test]
fn quiet_json_has_the_games_with_errors_and_the_whole_summary() {
    let o = run(&["validate", "--format", "json", "-q", p(&fixtures())]);
    let lines = json_lines(&o);
    let (games, summary) = lines.split_at(lines.len() - 1);
    assert!(!games.is_empty());
    for g in games {
        let d = g["diagnostics"].as_array().expect("diagnostics");
        assert!(!d.is_empty(), "{g}");
        assert!(d.iter().all(|d| d["severity"] == "error"), "{g}");
    }
    let full = json_lines(&run(&["validate", "--format", "json", p(&fixtures())]));
    assert!(full.len() > lines.len());
    assert_eq!(
        full.last().expect("summary")["summary"],
        summary[0]["summary"]
    );
}

#[test]
fn game_lines_carry_the_players_event_date_and_the_boards_verdict() {
    let multi = crate::common::repo().join("fixtures/csa/multi.csa");
    let lines = json_lines(&run(&["validate", "--format", "json", p(&multi)]));
    let g = &lines[0];
    assert_eq!(g["black"], "Sente Player");
    assert_eq!(g["white"], "Gote, Player");
    assert_eq!(g["event"], "Fixture Cup");
    assert_eq!(g["date"], "2024/01/02 10:00:00");
    // A resignation: the board decides nothing.
    assert!(g["result"]["by_board"].is_null(), "{g}");
    // Keys not recorded are left out.
    assert!(lines[2].get("black").is_none(), "{}", lines[2]);
    let endings = fixtures().join("endings");
    let verdict = |file: &str| {
        let lines = json_lines(&run(&[
            "validate",
            "--format",
            "json",
            p(&endings.join(file)),
        ]));
        lines[0]["result"]["by_board"].clone()
    };
    let v = verdict("foul-then-other-resigns.csa");
    assert_eq!(
        (v["winner"].as_str(), v["by"].as_str(), v["ply"].as_u64()),
        (Some("white"), Some("foul"), Some(1))
    );
    let v = verdict("perpetual-check-foul.kifu");
    assert_eq!(
        (v["winner"].as_str(), v["by"].as_str(), v["ply"].as_u64()),
        (Some("white"), Some("perpetual-check"), Some(12))
    );
    let v = verdict("repetition-then-toryo.csa");
    assert_eq!(
        (v["winner"].as_str(), v["by"].as_str(), v["ply"].as_u64()),
        (Some("draw"), Some("repetition"), Some(12))
    );
}

#[test]
fn empty_inputs_give_one_warning_in_every_format() {
    let dir = tempfile::tempdir().expect("tempdir");
    let empty_dir = dir.path().join("nothing");
    fs::create_dir(&empty_dir).expect("mkdir");
    fs::write(empty_dir.join("notes.txt"), "not a record").expect("write");
    let files = [
        ("zero.csa", &b""[..]),
        ("zero.kif", b""),
        ("blank.kif", b"\r\n\r\n  \r\n"),
        ("blank.usi", b"\n\n"),
        ("bom.jkf", b"\xEF\xBB\xBF\n"),
        ("blank.ki2", b" \n"),
    ];
    for (name, bytes) in files {
        fs::write(dir.path().join(name), bytes).expect("write");
    }
    let mut inputs: Vec<PathBuf> = files.iter().map(|(n, _)| dir.path().join(n)).collect();
    inputs.push(empty_dir.clone());
    for input in &inputs {
        let o = run(&["validate", "--format", "json", p(input)]);
        assert_eq!(code(&o), 0, "{}: {}", input.display(), stdout(&o));
        let lines = json_lines(&o);
        assert_eq!(lines.len(), 2, "{}: {}", input.display(), stdout(&o));
        let d = lines[0]["diagnostics"].as_array().expect("diagnostics");
        assert_eq!(d.len(), 1, "{}", lines[0]);
        assert_eq!(
            (d[0]["code"].as_str(), d[0]["severity"].as_str()),
            (Some("empty-input"), Some("warning"))
        );
        assert!(lines[0]["game"].is_null(), "{}", lines[0]);
        assert_eq!(lines[1]["summary"]["games"], 0);
    }
    // Beside a record with an error, the exit code is the error's.
    let nifu = fixtures().join("fouls/nifu.kifu");
    let o = run(&["validate", p(&inputs[0]), p(&nifu)]);
    assert_eq!(code(&o), 1);
    assert!(
        stdout(&o).contains("warning[empty-input]: the file is empty"),
        "{}",
        stdout(&o)
    );
}

/// `--encoding` names every encoding the detection reads (issue #47: EUC-JP and UTF-16 were
/// read when detected, refused when named).
#[test]
fn every_encoding_can_be_named() {
    let dir = tempfile::tempdir().expect("tempdir");
    let text = "V2.2\nN+先手名人\nPI\n+\n+7776FU\n%TORYO\n";
    let (euc, _, _) = encoding_rs::EUC_JP.encode(text);
    let mut le = vec![0xFF, 0xFE];
    let mut be = vec![0xFE, 0xFF];
    for u in text.encode_utf16() {
        le.extend(u.to_le_bytes());
        be.extend(u.to_be_bytes());
    }
    for (name, bytes) in [("euc-jp", euc.to_vec()), ("utf-16le", le), ("utf-16be", be)] {
        let path = dir.path().join(format!("{name}.csa"));
        fs::write(&path, bytes).expect("write");
        let o = run(&[
            "games",
            "--format",
            "json",
            "--columns",
            "black,encoding",
            "--encoding",
            name,
            p(&path),
        ]);
        assert_eq!(code(&o), 0, "{name}: {}", stderr(&o));
        let rows = parse_lines(&stdout(&o));
        assert_eq!(rows[0]["black"], "先手名人", "{name}");
        assert_eq!(rows[0]["encoding"], name, "{name}");
    }
}

/// `--to kif`/`--to ki2` to a terminal (issue #47: Shift_JIS shown as mojibake): written in
/// UTF-8 there, with a note; to a pipe or a file, Shift_JIS as asked. The terminal is a
/// pseudo-terminal from util-linux's `script`, where it is installed.
#[test]
fn shift_jis_targets_are_legible_on_a_terminal() {
    let dir = tempfile::tempdir().expect("tempdir");
    let game = dir.path().join("g.usi");
    fs::write(&game, "startpos moves 7g7f 3c3d\n").expect("write");
    // A pipe: Shift_JIS, no note.
    let o = run(&["convert", "--to", "kif", p(&game)]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let (sjis, _, _) = encoding_rs::SHIFT_JIS.encode("７六歩(77)");
    assert!(
        o.stdout.windows(sjis.len()).any(|w| w == &*sjis),
        "Shift_JIS to a pipe"
    );
    assert!(!stderr(&o).contains("note"));
    let Ok(script) = Command::new("script").arg("--version").output() else {
        eprintln!(
            "skip: no `script` (util-linux) for a pseudo-terminal; the terminal half did not run"
        );
        return;
    };
    assert!(script.status.success());
    for (to, line) in [("kif", "７六歩(77)"), ("ki2", "▲７六歩")] {
        let cmd = format!(
            "{} convert --no-progress --to {to} {}",
            env!("CARGO_BIN_EXE_kifu"),
            p(&game)
        );
        let o = Command::new("script")
            .args(["-qec", &cmd, "/dev/null"])
            .stdin(Stdio::null())
            .output()
            .expect("script");
        let seen = String::from_utf8_lossy(&o.stdout);
        assert!(seen.contains(line), "{to}: UTF-8 on a terminal: {seen}");
        assert!(
            seen.contains("is written in UTF-8"),
            "{to}: the note: {seen}"
        );
    }
}

/// A finding with a line in a game of a multi-game file names the game (issue #47), so that
/// `kifu show FILE:N` can be typed from what was printed; `path:line:col` stays first, for
/// editors. A one-game file's lines are as before.
#[test]
fn findings_in_a_multi_game_file_name_the_game() {
    let dir = tempfile::tempdir().expect("tempdir");
    let multi = dir.path().join("multi.csa");
    let good = "V2.2\nPI\n+\n+7776FU\n-3334FU\n%TORYO\n";
    // A pawn dropped that Black does not hold: `not-in-hand` at ply 3.
    let foul = "V2.2\nPI\n+\n+7776FU\n-3334FU\n+0077FU\n%TORYO\n";
    fs::write(&multi, [good, good, foul].join("/\n")).expect("write");
    let o = run(&["validate", p(&multi)]);
    let err = stdout(&o) + &stderr(&o);
    let line = err
        .lines()
        .find(|l| l.contains("error["))
        .unwrap_or_else(|| panic!("{err}"));
    assert!(line.starts_with(&format!("{}:", p(&multi))), "{line}");
    assert!(line.ends_with("(game 2)"), "{line}");
    let o = run(&[
        "show",
        "--at-diagnostic",
        "--format",
        "sfen",
        &format!("{}:2", p(&multi)),
    ]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let one = dir.path().join("one.csa");
    fs::write(&one, foul).expect("write");
    let o = run(&["validate", p(&one)]);
    let all = stdout(&o) + &stderr(&o);
    assert!(all.contains("error[") && !all.contains("(game"), "{all}");
}
