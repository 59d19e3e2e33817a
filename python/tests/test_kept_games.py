"""Games judged as read (CSA and USI written the plain way: no record built
until one is needed) answer exactly as games read into records (`_kifu._read_full`, every
record built at once), whichever attribute is asked first; `iter_games` gives the same games."""

from __future__ import annotations

import os

from pathlib import Path
from typing import Any

import pytest

import kifu
from kifu import _kifu

from conftest import FIXTURES, ROOT

SHARED = ROOT.parent / "shared" / "corpus"


def diag(d: Any) -> tuple[Any, ...]:
    return (d.code, d.severity, d.message, d.line, d.column, d.ply, d.move, d.written)


def view(g: kifu.Game, record_first: bool) -> dict[str, Any]:
    """Everything a game answers. `record_first` asks first what needs the record."""
    out: dict[str, Any] = {}
    if record_first:
        out["kif"] = g.to_kif()
    out.update(
        header=dict(g.header),
        start_sfen=g.start_sfen,
        moves=list(g.moves),
        plies=g.plies,
        len=len(g),
        result=g.result,
        winner=g.winner,
        black=g.black,
        white=g.white,
        format=g.format,
        path=g.path,
        index=g.index,
        repr=repr(g),
        diagnostics=[diag(d) for d in g.diagnostics],
        report=[diag(d) for d in g.validate().diagnostics],
    )
    if "bad-position" not in g.validate().codes:
        out["sfens"] = g.sfens()
        out["last"] = g.sfen_at(-1)
    out.update(
        comments=g.comments,
        times=g.times,
        total_times=g.total_times,
        variations=g.variations,
        kif=g.to_kif(),
        ki2=g.to_ki2(),
        csa=g.to_csa(),
        csa3=g.to_csa(v3=True),
        usi=g.to_usi(endings=True),
        jkf=g.to_jkf(),
    )
    return out


SHORT = {".csa", ".usi", ".sfen", ".kif", ".kifu", ".ki2", ".ki2u"}


def files() -> list[Path]:
    """The formats judged as read (KIF and KI2 too: `gather_text` reads them as `validate`)."""
    found = sorted(p for p in FIXTURES.rglob("*") if p.suffix in SHORT)
    # CI has the corpus beside the repository and sets KIFU_REQUIRE_CORPUS.
    assert SHARED.is_dir() or "KIFU_REQUIRE_CORPUS" not in os.environ, f"no shared corpus at {SHARED}"
    if SHARED.is_dir():
        shared = sorted(p for p in SHARED.rglob("*") if p.suffix in SHORT)
        found += [p for p in shared if p.suffix in {".csa", ".usi", ".sfen"}][:80]
        found += [p for p in shared if p.suffix not in {".csa", ".usi", ".sfen"}][:80]
    return found


def test_games_are_judged_as_read_and_the_record_made_on_first_use() -> None:
    text = "V2.2\nN+sente\nN-gote\nPI\n+\n+7776FU\nT3\n-3334FU\nT2\n%TORYO\n"
    [g] = kifu.parse(text)
    assert g._lazy
    assert g.moves == ["7g7f", "3c3d"] and g.header["先手"] == "sente" and g.plies == 2
    assert g.winner == "white" and g.start_sfen == kifu.Position().sfen()
    assert g._lazy  # none of those needed the record
    assert g.times == [3000, 2000]
    assert not g._lazy
    # A comment after a move stays in the text until asked for.
    [commented] = kifu.parse(text.replace("T3\n", "T3\n'a comment\n"))
    assert commented._lazy
    assert commented.comments == [(1, "a comment")]
    # So does a game with an illegal move: its report and its moves need no record.
    [illegal] = kifu.parse(text.replace("+7776FU", "+7775FU"))
    assert illegal._lazy
    assert not illegal.validate().ok and illegal.moves == [] and illegal.plies == 2
    assert illegal._lazy
    assert illegal.times == [3000, 2000]
    assert not illegal._lazy


@pytest.mark.parametrize("path", files(), ids=lambda p: p.name)
def test_as_read_games_answer_as_full_ones(path: Path) -> None:
    try:
        full = _kifu._read_full(path)
    except kifu.ParseError:
        with pytest.raises(kifu.ParseError):
            kifu.read(path)
        return
    for record_first in (False, True):
        short = kifu.read(path)
        assert len(short) == len(full)
        for a, b in zip(short, full):
            assert view(a, record_first) == view(b, False)


def test_iter_games_gives_the_games_read_gives(tmp_path: Path) -> None:
    paths = [p for p in files() if p.suffix == ".csa"][:40]
    lazy = 0
    games = list(kifu.iter_games(paths, jobs=2))
    expected = [g for p in paths for g in _kifu._read_full(p)] if paths else []
    # Files that give no game are skipped by iter_games (read raises).
    assert len(games) <= len(expected) or not expected
    by_key = {(g.path, g.index): g for g in expected}
    assert games
    for g in games:
        lazy += g._lazy
        assert view(g, False) == view(by_key[(g.path, g.index)], False)
    assert lazy > 0, "no game was judged as read"


def test_a_multi_game_text_reads_each_record_once(tmp_path: Path) -> None:
    game = "V2.2\nPI\n+\n+7776FU\nT1\n-3334FU\nT{t}\n%TORYO\n"
    text = "/\n".join(game.format(t=t) for t in range(1, 6))
    p = tmp_path / "five.csa"
    p.write_text(text)
    games = kifu.read(p)
    assert [g.index for g in games] == [0, 1, 2, 3, 4]
    assert all(g._lazy for g in games)
    # Asked in any order, each game gets its own record.
    for g in reversed(games):
        assert g.times == [1000, (g.index + 1) * 1000]
    assert [g.to_csa() for g in games] == [g.to_csa() for g in _kifu._read_full(p)]
    # Lines of the second game are counted from the top of the file.
    [bad] = [g for g in kifu.parse(text.replace("%TORYO", "%KACHI", 2)) if g.index == 1]
    [ref] = [g for g in _kifu._read_full(_write(tmp_path, text.replace("%TORYO", "%KACHI", 2))) if g.index == 1]
    assert [diag(d) for d in bad.diagnostics] == [diag(d) for d in ref.diagnostics]
    assert bad.diagnostics and bad.diagnostics[0].line is not None and bad.diagnostics[0].line > 8


def _write(dir_: Path, text: str) -> Path:
    p = dir_ / "other.csa"
    p.write_text(text)
    return p


def test_kif_and_ki2_games_are_judged_as_read_too() -> None:
    kif_files = [p for p in files() if p.suffix in {".kif", ".kifu", ".ki2", ".ki2u"}]
    kif = [g for p in kif_files for g in _safe_read(p)]
    assert kif and any(g._lazy for g in kif)


def _safe_read(path: Path) -> list[kifu.Game]:
    try:
        return kifu.read(path)
    except kifu.ParseError:
        return []


def test_a_long_file_is_read_as_iter_games_reads_it(tmp_path: Path) -> None:
    """`read` of a file longer than 256 KiB goes the way of `iter_games`: games judged as read
    leaves to the reader (a board written out, an illegal move, a handicap) let their record go
    once validated and make it again when asked (a list of 10,666 floodgate games of a 36 MB
    file took 560 MB with every record kept, 124 MB so), and answer exactly as from the records."""
    board = (
        "P1-KY-KE-GI-KI-OU-KI-GI-KE-KY\nP2 * -HI *  *  *  *  * -KA * \n"
        "P3-FU-FU-FU-FU-FU-FU-FU-FU-FU\nP4 *  *  *  *  *  *  *  *  * \nP5 *  *  *  *  *  *  *  *  * \n"
        "P6 *  *  *  *  *  *  *  *  * \nP7+FU+FU+FU+FU+FU+FU+FU+FU+FU\nP8 * +KA *  *  *  *  * +HI * \n"
        "P9+KY+KE+GI+KI+OU+KI+GI+KE+KY\n"
    )
    kinds = [
        "V2.2\nN+a{i}\nN-b\n" + board + "+\n+7776FU\nT3\n'a comment\n-3334FU\nT{t}\n+8822UM\n-3122GI\n%TORYO\n",
        "V2.2\nN+c{i}\nPI82HI22KA\n-\n-3334FU\nT{t}\n+7776FU\n%TORYO\n",
        "V2.2\nN+d{i}\nPI\n+\n+7776FU\n-3334FU\n+7776FU\nT{t}\n%TORYO\n",
        "V2.2\nN+e{i}\nPI\n+\n+7776FU\nT{t}\n-3334FU\n%TORYO\n",
    ]
    text = "/\n".join(kinds[i % 4].format(i=i, t=i % 7) for i in range(4000))
    p = tmp_path / "long.csa"
    p.write_text(text)
    assert p.stat().st_size > 256 * 1024
    full = _kifu._read_full(p)
    for record_first in (True, False):
        games = kifu.read(p)
        assert len(games) == len(full) == 4000
        assert all(g._lazy for g in games), "every record let go until asked for"
        for a, b in zip(games[:400], full[:400]):
            assert view(a, record_first) == view(b, False)
    streamed = list(kifu.iter_games(p, jobs=2))
    assert [view(g, False) for g in streamed[-100:]] == [view(g, False) for g in full[-100:]]
