//! Format detection: a record's format from its file extension and strong signals in its
//! first lines.

use crate::formats::Format;

/// The format of a file: by its extension when that is a known one and the content does not
/// plainly say otherwise, else by content. `None` when neither tells.
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
        (None, c) => c,
        (Some(e), Some(c)) => Some(match (e, c) {
            // KIF and KI2 content keep the encoding flavour of the extension.
            (Format::Kif | Format::Ki2, Format::Kif | Format::Kifu) => Format::Kif,
            (Format::Kif | Format::Ki2, Format::Ki2 | Format::Ki2u) => Format::Ki2,
            (Format::Kifu | Format::Ki2u, Format::Kif | Format::Kifu) => Format::Kifu,
            (Format::Kifu | Format::Ki2u, Format::Ki2 | Format::Ki2u) => Format::Ki2u,
            (e, c) if e == c => e,
            (_, c) => c,
        }),
    }
}

/// How many lines content sniffing looks at.
const SNIFF_LINES: usize = 400;

/// The format the content looks like, from strong signals only.
fn sniff(text: &str) -> Option<Format> {
    let t = text.trim_start_matches('\u{FEFF}').trim_start();
    if t.starts_with('{') {
        return t.contains("\"moves\"").then_some(Format::Jkf);
    }
    let mut kif = false;
    let mut ki2 = false;
    let mut kif_header = false;
    for (_, line) in crate::formats::lines::numbered(t).take(SNIFF_LINES) {
        if is_usen_signal(line) {
            return Some(Format::Usen);
        }
        if is_csa_signal(line) {
            return Some(Format::Csa);
        }
        if is_usi_signal(line) {
            return Some(Format::Usi);
        }
        if line.starts_with("手数----") || is_kif_move_line(line) {
            kif = true;
        } else if is_ki2_move_line(line) {
            ki2 = true;
        } else if is_kif_header_line(line) {
            kif_header = true;
        }
    }
    if kif {
        Some(Format::Kifu)
    } else if ki2 {
        Some(Format::Ki2u)
    } else if kif_header {
        Some(Format::Kifu)
    } else {
        None
    }
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
