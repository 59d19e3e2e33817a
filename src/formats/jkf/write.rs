//! The JKF writer: a [`Record`] as compact JSON, as the reference converters write it.

use std::borrow::Cow;

use serde_json::{Number, Value};

use super::value::J;
use super::{MAX_JSON_DEPTH, MAX_VARIATION_DEPTH};
use crate::core::{ByColor, Color, Hand, Move, PieceKind, Setup, Square};
use crate::diag::{Code, Diagnostic};
use crate::formats::board::{LenientBoard, named_before};
use crate::formats::{WriteOptions, Written, csa};
use crate::record::resolve::relative_among;
use crate::record::{
    Horizontal, MoveNode, MoveText, NodeKind, Record, Special, SpecialKind, StartPosition,
    Vertical, keys,
};

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
    let board = LenientBoard::new(&record.start);
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
        if ms.is_multiple_of(1000) {
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
        mut board: LenientBoard,
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
            let before = node.analysis.is_some().then(|| board.clone());
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
            let comments = crate::formats::analysis::node_comments(
                node,
                crate::formats::analysis::Family::Jkf,
                before.as_ref(),
                &board,
                ply,
                &mut self.warnings,
            );
            match comments {
                Cow::Borrowed(list) if !list.is_empty() => {
                    entry.push((Cow::Borrowed("comments"), strings_value(list)));
                }
                Cow::Owned(list) if !list.is_empty() => {
                    let owned = list.into_iter().map(|c| J::String(Cow::Owned(c))).collect();
                    entry.push((Cow::Borrowed("comments"), J::Array(owned)));
                }
                _ => {}
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
        board: &mut LenientBoard,
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
        let piece = named_before(text, mv).unwrap_or(applied.before);
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
        // JKF names endings as CSA does, fouls included (`csa::written_kind`).
        let kind = csa::written_kind(s, turn);
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
                    && csa::special_kind(t).is_none()
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
            _ => match csa::special_word(kind) {
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

/// The KI2 relative suffix of a move (see [`relative_among`]) in JKF letters (`L`, `RU`, `C`,
/// `H`, ...), empty when the destination and piece alone say which move it is.
fn relative_for(board: &LenientBoard, mv: Move, color: Color) -> String {
    let Some(kind) = board.moving_kind(mv) else {
        return String::new();
    };
    let rel = relative_among(&board.movers_to(mv.to(), color, kind), mv, color, kind);
    let mut out = String::new();
    out.extend(rel.horizontal.map(|h| match h {
        Horizontal::Left => 'L',
        Horizontal::Straight => 'C',
        Horizontal::Right => 'R',
    }));
    out.extend(rel.vertical.map(|v| match v {
        Vertical::Up => 'U',
        Vertical::Sideways => 'M',
        Vertical::Down => 'D',
    }));
    if rel.drop {
        out.push('H');
    }
    out
}
