//! Zip archives read through their central directory record by record (issue #24: the zip
//! reader kept every entry's metadata, 152 MB for 200,000 entries): entry names in the code
//! pages archives are written in, ZIP64 end records, a stub before the archive, duplicate
//! names, a damaged directory, and entries that cannot be read. The archives are built byte
//! by byte here, so that each field is what the test says.

use kifu_app::batch::{self, Input, Options};

const GAME: &[u8] = b"PI\n+\n+7776FU\n-3334FU\n%TORYO\n";

/// One entry of a hand-built archive: stored, with the given name bytes and flags.
struct Entry<'a> {
    name: &'a [u8],
    flags: u16,
    method: u16,
    extra: Vec<u8>,
    data: &'a [u8],
}

fn entry(name: &[u8]) -> Entry<'_> {
    Entry {
        name,
        flags: 0,
        method: 0,
        extra: Vec::new(),
        data: GAME,
    }
}

fn crc(data: &[u8]) -> u32 {
    let mut c = flate2::Crc::new();
    c.update(data);
    c.sum()
}

/// How the end of the archive is written.
#[derive(Clone, Copy, PartialEq)]
enum End {
    Plain,
    /// A ZIP64 end record and locator, the plain end record's fields all set to "see ZIP64".
    Zip64,
}

/// A zip of `entries` after `stub` bytes (offsets counted from the archive's own start, as a
/// self-extracting archive has them), with a central directory and an end record.
fn build(stub: &[u8], entries: &[Entry<'_>], end: End) -> Vec<u8> {
    let mut out = Vec::new();
    let mut central = Vec::new();
    for e in entries {
        let offset = out.len() as u32;
        let c = crc(e.data);
        let n = e.data.len() as u32;
        out.extend_from_slice(b"PK\x03\x04");
        for v in [20u16, e.flags, e.method, 0, 0] {
            out.extend_from_slice(&v.to_le_bytes());
        }
        for v in [c, n, n] {
            out.extend_from_slice(&v.to_le_bytes());
        }
        out.extend_from_slice(&(e.name.len() as u16).to_le_bytes());
        out.extend_from_slice(&0u16.to_le_bytes());
        out.extend_from_slice(e.name);
        out.extend_from_slice(e.data);
        central.extend_from_slice(b"PK\x01\x02");
        for v in [20u16, 20, e.flags, e.method, 0, 0] {
            central.extend_from_slice(&v.to_le_bytes());
        }
        for v in [c, n, n] {
            central.extend_from_slice(&v.to_le_bytes());
        }
        for v in [e.name.len() as u16, e.extra.len() as u16, 0, 0, 0] {
            central.extend_from_slice(&v.to_le_bytes());
        }
        central.extend_from_slice(&0u32.to_le_bytes());
        central.extend_from_slice(&offset.to_le_bytes());
        central.extend_from_slice(e.name);
        central.extend_from_slice(&e.extra);
    }
    let dir_at = out.len() as u64;
    let dir_len = central.len() as u64;
    out.extend_from_slice(&central);
    let count = entries.len() as u64;
    if end == End::Zip64 {
        let end64_at = out.len() as u64;
        out.extend_from_slice(b"PK\x06\x06");
        out.extend_from_slice(&44u64.to_le_bytes());
        out.extend_from_slice(&[45, 0, 45, 0]);
        out.extend_from_slice(&[0; 8]);
        for v in [count, count, dir_len, dir_at] {
            out.extend_from_slice(&v.to_le_bytes());
        }
        out.extend_from_slice(b"PK\x06\x07");
        out.extend_from_slice(&0u32.to_le_bytes());
        out.extend_from_slice(&end64_at.to_le_bytes());
        out.extend_from_slice(&1u32.to_le_bytes());
    }
    out.extend_from_slice(b"PK\x05\x06");
    out.extend_from_slice(&[0; 4]);
    if end == End::Zip64 {
        out.extend_from_slice(&[0xFF; 12]);
    } else {
        for v in [count as u16, count as u16] {
            out.extend_from_slice(&v.to_le_bytes());
        }
        out.extend_from_slice(&(dir_len as u32).to_le_bytes());
        out.extend_from_slice(&(dir_at as u32).to_le_bytes());
    }
    out.extend_from_slice(&0u16.to_le_bytes());
    let mut all = stub.to_vec();
    all.extend_from_slice(&out);
    all
}

/// What the batch made of the archive: each unit's path, its games and its diagnostics'
/// messages.
fn read(bytes: &[u8]) -> Vec<(String, usize, Vec<String>)> {
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("a.zip");
    std::fs::write(&path, bytes).expect("write");
    let prefix = format!("{}/", path.display());
    let mut out = Vec::new();
    for jobs in [1, 2] {
        let mut got = Vec::new();
        let opts = Options {
            jobs,
            ..Options::default()
        };
        batch::run(
            &[Input::Path(path.clone())],
            &opts,
            batch::parse_unit,
            |u, r| {
                let shown = u.source.path.replace(&prefix, "");
                let messages = r.diagnostics.iter().map(|d| d.message.clone()).collect();
                got.push((shown, r.games.len(), messages));
                Ok(())
            },
        )
        .expect("run");
        if jobs == 1 {
            out = got;
        } else {
            assert_eq!(got, out, "the same at -j1 and -j2");
        }
    }
    out
}

fn names(units: &[(String, usize, Vec<String>)]) -> Vec<&str> {
    units.iter().map(|u| u.0.as_str()).collect()
}

#[test]
fn names_are_read_in_the_code_page_they_were_written_in() {
    // 棋譜 in Shift_JIS (Japanese Windows, no UTF-8 flag), in UTF-8 with and without the flag,
    // bytes neither can be (code page 437), and an Info-ZIP Unicode path field.
    let sjis = b"\x8a\xfb\x95\x88.csa";
    let utf8 = "棋譜2.csa".as_bytes();
    let mut flagged = entry("棋譜3.csa".as_bytes());
    flagged.flags = 1 << 11;
    let mut unicode = entry(b"old.csa");
    let mut extra = vec![0x75, 0x70];
    let new = "新.csa".as_bytes();
    extra.extend_from_slice(&(5 + new.len() as u16).to_le_bytes());
    extra.push(1);
    extra.extend_from_slice(&crc(b"old.csa").to_le_bytes());
    extra.extend_from_slice(new);
    unicode.extra = extra;
    let mut stale = entry(b"stale.csa");
    // A Unicode path field for another name (its CRC is not this name's): not taken.
    stale.extra = unicode.extra.clone();
    let zip = build(
        b"",
        &[
            entry(sjis),
            entry(utf8),
            flagged,
            entry(b"\xfd\xfe.csa"),
            unicode,
            stale,
        ],
        End::Plain,
    );
    let units = read(&zip);
    assert_eq!(
        names(&units),
        [
            "棋譜.csa",
            "棋譜2.csa",
            "棋譜3.csa",
            "²■.csa",
            "新.csa",
            "stale.csa"
        ]
    );
    assert!(units.iter().all(|u| u.1 == 1), "{units:?}");
}

#[test]
fn zip64_end_records_and_stubs_before_the_archive_are_followed() {
    let entries = [entry(b"a.csa"), entry(b"b.csa")];
    for (stub, end) in [
        (&b""[..], End::Zip64),
        (&[0x4D; 1000][..], End::Plain),
        (&[0x4D; 777][..], End::Zip64),
    ] {
        let units = read(&build(stub, &entries, end));
        assert_eq!(names(&units), ["a.csa", "b.csa"], "stub {}", stub.len());
        assert!(
            units.iter().all(|u| u.1 == 1 && u.2.is_empty()),
            "{units:?}"
        );
    }
}

#[test]
fn every_entry_of_a_name_is_read() {
    // The `zip` crate kept the last entry of a name only; a record is not to be lost.
    let units = read(&build(
        b"",
        &[entry(b"g.csa"), entry(b"h.csa"), entry(b"g.csa")],
        End::Plain,
    ));
    assert_eq!(names(&units), ["g.csa", "h.csa", "g.csa"]);
}

#[test]
fn entries_that_cannot_be_read_are_named_and_the_rest_read() {
    let mut locked = entry(b"locked.csa");
    locked.flags = 1;
    let mut bzip = entry(b"bzip.csa");
    bzip.method = 12;
    let mut skipped = entry(b"notes.txt");
    skipped.flags = 1;
    let units = read(&build(
        b"",
        &[locked, bzip, skipped, entry(b"ok.csa")],
        End::Plain,
    ));
    assert_eq!(names(&units), ["locked.csa", "bzip.csa", "ok.csa"]);
    assert_eq!(units[0].2, ["cannot read entry: it is encrypted"]);
    assert_eq!(
        units[1].2,
        ["cannot read entry: compression method 12 is not read"]
    );
    assert_eq!((units[2].1, units[2].2.len()), (1, 0));
}

#[test]
fn a_damaged_directory_sends_the_archive_to_its_local_headers() {
    let zip = build(b"", &[entry(b"a.csa"), entry(b"b.csa")], End::Plain);
    let central = zip
        .windows(4)
        .rposition(|w| w == b"PK\x01\x02")
        .expect("a second record");
    let mut damaged = zip.clone();
    damaged[central + 1] = b'X';
    let units = read(&damaged);
    assert_eq!(names(&units)[..2], ["a.csa", "b.csa"]);
    assert_eq!(units.len(), 3, "{units:?}");
    assert!(
        units[2].2[0].contains("central directory"),
        "{:?}",
        units[2]
    );
    // An end record that lists more entries than its directory can hold: the same.
    let mut lying = zip.clone();
    let end = lying.len() - 22;
    lying[end + 10] = 200;
    let units = read(&lying);
    assert_eq!(names(&units)[..2], ["a.csa", "b.csa"]);
    assert!(
        units
            .last()
            .is_some_and(|u| u.2[0].contains("central directory")),
        "{units:?}"
    );
    // A local header that is not where the directory says.
    let mut moved = zip;
    moved[0] = b'Q';
    let units = read(&moved);
    assert_eq!(names(&units), ["a.csa", "b.csa"]);
    assert!(
        units[0].2[0].contains("no local header at offset 0"),
        "{units:?}"
    );
    assert_eq!(units[1].1, 1);
}
