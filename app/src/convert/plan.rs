//! Planning: where converted games go (standard output, one file, or a directory mirroring the
//! inputs), what they are named, and the checks that keep them there.

use std::collections::HashSet;
use std::ffi::{OsStr, OsString};
use std::fmt;
use std::io;
use std::path::{Path, PathBuf};

use crate::batch::{self, Input};
use kifu::diag::{Code, Diagnostic};
use kifu::formats::Format;

/// Where converted games go.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Sink {
    /// Standard output (one input file, or standard input, and no `-o`).
    Stdout,
    /// One file (one input file and `-o FILE`).
    File(PathBuf),
    /// A directory (canonical) that mirrors the input tree (`-o DIR`).
    Dir(PathBuf),
}

/// Why no plan could be made: the command line's fault (exit code 2).
#[derive(Debug)]
pub enum PlanError {
    /// Several inputs, a directory or an archive, and no `-o DIR`.
    NeedsDir,
    /// Several inputs, a directory or an archive, and an `-o` that names a file (an existing
    /// file, or a name with a record or archive extension).
    NotADir(PathBuf),
    /// `-o FILE` whose extension names another format than the target (`-o x.kif --to csa`),
    /// or an archive: the file would hold text its name does not announce.
    Extension(PathBuf, Format),
    /// The output directory could not be created.
    CreateDir(PathBuf, io::Error),
    /// The output directory could not be resolved.
    Io(io::Error),
    /// `-o DIR` is an input directory: a rerun would read the outputs of the run before as
    /// inputs (`g.kifu`, then `g.kifu.kifu`...).
    InputDir(PathBuf),
}

impl fmt::Display for PlanError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PlanError::NeedsDir => {
                f.write_str("several inputs, a directory or an archive need -o DIR")
            }
            PlanError::NotADir(p) => write!(
                f,
                "-o {} names a file, but several inputs, a directory or an archive need -o DIR (a directory, or a name ending with /)",
                p.display()
            ),
            PlanError::Extension(p, target) => write!(
                f,
                "-o {} does not name a {} file (--to {} writes .{}); name the output for its format",
                p.display(),
                target.name(),
                target.name(),
                target.extension()
            ),
            PlanError::CreateDir(p, e) => write!(f, "cannot create {}: {e}", p.display()),
            PlanError::Io(e) => write!(f, "{e}"),
            PlanError::InputDir(p) => write!(
                f,
                "-o {} is an input directory: a second run would read this run's outputs as \
                 inputs; write to a directory of its own (one inside the input, such as {}, is \
                 left out of the inputs)",
                p.display(),
                p.join("converted").display()
            ),
        }
    }
}

impl std::error::Error for PlanError {}

/// What keeps `convert`'s outputs where they belong.
#[derive(Debug, Clone, Default)]
pub(crate) struct Guard {
    /// `-o DIR`, canonical, in directory mode: nothing is written through a link below it.
    pub(crate) root: Option<PathBuf>,
    /// The inputs, canonical: never replaced, nor any existing file inside an input directory.
    pub(crate) protected: Vec<PathBuf>,
    /// The output directory when it lies inside an input directory (and is not searched).
    pub(crate) excluded: Option<PathBuf>,
    /// Whether an existing file (not an input) may be replaced (`--force`).
    pub(crate) force: bool,
}

/// Where the games of a conversion go, and what must not be written over.
#[derive(Debug, Clone)]
pub struct Plan {
    sink: Sink,
    pub(crate) guard: Guard,
    /// `-o DIR` as given, to show the outputs under it as the user named it.
    pub(crate) shown_dir: Option<PathBuf>,
}

/// Whether `-o o` names a directory: an existing one, or a name ending with `/`.
fn names_dir(o: &Path) -> bool {
    o.is_dir()
        || o.to_string_lossy()
            .ends_with(['/', std::path::MAIN_SEPARATOR])
}

impl Plan {
    /// The plan for `inputs` and `-o output` converted to `target`: standard output for one
    /// input file (or standard input) without `-o`; a file for one input file and an `-o` that
    /// is not a directory (nor ends with `/`), refused when its extension names another format
    /// (or an archive); else a directory, created if need be, refused when `-o` names a file.
    /// Inputs are never written over; other existing files only with [`Plan::force`].
    pub fn new(inputs: &[Input], output: Option<&Path>, target: Format) -> Result<Plan, PlanError> {
        // One input that is not a directory (a file, or a pipe: `/dev/stdin`, `<(...)`) nor
        // an archive.
        let single_file = matches!(inputs, [Input::Stdin])
            || matches!(inputs, [Input::Path(p)] if std::fs::metadata(p).is_ok_and(|m| !m.is_dir())
                && batch::discover::archive_kind(&p.to_string_lossy()).is_none());
        let sink = match output {
            None if single_file => Sink::Stdout,
            None => return Err(PlanError::NeedsDir),
            Some(o) if !names_dir(o) && single_file => {
                let name = o.to_string_lossy();
                let named = batch::discover::format_of_name(&name);
                if batch::discover::archive_kind(&name).is_some()
                    || named.is_some_and(|f| f != target)
                {
                    return Err(PlanError::Extension(o.to_path_buf(), target));
                }
                Sink::File(o.to_path_buf())
            }
            Some(o) => {
                let name = o.to_string_lossy();
                let file_like = batch::discover::format_of_name(&name).is_some()
                    || batch::discover::archive_kind(&name).is_some();
                if !names_dir(o) && (o.exists() || file_like) {
                    return Err(PlanError::NotADir(o.to_path_buf()));
                }
                std::fs::create_dir_all(o).map_err(|e| PlanError::CreateDir(o.to_path_buf(), e))?;
                Sink::Dir(o.canonicalize().map_err(PlanError::Io)?)
            }
        };
        // Inputs, canonicalised, so that no output replaces one.
        let protected: Vec<PathBuf> = inputs
            .iter()
            .filter_map(|i| match i {
                Input::Path(p) => p.canonicalize().ok(),
                Input::Stdin => None,
            })
            .collect();
        let mut guard = Guard::default();
        if let Sink::Dir(dir) = &sink {
            if protected.iter().any(|p| dir == p && p.is_dir()) {
                return Err(PlanError::InputDir(output.unwrap_or(dir).to_path_buf()));
            }
            guard.root = Some(dir.clone());
            if protected.iter().any(|p| dir != p && dir.starts_with(p)) {
                // An output directory inside an input directory: never read it as input (its
                // files would be converted again, deeper and deeper).
                guard.excluded = Some(dir.clone());
            }
        }
        guard.protected = protected;
        let shown_dir = match (&sink, output) {
            (Sink::Dir(_), Some(o)) => Some(o.to_path_buf()),
            _ => None,
        };
        Ok(Plan {
            sink,
            guard,
            shown_dir,
        })
    }

    /// Lets outputs replace existing files (`--force`); inputs are never replaced.
    pub fn force(mut self, force: bool) -> Plan {
        self.guard.force = force;
        self
    }

    /// Where the games go.
    pub fn sink(&self) -> &Sink {
        &self.sink
    }

    /// The output directory when it lies inside an input directory: it must not be searched
    /// for inputs (set [`batch::Options::exclude`] to it).
    pub fn exclude(&self) -> Option<&Path> {
        self.guard.excluded.as_deref()
    }
}

/// The output path of a game in `-o DIR` mode: the input's relative path `rel` with the
/// target's extension, `-N` before it when the file holds several games (`many`) and the target
/// one per file. Refused when there is no safe relative path (an archive entry named with `..`
/// or an absolute path).
pub fn destination(
    dir: &Path,
    rel: Option<&Path>,
    target: Format,
    many: bool,
    game: u64,
) -> Result<PathBuf, Diagnostic> {
    let Some(rel) = rel else {
        return Err(Diagnostic::new(
            Code::Io,
            "refusing to write: the entry's name is absolute or climbs out with `..`",
        ));
    };
    Ok(dir.join(named(rel, target, many, game, false)))
}

/// `rel` with the target's extension: in place of its own (`a.kif` to `a.csa`), or after its
/// whole name when `whole` (`a.kif` to `a.kif.csa`); `-N` before it for game N of a
/// multi-game input written one game per file.
fn named(rel: &Path, target: Format, many: bool, game: u64, whole: bool) -> PathBuf {
    let base = if whole {
        rel.file_name()
    } else {
        rel.file_stem()
    };
    // Built as an `OsString`: a name that is not UTF-8 keeps its bytes.
    let mut name = base.map_or_else(|| OsString::from("game"), OsStr::to_os_string);
    if many && target.one_game_per_file() {
        name.push(format!("-{game}"));
    }
    name.push(".");
    name.push(target.extension());
    rel.with_file_name(name)
}

/// The output names of a run in `-o DIR` mode, so that none depends on the order the inputs
/// are read in and none is given twice.
///
/// The rule: an input gets its relative path with the target's extension (`a.kif` to
/// `a.kifu`) unless another input of the run would get the same name (`a.kif` and `a.csa` to
/// `--to kifu`); then each of them gets its whole name and the target's extension
/// (`a.kif.kifu`, `a.csa.kifu`). The inputs' names are known before anything is written
/// ([`input_names`]). A name still taken twice (the same relative path in two inputs named
/// on the command line, or a whole name that is another input's plain one) gets `-2`, `-3`...
/// before its extension, in input order.
#[derive(Debug, Clone, Default)]
pub struct Names {
    /// The plain names (relative, game number left out) that two or more inputs would get.
    colliding: HashSet<PathBuf>,
    used: HashSet<PathBuf>,
}

impl Names {
    /// No collision known in advance (the names of the inputs are not known).
    pub fn new() -> Names {
        Names::default()
    }

    /// The names for a run over inputs with these relative paths (see [`input_names`]), each
    /// listed once per input that holds it.
    pub fn planned<'a>(rels: impl IntoIterator<Item = &'a Path>, target: Format) -> Names {
        let mut seen = HashSet::new();
        let mut colliding = HashSet::new();
        for rel in rels {
            let plain = named(rel, target, false, 0, false);
            if !seen.insert(plain.clone()) {
                colliding.insert(plain);
            }
        }
        Names {
            colliding,
            used: HashSet::new(),
        }
    }

    /// Makes `dest` unique within the run: `-2`, `-3`... before its extension when it was
    /// given already.
    pub fn unique(&mut self, dest: PathBuf) -> PathBuf {
        if self.used.insert(dest.clone()) {
            return dest;
        }
        let ext = dest.extension().map(OsStr::to_os_string);
        let stem = dest
            .file_stem()
            .map(OsStr::to_os_string)
            .unwrap_or_default();
        let mut n = 2u64;
        loop {
            let mut name = stem.clone();
            name.push(format!("-{n}"));
            if let Some(ext) = &ext {
                name.push(".");
                name.push(ext);
            }
            let c = dest.with_file_name(name);
            if self.used.insert(c.clone()) {
                return c;
            }
            n += 1;
        }
    }

    /// The output path of game `game` of the input at `rel` (see [`destination`]), by the
    /// rule of [`Names`].
    pub fn next(
        &mut self,
        dir: &Path,
        rel: Option<&Path>,
        target: Format,
        many: bool,
        game: u64,
    ) -> Result<PathBuf, Diagnostic> {
        let dest = destination(dir, rel, target, many, game)?;
        let whole =
            rel.is_some_and(|r| self.colliding.contains(&named(r, target, false, 0, false)));
        let dest = match rel {
            Some(r) if whole => dir.join(named(r, target, many, game, true)),
            _ => dest,
        };
        Ok(self.unique(dest))
    }
}

/// The relative paths of the record files `inputs` hold, as `-o DIR` mirrors them, once per
/// file. Found as the run will find them: every directory walked and every archive read
/// through, without parsing a game. Standard input (`stdin`) and a named input that is
/// neither a file nor a directory (a pipe: `<(command)`) are named, not read: they could not
/// be read twice.
pub fn input_names(inputs: &[Input], opts: &batch::Options) -> Vec<PathBuf> {
    let mut rels = Vec::new();
    let mut paths = Vec::new();
    for input in inputs {
        match input {
            Input::Stdin => rels.push(PathBuf::from("stdin")),
            Input::Path(p) => match std::fs::metadata(p) {
                Ok(m) if !m.is_file() && !m.is_dir() => {
                    rels.extend(p.file_name().map(PathBuf::from));
                }
                _ => paths.push(input.clone()),
            },
        }
    }
    batch::discover::produce(&paths, opts, &mut |unit| {
        if unit.chunk == 0
            && let Some(rel) = &unit.source.rel
        {
            rels.push(rel.clone());
        }
        true
    });
    rels
}

pub(crate) fn io_diag(msg: String) -> Diagnostic {
    Diagnostic::new(Code::Io, msg)
}

/// Refuses a target under `root` (the `-o DIR`) that would be reached through a symbolic link:
/// its relative part is made of normal components only, so a link is the one way out.
pub(crate) fn check_within(root: &Path, target: &Path) -> Result<(), Diagnostic> {
    let Ok(rel) = target.strip_prefix(root) else {
        return Err(io_diag(format!(
            "refusing to write outside {}: {}",
            root.display(),
            target.display()
        )));
    };
    let mut p = root.to_path_buf();
    for c in rel.components() {
        p.push(c);
        match std::fs::symlink_metadata(&p) {
            Ok(m) if m.file_type().is_symlink() => {
                return Err(io_diag(format!(
                    "refusing to write through the symbolic link {}",
                    p.display()
                )));
            }
            Ok(_) => {}
            Err(_) => break,
        }
    }
    Ok(())
}

/// Refuses a target that is an input or lies inside an input directory (an `io` error), or
/// that exists while replacing is not allowed (`output-exists`).
pub(crate) fn check_target(target: &Path, shown: &Path, guard: &Guard) -> Result<(), Diagnostic> {
    let parent = match target.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    let parent = parent
        .canonicalize()
        .map_err(|e| io_diag(format!("cannot resolve {}: {e}", parent.display())))?;
    let full = match target.file_name() {
        Some(n) => parent.join(n),
        None => return Err(io_diag(format!("not a file name: {}", target.display()))),
    };
    let full = full.canonicalize().unwrap_or(full);
    let inside_excluded = guard
        .excluded
        .as_deref()
        .is_some_and(|x| full.starts_with(x));
    // Inside the output directory that is never read as input, no input lives.
    if !inside_excluded {
        for p in &guard.protected {
            if &full == p || (p.is_dir() && full.starts_with(p) && full.exists()) {
                return Err(io_diag(format!(
                    "refusing to overwrite an input: {}",
                    shown.display()
                )));
            }
        }
    }
    if !guard.force && std::fs::symlink_metadata(target).is_ok() {
        return Err(exists_diag(shown));
    }
    Ok(())
}

/// The refusal of an output whose file exists.
pub(crate) fn exists_diag(target: &Path) -> Diagnostic {
    Diagnostic::new(
        Code::OutputExists,
        format!(
            "{} exists; not replaced (--force replaces it)",
            target.display()
        ),
    )
}
