//! The hand-read parts of the KIF short way against the reader's grammar.

use super::*;

/// The move number read by hand is the reader's, on every corner of its grammar.
#[test]
fn move_numbers_as_the_reader_reads_them() {
    let cases = [
        "   1 ７六歩(77)",
        "1 x",
        "12\tx",
        "3\u{3000}x",
        "  7\u{3000} x",
        "\t1 x",
        "1x",
        "1",
        " ",
        "",
        "99999999999 x",
        "4294967295 x",
        "4294967296 x",
        "007 x",
        "１ x",
        "1\u{3001}x",
        "  ",
    ];
    for t in cases {
        let ours = move_number(t).map(|(n, off, ascii)| {
            assert_eq!(ascii, t.get(..off).is_some_and(|p| p.is_ascii()), "{t:?}");
            (n, off)
        });
        assert_eq!(ours, kif::move_number(t), "{t:?}");
    }
}

/// The hand-read clock gives the reader's milliseconds, or leaves the line to it.
#[test]
fn clocks() {
    let ok = [
        ("( 0:16/00:00:16)", 16_000, 16_000),
        ("(1:02:03/10:00:00)", 3_723_000, 36_000_000),
        ("(  0 : 16 / 0:00:16 )", 16_000, 16_000),
        ("(5/7)", 5_000, 7_000),
        ("(1234:00/00:00:00)", 74_040_000, 0),
        ("(123:45/01:02:03)", 7_425_000, 3_723_000),
        ("( 0:75/00:00:75)", 75_000, 75_000),
    ];
    for (text, elapsed, total) in ok {
        let m = plain_move(&format!("７六歩(77)   {text}")).expect(text);
        assert_eq!(m.time, Some((elapsed, total)), "{text}");
    }
    for bad in [
        "( 0:16)",
        "( 0:16/)",
        "(0:16/1:2:3:4)",
        "(a/1)",
        "( 0:16/00:00:16) x",
    ] {
        assert!(plain_move(&format!("７六歩(77) {bad}")).is_none(), "{bad}");
    }
}

/// Every two bytes the CP932 spelling reads as a character decode to that character in
/// `encoding_rs`, and every character a plain move line holds is read back from its encoding.
#[test]
fn cp932_spelling_agrees_with_the_decoder() {
    let mut known = 0;
    for hi in 0x81..=0xFCu8 {
        for lo in 0x40..=0xFCu8 {
            if let Some((c, n)) = cp932::Cp932::wide(&[hi, lo, b'x']) {
                let pair = [hi, lo];
                let (text, bad) = encoding_rs::SHIFT_JIS.decode_without_bom_handling(&pair);
                assert!(!bad && text.chars().eq([c]), "{hi:02X}{lo:02X} as {c}");
                assert_eq!(n, 2);
                known += 1;
            }
        }
    }
    let chars = "　１２３４５６７８９一二三四五六七八九同歩香桂銀金角飛玉王と杏圭全馬龍竜成不打";
    assert_eq!(known, chars.chars().count());
    for c in chars.chars() {
        let mut utf8 = [0; 4];
        let (bytes, _, bad) = encoding_rs::SHIFT_JIS.encode(c.encode_utf8(&mut utf8));
        assert!(!bad);
        assert_eq!(cp932::Cp932::wide(&bytes), Some((c, 2)), "{c}");
        assert_eq!(
            Utf8::wide(c.encode_utf8(&mut [0; 4]).as_bytes()),
            Some((c, 3))
        );
    }
    assert_eq!(cp932::Cp932::wide(&[0x82]), None);
    assert_eq!(Utf8::wide(b"a"), None);
}

/// A move line read from its CP932 bytes is read as the UTF-8 way reads the decoded line:
/// lines made slot by slot from the pieces of the grammar, right and wrong ones.
#[test]
fn cp932_move_lines_agree_with_utf8() {
    let slots: [&[&str]; 10] = [
        &["", "  ", " \u{3000}", "\t"],
        &["1", "12", "", "x", "4294967296"],
        &[" ", "\u{3000}", " \t\u{3000}", "", "\t"],
        &[
            "７六",
            "同",
            "同\u{3000}",
            "同 \t",
            "０六",
            "７",
            "7六",
            "1二",
        ],
        &["歩", "成銀", "成", "と", "王", "竜", "x", ""],
        &["", "成", "不成", "不", "成成"],
        &["(77)", "(54)", "打", "", "(7)", "(7a)"],
        &["", " ", "\u{3000}", "\t", "   "],
        &["", "( 0:01/00:00:01)", "(1:2/3:4:5)", "( 0:16)", "(a/1)"],
        &["", " ", "\u{3000}", " \t", "x", "\u{3000}x"],
    ];
    let mut rng = crate::random::Rng::new(7);
    let mut read = 0;
    for _ in 0..100_000 {
        let line: String = slots
            .iter()
            .map(|slot| slot[rng.below(slot.len() as u64) as usize])
            .collect();
        let (bytes, _, _) = encoding_rs::SHIFT_JIS.encode(&line);
        let ours = cp932::plain_line(&bytes);
        let t = line.trim_end_matches(is_space);
        let theirs = move_number(t).and_then(|(n, off, ascii)| {
            let m = plain_move(t.get(off..)?)?;
            Some((n, t.get(..off)?.chars().count(), ascii, m))
        });
        assert_eq!(ours.is_some(), theirs.is_some(), "{line:?}");
        if let (Some((n, off, wide, m)), Some((tn, tcol, ascii, tm))) = (&ours, &theirs) {
            assert_eq!((n, off - wide, *wide == 0), (tn, *tcol, *ascii), "{line:?}");
            assert_eq!(
                (m.to, m.kind, m.promote, m.from, m.time),
                (tm.to, tm.kind, tm.promote, tm.from, tm.time),
                "{line:?}"
            );
            read += 1;
        }
    }
    assert!(read > 500, "only {read} lines read");
}
