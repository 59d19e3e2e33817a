//! The move resolver (`record::resolve`) and KI2 suffixes in both directions, for both sides.

use kifu::core::{Color, Move, Piece, PieceKind, Position, Setup, Square};
use kifu::formats::{WriteOptions, ki2, kif};
use kifu::record::resolve::{ResolveError, resolve_move, resolve_record};
use kifu::record::{
    MoveNode, MoveText, NamedPiece, NodeKind, Record, Relative, Source, Span, StartPosition,
};

fn sq(f: u8, r: u8) -> Square {
    Square::new(f, r).unwrap()
}

/// The setup seen from the other side: every piece changes colour and moves to the mirrored
/// square, the hands swap, and the other side moves.
fn flip(s: &Setup) -> Setup {
    let mut f = Setup::empty();
    for sq in Square::all() {
        if let Some(p) = s.piece_at(sq) {
            f.set_piece(sq.flip(), Some(Piece::new(p.color.flip(), p.kind)));
        }
    }
    f.hands.black = s.hands.white;
    f.hands.white = s.hands.black;
    f.turn = s.turn.flip();
    f
}

fn flip_move(m: Move) -> Move {
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

const ZEN: [char; 10] = ['０', '１', '２', '３', '４', '５', '６', '７', '８', '９'];
const KAN: [char; 10] = ['〇', '一', '二', '三', '四', '五', '六', '七', '八', '九'];

/// A token as KI2 writes it: mark, destination, then `rest` (piece and suffixes).
fn token(color: Color, to: Square, rest: &str) -> String {
    let mark = if color == Color::Black { '▲' } else { '△' };
    format!(
        "{mark}{}{}{rest}",
        ZEN[to.file() as usize],
        KAN[to.rank() as usize]
    )
}

fn parse_token(tok: &str) -> MoveText {
    let games = ki2::read(tok);
    assert!(
        games[0].diagnostics.is_empty(),
        "{tok}: {:?}",
        games[0].diagnostics
    );
    match &games[0].record.moves[0].kind {
        NodeKind::Move { text, .. } => text.clone(),
        k => panic!("{tok}: not a move: {k:?}"),
    }
}

/// Writes one move as KI2 from `setup` and returns its token.
fn write_token(setup: &Setup, mv: Move) -> String {
    let mut node = MoveNode::new(
        NodeKind::Move {
            text: MoveText {
                color: None,
                from: Source::Unknown,
                to: mv.to(),
                same: false,
                piece: None,
                promote: None,
                relative: Relative::default(),
                raw: Default::default(),
            },
            resolved: Some(mv),
        },
        Span::default(),
    );
    node.time = None;
    let rec = Record {
        start: StartPosition::Setup(Box::new(setup.clone())),
        moves: vec![node],
        ..Record::default()
    };
    let w = ki2::write(&rec, &WriteOptions::default());
    let line = w
        .text
        .lines()
        .find(|l| l.starts_with(['▲', '△']))
        .unwrap_or_else(|| panic!("no move written:\n{}\n{:?}", w.text, w.warnings));
    line.trim_end().to_string()
}

/// Checks, for Black in `sfen` and for White in the mirrored position, that `usi` is written
/// as the token `rest` and that the token reads back as the same move.
fn both_ways(sfen: &str, usi: &str, rest: &str) {
    let black = Setup::from_sfen(sfen).unwrap();
    let mv = Move::from_usi(usi).unwrap();
    for (setup, mv) in [(black.clone(), mv), (flip(&black), flip_move(mv))] {
        let color = setup.turn;
        let want = token(color, mv.to(), rest);
        let got = write_token(&setup, mv);
        assert_eq!(got, want, "writing {mv} for {color:?} in {sfen}");
        let pos = Position::from_setup_relaxed(&setup).unwrap();
        let text = parse_token(&want);
        assert_eq!(
            resolve_move(&pos, &text),
            Ok(mv),
            "reading {want} for {color:?} in {sfen}"
        );
    }
}

/// Reads `rest` (for both sides, mirrored) and expects `err`.
fn reads_as_error(sfen: &str, to: Square, rest: &str, err: fn(ResolveError) -> bool) {
    let black = Setup::from_sfen(sfen).unwrap();
    for (setup, to) in [(black.clone(), to), (flip(&black), to.flip())] {
        let pos = Position::from_setup_relaxed(&setup).unwrap();
        let tok = token(setup.turn, to, rest);
        let r = resolve_move(&pos, &parse_token(&tok));
        assert!(matches!(r, Err(e) if err(e)), "{tok}: {r:?}");
    }
}

// Kings in the corners keep positions legal without getting in the way.
// Board rows are ranks 1..9, files 9..1 left to right.

#[test]
fn gold_right_left_straight() {
    // Golds on 6八 5八 4八, all reaching 5七.
    let sfen = "8k/9/9/9/9/9/9/3GGG3/K8 b - 1";
    both_ways(sfen, "6h5g", "金左");
    both_ways(sfen, "5h5g", "金直");
    both_ways(sfen, "4h5g", "金右");
}

#[test]
fn gold_up_sideways_down() {
    // Golds on 6八 (up), 6七 (sideways) and 5六 (down) reaching 5七.
    let sfen = "8k/9/9/9/9/4G4/3G5/3G5/K8 b - 1";
    both_ways(sfen, "6h5g", "金上");
    both_ways(sfen, "6g5g", "金寄");
    both_ways(sfen, "5f5g", "金引");
}

#[test]
fn gold_needs_both() {
    // 6八 and 4八 both move up; 6八 and 6七 both come from the left: 金左上.
    let sfen = "8k/9/9/9/9/9/3G5/3G1G3/K8 b - 1";
    both_ways(sfen, "6h5g", "金左上");
    both_ways(sfen, "4h5g", "金右");
    both_ways(sfen, "6g5g", "金寄");
}

#[test]
fn silver_and_promotion() {
    // Silvers on 6八 and 4八 to 5七; silvers on 4六 and 6八 to 5七.
    both_ways("8k/9/9/9/9/9/9/3S1S3/K8 b - 1", "4h5g", "銀右");
    both_ways("8k/9/9/9/9/9/9/3S1S3/K8 b - 1", "6h5g", "銀左");
    both_ways("8k/9/9/9/9/5S3/9/3S5/K8 b - 1", "4f5g", "銀引");
    both_ways("8k/9/9/9/9/5S3/9/3S5/K8 b - 1", "6h5g", "銀上");
    // Entering the zone: 成 or 不成 always written; leaving it too.
    both_ways("8k/9/9/5S3/9/9/9/9/K8 b - 1", "4d4c+", "銀成");
    both_ways("8k/9/9/5S3/9/9/9/9/K8 b - 1", "4d4c", "銀不成");
    both_ways("8k/9/5S3/9/9/9/9/9/K8 b - 1", "4c5d", "銀不成");
    // Outside the zone nothing is written.
    both_ways("8k/9/9/9/5S3/9/9/9/K8 b - 1", "4e4d", "銀");
}

#[test]
fn knight_right_left() {
    both_ways("8k/9/9/9/9/9/9/9/K2N1N3 b - 1", "4i5g", "桂右");
    both_ways("8k/9/9/9/9/9/9/9/K2N1N3 b - 1", "6i5g", "桂左");
    both_ways("8k/9/9/3N1N3/9/9/9/9/K8 b - 1", "4d5b+", "桂右成");
    both_ways("8k/9/9/3N1N3/9/9/9/9/K8 b - 1", "6d5b", "桂左不成");
}

#[test]
fn rook_sideways_up_right_left() {
    // Rooks on 9七 (sideways) and 5九 (up) reaching 5七.
    both_ways("8k/9/9/9/9/9/R8/9/K3R4 b - 1", "9g5g", "飛寄");
    both_ways("8k/9/9/9/9/9/R8/9/K3R4 b - 1", "5i5g", "飛上");
    // Rooks on 9七 and 1七, both sideways.
    both_ways("8k/9/9/9/9/9/R7R/9/K8 b - 1", "1g5g", "飛右");
    both_ways("8k/9/9/9/9/9/R7R/9/K8 b - 1", "9g5g", "飛左");
}

#[test]
fn dragon_and_horse() {
    // Dragons on 9二 and 1二, both sideways to 5二: right/left by where they stand.
    both_ways("8k/+R7+R/9/9/9/9/9/9/K8 b - 1", "1b5b", "龍右");
    both_ways("8k/+R7+R/9/9/9/9/9/9/K8 b - 1", "9b5b", "龍左");
    // Dragons on 5五 (up) and 9一 (sideways) to 5一.
    both_ways("+R7k/9/9/9/4+R4/9/9/9/K8 b - 1", "5e5a", "龍上");
    both_ways("+R7k/9/9/9/4+R4/9/9/9/K8 b - 1", "9a5a", "龍寄");
    // Dragons on 6一 and 4一, both moving one step diagonally back to 5二.
    both_ways("3+R1+R2k/9/9/9/9/9/9/9/K8 b - 1", "4a5b", "龍右");
    both_ways("3+R1+R2k/9/9/9/9/9/9/9/K8 b - 1", "6a5b", "龍左");
    // Horses on 9九 and 1九 to 5五 (both up).
    both_ways("k8/9/9/9/9/9/9/9/+B3K3+B b - 1", "1i5e", "馬右");
    both_ways("k8/9/9/9/9/9/9/9/+B3K3+B b - 1", "9i5e", "馬左");
    // Horses on 6五 (sideways) and 9九 (up) to 5五.
    both_ways("k8/9/9/9/3+B5/9/9/9/+B3K4 b - 1", "6e5e", "馬寄");
    both_ways("k8/9/9/9/3+B5/9/9/9/+B3K4 b - 1", "9i5e", "馬上");
}

#[test]
fn drop_needs_uchi_only_when_a_board_piece_could_move_there() {
    // A gold on 6八 reaches 5七; another gold is in hand.
    let sfen = "8k/9/9/9/9/9/9/3G5/K8 b G 1";
    both_ways(sfen, "G*5g", "金打");
    both_ways(sfen, "6h5g", "金");
    // Nothing on the board reaches 5五: the drop is written without 打.
    both_ways(sfen, "G*5e", "金");
}

#[test]
fn same_square_is_written_dou() {
    let text = "▲７六歩 △３四歩 ▲２二角成 △同銀 ▲同　角打\n";
    let mut rec = ki2::read(text).remove(0).record;
    let d = resolve_record(&mut rec);
    // The last move is wrong on purpose: White's silver stands on 22 after 同銀, so the drop
    // there cannot be played.
    assert_eq!(d.len(), 1, "{d:?}");
    assert_eq!(d[0].code, kifu::Code::DropOccupied);
    assert_eq!(d[0].ply, Some(5));
    let got: Vec<_> = rec
        .moves
        .iter()
        .map(|n| n.resolved().map(|m| m.to_usi()))
        .collect();
    assert_eq!(
        got,
        [
            Some("7g7f".into()),
            Some("3c3d".into()),
            Some("8h2b+".into()),
            Some("3a2b".into()),
            None
        ]
    );
    rec.moves.pop();
    let w = ki2::write(&rec, &WriteOptions::default());
    assert!(w.text.contains("△同　銀"), "{}", w.text);
}

#[test]
fn ambiguity_no_match_and_wrong_turn() {
    let sfen = "8k/9/9/9/9/9/9/3GGG3/K8 b - 1";
    reads_as_error(sfen, sq(5, 7), "金", |e| {
        matches!(e, ResolveError::Ambiguous { candidates: 3 })
    });
    reads_as_error(sfen, sq(5, 7), "金上", |e| {
        matches!(e, ResolveError::Ambiguous { candidates: 3 })
    });
    reads_as_error(sfen, sq(5, 7), "金引", |e| e == ResolveError::NoMatch);
    reads_as_error(sfen, sq(5, 5), "金", |e| e == ResolveError::NoMatch);
    let pos = Position::startpos();
    let r = resolve_move(&pos, &parse_token("△３四歩"));
    assert_eq!(
        r,
        Err(ResolveError::WrongTurn {
            written: Color::White,
            to_move: Color::Black
        })
    );
    assert_eq!(r.unwrap_err().code(), kifu::Code::WrongTurn);
    assert_eq!(ResolveError::NoMatch.code(), kifu::Code::NoMatchingMove);
    assert_eq!(
        ResolveError::Ambiguous { candidates: 2 }.code(),
        kifu::Code::AmbiguousMove
    );
}

fn kif_text(s: &str) -> MoveText {
    let g = kif::read(&format!("   1 {s}\n")).remove(0);
    match &g.record.moves[0].kind {
        NodeKind::Move { text, .. } => text.clone(),
        k => panic!("{k:?}"),
    }
}

#[test]
fn source_square_moves_check_the_named_piece() {
    let pos = Position::startpos();
    assert_eq!(
        resolve_move(&pos, &kif_text("７六歩(77)")),
        Ok(Move::from_usi("7g7f").unwrap())
    );
    let e = resolve_move(&pos, &kif_text("７六銀(77)")).unwrap_err();
    assert_eq!(
        e,
        ResolveError::PieceMismatch {
            named: PieceKind::Silver,
            found: PieceKind::Pawn
        }
    );
    assert_eq!(e.code(), kifu::Code::PieceMismatch);
    let e = resolve_move(&pos, &kif_text("７五歩(76)")).unwrap_err();
    assert_eq!(e, ResolveError::NoPiece { from: sq(7, 6) });
    assert_eq!(e.code(), kifu::Code::NoPiece);
    // White's piece is not Black's.
    assert_eq!(
        resolve_move(&pos, &kif_text("３四歩(33)")),
        Err(ResolveError::NoPiece { from: sq(3, 3) })
    );
    // Drops resolve to drops; whether the piece is in hand is checked when played.
    assert_eq!(
        resolve_move(&pos, &kif_text("５五角打")),
        Ok(Move::Drop {
            kind: PieceKind::Bishop,
            to: sq(5, 5)
        })
    );

    // CSA names the piece after the move: the promoted name means promotion.
    let pos = Position::from_sfen("8k/9/9/5S3/9/9/9/9/K8 b - 1").unwrap();
    let mut t = kif_text("４三銀(44)");
    t.piece = Some(NamedPiece::After(PieceKind::ProSilver));
    assert_eq!(resolve_move(&pos, &t), Ok(Move::from_usi("4d4c+").unwrap()));
    t.piece = Some(NamedPiece::After(PieceKind::Silver));
    assert_eq!(resolve_move(&pos, &t), Ok(Move::from_usi("4d4c").unwrap()));
    t.piece = Some(NamedPiece::After(PieceKind::Gold));
    assert!(matches!(
        resolve_move(&pos, &t),
        Err(ResolveError::PieceMismatch { .. })
    ));
}

#[test]
fn resolve_record_replays_variations_from_their_branch_point() {
    let text = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/fixtures/kif/variations.kifu"
    ))
    .unwrap();
    let mut rec = kif::read(&text).remove(0).record;
    let d = resolve_record(&mut rec);
    assert!(d.is_empty(), "{d:?}");
    fn all_resolved(ns: &[MoveNode]) -> usize {
        ns.iter()
            .map(|n| {
                let own = match &n.kind {
                    NodeKind::Move { resolved, .. } => {
                        assert!(resolved.is_some(), "{n:?}");
                        1
                    }
                    NodeKind::Special(_) => 0,
                };
                own + n.variations.iter().map(|v| all_resolved(v)).sum::<usize>()
            })
            .sum()
    }
    assert_eq!(all_resolved(&rec.moves), 9 + 1 + 2 + 3 + 3 + 2);
    // 同　飛(82) in the variation of ply 4 captures on 22 from the position after ply 3.
    assert_eq!(
        rec.moves[3].variations[0][0].resolved(),
        Some(Move::from_usi("8b2b").unwrap())
    );
    assert_eq!(
        rec.moves[8].variations[0][0].resolved(),
        Some(Move::from_usi("3d2c").unwrap())
    );
}

#[test]
fn resolve_record_stops_a_line_at_the_first_bad_move() {
    let text = "   1 ７六歩(77)\n   2 ３四銀(33)\n   3 ２六歩(27)\n変化：1手\n   1 ２六歩(27)\n";
    let mut rec = kif::read(text).remove(0).record;
    let d = resolve_record(&mut rec);
    assert_eq!(d.len(), 1, "{d:?}");
    assert_eq!(d[0].code, kifu::Code::PieceMismatch);
    assert_eq!(
        (d[0].line, d[0].column, d[0].ply),
        (Some(2), Some(6), Some(2))
    );
    assert!(rec.moves[0].resolved().is_some());
    assert!(rec.moves[1].resolved().is_none());
    assert!(rec.moves[2].resolved().is_none());
    assert!(rec.moves[0].variations[0][0].resolved().is_some());
    // A move the rules core cannot play at all (a bishop through a pawn) stops the line too.
    let mut rec = kif::read("   1 ３三角成(88)\n").remove(0).record;
    let d = resolve_record(&mut rec);
    assert_eq!(d[0].code, kifu::Code::Blocked);
    // Rule breaches that can be played are not reported here (that is validate's job).
    let mut rec = kif::read("   1 ７六歩成(77)\n").remove(0).record;
    assert_eq!(resolve_record(&mut rec), vec![]);
    assert_eq!(
        rec.moves[0].resolved(),
        Some(Move::from_usi("7g7f+").unwrap())
    );
}

#[test]
fn a_pinned_piece_does_not_make_a_move_ambiguous() {
    // Silvers on 6八 and 4八 reach 5七, but 6八 is pinned to the king on 6九 by the rook on 6一.
    let sfen = "3r4k/9/9/9/9/9/9/3S1S3/3K5 b - 1";
    let black = Setup::from_sfen(sfen).unwrap();
    for (setup, mv) in [
        (black.clone(), Move::from_usi("4h5g").unwrap()),
        (flip(&black), flip_move(Move::from_usi("4h5g").unwrap())),
    ] {
        let pos = Position::from_setup_relaxed(&setup).unwrap();
        let tok = token(setup.turn, mv.to(), "銀");
        assert_eq!(resolve_move(&pos, &parse_token(&tok)), Ok(mv), "{tok}");
        // The writer still names it (pins are ignored when counting candidates) and reads back.
        let written = write_token(&setup, mv);
        assert_eq!(written, token(setup.turn, mv.to(), "銀右"));
        assert_eq!(resolve_move(&pos, &parse_token(&written)), Ok(mv));
    }
    // Without the pin the bare text is ambiguous.
    let pos = Position::from_sfen("8k/9/9/9/9/9/9/3S1S3/3K5 b - 1").unwrap();
    assert_eq!(
        resolve_move(&pos, &parse_token("▲５七銀")),
        Err(ResolveError::Ambiguous { candidates: 2 })
    );
}

/// The resolved moves of the main line, as USI.
fn main_line(r: &Record) -> Vec<String> {
    r.moves
        .iter()
        .filter_map(|n| n.resolved())
        .map(|m| m.to_usi())
        .collect()
}

#[test]
fn random_games_survive_kif_and_ki2() {
    use kifu::random::{GenOptions, random_game};
    let opts = GenOptions {
        comments: true,
        ..GenOptions::default()
    };
    let mut suffixed = 0;
    for seed in 0..150 {
        let game = random_game(seed, &opts);
        let want = main_line(&game);
        assert!(want.len() > 10);
        // KIF: moves, times, comments and the end come back.
        let w = kif::write(&game, &WriteOptions::default());
        assert!(w.warnings.is_empty(), "seed {seed}: {:?}", w.warnings);
        let mut back = kif::read(&w.text).remove(0);
        assert!(
            back.diagnostics.is_empty(),
            "seed {seed}: {:?}",
            back.diagnostics
        );
        assert!(resolve_record(&mut back.record).is_empty(), "seed {seed}");
        assert_eq!(main_line(&back.record), want, "seed {seed}\n{}", w.text);
        for (a, b) in game.moves.iter().zip(&back.record.moves) {
            assert_eq!(
                a.time.map(|t| t.elapsed_ms),
                b.time.map(|t| t.elapsed_ms),
                "seed {seed}"
            );
            assert_eq!(a.comments, b.comments, "seed {seed}");
        }
        assert_eq!(
            back.record.end().map(|s| s.kind),
            game.end().map(|s| s.kind),
            "seed {seed}"
        );
        // KI2: the minimal suffixes read back as the same moves.
        let w = ki2::write(&game, &WriteOptions::default());
        let mut back = ki2::read(&w.text).remove(0);
        assert!(
            back.diagnostics.is_empty(),
            "seed {seed}: {:?}",
            back.diagnostics
        );
        let d = resolve_record(&mut back.record);
        assert!(d.is_empty(), "seed {seed}: {d:?}\n{}", w.text);
        assert_eq!(main_line(&back.record), want, "seed {seed}\n{}", w.text);
        assert_eq!(
            back.record.end().map(|s| s.kind),
            game.end().map(|s| s.kind),
            "seed {seed}"
        );
        suffixed += w
            .text
            .matches(['右', '左', '直', '上', '引', '寄', '打'])
            .count();
    }
    // The games are long enough that suffixes do occur.
    assert!(suffixed > 50, "{suffixed}");
}
