//! A multi-game file gives the same reports whatever its size: read whole (under the chunk
//! size) or in chunks cut at game boundaries (over it). The same games are written small (on
//! their own) and large (after thousands of filler games, so that they fall in a later chunk),
//! and their JSON lines are compared game by game (issue #20: the encoding was decided from
//! the first chunk alone, and the chunker and the CSA reader did not agree on what a `/`
//! separator line is).

use std::path::Path;
use std::process::Command;

use serde_json::Value;

/// Filler games before the games compared: well over the chunk size in all.
const FILLER: usize = 16_000;

/// The JSON lines of `kifu validate --format json FILE`, without the summary.
fn reports(path: &Path) -> Vec<Value> {
    let out = Command::new(env!("CARGO_BIN_EXE_kifu"))
        .args(["validate", "--format", "json", "--no-progress"])
        .arg(path)
        .output()
        .expect("run kifu");
    let text = String::from_utf8(out.stdout).expect("UTF-8 output");
    let mut lines: Vec<Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).expect("JSON line"))
        .collect();
    let summary = lines.pop().expect("a summary line");
    assert!(summary.get("summary").is_some(), "{summary}");
    lines
}

/// A game's report as compared: without its path and index, its lines moved up by `offset`.
fn comparable(mut v: Value, offset: u64) -> Value {
    let o = v.as_object_mut().expect("an object");
    o.remove("path");
    o.remove("game");
    if let Some(Value::Array(diags)) = o.get_mut("diagnostics") {
        for d in diags {
            if let Some(line) = d.get_mut("line")
                && let Some(n) = line.as_u64()
            {
                *line = Value::from(n - offset);
            }
        }
    }
    v
}

/// Writes `games` alone, and after [`FILLER`] copies of `filler`, each game followed by
/// `sep`; checks the large file's last games report as the small file's games do. Returns the
/// small file's reports.
fn same_small_and_large(name: &str, filler: &[u8], games: &[Vec<u8>], sep: &[u8]) -> Vec<Value> {
    let dir = tempfile::tempdir().expect("tempdir");
    let join = |parts: &mut dyn Iterator<Item = &[u8]>| {
        let mut out = Vec::new();
        for (i, p) in parts.enumerate() {
            if i > 0 {
                out.extend_from_slice(sep);
            }
            out.extend_from_slice(p);
        }
        out
    };
    let small = join(&mut games.iter().map(Vec::as_slice));
    let mut large_parts: Vec<&[u8]> = vec![filler; FILLER];
    large_parts.extend(games.iter().map(Vec::as_slice));
    let large = join(&mut large_parts.into_iter());
    assert!(
        large.len() > kifu_app::batch::discover::CHUNK_BYTES + 4096,
        "{name}: large enough to be cut"
    );
    let count_lines = |b: &[u8]| {
        let text = String::from_utf8_lossy(b)
            .replace("\r\n", "\n")
            .replace('\r', "\n");
        text.matches('\n').count() as u64
    };
    // Lines before the first compared game in the large file.
    let mut before = Vec::new();
    for _ in 0..FILLER {
        before.extend_from_slice(filler);
        before.extend_from_slice(sep);
    }
    let offset = count_lines(&before);
    let ext = if name.starts_with("csa") {
        "csa"
    } else {
        "usi"
    };
    let (sp, lp) = (
        dir.path().join(format!("small.{ext}")),
        dir.path().join(format!("large.{ext}")),
    );
    std::fs::write(&sp, &small).expect("write");
    std::fs::write(&lp, &large).expect("write");
    let small = reports(&sp);
    let large = reports(&lp);
    assert_eq!(small.len(), games.len(), "{name}: small {small:?}");
    // A byte no encoding decodes is the finding of the game that holds it, and of no other.
    for (i, (report, game)) in small.iter().zip(games).enumerate() {
        let codes = report["diagnostics"].as_array().expect("diagnostics");
        let has = codes.iter().any(|d| d["code"] == "encoding");
        assert_eq!(has, game.contains(&0xFF), "{name}: game {i}: {report}");
    }
    assert_eq!(
        large.len(),
        FILLER + games.len(),
        "{name}: games in the large file"
    );
    // The filler games all report alike.
    let first = comparable(large[0].clone(), 0);
    for (i, r) in large.iter().take(FILLER).enumerate() {
        let lines = count_lines(filler) + count_lines(sep);
        assert_eq!(
            comparable(r.clone(), lines * i as u64),
            first,
            "{name}: filler game {i}"
        );
    }
    for (i, s) in small.iter().enumerate() {
        assert_eq!(
            comparable(large[FILLER + i].clone(), offset),
            comparable(s.clone(), 0),
            "{name}: game {i} small and large"
        );
    }
    small
}

fn sjis(s: &str) -> Vec<u8> {
    encoding_rs::SHIFT_JIS.encode(s).0.into_owned()
}

#[test]
fn csa_games_report_alike_in_small_and_large_files() {
    let filler = b"V2.2\nN+a\nN-b\nPI\n+\n+7776FU\nT1\n-3334FU\nT2\n%TORYO".to_vec();
    // Plain ASCII games, one with a foul, then a game whose names are Shift_JIS.
    let games = vec![
        b"V2.2\nN+x\nN-y\nPI\n+\n+2726FU\n-8384FU\n%TORYO".to_vec(),
        b"V2.2\nPI\n+\n+7776FU\n-3334FU\n+2838HI\n%TORYO".to_vec(),
        sjis("V2.2\nN+先手名人\nN-後手\n'対局の感想\nPI\n+\n+7776FU\n%TORYO"),
        b"PI\n+\n+5958OU\n-5152OU".to_vec(),
        // A byte that no encoding decodes, in a comment of the last game: its `encoding`
        // finding is the last game's, not the first game's of the file or of the chunk.
        b"V2.2\nPI\n+\n+7776FU\n'bad \xFF byte\n-3334FU\n%TORYO".to_vec(),
    ];
    same_small_and_large("csa: Shift_JIS after ASCII", &filler, &games, b"\n/\n");
    // Separators with blanks around the `/`: one rule for the chunker and the reader.
    for sep in [&b"\n/ \n"[..], b"\n/\t\n", b"\n /\n", b"\n/  \r\n"] {
        same_small_and_large("csa: blanks around /", &filler, &games, sep);
    }
    // CR LF and CR-only line ends: the chunker cuts at them as the reader reads them.
    for eol in [&b"\r\n"[..], b"\r"] {
        let re = |b: &[u8]| {
            String::from_utf8_lossy(b)
                .replace('\n', std::str::from_utf8(eol).unwrap_or("\n"))
                .into_bytes()
        };
        let games: Vec<Vec<u8>> = games
            .iter()
            .map(|g| {
                // Keep the Shift_JIS bytes: replace line ends bytewise.
                let mut out = Vec::new();
                for &b in g {
                    if b == b'\n' {
                        out.extend_from_slice(eol);
                    } else {
                        out.push(b);
                    }
                }
                out
            })
            .collect();
        same_small_and_large("csa: line ends", &re(&filler), &games, &re(b"\n/\n"));
    }
}

/// Issue #45: files joined with `cat` keep each file's BOM at the start of its game, inside a
/// chunk or as a chunk's first bytes. Such a game reads as it does alone (it was a `syntax`
/// error wherever its BOM was not the first bytes of the text read).
#[test]
fn csa_games_starting_with_a_bom_report_alike_in_small_and_large_files() {
    let bom = |g: &[u8]| [&b"\xEF\xBB\xBF"[..], g].concat();
    let filler = bom(b"V2.2\nN+a\nN-b\nPI\n+\n+7776FU\nT1\n-3334FU\nT2\n%TORYO");
    let games = vec![
        bom(b"V2.2\nN+x\nN-y\nPI\n+\n+2726FU\n-8384FU\n%TORYO"),
        bom(b"PI\n+\n+7776FU\n-3334FU\n+8822UM\n%TORYO"),
        bom("V2.2\nN+先手名人\nN-後手\nPI\n+\n+7776FU\n%TORYO".as_bytes()),
    ];
    let small = same_small_and_large("csa: a BOM before each game", &filler, &games, b"\n/\n");
    let codes: Vec<Vec<&str>> = small
        .iter()
        .map(|r| {
            r["diagnostics"]
                .as_array()
                .expect("diagnostics")
                .iter()
                .filter_map(|d| d["code"].as_str())
                .collect()
        })
        .collect();
    assert_eq!(codes, vec![Vec::<&str>::new(); 3], "{small:?}");
}

#[test]
fn usi_games_report_alike_in_small_and_large_files() {
    let filler = b"startpos moves 7g7f 3c3d 8h2b+ 3a2b".to_vec();
    let games = vec![
        b"startpos moves 2g2f 8c8d".to_vec(),
        // A comment line in Shift_JIS: the encoding is told by its chunk.
        sjis("# 第1局　先手：名人"),
        b"startpos moves 7g7f 3c3d 2h3h 4a3b 3h3c".to_vec(),
        b"sfen lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1 moves 5i5h".to_vec(),
    ];
    // The comment line is not a game: the small file has three.
    for eol in [&b"\n"[..], b"\r\n", b"\r"] {
        same_small_and_large_usi(&filler, &games, eol);
    }
}

/// [`same_small_and_large`] for USI, where a comment line is no game.
fn same_small_and_large_usi(filler: &[u8], games: &[Vec<u8>], eol: &[u8]) {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut small = Vec::new();
    for g in games {
        small.extend_from_slice(g);
        small.extend_from_slice(eol);
    }
    let mut large = Vec::new();
    for _ in 0..FILLER {
        large.extend_from_slice(filler);
        large.extend_from_slice(eol);
    }
    large.extend_from_slice(&small);
    let (sp, lp) = (dir.path().join("small.usi"), dir.path().join("large.usi"));
    std::fs::write(&sp, &small).expect("write");
    std::fs::write(&lp, &large).expect("write");
    let small = reports(&sp);
    let large = reports(&lp);
    assert_eq!(small.len(), games.len() - 1, "{eol:?}: {small:?}");
    assert_eq!(large.len(), FILLER + small.len(), "{eol:?}");
    for (i, s) in small.into_iter().enumerate() {
        assert_eq!(
            comparable(large[FILLER + i].clone(), FILLER as u64),
            comparable(s, 0),
            "{eol:?}: game {i} small and large"
        );
    }
    for (i, r) in large.iter().take(FILLER).enumerate() {
        assert_eq!(r["plies"], 4, "{eol:?}: filler game {i}");
        assert_eq!(
            r["diagnostics"],
            Value::Array(vec![]),
            "{eol:?}: filler {i}"
        );
    }
}
