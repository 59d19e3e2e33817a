//! The format-neutral game record: header, start position, a tree of moves with times,
//! comments and source spans, and how the game ended.
//!
//! Readers fill a [`Record`] with what the text says, without checking legality: a move is
//! kept as [`MoveText`] (what was written, which may lack its source square, as in KI2, or name
//! the piece after the move, as in CSA) plus, once somebody has replayed it, the resolved
//! [`Move`]. Writers need resolved moves; `validate::replay` fills them in.

use crate::core::{Color, Handicap, Move, PieceKind, Setup, Square};
pub mod analysis;
pub mod game_key;
/// The inline string type of [`MoveText::raw`] (move texts up to 24 bytes need no heap block).
pub mod line;
pub mod resolve;
pub mod walk;

pub use crate::diag::Span;
pub use analysis::{Analysis, AnalysisForm, Score};

/// One header entry, kept as written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HeaderEntry {
    /// The key. Readers map the keys of their format to the KIF/JKF Japanese keys where one
    /// exists (`先手`, `後手`, `棋戦`, `場所`, `開始日時`, `終了日時`, `戦型`, `持ち時間`,
    /// `先手持ち時間`, `後手持ち時間`, `最大手数`, `持将棋`, `備考`: see [`keys`]); other keys
    /// are kept verbatim (unknown CSA `$KEY`s, unknown KIF keys).
    pub key: String,
    /// The value, as written (trimmed of the line ending).
    pub value: String,
    /// Where the entry was read.
    pub span: Span,
}

/// The header: every entry in file order, with typed access to the common ones.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Header {
    /// Entries in file order.
    pub entries: Vec<HeaderEntry>,
}

/// Well-known header keys.
pub mod keys {
    /// Black's player (even game).
    pub const BLACK: &str = "先手";
    /// White's player (even game).
    pub const WHITE: &str = "後手";
    /// Black's player in a handicap game (下手).
    pub const SHITATE: &str = "下手";
    /// White's player in a handicap game (上手).
    pub const UWATE: &str = "上手";
    /// Event.
    pub const EVENT: &str = "棋戦";
    /// Site.
    pub const SITE: &str = "場所";
    /// Start time.
    pub const START: &str = "開始日時";
    /// End time.
    pub const END: &str = "終了日時";
    /// Opening.
    pub const OPENING: &str = "戦型";
    /// Time control.
    pub const TIME_CONTROL: &str = "持ち時間";
    /// Black's time control when the sides differ (CSA V3.0 `$TIME+`, ShogiHome's KIF key).
    pub const BLACK_TIME_CONTROL: &str = "先手持ち時間";
    /// White's time control when the sides differ (CSA V3.0 `$TIME-`).
    pub const WHITE_TIME_CONTROL: &str = "後手持ち時間";
    /// Byoyomi stated on a line of its own (KIF `秒読み：30秒`).
    pub const BYOYOMI: &str = "秒読み";
    /// The move limit (CSA V3.0 `$MAX_MOVES`).
    pub const MAX_MOVES: &str = "最大手数";
    /// The impasse rule, in points (CSA V3.0 `$JISHOGI`: `24` or `27`).
    pub const JISHOGI: &str = "持将棋";
    /// A note (CSA V3.0 `$NOTE`, KIF `備考`).
    pub const NOTE: &str = "備考";
    /// Handicap (KIF only; the start position is held in `Record::start`).
    pub const HANDICAP: &str = "手合割";
    /// A comment line in the header area, kept in order among the entries: CSA `'text`
    /// before the side-to-move line (value = the text after `'`). Writers of formats with
    /// program comments may write it as such (KIF `#text`); JKF leaves it out.
    pub const HEADER_COMMENT: &str = "'";
}

impl Header {
    /// The first value for `key`.
    pub fn get(&self, key: &str) -> Option<&str> {
        self.entries
            .iter()
            .find(|e| e.key == key)
            .map(|e| e.value.as_str())
    }

    /// Appends an entry.
    pub fn push(&mut self, key: impl Into<String>, value: impl Into<String>, span: Span) {
        self.entries.push(HeaderEntry {
            key: key.into(),
            value: value.into(),
            span,
        });
    }

    /// Replaces the first entry for `key`, or appends one.
    pub fn set(&mut self, key: &str, value: impl Into<String>) {
        let value = value.into();
        match self.entries.iter_mut().find(|e| e.key == key) {
            Some(e) => e.value = value,
            None => self.push(key, value, Span::default()),
        }
    }

    /// The player of `color`: 先手/下手 for Black, 後手/上手 for White.
    pub fn player(&self, color: Color) -> Option<&str> {
        match color {
            Color::Black => self.get(keys::BLACK).or_else(|| self.get(keys::SHITATE)),
            Color::White => self.get(keys::WHITE).or_else(|| self.get(keys::UWATE)),
        }
    }

    /// The event (棋戦).
    pub fn event(&self) -> Option<&str> {
        self.get(keys::EVENT)
    }

    /// The site (場所).
    pub fn site(&self) -> Option<&str> {
        self.get(keys::SITE)
    }

    /// The start time as written (開始日時, or 対局日).
    pub fn start_time(&self) -> Option<&str> {
        self.get(keys::START).or_else(|| self.get("対局日"))
    }

    /// The end time as written (終了日時).
    pub fn end_time(&self) -> Option<&str> {
        self.get(keys::END)
    }

    /// The time control as written (持ち時間, which the CSA reader gives `$TIME_LIMIT`'s and
    /// `$TIME`'s values; or a verbatim `$TIME_LIMIT` / `$TIME` entry).
    pub fn time_control(&self) -> Option<&str> {
        self.get(keys::TIME_CONTROL)
            .or_else(|| self.get("$TIME_LIMIT"))
            .or_else(|| self.get("$TIME"))
    }
}

/// Where the game starts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum StartPosition {
    /// The even game or a standard handicap.
    Preset(Handicap),
    /// An explicit position (board diagram, CSA P lines, SFEN, JKF data).
    Setup(Box<Setup>),
}

impl Default for StartPosition {
    fn default() -> Self {
        StartPosition::Preset(Handicap::Even)
    }
}

impl StartPosition {
    /// The position as a setup.
    pub fn to_setup(&self) -> Setup {
        match self {
            StartPosition::Preset(h) => h.setup(),
            StartPosition::Setup(s) => (**s).clone(),
        }
    }
}

/// The piece a move text names.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NamedPiece {
    /// The piece on the source square before the move (KIF, KI2, JKF).
    Before(PieceKind),
    /// The piece on the destination after the move (CSA: `+2423TO` promotes a pawn).
    After(PieceKind),
}

/// KI2 relative-position and movement suffixes (and JKF `relative`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Relative {
    /// 右 / 直 / 左, if written.
    pub horizontal: Option<Horizontal>,
    /// 上 (or 行) / 寄 / 引, if written.
    pub vertical: Option<Vertical>,
    /// 打 was written.
    pub drop: bool,
}

/// 右 / 直 / 左.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Horizontal {
    /// 右 (JKF `R`).
    Right,
    /// 直 (JKF `C`).
    Straight,
    /// 左 (JKF `L`).
    Left,
}

/// 上 / 寄 / 引.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Vertical {
    /// 上 or 行 (JKF `U`).
    Up,
    /// 寄 (JKF `M`).
    Sideways,
    /// 引 (JKF `D`).
    Down,
}

impl Relative {
    /// Whether nothing was written.
    pub fn is_empty(&self) -> bool {
        self.horizontal.is_none() && self.vertical.is_none() && !self.drop
    }
}

/// Where a move comes from, as written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Source {
    /// A board square.
    Square(Square),
    /// A drop (打, CSA `00`, USI `P*`).
    Drop,
    /// Not written (KI2): found by resolving against the position.
    Unknown,
}

impl Source {
    /// The source square, when the text names one.
    pub fn square(self) -> Option<Square> {
        match self {
            Source::Square(sq) => Some(sq),
            Source::Drop | Source::Unknown => None,
        }
    }
}

/// A move as the record writes it. Nothing here has been checked against a position.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MoveText {
    /// The side the record says moves (CSA `+`/`-`, KI2 `▲`/`△`), if it says.
    pub color: Option<Color>,
    /// Source square, drop, or unknown.
    pub from: Source,
    /// Destination. For `同` the reader fills in the previous move's destination in the same
    /// line and sets `same`.
    pub to: Square,
    /// Written as `同`.
    pub same: bool,
    /// The piece named, if any (USI names none).
    pub piece: Option<NamedPiece>,
    /// `Some(true)` for 成 (or USI `+`), `Some(false)` for an explicit 不成, `None` when the
    /// text says nothing (CSA: derived from `piece`).
    pub promote: Option<bool>,
    /// KI2 suffixes.
    pub relative: Relative,
    /// The text as written, for messages (`７六歩(77)`, `+7776FU`, `▲同銀右`).
    pub raw: RawText,
}

/// A move's text as written (`７六歩(77)`, `+7776FU`), kept inline when short: a record holds
/// one per move, and most are a few characters. Reads as a `str`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash)]
pub struct RawText(compact_str::CompactString);

impl RawText {
    /// The text.
    pub fn as_str(&self) -> &str {
        self.0.as_str()
    }

    /// Empties the text.
    pub fn clear(&mut self) {
        self.0.clear();
    }
}

impl std::ops::Deref for RawText {
    type Target = str;
    fn deref(&self) -> &str {
        self.0.as_str()
    }
}

impl From<&str> for RawText {
    fn from(s: &str) -> RawText {
        RawText(s.into())
    }
}

impl From<String> for RawText {
    fn from(s: String) -> RawText {
        RawText(s.into())
    }
}

impl From<RawText> for String {
    fn from(s: RawText) -> String {
        s.0.into()
    }
}

impl std::fmt::Display for RawText {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.0.as_str())
    }
}

impl PartialEq<str> for RawText {
    fn eq(&self, other: &str) -> bool {
        self.0 == other
    }
}

impl PartialEq<&str> for RawText {
    fn eq(&self, other: &&str) -> bool {
        self.0 == *other
    }
}

/// How a game ended, as the record says it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum SpecialKind {
    /// 投了 / %TORYO / resign: the side to move resigns.
    Resign,
    /// 中断 / %CHUDAN / break.
    Interrupt,
    /// 千日手 / %SENNICHITE: fourfold repetition.
    Repetition,
    /// 連続王手の千日手 / %OUTE_SENNICHITE (shogi-server's verdict): a fourfold repetition in
    /// which one side gave check with every move; that side loses. The board says which.
    PerpetualCheck,
    /// 持将棋 / %JISHOGI: impasse.
    Impasse,
    /// 詰み / %TSUMI: the side to move is mated.
    Mate,
    /// 不詰 / %FUZUMI.
    NoMate,
    /// 切れ負け / 時間切れ / %TIME_UP: the side to move lost on time.
    Timeout,
    /// 反則負け / %ILLEGAL_MOVE: the side to move (or the side named) loses by a foul.
    IllegalMove,
    /// 反則勝ち: the side to move wins because the previous move was a foul.
    IllegalWin,
    /// %+ILLEGAL_ACTION / %-ILLEGAL_ACTION: the named side committed a foul.
    IllegalAction(Color),
    /// 入玉勝ち / %KACHI / win: the side to move declares an entering-king win.
    Declaration,
    /// %HIKIWAKE: declared draw.
    Draw,
    /// %MATTA.
    Matta,
    /// %MAX_MOVES: the move limit was reached.
    MaxMoves,
    /// %ERROR.
    Error,
    /// 封じ手: sealed move.
    Sealed,
    /// 不戦勝: the side to move wins by default.
    DefaultWin,
    /// 不戦敗: the side to move loses by default.
    DefaultLoss,
    /// A word this crate does not know; the text is in `Special::text`.
    Unknown,
}

impl SpecialKind {
    /// The side a kind names explicitly (the offender of `±ILLEGAL_ACTION`).
    pub fn named_side(self) -> Option<Color> {
        match self {
            SpecialKind::IllegalAction(c) => Some(c),
            _ => None,
        }
    }
}

/// A special move: the end (or suspension) of the game.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Special {
    /// What it means.
    pub kind: SpecialKind,
    /// Exactly as written (`投了`, `%TORYO`, `先手 反則負け`, `resign`).
    pub text: String,
    /// A side the text names explicitly (`先手 反則負け` names the loser), if any.
    pub side: Option<Color>,
}

/// Time taken by a move and the player's total, in milliseconds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct MoveTime {
    /// Time this move took.
    pub elapsed_ms: Option<u64>,
    /// The mover's cumulative time after this move.
    pub total_ms: Option<u64>,
}

/// What a node holds.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum NodeKind {
    /// A move, as written, and (once resolved) the move it denotes.
    Move {
        /// As written.
        text: MoveText,
        /// The move, once resolved against the position (readers of USI set it directly).
        resolved: Option<Move>,
    },
    /// A special move (end of game).
    Special(Special),
}

/// One ply of a line: a move or a special, with its annotations and alternatives.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MoveNode {
    /// The move or special.
    pub kind: NodeKind,
    /// Time, if recorded.
    pub time: Option<MoveTime>,
    /// Comments after this move, one string per comment line, as written without the marker.
    pub comments: Vec<String>,
    /// Engine analysis written after this move (evaluation, PV), taken out of the comments by
    /// the readers ([`analysis`]).
    pub analysis: Option<Box<Analysis>>,
    /// Bookmark (しおり), if any.
    pub bookmark: Option<String>,
    /// Where the move was read.
    pub span: Span,
    /// Alternative lines: each starts with a move that replaces this one (same ply).
    pub variations: Vec<Vec<MoveNode>>,
    /// The ply number written in the record (KIF), if any.
    pub number: Option<u32>,
}

impl MoveNode {
    /// A node with no annotations.
    pub fn new(kind: NodeKind, span: Span) -> MoveNode {
        MoveNode {
            kind,
            time: None,
            comments: Vec::new(),
            analysis: None,
            bookmark: None,
            span,
            variations: Vec::new(),
            number: None,
        }
    }

    /// The special, if this node is one.
    pub fn special(&self) -> Option<&Special> {
        match &self.kind {
            NodeKind::Special(s) => Some(s),
            NodeKind::Move { .. } => None,
        }
    }

    /// The engine analysis of this move (score, PV), if the record has one: see
    /// [`analysis`] for the forms read and which position it describes.
    pub fn analysis(&self) -> Option<&Analysis> {
        self.analysis.as_deref()
    }

    /// The resolved move, if this node is a resolved move.
    pub fn resolved(&self) -> Option<Move> {
        match &self.kind {
            NodeKind::Move { resolved, .. } => *resolved,
            NodeKind::Special(_) => None,
        }
    }
}

/// A `まで…` footer line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Footer {
    /// The whole line as written.
    pub text: String,
    /// The ply count it states.
    pub plies: Option<u32>,
    /// The winner it states, if it states one.
    pub winner: Option<Color>,
    /// What ending it states, if recognisable.
    pub kind: Option<SpecialKind>,
    /// Where it was read.
    pub span: Span,
}

impl Footer {
    /// The ending the footer states, as a special (its text is the whole line): a loss by a
    /// foul names its loser, other endings are judged from the side to move. `None` when it
    /// states no ending (`まで64手`, or a bare win).
    pub fn ending(&self) -> Option<Special> {
        let kind = self.kind?;
        Some(Special {
            kind,
            text: self.text.clone(),
            side: match kind {
                SpecialKind::IllegalMove => self.winner.map(Color::flip),
                _ => None,
            },
        })
    }
}

/// A whole game record.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Record {
    /// Header entries.
    pub header: Header,
    /// The start position.
    pub start: StartPosition,
    /// Comments on the start position.
    pub start_comments: Vec<String>,
    /// Bookmark on the start position.
    pub start_bookmark: Option<String>,
    /// The main line. Its last node may be a special.
    pub moves: Vec<MoveNode>,
    /// The `まで…` footer (KIF/KI2), if any.
    pub footer: Option<Footer>,
    /// Comments the format keeps at the end or outside any move (CSA `'summary:`...), in order.
    pub trailing_comments: Vec<String>,
}

impl Record {
    /// Adds `by` to every line number in the record (header, moves, variations, footer):
    /// for a record read from a piece of a longer text.
    pub fn shift_lines(&mut self, by: u32) {
        fn span(s: &mut Span, by: u32) {
            if s.line > 0 {
                s.line = s.line.saturating_add(by);
            }
        }
        struct Shift(u32);
        impl walk::VisitMut for Shift {
            type State = ();
            fn branch(&mut self, _: &MoveNode, _: u32, _: &()) {}
            fn node(&mut self, node: &mut MoveNode, _: u32, _: &mut ()) -> walk::Step {
                span(&mut node.span, self.0);
                walk::Step::Continue
            }
        }
        for e in &mut self.header.entries {
            span(&mut e.span, by);
        }
        walk::walk_mut(&mut self.moves, 1, (), &mut Shift(by));
        if let Some(f) = self.footer.as_mut() {
            span(&mut f.span, by);
        }
    }

    /// The first line of the text the record was read from, as far as its spans tell: the
    /// lowest line of a header entry or of the main line's first move, or of the footer;
    /// 0 when no span has a line.
    pub fn first_line(&self) -> u32 {
        let header = self.header.entries.iter().map(|e| e.span.line);
        let first_move = self.moves.first().map(|n| n.span.line);
        let footer = self.footer.as_ref().map(|f| f.span.line);
        header
            .chain(first_move)
            .chain(footer)
            .filter(|&l| l > 0)
            .min()
            .unwrap_or(0)
    }

    /// The special that ends the main line, if any.
    pub fn end(&self) -> Option<&Special> {
        self.moves.last().and_then(|n| n.special())
    }

    /// The ending the footer states (`まで64手で詰み`; `まで64手で後手の勝ち`, a resignation),
    /// when the main line has no ending of its own and the footer counts the moves there are
    /// (or no moves): the record's only word on how the game ended. Formats without a footer
    /// (CSA, JKF, USI) write it as their ending, KI2 reads the same line as one, and
    /// validation holds it to the board.
    pub fn footer_ending(&self) -> Option<Special> {
        if self.end().is_some() {
            return None;
        }
        let f = self.footer.as_ref()?;
        if f.plies.is_some_and(|n| n != self.plies()) {
            return None;
        }
        f.ending()
    }

    /// Fills every missing `MoveTime::total_ms` (main line and variations) with the mover's
    /// running sum of `elapsed_ms`, as formats without cumulative times (CSA) need when they are
    /// written as KIF or JKF. A recorded total resets the running sum for that side.
    pub fn fill_total_times(&mut self) {
        /// The side to move and each side's running total.
        struct Fill;
        impl walk::VisitMut for Fill {
            type State = (Color, [u64; 2]);
            fn branch(&mut self, _: &MoveNode, _: u32, state: &Self::State) -> Self::State {
                *state
            }
            fn node(&mut self, node: &mut MoveNode, _: u32, state: &mut Self::State) -> walk::Step {
                let (turn, totals) = state;
                let mover = match &node.kind {
                    NodeKind::Move { text, .. } => text.color.unwrap_or(*turn),
                    NodeKind::Special(_) => *turn,
                };
                if let Some(t) = &mut node.time {
                    let sum = totals[mover.index()].saturating_add(t.elapsed_ms.unwrap_or(0));
                    let total = *t.total_ms.get_or_insert(sum);
                    totals[mover.index()] = total;
                }
                if matches!(node.kind, NodeKind::Move { .. }) {
                    *turn = mover.flip();
                }
                walk::Step::Continue
            }
        }
        let turn = self.start.to_setup().turn;
        walk::walk_mut(&mut self.moves, 1, (turn, [0, 0]), &mut Fill);
    }

    /// Number of real moves (not specials) in the main line.
    pub fn plies(&self) -> u32 {
        self.moves
            .iter()
            .filter(|n| matches!(n.kind, NodeKind::Move { .. }))
            .count() as u32
    }
}
