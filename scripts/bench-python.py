#!/usr/bin/env python3
"""Side-by-side speed of the kifu Python package and its peers, from Python, on one corpus.

    ~/.cache/kifu-peers/venv/bin/python scripts/bench-python.py [--games N] [--table-games M]
        [--runs R] [--corpus DIR] [--install]

Run it with the peers' virtualenv (scripts/bench-peers.sh makes it: cshogi and rsshogi; this
script adds python-shogi and pyarrow there if missing). `--install` builds kifu's wheel in release mode
(`maturin build --release`, maturin from pip into the same virtualenv) and installs it there.
The corpus is `examples/gencorpus.rs` output (`files/csa/*.csa`, `files/kif/*.kif` in CP932),
made if absent with `cargo run --release --example gencorpus -- DIR --games M`.

What is timed, in one run, on the same files (median of R runs, the tools of a task timed in
turns so that a change of load weighs on all alike; python-shogi, much slower, once on a
subset, given per game):

1. reading + checking every move, CSA and KIF, N files (default 2000):
   kifu.iter_games over the directory (all cores) and with jobs=1; one kifu.read call per file;
   kifu.validate over the directory (reports, no Game objects);
   cshogi's loop (Parser.parse_file, then every move checked with Board.is_legal and pushed);
   cshogi's parse_file alone; rsshogi's Record.from_csa_file / from_kif_file (which replay and
   check); python-shogi's parser and Board.is_legal/push.
2. a positions table (SFEN, move, result) for M games (default 10,000, CSA):
   kifu.positions_table (a pyarrow.Table of every column, through Arrow's C stream interface),
   the same table of the loop's three columns only (columns=["sfen", "move", "result"]),
   kifu.positions_batches (the same, a batch at a time), and iter_games with Game.sfens() into
   lists, against the cshogi loop engine trainers write (parse_file, then board.sfen(),
   move_to_usi and push per move, into lists).

Two kifu runs are there for the floors printed last: kifu.validate(dir, jobs=1) and the
three-column table with jobs=1, the least work kifu does for each task, on one thread. Their
CPU time over the cores is the best wall time any sharing of that work over the cores could
reach: the most the task's speed-up can be until the work itself gets cheaper. For reading,
a second floor takes kifu.iter_games(dir, jobs=1) instead, whose CPU includes the Game objects
(and their `moves` lists) that the task hands to Python.

Prints one table (seconds, games/s, kifu's speed-up) for docs/history/benchmarks-notebook.md, with each tool's
median CPU seconds: the whole process's (every thread: the batch workers, the reader, the
table's thread) and the calling Python thread's alone. CPU near wall time means one core's worth
was used; the load average is printed before and after. Nothing here is a dependency of the
crate or of the package.
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Callable

ROOT = Path(__file__).resolve().parents[1]

# The least work kifu can do for a task, on one thread: its CPU time over the machine's cores
# is the best wall time any use of those cores could give (the "floor" lines of the summary).
FLOOR_READ = "kifu.validate(dir, jobs=1) (floor)"
FLOOR_TABLE = "kifu.positions_table(jobs=1, 3 columns) (floor)"


def ensure_packages(install: bool) -> None:
    py = sys.executable
    try:
        import shogi  # noqa: F401
    except ImportError:
        subprocess.run([py, "-m", "pip", "install", "-q", "python-shogi"], check=True)
    try:
        import pyarrow  # noqa: F401  (kifu's tables)
    except ImportError:
        subprocess.run([py, "-m", "pip", "install", "-q", "pyarrow"], check=True)
    if install:
        subprocess.run([py, "-m", "pip", "install", "-q", "maturin"], check=True)
        out = Path(tempfile.mkdtemp(prefix="kifu-wheel-"))
        subprocess.run(
            [py, "-m", "maturin", "build", "--release", "-q", "-o", str(out)],
            cwd=ROOT / "python",
            check=True,
        )
        wheel = next(out.glob("kifu-*.whl"))
        subprocess.run([py, "-m", "pip", "install", "-q", "--force-reinstall", str(wheel)], check=True)


def corpus(dir_: Path, games: int) -> Path:
    if not (dir_ / "files" / "csa").is_dir():
        subprocess.run(
            ["cargo", "run", "--release", "--example", "gencorpus", "--", str(dir_), "--games", str(games)],
            cwd=ROOT,
            check=True,
        )
    return dir_


def subset(src: Path, n: int, work: Path) -> tuple[Path, list[str]]:
    """A directory holding the first n files of src (hard links, or copies)."""
    files = sorted(os.listdir(src))[:n]
    dst = work / f"{src.name}-{n}"
    if not dst.exists():
        dst.mkdir(parents=True)
        for f in files:
            try:
                os.link(src / f, dst / f)
            except OSError:
                shutil.copy(src / f, dst / f)
    return dst, [str(dst / f) for f in files]


def cshogi_readable(files: list[str], kind: str, work: Path) -> list[str]:
    """The files cshogi's parser reads without crashing the interpreter: cshogi 1.1's KIF
    parser dies with a segmentation fault on some valid records (about 1 in 40 of the generated
    KIF games), so every tool is timed on the files it survives. Found once in child processes
    (restarted after each crash) and cached beside the corpus subset."""
    cache = work / f"cshogi-ok-{kind}-{len(files)}.txt"
    if cache.exists():
        return cache.read_text().split("\n")
    bad: set[str] = set()
    rest = list(files)
    code = (
        "import sys, cshogi.CSA, cshogi.KIF\n"
        "for f in sys.stdin.read().split('\\n'):\n"
        "    print(f, flush=True)\n"
        f"    cshogi.{'CSA' if kind == 'csa' else 'KIF'}.Parser.parse_file(f)\n"
        "print('', flush=True)\n"
    )
    while rest:
        r = subprocess.run([sys.executable, "-c", code], input="\n".join(rest), capture_output=True, text=True)
        seen = [x for x in r.stdout.split("\n") if x]
        if r.returncode == 0:
            break
        last = seen[-1] if seen else rest[0]
        bad.add(last)
        rest = rest[rest.index(last) + 1 :]
    ok = [f for f in files if f not in bad]
    cache.write_text("\n".join(ok))
    if bad:
        print(f"  cshogi crashes on {len(bad)} of {len(files)} {kind.upper()} files; every tool is timed on the other {len(ok)}")
    return ok


def subset_of(d: Path, files: list[str], work: Path) -> tuple[Path, list[str]]:
    """A directory holding just `files` (hard links), for the tools that take a directory."""
    dst = work / f"{d.name}-readable-{len(files)}"
    if not dst.exists():
        dst.mkdir(parents=True)
        for f in files:
            try:
                os.link(f, dst / Path(f).name)
            except OSError:
                shutil.copy(f, dst / Path(f).name)
    return dst, [str(dst / Path(f).name) for f in files]


# --- reading and checking -------------------------------------------------------------------


def kifu_iter(d: Path, jobs: int | None = None) -> Callable[[], tuple[int, int]]:
    import kifu

    def run() -> tuple[int, int]:
        g = m = 0
        for game in kifu.iter_games(d, jobs=jobs):
            g += 1
            m += len(game.moves)
        return g, m

    return run


def kifu_validate(d: Path, jobs: int | None = None) -> Callable[[], tuple[int, int]]:
    import kifu

    def run() -> tuple[int, int]:
        g = m = 0
        for r in kifu.validate(d, jobs=jobs):
            if r.game is not None:
                g += 1
                m += r.plies
        return g, m

    return run


def kifu_read(files: list[str]) -> Callable[[], tuple[int, int]]:
    import kifu

    def run() -> tuple[int, int]:
        g = m = 0
        for f in files:
            for game in kifu.read(f):
                g += 1
                m += len(game.moves)
        return g, m

    return run


def cshogi_parse(files: list[str], kind: str) -> Callable[[], tuple[int, int]]:
    import cshogi.CSA
    import cshogi.KIF

    def run() -> tuple[int, int]:
        g = m = 0
        for f in files:
            if kind == "csa":
                for p in cshogi.CSA.Parser.parse_file(f):
                    g += 1
                    m += len(p.moves)
            else:
                p = cshogi.KIF.Parser.parse_file(f)
                g += 1
                m += len(p.moves)
        return g, m

    return run


def cshogi_loop(files: list[str], kind: str) -> Callable[[], tuple[int, int]]:
    import cshogi
    import cshogi.CSA
    import cshogi.KIF

    def run() -> tuple[int, int]:
        g = m = 0
        board = cshogi.Board()
        for f in files:
            parsers = cshogi.CSA.Parser.parse_file(f) if kind == "csa" else [cshogi.KIF.Parser.parse_file(f)]
            for p in parsers:
                g += 1
                board.set_sfen(p.sfen)
                for mv in p.moves:
                    if not board.is_legal(mv):
                        break
                    board.push(mv)
                    m += 1
        return g, m

    return run


def rsshogi_read(files: list[str], kind: str) -> Callable[[], tuple[int, int]]:
    from rsshogi.record import Record

    read = Record.from_csa_file if kind == "csa" else Record.from_kif_file

    def run() -> tuple[int, int]:
        g = m = 0
        for f in files:
            r = read(f)
            g += 1
            m += len(r.moves)
        return g, m

    return run


def python_shogi(files: list[str], kind: str) -> Callable[[], tuple[int, int]]:
    import shogi
    import shogi.CSA
    import shogi.KIF

    def run() -> tuple[int, int]:
        g = m = 0
        for f in files:
            parsed = shogi.CSA.Parser.parse_file(f) if kind == "csa" else shogi.KIF.Parser.parse_file(f)
            for p in parsed:
                g += 1
                board = shogi.Board(p["sfen"])
                for u in p["moves"]:
                    mv = shogi.Move.from_usi(u)
                    if not board.is_legal(mv):
                        break
                    board.push(mv)
                    m += 1
        return g, m

    return run


# --- positions table ------------------------------------------------------------------------


def kifu_table(d: Path, columns: list[str] | None = None, jobs: int | None = None) -> Callable[[], tuple[int, int]]:
    """The positions table (game key, ply, SFEN, move, result and the rest of its columns, or
    only `columns`) as one pyarrow.Table, made in Rust and handed over through Arrow's C
    stream interface."""
    import kifu

    def run() -> tuple[int, int]:
        t = kifu.positions_table(d, columns=columns, jobs=jobs)
        return -1, t.num_rows

    return run


def kifu_batches(d: Path) -> Callable[[], tuple[int, int]]:
    """The same table read a record batch at a time (memory flat), each batch dropped."""
    import kifu

    def run() -> tuple[int, int]:
        return -1, sum(b.num_rows for b in kifu.positions_batches(d))

    return run


def kifu_sfens(d: Path) -> Callable[[], tuple[int, int]]:
    """SFEN, move and result through Game objects: iter_games and Game.sfens() into lists."""
    import kifu

    def run() -> tuple[int, int]:
        sfens: list[str] = []
        moves: list[str] = []
        results: list[str | None] = []
        g = 0
        for game in kifu.iter_games(d):
            g += 1
            mv = game.moves
            sfens.extend(game.sfens()[: len(mv)])
            moves.extend(mv)
            results.extend([game.winner] * len(mv))
        return g, len(sfens)

    return run


def cshogi_table(files: list[str]) -> Callable[[], tuple[int, int]]:
    import cshogi
    import cshogi.CSA

    def run() -> tuple[int, int]:
        sfens: list[str] = []
        moves: list[str] = []
        results: list[int] = []
        g = 0
        board = cshogi.Board()
        for f in files:
            for p in cshogi.CSA.Parser.parse_file(f):
                g += 1
                board.set_sfen(p.sfen)
                for mv in p.moves:
                    sfens.append(board.sfen())
                    moves.append(cshogi.move_to_usi(mv))
                    results.append(p.win)
                    board.push(mv)
        return g, len(sfens)

    return run


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--games", type=int, default=2000)
    ap.add_argument("--table-games", type=int, default=10000)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--slow-games", type=int, default=200, help="files for python-shogi")
    ap.add_argument("--corpus", type=Path, default=Path(os.environ.get("KIFU_BENCH_CORPUS", Path.home() / ".cache/kifu-bench-corpus")) / "py")
    ap.add_argument("--install", action="store_true", help="build kifu's release wheel and install it here")
    a = ap.parse_args()
    ensure_packages(a.install)
    import kifu

    src = corpus(a.corpus, max(a.games, a.table_games))
    work = Path(tempfile.gettempdir()) / "kifu-bench-python"
    rows: list[tuple[str, str, float, int, int]] = []
    cpu_of: dict[tuple[str, str], float] = {}

    def report(task: str, tool: str, times: list[float], g: int, m: int, cpu: str = "") -> None:
        t = statistics.median(times)
        rows.append((task, tool, t, g, m))
        if g >= 0:
            print(f"  {task:<22} {tool:<34} {t:8.3f} s  {g / t:10.0f} games/s  ({g} games, {m} moves){cpu}", flush=True)
        else:  # a table: rows only
            print(f"  {task:<22} {tool:<34} {t:8.3f} s  {m / t:10.0f} rows/s   ({m} rows){cpu}", flush=True)

    def process_cpu() -> float:
        r = resource.getrusage(resource.RUSAGE_SELF)
        return r.ru_utime + r.ru_stime

    def interleaved(task: str, tools: list[tuple[str, Callable[[], tuple[int, int]]]]) -> None:
        """Times the tools of one task in turns, run after run (A B C A B C ...), so that
        the load of a shared machine moving during the task weighs on all of them alike."""
        times: dict[str, list[float]] = {name: [] for name, _ in tools}
        cpus: dict[str, list[float]] = {name: [] for name, _ in tools}
        pys: dict[str, list[float]] = {name: [] for name, _ in tools}
        counts: dict[str, tuple[int, int]] = {}
        for _ in range(a.runs):
            for name, fn in tools:
                c0, p0 = process_cpu(), time.thread_time()
                t0 = time.perf_counter()
                counts[name] = fn()
                times[name].append(time.perf_counter() - t0)
                cpus[name].append(process_cpu() - c0)
                pys[name].append(time.thread_time() - p0)
        for name, _ in tools:
            cpu_of[(task, name)] = statistics.median(cpus[name])
            cpu = f"  cpu {statistics.median(cpus[name]):.3f} s, Python thread {statistics.median(pys[name]):.3f} s"
            report(task, name, times[name], *counts[name], cpu=cpu)

    print(f"kifu {kifu.__version__} from {Path(kifu.__file__).parent}; {os.cpu_count()} cores; median of {a.runs}, tools in turns")
    print("load average at the start: {:.2f} {:.2f} {:.2f}".format(*os.getloadavg()))
    for kind in ("csa", "kif"):
        d, files = subset(src / "files" / kind, a.games, work)
        ok = cshogi_readable(files, kind, work)
        if len(ok) < len(files):
            d, files = subset_of(d, ok, work)
        task = f"read+check {kind.upper()} x{len(files)}"
        interleaved(
            task,
            [
                ("kifu.iter_games(dir)", kifu_iter(d)),
                ("kifu.iter_games(dir, jobs=1)", kifu_iter(d, jobs=1)),
                ("kifu.read per file", kifu_read(files)),
                ("kifu.validate(dir) (reports only)", kifu_validate(d)),
                (FLOOR_READ, kifu_validate(d, jobs=1)),
                ("cshogi loop (parse + is_legal/push)", cshogi_loop(files, kind)),
                ("cshogi parse_file per file", cshogi_parse(files, kind)),
                ("rsshogi Record.from_*_file", rsshogi_read(files, kind)),
            ],
        )
        slow = files[: a.slow_games]
        t0 = time.perf_counter()
        g, m = python_shogi(slow, kind)()
        report(task, f"python-shogi (first {len(slow)})", [time.perf_counter() - t0], g, m)
    d, files = subset(src / "files" / "csa", a.table_games, work)
    task = f"positions table x{len(files)}"
    name = "kifu.positions_table"
    # The three columns the cshogi loop makes.
    trio = "kifu.positions_table(columns=sfen,move,result)"
    interleaved(
        task,
        [
            (name, kifu_table(d)),
            (trio, kifu_table(d, ["sfen", "move", "result"])),
            (FLOOR_TABLE, kifu_table(d, ["sfen", "move", "result"], jobs=1)),
            ("kifu.positions_batches (streamed)", kifu_batches(d)),
            ("kifu.iter_games + Game.sfens()", kifu_sfens(d)),
            ("cshogi loop (sfen + push)", cshogi_table(files)),
        ],
    )

    print("load average at the end: {:.2f} {:.2f} {:.2f}".format(*os.getloadavg()))
    print("\nspeed-ups (games/s of kifu over games/s of the peer):")
    floors: list[tuple[str, float, float, int]] = []
    by = {(t, tool): (s, g, m) for t, tool, s, g, m in rows}

    def rate(t: str, tool: str) -> float:
        s, g, m = by[(t, tool)]
        return (g if g > 0 else m) / s

    for kind in ("CSA", "KIF"):
        t = next(x for x, *_ in rows if x.startswith(f"read+check {kind}"))
        it = rate(t, "kifu.iter_games(dir)")
        rd = rate(t, "kifu.read per file")
        loop = rate(t, "cshogi loop (parse + is_legal/push)")
        parse = rate(t, "cshogi parse_file per file")
        rs = rate(t, "rsshogi Record.from_*_file")
        ps = next(rate(t, tool) for x, tool, *_ in rows if x == t and tool.startswith("python-shogi"))
        print(f"  {kind}: iter_games / cshogi loop {it / loop:6.1f}x   read per file / cshogi parse_file {rd / parse:6.1f}x   "
              f"iter_games / rsshogi {it / rs:6.1f}x   iter_games / python-shogi {it / ps:8.1f}x")
        loop_t = by[(t, "cshogi loop (parse + is_legal/push)")][0]
        floors.append((f"{kind} iter_games", cpu_of[(t, FLOOR_READ)], loop_t, 10))
        # The same with the Game objects the task hands to Python (made on the calling thread).
        floors.append((f"{kind} + Game objects", cpu_of[(t, "kifu.iter_games(dir, jobs=1)")], loop_t, 10))
    t = next(x for x, *_ in rows if x.startswith("positions table"))
    kt = by[(t, name)]
    ct = by[(t, "cshogi loop (sfen + push)")]
    bt = by[(t, "kifu.positions_batches (streamed)")]
    st = by[(t, "kifu.iter_games + Game.sfens()")]
    tt = by[(t, trio)]
    print(f"  positions table: {name} / cshogi loop {ct[0] / kt[0]:6.1f}x   the same, columns sfen, move, result "
          f"{ct[0] / tt[0]:6.1f}x   positions_batches / cshogi loop {ct[0] / bt[0]:6.1f}x   "
          f"iter_games + sfens() / cshogi loop {ct[0] / st[0]:6.1f}x (time ratios)")
    floors.append(("positions table", cpu_of[(t, FLOOR_TABLE)], ct[0], 20))
    cores = os.cpu_count() or 1
    print(f"\nfloors: the least CPU kifu spends on the task (one thread; no Game objects, then with them) over")
    print(f"{cores} cores, the best wall time any sharing of the work could give, against the cshogi loop:")
    for what, cpu, peer, target in floors:
        print(f"  {what:<20} {cpu:.3f} s CPU / {cores} = {cpu / cores:.3f} s: at most {peer / (cpu / cores):5.1f}x "
              f"the cshogi loop ({peer:.3f} s); the target {target}x needs {peer / target:.3f} s")


if __name__ == "__main__":
    main()
