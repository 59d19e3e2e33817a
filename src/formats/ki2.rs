//! ki2 reader and writer (scaffolding: replaced by the real implementation).

use super::{ParsedGame, WriteOptions, Written};
use crate::record::Record;

/// Reads ki2 text.
pub fn read(_text: &str) -> Vec<ParsedGame> {
    Vec::new()
}

/// Writes a record as ki2.
pub fn write(_record: &Record, _opts: &WriteOptions) -> Written {
    Written::default()
}
