//! kifu in the browser: the library's reading, validating, drawing and converting, exported
//! to JavaScript with wasm-bindgen for the page in `web/static` (run in a Web Worker there).
//!
//! Nothing here reads a file system or starts a thread: the page hands over each dropped file's
//! bytes with the path it shows, and [`kifu_app::batch::discover::produce_bytes`] cuts them into
//! the units `kifu validate` would read from that file on disk (a zip, tar or tar.gz entry by
//! entry), so that [`Validator`] writes the same JSON Lines as `kifu validate --format json`,
//! byte for byte. (Not `#![forbid(unsafe_code)]`: the code wasm-bindgen generates for the
//! exports uses `unsafe`; this crate's own code has none.)

use std::collections::VecDeque;
use std::io::Write;
use std::path::Path;
use std::sync::LazyLock;

use kifu::formats::Format;
use kifu::validate;
use kifu_app::batch::{self, Content, Unit, discover};
use kifu_app::commands::show::{self, At};
use kifu_app::commands::{self, ConvertLine, GameLine, Reporter, Style};
use kifu_app::convert::{self, Names};
use serde::Serialize;
use wasm_bindgen::prelude::*;

/// The report options of `kifu validate --format json`.
static JSON: LazyLock<commands::Options> = LazyLock::new(|| commands::Options {
    style: Style::Json,
    ..commands::Options::default()
});

/// Every unit of a file's bytes (see [`discover::produce_bytes`]), read with the default
/// options of the command line.
fn units(path: &str, bytes: &[u8]) -> Vec<Unit> {
    let mut out = Vec::new();
    discover::produce_bytes(path, bytes, &batch::Options::default(), &mut |u| {
        out.push(u);
        true
    });
    out
}

/// `kifu validate --format json` over files handed over one at a time, in input order: each
/// file [`Validator::load`]ed is cut into units, which [`Validator::step`] validates a few at a
/// time (so that the page can show its progress through a large archive).
#[wasm_bindgen]
pub struct Validator {
    reporter: Reporter<'static>,
    queue: VecDeque<Unit>,
    loaded: usize,
}

#[wasm_bindgen]
impl Validator {
    /// A run with nothing read yet.
    #[wasm_bindgen(constructor)]
    #[allow(clippy::new_without_default)]
    pub fn new() -> Validator {
        Validator {
            reporter: Reporter::new(&JSON),
            queue: VecDeque::new(),
            loaded: 0,
        }
    }

    /// Reads the file (or archive) `path` holding `bytes` into units, after those loaded
    /// before; returns how many units it gave.
    pub fn load(&mut self, path: &str, bytes: &[u8]) -> usize {
        let units = units(path, bytes);
        let n = units.len();
        self.loaded += n;
        self.queue.extend(units);
        n
    }

    /// Units loaded and not validated yet.
    pub fn pending(&self) -> usize {
        self.queue.len()
    }

    /// Units loaded so far.
    pub fn loaded(&self) -> usize {
        self.loaded
    }

    /// Validates up to `n` of the units loaded and returns their JSON Lines: one object per
    /// game, and one per finding about a file as a whole, as the command line writes them.
    pub fn step(&mut self, n: usize) -> String {
        let mut out = Vec::new();
        let opts = validate::Options::default();
        for _ in 0..n {
            let Some(unit) = self.queue.pop_front() else {
                break;
            };
            let worked = Reporter::work(&unit, &opts, &JSON);
            // Writing to a vector does not fail.
            let _ = self.reporter.emit(&unit, worked, &mut out);
        }
        String::from_utf8_lossy(&out).into_owned()
    }

    /// [`Validator::load`], then [`Validator::step`] through everything loaded.
    pub fn file(&mut self, path: &str, bytes: &[u8]) -> String {
        self.load(path, bytes);
        self.step(usize::MAX)
    }

    /// The games read so far.
    pub fn games(&self) -> u64 {
        self.reporter.summary().games
    }

    /// The closing `{"summary": ...}` line.
    pub fn finish(self) -> String {
        let mut out = Vec::new();
        let _ = self.reporter.finish(&mut out);
        String::from_utf8_lossy(&out).into_owned()
    }
}

/// The games of the file at `entry` (the path shown: `a.zip/b.kif` for an archive entry)
/// among the units of `path`'s bytes, each with its diagnostics.
fn games_of(path: &str, bytes: &[u8], entry: &str) -> Vec<kifu::ParsedGame> {
    let mut games = Vec::new();
    for unit in units(path, bytes) {
        if unit.source.path == entry && matches!(unit.content, Content::Bytes(_)) {
            games.extend(batch::parse_unit(&unit).games);
        }
    }
    games
}

/// One game opened in the page.
#[derive(Serialize)]
struct GameView {
    /// The moves of the main line as KIF writes them (`▲７六歩(77)`), from ply 1.
    moves: Vec<String>,
    /// The board after each ply of the main line, from the start (SVG).
    boards: Vec<String>,
    /// For each diagnostic of the report (in its order): the board before its move with the
    /// move's squares marked and the finding's text, when it is about a move (of the main
    /// line or a variation).
    marked: Vec<Option<String>>,
    /// The diagnostics, as in the report.
    diagnostics: Vec<kifu::Diagnostic>,
}

/// Game `game` of the file at `entry` within the bytes of `path` (see [`Validator::file`]):
/// JSON with its moves, the board after each ply (the SVG of `kifu show`) and the board of
/// each diagnostic; `null` when there is no such game.
#[wasm_bindgen]
pub fn game(path: &str, bytes: &[u8], entry: &str, game: u32) -> String {
    let mut games = games_of(path, bytes, entry);
    let index = game as usize;
    if index >= games.len() {
        return "null".to_owned();
    }
    let mut g = games.swap_remove(index);
    let r = validate::validate_game(&mut g, &validate::Options::default());
    let at = |n: u32| show::Options {
        at: At::Ply(n),
        ..show::Options::default()
    };
    let mut moves = Vec::new();
    let mut boards = Vec::new();
    for n in 0.. {
        let Ok(shown) = show::position(&g.record, &r.diagnostics, &at(n)) else {
            break;
        };
        if n > 0 {
            moves.push(shown.diagram.last_move_text().unwrap_or_default());
        }
        boards.push(shown.diagram.svg());
    }
    // Each finding's board, as `kifu show --at-diagnostic` draws it: its text with it.
    let marked = r
        .diagnostics
        .iter()
        .map(|d| {
            let sep = if d.line.is_some() { ":" } else { ": " };
            let note = format!("{entry}{sep}{d}");
            Some(show::before_diagnostic(&g.record, d, note)?.svg())
        })
        .collect();
    let view = GameView {
        moves,
        boards,
        marked,
        diagnostics: r.diagnostics,
    };
    serde_json::to_string(&view).unwrap_or_else(|_| "null".to_owned())
}

/// The formats the page converts to, by command-line name.
#[wasm_bindgen]
pub fn formats() -> Vec<String> {
    Format::ALL.iter().map(|f| f.name().to_owned()).collect()
}

/// `kifu convert --to TARGET -o DIR` over files handed over one at a time: the outputs are
/// gathered in memory, then given as one file (a single output) or a zip of them all.
#[wasm_bindgen]
pub struct Converter {
    target: Format,
    names: Names,
    outputs: Vec<(String, Vec<u8>)>,
}

#[wasm_bindgen]
impl Converter {
    /// A conversion to the format named `target` (`kif`, `csa`, ...); an error for a name
    /// that is none.
    #[wasm_bindgen(constructor)]
    pub fn new(target: &str) -> Result<Converter, JsError> {
        let target = Format::from_name(target)
            .ok_or_else(|| JsError::new(&format!("unknown format: {target}")))?;
        Ok(Converter {
            target,
            names: Names::new(),
            outputs: Vec::new(),
        })
    }

    /// Converts every game of `path`'s bytes and returns the JSON Lines of `convert` for them
    /// (the diagnostics of each game, the lossy warnings among them, and the output's name).
    pub fn file(&mut self, path: &str, bytes: &[u8]) -> String {
        let opts = validate::Options::default();
        let write = kifu::WriteOptions::default();
        let mut out = Vec::new();
        let units = units(path, bytes);
        // The games of each file, in order; `many` when a file holds more than one.
        let mut files: Vec<(&Unit, Vec<kifu::ParsedGame>, Vec<kifu::Diagnostic>)> = Vec::new();
        for unit in &units {
            let parsed = batch::parse_unit(unit);
            match files.last_mut() {
                Some((u, games, diags)) if u.source.path == unit.source.path => {
                    games.extend(parsed.games);
                    diags.extend(parsed.diagnostics);
                }
                _ => files.push((unit, parsed.games, parsed.diagnostics)),
            }
        }
        for (unit, games, diagnostics) in files {
            let shown = unit.source.path.as_str();
            let format = unit.source.format.map(Format::name);
            if !diagnostics.is_empty() {
                let _ = ConvertLine {
                    game: GameLine::unit(shown, format, &diagnostics),
                    output: None,
                }
                .write(&mut out);
            }
            let many = games.len() > 1;
            let mut joined: Option<(String, Vec<u8>, u64)> = None;
            for (i, mut g) in games.into_iter().enumerate() {
                let c = convert::convert_game(&mut g, self.target, &opts, &write);
                let name = if c.unread {
                    None
                } else {
                    match self.names.next(
                        Path::new(""),
                        unit.source.rel.as_deref(),
                        self.target,
                        many,
                        i as u64,
                    ) {
                        Ok(p) if self.target.one_game_per_file() => {
                            let name = p.to_string_lossy().into_owned();
                            self.outputs.push((name.clone(), c.bytes));
                            Some(name)
                        }
                        Ok(p) => {
                            let j = joined.get_or_insert_with(|| {
                                (p.to_string_lossy().into_owned(), Vec::new(), 0)
                            });
                            let _ = convert::separate(&mut j.1, self.target, j.2);
                            j.1.extend_from_slice(&c.bytes);
                            j.2 += 1;
                            Some(j.0.clone())
                        }
                        Err(_) => None,
                    }
                };
                let _ = ConvertLine {
                    game: GameLine {
                        path: shown,
                        game: Some(i as u64),
                        format,
                        plies: c.plies,
                        info: &c.info,
                        result: &c.result,
                        diagnostics: &c.diagnostics,
                    },
                    output: name.as_deref(),
                }
                .write(&mut out);
            }
            if let Some((name, bytes, _)) = joined {
                self.outputs.push((name, bytes));
            }
        }
        String::from_utf8_lossy(&out).into_owned()
    }

    /// The outputs' names, in order.
    pub fn names(&self) -> Vec<String> {
        self.outputs.iter().map(|(n, _)| n.clone()).collect()
    }

    /// The bytes of output `i` (empty when there is none).
    pub fn output(&self, i: usize) -> Vec<u8> {
        self.outputs
            .get(i)
            .map(|(_, b)| b.clone())
            .unwrap_or_default()
    }

    /// Every output in one zip (deflated), named as [`Converter::names`] gives.
    pub fn zip(&self) -> Result<Vec<u8>, JsError> {
        let mut zip = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
        let options = zip::write::SimpleFileOptions::default()
            .compression_method(zip::CompressionMethod::Deflated);
        for (name, bytes) in &self.outputs {
            zip.start_file(name.as_str(), options)
                .map_err(|e| JsError::new(&e.to_string()))?;
            zip.write_all(bytes)
                .map_err(|e| JsError::new(&e.to_string()))?;
        }
        let cursor = zip.finish().map_err(|e| JsError::new(&e.to_string()))?;
        Ok(cursor.into_inner())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const USI: &str = "startpos moves 7g7f 3c3d 8h2b+ 3a2b\nstartpos moves 7g7f 7g7f\n";

    #[test]
    fn the_report_of_bytes_names_each_game_and_closes_with_the_summary() {
        let mut v = Validator::new();
        let lines = v.file("a.usi", USI.as_bytes());
        let lines: Vec<serde_json::Value> = lines
            .lines()
            .map(|l| serde_json::from_str(l).expect("json"))
            .collect();
        assert_eq!(lines.len(), 2);
        assert_eq!(lines[0]["path"], "a.usi");
        assert_eq!(lines[1]["game"], 1);
        assert_eq!(lines[0]["plies"], 4);
        let codes: Vec<&str> = lines[1]["diagnostics"]
            .as_array()
            .expect("array")
            .iter()
            .filter_map(|d| d["code"].as_str())
            .collect();
        assert!(!codes.is_empty(), "the second game has an illegal move");
        assert_eq!(v.games(), 2);
        assert!(
            v.finish()
                .starts_with("{\"summary\":{\"files\":1,\"games\":2,")
        );
    }

    #[test]
    fn a_zip_is_read_entry_by_entry_under_its_name() {
        let mut zip = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
        let o = zip::write::SimpleFileOptions::default();
        zip.start_file("d/one.usi", o).expect("start");
        zip.write_all(USI.as_bytes()).expect("write");
        zip.start_file("notes.txt", o).expect("start");
        zip.write_all(b"not a record").expect("write");
        let bytes = zip.finish().expect("finish").into_inner();
        let mut v = Validator::new();
        let lines = v.file("games.zip", &bytes);
        assert_eq!(lines.lines().count(), 2);
        assert!(lines.starts_with("{\"path\":\"games.zip/d/one.usi\",\"game\":0,"));
        let view = game("games.zip", &bytes, "games.zip/d/one.usi", 1);
        let view: serde_json::Value = serde_json::from_str(&view).expect("json");
        assert!(view["boards"][0].as_str().expect("svg").starts_with("<svg"));
        assert!(
            view["marked"]
                .as_array()
                .expect("array")
                .iter()
                .any(|m| m.is_string())
        );
        assert_eq!(game("games.zip", &bytes, "games.zip/d/one.usi", 2), "null");
    }

    #[test]
    fn a_game_view_has_a_board_per_ply_and_the_moves_as_kif_writes_them() {
        let view = game("a.usi", USI.as_bytes(), "a.usi", 0);
        let view: serde_json::Value = serde_json::from_str(&view).expect("json");
        assert_eq!(view["boards"].as_array().expect("boards").len(), 5);
        assert_eq!(view["moves"][0], "▲７六歩(77)");
    }

    #[test]
    fn conversion_names_outputs_and_joins_the_games_of_a_multi_game_target() {
        let Ok(mut c) = Converter::new("kifu") else {
            panic!("kifu is a format")
        };
        let lines = c.file("a.usi", USI.as_bytes());
        assert_eq!(
            c.names(),
            vec!["a-0.kifu".to_owned(), "a-1.kifu".to_owned()]
        );
        assert!(lines.contains("\"output\":\"a-0.kifu\""));
        assert!(
            String::from_utf8(c.output(0))
                .expect("utf-8")
                .contains("７六歩")
        );
        let Ok(mut csa) = Converter::new("csa") else {
            panic!("csa is a format")
        };
        csa.file("b.kifu", &c.output(0));
        assert_eq!(csa.names(), vec!["b.csa".to_owned()]);
        let Ok(zip) = csa.zip() else {
            panic!("the zip is written")
        };
        assert_eq!(&zip[..2], b"PK");
    }
}
