//! Text decoding and format detection never panic, and decoded text is what the readers get.
#![no_main]
use kifu::formats::Format;
use kifu::formats::decode::{self, TextEncoding};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let hint = data.first().and_then(|b| Format::ALL.get(usize::from(*b) % 8)).copied();
    for forced in [None, Some(TextEncoding::Utf8), Some(TextEncoding::Cp932)] {
        let d = decode::decode(data, hint, forced);
        let _ = decode::detect_format(Some("kif"), &d.text);
        let _ = decode::detect_format(None, &d.text);
        let owned = decode::decode_owned(data.to_vec(), hint, forced);
        assert_eq!(owned.text, d.text, "decode and decode_owned disagree");
    }
    let _ = decode::declared_encoding(data);
    let read = kifu::formats::ReadOptions {
        hint,
        ..Default::default()
    };
    let b = read.decode(data);
    let _ = read.detect(&b.text);
    if let Ok(s) = std::str::from_utf8(data) {
        for enc in [TextEncoding::Utf8, TextEncoding::Cp932] {
            let _ = decode::encode(s, enc);
        }
    }
});
