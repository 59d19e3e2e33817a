//! Running the `kifu` binary and reading what the run left: exit code, output streams, JSON
//! Lines. Shared by the command-line tests (`app/tests/cli*.rs`, `app/tests/cli/convert_output.rs`...).

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use serde_json::Value;

/// `fixtures/validate`.
pub fn fixtures() -> PathBuf {
    crate::common::repo().join("fixtures/validate")
}

/// The exit code (the run must have exited, not been killed).
pub fn code(o: &Output) -> i32 {
    o.status.code().expect("exit code")
}

/// The standard output, which must be UTF-8.
pub fn stdout(o: &Output) -> String {
    String::from_utf8(o.stdout.clone()).expect("utf-8 stdout")
}

/// The error stream, lossily.
pub fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// Each line of `text` as JSON; a line that is not JSON fails the test.
pub fn parse_lines(text: &str) -> Vec<Value> {
    text.lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("bad JSON line {l:?}: {e}")))
        .collect()
}

/// Runs `kifu` with `args`, with nothing on its standard input.
pub fn run(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_kifu"))
        .args(args)
        .stdin(Stdio::null())
        .output()
        .expect("run kifu")
}

/// A path as a command-line argument (the test paths are UTF-8).
pub fn p(path: &Path) -> &str {
    path.to_str().expect("utf-8 path")
}
