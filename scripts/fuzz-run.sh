#!/usr/bin/env bash
# Runs fuzz targets one after the other, one job each, for SECONDS each (stable Rust: cargo-fuzz
# with `-s none`). Seeds come from scripts/fuzz-seeds.sh; logs go to fuzz/logs/TARGET.log and the
# last status line of each run is printed (executions, coverage, corpus size).
# Usage: scripts/fuzz-run.sh SECONDS [TARGET...]
set -euo pipefail
cd "$(dirname "$0")/.."
secs=${1:?usage: fuzz-run.sh SECONDS [TARGET...]}
shift
targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
    targets=(decode read_kif read_ki2 read_csa read_usi read_jkf sfen validate roundtrip)
fi
scripts/fuzz-seeds.sh "${targets[@]}" >/dev/null
mkdir -p fuzz/logs
cd fuzz
cargo fuzz build -s none --fuzz-dir . >/dev/null 2>&1 || cargo fuzz build -s none --fuzz-dir .
status=0
for t in "${targets[@]}"; do
    log="logs/$t.log"
    if cargo fuzz run -s none --fuzz-dir . "$t" -- -max_total_time="$secs" -timeout=10 \
        -rss_limit_mb=2048 -max_len=16384 -print_final_stats=1 >"$log" 2>&1; then
        r=ok
    else
        r=FAILED
        status=1
    fi
    last=$(grep -E '^#[0-9]+' "$log" | tail -1 || true)
    execs=$(grep -E '^stat::number_of_executed_units' "$log" | awk '{print $2}' || true)
    echo "$t: $r; executions ${execs:-?}; last: $last"
done
exit $status
