//! The recorded result held against the board: how the main line ended on the board (mate,
//! repetition, fouls), the special or footer that ends it, entering-king declarations under
//! the 24- or 27-point rule; every contradiction is a `result-mismatch` (or a finer code).

use crate::core::{Color, DeclarationOutcome, DeclarationRule, Position};
use crate::diag::{Code, Diagnostic};
use crate::record::{Footer, Record, Span, Special, SpecialKind};

use super::replay::{LineEnd, Over, side};
use super::result::{Winner, side_to_move_at_end};
use super::{Options, Report};

/// Whether the side to move's entering-king declaration wins under the `points` rule (24:
/// the 24-point declaration, where 24 to 30 points only draw; anything else: the 27-point rule).
fn declaration_holds(pos: &Position, points: u32) -> Result<(), String> {
    let rule = if points == 24 {
        DeclarationRule::Jsa24
    } else {
        DeclarationRule::Csa27
    };
    match pos.declare(rule) {
        Ok(d) if d.outcome == DeclarationOutcome::Win => Ok(()),
        Ok(d) => Err(format!(
            "{} points only draw under the {points}-point rule",
            d.points
        )),
        Err(e) => Err(e.to_string()),
    }
}

/// The declaration rule's points: the header (`$JISHOGI`, `持将棋`, `入玉宣言`), else the option,
/// else 27.
fn declaration_points(record: &Record, opts: &Options) -> u32 {
    for key in ["$JISHOGI", "持将棋", "入玉宣言", "入玉"] {
        if let Some(v) = record.header.get(key) {
            let digits: String = v.chars().filter(char::is_ascii_digit).collect();
            if let Ok(n) = digits.parse::<u32>() {
                return n;
            }
        }
    }
    opts.declaration_points.unwrap_or(27)
}

fn mismatch(report: &mut Report, msg: String, span: crate::record::Span, ply: Option<u32>) {
    let mut d = Diagnostic::new(Code::ResultMismatch, msg).at(span);
    d.ply = ply;
    report.push(d);
}

/// What the result check needs to know about a record's main line, apart from the board.
pub(super) struct Ending<'a> {
    /// Moves of the main line.
    pub(super) plies: u32,
    /// The side to move after them.
    pub(super) to_move: Color,
    /// Where the main line's last node (move or special) was read.
    pub(super) span: Span,
    /// The special that ends the main line, if any.
    pub(super) special: Option<&'a Special>,
    /// Specials in the main line.
    pub(super) specials: u32,
    /// The footer, if any.
    pub(super) footer: Option<&'a Footer>,
    /// The declaration rule's points.
    pub(super) declaration_points: u32,
}

impl<'a> Ending<'a> {
    fn of(record: &'a Record, opts: &Options) -> Ending<'a> {
        Ending {
            plies: record.plies(),
            to_move: side_to_move_at_end(record),
            span: record.moves.last().map(|n| n.span).unwrap_or_default(),
            special: record.end(),
            // Only read for a footer that counts moves, and for a declaration.
            specials: match &record.footer {
                Some(f) if f.plies.is_some() => record
                    .moves
                    .iter()
                    .filter(|n| n.special().is_some())
                    .count() as u32,
                _ => 0,
            },
            footer: record.footer.as_ref(),
            declaration_points: match record.end() {
                Some(s) if s.kind == SpecialKind::Declaration => declaration_points(record, opts),
                _ => 0,
            },
        }
    }
}

pub(super) fn verify_result(record: &Record, opts: &Options, end: &LineEnd, report: &mut Report) {
    if end.pos.is_none() {
        return;
    }
    // `footer_ending` is `None` when the line has an ending of its own.
    let stated = record.footer_ending();
    let mut e = Ending::of(record, opts);
    if let (Some(s), Some(f)) = (&stated, &record.footer) {
        // The footer is the record's only word on how it ended (`まで64手で詰み`): it is
        // held to the board as an ending line would be, as it is when KI2 reads the same
        // line as its ending.
        e.special = Some(s);
        e.span = f.span;
        if s.kind == SpecialKind::Declaration {
            e.declaration_points = declaration_points(record, opts);
        }
    }
    verify_ending(&e, end, report);
}

/// Checks the recorded result of a line that was replayed to its end against the board.
pub(super) fn verify_ending(e: &Ending<'_>, end: &LineEnd, report: &mut Report) {
    let Some(pos) = &end.pos else {
        // The main line was cut short by a move that cannot be played: nothing to verify.
        return;
    };
    let plies = e.plies;
    let to_move = e.to_move;
    let special = e.special;
    let span = e.span;
    let special_ply = special.map(|_| plies.saturating_add(1));
    let recorded_winner = report.result.winner;
    if let Some(s) = special {
        match s.kind {
            SpecialKind::Mate if end.over != Some(Over::Mate(to_move)) => {
                mismatch(
                    report,
                    format!(
                        "{} recorded but {} is not checkmated",
                        s.text,
                        side(to_move)
                    ),
                    span,
                    special_ply,
                );
            }
            SpecialKind::Repetition => match end.repetition_at_end {
                None => mismatch(
                    report,
                    format!("{} recorded without a fourfold repetition", s.text),
                    span,
                    special_ply,
                ),
                Some(Over::Repetition {
                    perpetual: Some(checker),
                }) => mismatch(
                    report,
                    format!(
                        "{} recorded as a draw, but {} gave check on every move of the repetition (perpetual check loses)",
                        s.text,
                        side(checker)
                    ),
                    span,
                    special_ply,
                ),
                Some(_) => {}
            },
            SpecialKind::Declaration => {
                let points = e.declaration_points;
                if let Err(why) = declaration_holds(pos, points) {
                    mismatch(
                        report,
                        format!("{} recorded but the declaration fails: {why}", s.text),
                        span,
                        special_ply,
                    );
                }
            }
            SpecialKind::IllegalWin | SpecialKind::IllegalAction(_) => {
                let offender = match s.kind {
                    SpecialKind::IllegalAction(c) => c,
                    _ => s.side.map(Color::flip).unwrap_or(to_move).flip(),
                };
                if !end.fouls.iter().any(|&(_, c)| c == offender) {
                    mismatch(
                        report,
                        format!(
                            "{} recorded but no move by {} breaks a rule",
                            s.text,
                            side(offender)
                        ),
                        span,
                        special_ply,
                    );
                }
            }
            SpecialKind::IllegalMove => {
                if let Some(loser) = s.side {
                    if loser != to_move && !end.fouls.iter().any(|&(_, c)| c == loser) {
                        mismatch(
                            report,
                            format!(
                                "{} recorded but no move by {} breaks a rule",
                                s.text,
                                side(loser)
                            ),
                            span,
                            special_ply,
                        );
                    }
                }
            }
            _ => {}
        }
    }
    // A game over on the board fixes the winner.
    match end.over {
        Some(Over::Mate(mated)) => {
            if let Some(w) = recorded_winner {
                if w != Winner::of(mated.flip()) {
                    mismatch(
                        report,
                        format!(
                            "{} is checkmated but the record gives the game to {}",
                            side(mated),
                            w.as_str()
                        ),
                        span,
                        special_ply,
                    );
                }
            }
        }
        Some(Over::Repetition {
            perpetual: Some(checker),
        }) if special.is_none_or(|s| s.kind != SpecialKind::Repetition)
            && recorded_winner.is_some_and(|w| w != Winner::of(checker.flip())) =>
        {
            mismatch(
                report,
                format!(
                    "perpetual check by {} must lose, but the record says {}",
                    side(checker),
                    recorded_winner.map(Winner::as_str).unwrap_or("?")
                ),
                span,
                special_ply,
            );
        }
        _ => {}
    }
    // The footer must agree with the moves and the result.
    if let Some(footer) = e.footer {
        if let Some(n) = footer.plies {
            // Writers count differently after a foul (the illegal move itself, not recorded,
            // is counted) or when specials follow each other (`投了` then `中断`).
            let specials = e.specials;
            let foul_end = special.is_some_and(|s| {
                matches!(
                    s.kind,
                    SpecialKind::IllegalMove
                        | SpecialKind::IllegalWin
                        | SpecialKind::IllegalAction(_)
                )
            });
            let max = plies + specials.saturating_sub(1) + u32::from(foul_end);
            if n < plies || n > max {
                mismatch(
                    report,
                    format!("the footer says {n} moves but the record has {plies}"),
                    footer.span,
                    None,
                );
            }
        }
        if let (Some(fw), Some(s)) = (footer.winner, special) {
            let w = super::result::winner_of(s, to_move);
            if w.is_some_and(|w| w != Winner::of(fw)) {
                mismatch(
                    report,
                    format!(
                        "the footer gives the game to {} but {} means {}",
                        side(fw),
                        s.text,
                        w.map(Winner::as_str).unwrap_or("?")
                    ),
                    footer.span,
                    None,
                );
            }
        }
        // `…の勝ち` alone (read as a resignation) names only the winner, checked above.
        if let (Some(fk), Some(s)) = (footer.kind.filter(|k| *k != SpecialKind::Resign), special) {
            let same_class = |k: SpecialKind| match k {
                SpecialKind::Resign | SpecialKind::Mate => 0,
                SpecialKind::IllegalWin
                | SpecialKind::IllegalMove
                | SpecialKind::IllegalAction(_) => 1,
                _ => 2,
            };
            if fk != s.kind && !(same_class(fk) < 2 && same_class(fk) == same_class(s.kind)) {
                mismatch(
                    report,
                    format!("the footer ({}) disagrees with {}", footer.text, s.text),
                    footer.span,
                    None,
                );
            }
        }
    }
}
