//! The faults an adversarial run found (issue #45): a panic in one unit must cost that unit
//! only, and never hang a run; dates as real exports write them; a write that fails must
//! never leave a cut file under an output's name.

use std::path::Path;
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::cli_common;
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
            let mut b = kifu_app::batch::PANIC_ON_PURPOSE.to_vec();
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
        assert_eq!(d["code"], "internal", "-j{jobs}: {d}");
        assert!(
            d["message"]
                .as_str()
                .is_some_and(|m| m.contains("a panic on purpose")),
            "-j{jobs}: {d}"
        );
        let clean = lines
            .iter()
            .filter(|l| l["diagnostics"].as_array().is_some_and(Vec::is_empty))
            .count();
        assert_eq!(clean, 399, "-j{jobs}: every other game is read");
        assert_eq!(
            code(&o),
            2,
            "-j{jobs}: the exit code says a unit was not read"
        );
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

/// Runs `kifu` with the `testing` feature's injected full disk: its output files hold
/// `bytes` in all, and a write past them fails as on a full disk.
fn run_with_disk_of(bytes: u64, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_kifu"))
        .args(args)
        .env("KIFU_TEST_FAIL_WRITES_AFTER", bytes.to_string())
        .stdin(Stdio::null())
        .output()
        .expect("run kifu")
}

/// The files below `dir`, relative, with their bytes.
fn files_below(dir: &Path) -> Vec<(String, Vec<u8>)> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).expect("read_dir").flatten() {
            let path = e.path();
            if path.is_dir() {
                stack.push(path);
            } else {
                let rel = path.strip_prefix(dir).expect("below").display().to_string();
                out.push((rel, std::fs::read(&path).expect("read")));
            }
        }
    }
    out.sort();
    out
}

/// The `outputs_*` counts of a convert run's JSON summary (the last line of its stderr: the
/// standard output may be the converted records).
fn outputs(o: &Output) -> (u64, u64, u64) {
    let err = String::from_utf8_lossy(&o.stderr);
    let last = err
        .lines()
        .rev()
        .find(|l| l.contains("\"summary\""))
        .unwrap_or_else(|| panic!("no summary line in {err}"));
    let v: Value = serde_json::from_str(last).expect("json");
    let s = &v["summary"];
    let n = |k: &str| s[k].as_u64().unwrap_or_else(|| panic!("{k} in {s}"));
    (
        n("outputs_written"),
        n("outputs_refused"),
        n("outputs_failed"),
    )
}

/// What a convert into `out` left when its disk filled: every file under its final name is
/// whole (the same bytes as a run with room), no temporary is left, and the summary counts
/// the rest as failed.
fn check_full_disk_run(o: &Output, out: &Path, good: &[(String, Vec<u8>)]) {
    let left = files_below(out);
    for (name, bytes) in &left {
        assert!(!name.contains(".kifu-"), "a temporary is left: {name}");
        let whole = good.iter().find(|(n, _)| n == name).map(|(_, b)| b);
        assert_eq!(whole, Some(bytes), "{name} is cut or unknown");
    }
    let (written, refused, failed) = outputs(o);
    assert_eq!(
        written as usize,
        left.len(),
        "outputs_written counts the files there"
    );
    assert_eq!(refused, 0);
    assert!(failed > 0, "the run must say what it could not write");
    assert_eq!(
        (written + failed) as usize,
        good.len(),
        "every output is written or failed"
    );
    assert_ne!(code(o), 0, "a write error is an error");
}

/// The texts of the files below `src`.
fn good_inputs(src: &Path) -> Vec<String> {
    files_below(src)
        .into_iter()
        .map(|(_, b)| String::from_utf8(b).expect("utf-8"))
        .collect()
}

#[test]
fn a_write_that_fails_leaves_no_cut_file_and_keeps_the_old_one() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let src = tmp.path().join("src");
    std::fs::create_dir(&src).expect("mkdir");
    tree_with_a_panic(&src, 40, usize::MAX);
    let good_dir = tmp.path().join("good");
    let o = cli_common::run(&["convert", "--to", "kifu", "-o", p(&good_dir), p(&src)]);
    assert_eq!(code(&o), 0, "{}", String::from_utf8_lossy(&o.stderr));
    let good = files_below(&good_dir);
    assert_eq!(good.len(), 40);
    let total: usize = good.iter().map(|(_, b)| b.len()).sum();
    // Room for about half of the files: one is cut mid-line.
    for jobs in ["1", "2"] {
        let bad = tmp.path().join(format!("bad{jobs}"));
        let room = (total / 2 + 37) as u64;
        let args = [
            "convert",
            "--to",
            "kifu",
            "--format",
            "json",
            "-j",
            jobs,
            "-o",
            p(&bad),
            p(&src),
        ];
        let o = run_with_disk_of(room, &args);
        check_full_disk_run(&o, &bad, &good);
    }
    // One output of many games, over an existing file with --force: the old file stays.
    let multi = tmp.path().join("multi.csa");
    let games: Vec<String> = good_inputs(&src);
    std::fs::write(&multi, games.join("/\n")).expect("write");
    let one = tmp.path().join("all.csa");
    std::fs::write(&one, "the old file\n").expect("write");
    let args = [
        "convert",
        "--to",
        "csa",
        "--format",
        "json",
        "--force",
        "-o",
        p(&one),
        p(&multi),
    ];
    let o = run_with_disk_of(1000, &args);
    assert_eq!(
        std::fs::read_to_string(&one).expect("read"),
        "the old file\n"
    );
    assert_eq!(outputs(&o), (0, 0, 1));
    assert_ne!(code(&o), 0);
    assert_eq!(
        files_below(tmp.path())
            .iter()
            .filter(|(n, _)| n.contains(".kifu-"))
            .count(),
        0
    );
    // The tables, `stats -o` and `show -o` write the same way.
    for (args, name) in [
        (&["games", "--format", "csv"][..], "t.csv"),
        (&["positions", "--format", "parquet"][..], "t.parquet"),
        (&["stats", "--format", "json"][..], "s.json"),
    ] {
        let target = tmp.path().join(name);
        std::fs::write(&target, "old").expect("write");
        let mut a = args.to_vec();
        a.extend(["--force", "-o", p(&target), p(&src)]);
        let o = run_with_disk_of(500, &a);
        assert_ne!(code(&o), 0, "{args:?}");
        assert_eq!(
            std::fs::read_to_string(&target).expect("read"),
            "old",
            "{args:?}"
        );
    }
    let game = src.join("g0001.csa");
    let svg = tmp.path().join("b.svg");
    let o = run_with_disk_of(100, &["show", "--format", "svg", "-o", p(&svg), p(&game)]);
    assert_ne!(code(&o), 0);
    assert!(!svg.exists(), "no cut SVG");
    assert_eq!(
        files_below(tmp.path())
            .iter()
            .filter(|(n, _)| n.contains(".kifu-"))
            .count(),
        0
    );
}

/// The same on a real full disk: a small tmpfs, where one can be mounted (root on Linux). CI
/// runs as root and sets `CI`: there the test fails if it cannot mount one.
#[test]
fn a_full_tmpfs_leaves_no_cut_file() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let small = tmp.path().join("small");
    std::fs::create_dir(&small).expect("mkdir");
    let mounted = Command::new("mount")
        .args(["-t", "tmpfs", "-o", "size=48k", "tmpfs", p(&small)])
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success());
    if !mounted {
        assert!(
            std::env::var_os("CI").is_none(),
            "CI runs as root and must be able to mount a tmpfs"
        );
        eprintln!(
            "skip: cannot mount a tmpfs here (not root?); a_full_tmpfs_leaves_no_cut_file did not run"
        );
        return;
    }
    struct Unmount<'a>(&'a Path);
    impl Drop for Unmount<'_> {
        fn drop(&mut self) {
            let _ = Command::new("umount").arg(self.0).status();
        }
    }
    let _unmount = Unmount(&small);
    let src = tmp.path().join("src");
    std::fs::create_dir(&src).expect("mkdir");
    tree_with_a_panic(&src, 200, usize::MAX);
    let good_dir = tmp.path().join("good");
    let o = cli_common::run(&["convert", "--to", "kifu", "-o", p(&good_dir), p(&src)]);
    assert_eq!(code(&o), 0);
    let good = files_below(&good_dir);
    let out = small.join("out");
    let o = cli_common::run(&[
        "convert",
        "--to",
        "kifu",
        "--format",
        "json",
        "-o",
        p(&out),
        p(&src),
    ]);
    check_full_disk_run(&o, &out, &good);
    // A table bigger than the disk: no file, no temporary.
    let table = small.join("positions.csv");
    let o = cli_common::run(&["positions", "-o", p(&table), p(&src)]);
    assert_ne!(code(&o), 0);
    assert!(!table.exists());
    assert!(
        files_below(&small)
            .iter()
            .all(|(n, _)| !n.contains(".kifu-"))
    );
}

/// Ctrl-C and SIGTERM while an output is being written: its hidden temporary is removed, the
/// target left as it was, and the exit code is 130. (Nothing can do this on SIGKILL.)
#[cfg(unix)]
#[test]
fn a_signal_leaves_no_temporary() {
    use std::io::Write;
    for (signal, old) in [
        ("-INT", None),
        ("-TERM", Some("old")),
        ("-INT", Some("old")),
    ] {
        let tmp = tempfile::tempdir().expect("tempdir");
        let target = tmp.path().join("t.csv");
        if let Some(old) = old {
            std::fs::write(&target, old).expect("write");
        }
        let mut child = Command::new(env!("CARGO_BIN_EXE_kifu"))
            .args([
                "positions",
                "--input-format",
                "usi",
                "--force",
                "-q",
                "-o",
                p(&target),
                "-",
            ])
            .stdin(Stdio::piped())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("run kifu");
        // A standard input that stays open: the run waits for more, its output half made.
        let mut stdin = child.stdin.take().expect("stdin");
        stdin
            .write_all("startpos moves 7g7f 3c3d\n".repeat(50_000).as_bytes())
            .expect("feed");
        stdin.flush().expect("flush");
        let temporaries = || {
            std::fs::read_dir(tmp.path())
                .expect("read_dir")
                .flatten()
                .filter(|e| e.file_name().to_string_lossy().starts_with(".kifu-"))
                .count()
        };
        let start = Instant::now();
        while temporaries() == 0 {
            assert!(
                start.elapsed() < Duration::from_secs(60),
                "no temporary appeared"
            );
            std::thread::sleep(Duration::from_millis(10));
        }
        let killed = Command::new("kill")
            .args([signal, &child.id().to_string()])
            .status()
            .expect("kill");
        assert!(killed.success());
        let status = child.wait().expect("wait");
        drop(stdin);
        assert_eq!(status.code(), Some(130), "{signal}");
        assert_eq!(temporaries(), 0, "{signal}: the temporary is removed");
        match old {
            Some(old) => assert_eq!(std::fs::read_to_string(&target).expect("read"), old),
            None => assert!(!target.exists(), "{signal}"),
        }
    }
}

/// Two names that differ only in bytes that are not UTF-8 (`g<FF><82>.csa`, and the literal
/// text `g\xFF\x82.csa`) are shown apart: a backslash is shown `\\`.
#[cfg(unix)]
#[test]
fn names_that_are_not_utf8_are_shown_apart() {
    use std::os::unix::ffi::OsStrExt;
    let tmp = tempfile::tempdir().expect("tempdir");
    let game = "V2.2\nPI\n+\n+7776FU\n-3334FU\n%TORYO\n";
    let raw = tmp
        .path()
        .join(std::ffi::OsStr::from_bytes(b"g\xff\x82.csa"));
    std::fs::write(raw, game).expect("write");
    std::fs::write(tmp.path().join("g\\xFF\\x82.csa"), game).expect("write");
    let o = cli_common::run(&["validate", "--format", "json", p(tmp.path())]);
    let mut names: Vec<String> = parse_lines(&stdout(&o))
        .iter()
        .filter_map(|l| {
            l["path"]
                .as_str()
                .map(|s| s.rsplit('/').next().unwrap_or(s).to_owned())
        })
        .collect();
    names.sort();
    assert_eq!(names, ["g\\\\xFF\\\\x82.csa", "g\\xFF\\x82.csa"]);
}

/// `kifu show FILE:N` reads a multi-game file a chunk at a time, up to the game: a 30 MB file
/// (it took 50 times its size in memory when read whole) shows its games under a 400 MB
/// address-space limit.
#[cfg(unix)]
#[test]
fn show_streams_to_the_game() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let file = tmp.path().join("many.usi");
    let line = "startpos moves 7g7f 3c3d 2g2f 8c8d 2f2e 8d8e 6i7h 4a3b 2e2d 2c2d\n";
    std::fs::write(&file, line.repeat(460_000)).expect("write");
    for (game, ply) in [("0", "10"), ("123456", "10"), ("459999", "10")] {
        let script = format!(
            "ulimit -v 400000; exec \"$0\" show --format sfen {}:{game}",
            p(&file)
        );
        let o = Command::new("sh")
            .args(["-c", &script, env!("CARGO_BIN_EXE_kifu")])
            .output()
            .expect("sh");
        assert_eq!(
            code(&o),
            0,
            "game {game}: {}",
            String::from_utf8_lossy(&o.stderr)
        );
        assert!(
            stdout(&o)
                .trim_end()
                .ends_with(&format!(" {}", ply.parse::<u32>().unwrap() + 1)),
            "{}",
            stdout(&o)
        );
    }
    let o = cli_common::run(&["show", &format!("{}:460000", p(&file))]);
    assert_ne!(code(&o), 0);
    assert!(
        String::from_utf8_lossy(&o.stderr).contains("460000"),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
}

/// Odd inputs and outputs, each with the message it deserves.
#[cfg(unix)]
#[test]
fn odd_inputs_and_outputs_are_named_for_what_they_are() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let dir = tmp.path();
    let game = "V2.2\nPI\n+\n+7776FU\n-3334FU\n%TORYO\n";
    let stderr = |o: &Output| String::from_utf8_lossy(&o.stderr).into_owned();
    // `-o DIR` that is an input directory: refused (a rerun would read its outputs).
    let src = dir.join("src");
    std::fs::create_dir(&src).expect("mkdir");
    std::fs::write(src.join("g.csa"), game).expect("write");
    let o = cli_common::run(&["convert", "--to", "kifu", "-o", p(&src), p(&src)]);
    assert_eq!(code(&o), 2);
    assert!(
        stderr(&o).contains("is an input directory"),
        "{}",
        stderr(&o)
    );
    assert_eq!(files_below(&src).len(), 1, "nothing written");
    // A directory inside the input is left out of it: a rerun reads the same inputs.
    let out = src.join("converted");
    for _ in 0..2 {
        let o = cli_common::run(&["convert", "--to", "kifu", "--force", "-o", p(&out), p(&src)]);
        assert_eq!(code(&o), 0, "{}", stderr(&o));
    }
    let names: Vec<String> = files_below(&src).into_iter().map(|(n, _)| n).collect();
    assert_eq!(names, ["converted/g.kifu", "g.csa"]);
    // One pipe given as a path is converted to standard output, as one file is.
    let fifo = dir.join("pipe.csa");
    assert!(
        Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .expect("mkfifo")
            .success()
    );
    let writer = {
        let fifo = fifo.clone();
        std::thread::spawn(move || std::fs::write(fifo, game).expect("feed the pipe"))
    };
    let o = run_bounded(&["convert", "--to", "usi", p(&fifo)]);
    writer.join().expect("writer");
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    assert!(
        stdout(&o).starts_with("position startpos moves 7g7f 3c3d"),
        "{}",
        stdout(&o)
    );
    // Inside a directory, a FIFO with a record's name is reported, not read (nor waited for),
    // and a record file that cannot be read is not also "no record here".
    let odd = dir.join("odd");
    std::fs::create_dir(&odd).expect("mkdir");
    assert!(
        Command::new("mkfifo")
            .arg(odd.join("x.csa"))
            .status()
            .expect("mkfifo")
            .success()
    );
    std::os::unix::fs::symlink("/nonexistent/kifu", odd.join("y.csa")).expect("symlink");
    let o = run_bounded(&["validate", "--format", "json", p(&odd)]);
    let codes: Vec<String> = parse_lines(&stdout(&o))
        .iter()
        .flat_map(|l| {
            l["diagnostics"]
                .as_array()
                .into_iter()
                .flatten()
                .map(|d| d["code"].as_str().unwrap_or_default().to_owned())
                .collect::<Vec<_>>()
        })
        .collect();
    assert_eq!(codes, ["skipped-entry", "io"], "{}", stdout(&o));
    // An output below a file: "not a directory", not "File exists".
    std::fs::write(dir.join("afile"), "").expect("write");
    for (cmd, target) in [
        ("games", "afile/x.parquet"),
        ("games", "afile/x.csv"),
        ("stats", "afile/s.json"),
    ] {
        let target = dir.join(target);
        let mut args = vec![cmd, "-o", p(&target), p(&src)];
        if target.extension().is_some_and(|e| e == "parquet") {
            args.extend(["--format", "parquet"]);
        }
        let o = cli_common::run(&args);
        assert_ne!(code(&o), 0);
        assert!(
            stderr(&o).contains("is a file, not a directory"),
            "{args:?}: {}",
            stderr(&o)
        );
    }
}
