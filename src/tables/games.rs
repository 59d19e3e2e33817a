//! One row per game: what the header records (typed where it has a type), the start and the
//! final position, the result and the board's verdict, the opening, counts, and the game key.

use compact_str::CompactString;
use serde::Serialize;

use crate::core::{Color, Handicap};
use crate::diag::Severity;
use crate::formats::time_control::TimeControl;
use crate::record::{Header, Record, StartPosition, keys};
use crate::validate::{Digest, Report, Winner};

use super::date::{DateTime, parse_datetime};
use super::{Options, even_sfen, hex};

/// One game's row. Text columns are `None` where the record has nothing.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct GameRow {
    /// The path as the input named it (`dir/a.kif`, `games.zip/2024/a.csa`).
    pub path: String,
    /// The game's index within its file, from 0.
    pub game: u64,
    /// The format read (`kif`, `csa`...).
    pub format: Option<&'static str>,
    /// The encoding read (`utf-8`, `shift_jis`...).
    pub encoding: Option<&'static str>,
    /// The event (棋戦, `$EVENT`).
    pub event: Option<String>,
    /// The site (場所, `$SITE`).
    pub site: Option<String>,
    /// The round (`$ROUND`, 回戦), where a header records it on its own.
    pub round: Option<String>,
    /// The start date (開始日時, `$START_TIME`, 対局日), `YYYY-MM-DD`.
    #[serde(serialize_with = "ser_date")]
    pub start_date: Option<DateTime>,
    /// The start date and time, `YYYY-MM-DDTHH:MM:SS`, when a time is written.
    #[serde(serialize_with = "ser_time")]
    pub start_time: Option<DateTime>,
    /// Black's (先手, 下手) player.
    pub black: Option<String>,
    /// White's (後手, 上手) player.
    pub white: Option<String>,
    /// Black's rating (floodgate's `'black_rate:NAME:RATE`).
    pub black_rating: Option<f64>,
    /// White's rating (`'white_rate:NAME:RATE`).
    pub white_rating: Option<f64>,
    /// The time control as written (持ち時間, `$TIME_LIMIT`, `$TIME`).
    pub time_control: Option<String>,
    /// Black's main time, in milliseconds, as the time control is understood.
    pub time_main_ms: Option<u64>,
    /// Black's byoyomi, in milliseconds.
    pub time_byoyomi_ms: Option<u64>,
    /// Black's increment per move, in milliseconds.
    pub time_increment_ms: Option<u64>,
    /// The handicap by its KIF name (`平手`, `香落ち`...); `None` for a composed position.
    pub handicap: Option<&'static str>,
    /// The start position, SFEN.
    pub start_sfen: String,
    /// Moves of the main line before its ending.
    pub plies: u32,
    /// The recorded ending (`TORYO`, `SENNICHITE`...).
    pub ending: Option<String>,
    /// The winner the record implies: `black`, `white` or `draw`.
    pub winner: Option<&'static str>,
    /// The winner the board decides, where it decides one.
    pub board_winner: Option<&'static str>,
    /// How the board decided: `foul`, `mate`, `repetition`, `perpetual-check`.
    pub board_by: Option<&'static str>,
    /// The ply of the move that decided it.
    pub board_ply: Option<u32>,
    /// The first `--opening-plies` moves in USI; `None` when the game is shorter, or starts
    /// from a composed position.
    pub opening: Option<Vec<CompactString>>,
    /// 戦型 (`$OPENING`).
    pub strategy: Option<String>,
    /// 先手の戦法.
    pub black_strategy: Option<String>,
    /// 後手の戦法.
    pub white_strategy: Option<String>,
    /// 先手の囲い.
    pub black_castle: Option<String>,
    /// 後手の囲い.
    pub white_castle: Option<String>,
    /// The position after the main line's moves, SFEN; `None` when a move could not be
    /// played.
    pub final_sfen: Option<String>,
    /// The final position's Zobrist key, 16 hexadecimal digits.
    pub final_hash: Option<String>,
    /// Alternative lines (変化) anywhere in the tree.
    pub variations: u32,
    /// Comment lines (on the start and on every move, variations included).
    pub comments: u32,
    /// Error diagnostics.
    pub errors: u32,
    /// Warning diagnostics.
    pub warnings: u32,
    /// The code of every diagnostic, in order.
    pub codes: Vec<&'static str>,
    /// The game key ([`game_key`](crate::record::game_key)), 16 hexadecimal digits.
    pub game_key: String,
}

fn ser_date<S: serde::Serializer>(d: &Option<DateTime>, s: S) -> Result<S::Ok, S::Error> {
    match d {
        Some(d) => s.serialize_str(&d.date_iso()),
        None => s.serialize_none(),
    }
}

fn ser_time<S: serde::Serializer>(d: &Option<DateTime>, s: S) -> Result<S::Ok, S::Error> {
    match d.and_then(|d| d.time_iso()) {
        Some(t) => s.serialize_str(&t),
        None => s.serialize_none(),
    }
}

/// Where a game comes from.
#[derive(Debug, Clone, Copy)]
pub struct Origin<'a> {
    /// The path shown.
    pub path: &'a str,
    /// The game's index in its file.
    pub game: u64,
    /// The format read.
    pub format: Option<&'static str>,
    /// The encoding read.
    pub encoding: Option<&'static str>,
}

/// Black's and White's ratings where the record gives them: floodgate's CSA comments
/// `'black_rate:NAME:1234.5` and `'white_rate:NAME:1234.5` (before or after the side-to-move
/// line).
pub fn ratings(record: &Record) -> [Option<f64>; 2] {
    ratings_in(&record.header, &record.start_comments)
}

/// [`ratings`] from a header and the comments before the first move.
pub(crate) fn ratings_in(header: &Header, start_comments: &[String]) -> [Option<f64>; 2] {
    let mut out = [None, None];
    let header = header
        .entries
        .iter()
        .filter(|e| e.key == keys::HEADER_COMMENT)
        .map(|e| e.value.as_str());
    for c in header.chain(start_comments.iter().map(String::as_str)) {
        for (i, prefix) in ["black_rate:", "white_rate:"].iter().enumerate() {
            if let Some(rest) = c.trim().strip_prefix(prefix) {
                let rate = rest.rsplit(':').next().and_then(|r| r.trim().parse().ok());
                if out[i].is_none() {
                    out[i] = rate.filter(|r: &f64| r.is_finite());
                }
            }
        }
    }
    out
}

fn clean(v: Option<&str>) -> Option<String> {
    v.map(str::trim)
        .filter(|s| !s.is_empty())
        .map(str::to_owned)
}

/// The handicap a start position is, if any.
fn handicap_of(start: &StartPosition) -> Option<Handicap> {
    match start {
        StartPosition::Preset(h) => Some(*h),
        StartPosition::Setup(s) => Handicap::recognise(s),
    }
}

/// The start date and time a header gives.
pub(crate) fn start_in(header: &Header) -> Option<DateTime> {
    header.start_time().and_then(parse_datetime)
}

impl GameRow {
    /// The row of a game, from its [`Digest`] and its report.
    pub fn new(origin: Origin<'_>, game: &Digest, report: &Report, opts: &Options) -> GameRow {
        let handicap = handicap_of(&game.start);
        let n = opts.opening_plies;
        let opening = (handicap.is_some() && n > 0 && game.moves.len() + game.rest.len() >= n)
            .then(|| {
                let text = |m: Result<_, &str>| m.map_or_else(CompactString::from, usi);
                game.main_line().take(n).map(text).collect()
            });
        let start_sfen = match &game.start {
            StartPosition::Preset(Handicap::Even) => even_sfen().to_owned(),
            start => start.to_setup().to_sfen(),
        };
        let h = &game.header;
        let (result, diagnostics) = (&report.result, &report.diagnostics);
        let start = start_in(h);
        let tc = TimeControl::of(h);
        let black = tc.as_ref().map(|t| *t.side(Color::Black));
        let [black_rating, white_rating] = ratings_in(h, &game.start_comments);
        let final_pos = game.final_position(report.plies);
        let errors = diagnostics
            .iter()
            .filter(|d| d.severity == Severity::Error)
            .count() as u32;
        GameRow {
            path: origin.path.to_owned(),
            game: origin.game,
            format: origin.format,
            encoding: origin.encoding,
            event: clean(h.event().or_else(|| h.get("$EVENT"))),
            site: clean(h.site()),
            round: clean(h.get("$ROUND").or_else(|| h.get("回戦"))),
            start_date: start,
            start_time: start.filter(|d| d.seconds.is_some()),
            black: clean(h.player(Color::Black)),
            white: clean(h.player(Color::White)),
            black_rating,
            white_rating,
            time_control: clean(h.time_control()),
            time_main_ms: black.map(|s| s.main_ms),
            time_byoyomi_ms: black.and_then(|s| s.byoyomi_ms),
            time_increment_ms: black.map(|s| s.increment_ms),
            handicap: handicap.map(Handicap::kif_name),
            start_sfen,
            plies: report.plies,
            ending: result.recorded.clone(),
            winner: result.winner.map(Winner::as_str),
            board_winner: result.by_board.map(|v| v.winner.as_str()),
            board_by: result.by_board.map(|v| v.by),
            board_ply: result.by_board.map(|v| v.ply),
            opening,
            strategy: clean(h.get(keys::OPENING)),
            black_strategy: clean(h.get("先手の戦法")),
            white_strategy: clean(h.get("後手の戦法")),
            black_castle: clean(h.get("先手の囲い")),
            white_castle: clean(h.get("後手の囲い")),
            final_sfen: final_pos.as_ref().map(crate::core::sfen),
            final_hash: final_pos.as_ref().map(|p| hex(p.key())),
            variations: game.variations,
            comments: game.comments + game.start_comments.len() as u32,
            errors,
            warnings: diagnostics.len() as u32 - errors,
            codes: diagnostics.iter().map(|d| d.code.as_str()).collect(),
            game_key: hex(game.key),
        }
    }
}

/// A move in USI (at most five letters: held inline, no allocation).
fn usi(m: crate::core::Move) -> CompactString {
    let (letters, n) = crate::core::usi_letters(m);
    CompactString::from_utf8(&letters[..n]).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::formats::{self, Format};

    #[test]
    fn a_floodgate_game() {
        let text = "V2\nN+alice\nN-bob\n$EVENT:wdoor+floodgate-300-10F+alice+bob+20170302210003\n\
                    $START_TIME:2017/03/02 21:00:02\nPI\n+\n'black_rate:alice+0123:3526.0\n\
                    'white_rate:bob+4567:3500.5\n+7776FU\nT3\n'** 120 -3334FU\n-3334FU\nT5\n\
                    +8822UM\n-3122GI\n%TORYO\n";
        let mut g = formats::read(Format::Csa, text).remove(0);
        let (r, digest) =
            crate::validate::digest(&mut g, &Default::default(), crate::validate::Gather::Games);
        let origin = Origin {
            path: "a.csa",
            game: 0,
            format: Some("csa"),
            encoding: Some("utf-8"),
        };
        let opts = Options { opening_plies: 2 };
        let row = GameRow::new(origin, &digest, &r, &opts);
        assert_eq!(row.black_rating, Some(3526.0));
        assert_eq!(row.white_rating, Some(3500.5));
        assert_eq!(row.black.as_deref(), Some("alice"));
        assert_eq!(
            row.start_date.map(|d| d.date_iso()).as_deref(),
            Some("2017-03-02")
        );
        assert_eq!(row.time_main_ms, Some(300_000));
        assert_eq!(row.time_increment_ms, Some(10_000));
        assert_eq!(row.plies, 4);
        assert_eq!(row.ending.as_deref(), Some("TORYO"));
        assert_eq!(row.winner, Some("white"), "Black resigns after four plies");
        assert_eq!(row.handicap, Some("平手"));
        assert_eq!(row.opening, Some(vec!["7g7f".into(), "3c3d".into()]));
        // The engine's `'**` line is analysis, not a comment.
        assert_eq!(row.comments, 2, "two rating lines");
        let fin = row.final_sfen.as_deref().expect("final");
        assert!(fin.starts_with("ln"), "{fin}");
        assert!(
            fin.contains(" b B"),
            "Black to move holding a bishop: {fin}"
        );
        let mut pos = crate::core::Position::startpos();
        for m in ["7g7f", "3c3d", "8h2b+", "3a2b"] {
            pos.play(crate::core::Move::from_usi(m).expect("usi"))
                .expect("legal");
        }
        assert_eq!(row.final_hash, Some(hex(pos.key())));
        assert_eq!(row.game_key, hex(crate::tables::game_key(&g.record)));
    }
}
