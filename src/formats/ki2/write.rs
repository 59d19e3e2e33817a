//! Writing KI2.
//!
//! Formats layer: uses `core` and `record`, nothing above.

use crate::core::{Color, Move, Square};
use crate::diag::{Code, Diagnostic};
use crate::formats::board::{self, LenientBoard};
use crate::formats::kakinoki;
use crate::formats::{WriteOptions, Written};
use crate::record::resolve::relative_among;
use crate::record::{Horizontal, MoveNode, NodeKind, Record, Span, Special, SpecialKind, Vertical};

/// Moves per line, as Kifu for Windows writes them.
const PER_LINE: usize = 6;
/// Width of a move cell in half-width columns.
const CELL: usize = 12;

/// Writes a record as KI2 text (UTF-8). Moves must be resolved (see
/// `record::resolve::resolve_record`); a line stops at the first move that is not, or that the
/// rules core refuses to play, with a `lossy` warning. Times are dropped with a `lossy`
/// warning: KI2 holds none.
pub fn write(record: &Record, _opts: &WriteOptions) -> Written {
    let mut w = Writer {
        out: String::with_capacity(64 + record.moves.len() * 12),
        warnings: Vec::new(),
        handicap: kakinoki::is_handicap(record),
        times: false,
    };
    for msg in kakinoki::write_header(&mut w.out, record) {
        w.warnings.push(Diagnostic::new(Code::Lossy, msg));
    }
    w.out.push('\n');
    kakinoki::write_annotations(
        &mut w.out,
        &record.start_comments,
        record.start_bookmark.as_deref(),
    );
    let pos = LenientBoard::new(&record.start);
    match pos.check_start() {
        Ok(()) => {}
        Err(e) => {
            w.warnings.push(Diagnostic::new(
                Code::Lossy,
                format!("moves not written: the start position cannot be set up ({e})"),
            ));
            return Written {
                text: w.out,
                warnings: w.warnings,
            };
        }
    }
    let mut pending = Vec::new();
    let (end, special) = w.line(&record.moves, 1, pos, None, &mut pending);
    // The record's own `まで` line is written when it states the main line's ending (or
    // there is none); otherwise the ending's own wording, since in KI2 the `まで` line is
    // the only place the ending is kept.
    let ending = special.and_then(|n| n.special());
    let footer = record
        .footer
        .as_ref()
        .filter(|f| end.is_none() || (!f.text.contains(['\n', '\r']) && states(&f.text, ending)));
    if let (Some(f), Some(t)) = (&record.footer, &end)
        && footer.is_none()
        && f.text != *t
    {
        w.warnings.push(Diagnostic::new(
            Code::Lossy,
            format!(
                "the footer `{}` does not state the ending; `{t}` was written instead",
                f.text
            ),
        ));
    }
    match (footer, end) {
        (Some(f), _) => {
            w.out.push_str(&f.text);
            w.out.push('\n');
            w.special_annotations(special);
        }
        (None, Some(t)) => {
            w.out.push_str(&t);
            w.out.push('\n');
            w.special_annotations(special);
        }
        (None, None) => {}
    }
    w.variations(pending);
    if w.times {
        w.warnings.push(Diagnostic::new(
            Code::Lossy,
            "KI2 holds no times: the times of the moves were dropped",
        ));
    }
    Written {
        text: w.out,
        warnings: w.warnings,
    }
}

/// Whether `text` is a `まで` line that reads back as the ending `special`: the same kind and,
/// for a foul, the same side (`まで2手で先手の反則負け` is not the same ending as a `反則負け`
/// line with White to move, the side to move's loss).
fn states(text: &str, special: Option<&Special>) -> bool {
    let Some(s) = special else {
        return false;
    };
    if !text.starts_with("まで") {
        return false;
    }
    let footer = kakinoki::parse_footer(text, Span::default());
    footer.kind == Some(s.kind)
        && (!matches!(s.kind, SpecialKind::IllegalMove | SpecialKind::IllegalWin)
            || footer.ending().is_some_and(|e| e.side == s.side))
}

struct Block<'a> {
    ply: u32,
    nodes: &'a [MoveNode],
    pos: LenientBoard,
    prev_to: Option<Square>,
}

struct Writer {
    out: String,
    warnings: Vec<Diagnostic>,
    handicap: bool,
    times: bool,
}

impl Writer {
    /// The walk over the variation tree: the blocks `line` queued, depth-first, a line's blocks
    /// in descending ply (see `kakinoki::queue_blocks`); each block's own variations are queued
    /// as it is written, and a block that ends with a special gets its `まで` line.
    fn variations(&mut self, mut pending: Vec<Block<'_>>) {
        while let Some(b) = pending.pop() {
            self.out.push_str(&format!("\n変化：{}手\n", b.ply));
            if let (Some(t), special) = self.line(b.nodes, b.ply, b.pos, b.prev_to, &mut pending) {
                self.out.push_str(&t);
                self.out.push('\n');
                self.special_annotations(special);
            }
        }
    }

    /// The comments and bookmark of a line's ending special, written after its `まで` line
    /// (where the reader takes them back).
    fn special_annotations(&mut self, special: Option<&MoveNode>) {
        if let Some(node) = special {
            let comments = crate::formats::analysis::node_comments(
                node,
                crate::formats::analysis::Family::Kakinoki,
                None,
                &LenientBoard::from_setup(crate::core::Setup::startpos()),
                0,
                &mut self.warnings,
            );
            kakinoki::write_annotations(&mut self.out, &comments, node.bookmark.as_deref());
        }
    }

    /// Writes a line of moves, queues its variations and returns the `まで` line for its
    /// ending special, if it has one, and the special's node.
    fn line<'a>(
        &mut self,
        nodes: &'a [MoveNode],
        start_ply: u32,
        mut pos: LenientBoard,
        mut prev_to: Option<Square>,
        pending: &mut Vec<Block<'a>>,
    ) -> (Option<String>, Option<&'a MoveNode>) {
        let mut branches: Vec<Block<'a>> = Vec::new();
        let mut on_line = 0;
        let mut footer = None;
        let mut special = None;
        for (i, node) in nodes.iter().enumerate() {
            let ply = start_ply.saturating_add(i as u32);
            for v in &node.variations {
                if !v.is_empty() {
                    branches.push(Block {
                        ply,
                        nodes: v,
                        pos: pos.clone(),
                        prev_to,
                    });
                }
            }
            if node.time.is_some() {
                self.times = true;
            }
            let (text, mv) = match &node.kind {
                NodeKind::Special(sp) => {
                    footer = self.footer(sp, ply, pos.turn());
                    special = Some(node);
                    if i + 1 < nodes.len() {
                        self.warnings.push(
                            Diagnostic::new(
                                Code::Lossy,
                                format!(
                                    "KI2 ends a line at its result: the {} nodes after `{}` were dropped",
                                    nodes.len() - i - 1,
                                    sp.text
                                ),
                            )
                            .ply(ply),
                        );
                    }
                    break;
                }
                NodeKind::Move { text, resolved } => {
                    let Some((mv, on)) = kakinoki::node_move(&pos, text, *resolved) else {
                        self.stop(ply, &text.raw, "the move is not resolved");
                        break;
                    };
                    // KI2 names the piece but not its square: a move naming a piece that is
                    // not on its source (a foul) would read back as another piece's move.
                    if let (Some(named), Some(on)) = (board::named_before(text, mv), on)
                        && mv.from().is_some()
                        && named != on
                    {
                        self.stop(
                            ply,
                            &text.raw,
                            &format!(
                                "it names {} ({}) where {} ({}) stands, and KI2 writes no source square",
                                named.kif_name(),
                                named.csa(),
                                on.kif_name(),
                                on.csa()
                            ),
                        );
                        break;
                    }
                    // A KI2 move's mark is the side to move's.
                    if text.color.is_some_and(|c| c != pos.turn()) {
                        self.stop(ply, &text.raw, "the move is out of turn");
                        break;
                    }
                    (text, mv)
                }
            };
            let Some(token) = token(&pos, mv, prev_to) else {
                self.stop(
                    ply,
                    &text.raw,
                    "no piece of the side to move on the source square",
                );
                break;
            };
            if let Err(ill) = pos.playable(mv) {
                self.stop(ply, &text.raw, ill.as_str());
                break;
            }
            let before = node.analysis.is_some().then(|| pos.clone());
            pos.apply(mv, None);
            prev_to = Some(mv.to());
            if on_line > 0 {
                kakinoki::pad_to(&mut self.out, CELL);
            }
            self.out.push_str(&token);
            on_line += 1;
            let annotated =
                !node.comments.is_empty() || node.bookmark.is_some() || node.analysis.is_some();
            if on_line == PER_LINE || annotated {
                self.out.push('\n');
                on_line = 0;
                let comments = crate::formats::analysis::node_comments(
                    node,
                    crate::formats::analysis::Family::Kakinoki,
                    before.as_ref(),
                    &pos,
                    ply,
                    &mut self.warnings,
                );
                kakinoki::write_annotations(&mut self.out, &comments, node.bookmark.as_deref());
            }
        }
        kakinoki::end_cells(&mut self.out, on_line);
        kakinoki::queue_blocks(pending, branches, |b| b.ply);
        (footer, special)
    }

    fn footer(&mut self, sp: &Special, ply: u32, turn: Color) -> Option<String> {
        if !sp.text.contains(['\n', '\r']) && states(&sp.text, Some(sp)) {
            return Some(sp.text.clone());
        }
        let t = kakinoki::footer_text(sp, ply.saturating_sub(1), turn, self.handicap);
        if let Some(t) = &t
            && !kakinoki::same_ending(sp.kind, kakinoki::parse_footer(t, Span::default()).kind)
        {
            self.warnings.push(
                Diagnostic::new(
                    Code::Lossy,
                    format!(
                        "KI2 has no wording for the ending `{}`; written as {t}",
                        sp.text
                    ),
                )
                .ply(ply),
            );
        }
        if t.is_none() {
            self.warnings.push(
                Diagnostic::new(
                    Code::Lossy,
                    format!(
                        "KI2 has no wording for the ending `{}`; it was dropped",
                        sp.text
                    ),
                )
                .ply(ply),
            );
        }
        t
    }

    fn stop(&mut self, ply: u32, raw: &str, why: &str) {
        self.warnings.push(kakinoki::not_written(ply, raw, why));
    }
}

/// The KI2 token for `mv` in `pos`: `▲７六歩`, `△同　銀`, `△同銀右`, `△同成銀`, `▲５五角打`,
/// `▲２二角成`. After `同` a full-width space stands only before a bare one-character piece
/// (`同　銀`, but `同銀成`, `同銀右`, `同成銀`), as the KI2 of Kifu for Windows has it: its
/// tokens are at least three characters wide after the mark. (KI2 readers take the tokens of
/// a line by their marks, so either form reads back; KIF is another matter, see the KIF
/// writer.)
/// The KI2 token of `mv` played in `pos` (`▲同　銀右`), `prev_to` being where the move before
/// it landed; `None` when the source square holds no piece of the side to move.
pub(crate) fn token(pos: &LenientBoard, mv: Move, prev_to: Option<Square>) -> Option<String> {
    let turn = pos.turn();
    let mut s = String::with_capacity(24);
    s.push(match turn {
        Color::Black => '▲',
        Color::White => '△',
    });
    let to = mv.to();
    let kind = match mv {
        Move::Normal { from, .. } => pos.piece_at(from).filter(|p| p.color == turn)?.kind,
        Move::Drop { kind, .. } => kind,
    };
    let same = prev_to == Some(to);
    if same {
        s.push('同');
    } else {
        kakinoki::push_square(&mut s, to);
    }
    let piece_at = s.len();
    s.push_str(kind.kif_name());
    let rel = relative_among(&pos.movers_to(to, turn, kind), mv, turn, kind);
    match mv {
        Move::Normal { from, promote, .. } => {
            match rel.horizontal {
                Some(Horizontal::Right) => s.push('右'),
                Some(Horizontal::Left) => s.push('左'),
                Some(Horizontal::Straight) => s.push('直'),
                None => {}
            }
            match rel.vertical {
                Some(Vertical::Up) => s.push('上'),
                Some(Vertical::Sideways) => s.push('寄'),
                Some(Vertical::Down) => s.push('引'),
                None => {}
            }
            if promote {
                s.push('成');
            } else if kind.can_promote() && (from.in_zone(turn) || to.in_zone(turn)) {
                s.push_str("不成");
            }
        }
        Move::Drop { .. } => {
            if rel.drop {
                s.push('打');
            }
        }
    }
    if same && s[piece_at..].chars().count() == 1 {
        s.insert(piece_at, '　');
    }
    Some(s)
}
