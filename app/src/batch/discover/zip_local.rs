//! A zip without its central directory (cut short, or damaged at its end): its entries read
//! one after another from their local headers, as far as they go whole. The zip reader needs
//! the central directory, which sits at the very end of the file, so a download cut short
//! would otherwise give nothing; this walk gives every entry before the damage, and says
//! where the damage is (entries after it, if there were any, cannot be named: only the
//! central directory lists them).
//!
//! What a local header cannot say is not guessed: an entry stored (not deflated) with its
//! sizes after its data (a data descriptor) has no end that can be found, so the walk stops
//! there with a diagnostic; an encrypted entry, or one of another compression method, is
//! reported and skipped.

use std::io::{self, BufRead, Read};
use std::path::Path;

use kifu::diag::Code;

use super::archive::{ArchiveBound, EntryBound, Expansion, expansion_limit, produce_entry};
use super::zip_central::{LOCAL, decode_name, extra_fields, unicode_path};
use super::{Sink, failed};
use crate::batch::{Options, Source};

const CENTRAL: [u8; 4] = *b"PK\x01\x02";
const END: [u8; 4] = *b"PK\x05\x06";
const END64: [u8; 4] = *b"PK\x06\x06";
const DESCRIPTOR: [u8; 4] = *b"PK\x07\x08";

/// Whether `head` (the first bytes of a file) starts as a zip's first entry does.
pub(super) fn starts_as_zip(head: &[u8]) -> bool {
    head.starts_with(&LOCAL)
}

/// Reads as many bytes as `buf` holds, fewer only at the end of the stream.
fn read_full(r: &mut impl Read, buf: &mut [u8]) -> io::Result<usize> {
    let mut n = 0;
    while n < buf.len() {
        match r.read(&mut buf[n..]) {
            Ok(0) => break,
            Ok(k) => n += k,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(n)
}

fn u16_at(b: &[u8], i: usize) -> u64 {
    u64::from(u16::from_le_bytes([b[i], b[i + 1]]))
}

fn u32_at(b: &[u8], i: usize) -> u64 {
    u64::from(u32::from_le_bytes([b[i], b[i + 1], b[i + 2], b[i + 3]]))
}

/// A local header's fields that the walk uses.
struct Local {
    name: String,
    flags: u64,
    method: u64,
    crc: u32,
    compressed: u64,
    size: u64,
}

/// Why the walk stopped early: what the archive-level diagnostic says.
enum Stop {
    /// The run is to stop (the sink said so).
    Quit,
    /// The archive ends, or is damaged, here.
    Damage(String),
}

/// Reads the local header that follows its signature; `Err` with what is wrong.
fn local_header(r: &mut impl Read) -> Result<Local, String> {
    let mut h = [0u8; 26];
    let cut = || "the archive is cut short inside an entry's header".to_owned();
    if read_full(r, &mut h).map_err(|e| e.to_string())? < h.len() {
        return Err(cut());
    }
    let (name_len, extra_len) = (u16_at(&h, 22) as usize, u16_at(&h, 24) as usize);
    let mut name = vec![0u8; name_len];
    let mut extra = vec![0u8; extra_len];
    if read_full(r, &mut name).map_err(|e| e.to_string())? < name_len
        || read_full(r, &mut extra).map_err(|e| e.to_string())? < extra_len
    {
        return Err(cut());
    }
    let flags = u16_at(&h, 2);
    let mut local = Local {
        name: String::new(),
        flags,
        method: u16_at(&h, 4),
        crc: u32::from_le_bytes([h[10], h[11], h[12], h[13]]),
        compressed: u32_at(&h, 14),
        size: u32_at(&h, 18),
    };
    let mut unicode = None;
    for (id, body) in extra_fields(&extra) {
        match id {
            // ZIP64: the sizes that do not fit 32 bits, size first.
            1 => {
                let mut at = 0;
                for field in [&mut local.size, &mut local.compressed] {
                    if *field == 0xFFFF_FFFF && at + 8 <= body.len() {
                        *field = u64::from_le_bytes(body[at..at + 8].try_into().unwrap_or([0; 8]));
                        at += 8;
                    }
                }
            }
            0x7075 => unicode = unicode_path(body, &name),
            _ => {}
        }
    }
    local.name = unicode.unwrap_or_else(|| decode_name(&name, flags & (1 << 11) != 0));
    Ok(local)
}

/// The decompressed bytes of an entry, checked: a short entry, or one whose CRC-32 is not the
/// stated one, is an error at its end (not bytes handed on as if whole).
struct Checked<R> {
    inner: R,
    crc: flate2::Crc,
    /// The stated CRC-32 and size, when the local header states them.
    stated: Option<(u32, u64)>,
}

impl<R: Read> Read for Checked<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.crc.update(buf.get(..n).unwrap_or_default());
        if n == 0
            && !buf.is_empty()
            && let Some((crc, size)) = self.stated
        {
            let got = u64::from(self.crc.amount());
            if got != size & 0xFFFF_FFFF || self.crc.sum() != crc {
                return Err(io::Error::new(
                    io::ErrorKind::UnexpectedEof,
                    "the entry's bytes are not whole (their size or CRC-32 is not the one its \
                     header states): the archive is cut short or damaged",
                ));
            }
        }
        Ok(n)
    }
}

/// Walks the local headers of the zip `r` (positioned at its start), reading each entry
/// whole; `original` is why the zip reader could not read it. Returns false when the run is
/// to stop.
pub(super) fn walk(
    archive: &str,
    original: &str,
    r: &mut impl BufRead,
    base: &Path,
    bound: &ArchiveBound<'_>,
    opts: &Options,
    sink: &mut Sink<'_>,
) -> bool {
    let mut read = 0usize;
    let stop = loop {
        match next_entry(archive, r, base, bound, opts, sink, &mut read) {
            Ok(true) => {}
            Ok(false) => break None,
            Err(stop) => break Some(stop),
        }
    };
    let what = match stop {
        Some(Stop::Quit) => return false,
        Some(Stop::Damage(d)) => d,
        None => "the archive ends before it".to_owned(),
    };
    let message = if read == 0 {
        format!("cannot read archive: {original} (nor any entry from its local headers: {what})")
    } else {
        format!(
            "cannot read the zip's central directory ({what}): the {read} entries before the \
             damage were read from their local headers; any entries after it are missing"
        )
    };
    let source = Source::named(archive.to_owned(), true);
    sink(failed(source, Code::Io, message))
}

/// Reads the entry at `r`: `Ok(true)` to go on, `Ok(false)` at the clean end of the bytes,
/// `Err` when the walk stops.
fn next_entry(
    archive: &str,
    r: &mut impl BufRead,
    base: &Path,
    bound: &ArchiveBound<'_>,
    opts: &Options,
    sink: &mut Sink<'_>,
    read: &mut usize,
) -> Result<bool, Stop> {
    let mut sig = [0u8; 4];
    let n = read_full(r, &mut sig).map_err(|e| Stop::Damage(e.to_string()))?;
    if n == 0 {
        return Ok(false);
    }
    if n < 4 {
        return Err(Stop::Damage(
            "the archive is cut short after an entry".into(),
        ));
    }
    if sig == CENTRAL || sig == END || sig == END64 {
        return Err(Stop::Damage("it is cut short or damaged".into()));
    }
    if sig != LOCAL {
        return Err(Stop::Damage(
            "bytes that are no entry follow the last whole entry".into(),
        ));
    }
    let local = local_header(r).map_err(Stop::Damage)?;
    let descriptor = local.flags & 8 != 0;
    let source = || super::archive::entry_source(archive, &local.name, base, opts);
    let unreadable = |why: &str| failed(source(), Code::Io, format!("cannot read entry: {why}"));
    // An entry stored with its sizes after it has no end to be found.
    if descriptor && local.compressed == 0 && local.method != 8 {
        return Err(Stop::Damage(format!(
            "entry `{}` states its size only in the central directory",
            local.name
        )));
    }
    let skip = |r: &mut dyn BufRead| -> Result<(), Stop> {
        let mut left = r.take(local.compressed);
        io::copy(&mut left, &mut io::sink()).map_err(|e| Stop::Damage(e.to_string()))?;
        if left.limit() > 0 {
            return Err(Stop::Damage(format!(
                "the archive is cut short inside entry `{}`",
                local.name
            )));
        }
        Ok(())
    };
    if local.name.ends_with('/') {
        skip(r)?;
        return Ok(true);
    }
    if local.flags & 1 != 0 || !matches!(local.method, 0 | 8) {
        let why = if local.flags & 1 != 0 {
            "it is encrypted".to_owned()
        } else {
            format!("compression method {} is not read", local.method)
        };
        if super::format_of_name(&local.name).is_some() && !sink(unreadable(&why)) {
            return Err(Stop::Quit);
        }
        skip(r)?;
        return Ok(true);
    }
    let entry_bound = EntryBound {
        limit: expansion_limit(opts, local.compressed),
        compressed: local.compressed,
        ratio: opts.max_expansion_ratio,
    };
    let stated = (!descriptor).then_some((local.crc, local.size));
    let go = if descriptor {
        // Deflate ends by itself: read it straight from the archive, then the descriptor.
        let inflate = flate2::bufread::DeflateDecoder::new(&mut *r);
        let checked = Checked {
            inner: inflate,
            crc: flate2::Crc::new(),
            stated,
        };
        let guarded = Expansion::new(checked, Some(entry_bound), *bound);
        let go = produce_entry(archive, &local.name, guarded, base, opts, sink);
        let mut d = [0u8; 16];
        let got = read_full(r, &mut d[..4]).map_err(|e| Stop::Damage(e.to_string()))?;
        let rest = if got == 4 && d[..4] == DESCRIPTOR {
            12
        } else {
            8
        };
        let more = read_full(r, &mut d[4..4 + rest]).map_err(|e| Stop::Damage(e.to_string()))?;
        if more < rest {
            return Err(Stop::Damage(format!(
                "the archive is cut short inside entry `{}`",
                local.name
            )));
        }
        go
    } else {
        let mut data = (&mut *r).take(local.compressed);
        let go = {
            let inner: Box<dyn Read + '_> = if local.method == 8 {
                Box::new(flate2::read::DeflateDecoder::new(&mut data))
            } else {
                Box::new(&mut data)
            };
            let checked = Checked {
                inner,
                crc: flate2::Crc::new(),
                stated,
            };
            let guarded = Expansion::new(checked, Some(entry_bound), *bound);
            produce_entry(archive, &local.name, guarded, base, opts, sink)
        };
        // What the entry's reader left (it stops early on an error or a limit).
        io::copy(&mut data, &mut io::sink()).map_err(|e| Stop::Damage(e.to_string()))?;
        if data.limit() > 0 {
            if !go {
                return Err(Stop::Quit);
            }
            return Err(Stop::Damage(format!(
                "the archive is cut short inside entry `{}`",
                local.name
            )));
        }
        go
    };
    if !go {
        return Err(Stop::Quit);
    }
    *read += 1;
    Ok(true)
}
