//! SFEN: parse never panics; a position that parses prints back to an SFEN that parses to the
//! same position; its legal moves all play.
#![no_main]
use kifu::core::{Position, Setup};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(s) = std::str::from_utf8(data) else { return };
    if let Ok(setup) = Setup::from_sfen(s) {
        let printed = setup.to_sfen();
        let again = Setup::from_sfen(&printed).expect("printed SFEN must parse");
        assert_eq!(again.to_sfen(), printed, "SFEN print/parse is not stable");
        if let Ok(pos) = Position::from_setup(&setup) {
            assert_eq!(Position::from_sfen(&pos.to_sfen()).map(|p| p.to_sfen()).ok(), Some(pos.to_sfen()));
            for mv in pos.legal_moves().iter() {
                let mut p = pos.clone();
                assert!(p.play(*mv).is_ok(), "generated move {} refused", mv.to_usi());
            }
        }
    }
    let _ = Position::from_sfen_relaxed(s);
});
