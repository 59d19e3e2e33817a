//! `kifu-app`: the application over the [`kifu`] library, shared by the `kifu` command line,
//! the Python package (`python/`) and the page (`web/`). None of it is the library's face.
//!
//! Layers, lowest first, all above the library (no module here uses one above it, and nothing
//! in `kifu` uses this crate; `tests/library/layering.rs` keeps both):
//!
//! * [`batch`]: find inputs (files, directories, archives, standard input), cut them into
//!   units, read and judge each unit, run a function over the units in parallel and hand the
//!   results back in input order; [`batch::atomic`] writes outputs so that a crash leaves no
//!   half-written file.
//! * [`commands`]: the runs of the commands over a batch, each in its file (`validate`,
//!   `stats`, the tables of `games` and `positions`, [`commands::find`], [`commands::show`]),
//!   and the validate reports for people (compiler style) and machines (JSON Lines), the
//!   summary and the exit code.
//! * [`convert`]: plan outputs (names, collisions, refusals), write them atomically, report per
//!   game; drives a batch run of `convert`.
//!
//! The binary (`src/bin/kifu.rs`, features `cli` and `parquet`) parses the arguments and
//! calls these.
#![forbid(unsafe_code)]
#![warn(missing_docs)]

pub mod batch;
pub mod commands;
pub mod convert;
