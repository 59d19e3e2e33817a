//! Replays the USI move lists of the shared corpus (when it is present) through the core:
//! every move of these real games must be legal.

use crate::common;

use kifu::core::{Move, Position};

#[test]
fn usi_move_lists_replay_legally() {
    let Some(files) = common::corpus_files("usi_move_lists_replay_legally", &["sfen"]) else {
        return;
    };
    let mut games = 0;
    for f in files {
        let text = std::fs::read_to_string(&f).unwrap();
        for line in text.lines() {
            let line = line.trim().trim_start_matches("position ").trim();
            let (start, moves) = match line.split_once(" moves ") {
                Some((s, m)) => (s, m),
                None => (line, ""),
            };
            let mut pos = match start {
                "startpos" => Position::startpos(),
                s if s.starts_with("sfen ") => Position::from_sfen(&s[5..]).unwrap(),
                _ => continue,
            };
            for (i, m) in moves.split_whitespace().enumerate() {
                let Ok(mv) = Move::from_usi(m) else { break }; // resign, win, ...
                pos.play(mv)
                    .unwrap_or_else(|e| panic!("{}: ply {} {m}: {e}", f.display(), i + 1));
                assert_eq!(pos.key(), pos.key_from_scratch());
                assert_eq!(pos.checkers(), pos.checkers_from_scratch());
            }
            games += 1;
        }
    }
    assert!(
        games >= 5,
        "expected the shogihome SFEN lists, found {games} games"
    );
}
