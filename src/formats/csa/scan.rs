//! CSA lines classified one at a time, without building a record: for a validator that only
//! needs the moves of games written the plain way machines write them (one statement per line,
//! even start position, no comments after statements). Every line the reader would treat in any
//! other way, or report, is [`Line::Other`], and the caller hands the game to the reader.

use crate::core::{Color, PieceKind, Square};
use crate::record::SpecialKind;

/// What one line of a CSA game is, as far as a move-by-move validator cares.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Line<'a> {
    /// A blank line or a `#` line: not even the start of a game.
    Blank,
    /// A line the reader keeps but that changes nothing on the board or in the result: a
    /// valid version line, `N+`/`N-` names, a `$KEY:value` line (other than `$JISHOGI`,
    /// which chooses the declaration rule), a comment.
    Info,
    /// `PI` with no pieces removed.
    EvenStart,
    /// `+` or `-` alone.
    Turn(Color),
    /// A move: `from` is `None` for a drop; `kind` is the piece after the move.
    Move {
        color: Color,
        from: Option<Square>,
        to: Square,
        kind: PieceKind,
    },
    /// A valid `T` line.
    Time,
    /// A known `%` special, with its whole text.
    Special(SpecialKind, &'a [u8]),
    /// Anything else (the reader decides).
    Other,
}

/// Classifies one line (without its line end). `line` is a whole line of UTF-8 text.
#[inline]
pub(crate) fn classify(b: &[u8]) -> Line<'_> {
    let Some(&first) = b.first() else {
        return Line::Blank;
    };
    match first {
        b'+' | b'-' => {
            let color = if first == b'+' {
                Color::Black
            } else {
                Color::White
            };
            match *b {
                [_] => Line::Turn(color),
                [_, f1, r1, f2, r2, k1, k2] => move_line(color, [f1, r1, f2, r2, k1, k2]),
                _ => Line::Other,
            }
        }
        b'T' => {
            if plain_seconds(b.get(1..).unwrap_or_default()) {
                Line::Time
            } else {
                Line::Other
            }
        }
        b'%' => match std::str::from_utf8(b.get(1..).unwrap_or_default())
            .ok()
            .and_then(SpecialKind::from_csa)
        {
            Some(kind) => Line::Special(kind, b),
            None => Line::Other,
        },
        b'\'' => Line::Info,
        b'#' => Line::Blank,
        b'N' if b.get(1).is_some_and(|&c| c == b'+' || c == b'-') => Line::Info,
        b'$' => match b.iter().position(|&c| c == b':') {
            Some(colon) if colon > 1 && b.get(..colon) != Some(b"$JISHOGI") => {
                let ok = b.get(1..colon).unwrap_or_default().iter().all(|&c| {
                    c.is_ascii_uppercase() || c.is_ascii_digit() || matches!(c, b'_' | b'+' | b'-')
                });
                if ok { Line::Info } else { Line::Other }
            }
            _ => Line::Other,
        },
        b'V' => match b.trim_ascii_end() {
            b"V1" | b"V2" | b"V2.1" | b"V2.2" | b"V3.0" => Line::Info,
            _ => Line::Other,
        },
        b'P' if b == b"PI" => Line::EvenStart,
        b'!'..=b'~' => Line::Other,
        _ if std::str::from_utf8(b).is_ok_and(|s| s.trim().is_empty()) => Line::Blank,
        _ => Line::Other,
    }
}

/// A move line `±f1r1f2r2KK` given its sign's colour and its six other bytes.
#[inline]
pub(crate) fn move_line(color: Color, b: [u8; 6]) -> Line<'static> {
    let [f1, r1, f2, r2, k1, k2] = b.map(|c| c.wrapping_sub(b'0'));
    if f1 > 9 || r1 > 9 || f2 > 9 || r2 > 9 {
        return Line::Other;
    }
    let from = if f1 == 0 && r1 == 0 {
        None
    } else {
        match Square::new(f1, r1) {
            Some(sq) => Some(sq),
            None => return Line::Other,
        }
    };
    let kind = PieceKind::from_csa_bytes(k1.wrapping_add(b'0'), k2.wrapping_add(b'0'));
    match (Square::new(f2, r2), kind) {
        (Some(to), Some(kind)) => Line::Move {
            color,
            from,
            to,
            kind,
        },
        _ => Line::Other,
    }
}

/// Whether `b` is seconds the reader takes without a second look: 1 to 15 digits, then
/// optionally `.` and at least one digit (so the milliseconds cannot overflow); anything
/// else, valid or not, is left to the reader.
#[inline]
fn plain_seconds(b: &[u8]) -> bool {
    let int = b.iter().take_while(|c| c.is_ascii_digit()).count();
    if int == 0 || int > 15 {
        return false;
    }
    match b.get(int..) {
        Some([]) => true,
        Some([b'.', frac @ ..]) => !frac.is_empty() && frac.iter().all(u8::is_ascii_digit),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines() {
        let sq = |f, r| Square::new(f, r).unwrap();
        assert_eq!(
            classify(b"+7776FU"),
            Line::Move {
                color: Color::Black,
                from: Some(sq(7, 7)),
                to: sq(7, 6),
                kind: PieceKind::Pawn
            }
        );
        assert_eq!(
            classify(b"-0055KA"),
            Line::Move {
                color: Color::White,
                from: None,
                to: sq(5, 5),
                kind: PieceKind::Bishop
            }
        );
        for other in [
            "+7776F",
            "+7776FUU",
            "+7076FU",
            "+7770FU",
            "+7776fu",
            "+7776FU,T3",
            "+7776FU ",
            "T",
            "T1.",
            "T-1",
            "T3,'x",
            "%UNKNOWN",
            "%TORYO ",
            "$JISHOGI:24",
            "$:x",
            "$bad:x",
            "$EVENT",
            "V9",
            "P1 * ",
            "PI82HI",
            "N",
            "Nx",
            "x",
            " +7776FU",
            "\u{3000}x",
        ] {
            assert_eq!(classify(other.as_bytes()), Line::Other, "{other:?}");
        }
        assert_eq!(classify(b"T12.5"), Line::Time);
        for (t, reader_takes_it) in [
            ("T0", true),
            ("T12", true),
            ("T1.500", true),
            ("T1.5000001", true),
            ("T999999999999999", true),
            ("T1.", false),
            ("T.5", false),
            ("T1.2.3", false),
            ("T+1", false),
            ("T1 ", false),
        ] {
            assert_eq!(classify(t.as_bytes()) == Line::Time, reader_takes_it, "{t}");
            assert_eq!(
                super::super::read::parse_seconds(&t[1..]).is_some(),
                reader_takes_it,
                "{t}"
            );
        }
        // Valid, but longer than the short way looks at: left to the reader.
        assert_eq!(classify(b"T1234567890123456"), Line::Other);
        assert_eq!(
            classify(b"%TORYO"),
            Line::Special(SpecialKind::Resign, b"%TORYO")
        );
        assert_eq!(classify(b"+"), Line::Turn(Color::Black));
        assert_eq!(classify(b"-"), Line::Turn(Color::White));
        assert_eq!(classify(b"PI"), Line::EvenStart);
        for info in [
            "V2.2", "V3.0 ", "N+a", "N-", "$EVENT:x", "$X_1+-:", "'c", "'",
        ] {
            assert_eq!(classify(info.as_bytes()), Line::Info, "{info:?}");
        }
        for blank in ["", "#x", "  ", "\t", "\u{3000}"] {
            assert_eq!(classify(blank.as_bytes()), Line::Blank, "{blank:?}");
        }
    }
}
