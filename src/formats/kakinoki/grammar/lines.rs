//! The grammar of the Kakinoki lines other than moves: the start of a KIF move line (its
//! number), headers `key：value`, hands, `変化：N手`, board-diagram rows, the `まで…` footer.
//!
//! Formats layer: uses `core` and `record`, nothing above.

use super::*;

// ---------------------------------------------------------------------------------------------
// Lines other than moves
// ---------------------------------------------------------------------------------------------

/// The start of a KIF move line in either spelling: ASCII spaces, the move number, spaces.
/// Returns the number (`None` when it does not fit a `u32`), the byte offset of the body
/// after it, and the body's column (the characters before it are ASCII or full-width
/// spaces, which [`Spelling::blanks`] counts).
#[inline(always)]
pub(crate) fn move_number_in<E: Spelling>(b: &[u8]) -> Option<(Option<u32>, usize, u32)> {
    let mut i = b.iter().take_while(|&&c| c == b' ').count();
    let digits = i;
    let mut n: Option<u32> = Some(0);
    while let Some(&c) = b.get(i)
        && c.is_ascii_digit()
    {
        n = n.and_then(|n| n.checked_mul(10)?.checked_add(u32::from(c - b'0')));
        i += 1;
    }
    if i == digits {
        return None;
    }
    let (body, chars) = E::blanks(b, i);
    let col = u32::try_from(i).ok()?.checked_add(chars)?.checked_add(1)?;
    (body > i).then_some((n, body, col))
}

/// A header separator, `：` or `:`.
fn colon(i: &str) -> PResult<'_, char> {
    one_of("：:")(i)
}

/// The value of `key：value` (or `key:value`) when the line starts with `key`.
pub(crate) fn header_value<'a>(t: &'a str, key: &str) -> Option<&'a str> {
    (tag(key), colon).parse(t).ok().map(|(v, _)| v)
}

/// A hand line's key (`先手の持駒：`, `後手持駒:`...): the side whose hand it is and the value.
pub(crate) fn hand_key(t: &str) -> Option<(Color, &str)> {
    let key = alt((
        value(Color::Black, tag("先手の持駒")),
        value(Color::Black, tag("下手の持駒")),
        value(Color::White, tag("後手の持駒")),
        value(Color::White, tag("上手の持駒")),
        value(Color::Black, tag("先手持駒")),
        value(Color::Black, tag("下手持駒")),
        value(Color::White, tag("後手持駒")),
        value(Color::White, tag("上手持駒")),
    ));
    (key, colon).parse(t).ok().map(|(v, (c, _))| (c, v))
}

/// Any other header line, `key：value`: the key (cut at the first colon, without spaces) and
/// the byte offset of the value.
pub(crate) fn header_line(t: &str) -> Option<(&str, usize)> {
    let key = verify(take_till1(|c| c == '：' || c == ':'), |k: &str| {
        !k.contains(is_space)
    });
    let (v, (key, _)) = (key, colon).parse(t).ok()?;
    Some((key, t.len() - v.len()))
}

/// A hand's pieces, `飛　角二　歩十八` (`なし` or nothing for none; `、` and `,` also
/// separate): the hand, or the byte offset of the first piece that cannot be read and why.
pub(crate) fn hand(v: &str) -> Result<Hand, (usize, &'static str)> {
    let mut hand = Hand::EMPTY;
    let t = trim_spaces(v);
    if t == "なし" || t.is_empty() {
        return Ok(hand);
    }
    let separators =
        |i| -> PResult<'_, &str> { take_while(|c| is_space(c) || c == '、' || c == ',')(i) };
    let mut r = separators(v).map_or(v, |(r, _)| r);
    while !r.is_empty() {
        let at = v.len() - r.len();
        let kind = match PieceKind::from_kif_prefix(r) {
            Some((kind, 1)) => kind,
            _ => return Err((at, "piece name expected in hand")),
        };
        if !kind.is_hand_kind() {
            return Err((at, "this piece cannot be held in hand"));
        }
        let (after, _) =
            anychar::<_, Syntax<'_>>(r).map_err(|_| (at, "piece name expected in hand"))?;
        let (after, n) = opt(count).parse(after).unwrap_or((after, None));
        let total = u32::from(hand.count(kind))
            .saturating_add(n.unwrap_or(1))
            .min(255) as u8;
        hand.set(kind, total);
        r = separators(after).map_or(after, |(r, _)| r);
    }
    Ok(hand)
}

/// `N手` after `変化：` (spaces around it, a `#` comment after it): the ply N, in digits
/// (ASCII or full-width). `N手目` (one GUI writes it) means the same.
pub(crate) fn variation_ply(v: &str) -> Option<u32> {
    let v = take_till::<_, _, Syntax<'_>>(|c| c == '#')(v).map_or(v, |(_, b)| b);
    let (r, (_, n, _, _, _, _)) = (spaces, digits, spaces, char('手'), opt(char('目')), spaces)
        .parse(v)
        .ok()?;
    r.is_empty().then_some(n)
}

/// What a board-diagram row did not hold.
pub(crate) enum RowError {
    /// The text at this byte offset of the row is not a cell (the message says what was
    /// expected).
    At(usize, &'static str),
    /// The row does not hold nine cells between `|`.
    Cells,
}

/// One cell of a board-diagram row: ` 歩`, `v金`, ` ・` (or a lone `・`/`　`, an empty cell
/// written without its side mark).
fn cell(i: &str) -> PResult<'_, Option<Piece>> {
    if let Ok((r, _)) = one_of::<_, _, Syntax<'_>>("・　")(i) {
        return Ok((r, None));
    }
    let mark = map_opt(any_char, |c| match c {
        ' ' | '^' | '+' => Some(Color::Black),
        'v' | 'V' => Some(Color::White),
        _ => None,
    });
    let (r, color) = expect("side mark (space or v) expected", mark)(i)?;
    if r.is_empty() {
        return fail(i, "piece expected");
    }
    let one = map_opt(any_char, |c| {
        let mut b = [0u8; 4];
        match PieceKind::from_kif_prefix(c.encode_utf8(&mut b)) {
            Some((k, 1)) => Some(Some(Piece::new(color, k))),
            _ => None,
        }
    });
    expect("piece expected", alt((value(None, one_of("・　 ")), one))).parse(r)
}

/// A board-diagram row, `|v香v桂 ・ ・…|一`: its nine cells (file 9 first) and the rank
/// written after it, if any.
pub(crate) fn board_row(t: &str) -> Result<([Option<Piece>; 9], Option<u8>), RowError> {
    let at = |r: &str, msg| RowError::At(t.len() - r.len(), msg);
    let mut cells: [Option<Piece>; 9] = [None; 9];
    let mut r = t.strip_prefix('|').unwrap_or(t);
    let mut n = 0;
    loop {
        if let Some(after) = r.strip_prefix('|') {
            if n != 9 {
                return Err(RowError::Cells);
            }
            let rank = map_opt(any_char, kanji_digit).parse(after);
            let rank: PResult<'_, u8> = rank;
            return Ok((cells, rank.ok().map(|(_, k)| k)));
        }
        if r.is_empty() {
            return Err(RowError::Cells);
        }
        if n >= 9 {
            return Err(at(r, "more than nine cells in a board row"));
        }
        match cell(r) {
            Ok((rest, c)) => {
                cells[n] = c;
                n += 1;
                r = rest;
            }
            Err(nom::Err::Error(e) | nom::Err::Failure(e)) => return Err(at(e.rest, e.msg)),
            Err(nom::Err::Incomplete(_)) => return Err(RowError::Cells),
        }
    }
}

// ---------------------------------------------------------------------------------------------
// The footer
// ---------------------------------------------------------------------------------------------

/// Parses a `まで…` line: `まで`, the number of moves, `手で` and the result (`先手の勝ち`,
/// `詰み`, `時間切れにより後手の勝ち`...), before a `#` comment.
pub(crate) fn parse_footer(text: &str, span: Span) -> Footer {
    let mut head = (
        opt(tag("まで")),
        take_while(|c| matches!(c, '、' | ',' | '，')),
        spaces,
        opt(count),
        opt(char('手')),
        opt(char('で')),
        take_till(|c| c == '#'),
    );
    let parsed: PResult<'_, _> = head.parse(text);
    let (plies, result) = match parsed {
        Ok((_, (_, _, _, plies, _, _, result))) => (plies, trim_spaces(result)),
        Err(_) => (None, ""),
    };
    let (kind, winner) = footer_result(result);
    Footer {
        text: text.to_string(),
        plies,
        winner,
        kind,
        span,
    }
}

/// The result of a `まで` line: the ending and the winner.
fn footer_result(result: &str) -> (Option<SpecialKind>, Option<Color>) {
    match result {
        "詰" | "詰み" => return (Some(SpecialKind::Mate), None),
        "不詰" => return (Some(SpecialKind::NoMate), None),
        "中断" => return (Some(SpecialKind::Interrupt), None),
        "千日手" => return (Some(SpecialKind::Repetition), None),
        "持将棋" => return (Some(SpecialKind::Impasse), None),
        "封じ手" => return (Some(SpecialKind::Sealed), None),
        _ => {}
    }
    // `[時間切れにより]` side `[の]` outcome
    let mut won = (opt(tag("時間切れにより")), side_name, opt(char('の')), rest);
    let parsed: PResult<'_, _> = won.parse(result);
    let Ok((_, (timeout, side, _, outcome))) = parsed else {
        return (None, None);
    };
    let (kind, winner) = match outcome {
        "勝ち" if timeout.is_some() => (SpecialKind::Timeout, side),
        "勝ち" => (SpecialKind::Resign, side),
        "反則勝ち" => (SpecialKind::IllegalWin, side),
        "反則負け" => (SpecialKind::IllegalMove, side.flip()),
        "入玉勝ち" => (SpecialKind::Declaration, side),
        "切れ負け" | "時間切れ負け" => (SpecialKind::Timeout, side.flip()),
        "不戦勝" => (SpecialKind::DefaultWin, side),
        "不戦敗" => (SpecialKind::DefaultLoss, side.flip()),
        _ => return (None, None),
    };
    (Some(kind), Some(winner))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn footers() {
        let f = |s: &str| {
            let f = parse_footer(s, Span::default());
            (f.plies, f.kind, f.winner)
        };
        use SpecialKind::*;
        assert_eq!(
            f("まで76手で先手の勝ち"),
            (Some(76), Some(Resign), Some(Color::Black))
        );
        assert_eq!(
            f("まで、76手で後手の勝ち"),
            (Some(76), Some(Resign), Some(Color::White))
        );
        assert_eq!(
            f("まで104手で下手の勝ち"),
            (Some(104), Some(Resign), Some(Color::Black))
        );
        assert_eq!(
            f("まで117手で上手の勝ち"),
            (Some(117), Some(Resign), Some(Color::White))
        );
        assert_eq!(
            f("まで14手で時間切れにより後手の勝ち"),
            (Some(14), Some(Timeout), Some(Color::White))
        );
        assert_eq!(
            f("まで2手で先手の反則負け"),
            (Some(2), Some(IllegalMove), Some(Color::White))
        );
        assert_eq!(
            f("まで2手で先手の反則勝ち"),
            (Some(2), Some(IllegalWin), Some(Color::Black))
        );
        assert_eq!(
            f("まで9手で先手の入玉勝ち"),
            (Some(9), Some(Declaration), Some(Color::Black))
        );
        assert_eq!(f("まで9手詰"), (Some(9), Some(Mate), None));
        assert_eq!(f("まで7手で詰み"), (Some(7), Some(Mate), None));
        assert_eq!(f("まで3手で不詰"), (Some(3), Some(NoMate), None));
        assert_eq!(f("まで52手で封じ手"), (Some(52), Some(Sealed), None));
        assert_eq!(f("まで85手で千日手"), (Some(85), Some(Repetition), None));
        assert_eq!(f("まで258手で持将棋"), (Some(258), Some(Impasse), None));
        assert_eq!(f("まで50手で中断"), (Some(50), Some(Interrupt), None));
        assert_eq!(
            f("まで3手で先手の反則負け#メモ"),
            (Some(3), Some(IllegalMove), Some(Color::White))
        );
        assert_eq!(f("まで何か"), (None, None, None));
    }
}
