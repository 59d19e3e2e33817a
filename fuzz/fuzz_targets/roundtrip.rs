//! Write-then-read: whatever a reader accepts and validate resolves, every writer can write,
//! every reader can read back without panicking, and when the game was clean (no diagnostic
//! at all) the main line reads back with the same moves.
#![no_main]
use kifu::formats::{self, Format, WriteOptions, decode};
use kifu::record::Record;
use libfuzzer_sys::fuzz_target;

fn main_line(r: &Record) -> Vec<Option<kifu::core::Move>> {
    r.moves.iter().filter(|n| n.special().is_none()).map(|n| n.resolved()).collect()
}

fuzz_target!(|data: &[u8]| {
    let Some((&sel, bytes)) = data.split_first() else { return };
    let Some(&format) = Format::ALL.get(usize::from(sel) % Format::ALL.len()) else { return };
    let text = decode::decode(bytes, Some(format), None).text;
    let opts = kifu::validate::Options::default();
    for mut game in formats::read(format, &text).into_iter().take(4) {
        let report = kifu::validate::validate_game(&mut game, &opts);
        let clean = report.diagnostics.is_empty();
        let before = main_line(&game.record);
        for target in Format::ALL {
            for csa_v3 in [false, true] {
                if csa_v3 && target != Format::Csa {
                    continue;
                }
                let w = formats::write(target, &game.record, &WriteOptions { csa_v3 });
                let back = formats::read(target, &w.text);
                for mut g in back {
                    let r2 = kifu::validate::validate_game(&mut g, &opts);
                    if clean && w.warnings.is_empty() && r2.diagnostics.is_empty() {
                        let after = main_line(&g.record);
                        assert_eq!(before, after, "{target:?} round trip changed the moves:\n{}", w.text);
                    }
                }
            }
        }
    }
});
