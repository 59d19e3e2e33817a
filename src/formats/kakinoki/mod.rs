//! What KIF and KI2 (the Kakinoki formats) share: the line-classifying reader (headers, board
//! diagrams, comments, bookmarks, variations, the `まで` footer) and small text helpers used by
//! both writers.
//!
//! One reader serves both formats: it accepts numbered KIF move lines and `▲△` KI2 move lines
//! wherever they occur, as tsshogi does, so a file with the "wrong" extension still reads. The
//! only difference is that for KI2 (which has no special-move lines) the `まで` line also ends
//! the line it follows with a synthesised special node.
//!
//! Choices made here:
//! * A board diagram defines `StartPosition::Setup` even when it equals a standard handicap
//!   (it is not turned into a preset), so a KIF written back holds the diagram again and a KIF
//!   round trip is the identity. Use `Handicap::recognise` to name such a position.
//! * An unknown `手合割` value (`その他`, `詰将棋`, ...) is kept in the header; without a diagram
//!   the game starts from the even position.
//! * Decoration lines (`手数----指手--`, the ruler and frame of a diagram, `盤面回転`, `手数＝N …`)
//!   are ignored; any other line that fits no rule is a `syntax` error.
//! * A `#` after a move line, a `変化` line or a `*` comment is a program comment: it is
//!   ignored on move and `変化` lines (comment lines keep it as text).
//! * `変化：N手目` is `変化：N手`. A `変化` block that starts one ply after the last move of
//!   the variation read last continues that variation; a block past the end of every line
//!   it could branch from is a `syntax` error and is not read (never joined onto the main
//!   line).
//! * `盤面反転`: the diagram is drawn from White's side (turned half a circle; `v` marks Black's
//!   pieces then). Comment lines indented with spaces (`  *text`) are comments.
//!
//! docs/formats.md §9 gives the reasons.
//!
//! Files: `text` (numerals, spaces, special words), `grammar` (the grammar of a line),
//! `read` (the line loop that builds the record), `write` (what both writers share).
//! Formats layer: uses `core` and `record`, nothing above.

mod grammar;
mod read;
mod spelling;
mod text;
mod write;

pub(crate) use grammar::{parse_footer, parse_ki2_token, parse_kif_move, special_body_reads_back};
pub use read::Reader;
pub(crate) use read::{cp932_first_move_end, parse};
pub(crate) use spelling::cp932_text;
pub(crate) use text::{
    foul_word, kif_special_word, push_kanji_number, push_square, same_ending, special_kind,
};
pub(crate) use write::*;

/// Which format the text is read as.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Dialect {
    /// KIF: specials are move lines; the footer is only kept.
    Kif,
    /// KI2: the footer also ends the line with a special node.
    Ki2,
}
