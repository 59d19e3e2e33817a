#!/usr/bin/env bash
# Keeps a fuzz corpus across machines: minimizes fuzz/corpus/TARGET with libFuzzer's merge
# (the smallest set of inputs with the same coverage) and writes fuzz/snapshot/TARGET.tar.xz,
# which scripts/fuzz-seeds.sh unpacks into the corpus of the next run.
# Usage: scripts/fuzz-snapshot.sh TARGET...   (after a run; the targets must be built)
set -euo pipefail
cd "$(dirname "$0")/../fuzz"
. ../scripts/fuzz-limits.sh
triple=$(rustc -vV | sed -n 's/^host: //p')
mkdir -p snapshot
for t in "$@"; do
    min=$(mktemp -d)
    "target/$triple/release/$t" -merge=1 "${FUZZ_LIMITS[@]}" \
        "$min" "corpus/$t" >"logs/$t.merge.log" 2>&1
    # Sorted names and fixed metadata: the same corpus gives the same archive.
    tar -C "$min" --sort=name --owner=0 --group=0 --numeric-owner --mtime=@0 -cf - . |
        xz -9 -T1 >"snapshot/$t.tar.xz.tmp"
    mv "snapshot/$t.tar.xz.tmp" "snapshot/$t.tar.xz"
    echo "$t: $(ls "corpus/$t" | wc -l) inputs -> $(ls "$min" | wc -l) kept, $(wc -c <"snapshot/$t.tar.xz") bytes"
    rm -rf "$min"
done
