//! Engine analysis lines (issue #20): floodgate's `'**`, ShogiHome's `**評価値=` lines and
//! ShogiGUI's `**対局` line are read into `record::Analysis` on the move they follow, written
//! back as they were within a format family and in the target's own form across families,
//! and round trips keep the score and the PV.

use kifu::Format;
use kifu::formats::{WriteOptions, write};
use kifu::record::{Analysis, AnalysisForm, Record, Score};

fn fixture(path: &str) -> String {
    std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/fixtures/").to_owned() + path)
        .expect("fixture")
}

/// Reads one game and resolves it (writers need resolved moves).
fn read(format: Format, text: &str) -> Record {
    let mut games = kifu::read(format, text);
    assert_eq!(games.len(), 1);
    let r = kifu::validate_game(&mut games[0], &Default::default());
    assert!(
        r.diagnostics
            .iter()
            .all(|d| d.severity != kifu::Severity::Error),
        "{:?}",
        r.diagnostics
    );
    games.remove(0).record
}

fn analysis(r: &Record, ply: usize) -> &Analysis {
    r.moves[ply - 1]
        .analysis()
        .unwrap_or_else(|| panic!("no analysis at ply {ply}"))
}

/// The PV as USI moves, replayed from the position after move `ply` (or before it, when the
/// PV starts with the mover's move).
fn pv_usi(r: &Record, ply: usize) -> Vec<String> {
    use kifu::record::resolve::resolve_move;
    let a = analysis(r, ply);
    let mut pos = kifu::Position::from_setup(&r.start.to_setup()).expect("start");
    for n in &r.moves[..ply - 1] {
        pos.play(n.resolved().expect("resolved")).expect("legal");
    }
    let mover = pos.turn();
    if a.pv.first().and_then(|t| t.color) != Some(mover) {
        pos.play(r.moves[ply - 1].resolved().expect("resolved"))
            .expect("legal");
    }
    let mut last = r.moves[ply - 1].resolved().map(|m| m.to());
    let mut out = Vec::new();
    for t in &a.pv {
        let mut t = t.clone();
        if t.same {
            t.to = last.expect("a square for 同");
        }
        let mv = resolve_move(&pos, &t).expect("PV move");
        pos.play(mv).expect("legal PV move");
        last = Some(mv.to());
        out.push(mv.to_usi());
    }
    out
}

#[test]
fn floodgate_lines_are_read_on_the_move_they_follow() {
    let r = read(Format::Csa, &fixture("csa/analysis-floodgate.csa"));
    let a = analysis(&r, 1);
    assert_eq!(a.form, AnalysisForm::Floodgate);
    assert_eq!(a.score, Some(Score::Cp(30)));
    assert_eq!(pv_usi(&r, 1), ["3c3d", "2g2f"]);
    // The person's comment stays a comment; the `#nodes` of ShogiHome's CSA V3 form is read.
    assert_eq!(r.moves[1].comments, ["* a person's comment"]);
    let a2 = analysis(&r, 2);
    assert_eq!((a2.score, a2.nodes), (Some(Score::Cp(-45)), Some(123_456)));
    // USI moves in the PV (some engines send them).
    assert_eq!(pv_usi(&r, 3), ["8c8d", "2f2e"]);
    // A score alone.
    assert_eq!(analysis(&r, 4).score, Some(Score::Cp(0)));
    assert!(analysis(&r, 4).pv.is_empty());
    // `'**not an analysis line` is a comment.
    assert!(r.moves[4].analysis().is_none());
    assert_eq!(r.moves[4].comments, ["**not an analysis line"]);
}

#[test]
fn gui_lines_are_read_into_one_analysis() {
    let r = read(Format::Kifu, &fixture("kif/analysis-gui.kifu"));
    let a = analysis(&r, 1);
    assert_eq!(a.form, AnalysisForm::ShogiHome);
    assert_eq!(a.score, Some(Score::Cp(35)));
    assert_eq!((a.depth, a.nodes), (Some(12), Some(4567)));
    assert_eq!(a.engine.as_deref(), Some("EngineA"));
    assert_eq!(pv_usi(&r, 1), ["3c3d", "2g2f", "8c8d"]);
    assert_eq!(r.moves[0].comments, ["互角"]);
    // ShogiGUI: the PV starts with the annotated move itself.
    let g = analysis(&r, 2);
    assert_eq!(g.form, AnalysisForm::ShogiGui);
    assert_eq!(
        (g.score, g.depth, g.nodes),
        (Some(Score::Cp(-20)), Some(2), Some(960))
    );
    assert_eq!(pv_usi(&r, 2), ["3c3d", "2g2f"]);
    // A mate, and a PV with 同.
    let m = analysis(&r, 3);
    assert_eq!(
        m.score,
        Some(Score::Mate {
            winner: kifu::Color::Black,
            plies: Some(3)
        })
    );
    assert_eq!(pv_usi(&r, 3), ["3a2b", "B*4e"]);
    // `**評価値=oops` does not read: a comment.
    assert!(r.moves[3].analysis().is_none());
    assert_eq!(r.moves[3].comments, ["*評価値=oops"]);
}

#[test]
fn csa_analysis_is_written_as_gui_lines_in_kif_and_back() {
    let r = read(Format::Csa, &fixture("csa/analysis-floodgate.csa"));
    let kif = write(Format::Kifu, &r, &WriteOptions::default());
    assert!(kif.warnings.is_empty(), "{:?}", kif.warnings);
    let lines: Vec<&str> = kif.text.lines().collect();
    for want in [
        "**評価値=30",
        "**読み筋=△３四歩▲２六歩",
        "**評価値=-45",
        "**ノード数=123456",
        "**読み筋=△８四歩▲２五歩",
    ] {
        assert!(lines.contains(&want), "{want} missing in\n{}", kif.text);
    }
    let k = read(Format::Kifu, &kif.text);
    let csa = write(Format::Csa, &k, &WriteOptions::default());
    let lines: Vec<&str> = csa.text.lines().collect();
    for want in [
        "'** 30 -3334FU +2726FU",
        "'** -45 +2726FU -8384FU",
        "'**ノード数=123456",
        "'** 52 -8384FU +2625FU",
        "'** 0",
    ] {
        assert!(lines.contains(&want), "{want} missing in\n{}", csa.text);
    }
    // Score and PV survive both ways.
    let back = read(Format::Csa, &csa.text);
    for ply in 1..=4 {
        assert_eq!(analysis(&back, ply).score, analysis(&r, ply).score, "{ply}");
        assert_eq!(pv_usi(&back, ply), pv_usi(&r, ply), "{ply}");
    }
    assert_eq!(analysis(&back, 2).nodes, Some(123_456));
}

#[test]
fn gui_analysis_is_written_as_floodgate_lines_in_csa_and_back() {
    let r = read(Format::Kifu, &fixture("kif/analysis-gui.kifu"));
    let csa = write(Format::Csa, &r, &WriteOptions::default());
    let lines: Vec<&str> = csa.text.lines().collect();
    for want in [
        "'互角",
        "'** 35 -3334FU +2726FU -8384FU",
        "'**深さ=12",
        "'**エンジン=EngineA",
        // ShogiGUI's PV from the position before its move.
        "'** -20 -3334FU +2726FU",
        // A mate: floodgate's number, and the length in ShogiHome's line.
        "'** 30000 -3122GI +0045KA",
        "'**詰み=先手勝ち:3手",
        "'*評価値=oops",
    ] {
        assert!(lines.contains(&want), "{want} missing in\n{}", csa.text);
    }
    let back = read(Format::Csa, &csa.text);
    for ply in 1..=3 {
        assert_eq!(analysis(&back, ply).score, analysis(&r, ply).score, "{ply}");
        assert_eq!(pv_usi(&back, ply), pv_usi(&r, ply), "{ply}");
    }
    assert_eq!(analysis(&back, 1).engine.as_deref(), Some("EngineA"));
    // KIF to KIF and KI2 keep the lines as they were.
    for format in [Format::Kifu, Format::Ki2u] {
        let w = write(format, &r, &WriteOptions::default());
        assert!(
            w.text.contains(
                "\n**対局 深さ 2 ノード数 960 評価値 -20 読み筋 △３四歩(33) ▲２六歩(27) \n"
            ),
            "{}",
            w.text
        );
        let again = read(format, &w.text);
        assert_eq!(analysis(&again, 3), analysis(&r, 3));
    }
}

#[test]
fn jkf_keeps_the_lines_in_the_move_comments() {
    let r = read(Format::Csa, &fixture("csa/analysis-floodgate.csa"));
    let jkf = write(Format::Jkf, &r, &WriteOptions::default()).text;
    // As the reference CSA-to-JKF converters write it.
    assert!(jkf.contains("\"** 30 -3334FU +2726FU\""), "{jkf}");
    let back = read(Format::Jkf, &jkf);
    assert_eq!(analysis(&back, 1).score, Some(Score::Cp(30)));
    assert_eq!(pv_usi(&back, 1), ["3c3d", "2g2f"]);
    // A floodgate line with ShogiHome's lines after it (as kifu writes a mate in CSA).
    let csa = "V2.2\nPI\n+\n+7776FU\n'** 30000 -3334FU\n'**詰み=先手勝ち:9手\n'**深さ=3\n%TORYO\n";
    let c = read(Format::Csa, csa);
    let jkf = write(Format::Jkf, &c, &WriteOptions::default()).text;
    assert!(jkf.contains("\"** 30000 -3334FU\""), "{jkf}");
    assert!(jkf.contains("\"*詰み=先手勝ち:9手\""), "{jkf}");
    let back = read(Format::Jkf, &jkf);
    assert_eq!(
        analysis(&back, 1).score,
        Some(Score::Mate {
            winner: kifu::Color::Black,
            plies: Some(9)
        })
    );
    assert_eq!(analysis(&back, 1).depth, Some(3));
    assert!(back.moves[0].comments.is_empty());
    let g = read(Format::Kifu, &fixture("kif/analysis-gui.kifu"));
    let jkf = write(Format::Jkf, &g, &WriteOptions::default()).text;
    assert!(jkf.contains("\"*評価値=35\""), "{jkf}");
    let back = read(Format::Jkf, &jkf);
    assert_eq!(analysis(&back, 1), analysis(&g, 1));
}

#[test]
fn a_pv_that_cannot_be_replayed_is_cut_with_a_warning() {
    // 8c8d after 7g7f is White's; then `+0055KA` (no bishop in hand) cannot be played.
    let text = "V2.2\nPI\n+\n+7776FU\n'** 10 -8384FU +0055KA\n%TORYO\n";
    let r = read(Format::Csa, text);
    let w = write(Format::Kifu, &r, &WriteOptions::default());
    assert!(w.text.contains("**読み筋=△８四歩\n"), "{}", w.text);
    assert_eq!(w.warnings.len(), 1, "{:?}", w.warnings);
    assert!(
        w.warnings[0].message.contains("+0055KA"),
        "{:?}",
        w.warnings
    );
    assert_eq!(w.warnings[0].ply, Some(1));
    // USI holds no analysis: it is counted with the comments dropped.
    let u = write(Format::Usi, &r, &WriteOptions::default());
    assert!(
        u.warnings
            .iter()
            .any(|d| d.message.contains("1 were dropped")),
        "{:?}",
        u.warnings
    );
}

#[test]
fn analysis_on_an_ending_follows_it_in_ki2() {
    // ShogiGUI writes its line after the last move too; here it follows the resignation.
    let kif = "手数----指手---------消費時間--\n   1 ７六歩(77)\n   2 投了\n**対局 評価値 -300\n";
    let r = read(Format::Kifu, kif);
    assert_eq!(
        r.moves[1].analysis().map(|a| a.score),
        Some(Some(Score::Cp(-300)))
    );
    let w = write(Format::Ki2u, &r, &WriteOptions::default());
    assert!(w.text.contains("\n**対局 評価値 -300\n"), "{}", w.text);
    let back = read(Format::Ki2u, &w.text);
    assert!(back.end().is_some(), "{}", w.text);
    let a = back
        .moves
        .iter()
        .find_map(|n| n.analysis())
        .expect("analysis");
    assert_eq!(a.score, Some(Score::Cp(-300)));
}

#[test]
fn a_comment_that_would_read_back_as_analysis_is_said() {
    // A CSA comment `'* 30 -3334FU` (one star: a comment in CSA) is the KIF line
    // `** 30 -3334FU`, an analysis line: the conversion says so.
    let csa = "V2.2\nPI\n+\n+7776FU\n'* 30 -3334FU\n-3334FU\n";
    let g = kifu::read(kifu::Format::Csa, csa).remove(0);
    assert_eq!(g.record.moves[0].comments, ["* 30 -3334FU"]);
    let kif = kifu::write(kifu::Format::Kifu, &g.record, &Default::default());
    assert!(
        kif.warnings.iter().any(|d| d
            .message
            .contains("reads back as an engine's analysis line")),
        "{:?}",
        kif.warnings
    );
}
