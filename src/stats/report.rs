//! The report: [`StatsReport`] and its rows, which serialise to the JSON the contract
//! describes, and its writers for people and as CSV (one table of fixed columns, described in
//! docs/tables.md).

use std::collections::BTreeMap;
use std::io::{self, Write};

use serde::Serialize;

use super::{Outcomes, PlayerRecord};

/// The statistics, ready to print. Serialises to the JSON the contract describes.
#[derive(Debug, Clone, Serialize)]
pub struct StatsReport {
    /// Files read.
    pub files: u64,
    /// Games.
    pub games: u64,
    /// Main-line moves over all games.
    pub plies: u64,
    /// Games by outcome.
    pub results: Outcomes,
    /// Games by recorded ending (`TORYO`, `SENNICHITE`, ... and `none`).
    pub endings: BTreeMap<String, u64>,
    /// Game lengths.
    pub lengths: Lengths,
    /// The most common openings (first N plies) with their results.
    pub openings: Vec<OpeningRow>,
    /// Players, most games first.
    pub players: Vec<PlayerRow>,
    /// Games per event.
    pub events: BTreeMap<String, u64>,
    /// Diagnostics by code.
    pub fouls: BTreeMap<String, u64>,
    /// Groups of games with the same start and moves.
    pub duplicates: Vec<DuplicateRow>,
    /// The games with an error (kifu's extension).
    pub error_games: ErrorGames,
    /// Time used per move, where recorded.
    pub time: TimeRow,
    /// Games by the month they started (`YYYY-MM`), where the header dates them (kifu's
    /// extension).
    pub months: BTreeMap<String, u64>,
    /// The plies that made an opening (not in the JSON: the caller chose it).
    #[serde(skip)]
    pub opening_plies: usize,
}

/// Distribution of plies per game.
#[derive(Debug, Clone, Serialize)]
pub struct Lengths {
    /// Shortest.
    pub min: u32,
    /// Longest.
    pub max: u32,
    /// Mean.
    pub mean: f64,
    /// `p10`, `p25`, `p50`, `p75`, `p90`, `p99`.
    pub percentiles: BTreeMap<String, u32>,
    /// Games per 20-ply bucket.
    pub histogram: Vec<Bucket>,
}

/// A histogram bucket.
#[derive(Debug, Clone, Serialize)]
pub struct Bucket {
    /// First length in the bucket.
    pub from: u32,
    /// Last length in the bucket.
    pub to: u32,
    /// Games.
    pub games: u64,
}

/// One opening.
#[derive(Debug, Clone, Serialize)]
pub struct OpeningRow {
    /// The moves, space-separated USI.
    pub moves: String,
    /// Games.
    pub games: u64,
    /// Their results.
    pub results: Outcomes,
}

/// One player.
#[derive(Debug, Clone, Serialize)]
pub struct PlayerRow {
    /// Name as written.
    pub name: String,
    /// Games, wins, losses, draws.
    #[serde(flatten)]
    pub record: PlayerRecord,
}

/// A group of identical games.
#[derive(Debug, Clone, Serialize)]
pub struct DuplicateRow {
    /// How many.
    pub games: u64,
    /// Where they are.
    pub locations: Vec<LocationRow>,
}

/// The games with an error diagnostic (by each code's default severity).
#[derive(Debug, Clone, Default, Serialize)]
pub struct ErrorGames {
    /// How many.
    pub games: u64,
    /// The first of them in input order (at most 1,000: `ERROR_GAMES_LISTED`).
    pub listed: Vec<ErrorGameRow>,
}

/// A game with an error: where it is and its error codes.
#[derive(Debug, Clone, Serialize)]
pub struct ErrorGameRow {
    /// The path.
    pub path: String,
    /// The game index in the file.
    pub game: u64,
    /// Its error codes, in the order found, each once.
    pub codes: Vec<String>,
}

/// A game's address.
#[derive(Debug, Clone, Serialize)]
pub struct LocationRow {
    /// The path.
    pub path: String,
    /// The game index in the file.
    pub game: u64,
}

/// Time statistics.
#[derive(Debug, Clone, Serialize)]
pub struct TimeRow {
    /// Moves with a recorded time.
    pub timed_moves: u64,
    /// Mean seconds per timed move.
    pub mean_seconds_per_move: Option<f64>,
}

impl StatsReport {
    /// Writes the report for people.
    pub fn write_human(&self, out: &mut dyn Write) -> io::Result<()> {
        writeln!(
            out,
            "files: {}  games: {}  plies: {}",
            self.files, self.games, self.plies
        )?;
        let r = &self.results;
        writeln!(
            out,
            "results: black {}  white {}  draw {}  other {}",
            r.black, r.white, r.draw, r.other
        )?;
        writeln!(out, "endings:")?;
        for (k, n) in &self.endings {
            writeln!(out, "  {k:<16} {n}")?;
        }
        let l = &self.lengths;
        writeln!(
            out,
            "lengths: min {}  max {}  mean {:.1}",
            l.min, l.max, l.mean
        )?;
        let p: Vec<String> = l
            .percentiles
            .iter()
            .map(|(k, v)| format!("{k} {v}"))
            .collect();
        writeln!(out, "  percentiles: {}", p.join("  "))?;
        let most = l
            .histogram
            .iter()
            .map(|b| b.games)
            .max()
            .unwrap_or(1)
            .max(1);
        for b in &l.histogram {
            let bar = "#".repeat(((b.games * 40).div_ceil(most)) as usize);
            writeln!(out, "  {:>4}-{:<4} {:>7} {bar}", b.from, b.to, b.games)?;
        }
        if let Some(note) = self.openings_note() {
            writeln!(out, "openings: none ({note})")?;
        }
        if !self.openings.is_empty() {
            writeln!(out, "openings:")?;
            for o in &self.openings {
                let r = &o.results;
                writeln!(
                    out,
                    "  {:>6}  {}  (black {} white {} draw {} other {})",
                    o.games, o.moves, r.black, r.white, r.draw, r.other
                )?;
            }
        }
        if !self.players.is_empty() {
            writeln!(out, "players:")?;
            for p in &self.players {
                let r = &p.record;
                writeln!(
                    out,
                    "  {:>6} games  {:>5} W {:>5} L {:>5} D  {}",
                    r.games, r.wins, r.losses, r.draws, p.name
                )?;
            }
        }
        if !self.events.is_empty() {
            writeln!(out, "events:")?;
            for (e, n) in &self.events {
                writeln!(out, "  {n:>6}  {e}")?;
            }
        }
        if !self.fouls.is_empty() {
            writeln!(out, "diagnostics by code:")?;
            for (c, n) in &self.fouls {
                writeln!(out, "  {c:<18} {n}")?;
            }
        }
        if !self.duplicates.is_empty() {
            writeln!(out, "duplicates:")?;
            for d in &self.duplicates {
                let w: Vec<String> = d
                    .locations
                    .iter()
                    .map(|l| format!("{}#{}", l.path, l.game))
                    .collect();
                writeln!(out, "  {} games: {}", d.games, w.join(", "))?;
            }
        }
        match self.time.mean_seconds_per_move {
            Some(s) => writeln!(
                out,
                "time: {} timed moves, {s:.1} s per move on average",
                self.time.timed_moves
            )?,
            None => writeln!(out, "time: no move times recorded")?,
        }
        Ok(())
    }

    /// Why the openings list is empty when there were games to take openings from: no game
    /// is as long as the opening (`--opening-plies`), or the long enough ones all start from a
    /// position that is neither the even start nor a named handicap. `None` when the list
    /// has entries, or when there were no games.
    pub fn openings_note(&self) -> Option<String> {
        if !self.openings.is_empty() || self.games == 0 {
            return None;
        }
        let n = self.opening_plies;
        Some(if n == 0 {
            "an opening of 0 plies is no opening".to_owned()
        } else if u64::from(self.lengths.max) < n as u64 {
            format!(
                "no game has the {n} plies of an opening; the longest has {}",
                self.lengths.max
            )
        } else {
            format!(
                "no game of {n} plies or more starts from the even position or a named handicap"
            )
        })
    }

    /// Writes the report as one CSV table (RFC 4180) with the fixed header [`CSV_HEADER`]: one
    /// row per figure, the section and key naming it, in the order of the JSON. Columns a
    /// section does not use are empty. docs/tables.md describes every section.
    pub fn write_csv(&self, out: &mut dyn Write) -> io::Result<()> {
        // The header is written here, not taken from the rows' field names, so that it is the
        // one constant.
        let mut w = csv::WriterBuilder::new()
            .has_headers(false)
            .from_writer(out);
        let e = |e: csv::Error| io::Error::other(e);
        w.write_record(CSV_HEADER).map_err(e)?;
        let mut put = |row: CsvRow<'_>| w.serialize(row).map_err(e);
        for (k, v) in [
            ("files", self.files),
            ("games", self.games),
            ("plies", self.plies),
        ] {
            put(CsvRow::count("total", k, v))?;
        }
        let r = &self.results;
        for (k, v) in [
            ("black", r.black),
            ("white", r.white),
            ("draw", r.draw),
            ("other", r.other),
        ] {
            put(CsvRow::count("results", k, v))?;
        }
        for (k, v) in &self.endings {
            put(CsvRow::count("endings", k, *v))?;
        }
        let l = &self.lengths;
        put(CsvRow::count("lengths", "min", l.min.into()))?;
        put(CsvRow::count("lengths", "max", l.max.into()))?;
        put(CsvRow {
            value: Some(Number::Float(l.mean)),
            ..CsvRow::new("lengths", "mean")
        })?;
        for (k, v) in &l.percentiles {
            put(CsvRow::count("lengths", k, (*v).into()))?;
        }
        for b in &l.histogram {
            let key = format!("{}-{}", b.from, b.to);
            put(CsvRow::count("histogram", &key, b.games))?;
        }
        for o in &self.openings {
            let r = &o.results;
            put(CsvRow {
                black: Some(r.black),
                white: Some(r.white),
                draw: Some(r.draw),
                other: Some(r.other),
                ..CsvRow::count("openings", &o.moves, o.games)
            })?;
        }
        for p in &self.players {
            let r = &p.record;
            put(CsvRow {
                wins: Some(r.wins),
                losses: Some(r.losses),
                draws: Some(r.draws),
                ..CsvRow::count("players", &p.name, r.games)
            })?;
        }
        for (k, v) in &self.events {
            put(CsvRow::count("events", k, *v))?;
        }
        for (k, v) in &self.fouls {
            put(CsvRow::count("fouls", k, *v))?;
        }
        for (i, d) in self.duplicates.iter().enumerate() {
            let group = (i + 1).to_string();
            for l in &d.locations {
                put(CsvRow {
                    path: Some(&l.path),
                    game: Some(l.game),
                    ..CsvRow::count("duplicates", &group, d.games)
                })?;
            }
        }
        put(CsvRow::count("time", "timed_moves", self.time.timed_moves))?;
        put(CsvRow {
            value: self.time.mean_seconds_per_move.map(Number::Float),
            ..CsvRow::new("time", "mean_seconds_per_move")
        })?;
        w.flush()
    }
}

/// The columns of [`StatsReport::write_csv`], in order.
pub const CSV_HEADER: [&str; 12] = [
    "section", "key", "value", "black", "white", "draw", "other", "wins", "losses", "draws",
    "path", "game",
];

/// A figure of the CSV table: a count or a mean.
#[derive(Serialize)]
#[serde(untagged)]
enum Number {
    Int(u64),
    Float(f64),
}

/// One row of the CSV table, in the order of [`CSV_HEADER`]; `None` is an empty field.
#[derive(Serialize)]
struct CsvRow<'a> {
    section: &'a str,
    key: &'a str,
    value: Option<Number>,
    black: Option<u64>,
    white: Option<u64>,
    draw: Option<u64>,
    other: Option<u64>,
    wins: Option<u64>,
    losses: Option<u64>,
    draws: Option<u64>,
    path: Option<&'a str>,
    game: Option<u64>,
}

impl<'a> CsvRow<'a> {
    fn new(section: &'a str, key: &'a str) -> CsvRow<'a> {
        CsvRow {
            section,
            key,
            value: None,
            black: None,
            white: None,
            draw: None,
            other: None,
            wins: None,
            losses: None,
            draws: None,
            path: None,
            game: None,
        }
    }

    fn count(section: &'a str, key: &'a str, value: u64) -> CsvRow<'a> {
        CsvRow {
            value: Some(Number::Int(value)),
            ..CsvRow::new(section, key)
        }
    }
}
