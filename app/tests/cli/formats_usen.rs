//! USEN (issue #20): the compact URL form of tsshogi and ShogiHome, read and written.
//! `fixtures/usen/tsshogi.usen` was written by tsshogi itself (see fixtures/README.md).

use kifu::formats::text::detect_format;
use kifu::formats::{Format, WriteOptions, usen, write};
use kifu::{Code, Severity};

fn fixture(path: &str) -> String {
    std::fs::read_to_string(crate::common::repo().join("fixtures").join(path)).expect("fixture")
}

fn usi_of(format: Format, text: &str) -> String {
    let mut g = kifu::read(format, text).remove(0);
    kifu::validate_game(&mut g, &Default::default());
    write(Format::Usi, &g.record, &WriteOptions::default()).text
}

#[test]
fn moves_are_three_base36_digits() {
    // 7g7f: from (7-1)*9+(7-1) = 60 to 51: (60*81+51)*2 = 9822 = "7ku" in base 36.
    let g = usen::read("~0.7ku2jm.r\n");
    assert!(g[0].diagnostics.is_empty(), "{:?}", g[0].diagnostics);
    let moves: Vec<String> = g[0]
        .record
        .moves
        .iter()
        .filter_map(|n| n.resolved())
        .map(|m| m.to_usi())
        .collect();
    assert_eq!(moves, ["7g7f", "3c3d"]);
    assert_eq!(
        g[0].record.end().map(|s| s.kind),
        Some(kifu::record::SpecialKind::Resign)
    );
    // A promotion and a drop, back and forth.
    let text = "startpos moves 7g7f 3c3d 8h2b+ 3a2b B*4e\n";
    let mut u = kifu::read(Format::Usi, text).remove(0);
    kifu::validate_game(&mut u, &Default::default());
    let w = write(Format::Usen, &u.record, &WriteOptions::default());
    assert!(w.warnings.is_empty(), "{:?}", w.warnings);
    assert_eq!(
        usi_of(Format::Usen, &w.text),
        "position startpos moves 7g7f 3c3d 8h2b+ 3a2b B*4e\n"
    );
    assert!(w.text.starts_with("~0.7ku2jm"), "{}", w.text);
}

#[test]
fn what_tsshogi_writes_reads_and_writes_back_the_same() {
    let text = fixture("usen/tsshogi.usen");
    let games = usen::read(&text);
    assert_eq!(games.len(), 4);
    for (g, line) in games.iter().zip(text.lines()) {
        assert!(g.diagnostics.is_empty(), "{line}: {:?}", g.diagnostics);
        let mut g = g.clone();
        let r = kifu::validate_game(&mut g, &Default::default());
        assert!(r.diagnostics.is_empty(), "{line}: {:?}", r.diagnostics);
        let w = write(Format::Usen, &g.record, &WriteOptions::default());
        assert!(w.warnings.is_empty(), "{:?}", w.warnings);
        assert_eq!(w.text, format!("{line}\n"));
    }
    // The first line has three variations: from plies 10 and 5 of the main line, and from
    // ply 9 of the one from ply 5.
    let r = &games[0].record;
    assert_eq!(r.plies(), 12);
    let with_variations: Vec<usize> = r
        .moves
        .iter()
        .enumerate()
        .filter(|(_, n)| !n.variations.is_empty())
        .map(|(i, _)| i + 1)
        .collect();
    assert_eq!(with_variations, [5, 10]);
    assert_eq!(r.moves[4].variations[0][4].variations.len(), 1);
    // The handicap line is the game of fixtures/kif/handicap-lance.kifu.
    let line = text.lines().nth(2).expect("line 3");
    assert_eq!(
        usi_of(Format::Usen, line),
        usi_of(Format::Kifu, &fixture("kif/handicap-lance.kifu"))
    );
}

#[test]
fn bad_usen_gives_located_syntax_errors() {
    for (text, column) in [
        // The column of the move, the section or the ending that does not read.
        ("~0.7k.r", 4),
        ("~0.7ku2jm~9.7ku.", 11),
        ("~x.7ku.", 2),
        ("~0.zzz.", 4),
        ("~0.!!!.", 4),
        ("~0.7ku.q", 8),
        ("lnsgk_bad.b.-~0.7ku.", 1),
        ("just text", 1),
    ] {
        let g = usen::read(text);
        assert_eq!(g.len(), 1, "{text}");
        let d = g[0]
            .diagnostics
            .iter()
            .find(|d| d.code == Code::Syntax)
            .unwrap_or_else(|| panic!("no syntax error for {text}"));
        assert_eq!(d.severity, Severity::Error);
        assert_eq!((d.line, d.column), (Some(1), Some(column)), "{text}: {d:?}");
    }
}

#[test]
fn what_usen_cannot_hold_is_reported() {
    let kif = "開始日時：2024/01/01\n手数----指手---------消費時間--\n   1 ７六歩(77)   ( 0:01/)\n*a comment\n   2 ３四歩(33)   ( 0:02/)\n   3 千日手\n";
    let mut g = kifu::read(Format::Kifu, kif).remove(0);
    kifu::validate_game(&mut g, &Default::default());
    let w = write(Format::Usen, &g.record, &WriteOptions::default());
    assert_eq!(w.text, "~0.7ku2jm.p\n");
    let msgs: Vec<&str> = w.warnings.iter().map(|d| d.message.as_str()).collect();
    assert_eq!(msgs.len(), 4, "{msgs:?}");
    assert!(msgs.iter().any(|m| m.contains("header")));
    assert!(msgs.iter().any(|m| m.contains("千日手")));
    assert!(msgs.iter().any(|m| m.contains("comments")));
    assert!(msgs.iter().any(|m| m.contains("times")));
    // A start position's move number has no place either.
    let mut s = kifu::read(Format::Usi, "sfen 4k4/9/9/9/9/9/9/9/4K4 b G 7 moves G*5b\n").remove(0);
    kifu::validate_game(&mut s, &Default::default());
    let w = write(Format::Usen, &s.record, &WriteOptions::default());
    // G*5b: from 81 + 9 (gold), to 13: (90 * 81 + 13) * 2 = 14606 = "b9q".
    assert_eq!(w.text, "4k4_9_9_9_9_9_9_9_4K4.b.G~0.b9q.\n");
    assert!(
        w.warnings[0].message.contains("move number 7"),
        "{:?}",
        w.warnings
    );
}

#[test]
fn usen_is_detected_by_content_and_extension() {
    assert_eq!(detect_format(None, "~0.7ku2jm.r\n"), Some(Format::Usen));
    assert_eq!(
        detect_format(
            None,
            "lnsgkgsn1_1r5b1_ppppppppp_9_9_9_PPPPPPPPP_1B5R1_LNSGKGSNL.w.-~0.2jm7ku.r\n"
        ),
        Some(Format::Usen)
    );
    assert_eq!(Format::from_extension("usen"), Some(Format::Usen));
    assert_eq!(Format::from_name("usen"), Some(Format::Usen));
    assert_ne!(
        detect_format(None, "startpos moves 7g7f\n"),
        Some(Format::Usen)
    );
    assert_ne!(detect_format(None, "V2.2\nPI\n+\n"), Some(Format::Usen));
}

#[test]
fn the_command_line_converts_to_and_from_usen() {
    let dir = tempfile::tempdir().expect("tempdir");
    let src = dir.path().join("g.usi");
    std::fs::write(&src, "startpos moves 7g7f 3c3d\n").expect("write");
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_kifu"))
        .args(["convert", "--to", "usen", "-o"])
        .arg(dir.path().join("g.usen"))
        .arg(&src)
        .output()
        .expect("run");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let written = std::fs::read_to_string(dir.path().join("g.usen")).expect("output");
    assert_eq!(written, "~0.7ku2jm.\n");
    let back = std::process::Command::new(env!("CARGO_BIN_EXE_kifu"))
        .args(["convert", "--to", "usi", "--input-format", "usen", "-"])
        .stdin(std::fs::File::open(dir.path().join("g.usen")).expect("open"))
        .output()
        .expect("run");
    assert_eq!(
        String::from_utf8_lossy(&back.stdout),
        "position startpos moves 7g7f 3c3d\n"
    );
}

#[test]
fn a_variation_that_begins_as_its_line_does_is_said_to_be_joined() {
    // Found by the mutation smoke test: USEN is a tree, and its reader joins two lines that
    // begin with the same move at the same ply; the writer says so.
    let kif = "手合割：平手\n手数----指手---------消費時間--\n   1 ７六歩(77)\n   2 ３四歩(33)\n\n変化：1手\n   1 ７六歩(77)\n   2 ８四歩(83)\n";
    let mut g = kifu::read(kifu::Format::Kifu, kif).remove(0);
    kifu::validate_game(&mut g, &Default::default());
    assert_eq!(g.record.moves[0].variations.len(), 1);
    let out = kifu::write(kifu::Format::Usen, &g.record, &Default::default());
    assert!(
        out.warnings
            .iter()
            .any(|d| d.message.contains("USEN joins the two")),
        "{:?}",
        out.warnings
    );
}
