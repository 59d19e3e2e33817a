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
        assert_eq!(special_word(SpecialKind::Sealed), None);
        assert_eq!(
            special_kind("-ILLEGAL_ACTION").and_then(SpecialKind::named_side),
            Some(Color::White)
        );
    }
}
