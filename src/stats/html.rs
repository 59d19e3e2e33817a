//! The statistics as one self-contained HTML page (`kifu stats --format html`): results,
//! endings, the game-length histogram, results by opening, games per month and per year,
//! players' records and diagnostics by code, as inline SVG charts beside tables.
//!
//! The page needs nothing else: the style sheet is inline, there is no script, no image file
//! and no font to fetch (a list of common fonts ending with a generic family). Every text
//! taken from the records (players' names, openings, codes) is escaped.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::io::{self, Write};

use super::{Outcomes, StatsReport};

/// The colours of Black's wins, White's wins, draws and games without a result.
const OUTCOME_COLOURS: [&str; 4] = ["#333333", "#d9d9d9", "#7fb3d5", "#f0b27a"];
/// The colour of single-series bars.
const BAR: &str = "#4a7ab0";
const STYLE: &str = "body{font-family:system-ui,-apple-system,'Segoe UI','Noto Sans CJK JP',\
'Hiragino Sans','Yu Gothic',sans-serif;margin:2em auto;max-width:60em;color:#222;padding:0 1em}\
h1{font-size:1.6em;margin-bottom:.2em}h2{font-size:1.2em;margin-top:2em;border-bottom:1px solid #ccc}\
table{border-collapse:collapse;margin:.5em 0}td,th{padding:.2em .6em;border-bottom:1px solid #eee;\
text-align:right}th{background:#f4f4f4}td.l,th.l{text-align:left}.muted{color:#777}\
.key span{display:inline-block;width:.9em;height:.9em;margin:0 .3em 0 1em;vertical-align:middle;\
border:1px solid #999}svg text{font-size:11px;fill:#333}\
.row{display:flex;flex-wrap:wrap;gap:1em 3em;align-items:flex-start}";

/// Text for HTML and SVG (text nodes and attribute values).
fn escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

/// A game count as a share of `total`, in per cent with one decimal.
fn share(n: u64, total: u64) -> String {
    if total == 0 {
        "–".to_owned()
    } else {
        format!("{:.1}%", n as f64 * 100.0 / total as f64)
    }
}

/// Horizontal bars, one per (label, value), labels on the left.
fn bars(rows: &[(String, u64)]) -> String {
    let most = rows.iter().map(|r| r.1).max().unwrap_or(0).max(1);
    let (label_w, bar_w, row_h) = (150u64, 300u64, 20u64);
    let h = row_h * rows.len() as u64 + 4;
    let w = label_w + bar_w + 70;
    let mut s = format!(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{w}\" height=\"{h}\" role=\"img\">"
    );
    for (i, (label, n)) in rows.iter().enumerate() {
        let y = row_h * i as u64 + 2;
        let len = (n * bar_w).div_ceil(most);
        let short: String = label.chars().take(26).collect();
        let _ = write!(
            s,
            "<text x=\"{}\" y=\"{}\" text-anchor=\"end\">{}</text>\
             <rect x=\"{label_w}\" y=\"{y}\" width=\"{len}\" height=\"{}\" fill=\"{BAR}\"/>\
             <text x=\"{}\" y=\"{}\">{n}</text>",
            label_w - 6,
            y + 13,
            escape(&short),
            row_h - 5,
            label_w + len + 4,
            y + 13
        );
    }
    s.push_str("</svg>");
    s
}

/// Vertical columns, one per (label, value), with the labels under them (every `step`-th).
fn columns(rows: &[(String, u64)]) -> String {
    let most = rows.iter().map(|r| r.1).max().unwrap_or(0).max(1);
    let n = rows.len().max(1) as u64;
    let col_w = (640 / n).clamp(4, 48);
    let (plot_h, top, left) = (200u64, 16u64, 40u64);
    let w = left + col_w * n + 10;
    let h = top + plot_h + 64;
    let step = (18 * rows.len()).div_ceil(640).max(1);
    let mut s = format!(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{w}\" height=\"{h}\" role=\"img\">\
         <line x1=\"{left}\" y1=\"{}\" x2=\"{}\" y2=\"{}\" stroke=\"#999\"/>\
         <text x=\"{}\" y=\"{}\" text-anchor=\"end\">{most}</text>\
         <text x=\"{}\" y=\"{}\" text-anchor=\"end\">0</text>",
        top + plot_h,
        left + col_w * n,
        top + plot_h,
        left - 4,
        top + 4,
        left - 4,
        top + plot_h
    );
    for (i, (label, v)) in rows.iter().enumerate() {
        let x = left + col_w * i as u64;
        let hgt = (v * plot_h).div_ceil(most);
        let _ = write!(
            s,
            "<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{hgt}\" fill=\"{BAR}\">\
             <title>{}: {v}</title></rect>",
            x + 1,
            top + plot_h - hgt,
            col_w.saturating_sub(2).max(1),
            escape(label)
        );
        if i % step == 0 {
            let _ = write!(
                s,
                "<text x=\"{}\" y=\"{}\" text-anchor=\"end\" transform=\"rotate(-45 {} {})\">{}</text>",
                x + col_w / 2,
                top + plot_h + 14,
                x + col_w / 2,
                top + plot_h + 14,
                escape(label)
            );
        }
    }
    s.push_str("</svg>");
    s
}

/// One stacked bar of outcomes, `width` wide.
fn stacked(o: &Outcomes, width: u64, height: u64) -> String {
    let parts = [o.black, o.white, o.draw, o.other];
    let total: u64 = parts.iter().sum();
    let mut s = format!(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{width}\" height=\"{height}\" role=\"img\">"
    );
    if total == 0 {
        let _ = write!(
            s,
            "<rect width=\"{width}\" height=\"{height}\" fill=\"none\" stroke=\"#ccc\"/>"
        );
    }
    let mut x = 0;
    for (i, n) in parts.iter().enumerate() {
        if *n == 0 || total == 0 {
            continue;
        }
        let w = n * width / total;
        let w = if i == 3 || parts[i + 1..].iter().all(|&p| p == 0) {
            width - x
        } else {
            w
        };
        let _ = write!(
            s,
            "<rect x=\"{x}\" width=\"{w}\" height=\"{height}\" fill=\"{}\" stroke=\"#777\" stroke-width=\"0.5\"/>",
            OUTCOME_COLOURS[i]
        );
        x += w;
    }
    s.push_str("</svg>");
    s
}

/// The colour key of the outcome bars.
fn key() -> String {
    let names = ["Black wins", "White wins", "draws", "no result"];
    let mut s = String::from("<p class=\"key\">");
    for (c, n) in OUTCOME_COLOURS.iter().zip(names) {
        let _ = write!(s, "<span style=\"background:{c}\"></span>{n}");
    }
    s.push_str("</p>");
    s
}

/// A table of label, count and share.
fn count_table(head: &str, rows: &[(String, u64)], total: u64) -> String {
    let mut s = format!(
        "<table><tr><th class=\"l\">{}</th><th>games</th><th>share</th></tr>",
        escape(head)
    );
    for (k, n) in rows {
        let _ = write!(
            s,
            "<tr><td class=\"l\">{}</td><td>{n}</td><td>{}</td></tr>",
            escape(k),
            share(*n, total)
        );
    }
    s.push_str("</table>");
    s
}

/// The histogram's buckets, empty ones between them filled in.
fn length_rows(r: &StatsReport) -> Vec<(String, u64)> {
    let mut by_from: BTreeMap<u32, u64> = BTreeMap::new();
    for b in &r.lengths.histogram {
        by_from.insert(b.from, b.games);
    }
    let (Some(&first), Some(&last)) = (by_from.keys().next(), by_from.keys().next_back()) else {
        return Vec::new();
    };
    (first..=last)
        .step_by(20)
        .map(|from| {
            (
                format!("{from}–{}", from + 19),
                by_from.get(&from).copied().unwrap_or(0),
            )
        })
        .collect()
}

impl StatsReport {
    /// Writes the report as one self-contained HTML page; `title` heads it (the inputs read,
    /// for example).
    pub fn write_html(&self, out: &mut dyn Write, title: &str) -> io::Result<()> {
        let mut s = String::with_capacity(64 * 1024);
        let _ = write!(
            s,
            "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\
             <meta name=\"viewport\" content=\"width=device-width\">\
             <title>kifu statistics: {t}</title><style>{STYLE}</style></head><body>\n\
             <h1>Statistics</h1><p class=\"muted\">{t}</p>\n\
             <p>{} files, {} games, {} plies (mean {:.1} plies a game); \
             <a href=\"#errors\">{} with an error</a>.</p>\n",
            self.files,
            self.games,
            self.plies,
            self.lengths.mean,
            self.error_games.games,
            t = escape(title)
        );
        // Results.
        let r = &self.results;
        let _ = write!(
            s,
            "<h2>Results</h2>{}{}<div class=\"row\"><table><tr><th class=\"l\">result</th><th>games</th><th>share</th></tr>",
            stacked(r, 600, 28),
            key()
        );
        for (name, n) in [
            ("Black wins", r.black),
            ("White wins", r.white),
            ("draws", r.draw),
            ("no result", r.other),
        ] {
            let _ = write!(
                s,
                "<tr><td class=\"l\">{name}</td><td>{n}</td><td>{}</td></tr>",
                share(n, self.games)
            );
        }
        s.push_str("</table></div>\n");
        // Endings.
        let mut endings: Vec<(String, u64)> =
            self.endings.iter().map(|(k, n)| (k.clone(), *n)).collect();
        endings.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
        let _ = writeln!(
            s,
            "<h2>Endings</h2><div class=\"row\">{}{}</div>",
            bars(&endings),
            count_table("ending", &endings, self.games)
        );
        // Lengths.
        let l = &self.lengths;
        let pct: Vec<String> = l
            .percentiles
            .iter()
            .map(|(k, v)| format!("{} {v}", escape(k)))
            .collect();
        let _ = writeln!(
            s,
            "<h2>Game lengths</h2><p>min {}, max {}, mean {:.1}; percentiles: {}.</p>{}",
            l.min,
            l.max,
            l.mean,
            pct.join(", "),
            columns(&length_rows(self))
        );
        self.openings_html(&mut s);
        self.dates_html(&mut s);
        self.players_html(&mut s);
        // Diagnostics.
        s.push_str("<h2>Diagnostics by code</h2>");
        if self.fouls.is_empty() {
            s.push_str("<p class=\"muted\">none</p>");
        } else {
            let mut fouls: Vec<(String, u64)> =
                self.fouls.iter().map(|(k, n)| (k.clone(), *n)).collect();
            fouls.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
            let _ = write!(s, "<div class=\"row\">{}", bars(&fouls));
            // The counts, each error code's linked to its games below.
            s.push_str("<table><tr><th class=\"l\">code</th><th>found</th><th>games</th></tr>");
            for (code, n) in &fouls {
                let games = self
                    .error_games
                    .listed
                    .iter()
                    .filter(|g| g.codes.contains(code))
                    .count();
                let link = match games {
                    0 => String::new(),
                    g => format!("<a href=\"#errors-{}\">{g}</a>", escape(code)),
                };
                let _ = write!(
                    s,
                    "<tr><td class=\"l\">{}</td><td>{n}</td><td>{link}</td></tr>",
                    escape(code)
                );
            }
            s.push_str("</table></div>\n");
        }
        self.error_games_html(&mut s);
        self.duplicates_html(&mut s);
        let _ = write!(
            s,
            "\n<p class=\"muted\">Made by kifu {}.</p>\n</body></html>\n",
            env!("CARGO_PKG_VERSION")
        );
        out.write_all(s.as_bytes())
    }

    fn openings_html(&self, s: &mut String) {
        let _ = write!(
            s,
            "<h2>Results by opening</h2><p class=\"muted\">The first {} plies.</p>",
            self.opening_plies
        );
        if self.openings.is_empty() {
            let note = self
                .openings_note()
                .unwrap_or_else(|| "no games".to_owned());
            let _ = write!(s, "<p class=\"muted\">none: {}</p>", escape(&note));
            return;
        }
        let _ = write!(
            s,
            "{}<table><tr><th class=\"l\">moves</th><th>games</th><th>Black</th><th>White</th>\
             <th>draw</th><th>other</th><th class=\"l\">results</th></tr>",
            key()
        );
        for o in &self.openings {
            let r = &o.results;
            let _ = write!(
                s,
                "<tr><td class=\"l\"><code>{}</code></td><td>{}</td><td>{}</td><td>{}</td>\
                 <td>{}</td><td>{}</td><td class=\"l\">{}</td></tr>",
                escape(&o.moves),
                o.games,
                r.black,
                r.white,
                r.draw,
                r.other,
                stacked(r, 160, 12)
            );
        }
        s.push_str("</table>\n");
    }

    fn dates_html(&self, s: &mut String) {
        s.push_str("<h2>Games per month and year</h2>");
        if self.months.is_empty() {
            s.push_str("<p class=\"muted\">no game records its start date</p>\n");
            return;
        }
        let mut years: BTreeMap<String, u64> = BTreeMap::new();
        for (m, n) in &self.months {
            *years.entry(m.get(..4).unwrap_or(m).to_owned()).or_default() += n;
        }
        let dated: u64 = self.months.values().sum();
        // Month by month when that makes a readable chart; else year by year, the years
        // without a game shown as such.
        let chart: Vec<(String, u64)> = if self.months.len() <= 48 {
            self.months.iter().map(|(k, n)| (k.clone(), *n)).collect()
        } else {
            let num = |y: &String| y.parse::<u32>().ok();
            match (
                years.keys().next().and_then(num),
                years.keys().next_back().and_then(num),
            ) {
                (Some(a), Some(b)) => (a..=b)
                    .map(|y| {
                        let k = y.to_string();
                        let n = years.get(&k).copied().unwrap_or(0);
                        (k, n)
                    })
                    .collect(),
                _ => years.iter().map(|(k, n)| (k.clone(), *n)).collect(),
            }
        };
        let years: Vec<(String, u64)> = years.into_iter().collect();
        let _ = writeln!(
            s,
            "<p>{dated} of {} games record their start date.</p><div class=\"row\">{}{}</div>",
            self.games,
            columns(&chart),
            count_table("year", &years, dated)
        );
    }

    /// The games with an error, by code (a game with two codes under each), each as
    /// `path:game` (`kifu show PATH:GAME --at-diagnostic` shows one); the counts above link
    /// here.
    fn error_games_html(&self, s: &mut String) {
        let e = &self.error_games;
        let _ = write!(
            s,
            "<h2 id=\"errors\">Games with errors</h2><p>{} of {} games have an error.",
            e.games, self.games
        );
        if (e.listed.len() as u64) < e.games {
            let _ = write!(
                s,
                " The first {} are listed (<code>kifu validate</code> lists them all).",
                e.listed.len()
            );
        }
        s.push_str("</p>");
        let mut codes: Vec<&str> = e
            .listed
            .iter()
            .flat_map(|g| g.codes.iter().map(String::as_str))
            .collect();
        codes.sort_unstable();
        codes.dedup();
        for code in codes {
            let games: Vec<&super::ErrorGameRow> = e
                .listed
                .iter()
                .filter(|g| g.codes.iter().any(|c| c == code))
                .collect();
            let _ = write!(
                s,
                "<h3 id=\"errors-{c}\">{c} ({})</h3><p>",
                games.len(),
                c = escape(code)
            );
            let at: Vec<String> = games
                .iter()
                .map(|g| format!("<code>{}:{}</code>", escape(&g.path), g.game))
                .collect();
            s.push_str(&at.join(" "));
            s.push_str("</p>\n");
        }
    }

    /// The groups of identical games (the same start and moves), each with where its games
    /// are (`kifu show PATH:GAME` shows one).
    fn duplicates_html(&self, s: &mut String) {
        let _ = write!(
            s,
            "<h2>Duplicates</h2><p>{} groups of identical games (the same start and moves).</p>",
            self.duplicates.len()
        );
        if self.duplicates.is_empty() {
            return;
        }
        s.push_str("<table><tr><th>games</th><th class=\"l\">where (path:game)</th></tr>");
        for d in &self.duplicates {
            let at: Vec<String> = d
                .locations
                .iter()
                .map(|l| format!("<code>{}:{}</code>", escape(&l.path), l.game))
                .collect();
            let _ = write!(
                s,
                "<tr><td>{}</td><td class=\"l\">{}</td></tr>",
                d.games,
                at.join(" ")
            );
        }
        s.push_str("</table>\n");
    }

    fn players_html(&self, s: &mut String) {
        s.push_str("<h2>Players</h2>");
        if self.players.is_empty() {
            s.push_str("<p class=\"muted\">no game names its players</p>\n");
            return;
        }
        s.push_str(
            "<table><tr><th class=\"l\">player</th><th>games</th><th>wins</th><th>losses</th>\
             <th>draws</th><th>no result</th><th>score</th></tr>",
        );
        for p in &self.players {
            let r = &p.record;
            let decided = r.wins + r.losses + r.draws;
            let score = if decided == 0 {
                "–".to_owned()
            } else {
                format!(
                    "{:.1}%",
                    (r.wins as f64 + r.draws as f64 / 2.0) * 100.0 / decided as f64
                )
            };
            // Games without a result (interrupted, unknown endings): the row adds up.
            let open = r.games.saturating_sub(decided);
            let _ = write!(
                s,
                "<tr><td class=\"l\">{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{open}</td><td>{score}</td></tr>",
                escape(&p.name),
                r.games,
                r.wins,
                r.losses,
                r.draws
            );
        }
        s.push_str("</table>\n");
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::formats::{Format, read};
    use crate::stats::{GameSummary, Options, Stats};
    use std::sync::Arc;

    fn report(text: &str) -> StatsReport {
        let mut st = Stats::new();
        let opts = Options {
            opening_plies: 2,
            top: None,
        };
        let path: Arc<str> = Arc::from("t.usi");
        for (i, mut g) in read(Format::Usi, text).into_iter().enumerate() {
            g.record.header.set("開始日時", "2024/03/01 10:00:00");
            g.record.header.set("先手", "<b>&");
            let gather = crate::validate::Gather::Games;
            let (r, game) = crate::validate::digest(&mut g, &Default::default(), gather);
            let s = GameSummary::of(&game, &r, &opts);
            st.add(&path, i as u64, &s);
        }
        st.report(&opts)
    }

    #[test]
    fn the_page_holds_every_section_and_escapes_what_records_say() {
        let r = report(
            "startpos moves 7g7f 3c3d resign\nstartpos moves 7g7f 3c3d 2g2f 4c4d resign\n\
             startpos moves 2g2f 8c8d 5g5f P*5e\n",
        );
        let mut out = Vec::new();
        r.write_html(&mut out, "in<put>").expect("write");
        let page = String::from_utf8(out).expect("utf-8");
        for section in [
            "<h2>Results</h2>",
            "<h2>Endings</h2>",
            "<h2>Game lengths</h2>",
            "<h2>Results by opening</h2>",
            "<h2>Games per month and year</h2>",
            "<h2>Players</h2>",
            "<h2>Diagnostics by code</h2>",
            "<h2>Duplicates</h2>",
        ] {
            assert!(page.contains(section), "{section}");
        }
        assert!(page.contains("in&lt;put&gt;"));
        assert!(page.contains("&lt;b&gt;&amp;"));
        assert!(!page.contains("<b>&"));
        assert!(page.contains("<code>7g7f 3c3d</code>"));
        assert!(page.contains("<td class=\"l\">2024</td><td>3</td>"));
        assert!(page.contains("not-in-hand"), "the foul is counted");
        // The players' rows add up: 3 games, 0 won, 2 lost, 0 drawn, 1 with no result.
        assert!(
            page.contains("<td class=\"l\">&lt;b&gt;&amp;</td><td>3</td><td>0</td><td>2</td><td>0</td><td>1</td>"),
            "{page}"
        );
        for bad in ["<script", "src=", "@import", "url("] {
            assert!(!page.contains(bad), "{bad}");
        }
        // Links only within the page, each to an anchor it has.
        for link in page.split("href=\"").skip(1) {
            let target = link.split('"').next().unwrap_or_default();
            let anchor = target
                .strip_prefix('#')
                .unwrap_or_else(|| panic!("{target}"));
            assert!(page.contains(&format!("id=\"{anchor}\"")), "{anchor}");
        }
        // The game with the foul, listed under its code and linked from the counts.
        assert!(
            page.contains(
                "<h2 id=\"errors\">Games with errors</h2><p>1 of 3 games have an error.</p>"
            ),
            "{page}"
        );
        assert!(
            page.contains(
                "<h3 id=\"errors-not-in-hand\">not-in-hand (1)</h3><p><code>t.usi:2</code></p>"
            ),
            "{page}"
        );
        assert!(page.contains("<td class=\"l\">not-in-hand</td><td>1</td><td><a href=\"#errors-not-in-hand\">1</a></td>"), "{page}");
        assert!(
            page.contains("<a href=\"#errors\">1 with an error</a>"),
            "{page}"
        );
    }

    /// Duplicates are listed with where each game is, as `kifu show` takes it.
    #[test]
    fn the_page_lists_duplicates() {
        let r = report(
            "startpos moves 7g7f 3c3d resign\nstartpos moves 2g2f\nstartpos moves 7g7f 3c3d resign\n",
        );
        let mut out = Vec::new();
        r.write_html(&mut out, "t").expect("write");
        let page = String::from_utf8(out).expect("utf-8");
        assert!(page.contains("<p>1 groups of identical games"), "{page}");
        assert!(
            page.contains(
                "<td>2</td><td class=\"l\"><code>t.usi:0</code> <code>t.usi:2</code></td>"
            ),
            "{page}"
        );
    }

    #[test]
    fn stacked_bars_fill_their_width() {
        let o = Outcomes {
            black: 1,
            white: 1,
            draw: 1,
            other: 0,
        };
        let svg = stacked(&o, 100, 10);
        let widths: u64 = svg
            .split("width=\"")
            .skip(2)
            .filter_map(|w| w.split('"').next()?.parse::<u64>().ok())
            .sum();
        assert_eq!(widths, 100, "{svg}");
    }
}
