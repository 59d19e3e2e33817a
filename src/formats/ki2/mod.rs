//! KI2 reader and writer.
//!
//! The reader is shared with KIF (see `kakinoki`): KI2 has no move numbers, no source squares
//! and no times; moves are `▲７六歩`-style tokens, several to a line, and the result is only in
//! the `まで…` line. Choice made here: the reader turns a `まで` line that states an ending into
//! a special node at the end of the line it follows (its text is the whole `まで` line), so a
//! KI2 record has an end like any other; `Record::footer` keeps the main line's `まで` line too.
//!
//! The writer follows the record on the lenient board (`formats::board::LenientBoard`),
//! stopping a line where the rules core could not carry a move out, to write the minimal JSA
//! suffixes (docs/formats.md §2.2): none when one piece of the kind reaches the destination, else
//! movement (上/寄/引) if it singles the piece out, else relative position (右/左/直, for the
//! dragon and horse the one standing further right/left), else both; `打` only when a piece on
//! the board could also reach the square; `成`/`不成` whenever the move could promote.

mod read;
mod write;

pub use read::read;
pub(crate) use write::token;
pub use write::write;
