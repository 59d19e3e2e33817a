//! Zobrist keys, computed at compile time from a fixed seed so keys are stable across runs.
//!
//! A position's key is the XOR of one key per (colour, kind, square) on the board, one key per
//! (colour, hand kind, count) for every hand kind (count 0 included, so an empty hand still
//! contributes), and `SIDE` when White is to move. The key covers board, hands and side to
//! move, and nothing else (not the move number), which is what repetition needs.

const fn splitmix(state: u64) -> (u64, u64) {
    let s = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
    let mut z = s;
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    (s, z ^ (z >> 31))
}

/// Maximum hand count covered (a hand never holds more than 18 of a kind).
pub(crate) const HAND_MAX: usize = 18;

pub(crate) struct Keys {
    pub board: [[[u64; 81]; 14]; 2],
    pub hand: [[[u64; HAND_MAX + 1]; 7]; 2],
    pub side: u64,
}

const fn build() -> Keys {
    let mut st = 0x6b69_6675_5f63_6f72u64; // "kifu_cor"
    let mut k = Keys {
        board: [[[0; 81]; 14]; 2],
        hand: [[[0; HAND_MAX + 1]; 7]; 2],
        side: 0,
    };
    let mut c = 0;
    while c < 2 {
        let mut p = 0;
        while p < 14 {
            let mut s = 0;
            while s < 81 {
                let (n, v) = splitmix(st);
                st = n;
                k.board[c][p][s] = v;
                s += 1;
            }
            p += 1;
        }
        let mut p = 0;
        while p < 7 {
            let mut n = 0;
            while n <= HAND_MAX {
                let (ns, v) = splitmix(st);
                st = ns;
                k.hand[c][p][n] = v;
                n += 1;
            }
            p += 1;
        }
        c += 1;
    }
    let (_, v) = splitmix(st);
    k.side = v;
    k
}

pub(crate) static KEYS: Keys = build();

/// The hand key for a count, clamped to the table (counts above 18 cannot occur in a
/// validated position; clamping keeps the lookup panic-free regardless).
#[inline]
pub(crate) fn hand_key(c: usize, kind: usize, n: u8) -> u64 {
    let n = (n as usize).min(HAND_MAX);
    KEYS.hand[c][kind][n]
}
