//! The report: [`StatsReport`] and its rows, which serialise to the JSON the contract
//! describes, and its writers for people and as CSV.

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
    /// Time used per move, where recorded.
    pub time: TimeRow,
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

    /// Writes the report as CSV rows `section,key,value[,extra...]`.
    pub fn write_csv(&self, out: &mut dyn Write) -> io::Result<()> {
        let mut w = csv::WriterBuilder::new().flexible(true).from_writer(out);
        let e = |e: csv::Error| io::Error::other(e);
        w.write_record(["section", "key", "value"]).map_err(e)?;
        for (k, v) in [
            ("files", self.files),
            ("games", self.games),
            ("plies", self.plies),
        ] {
            w.write_record(["total", k, &v.to_string()]).map_err(e)?;
        }
        let r = &self.results;
        for (k, v) in [
            ("black", r.black),
            ("white", r.white),
            ("draw", r.draw),
            ("other", r.other),
        ] {
            w.write_record(["results", k, &v.to_string()]).map_err(e)?;
        }
        for (k, v) in &self.endings {
            w.write_record(["endings", k, &v.to_string()]).map_err(e)?;
        }
        for (k, v) in &self.lengths.percentiles {
            w.write_record(["lengths", k, &v.to_string()]).map_err(e)?;
        }
        for b in &self.lengths.histogram {
            w.write_record([
                "histogram",
                &format!("{}-{}", b.from, b.to),
                &b.games.to_string(),
            ])
            .map_err(e)?;
        }
        for o in &self.openings {
            let r = &o.results;
            w.write_record([
                "openings",
                &o.moves,
                &o.games.to_string(),
                &r.black.to_string(),
                &r.white.to_string(),
                &r.draw.to_string(),
                &r.other.to_string(),
            ])
            .map_err(e)?;
        }
        for p in &self.players {
            let r = &p.record;
            w.write_record([
                "players",
                &p.name,
                &r.games.to_string(),
                &r.wins.to_string(),
                &r.losses.to_string(),
                &r.draws.to_string(),
            ])
            .map_err(e)?;
        }
        for (k, v) in &self.events {
            w.write_record(["events", k, &v.to_string()]).map_err(e)?;
        }
        for (k, v) in &self.fouls {
            w.write_record(["fouls", k, &v.to_string()]).map_err(e)?;
        }
        for d in &self.duplicates {
            let w2: Vec<String> = d
                .locations
                .iter()
                .map(|l| format!("{}#{}", l.path, l.game))
                .collect();
            w.write_record(["duplicates", &w2.join(" "), &d.games.to_string()])
                .map_err(e)?;
        }
        w.write_record(["time", "timed_moves", &self.time.timed_moves.to_string()])
            .map_err(e)?;
        if let Some(s) = self.time.mean_seconds_per_move {
            w.write_record(["time", "mean_seconds_per_move", &format!("{s:.3}")])
                .map_err(e)?;
        }
        w.flush()
    }
}
