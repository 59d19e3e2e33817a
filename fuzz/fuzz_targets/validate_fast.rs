//! The short ways of `kifu validate` (`validate_csa`, `validate_usi`, `validate_kif`,
//! `validate_ki2`, `validate_jkf`: games replayed as their lines are read) give exactly the
//! reports of reading the text and validating each game in full. The first byte picks the
//! format (see `check_short_way` in `tests/common/short_way.rs`, the check, shared with the
//! tests).
#![no_main]
use libfuzzer_sys::fuzz_target;

#[path = "../../tests/common/short_way.rs"]
#[allow(dead_code)]
mod short_way;

fuzz_target!(|data: &[u8]| short_way::check_short_way(data));
