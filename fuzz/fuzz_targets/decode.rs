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
        // Where decoding has nothing to change, the text in place is the decoded text.
        if let Some((text, enc)) = decode::decode_in_place(data, hint, forced) {
            assert_eq!((text, enc), (d.text.as_str(), d.encoding), "decode_in_place differs");
        }
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
