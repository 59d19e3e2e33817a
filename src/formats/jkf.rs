//! JSON Kifu Format (JKF): reader and writer.
//!
//! The reader is lenient: JSON that does not parse is one `syntax` diagnostic with the line and
//! column serde_json reports; a move entry it cannot understand is a `syntax` diagnostic and is
//! skipped. Unknown properties are ignored. `initial.preset: "OTHER"` stays an explicit setup
//! even when it equals a standard position, so JKF → record → JKF gives the same JSON. Each move
//! node's span is where its entry (`{`) starts in the text, found by a structural scan.
//!
//! The writer follows the reference converters (json-kifu-format's normalizer, as used by
//! sugyan/shogi-kifu-converter): every move gets `color`, `from` (absent for drops), `to`,
//! `piece` (the kind before the move), `same: true` when it lands where the previous move of
//! its line landed, `promote` exactly when the move could promote (`true`/`false`), `capture`
//! with the kind taken (promoted kinds kept), and `relative` when another piece of the same
//! kind could reach the square (KI2 rules: `L`/`C`/`R`, `U`/`M`/`D`, `H` for drops). Times are
//! `now {m, s}` and `total {h, m, s}`; cumulative totals are computed per side when the record
//! has none (CSA). Comments are written as they are in the record.

use std::borrow::Cow;
use std::collections::HashMap;
use std::fmt;

use serde::de::{MapAccess, SeqAccess, Visitor};
use serde::ser::SerializeMap;
use serde::{Deserialize, Serialize};
use serde_json::{Number, Value};

use super::board::{self as replay, LenientBoard as Board};
use super::{ParsedGame, WriteOptions, Written};
use crate::core::{ByColor, Color, Hand, Handicap, Move, Piece, PieceKind, Setup, Square};
use crate::diag::{Code, Diagnostic};
use crate::record::{
    Horizontal, MoveNode, MoveText, MoveTime, NamedPiece, NodeKind, Record, Relative, Source, Span,
    Special, SpecialKind, StartPosition, Vertical, keys,
};

/// A JSON object read with its keys in file order.
struct Ordered(Vec<(String, Value)>);

impl<'de> Deserialize<'de> for Ordered {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Ordered, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Ordered;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("an object")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut m: A) -> Result<Ordered, A::Error> {
                let mut v = Vec::new();
                while let Some((k, val)) = m.next_entry::<String, Value>()? {
                    v.push((k, val));
                }
                Ok(Ordered(v))
            }
        }
        d.deserialize_map(V)
    }
}

/// A JSON value as the reader takes it: like [`Value`], but strings are borrowed from the text
/// where they hold no escapes and objects are key-value pairs in file order (a repeated key
/// replaces the earlier value in place, as serde_json's ordered map does). Building a
/// `Value` (an ordered hash map per object, a `String` per string) was most of the time of
/// reading JKF. It writes back as the same JSON as the `Value` would (`Serialize`,
/// `Display`).
#[derive(Debug, Clone, PartialEq)]
enum J<'a> {
    Null,
    Bool(bool),
    Number(Number),
    String(Cow<'a, str>),
    Array(Vec<J<'a>>),
    Object(Vec<(Cow<'a, str>, J<'a>)>),
}

impl<'a> J<'a> {
    /// The value of `key`, if this is an object that has it.
    fn get(&self, key: &str) -> Option<&J<'a>> {
        match self {
            J::Object(m) => m.iter().find(|(k, _)| k == key).map(|(_, v)| v),
            _ => None,
        }
    }

    fn as_str(&self) -> Option<&str> {
        match self {
            J::String(s) => Some(s),
            _ => None,
        }
    }

    fn as_bool(&self) -> Option<bool> {
        match self {
            J::Bool(b) => Some(*b),
            _ => None,
        }
    }

    fn as_u64(&self) -> Option<u64> {
        match self {
            J::Number(n) => n.as_u64(),
            _ => None,
        }
    }

    fn as_f64(&self) -> Option<f64> {
        match self {
            J::Number(n) => n.as_f64(),
            _ => None,
        }
    }

    fn as_object(&self) -> Option<&[(Cow<'a, str>, J<'a>)]> {
        match self {
            J::Object(m) => Some(m),
            _ => None,
        }
    }

    fn is_null(&self) -> bool {
        matches!(self, J::Null)
    }
}

impl Serialize for J<'_> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            J::Null => s.serialize_unit(),
            J::Bool(b) => s.serialize_bool(*b),
            J::Number(n) => n.serialize(s),
            J::String(x) => s.serialize_str(x),
            J::Array(v) => v.serialize(s),
            J::Object(m) => {
                let mut map = s.serialize_map(Some(m.len()))?;
                for (k, v) in m {
                    map.serialize_entry(k.as_ref(), v)?;
                }
                map.end()
            }
        }
    }
}

impl fmt::Display for J<'_> {
    /// Compact JSON, as `Value`'s `Display` writes it.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&serde_json::to_string(self).map_err(|_| fmt::Error)?)
    }
}

impl<'de: 'a, 'a> Deserialize<'de> for J<'a> {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<J<'a>, D::Error> {
        struct V<'a>(std::marker::PhantomData<&'a ()>);
        impl<'de: 'a, 'a> Visitor<'de> for V<'a> {
            type Value = J<'a>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("any JSON value")
            }
            fn visit_bool<E: serde::de::Error>(self, b: bool) -> Result<J<'a>, E> {
                Ok(J::Bool(b))
            }
            fn visit_i64<E: serde::de::Error>(self, n: i64) -> Result<J<'a>, E> {
                Ok(J::Number(n.into()))
            }
            fn visit_u64<E: serde::de::Error>(self, n: u64) -> Result<J<'a>, E> {
                Ok(J::Number(n.into()))
            }
            fn visit_f64<E: serde::de::Error>(self, x: f64) -> Result<J<'a>, E> {
                // As `Value` does: a float that is not finite is null.
                Ok(Number::from_f64(x).map_or(J::Null, J::Number))
            }
            fn visit_borrowed_str<E: serde::de::Error>(self, s: &'de str) -> Result<J<'a>, E> {
                Ok(J::String(Cow::Borrowed(s)))
            }
            fn visit_str<E: serde::de::Error>(self, s: &str) -> Result<J<'a>, E> {
                Ok(J::String(Cow::Owned(s.to_owned())))
            }
            fn visit_string<E: serde::de::Error>(self, s: String) -> Result<J<'a>, E> {
                Ok(J::String(Cow::Owned(s)))
            }
            fn visit_unit<E: serde::de::Error>(self) -> Result<J<'a>, E> {
                Ok(J::Null)
            }
            fn visit_none<E: serde::de::Error>(self) -> Result<J<'a>, E> {
                Ok(J::Null)
            }
            fn visit_some<D: serde::Deserializer<'de>>(self, d: D) -> Result<J<'a>, D::Error> {
                J::deserialize(d)
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut a: A) -> Result<J<'a>, A::Error> {
                let mut v = Vec::new();
                while let Some(x) = a.next_element::<J<'a>>()? {
                    v.push(x);
                }
                Ok(J::Array(v))
            }
            fn visit_map<A: MapAccess<'de>>(self, mut m: A) -> Result<J<'a>, A::Error> {
                let mut pairs: Vec<(Cow<'a, str>, J<'a>)> = Vec::new();
                // Where each key stands, once an object is too big to search key by key.
                let mut index: Option<HashMap<Cow<'a, str>, usize>> = None;
                // serde_json's keys are strings (borrowed when they hold no escapes).
                while let Some(key) = m.next_key::<J<'a>>()? {
                    let J::String(k) = key else {
                        return Err(serde::de::Error::custom("a key that is not a string"));
                    };
                    let v = m.next_value::<J<'a>>()?;
                    if pairs.len() >= 16 && index.is_none() {
                        index = Some(
                            pairs
                                .iter()
                                .enumerate()
                                .map(|(i, (k, _))| (k.clone(), i))
                                .collect(),
                        );
                    }
                    let at = match &index {
                        Some(ix) => ix.get(&k).copied(),
                        None => pairs.iter().position(|(x, _)| *x == k),
                    };
                    match at.and_then(|i| pairs.get_mut(i)) {
                        Some(slot) => slot.1 = v,
                        None => {
                            if let Some(ix) = &mut index {
                                ix.insert(k.clone(), pairs.len());
                            }
                            pairs.push((k, v));
                        }
                    }
                }
                Ok(J::Object(pairs))
            }
        }
        d.deserialize_any(V(std::marker::PhantomData))
    }
}

#[derive(Deserialize)]
struct Top<'a> {
    #[serde(default)]
    header: Option<Ordered>,
    #[serde(default, borrow)]
    initial: Option<J<'a>>,
    #[serde(borrow)]
    moves: Option<Vec<J<'a>>>,
}

/// Reads JKF text (one game).
///
/// ```
/// let g = kifu::formats::jkf::read(r#"{"header":{"先手":"A"},"moves":[{},
///   {"move":{"color":0,"from":{"x":7,"y":7},"to":{"x":7,"y":6},"piece":"FU"}},
///   {"special":"TORYO"}]}"#);
/// assert_eq!(g[0].record.plies(), 1);
/// assert!(g[0].diagnostics.is_empty());
/// ```
pub fn read(text: &str) -> Vec<ParsedGame> {
    let text = text.trim_start_matches('\u{FEFF}');
    let mut record = Record::default();
    let mut diags = Vec::new();
    let top: Top = match serde_json::from_str(text) {
        Ok(t) => t,
        Err(e) => {
            let msg = if e.to_string().starts_with("recursion limit exceeded") {
                format!(
                    "not a JKF document: nested deeper than {MAX_JSON_DEPTH} JSON levels \
                     ({MAX_VARIATION_DEPTH} levels of variations): {e}"
                )
            } else {
                format!("not a JKF document: {e}")
            };
            let mut d = Diagnostic::new(Code::Syntax, msg);
            if e.line() > 0 {
                d.line = u32::try_from(e.line()).ok();
                d.column = u32::try_from(e.column()).ok().map(|c| c.max(1));
            }
            return vec![ParsedGame {
                record,
                diagnostics: vec![d],
            }];
        }
    };
    let mut r = Reader { diags: &mut diags };
    for (k, v) in top.header.map(|h| h.0).unwrap_or_default() {
        let value = match v {
            Value::String(s) => s,
            Value::Null => String::new(),
            other => other.to_string(),
        };
        record.header.push(k, value, Default::default());
    }
    record.start = r.initial(top.initial.as_ref());
    let Some(moves) = top.moves else {
        r.syntax("JKF: `moves` is missing".into());
        return vec![ParsedGame {
            record,
            diagnostics: diags,
        }];
    };
    if let Some(first) = moves.first() {
        record.start_comments = strings(first.get("comments"));
    }
    let spans = entry_spans(text);
    record.moves = r.line(
        moves.get(1..).unwrap_or(&[]),
        spans.get(1..).unwrap_or(&[]),
        1,
    );
    vec![ParsedGame {
        record,
        diagnostics: diags,
    }]
}

struct Reader<'a> {
    diags: &'a mut Vec<Diagnostic>,
}

fn strings(v: Option<&J<'_>>) -> Vec<String> {
    match v {
        Some(J::Array(a)) => a
            .iter()
            .map(|c| match c {
                J::String(s) => s.to_string(),
                other => other.to_string(),
            })
            .collect(),
        Some(J::String(s)) => vec![s.to_string()],
        _ => Vec::new(),
    }
}

fn color_of(v: Option<&J<'_>>) -> Option<Color> {
    match v? {
        J::Number(n) => match n.as_u64()? {
            0 => Some(Color::Black),
            1 => Some(Color::White),
            _ => None,
        },
        // Old json-kifu-format output: `true` is Black (先手).
        J::Bool(b) => Some(if *b { Color::Black } else { Color::White }),
        _ => None,
    }
}

fn square_of(v: Option<&J<'_>>) -> Option<Square> {
    let v = v?;
    let x = v.get("x")?.as_u64()?;
    let y = v.get("y")?.as_u64()?;
    Square::new(u8::try_from(x).ok()?, u8::try_from(y).ok()?)
}

fn kind_of(v: Option<&J<'_>>) -> Option<PieceKind> {
    PieceKind::from_csa(v?.as_str()?)
}

impl Reader<'_> {
    fn syntax(&mut self, msg: String) {
        self.diags.push(Diagnostic::new(Code::Syntax, msg));
    }

    fn initial(&mut self, v: Option<&J<'_>>) -> StartPosition {
        let Some(v) = v.filter(|v| !v.is_null()) else {
            return StartPosition::default();
        };
        let preset = v.get("preset").and_then(J::as_str).unwrap_or("OTHER");
        if preset != "OTHER" {
            if let Some(h) = Handicap::from_jkf_preset(preset) {
                return StartPosition::Preset(h);
            }
            self.syntax(format!("JKF: unknown preset `{preset}`"));
            return StartPosition::default();
        }
        let Some(data) = v.get("data") else {
            self.syntax("JKF: preset OTHER without `data`".into());
            return StartPosition::default();
        };
        let mut s = Setup::empty();
        s.turn = color_of(data.get("color")).unwrap_or(Color::Black);
        if let Some(J::Array(files)) = data.get("board") {
            for (x, col) in files.iter().enumerate().take(9) {
                let J::Array(cells) = col else { continue };
                for (y, cell) in cells.iter().enumerate().take(9) {
                    let (Some(color), Some(kind)) =
                        (color_of(cell.get("color")), kind_of(cell.get("kind")))
                    else {
                        if cell.as_object().is_some_and(|o| !o.is_empty()) {
                            self.syntax(format!("JKF: bad board cell {cell}"));
                        }
                        continue;
                    };
                    if let Some(sq) = Square::new(x as u8 + 1, y as u8 + 1) {
                        s.set_piece(sq, Some(Piece::new(color, kind)));
                    }
                }
            }
        } else {
            self.syntax("JKF: `data.board` is missing".into());
        }
        if let Some(J::Array(hands)) = data.get("hands") {
            for (i, h) in hands.iter().enumerate().take(2) {
                let Some(obj) = h.as_object() else { continue };
                let hand = s.hands.get_mut(Color::from_index(i));
                for (k, n) in obj {
                    match (PieceKind::from_csa(k), n.as_u64()) {
                        (Some(kind), Some(n)) if kind.is_hand_kind() => {
                            hand.set(kind, u8::try_from(n).unwrap_or(u8::MAX));
                        }
                        _ => self.syntax(format!("JKF: bad hand entry `{k}: {n}`")),
                    }
                }
            }
        }
        StartPosition::Setup(Box::new(s))
    }

    /// Reads a line of moves whose first element is ply `ply`; `spans` are where the entries
    /// start in the text (empty when unknown).
    fn line(&mut self, entries: &[J<'_>], spans: &[Entry], ply: u32) -> Vec<MoveNode> {
        let mut out: Vec<MoveNode> = Vec::with_capacity(entries.len());
        let mut prev_to: Option<Square> = None;
        for (i, e) in entries.iter().enumerate() {
            let ply = ply + i as u32;
            let Some(node) = self.node(e, spans.get(i), ply, prev_to) else {
                continue;
            };
            if let NodeKind::Move { text, .. } = &node.kind {
                prev_to = Some(text.to);
            }
            out.push(node);
        }
        out
    }

    fn node(
        &mut self,
        e: &J<'_>,
        at: Option<&Entry>,
        ply: u32,
        prev_to: Option<Square>,
    ) -> Option<MoveNode> {
        let span = at.map(|a| a.span).unwrap_or_default();
        let kind = if let Some(m) = e.get("move").filter(|m| !m.is_null()) {
            let Some(text) = self.move_text(m, prev_to) else {
                self.diags.push(
                    Diagnostic::new(Code::Syntax, format!("JKF: cannot read move {m}"))
                        .at(span)
                        .ply(ply),
                );
                return None;
            };
            NodeKind::Move {
                text,
                resolved: None,
            }
        } else if let Some(s) = e.get("special").and_then(J::as_str) {
            NodeKind::Special(special_of(s))
        } else {
            self.diags.push(
                Diagnostic::new(
                    Code::Syntax,
                    format!("JKF: entry {ply} has neither `move` nor `special`"),
                )
                .at(span)
                .ply(ply),
            );
            return None;
        };
        let mut node = MoveNode::new(kind, span);
        node.comments = strings(e.get("comments"));
        node.time = e.get("time").and_then(time_of);
        if let Some(J::Array(forks)) = e.get("forks") {
            for (k, f) in forks.iter().enumerate() {
                let J::Array(line) = f else { continue };
                let spans = at
                    .and_then(|a| a.forks.get(k))
                    .map_or(&[][..], |v| v.as_slice());
                let v = self.line(line, spans, ply);
                if !v.is_empty() {
                    node.variations.push(v);
                }
            }
        }
        Some(node)
    }

    fn move_text(&mut self, m: &J<'_>, prev_to: Option<Square>) -> Option<MoveText> {
        let same = m.get("same").and_then(J::as_bool).unwrap_or(false);
        let to = match square_of(m.get("to")) {
            Some(sq) => sq,
            None if same => prev_to?,
            None => return None,
        };
        let from = match m.get("from") {
            None | Some(J::Null) => Source::Drop,
            f => Source::Square(square_of(f)?),
        };
        let kind = kind_of(m.get("piece"))?;
        let promote = m.get("promote").and_then(J::as_bool);
        let relative = m
            .get("relative")
            .and_then(J::as_str)
            .map(relative_of)
            .unwrap_or_default();
        Some(MoveText {
            color: color_of(m.get("color")),
            from,
            to,
            same,
            piece: Some(NamedPiece::Before(kind)),
            promote,
            relative,
            // The compact JSON of the move object, as `Display` writes it, without going
            // through the formatting machinery (a tenth of reading a JKF file).
            raw: serde_json::to_string(m)
                .unwrap_or_else(|_| m.to_string())
                .into(),
        })
    }
}

/// Where a `moves` (or fork) entry starts in the text, and its forks' entries.
#[derive(Debug, Default)]
struct Entry {
    /// Where the entry starts: a byte offset while scanning, then its line and column.
    at: usize,
    span: Span,
    forks: Vec<Vec<Entry>>,
}

/// The start of every entry of `moves` (and, nested, of `forks`), found by a structural scan
/// of text serde_json has already accepted. Empty if the scan gets lost.
fn entry_spans(text: &str) -> Vec<Entry> {
    let mut sc = Scan {
        b: text.as_bytes(),
        i: 0,
    };
    sc.ws();
    let mut entries = sc.top_moves().unwrap_or_default();
    // Byte offsets to lines and columns, in one pass over the text (the entries are in
    // document order).
    let mut cursor = LineCursor {
        text: text.as_bytes(),
        at: 0,
        line: 1,
        col: 1,
    };
    fill_spans(&mut entries, &mut cursor);
    entries
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

impl LineCursor<'_> {
    fn span_at(&mut self, to: usize) -> Span {
        let chars = |s: &[u8]| {
            u32::try_from(s.iter().filter(|&&c| c & 0xC0 != 0x80).count()).unwrap_or(u32::MAX)
        };
        if let Some(seg) = self.text.get(self.at..to) {
            match memchr::memrchr(b'\n', seg) {
                Some(last) => {
                    let lines = memchr::memchr_iter(b'\n', seg).count();
                    self.line = self
                        .line
                        .saturating_add(u32::try_from(lines).unwrap_or(u32::MAX));
                    self.col = chars(seg.get(last + 1..).unwrap_or_default()).saturating_add(1);
                }
                None => self.col = self.col.saturating_add(chars(seg)),
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

fn relative_of(s: &str) -> Relative {
    let mut r = Relative::default();
    for c in s.chars() {
        match c {
            'L' => r.horizontal = Some(Horizontal::Left),
            'C' => r.horizontal = Some(Horizontal::Straight),
            'R' => r.horizontal = Some(Horizontal::Right),
            'U' => r.vertical = Some(Vertical::Up),
            'M' => r.vertical = Some(Vertical::Sideways),
            'D' => r.vertical = Some(Vertical::Down),
            'H' => r.drop = true,
            _ => {}
        }
    }
    r
}

fn special_of(s: &str) -> Special {
    let kind = SpecialKind::from_csa(s).unwrap_or(SpecialKind::Unknown);
    Special {
        kind,
        text: s.to_owned(),
        side: kind.named_side(),
    }
}

/// A time field (`h`, `m` or `s`) in milliseconds, `unit` being the field's: whole numbers
/// exactly (an `f64` would round times past 2^53 ms), fractions rounded to the millisecond.
fn num_ms(v: Option<&J<'_>>, unit: u64) -> u64 {
    let Some(v) = v else {
        return 0;
    };
    if let Some(n) = v.as_u64() {
        return n.saturating_mul(unit);
    }
    match v.as_f64() {
        Some(x) if x.is_finite() && x > 0.0 => (x * unit as f64).round() as u64,
        _ => 0,
    }
}

fn hms(v: &J<'_>) -> u64 {
    num_ms(v.get("h"), 3_600_000)
        .saturating_add(num_ms(v.get("m"), 60_000))
        .saturating_add(num_ms(v.get("s"), 1_000))
}

fn time_of(v: &J<'_>) -> Option<MoveTime> {
    let now = v.get("now").map(hms);
    let total = v.get("total").map(hms);
    (now.is_some() || total.is_some()).then_some(MoveTime {
        elapsed_ms: now,
        total_ms: total,
    })
}

// ---------------------------------------------------------------------------------------------
// Writer

/// The JSON nesting serde_json reads (its recursion limit), which this reader and other
/// parsers with a nesting limit (serde_json's default) refuse to exceed.
pub const MAX_JSON_DEPTH: u32 = 128;

/// The deepest variation nesting the writer writes: 40 levels. Each level nests three JSON
/// levels (a `forks` array, a line array, a move object) below the `moves` array of the
/// document object, and a move object holds objects two levels deep (`move.from`,
/// `time.now`), so 40 levels reach JSON depth 3 × 40 + 5 = 125, within
/// [`MAX_JSON_DEPTH`]. Deeper variations (KIF allows 1000 levels) are not written, with a
/// `lossy` warning, so that what the writer writes always reads back.
pub const MAX_VARIATION_DEPTH: u32 = 40;

/// Writes a record as JKF: compact JSON on one line, as the reference implementation's
/// `JSON.stringify` writes it (indentation would grow with every level of nested variations
/// and made typical files five times larger).
pub fn write(record: &Record, _opts: &WriteOptions) -> Written {
    let (doc, warnings) = document(record);
    let text = match serde_json::to_string(&doc) {
        Ok(mut s) => {
            s.push('\n');
            s
        }
        Err(_) => String::new(),
    };
    Written { text, warnings }
}

/// The JKF document for a record, as a JSON value, with what it could not hold.
pub fn to_value(record: &Record) -> (Value, Vec<Diagnostic>) {
    let (doc, warnings) = document(record);
    (serde_json::to_value(&doc).unwrap_or(Value::Null), warnings)
}

/// A JSON number.
fn num(n: impl Into<Number>) -> J<'static> {
    J::Number(n.into())
}

/// A JSON string borrowed from the record (or static).
fn jstr(s: &str) -> J<'_> {
    J::String(Cow::Borrowed(s))
}

/// A JSON object from its keys and values, in order.
fn object<'a>(pairs: impl IntoIterator<Item = (&'static str, J<'a>)>) -> J<'a> {
    J::Object(
        pairs
            .into_iter()
            .map(|(k, v)| (Cow::Borrowed(k), v))
            .collect(),
    )
}

/// The JKF document for a record, built as the reader's light JSON value (an object is a
/// vector of pairs: no hashing, one allocation), which serializes as the same JSON a
/// `Value` would; with what it could not hold.
fn document(record: &Record) -> (J<'_>, Vec<Diagnostic>) {
    let mut w = JkfWriter {
        warnings: Vec::new(),
        no_elapsed: false,
    };
    // The first value of each key (a record may repeat one; the others are said to be
    // dropped). Header comments (CSA `'` lines before the position: a file banner, an
    // encoding note) have no place in JKF; they are left out, as the reference converters
    // do, with a warning (they are not the game's comments before its first move).
    let mut header = Vec::new();
    let mut seen = std::collections::HashSet::new();
    let mut header_comments = 0usize;
    for e in &record.header.entries {
        if e.key == keys::HEADER_COMMENT {
            header_comments += 1;
            continue;
        }
        if seen.insert(e.key.as_str()) {
            header.push((Cow::Borrowed(e.key.as_str()), jstr(&e.value)));
        } else {
            w.lossy(
                format!(
                    "JKF holds one value per header key; `{}：{}` was dropped",
                    e.key, e.value
                ),
                None,
            );
        }
    }
    if header_comments > 0 {
        w.lossy(
            format!("JKF has no header comments; {header_comments} were dropped"),
            None,
        );
    }
    let initial = match &record.start {
        StartPosition::Preset(h) => object([("preset", jstr(h.jkf_preset()))]),
        StartPosition::Setup(s) => object([("preset", jstr("OTHER")), ("data", setup_value(s))]),
    };
    let mut first = Vec::new();
    if !record.start_comments.is_empty() {
        first.push((
            Cow::Borrowed("comments"),
            strings_value(&record.start_comments),
        ));
    }
    if let Some(b) = &record.start_bookmark {
        push_bookmark(&mut first, b);
        w.lossy(
            "JKF has no bookmarks; the start bookmark was written as a `&` comment".into(),
            None,
        );
    }
    let mut moves = vec![J::Object(first)];
    let board = Board::new(&record.start);
    let totals = ByColor::<u64>::default();
    w.line(&record.moves, board, None, totals, 1, 0, &mut moves);
    let doc = object([
        ("header", J::Object(header)),
        ("initial", initial),
        ("moves", J::Array(moves)),
    ]);
    (doc, w.warnings)
}

/// A list of strings (comments) as a JSON array.
fn strings_value(list: &[String]) -> J<'_> {
    J::Array(list.iter().map(|c| jstr(c)).collect())
}

fn setup_value(s: &Setup) -> J<'static> {
    let board: Vec<J<'static>> = (1..=9u8)
        .map(|x| {
            J::Array(
                (1..=9u8)
                    .map(|y| match Square::new(x, y).and_then(|sq| s.piece_at(sq)) {
                        Some(p) => object([
                            ("color", num(p.color.index() as u64)),
                            ("kind", jstr(p.kind.csa())),
                        ]),
                        None => J::Object(Vec::new()),
                    })
                    .collect(),
            )
        })
        .collect();
    let hand = |h: &Hand| {
        J::Object(
            PieceKind::HAND
                .iter()
                .map(|k| (Cow::Borrowed(k.csa()), num(h.count(*k))))
                .collect(),
        )
    };
    object([
        ("board", J::Array(board)),
        (
            "hands",
            J::Array(vec![hand(&s.hands.black), hand(&s.hands.white)]),
        ),
        ("color", num(s.turn.index() as u64)),
    ])
}

struct JkfWriter {
    warnings: Vec<Diagnostic>,
    /// A time without its elapsed part was written (and reported).
    no_elapsed: bool,
}

/// A bookmark becomes a comment `&name`, as the reference converter writes it.
fn push_bookmark<'a>(entry: &mut Vec<(Cow<'a, str>, J<'a>)>, b: &str) {
    let at = match entry.iter().position(|(k, _)| k == "comments") {
        Some(i) => i,
        None => {
            entry.push((Cow::Borrowed("comments"), J::Array(Vec::new())));
            entry.len() - 1
        }
    };
    if let Some((_, J::Array(a))) = entry.get_mut(at) {
        a.push(J::String(Cow::Owned(format!("&{b}"))));
    }
}

fn time_value(now_ms: u64, total_ms: u64) -> J<'static> {
    let secs = |ms: u64| -> J<'static> {
        if ms % 1000 == 0 {
            num(ms / 1000)
        } else {
            // As `json!` writes an `f64` (a value that is not finite would be null).
            Number::from_f64(ms as f64 / 1000.0).map_or(J::Null, J::Number)
        }
    };
    let now_m = now_ms / 60_000;
    let now_s = now_ms % 60_000;
    let h = total_ms / 3_600_000;
    let m = (total_ms % 3_600_000) / 60_000;
    let s = total_ms % 60_000;
    object([
        ("now", object([("m", num(now_m)), ("s", secs(now_s))])),
        (
            "total",
            object([("h", num(h)), ("m", num(m)), ("s", secs(s))]),
        ),
    ])
}

impl JkfWriter {
    fn lossy(&mut self, msg: String, ply: Option<u32>) {
        let mut d = Diagnostic::new(Code::Lossy, msg);
        d.ply = ply;
        self.warnings.push(d);
    }

    /// Writes `nodes` (starting at `ply`, from `board`) into `out`; `depth` is how many
    /// variations deep the line is (0 for the main line). Variations nested deeper than
    /// [`MAX_VARIATION_DEPTH`] are not written, with a `lossy` warning.
    #[allow(clippy::too_many_arguments)]
    fn line<'r>(
        &mut self,
        nodes: &'r [MoveNode],
        mut board: Board,
        mut prev_to: Option<Square>,
        mut totals: ByColor<u64>,
        ply: u32,
        depth: u32,
        out: &mut Vec<J<'r>>,
    ) {
        for (i, node) in nodes.iter().enumerate() {
            let ply = ply + i as u32;
            // Keys are distinct (comments are added to by `push_bookmark` only).
            let mut entry: Vec<(Cow<'r, str>, J<'r>)> = Vec::new();
            let mover = match &node.kind {
                NodeKind::Move { text, .. } => text.color.unwrap_or(board.turn()),
                NodeKind::Special(_) => board.turn(),
            };
            // Forks first: they start from the position before this node.
            let mut forks = Vec::new();
            if depth >= MAX_VARIATION_DEPTH && !node.variations.is_empty() {
                self.lossy(
                    format!(
                        "JKF readers refuse JSON nested deeper than {} levels: the {} variations \
                         at ply {ply}, {} levels deep, were not written",
                        MAX_JSON_DEPTH,
                        node.variations.len(),
                        depth + 1
                    ),
                    Some(ply),
                );
            } else {
                for v in &node.variations {
                    let mut line = Vec::new();
                    self.line(v, board.clone(), prev_to, totals, ply, depth + 1, &mut line);
                    if !line.is_empty() {
                        forks.push(J::Array(line));
                    }
                }
            }
            let mut stop = false;
            match &node.kind {
                NodeKind::Move { text, .. } => {
                    match self.move_value(node, text, &mut board, prev_to) {
                        Some((mv, to)) => {
                            entry.push((Cow::Borrowed("move"), mv));
                            prev_to = Some(to);
                        }
                        None => {
                            self.lossy(
                                format!(
                                    "move {ply} `{}` cannot be replayed; the line was cut there",
                                    text.raw
                                ),
                                Some(ply),
                            );
                            stop = true;
                        }
                    }
                }
                // A win stated only by a KI2 `まで…の勝ち` footer: the reference converters
                // write no special for it.
                NodeKind::Special(s)
                    if s.kind == SpecialKind::Resign && s.text.starts_with("まで") =>
                {
                    self.lossy(
                        format!("`{}` is only a footer; JKF gets no special for it", s.text),
                        Some(ply),
                    );
                    break;
                }
                NodeKind::Special(s) => match self.special_name(s, board.turn(), ply) {
                    Some(name) => {
                        entry.push((Cow::Borrowed("special"), J::String(Cow::Owned(name))));
                    }
                    None => stop = true,
                },
            }
            if stop {
                break;
            }
            if let Some(t) = node.time {
                if t.elapsed_ms.is_none() && !self.no_elapsed {
                    self.no_elapsed = true;
                    self.lossy(
                        format!(
                            "JKF always writes a move's elapsed time (`now`): times without one \
                             (the first at ply {ply}) were written as 0:00"
                        ),
                        Some(ply),
                    );
                }
                let now = t.elapsed_ms.unwrap_or(0);
                let total = match t.total_ms {
                    Some(tot) => tot,
                    None => totals.get(mover).saturating_add(now),
                };
                *totals.get_mut(mover) = total;
                entry.push((Cow::Borrowed("time"), time_value(now, total)));
            }
            if !node.comments.is_empty() {
                entry.push((Cow::Borrowed("comments"), strings_value(&node.comments)));
            }
            if let Some(b) = &node.bookmark {
                push_bookmark(&mut entry, b);
                self.lossy(
                    format!("JKF has no bookmarks; the bookmark at ply {ply} was written as a `&` comment"),
                    Some(ply),
                );
            }
            if !forks.is_empty() {
                entry.push((Cow::Borrowed("forks"), J::Array(forks)));
            }
            out.push(J::Object(entry));
        }
    }

    fn move_value(
        &mut self,
        node: &MoveNode,
        text: &MoveText,
        board: &mut Board,
        prev_to: Option<Square>,
    ) -> Option<(J<'static>, Square)> {
        let mv = board.move_of(node)?;
        let color = text.color.unwrap_or(board.turn());
        let to = mv.to();
        let square = |sq: Square| object([("x", num(sq.file())), ("y", num(sq.rank()))]);
        let mut m: Vec<(Cow<'static, str>, J<'static>)> = Vec::with_capacity(8);
        m.push((Cow::Borrowed("color"), num(color.index() as u64)));
        if let Some(from) = mv.from() {
            m.push((Cow::Borrowed("from"), square(from)));
        }
        m.push((Cow::Borrowed("to"), square(to)));
        // What the position says before the move is applied.
        let relative = relative_for(board, mv, color);
        let could_promote = match mv {
            Move::Normal { from, to, .. } => board.piece_at(from).is_some_and(|p| {
                p.kind.can_promote() && (from.in_zone(color) || to.in_zone(color))
            }),
            Move::Drop { .. } => false,
        };
        let applied = board.apply(mv, Some(color))?;
        // The piece the record names (a foul names one that is not there), else the board's.
        let piece = replay::named_before(text, mv).unwrap_or(applied.before);
        m.push((Cow::Borrowed("piece"), jstr(piece.csa())));
        if prev_to == Some(to) {
            m.push((Cow::Borrowed("same"), J::Bool(true)));
        }
        // A promotion the position does not allow (a foul) is written as it was made.
        if could_promote || mv.is_promotion() {
            m.push((Cow::Borrowed("promote"), J::Bool(mv.is_promotion())));
        }
        if let Some(c) = applied.captured {
            m.push((Cow::Borrowed("capture"), jstr(c.csa())));
        }
        if !relative.is_empty() {
            m.push((Cow::Borrowed("relative"), J::String(Cow::Owned(relative))));
        }
        Some((J::Object(m), to))
    }

    fn special_name(&mut self, s: &Special, turn: Color, ply: u32) -> Option<String> {
        // JKF names endings as CSA does, fouls included (`Special::csa_kind`).
        let kind = s.csa_kind(turn);
        let name = match kind {
            SpecialKind::MaxMoves => {
                self.lossy(
                    format!("JKF has no max-moves ending; wrote JISHOGI at ply {ply}"),
                    Some(ply),
                );
                "JISHOGI"
            }
            SpecialKind::Sealed => {
                self.lossy(
                    format!("JKF has no sealed move; wrote CHUDAN at ply {ply}"),
                    Some(ply),
                );
                "CHUDAN"
            }
            SpecialKind::Unknown => {
                let t = s.text.trim_start_matches('%');
                // Not a word JKF readers know: it would read back as that ending.
                if !t.is_empty()
                    && t.bytes().all(|c| {
                        c.is_ascii_uppercase()
                            || c.is_ascii_digit()
                            || matches!(c, b'_' | b'+' | b'-')
                    })
                    && SpecialKind::from_csa(t).is_none()
                {
                    return Some(t.to_owned());
                }
                self.lossy(
                    format!("JKF has no special for `{}`; dropped at ply {ply}", s.text),
                    Some(ply),
                );
                return None;
            }
            // Every other kind has its CSA word, but a win or a loss by default.
            _ => match kind.csa_name() {
                Some(name) => name,
                None => {
                    self.lossy(
                        format!("JKF has no special for `{}`; dropped at ply {ply}", s.text),
                        Some(ply),
                    );
                    return None;
                }
            },
        };
        Some(name.to_owned())
    }
}

/// The KI2 relative suffix of a move in JKF letters (`L`, `RU`, `C`, `H`, ...), empty when the
/// destination and piece alone say which move it is.
fn relative_for(board: &Board, mv: Move, color: Color) -> String {
    match mv {
        Move::Drop { kind, to } => {
            if board.movers_to(to, color, kind).is_empty() {
                String::new()
            } else {
                "H".into()
            }
        }
        Move::Normal { from, to, .. } => {
            let Some(piece) = board.piece_at(from) else {
                return String::new();
            };
            let kind = piece.kind;
            let others: Vec<Square> = board
                .movers_to(to, color, kind)
                .into_iter()
                .filter(|&s| s != from)
                .collect();
            if others.is_empty() {
                return String::new();
            }
            let fwd = |sq: Square| -> i8 {
                let d = to.rank() as i8 - sq.rank() as i8;
                if color == Color::Black { -d } else { d }
            };
            // > 0: towards the mover's right.
            let right = |sq: Square| -> i8 {
                let d = to.file() as i8 - sq.file() as i8;
                if color == Color::Black { -d } else { d }
            };
            let vclass = |sq: Square| fwd(sq).signum();
            let ranging = matches!(kind, PieceKind::Dragon | PieceKind::Horse);
            let hclass = |sq: Square| -> Option<char> {
                if ranging {
                    // The one of the two on the mover's right / left.
                    let other = others.first().copied()?;
                    let mine = if color == Color::Black {
                        -(sq.file() as i8)
                    } else {
                        sq.file() as i8
                    };
                    let theirs = if color == Color::Black {
                        -(other.file() as i8)
                    } else {
                        other.file() as i8
                    };
                    return Some(if mine > theirs { 'R' } else { 'L' });
                }
                match right(sq).signum() {
                    1 => Some('L'),
                    -1 => Some('R'),
                    _ if fwd(sq) > 0 => Some('C'),
                    _ => None,
                }
            };
            let mut out = String::new();
            let mine_h = hclass(from);
            if others.iter().any(|&o| vclass(o) == vclass(from)) {
                if let Some(h) = mine_h {
                    out.push(h);
                    if h == 'C' {
                        return out;
                    }
                }
            }
            let shares_h = !ranging && others.iter().any(|&o| hclass(o) == mine_h);
            if out.is_empty() || shares_h {
                out.push(match vclass(from) {
                    1 => 'U',
                    0 => 'M',
                    _ => 'D',
                });
            }
            out
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The reader's JSON value writes back as the same JSON as serde_json's `Value` read from
    /// the same text (what a move's raw text and messages quote), and finds the same values by
    /// key: escapes, numbers of every kind, nesting, repeated keys (the last value, at the
    /// first key's place), objects large enough to be indexed.
    #[test]
    fn the_reader_value_writes_back_as_serde_json_value_does() {
        let mut many = String::from("{");
        for i in 0..40 {
            many.push_str(&format!("\"k{}\":{},", i % 25, i));
        }
        many.push_str("\"k3\":\"last\"}");
        let texts = [
            r#"{"a":1,"b":[true,false,null],"c":{"x":-3,"y":2.5e3}}"#,
            r#"{"s":"\u3042\"\\\n/\/","t":"\ud83d\ude00","u":""}"#,
            r#"{"big":18446744073709551615,"neg":-9223372036854775808,"f":0.1,"e":1E-7,"z":-0.0}"#,
            r#"{"dup":1,"other":2,"dup":{"again":[1,2]}}"#,
            r#"[[],{},[{}],"x",3]"#,
            &many,
        ];
        for t in texts {
            let j: J<'_> = serde_json::from_str(t).expect("J parses");
            let v: Value = serde_json::from_str(t).expect("Value parses");
            assert_eq!(j.to_string(), v.to_string(), "{t}");
            assert_eq!(
                serde_json::to_string(&j).ok(),
                serde_json::to_string(&v).ok()
            );
            if let Some(obj) = v.as_object() {
                for (k, want) in obj {
                    assert_eq!(
                        j.get(k).map(|x| x.to_string()),
                        Some(want.to_string()),
                        "{k}"
                    );
                }
                assert_eq!(j.as_object().map(<[_]>::len), Some(obj.len()));
            }
        }
    }
}
