//! The per-game summary: what the statistics keep of one game (plies, result, opening, players,
//! event, diagnostic codes, a hash of the start and moves, time used), taken from a game's
//! digest.

use std::collections::hash_map::DefaultHasher;
use std::hash::{Hash, Hasher};

use crate::core::Handicap;
use crate::diag::Code;
use crate::record::StartPosition;
use crate::validate::{Digest, GameResult, Report};

use super::Options;

/// What the statistics need from one game.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GameSummary {
    /// Moves of the main line before its ending (moves written after it are not counted).
    pub plies: u32,
    /// The recorded result.
    pub result: GameResult,
    /// The first plies, as USI (or as written where unresolved), space-separated; `None` when
    /// the game is shorter than the opening length.
    pub opening: Option<String>,
    /// Black's and White's players.
    pub players: [Option<String>; 2],
    /// The event (棋戦 / `$EVENT`).
    pub event: Option<String>,
    /// Diagnostic codes found.
    pub codes: Vec<Code>,
    /// Hash of the start position and the main line's moves.
    pub hash: u64,
    /// Time used by the moves that record it: (moves, milliseconds).
    pub time: (u64, u64),
    /// The month the game started, `YYYY-MM`, from the header's start date ([`month_of`]).
    pub month: Option<String>,
}

/// The month of a date as records write it (`2024/01/05 10:00:00`, `2024-1-5`,
/// `2024年1月5日`): `2024-01`; `None` when the text does not start with a year of four
/// digits and a month from 1 to 12.
pub fn month_of(date: &str) -> Option<String> {
    let date = date.trim();
    let year: String = date.chars().take_while(char::is_ascii_digit).collect();
    if year.len() != 4 {
        return None;
    }
    let rest = date[year.len()..].strip_prefix(['/', '-', '.', '年'])?;
    let month: String = rest.chars().take_while(char::is_ascii_digit).collect();
    match month.parse::<u32>() {
        Ok(m @ 1..=12) if month.len() <= 2 => Some(format!("{year}-{m:02}")),
        _ => None,
    }
}

impl GameSummary {
    /// Summarises a game from its [`Digest`] and its report.
    pub fn of(game: &Digest, report: &Report, opts: &Options) -> GameSummary {
        let mut hasher = DefaultHasher::new();
        // The start by its SFEN board, side and hands (not the move number, and not how the
        // record wrote it: a preset and the same position set up square by square are equal).
        let sfen = game.start.to_setup().to_sfen();
        let fields: Vec<&str> = sfen.split(' ').take(3).collect();
        fields.hash(&mut hasher);
        let mut opening = String::new();
        let mut n = 0usize;
        for mv in game.main_line() {
            let text = match mv {
                Ok(m) => {
                    m.hash(&mut hasher);
                    (n < opts.opening_plies).then(|| m.to_usi())
                }
                Err(text) => {
                    text.hash(&mut hasher);
                    (n < opts.opening_plies).then(|| text.to_owned())
                }
            };
            if let Some(text) = text {
                if n > 0 {
                    opening.push(' ');
                }
                opening.push_str(&text);
            }
            n += 1;
        }
        let header = &game.header;
        let name = |c| {
            header
                .player(c)
                .map(str::trim)
                .filter(|s| !s.is_empty())
                .map(str::to_owned)
        };
        let players = [
            name(crate::core::Color::Black),
            name(crate::core::Color::White),
        ];
        // Openings are compared from the same start: the even game as is, a handicap named
        // before its moves, any other position not at all.
        let start = match &game.start {
            StartPosition::Preset(h) => Some(*h),
            StartPosition::Setup(s) => Handicap::recognise(s),
        };
        let start_name = start.map(|h| match h {
            Handicap::Even => String::new(),
            h => format!("{}: ", h.kif_name()),
        });
        GameSummary {
            plies: report.plies,
            result: report.result.clone(),
            opening: start_name
                .filter(|_| n >= opts.opening_plies && opts.opening_plies > 0)
                .map(|prefix| prefix + &opening),
            players,
            event: header
                .event()
                .or_else(|| header.get("$EVENT"))
                .map(str::to_owned),
            codes: report.diagnostics.iter().map(|d| d.code).collect(),
            hash: hasher.finish(),
            time: game.spent,
            month: header.start_time().and_then(month_of),
        }
    }
}
