//! The short way through KIF text ([`validate_kif`]): the game is replayed as its lines are
//! read, with no record built, when it is written the plain way programs write it (header
//! lines `key：value`, `手合割：平手` or none, the `手数----指手--` heading, numbered move lines
//! with a source square or `打` and both times, one ending line, a `まで` footer) and every move
//! is legal. At the first line or move the reader or the rules would report, or that carries
//! something the short way does not follow (a comment, a variation, a board diagram, a time
//! control, a declaration), the text is read and validated the full way, so the reports are
//! exactly those of [`kif::read`] followed by [`validate_game`](super::validate_game)
//! (`tests/fast_kif_equivalence.rs` compares the two).
//!
//! The lines are classified in the reader's order and with the reader's own grammar
//! ([`kif::move_number`], [`kif::header_line`], ...), so a line taken here is one the reader
//! reads the same way; the move text is read by hand only in the one layout the reader's own
//! fast path reads (`７六歩(77)`, `同　銀成(54)`, `５五角打`, then `( 0:16/00:00:16)`).

use crate::core::{
    Color, Handicap, Move, PieceKind, Position, RepetitionOutcome, RepetitionTracker, Square,
};
use crate::formats::kif;
use crate::formats::time_control::TimeControl;
use crate::record::{Footer, Header, NodeKind, Span, Special, SpecialKind};

use super::ending::{Ending, verify_ending};
use super::replay::{LineEnd, Over};
use super::result::{GameResult, special_name, winner_of};
use super::{GameInfo, Options, Report};

/// Reads and validates a KIF text (one game): the same report as reading it with
/// [`kif::read`] and validating the game with [`validate_game`](super::validate_game), found
/// faster for games written the plain way.
pub fn validate_kif(text: &str, opts: &Options) -> Vec<Report> {
    validate_kif_counting(text, opts).0
}

/// [`validate_kif`], and how many of the games took the short way (for tests and
/// benchmarks).
#[doc(hidden)]
pub fn validate_kif_counting(text: &str, opts: &Options) -> (Vec<Report>, usize) {
    let mut history = take_history();
    // The options only bear on declarations, which the full way judges.
    let fast = plain(text, &mut history);
    give_back_history(history);
    match fast {
        Some(report) => (vec![report], 1),
        None => {
            let reports = kif::read(text)
                .into_iter()
                .map(|mut g| super::validate_game(&mut g, opts))
                .collect();
            (reports, 0)
        }
    }
}

thread_local! {
    /// Each thread's repetition table, kept between texts (a batch validates thousands of
    /// small files; the table is cleared per game in constant time).
    static HISTORY: std::cell::Cell<Option<RepetitionTracker>> = const { std::cell::Cell::new(None) };
}

fn take_history() -> RepetitionTracker {
    HISTORY.with(|h| h.take()).unwrap_or_else(|| {
        let mut t = RepetitionTracker::default();
        t.reserve(512);
        t
    })
}

fn give_back_history(history: RepetitionTracker) {
    HISTORY.with(|h| h.set(Some(history)));
}

/// A space as the KIF grammar counts one: ASCII space, tab, the full-width space.
fn is_space(c: char) -> bool {
    c == ' ' || c == '　' || c == '\t'
}

/// The main line replayed move by move as the rules replay does for a line without fouls,
/// the mate test after a check put off until it matters (a legal next move shows the side in
/// check had one). As the CSA short way's (`fast.rs`), without the clock.
struct Plain<'h> {
    pos: Position,
    history: &'h mut RepetitionTracker,
    plies: u32,
    over: Option<Over>,
    over_at: Option<u32>,
    repetition_at_end: Option<Over>,
    check_pending: bool,
}

impl<'h> Plain<'h> {
    fn new(history: &'h mut RepetitionTracker) -> Plain<'h> {
        static START: std::sync::OnceLock<Position> = std::sync::OnceLock::new();
        let pos = START.get_or_init(Position::startpos).clone();
        history.reset(&pos);
        Plain {
            pos,
            history,
            plies: 0,
            over: None,
            over_at: None,
            repetition_at_end: None,
            check_pending: false,
        }
    }

    /// Plays a move; `false` when the full way must decide (a rule broken, or a move after
    /// the end of the game on the board).
    #[inline]
    fn play(&mut self, mv: Move) -> bool {
        let to_move = self.pos.turn().flip();
        if self.over.is_some() || !self.pos.play_if_legal(mv) {
            return false;
        }
        self.check_pending = false;
        let gives_check = self.pos.in_check();
        let repetition = self
            .history
            .push_parts(self.pos.key(), to_move, gives_check);
        self.repetition_at_end = None;
        if let Some(outcome) = repetition {
            self.over_at = Some(self.plies + 1);
            if gives_check && !self.pos.has_legal_move() {
                self.over = Some(Over::Mate(self.pos.turn()));
            } else {
                let rep = Over::Repetition {
                    perpetual: match outcome {
                        RepetitionOutcome::PerpetualCheck { loser } => Some(loser),
                        RepetitionOutcome::Draw => None,
                    },
                };
                self.over = Some(rep);
                self.repetition_at_end = Some(rep);
            }
        } else {
            self.check_pending = gives_check;
        }
        self.plies += 1;
        true
    }

    fn end(self) -> LineEnd {
        let (mut over, mut over_at) = (self.over, self.over_at);
        if self.check_pending && !self.pos.has_legal_move() {
            over = Some(Over::Mate(self.pos.turn()));
            over_at = Some(self.plies);
        }
        LineEnd {
            pos: Some(self.pos),
            over,
            over_at,
            fouls: Vec::new(),
            repetition_at_end: self.repetition_at_end,
        }
    }
}

/// A move line's move in the one layout read by hand: destination, piece, `成`/`不成`,
/// source, and the time (elapsed, total) if written.
struct PlainMove {
    /// `None` for `同`.
    to: Option<Square>,
    kind: PieceKind,
    promote: bool,
    /// `None` for a drop (`打`).
    from: Option<Square>,
    time: Option<(u64, u64)>,
}

/// The rank of a move's destination, `一` to `九`.
fn kanji_rank(c: char) -> Option<u8> {
    let i = "一二三四五六七八九".chars().position(|k| k == c)?;
    u8::try_from(i + 1).ok()
}

/// Reads a move line's body in the plain layout, or `None` (the full way reads it).
#[inline]
fn plain_move(body: &str) -> Option<PlainMove> {
    let mut rest = body;
    let to = if let Some(r) = rest.strip_prefix('同') {
        rest = r.trim_start_matches(is_space);
        None
    } else {
        let mut it = rest.chars();
        let file = it.next()?;
        let file = u8::try_from(u32::from(file).checked_sub(u32::from('０'))?).ok()?;
        let rank = kanji_rank(it.next()?)?;
        rest = it.as_str();
        Some(Square::new(file, rank)?)
    };
    let (kind, n) = PieceKind::from_kif_prefix(rest)?;
    let used: usize = rest.chars().take(n).map(char::len_utf8).sum();
    rest = rest.get(used..)?;
    let promote = if let Some(r) = rest.strip_prefix("不成") {
        rest = r;
        false
    } else if let Some(r) = rest.strip_prefix('成') {
        rest = r;
        true
    } else {
        false
    };
    let b = rest.as_bytes();
    let (from, mut i) = match b {
        [b'(', f, r, b')', ..] if f.is_ascii_digit() && r.is_ascii_digit() => {
            (Some(Square::new(f - b'0', r - b'0')?), 4)
        }
        _ if rest.starts_with('打') => (None, '打'.len_utf8()),
        _ => return None,
    };
    i = skip_spaces(b, i);
    let mut time = None;
    if b.get(i) == Some(&b'(') {
        let (elapsed, j) = clock(b, i + 1)?;
        if b.get(j) != Some(&b'/') {
            return None;
        }
        let (total, j) = clock(b, skip_spaces(b, j + 1))?;
        if b.get(j) != Some(&b')') {
            return None;
        }
        time = Some((elapsed, total));
        i = skip_spaces(b, j + 1);
    }
    (i == b.len()).then_some(PlainMove {
        to,
        kind,
        promote,
        from,
        time,
    })
}

fn skip_spaces(b: &[u8], mut i: usize) -> usize {
    while b.get(i) == Some(&b' ') {
        i += 1;
    }
    i
}

/// `h:mm:ss`, `m:ss` or `s` at `i` (ASCII digits, ASCII spaces around the colons, at most
/// 18 digits a field), as the reader reads it: milliseconds and the index after it.
fn clock(b: &[u8], mut i: usize) -> Option<(u64, usize)> {
    let mut secs: u64 = 0;
    let mut fields = 0;
    loop {
        i = skip_spaces(b, i);
        let start = i;
        let mut v: u64 = 0;
        while let Some(&d) = b.get(i).filter(|d| d.is_ascii_digit()) {
            if i - start == 18 {
                return None;
            }
            v = v * 10 + u64::from(d - b'0');
            i += 1;
        }
        if i == start {
            return None;
        }
        secs = secs.checked_mul(60)?.checked_add(v)?;
        fields += 1;
        i = skip_spaces(b, i);
        if fields < 3 && b.get(i) == Some(&b':') {
            i += 1;
            continue;
        }
        return Some((secs.checked_mul(1000)?, i));
    }
}

/// The move a plain move names in `pos` (`prev_to` for `同`), or `None` when the full way
/// must decide: no piece of the side to move at the source, another piece than the one
/// named, a drop of a piece that cannot be in hand.
#[inline]
fn resolve(pos: &Position, m: &PlainMove, prev_to: Option<Square>) -> Option<Move> {
    let to = m.to.or(prev_to)?;
    match m.from {
        None => m
            .kind
            .is_hand_kind()
            .then_some(Move::Drop { kind: m.kind, to }),
        Some(from) => {
            let p = pos.piece_at(from).filter(|p| p.color == pos.turn())?;
            (p.kind == m.kind).then_some(Move::Normal {
                from,
                to,
                promote: m.promote,
            })
        }
    }
}

/// What the replay has read of the game's lines.
struct Game {
    header: Header,
    footer: Option<Footer>,
    special: Option<(Special, Span)>,
    last_span: Option<Span>,
    seen_move: bool,
    prev_to: Option<Square>,
    /// Each side's cumulative time so far (`check_times`).
    totals: [u64; 2],
}

/// The report of `text` the short way, or `None` for the full way.
fn plain(text: &str, history: &mut RepetitionTracker) -> Option<Report> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let mut game = Game {
        header: Header::default(),
        footer: None,
        special: None,
        last_span: None,
        seen_move: false,
        prev_to: None,
        totals: [0, 0],
    };
    let mut board = Plain::new(history);
    let mut segments = text.split('\n').peekable();
    let mut no: u32 = 0;
    while let Some(seg) = segments.next() {
        no = no.checked_add(1)?;
        let line = seg.strip_suffix('\r').unwrap_or(seg);
        // A lone CR ends a line for the reader: the full way counts such lines.
        if line.contains('\r') || (segments.peek().is_none() && seg.ends_with('\r')) {
            return None;
        }
        game.line(line, no, &mut board)?;
    }
    finish(game, board)
}

impl Game {
    /// Takes one line (its ending removed); `None` when the full way must read the text.
    #[inline]
    fn line(&mut self, line: &str, no: u32, board: &mut Plain<'_>) -> Option<()> {
        let t = line.trim_end_matches(is_space);
        if t.is_empty() || t.starts_with('#') {
            return Some(());
        }
        if matches!(t.as_bytes().first(), Some(b'*' | b'&' | b'|')) {
            return None;
        }
        if let Some((number, off)) = kif::move_number(t) {
            return self.move_line(t, off, number?, no, board);
        }
        if let Some(v) = kif::header_value(line, "手合割") {
            if self.seen_move || Handicap::from_kif_name(v) != Some(Handicap::Even) {
                return None;
            }
            self.header.push("手合割", v, Span::new(no, 1));
            return Some(());
        }
        if kif::hand_key(t).is_some() || matches!(t, "先手番" | "下手番" | "後手番" | "上手番")
        {
            return None;
        }
        let lead = t.trim_start_matches(is_space);
        if lead.starts_with(['▲', '☗', '▼', '△', '☖', '▽'])
            || kif::header_value(t, "変化").is_some()
        {
            return None;
        }
        if t.starts_with("まで") {
            if self.footer.is_none() {
                self.footer = Some(kif::parse_footer(t, Span::new(no, 1)));
            }
            return Some(());
        }
        if let Some((key, off)) = kif::header_line(t) {
            self.header.push(key, line.get(off..)?, Span::new(no, 1));
            return Some(());
        }
        // The heading of the moves (`手数----指手---------消費時間--`), not a `手数＝N` line.
        let heading = lead.trim_end_matches(is_space).strip_prefix("手数")?;
        (!heading.starts_with(['＝', '='])).then_some(())
    }

    /// A numbered line: a move or the ending.
    #[inline]
    fn move_line(
        &mut self,
        t: &str,
        off: usize,
        number: u32,
        no: u32,
        board: &mut Plain<'_>,
    ) -> Option<()> {
        // Nothing after the ending: a move there, or a second ending, is the full way's.
        if self.special.is_some() {
            return None;
        }
        let expected = board.plies + 1;
        if number != expected {
            return None;
        }
        self.seen_move = true;
        let body = t.get(off..)?;
        let col = u32::try_from(t.get(..off)?.chars().count() + 1).ok()?;
        let span = Span::new(no, col);
        let starts_as_move = body
            .chars()
            .next()
            .is_some_and(|c| c == '同' || c.is_ascii_digit() || ('０'..='９').contains(&c));
        let mover = board.pos.turn();
        if !starts_as_move {
            let Ok((NodeKind::Special(s), time)) = kif::parse_kif_move(body) else {
                return None;
            };
            if s.kind == SpecialKind::Declaration {
                return None;
            }
            if let Some(t) = time {
                self.time(mover, t.elapsed_ms?, t.total_ms?)?;
            }
            self.special = Some((s, span));
            return Some(());
        }
        let m = plain_move(body)?;
        let mv = resolve(&board.pos, &m, self.prev_to)?;
        if !board.play(mv) {
            return None;
        }
        if let Some((elapsed, total)) = m.time {
            self.time(mover, elapsed, total)?;
        }
        self.prev_to = Some(mv.to());
        self.last_span = Some(span);
        Some(())
    }

    /// A time on `side`'s clock: `None` when the total is not the previous one plus this
    /// time, to within a second (a `time-mismatch` for the full way).
    fn time(&mut self, side: Color, elapsed: u64, total: u64) -> Option<()> {
        let slot = self.totals.get_mut(side.index())?;
        if slot.saturating_add(elapsed).abs_diff(total) > 1000 {
            return None;
        }
        *slot = total;
        Some(())
    }
}

/// The report of a game replayed the short way to its end, or `None` for endings the short
/// way leaves to the full way (none but the footer's, or none at all in an empty text), or a
/// time control to follow.
fn finish(game: Game, board: Plain<'_>) -> Option<Report> {
    let Game {
        header,
        footer,
        special,
        last_span,
        ..
    } = game;
    if (special.is_none() && (footer.is_some() || last_span.is_none()))
        || TimeControl::of(&header).is_some()
    {
        return None;
    }
    let plies = board.plies;
    let to_move = board.pos.turn();
    let mut report = Report {
        plies,
        result: match &special {
            Some((s, _)) => GameResult {
                recorded: Some(if s.kind == SpecialKind::Unknown {
                    s.text.clone()
                } else {
                    special_name(s.kind).to_owned()
                }),
                winner: winner_of(s, to_move),
                by_board: None,
            },
            None => GameResult::default(),
        },
        info: GameInfo::of(&header),
        ..Report::default()
    };
    let ending = Ending {
        plies,
        to_move,
        span: special
            .as_ref()
            .map(|(_, span)| *span)
            .or(last_span)
            .unwrap_or_default(),
        special: special.as_ref().map(|(s, _)| s),
        specials: match &footer {
            Some(f) if f.plies.is_some() => u32::from(special.is_some()),
            _ => 0,
        },
        last_special: None,
        footer: footer.as_ref(),
        declaration_points: 0,
    };
    verify_ending(&ending, &board.end(), &mut report);
    super::sort_by_position(&mut report);
    Some(report)
}
