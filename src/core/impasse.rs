//! Entering king (入玉) declarations: the CSA 27-point rule and the JSA 24-point rule.
//!
//! Points: rook, bishop, dragon and horse 5, every other piece 1, the king 0
//! (`PieceKind::impasse_points`). "Camp" means the declarer's promotion zone (the
//! opponent's three ranks).
//!
//! * [`DeclarationRule::Csa27`] (CSA / floodgate / WCSC, also the JSA amateur 27-point rule):
//!   the side to move declares instead of moving and wins iff its king is in camp, it is
//!   not in check, at least 10 of its other pieces are in camp, and its hand plus its
//!   pieces in camp make at least 28 points for Black (先手) or 27 for White (後手).
//!   Otherwise the declaration loses.
//! * [`DeclarationRule::Jsa24`] (JSA amateur 24-point declaration): the same conditions,
//!   and the points decide: 31 or more wins, 24 to 30 is a draw (持将棋), fewer fails.
//!
//! The professional JSA rule (both kings entered, the players agree, a side with fewer than
//! 24 points over all its pieces loses) is [`jsa24_points`] / [`jsa24_agreement`].
//! A time condition, where the event has one, is the caller's.

use std::fmt;

use super::{Bitboard, ByColor, Color, PieceKind, Position};

/// Which declaration rule applies.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum DeclarationRule {
    /// 27-point rule: 28 points for Black, 27 for White; success wins.
    Csa27,
    /// 24-point declaration: 31+ wins, 24-30 draws.
    Jsa24,
}

/// What a successful declaration achieves.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum DeclarationOutcome {
    /// The declarer wins.
    Win,
    /// The game is a draw (持将棋), under the 24-point rule with 24 to 30 points.
    Draw,
}

/// A successful declaration and its counts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Declaration {
    /// Win or draw.
    pub outcome: DeclarationOutcome,
    /// Points of the hand plus the pieces in camp.
    pub points: u32,
    /// Pieces in camp other than the king.
    pub pieces_in_camp: u32,
}

/// Why a declaration fails. The conditions are checked in this order and the first
/// failure is reported: king present, king in camp, not in check, ten pieces in camp,
/// points.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum DeclarationFailure {
    /// The declarer has no king.
    NoKing,
    /// The declarer's king is not in the opponent's camp.
    KingNotInCamp,
    /// The declarer is in check.
    InCheck,
    /// Fewer than ten of the declarer's other pieces are in camp.
    TooFewPiecesInCamp {
        /// How many are.
        count: u32,
    },
    /// Not enough points.
    TooFewPoints {
        /// Points counted.
        points: u32,
        /// Points needed.
        needed: u32,
    },
}

impl fmt::Display for DeclarationFailure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            DeclarationFailure::NoKing => f.write_str("the declarer has no king"),
            DeclarationFailure::KingNotInCamp => f.write_str("the king has not entered the camp"),
            DeclarationFailure::InCheck => f.write_str("the declarer is in check"),
            DeclarationFailure::TooFewPiecesInCamp { count } => {
                write!(f, "only {count} pieces in the camp, 10 needed")
            }
            DeclarationFailure::TooFewPoints { points, needed } => {
                write!(f, "{points} points, {needed} needed")
            }
        }
    }
}

impl std::error::Error for DeclarationFailure {}

fn points_of(pos: &Position, c: Color, squares: Bitboard) -> (u32, u32) {
    let mut pts = 0;
    let mut n = 0;
    for sq in squares & pos.pieces_of(c) {
        if let Some(p) = pos.piece_at(sq)
            && p.kind != PieceKind::King
        {
            pts += p.kind.impasse_points();
            n += 1;
        }
    }
    for (k, cnt) in pos.hand(c).iter() {
        pts += k.impasse_points() * u32::from(cnt);
    }
    (pts, n)
}

impl Position {
    /// Whether the side to move may declare a win (or draw) under `rule`, and why not.
    pub fn declare(&self, rule: DeclarationRule) -> Result<Declaration, DeclarationFailure> {
        let us = self.turn();
        let king = self.king_square(us).ok_or(DeclarationFailure::NoKing)?;
        let camp = Bitboard::far_ranks(us, 3);
        if !camp.contains(king) {
            return Err(DeclarationFailure::KingNotInCamp);
        }
        if self.in_check() {
            return Err(DeclarationFailure::InCheck);
        }
        let (points, pieces_in_camp) = points_of(self, us, camp);
        if pieces_in_camp < 10 {
            return Err(DeclarationFailure::TooFewPiecesInCamp {
                count: pieces_in_camp,
            });
        }
        let (needed, win_at) = match rule {
            DeclarationRule::Csa27 => {
                let n = if us == Color::Black { 28 } else { 27 };
                (n, n)
            }
            DeclarationRule::Jsa24 => (24, 31),
        };
        if points < needed {
            return Err(DeclarationFailure::TooFewPoints { points, needed });
        }
        let outcome = if points >= win_at {
            DeclarationOutcome::Win
        } else {
            DeclarationOutcome::Draw
        };
        Ok(Declaration {
            outcome,
            points,
            pieces_in_camp,
        })
    }
}

/// Points of every piece each side has on the board and in hand (kings count 0), as the
/// professional 24-point rule counts them.
pub fn jsa24_points(pos: &Position) -> ByColor<u32> {
    ByColor::new_with(|c| points_of(pos, c, Bitboard::FULL).0)
}

/// The professional JSA 24-point rule, applied when both kings have entered and the players
/// agree to end the game: `Err(KingNotInCamp)` unless both kings are in their camps;
/// otherwise `Ok(None)` for 持将棋 (both sides have 24 or more) or `Ok(Some(loser))` for the
/// side with fewer than 24 points. `removed_points` is added to White (上手) for the pieces a
/// handicap removed (0 in an even game). If both sides have fewer than 24, it is a draw.
pub fn jsa24_agreement(
    pos: &Position,
    removed_points: u32,
) -> Result<Option<Color>, DeclarationFailure> {
    for c in Color::ALL {
        let k = pos.king_square(c).ok_or(DeclarationFailure::NoKing)?;
        if !Bitboard::far_ranks(c, 3).contains(k) {
            return Err(DeclarationFailure::KingNotInCamp);
        }
    }
    let pts = jsa24_points(pos);
    let black = pts.black;
    let white = pts.white.saturating_add(removed_points);
    Ok(match (black < 24, white < 24) {
        (true, false) => Some(Color::Black),
        (false, true) => Some(Color::White),
        _ => None,
    })
}
