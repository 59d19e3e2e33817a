#!/usr/bin/env bash
# Runs fuzz targets one after the other, one job each (stable Rust: cargo-fuzz with `-s none`),
# each until its coverage plateaus or a time cap is reached. Seeds come from scripts/fuzz-seeds.sh
# (added to what fuzz/corpus/TARGET already holds); logs go to fuzz/logs/TARGET.log.
#
# Plateau: no new `cov` (libFuzzer's count of covered edges) for PLATEAU seconds. The log is
# polled every 5 s; fuzz/logs/TARGET.cov gets one line per poll: elapsed seconds, executions,
# cov, ft. At the end one summary line per target is printed (and appended to
# fuzz/logs/summary.txt): executions, seconds, cov/ft at the start (after loading the corpus)
# and at the end, seconds into the run of the last new cov, why it stopped, artifacts found.
#
# Usage: scripts/fuzz-run.sh [--plateau SECS] CAP_SECONDS [TARGET...]
#   scripts/fuzz-run.sh 150                     every target, 150 s each (no plateau stop)
#   scripts/fuzz-run.sh --plateau 300 1200      every target until 5 min without new cov, <= 20 min
# The fuzzer runs under `nice -n 10`. FUZZ_FLAGS adds libFuzzer flags (`-print_pcs=1` names
# each newly covered edge's function).
# A plateau stop is a SIGTERM with libFuzzer's handler off (-handle_term=0): its handlers are
# not async-signal-safe and once deadlocked in malloc (session 5, `archive`, on a SIGINT). Not
# SIGINT: a background job of a script ignores it, and only libFuzzer's handler undid that.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/fuzz-limits.sh
plateau=0
if [ "${1:-}" = --plateau ]; then
    plateau=${2:?--plateau needs seconds}
    shift 2
fi
cap=${1:?usage: fuzz-run.sh [--plateau SECS] CAP_SECONDS [TARGET...]}
shift
targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
    targets=(decode read_kif read_ki2 read_csa read_usi read_usen read_jkf sfen validate roundtrip validate_as_read archive dates time_control)
fi
scripts/fuzz-seeds.sh "${targets[@]}" >/dev/null
mkdir -p fuzz/logs
cd fuzz
# With debug assertions: integer overflow panics (a release build would wrap in silence).
cargo fuzz build -s none -a --fuzz-dir . >/dev/null 2>&1 || cargo fuzz build -s none -a --fuzz-dir .
triple=$(rustc -vV | sed -n 's/^host: //p')
status=0

# The last `cov:` / `ft:` / `#N` of a log (0 when none yet).
last_field() { grep -aoE "$1 [0-9]+" "$2" | tail -1 | awk '{print $2}' || true; }
# The last executions count of a log (the `#N` of libFuzzer's status lines).
execs_of() { grep -aoE '^#[0-9]+' "$1" | tail -1 | tr -d '#' || true; }

for t in "${targets[@]}"; do
    log="logs/$t.log"
    covlog="logs/$t.cov"
    : >"$covlog"
    mkdir -p "artifacts/$t"
    before=$(ls "artifacts/$t" | wc -l)
    start=$(date +%s)
    nice -n 10 "target/$triple/release/$t" "corpus/$t" -artifact_prefix="artifacts/$t/" \
        -max_total_time="$cap" "${FUZZ_LIMITS[@]}" \
        -print_final_stats=1 -handle_term=0 ${FUZZ_FLAGS:-} >"$log" 2>&1 &
    pid=$!
    best=-1
    last_new=0
    why=cap
    while kill -0 "$pid" 2>/dev/null; do
        sleep 5
        now=$(($(date +%s) - start))
        cov=$(last_field 'cov:' "$log")
        cov=${cov:-0}
        [ "$cov" -gt "$best" ] && { best=$cov; last_new=$now; }
        echo "$now $(execs_of "$log") $cov $(last_field 'ft:' "$log")" >>"$covlog"
        if [ "$plateau" -gt 0 ] && [ $((now - last_new)) -ge "$plateau" ]; then
            why=plateau
            # The corpus is written as it grows; executions come from the log.
            kill -TERM "$pid" 2>/dev/null || true
            break
        fi
    done
    if wait "$pid"; then r=ok; else
        code=$?
        # 143: ended by the plateau stop's SIGTERM.
        if [ "$why" = plateau ] && [ "$code" = 143 ]; then r=ok; else r=exit-$code; fi
    fi
    secs=$(($(date +%s) - start))
    init=$(grep -aE 'INITED' "$log" | head -1 | grep -oE 'cov: [0-9]+ ft: [0-9]+' || echo '?')
    execs=$(grep -aE '^stat::number_of_executed_units' "$log" | awk '{print $2}' || true)
    [ -n "$execs" ] || execs=$(execs_of "$log")
    found=$(($(ls "artifacts/$t" | wc -l) - before))
    [ "$found" -gt 0 ] && { r="$r, $found new artifact(s) in fuzz/artifacts/$t"; status=1; }
    [ "$why" = cap ] && grep -aqE '^==[0-9]+== ERROR|deadly signal|Timeout|out-of-memory' "$log" && why=crash
    line="$t: $r; stopped by $why after ${secs} s; executions ${execs:-?}; start ${init}; end cov: $(last_field 'cov:' "$log") ft: $(last_field 'ft:' "$log"); last new cov at ${last_new} s; corpus $(ls "corpus/$t" | wc -l)"
    echo "$line"
    echo "$(date -u +%FT%TZ) $line" >>logs/summary.txt
done
exit $status
