//! Helpers shared by the integration tests.
#![allow(dead_code)] // each test binary uses its own subset

use std::path::{Path, PathBuf};

/// The repository's root, which holds `fixtures/` and `tests/regressions/`: the library's
/// folder (the application's tests are built from `app/`).
pub fn repo() -> PathBuf {
    let here = Path::new(env!("CARGO_MANIFEST_DIR"));
    if here.join("fixtures").is_dir() {
        here.to_path_buf()
    } else {
        here.parent()
            .expect("app/ is in the repository")
            .to_path_buf()
    }
}

/// Where the shared corpus is looked for: `$KIFU_CORPUS` when set, else `../shared/corpus`
/// beside the repository.
pub fn corpus_root() -> PathBuf {
    match std::env::var_os("KIFU_CORPUS") {
        Some(p) => PathBuf::from(p),
        None => repo().join("../shared/corpus"),
    }
}

/// The shared corpus ([`corpus_root`]), when it is there. When it is not, says so on stderr
/// (`skip: ...; <test> read no corpus file`) and gives `None`: a test that reads it then skips
/// what it would have read, and the skip shows (`cargo test -- --nocapture`); with
/// `KIFU_REQUIRE_CORPUS` set (CI sets it), it fails instead.
pub fn corpus(test: &str) -> Option<PathBuf> {
    let p = corpus_root();
    if p.is_dir() {
        Some(p)
    } else {
        // CI has the corpus beside the repository and sets this: there a missing corpus is a
        // failure, not a skip.
        assert!(
            std::env::var_os("KIFU_REQUIRE_CORPUS").is_none(),
            "the corpus {} is missing and KIFU_REQUIRE_CORPUS is set; {test} needs it",
            p.display()
        );
        eprintln!(
            "skip: the corpus {} is missing (KIFU_CORPUS, or ../shared/corpus beside the \
             repository); {test} read no corpus file",
            p.display()
        );
        None
    }
}

/// The one walker of the shared corpus: every file below [`corpus`] whose extension is one of
/// `exts` (every file when `exts` is empty), sorted; `None`, with the skip line, when the
/// corpus is missing.
pub fn corpus_files(test: &str, exts: &[&str]) -> Option<Vec<PathBuf>> {
    corpus(test).map(|root| files_with(&root, exts))
}

/// Every file below `root` whose extension (case-insensitive) is one of `exts` (every file
/// when `exts` is empty), sorted.
pub fn files_with(root: &Path, exts: &[&str]) -> Vec<PathBuf> {
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
            } else if exts.is_empty()
                || p.extension()
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

/// The damage the equivalence tests share, on line `i` of `lines`: `how` 0 drops it, 1 doubles
/// it, 2 swaps it with the next. False when `how` is another number, or 2 on the last line
/// (the caller then makes an edit of its own).
pub fn reshape_lines(lines: &mut Vec<String>, i: usize, how: u64) -> bool {
    match how {
        0 if i < lines.len() => {
            lines.remove(i);
        }
        1 if i < lines.len() => {
            let l = lines[i].clone();
            lines.insert(i, l);
        }
        2 if i + 1 < lines.len() => lines.swap(i, i + 1),
        _ => return false,
    }
    true
}
