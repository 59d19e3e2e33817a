//! The walk of a directory tree: files in a fixed order (entries sorted by name, depth first),
//! symbolic links followed, each directory entered once per path down from the root.
//!
//! Written for the reader's costs on trees of many small files: the type of an entry comes
//! from the directory listing, and a file's size, when asked for, is read relative to its open
//! directory rather than by walking its whole path again (a general-purpose walker that follows
//! links stats every entry by path: a third of the reader's time on 200,000 files). Only links
//! and directories are stat'ed by path.

use std::ffi::OsString;
use std::fs::{self, DirEntry, Metadata};
use std::io;
use std::path::{Path, PathBuf};

/// What the walk finds, in order.
pub(super) enum Step {
    /// A directory about to be entered (the root included).
    Dir,
    /// A file: a regular file, or a link to one.
    File(Found),
    /// An entry or directory that could not be read: a dangling or looping link, a directory
    /// that cannot be listed.
    Failed(PathBuf, io::Error),
    /// An entry that is neither a file nor a directory (a FIFO, a socket, a device), or a
    /// link to one: not read (a FIFO would wait for a writer that may never come).
    Special(PathBuf),
}

/// A file the walk found.
pub(super) struct Found {
    /// The path: the root joined with the names down to the file.
    pub path: PathBuf,
    /// The file's name.
    pub name: OsString,
    how: Known,
}

enum Known {
    /// A plain entry: its metadata is read from its directory when asked for.
    Entry(DirEntry),
    /// A link, already followed.
    Followed(Metadata),
}

impl Found {
    /// The file's metadata (of the link's target, for a link).
    pub fn metadata(&self) -> io::Result<Metadata> {
        match &self.how {
            Known::Entry(e) => e.metadata(),
            Known::Followed(m) => Ok(m.clone()),
        }
    }
}

/// A directory's identity, the same by a link to it and by its own path: device and inode.
#[cfg(unix)]
type Id = (u64, u64);

#[cfg(unix)]
fn id(_path: &Path, m: &Metadata) -> Option<Id> {
    use std::os::unix::fs::MetadataExt;
    Some((m.dev(), m.ino()))
}

/// A directory's identity where there are no inodes: its canonical path.
#[cfg(not(unix))]
type Id = PathBuf;

#[cfg(not(unix))]
fn id(path: &Path, _m: &Metadata) -> Option<Id> {
    path.canonicalize().ok()
}

/// One directory being walked: its identity and its entries, sorted, still to visit (last
/// first, so that `pop` takes them in order).
struct Level {
    id: Option<Id>,
    rest: Vec<(OsString, DirEntry)>,
}

/// Walks `root`, giving each [`Step`] to `step` until it returns `false` (then the walk
/// returns `false`). A directory whose identity is `exclude`'s is not entered, and a link back
/// to a directory on the way down from the root is not followed (its files are found once
/// already).
pub(super) fn walk(
    root: &Path,
    exclude: Option<&Path>,
    step: &mut dyn FnMut(Step) -> bool,
) -> bool {
    let excluded = exclude.and_then(|x| id(x, &fs::metadata(x).ok()?));
    let meta = match fs::metadata(root) {
        Ok(m) => m,
        Err(e) => return step(Step::Failed(root.to_path_buf(), e)),
    };
    let dir = id(root, &meta);
    if !meta.is_dir() || (excluded.is_some() && excluded == dir) {
        return true;
    }
    let mut path = root.to_path_buf();
    let mut levels: Vec<Level> = Vec::new();
    if !enter(&mut path, dir, &mut levels, step) {
        return false;
    }
    while let Some(level) = levels.last_mut() {
        let Some((name, entry)) = level.rest.pop() else {
            levels.pop();
            path.pop();
            continue;
        };
        path.push(&name);
        let go = visit(&mut path, name, entry, excluded.as_ref(), &mut levels, step);
        if !go {
            return false;
        }
    }
    true
}

/// One entry of the directory on top of `levels`, at `path`: a file is given to `step`, a
/// directory entered (pushed, with `path` left on it), anything else passed over (`path`
/// popped back).
fn visit(
    path: &mut PathBuf,
    name: OsString,
    entry: DirEntry,
    excluded: Option<&Id>,
    levels: &mut Vec<Level>,
    step: &mut dyn FnMut(Step) -> bool,
) -> bool {
    let kind = match entry.file_type() {
        Ok(k) => k,
        Err(e) => {
            let go = step(Step::Failed(path.clone(), e));
            path.pop();
            return go;
        }
    };
    let (meta, how) = if kind.is_symlink() {
        match fs::metadata(&*path) {
            Ok(m) => (Some(m.clone()), Known::Followed(m)),
            Err(e) => {
                let go = step(Step::Failed(path.clone(), e));
                path.pop();
                return go;
            }
        }
    } else {
        (None, Known::Entry(entry))
    };
    let (is_file, is_dir) = match &meta {
        Some(m) => (m.is_file(), m.is_dir()),
        None => (kind.is_file(), kind.is_dir()),
    };
    if is_file {
        let found = Found {
            path: path.clone(),
            name,
            how,
        };
        path.pop();
        return step(Step::File(found));
    }
    if !is_dir {
        let go = step(Step::Special(path.clone()));
        path.pop();
        return go;
    }
    let meta = match meta {
        Some(m) => m,
        None => match fs::metadata(&*path) {
            Ok(m) => m,
            Err(e) => {
                let go = step(Step::Failed(path.clone(), e));
                path.pop();
                return go;
            }
        },
    };
    let dir = id(path, &meta);
    let seen = |d: &Id| excluded == Some(d) || levels.iter().any(|l| l.id.as_ref() == Some(d));
    if dir.as_ref().is_some_and(seen) {
        path.pop();
        return true;
    }
    enter(path, dir, levels, step)
}

/// Lists the directory at `path` and pushes it on `levels`; a directory that cannot be listed
/// is reported and `path` popped back.
fn enter(
    path: &mut PathBuf,
    dir: Option<Id>,
    levels: &mut Vec<Level>,
    step: &mut dyn FnMut(Step) -> bool,
) -> bool {
    if !step(Step::Dir) {
        return false;
    }
    let listed = fs::read_dir(&*path).and_then(|entries| {
        entries
            .map(|e| e.map(|e| (e.file_name(), e)))
            .collect::<io::Result<Vec<_>>>()
    });
    match listed {
        Ok(mut rest) => {
            rest.sort_unstable_by(|a, b| b.0.cmp(&a.0));
            levels.push(Level { id: dir, rest });
            true
        }
        Err(e) => {
            let go = step(Step::Failed(path.clone(), e));
            path.pop();
            go
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn files(root: &Path, exclude: Option<&Path>) -> (Vec<String>, usize) {
        let (mut names, mut failed) = (Vec::new(), 0);
        walk(root, exclude, &mut |s| {
            match s {
                Step::File(f) => {
                    let rel = f.path.strip_prefix(root).expect("under the root");
                    assert_eq!(f.name, rel.file_name().expect("a name"));
                    let len = f.metadata().expect("metadata").len();
                    names.push(format!("{} {len}", rel.display()));
                }
                Step::Failed(..) => failed += 1,
                Step::Dir | Step::Special(_) => {}
            }
            true
        });
        (names, failed)
    }

    #[test]
    fn files_come_sorted_by_name_depth_first() {
        let dir = tempfile::tempdir().expect("tempdir");
        let root = dir.path();
        for (p, text) in [
            ("b/z.kif", "zz"),
            ("b/a.kif", "a"),
            ("a.kif", "aaa"),
            ("c", ""),
        ] {
            let p = root.join(p);
            fs::create_dir_all(p.parent().expect("parent")).expect("mkdir");
            fs::write(p, text).expect("write");
        }
        fs::create_dir(root.join("b.d")).expect("mkdir");
        fs::write(root.join("b.d/x.csa"), "x").expect("write");
        let (names, failed) = files(root, None);
        assert_eq!(
            names,
            ["a.kif 3", "b/a.kif 1", "b/z.kif 2", "b.d/x.csa 1", "c 0"]
        );
        assert_eq!(failed, 0);
        // Stopping: the walk returns false at once.
        let mut seen = 0;
        let go = walk(root, None, &mut |s| {
            seen += usize::from(matches!(s, Step::File(_)));
            seen < 2
        });
        assert!(!go);
        assert_eq!(seen, 2);
    }

    #[cfg(unix)]
    #[test]
    fn links_are_followed_once_and_loops_passed_over() {
        use std::os::unix::fs::symlink;
        let dir = tempfile::tempdir().expect("tempdir");
        let root = dir.path().join("tree");
        fs::create_dir_all(root.join("sub/deep")).expect("mkdir");
        fs::write(root.join("sub/deep/g.usi"), "12345").expect("write");
        symlink(&root, root.join("sub/deep/up")).expect("symlink");
        symlink("..", root.join("sub/parent")).expect("symlink");
        symlink(root.join("sub/deep/g.usi"), root.join("link.usi")).expect("symlink");
        symlink(root.join("x.kif"), root.join("y.kif")).expect("symlink");
        symlink(root.join("y.kif"), root.join("x.kif")).expect("symlink");
        symlink(root.join("missing"), root.join("dangling.kif")).expect("symlink");
        // A link to a directory outside the tree is entered.
        let outside = dir.path().join("outside");
        fs::create_dir(&outside).expect("mkdir");
        fs::write(outside.join("o.csa"), "o").expect("write");
        symlink(&outside, root.join("out")).expect("symlink");
        let (names, failed) = files(&root, None);
        assert_eq!(names, ["link.usi 5", "out/o.csa 1", "sub/deep/g.usi 5"]);
        // The dangling link and the two links that point at each other.
        assert_eq!(failed, 3);
    }

    #[test]
    fn the_excluded_directory_is_not_entered() {
        let dir = tempfile::tempdir().expect("tempdir");
        let root = dir.path();
        fs::create_dir_all(root.join("out/deeper")).expect("mkdir");
        fs::write(root.join("out/deeper/a.kif"), "a").expect("write");
        fs::write(root.join("b.kif"), "b").expect("write");
        let out = root.join("out");
        assert_eq!(files(root, Some(&out)).0, ["b.kif 1"]);
        assert_eq!(files(root, None).0, ["b.kif 1", "out/deeper/a.kif 1"]);
        // Excluding the root itself finds nothing; a root that is missing is reported.
        assert!(files(root, Some(root)).0.is_empty());
        assert_eq!(files(&root.join("missing"), None).1, 1);
    }
}
