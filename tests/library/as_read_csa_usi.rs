//! `validate::validate_csa` and `validate_usi` (games replayed as they are read) must give
//! exactly the reports of reading with `csa::read` / `usi::read` and validating each game with
//! `validate_game`: on the real
//! records, on generated games, on hand-made endings, and on thousands of damaged copies
//! (a line dropped, doubled, swapped, edited), which send games down the full path at every
//! kind of line.

use crate::as_read;
use crate::common;

use kifu::formats::{Format, WriteOptions, write};
use kifu::random::{GenOptions, Rng, random_game};
use kifu::validate::{Options, judged_as_read};

/// Judging as read (`validate_csa` / `validate_usi`) against reading and validating each game
/// in full, under the default and the 24-point declaration rule; returns how many games were
/// clean (no diagnostic) under the default rule.
fn agree(format: Format, text: &str) -> usize {
    let mut clean = 0;
    for opts in [
        Options::default(),
        Options {
            declaration_points: Some(24),
            ..Options::default()
        },
        // A time control for the run (`--time-control`): a minute and 10 s of byoyomi.
        Options {
            time_control: kifu::formats::time_control::TimeControl::from_spec("60+10"),
            ..Options::default()
        },
    ] {
        let (short, full) = as_read::as_read_and_from_records(format, text, &opts);
        assert_eq!(short, full, "reports differ ({opts:?}) for:\n{text}");
        if opts == Options::default() {
            clean = full.iter().filter(|r| r.diagnostics.is_empty()).count();
        }
    }
    clean
}

fn same(text: &str) -> usize {
    agree(Format::Csa, text)
}

fn same_usi(text: &str) -> usize {
    agree(Format::Usi, text)
}

fn generated(seed: u64) -> String {
    let rec = random_game(seed, &GenOptions::default());
    write(Format::Csa, &rec, &WriteOptions::default()).text
}

#[test]
fn real_records_agree() {
    let mut paths = common::files_with(
        std::path::Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/fixtures")),
        &["csa"],
    );
    paths.extend(common::corpus_files("real_records_agree", &["csa"]).unwrap_or_default());
    let mut files = 0;
    for path in paths {
        let Ok(bytes) = std::fs::read(&path) else {
            continue;
        };
        let text = kifu::formats::decode::decode(&bytes, Some(Format::Csa), None).text;
        same(&text);
        files += 1;
    }
    assert!(files > 0, "no CSA file found");
}

#[test]
fn generated_games_are_judged_as_read_and_agree() {
    let mut multi = String::new();
    for seed in 0..200 {
        let text = generated(seed);
        assert_eq!(same(&text), 1, "a generated game is clean:\n{text}");
        multi.push_str(&text);
        multi.push_str("/\n");
    }
    assert_eq!(same(&multi), 200);
    let (reports, short) = judged_as_read(Format::Csa, &multi, &Options::default());
    assert_eq!(
        (reports.len(), short),
        (200, 200),
        "every plain game is judged as read"
    );
    // Blank games, a final `/` without a line end, CRLF line ends.
    same(&format!("/\n\n/\n{multi}/"));
    same(&multi.replace('\n', "\r\n"));
}

/// A game whose stated clock its move times break (a `time-exceeded` warning, and a
/// `result-mismatch` where the record gives the game to the side whose time ran out) is judged
/// as it is read, like a clean one, with the reports of its record's validation.
#[test]
fn games_past_their_clock_are_judged_as_read_and_agree() {
    let mut multi = String::new();
    let mut exceeded = 0;
    for seed in 0..100 {
        // Ten seconds each, sudden death: the generated times (up to a minute a move) break it.
        let text = generated(seed).replacen("PI\n", "$TIME_LIMIT:00:10+00\nPI\n", 1);
        same(&text);
        let (reports, short) = judged_as_read(Format::Csa, &text, &Options::default());
        assert_eq!(short, 1, "judged as it is read:\n{text}");
        exceeded += usize::from(
            reports[0]
                .diagnostics
                .iter()
                .any(|d| d.code.as_str() == "time-exceeded"),
        );
        multi.push_str(&text);
        multi.push_str("/\n");
    }
    assert!(exceeded > 90, "{exceeded} of 100 games past their clock");
    same(&multi);
    assert_eq!(
        judged_as_read(Format::Csa, &multi, &Options::default()).1,
        100
    );
}

#[test]
fn hand_made_endings_agree() {
    let mate =
        "V2.2\nPI\n+\n+7776FU\n-3334FU\n+8822UM\n-3122GI\n+0033KA\n-5142OU\n+3342UM\n-4142OU\n";
    // Not a mate: the bishop's check is blocked... whatever the board says, both ways agree.
    let cases = [
        "V2.2\nN+a\nN-b\nPI\n+\n+7776FU\nT3\n-3334FU\nT1\n%TORYO\n",
        "V2.2\n+\n+5958OU\n-5152OU\n+5859OU\n-5251OU\n+5958OU\n-5152OU\n+5859OU\n-5251OU\n+5958OU\n-5152OU\n+5859OU\n-5251OU\n%SENNICHITE\n",
        "V2.2\n+\n+5958OU\n-5152OU\n+5859OU\n-5251OU\n%SENNICHITE\n",
        "V2.2\n+\n+5958OU\n-5152OU\n+5859OU\n-5251OU\n+5958OU\n-5152OU\n+5859OU\n-5251OU\n+5958OU\n-5152OU\n+5859OU\n-5251OU\n+5958OU\n",
        "+\n%KACHI\n",
        "+\n%TSUMI\n",
        "+\n+7776FU\n%+ILLEGAL_ACTION\n",
        "+\n+7776FU\n%ILLEGAL_MOVE\n",
        "+\n+7776FU\n%TIME_UP\nT5\n",
        "+\n%CHUDAN\n%TORYO\n",
        "+\n+7776FU\n-3334FU\n+8822UM\n-3122GI\n+0045KA\n%TORYO\n",
        "+\n+7776FU\n-3334FU\n+8822KA\n",
        "+\n+7776TO\n",
        "-\n-3334FU\n",
        "PI82HI22KA\n-\n-3334FU\n",
        "$JISHOGI:24\n+\n%KACHI\n",
        "'CSA encoding=UTF-8\nV3.0\n$EVENT:x\n'comment\n+\n+7776FU,T3\n-3334FU\n'after\nT1.5\n%TORYO\n'summary\n",
        "T3\n+\n+7776FU\n",
        "+\nT3\n+7776FU\n",
        "+7776FU\n+\n",
        "%TORYO\n",
        "N+only a header\n",
        "#\n#\n",
        // Eight bytes that look like a move line but hold line ends (found by fuzzing: they
        // were taken as one line, and the line numbers of the games after them were off).
        "V2.2\n-\n12\n34\n/\n+\n%TSUMI\n",
        "+\n/\n+\n+7\n/\n+\n%TSUMI\n",
        mate,
        // Board rows of ten squares, of eight, with junk after the ninth (issue #45).
        "P1-KY-KE-GI-KI-OU-KI-GI-KE-KY * \nP2 * -HI *  *  *  *  * -KA\nP3-FU-FU-FU-FU-FU-FU-FU-FU-FU.\nP4\nP7+FU+FU+FU+FU+FU+FU+FU+FU+FU\nP8 * +KA *  *  *  *  * +HI * \nP9+KY+KE+GI+KI+OU+KI+GI+KE+KY\n+\n+7776FU\n%TORYO\n",
        // A game that starts with a BOM, after blank lines, and a BOM later in a game.
        "\u{feff}V2.2\nPI\n+\n+7776FU\n%TORYO\n",
        "\n \n\u{feff}PI\n+\n+7776FU\n",
        "\u{feff}\n\u{feff}PI\n+\n",
        "V2.2\n\u{feff}PI\n+\n+7776FU\n",
        "#x\n\u{feff}+\n+7776FU\n",
    ];
    for c in cases {
        same(c);
    }
    let joined = cases.join("/\n");
    same(&joined);
}

/// One random edit of one line.
fn damage(text: &str, rng: &mut Rng) -> String {
    let mut lines: Vec<String> = text.lines().map(str::to_owned).collect();
    if lines.is_empty() {
        return String::new();
    }
    let n = lines.len() as u64;
    let i = rng.below(n) as usize;
    match rng.below(12) {
        how @ 0..=2 if common::reshape_lines(&mut lines, i, how) => {}
        3 => {
            // A digit of the line changed.
            let mut b = lines[i].clone().into_bytes();
            if let Some(p) = b.iter().position(|c| c.is_ascii_digit()) {
                let q = p + rng.below((b.len() - p) as u64) as usize;
                if b[q].is_ascii_digit() {
                    b[q] = b'0' + rng.below(10) as u8;
                }
            }
            lines[i] = String::from_utf8(b).unwrap_or_default();
        }
        4 => {
            const KINDS: [&str; 15] = [
                "FU", "KY", "KE", "GI", "KI", "KA", "HI", "OU", "TO", "NY", "NK", "NG", "UM", "RY",
                "XX",
            ];
            if lines[i].len() == 7 && (lines[i].starts_with('+') || lines[i].starts_with('-')) {
                let k = KINDS[rng.below(KINDS.len() as u64) as usize];
                lines[i].replace_range(5..7, k);
            }
        }
        5 => {
            const SPECIALS: [&str; 8] = [
                "%TORYO",
                "%TSUMI",
                "%SENNICHITE",
                "%KACHI",
                "%CHUDAN",
                "%ILLEGAL_MOVE",
                "%-ILLEGAL_ACTION",
                "%NOPE",
            ];
            lines.insert(i, SPECIALS[rng.below(8) as usize].to_owned());
        }
        6 => lines.insert(
            i,
            ["'c", "", "#x", "/", "T3", "+", "PI", " "][rng.below(8) as usize].to_owned(),
        ),
        7 => lines[i].push_str([",T1", " ", "'x", "\r"][rng.below(4) as usize]),
        8 => {
            // A move by the other side, or a drop.
            let l = &mut lines[i];
            if l.len() == 7 {
                let flipped = if l.starts_with('+') { "-" } else { "+" };
                l.replace_range(0..1, flipped);
            }
        }
        9 => {
            let l = &mut lines[i];
            if l.len() == 7 {
                l.replace_range(1..3, "00");
            }
        }
        10 => lines.truncate(i),
        _ => lines.insert(i, "$JISHOGI:24".to_owned()),
    }
    let mut out = lines.join("\n");
    out.push('\n');
    out
}

#[test]
fn damaged_games_agree() {
    let mut rng = Rng::new(7);
    let mut clean = 0;
    let mut short = 0;
    let mut total = 0;
    for seed in 0..60 {
        let text = generated(1000 + seed);
        for _ in 0..40 {
            let mut t = damage(&text, &mut rng);
            if rng.below(3) == 0 {
                t = damage(&t, &mut rng);
            }
            clean += same(&t);
            short += judged_as_read(Format::Csa, &t, &Options::default()).1;
            total += 1;
        }
    }
    both_ways_taken(clean, short, total);
}

/// The edits must leave some games clean and break most of the others, and most games must
/// be judged as read (what the record's judging is held to), or they test little.
fn both_ways_taken(clean: usize, short: usize, total: usize) {
    assert!(
        clean > total / 20 && clean < total * 19 / 20,
        "{clean} clean of {total}"
    );
    assert!(short > total / 2, "{short} judged as read of {total}");
}

fn generated_usi(seed: u64) -> String {
    let rec = random_game(seed, &GenOptions::default());
    write(Format::Usi, &rec, &WriteOptions::default()).text
}

#[test]
fn usi_records_agree() {
    let mut paths = common::files_with(
        std::path::Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/fixtures")),
        &["usi", "sfen"],
    );
    paths.extend(common::corpus_files("usi_records_agree", &["usi", "sfen"]).unwrap_or_default());
    for path in paths {
        if let Ok(text) = std::fs::read_to_string(&path) {
            same_usi(&text);
        }
    }
    let mut multi = String::new();
    for seed in 0..100 {
        multi.push_str(&generated_usi(seed));
        multi.push('\n');
    }
    assert_eq!(same_usi(&multi), 100);
    let (reports, short) = judged_as_read(Format::Usi, &multi, &Options::default());
    assert_eq!(
        (reports.len(), short),
        (100, 100),
        "every plain line is judged as read"
    );
    for case in [
        "startpos",
        "position startpos",
        "startpos moves",
        "position startpos moves 7g7f 3c3d resign",
        "position startpos moves 7g7f 3c3d resign 2g2f",
        "position startpos moves 5i5h 5a5b 5h5i 5b5a 5i5h 5a5b 5h5i 5b5a 5i5h 5a5b 5h5i 5b5a rep_draw",
        "position startpos moves 5i5h 5a5b 5h5i 5b5a rep_draw",
        "position startpos moves 7g7f 0000",
        "position startpos moves 7g7f win",
        "  position\tstartpos  moves 7g7f\x0b3c3d  ",
        "position startpos moves 7g7f\u{3000}3c3d",
        "position startpos 7g7f",
        "position sfen lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1 moves 7g7f",
        "lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1",
        "position startpos moves 7g7f 7f7e",
        "position startpos moves 7g7f 3c3d 8h2b+ 3a2b P*2c",
        "position startpos moves 7g7x",
        "# comment",
        "",
        "position",
        "position startpos moves 7g7f\r",
    ] {
        same_usi(case);
    }
}

#[test]
fn damaged_usi_lines_agree() {
    const TOKENS: [&str; 10] = [
        "resign", "win", "rep_draw", "0000", "moves", "startpos", "P*5e", "7g7f+", "#", "x",
    ];
    let mut rng = Rng::new(11);
    let mut short = 0;
    let mut clean = 0;
    let mut total = 0;
    for seed in 0..60 {
        let text = generated_usi(2000 + seed);
        let base: Vec<&str> = text.split_whitespace().collect();
        for _ in 0..30 {
            let mut toks: Vec<String> = base.iter().map(|t| (*t).to_owned()).collect();
            let i = rng.below(toks.len() as u64) as usize;
            match rng.below(6) {
                0 => {
                    toks.remove(i);
                }
                1 => {
                    let j = (i + 1) % toks.len();
                    toks.swap(i, j);
                }
                2 => toks.insert(i, TOKENS[rng.below(10) as usize].to_owned()),
                3 => {
                    let t = &mut toks[i];
                    if let Some(c) = t.pop() {
                        t.push(if c == '+' { 'x' } else { '+' });
                    }
                }
                4 => toks.truncate(i),
                _ => toks[i] = toks[i].replace('7', "6"),
            }
            let line = toks.join(" ");
            clean += same_usi(&line);
            short += judged_as_read(Format::Usi, &line, &Options::default()).1;
            total += 1;
        }
    }
    both_ways_taken(clean, short, total);
}

/// Generated games under a time control (sudden death, byoyomi, Fischer in V3.0's `$TIME`, a
/// server's game name in `$EVENT`), a third of them ending in a loss on time: the clock's
/// findings must be the same both ways, on the games and on damaged copies.
#[test]
fn timed_games_agree() {
    use kifu::diag::Code;
    use kifu::record::{NodeKind, SpecialKind};
    let mut rng = Rng::new(11);
    let (mut exceeded, mut flags, mut contradicted, mut total) = (0, 0, 0, 0);
    for seed in 0..80u64 {
        let mut rec = random_game(2000 + seed, &GenOptions::default());
        let (key, value) = match seed % 4 {
            0 => ("持ち時間", format!("00:{:02}+00", 10 + rng.below(50))),
            1 => (
                "持ち時間",
                format!("00:{:02}+{:02}", 5 + rng.below(20), 30 + rng.below(30)),
            ),
            2 => (
                "$TIME",
                format!("{}+0+{}", 600 + rng.below(1800), rng.below(30)),
            ),
            _ => (
                "棋戦",
                format!(
                    "wdoor+floodgate-{}-{}F+a+b+20240101120000",
                    600 + rng.below(1800),
                    rng.below(30)
                ),
            ),
        };
        rec.header.set(key, value);
        if seed % 3 == 0
            && let Some(NodeKind::Special(s)) = rec.moves.last_mut().map(|n| &mut n.kind)
        {
            s.kind = SpecialKind::Timeout;
            s.text = "切れ負け".to_owned();
            flags += 1;
        }
        let text = write(Format::Csa, &rec, &WriteOptions::default()).text;
        let mut variants = vec![text.clone()];
        variants.extend((0..10).map(|_| damage(&text, &mut rng)));
        for t in &variants {
            same(t);
            total += 1;
        }
        let reports = kifu::validate::validate_text(Format::Csa, &text, &Options::default());
        for d in reports.iter().flat_map(|r| &r.diagnostics) {
            exceeded += usize::from(d.code == Code::TimeExceeded);
            contradicted +=
                usize::from(d.code == Code::ResultMismatch && d.message.contains("loss on time"));
        }
    }
    // The clock must have found something both ways, or this tests little of it.
    assert!(exceeded > 5 && exceeded < 75, "{exceeded} time-exceeded");
    assert!(
        contradicted > 0 && contradicted < flags,
        "{contradicted} of {flags} losses on time contradicted"
    );
    assert!(total > 800);
}

/// One-line CSA (two lines a game) of the games of `seeds`: each game's moves without their
/// signs, and a header whose result and count of moves are right, wrong or missing.
fn one_line_csa(seeds: std::ops::Range<u64>, rng: &mut Rng) -> String {
    let mut out = String::new();
    for seed in seeds {
        let csa = generated(seed);
        let moves: String = csa
            .lines()
            .filter(|l| l.len() == 7 && (l.starts_with('+') || l.starts_with('-')))
            .map(|l| &l[1..])
            .collect();
        let plies = moves.len() / 6;
        let result = rng.below(3);
        let count = match rng.below(3) {
            0 => plies,
            1 => plies + 1,
            _ => plies.saturating_sub(1),
        };
        out.push_str(&format!(
            "{seed} 2003/09/08 A B {result} {count} E O\n{moves}\n"
        ));
    }
    out
}

/// USEN and one-line CSA, read whole into records and judged as those records are told
/// (`validate_usen`, `validate_csa`), give the reports of validating each record: generated
/// games, and damaged copies (a character of the text changed, dropped or doubled).
#[test]
fn games_read_whole_agree() {
    let mut rng = Rng::new(11);
    let mut texts = Vec::new();
    for seed in 0..40 {
        let rec = random_game(2000 + seed, &GenOptions::default());
        texts.push((
            Format::Usen,
            write(Format::Usen, &rec, &WriteOptions::default()).text,
        ));
    }
    for start in (0..40).step_by(4) {
        texts.push((
            Format::Csa,
            one_line_csa(3000 + start..3004 + start, &mut rng),
        ));
    }
    let (mut clean, mut total) = (0, 0);
    for (format, text) in &texts {
        clean += agree(*format, text);
        total += 1;
        for _ in 0..20 {
            let mut b = text.clone().into_bytes();
            if b.is_empty() {
                continue;
            }
            let i = rng.below(b.len() as u64) as usize;
            match rng.below(3) {
                0 => {
                    const SOME: &[u8] = b"0123456789abcFUKI+-~._\n";
                    b[i] = SOME[rng.below(SOME.len() as u64) as usize];
                }
                1 => {
                    b.remove(i);
                }
                _ => b.insert(i, b[i]),
            }
            agree(*format, &String::from_utf8_lossy(&b));
            total += 1;
        }
    }
    assert!(clean > 20, "only {clean} of {total} texts clean");
}
