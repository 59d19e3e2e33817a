//! CSA game information: the `N+`/`N-` and `$KEY:value` lines, the header keys they map to, and
//! the `'key：value` header comments the writer carries KIF keys over in.

use crate::record::keys;

/// The record's header key for a CSA game-information key: `$EVENT` is `棋戦`
/// ([`keys::EVENT`]), and so on for V2.2's `$SITE`, `$START_TIME`, `$END_TIME`, `$OPENING`
/// and `$TIME_LIMIT` (`持ち時間`), and V3.0's `$TIME` (`持ち時間` too), `$TIME+` / `$TIME-`
/// (`先手持ち時間` / `後手持ち時間`), `$MAX_MOVES` (`最大手数`), `$JISHOGI` (`持将棋`) and
/// `$NOTE` (`備考`), the keys tsshogi and ShogiHome use for them; any other key is kept as
/// it is.
///
/// ```
/// use kifu::formats::csa;
/// assert_eq!(csa::header_key("$TIME"), "持ち時間");
/// assert_eq!(csa::header_key("$MAX_MOVES"), "最大手数");
/// assert_eq!(csa::header_key("$FOO"), "$FOO");
/// ```
pub fn header_key(csa_key: &str) -> &str {
    match csa_key {
        "$EVENT" => keys::EVENT,
        "$SITE" => keys::SITE,
        "$START_TIME" => keys::START,
        "$END_TIME" => keys::END,
        "$OPENING" => keys::OPENING,
        "$TIME_LIMIT" | "$TIME" => keys::TIME_CONTROL,
        "$TIME+" => keys::BLACK_TIME_CONTROL,
        "$TIME-" => keys::WHITE_TIME_CONTROL,
        "$MAX_MOVES" => keys::MAX_MOVES,
        "$JISHOGI" => keys::JISHOGI,
        "$NOTE" => keys::NOTE,
        other => other,
    }
}

/// A header comment the CSA writer writes for a header entry CSA has no key for,
/// `'key：value` (a full-width colon, as KIF writes its header), read back as that entry:
/// the key is a few characters with no space, no ASCII punctuation and at least one
/// character outside ASCII (a KIF key such as `表題` or `秒読み`); `None` for any other
/// comment (`'Max_Moves:512`, `'CSA encoding=UTF-8`, free text).
pub(crate) fn header_comment_entry(text: &str) -> Option<(&str, &str)> {
    let (key, value) = text.split_once('：')?;
    let fits = !key.is_empty()
        && key.chars().count() <= 12
        && !key.is_ascii()
        && key
            .chars()
            .all(|c| !c.is_whitespace() && !c.is_ascii_punctuation() && c != '＊');
    fits.then_some((key, value))
}

/// What a CSA information line names (see [`info_entry`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum InfoKey<'a> {
    /// `N+`: Black's player.
    Black,
    /// `N-`: White's player.
    White,
    /// `$KEY`, as written (with its `$`).
    Info(&'a str),
}

impl<'a> InfoKey<'a> {
    /// The record's header key: [`keys::BLACK`], [`keys::WHITE`], or [`header_key`]`("$KEY")`.
    pub(crate) fn header_key(self) -> &'a str {
        match self {
            InfoKey::Black => keys::BLACK,
            InfoKey::White => keys::WHITE,
            InfoKey::Info(key) => header_key(key),
        }
    }
}

/// The entry of a CSA information line, as the reader keeps it: `N+name` and `N-name` (also
/// the de facto `N+:name`) name a player, `$KEY:value` (a key [`is_info_key`] takes) a piece of
/// game information; `None` for any other line (the reader reports it). The value is as
/// written, not trimmed. The judge, as the reader tells the game, takes the players, event and date of a game
/// through this too.
pub(crate) fn info_entry(line: &str) -> Option<(InfoKey<'_>, &str)> {
    match line.as_bytes().first()? {
        b'N' => {
            let key = match line.get(..2)? {
                "N+" => InfoKey::Black,
                "N-" => InfoKey::White,
                _ => return None,
            };
            let rest = &line[2..];
            Some((key, rest.strip_prefix(':').unwrap_or(rest)))
        }
        b'$' => {
            let (key, value) = line.split_once(':')?;
            is_info_key(&key[1..]).then_some((InfoKey::Info(key), value))
        }
        _ => None,
    }
}

/// Whether `name` (after the `$`) is a game-information key the reader takes: upper-case ASCII
/// letters, digits, `_`, `+` and `-`. The writer writes only such keys.
pub(crate) fn is_info_key(name: &str) -> bool {
    !name.is_empty()
        && name.bytes().all(|b| {
            b.is_ascii_uppercase() || b.is_ascii_digit() || matches!(b, b'_' | b'+' | b'-')
        })
}
