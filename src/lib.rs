//! `kifu`: read, check, convert and summarise shogi game records.
//!
//! The few things most programs need are here at the root: read a text with [`read`] (or
//! bytes in any encoding with [`formats::read_bytes`]), validate it with [`validate_game`] or
//! [`validate_text`], write it with [`write()`]; [`Position`] and [`Move`] for the rules.
//!
//! ```
//! use kifu::Format;
//! use kifu::validate::Options;
//!
//! let mut games = kifu::read(Format::Usi, "startpos moves 7g7f 3c3d 8h2b+\n");
//! let report = kifu::validate_game(&mut games[0], &Options::default());
//! assert!(report.diagnostics.is_empty());
//! let csa = kifu::write(Format::Csa, &games[0].record, &Default::default());
//! assert!(csa.text.contains("+8822UM"));
//! ```
//!
//! Layers, lowest first (no module uses one above it; data flows upward, from text to
//! records to reports):
//!
//! * [`core`]: squares, pieces, positions, move generation and the rules. Knows no format.
//! * [`diag`]: diagnostics (codes, severities, where in the text), shared by every layer above.
//! * [`record`]: the format-neutral game record, its one tree walker and move resolution.
//! * [`formats`]: KIF, KI2, CSA, USI/SFEN and JKF readers and writers; text decoding.
//! * [`validate`]: replay a record through the core, verify its result, emit diagnostics.
//! * [`stats`]: fold validated games into statistics.
//! * [`tables`]: one row per game or per move (CSV, JSON Lines, Arrow batches, Parquet), and
//!   the filter every command shares.
//! * `random` (feature `testing`): reproducible random legal games for tests and benchmarks.
//!
//! The application over the library (the `kifu` command line, the batch engine over files and
//! archives, the runs of the commands and their reports, conversion plans and atomic outputs)
//! is the workspace's `kifu-app` crate (`app/`), which the Python package and the page share.
#![forbid(unsafe_code)]
#![warn(missing_docs)]

pub mod core;
pub mod diag;
pub mod formats;
#[cfg(feature = "testing")]
pub mod random;
pub mod record;
pub mod stats;
pub mod tables;
pub mod validate;

pub use core::{Color, Move, Position};
pub use diag::{Code, Diagnostic, Severity};
pub use formats::{Format, ParsedGame, WriteOptions, read, write};
pub use record::Record;
pub use validate::{Report, validate_game, validate_text};

/// The examples in README.md, run as doctests so that they stay true.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;
