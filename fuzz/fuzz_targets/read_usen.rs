//! The USEN reader never panics on any text, and its line numbers stay inside the text.
#![no_main]
use kifu::formats::{self, Format};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    // Lines as the readers count them: LF, CR LF and a lone CR end one.
    let lines = kifu::formats::lines::count(text.as_bytes()) as u32 + 1;
    for game in formats::read(Format::Usen, &text) {
        for d in &game.diagnostics {
            if let Some(l) = d.line {
                assert!(l >= 1 && l <= lines, "line {l} outside 1..={lines}");
            }
        }
        let mut record = game.record;
        let _ = kifu::record::resolve::resolve_record(&mut record);
    }
});
