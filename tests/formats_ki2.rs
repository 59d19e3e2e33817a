//! KI2 reader and writer tests.

use std::path::{Path, PathBuf};

use kifu::formats::ki2;

fn corpus() -> Option<PathBuf> {
    let p = Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../shared/corpus"));
    p.is_dir().then(|| p.to_path_buf())
}

/// Minimal decoding until `formats::decode` lands: UTF-8 when valid, else CP932.
fn decode(bytes: &[u8]) -> String {
    match std::str::from_utf8(bytes) {
        Ok(s) => s.to_string(),
        Err(_) => encoding_rs::SHIFT_JIS.decode(bytes).0.into_owned(),
    }
}

fn files_with(root: &Path, exts: &[&str]) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![root.to_path_buf()];
    while let Some(d) = stack.pop() {
        let Ok(rd) = std::fs::read_dir(&d) else {
            continue;
        };
        for e in rd.flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else if p
                .extension()
                .and_then(|x| x.to_str())
                .is_some_and(|x| exts.contains(&x.to_ascii_lowercase().as_str()))
            {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}

#[test]
fn corpus_ki2_files_parse_without_syntax_errors() {
    let Some(root) = corpus() else { return };
    let mut bad = Vec::new();
    for p in files_with(&root, &["ki2", "ki2u"]) {
        let text = decode(&std::fs::read(&p).unwrap());
        let games = ki2::read(&text);
        assert_eq!(games.len(), 1);
        let errs: Vec<_> = games[0]
            .diagnostics
            .iter()
            .filter(|d| d.code == kifu::Code::Syntax)
            .collect();
        let malformed = p.to_string_lossy().contains("error_fixtures");
        if malformed {
            continue;
        }
        if !errs.is_empty() {
            bad.push(format!("{}: {:?}", p.display(), errs));
        }
    }
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}
