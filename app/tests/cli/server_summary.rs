//! shogi-server's `'summary:REASON:BLACK RESULT:WHITE RESULT` comment: the recorded result
//! where no `%` line gives one (an illegal move, a perpetual check, the move limit), held to
//! the board like any ending, and a disagreement with the `%` line reported with both readings
//! (docs/diagnostics.md, "The server's summary").

use serde_json::Value;

use crate::cli_common;
use cli_common::{parse_lines, run, stdout};

/// `validate --format json` of one CSA game: its result and its diagnostics' (code, message).
fn judge(csa: &str) -> (Value, Vec<(String, String)>) {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("g.csa");
    std::fs::write(&path, csa).expect("write");
    let o = run(&[
        "validate",
        "--no-progress",
        "--format",
        "json",
        path.to_str().unwrap(),
    ]);
    let lines = parse_lines(&stdout(&o));
    let game = lines
        .iter()
        .find(|l| l["game"].is_u64())
        .expect("a game")
        .clone();
    let diags = game["diagnostics"]
        .as_array()
        .expect("diagnostics")
        .iter()
        .map(|d| {
            let s = |k: &str| d[k].as_str().unwrap_or_default().to_owned();
            (s("code"), s("message"))
        })
        .collect();
    (game["result"].clone(), diags)
}

const HEAD: &str = "V2.2\nN+alice\nN-bob\nPI\n+\n";

/// A plain fourfold repetition: both kings step out and back four times (no check).
fn repetition() -> String {
    "+5958OU\n-5152OU\n+5859OU\n-5251OU\n".repeat(3)
}

#[test]
fn the_summary_is_the_result_where_no_percent_line_gives_one() {
    // An illegal move the server refused and did not log (uchifuzume): Black, to move, loses.
    let (r, d) = judge(&format!(
        "{HEAD}+7776FU\n-3334FU\n'ILLEGAL_MOVE(+0053FU)\n'summary:uchifuzume:alice lose:bob win\n"
    ));
    assert_eq!(
        (r["recorded"].as_str(), r["winner"].as_str()),
        (Some("ILLEGAL_MOVE"), Some("white"))
    );
    assert!(d.is_empty(), "{d:?}");
    // The move limit: a draw.
    let (r, d) = judge(&format!(
        "{HEAD}+7776FU\n-3334FU\n'summary:max_moves:alice draw:bob draw\n"
    ));
    assert_eq!(
        (r["recorded"].as_str(), r["winner"].as_str()),
        (Some("MAX_MOVES"), Some("draw"))
    );
    assert!(d.is_empty(), "{d:?}");
    // A disconnection names a winner and no ending.
    let (r, _) = judge(&format!(
        "{HEAD}+7776FU\n'summary:abnormal:alice win:bob lose\n"
    ));
    assert_eq!(
        (r["recorded"].as_str(), r["winner"].as_str()),
        (None, Some("black"))
    );
    // A summary kifu does not read (two winners) is no result, as before.
    let (r, _) = judge(&format!(
        "{HEAD}+7776FU\n'summary:toryo:alice win:bob win\n"
    ));
    assert_eq!(r["winner"], Value::Null);
}

#[test]
fn a_summary_the_board_contradicts_is_a_result_mismatch() {
    // A perpetual check by the server's word; by the board, a plain repetition (no check).
    let (r, d) = judge(&format!(
        "{HEAD}{}'summary:oute_sennichite:alice lose:bob win\n",
        repetition()
    ));
    assert_eq!(r["recorded"].as_str(), Some("OUTE_SENNICHITE"));
    let m: Vec<_> = d.iter().filter(|(c, _)| c == "result-mismatch").collect();
    assert_eq!(m.len(), 1, "{d:?}");
    assert!(
        m[0].1.contains("'summary:oute_sennichite") && m[0].1.contains("neither side gave check"),
        "{m:?}"
    );
    // The same repetition with `%SENNICHITE` and the server's draw: all agree.
    let (r, d) = judge(&format!(
        "{HEAD}{}%SENNICHITE\n'summary:sennichite:alice draw:bob draw\n",
        repetition()
    ));
    assert_eq!(r["winner"].as_str(), Some("draw"));
    assert!(d.is_empty(), "{d:?}");
}

#[test]
fn a_summary_that_disagrees_with_the_percent_line_is_reported_with_both() {
    // `%TORYO` with Black to move: White wins; the server says Black won on time.
    let (r, d) = judge(&format!(
        "{HEAD}+7776FU\n-3334FU\n%TORYO\n'summary:time up:alice win:bob lose\n"
    ));
    assert_eq!(
        r["winner"].as_str(),
        Some("white"),
        "the % line stays the recorded result"
    );
    let msgs: Vec<&str> = d
        .iter()
        .filter(|(c, _)| c == "result-mismatch")
        .map(|(_, m)| m.as_str())
        .collect();
    assert_eq!(
        msgs,
        [
            "the server's summary ('summary:time up:alice win:bob lose) gives the game to Black, \
          but %TORYO gives the game to White"
        ]
    );
    // The same with the server agreeing: nothing to say.
    let (_, d) = judge(&format!(
        "{HEAD}+7776FU\n-3334FU\n%TORYO\n'summary:toryo:alice lose:bob win\n"
    ));
    assert!(d.is_empty(), "{d:?}");
}

/// Black's king entered, 28 points: a declaration that holds under the 27-point rule.
const ENTERED: &str = "V2.2\nN+alice\nN-bob\n\
P1+RY+UM+KI+KI * +GI+GI+TO+TO\nP2 *  *  *  * +OU *  *  *  * \nP3+FU+FU *  *  *  *  *  *  * \n\
P4 *  *  *  *  *  *  *  *  * \nP5 *  *  *  *  *  *  *  *  * \nP6 *  *  *  *  *  *  *  *  * \n\
P7 *  *  *  *  *  *  *  *  * \nP8 *  *  *  *  *  *  *  *  * \nP9 *  *  *  * -OU *  *  *  * \n\
P+00HI00FU00FU00FU00FU00FU\n+\n+5242OU\n-5949OU\n%KACHI\n";

#[test]
fn a_declaration_the_server_refused_is_the_declarers_loss_and_checked() {
    // Declared at the start: it fails on the board, and the server refused it. The record
    // (the server) and the board agree: White wins, nothing to report.
    let (r, d) = judge(&format!(
        "{HEAD}+7776FU\n-3334FU\n%KACHI\n'summary:illegal kachi:alice lose:bob win\n"
    ));
    assert_eq!(
        (r["recorded"].as_str(), r["winner"].as_str()),
        (Some("KACHI"), Some("white"))
    );
    assert!(d.is_empty(), "{d:?}");
    // Without the summary, `%KACHI` alone claims the win the board refuses.
    let (r, d) = judge(&format!("{HEAD}+7776FU\n-3334FU\n%KACHI\n"));
    assert_eq!(r["winner"].as_str(), Some("black"));
    assert!(
        d.iter()
            .any(|(c, m)| c == "result-mismatch" && m.contains("declaration fails")),
        "{d:?}"
    );
    // A declaration that holds, accepted by the server: Black wins.
    let (r, d) = judge(&format!("{ENTERED}'summary:kachi:alice win:bob lose\n"));
    assert_eq!(r["winner"].as_str(), Some("black"));
    assert!(d.is_empty(), "{d:?}");
    // The same declaration refused by the server: its verdict is recorded, and the board's
    // reading beside it.
    let (r, d) = judge(&format!(
        "{ENTERED}'summary:illegal kachi:alice lose:bob win\n"
    ));
    assert_eq!(r["winner"].as_str(), Some("white"));
    let m: Vec<_> = d.iter().filter(|(c, _)| c == "result-mismatch").collect();
    assert_eq!(m.len(), 1, "{d:?}");
    assert!(
        m[0].1.contains("the server refused Black's declaration")
            && m[0].1.contains("by the board, Black wins"),
        "{m:?}"
    );
}
