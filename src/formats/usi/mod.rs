//! USI / SFEN records: one game per line, `position startpos moves ...` or
//! `position sfen SFEN moves ...` (the `position ` prefix is optional, as are the moves).
//!
//! Moves are stored with `resolved: Some(mv)` (USI moves name their squares) and a
//! [`MoveText`](crate::record::MoveText) with the source, destination and promotion mark but
//! no piece. A special token (`resign`, `win`, `draw`, `rep_draw`, `rep_win`, `rep_lose`,
//! `timeout`, `break`, and the null moves `0000`/`none`) ends the list with the matching
//! special. Lines starting with `#` are comments and are skipped; a bare SFEN (without
//! `sfen`) is accepted as a position.

mod read;
mod write;

pub use read::{PositionTextError, Reader, parse_position, read};
pub(crate) use read::{game_lines, special_of};
pub use write::write;
