//! The USI writer: a record as one `position ...` line.

use std::fmt::Write as _;

use super::read::special_of;
use crate::core::Handicap;
use crate::diag::{Code, Diagnostic};
use crate::formats::board::{LenientBoard, named_before};
use crate::formats::{WriteOptions, Written};
use crate::record::{NodeKind, Record, Special, SpecialKind, StartPosition, keys};

/// Writes a record as one `position ...` line. Comments, times, variations, bookmarks, the
/// header and the ending (unless [`WriteOptions::usi_endings`] asks for its token; then only
/// the specials USI has no token for) are reported as `lossy` warnings.
pub fn write(record: &Record, opts: &WriteOptions) -> Written {
    let mut out = String::with_capacity(32 + record.moves.len() * 6);
    let mut warnings = Vec::new();
    let mut lossy = |msg: String, ply: Option<u32>| {
        let mut d = Diagnostic::new(Code::Lossy, msg);
        d.ply = ply;
        warnings.push(d);
    };
    match &record.start {
        StartPosition::Preset(Handicap::Even) => out.push_str("position startpos"),
        other => {
            let _ = write!(out, "position sfen {}", other.to_setup().to_sfen());
        }
    }
    let kept = record
        .header
        .entries
        .iter()
        .filter(|e| e.key != keys::HANDICAP)
        .count();
    if kept > 0 {
        lossy(
            format!("USI has no header; {kept} header entries were dropped"),
            None,
        );
    }
    if !record.start_comments.is_empty() || record.start_bookmark.is_some() {
        lossy(
            "USI has no comments; the start comments were dropped".into(),
            None,
        );
    }
    let mut board = LenientBoard::new(&record.start);
    let mut first = true;
    let (mut comments, mut times, mut variations) = (0usize, 0usize, 0usize);
    for (i, node) in record.moves.iter().enumerate() {
        let ply = i as u32 + 1;
        comments += node.comments.len()
            + usize::from(node.bookmark.is_some())
            + usize::from(node.analysis.is_some());
        times += usize::from(node.time.is_some());
        variations += node.variations.len();
        let token = match &node.kind {
            NodeKind::Move { text, .. } => {
                let Some(mv) = board.move_of(node) else {
                    lossy(
                        format!(
                            "move {ply} `{}` is not resolved; the line was cut there",
                            text.raw
                        ),
                        Some(ply),
                    );
                    break;
                };
                if let Some(c) = text.color.filter(|&c| c != board.turn()) {
                    // USI moves do not say whose they are.
                    lossy(
                        format!(
                            "USI cannot hold a move out of turn: move {ply} `{}` by {} reads back as {}'s",
                            text.raw,
                            c.name(),
                            c.flip().name()
                        ),
                        Some(ply),
                    );
                }
                if let (Some(named), Some(on)) = (
                    named_before(text, mv),
                    mv.from().and_then(|sq| board.piece_at(sq)),
                ) && named != on.kind
                {
                    // USI moves do not name their piece.
                    lossy(
                        format!(
                            "USI cannot hold a move naming a piece that is not on its source square: move {ply} `{}` names {} ({}) where {} ({}) stands",
                            text.raw,
                            named.kif_name(),
                            named.csa(),
                            on.kind.kif_name(),
                            on.kind.csa()
                        ),
                        Some(ply),
                    );
                }
                if board.apply(mv, text.color).is_none() {
                    lossy(
                        format!(
                            "move {ply} `{}` cannot be replayed; the line was cut there",
                            text.raw
                        ),
                        Some(ply),
                    );
                    break;
                }
                Some(mv.to_usi())
            }
            NodeKind::Special(s) if !opts.usi_endings => {
                lossy(
                    format!(
                        "a USI `position` line holds no ending; `{}` was not written (--usi-endings writes it as a token)",
                        s.text
                    ),
                    Some(ply),
                );
                None
            }
            NodeKind::Special(s) => match special_token(s) {
                Some(t) => {
                    // `draw` reads back as a plain draw.
                    if matches!(s.kind, SpecialKind::Impasse | SpecialKind::MaxMoves) {
                        lossy(
                            format!("USI has no token for `{}`; it was written as `{t}`", s.text),
                            Some(ply),
                        );
                    }
                    Some(t)
                }
                None => {
                    lossy(
                        format!("USI has no token for `{}`; it was dropped", s.text),
                        Some(ply),
                    );
                    break;
                }
            },
        };
        if let Some(token) = token {
            if first {
                out.push_str(" moves");
                first = false;
            }
            out.push(' ');
            out.push_str(&token);
        }
        // An ending token ends the line: the reader takes nothing after it.
        if let NodeKind::Special(s) = &node.kind {
            let after = record.moves.len() - i - 1;
            if after > 0 {
                lossy(
                    format!(
                        "USI ends a line at its ending; the {after} moves or endings after `{}` were dropped",
                        s.text
                    ),
                    Some(ply),
                );
            }
            break;
        }
    }
    if comments > 0 {
        lossy(
            format!("USI has no comments; {comments} were dropped"),
            None,
        );
    }
    if times > 0 {
        lossy(
            format!("USI has no times; the times of {times} moves were dropped"),
            None,
        );
    }
    if variations > 0 {
        lossy(
            format!("USI has no variations; {variations} were dropped"),
            None,
        );
    }
    out.push('\n');
    Written {
        text: out,
        warnings,
    }
}

fn special_token(s: &Special) -> Option<String> {
    Some(
        match s.kind {
            SpecialKind::Resign => "resign",
            SpecialKind::Declaration => "win",
            SpecialKind::Draw | SpecialKind::Impasse | SpecialKind::MaxMoves => "draw",
            SpecialKind::Repetition => "rep_draw",
            SpecialKind::Timeout => "timeout",
            SpecialKind::Interrupt => "break",
            // Only the tokens USI itself reads as an unknown ending (`0000`, `rep_sup`...): an
            // unknown ending spelled like a known one (`resign` in a KIF) would read back as that.
            SpecialKind::Unknown if special_of(&s.text) == Some(SpecialKind::Unknown) => {
                return Some(s.text.clone());
            }
            SpecialKind::IllegalWin if s.text == "rep_win" => "rep_win",
            SpecialKind::IllegalMove if s.text == "rep_lose" => "rep_lose",
            _ => return None,
        }
        .to_owned(),
    )
}
