//! KIF reader and writer tests.

use crate::common;
use common::{corpus, corpus_files, files_with};
use std::path::Path;

use kifu::formats::kif;

/// Decodes a corpus file as the command line does (BOM, `#KIF encoding=` line, extension).
fn decode(bytes: &[u8]) -> String {
    kifu::formats::decode::decode(bytes, Some(kifu::formats::Format::Kif), None).text
}

#[test]
fn corpus_kif_files_parse_without_syntax_errors() {
    let Some(all) = corpus_files(
        "corpus_kif_files_parse_without_syntax_errors",
        &["kif", "kifu"],
    ) else {
        return;
    };
    let mut bad = Vec::new();
    for p in all {
        let text = decode(&std::fs::read(&p).unwrap());
        let games = kif::read(&text);
        assert_eq!(games.len(), 1);
        let errs: Vec<_> = games[0]
            .diagnostics
            .iter()
            .filter(|d| d.code == kifu::Code::Syntax)
            .collect();
        // Malformed by design (iyuuya error fixtures, checked elsewhere) or by a broken converter
        // (muzudho's reverse-temporary output writes `変化：変化：3手` then a lone `手`).
        let name = p.to_string_lossy();
        let malformed = name.contains("error_fixtures")
            || name.ends_with("reverse-temporary/kif/[shogigui]bookmark.kifu");
        if malformed {
            continue;
        }
        if !errs.is_empty() {
            bad.push(format!("{}: {:?}", p.display(), errs));
        }
    }
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}

use kifu::core::{Color, Handicap, Move, PieceKind, Square};
use kifu::formats::WriteOptions;
use kifu::record::{
    MoveNode, NamedPiece, NodeKind, Record, Source, Span, SpecialKind, StartPosition,
};

fn fixture(name: &str) -> String {
    let p = Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/fixtures")).join(name);
    std::fs::read_to_string(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

fn sq(f: u8, r: u8) -> Square {
    Square::new(f, r).unwrap()
}

fn read_one(text: &str) -> (Record, Vec<kifu::Diagnostic>) {
    let mut games = kif::read(text);
    assert_eq!(games.len(), 1);
    let g = games.remove(0);
    (g.record, g.diagnostics)
}

fn read_clean(text: &str) -> Record {
    let (r, d) = read_one(text);
    assert!(d.is_empty(), "unexpected diagnostics: {d:?}");
    r
}

/// The record without what depends on the layout of the text: spans and raw move text.
fn normalise(mut r: Record) -> Record {
    fn nodes(ns: &mut [MoveNode]) {
        for n in ns {
            n.span = Span::default();
            if let NodeKind::Move { text, .. } = &mut n.kind {
                text.raw.clear();
                // A declined promotion (`不成`) is read but not written: the source square
                // says the move.
                if text.promote == Some(false) {
                    text.promote = None;
                }
            }
            for v in &mut n.variations {
                nodes(v);
            }
        }
    }
    for e in &mut r.header.entries {
        e.span = Span::default();
    }
    if let Some(f) = &mut r.footer {
        f.span = Span::default();
    }
    nodes(&mut r.moves);
    r
}

/// Where two records first differ, as a few lines of their pretty debug output.
fn first_difference(a: &Record, b: &Record) -> String {
    let (a, b) = (format!("{a:#?}"), format!("{b:#?}"));
    let (la, lb): (Vec<_>, Vec<_>) = (a.lines().collect(), b.lines().collect());
    let i = la
        .iter()
        .zip(&lb)
        .position(|(x, y)| x != y)
        .unwrap_or(la.len().min(lb.len()));
    let from = i.saturating_sub(6);
    format!(
        "\n--- before\n{}\n--- after\n{}",
        la[from..(i + 3).min(la.len())].join("\n"),
        lb[from..(i + 3).min(lb.len())].join("\n")
    )
}

fn text_of(n: &MoveNode) -> &kifu::record::MoveText {
    match &n.kind {
        NodeKind::Move { text, .. } => text,
        NodeKind::Special(s) => panic!("special {s:?} where a move was expected"),
    }
}

#[test]
fn reads_headers_moves_comments_and_variations() {
    let r = read_clean(&fixture("kif/variations.kifu"));
    let keys: Vec<_> = r.header.entries.iter().map(|e| e.key.as_str()).collect();
    assert_eq!(
        keys,
        ["開始日時", "棋戦", "手合割", "先手", "後手", "独自キー"]
    );
    assert_eq!(r.header.get("手合割"), Some("平手　　"));
    assert_eq!(r.header.get("独自キー"), Some("値は　そのまま"));
    assert_eq!(r.header.player(Color::Black), Some("先手太郎"));
    assert_eq!(r.start, StartPosition::Preset(Handicap::Even));
    assert_eq!(r.start_comments, ["対局開始前のコメント"]);
    assert_eq!(r.start_bookmark.as_deref(), Some("開始局面"));
    assert_eq!(r.moves.len(), 10);
    assert_eq!(r.plies(), 9);

    let m1 = text_of(&r.moves[0]);
    assert_eq!(m1.from, Source::Square(sq(7, 7)));
    assert_eq!(m1.to, sq(7, 6));
    assert_eq!(m1.piece, Some(NamedPiece::Before(PieceKind::Pawn)));
    assert_eq!(m1.raw, "７六歩(77)");
    assert_eq!(r.moves[0].number, Some(1));
    assert_eq!(r.moves[0].span, Span::new(11, 6));
    let t = r.moves[0].time.unwrap();
    assert_eq!((t.elapsed_ms, t.total_ms), (Some(16_000), Some(16_000)));
    assert_eq!(r.moves[0].comments, ["初手のコメント", "二行目"]);
    assert_eq!(r.moves[3].time.unwrap().elapsed_ms, Some(62_000));
    assert_eq!(r.moves[3].time.unwrap().total_ms, Some(67_000));

    let m3 = text_of(&r.moves[2]);
    assert_eq!((m3.promote, m3.to), (Some(true), sq(2, 2)));
    let m4 = text_of(&r.moves[3]);
    assert!(m4.same);
    assert_eq!(m4.to, sq(2, 2));
    assert_eq!(m4.from, Source::Square(sq(3, 1)));
    assert_eq!(r.moves[3].bookmark.as_deref(), Some("角交換"));
    let m5 = text_of(&r.moves[4]);
    assert_eq!(m5.from, Source::Drop);
    assert_eq!(m5.piece, Some(NamedPiece::Before(PieceKind::Bishop)));
    // `**解析 評価値 100` is ShogiGUI's analysis line: the move's analysis, not a comment.
    assert!(r.moves[8].comments.is_empty());
    let a = r.moves[8].analysis().expect("analysis");
    assert_eq!(a.score, Some(kifu::record::Score::Cp(100)));
    assert_eq!(a.form, kifu::record::AnalysisForm::ShogiGui);
    assert_eq!(r.end().unwrap().kind, SpecialKind::Resign);

    let f = r.footer.as_ref().unwrap();
    assert_eq!(f.text, "まで9手で先手の勝ち");
    assert_eq!(
        (f.plies, f.winner, f.kind),
        (Some(9), Some(Color::Black), Some(SpecialKind::Resign))
    );

    // Variations: at ply 2 two alternatives, the first with a nested one at ply 3.
    assert_eq!(r.moves[1].variations.len(), 2);
    let v2a = &r.moves[1].variations[0];
    assert_eq!(v2a.len(), 3);
    assert_eq!(text_of(&v2a[0]).to, sq(8, 4));
    assert_eq!(v2a[0].number, Some(2));
    assert_eq!(v2a[1].variations.len(), 1);
    let v3 = &v2a[1].variations[0];
    assert_eq!(v3.len(), 3);
    assert_eq!(text_of(&v3[0]).from, Source::Square(sq(7, 9)));
    let v2b = &r.moves[1].variations[1];
    assert_eq!(v2b.len(), 2);
    assert_eq!(v2b[0].comments, ["二つ目の変化"]);
    // 同 inside a variation refers to that variation's previous move.
    assert_eq!(text_of(&v2b[1]).to, sq(4, 4));
    // 同 at a variation's first move refers to the parent line's move before the branch.
    let v4 = &r.moves[3].variations[0];
    assert!(text_of(&v4[0]).same);
    assert_eq!(text_of(&v4[0]).to, sq(2, 2));
    assert_eq!(text_of(&v4[0]).from, Source::Square(sq(8, 2)));
    // 不成 and a special ending a variation.
    let v9 = &r.moves[8].variations[0];
    assert_eq!(text_of(&v9[0]).promote, Some(false));
    assert_eq!(v9[0].comments, ["不成の変化"]);
    assert_eq!(v9[1].special().unwrap().kind, SpecialKind::Interrupt);
    // No other node has variations.
    let with_vars = r.moves.iter().filter(|n| !n.variations.is_empty()).count();
    assert_eq!(with_vars, 3);
}

#[test]
fn reads_handicaps() {
    let r = read_clean(&fixture("kif/handicap-lance.kifu"));
    assert_eq!(r.start, StartPosition::Preset(Handicap::Lance));
    assert_eq!(r.header.player(Color::Black), Some("下手の人"));
    assert_eq!(r.header.player(Color::White), Some("上手の人"));
    assert_eq!(r.plies(), 2);
    let f = r.footer.unwrap();
    assert_eq!((f.plies, f.winner), (Some(2), Some(Color::Black)));
    let r = read_clean(&fixture("kif/handicap-ten.kifu"));
    assert_eq!(r.start, StartPosition::Preset(Handicap::TenPieces));
    for h in Handicap::ALL {
        let text = format!("手合割：{}\n   1 中断\n", h.kif_name());
        assert_eq!(read_clean(&text).start, StartPosition::Preset(h));
    }
    // Unknown names are kept and are not fatal.
    let r = read_clean("手合割：その他\n   1 ７六歩(77)\n");
    assert_eq!(r.header.get("手合割"), Some("その他"));
    assert_eq!(r.start, StartPosition::Preset(Handicap::Even));
}

#[test]
fn reads_board_diagrams() {
    let r = read_clean(&fixture("kif/bod-hands.kifu"));
    let StartPosition::Setup(s) = &r.start else {
        panic!("expected a setup")
    };
    assert_eq!(s.turn, Color::Black);
    let w = |k| s.hands.white.count(k);
    assert_eq!(
        [
            w(PieceKind::Rook),
            w(PieceKind::Bishop),
            w(PieceKind::Gold),
            w(PieceKind::Silver)
        ],
        [1, 1, 4, 3]
    );
    assert_eq!(
        [
            w(PieceKind::Knight),
            w(PieceKind::Lance),
            w(PieceKind::Pawn)
        ],
        [3, 4, 17]
    );
    assert_eq!(s.hands.black.count(PieceKind::Silver), 1);
    assert_eq!(s.hands.black.total(), 3);
    assert_eq!(
        s.piece_at(sq(1, 1)).map(|p| (p.color, p.kind)),
        Some((Color::White, PieceKind::King))
    );
    assert_eq!(
        s.piece_at(sq(2, 1)).map(|p| (p.color, p.kind)),
        Some((Color::White, PieceKind::Knight))
    );
    assert_eq!(
        s.piece_at(sq(2, 3)).map(|p| (p.color, p.kind)),
        Some((Color::Black, PieceKind::Pawn))
    );
    assert_eq!(s.board.iter().flatten().count(), 3);

    let r = read_clean(&fixture("kif/bod-white-to-move.kifu"));
    let StartPosition::Setup(s) = &r.start else {
        panic!("expected a setup")
    };
    assert_eq!(s.turn, Color::White);
    assert!(s.hands.white.is_empty());
    assert_eq!(s.hands.black.count(PieceKind::Gold), 2);
    assert_eq!(s.hands.black.count(PieceKind::Pawn), 10);
    let at = |f, rk| s.piece_at(sq(f, rk)).map(|p| (p.color, p.kind));
    assert_eq!(at(8, 6), Some((Color::White, PieceKind::ProLance)));
    assert_eq!(at(6, 7), Some((Color::Black, PieceKind::ProKnight)));
    assert_eq!(at(2, 5), Some((Color::Black, PieceKind::ProSilver)));
    assert_eq!(at(5, 8), Some((Color::White, PieceKind::Horse)));
    assert_eq!(at(3, 8), Some((Color::Black, PieceKind::Dragon)));
    assert_eq!(text_of(&r.moves[1]).to, sq(4, 9));
}

#[test]
fn reads_every_special_word() {
    let r = read_clean(&fixture("kif/specials.kifu"));
    let mut got: Vec<(SpecialKind, String, Option<Color>)> = Vec::new();
    let main = r.moves[1].special().unwrap();
    got.push((main.kind, main.text.clone(), main.side));
    for v in &r.moves[1].variations {
        let s = v[0].special().unwrap();
        got.push((s.kind, s.text.clone(), s.side));
    }
    use SpecialKind::*;
    let want = [
        (Resign, "投了", None),
        (Interrupt, "中断", None),
        (Repetition, "千日手", None),
        (Impasse, "持将棋", None),
        (Mate, "詰み", None),
        (Mate, "詰", None),
        (NoMate, "不詰", None),
        (Timeout, "切れ負け", None),
        (Timeout, "時間切れ", None),
        (IllegalWin, "反則勝ち", None),
        (IllegalMove, "反則負け", None),
        (Declaration, "入玉勝ち", None),
        (Sealed, "封じ手", None),
        (DefaultWin, "不戦勝", None),
        (DefaultLoss, "不戦敗", None),
        (IllegalMove, "後手 反則負け", Some(Color::White)),
        (Unknown, "Time-up", None),
    ];
    let want: Vec<_> = want
        .iter()
        .map(|(k, t, s)| (*k, t.to_string(), *s))
        .collect();
    assert_eq!(got, want);
    assert_eq!(r.moves[1].time.unwrap().elapsed_ms, Some(2000));
}

#[test]
fn line_endings_and_missing_final_newline() {
    let lf = "手合割：平手\n先手：a\n   1 ７六歩(77)\n   2 ３四歩(33)\n   3 投了";
    let crlf = lf.replace('\n', "\r\n");
    let a = normalise(read_clean(lf));
    let b = normalise(read_clean(&crlf));
    assert_eq!(a, b);
    assert_eq!(a.moves.len(), 3);
    assert_eq!(a.header.get("先手"), Some("a"));
    // A byte-order mark and a `#KIF` line are not data.
    let bom = format!("\u{feff}#KIF version=2.0 encoding=UTF-8\n{lf}\n");
    assert_eq!(normalise(read_clean(&bom)), a);
}

#[test]
fn bookmarks_end_at_a_lone_cr_as_every_line_does() {
    // A lone CR ends a line in every reader (issue #20); trailing spaces, tabs and CRs are
    // trimmed from a bookmark.
    let r = read_clean("&start\r\t\n   1 ７六歩(77)\n&a \r*b\r\t\n");
    assert_eq!(r.start_bookmark.as_deref(), Some("start"));
    assert_eq!(r.moves[0].bookmark.as_deref(), Some("a"));
    assert_eq!(r.moves[0].comments, ["b"]);
    // A bookmark or comment holding a line end (from another format) is written so that it
    // reads back: the bookmark on one line, the comment as several comment lines.
    let mut r = read_clean("   1 ７六歩(77)\n");
    r.moves[0].bookmark = Some("a\rb".into());
    r.moves[0].comments = vec!["c\rd\r\ne".into()];
    let w = kif::write(&r, &WriteOptions::default());
    let back = read_clean(&w.text);
    assert_eq!(back.moves[0].bookmark.as_deref(), Some("a b"), "{}", w.text);
    assert_eq!(back.moves[0].comments, ["c", "d", "e"], "{}", w.text);
}

#[test]
fn bad_lines_are_reported_with_line_and_column() {
    let text = "先手：a\n   1 ７六歩(77)\n   2 ３四四歩(33)\n";
    let (r, d) = read_one(text);
    assert_eq!(r.moves.len(), 1);
    assert_eq!(d.len(), 1);
    assert_eq!(d[0].code, kifu::Code::Syntax);
    assert_eq!((d[0].line, d[0].column), (Some(3), Some(8)));
    let (_, d) = read_one("   1 ７六歩(77) ( 0:16/00:00:16) xyz\n");
    assert_eq!((d[0].line, d[0].column), (Some(1), Some(31)));
    let (_, d) = read_one("   1 ７六歩(77)\n変化：2手です\n   2 ３四歩(33)\n");
    assert_eq!(d.len(), 1);
    assert_eq!((d[0].line, d[0].column), (Some(2), Some(4)));
    let (_, d) = read_one("   1 ７六歩(77)\n   3 ３四歩(33)\n");
    assert_eq!(d[0].code, kifu::Code::MoveNumber);
    assert_eq!(d[0].line, Some(2));
    let (_, d) = read_one("これは何\n");
    assert_eq!(d[0].code, kifu::Code::Syntax);
}

fn round_trip(text: &str) -> (Record, Record, String) {
    let (a, _) = read_one(text);
    let w = kif::write(&a, &WriteOptions::default());
    let (b, d) = read_one(&w.text);
    assert!(
        d.iter().all(|d| d.code != kifu::Code::Syntax),
        "written KIF does not read back: {d:?}\n{}",
        w.text
    );
    (normalise(a), normalise(b), w.text)
}

#[test]
fn fixtures_round_trip() {
    for f in [
        "kif/variations.kifu",
        "kif/handicap-lance.kifu",
        "kif/handicap-ten.kifu",
        "kif/bod-hands.kifu",
        "kif/bod-white-to-move.kifu",
        "kif/specials.kifu",
    ] {
        let (a, b, text) = round_trip(&fixture(f));
        assert!(
            a == b,
            "{f} changed in a round trip: {}\n{text}",
            first_difference(&a, &b)
        );
    }
}

#[test]
fn writes_kifu_for_windows_layout() {
    let r = read_clean(&fixture("kif/variations.kifu"));
    let w = kif::write(&r, &WriteOptions::default());
    assert!(w.warnings.is_empty(), "{:?}", w.warnings);
    let lines: Vec<&str> = w.text.lines().collect();
    assert!(lines.contains(&"手数----指手---------消費時間--"));
    assert!(lines.contains(&"   1 ７六歩(77)   ( 0:16/00:00:16)"));
    assert!(lines.contains(&"   2 ３四歩(33)   ( 0:05/00:00:05)+"));
    assert!(lines.contains(&"   3 ２二角成(88) ( 0:03/00:00:19)"));
    assert!(lines.contains(&"   4 同　銀(31)   ( 1:02/00:01:07)+"));
    assert!(lines.contains(&"   5 ４五角打     ( 0:10/00:00:29)"));
    assert!(lines.contains(&"  10 投了         ( 0:05/00:02:12)"));
    // The source's `不成` is not written (issue #47: cshogi dropped such a line, tsshogi
    // refused it); the source square says the move.
    assert!(
        lines.contains(&"   9 ２三角(34)   ( 0:01/00:01:00)"),
        "{}",
        w.text
    );
    assert!(
        lines
            .iter()
            .all(|l| l.starts_with('*') || !l.contains("不成")),
        "{}",
        w.text
    );
    assert!(lines.contains(&"まで9手で先手の勝ち"));
    let blocks: Vec<&str> = lines
        .iter()
        .copied()
        .filter(|l| l.starts_with("変化"))
        .collect();
    assert_eq!(
        blocks,
        [
            "変化：9手",
            "変化：4手",
            "変化：2手",
            "変化：3手",
            "変化：2手"
        ]
    );
    assert!(lines.contains(&"*対局開始前のコメント"));
    assert!(lines.contains(&"&角交換"));
}

#[test]
fn writes_footer_from_the_special_when_there_is_none() {
    fn as_if_not_kif(r: &mut Record) {
        r.footer = None;
        for n in &mut r.moves {
            n.number = None;
        }
    }
    let mut r = read_clean(&fixture("kif/handicap-lance.kifu"));
    as_if_not_kif(&mut r);
    let w = kif::write(&r, &WriteOptions::default());
    assert!(w.text.contains("\nまで2手で下手の勝ち\n"), "{}", w.text);
    let mut r = read_clean("   1 ７六歩(77)\n   2 ３四歩(33)\n   3 切れ負け\n");
    as_if_not_kif(&mut r);
    let w = kif::write(&r, &WriteOptions::default());
    assert!(
        w.text.contains("\nまで2手で時間切れにより後手の勝ち\n"),
        "{}",
        w.text
    );
    // A KIF record without a footer is written without one.
    let r = read_clean("   1 ７六歩(77)\n   2 投了\n");
    assert!(
        !kif::write(&r, &WriteOptions::default())
            .text
            .contains("まで")
    );
}

#[test]
fn writes_resolved_moves_without_text_details() {
    // A record as a USI reader makes it: resolved moves, no piece names.
    let mut r = read_clean(
        "   1 ７六歩(77)\n   2 ３四歩(33)\n   3 ２二角成(88)\n   4 同　銀(31)\n   5 ４五角打\n",
    );
    let usi = ["7g7f", "3c3d", "8h2b+", "3a2b", "B*4e"];
    for (n, u) in r.moves.iter_mut().zip(usi) {
        if let NodeKind::Move { text, resolved } = &mut n.kind {
            text.piece = None;
            text.from = Source::Unknown;
            *resolved = Some(Move::from_usi(u).unwrap());
        }
    }
    let w = kif::write(&r, &WriteOptions::default());
    for want in ["   3 ２二角成(88)", "   4 同　銀(31)", "   5 ４五角打"] {
        assert!(
            w.text.lines().any(|l| l == want),
            "{want} missing:\n{}",
            w.text
        );
    }
}

#[test]
fn corpus_kif_files_round_trip() {
    let Some(all) = corpus_files("corpus_kif_files_round_trip", &["kif", "kifu"]) else {
        return;
    };
    let mut bad = Vec::new();
    for p in all {
        if p.to_string_lossy().contains("error_fixtures") {
            continue;
        }
        let text = decode(&std::fs::read(&p).unwrap());
        let (a, d) = read_one(&text);
        // Numbers that are not consecutive are renumbered when written: no identity there.
        if d.iter().any(|d| d.code == kifu::Code::MoveNumber) {
            continue;
        }
        let w = kif::write(&a, &WriteOptions::default());
        let (b, _) = read_one(&w.text);
        let (a, b) = (normalise(a), normalise(b));
        if a != b {
            bad.push(format!("{}: {}", p.display(), first_difference(&a, &b)));
        }
    }
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}

#[test]
fn malformed_fixtures_give_located_errors() {
    let Some(root) = corpus("malformed_fixtures_give_located_errors") else {
        return;
    };
    let dir = root.join("iyuuya__jkf/spec/error_fixtures");
    let files = files_with(&dir, &["kif", "ki2"]);
    assert!(files.len() >= 12 || files.is_empty());
    for p in files {
        let text = decode(&std::fs::read(&p).unwrap());
        let is_ki2 = p.extension().is_some_and(|e| e == "ki2");
        let mut g = if is_ki2 {
            kifu::formats::ki2::read(&text)
        } else {
            kif::read(&text)
        };
        let mut d = g[0].diagnostics.clone();
        d.extend(kifu::record::resolve::resolve_record(&mut g[0].record));
        let located: Vec<_> = d
            .iter()
            .filter(|d| d.is_error() && d.line.is_some())
            .collect();
        assert!(
            !located.is_empty(),
            "{}: no located error in {d:?}",
            p.display()
        );
    }
}

mod never_panics {
    use kifu::formats::{WriteOptions, ki2, kif};
    use kifu::record::resolve::resolve_record;
    use proptest::prelude::*;

    /// Lines made of the characters the readers care about.
    fn kakinoki_text() -> impl Strategy<Value = String> {
        let atoms = prop::sample::select(vec![
            "   1 ",
            "  12 ",
            "７六歩(77)",
            "同　銀(31)",
            "５五角打",
            "成",
            "不成",
            "(",
            ")",
            "( 0:16/00:00:16)",
            "+",
            "投了",
            "先手 反則負け",
            "▲",
            "△",
            "☗",
            "右",
            "左",
            "直",
            "上",
            "引",
            "寄",
            "行",
            "同",
            "手合割：",
            "香落ち",
            "先手の持駒：",
            "歩十八",
            "金二",
            "なし",
            "|",
            "v",
            " ・",
            "龍",
            "全",
            "|一",
            "後手番",
            "変化：",
            "2手",
            "1手",
            "*",
            "**",
            "&",
            "まで",
            "3手で",
            "先手の勝ち",
            "#",
            "：",
            " ",
            "　",
            "\n",
            "\r\n",
            "1",
            "9",
            "十",
            "一",
            "二",
            "九",
            "０",
            "：",
            "手",
            "打",
        ]);
        prop::collection::vec(atoms, 0..60).prop_map(|v| v.concat())
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(600))]
        #[test]
        fn read_resolve_write_never_panic(text in kakinoki_text()) {
            for mut g in kif::read(&text).into_iter().chain(ki2::read(&text)) {
                let _ = resolve_record(&mut g.record);
                let _ = kif::write(&g.record, &WriteOptions::default());
                let _ = ki2::write(&g.record, &WriteOptions::default());
            }
        }
    }
}

#[test]
fn csa_records_are_written_as_kif() {
    // The footer names the side to move, as the special line does (formats.md's table of
    // endings): White's own foul is its loss, Black's foul White's win.
    for (sign, word, footer) in [
        ('-', "反則負け", "まで1手で後手の反則負け"),
        ('+', "反則勝ち", "まで1手で後手の反則勝ち"),
    ] {
        let csa = format!("V2.2\nPI\n+\n+7776FU\n%{sign}ILLEGAL_ACTION\n");
        let mut g = kifu::formats::csa::read(&csa);
        assert!(kifu::record::resolve::resolve_record(&mut g[0].record).is_empty());
        let w = kif::write(&g[0].record, &WriteOptions::default());
        assert!(w.text.contains("   1 ７六歩(77)"), "{}", w.text);
        assert!(w.text.contains(&format!("   2 {word}")), "{}", w.text);
        assert!(w.text.contains(footer), "{}", w.text);
        let back = read_clean(&w.text);
        assert_eq!(back.moves.len(), 2);
    }
}

#[test]
fn deep_nesting_is_bounded() {
    // Each block branches from the previous block's second move: one level deeper each time.
    let mut text = String::from("   1 ７六歩(77)\n   2 ３四歩(33)\n");
    for n in 2..1300u32 {
        text.push_str(&format!(
            "変化：{n}手\n{n:>4} ３四歩(33)\n{:>4} ７六歩(77)\n",
            n + 1
        ));
    }
    let (r, d) = read_one(&text);
    assert!(
        d.iter()
            .any(|d| d.code == kifu::Code::Syntax && d.message.contains("nested"))
    );
    let mut depth = 0;
    let mut line = &r.moves;
    while let Some(v) = line.get(1).and_then(|n| n.variations.first()) {
        depth += 1;
        line = v;
    }
    assert_eq!(depth, 1000);
}

#[test]
fn per_move_times_get_cumulative_totals() {
    let csa = "V2.2\nPI\n+\n+7776FU\nT12\n-3334FU\nT5\n+2726FU\nT70\n%TORYO\nT3\n";
    let mut g = kifu::formats::csa::read(csa);
    assert!(kifu::record::resolve::resolve_record(&mut g[0].record).is_empty());
    let w = kif::write(&g[0].record, &WriteOptions::default());
    let lines: Vec<&str> = w.text.lines().collect();
    for want in [
        "   1 ７六歩(77)   ( 0:12/00:00:12)",
        "   2 ３四歩(33)   ( 0:05/00:00:05)",
        "   3 ２六歩(27)   ( 1:10/00:01:22)",
        "   4 投了         ( 0:03/00:00:08)",
    ] {
        assert!(lines.contains(&want), "{want} missing:\n{}", w.text);
    }
}

/// Whatever time the writer writes, the reader reads back: minutes and hours of as many digits
/// as a `u64` of milliseconds needs (15 and 13). The reader refused more than 9 digits a field,
/// so a CSA time of about 1e16 seconds converted to KIF without a warning and did not read
/// back (found when the `roundtrip` check began to require clean read-backs).
#[test]
fn the_largest_times_read_back() {
    use kifu::formats::{self, Format, WriteOptions};
    for secs in [0u64, 59, 3600, 10_294_692_519_786_946, u64::MAX / 1000] {
        let csa = format!("V2.2\nPI\n+\n+7776FU\nT{secs}\n-3334FU\nT1\n%TORYO\n");
        let mut games = formats::read(Format::Csa, &csa);
        let r = kifu::validate::validate_game(&mut games[0], &kifu::validate::Options::default());
        assert!(r.diagnostics.is_empty(), "{secs}: {:?}", r.diagnostics);
        let w = formats::write(Format::Kif, &games[0].record, &WriteOptions::default());
        assert!(w.warnings.is_empty(), "{secs}: {:?}", w.warnings);
        let back = kif::read(&w.text);
        assert!(
            back[0].diagnostics.is_empty(),
            "{secs}: {:?}\n{}",
            back[0].diagnostics,
            w.text
        );
        let t = back[0].record.moves[0].time.expect("time");
        assert_eq!(t.elapsed_ms, Some(secs * 1000), "{}", w.text);
        assert_eq!(t.total_ms, Some(secs * 1000), "{}", w.text);
    }
    // Past u64 milliseconds: refused, not wrapped.
    for field in ["999999999999999999", "99999999999999999999"] {
        let big = kif::read(&format!("   1 ７六歩(77)   ({field}:00/ 0:00:00)\n"));
        assert!(!big[0].diagnostics.is_empty(), "{field}");
    }
}

/// A KIF record whose only ending is its footer (`まで2手で後手の勝ち`, no `投了` line):
/// CSA and USI write the footer's ending as theirs (a resignation), JKF warns that it writes
/// none (as the reference converters do for a KI2 `まで…の勝ち`), and a footer that counts
/// other moves than the line has is dropped with a warning, never in silence.
#[test]
fn a_footer_only_ending_is_written_or_warned_about() {
    use kifu::formats::{self, Format, WriteOptions};
    use kifu::record::SpecialKind;
    let kif = |n| format!("   1 ７六歩(77)\n   2 ３四歩(33)\nまで{n}手で後手の勝ち\n");
    let mut games = kif::read(&kif(2));
    let _ = kifu::validate::validate_game(&mut games[0], &kifu::validate::Options::default());
    let record = &games[0].record;
    assert!(record.end().is_none());
    let opts = WriteOptions {
        usi_endings: true,
        ..WriteOptions::default()
    };
    for (to, word) in [(Format::Csa, "%TORYO"), (Format::Usi, " resign")] {
        let w = formats::write(to, record, &opts);
        assert!(w.warnings.is_empty(), "{to:?}: {:?}", w.warnings);
        assert!(w.text.contains(word), "{to:?}: {}", w.text);
        let back = formats::read(to, &w.text);
        assert_eq!(
            back[0].record.end().map(|s| s.kind),
            Some(SpecialKind::Resign)
        );
    }
    let w = formats::write(Format::Jkf, record, &WriteOptions::default());
    assert_eq!(w.warnings.len(), 1, "{:?}", w.warnings);
    // Written back to KIF, the footer is the record's own.
    let w = formats::write(Format::Kif, record, &WriteOptions::default());
    assert!(w.text.contains("まで2手で後手の勝ち"), "{}", w.text);
    let mut games = kif::read(&kif(5));
    let _ = kifu::validate::validate_game(&mut games[0], &kifu::validate::Options::default());
    for to in [Format::Csa, Format::Usi, Format::Jkf] {
        let w = formats::write(to, &games[0].record, &WriteOptions::default());
        assert!(
            w.warnings
                .iter()
                .any(|d| d.message.contains("まで5手で後手の勝ち")),
            "{to:?}: {:?}",
            w.warnings
        );
        assert!(
            !w.text.contains("TORYO") && !w.text.contains("resign"),
            "{}",
            w.text
        );
    }
}

/// A KIF game of two moves from a board diagram of one row per entry of `ranks` (the rank
/// label written after the row, or none): the even position's rows, empty rows past the ninth.
fn diagram(ranks: &[&str]) -> String {
    const ROWS: [&str; 9] = [
        "|v香v桂v銀v金v玉v金v銀v桂v香|",
        "| ・v飛 ・ ・ ・ ・ ・v角 ・|",
        "|v歩v歩v歩v歩v歩v歩v歩v歩v歩|",
        "| ・ ・ ・ ・ ・ ・ ・ ・ ・|",
        "| ・ ・ ・ ・ ・ ・ ・ ・ ・|",
        "| ・ ・ ・ ・ ・ ・ ・ ・ ・|",
        "| 歩 歩 歩 歩 歩 歩 歩 歩 歩|",
        "| ・ 角 ・ ・ ・ ・ ・ 飛 ・|",
        "| 香 桂 銀 金 玉 金 銀 桂 香|",
    ];
    let mut out = String::from(
        "後手の持駒：なし\n  ９ ８ ７ ６ ５ ４ ３ ２ １\n+---------------------------+\n",
    );
    for (i, rank) in ranks.iter().enumerate() {
        out.push_str(ROWS.get(i).copied().unwrap_or(ROWS[3]));
        out.push_str(rank);
        out.push('\n');
    }
    out.push_str("+---------------------------+\n先手の持駒：なし\n手数----指手---------消費時間--\n   1 ７六歩(77)\n   2 ３四歩(33)\n");
    out
}

/// Issue #45: a board diagram of eleven rows or of two was read without a word (rows past
/// the ninth dropped, missing ranks left empty). Now a `syntax` error: at the tenth row when
/// there are too many, at the last row when there are too few; the moves are read on.
#[test]
fn board_diagrams_of_other_than_nine_rows_are_syntax_errors() {
    let nine = ["一", "二", "三", "四", "五", "六", "七", "八", "九"];
    let (r, d) = read_one(&diagram(&nine));
    assert!(d.is_empty(), "{d:?}");
    assert_eq!(r.plies(), 2);
    // Eleven rows (the diagram starts on line 4): one error, at the tenth (line 13).
    for extra in [&["", ""][..], &["十", "十一"][..]] {
        let mut ranks = nine.to_vec();
        ranks.extend_from_slice(extra);
        let text = diagram(&ranks);
        let (r, d) = read_one(&text);
        let got: Vec<_> = d.iter().map(|d| (d.code, d.line, d.column)).collect();
        assert_eq!(
            got,
            [(kifu::Code::Syntax, Some(13), Some(1))],
            "{d:?}\n{text}"
        );
        assert!(d[0].message.contains("row"), "{}", d[0].message);
        assert_eq!(r.plies(), 2);
    }
    // Two rows: one error, at the second (line 5).
    for two in [&nine[..2], &["", ""][..]] {
        let text = diagram(two);
        let (r, d) = read_one(&text);
        let got: Vec<_> = d.iter().map(|d| (d.code, d.line, d.column)).collect();
        assert_eq!(
            got,
            [(kifu::Code::Syntax, Some(5), Some(1))],
            "{d:?}\n{text}"
        );
        assert!(d[0].message.contains("2 rows"), "{}", d[0].message);
        assert_eq!(r.plies(), 2);
    }
    // A row that cannot be read is reported once, for itself: it still counts as a row.
    let bad = diagram(&nine).replace("|v歩v歩v歩v歩v歩v歩v歩v歩v歩|", "|v歩v歩v歩v歩v歩|");
    let (_, d) = read_one(&bad);
    assert_eq!(d.len(), 1, "{d:?}");
    assert_eq!(d[0].line, Some(6));
    // `validate` (as read and from a record alike) reports them too.
    let reports = kifu::validate::validate_kif(&diagram(&nine[..2]), &Default::default());
    assert!(
        reports[0]
            .diagnostics
            .iter()
            .any(|d| d.code == kifu::Code::Syntax && d.line == Some(5)),
        "{:?}",
        reports[0].diagnostics
    );
}

/// Issue #45: a move number of 2^32 or more did not fit the reader's `u32`, was taken for no
/// number at all, and no `move-number` warning came. Such a number is now a `move-number`
/// warning as written (never wrapped: 2^32 + 2 is not 2).
#[test]
fn move_numbers_past_u32_are_move_number_warnings() {
    for big in [
        "4294967298",
        "18446744073709551618",
        "99999999999999999999999999",
    ] {
        let text = format!("   1 ７六歩(77)\n{big} ３四歩(33)\n   3 ２六歩(27)\n");
        let (r, d) = read_one(&text);
        assert_eq!(r.plies(), 3);
        let got: Vec<_> = d.iter().map(|d| (d.code, d.line, d.ply)).collect();
        assert_eq!(got, [(kifu::Code::MoveNumber, Some(2), Some(2))], "{d:?}");
        assert!(d[0].message.contains(big), "{}", d[0].message);
        // The first move of the game, and of a variation.
        let first = format!("{big} ７六歩(77)\n   2 ３四歩(33)\n");
        let (_, d) = read_one(&first);
        let got: Vec<_> = d.iter().map(|d| (d.code, d.line, d.ply)).collect();
        assert_eq!(got, [(kifu::Code::MoveNumber, Some(1), Some(1))], "{d:?}");
        let variation =
            format!("   1 ７六歩(77)\n   2 ３四歩(33)\n\n変化：2手\n{big} ８四歩(83)\n");
        let (_, d) = read_one(&variation);
        let got: Vec<_> = d.iter().map(|d| (d.code, d.line, d.ply)).collect();
        assert_eq!(got, [(kifu::Code::MoveNumber, Some(5), Some(2))], "{d:?}");
        // `validate` reports it, from UTF-8 text and from CP932 bytes.
        let opts = kifu::validate::Options::default();
        let (cp932, _) =
            kifu::formats::text::encode(&text, kifu::formats::text::TextEncoding::Cp932);
        for reports in [
            kifu::validate::validate_kif(&text, &opts),
            kifu::validate::judged_as_read_cp932(&cp932, &opts)
                .expect("read from CP932")
                .0,
        ] {
            let warned: Vec<_> = reports
                .iter()
                .flat_map(|r| &r.diagnostics)
                .map(|d| (d.code, d.line))
                .collect();
            assert_eq!(warned, [(kifu::Code::MoveNumber, Some(2))], "{big}");
        }
    }
}
