//! The CSA writer: V2.2 by default, V3.0 on request.

use std::fmt::Write as _;

use crate::core::{Color, Handicap, Setup, Square};
use crate::diag::{Code, Diagnostic};
use crate::formats::board::{LenientBoard, csa_name_fits, named_after, named_before};
use crate::formats::{WriteOptions, Written, push_num, push_square};
use crate::record::{
    MoveNode, NamedPiece, NodeKind, Record, Special, SpecialKind, StartPosition, keys,
};

/// Writes a record as CSA (V2.2, or V3.0 when `opts.csa_v3`). Only the main line is written:
/// each variation dropped is reported as a `lossy` warning, as is anything else CSA cannot hold.
pub fn write(record: &Record, opts: &WriteOptions) -> Written {
    let mut w = Writer {
        out: String::with_capacity(64 + record.moves.len() * 16),
        warnings: Vec::new(),
        v3: opts.csa_v3,
    };
    w.all(record);
    Written {
        text: w.out,
        warnings: w.warnings,
    }
}

struct Writer {
    out: String,
    warnings: Vec<Diagnostic>,
    v3: bool,
}

impl Writer {
    fn lossy(&mut self, msg: String, ply: Option<u32>) {
        let mut d = Diagnostic::new(Code::Lossy, msg);
        d.ply = ply;
        self.warnings.push(d);
    }

    fn all(&mut self, record: &Record) {
        if self.v3 {
            self.out.push_str("'CSA encoding=UTF-8\nV3.0\n");
        } else {
            self.out.push_str("V2.2\n");
        }
        self.header(record);
        self.start(&record.start);
        for c in &record.start_comments {
            self.comment(c);
        }
        if record.start_bookmark.is_some() {
            self.lossy(
                "CSA has no bookmarks; the start bookmark was dropped".into(),
                None,
            );
        }
        self.moves(record);
        if record.footer.is_some() {
            // The footer repeats the result, which the special (if any) already says.
        }
        for c in &record.trailing_comments {
            self.comment(c);
        }
    }

    fn comment(&mut self, c: &str) {
        // One line per comment line: a comment holding newlines becomes several lines.
        for line in c.split('\n') {
            self.out.push('\'');
            self.out.push_str(line.trim_end_matches('\r'));
            self.out.push('\n');
        }
    }

    fn header(&mut self, record: &Record) {
        let entries = &record.header.entries;
        let is_name =
            |k: &str| matches!(k, keys::BLACK | keys::WHITE | keys::SHITATE | keys::UWATE);
        // CSA puts names before the other information; keep the file order when it already
        // does, else write the names first.
        let first_info = entries
            .iter()
            .position(|e| !is_name(&e.key) && e.key != keys::HEADER_COMMENT);
        let last_name = entries.iter().rposition(|e| is_name(&e.key));
        let in_order = match (first_info, last_name) {
            (Some(i), Some(n)) => n < i,
            _ => true,
        };
        let mut clock = Clock::of(&record.header, self.v3);
        if !in_order {
            for e in entries.iter().filter(|e| is_name(&e.key)) {
                self.entry(&e.key, &e.value, &mut clock);
            }
        }
        for e in entries {
            if !in_order && is_name(&e.key) {
                continue;
            }
            self.entry(&e.key, &e.value, &mut clock);
        }
    }

    fn entry(&mut self, key: &str, value: &str, clock: &mut Clock) {
        // A value cannot span lines: its line breaks are written as spaces, with a warning
        // (the rest of the value used to be cut off at the first one, without a word).
        let spaced;
        let value = if value.contains(['\n', '\r']) && key != keys::HEADER_COMMENT {
            self.lossy(
                format!("header `{key}`: its line breaks were written as spaces"),
                None,
            );
            spaced = value.replace(['\n', '\r'], " ");
            spaced.as_str()
        } else {
            value
        };
        let csa_key = match key {
            keys::HEADER_COMMENT => {
                self.comment(value);
                return;
            }
            // The reader takes one `:` after `N+` as a separator (`N+:name`), so a name that
            // starts with one is written after a `:` of its own.
            keys::BLACK | keys::SHITATE | keys::WHITE | keys::UWATE => {
                let sign = if matches!(key, keys::BLACK | keys::SHITATE) {
                    '+'
                } else {
                    '-'
                };
                let sep = if value.starts_with(':') { ":" } else { "" };
                let _ = writeln!(self.out, "N{sign}{sep}{value}");
                return;
            }
            // The start position says it.
            keys::HANDICAP => return,
            keys::EVENT => "$EVENT",
            keys::SITE => "$SITE",
            keys::START => "$START_TIME",
            keys::END => "$END_TIME",
            keys::OPENING => "$OPENING",
            // The time control in the version's own form when it fits it (`Clock`), else a
            // comment below; `秒読み` is part of it then.
            // (A second `持ち時間` entry, as from a file with both `$TIME_LIMIT` and `$TIME`,
            // is a comment.)
            keys::TIME_CONTROL if clock.both.is_some() => {
                if let Some(line) = clock.both.take() {
                    self.out.push_str(&line);
                    if !line.trim_end().ends_with(value) || clock.byoyomi {
                        // The same clock, but not the same words.
                        self.lossy(
                            format!(
                                "the time control `{value}`{} was written in CSA's form, `{}`",
                                if clock.byoyomi {
                                    " (with its 秒読み line)"
                                } else {
                                    ""
                                },
                                line.trim_end()
                            ),
                            None,
                        );
                    }
                }
                return;
            }
            keys::BYOYOMI if clock.fits => return,
            // Each side's entry in its own value's form (a second entry of one key, which may
            // say another thing, is not given the first one's value): when both sides' clocks
            // fit V3.0's form (`Clock`) and this entry's does too; else a comment below.
            keys::BLACK_TIME_CONTROL | keys::WHITE_TIME_CONTROL
                if clock.sides
                    && let Some(v) = side_time(value) =>
            {
                let sign = if key == keys::BLACK_TIME_CONTROL {
                    '+'
                } else {
                    '-'
                };
                let _ = writeln!(self.out, "$TIME{sign}:{v}");
                if v != value {
                    self.lossy(
                        format!("the time control `{value}` was written in CSA's form, `{v}`"),
                        None,
                    );
                }
                return;
            }
            keys::MAX_MOVES if self.v3 => "$MAX_MOVES",
            keys::JISHOGI if self.v3 => "$JISHOGI",
            keys::NOTE if self.v3 => "$NOTE",
            k if k.strip_prefix('$').is_some_and(super::info::is_info_key) => k,
            // Any other entry (a KIF key, or a V3.0 key in V2.2) as a `'key：value` comment,
            // which this crate's reader takes back as the entry.
            k => {
                let line = format!("{k}：{value}");
                if super::info::header_comment_entry(&line).map(|(k2, _)| k2) != Some(k) {
                    self.lossy(
                        format!(
                            "CSA has no header key for `{k}`; it was written as the comment `'{line}`, which reads back as a comment"
                        ),
                        None,
                    );
                }
                self.comment(&line);
                return;
            }
        };
        let _ = writeln!(self.out, "{csa_key}:{value}");
    }

    fn start(&mut self, start: &StartPosition) {
        match start {
            StartPosition::Preset(h) => {
                let even = Setup::startpos();
                self.out.push_str("PI");
                for &(f, r) in h.removed() {
                    if let Some(p) = Square::new(f, r).and_then(|sq| even.piece_at(sq)) {
                        let _ = write!(self.out, "{f}{r}{}", p.kind.csa());
                    }
                }
                self.out.push('\n');
                let turn = if *h == Handicap::Even {
                    Color::Black
                } else {
                    Color::White
                };
                self.out.push(turn.csa_sign());
                self.out.push('\n');
            }
            StartPosition::Setup(s) => {
                for rank in 1..=9u8 {
                    let _ = write!(self.out, "P{rank}");
                    for file in (1..=9u8).rev() {
                        match Square::new(file, rank).and_then(|sq| s.piece_at(sq)) {
                            Some(p) => {
                                self.out.push(p.color.csa_sign());
                                self.out.push_str(p.kind.csa());
                            }
                            None => self.out.push_str(" * "),
                        }
                    }
                    self.out.push('\n');
                }
                for c in Color::ALL {
                    let hand = s.hands.get(c);
                    if hand.is_empty() {
                        continue;
                    }
                    let _ = write!(self.out, "P{}", c.csa_sign());
                    for (k, n) in hand.iter() {
                        for _ in 0..n {
                            let _ = write!(self.out, "00{}", k.csa());
                        }
                    }
                    self.out.push('\n');
                }
                self.out.push(s.turn.csa_sign());
                self.out.push('\n');
            }
        }
    }

    fn moves(&mut self, record: &Record) {
        let mut board = LenientBoard::new(&record.start);
        let mut ply = 0u32;
        for node in &record.moves {
            ply += 1;
            for (i, _) in node.variations.iter().enumerate() {
                self.lossy(
                    format!(
                        "CSA cannot hold variations; variation {} at ply {ply} was dropped",
                        i + 1
                    ),
                    Some(ply),
                );
            }
            let before = node.analysis.is_some().then(|| board.clone());
            match &node.kind {
                NodeKind::Move { text, .. } => {
                    let mv = board.move_of(node);
                    let color = text.color;
                    let applied = mv.and_then(|m| board.apply(m, color));
                    match (mv, applied) {
                        (Some(m), Some(a)) => {
                            if m.is_promotion() && a.after == a.before {
                                // A CSA move names the piece after it; a piece that cannot
                                // promote (a foul) is named as it was.
                                self.lossy(
                                    format!(
                                        "CSA cannot hold the promotion of a piece that cannot promote; move {ply} `{}` was written without it",
                                        text.raw
                                    ),
                                    Some(ply),
                                );
                            }
                            // The piece the record names, which a foul names wrongly.
                            let named = named_after(text, m).unwrap_or(a.after);
                            if m.from().is_some()
                                && named_before(text, m).is_some_and(|k| k != a.before)
                                && csa_name_fits(named, a.before)
                            {
                                // `+2423NG` from a silver on 24 is its promotion, not a
                                // KIF `２三銀成(24)` from a promoted silver.
                                self.lossy(
                                    format!(
                                        "CSA names the piece after the move: move {ply} `{}` names a piece that is not on its source square, and reads back as the move of the {} ({}) there",
                                        text.raw,
                                        a.before.kif_name(),
                                        a.before.csa()
                                    ),
                                    Some(ply),
                                );
                            }
                            // `+7776FU`, pushed piece by piece (`write!` was a fifth of
                            // converting to CSA).
                            self.out.push(a.color.csa_sign());
                            match m.from() {
                                Some(sq) => push_square(&mut self.out, sq),
                                None => self.out.push_str("00"),
                            }
                            push_square(&mut self.out, m.to());
                            self.out.push_str(named.csa());
                        }
                        _ => {
                            // Not replayable: write what the text says if it is complete.
                            match (text.from, text.piece, text.color) {
                                (src, Some(NamedPiece::After(k)), Some(c)) => {
                                    let from = match src {
                                        crate::record::Source::Square(sq) => sq.to_string(),
                                        _ => "00".to_owned(),
                                    };
                                    let _ = write!(
                                        self.out,
                                        "{}{from}{}{}",
                                        c.csa_sign(),
                                        text.to,
                                        k.csa()
                                    );
                                }
                                _ => {
                                    self.lossy(
                                        format!(
                                            "move {ply} `{}` cannot be replayed; the record was cut there",
                                            text.raw
                                        ),
                                        Some(ply),
                                    );
                                    return;
                                }
                            }
                        }
                    }
                    self.out.push('\n');
                }
                NodeKind::Special(s) => {
                    let Some(word) = self.special(s, board.turn(), ply) else {
                        self.annotations(node, ply, before.as_ref(), &board);
                        continue;
                    };
                    self.out.push_str(&word);
                    self.out.push('\n');
                }
            }
            self.annotations(node, ply, before.as_ref(), &board);
        }
    }

    fn annotations(
        &mut self,
        node: &MoveNode,
        ply: u32,
        before: Option<&LenientBoard>,
        after: &LenientBoard,
    ) {
        if let Some(ms) = node.time.and_then(|t| t.elapsed_ms) {
            let secs = ms / 1000;
            let frac = ms % 1000;
            if frac == 0 {
                self.out.push('T');
                push_num(&mut self.out, secs, 0, '0');
                self.out.push('\n');
            } else if self.v3 {
                let f = format!("{frac:03}");
                let _ = writeln!(self.out, "T{secs}.{}", f.trim_end_matches('0'));
            } else {
                let _ = writeln!(self.out, "T{secs}");
                self.lossy(
                    format!(
                        "CSA V2.2 times are whole seconds; {ms} ms at ply {ply} written as {secs} s"
                    ),
                    Some(ply),
                );
            }
        }
        let comments = crate::formats::analysis::node_comments(
            node,
            crate::formats::analysis::Family::Csa,
            before,
            after,
            ply,
            &mut self.warnings,
        );
        for c in comments.iter() {
            self.comment(c);
        }
        if node.bookmark.is_some() {
            self.lossy(
                format!("CSA has no bookmarks; the bookmark at ply {ply} was dropped"),
                Some(ply),
            );
        }
    }

    /// The `%` word for a special, or `None` (with a warning) when CSA has none.
    fn special(&mut self, s: &Special, turn: Color, ply: u32) -> Option<String> {
        // Fouls as CSA names them (`%ILLEGAL_MOVE` is the side to move's loss, `%±ILLEGAL_ACTION`
        // names the offender): `csa::written_kind`.
        let kind = super::written_kind(s, turn);
        let word = match kind {
            SpecialKind::MaxMoves if !self.v3 => {
                self.lossy(
                    format!("CSA V2.2 has no %MAX_MOVES; wrote %CHUDAN at ply {ply}"),
                    Some(ply),
                );
                "CHUDAN"
            }
            SpecialKind::Sealed => {
                self.lossy(
                    format!("CSA has no sealed move; wrote %CHUDAN at ply {ply}"),
                    Some(ply),
                );
                "CHUDAN"
            }
            // An unknown `%WORD` is written as it is, unless it is a word CSA knows (it would
            // read back as that ending: the record's ending is unknown, as read from a KI2
            // line `▲%TORYO`, say).
            SpecialKind::Unknown
                if s.text.starts_with('%')
                    && s.text.len() > 1
                    && s.text[1..]
                        .bytes()
                        .all(|c| c.is_ascii_alphanumeric() || matches!(c, b'_' | b'+' | b'-'))
                    && super::special_kind(&s.text[1..]).is_none() =>
            {
                return Some(s.text.clone());
            }
            // Every other kind has its CSA word, but a win by default, a loss by default and
            // an unknown ending.
            _ => match super::special_word(kind) {
                Some(word) => word,
                None => {
                    self.lossy(
                        format!(
                            "CSA has no special move for `{}`; dropped at ply {ply}",
                            s.text
                        ),
                        Some(ply),
                    );
                    return None;
                }
            },
        };
        Some(format!("%{word}"))
    }
}

/// The time control's header lines, when the record's fits the CSA version's form: V2.2's
/// `$TIME_LIMIT:HH:MM+SS` (the same whole minutes and byoyomi seconds for both, no increment),
/// V3.0's `$TIME:main+byoyomi+increment` (seconds), and V3.0's `$TIME+` / `$TIME-` for
/// `先手持ち時間` / `後手持ち時間`. A wording that does not fit (or that the crate cannot read
/// in full) is written as a `'持ち時間：…` comment instead.
struct Clock {
    /// The whole `$TIME_LIMIT:…` or `$TIME:…` line, with its line end (taken when written).
    both: Option<String>,
    /// Whether `持ち時間` (with `秒読み`) fits the version's line.
    fits: bool,
    /// Whether a `秒読み` entry is part of it.
    byoyomi: bool,
    /// Whether `$TIME+` and `$TIME-` are written: V3.0, and both sides' clocks fit its form.
    sides: bool,
}

impl Clock {
    fn of(header: &crate::record::Header, v3: bool) -> Clock {
        use crate::formats::time_control::TimeControl;
        let stated = header.get(keys::TIME_CONTROL);
        let both = stated.and_then(|value| {
            // A value already in a CSA form is written as it is.
            if is_time_limit(value) {
                return Some(format!("$TIME_LIMIT:{value}\n"));
            }
            if v3 && is_v3_time(value) {
                return Some(format!("$TIME:{value}\n"));
            }
            let tc = TimeControl::from_keys(|k| match k {
                keys::TIME_CONTROL | keys::BYOYOMI => header.get(k),
                _ => None,
            })?;
            if v3 {
                v3_time(&tc.black).map(|v| format!("$TIME:{v}\n"))
            } else {
                v2_time(&tc.black).map(|v| format!("$TIME_LIMIT:{v}\n"))
            }
        });
        let side = |key: &str| header.get(key).and_then(side_time);
        let sides = v3
            && side(keys::BLACK_TIME_CONTROL).is_some()
            && side(keys::WHITE_TIME_CONTROL).is_some();
        Clock {
            byoyomi: both.is_some() && header.get(keys::BYOYOMI).is_some(),
            fits: both.is_some(),
            both,
            sides,
        }
    }
}

/// One side's time control (`先手持ち時間`, `後手持ち時間`) in V3.0's `main+byoyomi+increment`
/// form, when the crate reads it in full.
fn side_time(value: &str) -> Option<String> {
    use crate::formats::time_control::TimeControl;
    // A value already in that form is written as it is.
    if is_v3_time(value) {
        return Some(value.to_owned());
    }
    let tc = TimeControl::from_keys(|k| (k == keys::TIME_CONTROL).then_some(value))?;
    v3_time(&tc.black)
}

/// `HH:MM+SS` for an allowance in whole minutes with a byoyomi in whole seconds and no
/// increment.
fn v2_time(t: &crate::formats::time_control::SideTime) -> Option<String> {
    let byoyomi = t.byoyomi_ms?;
    (t.increment_ms == 0 && t.main_ms.is_multiple_of(60_000) && byoyomi % 1000 == 0).then(|| {
        format!(
            "{:02}:{:02}+{:02}",
            t.main_ms / 3_600_000,
            t.main_ms / 60_000 % 60,
            byoyomi / 1000
        )
    })
}

/// `main+byoyomi+increment` in seconds (with a fraction where needed), when the byoyomi is
/// known.
fn v3_time(t: &crate::formats::time_control::SideTime) -> Option<String> {
    fn secs(ms: u64) -> String {
        if ms.is_multiple_of(1000) {
            (ms / 1000).to_string()
        } else {
            let f = format!("{:03}", ms % 1000);
            format!("{}.{}", ms / 1000, f.trim_end_matches('0'))
        }
    }
    let byoyomi = t.byoyomi_ms?;
    Some(format!(
        "{}+{}+{}",
        secs(t.main_ms),
        secs(byoyomi),
        secs(t.increment_ms)
    ))
}

/// `main+byoyomi+increment`, V3.0's `$TIME` shape (seconds, a fraction allowed).
fn is_v3_time(v: &str) -> bool {
    let parts: Vec<&str> = v.split('+').collect();
    parts.len() == 3
        && parts.iter().all(|p| {
            let (int, frac) = p.split_once('.').unwrap_or((p, "0"));
            !int.is_empty()
                && !frac.is_empty()
                && int.bytes().chain(frac.bytes()).all(|c| c.is_ascii_digit())
        })
}

/// `HH:MM+SS`, the `$TIME_LIMIT` shape.
fn is_time_limit(v: &str) -> bool {
    let b = v.as_bytes();
    match v.split_once('+') {
        Some((hm, s)) => {
            hm.split_once(':').is_some_and(|(h, m)| {
                !h.is_empty()
                    && !m.is_empty()
                    && (h.bytes().chain(m.bytes())).all(|c| c.is_ascii_digit())
            }) && !s.is_empty()
                && s.bytes().all(|c| c.is_ascii_digit())
                && !b.is_empty()
        }
        None => false,
    }
}
