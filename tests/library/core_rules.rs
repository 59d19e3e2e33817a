//! Hand-made positions for every violation, for both colours, and the tricky cases.
//!
//! Every case is written for Black and run twice: as written, and mirrored (board turned
//! round, colours swapped, hands swapped), so White's side of every rule is tested too.

use kifu::core::{
    Color, Handicap, Illegal, Move, Piece, PieceKind, Position, Setup, SetupError, SfenError,
    Square,
};

fn mv(s: &str) -> Move {
    Move::from_usi(s).unwrap_or_else(|_| panic!("bad usi {s}"))
}

fn mirror_setup(s: &Setup) -> Setup {
    let mut m = Setup::empty();
    for sq in Square::all() {
        if let Some(p) = s.piece_at(sq) {
            m.set_piece(sq.flip(), Some(Piece::new(p.color.flip(), p.kind)));
        }
    }
    m.hands.black = s.hands.white;
    m.hands.white = s.hands.black;
    m.turn = s.turn.flip();
    m.move_number = s.move_number;
    m
}

fn mirror_move(m: Move) -> Move {
    match m {
        Move::Normal { from, to, promote } => Move::Normal {
            from: from.flip(),
            to: to.flip(),
            promote,
        },
        Move::Drop { kind, to } => Move::Drop {
            kind,
            to: to.flip(),
        },
    }
}

/// The position from `sfen` and its mirror image.
fn both(sfen: &str) -> [(Position, bool); 2] {
    let s = Setup::from_sfen(sfen).unwrap_or_else(|e| panic!("{sfen}: {e}"));
    let p = Position::from_setup(&s).unwrap_or_else(|e| panic!("{sfen}: {e}"));
    let m =
        Position::from_setup(&mirror_setup(&s)).unwrap_or_else(|e| panic!("mirror {sfen}: {e}"));
    [(p, false), (m, true)]
}

/// Asserts the verdict of `check_move` for `usi` (and its mirror), that it agrees with
/// `legal_moves`, and that `play_unchecked` plays exactly the playable moves.
fn expect(sfen: &str, usi: &str, want: Result<(), Illegal>) {
    for (p, mirrored) in both(sfen) {
        let m = if mirrored {
            mirror_move(mv(usi))
        } else {
            mv(usi)
        };
        let got = p.check_move(m);
        assert_eq!(got, want, "{usi} (mirrored: {mirrored}) in {sfen}");
        assert_eq!(
            got.is_ok(),
            p.legal_moves().contains(&m),
            "legal_moves vs check_move for {m}"
        );
        let mut q = p.clone();
        let played = q.play_unchecked(m);
        match want {
            Ok(()) => assert!(played.is_ok()),
            Err(e) if e.is_playable() => {
                assert!(played.is_ok(), "{e} must be playable");
                assert_eq!(q.turn(), p.turn().flip());
                assert_eq!(q.key(), q.key_from_scratch());
                assert_eq!(q.checkers(), q.checkers_from_scratch());
            }
            Err(e) => {
                assert_eq!(played, Err(e));
                assert_eq!(q, p, "a refused move must leave the position unchanged");
            }
        }
        let mut r = p.clone();
        assert_eq!(r.play(m).err(), want.err());
    }
}

const START: &str = "lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1";

#[test]
fn startpos_sfen_round_trip() {
    let p = Position::startpos();
    assert_eq!(p.to_sfen(), START);
    assert_eq!(Position::from_sfen(START).unwrap(), p);
    assert_eq!(p.turn(), Color::Black);
    assert_eq!(
        p.piece_at(Square::new(5, 9).unwrap()),
        Some(Piece::new(Color::Black, PieceKind::King))
    );
    assert_eq!(p.legal_moves().len(), 30);
    assert!(!p.in_check());
    assert!(!p.is_checkmate());
}

#[test]
fn no_piece_unreachable_blocked_capture_own() {
    expect(START, "7g7f", Ok(()));
    expect(START, "7f7e", Err(Illegal::NoPiece)); // empty square
    expect(START, "3c3d", Err(Illegal::NoPiece)); // opponent's piece
    expect(START, "7g7e", Err(Illegal::Unreachable));
    expect(START, "7g7g", Err(Illegal::Unreachable)); // from == to
    expect(START, "5i3g", Err(Illegal::Unreachable)); // king two squares
    expect(START, "9i9e", Err(Illegal::Blocked)); // lance over its pawn
    expect(START, "8h3c", Err(Illegal::Blocked)); // bishop over 7g
    expect(START, "2h2c", Err(Illegal::Blocked)); // rook over 2g
    expect(START, "6i7i", Err(Illegal::CaptureOwn));
    expect(START, "8i7g", Err(Illegal::CaptureOwn)); // knight onto own pawn
    // Unreachable is reported before capture-own.
    expect(START, "6i6g", Err(Illegal::Unreachable));
    expect(START, "9i9g", Err(Illegal::CaptureOwn));
    // Blocked before capture-own: the lance on 9i to its own silver on 9f, over its pawn.
    expect(
        "4k4/9/9/9/9/S8/P8/9/L3K4 b - 1",
        "9i9f",
        Err(Illegal::Blocked),
    );
}

#[test]
fn drops_occupied_not_in_hand() {
    let s = "4k4/9/9/9/9/9/9/9/4K4 b GP 1";
    expect(s, "P*5e", Ok(()));
    expect(s, "G*5h", Ok(()));
    expect(s, "S*5e", Err(Illegal::NotInHand));
    expect(s, "P*5i", Err(Illegal::DropOccupied));
    // Occupied is reported before not-in-hand.
    expect(s, "R*5i", Err(Illegal::DropOccupied));
    // A king can never be dropped; a promoted piece "drops" as a bad promotion when its
    // base kind is in hand.
    let king_drop = Move::Drop {
        kind: PieceKind::King,
        to: Square::new(5, 5).unwrap(),
    };
    let tokin_drop = Move::Drop {
        kind: PieceKind::ProPawn,
        to: Square::new(5, 5).unwrap(),
    };
    let silver_drop = Move::Drop {
        kind: PieceKind::ProSilver,
        to: Square::new(5, 5).unwrap(),
    };
    for (p, _) in both(s) {
        let to = |m: Move| {
            if p.turn() == Color::Black {
                m
            } else {
                mirror_move(m)
            }
        };
        assert_eq!(p.check_move(to(king_drop)), Err(Illegal::NotInHand));
        assert_eq!(p.check_move(to(tokin_drop)), Err(Illegal::BadPromotion));
        assert_eq!(p.check_move(to(silver_drop)), Err(Illegal::NotInHand));
        let mut q = p.clone();
        assert_eq!(q.play_unchecked(to(tokin_drop)), Ok(None));
        assert_eq!(
            q.piece_at(to(tokin_drop).to()).map(|x| x.kind),
            Some(PieceKind::ProPawn)
        );
        assert_eq!(q.hand(p.turn()).count(PieceKind::Pawn), 0);
        assert_eq!(q.key(), q.key_from_scratch());
        assert_eq!(q.checkers(), q.checkers_from_scratch());
    }
}

#[test]
fn promotion_rules() {
    // Silver on 4d, pawn on 6d, gold on 2d, bishop on 8h; White king 5a.
    let s = "4k4/9/9/3P1S1G1/9/9/9/8B/4K4 b - 1";
    expect(s, "4d4c+", Ok(())); // into the zone
    expect(s, "4d4c", Ok(())); // may decline
    expect(s, "4d3e+", Err(Illegal::BadPromotion)); // outside the zone
    expect(s, "2d2c+", Err(Illegal::BadPromotion)); // gold never promotes
    expect(s, "5i5h+", Err(Illegal::BadPromotion)); // king never promotes
    expect(s, "6d6c+", Ok(()));
    expect(s, "6d6c", Ok(()));
    expect(s, "1h6c+", Ok(()));
    expect(s, "1h8a", Ok(())); // a bishop may stay unpromoted
    expect(s, "1h5d+", Err(Illegal::BadPromotion));
    expect(s, "1h5d", Ok(()));
    // Moving out of the zone may promote.
    let s2 = "4k4/9/3S5/9/9/9/9/9/4K4 b - 1";
    expect(s2, "6c7d+", Ok(()));
    expect(s2, "6c7d", Ok(()));
    expect(s2, "6c6d+", Err(Illegal::Unreachable));
    // Already promoted pieces do not promote again.
    let s3 = "4k4/9/3+S5/9/9/9/9/9/4K4 b - 1";
    expect(s3, "6c6b+", Err(Illegal::BadPromotion));
    expect(s3, "6c6b", Ok(()));
}

#[test]
fn dead_pieces() {
    // Pawn 9b, lance 1c, knight 7d; White king 5a.
    let s = "4k4/P8/8L/2N6/9/9/9/9/4K4 b NLP 1";
    expect(s, "9b9a+", Ok(()));
    expect(s, "9b9a", Err(Illegal::DeadPiece));
    expect(s, "1c1a", Err(Illegal::DeadPiece));
    expect(s, "1c1a+", Ok(()));
    expect(s, "1c1b", Ok(()));
    expect(s, "7d8b", Err(Illegal::DeadPiece)); // knight to the second rank
    expect(s, "7d8b+", Ok(()));
    expect(s, "N*5b", Err(Illegal::DeadPiece));
    expect(s, "N*5c", Ok(()));
    expect(s, "L*5a", Err(Illegal::DropOccupied));
    expect(s, "L*4a", Err(Illegal::DeadPiece));
    expect(s, "P*4a", Err(Illegal::DeadPiece));
    expect(s, "P*4b", Ok(()));
    // Dead-piece is reported before nifu (file 9 holds a pawn).
    expect(s, "P*9a", Err(Illegal::DeadPiece));
    // Knight on 3c next to the White king on 3a.
    let s2 = "6k2/9/6N2/9/9/9/9/9/4K4 b - 1";
    expect(s2, "3c4a", Err(Illegal::DeadPiece));
    expect(s2, "3c4a+", Ok(()));
    expect(s2, "3c2a+", Ok(()));
}

#[test]
fn nifu_and_tokin() {
    let s = "4k4/9/9/9/4+P4/9/2P6/9/4K4 b P 1";
    expect(s, "P*5f", Ok(())); // next to a promoted pawn on the file: legal
    expect(s, "P*7e", Err(Illegal::Nifu));
    expect(s, "P*7h", Err(Illegal::Nifu));
    expect(s, "P*6e", Ok(()));
    // Nifu is reported before self-check: in check from a rook on file 9.
    let s2 = "r3k4/9/9/9/9/9/2P6/9/K8 b P 1";
    expect(s2, "P*7b", Err(Illegal::Nifu));
    expect(s2, "P*8b", Err(Illegal::SelfCheck));
    expect(s2, "P*9e", Ok(())); // blocks the check
}

#[test]
fn self_check_ignoring_check() {
    // White rook 5a checks the Black king on 5i; gold on 6i.
    let s = "4r3k/9/9/9/9/9/9/9/3GK4 b - 1";
    for (p, _) in both(s) {
        assert!(p.in_check());
        assert!(!p.is_checkmate());
    }
    expect(s, "6i6h", Err(Illegal::SelfCheck));
    expect(s, "6i5h", Ok(())); // blocks
    expect(s, "5i5h", Err(Illegal::SelfCheck)); // stays on the file
    expect(s, "5i4h", Ok(()));
    expect(s, "5i4i", Ok(()));
}

#[test]
fn pinned_pieces() {
    // Black king 5i; silver 5h pinned by the rook on 5a; bishop 4h pinned by the bishop on 1e.
    let s = "4r3k/9/9/9/8b/9/9/4SB3/4K4 b - 1";
    expect(s, "5h5g", Ok(())); // along the pin line
    expect(s, "5h4g", Err(Illegal::SelfCheck));
    expect(s, "5h6g", Err(Illegal::SelfCheck));
    expect(s, "4h3g", Ok(()));
    expect(s, "4h2f", Ok(()));
    expect(s, "4h1e", Ok(())); // captures the pinner
    expect(s, "4h5g", Err(Illegal::SelfCheck));
    expect(s, "4h3i", Err(Illegal::SelfCheck));
}

#[test]
fn discovered_check_is_legal() {
    let s = "4k4/9/4S4/9/4R4/9/9/9/K8 b - 1";
    expect(s, "5c4b", Ok(()));
    expect(s, "5c6d", Ok(()));
    for (p, mirrored) in both(s) {
        let m = if mirrored {
            mirror_move(mv("5c4b"))
        } else {
            mv("5c4b")
        };
        let mut q = p.clone();
        q.play(m).unwrap();
        assert!(q.in_check());
        assert_eq!(q.checkers().count(), 2, "silver and rook: double check");
        let mut q = p.clone();
        let m = if mirrored {
            mirror_move(mv("5c6d"))
        } else {
            mv("5c6d")
        };
        q.play(m).unwrap();
        assert_eq!(q.checkers().count(), 1, "discovered check by the rook");
        // In double check only the king may move.
        let mut q = p.clone();
        let m = if mirrored {
            mirror_move(mv("5c4b"))
        } else {
            mv("5c4b")
        };
        q.play(m).unwrap();
        assert!(
            q.legal_moves()
                .iter()
                .all(|m| m.from() == q.king_square(q.turn()))
        );
    }
}

#[test]
fn kings_side_by_side() {
    let s = "9/9/4k4/9/4K4/9/9/9/9 b - 1";
    expect(s, "5e5d", Err(Illegal::SelfCheck));
    expect(s, "5e4d", Err(Illegal::SelfCheck));
    expect(s, "5e6d", Err(Illegal::SelfCheck));
    expect(s, "5e4e", Ok(()));
    expect(s, "5e5f", Ok(()));
    // Stepping away along the line of a checking rook stays in check (x-ray through the king).
    let s2 = "9/9/k8/9/r3K4/9/9/9/9 b - 1";
    expect(s2, "5e4e", Err(Illegal::SelfCheck));
    expect(s2, "5e5d", Ok(()));
    expect(s2, "5e6e", Err(Illegal::SelfCheck));
}

#[test]
fn uchifuzume_cases() {
    // The only capturer (gold 2a) is pinned by the rook on 9a: mate by pawn drop.
    let pinned = "R6gk/9/7G1/9/9/9/9/9/4K4 b P 1";
    expect(pinned, "P*1b", Err(Illegal::Uchifuzume));
    expect(pinned, "P*2b", Ok(())); // no check
    // Same without the pinning rook: the gold captures, the drop is legal.
    expect("7gk/9/7G1/9/9/9/9/9/4K4 b P 1", "P*1b", Ok(()));
    // The king can capture the undefended pawn.
    expect("R6gk/9/6G2/9/9/9/9/9/4K4 b P 1", "P*1b", Ok(()));
    // The king can flee to 2b.
    expect("R6gk/9/9/9/9/9/9/9/4K4 b P 1", "P*1b", Ok(()));
    // A pawn *move* that mates is legal; the drop is nifu (reported before uchifuzume).
    let moved = "R6gk/9/7GP/9/9/9/9/9/4K4 b P 1";
    expect(moved, "P*1b", Err(Illegal::Nifu));
    expect(moved, "1c1b", Ok(()));
    for (p, mirrored) in both(moved) {
        let m = if mirrored {
            mirror_move(mv("1c1b"))
        } else {
            mv("1c1b")
        };
        let mut q = p.clone();
        q.play(m).unwrap();
        assert!(q.is_checkmate());
        assert!(!q.has_legal_move());
    }
    // Dropping a non-pawn piece that mates is fine: gold on 1b, defended by the gold on 2c.
    expect("R6gk/9/7G1/9/9/9/9/9/4K4 b G 1", "G*1b", Ok(()));
    // Escapes covered by a distant lance on 2i; a silver on 1c defends 1b.
    expect(
        "8k/9/8S/9/9/9/9/9/4K2L1 b P 1",
        "P*1b",
        Err(Illegal::Uchifuzume),
    );
    // A White knight on 3c cannot reach 1b: still mate.
    expect(
        "8k/9/6n1S/9/9/9/9/9/4K2L1 b P 1",
        "P*1b",
        Err(Illegal::Uchifuzume),
    );
    // A White silver on 2a captures on 1b: legal.
    expect("7sk/9/8S/9/9/9/9/9/4K2L1 b P 1", "P*1b", Ok(()));
    // A White rook on 1i would capture on 1b but the silver on 1c blocks it: mate.
    expect(
        "8k/9/8S/9/9/9/9/9/4K2Lr b P 1",
        "P*1b",
        Err(Illegal::Uchifuzume),
    );
    // A White horse on 3d captures on 1b (diagonal 3d-2c-1b): legal.
    expect("8k/9/8S/6+b2/9/9/9/9/4K2L1 b P 1", "P*1b", Ok(()));
}

#[test]
fn no_legal_move_without_check() {
    // White king 1a boxed in by a gold and a lance, not in check, nothing in hand.
    let s = "8k/9/8G/9/9/9/9/9/4K2L1 w - 1";
    let p = Position::from_sfen(s).unwrap();
    assert!(!p.in_check());
    assert!(!p.has_legal_move());
    assert!(!p.is_checkmate());
    assert!(p.legal_moves().is_empty());
}

#[test]
fn order_of_several_violations() {
    let s = "4k4/P8/9/9/9/9/9/9/4K4 b P 1";
    // Occupied and dead square: drop-occupied first.
    expect(s, "P*5a", Err(Illegal::DropOccupied));
    // Not in hand and dead square: not-in-hand first.
    expect(s, "L*1a", Err(Illegal::NotInHand));
    // A gold "promoting" while ignoring a check: bad-promotion before self-check.
    let s2 = "4r3k/9/9/9/9/9/9/9/3GK4 b - 1";
    expect(s2, "6i6h+", Err(Illegal::BadPromotion));
    // Dead piece before self-check: a knight pinned on its rank jumps to the second rank
    // without promoting.
    let s3 = "4k4/9/9/r2NK4/9/9/9/9/9 b - 1";
    expect(s3, "6d5b", Err(Illegal::DeadPiece));
    expect(s3, "6d5b+", Err(Illegal::SelfCheck));
    expect(s3, "6d7b+", Err(Illegal::SelfCheck));
}

fn mirror_error(e: SetupError) -> SetupError {
    match e {
        SetupError::MissingKing(c) => SetupError::MissingKing(c.flip()),
        SetupError::TooManyKings(c) => SetupError::TooManyKings(c.flip()),
        SetupError::HandOverflow { color, kind, count } => SetupError::HandOverflow {
            color: color.flip(),
            kind,
            count,
        },
        SetupError::DeadPiece { square, piece } => SetupError::DeadPiece {
            square: square.flip(),
            piece: Piece::new(piece.color.flip(), piece.kind),
        },
        SetupError::DoubledPawns { color, file } => SetupError::DoubledPawns {
            color: color.flip(),
            file: 10 - file,
        },
        e => e,
    }
}

fn expect_setup_error(sfen: &str, want: SetupError) {
    let s = Setup::from_sfen(sfen).unwrap();
    assert_eq!(Position::from_setup(&s), Err(want), "{sfen}");
    assert_eq!(
        Position::from_setup(&mirror_setup(&s)),
        Err(mirror_error(want)),
        "mirror of {sfen}"
    );
    assert_eq!(Position::from_sfen(sfen), Err(SfenError::Position(want)));
}

#[test]
fn setup_errors() {
    use PieceKind::*;
    let sq = |f, r| Square::new(f, r).unwrap();
    expect_setup_error(
        "4k4/9/9/9/9/9/9/9/9 b - 1",
        SetupError::MissingKing(Color::Black),
    );
    expect_setup_error(
        "4k4/9/9/9/9/9/9/9/3KK4 b - 1",
        SetupError::TooManyKings(Color::Black),
    );
    expect_setup_error(
        "4k4/9/9/9/9/9/9/9/4K4 b 19P 1",
        SetupError::HandOverflow {
            color: Color::Black,
            kind: Pawn,
            count: 19,
        },
    );
    expect_setup_error(
        "4k4/9/9/9/9/9/9/9/4K4 b 5G 1",
        SetupError::HandOverflow {
            color: Color::Black,
            kind: Gold,
            count: 5,
        },
    );
    expect_setup_error(
        "+R3k4/9/9/9/9/9/9/9/4K4 b 2R 1",
        SetupError::TooManyPieces {
            kind: Rook,
            count: 3,
        },
    );
    expect_setup_error(
        "4k4/9/9/9/9/9/4P4/9/4K4 b 18p 1",
        SetupError::TooManyPieces {
            kind: Pawn,
            count: 19,
        },
    );
    expect_setup_error(
        "4k4/9/9/9/9/9/9/9/4K4 b 3n2N 1",
        SetupError::TooManyPieces {
            kind: Knight,
            count: 5,
        },
    );
    expect_setup_error(
        "P3k4/9/9/9/9/9/9/9/4K4 b - 1",
        SetupError::DeadPiece {
            square: sq(9, 1),
            piece: Piece::new(Color::Black, Pawn),
        },
    );
    expect_setup_error(
        "4k4/N8/9/9/9/9/9/9/4K4 b - 1",
        SetupError::DeadPiece {
            square: sq(9, 2),
            piece: Piece::new(Color::Black, Knight),
        },
    );
    expect_setup_error(
        "4k4/9/9/9/9/9/9/9/l3K4 w - 1",
        SetupError::DeadPiece {
            square: sq(9, 9),
            piece: Piece::new(Color::White, Lance),
        },
    );
    expect_setup_error(
        "4k4/9/9/9/9/9/4P4/4P4/4K4 b - 1",
        SetupError::DoubledPawns {
            color: Color::Black,
            file: 5,
        },
    );
    // What is fine: promoted pieces on the last ranks, a tokin beside a pawn, a lance on
    // its own back rank.
    for ok in [
        "+P3k4/+N8/9/9/9/9/9/9/4K4 b - 1",
        "4k4/9/9/9/9/9/4P4/4+P4/4K4 b - 1",
        "4k4/9/9/9/9/9/9/9/L3K4 b - 1",
        "4k4/9/9/9/9/9/9/9/4K4 b 18P4L4N4S4G2B2R 1",
    ] {
        let s = Setup::from_sfen(ok).unwrap();
        assert!(Position::from_setup(&s).is_ok(), "{ok}");
        assert!(
            Position::from_setup(&mirror_setup(&s)).is_ok(),
            "mirror {ok}"
        );
    }
    // Tsume: only White's king. Refused strictly, accepted relaxed.
    let tsume = "7nl/7k1/9/7+P1/9/9/9/9/9 b GS2r2b3g3s3n3l17p 1";
    assert_eq!(
        Position::from_sfen(tsume),
        Err(SfenError::Position(SetupError::MissingKing(Color::Black)))
    );
    let p = Position::from_sfen_relaxed(tsume).unwrap();
    assert!(!p.in_check());
    assert!(p.has_legal_move());
    // Two kings are refused even relaxed.
    assert!(Position::from_sfen_relaxed("4k4/9/9/9/9/9/9/9/3KK4 b - 1").is_err());
}

#[test]
fn sfen_syntax_errors() {
    let e = |s: &str| Setup::from_sfen(s).unwrap_err();
    assert_eq!(e("lnsgkgsnl/1r5b1 b -"), SfenError::RankCount(2));
    assert_eq!(e(""), SfenError::FieldCount(0));
    assert_eq!(e("9/9/9/9/9/9/9/9/9 b - 1 extra"), SfenError::FieldCount(5));
    assert_eq!(e("8/9/9/9/9/9/9/9/9 b - 1"), SfenError::RankWidth(1));
    assert_eq!(e("9/55/9/9/9/9/9/9/9 b - 1"), SfenError::RankWidth(2));
    assert_eq!(
        e("9/9/4x4/9/9/9/9/9/9 b - 1"),
        SfenError::BadBoardChar { rank: 3, ch: 'x' }
    );
    assert_eq!(
        e("9/9/9/4+K4/9/9/9/9/9 b - 1"),
        SfenError::BadPromotionMark(4)
    );
    assert_eq!(
        e("9/9/9/4+G4/9/9/9/9/9 b - 1"),
        SfenError::BadPromotionMark(4)
    );
    assert_eq!(
        e("9/9/9/8+/9/9/9/9/9 b - 1"),
        SfenError::BadPromotionMark(4)
    );
    assert_eq!(e("9/9/9/9/9/9/9/9/9 x - 1"), SfenError::BadSide);
    for hand in ["K", "0P", "3", "x", "P-", "+P", "256P"] {
        assert_eq!(
            e(&format!("9/9/9/9/9/9/9/9/9 b {hand} 1")),
            SfenError::BadHand,
            "{hand}"
        );
    }
    for n in ["0", "x", "-1", "+3"] {
        assert_eq!(
            e(&format!("9/9/9/9/9/9/9/9/9 b - {n}")),
            SfenError::BadMoveNumber,
            "{n}"
        );
    }
    // Tolerated: a missing move number; any hand order and counts of 10 or more.
    let s = Setup::from_sfen("4k4/9/9/9/9/9/9/9/4K4 w p10PbR").unwrap();
    assert_eq!(s.move_number, 1);
    assert_eq!(s.to_sfen(), "4k4/9/9/9/9/9/9/9/4K4 w R10Pbp 1");
    assert_eq!(s.hands.black.count(PieceKind::Pawn), 10);
}

#[test]
fn handicaps_are_valid_positions() {
    for h in Handicap::ALL {
        let p = Position::from_setup(&h.setup()).unwrap();
        let expected_turn = if h == Handicap::Even {
            Color::Black
        } else {
            Color::White
        };
        assert_eq!(p.turn(), expected_turn);
        assert_eq!(Position::from_sfen(&p.to_sfen()).unwrap(), p);
        assert!(p.has_legal_move());
        for m in p.legal_moves().iter() {
            assert_eq!(p.check_move(*m), Ok(()));
        }
    }
}

#[test]
fn movers_to_lists_unblocked_pieces_ignoring_pins() {
    use PieceKind::*;
    let p = Position::startpos();
    let sq = |f, r| Square::new(f, r).unwrap();
    assert_eq!(p.movers_to(sq(7, 6), Color::Black, Pawn), vec![sq(7, 7)]);
    assert_eq!(p.movers_to(sq(7, 4), Color::White, Pawn), vec![sq(7, 3)]);
    let mut golds = p.movers_to(sq(5, 8), Color::Black, Gold);
    golds.sort();
    assert_eq!(golds, vec![sq(4, 9), sq(6, 9)]);
    assert_eq!(p.movers_to(sq(7, 8), Color::Black, Silver), vec![sq(7, 9)]);
    assert_eq!(p.movers_to(sq(9, 8), Color::Black, Lance), vec![sq(9, 9)]);
    assert!(p.movers_to(sq(9, 6), Color::Black, Lance).is_empty()); // blocked by 9g
    assert_eq!(p.movers_to(sq(5, 8), Color::Black, Rook), vec![sq(2, 8)]);
    assert!(p.movers_to(sq(5, 8), Color::Black, Bishop).is_empty());
    assert_eq!(
        p.movers_to(sq(2, 2), Color::Black, Bishop),
        Vec::<Square>::new()
    );
    // A pinned silver is still listed.
    let pinned = Position::from_sfen("4r3k/9/9/9/9/9/9/4S4/4K4 b - 1").unwrap();
    assert_eq!(
        pinned.movers_to(sq(4, 7), Color::Black, Silver),
        vec![sq(5, 8)]
    );
    assert_eq!(pinned.check_move(mv("5h4g")), Err(Illegal::SelfCheck));
    // Promoted kinds are looked up as they stand.
    let q = Position::from_sfen("4k4/9/9/9/4+R4/9/9/9/4K4 b - 1").unwrap();
    assert_eq!(q.movers_to(sq(4, 4), Color::Black, Dragon), vec![sq(5, 5)]);
    assert_eq!(q.movers_to(sq(5, 1), Color::Black, Dragon), vec![sq(5, 5)]);
    assert!(q.movers_to(sq(4, 4), Color::Black, Rook).is_empty());
}

#[test]
fn illegal_codes_are_contract_codes() {
    for ill in Illegal::ALL {
        assert!(
            kifu::Code::ALL.iter().any(|c| c.as_str() == ill.as_str()),
            "{ill:?} has no diagnostic code"
        );
        assert_eq!(ill.to_string(), ill.as_str());
    }
    let playable: Vec<_> = Illegal::ALL.iter().filter(|i| i.is_playable()).collect();
    assert_eq!(playable.len(), 5);
}

/// The partial keys `find` compares positions by: the key without the hands, without the side
/// to move, and of the board alone. Each is the same for the position with those parts changed
/// (hands emptied, the other side to move), along a game with captures and drops, while the
/// full key differs.
#[test]
fn partial_keys_drop_exactly_the_hands_and_the_side() {
    let mut pos = Position::startpos();
    let changed = |p: &Position, clear_hands: bool, other_side: bool| {
        let mut s = p.to_setup();
        if clear_hands {
            s.hands = Default::default();
        }
        if other_side {
            s.turn = s.turn.flip();
        }
        Position::from_setup_lenient(&s).expect("setup")
    };
    for m in [
        "7g7f", "3c3d", "8h2b+", "3a2b", "B*4e", "B*6e", "4e3d", "6e7f",
    ] {
        pos.play(mv(m)).expect("legal");
        let no_hands = changed(&pos, true, false);
        let other = changed(&pos, false, true);
        let both = changed(&pos, true, true);
        let held = Color::ALL.iter().any(|&c| !pos.hand(c).is_empty());
        assert_eq!(pos.key() != no_hands.key(), held, "{m}");
        assert_eq!(pos.key_without_hands(), no_hands.key_without_hands(), "{m}");
        assert_ne!(pos.key_without_hands(), other.key_without_hands(), "{m}");
        assert_ne!(pos.key(), other.key(), "{m}");
        assert_eq!(pos.key_any_side(), other.key_any_side(), "{m}");
        assert_eq!(pos.key_any_side() != no_hands.key_any_side(), held, "{m}");
        assert_eq!(pos.board_key(), both.board_key(), "{m}");
        assert_eq!(pos.board_key(), no_hands.board_key(), "{m}");
        assert_eq!(pos.board_key(), other.board_key(), "{m}");
    }
    assert_ne!(pos.board_key(), Position::startpos().board_key());
}
