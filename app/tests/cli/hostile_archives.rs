//! Damaged archives: every truncation and byte flips all through zip, tar and tar.gz archives
//! of real records. Whatever the damage, the batch reader hands out no more than the bound,
//! gives an `io` diagnostic when it sees damage, and never hands out an entry's bytes changed
//! without one (a plain tar, whose format has no checksum over the data, excepted for flips).
//! The checks are `app/tests/common/archive.rs`, shared with the `archive` fuzz target.

use crate::archive;

use kifu::formats::{self, Format, WriteOptions, decode};
use kifu::random::{GenOptions, random_game};
use kifu_app::batch::{Content, Unit};

type Entries = Vec<(String, Vec<u8>)>;

/// A few real records of every kind of input the batch reader cuts differently: a one-game
/// KIF in CP932, a CSA game, a multi-game USI file and, with `big`, a multi-game CSA file of
/// several chunks.
fn entries(big: bool) -> Entries {
    let root = crate::common::repo().join("fixtures");
    let read = |p: &str| std::fs::read(root.join(p)).expect(p);
    let mut e = vec![
        ("a/resign.kif".to_owned(), read("validate/ok/resign.kif")),
        ("b/c/mate.csa".to_owned(), read("validate/ok/mate.csa")),
        ("games.usi".to_owned(), read("validate/ok/games.usi")),
    ];
    if big {
        let opts = GenOptions {
            min_plies: 60,
            max_plies: 120,
            times: true,
            comments: false,
        };
        let mut text = String::new();
        for seed in 0..400 {
            let g = random_game(seed, &opts);
            text.push_str(&formats::write(Format::Csa, &g, &WriteOptions::default()).text);
            text.push_str("/\n");
        }
        e.push((
            "big.csa".to_owned(),
            decode::encode_for(Format::Csa, &text).0,
        ));
    }
    e
}

/// Every archive kind, stored and compressed.
fn archives(entries: &Entries) -> Vec<(&'static str, &'static str, Vec<u8>)> {
    let tar = archive::tar_of(entries);
    vec![
        ("zip", "zip (deflated)", archive::zip_of(entries, true)),
        ("zip", "zip (stored)", archive::zip_of(entries, false)),
        ("tar.gz", "tar.gz", archive::gz_of(&tar)),
        ("tar", "tar", tar),
    ]
}

fn failed(units: &[Unit]) -> bool {
    units
        .iter()
        .any(|u| matches!(u.content, Content::Failed(_)))
}

/// Unless some unit reports damage, every entry handed out whole is one of the archive's
/// entries, byte for byte.
fn no_silent_change(units: &[Unit], entries: &Entries, what: &str) {
    if failed(units) {
        return;
    }
    let mut i = 0;
    while i < units.len() {
        let mut bytes = Vec::new();
        let start = i;
        loop {
            if let Content::Bytes(b) = &units[i].content {
                bytes.extend_from_slice(b);
            }
            i += 1;
            if units[i - 1].last {
                break;
            }
        }
        assert!(
            entries.iter().any(|(_, e)| *e == bytes),
            "{what}: {} read as {} bytes that are no entry's, and nothing reported",
            units[start].source.path,
            bytes.len()
        );
    }
}

/// Whether the units are exactly the entries, whole and in order.
fn reads_back(units: &[Unit], entries: &Entries) -> bool {
    archive::read_back_mismatch(units, entries).is_none()
}

#[test]
fn intact_archives_give_back_their_entries() {
    let entries = entries(true);
    for (ext, what, bytes) in archives(&entries) {
        let units = archive::read_archive(ext, &bytes, None);
        archive::check_units(&units, ext, bytes.len() as u64);
        archive::assert_entries_read_back(&units, &entries);
        assert!(
            units
                .iter()
                .filter(|u| u.source.path.ends_with("big.csa"))
                .count()
                > 1,
            "{what}: the big entry was read in one chunk"
        );
    }
}

#[test]
fn every_truncation_of_an_archive_is_reported_or_harmless() {
    let entries = entries(false);
    for (ext, what, bytes) in archives(&entries) {
        for cut in 0..bytes.len() {
            let data = &bytes[..cut];
            let units = archive::read_archive(ext, data, None);
            archive::check_units(&units, ext, cut as u64);
            no_silent_change(&units, &entries, &format!("{what} cut at {cut}"));
            // Something is missing, an entry or the archive's end: unless every entry still
            // reads back whole, it must be said.
            assert!(
                failed(&units) || reads_back(&units, &entries),
                "{what} cut at {cut} of {}: entries lost without a diagnostic",
                bytes.len()
            );
        }
    }
}

#[test]
fn flipped_bytes_in_an_archive_are_reported_or_harmless() {
    let entries = entries(false);
    for (ext, what, bytes) in archives(&entries) {
        for at in 0..bytes.len() {
            let mut data = bytes.clone();
            data[at] ^= 1 << (at % 8);
            let units = archive::read_archive(ext, &data, None);
            archive::check_units(&units, ext, data.len() as u64);
            // A plain tar has no checksum over its data: a flipped byte there reads as it is.
            if ext != "tar" {
                no_silent_change(&units, &entries, &format!("{what} flipped at {at}"));
            }
        }
    }
}

#[test]
fn junk_under_an_archive_name_is_an_io_diagnostic() {
    let mut rng = kifu::random::Rng::new(3);
    for ext in archive::KINDS {
        for len in [0usize, 1, 100, 512, 1024, 65536] {
            let data: Vec<u8> = (0..len).map(|_| rng.next_u64() as u8).collect();
            let units = archive::read_archive(ext, &data, None);
            archive::check_units(&units, ext, len as u64);
            assert!(
                units
                    .iter()
                    .all(|u| matches!(u.content, Content::Failed(_))),
                ".{ext} of {len} junk bytes gave record bytes"
            );
        }
    }
}

/// A GNU sparse entry (its holes would make a 2.5 KB tar stand for 256 MiB) is neither
/// expanded nor skipped in silence (as it was: the tar reader does not count it as a file): it
/// gets an `io` diagnostic, and the entries around it are read.
#[test]
fn a_sparse_tar_entry_is_not_expanded() {
    let entries = entries(false);
    let mut tar = Vec::new();
    let mut append = |name: &str, bytes: &[u8], sparse: bool| {
        let mut h = tar::Header::new_gnu();
        h.set_size(bytes.len() as u64);
        h.set_mode(0o644);
        if sparse {
            h.set_entry_type(tar::EntryType::GNUSparse);
            let real = 256u64 << 20;
            let g = h.as_gnu_mut().expect("gnu header");
            g.set_real_size(real);
            g.sparse[0].set_offset(real - bytes.len() as u64);
            g.sparse[0].set_length(bytes.len() as u64);
        }
        let name_bytes = &mut h.as_old_mut().name;
        name_bytes[..name.len()].copy_from_slice(name.as_bytes());
        h.set_cksum();
        tar.extend_from_slice(h.as_bytes());
        tar.extend_from_slice(bytes);
        tar.resize(tar.len().div_ceil(512) * 512, 0);
    };
    append(&entries[0].0, &entries[0].1, false);
    append("holes.usi", b"position startpos moves 7g7f\n", true);
    append(&entries[2].0, &entries[2].1, false);
    tar.extend_from_slice(&[0; 1024]);
    for (ext, data) in [("tar", tar.clone()), ("tar.gz", archive::gz_of(&tar))] {
        let units = archive::read_archive(ext, &data, None);
        archive::check_units(&units, ext, data.len() as u64);
        let paths: Vec<(&str, bool)> = units
            .iter()
            .map(|u| {
                let ok = matches!(u.content, Content::Bytes(_));
                let name = u.source.path.rsplit_once(&format!(".{ext}/"));
                (name.map_or("?", |(_, n)| n), ok)
            })
            .collect();
        assert_eq!(
            paths,
            [
                (entries[0].0.as_str(), true),
                ("holes.usi", false),
                (entries[2].0.as_str(), true)
            ],
            "{ext}"
        );
        let Content::Failed(d) = &units[1].content else {
            unreachable!()
        };
        assert!(d.message.contains("sparse"), "{}", d.message);
    }
}
