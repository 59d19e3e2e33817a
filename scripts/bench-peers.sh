#!/usr/bin/env bash
# Side-by-side throughput of `kifu validate` and its peers on one generated corpus.
#
#   scripts/bench-peers.sh [GAMES] [RUNS]
#   scripts/bench-peers.sh --setup        (install the peers and write their runners only)
#
# Installs the peers outside the repository (in $KIFU_PEERS_DIR, default ~/.cache/kifu-peers):
# cshogi and rsshogi from PyPI in a virtualenv, and a small native runner over the rsshogi crate
# from crates.io. Generates GAMES random legal games (default 5000) with
# `examples/gencorpus.rs` into $KIFU_BENCH_CORPUS (default ~/.cache/kifu-bench-corpus), then
# times every tool RUNS times (default 5) on one core and prints the median games/s, MB/s,
# peak RSS and the ratio of kifu to each peer. The peers are oracles for measurement only:
# nothing here is a dependency of the crate.
set -euo pipefail
cd "$(dirname "$0")/.."
SETUP=0
if [ "${1:-}" = --setup ]; then SETUP=1; shift; fi
GAMES=${1:-5000}
RUNS=${2:-5}
PEERS=${KIFU_PEERS_DIR:-$HOME/.cache/kifu-peers}
CORPUS=${KIFU_BENCH_CORPUS:-$HOME/.cache/kifu-bench-corpus}/g$GAMES
mkdir -p "$PEERS"

if [ ! -x "$PEERS/venv/bin/python" ]; then
  python3 -m venv "$PEERS/venv"
  "$PEERS/venv/bin/pip" install -q cshogi rsshogi
fi
RUNNER="$PEERS/rsshogi-runner"
if [ ! -x "$RUNNER/target/release/rsshogi-runner" ]; then
  mkdir -p "$RUNNER/src"
  cat > "$RUNNER/Cargo.toml" <<'TOML'
[package]
name = "rsshogi-runner"
version = "0.0.0"
edition = "2024"
publish = false

[dependencies]
rsshogi = { version = "1.7", features = ["records", "validation"] }

[profile.release]
lto = "thin"
TOML
  cat > "$RUNNER/src/main.rs" <<'RUST'
// Parses (and so replays and checks) every record under a path with the rsshogi crate.
// usage: rsshogi-runner csa|kif|csa-multi PATH
use rsshogi::records::formats::{csa, kif};
fn files(p: &std::path::Path, out: &mut Vec<std::path::PathBuf>) {
    if p.is_dir() {
        let mut v: Vec<_> = std::fs::read_dir(p).unwrap().map(|e| e.unwrap().path()).collect();
        v.sort();
        for e in v { files(&e, out); }
    } else { out.push(p.to_path_buf()); }
}
fn main() {
    let a: Vec<String> = std::env::args().collect();
    let mut list = Vec::new();
    files(std::path::Path::new(&a[2]), &mut list);
    let (mut games, mut moves, mut errors) = (0usize, 0usize, 0usize);
    for f in &list {
        let bytes = std::fs::read(f).unwrap();
        match a[1].as_str() {
            "csa" => match csa::parse_csa_bytes(&bytes) { Ok(r) => { games += 1; moves += r.move_count(); } Err(_) => errors += 1 },
            "kif" => match kif::parse_kif_bytes(&bytes) { Ok(r) => { games += 1; moves += r.move_count(); } Err(_) => errors += 1 },
            _ => match csa::parse_csa_games_bytes(&bytes) { Ok(v) => { games += v.len(); moves += v.iter().map(|r| r.move_count()).sum::<usize>(); } Err(_) => errors += 1 },
        }
    }
    println!("games {games} moves {moves} errors {errors}");
}
RUST
  (cd "$RUNNER" && cargo build --release -q)
fi

PY="$PEERS/venv/bin/python"
cat > "$PEERS/cshogi_run.py" <<'PY'
import sys, os, cshogi
from cshogi import CSA, KIF
kind, path = sys.argv[1], sys.argv[2]
files = sorted(os.path.join(d, f) for d, _, fs in os.walk(path) for f in fs) if os.path.isdir(path) else [path]
games = moves = 0
for f in files:
    if kind == "kif":
        p = KIF.Parser.parse_file(f); games += 1; moves += len(p.moves)
    else:
        for p in CSA.Parser.parse_file(f): games += 1; moves += len(p.moves)
print("games", games, "moves", moves)
PY
cat > "$PEERS/rsshogi_py_run.py" <<'PY'
import sys, os
from rsshogi.record import Record
kind, path = sys.argv[1], sys.argv[2]
files = sorted(os.path.join(d, f) for d, _, fs in os.walk(path) for f in fs) if os.path.isdir(path) else [path]
games = 0
for f in files:
    if kind == "kif": Record.from_kif_file(f); games += 1
    elif kind == "csa": Record.from_csa_file(f); games += 1
    else: games += len(Record.from_csa_games_file(f))
print("games", games)
PY

# `--setup`: the peers installed and their runners written, nothing timed (for
# scripts/bench-scaling.sh).
[ "$SETUP" = 1 ] && exit 0

cargo build --release -q --bin kifu --example gencorpus
KIFU=target/release/kifu
if [ ! -f "$CORPUS/multi/games.csa" ]; then
  target/release/examples/gencorpus "$CORPUS" --games "$GAMES"
fi

# median wall seconds and max RSS of RUNS runs of a command, pinned to one core
# (a run that crashes or exits above 1 prints "failed"; kifu exits 1 when it finds errors)
measure() {
  local times=() rss=0 out
  for _ in $(seq "$RUNS"); do
    /usr/bin/time -o "$PEERS/time.txt" -f "%e %M %x" taskset -c 0 "$@" >/dev/null 2>&1 || true
    if grep -q "signal" "$PEERS/time.txt"; then echo "failed"; return; fi
    out=$(tail -1 "$PEERS/time.txt")
    if [ "${out##* }" -gt 1 ]; then echo "failed"; return; fi
    out=${out% *}
    times+=("${out% *}")
    [ "${out#* }" -gt "$rss" ] && rss=${out#* }
  done
  local med
  med=$(printf '%s\n' "${times[@]}" | sort -n | awk '{a[NR]=$1} END{print a[int((NR+1)/2)]}')
  echo "$med $rss"
}

bytes_of() { du -sb "$1" | cut -f1; }
printf '%-34s %9s %10s %8s %9s\n' "tool / input" "seconds" "games/s" "MB/s" "RSS MB"
row() { # label games path cmd...
  local label=$1 games=$2 path=$3; shift 3
  read -r sec rss < <(measure "$@")
  if [ "$sec" = failed ]; then
    printf '%-34s %9s   (exit status not 0: crashed or refused the input)\n' "$label" failed
    return
  fi
  local mb; mb=$(bytes_of "$path")
  awk -v l="$label" -v s="$sec" -v g="$games" -v b="$mb" -v r="$rss" \
    'BEGIN{ if (s<0.001) s=0.001; printf "%-34s %9.3f %10.0f %8.1f %9.1f\n", l, s, g/s, b/s/1e6, r/1024 }'
  echo "$label $sec" >> "$PEERS/last-run.txt"
}
: > "$PEERS/last-run.txt"
N=$GAMES
row "kifu validate csa files"        "$N" "$CORPUS/files/csa"   $KIFU validate -q -j1 --no-progress "$CORPUS/files/csa"
row "rsshogi (native) csa files"     "$N" "$CORPUS/files/csa"   "$RUNNER/target/release/rsshogi-runner" csa "$CORPUS/files/csa"
row "rsshogi (python) csa files"     "$N" "$CORPUS/files/csa"   "$PY" "$PEERS/rsshogi_py_run.py" csa "$CORPUS/files/csa"
row "cshogi csa files"               "$N" "$CORPUS/files/csa"   "$PY" "$PEERS/cshogi_run.py" csa "$CORPUS/files/csa"
row "kifu validate csa multi"        "$N" "$CORPUS/multi/games.csa" $KIFU validate -q -j1 --no-progress "$CORPUS/multi/games.csa"
row "rsshogi (native) csa multi"     "$N" "$CORPUS/multi/games.csa" "$RUNNER/target/release/rsshogi-runner" csa-multi "$CORPUS/multi/games.csa"
row "cshogi csa multi"               "$N" "$CORPUS/multi/games.csa" "$PY" "$PEERS/cshogi_run.py" csa "$CORPUS/multi/games.csa"
row "kifu validate kif (cp932)"      "$N" "$CORPUS/files/kif"   $KIFU validate -q -j1 --no-progress "$CORPUS/files/kif"
row "kifu validate kifu (utf-8)"     "$N" "$CORPUS/files/kifu"  $KIFU validate -q -j1 --no-progress "$CORPUS/files/kifu"
row "rsshogi (native) kif"           "$N" "$CORPUS/files/kif"   "$RUNNER/target/release/rsshogi-runner" kif "$CORPUS/files/kif"
row "cshogi kif"                     "$N" "$CORPUS/files/kif"   "$PY" "$PEERS/cshogi_run.py" kif "$CORPUS/files/kif"
row "kifu validate ki2"              "$N" "$CORPUS/files/ki2"   $KIFU validate -q -j1 --no-progress "$CORPUS/files/ki2"
row "kifu validate usi multi"        "$N" "$CORPUS/multi/games.usi" $KIFU validate -q -j1 --no-progress "$CORPUS/multi/games.usi"
row "kifu validate jkf"              "$N" "$CORPUS/files/jkf"   $KIFU validate -q -j1 --no-progress "$CORPUS/files/jkf"
# Conversion and statistics (kifu only: the peers neither convert nor summarise); outputs go
# to a scratch directory under $PEERS (each run replaces the files of the one before).
OUT="$PEERS/bench-out"
rm -rf "$OUT"
mkdir -p "$OUT"
row "kifu convert csa multi -> kif"  "$N" "$CORPUS/multi/games.csa" $KIFU convert -q -j1 --no-progress --to kif -o "$OUT/all.kif" "$CORPUS/multi/games.csa"
row "kifu convert csa multi -> jkf"  "$N" "$CORPUS/multi/games.csa" $KIFU convert -q -j1 --no-progress --to jkf -o "$OUT/all.jkf" "$CORPUS/multi/games.csa"
row "kifu convert kif files -> csa"  "$N" "$CORPUS/files/kif"   $KIFU convert -q -j1 --no-progress --to csa -o "$OUT/csa" "$CORPUS/files/kif"
row "kifu stats csa multi"           "$N" "$CORPUS/multi/games.csa" $KIFU stats -q -j1 --no-progress "$CORPUS/multi/games.csa"
rm -rf "$OUT"
row "cat csa files (reading bytes)"  "$N" "$CORPUS/files/csa"   sh -c "cat $CORPUS/files/csa/* > /dev/null"
row "cat csa multi (reading bytes)"  "$N" "$CORPUS/multi/games.csa" cat "$CORPUS/multi/games.csa"

echo
echo "ratios (peer seconds / kifu seconds, same input):"
ratio() {
  awk -v a="$1" -v b="$2" '{ l=$0; sub(/ [^ ]+$/, "", l) } l==a {x=$NF} l==b {y=$NF}
    END { if (x>0 && y>0) printf "  kifu is %6.1fx %s (%s)\n", y/x, b, a }' "$PEERS/last-run.txt"
}
ratio "kifu validate csa files" "rsshogi (native) csa files"
ratio "kifu validate csa files" "cshogi csa files"
ratio "kifu validate csa multi" "rsshogi (native) csa multi"
ratio "kifu validate csa multi" "cshogi csa multi"
ratio "kifu validate kif (cp932)" "rsshogi (native) kif"
ratio "kifu validate kif (cp932)" "cshogi kif"
