#!/usr/bin/env bash
# Counts the instructions two builds of kifu execute on the same inputs (valgrind's callgrind),
# the one figure of speed that the noise of a shared machine does not move: on this 2-core VM,
# one binary timed against a copy of itself differs by up to 10 % in wall time, while its
# instruction count is the same to the last digit run after run.
#
#     scripts/bench-instructions.sh BEFORE_BIN AFTER_BIN [--games N] -- ARGS_SET...
#
# Each ARGS_SET is one command line after the binary, as a single string, e.g.
#     'validate --no-progress -j1 /tmp/kifbench/files/kif'
# Valgrind runs about 50 times slower than the program, so point it at a thousand games, not
# at twenty thousand. Prints a Markdown table: instructions of A and B, and B/A.
set -euo pipefail

if [ $# -lt 3 ]; then
    sed -n '2,12p' "$0"
    exit 2
fi
a=$1
b=$2
shift 2
[ "${1:-}" = "--" ] && shift
command -v valgrind >/dev/null || {
    echo "valgrind is needed (apt-get install valgrind)" >&2
    exit 2
}

count() {
    local out
    out=$(mktemp)
    # shellcheck disable=SC2086
    valgrind --tool=callgrind --callgrind-out-file="$out" "$@" >/dev/null 2>"$out.log" || true
    grep -o 'Collected : [0-9]*' "$out.log" | awk '{print $3}'
    rm -f "$out" "$out.log"
}

echo "| command | A instructions | B instructions | B/A |"
echo "|---|---|---|---|"
for cmd in "$@"; do
    # shellcheck disable=SC2086
    ia=$(count "$a" $cmd)
    # shellcheck disable=SC2086
    ib=$(count "$b" $cmd)
    awk -v c="$cmd" -v a="$ia" -v b="$ib" \
        'BEGIN { printf "| `kifu %s` | %.0f | %.0f | %.3f |\n", c, a, b, b / a }'
done
