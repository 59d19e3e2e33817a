#!/usr/bin/env python3
"""Times two builds of kifu side by side, A B A B, on the same inputs, and prints medians.

    scripts/bench-ab.py BEFORE_BIN AFTER_BIN [--runs N] [--jobs J] [--] ARGS_SETS...

Each ARGS_SET is one command line after the binary, as a single string, e.g.
    'validate --no-progress -j1 /tmp/corpus/files/csa'
The output of each run is discarded; the exit code must be the same for both builds. For each
command: the median wall seconds of A and of B over N runs each (alternated, so that the noise
of a shared machine falls on both alike) and the ratio B/A (below 1: B is faster).
"""

import shlex
import statistics
import subprocess
import sys
import time


def run(argv):
    t = time.perf_counter()
    p = subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return time.perf_counter() - t, p.returncode


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
    print(f"| command | A median s | B median s | B/A |")
    print(f"|---|---|---|---|")
    for cmd in rest:
        words = shlex.split(cmd)
        ta, tb = [], []
        for _ in range(runs):
            t, rc_a = run([a] + words)
            ta.append(t)
            t, rc_b = run([b] + words)
            tb.append(t)
            if rc_a != rc_b:
                sys.exit(f"exit codes differ on {cmd!r}: {rc_a} and {rc_b}")
        ma, mb = statistics.median(ta), statistics.median(tb)
        print(f"| `kifu {cmd}` | {ma:.3f} | {mb:.3f} | {mb / ma:.2f} |", flush=True)


if __name__ == "__main__":
    main()
