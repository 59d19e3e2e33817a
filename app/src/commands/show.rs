//! `kifu show`: one game's position at a ply, as a [`Diagram`] (BOD, SVG or SFEN), and the
//! boards that `validate --show-board` prints under its diagnostics.
//!
//! The game is read and validated (which resolves its moves and finds its diagnostics), then
//! its main line is followed to the ply asked for ([`MainLine`]): a foul is played on, as
//! `validate` replays it; the line ends at its special move or at a move that cannot be
//! carried out.
//!
//! Layer: commands (reads through `formats`, validates, draws with `formats::diagram`).

use std::ffi::OsStr;
use std::fmt;
use std::io::{self, Write};
use std::path::{Path, PathBuf};

use crate::batch::atomic::{AtomicFile, PersistError};
use crate::batch::{self, Content, Input};
use kifu::core::{Handicap, Move, Square};
use kifu::diag::Diagnostic;
use kifu::formats::diagram::{Diagram, LastMove};
use kifu::formats::{Format, ParsedGame, TextEncoding};
use kifu::record::line::MainLine;
use kifu::record::{Record, StartPosition};
use kifu::validate;

/// Which position of the main line to show.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum At {
    /// After this many moves (0: the start).
    Ply(u32),
    /// After the last move of the main line.
    #[default]
    Last,
    /// Before the move of the game's first error (else first warning) found at a move of the
    /// main line, with that move's squares marked.
    Diagnostic,
}

/// What to show and how to read the file.
#[derive(Debug, Clone, Default)]
pub struct Options {
    /// The position.
    pub at: At,
    /// Draw from White's side.
    pub flip: bool,
    /// Read as this format (`--input-format`); default by extension, then by content.
    pub format: Option<Format>,
    /// Decode in this encoding (`--encoding`).
    pub encoding: Option<TextEncoding>,
    /// How to judge the record (for [`At::Diagnostic`]).
    pub validate: validate::Options,
}

/// A file and a game in it, as `FILE[:GAME]` names them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Target {
    /// The file (`-`: standard input).
    pub path: PathBuf,
    /// The game's index in the file, from 0.
    pub game: u64,
}

impl Target {
    /// Reads `FILE[:GAME]`. A path that exists as given is the file, whatever it holds (a
    /// `:` included), and the game is 0; otherwise a `:N` at the end, N digits, names game N
    /// of the file before it. `-` and `-:N` are standard input.
    pub fn parse(arg: &OsStr) -> Target {
        let whole = Target {
            path: PathBuf::from(arg),
            game: 0,
        };
        if arg == "-" || Path::new(arg).exists() {
            return whole;
        }
        let bytes = arg.as_encoded_bytes();
        let Some(colon) = bytes.iter().rposition(|&b| b == b':') else {
            return whole;
        };
        let (file, digits) = (&bytes[..colon], &bytes[colon + 1..]);
        let game = std::str::from_utf8(digits)
            .ok()
            .filter(|d| !d.is_empty() && d.bytes().all(|b| b.is_ascii_digit()))
            .and_then(|d| d.parse::<u64>().ok());
        match game {
            // Splitting at an ASCII colon keeps both halves valid encoded bytes.
            Some(game) if !file.is_empty() => Target {
                path: os_path(arg, colon),
                game,
            },
            _ => whole,
        }
    }
}

/// The part of `arg` before byte `end` (an ASCII `:`), as a path.
fn os_path(arg: &OsStr, end: usize) -> PathBuf {
    #[cfg(unix)]
    {
        use std::os::unix::ffi::OsStrExt;
        PathBuf::from(OsStr::from_bytes(&arg.as_bytes()[..end]))
    }
    #[cfg(not(unix))]
    {
        let _ = end;
        let s = arg.to_string_lossy();
        PathBuf::from(s.rsplit_once(':').map_or(&*s, |(a, _)| a))
    }
}

/// Why nothing could be shown.
#[derive(Debug)]
pub enum ShowError {
    /// The file could not be read.
    Io(PathBuf, io::Error),
    /// The file holds fewer games.
    NoSuchGame {
        /// Games found in the file.
        games: usize,
    },
    /// The main line ends before the ply asked for.
    TooShort {
        /// Plies the main line could be followed for.
        plies: u32,
    },
    /// The start position cannot be set up at all.
    BadStart(String),
    /// `--at-diagnostic` on a game without a diagnostic at a move of its main line, with how
    /// many there are in its variations.
    NoDiagnostic {
        /// Diagnostics about moves of variations.
        in_variations: usize,
    },
}

impl fmt::Display for ShowError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ShowError::Io(p, e) => write!(f, "cannot read {}: {e}", p.display()),
            ShowError::NoSuchGame { games } => write!(
                f,
                "no such game: the file holds {games} game(s), numbered from 0"
            ),
            ShowError::TooShort { plies } => {
                write!(f, "the main line can be followed for {plies} plies only")
            }
            ShowError::BadStart(why) => write!(f, "the start position cannot be set up: {why}"),
            ShowError::NoDiagnostic { in_variations: 0 } => {
                f.write_str("the game has no diagnostic at a move")
            }
            ShowError::NoDiagnostic { in_variations: n } => write!(
                f,
                "the game has no diagnostic at a move of its main line; {n} in its variations \
                 (`kifu validate` names them, with the ply each variation branches off at)"
            ),
        }
    }
}

impl std::error::Error for ShowError {}

/// The position shown, with where it is.
#[derive(Debug, Clone)]
pub struct Shown {
    /// The drawing.
    pub diagram: Diagram,
    /// Plies played to reach it (of the main line, or of the variation followed to a
    /// diagnostic in one).
    pub ply: u32,
    /// The diagnostic shown with [`At::Diagnostic`].
    pub diagnostic: Option<Diagnostic>,
}

/// Reads game `target.game` of `target.path` and finds the position `opts.at` asks for. The
/// file is read as the batch commands read it, a chunk of whole games at a time, and only up
/// to the chunk that holds the game: memory stays flat however long the file, and game 0 of a
/// huge one comes at once.
pub fn show(target: &Target, opts: &Options) -> Result<Shown, ShowError> {
    let input = if target.path == Path::new("-") {
        Input::Stdin
    } else {
        // The file's own error (no such file, a directory...), as the OS words it.
        std::fs::File::open(&target.path)
            .and_then(|f| f.metadata())
            .and_then(|m| match m.is_dir() {
                true => Err(io::Error::new(
                    io::ErrorKind::IsADirectory,
                    "Is a directory",
                )),
                false => Ok(()),
            })
            .map_err(|e| ShowError::Io(target.path.clone(), e))?;
        Input::Path(target.path.clone())
    };
    let batch_opts = batch::Options {
        jobs: 1,
        input_format: opts.format,
        encoding: opts.encoding,
        ..batch::Options::default()
    };
    let want = target.game;
    let mut seen = 0u64;
    let mut found: Option<ParsedGame> = None;
    let mut failed: Option<String> = None;
    // An error that only stops the run: the game is found, or the file could not be read.
    let stop = || io::Error::other("stop");
    let run = batch::run(&[input], &batch_opts, batch::parse_unit, |unit, parsed| {
        if let Content::Failed(d) = &unit.content {
            failed = Some(d.message.clone());
            return Err(stop());
        }
        let n = parsed.games.len() as u64;
        if want < seen + n {
            found = parsed.games.into_iter().nth((want - seen) as usize);
            return Err(stop());
        }
        seen += n;
        Ok(())
    });
    if let Some(why) = failed {
        return Err(ShowError::Io(target.path.clone(), io::Error::other(why)));
    }
    let Some(mut game) = found else {
        if let Err(e) = run {
            return Err(ShowError::Io(target.path.clone(), e));
        }
        return Err(ShowError::NoSuchGame {
            games: usize::try_from(seen).unwrap_or(usize::MAX),
        });
    };
    let report = validate::validate_game(&mut game, &opts.validate);
    position(&game.record, &report.diagnostics, opts)
}

/// The position of `record` that `opts.at` asks for (its moves resolved by a replay, its
/// diagnostics those of the replay).
pub fn position(
    record: &Record,
    diagnostics: &[Diagnostic],
    opts: &Options,
) -> Result<Shown, ShowError> {
    let start = MainLine::new(record).map_err(|e| ShowError::BadStart(e.to_string()))?;
    let mut line = start.clone();
    let mut shown = None;
    match opts.at {
        At::Ply(n) => {
            if !line.advance_to(n) {
                return Err(ShowError::TooShort { plies: line.ply() });
            }
        }
        At::Last => while line.advance().is_some() {},
        At::Diagnostic => {
            // The main line's first finding, else a variation's (its position is on the
            // variation: the message says from which ply).
            let (d, l) = first_at_move(&start, diagnostics)
                .or_else(|| first_in_variation(&start, diagnostics))
                .ok_or(ShowError::NoDiagnostic {
                    in_variations: diagnostics
                        .iter()
                        .filter(|d| !d.variation.is_empty())
                        .count(),
                })?;
            line = l;
            shown = Some(d.clone());
        }
    }
    let mut diagram = drawn(&line, record).flipped(opts.flip);
    if let Some(d) = &shown {
        diagram = diagram.mark(squares_of(d));
    }
    Ok(Shown {
        diagram,
        ply: line.ply(),
        diagnostic: shown,
    })
}

/// The first error (else the first warning) about a move of the main line, with the line
/// before that move. A diagnostic whose move is not the main line's move at its ply is about
/// a variation, and skipped.
fn first_at_move<'d, 'r>(
    start: &MainLine<'r>,
    diagnostics: &'d [Diagnostic],
) -> Option<(&'d Diagnostic, MainLine<'r>)> {
    // A variation's finding is about another line than the main one.
    let mut ordered: Vec<&Diagnostic> = diagnostics
        .iter()
        .filter(|d| d.ply.is_some() && d.variation.is_empty())
        .collect();
    // Errors first, each kind by ply (a stable sort keeps the replay's order at a ply).
    ordered.sort_by_key(|d| (!d.is_error(), d.ply));
    ordered.into_iter().find_map(|d| {
        let mut line = start.clone();
        let before = d.ply?.checked_sub(1)?;
        if !line.advance_to(before) {
            return None;
        }
        let on_line = match (&d.mv, line.peek()) {
            (Some(mv), Some(next)) => *mv == next.to_usi(),
            _ => true,
        };
        on_line.then_some((d, line))
    })
}

/// The position before the move of diagnostic `d` of `record` (replayed), on the main line or
/// on the variation the finding is in, its move's squares marked and `note` (the finding as
/// the caller shows it) written with the drawing: what `show --at-diagnostic` draws for it.
/// `None` for a finding about no move, or a move no line reaches.
pub fn before_diagnostic(record: &Record, d: &Diagnostic, note: String) -> Option<Diagram> {
    let start = MainLine::new(record).ok()?;
    let one = std::slice::from_ref(d);
    let (_, line) = first_at_move(&start, one).or_else(|| first_in_variation(&start, one))?;
    Some(drawn(&line, record).mark(squares_of(d)).with_note(note))
}

/// The diagram of the position a line of `record` reached, with the move that led there (the
/// sides named 下手 and 上手 in a handicap game).
fn drawn(line: &MainLine<'_>, record: &Record) -> Diagram {
    let handicap = matches!(record.start, StartPosition::Preset(h) if h != Handicap::Even);
    let diagram = Diagram::new(line.position().to_setup()).handicap(handicap);
    match line.last() {
        Some(p) => diagram.last_move(LastMove {
            mv: p.mv,
            kind: p.kind,
        }),
        None => diagram,
    }
}

/// The first error (else warning) about a move of a variation, with the variation followed to
/// the position before that move: the branch plies of [`Diagnostic::variation`] name the
/// lines to take, and where several variations branch off at one ply, the one whose move at
/// the diagnostic's ply is the diagnostic's move.
fn first_in_variation<'d, 'r>(
    start: &MainLine<'r>,
    diagnostics: &'d [Diagnostic],
) -> Option<(&'d Diagnostic, MainLine<'r>)> {
    fn follow<'r>(line: MainLine<'r>, branches: &[u32], d: &Diagnostic) -> Option<MainLine<'r>> {
        let Some((&at, rest)) = branches.split_first() else {
            let mut line = line;
            if !line.advance_to(d.ply?.checked_sub(1)?) {
                return None;
            }
            let on_line = match (&d.mv, line.peek()) {
                (Some(mv), Some(next)) => *mv == next.to_usi(),
                (Some(_), None) => false,
                (None, _) => true,
            };
            return on_line.then_some(line);
        };
        let mut here = line;
        if !here.advance_to(at.checked_sub(1)?) {
            return None;
        }
        (0..here.variations()).find_map(|k| {
            let mut v = here.clone();
            v.enter_variation(k);
            follow(v, rest, d)
        })
    }
    let mut ordered: Vec<&Diagnostic> = diagnostics
        .iter()
        .filter(|d| d.ply.is_some() && !d.variation.is_empty())
        .collect();
    ordered.sort_by_key(|d| !d.is_error());
    ordered
        .into_iter()
        .find_map(|d| Some((d, follow(start.clone(), &d.variation, d)?)))
}

/// The boards `validate --show-board` prints: for each of `diagnostics` (of a replayed
/// `record`), the BOD of the position before its move, with the move that led there, when the
/// diagnostic is about a move of the main line; `None` for the others (header-level findings,
/// moves of variations, a line that ends before the ply).
pub fn boards(record: &Record, diagnostics: &[Diagnostic]) -> Vec<Option<String>> {
    let Ok(start) = MainLine::new(record) else {
        return vec![None; diagnostics.len()];
    };
    diagnostics
        .iter()
        .map(|d| {
            let (_, line) = first_at_move(&start, std::slice::from_ref(d))?;
            Some(drawn(&line, record).bod())
        })
        .collect()
}

/// [`boards`] for every game of a validated unit that has an error at a move (an empty list
/// for the others): the unit is read again, its games replayed, only when one has.
pub(crate) fn unit_boards(
    unit: &crate::batch::Unit,
    validated: &crate::batch::ValidatedUnit,
    opts: &validate::Options,
) -> Vec<Vec<Option<String>>> {
    let wanted = |r: &validate::Report| r.diagnostics.iter().any(|d| d.ply.is_some());
    if !validated.games.iter().any(wanted) {
        return Vec::new();
    }
    let parsed = crate::batch::parse_unit(unit);
    parsed
        .games
        .into_iter()
        .zip(&validated.games)
        .map(|(mut g, r)| {
            if !wanted(r) {
                return Vec::new();
            }
            validate::validate_game(&mut g, opts);
            boards(&g.record, &r.diagnostics)
        })
        .collect()
}

/// [`write_human_with`](super::write_human_with) with the board (when there is one) under
/// each error, indented by four spaces, and a blank line after it.
pub fn write_human_boards(
    out: &mut dyn Write,
    path: &str,
    game: Option<u64>,
    diagnostics: &[Diagnostic],
    boards: &[Option<String>],
    quiet: bool,
) -> io::Result<()> {
    for (i, d) in diagnostics.iter().enumerate() {
        super::write_human_with(out, path, game, std::slice::from_ref(d), quiet)?;
        let Some(Some(board)) = boards.get(i).filter(|_| d.is_error()) else {
            continue;
        };
        for line in board.lines() {
            writeln!(out, "    {line}")?;
        }
        writeln!(out)?;
    }
    Ok(())
}

/// The squares of a diagnostic's move: its source (when it has one) and destination.
pub fn squares_of(d: &Diagnostic) -> Vec<Square> {
    match d.mv.as_deref().map(Move::from_usi) {
        Some(Ok(mv)) => mv.from().into_iter().chain([mv.to()]).collect(),
        _ => Vec::new(),
    }
}

/// Writes `bytes` to `path` atomically ([`AtomicFile::write_new`]: a temporary file in its
/// directory, renamed into place when every byte is written); an existing file is replaced
/// only when `force` is set, else the error is [`io::ErrorKind::AlreadyExists`].
pub fn write_file(path: &Path, bytes: &[u8], force: bool) -> io::Result<()> {
    if !force && path.exists() {
        return Err(exists(path));
    }
    AtomicFile::write_new(path, bytes, force).map_err(|e| match e {
        PersistError::Exists => exists(path),
        PersistError::Io(e) => e,
    })
}

fn exists(path: &Path) -> io::Error {
    io::Error::new(
        io::ErrorKind::AlreadyExists,
        format!("{} exists (--force replaces it)", path.display()),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use kifu::formats;

    #[test]
    fn a_target_is_the_file_as_given_when_it_exists() {
        let dir = tempfile::tempdir().expect("dir");
        let odd = dir.path().join("a:3");
        std::fs::write(&odd, "startpos\n").expect("write");
        let t = Target::parse(odd.as_os_str());
        assert_eq!((t.path, t.game), (odd.clone(), 0));
        let with_game = format!("{}:2", odd.display());
        let t = Target::parse(OsStr::new(&with_game));
        assert_eq!((t.path, t.game), (odd, 2));
        let t = Target::parse(OsStr::new("missing.csa:x"));
        assert_eq!((t.path, t.game), (PathBuf::from("missing.csa:x"), 0));
        let t = Target::parse(OsStr::new("-:4"));
        assert_eq!((t.path, t.game), (PathBuf::from("-"), 4));
    }

    #[test]
    fn the_position_at_a_diagnostic_is_before_its_move() {
        let text = "startpos moves 7g7f 3c3d 8h2b+ 3a2b B*4e R*5e\n";
        let mut game = formats::read(Format::Usi, text).remove(0);
        let report = validate::validate_game(&mut game, &validate::Options::default());
        let opts = Options {
            at: At::Diagnostic,
            ..Options::default()
        };
        let shown = position(&game.record, &report.diagnostics, &opts).expect("shown");
        let d = shown.diagnostic.expect("a diagnostic");
        assert_eq!(d.ply, Some(6), "{:?}", report.diagnostics);
        assert_eq!(shown.ply, 5);
        assert_eq!(shown.diagram.marks, vec![Square::new(5, 5).expect("sq")]);
        let last = position(&game.record, &report.diagnostics, &Options::default());
        assert_eq!(
            last.expect("last").ply,
            5,
            "the unplayable drop ends the line"
        );
        let too_far = Options {
            at: At::Ply(9),
            ..Options::default()
        };
        assert!(matches!(
            position(&game.record, &report.diagnostics, &too_far),
            Err(ShowError::TooShort { plies: 5 })
        ));
    }

    #[test]
    fn files_are_not_replaced_unless_forced() {
        let dir = tempfile::tempdir().expect("dir");
        let p = dir.path().join("b.svg");
        write_file(&p, b"one", false).expect("new");
        let e = write_file(&p, b"two", false).expect_err("exists");
        assert_eq!(e.kind(), io::ErrorKind::AlreadyExists);
        write_file(&p, b"three", true).expect("forced");
        assert_eq!(std::fs::read(&p).expect("read"), b"three");
    }
}
