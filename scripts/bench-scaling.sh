#!/usr/bin/env bash
# Scaling of `kifu validate` with the number of threads (issue #24; see docs/history/benchmarks-notebook.md).
#
#   scripts/bench-scaling.sh [DIR] [RUNS] [--peers]
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
#
# With --peers, the peers then read the inputs they can (cshogi and rsshogi from Python, the
# native rsshogi runner; installed by `scripts/bench-peers.sh --setup`): the small files, the
# 1M-game CSA file and the KIF tree, PEER_RUNS times each (default 1: they take minutes), in
# the same run, with kifu's ratio at -j1 and -j2. None of them reads a zip, a tar.gz or a file
# of USI lines, and none runs on more than one core.
set -euo pipefail
cd "$(dirname "$0")/.."
DIR=${1:-$HOME/.cache/kifu-bench-scaling}
RUNS=${2:-5}
WITH_PEERS=${3:-}
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
declare -A J1 J2
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
  J1[$input]=$ma J2[$input]=$mb
  awk -v i="$input" -v a="$ma" -v b="$mb" -v r="$rss" \
    'BEGIN { printf "%-28s %9.2f %9.2f %7.2f %9.1f\n", i, a, b, a / b, r / 1024 }'
done

[ "$WITH_PEERS" = --peers ] || exit 0
PEERS=${KIFU_PEERS_DIR:-$HOME/.cache/kifu-peers}
scripts/bench-peers.sh --setup
PY="$PEERS/venv/bin/python"
NATIVE="$PEERS/rsshogi-runner/target/release/rsshogi-runner"
# One peer run: wall seconds and peak RSS (KB), or "failed" when it crashed or exited above 0.
peer_one() {
  /usr/bin/time -o "$DIR/time.txt" -f "%e %M %x" "$@" >/dev/null 2>&1 || true
  if grep -q signal "$DIR/time.txt"; then echo failed; return; fi
  local out; out=$(tail -1 "$DIR/time.txt")
  if [ "${out##* }" != 0 ]; then echo failed; return; fi
  echo "${out% *}"
}
echo
printf '%-40s %9s %9s %14s %14s\n' "peer on input" "s" "RSS MB" "peer/kifu -j1" "peer/kifu -j2"
peer() { # input label cmd...
  local input=$1 label=$2 t=() rss=0 w m; shift 2
  [ -e "$DIR/$input" ] && [ -n "${J1[$input]:-}" ] || return 0
  for _ in $(seq "${PEER_RUNS:-1}"); do
    read -r w m < <(peer_one "$@" "$DIR/$input")
    if [ "$w" = failed ]; then printf '%-40s %9s\n' "$label $input" failed; return; fi
    t+=("$w"); [ "$m" -gt "$rss" ] && rss=$m
  done
  w=$(printf '%s\n' "${t[@]}" | median)
  awk -v l="$label $input" -v s="$w" -v r="$rss" -v a="${J1[$input]}" -v b="${J2[$input]}" \
    'BEGIN { printf "%-40s %9.2f %9.1f %14.1f %14.1f\n", l, s, r / 1024, s / a, s / b }'
}
peer small            "cshogi"           "$PY" "$PEERS/cshogi_run.py" csa
peer small            "rsshogi (python)" "$PY" "$PEERS/rsshogi_py_run.py" csa
peer small            "rsshogi (native)" "$NATIVE" csa
peer big.csa          "cshogi"           "$PY" "$PEERS/cshogi_run.py" csa
peer big.csa          "rsshogi (python)" "$PY" "$PEERS/rsshogi_py_run.py" csa-multi
peer big.csa          "rsshogi (native)" "$NATIVE" csa-multi
peer gen20k/files/kif "cshogi"           "$PY" "$PEERS/cshogi_run.py" kif
peer gen20k/files/kif "rsshogi (native)" "$NATIVE" kif
