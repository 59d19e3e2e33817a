//! Regression tests for bugs found by fuzzing and by the round-trip property tests. Each test
//! holds the input that showed the bug, inline.

use kifu::formats::{self, Format, WriteOptions};
use kifu::validate::{self, Options};

fn validate_text(format: Format, text: &str) -> Vec<String> {
    let mut out = Vec::new();
    for mut g in formats::read(format, text) {
        let r = validate::validate_game(&mut g, &Options::default());
        out.extend(
            r.diagnostics
                .iter()
                .map(|d| format!("{}: {} {:?}", d.code, d.message, d.mv)),
        );
    }
    out
}

/// Found by `props_roundtrip` (seed 0): validate resolved KI2 moves with a stand-in resolver
/// that ignored `寄`, so `△５三金寄` (gold 4c-5c, with another gold on 5b that could step to
/// 5c) was reported as `ambiguous-move`. Validate now uses `record::resolve`.
#[test]
fn ki2_sideways_suffix_is_not_ambiguous_in_validate() {
    let usi = "position sfen 6sn1/2s1g1pbl/lr1p1gk1p/Np2p2p1/p3P4/1P3P2P/N+bPP1RPPL/L1G2KSG1/2S4N1 w 2Pp 60 moves 4c5c\n";
    let mut games = formats::read(Format::Usi, usi);
    let mut g = games.remove(0);
    assert!(
        validate::validate_game(&mut g, &Options::default())
            .diagnostics
            .is_empty()
    );
    let ki2 = formats::write(Format::Ki2u, &g.record, &WriteOptions::default()).text;
    assert!(ki2.contains("△５三金寄"), "{ki2}");
    assert_eq!(
        validate_text(Format::Ki2u, &ki2),
        Vec::<String>::new(),
        "{ki2}"
    );
    // And the other gold, written `上`, is the 5b gold.
    let up = ki2.replace("△５三金寄", "△５三金上");
    let mut games = formats::read(Format::Ki2u, &up);
    let mut g = games.remove(0);
    let r = validate::validate_game(&mut g, &Options::default());
    assert!(r.diagnostics.is_empty(), "{:?}", r.diagnostics);
    assert_eq!(
        g.record.moves[0].resolved().map(|m| m.to_usi()),
        Some("5b5c".to_owned())
    );
}
