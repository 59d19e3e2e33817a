//! SFENs and USI moves written fast, for the positions table: a game's successive SFENs
//! from the ranks and hands a move changed, and a move's USI letters without a `String`.

use crate::core::{Color, Hand, Move, Position, Square};

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
fn cell(p: Option<crate::core::Piece>) -> u8 {
    match p {
        None => 0,
        Some(p) => (1 + p.kind.index() + 14 * p.color.index()) as u8,
    }
}

/// Writes the SFENs of the successive positions of a game: the ranks a move did not touch
/// are copied from the SFEN before, only the one or two it changed are written again (when
/// the move is told, from a copy of the board's squares it keeps), and a hand only when it
/// changed (a capture or a drop). The SFEN is put together in place at the end of its
/// output, each rank and hand copied whole (a fixed size, no call). 60 ns a position on
/// this machine, 122 before session 23 (docs/benchmarks.md).
#[derive(Debug, Clone)]
pub(crate) struct SfenWriter {
    /// Each square's index in [`CELLS`], kept by [`SfenWriter::moved`] once filled from the
    /// first position written (`None` before): read from the position, an empty square is
    /// a branch the processor mispredicts about every other square.
    cells: Option<[u8; 81]>,
    /// Each rank's text (at most nine two-letter pieces), top rank first.
    ranks: [[u8; RANK_TEXT]; 9],
    lens: [u8; 9],
    /// The hands (Black's, White's) whose texts `hands_text` holds, if any yet.
    hands: Option<[Hand; 2]>,
    /// The hands' field (`-` when both are empty).
    hands_text: [[u8; HAND_TEXT]; 2],
    hands_len: [u8; 2],
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

impl SfenWriter {
    pub(crate) fn new() -> SfenWriter {
        SfenWriter {
            cells: None,
            ranks: [[0; RANK_TEXT]; 9],
            lens: [0; 9],
            hands: None,
            hands_text: [[0; HAND_TEXT]; 2],
            hands_len: [0; 2],
        }
    }

    /// `m` is about to be played in `pos`: the squares it changes are updated and their
    /// ranks written again, and the hands' field if it takes or drops a piece. Done here, a
    /// move's time before the SFEN is asked for: written just before it is copied, a rank's
    /// bytes would be read back before the processor could forward them.
    #[inline]
    pub(crate) fn moved(&mut self, pos: &Position, m: Move) {
        let Some(cells) = &mut self.cells else {
            // Not written yet: the first SFEN writes every rank.
            return;
        };
        let mover = pos.turn();
        let (from, to) = match m {
            Move::Normal { from, to, promote } => {
                let piece = pos.board()[from.index()];
                let piece = match (piece, promote) {
                    (Some(p), true) => Some(crate::core::Piece::new(
                        p.color,
                        p.kind.promote().unwrap_or(p.kind),
                    )),
                    (p, _) => p,
                };
                if let (Some(taken), Some(hands)) = (pos.board()[to.index()], &mut self.hands) {
                    let c = mover.index();
                    hands[c].add(taken.kind.unpromote());
                    self.hands_len[c] = write_hand(&hands[c], mover, &mut self.hands_text[c]);
                }
                cells[from.index()] = 0;
                cells[to.index()] = cell(piece);
                (from, to)
            }
            Move::Drop { kind, to } => {
                cells[to.index()] = cell(Some(crate::core::Piece::new(mover, kind)));
                if let Some(hands) = &mut self.hands {
                    let c = mover.index();
                    hands[c].remove(kind);
                    self.hands_len[c] = write_hand(&hands[c], mover, &mut self.hands_text[c]);
                }
                (to, to)
            }
        };
        let (a, b) = (from.index() % 9, to.index() % 9);
        self.lens[a] = write_rank(cells, a, &mut self.ranks[a]);
        if b != a {
            self.lens[b] = write_rank(cells, b, &mut self.ranks[b]);
        }
    }

    /// Appends the SFEN of `pos` (as [`Position::to_sfen`] writes it), which differs from the
    /// position last written by the moves told to [`SfenWriter::moved`] since. Written in
    /// place at the end of `out` (room for the longest SFEN is made, then cut to the text's
    /// length).
    pub(crate) fn write(&mut self, pos: &Position, out: &mut Vec<u8>) {
        let start = out.len();
        out.resize(start + SFEN_TEXT, 0);
        let n = match <&mut [u8; SFEN_TEXT]>::try_from(&mut out[start..]) {
            Ok(buf) => self.write_into(pos, buf),
            Err(_) => 0,
        };
        out.truncate(start + n);
    }

    /// Writes the SFEN of `pos` at the start of `buf`; returns its length.
    #[inline]
    fn write_into(&mut self, pos: &Position, buf: &mut [u8; SFEN_TEXT]) -> usize {
        if self.cells.is_none() {
            let mut cells = [0u8; 81];
            for (c, &p) in cells.iter_mut().zip(pos.board()) {
                *c = cell(p);
            }
            for rank in 0..9 {
                self.lens[rank] = write_rank(&cells, rank, &mut self.ranks[rank]);
            }
            self.cells = Some(cells);
        }
        let mut n = 0usize;
        for rank in 0..9usize {
            buf[n..n + RANK_TEXT].copy_from_slice(&self.ranks[rank]);
            n += usize::from(self.lens[rank]);
            buf[n] = b'/';
            n += 1;
        }
        // The last rank's slash becomes the space before the side.
        buf[n - 1] = b' ';
        buf[n] = if pos.turn() == Color::Black {
            b'b'
        } else {
            b'w'
        };
        buf[n + 1] = b' ';
        n += 2;
        let hands = [pos.hand(Color::Black), pos.hand(Color::White)];
        if self.hands != Some(hands) {
            self.hands = Some(hands);
            for c in Color::ALL {
                let i = c.index();
                self.hands_len[i] = write_hand(&hands[i], c, &mut self.hands_text[i]);
            }
        }
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
        n += write_number(&mut buf[n..n + 10], pos.move_number());
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

/// Writes `v` in decimal at the start of `buf` (room for its digits); returns their number.
fn write_number(buf: &mut [u8], mut v: u32) -> usize {
    let mut digits = [0u8; 10];
    let mut i = digits.len();
    loop {
        i -= 1;
        digits[i] = b'0' + (v % 10) as u8;
        v /= 10;
        if v == 0 {
            break;
        }
    }
    let len = digits.len() - i;
    buf[..len].copy_from_slice(&digits[i..]);
    len
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

/// The SFEN of `pos` (as [`Position::to_sfen`], in one allocation).
pub(crate) fn sfen(pos: &Position) -> String {
    let mut buf = Vec::with_capacity(128);
    SfenWriter::new().write(pos, &mut buf);
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
pub(super) fn write_usi_bytes(m: Move, out: &mut Vec<u8>) {
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
