#!/usr/bin/env bash
# Growth and scaling checks for `kifu validate` (see docs/history/benchmarks-notebook.md).
#
#   scripts/bench-growth.sh [DIR]
#
# In DIR (default ~/.cache/kifu-bench-growth) writes a CSA file of 1,000,000 games (10,000
# distinct random games written 100 times, with examples/gencorpus.rs) and takes the first
# 1k, 10k and 100k games of it. Prints, for each size, the median wall and CPU seconds of
# three one-thread runs, the microseconds per game and the peak RSS; then -j1 against -j2 on
# the 100k file; then one game of growing length (a king shuffle repeated: 5k to 40k plies,
# USI), to show that the time per ply stays flat.
set -euo pipefail
cd "$(dirname "$0")/.."
DIR=${1:-$HOME/.cache/kifu-bench-growth}
mkdir -p "$DIR"
cargo build --release -q --bin kifu --example gencorpus
KIFU=target/release/kifu
if [ ! -f "$DIR/multi/games.csa" ]; then
  target/release/examples/gencorpus "$DIR" --games 10000 --repeat 100 --multi-only
fi
for n in 1000 10000 100000; do
  [ -f "$DIR/g$n.csa" ] || awk -v n="$n" '$0=="/"{c++; if(c==n) exit} {print}' \
    "$DIR/multi/games.csa" > "$DIR/g$n.csa"
done
ln -sf "$DIR/multi/games.csa" "$DIR/g1000000.csa"

# median of three: wall seconds, CPU seconds (user+sys), peak RSS in KB
run3() {
  local ws=() cs=() r=0
  for _ in 1 2 3; do
    /usr/bin/time -o "$DIR/time.txt" -f "%e %U %S %M" "$@" >/dev/null 2>&1 || true
    read -r w u s m < <(tail -1 "$DIR/time.txt")
    ws+=("$w")
    cs+=("$(awk -v u="$u" -v s="$s" 'BEGIN { print u + s }')")
    [ "$m" -gt "$r" ] && r=$m
  done
  echo "$(printf '%s\n' "${ws[@]}" | sort -n | sed -n 2p)" \
    "$(printf '%s\n' "${cs[@]}" | sort -n | sed -n 2p)" "$r"
}

echo "archive size (one thread): games, wall s, CPU s, us/game (CPU), peak RSS MB"
for n in 1000 10000 100000 1000000; do
  if [ "$n" = 1000000 ]; then
    read -r w c r < <(/usr/bin/time -f "%e %U %S %M" $KIFU validate -q -j1 --no-progress \
      "$DIR/g$n.csa" 2>&1 >/dev/null | tail -1 | awk '{print $1, $2+$3, $4}')
  else
    read -r w c r < <(run3 $KIFU validate -q -j1 --no-progress "$DIR/g$n.csa")
  fi
  awk -v n="$n" -v w="$w" -v c="$c" -v r="$r" \
    'BEGIN { printf "  %8d %8.2f %8.2f %8.1f %8.1f\n", n, w, c, c/n*1e6, r/1024 }'
done

echo "threads on 100k games: jobs, wall s (median of 3), CPU s"
for j in 1 2; do
  read -r w c r < <(run3 $KIFU validate -q -j$j --no-progress "$DIR/g100000.csa")
  echo "  -j$j $w $c"
done

echo "one game of growing length (USI, king shuffle): plies, CPU s, ns/ply"
for n in 5000 10000 20000 40000 80000; do
  f="$DIR/shuffle$n.usi"
  [ -f "$f" ] || awk -v n="$n" 'BEGIN { split("5i5h 5a5b 5h5i 5b5a", c, " ");
    printf "startpos moves"; for (i = 0; i < n; i++) printf " %s", c[i % 4 + 1]; print "" }' > "$f"
  read -r w c r < <(run3 $KIFU validate -q -j1 --no-progress "$f")
  awk -v n="$n" -v c="$c" 'BEGIN { printf "  %6d %6.2f %6.0f\n", n, c, c/n*1e9 }'
done
