//! The short ways of `kifu validate` (`validate_csa`, `validate_usi`, `validate_kif`: games
//! replayed as their lines are read) give exactly the reports of reading the text and
//! validating each game in full. The first byte picks USI (odd), KIF (2 modulo 4) or CSA (0
//! modulo 4). The check is
//! `tests/common/short_way.rs`, shared with the tests.
#![no_main]
use libfuzzer_sys::fuzz_target;

#[path = "../../tests/common/short_way.rs"]
#[allow(dead_code)]
mod short_way;

fuzz_target!(|data: &[u8]| short_way::check_short_way(data));
