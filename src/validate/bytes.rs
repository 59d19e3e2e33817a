//! From the bytes of a file to judged games: the one policy of decoding, telling the format
//! and reading that `validate`, `games` and `positions` share. UTF-8 and ASCII text is judged
//! where it lies; KIF in CP932 is read from its bytes; other text is decoded first. Text that
//! does not decode cleanly, or whose format cannot be told, is left to the caller with its
//! decoding, to be read with the decoder's findings.

use crate::formats::text::{DecodedText, TextEncoding};
use crate::formats::{Format, ReadOptions};

use super::digest::Sink;
use super::judge::{
    Found, csa_games, jkf_games, kif_games, kif_games_cp932, usen_games, usi_games,
};
use super::{Options, Report};
use crate::formats::kakinoki::Dialect;

/// How the bytes of a file were read ([`gather_bytes`](super::gather_bytes)).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TextRead {
    /// The format the text was read as.
    pub format: Format,
    /// The encoding it was decoded in (where it lies for UTF-8, from its bytes for KIF in
    /// CP932).
    pub encoding: TextEncoding,
}

/// Every game of `bytes`, read as `read` says, judged as its reader reads it and handed to
/// `each` in order; how they were read. `Err` with the bytes decoded (and nothing given to
/// `each`) when they do not decode cleanly or their format cannot be told.
pub(crate) fn judge_bytes<S: Sink>(
    bytes: &[u8],
    read: &ReadOptions,
    opts: &Options,
    mut each: impl FnMut(Found<S>),
) -> Result<TextRead, DecodedText> {
    // UTF-8 and ASCII text (CSA is almost all ASCII) is judged where it lies, without a
    // decoded copy.
    let in_place = read.decode_in_place(bytes);
    if let Some((text, encoding)) = in_place
        && let Some(format) = read.detect(text)
    {
        judge_text(format, text, opts, each);
        return Ok(TextRead { format, encoding });
    }
    // KIF in CP932 (Kifu for Windows' files) is read from its bytes where they decode.
    if in_place.is_none()
        && let Some((body, format)) = read.kif_cp932(bytes)
        && kif_games_cp932(body, opts, &mut each).is_some()
    {
        return Ok(TextRead {
            format,
            encoding: TextEncoding::Cp932,
        });
    }
    let decoded = read.decode(bytes);
    if decoded.diagnostics.is_empty()
        && let Some(format) = read.detect(&decoded.text)
    {
        judge_text(format, &decoded.text, opts, each);
        return Ok(TextRead {
            format,
            encoding: decoded.encoding,
        });
    }
    Err(decoded)
}

/// Validates every game of the bytes of a file, read as `read` says, as `kifu validate` reads
/// them (see [`gather_bytes`](super::gather_bytes)): how they were read and the reports, or
/// the bytes decoded (`Err`) where they do not decode cleanly or their format cannot be told.
pub fn validate_bytes(
    bytes: &[u8],
    read: &ReadOptions,
    opts: &Options,
) -> Result<(TextRead, Vec<Report>), DecodedText> {
    let mut reports = Vec::new();
    let how = judge_bytes::<()>(bytes, read, opts, |g| reports.push(g.report))?;
    Ok((how, reports))
}

/// Every game of a decoded `text` in `format`, judged as its reader reads it, to `each`; how
/// many were judged as they were read.
pub(crate) fn judge_text<S: Sink>(
    format: Format,
    text: &str,
    opts: &Options,
    each: impl FnMut(Found<S>),
) -> usize {
    match format {
        Format::Csa => csa_games(text, opts, each),
        Format::Usi => usi_games(text, opts, each),
        Format::Kif | Format::Kifu => kif_games(Dialect::Kif, text, opts, each),
        Format::Ki2 | Format::Ki2u => kif_games(Dialect::Ki2, text, opts, each),
        Format::Jkf => jkf_games(text, opts, each),
        Format::Usen => usen_games(text, opts, each),
    }
}
