use super::*;
use crate::core::Setup;

/// The SFEN of a setup written plainly, square by square (the core's writer before it was
/// the incremental one): what every test here holds the writer to.
fn reference_sfen(setup: &Setup) -> String {
    let mut s = String::with_capacity(90);
    for rank in 1..=9u8 {
        if rank > 1 {
            s.push('/');
        }
        let mut empty = 0u8;
        for file in (1..=9u8).rev() {
            let p = Square::new(file, rank).and_then(|sq| setup.piece_at(sq));
            match p {
                None => empty += 1,
                Some(p) => {
                    if empty > 0 {
                        s.push((b'0' + empty) as char);
                        empty = 0;
                    }
                    s.push_str(&p.to_sfen());
                }
            }
        }
        if empty > 0 {
            s.push((b'0' + empty) as char);
        }
    }
    s.push(' ');
    s.push(setup.turn.sfen_char());
    s.push(' ');
    let mut any = false;
    for c in Color::ALL {
        for (k, n) in setup.hands.get(c).iter() {
            if n > 1 {
                s.push_str(&n.to_string());
            }
            let l = k.sfen_letter();
            s.push(if c == Color::Black {
                l
            } else {
                l.to_ascii_lowercase()
            });
            any = true;
        }
    }
    if !any {
        s.push('-');
    }
    s.push(' ');
    s.push_str(&setup.move_number.to_string());
    s
}

/// A move's USI written plainly, from its squares' names.
fn reference_usi(m: Move) -> String {
    match m {
        Move::Normal { from, to, promote } => {
            format!(
                "{}{}{}",
                from.to_usi(),
                to.to_usi(),
                if promote { "+" } else { "" }
            )
        }
        Move::Drop { kind, to } => format!("{}*{}", kind.sfen_letter(), to.to_usi()),
    }
}

/// Setups no position holds (hands past the set, pieces on dead squares, no king, a move
/// number of ten digits): `Setup::to_sfen` writes them as plainly written.
#[test]
fn any_setup_is_written_as_it_is() {
    for sfen in [
        "4k4/9/9/9/9/9/9/9/4K4 b 2R2B4G4S4N4L18P18p 1",
        "9/9/9/9/9/9/9/9/9 w 200P19L20l3b 4294967295",
        "P8/9/9/9/9/9/9/9/8p b - 12",
        "+R+R+R+R+R+R+R+R+R/+r+r+r+r+r+r+r+r+r/9/9/9/9/9/9/9 b 255P255p255R 1",
        "lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1",
    ] {
        let setup = Setup::from_sfen(sfen).expect(sfen);
        assert_eq!(setup.to_sfen(), reference_sfen(&setup), "{sfen}");
    }
}

#[test]
fn numbers_and_moves_are_written_as_display_writes_them() {
    // Every number of one to four digits up to 1,100, and longer ones.
    for n in (0..=1_100).chain([9_999, 10_000, 4_294_967_295]) {
        let mut s = [0u8; 10];
        let len = write_number(&mut s, n);
        assert_eq!(&s[..len], n.to_string().as_bytes());
    }
    let mut pos = Position::startpos();
    let mut rng = 7u64;
    for _ in 0..200 {
        let moves: Vec<Move> = pos.legal_moves().into_iter().copied().collect();
        if moves.is_empty() {
            break;
        }
        rng = rng.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1);
        let m = moves[(rng >> 33) as usize % moves.len()];
        let mut s = String::new();
        write_usi(m, &mut s);
        assert_eq!(s, reference_usi(m));
        assert_eq!(m.to_usi(), reference_usi(m));
        // Appended after what the column holds already.
        let mut bytes = b"7g7f".to_vec();
        write_usi_bytes(m, &mut bytes);
        assert_eq!(bytes, format!("7g7f{}", m.to_usi()).as_bytes());
        pos.play(m).expect("legal");
        assert_eq!(sfen(&pos), reference_sfen(&pos.to_setup()));
    }
    // A board full of promoted pieces (only a lenient start can hold one) still fits.
    let full = "+R+R+R+R+R+R+R+R+R/".repeat(8) + "+r+r+r+r+r+r+r+r+r b - 1";
    let setup = crate::core::Setup::from_sfen(&full).expect("sfen");
    let pos = Position::from_setup_lenient(&setup).expect("lenient");
    assert_eq!(sfen(&pos), reference_sfen(&pos.to_setup()));
}

/// A legal move of `pos` picked by the generator `rng` (which it steps), or `None` at the end.
fn random_legal(pos: &Position, rng: &mut u64) -> Option<Move> {
    let moves: Vec<Move> = pos.legal_moves().into_iter().copied().collect();
    if moves.is_empty() {
        return None;
    }
    *rng = rng
        .wrapping_mul(6_364_136_223_846_793_005)
        .wrapping_add(1_442_695_040_888_963_407);
    Some(moves[(*rng >> 33) as usize % moves.len()])
}

/// The writer, keeping the position itself, against `Position::to_sfen` at every ply of random games long
/// enough to capture, drop and promote, and from hands of ten pieces and more.
#[test]
fn the_incremental_writer_writes_every_positions_sfen() {
    let starts = [
        Position::startpos(),
        Position::from_sfen("4k4/9/9/9/9/9/9/9/4K4 b 2R2B4G4S4N4L9P9p 1").expect("sfen"),
    ];
    let mut rng = 11u64;
    let mut captures = 0;
    let mut drops = 0;
    let (mut promotions, mut promoted_taken) = (0, 0);
    for (g, start) in (0..60).map(|g| (g, &starts[g % 2])) {
        let mut pos = start.clone();
        let mut w = SfenWriter::new(&pos);
        let mut out = Vec::new();
        for ply in 0..300 {
            out.clear();
            w.write(&mut out);
            assert_eq!(
                std::str::from_utf8(&out).expect("ascii"),
                reference_sfen(&pos.to_setup()),
                "game {g} ply {ply}"
            );
            let Some(m) = random_legal(&pos, &mut rng) else {
                break;
            };
            match m {
                Move::Drop { .. } => drops += 1,
                Move::Normal { to, promote, .. } => {
                    promotions += usize::from(promote);
                    if let Some(p) = pos.board()[to.index()] {
                        captures += 1;
                        promoted_taken += usize::from(p.kind.unpromote() != p.kind);
                    }
                }
            }
            w.play(m);
            pos.play(m).expect("legal");
        }
    }
    assert!(
        captures > 100 && drops > 100 && promotions > 20 && promoted_taken > 5,
        "{captures} captures, {drops} drops, {promotions} promotions, {promoted_taken} promoted pieces taken"
    );
}

/// `line_sfens` against `Position::to_sfen` over random games (captures, drops, promotions),
/// and its stop at the first move that is not legal, a foul or one that cannot be played.
#[test]
fn a_lines_sfens_are_the_positions_and_stop_at_an_illegal_move() {
    let start = Position::from_sfen("4k4/9/9/9/9/9/9/9/4K4 b 2R2B4G4S4N4L9P9p 1").expect("sfen");
    let mut rng = 5u64;
    for g in 0..20 {
        let first = if g % 2 == 0 {
            Position::startpos()
        } else {
            start.clone()
        };
        let mut pos = first.clone();
        let mut expected = vec![reference_sfen(&pos.to_setup())];
        let mut moves = Vec::new();
        for _ in 0..200 {
            let Some(m) = random_legal(&pos, &mut rng) else {
                break;
            };
            pos.play(m).expect("legal");
            moves.push(m);
            expected.push(reference_sfen(&pos.to_setup()));
        }
        let (mut text, mut ends) = (b"kept".to_vec(), vec![]);
        let mut end = first.clone();
        assert_eq!(
            line_sfens(&mut end, &moves, &mut text, &mut ends),
            moves.len()
        );
        assert_eq!(end, pos, "left after the last move");
        assert_eq!(&text[..4], b"kept", "appended");
        let got: Vec<&str> = ends
            .iter()
            .scan(4, |at, &end| {
                let s = std::str::from_utf8(&text[*at..end]).expect("ascii");
                *at = end;
                Some(s)
            })
            .collect();
        assert_eq!(got, expected, "game {g}");
    }
    // Black's pawn on 5g: a second one dropped on file 5 (nifu) is a foul, and a move from
    // an empty square cannot be played. Each stops the line where it stands.
    let pos = Position::from_sfen("4k4/9/9/9/9/9/4P4/9/4K4 b P 1").expect("sfen");
    let usi = |m: &str| Move::from_usi(m).expect("usi");
    for (line, played) in [
        (vec![usi("5i4h"), usi("5a4b"), usi("P*5c")], 2),
        (vec![usi("5i4h"), usi("1a1b")], 1),
    ] {
        let (mut text, mut ends) = (vec![], vec![]);
        let mut end = pos.clone();
        assert_eq!(line_sfens(&mut end, &line, &mut text, &mut ends), played);
        assert_eq!(ends.len(), played + 1);
        // Left after the moves played, at the position of the last SFEN written.
        let last = std::str::from_utf8(&text[ends[played - 1]..]).expect("ascii");
        assert_eq!(end.to_sfen(), last);
    }
}

/// A lenient start with more pawns than a set (18 in hand, two on the board): the writer
/// counts every capture, and writes a hand past 19 plainly. (The position itself keeps a hand
/// at what the set holds: only the boards are compared.)
#[test]
fn a_hand_past_the_set_grows_as_written() {
    let setup = Setup::from_sfen("4k4/9/9/9/9/9/3pp4/4G4/4K4 b 18P 1").expect("sfen");
    let mut pos = Position::from_setup_lenient(&setup).expect("lenient");
    let mut w = SfenWriter::new(&pos);
    assert_eq!(text(&w), reference_sfen(&setup));
    let board = |s: &str| s.split(' ').next().unwrap_or_default().to_owned();
    for m in ["5h5g", "5a4a", "5g6g"] {
        let m = Move::from_usi(m).expect("usi");
        w.play(m);
        pos.play_unchecked(m).expect("played");
        assert_eq!(board(&text(&w)), board(&reference_sfen(&pos.to_setup())));
    }
    assert_eq!(text(&w), "5k3/9/9/9/9/9/3G5/9/4K4 w 20P 4");
}
