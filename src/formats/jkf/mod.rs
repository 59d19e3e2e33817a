//! JSON Kifu Format (JKF): reader and writer.
//!
//! The reader is lenient: JSON that does not parse is one `syntax` diagnostic with the line and
//! column serde_json reports; a move entry it cannot understand is a `syntax` diagnostic and is
//! skipped. Unknown properties are ignored. `initial.preset: "OTHER"` stays an explicit setup
//! even when it equals a standard position, so JKF → record → JKF gives the same JSON. Each move
//! node's span is where its entry (`{`) starts in the text. Documents of the plain shape writers
//! produce are told in one pass to a visitor (`one_pass.rs`); anything else (and every
//! document that gets a diagnostic) is read by the general path, serde_json into a generic
//! value and a structural scan for the entries' places.
//!
//! The writer follows the reference converters (json-kifu-format's normalizer, as used by
//! sugyan/shogi-kifu-converter): every move gets `color`, `from` (absent for drops), `to`,
//! `piece` (the kind before the move), `same: true` when it lands where the previous move of
//! its line landed, `promote` exactly when the move could promote (`true`/`false`), `capture`
//! with the kind taken (promoted kinds kept), and `relative` when another piece of the same
//! kind could reach the square (KI2 rules: `L`/`C`/`R`, `U`/`M`/`D`, `H` for drops). Times are
//! `now {m, s}` and `total {h, m, s}`; cumulative totals are computed per side when the record
//! has none (CSA). Comments are written as they are in the record.

mod one_pass;
mod read;
mod scan;
mod value;
mod write;

pub use read::Reader;

/// For tests and fuzzing: what the one pass reads of `text` (its BOM removed; `None` where it
/// gives up) beside what the general reader reads. Where the one pass reads, the two must be
/// equal, record and diagnostics.
#[cfg(any(test, feature = "testing"))]
#[doc(hidden)]
pub fn one_pass_and_general(
    text: &str,
) -> (
    Option<crate::formats::ParsedGame>,
    crate::formats::ParsedGame,
) {
    let text = text.trim_start_matches('\u{FEFF}');
    let mut builder =
        crate::formats::visit::Builder::new(Some(crate::formats::analysis::Family::Jkf));
    let one = one_pass::tell(text, &mut builder);
    let general = read::general(text).remove(0);
    (one, general)
}
pub use read::read;
pub use write::{to_value, write};

/// The JSON nesting serde_json reads (its recursion limit), which this reader and other
/// parsers with a nesting limit (serde_json's default) refuse to exceed.
pub const MAX_JSON_DEPTH: u32 = 128;

/// The deepest variation nesting the writer writes: 40 levels. Each level nests three JSON
/// levels (a `forks` array, a line array, a move object) below the `moves` array of the
/// document object, and a move object holds objects two levels deep (`move.from`,
/// `time.now`), so 40 levels reach JSON depth 3 × 40 + 5 = 125, within
/// [`MAX_JSON_DEPTH`]. Deeper variations (KIF allows 1000 levels) are not written, with a
/// `lossy` warning, so that what the writer writes always reads back.
pub const MAX_VARIATION_DEPTH: u32 = 40;
