//! Time controls in every header form: the input's lines are the values of the keys the
//! reader asks for, in turn (`$TIME+`, `持ち時間`, `秒読み`, `棋戦`, ...); none panics.
#![no_main]
use kifu::formats::time_control::TimeControl;
use kifu::record::{Header, Span};
use libfuzzer_sys::fuzz_target;

const KEYS: [&str; 9] = ["$TIME+", "$TIME-", "先手持ち時間", "後手持ち時間", "$TIME", "持ち時間", "秒読み", "棋戦", "表題"];

fuzz_target!(|data: &[u8]| {
    let Ok(s) = std::str::from_utf8(data) else { return };
    // The first byte says which keys are present, so that every fallback is reached.
    let Some((&mask, rest)) = s.as_bytes().split_first() else { return };
    let Ok(rest) = std::str::from_utf8(rest) else { return };
    let mut header = Header::default();
    let mut values = rest.split('\n');
    for (i, key) in KEYS.iter().enumerate() {
        if mask & (1 << (i % 8)) != 0 || i == 8 {
            if let Some(v) = values.next() {
                header.push(*key, v, Span::default());
            }
        }
    }
    let _ = TimeControl::of(&header);
});
