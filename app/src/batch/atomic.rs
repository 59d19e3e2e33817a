//! Output files written atomically: a temporary file beside the target, renamed into place
//! when complete, so that no reader ever sees a half-written file, and an existing file is
//! replaced only when asked. A write that failed (a full disk) is remembered: such a file is
//! never renamed into place, and its temporary is removed. Every command writes its output
//! files this way: `convert`, the tables of `games` and `positions`, `stats -o`, `show -o`.
//!
//! The temporaries being written are listed ([`remove_temporaries`]), so that a program
//! stopped by a signal can remove them (the `kifu` binary does on Ctrl-C and SIGTERM;
//! nothing can on SIGKILL).

use std::collections::BTreeSet;
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::sync::Mutex;

/// The temporaries of the [`AtomicFile`]s alive, and whether the program is stopping (then
/// no new one is made).
struct Live {
    paths: BTreeSet<PathBuf>,
    stopping: bool,
}

static LIVE: Mutex<Live> = Mutex::new(Live {
    paths: BTreeSet::new(),
    stopping: false,
});

fn live() -> std::sync::MutexGuard<'static, Live> {
    LIVE.lock().unwrap_or_else(|e| e.into_inner())
}

/// Removes the temporary files of every [`AtomicFile`] still being written, for a program
/// about to exit on a signal, and refuses to make new ones; returns how many it removed.
/// Their targets are left as they were (absent, or the old file).
pub fn remove_temporaries() -> usize {
    let mut live = live();
    live.stopping = true;
    let n = live
        .paths
        .iter()
        .filter(|p| std::fs::remove_file(p).is_ok())
        .count();
    live.paths.clear();
    n
}

/// When `dir` cannot be a directory because it, or a folder above it, is a file: the error
/// that says so (creating it says "File exists", which misleads).
fn not_a_directory(dir: &Path) -> Option<io::Error> {
    let file = dir
        .ancestors()
        .find(|a| std::fs::metadata(a).is_ok_and(|m| !m.is_dir()))?;
    Some(io::Error::new(
        io::ErrorKind::NotADirectory,
        format!("{} is a file, not a directory", file.display()),
    ))
}

/// A file being written: a temporary file in the target's directory, named `.kifu-…`.
#[derive(Debug)]
pub struct AtomicFile {
    temp: tempfile::NamedTempFile,
    target: PathBuf,
    /// The first write that failed: the file is then never put in place.
    failed: Option<io::Error>,
    _listed: Listed,
}

/// The temporary's entry in [`LIVE`], taken out when the file is dropped or persisted (the
/// temporary itself is removed by `NamedTempFile`, or renamed).
#[derive(Debug)]
struct Listed(PathBuf);

impl Drop for Listed {
    fn drop(&mut self) {
        live().paths.remove(&self.0);
    }
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
        std::fs::create_dir_all(&parent).map_err(|e| not_a_directory(&parent).unwrap_or(e))?;
        let mut builder = tempfile::Builder::new();
        builder.prefix(".kifu-");
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            builder.permissions(std::fs::Permissions::from_mode(0o666));
        }
        let temp = builder.tempfile_in(&parent)?;
        {
            let mut live = live();
            if live.stopping {
                return Err(io::Error::new(
                    io::ErrorKind::Interrupted,
                    "the program is stopping",
                ));
            }
            live.paths.insert(temp.path().to_path_buf());
        }
        Ok(AtomicFile {
            _listed: Listed(temp.path().to_path_buf()),
            temp,
            target: target.to_path_buf(),
            failed: None,
        })
    }

    /// Writes `bytes` to a new file at `target` and puts it in place (over an existing file
    /// only with `force`): [`AtomicFile::create`], `write_all` and [`AtomicFile::persist`].
    pub fn write_new(target: &Path, bytes: &[u8], force: bool) -> Result<(), PersistError> {
        let mut f = AtomicFile::create(target).map_err(PersistError::Io)?;
        // A failure is remembered, and persist reports it.
        let _ = f.write_all(bytes);
        f.persist(force)
    }

    /// The target path.
    pub fn target(&self) -> &Path {
        &self.target
    }

    /// Renames the file into place: over an existing file only with `force`. A file one of
    /// whose writes failed is not: its temporary is removed, and the error is the write's.
    pub fn persist(mut self, force: bool) -> Result<(), PersistError> {
        if let Some(e) = self.failed.take() {
            return Err(PersistError::Io(e));
        }
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

impl AtomicFile {
    /// Keeps the first failure, for [`AtomicFile::persist`].
    fn note<T>(&mut self, r: io::Result<T>) -> io::Result<T> {
        if let Err(e) = &r
            && self.failed.is_none()
            && e.kind() != io::ErrorKind::Interrupted
        {
            self.failed = Some(io::Error::new(e.kind(), e.to_string()));
        }
        r
    }
}

/// With the `testing` feature, `KIFU_TEST_FAIL_WRITES_AFTER=N` makes the output files of the
/// process hold N bytes in all: a write past them fails as on a full disk (after writing what
/// fits), so that the tests can show what a full disk does where no small disk can be had.
#[cfg(feature = "testing")]
fn injected_full_disk(buf: &[u8]) -> Option<io::Result<usize>> {
    use std::sync::OnceLock;
    use std::sync::atomic::{AtomicU64, Ordering};
    static LIMIT: OnceLock<Option<u64>> = OnceLock::new();
    static USED: AtomicU64 = AtomicU64::new(0);
    let limit = (*LIMIT.get_or_init(|| {
        std::env::var("KIFU_TEST_FAIL_WRITES_AFTER")
            .ok()
            .and_then(|v| v.parse().ok())
    }))?;
    let used = USED.fetch_add(buf.len() as u64, Ordering::SeqCst);
    if used + buf.len() as u64 <= limit {
        return None;
    }
    let room = limit.saturating_sub(used) as usize;
    USED.fetch_sub((buf.len() - room) as u64, Ordering::SeqCst);
    Some(if room > 0 {
        Ok(room)
    } else {
        Err(io::Error::new(
            io::ErrorKind::StorageFull,
            "No space left on device (KIFU_TEST_FAIL_WRITES_AFTER)",
        ))
    })
}

impl io::Write for AtomicFile {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        #[cfg(feature = "testing")]
        if let Some(r) = injected_full_disk(buf) {
            let r = match r {
                Ok(n) => self.temp.as_file_mut().write(&buf[..n]),
                e => e,
            };
            return self.note(r);
        }
        let r = self.temp.as_file_mut().write(buf);
        self.note(r)
    }

    fn flush(&mut self) -> io::Result<()> {
        let r = self.temp.as_file_mut().flush();
        self.note(r)
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
        f.write_all(b"one").expect("write");
        assert!(!target.exists(), "not in place before persist");
        f.persist(false).expect("persist");
        let mut g = AtomicFile::create(&target).expect("create");
        g.write_all(b"two").expect("write");
        assert!(matches!(g.persist(false), Err(PersistError::Exists)));
        assert_eq!(std::fs::read(&target).expect("read"), b"one");
        let mut h = AtomicFile::create(&target).expect("create");
        h.write_all(b"three").expect("write");
        h.persist(true).expect("forced");
        assert_eq!(std::fs::read(&target).expect("read"), b"three");
        let left: Vec<_> = std::fs::read_dir(target.parent().expect("parent"))
            .expect("dir")
            .collect();
        assert_eq!(left.len(), 1, "no temporary file left behind");
    }
}
