//! `kifu`: read, check, convert and summarise shogi game records.
//!
//! Layers, lowest first (no module uses one above it):
//!
//! * [`core`]: squares, pieces, positions, move generation and the rules. Knows no format.
//! * [`record`]: the format-neutral game record.
//! * [`formats`]: KIF, KI2, CSA, USI/SFEN and JKF readers and writers; text decoding.
//! * [`validate`]: replay a record through the core, verify its result, emit diagnostics.
//! * [`stats`]: fold validated games into statistics.
//! * [`batch`]: find inputs, run the pipeline in parallel, keep output order.
//! * [`report`]: validate reports for people (compiler style) and machines (JSON Lines), the
//!   summary and the exit code; drives a batch run of `validate`.
//! * [`convert`]: plan outputs (names, collisions, refusals), write them atomically, report per
//!   game; drives a batch run of `convert`.
#![forbid(unsafe_code)]
#![warn(missing_docs)]

pub mod batch;
pub mod convert;
pub mod core;
pub mod diag;
pub mod formats;
pub mod random;
pub mod record;
pub mod report;
pub mod stats;
pub mod validate;

pub use diag::{Code, Diagnostic, Severity};

/// The examples in README.md, run as doctests so that they stay true.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;
