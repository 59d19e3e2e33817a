//! The replay proper: every line of a record through [`Position`], move by move (through
//! the record's one walker, [`walk`]); the recorded result is then held against the final
//! position by [`super::ending`].

use crate::core::{Color, Position, RepetitionOutcome, RepetitionTracker};
use crate::diag::{Code, Diagnostic};
use crate::record::walk::{self, Step};
use crate::record::{MoveNode, NodeKind, Record, Span};

use super::{Options, Report};

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
    /// The final position, unless the line was stopped by a move that cannot be played.
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

pub(super) fn replay(
    record: &mut Record,
    opts: &Options,
    unread: Option<u32>,
    report: &mut Report,
) {
    let setup = record.start.to_setup();
    let pos = match Position::from_setup(&setup) {
        Ok(p) => p,
        Err(e) => match Position::from_setup_relaxed(&setup) {
            // A problem (tsume) position without the defender's or attacker's king is fine.
            Ok(p) if matches!(e, crate::core::SetupError::MissingKing(_)) => p,
            relaxed => {
                // Past a missing king (tsume), the relaxed check names the real problem.
                let reason = relaxed.err().unwrap_or(e);
                report.push(Diagnostic::new(
                    Code::BadPosition,
                    format!("impossible start position: {reason}"),
                ));
                // Still check the moves when the engine can represent the position.
                match Position::from_setup_lenient(&setup) {
                    Ok(p) => p,
                    Err(_) => return,
                }
            }
        },
    };
    let mut history = RepetitionTracker::new(&pos);
    history.reserve(record.moves.len());
    let mut line = Line::new(pos, history);
    line.unread = unread;
    let end = walk::walk_mut(&mut record.moves, 1, line, &mut Replayer { report }).end();
    super::ending::verify_result(record, opts, &end, report);
}

/// `move-after-end` for the first move recorded after an ending (`%TORYO`, `投了`, a JKF
/// special) in each line: the game was over, and the rules replay stops at the ending.
pub(super) fn moves_after_endings(record: &Record, report: &mut Report) {
    struct After<'r> {
        report: &'r mut Report,
    }
    impl walk::Visit for After<'_> {
        /// The ending met on this line so far, as written.
        type State = Option<String>;

        fn branch(&mut self, _: &MoveNode, _: u32, ended: &Option<String>) -> Option<String> {
            ended.clone()
        }

        fn node(&mut self, node: &MoveNode, ply: u32, ended: &mut Option<String>) -> Step {
            match (&node.kind, ended.as_deref()) {
                (NodeKind::Special(s), None) => *ended = Some(s.text.clone()),
                (NodeKind::Move { text, .. }, Some(end)) => {
                    let d = Diagnostic::new(
                        Code::MoveAfterEnd,
                        format!("move recorded after the game was over: it ended with {end}"),
                    )
                    .at(node.span)
                    .ply(ply)
                    .with_move(text.raw.as_str());
                    self.report.push_move(d, &text.raw);
                    return Step::Stop;
                }
                _ => {}
            }
            Step::Continue
        }
    }
    walk::walk(&record.moves, 1, None, &mut After { report });
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

/// The rules replay of one line, as [`walk`] hands it over node by node: the position before
/// the next node, the repetition history, and what the line has shown so far.
struct Line {
    pos: Position,
    history: RepetitionTracker,
    /// Whether the game was already over on the board.
    over: Option<Over>,
    /// The ply of the move that ended it.
    over_at: Option<u32>,
    /// Whether `move-after-end` was reported on this line.
    reported_after_end: bool,
    /// The moves with a rule violation, in order.
    fouls: Vec<Foul>,
    /// Whether the last move reached a fourfold repetition.
    repetition_at_end: Option<Over>,
    /// Whether the side not to move is safe from check (true from a legal position until a
    /// rule-breaking move is played through): then a legal move is played by the quick
    /// `play_if_legal`, and only a refused one is looked at again by `play_checked`.
    sound: bool,
    /// Whether a move that cannot be played stopped the line.
    stopped: bool,
    /// The ply of a move the reader could not read (main line only): the line stops there.
    unread: Option<u32>,
    /// Where the line branches off, outermost first: the ply each variation replaces (empty
    /// for the main line).
    variation: Vec<u32>,
}

impl Line {
    /// A line from `pos` (the position before its first node).
    fn new(pos: Position, history: RepetitionTracker) -> Line {
        let sound = !pos.king_attacked(pos.turn().flip());
        Line {
            pos,
            history,
            over: None,
            over_at: None,
            reported_after_end: false,
            fouls: Vec::new(),
            repetition_at_end: None,
            sound,
            stopped: false,
            unread: None,
            variation: Vec::new(),
        }
    }

    /// What the line showed at its end.
    fn end(self) -> LineEnd {
        if self.stopped {
            return LineEnd {
                pos: None,
                over: None,
                over_at: None,
                fouls: self.fouls,
                repetition_at_end: None,
            };
        }
        LineEnd {
            pos: Some(self.pos),
            over: self.over,
            over_at: self.over_at,
            fouls: self.fouls,
            repetition_at_end: self.repetition_at_end,
        }
    }
}

/// Replays every line of a tree into one report; a variation starts afresh from the position
/// and history before the move it replaces.
struct Replayer<'r> {
    report: &'r mut Report,
}

impl walk::VisitMut for Replayer<'_> {
    type State = Line;

    fn branch(&mut self, _: &MoveNode, ply: u32, line: &Line) -> Line {
        let mut branch = Line::new(line.pos.clone(), line.history.clone());
        branch.variation = line.variation.clone();
        branch.variation.push(ply);
        branch
    }

    /// The move at `ply`; the findings about a move of a variation say so.
    fn node(&mut self, node: &mut MoveNode, ply: u32, line: &mut Line) -> Step {
        let before = self.report.diagnostics.len();
        let step = self.play(node, ply, line);
        if !line.variation.is_empty() {
            for d in self.report.diagnostics.iter_mut().skip(before) {
                d.in_variation(&line.variation);
            }
        }
        step
    }
}

impl Replayer<'_> {
    fn play(&mut self, node: &mut MoveNode, ply: u32, line: &mut Line) -> Step {
        let span = node.span;
        let NodeKind::Move { text, resolved } = &mut node.kind else {
            // A special ends the line.
            return Step::Stop;
        };
        if line.unread == Some(ply) {
            line.stopped = true;
            return Step::Stop;
        }
        line.repetition_at_end = None;
        // Reported once per line, with the move as USI once it is resolved.
        let mut after_end = line.over.filter(|_| !line.reported_after_end).map(|o| {
            line.reported_after_end = true;
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
        let mover = line.pos.turn();
        if let Some(c) = text.color
            && c != mover
        {
            if let Some(d) = after_end.take() {
                self.report
                    .push_move(d.with_move(text.raw.as_str()), &text.raw);
            }
            let d = Diagnostic::new(
                Code::WrongTurn,
                format!(
                    "move recorded for {} but {} is to move",
                    side(c),
                    side(mover)
                ),
            )
            .at(span)
            .ply(ply)
            .with_move(text.raw.as_str());
            self.report.push_move(d, &text.raw);
            line.stopped = true;
            return Step::Stop;
        }
        let mv = match *resolved {
            Some(m) => m,
            None => match crate::record::resolve::resolve_move(&line.pos, text) {
                Ok(m) => {
                    *resolved = Some(m);
                    m
                }
                Err(e) => {
                    if let Some(d) = after_end.take() {
                        self.report
                            .push_move(d.with_move(text.raw.as_str()), &text.raw);
                    }
                    let d = Diagnostic::new(e.code(), e.to_string())
                        .at(span)
                        .ply(ply)
                        .with_move(text.raw.as_str());
                    self.report.push_move(d, &text.raw);
                    line.stopped = true;
                    return Step::Stop;
                }
            },
        };
        if let Some(d) = after_end.take() {
            self.report.push_move(d.with_move(mv.to_usi()), &text.raw);
        }
        // One pass: the checks of `check_move`, then the move is played unless it cannot be.
        let foul = if line.sound && line.pos.play_if_legal(mv) {
            false
        } else {
            let played = line.pos.play_checked(mv);
            match played {
                Ok((_, None)) => false,
                Err(ill) | Ok((_, Some(ill))) => {
                    let code = Code::from(ill);
                    let d = Diagnostic::new(code, rule_message(code, mover))
                        .at(span)
                        .ply(ply)
                        .with_move(mv.to_usi());
                    self.report.push_move(d, &text.raw);
                    // A move that cannot be carried out ends the line; any other is played.
                    if played.is_err() {
                        line.stopped = true;
                        return Step::Stop;
                    }
                    line.fouls.push(Foul {
                        ply,
                        by: mover,
                        at: span,
                        code,
                    });
                    line.sound = !line.pos.king_attacked(line.pos.turn().flip());
                    true
                }
            }
        };
        let gives_check = line.pos.in_check();
        if line.over.is_some() {
            // The game is over: keep the history (for variations from later plies) but skip
            // the repetition outcome, which nothing reads now.
            line.history.push_quiet(&line.pos, gives_check);
            return Step::Continue;
        }
        let repetition = line.history.push_with_check(&line.pos, gives_check);
        if line.over.is_none() {
            if gives_check && !foul && !line.pos.has_legal_move() {
                line.over = Some(Over::Mate(line.pos.turn()));
                line.over_at = Some(ply);
            } else if let Some(outcome) = repetition {
                let rep = Over::repetition(outcome);
                line.over = Some(rep);
                line.over_at = Some(ply);
                line.repetition_at_end = Some(rep);
            }
        }
        Step::Continue
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
    use crate::core::{Move, Setup};
    use crate::record::{
        Footer, MoveNode, MoveText, RawText, Source, Span, Special, SpecialKind, StartPosition,
    };
    use crate::validate::{Options, replay as run};

    fn node(usi: &str, line: u32) -> MoveNode {
        let m = Move::from_usi(usi).expect("usi");
        let text = MoveText {
            color: None,
            from: match m {
                Move::Normal { from, .. } => Source::Square(from),
                Move::Drop { .. } => Source::Drop,
            },
            to: m.to(),
            same: false,
            piece: None,
            promote: Some(m.is_promotion()),
            relative: Default::default(),
            raw: RawText::from(usi),
        };
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
