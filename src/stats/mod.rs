//! Statistics over many games: fold one small [`GameSummary`] per game into [`Stats`].
//!
//! A summary holds only what the statistics need (no moves beyond the opening, a 64-bit hash
//! of the start and moves for duplicates), so memory grows with the number of distinct
//! players, openings and games' hashes, not with the records.

use std::collections::hash_map::DefaultHasher;
use std::collections::{BTreeMap, HashMap};
use std::hash::{Hash, Hasher};
use std::io::{self, Write};
use std::sync::Arc;

use serde::Serialize;

use crate::core::Handicap;
use crate::diag::{Code, Diagnostic};
use crate::record::{NodeKind, Record, StartPosition};
use crate::validate::{GameResult, Winner};

/// How to summarise.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Options {
    /// Plies that make an opening.
    pub opening_plies: usize,
    /// Openings listed.
    pub top_openings: usize,
    /// Players listed (most games first).
    pub top_players: usize,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            opening_plies: 8,
            top_openings: 20,
            top_players: 50,
        }
    }
}

/// What the statistics need from one game.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GameSummary {
    /// Moves of the main line.
    pub plies: u32,
    /// The recorded result.
    pub result: GameResult,
    /// The first plies, as USI (or as written where unresolved), space-separated; `None` when
    /// the game is shorter than the opening length.
    pub opening: Option<String>,
    /// Black's and White's players.
    pub players: [Option<String>; 2],
    /// The event (棋戦 / `$EVENT`).
    pub event: Option<String>,
    /// Diagnostic codes found.
    pub codes: Vec<Code>,
    /// Hash of the start position and the main line's moves.
    pub hash: u64,
    /// Time used by the moves that record it: (moves, milliseconds).
    pub time: (u64, u64),
}

impl GameSummary {
    /// Summarises a replayed record and its diagnostics.
    pub fn new(
        record: &Record,
        result: &GameResult,
        diagnostics: &[Diagnostic],
        opts: &Options,
    ) -> GameSummary {
        let mut hasher = DefaultHasher::new();
        // The start by its SFEN board, side and hands (not the move number, and not how the
        // record wrote it: a preset and the same position set up square by square are equal).
        let sfen = record.start.to_setup().to_sfen();
        let fields: Vec<&str> = sfen.split(' ').take(3).collect();
        fields.hash(&mut hasher);
        let mut opening = String::new();
        let mut n = 0usize;
        let mut time = (0u64, 0u64);
        for node in &record.moves {
            if let NodeKind::Move { text, resolved } = &node.kind {
                match resolved {
                    Some(m) => {
                        m.hash(&mut hasher);
                        if n < opts.opening_plies {
                            if n > 0 {
                                opening.push(' ');
                            }
                            opening.push_str(&m.to_usi());
                        }
                    }
                    None => {
                        text.raw.hash(&mut hasher);
                        if n < opts.opening_plies {
                            if n > 0 {
                                opening.push(' ');
                            }
                            opening.push_str(&text.raw);
                        }
                    }
                }
                n += 1;
            }
            if let Some(ms) = node.time.and_then(|t| t.elapsed_ms) {
                time.0 += 1;
                time.1 = time.1.saturating_add(ms);
            }
        }
        let name = |c| {
            record
                .header
                .player(c)
                .map(str::trim)
                .filter(|s| !s.is_empty())
                .map(str::to_owned)
        };
        let players = [
            name(crate::core::Color::Black),
            name(crate::core::Color::White),
        ];
        // Openings are compared from the same start: the even game as is, a handicap named
        // before its moves, any other position not at all.
        let start = match &record.start {
            StartPosition::Preset(h) => Some(*h),
            StartPosition::Setup(s) => Handicap::recognise(s),
        };
        let start_name = start.map(|h| match h {
            Handicap::Even => String::new(),
            h => format!("{}: ", h.kif_name()),
        });
        GameSummary {
            plies: record.plies(),
            result: result.clone(),
            opening: start_name
                .filter(|_| n >= opts.opening_plies && opts.opening_plies > 0)
                .map(|prefix| prefix + &opening),
            players,
            event: record
                .header
                .event()
                .or_else(|| record.header.get("$EVENT"))
                .map(str::to_owned),
            codes: diagnostics.iter().map(|d| d.code).collect(),
            hash: hasher.finish(),
            time,
        }
    }
}

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
    fn add(&mut self, w: Option<Winner>) {
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
    timed_moves: u64,
    time_ms: u64,
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
        openings.truncate(opts.top_openings);
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
        players.truncate(opts.top_players);
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

#[cfg(test)]
mod tests {
    use super::*;

    fn summary(plies: u32, winner: Option<Winner>, hash: u64, opening: &str) -> GameSummary {
        GameSummary {
            plies,
            result: GameResult {
                recorded: Some("TORYO".into()),
                winner,
            },
            opening: Some(opening.into()),
            players: [Some("A".into()), Some("B".into())],
            event: Some("E".into()),
            codes: vec![Code::Nifu],
            hash,
            time: (2, 3000),
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
                let r = crate::validate::validate_game(&mut g, &Default::default());
                GameSummary::new(&g.record, &r.result, &r.diagnostics, &opts)
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
        ] {
            assert!(json.get(key).is_some(), "missing {key}");
        }
    }
}
