//! Validation (read, resolve, replay every line, judge the result) never panics. The first
//! byte chooses the format; the rest is the file's bytes, decoded as the CLI does.
#![no_main]
use kifu::formats::{self, Format, decode};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Some((&sel, bytes)) = data.split_first() else { return };
    let Some(&format) = Format::ALL.get(usize::from(sel) % Format::ALL.len()) else { return };
    let text = decode::decode(bytes, Some(format), None).text;
    let opts = kifu::validate::Options::default();
    for mut game in formats::read(format, &text) {
        let _ = kifu::validate::validate_game(&mut game, &opts);
    }
});
