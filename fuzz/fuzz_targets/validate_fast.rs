//! The short ways of `kifu validate` (`validate_csa`, `validate_usi`: games replayed as their
//! lines are read) give exactly the reports of reading the text and validating each game in
//! full. The first byte picks CSA (even) or USI (odd).
#![no_main]
use kifu::formats::{csa, usi};
use kifu::validate::{self, Options, Report};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Some((&sel, bytes)) = data.split_first() else { return };
    let text = String::from_utf8_lossy(bytes);
    let opts = Options::default();
    let (short, full): (Vec<Report>, Vec<Report>) = if sel % 2 == 0 {
        (
            validate::validate_csa(&text, &opts),
            csa::read(&text).into_iter().map(|mut g| validate::validate_game(&mut g, &opts)).collect(),
        )
    } else {
        (
            validate::validate_usi(&text, &opts),
            usi::read(&text).into_iter().map(|mut g| validate::validate_game(&mut g, &opts)).collect(),
        )
    };
    assert_eq!(short, full, "the short way differs for:\n{text}");
});
