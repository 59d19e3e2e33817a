//! The layout read by fixed literals ([`written`]) against the member-by-member reading
//! ([`P::plain_entry`]) of the same bytes, and the plain shape against the reader's short way.

use super::*;
use crate::core::Position;
use crate::formats::WriteOptions;
use crate::formats::jkf::write;
use crate::record::resolve::text_for_move;
use crate::record::{MoveNode, NodeKind, Record, SpecialKind};

/// A small generator of numbers (an LCG: the tests need variety, not quality).
struct Rng(u64);

impl Rng {
    fn new(seed: u64) -> Rng {
        Rng(seed ^ 0x9E37_79B9_7F4A_7C15)
    }

    fn below(&mut self, n: u64) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        (self.0 >> 33) % n.max(1)
    }
}

/// The entry at `i` read member by member: the entry, its time and the index after it.
fn by_members(text: &str, i: usize) -> Option<(PlainEntry, Option<MoveTime>, usize)> {
    let mut p = P::new(text);
    p.i = i;
    let mut got = None;
    let mut prev_to = None;
    p.plain_entry(&mut prev_to, &mut |e, t, _| {
        got = Some((e, t));
        Some(())
    })?;
    got.map(|(e, t)| (e, t, p.i))
}

/// The start of every entry after the first of a compact document's `moves`.
fn entry_starts(text: &str) -> Vec<usize> {
    let Some(moves) = text.find("\"moves\":[{}") else {
        return Vec::new();
    };
    let mut out = Vec::new();
    let mut depth = 0i32;
    let b = text.as_bytes();
    let mut i = moves + "\"moves\":[{}".len();
    while let Some(&c) = b.get(i) {
        match c {
            b'{' if depth == 0 => {
                out.push(i);
                depth += 1;
            }
            b'{' => depth += 1,
            b'}' => depth -= 1,
            b']' if depth == 0 => break,
            _ => {}
        }
        i += 1;
    }
    out
}

/// A random legal game of up to 150 plies with times, ended by a resignation, as the writer
/// writes it (drops, captures, promotions, `same` and `relative` all come up).
fn document(seed: u64) -> String {
    let mut rng = Rng::new(seed);
    let mut pos = Position::startpos();
    let mut rec = Record::default();
    rec.header.push("先手", "甲", Span::default());
    let (mut last_to, mut totals) = (None, [0u64; 2]);
    for _ in 0..150 {
        let legal = pos.legal_moves();
        if legal.is_empty() {
            break;
        }
        let mv = legal[rng.below(legal.len() as u64) as usize];
        let text = text_for_move(&pos, mv, last_to);
        let mut node = MoveNode::new(
            NodeKind::Move {
                text,
                resolved: Some(mv),
            },
            Span::default(),
        );
        let side = pos.turn().index();
        let elapsed = rng.below(700) * 1000;
        totals[side] += elapsed;
        node.time = Some(MoveTime {
            elapsed_ms: Some(elapsed),
            total_ms: Some(totals[side]),
        });
        rec.moves.push(node);
        assert!(pos.play_if_legal(mv));
        last_to = Some(mv.to());
    }
    rec.moves.push(MoveNode::new(
        NodeKind::Special(Special {
            kind: SpecialKind::Resign,
            text: "TORYO".into(),
            side: None,
        }),
        Span::default(),
    ));
    write(&rec, &WriteOptions::default()).text
}

#[test]
fn written_entries_read_as_member_by_member() {
    let mut taken = 0;
    for seed in 0..40 {
        let text = document(seed);
        for i in entry_starts(&text) {
            let fast = written(text.as_bytes(), i);
            if fast.is_some() {
                taken += 1;
                assert_eq!(fast, by_members(&text, i), "{}", &text[i..]);
            }
        }
    }
    assert!(taken > 1000, "{taken}");
}

/// Every one-byte change of an entry: the literal reading gives up or reads what the member
/// by member reading reads.
#[test]
fn changed_entries_read_the_same_or_give_up() {
    const BYTES: &[u8] = b"{}[],:\"0123456789 \\naeflnrstuxyFUKIR-.";
    let mut rng = Rng::new(7);
    let (mut same, mut changed) = (0, 0);
    for seed in 0..10 {
        let text = document(100 + seed);
        for i in entry_starts(&text).into_iter().take(30) {
            let end = written(text.as_bytes(), i).map_or(i + 1, |(_, _, end)| end);
            for _ in 0..40 {
                let mut b = text.as_bytes().to_vec();
                let j = i + rng.below((end - i) as u64) as usize;
                match rng.below(3) {
                    0 => b[j] = BYTES[rng.below(BYTES.len() as u64) as usize],
                    1 => {
                        b.remove(j);
                    }
                    _ => b.insert(j, b[j]),
                }
                let Ok(t) = String::from_utf8(b) else {
                    continue;
                };
                changed += 1;
                if let Some(fast) = written(t.as_bytes(), i) {
                    same += 1;
                    assert_eq!(Some(fast), by_members(&t, i), "{}", &t[i..]);
                }
            }
        }
    }
    // Some changes keep the layout (a digit for a digit), most do not.
    assert!(
        same > changed / 50 && same < changed / 2,
        "{same} of {changed}"
    );
}

/// What the plain shape reads, the reader's short way reads to the same moves, times and
/// places; whitespace anywhere is read member by member.
#[test]
fn plain_games_are_the_readers_records() {
    for seed in 0..20 {
        let text = document(200 + seed);
        let spaced = text.replace(',', " ,\n ").replace(':', ": ");
        for t in [text.as_str(), spaced.as_str()] {
            let record = super::super::read(t).expect("the reader's short way");
            let mut entries = Vec::new();
            let header = plain_game(t, |e, time, span| {
                entries.push((e, time, span));
                Some(())
            })
            .expect("the plain shape");
            assert_eq!(header, record.header);
            assert_eq!(entries.len(), record.moves.len());
            for ((e, time, span), node) in entries.iter().zip(&record.moves) {
                assert_eq!((*time, *span), (node.time, node.span));
                match (e, &node.kind) {
                    (PlainEntry::Move(m), crate::record::NodeKind::Move { text, .. }) => {
                        assert_eq!(Some(m.to), Some(text.to));
                        assert_eq!(m.color, text.color);
                        assert_eq!(m.promote, text.promote == Some(true));
                        assert_eq!(
                            m.from.map(crate::record::Source::Square),
                            Some(text.from).filter(|s| *s != crate::record::Source::Drop)
                        );
                    }
                    (PlainEntry::Special(s), crate::record::NodeKind::Special(r)) => {
                        assert_eq!(s, r)
                    }
                    other => panic!("{other:?}"),
                }
            }
        }
    }
}

/// A `move` object read by the plain shape ([`P::plain_move`]) and by the reader's short way
/// ([`P::move_text`]) through the same members: the same move, or both give up.
#[test]
fn plain_moves_are_the_readers_move_texts() {
    let prev = Square::new(7, 6);
    let objects = [
        r#"{"color":true,"from":{"x":7,"y":7},"to":{"x":7,"y":6},"piece":"FU"}"#,
        r#"{ "piece" : "KA", "to" : {"y":5,"x":5}, "color" : 1, "from" : null, "relative":"H" }"#,
        r#"{"color":false,"same":true,"piece":"FU","promote":null,"capture":"FU"}"#,
        r#"{"color":null,"from":{"x":8,"y":8},"to":{"x":2,"y":2},"piece":"KA","promote":true}"#,
        r#"{"color":0,"from":{"x":8,"y":8},"to":{"x":2,"y":2},"piece":"KA","promote":false}"#,
        // Given up by both: a repeated key, an unknown key, no `to`, a number for `promote`.
        r#"{"color":0,"color":0,"to":{"x":7,"y":6},"piece":"FU"}"#,
        r#"{"color":0,"to":{"x":7,"y":6},"piece":"FU","x":1}"#,
        r#"{"color":0,"piece":"FU"}"#,
        r#"{"color":0,"to":{"x":7,"y":6},"piece":"FU","promote":1}"#,
    ];
    let mut read = 0;
    for o in objects {
        let plain = P::new(o).plain_move(prev);
        let text = P::new(o).move_text(prev);
        match (plain, text) {
            (Some(m), Some(t)) => {
                read += 1;
                assert_eq!(m.color, t.color, "{o}");
                assert_eq!(m.to, t.to, "{o}");
                assert_eq!(Some(crate::record::NamedPiece::Before(m.kind)), t.piece);
                assert_eq!(m.promote, t.promote == Some(true), "{o}");
                assert_eq!(
                    m.from
                        .map_or(crate::record::Source::Drop, crate::record::Source::Square),
                    t.from,
                    "{o}"
                );
            }
            (None, None) => {}
            other => panic!("{o}: {other:?}"),
        }
    }
    assert_eq!(read, 5);
}
