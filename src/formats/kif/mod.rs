//! KIF (Kakinoki) reader and writer.
//!
//! The reader is shared with KI2 (see `kakinoki`): it follows docs/formats.md §1 and never checks
//! legality. The writer lays moves out as Kifu for Windows does
//! (`   1 ７六歩(77)   ( 0:16/00:00:16)`), so that program and others read the file back; it
//! writes UTF-8 text for both `kif` and `kifu` (the caller encodes `kif` as CP932).
//!
//! Reader choices:
//! * Every header entry is kept in file order, unknown keys verbatim; `手合割` is kept as an
//!   entry too and sets `Record::start` when it names one of the 16 standard starts (an unknown
//!   name such as `その他` is kept and is not an error).
//! * A board diagram sets `StartPosition::Setup` even when it shows a standard start: it is not
//!   turned into a preset (call `Handicap::recognise` for that), so a round trip keeps the
//!   diagram.
//! * `同` gets the destination of the previous move of its line; the first move of a variation
//!   takes it from the parent line's move before the branch point.
//! * The `まで…` line is kept in `Record::footer`; KIF specials come from their own lines.
//! * A move line that cannot be parsed is a `syntax` error, and the moves after it in the same
//!   line of play are dropped (they would sit at the wrong ply); reading goes on with comments,
//!   headers and the next `変化` block. Numbers that are not consecutive give `move-number`
//!   warnings.
//!
//! Writer choices: headers in order (`手合割` rewritten from the start position), a diagram for
//! a setup, `手数----指手---------消費時間--`, moves with `同　`, `打`, `成` (and `不成` when the
//! record wrote it), times as `( m:ss/hh:mm:ss)`, `+` on moves with variations, comments,
//! bookmarks, the footer, then `変化：N手` blocks depth-first, a line's blocks from its last
//! branch point back, so readers that use the usual stack algorithm rebuild the same tree.

mod read;
mod write;

pub use read::read;
pub(crate) use write::move_text;
pub use write::write;
