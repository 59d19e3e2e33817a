//! Writing KIF.
//!
//! Formats layer: uses `core` and `record`, nothing above.

use crate::core::{Color, Move, PieceKind, Square};
use crate::diag::{Code, Diagnostic};
use crate::formats::analysis;
use crate::formats::board::{self, LenientBoard};
use crate::formats::kakinoki;
use crate::formats::{WriteOptions, Written};
use crate::record::{MoveNode, MoveTime, NodeKind, Record, Special};

/// Width of the move column (in half-width cells) before the time, as Kifu for Windows pads it.
const MOVE_WIDTH: usize = 13;

/// Writes a record as KIF text (UTF-8). Moves must be resolved, or fully written in the record
/// (source square or drop, and piece); a line stops at the first move that is neither, with a
/// `lossy` warning.
///
/// The `まで…` footer is the record's own when it has one; a record read from another format
/// gets one made from its ending, while a KIF record without one stays without.
pub fn write(record: &Record, _opts: &WriteOptions) -> Written {
    let mut w = Writer {
        out: String::with_capacity(64 + record.moves.len() * 40),
        warnings: Vec::new(),
        subsecond: false,
        no_elapsed: false,
        // A record read from KIF (its nodes carry written numbers) keeps its own choices
        // where KIF allows two spellings (同 or the square; a footer or none).
        from_kif: record.moves.first().is_some_and(|n| n.number.is_some()),
    };
    let from_kif = w.from_kif;
    for msg in kakinoki::write_header(&mut w.out, record) {
        w.warnings.push(Diagnostic::new(Code::Lossy, msg));
    }
    w.out.push_str("手数----指手---------消費時間--\n");
    kakinoki::write_annotations(
        &mut w.out,
        &record.start_comments,
        record.start_bookmark.as_deref(),
    );
    let start_ply = record.moves.first().and_then(|n| n.number).unwrap_or(1);
    let board = LenientBoard::new(&record.start);
    let mut pending = Vec::new();
    let (plies, end_turn) = w.line(&record.moves, start_ply, board, None, [0, 0], &mut pending);
    if let Some(f) = &record.footer {
        w.out.push_str(&f.text);
        w.out.push('\n');
    } else if !from_kif
        && let Some(special) = ending(&record.moves)
        && let Some(t) =
            kakinoki::footer_text(special, plies, end_turn, kakinoki::is_handicap(record))
    {
        w.out.push_str(&t);
        w.out.push('\n');
    }
    w.variations(pending);
    if w.subsecond {
        w.warnings.push(Diagnostic::new(
            Code::Lossy,
            "KIF holds whole seconds: fractions of a second were dropped",
        ));
    }
    if w.no_elapsed {
        w.warnings.push(Diagnostic::new(
            Code::Lossy,
            "KIF always writes a move's elapsed time: times without one were written as 0:00",
        ));
    }
    Written {
        text: w.out,
        warnings: w.warnings,
    }
}

/// A variation still to be written.
struct Block<'a> {
    ply: u32,
    nodes: &'a [MoveNode],
    board: LenientBoard,
    prev_to: Option<Square>,
    /// Each side's cumulative time before the block (Black, White), in ms.
    totals: [u64; 2],
}

struct Writer {
    out: String,
    warnings: Vec<Diagnostic>,
    subsecond: bool,
    /// A time without its elapsed part was written (KIF always writes one: as 0:00).
    no_elapsed: bool,
    from_kif: bool,
}

impl Writer {
    /// The walk over the variation tree: the blocks `line` queued, depth-first, a line's blocks
    /// in descending ply so the stack algorithm of the reader attaches each to the right line;
    /// each block's own variations are queued as it is written.
    fn variations(&mut self, mut pending: Vec<Block<'_>>) {
        while let Some(b) = pending.pop() {
            self.out.push('\n');
            self.out.push_str(&format!("変化：{}手\n", b.ply));
            self.line(b.nodes, b.ply, b.board, b.prev_to, b.totals, &mut pending);
        }
    }

    /// Writes one line of moves and queues its variations. Returns the number of moves
    /// written and the side to move after them.
    fn line<'a>(
        &mut self,
        nodes: &'a [MoveNode],
        start_ply: u32,
        mut board: LenientBoard,
        mut prev_to: Option<Square>,
        mut totals: [u64; 2],
        pending: &mut Vec<Block<'a>>,
    ) -> (u32, Color) {
        let mut branches: Vec<Block<'a>> = Vec::new();
        let mut written = 0;
        for (i, node) in nodes.iter().enumerate() {
            let ply = start_ply.saturating_add(i as u32);
            for v in &node.variations {
                if !v.is_empty() {
                    branches.push(Block {
                        ply,
                        nodes: v,
                        board: board.clone(),
                        prev_to,
                        totals,
                    });
                }
            }
            let mover = board.turn().index();
            let before = node.analysis.is_some().then(|| board.clone());
            let text = match &node.kind {
                NodeKind::Move { text, resolved } => {
                    let Some((mv, _)) = kakinoki::node_move(&board, text, *resolved) else {
                        self.stop(ply, &text.raw, "the move is not resolved");
                        break;
                    };
                    // The piece the record names (a foul names one that is not there), else
                    // the board's.
                    let kind = board::named_before(text, mv).or(board.moving_kind(mv));
                    let Some(kind) = kind else {
                        self.stop(ply, &text.raw, "no piece on the source square");
                        break;
                    };
                    if let Some(c) = text.color.filter(|&c| c != board.turn()) {
                        // KIF numbers its moves and does not say whose they are.
                        self.warnings.push(
                            Diagnostic::new(
                                Code::Lossy,
                                format!(
                                    "KIF cannot hold a move out of turn: move {ply} ({}) by {} reads back as {}'s",
                                    text.raw,
                                    c.name(),
                                    c.flip().name()
                                ),
                            )
                            .ply(ply)
                            .with_move(text.raw.clone()),
                        );
                    }
                    let same = prev_to == Some(mv.to()) && (text.same || !self.from_kif);
                    let s = move_text(mv, kind, same);
                    board.force(mv);
                    prev_to = Some(mv.to());
                    written += 1;
                    s
                }
                NodeKind::Special(sp) => self.special_text(sp, ply, board.turn()),
            };
            crate::formats::push_num(&mut self.out, u64::from(ply), 4, ' ');
            self.out.push(' ');
            self.out.push_str(&text);
            let marker = !node.variations.is_empty();
            // A record from a format with per-move times only (CSA) gets the cumulative times
            // KIF shows, summed along the line; a KIF record keeps what it wrote.
            let time = node.time.map(|mut t| {
                let running = totals.get(mover).copied().unwrap_or(0);
                if t.total_ms.is_none() && !self.from_kif {
                    t.total_ms = Some(running.saturating_add(t.elapsed_ms.unwrap_or(0)));
                }
                if let (Some(total), Some(slot)) = (t.total_ms, totals.get_mut(mover)) {
                    *slot = total;
                }
                t
            });
            match time {
                Some(t) => {
                    pad(&mut self.out, &text);
                    self.push_time(t);
                    if marker {
                        self.out.push('+');
                    }
                }
                None if marker => {
                    pad(&mut self.out, &text);
                    self.out.push('+');
                }
                None => {}
            }
            self.out.push('\n');
            let comments = analysis::node_comments(
                node,
                analysis::Family::Kakinoki,
                before.as_ref(),
                &board,
                ply,
                &mut self.warnings,
            );
            kakinoki::write_annotations(&mut self.out, &comments, node.bookmark.as_deref());
        }
        kakinoki::queue_blocks(pending, branches, |b| b.ply);
        (written, board.turn())
    }

    fn stop(&mut self, ply: u32, raw: &str, why: &str) {
        self.warnings.push(kakinoki::not_written(ply, raw, why));
    }

    fn special_text(&mut self, sp: &Special, ply: u32, turn: Color) -> String {
        // The ending's own text, when it reads back as this ending (the text written is
        // trimmed: what reads back is compared, not the text as it was).
        let t = sp.text.trim();
        if !sp.text.contains(['\n', '\r'])
            && !t.is_empty()
            && kakinoki::special_body_reads_back(t, sp.kind, sp.side)
        {
            return t.to_string();
        }
        // A foul by the side to move is its loss; by the other side, its win.
        if let crate::record::SpecialKind::IllegalAction(c) = sp.kind {
            return kakinoki::foul_word(c, turn).to_string();
        }
        match kakinoki::kif_special_word(sp.kind) {
            Some(w) if !kakinoki::same_ending(sp.kind, kakinoki::special_kind(w)) => {
                self.warnings.push(
                    Diagnostic::new(
                        Code::Lossy,
                        format!(
                            "KIF has no word for the ending `{}`; written as {w}",
                            sp.text
                        ),
                    )
                    .ply(ply),
                );
                w.to_string()
            }
            Some(w) => match sp.side {
                Some(c) if sp.kind == crate::record::SpecialKind::IllegalMove => {
                    format!("{} {w}", kakinoki::side_name(c, false))
                }
                _ => w.to_string(),
            },
            None => {
                self.warnings.push(
                    Diagnostic::new(
                        Code::Lossy,
                        format!(
                            "KIF has no word for the ending `{}`; written as 中断",
                            sp.text
                        ),
                    )
                    .ply(ply),
                );
                "中断".to_string()
            }
        }
    }

    fn push_time(&mut self, t: MoveTime) {
        let now = t.elapsed_ms.unwrap_or(0);
        let total = t.total_ms;
        if t.elapsed_ms.is_none() {
            self.no_elapsed = true;
        }
        if !now.is_multiple_of(1000) || total.is_some_and(|x| x % 1000 != 0) {
            self.subsecond = true;
        }
        let s = now / 1000;
        // `( m:ss/hh:mm:ss)`, written digit by digit (`format!` was a quarter of converting
        // to KIF).
        self.out.push('(');
        crate::formats::push_num(&mut self.out, s / 60, 2, ' ');
        self.out.push(':');
        crate::formats::push_num(&mut self.out, s % 60, 2, '0');
        self.out.push('/');
        if let Some(total) = total {
            let s = total / 1000;
            crate::formats::push_num(&mut self.out, s / 3600, 2, '0');
            self.out.push(':');
            crate::formats::push_num(&mut self.out, (s / 60) % 60, 2, '0');
            self.out.push(':');
            crate::formats::push_num(&mut self.out, s % 60, 2, '0');
        }
        self.out.push(')');
    }
}

/// The ending the `まで` line states: the first of the specials that end the main line, the
/// one readers and `validate` take as the result (endings in a row, such as a foul then the
/// other side's foul, name different winners).
fn ending(moves: &[MoveNode]) -> Option<&Special> {
    moves
        .iter()
        .rev()
        .take_while(|n| n.special().is_some())
        .last()
        .and_then(|n| n.special())
}

fn pad(out: &mut String, text: &str) {
    let w = kakinoki::display_width(text);
    let n = MOVE_WIDTH.saturating_sub(w).max(1);
    out.extend(std::iter::repeat_n(' ', n));
}

/// `７六歩(77)`, `同　銀(54)`, `同　成桂(53)`, `５四歩打`, `６八銀成(67)`. `同` is always
/// followed by a full-width space, whatever the piece's name, as Kifu for Windows writes it:
/// readers that take `同` and the piece at fixed places (cshogi, python-shogi) drop a
/// `同成桂(53)` line without a word. A declined promotion is never written `不成`: the
/// source square says the move, Kifu for Windows does not write it, and cshogi's reader drops
/// such a line without a word (tsshogi refuses it); the reader still takes it.
pub(crate) fn move_text(mv: Move, kind: PieceKind, same: bool) -> String {
    let mut s = String::with_capacity(24);
    let name = kind.kif_name();
    if same {
        s.push_str("同　");
    } else {
        kakinoki::push_square(&mut s, mv.to());
    }
    s.push_str(name);
    match mv {
        Move::Normal { from, promote, .. } => {
            if promote {
                s.push('成');
            }
            s.push('(');
            s.push((b'0' + from.file()) as char);
            s.push((b'0' + from.rank()) as char);
            s.push(')');
        }
        Move::Drop { .. } => s.push('打'),
    }
    s
}
