//! A zip's central directory, read one record at a time: the end record (and its ZIP64 form)
//! says where the directory is and how many entries it lists, and [`Records`] hands out each
//! entry's name, method, sizes, CRC-32 and where its local header is, holding no more than one
//! block of the directory in memory. (The `zip` crate keeps every entry's metadata, about
//! 700 bytes each: 150 MB for an archive of 200,000 records.)
//!
//! Entry names: UTF-8 when the entry says so (flag bit 11, or an Info-ZIP Unicode path
//! field whose CRC matches the name); otherwise, since no flag says which code page a name is
//! in, UTF-8 when the bytes are valid UTF-8, then Shift_JIS (CP932, how Japanese Windows
//! writes names) when they decode without error, else code page 437 (the format's default).

use std::io::{self, Read, Seek, SeekFrom};

use encoding_rs::SHIFT_JIS;

pub(super) const LOCAL: [u8; 4] = *b"PK\x03\x04";
const CENTRAL: [u8; 4] = *b"PK\x01\x02";
const END: [u8; 4] = *b"PK\x05\x06";
const LOCATOR64: [u8; 4] = *b"PK\x06\x07";
const END64: [u8; 4] = *b"PK\x06\x06";
/// The fixed part of an end record, of a central record and of a local header.
const END_LEN: usize = 22;
const CENTRAL_LEN: usize = 46;
const LOCAL_LEN: usize = 30;
/// Directory bytes read at a time.
const BLOCK: usize = 256 * 1024;

fn u16_at(b: &[u8], i: usize) -> u64 {
    match b.get(i..i + 2) {
        Some(s) => u64::from(u16::from_le_bytes([s[0], s[1]])),
        None => 0,
    }
}

fn u32_at(b: &[u8], i: usize) -> u64 {
    match b.get(i..i + 4) {
        Some(s) => u64::from(u32::from_le_bytes([s[0], s[1], s[2], s[3]])),
        None => 0,
    }
}

fn u64_at(b: &[u8], i: usize) -> u64 {
    b.get(i..i + 8)
        .and_then(|s| s.try_into().ok())
        .map_or(0, u64::from_le_bytes)
}

fn io_err(e: io::Error) -> String {
    e.to_string()
}

/// Reads exactly `buf.len()` bytes at `at`; `Err` (cut short) when the file ends before.
fn read_at<R: Read + Seek>(r: &mut R, at: u64, buf: &mut [u8]) -> Result<(), String> {
    r.seek(SeekFrom::Start(at)).map_err(io_err)?;
    r.read_exact(buf).map_err(|e| {
        if e.kind() == io::ErrorKind::UnexpectedEof {
            "the archive is cut short".to_owned()
        } else {
            e.to_string()
        }
    })
}

/// Where a zip's central directory is, as its end record gives it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Directory {
    /// Entries the directory lists.
    pub(super) entries: u64,
    /// Where the directory starts in the file, and its size.
    start: u64,
    size: u64,
    /// Bytes before the archive's own start (a self-extracting stub), added to every offset
    /// the archive states.
    shift: u64,
}

/// Finds the end record at the end of `r` and, from it, the central directory.
pub(super) fn locate<R: Read + Seek>(r: &mut R) -> Result<Directory, String> {
    let len = r.seek(SeekFrom::End(0)).map_err(io_err)?;
    let tail_len = len.min((END_LEN + usize::from(u16::MAX)) as u64);
    let mut tail = vec![0u8; tail_len as usize];
    read_at(r, len - tail_len, &mut tail)?;
    // The last end signature with room for its record after it.
    let at = (0..tail.len().saturating_sub(END_LEN - 1))
        .rev()
        .find(|&i| tail[i..].starts_with(&END))
        .ok_or("no end of central directory record: not a zip, or cut short")?;
    let end = &tail[at..];
    let end_at = len - tail_len + at as u64;
    if u16_at(end, 4) != 0 || u16_at(end, 6) != 0 {
        return Err("the archive is split over several files (not read)".into());
    }
    let (mut entries, mut size, mut offset) = (u16_at(end, 10), u32_at(end, 12), u32_at(end, 16));
    let mut dir_end = end_at;
    if (entries == 0xFFFF || size == 0xFFFF_FFFF || offset == 0xFFFF_FFFF)
        && let Some(z) = locate64(r, end_at)?
    {
        (entries, size, offset, dir_end) = z;
    }
    let start = dir_end
        .checked_sub(size)
        .ok_or("the central directory's size is more than the bytes before its end")?;
    let shift = start
        .checked_sub(offset)
        .ok_or("the central directory's offset is past where it can be")?;
    // A record takes 46 bytes at least: a count past that is a lie.
    if entries > size / CENTRAL_LEN as u64 {
        return Err(format!(
            "the end record lists {entries} entries, more than the directory's {size} bytes \
             hold"
        ));
    }
    Ok(Directory {
        entries,
        start,
        size,
        shift,
    })
}

/// The ZIP64 end record named by the locator just before the end record at `end_at`: its
/// entries, directory size and offset, and where it is; `None` without a locator.
fn locate64<R: Read + Seek>(
    r: &mut R,
    end_at: u64,
) -> Result<Option<(u64, u64, u64, u64)>, String> {
    let Some(loc_at) = end_at.checked_sub(20) else {
        return Ok(None);
    };
    let mut loc = [0u8; 20];
    read_at(r, loc_at, &mut loc)?;
    if loc[..4] != LOCATOR64 {
        return Ok(None);
    }
    let declared = u64_at(&loc, 8);
    // Where it says, else just before the locator (with a stub before the archive).
    let mut rec = [0u8; 56];
    let mut found = None;
    for at in [Some(declared), loc_at.checked_sub(56)]
        .into_iter()
        .flatten()
    {
        if read_at(r, at, &mut rec).is_ok() && rec[..4] == END64 {
            found = Some(at);
            break;
        }
    }
    let at = found.ok_or("the ZIP64 end record is not where its locator says")?;
    if u32_at(&rec, 16) != 0 || u32_at(&rec, 20) != 0 {
        return Err("the archive is split over several files (not read)".into());
    }
    Ok(Some((
        u64_at(&rec, 32),
        u64_at(&rec, 40),
        u64_at(&rec, 48),
        at,
    )))
}

/// One entry as the central directory gives it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Entry {
    pub(super) name: String,
    pub(super) encrypted: bool,
    /// 0 stored, 8 deflated; anything else is not read.
    pub(super) method: u64,
    pub(super) crc32: u32,
    pub(super) compressed: u64,
    pub(super) size: u64,
    /// Where its local header is in the file.
    local: u64,
}

impl Entry {
    /// Whether it is a directory (its name ends with a slash).
    pub(super) fn is_dir(&self) -> bool {
        self.name.ends_with('/') || self.name.ends_with('\\')
    }

    /// Puts `r` at the entry's stored bytes: after its local header, read at the offset the
    /// directory gives.
    pub(super) fn seek_data<R: Read + Seek>(&self, r: &mut R) -> Result<(), String> {
        let mut h = [0u8; LOCAL_LEN];
        read_at(r, self.local, &mut h)?;
        if h[..4] != LOCAL {
            return Err(format!(
                "no local header at offset {} where the central directory puts it",
                self.local
            ));
        }
        let start = self.local + LOCAL_LEN as u64 + u16_at(&h, 26) + u16_at(&h, 28);
        r.seek(SeekFrom::Start(start)).map_err(io_err)?;
        Ok(())
    }
}

/// The central directory's records, read in order, a block at a time.
pub(super) struct Records {
    dir: Directory,
    buf: Vec<u8>,
    /// Unread bytes of `buf` start here.
    at: usize,
    /// Where in the file the bytes after `buf` are.
    next: u64,
    /// Records read.
    read: u64,
}

impl Records {
    pub(super) fn new(dir: Directory) -> Records {
        Records {
            dir,
            buf: Vec::new(),
            at: 0,
            next: dir.start,
            read: 0,
        }
    }

    /// Makes `n` unread bytes ready in `buf`, reading on from the directory; `Err` when the
    /// directory has fewer.
    fn fill<R: Read + Seek>(&mut self, r: &mut R, n: usize) -> Result<(), String> {
        let have = self.buf.len() - self.at;
        if have >= n {
            return Ok(());
        }
        let end = self.dir.start + self.dir.size;
        let want = (n - have).max(BLOCK) as u64;
        let more = want.min(end.saturating_sub(self.next)) as usize;
        if have + more < n {
            return Err(format!(
                "the central directory ends inside record {} (of {} it lists)",
                self.read + 1,
                self.dir.entries
            ));
        }
        self.buf.drain(..self.at);
        self.at = 0;
        let from = self.buf.len();
        self.buf.resize(from + more, 0);
        read_at(r, self.next, &mut self.buf[from..])?;
        self.next += more as u64;
        Ok(())
    }

    /// The next record, `None` after the last the end record lists.
    pub(super) fn next<R: Read + Seek>(&mut self, r: &mut R) -> Option<Result<Entry, String>> {
        if self.read >= self.dir.entries {
            return None;
        }
        Some(self.record(r))
    }

    fn record<R: Read + Seek>(&mut self, r: &mut R) -> Result<Entry, String> {
        self.fill(r, CENTRAL_LEN)?;
        let h = &self.buf[self.at..self.at + CENTRAL_LEN];
        if h[..4] != CENTRAL {
            return Err(format!(
                "record {} of the central directory is damaged (no record signature)",
                self.read + 1
            ));
        }
        let flags = u16_at(h, 8);
        let method = u16_at(h, 10);
        let crc32 = u32::from_le_bytes([h[16], h[17], h[18], h[19]]);
        let (mut compressed, mut size) = (u32_at(h, 20), u32_at(h, 24));
        let (name_len, extra_len, comment_len) = (
            u16_at(h, 28) as usize,
            u16_at(h, 30) as usize,
            u16_at(h, 32) as usize,
        );
        let disk = u16_at(h, 34);
        let mut local = u32_at(h, 42);
        let whole = CENTRAL_LEN + name_len + extra_len + comment_len;
        self.fill(r, whole)?;
        let rec = &self.buf[self.at..self.at + whole];
        let raw = &rec[CENTRAL_LEN..CENTRAL_LEN + name_len];
        let extra = &rec[CENTRAL_LEN + name_len..CENTRAL_LEN + name_len + extra_len];
        let mut unicode = None;
        for (id, body) in extra_fields(extra) {
            match id {
                // ZIP64: the fields that do not fit 32 bits, in this order.
                1 => {
                    let mut i = 0;
                    for field in [&mut size, &mut compressed, &mut local] {
                        if *field == 0xFFFF_FFFF && i + 8 <= body.len() {
                            *field = u64_at(body, i);
                            i += 8;
                        }
                    }
                }
                0x7075 => unicode = unicode_path(body, raw),
                _ => {}
            }
        }
        let name = match unicode {
            Some(n) => n,
            None => decode_name(raw, flags & (1 << 11) != 0),
        };
        self.at += whole;
        self.read += 1;
        if disk != 0 {
            return Err(format!(
                "entry `{name}` is on another part of a split archive"
            ));
        }
        Ok(Entry {
            name,
            encrypted: flags & 1 != 0,
            method,
            crc32,
            compressed,
            size,
            local: local.saturating_add(self.dir.shift),
        })
    }
}

/// Reads every record once, keeping none: `Err` with what is wrong when the directory is
/// damaged, so that the archive can be read from its local headers instead.
pub(super) fn check<R: Read + Seek>(r: &mut R, dir: Directory) -> Result<(), String> {
    let mut records = Records::new(dir);
    while let Some(e) = records.next(r) {
        e?;
    }
    Ok(())
}

/// The extra fields of a header: (id, body) pairs, as far as they are whole.
pub(super) fn extra_fields(extra: &[u8]) -> impl Iterator<Item = (u64, &[u8])> {
    let mut i = 0;
    std::iter::from_fn(move || {
        let id = u16_at(extra, i);
        let len = u16_at(extra, i + 2) as usize;
        let body = extra.get(i + 4..i + 4 + len)?;
        i += 4 + len;
        Some((id, body))
    })
}

/// The name of an Info-ZIP Unicode path field (version 1, the CRC-32 of the name it stands
/// for, then the name in UTF-8), when it stands for `raw`.
pub(super) fn unicode_path(body: &[u8], raw: &[u8]) -> Option<String> {
    let (&version, rest) = body.split_first()?;
    let crc = rest.get(..4)?;
    let mut sum = flate2::Crc::new();
    sum.update(raw);
    if version != 1 || crc != sum.sum().to_le_bytes() {
        return None;
    }
    String::from_utf8(rest.get(4..)?.to_vec()).ok()
}

/// An entry's name from its bytes (see the module's text for the order of the guesses).
pub(super) fn decode_name(raw: &[u8], utf8: bool) -> String {
    if utf8 {
        return String::from_utf8_lossy(raw).into_owned();
    }
    if let Ok(s) = std::str::from_utf8(raw) {
        return s.to_owned();
    }
    if let Some(s) = SHIFT_JIS.decode_without_bom_handling_and_without_replacement(raw) {
        return s.into_owned();
    }
    raw.iter()
        .map(|&b| match b.checked_sub(0x80) {
            Some(i) => CP437_HIGH[usize::from(i)],
            None => char::from(b),
        })
        .collect()
}

/// Code page 437, bytes 0x80 to 0xFF.
const CP437_HIGH: [char; 128] = [
    'Ç', 'ü', 'é', 'â', 'ä', 'à', 'å', 'ç', 'ê', 'ë', 'è', 'ï', 'î', 'ì', 'Ä', 'Å', //
    'É', 'æ', 'Æ', 'ô', 'ö', 'ò', 'û', 'ù', 'ÿ', 'Ö', 'Ü', '¢', '£', '¥', '₧', 'ƒ', //
    'á', 'í', 'ó', 'ú', 'ñ', 'Ñ', 'ª', 'º', '¿', '⌐', '¬', '½', '¼', '¡', '«', '»', //
    '░', '▒', '▓', '│', '┤', '╡', '╢', '╖', '╕', '╣', '║', '╗', '╝', '╜', '╛', '┐', //
    '└', '┴', '┬', '├', '─', '┼', '╞', '╟', '╚', '╔', '╩', '╦', '╠', '═', '╬', '╧', //
    '╨', '╤', '╥', '╙', '╘', '╒', '╓', '╫', '╪', '┘', '┌', '█', '▄', '▌', '▐', '▀', //
    'α', 'ß', 'Γ', 'π', 'Σ', 'σ', 'µ', 'τ', 'Φ', 'Θ', 'Ω', 'δ', '∞', 'φ', 'ε', '∩', //
    '≡', '±', '≥', '≤', '⌠', '⌡', '÷', '≈', '°', '∙', '·', '√', 'ⁿ', '²', '■', '\u{A0}',
];
