//! Property tests of the rules core.
//!
//! * every generated move passes `check_move`, and after it the mover's king is not attacked
//!   (checked with a deliberately naive attack test written here, independent of the
//!   bitboards);
//! * every move `check_move` accepts, over all from/to/promote combinations and all drops of
//!   all 14 kinds, is generated;
//! * the incremental Zobrist key equals the key computed from scratch; SFEN round-trips;
//! * `play_unchecked` never panics and keeps the position consistent, whatever the move;
//! * `play_if_legal` accepts exactly the moves `check_move` accepts, and leaves the position
//!   `play` leaves (checkers included).

use kifu::core::{Color, Move, Piece, PieceKind, Position, Setup, Square, perft};
use proptest::prelude::*;

/// Whether `by` attacks `target`, by walking directions square by square.
fn naive_attacked(p: &Position, target: Square, by: Color) -> bool {
    use PieceKind::*;
    let fwd: i8 = if by == Color::Black { -1 } else { 1 };
    let at = |f: i8, r: i8| -> Option<Option<Piece>> {
        if (1..=9).contains(&f) && (1..=9).contains(&r) {
            Some(p.piece_at(Square::new(f as u8, r as u8).unwrap()))
        } else {
            None
        }
    };
    let (tf, tr) = (target.file() as i8, target.rank() as i8);
    for sq in Square::all() {
        let Some(pc) = p.piece_at(sq) else { continue };
        if pc.color != by {
            continue;
        }
        let (f, r) = (sq.file() as i8, sq.rank() as i8);
        let (df, dr) = (tf - f, tr - r);
        let gold = [(0, fwd), (1, fwd), (-1, fwd), (1, 0), (-1, 0), (0, -fwd)];
        let silver = [(0, fwd), (1, fwd), (-1, fwd), (1, -fwd), (-1, -fwd)];
        let king = [
            (0, 1),
            (0, -1),
            (1, 0),
            (-1, 0),
            (1, 1),
            (1, -1),
            (-1, 1),
            (-1, -1),
        ];
        let steps: &[(i8, i8)] = match pc.kind {
            Pawn => &[(0, fwd)][..],
            Knight => &[(1, 2 * fwd), (-1, 2 * fwd)][..],
            Silver => &silver[..],
            Gold | ProPawn | ProLance | ProKnight | ProSilver => &gold[..],
            King | Horse | Dragon => &king[..],
            _ => &[][..],
        };
        if steps.contains(&(df, dr)) {
            return true;
        }
        let rays: &[(i8, i8)] = match pc.kind {
            Lance => &[(0, fwd)][..],
            Bishop | Horse => &[(1, 1), (1, -1), (-1, 1), (-1, -1)][..],
            Rook | Dragon => &[(0, 1), (0, -1), (1, 0), (-1, 0)][..],
            _ => &[][..],
        };
        for &(sf, sr) in rays {
            let (mut cf, mut cr) = (f + sf, r + sr);
            while let Some(occ) = at(cf, cr) {
                if (cf, cr) == (tf, tr) {
                    return true;
                }
                if occ.is_some() {
                    break;
                }
                cf += sf;
                cr += sr;
            }
        }
    }
    false
}

fn king_safe(p: &Position, c: Color) -> bool {
    match p.king_square(c) {
        Some(k) => !naive_attacked(p, k, c.flip()),
        None => true,
    }
}

fn all_moves() -> Vec<Move> {
    let mut v = Vec::with_capacity(81 * 81 * 2 + 81 * 14);
    for from in Square::all() {
        for to in Square::all() {
            for promote in [false, true] {
                v.push(Move::Normal { from, to, promote });
            }
        }
    }
    for kind in PieceKind::ALL {
        for to in Square::all() {
            v.push(Move::Drop { kind, to });
        }
    }
    v
}

/// The full cross-check of generation against `check_move` at one position.
fn cross_check(p: &Position, exhaustive: bool) -> Result<(), TestCaseError> {
    let legal = p.legal_moves();
    let mut seen = std::collections::HashSet::new();
    for &m in legal.iter() {
        prop_assert!(seen.insert(m), "duplicate {m} in {p:?}");
        prop_assert_eq!(
            p.check_move(m),
            Ok(()),
            "generated {} refused in {:?}",
            m,
            p
        );
        let mut q = p.clone();
        q.play(m).unwrap();
        prop_assert!(
            king_safe(&q, p.turn()),
            "{m} leaves the king attacked in {p:?}"
        );
        prop_assert_eq!(q.key(), q.key_from_scratch());
        prop_assert_eq!(q.checkers(), q.checkers_from_scratch());
    }
    prop_assert_eq!(perft(p, 1), legal.len() as u64);
    prop_assert_eq!(p.has_legal_move(), !legal.is_empty());
    prop_assert_eq!(p.is_checkmate(), p.in_check() && legal.is_empty());
    prop_assert_eq!(
        p.in_check(),
        p.king_square(p.turn())
            .is_some_and(|k| naive_attacked(p, k, p.turn().flip()))
    );
    if exhaustive {
        let mut accepted = 0;
        // `play_if_legal` is for positions whose side not to move is not in check.
        let sound = king_safe(p, p.turn().flip());
        for m in all_moves() {
            let ok = p.check_move(m).is_ok();
            if ok {
                accepted += 1;
                prop_assert!(seen.contains(&m), "{m} accepted but not generated in {p:?}");
            }
            if sound {
                // The quick way agrees with `check_move`, and leaves the position (checkers
                // included) as `play` does, or unchanged.
                let mut r = p.clone();
                prop_assert_eq!(r.play_if_legal(m), ok, "play_if_legal {} in {:?}", m, p);
                if ok {
                    let mut q = p.clone();
                    q.play(m).unwrap();
                    prop_assert_eq!(&r, &q, "play_if_legal {} in {:?}", m, p);
                } else {
                    prop_assert_eq!(&r, p);
                }
            }
            let mut q = p.clone();
            match q.play_unchecked(m) {
                Ok(_) => {
                    prop_assert_eq!(q.key(), q.key_from_scratch());
                    prop_assert_eq!(q.checkers(), q.checkers_from_scratch());
                    prop_assert_eq!(q.turn(), p.turn().flip());
                    if !ok {
                        // Positions reached by rule-breaking plays (a pawn on its last
                        // rank, a king left en prise, ...) must still generate consistently.
                        cross_check(&q, false)?;
                    }
                }
                Err(e) => {
                    prop_assert!(!e.is_playable());
                    prop_assert_eq!(p.check_move(m), Err(e));
                    prop_assert_eq!(&q, p);
                }
            }
        }
        prop_assert_eq!(accepted, legal.len());
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

    #[test]
    fn random_games(choices in prop::collection::vec(any::<u16>(), 0..200)) {
        let mut p = Position::startpos();
        for (i, c) in choices.iter().enumerate() {
            cross_check(&p, i % 25 == 0)?;
            let legal = p.legal_moves();
            if legal.is_empty() {
                break;
            }
            let m = legal[*c as usize % legal.len()];
            p.play(m).unwrap();
            let back = Position::from_sfen(&p.to_sfen()).unwrap();
            prop_assert_eq!(&back, &p);
        }
        cross_check(&p, true)?;
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, ..ProptestConfig::default() })]

    #[test]
    fn random_positions(
        kings in (0u8..81, 0u8..81),
        pieces in prop::collection::vec((0u8..81, 0u8..7, any::<bool>(), any::<bool>()), 0..40),
        hands in prop::collection::vec((0u8..7, any::<bool>()), 0..12),
        white_to_move in any::<bool>(),
    ) {
        prop_assume!(kings.0 != kings.1);
        let mut s = Setup::empty();
        let sq = |i: u8| Square::from_index(i as usize).unwrap();
        s.set_piece(sq(kings.0), Some(Piece::new(Color::Black, PieceKind::King)));
        s.set_piece(sq(kings.1), Some(Piece::new(Color::White, PieceKind::King)));
        let mut counts = [0u8; 7];
        for &(at, k, white, promoted) in &pieces {
            let kind = PieceKind::HAND[k as usize];
            let color = if white { Color::White } else { Color::Black };
            let kind = if promoted { kind.promote().unwrap_or(kind) } else { kind };
            if s.piece_at(sq(at)).is_some() || counts[k as usize] >= kind.set_count() {
                continue;
            }
            s.set_piece(sq(at), Some(Piece::new(color, kind)));
            if Position::from_setup(&s).is_err() {
                s.set_piece(sq(at), None);
                continue;
            }
            counts[k as usize] += 1;
        }
        for &(k, white) in &hands {
            let kind = PieceKind::HAND[k as usize];
            if counts[k as usize] >= kind.set_count() {
                continue;
            }
            counts[k as usize] += 1;
            let h = if white { &mut s.hands.white } else { &mut s.hands.black };
            h.add(kind);
        }
        s.turn = if white_to_move { Color::White } else { Color::Black };
        let p = Position::from_setup(&s).unwrap();
        // The side that just moved cannot be in check.
        prop_assume!(king_safe(&p, p.turn().flip()));
        cross_check(&p, true)?;
        // One ply further, to reach positions after captures and promotions.
        for m in p.legal_moves().iter().take(3) {
            let mut q = p.clone();
            q.play(*m).unwrap();
            cross_check(&q, false)?;
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 2000, ..ProptestConfig::default() })]

    /// The SFEN parser never panics, and whatever it accepts prints back to text that parses
    /// to the same setup.
    #[test]
    fn sfen_parser_total(s in "[1-9kKrRbBgGsSnNlLpP+/ bw-]{0,60}( [0-9]{1,3})?") {
        if let Ok(setup) = Setup::from_sfen(&s) {
            let again = Setup::from_sfen(&setup.to_sfen()).unwrap();
            prop_assert_eq!(again, setup.clone());
            // Validation never panics either.
            let _ = Position::from_setup(&setup);
            let _ = Position::from_setup_relaxed(&setup);
        }
    }

    #[test]
    fn sfen_parser_mutations(i in 0usize..70, c in any::<char>()) {
        let base = "lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1";
        let mut chars: Vec<char> = base.chars().collect();
        if i < chars.len() {
            chars[i] = c;
        }
        let s: String = chars.into_iter().collect();
        if let Ok(p) = Position::from_sfen(&s) {
            prop_assert_eq!(Position::from_sfen(&p.to_sfen()).unwrap(), p);
        }
    }
}
