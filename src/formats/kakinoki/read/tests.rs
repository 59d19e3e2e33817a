//! The KIF and KI2 reader's events: their order, what a visitor skips, CP932 bytes.

use super::{Dialect, tell};
use crate::diag::Diagnostic;
use crate::formats::visit::{Skip, Visitor, WrittenMove, WrittenSpecial};
use crate::record::{Footer, MoveTime, Span, StartPosition};

/// Writes down what it is told, one word a call.
#[derive(Default)]
struct Log<const SKIP: u8>(Vec<String>);

impl<const SKIP: u8> Visitor for Log<SKIP> {
    type Output = Vec<String>;
    const SKIP: Skip = match SKIP {
        0 => Skip::NOTHING,
        _ => Skip::VARIATIONS.and(Skip::COMMENTS),
    };

    fn begin_game(&mut self, _line: u32) {
        self.0.push("begin".into());
    }
    fn header(&mut self, key: &str, _value: &str, _span: Span) {
        self.0.push(format!("header {key}"));
    }
    fn start(&mut self, _start: &StartPosition) {
        self.0.push("start".into());
    }
    fn mv(&mut self, mv: &WrittenMove<'_>, span: Span) {
        self.0.push(format!("mv {} {}", mv.raw, span.line));
    }
    fn special(&mut self, special: &WrittenSpecial<'_>, _span: Span) {
        self.0.push(format!("special {}", special.text));
    }
    fn time(&mut self, time: MoveTime, _span: Span) {
        self.0.push(format!("time {:?}", time.elapsed_ms));
    }
    fn comment(&mut self, text: &str, _span: Span) {
        self.0.push(format!("comment {text}"));
    }
    fn begin_variation(&mut self, ply: u32, span: Span) {
        self.0.push(format!("variation {ply} {}", span.line));
    }
    fn end_variation(&mut self) {
        self.0.push("end variation".into());
    }
    fn footer(&mut self, footer: &Footer) {
        self.0.push(format!("footer {}", footer.text));
    }
    fn diagnostic(&mut self, d: Diagnostic) {
        self.0.push(format!("diagnostic {}", d.message));
    }
    fn end_game(&mut self) -> Vec<String> {
        self.0.push("end".into());
        std::mem::take(&mut self.0)
    }
}

const KIF: &str = "手合割：平手\n\
    手数----指手---------消費時間--\n\
    \x20  1 ７六歩(77)   ( 0:01/00:00:01)\n\
    *a comment\n\
    \x20  2 ３四歩(33)\n\
    \x20  3 ２六歩(27)\n\
    \x20  4 投了\n\
    まで3手で先手の勝ち\n\
    \n\
    変化：2手\n\
    \x20  2 ８四歩(83)\n\
    \x20  3 ２六歩(27)\n\
    \n\
    変化：3手\n\
    *before the silver\n\
    \x20  3 ６八銀(79)\n\
    \n\
    変化：3手\n\
    \x20  3 ７八金(69)\n";

/// Variations are told in text order, each opening on the line that holds its ply, and
/// each ends before the next that does not go inside it; a comment before a variation's
/// first move is told after that move.
#[test]
fn variations_are_told_in_text_order_and_nest() {
    let told = tell(KIF, Dialect::Kif, &mut Log::<0>::default());
    let want = [
        "begin",
        "header 手合割",
        "start",
        "mv ７六歩(77) 3",
        "time Some(1000)",
        "comment a comment",
        "mv ３四歩(33) 5",
        "mv ２六歩(27) 6",
        "special 投了",
        "footer まで3手で先手の勝ち",
        "variation 2 10",
        "mv ８四歩(83) 11",
        "mv ２六歩(27) 12",
        "variation 3 14",
        "mv ６八銀(79) 16",
        "comment before the silver",
        "end variation",
        "variation 3 18",
        "mv ７八金(69) 19",
        "end variation",
        "end variation",
        "end",
    ];
    assert_eq!(told, want);
    // The record built from the same events.
    let r = super::parse(KIF, Dialect::Kif).record;
    let v = &r.moves[1].variations;
    assert_eq!(v.len(), 1);
    let alt = &v[0][1].variations;
    assert_eq!(alt.len(), 2);
    assert_eq!(alt[0][0].comments, ["before the silver"]);
}

/// A visitor that skips variations and comments is told the main line alone.
#[test]
fn skipped_variations_and_comments_are_not_told() {
    let told = tell(KIF, Dialect::Kif, &mut Log::<1>::default());
    assert_eq!(told.len(), 10, "{told:?}");
    assert!(
        told.iter()
            .all(|t| !t.starts_with("comment") && !t.starts_with("variation"))
    );
    assert!(!told.iter().any(|t| t.contains("８四歩")));
}

/// A KIF text in CP932 read from its bytes gives the record of the text they decode to:
/// a move line made slot by slot from the pieces of the grammar, right and wrong ones,
/// after a header and a first move (each slot's first piece, which makes a line read from
/// its bytes, is taken half the time). The lines read from their bytes are counted.
#[test]
fn cp932_bytes_read_as_their_text() {
    use super::super::spelling::Cp932;
    use super::{builder, kif_move_in, move_number_in, parse, tell_cp932};
    let slots: [&[&str]; 10] = [
        &["  ", "", " \u{3000}", "\t"],
        &["2", "12", "", "x", "4294967296"],
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
            "３４",
        ],
        &["歩", "成銀", "成", "と", "王", "竜", "x", "", "龍", "全"],
        &["成", "", "不成", "不", "成成"],
        &["(77)", "(54)", "打", "", "(7)", "(7a)", "(1"],
        &[" ", "", "\u{3000}", "\t", "   "],
        &[
            "( 0:01/00:00:01)",
            "",
            "(1:2/3:4:5)",
            "( 0:16)",
            "(a/1)",
            "+",
        ],
        &[
            " ",
            "",
            "\u{3000}",
            " \t",
            "x",
            "\u{3000}x",
            " #c",
            "\r",
            "\u{3042}",
        ],
    ];
    // xorshift64: `random` is a layer above this one.
    let mut state: u64 = 0x9E37_79B9_7F4A_7C15;
    let mut below = |n: u64| {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state % n
    };
    let mut from_bytes = 0;
    for _ in 0..20_000 {
        let line: String = slots
            .iter()
            .map(|slot| match below(2) {
                0 => slot[0],
                _ => slot[below(slot.len() as u64) as usize],
            })
            .collect();
        let text = format!("手合割：平手\n   1 ７六歩(77)\n{line}\n   3 投了\n");
        let (bytes, _, bad) = encoding_rs::SHIFT_JIS.encode(&text);
        assert!(!bad);
        let ours = tell_cp932(&bytes, &mut builder(bytes.len())).expect("decodes");
        let theirs = parse(&text, Dialect::Kif);
        assert_eq!(format!("{ours:?}"), format!("{theirs:?}"), "{line:?}");
        let (line_bytes, _, _) = encoding_rs::SHIFT_JIS.encode(&line);
        if let Some((Some(_), off, _)) = move_number_in::<Cp932>(&line_bytes)
            && line_bytes
                .get(off..)
                .and_then(kif_move_in::<Cp932>)
                .is_some()
        {
            from_bytes += 1;
        }
    }
    assert!(
        from_bytes > 1000,
        "only {from_bytes} lines read from their bytes"
    );
    // A line that does not decode stops the reading.
    assert!(tell_cp932(b"   1 \x82\n", &mut builder(6)).is_none());
}
