//! Dialects real users have (issue #20): `変化：N手目`, variations past the end of the line,
//! comment lines in the header, `手合割：詰将棋` with a diagram drawn from White's side
//! (`盤面反転`), `王` for `玉`, ASCII spaces between hand pieces, branches that begin with `同`.
//! Each reads from its fixture in fixtures/dialects/.

use std::path::PathBuf;

use kifu::Code;
use kifu::core::{Color, Piece, PieceKind, Square};
use kifu::formats::{Format, ParsedGame, WriteOptions, kif};
use kifu::record::{NodeKind, StartPosition};
use kifu::validate::{self, Options};

fn fixture(name: &str) -> String {
    let p = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("fixtures/dialects")
        .join(name);
    std::fs::read_to_string(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

fn read_one(name: &str) -> ParsedGame {
    let mut games = kif::read(&fixture(name));
    assert_eq!(games.len(), 1, "{name}");
    games.remove(0)
}

/// The destination squares of a line of nodes (`None` for a special).
fn targets(nodes: &[kifu::record::MoveNode]) -> Vec<Option<(u8, u8)>> {
    nodes
        .iter()
        .map(|n| match &n.kind {
            NodeKind::Move { text, .. } => Some((text.to.file(), text.to.rank())),
            NodeKind::Special(_) => None,
        })
        .collect()
}

#[test]
fn variations_written_n_te_me_are_variations() {
    let mut g = read_one("variations-teme.kifu");
    let syntax: Vec<_> = g
        .diagnostics
        .iter()
        .filter(|d| d.code == Code::Syntax)
        .collect();
    assert!(syntax.is_empty(), "{syntax:?}");
    let moves = &g.record.moves;
    // `変化：3手目` is an alternative to ply 3, `変化：4手目` to ply 4.
    assert_eq!(moves[2].variations.len(), 1);
    assert_eq!(moves[3].variations.len(), 1);
    assert_eq!(
        targets(&moves[2].variations[0]),
        vec![Some((6, 6)), Some((6, 6))]
    );
    // A branch that begins with 同 takes the square of the move before it on the line it
    // branches from (ply 3, ２二).
    assert_eq!(
        targets(&moves[3].variations[0]),
        vec![Some((2, 2)), Some((5, 8))]
    );
    assert_eq!(
        moves[3].variations[0][0].comments,
        vec!["４手目の同は３手目の２二の地点".to_string()]
    );
    let branch = targets(&moves[3].variations[0]);
    let report = validate::validate_game(&mut g, &Options::default());
    assert!(report.diagnostics.is_empty(), "{:?}", report.diagnostics);
    // KIF written back holds both variations, as `N手` blocks.
    let written = kifu::formats::write(Format::Kifu, &g.record, &WriteOptions::default());
    assert!(written.text.contains("変化：3手"), "{}", written.text);
    assert!(written.text.contains("変化：4手"), "{}", written.text);
    let again = kif::read(&written.text).remove(0);
    assert_eq!(targets(&again.record.moves[3].variations[0]), branch);
}

#[test]
fn a_variation_past_the_end_of_the_line_is_reported_and_not_joined() {
    let g = read_one("variation-past-end.kifu");
    // The main line keeps its two moves: the block at ply 3 is not joined onto it.
    assert_eq!(g.record.moves.len(), 2);
    assert!(g.record.moves.iter().all(|n| n.variations.is_empty()));
    let d: Vec<_> = g
        .diagnostics
        .iter()
        .filter(|d| d.code == Code::Syntax)
        .collect();
    assert_eq!(d.len(), 1, "{:?}", g.diagnostics);
    assert_eq!(d[0].line, Some(7));
    assert!(d[0].message.contains("past the end"), "{}", d[0].message);
}

/// `変化：5手` after a block of plies 3 and 4 continues that block (the most recently opened
/// line it fits), and the `変化：4手` after it is an alternative on that variation: the tree
/// tsshogi (ShogiHome) builds from the same file, in KIF and KI2 alike.
#[test]
fn a_block_continuing_a_variation_goes_on_that_variation() {
    let check = |g: &ParsedGame| {
        assert!(g.diagnostics.is_empty(), "{:?}", g.diagnostics);
        let moves = &g.record.moves;
        // The main line: six moves and 投了, one variation at ply 3 only.
        assert_eq!(moves.len(), 7);
        let forks: Vec<usize> = (0..7)
            .filter(|&i| !moves[i].variations.is_empty())
            .collect();
        assert_eq!(forks, [2]);
        let var = &moves[2].variations[0];
        // ６六歩, ８四歩, then the continuation ６八銀, ８五歩.
        assert_eq!(
            targets(var),
            [Some((6, 6)), Some((8, 4)), Some((6, 8)), Some((8, 5))]
        );
        // ４四歩 is an alternative to the variation's ply 4, not the main line's.
        assert_eq!(var[1].variations.len(), 1);
        assert_eq!(targets(&var[1].variations[0]), [Some((4, 4))]);
    };
    let mut g = read_one("variation-continued.kifu");
    check(&g);
    let report = validate::validate_game(&mut g, &Options::default());
    assert!(report.diagnostics.is_empty(), "{:?}", report.diagnostics);
    // The same tree as KI2.
    let ki2 = "▲７六歩 △３四歩 ▲２六歩 △８四歩 ▲２五歩 △８五歩\nまで6手で中断\n\n\
               変化：3手\n▲６六歩 △８四歩\n\n変化：5手\n▲６八銀 △８五歩\n\n変化：4手\n△４四歩\n";
    let g = kifu::formats::read(Format::Ki2, ki2).remove(0);
    let moves = &g.record.moves;
    let var = &moves[2].variations[0];
    assert_eq!(
        targets(var),
        [Some((6, 6)), Some((8, 4)), Some((6, 8)), Some((8, 5))]
    );
    assert_eq!(targets(&var[1].variations[0]), [Some((4, 4))]);
    // A block that fits no open line (past the end of the main line) is still reported.
    let past = kif::read(
        "   1 ７六歩(77)\n   2 ３四歩(33)\n   3 ２六歩(27)\n   4 ８四歩(83)\n\n\
         変化：3手\n   3 ６六歩(67)\n   4 ８四歩(83)\n\n変化：7手\n   7 ６八銀(79)\n",
    );
    let d: Vec<_> = past[0]
        .diagnostics
        .iter()
        .filter(|d| d.code == Code::Syntax)
        .collect();
    assert_eq!(d.len(), 1, "{:?}", past[0].diagnostics);
    assert!(d[0].message.contains("past the end"), "{}", d[0].message);
}

#[test]
fn comment_lines_in_the_header_are_comments() {
    let g = read_one("star-header.kifu");
    assert!(g.diagnostics.is_empty(), "{:?}", g.diagnostics);
    assert_eq!(
        g.record.start_comments,
        vec![
            "将棋倶楽部24形式の棋譜を模した手作りの棋譜。".to_string(),
            "対局ID：0001".to_string(),
            "見出しの途中の字下げしたコメント".to_string(),
        ]
    );
    assert_eq!(g.record.header.get("先手"), Some("甲"));
    assert_eq!(
        g.record.moves[0].comments,
        vec!["初手のコメント".to_string()]
    );
    // Written as CSA, the start comments stay (as `'` lines).
    let mut g = g;
    validate::validate_game(&mut g, &Options::default());
    let csa = kifu::formats::write(Format::Csa, &g.record, &WriteOptions::default());
    assert!(csa.text.contains("'対局ID：0001"), "{}", csa.text);
    assert!(
        csa.text.contains("'見出しの途中の字下げしたコメント"),
        "{}",
        csa.text
    );
}

#[test]
fn a_tsume_diagram_drawn_from_whites_side_comes_out_right() {
    let mut g = read_one("tsume-flipped.kifu");
    assert!(g.diagnostics.is_empty(), "{:?}", g.diagnostics);
    assert_eq!(g.record.header.get("手合割"), Some("詰将棋"));
    let StartPosition::Setup(setup) = &g.record.start else {
        panic!("a diagram gives a setup: {:?}", g.record.start);
    };
    let at = |f, r| setup.piece_at(Square::new(f, r).unwrap());
    // White's king (drawn upright at the bottom, written 王) on ５一; Black's pawn (drawn
    // upside down, `v歩`) on ５三.
    assert_eq!(at(5, 1), Some(Piece::new(Color::White, PieceKind::King)));
    assert_eq!(at(5, 3), Some(Piece::new(Color::Black, PieceKind::Pawn)));
    assert_eq!(setup.hands.black.count(PieceKind::Gold), 1);
    assert_eq!(setup.hands.white.count(PieceKind::Pawn), 17);
    assert_eq!(setup.turn, Color::Black);
    // The mate is legal and a mate.
    let report = validate::validate_game(&mut g, &Options::default());
    assert!(report.diagnostics.is_empty(), "{:?}", report.diagnostics);
    // USI holds the position: White's king on 5a, Black's pawn on 5c.
    let usi = kifu::formats::write(Format::Usi, &g.record, &WriteOptions::default());
    assert!(
        usi.text
            .starts_with("position sfen 4k4/9/4P4/9/9/9/9/9/9 b G"),
        "{}",
        usi.text
    );
}

#[test]
fn a_flipped_diagram_without_rank_labels_counts_ranks_from_nine() {
    let text = "盤面反転\n\
                | ・ ・ ・ ・ ・ ・ ・ ・ ・|\n\
                | ・ ・ ・ ・ ・ ・ ・ ・ ・|\n\
                | ・ ・ ・ ・ ・ ・ ・ ・ ・|\n\
                | ・ ・ ・ ・ ・ ・ ・ ・ ・|\n\
                | ・ ・ ・ ・ ・ ・ ・ ・ ・|\n\
                | ・ ・ ・ ・ ・ ・ ・ ・ ・|\n\
                | ・ ・ ・ ・ ・ ・ ・ ・ ・|\n\
                | ・ ・ ・ ・ ・ ・ ・v玉 ・|\n\
                | 玉 ・ ・ ・ ・ ・ ・ ・ ・|\n";
    let g = kif::read(text).remove(0);
    assert!(g.diagnostics.is_empty(), "{:?}", g.diagnostics);
    let StartPosition::Setup(setup) = &g.record.start else {
        panic!("{:?}", g.record.start);
    };
    // The last row drawn is rank 1; its leftmost cell is file 1.
    assert_eq!(
        setup.piece_at(Square::new(1, 1).unwrap()),
        Some(Piece::new(Color::White, PieceKind::King))
    );
    assert_eq!(
        setup.piece_at(Square::new(8, 2).unwrap()),
        Some(Piece::new(Color::Black, PieceKind::King))
    );
}

#[test]
fn hand_pieces_separated_by_ascii_spaces_and_wang_for_the_king() {
    let mut g = read_one("hand-ascii-spaces.kifu");
    assert!(g.diagnostics.is_empty(), "{:?}", g.diagnostics);
    let StartPosition::Setup(setup) = &g.record.start else {
        panic!("{:?}", g.record.start);
    };
    let b = &setup.hands.black;
    for k in [
        PieceKind::Rook,
        PieceKind::Bishop,
        PieceKind::Silver,
        PieceKind::Knight,
        PieceKind::Pawn,
    ] {
        assert_eq!(b.count(k), 1, "{k:?}");
    }
    assert_eq!(setup.hands.white.count(PieceKind::Gold), 4);
    assert_eq!(setup.hands.white.count(PieceKind::Pawn), 17);
    assert_eq!(
        setup.piece_at(Square::new(5, 9).unwrap()),
        Some(Piece::new(Color::Black, PieceKind::King))
    );
    let report = validate::validate_game(&mut g, &Options::default());
    assert!(report.diagnostics.is_empty(), "{:?}", report.diagnostics);
}
