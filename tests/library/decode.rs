//! Text decoding, encoding and format detection.

use crate::common;
use common::corpus_files;

use kifu::Code;
use kifu::formats::Format;
use kifu::formats::decode::{TextEncoding, decode, decode_in_place, detect_format, encode};

fn cp932(s: &str) -> Vec<u8> {
    encoding_rs::SHIFT_JIS.encode(s).0.into_owned()
}

#[test]
fn cp932_kif_and_utf8_kif() {
    let text = "先手：羽生善治\n手数----指手---------消費時間--\n   1 ７六歩(77)\n";
    let d = decode(&cp932(text), Some(Format::Kif), None);
    assert_eq!(d.encoding, TextEncoding::Cp932);
    assert_eq!(d.text, text);
    assert!(d.diagnostics.is_empty());
    // A .kif file that is really UTF-8 reads as UTF-8.
    let d = decode(text.as_bytes(), Some(Format::Kif), None);
    assert_eq!(d.encoding, TextEncoding::Utf8);
    assert_eq!(d.text, text);
    // A .kifu file that is really CP932 still reads (clean CP932 beats broken UTF-8).
    let d = decode(&cp932(text), Some(Format::Kifu), None);
    assert_eq!(d.encoding, TextEncoding::Cp932);
    assert_eq!(d.text, text);
}

#[test]
fn microsoft_extensions_decode() {
    // ① (0x8740) and ≒ (0x81E0), ∵ (0x81E6) and 髙 (0xFB, 0xFC) are CP932 extensions.
    let bytes = b"\x87\x40\xFB\xFC";
    let d = decode(bytes, Some(Format::Kif), None);
    assert_eq!(d.text, "①髙");
    assert!(d.diagnostics.is_empty());
}

#[test]
fn forced_encoding_wins() {
    let text = "後手：あ\n";
    let d = decode(
        text.as_bytes(),
        Some(Format::Kif),
        Some(TextEncoding::Cp932),
    );
    assert_eq!(d.encoding, TextEncoding::Cp932);
    assert_ne!(d.text, text);
    let d = decode(&cp932(text), Some(Format::Kifu), Some(TextEncoding::Utf8));
    assert_eq!(d.encoding, TextEncoding::Utf8);
    assert!(!d.diagnostics.is_empty());
    assert!(d.diagnostics.iter().all(|x| x.code == Code::Encoding));
    assert!(d.text.contains('\u{FFFD}'));
}

#[test]
fn declaration_overrides_extension() {
    let text = "#KIF version=2.0 encoding=UTF-8\n先手：あ\n";
    let d = decode(text.as_bytes(), Some(Format::Kif), None);
    assert_eq!(d.encoding, TextEncoding::Utf8);
    assert_eq!(d.text, text);
    let text = "'CSA encoding=SHIFT_JIS\nV3.0\nN+あ\n";
    let d = decode(&cp932(text), Some(Format::Csa), None);
    assert_eq!(d.encoding, TextEncoding::Cp932);
    assert_eq!(d.text, text);
}

#[test]
fn bad_cp932_bytes_are_reported_with_position() {
    let mut bytes = cp932("先手：あ\n後手：");
    bytes.extend_from_slice(b"\x85\x40"); // an unassigned lead/trail pair
    bytes.extend_from_slice(&cp932("い\n"));
    let d = decode(&bytes, Some(Format::Kif), None);
    assert_eq!(d.encoding, TextEncoding::Cp932);
    assert_eq!(d.diagnostics.len(), 1, "{:?}", d.diagnostics);
    let x = &d.diagnostics[0];
    assert_eq!(x.code, Code::Encoding);
    assert_eq!((x.line, x.column), (Some(2), Some(4)));
    assert!(d.text.starts_with("先手：あ\n後手：\u{FFFD}"));
    assert!(d.text.ends_with("い\n"));
}

#[test]
fn text_that_needs_no_decoding_is_borrowed_as_decode_would_give_it() {
    let cases: [(&[u8], Option<Format>, Option<TextEncoding>); 6] = [
        (b"\xEF\xBB\xBFV2.2\n", Some(Format::Csa), None),
        ("先手：あ\n".as_bytes(), Some(Format::Kif), None),
        (
            b"V2.2\nN+abc\n",
            Some(Format::Kif),
            Some(TextEncoding::Cp932),
        ),
        (b"V2.2\n", None, Some(TextEncoding::EucJp)),
        ("先手：あ\n".as_bytes(), None, None),
        (b"#KIF version=2.0 encoding=Shift_JIS\n", None, None),
    ];
    for (bytes, hint, forced) in cases {
        let borrowed = decode_in_place(bytes, hint, forced);
        let d = decode(bytes, hint, forced);
        assert!(d.diagnostics.is_empty(), "{bytes:?}");
        assert_eq!(borrowed, Some((d.text.as_str(), d.encoding)), "{bytes:?}");
    }
    // CP932, and UTF-8 forced to be read as CP932, are decoded anew.
    assert_eq!(decode_in_place(&cp932("あ"), None, None), None);
    let utf8 = "あ".as_bytes();
    assert_eq!(decode_in_place(utf8, None, Some(TextEncoding::Cp932)), None);
    assert_eq!(decode_in_place(b"\xFF", None, None), None);
}

#[test]
fn garbage_never_panics() {
    let mut x: u32 = 12345;
    for len in 0..200 {
        let bytes: Vec<u8> = (0..len)
            .map(|_| {
                x = x.wrapping_mul(1_103_515_245).wrapping_add(12345);
                (x >> 16) as u8
            })
            .collect();
        for hint in [None, Some(Format::Kif), Some(Format::Csa)] {
            for forced in [None, Some(TextEncoding::Utf8), Some(TextEncoding::Cp932)] {
                let d = decode(&bytes, hint, forced);
                let _ = detect_format(Some("kif"), &d.text);
            }
        }
    }
}

#[test]
fn encode_reports_unencodable() {
    let (bytes, warns) = encode("☖同　歩\n🐉", TextEncoding::Cp932);
    assert_eq!(encoding_rs::SHIFT_JIS.decode(&bytes).0, "△同　歩\n?");
    assert_eq!(warns.len(), 2);
    assert!(warns.iter().all(|w| w.code == Code::Lossy));
    assert_eq!((warns[1].line, warns[1].column), (Some(2), Some(1)));
    let (bytes, warns) = encode("☗", TextEncoding::Utf8);
    assert_eq!(bytes, "☗".as_bytes());
    assert!(warns.is_empty());
}

#[test]
fn detection_by_extension_and_content() {
    assert_eq!(detect_format(Some("csa"), ""), Some(Format::Csa));
    assert_eq!(detect_format(Some("KIF"), ""), Some(Format::Kif));
    assert_eq!(detect_format(None, "V2.2\nPI\n+\n"), Some(Format::Csa));
    assert_eq!(
        detect_format(None, "N+a\nN-b\nP1-KY-KE\n"),
        Some(Format::Csa)
    );
    assert_eq!(detect_format(None, "+7776FU\n-3334FU\n"), Some(Format::Csa));
    assert_eq!(
        detect_format(None, "position startpos moves 7g7f\n"),
        Some(Format::Usi)
    );
    assert_eq!(
        detect_format(None, "sfen 9/9/9/9/9/9/9/9/9 b - 1\n"),
        Some(Format::Usi)
    );
    assert_eq!(
        detect_format(None, " {\"header\":{},\"moves\":[{}]}"),
        Some(Format::Jkf)
    );
    assert_eq!(
        detect_format(None, "手合割：平手\n   1 ７六歩(77)\n"),
        Some(Format::Kifu)
    );
    assert_eq!(
        detect_format(None, "手合割：平手\n▲７六歩　△３四歩\n"),
        Some(Format::Ki2u)
    );
    // A wrong extension loses to plain content.
    assert_eq!(
        detect_format(Some("kif"), "V2\n+\n+7776FU\n"),
        Some(Format::Csa)
    );
    assert_eq!(
        detect_format(Some("kif"), "▲７六歩　△同　歩\n"),
        Some(Format::Ki2)
    );
    assert_eq!(detect_format(Some("txt"), "hello"), None);
}

#[test]
fn corpus_decodes_cleanly() {
    let Some(all) = corpus_files("corpus_decodes_cleanly", &[]) else {
        return;
    };
    let mut checked = 0;
    let mut undetected = Vec::new();
    for p in all {
        let Some(ext) = p.extension().and_then(|e| e.to_str()) else {
            continue;
        };
        let Some(fmt) = Format::from_extension(ext) else {
            continue;
        };
        let bytes = std::fs::read(&p).unwrap();
        let d = decode(&bytes, Some(fmt), None);
        let s = p.to_string_lossy();
        // Binary junk and EUC-JP logs may not decode; everything else must.
        if s.contains("error_fixtures") {
            continue;
        }
        assert!(d.diagnostics.is_empty(), "{s}: {:?}", d.diagnostics.first());
        assert!(!d.text.contains('\u{FFFD}'), "{s}");
        // Content agrees with the extension, and content alone finds the format family.
        let family = |f: Format| match f {
            Format::Kif | Format::Kifu | Format::Ki2 | Format::Ki2u => "kif/ki2",
            f => f.name(),
        };
        let got = detect_format(Some(ext), &d.text);
        assert_eq!(got.map(family), Some(family(fmt)), "{s}");
        let alone = detect_format(None, &d.text);
        if alone.map(family) != Some(family(fmt)) && !d.text.starts_with("../") {
            undetected.push(format!("{s}: {alone:?}"));
        }
        checked += 1;
    }
    assert!(checked > 100, "{checked}");
    assert!(undetected.is_empty(), "{}", undetected.join("\n"));
}
