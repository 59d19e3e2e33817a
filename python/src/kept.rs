//! Games judged as their reader reads them (`kifu::validate::gather_bytes`, the batch engine's
//! `gather_unit`), each with its digest, with no record kept. A game keeps its report, its
//! moves (4 bytes each), its header entries and a share of the bytes it came from; its record
//! (for comments, times, variations and the writers) is read from those bytes on first use,
//! exactly as `kifu.parse` reads it. The bytes are decoded only then: a KIF file in CP932,
//! read from its bytes, is never decoded unless a game's record is asked for (decoding was
//! 15 % of `kifu.read`'s time on such files).

use std::sync::{Arc, Mutex};

use kifu::formats::{self, Format, ParsedGame, ReadOptions};
use kifu::record::{Header, Record};
use kifu::validate::{self, Digest, Report};
use kifu_app::batch::{self, Unit};

use crate::game::GameData;

/// The text of a unit (a file, or a chunk of a long one) whose games were judged as read,
/// shared by those games: the first to need its record reads the whole text once and each
/// game takes its own.
pub struct UnitText {
    format: Format,
    /// The bytes, decoded as `ReadOptions::decode` decodes them (in place where it can)
    /// when the text is first needed.
    source: (Box<[u8]>, ReadOptions),
    /// Lines of the file before this text (added to every line, as the batch engine does).
    first_line: u32,
    /// The text's games as the reader reads them, once read; a game taken is `None`.
    games: Mutex<Option<Vec<Option<ParsedGame>>>>,
}

impl UnitText {
    fn new(format: Format, source: (Box<[u8]>, ReadOptions), first_line: u32) -> Arc<UnitText> {
        Arc::new(UnitText {
            format,
            source,
            first_line,
            games: Mutex::new(None),
        })
    }

    /// The games of the text, read into records (the bytes decoded first).
    fn read(&self) -> Vec<ParsedGame> {
        let (bytes, opts) = &self.source;
        match opts.decode_in_place(bytes) {
            Some((t, _)) => formats::read(self.format, t),
            None => formats::read(self.format, &opts.decode(bytes).text),
        }
    }
}

/// What a game read from a unit's text keeps to make its record when asked.
pub struct Kept {
    /// The header entries, as the reader makes them (spans left empty).
    pub header: Header,
    text: Arc<UnitText>,
    /// The game's place among its text's games.
    at: usize,
    /// For a game not played the quick way from the even start: its start and the moves its
    /// main line records; `None` for one that was (the even start, every move played).
    pub full: Option<Box<FullFacts>>,
}

/// What the record of a game answers without being made again.
pub struct FullFacts {
    pub start: kifu::core::Setup,
    pub plies: u32,
}

impl Kept {
    /// The game's record, read from the kept text and replayed (its moves resolved), as the
    /// reading into records makes it.
    pub fn record(&self) -> Record {
        let game = {
            let mut all = self.text.games.lock().unwrap_or_else(|e| e.into_inner());
            let games = all.get_or_insert_with(|| self.text.read().into_iter().map(Some).collect());
            games.get_mut(self.at).and_then(Option::take)
        };
        let Some(mut game) = game else {
            return Record::default();
        };
        game.shift_lines(self.text.first_line);
        validate::validate_game(&mut game, &validate::Options::default());
        game.record
    }
}

/// The games of a unit's text as [`validate::gather_text`] gave them (reports' lines already
/// counted from the start of the file); `text` makes the text the games keep (called once, for
/// the first game). A game keeps what Python asks for first (its report, its moves, its
/// header); its record is made again from the unit's text when asked (a record weighs some
/// hundred bytes a move: a list of games from a long file kept them all, 560 MB for a 36 MB
/// CSA file of 10,666 games with boards).
fn games_of(
    gathered: Vec<(Report, Digest)>,
    format: Format,
    text: impl FnOnce() -> Option<Arc<UnitText>>,
    path: Option<Arc<str>>,
) -> Option<Vec<GameData>> {
    let mut shared = None;
    let mut text = Some(text);
    let mut out = Vec::with_capacity(gathered.len());
    for (at, (report, game)) in gathered.into_iter().enumerate() {
        if shared.is_none() {
            shared = text.take().and_then(|f| f());
        }
        let text = shared.clone()?;
        // A game played the quick way from the even start: every move of it in `moves`.
        let full = game.end.is_none().then(|| {
            Box::new(FullFacts {
                start: game.start.to_setup(),
                plies: (game.moves.len() + game.rest.len()) as u32,
            })
        });
        let moves = crate::game::digest_moves(&game.start, game.moves, &report);
        let kept = Kept {
            header: game.header,
            text,
            at,
            full,
        };
        out.push(GameData::short(
            report,
            moves,
            kept,
            Some(format),
            path.clone(),
            at as u64,
        ));
    }
    Some(out)
}

/// A unit of the batch engine judged as read where there is one (see
/// [`batch::gather_unit`]); `None` when the unit must be read by [`batch::parse_unit`] (bytes
/// not read yet, a decoding finding, no format told).
pub fn unit_games(unit: &Unit, path: &Arc<str>) -> Option<Vec<GameData>> {
    let batch::Content::Bytes(bytes) = &unit.content else {
        return None;
    };
    let g = batch::gather_unit(unit, &validate::Options::default(), validate::Gather::Games);
    let format = g.format.filter(|_| g.as_read)?;
    // The bytes gather_unit read, decoded again if a game's record is asked for.
    let text = || {
        let source = (bytes.as_slice().into(), unit.read_options());
        Some(UnitText::new(format, source, unit.first_line))
    };
    games_of(g.games, format, text, Some(path.clone()))
}

/// Bytes of one file or text judged as read on the calling thread: the games of
/// [`formats::read_bytes`] validated (a `format-mismatch` warning with the first); `None`
/// when the text must be read into records (a decoding finding, no format told, no game).
pub fn text_games(
    bytes: &[u8],
    opts: &ReadOptions,
    path: Option<Arc<str>>,
) -> Option<Vec<GameData>> {
    // As the batch engine reads them: KIF in CP932 from its bytes, text where it lies, other
    // bytes decoded; the text is decoded (again) only if a game's record is asked for.
    let (how, mut gathered) = validate::gather_bytes(
        bytes,
        opts,
        &validate::Options::default(),
        validate::Gather::Games,
    )
    .ok()?;
    if gathered.is_empty() {
        // Reading into records says why there is none.
        return None;
    }
    let format = how.format;
    if let (None, Some(named)) = (opts.format, opts.hint)
        && let Some(d) = formats::text::mismatch(named, format)
        && let Some((report, _)) = gathered.first_mut()
    {
        report.diagnostics.insert(0, d);
    }
    let text = || Some(UnitText::new(format, (bytes.into(), *opts), 0));
    games_of(gathered, format, text, path)
}
