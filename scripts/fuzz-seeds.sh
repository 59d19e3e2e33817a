#!/usr/bin/env bash
# Builds the fuzz seed corpora in fuzz/corpus/TARGET from fixtures/ and, when present,
# ../shared/corpus (real records) and a kept corpus (fuzz/snapshot/TARGET.tar.xz). Seeds are
# derived at run time; only the minimized snapshots are committed.
# Usage: scripts/fuzz-seeds.sh [TARGET...]   (default: every target)
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
shared="$root/../shared/corpus"
targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
    targets=(decode read_kif read_ki2 read_csa read_usi read_usen read_jkf sfen validate roundtrip validate_as_read archive dates time_control)
fi

# Every record file, one per line: fixtures, regression inputs, and the shared corpus.
list_files() {
    find "$root/fixtures" "$root/tests/regressions" -type f 2>/dev/null || true
    if [ -d "$shared" ]; then find "$shared" -type f -size -256k; fi
    true
}

ext_of() { local n=${1,,}; n=${n%.json}; echo "${n##*.}"; }

# Selector byte for the `validate`/`roundtrip` targets (index in Format::ALL).
sel_of() {
    case "$1" in
        kif) echo 0 ;; kifu) echo 1 ;; ki2) echo 2 ;; ki2u) echo 3 ;;
        csa) echo 4 ;; usi | sfen) echo 5 ;; jkf) echo 6 ;; *) echo "" ;;
    esac
}

for t in "${targets[@]}"; do
    dir="fuzz/corpus/$t"
    mkdir -p "$dir"
    while IFS= read -r f; do
        base=$(basename "$f")
        e=$(ext_of "$base")
        [[ "$base" == *.json ]] && e=jkf
        name="$(printf '%s' "$f" | cksum | cut -d' ' -f1)-$base"
        case "$t" in
            decode) cp "$f" "$dir/$name" ;;
            read_kif) [[ $e == kif || $e == kifu ]] && cp "$f" "$dir/$name" ;;
            read_ki2) [[ $e == ki2 || $e == ki2u ]] && cp "$f" "$dir/$name" ;;
            read_csa) [[ $e == csa ]] && cp "$f" "$dir/$name" ;;
            read_usi) [[ $e == usi || $e == sfen ]] && cp "$f" "$dir/$name" ;;
            read_usen) [[ $e == usen ]] && cp "$f" "$dir/$name" ;;
            read_jkf) [[ $e == jkf ]] && cp "$f" "$dir/$name" ;;
            sfen)
                if [[ $e != jkf ]]; then
                    grep -aoE 'sfen [^ ]+ [bw] [^ ]+ [0-9]+' "$f" | sed 's/^sfen //; s/ *$//' | head -50 |
                        while IFS= read -r s; do
                            printf '%s' "$s" >"$dir/$(printf '%s' "$s" | cksum | cut -d' ' -f1)"
                        done || true
                fi
                ;;
            validate_as_read)
                [[ $e == csa ]] && { printf '\x00'; cat "$f"; } >"$dir/$name"
                [[ $e == usi || $e == sfen ]] && { printf '\x01'; cat "$f"; } >"$dir/$name"
                # The selector of tests/common/as_read.rs (check_as_read).
                [[ $e == kif || $e == kifu ]] && { printf '\x02'; cat "$f"; } >"$dir/$name"
                [[ $e == jkf ]] && { printf '\x80'; cat "$f"; } >"$dir/$name"
                [[ $e == ki2 || $e == ki2u ]] && { printf '\x82'; cat "$f"; } >"$dir/$name"
                true
                ;;
            dates)
                # The values of the date lines, each a seed.
                grep -ahoE '(開始日時|終了日時|対局日)：.*|\$(START|END)_TIME:.*' "$f" 2>/dev/null | sed 's/^[^：:]*[：:]//' | head -5 |
                    while IFS= read -r s; do
                        printf '%s' "$s" >"$dir/$(printf '%s' "$s" | cksum | cut -d' ' -f1)"
                    done || true
                ;;
            time_control)
                # The time-control lines of a record, every key present (mask 0xFF).
                lines=$(grep -ahoE '(持ち時間|秒読み|先手持ち時間|後手持ち時間)：.*|\$TIME(_LIMIT|\+|-)?:.*' "$f" 2>/dev/null | sed 's/^[^：:]*[：:]//' | head -9 || true)
                if [ -n "$lines" ]; then { printf '\xff'; printf '%s' "$lines"; } >"$dir/$name"; fi
                ;;
            validate | roundtrip)
                s=$(sel_of "$e")
                if [ -n "$s" ]; then
                    { printf "\\x$(printf '%02x' "$s")"; cat "$f"; } >"$dir/$name"
                fi
                ;;
        esac
    done < <(list_files)
    # Archives (selector byte: kind, see app/tests/common/archive.rs) of each fixtures folder
    # and of small groups of shared-corpus files, as zip, tar and tar.gz.
    if [ "$t" = archive ]; then
        python3 - "$dir" "$root/fixtures" "$shared" <<'PY'
import io, os, sys, tarfile, zipfile, zlib
out, fixtures, shared = sys.argv[1:4]
groups = []
for d, _, files in os.walk(fixtures):
    fs = sorted(os.path.join(d, f) for f in files if not f.endswith(".md"))
    if fs:
        groups.append(fs)
if os.path.isdir(shared):
    small = sorted(os.path.join(d, f) for d, _, fs in os.walk(shared) for f in fs
                   if os.path.getsize(os.path.join(d, f)) < 3000)
    groups += [small[i:i + 3] for i in range(0, min(len(small), 60), 3)]
for n, g in enumerate(groups):
    names = [os.path.relpath(f, os.path.dirname(os.path.dirname(f))) for f in g]
    z = io.BytesIO()
    with zipfile.ZipFile(z, "w", zipfile.ZIP_DEFLATED) as zf:
        for f, name in zip(g, names):
            zf.write(f, name)
    t = io.BytesIO()
    with tarfile.open(fileobj=t, mode="w", format=tarfile.GNU_FORMAT) as tf:
        for f, name in zip(g, names):
            tf.add(f, name)
    tg = io.BytesIO()
    with tarfile.open(fileobj=tg, mode="w:gz") as tf:
        for f, name in zip(g, names):
            tf.add(f, name)
    for sel, data in ((0, z.getvalue()), (1, t.getvalue()), (2, tg.getvalue())):
        if len(data) < 16000:
            with open(os.path.join(out, f"group{n}-{sel}"), "wb") as fh:
                fh.write(bytes([sel]) + data)
PY
    fi
    # The corpus a long run left, when one was kept (fuzz/snapshot/TARGET.tar.xz, made by
    # scripts/fuzz-snapshot.sh): a new machine starts where the last run stopped.
    if [ -f "fuzz/snapshot/$t.tar.xz" ]; then
        tar -xJf "fuzz/snapshot/$t.tar.xz" -C "$dir"
    fi
    # Inputs that once made this target fail.
    for f in "$root"/tests/regressions/"$t"-*; do
        [ -f "$f" ] && cp "$f" "$dir/"
    done
    # The even start position, always.
    [ "$t" = sfen ] && printf 'lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1' >"$dir/startpos"
    echo "$t: $(ls "$dir" | wc -l) seeds"
done
