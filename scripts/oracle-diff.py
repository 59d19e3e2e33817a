#!/usr/bin/env python3
"""Differential check of kifu's rules core against cshogi (an independent C++ engine).

    scripts/oracle-diff.sh [CASES] [SEED]

Plays random games with cshogi, then at a random ply replaces the move with a random
candidate: any source square of the side to move to any square, with or without promotion,
or a drop of any piece kind (biased toward pawn drops next to the enemy king, to reach
nifu and uchifuzume). The game is cut after that move and written as a USI line. kifu
validates all lines (with KIFU_ORACLE_BASE=games.usi from examples/gencorpus.rs, half
the cases start near the end of those mating games instead); for every case the two engines must agree: cshogi finds the last
move legal exactly when kifu reports no rule violation, and kifu's violation is at the last
ply. Also, the earlier moves (all legal) must draw no diagnostic at all.
Exit 1 on any disagreement (the first few are printed).
"""
import json, os, random, subprocess, sys, tempfile
import cshogi

CASES = int(sys.argv[1]) if len(sys.argv) > 1 else 2000
SEED = int(sys.argv[2]) if len(sys.argv) > 2 else 1
KIFU = os.environ.get("KIFU", "target/release/kifu")
rng = random.Random(SEED)
FILES = "987654321"
RANKS = "abcdefghi"
SQUARES = [f + r for f in FILES for r in RANKS]
RULES = {"nifu", "uchifuzume", "dead-piece", "self-check", "bad-promotion", "no-piece",
         "unreachable", "blocked", "capture-own", "drop-occupied", "not-in-hand",
         "piece-mismatch"}


def usi_sq(sq):  # cshogi square index: file-major from 9a? use its own helpers instead
    return cshogi.SQUARE_NAMES[sq]


def candidate(board):
    """A random move text for the side to move: legal or not."""
    turn = board.turn
    if board.pieces_in_hand[turn][0] > 0 and rng.random() < 0.2:
        # a pawn drop right in front of the enemy king: check, often mate
        name = usi_sq(board.king_square(1 - turn))
        r = RANKS.index(name[1]) + (1 if turn == cshogi.BLACK else -1)
        if 0 <= r < 9:
            return f"P*{name[0]}{RANKS[r]}"
    x = rng.random()
    if x < 0.15:
        return cshogi.move_to_usi(rng.choice(list(board.legal_moves)))
    if x < 0.35:
        # pseudo-legal moves: pinned pieces, king steps into check, pawn-drop mates
        pseudo = [cshogi.move_to_usi(m) for m in board.pseudo_legal_moves]
        checks = [m for m in pseudo if m.startswith("P*")]
        if checks and rng.random() < 0.3:
            return rng.choice(checks)
        return rng.choice(pseudo)
    if x < 0.45:
        # a legal move with its promotion flag toggled
        m = cshogi.move_to_usi(rng.choice(list(board.legal_moves)))
        if "*" in m:
            return m
        return m[:-1] if m.endswith("+") else m + "+"
    if x < 0.6:
        kind = rng.choice("PPPPLNSGBR")
        # pawn drops next to (in front of) the enemy king, to hit uchifuzume and nifu
        if kind == "P" and rng.random() < 0.6:
            king = board.king_square(1 - turn)
            name = usi_sq(king)
            f, r = name[0], RANKS.index(name[1])
            r += 1 if turn == cshogi.BLACK else -1
            if 0 <= r < 9:
                return f"P*{f}{RANKS[r]}"
        return f"{kind}*{rng.choice(SQUARES)}"
    own = [usi_sq(sq) for sq in range(81)
           if board.piece(sq) != 0 and (board.piece(sq) < 16) == (turn == cshogi.BLACK)]
    src = rng.choice(own)
    if rng.random() < 0.5:
        # a destination the piece could plausibly reach: near it
        f = FILES.index(src[0]) + rng.randint(-2, 2)
        r = RANKS.index(src[1]) + rng.randint(-2, 2)
        dst = FILES[min(max(f, 0), 8)] + RANKS[min(max(r, 0), 8)]
    else:
        dst = rng.choice(SQUARES)
    return src + dst + ("+" if rng.random() < 0.3 else "")


def base_games():
    """Games that end in mate (from gencorpus' games.usi, if given): positions near their
    end have confined kings, where pawn-drop mates and self-checks are common."""
    path = os.environ.get("KIFU_ORACLE_BASE")
    if not path:
        return []
    games = []
    with open(path) as f:
        for l in f:
            t = l.split()
            if "moves" in t:
                games.append([m for m in t[t.index("moves") + 1:] if m[0] in "123456789PLNSGBR"])
            if len(games) >= 2000:
                break
    return games


def start_from_base(base):
    game = rng.choice(base)
    cut = max(0, len(game) - rng.randint(1, 12))
    board = cshogi.Board()
    for m in game[:cut]:
        board.push_usi(m)
    return board, list(game[:cut])


def main():
    lines, expect = [], []
    base = base_games()
    for _ in range(CASES):
        if base and rng.random() < 0.5:
            board, moves = start_from_base(base)
        else:
            board = cshogi.Board()
            moves = []
            for _ in range(rng.randint(0, 120)):
                legal = list(board.legal_moves)
                if not legal:
                    break
                m = rng.choice(legal)
                moves.append(cshogi.move_to_usi(m))
                board.push(m)
        if board.is_game_over():
            continue
        text = candidate(board)
        legal = text in {cshogi.move_to_usi(m) for m in board.legal_moves}
        moves.append(text)
        lines.append("position startpos moves " + " ".join(moves))
        expect.append((legal, len(moves), text))
    with tempfile.NamedTemporaryFile("w", suffix=".usi", delete=False) as f:
        f.write("\n".join(lines) + "\n")
        path = f.name
    out = subprocess.run([KIFU, "validate", "--format", "json", "--no-progress", path],
                         capture_output=True, text=True)
    os.unlink(path)
    if out.returncode not in (0, 1):
        print("kifu failed:", out.stderr[:2000])
        return 2
    results = {}
    for l in out.stdout.splitlines():
        o = json.loads(l)
        if "game" in o and o["game"] is not None:
            results[o["game"]] = o["diagnostics"]
    bad, codes = [], {}
    for i, (legal, ply, text) in enumerate(expect):
        diags = results.get(i, [])
        rule = [d for d in diags if d["code"] in RULES]
        other = [d for d in diags if d["code"] not in RULES and d["code"] != "move-after-end"]
        ok = (not rule) if legal else (len(rule) >= 1 and rule[0].get("ply") == ply)
        if other or not ok:
            bad.append((i, legal, ply, text, diags))
        for d in rule:
            codes[d["code"]] = codes.get(d["code"], 0) + 1
    illegal = sum(1 for e in expect if not e[0])
    print(f"{len(expect)} cases ({illegal} illegal per cshogi), disagreements: {len(bad)}")
    print("kifu codes on the illegal ones:", json.dumps(dict(sorted(codes.items()))))
    for b in bad[:10]:
        print("  case", b[0], "cshogi legal" if b[1] else "cshogi illegal", "ply", b[2], b[3],
              json.dumps(b[4], ensure_ascii=False)[:300])
        print("   ", lines[b[0]][-200:])
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
