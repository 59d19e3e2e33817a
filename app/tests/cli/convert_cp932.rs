//! Converting to a CP932 target reports every character Shift_JIS cannot hold as written,
//! the ones the encoder replaces silently included (issue #20): `−` (U+2212) becoming `－`,
//! `¥` becoming `\`, `‾` becoming `~`.

use kifu::Format;
use kifu::formats::WriteOptions;
use kifu::validate::Options;
use kifu_app::convert::convert_game;

#[test]
fn silent_shift_jis_substitutions_are_lossy_warnings() {
    let text =
        "先手：A¥B\n手数----指手---------消費時間--\n   1 ７六歩(77)\n*評価値 −35 ‾\n   2 投了\n";
    let mut games = kifu::read(Format::Kifu, text);
    let c = convert_game(
        &mut games[0],
        Format::Kif,
        &Options::default(),
        &WriteOptions::default(),
    );
    let lossy: Vec<&str> = c
        .diagnostics
        .iter()
        .filter(|d| d.code == kifu::Code::Lossy)
        .map(|d| d.message.as_str())
        .collect();
    assert_eq!(lossy.len(), 3, "{lossy:?}");
    for (i, cp) in ["U+00A5", "U+2212", "U+203E"].iter().enumerate() {
        assert!(lossy[i].contains(cp), "{lossy:?}");
        assert!(lossy[i].contains("output line"), "{lossy:?}");
    }
    // The same record to UTF-8 KIF loses nothing.
    let u = convert_game(
        &mut kifu::read(Format::Kifu, text).remove(0),
        Format::Kifu,
        &Options::default(),
        &WriteOptions::default(),
    );
    assert!(u.diagnostics.iter().all(|d| d.code != kifu::Code::Lossy));
}
