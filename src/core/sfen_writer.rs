//! The SFEN and USI text of the core: every SFEN kifu writes ([`Setup::to_sfen`],
//! [`Position::to_sfen`], the positions table's successive SFENs, written from the ranks and
//! hands a move changed) and every USI move (`Move`'s `Display`, and its letters without a
//! `String`).

use super::{Color, Hand, Move, Piece, Position, Setup, Square};

/// Each square's SFEN text by [`cell`]: nothing for an empty square (index 0), then Black's
/// kinds by index, then White's (their letter in lower case); two bytes, of which the first
/// `len` count (`+` and the letter for a promoted kind).
const CELLS: [([u8; 2], u8); 32] = {
    const KINDS: [&[u8]; 14] = [
        b"P", b"L", b"N", b"S", b"G", b"B", b"R", b"K", b"+P", b"+L", b"+N", b"+S", b"+B", b"+R",
    ];
    let mut t = [([0u8; 2], 0u8); 32];
    let mut i = 0;
    while i < 28 {
        let k = KINDS[i % 14];
        let mut text = [b' '; 2];
        let mut j = 0;
        while j < k.len() {
            text[j] = if i >= 14 {
                k[j].to_ascii_lowercase()
            } else {
                k[j]
            };
            j += 1;
        }
        t[i + 1] = (text, k.len() as u8);
        i += 1;
    }
    t
};

/// A square's index in [`CELLS`].
#[inline]
fn cell(p: Option<Piece>) -> u8 {
    match p {
        None => 0,
        Some(p) => (1 + p.kind.index() + 14 * p.color.index()) as u8,
    }
}

/// Writes the SFENs of the successive positions of a game, keeping the position itself: a
/// copy of the board's squares as indexes in [`CELLS`] (read from a `Position`, an empty
/// square is a branch the processor mispredicts about every other square), the hands, the
/// side to move and the move number, which [`SfenWriter::play`] changes as a move does. The
/// ranks a move did not touch keep their text, only the one or two it changed are written
/// again, and a hand only when a capture or drop changes it; all that at the move, a move's
/// time before its text is copied (written just before, a rank's bytes would be read back
/// before the processor could forward them). The SFEN is put together in place at the end of
/// its output, each rank and hand copied whole (a fixed size, no call). About 50 ns a
/// position on this machine, 122 before session 23 (docs/history/benchmarks-notebook.md); and a game read the
/// way of a game whose every move is legal needs no `Position` replayed beside it.
#[derive(Debug, Clone)]
pub(crate) struct SfenWriter {
    /// Each square's index in [`CELLS`].
    cells: [u8; 81],
    /// Each rank's text (at most nine two-letter pieces), top rank first.
    ranks: [[u8; RANK_TEXT]; 9],
    lens: [u8; 9],
    /// Black's and White's hands, and their texts (the field is `-` when both are empty).
    hands: [Hand; 2],
    hands_text: [[u8; HAND_TEXT]; 2],
    hands_len: [u8; 2],
    turn: Color,
    move_number: u32,
    /// The start holds more of a kind than the set (a setup read leniently): a hand may then
    /// reach 20 of it, past what [`write_hand`] writes.
    big_hands: bool,
}

/// Room for a rank's text: nine two-letter pieces, and scratch for [`write_rank`] (which
/// masks its indexes to this size).
const RANK_TEXT: usize = 32;

/// Room for a side's hand: seven kinds, each at most two digits and a letter, and scratch
/// for [`write_hand`] (which masks its indexes to this size).
const HAND_TEXT: usize = 32;

/// Room for a whole SFEN: nine ranks of 18 bytes and their 8 slashes, the side between two
/// spaces, the hands, a space and a move number of at most 10 digits (with slack, so each
/// rank and the hands are copied at their full size).
const SFEN_TEXT: usize = 9 * 18 + 8 + 3 + 1 + 2 * HAND_TEXT + 1 + 10 + RANK_TEXT;

/// Each [`CELLS`] index promoted (the same for a kind that does not promote, or no piece).
const PROMOTED: [u8; 32] = {
    let mut t = [0u8; 32];
    let mut i = 0;
    while i < 32 {
        t[i] = i as u8;
        i += 1;
    }
    let mut side = 0;
    while side < 2 {
        // Pawn, lance, knight, silver to their promoted kinds (8 to 11), bishop and rook to
        // horse and dragon (12, 13).
        let from = [0, 1, 2, 3, 5, 6];
        let to = [8, 9, 10, 11, 12, 13];
        let mut k = 0;
        while k < 6 {
            t[1 + 14 * side + from[k]] = (1 + 14 * side + to[k]) as u8;
            k += 1;
        }
        side += 1;
    }
    t
};

impl SfenWriter {
    /// A writer at `pos`.
    pub(crate) fn new(pos: &Position) -> SfenWriter {
        SfenWriter::of(
            pos.board(),
            [pos.hand(Color::Black), pos.hand(Color::White)],
            pos.turn(),
            pos.move_number(),
        )
    }

    /// A writer at a setup (any: an impossible one, or hands past what the set holds).
    pub(crate) fn from_setup(s: &Setup) -> SfenWriter {
        SfenWriter::of(
            &s.board,
            [*s.hands.get(Color::Black), *s.hands.get(Color::White)],
            s.turn,
            s.move_number,
        )
    }

    fn of(
        board: &[Option<Piece>; 81],
        hands: [Hand; 2],
        turn: Color,
        move_number: u32,
    ) -> SfenWriter {
        let mut cells = [0u8; 81];
        for (c, &p) in cells.iter_mut().zip(board) {
            *c = cell(p);
        }
        let mut w = SfenWriter {
            cells,
            ranks: [[0; RANK_TEXT]; 9],
            lens: [0; 9],
            hands,
            hands_text: [[0; HAND_TEXT]; 2],
            hands_len: [0; 2],
            turn,
            move_number,
            big_hands: beyond_the_set(board, &hands),
        };
        for rank in 0..9 {
            w.lens[rank] = write_rank(&w.cells, rank, &mut w.ranks[rank]);
        }
        for c in Color::ALL {
            let i = c.index();
            w.hand_text(i, c);
        }
        w
    }

    /// `m` is played (by the side to move): its squares, the mover's hand if it takes or
    /// drops a piece, the side to move and the move number change as in the position. A move
    /// the position would refuse changes the squares all the same (the caller stops writing
    /// at such a move).
    #[inline]
    pub(crate) fn play(&mut self, m: Move) {
        let mover = self.turn;
        let c = mover.index();
        let (from, to) = match m {
            Move::Normal { from, to, promote } => {
                let piece = self.cells[from.index()];
                let piece = if promote {
                    PROMOTED[usize::from(piece) & 31]
                } else {
                    piece
                };
                let taken = self.cells[to.index()];
                if taken != 0 {
                    // The kind, without its side (`Hand::add` unpromotes it).
                    let kind = (usize::from(taken) - 1) % 14;
                    if let Some(kind) = super::PieceKind::from_index(kind) {
                        self.hands[c].add(kind);
                        self.hand_text(c, mover);
                    }
                }
                self.cells[from.index()] = 0;
                self.cells[to.index()] = piece;
                (from, to)
            }
            Move::Drop { kind, to } => {
                self.cells[to.index()] = cell(Some(Piece::new(mover, kind)));
                self.hands[c].remove(kind);
                self.hand_text(c, mover);
                (to, to)
            }
        };
        let (a, b) = (from.index() % 9, to.index() % 9);
        self.lens[a] = write_rank(&self.cells, a, &mut self.ranks[a]);
        if b != a {
            self.lens[b] = write_rank(&self.cells, b, &mut self.ranks[b]);
        }
        self.turn = mover.flip();
        self.move_number = self.move_number.saturating_add(1);
    }

    /// Writes the text of side `c`'s hand again (`mover`, whose hand it is): past 19 of a
    /// kind (only a setup read leniently holds so many), plainly.
    #[inline]
    fn hand_text(&mut self, c: usize, mover: Color) {
        let (hand, buf) = (&self.hands[c], &mut self.hands_text[c]);
        self.hands_len[c] = match self.big_hands {
            true => write_big_hand(hand, mover, buf),
            false => write_hand(hand, mover, buf),
        };
    }

    /// Appends the SFEN of the position (as [`Position::to_sfen`] writes it), in place at the
    /// end of `out` (room for the longest SFEN is made, then cut to the text's length).
    pub(crate) fn write(&self, out: &mut Vec<u8>) {
        let start = out.len();
        out.resize(start + SFEN_TEXT, 0);
        let n = match <&mut [u8; SFEN_TEXT]>::try_from(&mut out[start..]) {
            Ok(buf) => self.write_into(buf),
            Err(_) => 0,
        };
        out.truncate(start + n);
    }

    /// Writes the SFEN at the start of `buf`; returns its length.
    #[inline]
    fn write_into(&self, buf: &mut [u8; SFEN_TEXT]) -> usize {
        let mut n = 0usize;
        for rank in 0..9usize {
            buf[n..n + RANK_TEXT].copy_from_slice(&self.ranks[rank]);
            n += usize::from(self.lens[rank]);
            buf[n] = b'/';
            n += 1;
        }
        // The last rank's slash becomes the space before the side.
        buf[n - 1] = b' ';
        buf[n] = if self.turn == Color::Black {
            b'b'
        } else {
            b'w'
        };
        buf[n + 1] = b' ';
        n += 2;
        // Both hands copied whole, White's where Black's ends; `-` when both are empty.
        let [black, white] = self.hands_len.map(usize::from);
        buf[n..n + HAND_TEXT].copy_from_slice(&self.hands_text[0]);
        buf[n + black..n + black + HAND_TEXT].copy_from_slice(&self.hands_text[1]);
        if black + white == 0 {
            buf[n] = b'-';
        }
        n += (black + white).max(1);
        buf[n] = b' ';
        n += 1;
        n += write_number(&mut buf[n..n + 10], self.move_number);
        n
    }
}

/// Writes a side's part of the hands' field of an SFEN (its pieces strongest first, in
/// upper case for Black and lower case for White, each count before its letter when above
/// one); returns its length. Without a branch on the counts: each kind writes a ten's digit,
/// a unit's digit and its letter, and advances past those that count (a count is at most 18).
fn write_hand(hand: &Hand, side: Color, buf: &mut [u8; HAND_TEXT]) -> u8 {
    const LETTERS: [u8; 7] = *b"PLNSGBR";
    let mut n = 0usize;
    let counts = hand.counts();
    let case = if side == Color::Black { 0 } else { b'a' - b'A' };

    for k in (0..7).rev() {
        let count = usize::from(counts[k]);
        let tens = usize::from(count >= 10);
        buf[n & 31] = b'1';
        n += tens;
        buf[n & 31] = b'0' + (count - 10 * tens) as u8;
        n += usize::from(count >= 2);
        buf[n & 31] = LETTERS[k] + case;
        n += usize::from(count >= 1);
    }
    n as u8
}

/// Whether a board and hands hold more of some kind than a set has (counting promoted pieces
/// with their kind).
fn beyond_the_set(board: &[Option<Piece>; 81], hands: &[Hand; 2]) -> bool {
    let mut total = [0u32; 7];
    for p in board.iter().flatten() {
        let k = p.kind.unpromote();
        if k.is_hand_kind() {
            total[k.index()] += 1;
        }
    }
    for h in hands {
        for (t, n) in total.iter_mut().zip(h.counts()) {
            *t += u32::from(n);
        }
    }
    total.iter().enumerate().any(|(k, &n)| {
        super::PieceKind::from_index(k).is_some_and(|kind| n > u32::from(kind.set_count()))
    })
}

/// [`write_hand`] for a hand with more than 19 of a kind (a setup read leniently): up to three
/// digits a kind, written plainly (seven kinds of four bytes fit the buffer).
fn write_big_hand(hand: &Hand, side: Color, buf: &mut [u8; HAND_TEXT]) -> u8 {
    const LETTERS: [u8; 7] = *b"PLNSGBR";
    let case = if side == Color::Black { 0 } else { b'a' - b'A' };
    let mut n = 0usize;
    for (k, &count) in hand.counts().iter().enumerate().rev() {
        if count > 1 {
            n += write_number(&mut buf[n..n + 3], u32::from(count));
        }
        if count > 0 {
            buf[n] = LETTERS[k] + case;
            n += 1;
        }
    }
    n as u8
}

/// Writes `v` in decimal at the start of `buf` (room for its digits); returns their number.
fn write_number(buf: &mut [u8], v: u32) -> usize {
    let digits = Digits::of(u64::from(v));
    let digits = digits.as_bytes();
    buf[..digits.len()].copy_from_slice(digits);
    digits.len()
}

/// A number in decimal, on the stack: the move number of an SFEN, and the text tables'
/// numbers.
pub(crate) struct Digits {
    buf: [u8; 20],
    start: usize,
}

impl Digits {
    pub(crate) fn of(mut v: u64) -> Digits {
        let mut buf = [0u8; 20];
        let mut start = buf.len();
        loop {
            start -= 1;
            buf[start] = b'0' + (v % 10) as u8;
            v /= 10;
            if v == 0 {
                break;
            }
        }
        Digits { buf, start }
    }

    pub(crate) fn as_bytes(&self) -> &[u8] {
        &self.buf[self.start..]
    }
}

/// Writes one rank of the board (0: the top one) into `buf`, from each square's index in
/// [`CELLS`]; returns its length. Without a branch on the squares (about half are empty, in
/// no order a predictor learns): each square writes the pending count of empty squares and
/// its piece's two letters, and only advances past what counts; the bytes past the end are
/// scratch. The indexes are masked to the arrays' sizes (they are within them), so no bound
/// is checked either.
#[inline]
fn write_rank(cells: &[u8; 81], rank: usize, buf: &mut [u8; RANK_TEXT]) -> u8 {
    let mut n = 0usize;
    let mut empty = 0usize;
    for file in (0..9usize).rev() {
        let (text, len) = CELLS[usize::from(cells[file * 9 + rank]) & 31];
        let occupied = usize::from(len != 0);
        // Only read when a piece follows empty squares.
        buf[n & 31] = b'0' + empty as u8;
        n += usize::from(empty != 0) & occupied;
        buf[n & 31] = text[0];
        buf[(n + 1) & 31] = text[1];
        n += usize::from(len);
        empty = (empty + 1) * (1 - occupied);
    }
    buf[n & 31] = b'0' + empty as u8;
    n += usize::from(empty != 0);
    n as u8
}

/// The SFENs of a line of play, written as [`Position::to_sfen`] writes them, about ten times
/// faster (one writer carried along the line): `pos`'s, then the position's after each move of `moves` as
/// long as the move is legal there, appended one after the other to `text`, each one's end
/// pushed to `ends`. Returns the number of moves played: `moves.len()` when every move is
/// legal, else the index of the first that is not (no SFEN is written after it). `pos` is
/// left after the moves played, where a caller can go on from the move refused.
///
/// ```
/// use kifu::{Move, Position};
///
/// let moves = ["7g7f", "3c3d"].map(|m| Move::from_usi(m).unwrap());
/// let (mut pos, mut text, mut ends) = (Position::startpos(), Vec::new(), Vec::new());
/// let played = kifu::core::line_sfens(&mut pos, &moves, &mut text, &mut ends);
/// assert_eq!((played, ends.len()), (2, 3));
/// let last = std::str::from_utf8(&text[ends[1]..ends[2]]).unwrap();
/// assert_eq!(last, "lnsgkgsnl/1r5b1/pppppp1pp/6p2/9/2P6/PP1PPPPPP/1B5R1/LNSGKGSNL b - 3");
/// assert_eq!(pos.to_sfen(), last);
/// ```
pub fn line_sfens(
    pos: &mut Position,
    moves: &[Move],
    text: &mut Vec<u8>,
    ends: &mut Vec<usize>,
) -> usize {
    let mut writer = SfenWriter::new(pos);
    writer.write(text);
    ends.push(text.len());
    for (i, &m) in moves.iter().enumerate() {
        if !pos.play_if_legal(m) {
            return i;
        }
        writer.play(m);
        writer.write(text);
        ends.push(text.len());
    }
    moves.len()
}

/// The SFEN of `pos` ([`Position::to_sfen`]), in one allocation.
pub(crate) fn sfen(pos: &Position) -> String {
    text(&SfenWriter::new(pos))
}

/// The SFEN a writer is at.
pub(super) fn text(w: &SfenWriter) -> String {
    let mut buf = Vec::with_capacity(128);
    w.write(&mut buf);
    String::from_utf8(buf).unwrap_or_default()
}

/// A move in USI (as its `Display` writes it), in a buffer: the letters and how many.
pub(crate) fn usi_letters(m: Move) -> ([u8; 5], usize) {
    let mut buf = [0u8; 5];
    let square = |buf: &mut [u8; 5], at: usize, sq: Square| {
        buf[at] = b'0' + sq.file();
        buf[at + 1] = b'a' + sq.rank() - 1;
    };
    match m {
        Move::Normal { from, to, promote } => {
            square(&mut buf, 0, from);
            square(&mut buf, 2, to);
            buf[4] = b'+';
            (buf, if promote { 5 } else { 4 })
        }
        Move::Drop { kind, to } => {
            buf[0] = kind.sfen_letter() as u8;
            buf[1] = b'*';
            square(&mut buf, 2, to);
            (buf, 4)
        }
    }
}

/// [`write_usi`] to bytes.
pub(crate) fn write_usi_bytes(m: Move, out: &mut Vec<u8>) {
    let (buf, n) = usi_letters(m);
    out.extend_from_slice(&buf[..n]);
}

/// Writes a move in USI (as its `Display` does, without allocating).
pub(crate) fn write_usi(m: Move, s: &mut String) {
    let (buf, n) = usi_letters(m);
    s.push_str(std::str::from_utf8(&buf[..n]).unwrap_or(""));
}

#[cfg(test)]
mod tests;
