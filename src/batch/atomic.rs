//! Output files written atomically: a temporary file beside the target, renamed into place
//! when complete, so that no reader ever sees a half-written file, and an existing file is
//! replaced only when asked. `convert` writes its outputs this way, and so do the tables of
//! `games` and `positions`.

use std::fs::File;
use std::io;
use std::path::{Path, PathBuf};

/// A file being written: a temporary file in the target's directory, named `.kifu-…`.
#[derive(Debug)]
pub struct AtomicFile {
    temp: tempfile::NamedTempFile,
    target: PathBuf,
}

/// Why [`AtomicFile::persist`] did not put the file in place.
#[derive(Debug)]
pub enum PersistError {
    /// The target exists (it appeared while the file was written, or was there before) and
    /// replacing was not asked for; the temporary file is removed.
    Exists,
    /// The rename failed for another reason.
    Io(io::Error),
}

impl AtomicFile {
    /// Creates the temporary file for `target`, creating the target's directory if needed.
    /// The file gets the usual mode (0666 less the umask), not a temporary file's 0600.
    pub fn create(target: &Path) -> io::Result<AtomicFile> {
        let parent = match target.parent() {
            Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
            _ => PathBuf::from("."),
        };
        std::fs::create_dir_all(&parent)?;
        let mut builder = tempfile::Builder::new();
        builder.prefix(".kifu-");
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            builder.permissions(std::fs::Permissions::from_mode(0o666));
        }
        Ok(AtomicFile {
            temp: builder.tempfile_in(&parent)?,
            target: target.to_path_buf(),
        })
    }

    /// The file to write to.
    pub fn file_mut(&mut self) -> &mut File {
        self.temp.as_file_mut()
    }

    /// The target path.
    pub fn target(&self) -> &Path {
        &self.target
    }

    /// Renames the file into place: over an existing file only with `force`.
    pub fn persist(self, force: bool) -> Result<(), PersistError> {
        let done = if force {
            self.temp.persist(&self.target)
        } else {
            self.temp.persist_noclobber(&self.target)
        };
        match done {
            Ok(_) => Ok(()),
            Err(e) if e.error.kind() == io::ErrorKind::AlreadyExists => Err(PersistError::Exists),
            Err(e) => Err(PersistError::Io(e.error)),
        }
    }
}

impl io::Write for AtomicFile {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.temp.as_file_mut().write(buf)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.temp.as_file_mut().flush()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    #[test]
    fn an_existing_file_is_kept_unless_forced() {
        let dir = tempfile::tempdir().expect("tempdir");
        let target = dir.path().join("sub/out.txt");
        let mut f = AtomicFile::create(&target).expect("create");
        f.file_mut().write_all(b"one").expect("write");
        assert!(!target.exists(), "not in place before persist");
        f.persist(false).expect("persist");
        let mut g = AtomicFile::create(&target).expect("create");
        g.file_mut().write_all(b"two").expect("write");
        assert!(matches!(g.persist(false), Err(PersistError::Exists)));
        assert_eq!(std::fs::read(&target).expect("read"), b"one");
        let mut h = AtomicFile::create(&target).expect("create");
        h.file_mut().write_all(b"three").expect("write");
        h.persist(true).expect("forced");
        assert_eq!(std::fs::read(&target).expect("read"), b"three");
        let left: Vec<_> = std::fs::read_dir(target.parent().expect("parent"))
            .expect("dir")
            .collect();
        assert_eq!(left.len(), 1, "no temporary file left behind");
    }
}
