//! The recorded result held against the board: how the main line ended on the board (mate,
//! repetition, fouls), the special or footer that ends it, entering-king declarations under
//! the 24- or 27-point rule; every contradiction is a `result-mismatch` (or a finer code).

use crate::core::{Color, DeclarationOutcome, DeclarationRule, Position};
use crate::diag::{Code, Diagnostic};
use crate::record::{Footer, Span, Special, SpecialKind};

use super::line::{Foul, LineEnd, Over, side};
use super::result::{BoardVerdict, MainLine, Winner, refused_declaration};
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

/// The declaration rule's points: the header's (`$JISHOGI`, `持将棋`, `入玉宣言`), else the
/// option, else 27.
fn declaration_points(stated: Option<(u32, Span)>, opts: &Options) -> u32 {
    stated
        .map(|(n, _)| n)
        .or(opts.declaration_points)
        .unwrap_or(27)
}

/// The header keys that state the declaration rule, the first that does winning.
pub(super) const DECLARATION_KEYS: [&str; 4] = ["$JISHOGI", "持将棋", "入玉宣言", "入玉"];

/// The declaration rule a header entry states: the number its value writes.
pub(super) fn declaration_of(value: &str) -> Option<u32> {
    let digits: String = value.chars().filter(char::is_ascii_digit).collect();
    digits.parse::<u32>().ok()
}

/// A `rule-mismatch` warning for a game ending in a declaration whose header states another
/// rule than the run's (`--declaration`): the header's is applied.
fn declaration_rule_mismatch(stated: Option<(u32, Span)>, opts: &Options, report: &mut Report) {
    if let (Some((stated, at)), Some(given)) = (stated, opts.declaration_points)
        && stated != given
    {
        report.push(
            Diagnostic::new(
                Code::RuleMismatch,
                format!(
                    "the record states the {stated}-point declaration rule, not the \
                     {given}-point rule given for the run: the record's is used"
                ),
            )
            .at(at),
        );
    }
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
    /// The main line's last special when it is not its first (`投了` then `中断`): a footer
    /// may name either.
    pub(super) last_special: Option<&'a Special>,
    /// The footer, if any.
    pub(super) footer: Option<&'a Footer>,
    /// The declaration rule's points.
    pub(super) declaration_points: u32,
}

impl<'a> Ending<'a> {
    fn of(main: &'a MainLine, declaration: Option<(u32, Span)>, opts: &Options) -> Ending<'a> {
        let ending = main.ending.as_ref();
        Ending {
            plies: main.plies,
            to_move: main.to_move(),
            span: ending
                .map(|(_, span)| *span)
                .or(main.last_span)
                .unwrap_or_default(),
            special: ending.map(|(s, _)| s),
            // Only read for a footer that counts moves, and for a declaration.
            specials: match &main.footer {
                Some(f) if f.plies.is_some() => main.specials,
                _ => 0,
            },
            last_special: main.last_special.as_ref(),
            footer: main.footer.as_ref(),
            declaration_points: match ending {
                Some((s, _)) if s.kind == SpecialKind::Declaration => {
                    declaration_points(declaration, opts)
                }
                _ => 0,
            },
        }
    }
}

/// Holds the recorded result of the main line (`main`, with the declaration rule its header
/// states) to how it ended on the board (`end`).
pub(super) fn verify_result(
    main: &MainLine,
    declaration: Option<(u32, Span)>,
    opts: &Options,
    end: &LineEnd,
    report: &mut Report,
) {
    if end.pos.is_none() {
        return;
    }
    // The server's summary stands for a footer in a record without one.
    let summary = &main.summary;
    // `footer_ending` is `None` when the line has an ending of its own.
    let stated = match summary {
        Some(f) if !main.ends_in_special => f.ending(),
        _ => main.footer_ending(),
    };
    let mut e = Ending::of(main, declaration, opts);
    e.footer = main.footer.as_ref().or(summary.as_ref());
    if e.special
        .or(stated.as_ref())
        .is_some_and(|s| s.kind == SpecialKind::Declaration)
    {
        declaration_rule_mismatch(declaration, opts, report);
    }
    let refused = match (e.special, summary) {
        (Some(s), Some(f)) if refused_declaration(s, f, e.to_move) => f.ending(),
        _ => None,
    };
    if let (Some(refused), Some(pos)) = (&refused, &end.pos) {
        // `%KACHI` then `'summary:illegal kachi`: the server refused the declaration, and its
        // verdict is the record's. Held to the board: a declaration that holds is reported.
        let points = declaration_points(declaration, opts);
        if declaration_holds(pos, points).is_ok() {
            mismatch(
                report,
                format!(
                    "{} (the server refused {}'s declaration), but the declaration holds under \
                     the {points}-point rule: by the board, {} wins",
                    refused.text,
                    side(e.to_move),
                    side(e.to_move)
                ),
                e.span,
                None,
            );
        }
        return;
    }
    if let (Some(s), Some(f)) = (&stated, e.footer) {
        // The footer is the record's only word on how it ended (`まで64手で詰み`): it is
        // held to the board as an ending line would be, as it is when KI2 reads the same
        // line as its ending.
        e.special = Some(s);
        e.span = f.span;
        if s.kind == SpecialKind::Declaration {
            e.declaration_points = declaration_points(declaration, opts);
        }
    }
    verify_ending(&e, end, report);
}

/// How a footer is named in a message: the KIF footer line, or shogi-server's summary comment
/// read as one ([`server_summary_footer`](super::result::server_summary_footer)).
fn footer_word(footer: &Footer) -> &'static str {
    if footer.text.starts_with("'summary:") {
        SUMMARY
    } else {
        "the footer"
    }
}

const SUMMARY: &str = "the server's summary";

/// ` at ply N`, or nothing when the ply is not known.
fn at_ply(ply: Option<u32>) -> String {
    ply.map_or(String::new(), |p| format!(" at ply {p}"))
}

/// Why a claimed foul by `offender` (`%-ILLEGAL_ACTION`, `反則負け`...) cannot stand, if the
/// record contradicts it: the game was already over (checkmate, a plain repetition, a
/// perpetual check by the other side), or the other side's foul came first. A claim the
/// record cannot show (a server's verdict on a move it refused and did not log) stands.
fn claim_contradicted(offender: Color, end: &LineEnd, foul_first: bool) -> Option<String> {
    if let Some(Foul { ply, by, .. }) = end.fouls.first().copied().filter(|_| foul_first) {
        return (by != offender).then(|| format!("{} broke a rule first, at ply {ply}", side(by)));
    }
    match end.over? {
        Over::Mate(mated) if mated != offender => Some(format!(
            "the game had ended{}: {} was checkmated",
            at_ply(end.over_at),
            side(mated)
        )),
        Over::Repetition {
            perpetual: Some(checker),
        } if checker != offender => Some(format!(
            "{} gave perpetual check{} and lost",
            side(checker),
            at_ply(end.over_at)
        )),
        Over::Repetition { perpetual: None } => Some(format!(
            "the game had ended in a fourfold repetition (千日手){}",
            at_ply(end.over_at)
        )),
        // A perpetual check is a foul of the checking side; a mated offender lost anyway.
        _ => None,
    }
}

/// What the board decides: the first foul, or how the game ended on the board.
fn by_board(end: &LineEnd, foul_first: bool) -> Option<BoardVerdict> {
    if foul_first {
        let Foul { ply, by, .. } = end.fouls.first().copied()?;
        return Some(BoardVerdict {
            winner: Winner::of(by.flip()),
            by: "foul",
            ply,
        });
    }
    let ply = end.over_at?;
    let (winner, by) = match end.over? {
        Over::Mate(mated) => (Winner::of(mated.flip()), "mate"),
        Over::Repetition { perpetual: None } => (Winner::Draw, "repetition"),
        Over::Repetition {
            perpetual: Some(checker),
        } => (Winner::of(checker.flip()), "perpetual-check"),
    };
    Some(BoardVerdict { winner, by, ply })
}

/// The tokens USI itself writes for endings it has no name for (`0000`, `rep_sup`...): not an
/// unknown ending.
fn is_usi_token(text: &str) -> bool {
    crate::formats::usi::special_of(text) == Some(SpecialKind::Unknown)
}

/// Holds the recorded winner to what ended the game on the board, for every ending that does
/// not name the way it ended (a resignation, a loss on time, an interruption...).
fn board_verdict(
    end: &LineEnd,
    special: Option<&Special>,
    recorded_winner: Option<Winner>,
    foul_first: bool,
    span: Span,
    special_ply: Option<u32>,
    report: &mut Report,
) {
    if foul_first {
        // The first foul lost the game for the side that made it.
        let Some(Foul { ply, by, .. }) = end.fouls.first().copied() else {
            return;
        };
        if let Some(w) = recorded_winner.filter(|&w| w != Winner::of(by.flip())) {
            mismatch(
                report,
                format!(
                    "{}'s foul at ply {ply} lost the game, but the record gives it to {}",
                    side(by),
                    w.as_str()
                ),
                span,
                special_ply,
            );
        }
        return;
    }
    match end.over {
        Some(Over::Mate(mated)) => {
            if let Some(w) = recorded_winner.filter(|&w| w != Winner::of(mated.flip())) {
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
        Some(Over::Repetition {
            perpetual: Some(checker),
        }) if recorded_winner.is_some_and(|w| w != Winner::of(checker.flip())) => {
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
        // A plain repetition reached by the last move is a draw, whatever the record says
        // (moves after it are `move-after-end`, which says it).
        Some(Over::Repetition { perpetual: None }) if end.repetition_at_end.is_some() => {
            if let Some(s) = special {
                mismatch(
                    report,
                    format!(
                        "the game ended in a fourfold repetition (千日手){}, but the record says {}",
                        at_ply(end.over_at),
                        s.text
                    ),
                    span,
                    special_ply,
                );
            }
        }
        _ => {}
    }
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
    // The first thing that ended the game on the board: a checkmate or a fourfold repetition
    // (`over`), or a foul, whichever came first. Every later word of the record is held to it.
    let first_foul = end.fouls.first().copied();
    let foul_first = match (first_foul, end.over_at) {
        (Some(f), Some(o)) => f.ply <= o,
        (Some(_), None) => true,
        _ => false,
    };
    report.result.by_board = by_board(end, foul_first);
    let mut checked = false;
    if let Some(s) = special {
        checked = true;
        match s.kind {
            // A mate given by a foul (a pawn drop, 打ち歩詰め; a move that leaves the mover in
            // check): the board shows mate, but the foul decided the game.
            SpecialKind::Mate if foul_first => {
                if let Some(Foul { ply, by, .. }) = first_foul
                    && recorded_winner.is_some_and(|w| w != Winner::of(by.flip()))
                {
                    mismatch(
                        report,
                        format!(
                            "{} recorded, but the mate came from {}'s foul at ply {ply}, which \
                             lost the game: the record gives it to {}",
                            s.text,
                            side(by),
                            side(by)
                        ),
                        span,
                        special_ply,
                    );
                }
            }
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
            SpecialKind::Repetition => match (end.over, end.repetition_at_end) {
                (Some(Over::Repetition { perpetual: None }), _) => {}
                (
                    Some(Over::Repetition {
                        perpetual: Some(checker),
                    }),
                    Some(_),
                ) => mismatch(
                    report,
                    format!(
                        "{} recorded as a draw, but {} gave check on every move of the repetition (perpetual check loses)",
                        s.text,
                        side(checker)
                    ),
                    span,
                    special_ply,
                ),
                // The repetition came earlier: the moves after it are `move-after-end`.
                (Some(Over::Repetition { .. }), None) => {}
                _ => mismatch(
                    report,
                    format!("{} recorded without a fourfold repetition", s.text),
                    span,
                    special_ply,
                ),
            },
            SpecialKind::PerpetualCheck => match end.over {
                Some(Over::Repetition {
                    perpetual: Some(checker),
                }) => report.result.winner = Some(Winner::of(checker.flip())),
                Some(Over::Repetition { perpetual: None }) => mismatch(
                    report,
                    format!(
                        "{} recorded, but neither side gave check with every move of the repetition",
                        s.text
                    ),
                    span,
                    special_ply,
                ),
                _ => mismatch(
                    report,
                    format!("{} recorded without a fourfold repetition", s.text),
                    span,
                    special_ply,
                ),
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
            SpecialKind::IllegalWin | SpecialKind::IllegalAction(_) | SpecialKind::IllegalMove => {
                let offender = match s.kind {
                    SpecialKind::IllegalAction(c) => c,
                    // `先手 反則勝ち` names the winner; alone, the side to move wins.
                    SpecialKind::IllegalWin => s.side.unwrap_or(to_move).flip(),
                    // `先手 反則負け` names the loser; alone, the side to move loses.
                    _ => s.side.unwrap_or(to_move),
                };
                if let Some(why) = claim_contradicted(offender, end, foul_first) {
                    mismatch(
                        report,
                        format!(
                            "{} recorded (a foul by {}), but {why}",
                            s.text,
                            side(offender)
                        ),
                        span,
                        special_ply,
                    );
                }
            }
            SpecialKind::Unknown if !is_usi_token(&s.text) => {
                let mut d = Diagnostic::new(
                    Code::UnknownEnding,
                    format!(
                        "`{}` is an ending no format defines; the result is unknown",
                        s.text
                    ),
                )
                .at(span);
                d.ply = special_ply;
                report.push(d);
            }
            _ => checked = false,
        }
    }
    // A foul the record scores (its result gives the game to the other side): the foul's
    // error stays, and says so, apart from the fouls a record missed.
    if foul_first
        && let Some(Foul { ply, by, at, code }) = first_foul
        && recorded_winner == Some(Winner::of(by.flip()))
    {
        let line = (at.line > 0).then_some(at.line);
        if let Some(d) = report
            .diagnostics
            .iter_mut()
            .find(|d| d.ply == Some(ply) && d.line == line && d.code == code)
        {
            d.scored = true;
            d.message.push_str(&format!(
                "; the record scores it ({} wins by this foul)",
                side(by.flip())
            ));
        }
    }
    // What ended the game on the board decides it; a record that says otherwise is wrong.
    if !checked {
        board_verdict(
            end,
            special,
            recorded_winner,
            foul_first,
            span,
            special_ply,
            report,
        );
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
                    format!(
                        "{} says {n} moves but the record has {plies}",
                        footer_word(footer)
                    ),
                    footer.span,
                    None,
                );
            }
        }
        if footer_word(footer) == SUMMARY {
            // One finding with both readings: the server's and the `%` line's.
            if let Some(s) = special {
                let said = footer.winner.map_or(Winner::Draw, Winner::of);
                let w = super::result::winner_of(s, to_move);
                let kind_differs = footer.kind.is_some_and(|k| k != s.kind)
                    && e.last_special.is_none_or(|l| footer.kind != Some(l.kind));
                let winner_differs = w.is_some_and(|w| w != said)
                    && (footer.kind.is_some() || footer.winner.is_some());
                if kind_differs || winner_differs {
                    let reading = |w: Option<Winner>| match w {
                        Some(Winner::Draw) => "a draw".to_owned(),
                        Some(Winner::Black) => format!("the game to {}", side(Color::Black)),
                        Some(Winner::White) => format!("the game to {}", side(Color::White)),
                        None => "no winner".to_owned(),
                    };
                    mismatch(
                        report,
                        format!(
                            "the server's summary ({}) gives {}, but {} gives {}",
                            footer.text,
                            reading(Some(said)),
                            s.text,
                            reading(w)
                        ),
                        footer.span,
                        None,
                    );
                }
            }
            return;
        }
        if let (Some(fw), Some(s)) = (footer.winner, special) {
            let w = super::result::winner_of(s, to_move);
            if w.is_some_and(|w| w != Winner::of(fw)) {
                mismatch(
                    report,
                    format!(
                        "{} gives the game to {} but {} means {}",
                        footer_word(footer),
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
            let agrees =
                |k: SpecialKind| fk == k || (same_class(fk) < 2 && same_class(fk) == same_class(k));
            if !agrees(s.kind) && e.last_special.is_none_or(|l| !agrees(l.kind)) {
                mismatch(
                    report,
                    format!(
                        "{} ({}) disagrees with {}",
                        footer_word(footer),
                        footer.text,
                        s.text
                    ),
                    footer.span,
                    None,
                );
            }
        }
    }
}
