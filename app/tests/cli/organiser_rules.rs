//! The organiser's rules for a run (`--time-control`, `--declaration`): applied to records
//! that state none (WCSC server logs state neither), in every command that validates and on
//! every way a game is read; a record's own header wins, and one stating other rules gets a
//! `rule-mismatch` warning.

use std::path::Path;

use serde_json::Value;

use crate::cli_common;
use cli_common::{code, parse_lines, run, stderr, stdout};

/// A WCSC-style log with no time control: Black spends 11:40 on its second move.
const WCSC: &str = "V2.2\nN+alice\nN-bob\n$EVENT:wcsc35\nPI\n+\n\
+7776FU\nT30\n-3334FU\nT5\n+8822UM\nT700\n-3122GI\nT1\n%TORYO\n";

/// The same game in KIF, with its times.
const KIF: &str = "先手：alice\n後手：bob\n手数----指手---------消費時間--\n\
   1 ７六歩(77)   ( 0:30/00:00:30)\n   2 ３四歩(33)   ( 0:05/00:00:05)\n\
   3 ２二角成(88) (11:40/00:12:10)\n   4 同　銀(31)   ( 0:01/00:00:06)\n   5 投了\n";

/// Black's king entered with 28 points; Black declares.
const ENTERED: &str = "V2.2\nN+alice\nN-bob\n\
P1+RY+UM+KI+KI * +GI+GI+TO+TO\nP2 *  *  *  * +OU *  *  *  * \nP3+FU+FU *  *  *  *  *  *  * \n\
P4 *  *  *  *  *  *  *  *  * \nP5 *  *  *  *  *  *  *  *  * \nP6 *  *  *  *  *  *  *  *  * \n\
P7 *  *  *  *  *  *  *  *  * \nP8 *  *  *  *  *  *  *  *  * \nP9 *  *  *  * -OU *  *  *  * \n\
P+00HI00FU00FU00FU00FU00FU\n+\n+5242OU\n-5949OU\n%KACHI\n";

/// The codes of each game `validate --format json` reports for `path` with `args`.
fn codes(path: &Path, args: &[&str]) -> Vec<Vec<String>> {
    let o = run(&[
        &["validate", "--no-progress", "--format", "json"],
        args,
        &[path.to_str().unwrap()],
    ]
    .concat());
    assert!(code(&o) <= 1, "{}", stderr(&o));
    parse_lines(&stdout(&o))
        .iter()
        .filter(|l| l["game"].is_u64())
        .map(|g| {
            g["diagnostics"]
                .as_array()
                .unwrap()
                .iter()
                .map(|d| d["code"].as_str().unwrap().to_owned())
                .collect()
        })
        .collect()
}

fn write(dir: &Path, name: &str, text: &str) -> std::path::PathBuf {
    let p = dir.join(name);
    std::fs::write(&p, text).expect("write");
    p
}

#[test]
fn a_time_control_given_for_the_run_checks_logs_that_state_none() {
    let dir = tempfile::tempdir().expect("tempdir");
    // Ten CSA games in one file (the fast path) and a KIF file (its own fast path).
    let csa = write(dir.path(), "wcsc.csa", &[WCSC; 10].join("/\n"));
    let kif = write(dir.path(), "g.kifu", KIF);
    for path in [&csa, &kif] {
        let none = codes(path, &[]);
        assert!(none.iter().all(Vec::is_empty), "{path:?}: {none:?}");
        let given = codes(path, &["--time-control", "10m+10s"]);
        assert!(!given.is_empty());
        assert!(
            given.iter().all(|c| c == &["time-exceeded"]),
            "{path:?}: {given:?}"
        );
        // Enough time for the move: nothing to say.
        assert!(
            codes(path, &["--time-control", "15m"])
                .iter()
                .all(Vec::is_empty)
        );
    }
    // The tables count the same finding.
    let o = run(&[
        "games",
        "--no-progress",
        "--format",
        "json",
        "--time-control",
        "600+10",
        csa.to_str().unwrap(),
    ]);
    let rows = parse_lines(&stdout(&o));
    assert_eq!(rows.len(), 10);
    assert!(
        rows.iter()
            .all(|r| r["warnings"] == 1 && r["codes"] == serde_json::json!(["time-exceeded"])),
        "{rows:?}"
    );
}

#[test]
fn a_record_stating_its_own_time_control_keeps_it_and_is_warned() {
    let dir = tempfile::tempdir().expect("tempdir");
    let stated = WCSC.replace("$EVENT:wcsc35\n", "$EVENT:wcsc35\n$TIME_LIMIT:00:20+10\n");
    let path = write(dir.path(), "s.csa", &[stated.as_str(); 3].join("/\n"));
    // The record's 20 minutes: no overrun; its disagreement with the run's 10 is a warning.
    let got = codes(&path, &["--time-control", "10m+10s"]);
    assert_eq!(got, vec![vec!["rule-mismatch".to_owned()]; 3]);
    let o = run(&[
        "validate",
        "--no-progress",
        "--time-control",
        "10m+10s",
        path.to_str().unwrap(),
    ]);
    assert!(stdout(&o).contains("s.csa:4:1: warning[rule-mismatch]: the record states the time control 0:20:00 + 10 s byoyomi, not the 0:10:00 + 10 s byoyomi given for the run"), "{}", stdout(&o));
    // The same rule as the run's: nothing to say.
    assert!(
        codes(&path, &["--time-control", "00:20+10"])
            .iter()
            .all(Vec::is_empty)
    );
}

#[test]
fn the_declaration_rule_given_for_the_run() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = write(dir.path(), "d.csa", ENTERED);
    assert_eq!(codes(&path, &[]), [Vec::<String>::new()]);
    assert_eq!(
        codes(&path, &["--declaration", "27"]),
        [Vec::<String>::new()]
    );
    // 28 points only draw under the 24-point rule.
    let o = run(&[
        "validate",
        "--no-progress",
        "--declaration",
        "24",
        path.to_str().unwrap(),
    ]);
    assert_eq!(code(&o), 1);
    assert!(
        stdout(&o).contains("the declaration fails: 28 points only draw under the 24-point rule"),
        "{}",
        stdout(&o)
    );
    // A header's rule wins, and differs from the run's: a warning, judged by the header's.
    let stated = write(
        dir.path(),
        "h.csa",
        &ENTERED.replace("N-bob\n", "N-bob\n$JISHOGI:27\n"),
    );
    let header = codes(&stated, &["--declaration", "24"]);
    assert_eq!(header, [vec!["rule-mismatch".to_owned()]]);
    // Not a rule the run can take.
    let o = run(&["validate", "--declaration", "25", path.to_str().unwrap()]);
    assert_eq!(code(&o), 2);
    let o = run(&[
        "validate",
        "--time-control",
        "ten minutes",
        path.to_str().unwrap(),
    ]);
    assert_eq!(code(&o), 2);
    assert!(
        stderr(&o).contains("cannot read the time control `ten minutes`"),
        "{}",
        stderr(&o)
    );
}

#[test]
fn every_validating_command_takes_the_rules() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = write(dir.path(), "w.csa", WCSC);
    let p = path.to_str().unwrap();
    for cmd in [
        vec!["stats", "--format", "json"],
        vec!["positions"],
        vec!["convert", "--to", "kifu"],
    ] {
        let o = run(&[
            cmd.as_slice(),
            &[
                "--no-progress",
                "--time-control",
                "10m+10s",
                "--declaration",
                "24",
                p,
            ],
        ]
        .concat());
        assert_eq!(code(&o), 0, "{cmd:?}: {}", stderr(&o));
    }
    let o = run(&[
        "stats",
        "--no-progress",
        "--format",
        "json",
        "--time-control",
        "10m+10s",
        p,
    ]);
    let stats: Value = serde_json::from_str(&stdout(&o)).expect("json");
    assert!(stats.to_string().contains("time-exceeded"), "{stats}");
}
