//! The USEN reader: one game per non-empty line.

use crate::core::{Handicap, Move, PieceKind, Setup, Square};
use crate::diag::{Code, Diagnostic};
use crate::formats::ParsedGame;
use crate::record::{
    MoveNode, MoveText, NodeKind, Record, Span, Special, SpecialKind, StartPosition,
};

/// Reads USEN text: each non-empty line is a game (a `#` line is a comment, as in `.usi`
/// files). Never checks legality; a bad section or move is a `syntax` diagnostic and the rest
/// of that line is not read.
///
/// ```
/// use kifu::formats::usen;
/// let games = usen::read("~0.7ku2jm.r\n");
/// let r = &games[0].record;
/// assert_eq!(r.plies(), 2);
/// assert_eq!(r.moves[0].resolved().unwrap().to_usi(), "7g7f");
/// ```
pub fn read(text: &str) -> Vec<ParsedGame> {
    crate::formats::usi::game_lines(text)
        .map(|(ln, line)| read_line(line.trim(), ln))
        .collect()
}

/// Pieces by their USEN drop number, `from − 81`.
const DROPS: [(u32, PieceKind); 7] = [
    (9, PieceKind::Gold),
    (10, PieceKind::Pawn),
    (11, PieceKind::Lance),
    (12, PieceKind::Knight),
    (13, PieceKind::Silver),
    (14, PieceKind::Bishop),
    (15, PieceKind::Rook),
];

/// The USEN drop number of a kind (`None` for the king and promoted kinds).
pub(crate) fn drop_code(kind: PieceKind) -> Option<u32> {
    DROPS.iter().find(|(_, k)| *k == kind).map(|(n, _)| 81 + n)
}

/// One node of the game tree being built: its move or ending and its children, the first of
/// which continues its line.
struct Node {
    kind: Option<NodeKind>,
    span: Span,
    children: Vec<usize>,
}

fn read_line(line: &str, ln: u32) -> ParsedGame {
    let mut record = Record::default();
    let mut diags = Vec::new();
    let mut sections = line.split('~');
    let position = sections.next().unwrap_or("");
    if !position.is_empty() {
        let sfen: String = position
            .chars()
            .map(|c| match c {
                '_' => '/',
                '.' => ' ',
                'z' => '+',
                c => c,
            })
            .collect();
        match Setup::from_sfen(&format!("{sfen} 1")) {
            Ok(s) => {
                record.start = match Handicap::recognise(&s) {
                    Some(Handicap::Even) => StartPosition::Preset(Handicap::Even),
                    _ => StartPosition::Setup(Box::new(s)),
                };
            }
            Err(e) => {
                diags.push(
                    Diagnostic::new(Code::Syntax, format!("bad position in USEN: {e}"))
                        .at(Span::new(ln, 1)),
                );
                return ParsedGame {
                    record,
                    diagnostics: diags,
                };
            }
        }
    }
    let mut arena = vec![Node {
        kind: None,
        span: Span::default(),
        children: Vec::new(),
    }];
    // The nodes of the current line, from the start (the root) on.
    let mut path = vec![0usize];
    let mut col = position.chars().count() as u32 + 2;
    let mut any_section = false;
    'sections: for section in sections {
        any_section = true;
        let at = col;
        col += section.chars().count() as u32 + 1;
        let mut parts = section.split('.');
        let (Some(n), Some(moves), special) = (parts.next(), parts.next(), parts.next()) else {
            diags.push(
                Diagnostic::new(
                    Code::Syntax,
                    format!("a USEN section is `ply.moves.ending`, found `{section}`"),
                )
                .at(Span::new(ln, at)),
            );
            break;
        };
        let Some(ply) = n.parse::<usize>().ok().filter(|&p| p < path.len()) else {
            diags.push(
                Diagnostic::new(
                    Code::Syntax,
                    format!(
                        "a USEN section branches after ply `{n}`, which the line before it does not reach"
                    ),
                )
                .at(Span::new(ln, at)),
            );
            break;
        };
        path.truncate(ply + 1);
        let mut c = at + n.len() as u32 + 1;
        for code in moves.as_bytes().chunks(3) {
            let span = Span::new(ln, c);
            c += 3;
            let text = std::str::from_utf8(code).unwrap_or("?");
            let Some(mv) = decode(code) else {
                diags.push(
                    Diagnostic::new(Code::Syntax, format!("bad USEN move `{text}`"))
                        .at(span)
                        .ply(path.len() as u32),
                );
                break 'sections;
            };
            let node = NodeKind::Move {
                text: move_text(mv, text),
                resolved: Some(mv),
            };
            append(&mut arena, &mut path, node, span);
        }
        let kind = match special.unwrap_or("") {
            "" => None,
            "r" => Some(SpecialKind::Resign),
            "t" => Some(SpecialKind::Timeout),
            "j" => Some(SpecialKind::Impasse),
            "p" => Some(SpecialKind::Interrupt),
            other => {
                diags.push(
                    Diagnostic::new(Code::Syntax, format!("unknown USEN ending `{other}`"))
                        .at(Span::new(ln, c + 1)),
                );
                Some(SpecialKind::Unknown)
            }
        };
        if let Some(kind) = kind {
            let special = Special {
                kind,
                text: special.unwrap_or("").to_owned(),
                side: None,
            };
            append(
                &mut arena,
                &mut path,
                NodeKind::Special(special),
                Span::new(ln, c + 1),
            );
        }
    }
    if !any_section {
        diags.push(
            Diagnostic::new(Code::Syntax, "USEN needs a `~` section of moves".to_owned())
                .at(Span::new(ln, 1)),
        );
    }
    record.moves = line_from(&mut arena, 0);
    ParsedGame {
        record,
        diagnostics: diags,
    }
}

/// Appends a node after the end of `path`: the existing child with the same move or ending,
/// else a new one.
fn append(arena: &mut Vec<Node>, path: &mut Vec<usize>, kind: NodeKind, span: Span) {
    let parent = path.last().copied().unwrap_or(0);
    let same = arena.get(parent).and_then(|p| {
        p.children
            .iter()
            .copied()
            .find(|&c| arena.get(c).and_then(|n| n.kind.as_ref()) == Some(&kind))
    });
    let id = match same {
        Some(id) => id,
        None => {
            arena.push(Node {
                kind: Some(kind),
                span,
                children: Vec::new(),
            });
            let id = arena.len() - 1;
            if let Some(p) = arena.get_mut(parent) {
                p.children.push(id);
            }
            id
        }
    };
    path.push(id);
}

/// The line that starts with the first child of `parent`, its other children being the
/// variations of that first node.
fn line_from(arena: &mut [Node], parent: usize) -> Vec<MoveNode> {
    let mut line = Vec::new();
    let mut at = parent;
    while let Some(children) = arena.get_mut(at).map(|n| std::mem::take(&mut n.children)) {
        let Some((&first, rest)) = children.split_first() else {
            break;
        };
        let Some(mut node) = take(arena, first) else {
            break;
        };
        for &v in rest {
            if let Some(n) = take(arena, v) {
                let mut var = vec![n];
                var.extend(line_from(arena, v));
                node.variations.push(var);
            }
        }
        line.push(node);
        at = first;
    }
    line
}

fn take(arena: &mut [Node], id: usize) -> Option<MoveNode> {
    let n = arena.get_mut(id)?;
    let kind = n.kind.take()?;
    Some(MoveNode::new(kind, n.span))
}

/// A move from its three base-36 digits.
fn decode(code: &[u8]) -> Option<Move> {
    if code.len() != 3 {
        return None;
    }
    let mut m = 0u32;
    for &b in code {
        let d = char::from(b).to_digit(36)?;
        m = m * 36 + d;
    }
    let promote = m % 2 == 1;
    let to = square((m / 2) % 81)?;
    let from = m / 162;
    if from < 81 {
        Some(Move::Normal {
            from: square(from)?,
            to,
            promote,
        })
    } else {
        let kind = DROPS.iter().find(|(n, _)| 81 + n == from)?.1;
        (!promote).then_some(Move::Drop { kind, to })
    }
}

/// A square from its USEN number, `(rank − 1) × 9 + (file − 1)`.
fn square(n: u32) -> Option<Square> {
    Square::new((n % 9 + 1) as u8, (n / 9 + 1) as u8)
}

/// A square's USEN number.
pub(crate) fn square_code(sq: Square) -> u32 {
    u32::from(sq.rank() - 1) * 9 + u32::from(sq.file() - 1)
}

fn move_text(mv: Move, raw: &str) -> MoveText {
    crate::formats::visit::WrittenMove::whole(mv, raw).to_text()
}
