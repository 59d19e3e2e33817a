//! `validate::validate_kif` and `validate_ki2` (a KIF or KI2 game replayed as its lines are
//! read) must give exactly the report of reading with `kif::read` / `ki2::read` and validating
//! with `validate_game`: on the fixtures and
//! the real records, on generated games, on hand-made layouts and endings, and on thousands of
//! damaged copies (a line dropped, doubled, swapped, a character changed), which send games
//! down the full path at every kind of line.

use crate::common;

use kifu::formats::{Format, WriteOptions, ki2, kif, write};
use kifu::random::{GenOptions, Rng, random_game};
use kifu::validate::{self, Options, judged_as_read, judged_as_read_cp932};

/// Judged as read against judged from the record under the default and the 24-point rule; returns
/// whether the game was judged as read (under the default rule).
fn same(text: &str) -> bool {
    agree(Format::Kif, text)
}

/// [`same`] for KI2.
fn same_ki2(text: &str) -> bool {
    agree(Format::Ki2, text)
}

fn agree(format: Format, text: &str) -> bool {
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
        let (fast, taken, games) = if format == Format::Ki2 {
            let (fast, taken) = judged_as_read(Format::Ki2, text, &opts);
            (fast, taken, ki2::read(text))
        } else {
            let (fast, taken) = judged_as_read(Format::Kif, text, &opts);
            (fast, taken, kif::read(text))
        };
        let full: Vec<_> = games
            .into_iter()
            .map(|mut g| validate::validate_game(&mut g, &opts))
            .collect();
        assert_eq!(fast, full, "reports differ ({opts:?}) for:\n{text}");
        if opts == Options::default() {
            short = taken == 1;
        }
        if format == Format::Kif {
            cp932_agrees(text, &opts);
        }
    }
    short
}

/// Judging as read over CP932 bytes (`judged_as_read_cp932`) against judging the UTF-8 text as read on the
/// text the bytes decode to: the same reports, and as many games judged as read. Returns
/// whether it read the bytes (`None` is its answer for bytes it leaves to the decoder, and for
/// text that cannot be written in CP932).
fn cp932_agrees(text: &str, opts: &Options) -> Option<bool> {
    let (bytes, _, unmappable) = encoding_rs::SHIFT_JIS.encode(text);
    if unmappable {
        return None;
    }
    let decoded = encoding_rs::SHIFT_JIS.decode_without_bom_handling(&bytes).0;
    let (reports, taken) = judged_as_read_cp932(&bytes, opts)?;
    let (expected, expected_taken) = judged_as_read(Format::Kif, &decoded, opts);
    assert_eq!(
        reports, expected,
        "CP932 reports differ ({opts:?}) for:\n{text}"
    );
    assert!(
        taken >= expected_taken,
        "CP932 bytes judged as read differ ({opts:?}) for:\n{text}"
    );
    Some(taken == 1)
}

fn generated(seed: u64) -> String {
    generated_as(Format::Kif, seed)
}

fn generated_as(format: Format, seed: u64) -> String {
    let rec = random_game(seed, &GenOptions::default());
    write(format, &rec, &WriteOptions::default()).text
}

#[test]
fn generated_games_are_judged_as_read_and_agree() {
    for seed in 0..200 {
        let text = generated(seed);
        assert!(same(&text), "a generated game is judged as read:\n{text}");
        let cp932 = cp932_agrees(&text, &Options::default());
        assert_eq!(cp932, Some(true), "its CP932 bytes take it too:\n{text}");
        let report = &validate::validate_kif(&text, &Options::default())[0];
        assert!(report.diagnostics.is_empty(), "{:?}", report.diagnostics);
        assert!(report.plies > 0 && report.result.recorded.is_some());
        // CRLF line ends, a BOM, and a game without times take it too.
        assert!(same(&text.replace('\n', "\r\n")));
        assert!(same(&format!("\u{feff}{text}")));
    }
    let untimed = GenOptions {
        times: false,
        ..GenOptions::default()
    };
    for seed in 0..50 {
        let rec = random_game(seed, &untimed);
        let text = write(Format::Kif, &rec, &WriteOptions::default()).text;
        assert!(same(&text), "{text}");
    }
}

#[test]
fn real_records_agree() {
    records_agree(Format::Kif, &["kif", "kifu"]);
    records_agree(Format::Ki2, &["ki2", "ki2u"]);
}

fn records_agree(format: Format, exts: &[&str]) {
    let mut paths = common::files_with(
        std::path::Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/fixtures")),
        exts,
    );
    paths.extend(common::corpus_files("real_records_agree", exts).unwrap_or_default());
    let (mut files, mut short) = (0, 0);
    for path in paths {
        let Ok(bytes) = std::fs::read(&path) else {
            continue;
        };
        let text = kifu::formats::decode::decode(&bytes, Some(format), None).text;
        short += usize::from(agree(format, &text));
        files += 1;
    }
    assert!(files > 0, "no {format:?} file found");
    eprintln!("{short} of {files} {format:?} files were judged as read");
}

const HEAD: &str = "先手：a\n後手：b\n手数----指手---------消費時間--\n";

#[test]
fn hand_made_layouts_agree() {
    let moves = "   1 ７六歩(77)   ( 0:01/00:00:01)\n   2 ３四歩(33)   ( 0:02/00:00:02)\n";
    let cases: Vec<(String, bool)> = vec![
        // The plain layout, with the endings judged as read.
        (
            format!("{HEAD}{moves}   3 投了   ( 0:01/00:00:02)\nまで2手で後手の勝ち\n"),
            true,
        ),
        (
            format!("{HEAD}{moves}   3 投了\nまで2手で先手の勝ち\n"),
            true,
        ),
        (format!("{HEAD}{moves}   3 中断\n"), true),
        (format!("{HEAD}{moves}   3 詰み\n"), true),
        (format!("{HEAD}{moves}   3 千日手\n"), true),
        (format!("{HEAD}{moves}   3 反則負け\n"), true),
        (format!("{HEAD}{moves}   3 先手 反則負け\n"), true),
        // An ending of no known kind: the record's validation reads it.
        (format!("{HEAD}{moves}   3 なにか\n"), true),
        (format!("{HEAD}{moves}"), true),
        (
            format!("手合割：平手　\n棋戦：x\n開始日時：2024/01/01\n{HEAD}{moves}   3 投了\n"),
            true,
        ),
        (
            format!(
                "{HEAD}   1 ７六歩(77)\n   2 ３四歩(33)\n   3 ２二角成(88)\n   4 同　銀(31)\n   5 投了\n"
            ),
            true,
        ),
        (
            format!(
                "{HEAD}   1 ７六歩(77)\n   2 ３四歩(33)\n   3 ２二角成(88)\n   4 同　銀(31)\n   5 ４五角打\n   6 投了\n"
            ),
            true,
        ),
        // A header line after the moves.
        (format!("{HEAD}{moves}   3 投了\n場所：後から\n"), true),
        // Full-width spaces before and after a move, tabs, trailing blanks, other spellings
        // of the pieces: read from CP932 bytes by hand, and the columns counted in characters.
        (
            format!(
                "{HEAD}1\u{3000}７六歩(77)\u{3000}\n2 \u{3000} ３四歩(33)\t\n   3 ２二角成(88) ( 0:01/00:00:01)\t\u{3000} \n   4 同\u{3000}\u{3000}銀(31)\n   5 投了\n"
            ),
            true,
        ),
        (
            format!(
                "{HEAD}   1 ７六歩(77)\n   2 ３四歩(33)\n   3 ２二角不成(88)\n   4 同　銀(31)\n   5 ５五角打\n   6 ８四歩(83)\n   7 ２二角成(55)\n   8 ５二金(41)\n   9 ３三馬(22)\n  10 同　桂(21)\n"
            ),
            true,
        ),
        (
            format!("{HEAD}   1 ７六歩(77)\t( 0:01/00:00:01)\n   2 投了\n"),
            true,
        ),
        (format!("{HEAD}   1 ７六歩(77)\u{3000}x\n"), true),
        (format!("{HEAD}   1 ７六歩不(77)\n"), true),
        (format!("{HEAD}   1 ０六歩(77)\n"), true),
        (
            format!("{HEAD}{moves}   3 投了\n\n# a program comment\n"),
            true,
        ),
        // Read into a record: a total the times contradict (a finding on a move whose text
        // is kept only while a clock runs). Judged as read since the judge is the only
        // validator: a wrong number, a foul, a move after the ending, a variation, a
        // handicap, a footer, an unknown ending, a header line after the moves; and since
        // the judge takes the reader's findings as they come (session 36), what the reader
        // reports (a number it cannot take, `同` with no move before it, a line it cannot
        // read, a board of other than nine rows).
        (
            format!("{HEAD}   1 ７六歩(77)   ( 0:01/00:00:05)\n   2 投了\n"),
            false,
        ),
        (format!("{HEAD}   1 ７六歩(77)\n   3 ３四歩(33)\n"), true),
        (format!("{HEAD}   2 ７六歩(77)\n"), true),
        (format!("{HEAD}   1 ７五歩(77)\n"), true),
        (format!("{HEAD}   1 ７六銀(77)\n"), true),
        (format!("{HEAD}   1 同　歩(77)\n"), true),
        // Judged as read since the one reader (#48): a move with no source, a check mark,
        // comments, bookmarks, a declaration, a time control, a KI2 move in KIF, a count
        // of moves before the start, lone CRs.
        (format!("{HEAD}   1 ７六歩\n"), true),
        (format!("{HEAD}   1 ７六歩(77)+\n"), true),
        (format!("{HEAD}{moves}*comment\n   3 投了\n"), true),
        (format!("{HEAD}{moves}&bookmark\n"), true),
        (format!("{HEAD}{moves}   3 投了\n   4 ７八銀(79)\n"), true),
        (format!("{HEAD}{moves}   3 投了\n   4 中断\n"), true),
        (format!("{HEAD}{moves}   3 入玉勝ち\n"), true),
        (format!("{HEAD}{moves}まで2手で中断\n"), true),
        (
            format!("{HEAD}{moves}   3 投了\n変化：2手\n   2 ８四歩(83)\n"),
            true,
        ),
        (format!("手合割：香落ち\n{HEAD}{moves}"), true),
        (format!("持ち時間：10分\n{HEAD}{moves}   3 投了\n"), true),
        (format!("先手の持駒：なし\n{HEAD}{moves}"), true),
        (format!("{HEAD}▲７六歩\n"), true),
        (format!("手数＝3\n{HEAD}{moves}"), true),
        // Board diagrams of other than nine rows (issue #45).
        (
            format!("| ・ ・ ・ ・ ・ ・ ・ ・ ・|一\n{HEAD}{moves}"),
            true,
        ),
        (
            format!(
                "{}{HEAD}{moves}",
                "| ・ ・ ・ ・ ・ ・ ・ ・ ・|\n".repeat(11)
            ),
            true,
        ),
        // Move numbers past u32, which must not wrap to the ply (2^32 + 2 is not 2).
        (
            format!("{HEAD}   1 ７六歩(77)\n4294967298 ３四歩(33)\n"),
            true,
        ),
        (
            format!("{HEAD}18446744073709551617 ７六歩(77)\n   2 ３四歩(33)\n"),
            true,
        ),
        (format!("{HEAD}{moves}   3 投了\r"), true),
        (format!("{HEAD}   1 ７六歩(77)\r   2 ３四歩(33)\n"), true),
        (format!("{HEAD}{moves}ごみ\n"), true),
        (HEAD.to_owned(), true),
        (String::new(), true),
        (
            format!("{HEAD}{moves}   3 ２二角不成(88)\n   4 投了\n"),
            true,
        ),
        (
            format!("{HEAD}{moves}   3 ２二角成(88)\n   4 同　銀成(31)\n"),
            true,
        ),
    ];
    for (text, short) in &cases {
        assert_eq!(same(text), *short, "judged as read or not, for:\n{text}");
        // From CP932 bytes: judged as read too, or left to the decoder (`None`) and then
        // judged from the text as above.
        if *short {
            let cp932 = cp932_agrees(text, &Options::default());
            assert_ne!(cp932, Some(false), "from CP932 bytes too:\n{text}");
        }
    }
}

#[test]
fn mates_and_repetitions_agree() {
    // Fool's mate style: a real mate, claimed and not claimed, and a move after it.
    let cycle = ["５八玉(59)", "５二玉(51)", "５九玉(58)", "５一玉(52)"];
    let mut text = HEAD.to_owned();
    for i in 0..12 {
        text.push_str(&format!("{:>4} {}\n", i + 1, cycle[i % 4]));
    }
    let rep = format!("{text}  13 千日手\n");
    assert!(same(&rep));
    assert!(
        validate::validate_kif(&rep, &Options::default())[0]
            .diagnostics
            .is_empty()
    );
    // Claimed too early, and a resignation after the fourth occurrence.
    assert!(same(&format!("{text}  13 投了\n")));
    let early: String = text.lines().take(11).map(|l| format!("{l}\n")).collect();
    assert!(same(&format!("{early}   9 千日手\n")));
    // A move after the repetition ended the game: reported as it is read.
    let after = format!("{text}  13 ５八玉(59)\n");
    assert!(same(&after));
    let report = &validate::validate_kif(&after, &Options::default())[0];
    assert_eq!(report.diagnostics[0].code, kifu::diag::Code::MoveAfterEnd);
}

/// One random edit of one line, or of one character.
fn damage(text: &str, rng: &mut Rng) -> String {
    let mut lines: Vec<String> = text.split('\n').map(str::to_owned).collect();
    let n = lines.len() as u64;
    let i = rng.below(n) as usize;
    const CHARS: [&str; 28] = [
        "▲",
        "△",
        "右",
        "引",
        "0",
        "9",
        "１",
        "同",
        "成",
        "不成",
        "打",
        "(",
        ")",
        "/",
        ":",
        " ",
        "　",
        "\r",
        "歩",
        "金",
        "投了",
        "*",
        "+",
        "＝",
        "：",
        "変化：1手",
        "一",
        "#",
    ];
    match rng.below(8) {
        how @ 0..=2 if common::reshape_lines(&mut lines, i, how) => {}
        3 | 4 => {
            // A character replaced or inserted.
            let line = &lines[i];
            let cuts: Vec<usize> = line.char_indices().map(|(p, _)| p).collect();
            if !cuts.is_empty() {
                let p = cuts[rng.below(cuts.len() as u64) as usize];
                let with = CHARS[rng.below(CHARS.len() as u64) as usize];
                let end = if rng.below(2) == 0 {
                    p
                } else {
                    p + line[p..].chars().next().map_or(0, char::len_utf8)
                };
                lines[i].replace_range(p..end, with);
            }
        }
        5 => lines.insert(
            i,
            [
                "*comment",
                "",
                "まで5手で後手の勝ち",
                "手合割：平手",
                "持ち時間：5分",
                "  99 投了",
                "場所：x",
                "先手番",
            ][rng.below(8) as usize]
                .to_owned(),
        ),
        6 => lines.truncate(i),
        _ => {
            // A time changed.
            if let Some(p) = lines[i].find(':') {
                let d = (b'0' + rng.below(10) as u8) as char;
                lines[i].replace_range(p - 1..p, &d.to_string());
            }
        }
    }
    lines.join("\n")
}

#[test]
fn damaged_games_agree() {
    let mut rng = Rng::new(11);
    let (mut short, mut total) = (0, 0);
    for seed in 0..60 {
        let text = generated(2000 + seed);
        for _ in 0..40 {
            let mut t = damage(&text, &mut rng);
            if rng.below(3) == 0 {
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

#[test]
fn generated_ki2_games_are_judged_as_read_and_agree() {
    for seed in 0..200 {
        let text = generated_as(Format::Ki2, seed);
        assert!(
            same_ki2(&text),
            "a generated game is judged as read:\n{text}"
        );
        let report = &validate::validate_ki2(&text, &Options::default())[0];
        assert!(report.diagnostics.is_empty(), "{:?}", report.diagnostics);
        assert!(report.plies > 0 && report.result.recorded.is_some());
        assert!(same_ki2(&text.replace('\n', "\r\n")));
        // Read as KIF (which reads no move of it), the same reports either way.
        same(&text);
    }
}

#[test]
fn hand_made_ki2_layouts_agree() {
    let head = "先手：a\n後手：b\n\n";
    let cases = [
        (
            format!("{head}▲７六歩    △３四歩\nまで2手で後手の勝ち\n"),
            true,
        ),
        (
            format!("{head}▲７六歩 △３四歩 ▲２二角成 △同　銀\n▲投了\n"),
            true,
        ),
        (
            format!("{head}▲７六歩 △３四歩 ▲２二角成 △同　銀 ▲投了\nまで4手で後手の勝ち\n"),
            true,
        ),
        (
            format!("{head}▲７六歩 △３四歩 ▲２二角不成 △同銀\nまで4手で中断\n"),
            true,
        ),
        (
            format!("{head}▲７六歩 △３四歩\nまで3手で先手の勝ち\n"),
            true,
        ),
        (format!("{head}▲７六歩 △３四歩\n"), true),
        (format!("{head}▲５八金右 △５二金左\nまで2手で中断\n"), true),
        (format!("{head}▲７六歩 △３四歩\nまで2手で入玉勝ち\n"), true),
        (format!("{head}▲７六歩 △３四歩\nまで2手\n"), true),
        (format!("{head}▲７六歩 ▲３四歩\n"), true),
        (format!("{head}▲５八金\n"), true),
        (format!("{head}▲同　歩\n"), true),
        (format!("{head}▲７六歩 △３四歩 #x\n"), true),
        (format!("{head}▲７六歩 △投了 ▲２六歩\n"), true),
        (format!("{head}▲７六歩\n*comment\n△３四歩\n"), true),
        (format!("{head}   1 ７六歩(77)\n"), true),
        (format!("{head}▲７六歩(77) △３四歩\n"), true),
    ];
    for (text, short) in &cases {
        assert_eq!(
            same_ki2(text),
            *short,
            "judged as read or not, for:\n{text}"
        );
    }
}

#[test]
fn damaged_ki2_games_agree() {
    let mut rng = Rng::new(13);
    let (mut short, mut total) = (0, 0);
    for seed in 0..60 {
        let text = generated_as(Format::Ki2, 3000 + seed);
        for _ in 0..30 {
            let mut t = damage(&text, &mut rng);
            if rng.below(3) == 0 {
                t = damage(&t, &mut rng);
            }
            short += usize::from(same_ki2(&t));
            total += 1;
        }
    }
    // Most are judged as read (what the record's judging is held to).
    assert!(short > total / 2, "{short} judged as read of {total}");
}

#[test]
fn long_runs_of_digits_in_a_time_agree() {
    // The usual-layout time reader multiplied a run of digits before checking its length:
    // twenty digits overflowed (a panic in debug builds; found by the archive byte-flipping
    // test of app/tests/cli/hostile_archives.rs).
    for time in [
        "( 99999999999999999999:01/00:00:01)",
        "( 0:99999999999999999999/00:00:01)",
        "( 1234:01/00:00:01)",
        "( 999999999999999999:01/00:00:01)",
    ] {
        let text = format!("{HEAD}   1 ７六歩(77)   {time}\n   2 ３四歩(33)\n");
        agree(Format::Kif, &text);
    }
}
