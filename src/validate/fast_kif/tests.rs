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
