//! Repetition (千日手) and perpetual check (連続王手の千日手).
//!
//! The same position (board, both hands, side to move: the Zobrist key) appearing for the
//! fourth time ends the game. It is a draw, except when one side gave check with every one
//! of its moves from the first of the four occurrences to the fourth: that side loses
//! (JSA rule 第8条; shogi-server's `oute_sennichite` counts from the first occurrence too).
//! If both sides gave check with every move, it is treated as a plain draw.

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

/// How many times each position key occurs in the history: an open-addressed table with
/// linear probing, cleared in constant time by a generation number (a validator resets it for
/// every game). Zobrist keys are uniformly random already, so their low bits are the slot.
/// A key whose count falls back to zero keeps its slot (as a count of zero) until the next
/// clear or growth; a lookup treats it as absent.
#[derive(Debug, Clone)]
struct Counts {
    /// A power of two long (or empty); a slot is in use when its generation is the table's.
    slots: Vec<Slot>,
    /// Never zero, so that fresh (zeroed) slots are free.
    generation: u32,
    /// Slots in use in this generation.
    used: usize,
}

#[derive(Debug, Clone, Copy, Default)]
struct Slot {
    key: u64,
    generation: u32,
    count: u32,
}

impl Default for Counts {
    fn default() -> Counts {
        Counts {
            slots: Vec::new(),
            generation: 1,
            used: 0,
        }
    }
}

impl Counts {
    /// Forgets every key, keeping the memory.
    fn clear(&mut self) {
        self.used = 0;
        self.generation = self.generation.wrapping_add(1);
        if self.generation == 0 {
            self.slots.fill(Slot::default());
            self.generation = 1;
        }
    }

    /// Makes room for `n` keys in use without growing (at most half the slots are used).
    fn reserve(&mut self, n: usize) {
        let want = n.saturating_mul(2).max(64).next_power_of_two();
        if want > self.slots.len() {
            self.rehash(want);
        }
    }

    /// Moves the keys in use (with a count) into a table of `len` slots.
    fn rehash(&mut self, len: usize) {
        let old = std::mem::replace(&mut self.slots, vec![Slot::default(); len]);
        let generation = self.generation;
        self.used = 0;
        for s in old {
            if s.generation == generation && s.count > 0 {
                let i = self.find(s.key);
                if let Some(slot) = self.slots.get_mut(i) {
                    *slot = s;
                    self.used += 1;
                }
            }
        }
    }

    /// The slot holding `key`, or the free slot where it would go. The table is never full
    /// (at most half used), so the probe ends.
    #[inline]
    fn find(&self, key: u64) -> usize {
        let mask = self.slots.len().wrapping_sub(1);
        // Truncation is intended: the low bits of a random key.
        let mut i = key as usize & mask;
        while let Some(s) = self.slots.get(i) {
            if s.generation != self.generation || s.key == key {
                return i;
            }
            i = (i + 1) & mask;
        }
        i
    }

    /// Adds one occurrence of `key`; returns its count.
    #[inline]
    fn increment(&mut self, key: u64) -> u32 {
        if (self.used + 1) * 2 > self.slots.len() {
            self.rehash((self.slots.len() * 2).max(64));
        }
        let i = self.find(key);
        let generation = self.generation;
        let Some(s) = self.slots.get_mut(i) else {
            return 0;
        };
        if s.generation == generation {
            s.count = s.count.saturating_add(1);
        } else {
            *s = Slot {
                key,
                generation,
                count: 1,
            };
            self.used += 1;
        }
        s.count
    }

    /// Removes one occurrence of `key` (if any).
    fn decrement(&mut self, key: u64) {
        let i = self.find(key);
        let generation = self.generation;
        if let Some(s) = self.slots.get_mut(i)
            && s.generation == generation
        {
            s.count = s.count.saturating_sub(1);
        }
    }

    /// How many times `key` occurs.
    fn get(&self, key: u64) -> u32 {
        match self.slots.get(self.find(key)) {
            Some(s) if s.generation == self.generation => s.count,
            _ => 0,
        }
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
    counts: Counts,
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
        self.record_parts(pos.key(), pos.turn(), in_check)
    }

    #[inline]
    fn record_parts(&mut self, key: u64, turn: Color, in_check: bool) -> u32 {
        self.history.push(Entry {
            key,
            turn,
            in_check,
        });
        self.counts.increment(key)
    }

    /// [`RepetitionTracker::push_with_check`] given the position's key and side to move
    /// (for a caller that has them at hand: reading them back from a position just changed
    /// can be slower than the rest of the push).
    #[inline(always)]
    pub(crate) fn push_parts(
        &mut self,
        key: u64,
        turn: Color,
        in_check: bool,
    ) -> Option<RepetitionOutcome> {
        let n = self.record_parts(key, turn, in_check);
        if n < 4 { None } else { self.outcome() }
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
        self.counts
            .reserve(self.history.len().saturating_add(additional));
    }

    /// Forgets the last recorded position.
    pub fn pop(&mut self) {
        if let Some(e) = self.history.pop() {
            self.counts.decrement(e.key);
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
        self.history.last().map_or(0, |e| self.counts.get(e.key))
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

#[cfg(test)]
mod tests {
    use super::Counts;
    use std::collections::HashMap;

    /// The table against a `HashMap` under pushes, pops and clears of keys that share
    /// their low bits (long probe runs) and of many keys (growth).
    #[test]
    fn counts_agree_with_a_map() {
        let mut counts = Counts::default();
        let mut map: HashMap<u64, u32> = HashMap::new();
        let mut rng = crate::random::Rng::new(7);
        for round in 0..40 {
            for _ in 0..rng.below(600) {
                // Keys from a small set, all with the same low 12 bits half the time.
                let k = rng.below(200);
                let key = if k.is_multiple_of(2) {
                    k << 12
                } else {
                    k.wrapping_mul(0x9e37_79b9_7f4a_7c15)
                };
                if rng.below(4) == 0 {
                    counts.decrement(key);
                    if let Some(n) = map.get_mut(&key) {
                        *n = n.saturating_sub(1);
                    }
                } else {
                    let n = map.entry(key).or_insert(0);
                    *n += 1;
                    assert_eq!(counts.increment(key), *n, "round {round}");
                }
            }
            for k in 0..200u64 {
                for key in [k << 12, k.wrapping_mul(0x9e37_79b9_7f4a_7c15)] {
                    assert_eq!(counts.get(key), map.get(&key).copied().unwrap_or(0));
                }
            }
            assert!(counts.used * 2 <= counts.slots.len());
            if round % 3 == 2 {
                counts.clear();
                map.clear();
            }
        }
    }

    /// A clear is a new generation; when the generation number wraps, the slots are wiped
    /// so that old keys do not come back.
    #[test]
    fn clear_forgets_across_the_wrap() {
        let mut counts = Counts::default();
        counts.increment(5);
        counts.generation = u32::MAX;
        counts.increment(6);
        assert_eq!(counts.get(6), 1);
        counts.clear();
        assert_eq!(counts.generation, 1);
        assert_eq!((counts.get(5), counts.get(6)), (0, 0));
        assert_eq!(counts.increment(6), 1);
    }
}
