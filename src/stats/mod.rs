//! Statistics over many games: fold one small [`GameSummary`] per game into [`Stats`].
//!
//! A summary holds only what the statistics need (no moves beyond the opening, a 64-bit hash
//! of the start and moves for duplicates), so memory grows with the number of distinct
//! players, openings and games' hashes, not with the records.
//!
//! Here: the [`Options`]; the per-game summary is in `summary`, the fold into [`Stats`] in
//! `fold`, the [`StatsReport`] and its writers (people, CSV) in `report`.
//!
//! The statistics count what the games hold, fouls included: a foul is a finding of
//! `validate`, not a failure to read, so a caller (the `stats` command) succeeds whenever it
//! could read its input.

mod fold;
mod html;
mod report;
mod summary;

pub use fold::{ERROR_GAMES_LISTED, Outcomes, PlayerRecord, Stats};
pub use report::{
    Bucket, CSV_HEADER, DuplicateRow, ErrorGameRow, ErrorGames, Lengths, LocationRow, OpeningRow,
    PlayerRow, StatsReport, TimeRow,
};
pub use summary::{GameSummary, month_of};

/// How to summarise.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Options {
    /// Plies that make an opening (a game shorter than this has none).
    pub opening_plies: usize,
    /// The most entries of each ranked list (openings, players; most games first); `None`:
    /// every entry.
    pub top: Option<usize>,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            opening_plies: 8,
            top: None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;

    use crate::diag::Code;
    use crate::validate::{GameResult, Winner};

    fn summary(plies: u32, winner: Option<Winner>, hash: u64, opening: &str) -> GameSummary {
        GameSummary {
            plies,
            result: GameResult {
                recorded: Some("TORYO".into()),
                winner,
                by_board: None,
            },
            opening: Some(opening.into()),
            players: [Some("A".into()), Some("B".into())],
            event: Some("E".into()),
            codes: vec![Code::Nifu],
            hash,
            time: (2, 3000),
            month: Some("2024-05".into()),
        }
    }

    #[test]
    fn months_are_read_from_the_dates_records_write() {
        for (date, month) in [
            ("2024/01/05 10:00:00", Some("2024-01")),
            ("2014-7-8", Some("2014-07")),
            ("2019年12月1日(日)", Some("2019-12")),
            (" 1999.03.30", Some("1999-03")),
            ("2024/13/01", None),
            ("24/01/05", None),
            ("平成26年", None),
            ("", None),
        ] {
            assert_eq!(month_of(date).as_deref(), month, "{date}");
        }
    }

    #[test]
    fn summaries_key_openings_by_start() {
        let text = "startpos moves 7g7f 3c3d 2g2f resign\n\
                    sfen lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1 moves 7g7f 3c3d 2g2f\n\
                    sfen lnsgkgsn1/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL w - 1 moves 1a1b 7g7f 1b1c\n\
                    sfen 4k4/9/9/9/9/9/9/9/4K4 b - 1 moves 5i5h 5a5b 5h5i\n";
        let opts = Options {
            opening_plies: 3,
            ..Options::default()
        };
        let games = crate::formats::read(crate::formats::Format::Usi, text);
        assert_eq!(games.len(), 4);
        let sums: Vec<GameSummary> = games
            .into_iter()
            .map(|mut g| {
                let gather = crate::validate::Gather::Games;
                let (r, game) = crate::validate::digest(&mut g, &Default::default(), gather);
                GameSummary::of(&game, &r, &opts)
            })
            .collect();
        assert_eq!(sums[0].opening.as_deref(), Some("7g7f 3c3d 2g2f"));
        assert_eq!(sums[1].opening, sums[0].opening);
        assert_eq!(sums[0].hash, sums[1].hash, "same start and moves");
        let lance = sums[2].opening.as_deref().unwrap_or_default();
        assert!(lance.ends_with(": 1a1b 7g7f 1b1c"), "{lance}");
        assert_ne!(lance, "1a1b 7g7f 1b1c");
        assert_eq!(sums[3].opening, None, "a composed position has no opening");
        assert_eq!(sums[0].result.winner, Some(Winner::Black));
        assert_eq!(sums[0].players, [None, None]);
    }

    #[test]
    fn folds_games() {
        let mut s = Stats::new();
        let p: Arc<str> = Arc::from("x.csa");
        s.add(&p, 0, &summary(10, Some(Winner::Black), 1, "7g7f"));
        s.add(&p, 1, &summary(30, Some(Winner::White), 2, "7g7f"));
        s.add(&p, 2, &summary(50, Some(Winner::Draw), 1, "2g2f"));
        let r = s.report(&Options::default());
        assert_eq!(r.games, 3);
        assert_eq!(r.plies, 90);
        assert_eq!(
            (r.results.black, r.results.white, r.results.draw),
            (1, 1, 1)
        );
        assert_eq!(r.lengths.percentiles["p50"], 30);
        assert_eq!(r.openings[0].moves, "7g7f");
        assert_eq!(r.openings[0].games, 2);
        let a = r.players.iter().find(|p| p.name == "A").unwrap();
        assert_eq!(
            (
                a.record.games,
                a.record.wins,
                a.record.losses,
                a.record.draws
            ),
            (3, 1, 1, 1)
        );
        assert_eq!(r.fouls["nifu"], 3);
        assert_eq!(r.duplicates.len(), 1);
        assert_eq!(r.duplicates[0].games, 2);
        assert_eq!(r.duplicates[0].locations[1].game, 2);
        assert_eq!(r.time.timed_moves, 6);
        let json = serde_json::to_value(&r).unwrap();
        for key in [
            "games",
            "plies",
            "results",
            "endings",
            "lengths",
            "openings",
            "players",
            "fouls",
            "duplicates",
            "error_games",
        ] {
            assert!(json.get(key).is_some(), "missing {key}");
        }
        assert_eq!(json["error_games"]["games"], 3);
        assert_eq!(json["error_games"]["listed"][1]["game"], 1);
        assert_eq!(json["error_games"]["listed"][1]["codes"][0], "nifu");
    }

    /// Games with an error are counted, the first `ERROR_GAMES_LISTED` listed in input order,
    /// each code once; a game with warnings only is not among them.
    #[test]
    fn games_with_errors_are_listed_up_to_a_bound() {
        let mut s = Stats::new();
        let p: Arc<str> = Arc::from("x.csa");
        let n = ERROR_GAMES_LISTED as u64 + 5;
        for i in 0..n {
            let mut g = summary(10, None, i, "7g7f");
            g.codes = vec![Code::Nifu, Code::TimeExceeded, Code::Nifu, Code::SelfCheck];
            s.add(&p, i, &g);
        }
        let mut warned = summary(10, None, n, "7g7f");
        warned.codes = vec![Code::MoveNumber];
        s.add(&p, n, &warned);
        let r = s.report(&Options::default());
        assert_eq!(r.error_games.games, n);
        assert_eq!(r.error_games.listed.len(), ERROR_GAMES_LISTED);
        assert_eq!(r.error_games.listed[7].game, 7);
        assert_eq!(r.error_games.listed[7].codes, ["nifu", "self-check"]);
        let mut page = Vec::new();
        r.write_html(&mut page, "t").expect("html");
        let page = String::from_utf8(page).expect("utf-8");
        assert!(
            page.contains("1005 of 1006 games have an error. The first 1000 are listed"),
            "{page}"
        );
    }
}
