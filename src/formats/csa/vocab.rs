//! CSA words for the ends of games (`TORYO`, `+ILLEGAL_ACTION`, `MAX_MOVES`...), which JKF
//! also uses, and how a record's ending is named in them. The record itself knows no format:
//! its [`SpecialKind`]s are named here for the formats that spell them the CSA way.

use crate::core::Color;
use crate::record::{Special, SpecialKind};

/// The kind for a CSA special word (without the `%`), which is also the JKF `special` name:
/// `TORYO`, `+ILLEGAL_ACTION`, `MAX_MOVES`... `None` for any other word.
///
/// ```
/// use kifu::formats::csa;
/// use kifu::record::SpecialKind;
/// assert_eq!(csa::special_kind("TORYO"), Some(SpecialKind::Resign));
/// assert_eq!(csa::special_kind("RESIGN"), None);
/// ```
pub fn special_kind(word: &str) -> Option<SpecialKind> {
    Some(match word {
        "TORYO" => SpecialKind::Resign,
        "CHUDAN" => SpecialKind::Interrupt,
        "SENNICHITE" => SpecialKind::Repetition,
        "OUTE_SENNICHITE" => SpecialKind::PerpetualCheck,
        "TIME_UP" => SpecialKind::Timeout,
        "ILLEGAL_MOVE" => SpecialKind::IllegalMove,
        "+ILLEGAL_ACTION" => SpecialKind::IllegalAction(Color::Black),
        "-ILLEGAL_ACTION" => SpecialKind::IllegalAction(Color::White),
        "JISHOGI" => SpecialKind::Impasse,
        "KACHI" => SpecialKind::Declaration,
        "HIKIWAKE" => SpecialKind::Draw,
        "MATTA" => SpecialKind::Matta,
        "TSUMI" => SpecialKind::Mate,
        "FUZUMI" => SpecialKind::NoMate,
        "ERROR" => SpecialKind::Error,
        "MAX_MOVES" => SpecialKind::MaxMoves,
        _ => return None,
    })
}

/// The kind for a game server's verdict line (`#TIME_UP`, without the `#`), as shogi-server
/// sends it to the players and client logs keep it: `RESIGN`, `TIME_UP`, `ILLEGAL_MOVE`,
/// `SENNICHITE`, `OUTE_SENNICHITE`, `JISHOGI`, `MAX_MOVES`, `CHUDAN`, `DRAW`. `None` for
/// anything else, `#WIN` and `#LOSE` included: they say who won from the point of view of
/// the log's owner, whom the log does not name.
///
/// ```
/// use kifu::formats::csa;
/// use kifu::record::SpecialKind;
/// assert_eq!(csa::verdict_kind("TIME_UP"), Some(SpecialKind::Timeout));
/// assert_eq!(csa::verdict_kind("WIN"), None);
/// ```
pub fn verdict_kind(word: &str) -> Option<SpecialKind> {
    Some(match word {
        "RESIGN" => SpecialKind::Resign,
        "TIME_UP" => SpecialKind::Timeout,
        "ILLEGAL_MOVE" => SpecialKind::IllegalMove,
        "SENNICHITE" => SpecialKind::Repetition,
        "OUTE_SENNICHITE" => SpecialKind::PerpetualCheck,
        "JISHOGI" => SpecialKind::Impasse,
        "MAX_MOVES" => SpecialKind::MaxMoves,
        "CHUDAN" => SpecialKind::Interrupt,
        "DRAW" => SpecialKind::Draw,
        _ => return None,
    })
}

/// The CSA word (without the `%`) for the kinds CSA has one for, the inverse of
/// [`special_kind`]. KIF-only endings (反則勝ち, 封じ手, 不戦勝, 不戦敗) and unknown words
/// have none.
pub fn special_word(kind: SpecialKind) -> Option<&'static str> {
    Some(match kind {
        SpecialKind::Resign => "TORYO",
        SpecialKind::Interrupt => "CHUDAN",
        SpecialKind::Repetition => "SENNICHITE",
        SpecialKind::Timeout => "TIME_UP",
        SpecialKind::IllegalMove => "ILLEGAL_MOVE",
        SpecialKind::IllegalAction(Color::Black) => "+ILLEGAL_ACTION",
        SpecialKind::IllegalAction(Color::White) => "-ILLEGAL_ACTION",
        SpecialKind::Impasse => "JISHOGI",
        SpecialKind::Declaration => "KACHI",
        SpecialKind::Draw => "HIKIWAKE",
        SpecialKind::Matta => "MATTA",
        SpecialKind::Mate => "TSUMI",
        SpecialKind::NoMate => "FUZUMI",
        SpecialKind::Error => "ERROR",
        SpecialKind::MaxMoves => "MAX_MOVES",
        // `%OUTE_SENNICHITE` is read (shogi-server's word) but is no CSA special move.
        SpecialKind::PerpetualCheck
        | SpecialKind::IllegalWin
        | SpecialKind::Sealed
        | SpecialKind::DefaultWin
        | SpecialKind::DefaultLoss
        | SpecialKind::Unknown => return None,
    })
}

/// The kind of `special` as CSA and JKF name fouls, with `turn` to move: a win by the
/// opponent's foul (`反則勝ち`) is the illegal action of the side that just moved, a loss by a
/// foul that names the side not to move (`まで1手で先手の反則負け`, White to move) is that
/// side's illegal action (`ILLEGAL_MOVE` is always the side to move's loss); other kinds as
/// they are.
pub fn written_kind(special: &Special, turn: Color) -> SpecialKind {
    match (special.kind, special.side) {
        (SpecialKind::IllegalWin, _) => SpecialKind::IllegalAction(turn.flip()),
        (SpecialKind::IllegalMove, Some(loser)) if loser != turn => {
            SpecialKind::IllegalAction(loser)
        }
        (kind, _) => kind,
    }
}

/// shogi-server's verdict on a game, from its `'summary:REASON:BLACK RESULT:WHITE RESULT`
/// comment (Black's name first; each result `win`, `lose` or `draw`): the ending the reason
/// names and the winner, `None` for a draw. For the endings the server logs with no `%` line
/// (an illegal move, 打ち歩詰め, a perpetual check, the move limit) it is the record's only word
/// on the result.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ServerSummary {
    /// The ending the reason names (`toryo` a resignation, `time up` a loss on time, `kachi`
    /// a declaration, `sennichite` a repetition, `oute_sennichite` a perpetual check, `max_moves`
    /// the move limit; a refused declaration (`illegal kachi`) and the fouls (`illegal move`,
    /// `uchifuzume`, `oute_kaihimore`) a loss by a foul); `None` for `abnormal` (a disconnection)
    /// and reasons not known, whose winner still counts.
    pub kind: Option<SpecialKind>,
    /// The side the summary gives the game to; `None` for a draw.
    pub winner: Option<Color>,
}

/// Reads a `summary:` comment (without its `'`), `None` for any other comment or a summary
/// whose results are not one win and one loss, or two draws.
pub fn server_summary(comment: &str) -> Option<ServerSummary> {
    let rest = comment.strip_prefix("summary:")?;
    let mut fields = rest.trim_end().split(':');
    let reason = fields.next()?.trim().to_ascii_lowercase().replace(' ', "_");
    // The result is the last word of each side's field.
    fn result(f: &str) -> Option<&str> {
        f.trim().rsplit(' ').next()
    }
    let black = result(fields.next()?)?;
    let white = result(fields.next()?)?;
    if fields.next().is_some() {
        return None;
    }
    let winner = match (black, white) {
        ("win", "lose") => Some(Color::Black),
        ("lose", "win") => Some(Color::White),
        ("draw", "draw") => None,
        _ => return None,
    };
    let kind = match reason.as_str() {
        "toryo" => Some(SpecialKind::Resign),
        "time_up" => Some(SpecialKind::Timeout),
        "kachi" => Some(SpecialKind::Declaration),
        "sennichite" => Some(SpecialKind::Repetition),
        "oute_sennichite" => Some(SpecialKind::PerpetualCheck),
        "max_moves" => Some(SpecialKind::MaxMoves),
        "illegal_kachi" | "illegal_move" | "uchifuzume" | "oute_kaihimore" => {
            Some(SpecialKind::IllegalMove)
        }
        _ => None,
    };
    // A draw by any other reason, or a win by a draw's reason, is not a verdict this reads.
    let draws = matches!(kind, Some(SpecialKind::Repetition | SpecialKind::MaxMoves));
    if draws != winner.is_none() {
        return None;
    }
    Some(ServerSummary { kind, winner })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn csa_special_words_round_trip() {
        let words = [
            "TORYO",
            "CHUDAN",
            "SENNICHITE",
            "TIME_UP",
            "ILLEGAL_MOVE",
            "+ILLEGAL_ACTION",
            "-ILLEGAL_ACTION",
            "JISHOGI",
            "KACHI",
            "HIKIWAKE",
            "MATTA",
            "TSUMI",
            "FUZUMI",
            "ERROR",
            "MAX_MOVES",
        ];
        for w in words {
            let k = special_kind(w).unwrap_or_else(|| panic!("{w}"));
            assert_eq!(special_word(k), Some(w));
        }
        assert_eq!(special_kind("RESIGN"), None);
        let sum = |t: &str| server_summary(t).map(|s| (s.kind, s.winner));
        assert_eq!(
            sum("summary:toryo:Titanda_L lose:HarrySan win"),
            Some((Some(SpecialKind::Resign), Some(Color::White)))
        );
        assert_eq!(
            sum("summary:max_moves:a draw:b draw"),
            Some((Some(SpecialKind::MaxMoves), None))
        );
        assert_eq!(
            sum("summary:time up:a win:b lose"),
            Some((Some(SpecialKind::Timeout), Some(Color::Black)))
        );
        assert_eq!(
            sum("summary:illegal kachi:a lose:b win"),
            Some((Some(SpecialKind::IllegalMove), Some(Color::White)))
        );
        assert_eq!(
            sum("summary:abnormal:a win:b lose"),
            Some((None, Some(Color::Black)))
        );
        for bad in [
            "summary:toryo:a win:b win",
            "summary:toryo:a draw:b draw",
            "summary:sennichite:a win:b lose",
            "summary:toryo:a win",
            "summary:toryo:a win:b lose:c",
            "summary toryo:a win:b lose",
            "black_rate:a:1.0",
        ] {
            assert_eq!(sum(bad), None, "{bad}");
        }
        assert_eq!(special_word(SpecialKind::Sealed), None);
        assert_eq!(
            special_kind("-ILLEGAL_ACTION").and_then(SpecialKind::named_side),
            Some(Color::White)
        );
    }
}
