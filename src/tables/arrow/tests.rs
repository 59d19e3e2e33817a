use super::*;
use crate::formats::{self, Format};
use crate::validate::{Gather, Winner};

/// The rows of the first game of each text (its path named), validated, White winning.
fn rows_of(texts: &[(&str, &str)], format: Format) -> PositionRows {
    let mut rows = PositionRows::new();
    for (path, text) in texts {
        let mut g = formats::read(format, text).remove(0);
        let (r, game) = crate::validate::digest(&mut g, &Default::default(), Gather::Positions);
        rows.push(&game, r.plies, Some(Winner::White), (*path).into(), 0);
    }
    rows
}

/// A batch made from the columns as they are holds the rows they read as, with and
/// without engine evaluations, and with a move that is not ASCII (an unresolved move of
/// KIF, kept as written).
#[test]
fn a_batch_holds_the_rows() {
    let analysis = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/fixtures/csa/analysis-floodgate.csa"
    ))
    .expect("fixture");
    let cases = [
        rows_of(
            &[
                (
                    "0123456789abcdef",
                    "startpos moves 7g7f 3c3d 8h2b+ 3a2b B*4e\n",
                ),
                ("fedcba9876543210", "startpos moves 2g2f 8c8d 2f2e P*2c\n"),
            ],
            Format::Usi,
        ),
        rows_of(&[("a", analysis.as_str())], Format::Csa),
        // An unresolved move of KIF, kept as written.
        rows_of(
            &[(
                "k",
                "手数----指手----消費時間--\n   1 ７六歩(77)\n   2 ３四歩(33)\n   3 ２二角成(99)\n",
            )],
            Format::Kif,
        ),
    ];
    for (i, rows) in cases.into_iter().enumerate() {
        // The last case's moves are Japanese text.
        assert_eq!(rows.mv.is_ascii(), i < 2, "case {i}");
        let want: Vec<String> = rows.iter().map(|r| format!("{r:?}")).collect();
        assert!(!want.is_empty());
        let batch = rows.into_batch();
        assert_eq!(batch.schema(), positions_schema());
        let got: Vec<String> = position_rows(&batch)
            .expect("a positions batch")
            .iter()
            .map(|r| format!("{r:?}"))
            .collect();
        assert_eq!(got, want);
    }
}

/// A batch of some columns is the full batch's columns (game keys, texts, evaluations),
/// in the order asked, and the same as the batch made a row at a time (the way of rows
/// past 2 GiB of text); rows made without SFENs are the same rows with an empty SFEN each.
#[test]
fn a_batch_of_some_columns_is_the_full_ones() {
    let analysis = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/fixtures/csa/analysis-floodgate.csa"
    ))
    .expect("fixture");
    let kif = "手数----指手----消費時間--\n   1 ７六歩(77)\n   2 ３四歩(33)\n   3 ２二角成(99)\n";
    let cases = [
        (analysis.as_str(), Format::Csa),
        ("startpos moves 7g7f 3c3d 8h2b+ 3a2b B*4e\n", Format::Usi),
        (kif, Format::Kif),
    ];
    let choices: [&[usize]; 5] = [&[2, 4, 10], &[8, 0], &[6, 7], &[10, 9, 5, 3, 1], &[4]];
    for (text, format) in cases {
        let rows = rows_of(&[("0123456789abcdef", text)], format);
        let full = rows.clone().into_batch();
        for columns in choices {
            let got = rows.clone().into_batch_of(Some(columns));
            assert_eq!(got, full.project(columns).expect("project"), "{columns:?}");
            assert_eq!(rows.batch_by_rows(columns), got, "{columns:?}");
        }
        let all: Vec<usize> = (0..positions_schema().fields().len()).collect();
        assert_eq!(rows.batch_by_rows(&all), full);
        let mut g = formats::read(format, text).remove(0);
        let (r, game) = crate::validate::digest(&mut g, &Default::default(), Gather::Positions);
        let mut bare = PositionRows::without_sfens();
        bare.push(
            &game,
            r.plies,
            Some(Winner::White),
            "0123456789abcdef".into(),
            0,
        );
        assert!(bare.sfen.is_empty());
        let want: Vec<String> = rows
            .iter()
            .map(|r| format!("{:?}", PositionRow { sfen: "", ..r }))
            .collect();
        let got: Vec<String> = bare.iter().map(|r| format!("{r:?}")).collect();
        assert_eq!(got, want);
    }
}
