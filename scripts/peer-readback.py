#!/usr/bin/env python3
"""Differential check of what `kifu convert` writes: do the other programs read it back?

    scripts/peer-readback.py [ROOT...]

Every record under each ROOT (default: fixtures/ and the shared corpus, ../shared/corpus or
$KIFU_CORPUS) is converted by `kifu convert -o DIR` to every target (kif, kifu, ki2, ki2u, csa,
csa 3.0, usi, jkf). Each output is read back by each peer that reads its format:

    rsshogi (PyPI, its strict readers): KIF, KI2, CSA (several games per file), JKF, and USI
        through Record.from_usi_position (special tokens not allowed);
    cshogi: KIF and CSA, and USI through Board.set_position;
    python-shogi: KIF and CSA (one game per text: a multi-game CSA file is cut at its `/`
        lines first, which it cannot do itself), and USI through Board(sfen) and push_usi.

The start position (board, side to move, hands) and the main line's moves are compared with
kifu's own reading of the source: the plain USI line `kifu convert --to usi` writes for it.
Each game is `read` (the same start and moves), `refused` (the peer raised, found no game, or
found fewer games) or `differing`; only games kifu reads without an error are counted (those
with an error are counted apart). Prints a table per target and peer, the reasons for the
refusals and differences by class, and writes every case to $OUT/report.json.

The peers are installed outside the repository, in a virtualenv at $KIFU_PEERS_VENV (default
/tmp/peers-venv), from PyPI; the outputs go to $OUT (default /tmp/kifu-peer-readback, replaced
each run). kifu is $KIFU (default target/release/kifu). The peers are oracles for measurement
only: nothing here is a dependency of the crate. CPU work: run it under the build lock.
"""
import collections, json, os, re, shutil, subprocess, sys

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
VENV = os.environ.get("KIFU_PEERS_VENV", "/tmp/peers-venv")
OUT = os.environ.get("OUT", "/tmp/kifu-peer-readback")
KIFU = os.environ.get("KIFU", os.path.join(REPO, "target/release/kifu"))
PY = os.path.join(VENV, "bin/python")

if os.path.realpath(sys.prefix) != os.path.realpath(VENV) and not os.environ.get("KIFU_PEERS_IN"):
    if not os.path.exists(PY):
        subprocess.check_call([sys.executable, "-m", "venv", VENV])
        subprocess.check_call([PY, "-m", "pip", "install", "-q", "cshogi", "rsshogi", "python-shogi"])
    os.environ["KIFU_PEERS_IN"] = "1"
    os.execv(PY, [PY, os.path.abspath(__file__)] + sys.argv[1:])

import cshogi  # noqa: E402
import shogi  # noqa: E402
import shogi.CSA  # noqa: E402
import shogi.KIF  # noqa: E402
from cshogi import CSA as CCSA, KIF as CKIF  # noqa: E402
from rsshogi.record import Record  # noqa: E402

# target name, --to, extra flags, encoding of the file
TARGETS = [
    ("kif", "kif", [], "cp932"),
    ("kifu", "kifu", [], "utf-8"),
    ("ki2", "ki2", [], "cp932"),
    ("ki2u", "ki2u", [], "utf-8"),
    ("csa", "csa", [], "utf-8"),
    ("csa3", "csa", ["--csa-version", "3.0"], "utf-8"),
    ("usi", "usi", [], "utf-8"),
    ("jkf", "jkf", [], "utf-8"),
]
STARTPOS = "lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b -"


def norm_sfen(sfen):
    """Board, side to move and hands (counted, in a fixed order); the move number dropped."""
    parts = sfen.split()
    if parts and parts[0] == "startpos":
        parts = STARTPOS.split()
    if len(parts) < 3:
        return sfen
    hands = collections.Counter()
    if parts[2] != "-":
        for n, p in re.findall(r"(\d*)([A-Za-z])", parts[2]):
            hands[p] += int(n or 1)
    return " ".join(parts[:2]) + " " + "".join(f"{hands[p]}{p}" for p in sorted(hands))


def parse_position(line):
    """`position startpos|sfen X moves ...` to (sfen, moves), without a peer."""
    toks = line.split()
    if toks and toks[0] == "position":
        toks = toks[1:]
    if toks[0] == "startpos":
        sfen, rest = STARTPOS + " 1", toks[1:]
    else:
        sfen, rest = " ".join(toks[1:5]), toks[5:]
    moves = rest[1:] if rest and rest[0] == "moves" else []
    return sfen, moves


def rs_games(text, kind):
    if kind == "csa":
        recs = Record.from_csa_games_str(text)
    elif kind == "usi":
        recs = [Record.from_usi_position(l) for l in text.splitlines() if l.strip()]
    else:
        recs = [{"kif": Record.from_kif_str, "ki2": Record.from_ki2_str, "jkf": Record.from_jkf_str}[kind](text)]
    return [(r.init_position_sfen, [m.move.to_usi() for m in r.moves]) for r in recs]


def cs_games(text, kind):
    if kind == "kif":
        p = CKIF.Parser.parse_str(text)
        return [(p.sfen, [cshogi.move_to_usi(m) for m in p.moves])]
    if kind == "csa":
        return [(p.sfen, [cshogi.move_to_usi(m) for m in p.moves]) for p in CCSA.Parser.parse_str(text)]
    out = []
    for line in text.splitlines():
        if not line.strip():
            continue
        b = cshogi.Board()
        b.set_position(line.split(None, 1)[1] if line.startswith("position ") else line)
        start, moves = parse_position(line)
        # set_position plays the moves without a check: replay them, legal ones only.
        b2 = cshogi.Board(start)
        played = []
        for m in moves:
            mv = b2.move_from_usi(m)
            if not mv or not b2.is_legal(mv):
                raise ValueError(f"illegal move {m}")
            b2.push(mv)
            played.append(m)
        if b.sfen().split()[:3] != b2.sfen().split()[:3]:
            raise ValueError("set_position disagrees with the moves replayed")
        out.append((start, played))
    return out


def ps_games(text, kind):
    if kind == "kif":
        return [(d["sfen"], d["moves"]) for d in shogi.KIF.Parser.parse_str(text)]
    if kind == "csa":
        games, cur = [], []
        for line in text.splitlines(keepends=True):
            if line.strip() == "/":
                games.append("".join(cur))
                cur = []
            else:
                cur.append(line)
        games.append("".join(cur))
        out = []
        for g in games:
            out += [(d["sfen"], d["moves"]) for d in shogi.CSA.Parser.parse_str(g)]
        return out
    out = []
    for line in text.splitlines():
        if not line.strip():
            continue
        start, moves = parse_position(line)
        b = shogi.Board(start)
        for m in moves:
            mv = shogi.Move.from_usi(m)
            if not b.is_legal(mv):
                raise ValueError(f"illegal move {m}")
            b.push(mv)
        out.append((start, moves))
    return out


PEERS = {
    "rsshogi": (rs_games, {"kif", "kifu", "ki2", "ki2u", "csa", "csa3", "usi", "jkf"}),
    "cshogi": (cs_games, {"kif", "kifu", "csa", "csa3", "usi"}),
    "python-shogi": (ps_games, {"kif", "kifu", "csa", "csa3", "usi"}),
}
KIND = {"kif": "kif", "kifu": "kif", "ki2": "ki2", "ki2u": "ki2", "csa": "csa", "csa3": "csa", "usi": "usi", "jkf": "jkf"}


def convert(root, name, to, flags):
    out = os.path.join(OUT, os.path.basename(os.path.normpath(root)), name)
    cmd = [KIFU, "convert", "--format", "json", "--no-progress", "--to", to, *flags, "-o", out + "/", root]
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode not in (0, 1):
        sys.exit(f"{' '.join(cmd)}: exit {p.returncode}\n{p.stderr[-2000:]}")
    games = {}
    for line in p.stderr.splitlines():
        v = json.loads(line)
        if "summary" in v or v.get("game") is None:
            continue
        errors = [d["code"] for d in v["diagnostics"] if d["severity"] == "error"]
        games[(v["path"], v["game"])] = (v["output"], errors)
    return games


def outputs_by_file(games):
    """output file -> the (path, game) keys written there, in order."""
    files = collections.defaultdict(list)
    for key in sorted(games, key=lambda k: (k[0], k[1])):
        out = games[key][0]
        if out is not None:
            files[out].append(key)
    return files


def reason(e):
    msg = str(e).splitlines()[0] if str(e) else ""
    msg = re.sub(r"\d+", "N", msg)[:90]
    return f"{type(e).__name__}: {msg}"


def main():
    roots = sys.argv[1:]
    if not roots:
        corpus = os.environ.get("KIFU_CORPUS", os.path.join(REPO, "..", "shared", "corpus"))
        if not os.path.isdir(corpus):
            corpus = "/work/shared/corpus"
        roots = [os.path.join(REPO, "fixtures")] + ([corpus] if os.path.isdir(corpus) else [])
    shutil.rmtree(OUT, ignore_errors=True)
    table = collections.defaultdict(collections.Counter)
    why = collections.defaultdict(collections.Counter)
    cases = []
    for root in roots:
        ref_games = convert(root, "ref-usi", "usi", [])
        ref = {}
        for out, keys in outputs_by_file(ref_games).items():
            with open(out, encoding="utf-8") as f:
                lines = [l for l in f.read().splitlines() if l.strip()]
            for key, line in zip(keys, lines):
                ref[key] = parse_position(line)
        for name, to, flags, enc in TARGETS:
            games = convert(root, name, to, flags)
            for out, keys in outputs_by_file(games).items():
                with open(out, "rb") as f:
                    text = f.read().decode(enc, errors="replace")
                for peer, (read, formats) in PEERS.items():
                    if name not in formats:
                        continue
                    try:
                        got = read(text, KIND[name])
                        err = None
                    except Exception as e:  # noqa: BLE001 - a peer's refusal, whatever it raises
                        got, err = [], reason(e)
                    for i, key in enumerate(keys):
                        if key not in ref:
                            continue
                        clean = not games[key][1]
                        col = (name, peer, "clean" if clean else "with errors")
                        want_start, want_moves = ref[key]
                        if i >= len(got):
                            verdict, detail = "refused", err or "no game read"
                        else:
                            start, moves = got[i]
                            if norm_sfen(start) != norm_sfen(want_start):
                                verdict, detail = "differing", "start position differs"
                            elif moves == want_moves:
                                verdict, detail = "read", None
                            elif moves == want_moves[: len(moves)]:
                                verdict, detail = "differing", "fewer moves (the rest dropped)"
                            elif want_moves == moves[: len(want_moves)]:
                                verdict, detail = "differing", "more moves (a variation or moves after the end taken in)"
                            else:
                                verdict, detail = "differing", "other moves"
                        table[col][verdict] += 1
                        if detail:
                            why[col][f"{verdict}: {detail}"] += 1
                            cases.append({"target": name, "peer": peer, "clean": clean, "output": out,
                                          "path": key[0], "game": key[1], "verdict": verdict, "why": detail})
    os.makedirs(OUT, exist_ok=True)
    with open(os.path.join(OUT, "report.json"), "w") as f:
        json.dump(cases, f, ensure_ascii=False, indent=1)
    print(f"| target | peer | games kifu reads clean: read / refused / differing | games with errors: read / refused / differing |")
    print("|---|---|---|---|")
    for name, *_ in TARGETS:
        for peer, (_, formats) in PEERS.items():
            if name not in formats:
                continue
            c, e = table[(name, peer, "clean")], table[(name, peer, "with errors")]
            print(f"| {name} | {peer} | {c['read']} / {c['refused']} / {c['differing']} | {e['read']} / {e['refused']} / {e['differing']} |")
    print()
    for col in sorted(why):
        print(f"{col[0]} {col[1]} ({col[2]}):")
        for r, n in why[col].most_common():
            print(f"  {n:5} {r}")
    print(f"\ncases: {os.path.join(OUT, 'report.json')}")


if __name__ == "__main__":
    main()
