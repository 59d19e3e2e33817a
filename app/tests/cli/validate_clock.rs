//! The clock (issue #19): the recorded times held against the recorded time control, in CSA
//! and in KIF. A move made with no time left is `time-exceeded` (a warning, or an error with
//! `--deny`); a loss on time recorded for a side the times show had time left is
//! `result-mismatch`; with no time control recorded, nothing is said about the clock.

use std::path::PathBuf;
use std::process::Command;

use kifu::formats::Format;
use kifu::validate::{Options, Winner, validate_text};
use kifu::{Code, Severity};

fn fixture(name: &str) -> PathBuf {
    crate::common::repo()
        .join("fixtures/validate/clock")
        .join(name)
}

fn format_of(name: &str) -> Format {
    if name.ends_with(".csa") {
        Format::Csa
    } else {
        Format::Kifu
    }
}

/// The findings (code, ply) and the winner of the one game of `text`.
fn check(format: Format, text: &str) -> (Vec<(Code, Option<u32>)>, Option<Winner>) {
    let reports = validate_text(format, text, &Options::default());
    assert_eq!(reports.len(), 1, "{text}");
    let r = &reports[0];
    let found = r.diagnostics.iter().map(|d| (d.code, d.ply)).collect();
    (found, r.result.winner)
}

/// A fixture, the findings (code, ply) it must give, and the winner.
type Case = (&'static str, &'static [(Code, u32)], Option<Winner>);

#[test]
fn each_clock_fixture_gives_its_verdict() {
    let expected: &[Case] = &[
        // 1 min + 10 s byoyomi: Black's 5th ply takes 12 s when only the byoyomi was left;
        // White resigns after it, and the record gives the game to Black, who had lost on
        // time at ply 5 (issue #47).
        (
            "byoyomi-overrun.kifu",
            &[(Code::TimeExceeded, 5), (Code::ResultMismatch, 5)],
            Some(Winner::Black),
        ),
        // floodgate-300-10F in the event: 300 s and 10 s a move; 50 s with 40 s left.
        (
            "floodgate-fischer-overrun.csa",
            &[(Code::TimeExceeded, 7)],
            Some(Winner::White),
        ),
        ("floodgate-fischer.csa", &[], Some(Winner::White)),
        // `$TIME_LIMIT:00:01+00`: Black has used 50 s and takes 15 s.
        (
            "sudden-death-overrun.csa",
            &[(Code::TimeExceeded, 5)],
            Some(Winner::White),
        ),
        // Black used 50 s of 60 and thought 10 s more: the loss on time stands.
        ("sudden-death-time-up.csa", &[], Some(Winner::White)),
        // A loss on time after 30 s of a 10-minute allowance.
        (
            "time-up-with-time-left.csa",
            &[(Code::ResultMismatch, 3)],
            Some(Winner::White),
        ),
        (
            "time-up-with-time-left.kifu",
            &[(Code::ResultMismatch, 4)],
            Some(Winner::Black),
        ),
        ("time-up.kifu", &[], Some(Winner::Black)),
    ];
    let on_disk = std::fs::read_dir(fixture(""))
        .expect("clock fixtures")
        .count();
    assert_eq!(
        on_disk,
        expected.len(),
        "every clock fixture has its expectation"
    );
    for (name, findings, winner) in expected {
        let text = std::fs::read_to_string(fixture(name)).expect("fixture");
        let want: Vec<(Code, Option<u32>)> = findings.iter().map(|&(c, p)| (c, Some(p))).collect();
        assert_eq!(check(format_of(name), &text), (want, *winner), "{name}");
    }
}

#[test]
fn without_a_time_control_the_clock_says_nothing() {
    for name in [
        "byoyomi-overrun.kifu",
        "floodgate-fischer-overrun.csa",
        "sudden-death-overrun.csa",
        "time-up-with-time-left.csa",
        "time-up-with-time-left.kifu",
    ] {
        let text = std::fs::read_to_string(fixture(name)).expect("fixture");
        let bare: String = text
            .lines()
            .filter(|l| !l.starts_with("持ち時間") && !l.starts_with("$TIME"))
            .map(|l| {
                if l.starts_with("$EVENT") {
                    "$EVENT:kifu fixtures\n".to_owned()
                } else {
                    format!("{l}\n")
                }
            })
            .collect();
        assert_ne!(bare, text, "{name}: the control was taken out");
        let (found, _) = check(format_of(name), &bare);
        assert_eq!(found, vec![], "{name}");
    }
}

#[test]
fn time_exceeded_gives_the_figures_and_is_a_warning() {
    let text = std::fs::read_to_string(fixture("sudden-death-overrun.csa")).unwrap();
    let reports = validate_text(Format::Csa, &text, &Options::default());
    let d = &reports[0].diagnostics[0];
    assert_eq!(d.code.severity(), Severity::Warning);
    assert_eq!((d.line, d.column, d.ply), (Some(16), Some(1), Some(5)));
    assert_eq!(
        d.message,
        "Black took 0:00:15 with 0:00:10 left (time control 0:01:00 sudden death): Black's \
         time had run out"
    );
    assert_eq!(d.mv.as_deref(), Some("2f2e"));
    assert_eq!(d.written.as_deref(), Some("+2625FU"));
}

#[test]
fn a_move_without_a_time_stops_the_clock() {
    // The same overrun, but the move before it has no `T` line: from there the times cannot
    // be followed, and nothing is said.
    let text = std::fs::read_to_string(fixture("sudden-death-overrun.csa")).unwrap();
    let cut = text.replacen("-8384FU\nT5\n", "-8384FU\n", 1);
    assert_ne!(cut, text);
    assert_eq!(check(Format::Csa, &cut).0, vec![]);
    // KIF: times that are all zero are placeholders, not a clock.
    let kif = std::fs::read_to_string(fixture("time-up-with-time-left.kifu")).unwrap();
    let zeros: String = kif
        .lines()
        .map(|l| match l.find("( ") {
            Some(i) => format!("{}( 0:00/00:00:00)\n", &l[..i]),
            None => format!("{l}\n"),
        })
        .collect();
    assert_eq!(check(Format::Kifu, &zeros).0, vec![]);
}

#[test]
fn deny_makes_time_exceeded_an_error() {
    let path = fixture("sudden-death-overrun.csa");
    let run = |extra: &[&str]| {
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_kifu"));
        cmd.arg("validate")
            .arg("--no-progress")
            .args(extra)
            .arg(&path);
        let o = cmd.output().expect("kifu runs");
        (
            o.status.code(),
            String::from_utf8_lossy(&o.stdout).into_owned(),
        )
    };
    let (code, out) = run(&[]);
    assert_eq!(code, Some(0), "{out}");
    assert!(out.contains("warning[time-exceeded]"), "{out}");
    let (code, out) = run(&["--deny", "time-exceeded"]);
    assert_eq!(code, Some(1), "{out}");
    assert!(out.contains("error[time-exceeded]"), "{out}");
}
