//! Resolving move text against a position: turning what a record writes (`７六歩(77)`,
//! `+2423TO`, `▲同銀右`) into the [`Move`] it denotes, and replaying a whole record (main
//! line and every variation) to fill in [`NodeKind::Move::resolved`].
//!
//! Resolution checks only what it needs to find the move: the side, the piece the text names
//! and, for text without a source square (KI2), which piece the suffixes pick. Whether the move
//! is then legal is the rules core's business (`Position::check_move`), reported by `validate`.
//!
//! KI2 suffixes follow the JSA notation (docs/formats.md §2.2): `上`/`行` ends on a rank nearer the
//! opponent, `引` farther, `寄` on the same rank; `右`/`左` is the piece that came from the
//! mover's right/left of the destination, `直` the one that moved straight forward; for the
//! dragon and the horse `右`/`左` name the one standing further right/left of the two.

use std::fmt;

use crate::core::{Color, Move, PieceKind, Position, Square};
use crate::diag::{Code, Diagnostic};
use crate::record::walk::{self, Step};
use crate::record::{
    Horizontal, MoveNode, MoveText, NamedPiece, NodeKind, Record, Relative, Source, Vertical,
};

/// Why move text could not be resolved against a position.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum ResolveError {
    /// The text is for the side that is not to move.
    WrongTurn {
        /// The side the text names.
        written: Color,
        /// The side to move.
        to_move: Color,
    },
    /// The source square holds no piece of the side to move.
    NoPiece {
        /// The source square.
        from: Square,
    },
    /// The named piece is not the piece on the source square.
    PieceMismatch {
        /// The piece the text names.
        named: PieceKind,
        /// The piece on the source square.
        found: PieceKind,
    },
    /// More than one move fits the text.
    Ambiguous {
        /// How many pieces could have made it.
        candidates: usize,
    },
    /// No move fits the text.
    NoMatch,
}

impl ResolveError {
    /// The diagnostic code for this error.
    pub const fn code(self) -> Code {
        match self {
            ResolveError::WrongTurn { .. } => Code::WrongTurn,
            ResolveError::NoPiece { .. } => Code::NoPiece,
            ResolveError::PieceMismatch { .. } => Code::PieceMismatch,
            ResolveError::Ambiguous { .. } => Code::AmbiguousMove,
            ResolveError::NoMatch => Code::NoMatchingMove,
        }
    }
}

impl fmt::Display for ResolveError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            ResolveError::WrongTurn { written, to_move } => write!(
                f,
                "the move is written for {} but {} is to move",
                written.name(),
                to_move.name()
            ),
            ResolveError::NoPiece { from } => {
                write!(f, "no piece of the side to move on {from}")
            }
            ResolveError::PieceMismatch { named, found } => write!(
                f,
                "the move names {} ({}) but the piece there is {} ({})",
                named.kif_name(),
                named.csa(),
                found.kif_name(),
                found.csa()
            ),
            ResolveError::Ambiguous { candidates } => {
                write!(f, "{candidates} pieces fit the move text")
            }
            ResolveError::NoMatch => f.write_str("no piece fits the move text"),
        }
    }
}

impl std::error::Error for ResolveError {}

/// The complete move text for a move played in `pos`, as a record that names everything
/// would hold it: side, source (or drop), destination, the piece before the move, promotion
/// where it was possible (`Some(false)` for a non-promotion that could have promoted), and
/// `same` when `mv` lands on `last_to`. The inverse of [`resolve_move`] for legal moves.
pub fn text_for_move(pos: &Position, mv: Move, last_to: Option<Square>) -> MoveText {
    let mover = pos.turn();
    let kind = match mv {
        Move::Normal { from, .. } => pos.piece_at(from).map(|p| p.kind),
        Move::Drop { kind, .. } => Some(kind),
    };
    MoveText {
        color: Some(mover),
        from: match mv {
            Move::Normal { from, .. } => Source::Square(from),
            Move::Drop { .. } => Source::Drop,
        },
        to: mv.to(),
        same: last_to == Some(mv.to()),
        piece: kind.map(NamedPiece::Before),
        promote: match (mv, kind) {
            (Move::Normal { from, to, promote }, Some(k))
                if k.can_promote() && (from.in_zone(mover) || to.in_zone(mover)) =>
            {
                Some(promote)
            }
            _ => None,
        },
        relative: Default::default(),
        raw: mv.to_usi().into(),
    }
}

/// Resolves move text against the position it is played in.
///
/// * With a source square (KIF, CSA, JKF): the named piece must be the piece there
///   (`NamedPiece::Before`), or that piece or its promoted form (`NamedPiece::After`, which
///   then decides the promotion).
/// * A drop (打, CSA `00`): the drop of the named kind (having it in hand is checked when the
///   move is played).
/// * Without a source (KI2): the pieces of the named kind that reach the destination, narrowed
///   by the suffixes; none, but the piece is in hand and no suffix says otherwise, is a drop.
///   When several remain but only one of them may legally move (the others are pinned), that
///   one is meant.
///
/// ```
/// # use kifu::core::{Move, Position};
/// # use kifu::formats::ki2;
/// # use kifu::record::{resolve::resolve_move, NodeKind};
/// let rec = ki2::read("▲７六歩").remove(0).record;
/// let NodeKind::Move { text, .. } = &rec.moves[0].kind else { unreachable!() };
/// let mv = resolve_move(&Position::startpos(), text).unwrap();
/// assert_eq!(mv, Move::from_usi("7g7f").unwrap());
/// ```
pub fn resolve_move(pos: &Position, text: &MoveText) -> Result<Move, ResolveError> {
    let turn = pos.turn();
    if let Some(written) = text.color
        && written != turn
    {
        return Err(ResolveError::WrongTurn {
            written,
            to_move: turn,
        });
    }
    let to = text.to;
    match text.from {
        Source::Square(from) => {
            let piece = pos
                .piece_at(from)
                .filter(|p| p.color == turn)
                .ok_or(ResolveError::NoPiece { from })?;
            let promote = match text.piece {
                Some(NamedPiece::Before(named)) => {
                    if named != piece.kind {
                        return Err(ResolveError::PieceMismatch {
                            named,
                            found: piece.kind,
                        });
                    }
                    text.promote == Some(true)
                }
                Some(NamedPiece::After(named)) => {
                    if named == piece.kind {
                        text.promote == Some(true)
                    } else if piece.kind.promote() == Some(named) {
                        true
                    } else {
                        return Err(ResolveError::PieceMismatch {
                            named,
                            found: piece.kind,
                        });
                    }
                }
                None => text.promote == Some(true),
            };
            Ok(Move::Normal { from, to, promote })
        }
        Source::Drop => {
            let kind = match text.piece {
                Some(NamedPiece::Before(k)) | Some(NamedPiece::After(k)) => k,
                None => return Err(ResolveError::NoMatch),
            };
            if !kind.is_hand_kind() {
                return Err(ResolveError::NoMatch);
            }
            Ok(Move::Drop { kind, to })
        }
        Source::Unknown => {
            let kind = match text.piece {
                Some(NamedPiece::Before(k)) => k,
                Some(NamedPiece::After(k)) => k,
                None => return Err(ResolveError::NoMatch),
            };
            let all = pos.movers_to(to, turn, kind);
            let picked = filter_candidates(&all, to, turn, kind, &text.relative);
            match picked.len() {
                1 => Ok(Move::Normal {
                    from: picked[0],
                    to,
                    promote: text.promote == Some(true),
                }),
                0 if all.is_empty()
                    && kind.is_hand_kind()
                    && text.relative.horizontal.is_none()
                    && text.relative.vertical.is_none()
                    && text.promote != Some(true)
                    && pos.hand(turn).count(kind) > 0 =>
                {
                    Ok(Move::Drop { kind, to })
                }
                0 => Err(ResolveError::NoMatch),
                n => {
                    // Writers that leave out a suffix because the other piece is pinned: the
                    // one legal move is meant.
                    let promote = text.promote == Some(true);
                    let mut legal = picked
                        .iter()
                        .map(|&from| Move::Normal { from, to, promote });
                    match (
                        legal.find(|&m| pos.is_legal(m)),
                        legal.find(|&m| pos.is_legal(m)),
                    ) {
                        (Some(m), None) => Ok(m),
                        _ => Err(ResolveError::Ambiguous { candidates: n }),
                    }
                }
            }
        }
    }
}

/// Rank and file steps from `from` to `to` as the mover sees them: `up` > 0 when the piece
/// moves towards the opponent, `leftward` > 0 when it moves to the mover's left (so it came
/// from the right).
fn steps(from: Square, to: Square, color: Color) -> (i32, i32) {
    let (ff, fr) = (i32::from(from.file()), i32::from(from.rank()));
    let (tf, tr) = (i32::from(to.file()), i32::from(to.rank()));
    match color {
        // Black's right is file 1, forward is rank 1.
        Color::Black => (fr - tr, tf - ff),
        Color::White => (tr - fr, ff - tf),
    }
}

/// How far to the mover's right a square is (larger = further right).
fn rightness(sq: Square, color: Color) -> i32 {
    match color {
        Color::Black => -i32::from(sq.file()),
        Color::White => i32::from(sq.file()),
    }
}

fn is_dragon_or_horse(kind: PieceKind) -> bool {
    matches!(kind, PieceKind::Dragon | PieceKind::Horse)
}

/// The candidates (source squares that reach `to`) that fit the KI2 suffixes.
pub(crate) fn filter_candidates(
    all: &[Square],
    to: Square,
    color: Color,
    kind: PieceKind,
    rel: &Relative,
) -> Vec<Square> {
    let mut out: Vec<Square> = all
        .iter()
        .copied()
        .filter(|&from| {
            let (up, _) = steps(from, to, color);
            match rel.vertical {
                None => true,
                Some(Vertical::Up) => up > 0,
                Some(Vertical::Down) => up < 0,
                Some(Vertical::Sideways) => up == 0,
            }
        })
        .collect();
    let Some(h) = rel.horizontal else { return out };
    if is_dragon_or_horse(kind) {
        if out.len() < 2 {
            return out;
        }
        // 右/左: the one standing further right/left of the others.
        let key = |s: &Square| rightness(*s, color);
        let best = match h {
            Horizontal::Right => out.iter().map(key).max(),
            Horizontal::Left => out.iter().map(key).min(),
            Horizontal::Straight => {
                out.retain(|&from| {
                    let (up, left) = steps(from, to, color);
                    left == 0 && up > 0
                });
                return out;
            }
        };
        out.retain(|s| Some(key(s)) == best);
        return out;
    }
    out.retain(|&from| {
        let (up, left) = steps(from, to, color);
        match h {
            Horizontal::Right => left > 0,
            Horizontal::Left => left < 0,
            Horizontal::Straight => left == 0 && up > 0,
        }
    });
    out
}

/// The minimal JSA suffixes (KI2 `右 左 直 上 寄 引 打`, JKF `relative`) for `mv` in `pos`:
/// empty when no other piece of its kind reaches the destination; for a drop, `drop` is set
/// only when a piece of the kind on the board could also move there. `成`/`不成` are not part
/// of it. Empty for a move from a square without a piece of the side to move.
///
/// ```
/// # use kifu::core::{Move, Position};
/// # use kifu::record::{resolve::relative_for, Horizontal};
/// let pos = Position::startpos();
/// // Both golds reach 5八: the one from 6九 came from the left.
/// let rel = relative_for(&pos, Move::from_usi("6i5h").unwrap());
/// assert_eq!(rel.horizontal, Some(Horizontal::Left));
/// assert!(relative_for(&pos, Move::from_usi("7g7f").unwrap()).is_empty());
/// ```
pub fn relative_for(pos: &Position, mv: Move) -> Relative {
    let turn = pos.turn();
    let kind = match mv {
        Move::Normal { from, .. } => match pos.piece_at(from).filter(|p| p.color == turn) {
            Some(p) => p.kind,
            None => return Relative::default(),
        },
        Move::Drop { kind, .. } => kind,
    };
    relative_among(&pos.movers_to(mv.to(), turn, kind), mv, turn, kind)
}

/// The minimal JSA suffixes of `mv`, a move of a `kind` of `color`, among `all` (the squares
/// of the pieces of that kind and side that reach its destination; the mover's own square
/// included for a move from the board): what [`relative_for`] gives, for callers that follow
/// the board some other way (the KI2 and JKF writers).
pub(crate) fn relative_among(all: &[Square], mv: Move, color: Color, kind: PieceKind) -> Relative {
    match mv {
        Move::Normal { from, to, .. } => suffixes_for(all, from, to, color, kind),
        Move::Drop { .. } => Relative {
            drop: !all.is_empty(),
            ..Relative::default()
        },
    }
}

/// The minimal JSA suffixes that single out the move `from → to` among `all` (the squares of
/// the pieces of `kind` that reach `to`, `from` included). Empty when `from` is the only one.
fn suffixes_for(
    all: &[Square],
    from: Square,
    to: Square,
    color: Color,
    kind: PieceKind,
) -> Relative {
    if all.iter().all(|&s| s == from) {
        return Relative::default();
    }
    let (up, left) = steps(from, to, color);
    let vertical = Some(match up {
        u if u > 0 => Vertical::Up,
        0 => Vertical::Sideways,
        _ => Vertical::Down,
    });
    let horizontal = if is_dragon_or_horse(kind) {
        let me = rightness(from, color);
        let others = all
            .iter()
            .filter(|&&s| s != from)
            .map(|&s| rightness(s, color));
        let (mut right, mut leftmost) = (true, true);
        for o in others {
            right &= me > o;
            leftmost &= me < o;
        }
        if right {
            Some(Horizontal::Right)
        } else if leftmost {
            Some(Horizontal::Left)
        } else {
            None
        }
    } else if left == 0 {
        let ranging = matches!(kind, PieceKind::Rook | PieceKind::Bishop | PieceKind::Lance);
        (up > 0 && !ranging).then_some(Horizontal::Straight)
    } else if left > 0 {
        Some(Horizontal::Right)
    } else {
        Some(Horizontal::Left)
    };
    let options = [
        Relative {
            vertical,
            ..Relative::default()
        },
        Relative {
            horizontal,
            ..Relative::default()
        },
        Relative {
            horizontal,
            vertical,
            drop: false,
        },
    ];
    for rel in options {
        if rel.is_empty() {
            continue;
        }
        let picked = filter_candidates(all, to, color, kind, &rel);
        if picked.len() == 1 && picked[0] == from {
            return rel;
        }
    }
    options[2]
}

/// Replays the record's main line and every variation (each from the position before the move
/// it replaces) and fills in `resolved` on every move node it reaches.
///
/// A line stops at the first move that cannot be resolved or played (one diagnostic, with the
/// move's line, column and ply); the rest of that line, and the variations hanging from it,
/// stay unresolved. No rule diagnostics are given: moves are played with
/// `Position::play_unchecked`, and only a move it refuses stops the line. A start position that
/// cannot be set up gives one `bad-position` diagnostic and nothing is resolved.
pub fn resolve_record(record: &mut Record) -> Vec<Diagnostic> {
    let mut diags = Vec::new();
    let setup = record.start.to_setup();
    // An impossible start (dead pieces, doubled pawns) is validate's to report; resolving
    // only needs a board the engine can represent.
    let pos = match Position::from_setup_lenient(&setup) {
        Ok(p) => p,
        Err(e) => {
            diags.push(Diagnostic::new(
                Code::BadPosition,
                format!("the start position cannot be set up: {e}"),
            ));
            return diags;
        }
    };
    let mut resolver = Resolver { diags };
    walk::walk_mut(&mut record.moves, 1, pos, &mut resolver);
    let mut diags = resolver.diags;
    diags.sort_by_key(|d| (d.line, d.column));
    diags
}

/// [`resolve_record`]'s walk: the position before each node, and what could not be played.
struct Resolver {
    diags: Vec<Diagnostic>,
}

impl walk::VisitMut for Resolver {
    type State = Position;

    fn branch(&mut self, _: &MoveNode, _: u32, pos: &Position) -> Position {
        pos.clone()
    }

    fn node(&mut self, node: &mut MoveNode, ply: u32, pos: &mut Position) -> Step {
        let NodeKind::Move { text, resolved } = &mut node.kind else {
            return Step::Continue;
        };
        let mv = match resolve_move(pos, text) {
            Ok(mv) => mv,
            Err(e) => {
                self.diags.push(
                    Diagnostic::new(e.code(), format!("move {ply} ({}): {e}", text.raw))
                        .at(node.span)
                        .ply(ply)
                        .with_move(text.raw.as_str()),
                );
                return Step::Stop;
            }
        };
        match pos.play_unchecked(mv) {
            Ok(_) => {
                *resolved = Some(mv);
                Step::Continue
            }
            Err(ill) => {
                self.diags.push(
                    Diagnostic::new(
                        Code::from(ill),
                        format!(
                            "move {ply} ({}) cannot be played: {}",
                            text.raw,
                            ill.as_str()
                        ),
                    )
                    .at(node.span)
                    .ply(ply)
                    .with_move(mv.to_usi()),
                );
                Step::Stop
            }
        }
    }
}
