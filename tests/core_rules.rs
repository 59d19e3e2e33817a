//! Hand-made positions for every violation, both colours, and the tricky cases.

use kifu::core::{
    Color, Handicap, Illegal, Move, Piece, PieceKind, Position, Setup, SetupError, SfenError,
    Square,
};

fn pos(sfen: &str) -> Position {
    Position::from_sfen(sfen).unwrap_or_else(|e| panic!("{sfen}: {e}"))
}

fn mv(s: &str) -> Move {
    Move::from_usi(s).unwrap()
}

fn check(p: &Position, m: &str) -> Result<(), Illegal> {
    let m = mv(m);
    let r = p.check_move(m);
    // check_move and legal_moves must agree.
    assert_eq!(r.is_ok(), p.legal_moves().contains(&m), "{m} in {p:?}");
    r
}

#[test]
fn startpos_sfen_round_trip() {
    let p = Position::startpos();
    assert_eq!(
        p.to_sfen(),
        "lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1"
    );
    assert_eq!(pos(&p.to_sfen()), p);
    assert_eq!(p.turn(), Color::Black);
    assert_eq!(
        p.piece_at(Square::new(5, 9).unwrap()),
        Some(Piece::new(Color::Black, PieceKind::King))
    );
}

#[test]
fn basic_violations_black() {
    let p = Position::startpos();
    assert_eq!(check(&p, "7g7f"), Ok(()));
    assert_eq!(check(&p, "7f7e"), Err(Illegal::NoPiece));
    assert_eq!(check(&p, "3c3d"), Err(Illegal::NoPiece));
    assert_eq!(check(&p, "7g7e"), Err(Illegal::Unreachable));
    assert_eq!(check(&p, "9i9e"), Err(Illegal::Blocked));
    assert_eq!(check(&p, "6i7i"), Err(Illegal::CaptureOwn));
    assert_eq!(check(&p, "7g7f+"), Err(Illegal::BadPromotion));
    assert_eq!(check(&p, "P*5e"), Err(Illegal::NotInHand));
    assert_eq!(check(&p, "P*5g"), Err(Illegal::DropOccupied));
}

#[test]
fn play_unchecked_and_key() {
    let mut p = Position::startpos();
    for m in ["7g7f", "3c3d", "8h2b+", "3a2b", "B*4e"] {
        p.play(mv(m)).unwrap();
        assert_eq!(p.key(), p.key_from_scratch());
    }
    assert_eq!(p.hand(Color::White).count(PieceKind::Bishop), 1);
    assert_eq!(p.turn(), Color::White);
    assert_eq!(p.move_number(), 6);
}

#[test]
fn setup_errors() {
    let e = |s: &str| Position::from_sfen(s).unwrap_err();
    assert_eq!(
        e("lnsg1gsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1"),
        SfenError::Position(SetupError::MissingKing(Color::White))
    );
    assert!(
        Position::from_sfen_relaxed(
            "lnsg1gsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1"
        )
        .is_ok()
    );
    assert_eq!(
        e("4k4/9/9/9/9/9/4P4/4P4/4K4 b - 1"),
        SfenError::Position(SetupError::DoubledPawns {
            color: Color::Black,
            file: 5
        })
    );
    assert!(Position::from_setup(&Setup::startpos()).is_ok());
    for h in Handicap::ALL {
        assert!(Position::from_setup(&h.setup()).is_ok());
    }
}
