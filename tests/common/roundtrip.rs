//! What a write-then-read round trip must give back: a view of a move tree keeping only what a
//! format holds ([`Format::holds`]), and the check of the `roundtrip` fuzz target. Shared by
//! `tests/library/props_roundtrip.rs`, `app/tests/cli/hostile_regressions.rs` and
//! `fuzz/fuzz_targets/roundtrip.rs`, which include this file by path.

use kifu::core::Color;
use kifu::core::Move;
use kifu::formats::{self, Format, Holds, WriteOptions, decode};
use kifu::record::{MoveNode, NodeKind, Record, SpecialKind};

/// One ply as compared: the move (or the special's kind), times, comments, and the lines that
/// branch off here.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Ply {
    pub mv: Option<Move>,
    pub special: Option<SpecialKind>,
    pub elapsed: Option<u64>,
    pub total: Option<u64>,
    pub comments: Vec<String>,
    pub variations: Vec<Vec<Ply>>,
}

/// The moves of `record` as a format holding `h` keeps them.
pub fn view(record: &Record, h: Holds) -> Vec<Ply> {
    view_line(&record.moves, h, record.start.to_setup().turn, false)
}

/// The variation `v`, then the alternatives to its first move, depth first.
fn alternatives_of<'a>(v: &'a [MoveNode], out: &mut Vec<&'a [MoveNode]>) {
    out.push(v);
    if let Some(first) = v.first() {
        for w in &first.variations {
            alternatives_of(w, out);
        }
    }
}

/// The line `nodes`, starting with `turn` to move, as a format holding `h` keeps it. A win by
/// the opponent's foul (`反則勝ち`, [`SpecialKind::IllegalWin`]) is the same ending as
/// [`SpecialKind::IllegalAction`] of the side not to move, and a loss by a foul (`反則負け`,
/// [`SpecialKind::IllegalMove`]) the same as `IllegalAction` of the side it names (or of the
/// side to move); they are compared as that: each format writes only some of them.
///
/// The variations of a variation's first move are alternatives to the same move, as the
/// variation itself is: they are compared as the node's own variations, after that one
/// (JKF can nest them so, KIF and KI2 cannot). `lifted`: the first node's variations were
/// taken so.
fn view_line(nodes: &[MoveNode], h: Holds, mut turn: Color, lifted: bool) -> Vec<Ply> {
    let mut out = Vec::new();
    for (i, n) in nodes.iter().enumerate() {
        let mover = match &n.kind {
            NodeKind::Move { text, .. } => text.color.unwrap_or(turn),
            NodeKind::Special(_) => turn,
        };
        if h.ending || n.special().is_none() {
            out.push(Ply {
                mv: n.resolved(),
                special: n.special().map(|s| match s.kind {
                    SpecialKind::IllegalWin => SpecialKind::IllegalAction(turn.flip()),
                    SpecialKind::IllegalMove => SpecialKind::IllegalAction(s.side.unwrap_or(turn)),
                    k => k,
                }),
                elapsed: n.time.and_then(|t| t.elapsed_ms).filter(|_| h.elapsed),
                total: n.time.and_then(|t| t.total_ms).filter(|_| h.total),
                comments: if h.comments {
                    comment_lines(&n.comments)
                } else {
                    Vec::new()
                },
                variations: if h.variations && !(lifted && i == 0) {
                    let mut alternatives = Vec::new();
                    for v in &n.variations {
                        alternatives_of(v, &mut alternatives);
                    }
                    alternatives
                        .into_iter()
                        .map(|v| view_line(v, h, turn, true))
                        .collect()
                } else {
                    Vec::new()
                },
            });
        }
        if matches!(n.kind, NodeKind::Move { .. }) {
            turn = mover.flip();
        }
    }
    out
}

/// A record's bookmarks: before the first move, then on every node of the main line and of
/// its variations, depth first.
fn bookmarks(r: &Record) -> Vec<String> {
    fn line(nodes: &[MoveNode], out: &mut Vec<String>) {
        for n in nodes {
            out.extend(n.bookmark.clone());
            for v in &n.variations {
                line(v, out);
            }
        }
    }
    let mut out: Vec<String> = r.start_bookmark.iter().cloned().collect();
    line(&r.moves, &mut out);
    out
}

/// A record's header entries as `(key, value)`, sorted, without the handicap key, with the
/// handicap names (下手, 上手) under the even-game keys (先手, 後手) and CSA's `$` keys under
/// the keys the CSA reader gives them.
fn header_view(r: &kifu::record::Record) -> Vec<(String, String)> {
    use kifu::record::keys;
    let mut v: Vec<(String, String)> = r
        .header
        .entries
        .iter()
        .filter(|e| e.key != keys::HANDICAP)
        .map(|e| {
            let key = match e.key.as_str() {
                keys::SHITATE => keys::BLACK,
                keys::UWATE => keys::WHITE,
                // CSA's own keys, kept as they are by the other readers.
                k => kifu::formats::csa::header_key(k),
            };
            (key.to_owned(), e.value.clone())
        })
        .collect();
    v.sort();
    v
}

/// A node's comments as the lines they make: line-based formats (KIF, KI2, CSA) keep a
/// comment holding a line break as several comments, and a CR at the end of a line is part
/// of the line end there.
fn comment_lines(comments: &[String]) -> Vec<String> {
    comments
        .iter()
        .flat_map(|c| c.split('\n'))
        .map(|l| l.trim_end_matches('\r').to_owned())
        .collect()
}

/// Where a move of one line or the other is unresolved, forgets the other's too. In a game
/// with a foul, validate leaves the foul (and what follows) unresolved, while a reader of
/// moves that say everything (CSA, USI, JKF) resolves them as it reads: the same move, once
/// written, may come back resolved.
fn forget_unresolved(a: &mut [Ply], b: &mut [Ply]) {
    for (x, y) in a.iter_mut().zip(b) {
        if x.mv.is_none() || y.mv.is_none() {
            x.mv = None;
            y.mv = None;
        }
        for (va, vb) in x.variations.iter_mut().zip(&mut y.variations) {
            forget_unresolved(va, vb);
        }
    }
}

/// The rule fouls among `diagnostics`, as (code, ply), sorted: the codes of a move the rules
/// forbid, which are about the moves and not about how a format wrote them. Sorted because
/// diagnostics come in the order of the lines they point at, and writers may list a record's
/// variations in another order than its source did.
fn fouls(diagnostics: &[kifu::diag::Diagnostic]) -> Vec<(kifu::diag::Code, Option<u32>)> {
    use kifu::diag::Code::*;
    let mut fouls: Vec<_> = diagnostics
        .iter()
        .filter(|d| {
            matches!(
                d.code,
                Nifu | Uchifuzume
                    | DeadPiece
                    | SelfCheck
                    | BadPromotion
                    | NoPiece
                    | PieceMismatch
                    | Unreachable
                    | Blocked
                    | CaptureOwn
                    | DropOccupied
                    | NotInHand
                    | WrongTurn
            )
        })
        .map(|d| (d.code, d.ply))
        .collect();
    fouls.sort_by_key(|&(code, ply)| (ply, code));
    fouls
}

/// Where two lines first differ, as a path of (ply index, variation index) steps.
pub fn first_difference(a: &[Ply], b: &[Ply], path: &str) -> String {
    for (i, (x, y)) in a.iter().zip(b).enumerate() {
        if x == y {
            continue;
        }
        let (mut xs, mut ys) = (x.clone(), y.clone());
        xs.variations.clear();
        ys.variations.clear();
        if xs != ys || x.variations.len() != y.variations.len() {
            return format!(
                "{path}/{i}: {xs:?} ({} variations) vs {ys:?} ({} variations)",
                x.variations.len(),
                y.variations.len()
            );
        }
        for (j, (va, vb)) in x.variations.iter().zip(&y.variations).enumerate() {
            if va != vb {
                return first_difference(va, vb, &format!("{path}/{i}v{j}"));
            }
        }
    }
    format!("{path}: lengths {} vs {}", a.len(), b.len())
}

/// The `roundtrip` fuzz target's check on one input; panics on a failure. The first byte picks
/// the format (index in `Format::ALL`), the rest is the file's bytes, decoded as the CLI does.
/// Whatever a reader accepts and validate resolves, every writer can write and every reader
/// can read back; when the game was clean (no diagnostic at all) and the writer lost nothing
/// (no `lossy` warning), the text read back is clean too (no diagnostic at all: until session
/// 4 a read-back with any diagnostic was passed over, which hid writers that wrote what their
/// reader refuses) and the record reads back as one game with what the target format holds:
/// the main line's moves, and where the format keeps them the specials, times, comments (on
/// moves and before the first move) and variations. A game with diagnostics (a foul, a wrong
/// result, bad times), written without a warning, is compared the same way (until session 5
/// it was only written and read back), except that a move left unresolved on either side is
/// not compared ([`forget_unresolved`]); its read-back need not be clean.
pub fn check_roundtrip(data: &[u8]) {
    let Some((&sel, bytes)) = data.split_first() else {
        return;
    };
    let Some(&format) = Format::ALL.get(usize::from(sel) % Format::ALL.len()) else {
        return;
    };
    let text = decode::decode(bytes, Some(format), None).text;
    let opts = kifu::validate::Options::default();
    for mut game in formats::read(format, &text).into_iter().take(4) {
        let report = kifu::validate::validate_game(&mut game, &opts);
        let clean = report.diagnostics.is_empty();
        for target in Format::ALL {
            for csa_v3 in [false, true] {
                if csa_v3 && target != Format::Csa {
                    continue;
                }
                let w = formats::write(
                    target,
                    &game.record,
                    &WriteOptions {
                        csa_v3,
                        ..WriteOptions::default()
                    },
                );
                let back = formats::read(target, &w.text);
                let n_back = back.len();
                for mut g in back {
                    let r2 = kifu::validate::validate_game(&mut g, &opts);
                    if !w.warnings.is_empty() {
                        continue;
                    }
                    // A clean game written without a warning reads back clean.
                    assert!(
                        !clean || r2.diagnostics.is_empty(),
                        "{format:?} to {target:?} (v3 {csa_v3}): a clean game reads back with {:?}\n{}",
                        r2.diagnostics
                            .iter()
                            .map(|d| (d.code, &d.message))
                            .collect::<Vec<_>>(),
                        w.text
                    );
                    assert_eq!(
                        n_back, 1,
                        "{target:?}: one game written, {n_back} read:\n{}",
                        w.text
                    );
                    let h = target.holds();
                    // A writer that holds cumulative times may fill in those the source
                    // lacked (from the elapsed times), or not: compare both filled.
                    let mut source = game.record.clone();
                    if h.total {
                        source.fill_total_times();
                        g.record.fill_total_times();
                    }
                    // A record whose ending was stated by its footer alone (a KIF `まで` line
                    // after the last move, with no ending line) reads back with that ending
                    // as a special: KI2 keeps a main line's ending only as its `まで` line,
                    // and formats without a footer write the footer's ending as theirs.
                    if source.moves.last().is_none_or(|n| n.special().is_none())
                        && let Some(end) = source.footer.as_ref().and_then(|f| f.ending())
                        && g.record.moves.len() == source.moves.len() + 1
                        && g.record.end().is_some()
                    {
                        source
                            .moves
                            .push(MoveNode::new(NodeKind::Special(end), Default::default()));
                    }
                    // Nothing is dropped without a warning: whatever the target does not
                    // hold (elapsed times, comments, variations, endings) comes back all the
                    // same, or the writer said it did not. (Cumulative times are left out:
                    // in a clean game they are the sums of the elapsed ones.)
                    let all = Holds {
                        elapsed: true,
                        total: false,
                        comments: true,
                        variations: true,
                        ending: true,
                    };
                    let (mut want_all, mut got_all) = (view(&source, all), view(&g.record, all));
                    if !clean {
                        forget_unresolved(&mut want_all, &mut got_all);
                    }
                    assert!(
                        want_all == got_all,
                        "{format:?} to {target:?} (v3 {csa_v3}) dropped without a warning: {}\n{}",
                        first_difference(&want_all, &got_all, ""),
                        w.text
                    );
                    if !g.record.start_comments.is_empty() || !game.record.start_comments.is_empty()
                    {
                        assert_eq!(
                            comment_lines(&game.record.start_comments),
                            comment_lines(&g.record.start_comments),
                            "{format:?} to {target:?}: the comments before the first move were dropped without a warning:\n{}",
                            w.text
                        );
                    }
                    // Bookmarks too (KIF/KI2 `&` lines; the others warn that they have none).
                    assert_eq!(
                        bookmarks(&game.record),
                        bookmarks(&g.record),
                        "{format:?} to {target:?} (v3 {csa_v3}): bookmarks dropped without a warning\n{}",
                        w.text
                    );
                    // The header too, when the target holds one (USI warns that it has
                    // none). Allowed: the handicap key (the start position says it) and the
                    // handicap names 下手/上手 read back as 先手/後手 (CSA's `N+`/`N-`).
                    if target != Format::Usi {
                        let (a, b) = (header_view(&game.record), header_view(&g.record));
                        let only_a: Vec<_> = a.iter().filter(|x| !b.contains(x)).collect();
                        let only_b: Vec<_> = b.iter().filter(|x| !a.contains(x)).collect();
                        assert!(
                            only_a.is_empty() && only_b.is_empty(),
                            "{format:?} to {target:?} (v3 {csa_v3}): header entries {only_a:?} \
                             became {only_b:?} without a warning\n{}",
                            w.text
                        );
                    }
                    let (mut want, mut got) = (view(&source, h), view(&g.record, h));
                    if !clean {
                        forget_unresolved(&mut want, &mut got);
                    }
                    assert!(
                        want == got,
                        "{format:?} to {target:?} (v3 {csa_v3}) changed the record: {}\n{}",
                        first_difference(&want, &got, ""),
                        w.text
                    );
                    // The same fouls, at the same plies: a move the rules forbid stays
                    // forbidden, for the same reason, once written (a writer that cannot
                    // write it as it was says so).
                    // Up to a move the source's reader could not read (the replay of the
                    // source stops there; the written record, without that move, goes on).
                    let unread = report
                        .diagnostics
                        .iter()
                        .filter(|d| d.code == kifu::diag::Code::Syntax)
                        .filter_map(|d| d.ply)
                        .min();
                    let before = |f: Vec<(kifu::diag::Code, Option<u32>)>| -> Vec<_> {
                        f.into_iter()
                            .filter(|&(_, p)| unread.is_none_or(|u| p.is_none_or(|p| p < u)))
                            .collect()
                    };
                    let was = before(fouls(&report.diagnostics));
                    let now = before(fouls(&r2.diagnostics));
                    assert!(
                        was == now,
                        "{format:?} to {target:?} (v3 {csa_v3}): the fouls {was:?} became {now:?}\n{}",
                        w.text
                    );
                    if h.comments {
                        assert_eq!(
                            comment_lines(&game.record.start_comments),
                            comment_lines(&g.record.start_comments),
                            "{format:?} to {target:?}: the comments before the first move changed:\n{}",
                            w.text
                        );
                    }
                }
            }
        }
    }
}
