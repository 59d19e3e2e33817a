#!/usr/bin/env bash
# Runs two builds of `kifu` over the same inputs and reports every difference in what they print,
# what they write and how they exit. Used to show that a refactoring changes no behaviour.
#
# Usage: scripts/diff-behaviour.sh BEFORE_BIN AFTER_BIN [WORK_DIR]
#
# Inputs: fixtures/, tests/regressions/, ../shared/corpus (when present), the fuzz snapshots
# (fuzz/snapshot/*.tar.xz, each input's first byte choosing the format as in the fuzz targets)
# and a generated corpus (examples/gencorpus, 300 games, every format, multi-game files).
# Commands: `validate --format json`, `validate` (human), `stats --format json`,
# `stats --format csv`, `games` and `positions` (CSV), `find` (a run of moves and a position),
# and `convert --to X -o DIR` for every target X (with `--csa-version 3.0` too), comparing
# stdout, stderr, the exit code and every file written.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
before=$(realpath "$1")
after=$(realpath "$2")
work=${3:-$(mktemp -d)}
mkdir -p "$work/in"

# The input sets, each a directory.
sets=()
sets+=("$root/fixtures")
[ -d "$root/tests/regressions" ] && sets+=("$root/tests/regressions")
if [ -d "$root/../shared/corpus" ]; then
    sets+=("$(realpath "$root/../shared/corpus")")
else
    echo "skip: ../shared/corpus is missing" >&2
fi

exts=(kif kifu ki2 ki2u csa usi jkf)
for snap in "$root"/fuzz/snapshot/*.tar.xz; do
    name=$(basename "$snap" .tar.xz)
    dest="$work/in/snapshot-$name"
    if [ ! -d "$dest" ]; then
        raw="$work/raw-$name"
        mkdir -p "$raw" "$dest"
        tar xJf "$snap" -C "$raw"
        # First byte selects the format (index in Format::ALL), the rest is the file.
        python3 - "$raw" "$dest" <<'EOF'
import os, sys
exts = ["kif", "kifu", "ki2", "ki2u", "csa", "usi", "jkf"]
raw, dest = sys.argv[1], sys.argv[2]
for name in sorted(os.listdir(raw)):
    path = os.path.join(raw, name)
    if not os.path.isfile(path):
        continue
    data = open(path, "rb").read()
    if not data:
        continue
    ext = exts[data[0] % len(exts)]
    open(os.path.join(dest, f"{name}.{ext}"), "wb").write(data[1:])
EOF
    fi
    sets+=("$dest")
done

gen="$work/in/generated"
if [ ! -d "$gen" ]; then
    cargo run --quiet --release --example gencorpus -- "$gen" --games 300 --seed 7 >/dev/null
fi
sets+=("$gen")

# run NAME BIN ARGS...: stdout, stderr and exit code of one command into $work/out/NAME.
run() {
    local tag=$1 bin=$2
    shift 2
    local out="$work/out/$tag"
    mkdir -p "$(dirname "$out")"
    set +e
    (cd "$work/cwd" && "$bin" "$@" >"$out.stdout" 2>"$out.stderr")
    echo $? >"$out.rc"
    set -e
}

mkdir -p "$work/cwd"
differences=0
compare() {
    local tag=$1
    for part in stdout stderr rc; do
        if ! cmp -s "$work/out/before/$tag.$part" "$work/out/after/$tag.$part"; then
            echo "DIFF $tag.$part"
            diff "$work/out/before/$tag.$part" "$work/out/after/$tag.$part" | head -10 || true
            differences=$((differences + 1))
        fi
    done
}

commands=0
for set in "${sets[@]}"; do
    s=$(basename "$set")
    for side in before after; do
        bin=$before
        [ $side = after ] && bin=$after
        run "$side/$s/validate-json" "$bin" validate --no-progress -j2 --format json "$set"
        run "$side/$s/validate-human" "$bin" validate --no-progress -j2 "$set"
        run "$side/$s/stats-json" "$bin" stats --no-progress -j2 --format json "$set"
        run "$side/$s/stats-csv" "$bin" stats --no-progress -j2 --format csv "$set"
        run "$side/$s/games" "$bin" games --no-progress -j2 "$set"
        run "$side/$s/positions" "$bin" positions --no-progress -j2 "$set"
        run "$side/$s/find-moves" "$bin" find --no-progress -j2 --format json --moves "7g7f 3c3d" "$set"
        run "$side/$s/find-sfen" "$bin" find --no-progress -j2 --format json \
            --sfen "lnsgkgsnl/1r5b1/pppppp1pp/6p2/9/2P6/PP1PPPPPP/1B5R1/LNSGKGSNL b - 3" "$set"
        for x in "${exts[@]}" csa3 usen; do
            to=$x
            extra=()
            if [ "$x" = csa3 ]; then to=csa; extra=(--csa-version 3.0); fi
            # Both builds write to the same directory (paths appear in their messages); each
            # tree is then moved aside for the comparison.
            dir="$work/conv/current/$s/$x"
            keep="$work/conv/$side/$s/$x"
            rm -rf "$dir" "$keep"
            run "$side/$s/convert-$x" "$bin" convert --no-progress -j2 --to "$to" "${extra[@]}" -o "$dir" "$set"
            mkdir -p "$(dirname "$keep")"
            if [ -e "$dir" ]; then mv "$dir" "$keep"; else mkdir -p "$keep"; fi
        done
    done
    for c in validate-json validate-human stats-json stats-csv games positions find-moves find-sfen; do
        compare "$s/$c"
        commands=$((commands + 1))
    done
    for x in "${exts[@]}" csa3 usen; do
        compare "$s/convert-$x"
        commands=$((commands + 1))
        if ! diff -r -q "$work/conv/before/$s/$x" "$work/conv/after/$s/$x" >/dev/null 2>&1; then
            echo "DIFF $s/convert-$x output tree"
            diff -r -q "$work/conv/before/$s/$x" "$work/conv/after/$s/$x" | head -10 || true
            differences=$((differences + 1))
        fi
    done
    files=$(find "$set" -type f | wc -l)
    echo "$s: $files files, checked"
done
echo "$commands commands over ${#sets[@]} input sets: $differences differences"
[ "$differences" -eq 0 ]
