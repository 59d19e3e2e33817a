//! Format detection: a record's format from its file extension and strong signals in its
//! first lines.

use std::borrow::Cow;

use crate::diag::{Code, Diagnostic};
use crate::formats::Format;

/// The format of a file: by its extension when that is a known one and the content does not
/// plainly say otherwise, else by content. `None` when neither tells. "Plainly" means that
/// the first lines hold signals of one family of formats only (CSA, USI, JKF, or KIF and KI2),
/// and not the extension's: a `.kif` holding a USI `position` line reads as USI, a `.csa`
/// holding KIF lines as KIF (see [`mismatch`] for the warning that goes with it).
///
/// ```
/// use kifu::formats::{Format, text::detect_format};
/// assert_eq!(detect_format(Some("csa"), "V2.2\nPI\n+\n"), Some(Format::Csa));
/// assert_eq!(detect_format(Some("kif"), "▲７六歩 △３四歩\n"), Some(Format::Ki2));
/// ```
pub fn detect_format(ext: Option<&str>, text: &str) -> Option<Format> {
    detect(ext.and_then(Format::from_extension), text)
}

/// [`detect_format`] with the extension already read as a format (`hint`).
pub(crate) fn detect(hint: Option<Format>, text: &str) -> Option<Format> {
    // A hint whose family is one format (CSA, USI, JKF, USEN) is the answer unless the content
    // is plainly another family, which is told without looking past the first line of the
    // hint's own family: a CSA file's first move, not all its 400 first lines (a fifth of
    // `kifu.read`'s time on a small CSA file from Python).
    if let Some(h @ (Format::Csa | Format::Usi | Format::Jkf | Format::Usen)) = hint {
        return Some(plainly_other(h, text).unwrap_or(h));
    }
    sniffed_detect(hint, text)
}

/// [`detect`] from every signal of the first lines, whatever the hint.
fn sniffed_detect(hint: Option<Format>, text: &str) -> Option<Format> {
    let by_ext = hint;
    let by_content = sniff(text);
    match (by_ext, by_content) {
        (Some(e), None) => Some(e),
        (None, c) => c.map(|c| c.format),
        (Some(e), Some(c)) => Some(match (e, c.format) {
            // KIF and KI2 content keep the encoding flavour of the extension.
            (Format::Kif | Format::Ki2, Format::Kif | Format::Kifu) => Format::Kif,
            (Format::Kif | Format::Ki2, Format::Ki2 | Format::Ki2u) => Format::Ki2,
            (Format::Kifu | Format::Ki2u, Format::Kif | Format::Kifu) => Format::Kifu,
            (Format::Kifu | Format::Ki2u, Format::Ki2 | Format::Ki2u) => Format::Ki2u,
            (e, c) if e == c => e,
            // Another family: only when the content is sure of it.
            (_, f) if c.sure => f,
            (e, _) => e,
        }),
    }
}

/// The family of a format: KIF and KI2 (both flavours) are one, read by one reader.
fn family(f: Format) -> u8 {
    match f {
        Format::Kif | Format::Kifu | Format::Ki2 | Format::Ki2u => 0,
        Format::Csa => 1,
        Format::Usi => 2,
        Format::Jkf => 3,
        Format::Usen => 4,
    }
}

/// The name of a format's family as the warning gives it.
fn family_name(f: Format) -> &'static str {
    match f {
        Format::Kif | Format::Kifu => "KIF",
        Format::Ki2 | Format::Ki2u => "KI2",
        Format::Csa => "CSA",
        Format::Usi => "USI",
        Format::Jkf => "JKF",
        Format::Usen => "USEN",
    }
}

/// The `format-mismatch` warning for a file whose extension names `named` but which was read
/// as `read` (its content plainly being that): `None` when both are of one family (a `.kif`
/// holding KI2 moves is read by the same reader, without a word).
///
/// ```
/// use kifu::formats::{Format, text::mismatch};
/// let d = mismatch(Format::Kif, Format::Usi).unwrap();
/// assert_eq!(d.code.as_str(), "format-mismatch");
/// assert!(mismatch(Format::Kif, Format::Ki2).is_none());
/// ```
pub fn mismatch(named: Format, read: Format) -> Option<Diagnostic> {
    if family(named) == family(read) {
        return None;
    }
    Some(Diagnostic::new(
        Code::FormatMismatch,
        format!(
            "the file name says {} but the content is plainly {}; read as {}",
            family_name(named),
            family_name(read),
            family_name(read)
        ),
    ))
}

/// How many lines content sniffing looks at.
const SNIFF_LINES: usize = 400;

/// What the content looks like.
#[derive(Clone, Copy)]
struct Sniffed {
    format: Format,
    /// The first lines hold strong signals of this format's family and of no other.
    sure: bool,
}

/// A strong signal of a line.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Signal {
    Usen,
    Csa,
    Usi,
    KifMove,
    Ki2Move,
    /// A KIF header line: never sure alone.
    KifHeader,
}

impl Signal {
    /// The family of the formats the signal is of ([`family`]).
    fn family(self) -> u8 {
        match self {
            Signal::Usen => family(Format::Usen),
            Signal::Csa => family(Format::Csa),
            Signal::Usi => family(Format::Usi),
            _ => family(Format::Kifu),
        }
    }
}

/// The signal of `line` (`next` is the line after it, for the one-line CSA's pairs).
fn signal(line: &str, next: Option<&str>) -> Option<Signal> {
    if is_usen_signal(line) {
        Some(Signal::Usen)
    } else if is_csa_signal(line) {
        Some(Signal::Csa)
    } else if is_usi_signal(line) {
        Some(Signal::Usi)
    } else if next.is_some_and(|next| crate::formats::csa::is_one_line_pair(line, next)) {
        Some(Signal::Csa)
    } else if line.starts_with("手数----") || is_kif_move_line(line) {
        Some(Signal::KifMove)
    } else if is_ki2_move_line(line) {
        Some(Signal::Ki2Move)
    } else if is_kif_header_line(line) {
        Some(Signal::KifHeader)
    } else {
        None
    }
}

/// The signals of the first [`SNIFF_LINES`] lines of `text` that are not blank, until
/// `stop` says so. A JKF object is told by its start instead: `Err(is JKF)`.
fn signals(text: &str, stop: impl FnMut(Signal) -> bool) -> Result<(), bool> {
    let t = text.trim_start_matches('\u{FEFF}').trim_start();
    if t.starts_with('{') {
        return Err(t.contains("\"moves\""));
    }
    line_signals(crate::formats::lines::lazy(t).map(Cow::Borrowed), stop);
    Ok(())
}

/// [`signals`] of the text `bytes` read as with each byte that is not ASCII as U+0080 (what
/// the signals of a Shift_JIS start need: ASCII stays, the rest stays not ASCII), each line
/// made so only when it is looked at (most starts stop at their first lines).
fn ascii_signals(bytes: &[u8], stop: impl FnMut(Signal) -> bool) -> Result<(), bool> {
    // `str::trim_start`'s whitespace among the bytes that stay themselves (U+0080 is none).
    let start = bytes
        .iter()
        .position(|&b| !(b.is_ascii() && char::from(b).is_whitespace()))
        .unwrap_or(bytes.len());
    let t = bytes.get(start..).unwrap_or_default();
    if t.first() == Some(&b'{') {
        // The pattern is ASCII: found in the bytes where it is found in their view.
        return Err(memchr::memmem::find(t, b"\"moves\"").is_some());
    }
    let mut rest = Some(t);
    let lines = std::iter::from_fn(move || {
        let r = rest?;
        match memchr::memchr2(b'\n', b'\r', r) {
            Some(i) => {
                rest = r.get(i + 1..);
                r.get(..i)
            }
            None => {
                rest = None;
                Some(r)
            }
        }
    });
    line_signals(lines.map(ascii_view), stop);
    Ok(())
}

/// A line's bytes with each byte that is not ASCII as U+0080.
fn ascii_view(line: &[u8]) -> Cow<'_, str> {
    if line.is_ascii() {
        return Cow::Borrowed(std::str::from_utf8(line).unwrap_or_default());
    }
    let mut s = String::with_capacity(line.len() * 2);
    for &b in line {
        s.push(if b.is_ascii() {
            char::from(b)
        } else {
            '\u{80}'
        });
    }
    Cow::Owned(s)
}

/// The signals of the first [`SNIFF_LINES`] of `lines` that are not blank, until `stop` says
/// so. Lazily (the batch engine asks this of every file's start, and most stop at once); blank
/// lines carry no signal, and a one-line CSA pair is told across them.
fn line_signals<'a>(
    lines: impl Iterator<Item = Cow<'a, str>>,
    mut stop: impl FnMut(Signal) -> bool,
) {
    let mut lines = lines
        .filter(|l| !l.trim().is_empty())
        .take(SNIFF_LINES)
        .peekable();
    while let Some(line) = lines.next() {
        let next = lines.peek().map(|n| &**n);
        if let Some(s) = signal(&line, next)
            && stop(s)
        {
            break;
        }
    }
}

/// What the signals seen say: the first of USEN, CSA or USI, else KIF moves, else KI2 moves, else
/// KIF header lines; sure when they are of one family only (header lines alone are not).
#[derive(Default)]
struct Seen {
    first: Option<Format>,
    usen: bool,
    csa: bool,
    usi: bool,
    kif: bool,
    ki2: bool,
    kif_header: bool,
}

impl Seen {
    fn add(&mut self, s: Signal) {
        match s {
            Signal::Usen => {
                self.usen = true;
                self.first.get_or_insert(Format::Usen);
            }
            Signal::Csa => {
                self.csa = true;
                self.first.get_or_insert(Format::Csa);
            }
            Signal::Usi => {
                self.usi = true;
                self.first.get_or_insert(Format::Usi);
            }
            Signal::KifMove => self.kif = true,
            Signal::Ki2Move => self.ki2 = true,
            Signal::KifHeader => self.kif_header = true,
        }
    }

    fn sniffed(&self) -> Option<Sniffed> {
        let kakinoki = self.kif || self.ki2;
        let families = usize::from(self.usen)
            + usize::from(self.csa)
            + usize::from(self.usi)
            + usize::from(kakinoki);
        let format = match self.first {
            Some(f) => f,
            None if self.kif => Format::Kifu,
            None if self.ki2 => Format::Ki2u,
            None if self.kif_header => Format::Kifu,
            None => return None,
        };
        Some(Sniffed {
            format,
            sure: families == 1,
        })
    }
}

/// The format the content looks like, from strong signals only.
fn sniff(text: &str) -> Option<Sniffed> {
    let mut seen = Seen::default();
    match signals(text, |s| {
        seen.add(s);
        false
    }) {
        Err(jkf) => jkf.then_some(Sniffed {
            format: Format::Jkf,
            sure: true,
        }),
        Ok(()) => seen.sniffed(),
    }
}

/// The format the content plainly is when it is not of `named`'s family: what
/// detecting the format of `text` named `named` gives when that is another family, else `None`. Stops at the
/// first signal of `named`'s family (the batch engine asks it of every file's start, so a
/// `.kif` file is looked at only down to its first move line).
pub fn plainly_other(named: Format, text: &str) -> Option<Format> {
    plainly_other_by(named, |stop| signals(text, stop))
}

/// [`plainly_other`] of the text `bytes` read as with each byte that is not ASCII as U+0080
/// (a start that is not UTF-8, such as Shift_JIS: its signals are in its ASCII), without
/// making that text: only the lines looked at are, one at a time.
pub fn plainly_other_ascii(named: Format, bytes: &[u8]) -> Option<Format> {
    plainly_other_by(named, |stop| ascii_signals(bytes, stop))
}

/// Whether the first lines of `text` that [`detect`] looks at hold a KIF move line (or the
/// `手数----` heading): then [`detect`]`(Some(Format::Kif), t)` is [`Format::Kif`] for any
/// text `t` that starts with `text` and goes on after a line end, whatever the rest says.
/// The last line's signal is found as if no line followed it; the line after only matters
/// to a one-line CSA header (six fields or more), so the caller ends `text` with a line that
/// is not one.
pub(crate) fn kif_move_within(text: &str) -> bool {
    let mut found = false;
    let _ = signals(text, |s| {
        found = s == Signal::KifMove;
        found
    });
    found
}

/// [`plainly_other`] over the signals `run` gives to the function it is handed.
fn plainly_other_by(
    named: Format,
    run: impl FnOnce(&mut dyn FnMut(Signal) -> bool) -> Result<(), bool>,
) -> Option<Format> {
    let mut seen = Seen::default();
    let mine = family(named);
    let mut own = false;
    let told = run(&mut |s| {
        own = s.family() == mine && s != Signal::KifHeader;
        seen.add(s);
        own
    });
    let c = match told {
        Err(true) => Format::Jkf,
        Err(false) => return None,
        Ok(()) if own => return None,
        Ok(()) => seen.sniffed().filter(|c| c.sure)?.format,
    };
    (family(c) != mine).then_some(c)
}

/// A USEN line: `[position]~ply.moves.ending[~...]`, the position of SFEN letters, digits,
/// `_`, `.`, `-` and `z`, then a `~` section of a ply number, base-36 moves and an ending
/// letter.
fn is_usen_signal(line: &str) -> bool {
    let line = line.trim_end();
    let Some((position, rest)) = line.split_once('~') else {
        return false;
    };
    if !position
        .bytes()
        .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'.' | b'-'))
    {
        return false;
    }
    let section = rest.split('~').next().unwrap_or("");
    let mut parts = section.split('.');
    let (Some(n), Some(moves), Some(end), None) =
        (parts.next(), parts.next(), parts.next(), parts.next())
    else {
        return false;
    };
    n.bytes().all(|b| b.is_ascii_digit())
        && !n.is_empty()
        && moves.len() % 3 == 0
        && moves
            .bytes()
            .all(|b| b.is_ascii_digit() || b.is_ascii_lowercase())
        && end.len() <= 1
        && end.bytes().all(|b| b.is_ascii_lowercase())
}

/// `key：value` with a non-ASCII key (the KIF header shape).
fn is_kif_header_line(line: &str) -> bool {
    match line.split_once('：') {
        Some((key, _)) => !key.is_empty() && !key.starts_with(|c: char| c.is_ascii()),
        None => false,
    }
}

fn is_csa_signal(line: &str) -> bool {
    let b = line.as_bytes();
    if matches!(line, "V1" | "V2" | "V2.1" | "V2.2" | "V3.0") || line.starts_with("'CSA encoding") {
        return true;
    }
    if line.starts_with("PI") || (b.len() >= 3 && b[0] == b'P' && (b'1'..=b'9').contains(&b[1])) {
        return b.len() == 2 || line.starts_with("PI") || matches!(b[2], b' ' | b'+' | b'-');
    }
    if line.starts_with("N+") || line.starts_with("N-") || line.starts_with("$EVENT:") {
        return true;
    }
    // A move: sign, four digits, two capitals.
    b.len() >= 7
        && matches!(b[0], b'+' | b'-')
        && b[1..5].iter().all(u8::is_ascii_digit)
        && b[5..7].iter().all(u8::is_ascii_uppercase)
}

fn is_usi_signal(line: &str) -> bool {
    let l = line.trim_start();
    if l.starts_with("position ")
        || l == "startpos"
        || l.starts_with("startpos ")
        || l.starts_with("sfen ")
    {
        return true;
    }
    // A bare SFEN: nine ranks, then the side.
    let mut f = l.split_ascii_whitespace();
    matches!(
        (f.next(), f.next()),
        (Some(board), Some("b" | "w")) if board.bytes().filter(|&b| b == b'/').count() == 8
    )
}

/// ` *[0-9]+ +` followed by a non-space: a KIF move line.
fn is_kif_move_line(line: &str) -> bool {
    let l = line.trim_start_matches(' ');
    let digits = l.bytes().take_while(u8::is_ascii_digit).count();
    if digits == 0 {
        return false;
    }
    let rest = &l[digits..];
    let after = rest.trim_start_matches([' ', '　']);
    after.len() < rest.len() && !after.is_empty() && !after.starts_with(|c: char| c.is_ascii())
}

/// A line starting with ▲/△ (or ☗☖▼▽) followed by a full-width digit or 同.
fn is_ki2_move_line(line: &str) -> bool {
    let l = line.trim_start_matches([' ', '　']);
    let mut it = l.chars();
    matches!(it.next(), Some('▲' | '△' | '☗' | '☖' | '▼' | '▽'))
        && matches!(it.next(), Some('１'..='９' | '同'))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `plainly_other` (which stops early) says what `detect` says whenever the two formats
    /// are of different families.
    #[test]
    fn plainly_other_agrees_with_detect() {
        let texts = [
            "position startpos moves 7g7f\n",
            "startpos\n",
            "V2.2\nPI\n+\n+7776FU\n",
            "先手：甲\n手数----指手--\n   1 ７六歩(77)\n",
            "先手：甲\n",
            "▲７六歩 △３四歩\n",
            "{\"header\":{},\"moves\":[]}",
            "{\"a\":1}",
            "手数----指手--\n   1 ７六歩(77)\n+7776FU\n",
            "1 2003/09/08 a b 1 1 e o\n7776FU\n",
            "hello\n",
            "",
        ];
        for named in Format::ALL {
            for t in texts {
                let by_detect =
                    sniffed_detect(Some(named), t).filter(|&c| family(c) != family(named));
                assert_eq!(plainly_other(named, t), by_detect, "{named:?} {t:?}");
            }
        }
    }

    /// `detect`'s short answer for a hint of a one-format family is the answer of every
    /// signal: on starts of each family, mixed ones, and ones that are sure of no family.
    #[test]
    fn detect_by_the_first_signal_agrees_with_every_signal() {
        let texts = [
            "position startpos moves 7g7f\n",
            "startpos\n",
            "V2.2\nPI\n+\n+7776FU\n",
            "'CSA encoding=UTF-8\nV3.0\nN+a\n+\n+7776FU\nT1\n-3334FU\n%TORYO\n",
            "position startpos\nV2.2\n+7776FU\n",
            "V2.2\n+7776FU\nposition startpos moves 7g7f\n",
            "先手：甲\n手数----指手--\n   1 ７六歩(77)\n",
            "先手：甲\n",
            "先手：甲\n+7776FU\n",
            "▲７六歩 △３四歩\n",
            "{\"header\":{},\"moves\":[]}",
            "  {\"moves\":[{}]}",
            "{\"a\":1}",
            "手数----指手--\n   1 ７六歩(77)\n+7776FU\n",
            "1 2003/09/08 a b 1 1 e o\n7776FU\n",
            "lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1\n",
            "~0.7ku2jm6y236e5t24be9qc.r\n",
            "hello\n",
            "",
        ];
        for hint in Format::ALL.iter().copied().map(Some).chain([None]) {
            for t in texts {
                assert_eq!(detect(hint, t), sniffed_detect(hint, t), "{hint:?} {t:?}");
            }
        }
    }

    /// `plainly_other_ascii` (which makes each line's view as it looks at it) says what
    /// `plainly_other` says of the whole start made at once, each byte that is not ASCII as
    /// U+0080: on Shift_JIS starts, leading whitespace (the bytes 0x85 and 0xA0 are not), JKF,
    /// CR line ends and one-line CSA pairs.
    #[test]
    fn plainly_other_ascii_agrees_with_the_whole_view() {
        let whole = |b: &[u8]| -> String {
            b.iter()
                .map(|&c| {
                    if c.is_ascii() {
                        char::from(c)
                    } else {
                        '\u{80}'
                    }
                })
                .collect()
        };
        let sjis = |t: &str| encoding_rs::SHIFT_JIS.encode(t).0.into_owned();
        let mut inputs: Vec<Vec<u8>> = [
            "先手：甲\n手数----指手--\n   1 ７六歩(77)\n",
            "   1 ７六歩(77)\n   2 ３四歩(33)\n",
            "先手：甲\r\n後手：乙\r\n▲７六歩 △３四歩\r\n",
            "先手：甲\rposition startpos moves 7g7f\r",
            "先手：甲\n\n\nV2.2\nPI\n+\n+7776FU\n",
            "先手：甲\n1 2003/09/08 a b 1 1 e o\n\n7776FU\n",
            "{\"header\":{\"先手\":\"甲\"},\"moves\":[]}",
            "{\"先手\":1}",
            "先手：甲\n",
            "棋戦：ｱｲｳ\n手数----指手--\n",
            "",
        ]
        .iter()
        .map(|t| sjis(t))
        .collect();
        inputs.push(b" \x0b\t\r\n{\"moves\":[]}".to_vec());
        inputs.push(b"\x85{\"moves\":[]}".to_vec());
        inputs.push(b"\xa0position startpos\n".to_vec());
        inputs.push(b"\xa0\n\x85\nposition startpos\n".to_vec());
        let mut told = 0;
        for named in Format::ALL {
            for b in &inputs {
                let by_whole = plainly_other(named, &whole(b));
                told += usize::from(by_whole.is_some());
                assert_eq!(plainly_other_ascii(named, b), by_whole, "{named:?} {b:?}");
            }
        }
        assert!(told > 0);
    }
}
