//! Output: each output file is written as a temporary file beside it and renamed into place
//! when complete, so a file is never seen half written; the games of a multi-game target go
//! one after another with [`formats::game_separator`] between them.

use std::io::{self, Write};
use std::path::{Path, PathBuf};

use super::plan::{Guard, check_target, check_within, exists_diag, io_diag};
use crate::batch::atomic::{AtomicFile, PersistError};
use kifu::diag::Diagnostic;
use kifu::formats::{self, Format};

/// Writes what goes between two games of one output stream (nothing before the first).
pub fn separate(out: &mut dyn Write, target: Format, games_before: u64) -> io::Result<()> {
    if games_before == 0 {
        return Ok(());
    }
    out.write_all(formats::game_separator(target))
}

/// An output file being written: a temporary file renamed into place when complete.
#[derive(Debug)]
struct Pending {
    file: AtomicFile,
    target: PathBuf,
    /// The target as the user named it, for messages.
    shown: PathBuf,
    games: u64,
    force: bool,
}

/// The output file being written, if any (at most one at a time), and the counts of output
/// files written, refused and failed.
#[derive(Debug, Default)]
pub(crate) struct Output {
    pending: Option<Pending>,
    /// The last output refused: the later games meant for it are not written, and not
    /// reported again.
    refused: Option<PathBuf>,
    /// Output files renamed into place.
    pub(crate) written: u64,
    /// Output files refused (they exist, or are inputs, or lie out of bounds).
    pub(crate) refused_files: u64,
    /// Output files that could not be written (a full disk, an I/O error): none of them is
    /// left under its name, and an existing file there is kept.
    pub(crate) failed_files: u64,
}

/// Why a game was not written: the refusal of its output, or `None` when that output was
/// refused for an earlier game (and reported then).
pub(crate) type NotWritten = Option<Diagnostic>;

impl Output {
    /// Appends a game to the pending output for `target_path`, opening it (as a temporary
    /// file in the target's directory, after the `guard`'s checks) if it is not the one
    /// pending; the one pending before is finished first (and its failure, if any, is
    /// returned). `games_before` is the number of games of the input file before this one.
    pub(crate) fn append(
        &mut self,
        target_path: &Path,
        shown: &Path,
        guard: &Guard,
        format: Format,
        bytes: &[u8],
        games_before: u64,
    ) -> Result<(), NotWritten> {
        if self
            .pending
            .as_ref()
            .is_some_and(|p| p.target != target_path)
        {
            self.finish().map_err(Some)?;
        }
        if self.refused.as_deref() == Some(target_path) {
            return Err(None);
        }
        if self.pending.is_none() {
            self.open(target_path, shown, guard).map_err(|d| {
                self.refused = Some(target_path.to_path_buf());
                self.refused_files += 1;
                Some(d)
            })?;
        }
        let Some(p) = self.pending.as_mut() else {
            return Ok(());
        };
        let f = &mut p.file;
        let before = if p.games == 0 { 0 } else { games_before.max(1) };
        let written = separate(f, format, before).and_then(|_| f.write_all(bytes));
        if let Err(e) = written {
            // The temporary goes with it; the later games meant for this output are not
            // written (and not reported again).
            self.pending = None;
            self.refused = Some(target_path.to_path_buf());
            self.failed_files += 1;
            return Err(Some(io_diag(format!(
                "cannot write {}: {e}; it is not written",
                shown.display()
            ))));
        }
        p.games += 1;
        Ok(())
    }

    /// Opens the temporary file of `target_path`, after the `guard`'s checks.
    fn open(&mut self, target_path: &Path, shown: &Path, guard: &Guard) -> Result<(), Diagnostic> {
        let parent = match target_path.parent() {
            Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
            _ => PathBuf::from("."),
        };
        if let Some(root) = &guard.root {
            check_within(root, target_path)?;
        }
        std::fs::create_dir_all(&parent)
            .map_err(|e| io_diag(format!("cannot create {}: {e}", parent.display())))?;
        check_target(target_path, shown, guard)?;
        let file = AtomicFile::create(target_path)
            .map_err(|e| io_diag(format!("cannot write in {}: {e}", parent.display())))?;
        self.pending = Some(Pending {
            file,
            target: target_path.to_path_buf(),
            shown: shown.to_path_buf(),
            games: 0,
            force: guard.force,
        });
        Ok(())
    }

    /// Renames the pending output into place: over an existing file only when forced; else
    /// the file that appeared since it was opened is kept, and the output refused.
    pub(crate) fn finish(&mut self) -> Result<(), Diagnostic> {
        let Some(p) = self.pending.take() else {
            return Ok(());
        };
        let shown = p.shown;
        match p.file.persist(p.force) {
            Ok(()) => {
                self.written += 1;
                Ok(())
            }
            Err(PersistError::Exists) => {
                self.refused_files += 1;
                Err(exists_diag(&shown))
            }
            Err(PersistError::Io(e)) => {
                self.failed_files += 1;
                Err(io_diag(format!(
                    "cannot write {}: {e}; it is not written",
                    shown.display()
                )))
            }
        }
    }
}
