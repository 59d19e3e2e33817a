//! The layering of the library (`src/`) and of the application over it (`app/src/`), checked
//! on their source: no module imports a layer above its own, the library never names the
//! application (`kifu_app`), and no file grows past 1,200 lines (files hold one concept each,
//! whatever their size: the bound only stops one from swallowing others; a cap of 750 sent
//! helpers to the wrong files). The layers, lowest first, are those of `src/lib.rs`'s and
//! `app/src/lib.rs`'s documentation; a module not in the tables fails the test, so a new one
//! must take a place.

use std::fs;
use std::path::{Path, PathBuf};

/// The library's top-level modules by layer, lowest first. `random` (feature `testing`) makes
/// records and writes them, so it stands on `formats`' layer without being used by it.
const LAYERS: &[(&str, u32)] = &[
    ("core", 0),
    ("diag", 1),
    ("record", 2),
    ("formats", 3),
    ("validate", 4),
    ("stats", 5),
    ("tables", 5),
    ("random", 3),
];

/// The application's top-level modules by layer, all above the library: `commands` and
/// `convert` are jobs that drive the batch engine, so they stand above `batch`.
const APP_LAYERS: &[(&str, u32)] = &[("batch", 0), ("commands", 1), ("convert", 2)];

/// A crate's top-level modules by layer.
type Layers = &'static [(&'static str, u32)];

/// The two crates' source folders with their layers.
fn crates() -> [(PathBuf, Layers); 2] {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    [
        (root.join("src"), LAYERS),
        (root.join("app/src"), APP_LAYERS),
    ]
}

/// The longest a source file may be.
const MAX_LINES: usize = 1200;

fn layer(layers: &[(&str, u32)], module: &str) -> Option<u32> {
    layers.iter().find(|(m, _)| *m == module).map(|&(_, l)| l)
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let mut entries: Vec<_> = fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            rust_files(&p, out);
        } else if p.extension().is_some_and(|e| e == "rs") {
            out.push(p);
        }
    }
}

/// The top-level module a file of `src/` belongs to (`None` for lib.rs and the binary).
fn module_of(src: &Path, file: &Path) -> Option<String> {
    let rel = file.strip_prefix(src).unwrap();
    let first = rel.components().next()?.as_os_str().to_str()?.to_owned();
    if first == "lib.rs" || first == "bin" {
        return None;
    }
    Some(first.trim_end_matches(".rs").to_owned())
}

/// Every source file of both crates that belongs to a top-level module, with its crate's
/// layers and the module.
fn module_files() -> Vec<(PathBuf, Layers, String)> {
    let mut out = Vec::new();
    for (src, layers) in crates() {
        let mut files = Vec::new();
        rust_files(&src, &mut files);
        for file in files {
            if let Some(module) = module_of(&src, &file) {
                out.push((file, layers, module));
            }
        }
    }
    out
}

/// Every `crate::NAME` a file mentions, with its line number (comments and the unit tests at
/// the end of the file, from `#[cfg(test)]` on, left out: a test may use a helper from above).
fn crate_paths(text: &str) -> Vec<(usize, String)> {
    let mut out = Vec::new();
    for (i, line) in text.lines().enumerate() {
        if line.trim_start().starts_with("#[cfg(test)]") {
            break;
        }
        let code = line.split("//").next().unwrap_or("");
        let mut rest = code;
        while let Some(at) = rest.find("crate::") {
            let after = &rest[at + "crate::".len()..];
            let name: String = after
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                .collect();
            // `crate::{a, b}` names several.
            if name.is_empty() && after.starts_with('{') {
                let group = &after[1..after.find('}').unwrap_or(after.len())];
                for part in group.split(',') {
                    let n: String = part
                        .trim()
                        .chars()
                        .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                        .collect();
                    if !n.is_empty() {
                        out.push((i + 1, n));
                    }
                }
            } else if !name.is_empty() {
                out.push((i + 1, name));
            }
            rest = after;
        }
    }
    out
}

#[test]
fn no_module_imports_a_layer_above_its_own() {
    let mut wrong = Vec::new();
    let mut checked = 0;
    for (file, layers, module) in module_files() {
        let own = layer(layers, &module)
            .unwrap_or_else(|| panic!("{}: module `{module}` has no layer", file.display()));
        let text = fs::read_to_string(&file).unwrap();
        for (line, used) in crate_paths(&text) {
            checked += 1;
            if used == module {
                continue;
            }
            // Re-exports at the root (`crate::Diagnostic`) are the root's, not a layer.
            let Some(theirs) = layer(layers, &used) else {
                if used.chars().next().is_some_and(char::is_uppercase) {
                    wrong.push(format!(
                        "{}:{line}: `crate::{used}`: name the module, not the root re-export",
                        file.display()
                    ));
                }
                continue;
            };
            if theirs > own {
                wrong.push(format!(
                    "{}:{line}: `{module}` (layer {own}) uses `{used}` (layer {theirs})",
                    file.display()
                ));
            }
        }
    }
    assert!(
        checked > 100,
        "only {checked} crate paths found: is the scan broken?"
    );
    assert!(
        wrong.is_empty(),
        "imports that run upward:\n{}",
        wrong.join("\n")
    );
}

#[test]
fn the_library_never_names_the_application() {
    let (src, _) = &crates()[0];
    let mut files = Vec::new();
    rust_files(src, &mut files);
    let wrong: Vec<String> = files
        .iter()
        .flat_map(|f| {
            let text = fs::read_to_string(f).unwrap();
            text.lines()
                .enumerate()
                .filter(|(_, l)| l.split("//").next().unwrap_or("").contains("kifu_app"))
                .map(|(i, _)| format!("{}:{}", f.display(), i + 1))
                .collect::<Vec<_>>()
        })
        .collect();
    assert!(files.len() > 20, "only {} files found", files.len());
    assert!(
        wrong.is_empty(),
        "the library uses the application:\n{}",
        wrong.join("\n")
    );
    let manifest =
        fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("Cargo.toml")).unwrap();
    let deps = manifest.split("[dev-dependencies]").next().unwrap_or("");
    assert!(
        !deps.contains("kifu-app"),
        "the library depends on the application"
    );
}

#[test]
fn same_layer_modules_do_not_import_each_other() {
    let mut wrong = Vec::new();
    for (file, layers, module) in module_files() {
        let own = layer(layers, &module).unwrap();
        let text = fs::read_to_string(&file).unwrap();
        for (line, used) in crate_paths(&text) {
            if used != module && layer(layers, &used) == Some(own) {
                wrong.push(format!(
                    "{}:{line}: `{module}` uses `{used}`",
                    file.display()
                ));
            }
        }
    }
    assert!(
        wrong.is_empty(),
        "modules of one layer using each other:\n{}",
        wrong.join("\n")
    );
}

#[test]
fn no_source_file_is_over_the_limit() {
    let mut files = Vec::new();
    for (src, _) in crates() {
        rust_files(&src, &mut files);
    }
    assert!(files.len() > 40, "only {} files found", files.len());
    let long: Vec<String> = files
        .iter()
        .filter_map(|f| {
            let n = fs::read_to_string(f).unwrap().lines().count();
            (n > MAX_LINES).then(|| format!("{}: {n} lines", f.display()))
        })
        .collect();
    assert!(
        long.is_empty(),
        "files over {MAX_LINES} lines:\n{}",
        long.join("\n")
    );
}

#[test]
fn the_scan_finds_grouped_and_plain_paths() {
    let found = crate_paths(
        "use crate::{core, record::Span};\nlet x = crate::diag::Code::Io; // crate::batch\n",
    );
    let names: Vec<&str> = found.iter().map(|(_, n)| n.as_str()).collect();
    assert_eq!(names, ["core", "record", "diag"]);
}
