//! The one layout kifu's writer and json-kifu-format's normalizer write, compact, read by
//! fixed literals: the hot path of reading JKF (one call per move), which gives what
//! [`P::entry`](super::P) gives of the same bytes.

use crate::core::{Color, PieceKind, Square};
use crate::formats::visit::WrittenMove;
use crate::record::MoveTime;

use super::MoveMembers;

/// A cursor over the bytes of the layout writers use, for [`written`].
struct Cur<'a> {
    b: &'a [u8],
    i: usize,
}

impl Cur<'_> {
    /// Takes `lit` if it is next.
    #[inline(always)]
    fn lit(&mut self, lit: &[u8]) -> bool {
        let hit = self.b.get(self.i..self.i + lit.len()) == Some(lit);
        if hit {
            self.i += lit.len();
        }
        hit
    }

    /// A digit from `0` to `max`, one byte.
    #[inline(always)]
    fn digit(&mut self, max: u8) -> Option<u8> {
        let d = self.b.get(self.i)?.wrapping_sub(b'0');
        (d <= max).then(|| {
            self.i += 1;
            d
        })
    }

    /// A whole number as [`P::uint`] reads it (no leading zero, at most 18 digits); what
    /// follows is checked by the caller's next literal.
    #[inline(always)]
    fn uint(&mut self) -> Option<u64> {
        let first = self.digit(9)?;
        let mut n = u64::from(first);
        let start = self.i;
        while let Some(d) = self.digit(9) {
            if first == 0 || self.i - start >= 18 {
                return None;
            }
            n = n * 10 + u64::from(d);
        }
        Some(n)
    }

    /// `{"x":X,"y":Y}`, one digit each: a square on the board.
    #[inline(always)]
    fn square(&mut self) -> Option<Square> {
        if !self.lit(b"{\"x\":") {
            return None;
        }
        let x = self.digit(9)?;
        if !self.lit(b",\"y\":") {
            return None;
        }
        let y = self.digit(9)?;
        self.lit(b"}").then_some(())?;
        Square::new(x, y)
    }

    /// A string of one to three ASCII capitals, its quotes included: the text of `piece`,
    /// `capture`, `relative`; the capitals.
    #[inline(always)]
    fn caps(&mut self) -> Option<std::ops::Range<usize>> {
        let b = self.b.get(self.i..)?;
        let n = match b {
            [b'"', x, b'"', ..] if x.is_ascii_uppercase() => 1,
            [b'"', x, y, b'"', ..] if x.is_ascii_uppercase() && y.is_ascii_uppercase() => 2,
            [b'"', x, y, z, b'"', ..]
                if x.is_ascii_uppercase() && y.is_ascii_uppercase() && z.is_ascii_uppercase() =>
            {
                3
            }
            _ => return None,
        };
        let start = self.i + 1;
        self.i += n + 2;
        Some(start..start + n)
    }

    /// `{"m":M,"s":S}`, or `{"h":H,"m":M,"s":S}` when `hours`, in milliseconds (as
    /// [`P::time`] counts them).
    #[inline(always)]
    fn hms(&mut self, hours: bool) -> Option<u64> {
        let h = if hours {
            if !self.lit(b"{\"h\":") {
                return None;
            }
            let h = self.uint()?;
            if !self.lit(b",\"m\":") {
                return None;
            }
            h
        } else {
            if !self.lit(b"{\"m\":") {
                return None;
            }
            0
        };
        let m = self.uint()?;
        if !self.lit(b",\"s\":") {
            return None;
        }
        let s = self.uint()?;
        self.lit(b"}").then_some(())?;
        Some(
            h.saturating_mul(3_600_000)
                .saturating_add(m.saturating_mul(60_000))
                .saturating_add(s.saturating_mul(1_000)),
        )
    }
}

/// A move with its raw text, its time, and the index after its entry.
pub(super) type Written<'a> = (WrittenMove<'a>, Option<MoveTime>, usize);

/// The move entry at `i` of `s` in the one layout kifu's writer and json-kifu-format's
/// normalizer write, compact: `{"move":{"color":C,"from":{"x":X,"y":Y},"to":{..},"piece":"FU"`
/// then `"same":true`, `"promote":true|false`, `"capture":"FU"`, `"relative":"L"` as they
/// apply, then `}` and maybe `,"time":{"now":{"m":M,"s":S},"total":{"h":H,"m":M,"s":S}}`, then
/// `}`. Read by fixed literals, it gives what [`P::entry`] gives of the same bytes (whose keys,
/// values and places are those): the move and its raw text, the time, and the index after the
/// entry; `None` for any other layout, which [`P::entry`] then reads. The hot path of reading
/// JKF (one call per move).
#[inline]
pub(super) fn written(s: &str, i: usize) -> Option<Written<'_>> {
    let b = s.as_bytes();
    let mut c = Cur { b, i };
    if !c.lit(b"{\"move\":") {
        return None;
    }
    let raw_start = c.i;
    if !c.lit(b"{\"color\":") {
        return None;
    }
    let color = match c.digit(1)? {
        0 => Color::Black,
        _ => Color::White,
    };
    let from = if c.lit(b",\"from\":") {
        Some(c.square()?)
    } else {
        None
    };
    if !c.lit(b",\"to\":") {
        return None;
    }
    let to = c.square()?;
    if !c.lit(b",\"piece\":") {
        return None;
    }
    let kind = match *b.get(c.caps()?)? {
        [x, y] => PieceKind::from_csa_bytes(x, y)?,
        _ => return None,
    };
    let same = c.lit(b",\"same\":true");
    let promote = if c.lit(b",\"promote\":true") {
        Some(true)
    } else if c.lit(b",\"promote\":false") {
        Some(false)
    } else {
        None
    };
    if c.lit(b",\"capture\":") {
        c.caps()?;
    }
    let relative = if c.lit(b",\"relative\":") {
        Some(s.get(c.caps()?)?)
    } else {
        None
    };
    if !c.lit(b"}") {
        return None;
    }
    let raw = s.get(raw_start..c.i)?;
    let time = if c.lit(b",\"time\":{\"now\":") {
        let elapsed = c.hms(false)?;
        if !c.lit(b",\"total\":") {
            return None;
        }
        let total = c.hms(true)?;
        if !c.lit(b"}") {
            return None;
        }
        Some(MoveTime {
            elapsed_ms: Some(elapsed),
            total_ms: Some(total),
        })
    } else {
        None
    };
    if !c.lit(b"}") {
        return None;
    }
    let m = MoveMembers {
        color: Some(color),
        from,
        to,
        same,
        kind,
        promote,
        relative,
    };
    Some((m.written(raw), time, c.i))
}
