//! Tables for analysts and engine trainers: one row per game ([`GameRow`]) or one row per move
//! ([`PositionRow`]), typed columns ([`games_schema`], [`positions_schema`]), and their
//! writers: CSV (RFC 4180, a header row), JSON Lines, and Arrow [`RecordBatch`](arrow_array::RecordBatch)es written to
//! Parquet (zstd) a row group at a time ([`ParquetTable`]).
//!
//! The rows are taken from a game's [`Digest`](crate::validate::Digest) (what the validator
//! gathers of a game as it reads it, or of a record) and its validation report, one game at a
//! time, so nothing outlives its game; [`GamesBatch`] and [`PositionsBatch`] gather rows into
//! a `RecordBatch` without writing anything, for a caller that hands the batches on (to
//! pyarrow, say). [`Filter`] picks the games a command keeps (ratings, plies, endings, dates,
//! players, events, errors, duplicates), shared by every command of the command line.
//!
//! Layer: beside [`stats`](crate::stats), above [`validate`](crate::validate): it folds
//! validated games. The jobs that drive a batch run and write the files (atomically, in input
//! order) are in the application (`kifu-app`'s `commands`).
//!
//! The columns are documented in `docs/tables.md`.
//!
//! ```
//! use kifu::formats::Format;
//! use kifu::tables::{GameRow, GamesBatch, Options, Origin, PositionRows, PositionsBatch};
//! use kifu::validate::{Gather, gather_text};
//!
//! let text = "startpos moves 7g7f 3c3d 8h2b+ resign\n";
//! let (report, game) = gather_text(Format::Usi, text, &Default::default(), Gather::Positions)
//!     .remove(0);
//! let origin = Origin { path: "a.usi", game: 0, format: Some("usi"), encoding: None };
//! let row = GameRow::new(origin, &game, &report, &Options::default());
//! let mut games = GamesBatch::new();
//! games.push(&row);
//! let batch = games.finish(); // an arrow_array::RecordBatch, no file involved
//! assert_eq!((batch.num_rows(), batch.num_columns()), (1, 39));
//!
//! let mut rows = PositionRows::new();
//! rows.push(&game, report.plies, report.result.winner, "a.usi".into(), 0);
//! let mut moves = PositionsBatch::new();
//! for r in rows.iter() {
//!     moves.push(&r);
//! }
//! assert_eq!(moves.finish().num_rows(), 3);
//! ```

// The writers (Arrow batches, Parquet, and CSV and JSON Lines, which take their columns from
// the Arrow schemas) need the `parquet` feature; the rows and the filter do not.
#[cfg(feature = "parquet")]
mod arrow;
#[cfg(feature = "parquet")]
mod columns;
mod date;
mod filter;
mod games;
#[cfg(feature = "parquet")]
mod parquet;
mod positions;
#[cfg(feature = "parquet")]
mod text;

#[cfg(feature = "parquet")]
pub use self::arrow::{GamesBatch, PositionsBatch, games_schema, position_rows, positions_schema};
#[cfg(feature = "parquet")]
pub use self::parquet::project;
#[cfg(feature = "parquet")]
pub use self::parquet::{GAMES_ROW_GROUP_ROWS, ParquetTable, ROW_GROUP_ROWS};
#[cfg(feature = "parquet")]
pub use columns::{Columns, ColumnsError};
pub use date::{DateTime, parse_date, parse_datetime};
pub use filter::{Dedup, Facts, Filter};
pub use games::{GameRow, Origin, ratings};
pub use positions::{EngineEval, PositionRow, PositionRows, engine_eval, line_sfens};
#[cfg(feature = "parquet")]
pub use text::{TextStyle, TextTable};

pub use crate::record::game_key::game_key;

use std::sync::OnceLock;

/// How to make the rows.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Options {
    /// Plies of the `opening` column (a game shorter than this has none).
    pub opening_plies: usize,
}

impl Default for Options {
    fn default() -> Self {
        Options { opening_plies: 8 }
    }
}

/// Which table.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Table {
    /// One row per game.
    Games,
    /// One row per move of the main line.
    Positions,
}

/// The SFEN of the even start position.
pub(crate) fn even_sfen() -> &'static str {
    static SFEN: OnceLock<String> = OnceLock::new();
    SFEN.get_or_init(|| crate::core::Setup::startpos().to_sfen())
}

/// A 64-bit value as 16 lower-case hexadecimal digits (how keys and hashes are written).
pub fn hex(v: u64) -> String {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    let mut text = [0u8; 16];
    for (i, d) in text.iter_mut().enumerate() {
        *d = DIGITS[((v >> (60 - 4 * i)) & 0xf) as usize];
    }
    std::str::from_utf8(&text).unwrap_or_default().to_owned()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::formats::{self, Format};
    use crate::record::Record;

    fn record(text: &str) -> Record {
        let mut g = formats::read(Format::Usi, text).remove(0);
        crate::validate::validate_game(&mut g, &Default::default());
        g.record
    }

    #[test]
    fn the_key_follows_start_and_moves_not_the_writing() {
        let a = record("startpos moves 7g7f 3c3d\n");
        let b = record(
            "sfen lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1 moves 7g7f 3c3d\n",
        );
        let c = record("startpos moves 2g2f 3c3d\n");
        assert_eq!(game_key(&a), game_key(&b));
        assert_ne!(game_key(&a), game_key(&c));
        // A fixed value: the key must not change between builds.
        assert_eq!(hex(game_key(&a)).len(), 16);
        assert_eq!(
            hex(game_key(&a)),
            hex(game_key(&record("startpos moves 7g7f 3c3d resign\n")))
        );
    }

    #[test]
    fn hex_writes_sixteen_lower_case_digits() {
        for v in [
            0,
            1,
            0xabc,
            0x0123_4567_89ab_cdef,
            0xfedc_ba98_7654_3210,
            u64::MAX,
        ] {
            assert_eq!(hex(v), format!("{v:016x}"));
        }
    }
}
