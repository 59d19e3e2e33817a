//! A stand-in for `record::resolve` until it lands: turns move text into a move against a
//! position, reporting `piece-mismatch`, `ambiguous-move` and `no-matching-move`.

use crate::core::{Move, Position};
use crate::diag::Code;
use crate::record::{MoveText, NamedPiece, Source};

/// Resolves `t` in `pos`.
pub(super) fn resolve(pos: &Position, t: &MoveText) -> Result<Move, (Code, String)> {
    let us = pos.turn();
    match t.from {
        Source::Square(from) => {
            let on = pos.piece_at(from).filter(|p| p.color == us);
            let mut promote = t.promote.unwrap_or(false);
            if let (Some(p), Some(named)) = (on, t.piece) {
                match named {
                    NamedPiece::Before(k) if k != p.kind => {
                        return Err((
                            Code::PieceMismatch,
                            format!(
                                "the move names {} but {} stands there",
                                k.kif_name(),
                                p.kind.kif_name()
                            ),
                        ));
                    }
                    NamedPiece::After(k) if k != p.kind => {
                        if p.kind.promote() == Some(k) {
                            promote = true;
                        } else {
                            return Err((
                                Code::PieceMismatch,
                                format!(
                                    "the move names {} but {} stands there",
                                    k.kif_name(),
                                    p.kind.kif_name()
                                ),
                            ));
                        }
                    }
                    _ => {}
                }
            }
            Ok(Move::Normal {
                from,
                to: t.to,
                promote,
            })
        }
        Source::Drop => {
            let kind = match t.piece {
                Some(NamedPiece::Before(k)) | Some(NamedPiece::After(k)) => k,
                None => {
                    return Err((
                        Code::NoMatchingMove,
                        "a drop that names no piece".to_owned(),
                    ));
                }
            };
            Ok(Move::Drop { kind, to: t.to })
        }
        Source::Unknown => {
            let kind = match t.piece {
                Some(NamedPiece::Before(k)) | Some(NamedPiece::After(k)) => Some(k),
                None => None,
            };
            let promote = t.promote.unwrap_or(false);
            let mut found: Option<Move> = None;
            let mut count = 0;
            for &m in pos.legal_moves().iter() {
                if m.to() != t.to {
                    continue;
                }
                let ok = match m {
                    Move::Normal {
                        from, promote: p, ..
                    } => {
                        p == promote
                            && kind
                                .is_none_or(|k| pos.piece_at(from).is_some_and(|pc| pc.kind == k))
                    }
                    Move::Drop { kind: dk, .. } => kind == Some(dk) && !promote,
                };
                if ok {
                    count += 1;
                    found = Some(m);
                }
            }
            match (count, found) {
                (1, Some(m)) => Ok(m),
                (0, _) => Err((
                    Code::NoMatchingMove,
                    "no legal move fits this text".to_owned(),
                )),
                _ => Err((
                    Code::AmbiguousMove,
                    format!("{count} legal moves fit this text"),
                )),
            }
        }
    }
}
