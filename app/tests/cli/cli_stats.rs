//! `kifu stats`: the CSV table (fixed columns, every row as wide as the header), lists not cut
//! short unless `--top` says so, openings that cannot be taken said so, and the exit code (0
//! whenever the input could be read). The CSV is also loaded with pandas and DuckDB by
//! `tests/python/test_stats_csv.py` (run by `.ci/run`).

use std::fs;
use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::cli_common;
use cli_common::{code, fixtures, p, run, stderr, stdout};

/// A CSA file of `n` games of four plies, each between two players of its own whose names
/// need quoting in CSV (a comma, a quote).
fn many_players(dir: &Path, n: usize) -> PathBuf {
    let games: Vec<String> = (0..n)
        .map(|i| {
            format!(
                "V2.2\nN+Black, \"{i:02}\"\nN-White {i:02}\nPI\n+\n+7776FU\n-3334FU\n+8822UM\n\
                 -3122GI\n%TORYO\n"
            )
        })
        .collect();
    let f = dir.join("many.csa");
    fs::write(&f, games.join("/\n")).expect("write");
    f
}

fn json(args: &[&str]) -> Value {
    let o = run(args);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    serde_json::from_str(stdout(&o).trim()).expect("json")
}

/// The CSV's records, header first, each checked to have the header's width.
fn csv_records(args: &[&str]) -> Vec<Vec<String>> {
    let o = run(args);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let mut r = csv::ReaderBuilder::new()
        .has_headers(false)
        .from_reader(o.stdout.as_slice());
    let records: Vec<Vec<String>> = r
        .records()
        .map(|rec| {
            rec.expect("an RFC 4180 record")
                .iter()
                .map(str::to_owned)
                .collect()
        })
        .collect();
    assert_eq!(records[0], kifu::stats::CSV_HEADER);
    for rec in &records {
        assert_eq!(rec.len(), kifu::stats::CSV_HEADER.len(), "{rec:?}");
    }
    records
}

fn section<'a>(records: &'a [Vec<String>], name: &str) -> Vec<&'a Vec<String>> {
    records.iter().filter(|r| r[0] == name).collect()
}

#[test]
fn csv_is_one_table_that_agrees_with_json() {
    let dir = fixtures();
    let v = json(&["stats", "--format", "json", p(&dir)]);
    let records = csv_records(&["stats", "--format", "csv", p(&dir)]);
    let value = |sec: &str, key: &str| {
        section(&records, sec)
            .into_iter()
            .find(|r| r[1] == key)
            .map(|r| r[2].clone())
            .unwrap_or_else(|| panic!("no {sec} {key}"))
    };
    assert_eq!(value("total", "games"), v["games"].to_string());
    assert_eq!(value("total", "plies"), v["plies"].to_string());
    assert_eq!(value("results", "white"), v["results"]["white"].to_string());
    assert_eq!(
        value("lengths", "p50"),
        v["lengths"]["percentiles"]["p50"].to_string()
    );
    assert_eq!(value("lengths", "mean"), v["lengths"]["mean"].to_string());
    for (code, n) in v["fouls"].as_object().expect("fouls") {
        assert_eq!(value("fouls", code), n.to_string());
    }
    let endings = section(&records, "endings");
    assert_eq!(endings.len(), v["endings"].as_object().unwrap().len());
    // Openings: games and their results by outcome, in the JSON's order.
    let openings = section(&records, "openings");
    assert_eq!(openings.len(), v["openings"].as_array().unwrap().len());
    for (row, o) in openings.iter().zip(v["openings"].as_array().unwrap()) {
        assert_eq!(row[1], o["moves"].as_str().unwrap());
        assert_eq!(row[2], o["games"].to_string());
        assert_eq!(
            row[3..7],
            ["black", "white", "draw", "other"].map(|k| o["results"][k].to_string())
        );
        assert!(row[7..].iter().all(String::is_empty), "{row:?}");
    }
    // Time: the mean is empty when no move time is recorded, never left out.
    assert_eq!(section(&records, "time").len(), 2);
}

#[test]
fn every_player_is_listed_unless_top_says_otherwise() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let f = many_players(tmp.path(), 60);
    let v = json(&["stats", "--format", "json", p(&f)]);
    let players = v["players"].as_array().expect("players");
    assert_eq!(players.len(), 120, "not cut to 50");
    let records = csv_records(&["stats", "--format", "csv", p(&f)]);
    let rows = section(&records, "players");
    assert_eq!(rows.len(), 120);
    let quoted = rows
        .iter()
        .find(|r| r[1] == "Black, \"07\"")
        .expect("a name with a comma and quotes, read back whole");
    assert_eq!(quoted[2..10], ["1", "", "", "", "", "0", "1", "0"]);
    // The duplicates: one group of 60, one row per game.
    let dups = section(&records, "duplicates");
    assert_eq!(dups.len(), 60);
    assert!(
        dups.iter()
            .all(|r| r[1] == "1" && r[2] == "60" && r[10].ends_with("many.csa"))
    );
    let games: Vec<&str> = dups.iter().map(|r| r[11].as_str()).collect();
    assert_eq!(games[..3], ["0", "1", "2"]);

    // People get the top 20 by default.
    let human = stdout(&run(&["stats", p(&f)]));
    assert_eq!(
        human
            .lines()
            .filter(|l| l.contains(" games ") && l.contains(" W "))
            .count(),
        20
    );

    // `--top` cuts every list, in every format.
    let v = json(&[
        "stats",
        "--format",
        "json",
        "--top",
        "5",
        "--opening-plies",
        "2",
        p(&f),
    ]);
    assert_eq!(v["players"].as_array().unwrap().len(), 5);
    assert_eq!(v["openings"].as_array().unwrap().len(), 1);
    let records = csv_records(&["stats", "--format", "csv", "--top", "5", p(&f)]);
    assert_eq!(section(&records, "players").len(), 5);
    let human = stdout(&run(&["stats", "--top", "3", p(&f)]));
    assert_eq!(
        human
            .lines()
            .filter(|l| l.contains(" games ") && l.contains(" W "))
            .count(),
        3
    );
}

#[test]
fn top_and_opening_plies_of_zero_are_usage_errors() {
    for args in [["--opening-plies", "0"], ["--top", "0"]] {
        let o = run(&["stats", args[0], args[1], p(&fixtures().join("ok"))]);
        assert_eq!(code(&o), 2, "{args:?}");
        assert!(stderr(&o).contains(args[0]), "{}", stderr(&o));
        assert!(stderr(&o).contains("at least 1"), "{}", stderr(&o));
        assert!(o.stdout.is_empty());
    }
}

#[test]
fn openings_past_every_game_are_a_note_not_a_silent_empty_section() {
    let ok = fixtures().join("ok");
    let o = run(&["stats", "--opening-plies", "500", p(&ok)]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let note = "no game has the 500 plies of an opening; the longest has 12";
    assert!(
        stderr(&o).contains(&format!("kifu: note: no openings: {note}")),
        "{}",
        stderr(&o)
    );
    assert!(
        stdout(&o).contains(&format!("openings: none ({note})")),
        "{}",
        stdout(&o)
    );
    for format in ["json", "csv"] {
        let o = run(&[
            "stats",
            "--format",
            format,
            "--opening-plies",
            "500",
            p(&ok),
        ]);
        assert_eq!(code(&o), 0);
        assert!(stderr(&o).contains(note), "{format}: {}", stderr(&o));
    }
    // Quiet: no note. Openings of a length some game has: no note either.
    let o = run(&["stats", "-q", "--opening-plies", "500", p(&ok)]);
    assert!(stderr(&o).is_empty(), "{}", stderr(&o));
    let o = run(&["stats", "--opening-plies", "2", p(&ok)]);
    assert!(!stderr(&o).contains("note"), "{}", stderr(&o));
    // Long enough games that all start from a composed position.
    let tmp = tempfile::tempdir().expect("tempdir");
    let f = tmp.path().join("composed.usi");
    fs::write(
        &f,
        "sfen 4k4/9/9/9/9/9/9/9/4K4 b - 1 moves 5i5h 5a5b 5h5i\n",
    )
    .expect("write");
    let o = run(&["stats", "--opening-plies", "2", p(&f)]);
    assert!(
        stderr(&o).contains(
            "no game of 2 plies or more starts from the even position or a named handicap"
        ),
        "{}",
        stderr(&o)
    );
}

#[test]
fn stats_exits_0_when_it_could_read_its_input() {
    let fouls = fixtures().join("fouls");
    assert_eq!(
        code(&run(&["validate", p(&fouls)])),
        1,
        "the fixtures hold errors"
    );
    for format in ["human", "json", "csv"] {
        let o = run(&["stats", "--format", format, p(&fouls)]);
        assert_eq!(code(&o), 0, "{format}: {}", stderr(&o));
    }
    let v = json(&["stats", "--format", "json", p(&fouls)]);
    assert!(
        v["fouls"]["nifu"].as_u64().unwrap() >= 1,
        "the fouls are counted"
    );
    // Input that cannot be read is still a failure.
    let tmp = tempfile::tempdir().expect("tempdir");
    let o = run(&["stats", p(&tmp.path().join("missing.kif"))]);
    assert_eq!(code(&o), 2, "{}", stderr(&o));
}
