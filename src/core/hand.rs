//! Pieces in hand.

use super::PieceKind;

/// The pieces one side holds in hand: a count for each of P L N S G B R.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct Hand([u8; 7]);

impl Hand {
    /// An empty hand.
    pub const EMPTY: Hand = Hand([0; 7]);

    /// How many of `kind` (an unpromoted hand kind) the hand holds; 0 for other kinds.
    #[inline]
    pub fn count(&self, kind: PieceKind) -> u8 {
        if kind.is_hand_kind() {
            self.0[kind.index()]
        } else {
            0
        }
    }

    /// Sets the count of a hand kind. Panics if `kind` cannot be held in hand.
    #[inline]
    pub fn set(&mut self, kind: PieceKind, n: u8) {
        assert!(kind.is_hand_kind(), "{kind:?} cannot be held in hand");
        self.0[kind.index()] = n;
    }

    /// Adds one piece of `kind` (promoted kinds are added as their base kind; kings are ignored).
    #[inline]
    pub fn add(&mut self, kind: PieceKind) {
        let k = kind.unpromote();
        if k.is_hand_kind() {
            self.0[k.index()] = self.0[k.index()].saturating_add(1);
        }
    }

    /// Removes one piece of `kind`; returns false (and changes nothing) when there is none.
    #[inline]
    pub fn remove(&mut self, kind: PieceKind) -> bool {
        if !kind.is_hand_kind() || self.0[kind.index()] == 0 {
            return false;
        }
        self.0[kind.index()] -= 1;
        true
    }

    /// Whether the hand is empty.
    pub fn is_empty(&self) -> bool {
        self.0.iter().all(|&n| n == 0)
    }

    /// The counts, indexed by `PieceKind::index()` (P L N S G B R).
    pub fn counts(&self) -> [u8; 7] {
        self.0
    }

    /// `(kind, count)` for every kind held, strongest first (R B G S N L P), the order SFEN,
    /// KIF and CSA writers use.
    pub fn iter(&self) -> impl Iterator<Item = (PieceKind, u8)> + '_ {
        PieceKind::HAND
            .iter()
            .rev()
            .map(|&k| (k, self.0[k.index()]))
            .filter(|&(_, n)| n > 0)
    }

    /// Total number of pieces held.
    pub fn total(&self) -> u32 {
        self.0.iter().map(|&n| n as u32).sum()
    }
}
