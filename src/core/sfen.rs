//! SFEN: parse and print positions (`lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1`).

use std::fmt;

use super::{Color, Hand, Piece, PieceKind, Position, Setup, SetupError, Square};

/// Why a text is not an SFEN position.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum SfenError {
    /// Not 3 or 4 space-separated fields (the move number may be omitted).
    FieldCount(usize),
    /// The board does not have nine ranks.
    RankCount(usize),
    /// A rank (1..=9) does not describe exactly nine squares.
    RankWidth(u8),
    /// A character that is not a piece letter, digit, `+` or `/` in a rank.
    BadBoardChar {
        /// The rank, 1..=9.
        rank: u8,
        /// The character.
        ch: char,
    },
    /// `+` not followed by a piece that can promote.
    BadPromotionMark(u8),
    /// The side field is not `b` or `w`.
    BadSide,
    /// The hand field is malformed (bad letter, a king, a count of 0 or above 255).
    BadHand,
    /// The move number is not a positive integer.
    BadMoveNumber,
    /// The text is well-formed but the position is impossible.
    Position(SetupError),
}

impl fmt::Display for SfenError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SfenError::FieldCount(n) => write!(f, "SFEN needs 3 or 4 fields, found {n}"),
            SfenError::RankCount(n) => write!(f, "SFEN board needs 9 ranks, found {n}"),
            SfenError::RankWidth(r) => write!(f, "SFEN rank {r} does not have 9 squares"),
            SfenError::BadBoardChar { rank, ch } => {
                write!(f, "unexpected character {ch:?} in SFEN rank {rank}")
            }
            SfenError::BadPromotionMark(r) => {
                write!(f, "'+' before a piece that cannot promote in SFEN rank {r}")
            }
            SfenError::BadSide => f.write_str("SFEN side to move must be 'b' or 'w'"),
            SfenError::BadHand => f.write_str("malformed SFEN hand"),
            SfenError::BadMoveNumber => f.write_str("malformed SFEN move number"),
            SfenError::Position(e) => write!(f, "impossible position: {e}"),
        }
    }
}

impl std::error::Error for SfenError {}

impl From<SetupError> for SfenError {
    fn from(e: SetupError) -> Self {
        SfenError::Position(e)
    }
}

fn parse_board(s: &str, setup: &mut Setup) -> Result<(), SfenError> {
    let ranks: Vec<&str> = s.split('/').collect();
    if ranks.len() != 9 {
        return Err(SfenError::RankCount(ranks.len()));
    }
    for (ri, text) in ranks.iter().enumerate() {
        let rank = ri as u8 + 1;
        let mut file: i32 = 9; // next file to fill
        let mut promoted = false;
        for ch in text.chars() {
            if let Some(d) = ch.to_digit(10) {
                if promoted || d == 0 {
                    return Err(SfenError::BadBoardChar { rank, ch });
                }
                file -= d as i32;
                if file < 0 {
                    return Err(SfenError::RankWidth(rank));
                }
            } else if ch == '+' {
                if promoted {
                    return Err(SfenError::BadPromotionMark(rank));
                }
                promoted = true;
            } else {
                let kind =
                    PieceKind::from_sfen_letter(ch).ok_or(SfenError::BadBoardChar { rank, ch })?;
                let kind = if promoted {
                    promoted = false;
                    kind.promote().ok_or(SfenError::BadPromotionMark(rank))?
                } else {
                    kind
                };
                let color = if ch.is_ascii_uppercase() {
                    Color::Black
                } else {
                    Color::White
                };
                let sq = u8::try_from(file)
                    .ok()
                    .and_then(|f| Square::new(f, rank))
                    .ok_or(SfenError::RankWidth(rank))?;
                setup.set_piece(sq, Some(Piece::new(color, kind)));
                file -= 1;
            }
        }
        if promoted {
            return Err(SfenError::BadPromotionMark(rank));
        }
        if file != 0 {
            return Err(SfenError::RankWidth(rank));
        }
    }
    Ok(())
}

fn parse_hands(s: &str, setup: &mut Setup) -> Result<(), SfenError> {
    if s == "-" {
        return Ok(());
    }
    let mut count: Option<u32> = None;
    let mut any = false;
    for ch in s.chars() {
        if let Some(d) = ch.to_digit(10) {
            let n = count.unwrap_or(0) * 10 + d;
            if n > 255 {
                return Err(SfenError::BadHand);
            }
            count = Some(n);
            continue;
        }
        let kind = PieceKind::from_sfen_letter(ch).ok_or(SfenError::BadHand)?;
        if !kind.is_hand_kind() {
            return Err(SfenError::BadHand);
        }
        let n = count.take().unwrap_or(1);
        if n == 0 {
            return Err(SfenError::BadHand);
        }
        let color = if ch.is_ascii_uppercase() {
            Color::Black
        } else {
            Color::White
        };
        let hand: &mut Hand = setup.hands.get_mut(color);
        let total = u32::from(hand.count(kind)) + n;
        let total = u8::try_from(total).map_err(|_| SfenError::BadHand)?;
        hand.set(kind, total);
        any = true;
    }
    if count.is_some() || !any {
        return Err(SfenError::BadHand);
    }
    Ok(())
}

impl Setup {
    /// Parses an SFEN position (board, side, hands and an optional move number) without
    /// checking that the position is possible.
    pub fn from_sfen(s: &str) -> Result<Setup, SfenError> {
        let fields: Vec<&str> = s.split_ascii_whitespace().collect();
        if !(3..=4).contains(&fields.len()) {
            return Err(SfenError::FieldCount(fields.len()));
        }
        let mut setup = Setup::empty();
        parse_board(fields[0], &mut setup)?;
        setup.turn = match fields[1] {
            "b" => Color::Black,
            "w" => Color::White,
            _ => return Err(SfenError::BadSide),
        };
        parse_hands(fields[2], &mut setup)?;
        if let Some(n) = fields.get(3) {
            if !n.bytes().all(|b| b.is_ascii_digit()) {
                return Err(SfenError::BadMoveNumber);
            }
            setup.move_number = match n.parse::<u32>() {
                Ok(n) if n >= 1 => n,
                _ => return Err(SfenError::BadMoveNumber),
            };
        }
        Ok(setup)
    }

    /// SFEN text. Hands are written Black first, each strongest first (R B G S N L P).
    pub fn to_sfen(&self) -> String {
        super::sfen_writer::text(&super::sfen_writer::SfenWriter::from_setup(self))
    }
}

impl Position {
    /// Parses an SFEN position and validates it (see [`Position::from_setup`]).
    pub fn from_sfen(s: &str) -> Result<Position, SfenError> {
        Ok(Position::from_setup(&Setup::from_sfen(s)?)?)
    }

    /// Parses an SFEN position, accepting a side without a king
    /// (see [`Position::from_setup_relaxed`]).
    pub fn from_sfen_relaxed(s: &str) -> Result<Position, SfenError> {
        Ok(Position::from_setup_relaxed(&Setup::from_sfen(s)?)?)
    }

    /// SFEN text of the position.
    pub fn to_sfen(&self) -> String {
        super::sfen_writer::sfen(self)
    }
}
