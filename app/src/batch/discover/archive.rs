//! Archives: zip, tar and tar.gz read entry by entry, each entry a stream for
//! [`read_stream`], under the expansion bounds (the zip-bomb guard: per entry and per archive)
//! and the readers that turn a truncated tar or a short entry into an `io` failure.

use std::cell::Cell;
use std::fs::File;
use std::io::{self, BufReader, Read};
use std::path::{Path, PathBuf};

use kifu::diag::Code;

use super::ahead::ReadAhead;
use super::stream::read_stream;
use super::zip_entries;
use super::{ArchiveKind, Sink, display, failed, format_of_name, safe_relative};
use crate::batch::{Options, Source, Unit};

pub(super) fn produce_archive(
    p: &Path,
    kind: ArchiveKind,
    base: PathBuf,
    top_level: bool,
    opts: &Options,
    defer: bool,
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
        ArchiveKind::Zip => {
            let listing = match File::open(p) {
                Ok(f) => f,
                Err(e) => return sink(archive_failure(&shown, e)),
            };
            zip_entries::produce_zip(&shown, (file, listing), &base, &archive, opts, defer, sink)
        }
        ArchiveKind::Tar => produce_tar(&shown, BufReader::new(file), &base, opts, sink),
        ArchiveKind::TarGz => {
            let gz = flate2::read::MultiGzDecoder::new(BufReader::new(file));
            // Inflated on a thread of its own, ahead of the tar reader, when the walk has
            // workers after it (`defer`); a walk that does all the work on one thread
            // (`-j1`) inflates as it reads.
            let gz: Box<dyn Read + Send> = if defer {
                Box::new(ReadAhead::new(gz))
            } else {
                Box::new(gz)
            };
            produce_tar(&shown, Expansion::new(gz, None, archive), &base, opts, sink)
        }
    }
}

/// How far a whole archive may expand, and how far it has: entries together may expand to
/// [`Options::ratio_free_bytes`] or [`Options::max_expansion_ratio`] times the archive's size,
/// whichever is more.
#[derive(Clone, Copy)]
pub(super) struct ArchiveBound<'a> {
    pub(super) limit: u64,
    size: u64,
    ratio: u64,
    pub(super) total: &'a Cell<u64>,
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
pub(super) fn expansion_limit(opts: &Options, compressed: u64) -> u64 {
    if opts.max_expansion_ratio == 0 {
        return u64::MAX;
    }
    opts.max_expansion_ratio
        .saturating_mul(compressed)
        .max(opts.ratio_free_bytes)
}

/// A zip entry's own bound: its compressed size and the most it may expand to.
#[derive(Clone, Copy)]
pub(super) struct EntryBound {
    pub(super) limit: u64,
    pub(super) compressed: u64,
    pub(super) ratio: u64,
}

/// A reader of decompressed bytes that fails (with an `io` error naming the limit) once an
/// entry or the whole archive has expanded past its bound: the zip-bomb guard.
pub(super) struct Expansion<'a, R> {
    inner: R,
    read: u64,
    entry: Option<EntryBound>,
    archive: ArchiveBound<'a>,
}

impl<'a, R: Read> Expansion<'a, R> {
    pub(super) fn new(inner: R, entry: Option<EntryBound>, archive: ArchiveBound<'a>) -> Self {
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

pub(super) fn entry_source(archive: &str, name: &str, base: &Path, opts: &Options) -> Source {
    let rel = safe_relative(Path::new(name)).map(|r| base.join(r));
    Source {
        path: format!("{archive}/{}", name.trim_start_matches('/')),
        rel,
        format: opts.input_format.or_else(|| format_of_name(name)),
        named_format: None,
        file: None,
        top_level: false,
    }
}

pub(super) fn archive_failure(archive: &str, e: impl std::fmt::Display) -> Unit {
    let source = Source::named(archive.to_owned(), true);
    failed(source, Code::Io, format!("cannot read archive: {e}"))
}

/// [`produce_archive`] for an archive held whole in memory (a file dropped on the page of
/// `web/`, which has no file system): the same entries, names, bounds and failures as the
/// archive read from a file called `shown`. A `.tar.gz` is inflated on this thread.
pub(super) fn produce_archive_bytes(
    shown: &str,
    kind: ArchiveKind,
    bytes: &[u8],
    opts: &Options,
    sink: &mut Sink<'_>,
) -> bool {
    let total = Cell::new(0);
    let archive = ArchiveBound::new(opts, bytes.len() as u64, &total);
    let base = PathBuf::new();
    match kind {
        ArchiveKind::Zip => zip_entries::produce_zip(
            shown,
            (io::Cursor::new(bytes), io::Cursor::new(bytes)),
            &base,
            &archive,
            opts,
            false,
            sink,
        ),
        ArchiveKind::Tar => produce_tar(shown, bytes, &base, opts, sink),
        ArchiveKind::TarGz => produce_tar(
            shown,
            Expansion::new(flate2::read::MultiGzDecoder::new(bytes), None, archive),
            &base,
            opts,
            sink,
        ),
    }
}

/// The unit that says an archive's remaining `left` entries are not read because it expanded
/// past its bound.
pub(super) fn archive_over_bound(archive: &str, bound: &ArchiveBound<'_>, left: u64) -> Unit {
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
pub(super) fn produce_entry(
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
            // skipped is a record lost, so it is said. (Links are said below.)
            let source = entry_source(archive, &name, base, opts);
            let message = "a sparse entry (GNU tar): not read".to_owned();
            if !sink(failed(source, Code::Io, message)) {
                return false;
            }
            continue;
        }
        let link = if kind.is_symlink() {
            Some("a symbolic link")
        } else if kind.is_hard_link() {
            Some("a hard link")
        } else {
            None
        };
        if let Some(what) = link {
            if format_of_name(&name).is_none() && opts.input_format.is_none() {
                continue;
            }
            // A link holds no bytes of its own, and a link followed could lead outside the
            // archive or round in circles: it is not read, but said, so that no record is
            // left out without a word.
            let target = match entry.link_name_bytes() {
                Some(t) => super::display_bytes(&t),
                None => String::from("?"),
            };
            let source = entry_source(archive, &name, base, opts);
            let message = format!(
                "{what} to `{target}`: not read (links are not followed inside an archive; the \
                 file it names is read under its own name when the archive holds it)"
            );
            if !sink(failed(source, Code::SkippedEntry, message)) {
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

#[cfg(test)]
mod tests {
    use super::*;

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
}
