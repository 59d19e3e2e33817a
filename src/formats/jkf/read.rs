//! The JKF reader: JSON text into a [`Record`], with a `syntax` diagnostic for what it cannot
//! understand.

use serde::Deserialize;
use serde_json::Value;

use super::scan::{Entry, Step, entry_spans, value_span};
use super::value::{J, Ordered};
use super::{MAX_JSON_DEPTH, MAX_VARIATION_DEPTH};
use crate::core::{Color, Handicap, Piece, PieceKind, Setup, Square};
use crate::diag::{Code, Diagnostic};
use crate::formats::ParsedGame;
use crate::formats::analysis::Family;
use crate::formats::visit::{Builder, GameReader, Visitor, tell_game};
use crate::record::{
    Horizontal, MoveNode, MoveText, MoveTime, NamedPiece, NodeKind, Record, Relative, Source,
    Special, SpecialKind, StartPosition, Vertical,
};

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
    let mut builder = Builder::new(Some(Family::Jkf));
    match super::one_pass::tell(text, &mut builder) {
        Some(game) => vec![game],
        None => general(text),
    }
}

/// The streaming reader of a JKF text (one game): the document is told as it is read where
/// it has the plain shape writers produce; anything else is read whole by the general reader
/// and its record told ([`tell_game`](crate::formats::visit::tell_game)), the visitor told to begin the game again.
pub struct Reader<'t> {
    text: &'t str,
    /// The game was read.
    read: bool,
    /// The general reader's game, when the one pass gave up: kept for the record.
    general: Option<ParsedGame>,
}

impl<'t> Reader<'t> {
    /// The reader of a JKF document (after any BOM).
    pub fn new(text: &'t str) -> Reader<'t> {
        Reader {
            text: text.trim_start_matches('\u{FEFF}'),
            read: false,
            general: None,
        }
    }
}

impl GameReader for Reader<'_> {
    fn read_game<V: Visitor>(&mut self, visitor: &mut V) -> Option<V::Output> {
        if std::mem::replace(&mut self.read, true) {
            return None;
        }
        if let Some(told) = super::one_pass::tell(self.text, visitor) {
            return Some(told);
        }
        let game = self.general.insert(as_written(self.text));
        Some(tell_game(game, visitor))
    }

    fn last_game_record(&mut self) -> Option<ParsedGame> {
        if !self.read {
            return None;
        }
        // What `read` gives: the one pass gave up before, so the general reader's game.
        if let Some(mut game) = self.general.take() {
            crate::formats::analysis::extract(&mut game.record, Family::Jkf);
            return Some(game);
        }
        read(self.text).into_iter().next()
    }
}

/// The general reader (serde_json into a generic JSON value, then a structural scan for the
/// entries' places): any text, with its diagnostics. `text` has no BOM.
pub(super) fn general(text: &str) -> Vec<ParsedGame> {
    let mut game = as_written(text);
    crate::formats::analysis::extract(&mut game.record, Family::Jkf);
    vec![game]
}

/// [`general`] with the comments as written: the engine analysis not taken out of them.
fn as_written(text: &str) -> ParsedGame {
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
                // serde_json counts LFs only: where a CR ends lines too, the place is counted
                // again from the byte offset its line and column stand for.
                if text.contains('\r') {
                    let at = crate::formats::lines::offset_of(text, e.line(), e.column());
                    let (line, column) = crate::formats::lines::line_column(text, at);
                    d.line = Some(line);
                    d.column = Some(column);
                }
            }
            return ParsedGame {
                record,
                diagnostics: vec![d],
            };
        }
    };
    let mut r = ValueReader {
        diags: &mut diags,
        text,
    };
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
        return ParsedGame {
            record,
            diagnostics: diags,
        };
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
    ParsedGame {
        record,
        diagnostics: diags,
    }
}

struct ValueReader<'a> {
    diags: &'a mut Vec<Diagnostic>,
    /// The text read (for the places of the setup's diagnostics, found when one is made).
    text: &'a str,
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

impl ValueReader<'_> {
    fn syntax(&mut self, msg: String) {
        self.diags.push(Diagnostic::new(Code::Syntax, msg));
    }

    /// A `syntax` error about the value at `path` below `initial.data`, at its place.
    fn syntax_in_data(&mut self, msg: String, path: &[Step<'_>]) {
        let mut full = vec![Step::Key("initial"), Step::Key("data")];
        full.extend_from_slice(path);
        let mut d = Diagnostic::new(Code::Syntax, msg);
        if let Some(span) = value_span(self.text, &full) {
            d = d.at(span);
        }
        self.diags.push(d);
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
        // The side to move: 0 or 1 (absent or null: Black, as before any move).
        s.turn = match data.get("color").filter(|c| !c.is_null()) {
            None => Color::Black,
            Some(c) => color_of(Some(c)).unwrap_or_else(|| {
                self.syntax_in_data(
                    format!("JKF: bad side to move `color: {c}` (0 is black, 1 white)"),
                    &[Step::Key("color")],
                );
                Color::Black
            }),
        };
        if let Some(J::Array(files)) = data.get("board") {
            // Nine files of nine squares; what there is of a board of another shape is read.
            if files.len() != 9 {
                self.syntax_in_data(
                    format!("JKF: the board has {} files, not nine", files.len()),
                    &[Step::Key("board")],
                );
            }
            for (x, col) in files.iter().enumerate().take(9) {
                let J::Array(cells) = col else {
                    self.syntax_in_data(
                        format!("JKF: file {} of the board is not an array", x + 1),
                        &[Step::Key("board"), Step::Index(x)],
                    );
                    continue;
                };
                if cells.len() != 9 {
                    self.syntax_in_data(
                        format!(
                            "JKF: file {} of the board has {} squares, not nine",
                            x + 1,
                            cells.len()
                        ),
                        &[Step::Key("board"), Step::Index(x)],
                    );
                }
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

pub(super) fn relative_of(s: &str) -> Relative {
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

pub(super) fn special_of(s: &str) -> Special {
    let kind = crate::formats::csa::special_kind(s).unwrap_or(SpecialKind::Unknown);
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
