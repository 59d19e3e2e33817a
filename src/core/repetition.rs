//! Repetition (千日手) and perpetual check (連続王手の千日手).
//!
//! The same position (board, both hands, side to move: the Zobrist key) appearing for the
//! fourth time ends the game. It is a draw, except when one side gave check with every one
//! of its moves from the first of the four occurrences to the fourth: that side loses
//! (JSA rule 第8条; shogi-server's `oute_sennichite` counts from the first occurrence too).
//! If both sides gave check with every move, it is treated as a plain draw.

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

use super::{Color, Position};

/// How a fourfold repetition ends the game.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum RepetitionOutcome {
    /// 千日手: a draw (void game).
    Draw,
    /// 連続王手の千日手: `loser` checked with every move of the cycle and loses.
    PerpetualCheck {
        /// The side that gave the perpetual check.
        loser: Color,
    },
}

/// A hasher for Zobrist keys, which are uniformly random already: the key itself is the
/// hash (SipHash cost a sixth of a whole validation run).
#[derive(Debug, Clone, Copy, Default)]
struct KeyHasher(u64);

impl Hasher for KeyHasher {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        // Not used for `u64` keys; a plain FNV-style fold keeps it correct for anything else.
        for &b in bytes {
            self.0 = (self.0 ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3);
        }
    }

    fn write_u64(&mut self, n: u64) {
        self.0 = n;
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Entry {
    key: u64,
    turn: Color,
    in_check: bool,
}

/// The positions of one line of play, for detecting repetition. Push every position
/// reached (after each move); `pop` undoes the last push (for walking variations).
#[derive(Debug, Clone, Default)]
pub struct RepetitionTracker {
    history: Vec<Entry>,
    counts: HashMap<u64, u32, BuildHasherDefault<KeyHasher>>,
}

impl RepetitionTracker {
    /// A tracker whose history starts with `start`.
    pub fn new(start: &Position) -> RepetitionTracker {
        let mut t = RepetitionTracker::default();
        t.record(start);
        t
    }

    fn record(&mut self, pos: &Position) {
        self.record_with_check(pos, pos.in_check());
    }

    /// Records a position; returns how many times it has now occurred.
    #[inline]
    fn record_with_check(&mut self, pos: &Position, in_check: bool) -> u32 {
        self.history.push(Entry {
            key: pos.key(),
            turn: pos.turn(),
            in_check,
        });
        let n = self.counts.entry(pos.key()).or_insert(0);
        *n += 1;
        *n
    }

    /// Forgets everything and starts a new history at `start`, keeping the memory already
    /// allocated (for a caller that replays many games one after the other).
    pub fn reset(&mut self, start: &Position) {
        self.history.clear();
        self.counts.clear();
        self.record(start);
    }

    /// Records the position reached by a move and returns the repetition outcome, if the
    /// position has now occurred four times or more.
    pub fn push(&mut self, pos: &Position) -> Option<RepetitionOutcome> {
        let n = self.record_with_check(pos, pos.in_check());
        if n < 4 { None } else { self.outcome() }
    }

    /// Like [`RepetitionTracker::push`] for a caller that already knows whether the side to
    /// move in `pos` is in check (`in_check` must equal `pos.in_check()`): saves finding the
    /// checkers a second time.
    #[inline]
    pub fn push_with_check(&mut self, pos: &Position, in_check: bool) -> Option<RepetitionOutcome> {
        let n = self.record_with_check(pos, in_check);
        if n < 4 { None } else { self.outcome() }
    }

    /// Records a position like [`RepetitionTracker::push_with_check`] without working out the
    /// outcome: for a line whose game is already over, where the outcome (a scan back to the
    /// first occurrence once a position has been seen four times) is not needed and would
    /// make a long repetitive tail cost time quadratic in its length.
    pub fn push_quiet(&mut self, pos: &Position, in_check: bool) {
        self.record_with_check(pos, in_check);
    }

    /// Makes room for `additional` more positions (a replay knows its line's length), so the
    /// history and counts are not regrown while pushing.
    pub fn reserve(&mut self, additional: usize) {
        self.history.reserve(additional);
        self.counts.reserve(additional);
    }

    /// Forgets the last recorded position.
    pub fn pop(&mut self) {
        if let Some(e) = self.history.pop() {
            if let Some(n) = self.counts.get_mut(&e.key) {
                *n = n.saturating_sub(1);
                if *n == 0 {
                    self.counts.remove(&e.key);
                }
            }
        }
    }

    /// Number of positions recorded (plies played + 1).
    pub fn len(&self) -> usize {
        self.history.len()
    }

    /// Whether nothing has been recorded.
    pub fn is_empty(&self) -> bool {
        self.history.is_empty()
    }

    /// How many times the last recorded position has occurred.
    pub fn count(&self) -> u32 {
        self.history
            .last()
            .and_then(|e| self.counts.get(&e.key).copied())
            .unwrap_or(0)
    }

    /// The outcome for the last recorded position: `None` below four occurrences.
    pub fn outcome(&self) -> Option<RepetitionOutcome> {
        let last = *self.history.last()?;
        if self.count() < 4 {
            return None;
        }
        let first = self.history.iter().position(|e| e.key == last.key)?;
        let mut all_checks = [true; 2];
        let mut moved = [false; 2];
        // The move leading to history[j] was made by the side not to move at j.
        for e in self.history.get(first + 1..)? {
            let mover = e.turn.flip().index();
            moved[mover] = true;
            if !e.in_check {
                all_checks[mover] = false;
            }
        }
        let black = all_checks[0] && moved[0];
        let white = all_checks[1] && moved[1];
        Some(match (black, white) {
            (true, false) => RepetitionOutcome::PerpetualCheck {
                loser: Color::Black,
            },
            (false, true) => RepetitionOutcome::PerpetualCheck {
                loser: Color::White,
            },
            _ => RepetitionOutcome::Draw,
        })
    }
}
