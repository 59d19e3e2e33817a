"""Junk from Python: random bytes, mutated records, random SFEN and USI text. Every call
either returns or raises one of kifu's exceptions (or ValueError/IndexError); a Rust panic
would surface as pyo3_runtime.PanicException, a BaseException these tests do not catch."""

from __future__ import annotations

import os
import random
from pathlib import Path

import pytest

import kifu

from conftest import FIXTURES

FORMATS = [None, "kif", "kifu", "ki2", "ki2u", "csa", "usi", "jkf"]
SEEDS = [f for f in sorted(FIXTURES.rglob("*")) if f.is_file() and f.suffix != ".md"]


def exercise(game: kifu.Game) -> None:
    """Every accessor and writer of a game."""
    _ = (game.header, game.start_sfen, game.moves, game.result, game.winner, game.comments)
    _ = (game.times, game.total_times, game.variations, game.black, game.white, repr(game))
    r = game.validate(allow=["nifu"], deny=["lossy"])
    _ = (r.codes, r.errors, r.warnings, [repr(d) for d in r.diagnostics])
    for fmt in ("kif", "ki2", "csa", "usi", "jkf"):
        game.to(fmt)
    game.to_csa(v3=True)
    game.to_usi(endings=True)
    try:
        for ply in range(len(game.moves) + 1):
            game.sfen_at(ply)
        assert len(game.sfens()) == len(game.moves) + 1
        p = game.position_at(-1)
        p.legal_moves()
        p.is_mate()
    except kifu.ParseError as e:
        assert e.code == "bad-position"


def parse_any(data: bytes | str, fmt: str | None) -> None:
    try:
        games = kifu.parse(data, format=fmt)
    except kifu.ParseError as e:
        assert e.code in kifu.codes()
        assert isinstance(e.message, str)
        return
    for g in games:
        exercise(g)


def mutate(rng: random.Random, data: bytes) -> bytes:
    b = bytearray(data)
    for _ in range(rng.randint(1, 8)):
        op = rng.randrange(5)
        i = rng.randrange(len(b) + 1)
        if op == 0 and b:
            b[min(i, len(b) - 1)] = rng.randrange(256)
        elif op == 1:
            b[i:i] = bytes(rng.randrange(256) for _ in range(rng.randint(1, 6)))
        elif op == 2:
            del b[i : i + rng.randint(1, 20)]
        elif op == 3:
            j = rng.randrange(len(b) + 1)
            b[i:i] = b[j : j + rng.randint(1, 40)]
        else:
            b[i:i] = rng.choice([b"\r", b"\n", b"\x00", "同".encode(), b"%", b"/", b"+", b"*", b"{", b"\xef\xbb\xbf"])
    return bytes(b)


def test_random_bytes() -> None:
    rng = random.Random(22)
    for _ in range(300):
        data = bytes(rng.randrange(256) for _ in range(rng.randint(0, 300)))
        parse_any(data, rng.choice(FORMATS))


@pytest.mark.parametrize("seed", SEEDS, ids=lambda p: p.name)
def test_mutated_fixtures(seed: Path) -> None:
    rng = random.Random(seed.name)
    data = seed.read_bytes()
    for _ in range(25):
        parse_any(mutate(rng, data), rng.choice([None, None, seed.suffix[1:]] if seed.suffix[1:] in FORMATS else [None]))


def test_text_junk() -> None:
    rng = random.Random(7)
    alphabet = "+-0123456789PLNSGBRKFUKYKEGIKIKAHITOOUNYNKNGUMRY%/:' \n\t,T同歩成不打▲△手数投了まで\u3000{}[]\"'"
    for _ in range(300):
        text = "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 200)))
        parse_any(text, rng.choice(FORMATS))
    for text in ["\x00" * 1000, "\ud7ff" * 50, "x" * 200_000, "/\n" * 10_000, "P" * 5000 + "\n"]:
        parse_any(text, None)


def test_huge_and_odd_inputs() -> None:
    # A very long USI line, a game of many moves back and forth.
    moves = " ".join(["5i4h", "5a4b", "4h5i", "4b5a"] * 2000)
    [g] = kifu.parse(f"startpos moves {moves}\n")
    # Fourfold repetition ends the game; the moves are still all listed.
    assert len(g.moves) == 8000
    assert g.validate().codes  # move-after-end and the rest
    exercise(g)


def test_random_sfen_and_moves() -> None:
    rng = random.Random(5)
    pieces = "plnsgbrkPLNSGBRK+123456789/"
    for _ in range(500):
        board = "".join(rng.choice(pieces) for _ in range(rng.randint(0, 90)))
        sfen = f"{board} {rng.choice('bwx')} {rng.choice(['-', 'P', '2p', 'RBGSNLP', '99P', 'K'])} {rng.randint(-1, 999)}"
        try:
            p = kifu.Position.from_sfen(sfen)
        except kifu.ParseError as e:
            assert e.code in ("syntax", "bad-position")
            continue
        p.legal_moves()
        p.is_check()
        p.is_mate()
        p.perft(1)
        for _ in range(20):
            usi = rng.choice(
                [
                    f"{rng.randint(0, 10)}{rng.choice('abcdefghijz')}{rng.randint(0, 10)}{rng.choice('abcdefghij')}{rng.choice(['', '+', '++'])}",
                    f"{rng.choice('PLNSGBRKX')}*{rng.randint(1, 9)}{rng.choice('abcdefghi')}",
                    rng.choice(p.legal_moves() or ["7g7f"]),
                    "",
                    "７六歩",
                ]
            )
            try:
                p.push(usi)
            except kifu.KifuError as e:
                assert e.code in kifu.codes()
    for sfen in ["", " ", "sfen", "9/9/9/9/9/9/9/9/9 b - 1", "k8/9/9/9/9/9/9/9/K8 b 19P 1"]:
        try:
            kifu.Position.from_sfen(sfen).perft(2)
        except kifu.ParseError:
            pass


def test_hostile_paths(tmp_path: Path) -> None:
    (tmp_path / "bomb.zip").write_bytes(b"PK\x03\x04" + b"\x00" * 100)
    (tmp_path / "cut.tar").write_bytes(b"\x00" * 700)
    (tmp_path / "x.csa").write_bytes(b"\xff\xfe\x00")
    reports = list(kifu.validate(tmp_path))
    assert reports
    for r in reports:
        assert all(d.code in kifu.codes() for d in r.diagnostics)
    for g in kifu.iter_games(tmp_path):
        exercise(g)


def test_start_dates_that_once_panicked(tmp_path: Path) -> None:
    """A start date with a weekday in full-width brackets, or 午前/午後 before the time, made
    the date parser slice inside a character: `games_table` came back empty, or never came
    back. Every way of reading them gives every game, dated."""
    moves = "+7776FU\n-3334FU\n%TORYO\n"
    (tmp_path / "a.csa").write_text(f"V2.2\n$START_TIME:2024/05/01 午前10:00:00\nPI\n+\n{moves}", encoding="utf-8")
    (tmp_path / "b.csa").write_text(f"V2.2\n$START_TIME:2024/05/01 午後1:02:03\nPI\n+\n{moves}", encoding="utf-8")
    (tmp_path / "c.kifu").write_text(
        "開始日時：2024/05/01（水）10:00\n手合割：平手\n手数----指手---------消費時間--\n"
        "   1 ７六歩(77)\n   2 ３四歩(33)\n   3 投了\n",
        encoding="utf-8",
    )
    for jobs in (1, 2):
        table = kifu.games_table(str(tmp_path), jobs=jobs, columns=["path", "start_date", "start_time"])
        assert table.num_rows == 3
        assert [str(d) for d in table.column("start_date").to_pylist()] == ["2024-05-01"] * 3
        times = [str(t) for t in table.column("start_time").to_pylist()]
        assert times == ["2024-05-01 10:00:00", "2024-05-01 13:02:03", "2024-05-01 10:00:00"]
        assert kifu.games_table(str(tmp_path), jobs=jobs, since="2024-05-01").num_rows == 3
        assert kifu.positions_table(str(tmp_path), jobs=jobs).num_rows == 6
        assert len(list(kifu.iter_games(str(tmp_path), jobs=jobs))) == 3


def test_paths_that_are_not_utf8(tmp_path: Path) -> None:
    """Two names that differ only in bytes that are not UTF-8 (`g<FF><82>.csa`, and one whose
    text is the escape `g\\xFF\\x82.csa`) are told apart, and each path kifu gives opens the
    file it names again; paths are taken as str, bytes or os.PathLike."""
    game = "V2.2\nPI\n+\n+7776FU\n-3334FU\n%TORYO\n"
    raw = os.fsencode(str(tmp_path)) + b"/g\xff\x82.csa"
    with open(raw, "wb") as f:
        f.write(game.encode())
    literal = tmp_path / "g\\xFF\\x82.csa"
    literal.write_text(game.replace("3334FU", "8384FU"), encoding="utf-8")
    games = list(kifu.iter_games(str(tmp_path)))
    paths = [g.path for g in games]
    assert len(set(paths)) == 2, paths
    for g in games:
        again = kifu.read(g.path)
        assert again[0].moves == g.moves
        assert kifu.read(os.fsencode(g.path))[0].moves == g.moves
    reports = list(kifu.validate(os.fsencode(str(tmp_path))))
    assert sorted(r.path for r in reports) == sorted(paths)
    assert len(list(kifu.iter_games([tmp_path, os.fsencode(str(literal))]))) == 3
    with pytest.raises(TypeError):
        kifu.read(3)  # type: ignore[arg-type]
