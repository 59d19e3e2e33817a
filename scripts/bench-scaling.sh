#!/usr/bin/env bash
# Scaling of `kifu validate` with the number of threads (issue #24; see docs/benchmarks.md).
#
#   scripts/bench-scaling.sh [DIR] [RUNS]
#
# In DIR (default ~/.cache/kifu-bench-scaling) makes, once, with examples/gencorpus.rs:
#   small/     200,000 small CSA files (20,000 distinct games, ten directories of them)
#   small.zip  and small.tar.gz: the same files in archives
#   big.csa    1,000,000 games in one CSA file (10,000 distinct games written 100 times)
#   big.usi    1,000,000 lines of USI
# and a KIF tree (20,000 files, UTF-8 and Shift_JIS) for the per-core comparison of formats.
# Then, for each input, runs -j1 and -j2 alternately (A B A B ..., RUNS times each, default 5)
# and prints the median wall seconds of each, the ratio -j1/-j2 and the peak RSS. The machine
# is shared: read the ratios, not the seconds, and rerun when another job was busy.
set -euo pipefail
cd "$(dirname "$0")/.."
DIR=${1:-$HOME/.cache/kifu-bench-scaling}
RUNS=${2:-5}
mkdir -p "$DIR"
cargo build --release -q --bin kifu --example gencorpus
KIFU=${KIFU:-$PWD/target/release/kifu}
GEN=target/release/examples/gencorpus

if [ ! -d "$DIR/small" ]; then
  "$GEN" "$DIR/gen20k" --games 20000 >/dev/null
  mkdir -p "$DIR/small"
  for i in 0 1 2 3 4 5 6 7 8 9; do cp -r "$DIR/gen20k/files/csa" "$DIR/small/d$i"; done
fi
[ -s "$DIR/small.tar.gz" ] && [ "$(stat -c %s "$DIR/small.tar.gz")" -gt 1000000 ] || tar czhf "$DIR/small.tar.gz" -C "$DIR" small
[ -f "$DIR/small.zip" ] || (cd "$DIR" && zip -qr small.zip small)
if [ ! -f "$DIR/big.csa" ]; then
  "$GEN" "$DIR/gen1m" --games 10000 --repeat 100 --multi-only >/dev/null
  mv "$DIR/gen1m/multi/games.csa" "$DIR/big.csa"
  mv "$DIR/gen1m/multi/games.usi" "$DIR/big.usi"
  rm -rf "$DIR/gen1m"
fi

# One run: wall seconds and peak RSS (KB).
one() {
  /usr/bin/time -o "$DIR/time.txt" -f "%e %M" "$KIFU" validate -q --no-progress "$@" \
    >/dev/null 2>&1 || true
  tail -1 "$DIR/time.txt"
}
median() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }

printf '%-28s %9s %9s %7s %9s\n' input "-j1 s" "-j2 s" ratio "RSS MB"
for input in small small.tar.gz small.zip big.csa big.usi gen20k/files/csa gen20k/files/kifu \
  gen20k/files/kif gen20k/files/ki2 gen20k/files/jkf; do
  [ -e "$DIR/$input" ] || continue
  a=() b=() rss=0
  for _ in $(seq "$RUNS"); do
    read -r w m < <(one -j1 "$DIR/$input"); a+=("$w"); [ "$m" -gt "$rss" ] && rss=$m
    read -r w m < <(one -j2 "$DIR/$input"); b+=("$w"); [ "$m" -gt "$rss" ] && rss=$m
  done
  ma=$(printf '%s\n' "${a[@]}" | median)
  mb=$(printf '%s\n' "${b[@]}" | median)
  awk -v i="$input" -v a="$ma" -v b="$mb" -v r="$rss" \
    'BEGIN { printf "%-28s %9.2f %9.2f %7.2f %9.1f\n", i, a, b, a / b, r / 1024 }'
done
