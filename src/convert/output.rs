//! Output: each output file is written as a temporary file beside it and renamed into place
//! when complete, so a file is never seen half written; the games of a multi-game target go
//! one after another with [`formats::game_separator`] between them.

use std::io::{self, Write};
use std::path::{Path, PathBuf};

use super::plan::{Guard, check_target, check_within, io_diag};
use crate::diag::Diagnostic;
use crate::formats::{self, Format};

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
    temp: tempfile::NamedTempFile,
    target: PathBuf,
    games: u64,
}

/// The output file being written, if any (at most one at a time).
#[derive(Debug, Default)]
pub(crate) struct Output {
    pending: Option<Pending>,
}

impl Output {
    /// Appends a game to the pending output for `target_path`, opening it (as a temporary
    /// file in the target's directory, after the `guard`'s checks) if it is not the one
    /// pending; the one pending before is finished first. `games_before` is the number of
    /// games of the input file before this one.
    pub(crate) fn append(
        &mut self,
        target_path: &Path,
        guard: &Guard,
        format: Format,
        bytes: &[u8],
        games_before: u64,
    ) -> Result<(), Diagnostic> {
        if self
            .pending
            .as_ref()
            .is_some_and(|p| p.target != target_path)
        {
            self.finish()?;
        }
        if self.pending.is_none() {
            let parent = match target_path.parent() {
                Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
                _ => PathBuf::from("."),
            };
            if let Some(root) = &guard.root {
                check_within(root, target_path)?;
            }
            std::fs::create_dir_all(&parent)
                .map_err(|e| io_diag(format!("cannot create {}: {e}", parent.display())))?;
            check_target(target_path, guard)?;
            let mut builder = tempfile::Builder::new();
            builder.prefix(".kifu-");
            // A temporary file is created private (0600) and would keep that mode after the
            // rename; an output file gets the usual 0666 less the umask instead.
            #[cfg(unix)]
            {
                use std::os::unix::fs::PermissionsExt;
                builder.permissions(std::fs::Permissions::from_mode(0o666));
            }
            let temp = builder
                .tempfile_in(&parent)
                .map_err(|e| io_diag(format!("cannot write in {}: {e}", parent.display())))?;
            self.pending = Some(Pending {
                temp,
                target: target_path.to_path_buf(),
                games: 0,
            });
        }
        let Some(p) = self.pending.as_mut() else {
            return Ok(());
        };
        let f = p.temp.as_file_mut();
        let before = if p.games == 0 { 0 } else { games_before.max(1) };
        separate(f, format, before)
            .and_then(|_| f.write_all(bytes))
            .map_err(|e| io_diag(format!("cannot write {}: {e}", target_path.display())))?;
        p.games += 1;
        Ok(())
    }

    /// Renames the pending output into place.
    pub(crate) fn finish(&mut self) -> Result<(), Diagnostic> {
        let Some(p) = self.pending.take() else {
            return Ok(());
        };
        let target = p.target.clone();
        p.temp
            .persist(&target)
            .map_err(|e| io_diag(format!("cannot write {}: {}", target.display(), e.error)))?;
        Ok(())
    }
}
