//! The batch engine's tests: order, chunks, encodings.

use super::*;
use std::time::Duration;

#[test]
fn every_chunk_of_an_euc_jp_file_is_read_in_euc_jp() {
    // 将棋 in EUC-JP is not CP932 (0xFD is no CP932 byte), so the first chunk is
    // EUC-JP; アイ in EUC-JP (A5 A2 A5 A4) is also clean CP932 (half-width kana), and the
    // game that has it lies past the first chunk.
    let game = |name: &[u8]| {
        let mut g = b"V2.2\nN+".to_vec();
        g.extend_from_slice(name);
        g.extend_from_slice(b"\nPI\n+\n");
        g.extend_from_slice(b"+7776FU\n-3334FU\n+7978GI\n-4132KI\n");
        g.extend_from_slice(b"%CHUDAN\n/\n");
        g
    };
    let mut bytes = game(b"\xBE\xAD\xB4\xFD");
    while bytes.len() < 3 * discover::CHUNK_BYTES {
        bytes.extend(game(b"abc"));
    }
    bytes.extend(game(b"\xA5\xA2\xA5\xA4"));
    let bytes = bytes.strip_suffix(b"/\n").expect("separator").to_vec();
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("games.csa");
    std::fs::write(&path, bytes).expect("write");
    let mut names = Vec::new();
    let mut chunks = 0;
    run(
        &[Input::Path(path)],
        &Options::default(),
        |u| {
            let parsed = parse_unit(u);
            assert!(parsed.diagnostics.is_empty(), "{:?}", parsed.diagnostics);
            let names: Vec<String> = parsed
                .games
                .iter()
                .filter_map(|g| g.record.header.get("先手").map(str::to_owned))
                .collect();
            names
        },
        |_, n| {
            chunks += 1;
            names.extend(n);
            Ok(())
        },
    )
    .expect("run");
    assert!(chunks > 2, "the file is read in {chunks} chunks");
    assert_eq!(names.first().map(String::as_str), Some("将棋"));
    assert_eq!(names.last().map(String::as_str), Some("アイ"));
}

#[test]
fn results_come_back_in_input_order_whatever_the_timing() {
    let dir = tempfile::tempdir().expect("tempdir");
    for i in 0..300 {
        let sub = dir.path().join(format!("d{}", i % 7));
        std::fs::create_dir_all(&sub).expect("mkdir");
        // 300 files of 550 bytes: more than a chunk in all, so that more than one job runs.
        let pad = "startpos\n".repeat(60);
        std::fs::write(
            sub.join(format!("g{i:03}.usi")),
            format!("startpos moves\n{i}\n{pad}"),
        )
        .expect("write");
    }
    let inputs = vec![Input::Path(dir.path().to_path_buf())];
    let mut expected = Vec::new();
    for jobs in [1, 2, 4] {
        let opts = Options {
            jobs,
            ..Options::default()
        };
        let mut seen = Vec::new();
        run(
            &inputs,
            &opts,
            |u| {
                // Uneven work so that later units often finish first.
                let n = u.source.path.len() % 5;
                std::thread::sleep(Duration::from_micros(200 * n as u64));
                u.source.path.clone()
            },
            |u, r| {
                assert_eq!(u.source.path, r);
                seen.push(r);
                Ok(())
            },
        )
        .expect("run");
        assert_eq!(seen.len(), 300);
        let mut sorted = seen.clone();
        sorted.sort();
        assert_eq!(seen, sorted, "directory order is sorted by name");
        if expected.is_empty() {
            expected = seen;
        } else {
            assert_eq!(seen, expected, "jobs={jobs}");
        }
    }
}

#[test]
fn a_failing_emit_stops_the_run() {
    let dir = tempfile::tempdir().expect("tempdir");
    // More than a chunk in all, so that the run has its worker threads.
    let text = "startpos\n".repeat(400);
    for i in 0..50 {
        std::fs::write(dir.path().join(format!("g{i:03}.usi")), &text).expect("write");
    }
    let inputs = vec![Input::Path(dir.path().to_path_buf())];
    let opts = Options {
        jobs: 2,
        ..Options::default()
    };
    let mut calls = 0;
    let res = run(
        &inputs,
        &opts,
        |_| (),
        |_, ()| {
            calls += 1;
            Err(io::Error::new(io::ErrorKind::BrokenPipe, "closed"))
        },
    );
    assert_eq!(res.map_err(|e| e.kind()), Err(io::ErrorKind::BrokenPipe));
    assert_eq!(calls, 1);
}

#[test]
fn a_failing_emit_stops_a_run_on_one_thread_too() {
    let dir = tempfile::tempdir().expect("tempdir");
    for i in 0..50 {
        std::fs::write(dir.path().join(format!("g{i:03}.usi")), "startpos\n").expect("write");
    }
    let inputs = vec![Input::Path(dir.path().to_path_buf())];
    let opts = Options {
        jobs: 1,
        ..Options::default()
    };
    let mut emits = 0;
    let works = std::sync::atomic::AtomicUsize::new(0);
    let res = run(
        &inputs,
        &opts,
        |_| {
            works.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        },
        |_, ()| {
            emits += 1;
            Err(io::Error::new(io::ErrorKind::BrokenPipe, "closed"))
        },
    );
    assert_eq!(res.map_err(|e| e.kind()), Err(io::ErrorKind::BrokenPipe));
    assert_eq!(
        (works.into_inner(), emits),
        (1, 1),
        "nothing is read past the failed emit"
    );
}

/// Which thread `work` ran on for each unit of a run.
fn work_threads(inputs: &[Input], jobs: usize) -> Vec<std::thread::ThreadId> {
    let opts = Options {
        jobs,
        ..Options::default()
    };
    let mut threads = Vec::new();
    run(
        inputs,
        &opts,
        |_| std::thread::current().id(),
        |_, id| {
            threads.push(id);
            Ok(())
        },
    )
    .expect("run");
    threads
}

#[test]
fn one_job_or_at_most_a_chunk_of_input_runs_on_the_calling_thread() {
    let dir = tempfile::tempdir().expect("tempdir");
    // 150 files of 4 KB, 600 KB in all: more than a chunk.
    let text = "startpos\n".repeat(450);
    for i in 0..150 {
        std::fs::write(dir.path().join(format!("g{i:03}.usi")), &text).expect("write");
    }
    let here = std::thread::current().id();
    let folder = vec![Input::Path(dir.path().to_path_buf())];
    let on_one = work_threads(&folder, 1);
    assert_eq!(on_one.len(), 150);
    assert!(
        on_one.iter().all(|t| *t == here),
        "-j1 works on the calling thread"
    );
    let on_two = work_threads(&folder, 2);
    assert_eq!(on_two.len(), 150);
    assert!(
        on_two.iter().all(|t| *t != here),
        "-j2 works on the pool's threads"
    );
    // Two small files, 8 KB: nothing worth a second thread; nor a folder of them.
    let files: Vec<Input> = ["g000.usi", "g001.usi"]
        .iter()
        .map(|n| Input::Path(dir.path().join(n)))
        .collect();
    let small = work_threads(&files, 4);
    assert_eq!(small, vec![here, here]);
    let few = tempfile::tempdir().expect("tempdir");
    for i in 0..5 {
        std::fs::write(few.path().join(format!("g{i}.usi")), &text).expect("write");
    }
    let folder = work_threads(&[Input::Path(few.path().to_path_buf())], 4);
    assert_eq!(folder, vec![here; 5]);
    // A file past one chunk is shared out, as is standard input or an archive.
    let big = dir.path().join("big.usi");
    let line = "startpos moves 7g7f 3c3d\n";
    std::fs::write(&big, line.repeat(2 * discover::CHUNK_BYTES / line.len())).expect("write");
    let threads = work_threads(&[Input::Path(big)], 2);
    assert!(threads.len() > 1 && threads.iter().all(|t| *t != here));
}

#[test]
fn parse_unit_counts_lines_from_the_file_start() {
    let unit = Unit {
        source: Arc::new(Source {
            path: "x.usi".into(),
            rel: None,
            format: Some(Format::Usi),
            named_format: None,
            file: None,
            top_level: true,
        }),
        content: Content::Bytes(b"startpos moves 7g7f 7g7f\n".to_vec()),
        first_line: 41,
        chunk: 3,
        last: true,
        encoding: None,
    };
    let parsed = parse_unit(&unit);
    assert_eq!(parsed.games.len(), 1);
    assert_eq!(parsed.games[0].record.moves[0].span.line, 42);
}

/// KIF in CP932 read from its bytes (`judged_as_read_cp932`, `gather_bytes`) gives what
/// decoding, reading and validating gives, whatever the unit's format and encoding say and
/// whatever the bytes hold: declarations, bytes that do not decode, CRLF, other formats.
#[test]
fn kif_in_cp932_from_its_bytes_is_read_as_decoded() {
    use kifu::formats::{WriteOptions, write};
    use kifu::random::{GenOptions, random_game};
    let game = write(
        Format::Kif,
        &random_game(3, &GenOptions::default()),
        &WriteOptions::default(),
    )
    .text;
    let (sjis, _, bad) = encoding_rs::SHIFT_JIS.encode(&game);
    assert!(!bad);
    let sjis = sjis.into_owned();
    let with = |head: &[u8], body: &[u8]| [head, body].concat();
    // A byte that is no CP932 (0xA0 leads nothing) in the header, in a move line, at the end.
    let mut broken_move = sjis.clone();
    let at = memchr::memmem::find(&sjis, b"  10 ").expect("a tenth move") + 6;
    broken_move.insert(at, 0xA0);
    let inputs: Vec<Vec<u8>> = vec![
        sjis.clone(),
        game.replace('\n', "\r\n").into_bytes(),
        encoding_rs::SHIFT_JIS
            .encode(&game.replace('\n', "\r\n"))
            .0
            .into_owned(),
        with(b"#KIF version=2.0 encoding=UTF-8\n", &sjis),
        with(b"#KIF version=2.0 encoding=Shift_JIS\n", &sjis),
        with(b"#KIF version=2.0 encoding=EUC-JP\n", &sjis),
        with(b"\xEF\xBB\xBF", &sjis),
        with("先手：\u{a0}\n".as_bytes(), &sjis),
        with(b"\x90\xe6\x8e\xe8\x81\x46\xA0\n", &sjis),
        broken_move,
        with(&sjis, b"\x82"),
        with(&sjis, b"*\x83\x52\x83\x81\x83\x93\x83\x67\n"),
        with(b"V2.2\nPI\n+\n+7776FU\n", &sjis),
        with(b"position startpos moves 7g7f\n", &sjis),
        with(&sjis, b"\r"),
        b"\x8e\xe8\x90\x94----\n   1 \x82\x56\x98\x5a\x95\xe0(77)\n".to_vec(),
    ];
    let opts = validate::Options::default();
    let mut read = 0;
    for (i, bytes) in inputs.iter().enumerate() {
        for format in [
            Some(Format::Kif),
            Some(Format::Kifu),
            Some(Format::Ki2),
            Some(Format::Csa),
            None,
        ] {
            for encoding in [
                None,
                Some(Encoding::Cp932),
                Some(Encoding::Utf8),
                Some(Encoding::EucJp),
            ] {
                let unit = Unit {
                    source: Arc::new(Source {
                        path: "x.kif".into(),
                        rel: None,
                        format,
                        named_format: None,
                        file: None,
                        top_level: true,
                    }),
                    content: Content::Bytes(bytes.clone()),
                    first_line: 0,
                    chunk: 0,
                    last: true,
                    encoding,
                };
                let case = format!("input {i}, {format:?}, {encoding:?}");
                let fast = validate_unit(&unit, &opts);
                let full = validated(parse_unit(&unit), &opts);
                let parts =
                    |u: &ValidatedUnit| format!("{:?}", (u.format, &u.games, &u.diagnostics));
                assert_eq!(parts(&fast), parts(&full), "{case}");
                let read_options = unit.read_options();
                if read_options.decode_in_place(bytes).is_none()
                    && let Some((body, _)) = read_options.kif_cp932(bytes)
                    && validate::judged_as_read_cp932(body, &opts).is_some()
                {
                    read += 1;
                }
                for gather in [validate::Gather::Games, validate::Gather::Positions] {
                    let g = gather_unit(&unit, &opts, gather);
                    let reports: Vec<_> = g.games.iter().map(|g| g.0.clone()).collect();
                    assert_eq!(reports, full.games, "{case}, {gather:?}");
                    assert_eq!(g.format, full.format, "{case}");
                    assert_eq!(g.as_read, fast.as_read, "{case}");
                }
            }
        }
    }
    // The plain file, its CRLF copy and the ones with a declaration or a stray line after
    // the moves are read from their bytes under both KIF formats.
    assert!(read >= 12, "{read} units read from their bytes");
}

#[test]
fn threads_are_the_jobs_asked_or_one_per_core() {
    let asked = Options {
        jobs: 3,
        ..Options::default()
    };
    assert_eq!(asked.threads(), 3);
    let cores = std::thread::available_parallelism().map_or(1, usize::from);
    assert_eq!(Options::default().threads(), cores);
}

/// The reports of a unit read into records first, each record validated: from the records,
/// against which the judged units are held.
fn validated(parsed: ParsedUnit, opts: &validate::Options) -> ValidatedUnit {
    ValidatedUnit {
        format: parsed.format,
        encoding: parsed.encoding,
        games: parsed
            .games
            .into_iter()
            .map(|mut g| validate::validate_game(&mut g, opts))
            .collect(),
        diagnostics: parsed.diagnostics,
        as_read: false,
    }
}
