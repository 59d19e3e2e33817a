//! Start dates and times as records write them (`2017/03/02 21:00:02`, `2014/09/02(火) 9:00`,
//! `2014年09月02日`, `2021-05-03T15:45:43`, full-width digits), read into a calendar date and
//! an optional time of day.

/// A date and, when the record gives it, a time of day (local time of the record, no zone).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct DateTime {
    /// Days since 1970-01-01.
    pub days: i32,
    /// Seconds since midnight, when a time is written.
    pub seconds: Option<u32>,
}

impl DateTime {
    /// The date as `YYYY-MM-DD`.
    pub fn date_iso(&self) -> String {
        let (y, m, d) = civil_from_days(self.days);
        format!("{y:04}-{m:02}-{d:02}")
    }

    /// The date and time as `YYYY-MM-DDTHH:MM:SS`, when a time is known.
    pub fn time_iso(&self) -> Option<String> {
        let s = self.seconds?;
        Some(format!(
            "{}T{:02}:{:02}:{:02}",
            self.date_iso(),
            s / 3600,
            s / 60 % 60,
            s % 60
        ))
    }

    /// The year.
    pub fn year(&self) -> i32 {
        civil_from_days(self.days).0
    }

    /// Milliseconds since 1970-01-01 00:00 (as a timestamp without a zone), when a time is
    /// known.
    pub fn timestamp_ms(&self) -> Option<i64> {
        let s = self.seconds?;
        Some((i64::from(self.days) * 86_400 + i64::from(s)) * 1000)
    }
}

/// Reads a date given on the command line or in a record: a year of four digits, a month
/// and a day (`2024-01-05`, `2024/1/5`, `2024年1月5日`); the rest is left. `None` when there is
/// no such date, or it does not exist.
pub fn parse_date(s: &str) -> Option<i32> {
    parse_datetime(s).map(|d| d.days)
}

/// Reads a date and, when written after it, a time `H:MM` or `H:MM:SS` (a weekday in
/// brackets between them is skipped). `None` when there is no date.
pub fn parse_datetime(s: &str) -> Option<DateTime> {
    // Full-width digits and colons as ASCII.
    let narrow: String = s
        .chars()
        .map(|c| match c {
            '０'..='９' => char::from(b'0' + (c as u32 - '０' as u32) as u8),
            '：' => ':',
            '／' => '/',
            c => c,
        })
        .collect();
    let mut nums = Numbers::new(&narrow);
    let (y, len) = nums.next()?;
    if len != 4 {
        return None;
    }
    let (m, _) = nums.next()?;
    let (d, _) = nums.next()?;
    if !(1..=12).contains(&m) || d < 1 || d > days_in_month(y as i32, m) {
        return None;
    }
    let days = days_from_civil(y as i32, m, d);
    // A time: `H:MM[:SS]` after the date.
    let rest = &narrow[nums.at..];
    let seconds = parse_time(rest);
    Some(DateTime { days, seconds })
}

/// `H:MM` or `H:MM:SS` somewhere in `s` (the first colon-joined run of numbers), on a
/// 24-hour clock, or on a 12-hour one after `午前`/`午後` or before `AM`/`PM` (`午後3:00` is
/// 15:00; `午前12:00` is midnight and `午後12:00` noon, as Japanese clocks write them).
fn parse_time(s: &str) -> Option<u32> {
    let colon = s.find(':')?;
    // The hour's digits: the ASCII digits just before the colon (`start` is a char boundary,
    // since an ASCII digit is a whole character).
    let start = colon
        - s[..colon]
            .bytes()
            .rev()
            .take_while(u8::is_ascii_digit)
            .count();
    let mut parts = s[start..]
        .split(':')
        .map(|p| {
            let digits = p.bytes().take_while(u8::is_ascii_digit).count();
            if digits == 0 || digits > 2 {
                return None;
            }
            p[..digits].parse::<u32>().ok()
        })
        .take(3);
    let mut h = parts.next()??;
    let m = parts.next()??;
    let sec = parts.next().flatten().unwrap_or(0);
    let before = s[..start].trim_end();
    let after = s[start..].trim_start_matches(|c: char| c.is_ascii_digit() || c == ':');
    let after = after.trim_start().as_bytes();
    // `AM`, `am`, `A.M.`... after the time (no copy of the text: this runs for every game row).
    let marked = |word: &[u8], dotted: &[u8]| {
        [word, dotted].iter().any(|w| {
            after
                .get(..w.len())
                .is_some_and(|a| a.eq_ignore_ascii_case(w))
        })
    };
    let morning = before.ends_with("午前") || marked(b"AM", b"A.M");
    let afternoon = before.ends_with("午後") || marked(b"PM", b"P.M");
    if morning || afternoon {
        if h > 12 {
            return None;
        }
        h %= 12;
        if afternoon {
            h += 12;
        }
    }
    (h < 24 && m < 60 && sec < 60).then_some(h * 3600 + m * 60 + sec)
}

/// The runs of ASCII digits of a string, with their lengths.
struct Numbers<'a> {
    s: &'a str,
    at: usize,
}

impl<'a> Numbers<'a> {
    fn new(s: &'a str) -> Numbers<'a> {
        Numbers { s, at: 0 }
    }

    fn next(&mut self) -> Option<(u32, usize)> {
        let b = self.s.as_bytes();
        while self.at < b.len() && !b[self.at].is_ascii_digit() {
            self.at += 1;
        }
        let start = self.at;
        while self.at < b.len() && b[self.at].is_ascii_digit() {
            self.at += 1;
        }
        let len = self.at - start;
        if len == 0 || len > 4 {
            return None;
        }
        Some((self.s[start..self.at].parse().ok()?, len))
    }
}

fn is_leap(y: i32) -> bool {
    (y % 4 == 0 && y % 100 != 0) || y % 400 == 0
}

fn days_in_month(y: i32, m: u32) -> u32 {
    match m {
        2 if is_leap(y) => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    }
}

/// Days since 1970-01-01 of a proleptic Gregorian date (H. Hinnant's algorithm).
fn days_from_civil(y: i32, m: u32, d: u32) -> i32 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let m = m as i32;
    let doy = (153 * (if m > 2 { m - 3 } else { m + 9 }) + 2) / 5 + d as i32 - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

/// The date of a day count (inverse of [`days_from_civil`]).
fn civil_from_days(z: i32) -> (i32, u32, u32) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let y = yoe + era * 400;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    (if m <= 2 { y + 1 } else { y }, m, d)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn record_wordings() {
        let d = parse_datetime("2017/03/02 21:00:02").expect("date");
        assert_eq!(d.date_iso(), "2017-03-02");
        assert_eq!(d.time_iso().as_deref(), Some("2017-03-02T21:00:02"));
        assert_eq!(d.year(), 2017);
        let d = parse_datetime("2014/09/02(火) 9:00").expect("date");
        assert_eq!(d.time_iso().as_deref(), Some("2014-09-02T09:00:00"));
        let d = parse_datetime("２０１４年０９月０２日").expect("date");
        assert_eq!((d.date_iso().as_str(), d.seconds), ("2014-09-02", None));
        let d = parse_datetime("2021-05-03T15:45:43+09:00").expect("date");
        assert_eq!(d.time_iso().as_deref(), Some("2021-05-03T15:45:43"));
        assert_eq!(parse_date("1970-01-01"), Some(0));
        assert_eq!(parse_date("2000-03-01"), Some(11_017));
        assert_eq!(parse_date("2023-02-29"), None, "no such day");
        assert_eq!(parse_date("yesterday"), None);
        assert_eq!(parse_date("24/01/05"), None, "a two-digit year is not read");
        assert_eq!(
            parse_datetime("2017/03/02 21:00:02").and_then(|d| d.timestamp_ms()),
            Some(1_488_488_402_000)
        );
    }

    /// What real exports write before the time (a weekday in full-width brackets, 午前/午後)
    /// once sliced the text inside a character and panicked.
    #[test]
    fn weekdays_and_twelve_hour_clocks() {
        let t = |s: &str| parse_datetime(s).and_then(|d| d.time_iso());
        assert_eq!(
            t("2024/05/01（水）10:00").as_deref(),
            Some("2024-05-01T10:00:00")
        );
        assert_eq!(
            t("2024/05/01(水)10:00").as_deref(),
            Some("2024-05-01T10:00:00")
        );
        assert_eq!(
            t("2024/05/01 午前10:00").as_deref(),
            Some("2024-05-01T10:00:00")
        );
        assert_eq!(
            t("2024/05/01 午後3:05:09").as_deref(),
            Some("2024-05-01T15:05:09")
        );
        assert_eq!(
            t("2024/05/01 午前12:30").as_deref(),
            Some("2024-05-01T00:30:00")
        );
        assert_eq!(
            t("2024/05/01 午後12:30").as_deref(),
            Some("2024-05-01T12:30:00")
        );
        assert_eq!(
            t("2024/05/01 午前１０：００：００").as_deref(),
            Some("2024-05-01T10:00:00")
        );
        assert_eq!(
            t("2024/05/01 3:00 PM").as_deref(),
            Some("2024-05-01T15:00:00")
        );
        assert_eq!(
            t("2024/05/01 午後13:00"),
            None,
            "no 13 o'clock in the afternoon"
        );
        assert_eq!(t("2024/05/01（水）"), None);
        assert_eq!(t("2024/05/01 水:"), None);
        assert_eq!(t("2024/05/01 100:00"), None);
        for s in [
            "2024/05/01（水）10:00",
            "2024/05/01 午前10:00",
            "2024/05/01 午後10:00:00",
        ] {
            assert_eq!(parse_date(s), parse_date("2024-05-01"), "{s}");
        }
    }

    /// Every cut of texts that mix multi-byte characters, digits and colons is read without a
    /// panic (the fuzz target `dates` does the same over any bytes).
    #[test]
    fn any_prefix_or_suffix_is_read_without_a_panic() {
        let texts = [
            "2024/05/01（水）午後10:00:00",
            "２０２４年５月１日（水）午前１０：００",
            "1999年12月31日 23時59分",
        ];
        for s in texts {
            for (i, _) in s.char_indices() {
                let _ = parse_datetime(&s[i..]);
                let _ = parse_datetime(&s[..i]);
            }
        }
    }

    #[test]
    fn timestamp_of_a_date() {
        assert_eq!(
            parse_datetime("2017/03/02 21:00:02").and_then(|d| d.timestamp_ms()),
            Some(1_488_488_402_000)
        );
    }

    #[test]
    fn days_round_trip() {
        for days in (-800_000..800_000).step_by(997) {
            let (y, m, d) = civil_from_days(days);
            assert_eq!(days_from_civil(y, m, d), days);
        }
    }
}
