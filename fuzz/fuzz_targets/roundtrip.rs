//! Write-then-read: whatever a reader accepts and validate resolves, every writer can write,
//! every reader can read back without panicking, and when the game was clean (no diagnostic
//! at all), the writer lost nothing (no `lossy` warning) and the text read back is clean too,
//! the record reads back with what the target format holds (`Format::holds`): the main line's
//! moves, and where the format keeps them the specials, times, comments and variations. The
//! check is `tests/common/roundtrip.rs`, shared with `tests/hostile_regressions.rs` and the
//! comparison of `tests/props_roundtrip.rs`.
#![no_main]
use libfuzzer_sys::fuzz_target;

#[path = "../../tests/common/roundtrip.rs"]
#[allow(dead_code)]
mod roundtrip;

fuzz_target!(|data: &[u8]| roundtrip::check_roundtrip(data));
