//! Format detection: a record's format from its file extension and strong signals in its
//! first lines.

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

/// The format the content looks like, from strong signals only: the first signal of CSA or
/// USI met, else KIF or KI2 moves, else KIF header lines (never sure alone).
fn sniff(text: &str) -> Option<Sniffed> {
    let t = text.trim_start_matches('\u{FEFF}').trim_start();
    if t.starts_with('{') {
        return t.contains("\"moves\"").then_some(Sniffed {
            format: Format::Jkf,
            sure: true,
        });
    }
    let mut first: Option<Format> = None;
    let mut csa = false;
    let mut usi = false;
    let mut kif = false;
    let mut ki2 = false;
    let mut kif_header = false;
    let mut lines = crate::formats::lines::numbered(t)
        .take(SNIFF_LINES)
        .peekable();
    while let Some((_, line)) = lines.next() {
        if is_csa_signal(line)
            || lines
                .peek()
                .is_some_and(|&(_, next)| crate::formats::csa::is_one_line_pair(line, next))
        {
            csa = true;
            first.get_or_insert(Format::Csa);
        } else if is_usi_signal(line) {
            usi = true;
            first.get_or_insert(Format::Usi);
        } else if line.starts_with("手数----") || is_kif_move_line(line) {
            kif = true;
        } else if is_ki2_move_line(line) {
            ki2 = true;
        } else if is_kif_header_line(line) {
            kif_header = true;
        }
    }
    let kakinoki = kif || ki2;
    let families = usize::from(csa) + usize::from(usi) + usize::from(kakinoki);
    let format = match first {
        Some(f) => f,
        None if kif => Format::Kifu,
        None if ki2 => Format::Ki2u,
        None if kif_header => Format::Kifu,
        None => return None,
    };
    Some(Sniffed {
        format,
        sure: families == 1,
    })
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
