//! The SFEN move number of a start position (`sfen ... w - 2`) survives conversion where the
//! target can hold it (KIF and KI2 `手数＝N`, USI) and is reported `lossy` where it cannot
//! (CSA and JKF have no standard place for it) (issue #20: it was dropped without a word).

use kifu::core::Setup;
use kifu::formats::{self, Format, WriteOptions};
use kifu::record::StartPosition;
use kifu::validate::Options;
use kifu::{Code, Record};

/// The even position after ▲７六歩, White to move, move number 2; then △３四歩.
const USI: &str =
    "position sfen lnsgkgsnl/1r5b1/ppppppppp/9/9/2P6/PP1PPPPPP/1B5R1/LNSGKGSNL w - 2 moves 3c3d\n";

fn read_one(format: Format, text: &str) -> Record {
    let mut games = formats::read(format, text);
    assert_eq!(games.len(), 1, "{text}");
    let report = kifu::validate_game(&mut games[0], &Options::default());
    assert!(
        report.diagnostics.is_empty(),
        "{:?}\n{text}",
        report.diagnostics
    );
    games.remove(0).record
}

fn move_number(record: &Record) -> u32 {
    match &record.start {
        StartPosition::Setup(s) => s.move_number,
        StartPosition::Preset(_) => 1,
    }
}

#[test]
fn the_start_move_number_goes_round_through_kif_ki2_and_usi() {
    let record = read_one(Format::Usi, USI);
    assert_eq!(move_number(&record), 2);
    for format in [
        Format::Kif,
        Format::Kifu,
        Format::Ki2,
        Format::Ki2u,
        Format::Usi,
    ] {
        let written = kifu::write(format, &record, &WriteOptions::default());
        assert!(
            written
                .warnings
                .iter()
                .all(|w| !w.message.contains("move number")),
            "{format:?}: {:?}",
            written.warnings
        );
        if format != Format::Usi {
            assert!(
                written.text.contains("手数＝1\n"),
                "{format:?}:\n{}",
                written.text
            );
        }
        let back = read_one(format, &written.text);
        assert_eq!(move_number(&back), 2, "{format:?}:\n{}", written.text);
        assert_eq!(back.plies(), 1, "{format:?}");
        // And on to USI: the same line.
        let usi = kifu::write(Format::Usi, &back, &WriteOptions::default());
        assert_eq!(usi.text.trim_end(), USI.trim_end(), "{format:?}");
    }
}

#[test]
fn csa_and_jkf_report_the_move_number_they_cannot_hold() {
    let record = read_one(Format::Usi, USI);
    for format in [Format::Csa, Format::Jkf] {
        let written = kifu::write(format, &record, &WriteOptions::default());
        let lossy: Vec<_> = written
            .warnings
            .iter()
            .filter(|w| w.code == Code::Lossy && w.message.contains("move number 2"))
            .collect();
        assert_eq!(lossy.len(), 1, "{format:?}: {:?}", written.warnings);
        // The position and the moves are still there.
        let back = read_one(format, &written.text);
        assert_eq!(
            back.start
                .to_setup()
                .to_sfen()
                .split(' ')
                .take(3)
                .collect::<Vec<_>>(),
            [
                "lnsgkgsnl/1r5b1/ppppppppp/9/9/2P6/PP1PPPPPP/1B5R1/LNSGKGSNL",
                "w",
                "-"
            ]
        );
        assert_eq!(back.plies(), 1);
    }
    // A position with move number 1 has nothing to lose, and KIF writes no `手数＝`.
    let fresh = read_one(
        Format::Usi,
        "sfen lnsgkgsnl/1r5b1/ppppppppp/9/9/2P6/PP1PPPPPP/1B5R1/LNSGKGSNL w - 1 moves 3c3d\n",
    );
    for format in Format::ALL {
        let written = kifu::write(format, &fresh, &WriteOptions::default());
        assert!(
            written
                .warnings
                .iter()
                .all(|w| !w.message.contains("move number")),
            "{format:?}"
        );
        assert!(!written.text.contains("手数＝"), "{format:?}");
    }
}

#[test]
fn a_kif_diagram_s_ply_count_is_read_as_the_move_number() {
    let mut setup = Setup::startpos();
    setup.move_number = 26;
    let kif = "後手の持駒：なし\n  ９ ８ ７ ６ ５ ４ ３ ２ １\n+---------------------------+\n|v香v桂v銀v金v玉v金v銀v桂v香|一\n| ・v飛 ・ ・ ・ ・ ・v角 ・|二\n|v歩v歩v歩v歩v歩v歩v歩v歩v歩|三\n| ・ ・ ・ ・ ・ ・ ・ ・ ・|四\n| ・ ・ ・ ・ ・ ・ ・ ・ ・|五\n| ・ ・ ・ ・ ・ ・ ・ ・ ・|六\n| 歩 歩 歩 歩 歩 歩 歩 歩 歩|七\n| ・ 角 ・ ・ ・ ・ ・ 飛 ・|八\n| 香 桂 銀 金 玉 金 銀 桂 香|九\n+---------------------------+\n先手の持駒：なし\n手数＝２５  ▲３七銀  まで\n手数----指手---------消費時間--\n   1 ７六歩(77)\n";
    let record = read_one(Format::Kifu, kif);
    match &record.start {
        StartPosition::Setup(s) => assert_eq!(**s, setup),
        other => panic!("expected the diagram's position, got {other:?}"),
    }
    // Without `手数＝`, move number 1.
    let plain = kif.replace("手数＝２５  ▲３七銀  まで\n", "");
    assert_eq!(move_number(&read_one(Format::Kifu, &plain)), 1);
}
