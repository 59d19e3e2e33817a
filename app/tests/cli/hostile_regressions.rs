//! Regression tests for bugs found by fuzzing and by the round-trip property tests. Each test
//! holds the input that showed the bug, inline.

use kifu::formats::{self, Format, WriteOptions};
use kifu::validate::{self, Options};

use crate::common;

use crate::archive;
use crate::as_read;
use crate::roundtrip;

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

/// Found by `app/tests/cli/hostile.rs`: a KIF file whose variations nest 3000 deep read fine, but any
/// clone of the record (and validate, and the writers) recursed once per level and overflowed
/// a worker's stack (abort). The KIF/KI2 reader now skips variations nested more than 1000
/// levels deep, with a syntax error; 1000 levels clone, validate and write on a 2 MiB stack
/// (a rayon worker's).
#[test]
fn deeply_nested_kif_variations_are_cut_at_1000_levels() {
    // Main line 1 ply; each block branches at the last ply of the block before it: block k is
    // `k: ９六歩 / k+1: ...` as a variation of ply k of block k-1.
    let moves = ["７六歩(77)", "３四歩(33)", "２六歩(27)", "８四歩(83)"];
    let mut text =
        String::from("手数----指手---------消費時間--\n   1 ７六歩(77)\n   2 ３四歩(33)\n");
    for k in 2..3000 {
        text.push_str(&format!(
            "\n変化：{k}手\n{k} {}\n{} {}\n",
            moves[k % 4],
            k + 1,
            moves[(k + 1) % 4]
        ));
    }
    let games = formats::read(Format::Kifu, &text);
    let g = &games[0];
    let syntax: Vec<_> = g
        .diagnostics
        .iter()
        .filter(|d| d.message.contains("nested"))
        .collect();
    assert!(!syntax.is_empty(), "{:?}", g.diagnostics.first());
    fn depth(nodes: &[kifu::record::MoveNode]) -> usize {
        nodes
            .iter()
            .flat_map(|n| n.variations.iter().map(|v| 1 + depth(v)))
            .max()
            .unwrap_or(0)
    }
    assert_eq!(depth(&g.record.moves), 1000);
    // Clone, validate and write it on a small stack.
    let record = g.record.clone();
    std::thread::Builder::new()
        .stack_size(2 << 20)
        .spawn(move || {
            let mut r = record.clone();
            let _ = validate::replay(&mut r, &Options::default());
            for f in Format::ALL {
                let _ = formats::write(f, &r, &WriteOptions::default());
            }
        })
        .expect("spawn")
        .join()
        .expect("no stack overflow");
}

/// `まで1手で先手の反則負け`: White to move, but Black named as the side that lost by a foul.
/// CSA's `%ILLEGAL_MOVE` and JKF's `ILLEGAL_MOVE` would make it White's loss; both writers
/// write Black's illegal action instead. (Found in a variation by the mutation smoke, seed 43.
/// Since issue #19 a claimed foul that the record cannot show stands: a server logs the foul
/// it refused without the move.)
#[test]
fn a_foul_loss_of_the_side_not_to_move_keeps_its_side() {
    use kifu::core::Color;
    use kifu::record::SpecialKind;
    let mut games = formats::read(Format::Ki2u, "▲７六歩\nまで1手で先手の反則負け\n");
    // Validation resolves the moves (what the writers write); the claim stands as stated.
    let report = validate::validate_game(&mut games[0], &Options::default());
    assert!(report.diagnostics.is_empty(), "{:?}", report.diagnostics);
    assert_eq!(report.result.winner, Some(kifu::validate::Winner::White));
    let record = &games[0].record;
    let end = record
        .moves
        .last()
        .and_then(|n| n.special())
        .expect("ending");
    assert_eq!(
        (end.kind, end.side),
        (SpecialKind::IllegalMove, Some(Color::Black))
    );
    for to in [Format::Csa, Format::Jkf] {
        let w = formats::write(to, record, &WriteOptions::default());
        assert!(w.text.contains("+ILLEGAL_ACTION"), "{to:?}: {}", w.text);
        let back = formats::read(to, &w.text);
        let end = back[0].record.moves.last().and_then(|n| n.special());
        assert_eq!(
            end.map(|s| s.kind),
            Some(SpecialKind::IllegalAction(Color::Black)),
            "{to:?}"
        );
    }
}

/// Records with fouls convert as they are: the foul is written as it was made, or the writer
/// says what it could not hold.
#[test]
fn fouls_are_converted_as_they_were_made() {
    use kifu::record::NodeKind;
    let resolved = |format, text: &str| {
        let mut games = formats::read(format, text);
        let report = validate::validate_game(&mut games[0], &Options::default());
        let codes: Vec<_> = report.diagnostics.iter().map(|d| d.code).collect();
        (games.remove(0).record, codes)
    };
    let back = |to, record: &kifu::record::Record| {
        let w = formats::write(to, record, &WriteOptions::default());
        let codes: Vec<_> = w.warnings.iter().map(|d| d.code).collect();
        let mut games = formats::read(to, &w.text);
        let report = validate::validate_game(&mut games[0], &Options::default());
        let back: Vec<_> = report.diagnostics.iter().map(|d| d.code).collect();
        (games.remove(0).record, codes, back, w.text)
    };
    use kifu::diag::Code;
    // Whether writing `record` as `to` warns that something at `ply` was lost.
    let warns_at = |to, record: &kifu::record::Record, ply| {
        let w = formats::write(to, record, &WriteOptions::default());
        let found = w
            .warnings
            .iter()
            .any(|d| d.code == Code::Lossy && d.ply == Some(ply));
        assert!(found, "{to:?}: {:?}\n{}", w.warnings, w.text);
    };

    // A promotion out of the zone (a rook 28 to 48) keeps its promotion in JKF.
    let (r, codes) = resolved(Format::Kif, "   1 ４八飛成(28)\n   2 ３四歩(33)\n");
    assert_eq!(codes, [Code::BadPromotion]);
    let (b, warnings, codes, text) = back(Format::Jkf, &r);
    assert!(warnings.is_empty(), "{warnings:?}");
    assert_eq!(codes, [Code::BadPromotion], "{text}");
    assert_eq!(
        b.moves[0].resolved().map(|m| m.is_promotion()),
        Some(true),
        "{text}"
    );

    // CSA names the piece after a move, so a gold's promotion cannot be written: it says so.
    let (r, codes) = resolved(Format::Usi, "position startpos moves 6i5h+");
    assert_eq!(codes, [Code::BadPromotion]);
    warns_at(Format::Csa, &r, 1);

    // A KIF move of the other side's piece is the side to move's move (as validate takes it):
    // CSA writes it with the mover's sign, and the same foul reads back.
    let (r, codes) = resolved(Format::Kif, "   1 ３四歩(33)\n   2 投了\n");
    assert_eq!(codes, [Code::NoPiece]);
    let (_, warnings, codes, text) = back(Format::Csa, &r);
    assert!(warnings.is_empty(), "{warnings:?}");
    assert!(text.contains("+3334FU\n%TORYO"), "{text}");
    assert_eq!(codes, [Code::NoPiece], "{text}");

    // A JKF move out of turn (at the second ply, Black moving White's pawn): KIF, KI2 and
    // USI cannot say whose a move is, and say so (KI2 stops there).
    let jkf = r#"{"header":{},"initial":{"preset":"HIRATE"},"moves":[{},
        {"move":{"color":0,"from":{"x":2,"y":7},"to":{"x":2,"y":6},"piece":"FU"}},
        {"move":{"color":0,"from":{"x":3,"y":3},"to":{"x":3,"y":4},"piece":"FU"}}]}"#;
    let (r, codes) = resolved(Format::Jkf, jkf);
    assert_eq!(codes, [Code::WrongTurn]);
    assert!(matches!(r.moves[1].kind, NodeKind::Move { .. }));
    for to in [Format::Kif, Format::Usi, Format::Ki2] {
        warns_at(to, &r, 2);
    }
    for to in [Format::Csa, Format::Jkf] {
        let (_, warnings, codes, text) = back(to, &r);
        assert!(warnings.is_empty(), "{to:?}: {warnings:?}");
        assert_eq!(codes, [Code::WrongTurn], "{to:?}: {text}");
    }

    // A move naming a piece that is not on its source square (a bishop where the pawn of 77
    // stands) is written with the name the record gave, in each format's way of naming it,
    // and reads back as the same foul; KI2 (no source square) and USI (no piece names) say
    // they cannot hold it.
    for (from, source) in [
        (Format::Kif, "   1 ７六角(77)\n   2 ３四歩(33)\n"),
        (Format::Csa, "PI\n+\n+7776KA\n-3334FU\n"),
        (
            Format::Jkf,
            r#"{"header":{},"initial":{"preset":"HIRATE"},"moves":[{},
            {"move":{"color":0,"from":{"x":7,"y":7},"to":{"x":7,"y":6},"piece":"KA"}}]}"#,
        ),
    ] {
        let (r, codes) = resolved(from, source);
        assert_eq!(codes, [Code::PieceMismatch], "{from:?}");
        for (to, written) in [
            (Format::Kif, "７六角(77)"),
            (Format::Csa, "+7776KA"),
            (Format::Jkf, r#""piece":"KA""#),
        ] {
            let (_, warnings, codes, text) = back(to, &r);
            assert!(warnings.is_empty(), "{from:?} to {to:?}: {warnings:?}");
            assert!(text.contains(written), "{from:?} to {to:?}: {text}");
            assert_eq!(codes, [Code::PieceMismatch], "{from:?} to {to:?}: {text}");
        }
        for to in [Format::Ki2, Format::Usi] {
            warns_at(to, &r, 1);
        }
    }
    // CSA names the piece after the move: a KIF と moving from a pawn's square without
    // promoting would read back in CSA as the pawn's promotion, so it says so.
    let (r, codes) = resolved(Format::Kif, "   1 ７六と(77)\n");
    assert_eq!(codes, [Code::PieceMismatch]);
    warns_at(Format::Csa, &r, 1);
    // A CSA promotion naming a piece that is not the promotion of the one there (a tokin
    // from a silver's square) reads back from KIF as the same foul: `歩成`.
    let (r, codes) = resolved(Format::Csa, "PI\n+\n+7978TO\n");
    assert_eq!(codes, [Code::PieceMismatch]);
    let (_, warnings, codes, text) = back(Format::Kif, &r);
    assert!(warnings.is_empty(), "{warnings:?}");
    assert!(text.contains("７八歩成(79)"), "{text}");
    assert_eq!(codes, [Code::PieceMismatch], "{text}");

    // The moves after a foul are not resolved, but they are written all the same (KIF and
    // KI2 used to cut a CSA record there): a pawn dropped from an empty hand at ply 7.
    let csa = "PI\n+\n+7776FU\n-3334FU\n+2726FU\n-8384FU\n+2625FU\n-8485FU\n+0024FU\n\
               -2324FU\n+2524FU\n%TORYO\n";
    let (r, codes) = resolved(Format::Csa, csa);
    assert_eq!(codes, [Code::NotInHand]);
    for (to, tail) in [
        (Format::Kif, "同　歩(25)"),
        (Format::Kifu, "同　歩(25)"),
        (Format::Jkf, r#""from":{"x":2,"y":5},"to":{"x":2,"y":4}"#),
    ] {
        let (b, warnings, codes, text) = back(to, &r);
        assert!(warnings.is_empty(), "{to:?}: {warnings:?}");
        assert!(text.contains(tail), "{to:?}: {text}");
        assert_eq!(b.moves.len(), 10, "{to:?}: {text}");
        assert_eq!(codes, [Code::NotInHand], "{to:?}: {text}");
    }
}

/// A record whose variations nest `levels` deep, every move legal and no position repeated:
/// the main line is one ply; line k (k = 1..=levels) is a variation of the last ply of line
/// k - 1 and has two plies.
fn nested_record(levels: usize) -> kifu::record::Record {
    use kifu::core::Position;
    use kifu::record::resolve::text_for_move;
    use kifu::record::{MoveNode, NodeKind, Record, Span};
    let node = |pos: &Position, mv| {
        MoveNode::new(
            NodeKind::Move {
                text: text_for_move(pos, mv, None),
                resolved: Some(mv),
            },
            Span::default(),
        )
    };
    // steps[k]: the position before ply k + 1, the move played there and an alternative.
    let mut pos = Position::startpos();
    let mut seen = std::collections::HashSet::from([pos.key()]);
    let mut steps = Vec::new();
    for _ in 0..=levels {
        let cands: Vec<_> = pos
            .legal_moves()
            .iter()
            .filter_map(|&m| {
                let mut after = pos.clone();
                after.play(m).ok()?;
                (!seen.contains(&after.key()) && !after.in_check() && after.legal_moves().len() > 1)
                    .then_some((m, after))
            })
            .take(2)
            .collect();
        assert_eq!(cands.len(), 2, "stuck at ply {}", steps.len());
        let (main, after) = cands[0].clone();
        steps.push((pos.clone(), main, cands[1].0));
        seen.insert(after.key());
        pos = after;
    }
    let mut inner: Option<Vec<MoveNode>> = None;
    for k in (1..=levels).rev() {
        let mut alt = node(&steps[k].0, steps[k].2);
        alt.variations.extend(inner.take());
        inner = Some(vec![node(&steps[k - 1].0, steps[k - 1].1), alt]);
    }
    let mut first = node(&steps[0].0, steps[0].2);
    first.variations.extend(inner);
    Record {
        moves: vec![first],
        ..Record::default()
    }
}

/// JKF text whose forks nest `levels` deep (the same move everywhere: for the reader's
/// nesting only).
fn nested_jkf(levels: usize) -> String {
    let mv = r#"{"move":{"color":0,"from":{"x":7,"y":7},"to":{"x":7,"y":6},"piece":"FU"},"time":{"now":{"m":0,"s":1},"total":{"h":0,"m":0,"s":1}}"#;
    let mut jkf = String::from(r#"{"header":{},"moves":[{},"#);
    for _ in 0..levels {
        jkf.push_str(mv);
        jkf.push_str(r#","forks":[["#);
    }
    jkf.push_str(mv);
    jkf.push('}');
    for _ in 0..levels {
        jkf.push_str("]]}");
    }
    jkf.push_str("]}");
    jkf
}

/// How deep the variations of a line nest.
fn nesting(nodes: &[kifu::record::MoveNode]) -> usize {
    nodes
        .iter()
        .flat_map(|n| n.variations.iter().map(|v| 1 + nesting(v)))
        .max()
        .unwrap_or(0)
}

/// Found by `app/tests/cli/hostile.rs`: a KIF with 100 nested variations converted to JKF could not be
/// read back (the JSON nested past serde_json's limit of 128 levels, about 41 variation
/// levels). The JKF writer now writes 40 levels and reports the deeper variations it leaves
/// out as `lossy`; whatever it writes reads back clean, with every level it wrote.
#[test]
fn jkf_writer_writes_only_the_variation_depth_jkf_readers_read() {
    use kifu::formats::jkf::MAX_VARIATION_DEPTH;
    let max = MAX_VARIATION_DEPTH as usize;
    for levels in [1, 2, max - 1, max, max + 1, max + 2, 100, 1000] {
        let mut g = kifu::formats::ParsedGame {
            record: nested_record(levels),
            diagnostics: Vec::new(),
        };
        let r = validate::validate_game(&mut g, &Options::default());
        assert!(r.diagnostics.is_empty(), "{levels}: {:?}", r.diagnostics);
        assert_eq!(nesting(&g.record.moves), levels);
        let w = formats::write(Format::Jkf, &g.record, &WriteOptions::default());
        if levels <= max {
            assert!(w.warnings.is_empty(), "{levels}: {:?}", w.warnings);
        } else {
            assert_eq!(w.warnings.len(), 1, "{levels}: {:?}", w.warnings);
            assert_eq!(w.warnings[0].code, kifu::diag::Code::Lossy);
            assert!(
                w.warnings[0].message.contains("128 levels"),
                "{:?}",
                w.warnings
            );
        }
        let mut back = formats::read(Format::Jkf, &w.text).remove(0);
        assert!(
            back.diagnostics.is_empty(),
            "{levels}: {:?}",
            back.diagnostics
        );
        let r = validate::validate_game(&mut back, &Options::default());
        assert!(r.diagnostics.is_empty(), "{levels}: {:?}", r.diagnostics);
        assert_eq!(nesting(&back.record.moves), levels.min(max), "{levels}");
    }
    // The reader reads forks nested `max` deep (with times, the deepest objects a move entry
    // holds) and refuses one level more: the writer's limit is not lower than it has to be.
    let ok = formats::read(Format::Jkf, &nested_jkf(max)).remove(0);
    assert!(ok.diagnostics.is_empty(), "{:?}", ok.diagnostics);
    assert_eq!(nesting(&ok.record.moves), max);
    let deeper = formats::read(Format::Jkf, &nested_jkf(max + 1)).remove(0);
    assert_eq!(deeper.diagnostics.len(), 1, "{:?}", deeper.diagnostics);
    assert_eq!(deeper.diagnostics[0].code, kifu::diag::Code::Syntax);
    assert!(
        deeper.diagnostics[0]
            .message
            .contains("nested deeper than 128 JSON levels (40 levels of variations)"),
        "{:?}",
        deeper.diagnostics
    );
}

/// The checks of the fuzz target named by the file's prefix, on one input (see
/// `fuzz/fuzz_targets/`).
fn run_fuzz_target(target: &str, data: &[u8]) {
    use kifu::core::{Position, Setup};
    let select = |data: &[u8]| -> Option<(Format, String)> {
        let (&sel, bytes) = data.split_first()?;
        let format = *Format::ALL.get(usize::from(sel) % Format::ALL.len())?;
        Some((
            format,
            formats::decode::decode(bytes, Some(format), None).text,
        ))
    };
    match target {
        "sfen" => {
            let Ok(s) = std::str::from_utf8(data) else {
                return;
            };
            if let Ok(setup) = Setup::from_sfen(s) {
                let printed = setup.to_sfen();
                let again = Setup::from_sfen(&printed).expect("printed SFEN parses");
                assert_eq!(again.to_sfen(), printed);
                if let Ok(pos) = Position::from_setup(&setup) {
                    for mv in pos.legal_moves().iter() {
                        let mut p = pos.clone();
                        assert!(p.play(*mv).is_ok(), "generated {} refused", mv.to_usi());
                    }
                }
            }
        }
        "roundtrip" => roundtrip::check_roundtrip(data),
        "validate_as_read" => as_read::check_as_read(data),
        "archive" => archive::check_archive(data),
        "validate" => {
            if let Some((format, text)) = select(data) {
                for mut g in formats::read(format, &text) {
                    let _ = validate::validate_game(&mut g, &Options::default());
                    for f in Format::ALL {
                        let w = formats::write(f, &g.record, &WriteOptions::default());
                        let _ = formats::read(f, &w.text);
                    }
                }
            }
        }
        other => {
            let format = match other {
                "read_kif" => Format::Kifu,
                "read_ki2" => Format::Ki2u,
                "read_csa" => Format::Csa,
                "read_usi" => Format::Usi,
                "read_jkf" => Format::Jkf,
                _ => {
                    let _ = formats::decode::decode(data, None, None);
                    return;
                }
            };
            let text = String::from_utf8_lossy(data);
            for mut g in formats::read(format, &text) {
                let _ = kifu::record::resolve::resolve_record(&mut g.record);
            }
            // JKF: where the one pass reads the text, the general reader reads the same.
            if format == Format::Jkf
                && let (Some(one), general) = formats::jkf::one_pass_and_general(&text)
            {
                assert_eq!(one.diagnostics, general.diagnostics, "{text}");
                assert_eq!(one.record, general.record, "{text}");
            }
        }
    }
}

/// The `roundtrip` fuzz target's check on its seeds: every record file of `fixtures/` and of
/// the shared corpus (when present), read as its extension says and converted to every format.
#[test]
fn roundtrip_check_passes_on_fixtures_and_corpus() {
    let mut files = common::files_with(
        &crate::common::repo().join("fixtures"),
        &[
            "kif", "kifu", "ki2", "ki2u", "csa", "usi", "sfen", "jkf", "json",
        ],
    );
    files.extend(
        common::corpus_files(
            "roundtrip_check_passes_on_fixtures_and_corpus",
            &[
                "kif", "kifu", "ki2", "ki2u", "csa", "usi", "sfen", "jkf", "json",
            ],
        )
        .unwrap_or_default(),
    );
    assert!(files.len() >= 10, "{} files", files.len());
    let mut failures = Vec::new();
    for f in &files {
        let ext = f
            .extension()
            .and_then(|e| e.to_str())
            .unwrap_or_default()
            .to_ascii_lowercase();
        let Some(format) = Format::from_extension(&ext) else {
            continue;
        };
        let Some(sel) = Format::ALL.iter().position(|&x| x == format) else {
            continue;
        };
        let mut data = vec![sel as u8];
        data.extend(std::fs::read(f).expect("read"));
        if data.len() > 256 << 10 {
            continue;
        }
        if let Err(e) = std::panic::catch_unwind(|| roundtrip::check_roundtrip(&data)) {
            let first = first_line_of_panic(e.as_ref());
            failures.push(format!("{}: {first}", f.display()));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// The checks of a fuzz target on every file of a directory (a fuzz corpus), without the
/// fuzzer: `KIFU_TARGET=roundtrip KIFU_INPUTS=fuzz/corpus/roundtrip cargo test --release
/// --test hostile_regressions -- --ignored inputs_of_a_directory`. Prints every failing file.
/// `KIFU_SELECT=N` puts the byte N in front of every input (a reader's corpus replayed through
/// `roundtrip`: 1 KIF, 3 KI2, 4 CSA, 5 USI, 6 JKF).
#[test]
#[ignore]
fn inputs_of_a_directory_pass_their_target() {
    let (Ok(target), Ok(dir)) = (std::env::var("KIFU_TARGET"), std::env::var("KIFU_INPUTS")) else {
        return;
    };
    let mut failures = Vec::new();
    let mut n = 0;
    for e in std::fs::read_dir(&dir).expect("KIFU_INPUTS") {
        let path = e.expect("entry").path();
        let mut data = std::fs::read(&path).expect("read");
        // KIFU_SELECT=N puts the selector byte N in front (to replay a reader's corpus
        // through `validate` or `roundtrip`).
        if let Some(sel) = std::env::var("KIFU_SELECT")
            .ok()
            .and_then(|s| s.parse::<u8>().ok())
        {
            data.insert(0, sel);
        }
        n += 1;
        if let Err(e) = std::panic::catch_unwind(|| run_fuzz_target(&target, &data)) {
            let first = first_line_of_panic(e.as_ref());
            failures.push(format!("{}: {first}", path.display()));
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {n}:\n{}",
        failures.len(),
        failures.join("\n")
    );
    // With --nocapture, the count shows that the directory was replayed, not skipped.
    eprintln!("{n} inputs of {dir} pass {target}");
}

/// Every input in `tests/regressions/` passes the checks of the fuzz target that found it.
#[test]
fn fuzz_regression_inputs_pass_their_targets() {
    let dir = crate::common::repo().join("tests/regressions");
    let mut n = 0;
    for e in std::fs::read_dir(&dir).expect("tests/regressions") {
        let path = e.expect("entry").path();
        let name = path
            .file_name()
            .and_then(|n| n.to_str())
            .unwrap_or_default()
            .to_owned();
        if name.ends_with(".md") {
            continue;
        }
        let target = name.split('-').next().unwrap_or_default().to_owned();
        let data = std::fs::read(&path).expect("read");
        run_fuzz_target(&target, &data);
        n += 1;
    }
    assert!(n >= 1, "no regression inputs found");
}

/// The first line of a caught panic's message (empty when it carries none).
fn first_line_of_panic(e: &(dyn std::any::Any + Send)) -> String {
    let msg = e
        .downcast_ref::<String>()
        .cloned()
        .or_else(|| e.downcast_ref::<&str>().map(|s| (*s).to_owned()))
        .unwrap_or_default();
    msg.lines().next().unwrap_or_default().to_owned()
}

/// Found by the round-trip check of the CI mutation smoke (seed 1, run 21335): a 2chkifu
/// one-line CSA game whose plies field does not fit a u32 kept its footer text but no count,
/// while the KIF reader reads the same `まで4486989245065手` as u32::MAX, so its KIF form had a
/// `result-mismatch` the CSA had not. Both now read the count alike.
#[test]
fn a_one_line_csa_count_past_u32_reads_as_its_kif_footer_does() {
    let text = "2 2003/09/05 A B 2 4486989245065 x y\r\n2726FU8384FU2625FU8485FU\r\n";
    let games = formats::read(Format::Csa, text);
    let footer = games[0].record.footer.clone().expect("a footer");
    assert_eq!(footer.plies, Some(u32::MAX));
    let csa = validate_text(Format::Csa, text);
    assert!(
        csa.iter().any(|d| d.starts_with("result-mismatch")),
        "{csa:?}"
    );
    let kif = formats::write(Format::Kif, &games[0].record, &Default::default()).text;
    assert_eq!(validate_text(Format::Kif, &kif), csa, "{kif}");
}
