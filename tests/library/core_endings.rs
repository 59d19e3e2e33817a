//! Repetition, perpetual check and entering-king declarations.

use kifu::core::{
    Color, Declaration, DeclarationFailure, DeclarationOutcome, DeclarationRule, Move, Piece,
    Position, RepetitionOutcome, RepetitionTracker, Setup, Square, jsa24_agreement, jsa24_points,
};

fn play_line(
    start: &Position,
    moves: &[&str],
) -> (Position, RepetitionTracker, Vec<Option<RepetitionOutcome>>) {
    let mut p = start.clone();
    let mut t = RepetitionTracker::new(&p);
    let mut outs = Vec::new();
    for m in moves {
        p.play(Move::from_usi(m).unwrap())
            .unwrap_or_else(|e| panic!("{m}: {e}"));
        outs.push(t.push(&p));
    }
    (p, t, outs)
}

#[test]
fn fourfold_repetition_is_a_draw() {
    let cycle = ["2h3h", "8b7b", "3h2h", "7b8b"];
    let moves: Vec<&str> = cycle.iter().cycle().take(12).copied().collect();
    let (_, t, outs) = play_line(&Position::startpos(), &moves);
    assert!(outs[..11].iter().all(|o| o.is_none()));
    assert_eq!(outs[11], Some(RepetitionOutcome::Draw));
    assert_eq!(t.count(), 4);
    assert_eq!(t.len(), 13);
    let mut t2 = t.clone();
    t2.pop();
    assert_eq!(t2.count(), 3);
    assert_eq!(t2.outcome(), None);
}

#[test]
fn perpetual_check_loses() {
    // Black's rook checks on every move; White's king steps 1a <-> 1b.
    let start = Position::from_sfen("8k/R8/9/9/9/9/9/9/K8 b - 1").unwrap();
    let cycle = ["9b9a", "1a1b", "9a9b", "1b1a"];
    let moves: Vec<&str> = cycle.iter().cycle().take(12).copied().collect();
    let (_, _, outs) = play_line(&start, &moves);
    assert!(outs[..11].iter().all(|o| o.is_none()));
    assert_eq!(
        outs[11],
        Some(RepetitionOutcome::PerpetualCheck {
            loser: Color::Black
        })
    );

    // The same seen from White: White checks, Black's king steps.
    let start = mirror("8k/R8/9/9/9/9/9/9/K8 b - 1");
    assert_eq!(start.to_sfen(), "8k/9/9/9/9/9/9/8r/K8 w - 1");
    let cycle = ["1h1i", "9i9h", "1i1h", "9h9i"];
    let moves: Vec<&str> = cycle.iter().cycle().take(12).copied().collect();
    let (_, _, outs) = play_line(&start, &moves);
    assert_eq!(
        outs[11],
        Some(RepetitionOutcome::PerpetualCheck {
            loser: Color::White
        })
    );
}

#[test]
fn checks_on_only_some_moves_is_a_draw() {
    // The rook checks from 9b (king on 1b) but not from 9c.
    let start = Position::from_sfen("8k/R8/9/9/9/9/9/9/K8 b - 1").unwrap();
    let cycle = ["9b9c", "1a1b", "9c9b", "1b1a"];
    let moves: Vec<&str> = cycle.iter().cycle().take(12).copied().collect();
    let (_, _, outs) = play_line(&start, &moves);
    assert_eq!(outs[11], Some(RepetitionOutcome::Draw));
}

fn mirror(sfen: &str) -> Position {
    let s = Setup::from_sfen(sfen).unwrap();
    let mut m = Setup::empty();
    for sq in Square::all() {
        if let Some(p) = s.piece_at(sq) {
            m.set_piece(sq.flip(), Some(Piece::new(p.color.flip(), p.kind)));
        }
    }
    m.hands.black = s.hands.white;
    m.hands.white = s.hands.black;
    m.turn = s.turn.flip();
    Position::from_setup(&m).unwrap()
}

const ENTERED: &str = "+R+BGG1SS+P+P/4K4/PP7/9/9/9/9/9/4k4 b R5P 1";

#[test]
fn csa_27_point_rule() {
    let p = Position::from_sfen(ENTERED).unwrap();
    assert_eq!(
        p.declare(DeclarationRule::Csa27),
        Ok(Declaration {
            outcome: DeclarationOutcome::Win,
            points: 28,
            pieces_in_camp: 10
        })
    );
    // 27 points: enough for White, not for Black.
    let s27 = "+R+BGG1SS+P+P/4K4/PP7/9/9/9/9/9/4k4 b R4P 1";
    assert_eq!(
        Position::from_sfen(s27)
            .unwrap()
            .declare(DeclarationRule::Csa27),
        Err(DeclarationFailure::TooFewPoints {
            points: 27,
            needed: 28
        })
    );
    assert_eq!(
        mirror(s27)
            .declare(DeclarationRule::Csa27)
            .map(|d| (d.outcome, d.points)),
        Ok((DeclarationOutcome::Win, 27))
    );
    assert_eq!(
        mirror("+R+BGG1SS+P+P/4K4/PP7/9/9/9/9/9/4k4 b R3P 1").declare(DeclarationRule::Csa27),
        Err(DeclarationFailure::TooFewPoints {
            points: 26,
            needed: 27
        })
    );
    // Nine pieces in camp.
    let nine = "+R+BGG2S+P+P/4K4/PP7/9/9/9/9/9/4k4 b RS5P 1";
    for p in [Position::from_sfen(nine).unwrap(), mirror(nine)] {
        assert_eq!(
            p.declare(DeclarationRule::Csa27),
            Err(DeclarationFailure::TooFewPiecesInCamp { count: 9 })
        );
    }
    // King outside the camp.
    let out = "+R+BGG1SS+P+P/9/PP7/4K4/9/9/9/9/4k4 b R5P 1";
    for p in [Position::from_sfen(out).unwrap(), mirror(out)] {
        assert_eq!(
            p.declare(DeclarationRule::Csa27),
            Err(DeclarationFailure::KingNotInCamp)
        );
    }
    // In check from a White gold on 5c.
    let check = "+R+BGG1SS+P+P/4K4/PP2g4/9/9/9/9/9/4k4 b R5P 1";
    for p in [Position::from_sfen(check).unwrap(), mirror(check)] {
        assert!(p.in_check());
        assert_eq!(
            p.declare(DeclarationRule::Csa27),
            Err(DeclarationFailure::InCheck)
        );
    }
    // The side to move declares: here White, whose king on 5i is in its camp but has no
    // pieces there.
    let p = Position::from_sfen("+R+BGG1SS+P+P/4K4/PP7/9/9/9/9/9/4k4 w R5P 1").unwrap();
    assert_eq!(
        p.declare(DeclarationRule::Csa27),
        Err(DeclarationFailure::TooFewPiecesInCamp { count: 0 })
    );
    // A tsume-style position without the declarer's king.
    let p = Position::from_sfen_relaxed("+R+BGG1SS+P+P/9/PP7/9/9/9/9/9/4k4 b R5P 1").unwrap();
    assert_eq!(
        p.declare(DeclarationRule::Csa27),
        Err(DeclarationFailure::NoKing)
    );
}

#[test]
fn jsa_24_point_rules() {
    let p = Position::from_sfen(ENTERED).unwrap();
    assert_eq!(
        p.declare(DeclarationRule::Jsa24).map(|d| d.outcome),
        Ok(DeclarationOutcome::Draw)
    );
    let win = "+R+BGG1SS+P+P/4K4/PP7/9/9/9/9/9/4k4 b R8P 1";
    for p in [Position::from_sfen(win).unwrap(), mirror(win)] {
        assert_eq!(
            p.declare(DeclarationRule::Jsa24)
                .map(|d| (d.outcome, d.points)),
            Ok((DeclarationOutcome::Win, 31))
        );
    }
    let few = "+R+BGG1SS+P+P/4K4/PP7/9/9/9/9/9/4k4 b 5P 1";
    assert_eq!(
        Position::from_sfen(few)
            .unwrap()
            .declare(DeclarationRule::Jsa24),
        Err(DeclarationFailure::TooFewPoints {
            points: 23,
            needed: 24
        })
    );
    // Professional counting: all pieces on board and in hand.
    let s = Position::startpos();
    let pts = jsa24_points(&s);
    assert_eq!((pts.black, pts.white), (27, 27));
    assert_eq!(
        jsa24_agreement(&s, 0),
        Err(DeclarationFailure::KingNotInCamp)
    );
    // Both kings entered; Black holds most of the material.
    let both = "4K4/9/9/9/9/9/9/9/4k4 b 2R2B4G4S4N4L10Pp 1";
    let p = Position::from_sfen(both).unwrap();
    assert_eq!(jsa24_points(&p).white, 1);
    assert_eq!(jsa24_agreement(&p, 0), Ok(Some(Color::White)));
    assert_eq!(jsa24_agreement(&p, 23), Ok(None));
}
