//! Finding the inputs: files, directories, archives and standard input, read entry by entry
//! and cut into [`Unit`]s.
//!
//! Every unit is produced in a fixed order (arguments in order, directory entries sorted by
//! name, archive entries in archive order), so the output order does not depend on timing.
//! Multi-game formats (CSA, USI) are cut at game boundaries into chunks of about
//! [`CHUNK_BYTES`], so a file of a million games never sits in memory whole.

use std::cell::Cell;
use std::fs::File;
use std::io::{self, BufRead, BufReader, Read};
use std::path::{Component, Path, PathBuf};
use std::sync::Arc;

use crate::diag::{Code, Diagnostic};
use crate::formats::{Format, ReadOptions, TextEncoding, text};

use super::{Content, Input, Options, Source, Unit};

/// Target size of one chunk of a multi-game file.
pub const CHUNK_BYTES: usize = 128 * 1024;

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

/// Walks every input in order and hands its units to `sink`.
pub fn produce(inputs: &[Input], opts: &Options, sink: &mut Sink<'_>) {
    for input in inputs {
        let go = match input {
            Input::Stdin => {
                let source = Source {
                    path: "<stdin>".to_owned(),
                    rel: Some(PathBuf::from("stdin")),
                    format: opts.input_format,
                    file: None,
                    top_level: true,
                };
                let stdin = io::stdin();
                let lock = stdin.lock();
                read_stream(source, BufReader::new(lock), opts, opts.max_bytes, sink)
            }
            Input::Path(p) => produce_path(p, opts, sink),
        };
        if !go {
            return;
        }
    }
}

fn display(p: &Path) -> String {
    p.to_string_lossy().into_owned()
}

fn failed(source: Source, code: Code, message: String) -> Unit {
    Unit {
        source: Arc::new(source),
        content: Content::Failed(Diagnostic::new(code, message)),
        first_line: 0,
        chunk: 0,
        last: true,
        encoding: None,
    }
}

fn produce_path(p: &Path, opts: &Options, sink: &mut Sink<'_>) -> bool {
    let meta = match std::fs::metadata(p) {
        Ok(m) => m,
        Err(e) => {
            let source = Source::named(display(p), true);
            return sink(failed(source, Code::Io, format!("cannot open: {e}")));
        }
    };
    if meta.is_dir() {
        return produce_dir(p, opts, sink);
    }
    let name = p
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    if let Some(kind) = archive_kind(&name) {
        return produce_archive(p, kind, PathBuf::new(), true, opts, sink);
    }
    let source = Source {
        path: display(p),
        rel: Some(PathBuf::from(&name)),
        format: opts.input_format.or_else(|| format_of_name(&name)),
        file: Some(p.to_path_buf()),
        top_level: true,
    };
    produce_file(source, p, opts, sink)
}

fn produce_file(source: Source, p: &Path, opts: &Options, sink: &mut Sink<'_>) -> bool {
    match File::open(p) {
        Ok(f) => read_stream(
            source,
            BufReader::with_capacity(64 * 1024, f),
            opts,
            opts.max_bytes,
            sink,
        ),
        Err(e) => sink(failed(source, Code::Io, format!("cannot open: {e}"))),
    }
}

fn produce_dir(root: &Path, opts: &Options, sink: &mut Sink<'_>) -> bool {
    let walker = walkdir::WalkDir::new(root)
        .follow_links(true)
        // By name, as `sort_by_file_name` does, but without finding each name again in its
        // path at every comparison (a tenth of the reader's time on 1,000 small files):
        // siblings share their parent's path, so their whole paths compare as their names.
        .sort_by(|a, b| a.path().as_os_str().cmp(b.path().as_os_str()))
        .into_iter()
        .filter_entry(|e| {
            !(e.file_type().is_dir()
                && opts
                    .exclude
                    .as_deref()
                    .is_some_and(|x| e.path().canonicalize().is_ok_and(|c| c == x)))
        });
    for entry in walker {
        let entry = match entry {
            Ok(e) => e,
            Err(e) => {
                if e.loop_ancestor().is_some() {
                    // A symbolic link back to an ancestor: its files are found once already.
                    continue;
                }
                let path = e.path().map(display).unwrap_or_else(|| display(root));
                let source = Source::named(path, false);
                if !sink(failed(source, Code::Io, format!("cannot read: {e}"))) {
                    return false;
                }
                continue;
            }
        };
        if !entry.file_type().is_file() {
            continue;
        }
        let path = entry.path();
        let name = entry.file_name().to_string_lossy().into_owned();
        let rel = path.strip_prefix(root).ok().and_then(safe_relative);
        let go = if let Some(kind) = archive_kind(&name) {
            let base = rel
                .as_deref()
                .map(|r| r.with_file_name(strip_archive_ext(&name)))
                .unwrap_or_else(|| PathBuf::from(strip_archive_ext(&name)));
            produce_archive(path, kind, base, false, opts, sink)
        } else if let Some(fmt) = format_of_name(&name) {
            let source = Source {
                path: display(path),
                rel,
                format: opts.input_format.or(Some(fmt)),
                file: Some(path.to_path_buf()),
                top_level: false,
            };
            produce_file(source, path, opts, sink)
        } else {
            true
        };
        if !go {
            return false;
        }
    }
    true
}

fn produce_archive(
    p: &Path,
    kind: ArchiveKind,
    base: PathBuf,
    top_level: bool,
    opts: &Options,
    sink: &mut Sink<'_>,
) -> bool {
    let file = match File::open(p) {
        Ok(f) => f,
        Err(e) => {
            let source = Source::named(display(p), top_level);
            return sink(failed(source, Code::Io, format!("cannot open: {e}")));
        }
    };
    let shown = display(p);
    let size = file.metadata().map_or(0, |m| m.len());
    let total = Cell::new(0);
    let archive = ArchiveBound::new(opts, size, &total);
    match kind {
        ArchiveKind::Zip => produce_zip(&shown, file, &base, &archive, opts, sink),
        ArchiveKind::Tar => produce_tar(&shown, BufReader::new(file), &base, opts, sink),
        ArchiveKind::TarGz => produce_tar(
            &shown,
            Expansion::new(
                flate2::read::MultiGzDecoder::new(BufReader::new(file)),
                None,
                archive,
            ),
            &base,
            opts,
            sink,
        ),
    }
}

/// How far a whole archive may expand, and how far it has: entries together may expand to
/// [`Options::ratio_free_bytes`] or [`Options::max_expansion_ratio`] times the archive's size,
/// whichever is more.
#[derive(Clone, Copy)]
struct ArchiveBound<'a> {
    limit: u64,
    size: u64,
    ratio: u64,
    total: &'a Cell<u64>,
}

impl<'a> ArchiveBound<'a> {
    fn new(opts: &Options, size: u64, total: &'a Cell<u64>) -> Self {
        ArchiveBound {
            limit: expansion_limit(opts, size),
            size,
            ratio: opts.max_expansion_ratio,
            total,
        }
    }
}

/// The most bytes `compressed` bytes may expand to: [`Options::ratio_free_bytes`] or
/// [`Options::max_expansion_ratio`] times `compressed`, whichever is more (no bound when the
/// ratio is 0).
fn expansion_limit(opts: &Options, compressed: u64) -> u64 {
    if opts.max_expansion_ratio == 0 {
        return u64::MAX;
    }
    opts.max_expansion_ratio
        .saturating_mul(compressed)
        .max(opts.ratio_free_bytes)
}

/// A zip entry's own bound: its compressed size and the most it may expand to.
#[derive(Clone, Copy)]
struct EntryBound {
    limit: u64,
    compressed: u64,
    ratio: u64,
}

/// A reader of decompressed bytes that fails (with an `io` error naming the limit) once an
/// entry or the whole archive has expanded past its bound: the zip-bomb guard.
struct Expansion<'a, R> {
    inner: R,
    read: u64,
    entry: Option<EntryBound>,
    archive: ArchiveBound<'a>,
}

impl<'a, R: Read> Expansion<'a, R> {
    fn new(inner: R, entry: Option<EntryBound>, archive: ArchiveBound<'a>) -> Self {
        Expansion {
            inner,
            read: 0,
            entry,
            archive,
        }
    }
}

impl<R: Read> Read for Expansion<'_, R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.read = self.read.saturating_add(n as u64);
        let total = self.archive.total.get().saturating_add(n as u64);
        self.archive.total.set(total);
        if let Some(e) = self.entry
            && self.read > e.limit
        {
            return Err(io::Error::other(format!(
                "the entry expands past the limit of {} bytes ({} times its compressed size \
                 of {} bytes; zip-bomb guard, --max-expansion-ratio); the rest is not read",
                e.limit, e.ratio, e.compressed
            )));
        }
        let a = self.archive;
        if total > a.limit {
            return Err(io::Error::other(format!(
                "the archive expands past the limit of {} bytes ({} times its size of {} \
                 bytes; zip-bomb guard, --max-expansion-ratio); the rest is not read",
                a.limit, a.ratio, a.size
            )));
        }
        Ok(n)
    }
}

fn entry_source(archive: &str, name: &str, base: &Path, opts: &Options) -> Source {
    let rel = safe_relative(Path::new(name)).map(|r| base.join(r));
    Source {
        path: format!("{archive}/{}", name.trim_start_matches('/')),
        rel,
        format: opts.input_format.or_else(|| format_of_name(name)),
        file: None,
        top_level: false,
    }
}

fn archive_failure(archive: &str, e: impl std::fmt::Display) -> Unit {
    let source = Source::named(archive.to_owned(), true);
    failed(source, Code::Io, format!("cannot read archive: {e}"))
}

fn produce_zip(
    archive: &str,
    file: File,
    base: &Path,
    bound: &ArchiveBound<'_>,
    opts: &Options,
    sink: &mut Sink<'_>,
) -> bool {
    let mut zip = match zip::ZipArchive::new(BufReader::new(file)) {
        Ok(z) => z,
        Err(e) => return sink(archive_failure(archive, e)),
    };
    for i in 0..zip.len() {
        if bound.total.get() > bound.limit {
            // Every further entry would fail at once.
            return sink(archive_over_bound(archive, bound, zip.len() - i));
        }
        let entry = match zip.by_index(i) {
            Ok(e) => e,
            Err(e) => {
                let source = Source::named(format!("{archive}/#{i}"), false);
                if !sink(failed(source, Code::Io, format!("cannot read entry: {e}"))) {
                    return false;
                }
                continue;
            }
        };
        if entry.is_dir() {
            continue;
        }
        let name = entry.name().to_owned();
        // The zip reader never reads more than the declared compressed size of an entry, so
        // that size bounds what a lying header can make it inflate.
        let compressed = entry.compressed_size();
        let entry_bound = EntryBound {
            limit: expansion_limit(opts, compressed),
            compressed,
            ratio: opts.max_expansion_ratio,
        };
        let guarded = Expansion::new(entry, Some(entry_bound), *bound);
        if !produce_entry(archive, &name, guarded, base, opts, sink) {
            return false;
        }
    }
    true
}

/// The unit that says an archive's remaining `left` entries are not read because it expanded
/// past its bound.
fn archive_over_bound(archive: &str, bound: &ArchiveBound<'_>, left: usize) -> Unit {
    let source = Source::named(archive.to_owned(), true);
    failed(
        source,
        Code::Io,
        format!(
            "{left} entries not read: the archive expanded past the limit of {} bytes ({} times \
             its size of {} bytes; zip-bomb guard, --max-expansion-ratio)",
            bound.limit, bound.ratio, bound.size
        ),
    )
}

/// Reads one archive entry, unless its name is no record's and no input format was forced.
/// Returns false when the run is to stop.
fn produce_entry(
    archive: &str,
    name: &str,
    entry: impl Read,
    base: &Path,
    opts: &Options,
    sink: &mut Sink<'_>,
) -> bool {
    if format_of_name(name).is_none() && opts.input_format.is_none() {
        return true;
    }
    let source = entry_source(archive, name, base, opts);
    read_stream(
        source,
        BufReader::new(entry),
        opts,
        opts.max_entry_bytes,
        sink,
    )
}

fn produce_tar(
    archive: &str,
    reader: impl Read,
    base: &Path,
    opts: &Options,
    sink: &mut Sink<'_>,
) -> bool {
    let hit_end = Cell::new(false);
    let mut tar = tar::Archive::new(EndWatch {
        inner: reader,
        hit_end: &hit_end,
    });
    let entries = match tar.entries() {
        Ok(e) => e,
        Err(e) => return sink(archive_failure(archive, e)),
    };
    for entry in entries {
        let entry = match entry {
            Ok(e) => e,
            Err(e) => {
                // A damaged tar stream cannot be resynchronised: report and stop this archive.
                return sink(archive_failure(archive, e));
            }
        };
        let kind = entry.header().entry_type();
        let name = match entry.path() {
            Ok(p) => p.to_string_lossy().into_owned(),
            Err(e) => {
                if kind.is_file() && !sink(archive_failure(archive, e)) {
                    return false;
                }
                continue;
            }
        };
        if kind.is_gnu_sparse() && format_of_name(&name).is_some() {
            // A sparse entry's holes would be zeros the archive does not hold (a tiny tar
            // could stand for gigabytes), and no record is ever stored sparse; but a record
            // skipped is a record lost, so it is said. (Links are aliases of other entries,
            // read under their own names.)
            let source = entry_source(archive, &name, base, opts);
            let message = "a sparse entry (GNU tar): not read".to_owned();
            if !sink(failed(source, Code::Io, message)) {
                return false;
            }
            continue;
        }
        if !kind.is_file() {
            continue;
        }
        let size = entry.size();
        let whole = Whole {
            inner: entry,
            left: size,
            size,
        };
        if !produce_entry(archive, &name, whole, base, opts, sink) {
            return false;
        }
    }
    // The entries ended at the end of the bytes, not at the two zero blocks every tar writer
    // puts last: the archive was cut at an entry's edge (or is empty).
    if hit_end.get() {
        return sink(archive_failure(
            archive,
            "the archive ends without its end-of-archive blocks: it is truncated, and entries \
             may be missing",
        ));
    }
    // Read what follows the end (the rest of the last record, a gzip trailer), so that a
    // tar.gz's checksum is checked: a damaged deflate stream can read as other bytes, and
    // only the gzip CRC tells.
    match io::copy(&mut tar.into_inner(), &mut io::sink()) {
        Ok(_) => true,
        Err(e) => sink(archive_failure(archive, e)),
    }
}

/// A tar stream that notes whether a read met the end of its bytes.
struct EndWatch<'a, R> {
    inner: R,
    hit_end: &'a Cell<bool>,
}

impl<R: Read> Read for EndWatch<'_, R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.inner.read(buf)?;
        if n == 0 && !buf.is_empty() {
            self.hit_end.set(true);
        }
        Ok(n)
    }
}

/// A tar entry that fails, rather than ending early, when the archive holds fewer bytes of it
/// than its header states (the tar reader would hand out the short entry as if whole).
struct Whole<R> {
    inner: R,
    left: u64,
    size: u64,
}

impl<R: Read> Read for Whole<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.inner.read(buf)?;
        if n == 0 && !buf.is_empty() && self.left > 0 {
            return Err(io::Error::new(
                io::ErrorKind::UnexpectedEof,
                format!(
                    "the entry ends {} bytes short of its stated size of {} bytes: the archive \
                     is truncated",
                    self.left, self.size
                ),
            ));
        }
        self.left = self.left.saturating_sub(n as u64);
        Ok(n)
    }
}

/// The encoding the later chunks of a file are read in: the one its first chunk decodes in
/// (as `parse_unit` decodes it), so that a chunk of plain ASCII does not change the encoding.
///
/// EUC-JP is not passed on: each later chunk of an EUC-JP file detects its encoding again, as
/// it always has. Passing it on would change what is read: a later chunk that happens to be
/// clean CP932 (EUC-JP kana and most kanji are) reads as CP932 today.
fn first_chunk_encoding(bytes: &[u8], format: Option<Format>) -> Option<TextEncoding> {
    match text::decode(bytes, format, None).encoding {
        TextEncoding::EucJp => None,
        e => Some(e),
    }
}

/// Reads one file's bytes: whole for one-game formats, in chunks cut at game boundaries for
/// CSA and USI. At most `limit` bytes are read from one stream.
fn read_stream(
    mut source: Source,
    mut reader: impl BufRead,
    opts: &Options,
    limit: u64,
    sink: &mut Sink<'_>,
) -> bool {
    if source.format.is_none() {
        // Look at the start to decide whether the stream can be cut into games.
        let head = match reader.fill_buf() {
            Ok(h) => h,
            Err(e) => return sink(failed(source, Code::Io, format!("cannot read: {e}"))),
        };
        let sniff = ReadOptions {
            encoding: opts.encoding,
            ..ReadOptions::default()
        };
        source.format = sniff.detect(&sniff.decode(head).text);
    }
    let source = Arc::new(source);
    let splittable = source.format.is_some_and(|f| !f.one_game_per_file());
    if !splittable {
        let mut bytes = Vec::new();
        let (limit, what) = if opts.max_game_bytes < limit {
            (opts.max_game_bytes, "for one game")
        } else {
            (limit, "")
        };
        let mut limited = (&mut reader).take(limit.saturating_add(1));
        let unit = match limited.read_to_end(&mut bytes) {
            Ok(n) if n as u64 > limit => Unit {
                source,
                content: Content::Failed(Diagnostic::new(
                    Code::Io,
                    format!("larger than the limit of {limit} bytes {what}; not read"),
                )),
                first_line: 0,
                chunk: 0,
                last: true,
                encoding: None,
            },
            Ok(_) => Unit {
                source,
                content: Content::Bytes(bytes),
                first_line: 0,
                chunk: 0,
                last: true,
                encoding: opts.encoding,
            },
            Err(e) => Unit {
                source,
                content: Content::Failed(Diagnostic::new(Code::Io, format!("cannot read: {e}"))),
                first_line: 0,
                chunk: 0,
                last: true,
                encoding: None,
            },
        };
        return sink(unit);
    }
    let csa = source.format == Some(Format::Csa);
    let max_game = usize::try_from(opts.max_game_bytes).unwrap_or(usize::MAX);
    // The chunk being gathered; starts at a line start. Grown as needed: most files are far
    // smaller than a chunk.
    let mut buf: Vec<u8> = Vec::new();
    // Complete lines of `buf` looked at so far end here (a line start), and their number.
    let mut scanned = 0usize;
    let mut lines_in_buf = 0u32;
    // `lines_in_buf` counts the lines of `buf` up to here.
    let mut counted = 0usize;
    let mut first_line = 0u32;
    let mut chunk = 0u32;
    let mut total: u64 = 0;
    let mut encoding = opts.encoding;
    // Where the game being read starts in `buf` (after the last `/` line for CSA; the line
    // for USI), and the lines of `buf` before it.
    let mut game_start = 0usize;
    let mut lines_before_game = 0u32;
    loop {
        // Read a block, not a line at a time: line-by-line reading was a tenth of the CPU
        // time of validating a multi-game file, and the reader thread's share limits what a
        // second worker can add. Never more than the stream limit allows (plus one byte).
        let room =
            usize::try_from(limit.saturating_sub(total).saturating_add(1)).unwrap_or(usize::MAX);
        let n = loop {
            match reader.fill_buf() {
                Ok(block) => {
                    let take = block.len().min(room);
                    buf.extend_from_slice(block.get(..take).unwrap_or_default());
                    break take;
                }
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => {
                    let d = Diagnostic::new(Code::Io, format!("cannot read: {e}"));
                    return sink(Unit {
                        source,
                        content: Content::Failed(d),
                        first_line,
                        chunk,
                        last: true,
                        encoding,
                    });
                }
            }
        };
        reader.consume(n);
        total = total.saturating_add(n as u64);
        let eof = n == 0;
        // Bytes of `buf` within the stream limit: a line that reaches past it is not used.
        let over_limit = usize::try_from(total.saturating_sub(limit)).unwrap_or(usize::MAX);
        let usable = buf.len().saturating_sub(over_limit);
        // Find the game boundaries among the complete lines (for CSA, SIMD searches for `/`
        // and line ends rather than a walk over every line); check game sizes; cut.
        loop {
            let rest = buf.get(scanned..usable).unwrap_or_default();
            let end = match next_boundary(rest, csa) {
                Next::Boundary(off) => scanned + off,
                Next::None(advance) => {
                    scanned += advance;
                    break;
                }
            };
            lines_in_buf =
                lines_in_buf.saturating_add(count_lines(buf.get(counted..end).unwrap_or_default()));
            counted = end;
            if end - game_start > max_game {
                // Too big: `usable` is past `end`, so the test below refuses it.
                break;
            }
            scanned = end;
            game_start = end;
            lines_before_game = lines_in_buf;
            if end >= CHUNK_BYTES {
                let mut rest_buf = Vec::with_capacity(CHUNK_BYTES + 64 * 1024);
                rest_buf.extend_from_slice(buf.get(end..).unwrap_or_default());
                buf.truncate(end);
                let bytes = std::mem::replace(&mut buf, rest_buf);
                if chunk == 0 && encoding.is_none() {
                    encoding = first_chunk_encoding(&bytes, source.format);
                }
                let unit = Unit {
                    source: Arc::clone(&source),
                    content: Content::Bytes(bytes),
                    first_line,
                    chunk,
                    last: false,
                    encoding,
                };
                if !sink(unit) {
                    return false;
                }
                first_line = first_line.saturating_add(lines_in_buf);
                chunk = chunk.saturating_add(1);
                lines_in_buf = 0;
                lines_before_game = 0;
                scanned = 0;
                counted = 0;
                game_start = 0;
            }
        }
        // The current game, with its unfinished line (or the last, unterminated one), or a
        // game found too big above.
        if usable.saturating_sub(game_start) > max_game {
            return game_too_big(
                &source,
                &mut buf,
                game_start,
                &mut first_line,
                &mut chunk,
                lines_before_game,
                encoding,
                max_game,
                sink,
            );
        }
        if total > limit {
            let d = Diagnostic::new(
                Code::Io,
                format!("larger than the limit of {limit} bytes; the rest is not read"),
            );
            return sink(Unit {
                source,
                content: Content::Failed(d),
                first_line,
                chunk,
                last: true,
                encoding,
            });
        }
        if eof {
            // A file of one chunk is left to `parse_unit` to detect its encoding (the same
            // detection on the same bytes); later chunks use the first chunk's.
            return sink(Unit {
                source,
                content: Content::Bytes(buf),
                first_line,
                chunk,
                last: true,
                encoding,
            });
        }
    }
}

/// A game of a multi-game stream is over `max_game` bytes: the whole games before it (in the
/// chunk being gathered) go out as one unit, then an `io` failure at the line the big game
/// starts on ends the file.
/// What [`next_boundary`] found.
enum Next {
    /// A line that ends a game ends at this offset (after its line end).
    Boundary(usize),
    /// No such complete line; the lines before this offset (a line start) need no second
    /// look.
    None(usize),
}

/// The next complete line of `rest` (which starts at a line start) after which a unit may
/// be cut: a `/` line for CSA, any line for the other formats.
fn next_boundary(rest: &[u8], csa: bool) -> Next {
    if !csa {
        return match memchr::memchr(b'\n', rest) {
            Some(i) => Next::Boundary(i + 1),
            None => Next::None(0),
        };
    }
    let mut from = 0usize;
    loop {
        let tail = rest.get(from..).unwrap_or_default();
        let Some(i) = memchr::memchr(b'/', tail) else {
            return Next::None(memchr::memrchr(b'\n', rest).map_or(0, |j| j + 1));
        };
        let slash = from + i;
        let line_start =
            memchr::memrchr(b'\n', rest.get(..slash).unwrap_or_default()).map_or(0, |j| j + 1);
        let Some(j) = memchr::memchr(b'\n', rest.get(slash..).unwrap_or_default()) else {
            return Next::None(line_start);
        };
        let line_end = slash + j + 1;
        if rest
            .get(line_start..line_end)
            .unwrap_or_default()
            .trim_ascii()
            == b"/"
        {
            return Next::Boundary(line_end);
        }
        from = line_end;
    }
}

/// Line ends in `b` (a plain count, which the compiler vectorises).
fn count_lines(b: &[u8]) -> u32 {
    // Sums of 0/1 bytes over blocks (a form the compiler turns into vector compares).
    let mut n = 0usize;
    let mut blocks = b.chunks_exact(64);
    for block in &mut blocks {
        n += block.iter().map(|&c| u8::from(c == b'\n')).sum::<u8>() as usize;
    }
    n += blocks.remainder().iter().filter(|&&c| c == b'\n').count();
    u32::try_from(n).unwrap_or(u32::MAX)
}

#[allow(clippy::too_many_arguments)]
fn game_too_big(
    source: &Arc<Source>,
    buf: &mut Vec<u8>,
    game_start: usize,
    first_line: &mut u32,
    chunk: &mut u32,
    lines_before_game: u32,
    mut encoding: Option<TextEncoding>,
    max_game: usize,
    sink: &mut Sink<'_>,
) -> bool {
    let d = Diagnostic::new(
        Code::Io,
        format!("a game larger than the limit of {max_game} bytes; the rest is not read"),
    )
    .at(crate::record::Span {
        line: first_line
            .saturating_add(lines_before_game)
            .saturating_add(1),
        column: 1,
    });
    // The whole games read before it are still worth reading.
    buf.truncate(game_start);
    if !buf.is_empty() {
        if *chunk == 0 && encoding.is_none() {
            encoding = first_chunk_encoding(buf, source.format);
        }
        let unit = Unit {
            source: Arc::clone(source),
            content: Content::Bytes(std::mem::take(buf)),
            first_line: *first_line,
            chunk: *chunk,
            last: false,
            encoding,
        };
        if !sink(unit) {
            return false;
        }
        *first_line = first_line.saturating_add(lines_before_game);
        *chunk = chunk.saturating_add(1);
    }
    sink(Unit {
        source: Arc::clone(source),
        content: Content::Failed(d),
        first_line: *first_line,
        chunk: *chunk,
        last: true,
        encoding,
    })
}

/// Counts the record files `inputs` name, for a progress bar's length; `None` when that is not
/// known in advance (standard input, or an archive, whose entries are only counted as read).
pub fn count_files(inputs: &[Input]) -> Option<u64> {
    measure(inputs).map(|(files, _)| files)
}

/// The record files `inputs` name and their total size in bytes, for a progress bar; `None`
/// when that is not known in advance (standard input, or an archive).
pub fn measure(inputs: &[Input]) -> Option<(u64, u64)> {
    let (mut n, mut bytes) = (0u64, 0u64);
    let size = |e: &walkdir::DirEntry| e.metadata().map_or(0, |m| m.len());
    for input in inputs {
        match input {
            Input::Stdin => return None,
            Input::Path(p) if p.is_dir() => {
                for e in walkdir::WalkDir::new(p)
                    .follow_links(true)
                    .into_iter()
                    .flatten()
                {
                    let name = e.file_name().to_string_lossy();
                    if !e.file_type().is_file() {
                        continue;
                    }
                    if archive_kind(&name).is_some() {
                        return None;
                    }
                    if format_of_name(&name).is_some() {
                        n += 1;
                        bytes = bytes.saturating_add(size(&e));
                    }
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
mod tests {
    use super::*;

    #[test]
    fn relative_paths_are_checked() {
        assert_eq!(
            safe_relative(Path::new("a/b.kif")),
            Some(PathBuf::from("a/b.kif"))
        );
        assert_eq!(
            safe_relative(Path::new("./a/b.kif")),
            Some(PathBuf::from("a/b.kif"))
        );
        assert_eq!(safe_relative(Path::new("../b.kif")), None);
        assert_eq!(safe_relative(Path::new("a/../../b.kif")), None);
        assert_eq!(safe_relative(Path::new("/etc/passwd")), None);
    }

    #[test]
    fn archive_names() {
        assert_eq!(archive_kind("x.ZIP"), Some(ArchiveKind::Zip));
        assert_eq!(archive_kind("x.tar.gz"), Some(ArchiveKind::TarGz));
        assert_eq!(archive_kind("x.tgz"), Some(ArchiveKind::TarGz));
        assert_eq!(archive_kind("x.tar"), Some(ArchiveKind::Tar));
        assert_eq!(archive_kind("x.kif"), None);
        assert_eq!(strip_archive_ext("games.tar.gz"), "games");
    }

    #[test]
    fn csa_stream_is_cut_at_separators_with_line_offsets() {
        let mut text = String::new();
        let game = "V2.2\nPI\n+\n+7776FU\n-3334FU\n%TORYO\n";
        let games = 20_000;
        for i in 0..games {
            if i > 0 {
                text.push_str("/\n");
            }
            text.push_str(game);
        }
        let opts = Options::default();
        let source = Source {
            path: "t.csa".into(),
            rel: None,
            format: Some(Format::Csa),
            file: None,
            top_level: true,
        };
        let mut units = Vec::new();
        let go = read_stream(source, text.as_bytes(), &opts, u64::MAX, &mut |u| {
            units.push(u);
            true
        });
        assert!(go);
        assert!(units.len() > 1, "expected several chunks");
        let mut joined = Vec::new();
        let mut line = 0u32;
        for (i, u) in units.iter().enumerate() {
            assert_eq!(u.chunk as usize, i);
            assert_eq!(u.first_line, line);
            assert_eq!(u.last, i + 1 == units.len());
            let Content::Bytes(b) = &u.content else {
                panic!("failed unit")
            };
            if !u.last {
                assert!(b.ends_with(b"/\n"), "chunk must end at a separator");
            }
            line += b.iter().filter(|&&c| c == b'\n').count() as u32;
            joined.extend_from_slice(b);
        }
        assert_eq!(joined, text.as_bytes());
    }

    #[test]
    fn usi_stream_is_cut_at_line_ends_and_keeps_an_unterminated_last_line() {
        let mut text = String::new();
        for i in 0..30_000 {
            if i > 0 {
                text.push('\n');
            }
            text.push_str(&format!("startpos moves 7g7f {i}"));
        }
        let source = Source {
            path: "t.usi".into(),
            rel: None,
            format: Some(Format::Usi),
            file: None,
            top_level: true,
        };
        let mut units = Vec::new();
        // A reader that hands out odd-sized pieces, so cuts fall anywhere in a read.
        let reader = std::io::BufReader::with_capacity(7919, text.as_bytes());
        assert!(read_stream(
            source,
            reader,
            &Options::default(),
            u64::MAX,
            &mut |u| {
                units.push(u);
                true
            }
        ));
        assert!(units.len() > 3);
        let mut joined = Vec::new();
        let mut line = 0u32;
        for (i, u) in units.iter().enumerate() {
            assert_eq!(u.first_line, line);
            let Content::Bytes(b) = &u.content else {
                panic!("failed unit")
            };
            if !u.last {
                assert!(b.len() >= CHUNK_BYTES && b.len() < CHUNK_BYTES + 64);
                assert!(b.ends_with(b"\n"));
            }
            assert_eq!(u.last, i + 1 == units.len());
            line += b.iter().filter(|&&c| c == b'\n').count() as u32;
            joined.extend_from_slice(b);
        }
        assert_eq!(joined, text.as_bytes());
    }

    #[test]
    fn limit_gives_an_io_diagnostic() {
        let opts = Options::default();
        let source = Source {
            path: "t.kif".into(),
            rel: None,
            format: Some(Format::Kif),
            file: None,
            top_level: true,
        };
        let mut units = Vec::new();
        read_stream(source, &b"0123456789"[..], &opts, 5, &mut |u| {
            units.push(u);
            true
        });
        assert_eq!(units.len(), 1);
        assert!(matches!(&units[0].content, Content::Failed(d) if d.code == Code::Io));
    }

    #[test]
    fn inputs_are_measured_in_files_and_bytes_unless_an_archive_or_stdin_is_among_them() {
        let dir = tempfile::tempdir().expect("tempdir");
        std::fs::write(dir.path().join("a.csa"), "PI\n+\n").expect("write");
        std::fs::create_dir(dir.path().join("sub")).expect("mkdir");
        std::fs::write(dir.path().join("sub/b.kif"), "12345").expect("write");
        std::fs::write(dir.path().join("notes.txt"), "not a record").expect("write");
        let d = Input::Path(dir.path().to_path_buf());
        assert_eq!(measure(std::slice::from_ref(&d)), Some((2, 10)));
        assert_eq!(count_files(std::slice::from_ref(&d)), Some(2));
        let f = Input::Path(dir.path().join("a.csa"));
        assert_eq!(measure(&[d.clone(), f]), Some((3, 15)));
        assert_eq!(measure(&[d.clone(), Input::Stdin]), None);
        std::fs::write(dir.path().join("games.zip"), "").expect("write");
        assert_eq!(measure(&[d]), None);
    }

    /// A directory's records come in the order of their names (bytewise), each subdirectory
    /// where its name sorts, names that are prefixes of others first.
    #[test]
    fn a_directory_is_walked_in_name_order() {
        let dir = tempfile::tempdir().expect("tempdir");
        let names = [
            "b.csa",
            "a.csa",
            "a-b.csa",
            "a.d/x.csa",
            "a.d/B.csa",
            "A.csa",
            "a",
            "ab/c.csa",
        ];
        for n in names {
            let p = dir.path().join(n);
            std::fs::create_dir_all(p.parent().expect("parent")).expect("mkdir");
            std::fs::write(&p, "PI\n+\n").expect("write");
        }
        // `a` has no record extension and is not looked at.
        let mut seen = Vec::new();
        produce(
            &[Input::Path(dir.path().to_path_buf())],
            &Options::default(),
            &mut |u| {
                let rel = u.source.rel.clone().expect("a relative path");
                seen.push(rel.to_string_lossy().replace('\\', "/"));
                true
            },
        );
        assert_eq!(
            seen,
            [
                "A.csa",
                "a-b.csa",
                "a.csa",
                "a.d/B.csa",
                "a.d/x.csa",
                "ab/c.csa",
                "b.csa"
            ]
        );
    }

    #[test]
    fn csa_boundaries_are_slash_lines_only() {
        let b = |s: &str| match next_boundary(s.as_bytes(), true) {
            Next::Boundary(n) => Ok(n),
            Next::None(n) => Err(n),
        };
        assert_eq!(b("+\n/\n+"), Ok(4));
        assert_eq!(b("'a/b\n$START_TIME:2024/01/01\n /\r\n+"), Ok(32));
        // The `/` line is not complete yet: look again from its start.
        assert_eq!(b("+7776FU\n/"), Err(8));
        assert_eq!(b("+7776FU\nT3\n'x/"), Err(11));
        assert_eq!(b("+7776FU\nT3\n"), Err(11));
        assert_eq!(b("//\n/x\n"), Err(6));
        assert!(next_boundary(b"a\nb", false).eq_boundary(2));
        assert_eq!(count_lines(b"\n\nx\n"), 3);
    }

    impl Next {
        fn eq_boundary(&self, n: usize) -> bool {
            matches!(self, Next::Boundary(m) if *m == n)
        }
    }

    #[test]
    fn expansion_is_bounded_per_entry_and_per_archive() {
        let opts = Options {
            max_expansion_ratio: 10,
            ratio_free_bytes: 1000,
            ..Options::default()
        };
        assert_eq!(expansion_limit(&opts, 50), 1000);
        assert_eq!(expansion_limit(&opts, 500), 5000);
        let total = Cell::new(0);
        let archive = ArchiveBound::new(&opts, 300, &total);
        assert_eq!(archive.limit, 3000);
        // An entry of 200 compressed bytes may expand to 2000.
        let entry = EntryBound {
            limit: expansion_limit(&opts, 200),
            compressed: 200,
            ratio: 10,
        };
        let mut out = Vec::new();
        let r = Expansion::new(&[b'a'; 2000][..], Some(entry), archive).read_to_end(&mut out);
        assert_eq!(r.ok(), Some(2000));
        let mut out = Vec::new();
        let e = Expansion::new(&[b'a'; 2001][..], Some(entry), archive)
            .read_to_end(&mut out)
            .expect_err("over the bounds");
        // The archive passed its 3000 bytes first (after 1001 bytes of this entry).
        assert!(
            e.to_string()
                .contains("archive expands past the limit of 3000"),
            "{e}"
        );
        let big = Cell::new(0);
        let roomy = ArchiveBound::new(&opts, 1 << 20, &big);
        let mut out = Vec::new();
        let e = Expansion::new(&[b'a'; 2001][..], Some(entry), roomy)
            .read_to_end(&mut out)
            .expect_err("over the entry bound");
        assert!(
            e.to_string()
                .contains("entry expands past the limit of 2000 bytes"),
            "{e}"
        );
        assert!(e.to_string().contains("zip-bomb guard"), "{e}");
        // The archive is past its bound: the next entry fails at once.
        let mut out = Vec::new();
        let e = Expansion::new(&b"abc"[..], None, archive)
            .read_to_end(&mut out)
            .expect_err("over the archive bound");
        assert!(
            e.to_string()
                .contains("archive expands past the limit of 3000"),
            "{e}"
        );
        // Ratio 0: no bound.
        let off = Options {
            max_expansion_ratio: 0,
            ..Options::default()
        };
        assert_eq!(expansion_limit(&off, 1), u64::MAX);
    }

    #[test]
    fn a_game_over_the_limit_stops_the_file_after_the_games_before_it() {
        let opts = Options {
            max_game_bytes: 1000,
            ..Options::default()
        };
        let mut text = String::from("position startpos moves 7g7f\nposition startpos moves 2g2f\n");
        text.push_str("position startpos moves ");
        text.push_str(&"7g7f ".repeat(10_000));
        text.push_str("\nposition startpos\n");
        for (format, name) in [(Format::Usi, "t.usi"), (Format::Csa, "t.csa")] {
            let text = if format == Format::Csa {
                format!(
                    "V2.2\nPI\n+\n+7776FU\n/\nPI\n+\n{}\n/\nPI\n+\n",
                    "'c".repeat(1000)
                )
            } else {
                text.clone()
            };
            let source = Source {
                path: name.into(),
                rel: None,
                format: Some(format),
                file: None,
                top_level: true,
            };
            let mut units = Vec::new();
            read_stream(source, text.as_bytes(), &opts, u64::MAX, &mut |u| {
                units.push(u);
                true
            });
            assert_eq!(units.len(), 2, "{name}");
            let Content::Bytes(first) = &units[0].content else {
                panic!("{name}: the whole games before come first")
            };
            let lines = first.iter().filter(|&&b| b == b'\n').count() as u32;
            assert!(!units[0].last);
            let Content::Failed(d) = &units[1].content else {
                panic!("{name}: then the failure")
            };
            assert!(units[1].last);
            assert_eq!(d.code, Code::Io);
            assert!(d.message.contains("limit"), "{}", d.message);
            assert_eq!(
                d.line,
                Some(lines + 1),
                "{name}: the line the big game starts on"
            );
        }
        // One-game formats: the whole file is the game.
        let source = Source {
            path: "t.kif".into(),
            rel: None,
            format: Some(Format::Kif),
            file: None,
            top_level: true,
        };
        let big = vec![b'x'; 2000];
        let mut units = Vec::new();
        read_stream(source, &big[..], &opts, u64::MAX, &mut |u| {
            units.push(u);
            true
        });
        assert!(
            matches!(&units[..], [u] if matches!(&u.content, Content::Failed(d) if d.code == Code::Io))
        );
    }
}
