//! Tests of the search: positions, runs of moves, and each format followed as read against the records.

use super::matcher::{search_csa, search_usi};
use super::*;
use kifu::core::Color;
use kifu::formats::{Format, ParsedGame, read};

fn hit(text: &str, query: &Query) -> Option<Hit> {
    search(&read(Format::Usi, text)[0].record, query).0
}

fn at(sfen: &str, any_side: bool, board_only: bool) -> Query {
    Query::Position {
        target: Box::new(Position::from_sfen(sfen).expect("sfen")),
        any_side,
        board_only,
    }
}

/// The queries every test of following a text as read asks: a position after two moves (as it is, and
/// on the board alone with either side to move), the even start (every game holds it, each
/// hit with its recorded result), runs of one, two and no moves.
fn queries() -> [Query; 6] {
    let after_two = "lnsgkgsnl/1r5b1/pppppp1pp/6p2/9/2P6/PP1PPPPPP/1B5R1/LNSGKGSNL b - 3";
    let start = "lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1";
    let usi = |m: &str| Move::from_usi(m).expect("usi");
    [
        at(after_two, false, false),
        at(after_two, true, true),
        at(start, false, false),
        Query::Moves(vec![usi("7g7f")]),
        Query::Moves(vec![usi("7g7f"), usi("3c3d")]),
        Query::Moves(vec![]),
    ]
}

/// Panics unless what following as read found in a text (`short`) is what searching the records
/// of its `games` finds; the number of hits.
fn finds_what_the_records_find(
    short: &UnitHits,
    games: &[ParsedGame],
    q: &Query,
    text: &str,
) -> usize {
    let mut hits = Vec::new();
    let mut plies = 0;
    for (i, g) in games.iter().enumerate() {
        let (h, p) = search(&g.record, q);
        plies += u64::from(p);
        hits.extend(h.map(|h| Hit { index: i, ..h }));
    }
    assert_eq!(short.games, games.len() as u64, "{q:?}\n{text}");
    assert_eq!(short.plies, plies, "{q:?}\n{text}");
    assert_eq!(short.hits, hits, "{q:?}\n{text}");
    hits.len()
}

/// `games` games of up to 60 moves drawn from the legal ones (the first two from the first two
/// legal moves, so that positions recur across games), each move with the position before it.
fn random_games(mut seed: u64, games: usize) -> Vec<Vec<(Position, Move)>> {
    let mut out = Vec::new();
    for _ in 0..games {
        let mut pos = Position::startpos();
        let mut game = Vec::new();
        for ply in 0..60 {
            let legal = pos.legal_moves();
            if legal.is_empty() {
                break;
            }
            seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            let n = if ply < 2 { 2 } else { legal.len() };
            let mv = legal[(seed >> 33) as usize % n];
            game.push((pos.clone(), mv));
            pos.play(mv).expect("legal");
        }
        out.push(game);
    }
    out
}

#[test]
fn a_position_is_found_at_its_first_ply_with_the_move_played_from_it() {
    let after_two = "lnsgkgsnl/1r5b1/pppppp1pp/6p2/9/2P6/PP1PPPPPP/1B5R1/LNSGKGSNL b - 3";
    let q = at(after_two, false, false);
    let h = hit("startpos moves 7g7f 3c3d 2g2f resign\n", &q).expect("found");
    assert_eq!((h.ply, h.times), (2, 1));
    assert_eq!(h.next, Move::from_usi("2g2f").ok());
    assert_eq!(h.result.recorded.as_deref(), Some("TORYO"));
    // The same position by another order of moves; not in a game that misses it.
    assert!(hit("startpos moves 3g3f 3c3d 7g7f\n", &q).is_none());
    assert_eq!(
        hit("startpos moves 7g7f 3c3d\n", &q)
            .expect("at the end")
            .next,
        None
    );
    // The side to move counts unless told.
    let white = "lnsgkgsnl/1r5b1/pppppp1pp/6p2/9/2P6/PP1PPPPPP/1B5R1/LNSGKGSNL w - 3";
    assert!(hit("startpos moves 7g7f 3c3d\n", &at(white, false, false)).is_none());
    assert!(hit("startpos moves 7g7f 3c3d\n", &at(white, true, false)).is_some());
}

#[test]
fn board_only_ignores_the_hands_and_repeats_are_counted() {
    // After the bishop exchange each side holds a bishop; the board alone matches a
    // position with other hands.
    let text = "startpos moves 7g7f 3c3d 8h2b+ 3a2b\n";
    let board = "lnsgkg1nl/1r5s1/pppppp1pp/6p2/9/2P6/PP1PPPPPP/7R1/LNSGKGSNL b 2b 5";
    assert!(hit(text, &at(board, false, false)).is_none());
    assert_eq!(hit(text, &at(board, false, true)).expect("board").ply, 4);
    let shuffle = "startpos moves 5i5h 5a5b 5h5i 5b5a 5i5h\n";
    let start = "lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1";
    let h = hit(shuffle, &at(start, false, false)).expect("start");
    assert_eq!((h.ply, h.times), (0, 2));
}

#[test]
fn usi_followed_as_read_finds_what_the_records_find() {
    let mut text = String::from(
        "startpos moves 7g7f 3c3d 2g2f\n\
         position startpos moves 7g7f 3c3d 8h2b+ 3a2b B*4e R*5e 2g2f\n\
         startpos moves 7g7f 3c3d resign\n\
         startpos\n\
         sfen lnsgkgsnl/1r5b1/pppppp1pp/6p2/9/2P6/PP1PPPPPP/1B5R1/LNSGKGSNL b - 3 moves 2g2f\n\
         # a comment\n\
         startpos moves 7g7f 3c3d 7f7e xx\n\
         startpos moves 7g7f 3c3d resign 2g2f\n\
         startpos moves 7g7f win\n\
         startpos moves 7g7f 3c3d rep_draw timeout\n\
         startpos moves 7g7f 0000\n",
    );
    // Games of moves picked from the legal ones by a small generator.
    for game in random_games(12345, 30) {
        text.push_str("startpos moves");
        for (_, mv) in game {
            text.push(' ');
            text.push_str(&mv.to_usi());
        }
        text.push('\n');
    }
    let games = read(Format::Usi, &text);
    for q in &queries() {
        let short = search_usi(&text, q).expect("games");
        assert!(
            finds_what_the_records_find(&short, &games, q, "") > 0,
            "{q:?}"
        );
    }
}

#[test]
fn csa_followed_as_read_finds_what_the_records_find() {
    let mut text = String::from(
        "V2.2\nN+a\nN-b\nPI\n+\n+7776FU\nT3\n-3334FU\n+2726FU\n%TORYO\n/\n\
         PI\n+\n+7776FU\n-3334FU\n+8822UM\n-3122GI\n+0045KA\n-0055HI\n+2726FU\n/\n\
         \n\n/\n\
         P1-KY-KE-GI-KI-OU-KI-GI-KE * \nP2 * -HI *  *  *  *  * -KA * \n\
         P3-FU-FU-FU-FU-FU-FU-FU-FU-FU\nP4 *  *  *  *  *  *  *  *  * \n\
         P5 *  *  *  *  *  *  *  *  * \nP6 *  *  *  *  *  *  *  *  * \n\
         P7+FU+FU+FU+FU+FU+FU+FU+FU+FU\nP8 * +KA *  *  *  *  * +HI * \n\
         P9+KY+KE+GI+KI+OU+KI+GI+KE+KY\n-\n-3334FU\n/\n\
         PI\n+\n+7776FU\n-3334FU\n%CHUDAN\n+2726FU\n/\n\
         PI\n+\n+7776FU,T1\n-3334FU\n'a comment\n+2726FU\n/\n\
         PI\n+\n+7776FU\n-3334FU\n%KACHI\n'summary:illegal kachi:a lose:b win\n/\n\
         PI\n+\n+7776FU\n-3334FU\n%KACHI\n/\n\
         PI\n+\n+7776FU\n-3334FU\n'summary:time up:a lose:b win\n/\n\
         PI\n+\n+7776FU\n-3334FU\n%TORYO\n'summary:toryo:a win:b lose\n/\n\
         PI\n+\n+7776FU\n%TORYO\n%CHUDAN\n/\n\
         PI\n+\n+7776FU\n-3334FU\n%TORYO\n+2726FU\n+2625FU\n",
    );
    for game in random_games(777, 20) {
        text.push_str("/\nPI\n+\n");
        for (pos, mv) in game {
            let before = match mv {
                Move::Normal { from, .. } => pos.piece_at(from).map(|p| p.kind),
                Move::Drop { kind, .. } => Some(kind),
            };
            let after = match (before, mv.is_promotion()) {
                (Some(k), true) => k.promote(),
                (k, false) => k,
                (None, _) => None,
            };
            let sq = |s: kifu::core::Square| format!("{}{}", s.file(), s.rank());
            text.push_str(&format!(
                "{}{}{}{}\nT1\n",
                if pos.turn() == Color::Black { '+' } else { '-' },
                mv.from().map_or_else(|| "00".to_owned(), sq),
                sq(mv.to()),
                after.map_or("??", |k| k.csa())
            ));
        }
        text.push_str("%TORYO\n");
    }
    let games = read(Format::Csa, &text);
    assert!(games.len() > 20);
    for q in &queries() {
        let short = search_csa(&text, q).expect("games");
        assert!(
            finds_what_the_records_find(&short, &games, q, "") > 0,
            "{q:?}"
        );
    }
}

#[test]
fn a_run_of_moves_matches_games_from_the_even_start_only() {
    let q = Query::Moves(vec![
        Move::from_usi("7g7f").expect("usi"),
        Move::from_usi("3c3d").expect("usi"),
    ]);
    let h = hit("startpos moves 7g7f 3c3d 2g2f\n", &q).expect("prefix");
    assert_eq!((h.ply, h.next), (2, Move::from_usi("2g2f").ok()));
    assert!(hit("startpos moves 7g7f 8c8d\n", &q).is_none());
    assert!(hit("startpos moves 7g7f\n", &q).is_none());
    let odd =
        "sfen lnsgkgsn1/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1 moves 7g7f 3c3d\n";
    assert!(hit(odd, &q).is_none());
}

#[test]
fn a_one_line_csa_game_behind_a_slash_is_read_as_the_whole_text_reads_it() {
    // Read whole, `/` then a one-line CSA pair is a CSA game of lines the reader cannot parse;
    // the game after the `/`, alone, would look like the one-line CSA and read as two moves.
    let text = "/\n1 2003/09/08 甲 乙 1 2 棋戦 戦型\n7776FU3334FU\n";
    let q = Query::Moves(vec![Move::from_usi("7g7f").expect("usi")]);
    let games = read(Format::Csa, text);
    let plies: u64 = games
        .iter()
        .map(|g| u64::from(search(&g.record, &q).1))
        .sum();
    assert_eq!(plies, 0, "the reader finds no move");
    let short = search_csa(text, &q).expect("games");
    assert_eq!((short.games, short.plies), (games.len() as u64, plies));
    assert!(short.hits.is_empty());
    // The one-line CSA itself is left to the reader.
    assert!(search_csa(&text[2..], &q).is_none());
}

/// KIF and KI2 followed as the reader reads them find what searching their records finds:
/// generated games, and hand-made ones with what sends a game to its record (a footer with
/// no ending, a declaration, moves after the ending, a wrong number, variations, comments).
#[test]
fn kif_and_ki2_followed_as_read_find_what_the_records_find() {
    use kifu::formats::{WriteOptions, kakinoki::Dialect, write};
    use kifu::random::{GenOptions, random_game};
    let head = "手合割：平手\n手数----指手---------消費時間--\n";
    let moves = "   1 ７六歩(77)\n   2 ３四歩(33)\n";
    let mut kif: Vec<String> = vec![
        format!("{head}{moves}   3 投了\nまで2手で後手の勝ち\n"),
        format!("{head}{moves}まで2手で中断\n"),
        format!("{head}{moves}"),
        format!("{head}{moves}   3 入玉勝ち\n"),
        format!("{head}{moves}   3 投了\n   4 ２六歩(27)\n"),
        format!("{head}   1 ７六歩(77)\n   3 ３四歩(33)\n"),
        format!("{head}{moves}*a comment\n   3 ２六歩(27)\n\n変化：1手\n   1 ２六歩(27)\n"),
        format!("{head}{moves}   3 ２二角成(88)\n   4 同　銀(31)\n   5 中断\n"),
    ];
    let mut ki2: Vec<String> = vec![
        "▲７六歩 △３四歩\nまで2手で中断\n".to_owned(),
        "▲７六歩 △３四歩 ▲投了\n".to_owned(),
        "▲７六歩 △３四歩\n".to_owned(),
        "▲７六歩 △３四歩 ▲２二角成 △同銀\n*c\nまで4手で後手の勝ち\n".to_owned(),
    ];
    for seed in 0..20 {
        let rec = random_game(seed, &GenOptions::default());
        kif.push(write(Format::Kif, &rec, &WriteOptions::default()).text);
        ki2.push(write(Format::Ki2, &rec, &WriteOptions::default()).text);
    }
    let queries = queries();
    let mut found = 0;
    for (texts, format, dialect) in [
        (&kif, Format::Kif, Dialect::Kif),
        (&ki2, Format::Ki2, Dialect::Ki2),
    ] {
        for text in texts {
            let games = read(format, text);
            for q in &queries {
                let short = super::matcher::search_kif(text, dialect, q).expect("a game");
                found += finds_what_the_records_find(&short, &games, q, text);
            }
        }
    }
    assert!(found > 40, "the queries find games ({found})");
    // A text of blank lines holds no game: the batch's reading says so, not the matcher.
    for blank in ["", "\n\n", "\u{feff} \r\n\t"] {
        assert!(super::matcher::search_kif(blank, Dialect::Kif, &queries[0]).is_none());
    }
}

/// Games from a handicap or a composed start, with a foul (played on), a move that does not
/// resolve or cannot be carried out (the line ends there), or a start that cannot be set up,
/// are followed as they are read and find what their records find.
#[test]
fn games_from_any_start_and_with_broken_moves_find_what_their_records_find() {
    use kifu::formats::kakinoki::Dialect;
    let usi = [
        // A handicap (White moves first), a composed start, nifu played on, an illegal
        // drop that cannot be carried out, a move from an empty square.
        "sfen lnsgkgsn1/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL w - 1 moves 1a1b 7g7f 1b1c 3c3d\n",
        "sfen 4k4/9/9/9/9/9/9/9/4K4 b - 1 moves 5i5h 5a5b 5h5i\n",
        "startpos moves 2g2f 8c8d 2f2e 8d8e 2e2d 2c2d 2h2d 8e8f P*2c 8f8g+ 7g7f\n",
        "startpos moves 7g7f 3c3d R*5e 8c8d\n",
        "startpos moves 7g7f 5e5d 3c3d\n",
        "lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1 moves 7g7f 3c3d 2g2f\n",
    ]
    .concat();
    let games = read(Format::Usi, &usi);
    assert_eq!(games.len(), 6);
    let mut found = 0;
    for q in &queries() {
        let short = search_usi(&usi, q).expect("games");
        found += finds_what_the_records_find(&short, &games, q, &usi);
    }
    assert!(found > 4, "the queries find games ({found})");
    let csa = "V2.2\nPI\n+\n+7776FU\n-3334FU\n+2726XX\n+2726FU\n%TORYO\n/\nPI\n+\n+7776FU\nbad\n-3334FU\n";
    let games = read(Format::Csa, csa);
    for q in &queries() {
        let short = search_csa(csa, q).expect("games");
        finds_what_the_records_find(&short, &games, q, csa);
    }
    let head = "手数----指手---------消費時間--\n";
    let kif = [
        format!("手合割：香落ち\n{head}   1 ３四歩(33)\n   2 ７六歩(77)\n   3 投了\n"),
        format!(
            "手合割：平手\n{head}   1 ７六歩(77)\n   2 ３四歩(33)\n   3 ７五歩(77)\n   4 ８四歩(83)\n"
        ),
        format!("手合割：平手\n{head}   1 ７六歩(77)\n   2 ５五角(22)\n   3 ２六歩(27)\n"),
        // What the reader reports on: a line it cannot read, a number it cannot take, a
        // move after the ending.
        format!("{head}   1 ７六歩(77)\n   2 ３四x(33)\n   3 ２六歩(27)\n"),
        format!("{head}   1 ７六歩(77)\n   5 ３四歩(33)\n   3 ２六歩(27)\n"),
        format!("{head}   1 ７六歩(77)\n   2 ３四歩(33)\n   3 投了\n   4 ２六歩(27)\n"),
    ];
    for text in &kif {
        let games = read(Format::Kif, text);
        for q in &queries() {
            let short = super::matcher::search_kif(text, Dialect::Kif, q).expect("a game");
            finds_what_the_records_find(&short, &games, q, text);
        }
    }
}
