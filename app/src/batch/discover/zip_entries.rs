//! A zip's entries, read in the order of its central directory ([`zip_central`]): each one
//! small enough handed on stored for a worker to inflate ([`inflate_entry`]), the others
//! inflated here as a stream, all held to the size and CRC-32 of their header and to the
//! expansion bounds; an entry that cannot be read (encrypted, an unknown method, a local
//! header not where the directory says) is named, and the rest are read.

use std::io::{self, BufRead, BufReader, Read, Seek};
use std::path::Path;

use kifu::diag::{Code, Diagnostic};

use super::archive::{
    ArchiveBound, EntryBound, Expansion, archive_failure, archive_over_bound, entry_source,
    expansion_limit, produce_entry,
};
use super::stream::read_stream;
use super::{Sink, failed, format_of_name, zip_central};
use crate::batch::{Content, Options, Source, Unit, ZippedEntry};

/// Reads the zip whose bytes `data` and `listing` both read (one for the entries, one for
/// the directory, so that neither moves the other). Returns false when the run is to stop.
pub(super) fn produce_zip<R: Read + Seek>(
    archive: &str,
    (data, listing): (R, R),
    base: &Path,
    bound: &ArchiveBound<'_>,
    opts: &Options,
    defer: bool,
    sink: &mut Sink<'_>,
) -> bool {
    // Two readers over the same bytes: one for the entries, one for the directory.
    let (mut data, mut listing) = (BufReader::new(data), BufReader::new(listing));
    // The directory is read twice: once whole to check it (a damaged one sends the archive
    // to the walk over its local headers, which reads what it can), then record by record
    // as the entries are read, on a handle of its own.
    let dir = zip_central::locate(&mut data).and_then(|d| {
        zip_central::check(&mut data, d)?;
        Ok(d)
    });
    let dir = match dir {
        Ok(d) => d,
        Err(e) => {
            if data.seek(io::SeekFrom::Start(0)).is_ok()
                && data.fill_buf().is_ok_and(super::zip_local::starts_as_zip)
            {
                return super::zip_local::walk(archive, &e, &mut data, base, bound, opts, sink);
            }
            return sink(archive_failure(archive, e));
        }
    };
    let mut records = zip_central::Records::new(dir);
    let mut i = 0;
    while let Some(entry) = records.next(&mut listing) {
        i += 1;
        if bound.total.get() > bound.limit {
            // Every further entry would fail at once.
            return sink(archive_over_bound(archive, bound, dir.entries - i + 1));
        }
        let entry = match entry {
            Ok(e) => e,
            // The directory changed since it was checked.
            Err(e) => return sink(archive_failure(archive, e)),
        };
        if entry.is_dir() || (format_of_name(&entry.name).is_none() && opts.input_format.is_none())
        {
            continue;
        }
        let unit = if entry.encrypted {
            Some(entry_failure(
                archive,
                &entry,
                base,
                opts,
                "it is encrypted".into(),
            ))
        } else if !matches!(entry.method, 0 | 8) {
            let why = format!("compression method {} is not read", entry.method);
            Some(entry_failure(archive, &entry, base, opts, why))
        } else if defer {
            defer_entry(archive, &mut data, &entry, base, bound, opts)
        } else {
            None
        };
        let go = match unit {
            Some(u) => sink(u),
            None => read_entry(archive, &mut data, &entry, base, bound, opts, sink),
        };
        if !go {
            return false;
        }
    }
    true
}

/// The unit that says why entry `e` is not read.
fn entry_failure(
    archive: &str,
    e: &zip_central::Entry,
    base: &Path,
    opts: &Options,
    why: String,
) -> Unit {
    let source = entry_source(archive, &e.name, base, opts);
    failed(source, Code::Io, format!("cannot read entry: {why}"))
}

/// Reads zip entry `e` (stored or deflated) here, as a stream held to its header's size and
/// CRC-32 and to the expansion bounds. Returns false when the run is to stop.
fn read_entry(
    archive: &str,
    data: &mut BufReader<impl Read + Seek>,
    e: &zip_central::Entry,
    base: &Path,
    bound: &ArchiveBound<'_>,
    opts: &Options,
    sink: &mut Sink<'_>,
) -> bool {
    if let Err(why) = e.seek_data(data) {
        return sink(entry_failure(archive, e, base, opts, why));
    }
    // Never more than the declared compressed size is read, so that size bounds what a
    // lying header can make the inflater expand.
    let stored = Read::take(data, e.compressed);
    let inner: Box<dyn Read + '_> = if e.method == 8 {
        Box::new(flate2::read::DeflateDecoder::new(stored))
    } else {
        Box::new(stored)
    };
    let checked = Checked {
        inner,
        crc: flate2::Crc::new(),
        read: 0,
        size: e.size,
        crc32: e.crc32,
    };
    let entry_bound = EntryBound {
        limit: expansion_limit(opts, e.compressed),
        compressed: e.compressed,
        ratio: opts.max_expansion_ratio,
    };
    let guarded = Expansion::new(checked, Some(entry_bound), *bound);
    produce_entry(archive, &e.name, guarded, base, opts, sink)
}

/// Reads the stored bytes of zip entry `e` for a worker to inflate ([`inflate_entry`]), when
/// the entry is small by its header (a chunk at most inflated), stored or deflated, and not
/// encrypted (the caller has seen to the last two). Its inflated size is counted against the
/// archive's bound here: the worker allows it no more than its header gives. `None`: read it
/// here instead.
fn defer_entry(
    archive: &str,
    data: &mut BufReader<impl Read + Seek>,
    e: &zip_central::Entry,
    base: &Path,
    bound: &ArchiveBound<'_>,
    opts: &Options,
) -> Option<Unit> {
    let (size, stored) = (e.size, e.compressed);
    let chunk = opts.chunk() as u64;
    let small = size <= chunk && stored <= chunk;
    let room = bound.total.get().saturating_add(size) <= bound.limit;
    if !small || !room {
        return None;
    }
    let source = entry_source(archive, &e.name, base, opts);
    let unit = |content| Unit {
        source: std::sync::Arc::new(source),
        content,
        first_line: 0,
        chunk: 0,
        last: true,
        encoding: opts.encoding,
    };
    let mut bytes = Vec::with_capacity(usize::try_from(stored).unwrap_or(0));
    let read = e.seek_data(data).and_then(|()| {
        Read::take(&mut *data, stored)
            .read_to_end(&mut bytes)
            .map_err(|err| err.to_string())
    });
    let failed = |why: String| Content::Failed(Diagnostic::new(Code::Io, why));
    Some(unit(match read {
        Ok(n) if n as u64 == stored => {
            bound.total.set(bound.total.get().saturating_add(size));
            Content::Zipped(Box::new(ZippedEntry {
                deflated: e.method == 8,
                data: bytes,
                size,
                crc32: e.crc32,
            }))
        }
        // Worded as `entry_failure` words them, so that a deferred entry fails as one read
        // on the spot does.
        Ok(_) => {
            failed("cannot read entry: the archive ends inside the entry's stored bytes".into())
        }
        Err(why) => failed(format!("cannot read entry: {why}")),
    }))
}

/// Inflates a deferred zip entry (in a worker) and reads it as [`produce_entry`] would have;
/// an entry that inflates to more or fewer bytes than its header gives, or whose CRC-32 is
/// not the header's, is a failure to read, as the zip reader makes it.
pub(super) fn inflate_entry(source: Source, z: ZippedEntry, opts: &Options, sink: &mut Sink<'_>) {
    let ZippedEntry {
        deflated,
        data,
        size,
        crc32,
    } = z;
    let inner: Box<dyn Read> = if deflated {
        Box::new(flate2::read::DeflateDecoder::new(io::Cursor::new(data)))
    } else {
        Box::new(io::Cursor::new(data))
    };
    let checked = Checked {
        inner,
        crc: flate2::Crc::new(),
        read: 0,
        size,
        crc32,
    };
    read_stream(
        source,
        BufReader::new(checked),
        opts,
        opts.max_entry_bytes,
        sink,
    );
}

/// The bytes of an inflated zip entry, held to the size and CRC-32 of its header.
struct Checked<'a> {
    inner: Box<dyn Read + 'a>,
    crc: flate2::Crc,
    read: u64,
    size: u64,
    crc32: u32,
}

impl Read for Checked<'_> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        // One byte more than the header allows is enough to tell it lies.
        let room = usize::try_from(self.size.saturating_sub(self.read).saturating_add(1))
            .unwrap_or(usize::MAX);
        let want = buf.len().min(room);
        let n = self.inner.read(buf.get_mut(..want).unwrap_or_default())?;
        if n == 0 && !buf.is_empty() {
            if self.read != self.size {
                return Err(io::Error::other(format!(
                    "the entry inflates to {} bytes, not the {} its header gives",
                    self.read, self.size
                )));
            }
            if self.crc.sum() != self.crc32 {
                return Err(io::Error::other(
                    "the entry's CRC-32 is not its header's: the entry is damaged",
                ));
            }
            return Ok(0);
        }
        let got = buf.get(..n).unwrap_or_default();
        self.crc.update(got);
        self.read = self.read.saturating_add(n as u64);
        if self.read > self.size {
            return Err(io::Error::other(format!(
                "the entry inflates to more than the {} bytes its header gives",
                self.size
            )));
        }
        Ok(n)
    }
}
