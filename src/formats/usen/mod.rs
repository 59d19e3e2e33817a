//! USEN ("URL-safe SFEN-extended notation"), the compact record form tsshogi and ShogiHome put
//! in URLs: `<position>~<ply>.<moves>.<ending>[~<ply>.<moves>.<ending>...]`.
//!
//! * Position: empty for the even start, else the SFEN without its move number, with `/`
//!   written `_`, spaces `.` and `+` `z` (`lnsgkgsnl_9_…_LNSGKGSNL.w.-`).
//! * Each `~` section is a line of moves: the main line first (`0.`), then each variation as
//!   the ply it branches after (`~4.` replaces the fifth move) on the line of the section
//!   before it; its moves are three base-36 digits each (lowercase), the number
//!   `(from × 81 + to) × 2 + promotion`, a square being `(rank − 1) × 9 + (file − 1)` and a
//!   drop's `from` being 81 plus the dropped piece's number (gold 9, pawn 10, lance 11,
//!   knight 12, silver 13, bishop 14, rook 15).
//! * Ending: `r` resignation, `t` loss on time, `j` impasse (tsshogi writes it for draws and
//!   the move limit too), `p` interruption (and every other ending), nothing for none.
//!
//! USEN holds no header, comments, times or bookmarks (the writer reports what it drops) and
//! no move number for the start position. A file (`.usen`) holds one game per line.
//! Learnt from tsshogi's `Record.usen` / `Record.newByUSEN` (MIT); the code here is this
//! crate's own.

mod read;
mod write;

pub use read::read;
pub use write::write;
