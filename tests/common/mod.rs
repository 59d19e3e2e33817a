//! Helpers shared by the integration tests.
#![allow(dead_code)] // each test binary uses its own subset

use std::path::{Path, PathBuf};

/// `../shared/corpus` beside the repository, when it is there; tests that read it skip
/// cleanly when it is not.
pub fn corpus() -> Option<PathBuf> {
    let p = Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../shared/corpus"));
    p.is_dir().then(|| p.to_path_buf())
}

/// Every file below `root` whose extension (case-insensitive) is one of `exts`, sorted.
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
