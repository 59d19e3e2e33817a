//! The fold: game summaries added one by one into [`Stats`] (results, endings, lengths,
//! openings, players, events, diagnostics, duplicates, time), and [`Stats::report`], which
//! ranks and trims them into a [`StatsReport`].

use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;

use serde::Serialize;

use crate::diag::{Code, Diagnostic, Severity};
use crate::validate::Winner;

use super::{
    Bucket, DuplicateRow, ErrorGameRow, ErrorGames, GameSummary, Lengths, LocationRow, OpeningRow,
    Options, PlayerRow, StatsReport, TimeRow,
};

/// Results counted by outcome.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct Outcomes {
    /// Black won.
    pub black: u64,
    /// White won.
    pub white: u64,
    /// Drawn.
    pub draw: u64,
    /// No winner recorded (interrupted, unknown, no result).
    pub other: u64,
}

impl Outcomes {
    /// Counts one game won by `w` (`None`: no winner recorded).
    pub fn add(&mut self, w: Option<Winner>) {
        match w {
            Some(Winner::Black) => self.black += 1,
            Some(Winner::White) => self.white += 1,
            Some(Winner::Draw) => self.draw += 1,
            None => self.other += 1,
        }
    }
}

/// One player's record.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct PlayerRecord {
    /// Games played.
    pub games: u64,
    /// Won.
    pub wins: u64,
    /// Lost.
    pub losses: u64,
    /// Drawn.
    pub draws: u64,
}

/// How many games with an error the statistics list (the rest are counted): `kifu validate`
/// lists every one.
pub const ERROR_GAMES_LISTED: usize = 1000;

/// Where a game is.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Location {
    path: Arc<str>,
    game: u64,
}

/// Statistics folded from game summaries, in input order.
#[derive(Debug, Clone, Default)]
pub struct Stats {
    files: u64,
    games: u64,
    plies: u64,
    results: Outcomes,
    endings: BTreeMap<String, u64>,
    lengths: BTreeMap<u32, u64>,
    openings: HashMap<String, Outcomes>,
    players: HashMap<String, PlayerRecord>,
    events: BTreeMap<String, u64>,
    fouls: BTreeMap<Code, u64>,
    seen: HashMap<u64, (Location, u32)>,
    duplicates: BTreeMap<u64, Vec<Location>>,
    /// The first [`ERROR_GAMES_LISTED`] games with an error, in input order, with their error
    /// codes; and how many games had one.
    errors: Vec<(Location, Vec<Code>)>,
    error_games: u64,
    timed_moves: u64,
    time_ms: u64,
    months: BTreeMap<String, u64>,
}

impl Stats {
    /// Empty statistics.
    pub fn new() -> Stats {
        Stats::default()
    }

    /// Counts one more file.
    pub fn add_file(&mut self) {
        self.files += 1;
    }

    /// Counts diagnostics that belong to no game (unreadable files).
    pub fn add_file_diagnostics(&mut self, diagnostics: &[Diagnostic]) {
        for d in diagnostics {
            *self.fouls.entry(d.code).or_default() += 1;
        }
    }

    /// Adds one game found at (`path`, `game`).
    pub fn add(&mut self, path: &Arc<str>, game: u64, s: &GameSummary) {
        self.games += 1;
        self.plies += u64::from(s.plies);
        self.results.add(s.result.winner);
        let ending = s
            .result
            .recorded
            .clone()
            .unwrap_or_else(|| "none".to_owned());
        *self.endings.entry(ending).or_default() += 1;
        *self.lengths.entry(s.plies).or_default() += 1;
        if let Some(o) = &s.opening {
            self.openings
                .entry(o.clone())
                .or_default()
                .add(s.result.winner);
        }
        for (i, p) in s.players.iter().enumerate() {
            let Some(name) = p else { continue };
            let rec = self.players.entry(name.clone()).or_default();
            rec.games += 1;
            match (s.result.winner, i) {
                (Some(Winner::Draw), _) => rec.draws += 1,
                (Some(Winner::Black), 0) | (Some(Winner::White), 1) => rec.wins += 1,
                (Some(Winner::Black), _) | (Some(Winner::White), _) => rec.losses += 1,
                (None, _) => {}
            }
        }
        if let Some(m) = &s.month {
            *self.months.entry(m.clone()).or_default() += 1;
        }
        if let Some(e) = &s.event {
            *self.events.entry(e.clone()).or_default() += 1;
        }
        for c in &s.codes {
            *self.fouls.entry(*c).or_default() += 1;
        }
        let here = Location {
            path: Arc::clone(path),
            game,
        };
        if s.codes.iter().any(|c| c.severity() == Severity::Error) {
            self.error_games += 1;
            if self.errors.len() < ERROR_GAMES_LISTED {
                let mut codes: Vec<Code> = Vec::new();
                for &c in &s.codes {
                    if c.severity() == Severity::Error && !codes.contains(&c) {
                        codes.push(c);
                    }
                }
                self.errors.push((here.clone(), codes));
            }
        }
        match self.seen.get_mut(&s.hash) {
            Some((first, count)) => {
                *count += 1;
                let list = self
                    .duplicates
                    .entry(s.hash)
                    .or_insert_with(|| vec![first.clone()]);
                list.push(here);
            }
            None => {
                self.seen.insert(s.hash, (here, 1));
            }
        }
        self.timed_moves += s.time.0;
        self.time_ms = self.time_ms.saturating_add(s.time.1);
    }

    /// Number of games added.
    pub fn games(&self) -> u64 {
        self.games
    }

    fn percentile(&self, p: f64) -> u32 {
        if self.games == 0 {
            return 0;
        }
        let rank = ((p / 100.0) * self.games as f64).ceil().max(1.0) as u64;
        let mut acc = 0u64;
        for (&len, &n) in &self.lengths {
            acc += n;
            if acc >= rank {
                return len;
            }
        }
        self.lengths.keys().next_back().copied().unwrap_or(0)
    }

    /// The statistics as a serialisable report.
    pub fn report(&self, opts: &Options) -> StatsReport {
        let mut openings: Vec<OpeningRow> = self
            .openings
            .iter()
            .map(|(m, o)| OpeningRow {
                moves: m.clone(),
                games: o.black + o.white + o.draw + o.other,
                results: *o,
            })
            .collect();
        openings.sort_by(|a, b| b.games.cmp(&a.games).then_with(|| a.moves.cmp(&b.moves)));
        openings.truncate(opts.top.unwrap_or(usize::MAX));
        let mut players: Vec<PlayerRow> = self
            .players
            .iter()
            .map(|(n, r)| PlayerRow {
                name: n.clone(),
                record: *r,
            })
            .collect();
        players.sort_by(|a, b| {
            b.record
                .games
                .cmp(&a.record.games)
                .then_with(|| a.name.cmp(&b.name))
        });
        players.truncate(opts.top.unwrap_or(usize::MAX));
        let mut histogram: Vec<Bucket> = Vec::new();
        for (&len, &n) in &self.lengths {
            let from = len / 20 * 20;
            match histogram.last_mut() {
                Some(b) if b.from == from => b.games += n,
                _ => histogram.push(Bucket {
                    from,
                    to: from + 19,
                    games: n,
                }),
            }
        }
        let lengths = Lengths {
            min: self.lengths.keys().next().copied().unwrap_or(0),
            max: self.lengths.keys().next_back().copied().unwrap_or(0),
            mean: if self.games == 0 {
                0.0
            } else {
                self.plies as f64 / self.games as f64
            },
            percentiles: [10.0, 25.0, 50.0, 75.0, 90.0, 99.0]
                .iter()
                .map(|&p| (format!("p{p}"), self.percentile(p)))
                .collect(),
            histogram,
        };
        let duplicates = self
            .duplicates
            .values()
            .map(|locs| DuplicateRow {
                games: locs.len() as u64,
                locations: locs
                    .iter()
                    .map(|l| LocationRow {
                        path: l.path.to_string(),
                        game: l.game,
                    })
                    .collect(),
            })
            .collect();
        StatsReport {
            files: self.files,
            games: self.games,
            plies: self.plies,
            results: self.results,
            endings: self.endings.clone(),
            lengths,
            openings,
            players,
            events: self.events.clone(),
            fouls: self
                .fouls
                .iter()
                .map(|(c, n)| (c.as_str().to_owned(), *n))
                .collect(),
            duplicates,
            error_games: ErrorGames {
                games: self.error_games,
                listed: self
                    .errors
                    .iter()
                    .map(|(l, codes)| ErrorGameRow {
                        path: l.path.to_string(),
                        game: l.game,
                        codes: codes.iter().map(|c| c.as_str().to_owned()).collect(),
                    })
                    .collect(),
            },
            months: self.months.clone(),
            opening_plies: opts.opening_plies,
            time: TimeRow {
                timed_moves: self.timed_moves,
                mean_seconds_per_move: if self.timed_moves == 0 {
                    None
                } else {
                    Some(self.time_ms as f64 / 1000.0 / self.timed_moves as f64)
                },
            },
        }
    }
}
