//! Tests of cutting streams into units (`stream.rs`).

use super::*;

#[test]
fn csa_stream_is_cut_at_separators_with_line_offsets() {
    let mut text = String::new();
    let game = "V2.2\nPI\n+\n+7776FU\n-3334FU\n%TORYO\n";
    let games = 20_000;
    for i in 0..games {
        if i > 0 {
            text.push_str("/\n");
        }
        text.push_str(game);
    }
    let opts = Options::default();
    let source = Source {
        path: "t.csa".into(),
        rel: None,
        format: Some(Format::Csa),
        named_format: None,
        file: None,
        top_level: true,
    };
    let mut units = Vec::new();
    let go = read_stream(source, text.as_bytes(), &opts, u64::MAX, &mut |u| {
        units.push(u);
        true
    });
    assert!(go);
    assert!(units.len() > 1, "expected several chunks");
    let mut joined = Vec::new();
    let mut line = 0u32;
    for (i, u) in units.iter().enumerate() {
        assert_eq!(u.chunk as usize, i);
        assert_eq!(u.first_line, line);
        assert_eq!(u.last, i + 1 == units.len());
        let Content::Bytes(b) = &u.content else {
            panic!("failed unit")
        };
        if !u.last {
            assert!(b.ends_with(b"/\n"), "chunk must end at a separator");
        }
        line += b.iter().filter(|&&c| c == b'\n').count() as u32;
        joined.extend_from_slice(b);
    }
    assert_eq!(joined, text.as_bytes());
}

/// Units read from `text` as a file named `name` (its extension's format), with `opts`.
fn units_of(name: &str, text: &str, opts: &Options) -> Vec<Unit> {
    let ext = name.rsplit('.').next().and_then(Format::from_extension);
    let source = Source {
        path: name.into(),
        rel: None,
        format: opts.input_format.or(ext),
        named_format: None,
        file: None,
        top_level: true,
    };
    let mut units = Vec::new();
    assert!(read_stream(
        source,
        text.as_bytes(),
        opts,
        u64::MAX,
        &mut |u| {
            units.push(u);
            true
        }
    ));
    units
}

#[test]
fn one_line_csa_is_cut_after_moves_lines_under_the_game_limit() {
    let mut text = String::new();
    for i in 1..=12_000 {
        text.push_str(&format!(
            "{i} 2003/09/08 a b 1 3 e o\r\n7776FU3334FU2726FU\r\n"
        ));
    }
    // One game is 55 bytes: far under the limit, the file far over it.
    let opts = Options {
        max_game_bytes: 1000,
        ..Options::default()
    };
    let units = units_of("t.csa1", &text, &opts);
    assert!(units.len() > 1, "expected several chunks");
    let mut games = 0;
    for u in &units {
        let Content::Bytes(b) = &u.content else {
            panic!("failed unit: {:?}", u.content)
        };
        games += kifu::formats::csa::read(std::str::from_utf8(b).unwrap()).len();
    }
    assert_eq!(games, 12_000);
}

/// Issue #45: files joined with `cat` keep each file's BOM at the start of its game. They are
/// cut as they would be without the BOMs (one at the file's start does not hide the one-line
/// CSA from the cutter), and every game of every chunk reads without a finding, whether its
/// BOM is a chunk's first bytes or inside one.
#[test]
fn games_starting_with_a_bom_are_cut_and_read_as_without_it() {
    let mut one_line = String::new();
    let mut slashed = String::new();
    for i in 1..=12_000 {
        one_line.push_str(&format!(
            "\u{feff}{i} 2003/09/08 a b 1 3 e o\n7776FU3334FU2726FU\n"
        ));
        if i > 1 {
            slashed.push_str("/\n");
        }
        slashed.push_str("\u{feff}V2.2\nPI\n+\n+7776FU\n-3334FU\n%TORYO\n");
    }
    let opts = Options {
        max_game_bytes: 1000,
        chunk_bytes: 64 * 1024,
        ..Options::default()
    };
    for (what, text) in [("one-line", &one_line), ("slashed", &slashed)] {
        let units = units_of("t.csa", text, &opts);
        assert!(units.len() > 1, "{what}: expected several chunks");
        let mut games = 0;
        for u in &units {
            let Content::Bytes(b) = &u.content else {
                panic!("{what}: failed unit: {:?}", u.content)
            };
            let text = text::decode(b, Some(Format::Csa), u.encoding).text;
            for g in csa::read(&text) {
                assert!(g.diagnostics.is_empty(), "{what}: {:?}", g.diagnostics);
                games += 1;
            }
        }
        assert_eq!(games, 12_000, "{what}");
    }
}

#[test]
fn an_extension_gives_way_to_content_that_is_plainly_another_format() {
    let text = "position startpos moves 7g7f 3c3d\n";
    let units = units_of("t.kif", text, &Options::default());
    assert_eq!(units[0].source.format, Some(Format::Usi));
    assert_eq!(units[0].source.named_format, Some(Format::Kif));
    // Never when the format is given.
    let forced = Options {
        input_format: Some(Format::Kif),
        ..Options::default()
    };
    let units = units_of("t.kif", text, &forced);
    assert_eq!(units[0].source.format, Some(Format::Kif));
    assert_eq!(units[0].source.named_format, None);
    // KI2 moves in a `.kif` are read by the same reader: no switch.
    let units = units_of("t.kif", "▲７六歩 △３四歩\n", &Options::default());
    assert_eq!(units[0].source.format, Some(Format::Kif));
    assert_eq!(units[0].source.named_format, None);
}

/// Each chunk but the last ends at the first line end past the chunk size in force: the
/// default's or [`Options::chunk_bytes`].
#[test]
fn usi_stream_is_cut_at_line_ends_and_keeps_an_unterminated_last_line() {
    let mut text = String::new();
    for i in 0..100_000 {
        if i > 0 {
            text.push('\n');
        }
        text.push_str(&format!("startpos moves 7g7f {i}"));
    }
    for chunk_bytes in [0, 4096, 128 * 1024] {
        let opts = Options {
            chunk_bytes,
            ..Options::default()
        };
        let chunk = opts.chunk();
        let source = Source {
            path: "t.usi".into(),
            rel: None,
            format: Some(Format::Usi),
            named_format: None,
            file: None,
            top_level: true,
        };
        let mut units = Vec::new();
        // A reader that hands out odd-sized pieces, so cuts fall anywhere in a read.
        let reader = std::io::BufReader::with_capacity(7919, text.as_bytes());
        assert!(read_stream(source, reader, &opts, u64::MAX, &mut |u| {
            units.push(u);
            true
        }));
        assert!(units.len() > 3, "chunks of {chunk}");
        let mut joined = Vec::new();
        let mut line = 0u32;
        for (i, u) in units.iter().enumerate() {
            assert_eq!(u.first_line, line);
            let Content::Bytes(b) = &u.content else {
                panic!("failed unit")
            };
            if !u.last {
                assert!(
                    b.len() >= chunk && b.len() < chunk + 64,
                    "chunks of {chunk}"
                );
                assert!(b.ends_with(b"\n"));
            }
            assert_eq!(u.last, i + 1 == units.len());
            line += b.iter().filter(|&&c| c == b'\n').count() as u32;
            joined.extend_from_slice(b);
        }
        assert_eq!(joined, text.as_bytes());
    }
}

#[test]
fn limit_gives_an_io_diagnostic() {
    let opts = Options::default();
    let source = Source {
        path: "t.kif".into(),
        rel: None,
        format: Some(Format::Kif),
        named_format: None,
        file: None,
        top_level: true,
    };
    let mut units = Vec::new();
    read_stream(source, &b"0123456789"[..], &opts, 5, &mut |u| {
        units.push(u);
        true
    });
    assert_eq!(units.len(), 1);
    assert!(matches!(&units[0].content, Content::Failed(d) if d.code == Code::Io));
}

#[test]
fn csa_boundaries_are_slash_lines_only() {
    let b = |s: &str| match next_boundary(s.as_bytes(), Cut::Csa) {
        Next::Boundary(n) => Ok(n),
        Next::None(n) => Err(n),
    };
    assert_eq!(b("+\n/\n+"), Ok(4));
    assert_eq!(b("'a/b\n$START_TIME:2024/01/01\n /\r\n+"), Ok(32));
    // The `/` line is not complete yet: look again from its start.
    assert_eq!(b("+7776FU\n/"), Err(8));
    assert_eq!(b("+7776FU\nT3\n'x/"), Err(11));
    assert_eq!(b("+7776FU\nT3\n"), Err(11));
    assert_eq!(b("//\n/x\n"), Err(6));
    assert!(next_boundary(b"a\nb", Cut::Lines).eq_boundary(2));
    assert_eq!(count_lines(b"\n\nx\n"), 3);
}

#[test]
fn one_line_csa_boundaries_follow_the_moves_lines() {
    let b = |s: &str| match next_boundary(s.as_bytes(), Cut::OneLine) {
        Next::Boundary(n) => Ok(n),
        Next::None(n) => Err(n),
    };
    let two = "1 2003/09/08 a b 1 1 e o\n7776FU\n2 2003/09/09 c d 2 0 e o\n\n";
    assert_eq!(b(two), Ok(32));
    // Header lines only (and an unfinished moves line): no cut yet.
    assert_eq!(b("1 2003/09/08 a b 1 1 e o\n7776"), Err(25));
}

impl Next {
    fn eq_boundary(&self, n: usize) -> bool {
        matches!(self, Next::Boundary(m) if *m == n)
    }
}

#[test]
fn a_game_over_the_limit_stops_the_file_after_the_games_before_it() {
    let opts = Options {
        max_game_bytes: 1000,
        ..Options::default()
    };
    let mut text = String::from("position startpos moves 7g7f\nposition startpos moves 2g2f\n");
    text.push_str("position startpos moves ");
    text.push_str(&"7g7f ".repeat(10_000));
    text.push_str("\nposition startpos\n");
    for (format, name) in [(Format::Usi, "t.usi"), (Format::Csa, "t.csa")] {
        let text = if format == Format::Csa {
            format!(
                "V2.2\nPI\n+\n+7776FU\n/\nPI\n+\n{}\n/\nPI\n+\n",
                "'c".repeat(1000)
            )
        } else {
            text.clone()
        };
        let source = Source {
            path: name.into(),
            rel: None,
            format: Some(format),
            named_format: None,
            file: None,
            top_level: true,
        };
        let mut units = Vec::new();
        read_stream(source, text.as_bytes(), &opts, u64::MAX, &mut |u| {
            units.push(u);
            true
        });
        assert_eq!(units.len(), 2, "{name}");
        let Content::Bytes(first) = &units[0].content else {
            panic!("{name}: the whole games before come first")
        };
        let lines = first.iter().filter(|&&b| b == b'\n').count() as u32;
        assert!(!units[0].last);
        let Content::Failed(d) = &units[1].content else {
            panic!("{name}: then the failure")
        };
        assert!(units[1].last);
        assert_eq!(d.code, Code::Io);
        assert!(d.message.contains("limit"), "{}", d.message);
        assert_eq!(
            d.line,
            Some(lines + 1),
            "{name}: the line the big game starts on"
        );
    }
    // One-game formats: the whole file is the game.
    let source = Source {
        path: "t.kif".into(),
        rel: None,
        format: Some(Format::Kif),
        named_format: None,
        file: None,
        top_level: true,
    };
    let big = vec![b'x'; 2000];
    let mut units = Vec::new();
    read_stream(source, &big[..], &opts, u64::MAX, &mut |u| {
        units.push(u);
        true
    });
    assert!(
        matches!(&units[..], [u] if matches!(&u.content, Content::Failed(d) if d.code == Code::Io))
    );
}
