//! jkf reader and writer (scaffolding: replaced by the real implementation).

use super::{ParsedGame, WriteOptions, Written};
use crate::record::Record;

/// Reads jkf text.
pub fn read(_text: &str) -> Vec<ParsedGame> {
    Vec::new()
}

/// Writes a record as jkf.
pub fn write(_record: &Record, _opts: &WriteOptions) -> Written {
    Written::default()
}
