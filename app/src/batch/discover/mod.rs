//! Finding the inputs: files, directories, archives and standard input, read entry by entry
//! and cut into [`Unit`]s.
//!
//! Every unit is produced in a fixed order (arguments in order, directory entries sorted by
//! name, archive entries in archive order), so the output order does not depend on timing.
//! Multi-game formats (CSA, USI) are cut at game boundaries into chunks of about
//! [`CHUNK_BYTES`], so a file of a million games never sits in memory whole.
//!
//! Here: the inputs in order (paths, directories walked by name, standard input), what a name
//! says (archive kind, record format, a safe relative path) and the measure of the inputs for
//! a progress bar; `archive` reads zip and tar entries (`ahead` inflates a `.tar.gz` on a thread
//! of its own), `stream` cuts a stream into units.

use std::fs::File;
use std::io::{self, BufReader, Read};
use std::path::{Component, Path, PathBuf};
use std::sync::Arc;

use kifu::diag::{Code, Diagnostic};
use kifu::formats::{Format, TextEncoding};

use super::{Content, Input, Options, Source, Unit};

mod ahead;
mod archive;
mod stream;
mod walk;
mod zip_central;
mod zip_entries;
mod zip_local;

use archive::produce_archive;
use stream::read_stream;

/// Target size of one chunk of a multi-game file, unless [`Options::chunk_bytes`] says
/// otherwise. 512 KiB: with chunks of 128 KiB, `-j2` over a file of a million CSA games spent
/// a tenth of its time more than `-j1` in handing chunks between threads (35,000 context
/// switches); with 512 KiB, 9,500, and the run 6 % faster.
pub const CHUNK_BYTES: usize = 512 * 1024;

/// The kind of container a path names, by its extension.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ArchiveKind {
    /// `.zip`
    Zip,
    /// `.tar`
    Tar,
    /// `.tar.gz` / `.tgz`
    TarGz,
}

/// The archive kind of a file name, if it is one.
pub fn archive_kind(name: &str) -> Option<ArchiveKind> {
    let lower = name.to_ascii_lowercase();
    if lower.ends_with(".zip") {
        Some(ArchiveKind::Zip)
    } else if lower.ends_with(".tar.gz") || lower.ends_with(".tgz") {
        Some(ArchiveKind::TarGz)
    } else if lower.ends_with(".tar") {
        Some(ArchiveKind::Tar)
    } else {
        None
    }
}

/// The record format of a file name, by its extension.
pub fn format_of_name(name: &str) -> Option<Format> {
    let ext = Path::new(name).extension()?.to_str()?;
    Format::from_extension(ext)
}

/// `name` without an archive extension (`games.tar.gz` -> `games`).
fn strip_archive_ext(name: &str) -> &str {
    let lower = name.to_ascii_lowercase();
    for ext in [".tar.gz", ".tgz", ".zip", ".tar"] {
        if lower.ends_with(ext) {
            return name.get(..name.len() - ext.len()).unwrap_or(name);
        }
    }
    name
}

/// A relative path made only of normal components, or `None` when `p` is absolute or climbs
/// with `..` (such a name must never decide where `convert` writes).
pub fn safe_relative(p: &Path) -> Option<PathBuf> {
    let mut out = PathBuf::new();
    for c in p.components() {
        match c {
            Component::Normal(s) => out.push(s),
            Component::CurDir => {}
            Component::ParentDir | Component::RootDir | Component::Prefix(_) => return None,
        }
    }
    if out.as_os_str().is_empty() {
        None
    } else {
        Some(out)
    }
}

/// Where units go; returns `false` to stop the run.
pub type Sink<'a> = dyn FnMut(Unit) -> bool + 'a;

/// Walks every input in order and hands its units to `sink`, each read (its bytes, or why
/// there are none).
pub fn produce(inputs: &[Input], opts: &Options, sink: &mut Sink<'_>) {
    produce_inputs(inputs, opts, false, sink);
}

/// [`produce`], where `defer` leaves the reading of files on disk that need no cutting (one
/// unit each: small, or of a one-game format) to whoever takes the unit ([`load`]): the
/// units are [`Content::Pending`], and the walk does no more than list and measure them.
pub(crate) fn produce_inputs(inputs: &[Input], opts: &Options, defer: bool, sink: &mut Sink<'_>) {
    for input in inputs {
        let go = match input {
            Input::Stdin => {
                let source = Source {
                    path: "<stdin>".to_owned(),
                    rel: Some(PathBuf::from("stdin")),
                    format: opts.input_format,
                    named_format: None,
                    file: None,
                    top_level: true,
                };
                let stdin = io::stdin();
                let lock = stdin.lock();
                read_stream(source, BufReader::new(lock), opts, opts.max_bytes, sink)
            }
            Input::Path(p) => produce_path(p, opts, defer, sink),
        };
        if !go {
            return;
        }
    }
}

/// Cuts the bytes of one file into units as [`produce`] would cut the file on disk: `path` is
/// the path shown to users (its last component names the format, or the archive kind: a zip,
/// tar or tar.gz is read entry by entry, `path/entry`). For a caller without a file system
/// (the page of `web/`, compiled to WebAssembly): nothing is read from disk, no thread is
/// started.
pub fn produce_bytes(path: &str, bytes: &[u8], opts: &Options, sink: &mut Sink<'_>) -> bool {
    let name = path.rsplit('/').next().unwrap_or(path);
    if let Some(kind) = archive_kind(name) {
        return archive::produce_archive_bytes(path, kind, bytes, opts, sink);
    }
    let source = Source {
        path: path.to_owned(),
        rel: Some(PathBuf::from(name)),
        format: opts.input_format.or_else(|| format_of_name(name)),
        named_format: None,
        file: None,
        top_level: true,
    };
    read_stream(source, bytes, opts, opts.max_bytes, sink)
}

/// A path as shown to users (in human and JSON output): its text, with each byte that is not
/// part of valid UTF-8 written as `\xNN` (Linux file names may be any bytes) and a backslash
/// as `\\`. Unlike a lossy conversion (U+FFFD for every bad byte), two different names are
/// never shown alike (a name holding the text `\xFF` is shown `\\xFF`), and the name can be
/// typed back (`$'...'` in a shell) or recovered ([`undisplay_path`]).
///
/// ```
/// use kifu_app::batch::discover::display_path;
/// assert_eq!(display_path(std::path::Path::new("棋譜/a.kif")), "棋譜/a.kif");
/// # #[cfg(unix)] {
/// use std::os::unix::ffi::OsStrExt;
/// let p = std::path::Path::new(std::ffi::OsStr::from_bytes(b"a\xff\x82.kif"));
/// assert_eq!(display_path(p), "a\\xFF\\x82.kif");
/// let literal = std::path::Path::new("a\\xFF\\x82.kif");
/// assert_eq!(display_path(literal), "a\\\\xFF\\\\x82.kif");
/// # }
/// ```
pub fn display_path(p: &Path) -> String {
    #[cfg(unix)]
    {
        use std::os::unix::ffi::OsStrExt;
        display_bytes(p.as_os_str().as_bytes())
    }
    #[cfg(not(unix))]
    {
        p.to_string_lossy().into_owned()
    }
}

/// Bytes as [`display_path`] shows a name: UTF-8 as it is but `\` as `\\`, any other byte
/// as `\xNN`.
pub(crate) fn display_bytes(b: &[u8]) -> String {
    let mut out = String::with_capacity(b.len());
    for chunk in b.utf8_chunks() {
        let valid = chunk.valid();
        if valid.contains('\\') {
            out.push_str(&valid.replace('\\', "\\\\"));
        } else {
            out.push_str(valid);
        }
        for byte in chunk.invalid() {
            out.push_str(&format!("\\x{byte:02X}"));
        }
    }
    out
}

/// The bytes of a name as [`display_path`] showed it (`\\` a backslash, `\xNN` a byte); the
/// text as it is where an escape is malformed.
pub fn undisplay_path(shown: &str) -> Vec<u8> {
    let b = shown.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'\\' {
            if b.get(i + 1) == Some(&b'\\') {
                out.push(b'\\');
                i += 2;
                continue;
            }
            let hex = b
                .get(i + 2..i + 4)
                .and_then(|h| std::str::from_utf8(h).ok());
            if b.get(i + 1) == Some(&b'x')
                && let Some(v) = hex.and_then(|h| u8::from_str_radix(h, 16).ok())
            {
                out.push(v);
                i += 4;
                continue;
            }
        }
        out.push(b[i]);
        i += 1;
    }
    out
}

fn display(p: &Path) -> String {
    display_path(p)
}

/// Puts the `format-mismatch` warning of a file read as its content says rather than as its
/// extension names ([`Source::named_format`]) first among the findings of the file's first
/// game (`first`), else of the unit: on the file's first chunk only.
pub(super) fn note_mismatch(
    unit: &Unit,
    first: Option<&mut Vec<Diagnostic>>,
    own: &mut Vec<Diagnostic>,
) {
    let named = unit.source.named_format.filter(|_| unit.chunk == 0);
    if let Some(d) = named
        .zip(unit.source.format)
        .and_then(|(n, f)| kifu::formats::text::mismatch(n, f))
    {
        first.unwrap_or(own).insert(0, d);
    }
}

fn failed(source: Source, code: Code, message: String) -> Unit {
    failed_at(Arc::new(source), Diagnostic::new(code, message), 0, 0, None)
}

/// The last unit of a source, which could not be read from its chunk `chunk` on (at line
/// `first_line`): only the diagnostic `d`.
fn failed_at(
    source: Arc<Source>,
    d: Diagnostic,
    first_line: u32,
    chunk: u32,
    encoding: Option<TextEncoding>,
) -> Unit {
    Unit {
        source,
        content: Content::Failed(d),
        first_line,
        chunk,
        last: true,
        encoding,
    }
}

fn produce_path(p: &Path, opts: &Options, defer: bool, sink: &mut Sink<'_>) -> bool {
    let meta = match std::fs::metadata(p) {
        Ok(m) => m,
        Err(e) => {
            let source = Source::named(display(p), true);
            return sink(failed(source, Code::Io, format!("cannot open: {e}")));
        }
    };
    if meta.is_dir() {
        return produce_dir(p, opts, defer, sink);
    }
    let name = p
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    if let Some(kind) = archive_kind(&name) {
        return produce_archive(p, kind, PathBuf::new(), true, opts, defer, sink);
    }
    let source = Source {
        path: display(p),
        // The name as it is, byte for byte, for `convert -o` to mirror.
        rel: Some(p.file_name().map(PathBuf::from).unwrap_or_default()),
        format: opts.input_format.or_else(|| format_of_name(&name)),
        named_format: None,
        file: Some(p.to_path_buf()),
        top_level: true,
    };
    // Only a regular file (not a pipe or a device) is deferred.
    let pending = defer && meta.is_file() && whole(source.format, opts, || Some(meta.len()));
    produce_file(source, p, pending, opts, sink)
}

/// Whether a file of `format` is read whole by a worker (it needs no cutting into chunks): a
/// one-game format, whatever its size (not measured then), or no bigger than a chunk.
fn whole(format: Option<Format>, opts: &Options, size: impl FnOnce() -> Option<u64>) -> bool {
    format.is_some_and(Format::one_game_per_file)
        || size().is_some_and(|n| n <= opts.chunk() as u64)
}

/// Reads the file at `p`, or, when it is to be read whole (`pending`, see [`whole`]), hands it
/// on unread ([`Content::Pending`]).
fn produce_file(
    source: Source,
    p: &Path,
    pending: bool,
    opts: &Options,
    sink: &mut Sink<'_>,
) -> bool {
    if pending {
        return sink(Unit {
            source: Arc::new(source),
            content: Content::Pending,
            first_line: 0,
            chunk: 0,
            last: true,
            encoding: opts.encoding,
        });
    }
    match File::open(p) {
        Ok(f) => {
            // A regular file's size when opened: one that shrinks while it is read (cut by
            // another program) is an `io` finding, not a clean, cut game.
            let expected = f.metadata().ok().filter(|m| m.is_file()).map(|m| m.len());
            let f = Shrink {
                inner: f,
                expected,
                got: 0,
            };
            // A buffer no bigger than the file: the reader's buffer is zeroed before its
            // first fill (`Shrink` has no `read_buf` of its own), which for 64 KiB took a
            // fifth of validating a directory of single-game KIF files.
            let room = expected
                .and_then(|n| usize::try_from(n).ok())
                .map_or(64 * 1024, |n| n.saturating_add(1).clamp(256, 64 * 1024));
            read_stream(
                source,
                BufReader::with_capacity(room, f),
                opts,
                opts.max_bytes,
                sink,
            )
        }
        Err(e) => sink(failed(source, Code::Io, format!("cannot open: {e}"))),
    }
}

/// A file read to its end that fails, rather than ends, when it ends short of the size it had
/// when opened.
struct Shrink<R> {
    inner: R,
    expected: Option<u64>,
    got: u64,
}

impl<R: io::Read> io::Read for Shrink<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.got += n as u64;
        if n == 0
            && !buf.is_empty()
            && let Some(expected) = self.expected
            && self.got < expected
        {
            return Err(io::Error::new(
                io::ErrorKind::UnexpectedEof,
                format!(
                    "the file shrank while it was read: it ended after {} of the {expected} \
                     bytes it had when opened",
                    self.got
                ),
            ));
        }
        Ok(n)
    }
}

/// Reads a [`Content::Pending`] unit (or inflates a [`Content::Zipped`] one) as [`produce`]
/// would have: into `out`, one unit (the file or entry whole), or several if the file grew
/// past a chunk since it was measured. Any other unit is passed on as it is. A file of a
/// format that may hold many games and bigger than a chunk is not read: the unit is passed
/// on still [`Content::Pending`], for the caller to cut in order ([`produce_file`] through
/// [`produce_source`]), so that a big file in a directory is never held whole.
pub(crate) fn load(unit: Unit, opts: &Options, out: &mut Vec<Unit>) {
    let zipped = match unit.content {
        Content::Pending => None,
        Content::Zipped(z) => Some(z),
        content => {
            out.push(Unit { content, ..unit });
            return;
        }
    };
    let source = Arc::unwrap_or_clone(unit.source);
    if let Some(z) = zipped {
        zip_entries::inflate_entry(source, *z, opts, &mut |u| {
            out.push(u);
            true
        });
        return;
    }
    let Some(p) = source.file.clone() else {
        out.push(failed(source, Code::Io, "cannot read: no file".to_owned()));
        return;
    };
    let mut f = match File::open(&p) {
        Ok(f) => f,
        Err(e) => {
            out.push(failed(source, Code::Io, format!("cannot open: {e}")));
            return;
        }
    };
    let mut sink = |u| {
        out.push(u);
        true
    };
    // Read into its bytes (no buffer to zero) when it ends within a chunk. A bigger file of a
    // format that may hold many games is handed back unread, measured by reading it (with
    // `fstat` instead it was a syscall more per file: 2 % of `-j2` on many small files).
    let whole = whole(source.format, opts, || None);
    match read_head(&mut f, opts.chunk()) {
        Ok((head, true)) => {
            read_stream(source, head.as_slice(), opts, opts.max_bytes, &mut sink);
        }
        // Opened again and cut in order by the caller; a pipe, which cannot be opened again
        // at its start, is read on from here.
        Ok((_, false)) if !whole && f.metadata().is_ok_and(|m| m.is_file()) => {
            sink(Unit {
                source: Arc::new(source),
                content: Content::Pending,
                ..unit
            });
        }
        Ok((head, false)) => {
            let rest = head
                .as_slice()
                .chain(BufReader::with_capacity(64 * 1024, f));
            read_stream(source, rest, opts, opts.max_bytes, &mut sink);
        }
        Err(e) => {
            sink(failed(source, Code::Io, format!("cannot read: {e}")));
        }
    }
}

/// Reads `reader` to its end or past `max` bytes: what was read, and whether that is all
/// (`false`: more than `max` bytes, the rest unread).
fn read_head(reader: &mut impl Read, max: usize) -> io::Result<(Vec<u8>, bool)> {
    // Room for a small file at once: the bytes go straight from the file into it.
    let mut head = Vec::with_capacity(max.saturating_add(1).min(16 * 1024));
    reader
        .take(u64::try_from(max).unwrap_or(u64::MAX).saturating_add(1))
        .read_to_end(&mut head)?;
    let all = head.len() <= max;
    Ok((head, all))
}

/// Cuts the file of a unit [`load`] passed on unread (too big to read whole) into units, in
/// order, as [`produce`] would have.
pub(crate) fn produce_source(unit: &Unit, opts: &Options, sink: &mut Sink<'_>) -> bool {
    let source = (*unit.source).clone();
    match source.file.clone() {
        Some(p) => produce_file(source, &p, false, opts, sink),
        None => sink(failed(source, Code::Io, "cannot read: no file".to_owned())),
    }
}

/// Whether `path`'s name is one a directory's records or archives have (what the walk of a
/// directory reads).
fn has_record_name(path: &Path) -> bool {
    path.file_name()
        .map(|n| n.to_string_lossy())
        .is_some_and(|n| archive_kind(&n).is_some() || format_of_name(&n).is_some())
}

fn produce_dir(root: &Path, opts: &Options, defer: bool, sink: &mut Sink<'_>) -> bool {
    // Whether any record file or archive was found: a directory without one is reported.
    let mut found = false;
    let go = walk::walk(root, opts.exclude.as_deref(), &mut |step| {
        let file = match step {
            walk::Step::File(f) => f,
            walk::Step::Dir => return true,
            walk::Step::Failed(path, e) => {
                // A record file that cannot be read is the directory's finding, not "no
                // record here" as well.
                if has_record_name(&path) {
                    found = true;
                }
                let source = Source::named(display(&path), false);
                return sink(failed(source, Code::Io, format!("cannot read: {e}")));
            }
            walk::Step::Special(path) => {
                if !has_record_name(&path) {
                    return true;
                }
                found = true;
                let source = Source::named(display(&path), false);
                return sink(failed(
                    source,
                    Code::SkippedEntry,
                    "not a regular file (a FIFO, a socket or a device): not read inside a \
                     directory; name it on the command line to read it"
                        .to_owned(),
                ));
            }
        };
        let path = file.path.as_path();
        let name = file.name.to_string_lossy();
        let rel = path.strip_prefix(root).ok().and_then(safe_relative);
        if let Some(kind) = archive_kind(&name) {
            found = true;
            let base = rel
                .as_deref()
                .map(|r| r.with_file_name(strip_archive_ext(&name)))
                .unwrap_or_else(|| PathBuf::from(strip_archive_ext(&name)));
            produce_archive(path, kind, base, false, opts, defer, sink)
        } else if let Some(fmt) = format_of_name(&name) {
            found = true;
            let source = Source {
                path: display(path),
                rel,
                format: opts.input_format.or(Some(fmt)),
                named_format: None,
                file: Some(path.to_path_buf()),
                top_level: false,
            };
            // Not measured here: on many small files the measuring (a `statx` each) was a
            // tenth of `-j2`'s time, on the one reading thread. The worker that takes the
            // unit measures the file it opened ([`load`]) and hands a big one back, to be
            // cut into chunks in order ([`Content::Pending`] after `load`).
            let pending = defer;
            produce_file(source, path, pending, opts, sink)
        } else {
            true
        }
    });
    if !go {
        return false;
    }
    if found {
        return true;
    }
    let source = Source::named(display(root), true);
    let message = "no record files in this directory".to_owned();
    sink(failed(source, Code::EmptyInput, message))
}

/// Whether `inputs` hold at most a chunk ([`Options::chunk_bytes`]) of record files on disk,
/// found by looking at no more than a few hundred directory entries: work no second thread
/// could share (a file or chunk is one unit), for which starting threads costs more than it
/// gains. `false` for standard input, an archive, or when the look was cut short.
pub(crate) fn at_most_a_chunk(inputs: &[Input], opts: &Options) -> bool {
    const LOOK: usize = 256;
    let (mut bytes, mut looked) = (0u64, 0usize);
    let mut add = |meta: io::Result<std::fs::Metadata>| match meta {
        Ok(m) => {
            bytes = bytes.saturating_add(m.len());
            bytes <= opts.chunk() as u64
        }
        Err(_) => false,
    };
    for input in inputs {
        let Input::Path(p) = input else {
            return false;
        };
        looked += 1;
        if looked > LOOK || archive_kind(&p.to_string_lossy()).is_some() {
            return false;
        }
        let meta = match std::fs::metadata(p) {
            Ok(m) => m,
            Err(_) => continue,
        };
        if !meta.is_dir() {
            if !add(Ok(meta)) {
                return false;
            }
            continue;
        }
        let small = walk::walk(p, None, &mut |step| {
            looked += 1;
            let walk::Step::File(f) = step else {
                return looked <= LOOK;
            };
            let name = f.name.to_string_lossy();
            if looked > LOOK || archive_kind(&name).is_some() {
                return false;
            }
            format_of_name(&name).is_none() || add(f.metadata())
        });
        if !small {
            return false;
        }
    }
    true
}

/// The record files `inputs` name and their total size in bytes, for a progress bar; `None`
/// when that is not known in advance (standard input, or an archive).
pub fn measure(inputs: &[Input]) -> Option<(u64, u64)> {
    let (mut n, mut bytes) = (0u64, 0u64);
    for input in inputs {
        match input {
            Input::Stdin => return None,
            Input::Path(p) if p.is_dir() => {
                let mut archive = false;
                walk::walk(p, None, &mut |step| {
                    let walk::Step::File(f) = step else {
                        return true;
                    };
                    let name = f.name.to_string_lossy();
                    archive = archive_kind(&name).is_some();
                    if !archive && format_of_name(&name).is_some() {
                        n += 1;
                        bytes = bytes.saturating_add(f.metadata().map_or(0, |m| m.len()));
                    }
                    !archive
                });
                if archive {
                    return None;
                }
            }
            Input::Path(p) => {
                if archive_kind(&p.to_string_lossy()).is_some() {
                    return None;
                }
                n += 1;
                bytes = bytes.saturating_add(std::fs::metadata(p).map_or(0, |m| m.len()));
            }
        }
    }
    Some((n, bytes))
}

#[cfg(test)]
mod tests;
