//! Which games a command keeps, as engine trainers filter floodgate archives: ratings, length,
//! ending, errors, dates, players, events, and the first of each duplicate game.
//!
//! [`Filter::admits`] judges a game from its [`Facts`] alone (it runs on the workers);
//! [`Dedup`] keeps the first game of each key, and must see the games in input order.

use std::collections::HashSet;

use crate::diag::Severity;
use crate::validate::{Digest, Report};

use super::games::{ratings_in, start_in};

/// What to keep. The default keeps every game.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Filter {
    /// Both players rated at least this (a game with a rating missing is left out).
    pub min_rating: Option<f64>,
    /// With `min_rating`: one player rated at least this is enough.
    pub min_rating_any: bool,
    /// At least this many plies (moves of the main line before its ending).
    pub min_plies: Option<u32>,
    /// At most this many plies.
    pub max_plies: Option<u32>,
    /// The recorded ending is one of these (`TORYO`, `KACHI`...; `none` for a game with no
    /// ending), compared without regard to case; empty: any.
    pub endings: Vec<String>,
    /// Only games without an error diagnostic.
    pub clean: bool,
    /// Started on this day or later (days since 1970-01-01); a game without a date is left
    /// out.
    pub since: Option<i32>,
    /// Started on this day or earlier.
    pub until: Option<i32>,
    /// One of the players is named exactly one of these; empty: any.
    pub players: Vec<String>,
    /// The event contains one of these; empty: any.
    pub events: Vec<String>,
    /// Only the first game (in input order) of each game key: see [`Dedup`].
    pub dedup: bool,
}

// A bound is a number the command line parsed (never NaN), so equality is an equivalence.
impl Eq for Filter {}

/// What the filter looks at, taken from a validated game.
#[derive(Debug, Clone, PartialEq)]
pub struct Facts {
    /// Black's and White's ratings.
    pub ratings: [Option<f64>; 2],
    /// Plies of the main line before its ending.
    pub plies: u32,
    /// The recorded ending.
    pub ending: Option<String>,
    /// Whether a diagnostic is an error.
    pub errors: bool,
    /// The start date (days since 1970-01-01).
    pub date: Option<i32>,
    /// The players.
    pub players: [Option<String>; 2],
    /// The event.
    pub event: Option<String>,
    /// The game key ([`super::game_key`]).
    pub key: u64,
}

impl Facts {
    /// The facts of a game, from its [`Digest`] and its report.
    pub fn of(game: &Digest, report: &Report) -> Facts {
        let h = &game.header;
        let name = |c| {
            h.player(c)
                .map(str::trim)
                .filter(|s| !s.is_empty())
                .map(str::to_owned)
        };
        Facts {
            ratings: ratings_in(h, &game.start_comments),
            plies: report.plies,
            ending: report.result.recorded.clone(),
            errors: report
                .diagnostics
                .iter()
                .any(|d| d.severity == Severity::Error),
            date: start_in(h).map(|d| d.days),
            players: [
                name(crate::core::Color::Black),
                name(crate::core::Color::White),
            ],
            event: h
                .event()
                .or_else(|| h.get("$EVENT"))
                .map(str::trim)
                .map(str::to_owned),
            key: game.key,
        }
    }
}

impl Filter {
    /// Whether the filter keeps every game.
    pub fn is_empty(&self) -> bool {
        *self == Filter::default()
    }

    /// Whether the game passes every test but the duplicate one.
    pub fn admits(&self, f: &Facts) -> bool {
        if let Some(min) = self.min_rating {
            let ok = |r: Option<f64>| r.is_some_and(|r| r >= min);
            let pass = if self.min_rating_any {
                ok(f.ratings[0]) || ok(f.ratings[1])
            } else {
                ok(f.ratings[0]) && ok(f.ratings[1])
            };
            if !pass {
                return false;
            }
        }
        if self.min_plies.is_some_and(|m| f.plies < m)
            || self.max_plies.is_some_and(|m| f.plies > m)
        {
            return false;
        }
        if !self.endings.is_empty() {
            let ending = f.ending.as_deref().unwrap_or("none");
            if !self.endings.iter().any(|e| e.eq_ignore_ascii_case(ending)) {
                return false;
            }
        }
        if self.clean && f.errors {
            return false;
        }
        if self.since.is_some() || self.until.is_some() {
            let Some(d) = f.date else {
                return false;
            };
            if self.since.is_some_and(|s| d < s) || self.until.is_some_and(|u| d > u) {
                return false;
            }
        }
        if !self.players.is_empty()
            && !f
                .players
                .iter()
                .flatten()
                .any(|p| self.players.iter().any(|q| q == p))
        {
            return false;
        }
        if !self.events.is_empty() {
            let Some(ev) = &f.event else {
                return false;
            };
            if !self.events.iter().any(|e| ev.contains(e.as_str())) {
                return false;
            }
        }
        true
    }
}

/// The game keys seen so far, for `--dedup`: memory grows by a few bytes per distinct game.
#[derive(Debug, Clone, Default)]
pub struct Dedup(HashSet<u64>);

impl Dedup {
    /// A new, empty set.
    pub fn new() -> Dedup {
        Dedup::default()
    }

    /// Whether `key` is seen for the first time (and remembers it).
    pub fn first(&mut self, key: u64) -> bool {
        self.0.insert(key)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn facts() -> Facts {
        Facts {
            ratings: [Some(3000.0), Some(2500.0)],
            plies: 100,
            ending: Some("TORYO".into()),
            errors: false,
            date: Some(19_000),
            players: [Some("alice".into()), Some("bob".into())],
            event: Some("wdoor+floodgate-300-10F".into()),
            key: 7,
        }
    }

    #[test]
    fn each_test_can_reject() {
        let f = facts();
        assert!(Filter::default().admits(&f));
        let both = Filter {
            min_rating: Some(2800.0),
            ..Filter::default()
        };
        assert!(!both.admits(&f));
        let any = Filter {
            min_rating_any: true,
            ..both.clone()
        };
        assert!(any.admits(&f));
        let unrated = Facts {
            ratings: [None, None],
            ..f.clone()
        };
        assert!(!any.admits(&unrated));
        let short = Filter {
            min_plies: Some(101),
            ..Filter::default()
        };
        assert!(!short.admits(&f));
        let long = Filter {
            max_plies: Some(99),
            ..Filter::default()
        };
        assert!(!long.admits(&f));
        let endings = Filter {
            endings: vec!["kachi".into(), "toryo".into()],
            ..Filter::default()
        };
        assert!(endings.admits(&f));
        let none = Filter {
            endings: vec!["none".into()],
            ..Filter::default()
        };
        assert!(!none.admits(&f));
        assert!(none.admits(&Facts {
            ending: None,
            ..f.clone()
        }));
        let clean = Filter {
            clean: true,
            ..Filter::default()
        };
        assert!(!clean.admits(&Facts {
            errors: true,
            ..f.clone()
        }));
        let dates = Filter {
            since: Some(19_000),
            until: Some(19_000),
            ..Filter::default()
        };
        assert!(dates.admits(&f));
        assert!(!dates.admits(&Facts {
            date: Some(19_001),
            ..f.clone()
        }));
        assert!(!dates.admits(&Facts {
            date: None,
            ..f.clone()
        }));
        let player = Filter {
            players: vec!["bob".into()],
            ..Filter::default()
        };
        assert!(player.admits(&f));
        assert!(
            !Filter {
                players: vec!["bo".into()],
                ..Filter::default()
            }
            .admits(&f)
        );
        let event = Filter {
            events: vec!["floodgate".into()],
            ..Filter::default()
        };
        assert!(event.admits(&f));
        assert!(
            !Filter {
                events: vec!["wcsc".into()],
                ..Filter::default()
            }
            .admits(&f)
        );
        let mut d = Dedup::new();
        assert!(d.first(7));
        assert!(!d.first(7));
        assert!(d.first(8));
    }
}
