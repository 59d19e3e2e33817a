//! `kifu validate` judging as it reads (`validate_csa`, `validate_usi`, `validate_kif`,
//! `validate_ki2`, `validate_jkf`: games replayed as their lines are read) against reading the
//! text into records and validating each game: they must give exactly the same reports. Shared by
//! `tests/library/as_read_csa_usi.rs`, `app/tests/cli/hostile_regressions.rs`, `app/tests/long/hostile_mutation.rs` and
//! `fuzz/fuzz_targets/validate_as_read.rs`, which include this file by path.

use kifu::formats::text::{self, TextEncoding};
use kifu::formats::{Format, ParsedGame, csa, jkf, ki2, kif, usen, usi};
use kifu::validate::{self, Options, Report};

/// The reports judged as read and from the records for a text of `format` (CSA for any
/// format without a reader of its own).
pub fn as_read_and_from_records(
    format: Format,
    text: &str,
    opts: &Options,
) -> (Vec<Report>, Vec<Report>) {
    let full = |games: Vec<ParsedGame>| -> Vec<Report> {
        games
            .into_iter()
            .map(|mut g| validate::validate_game(&mut g, opts))
            .collect()
    };
    match format {
        Format::Kif => (validate::validate_kif(text, opts), full(kif::read(text))),
        Format::Ki2 => (validate::validate_ki2(text, opts), full(ki2::read(text))),
        Format::Jkf => (validate::validate_jkf(text, opts), full(jkf::read(text))),
        Format::Usi => (validate::validate_usi(text, opts), full(usi::read(text))),
        Format::Usen => (validate::validate_usen(text, opts), full(usen::read(text))),
        _ => (validate::validate_csa(text, opts), full(csa::read(text))),
    }
}

/// Panics unless the two ways agree on `text` read as `format` (CSA, or USI for
/// `Format::Usi`) under `opts`.
pub fn assert_agree(format: Format, text: &str, opts: &Options) {
    let (short, full) = as_read_and_from_records(format, text, opts);
    assert_eq!(
        short, full,
        "judging as read differs ({opts:?}) for:\n{text}"
    );
}

/// The `validate_as_read` fuzz target's check: the first byte picks the format, the rest is the
/// text (invalid UTF-8 replaced). An odd byte is USI; an even one below 0x80 is CSA (0 modulo
/// 4) or KIF (2 modulo 4), from 0x80 up JKF (0 modulo 4) or KI2 (2 modulo 4). (KI2 and JKF
/// came last: the saved inputs of the first three keep their meaning.) KIF is also read from
/// CP932 bytes: the rest as it is, and the text written in CP932.
pub fn check_as_read(data: &[u8]) {
    let Some((&sel, bytes)) = data.split_first() else {
        return;
    };
    let text = String::from_utf8_lossy(bytes);
    let format = match (sel % 4, sel >= 0x80) {
        (0, false) => Format::Csa,
        (0, true) => Format::Jkf,
        (2, false) => Format::Kif,
        (2, true) => Format::Ki2,
        _ => Format::Usi,
    };
    assert_agree(format, &text, &Options::default());
    if format == Format::Kif {
        // KIF judged as read over CP932 bytes: on the bytes as they are, and on the text
        // written in CP932.
        assert_cp932_agrees(bytes);
        let (cp932, _) = text::encode(&text, TextEncoding::Cp932);
        assert_cp932_agrees(&cp932);
    }
}

/// Panics unless `judged_as_read_cp932` on `bytes`, when it reads them, gives the reports of
/// `validate_kif` on the text they decode to in CP932 (which must then be clean).
pub fn assert_cp932_agrees(bytes: &[u8]) {
    let opts = Options::default();
    let Some((reports, _)) = validate::judged_as_read_cp932(bytes, &opts) else {
        return;
    };
    let decoded = text::decode(bytes, None, Some(TextEncoding::Cp932));
    assert!(
        decoded.diagnostics.is_empty(),
        "bytes read from CP932 that do not decode: {bytes:?}"
    );
    assert_eq!(
        reports,
        validate::validate_kif(&decoded.text, &opts),
        "CP932 bytes judged as read differ for:\n{}",
        decoded.text
    );
}
