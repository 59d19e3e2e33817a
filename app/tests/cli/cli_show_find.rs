//! `kifu show`, `kifu find`, `validate --show-board` and `stats --format html` from the
//! command line: what each option changes, the `FILE:GAME` rule, outputs written atomically
//! and never over an existing file unasked, and the exit codes.

use std::fs;
use std::process::{Command, Stdio};

use crate::cli_common;
use cli_common::{code, fixtures, p, parse_lines, run, stderr, stdout};

/// Three USI games: two open 7g7f 3c3d (then 2g2f, and 6g6f), one 2g2f; the second reaches
/// the position after 7g7f 3c3d 2g2f by another order of moves.
const GAMES: &str = "startpos moves 7g7f 3c3d 2g2f 8c8d resign\n\
                     startpos moves 7g7f 3c3d 6g6f\n\
                     startpos moves 2g2f 3c3d 7g7f 8c8d 2f2e\n";
const AFTER_THREE: &str = "lnsgkgsnl/1r5b1/pppppp1pp/6p2/9/2P4P1/PP1PPPP1P/1B5R1/LNSGKGSNL w - 4";

#[test]
fn show_prints_the_position_at_a_ply_as_bod_sfen_and_svg() {
    let dir = tempfile::tempdir().expect("dir");
    let f = dir.path().join("g.usi");
    fs::write(&f, GAMES).expect("write");
    let o = run(&[
        "show",
        &format!("{}:0", p(&f)),
        "--ply",
        "3",
        "--format",
        "sfen",
    ]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    assert_eq!(stdout(&o).trim(), AFTER_THREE);
    // The default is the last position; game 2 by FILE:GAME.
    let o = run(&["show", &format!("{}:2", p(&f)), "--format", "sfen"]);
    assert!(stdout(&o).ends_with(" w - 6\n"), "{}", stdout(&o));
    // BOD: read back by kifu as the same position.
    let o = run(&["show", p(&f), "--ply", "3"]);
    let bod = stdout(&o);
    assert!(
        bod.contains("手数＝3  ▲２六歩(27)  まで\n後手番\n"),
        "{bod}"
    );
    let back = kifu::read(kifu::Format::Kifu, &bod);
    assert_eq!(back[0].record.start.to_setup().to_sfen(), AFTER_THREE);
    // Flipped: Black's hand line first.
    let o = run(&["show", p(&f), "--ply", "3", "--flip"]);
    assert!(stdout(&o).starts_with("先手の持駒"), "{}", stdout(&o));
    // SVG to a file, not over an existing one unless forced.
    let svg = dir.path().join("b.svg");
    let o = run(&["show", p(&f), "--format", "svg", "-o", p(&svg)]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let text = fs::read_to_string(&svg).expect("svg");
    assert!(text.starts_with("<svg") && text.trim_end().ends_with("</svg>"));
    let o = run(&[
        "show",
        p(&f),
        "--ply",
        "0",
        "--format",
        "svg",
        "-o",
        p(&svg),
    ]);
    assert_eq!(code(&o), 1);
    assert!(stderr(&o).contains("output-exists"), "{}", stderr(&o));
    assert_eq!(fs::read_to_string(&svg).expect("svg"), text, "kept");
    let o = run(&[
        "show",
        p(&f),
        "--ply",
        "0",
        "--format",
        "svg",
        "-o",
        p(&svg),
        "--force",
    ]);
    assert_eq!(code(&o), 0);
    assert_ne!(fs::read_to_string(&svg).expect("svg"), text, "replaced");
}

#[test]
fn show_refuses_what_it_cannot_show_with_exit_2() {
    let dir = tempfile::tempdir().expect("dir");
    let f = dir.path().join("g.usi");
    fs::write(&f, GAMES).expect("write");
    for (args, says) in [
        (vec![format!("{}:3", p(&f))], "holds 3 game(s)"),
        (
            vec![p(&f).to_owned(), "--ply".into(), "9".into()],
            "4 plies only",
        ),
        (
            vec![p(&f).to_owned(), "--at-diagnostic".into()],
            "no diagnostic",
        ),
        (
            vec![p(&dir.path().join("none.kif")).to_owned()],
            "cannot read",
        ),
    ] {
        let mut all = vec!["show".to_owned()];
        all.extend(args);
        let refs: Vec<&str> = all.iter().map(String::as_str).collect();
        let o = run(&refs);
        assert_eq!(code(&o), 2, "{all:?}");
        assert!(stderr(&o).contains(says), "{all:?}: {}", stderr(&o));
    }
    let o = run(&["show", p(&f), "--ply", "x"]);
    assert_eq!(code(&o), 2, "bad usage");
}

#[test]
fn a_file_named_with_a_colon_is_the_file() {
    let dir = tempfile::tempdir().expect("dir");
    let f = dir.path().join("round:1.usi");
    fs::write(&f, "startpos moves 7g7f\nstartpos moves 2g2f\n").expect("write");
    let o = run(&["show", p(&f), "--format", "sfen"]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    assert!(stdout(&o).starts_with("lnsgkgsnl/1r5b1/ppppppppp/9/9/2P6"));
    let o = run(&["show", &format!("{}:1", p(&f)), "--format", "sfen"]);
    assert!(stdout(&o).contains("/7P1/"), "{}", stdout(&o));
}

#[test]
fn show_at_a_diagnostic_marks_the_move_and_says_the_finding() {
    let nifu = fixtures().join("fouls/nifu.kifu");
    let o = run(&["show", p(&nifu), "--at-diagnostic"]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let text = stdout(&o);
    assert!(
        text.starts_with("# ") && text.contains("error[nifu]"),
        "{text}"
    );
    assert!(
        text.contains("手数＝8"),
        "the position before ply 9: {text}"
    );
    let o = run(&["show", p(&nifu), "--at-diagnostic", "--format", "svg"]);
    let svg = stdout(&o);
    assert_eq!(svg.matches("class=\"mark\"").count(), 2);
    // The finding's text, as BOD's `#` line says it: in the description and under the
    // caption (wrapped into lines that fit the drawing).
    let desc = svg
        .split_once("<desc>")
        .and_then(|(_, r)| r.split_once("</desc>"))
        .map(|(d, _)| d)
        .expect("desc");
    assert!(
        desc.contains("nifu.kifu:") && desc.contains("error[nifu]"),
        "{desc}"
    );
    let notes: Vec<&str> = svg
        .lines()
        .filter(|l| l.contains("class=\"note\""))
        .collect();
    assert!(!notes.is_empty(), "{svg}");
    let height = |tag: &str| -> u32 {
        let at = tag.find("height=\"").expect("height") + 8;
        tag[at..].split('"').next().unwrap().parse().unwrap()
    };
    let plain = stdout(&run(&["show", p(&nifu), "--format", "svg"]));
    assert!(!plain.contains("<desc>"));
    assert_eq!(height(&svg), height(&plain) + 20 * notes.len() as u32);
}

#[test]
fn validate_shows_the_board_under_each_error_only_when_asked() {
    let nifu = fixtures().join("fouls/nifu.kifu");
    let plain = stdout(&run(&["validate", p(&nifu)]));
    let o = run(&["validate", "--show-board", p(&nifu)]);
    assert_eq!(code(&o), 1);
    let text = stdout(&o);
    assert!(!plain.contains("+---"), "{plain}");
    let at = text.find("error[nifu]").expect("diagnostic");
    let board = text
        .find("    +---------------------------+")
        .expect("board");
    assert!(board > at, "the board is under its diagnostic: {text}");
    assert!(text.contains("    手数＝8  △"), "{text}");
    // JSON Lines are not changed by it.
    let json = run(&["validate", "--show-board", "--format", "json", p(&nifu)]);
    assert_eq!(
        stdout(&json),
        stdout(&run(&["validate", "--format", "json", p(&nifu)]))
    );
}

#[test]
fn find_reports_each_game_reaching_a_position_in_input_order() {
    let dir = tempfile::tempdir().expect("dir");
    let f = dir.path().join("g.usi");
    fs::write(&f, GAMES).expect("write");
    let o = run(&[
        "find",
        "--sfen",
        AFTER_THREE,
        "--format",
        "json",
        "-j",
        "2",
        p(&f),
    ]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let lines = parse_lines(&stdout(&o));
    assert_eq!(lines.len(), 3, "two games, then the summary");
    assert_eq!(lines[0]["game"], 0);
    assert_eq!(lines[0]["ply"], 3);
    assert_eq!(lines[0]["next"], "8c8d");
    assert_eq!(lines[0]["result"]["recorded"], "TORYO");
    assert_eq!(lines[1]["game"], 2);
    assert_eq!(lines[1]["next"], "8c8d");
    assert_eq!(lines[2]["summary"]["found"], 2);
    assert_eq!(lines[2]["summary"]["games"], 3);
    // Nothing found is still exit 0.
    let none = "lnsgkgsnl/9/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1";
    let o = run(&["find", "--sfen", none, p(&f)]);
    assert_eq!(code(&o), 0);
    assert!(stdout(&o).contains("0 found"), "{}", stdout(&o));
    // --any-side: White to move in the target, Black in the games.
    let black = AFTER_THREE.replace(" w ", " b ");
    let o = run(&["find", "--sfen", &black, p(&f)]);
    assert!(stdout(&o).contains("0 found"));
    let o = run(&["find", "--sfen", &black, "--any-side", p(&f)]);
    assert!(stdout(&o).contains("2 found"), "{}", stdout(&o));
}

#[test]
fn find_by_moves_sums_up_what_was_played_next() {
    let dir = tempfile::tempdir().expect("dir");
    let f = dir.path().join("g.usi");
    fs::write(&f, GAMES).expect("write");
    let o = run(&["find", "--moves", "7g7f 3c3d", p(&f)]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let text = stdout(&o);
    assert!(
        text.contains("g.usi#0: ply 2, next 2g2f, TORYO (white)"),
        "{text}"
    );
    assert!(text.contains("g.usi#1: ply 2, next 6g6f"), "{text}");
    assert!(!text.contains("#2:"), "{text}");
    assert!(text.contains("2 found"), "{text}");
    let o = run(&["find", "--moves", "7g7f 3c3d", "--format", "json", p(&f)]);
    let lines = parse_lines(&stdout(&o));
    let next = &lines[2]["summary"]["next"];
    assert_eq!(next.as_array().map(Vec::len), Some(2), "{next}");
    assert_eq!(next[0]["games"], 1);
    // Bad queries are usage errors.
    assert_eq!(code(&run(&["find", "--moves", "7g7x", p(&f)])), 2);
    assert_eq!(code(&run(&["find", "--sfen", "nonsense", p(&f)])), 2);
    assert_eq!(code(&run(&["find", p(&f)])), 2, "a query is needed");
    assert_eq!(
        code(&run(&["find", "--moves", "7g7f", "--any-side", p(&f)])),
        2
    );
}

#[test]
fn stats_writes_a_self_contained_html_page() {
    let dir = tempfile::tempdir().expect("dir");
    let out = dir.path().join("report.html");
    let o = run(&["stats", "--format", "html", "-o", p(&out), p(&fixtures())]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    assert!(stdout(&o).is_empty());
    let page = fs::read_to_string(&out).expect("page");
    assert!(page.starts_with("<!DOCTYPE html>"));
    assert!(page.contains("<svg"), "inline charts");
    for bad in ["<script", "src=", "url("] {
        assert!(!page.contains(bad), "{bad}");
    }
    // Links only within the page (the error counts to the games with errors), each to an
    // anchor it has.
    let links: Vec<&str> = page
        .split("href=\"")
        .skip(1)
        .map(|l| l.split('"').next().unwrap_or_default())
        .collect();
    assert!(links.len() > 5, "{links:?}");
    for target in links {
        let anchor = target
            .strip_prefix('#')
            .unwrap_or_else(|| panic!("{target}"));
        assert!(page.contains(&format!("id=\"{anchor}\"")), "{anchor}");
    }
    assert!(
        page.contains("<h3 id=\"errors-nifu\">nifu ("),
        "the fixtures' nifu games"
    );
    // Not replaced unasked.
    let o = run(&["stats", "--format", "html", "-o", p(&out), p(&fixtures())]);
    assert_eq!(code(&o), 1);
}

#[test]
fn show_reads_standard_input_and_forced_formats() {
    use std::io::Write;
    let dir = tempfile::tempdir().expect("dir");
    // No record extension: --input-format says what it is.
    let f = dir.path().join("g.txt");
    fs::write(&f, GAMES).expect("write");
    let o = run(&[
        "show",
        &format!("{}:0", p(&f)),
        "--input-format",
        "usi",
        "--encoding",
        "utf-8",
        "--ply",
        "3",
        "--format",
        "sfen",
    ]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    assert_eq!(stdout(&o).trim(), AFTER_THREE);
    let mut child = Command::new(env!("CARGO_BIN_EXE_kifu"))
        .args(["show", "--ply", "3", "--format", "sfen", "--", "-:2"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run kifu");
    child
        .stdin
        .take()
        .expect("stdin")
        .write_all(GAMES.as_bytes())
        .expect("write");
    let o = child.wait_with_output().expect("wait");
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    assert_eq!(stdout(&o).trim(), AFTER_THREE, "game 2 reaches it by ply 3");
}

#[test]
fn find_board_only_ignores_what_is_in_hand() {
    let dir = tempfile::tempdir().expect("dir");
    let f = dir.path().join("x.usi");
    fs::write(&f, "startpos moves 7g7f 3c3d 8h2b+ 3a2b\n").expect("write");
    // The board after the exchange, with both bishops in White's hand instead of one each.
    let other_hands = "lnsgkg1nl/1r5s1/pppppp1pp/6p2/9/2P6/PP1PPPPPP/7R1/LNSGKGSNL b 2b 5";
    let o = run(&["find", "--sfen", other_hands, "--format", "json", p(&f)]);
    assert_eq!(parse_lines(&stdout(&o)).len(), 1, "only the summary");
    let o = run(&[
        "find",
        "--sfen",
        other_hands,
        "--board-only",
        "--format",
        "json",
        p(&f),
    ]);
    let lines = parse_lines(&stdout(&o));
    assert_eq!(lines.len(), 2, "{}", stdout(&o));
    assert_eq!(lines[0]["ply"], 4);
    assert_eq!(lines[0]["next"], serde_json::Value::Null);
}

/// `--sfen` takes a position as USI writes one (issue #47): `startpos`, `sfen SFEN`, and
/// either after `position `, for `find` as for `perft`.
#[test]
fn sfen_arguments_take_startpos_as_usi_does() {
    let even = "lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1";
    let dir = fixtures().join("ok");
    let ok = p(&dir);
    let found = |sfen: &str| {
        let o = run(&["find", "--format", "json", "--sfen", sfen, ok]);
        assert_eq!(code(&o), 0, "{sfen}: {}", stderr(&o));
        stdout(&o)
    };
    let reference = found(even);
    assert!(reference.contains("\"found\":"), "{reference}");
    for form in [
        "startpos",
        "position startpos",
        &format!("sfen {even}"),
        &format!("position sfen {even}"),
    ] {
        assert_eq!(found(form), reference, "{form}");
    }
    for form in ["startpos", "position startpos"] {
        let o = run(&["perft", "2", "--sfen", form]);
        assert_eq!(stdout(&o).trim(), "900", "{form}");
    }
    // Moves after `moves` are played (the USI reader's own parser, issue #48): perft from
    // the position after 7g7f is perft 3 of the start divided at 7g7f.
    let o = run(&["perft", "3", "--divide", "--sfen", "startpos"]);
    let after = stdout(&o)
        .lines()
        .find_map(|l| l.strip_prefix("7g7f: "))
        .expect("7g7f")
        .to_owned();
    for form in ["startpos moves 7g7f", "position startpos moves 7g7f"] {
        let o = run(&["perft", "2", "--sfen", form]);
        assert_eq!(stdout(&o).trim(), after, "{form}");
    }
    // An illegal or unreadable move, or a bad position, is a usage error that says so.
    for (form, says) in [
        ("startpos moves 7g7x", "7g7x"),
        ("startpos moves 5a5b", "5a5b"),
        ("startpos 7g7f", "expected `moves`"),
        ("sfen 9/9 b - 1", "bad SFEN"),
    ] {
        let o = run(&["perft", "1", "--sfen", form]);
        assert_eq!(code(&o), 2, "{form}");
        assert!(stderr(&o).contains(says), "{form}: {}", stderr(&o));
    }
}

/// A finding in a variation says so (issue #47): in the message, as `"variation"` (the plies
/// its line branches off at) in JSON; `show --at-diagnostic` shows the variation's position
/// before the move (of the right one of several variations at a ply, nested ones too), and
/// says whose finding it is.
#[test]
fn findings_in_variations_say_so() {
    let dir = tempfile::tempdir().expect("tempdir");
    let kif = dir.path().join("var.kifu");
    fs::write(
        &kif,
        "手合割：平手\n手数----指手---------消費時間--\n   1 ７六歩(77)\n   2 ３四歩(33)\n   3 ２六歩(27)\n   4 投了\n\n\
         変化：3手\n   3 ５五角打\n",
    )
    .expect("write");
    let o = run(&["validate", "--format", "json", p(&kif)]);
    let lines = parse_lines(&stdout(&o));
    let d = &lines[0]["diagnostics"][0];
    assert_eq!(d["code"], "not-in-hand", "{d}");
    assert_eq!(d["variation"], serde_json::json!([3]), "{d}");
    assert!(
        d["message"]
            .as_str()
            .is_some_and(|m| m.contains("in the variation from ply 3")),
        "{d}"
    );
    let o = run(&["show", "--at-diagnostic", "--format", "sfen", p(&kif)]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    // Before ply 3 of the variation: after ７六歩 ３四歩.
    assert_eq!(
        stdout(&o),
        "lnsgkgsnl/1r5b1/pppppp1pp/6p2/9/2P6/PP1PPPPPP/1B5R1/LNSGKGSNL b - 3\n"
    );
    let o = run(&["show", "--at-diagnostic", p(&kif)]);
    assert!(
        stdout(&o).starts_with("# ") && stdout(&o).contains("in the variation from ply 3"),
        "{}",
        stdout(&o)
    );
    // Two variations at ply 3, the foul in the second, and one nested at ply 4 of the first
    // with a foul of its own: the errors come in the order found, the first variation's
    // nested one first.
    fs::write(
        &kif,
        "手合割：平手\n手数----指手---------消費時間--\n   1 ７六歩(77)\n   2 ３四歩(33)\n   3 ２六歩(27)\n   4 投了\n\n\
         変化：3手\n   3 ６六歩(67)\n   4 ８四歩(83)\n\n変化：4手\n   4 ４四角打\n\n変化：3手\n   3 ５五角打\n",
    )
    .expect("write");
    let o = run(&["validate", "--format", "json", p(&kif)]);
    let lines = parse_lines(&stdout(&o));
    let found: Vec<_> = lines[0]["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| (d["variation"].clone(), d["ply"].clone()))
        .collect();
    assert_eq!(
        found,
        [
            (serde_json::json!([3, 4]), serde_json::json!(4)),
            (serde_json::json!([3]), serde_json::json!(3))
        ]
    );
    let o = run(&["show", "--at-diagnostic", "--format", "sfen", p(&kif)]);
    // Before ply 4 of the nested variation: after ７六歩 ３四歩 ６六歩.
    assert_eq!(
        stdout(&o),
        "lnsgkgsnl/1r5b1/pppppp1pp/6p2/9/2PP5/PP2PPPPP/1B5R1/LNSGKGSNL w - 4\n"
    );
    // The SVG carries the finding's text.
    let o = run(&["show", "--at-diagnostic", "--format", "svg", p(&kif)]);
    let svg = stdout(&o);
    assert!(
        svg.contains("<desc>") && svg.contains("class=\"note\""),
        "{svg}"
    );
    assert!(svg.contains("error[not-in-hand]"), "{svg}");
}
