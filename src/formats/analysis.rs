//! Engine analysis lines in comments, read into [`Analysis`] and written back: floodgate's
//! `'** 30 -3334FU +2726FU` (CSA), ShogiHome's `**評価値=30` / `**読み筋=▲２五歩△８五歩` /
//! `**詰み=先手勝ち:5手` / `**深さ=8` / `**ノード数=12345` / `**エンジン=name`, ShogiGUI's
//! `**対局 深さ 2 ノード数 960 評価値 0 読み筋 ▲７六歩(77)` (see `record::analysis`).
//!
//! Readers keep comments as the text after the format's comment marker: a KIF `**` line is the
//! comment `*…` (also in JKF, whose converters keep KIF's convention), a CSA `'**` line the
//! comment `**…`. [`extract`] takes the analysis lines out of every move's comments; a line
//! that does not read in full (a PV move that is not a move) stays a comment.
//!
//! Writers: KIF, KI2 and JKF write the ShogiHome and ShogiGUI forms back as they were read and
//! a floodgate line in ShogiHome's form; CSA writes a floodgate line back as it was and any
//! other form as a floodgate line (`'** <score> <moves>`) with ShogiHome-form lines for what
//! that cannot hold (a mate's length, depth, nodes, engine), which read back into the same
//! analysis. A PV is replayed from the annotated position to be rewritten; where it cannot be,
//! it is cut there with a `lossy` warning.

use crate::core::{Color, Move, PieceKind, Position, Square};
use crate::formats::board::LenientBoard;
use crate::formats::kakinoki;
use crate::record::resolve::resolve_move;
use crate::record::walk::{self, Step};
use crate::record::{
    Analysis, AnalysisForm, MoveNode, MoveText, NamedPiece, NodeKind, RawText, Record, Relative,
    Score, Source,
};

/// Where a format keeps analysis lines among its comments.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Family {
    /// KIF, KI2, JKF: the comment `*…` (a KIF line `**…`).
    Kakinoki,
    /// CSA: the comment `**…` (a line `'**…`).
    Csa,
    /// JKF: comments as KIF's (`*評価値=30`), but a floodgate line as the reference CSA-to-JKF
    /// converters keep it, `** 30 -3334FU` (`* 30 -3334FU`, from KIF, is read too).
    Jkf,
}

impl Family {
    fn marker(self) -> &'static str {
        match self {
            Family::Kakinoki | Family::Jkf => "*",
            Family::Csa => "**",
        }
    }

    /// Whether a move's comment is an analysis line [`extract`] takes out of its comments.
    pub(crate) fn is_analysis(self, comment: &str) -> bool {
        comment.starts_with(self.marker()) && self.body(comment).is_some()
    }

    /// The analysis line a comment holds, after its marker.
    fn body(self, comment: &str) -> Option<(&str, Item)> {
        if self == Family::Jkf
            && let Some(body) = comment.strip_prefix("**")
            && let Some(item) = floodgate(body)
        {
            return Some((body, item));
        }
        let body = comment.strip_prefix(self.marker())?;
        parse_line(body).map(|item| (body, item))
    }
}

/// Takes the analysis lines out of the comments of every move of `record` (main line and
/// variations) into [`MoveNode::analysis`].
pub(crate) fn extract(record: &mut Record, family: Family) {
    struct Take(Family);
    impl walk::VisitMut for Take {
        type State = ();
        fn branch(&mut self, _: &MoveNode, _: u32, _: &()) {}
        fn node(&mut self, node: &mut MoveNode, _: u32, _: &mut ()) -> Step {
            if node.comments.iter().any(|c| c.starts_with(self.0.marker())) {
                take_from(node, self.0);
            }
            Step::Continue
        }
    }
    walk::walk_mut(&mut record.moves, 1, (), &mut Take(family));
}

fn take_from(node: &mut MoveNode, family: Family) {
    let mut kept = Vec::with_capacity(node.comments.len());
    for c in std::mem::take(&mut node.comments) {
        if !read_into(&mut node.analysis, &c, family) {
            kept.push(c);
        }
    }
    node.comments = kept;
}

/// Adds what the comment `text` says to a move's analysis `slot`, as [`extract`] takes it out
/// of a record's comments; `false` (nothing changed) for a comment that is not an analysis
/// line.
pub(crate) fn read_into(slot: &mut Option<Box<Analysis>>, text: &str, family: Family) -> bool {
    let Some((body, item)) = family.body(text) else {
        return false;
    };
    merge(slot, item, body);
    if let Some(a) = slot.as_mut() {
        a.from_csa = family == Family::Csa;
    }
    true
}

/// What one line says.
struct Item {
    form: AnalysisForm,
    score: Option<Score>,
    pv: Option<Vec<MoveText>>,
    depth: Option<u32>,
    nodes: Option<u64>,
    engine: Option<String>,
}

impl Item {
    fn new(form: AnalysisForm) -> Item {
        Item {
            form,
            score: None,
            pv: None,
            depth: None,
            nodes: None,
            engine: None,
        }
    }
}

fn merge(slot: &mut Option<Box<Analysis>>, item: Item, line: &str) {
    let a = slot.get_or_insert_with(|| Box::new(Analysis::new(item.form)));
    // A mate says more than a number standing for one (floodgate's ±30000).
    match (a.score, item.score) {
        (Some(Score::Mate { .. }), Some(Score::Cp(_))) => {}
        (_, Some(s)) => a.score = Some(s),
        _ => {}
    }
    if let Some(pv) = item.pv
        && a.pv.is_empty()
    {
        a.pv = pv;
    }
    a.depth = item.depth.or(a.depth);
    a.nodes = item.nodes.or(a.nodes);
    if item.engine.is_some() {
        a.engine = item.engine;
    }
    a.lines.push(line.to_owned());
}

/// One analysis line (after the marker), in any of the three forms.
fn parse_line(body: &str) -> Option<Item> {
    if let Some((key, value)) = body.split_once('=') {
        return shogihome(key, value);
    }
    if let Some(rest) = body
        .strip_prefix("対局")
        .or_else(|| body.strip_prefix("解析"))
    {
        return shogigui(rest);
    }
    floodgate(body)
}

fn shogihome(key: &str, value: &str) -> Option<Item> {
    let mut item = Item::new(AnalysisForm::ShogiHome);
    match key {
        "評価値" => item.score = Some(Score::Cp(value.trim().parse().ok()?)),
        "読み筋" => item.pv = Some(japanese_pv(value)?),
        "深さ" => item.depth = Some(value.trim().parse().ok()?),
        "ノード数" => item.nodes = Some(value.trim().parse().ok()?),
        "エンジン" => item.engine = Some(value.to_owned()),
        "詰み" => {
            let (side, plies) = match value.split_once(':') {
                Some((s, n)) => (s, Some(n.strip_suffix('手')?.parse().ok()?)),
                None => (value, None),
            };
            let winner = match side {
                "先手勝ち" => Color::Black,
                "後手勝ち" => Color::White,
                _ => return None,
            };
            item.score = Some(Score::Mate { winner, plies });
        }
        _ => return None,
    }
    Some(item)
}

fn shogigui(rest: &str) -> Option<Item> {
    if !(rest.is_empty() || rest.starts_with(' ')) {
        return None;
    }
    let mut item = Item::new(AnalysisForm::ShogiGui);
    let (head, pv) = match rest.split_once(" 読み筋") {
        Some((h, pv)) => (h, Some(pv)),
        None => (rest, None),
    };
    let words: Vec<&str> = head.split_whitespace().collect();
    for pair in words.windows(2) {
        let [key, value] = pair else { continue };
        match *key {
            "深さ" => item.depth = value.split('/').next().and_then(|d| d.parse().ok()),
            "ノード数" => item.nodes = value.parse().ok(),
            "評価値" => item.score = value.parse().ok().map(Score::Cp),
            _ => {}
        }
    }
    if let Some(pv) = pv {
        item.pv = Some(japanese_pv(pv)?);
    }
    (item.score.is_some() || item.pv.is_some() || item.depth.is_some()).then_some(item)
}

fn floodgate(body: &str) -> Option<Item> {
    let mut words = body.split_ascii_whitespace();
    let score = words.next()?;
    let digits = score.strip_prefix(['+', '-']).unwrap_or(score);
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let mut item = Item::new(AnalysisForm::Floodgate);
    item.score = Some(Score::Cp(score.parse().ok()?));
    let mut pv = Vec::new();
    for w in words {
        if let Some(n) = w.strip_prefix('#') {
            // ShogiHome's CSA V3 form ends with `#nodes`.
            item.nodes = Some(n.parse().ok()?);
            continue;
        }
        if item.nodes.is_some() {
            return None;
        }
        pv.push(csa_token(w).or_else(|| usi_token(w))?);
    }
    item.pv = Some(pv);
    Some(item)
}

/// `+7776FU`.
fn csa_token(w: &str) -> Option<MoveText> {
    let b = w.as_bytes();
    let [sign, f1, r1, f2, r2, k1, k2] = *b else {
        return None;
    };
    let color = match sign {
        b'+' => Color::Black,
        b'-' => Color::White,
        _ => return None,
    };
    let d = |c: u8| c.is_ascii_digit().then(|| c - b'0');
    let from = match (d(f1)?, d(r1)?) {
        (0, 0) => Source::Drop,
        (f, r) => Source::Square(Square::new(f, r)?),
    };
    Some(MoveText {
        color: Some(color),
        from,
        to: Square::new(d(f2)?, d(r2)?)?,
        same: false,
        piece: Some(NamedPiece::After(PieceKind::from_csa_bytes(k1, k2)?)),
        promote: None,
        relative: Relative::default(),
        raw: RawText::from(w),
    })
}

/// `7g7f`, `P*5e`, `8h2b+`.
fn usi_token(w: &str) -> Option<MoveText> {
    let mv = Move::from_usi(w).ok()?;
    Some(super::visit::WrittenMove::whole(mv, w).to_text())
}

/// `▲２五歩△８五歩`, `▲７六歩(77) △同　銀(31)`: moves after side marks.
fn japanese_pv(s: &str) -> Option<Vec<MoveText>> {
    let is_mark = |c: char| matches!(c, '▲' | '△' | '☗' | '☖' | '▼' | '▽');
    let s = s.trim();
    if s.is_empty() {
        return Some(Vec::new());
    }
    if !s.starts_with(is_mark) {
        return None;
    }
    let mut out = Vec::new();
    let mut starts: Vec<usize> = s.match_indices(is_mark).map(|(i, _)| i).collect();
    starts.push(s.len());
    for w in starts.windows(2) {
        let [a, b] = *w else { continue };
        let token = s.get(a..b)?.trim_end();
        let mark = token.chars().next()?;
        let color = if matches!(mark, '▲' | '☗' | '▼') {
            Color::Black
        } else {
            Color::White
        };
        let body = token.get(mark.len_utf8()..)?;
        let kind = match kakinoki::parse_kif_move(body) {
            Ok((k, None)) => k,
            _ => kakinoki::parse_ki2_token(token).ok()?,
        };
        let NodeKind::Move { mut text, .. } = kind else {
            return None;
        };
        text.color = Some(color);
        text.raw = RawText::from(token);
        out.push(text);
    }
    Some(out)
}

/// The comment texts (in `family`'s convention: with the marker) that write `a`, the analysis
/// of the move played from `before` to `after` (`to`: where that move landed), and a message
/// for what could not be written.
pub(crate) fn comment_texts(
    a: &Analysis,
    family: Family,
    before: &LenientBoard,
    after: &LenientBoard,
    to: Option<Square>,
) -> (Vec<String>, Option<String>) {
    let marker = family.marker();
    if family == Family::Jkf && !a.lines.is_empty() {
        // Every line as it was read, floodgate's with its `**`.
        let lines = a.lines.iter().map(|l| {
            let m = if floodgate(l).is_some() { "**" } else { "*" };
            format!("{m}{l}")
        });
        return (lines.collect(), None);
    }
    let native = match family {
        // (A floodgate line read from KIF, as ShogiHome's bridge writes it, stays one.)
        Family::Kakinoki => a.form != AnalysisForm::Floodgate || !a.from_csa,
        Family::Csa => a.from_csa || a.form == AnalysisForm::Floodgate,
        Family::Jkf => true,
    };
    if native && !a.lines.is_empty() {
        return (
            a.lines.iter().map(|l| format!("{marker}{l}")).collect(),
            None,
        );
    }
    let (start, moves, complete) = replay_pv(a, before, after, to);
    let mut lost = (!complete).then(|| {
        format!(
            "the engine's PV could not be replayed from move {} on; it was cut there",
            a.pv.get(moves.len()).map_or("?", |t| t.raw.as_str())
        )
    });
    let mut lines = Vec::new();
    let mate = match a.score {
        Some(Score::Mate { winner, plies }) => Some(format!(
            "詰み={}{}",
            if winner == Color::Black {
                "先手勝ち"
            } else {
                "後手勝ち"
            },
            plies.map(|n| format!(":{n}手")).unwrap_or_default()
        )),
        _ => None,
    };
    match family {
        Family::Kakinoki | Family::Jkf => {
            lines.extend(mate);
            if let Some(Score::Cp(v)) = a.score {
                lines.push(format!("評価値={v}"));
            }
            if !moves.is_empty() {
                let mut board = start;
                let mut prev = if board.turn() == after.turn() {
                    to
                } else {
                    None
                };
                let mut pv = String::from("読み筋=");
                for &mv in &moves {
                    match crate::formats::ki2::token(&board, mv, prev) {
                        Some(t) => pv.push_str(&t),
                        None => break,
                    }
                    board.apply(mv, None);
                    prev = Some(mv.to());
                }
                lines.push(pv);
            }
        }
        Family::Csa => {
            let score = match a.score {
                Some(Score::Cp(v)) => Some(v),
                Some(Score::Mate { winner, .. }) => Some(if winner == Color::Black {
                    30_000
                } else {
                    -30_000
                }),
                None => None,
            };
            match score {
                Some(v) => {
                    let mut line = format!(" {v}");
                    let mut board = start;
                    for &mv in &moves {
                        let Some(applied) = board.apply(mv, None) else {
                            break;
                        };
                        line.push(' ');
                        line.push(applied.color.csa_sign());
                        match mv {
                            Move::Normal { from, .. } => {
                                crate::formats::push_square(&mut line, from)
                            }
                            Move::Drop { .. } => line.push_str("00"),
                        }
                        crate::formats::push_square(&mut line, mv.to());
                        line.push_str(applied.after.csa());
                    }
                    lines.push(line);
                }
                None if !moves.is_empty() => {
                    lost = Some(
                        "CSA's analysis line needs a score; the engine's PV was dropped".into(),
                    );
                }
                None => {}
            }
            lines.extend(mate);
        }
    }
    if let Some(d) = a.depth {
        lines.push(format!("深さ={d}"));
    }
    if let Some(n) = a.nodes {
        lines.push(format!("ノード数={n}"));
    }
    if let Some(e) = &a.engine {
        lines.push(format!("エンジン={e}"));
    }
    (
        lines.into_iter().map(|l| format!("{marker}{l}")).collect(),
        lost,
    )
}

/// The PV's moves, replayed from the position it starts from: after the annotated move, or
/// before it when its first move is the mover's (ShogiGUI); with that position and whether
/// every move could be replayed.
fn replay_pv(
    a: &Analysis,
    before: &LenientBoard,
    after: &LenientBoard,
    to: Option<Square>,
) -> (LenientBoard, Vec<Move>, bool) {
    let play = |board: &LenientBoard, last| match Position::from_setup_lenient(board.setup()) {
        Ok(pos) => play_pv(a, pos, last),
        Err(_) => Vec::new(),
    };
    let (from_after, moves) = choose_start(a, after.turn(), |from_after| {
        if from_after {
            play(after, to)
        } else {
            play(before, None)
        }
    });
    let board = if from_after { after } else { before };
    let complete = moves.len() == a.pv.len();
    (board.clone(), moves, complete)
}

/// [`replay_pv`] for positions (the tables' `pv` column): the PV's moves as far as they can
/// be played, from `after` the annotated move (whose destination is `to`) or from `before`
/// it.
pub(crate) fn pv_moves(
    a: &Analysis,
    before: &Position,
    after: &Position,
    to: Option<Square>,
) -> Vec<Move> {
    choose_start(a, after.turn(), |from_after| {
        if from_after {
            play_pv(a, after.clone(), to)
        } else {
            play_pv(a, before.clone(), None)
        }
    })
    .1
}

/// Which position a PV starts from (`true`: after the annotated move, whose side to move is
/// `after_turn`) and its moves, `play` replaying it from one or the other: after, unless its
/// first move is marked as the other side's; before, also when nothing plays after and the
/// first move has no side mark.
fn choose_start(
    a: &Analysis,
    after_turn: Color,
    play: impl Fn(bool) -> Vec<Move>,
) -> (bool, Vec<Move>) {
    let first_color = a.pv.first().and_then(|t| t.color);
    let from_after = first_color.is_none_or(|c| c == after_turn);
    let moves = play(from_after);
    if from_after && moves.is_empty() && first_color.is_none() && !a.pv.is_empty() {
        return (false, play(false));
    }
    (from_after, moves)
}

/// Plays the PV's moves from `pos` (`last`: the square a `同` move goes to) as far as they
/// resolve and are playable.
fn play_pv(a: &Analysis, mut pos: Position, mut last: Option<Square>) -> Vec<Move> {
    let mut moves = Vec::new();
    for t in &a.pv {
        let mut t = t.clone();
        if t.same {
            match last {
                Some(sq) => t.to = sq,
                None => break,
            }
        }
        let Ok(mv) = resolve_move(&pos, &t) else {
            break;
        };
        if pos.play_unchecked(mv).is_err() {
            break;
        }
        last = Some(mv.to());
        moves.push(mv);
    }
    moves
}

/// The comments a writer writes after `node` in `family`'s convention: its comments, then its
/// analysis ([`comment_texts`]; `before` is the board before the move, taken only when the node
/// has one). What could not be written is a `lossy` warning at `ply`.
pub(crate) fn node_comments<'a>(
    node: &'a MoveNode,
    family: Family,
    before: Option<&LenientBoard>,
    after: &LenientBoard,
    ply: u32,
    warnings: &mut Vec<crate::diag::Diagnostic>,
) -> std::borrow::Cow<'a, [String]> {
    // A comment of another family that reads as this family's analysis line once written
    // (a CSA comment `'* 30 -3334FU` is the KIF line `** 30 -3334FU`): said, as it will not
    // come back as a comment.
    for c in node.comments.iter().filter(|c| family.body(c).is_some()) {
        let d = crate::diag::Diagnostic::new(
            crate::diag::Code::Lossy,
            format!("the comment `{c}` reads back as an engine's analysis line in this format"),
        );
        warnings.push(if ply > 0 { d.ply(ply) } else { d });
    }
    let Some(a) = node.analysis() else {
        return std::borrow::Cow::Borrowed(&node.comments);
    };
    let Some(before) = before else {
        // No board to replay the PV on (a KI2 ending's annotations): the lines as read, when
        // they are the family's own, else dropped with a warning.
        let native = match family {
            Family::Csa => a.from_csa || a.form == AnalysisForm::Floodgate,
            Family::Kakinoki => a.form != AnalysisForm::Floodgate || !a.from_csa,
            Family::Jkf => true,
        };
        if native {
            let mut all = node.comments.clone();
            all.extend(a.lines.iter().map(|l| format!("{}{l}", family.marker())));
            return std::borrow::Cow::Owned(all);
        }
        let d = crate::diag::Diagnostic::new(
            crate::diag::Code::Lossy,
            "the engine analysis on the ending was dropped".to_owned(),
        );
        warnings.push(if ply > 0 { d.ply(ply) } else { d });
        return std::borrow::Cow::Borrowed(&node.comments);
    };
    let to = node.resolved().map(|m| m.to()).or(match &node.kind {
        NodeKind::Move { text, .. } => Some(text.to),
        NodeKind::Special(_) => None,
    });
    let (texts, lost) = comment_texts(a, family, before, after, to);
    if let Some(msg) = lost {
        warnings.push(
            crate::diag::Diagnostic::new(crate::diag::Code::Lossy, format!("ply {ply}: {msg}"))
                .ply(ply),
        );
    }
    let mut all = node.comments.clone();
    all.extend(texts);
    std::borrow::Cow::Owned(all)
}
