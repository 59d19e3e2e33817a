//! `validate::validate_jkf` (a JKF game replayed as its entries are read) must give exactly
//! the report of reading with `jkf::read` and validating with `validate_game`: on the real
//! records, on generated games (compact, pretty-printed, with CRLF and a BOM), on hand-made
//! documents that must take one way or the other, and on thousands of damaged copies (a byte
//! changed, dropped or doubled, an entry dropped or doubled), which send games down the full
//! way at every kind of member.

use crate::common;

use kifu::formats::{Format, WriteOptions, jkf, write};
use kifu::random::{GenOptions, Rng, random_game};
use kifu::validate::{self, Options, judged_as_read};

/// Judged as read against judged from the record under the default and the 24-point rule; returns
/// whether the game was judged as read (under the default rule).
fn same(text: &str) -> bool {
    let mut short = false;
    for opts in [
        Options::default(),
        Options {
            declaration_points: Some(24),
            ..Options::default()
        },
        // A time control for the run (`--time-control`): a minute and 10 s of byoyomi.
        Options {
            time_control: kifu::formats::time_control::TimeControl::from_spec("60+10"),
            ..Options::default()
        },
    ] {
        let (fast, taken) = judged_as_read(Format::Jkf, text, &opts);
        let full: Vec<_> = jkf::read(text)
            .into_iter()
            .map(|mut g| validate::validate_game(&mut g, &opts))
            .collect();
        assert_eq!(fast, full, "reports differ ({opts:?}) for:\n{text}");
        // `validate_text` takes the same way.
        assert_eq!(validate::validate_text(Format::Jkf, text, &opts), full);
        if opts == Options::default() {
            short = taken == 1;
        }
    }
    short
}

fn generated(seed: u64, opts: &GenOptions) -> String {
    let rec = random_game(seed, opts);
    write(Format::Jkf, &rec, &WriteOptions::default()).text
}

fn pretty(text: &str) -> String {
    let v: serde_json::Value = serde_json::from_str(text).expect("JSON");
    serde_json::to_string_pretty(&v).expect("JSON")
}

#[test]
fn generated_games_are_judged_as_read_and_agree() {
    let untimed = GenOptions {
        times: false,
        ..GenOptions::default()
    };
    for seed in 0..150 {
        let text = generated(seed, &GenOptions::default());
        assert!(same(&text), "a generated game is judged as read:\n{text}");
        let report = &validate::validate_jkf(&text, &Options::default())[0];
        assert!(report.diagnostics.is_empty(), "{:?}", report.diagnostics);
        assert!(report.plies > 0 && report.result.recorded.is_some());
        assert!(report.info.black.is_some() || report.info.event.is_some() || seed > 0);
        // Pretty-printed (every line end counted for the places), with CRLF, with a BOM, and
        // without times: judged as read too.
        let p = pretty(&text);
        assert!(same(&p), "{p}");
        assert!(same(&p.replace('\n', "\r\n")));
        assert!(same(&format!("\u{feff}{text}")));
        if seed < 50 {
            assert!(same(&generated(seed, &untimed)));
        }
    }
}

/// A generated game's document with `edit` applied to its JSON value.
fn edited(seed: u64, edit: impl FnOnce(&mut serde_json::Value)) -> String {
    let mut v: serde_json::Value =
        serde_json::from_str(&generated(seed, &GenOptions::default())).expect("JSON");
    edit(&mut v);
    serde_json::to_string(&v).expect("JSON")
}

fn moves(v: &mut serde_json::Value) -> &mut Vec<serde_json::Value> {
    v["moves"].as_array_mut().expect("moves")
}

/// A change made to a document's JSON value.
type Edit = fn(&mut serde_json::Value);

#[test]
fn hand_made_documents_take_the_way_they_must_and_agree() {
    use serde_json::json;
    let short: [(&str, Edit); 20] = [
        ("no header", |v| {
            v.as_object_mut().expect("object").shift_remove("header");
        }),
        ("no initial", |v| {
            v.as_object_mut().expect("object").shift_remove("initial");
        }),
        ("null initial", |v| v["initial"] = json!(null)),
        ("empty start comments", |v| {
            moves(v)[0] = json!({"comments": []})
        }),
        ("colors as booleans", |v| {
            for m in moves(v).iter_mut().skip(1) {
                if let Some(c) = m["move"].get("color").and_then(|c| c.as_u64()) {
                    m["move"]["color"] = json!(c == 0);
                }
            }
        }),
        ("no colors", |v| {
            for m in moves(v).iter_mut().skip(1) {
                if let Some(o) = m["move"].as_object_mut() {
                    o.shift_remove("color");
                }
            }
        }),
        ("null forks and comments", |v| {
            moves(v)[3]["forks"] = json!(null);
            moves(v)[3]["comments"] = json!([]);
        }),
        ("no ending", |v| {
            moves(v).pop();
        }),
        // Judged as read since the judge follows comments, the clock and declarations; a
        // document the reader's one pass gives up on is told from its record.
        ("a comment", |v| moves(v)[2]["comments"] = json!(["x"])),
        ("start comments", |v| {
            moves(v)[0] = json!({"comments": ["x"]})
        }),
        ("a declaration", |v| {
            let n = moves(v).len();
            moves(v)[n - 1] = json!({"special": "KACHI"});
        }),
        ("a time control", |v| {
            v["header"]["持ち時間"] = json!("10分")
        }),
        ("initial after moves", |v| {
            let o = v.as_object_mut().expect("object");
            let i = o.shift_remove("initial").expect("initial");
            o.insert("initial".into(), i);
        }),
        ("an unknown key", |v| moves(v)[3]["move"]["x"] = json!(1)),
        // Judged as read since the judge is the only validator: a variation (from the
        // position before the move it replaces), two endings, a handicap, a piece the
        // square does not hold.
        ("a variation", |v| {
            let alt = moves(v)[3].clone();
            moves(v)[3]["forks"] = json!([[alt]]);
        }),
        ("two endings", |v| {
            moves(v).push(json!({"special": "CHUDAN"}))
        }),
        ("a handicap", |v| v["initial"] = json!({"preset": "KY"})),
        ("a wrong piece", |v| {
            moves(v)[1]["move"]["piece"] = json!("RY")
        }),
        // Setups of the wrong shape, or with a side to move that is none (issue #45): the
        // reader's findings, taken as they come (session 36).
        ("a board of eight files", |v| {
            let file = json!([{}, {}, {}, {}, {}, {}, {}, {}, {}]);
            let mut board = vec![file; 8];
            board[4] = json!([{}, {}, {}, {}, {}, {}, {}, {}, {"color": 0, "kind": "OU"}]);
            v["initial"] =
                json!({"preset": "OTHER", "data": {"color": 0, "board": board, "hands": [{}, {}]}});
        }),
        ("a file of ten squares, color 5", |v| {
            let file = json!([{}, {}, {}, {}, {}, {}, {}, {}, {}]);
            let mut board = vec![file; 9];
            board[0] = json!([{}, {}, {}, {}, {}, {}, {}, {}, {}, {}]);
            board[4] = json!([{}, {}, {}, {}, {}, {}, {}, {}, {"color": 0, "kind": "OU"}]);
            v["initial"] =
                json!({"preset": "OTHER", "data": {"color": 5, "board": board, "hands": [{}, {}]}});
        }),
    ];
    let full: [(&str, Edit); 4] = [
        ("a move after the ending", |v| {
            let m = moves(v)[1].clone();
            moves(v).push(m);
        }),
        ("a wrong colour", |v| {
            moves(v)[2]["move"]["color"] = json!(0)
        }),
        ("a wrong total", |v| {
            moves(v)[3]["time"]["total"] = json!({"h": 9, "m": 0, "s": 0});
        }),
        ("an illegal move", |v| {
            let m = moves(v)[1].clone();
            moves(v).insert(2, m);
        }),
    ];
    for seed in 0..20 {
        for (what, edit) in short {
            let text = edited(seed, edit);
            assert!(
                same(&text),
                "{what}: judged as read
{text}"
            );
        }
        for (what, edit) in full {
            let text = edited(seed, edit);
            assert!(
                !same(&text),
                "{what}: judged from the record
{text}"
            );
        }
    }
    // A move written `same` without `to` lands where the last one did.
    let text = r#"{"moves":[{},
        {"move":{"color":0,"from":{"x":7,"y":7},"to":{"x":7,"y":6},"piece":"FU"}},
        {"move":{"color":1,"from":{"x":3,"y":3},"to":{"x":3,"y":4},"piece":"FU"}},
        {"move":{"color":0,"from":{"x":8,"y":8},"to":{"x":2,"y":2},"piece":"KA","promote":true}},
        {"move":{"color":1,"from":{"x":3,"y":1},"piece":"GI","same":true,"capture":"UM"}},
        {"special":"TORYO"}]}"#;
    assert!(same(text));
    let r = &validate::validate_jkf(text, &Options::default())[0];
    assert_eq!((r.plies, r.diagnostics.len()), (4, 0), "{r:?}");
    // The same game ended by a false mate claim: a result mismatch, found as read.
    let claim = text.replace("TORYO", "TSUMI");
    assert!(same(&claim));
    let r = &validate::validate_jkf(&claim, &Options::default())[0];
    assert_eq!(r.diagnostics.len(), 1, "{r:?}");
    assert_eq!(r.diagnostics[0].code, kifu::Code::ResultMismatch);
    assert_eq!(r.diagnostics[0].line, Some(6));
}

/// One random edit of a document: a byte changed, dropped or doubled, an entry dropped or
/// doubled.
fn damage(text: &str, rng: &mut Rng) -> String {
    const BYTES: &[u8] = b"{}[],:\"0123456789 \ntrue-.e\\";
    let mut b = text.as_bytes().to_vec();
    match rng.below(5) {
        0..=2 => {
            let i = rng.below(b.len() as u64) as usize;
            match rng.below(3) {
                0 => b[i] = BYTES[rng.below(BYTES.len() as u64) as usize],
                1 => {
                    b.remove(i);
                }
                _ => b.insert(i, b[i]),
            }
            String::from_utf8_lossy(&b).into_owned()
        }
        how => {
            let mut v: serde_json::Value = match serde_json::from_str(text) {
                Ok(v) => v,
                Err(_) => return text.to_owned(),
            };
            let m = moves(&mut v);
            let i = 1 + rng.below(m.len() as u64 - 1) as usize;
            if how == 3 {
                m.remove(i);
            } else {
                let e = m[i].clone();
                m.insert(i, e);
            }
            serde_json::to_string(&v).expect("JSON")
        }
    }
}

#[test]
fn damaged_documents_agree() {
    let mut rng = Rng::new(24);
    let (mut short, mut total) = (0, 0);
    for seed in 0..60 {
        let text = generated(500 + seed, &GenOptions::default());
        for round in 0..40 {
            let mut t = damage(&text, &mut rng);
            if round % 4 == 0 {
                t = pretty(&text);
                t = damage(&t, &mut rng);
            }
            short += usize::from(same(&t));
            total += 1;
        }
    }
    // The edits send games both ways, or they test little of either.
    assert!(
        short > total / 20 && short < total * 19 / 20,
        "{short} judged as read of {total}"
    );
}

/// The JKF files of the shared corpus (skipped when it is absent).
#[test]
fn corpus_files_agree() {
    let Some(paths) = common::corpus_files("corpus_files_agree", &["jkf", "json"]) else {
        return;
    };
    let (mut files, mut short) = (0, 0);
    for path in paths {
        let Ok(bytes) = std::fs::read(&path) else {
            continue;
        };
        let text = kifu::formats::decode::decode(&bytes, Some(Format::Jkf), None).text;
        short += usize::from(same(&text));
        files += 1;
    }
    eprintln!("{files} JKF files, {short} judged as read");
    assert!(files > 0);
}
