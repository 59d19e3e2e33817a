//! `kifu convert`'s outputs through the command line: never replacing a file without
//! `--force`, `-o FILE` only where one file is meant, no output for an input that gave no
//! game, predictable names, the JSON Lines report and plain USI.

use std::fs;
use std::path::Path;
use std::process::{Command, Output, Stdio};

use serde_json::Value;

use crate::cli_common;
use cli_common::{code, fixtures, parse_lines, stderr};

fn run_in(dir: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_kifu"))
        .args(args)
        .current_dir(dir)
        .stdin(Stdio::null())
        .output()
        .expect("run kifu")
}

/// The JSON lines `convert --format json` writes (to the error stream: the records may take
/// the standard output).
fn json_lines(o: &Output) -> Vec<Value> {
    parse_lines(&stderr(o))
}

/// A scratch directory holding `in/` with copies of fixtures, named as given.
fn scratch(files: &[(&str, &str)]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("tempdir");
    for (name, fixture) in files {
        let to = dir.path().join("in").join(name);
        fs::create_dir_all(to.parent().expect("parent")).expect("mkdir");
        fs::copy(fixtures().join(fixture), &to).expect("copy");
    }
    dir
}

fn names_in(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> = fs::read_dir(dir)
        .expect("read_dir")
        .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
        .collect();
    v.sort();
    v
}

#[test]
fn an_existing_output_is_refused_per_file_unless_forced() {
    let tmp = scratch(&[("a.csa", "ok/mate.csa"), ("b.kif", "ok/resign.kif")]);
    let d = tmp.path();
    fs::create_dir_all(d.join("out")).expect("mkdir");
    fs::write(d.join("out/a.kifu"), "keep me").expect("write");
    let o = run_in(d, &["convert", "--to", "kifu", "-o", "out", "in"]);
    assert_eq!(code(&o), 1, "{}", stderr(&o));
    let err = stderr(&o);
    assert!(
        err.contains(
            "in/a.csa: error[output-exists]: out/a.kifu exists; not replaced (--force replaces it)"
        ),
        "{err}"
    );
    assert_eq!(err.matches("output-exists").count(), 1, "{err}");
    assert!(err.contains("to 1 files (1 refused)"), "{err}");
    assert_eq!(
        fs::read_to_string(d.join("out/a.kifu")).expect("a"),
        "keep me"
    );
    // The run went on: the other output is written.
    assert!(
        fs::read_to_string(d.join("out/b.kifu"))
            .expect("b")
            .contains("投了")
    );
    // Run again: both refused; nothing changes.
    let b_before = fs::read(d.join("out/b.kifu")).expect("b");
    let o = run_in(d, &["convert", "--to", "kifu", "-o", "out", "in"]);
    assert_eq!(code(&o), 1, "{}", stderr(&o));
    assert_eq!(stderr(&o).matches("error[output-exists]").count(), 2);
    assert_eq!(fs::read(d.join("out/b.kifu")).expect("b"), b_before);
    // --force replaces them.
    let o = run_in(
        d,
        &["convert", "--to", "kifu", "-o", "out", "--force", "in"],
    );
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    assert!(
        fs::read_to_string(d.join("out/a.kifu"))
            .expect("a")
            .contains("詰み")
    );
    // A multi-game output (CSA) refused once, however many games it would hold.
    fs::write(
        d.join("games.usi"),
        "startpos moves 7g7f\nstartpos moves 2g2f\n",
    )
    .expect("write");
    fs::write(d.join("games.csa"), "keep").expect("write");
    let o = run_in(
        d,
        &["convert", "--to", "csa", "-o", "games.csa", "games.usi"],
    );
    assert_eq!(code(&o), 1, "{}", stderr(&o));
    assert_eq!(
        stderr(&o).matches("error[output-exists]").count(),
        1,
        "{}",
        stderr(&o)
    );
    assert_eq!(
        fs::read_to_string(d.join("games.csa")).expect("kept"),
        "keep"
    );
    // -o FILE over an existing file, forced.
    let o = run_in(
        d,
        &[
            "convert",
            "--to",
            "kifu",
            "-o",
            "out/a.kifu",
            "--force",
            "in/b.kif",
        ],
    );
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    assert!(
        fs::read_to_string(d.join("out/a.kifu"))
            .expect("a")
            .contains("投了")
    );
}

#[test]
fn an_input_is_never_replaced_even_when_forced() {
    let tmp = scratch(&[("a.csa", "ok/mate.csa")]);
    let input = tmp.path().join("in/a.csa");
    let before = fs::read(&input).expect("read");
    let o = run_in(
        tmp.path(),
        &[
            "convert", "--to", "csa", "--force", "-o", "in/a.csa", "in/a.csa",
        ],
    );
    assert_eq!(code(&o), 2, "{}", stderr(&o));
    assert!(
        stderr(&o).contains("refusing to overwrite an input"),
        "{}",
        stderr(&o)
    );
    assert_eq!(fs::read(&input).expect("read"), before);
}

#[test]
fn o_file_is_for_one_input_and_a_file_of_the_targets_format() {
    let tmp = scratch(&[("a.csa", "ok/mate.csa"), ("b.csa", "ok/mate.csa")]);
    let d = tmp.path();
    // Several inputs, or a directory, and -o naming a file: a usage error, and no directory made.
    for args in [
        &[
            "convert", "--to", "kifu", "-o", "all.kifu", "in/a.csa", "in/b.csa",
        ][..],
        &["convert", "--to", "kifu", "-o", "all.kifu", "in"],
        &["convert", "--to", "csa", "-o", "all.csa", "in"],
    ] {
        let o = run_in(d, args);
        assert_eq!(code(&o), 2, "{args:?}: {}", stderr(&o));
        assert!(stderr(&o).contains("need -o DIR"), "{}", stderr(&o));
        assert!(!d.join("all.kifu").exists() && !d.join("all.csa").exists());
    }
    // An existing file named as the directory of several inputs.
    fs::write(d.join("notes"), "x").expect("write");
    let o = run_in(d, &["convert", "--to", "kifu", "-o", "notes", "in"]);
    assert_eq!(code(&o), 2, "{}", stderr(&o));
    assert_eq!(fs::read_to_string(d.join("notes")).expect("notes"), "x");
    // A name without a record extension, or ending with `/`, is a directory to make.
    for out in ["made", "made2/"] {
        let o = run_in(d, &["convert", "--to", "kifu", "-o", out, "in"]);
        assert_eq!(code(&o), 0, "{}", stderr(&o));
        assert_eq!(names_in(&d.join(out)), ["a.kifu", "b.kifu"]);
    }
    // Another format's extension for -o FILE: refused, nothing written.
    for (to, out) in [
        ("csa", "x.kif"),
        ("kif", "x.kifu"),
        ("kifu", "x.csa"),
        ("csa", "x.zip"),
        ("usi", "x.jkf"),
    ] {
        let o = run_in(d, &["convert", "--to", to, "-o", out, "in/a.csa"]);
        assert_eq!(code(&o), 2, "{to} {out}: {}", stderr(&o));
        assert!(stderr(&o).contains("does not name a"), "{}", stderr(&o));
        assert!(!d.join(out).exists(), "{out}");
    }
    // The target's own extensions, another extension, or none: written. A bare file name works
    // (it lives in the current directory).
    for (to, out) in [
        ("kif", "x.kif"),
        ("usi", "x.sfen"),
        ("jkf", "x.json"),
        ("csa", "x.txt"),
        ("csa", "plain"),
    ] {
        let o = run_in(d, &["convert", "--to", to, "-o", out, "in/a.csa"]);
        assert_eq!(code(&o), 0, "{to} {out}: {}", stderr(&o));
        assert!(d.join(out).is_file(), "{out}");
    }
}

#[test]
fn an_input_without_a_game_gives_no_output() {
    let dir = tempfile::tempdir().expect("tempdir");
    let d = dir.path();
    fs::create_dir_all(d.join("in")).expect("mkdir");
    fs::write(d.join("in/junk.kif"), "this is not a record\nnor is this\n").expect("write");
    fs::write(d.join("in/junk.csa"), "hello\n").expect("write");
    fs::copy(fixtures().join("ok/mate.csa"), d.join("in/good.csa")).expect("copy");
    let o = run_in(
        d,
        &[
            "convert", "--format", "json", "--to", "kifu", "-o", "out", "in",
        ],
    );
    assert_eq!(code(&o), 1, "{}", stderr(&o));
    assert_eq!(names_in(&d.join("out")), ["good.kifu"]);
    let lines = json_lines(&o);
    for l in &lines[..lines.len() - 1] {
        let path = l["path"].as_str().expect("path");
        if path.contains("junk") {
            assert_eq!(l["output"], Value::Null, "{l}");
            assert!(
                !l["diagnostics"].as_array().expect("array").is_empty(),
                "{l}"
            );
        } else {
            assert_eq!(l["output"], "out/good.kifu", "{l}");
        }
    }
    let summary = &lines[lines.len() - 1]["summary"];
    assert_eq!(summary["outputs_written"], 1, "{summary}");
    // To a file, and to standard output: nothing written either.
    let o = run_in(
        d,
        &["convert", "--to", "csa", "-o", "junk.csa", "in/junk.kif"],
    );
    assert_eq!(code(&o), 1, "{}", stderr(&o));
    assert!(!d.join("junk.csa").exists());
    let o = run_in(d, &["convert", "--to", "csa", "in/junk.kif"]);
    assert_eq!(code(&o), 1, "{}", stderr(&o));
    assert!(
        o.stdout.is_empty(),
        "{}",
        String::from_utf8_lossy(&o.stdout)
    );
}

#[test]
fn colliding_output_names_do_not_depend_on_the_order_of_the_inputs() {
    let tmp = scratch(&[
        ("a.kif", "ok/resign.kif"),
        ("a.csa", "ok/mate.csa"),
        ("b.csa", "ok/mate.csa"),
    ]);
    let d = tmp.path();
    let want = ["a.csa.kifu", "a.kif.kifu", "b.kifu"];
    for (out, order) in [
        ("o1", ["in/a.kif", "in/a.csa"]),
        ("o2", ["in/a.csa", "in/a.kif"]),
    ] {
        let o = run_in(
            d,
            &[
                "convert", "--to", "kifu", "-o", out, order[0], order[1], "in/b.csa",
            ],
        );
        assert_eq!(code(&o), 0, "{}", stderr(&o));
        assert_eq!(names_in(&d.join(out)), want, "{order:?}");
        let kif = fs::read_to_string(d.join(out).join("a.kif.kifu")).expect("a.kif.kifu");
        assert!(kif.contains("投了"), "{kif}");
        let csa = fs::read_to_string(d.join(out).join("a.csa.kifu")).expect("a.csa.kifu");
        assert!(csa.contains("詰み"), "{csa}");
    }
    // The same through a directory.
    let o = run_in(d, &["convert", "--to", "kifu", "-o", "o3", "in"]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    assert_eq!(names_in(&d.join("o3")), want);
    // A multi-game input among them: its games keep their numbers after the whole name.
    fs::write(
        d.join("in/a.usi"),
        "startpos moves 7g7f\nstartpos moves 2g2f\n",
    )
    .expect("write");
    let o = run_in(d, &["convert", "--to", "kif", "-o", "o4", "in"]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    assert_eq!(
        names_in(&d.join("o4")),
        [
            "a.csa.kif",
            "a.kif.kif",
            "a.usi-0.kif",
            "a.usi-1.kif",
            "b.kif"
        ]
    );
}

#[test]
fn json_has_a_line_per_game_with_its_output_then_the_summary() {
    let dir = tempfile::tempdir().expect("tempdir");
    let d = dir.path();
    fs::create_dir_all(d.join("in")).expect("mkdir");
    fs::write(
        d.join("in/games.usi"),
        "startpos moves 7g7f 3c3d resign\nstartpos moves 2g2f\n",
    )
    .expect("write");
    fs::copy(fixtures().join("ok/resign.kif"), d.join("in/r.kif")).expect("copy");
    fs::create_dir_all(d.join("out")).expect("mkdir");
    fs::write(d.join("out/r.usi"), "taken").expect("write");
    let o = run_in(
        d,
        &[
            "convert", "--format", "json", "--to", "usi", "-o", "out", "in",
        ],
    );
    assert_eq!(code(&o), 1, "{}", stderr(&o));
    let lines = json_lines(&o);
    assert_eq!(lines.len(), 4, "{lines:?}");
    // In input order, every game, with or without findings.
    let paths: Vec<(&str, u64)> = lines[..3]
        .iter()
        .map(|l| {
            (
                l["path"].as_str().expect("path"),
                l["game"].as_u64().expect("game"),
            )
        })
        .collect();
    assert_eq!(
        paths,
        [("in/games.usi", 0), ("in/games.usi", 1), ("in/r.kif", 0)]
    );
    let first = &lines[0];
    assert_eq!(first["output"], "out/games.usi");
    assert_eq!(first["plies"], 2);
    assert_eq!(first["result"]["recorded"], "TORYO");
    assert_eq!(first["result"]["winner"], "white");
    // The ending not written in plain USI is a lossy warning.
    let codes = |l: &Value| -> Vec<String> {
        l["diagnostics"]
            .as_array()
            .expect("array")
            .iter()
            .map(|d| d["code"].as_str().expect("code").to_owned())
            .collect()
    };
    assert_eq!(codes(first), ["lossy"], "{first}");
    let second = &lines[1];
    assert_eq!(second["plies"], 1);
    assert_eq!(second["output"], "out/games.usi");
    assert!(codes(second).is_empty(), "{second}");
    let third = &lines[2];
    assert_eq!(third["output"], Value::Null);
    assert!(
        codes(third).contains(&"output-exists".to_owned()),
        "{third}"
    );
    assert!(third["plies"].as_u64().expect("plies") > 0);
    let s = &lines[3]["summary"];
    assert_eq!(s["files"], 2);
    assert_eq!(s["games"], 3);
    assert_eq!(s["errors"], 1);
    assert_eq!(s["outputs_written"], 1);
    assert_eq!(s["outputs_refused"], 1);
    assert_eq!(s["by_code"]["output-exists"], 1);
    // Quiet: the games with an error only, then the summary.
    let o = run_in(
        d,
        &[
            "convert", "-q", "--format", "json", "--to", "usi", "-o", "out", "in",
        ],
    );
    let lines = json_lines(&o);
    assert!(lines.len() >= 2, "{lines:?}");
    assert!(
        lines[..lines.len() - 1]
            .iter()
            .all(|l| !codes(l).is_empty() && !codes(l).contains(&"lossy".to_owned()))
    );
    assert!(lines[lines.len() - 1].get("summary").is_some());
    // To standard output: `-`.
    let o = run_in(
        d,
        &["convert", "--format", "json", "--to", "csa", "in/r.kif"],
    );
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let lines = json_lines(&o);
    assert_eq!(lines[0]["output"], "-");
    assert_eq!(lines[1]["summary"]["outputs_written"], 0);
}

#[test]
fn usi_is_plain_by_default_and_extended_on_request() {
    let tmp = scratch(&[("r.kif", "ok/resign.kif")]);
    let o = run_in(tmp.path(), &["convert", "--to", "usi", "in/r.kif"]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let line = String::from_utf8(o.stdout.clone()).expect("utf-8");
    assert!(line.starts_with("position startpos moves 7g7f"), "{line}");
    assert!(!line.contains("resign"), "{line}");
    assert!(
        stderr(&o).contains("warning[lossy]: a USI `position` line holds no ending"),
        "{}",
        stderr(&o)
    );
    let o = run_in(
        tmp.path(),
        &["convert", "--to", "usi", "--usi-endings", "in/r.kif"],
    );
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let line = String::from_utf8(o.stdout.clone()).expect("utf-8");
    assert!(line.trim_end().ends_with(" resign"), "{line}");
}

#[cfg(unix)]
#[test]
fn a_pipe_among_the_inputs_is_read_once() {
    let tmp = scratch(&[("b.csa", "ok/mate.csa")]);
    let d = tmp.path();
    // `kifu convert <(cat a.usi) in -o out`, as a shell would run it.
    fs::write(d.join("a.usi"), "startpos moves 7g7f 3c3d\n").expect("write");
    let kifu = env!("CARGO_BIN_EXE_kifu");
    let o = Command::new("bash")
        .arg("-c")
        .arg(format!("'{kifu}' convert --to csa -o out <(cat a.usi) in"))
        .current_dir(d)
        .output()
        .expect("bash");
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let mut names = names_in(&d.join("out"));
    names.retain(|n| n != "b.csa");
    assert_eq!(names.len(), 1, "{names:?}");
    let csa = fs::read_to_string(d.join("out").join(&names[0])).expect("read");
    assert!(csa.contains("+7776FU") && csa.contains("-3334FU"), "{csa}");
}

#[cfg(unix)]
#[test]
fn names_that_are_not_utf8_keep_their_bytes_in_the_outputs() {
    use std::ffi::OsStr;
    use std::os::unix::ffi::OsStrExt;
    let dir = tempfile::tempdir().expect("tempdir");
    let input = dir.path().join("in");
    fs::create_dir(&input).expect("mkdir");
    // Two names that a lossy conversion would make one (`g\u{FFFD}\u{FFFD}`), and a
    // multi-game file written one game per file.
    let game = "V2.2\nPI\n+\n+7776FU\n-3334FU\n";
    for n in [&b"g\xff\x82.csa"[..], b"g\xfe\x80.csa"] {
        fs::write(input.join(OsStr::from_bytes(n)), game).expect("write");
    }
    fs::write(
        input.join(OsStr::from_bytes(b"m\xff.csa")),
        format!("{game}/\n{game}"),
    )
    .expect("write");
    let o = run_in(dir.path(), &["convert", "in", "--to", "kifu", "-o", "out"]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let mut names: Vec<Vec<u8>> = fs::read_dir(dir.path().join("out"))
        .expect("read_dir")
        .map(|e| e.expect("entry").file_name().as_bytes().to_vec())
        .collect();
    names.sort();
    let want: [&[u8]; 4] = [
        b"g\xfe\x80.kifu",
        b"g\xff\x82.kifu",
        b"m\xff-0.kifu",
        b"m\xff-1.kifu",
    ];
    assert_eq!(names, want);
}
