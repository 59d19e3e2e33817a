use super::*;
use crate::core::Move;
use crate::formats::{self, Format};
use crate::validate::Gather;

/// The rows of the first game of `text` in `format`, validated, with `winner` as its winner.
fn rows_of_game(format: Format, text: &str, winner: Option<Winner>) -> PositionRows {
    let mut g = formats::read(format, text).remove(0);
    let (r, game) = crate::validate::digest(&mut g, &Default::default(), Gather::Positions);
    let mut rows = PositionRows::new();
    rows.push(&game, r.plies, winner, "".into(), 0);
    rows
}

#[test]
fn rows_follow_the_main_line_and_flag_fouls() {
    let text = "startpos moves 2g2f 8c8d 2f2e 8d8e 2e2d 2c2d 2h2d 8e8f P*7d P*2c\n";
    let rows = rows_of_game(Format::Usi, text, Some(Winner::White));
    let mut seen = Vec::new();
    let mut pos = Position::startpos();
    for r in rows.iter() {
        assert_eq!(r.sfen, pos.to_sfen(), "ply {}", r.ply);
        let m = Move::from_usi(r.mv).expect("usi");
        assert_eq!(r.mv, m.to_usi());
        let _ = pos.play_unchecked(m);
        seen.push((r.ply, r.side, r.mv.to_owned(), r.legal, r.result));
    }
    assert_eq!(seen.len(), 10);
    assert_eq!(seen[0], (1, "b", "2g2f".to_owned(), true, Some("loss")));
    assert_eq!(seen[1].4, Some("win"));
    assert_eq!(
        seen[8],
        (9, "b", "P*7d".to_owned(), false, Some("loss")),
        "nifu"
    );
    assert!(seen[9].3, "the reply is legal");
}

#[test]
fn engine_comments_give_the_eval_from_the_movers_side_and_the_pv_in_usi() {
    let text = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/fixtures/csa/analysis-floodgate.csa"
    ))
    .expect("fixture");
    let rows = rows_of_game(Format::Csa, &text, None);
    let evals: Vec<_> = rows.iter().map(|r| r.eval).collect();
    let e = |cp: i32, pv: &[&str]| {
        Some(EngineEval {
            eval_cp: Some(cp),
            mate: None,
            pv: pv.iter().map(|s| (*s).to_owned()).collect(),
        })
    };
    // Scores are Black's in the file: White's moves (plies 2 and 4) are turned.
    assert_eq!(evals[0], e(30, &["3c3d", "2g2f"]));
    assert_eq!(evals[1], e(45, &["2g2f", "8c8d"]));
    assert_eq!(evals[2], e(52, &["8c8d", "2f2e"]));
    assert_eq!(evals[3], e(0, &[]));
    assert_eq!(evals[4], None, "not an analysis line");
}

/// The rows of USI games, each validated, with its winner.
fn rows_of(games: &[(&str, Option<Winner>)]) -> PositionRows {
    let mut rows = PositionRows::new();
    for &(text, winner) in games {
        rows.extend_from(&rows_of_game(Format::Usi, text, winner), 0..usize::MAX);
    }
    rows
}

/// Rows copied from others (whole, or a few games', or a game cut in two) read the same
/// as where they came from, and their game keys follow.
#[test]
fn rows_extended_from_others_read_the_same() {
    let from = rows_of(&[
        (
            "startpos moves 7g7f 3c3d 8h2b+ 3a2b B*4e\n",
            Some(Winner::Black),
        ),
        ("startpos moves 2g2f 8c8d 2f2e\n", None),
        ("startpos moves 5g5f\n", Some(Winner::Draw)),
    ]);
    assert_eq!(from.len(), 9);
    let rows = |p: &PositionRows| p.iter().map(|r| format!("{r:?}")).collect::<Vec<_>>();
    let all = rows(&from);
    for cuts in [[0, 9], [0, 3], [3, 9], [2, 6], [5, 5], [8, 9]] {
        let mut to = PositionRows::new();
        to.push_row(&from.get(4).expect("row"));
        to.extend_from(&from, cuts[0]..cuts[1]);
        let got = rows(&to);
        assert_eq!(got[0], all[4]);
        assert_eq!(got[1..], all[cuts[0]..cuts[1]], "{cuts:?}");
    }
    // Past the end: only what there is.
    let mut to = PositionRows::new();
    to.extend_from(&from, 7..20);
    assert_eq!(rows(&to), all[7..]);
}

/// `rows_in` gives every range's rows as `get` gives them, and so does its fallback when a
/// range's text is not UTF-8 (which the writers never make).
#[test]
fn rows_in_a_range_read_as_each_row_alone() {
    let mut rows = rows_of(&[
        ("startpos moves 7g7f 3c3d 8h2b+ 3a2b B*4e\n", None),
        ("startpos moves 2g2f 8c8d 2f2e\n", None),
    ]);
    let show = |r: PositionRow<'_>| format!("{r:?}");
    let check = |rows: &PositionRows| {
        for start in 0..=10 {
            for end in 0..=10 {
                let got: Vec<_> = rows.rows_in(start..end).map(show).collect();
                let want: Vec<_> = (start..end).filter_map(|i| rows.get(i)).map(show).collect();
                assert_eq!(got, want, "{start}..{end}");
            }
        }
    };
    assert_eq!(rows.len(), 8);
    check(&rows);
    // Row 4's SFEN made invalid: the rows around it still read, row 4 as `get` reads it.
    let at = rows.sfen_ends[3] as usize;
    rows.sfen[at] = 0xFF;
    assert_eq!(rows.get(4).expect("row").sfen, "");
    assert_ne!(rows.get(5).expect("row").sfen, "");
    check(&rows);
}
