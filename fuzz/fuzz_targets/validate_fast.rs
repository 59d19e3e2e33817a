//! The short ways of `kifu validate` (`validate_csa`, `validate_usi`: games replayed as their
//! lines are read) give exactly the reports of reading the text and validating each game in
//! full. The first byte picks CSA (even) or USI (odd). The check is
//! `tests/common/short_way.rs`, shared with the tests.
#![no_main]
use libfuzzer_sys::fuzz_target;

#[path = "../../tests/common/short_way.rs"]
#[allow(dead_code)]
mod short_way;

fuzz_target!(|data: &[u8]| short_way::check_short_way(data));
