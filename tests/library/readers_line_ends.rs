//! LF, CR LF and a lone CR are all line ends, in every reader, and line numbers count them
//! alike: every fixture read with each of the three gives the same games, the same spans and
//! the same diagnostics (issue #20: a KIF with CR-only line ends read as one header value and
//! passed with 0 plies).

use crate::common;

use std::path::Path;

use kifu::formats::{self, Format, ReadOptions};
use kifu::validate::{self, Options};

/// The text with every line end made `eol`.
fn with_line_ends(text: &str, eol: &str) -> String {
    text.replace("\r\n", "\n")
        .replace('\r', "\n")
        .replace('\n', eol)
}

/// The fixtures, decoded, with their format.
fn fixtures() -> Vec<(String, Format, String)> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures");
    let mut out = Vec::new();
    for path in common::files_with(&root, &[]) {
        let Some(hint) = path
            .extension()
            .and_then(|e| e.to_str())
            .and_then(Format::from_extension)
        else {
            continue;
        };
        let bytes = std::fs::read(&path).expect("read fixture");
        let opts = ReadOptions {
            hint: Some(hint),
            ..ReadOptions::default()
        };
        let text = opts.decode(&bytes).text;
        let format = opts.detect(&text).expect("a fixture's format is told");
        out.push((path.display().to_string(), format, text));
    }
    assert!(out.len() > 30, "fixtures found: {}", out.len());
    out
}

#[test]
fn every_fixture_reads_the_same_with_lf_crlf_and_cr_line_ends() {
    for (path, format, text) in fixtures() {
        let lf = with_line_ends(&text, "\n");
        let want = formats::read(format, &lf);
        assert!(!want.is_empty(), "{path}");
        let reports: Vec<_> = validate::validate_text(format, &lf, &Options::default());
        for eol in ["\r\n", "\r"] {
            let other = with_line_ends(&text, eol);
            assert_eq!(
                formats::read(format, &other),
                want,
                "{path} read with {eol:?} line ends"
            );
            // CSA and USI judged as read too.
            assert_eq!(
                validate::validate_text(format, &other, &Options::default()),
                reports,
                "{path} validated with {eol:?} line ends"
            );
            // And from bytes: declarations, format detection and the whole read.
            let read = formats::read_bytes(other.as_bytes(), &ReadOptions::default());
            let lf_read = formats::read_bytes(lf.as_bytes(), &ReadOptions::default());
            assert_eq!(read.format, lf_read.format, "{path} {eol:?}");
            assert_eq!(read.games, lf_read.games, "{path} {eol:?}");
        }
    }
}

#[test]
fn a_cr_only_kif_reads_its_moves() {
    let kif = "先手：甲\r後手：乙\r手数----指手---------消費時間--\r   1 ７六歩(77)\r   2 ３四歩(33)\r   3 投了\r";
    for format in [Format::Kifu, Format::Kif] {
        let games = formats::read(format, kif);
        assert_eq!(games.len(), 1);
        let g = &games[0];
        assert_eq!(g.record.plies(), 2);
        assert_eq!(g.record.header.get("先手"), Some("甲"));
        assert_eq!(g.record.header.get("後手"), Some("乙"));
        assert!(g.diagnostics.is_empty(), "{:?}", g.diagnostics);
        assert_eq!(g.record.moves[1].span.line, 5);
    }
    let ki2 = "先手：甲\r▲７六歩\u{3000}△３四歩\r▲２二角成\rまで3手で先手の勝ち\r";
    let g = &formats::read(Format::Ki2u, ki2)[0];
    assert_eq!(g.record.plies(), 3);
    assert_eq!(g.record.moves[2].span.line, 3);
    // Read from bytes, the format is told by the content.
    let d = formats::read_bytes(kif.as_bytes(), &ReadOptions::default());
    assert_eq!(d.format, Some(Format::Kifu));
    assert_eq!(d.games[0].record.plies(), 2);
}

#[test]
fn line_numbers_count_cr_lf_and_crlf_alike() {
    // A syntax error on line 4, a lone CR between lines 1 and 2, CR LF after line 2.
    let csa = "V2.2\rPI\r\n+\n+7776FU\r-3334XX\n";
    let g = &formats::read(Format::Csa, csa)[0];
    assert_eq!(g.diagnostics[0].line, Some(5), "{:?}", g.diagnostics);
    let usi = "startpos moves 7g7f\rstartpos moves 2g2f\r\nstartpos moves 9z9z\n";
    let games = formats::read(Format::Usi, usi);
    assert_eq!(games.len(), 3);
    assert_eq!(games[2].diagnostics[0].line, Some(3));
    // JKF: the JSON error's line counts CRs as serde_json does not.
    let jkf = "{\r  \"header\": {},\r  \"moves\": [\r    {},\r    {\"move\": }\r  ]\r}\r";
    let g = &formats::read(Format::Jkf, jkf)[0];
    let d = &g.diagnostics[0];
    assert_eq!((d.line, d.column), (Some(5), Some(14)), "{d:?}");
    // A move's span in a CR-only JKF.
    let jkf = "{\"header\":{},\r\"moves\":[{},\r{\"move\":{\"color\":0,\"from\":{\"x\":7,\"y\":7},\"to\":{\"x\":7,\"y\":6},\"piece\":\"FU\"}}]}";
    let g = &formats::read(Format::Jkf, jkf)[0];
    assert_eq!(g.record.plies(), 1);
    assert_eq!(g.record.moves[0].span.line, 3);
    assert_eq!(g, &formats::read(Format::Jkf, &jkf.replace('\r', "\n"))[0]);
    // Bytes that do not decode: the `encoding` diagnostic's line counts CRs too, and it is
    // the finding of the game on that line.
    let d = formats::read_bytes(
        b"startpos\rstartpos\r\nstartpos moves 7g\xff7f\n",
        &ReadOptions {
            encoding: Some(formats::TextEncoding::Utf8),
            ..ReadOptions::default()
        },
    );
    assert!(d.games[0].diagnostics.is_empty());
    let e = &d.games[2].diagnostics[0];
    assert_eq!((e.line, e.column), (Some(3), Some(18)), "{e:?}");
}
