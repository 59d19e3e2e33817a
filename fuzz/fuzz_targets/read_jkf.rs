//! The jkf reader never panics on any text, and its line numbers stay inside the text; where
//! its one pass reads a text, it reads what the general (serde) reader reads, record and
//! diagnostics.
#![no_main]
use kifu::formats::{self, Format};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    // Lines as the readers count them: LF, CR LF and a lone CR end one.
    let lines = kifu::formats::lines::count(text.as_bytes()) as u32 + 1;
    for game in formats::read(Format::Jkf, &text) {
        for d in &game.diagnostics {
            if let Some(l) = d.line {
                assert!(l >= 1 && l <= lines, "line {l} outside 1..={lines}");
            }
        }
        let mut record = game.record;
        let _ = kifu::record::resolve::resolve_record(&mut record);
    }
    if let (Some(one), general) = kifu::formats::jkf::one_pass_and_general(&text) {
        assert_eq!(one.diagnostics, general.diagnostics, "diagnostics differ for {text:?}");
        assert_eq!(one.record, general.record, "records differ for {text:?}");
    }
});
