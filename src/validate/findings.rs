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

/// A game's findings, each with its check.
#[derive(Debug, Default)]
pub(super) struct Findings(Vec<(Check, Diagnostic)>);

impl Findings {
    /// A finding of `check`.
    pub(super) fn push(&mut self, check: Check, d: Diagnostic) {
        self.0.push((check, d));
    }

    /// How many findings there are.
    pub(super) fn len(&self) -> usize {
        self.0.len()
    }

    /// The findings after the first `from`.
    pub(super) fn since(&mut self, from: usize) -> impl Iterator<Item = &mut Diagnostic> {
        self.0.iter_mut().skip(from).map(|(_, d)| d)
    }

    /// Whether `check` found anything `what` holds for.
    pub(super) fn any_where(&self, check: Check, what: impl Fn(&Diagnostic) -> bool) -> bool {
        self.0.iter().any(|(c, d)| *c == check && what(d))
    }

    /// The findings of the checks `keep` admits, in the order of the checks (each check's in
    /// the order found), taken out.
    pub(super) fn take(&mut self, keep: impl Fn(Check) -> bool) -> Vec<Diagnostic> {
        let mut taken: Vec<(Check, Diagnostic)> = Vec::new();
        let mut rest = Vec::new();
        for (c, d) in self.0.drain(..) {
            if keep(c) {
                taken.push((c, d));
            } else {
                rest.push((c, d));
            }
        }
        self.0 = rest;
        // A stable sort: each check's findings keep the order found.
        taken.sort_by_key(|(c, _)| *c);
        taken.into_iter().map(|(_, d)| d).collect()
    }
}
