//! What the judge found in a game, kept by the check that found it: the report lists them by
//! line and column, and among findings at the same place in the order of the checks.

use crate::diag::Diagnostic;

/// The checks of a game, in the order their findings at one place are listed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(super) enum Check {
    /// What the reader could not read (a record's findings).
    Reader,
    /// Move numbers (KIF).
    Numbers,
    /// Stated totals against the moves' times.
    Times,
    /// The first move after an ending, on each line.
    After,
    /// The rules, move by move, on each line.
    Replay,
    /// The clock of the time control.
    Clock,
}

/// A game's findings, each with its check (side by side: a finding is moved once, into the
/// report, where the checks found them in their order).
#[derive(Debug, Default)]
pub(super) struct Findings {
    list: Vec<Diagnostic>,
    checks: Vec<Check>,
}

impl Findings {
    /// A finding of `check`.
    pub(super) fn push(&mut self, check: Check, d: Diagnostic) {
        self.list.push(d);
        self.checks.push(check);
    }

    /// Findings of `check`, all at once.
    pub(super) fn append(&mut self, check: Check, mut list: Vec<Diagnostic>) {
        self.checks.extend(std::iter::repeat_n(check, list.len()));
        if self.list.is_empty() {
            self.list = list;
        } else {
            self.list.append(&mut list);
        }
    }

    /// How many findings there are.
    pub(super) fn len(&self) -> usize {
        self.list.len()
    }

    /// The findings after the first `from`.
    pub(super) fn since(&mut self, from: usize) -> impl Iterator<Item = &mut Diagnostic> {
        self.list.iter_mut().skip(from)
    }

    /// The findings of the checks `keep` admits, in the order of the checks (each check's in
    /// the order found), taken out.
    pub(super) fn take(&mut self, keep: impl Fn(Check) -> bool) -> Vec<Diagnostic> {
        let in_order = self.checks.is_sorted();
        if in_order && self.checks.iter().all(|&c| keep(c)) {
            self.checks.clear();
            return std::mem::take(&mut self.list);
        }
        // A stable sort of the places: each check's findings keep the order found.
        let mut order: Vec<usize> = (0..self.checks.len())
            .filter(|&i| self.checks.get(i).is_some_and(|&c| keep(c)))
            .collect();
        order.sort_by_key(|&i| self.checks.get(i).copied());
        let mut slots: Vec<Option<Diagnostic>> = std::mem::take(&mut self.list)
            .into_iter()
            .map(Some)
            .collect();
        let taken = order
            .iter()
            .filter_map(|&i| slots.get_mut(i).and_then(Option::take))
            .collect();
        let checks = std::mem::take(&mut self.checks);
        for (slot, check) in slots.into_iter().zip(checks) {
            if let Some(d) = slot {
                self.push(check, d);
            }
        }
        taken
    }
}
