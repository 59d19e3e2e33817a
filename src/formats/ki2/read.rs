//! Reading KI2: the reader shared with KIF (`formats::kakinoki`) in its KI2 dialect.
//!
//! Formats layer: uses `core` and `record`, nothing above.

use crate::formats::ParsedGame;
use crate::formats::kakinoki::{self, Dialect};

/// Reads KI2 text (one game). Never fails: lines that cannot be parsed are reported as
/// `syntax` diagnostics and skipped.
///
/// ```
/// let rec = kifu::formats::ki2::read("▲７六歩　△３四歩\n▲２二角成 △同銀\nまで4手で中断\n").remove(0).record;
/// assert_eq!(rec.plies(), 4);
/// assert_eq!(rec.end().map(|s| s.kind), Some(kifu::record::SpecialKind::Interrupt));
/// ```
pub fn read(text: &str) -> Vec<ParsedGame> {
    vec![kakinoki::parse(text, Dialect::Ki2)]
}
