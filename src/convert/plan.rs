//! Planning: where converted games go (standard output, one file, or a directory mirroring the
//! inputs), what they are named, and the checks that keep them there.

use std::collections::HashSet;
use std::fmt;
use std::io;
use std::path::{Path, PathBuf};

use crate::batch::{self, Input};
use crate::diag::{Code, Diagnostic};
use crate::formats::Format;

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
    /// The output directory could not be created.
    CreateDir(PathBuf, io::Error),
    /// The output directory could not be resolved.
    Io(io::Error),
}

impl fmt::Display for PlanError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PlanError::NeedsDir => {
                f.write_str("several inputs, a directory or an archive need -o DIR")
            }
            PlanError::CreateDir(p, e) => write!(f, "cannot create {}: {e}", p.display()),
            PlanError::Io(e) => write!(f, "{e}"),
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
}

/// Where the games of a conversion go, and what must not be written over.
#[derive(Debug, Clone)]
pub struct Plan {
    sink: Sink,
    pub(crate) guard: Guard,
}

impl Plan {
    /// The plan for `inputs` and `-o output`: standard output for one input file (or standard
    /// input) without `-o`; a file for one input file and an `-o` that is not a directory (nor
    /// ends with `/`); else a directory, created if need be. Inputs are never written over.
    pub fn new(inputs: &[Input], output: Option<&Path>) -> Result<Plan, PlanError> {
        let single_file = matches!(inputs, [Input::Stdin])
            || matches!(inputs, [Input::Path(p)] if p.is_file()
                && batch::discover::archive_kind(&p.to_string_lossy()).is_none());
        let sink = match output {
            None if single_file => Sink::Stdout,
            None => return Err(PlanError::NeedsDir),
            Some(o) if single_file && !o.is_dir() && !o.to_string_lossy().ends_with('/') => {
                Sink::File(o.to_path_buf())
            }
            Some(o) => {
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
            guard.root = Some(dir.clone());
            if protected.iter().any(|p| dir != p && dir.starts_with(p)) {
                // An output directory inside an input directory: never read it as input (its
                // files would be converted again, deeper and deeper).
                guard.excluded = Some(dir.clone());
            }
        }
        guard.protected = protected;
        Ok(Plan { sink, guard })
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
    let stem = rel
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_else(|| "game".to_owned());
    let name = if many && target.one_game_per_file() {
        format!("{stem}-{game}.{}", target.extension())
    } else {
        format!("{stem}.{}", target.extension())
    };
    Ok(dir.join(rel.with_file_name(name)))
}

/// The output paths given so far in a run, so that none is given twice.
#[derive(Debug, Clone, Default)]
pub struct Names {
    used: HashSet<PathBuf>,
}

impl Names {
    /// No path given yet.
    pub fn new() -> Names {
        Names::default()
    }

    /// Makes `dest` (the output for the input at relative path `rel`) unique within the run:
    /// `a.kif` and `a.csa` converted to KIFU give `a.kifu` and `a.csa.kifu` (then `-2`,
    /// `-3`... should that be taken too), so no output replaces another.
    pub fn unique(&mut self, dest: PathBuf, rel: Option<&Path>) -> PathBuf {
        let used = &mut self.used;
        if used.insert(dest.clone()) {
            return dest;
        }
        let ext = dest
            .extension()
            .map(|e| e.to_string_lossy().into_owned())
            .unwrap_or_default();
        let stem = dest
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_default();
        let orig = rel
            .and_then(|r| r.extension())
            .map(|e| e.to_string_lossy().into_owned())
            .unwrap_or_else(|| "in".to_owned());
        let candidate = dest.with_file_name(format!("{stem}.{orig}.{ext}"));
        if used.insert(candidate.clone()) {
            return candidate;
        }
        let mut n = 2u64;
        loop {
            let c = dest.with_file_name(format!("{stem}.{orig}-{n}.{ext}"));
            if used.insert(c.clone()) {
                return c;
            }
            n += 1;
        }
    }

    /// [`destination`] made [`unique`](Names::unique).
    pub fn next(
        &mut self,
        dir: &Path,
        rel: Option<&Path>,
        target: Format,
        many: bool,
        game: u64,
    ) -> Result<PathBuf, Diagnostic> {
        destination(dir, rel, target, many, game).map(|d| self.unique(d, rel))
    }
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

/// Refuses a target that is an input or lies inside an input directory.
pub(crate) fn check_target(target: &Path, guard: &Guard) -> Result<(), Diagnostic> {
    let parent = target.parent().unwrap_or(Path::new("."));
    let parent = parent
        .canonicalize()
        .map_err(|e| io_diag(format!("cannot resolve {}: {e}", parent.display())))?;
    let full = match target.file_name() {
        Some(n) => parent.join(n),
        None => return Err(io_diag(format!("not a file name: {}", target.display()))),
    };
    let full = full.canonicalize().unwrap_or(full);
    if guard
        .excluded
        .as_deref()
        .is_some_and(|x| full.starts_with(x))
    {
        // Inside the output directory that is never read as input: no input lives there.
        return Ok(());
    }
    for p in &guard.protected {
        if &full == p || (p.is_dir() && full.starts_with(p) && full.exists()) {
            return Err(io_diag(format!(
                "refusing to overwrite an input: {}",
                target.display()
            )));
        }
    }
    Ok(())
}
