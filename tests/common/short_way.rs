//! The short ways of `kifu validate` (`validate_csa`, `validate_usi`, `validate_kif`: games
//! replayed as their lines are read) against the full way (read the text, validate each game): they must give
//! exactly the same reports. Shared by `tests/fast_equivalence.rs`,
//! `tests/hostile_regressions.rs`, `tests/hostile_mutation.rs` and
//! `fuzz/fuzz_targets/validate_fast.rs`, which include this file by path.

use kifu::formats::{Format, csa, kif, usi};
use kifu::validate::{self, Options, Report};

/// The reports of the short way and of the full way for a CSA text (or, for
/// `Format::Usi`, a USI text; for `Format::Kif`, a KIF text).
pub fn short_and_full(format: Format, text: &str, opts: &Options) -> (Vec<Report>, Vec<Report>) {
    if format == Format::Kif {
        (
            validate::validate_kif(text, opts),
            kif::read(text)
                .into_iter()
                .map(|mut g| validate::validate_game(&mut g, opts))
                .collect(),
        )
    } else if format == Format::Usi {
        (
            validate::validate_usi(text, opts),
            usi::read(text)
                .into_iter()
                .map(|mut g| validate::validate_game(&mut g, opts))
                .collect(),
        )
    } else {
        (
            validate::validate_csa(text, opts),
            csa::read(text)
                .into_iter()
                .map(|mut g| validate::validate_game(&mut g, opts))
                .collect(),
        )
    }
}

/// Panics unless the two ways agree on `text` read as `format` (CSA, or USI for
/// `Format::Usi`) under `opts`.
pub fn assert_agree(format: Format, text: &str, opts: &Options) {
    let (short, full) = short_and_full(format, text, opts);
    assert_eq!(short, full, "the short way differs ({opts:?}) for:\n{text}");
}

/// The `validate_fast` fuzz target's check: the first byte picks USI (odd), KIF (2 modulo 4)
/// or CSA (0 modulo 4), the rest is the text (invalid UTF-8 replaced).
pub fn check_short_way(data: &[u8]) {
    let Some((&sel, bytes)) = data.split_first() else {
        return;
    };
    let text = String::from_utf8_lossy(bytes);
    let format = match sel % 4 {
        0 => Format::Csa,
        2 => Format::Kif,
        _ => Format::Usi,
    };
    assert_agree(format, &text, &Options::default());
}
