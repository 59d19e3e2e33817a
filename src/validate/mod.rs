//! Validation: replay a game through the rules core, verify its recorded result against the
//! board, and report what is wrong as [`Diagnostic`]s.
//!
//! There is one validator, the judge (`judge.rs`): a visitor of the readers that replays each
//! line as its moves are told (`line.rs`; a variation from the position before the move it
//! replaces), follows the main line's times and clock (`clock.rs`), and holds the ending to
//! the board (`ending.rs`). The readers report syntax; the judge reports everything a board
//! can tell (illegal moves, a wrong result, a bad start position) and the checks on move
//! numbers and times. A game read into a record is judged by telling the record to it
//! ([`validate_game`], [`replay`]), which also fills in the resolved move of every move it
//! resolved: what the writers need, so `convert` calls it too.
//!
//! [`validate_text`] is the one entry point for a decoded text: the format's reader tells the
//! judge each game ([`validate_csa`], [`validate_usi`], [`validate_kif`], [`validate_ki2`],
//! [`validate_jkf`], [`validate_usen`]). A game whose telling the judge cannot follow (a
//! reader's finding, which may concern a move told before it; a start told again; a time
//! control stated after the moves) is read into a record by the same reader and judged from
//! it, with the same reports.
//!
//! Layer: above [`crate::formats`] (it reads texts to validate them) and [`crate::record`];
//! below `stats`, `commands`, `convert` and `batch`, which call it.

use crate::diag::Diagnostic;
use crate::formats::Format;
use crate::record::Record;
use serde::Serialize;

mod bytes;
mod clock;
mod digest;
mod ending;
mod findings;
mod judge;
mod line;
pub mod result;

pub use bytes::{TextRead, validate_bytes};
pub use digest::{Digest, Gather, MainMove, digest, gather_bytes, gather_text};
#[cfg(feature = "testing")]
pub use judge::{judged_as_read, judged_as_read_cp932};
pub use judge::{
    validate_csa, validate_jkf, validate_ki2, validate_kif, validate_usen, validate_usi,
};

pub use result::{BoardVerdict, GameResult, Winner};

/// How to judge a record.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Options {
    /// The entering-king declaration rule to apply when the header names none: the points
    /// (27 for the CSA/amateur 27-point rule, 24 for the 24-point declaration variant).
    /// `None` means 27. A record whose header states a rule keeps its own; one that states
    /// another than this one gets a `rule-mismatch` warning when it ends in a declaration.
    pub declaration_points: Option<u32>,
    /// The time control to hold the recorded times to where a record states none (an
    /// organiser's, for server logs that do not say it: `--time-control`). A record's own
    /// header wins; one that states another than this gets a `rule-mismatch` warning.
    pub time_control: Option<crate::formats::time_control::TimeControl>,
}

/// What replaying one game found.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Report {
    /// Every finding, sorted by line and column (those without a line first; equals in the
    /// order found). A finding about a move carries the move as written
    /// ([`Diagnostic::written`]) beside its USI text ([`Diagnostic::mv`]).
    pub diagnostics: Vec<Diagnostic>,
    /// Moves of the main line that were read.
    pub plies: u32,
    /// The recorded result.
    pub result: GameResult,
    /// Who played, where and when, as the header says.
    pub info: GameInfo,
}

/// What an organiser needs to map a finding to a pairing: the players, the event and the
/// date, as the header records them (trimmed; `None` where not recorded).
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize)]
pub struct GameInfo {
    /// Black's (先手, 下手) player.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub black: Option<String>,
    /// White's (後手, 上手) player.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub white: Option<String>,
    /// The event (棋戦, `$EVENT`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub event: Option<String>,
    /// The start date and time as written (開始日時, `$START_TIME`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub date: Option<String>,
}

impl GameInfo {
    /// The players, event and date of `header`.
    pub fn of(header: &crate::record::Header) -> GameInfo {
        GameInfo::from_keys(|key| header.get(key))
    }

    /// [`GameInfo::of`] over any lookup of a header's first value for a key.
    pub(crate) fn from_keys<'a>(get: impl Fn(&str) -> Option<&'a str>) -> GameInfo {
        use crate::record::keys;
        let clean = |v: Option<&str>| {
            v.map(str::trim)
                .filter(|s| !s.is_empty())
                .map(str::to_owned)
        };
        GameInfo {
            black: clean(get(keys::BLACK).or_else(|| get(keys::SHITATE))),
            white: clean(get(keys::WHITE).or_else(|| get(keys::UWATE))),
            event: clean(get(keys::EVENT)),
            date: clean(get(keys::START)),
        }
    }
}

impl Report {
    /// Appends a diagnostic.
    pub fn push(&mut self, d: Diagnostic) {
        self.diagnostics.push(d);
    }

    /// Appends a diagnostic about a move written as `written`.
    pub fn push_move(&mut self, d: Diagnostic, written: &str) {
        self.diagnostics.push(d.written(written));
    }

    /// Number of errors.
    pub fn errors(&self) -> usize {
        self.diagnostics.iter().filter(|d| d.is_error()).count()
    }

    /// Whether any diagnostic is an error.
    pub fn has_errors(&self) -> bool {
        self.diagnostics.iter().any(Diagnostic::is_error)
    }
}

/// Replays `record` (main line and every variation) through the rules core, fills in the
/// resolved moves, verifies the result, and reports what is wrong, sorted by line and
/// column: [`validate_game`] for a record with no reader's findings.
///
/// ```
/// use kifu::formats::{self, Format};
/// use kifu::validate::{self, Options};
///
/// let text = "startpos moves 2g2f 8c8d 2f2e 8d8e 2e2d 2c2d 2h2d 8e8f P*7d\n";
/// let mut game = formats::read(Format::Usi, text).remove(0);
/// let report = validate::replay(&mut game.record, &Options::default());
/// let d = &report.diagnostics[0];
/// assert_eq!((d.code.as_str(), d.ply), ("nifu", Some(9)));
/// assert_eq!(d.mv.as_deref(), Some("P*7d"));
/// ```
pub fn replay(record: &mut Record, opts: &Options) -> Report {
    let mut game = crate::formats::ParsedGame {
        record: std::mem::take(record),
        diagnostics: Vec::new(),
    };
    let (report, ()) = judge::judge_record(&mut game, opts);
    *record = game.record;
    report
}

/// Reads every game of a decoded `text` in `format` and validates each: the reports of
/// [`formats::read`](crate::formats::read) followed by [`validate_game`], in order, found by
/// the judge as each format's reader reads ([`validate_csa`], [`validate_usi`],
/// [`validate_kif`], [`validate_ki2`], [`validate_jkf`], [`validate_usen`]).
///
/// ```
/// use kifu::formats::Format;
/// use kifu::validate::{Options, validate_text};
///
/// let reports = validate_text(Format::Usi, "startpos moves 7g7f 3c3d\n", &Options::default());
/// assert_eq!(reports[0].plies, 2);
/// assert!(reports[0].diagnostics.is_empty());
/// ```
pub fn validate_text(format: Format, text: &str, opts: &Options) -> Vec<Report> {
    let mut reports = Vec::new();
    bytes::judge_text::<()>(format, text, opts, |g| reports.push(g.report));
    reports
}

/// Validates a parsed game: the reader's diagnostics first, then what the replay finds
/// (see [`replay`]), sorted by line and column; a move the reader could not read stops the
/// main line's replay there. Fills in the resolved moves.
pub fn validate_game(game: &mut crate::formats::ParsedGame, opts: &Options) -> Report {
    judge::judge_record::<()>(game, opts).0
}

/// Orders findings as a compiler would: by line and column (those without a line first),
/// keeping the order found among equals.
fn sort_by_position(report: &mut Report) {
    // A stable sort: equal positions keep the order found.
    report.diagnostics.sort_by_key(|d| (d.line, d.column));
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::Square;
    use crate::diag::Code;
    use crate::record::{MoveNode, NodeKind};
    use crate::record::{MoveText, MoveTime, Source, Span};

    fn node(number: u32, time: Option<(u64, u64)>) -> MoveNode {
        let text = MoveText {
            color: None,
            from: Source::Unknown,
            to: Square::new(7, 6).unwrap(),
            same: false,
            piece: None,
            promote: None,
            relative: Default::default(),
            raw: format!("m{number}").into(),
        };
        let mut n = MoveNode::new(
            NodeKind::Move {
                text,
                resolved: None,
            },
            Span::new(number + 10, 1),
        );
        n.number = Some(number);
        n.time = time.map(|(e, t)| MoveTime {
            elapsed_ms: Some(e),
            total_ms: Some(t),
        });
        n
    }

    /// The move-number and time findings of a record of `nodes` (the moves themselves are
    /// not legal: the replay's findings are left out).
    fn numbered(nodes: &[MoveNode]) -> Report {
        let mut rec = Record {
            moves: nodes.to_vec(),
            ..Record::default()
        };
        checked_times(&mut rec)
    }

    fn checked_times(rec: &mut Record) -> Report {
        let mut r = replay(rec, &Options::default());
        r.diagnostics
            .retain(|d| matches!(d.code, Code::MoveNumber | Code::TimeMismatch));
        r
    }

    #[test]
    fn move_numbers_report_each_break_once() {
        let nodes: Vec<_> = [1, 2, 4, 5, 6].iter().map(|&n| node(n, None)).collect();
        let r = numbered(&nodes);
        assert_eq!(r.diagnostics.len(), 1);
        assert_eq!(r.diagnostics[0].code, Code::MoveNumber);
        assert_eq!(r.diagnostics[0].ply, Some(3));
        assert_eq!(r.diagnostics[0].line, Some(14));
    }

    #[test]
    fn times_are_summed_per_side() {
        let mut rec = Record {
            moves: vec![
                node(1, Some((5000, 5000))),
                node(2, Some((3000, 3000))),
                node(3, Some((2000, 7000))),
                node(4, Some((1000, 4000))),
            ],
            ..Record::default()
        };
        let r = checked_times(&mut rec);
        assert!(r.diagnostics.is_empty(), "{:?}", r.diagnostics);
        rec.moves.push(node(5, Some((1000, 12000))));
        let r = checked_times(&mut rec);
        assert_eq!(r.diagnostics.len(), 1);
        assert_eq!(r.diagnostics[0].code, Code::TimeMismatch);
        assert_eq!(r.diagnostics[0].ply, Some(5));
    }

    /// An ending with a zero time (`投了 ( 0:00/00:00:00)`, Shogi Wars' exports) is its
    /// writer's "no time", not a clock gone back to zero (issue #47): no `time-mismatch`, the
    /// judged as read and from the records alike; a zero total after a move is still one.
    #[test]
    fn a_zero_time_on_an_ending_is_no_time() {
        let text = "手合割：平手\n手数----指手---------消費時間--\n   1 ７六歩(77)   ( 0:05/00:00:05)\n   2 ３四歩(33)   ( 0:03/00:00:03)\n   3 投了   ( 0:00/00:00:00)\n";
        for f in [Format::Kifu, Format::Kif] {
            let r = validate_text(f, text, &Options::default());
            assert!(r[0].diagnostics.is_empty(), "{f:?}: {:?}", r[0].diagnostics);
            let mut g = crate::formats::read(f, text).remove(0);
            assert!(
                validate_game(&mut g, &Options::default())
                    .diagnostics
                    .is_empty()
            );
        }
        let moved = text.replace(
            "３四歩(33)   ( 0:03/00:00:03)",
            "３四歩(33)   ( 0:00/00:00:00)",
        );
        let moved = moved.replace(
            "   3 投了   ( 0:00/00:00:00)\n",
            "   3 ２六歩(27)   ( 0:01/00:00:00)\n",
        );
        let r = validate_text(Format::Kifu, &moved, &Options::default());
        assert_eq!(
            r[0].diagnostics[0].code,
            Code::TimeMismatch,
            "{:?}",
            r[0].diagnostics
        );
    }

    /// An ending's time is on the clock of the side to move, and an ending does not pass the
    /// turn: endings after one another (`%CHUDAN` twice, each with a time) stay on one clock.
    #[test]
    fn endings_stay_on_the_clock_of_the_side_to_move() {
        let special = |e, t| {
            let mut n = MoveNode::new(
                NodeKind::Special(crate::record::Special {
                    kind: crate::record::SpecialKind::Interrupt,
                    text: "中断".into(),
                    side: None,
                }),
                Span::new(20, 1),
            );
            n.time = Some(MoveTime {
                elapsed_ms: Some(e),
                total_ms: Some(t),
            });
            n
        };
        let mut rec = Record {
            moves: vec![
                node(1, Some((5000, 5000))),
                node(2, Some((3000, 3000))),
                special(2000, 7000),
                special(1000, 8000),
            ],
            ..Record::default()
        };
        let r = checked_times(&mut rec);
        assert!(r.diagnostics.is_empty(), "{:?}", r.diagnostics);
        // A third ending is on Black's clock too: on White's, 3 s + 1 s would make 4 s.
        rec.moves.push(special(1000, 4000));
        let r = checked_times(&mut rec);
        assert_eq!(r.diagnostics.len(), 1, "{:?}", r.diagnostics);
    }

    /// A move with its own time but no total counts as the previous total plus its time (what
    /// a writer that must state totals writes for it), so a later total below that is found.
    #[test]
    fn a_missing_total_is_the_previous_total_plus_the_move_time() {
        let mut rec = Record {
            moves: vec![node(1, Some((25_202_000, 0))), node(2, Some((1000, 1000)))],
            ..Record::default()
        };
        if let Some(t) = &mut rec.moves[0].time {
            t.total_ms = None;
        }
        let r = checked_times(&mut rec);
        assert!(r.diagnostics.is_empty(), "{:?}", r.diagnostics);
        // Black's total after 7:00:02 and 0:00:03 cannot be 0:00:05.
        rec.moves.push(node(3, Some((3000, 5000))));
        let r = checked_times(&mut rec);
        assert_eq!(r.diagnostics.len(), 1);
        assert_eq!(r.diagnostics[0].ply, Some(3));
        // Filled in as a writer would, the record gives the same finding.
        let mut filled = rec.clone();
        filled.fill_total_times();
        let again = checked_times(&mut filled);
        assert_eq!(again.diagnostics, r.diagnostics);
        // A stated total with no move time starts the count afresh.
        rec.moves[0].time = Some(MoveTime {
            elapsed_ms: None,
            total_ms: Some(2000),
        });
        let r = checked_times(&mut rec);
        assert!(r.diagnostics.is_empty(), "{:?}", r.diagnostics);
    }
}
