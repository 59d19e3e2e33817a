//! Where each JKF move entry starts in the text: a structural scan of JSON serde_json has
//! accepted, by byte offsets turned into lines and columns.

use crate::formats::lines;
use crate::record::Span;

/// Where a `moves` (or fork) entry starts in the text, and its forks' entries.
#[derive(Debug, Default)]
pub(super) struct Entry {
    /// Where the entry starts: a byte offset while scanning, then its line and column.
    at: usize,
    pub(super) span: Span,
    pub(super) forks: Vec<Vec<Entry>>,
}

/// The start of every entry of `moves` (and, nested, of `forks`), found by a structural scan
/// of text serde_json has already accepted. Empty if the scan gets lost.
pub(super) fn entry_spans(text: &str) -> Vec<Entry> {
    let mut sc = Scan {
        b: text.as_bytes(),
        i: 0,
    };
    sc.ws();
    let mut entries = sc.top_moves().unwrap_or_default();
    // Byte offsets to lines and columns, in one pass over the text (the entries are in
    // document order).
    let mut cursor = LineCursor::new(text.as_bytes());
    fill_spans(&mut entries, &mut cursor);
    entries
}

/// One step of a path into a JSON document: a key of an object, or an index of an array.
#[derive(Clone, Copy)]
pub(super) enum Step<'k> {
    Key(&'k str),
    Index(usize),
}

/// Where the value at `path` (from the top-level object) starts in text serde_json has
/// accepted, for a diagnostic about it; `None` if the scan does not find it (a key written
/// with escapes, a path the text does not hold).
pub(super) fn value_span(text: &str, path: &[Step<'_>]) -> Option<Span> {
    let mut sc = Scan {
        b: text.as_bytes(),
        i: 0,
    };
    for step in path {
        match *step {
            Step::Key(key) => {
                sc.expect(b'{')?;
                loop {
                    if sc.string()? == key.as_bytes() {
                        sc.expect(b':')?;
                        break;
                    }
                    sc.expect(b':')?;
                    sc.skip(1)?;
                    sc.expect(b',')?;
                }
            }
            Step::Index(n) => {
                sc.expect(b'[')?;
                for _ in 0..n {
                    sc.skip(1)?;
                    sc.expect(b',')?;
                }
            }
        }
    }
    sc.ws();
    Some(LineCursor::new(text.as_bytes()).span_at(sc.i))
}

fn fill_spans(entries: &mut [Entry], cursor: &mut LineCursor<'_>) {
    for e in entries {
        e.span = cursor.span_at(e.at);
        for f in &mut e.forks {
            fill_spans(f, cursor);
        }
    }
}

/// Line and column (in characters) of increasing byte offsets.
struct LineCursor<'a> {
    text: &'a [u8],
    at: usize,
    line: u32,
    col: u32,
}

impl<'a> LineCursor<'a> {
    /// A cursor at the start of `text`.
    fn new(text: &'a [u8]) -> LineCursor<'a> {
        LineCursor {
            text,
            at: 0,
            line: 1,
            col: 1,
        }
    }

    /// The line and column of byte offset `to`, no less than the offset of the last call.
    fn span_at(&mut self, to: usize) -> Span {
        let chars = |s: &[u8]| {
            u32::try_from(s.iter().filter(|&&c| c & 0xC0 != 0x80).count()).unwrap_or(u32::MAX)
        };
        // An entry starts at a `{`, never inside a CR LF, so each segment's line ends are
        // whole.
        if let Some(seg) = self.text.get(self.at..to) {
            match lines::count(seg) {
                0 => self.col = self.col.saturating_add(chars(seg)),
                n => {
                    self.line = self
                        .line
                        .saturating_add(u32::try_from(n).unwrap_or(u32::MAX));
                    let last = memchr::memrchr2(b'\n', b'\r', seg).map_or(0, |i| i + 1);
                    self.col = chars(seg.get(last..).unwrap_or_default()).saturating_add(1);
                }
            }
            self.at = to;
        }
        Span::new(self.line, self.col)
    }
}

/// A structural scan of JSON text serde_json has accepted, by byte offsets.
struct Scan<'a> {
    b: &'a [u8],
    i: usize,
}

impl Scan<'_> {
    fn peek(&self) -> Option<u8> {
        self.b.get(self.i).copied()
    }

    fn bump(&mut self) -> Option<u8> {
        let c = self.peek()?;
        self.i += 1;
        Some(c)
    }

    fn ws(&mut self) {
        while matches!(self.peek(), Some(b' ' | b'\t' | b'\r' | b'\n')) {
            self.bump();
        }
    }

    fn expect(&mut self, c: u8) -> Option<()> {
        self.ws();
        (self.bump()? == c).then_some(())
    }

    /// A string; returns its raw bytes (escapes left as written).
    fn string(&mut self) -> Option<&[u8]> {
        self.expect(b'"')?;
        let start = self.i;
        loop {
            match self.bump()? {
                b'\\' => {
                    self.bump()?;
                }
                b'"' => return self.b.get(start..self.i - 1),
                _ => {}
            }
        }
    }

    /// Skips any value.
    fn skip(&mut self, depth: u32) -> Option<()> {
        if depth > 256 {
            return None;
        }
        self.ws();
        match self.peek()? {
            b'"' => {
                self.string()?;
            }
            b'{' => {
                self.bump();
                self.ws();
                if self.peek()? == b'}' {
                    self.bump();
                    return Some(());
                }
                loop {
                    self.string()?;
                    self.expect(b':')?;
                    self.skip(depth + 1)?;
                    self.ws();
                    match self.bump()? {
                        b',' => {}
                        b'}' => break,
                        _ => return None,
                    }
                }
            }
            b'[' => {
                self.bump();
                self.ws();
                if self.peek()? == b']' {
                    self.bump();
                    return Some(());
                }
                loop {
                    self.skip(depth + 1)?;
                    self.ws();
                    match self.bump()? {
                        b',' => {}
                        b']' => break,
                        _ => return None,
                    }
                }
            }
            _ => {
                while !matches!(
                    self.peek()?,
                    b',' | b'}' | b']' | b' ' | b'\t' | b'\r' | b'\n'
                ) {
                    self.bump();
                }
            }
        }
        Some(())
    }

    /// The top-level object: finds `moves`.
    fn top_moves(&mut self) -> Option<Vec<Entry>> {
        self.expect(b'{')?;
        let mut found = None;
        loop {
            self.ws();
            if self.peek()? == b'}' {
                break;
            }
            let key = self.string()?.to_vec();
            self.expect(b':')?;
            if key == b"moves" {
                found = Some(self.entries(0)?);
            } else {
                self.skip(1)?;
            }
            self.ws();
            match self.bump()? {
                b',' => {}
                b'}' => break,
                _ => return None,
            }
        }
        found
    }

    /// An array of move entries.
    fn entries(&mut self, depth: u32) -> Option<Vec<Entry>> {
        if depth > 64 {
            return None;
        }
        self.expect(b'[')?;
        let mut out = Vec::new();
        self.ws();
        if self.peek()? == b']' {
            self.bump();
            return Some(out);
        }
        loop {
            self.ws();
            out.push(self.entry(depth)?);
            self.ws();
            match self.bump()? {
                b',' => {}
                b']' => break,
                _ => return None,
            }
        }
        Some(out)
    }

    /// One move entry (an object); notes its start and reads its `forks`.
    fn entry(&mut self, depth: u32) -> Option<Entry> {
        self.ws();
        let mut e = Entry {
            at: self.i,
            span: Span::default(),
            forks: Vec::new(),
        };
        if self.peek()? != b'{' {
            self.skip(depth + 1)?;
            return Some(e);
        }
        self.bump();
        loop {
            self.ws();
            if self.peek()? == b'}' {
                self.bump();
                break;
            }
            let key = self.string()?.to_vec();
            self.expect(b':')?;
            self.ws();
            if key == b"forks" && self.peek()? == b'[' {
                self.bump();
                self.ws();
                if self.peek()? == b']' {
                    self.bump();
                } else {
                    loop {
                        e.forks.push(self.entries(depth + 1)?);
                        self.ws();
                        match self.bump()? {
                            b',' => {}
                            b']' => break,
                            _ => return None,
                        }
                    }
                }
            } else {
                self.skip(depth + 1)?;
            }
            self.ws();
            match self.bump()? {
                b',' => {}
                b'}' => break,
                _ => return None,
            }
        }
        Some(e)
    }
}
