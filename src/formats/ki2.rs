//! KI2 reader and writer. The reader is shared with KIF (see `kakinoki`).

use super::kakinoki::{self, Dialect};
use super::{ParsedGame, WriteOptions, Written};
use crate::record::Record;

/// Reads KI2 text (one game). Never fails: lines that cannot be parsed are reported as
/// `syntax` diagnostics and skipped.
pub fn read(text: &str) -> Vec<ParsedGame> {
    vec![kakinoki::parse(text, Dialect::Ki2)]
}

/// Writes a record as ki2.
pub fn write(_record: &Record, _opts: &WriteOptions) -> Written {
    Written::default()
}
