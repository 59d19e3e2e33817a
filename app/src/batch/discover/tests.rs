//! Tests of the listing, the reading and the loading of units.

use super::*;

#[test]
fn relative_paths_are_checked() {
    assert_eq!(
        safe_relative(Path::new("a/b.kif")),
        Some(PathBuf::from("a/b.kif"))
    );
    assert_eq!(
        safe_relative(Path::new("./a/b.kif")),
        Some(PathBuf::from("a/b.kif"))
    );
    assert_eq!(safe_relative(Path::new("../b.kif")), None);
    assert_eq!(safe_relative(Path::new("a/../../b.kif")), None);
    assert_eq!(safe_relative(Path::new("/etc/passwd")), None);
}

#[test]
fn archive_names() {
    assert_eq!(archive_kind("x.ZIP"), Some(ArchiveKind::Zip));
    assert_eq!(archive_kind("x.tar.gz"), Some(ArchiveKind::TarGz));
    assert_eq!(archive_kind("x.tgz"), Some(ArchiveKind::TarGz));
    assert_eq!(archive_kind("x.tar"), Some(ArchiveKind::Tar));
    assert_eq!(archive_kind("x.kif"), None);
    assert_eq!(strip_archive_ext("games.tar.gz"), "games");
}

#[test]
fn inputs_are_measured_in_files_and_bytes_unless_an_archive_or_stdin_is_among_them() {
    let dir = tempfile::tempdir().expect("tempdir");
    std::fs::write(dir.path().join("a.csa"), "PI\n+\n").expect("write");
    std::fs::create_dir(dir.path().join("sub")).expect("mkdir");
    std::fs::write(dir.path().join("sub/b.kif"), "12345").expect("write");
    std::fs::write(dir.path().join("notes.txt"), "not a record").expect("write");
    let d = Input::Path(dir.path().to_path_buf());
    assert_eq!(measure(std::slice::from_ref(&d)), Some((2, 10)));
    let f = Input::Path(dir.path().join("a.csa"));
    assert_eq!(measure(&[d.clone(), f]), Some((3, 15)));
    assert_eq!(measure(&[d.clone(), Input::Stdin]), None);
    std::fs::write(dir.path().join("games.zip"), "").expect("write");
    assert_eq!(measure(&[d]), None);
}

/// A reader's bytes up to its end, or up to one past `max` with the rest left unread,
/// however short its reads.
#[test]
fn a_head_is_read_to_its_end_or_refused_past_the_limit() {
    let text: Vec<u8> = (0..100u8).collect();
    for cap in [1, 7, 64, 4096] {
        let read = |max| {
            let mut r = BufReader::with_capacity(cap, text.as_slice());
            let (head, all) = read_head(&mut r, max).expect("read");
            let mut rest = Vec::new();
            r.read_to_end(&mut rest).expect("read");
            (head, all, rest)
        };
        assert_eq!(read(100), (text.clone(), true, vec![]), "capacity {cap}");
        assert_eq!(read(1000), (text.clone(), true, vec![]), "capacity {cap}");
        let (head, rest) = text.split_at(100);
        assert_eq!(
            read(99),
            (head.to_vec(), false, rest.to_vec()),
            "capacity {cap}"
        );
        let (head, rest) = text.split_at(1);
        assert_eq!(
            read(0),
            (head.to_vec(), false, rest.to_vec()),
            "capacity {cap}"
        );
    }
    let empty: &[u8] = &[];
    assert_eq!(
        read_head(&mut { empty }, 0).expect("read"),
        (Vec::new(), true)
    );
}

/// The source of a CSA file found in a directory.
fn csa_in_dir(p: &Path) -> Source {
    Source {
        path: display(p),
        rel: p.file_name().map(PathBuf::from),
        format: Some(Format::Csa),
        named_format: None,
        file: Some(p.to_path_buf()),
        top_level: false,
    }
}

/// A worker loads a CSA file listed unread as the one reading thread would have read it
/// when it fits in a chunk, and hands it back unread (still pending) when it does not.
#[test]
fn a_listed_file_is_read_whole_up_to_a_chunk_and_handed_back_past_it() {
    let dir = tempfile::tempdir().expect("tempdir");
    let game = "V2.2\nPI\n+\n+7776FU\n-3334FU\n%TORYO\n/\n";
    let opts = Options::default();
    for (name, size) in [
        ("empty.csa", 0),
        ("one.csa", game.len()),
        ("chunk.csa", CHUNK_BYTES),
        ("over.csa", CHUNK_BYTES + 1),
        ("big.csa", 3 * CHUNK_BYTES),
    ] {
        let mut text = game.repeat(size / game.len() + 1).into_bytes();
        text.truncate(size);
        let p = dir.path().join(name);
        std::fs::write(&p, &text).expect("write");
        let source = || csa_in_dir(&p);
        let mut listed = Vec::new();
        produce_file(source(), &p, true, &opts, &mut |u| {
            listed.push(u);
            true
        });
        let [unit] = <[Unit; 1]>::try_from(listed).expect("one unit listed");
        let mut loaded = Vec::new();
        load(unit, &opts, &mut loaded);
        let mut read = Vec::new();
        produce_file(source(), &p, false, &opts, &mut |u| {
            read.push(u);
            true
        });
        let contents = |us: &[Unit]| {
            us.iter()
                .map(|u| match &u.content {
                    Content::Bytes(b) => Some((b.clone(), u.first_line, u.chunk, u.last)),
                    _ => None,
                })
                .collect::<Vec<_>>()
        };
        if size <= CHUNK_BYTES {
            assert_eq!(contents(&loaded), contents(&read), "{name}");
            assert!(contents(&loaded).iter().all(Option::is_some), "{name}");
        } else {
            assert_eq!(loaded.len(), 1, "{name}");
            assert!(matches!(loaded[0].content, Content::Pending), "{name}");
            assert!(
                size < 2 * CHUNK_BYTES || read.len() > 1,
                "{name} is cut in chunks when read"
            );
        }
    }
}

/// A pipe named like a CSA file, bigger than a chunk, cannot be opened again at its start:
/// the worker that found it too big reads it on, and nothing of it is lost.
#[cfg(unix)]
#[test]
fn a_big_pipe_is_read_on_not_handed_back() {
    let dir = tempfile::tempdir().expect("tempdir");
    let p = dir.path().join("games.csa");
    let made = std::process::Command::new("mkfifo").arg(&p).status();
    if !made.is_ok_and(|s| s.success()) {
        eprintln!("skipped: no mkfifo here");
        return;
    }
    let game = "V2.2\nPI\n+\n+7776FU\n-3334FU\n%TORYO\n/\n";
    let text = game.repeat(3 * CHUNK_BYTES / game.len());
    let writer = {
        let (p, text) = (p.clone(), text.clone());
        std::thread::spawn(move || std::fs::write(p, text).expect("write the pipe"))
    };
    let opts = Options::default();
    let mut listed = Vec::new();
    produce_file(csa_in_dir(&p), &p, true, &opts, &mut |u| {
        listed.push(u);
        true
    });
    let mut loaded = Vec::new();
    for u in listed {
        load(u, &opts, &mut loaded);
    }
    writer.join().expect("writer");
    let mut got = Vec::new();
    for u in &loaded {
        let Content::Bytes(b) = &u.content else {
            panic!("a unit not read: {:?}", u.source.path);
        };
        got.extend_from_slice(b);
    }
    assert!(loaded.len() > 1, "cut into chunks");
    assert_eq!(got, text.as_bytes());
}

/// A directory's records come in the order of their names (bytewise), each subdirectory
/// where its name sorts, names that are prefixes of others first.
#[test]
fn a_directory_is_walked_in_name_order() {
    let dir = tempfile::tempdir().expect("tempdir");
    let names = [
        "b.csa",
        "a.csa",
        "a-b.csa",
        "a.d/x.csa",
        "a.d/B.csa",
        "A.csa",
        "a",
        "ab/c.csa",
    ];
    for n in names {
        let p = dir.path().join(n);
        std::fs::create_dir_all(p.parent().expect("parent")).expect("mkdir");
        std::fs::write(&p, "PI\n+\n").expect("write");
    }
    // `a` has no record extension and is not looked at.
    let mut seen = Vec::new();
    produce(
        &[Input::Path(dir.path().to_path_buf())],
        &Options::default(),
        &mut |u| {
            let rel = u.source.rel.clone().expect("a relative path");
            seen.push(rel.to_string_lossy().replace('\\', "/"));
            true
        },
    );
    assert_eq!(
        seen,
        [
            "A.csa",
            "a-b.csa",
            "a.csa",
            "a.d/B.csa",
            "a.d/x.csa",
            "ab/c.csa",
            "b.csa"
        ]
    );
}

/// Two different names are never shown alike, and the shown name gives the bytes back: a name
/// with bytes that are not UTF-8, and one holding the text of their escapes, are shown apart.
#[test]
fn shown_names_are_unambiguous_and_reversible() {
    let names: [&[u8]; 7] = [
        b"g\xff\x82.csa",
        b"g\\xFF\\x82.csa",
        b"g\\\\xFF.csa",
        b"a\\b\\",
        b"\\x",
        "棋譜\\x4".as_bytes(),
        b"\xe6\xa3\x8b.kif",
    ];
    let shown: Vec<String> = names.iter().map(|n| super::display_bytes(n)).collect();
    for (i, a) in shown.iter().enumerate() {
        assert_eq!(super::undisplay_path(a), names[i], "{a}");
        for b in &shown[i + 1..] {
            assert_ne!(a, b);
        }
    }
    assert_eq!(shown[0], "g\\xFF\\x82.csa");
    assert_eq!(shown[1], "g\\\\xFF\\\\x82.csa");
    // Every byte string of up to three bytes from a small alphabet round-trips.
    let alphabet = [b'\\', b'x', b'F', b'0', 0xFF, 0xE6, 0x82];
    for a in alphabet {
        for b in alphabet {
            for c in alphabet {
                let n = [a, b, c];
                assert_eq!(super::undisplay_path(&super::display_bytes(&n)), n);
            }
        }
    }
}

/// A file that ends short of the size it had when opened (cut by another program while it is
/// read) gives an `io` finding after its whole games, never a clean, cut last game.
#[test]
fn a_file_that_shrinks_while_it_is_read_is_an_io_finding() {
    let game = "V2.2\nPI\n+\n+7776FU\n-3334FU\n%TORYO\n";
    for (text, games) in [
        (game.to_owned(), 1),
        (vec![game; 30_000].join("/\n"), 30_000),
    ] {
        for format in [Format::Csa, Format::Jkf] {
            let source = Source {
                path: "t.csa".into(),
                rel: None,
                format: Some(format),
                named_format: None,
                file: None,
                top_level: true,
            };
            let cut = Shrink {
                inner: text.as_bytes(),
                expected: Some(text.len() as u64 + 100),
                got: 0,
            };
            let mut units = Vec::new();
            read_stream(
                source,
                BufReader::new(cut),
                &Options::default(),
                u64::MAX,
                &mut |u| {
                    units.push(u);
                    true
                },
            );
            let failed: Vec<&Diagnostic> = units
                .iter()
                .filter_map(|u| match &u.content {
                    Content::Failed(d) => Some(d),
                    _ => None,
                })
                .collect();
            assert_eq!(failed.len(), 1, "{format:?}, {games} games");
            assert_eq!(failed[0].code, Code::Io);
            assert!(
                failed[0].message.contains("shrank"),
                "{}",
                failed[0].message
            );
            assert!(
                matches!(units.last().map(|u| &u.content), Some(Content::Failed(_))),
                "the finding comes last"
            );
        }
    }
    // Read to its size, it is read as it is.
    let mut whole = Shrink {
        inner: game.as_bytes(),
        expected: Some(game.len() as u64),
        got: 0,
    };
    let mut out = Vec::new();
    whole.read_to_end(&mut out).expect("whole");
    assert_eq!(out, game.as_bytes());
}
