//! `kifu validate` judging as it reads (`validate_csa`, `validate_usi`, `validate_kif`,
//! `validate_ki2`, `validate_jkf`: games replayed as the reader tells them) gives exactly the
//! reports of reading the text into records and validating each game. The first byte picks
//! the format (see `check_as_read` in `tests/common/as_read.rs`, the check, shared with the
//! tests).
#![no_main]
use libfuzzer_sys::fuzz_target;

#[path = "../../tests/common/as_read.rs"]
#[allow(dead_code)]
mod as_read;

fuzz_target!(|data: &[u8]| as_read::check_as_read(data));
