//! Writer helpers shared by KIF and KI2.
//!
//! Formats layer: uses `core` and `record`, nothing above.

use super::text::*;
use crate::core::{Color, Hand, Handicap, Move, PieceKind, Setup, Square};
use crate::diag::{Code, Diagnostic};
use crate::formats::board::LenientBoard;
use crate::record::{MoveText, Record, Special, SpecialKind, StartPosition};

/// Display width of text in a fixed-pitch Japanese font: 1 for ASCII, 2 for everything else.
pub(crate) fn display_width(s: &str) -> usize {
    s.chars().map(|c| if c.is_ascii() { 1 } else { 2 }).sum()
}

/// Whether the record starts from a handicap preset (players are then 下手/上手).
pub(crate) fn is_handicap(record: &Record) -> bool {
    preset(record).is_some_and(|h| h != Handicap::Even)
}

/// The standard start the record's start is, written as such (`手合割：角落ち`, no diagram):
/// a preset, or a setup that is one (a USI, SFEN or JKF game from a handicap's position), so
/// that a reader that takes `手合割` and not diagrams (cshogi) replays it from the right start.
/// Not for a setup of a later move number, whose diagram carries it (`手数＝N`).
pub(crate) fn preset(record: &Record) -> Option<Handicap> {
    match &record.start {
        StartPosition::Preset(h) => Some(*h),
        StartPosition::Setup(s) if s.move_number <= 1 => Handicap::recognise(s),
        StartPosition::Setup(_) => None,
    }
}

/// The name of a side in footers and diagrams.
pub(crate) fn side_name(color: Color, handicap: bool) -> &'static str {
    match (color, handicap) {
        (Color::Black, false) => "先手",
        (Color::White, false) => "後手",
        (Color::Black, true) => "下手",
        (Color::White, true) => "上手",
    }
}

/// Whether a header line `key：value` reads back as a header with this key: the reader takes a
/// line as a header only when no earlier rule of `Parser::line` claims it, and cuts the key
/// at the first colon.
pub(super) fn header_key_reads_back(key: &str) -> bool {
    const HAND_KEYS: [&str; 8] = [
        "先手の持駒",
        "下手の持駒",
        "後手の持駒",
        "上手の持駒",
        "先手持駒",
        "下手持駒",
        "後手持駒",
        "上手持駒",
    ];
    let Some(first) = key.chars().next() else {
        return false;
    };
    !key.contains(|c: char| is_space(c) || matches!(c, '：' | ':' | '\n' | '\r'))
        && !matches!(first, '#' | '*' | '&' | '|' | '\u{feff}')
        && mark_color(first).is_none()
        && !key.starts_with("まで")
        && key != "変化"
        && !HAND_KEYS.contains(&key)
}

/// A header value and its line end. A value cannot span lines: its line breaks are written as
/// spaces (noted in `lost`).
pub(super) fn push_header_value(out: &mut String, key: &str, value: &str, lost: &mut Vec<String>) {
    if value.contains(['\n', '\r']) {
        lost.push(format!(
            "header `{key}`: its line breaks were written as spaces"
        ));
    }
    for c in value.chars() {
        out.push(if c == '\n' || c == '\r' { ' ' } else { c });
    }
    out.push('\n');
}

/// Writes the header entries in order with the start position: `手合割：…` for a preset (in
/// place of a `手合割` entry, or before the players when there is none; omitted for an even
/// game without one) and a board diagram for a setup (after the entries). Returns what could
/// not be written as it was (for `lossy` warnings): an entry whose key would read back as
/// something else (a move, a comment, a hand...) is left out; line breaks in a value are
/// written as spaces.
pub(crate) fn write_header(out: &mut String, record: &Record) -> Vec<String> {
    let mut lost = Vec::new();
    let preset = preset(record);
    let has_entry = record.header.entries.iter().any(|e| e.key == "手合割");
    let mut handicap_written = has_entry || preset == Some(Handicap::Even) || preset.is_none();
    let write_handicap = |out: &mut String, h: Handicap| {
        out.push_str("手合割：");
        out.push_str(h.kif_name());
        out.push('\n');
    };
    for e in &record.header.entries {
        if e.key == "手合割" {
            match preset {
                // Keep the value as written when it reads back as the same start.
                Some(h)
                    if Handicap::from_kif_name(&e.value).is_some_and(|v| v != h)
                        || (h != Handicap::Even && Handicap::from_kif_name(&e.value).is_none()) =>
                {
                    write_handicap(out, h)
                }
                _ => {
                    out.push_str("手合割：");
                    push_header_value(out, &e.key, &e.value, &mut lost);
                }
            }
            continue;
        }
        if !handicap_written && matches!(e.key.as_str(), "先手" | "後手" | "下手" | "上手")
        {
            if let Some(h) = preset {
                write_handicap(out, h);
            }
            handicap_written = true;
        }
        if !header_key_reads_back(&e.key) {
            lost.push(format!(
                "header `{}` left out: as a header line it would read back as something else",
                e.key
            ));
            continue;
        }
        out.push_str(&e.key);
        out.push('：');
        push_header_value(out, &e.key, &e.value, &mut lost);
    }
    if !handicap_written && let Some(h) = preset {
        write_handicap(out, h);
    }
    if let StartPosition::Setup(setup) = &record.start
        && preset.is_none()
    {
        write_bod(out, setup);
    }
    lost
}

pub(super) fn write_hand(out: &mut String, label: &str, hand: &Hand) {
    out.push_str(label);
    out.push_str("の持駒：");
    if hand.is_empty() {
        out.push_str("なし");
    } else {
        let mut first = true;
        for (k, n) in hand.iter() {
            if !first {
                out.push('　');
            }
            first = false;
            out.push(k.kif_board_char());
            if n > 1 {
                push_kanji_number(out, u32::from(n));
            }
        }
    }
    out.push('\n');
}

/// Writes a board diagram (BOD) for a setup.
pub(crate) fn write_bod(out: &mut String, setup: &Setup) {
    write_bod_with(out, setup, &BodStyle::default());
}

/// How [`write_bod_with`] writes a diagram.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct BodStyle<'a> {
    /// Name the sides 下手/上手 (a handicap game) instead of 先手/後手.
    pub handicap: bool,
    /// Rotated: Black's side at the top, files １ to ９ from the left, marked `盤面回転` as
    /// Kifu for Windows marks a rotated diagram.
    pub flip: bool,
    /// The move that led to the position, as KIF writes it with its mark (`▲７六歩(77)`):
    /// written on the `手数＝N` line, `手数＝N  ▲７六歩(77)  まで`.
    pub last: Option<&'a str>,
    /// Write the side to move (`先手番`) even when it is Black.
    pub turn_always: bool,
}

/// Writes a board diagram (BOD) for a setup, as `style` says.
pub(crate) fn write_bod_with(out: &mut String, setup: &Setup, style: &BodStyle<'_>) {
    let (top, bottom) = if style.flip {
        (Color::Black, Color::White)
    } else {
        (Color::White, Color::Black)
    };
    write_hand(out, side_name(top, style.handicap), setup.hands.get(top));
    if style.flip {
        out.push_str("  １ ２ ３ ４ ５ ６ ７ ８ ９\n");
    } else {
        out.push_str("  ９ ８ ７ ６ ５ ４ ３ ２ １\n");
    }
    out.push_str("+---------------------------+\n");
    for row in 1..=9u8 {
        let rank = if style.flip { 10 - row } else { row };
        out.push('|');
        for col in 1..=9u8 {
            let file = if style.flip { col } else { 10 - col };
            match Square::new(file, rank).and_then(|sq| setup.piece_at(sq)) {
                None => out.push_str(" ・"),
                Some(p) => {
                    out.push(if p.color == Color::White { 'v' } else { ' ' });
                    out.push(p.kind.kif_board_char());
                }
            }
        }
        out.push('|');
        out.push(KANJI_DIGITS[rank as usize]);
        out.push('\n');
    }
    out.push_str("+---------------------------+\n");
    write_hand(
        out,
        side_name(bottom, style.handicap),
        setup.hands.get(bottom),
    );
    // The moves played before the position (the SFEN move number less one), as Kifu for
    // Windows writes an exported position: `手数＝N`, with the last move when known.
    if setup.move_number > 1 || style.last.is_some() {
        out.push_str("手数＝");
        out.push_str(&setup.move_number.saturating_sub(1).to_string());
        if let Some(last) = style.last {
            out.push_str("  ");
            out.push_str(last);
            out.push_str("  まで");
        }
        out.push('\n');
    }
    if setup.turn == Color::White || style.turn_always {
        out.push_str(side_name(setup.turn, style.handicap));
        out.push_str("番\n");
    }
    if style.flip {
        out.push_str("盤面回転\n");
    }
}

/// Writes comment lines (`*…`) and a bookmark (`&…`).
pub(crate) fn write_annotations(out: &mut String, comments: &[String], bookmark: Option<&str>) {
    for c in comments {
        // Every line end (LF, CR LF, a lone CR) in a comment starts another comment line, as
        // the reader splits lines.
        for (_, l) in crate::formats::lines::numbered(c) {
            out.push('*');
            out.push_str(l);
            out.push('\n');
        }
    }
    if let Some(b) = bookmark {
        // A bookmark is one line: a line end in one (only a record built by hand, or read
        // from JKF, has one) is written as a space.
        out.push('&');
        out.push_str(&b.replace("\r\n", " ").replace(['\n', '\r'], " "));
        out.push('\n');
    }
}

/// The `まで…` line for a line of `plies` moves ending with `special` (`None` when the ending
/// has no KIF wording). `turn` is the side to move at the special.
pub(crate) fn footer_text(
    special: &Special,
    plies: u32,
    turn: Color,
    handicap: bool,
) -> Option<String> {
    let name = |c: Color| side_name(c, handicap);
    // A foul is named from the side to move, as the special line names it. Naming the
    // offender when it is not to move says the same, but readers that take the footer for the
    // side to move's ending (tsshogi's KI2 reader) then give the game to the wrong side
    // (tests/peers-js).
    let foul = |offender: Color| format!("{}の{}", name(turn), foul_word(offender, turn));
    let result = match special.kind {
        SpecialKind::Resign => {
            format!("{}の勝ち", name(turn.flip()))
        }
        SpecialKind::Mate => "詰み".to_string(),
        SpecialKind::Timeout => format!("時間切れにより{}の勝ち", name(turn.flip())),
        SpecialKind::IllegalMove => foul(special.side.unwrap_or(turn)),
        SpecialKind::IllegalAction(c) => foul(c),
        SpecialKind::IllegalWin => format!("{}の反則勝ち", name(turn)),
        SpecialKind::Declaration => format!("{}の入玉勝ち", name(turn)),
        SpecialKind::Interrupt => "中断".to_string(),
        SpecialKind::Repetition => "千日手".to_string(),
        SpecialKind::PerpetualCheck => "連続王手の千日手".to_string(),
        SpecialKind::Impasse | SpecialKind::MaxMoves | SpecialKind::Draw => "持将棋".to_string(),
        SpecialKind::NoMate => "不詰".to_string(),
        SpecialKind::Sealed => "封じ手".to_string(),
        SpecialKind::DefaultWin => format!("{}の不戦勝", name(turn)),
        SpecialKind::DefaultLoss => format!("{}の不戦敗", name(turn)),
        SpecialKind::Matta | SpecialKind::Error | SpecialKind::Unknown => return None,
    };
    Some(format!("まで{plies}手で{result}"))
}

/// The move of a node on `board`, with the kind on its source square: the resolved move, or
/// the move its text fully states (source square or drop with a named piece;
/// `board::stated_move`), for moves left unresolved (after a foul, or never resolved). KIF and
/// KI2 name every piece they write, so a text that names none is not written, nor the drop of
/// a piece that cannot be in hand.
pub(crate) fn node_move(
    board: &LenientBoard,
    text: &MoveText,
    resolved: Option<Move>,
) -> Option<(Move, Option<PieceKind>)> {
    let on = text
        .from
        .square()
        .and_then(|sq| board.piece_at(sq))
        .map(|p| p.kind);
    if let Some(mv) = resolved {
        return Some((mv, on));
    }
    text.piece?;
    let mv = crate::formats::board::stated_move(text, on).filter(|m| match m {
        Move::Drop { kind, .. } => kind.is_hand_kind(),
        Move::Normal { .. } => true,
    })?;
    Some((mv, on))
}

/// The warning for a move that is not written, and the rest of its line with it.
pub(crate) fn not_written(ply: u32, raw: &str, why: &str) -> Diagnostic {
    Diagnostic::new(
        Code::Lossy,
        format!("move {ply} ({raw}) not written: {why}; the rest of its line is dropped"),
    )
    .ply(ply)
    .with_move(raw.to_string())
}

/// Pads the current line of `out` with spaces to the next multiple of `cell` columns.
pub(crate) fn pad_to(out: &mut String, cell: usize) {
    let line = out.rsplit('\n').next().unwrap_or("");
    let w = display_width(line);
    let target = w.div_ceil(cell).max(1) * cell;
    let n = target.saturating_sub(w).max(1);
    out.extend(std::iter::repeat_n(' ', n));
}

/// Ends an unfinished line of KI2 moves.
pub(crate) fn end_cells(out: &mut String, on_line: usize) {
    if on_line > 0 {
        out.push('\n');
    }
}

/// Queues the variation blocks met while writing a line for the writer's stack of pending
/// blocks, which pops from the end: pushed so that the highest ply (and, at one ply, the first
/// alternative) comes out first. `ply` gives a block's first ply.
pub(crate) fn queue_blocks<B>(pending: &mut Vec<B>, mut blocks: Vec<B>, ply: impl Fn(&B) -> u32) {
    blocks.sort_by_key(&ply);
    let mut i = 0;
    while i < blocks.len() {
        let first = ply(&blocks[i]);
        let j = blocks[i..]
            .iter()
            .position(|b| ply(b) != first)
            .map_or(blocks.len(), |k| i + k);
        blocks[i..j].reverse();
        i = j;
    }
    pending.extend(blocks);
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `header_key_reads_back` says exactly which keys the reader takes back from a header
    /// line `key：v` (the KIF writer leaves the others out, with a warning).
    #[test]
    fn header_keys_that_read_back_are_the_ones_the_reader_takes() {
        let keys = [
            "先手",
            "後手",
            "棋戦",
            "'",
            "1",
            "12",
            "a b",
            "a　b",
            "",
            "▲先手",
            "△後手",
            "☗x",
            "▽y",
            "*c",
            "&b",
            "|x",
            "#x",
            "まで",
            "まで1手",
            "変化",
            "変化1",
            "先手の持駒",
            "後手持駒",
            "先手番",
            "手合割",
            "key:x",
            "key：x",
            "手数",
            "\u{feff}k",
            "x\ty",
            "１",
            "先手番号",
        ];
        for key in keys {
            let text = format!("{key}：v\n手数----指手---------消費時間--\n");
            let g = crate::formats::kif::read(&text);
            let back = g.first().is_some_and(|g| {
                g.record
                    .header
                    .entries
                    .iter()
                    .any(|e| e.key == key && e.value == "v")
            });
            let predicted = key == "手合割" || header_key_reads_back(key);
            assert_eq!(back, predicted, "{key:?}");
        }
    }
}
