#!/usr/bin/env python3
"""Where a running fuzzer's newly covered program counters land, and when.

usage: scripts/fuzz-where.py TARGET [N] [ROOT]

Needs a run of scripts/fuzz-run.sh with FUZZ_FLAGS=-print_pcs=1 that is still going: libFuzzer
prints each new PC as a runtime address, and the load base comes from /proc/PID/maps of the
fuzzer. Reads ROOT/fuzz/logs/TARGET.log and .cov (ROOT: the checkout, default `.`), names the
PCs with addr2line and prints how many fell in kifu's own code, in dependencies and in the
standard library, the second of the run when each kind last grew, and the last N of kifu's.
"""
import bisect
import os
import re
import subprocess
import sys

target = sys.argv[1]
n = int(sys.argv[2]) if len(sys.argv) > 2 else 12
root = os.path.abspath(sys.argv[3] if len(sys.argv) > 3 else ".")
log = f"{root}/fuzz/logs/{target}.log"
cov = f"{root}/fuzz/logs/{target}.cov"
triple = subprocess.run(["rustc", "-vV"], capture_output=True, text=True).stdout
triple = re.search(r"host: (\S+)", triple).group(1)
binary = f"{root}/fuzz/target/{triple}/release/{target}"

base = None
for pid in subprocess.run(["pgrep", "-f", f"release/{target} corpus/{target}"],
                          capture_output=True, text=True).stdout.split():
    try:
        with open(f"/proc/{pid}/maps") as maps:
            for line in maps:
                if line.rstrip().endswith(f"release/{target}") and " 00000000 " in line:
                    base = int(line.split("-")[0], 16)
                    break
    except OSError:
        continue
    if base is not None:
        break
if base is None:
    sys.exit(f"no running `{target}` fuzzer: its load base is needed to name the PCs")

pcs = []  # (executions when found, pc)
execs = 0
with open(log, errors="replace") as f:
    for line in f:
        m = re.match(r"#(\d+)", line)
        if m:
            execs = int(m.group(1))
        m = re.search(r"NEW_PC: 0x([0-9a-f]+)", line)
        if m:
            pcs.append((execs, int(m.group(1), 16)))

# Executions to seconds, from the curve fuzz-run.sh writes every 5 s.
curve = []
with open(cov) as f:
    for line in f:
        parts = line.split()
        if len(parts) >= 2 and parts[0].isdigit() and parts[1].isdigit():
            curve.append((int(parts[0]), int(parts[1])))
marks = [e for _, e in curve]


def seconds(e):
    if not curve:
        return 0
    return curve[min(bisect.bisect_left(marks, e), len(curve) - 1)][0]


names = subprocess.run(["addr2line", "-f", "-C", "-e", binary],
                       input="\n".join(hex(pc - base) for _, pc in pcs),
                       capture_output=True, text=True).stdout.splitlines()
kinds = {}
own = []
for i, (e, _) in enumerate(pcs):
    function, place = names[2 * i], names[2 * i + 1]
    if "/.cargo/registry/" in place:
        kind = "deps"
    elif place.startswith("/rustc/"):
        kind = "std"
    elif place.startswith(f"{root}/src/"):
        kind = "kifu"
    elif place.startswith(root):
        kind = "checks"  # the fuzz targets and tests/common
    else:
        kind = "other"
    count = kinds.setdefault(kind, [0, 0])
    count[0] += 1
    count[1] = max(count[1], seconds(e))
    if kind == "kifu":
        own.append((seconds(e), function[:70], place[len(root) + 1:]))

print(f"{len(pcs)} new PCs; the curve ends at {curve[-1][0] if curve else 0} s")
for kind, (count, last) in sorted(kinds.items()):
    print(f"  {kind:7} {count:6}  last at {last} s")
for s, function, place in own[-n:]:
    print(f"  {s:6} s  {function}  {place}")
