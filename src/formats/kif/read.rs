//! Reading KIF: the reader shared with KI2 (`formats::kakinoki`) in its KIF dialect.
//!
//! Formats layer: uses `core` and `record`, nothing above.

use crate::formats::ParsedGame;
use crate::formats::kakinoki::{self, Dialect};

/// Reads KIF text (one game). Never fails: lines that cannot be parsed are reported as
/// `syntax` diagnostics and skipped.
///
/// ```
/// let games = kifu::formats::kif::read("手合割：平手\n   1 ７六歩(77)   ( 0:16/00:00:16)\n   2 投了\n");
/// let rec = &games[0].record;
/// assert_eq!(rec.plies(), 1);
/// assert_eq!(rec.end().map(|s| s.text.as_str()), Some("投了"));
/// ```
pub fn read(text: &str) -> Vec<ParsedGame> {
    vec![kakinoki::parse(text, Dialect::Kif)]
}
