#!/usr/bin/env python3
"""Times two builds of kifu side by side, A B A B, on the same inputs, and prints medians.

    scripts/bench-ab.py BEFORE_BIN AFTER_BIN [--runs N] [--control COPY_BIN] [--raw FILE]
                        [--] ARGS_SETS...

Each ARGS_SET is one command line after the binary, as a single string, e.g.
    'validate --no-progress -j1 /tmp/corpus/files/csa'
The output of each run is discarded; the exit code must be the same for both builds. For each
command: the median wall seconds of A and of B over N runs each (alternated, each round
starting with the next build, so that the noise of a shared machine falls on both alike) and
the ratio B/A (below 1: B is faster); the same for the CPU time (user + system seconds of all
threads), which the noise of a shared machine moves less.

`--control COPY_BIN` (a byte-identical copy of BEFORE_BIN, e.g. made with `cp`) is the A/A
control: it runs in the same rounds (A B C, B C A, C A B, ...) and its medians and C/A ratios
are printed beside, so the spread the machine alone gives is read off the same minutes as B/A.
`--raw FILE` writes every run's wall and CPU seconds there as JSON, for other statistics.
"""

import json
import os
import shlex
import statistics
import subprocess
import sys
import time


def run(argv):
    """Wall seconds, CPU seconds (user + system, all threads) and the exit code of one run."""
    t = time.perf_counter()
    p = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, status, usage = os.wait4(p.pid, 0)
    wall = time.perf_counter() - t
    return wall, usage.ru_utime + usage.ru_stime, os.waitstatus_to_exitcode(status)


def main():
    args = sys.argv[1:]
    if len(args) < 3:
        sys.exit(__doc__)
    a, b = args[0], args[1]
    rest = args[2:]
    runs = 7
    control = None
    raw_path = None
    while rest[:1] in (["--runs"], ["--control"], ["--raw"]):
        if rest[0] == "--runs":
            runs = int(rest[1])
        elif rest[0] == "--control":
            control = rest[1]
        else:
            raw_path = rest[1]
        rest = rest[2:]
    raw = []
    if rest[:1] == ["--"]:
        rest = rest[1:]
    bins = [a, b] + ([control] if control else [])
    head = "| command | A median s | B median s | B/A | A CPU s | B CPU s | B/A CPU |"
    rule = "|---|---|---|---|---|---|---|"
    if control:
        head += " C median s | C/A | C CPU s | C/A CPU |"
        rule += "---|---|---|---|"
    print(head)
    print(rule)
    for cmd in rest:
        words = shlex.split(cmd)
        wall = [[] for _ in bins]
        cpu = [[] for _ in bins]
        for r in range(runs):
            codes = []
            # Each round starts with the next build, so that none always runs first.
            for k in range(len(bins)):
                i = (r + k) % len(bins)
                t, c, rc = run([bins[i]] + words)
                wall[i].append(t)
                cpu[i].append(c)
                codes.append(rc)
            if len(set(codes)) != 1:
                sys.exit(f"exit codes differ on {cmd!r}: {codes}")
        raw.append({"command": cmd, "bins": bins, "wall": wall, "cpu": cpu})
        if raw_path:
            with open(raw_path, "w") as f:
                json.dump(raw, f)
        mw = [statistics.median(x) for x in wall]
        mc = [statistics.median(x) for x in cpu]
        line = (
            f"| `kifu {cmd}` | {mw[0]:.3f} | {mw[1]:.3f} | {mw[1] / mw[0]:.2f} "
            f"| {mc[0]:.3f} | {mc[1]:.3f} | {mc[1] / mc[0]:.2f} |"
        )
        if control:
            line += (
                f" {mw[2]:.3f} | {mw[2] / mw[0]:.2f} | {mc[2]:.3f} | {mc[2] / mc[0]:.2f} |"
            )
        print(line, flush=True)


if __name__ == "__main__":
    main()
