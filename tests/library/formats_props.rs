//! Property tests for the CSA, USI and JKF readers and writers: no input makes them panic,
//! and random legal games survive record → text → record in every one of them.

use kifu::core::{Handicap, Move, Position};
use kifu::formats::{WriteOptions, csa, jkf, usi};
use kifu::record::{
    MoveNode, MoveText, MoveTime, NodeKind, Record, Relative, Source, Special, SpecialKind,
    StartPosition,
};
use proptest::prelude::*;

/// A random legal game from a standard start, as a record with resolved moves and times.
fn game(start: Handicap, picks: &[u16], times: &[u32]) -> Record {
    let mut r = Record {
        start: StartPosition::Preset(start),
        ..Record::default()
    };
    let mut pos = Position::from_setup(&start.setup()).unwrap();
    for (i, &p) in picks.iter().enumerate() {
        let moves = pos.legal_moves();
        if moves.is_empty() {
            break;
        }
        let mv: Move = moves[p as usize % moves.len()];
        let text = MoveText {
            color: Some(pos.turn()),
            from: match mv.from() {
                Some(sq) => Source::Square(sq),
                None => Source::Drop,
            },
            to: mv.to(),
            same: false,
            piece: None,
            promote: None,
            relative: Relative::default(),
            raw: mv.to_usi().into(),
        };
        let mut node = MoveNode::new(
            NodeKind::Move {
                text,
                resolved: Some(mv),
            },
            Default::default(),
        );
        node.time = Some(MoveTime {
            elapsed_ms: Some(u64::from(times.get(i).copied().unwrap_or(0)) * 1000),
            total_ms: None,
        });
        r.moves.push(node);
        pos.play(mv).unwrap();
    }
    r.moves.push(MoveNode::new(
        NodeKind::Special(Special {
            kind: SpecialKind::Resign,
            text: "%TORYO".into(),
            side: None,
        }),
        Default::default(),
    ));
    r
}

fn resolved(r: &Record) -> Vec<Option<Move>> {
    r.moves.iter().map(MoveNode::resolved).collect()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    #[test]
    fn readers_never_panic(s in "[-+%PTVN$'/,0-9A-Z* \\n:.{}\\[\\]\"a-z]{0,300}") {
        for g in csa::read(&s) {
            let _ = csa::write(&g.record, &WriteOptions::default());
            let _ = jkf::write(&g.record, &WriteOptions::default());
            let _ = usi::write(&g.record, &WriteOptions::default());
        }
        for g in usi::read(&s) {
            let _ = csa::write(&g.record, &WriteOptions { csa_v3: true, ..WriteOptions::default() });
        }
        for g in jkf::read(&s) {
            let _ = jkf::write(&g.record, &WriteOptions::default());
        }
    }

    #[test]
    fn mutated_fixture_never_panics(cut in 0usize..2000, dup in 0usize..2000, junk in "[ -~]{0,8}") {
        let base = include_str!("../../fixtures/csa/multi.csa");
        let mut lines: Vec<&str> = base.lines().collect();
        if !lines.is_empty() {
            let c = cut % lines.len();
            lines.remove(c);
            let d = dup % lines.len().max(1);
            if let Some(l) = lines.get(d).copied() { lines.insert(d, l); }
        }
        let mut text = lines.join("\n");
        let at = (cut * 7) % text.len().max(1);
        if text.is_char_boundary(at) { text.insert_str(at, &junk); }
        for g in csa::read(&text) {
            let _ = csa::write(&g.record, &WriteOptions { csa_v3: true, ..WriteOptions::default() });
            let _ = jkf::write(&g.record, &WriteOptions::default());
        }
    }

    #[test]
    fn random_games_round_trip(
        picks in proptest::collection::vec(any::<u16>(), 0..120),
        times in proptest::collection::vec(0u32..600, 0..120),
        h in 0usize..16,
    ) {
        let start = Handicap::ALL[h];
        let r = game(start, &picks, &times);
        let want = resolved(&r);
        // CSA: moves and times come back; resolve them again through the text.
        let c = csa::read(&csa::write(&r, &WriteOptions::default()).text).remove(0);
        prop_assert!(c.diagnostics.is_empty());
        prop_assert_eq!(&c.record.start, &r.start);
        let mut cr = c.record.clone();
        let diags = kifu::record::resolve::resolve_record(&mut cr);
        prop_assert!(diags.is_empty(), "{:?}", diags);
        prop_assert_eq!(resolved(&cr), want.clone());
        let t1: Vec<_> = r.moves.iter().map(|n| n.time.and_then(|t| t.elapsed_ms)).collect();
        let t2: Vec<_> = cr.moves.iter().map(|n| n.time.and_then(|t| t.elapsed_ms)).collect();
        prop_assert_eq!(t1, t2);
        // USI.
        // (with its ending token: the plain line drops the ending, with a warning)
        let u = usi::read(&usi::write(&r, &WriteOptions { usi_endings: true, ..WriteOptions::default() }).text).remove(0);
        prop_assert!(u.diagnostics.is_empty());
        prop_assert_eq!(resolved(&u.record), want.clone());
        // JKF.
        let j = jkf::read(&jkf::write(&r, &WriteOptions::default()).text).remove(0);
        prop_assert!(j.diagnostics.is_empty());
        let mut jr = j.record.clone();
        let diags = kifu::record::resolve::resolve_record(&mut jr);
        prop_assert!(diags.is_empty(), "{:?}", diags);
        prop_assert_eq!(resolved(&jr), want);
    }
}
