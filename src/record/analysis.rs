//! Engine analysis on a move: the evaluation, mate and principal variation (PV) that engines
//! and GUIs write into a record's comments, as structured data.
//!
//! Three written forms are read (by the formats layer, which knows them): floodgate's
//! `'** 30 -3334FU +2726FU` (CSA; a score and CSA or USI moves), ShogiHome's lines
//! `**評価値=30`, `**読み筋=▲２五歩△８五歩`, `**詰み=先手勝ち:5手`, `**深さ=8`,
//! `**ノード数=12345`, `**エンジン=name`, and ShogiGUI's one line
//! `**対局 深さ 2 ノード数 960 評価値 0 読み筋 ▲７六歩(77)`. The lines are taken out of the
//! move's comments and kept here, with their text, so that a writer of the same family writes
//! them back as they were and another writes them in its own form.
//!
//! The analysis belongs to the move whose comments held it (the move played just before the
//! lines). Scores are from Black's point of view, as all three forms write them. The PV starts
//! where the form starts it: floodgate and ShogiHome write the moves after the annotated move
//! (the reply first), ShogiGUI starts with the annotated move itself; the moves' sides (`+`,
//! `▲`) say which.

use super::MoveText;
use crate::core::Color;

/// An evaluation, from Black's (先手's) point of view.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Score {
    /// Centipawns (an engine's evaluation units): positive is good for Black.
    Cp(i32),
    /// A forced mate.
    Mate {
        /// Who mates.
        winner: Color,
        /// In how many plies, when the engine says.
        plies: Option<u32>,
    },
}

impl Score {
    /// The centipawn value, for a [`Score::Cp`].
    pub fn cp(self) -> Option<i32> {
        match self {
            Score::Cp(v) => Some(v),
            Score::Mate { .. } => None,
        }
    }
}

/// Which written form an analysis was read from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum AnalysisForm {
    /// floodgate (CSA): `'** <score> <moves>`.
    Floodgate,
    /// ShogiHome: one `key=value` line per item (`**評価値=30`).
    ShogiHome,
    /// ShogiGUI: `**対局 深さ … 評価値 … 読み筋 …` (or `**解析 …`).
    ShogiGui,
}

/// What an engine said about the position at a move.
///
/// ```
/// use kifu::Format;
/// use kifu::record::Score;
///
/// let csa = "V2.2\nPI\n+\n+7776FU\n'** 30 -3334FU +2726FU\n-3334FU\n%TORYO\n";
/// let games = kifu::read(Format::Csa, csa);
/// let first = &games[0].record.moves[0];
/// let a = first.analysis().unwrap();
/// assert_eq!(a.score, Some(Score::Cp(30)));
/// assert_eq!(a.pv.len(), 2);
/// assert_eq!(a.pv[0].raw, "-3334FU");
/// assert!(first.comments.is_empty()); // the line is the analysis, not a comment
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Analysis {
    /// The evaluation, from Black's point of view.
    pub score: Option<Score>,
    /// The principal variation, as written (unresolved: the writers replay it from the
    /// annotated position).
    pub pv: Vec<MoveText>,
    /// Search depth.
    pub depth: Option<u32>,
    /// Nodes searched.
    pub nodes: Option<u64>,
    /// The engine's name.
    pub engine: Option<String>,
    /// The form it was read from.
    pub form: AnalysisForm,
    /// The lines it was read from, as written after the format's analysis marker (`**` in KIF,
    /// `'**` in CSA, `*` in a JKF comment): ` 30 -3334FU`, `評価値=30`.
    pub lines: Vec<String>,
    /// Whether the lines were read from a CSA record (`'**` lines): a CSA writer writes them
    /// back as they were whatever their form, as the KIF writers do with lines read from KIF,
    /// KI2 or JKF in the GUI forms.
    pub from_csa: bool,
}

impl Analysis {
    /// An analysis with nothing in it yet.
    pub fn new(form: AnalysisForm) -> Analysis {
        Analysis {
            score: None,
            pv: Vec::new(),
            depth: None,
            nodes: None,
            engine: None,
            form,
            lines: Vec::new(),
            from_csa: false,
        }
    }
}
