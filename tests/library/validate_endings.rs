//! The verdict on a game's result: every ending family, scored rightly and wrongly, in CSA and
//! in KIF, with the code and ply expected (issue #19).
//!
//! Each case is a position (SFEN), USI moves and a CSA ending line. The CSA text is written by
//! kifu's own CSA writer from the USI moves (so that positions need no hand-written `P` lines),
//! the ending line put after the moves; the KIF text is the same game written as KIF, with
//! the ending in KIF words. Both are validated and must give the same findings.

use kifu::formats::{Format, WriteOptions};
use kifu::validate::{Options, Winner, validate_text};
use kifu::{Code, Severity};

const START: &str = "lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1";
/// Black's rook gives check on every move; White's king steps 1a <-> 1b.
const PERPETUAL: &str = "8k/R8/9/9/9/9/9/9/K8 b - 1";
/// Black has a pawn in hand and a pawn on 5g: `P*5f` is nifu.
const NIFU: &str = "4k4/9/9/9/9/9/4P4/9/4K4 b P 1";

fn cycle(moves: [&str; 4], plies: usize) -> String {
    moves
        .iter()
        .cycle()
        .take(plies)
        .copied()
        .collect::<Vec<_>>()
        .join(" ")
}

/// The CSA text of a game from `sfen` with `moves`, then `after` (an ending line, maybe more).
fn csa(sfen: &str, moves: &str, after: &str) -> String {
    let usi = format!("position sfen {sfen} moves {moves}\n");
    let games = kifu::read(Format::Usi, &usi);
    let written = kifu::write(Format::Csa, &games[0].record, &WriteOptions::default());
    let body: Vec<&str> = written
        .text
        .lines()
        .filter(|l| !l.starts_with('%'))
        .collect();
    format!("{}\n{after}\n", body.join("\n"))
}

/// The same game as KIF: the CSA text read and written again as KIF (UTF-8).
fn kif(csa_text: &str) -> String {
    let games = kifu::read(Format::Csa, csa_text);
    kifu::write(Format::Kifu, &games[0].record, &WriteOptions::default()).text
}

/// The findings of one game as (code, ply), the plies and the winner.
type Findings = (Vec<(Code, Option<u32>)>, u32, Option<Winner>);

fn check(format: Format, text: &str) -> Findings {
    let reports = validate_text(format, text, &Options::default());
    assert_eq!(reports.len(), 1, "{text}");
    let r = &reports[0];
    let found = r.diagnostics.iter().map(|d| (d.code, d.ply)).collect();
    (found, r.plies, r.result.winner)
}

/// Validates the game as CSA and as KIF; both must give `expected`.
fn both(sfen: &str, moves: &str, ending: &str, kif_word: &str, expected: &Findings) {
    let c = csa(sfen, moves, ending);
    assert_eq!(&check(Format::Csa, &c), expected, "CSA:\n{c}");
    let k = kif(&c);
    assert!(k.contains(kif_word), "{kif_word} not in KIF:\n{k}");
    assert_eq!(&check(Format::Kifu, &k), expected, "KIF:\n{k}");
}

#[test]
fn perpetual_check_scored_as_the_checkers_foul_stands() {
    let moves = cycle(["9b9a", "1a1b", "9a9b", "1b1a"], 12);
    // Black gave the perpetual check: Black's foul, White wins.
    let ok = (vec![], 12, Some(Winner::White));
    both(PERPETUAL, &moves, "%+ILLEGAL_ACTION", "反則", &ok);
    // Scored as White's foul: the record contradicts the board.
    let c = csa(PERPETUAL, &moves, "%-ILLEGAL_ACTION");
    assert_eq!(
        check(Format::Csa, &c),
        (
            vec![(Code::ResultMismatch, Some(13))],
            12,
            Some(Winner::Black)
        )
    );
    // Scored as a plain draw: perpetual check loses.
    let rep = (
        vec![(Code::ResultMismatch, Some(13))],
        12,
        Some(Winner::Draw),
    );
    both(PERPETUAL, &moves, "%SENNICHITE", "千日手", &rep);
}

#[test]
fn oute_sennichite_is_the_checkers_loss_and_needs_a_perpetual_check() {
    let moves = cycle(["9b9a", "1a1b", "9a9b", "1b1a"], 12);
    let c = csa(PERPETUAL, &moves, "%OUTE_SENNICHITE");
    assert_eq!(check(Format::Csa, &c), (vec![], 12, Some(Winner::White)));
    let k = kif(&c);
    assert!(k.contains("連続王手の千日手"), "{k}");
    assert_eq!(check(Format::Kifu, &k), (vec![], 12, Some(Winner::White)));
    // A plain repetition is not a perpetual check.
    let plain = cycle(["2h3h", "8b7b", "3h2h", "7b8b"], 12);
    let no_checks = (vec![(Code::ResultMismatch, Some(13))], 12, None);
    both(
        START,
        &plain,
        "%OUTE_SENNICHITE",
        "連続王手の千日手",
        &no_checks,
    );
    // No repetition at all.
    let none = (vec![(Code::ResultMismatch, Some(2))], 1, None);
    both(START, "7g7f", "%OUTE_SENNICHITE", "連続王手の千日手", &none);
}

#[test]
fn a_fourfold_repetition_is_a_draw_whatever_else_is_recorded() {
    let plain = cycle(["2h3h", "8b7b", "3h2h", "7b8b"], 12);
    both(
        START,
        &plain,
        "%SENNICHITE",
        "千日手",
        &(vec![], 12, Some(Winner::Draw)),
    );
    // Black to move "resigns" a game already drawn.
    let toryo = (
        vec![(Code::ResultMismatch, Some(13))],
        12,
        Some(Winner::White),
    );
    both(START, &plain, "%TORYO", "投了", &toryo);
    // One move more, then 千日手: one finding, that the move came after the end.
    let more = format!("{plain} 2h3h");
    let after = (vec![(Code::MoveAfterEnd, Some(13))], 13, Some(Winner::Draw));
    both(START, &more, "%SENNICHITE", "千日手", &after);
}

#[test]
fn a_foul_ends_the_game_and_a_later_result_for_the_fouler_is_wrong() {
    // Black's nifu at ply 1, then White "resigns" at ply 4: the game was Black's loss.
    let wrong = (
        vec![(Code::Nifu, Some(1)), (Code::ResultMismatch, Some(4))],
        3,
        Some(Winner::Black),
    );
    both(NIFU, "P*5f 5a4a 5i4i", "%TORYO", "投了", &wrong);
    // Black resigns after its own nifu: the winner is right.
    let right = (vec![(Code::Nifu, Some(1))], 2, Some(Winner::White));
    both(NIFU, "P*5f 5a4a", "%TORYO", "投了", &right);
    // White's foul claimed where Black's came first.
    let c = csa(NIFU, "P*5f 5a4a", "%-ILLEGAL_ACTION");
    assert_eq!(
        check(Format::Csa, &c),
        (
            vec![(Code::Nifu, Some(1)), (Code::ResultMismatch, Some(3))],
            2,
            Some(Winner::Black)
        )
    );
}

#[test]
fn a_claimed_foul_the_record_cannot_show_stands() {
    // A server's `%-ILLEGAL_ACTION` for a move it refused and did not log.
    let stands = (vec![], 1, Some(Winner::Black));
    both(START, "7g7f", "%-ILLEGAL_ACTION", "反則", &stands);
    // `%ILLEGAL_MOVE`: the side to move (White) loses, as in the logs of shogi-server.
    both(START, "7g7f", "%ILLEGAL_MOVE", "反則負け", &stands);
}

#[test]
fn an_ending_no_format_defines_is_a_warning_and_the_result_unknown() {
    let c = csa(START, "7g7f", "%FOOBAR");
    let (found, plies, winner) = check(Format::Csa, &c);
    assert_eq!(
        (found, plies, winner),
        (vec![(Code::UnknownEnding, Some(2))], 1, None)
    );
    assert_eq!(Code::UnknownEnding.severity(), Severity::Warning);
    let k = "手数----指手---------消費時間--\n   1 ７六歩(77)\n   2 ほげほげ\n";
    assert_eq!(
        check(Format::Kifu, k),
        (vec![(Code::UnknownEnding, Some(2))], 1, None)
    );
}

#[test]
fn moves_after_an_ending_are_move_after_end_and_the_result_is_the_endings() {
    let c = csa(START, "7g7f", "%TORYO\n-3334FU");
    assert_eq!(
        check(Format::Csa, &c),
        (vec![(Code::MoveAfterEnd, Some(3))], 1, Some(Winner::Black))
    );
    let k = "手数----指手---------消費時間--\n   1 ７六歩(77)\n   2 投了\n   3 ３四歩(33)\n";
    assert_eq!(
        check(Format::Kifu, k),
        (vec![(Code::MoveAfterEnd, Some(3))], 1, Some(Winner::Black))
    );
    let u = "startpos moves 7g7f resign 3c3d\n";
    assert_eq!(
        check(Format::Usi, u),
        (vec![(Code::MoveAfterEnd, Some(3))], 1, Some(Winner::Black))
    );
}

#[test]
fn server_verdict_lines_are_read_as_the_result_they_state() {
    // A client's log of a shogi-server game: the verdict, then the log owner's `#LOSE`.
    let c = csa(START, "7g7f 3c3d", "#TIME_UP\n#LOSE");
    assert_eq!(check(Format::Csa, &c), (vec![], 2, Some(Winner::White)));
    // Checked as the `%` ending would be.
    let c = csa(START, "7g7f", "#SENNICHITE\n#DRAW");
    assert_eq!(
        check(Format::Csa, &c),
        (vec![(Code::ResultMismatch, Some(2))], 1, Some(Winner::Draw))
    );
    // After a `%` line, the verdict says nothing more; `#WIN`/`#LOSE` alone name no side.
    let c = csa(START, "7g7f", "%TORYO\n#RESIGN\n#WIN");
    assert_eq!(check(Format::Csa, &c), (vec![], 1, Some(Winner::Black)));
    let c = csa(START, "7g7f", "#LOSE");
    assert_eq!(check(Format::Csa, &c), (vec![], 1, None));
}

#[test]
fn a_csa_move_that_cannot_be_read_stops_the_replay_without_a_second_finding() {
    let c = csa(START, "7g7f", "-33x4FU\n+2726FU\n-8384FU\n%TSUMI");
    let reports = validate_text(Format::Csa, &c, &Options::default());
    let found: Vec<(Code, Option<u32>)> = reports[0]
        .diagnostics
        .iter()
        .map(|d| (d.code, d.ply))
        .collect();
    // The syntax error only: no `wrong-turn` for `+2726FU`, and no verdict on `%TSUMI`, which
    // the moves read cannot show.
    assert_eq!(found, vec![(Code::Syntax, Some(2))], "{c}");
}

#[test]
fn a_kif_or_ki2_move_that_cannot_be_read_stops_the_replay_without_a_second_finding() {
    let found = |format: Format, text: &str| -> Vec<(Code, Option<u32>)> {
        let reports = validate_text(format, text, &Options::default());
        reports[0]
            .diagnostics
            .iter()
            .map(|d| (d.code, d.ply))
            .collect()
    };
    let kif = "手合割：平手\n手数----指手---------消費時間--\n   1 ７六歩(77)\n   2 ３x四歩(33)\n   \
               3 ２六歩(27)\n   4 ８四歩(83)\n   5 詰み\nまで4手で先手の勝ち\n";
    // The syntax error only, at its ply: no verdict on a mate the moves read cannot show.
    assert_eq!(found(Format::Kifu, kif), vec![(Code::Syntax, Some(2))]);
    let ki2 = "手合割：平手\n▲７六歩 △３x四歩 ▲２六歩 △８四歩\nまで4手で後手の勝ち\n";
    assert_eq!(found(Format::Ki2u, ki2), vec![(Code::Syntax, Some(2))]);
    // In a variation, the bad move stops no replay of the main line (and has no main-line ply).
    let var = "手合割：平手\n手数----指手---------消費時間--\n   1 ７六歩(77)\n   2 ３四歩(33)\n   \
               3 ２六歩(27)\n   4 投了\nまで3手で先手の勝ち\n\n変化：2手\n   2 ３x四歩(33)\n";
    let reports = validate_text(Format::Kifu, var, &Options::default());
    let r = &reports[0];
    assert_eq!(
        r.diagnostics
            .iter()
            .map(|d| (d.code, d.ply))
            .collect::<Vec<_>>(),
        vec![(Code::Syntax, None)]
    );
    assert_eq!((r.plies, r.result.winner), (3, Some(Winner::Black)));
}

/// A mate given by an uchifuzume, recorded `%TSUMI` (issue #47): the board shows mate, so the
/// finding names the foul that decided the game, not "White is not checkmated".
#[test]
fn a_mate_by_a_foul_is_named_for_the_foul() {
    // White's king on 1a; Black's gold on 2c and knight on 3c cover 1b, 2a and 2b.
    let sfen = "7lk/9/6NG1/9/9/9/9/9/4K4 b P 1";
    let text = csa(sfen, "P*1b", "%TSUMI");
    let r = validate_text(Format::Csa, &text, &Options::default());
    let found: Vec<(Code, String)> = r[0]
        .diagnostics
        .iter()
        .map(|d| (d.code, d.message.clone()))
        .collect();
    assert_eq!(found[0].0, Code::Uchifuzume, "{found:?}");
    assert_eq!(found[1].0, Code::ResultMismatch, "{found:?}");
    assert!(found[1].1.contains("Black's foul at ply 1"), "{found:?}");
    assert!(!found[1].1.contains("not checkmated"), "{found:?}");
}

/// A foul the record scores (a foul loss stated for the side that made it) keeps its error,
/// and says so (issue #47), in the message and as `scored`; a foul the record missed does not.
#[test]
fn a_foul_the_record_scores_says_so() {
    let moves = "P*5f";
    for (ending, scored) in [
        ("%+ILLEGAL_ACTION", true),
        ("%-ILLEGAL_ACTION", false),
        ("%TORYO", false),
    ] {
        let text = csa(NIFU, moves, ending);
        let r = validate_text(Format::Csa, &text, &Options::default());
        let nifu = r[0]
            .diagnostics
            .iter()
            .find(|d| d.code == Code::Nifu)
            .unwrap_or_else(|| panic!("{ending}: {:?}", r[0].diagnostics));
        assert_eq!(nifu.scored, scored, "{ending}: {nifu:?}");
        assert_eq!(
            nifu.message.contains("the record scores it"),
            scored,
            "{ending}"
        );
        let json = serde_json::to_value(nifu).expect("json");
        assert_eq!(json.get("scored").is_some(), scored, "{ending}: {json}");
    }
}

/// A clock that ran out earlier (issue #47): Black's flag fell at ply 1 (70 s of a minute),
/// and the record goes on to give Black the game (White resigns later): `result-mismatch`
/// naming the ply where the flag fell. A record that gives the game to White stays a
/// `time-exceeded` warning alone.
#[test]
fn a_win_for_the_side_whose_flag_fell_earlier_is_a_mismatch() {
    let game = |ending: &str| {
        format!(
            "V2.2\n$TIME_LIMIT:00:01+00\nPI\n+\n+7776FU\nT70\n-3334FU\nT1\n+2726FU\nT1\n{ending}\n"
        )
    };
    let codes = |text: &str| {
        let r = validate_text(Format::Csa, text, &Options::default());
        r[0].diagnostics
            .iter()
            .map(|d| (d.code, d.ply, d.message.clone()))
            .collect::<Vec<_>>()
    };
    // White to move resigns: the record gives the game to Black, whose time ran out at ply 1.
    let found = codes(&game("%TORYO"));
    assert_eq!(found.len(), 2, "{found:?}");
    assert_eq!(
        (found[0].0, found[0].1),
        (Code::TimeExceeded, Some(1)),
        "{found:?}"
    );
    assert_eq!(
        (found[1].0, found[1].1),
        (Code::ResultMismatch, Some(1)),
        "{found:?}"
    );
    assert!(
        found[1].2.contains("Black's time ran out at ply 1"),
        "{found:?}"
    );
    // White to move loses on time (the other side's later loss on time): the same.
    let found = codes(&game("%TIME_UP"));
    assert!(
        found
            .iter()
            .any(|d| d.0 == Code::ResultMismatch && d.1 == Some(1)),
        "{found:?}"
    );
    // The record gives the game to White: the flag's warning only.
    let found = codes(&game("-8384FU\nT1\n%TORYO"));
    assert_eq!(
        found.iter().map(|d| d.0).collect::<Vec<_>>(),
        [Code::TimeExceeded],
        "{found:?}"
    );
}
