#!/usr/bin/env bash
# The CI fuzz smoke, about a minute.
#
#   scripts/fuzz-smoke.sh               mutation smoke on stable Rust (app/tests/long/hostile_mutation.rs),
#                                       release build, KIFU_SMOKE_SECS seconds (default 60)
#   scripts/fuzz-smoke.sh --cargo-fuzz  each cargo-fuzz target for a few seconds (needs
#                                       `cargo install cargo-fuzz --locked`; stable, `-s none`)
#
# A failing input is saved under target/mutation-smoke/ (mutation smoke) or
# fuzz/artifacts/TARGET/ (cargo-fuzz); copy it to tests/regressions/ once fixed.
set -euo pipefail
cd "$(dirname "$0")/.."

if [ "${1:-}" = "--cargo-fuzz" ]; then
    per=${FUZZ_SECS_PER_TARGET:-7}
    exec scripts/fuzz-run.sh "$per"
fi
export KIFU_SMOKE_SECS=${KIFU_SMOKE_SECS:-60}
cargo test --release --test long -- --ignored --nocapture mutation_smoke
