//! The game key: a 64-bit FNV-1a hash of a game's start (the SFEN board, side to move and
//! hands) and every move of its main line (a move by its squares, promotion and dropped piece;
//! a move that could not be resolved by its text as written). Two games with the same key are
//! duplicates. Stable across runs, builds and machines: tables written by one version are
//! joined on it with tables written by another.
//!
//! It lives with the record, below the validator, so that the judge, as the reader tells the game, can hash
//! each move as it plays it ([`with_move`]): the hash's chain of multiplications then runs
//! beside the replay instead of in a loop of its own after it.

use super::{NodeKind, Record, StartPosition};
use crate::core::Move;

/// The key of a record's start and main line.
pub fn game_key(record: &Record) -> u64 {
    let mut h = start_key(&record.start);
    for node in &record.moves {
        if let NodeKind::Move { text, resolved } = &node.kind {
            h = match resolved {
                Some(m) => with_move(h, *m),
                None => with_text(h, &text.raw),
            };
        }
    }
    h
}

/// The key of a game from `start` before any move: what [`with_move`] and [`with_text`]
/// start from.
pub fn start_key(start: &StartPosition) -> u64 {
    if *start == StartPosition::Preset(crate::core::Handicap::Even) {
        return EVEN_START;
    }
    self::start(start.to_setup().to_sfen().as_bytes())
}

/// The key of a game whose key so far is `key`, after a move that could not be resolved,
/// written `raw`.
pub fn with_text(key: u64, raw: &str) -> u64 {
    let h = write(key, &[3]);
    let h = write(h, raw.as_bytes());
    write(h, &[0])
}

/// The key of a game from the even start before any move: what [`with_move`] starts from.
pub const EVEN_START: u64 =
    start(b"lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1");

/// The key of a game whose key so far is `key`, after the resolved move `m`.
#[inline]
pub fn with_move(key: u64, m: Move) -> u64 {
    match m {
        Move::Normal { from, to, promote } => write(
            key,
            &[1, from.index() as u8, to.index() as u8, u8::from(promote)],
        ),
        Move::Drop { kind, to } => write(key, &[2, kind.index() as u8, to.index() as u8]),
    }
}

/// The hash of a start position's SFEN: its first three fields (board, side to move, hands),
/// each followed by a space.
const fn start(sfen: &[u8]) -> u64 {
    let mut h = OFFSET;
    let mut i = 0;
    let mut fields = 0;
    while i < sfen.len() && fields < 3 {
        h = step(h, sfen[i]);
        if sfen[i] == b' ' {
            fields += 1;
        }
        i += 1;
    }
    if fields < 3 {
        // A field-short SFEN: its last field ends with a space too.
        h = step(h, b' ');
    }
    h
}

const OFFSET: u64 = 0xcbf2_9ce4_8422_2325;

#[inline]
const fn step(h: u64, b: u8) -> u64 {
    (h ^ b as u64).wrapping_mul(0x0000_0100_0000_01b3)
}

#[inline]
fn write(mut h: u64, bytes: &[u8]) -> u64 {
    for &b in bytes {
        h = step(h, b);
    }
    h
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::{Position, Setup};

    /// The hash of an SFEN's first three fields as the key was first defined: each field
    /// hashed, then a space.
    fn by_fields(sfen: &str) -> u64 {
        let mut h = OFFSET;
        for field in sfen.split(' ').take(3) {
            h = write(h, field.as_bytes());
            h = write(h, b" ");
        }
        h
    }

    #[test]
    fn the_even_start_is_the_hash_of_its_sfen() {
        let sfen = Setup::startpos().to_sfen();
        assert_eq!(EVEN_START, by_fields(&sfen));
        assert_eq!(EVEN_START, start(sfen.as_bytes()));
        for sfen in [
            "lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL w 2P3p 12",
            "4k4/9/9/9/9/9/9/9/4K4 b",
            "4k4/9/9/9/9/9/9/9/4K4 b -",
        ] {
            assert_eq!(start(sfen.as_bytes()), by_fields(sfen), "{sfen}");
        }
    }

    #[test]
    fn keys_do_not_change_between_builds() {
        // Written by the builds before the key moved here (session 20): tables written then
        // join on these values.
        assert_eq!(EVEN_START, 0x962b_9909_5aeb_8083);
        let even = StartPosition::Preset(crate::core::Handicap::Even);
        assert_eq!(start_key(&even), EVEN_START);
        let setup = StartPosition::Setup(Box::new(crate::core::Setup::startpos()));
        assert_eq!(start_key(&setup), EVEN_START, "the even start written out");
        let mut pos = Position::startpos();
        let moves: Vec<Move> = ["7g7f", "3c3d"]
            .iter()
            .map(|u| {
                let m = Move::from_usi(u).expect("usi");
                pos.play(m).expect("legal");
                m
            })
            .collect();
        let key = moves.iter().fold(EVEN_START, |h, &m| with_move(h, m));
        assert_eq!(key, 0x19c6_9873_0e3b_e75d);
    }
}
