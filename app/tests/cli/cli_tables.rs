//! `kifu games` and `kifu positions`: rows agree with `validate --format json`, CSV and JSON
//! Lines hold the same rows, Parquet files and Hive shards read back with the same rows and
//! types (through the `parquet` crate), outputs are refused unless `--force`, and the filters
//! act alike in every command. pandas, DuckDB and PySpark load the same outputs in
//! `tests/python/test_tables.py`.

use std::fs;
use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::cli_common;
use cli_common::{code, fixtures, p, parse_lines, run, stderr, stdout};

/// Floodgate-style games: `n` games, each rated, dated in 2023 or 2024, the first two the
/// same game (duplicates), the third with a foul (nifu); at most 7 games.
fn floodgate(dir: &Path, n: usize) -> PathBuf {
    let mut games = Vec::new();
    for i in 0..n {
        let rate_b = 2000 + 100 * i;
        let rate_w = 2500;
        let year = if i % 2 == 0 { 2023 } else { 2024 };
        let moves = match i {
            0 | 1 => "+7776FU\nT3\n-3334FU\nT5\n+8822UM\nT1\n-3122GI\nT2\n%TORYO\n".to_owned(),
            2 => "+2726FU\n-8384FU\n+2625FU\n-8485FU\n+2524FU\n-2324FU\n+2824HI\n-8586FU\n+0076FU\n%TORYO\n".to_owned(),
            _ => {
                let file = [1, 2, 3, 4, 6, 7, 8, 9][i - 3];
                format!("+5756FU\n-5354FU\n+{file}7{file}6FU\n%TORYO\n")
            }
        };
        games.push(format!(
            "V2.2\nN+player{i}\nN-rival\n$EVENT:wdoor+floodgate-300-10F+player{i}+rival+{year}0101120000\n\
             $START_TIME:{year}/01/0{} 12:00:00\nPI\n+\n'black_rate:player{i}+ab:{rate_b}.0\n\
             'white_rate:rival+cd:{rate_w}.0\n{moves}",
            1 + i % 9
        ));
    }
    let path = dir.join("floodgate.csa");
    fs::write(&path, games.join("/\n")).expect("write");
    path
}

fn games_json(args: &[&str]) -> Vec<Value> {
    let o = run(&[&["games", "--no-progress", "--format", "json"], args].concat());
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    parse_lines(&stdout(&o))
}

#[test]
fn games_agree_with_validate() {
    let inputs = fixtures();
    let rows = games_json(&[p(&inputs)]);
    let o = run(&["validate", "--no-progress", "--format", "json", p(&inputs)]);
    let lines = parse_lines(&stdout(&o));
    let games: Vec<&Value> = lines.iter().filter(|l| l["game"].is_u64()).collect();
    assert_eq!(rows.len(), games.len());
    assert!(rows.len() > 10);
    for (r, v) in rows.iter().zip(&games) {
        assert_eq!(r["path"], v["path"]);
        assert_eq!(r["game"], v["game"]);
        assert_eq!(r["plies"], v["plies"]);
        assert_eq!(r["black"], v.get("black").cloned().unwrap_or(Value::Null));
        assert_eq!(r["ending"], v["result"]["recorded"]);
        assert_eq!(r["winner"], v["result"]["winner"]);
        assert_eq!(
            r["board_by"],
            v["result"]["by_board"]
                .get("by")
                .cloned()
                .unwrap_or(Value::Null)
        );
        let codes: Vec<&Value> = v["diagnostics"]
            .as_array()
            .expect("diagnostics")
            .iter()
            .map(|d| &d["code"])
            .collect();
        let row_codes: Vec<&Value> = r["codes"].as_array().expect("codes").iter().collect();
        assert_eq!(row_codes, codes, "{}", r["path"]);
        let errors = v["diagnostics"]
            .as_array()
            .expect("diagnostics")
            .iter()
            .filter(|d| d["severity"] == "error")
            .count();
        assert_eq!(r["errors"], errors);
    }
}

#[test]
fn ratings_dates_and_keys() {
    let dir = tempfile::tempdir().expect("tempdir");
    let file = floodgate(dir.path(), 6);
    let rows = games_json(&[p(&file)]);
    assert_eq!(rows.len(), 6);
    assert_eq!(rows[3]["black_rating"], 2300.0);
    assert_eq!(rows[3]["white_rating"], 2500.0);
    assert_eq!(rows[1]["start_date"], "2024-01-02");
    assert_eq!(rows[1]["start_time"], "2024-01-02T12:00:00");
    assert_eq!(rows[0]["time_main_ms"], 300_000);
    assert_eq!(rows[0]["time_increment_ms"], 10_000);
    assert_eq!(rows[0]["game_key"], rows[1]["game_key"], "the same moves");
    assert_ne!(rows[0]["game_key"], rows[3]["game_key"]);
    assert_eq!(rows[2]["codes"][0], "nifu");
    assert_eq!(rows[0]["opening"], Value::Null, "shorter than 8 plies");
    let short = games_json(&["--opening-plies", "2", p(&file)]);
    assert_eq!(short[0]["opening"], serde_json::json!(["7g7f", "3c3d"]));
}

#[test]
fn filters_act_alike_in_every_command() {
    let dir = tempfile::tempdir().expect("tempdir");
    let file = floodgate(dir.path(), 8);
    let f = p(&file);
    let cases: &[(&[&str], usize)] = &[
        (&[], 8),
        (&["--min-rating", "2400"], 4),
        (&["--min-rating", "2400", "--min-rating-any"], 8),
        (&["--min-rating", "2600"], 0),
        (&["--clean"], 7),
        (&["--dedup"], 7),
        (&["--since", "2024-01-01"], 4),
        (&["--until", "2023-12-31"], 4),
        (&["--player", "player3"], 1),
        (&["--player", "rival"], 8),
        (&["--event", "20240101"], 4),
        (&["--min-plies", "5"], 1),
        (&["--max-plies", "3"], 5),
        (&["--ending", "kachi"], 0),
        (&["--ending", "TORYO,KACHI"], 8),
    ];
    for (args, n) in cases {
        let rows = games_json(&[args, &[f][..]].concat());
        assert_eq!(rows.len(), *n, "games {args:?}");
        let o = run(&[
            &["validate", "--no-progress", "--format", "json"],
            *args,
            &[f],
        ]
        .concat());
        let lines = parse_lines(&stdout(&o));
        let summary = lines.last().expect("summary");
        assert_eq!(summary["summary"]["games"], *n, "validate {args:?}");
        assert_eq!(lines.len() - 1, *n, "validate lines {args:?}");
        let o = run(&[&["stats", "--no-progress", "--format", "json"], *args, &[f]].concat());
        let stats: Value = serde_json::from_str(&stdout(&o)).expect("stats json");
        assert_eq!(stats["games"], *n, "stats {args:?}");
        let o = run(&[&["convert", "--to", "usi", "--no-progress"], *args, &[f]].concat());
        let usi = stdout(&o);
        assert_eq!(
            usi.lines().filter(|l| !l.is_empty()).count(),
            *n,
            "convert {args:?}"
        );
    }
    // The game indexes stay those of the file.
    let rows = games_json(&["--player", "player3", f]);
    assert_eq!(rows[0]["game"], 3);
    // A bad date is a usage error.
    let o = run(&["games", "--since", "yesterday", f]);
    assert_eq!(code(&o), 2);
}

#[test]
fn positions_rows() {
    let dir = tempfile::tempdir().expect("tempdir");
    let file = floodgate(dir.path(), 3);
    let o = run(&["positions", "--no-progress", "--format", "json", p(&file)]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let rows = parse_lines(&stdout(&o));
    let games = games_json(&[p(&file)]);
    let plies: u64 = games
        .iter()
        .map(|g| g["plies"].as_u64().expect("plies"))
        .sum();
    assert_eq!(rows.len() as u64, plies);
    let first = &rows[0];
    assert_eq!(first["game_key"], games[0]["game_key"]);
    assert_eq!(first["ply"], 1);
    assert_eq!(
        first["sfen"],
        "lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1"
    );
    assert_eq!(first["move"], "7g7f");
    assert_eq!(first["side"], "b");
    assert_eq!(first["time_ms"], 3000);
    assert_eq!(first["legal"], true);
    // Black resigned after four plies: White won.
    assert_eq!(first["result"], "loss");
    assert_eq!(rows[1]["result"], "win");
    for key in ["eval_cp", "mate", "pv"] {
        assert_eq!(first[key], Value::Null, "{key}: no engine comment");
    }
    let nifu: Vec<&Value> = rows.iter().filter(|r| r["legal"] == false).collect();
    assert_eq!(nifu.len(), 1);
    assert_eq!(nifu[0]["move"], "P*7f");
    // The final position of the games table is the position after the last row's move.
    let last = rows
        .iter()
        .rfind(|r| r["game_key"] == games[0]["game_key"])
        .expect("row");
    assert_eq!(last["ply"], 4);
    // CSV: the same rows.
    let o = run(&["positions", "--no-progress", p(&file)]);
    let csv = stdout(&o);
    assert_eq!(csv.lines().count(), rows.len() + 1);
    assert!(csv.starts_with(
        "path,game,game_key,ply,sfen,side,move,time_ms,eval_cp,mate,pv,legal,result\n"
    ));
}

/// The columns (`name:type`), the rows and the row groups of a Parquet file.
fn read_parquet(path: &Path) -> (Vec<String>, usize, usize) {
    use parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;
    let f = fs::File::open(path).expect("open");
    let b = ParquetRecordBatchReaderBuilder::try_new(f).expect("parquet");
    let names = b
        .schema()
        .fields()
        .iter()
        .map(|f| format!("{}:{}", f.name(), f.data_type()))
        .collect();
    let groups = b.metadata().num_row_groups();
    let rows = b
        .build()
        .expect("reader")
        .map(|b| b.expect("batch").num_rows())
        .sum();
    (names, rows, groups)
}

#[test]
fn parquet_files_shards_and_refusals() {
    let dir = tempfile::tempdir().expect("tempdir");
    let file = floodgate(dir.path(), 8);
    let out = dir.path().join("games.parquet");
    let args = [
        "games",
        "--no-progress",
        "--format",
        "parquet",
        "-o",
        p(&out),
        p(&file),
    ];
    let o = run(&args);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let (cols, rows, _) = read_parquet(&out);
    assert_eq!(rows, 8);
    for c in [
        "game:Int64",
        "start_date:Date32",
        "black_rating:Float64",
        "plies:Int32",
        "game_key:Utf8",
    ] {
        assert!(cols.iter().any(|x| x == c), "{c} in {cols:?}");
    }
    assert!(
        cols.iter().any(|c| c.starts_with("opening:List")),
        "{cols:?}"
    );
    assert!(
        cols.iter().any(|c| c.starts_with("start_time:Timestamp(ms")
            || c.starts_with("start_time:Timestamp(Millisecond")),
        "{cols:?}"
    );
    // Not replaced unless forced; nothing half-written left behind.
    let before = fs::read(&out).expect("read");
    let o = run(&args);
    assert_eq!(code(&o), 2);
    assert!(stderr(&o).contains("--force"), "{}", stderr(&o));
    assert_eq!(fs::read(&out).expect("read"), before);
    let o = run(&[&args[..], &["--force", "--min-plies", "5"]].concat());
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    assert_eq!(read_parquet(&out).1, 1);
    let leftovers = fs::read_dir(dir.path())
        .expect("dir")
        .filter(|e| {
            e.as_ref()
                .is_ok_and(|e| e.file_name().to_string_lossy().starts_with(".kifu-"))
        })
        .count();
    assert_eq!(leftovers, 0);

    // Shards by year, small row groups: every row once, in input order within a shard.
    let shards = dir.path().join("shards");
    let o = run(&[
        "positions",
        "--no-progress",
        "--format",
        "parquet",
        "--partition-by",
        "year",
        "--batch-rows",
        "3",
        "-o",
        p(&shards),
        p(&file),
    ]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let y23 = shards.join("year=2023/part-0000.parquet");
    let y24 = shards.join("year=2024/part-0000.parquet");
    let (_, n23, b23) = read_parquet(&y23);
    let (_, n24, _) = read_parquet(&y24);
    let o = run(&["positions", "--no-progress", "--format", "json", p(&file)]);
    assert_eq!(n23 + n24, parse_lines(&stdout(&o)).len());
    assert!(b23 > 1, "row groups of 3 rows: {b23}");
    // Event shards leave the event column to the directory name.
    let ev = dir.path().join("ev");
    let o = run(&[
        "games",
        "--no-progress",
        "--format",
        "parquet",
        "--partition-by",
        "event",
        "-o",
        p(&ev),
        p(&file),
    ]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let dirs: Vec<String> = fs::read_dir(&ev)
        .expect("dir")
        .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(dirs.len(), 8, "one event a game: {dirs:?}");
    assert!(
        dirs.iter()
            .all(|d| d.starts_with("event=wdoor%2Bfloodgate-300-10F%2B")),
        "{dirs:?}"
    );
    let part = ev.join(&dirs[0]).join("part-0000.parquet");
    let (cols, _, _) = read_parquet(&part);
    assert!(!cols.iter().any(|c| c.starts_with("event:")), "{cols:?}");
    // A directory that holds files is not written into unless forced.
    let o = run(&[
        "games",
        "--no-progress",
        "--format",
        "parquet",
        "--partition-by",
        "event",
        "-o",
        p(&ev),
        p(&file),
    ]);
    assert_eq!(code(&o), 2, "{}", stderr(&o));
    // Parquet needs -o.
    let o = run(&["games", "--format", "parquet", p(&file)]);
    assert_eq!(code(&o), 2);
}

#[test]
fn csv_and_json_hold_the_same_rows() {
    let inputs = fixtures();
    let rows = games_json(&[p(&inputs)]);
    let o = run(&["games", "--no-progress", p(&inputs)]);
    let text = stdout(&o);
    let mut r = csv::Reader::from_reader(text.as_bytes());
    let header: Vec<String> = r
        .headers()
        .expect("header")
        .iter()
        .map(str::to_owned)
        .collect();
    let records: Vec<csv::StringRecord> = r.records().map(|x| x.expect("record")).collect();
    assert_eq!(records.len(), rows.len());
    let keys: Vec<&String> = rows[0].as_object().expect("object").keys().collect();
    assert_eq!(
        header.iter().collect::<Vec<_>>(),
        keys,
        "same columns, same order"
    );
    for (rec, row) in records.iter().zip(&rows) {
        for (name, cell) in header.iter().zip(rec.iter()) {
            let v = &row[name.as_str()];
            let expect = match v {
                Value::Null => String::new(),
                Value::String(s) => s.clone(),
                Value::Array(a) => a
                    .iter()
                    .map(|x| x.as_str().expect("text").to_owned())
                    .collect::<Vec<_>>()
                    .join(" "),
                Value::Number(n) if n.is_f64() => format!("{:?}", n.as_f64().expect("f64")),
                other => other.to_string(),
            };
            assert_eq!(cell, expect, "{name}");
        }
    }
    // -o FILE for text too.
    let dir = tempfile::tempdir().expect("tempdir");
    let out = dir.path().join("g.csv");
    let o = run(&["games", "--no-progress", "-o", p(&out), p(&inputs)]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    assert_eq!(fs::read_to_string(&out).expect("read"), text);
}

/// A file's rows as [`game_column`] reads them.
type Rows = Vec<(String, i64)>;

/// The `path` and `game` columns of a games file (the `move` and `ply` columns of a positions
/// one), row by row.
fn game_column(path: &Path) -> Rows {
    use arrow_array::{Array, Int32Array, Int64Array, StringArray};
    use parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;
    let f = fs::File::open(path).expect("open");
    let mut out = Vec::new();
    for b in ParquetRecordBatchReaderBuilder::try_new(f)
        .expect("parquet")
        .build()
        .expect("reader")
    {
        let b = b.expect("batch");
        if let Some(ply) = b.column_by_name("ply") {
            let ply = ply.as_any().downcast_ref::<Int32Array>().expect("ints");
            let mv = b.column_by_name("move").expect("move");
            let mv = mv.as_any().downcast_ref::<StringArray>().expect("strings");
            for i in 0..b.num_rows() {
                out.push((mv.value(i).to_owned(), i64::from(ply.value(i))));
            }
            continue;
        }
        let path = b.column_by_name("path").expect("path");
        let path = path
            .as_any()
            .downcast_ref::<StringArray>()
            .expect("strings");
        let game = b.column_by_name("game").expect("game");
        let game = game.as_any().downcast_ref::<Int64Array>().expect("ints");
        for i in 0..b.num_rows() {
            out.push((path.value(i).to_owned(), game.value(i)));
        }
    }
    out
}

/// Every file below `dir`, relative, sorted.
fn files_below(dir: &Path) -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = walkdir::WalkDir::new(dir)
        .into_iter()
        .map(|e| e.expect("walk"))
        .filter(|e| e.file_type().is_file())
        .map(|e| e.path().strip_prefix(dir).expect("below").to_path_buf())
        .collect();
    out.sort();
    out
}

/// `--partition-by event` over a stream whose events interleave: one file per event (it
/// wrote one at nearly every game when 16 shards were kept open), each event's games in
/// input order, and the same rows as the unpartitioned table; with runs small enough
/// (`--batch-rows`, hidden) to be spilled and merged, the same files.
#[test]
fn each_partition_is_written_once_however_its_rows_interleave() {
    let dir = tempfile::tempdir().expect("tempdir");
    let events = 37;
    let games: Vec<String> = (0..1000)
        .map(|i| {
            let k = (i * 7919) % events;
            format!(
                "V2.2\n$EVENT:e{k}\n$START_TIME:20{:02}/01/02\nPI\n+\n+7776FU\n-3334FU\n%TORYO\n",
                10 + k % 5
            )
        })
        .collect();
    let file = dir.path().join("events.csa");
    fs::write(&file, games.join("/\n")).expect("write");
    for (table, key, parts) in [("games", "event", events), ("positions", "year", 5)] {
        let mut seen: Option<Vec<(PathBuf, Rows)>> = None;
        for batch_rows in ["", "64", "1000000"] {
            let out = dir.path().join(format!("{table}{batch_rows}"));
            let mut args = vec![
                table,
                "--no-progress",
                "--format",
                "parquet",
                "--partition-by",
                key,
            ];
            if !batch_rows.is_empty() {
                args.extend(["--batch-rows", batch_rows]);
            }
            args.push("--columns");
            args.push(if table == "games" {
                "path,game,event"
            } else {
                "ply,move"
            });
            args.extend(["-o", p(&out), p(&file)]);
            let o = run(&args);
            assert_eq!(code(&o), 0, "{args:?}: {}", stderr(&o));
            let files = files_below(&out);
            assert_eq!(
                files.len(),
                parts,
                "{args:?}: one file per partition: {files:?}"
            );
            assert!(files.iter().all(|f| f.ends_with("part-0000.parquet")));
            let mut total = 0;
            let mut got = Vec::new();
            for f in &files {
                let rows = game_column(&out.join(f));
                // Input order within a partition (for the positions, plies 1, 2, 1, 2...).
                if table == "games" {
                    assert!(rows.windows(2).all(|w| w[0].1 < w[1].1), "{f:?}");
                } else {
                    assert!(
                        rows.iter()
                            .enumerate()
                            .all(|(i, r)| r.1 == 1 + i as i64 % 2),
                        "{f:?}"
                    );
                }
                total += rows.len();
                got.push((f.clone(), rows));
            }
            let per_game = if table == "games" { 1 } else { 2 };
            assert_eq!(total, 1000 * per_game, "{args:?}");
            if let Some(seen) = &seen {
                assert_eq!(seen, &got, "{args:?}: the same files whatever the runs");
            }
            seen = Some(got);
        }
    }
    let out = dir.path().join("games");
    let e5 = game_column(&out.join("event=e5/part-0000.parquet"));
    let expected: Vec<i64> = (0..1000i64)
        .filter(|i| (i * 7919) % events as i64 == 5)
        .collect();
    assert_eq!(e5.iter().map(|r| r.1).collect::<Vec<_>>(), expected);
}

/// `--columns`: the rows of the chosen columns, in the order given, are the full rows'
/// values in every format (CSV, JSON Lines, a Parquet file, shards), from games read the
/// judged as read (single CSA files) and from records (fixtures/); an unknown column is refused.
#[test]
fn chosen_columns_in_every_format() {
    let dir = tempfile::tempdir().expect("tempdir");
    let csa = dir.path().join("csa");
    fs::create_dir(&csa).expect("mkdir");
    for (i, moves) in [
        "+7776FU\n-3334FU\n+8822UM\n-3122GI\n+0055KA\n%TORYO\n",
        "+2726FU\n-8384FU\n%CHUDAN\n",
    ]
    .iter()
    .enumerate()
    {
        fs::write(
            csa.join(format!("{i}.csa")),
            format!("V2.2\nPI\n+\n{moves}"),
        )
        .expect("write");
    }
    let fixtures = fixtures();
    let inputs = [p(&csa), p(&fixtures)];
    for (table, names) in [
        ("positions", "sfen,move,result"),
        ("positions", "move,game_key,pv"),
        ("games", "plies,black,final_sfen,event"),
    ] {
        let chosen: Vec<&str> = names.split(',').collect();
        let full = parse_lines(&stdout(&run(&[
            &[table, "--no-progress", "--format", "json"][..],
            &inputs,
        ]
        .concat())));
        assert!(full.len() > 20, "{table}: {} rows", full.len());
        let want: Vec<Vec<Value>> = full
            .iter()
            .map(|r| chosen.iter().map(|c| r[*c].clone()).collect())
            .collect();
        // JSON Lines: the chosen keys in their order.
        let base = [table, "--no-progress", "--columns", names];
        let o = run(&[&base[..], &["--format", "json"], &inputs].concat());
        assert_eq!(code(&o), 0, "{}", stderr(&o));
        let got = parse_lines(&stdout(&o));
        for row in &got {
            let keys: Vec<&String> = row.as_object().expect("object").keys().collect();
            assert_eq!(keys, chosen);
        }
        let got: Vec<Vec<Value>> = got
            .iter()
            .map(|r| chosen.iter().map(|c| r[*c].clone()).collect())
            .collect();
        assert_eq!(got, want, "{table} {names}");
        // CSV: the full table's cells of those columns.
        let o = run(&[&base[..], &inputs].concat());
        let full_csv = stdout(&run(&[&[table, "--no-progress"][..], &inputs].concat()));
        let mut full_reader = csv::Reader::from_reader(full_csv.as_bytes());
        let header = full_reader.headers().expect("header").clone();
        let at: Vec<usize> = chosen
            .iter()
            .map(|c| header.iter().position(|h| h == *c).expect("column"))
            .collect();
        let mut reader = csv::Reader::from_reader(o.stdout.as_slice());
        assert_eq!(
            reader.headers().expect("header").iter().collect::<Vec<_>>(),
            chosen
        );
        let got: Vec<Vec<String>> = reader
            .records()
            .map(|r| r.expect("record").iter().map(str::to_owned).collect())
            .collect();
        let want: Vec<Vec<String>> = full_reader
            .records()
            .map(|r| {
                let r = r.expect("record");
                at.iter().map(|&i| r[i].to_owned()).collect()
            })
            .collect();
        assert_eq!(got, want, "{table} {names} CSV");
        // Parquet: those columns, typed, every row; shards by year and by event.
        let out = dir
            .path()
            .join(format!("{table}-{}.parquet", names.replace(',', "-")));
        let o = run(&[&base[..], &["--format", "parquet", "-o", p(&out)], &inputs].concat());
        assert_eq!(code(&o), 0, "{}", stderr(&o));
        let (cols, rows, _) = read_parquet(&out);
        let cols: Vec<&str> = cols
            .iter()
            .map(|c| c.split(':').next().expect("name"))
            .collect();
        assert_eq!((cols, rows), (chosen.clone(), full.len()));
        for by in ["year", "event"] {
            let shards = dir
                .path()
                .join(format!("{table}-{}-{by}", names.replace(',', "-")));
            let args = [
                "--format",
                "parquet",
                "--partition-by",
                by,
                "-o",
                p(&shards),
            ];
            let o = run(&[&base[..], &args, &inputs].concat());
            assert_eq!(code(&o), 0, "{}", stderr(&o));
            let mut total = 0;
            for part in walk_parquet(&shards) {
                let (cols, rows, _) = read_parquet(&part);
                let cols: Vec<&str> = cols
                    .iter()
                    .map(|c| c.split(':').next().expect("name"))
                    .collect();
                let kept: Vec<&str> = chosen
                    .iter()
                    .copied()
                    .filter(|c| !(by == "event" && table == "games" && *c == "event"))
                    .collect();
                assert_eq!(cols, kept, "{}", part.display());
                total += rows;
            }
            assert_eq!(total, full.len(), "{table} by {by}");
        }
    }
    for (args, says) in [
        (
            &["positions", "--columns", "sfen,eval"][..],
            "no column `eval`",
        ),
        (&["games", "--columns", "plies,plies"][..], "named twice"),
        (&["games", "--columns", "sfen"][..], "no column `sfen`"),
    ] {
        let o = run(&[args, &[p(&csa)]].concat());
        assert_eq!(code(&o), 2, "{args:?}");
        assert!(stderr(&o).contains(says), "{}", stderr(&o));
        let listed = stderr(&o).contains("the columns are:");
        assert_eq!(listed, !says.contains("twice"), "{}", stderr(&o));
    }
}

/// The Parquet files under `dir`, in order.
fn walk_parquet(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for e in fs::read_dir(dir).expect("dir") {
        let path = e.expect("entry").path();
        if path.is_dir() {
            out.extend(walk_parquet(&path));
        } else if path.extension().is_some_and(|x| x == "parquet") {
            out.push(path);
        }
    }
    out.sort();
    out
}

/// `games`/`positions -o` say what they wrote on stderr, as `convert` does (issue #47); `-q`
/// keeps quiet; to standard output the table speaks for itself.
#[test]
fn table_outputs_say_what_they_wrote() {
    let dir = tempfile::tempdir().expect("tempdir");
    let ok = fixtures().join("ok");
    let out = dir.path().join("g.csv");
    let o = run(&["games", "--no-progress", "-o", p(&out), p(&ok)]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let rows = fs::read_to_string(&out).expect("read").lines().count() - 1;
    let said = stderr(&o);
    assert!(
        said.contains(&format!("wrote {rows} game rows of {rows} games"))
            && said.contains("to 1 file\n"),
        "{said}"
    );
    let shards = dir.path().join("shards");
    let o = run(&[
        "positions",
        "--no-progress",
        "--format",
        "parquet",
        "--partition-by",
        "year",
        "-o",
        p(&shards),
        p(&ok),
    ]);
    let files = files_below(&shards).len();
    assert!(files >= 1);
    assert!(
        stderr(&o).contains(&format!("to {files} file")),
        "{}",
        stderr(&o)
    );
    let o = run(&["games", "-q", "--force", "-o", p(&out), p(&ok)]);
    assert_eq!(stderr(&o), "");
    let o = run(&["games", "--no-progress", p(&ok)]);
    assert!(!stderr(&o).contains("wrote"), "{}", stderr(&o));
}

/// Each positions row names its game's file and index as the games table does, so the two
/// join on `(path, game)` however the archive repeats a game: over a multi-game file long
/// enough to be read in several chunks (games numbered across them), repeated games, files
/// judged as read and from their records (a KIF with variations and comments), a zip, and
/// in CSV, JSON Lines and Parquet alike.
#[test]
fn positions_rows_name_their_game_as_the_games_table_does() {
    use std::collections::BTreeMap;
    let dir = tempfile::tempdir().expect("tempdir");
    // 600 games of one to four plies, every third the same as the one before it: well past a
    // positions chunk (32 KiB), so the file is cut into parts and read by two workers.
    let mut text = String::new();
    for i in 0..600 {
        let plies = ["+7776FU\n", "-3334FU\n", "+2726FU\n", "-8384FU\n"];
        let n = if i % 3 == 2 {
            (i - 1) % 4 + 1
        } else {
            i % 4 + 1
        };
        text.push_str(&format!(
            "V2.2\nN+b{i}\nN-w\nPI\n+\n{}%TORYO\n/\n",
            plies[..n].concat()
        ));
    }
    fs::write(dir.path().join("many.csa"), text).expect("write");
    let copy = |from: &str, to: &str| {
        fs::copy(fixtures().join("..").join(from), dir.path().join(to)).expect("copy");
    };
    copy("kif/variations.kifu", "a.kifu");
    copy("kif/variations.kifu", "b.kifu");
    copy("ki2/marks.ki2", "c.ki2");
    let entry = |name: &str, from: &str| {
        (
            name.to_owned(),
            fs::read(fixtures().join("..").join(from)).expect("read"),
        )
    };
    let zip = crate::archive::zip_of(
        &[
            entry("z/1.kifu", "kif/variations.kifu"),
            entry("z/2.csa", "csa/multi.csa"),
        ],
        true,
    );
    fs::write(dir.path().join("d.zip"), zip).expect("zip");
    let root = p(dir.path());
    let games = games_json(&[root]);
    let key_of: BTreeMap<(String, u64), (String, u64)> = games
        .iter()
        .map(|g| {
            let at = (
                g["path"].as_str().unwrap().to_owned(),
                g["game"].as_u64().unwrap(),
            );
            (
                at,
                (
                    g["game_key"].as_str().unwrap().to_owned(),
                    g["plies"].as_u64().unwrap(),
                ),
            )
        })
        .collect();
    assert_eq!(
        key_of.len(),
        games.len(),
        "(path, game) is unique in the games table"
    );
    assert!(games.len() >= 603);
    let o = run(&["positions", "--no-progress", "--format", "json", root]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let rows = parse_lines(&stdout(&o));
    let mut per_game: BTreeMap<(String, u64), u64> = BTreeMap::new();
    for r in &rows {
        let at = (
            r["path"].as_str().unwrap().to_owned(),
            r["game"].as_u64().unwrap(),
        );
        let (key, _) = key_of
            .get(&at)
            .unwrap_or_else(|| panic!("no game at {at:?}"));
        assert_eq!(r["game_key"].as_str(), Some(key.as_str()), "{at:?}");
        *per_game.entry(at).or_default() += 1;
    }
    // Every move of every game, and each game's rows under its own (path, game): the
    // repeated games (one key) keep their rows apart.
    for (at, (_, plies)) in &key_of {
        assert_eq!(per_game.get(at).copied().unwrap_or(0), *plies, "{at:?}");
    }
    // A game of many.csa repeated (games 1 and 2 are the same): one key, two games.
    let twice = |g: u64| &key_of[&(p(&dir.path().join("many.csa")).to_owned(), g)].0;
    assert_eq!(twice(1), twice(2));
    let copies = per_game.keys().filter(|at| key_of[*at].0 == *twice(1));
    assert!(copies.count() >= 2);
    // CSV and Parquet: the same cells.
    let o = run(&[
        "positions",
        "--no-progress",
        "--columns",
        "path,game,ply",
        root,
    ]);
    let csv: Vec<String> = stdout(&o).lines().skip(1).map(str::to_owned).collect();
    let want: Vec<String> = rows
        .iter()
        .map(|r| format!("{},{},{}", r["path"].as_str().unwrap(), r["game"], r["ply"]))
        .collect();
    assert_eq!(csv, want);
    let out = dir.path().join("p.parquet");
    let o = run(&[
        "positions",
        "--no-progress",
        "--format",
        "parquet",
        "-o",
        p(&out),
        root,
    ]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let (names, n, _) = read_parquet(&out);
    assert_eq!(n, rows.len());
    assert_eq!(names[..3], ["path:Utf8", "game:Int64", "game_key:Utf8"]);
}
