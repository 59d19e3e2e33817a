//! What `convert` writes for other programs to read: `同` moves in KIF and KI2 as Kifu for
//! Windows writes them (and both spellings read back), and USI `position` lines plain unless
//! the ending token is asked for.

use kifu::formats::{self, Format, ParsedGame, WriteOptions};
use kifu::validate;

/// Every kind of `同` move: a gold, a promoted knight (two-character name), a silver, a
/// silver promoting, then a dragon (one character, promoted) and a tokin.
const SAME: &str =
    "position sfen 4k4/3s1g3/9/3+N1S3/9/9/9/9/4K4 b P 1 moves P*5c 4b5c 6d5c 6b5c 4d5c+";
const SAME_2: &str =
    "position sfen 4k4/9/9/4gs3/3+R5/5+P3/9/9/4K4 b P 1 moves P*5e 5d5e 4f5e 4d5e 6e5e";

/// The one game of `text` read as `format` and replayed, clean.
fn read(format: Format, text: &str) -> ParsedGame {
    let mut games = formats::read(format, text);
    assert_eq!(games.len(), 1, "{format:?}:\n{text}");
    let r = validate::validate_game(&mut games[0], &validate::Options::default());
    assert!(
        r.diagnostics.is_empty(),
        "{format:?}: {:?}\n{text}",
        r.diagnostics
    );
    games.remove(0)
}

fn write(format: Format, game: &ParsedGame) -> String {
    let w = formats::write(format, &game.record, &WriteOptions::default());
    let text = w.text;
    assert!(
        w.warnings.is_empty(),
        "{format:?}: {:?}\n{text}",
        w.warnings
    );
    text
}

/// The start and the moves, as a plain USI line.
fn usi(game: &ParsedGame) -> String {
    write(Format::Usi, game)
}

#[test]
fn kif_writes_a_full_width_space_after_every_same_square_mark() {
    let g = read(Format::Usi, SAME);
    let kif = write(Format::Kifu, &g);
    for want in ["同　金(42)", "同　成桂(64)", "同　銀(62)", "同　銀成(44)"] {
        assert!(kif.contains(want), "{want} missing:\n{kif}");
    }
    let g2 = read(Format::Usi, SAME_2);
    let kif2 = write(Format::Kifu, &g2);
    for want in ["同　金(54)", "同　と(46)", "同　銀(44)", "同　龍(65)"] {
        assert!(kif2.contains(want), "{want} missing:\n{kif2}");
    }
    for text in [&kif, &kif2] {
        assert!(!text.contains("同成") && !text.contains("同銀"), "{text}");
    }
    // Read back, the same start and moves.
    assert_eq!(usi(&read(Format::Kifu, &kif)), usi(&g));
    assert_eq!(usi(&read(Format::Kifu, &kif2)), usi(&g2));
}

#[test]
fn kif_reads_same_square_moves_with_or_without_the_space() {
    let g = read(Format::Usi, SAME);
    let kif = write(Format::Kifu, &g);
    // As other programs write them: no space (Shogidokoro), a half-width space.
    for (from, to) in [("同　", "同"), ("同　", "同 ")] {
        let other = kif.replace(from, to);
        assert_ne!(other, kif);
        assert_eq!(usi(&read(Format::Kifu, &other)), usi(&g), "{other}");
        // Written again, in the one form.
        assert_eq!(write(Format::Kifu, &read(Format::Kifu, &other)), kif);
    }
    // `不成` is read, and never written: the move it declines is the same one without it, and
    // the KIF from a source that spelled it (every KI2 source) is the KIF from one that did not.
    let no_promotion = SAME.trim_end_matches('+');
    let plain = write(Format::Kifu, &read(Format::Usi, no_promotion));
    let kif = plain.replace("同　銀(44)", "同銀不成(44)");
    assert_ne!(kif, plain);
    let back = read(Format::Kifu, &kif);
    assert_eq!(write(Format::Kifu, &back), plain);
    assert_eq!(usi(&back), usi(&read(Format::Usi, no_promotion)));
    let ki2 = write(Format::Ki2u, &back);
    assert!(ki2.contains("不成"), "KI2 says it: {ki2}");
    assert_eq!(write(Format::Kifu, &read(Format::Ki2u, &ki2)), plain);
}

#[test]
fn ki2_pads_a_bare_one_character_piece_only_and_reads_both_forms() {
    let g = read(Format::Usi, SAME);
    let ki2 = write(Format::Ki2u, &g);
    for want in ["△同　金", "▲同成桂", "△同　銀", "▲同銀成"] {
        assert!(ki2.contains(want), "{want} missing:\n{ki2}");
    }
    let g2 = read(Format::Usi, SAME_2);
    let ki2_2 = write(Format::Ki2u, &g2);
    for want in ["△同　金", "▲同　と", "△同　銀", "▲同　龍"] {
        assert!(ki2_2.contains(want), "{want} missing:\n{ki2_2}");
    }
    assert_eq!(usi(&read(Format::Ki2u, &ki2)), usi(&g));
    assert_eq!(usi(&read(Format::Ki2u, &ki2_2)), usi(&g2));
    // With a space everywhere, or nowhere: the same moves.
    let spaced = ki2
        .replace("同成桂", "同　成桂")
        .replace("同銀成", "同　銀成");
    let bare = ki2.replace("同　", "同");
    for text in [spaced, bare] {
        assert_eq!(usi(&read(Format::Ki2u, &text)), usi(&g), "{text}");
    }
}

#[test]
fn usi_is_written_plain_unless_the_ending_is_asked_for() {
    let g = read(Format::Usi, "position startpos moves 7g7f 3c3d resign");
    let w = formats::write(Format::Usi, &g.record, &WriteOptions::default());
    assert_eq!(w.text, "position startpos moves 7g7f 3c3d\n");
    assert_eq!(w.warnings.len(), 1, "{:?}", w.warnings);
    assert_eq!(w.warnings[0].code, kifu::Code::Lossy);
    assert_eq!(w.warnings[0].ply, Some(3));
    assert!(
        w.warnings[0].message.contains("--usi-endings"),
        "{:?}",
        w.warnings
    );
    let extended = WriteOptions {
        usi_endings: true,
        ..WriteOptions::default()
    };
    let w = formats::write(Format::Usi, &g.record, &extended);
    assert_eq!(w.text, "position startpos moves 7g7f 3c3d resign\n");
    assert!(w.warnings.is_empty(), "{:?}", w.warnings);
    // A game without moves: `moves` is left out, and so is the ending.
    let g = read(Format::Usi, "position startpos moves resign");
    let w = formats::write(Format::Usi, &g.record, &WriteOptions::default());
    assert_eq!(w.text, "position startpos\n");
    // Moves after the ending are still reported as dropped.
    let mut games = formats::read(Format::Kifu, "1 ７六歩(77)\n2 投了\n3 ３四歩(33)\n");
    let _ = validate::validate_game(&mut games[0], &validate::Options::default());
    let w = formats::write(Format::Usi, &games[0].record, &WriteOptions::default());
    assert_eq!(w.text, "position startpos moves 7g7f\n");
    assert!(
        w.warnings
            .iter()
            .any(|d| d.message.contains("1 moves or endings after")),
        "{:?}",
        w.warnings
    );
}

/// A game from a standard handicap's position given as a setup (a USI or JKF game: `games`
/// names it `角落ち`) is written to KIF and KI2 with `手合割：` and no diagram, as a record read
/// with `手合割` is (issue #47: cshogi ignores diagrams and replayed it from the even start); a
/// setup after move 1 keeps its diagram (and its `手数＝N`).
#[test]
fn standard_handicaps_from_a_setup_are_written_by_name() {
    use kifu::core::Handicap;
    use kifu::record::StartPosition;
    for h in Handicap::ALL {
        if h == Handicap::Even {
            continue;
        }
        let mut setup = h.setup();
        setup.move_number = 1;
        let usi = format!("sfen {}\n", setup.to_sfen());
        let g = read(Format::Usi, &usi);
        for f in [Format::Kifu, Format::Ki2u] {
            let text = write(f, &g);
            assert!(
                text.contains(&format!("手合割：{}\n", h.kif_name())),
                "{h:?} {f:?}: {text}"
            );
            assert!(!text.contains("後手の持駒"), "no diagram: {text}");
            let back = read(f, &text);
            assert_eq!(back.record.start, StartPosition::Preset(h), "{text}");
        }
    }
    // After move 1: the diagram, which carries the move number.
    let mut later = Handicap::Bishop.setup();
    later.move_number = 5;
    let text = write(
        Format::Kifu,
        &read(Format::Usi, &format!("sfen {}\n", later.to_sfen())),
    );
    assert!(
        text.contains("手数＝4") && !text.contains("手合割"),
        "{text}"
    );
}
