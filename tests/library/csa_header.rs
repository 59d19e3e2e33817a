//! CSA header keys and the format-neutral header (issue #20): V3.0's `$TIME`, `$TIME+`,
//! `$TIME-`, `$MAX_MOVES`, `$JISHOGI` and `$NOTE` reach KIF and JKF under their Japanese keys,
//! and a KIF header is carried over to CSA (`$TIME_LIMIT` / `$TIME`, `$START_TIME`, the rest
//! as `'key：value` comments read back as entries) rather than dropped.

use crate::as_read;

use kifu::formats::time_control::{SideTime, TimeControl};
use kifu::formats::{Format, WriteOptions, csa, kif, write};
use kifu::record::keys;
use kifu::validate::{self, Options};

fn fixture(name: &str) -> String {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/fixtures/csa/").to_owned() + name;
    std::fs::read_to_string(path).expect("fixture")
}

fn read_one(format: Format, text: &str) -> kifu::ParsedGame {
    let mut games = kifu::read(format, text);
    assert_eq!(games.len(), 1);
    let mut g = games.remove(0);
    let report = validate::validate_game(&mut g, &Options::default());
    assert!(
        report
            .diagnostics
            .iter()
            .all(|d| d.code == kifu::Code::Lossy),
        "{:?}",
        report.diagnostics
    );
    g
}

#[test]
fn v3_keys_map_to_the_neutral_header() {
    let g = read_one(Format::Csa, &fixture("v3-header.csa"));
    let h = &g.record.header;
    assert_eq!(h.get(keys::TIME_CONTROL), Some("600+30+0"));
    assert_eq!(h.get(keys::BLACK_TIME_CONTROL), Some("600+0+10"));
    assert_eq!(h.get(keys::WHITE_TIME_CONTROL), Some("300+0+10"));
    assert_eq!(h.get(keys::MAX_MOVES), Some("256"));
    assert_eq!(h.get(keys::JISHOGI), Some("27"));
    assert_eq!(h.get(keys::NOTE), Some("hand-made for the V3.0 keys"));
    assert!(h.entries.iter().all(|e| !e.key.starts_with('$')), "{h:?}");
    // Per-side allowances win over the common one, as the fast path reads them too.
    let tc = TimeControl::of(h).expect("time control");
    assert_eq!(
        tc.white,
        SideTime {
            main_ms: 300_000,
            byoyomi_ms: Some(0),
            increment_ms: 10_000
        }
    );
}

#[test]
fn v3_keys_reach_kif_and_jkf_and_come_back() {
    let g = read_one(Format::Csa, &fixture("v3-header.csa"));
    let kif = kif::write(&g.record, &WriteOptions::default()).text;
    for line in [
        "持ち時間：600+30+0",
        "先手持ち時間：600+0+10",
        "後手持ち時間：300+0+10",
        "最大手数：256",
        "持将棋：27",
        "備考：hand-made for the V3.0 keys",
    ] {
        assert!(kif.lines().any(|l| l == line), "{line} missing in\n{kif}");
    }
    let jkf = write(Format::Jkf, &g.record, &WriteOptions::default()).text;
    assert!(jkf.contains("\"最大手数\""), "{jkf}");
    assert!(jkf.contains("\"先手持ち時間\""), "{jkf}");
    // Back to CSA V3.0: the `$` keys again.
    let back = read_one(Format::Kifu, &kif);
    let v3 = csa::write(
        &back.record,
        &WriteOptions {
            csa_v3: true,
            ..Default::default()
        },
    )
    .text;
    for line in [
        "$TIME:600+30+0",
        "$TIME+:600+0+10",
        "$TIME-:300+0+10",
        "$MAX_MOVES:256",
        "$JISHOGI:27",
        "$NOTE:hand-made for the V3.0 keys",
    ] {
        assert!(v3.lines().any(|l| l == line), "{line} missing in\n{v3}");
    }
    // V2.2 has none of these keys: comments, read back as the same entries.
    let v2 = csa::write(&back.record, &WriteOptions::default());
    assert!(!v2.text.contains("$TIME:"), "{}", v2.text);
    assert!(
        v2.text.lines().any(|l| l == "'最大手数：256"),
        "{}",
        v2.text
    );
    assert!(
        v2.text.lines().any(|l| l == "'先手持ち時間：600+0+10"),
        "{}",
        v2.text
    );
    // The common allowance fits V2.2's form.
    assert!(
        v2.text.lines().any(|l| l == "$TIME_LIMIT:00:10+30"),
        "{}",
        v2.text
    );
    let again = read_one(Format::Csa, &v2.text);
    for key in [
        keys::BLACK_TIME_CONTROL,
        keys::WHITE_TIME_CONTROL,
        keys::MAX_MOVES,
        keys::JISHOGI,
        keys::NOTE,
    ] {
        assert_eq!(
            again.record.header.get(key),
            g.record.header.get(key),
            "{key}"
        );
    }
    assert_eq!(
        TimeControl::of(&again.record.header),
        TimeControl::of(&g.record.header)
    );
}

const KIF: &str = "開始日時：2024/01/02 10:00\n終了日時：2024/01/02 12:00\n棋戦：テスト棋戦\n\
場所：東京\n表題：第1局\n持ち時間：各10分\n秒読み：30秒\n記録係：山田\n\
手数----指手---------消費時間--\n   1 ７六歩(77)   ( 0:01/)\n   2 投了\n";

#[test]
fn a_kif_header_is_carried_over_to_csa() {
    let g = read_one(Format::Kifu, KIF);
    let v2 = csa::write(&g.record, &WriteOptions::default());
    let lines: Vec<&str> = v2.text.lines().collect();
    for line in [
        "$START_TIME:2024/01/02 10:00",
        "$END_TIME:2024/01/02 12:00",
        "$EVENT:テスト棋戦",
        "$SITE:東京",
        "$TIME_LIMIT:00:10+30",
        "'表題：第1局",
        "'記録係：山田",
    ] {
        assert!(lines.contains(&line), "{line} missing in\n{}", v2.text);
    }
    // 秒読み is in $TIME_LIMIT; the wording's change is said.
    assert!(!v2.text.contains("秒読み"), "{}", v2.text);
    assert_eq!(v2.warnings.len(), 1, "{:?}", v2.warnings);
    assert!(
        v2.warnings[0].message.contains("各10分"),
        "{:?}",
        v2.warnings
    );
    let v3 = csa::write(
        &g.record,
        &WriteOptions {
            csa_v3: true,
            ..Default::default()
        },
    )
    .text;
    assert!(v3.lines().any(|l| l == "$TIME:600+30+0"), "{v3}");
    // Read back: the same entries and the same clock.
    let back = read_one(Format::Csa, &v2.text);
    for key in ["表題", "記録係", keys::START, keys::EVENT] {
        assert_eq!(
            back.record.header.get(key),
            g.record.header.get(key),
            "{key}"
        );
    }
    assert_eq!(
        TimeControl::of(&back.record.header),
        TimeControl::of(&g.record.header)
    );
}

#[test]
fn a_time_control_csa_cannot_state_is_a_comment_read_back() {
    // Fischer does not fit V2.2's `$TIME_LIMIT`; a main time alone says nothing of byoyomi.
    for (wording, v2_line) in [
        (
            "10分+1手ごとに10秒加算",
            "'持ち時間：10分+1手ごとに10秒加算",
        ),
        ("各5時間", "'持ち時間：各5時間"),
    ] {
        let text = KIF.replace("各10分", wording).replace("秒読み：30秒\n", "");
        let g = read_one(Format::Kifu, &text);
        let v2 = csa::write(&g.record, &WriteOptions::default()).text;
        assert!(v2.lines().any(|l| l == v2_line), "{v2}");
        assert!(!v2.contains("$TIME_LIMIT"), "{v2}");
        let back = read_one(Format::Csa, &v2);
        assert_eq!(back.record.header.get(keys::TIME_CONTROL), Some(wording));
        // `validate` reads the same clock as read and from a record.
        as_read::assert_agree(Format::Csa, &v2, &Options::default());
    }
}

#[test]
fn judged_as_read_agrees_on_v3_and_carried_clocks() {
    let games = [
        fixture("v3-header.csa"),
        // `$TIME_LIMIT` and `$TIME` both: the first one is the clock, both ways.
        "V2.2\n$TIME_LIMIT:00:00+01\n$TIME:600+0+0\nPI\n+\n+7776FU\nT5\n%TORYO\n".to_owned(),
        "V2.2\n$TIME:600+0+0\n$TIME_LIMIT:00:00+01\nPI\n+\n+7776FU\nT5\n%TORYO\n".to_owned(),
        "V2.2\n'持ち時間：0分+秒読み1秒\nPI\n+\n+7776FU\nT5\n%TORYO\n".to_owned(),
    ];
    let mut exceeded = 0;
    for text in &games {
        as_read::assert_agree(Format::Csa, text, &Options::default());
        let reports = validate::validate_csa(text, &Options::default());
        exceeded += reports
            .iter()
            .flat_map(|r| &r.diagnostics)
            .filter(|d| d.code == kifu::Code::TimeExceeded)
            .count();
    }
    // The 1-second byoyomi games (the second and fourth) go over it.
    assert_eq!(exceeded, 2);
}

#[test]
fn a_second_side_clock_keeps_its_own_value() {
    // Found by the mutation smoke test: two `$TIME-` lines, the second one not a clock the
    // crate reads. Each entry is written with its own value (the second as a comment that
    // reads back as the entry), not both with the first one's.
    let text = "V3.0\n$TIME+:600+0+10\n$TIME-:300+0+10\n$TIME-:300+0+1x\nPI\n+\n+7776FU\n";
    let g = read_one(Format::Csa, text);
    let opts = WriteOptions {
        csa_v3: true,
        ..WriteOptions::default()
    };
    let out = write(Format::Csa, &g.record, &opts);
    assert!(out.text.contains("$TIME-:300+0+10\n"), "{}", out.text);
    assert!(
        !out.text.contains("$TIME-:300+0+10\n$TIME-:300+0+10"),
        "{}",
        out.text
    );
    let back = read_one(Format::Csa, &out.text);
    let whites: Vec<&str> = back
        .record
        .header
        .entries
        .iter()
        .filter(|e| e.key == keys::WHITE_TIME_CONTROL)
        .map(|e| e.value.as_str())
        .collect();
    assert_eq!(whites, ["300+0+10", "300+0+1x"], "{}", out.text);
    // A value already in V3.0's form is written as it is (leading zeros and all).
    let text = "V3.0\n$TIME+:600+010+10\n$TIME-:300+0+10\nPI\n+\n+7776FU\n";
    let g = read_one(Format::Csa, text);
    let out = write(Format::Csa, &g.record, &opts);
    assert!(out.text.contains("$TIME+:600+010+10\n"), "{}", out.text);
    assert!(out.warnings.is_empty(), "{:?}", out.warnings);
}
