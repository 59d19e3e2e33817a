//! The rows of `kifu games` and `kifu positions` are made from a game's digest, which the
//! validator gathers as the game's reader reads it (`validate::gather_text`), or from the
//! game's record where it needs one (`validate::digest`): both must give exactly the rows of
//! the game read into a record first (`formats::read`, `validate::digest`), on the fixtures
//! and the corpus, generated games, floodgate-style games with ratings, comments and
//! analysis, KIF and KI2 games with a full header, and damaged copies that change every kind
//! of line.

use crate::common;

use kifu::formats::{Format, WriteOptions, write};
use kifu::random::{GenOptions, Rng, random_game};
use kifu::tables::{Facts, GameRow, Options as RowOptions, Origin, PositionRows};
use kifu::validate::{Digest, Gather, Options, Report, digest, gather_text};

const ORIGIN: Origin<'static> = Origin {
    path: "x",
    game: 0,
    format: Some("csa"),
    encoding: Some("utf-8"),
};

/// A game's rows and facts.
type Rows = (GameRow, Facts, PositionRows);

/// The rows and facts of a game from its digest (gathered for positions).
fn rows_of(r: &Report, game: &Digest) -> Rows {
    let rows = RowOptions { opening_plies: 4 };
    let mut p = PositionRows::new();
    p.push(game, r.plies, r.result.winner, "".into(), 0);
    (GameRow::new(ORIGIN, game, r, &rows), Facts::of(game, r), p)
}

/// The rows and facts both ways for `text`; returns how many games were played the quick way
/// (every move of the main line legal from the even start).
fn agree(format: Format, text: &str) -> usize {
    let opts = Options::default();
    let mut quick = 0;
    let read = gather_text(format, text, &opts, Gather::Positions);
    // Gathered for games: the same reports and games rows.
    let games = gather_text(format, text, &opts, Gather::Games);
    assert_eq!(read.len(), games.len(), "games differ for:\n{text}");
    let gathered: Vec<Rows> = read
        .iter()
        .zip(&games)
        .map(|((r, game), (r2, g2))| {
            assert_eq!(r, r2, "reports differ by gathering for:\n{text}");
            assert!(g2.times.is_empty() && g2.evals.is_empty(), "{text}");
            let rows = rows_of(r, game);
            let again = GameRow::new(ORIGIN, g2, r2, &RowOptions { opening_plies: 4 });
            assert_eq!(again, rows.0, "games rows differ by gathering for:\n{text}");
            quick += usize::from(game.end.is_some());
            rows
        })
        .collect();
    let records = kifu::formats::read(format, text);
    let full: Vec<Rows> = records
        .into_iter()
        .zip(&read)
        .map(|(mut g, (_, as_read))| {
            let (r, game) = digest(&mut g, &opts, Gather::Positions);
            holds(&g.record, &game, text);
            holds(&g.record, as_read, text);
            let rows = rows_of(&r, &game);
            replayed(&g.record, &rows.2);
            rows
        })
        .collect();
    assert_eq!(gathered.len(), full.len(), "games differ for:\n{text}");
    assert_eq!(read.len(), full.len(), "games differ for:\n{text}");
    for (a, b) in gathered.iter().zip(&full) {
        assert_eq!((&a.0, &a.1), (&b.0, &b.1), "rows differ for:\n{text}");
        assert_eq!(a.2.len(), b.2.len(), "positions differ for:\n{text}");
        for (x, y) in a.2.iter().zip(b.2.iter()) {
            assert_eq!(x, y, "positions differ for:\n{text}");
        }
    }
    quick
}

/// A digest holds what its record holds: the start, the main line's moves, the counts of
/// variations and comments, the times and analysis before the ending, the key.
fn holds(record: &kifu::record::Record, game: &Digest, text: &str) {
    use kifu::record::{MoveNode, NodeKind};
    fn counts(line: &[MoveNode]) -> (u32, u32) {
        let (mut vars, mut comments) = (0, 0);
        for node in line {
            comments += node.comments.len() as u32;
            for v in &node.variations {
                let (a, b) = counts(v);
                vars += 1 + a;
                comments += b;
            }
        }
        (vars, comments)
    }
    assert_eq!(game.start, record.start, "{text}");
    assert_eq!(game.header, record.header, "{text}");
    assert_eq!(game.start_comments, record.start_comments, "{text}");
    assert_eq!(
        (game.variations, game.comments),
        counts(&record.moves),
        "{text}"
    );
    let moves: Vec<Option<kifu::Move>> = record
        .moves
        .iter()
        .filter(|n| matches!(n.kind, NodeKind::Move { .. }))
        .map(MoveNode::resolved)
        .collect();
    let main: Vec<Option<kifu::Move>> = game.main_line().map(Result::ok).collect();
    assert_eq!(main, moves, "{text}");
    let plies = record
        .moves
        .iter()
        .take_while(|n| matches!(n.kind, NodeKind::Move { .. }));
    let times: Vec<(u32, u64)> = plies
        .clone()
        .enumerate()
        .filter_map(|(i, n)| Some((i as u32, n.time?.elapsed_ms?)))
        .collect();
    assert_eq!(game.times, times, "{text}");
    let evals: Vec<(u32, &kifu::record::Analysis)> = plies
        .enumerate()
        .filter_map(|(i, n)| Some((i as u32, n.analysis()?)))
        .collect();
    let got: Vec<(u32, &kifu::record::Analysis)> =
        game.evals.iter().map(|(i, a)| (*i, &**a)).collect();
    assert_eq!(got, evals, "{text}");
    assert_eq!(game.key, kifu::tables::game_key(record), "{text}");
    let spent = record
        .moves
        .iter()
        .filter_map(|n| n.time?.elapsed_ms)
        .fold((0, 0), |(n, ms), t| (n + 1, ms + t));
    assert_eq!(game.spent, spent, "{text}");
}

/// Each positions row's SFEN (written incrementally) is the position's own, replayed here
/// move by move from the record, fouls and all.
fn replayed(record: &kifu::record::Record, rows: &PositionRows) {
    if let Ok(mut pos) = kifu::Position::from_setup_lenient(&record.start.to_setup()) {
        for (row, node) in rows.iter().zip(&record.moves) {
            assert_eq!(row.sfen, pos.to_sfen(), "ply {}", row.ply);
            let Some(m) = node.resolved() else { break };
            if pos.play_checked(m).is_err() {
                break;
            }
        }
    }
}

/// One random edit of one line: dropped, doubled, swapped with the next, or a byte changed.
fn damage(text: &str, rng: &mut Rng) -> String {
    let mut lines: Vec<String> = text.lines().map(str::to_owned).collect();
    if lines.is_empty() {
        return text.to_owned();
    }
    let i = rng.below(lines.len() as u64) as usize;
    match rng.below(4) {
        how @ 0..=2 if common::reshape_lines(&mut lines, i, how) => {}
        _ => {
            let mut b = lines[i].clone().into_bytes();
            if !b.is_empty() {
                let j = rng.below(b.len() as u64) as usize;
                b[j] = b"+-0123456789'%TN$ :FUKA"[rng.below(23) as usize];
            }
            lines[i] = String::from_utf8_lossy(&b).into_owned();
        }
    }
    let mut out = lines.join("\n");
    out.push('\n');
    out
}

/// A generated game written as floodgate writes its logs: ratings in comments before the
/// moves, an engine's `'**` line and a free comment after some moves, a time control.
fn floodgate(seed: u64) -> String {
    let rec = random_game(seed, &GenOptions::default());
    let text = write(Format::Csa, &rec, &WriteOptions::default()).text;
    let mut out = String::new();
    let mut moves = 0;
    for line in text.lines() {
        if line == "+" {
            out.push_str("$START_TIME:2024/01/02 03:04:05\n$TIME_LIMIT:10:00+10\n");
            out.push_str("$SITE:wdoor\n$OPENING:YAGURA\n'header note\n+\n");
            out.push_str(&format!(
                "'black_rate:alice+{seed}:{}.5\n'white_rate:bob:3000\n",
                1500 + seed
            ));
            continue;
        }
        out.push_str(line);
        out.push('\n');
        // After each move's time line, as floodgate writes them.
        if line.starts_with('T') {
            moves += 1;
            match moves % 5 {
                1 => out.push_str("'** 120 -3334FU +2726FU\n"),
                2 => out.push_str("'a comment\n"),
                3 => out.push_str("'**not analysis\n"),
                _ => {}
            }
        }
    }
    out
}

#[test]
fn fixtures_and_corpus_agree() {
    const EXTS: [&str; 6] = ["csa", "usi", "kif", "kifu", "ki2", "ki2u"];
    let mut paths = common::files_with(
        std::path::Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/fixtures")),
        &EXTS,
    );
    paths.extend(common::corpus_files("rows_fixtures_and_corpus_agree", &EXTS).unwrap_or_default());
    let (mut files, mut short) = ([0usize; 4], [0usize; 4]);
    for path in paths {
        let Ok(bytes) = std::fs::read(&path) else {
            continue;
        };
        let ext = path
            .extension()
            .and_then(|e| e.to_str())
            .unwrap_or_default()
            .to_ascii_lowercase();
        let (format, i) = match ext.as_str() {
            "usi" => (Format::Usi, 1),
            "kif" | "kifu" => (Format::Kif, 2),
            "ki2" | "ki2u" => (Format::Ki2, 3),
            _ => (Format::Csa, 0),
        };
        let text = kifu::formats::decode::decode(&bytes, Some(format), None).text;
        short[i] += agree(format, &text);
        files[i] += 1;
    }
    eprintln!("files (CSA, USI, KIF, KI2): {files:?}, games the quick way: {short:?}");
    assert!(files.iter().all(|&n| n > 0), "a format without a fixture");
    // Some fixture of each format of the quick way is read that way (else the test compares
    // from the records with itself).
    assert!(short.iter().all(|&n| n > 0), "{short:?}");
}

#[test]
fn generated_and_floodgate_games_are_played_the_quick_way_and_agree() {
    let mut multi = String::new();
    let mut rng = Rng::new(5);
    for seed in 0..60 {
        let plain = write(
            Format::Csa,
            &random_game(seed, &GenOptions::default()),
            &WriteOptions::default(),
        )
        .text;
        assert_eq!(agree(Format::Csa, &plain), 1, "quick way:\n{plain}");
        let fg = floodgate(seed);
        assert_eq!(agree(Format::Csa, &fg), 1, "quick way:\n{fg}");
        // What the quick way gathered is in the row (not only equal to an empty row).
        if let Some((r, game)) =
            gather_text(Format::Csa, &fg, &Options::default(), Gather::Positions).pop()
        {
            let row = GameRow::new(ORIGIN, &game, &r, &RowOptions::default());
            assert_eq!(row.black_rating, Some(1500.5 + seed as f64));
            assert_eq!(row.white_rating, Some(3000.0));
            assert!(row.comments > 1, "{} comments", row.comments);
            assert_eq!(row.time_main_ms, Some(36_000_000));
            assert_eq!(row.site.as_deref(), Some("wdoor"));
            assert_eq!(row.strategy.as_deref(), Some("YAGURA"));
            assert!(row.start_time.is_some() && row.opening.is_some());
            assert!(!game.evals.is_empty(), "the `'**` lines are seen");
        } else {
            panic!("not played the quick way:\n{fg}");
        }
        // Without the analysis lines, the positions rows are the quick way's, times and all.
        let plain_fg = fg.replace("'** 120 -3334FU +2726FU\n", "");
        assert_eq!(agree(Format::Csa, &plain_fg), 1);
        if let Some((r, game)) = gather_text(
            Format::Csa,
            &plain_fg,
            &Options::default(),
            Gather::Positions,
        )
        .pop()
        {
            assert!(game.evals.is_empty() && game.end.is_some());
            let mut p = PositionRows::new();
            p.push(&game, r.plies, r.result.winner, "".into(), 0);
            assert_eq!(p.len(), game.moves.len());
            assert!(p.iter().all(|row| row.time_ms.is_some()), "{plain_fg}");
            assert_eq!(p.get(0).map(|row| row.ply), Some(1));
        } else {
            panic!("not played the quick way:\n{fg}");
        }
        for _ in 0..8 {
            agree(Format::Csa, &damage(&fg, &mut rng));
        }
        multi.push_str(&fg);
        multi.push_str("/\n");
    }
    assert_eq!(agree(Format::Csa, &multi), 60);
}

#[test]
fn usi_lines_agree() {
    let mut rng = Rng::new(9);
    let mut all = String::new();
    for seed in 0..60 {
        let text = write(
            Format::Usi,
            &random_game(100 + seed, &GenOptions::default()),
            &WriteOptions::default(),
        )
        .text;
        assert_eq!(agree(Format::Usi, &text), 1, "quick way:\n{text}");
        for _ in 0..5 {
            agree(Format::Usi, &damage(&text, &mut rng));
        }
        all.push_str(&text);
    }
    assert_eq!(agree(Format::Usi, &all), 60);
}

/// A generated game written in `format` (KIF or KI2) under a header with every column a row
/// takes from a KIF header.
fn kif_with_header(format: Format, seed: u64) -> String {
    let rec = random_game(seed, &GenOptions::default());
    let text = write(format, &rec, &WriteOptions::default()).text;
    let header = format!(
        "開始日時：2024/01/{:02} 10:00:00\n棋戦：第{seed}期 棋聖戦\n場所：東京\n回戦：{seed}\n\
         戦型：矢倉\n先手の戦法：早囲い\n後手の囲い：銀冠\n手合割：平手\n",
        1 + seed % 28
    );
    format!("{header}{text}")
}

/// One random edit of a KIF or KI2 line: dropped, doubled, swapped with the next, a character
/// replaced or inserted, or a line the quick way leaves to the reader inserted.
fn damage_kif(text: &str, rng: &mut Rng) -> String {
    const CHARS: [&str; 16] = [
        "▲", "△", "同", "成", "打", "(", ")", ":", " ", "　", "歩", "投了", "*", "：", "一", "#",
    ];
    const LINES: [&str; 6] = [
        "*comment",
        "まで5手で後手の勝ち",
        "持ち時間：5分",
        "先手：別の名",
        "手合割：香落ち",
        "変化：3手",
    ];
    let mut lines: Vec<String> = text.split('\n').map(str::to_owned).collect();
    let i = rng.below(lines.len() as u64) as usize;
    match rng.below(5) {
        how @ 0..=2 if common::reshape_lines(&mut lines, i, how) => {}
        3 => lines.insert(i, LINES[rng.below(6) as usize].to_owned()),
        _ => {
            let cuts: Vec<usize> = lines[i].char_indices().map(|(p, _)| p).collect();
            if let Some(&p) = cuts.get(rng.below(cuts.len().max(1) as u64) as usize) {
                let with = CHARS[rng.below(CHARS.len() as u64) as usize];
                lines[i].insert_str(p, with);
            }
        }
    }
    lines.join("\n")
}

#[test]
fn kif_and_ki2_games_are_played_the_quick_way_and_agree() {
    let mut rng = Rng::new(21);
    for format in [Format::Kif, Format::Ki2] {
        let (mut short, mut total) = (0, 0);
        for seed in 0..40 {
            let plain = write(
                format,
                &random_game(300 + seed, &GenOptions::default()),
                &WriteOptions::default(),
            )
            .text;
            assert_eq!(agree(format, &plain), 1, "quick way:\n{plain}");
            if format == Format::Kif {
                // A KIF move line's time column reaches the positions rows the quick way.
                let Some((_, game)) =
                    gather_text(format, &plain, &Options::default(), Gather::Positions).pop()
                else {
                    panic!("not played the quick way:\n{plain}");
                };
                assert_eq!(game.times.len(), game.moves.len(), "{plain}");
            }
            let text = kif_with_header(format, seed);
            assert_eq!(agree(format, &text), 1, "quick way:\n{text}");
            // What the quick way gathered is in the row (not only equal to an empty row).
            let Some((r, game)) =
                gather_text(format, &text, &Options::default(), Gather::Games).pop()
            else {
                panic!("no game:\n{text}");
            };
            let row = GameRow::new(ORIGIN, &game, &r, &RowOptions::default());
            let event = format!("第{seed}期 棋聖戦");
            assert_eq!(row.event.as_deref(), Some(event.as_str()));
            assert_eq!(row.site.as_deref(), Some("東京"));
            assert_eq!(row.round, Some(seed.to_string()));
            assert_eq!(row.strategy.as_deref(), Some("矢倉"));
            assert_eq!(row.black_strategy.as_deref(), Some("早囲い"));
            assert_eq!(row.white_castle.as_deref(), Some("銀冠"));
            assert!(row.start_time.is_some() && row.black.is_some());
            assert_eq!(row.handicap, Some("平手"));
            assert!(row.opening.is_some() && row.final_sfen.is_some());
            for _ in 0..12 {
                let mut t = damage_kif(&text, &mut rng);
                if rng.below(3) == 0 {
                    t = damage_kif(&t, &mut rng);
                }
                short += agree(format, &t);
                total += 1;
            }
        }
        // The edits send games both ways, or they test little of either.
        assert!(
            short > total / 20 && short < total * 19 / 20,
            "{format:?}: {short} the quick way of {total}"
        );
    }
}

/// A generated game written as JKF under a header with every column a row takes from a JKF
/// header (the KIF keys, as JKF writers carry them).
fn jkf_with_header(seed: u64) -> String {
    let rec = random_game(600 + seed, &GenOptions::default());
    let text = write(Format::Jkf, &rec, &WriteOptions::default()).text;
    let mut v: serde_json::Value = serde_json::from_str(&text).expect("JSON");
    let header = serde_json::json!({
        "開始日時": format!("2024/01/{:02} 10:00:00", 1 + seed % 28),
        "棋戦": format!("第{seed}期 棋聖戦"),
        "場所": "東京",
        "回戦": seed.to_string(),
        "戦型": "矢倉",
        "先手": "甲",
        "後手": "乙",
    });
    v["header"] = header;
    serde_json::to_string(&v).expect("JSON")
}

#[test]
fn jkf_games_are_played_the_quick_way_and_agree() {
    let mut rng = Rng::new(33);
    let (mut short, mut total) = (0, 0);
    for seed in 0..40 {
        let text = jkf_with_header(seed);
        assert_eq!(agree(Format::Jkf, &text), 1, "quick way:\n{text}");
        // What the quick way gathered is in the row (not only equal to an empty row).
        let Some((r, game)) =
            gather_text(Format::Jkf, &text, &Options::default(), Gather::Games).pop()
        else {
            panic!("no game:\n{text}");
        };
        let row = GameRow::new(ORIGIN, &game, &r, &RowOptions::default());
        let event = format!("第{seed}期 棋聖戦");
        assert_eq!(row.event.as_deref(), Some(event.as_str()));
        assert_eq!(row.site.as_deref(), Some("東京"));
        assert_eq!(row.round, Some(seed.to_string()));
        assert_eq!(row.strategy.as_deref(), Some("矢倉"));
        assert_eq!(row.black.as_deref(), Some("甲"));
        assert!(row.start_time.is_some() && row.opening.is_some() && row.final_sfen.is_some());
        assert_eq!(game.moves.len() as u32, r.plies);
        // Damaged copies: a byte changed, dropped or doubled.
        for _ in 0..12 {
            let mut b = text.clone().into_bytes();
            let i = rng.below(b.len() as u64) as usize;
            match rng.below(3) {
                0 => b[i] = b"{}[],:\"0123456789 -"[rng.below(19) as usize],
                1 => {
                    b.remove(i);
                }
                _ => b.insert(i, b[i]),
            }
            short += agree(Format::Jkf, &String::from_utf8_lossy(&b));
            total += 1;
        }
    }
    // The edits send games both ways (most break the JSON or a move: from the records).
    assert!(
        short > 0 && short < total,
        "{short} the quick way of {total}"
    );
    // The shared corpus's JKF files (skipped when it is absent).
    for path in common::corpus_files(
        "jkf_games_are_played_the_quick_way_and_agree",
        &["jkf", "json"],
    )
    .unwrap_or_default()
    {
        let Ok(bytes) = std::fs::read(&path) else {
            continue;
        };
        let text = kifu::formats::decode::decode(&bytes, Some(Format::Jkf), None).text;
        agree(Format::Jkf, &text);
    }
}

/// A floodgate game's `'summary:` after its `%TORYO`, agreeing with the `%` line or not, or
/// the only word on the result: the rows agree either way, and its moves are still played
/// the quick way.
#[test]
fn server_summaries_keep_agreeing() {
    let base = "V2.2\nN+alice\nN-bob\nPI\n+\n+7776FU\nT1\n-3334FU\nT2\n";
    let tails = [
        "%TORYO\n'summary:toryo:alice lose:bob win\n'$END_TIME:2024/01/02 03:10:00\n",
        "%TORYO\n'summary:toryo:alice win:bob lose\n",
        "%TORYO\n'summary:time up:alice lose:bob win\n",
        "'summary:uchifuzume:alice lose:bob win\n",
        // Not a summary kifu reads.
        "%TORYO\n'summary:toryo:alice win:bob win\n",
    ];
    for tail in tails {
        let text = format!("{base}{tail}");
        assert_eq!(agree(Format::Csa, &text), 1, "{text}");
    }
}
