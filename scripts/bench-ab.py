#!/usr/bin/env python3
"""Times two builds of kifu side by side, A B A B, on the same inputs, and prints medians.

    scripts/bench-ab.py BEFORE_BIN AFTER_BIN [--runs N] [--jobs J] [--] ARGS_SETS...

Each ARGS_SET is one command line after the binary, as a single string, e.g.
    'validate --no-progress -j1 /tmp/corpus/files/csa'
The output of each run is discarded; the exit code must be the same for both builds. For each
command: the median wall seconds of A and of B over N runs each (alternated, so that the noise
of a shared machine falls on both alike) and the ratio B/A (below 1: B is faster); the same for the CPU time (user + system
seconds of all threads), which the noise of a shared machine moves less.
"""

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
    if rest[:1] == ["--runs"]:
        runs = int(rest[1])
        rest = rest[2:]
    if rest[:1] == ["--"]:
        rest = rest[1:]
    print("| command | A median s | B median s | B/A | A CPU s | B CPU s | B/A CPU |")
    print("|---|---|---|---|---|---|---|")
    for cmd in rest:
        words = shlex.split(cmd)
        ta, tb, ca, cb = [], [], [], []
        for _ in range(runs):
            t, c, rc_a = run([a] + words)
            ta.append(t)
            ca.append(c)
            t, c, rc_b = run([b] + words)
            tb.append(t)
            cb.append(c)
            if rc_a != rc_b:
                sys.exit(f"exit codes differ on {cmd!r}: {rc_a} and {rc_b}")
        ma, mb = statistics.median(ta), statistics.median(tb)
        na, nb = statistics.median(ca), statistics.median(cb)
        print(
            f"| `kifu {cmd}` | {ma:.3f} | {mb:.3f} | {mb / ma:.2f} "
            f"| {na:.3f} | {nb:.3f} | {nb / na:.2f} |",
            flush=True,
        )

if __name__ == "__main__":
    main()
