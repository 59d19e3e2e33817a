//! The JSON scanner under the JKF one pass: whitespace (counting lines and columns as it
//! goes), literals, objects and arrays member by member, strings (borrowed when they hold no
//! escape), whole non-negative numbers, and any value skipped whole. Each gives `None` where the text is not of the plain
//! shape, and the one pass then gives the document to the general reader.

use std::borrow::Cow;

use super::P;
use crate::record::Span;

pub(super) fn is_ws(c: u8) -> bool {
    matches!(c, b' ' | b'\t' | b'\n' | b'\r')
}

impl<'a> P<'a> {
    pub(super) fn peek(&self) -> Option<u8> {
        self.b.get(self.i).copied()
    }

    pub(super) fn ws(&mut self) {
        while let Some(c) = self.peek().filter(|&c| is_ws(c)) {
            self.spaced = true;
            self.i += 1;
            if c == b'\n' || (c == b'\r' && self.peek() != Some(b'\n')) {
                self.line = self.line.saturating_add(1);
                self.line_start = self.i;
                self.wide = 0;
            }
        }
    }

    /// Whether only whitespace is left of the text (skipped).
    pub(super) fn at_end(&mut self) -> bool {
        self.ws();
        self.i == self.b.len()
    }

    /// The line and column of where the parser stands.
    pub(super) fn span(&self) -> Span {
        let col = self.i - self.line_start - self.wide + 1;
        Span::new(self.line, u32::try_from(col).unwrap_or(u32::MAX))
    }

    /// Skips whitespace, then takes `c`.
    pub(super) fn eat(&mut self, c: u8) -> Option<()> {
        self.ws();
        (self.peek()? == c).then(|| self.i += 1)
    }

    /// Skips whitespace, then takes the literal `word` if it is there.
    pub(super) fn literal(&mut self, word: &[u8]) -> bool {
        self.ws();
        self.literal_here(word)
    }

    /// Skips whitespace, then takes `null` if it is there.
    pub(super) fn null(&mut self) -> bool {
        self.literal(b"null")
    }

    pub(super) fn boolean(&mut self) -> Option<bool> {
        if self.literal(b"true") {
            Some(true)
        } else if self.literal(b"false") {
            Some(false)
        } else {
            None
        }
    }

    /// The members of an object whose `{` has been taken, up to its `}`: `f` reads each value
    /// (given its key, which must hold no escape).
    pub(super) fn members(
        &mut self,
        f: impl FnMut(&mut Self, &'a str) -> Option<()>,
    ) -> Option<()> {
        self.object(Self::plain_string, f)
    }

    /// The members of an object whose `{` has been taken, up to its `}`: `key` reads each key
    /// and `f` its value.
    #[inline(always)]
    pub(super) fn object<K>(
        &mut self,
        mut key: impl FnMut(&mut Self) -> Option<K>,
        mut f: impl FnMut(&mut Self, K) -> Option<()>,
    ) -> Option<()> {
        self.ws();
        if self.peek()? == b'}' {
            self.i += 1;
            return Some(());
        }
        loop {
            let key = key(self)?;
            self.eat(b':')?;
            f(self, key)?;
            self.ws();
            match self.peek()? {
                b',' => self.i += 1,
                b'}' => {
                    self.i += 1;
                    return Some(());
                }
                _ => return None,
            }
        }
    }

    /// The elements of an array whose `[` has been taken, up to its `]`.
    pub(super) fn elements(&mut self, mut f: impl FnMut(&mut Self) -> Option<()>) -> Option<()> {
        self.ws();
        if self.peek()? == b']' {
            self.i += 1;
            return Some(());
        }
        loop {
            f(self)?;
            self.ws();
            match self.peek()? {
                b',' => self.i += 1,
                b']' => {
                    self.i += 1;
                    return Some(());
                }
                _ => return None,
            }
        }
    }

    /// A string without escapes, borrowed from the text.
    pub(super) fn plain_string(&mut self) -> Option<&'a str> {
        self.eat(b'"')?;
        let start = self.i;
        let rest = self.b.get(start..)?;
        let len = rest
            .iter()
            .position(|&c| c == b'"' || c == b'\\' || c < 0x20)?;
        if rest.get(len) != Some(&b'"') {
            return None;
        }
        let s = self.s.get(start..start + len)?;
        if !s.is_ascii() {
            self.wide += s.bytes().filter(|&c| c & 0xC0 == 0x80).count();
        }
        self.i = start + len + 1;
        Some(s)
    }

    /// Any string, its escapes decoded as JSON defines them.
    pub(super) fn string(&mut self) -> Option<Cow<'a, str>> {
        self.ws();
        let (start, wide) = (self.i, self.wide);
        if let Some(s) = self.plain_string() {
            return Some(Cow::Borrowed(s));
        }
        (self.i, self.wide) = (start, wide);
        self.eat(b'"')?;
        let mut out = String::new();
        loop {
            let run = self.i;
            while let Some(c) = self
                .peek()
                .filter(|&c| c != b'"' && c != b'\\' && c >= 0x20)
            {
                self.wide += usize::from(c & 0xC0 == 0x80);
                self.i += 1;
            }
            out.push_str(self.s.get(run..self.i)?);
            match self.peek()? {
                b'"' => {
                    self.i += 1;
                    return Some(Cow::Owned(out));
                }
                b'\\' => {
                    self.i += 1;
                    let c = self.peek()?;
                    self.i += 1;
                    out.push(match c {
                        b'"' => '"',
                        b'\\' => '\\',
                        b'/' => '/',
                        b'b' => '\u{8}',
                        b'f' => '\u{c}',
                        b'n' => '\n',
                        b'r' => '\r',
                        b't' => '\t',
                        b'u' => self.unicode_escape()?,
                        _ => return None,
                    });
                }
                _ => return None,
            }
        }
    }

    /// The rest of a `\u` escape (and of its low surrogate, for a high one).
    pub(super) fn unicode_escape(&mut self) -> Option<char> {
        let hi = self.hex4()?;
        if (0xD800..0xDC00).contains(&hi) {
            if !self.literal_here(b"\\u") {
                return None;
            }
            let lo = self.hex4()?;
            if !(0xDC00..0xE000).contains(&lo) {
                return None;
            }
            return char::from_u32(0x10000 + ((hi - 0xD800) << 10) + (lo - 0xDC00));
        }
        char::from_u32(hi)
    }

    pub(super) fn literal_here(&mut self, word: &[u8]) -> bool {
        let hit = self
            .b
            .get(self.i..self.i + word.len())
            .is_some_and(|w| w == word);
        if hit {
            self.i += word.len();
        }
        hit
    }

    pub(super) fn hex4(&mut self) -> Option<u32> {
        let digits = self.s.get(self.i..self.i + 4)?;
        if !digits.bytes().all(|c| c.is_ascii_hexdigit()) {
            return None;
        }
        self.i += 4;
        u32::from_str_radix(digits, 16).ok()
    }

    /// Whether the next value opens with `open` (`{`, `[` or `"`); any other value is skipped
    /// whole, as the general reader takes a value of another type than the format's as none.
    pub(super) fn value_is(&mut self, open: u8) -> Option<bool> {
        self.ws();
        if self.peek()? == open {
            return Some(true);
        }
        self.skip_value(super::UNKNOWN_DEPTH)?;
        Some(false)
    }

    /// Skips one JSON value of any type, as the general reader ignores the value of a key it
    /// does not know: objects and arrays nested at most `depth` levels more (well within
    /// serde_json's limit, wherever the value stands), strings with their escapes checked,
    /// numbers as JSON writes them with at most 18 digits before and after the point and an
    /// exponent of at most two (well within what serde_json reads). `None` for anything else.
    pub(super) fn skip_value(&mut self, depth: u32) -> Option<()> {
        self.ws();
        match self.peek()? {
            b'{' | b'[' if depth == 0 => None,
            b'{' => {
                self.i += 1;
                self.object(|p| p.string().map(drop), |p, ()| p.skip_value(depth - 1))
            }
            b'[' => {
                self.i += 1;
                self.elements(|p| p.skip_value(depth - 1))
            }
            b'"' => self.string().map(drop),
            b't' | b'f' => self.boolean().map(drop),
            b'n' => self.null().then_some(()),
            _ => self.number(),
        }
    }

    /// A number as JSON writes it (see [`P::skip_value`]), its text.
    pub(super) fn number_text(&mut self) -> Option<&'a str> {
        self.ws();
        let start = self.i;
        self.number()?;
        self.s.get(start..self.i)
    }

    /// Skips a number as JSON writes it (see [`P::skip_value`]).
    fn number(&mut self) -> Option<()> {
        let b = self.b;
        let mut i = self.i;
        let digits = |i: &mut usize| {
            let start = *i;
            while b.get(*i).is_some_and(u8::is_ascii_digit) {
                *i += 1;
            }
            *i - start
        };
        if b.get(i) == Some(&b'-') {
            i += 1;
        }
        let first = b.get(i).copied();
        let n = digits(&mut i);
        if n == 0 || n > 18 || (n > 1 && first == Some(b'0')) {
            return None;
        }
        if b.get(i) == Some(&b'.') {
            i += 1;
            if !(1..=18).contains(&digits(&mut i)) {
                return None;
            }
        }
        if matches!(b.get(i), Some(b'e' | b'E')) {
            i += 1;
            if matches!(b.get(i), Some(b'+' | b'-')) {
                i += 1;
            }
            if !(1..=2).contains(&digits(&mut i)) {
                return None;
            }
        }
        self.i = i;
        Some(())
    }

    /// A whole non-negative number written plainly (no sign, fraction, exponent or leading
    /// zero), of at most 18 digits.
    pub(super) fn uint(&mut self) -> Option<u64> {
        self.ws();
        let rest = self.b.get(self.i..)?;
        let len = rest
            .iter()
            .position(|c| !c.is_ascii_digit())
            .unwrap_or(rest.len());
        let digits = rest.get(..len)?;
        if digits.is_empty()
            || digits.len() > 18
            || (digits.len() > 1 && digits.first() == Some(&b'0'))
            || matches!(rest.get(len), Some(b'.' | b'e' | b'E'))
        {
            return None;
        }
        self.i += len;
        Some(
            digits
                .iter()
                .fold(0u64, |n, &d| n * 10 + u64::from(d - b'0')),
        )
    }
}
