//! Hostile input: the `kifu` binary run on inputs nobody should have to look at. Each test
//! checks that the run ends with a diagnostic or an error and the exit code from the contract
//! (0 no error, 1 an error diagnostic, 2 an input that could not be read), without a panic,
//! within a time bound, and (where the input is large) under a memory cap set with `ulimit -v`.

use std::fs;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use kifu::core::{Move, Position};
use kifu::formats;
use kifu::random::Rng;
use serde_json::Value;

const BIN: &str = env!("CARGO_BIN_EXE_kifu");

/// Runs kifu with a virtual-memory cap (`ulimit -v`, in MiB) and a wall-clock bound.
fn run_capped(args: &[&str], mem_mib: u64, limit: Duration) -> Output {
    let mut cmd = Command::new("sh");
    cmd.arg("-c")
        .arg(format!(
            "ulimit -v {} && exec \"$0\" \"$@\"",
            mem_mib * 1024
        ))
        .arg(BIN)
        .args(args)
        .stdin(Stdio::null());
    let start = Instant::now();
    let o = cmd.output().expect("run kifu");
    let took = start.elapsed();
    assert!(took < limit, "{args:?} took {took:?} (bound {limit:?})");
    o
}

fn run(args: &[&str]) -> Output {
    run_capped(args, 4096, Duration::from_secs(120))
}

fn code(o: &Output) -> i32 {
    o.status.code().unwrap_or(-1)
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn json_lines(o: &Output) -> Vec<Value> {
    String::from_utf8_lossy(&o.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("bad JSON line {l:?}: {e}")))
        .collect()
}

/// No panic, and an exit code from the contract.
fn assert_clean_exit(o: &Output, allowed: &[i32], what: &str) {
    let err = stderr(o);
    assert!(
        !err.contains("panicked") && !err.contains("RUST_BACKTRACE"),
        "{what}: {err}"
    );
    assert!(
        allowed.contains(&code(o)),
        "{what}: exit {:?}, wanted one of {allowed:?}\n{}",
        o.status,
        err.chars().take(2000).collect::<String>()
    );
}

fn p(path: &Path) -> &str {
    path.to_str().expect("utf-8 path")
}

const EXTS: [&str; 8] = ["kif", "kifu", "ki2", "ki2u", "csa", "usi", "sfen", "jkf"];

/// All the diagnostic codes of a JSON run.
fn codes(lines: &[Value]) -> Vec<String> {
    lines
        .iter()
        .filter_map(|l| l.get("diagnostics").and_then(Value::as_array))
        .flatten()
        .filter_map(|d| d["code"].as_str().map(str::to_owned))
        .collect()
}

#[test]
fn empty_files_give_a_diagnostic() {
    let dir = tempfile::tempdir().expect("tempdir");
    for ext in EXTS {
        let f = dir.path().join(format!("empty.{ext}"));
        fs::write(&f, b"").expect("write");
        let o = run(&["validate", "--format", "json", p(&f)]);
        assert_clean_exit(&o, &[0, 1], ext);
        let lines = json_lines(&o);
        assert!(lines.last().is_some_and(|l| l.get("summary").is_some()));
        for to in ["kif", "csa", "jkf"] {
            let o = run(&["convert", "--to", to, p(&f)]);
            assert_clean_exit(&o, &[0, 1], &format!("convert {ext} to {to}"));
        }
    }
    let o = Command::new(BIN)
        .args(["validate"])
        .stdin(Stdio::null())
        .output()
        .expect("run");
    assert_clean_exit(&o, &[0, 1], "empty stdin");
}

#[test]
fn binary_junk_gives_diagnostics() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut rng = Rng::new(7);
    for (i, ext) in EXTS.iter().chain(&["bin"]).enumerate() {
        let mut bytes: Vec<u8> = (0..65536).map(|_| rng.next_u64() as u8).collect();
        if i % 2 == 0 {
            // Some newlines and record-like bytes among the junk.
            for j in (0..bytes.len()).step_by(97) {
                bytes[j] = b'\n';
            }
        }
        let f = dir.path().join(format!("junk.{ext}"));
        fs::write(&f, &bytes).expect("write");
        let o = run(&[
            "validate",
            "--format",
            "json",
            "--input-format",
            "auto",
            p(&f),
        ]);
        assert_clean_exit(&o, &[0, 1], ext);
        for fmt in ["kif", "ki2", "csa", "usi", "jkf"] {
            let o = run(&["validate", "-q", "--input-format", fmt, p(&f)]);
            assert_clean_exit(&o, &[0, 1], &format!("{ext} as {fmt}"));
        }
        for enc in ["utf-8", "shift_jis"] {
            let o = run(&["stats", "--encoding", enc, p(&f)]);
            assert_clean_exit(&o, &[0, 1], &format!("stats {ext} {enc}"));
        }
    }
}

/// A 100 MB line in each format: refused with an `io` diagnostic naming the limit, in little
/// time and memory, and the files around it are still read.
#[test]
fn a_100_mb_line_is_refused_with_bounded_memory() {
    let dir = tempfile::tempdir().expect("tempdir");
    let n = 100 << 20;
    let cases: Vec<(&str, Vec<u8>)> = vec![
        ("long.kifu", {
            let mut v = "手数----指手---------消費時間--\n".as_bytes().to_vec();
            v.resize(v.len() + n, b'x');
            v.push(b'\n');
            v
        }),
        ("long.usi", {
            let mut v = b"position startpos moves 7g7f 3c3d\nposition startpos moves ".to_vec();
            while v.len() < n {
                v.extend_from_slice(b"7g7f 3c3d ");
            }
            v.push(b'\n');
            v
        }),
        ("long.csa", {
            let mut v = b"V2.2\nPI\n+\n'".to_vec();
            v.resize(v.len() + n, b'c');
            v.extend_from_slice(b"\n+7776FU\n%TORYO\n");
            v
        }),
        ("long.jkf", {
            let mut v = br#"{"header":{"x":""#.to_vec();
            v.resize(v.len() + n, b'y');
            v.extend_from_slice(br#""},"moves":[{}]}"#);
            v
        }),
    ];
    let ok = dir.path().join("ok.usi");
    fs::write(&ok, "position startpos moves 7g7f 3c3d\n").expect("write");
    for (name, bytes) in cases {
        let f = dir.path().join(name);
        fs::write(&f, &bytes).expect("write");
        drop(bytes);
        // 1 GiB of address space: the file alone is 100 MB; reading it whole several times
        // over would not fit.
        let o = run_capped(
            &["validate", "--format", "json", "-j", "1", p(&f), p(&ok)],
            1024,
            Duration::from_secs(60),
        );
        assert_clean_exit(&o, &[2], name);
        let lines = json_lines(&o);
        let refused = lines
            .iter()
            .flat_map(|l| l["diagnostics"].as_array().cloned().unwrap_or_default())
            .find(|d| d["code"] == "io")
            .unwrap_or_else(|| panic!("{name}: no io diagnostic: {lines:?}"));
        let msg = refused["message"].as_str().unwrap_or_default();
        assert!(msg.contains("limit") && msg.len() < 300, "{name}: {msg}");
        assert!(
            lines
                .iter()
                .any(|l| l["path"].as_str().is_some_and(|s| s.ends_with("ok.usi"))),
            "{name}: the next file is still read"
        );
        if name == "long.usi" {
            // The short game before the long line is still validated.
            assert!(
                lines.iter().any(|l| l["game"] == 0 && l["plies"] == 2),
                "{lines:?}"
            );
        }
        fs::remove_file(&f).expect("remove");
    }
}

/// `mv` in `pos` as KIF writes it: `７六歩(77)`, `５五角打`, `２二角成(88)`.
fn kif_move(pos: &Position, mv: Move) -> String {
    const FW: [&str; 10] = ["", "１", "２", "３", "４", "５", "６", "７", "８", "９"];
    const KANJI: [&str; 10] = ["", "一", "二", "三", "四", "五", "六", "七", "八", "九"];
    let to = mv.to();
    let sq = format!("{}{}", FW[to.file() as usize], KANJI[to.rank() as usize]);
    match mv {
        Move::Normal { from, promote, .. } => {
            let kind = pos
                .piece_at(from)
                .map(|p| p.kind.kif_name())
                .unwrap_or("歩");
            let pr = if promote { "成" } else { "" };
            format!("{sq}{kind}{pr}({}{})", from.file(), from.rank())
        }
        Move::Drop { kind, .. } => format!("{sq}{}打", kind.kif_name()),
    }
}

/// KIF text whose variations nest `depth` deep, every move legal: one long legal line `L`
/// (no position repeated, nobody in check), the main line `X_1`, and block k `変化：k手` =
/// `[L_k, X_k+1]`, an alternative to `X_k` of the block before it.
fn deeply_nested_kif(depth: usize) -> String {
    let mut rng = Rng::new(3);
    let mut pos = Position::startpos();
    let mut seen = std::collections::HashSet::new();
    seen.insert(pos.key());
    let mut steps: Vec<(String, String)> = Vec::new();
    while steps.len() < depth {
        let mut candidates: Vec<(Move, Position)> = Vec::new();
        for &mv in pos.legal_moves().iter() {
            let mut after = pos.clone();
            if after.play(mv).is_ok()
                && !seen.contains(&after.key())
                && !after.in_check()
                && !after.legal_moves().is_empty()
            {
                candidates.push((mv, after));
            }
        }
        assert!(candidates.len() >= 2, "stuck at ply {}", steps.len());
        let i = rng.below(candidates.len() as u64 - 1) as usize;
        let (alt, _) = candidates.swap_remove(i + 1);
        let (mv, after) = candidates.swap_remove(i);
        steps.push((kif_move(&pos, mv), kif_move(&pos, alt)));
        seen.insert(after.key());
        pos = after;
    }
    let mut text = String::from("手合割：平手\n手数----指手---------消費時間--\n");
    text.push_str(&format!("   1 {}\n", steps[0].1));
    for k in 1..depth {
        text.push_str(&format!(
            "\n変化：{k}手\n{k:4} {}\n{:4} {}\n",
            steps[k - 1].0,
            k + 1,
            steps[k].1
        ));
    }
    text
}

#[test]
fn thousands_of_nested_variations() {
    let dir = tempfile::tempdir().expect("tempdir");
    let f = dir.path().join("deep.kifu");
    fs::write(&f, deeply_nested_kif(3000)).expect("write");
    let o = run_capped(
        &["validate", "--format", "json", p(&f)],
        2048,
        Duration::from_secs(120),
    );
    // Variations nested deeper than 1000 levels are skipped with a syntax error per block;
    // everything above them (legal moves) validates clean.
    assert_clean_exit(&o, &[1], "deep.kifu");
    let lines = json_lines(&o);
    let c = codes(&lines);
    assert!(!c.is_empty() && c.iter().all(|c| c == "syntax"), "{c:?}");
    assert!(
        lines[0]["diagnostics"][0]["message"]
            .as_str()
            .is_some_and(|m| m.contains("nested")),
        "{}",
        lines[0]
    );
    for to in ["kifu", "ki2u", "csa", "usi", "jkf"] {
        let out = dir.path().join(format!("out.{to}"));
        let o = run_capped(
            &["convert", "-q", "--to", to, "-o", p(&out), p(&f)],
            2048,
            Duration::from_secs(120),
        );
        assert_clean_exit(&o, &[1], &format!("deep.kifu to {to}"));
        assert!(out.exists(), "{to}");
        // What was written reads back without a crash. The JKF writer writes 40 levels of
        // the 1000 (a `lossy` warning for the rest), which JSON readers read: it reads back
        // clean.
        let o = run(&["validate", "-q", p(&out)]);
        let want: &[i32] = if to == "jkf" { &[0] } else { &[0, 1] };
        assert_clean_exit(&o, want, &format!("deep.kifu as {to}, read back"));
    }
    // JKF nested 3000 forks deep: refused with a syntax diagnostic (JSON nesting limit).
    let mv = r#"{"move":{"color":0,"from":{"x":7,"y":7},"to":{"x":7,"y":6},"piece":"FU"}"#;
    let mut jkf = String::from(r#"{"header":{},"moves":[{},"#);
    for _ in 0..3000 {
        jkf.push_str(mv);
        jkf.push_str(r#","forks":[["#);
    }
    jkf.push_str(mv);
    jkf.push('}');
    for _ in 0..3000 {
        jkf.push_str("]]}");
    }
    jkf.push_str("]}");
    let f = dir.path().join("deep.jkf");
    fs::write(&f, &jkf).expect("write");
    let o = run_capped(
        &["validate", "--format", "json", p(&f)],
        2048,
        Duration::from_secs(60),
    );
    assert_clean_exit(&o, &[1], "deep.jkf");
    assert_eq!(codes(&json_lines(&o)), ["syntax"]);
}

#[test]
fn numbers_near_integer_limits() {
    let dir = tempfile::tempdir().expect("tempdir");
    let big = [
        "0",
        "2147483647",
        "2147483648",
        "4294967295",
        "4294967296",
        "9223372036854775807",
        "18446744073709551615",
        "18446744073709551616",
        "99999999999999999999999999999999",
    ];
    for (i, n) in big.iter().enumerate() {
        let cases: Vec<(&str, String)> = vec![
            (
                "kifu",
                format!(
                    "手数----指手---------消費時間--\n{n} ７六歩(77)   ( {n}:{n}/{n}:{n}:{n})\n   2 ３四歩(33)   ( 0:01/00:00:01)\n"
                ),
            ),
            (
                "kifu",
                format!("手合割：平手\n手数＝{n}\n{n} 投了\nまで{n}手で先手の勝ち\n"),
            ),
            (
                "ki2u",
                format!("手数＝{n}\n▲７六歩\n*{n}\nまで{n}手で後手の勝ち\n"),
            ),
            (
                "csa",
                format!("V2.2\nPI\n+\n+7776FU\nT{n}\n-3334FU\nT-{n}\n%TORYO\nT{n}.{n}\n"),
            ),
            (
                "usi",
                format!(
                    "position sfen lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b {n}P{n}p {n} moves 7g7f\nsfen 4k4/9/9/9/9/9/9/9/4K4 b - {n}\n"
                ),
            ),
            (
                "jkf",
                format!(
                    r#"{{"header":{{}},"initial":{{"preset":"OTHER","data":{{"board":[],"color":0,"hands":[{{"FU":{n}}},{{}}]}}}},"moves":[{{}},{{"move":{{"color":0,"from":{{"x":{n},"y":7}},"to":{{"x":7,"y":{n}}},"piece":"FU"}},"time":{{"now":{{"m":{n},"s":{n}}},"total":{{"h":{n},"m":0,"s":0}}}}}}]}}"#
                ),
            ),
        ];
        for (j, (ext, text)) in cases.iter().enumerate() {
            let f = dir.path().join(format!("n{i}-{j}.{ext}"));
            fs::write(&f, text).expect("write");
            let o = run(&["validate", "--format", "json", p(&f)]);
            assert_clean_exit(&o, &[0, 1], &format!("{n} in {ext}:\n{text}"));
            for to in ["kifu", "csa", "jkf", "usi"] {
                let o = run(&["convert", "-q", "--to", to, p(&f)]);
                assert_clean_exit(&o, &[0, 1], &format!("{n} in {ext} to {to}:\n{text}"));
            }
        }
    }
    // perft with a huge depth on a position with no moves, and a huge move number.
    let o = run(&[
        "perft",
        "4294967295",
        "--sfen",
        "4k4/4G4/4G4/9/9/9/9/9/4K4 w - 1",
    ]);
    assert_clean_exit(&o, &[0], "perft on a mated position");
    let o = run(&[
        "perft",
        "1",
        "--sfen",
        "4k4/9/9/9/9/9/9/9/4K4 b - 99999999999999999999",
    ]);
    assert_clean_exit(&o, &[0, 2], "perft with a huge move number");
}

#[test]
fn invalid_utf8_and_invalid_cp932() {
    let dir = tempfile::tempdir().expect("tempdir");
    let kif = "手合割：平手\n手数----指手---------消費時間--\n   1 ７六歩(77)\n   2 ３四歩(33)\n";
    // UTF-8 with a stray byte, a truncated sequence at the end and an overlong encoding.
    let mut utf8 = kif.as_bytes().to_vec();
    utf8.splice(10..10, [0xFFu8, 0xC0, 0x80]);
    utf8.extend_from_slice(&[0xE3, 0x81]);
    let f = dir.path().join("bad.kifu");
    fs::write(&f, &utf8).expect("write");
    let o = run(&["validate", "--format", "json", "--encoding", "utf-8", p(&f)]);
    assert_clean_exit(&o, &[1], "invalid UTF-8 forced");
    assert!(codes(&json_lines(&o)).contains(&"encoding".to_owned()));
    let o = run(&["validate", "--format", "json", p(&f)]);
    assert_clean_exit(&o, &[0, 1], "invalid UTF-8, auto");
    // CP932 with a lead byte followed by an invalid trail byte, and a lone lead byte at the end.
    let (mut sjis, _) = formats::decode::encode(kif, formats::decode::TextEncoding::Cp932);
    sjis.splice(4..4, [0x81u8, 0x20, 0xA0, 0xFD]);
    sjis.push(0x82);
    let f = dir.path().join("bad.kif");
    fs::write(&f, &sjis).expect("write");
    let o = run(&[
        "validate",
        "--format",
        "json",
        "--encoding",
        "shift_jis",
        p(&f),
    ]);
    assert_clean_exit(&o, &[1], "invalid CP932 forced");
    let lines = json_lines(&o);
    assert!(codes(&lines).contains(&"encoding".to_owned()), "{lines:?}");
    let o = run(&["validate", "--format", "json", p(&f)]);
    assert_clean_exit(&o, &[0, 1], "invalid CP932, auto");
    // Converting such a file still writes valid text.
    let o = run(&["convert", "--to", "kifu", p(&f)]);
    assert_clean_exit(&o, &[1], "convert invalid CP932");
    assert!(String::from_utf8(o.stdout).is_ok());
}

fn zip_with(path: &Path, entries: &[(&str, &[u8])]) {
    let f = fs::File::create(path).expect("create");
    let mut z = zip::ZipWriter::new(f);
    let opts = zip::write::SimpleFileOptions::default()
        .compression_method(zip::CompressionMethod::Deflated)
        .large_file(true);
    for (name, bytes) in entries {
        z.start_file(*name, opts).expect("start");
        z.write_all(bytes).expect("write");
    }
    z.finish().expect("finish");
}

/// A zip bomb: entries that expand a thousandfold. With the default limits, each gives an `io`
/// diagnostic naming the limit, quickly and in bounded memory; the entries after still count.
#[test]
fn zip_bomb_has_bounded_expansion() {
    let dir = tempfile::tempdir().expect("tempdir");
    let zip_path = dir.path().join("bomb.zip");
    let zeros = vec![0u8; 256 << 20];
    let spaces = vec![b' '; 64 << 20];
    let ok = b"position startpos moves 7g7f 3c3d\n";
    // Millions of tiny valid games: each is cheap, but all of them would keep a run busy for
    // a minute; only the expansion-ratio bound stops this entry.
    let games = ok.repeat(games_bomb_bytes() / ok.len());
    zip_with(
        &zip_path,
        &[
            ("zeros.kif", &zeros),
            ("spaces.csa", &spaces),
            ("games.usi", &games),
            ("ok.usi", ok),
        ],
    );
    drop(zeros);
    drop(spaces);
    drop(games);
    let zip_size = fs::metadata(&zip_path).expect("meta").len();
    assert!(zip_size < 2 << 20, "{zip_size}");
    let o = run_capped(
        &["validate", "--format", "json", p(&zip_path)],
        1024,
        bomb_time_bound(),
    );
    assert_clean_exit(&o, &[2], "zip bomb");
    let lines = json_lines(&o);
    let io = io_messages(&lines);
    assert_eq!(io.len(), 3, "{io:?}");
    assert!(io.iter().all(|m| m.contains("limit")), "{io:?}");
    // The games entry is cut by the ratio bound: 50 times its compressed size, at least 16 MiB.
    let guard: Vec<_> = lines
        .iter()
        .filter(|l| l["path"].as_str().is_some_and(|s| s.ends_with("games.usi")))
        .flat_map(|l| l["diagnostics"].as_array().into_iter().flatten())
        .filter_map(|d| d["message"].as_str())
        .collect();
    assert!(
        guard.len() == 1 && guard[0].contains("zip-bomb guard") && guard[0].contains("50 times"),
        "{guard:?}"
    );
    let games_read = lines
        .iter()
        .filter(|l| l["path"].as_str().is_some_and(|s| s.ends_with("games.usi")) && l["plies"] == 2)
        .count() as u64;
    let most = (50 * zip_size).max(16 << 20) / ok.len() as u64;
    assert!(
        games_read > 1000 && games_read <= most,
        "{games_read} games read (most {most})"
    );
    assert!(
        lines
            .iter()
            .any(|l| l["path"].as_str().is_some_and(|s| s.ends_with("ok.usi")) && l["plies"] == 2)
    );
    // With the ratio bound off, only the 4 GiB entry bound is left: the whole entry is read.
    // (Not run here: it takes a minute; `--max-expansion-ratio 0` is what turns it off.)
}

/// The same games bomb as a `.tar.gz`: a tar entry has no compressed size of its own, so the
/// whole archive is bounded by 50 times the archive's size; the entry is cut and the rest of
/// the archive is reported as not read.
#[test]
fn tar_gz_bomb_has_bounded_expansion() {
    let dir = tempfile::tempdir().expect("tempdir");
    let ok = b"position startpos moves 7g7f 3c3d\n";
    let games = ok.repeat(games_bomb_bytes() / ok.len());
    let mut tar_bytes = Vec::new();
    tar_entry(&mut tar_bytes, "games.usi", &games);
    drop(games);
    tar_entry(&mut tar_bytes, "ok.usi", ok);
    tar_bytes.resize(tar_bytes.len() + 1024, 0);
    let path = dir.path().join("bomb.tar.gz");
    let mut gz = flate2::write::GzEncoder::new(
        fs::File::create(&path).expect("create"),
        flate2::Compression::best(),
    );
    gz.write_all(&tar_bytes).expect("write");
    gz.finish().expect("finish");
    drop(tar_bytes);
    let size = fs::metadata(&path).expect("meta").len();
    assert!(size < 2 << 20, "{size}");
    let o = run_capped(
        &["validate", "--format", "json", p(&path)],
        1024,
        bomb_time_bound(),
    );
    assert_clean_exit(&o, &[2], "tar.gz bomb");
    let lines = json_lines(&o);
    let io = io_messages(&lines);
    assert!(!io.is_empty(), "{lines:?}");
    assert!(
        io.iter()
            .any(|m| m.contains("zip-bomb guard") && m.contains("limit")),
        "{io:?}"
    );
    let games_read = lines.iter().filter(|l| l["plies"] == 2).count() as u64;
    let most = (50 * size).max(16 << 20) / ok.len() as u64;
    assert!(
        games_read > 1000 && games_read <= most,
        "{games_read} games read (most {most})"
    );
}

/// Bytes of tiny USI games in the bombs: 256 MiB in release; 64 MiB in the test profile, where
/// reading the 16 MiB the guard lets through already takes several seconds.
fn games_bomb_bytes() -> usize {
    if cfg!(debug_assertions) {
        64 << 20
    } else {
        256 << 20
    }
}

/// A bomb's run is bounded in time: 5 s with an optimised binary (1.8 s measured with the other
/// core busy; without the ratio bound the 256 MiB of games take 10 s); generous in
/// the test profile (unoptimised, and sharing the machine with other tests).
fn bomb_time_bound() -> Duration {
    if cfg!(debug_assertions) {
        Duration::from_secs(120)
    } else {
        Duration::from_secs(5)
    }
}

/// The messages of every `io` diagnostic of a JSON-lines run.
fn io_messages(lines: &[Value]) -> Vec<String> {
    lines
        .iter()
        .flat_map(|l| l["diagnostics"].as_array().into_iter().flatten())
        .filter(|d| d["code"] == "io")
        .filter_map(|d| d["message"].as_str().map(str::to_owned))
        .collect()
}

/// A tar header for `name` (written into the raw name field, so `..` and `/` survive).
fn tar_entry(out: &mut Vec<u8>, name: &str, body: &[u8]) {
    let mut h = tar::Header::new_old();
    h.as_old_mut().name[..name.len()].copy_from_slice(name.as_bytes());
    h.set_size(body.len() as u64);
    h.set_mode(0o644);
    h.set_entry_type(tar::EntryType::Regular);
    h.set_cksum();
    out.extend_from_slice(h.as_bytes());
    out.extend_from_slice(body);
    out.resize(out.len().div_ceil(512) * 512, 0);
}

#[test]
fn archive_entry_names_never_write_outside_the_output_directory() {
    let dir = tempfile::tempdir().expect("tempdir");
    let root = dir.path();
    let game = b"position startpos moves 7g7f 3c3d\n";
    let names = [
        "../escape1.usi",
        "a/../../escape2.usi",
        "/tmp/kifu-hostile-escape3.usi",
        "./fine/inner.usi",
        "fine.usi",
    ];
    zip_with(
        &root.join("in.zip"),
        &names.iter().map(|n| (*n, &game[..])).collect::<Vec<_>>(),
    );
    let mut tar_bytes = Vec::new();
    for n in names {
        tar_entry(&mut tar_bytes, n, game);
    }
    tar_bytes.resize(tar_bytes.len() + 1024, 0);
    fs::write(root.join("in.tar"), &tar_bytes).expect("write");
    let work = root.join("work");
    fs::create_dir_all(&work).expect("mkdir");
    for archive in ["in.zip", "in.tar"] {
        // (`out-in.zip` would name a zip file, not a directory: refused.)
        let out = work.join(format!("out-{}", archive.replace('.', "-")));
        let o = run(&[
            "convert",
            "--to",
            "csa",
            "-o",
            p(&out),
            p(&root.join(archive)),
        ]);
        assert_clean_exit(&o, &[2], archive);
        let err = stderr(&o);
        assert!(err.contains("refusing"), "{archive}: {err}");
        // What was written is inside `out`, and only the safe names.
        let mut written: Vec<PathBuf> = walk(&out)
            .into_iter()
            .map(|f| f.strip_prefix(&out).expect("inside").to_path_buf())
            .collect();
        written.sort();
        assert_eq!(
            written,
            [PathBuf::from("fine/inner.csa"), PathBuf::from("fine.csa")],
            "{archive}"
        );
    }
    let everything = walk(root);
    for f in &everything {
        let name = f.file_name().and_then(|n| n.to_str()).unwrap_or_default();
        assert!(
            !name.starts_with("escape"),
            "written outside: {}",
            f.display()
        );
    }
    assert!(!Path::new("/tmp/kifu-hostile-escape3.csa").exists());
    assert!(!root.parent().expect("parent").join("escape1.csa").exists());
}

fn walk(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let Ok(rd) = fs::read_dir(&d) else { continue };
        for e in rd.flatten() {
            let path = e.path();
            let Ok(t) = e.file_type() else { continue };
            if t.is_dir() {
                stack.push(path);
            } else {
                out.push(path);
            }
        }
    }
    out
}

#[cfg(unix)]
#[test]
fn symlink_loops_in_a_directory_tree() {
    use std::os::unix::fs::symlink;
    let dir = tempfile::tempdir().expect("tempdir");
    let root = dir.path().join("tree");
    fs::create_dir_all(root.join("sub/deeper")).expect("mkdir");
    fs::write(
        root.join("sub/deeper/g.usi"),
        "position startpos moves 7g7f\n",
    )
    .expect("write");
    symlink(&root, root.join("sub/deeper/up")).expect("symlink");
    symlink("..", root.join("sub/parent")).expect("symlink");
    symlink(root.join("a.kif"), root.join("b.kif")).expect("symlink");
    symlink(root.join("b.kif"), root.join("a.kif")).expect("symlink");
    let o = run_capped(
        &["validate", "--format", "json", p(&root)],
        1024,
        Duration::from_secs(30),
    );
    // The looping links `a.kif`/`b.kif` cannot be opened: an `io` diagnostic and exit 2.
    assert_clean_exit(&o, &[2], "symlink loops");
    let lines = json_lines(&o);
    let games: Vec<&Value> = lines.iter().filter(|l| l["plies"] == 1).collect();
    assert_eq!(games.len(), 1, "the real file is validated once: {lines:?}");
    assert!(codes(&lines).iter().all(|c| c == "io"), "{lines:?}");
    // Converting the tree terminates too and writes the one game.
    let out = dir.path().join("out");
    let o = run_capped(
        &["convert", "-q", "--to", "csa", "-o", p(&out), p(&root)],
        1024,
        Duration::from_secs(30),
    );
    assert_clean_exit(&o, &[2], "convert symlink loops");
    assert_eq!(walk(&out).len(), 1, "{:?}", walk(&out));
}

/// Damaged archives next to a good file: a zip cut short (its entries read from their local
/// headers), a tar cut at an entry's edge (its
/// end-of-archive blocks gone), a tar cut inside an entry, a tar.gz with a byte of its deflate
/// stream changed, junk named `.zip` and `.tgz`, an empty `.tar`. Each gives an `io`
/// diagnostic naming the archive, the entries before the damage are still read, the good file
/// is read, exit 2; `convert -o` writes only what it read whole.
#[test]
fn damaged_archives_are_reported_and_the_run_goes_on() {
    let dir = tempfile::tempdir().expect("tempdir");
    let root = dir.path();
    let first = "position startpos moves 7g7f 3c3d\n";
    let second = "position startpos moves 7g7f 3c3d 2g2f 8c8d\n";
    let mut tar = Vec::new();
    tar_entry(&mut tar, "first.usi", first.as_bytes());
    let edge = tar.len();
    tar_entry(&mut tar, "second.usi", second.as_bytes());
    tar.extend_from_slice(&[0; 1024]);
    fs::write(root.join("edge.tar"), &tar[..edge]).expect("write");
    fs::write(root.join("inside.tar"), &tar[..edge + 512 + 10]).expect("write");
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    gz.write_all(&tar).expect("gzip");
    let mut gz = gz.finish().expect("gzip");
    // A byte of the deflate stream (after the 10-byte gzip header) changed: whatever it
    // inflates to, the gzip checksum no longer matches.
    gz[12] ^= 0x10;
    fs::write(root.join("flipped.tar.gz"), &gz).expect("write");
    let zip_path = root.join("cut.zip");
    zip_with(&zip_path, &[("first.usi", first.as_bytes())]);
    let zip = fs::read(&zip_path).expect("read");
    fs::write(&zip_path, &zip[..zip.len() - 30]).expect("write");
    fs::write(root.join("junk.zip"), b"PK\x03\x04 not really a zip").expect("write");
    fs::write(root.join("junk.tgz"), b"\x1f\x8b\x08 not really gzip").expect("write");
    fs::write(root.join("empty.tar"), b"").expect("write");
    fs::write(root.join("good.usi"), second).expect("write");
    let o = run(&["validate", "--format", "json", p(root)]);
    assert_clean_exit(&o, &[2], "damaged archives");
    let lines = json_lines(&o);
    let io_of = |name: &str| -> Vec<String> {
        lines
            .iter()
            .filter(|l| l["path"].as_str().is_some_and(|s| s.contains(name)))
            .flat_map(|l| l["diagnostics"].as_array().into_iter().flatten())
            .filter(|d| d["code"] == "io")
            .filter_map(|d| d["message"].as_str().map(str::to_owned))
            .collect()
    };
    for (name, says) in [
        ("edge.tar", "end-of-archive"),
        ("inside.tar", "short of its stated size"),
        ("flipped.tar.gz", "cannot read archive"),
        ("cut.zip", "central directory"),
        ("junk.zip", "cannot read archive"),
        ("junk.tgz", "cannot read archive"),
        ("empty.tar", "end-of-archive"),
    ] {
        let m = io_of(name);
        assert!(m.iter().any(|m| m.contains(says)), "{name}: {m:?}");
    }
    // The entries before the damage, and the good file, are read and clean.
    let clean = |path: &str| {
        lines.iter().any(|l| {
            l["path"].as_str() == Some(path)
                && l["diagnostics"].as_array().is_some_and(Vec::is_empty)
        })
    };
    for name in [
        "edge.tar/first.usi",
        "inside.tar/first.usi",
        "cut.zip/first.usi",
        "good.usi",
    ] {
        assert!(
            clean(p(&root.join(name))),
            "{name} not read clean: {lines:?}"
        );
    }
    // `convert -o` writes the entries read whole, and nothing for the cut one.
    for name in ["edge.tar", "inside.tar", "cut.zip"] {
        let out = tempfile::tempdir().expect("tempdir");
        let o = run(&[
            "convert",
            "--to",
            "csa",
            "-o",
            p(out.path()),
            p(&root.join(name)),
        ]);
        assert_clean_exit(&o, &[2], name);
        let written: Vec<PathBuf> = walk(out.path())
            .iter()
            .map(|f| f.strip_prefix(out.path()).expect("inside").to_path_buf())
            .collect();
        assert_eq!(written, [PathBuf::from("first.csa")], "{name}");
    }
}

#[cfg(unix)]
#[test]
fn unreadable_files_are_reported_and_the_run_goes_on() {
    use std::os::unix::fs::{PermissionsExt, symlink};
    let dir = tempfile::tempdir().expect("tempdir");
    let root = dir.path();
    fs::write(root.join("a.usi"), "position startpos moves 7g7f\n").expect("write");
    symlink(root.join("missing.kif"), root.join("dangling.kif")).expect("symlink");
    let locked = root.join("locked.csa");
    fs::write(&locked, "V2.2\nPI\n+\n+7776FU\n").expect("write");
    fs::set_permissions(&locked, fs::Permissions::from_mode(0o000)).expect("chmod");
    // A root user reads it anyway; then only the dangling link is unreadable.
    let locked_unreadable = fs::File::open(&locked).is_err();
    let o = run(&["validate", "--format", "json", p(root)]);
    assert_clean_exit(&o, &[2], "unreadable");
    let lines = json_lines(&o);
    let nulls: Vec<&Value> = lines
        .iter()
        .filter(|l| l["game"].is_null() && l.get("path").is_some())
        .collect();
    assert_eq!(nulls.len(), 1 + usize::from(locked_unreadable), "{lines:?}");
    assert!(
        lines
            .iter()
            .any(|l| l["path"].as_str().is_some_and(|s| s.ends_with("a.usi")))
    );
    // Named directly on the command line, too.
    let o = run(&[
        "validate",
        p(&root.join("dangling.kif")),
        p(&root.join("a.usi")),
    ]);
    assert_clean_exit(&o, &[2], "dangling link named");
    let o = run(&["validate", p(&root.join("no-such-file.kif"))]);
    assert_clean_exit(&o, &[2], "missing file named");
    // A directory where a file is expected.
    fs::create_dir(root.join("dir.kif")).expect("mkdir");
    let o = run(&["convert", "--to", "csa", p(&root.join("dir.kif"))]);
    assert_clean_exit(&o, &[0, 1, 2], "a directory named like a file");
    fs::set_permissions(&locked, fs::Permissions::from_mode(0o644)).expect("chmod");
}

/// The reading end of stdout goes away after a few bytes: every command stops quietly with
/// exit 0.
#[test]
fn stdout_closed_early() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut text = String::new();
    for _ in 0..100_000 {
        text.push_str("startpos moves 7g7f 3c3d 8h2b+ 3a2b\n");
    }
    let f = dir.path().join("many.usi");
    fs::write(&f, &text).expect("write");
    let commands: [&[&str]; 4] = [
        &["validate", "--format", "json"],
        &["validate"],
        &["convert", "--to", "kifu"],
        &["stats", "--format", "json"],
    ];
    for args in commands {
        let mut child = Command::new(BIN)
            .args(args)
            .arg(p(&f))
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("spawn");
        let mut out = child.stdout.take().expect("stdout");
        let mut buf = [0u8; 1];
        let _ = out.read(&mut buf);
        drop(out);
        let o = child.wait_with_output().expect("wait");
        assert_clean_exit(&o, &[0], &format!("{args:?}"));
    }
}

/// A conversion killed at any moment leaves every output file either absent or complete:
/// outputs are written to a hidden temporary file and renamed into place when whole.
#[cfg(unix)]
#[test]
fn a_killed_conversion_leaves_no_half_written_output() {
    let dir = tempfile::tempdir().expect("tempdir");
    let input = dir.path().join("in");
    fs::create_dir_all(&input).expect("mkdir");
    // A few big multi-game files, so a kill lands inside one.
    let mut text = String::new();
    for _ in 0..40_000 {
        text.push_str("startpos moves 7g7f 3c3d 8h2b+ 3a2b\n");
    }
    for i in 0..4 {
        fs::write(input.join(format!("g{i}.usi")), &text).expect("write");
    }
    // The complete conversion, for reference.
    let full = dir.path().join("full");
    let o = run(&["convert", "-q", "--to", "csa", "-o", p(&full), p(&input)]);
    assert_clean_exit(&o, &[0], "full conversion");
    let reference = fs::read(full.join("g0.csa")).expect("reference");
    let mut cut_short = 0;
    for delay_ms in [50u64, 150, 300, 600] {
        let out = dir.path().join(format!("out{delay_ms}"));
        let mut child = Command::new(BIN)
            .args([
                "convert",
                "-q",
                "-j",
                "1",
                "--to",
                "csa",
                "-o",
                p(&out),
                p(&input),
            ])
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("spawn");
        std::thread::sleep(Duration::from_millis(delay_ms));
        let _ = child.kill(); // SIGKILL: no cleanup runs
        let _ = child.wait();
        let mut complete = 0;
        for f in walk(&out) {
            let name = f
                .file_name()
                .and_then(|n| n.to_str())
                .unwrap_or_default()
                .to_owned();
            if name.starts_with(".kifu-") {
                continue; // the hidden temporary file of the output being written
            }
            complete += 1;
            let bytes = fs::read(&f).expect("read");
            assert_eq!(
                bytes.len(),
                reference.len(),
                "{} is half-written",
                f.display()
            );
            assert_eq!(bytes, reference, "{}", f.display());
        }
        if complete < 4 {
            cut_short += 1;
        }
    }
    assert!(
        cut_short > 0,
        "no kill landed before the end: the test showed nothing"
    );
}

/// Header values and boards that once went wrong without a word (issue #45), through every
/// table and filter: dates with a weekday in full-width brackets or 午前/午後 (the time parser
/// sliced inside a character and panicked), boards of the wrong shape in CSA, KIF and JKF.
#[test]
fn odd_dates_and_board_shapes() {
    let dir = tempfile::tempdir().expect("tempdir");
    let moves = "+7776FU\n-3334FU\n%TORYO\n";
    let row9 = "P9+KY+KE+GI+KI+OU+KI+GI+KE+KY\n";
    let board = |p2: &str| {
        format!(
            "P1-KY-KE-GI-KI-OU-KI-GI-KE-KY\n{p2}\nP3-FU-FU-FU-FU-FU-FU-FU-FU-FU\nP4 *  *  *  *  *  *  *  *  * \n\
             P5 *  *  *  *  *  *  *  *  * \nP6 *  *  *  *  *  *  *  *  * \nP7+FU+FU+FU+FU+FU+FU+FU+FU+FU\n\
             P8 * +KA *  *  *  *  * +HI * \n{row9}"
        )
    };
    let files: Vec<(&str, String)> = vec![
        ("a.csa", format!("V2.2\n$START_TIME:2024/05/01 午後１２：３０\nPI\n+\n{moves}")),
        ("b.csa", format!("V2.2\n$START_TIME:（水）午前:\n{}+\n{moves}", board("P2 * -HI *  *  *  *  * -KA *  * "))),
        ("c.csa", format!("V2.2\n{}+\n{moves}", board("P2 * -HI *  *  *  *  * -KA"))),
        (
            "d.kifu",
            "開始日時：2024/05/01（水）午後10:00\n手合割：平手\n手数----指手---------消費時間--\n   1 ７六歩(77)\n"
                .to_owned(),
        ),
        (
            "e.jkf",
            r#"{"header":{"開始日時":"２０２４年５月１日（水）午前１０：００"},"initial":{"preset":"OTHER","data":{"color":5,"board":[[]],"hands":[{},{}]}},"moves":[{}]}"#
                .to_owned(),
        ),
    ];
    for (name, text) in &files {
        fs::write(dir.path().join(name), text).expect("write");
    }
    let path = p(dir.path());
    let out = tempfile::tempdir().expect("tempdir");
    let out = out.path().join("out");
    for args in [
        &["validate", "--format", "json", path][..],
        &["games", "--format", "json", path][..],
        &["games", "--format", "json", "--since", "2024-05-01", path][..],
        &["positions", "--format", "csv", path][..],
        &["stats", "--format", "json", path][..],
        &["convert", "--to", "kifu", "-o", p(&out), path][..],
    ] {
        let o = run(args);
        assert_clean_exit(&o, &[0, 1], &format!("{args:?}"));
    }
    let o = run(&["validate", "--format", "json", path]);
    for l in json_lines(&o) {
        let Some(name) = l["path"].as_str() else {
            continue;
        };
        let found = codes(std::slice::from_ref(&l));
        let shaped = ["b.csa", "c.csa", "e.jkf"]
            .iter()
            .any(|n| name.ends_with(n));
        assert_eq!(
            found.iter().any(|c| c == "syntax"),
            shaped,
            "{name}: {found:?}"
        );
    }
    let o = run(&[
        "games",
        "--format",
        "json",
        "--columns",
        "path,start_time",
        path,
    ]);
    let times: Vec<String> = json_lines(&o)
        .iter()
        .map(|l| l["start_time"].as_str().unwrap_or("-").to_owned())
        .collect();
    assert_eq!(
        times,
        [
            "2024-05-01T12:30:00",
            "-",
            "-",
            "2024-05-01T22:00:00",
            "2024-05-01T10:00:00"
        ]
    );
}
