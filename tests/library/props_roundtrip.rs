//! Property tests: random legal games (with times, comments and nested variations) written in
//! every format and read back give the same moves, and the same times, comments, variations
//! and ending wherever the format can hold them; SFEN print/parse round trips on every position
//! the games pass through; every generated move along the way is legal.
//!
//! The games come from `kifu::random::random_game` (reproducible from a seed); proptest picks
//! the seeds, so a failure prints the seed that reproduces it.

use kifu::core::{Move, Position};
use kifu::formats::{self, Format, WriteOptions, decode};
use kifu::random::{GenOptions, Rng, random_game};
use kifu::record::resolve::text_for_move;
use kifu::record::{MoveNode, NodeKind, Record, Span};
use proptest::prelude::*;

use crate::roundtrip;
use roundtrip::{first_difference, view};

/// A move node for `mv` played in `pos`, written the way a record would hold it.
fn node(pos: &Position, mv: Move, last_to: Option<kifu::core::Square>) -> MoveNode {
    let text = text_for_move(pos, mv, last_to);
    MoveNode::new(
        NodeKind::Move {
            text,
            resolved: Some(mv),
        },
        Span::default(),
    )
}

/// Adds random variations (`depth` levels deep) to a line that starts at `start`. A
/// variation's first move gets none (an alternative to it is a sibling variation, which is how
/// every format writes it).
fn add_variations(line: &mut [MoveNode], start: &Position, rng: &mut Rng, depth: u32, first: bool) {
    let mut pos = start.clone();
    let mut last_to = None;
    for (i, node_i) in line.iter_mut().enumerate() {
        let Some(main) = node_i.resolved() else {
            break;
        };
        if (first || i > 0) && rng.below(12) == 0 {
            let legal: Vec<Move> = pos
                .legal_moves()
                .iter()
                .copied()
                .filter(|m| *m != main)
                .collect();
            if !legal.is_empty() {
                let mut vpos = pos.clone();
                let mut vlast = last_to;
                let mut v = Vec::new();
                let len = 1 + rng.below(6);
                for j in 0..len {
                    let moves = vpos.legal_moves();
                    let pick = if j == 0 {
                        legal[rng.below(legal.len() as u64) as usize]
                    } else if moves.is_empty() {
                        break;
                    } else {
                        moves[rng.below(moves.len() as u64) as usize]
                    };
                    let mut n = node(&vpos, pick, vlast);
                    if rng.below(3) == 0 {
                        n.comments.push(format!("variation comment {j}"));
                    }
                    vpos.play(pick).expect("a legal move plays");
                    vlast = Some(pick.to());
                    v.push(n);
                }
                if depth > 1 && v.len() > 1 {
                    add_variations(&mut v, &pos, rng, depth - 1, false);
                }
                node_i.variations.push(v);
            }
        }
        pos.play(main).expect("main line is legal");
        last_to = Some(main.to());
    }
}

fn game(seed: u64, variations: bool) -> Record {
    let opts = GenOptions {
        min_plies: 20,
        max_plies: 90,
        times: true,
        comments: true,
    };
    let mut r = random_game(seed, &opts);
    if variations {
        let mut rng = Rng::new(seed ^ 0x5eed);
        add_variations(&mut r.moves, &Position::startpos(), &mut rng, 3, true);
    }
    r
}

/// Writes `record` in `format` (through bytes in the format's own encoding), reads it back and
/// resolves it; returns the record read, the written text and the diagnostics.
fn round_trip(record: &Record, format: Format, csa_v3: bool) -> (Record, String, Vec<String>) {
    let w = formats::write(
        format,
        record,
        &WriteOptions {
            csa_v3,
            ..WriteOptions::default()
        },
    );
    let (bytes, lossy) = decode::encode_for(format, &w.text);
    assert!(
        lossy.is_empty(),
        "{format:?}: encoding lost characters: {lossy:?}"
    );
    let text = decode::decode(&bytes, Some(format), None).text;
    assert_eq!(
        text, w.text,
        "{format:?}: bytes do not decode to the text written"
    );
    let mut games = formats::read(format, &text);
    assert_eq!(
        games.len(),
        1,
        "{format:?}: one game written, {} read\n{text}",
        games.len()
    );
    let mut g = games.remove(0);
    let report = kifu::validate::validate_game(&mut g, &kifu::validate::Options::default());
    let diags = report
        .diagnostics
        .iter()
        .filter(|d| d.is_error())
        .map(|d| format!("{}: {} (ply {:?}, {:?})", d.code, d.message, d.ply, d.mv))
        .collect();
    (g.record, w.text, diags)
}

fn check_all_formats(seed: u64, variations: bool) -> Result<(), TestCaseError> {
    let original = game(seed, variations);
    for format in Format::ALL {
        for csa_v3 in [false, true] {
            if csa_v3 && format != Format::Csa {
                continue;
            }
            let h = format.holds();
            let (back, text, errors) = round_trip(&original, format, csa_v3);
            prop_assert!(
                errors.is_empty(),
                "seed {seed} {format:?}: errors {errors:?}\n{text}"
            );
            let want = view(&original, h);
            let got = view(&back, h);
            if want != got {
                prop_assert!(
                    false,
                    "seed {seed} {format:?} v3={csa_v3}: {}\n{text}",
                    first_difference(&want, &got, "")
                );
            }
            if h.comments {
                prop_assert_eq!(&back.start_comments, &original.start_comments);
            }
        }
    }
    Ok(())
}

/// Every position along the game prints as an SFEN that parses back to the same position, and
/// every move generated there is accepted by `check_move` and plays.
fn check_positions(seed: u64) -> Result<(), TestCaseError> {
    let g = game(seed, false);
    let mut pos = Position::startpos();
    for n in &g.moves {
        let sfen = pos.to_sfen();
        let again =
            Position::from_sfen(&sfen).map_err(|e| TestCaseError::fail(format!("{e:?}")))?;
        prop_assert_eq!(again.to_sfen(), sfen.clone());
        prop_assert_eq!(again.key(), pos.key());
        for &mv in pos.legal_moves().iter() {
            prop_assert_eq!(pos.check_move(mv), Ok(()), "{} in {}", mv.to_usi(), sfen);
            let mut after = pos.clone();
            prop_assert!(after.play(mv).is_ok());
            prop_assert!(
                !after.king_attacked(pos.turn()),
                "{} leaves the king in check",
                mv.to_usi()
            );
        }
        let Some(mv) = n.resolved() else { break };
        pos.play(mv).expect("random games are legal");
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(128))]

    #[test]
    fn random_games_round_trip_through_every_format(seed in any::<u64>()) {
        check_all_formats(seed, false)?;
    }

    #[test]
    fn random_games_with_variations_round_trip(seed in any::<u64>()) {
        check_all_formats(seed, true)?;
    }

    #[test]
    fn sfen_round_trips_and_generated_moves_are_legal(seed in any::<u64>()) {
        check_positions(seed)?;
    }
}

/// A fixed set of seeds, so that a plain `cargo test` always covers the same games too.
#[test]
fn fixed_seeds_round_trip() {
    for seed in 0..24 {
        check_all_formats(seed, seed % 2 == 1).unwrap();
    }
}
