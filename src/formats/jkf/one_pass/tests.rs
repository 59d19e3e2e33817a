use super::*;
use crate::formats::{Format, WriteOptions, jkf};

/// What the one pass reads from `text` (analysis extracted, as `read` does), beside what the
/// general reader reads: the one pass must give up, or read the same record with the same
/// diagnostics.
fn both(
    text: &str,
) -> (
    Option<crate::formats::ParsedGame>,
    crate::formats::ParsedGame,
) {
    jkf::one_pass_and_general(text)
}

/// Whether the one pass read `text` (to the general reader's record and diagnostics, or the
/// test fails).
fn check(text: &str) -> bool {
    let (fast, general) = both(text);
    match fast {
        Some(g) => {
            assert_eq!(g.diagnostics, general.diagnostics, "{text}");
            assert_eq!(g.record, general.record, "{text}");
            true
        }
        None => false,
    }
}

const CSA: &str = "V2.2\nN+先手\nN-後手\n$EVENT:棋戦\nPI\n+\n'開始\n+7776FU\nT12\n\
    -3334FU\nT5\n'* 30 -8384FU\n+8822UM\n-3122GI\n+0045KA\n-2233GI\n+4523UM\n-3223KI\n%TORYO\n";

/// A set-up start (a board with hands in both, White to move) and two moves, as CSA.
const SETUP: &str = "V2.2\nP1-KY-KE-GI-KI-OU-KI-GI-KE-KY\nP2 * -HI *  *  *  *  * -KA * \n\
    P3-FU-FU-FU-FU-FU-FU * -FU-FU\nP4 *  *  *  *  *  * -FU *  * \nP5 *  *  *  *  *  *  *  *  * \n\
    P6 *  * +FU *  *  *  *  *  * \nP7+FU+FU * +FU+FU+FU+FU+FU+FU\nP8 * +KA *  *  *  *  * +HI * \n\
    P9+KY+KE+GI+KI+OU+KI+GI+KE+KY\nP+00FU00KI\nP-00FU00FU00GI\n-\n-8384FU\n+2726FU\n";

fn written(csa: &str) -> String {
    let g = crate::formats::read(Format::Csa, csa).remove(0);
    jkf::write(&g.record, &WriteOptions::default()).text
}

/// `json` (a document) with its `moves` first.
fn moves_first(json: &str) -> String {
    let serde_json::Value::Object(mut doc) = serde_json::from_str(json).expect("JSON") else {
        panic!("not an object: {json}");
    };
    let moves = doc.shift_remove("moves").expect("moves");
    let mut out = serde_json::Map::new();
    out.insert("moves".to_owned(), moves);
    out.extend(doc);
    serde_json::to_string(&out).expect("JSON")
}

/// A board of nine files of nine squares, empty but for `a` on 5a (file 5, rank 1) and `b`
/// on 1i.
fn board_with(a: &str, b: &str) -> String {
    let files: Vec<String> = (1..=9)
        .map(|x| {
            let cells: Vec<&str> = (1..=9)
                .map(|y| match (x, y) {
                    (5, 1) => a,
                    (1, 9) => b,
                    _ => "{}",
                })
                .collect();
            format!("[{}]", cells.join(","))
        })
        .collect();
    format!("[{}]", files.join(","))
}

/// The writer's output, pretty-printed, with escapes, old-style colours, `null`s, handicap
/// presets, setups, variations, keys the format does not define, and the header and the start
/// after the moves: all read by the one pass, to the general reader's record.
#[test]
fn plain_documents_are_read_in_one_pass_to_the_same_record() {
    let w = written(CSA);
    let pretty = serde_json::to_string_pretty(
        &serde_json::from_str::<serde_json::Value>(&w).expect("the writer writes JSON"),
    )
    .expect("pretty");
    let setup = written(SETUP);
    assert!(setup.contains("\"OTHER\""), "{setup}");
    let setup_pretty = serde_json::to_string_pretty(
        &serde_json::from_str::<serde_json::Value>(&setup).expect("the writer writes JSON"),
    )
    .expect("pretty");
    let texts = [
        w.clone(),
        setup,
        setup_pretty.replace('\n', "\r\n"),
        // No preset, the data first, old-style colours, an empty hand, a hand of one kind, a
        // key the format does not define.
        format!(
            r#"{{"initial":{{"data":{{"board":{},"hands":[{{}},{{"FU":2}}],"color":true,"x":[1]}}}},"moves":[{{}}]}}"#,
            board_with("{\"color\":false,\"kind\":\"OU\"}", "{\"color\":1,\"kind\":\"TO\"}")
        ),
        // A standard preset names the start, whatever its data sets up.
        format!(
            r#"{{"initial":{{"data":{{"board":{}}},"preset":"HIRATE"}},"moves":[{{}}]}}"#,
            board_with("{}", "{}")
        ),
        pretty.replace('\n', "\r\n"),
        pretty.replace('\n', "\r"),
        pretty.replace("\"FU\"", "\"FU\" \r\n\t"),
        pretty,
        r#"{"header":{"先手":"A\"\u3042\ud83d\ude00\n","x":null,"先手":"B"},"initial":null,
          "moves":[{"comments":["a\tb"]},
          {"move":{"color":true,"from":{"x":7,"y":7},"to":{"x":7,"y":6},"piece":"FU"},
           "time":{"now":{"m":1,"s":2},"total":{"h":1,"m":0,"s":2}},"comments":"one",
           "forks":[[{"move":{"color":0,"from":{"x":2,"y":7},"to":{"x":2,"y":6},"piece":"FU"},
                      "forks":[[{"special":"CHUDAN"}],[]]},
                     {"move":{"color":1,"to":{"x":5,"y":5},"piece":"KA","relative":"H","from":null}}]]},
          {"move":{"color":false,"same":true,"piece":"FU","promote":null,"capture":"FU"}},
          {"move":null,"special":"TORYO","comments":null,"forks":null}]}"#
            .to_owned(),
        r#" {"initial":{"preset":"KY"},"moves":[]} "#.to_owned(),
        r#"{"initial":{"preset":"HIRATE"},"header":null,"moves":[{}]}"#.to_owned(),
        r#"{"header":{},"moves":[{},{"special":"TORYO"}]}"#.to_owned(),
        // Keys the format does not define, with values of every type, where the general reader
        // ignores them: the document, `initial`, a setup's `data`, the start's entry, an
        // entry, a time.
        r#"{"extra":{"a":[1,-2.5,3e2,-0.0e-12,"\u00e9\"",null,true,false,{}],"b":[]},
          "moves":[{"note":"x","comments":["c"]},
          {"move":{"color":0,"from":{"x":7,"y":7},"to":{"x":7,"y":6},"piece":"FU"},"x":{"y":[1]},
           "time":{"now":{"m":1,"s":2,"ms":5},"total":{"h":0,"m":1,"s":2},"unit":"s"}},
          {"special":"TORYO","z":null}],"x":1,"x":2}"#
            .to_owned(),
        r#"{"initial":{"preset":"HIRATE","note":"平手"},"moves":[{}],"version":"1.0"}"#.to_owned(),
        // The header and the start after the moves: told in order all the same.
        r#" {"moves":[],"initial":{"preset":"KY"}} "#.to_owned(),
        r#"{"header":null,"moves":[{}],"initial":{"preset":"HIRATE"}}"#.to_owned(),
        "{\"moves\":[{},\r\n {\"special\":\"TORYO\"}],\n\"header\":{\"先手\":\"あ\"},\"x\":1}".to_owned(),
        moves_first(&written(SETUP)),
        // Header values that are no strings, kept as JSON writes them.
        r#"{"header":{"手数":120,"公式":true,"非公式":false,"空":null,"零":0},"moves":[{}]}"#.to_owned(),
    ];
    for t in &texts {
        assert!(check(t), "the one pass gave up on\n{t}");
    }
    // The spans are the entries' places, CR LF line ends and wide characters counted.
    let g = both("{\"header\":{\"先手\":\"あ\"},\r\n\"moves\":[{},\r\n  {\"special\":\"TORYO\"}]}")
        .0
        .expect("plain")
        .record;
    assert_eq!((g.moves[0].span.line, g.moves[0].span.column), (3, 3));
}

/// What the one pass leaves to the general reader: the diagnostics it does not give itself,
/// keys repeated, keys the format does not define inside a move, values of other types or
/// numbers written otherwise, setups of another shape, deep variations, and a fork that is no
/// line.
#[test]
fn the_one_pass_gives_up_on_anything_else() {
    let mut deep = String::from(r#"{"moves":[{},"#);
    for _ in 0..=MAX_ONE_PASS_FORKS {
        deep.push_str(r#"{"special":"TORYO","forks":[["#);
    }
    deep.push_str(r#"{"special":"TORYO"}"#);
    for _ in 0..=MAX_ONE_PASS_FORKS {
        deep.push_str("]]}");
    }
    deep.push_str("]}");
    let texts = [
        deep.as_str(),
        // Keys the format does not define: in a move (its raw text would be serde_json's), a
        // value nested too deep, numbers serde_json reads otherwise or not at all, a lone
        // surrogate.
        r#"{"moves":[{},{"move":{"color":0,"from":{"x":7,"y":7},"to":{"x":7,"y":6},"piece":"FU","x":1}}]}"#,
        r#"{"x":[[[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]],"moves":[{}]}"#,
        r#"{"x":1e400,"moves":[{}]}"#,
        r#"{"x":01,"moves":[{}]}"#,
        r#"{"x":-,"moves":[{}]}"#,
        r#"{"x":1.,"moves":[{}]}"#,
        r#"{"x":"\ud800","moves":[{}]}"#,
        r#"{"x":1,"x":[1,],"moves":[{}]}"#,
        // A key repeated where the document is read in order; what follows the document.
        r#"{"moves":[{}],"header":{"a":"b"},"moves":[]}"#,
        r#"{"moves":[{}],"header":{"a":"b"}} x"#,
        r#"{"moves":[{},{"special":"TORYO"}],"moves":[]}"#,
        r#"{"moves":[{},{"move":{"color":0,"from":{"x":7,"y":7},"to":{"x":7,"y":6},"piece":"FU","piece":"FU"}}]}"#,
        r#"{"moves":[{},{"move":{"color":0,"from":{"x":7,"y":7},"to":{"x":7,"y":6.0},"piece":"FU"}}]}"#,
        r#"{"moves":[{},{"move":{"color":0,"from":{"x":7,"y":7},"to":{"x":07,"y":6},"piece":"FU"}}]}"#,
        r#"{"moves":[{},{"move":{"color":0,"from":{"x":7,"y":7},"to":{"x":7,"y":6},"piece":"F\u0055"}}]}"#,
        r#"{"initial":{"preset":"OTHER","data":{"board":[]}},"moves":[{}]}"#,
        r#"{"header":{"a":1.0},"moves":[{}]}"#,
        r#"{"header":{"a":-1},"moves":[{}]}"#,
        r#"{"header":{"a":[]},"moves":[{}]}"#,
        r#"{"header":{"a":"\ud800"},"moves":[{}]}"#,
        r#"{"moves":[{},{"special":"TORYO"}]} x"#,
        r#"{"moves":[{},{"special":"TORYO"}]"#,
        "{\"moves\":[{},{\"special\":\"TO\u{1}RYO\"}]}",
        "",
        // A fork that is no line (the general reader then knows no entry's place).
        r#"{"moves":[{},{"special":"TORYO","forks":[5,[{"special":"CHUDAN"}]]}]}"#,
    ];
    for t in texts {
        assert!(!check(t), "the one pass read\n{t}");
    }
    // Setups the general reader says something about, or reads in a way of its own.
    let empty = "{}";
    let setup = |data: String| {
        format!(r#"{{"initial":{{"preset":"OTHER","data":{data}}},"moves":[{{}}]}}"#)
    };
    let board = board_with(empty, empty);
    let setups = [
        // No board; eight files; a file of eight squares; half a piece; a piece of no kind;
        // a side that is no side.
        setup(r#"{"color":0}"#.to_owned()),
        setup(format!(
            r#"{{"board":{}}}"#,
            board.replacen("],[", "],", 1).replacen("[{}", "", 1)
        )),
        setup(format!(r#"{{"board":{}}}"#, board.replacen("{},", "", 1))),
        setup(format!(
            r#"{{"board":{}}}"#,
            board_with(r#"{"color":0}"#, empty)
        )),
        setup(format!(
            r#"{{"board":{}}}"#,
            board_with(r#"{"color":0,"kind":"XX"}"#, empty)
        )),
        setup(format!(r#"{{"board":{},"color":2}}"#, board)),
        // A third hand, a promoted kind in hand, a kind named twice, a count written otherwise.
        setup(format!(r#"{{"board":{board},"hands":[{{}},{{}},{{}}]}}"#)),
        setup(format!(r#"{{"board":{board},"hands":[{{"TO":1}},{{}}]}}"#)),
        setup(format!(
            r#"{{"board":{board},"hands":[{{"FU":1,"FU":2}},{{}}]}}"#
        )),
        setup(format!(
            r#"{{"board":{board},"hands":[{{"FU":1.0}},{{}}]}}"#
        )),
        // A key the format does not define in a cell (the general reader calls the cell
        // bad).
        setup(format!(
            r#"{{"board":{}}}"#,
            board_with(r#"{"x":1}"#, empty)
        )),
    ];
    for t in &setups {
        assert!(!check(t), "the one pass read\n{t}");
    }
}

/// Entries the general reader reports (a move it cannot read, an entry with neither a move nor
/// a special) and values of other types than the format's, which it takes as none: read by
/// the one pass with the general reader's diagnostics, in its order, and its record (the
/// entry left out with its forks, its ply still counted).
#[test]
fn entries_the_general_reader_reports_are_read_with_its_diagnostics() {
    let mv = |from: &str, to: &str, piece: &str| {
        format!(r#"{{"move":{{"color":0,"from":{from},"to":{to},"piece":"{piece}"}}}}"#)
    };
    let p76 = mv(r#"{"x":7,"y":7}"#, r#"{"x":7,"y":6}"#, "FU");
    let p34 = r#"{"move":{"color":1,"from":{"x":3,"y":3},"to":{"x":3,"y":4},"piece":"FU"}}"#;
    let doc = |entries: &[&str]| format!(r#"{{"moves":[{{}},{}]}}"#, entries.join(","));
    let reported = [
        // No piece the reader knows; a square off the board; a coordinate missing or not a
        // number; `same` with no move before it; a `from` that is no square.
        doc(&[&mv(r#"{"x":7,"y":7}"#, r#"{"x":7,"y":6}"#, "XX"), p34]),
        doc(&[&mv(r#"{"x":0,"y":7}"#, r#"{"x":7,"y":6}"#, "FU"), p34]),
        doc(&[&mv(r#"{"x":7}"#, r#"{"x":7,"y":6}"#, "FU"), p34]),
        doc(&[&mv(r#"{"x":7,"y":"7"}"#, r#"{"x":7,"y":6}"#, "FU"), p34]),
        doc(&[&mv("7", r#"{"x":7,"y":6}"#, "FU"), p34]),
        doc(&[r#"{"move":{"color":0,"same":true,"piece":"FU"}}"#, p34]),
        // A move it cannot read, with forks (not read), comments and a time after them; in a
        // variation, after a move it reads.
        doc(&[
            &format!(
                r#"{{"move":{{"piece":"XX"}},"forks":[[{p34}]],"comments":["c"],"time":{{"now":{{"m":1,"s":0}}}}}}"#
            ),
            p34,
        ]),
        doc(&[&format!(
            r#"{p76_open},"forks":[[{p34},{{"move":{{"piece":"FU"}}}}]]}}"#,
            p76_open = p76.strip_suffix('}').expect("an object")
        )]),
        // An entry left out before one with forks, on the main line and in a fork: the
        // variations branch where the record has the move (found by the fuzzer).
        doc(&[
            r#"{"comments":["x"]}"#,
            &format!(
                r#"{p76_open},"forks":[[{p34}],[{{"special":1}},{p76_open},"forks":[[{p34}]]}}]]}}"#,
                p76_open = p76.strip_suffix('}').expect("an object")
            ),
        ]),
        // Forks written before the entry's move: of a move it cannot read (not read), of an
        // entry with neither (not read).
        doc(&[&format!(r#"{{"forks":[[{p34}]],"move":{{"piece":"XX"}}}}"#)]),
        doc(&[&format!(r#"{{"forks":[[{p34}]],"comments":["c"]}}"#)]),
        // Neither a move nor a special: only comments, a null move, a special that is no
        // string; with forks.
        doc(&[r#"{"comments":["x"]}"#, p34]),
        doc(&[r#"{"move":null,"time":{"now":{"m":0,"s":1}}}"#]),
        doc(&[r#"{"special":1,"forks":[[{"special":"TORYO"}]]}"#]),
    ];
    for t in &reported {
        assert!(check(t), "the one pass gave up on\n{t}");
        assert!(!both(t).1.diagnostics.is_empty(), "no diagnostic for\n{t}");
    }
    // Values of other types taken as none, with no diagnostic: a side that is none, `same`
    // and `promote` that are no truth values, a `relative` that is no string, comments that
    // are no strings, a time or forks that are no object or array.
    let none = [
        doc(&[
            r#"{"move":{"color":2,"from":{"x":7,"y":7},"to":{"x":7,"y":6},"piece":"FU","same":1,"promote":"no","relative":3}}"#,
        ]),
        doc(&[
            r#"{"move":{"color":"x","from":null,"to":{"x":5,"y":5},"piece":"KA","capture":null},"comments":5}"#,
        ]),
        doc(&[&format!(
            r#"{p76_open},"time":"1:00","forks":7}}"#,
            p76_open = p76.strip_suffix('}').expect("an object")
        )]),
        r#"{"moves":[{"comments":{"a":1}},{"special":"TORYO","comments":true}]}"#.to_owned(),
    ];
    // Forks written before the entry's move or special, read once the entry is.
    let none = none.into_iter().chain([
        r#"{"moves":[{},{"forks":[[{"special":"CHUDAN"}]],"special":"TORYO"}]}"#.to_owned(),
        doc(&[&format!(
            r#"{{"forks":[[{p34},{{"forks":[[{p34}]],"special":"CHUDAN"}}]],"comments":["c"],"move":{}}}"#,
            &p76[8..p76.len() - 1]
        )]),
    ]);
    for t in none {
        assert!(check(&t), "the one pass gave up on\n{t}");
        assert!(both(&t).1.diagnostics.is_empty(), "a diagnostic for\n{t}");
    }
    // The document's own: no `moves`; a start the general reader cannot take (an unknown
    // preset, a setup without data, an `initial` that is no object); entries that are no
    // objects (the start's entry holds no comment then).
    let document = [
        r#"{"header":{"a":"b"},"initial":{"preset":"KY"}}"#,
        r#"{"initial":{"preset":"NONE"},"moves":[{},{"special":"TORYO"}]}"#,
        r#"{"initial":{"preset":"OTHER"},"moves":[{}]}"#,
        r#"{"initial":{},"moves":[{}]}"#,
        r#"{"moves":[{}],"initial":5}"#,
        r#"{"moves":[5,{"special":"TORYO"},null,[1],"x",{"special":"CHUDAN"}]}"#,
    ];
    for t in document {
        assert!(check(t), "the one pass gave up on\n{t}");
        assert!(!both(t).1.diagnostics.is_empty(), "no diagnostic for\n{t}");
    }
    // Values taken as the general reader takes them: comments that are no strings kept as
    // JSON writes them; times whose fields are fractions (rounded to the millisecond),
    // negative, of other types, or no object at all (0).
    let taken = [
        r#"{"moves":[{"comments":[1,true,null,"a"]},{"special":"TORYO","comments":[false]}]}"#,
        r#"{"moves":[{},{"special":"TORYO","time":{"now":{"m":1.5,"s":-2,"h":"x"},"total":null}}]}"#,
        r#"{"moves":[{},{"special":"TORYO","time":{"now":{"s":0.0016},"total":{"h":1e1,"m":2.5e-1}}}]}"#,
        r#"{"moves":[{},{"special":"TORYO","time":{"now":5,"total":{"s":[1]}}}]}"#,
    ];
    for t in taken {
        assert!(check(t), "the one pass gave up on\n{t}");
        assert!(both(t).1.diagnostics.is_empty(), "a diagnostic for\n{t}");
    }
}

/// Every one-byte change of a plain document (each byte removed, or replaced by a character
/// that matters to JSON), of a game from the even start and of one from a setup: the one pass
/// reads the general reader's record or gives up.
#[test]
fn mutated_documents_read_the_same_or_fall_back() {
    for w in [written(CSA), written(SETUP), moves_first(&written(CSA))] {
        mutated_read_the_same_or_fall_back(&w);
    }
}

fn mutated_read_the_same_or_fall_back(w: &str) {
    let b = w.as_bytes();
    let mut read_fast = 0;
    for i in 0..b.len() {
        for with in [
            None,
            Some(b'"'),
            Some(b'}'),
            Some(b','),
            Some(b'1'),
            Some(b' '),
            Some(b'\r'),
            Some(b'\n'),
        ] {
            let mut m = b[..i].to_vec();
            m.extend(with);
            m.extend_from_slice(&b[i + 1..]);
            if let Ok(t) = String::from_utf8(m) {
                read_fast += usize::from(check(&t));
            }
        }
    }
    // Some changes leave a plain document (a digit for a digit, a space between tokens).
    assert!(read_fast > 0);
}

/// The raw text of a move is the compact JSON serde_json writes, however the file is laid out.
#[test]
fn compact_removes_whitespace_between_tokens_only() {
    let t = "{ \"a\" :\r\n {\"x\":\t1}, \"b\": \"c d\" }";
    assert_eq!(compact(t), r#"{"a":{"x":1},"b":"c d"}"#);
    assert!(matches!(compact(r#"{"a":1}"#), Cow::Borrowed(_)));
}

/// The JKF files of the shared corpus (skipped when it is absent): each read by the one pass
/// or left to the general reader, to the same record.
#[test]
fn corpus_jkf_files_read_the_same() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/corpus");
    if !root.is_dir() {
        eprintln!("skip: ../shared/corpus is missing");
        return;
    }
    let mut stack = vec![root];
    let mut seen = 0;
    while let Some(dir) = stack.pop() {
        let Ok(rd) = std::fs::read_dir(&dir) else {
            continue;
        };
        for e in rd.flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|x| x == "jkf")
                && let Ok(t) = std::fs::read_to_string(&p)
            {
                check(t.trim_start_matches('\u{FEFF}'));
                seen += 1;
            }
        }
    }
    assert!(seen > 0);
}
