//! Validation (read, resolve, replay every line, judge the result) never panics, nor does
//! making the game's row of the games table, which reads every header value (dates, times,
//! time controls, ratings, handicaps, players). The first byte chooses the format; the rest
//! is the file's bytes, decoded as the CLI does.
#![no_main]
use kifu::formats::{self, Format, decode};
use kifu::tables::{GameRow, Origin};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Some((&sel, bytes)) = data.split_first() else {
        return;
    };
    let Some(&format) = Format::ALL.get(usize::from(sel) % Format::ALL.len()) else {
        return;
    };
    let text = decode::decode(bytes, Some(format), None).text;
    let opts = kifu::validate::Options::default();
    for (i, mut game) in formats::read(format, &text).into_iter().enumerate() {
        let (report, digest) =
            kifu::validate::digest(&mut game, &opts, kifu::validate::Gather::Games);
        let origin = Origin {
            path: "fuzz",
            game: i as u64,
            format: None,
            encoding: None,
        };
        let _ = GameRow::new(origin, &digest, &report, &Default::default());
    }
});
