//! CSA reader and writer: golden tests, the project-made fixture, and the corpus.

use crate::common;
use common::corpus_files;
use std::path::Path;

use kifu::Code;
use kifu::core::{Color, Handicap, PieceKind, Square};
use kifu::formats::decode::decode;
use kifu::formats::{Format, WriteOptions, csa};
use kifu::record::{NamedPiece, NodeKind, Record, Source, SpecialKind, StartPosition, keys};

fn fixture(name: &str) -> String {
    let p = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fixtures/csa")
        .join(name);
    let d = decode(&std::fs::read(p).unwrap(), Some(Format::Csa), None);
    assert!(d.diagnostics.is_empty());
    d.text
}

/// The record with spans cleared (spans differ between a file and its rewrite).
fn without_spans(mut r: Record) -> Record {
    for e in &mut r.header.entries {
        e.span = Default::default();
    }
    for n in &mut r.moves {
        n.span = Default::default();
    }
    r
}

fn round_trip(text: &str, v3: bool) -> (Vec<Record>, Vec<Record>) {
    let games = csa::read(text);
    let mut again = Vec::new();
    for g in &games {
        let w = csa::write(
            &g.record,
            &WriteOptions {
                csa_v3: v3,
                ..WriteOptions::default()
            },
        );
        let back = csa::read(&w.text);
        assert_eq!(back.len(), 1, "{}", w.text);
        assert!(
            back[0].diagnostics.is_empty(),
            "{:?}\n{}",
            back[0].diagnostics,
            w.text
        );
        again.push(without_spans(back[0].record.clone()));
    }
    (
        games.into_iter().map(|g| without_spans(g.record)).collect(),
        again,
    )
}

#[test]
fn project_fixture_reads_every_feature() {
    let text = fixture("multi.csa");
    let games = csa::read(&text);
    assert_eq!(games.len(), 4);
    for g in &games {
        assert!(g.diagnostics.is_empty(), "{:?}", g.diagnostics);
    }
    // Game 0: even game, V2.2 header, comments, every kind of move.
    let g0 = &games[0].record;
    assert_eq!(g0.header.get(keys::BLACK), Some("Sente Player"));
    assert_eq!(g0.header.get(keys::WHITE), Some("Gote, Player"));
    assert_eq!(g0.header.event(), Some("Fixture Cup"));
    assert_eq!(g0.header.site(), Some("Tokyo"));
    assert_eq!(g0.header.start_time(), Some("2024/01/02 10:00:00"));
    assert_eq!(g0.header.end_time(), Some("2024/01/02 11:00:00"));
    assert_eq!(g0.header.get(keys::OPENING), Some("YAGURA"));
    assert_eq!(g0.header.time_control(), Some("00:25+00"));
    assert_eq!(g0.header.get(keys::NOTE), Some("a note"));
    assert_eq!(g0.header.get(keys::HEADER_COMMENT), Some("first comment"));
    assert_eq!(g0.start, StartPosition::Preset(Handicap::Even));
    assert_eq!(g0.start_comments, vec!["*start comment".to_string()]);
    assert_eq!(g0.plies(), 6);
    let NodeKind::Move { text, resolved } = &g0.moves[0].kind else {
        panic!()
    };
    assert_eq!(text.color, Some(Color::Black));
    assert_eq!(text.from, Source::Square(Square::new(7, 7).unwrap()));
    assert_eq!(text.to, Square::new(7, 6).unwrap());
    assert_eq!(text.piece, Some(NamedPiece::After(PieceKind::Pawn)));
    assert_eq!(text.raw, "+7776FU");
    assert_eq!(*resolved, None);
    assert_eq!(g0.moves[0].time.unwrap().elapsed_ms, Some(12_000));
    // A floodgate `'**` line is the move's analysis, not a comment.
    assert!(g0.moves[0].comments.is_empty());
    let a = g0.moves[0].analysis().expect("analysis");
    assert_eq!(a.score, Some(kifu::record::Score::Cp(30)));
    assert_eq!(a.pv.len(), 1);
    assert_eq!(a.lines, vec![" 30 -3334FU".to_string()]);
    // Comma-joined statements on one line; the span is the statement's.
    assert_eq!(g0.moves[1].time.unwrap().elapsed_ms, Some(5_000));
    assert_eq!(g0.moves[1].span.column, 1);
    let NodeKind::Move { text, .. } = &g0.moves[3].kind else {
        panic!()
    };
    assert_eq!(text.piece, Some(NamedPiece::After(PieceKind::Horse)));
    let NodeKind::Move { text, .. } = &g0.moves[5].kind else {
        panic!()
    };
    assert_eq!(text.from, Source::Drop);
    assert_eq!(g0.moves[4].time.unwrap().elapsed_ms, Some(1_000));
    let end = g0.end().unwrap();
    assert_eq!(end.kind, SpecialKind::Resign);
    assert_eq!(
        g0.moves.last().unwrap().time.unwrap().elapsed_ms,
        Some(3_000)
    );
    assert_eq!(
        g0.moves.last().unwrap().comments[0],
        "summary:toryo:a win:b lose"
    );
    // Game 1: handicap via PI, V3.0 fractional times, %+ILLEGAL_ACTION.
    let g1 = &games[1].record;
    assert_eq!(g1.start, StartPosition::Preset(Handicap::TwoPieces));
    assert_eq!(g1.moves[0].time.unwrap().elapsed_ms, Some(1_500));
    assert_eq!(g1.moves[1].time.unwrap().elapsed_ms, Some(123));
    assert_eq!(
        g1.end().unwrap().kind,
        SpecialKind::IllegalAction(Color::Black)
    );
    // Game 2: a handicap written with P1..P9 is recognised as the preset.
    let g2 = &games[2].record;
    assert_eq!(g2.start, StartPosition::Preset(Handicap::Lance));
    // Game 3: a problem with P+/P- and 00AL.
    let g3 = &games[3].record;
    let StartPosition::Setup(s) = &g3.start else {
        panic!("{:?}", g3.start)
    };
    assert_eq!(s.hands.black.count(PieceKind::Gold), 1);
    assert_eq!(s.hands.white.count(PieceKind::Pawn), 17);
    assert_eq!(s.hands.white.count(PieceKind::Rook), 2);
    assert_eq!(s.turn, Color::Black);
    assert_eq!(g3.end().unwrap().kind, SpecialKind::Mate);
}

#[test]
fn every_special_is_read() {
    let words = [
        ("TORYO", SpecialKind::Resign),
        ("CHUDAN", SpecialKind::Interrupt),
        ("SENNICHITE", SpecialKind::Repetition),
        ("TIME_UP", SpecialKind::Timeout),
        ("ILLEGAL_MOVE", SpecialKind::IllegalMove),
        ("+ILLEGAL_ACTION", SpecialKind::IllegalAction(Color::Black)),
        ("-ILLEGAL_ACTION", SpecialKind::IllegalAction(Color::White)),
        ("JISHOGI", SpecialKind::Impasse),
        ("KACHI", SpecialKind::Declaration),
        ("HIKIWAKE", SpecialKind::Draw),
        ("MATTA", SpecialKind::Matta),
        ("TSUMI", SpecialKind::Mate),
        ("FUZUMI", SpecialKind::NoMate),
        ("ERROR", SpecialKind::Error),
        ("MAX_MOVES", SpecialKind::MaxMoves),
        ("SOMETHING_NEW", SpecialKind::Unknown),
    ];
    let text = fixture("specials.csa");
    let games = csa::read(&text);
    assert_eq!(games.len(), words.len());
    for (g, (w, k)) in games.iter().zip(words) {
        assert!(g.diagnostics.is_empty(), "{w}: {:?}", g.diagnostics);
        let end = g.record.end().unwrap();
        assert_eq!((end.kind, end.text.as_str()), (k, format!("%{w}").as_str()));
        // And back: V3.0 keeps every one of them.
        let out = csa::write(
            &g.record,
            &WriteOptions {
                csa_v3: true,
                ..WriteOptions::default()
            },
        );
        assert!(out.text.contains(&format!("\n%{w}\n")), "{}", out.text);
    }
}

#[test]
fn fixture_round_trips_v22_and_v3() {
    let text = fixture("multi.csa");
    let (orig, again) = round_trip(&text, true);
    assert_eq!(orig, again);
    // V2.2 rounds the fractional times of game 1 and says so.
    let games = csa::read(&text);
    let w = csa::write(&games[1].record, &WriteOptions::default());
    assert!(w.text.starts_with("V2.2\n"));
    assert!(w.text.contains("\nT1\n"), "{}", w.text);
    assert_eq!(
        w.warnings.iter().filter(|d| d.code == Code::Lossy).count(),
        2
    );
    let back = csa::read(&w.text);
    assert_eq!(
        back[0].record.moves[0].time.unwrap().elapsed_ms,
        Some(1_000)
    );
    // Game 0 has integer times only: V2.2 keeps everything.
    let (orig, again) = round_trip(&text, false);
    assert_eq!(orig[0], again[0]);
}

#[test]
fn written_v22_is_exact() {
    let text =
        "V2.2\nN+A\nN-B\n$EVENT:E\n'c\nPI82HI22KA\n-\n-5142OU\nT10\n'*m\n+7776FU\nT0\n%TORYO\n";
    let g = csa::read(text);
    assert!(g[0].diagnostics.is_empty(), "{:?}", g[0].diagnostics);
    let w = csa::write(&g[0].record, &WriteOptions::default());
    assert_eq!(w.text, text);
    assert!(w.warnings.is_empty());
}

#[test]
fn syntax_errors_have_positions_and_parsing_goes_on() {
    let text = "V2.2\nN+a\nSTART_TIME:x\n$START_TIME\nPI\n+\n+7Y76FU,T2\n+7776FU\nQQQ\n-3334FU,Tx\n%TORYO\n";
    let g = csa::read(text);
    assert_eq!(g.len(), 1);
    let d: Vec<_> = g[0]
        .diagnostics
        .iter()
        .map(|d| (d.code, d.line, d.column))
        .collect();
    assert_eq!(
        d,
        vec![
            (Code::Syntax, Some(3), Some(1)),
            (Code::Syntax, Some(4), Some(1)),
            (Code::Syntax, Some(7), Some(1)),
            (Code::Syntax, Some(9), Some(1)),
            (Code::Syntax, Some(10), Some(9)),
        ]
    );
    // The good moves are all there.
    assert_eq!(g[0].record.plies(), 2);
    assert_eq!(g[0].record.moves[0].span.line, 8);
}

#[test]
fn variations_are_dropped_with_a_warning() {
    let g = csa::read("PI\n+\n+7776FU\n-3334FU\n");
    let mut r = g[0].record.clone();
    let alt = csa::read("PI\n+\n+2726FU\n").remove(0).record.moves;
    r.moves[0].variations.push(alt);
    let w = csa::write(&r, &WriteOptions::default());
    assert_eq!(w.warnings.len(), 1);
    assert_eq!(w.warnings[0].code, Code::Lossy);
    assert_eq!(w.warnings[0].ply, Some(1));
    assert!(w.text.ends_with("+7776FU\n-3334FU\n"));
}

#[test]
fn collapsed_rows_are_tolerated() {
    // Blanks collapsed (` * * *`, as mail and HTML leave rows) and a last square without its
    // trailing space: still nine squares a row.
    let text = "P1-KY-KE-GI-KI-OU-KI-GI-KE-KY\nP2 * -HI * * * * * -KA *\nP3-FU-FU-FU-FU-FU-FU-FU-FU-FU\nP4 * * * * * * * * *\nP5 *  *  *  *  *  *  *  *  *\nP6 *  *  *  *  *  *  *  *  * \nP7+FU+FU+FU+FU+FU+FU+FU+FU+FU\nP8 * +KA *  *  *  *  * +HI * \nP9+KY+KE+GI+KI+OU+KI+GI+KE+KY\nP+\nP-\n+\n";
    let g = csa::read(text);
    assert!(g[0].diagnostics.is_empty(), "{:?}", g[0].diagnostics);
    assert_eq!(g[0].record.start, StartPosition::Preset(Handicap::Even));
}

/// An empty ninth square spelled ` *.` (a real export's spelling, in the shared corpus) is read
/// as empty without a finding; a dot after the ninth square's own three characters is not.
#[test]
fn an_empty_ninth_square_may_end_with_a_dot() {
    let rows = "P1-KY-KE-GI-KI-OU-KI-GI-KE-KY\nP2 * -HI *  *  *  *  * -KA *.\n\
                P3-FU-FU-FU-FU-FU-FU-FU-FU-FU\nP4 *  *  *  *  *  *  *  *  *.\n\
                P5 *  *  *  *  *  *  *  *  *.\nP6 *  *  *  *  *  *  *  *  *.\n\
                P7+FU+FU+FU+FU+FU+FU+FU+FU+FU\nP8 * +KA *  *  *  *  * +HI *.\n\
                P9+KY+KE+GI+KI+OU+KI+GI+KE+KY\n";
    let g = csa::read(&format!("V2.2\n{rows}+\n+7776FU\n"));
    assert!(g[0].diagnostics.is_empty(), "{:?}", g[0].diagnostics);
    assert_eq!(g[0].record.start, StartPosition::Preset(Handicap::Even));
    let g = csa::read(&format!(
        "V2.2\n{}+\n+7776FU\n",
        rows.replace("-KA *.", "-KA * .")
    ));
    assert_eq!(g[0].diagnostics.len(), 1, "{:?}", g[0].diagnostics);
}

/// Issue #45: a row of ten squares lost its tenth, a row of eight (or none) left its missing
/// squares empty, and anything after the ninth square (a stray `.`) was dropped, all without a
/// word. Each is now a `syntax` error where the row goes wrong; the squares it does hold are
/// placed and the game is read on.
#[test]
fn rows_of_other_than_nine_squares_are_syntax_errors() {
    let text = "V2.2\n\
                P1-KY-KE-GI-KI-OU-KI-GI-KE-KY\n\
                P2 * -HI *  *  *  *  * -KA *  * \n\
                P3-FU-FU-FU-FU-FU-FU-FU-FU\n\
                P4 *  *  *  *  *  *  *  *  * .\n\
                P5\n\
                P6 *  *  *  *  *  *  *  *  * +FU\n\
                P7+FU+FU+FU+FU+FU+FU+FU+FU+FU\n\
                P8 * +KA *  *  *  *  * +HI * \n\
                P9+KY+KE+GI+KI+OU+KI+GI+KE+KY\n\
                +\n+7776FU\n-3334FU\n%TORYO\n";
    let g = csa::read(text);
    assert_eq!(g.len(), 1);
    let d: Vec<_> = g[0]
        .diagnostics
        .iter()
        .map(|d| (d.code, d.line, d.column))
        .collect();
    assert_eq!(
        d,
        [
            // The tenth square of P2, where the row should have ended.
            (Code::Syntax, Some(3), Some(31)),
            // P3 ends after eight squares: the ninth is missing at its end.
            (Code::Syntax, Some(4), Some(27)),
            // The stray `.` after P4's ninth square.
            (Code::Syntax, Some(5), Some(30)),
            // P5 holds no square at all.
            (Code::Syntax, Some(6), Some(3)),
            // A tenth square that is a piece.
            (Code::Syntax, Some(7), Some(30)),
        ],
        "{:?}",
        g[0].diagnostics
    );
    for d in &g[0].diagnostics {
        assert!(d.message.contains("square"), "{}", d.message);
    }
    // The squares the rows hold are placed (P3's file 1 is left empty), and the game goes on.
    let r = &g[0].record;
    let s = r.start.to_setup();
    let at = |f, rk| {
        s.piece_at(Square::new(f, rk).unwrap())
            .map(|p| (p.color, p.kind))
    };
    assert_eq!(at(8, 2), Some((Color::White, PieceKind::Rook)));
    assert_eq!(at(2, 2), Some((Color::White, PieceKind::Bishop)));
    assert_eq!(at(2, 3), Some((Color::White, PieceKind::Pawn)));
    assert_eq!(at(1, 3), None);
    assert_eq!(r.plies(), 2);
    // `validate` (as read and from a record alike) reports them.
    let reports = kifu::validate::validate_csa(text, &kifu::validate::Options::default());
    let syntax = reports[0]
        .diagnostics
        .iter()
        .filter(|d| d.code == Code::Syntax)
        .count();
    assert_eq!(syntax, 5, "{:?}", reports[0].diagnostics);
}

/// Issue #45: files joined with `cat` leave each one's UTF-8 BOM at the start of its game; a
/// BOM is skipped there as at the start of the text (it was a `syntax` error for every such
/// game), by the reader and by `validate` (judging as it reads), and in the one-line CSA too.
#[test]
fn a_bom_at_the_start_of_a_later_game_is_skipped() {
    let game = "\u{feff}V2.2\nN+a\nN-b\nPI\n+\n+7776FU\nT1\n-3334FU\nT2\n%TORYO\n";
    // After the separator, after blank lines, and at the very start.
    let text = format!("{game}/\n{game}/\n\n\n{game}");
    let games = csa::read(&text);
    assert_eq!(games.len(), 3);
    for g in &games {
        assert!(g.diagnostics.is_empty(), "{:?}", g.diagnostics);
        assert_eq!(g.record.plies(), 2);
        assert_eq!(g.record.header.player(Color::Black), Some("a"));
    }
    let (reports, short) = kifu::validate::judged_as_read(
        kifu::Format::Csa,
        &text,
        &kifu::validate::Options::default(),
    );
    assert_eq!(reports.len(), 3);
    assert!(
        reports.iter().all(|r| r.diagnostics.is_empty()),
        "{reports:?}"
    );
    assert_eq!(short, 3, "each game is judged as read");
    // Only at a game's start: a BOM after its first line is still not CSA.
    let late = csa::read("V2.2\n\u{feff}PI\n+\n");
    assert_eq!(late[0].diagnostics.len(), 1, "{:?}", late[0].diagnostics);
    // The one-line CSA: a BOM before each header line.
    let one = "\u{feff}1 2003/09/08 A B 1 2 E O\n7776FU3334FU\n";
    let games = csa::read(&format!("{one}{one}"));
    assert_eq!(games.len(), 2);
    for g in &games {
        assert!(g.diagnostics.is_empty(), "{:?}", g.diagnostics);
        assert_eq!(g.record.plies(), 2);
    }
}

#[test]
fn corpus_csa_files_parse() {
    let Some(all) = corpus_files("corpus_csa_files_parse", &["csa"]) else {
        return;
    };
    let mut problems = Vec::new();
    let mut games = 0;
    for p in &all {
        let s = p.to_string_lossy().into_owned();
        let bytes = std::fs::read(p).unwrap();
        let d = decode(&bytes, Some(Format::Csa), None);
        let parsed = csa::read(&d.text);
        let malformed = s.contains("error_fixtures");
        let diags: Vec<_> = parsed.iter().flat_map(|g| &g.diagnostics).collect();
        if malformed {
            if !diags
                .iter()
                .any(|d| d.code == Code::Syntax && d.line.is_some())
            {
                problems.push(format!("{s}: malformed file gave no syntax diagnostic"));
            }
            continue;
        }
        if parsed.is_empty() {
            problems.push(format!("{s}: no game"));
        }
        // mog-core-scala's `csa/game/002.csa` spells an empty ninth square ` *.` in five rows:
        // read as empty, without a finding (a dot apart from the square is a syntax error).
        for d in diags {
            problems.push(format!("{s}: {d:?}"));
        }
        // CSA -> record -> CSA keeps every move, time, comment and header entry.
        for g in &parsed {
            games += 1;
            let w = csa::write(
                &g.record,
                &WriteOptions {
                    csa_v3: true,
                    ..WriteOptions::default()
                },
            );
            let back = csa::read(&w.text);
            if back.len() != 1
                || without_spans(back[0].record.clone()) != without_spans(g.record.clone())
            {
                problems.push(format!("{s}: round trip differs:\n{}", w.text));
            }
        }
    }
    assert!(games > 50, "{games}");
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn cumulative_times_can_be_filled_in() {
    let mut r = csa::read(&fixture("multi.csa")).remove(0).record;
    r.fill_total_times();
    let totals: Vec<_> = r
        .moves
        .iter()
        .map(|n| n.time.unwrap().total_ms.unwrap() / 1000)
        .collect();
    assert_eq!(totals, vec![12, 5, 14, 9, 15, 16, 18]);
}

/// A `$` header key the CSA reader would refuse (lower case, a `/`...) is not written as an
/// information line: it becomes a `'key：value` comment with a `lossy` warning (it reads back
/// as a comment), so what is written reads back clean. Keys the reader takes pass through.
#[test]
fn only_header_keys_the_reader_takes_are_written() {
    use kifu::formats::{self, Format, WriteOptions};
    let mut games = formats::read(Format::Kif, "$http：//example\n$MY_KEY-2：x\n   1 投了\n");
    let record = &mut games[0].record;
    assert_eq!(record.header.entries.len(), 2, "{:?}", record.header);
    let w = formats::write(Format::Csa, record, &WriteOptions::default());
    assert!(!w.text.contains("\n$http"), "{}", w.text);
    assert!(w.text.contains("\n'$http：//example\n"), "{}", w.text);
    assert!(w.text.contains("$MY_KEY-2:x"), "{}", w.text);
    assert_eq!(w.warnings.len(), 1, "{:?}", w.warnings);
    assert!(w.warnings[0].message.contains("$http"));
    let back = formats::read(Format::Csa, &w.text);
    assert!(back[0].diagnostics.is_empty(), "{:?}", back[0].diagnostics);
}

/// A header value holding a line break (a lone CR in a CSA name line, a JKF value with a
/// newline) is written on one line with the break as a space and a `lossy` warning; the CSA
/// writer used to cut the value at its first break without a word.
#[test]
fn header_values_keep_their_text_after_a_line_break() {
    use kifu::formats::{self, Format, WriteOptions};
    // A lone CR ends a CSA line as it ends a line in every reader (issue #20), so the value
    // with a break comes from JKF.
    let games = formats::read(
        Format::Jkf,
        r#"{"header":{"先手":"sente\r'encoding=Shift_JIS","後手":"gote"},"moves":[{},
            {"move":{"color":0,"from":{"x":7,"y":7},"to":{"x":7,"y":6},"piece":"FU"}},
            {"special":"TORYO"}]}"#,
    );
    let read = formats::read(
        Format::Csa,
        "V2.2\nN+sente\r'encoding=Shift_JIS\nN-gote\nPI\n+\n+7776FU\n%TORYO\n",
    );
    assert_eq!(read[0].record.header.get("先手"), Some("sente"));
    let w = formats::write(Format::Csa, &games[0].record, &WriteOptions::default());
    assert!(
        w.text.contains("N+sente 'encoding=Shift_JIS\n"),
        "{}",
        w.text
    );
    assert_eq!(w.warnings.len(), 1, "{:?}", w.warnings);
}

/// A player name that starts with `:` keeps it: the reader takes one `:` after `N+` as a
/// separator (`N+:name`), so the writer puts one of its own before such a name.
#[test]
fn a_name_starting_with_a_colon_reads_back_whole() {
    use kifu::formats::{self, Format, WriteOptions};
    let games = formats::read(Format::Kifu, "先手：::4896\n後手：:x\n   1 投了\n");
    let w = formats::write(Format::Csa, &games[0].record, &WriteOptions::default());
    let back = formats::read(Format::Csa, &w.text);
    let names: Vec<&str> = back[0]
        .record
        .header
        .entries
        .iter()
        .map(|e| e.value.as_str())
        .collect();
    assert_eq!(names, ["::4896", ":x"], "{}", w.text);
}

/// The V3.0 encoding line counts only as a game's first line; elsewhere (after a version
/// line, or behind a comma) it is a comment, kept as one and written back as one.
#[test]
fn the_encoding_line_is_a_declaration_only_first() {
    let comments = |text: &str| -> Vec<String> {
        csa::read(text)[0]
            .record
            .header
            .entries
            .iter()
            .map(|e| format!("{}={}", e.key, e.value))
            .collect()
    };
    let tail = "'c\nPI\n+\n%TORYO\n";
    assert_eq!(
        comments(&format!("'CSA encoding=UTF-8\nV3.0\n{tail}")),
        ["'=c"]
    );
    let later = format!("V2.2\n'CSA encoding=UTF-8\n{tail}");
    assert_eq!(comments(&later), ["'=CSA encoding=UTF-8", "'=c"]);
    assert_eq!(
        comments(&format!(",'CSA encoding=UTF-8\nV3.0\n{tail}")),
        ["'=CSA encoding=UTF-8", "'=c"]
    );
    let r = &csa::read(&later)[0].record;
    let w = csa::write(r, &WriteOptions::default());
    assert_eq!(
        comments(&w.text),
        ["'=CSA encoding=UTF-8", "'=c"],
        "{}",
        w.text
    );
}
