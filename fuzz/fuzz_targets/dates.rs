//! Start dates and times (`開始日時`, `$START_TIME`, `--since`): any text reads without a panic,
//! and a date read prints back (`YYYY-MM-DD`) to the same day.
#![no_main]
use kifu::tables::{parse_date, parse_datetime};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(s) = std::str::from_utf8(data) else { return };
    if let Some(d) = parse_datetime(s) {
        assert_eq!(parse_date(&d.date_iso()), Some(d.days), "{s:?} -> {}", d.date_iso());
        if let Some(t) = d.time_iso() {
            assert_eq!(parse_datetime(&t), Some(d), "{s:?} -> {t}");
        }
        let _ = (d.year(), d.timestamp_ms());
    }
});
