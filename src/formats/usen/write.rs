//! The USEN writer: a record as one line.

use super::read::{drop_code, square_code};
use crate::core::{Handicap, Move};
use crate::diag::{Code, Diagnostic};
use crate::formats::{WriteOptions, Written};
use crate::record::{MoveNode, NodeKind, Record, SpecialKind, StartPosition, keys};

/// Writes a record as one USEN line, variations included. The header, comments, analysis,
/// times, bookmarks, the start's move number and endings USEN has no letter for are reported
/// as `lossy` warnings; a line stops at a move that is not resolved.
pub fn write(record: &Record, _opts: &WriteOptions) -> Written {
    let mut w = Writer {
        out: String::with_capacity(16 + record.moves.len() * 3),
        warnings: Vec::new(),
        dropped: [0; 3],
    };
    match &record.start {
        StartPosition::Preset(Handicap::Even) => {}
        other => {
            let setup = other.to_setup();
            if setup.move_number != 1 {
                w.lossy(
                    format!(
                        "USEN has no place for the start position's move number {}; it was dropped",
                        setup.move_number
                    ),
                    None,
                );
            }
            let sfen = setup.to_sfen();
            // Without the move number (the last field).
            let fields = sfen.rsplit_once(' ').map_or(sfen.as_str(), |(f, _)| f);
            w.out.extend(fields.chars().map(|c| match c {
                '/' => '_',
                ' ' => '.',
                '+' => 'z',
                c => c,
            }));
        }
    }
    let kept = record
        .header
        .entries
        .iter()
        .filter(|e| e.key != keys::HANDICAP)
        .count();
    if kept > 0 {
        w.lossy(
            format!("USEN has no header; {kept} header entries were dropped"),
            None,
        );
    }
    if !record.start_comments.is_empty() || record.start_bookmark.is_some() {
        w.lossy(
            "USEN has no comments; the start comments were dropped".into(),
            None,
        );
    }
    w.line(&record.moves, 0);
    let [comments, times, analysis] = w.dropped;
    for (n, what) in [
        (comments, "comments and bookmarks"),
        (analysis, "engine analyses"),
        (times, "move times"),
    ] {
        if n > 0 {
            w.lossy(format!("USEN has no {what}; {n} were dropped"), None);
        }
    }
    w.out.push('\n');
    Written {
        text: w.out,
        warnings: w.warnings,
    }
}

struct Writer {
    out: String,
    warnings: Vec<Diagnostic>,
    /// Comments (and bookmarks), times and analyses dropped.
    dropped: [usize; 3],
}

impl Writer {
    fn lossy(&mut self, msg: String, ply: Option<u32>) {
        let mut d = Diagnostic::new(Code::Lossy, msg);
        d.ply = ply;
        self.warnings.push(d);
    }

    /// Writes a section for `nodes`, whose first move is ply `after + 1`, then the sections
    /// of its variations, the last ply's first (each branches from the line written just
    /// before it, as the reader follows them).
    fn line(&mut self, nodes: &[MoveNode], after: u32) {
        self.out.push('~');
        self.out.push_str(&after.to_string());
        self.out.push('.');
        let mut ending = "";
        let mut written = 0usize;
        for (i, node) in nodes.iter().enumerate() {
            let ply = after + i as u32 + 1;
            self.dropped[0] += node.comments.len() + usize::from(node.bookmark.is_some());
            self.dropped[1] += usize::from(node.time.is_some());
            self.dropped[2] += usize::from(node.analysis.is_some());
            match &node.kind {
                NodeKind::Move { text, resolved } => {
                    let Some(code) = resolved.and_then(encode) else {
                        self.lossy(
                            format!(
                                "move {ply} `{}` cannot be written in USEN (not resolved); the line was cut there",
                                text.raw
                            ),
                            Some(ply),
                        );
                        break;
                    };
                    self.out.push_str(&code);
                    written += 1;
                }
                NodeKind::Special(s) => {
                    ending = match s.kind {
                        SpecialKind::Resign => "r",
                        SpecialKind::Timeout => "t",
                        SpecialKind::Impasse => "j",
                        SpecialKind::Interrupt => "p",
                        // As tsshogi writes them.
                        SpecialKind::Draw | SpecialKind::MaxMoves => {
                            self.lossy(
                                format!(
                                    "USEN has no letter for `{}`; written as `j` (impasse)",
                                    s.text
                                ),
                                Some(ply),
                            );
                            "j"
                        }
                        _ => {
                            self.lossy(
                                format!(
                                    "USEN has no letter for `{}`; written as `p` (interruption)",
                                    s.text
                                ),
                                Some(ply),
                            );
                            "p"
                        }
                    };
                    if i + 1 < nodes.len() {
                        self.lossy(
                            format!(
                                "USEN ends a line at its ending: the {} nodes after `{}` were dropped",
                                nodes.len() - i - 1,
                                s.text
                            ),
                            Some(ply),
                        );
                    }
                    written += 1;
                    break;
                }
            }
        }
        self.out.push('.');
        self.out.push_str(ending);
        for (i, node) in nodes.iter().enumerate().take(written).rev() {
            // USEN is a tree: a line that begins as another line at the same ply does is
            // joined to it on reading, so two such lines do not come back as two.
            let mut firsts: Vec<String> = first_key(node).into_iter().collect();
            for v in &node.variations {
                let Some(first) = v.first() else { continue };
                if let Some(k) = first_key(first) {
                    if firsts.contains(&k) {
                        let ply = after + i as u32 + 1;
                        self.lossy(
                            format!(
                                "a variation at ply {ply} begins as another line there does; USEN joins the two"
                            ),
                            Some(ply),
                        );
                    } else {
                        firsts.push(k);
                    }
                }
                self.line(v, after + i as u32);
            }
        }
    }
}

/// What a line's first node is, as USEN tells lines apart: its move, or its ending.
fn first_key(node: &MoveNode) -> Option<String> {
    match &node.kind {
        NodeKind::Move { resolved, .. } => resolved.and_then(encode),
        NodeKind::Special(s) => Some(format!("{:?}", s.kind)),
    }
}

/// A move's three base-36 digits (lowercase). `None` for a drop of a kind that cannot be
/// dropped.
fn encode(mv: Move) -> Option<String> {
    let (from, promote) = match mv {
        Move::Normal { from, promote, .. } => (square_code(from), promote),
        Move::Drop { kind, .. } => (drop_code(kind)?, false),
    };
    let mut m = (from * 81 + square_code(mv.to())) * 2 + u32::from(promote);
    let mut digits = [b'0'; 3];
    for d in digits.iter_mut().rev() {
        *d = char::from_digit(m % 36, 36).map_or(b'0', |c| c as u8);
        m /= 36;
    }
    (m == 0).then(|| String::from_utf8_lossy(&digits).into_owned())
}
