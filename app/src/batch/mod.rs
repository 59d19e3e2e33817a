//! The batch engine: find the inputs (files, directories, archives, standard input), cut them
//! into units of work, run a function over the units in parallel and hand the results back in
//! input order, whatever the number of threads.
//!
//! Memory stays flat as an archive grows: a reader thread streams units into a bounded queue,
//! the workers take one unit at a time, and the number of units read but not yet emitted is
//! bounded.
//!
//! Paths inside archives are shown as `archive.zip/inner/path.kif` (the archive path, a `/`,
//! then the entry name as stored).

use std::io;
use std::path::PathBuf;
use std::sync::Arc;

use kifu::diag::{Code, Diagnostic};
use kifu::formats::text::DecodedText;
use kifu::formats::{self, Format, ParsedGame, ReadOptions};
use kifu::validate;

pub mod atomic;
pub mod discover;
mod engine;

#[cfg(feature = "testing")]
pub use engine::PANIC_ON_PURPOSE;
pub use engine::run;

/// The encoding a user forces with `--encoding` ([`Options::encoding`]): the formats' own type.
pub use kifu::formats::TextEncoding as Encoding;

/// One input named on the command line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Input {
    /// A file, directory or archive.
    Path(PathBuf),
    /// Standard input (`-`, or no path at all).
    Stdin,
}

impl Input {
    /// `-` is standard input; anything else a path.
    pub fn from_arg(arg: &str) -> Input {
        if arg == "-" {
            Input::Stdin
        } else {
            Input::Path(PathBuf::from(arg))
        }
    }

    /// [`Input::from_arg`] for an argument that need not be UTF-8 (a file name of another
    /// encoding, as Linux allows): the path is kept byte for byte.
    pub fn from_os_arg(arg: &std::ffi::OsStr) -> Input {
        if arg == "-" {
            Input::Stdin
        } else {
            Input::Path(PathBuf::from(arg))
        }
    }
}

/// How to read inputs and how many threads to use.
#[derive(Debug, Clone)]
pub struct Options {
    /// Worker threads; 0 means one per core.
    pub jobs: usize,
    /// Read every input in this encoding instead of detecting it.
    pub encoding: Option<Encoding>,
    /// Read every input as this format instead of detecting it.
    pub input_format: Option<Format>,
    /// The most bytes read from one file or stdin.
    pub max_bytes: u64,
    /// The most bytes one archive entry may expand to (zip-bomb guard).
    pub max_entry_bytes: u64,
    /// The most an archive may expand relative to its compressed size (zip-bomb guard): a zip
    /// entry is refused once it has expanded to more than [`Options::ratio_free_bytes`] and
    /// more than this many times its compressed size; a whole archive (zip or tar.gz) stops
    /// once its entries together pass [`Options::ratio_free_bytes`] and this many times the
    /// archive file's size. 0 means no bound. The default is [`MAX_EXPANSION_RATIO`].
    pub max_expansion_ratio: u64,
    /// Expansion always allowed, whatever the ratio (see [`Options::max_expansion_ratio`]);
    /// the default is [`RATIO_FREE_BYTES`].
    pub ratio_free_bytes: u64,
    /// The most bytes one game may take: a whole one-game file (KIF, KI2, JKF), one CSA game
    /// between `/` lines, one USI line. Bounds the memory a single hostile game can use (a
    /// read game takes tens of times its size); the default is [`MAX_GAME_BYTES`].
    pub max_game_bytes: u64,
    /// A directory (canonical path) never searched: `convert`'s output directory when it lies
    /// inside an input directory, so outputs are not read back as inputs.
    pub exclude: Option<PathBuf>,
    /// How much may be read and not yet emitted, in permits: a unit takes one, and one more
    /// per 16 KiB it holds (a file listed for a worker to read holds nothing yet); 0: the
    /// default, 512 and 128 per worker (about 640 small files per worker, or 16 chunks of
    /// 512 KiB). A job whose results are much bigger than its input, or whose emitting is the
    /// slow part (the positions table), takes a smaller window to keep its memory flat.
    pub window: usize,
    /// Target size of the chunks a multi-game file (CSA, USI) is cut into; 0: the default,
    /// [`CHUNK_BYTES`](discover::CHUNK_BYTES). Bigger chunks mean fewer hand-overs between
    /// threads; a job whose results are much bigger than its input (the positions table)
    /// takes smaller ones, each weighing on its memory.
    pub chunk_bytes: usize,
}

/// Default for [`Options::max_game_bytes`]: 4 MiB, forty times the largest real record seen
/// (a commented game with variations, 100 kB). A game read takes up to about 50 times its
/// size in memory (a USI move of 5 bytes becomes a move node), so each worker stays near
/// 200 MB at worst.
pub const MAX_GAME_BYTES: u64 = 4 << 20;

/// Default for [`Options::max_expansion_ratio`]: 50. Shogi records compress 3 to 10 times
/// with deflate (the shared corpus, file by file: KIF 2.9, CSA 3.6, KI2 3.9, JKF 8.6 on
/// average; the most compressible file, a small JKF, 26), and the bound only ever applies
/// past [`RATIO_FREE_BYTES`], which one-game files (at most [`MAX_GAME_BYTES`]) never reach:
/// only multi-game CSA and USI entries do (3 to 4 times). A bomb (deflate reaches 300 to 1000
/// times on repeated text) is stopped after a twentieth or less of its expansion: a 1 MB zip
/// makes at most 50 MB of text, under 2 s of work.
pub const MAX_EXPANSION_RATIO: u64 = 50;

/// Default for [`Options::ratio_free_bytes`]: 16 MiB. Any entry or archive may expand this far
/// whatever its ratio, so small archives of very repetitive records are never refused; it is
/// four times the one-game limit and reads in well under a second.
pub const RATIO_FREE_BYTES: u64 = 16 << 20;

impl Default for Options {
    fn default() -> Self {
        Options {
            jobs: 0,
            encoding: None,
            input_format: None,
            max_bytes: u64::MAX,
            max_entry_bytes: 1 << 32,
            max_expansion_ratio: MAX_EXPANSION_RATIO,
            ratio_free_bytes: RATIO_FREE_BYTES,
            max_game_bytes: MAX_GAME_BYTES,
            exclude: None,
            window: 0,
            chunk_bytes: 0,
        }
    }
}

impl Options {
    /// The chunk size in force ([`Options::chunk_bytes`], or its default).
    pub(crate) fn chunk(&self) -> usize {
        if self.chunk_bytes == 0 {
            discover::CHUNK_BYTES
        } else {
            self.chunk_bytes
        }
    }

    /// The worker threads in force: [`Options::jobs`], or one per core when it is 0.
    pub fn threads(&self) -> usize {
        match self.jobs {
            0 => std::thread::available_parallelism().map_or(1, usize::from),
            n => n,
        }
    }
}

/// Where a unit comes from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Source {
    /// The path as shown to users (`dir/a.kif`, `games.zip/2024/a.kif`, `<stdin>`); a byte
    /// of a file name that is not UTF-8 is shown as `\xNN` ([`discover::display_path`]).
    pub path: String,
    /// The path relative to its input root, made only of normal components; `None` when the
    /// name is unsafe (absolute, `..`) or unknown. `convert -o DIR` mirrors this.
    pub rel: Option<PathBuf>,
    /// The format, from `--input-format`, the extension, or a look at the start.
    pub format: Option<Format>,
    /// The format the extension names when the content is plainly another (then `format` is
    /// the content's, and a `format-mismatch` warning names both); never with `--input-format`.
    pub named_format: Option<Format>,
    /// The file on disk, when the unit is a plain file.
    pub file: Option<PathBuf>,
    /// Whether the path was named on the command line (not found inside one).
    pub top_level: bool,
}

impl Source {
    /// A source known only by the path shown to users (an input or entry that could not be
    /// read: no relative path to mirror, no format, no file).
    pub fn named(path: String, top_level: bool) -> Source {
        Source {
            path,
            rel: None,
            format: None,
            named_format: None,
            file: None,
            top_level,
        }
    }
}

/// What a unit holds.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Content {
    /// Raw bytes of a whole file, or of a run of whole games of a multi-game file.
    Bytes(Vec<u8>),
    /// The file or entry could not be read.
    Failed(Diagnostic),
    /// Not read yet: a file on disk ([`Source::file`]) that a worker of [`run`] reads
    /// before its `work` sees the unit (so that many small files are read in parallel).
    /// [`discover::produce`] and the `work` and `emit` functions of [`run`] never see one.
    Pending,
    /// A small zip entry not inflated yet: its stored bytes, which a worker of [`run`]
    /// inflates and checks before its `work` sees the unit (so that the entries of a zip are
    /// inflated in parallel). Seen no more than [`Content::Pending`].
    Zipped(Box<ZippedEntry>),
}

/// The stored bytes of a zip entry and what its header says of them (see
/// [`Content::Zipped`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ZippedEntry {
    /// Deflated (else stored as it is).
    pub(crate) deflated: bool,
    /// The bytes as stored in the archive.
    pub(crate) data: Vec<u8>,
    /// The size the header gives once inflated.
    pub(crate) size: u64,
    /// The CRC-32 the header gives.
    pub(crate) crc32: u32,
}

/// One unit of work: a file, or a chunk of whole games of a multi-game file.
#[derive(Debug, Clone)]
pub struct Unit {
    /// Where it comes from.
    pub source: Arc<Source>,
    /// Its bytes, or why there are none.
    pub content: Content,
    /// Lines of the file before this chunk (added to every line number found in it).
    pub first_line: u32,
    /// Index of this chunk within its file.
    pub chunk: u32,
    /// Whether this is the file's last chunk.
    pub last: bool,
    /// The encoding to decode with (forced, or detected on the file's first chunk).
    pub encoding: Option<Encoding>,
}

/// The games read from one unit.
#[derive(Debug, Clone)]
pub struct ParsedUnit {
    /// The format used.
    pub format: Option<Format>,
    /// The games, with line numbers counted from the start of the file.
    pub games: Vec<ParsedGame>,
    /// Findings about the unit as a whole (`io`, `encoding`, an unknown format, no game).
    pub diagnostics: Vec<Diagnostic>,
    /// The encoding the bytes were decoded in (`None` when they were not read).
    pub encoding: Option<Encoding>,
}

impl Unit {
    /// How to read the unit's bytes: as its source's format (from `--input-format`, the
    /// extension or a look at the file's start) when it has one, else as its content says, in
    /// the unit's encoding when it has one.
    pub fn read_options(&self) -> ReadOptions {
        ReadOptions {
            format: self.source.format,
            hint: None,
            encoding: self.encoding,
        }
    }
}

/// Decodes and parses a unit. Encoding problems go to the game whose text holds them.
pub fn parse_unit(unit: &Unit) -> ParsedUnit {
    if let Some(d) = blank_input(unit) {
        return ParsedUnit {
            format: unit.source.format,
            games: Vec::new(),
            diagnostics: vec![d],
            encoding: None,
        };
    }
    let bytes = match &unit.content {
        Content::Failed(d) => {
            return ParsedUnit {
                format: unit.source.format,
                games: Vec::new(),
                diagnostics: vec![d.clone()],
                encoding: None,
            };
        }
        Content::Bytes(b) => b,
        Content::Pending | Content::Zipped(_) => {
            let d = Diagnostic::new(Code::Io, "the unit was not read (batch::run reads it)");
            return ParsedUnit {
                format: unit.source.format,
                games: Vec::new(),
                diagnostics: vec![d],
                encoding: None,
            };
        }
    };
    parse_decoded(unit, formats::read_bytes(bytes, &unit.read_options()))
}

/// The `empty-input` warning for a whole file with nothing in it but blank lines (after a
/// BOM), in every format alike.
fn blank_input(unit: &Unit) -> Option<Diagnostic> {
    let Content::Bytes(bytes) = &unit.content else {
        return None;
    };
    if unit.chunk != 0 || !unit.last {
        return None;
    }
    let body = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
    let blank = match body {
        // UTF-16: every code unit a blank.
        [0xFF, 0xFE, rest @ ..] => utf16_blank(rest, |u| [u[0], u[1]]),
        [0xFE, 0xFF, rest @ ..] => utf16_blank(rest, |u| [u[1], u[0]]),
        _ => body.iter().all(u8::is_ascii_whitespace),
    };
    if !blank {
        return None;
    }
    let body = match body {
        [0xFF, 0xFE, rest @ ..] | [0xFE, 0xFF, rest @ ..] => rest,
        _ => body,
    };
    let what = if body.is_empty() {
        "the file is empty"
    } else {
        "the file holds only blank lines"
    };
    Some(Diagnostic::new(Code::EmptyInput, what))
}

/// Whether UTF-16 bytes (after the BOM) are blanks only; `le` gives a code unit's bytes
/// low first.
fn utf16_blank(b: &[u8], le: impl Fn(&[u8]) -> [u8; 2]) -> bool {
    b.len().is_multiple_of(2)
        && b.chunks_exact(2).all(|u| {
            let [lo, hi] = le(u);
            hi == 0 && lo.is_ascii_whitespace()
        })
}

/// [`parse_unit`] after reading: line numbers counted from the start of the file, and the
/// unit's own findings (an unknown format, no game in a file's first chunk).
fn parse_decoded(unit: &Unit, decoded: formats::Decoded) -> ParsedUnit {
    let formats::Decoded {
        format,
        mut games,
        mut diagnostics,
        encoding,
    } = decoded;
    for d in &mut diagnostics {
        d.shift_line(unit.first_line);
    }
    for g in &mut games {
        g.shift_lines(unit.first_line);
    }
    discover::note_mismatch(
        unit,
        games.first_mut().map(|g| &mut g.diagnostics),
        &mut diagnostics,
    );
    match format {
        None => diagnostics.push(Diagnostic::new(
            Code::Syntax,
            "cannot tell the record format (use --input-format)",
        )),
        Some(_) if games.is_empty() && unit.chunk == 0 => {
            diagnostics.push(Diagnostic::new(Code::Syntax, "no game found"));
        }
        Some(_) => {}
    }
    ParsedUnit {
        format,
        games,
        diagnostics,
        encoding: Some(encoding),
    }
}

/// The games of one unit, each judged: a report ([`ValidatedUnit`]), or a report and the
/// game's digest ([`GatheredUnit`]).
#[derive(Debug, Clone)]
pub struct JudgedUnit<T> {
    /// The format used.
    pub format: Option<Format>,
    /// The encoding the bytes were decoded in (`None` when they were not read).
    pub encoding: Option<Encoding>,
    /// Every game, in order, with line numbers counted from the start of the file.
    pub games: Vec<T>,
    /// Findings about the unit as a whole (`io`, an unknown format, no game), as in
    /// [`ParsedUnit::diagnostics`].
    pub diagnostics: Vec<Diagnostic>,
    /// Whether the games were judged as their reader read the unit's text (which decoded
    /// cleanly, in a format told), not from records read first.
    pub as_read: bool,
}

/// The reports of the games of one unit.
pub type ValidatedUnit = JudgedUnit<validate::Report>;

/// The games of one unit with their digests ([`validate::Digest`]), for the rows of a table.
pub type GatheredUnit = JudgedUnit<(validate::Report, validate::Digest)>;

/// Decodes, reads and validates a unit: the reports of [`parse_unit`] followed by
/// [`validate::validate_game`] on each game. The decoding and reading policy is
/// `validate`'s (the judge over each format's reader where the text decodes cleanly); the
/// unit adds its line numbers and its own findings.
pub fn validate_unit(unit: &Unit, opts: &validate::Options) -> ValidatedUnit {
    judge_unit(
        unit,
        |bytes, read| validate::validate_bytes(bytes, read, opts),
        |mut g| validate::validate_game(&mut g, opts),
        |r| r,
    )
}

/// [`validate_unit`] with each game's digest, which `gather` says how much of to gather
/// ([`validate::gather_text`]; [`validate::digest`] of the records of a unit whose text does
/// not decode cleanly).
pub fn gather_unit(
    unit: &Unit,
    opts: &validate::Options,
    gather: validate::Gather,
) -> GatheredUnit {
    judge_unit(
        unit,
        |bytes, read| validate::gather_bytes(bytes, read, opts, gather),
        |mut g| validate::digest(&mut g, opts, gather),
        |g| &mut g.0,
    )
}

/// The games of a unit, each judged: as the unit's text is read (`judge`), where it decodes
/// cleanly and its format is told; else decoded with the decoder's findings, read into
/// records, and each record judged (`record`). `report` is a game's report, whose line
/// numbers are counted from the start of the file.
fn judge_unit<T>(
    unit: &Unit,
    judge: impl FnOnce(&[u8], &ReadOptions) -> Result<(validate::TextRead, Vec<T>), DecodedText>,
    record: impl FnMut(ParsedGame) -> T,
    report: fn(&mut T) -> &mut validate::Report,
) -> JudgedUnit<T> {
    if let Some(d) = blank_input(unit) {
        return JudgedUnit {
            format: unit.source.format,
            encoding: None,
            games: Vec::new(),
            diagnostics: vec![d],
            as_read: false,
        };
    }
    let parsed = match &unit.content {
        Content::Bytes(bytes) => {
            let read = unit.read_options();
            match judge(bytes, &read) {
                Ok((how, mut games)) => {
                    for g in &mut games {
                        for d in &mut report(g).diagnostics {
                            d.shift_line(unit.first_line);
                        }
                    }
                    let mut diagnostics = Vec::new();
                    let first = games.first_mut().map(|g| &mut report(g).diagnostics);
                    discover::note_mismatch(unit, first, &mut diagnostics);
                    if games.is_empty() && unit.chunk == 0 {
                        diagnostics.push(Diagnostic::new(Code::Syntax, "no game found"));
                    }
                    return JudgedUnit {
                        format: Some(how.format),
                        encoding: Some(how.encoding),
                        games,
                        diagnostics,
                        as_read: true,
                    };
                }
                // Findings of the decoder go with the games that hold them, through the reader.
                Err(decoded) => parse_decoded(unit, formats::read_decoded(decoded, &read)),
            }
        }
        _ => parse_unit(unit),
    };
    JudgedUnit {
        format: parsed.format,
        encoding: parsed.encoding,
        games: parsed.games.into_iter().map(record).collect(),
        diagnostics: parsed.diagnostics,
        as_read: false,
    }
}

/// What watches a run as its units are emitted (a progress bar, in the command line): the
/// drivers above this module ([`commands::validate`](crate::commands::validate),
/// [`convert::run`](crate::convert::run)) tell it of each unit, in input order. `()` watches
/// nothing.
pub trait Observer {
    /// One unit done: `games` games read from `bytes` bytes of input (see [`Unit::len`]);
    /// `file_done` when it was its file's last unit.
    fn unit_done(&mut self, games: u64, bytes: u64, file_done: bool);

    /// Flushes `out` if output lines and what the observer draws would otherwise mix (a bar
    /// on the same terminal); by default does nothing (the writer flushes when its buffer
    /// fills).
    fn flush(&mut self, out: &mut dyn io::Write) -> io::Result<()> {
        let _ = out;
        Ok(())
    }

    /// The run is over (also after a failed one).
    fn finish(&mut self) {}
}

impl Observer for () {
    fn unit_done(&mut self, _games: u64, _bytes: u64, _file_done: bool) {}
}

impl Unit {
    /// Bytes of input the unit holds (0 when it could not be read).
    pub fn len(&self) -> u64 {
        match &self.content {
            Content::Bytes(b) => b.len() as u64,
            Content::Failed(_) | Content::Pending | Content::Zipped(_) => 0,
        }
    }

    /// Whether the unit holds no bytes.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

#[cfg(test)]
mod tests;
