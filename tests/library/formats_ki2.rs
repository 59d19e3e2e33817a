//! KI2 reader and writer tests.

use crate::common;
use common::{corpus, corpus_files};
use std::path::Path;

use kifu::formats::ki2;

/// Decodes a corpus file as the command line does (BOM, `#KIF encoding=` line, extension).
fn decode(bytes: &[u8]) -> String {
    kifu::formats::decode::decode(bytes, Some(kifu::formats::Format::Ki2), None).text
}

#[test]
fn corpus_ki2_files_parse_without_syntax_errors() {
    let Some(all) = corpus_files(
        "corpus_ki2_files_parse_without_syntax_errors",
        &["ki2", "ki2u"],
    ) else {
        return;
    };
    let mut bad = Vec::new();
    for p in all {
        let text = decode(&std::fs::read(&p).unwrap());
        let games = ki2::read(&text);
        assert_eq!(games.len(), 1);
        let errs: Vec<_> = games[0]
            .diagnostics
            .iter()
            .filter(|d| d.code == kifu::Code::Syntax)
            .collect();
        let malformed = p.to_string_lossy().contains("error_fixtures");
        if malformed {
            continue;
        }
        if !errs.is_empty() {
            bad.push(format!("{}: {:?}", p.display(), errs));
        }
    }
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}

use kifu::core::{Color, Move};
use kifu::formats::{WriteOptions, kif};
use kifu::record::resolve::resolve_record;
use kifu::record::{Horizontal, MoveNode, NodeKind, Record, Source, SpecialKind, Vertical};

fn fixture(name: &str) -> String {
    let p = Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/fixtures")).join(name);
    std::fs::read_to_string(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

fn read_clean(text: &str) -> Record {
    let mut g = ki2::read(text);
    assert_eq!(g.len(), 1);
    assert!(g[0].diagnostics.is_empty(), "{:?}", g[0].diagnostics);
    g.remove(0).record
}

fn text_of(n: &MoveNode) -> &kifu::record::MoveText {
    match &n.kind {
        NodeKind::Move { text, .. } => text,
        NodeKind::Special(s) => panic!("special {s:?} where a move was expected"),
    }
}

/// The resolved moves of a line and its variations, as USI, in tree order; `?` for a move that
/// is not resolved, `#` for a special.
fn moves_tree(ns: &[MoveNode]) -> Vec<String> {
    let mut out = Vec::new();
    for n in ns {
        out.push(match &n.kind {
            NodeKind::Move { resolved, .. } => resolved.map_or("?".to_string(), |m| m.to_usi()),
            NodeKind::Special(_) => "#".to_string(),
        });
        for v in &n.variations {
            out.push("(".into());
            out.extend(moves_tree(v));
            out.push(")".into());
        }
    }
    out
}

fn resolved(mut r: Record) -> Record {
    let d = resolve_record(&mut r);
    assert!(d.is_empty(), "{d:?}");
    r
}

#[test]
fn reads_marks_spacing_and_same() {
    let r = read_clean(&fixture("ki2/marks.ki2"));
    assert_eq!(r.plies(), 11);
    let colors: Vec<_> = r
        .moves
        .iter()
        .filter_map(|n| text_of_opt(n).and_then(|t| t.color))
        .collect();
    let want: Vec<_> = (0..11)
        .map(|i| {
            if i % 2 == 0 {
                Color::Black
            } else {
                Color::White
            }
        })
        .collect();
    assert_eq!(colors, want);
    assert_eq!(text_of(&r.moves[2]).raw, "☗２六歩");
    assert_eq!(text_of(&r.moves[7]).relative.vertical, Some(Vertical::Up));
    assert!(text_of(&r.moves[9]).same);
    assert_eq!(text_of(&r.moves[10]).to, Square::new(2, 4).unwrap());
    assert_eq!(r.moves[1].span, kifu::record::Span::new(2, 5));
    // The footer gives the end: a special node is made from it.
    let end = r.end().unwrap();
    assert_eq!(end.kind, SpecialKind::Resign);
    assert_eq!(end.text, "まで11手で先手の勝ち");
    let f = r.footer.as_ref().unwrap();
    assert_eq!((f.plies, f.winner), (Some(11), Some(Color::Black)));
    let r = resolved(r);
    assert_eq!(
        r.moves[10].resolved(),
        Some(Move::from_usi("2h2d").unwrap())
    );
}

fn text_of_opt(n: &MoveNode) -> Option<&kifu::record::MoveText> {
    match &n.kind {
        NodeKind::Move { text, .. } => Some(text),
        NodeKind::Special(_) => None,
    }
}

use kifu::core::Square;

#[test]
fn reads_suffixes_and_legacy_sources() {
    let r = read_clean(
        "▲５七金左上 ▲５三桂右不成 ▲５五角打 ▲７六歩(77) ▲５八金直 ▲５八銀引成 ▲５八と寄\n",
    );
    let t: Vec<_> = r.moves.iter().map(text_of).collect();
    assert_eq!(
        (t[0].relative.horizontal, t[0].relative.vertical),
        (Some(Horizontal::Left), Some(Vertical::Up))
    );
    assert_eq!(t[0].from, Source::Unknown);
    assert_eq!(
        (t[1].relative.horizontal, t[1].promote),
        (Some(Horizontal::Right), Some(false))
    );
    assert_eq!(t[2].from, Source::Drop);
    assert!(t[2].relative.drop);
    assert_eq!(t[3].from, Source::Square(Square::new(7, 7).unwrap()));
    assert_eq!(t[4].relative.horizontal, Some(Horizontal::Straight));
    assert_eq!(
        (t[5].relative.vertical, t[5].promote),
        (Some(Vertical::Down), Some(true))
    );
    assert_eq!(t[6].relative.vertical, Some(Vertical::Sideways));
    let mut g = ki2::read("▲７六歩 ▲５五金X\n");
    assert_eq!(g[0].diagnostics.len(), 1);
    let d = g.remove(0).diagnostics.remove(0);
    assert_eq!(
        (d.code, d.line, d.column),
        (kifu::Code::Syntax, Some(1), Some(10))
    );
}

#[test]
fn reads_comments_variations_and_footers() {
    let r = read_clean(&fixture("ki2/suffixes.ki2u"));
    assert_eq!(r.plies(), 12);
    assert_eq!(r.moves[5].comments, ["５二金右のコメント"]);
    assert_eq!(r.end().unwrap().kind, SpecialKind::Interrupt);
    let v = &r.moves[5].variations[0];
    assert_eq!(v.len(), 3);
    assert_eq!(v[1].comments, ["変化のコメント"]);
    assert_eq!(v[2].special().unwrap().kind, SpecialKind::IllegalWin);
    assert_eq!(r.footer.as_ref().unwrap().text, "まで12手で中断");
    let r = resolved(r);
    let usi = |s| Some(Move::from_usi(s).unwrap());
    assert_eq!(r.moves[5].resolved(), usi("6a5b"));
    assert_eq!(r.moves[5].variations[0][0].resolved(), usi("4a5b"));
    assert_eq!(r.moves[9].resolved(), usi("5b4b"));
    assert_eq!(r.moves[11].resolved(), usi("1a1b"));
}

#[test]
fn writes_minimal_suffixes_and_reads_back_the_same_moves() {
    let r = resolved(read_clean(&fixture("ki2/suffixes.ki2u")));
    let w = ki2::write(&r, &WriteOptions::default());
    assert!(w.warnings.is_empty(), "{:?}", w.warnings);
    for tok in [
        "△５二金右",
        "△５二金左",
        "△４二金寄",
        "▲２三角成",
        "△同　香",
        "△同　銀",
        "▲４五角 ",
    ] {
        assert!(w.text.contains(tok), "{tok} missing:\n{}", w.text);
    }
    assert!(!w.text.contains("角打"), "{}", w.text);
    assert!(w.text.contains("\nまで12手で中断\n"));
    assert!(w.text.contains("\n変化：6手\n"));
    assert!(w.text.contains("*変化のコメント\n"));
    let back = resolved(read_clean(&w.text));
    assert_eq!(moves_tree(&back.moves), moves_tree(&r.moves));
    assert_eq!(back.moves[5].comments, r.moves[5].comments);
}

#[test]
fn kif_written_as_ki2_keeps_the_moves_and_reports_dropped_times() {
    let mut r = kif::read(&fixture("kif/variations.kifu")).remove(0).record;
    assert!(resolve_record(&mut r).is_empty());
    let w = ki2::write(&r, &WriteOptions::default());
    assert_eq!(w.warnings.len(), 1, "{:?}", w.warnings);
    assert_eq!(w.warnings[0].code, kifu::Code::Lossy);
    let back = resolved(read_clean(&w.text));
    assert_eq!(moves_tree(&back.moves), moves_tree(&r.moves));
    assert!(w.text.contains("▲２三角成"));
    assert!(w.text.contains("▲２三角不成"));
    assert!(w.text.contains("\nまで9手で先手の勝ち\n"));
}

#[test]
fn footer_is_made_for_records_without_one() {
    let mut r = kif::read("   1 ７六歩(77)\n   2 ３四歩(33)\n   3 反則負け\n")
        .remove(0)
        .record;
    assert!(resolve_record(&mut r).is_empty());
    let w = ki2::write(&r, &WriteOptions::default());
    assert!(w.text.contains("\nまで2手で先手の反則負け\n"), "{}", w.text);
    let back = read_clean(&w.text);
    assert_eq!(back.end().unwrap().kind, SpecialKind::IllegalMove);
    assert_eq!(back.end().unwrap().side, Some(Color::Black));
}

fn read_any(p: &Path) -> Vec<kifu::formats::ParsedGame> {
    let text = decode(&std::fs::read(p).unwrap());
    let ext = p
        .extension()
        .and_then(|e| e.to_str())
        .unwrap_or("")
        .to_ascii_lowercase();
    if ext.starts_with("ki2") {
        ki2::read(&text)
    } else {
        kif::read(&text)
    }
}

#[test]
fn corpus_records_resolve_and_round_trip_through_ki2() {
    let Some(all) = corpus_files(
        "corpus_records_resolve_and_round_trip_through_ki2",
        &["kif", "kifu", "ki2", "ki2u"],
    ) else {
        return;
    };
    let mut bad = Vec::new();
    for p in all {
        let name = p.to_string_lossy().to_string();
        if name.contains("error_fixtures")
            || name.ends_with("reverse-temporary/kif/[shogigui]bookmark.kifu")
        {
            continue;
        }
        let mut g = read_any(&p);
        let d = resolve_record(&mut g[0].record);
        // A foul recorded on purpose (an unreachable move) is the only failure expected. The
        // impossible start of 9fu (White pawns on rank 9) still resolves: the position is
        // validate's to report, not the resolver's.
        let expected_failure = name.ends_with("illegal_move.kif");
        if expected_failure {
            assert!(!d.is_empty(), "{name}: expected a diagnostic");
            continue;
        }
        if !d.is_empty() {
            bad.push(format!("{name}: {d:?}"));
            continue;
        }
        let r = &g[0].record;
        let w = ki2::write(r, &WriteOptions::default());
        let mut back = ki2::read(&w.text);
        let syn: Vec<_> = back[0]
            .diagnostics
            .iter()
            .filter(|d| d.code == kifu::Code::Syntax)
            .collect();
        if !syn.is_empty() {
            bad.push(format!("{name}: written KI2 does not read: {syn:?}"));
            continue;
        }
        let d = resolve_record(&mut back[0].record);
        // Only moves: an ending KI2 has no wording for (an unknown word) is dropped, with a
        // warning.
        let moves_only = |ns: &[MoveNode]| -> Vec<String> {
            moves_tree(ns).into_iter().filter(|m| m != "#").collect()
        };
        if !d.is_empty() || moves_only(&back[0].record.moves) != moves_only(&r.moves) {
            bad.push(format!(
                "{name}: moves differ after KI2 round trip {d:?}\n{}",
                w.text
            ));
        }
    }
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}

#[test]
fn same_game_in_kif_and_ki2_gives_the_same_moves() {
    let Some(root) = corpus("same_game_in_kif_and_ki2_gives_the_same_moves") else {
        return;
    };
    let base = root.join("sunfish-shogi__shogihome/src/tests/testdata");
    // Files of one game written by shogihome in several formats and encodings.
    let groups: [&[&str]; 4] = [
        &[
            "conversion/input/kif-sjis.kif",
            "conversion/input/ki2-sjis.ki2",
        ],
        &[
            "conversion/input/ki2u-utf8.ki2u",
            "conversion/output/ki2u-to-kifu/skip/ki2u-utf8.kifu",
        ],
        &[
            "encoding/sjis.kif",
            "encoding/utf8.kif",
            "encoding/sjis.ki2",
            "encoding/utf8.ki2",
        ],
        &[
            "conversion/output/csa-to-ki2/csa-sjis.ki2",
            "conversion/output/csa-to-ki2-utf8/csa-sjis.ki2",
        ],
    ];
    for group in groups {
        let mut first: Option<(String, Vec<String>)> = None;
        let mut seen = 0;
        for f in group {
            let p = base.join(f);
            if !p.exists() {
                continue;
            }
            let mut g = read_any(&p);
            assert!(resolve_record(&mut g[0].record).is_empty(), "{f}");
            seen += 1;
            let tree = moves_tree(&g[0].record.moves);
            // Compare moves only: KIF keeps specials as lines, KI2 makes them from footers.
            let tree: Vec<_> = tree.into_iter().filter(|m| m != "#").collect();
            assert!(tree.len() >= 3, "{f}");
            match &first {
                None => first = Some((f.to_string(), tree)),
                Some((f0, t0)) => assert_eq!(&tree, t0, "{f} differs from {f0}"),
            }
        }
        assert!(
            seen == 0 || seen == group.len(),
            "{group:?}: some files are missing"
        );
    }
}

#[test]
fn same_game_in_csa_and_ki2_gives_the_same_moves() {
    let Some(root) = corpus("same_game_in_csa_and_ki2_gives_the_same_moves") else {
        return;
    };
    let base = root.join("sunfish-shogi__shogihome/src/tests/testdata/conversion");
    let csa = base.join("input/csa-sjis.csa");
    let Ok(bytes) = std::fs::read(&csa) else {
        return;
    };
    let text = kifu::formats::decode::decode(&bytes, Some(kifu::formats::Format::Csa), None).text;
    let mut c = kifu::formats::csa::read(&text);
    assert!(resolve_record(&mut c[0].record).is_empty());
    let want: Vec<_> = moves_tree(&c[0].record.moves)
        .into_iter()
        .filter(|m| m != "#")
        .collect();
    assert!(want.len() > 10);
    for f in [
        "output/csa-to-ki2/csa-sjis.ki2",
        "output/csa-to-ki2-utf8/csa-sjis.ki2",
    ] {
        let mut g = read_any(&base.join(f));
        assert!(resolve_record(&mut g[0].record).is_empty(), "{f}");
        let got: Vec<_> = moves_tree(&g[0].record.moves)
            .into_iter()
            .filter(|m| m != "#")
            .collect();
        assert_eq!(got, want, "{f}");
    }
    // And our own KIF and KI2 of the CSA game read back as the same moves.
    let rec = &c[0].record;
    for (w, is_ki2) in [
        (kif::write(rec, &WriteOptions::default()), false),
        (ki2::write(rec, &WriteOptions::default()), true),
    ] {
        let mut g = if is_ki2 {
            ki2::read(&w.text)
        } else {
            kif::read(&w.text)
        };
        assert!(resolve_record(&mut g[0].record).is_empty(), "{}", w.text);
        let got: Vec<_> = moves_tree(&g[0].record.moves)
            .into_iter()
            .filter(|m| m != "#")
            .collect();
        assert_eq!(got, want, "{}", w.text);
    }
}

#[test]
fn handicap_games() {
    use kifu::core::Handicap;
    use kifu::record::StartPosition;
    let r = resolved(read_clean(&fixture("ki2/handicap.ki2u")));
    assert_eq!(r.start, StartPosition::Preset(Handicap::TwoPieces));
    assert_eq!(r.plies(), 6);
    assert_eq!(r.moves[0].resolved(), Some(Move::from_usi("7a6b").unwrap()));
    assert_eq!(r.moves[3].comments, ["下手の中飛車"]);
    let end = r.end().unwrap();
    assert_eq!(end.kind, SpecialKind::Resign);
    assert_eq!(r.footer.as_ref().unwrap().winner, Some(Color::Black));
    // KI2 and KIF written from it keep the start, the moves and the result.
    let w = ki2::write(&r, &WriteOptions::default());
    let back = resolved(read_clean(&w.text));
    assert_eq!(back.start, r.start);
    assert_eq!(moves_tree(&back.moves), moves_tree(&r.moves));
    let mut r2 = r.clone();
    r2.footer = None;
    let w = ki2::write(&r2, &WriteOptions::default());
    assert!(w.text.contains("\nまで6手で下手の勝ち\n"), "{}", w.text);
    let k = kif::write(&r, &WriteOptions::default());
    assert!(k.text.starts_with("手合割：二枚落ち\n"), "{}", k.text);
    assert!(k.text.contains("   1 ６二銀(71)\n"), "{}", k.text);
    assert!(k.text.contains("   7 投了\n"), "{}", k.text);
}
