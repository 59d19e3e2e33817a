//! The faults an adversarial run found (issue #45): a panic in one unit must cost that unit
//! only, and never hang a run; dates as real exports write them; a write that fails must
//! never leave a cut file under an output's name.

use std::path::Path;
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;

#[path = "common/cli.rs"]
#[allow(dead_code)]
mod cli_common;
use cli_common::{code, p, parse_lines, stdout};

/// Runs `kifu` with `args`, killed (and the test failed) if it has not ended in two minutes:
/// a run that waits forever is the fault under test.
fn run_bounded(args: &[&str]) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_kifu"))
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run kifu");
    // Read the pipes on threads, so that a full pipe never blocks the child.
    let mut out = child.stdout.take().expect("stdout");
    let mut err = child.stderr.take().expect("stderr");
    let out_t = std::thread::spawn(move || {
        let mut v = Vec::new();
        std::io::Read::read_to_end(&mut out, &mut v).map(|_| v)
    });
    let err_t = std::thread::spawn(move || {
        let mut v = Vec::new();
        std::io::Read::read_to_end(&mut err, &mut v).map(|_| v)
    });
    let start = Instant::now();
    let status = loop {
        if let Some(s) = child.try_wait().expect("wait") {
            break s;
        }
        if start.elapsed() > Duration::from_secs(120) {
            let _ = child.kill();
            let _ = child.wait();
            panic!("kifu {args:?} did not end in two minutes");
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    Output {
        status,
        stdout: out_t.join().expect("thread").expect("read stdout"),
        stderr: err_t.join().expect("thread").expect("read stderr"),
    }
}

/// A directory of `n` copies of a small CSA game (more than one chunk of input in all, so
/// that the run is shared between threads) with, at `bad`, a file the `testing` feature makes
/// the work panic on.
fn tree_with_a_panic(dir: &Path, n: usize, bad: usize) {
    let game = "V2.2\nN+black\nN-white\n$START_TIME:2024/05/01 10:00:00\nPI\n+\n\
                +7776FU\n-3334FU\n+8822UM\n-3122GI\n%TORYO\n";
    // Padding comments make each file about 2 KiB: 400 of them are more than 512 KiB.
    let pad = format!("'{}\n", "x".repeat(80)).repeat(24);
    for i in 0..n {
        let name = dir.join(format!("g{i:04}.csa"));
        if i == bad {
            let mut b = kifu::batch::PANIC_ON_PURPOSE.to_vec();
            b.extend_from_slice(b"\n");
            b.extend_from_slice(game.as_bytes());
            std::fs::write(name, b).expect("write");
        } else {
            std::fs::write(name, format!("{pad}{game}")).expect("write");
        }
    }
}

#[test]
fn a_panic_in_one_unit_costs_that_unit_and_the_run_goes_on() {
    let dir = tempfile::tempdir().expect("tempdir");
    tree_with_a_panic(dir.path(), 400, 137);
    let path = p(dir.path());
    let mut outputs = Vec::new();
    for jobs in ["1", "2", "8"] {
        let o = run_bounded(&["validate", "--format", "json", "-j", jobs, path]);
        let lines: Vec<Value> = parse_lines(&stdout(&o))
            .into_iter()
            .filter(|l| l.get("summary").is_none())
            .collect();
        assert_eq!(lines.len(), 400, "-j{jobs}: one line per file");
        let bad: Vec<&Value> = lines
            .iter()
            .filter(|l| l["path"].as_str().is_some_and(|s| s.ends_with("g0137.csa")))
            .collect();
        assert_eq!(bad.len(), 1, "-j{jobs}");
        let d = &bad[0]["diagnostics"][0];
        assert_eq!(d["code"], "io", "-j{jobs}: {d}");
        assert!(
            d["message"]
                .as_str()
                .is_some_and(|m| m.contains("internal error")),
            "-j{jobs}: {d}"
        );
        let clean = lines
            .iter()
            .filter(|l| l["diagnostics"].as_array().is_some_and(Vec::is_empty))
            .count();
        assert_eq!(clean, 399, "-j{jobs}: every other game is read");
        assert_ne!(code(&o), 0, "-j{jobs}: the exit code says a unit failed");
        assert_ne!(code(&o), 101, "-j{jobs}: no panic escapes");
        outputs.push(o.stdout);
    }
    assert!(
        outputs.windows(2).all(|w| w[0] == w[1]),
        "the same answer on any -j"
    );
    // The tables and the statistics too.
    for cmd in [
        &["games", "--format", "json", "-j", "2", path][..],
        &[
            "positions",
            "--format",
            "json",
            "-j",
            "2",
            "--columns",
            "ply",
            path,
        ][..],
        &["stats", "--format", "json", "-j", "2", path][..],
        &[
            "games",
            "--format",
            "json",
            "-j",
            "2",
            "--since",
            "2024-05-01",
            path,
        ][..],
    ] {
        let o = run_bounded(cmd);
        assert_ne!(code(&o), 101, "{cmd:?}: no panic escapes");
        assert!(!o.stdout.is_empty(), "{cmd:?}: output for the other units");
    }
    let o = run_bounded(&["games", "--format", "json", "-j", "2", path]);
    assert_eq!(
        parse_lines(&stdout(&o)).len(),
        399,
        "a row for every game read"
    );
}

#[test]
fn start_dates_with_a_weekday_or_a_twelve_hour_clock_are_read() {
    let dir = tempfile::tempdir().expect("tempdir");
    let moves = "+7776FU\n-3334FU\n%TORYO\n";
    let forms = [
        (
            "a.csa",
            format!("V2.2\n$START_TIME:2024/05/01 午前10:00:00\nPI\n+\n{moves}"),
        ),
        (
            "b.csa",
            format!("V2.2\n$START_TIME:2024/05/01 午後1:02:03\nPI\n+\n{moves}"),
        ),
        (
            "c.kifu",
            "開始日時：2024/05/01（水）10:00\n手合割：平手\n手数----指手---------消費時間--\n\
                1 ７六歩(77)\n   2 ３四歩(33)\n   3 投了\n"
                .to_owned(),
        ),
    ];
    for (name, text) in &forms {
        std::fs::write(dir.path().join(name), text).expect("write");
    }
    let path = p(dir.path());
    let o = run_bounded(&[
        "games",
        "--format",
        "json",
        "--columns",
        "path,start_date,start_time",
        path,
    ]);
    assert_eq!(code(&o), 0, "{}", String::from_utf8_lossy(&o.stderr));
    let rows = parse_lines(&stdout(&o));
    assert_eq!(rows.len(), 3);
    for r in &rows {
        assert_eq!(r["start_date"], "2024-05-01", "{r}");
    }
    let times: Vec<&str> = rows
        .iter()
        .filter_map(|r| r["start_time"].as_str())
        .collect();
    assert_eq!(
        times,
        [
            "2024-05-01T10:00:00",
            "2024-05-01T13:02:03",
            "2024-05-01T10:00:00"
        ]
    );
    for (since, n) in [("2024-05-01", 3), ("2024-05-02", 0)] {
        for jobs in ["1", "2"] {
            let o = run_bounded(&[
                "games", "--format", "json", "-j", jobs, "--since", since, path,
            ]);
            assert_eq!(code(&o), 0, "--since {since}");
            assert_eq!(
                parse_lines(&stdout(&o)).len(),
                n,
                "--since {since} -j{jobs}"
            );
        }
    }
}
