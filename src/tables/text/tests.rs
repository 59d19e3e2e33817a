use super::*;
use crate::formats::{self, Format};
use crate::tables::{Options, Origin};

/// The CSV row written field by field is the row of every cell made a string and written
/// as one record (how it was written before).
#[test]
fn csv_fields_are_the_cells() {
    let text = "V2.2\nN+a, \"b\"\nN-c\n$EVENT:x,y\n$START_TIME:2024/01/02 03:04:05\n\
                $TIME_LIMIT:00:10+10\nPI\n+\n'black_rate:a:1500.5\n+7776FU\n-3334FU\n\
                +2726FU\n-8384FU\n%TORYO\n";
    let mut g = formats::read(Format::Csa, text).remove(0);
    let gather = crate::validate::Gather::Games;
    let (r, digest) = crate::validate::digest(&mut g, &Default::default(), gather);
    let origin = Origin {
        path: "a,b.csa",
        game: 3,
        format: Some("csa"),
        encoding: Some("utf-8"),
    };
    let mut row = GameRow::new(origin, &digest, &r, &Options { opening_plies: 2 });
    row.codes = vec!["a", "b"];
    row.board_ply = Some(7);
    let got = ours(&row);
    assert_eq!(
        String::from_utf8_lossy(&got),
        String::from_utf8_lossy(&theirs(&row))
    );
    assert!(String::from_utf8_lossy(&got).contains("\"a, \"\"b\"\"\""));
    assert!(String::from_utf8_lossy(&got).contains(",1500.5,"));
    // Fields csv-core quotes or leaves bare: empty first field, line breaks, quotes,
    // a comma inside a list item; a missing number.
    row.path = String::new();
    row.event = Some("x\r\ny\"".into());
    row.site = Some("\"".into());
    row.opening = Some(vec!["a,b".into(), "c\"".into()]);
    row.codes = vec!["q,r"];
    row.black_rating = None;
    row.white_rating = Some(-2.5e-7);
    let got = ours(&row);
    assert_eq!(
        String::from_utf8_lossy(&got),
        String::from_utf8_lossy(&theirs(&row))
    );
    assert!(String::from_utf8_lossy(&got).contains("\n,3,csa,"));
    row.opening = None;
    row.codes = Vec::new();
    assert_eq!(ours(&row), theirs(&row));
}

/// The positions rows written field by field are the rows the csv crate writes of their
/// cells made strings, among them fields that must be quoted, negative numbers, missing
/// values and lists.
#[test]
fn position_fields_are_the_cells() {
    use crate::tables::positions::EngineEval;
    let eval = |cp: Option<i32>, mate: Option<i32>, pv: &[&str]| EngineEval {
        eval_cp: cp,
        mate,
        pv: pv.iter().map(|m| m.to_string()).collect(),
    };
    let evals = [
        None,
        Some(eval(Some(-123), None, &["7g7f", "3c3d"])),
        Some(eval(None, Some(-7), &[])),
        Some(eval(Some(i32::MIN), Some(i32::MAX), &["a,b", "c\"d"])),
        Some(eval(Some(0), Some(0), &["x\ny"])),
    ];
    let rows: Vec<PositionRow<'_>> = evals
        .iter()
        .enumerate()
        .map(|(i, e)| PositionRow {
            path: ["a.kif", "dir/b,\"c\".csa", "", "棋譜/d.kif", "e\nf.csa"][i],
            game: [0, 1, 7, 3, 2][i],
            game_key: if i == 3 { "" } else { "0123456789abcdef" },
            ply: i as u32 * 1000,
            sfen: "lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1",
            side: if i % 2 == 0 { "b" } else { "w" },
            mv: ["7g7f", "+7776FU,T3", "\"", "７六歩", "a\rb"][i],
            time_ms: (i != 2).then_some(u64::MAX - i as u64),
            eval: e.clone(),
            legal: i % 3 != 0,
            result: [Some("win"), None, Some("draw"), Some("loss"), Some("x,y")][i],
        })
        .collect();
    let mut t = TextTable::new(Vec::new(), TextStyle::Csv, Table::Positions).expect("csv");
    for r in &rows {
        t.position(r).expect("row");
    }
    let got = t.finish().expect("finish");

    let mut want = csv_crate(Table::Positions);
    for r in &rows {
        let e = r.eval.as_ref();
        let int = |v: Option<i32>| v.map(|v| v.to_string()).unwrap_or_default();
        want.write_record([
            r.path.to_owned(),
            r.game.to_string(),
            r.game_key.to_owned(),
            r.ply.to_string(),
            r.sfen.to_owned(),
            r.side.to_owned(),
            r.mv.to_owned(),
            r.time_ms.map(|v| v.to_string()).unwrap_or_default(),
            int(e.and_then(|e| e.eval_cp)),
            int(e.and_then(|e| e.mate)),
            e.map(|e| e.pv.join(" ")).unwrap_or_default(),
            r.legal.to_string(),
            r.result.unwrap_or("").to_owned(),
        ])
        .expect("cells");
    }
    let want = want.into_inner().expect("bytes");
    assert_eq!(
        String::from_utf8_lossy(&got),
        String::from_utf8_lossy(&want)
    );
    let got = String::from_utf8_lossy(&got);
    assert!(got.contains(",-123,,7g7f 3c3d,true,\n"), "{got}");
    assert!(
        got.contains(",-2147483648,2147483647,\"a,b c\"\"d\","),
        "{got}"
    );
    assert!(got.contains("\n棋譜/d.kif,3,,3000,"), "{got}");
}

/// Rows of some columns, in the order asked, are the full rows' cells of those columns
/// (read back by the csv crate and serde_json), quoted cells and line breaks among them;
/// the CSV header names them.
#[test]
fn chosen_columns_are_the_full_rows_cells() {
    use crate::tables::Columns;
    use crate::tables::positions::EngineEval;
    let eval = EngineEval {
        eval_cp: Some(-5),
        mate: None,
        pv: vec!["a,b".into(), "c\"d".into()],
    };
    let rows: Vec<PositionRow<'_>> = (0..4)
        .map(|i| PositionRow {
            path: "a,b.csa",
            game: u64::from(i / 2),
            game_key: "0123456789abcdef",
            ply: i + 1,
            sfen: "lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1",
            side: ["b", "w"][i as usize % 2],
            mv: ["7g7f", "a\r\nb", "\"", "x,y"][i as usize],
            time_ms: (i != 2).then_some(u64::from(i) * 1000),
            eval: (i == 1).then(|| eval.clone()),
            legal: i != 3,
            result: [Some("win"), None, Some("draw"), Some("loss")][i as usize],
        })
        .collect();
    let text = "V2.2\nN+a, \"b\"\nN-c\n$EVENT:x\ny\nPI\n+\n+7776FU\n-3334FU\n%TORYO\n";
    let mut g = formats::read(Format::Csa, text).remove(0);
    let gather = crate::validate::Gather::Games;
    let (r, digest) = crate::validate::digest(&mut g, &Default::default(), gather);
    let origin = Origin {
        path: "a,b.csa",
        game: 0,
        format: Some("csa"),
        encoding: None,
    };
    let game = GameRow::new(origin, &digest, &r, &Options::default());
    let write = |style: TextStyle, columns: &Columns| {
        let mut t = TextTable::with_columns(Vec::new(), style, columns).expect("table");
        match columns.table() {
            Table::Positions => rows.iter().for_each(|r| t.position(r).expect("row")),
            Table::Games => t.game(&game).expect("row"),
        }
        t.finish().expect("finish")
    };
    let choices: [(Table, &[&str]); 5] = [
        (Table::Positions, &["sfen", "move", "result"]),
        (Table::Positions, &["pv", "game_key"]),
        (Table::Positions, &["move"]),
        (Table::Games, &["black", "plies", "event", "path"]),
        (Table::Games, &["codes", "opening"]),
    ];
    for (table, names) in choices {
        let columns = Columns::select(table, names).expect("columns");
        let all = Columns::all(table);
        // CSV: the full table's records, each cut down to the chosen cells.
        let full = write(TextStyle::Csv, &all);
        let mut want = csv::WriterBuilder::new()
            .terminator(csv::Terminator::Any(b'\n'))
            .from_writer(Vec::new());
        let mut reader = csv::ReaderBuilder::new()
            .has_headers(false)
            .from_reader(&full[..]);
        for record in reader.records() {
            let record = record.expect("record");
            let cells: Vec<&str> = columns.indices().iter().map(|&i| &record[i]).collect();
            want.write_record(&cells).expect("cells");
        }
        let want = want.into_inner().expect("bytes");
        let got = write(TextStyle::Csv, &columns);
        assert_eq!(
            String::from_utf8_lossy(&got),
            String::from_utf8_lossy(&want),
            "{names:?}"
        );
        assert!(got.starts_with(format!("{}\n", names.join(",")).as_bytes()));
        // JSON Lines: the full objects' values of the chosen keys, in their order.
        let full = write(TextStyle::Json, &all);
        let got = write(TextStyle::Json, &columns);
        let lines = |b: &[u8]| -> Vec<serde_json::Value> {
            let text = String::from_utf8_lossy(b).into_owned();
            text.lines()
                .map(|l| serde_json::from_str(l).expect("json"))
                .collect()
        };
        let (full, got) = (lines(&full), lines(&got));
        assert_eq!(full.len(), got.len());
        for (f, g) in full.iter().zip(&got) {
            let keys: Vec<&String> = g.as_object().expect("object").keys().collect();
            assert_eq!(keys, names, "{g}");
            for name in names {
                assert_eq!(g[name], f[name], "{name}");
            }
        }
    }
}

/// A byte that must be quoted is found wherever it stands: in a block of sixteen or in
/// the bytes after the last whole block.
#[test]
fn a_special_byte_is_found_anywhere() {
    for len in [0, 1, 15, 16, 17, 40, 64] {
        let plain = vec![b'a'; len];
        assert!(!needs_quotes(&plain), "{len}");
        for at in 0..len {
            for b in [b',', b'"', b'\r', b'\n'] {
                let mut v = plain.clone();
                v[at] = b;
                assert!(needs_quotes(&v), "{len} {at} {b}");
            }
        }
    }
    assert!(!needs_quotes("７六歩 lnsgkgsnl/1r5b1 b - 1 +-".as_bytes()));
}

fn ours(row: &GameRow) -> Vec<u8> {
    let mut t = TextTable::new(Vec::new(), TextStyle::Csv, Table::Games).expect("csv");
    t.game(row).expect("row");
    t.finish().expect("finish")
}

/// Every cell made a string and written by the csv crate as one record.
fn theirs(r: &GameRow) -> Vec<u8> {
    let opt = |v: Option<&str>| v.unwrap_or("").to_owned();
    let num = |v: Option<u64>| v.map(|v| v.to_string()).unwrap_or_default();
    let float = |v: Option<f64>| v.map(|v| format!("{v:?}")).unwrap_or_default();
    let cells = [
        r.path.clone(),
        r.game.to_string(),
        opt(r.format),
        opt(r.encoding),
        opt(r.event.as_deref()),
        opt(r.site.as_deref()),
        opt(r.round.as_deref()),
        r.start_date.map(|d| d.date_iso()).unwrap_or_default(),
        r.start_time.and_then(|d| d.time_iso()).unwrap_or_default(),
        opt(r.black.as_deref()),
        opt(r.white.as_deref()),
        float(r.black_rating),
        float(r.white_rating),
        opt(r.time_control.as_deref()),
        num(r.time_main_ms),
        num(r.time_byoyomi_ms),
        num(r.time_increment_ms),
        opt(r.handicap),
        r.start_sfen.clone(),
        r.plies.to_string(),
        opt(r.ending.as_deref()),
        opt(r.winner),
        opt(r.board_winner),
        opt(r.board_by),
        num(r.board_ply.map(u64::from)),
        r.opening.as_ref().map(|m| m.join(" ")).unwrap_or_default(),
        opt(r.strategy.as_deref()),
        opt(r.black_strategy.as_deref()),
        opt(r.white_strategy.as_deref()),
        opt(r.black_castle.as_deref()),
        opt(r.white_castle.as_deref()),
        opt(r.final_sfen.as_deref()),
        opt(r.final_hash.as_deref()),
        r.variations.to_string(),
        r.comments.to_string(),
        r.errors.to_string(),
        r.warnings.to_string(),
        r.codes.join(" "),
        r.game_key.clone(),
    ];
    let mut want = csv_crate(Table::Games);
    want.write_record(&cells).expect("cells");
    want.into_inner().expect("bytes")
}

/// The csv crate's writer as the tables were written with it (a `\n` after each row),
/// with the table's header row written.
fn csv_crate(table: Table) -> csv::Writer<Vec<u8>> {
    let mut want = csv::WriterBuilder::new()
        .terminator(csv::Terminator::Any(b'\n'))
        .from_writer(Vec::new());
    let schema = schema_of(table);
    let names: Vec<&str> = schema.fields().iter().map(|f| f.name().as_str()).collect();
    want.write_record(&names).expect("header");
    want
}
