//! The SVG board of `kifu show` and the HTML page of `kifu stats --format html`, drawn for
//! real: headless Chromium renders each to a PNG, which is decoded here (zlib through
//! `flate2`, already a dependency; the PNG filters by hand) and checked: the size asked for,
//! not blank, and the colours the drawing is made of where they should be (the board's wood,
//! the last move's and the diagnostic's squares; the report's bars).
//!
//! Skips, saying so, when Chromium is absent (`.ci/run` installs Debian's `chromium`). Set
//! `KIFU_CHROMIUM` to use another binary, and `KIFU_RENDER_KEEP=DIR` to keep the PNGs.

use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// The Chromium binary, if there is one.
fn chromium() -> Option<PathBuf> {
    if let Some(p) = std::env::var_os("KIFU_CHROMIUM") {
        return Some(PathBuf::from(p));
    }
    ["chromium", "chromium-browser", "google-chrome"]
        .iter()
        .find_map(|name| {
            let ok = Command::new(name)
                .arg("--version")
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .status()
                .is_ok_and(|s| s.success());
            ok.then(|| PathBuf::from(name))
        })
}

/// Renders `file` at `w`×`h` to a PNG and decodes it.
fn render(chrome: &Path, dir: &Path, file: &Path, w: u32, h: u32) -> Image {
    let png = file.with_extension("png");
    let o = Command::new(chrome)
        .args([
            "--headless",
            "--disable-gpu",
            "--no-sandbox",
            "--hide-scrollbars",
            "--no-first-run",
            &format!("--user-data-dir={}", dir.join("profile").display()),
            &format!("--screenshot={}", png.display()),
            &format!("--window-size={w},{h}"),
            &format!("file://{}", file.display()),
        ])
        .stdin(Stdio::null())
        .output()
        .expect("run chromium");
    assert!(
        png.exists(),
        "no screenshot: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    if let Some(keep) = std::env::var_os("KIFU_RENDER_KEEP") {
        let name = png.file_name().expect("name");
        std::fs::copy(&png, Path::new(&keep).join(name)).expect("keep");
    }
    decode(&std::fs::read(&png).expect("png"))
}

/// A decoded image: RGB pixels, row by row.
struct Image {
    width: u32,
    height: u32,
    pixels: Vec<[u8; 3]>,
}

impl Image {
    /// Pixels of exactly this colour.
    fn count(&self, rgb: [u8; 3]) -> usize {
        self.pixels.iter().filter(|&&p| p == rgb).count()
    }

    /// Pixels near this colour (each channel within 6: anti-aliasing and colour profiles
    /// move edges and flat colours a little).
    fn near(&self, rgb: [u8; 3]) -> usize {
        self.pixels
            .iter()
            .filter(|p| p.iter().zip(rgb).all(|(&a, b)| a.abs_diff(b) <= 6))
            .count()
    }

    fn distinct(&self) -> usize {
        let mut v = self.pixels.clone();
        v.sort_unstable();
        v.dedup();
        v.len()
    }
}

fn be32(b: &[u8]) -> u32 {
    u32::from_be_bytes([b[0], b[1], b[2], b[3]])
}

/// Decodes an 8-bit, non-interlaced RGB or RGBA PNG (what Chromium writes).
fn decode(png: &[u8]) -> Image {
    assert_eq!(&png[..8], b"\x89PNG\r\n\x1a\n", "PNG signature");
    let (mut at, mut idat) = (8, Vec::new());
    let (mut width, mut height, mut channels) = (0, 0, 0);
    while at + 8 <= png.len() {
        let len = be32(&png[at..]) as usize;
        let kind = &png[at + 4..at + 8];
        let data = &png[at + 8..at + 8 + len];
        match kind {
            b"IHDR" => {
                width = be32(data);
                height = be32(&data[4..]);
                assert_eq!(data[8], 8, "bit depth");
                assert_eq!(data[12], 0, "interlace");
                channels = match data[9] {
                    2 => 3,
                    6 => 4,
                    t => panic!("colour type {t}"),
                };
            }
            b"IDAT" => idat.extend_from_slice(data),
            b"IEND" => break,
            _ => {}
        }
        at += 12 + len;
    }
    let mut raw = Vec::new();
    flate2::read::ZlibDecoder::new(&idat[..])
        .read_to_end(&mut raw)
        .expect("zlib");
    let stride = width as usize * channels;
    assert_eq!(raw.len(), (stride + 1) * height as usize, "image data size");
    let mut prev = vec![0u8; stride];
    let mut pixels = Vec::with_capacity((width * height) as usize);
    for row in raw.chunks_exact(stride + 1) {
        let (filter, line) = (row[0], &row[1..]);
        let mut cur = vec![0u8; stride];
        for i in 0..stride {
            let a = if i >= channels { cur[i - channels] } else { 0 };
            let b = prev[i];
            let c = if i >= channels { prev[i - channels] } else { 0 };
            let pred = match filter {
                0 => 0,
                1 => a,
                2 => b,
                3 => ((u16::from(a) + u16::from(b)) / 2) as u8,
                4 => {
                    let p = i16::from(a) + i16::from(b) - i16::from(c);
                    let (pa, pb, pc) = (
                        (p - i16::from(a)).abs(),
                        (p - i16::from(b)).abs(),
                        (p - i16::from(c)).abs(),
                    );
                    if pa <= pb && pa <= pc {
                        a
                    } else if pb <= pc {
                        b
                    } else {
                        c
                    }
                }
                f => panic!("filter {f}"),
            };
            cur[i] = line[i].wrapping_add(pred);
        }
        for px in cur.chunks_exact(channels) {
            pixels.push([px[0], px[1], px[2]]);
        }
        prev = cur;
    }
    Image {
        width,
        height,
        pixels,
    }
}

fn kifu(args: &[&str]) {
    let o = Command::new(env!("CARGO_BIN_EXE_kifu"))
        .args(args)
        .stdin(Stdio::null())
        .output()
        .expect("run kifu");
    assert!(
        o.status.code().is_some_and(|c| c == 0),
        "{args:?}: {}",
        String::from_utf8_lossy(&o.stderr)
    );
}

fn fixtures() -> PathBuf {
    crate::common::repo().join("fixtures")
}

#[test]
fn the_svg_board_renders_with_its_squares_and_marks() {
    let Some(chrome) = chromium() else {
        eprintln!("skipped: no chromium (apt-get install chromium, or set KIFU_CHROMIUM)");
        return;
    };
    let dir = tempfile::tempdir().expect("dir");
    let nifu = fixtures().join("validate/fouls/nifu.kifu");
    let board = dir.path().join("board.svg");
    let flipped = dir.path().join("board-flipped.svg");
    let n = nifu.to_str().expect("utf-8");
    kifu(&[
        "show",
        n,
        "--at-diagnostic",
        "--format",
        "svg",
        "-o",
        board.to_str().expect("p"),
    ]);
    kifu(&[
        "show",
        n,
        "--ply",
        "4",
        "--flip",
        "--format",
        "svg",
        "-o",
        flipped.to_str().expect("p"),
    ]);
    // The drawing is 584 high, and a line more (20) for each line of the diagnostic's text
    // under the caption.
    let svg = std::fs::read_to_string(&board).expect("svg");
    let notes = svg.matches("class=\"note\"").count() as u32;
    assert!(notes >= 1, "{svg}");
    let height = 584 + 20 * notes;
    let img = render(&chrome, dir.path(), &board, 472, height);
    assert_eq!((img.width, img.height), (472, height));
    // The text is drawn in dark red below the board (no piece is there).
    let below = &img.pixels[(472 * 584) as usize..];
    let red = below
        .iter()
        .filter(|p| p[0] > 150 && p[1] < 80 && p[2] < 80)
        .count();
    assert!(red > 100, "note text: {red} red pixels below the board");
    let all = img.pixels.len();
    let white = img.count([255, 255, 255]);
    assert!(white < all * 6 / 10, "mostly blank: {white} of {all} white");
    assert!(img.distinct() > 20, "{} colours", img.distinct());
    // The board's wood covers most of its 396×432 square area (the pieces and lines the rest).
    let wood = img.near([0xf1, 0xcf, 0x8e]);
    assert!(wood > 396 * 432 / 2, "wood {wood}");
    // One square of the diagnostic (a drop: its destination) and the last move's two.
    let mark = img.near([0xf7, 0xa1, 0xa1]);
    assert!((400..=44 * 48).contains(&mark), "mark {mark}");
    assert!(
        img.near([0xf2, 0xb8, 0x4b]) > 300,
        "last move's destination"
    );
    assert!(img.near([0xf6, 0xe3, 0xa8]) > 300, "last move's source");
    // The pieces are drawn: plenty of dark pixels on the board.
    let dark = img
        .pixels
        .iter()
        .filter(|p| p.iter().all(|&c| c < 90))
        .count();
    assert!(dark > 3000, "dark {dark}");
    // The flipped board has no mark but the same wood.
    let img = render(&chrome, dir.path(), &flipped, 472, 584);
    assert_eq!(img.near([0xf7, 0xa1, 0xa1]), 0);
    assert!(img.near([0xf1, 0xcf, 0x8e]) > 396 * 432 / 2);
}

#[test]
fn the_html_report_renders_its_charts() {
    let Some(chrome) = chromium() else {
        eprintln!("skipped: no chromium (apt-get install chromium, or set KIFU_CHROMIUM)");
        return;
    };
    let dir = tempfile::tempdir().expect("dir");
    let page = dir.path().join("report.html");
    kifu(&[
        "stats",
        "--format",
        "html",
        "--opening-plies",
        "2",
        "-o",
        page.to_str().expect("p"),
        fixtures().to_str().expect("p"),
    ]);
    let img = render(&chrome, dir.path(), &page, 1000, 1600);
    assert_eq!((img.width, img.height), (1000, 1600));
    let all = img.pixels.len();
    let white = img.count([255, 255, 255]);
    assert!(white < all * 97 / 100, "blank: {white} of {all}");
    assert!(white > all / 2, "a page, mostly white: {white} of {all}");
    // The bars of the charts, and Black's share of the results bar.
    assert!(img.near([0x4a, 0x7a, 0xb0]) > 2000, "bars");
    assert!(img.near([0x33, 0x33, 0x33]) > 1000, "results");
}
