//! Records whose start position is impossible are reported once as `bad-position`, and their
//! moves are still replayed and checked (and can still be converted).

use kifu::Code;
use kifu::core::{Color, Piece, PieceKind, Position, Setup, SetupError, Square};
use kifu::formats::{self, Format};
use kifu::validate::{Options, validate_game};

fn sq(f: u8, r: u8) -> Square {
    Square::new(f, r).unwrap()
}

#[test]
fn lenient_setup_accepts_what_the_engine_can_represent() {
    let mut s = Setup::empty();
    s.set_piece(sq(5, 9), Some(Piece::new(Color::Black, PieceKind::King)));
    s.set_piece(sq(5, 1), Some(Piece::new(Color::White, PieceKind::King)));
    // A White pawn on White's last rank: impossible, but representable.
    s.set_piece(sq(2, 9), Some(Piece::new(Color::White, PieceKind::Pawn)));
    assert!(matches!(
        Position::from_setup(&s),
        Err(SetupError::DeadPiece { .. })
    ));
    let p = Position::from_setup_lenient(&s).expect("representable");
    assert_eq!(
        p.piece_at(sq(2, 9)),
        Some(Piece::new(Color::White, PieceKind::Pawn))
    );
    // Two kings of one side are not representable.
    s.set_piece(sq(1, 9), Some(Piece::new(Color::Black, PieceKind::King)));
    assert_eq!(
        Position::from_setup_lenient(&s).err(),
        Some(SetupError::TooManyKings(Color::Black))
    );
}

const BAD_START_THEN_NIFU: &str = "V2.2
P1-KY-KE-GI-KI-OU-KI-GI-KE-KY
P2 * -HI *  *  *  *  * -KA * 
P3-FU-FU-FU-FU-FU-FU-FU-FU-FU
P4 *  *  *  *  *  *  *  *  * 
P5 *  *  *  *  *  *  *  *  * 
P6 *  *  *  *  *  *  *  *  * 
P7+FU+FU+FU+FU+FU+FU+FU+FU+FU
P8 * +KA *  *  *  *  * +HI * 
P9+KY+KE+GI+KI+OU+KI+GI+KE-FU
P+00FU
+
+0055FU
%TORYO
";

#[test]
fn moves_after_an_impossible_start_are_still_checked() {
    let mut games = formats::read(Format::Csa, BAD_START_THEN_NIFU);
    assert_eq!(games.len(), 1);
    let report = validate_game(&mut games[0], &Options::default());
    let codes: Vec<Code> = report.diagnostics.iter().map(|d| d.code).collect();
    assert!(codes.contains(&Code::BadPosition), "{codes:?}");
    let nifu = report
        .diagnostics
        .iter()
        .find(|d| d.code == Code::Nifu)
        .unwrap_or_else(|| panic!("no nifu among {codes:?}"));
    assert_eq!((nifu.line, nifu.ply), (Some(13), Some(1)));
    assert_eq!(report.plies, 1);
}
