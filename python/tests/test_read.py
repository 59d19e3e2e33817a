"""kifu.read and kifu.parse: every format, paths as str and os.PathLike, format and encoding
given or detected, and when they raise."""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

import kifu

from conftest import FIXTURES


def record_files() -> list[Path]:
    exts = {".kif", ".kifu", ".ki2", ".ki2u", ".csa", ".usi", ".jkf"}
    return sorted(p for p in FIXTURES.rglob("*") if p.suffix in exts)


@pytest.mark.parametrize("path", record_files(), ids=lambda p: str(p.relative_to(FIXTURES)))
def test_every_fixture_reads_as_str_and_pathlike(path: Path) -> None:
    by_path = kifu.read(path)
    by_str = kifu.read(str(path))
    assert by_path and len(by_path) == len(by_str)
    for i, (a, b) in enumerate(zip(by_path, by_str)):
        assert a.moves == b.moves
        assert a.index == i
        assert a.path == str(path)
        # The extension's format, unless the content is plainly another (then said).
        mismatch = any(d.code == "format-mismatch" for d in a.diagnostics)
        assert (a.format == path.suffix[1:]) != mismatch
        if "bad-position" in a.validate().codes and a.moves == []:
            # A start the engine cannot hold (two kings of a side): no position to give.
            with pytest.raises(kifu.ParseError) as e:
                a.sfen_at(0)
            assert e.value.code == "bad-position"
            continue
        # Each legal move listed, pushed on the position before it, gives the next position.
        assert a.sfen_at(0) == a.start_sfen
        for k, m in enumerate(a.moves):
            p = a.position_at(k)
            assert p.sfen() == a.sfen_at(k)
            if p.is_legal(m):
                p.push(m)
                assert p.sfen() == a.sfen_at(k + 1)
        assert a.sfen_at(len(a.moves)) == a.sfen_at(-1)


def test_multi_game_csa_reads_every_game() -> None:
    games = kifu.read(FIXTURES / "csa" / "multi.csa")
    assert len(games) >= 2
    first = games[0]
    assert first.black == "Sente Player"
    assert first.header["棋戦"] == "Fixture Cup"
    assert first.moves[:2] == ["7g7f", "3c3d"]
    assert first.result == "TORYO"
    assert [g.index for g in games] == list(range(len(games)))


def test_cp932_kif_is_decoded() -> None:
    [game] = kifu.read(FIXTURES / "validate" / "ok" / "resign.kif")
    assert game.format == "kif"
    # Japanese header keys and values come back as str.
    assert all(isinstance(k, str) and isinstance(v, str) for k, v in game.header.items())
    assert game.result == "TORYO"
    assert game.winner in ("black", "white")


def cp932_kif_files(root: Path = FIXTURES) -> list[Path]:
    """The .kif files under root in CP932 (not UTF-8, and clean CP932)."""
    out = []
    for p in root.rglob("*.kif"):
        raw = p.read_bytes()
        try:
            raw.decode("utf-8")
            continue
        except UnicodeDecodeError:
            pass
        try:
            raw.decode("cp932")
        except UnicodeDecodeError:
            continue
        out.append(p)
    return sorted(out)


def assert_same_games(a_games: list[kifu.Game], b_games: list[kifu.Game]) -> None:
    assert len(a_games) == len(b_games)
    for a, b in zip(a_games, b_games):
        assert a.moves == b.moves
        assert a.header == b.header
        assert a.comments == b.comments
        assert a.times == b.times
        assert (a.result, a.winner) == (b.result, b.winner)
        assert a.validate().codes == b.validate().codes
        assert a.sfen_at(-1) == b.sfen_at(-1)
        assert a.to_kif() == b.to_kif()
        assert a.to_csa() == b.to_csa()


@pytest.mark.parametrize("path", cp932_kif_files(), ids=lambda p: str(p.relative_to(FIXTURES)))
def test_cp932_kif_from_its_bytes_reads_as_its_text(path: Path) -> None:
    # kifu.read takes a .kif in CP932 from its bytes (the text decoded only when a game
    # asks for it, as to_kif does): the games of its decoded text.
    text = path.read_bytes().decode("cp932")
    assert_same_games(kifu.read(path), kifu.parse(text, format="kif"))


def test_cp932_kif_of_the_shared_corpus_from_their_bytes_read_as_their_text() -> None:
    corpus = FIXTURES.parents[1] / "shared" / "corpus"
    if not corpus.is_dir():
        # CI has the corpus beside the repository and sets KIFU_REQUIRE_CORPUS: a failure there.
        assert "KIFU_REQUIRE_CORPUS" not in os.environ, f"no shared corpus at {corpus}"
        pytest.skip(f"no shared corpus at {corpus}")
    files = cp932_kif_files(corpus)
    assert files, "no .kif file in CP932 in the shared corpus"
    for path in files:
        text = path.read_bytes().decode("cp932")
        assert_same_games(kifu.read(path), kifu.parse(text, format="kif"))


def test_plain_cp932_kif_from_its_bytes_reads_as_its_text(tmp_path: Path) -> None:
    text = (
        "開始日時：2024/01/02\n先手：甲\n後手：乙\n手数----指手---------消費時間--\n"
        "   1 ７六歩(77)   ( 0:01/00:00:01)\n   2 ３四歩(33)   ( 0:02/00:00:02)\n"
        "   3 ２二角成(88)   ( 0:03/00:00:04)\n   4 同　銀(31)   ( 0:04/00:00:06)\n"
        "   5 投了   ( 0:05/00:00:09)\nまで4手で後手の勝ち\n"
    )
    f = tmp_path / "plain.kif"
    f.write_bytes(text.encode("cp932"))
    [g] = kifu.read(f)
    assert g.moves == ["7g7f", "3c3d", "8h2b+", "3a2b"]
    assert g.black == "甲" and g.result == "TORYO" and g.winner == "white"
    assert_same_games([g], kifu.parse(text, format="kif"))
    assert_same_games(list(kifu.iter_games(tmp_path)), [g])


def test_parse_text_and_bytes_agree() -> None:
    path = FIXTURES / "kif" / "variations.kifu"
    from_bytes = kifu.parse(path.read_bytes())
    from_text = kifu.parse(path.read_text(encoding="utf-8"))
    assert from_bytes[0].moves == from_text[0].moves == kifu.read(path)[0].moves
    assert from_text[0].path is None
    assert from_text[0].format in ("kif", "kifu")


def test_parse_cp932_bytes_with_and_without_encoding() -> None:
    text = "先手：甲\n後手：乙\n手数----指手---------消費時間--\n   1 ７六歩(77)\n   2 投了\n"
    raw = text.encode("cp932")
    for enc in (None, "shift_jis", "cp932"):
        [g] = kifu.parse(raw, encoding=enc)
        assert g.black == "甲" and g.moves == ["7g7f"] and g.result == "TORYO"
    [g] = kifu.parse(text.encode("utf-8"), encoding="utf-8")
    assert g.white == "乙"


def test_format_forced() -> None:
    games = kifu.parse("startpos moves 7g7f 3c3d\n", format="usi")
    assert games[0].moves == ["7g7f", "3c3d"]
    with pytest.raises(ValueError, match="unknown format") as unknown:
        kifu.parse("startpos moves 7g7f\n", format="pgn")
    # Every format the reader takes is named (issue #45: `usen` was left out).
    named = re.findall(r"[a-z0-9]+", str(unknown.value).split("(", 1)[1])
    assert set(named) >= {"kif", "kifu", "ki2", "ki2u", "csa", "usi", "jkf", "usen"}, named
    with pytest.raises(ValueError, match="unknown encoding"):
        kifu.parse(b"startpos moves 7g7f\n", encoding="latin-9")
    with pytest.raises(ValueError, match="applies to bytes"):
        kifu.parse("startpos\n", encoding="utf-8")
    with pytest.raises(TypeError):
        kifu.parse(12)  # type: ignore[arg-type]


def test_read_raises_parse_error_only_without_any_game(tmp_path: Path) -> None:
    junk = tmp_path / "junk.txt"
    junk.write_text("hello world\n")
    with pytest.raises(kifu.ParseError) as e:
        kifu.read(junk)
    assert e.value.code == "syntax"
    assert isinstance(e.value, kifu.KifuError) and isinstance(e.value, ValueError)
    assert "format" in e.value.message
    assert e.value.diagnostics and e.value.diagnostics[0].code == "syntax"

    empty = tmp_path / "empty.csa"
    empty.write_bytes(b"")
    with pytest.raises(kifu.ParseError) as e2:
        kifu.read(empty)
    assert e2.value.code == "empty-input"
    for blank in (b"", b" \n\r\n", "\n\n", b"\xef\xbb\xbf\n"):
        with pytest.raises(kifu.ParseError) as e3:
            kifu.parse(blank)
        assert e3.value.code == "empty-input"

    # A game with a bad line is still a game: the line is a diagnostic, not an exception.
    bad = tmp_path / "bad.csa"
    bad.write_text("V2.2\nPI\n+\n+7776FU\nXYZZY\n-3334FU\n%TORYO\n")
    [g] = kifu.read(bad)
    codes = [d.code for d in g.diagnostics]
    assert "syntax" in codes
    d = next(d for d in g.diagnostics if d.code == "syntax")
    assert d.line == 5 and d.column == 1


def test_read_missing_file_is_oserror(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError, match="nope.kif"):
        kifu.read(tmp_path / "nope.kif")


def test_read_directory_reads_like_iter_games() -> None:
    d = FIXTURES / "csa"
    games = kifu.read(d)
    assert [(g.path, g.index) for g in games] == [
        (g.path, g.index) for g in kifu.iter_games(d)
    ]
    assert len(games) >= 3


class FsPath(os.PathLike):
    def __init__(self, p: Path) -> None:
        self.p = p

    def __fspath__(self) -> str:
        return str(self.p)


def test_custom_pathlike() -> None:
    games = kifu.read(FsPath(FIXTURES / "csa" / "specials.csa"))
    assert games


def test_format_and_encoding_forced_on_files(tmp_path: Path) -> None:
    # A name that tells nothing, CSA content in CP932 with a Japanese name.
    f = tmp_path / "record.txt"
    f.write_bytes("V2.2\nN+先手さん\nPI\n+\n+7776FU\n%TORYO\n".encode("cp932"))
    [g] = kifu.read(f, format="csa", encoding="cp932")
    assert (g.format, g.black, g.moves) == ("csa", "先手さん", ["7g7f"])
    [h] = list(kifu.iter_games(f, format="csa", encoding="shift_jis"))
    assert h.black == "先手さん"
    # Forced as UTF-8 the name does not decode: an `encoding` finding, the game still read.
    [u] = kifu.read(f, format="csa", encoding="utf-8")
    assert u.moves == ["7g7f"] and "encoding" in u.validate().codes
