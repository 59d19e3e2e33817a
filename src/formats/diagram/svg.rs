//! The SVG drawing of a [`Diagram`]: a 9×9 board with file and rank labels, the pieces as
//! kanji (the top side's turned 180°, promoted pieces in their one-character names and red),
//! each side's hand beside its side of the board, the last move's squares shaded and a
//! diagnostic's squares outlined in red, and a caption line (moves played, the last move, the
//! side to move).
//!
//! Self-contained: no script, no external font or image, nothing fetched. The text uses a
//! list of common CJK fonts and ends with the generic `serif`, so any browser draws it with
//! what it has.

use std::fmt::Write as _;

use super::Diagram;
use crate::core::{Color, Hand, Square};
use crate::formats::kakinoki::side_name;

/// One square's width and height.
const CELL_W: u32 = 44;
const CELL_H: u32 = 48;
/// The board's top-left corner.
const BOARD_X: u32 = 20;
const BOARD_Y: u32 = 76;
/// Room on the right for the rank labels.
const RIGHT: u32 = 36;

/// The fonts asked for, in order: CJK fonts found on Linux, macOS and Windows, then the
/// generic family.
const FONTS: &str = "'Noto Serif CJK JP','Noto Sans CJK JP','Source Han Serif JP',\
'Hiragino Mincho ProN','Yu Mincho','MS Mincho','IPAexMincho','IPAMincho','TakaoMincho',\
'Noto Serif CJK SC','WenQuanYi Zen Hei',serif";

const BOARD_FILL: &str = "#f1cf8e";
const LINE: &str = "#3b2a14";
const LAST_FROM: &str = "#f6e3a8";
const LAST_TO: &str = "#f2b84b";
const MARK_FILL: &str = "#f7a1a1";
const MARK_LINE: &str = "#c40000";
const PROMOTED: &str = "#c40000";

/// The drawing's width and height.
pub(super) const SIZE: (u32, u32) = (BOARD_X * 2 + CELL_W * 9 + RIGHT, BOARD_Y * 2 + CELL_H * 9);

/// The height of a line of the note.
const NOTE_LINE: u32 = 20;

/// The note cut into lines that fit the drawing's width at its size (14 px: about 60 narrow
/// characters, a CJK character counting two), at spaces where it can.
fn wrap(note: &str) -> Vec<String> {
    const WIDTH: usize = 60;
    let width = |c: char| if c.is_ascii() { 1 } else { 2 };
    let mut lines = Vec::new();
    for para in note.lines() {
        let mut line = String::new();
        let mut used = 0;
        for word in para.split(' ') {
            let w: usize = word.chars().map(width).sum();
            if used > 0 && used + 1 + w > WIDTH {
                lines.push(std::mem::take(&mut line));
                used = 0;
            }
            if used > 0 {
                line.push(' ');
                used += 1;
            }
            // A word longer than a line is cut where it reaches the end.
            for c in word.chars() {
                if used + width(c) > WIDTH {
                    lines.push(std::mem::take(&mut line));
                    used = 0;
                }
                line.push(c);
                used += width(c);
            }
        }
        lines.push(line);
    }
    lines
}

/// Where a square is drawn: its column and row from the top left.
fn cell(sq: Square, flip: bool) -> (u32, u32) {
    let (f, r) = (u32::from(sq.file()), u32::from(sq.rank()));
    if flip { (f - 1, 9 - r) } else { (9 - f, r - 1) }
}

/// The SVG text of `d`.
pub(super) fn write(d: &Diagram) -> String {
    let note = d.note.as_deref().map(wrap).unwrap_or_default();
    let (w, h) = (SIZE.0, SIZE.1 + NOTE_LINE * note.len() as u32);
    let mut s = String::with_capacity(16 * 1024);
    let top = if d.flip { Color::Black } else { Color::White };
    let title = match d.last_move_text() {
        Some(m) => format!("{}手目 {m} まで", d.plies()),
        None => format!("{}手目", d.plies()),
    };
    let _ = write!(
        s,
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{w}\" height=\"{h}\" \
         viewBox=\"0 0 {w} {h}\" font-family=\"{FONTS}\">\n\
         <title>{}</title>\n\
         <rect width=\"{w}\" height=\"{h}\" fill=\"#ffffff\"/>\n",
        escape(&title)
    );
    if let Some(n) = &d.note {
        let _ = writeln!(s, "<desc>{}</desc>", escape(n));
    }
    // The board and its shaded squares.
    let (bw, bh) = (CELL_W * 9, CELL_H * 9);
    let _ = writeln!(
        s,
        "<rect x=\"{BOARD_X}\" y=\"{BOARD_Y}\" width=\"{bw}\" height=\"{bh}\" fill=\"{BOARD_FILL}\"/>"
    );
    if let Some(last) = d.last {
        if let Some(from) = last.mv.from() {
            shade(&mut s, from, d.flip, LAST_FROM, "last-from");
        }
        shade(&mut s, last.mv.to(), d.flip, LAST_TO, "last-to");
    }
    for &sq in &d.marks {
        shade(&mut s, sq, d.flip, MARK_FILL, "mark");
    }
    // The grid, the frame thicker, and the four star points.
    for i in 0..=9 {
        let width = if i == 0 || i == 9 { 2.5 } else { 1.0 };
        let x = BOARD_X + CELL_W * i;
        let y = BOARD_Y + CELL_H * i;
        let _ = writeln!(
            s,
            "<line x1=\"{x}\" y1=\"{BOARD_Y}\" x2=\"{x}\" y2=\"{}\" stroke=\"{LINE}\" stroke-width=\"{width}\"/>\n\
             <line x1=\"{BOARD_X}\" y1=\"{y}\" x2=\"{}\" y2=\"{y}\" stroke=\"{LINE}\" stroke-width=\"{width}\"/>",
            BOARD_Y + bh,
            BOARD_X + bw
        );
    }
    for (i, j) in [(3, 3), (6, 3), (3, 6), (6, 6)] {
        let _ = writeln!(
            s,
            "<circle cx=\"{}\" cy=\"{}\" r=\"3\" fill=\"{LINE}\"/>",
            BOARD_X + CELL_W * i,
            BOARD_Y + CELL_H * j
        );
    }
    for &sq in &d.marks {
        let (c, r) = cell(sq, d.flip);
        let _ = writeln!(
            s,
            "<rect class=\"mark\" x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"none\" \
             stroke=\"{MARK_LINE}\" stroke-width=\"3\"/>",
            BOARD_X + CELL_W * c + 2,
            BOARD_Y + CELL_H * r + 2,
            CELL_W - 4,
            CELL_H - 4
        );
    }
    labels(&mut s, d.flip);
    // The pieces.
    for sq in Square::all() {
        let Some(p) = d.setup.piece_at(sq) else {
            continue;
        };
        let (c, r) = cell(sq, d.flip);
        let cx = BOARD_X + CELL_W * c + CELL_W / 2;
        let cy = BOARD_Y + CELL_H * r + CELL_H / 2;
        let fill = if p.kind.is_promoted() {
            PROMOTED
        } else {
            "#000000"
        };
        let turn = if p.color == top {
            format!(" transform=\"rotate(180 {cx} {cy})\"")
        } else {
            String::new()
        };
        let _ = writeln!(
            s,
            "<text x=\"{cx}\" y=\"{cy}\" font-size=\"32\" text-anchor=\"middle\" \
             dominant-baseline=\"central\" fill=\"{fill}\"{turn}>{}</text>",
            p.kind.kif_board_char()
        );
    }
    // The hands: the top side's above the board, the bottom side's below it.
    let bottom = top.flip();
    hand_line(&mut s, d, top, BOARD_Y - 18);
    hand_line(&mut s, d, bottom, BOARD_Y + bh + 34);
    // The caption.
    let mover = side_name(d.setup.turn, d.handicap);
    let _ = writeln!(
        s,
        "<text x=\"{BOARD_X}\" y=\"{}\" font-size=\"18\" fill=\"#333333\">{}　{}番</text>",
        BOARD_Y + bh + 66,
        escape(&title),
        mover
    );
    // The note, under the caption, a line at a time.
    for (i, line) in note.iter().enumerate() {
        let _ = writeln!(
            s,
            "<text class=\"note\" x=\"{BOARD_X}\" y=\"{}\" font-size=\"14\" fill=\"{MARK_LINE}\">{}</text>",
            SIZE.1 + 12 + NOTE_LINE * i as u32,
            escape(line)
        );
    }
    s.push_str("</svg>\n");
    s
}

/// Fills one square.
fn shade(s: &mut String, sq: Square, flip: bool, fill: &str, class: &str) {
    let (c, r) = cell(sq, flip);
    let _ = writeln!(
        s,
        "<rect class=\"{class}\" x=\"{}\" y=\"{}\" width=\"{CELL_W}\" height=\"{CELL_H}\" fill=\"{fill}\"/>",
        BOARD_X + CELL_W * c,
        BOARD_Y + CELL_H * r
    );
}

/// File numbers above the board, rank kanji on its right.
fn labels(s: &mut String, flip: bool) {
    const FILES: [char; 9] = ['１', '２', '３', '４', '５', '６', '７', '８', '９'];
    const RANKS: [char; 9] = ['一', '二', '三', '四', '五', '六', '七', '八', '九'];
    for i in 0..9u32 {
        let file = if flip { i } else { 8 - i };
        let rank = if flip { 8 - i } else { i };
        let _ = writeln!(
            s,
            "<text x=\"{}\" y=\"{}\" font-size=\"14\" text-anchor=\"middle\" fill=\"#333333\">{}</text>\n\
             <text x=\"{}\" y=\"{}\" font-size=\"14\" text-anchor=\"middle\" dominant-baseline=\"central\" fill=\"#333333\">{}</text>",
            BOARD_X + CELL_W * i + CELL_W / 2,
            BOARD_Y - 4,
            FILES[file as usize],
            BOARD_X + CELL_W * 9 + RIGHT / 2,
            BOARD_Y + CELL_H * i + CELL_H / 2,
            RANKS[rank as usize]
        );
    }
}

/// A side's mark, name and hand on one line: `☖後手　持駒：飛　歩三`.
fn hand_line(s: &mut String, d: &Diagram, color: Color, y: u32) {
    let mark = match color {
        Color::Black => '☗',
        Color::White => '☖',
    };
    let _ = writeln!(
        s,
        "<text class=\"hand\" x=\"{BOARD_X}\" y=\"{y}\" font-size=\"20\" fill=\"#000000\">{mark}{}　持駒：{}</text>",
        side_name(color, d.handicap),
        hand_text(d.setup.hands.get(color))
    );
}

/// A hand as KIF names it: `飛　歩三`, or `なし`.
fn hand_text(hand: &Hand) -> String {
    if hand.is_empty() {
        return "なし".to_owned();
    }
    let mut out = String::new();
    for (k, n) in hand.iter() {
        if !out.is_empty() {
            out.push('　');
        }
        out.push(k.kif_board_char());
        if n > 1 {
            crate::formats::kakinoki::push_kanji_number(&mut out, u32::from(n));
        }
    }
    out
}

/// Text for an SVG text node or attribute.
fn escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::super::{Diagram, LastMove};
    use super::*;
    use crate::core::{Move, PieceKind, Position};

    #[test]
    fn the_svg_draws_every_piece_once_and_turns_the_top_sides() {
        let mut pos = Position::startpos();
        for m in ["7g7f", "3c3d", "8h2b+"] {
            pos.play(Move::from_usi(m).expect("usi")).expect("legal");
        }
        let last = LastMove {
            mv: Move::from_usi("8h2b+").expect("usi"),
            kind: PieceKind::Bishop,
        };
        let d = Diagram::new(pos.to_setup()).last_move(last);
        let svg = d.svg();
        // 39 pieces on the board (one captured), 19 of them White's and turned.
        assert_eq!(svg.matches("font-size=\"32\"").count(), 39);
        assert_eq!(svg.matches("rotate(180").count(), 19);
        // The horse in red, the last move's squares shaded, Black's hand holds the bishop.
        assert!(
            svg.contains(&format!("fill=\"{PROMOTED}\">馬</text>")),
            "{svg}"
        );
        assert_eq!(svg.matches("class=\"last-").count(), 2);
        assert!(svg.contains("☗先手　持駒：角"));
        assert!(svg.contains("3手目 ▲２二角成(88) まで"));
        // Flipped, Black's 20 pieces are the turned ones.
        let flipped = d.clone().flipped(true).svg();
        assert_eq!(flipped.matches("rotate(180").count(), 20);
        // Marks are drawn, and nothing outside the file is referenced.
        let marked = d.mark([Square::new(5, 5).expect("square")]).svg();
        assert_eq!(marked.matches("class=\"mark\"").count(), 2);
        for bad in ["<script", "href", "url(", "@import"] {
            assert!(!marked.contains(bad), "{bad}");
        }
    }

    #[test]
    fn hands_are_written_as_kif_names_them() {
        let mut h = Hand::default();
        assert_eq!(hand_text(&h), "なし");
        h.set(PieceKind::Rook, 1);
        h.set(PieceKind::Pawn, 3);
        assert_eq!(hand_text(&h), "飛　歩三");
        assert_eq!(escape("a<b&\"c\""), "a&lt;b&amp;&quot;c&quot;");
    }
}
