//! CSA standard record format (V1, V2, V2.1, V2.2, V3.0): reader and writer.
//!
//! Reading is a tight loop over the lines of the text: no regexes, no allocation per line
//! beyond what the record keeps. Several games separated by `/` lines come back as several
//! [`ParsedGame`](crate::formats::ParsedGame)s. A separator line is `/` alone, with any ASCII
//! blanks before or after it ([`is_separator`]: the one rule of the reader, of the judge as it reads
//! of `validate` and of the batch engine that cuts big files into chunks of games).
//!
//! Mapping to the record (decisions that other formats rely on):
//!
//! * Header: `N+`/`N-` (also the de facto `N+:name`) become `先手`/`後手` whatever the start
//!   position (the typed accessor `Header::player` also finds 下手/上手 from other formats);
//!   `$EVENT` → `棋戦`, `$SITE` → `場所`, `$START_TIME` → `開始日時`, `$END_TIME` → `終了日時`,
//!   `$OPENING` → `戦型`, `$TIME_LIMIT` → `持ち時間`, and V3.0's `$TIME` → `持ち時間`,
//!   `$TIME+`/`$TIME-` → `先手持ち時間`/`後手持ち時間`, `$MAX_MOVES` → `最大手数`, `$JISHOGI`
//!   → `持将棋`, `$NOTE` → `備考` ([`header_key`]); every other `$KEY` is kept verbatim as
//!   `$KEY`. A header comment `'key：value` with a KIF-like key (full-width colon, a key with
//!   a non-ASCII character and no space) is the header entry `key` (how the writer carries
//!   over KIF keys CSA has none for). The writer writes `持ち時間` as V2.2's `$TIME_LIMIT` or
//!   V3.0's `$TIME` when the time control fits that form, else as a comment. The version line
//!   is not kept (the writer writes the version it is asked for).
//! * Comments: a comment string is the text after the `'`, so `'*text` is kept as `*text`
//!   and `'** 30 -8384FU` as `** 30 -8384FU` (the JKF convention of the reference converters).
//!   Comments before the side-to-move line are header entries with key
//!   [`keys::HEADER_COMMENT`](crate::record::keys::HEADER_COMMENT) (`'`), in file order among
//!   the other entries; comments after it and before the first move are start-position
//!   comments; later ones belong to the move or special just read (including `'summary:`
//!   lines after the final `%TORYO`). The writer puts each back in the same place, so a CSA
//!   round trip keeps every comment line.
//! * Moves: `+7776FU` is a [`MoveText`](crate::record::MoveText) with
//!   `NamedPiece::After`, `promote: None`. `T` times go to `MoveTime::elapsed_ms` (fractions
//!   of a second kept to the millisecond); CSA has no cumulative time.
//! * Specials: `%TORYO` and the other words are named in `vocab.rs` ([`special_kind`],
//!   [`special_word`], [`written_kind`]), which the JKF reader and writer share.
//!
//! The one-line CSA of the 2chkifu collection (a header line, then all the moves on one line)
//! is read by the same [`read`] when the text starts as it does ([`is_one_line_pair`];
//! `oneline.rs` says how it maps to the record).

mod info;
mod oneline;
mod read;
mod vocab;
mod write;

pub use info::header_key;

pub use oneline::is_one_line_pair;
// For the batch reader of `kifu-app`, which cuts one-line CSA files after each game's line of
// moves, and for `find`, which reads them into records.
#[doc(hidden)]
pub use oneline::{is_moves_line, looks_like as is_one_line, starts_one_line};
pub(crate) use read::parse_seconds;
pub use read::{Reader, read};
pub use vocab::{
    ServerSummary, server_summary, special_kind, special_word, verdict_kind, written_kind,
};
pub use write::write;

/// Whether a line (without its line end) separates two games: `/` alone, with any ASCII
/// blanks (space, tab) before or after it.
///
/// ```
/// use kifu::formats::csa::is_separator;
/// assert!(is_separator(b"/") && is_separator(b"/ ") && is_separator(b" /\t"));
/// assert!(!is_separator(b"//") && !is_separator(b"'/") && !is_separator(b""));
/// ```
#[inline]
pub fn is_separator(line: &[u8]) -> bool {
    // One look at the first byte rules out every other line.
    match line.first() {
        Some(b'/') => line
            .get(1..)
            .is_some_and(|r| r.iter().all(u8::is_ascii_whitespace)),
        Some(b) if b.is_ascii_whitespace() => line.trim_ascii() == b"/",
        _ => false,
    }
}
