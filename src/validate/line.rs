//! One line of a game (the main line or a variation) replayed through [`Position`] move by
//! move as the reader tells it: the rules' findings about each move, how the game ended on
//! the board ([`LineEnd`]), and what a variation told later needs to start from the position
//! before the move it replaces.
//!
//! A line whose moves are all legal takes the quick way ([`Line::quick`]): the move is played
//! if legal, and the mate test after a check waits until it matters (a legal next move shows
//! that the side in check had one). Anything else goes the whole way ([`Line::play`]), which
//! names the rule broken and plays on through a foul that can be carried out.

use std::sync::OnceLock;

use crate::core::{Color, Move, Position, RepetitionOutcome, RepetitionTracker};
use crate::diag::{Code, Diagnostic};

use super::findings::{Check, Findings};
use crate::formats::visit::WrittenMove;
use crate::record::Span;
use crate::record::resolve::resolve_move;

/// The even start, made once.
pub(super) fn even() -> &'static Position {
    static START: OnceLock<Position> = OnceLock::new();
    START.get_or_init(Position::startpos)
}

/// How a line's game ended on the board, before its last node.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Over {
    /// This side was checkmated (by a legal move).
    Mate(Color),
    /// A position appeared for the fourth time; `perpetual` is the side that gave check with
    /// every one of its moves in the cycle (it loses), if any.
    Repetition { perpetual: Option<Color> },
}

impl Over {
    /// The fourth occurrence the repetition table reported.
    pub(super) fn repetition(outcome: RepetitionOutcome) -> Over {
        Over::Repetition {
            perpetual: match outcome {
                RepetitionOutcome::PerpetualCheck { loser } => Some(loser),
                RepetitionOutcome::Draw => None,
            },
        }
    }
}

/// A move that broke a rule and was played on.
#[derive(Debug, Clone, Copy)]
pub(super) struct Foul {
    /// Its ply.
    pub(super) ply: u32,
    /// The side that made it.
    pub(super) by: Color,
    /// Where it is written, and the rule's code: its diagnostic's place and code.
    pub(super) at: Span,
    pub(super) code: Code,
}

/// The state at the end of a line.
pub(super) struct LineEnd {
    /// The final position, unless the line was cut short by a move that cannot be played.
    pub(super) pos: Option<Position>,
    /// Whether the game was already over on the board at the end.
    pub(super) over: Option<Over>,
    /// The ply of the move that ended it on the board.
    pub(super) over_at: Option<u32>,
    /// The moves with a rule violation, in order.
    pub(super) fouls: Vec<Foul>,
    /// Whether the line ended in a fourfold repetition reached by its last move.
    pub(super) repetition_at_end: Option<Over>,
}

/// The replay of one line, with what a variation of it needs.
pub(super) struct Line {
    /// The position before the next node.
    pub(super) pos: Position,
    pub(super) history: RepetitionTracker,
    /// The position before the line's first node (`None`: the even start) and the history's
    /// length there, and the moves played since: a variation of a node the line has passed
    /// starts from them.
    start: Option<Position>,
    base: usize,
    played: Vec<Move>,
    /// Whether the moves played are kept (for variations told after their move).
    pub(super) keeps_moves: bool,
    /// The ply of the line's first node.
    pub(super) first_ply: u32,
    /// Nodes told (moves and specials).
    pub(super) nodes: u32,
    /// Whether the game was already over on the board.
    over: Option<Over>,
    /// The ply of the move that ended it.
    over_at: Option<u32>,
    /// The last move (at `check_ply`) gave check and its mate test is put off.
    check_pending: bool,
    check_ply: u32,
    /// Whether the last move reached a fourfold repetition.
    repetition_at_end: Option<Over>,
    /// Whether `move-after-end` was reported for a move after the end on the board.
    reported_after_end: bool,
    /// The moves with a rule violation, in order.
    fouls: Vec<Foul>,
    /// Whether the side not to move is safe from check (true from a legal position until a
    /// rule-breaking move is played through): what the quick `play_if_legal` needs.
    sound: bool,
    /// The node at which the replay stopped (an ending, a move that cannot be played), and
    /// whether a move cut it short.
    pub(super) stop: Option<u32>,
    cut: bool,
    /// The start could not be set up: no line of the game is replayed.
    no_board: bool,
    /// The ply of a move the reader could not read (main line only): the line stops there.
    pub(super) unread: Option<u32>,
    /// The next move may take the quick way: the replay goes on, every move so far was legal,
    /// the game is not over on the board and no move is unread.
    open: bool,
    /// Where the line branches off, outermost first: the ply each variation replaces (empty
    /// for the main line).
    pub(super) variation: Vec<u32>,
    /// The nodes whose number (KIF) was another than the one expected (their index and
    /// number): counting goes on from the number written.
    breaks: Vec<(u32, u32)>,
    /// The number the first node should carry.
    first_number: u32,
    /// The line's first ending (its node and text), and the first move written after it.
    pub(super) ended: Option<(u32, String)>,
    pub(super) after_stop: Option<u32>,
}

impl Line {
    /// A line from `pos` (the position before its first node, at `first_ply`), `history`
    /// holding the positions before it.
    pub(super) fn new(pos: Position, history: RepetitionTracker, first_ply: u32) -> Line {
        let sound = !pos.king_attacked(pos.turn().flip());
        Line {
            start: Some(pos.clone()),
            base: history.len(),
            pos,
            history,
            played: Vec::new(),
            keeps_moves: true,
            first_ply,
            nodes: 0,
            over: None,
            over_at: None,
            check_pending: false,
            check_ply: 0,
            repetition_at_end: None,
            reported_after_end: false,
            fouls: Vec::new(),
            sound,
            stop: None,
            cut: false,
            no_board: false,
            unread: None,
            open: sound,
            variation: Vec::new(),
            breaks: Vec::new(),
            first_number: first_ply,
            ended: None,
            after_stop: None,
        }
    }

    /// Room for `moves` moves without growing.
    pub(super) fn reserve(&mut self, moves: usize) {
        self.played.reserve(moves);
    }

    /// Back to `start` (`None`: the even start) for a main line, keeping the memory (and the unread ply: a reader's
    /// findings may come before the start).
    pub(super) fn restart(&mut self, start: Option<&Position>) {
        let pos = start.unwrap_or_else(|| even());
        self.pos.clone_from(pos);
        match (start, &mut self.start) {
            (None, s) => *s = None,
            (Some(p), Some(s)) => s.clone_from(p),
            (Some(p), s) => *s = Some(p.clone()),
        }
        self.history.reset(pos);
        self.base = self.history.len();
        self.played.clear();
        self.nodes = 0;
        self.over = None;
        self.over_at = None;
        self.check_pending = false;
        self.check_ply = 0;
        self.repetition_at_end = None;
        self.reported_after_end = false;
        self.fouls.clear();
        self.sound = !pos.king_attacked(pos.turn().flip());
        self.open = self.sound && self.unread.is_none();
        self.stop = None;
        self.cut = false;
        self.no_board = false;
        self.variation.clear();
        self.first_number = 1;
        self.breaks.clear();
        self.ended = None;
        self.after_stop = None;
    }

    /// The start could not be set up: nothing is replayed, on this line or its variations.
    pub(super) fn without_board(&mut self) {
        self.stop = Some(0);
        self.cut = true;
        self.no_board = true;
        self.open = false;
    }

    /// Whether the next move may take the quick way: the replay goes on, every move so far
    /// was legal and the game is not over on the board.
    #[inline(always)]
    pub(super) fn open(&self) -> bool {
        self.open
    }

    /// A move at `ply` the reader could not read: the line stops there.
    pub(super) fn unread_at(&mut self, ply: u32) {
        self.unread = Some(self.unread.map_or(ply, |u| u.min(ply)));
        self.open = false;
    }

    /// Plays a legal move the quick way; `false` (nothing changed) when the whole way must
    /// look at it. Only for an [`open`](Line::open) line.
    #[inline(always)]
    pub(super) fn quick(&mut self, mv: Move) -> bool {
        let to_move = self.pos.turn().flip();
        if !self.pos.play_if_legal(mv) {
            return false;
        }
        self.check_pending = false;
        if self.keeps_moves {
            self.played.push(mv);
        }
        self.nodes += 1;
        let gives_check = self.pos.in_check();
        let repetition = self
            .history
            .push_parts(self.pos.key(), to_move, gives_check);
        // An open line has reached no repetition (`repetition_at_end` is `None`).
        let ply = || self.first_ply + self.nodes - 1;
        if let Some(outcome) = repetition {
            self.over_at = Some(ply());
            self.open = false;
            // A mate comes before a repetition: test it now.
            if gives_check && !self.pos.has_legal_move() {
                self.over = Some(Over::Mate(self.pos.turn()));
            } else {
                let rep = Over::repetition(outcome);
                self.over = Some(rep);
                self.repetition_at_end = Some(rep);
            }
        } else if gives_check {
            self.check_pending = true;
            self.check_ply = ply();
        }
        true
    }

    /// The mate test put off after the last move's check, now that it matters.
    fn settle_check(&mut self) {
        if std::mem::take(&mut self.check_pending) && !self.pos.has_legal_move() {
            self.open = false;
            self.over = Some(Over::Mate(self.pos.turn()));
            self.over_at = Some(self.check_ply);
        }
    }

    /// The number the next node should carry.
    #[inline(always)]
    pub(super) fn expected(&self) -> u32 {
        match self.breaks.last() {
            None => self.first_number.saturating_add(self.nodes),
            Some(_) => self.counted(self.nodes),
        }
    }

    /// The number of the node at index `i` as the count goes: the one written where it breaks
    /// the count, else the one expected there.
    fn counted(&self, i: u32) -> u32 {
        match self.breaks.iter().rev().find(|&&(at, _)| at <= i) {
            Some(&(at, n)) => n.saturating_add(i - at),
            None => self.first_number.saturating_add(i),
        }
    }

    /// `move-number` for the next node (a move or an ending written `text`, numbered `number`
    /// where the text numbers it), to `out`.
    pub(super) fn number(
        &mut self,
        number: Option<u32>,
        span: Span,
        text: &str,
        out: &mut Findings,
    ) {
        let expected = self.expected();
        if let Some(n) = number
            && n != expected
        {
            let d = Diagnostic::new(
                Code::MoveNumber,
                format!("move number {n} where {expected} was expected"),
            )
            .at(span)
            .ply(expected)
            .written(text);
            out.push(Check::Numbers, d);
            self.breaks.push((self.nodes, n));
        }
    }

    /// `move-after-end` for a move written `raw` at the next node, the first after the
    /// line's ending, to `out`.
    pub(super) fn after_ending(&mut self, span: Span, raw: &str, out: &mut Findings) {
        let Some((_, end)) = self.ended.as_ref().filter(|_| self.after_stop.is_none()) else {
            return;
        };
        let d = Diagnostic::new(
            Code::MoveAfterEnd,
            format!("move recorded after the game was over: it ended with {end}"),
        )
        .at(span)
        .ply(self.first_ply + self.nodes)
        .with_move(raw)
        .written(raw);
        out.push(Check::After, d);
        self.after_stop = Some(self.nodes);
    }

    /// An ending written `text` at the next node: the replay stops there.
    pub(super) fn special(&mut self, text: &str) {
        if self.ended.is_none() && self.after_stop.is_none() {
            self.ended = Some((self.nodes, text.to_owned()));
        }
        if self.stop.is_none() {
            self.settle_check();
            self.stop = Some(self.nodes);
            self.open = false;
        }
        self.nodes += 1;
    }

    /// The move at the next node the whole way: its findings to `out`, the move it resolves
    /// to (if it does). `raw` is the move as written.
    #[inline(never)]
    pub(super) fn play(
        &mut self,
        mv: &WrittenMove<'_>,
        raw: &str,
        span: Span,
        out: &mut Findings,
    ) -> Option<Move> {
        let idx = self.nodes;
        self.nodes += 1;
        let ply = self.first_ply + idx;
        if self.stop.is_some() {
            return None;
        }
        let before = out.len();
        let resolved = self.replay(mv, raw, span, ply, out);
        self.open =
            self.stop.is_none() && self.sound && self.over.is_none() && self.unread.is_none();
        if !self.variation.is_empty() {
            for d in out.since(before) {
                d.in_variation(&self.variation);
            }
        }
        resolved
    }

    fn replay(
        &mut self,
        mv: &WrittenMove<'_>,
        raw: &str,
        span: Span,
        ply: u32,
        out: &mut Findings,
    ) -> Option<Move> {
        if self.unread == Some(ply) {
            self.cut_here();
            return None;
        }
        self.settle_check();
        self.repetition_at_end = None;
        // Reported once per line, with the move as USI once it is resolved.
        let mut after_end = self.over.filter(|_| !self.reported_after_end).map(|o| {
            self.reported_after_end = true;
            let why = match o {
                Over::Mate(_) => "the game had ended in checkmate",
                Over::Repetition { .. } => "the position had appeared for the fourth time (千日手)",
            };
            Diagnostic::new(
                Code::MoveAfterEnd,
                format!("move recorded after the game was over: {why}"),
            )
            .at(span)
            .ply(ply)
        });
        let mover = self.pos.turn();
        if let Some(c) = mv.color
            && c != mover
        {
            let d = Diagnostic::new(
                Code::WrongTurn,
                format!(
                    "move recorded for {} but {} is to move",
                    side(c),
                    side(mover)
                ),
            );
            self.refuse(after_end, d.at(span).ply(ply), raw, out);
            return None;
        }
        let m = match mv.resolved {
            Some(m) => m,
            None => {
                // Resolving reads no text.
                let text = WrittenMove { raw: "", ..*mv }.to_text();
                match resolve_move(&self.pos, &text) {
                    Ok(m) => m,
                    Err(e) => {
                        let d = Diagnostic::new(e.code(), e.to_string());
                        self.refuse(after_end, d.at(span).ply(ply), raw, out);
                        return None;
                    }
                }
            }
        };
        if let Some(d) = after_end.take() {
            out.push(Check::Replay, d.with_move(m.to_usi()).written(raw));
        }
        // One pass: the checks of `check_move`, then the move is played unless it cannot be.
        let foul = if self.sound && self.pos.play_if_legal(m) {
            false
        } else {
            let played = self.pos.play_checked(m);
            match played {
                Ok((_, None)) => false,
                Err(ill) | Ok((_, Some(ill))) => {
                    let code = Code::from(ill);
                    let d = Diagnostic::new(code, rule_message(code, mover))
                        .at(span)
                        .ply(ply)
                        .with_move(m.to_usi())
                        .written(raw);
                    out.push(Check::Replay, d);
                    // A move that cannot be carried out ends the line; any other is played.
                    if played.is_err() {
                        self.cut_here();
                        return Some(m);
                    }
                    self.fouls.push(Foul {
                        ply,
                        by: mover,
                        at: span,
                        code,
                    });
                    self.sound = !self.pos.king_attacked(self.pos.turn().flip());
                    true
                }
            }
        };
        if self.keeps_moves {
            self.played.push(m);
        }
        let gives_check = self.pos.in_check();
        if self.over.is_some() {
            // The game is over: keep the history (for variations from later plies) but skip
            // the repetition outcome, which nothing reads now.
            self.history.push_quiet(&self.pos, gives_check);
            return Some(m);
        }
        let repetition = self.history.push_with_check(&self.pos, gives_check);
        if gives_check && !foul && !self.pos.has_legal_move() {
            self.over = Some(Over::Mate(self.pos.turn()));
            self.over_at = Some(ply);
        } else if let Some(outcome) = repetition {
            let rep = Over::repetition(outcome);
            self.over = Some(rep);
            self.over_at = Some(ply);
            self.repetition_at_end = Some(rep);
        }
        Some(m)
    }

    /// A move written `raw` that names no move the side to move can make: the finding that the
    /// game was over before it (if due), its own finding `d`, and the line cut there.
    fn refuse(&mut self, over: Option<Diagnostic>, d: Diagnostic, raw: &str, out: &mut Findings) {
        if let Some(over) = over {
            out.push(Check::Replay, over.with_move(raw).written(raw));
        }
        out.push(Check::Replay, d.with_move(raw).written(raw));
        self.cut_here();
    }

    /// The move being played cannot be: the replay stops at its node, and the line has no
    /// final position.
    fn cut_here(&mut self) {
        self.stop = Some(self.nodes.saturating_sub(1));
        self.cut = true;
    }

    /// A variation of the node at ply `ply` of this line, if this line holds that node: it
    /// starts from the position before the node (when the replay reached it), counts its
    /// numbers on from the node's, and is over where this line was before the node.
    pub(super) fn branch(&self, ply: u32) -> Option<Line> {
        let i = ply.checked_sub(self.first_ply)?;
        if i >= self.nodes || !self.keeps_moves {
            return None;
        }
        let (pos, history, replayed) = match self.stop {
            Some(s) if i > s || self.no_board => {
                (Position::startpos(), RepetitionTracker::default(), false)
            }
            _ => {
                let mut pos = self.start.clone().unwrap_or_else(|| even().clone());
                let mut history = self.history.clone();
                let played = self.played.get(..i as usize).unwrap_or(&self.played);
                for &m in played {
                    // Every move kept was played on this line: it can be carried out.
                    let _ = pos.play_unchecked(m);
                }
                let keep = self.base + played.len();
                while history.len() > keep {
                    history.pop();
                }
                (pos, history, true)
            }
        };
        let mut line = Line::new(pos, history, ply);
        if !replayed {
            line.without_board();
        }
        line.variation = self.variation.clone();
        line.variation.push(ply);
        line.first_number = self.counted(i);
        line.ended = match &self.ended {
            Some((at, text)) if *at < i => Some((0, text.clone())),
            _ => None,
        };
        if self.after_stop.is_some_and(|t| i > t) {
            // The moves after the first one written after the ending are not looked at.
            line.after_stop = Some(0);
        }
        Some(line)
    }

    /// What the line showed at its end.
    pub(super) fn end(&mut self) -> LineEnd {
        self.settle_check();
        LineEnd {
            pos: (!self.cut).then(|| self.pos.clone()),
            over: if self.cut { None } else { self.over },
            over_at: if self.cut { None } else { self.over_at },
            fouls: std::mem::take(&mut self.fouls),
            repetition_at_end: if self.cut {
                None
            } else {
                self.repetition_at_end
            },
        }
    }
}

/// A sentence for a rule violation by `mover`.
fn rule_message(code: Code, mover: Color) -> String {
    let who = side(mover);
    match code {
        Code::Nifu => format!(
            "{who} drops a pawn on a file that already holds an unpromoted {who} pawn (二歩)"
        ),
        Code::Uchifuzume => {
            format!("{who} drops a pawn that gives immediate checkmate (打ち歩詰め)")
        }
        Code::DeadPiece => {
            "the piece is left where it could never move again (行き所のない駒)".to_owned()
        }
        Code::SelfCheck => format!("the move leaves {who}'s own king in check"),
        Code::BadPromotion => "the piece cannot promote on this move".to_owned(),
        Code::NoPiece => format!("the source square holds no {who} piece"),
        Code::Unreachable => "the piece cannot move that way".to_owned(),
        Code::Blocked => "a piece stands in the way".to_owned(),
        Code::CaptureOwn => format!("the destination holds one of {who}'s own pieces"),
        Code::DropOccupied => "the drop square is occupied".to_owned(),
        Code::NotInHand => format!("{who} does not hold that piece in hand"),
        other => other.as_str().to_owned(),
    }
}

/// `Black` or `White`, for messages.
pub(super) fn side(c: Color) -> &'static str {
    match c {
        Color::Black => "Black",
        Color::White => "White",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::Setup;
    use crate::formats::Format;
    use crate::record::{
        Footer, MoveNode, NodeKind, Record, Span, Special, SpecialKind, StartPosition,
    };
    use crate::validate::{Options, replay as run};

    fn node(usi: &str, line: u32) -> MoveNode {
        let m = Move::from_usi(usi).expect("usi");
        let text = WrittenMove::whole(m, usi).to_text();
        MoveNode::new(
            NodeKind::Move {
                text,
                resolved: Some(m),
            },
            Span::new(line, 1),
        )
    }

    fn record(sfen: Option<&str>, moves: &[&str], end: Option<SpecialKind>) -> Record {
        let mut r = Record::default();
        if let Some(s) = sfen {
            r.start = StartPosition::Setup(Box::new(Setup::from_sfen(s).expect("sfen")));
        }
        for (i, m) in moves.iter().enumerate() {
            r.moves.push(node(m, i as u32 + 1));
        }
        if let Some(kind) = end {
            r.moves.push(MoveNode::new(
                NodeKind::Special(Special {
                    kind,
                    text: format!("{kind:?}"),
                    side: None,
                }),
                Span::new(moves.len() as u32 + 1, 1),
            ));
        }
        r
    }

    fn codes(r: &mut Record) -> Vec<&'static str> {
        let rep = run(r, &Options::default());
        rep.diagnostics.iter().map(|d| d.code.as_str()).collect()
    }

    #[test]
    fn legal_game_is_clean_and_resolved() {
        let mut r = record(
            None,
            &["7g7f", "3c3d", "8h2b+", "3a2b"],
            Some(SpecialKind::Resign),
        );
        assert!(codes(&mut r).is_empty());
        assert!(r.moves[..4].iter().all(|n| n.resolved().is_some()));
    }

    #[test]
    fn nifu_is_found_and_replay_goes_on() {
        let moves = [
            "2g2f", "8c8d", "2f2e", "8d8e", "2e2d", "2c2d", "2h2d", "8e8f", "P*7d", "8f8g+", "9g9f",
        ];
        let mut r = record(None, &moves, None);
        let rep = run(&mut r, &Options::default());
        let c: Vec<_> = rep
            .diagnostics
            .iter()
            .map(|d| (d.code.as_str(), d.ply, d.line))
            .collect();
        assert_eq!(c, vec![("nifu", Some(9), Some(9))]);
        assert_eq!(rep.diagnostics[0].mv.as_deref(), Some("P*7d"));
        // 8f8g+ (ply 10) captured a pawn after the foul: it was replayed, so 9g9f is legal.
    }

    #[test]
    fn unplayable_move_stops_the_line() {
        let mut r = record(None, &["7g7f", "7f7e", "7e7d", "3c3d"], None);
        // 7f7e is White's move from an empty square: no-piece; then nothing more is checked.
        assert_eq!(codes(&mut r), vec!["no-piece"]);
    }

    #[test]
    fn mate_claims_are_checked() {
        let sfen = "4k4/9/4P4/9/9/9/9/9/4K4 b G 1";
        let mut ok = record(Some(sfen), &["G*5b"], Some(SpecialKind::Mate));
        assert!(codes(&mut ok).is_empty());
        let mut bad = record(Some(sfen), &["G*4b"], Some(SpecialKind::Mate));
        assert_eq!(codes(&mut bad), vec!["result-mismatch"]);
        let mut after = record(Some(sfen), &["G*5b", "5a4a"], None);
        assert_eq!(codes(&mut after), vec!["move-after-end", "self-check"]);
        // Resigning a mated game in the mated side's favour contradicts the board.
        let mut wrong = record(Some(sfen), &["G*5b"], Some(SpecialKind::DefaultWin));
        assert_eq!(codes(&mut wrong), vec!["result-mismatch"]);
    }

    #[test]
    fn repetition_needs_four_occurrences() {
        let cycle = ["5i5h", "5a5b", "5h5i", "5b5a"];
        let twelve: Vec<&str> = cycle.iter().cycle().take(12).copied().collect();
        let mut ok = record(None, &twelve, Some(SpecialKind::Repetition));
        assert!(codes(&mut ok).is_empty());
        let mut early = record(None, &twelve[..8], Some(SpecialKind::Repetition));
        assert_eq!(codes(&mut early), vec!["result-mismatch"]);
        let thirteen: Vec<&str> = cycle.iter().cycle().take(13).copied().collect();
        let mut after = record(None, &thirteen, None);
        assert_eq!(codes(&mut after), vec!["move-after-end"]);
    }

    #[test]
    fn perpetual_check_scored_as_draw_is_a_mismatch() {
        // Black's rook checks on file 1 and file 2 in turn; White's king steps between 1b
        // and 2b. The start position comes back every four plies, the fourth time at ply 12.
        let sfen = "9/8k/9/9/9/9/9/9/K6R1 b - 1";
        let cycle = ["2i1i", "1b2b", "1i2i", "2b1b"];
        let moves: Vec<&str> = cycle.iter().cycle().take(12).copied().collect();
        let mut r = record(Some(sfen), &moves, Some(SpecialKind::Repetition));
        let rep = run(&mut r, &Options::default());
        let c: Vec<_> = rep.diagnostics.iter().map(|d| d.code.as_str()).collect();
        assert_eq!(c, vec!["result-mismatch"], "{:?}", rep.diagnostics);
        assert!(
            rep.diagnostics[0].message.contains("perpetual"),
            "{}",
            rep.diagnostics[0].message
        );
    }

    #[test]
    fn footer_must_agree() {
        let mut r = record(None, &["7g7f", "3c3d"], Some(SpecialKind::Resign));
        r.footer = Some(Footer {
            text: "まで3手で後手の勝ち".into(),
            plies: Some(3),
            winner: Some(Color::White),
            kind: None,
            span: Span::new(4, 1),
        });
        // 3 ≠ 2 moves, and Black to move resigns, so White wins: only the count is wrong.
        assert_eq!(codes(&mut r), vec!["result-mismatch"]);
    }

    /// A footer that is the record's only ending (`まで2手で詰み`, as KI2 and some KIF writers
    /// put it) is held to the board like an ending line.
    #[test]
    fn an_ending_stated_only_by_the_footer_is_checked() {
        let footer = |text: &str, plies, kind| Footer {
            text: text.into(),
            plies,
            winner: None,
            kind: Some(kind),
            span: Span::new(9, 1),
        };
        let mut r = record(None, &["7g7f", "3c3d"], None);
        r.footer = Some(footer("まで2手で詰み", Some(2), SpecialKind::Mate));
        let report = run(&mut r, &Options::default());
        let d = &report.diagnostics;
        assert_eq!(d.len(), 1, "{d:?}");
        assert_eq!((d[0].code, d[0].line), (Code::ResultMismatch, Some(9)));
        // A real mate (a gold dropped on 5b, guarded from 5c), stated by the footer alone.
        let sfen = "4k4/9/4G4/9/9/9/9/9/4K4 b G 1";
        let mut mate = record(Some(sfen), &["G*5b"], None);
        mate.footer = Some(footer("まで1手で詰み", Some(1), SpecialKind::Mate));
        assert!(codes(&mut mate).is_empty());
        // Without a move count, too; and a repetition that never happened is found.
        mate.footer = Some(footer("まで詰み", None, SpecialKind::Mate));
        assert!(codes(&mut mate).is_empty());
        mate.footer = Some(footer("まで千日手", None, SpecialKind::Repetition));
        let report = run(&mut mate, &Options::default());
        assert!(
            report
                .diagnostics
                .iter()
                .any(|d| d.message.contains("without a fourfold repetition")),
            "{:?}",
            report.diagnostics
        );
        // A footer counting other moves is judged by its count only.
        let mut other = record(None, &["7g7f", "3c3d"], None);
        other.footer = Some(footer("まで5手で詰み", Some(5), SpecialKind::Mate));
        let report = run(&mut other, &Options::default());
        let d = &report.diagnostics;
        assert_eq!(d.len(), 1, "{d:?}");
        assert!(
            d[0].message.contains("the footer says 5 moves"),
            "{}",
            d[0].message
        );
    }

    /// KIF tells variations after the main line: each starts from the position before the
    /// move it replaces (a bishop exchange legal only after ７六歩 and ３四歩 is clean, a move
    /// from an empty square is `no-piece` in that variation), and is judged as it is read.
    #[test]
    fn a_variation_told_after_its_line_starts_where_it_branches() {
        let text = "手合割：平手\n手数----指手---------消費時間--\n   1 ７六歩(77)\n   2 ３四歩(33)\n   3 ２六歩(27)\n   4 ８四歩(83)\n   5 投了\n\n変化：3手\n   3 ２二角成(88)\n   4 同　銀(31)\n\n変化：3手\n   3 ５五歩(56)\n   4 ８四歩(83)\n";
        let opts = Options::default();
        let mut reports = Vec::new();
        let judged = crate::validate::judge::kif_games::<()>(
            crate::formats::kakinoki::Dialect::Kif,
            text,
            &opts,
            |g| reports.push(g.report),
        );
        assert_eq!(judged, 1, "judged as it is read");
        let d = &reports[0].diagnostics;
        assert_eq!(d.len(), 1, "{d:?}");
        assert_eq!(
            (d[0].code, d[0].line, d[0].ply, &*d[0].variation),
            (Code::NoPiece, Some(14), Some(3), &[3][..]),
            "{d:?}"
        );
    }

    /// A variation of a variation counts its move numbers on from the number its parent's
    /// node carries there, not from the ply; a start that cannot be set up replays no line,
    /// variations included.
    #[test]
    fn variations_count_on_from_their_parents_numbers() {
        let text = "手合割：平手\n手数----指手---------消費時間--\n   2 ３四歩(33)\n   3 ７六歩(77)\n\n変化：2手\n   2 ８四歩(83)\n   3 ２五歩(26)\n\n変化：3手\n   3 ７六歩(77)\n";
        let r = &crate::validate::validate_text(Format::Kif, text, &Options::default())[0];
        let numbers: Vec<_> = r
            .diagnostics
            .iter()
            .filter(|d| d.code == Code::MoveNumber)
            .map(|d| d.line)
            .collect();
        assert_eq!(numbers, vec![Some(3)], "{:?}", r.diagnostics);
        // White holds five golds: no board can be set up, and neither line is replayed (the
        // variation's move from an empty square is not looked at).
        let board = "後手の持駒：金五\n  ９ ８ ７ ６ ５ ４ ３ ２ １\n+---------------------------+\n|v香v桂v銀v金v玉v金v銀v桂v香|一\n| ・v飛 ・ ・ ・ ・ ・v角 ・|二\n|v歩v歩v歩v歩v歩v歩v歩v歩v歩|三\n| ・ ・ ・ ・ ・ ・ ・ ・ ・|四\n| ・ ・ ・ ・ ・ ・ ・ ・ ・|五\n| ・ ・ ・ ・ ・ ・ ・ ・ ・|六\n| 歩 歩 歩 歩 歩 歩 歩 歩 歩|七\n| ・ 角 ・ ・ ・ ・ ・ 飛 ・|八\n| 香 桂 銀 金 玉 金 銀 桂 香|九\n+---------------------------+\n先手の持駒：なし\n";
        let moves = "手数----指手---------消費時間--\n   1 ７六歩(77)\n   2 ３四歩(33)\n\n変化：1手\n   1 ５五歩(56)\n";
        let text = format!("{board}{moves}");
        let r = &crate::validate::validate_text(Format::Kif, &text, &Options::default())[0];
        let codes: Vec<_> = r.diagnostics.iter().map(|d| d.code).collect();
        assert_eq!(codes, vec![Code::BadPosition], "{:?}", r.diagnostics);
        // The same variation from a board that can be set up is replayed.
        let text = format!("{}{moves}", board.replace("金五", "なし"));
        let r = &crate::validate::validate_text(Format::Kif, &text, &Options::default())[0];
        let codes: Vec<_> = r.diagnostics.iter().map(|d| d.code).collect();
        assert_eq!(codes, vec![Code::NoPiece], "{:?}", r.diagnostics);
    }

    #[test]
    fn bad_start_is_reported() {
        let mut r = record(Some("4k4/9/9/9/9/9/9/9/K3K4 b - 1"), &[], None);
        assert_eq!(codes(&mut r), vec!["bad-position"]);
    }

    #[test]
    fn declaration_is_checked() {
        let mut r = record(None, &[], Some(SpecialKind::Declaration));
        assert_eq!(codes(&mut r), vec!["result-mismatch"]);
        // Black's king in camp with ten pieces there: 18 points on the board + 10 in hand.
        let sfen = "GGGG1SSSS/R3K3B/9/9/9/9/9/9/4k4 b RB 1";
        let mut ok = record(Some(sfen), &[], Some(SpecialKind::Declaration));
        assert!(codes(&mut ok).is_empty());
        // Under a 24-point declaration rule, 28 points only draw.
        let mut jsa = record(Some(sfen), &[], Some(SpecialKind::Declaration));
        jsa.header.push("$JISHOGI", "24", Span::default());
        assert_eq!(codes(&mut jsa), vec!["result-mismatch"]);
    }
}
