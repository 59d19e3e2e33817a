//! Pictures of one position: the KIF board diagram (BOD, the text diagram every Japanese tool
//! reads; the same writer the KIF writer uses for a set-up start), an SVG drawing, and the
//! SFEN. What `kifu show` prints and what `validate --show-board` puts under a diagnostic.
//!
//! A [`Diagram`] is the position (a [`Setup`]: board, hands, side to move, move number) with
//! what a reader wants to see on it: the move that led there and the squares a diagnostic is
//! about. It knows no record and no command line.
//!
//! ```
//! use kifu::core::{Move, PieceKind, Position};
//! use kifu::formats::diagram::{Diagram, LastMove};
//!
//! let mut pos = Position::startpos();
//! let mv = Move::from_usi("7g7f").unwrap();
//! pos.play(mv).unwrap();
//! let d = Diagram::new(pos.to_setup())
//!     .last_move(LastMove { mv, kind: PieceKind::Pawn });
//! assert!(d.bod().contains("手数＝1  ▲７六歩(77)  まで"));
//! assert!(d.svg().starts_with("<svg"));
//! assert_eq!(d.sfen(), "lnsgkgsnl/1r5b1/ppppppppp/9/9/2P6/PP1PPPPPP/1B5R1/LNSGKGSNL w - 2");
//! ```
//!
//! Formats layer: uses `core` only.

use crate::core::{Color, Move, PieceKind, Setup, Square};
use crate::formats::kakinoki::{self, BodStyle};

mod svg;

/// The move that led to a diagram's position.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LastMove {
    /// The move (its side is the side not to move in the diagram).
    pub mv: Move,
    /// The kind of the piece that moved, before the move (the dropped kind for a drop).
    pub kind: PieceKind,
}

/// A position to draw, with its last move and highlighted squares.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Diagram {
    /// Board, hands, side to move and move number (the SFEN move number: the moves played
    /// before the position are one less).
    pub setup: Setup,
    /// The move that led here, drawn as the last move.
    pub last: Option<LastMove>,
    /// Squares to mark (a diagnostic's: the source and destination of the offending move).
    pub marks: Vec<Square>,
    /// Drawn from White's side: White's pieces at the bottom, Black's turned at the top.
    pub flip: bool,
    /// The sides are 下手 (Black) and 上手 (White), as in a handicap game.
    pub handicap: bool,
    /// A line of text to carry with the drawing (a diagnostic: `kifu show --at-diagnostic`),
    /// written under the SVG's caption and in its description. The BOD leaves it to the
    /// caller (a `#` comment line).
    pub note: Option<String>,
}

impl Diagram {
    /// A diagram of `setup`, from Black's side, with no last move and no marks.
    pub fn new(setup: Setup) -> Diagram {
        Diagram {
            setup,
            last: None,
            marks: Vec::new(),
            flip: false,
            handicap: false,
            note: None,
        }
    }

    /// The diagram with a note (see [`Diagram::note`]).
    pub fn with_note(mut self, note: impl Into<String>) -> Diagram {
        self.note = Some(note.into());
        self
    }

    /// The diagram with its last move.
    pub fn last_move(mut self, last: LastMove) -> Diagram {
        self.last = Some(last);
        self
    }

    /// The diagram with `squares` marked.
    pub fn mark(mut self, squares: impl IntoIterator<Item = Square>) -> Diagram {
        self.marks.extend(squares);
        self
    }

    /// The diagram from White's side (`true`) or Black's.
    pub fn flipped(mut self, flip: bool) -> Diagram {
        self.flip = flip;
        self
    }

    /// The diagram with the handicap names of the sides (下手, 上手).
    pub fn handicap(mut self, handicap: bool) -> Diagram {
        self.handicap = handicap;
        self
    }

    /// Moves played before the position.
    pub fn plies(&self) -> u32 {
        self.setup.move_number.saturating_sub(1)
    }

    /// The side that played the last move.
    fn mover(&self) -> Color {
        self.setup.turn.flip()
    }

    /// The last move as KIF writes it, with the mover's mark: `▲７六歩(77)`, `△５五角打`.
    pub fn last_move_text(&self) -> Option<String> {
        let last = self.last?;
        let mark = match self.mover() {
            Color::Black => '▲',
            Color::White => '△',
        };
        Some(format!(
            "{mark}{}",
            crate::formats::kif::move_text(last.mv, last.kind, false)
        ))
    }

    /// The KIF board diagram (BOD): the top side's hand, the board with `v` before White's
    /// pieces, the bottom side's hand, `手数＝N  ▲７六歩(77)  まで` when there was a move, and
    /// the side to move (`先手番`, `後手番`). The KIF and KI2 readers read it back (unless
    /// flipped: a rotated diagram, marked `盤面回転`, is for people).
    pub fn bod(&self) -> String {
        let last = self.last_move_text();
        let mut out = String::with_capacity(512);
        kakinoki::write_bod_with(
            &mut out,
            &self.setup,
            &BodStyle {
                handicap: self.handicap,
                flip: self.flip,
                last: last.as_deref(),
                turn_always: true,
            },
        );
        out
    }

    /// The position as SFEN (board, side to move, hands, move number).
    pub fn sfen(&self) -> String {
        self.setup.to_sfen()
    }

    /// A self-contained SVG drawing of the diagram (see the `svg` module).
    pub fn svg(&self) -> String {
        svg::write(self)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::Position;
    use crate::formats::{Format, read};

    fn after(moves: &str) -> Diagram {
        let mut pos = Position::startpos();
        let mut last = None;
        for m in moves.split_whitespace() {
            let mv = Move::from_usi(m).expect("usi");
            let kind = match mv {
                Move::Normal { from, .. } => pos.piece_at(from).expect("piece").kind,
                Move::Drop { kind, .. } => kind,
            };
            pos.play(mv).expect("legal");
            last = Some(LastMove { mv, kind });
        }
        let d = Diagram::new(pos.to_setup());
        match last {
            Some(l) => d.last_move(l),
            None => d,
        }
    }

    #[test]
    fn the_bod_reads_back_as_the_same_position() {
        for moves in ["", "7g7f", "7g7f 3c3d 8h2b+ 3a2b B*4e"] {
            let d = after(moves);
            let games = read(Format::Kifu, &d.bod());
            assert_eq!(games.len(), 1, "{moves}");
            assert!(
                games[0].diagnostics.is_empty(),
                "{:?}",
                games[0].diagnostics
            );
            assert_eq!(
                games[0].record.start.to_setup().to_sfen(),
                d.sfen(),
                "{moves}"
            );
        }
    }

    #[test]
    fn the_bod_names_the_last_move_and_the_side_to_move() {
        let d = after("7g7f 3c3d 8h2b+");
        let bod = d.bod();
        assert!(bod.contains("手数＝3  ▲２二角成(88)  まで\n"), "{bod}");
        assert!(bod.contains("後手番\n"), "{bod}");
        assert!(bod.contains("先手の持駒：角\n"), "{bod}");
        assert!(after("").bod().ends_with("先手番\n"));
    }

    #[test]
    fn a_flipped_bod_puts_black_at_the_top() {
        let bod = after("7g7f").flipped(true).bod();
        let lines: Vec<&str> = bod.lines().collect();
        assert_eq!(lines[0], "先手の持駒：なし");
        assert_eq!(lines[1], "  １ ２ ３ ４ ５ ６ ７ ８ ９");
        // Rank 9 first, file 1 on the left: Black's lance, knight...
        assert_eq!(lines[3], "| 香 桂 銀 金 玉 金 銀 桂 香|九");
        assert_eq!(lines[11], "|v香v桂v銀v金v玉v金v銀v桂v香|一");
        assert_eq!(lines[12 + 1], "後手の持駒：なし");
        assert!(bod.ends_with("盤面回転\n"));
    }
}
