//! The time control of a game, read from the header forms the formats write: CSA V2's
//! `$TIME_LIMIT:HH:MM+SS`, CSA V3.0's `$TIME:main+byoyomi+increment` (and `$TIME+`/`$TIME-` for
//! one side), KIF's `持ち時間` in its common Japanese wordings (`各2時間`, `10分切れ負け`,
//! `1分+秒読み30秒`, with a separate `秒読み：30秒` line), ShogiHome's `先手持ち時間` /
//! `後手持ち時間`, and, where no header states it, the shogi-server game name in the event
//! (`wdoor+floodgate-300-10F+...`: 300 s and 10 s added per move).
//!
//! A wording this module does not understand entirely gives no time control: it is better to
//! say nothing about the clock than to judge it by a misread rule (a 考慮時間 bank, a per-side
//! handicap in words).
//!
//! Layer: formats (it knows the header keys and wordings of CSA and KIF); `validate` holds the
//! per-move times against it.

use crate::core::Color;
use crate::record::{Header, keys};

/// One side's allowance, in milliseconds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct SideTime {
    /// The main time (持ち時間).
    pub main_ms: u64,
    /// The time each move may take once the main time is spent (秒読み): `Some(0)` for sudden
    /// death (切れ負け), `None` where the record does not say (`持ち時間：各5時間` alone).
    pub byoyomi_ms: Option<u64>,
    /// The time added after each move (Fischer).
    pub increment_ms: u64,
}

/// Both sides' allowances.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct TimeControl {
    /// Black's (先手, 下手) allowance.
    pub black: SideTime,
    /// White's (後手, 上手) allowance.
    pub white: SideTime,
}

impl TimeControl {
    /// The same allowance for both sides.
    pub const fn both(side: SideTime) -> TimeControl {
        TimeControl {
            black: side,
            white: side,
        }
    }

    /// The allowance of `color`.
    pub const fn side(&self, color: Color) -> &SideTime {
        match color {
            Color::Black => &self.black,
            Color::White => &self.white,
        }
    }

    /// The time control a header states, if it states one this module reads in full.
    ///
    /// ```
    /// use kifu::formats::time_control::{SideTime, TimeControl};
    /// use kifu::record::{Header, Span};
    ///
    /// let mut header = Header::default();
    /// header.push("持ち時間", "10分切れ負け", Span::default());
    /// let tc = TimeControl::of(&header).unwrap();
    /// assert_eq!(tc.black, SideTime { main_ms: 600_000, byoyomi_ms: Some(0), increment_ms: 0 });
    /// ```
    pub fn of(header: &Header) -> Option<TimeControl> {
        TimeControl::from_keys(|key| header.get(key))
    }

    /// [`TimeControl::of`] over any key lookup: `get` answers for the record's header keys
    /// (`持ち時間`, which the CSA reader gives `$TIME_LIMIT`'s value; `$TIME`, `$TIME+`,
    /// `$TIME-`, `秒読み`, `先手持ち時間`, `後手持ち時間`, `棋戦`, `表題`).
    pub fn from_keys<'a>(get: impl Fn(&str) -> Option<&'a str>) -> Option<TimeControl> {
        let per_side = |black: &str, white: &str| {
            let b = get(black).and_then(side_time)?;
            let w = get(white).and_then(side_time)?;
            Some(TimeControl { black: b, white: w })
        };
        if let Some(tc) = per_side("$TIME+", "$TIME-") {
            return Some(tc);
        }
        if let Some(tc) = per_side("先手持ち時間", "後手持ち時間") {
            return Some(tc);
        }
        let stated = get("$TIME").or_else(|| get(keys::TIME_CONTROL));
        if let Some(value) = stated {
            let mut side = side_time(value)?;
            if side.byoyomi_ms.is_none() {
                // `秒読み：30秒`: the line's one duration.
                side.byoyomi_ms = get("秒読み")
                    .and_then(side_time)
                    .map(|s| s.byoyomi_ms.filter(|_| s.main_ms == 0).unwrap_or(s.main_ms));
            }
            return Some(TimeControl::both(side));
        }
        [keys::EVENT, "表題"]
            .into_iter()
            .filter_map(&get)
            .find_map(server_game_name)
            .map(TimeControl::both)
    }
}

impl TimeControl {
    /// The time control an organiser gives for a run (`kifu validate --time-control`), the
    /// same for both sides, in the forms the headers use or a short English form:
    ///
    /// * `MAIN[+BYOYOMI[+INCREMENT]]`, each a number of seconds or a duration with units
    ///   (`1h`, `10m`, `30s`, `1h30m`): `600+10` and `10m+10s` are ten minutes and 10 s of
    ///   秒読み, `600+0+10` ten minutes and 10 s added per move (as CSA V3.0's `$TIME`);
    /// * a part may say what it is instead: `10m+10s increment` (or `inc`, `fischer`, or
    ///   floodgate's `10F`), `1h/30s byoyomi`; `/` stands for `+`;
    /// * a main time alone is sudden death (`10m`, `1h`: 切れ負け);
    /// * CSA V2's `HH:MM+SS` and the Japanese wordings of `持ち時間` (`10分切れ負け`,
    ///   `1時間+秒読み30秒`), read as a header is.
    ///
    /// ```
    /// use kifu::formats::time_control::{SideTime, TimeControl};
    ///
    /// let tc = TimeControl::from_spec("10m+10s").unwrap();
    /// assert_eq!(tc.black, SideTime { main_ms: 600_000, byoyomi_ms: Some(10_000), increment_ms: 0 });
    /// let fischer = TimeControl::from_spec("300+10F").unwrap();
    /// assert_eq!(fischer.white.increment_ms, 10_000);
    /// ```
    pub fn from_spec(spec: &str) -> Option<TimeControl> {
        let spec = spec.trim();
        english(spec).or_else(|| side_time(spec)).map(|mut side| {
            side.byoyomi_ms.get_or_insert(0);
            TimeControl::both(side)
        })
    }
}

/// The organiser's short form of [`TimeControl::from_spec`]: `+`- or `/`-separated parts,
/// each a duration (`600`, `10m`, `1h30m`, `30s`) and maybe a word naming it.
fn english(spec: &str) -> Option<SideTime> {
    let spec = spec.to_ascii_lowercase();
    let mut side = SideTime::default();
    let mut byoyomi: Option<u64> = None;
    let mut unnamed = 0;
    for (i, part) in spec.split(['+', '/']).enumerate() {
        let part = part.trim();
        let (amount, word) = match part.split_once(char::is_whitespace) {
            Some((a, w)) => (a, Some(w.trim())),
            None => (part, None),
        };
        let (amount, floodgate_f) = match amount.strip_suffix('f') {
            Some(a) if i > 0 => (a, true),
            _ => (amount, false),
        };
        let ms = english_duration(amount)?;
        let is_increment = floodgate_f || matches!(word, Some("increment" | "inc" | "fischer"));
        let is_byoyomi = matches!(word, Some("byoyomi" | "b"));
        if word.is_some() && !is_increment && !is_byoyomi {
            return None;
        }
        match i {
            0 if word.is_none() => side.main_ms = ms,
            _ if is_increment => side.increment_ms = ms,
            _ if is_byoyomi || unnamed == 0 => {
                if byoyomi.replace(ms).is_some() {
                    return None;
                }
                unnamed += usize::from(!is_byoyomi);
            }
            // CSA V3.0's third field, an increment.
            2 => side.increment_ms = ms,
            _ => return None,
        }
    }
    side.byoyomi_ms = byoyomi;
    Some(side)
}

/// `600` (seconds), or units in order: `1h30m`, `10m`, `45s`; in milliseconds.
fn english_duration(s: &str) -> Option<u64> {
    if let Some(n) = number(s) {
        return n.checked_mul(1000);
    }
    let mut rest = s;
    let mut total = 0u64;
    let mut next = 0;
    const UNITS: [(char, u64); 3] = [('h', 3_600_000), ('m', 60_000), ('s', 1_000)];
    while !rest.is_empty() {
        let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
        let n = number(&rest[..digits])?;
        let unit = rest[digits..].chars().next()?;
        let (i, (_, ms)) = UNITS
            .iter()
            .enumerate()
            .skip(next)
            .find(|(_, (u, _))| *u == unit)?;
        total = total.checked_add(n.checked_mul(*ms)?)?;
        next = i + 1;
        rest = &rest[digits + unit.len_utf8()..];
    }
    (next > 0).then_some(total)
}

/// One allowance in any of the written forms.
fn side_time(value: &str) -> Option<SideTime> {
    let value: String = value.trim().chars().map(narrow).collect();
    csa_limit(&value)
        .or_else(|| csa_v3(&value))
        .or_else(|| japanese(&value))
}

/// Full-width digits and signs as ASCII.
fn narrow(c: char) -> char {
    match c {
        '０'..='９' => char::from_u32(c as u32 - '０' as u32 + '0' as u32).unwrap_or(c),
        '＋' => '+',
        '：' => ':',
        '．' => '.',
        '　' => ' ',
        _ => c,
    }
}

/// CSA V2's `HH:MM+SS`: hours and minutes of main time, seconds of byoyomi.
fn csa_limit(v: &str) -> Option<SideTime> {
    let (hm, byoyomi) = v.split_once('+')?;
    let (h, m) = hm.trim().split_once(':')?;
    let (h, m, s) = (number(h)?, number(m)?, number(byoyomi.trim())?);
    if m >= 60 {
        return None;
    }
    Some(SideTime {
        main_ms: (h * 3600 + m * 60).checked_mul(1000)?,
        byoyomi_ms: Some(s.checked_mul(1000)?),
        increment_ms: 0,
    })
}

/// CSA V3.0's `main+byoyomi+increment`, in seconds (decimals allowed).
fn csa_v3(v: &str) -> Option<SideTime> {
    let mut parts = v.split('+').map(|p| super::csa::parse_seconds(p.trim()));
    let (main, byoyomi, increment) = (parts.next()??, parts.next()??, parts.next()??);
    if parts.next().is_some() {
        return None;
    }
    Some(SideTime {
        main_ms: main,
        byoyomi_ms: Some(byoyomi),
        increment_ms: increment,
    })
}

/// A run of ASCII digits (at most 9).
fn number(s: &str) -> Option<u64> {
    if s.is_empty() || s.len() > 9 || !s.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    s.parse().ok()
}

/// Where the next duration of a Japanese wording goes.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Slot {
    Main,
    Byoyomi,
    Increment,
}

/// The Japanese wordings (full-width digits made narrow by [`side_time`]): durations (`2時間`, `30分`, `1時間30分`, `30秒`) with the words that
/// say what they are (`秒読み`, `切れ負け`, `加算` / `フィッシャー`), a leading `各`, and notes that
/// change nothing (`チェスクロック使用`). A second duration after `+` or `、` with no word
/// (`5分+30秒`) is left unknown: writers use that form for byoyomi and for an increment alike
/// (81Dojo's `10分+30秒` records show moves of 1:36 after the main time). Anything else: `None`.
fn japanese(v: &str) -> Option<SideTime> {
    const IGNORED: &[&str] = &[
        "各",
        "持ち時間",
        "チェスクロック使用",
        "チェスクロック",
        "使用",
        "ずつ",
        "+",
        "、",
        ",",
        "，",
        "(",
        ")",
        "（",
        "）",
        "・",
        " ",
        "\t",
    ];
    let mut rest = v;
    let (mut main, mut byoyomi, mut increment) = (None::<u64>, None::<u64>, 0u64);
    let mut slot = Slot::Main;
    let mut last: Option<(Slot, u64)> = None;
    // A second duration with no word for it (`5分+30秒`): writers mean byoyomi or an increment.
    let mut unnamed_extra = false;
    while !rest.is_empty() {
        if let Some(r) = rest.strip_prefix("秒読み") {
            slot = Slot::Byoyomi;
            rest = r;
        } else if let Some(r) = rest.strip_prefix("切れ負け") {
            byoyomi = Some(byoyomi.unwrap_or(0));
            rest = r;
        } else if let Some(r) = ["加算", "フィッシャー"]
            .iter()
            .find_map(|w| rest.strip_prefix(w))
        {
            // `10秒加算` names the duration before it; `加算10秒` the one after.
            match last.take() {
                Some((Slot::Byoyomi, d)) if byoyomi == Some(d) => {
                    byoyomi = None;
                    increment = d;
                }
                _ => slot = Slot::Increment,
            }
            rest = r;
        } else if let Some(r) = IGNORED.iter().find_map(|w| rest.strip_prefix(w)) {
            rest = r;
        } else if rest.starts_with(|c: char| c.is_ascii_digit()) {
            let (ms, r) = duration(rest)?;
            rest = r;
            let into = match slot {
                Slot::Main if main.is_some() => {
                    unnamed_extra = true;
                    Slot::Byoyomi
                }
                s => s,
            };
            match into {
                Slot::Main => main = Some(ms),
                Slot::Byoyomi if byoyomi.is_none() => byoyomi = Some(ms),
                Slot::Increment if increment == 0 => increment = ms,
                _ => return None,
            }
            last = Some((into, ms));
            slot = Slot::Main;
        } else {
            return None;
        }
    }
    if unnamed_extra && increment == 0 {
        // Which of the two it is, the record does not say: neither is assumed.
        byoyomi = None;
    }
    match main {
        Some(main_ms) => Some(SideTime {
            main_ms,
            byoyomi_ms: byoyomi,
            increment_ms: increment,
        }),
        // `秒読み30秒` alone (a 秒読み line, or a byoyomi-only game: no main time).
        None if byoyomi.is_some() || increment > 0 => Some(SideTime {
            main_ms: 0,
            byoyomi_ms: byoyomi,
            increment_ms: increment,
        }),
        None => None,
    }
}

/// A duration at the start of `s`: one or more `N時間`, `N分`, `N秒` in that order
/// (`1時間30分`), in milliseconds, and the rest of `s`.
fn duration(mut s: &str) -> Option<(u64, &str)> {
    const UNITS: [(&str, u64); 3] = [("時間", 3_600_000), ("分", 60_000), ("秒", 1_000)];
    let mut total = 0u64;
    let mut next_unit = 0;
    loop {
        let digits = s.bytes().take_while(u8::is_ascii_digit).count();
        if digits == 0 {
            break;
        }
        let n = number(&s[..digits])?;
        let after = &s[digits..];
        let (i, (unit, ms)) = UNITS
            .iter()
            .enumerate()
            .skip(next_unit)
            .find(|(_, (u, _))| after.starts_with(u))?;
        total = total.checked_add(n.checked_mul(*ms)?)?;
        next_unit = i + 1;
        s = &after[unit.len()..];
    }
    (next_unit > 0).then_some((total, s))
}

/// A shogi-server game id or game name: `...-TOTAL-BYOYOMI` (seconds) or `...-TOTAL-INCF`
/// (Fischer), as the name field of `wdoor+floodgate-300-10F+black+white+20240101120000`.
/// Only a whole game id is read (at least five `+`-separated fields, the last a 14-digit
/// timestamp), so that an event that merely contains dashes (`2024-01-05`) is not taken for one.
fn server_game_name(event: &str) -> Option<SideTime> {
    let mut fields = event.trim().split('+');
    let game_name = fields.nth(1)?;
    let (count, stamp) = fields.fold((2, ""), |(n, _), f| (n + 1, f));
    if count < 5 || stamp.len() != 14 || !stamp.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let mut parts = game_name.rsplitn(3, '-');
    let (last, total, name) = (parts.next()?, parts.next()?, parts.next()?);
    if !name.bytes().any(|b| b.is_ascii_alphabetic()) || !name.bytes().all(|b| b.is_ascii_graphic())
    {
        return None;
    }
    let total = number(total)?.checked_mul(1000)?;
    let (byoyomi, increment) = match last.strip_suffix('F') {
        Some(inc) => (0, number(inc)?.checked_mul(1000)?),
        None => (number(last)?.checked_mul(1000)?, 0),
    };
    Some(SideTime {
        main_ms: total,
        byoyomi_ms: Some(byoyomi),
        increment_ms: increment,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_organisers_time_control() {
        let spec = |s: &str| TimeControl::from_spec(s).map(|t| t.black);
        let st = |main_s: u64, byoyomi_s: u64, inc_s: u64| SideTime {
            main_ms: main_s * 1000,
            byoyomi_ms: Some(byoyomi_s * 1000),
            increment_ms: inc_s * 1000,
        };
        for (text, want) in [
            ("10m+10s", st(600, 10, 0)),
            ("600+10", st(600, 10, 0)),
            ("600+0+10", st(600, 0, 10)),
            ("1h/30s byoyomi", st(3600, 30, 0)),
            ("1h30m+30s", st(5400, 30, 0)),
            ("10m+10s increment", st(600, 0, 10)),
            ("300+10F", st(300, 0, 10)),
            ("10m", st(600, 0, 0)),
            ("1H + 60S Byoyomi", st(3600, 60, 0)),
            ("00:10+30", st(600, 30, 0)),
            ("10分切れ負け", st(600, 0, 0)),
            ("1時間+秒読み30秒", st(3600, 30, 0)),
        ] {
            assert_eq!(spec(text), Some(want), "{text}");
        }
        for bad in [
            "",
            "ten minutes",
            "10x",
            "10m+10s+5s+1s",
            "10m+5s byoyomi+6s byoyomi",
            "10m+5s later",
            "s10",
        ] {
            assert_eq!(spec(bad), None, "{bad}");
        }
    }

    fn st(main_s: u64, byoyomi_s: Option<u64>, inc_s: u64) -> SideTime {
        SideTime {
            main_ms: main_s * 1000,
            byoyomi_ms: byoyomi_s.map(|b| b * 1000),
            increment_ms: inc_s * 1000,
        }
    }

    #[test]
    fn csa_forms() {
        assert_eq!(side_time("00:25+00"), Some(st(1500, Some(0), 0)));
        assert_eq!(side_time(" 0:00+10"), Some(st(0, Some(10), 0)));
        assert_eq!(side_time("10:00+10"), Some(st(36_000, Some(10), 0)));
        assert_eq!(side_time("00:30+05"), Some(st(1800, Some(5), 0)));
        assert_eq!(side_time("900+0+5"), Some(st(900, Some(0), 5)));
        assert_eq!(side_time("30+0+5"), Some(st(30, Some(0), 5)));
        assert_eq!(side_time("600+30+0"), Some(st(600, Some(30), 0)));
        assert_eq!(
            side_time("0.5+1.25+0").map(|s| (s.main_ms, s.byoyomi_ms)),
            Some((500, Some(1250)))
        );
        assert_eq!(side_time("00:61+00"), None);
        assert_eq!(side_time("600+30"), None);
    }

    #[test]
    fn japanese_forms() {
        assert_eq!(side_time("各2時間"), Some(st(7200, None, 0)));
        assert_eq!(side_time("各５時間"), Some(st(18_000, None, 0)));
        assert_eq!(side_time("6時間"), Some(st(21_600, None, 0)));
        assert_eq!(side_time("10分"), Some(st(600, None, 0)));
        assert_eq!(side_time("10分切れ負け"), Some(st(600, Some(0), 0)));
        assert_eq!(side_time("25分、切れ負け"), Some(st(1500, Some(0), 0)));
        assert_eq!(side_time("1分+秒読み30秒"), Some(st(60, Some(30), 0)));
        // Byoyomi or increment: the wording does not say.
        assert_eq!(side_time("5分+30秒"), Some(st(300, None, 0)));
        assert_eq!(side_time("15分+60秒"), Some(st(900, None, 0)));
        assert_eq!(
            side_time("各1時間（秒読み60秒）"),
            Some(st(3600, Some(60), 0))
        );
        assert_eq!(side_time("1時間30分"), Some(st(5400, None, 0)));
        assert_eq!(
            side_time("各5時間（チェスクロック使用）"),
            Some(st(18_000, None, 0))
        );
        assert_eq!(side_time("5分+10秒加算"), Some(st(300, None, 10)));
        assert_eq!(side_time("5分+加算10秒"), Some(st(300, None, 10)));
        assert_eq!(side_time("秒読み30秒"), Some(st(0, Some(30), 0)));
        // Not understood in full: no time control rather than a wrong one.
        assert_eq!(side_time("一億年"), None);
        assert_eq!(side_time("10分（考慮時間1分×10回）"), None);
        assert_eq!(side_time("先手1時間 後手30分"), None);
        assert_eq!(side_time("30秒10分"), None);
        assert_eq!(side_time(""), None);
    }

    #[test]
    fn header_keys() {
        let tc = |pairs: &[(&str, &str)]| {
            TimeControl::from_keys(|k| pairs.iter().find(|(key, _)| *key == k).map(|(_, v)| *v))
        };
        assert_eq!(
            tc(&[("持ち時間", "各1時間"), ("秒読み", "60秒")]),
            Some(TimeControl::both(st(3600, Some(60), 0)))
        );
        assert_eq!(
            tc(&[("$TIME+", "600+0+10"), ("$TIME-", "300+30+0")]),
            Some(TimeControl {
                black: st(600, Some(0), 10),
                white: st(300, Some(30), 0)
            })
        );
        assert_eq!(
            tc(&[("先手持ち時間", "600+0+10"), ("後手持ち時間", "600+30+0")]).map(|t| t.white),
            Some(st(600, Some(30), 0))
        );
        assert_eq!(
            tc(&[(
                "棋戦",
                "wdoor+floodgate-300-10F+Titanda_L+SILENT+20170302210003"
            )]),
            Some(TimeControl::both(st(300, Some(0), 10)))
        );
        assert_eq!(
            tc(&[(
                "棋戦",
                "dr1test1test0+tu-1_aobazero_viper-600-10+a+b+20200719201040"
            )]),
            Some(TimeControl::both(st(600, Some(10), 0)))
        );
        // A stated control that is not understood is not replaced by a guess from the event.
        assert_eq!(
            tc(&[
                ("持ち時間", "一億年"),
                ("棋戦", "x+floodgate-300-10F+a+b+20240101120000")
            ]),
            None
        );
        assert_eq!(tc(&[("棋戦", "第27期竜王戦挑戦者決定三番勝負")]), None);
        assert_eq!(tc(&[("棋戦", "2024-01-05")]), None);
        assert_eq!(tc(&[("棋戦", "floodgate-300-10F")]), None);
        assert_eq!(tc(&[]), None);
    }
}
