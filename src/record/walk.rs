//! The one way through a move tree: every line, depth first, each variation walked from the
//! state before the move it replaces.
//!
//! A record's moves are a main line whose nodes may carry variations (lines that replace that
//! node, at the same ply), which nest. Whatever follows the board along the tree (the resolver,
//! the rules replay, the writers, the clock sums) needs the same order and the same hand-over
//! of state at a branch, so it lives here once. The walker calls, for each node of a line:
//!
//! 1. for every variation of the node, in order: [`Visit::branch`], the state it starts
//!    from, then the variation, walked the same way (recursively);
//! 2. [`Visit::node`]: the node itself, which may end its line ([`Step::Stop`]).
//!
//! So at each ply the alternatives are visited before the main line's move, and a line that
//! stops takes the variations of its later nodes with it.
//!
//! Layer: record (knows no format and no rules).

use super::MoveNode;

/// Whether a line goes on after a node.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Step {
    /// Visit the next node of the line.
    Continue,
    /// The line ends here: its later nodes (and their variations) are not visited.
    Stop,
}

/// What a read-only walk over a move tree does at each node, with a state that follows the
/// line (a position, a clock, a move count).
pub trait Visit {
    /// What follows a line.
    type State;

    /// The state a variation of `node` (at `ply`) starts from, given the state before `node`.
    /// Called once for each variation, before it is walked.
    fn branch(&mut self, node: &MoveNode, ply: u32, state: &Self::State) -> Self::State;

    /// Visits `node` at `ply`, after its variations.
    fn node(&mut self, node: &MoveNode, ply: u32, state: &mut Self::State) -> Step;
}

/// [`Visit`] for a walk that may change the nodes (fill in resolved moves, shift spans).
pub trait VisitMut {
    /// What follows a line.
    type State;

    /// The state a variation of `node` (at `ply`) starts from, given the state before `node`.
    /// Called once for each variation, before it is walked; `node`'s variations are out of it
    /// while they are walked.
    fn branch(&mut self, node: &MoveNode, ply: u32, state: &Self::State) -> Self::State;

    /// Visits `node` at `ply`, after its variations.
    fn node(&mut self, node: &mut MoveNode, ply: u32, state: &mut Self::State) -> Step;
}

/// Walks `line` (whose first node is at `first_ply`) and all its variations, read-only;
/// returns the state at the end of `line` itself.
pub fn walk<V: Visit>(
    line: &[MoveNode],
    first_ply: u32,
    mut state: V::State,
    visitor: &mut V,
) -> V::State {
    for (i, node) in line.iter().enumerate() {
        let ply = first_ply.saturating_add(i as u32);
        for v in &node.variations {
            let start = visitor.branch(node, ply, &state);
            walk(v, ply, start, visitor);
        }
        if visitor.node(node, ply, &mut state) == Step::Stop {
            break;
        }
    }
    state
}

/// Walks `line` (whose first node is at `first_ply`) and all its variations, with each node
/// open to change; returns the state at the end of `line` itself.
pub fn walk_mut<V: VisitMut>(
    line: &mut [MoveNode],
    first_ply: u32,
    mut state: V::State,
    visitor: &mut V,
) -> V::State {
    for (i, node) in line.iter_mut().enumerate() {
        let ply = first_ply.saturating_add(i as u32);
        if !node.variations.is_empty() {
            let mut variations = std::mem::take(&mut node.variations);
            for v in &mut variations {
                let start = visitor.branch(node, ply, &state);
                walk_mut(v, ply, start, visitor);
            }
            node.variations = variations;
        }
        if visitor.node(node, ply, &mut state) == Step::Stop {
            break;
        }
    }
    state
}
