//! USI/SFEN reader and writer.

use crate::common;
use common::corpus_files;

use kifu::Code;
use kifu::core::{Color, Handicap, Move, PieceKind, Square};
use kifu::formats::decode::decode;
use kifu::formats::{Format, WriteOptions, csa, usi};
use kifu::record::{NodeKind, Source, SpecialKind, StartPosition};

#[test]
fn reads_every_shape_of_line() {
    let text = "position startpos moves 7g7f 3c3d 8h2b+ 3a2b B*4e resign\n\
                startpos\n\
                \n\
                # a comment line\n\
                sfen lnsgkgsn1/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL w - 1 moves 5a4b\n\
                position sfen 4k4/9/9/9/9/9/9/9/4K4 b G2p 7\n\
                position startpos moves 7g7f win\n\
                9/9/9/9/9/9/9/9/4K4 b - 1 moves 5i5h\n";
    let g = usi::read(text);
    assert_eq!(g.len(), 6);
    assert_eq!(g[5].record.plies(), 1);
    for x in &g {
        assert!(x.diagnostics.is_empty(), "{:?}", x.diagnostics);
    }
    let r = &g[0].record;
    assert_eq!(r.start, StartPosition::Preset(Handicap::Even));
    assert_eq!(r.plies(), 5);
    assert_eq!(r.end().unwrap().kind, SpecialKind::Resign);
    let NodeKind::Move { text, resolved } = &r.moves[2].kind else {
        panic!()
    };
    assert_eq!(text.promote, Some(true));
    assert_eq!(text.piece, None);
    assert_eq!(*resolved, Some(Move::from_usi("8h2b+").unwrap()));
    let NodeKind::Move { text, resolved } = &r.moves[4].kind else {
        panic!()
    };
    assert_eq!(text.from, Source::Drop);
    assert_eq!(
        *resolved,
        Some(Move::Drop {
            kind: PieceKind::Bishop,
            to: Square::new(4, 5).unwrap()
        })
    );
    assert_eq!((r.moves[4].span.line, r.moves[4].span.column), (1, 46));
    assert_eq!(g[1].record.plies(), 0);
    // A standard handicap SFEN is kept as a setup equal to the preset's position.
    assert_eq!(g[2].record.start.to_setup(), Handicap::Lance.setup());
    let StartPosition::Setup(s) = &g[3].record.start else {
        panic!()
    };
    assert_eq!((s.move_number, s.turn), (7, Color::Black));
    assert_eq!(s.hands.black.count(PieceKind::Gold), 1);
    assert_eq!(s.hands.white.count(PieceKind::Pawn), 2);
    assert_eq!(g[4].record.end().unwrap().kind, SpecialKind::Declaration);
}

#[test]
fn special_tokens_end_the_list() {
    for (tok, kind) in [
        ("resign", SpecialKind::Resign),
        ("win", SpecialKind::Declaration),
        ("draw", SpecialKind::Draw),
        ("rep_draw", SpecialKind::Repetition),
        ("rep_win", SpecialKind::IllegalWin),
        ("rep_lose", SpecialKind::IllegalMove),
        ("timeout", SpecialKind::Timeout),
        ("break", SpecialKind::Interrupt),
        ("0000", SpecialKind::Unknown),
        ("none", SpecialKind::Unknown),
    ] {
        let g = usi::read(&format!("startpos moves 7g7f {tok}"));
        assert!(g[0].diagnostics.is_empty());
        assert_eq!(g[0].record.end().unwrap().kind, kind, "{tok}");
        let w = usi::write(
            &g[0].record,
            &WriteOptions {
                usi_endings: true,
                ..WriteOptions::default()
            },
        );
        assert_eq!(w.text, format!("position startpos moves 7g7f {tok}\n"));
        // Plain USI by default: the ending is a warning.
        let w = usi::write(&g[0].record, &WriteOptions::default());
        assert_eq!(w.text, "position startpos moves 7g7f\n");
        assert_eq!(w.warnings.len(), 1, "{tok}: {:?}", w.warnings);
        // A move after the ending is kept, for validation to report (`move-after-end`, in
        // tests/library/validate_endings.rs).
        let g = usi::read(&format!("startpos moves 7g7f {tok} 3c3d"));
        assert!(g[0].diagnostics.is_empty(), "{tok}");
        assert_eq!(g[0].record.moves.len(), 3, "{tok}");
    }
}

#[test]
fn bad_lines_give_syntax_diagnostics_with_columns() {
    let g = usi::read("position startpos moves 7g7f 7g7 3c3d\nposition sfen xyz b - 1\nfoo\n");
    assert_eq!(g.len(), 3);
    let d = &g[0].diagnostics[0];
    assert_eq!(
        (d.code, d.line, d.column),
        (Code::Syntax, Some(1), Some(30))
    );
    assert_eq!(g[0].record.plies(), 1);
    assert_eq!(g[1].diagnostics[0].code, Code::Syntax);
    assert_eq!(g[1].diagnostics[0].line, Some(2));
    assert_eq!(g[2].diagnostics[0].column, Some(1));
}

#[test]
fn round_trip_and_conversion_from_csa() {
    let text = "position sfen lnsgkgsn1/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL w - 1 moves 5a4b 7g7f 4b3b rep_draw\n";
    let g = usi::read(text);
    let extended = WriteOptions {
        usi_endings: true,
        ..WriteOptions::default()
    };
    let w = usi::write(&g[0].record, &extended);
    assert_eq!(w.text, text);
    assert!(w.warnings.is_empty());
    // CSA with times and comments: moves come through, the rest is reported.
    let c = csa::read("N+a\nPI\n+\n+7776FU\nT3\n'hello\n-3334FU\n+8822UM\n%TORYO\n");
    let w = usi::write(&c[0].record, &extended);
    assert_eq!(w.text, "position startpos moves 7g7f 3c3d 8h2b+ resign\n");
    assert_eq!(w.warnings.len(), 3, "{:?}", w.warnings);
    assert!(w.warnings.iter().all(|d| d.code == Code::Lossy));
}

#[test]
fn corpus_usi_files_parse() {
    let Some(all) = corpus_files("corpus_usi_files_parse", &["sfen", "usi"]) else {
        return;
    };
    let mut games = 0;
    for p in all {
        let d = decode(&std::fs::read(&p).unwrap(), Some(Format::Usi), None);
        for g in usi::read(&d.text) {
            assert!(
                g.diagnostics.is_empty(),
                "{}: {:?}",
                p.display(),
                g.diagnostics
            );
            let w = usi::write(&g.record, &WriteOptions::default());
            let back = usi::read(&w.text);
            assert_eq!(back[0].record.moves.len(), g.record.moves.len());
            assert_eq!(back[0].record.start.to_setup(), g.record.start.to_setup());
            games += 1;
        }
    }
    assert!(games > 0);
}

/// USI files joined with `cat` keep each file's UTF-8 BOM at the start of its line: it is
/// read as white space, by the reader and by `validate` (judging as it reads) alike.
#[test]
fn a_bom_at_the_start_of_a_later_line_is_white_space() {
    let text = "startpos moves 7g7f\n\u{feff}startpos moves 2g2f 8c8d\n\u{feff}\n\u{feff}position startpos moves 5g5f\n";
    let games = kifu::formats::read(kifu::Format::Usi, text);
    assert_eq!(games.len(), 3);
    for g in &games {
        assert!(g.diagnostics.is_empty(), "{:?}", g.diagnostics);
    }
    let reports = kifu::validate::validate_text(kifu::Format::Usi, text, &Default::default());
    assert_eq!(
        reports.iter().map(|r| r.plies).collect::<Vec<_>>(),
        [1, 2, 1]
    );
    assert!(reports.iter().all(|r| r.diagnostics.is_empty()));
}
