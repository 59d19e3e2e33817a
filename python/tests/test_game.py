"""kifu.Game: header, start position, moves, result, comments, times, variations, positions,
conversion to every format and validation."""

from __future__ import annotations

import json

import pytest

import kifu

from conftest import FIXTURES

VARIATIONS = FIXTURES / "kif" / "variations.kifu"


@pytest.fixture
def game() -> kifu.Game:
    [g] = kifu.read(VARIATIONS)
    return g


def test_header_and_players(game: kifu.Game) -> None:
    assert game.header["棋戦"] == "テスト棋戦"
    assert game.header["独自キー"] == "値は\u3000そのまま"
    assert list(game.header)[:2] == ["開始日時", "棋戦"]
    assert (game.black, game.white) == ("先手太郎", "後手花子")
    assert game.start_sfen.startswith("lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b")


def test_moves_are_usi_and_built_once(game: kifu.Game) -> None:
    assert game.moves == ["7g7f", "3c3d", "8h2b+", "3a2b", "B*4e", "6a5b", "4e3d", "2b3c", "3d2c+"]
    assert game.moves is game.moves
    assert len(game) == game.plies == 9


def test_result_winner(game: kifu.Game) -> None:
    assert (game.result, game.winner) == ("TORYO", "black")
    [draw] = kifu.parse("V2.2\nPI\n+\n+7776FU\n-3334FU\n%SENNICHITE\n")
    assert (draw.result, draw.winner) == ("SENNICHITE", "draw")
    [none] = kifu.parse("startpos moves 7g7f\n")
    assert (none.result, none.winner) == (None, None)


def test_comments_times(game: kifu.Game) -> None:
    assert game.comments[0] == (0, "対局開始前のコメント")
    assert game.comments[1] == (1, "初手のコメント\n二行目")
    assert game.times[:4] == [16000, 5000, 3000, 62000]
    assert game.total_times[:4] == [16000, 5000, 19000, 67000]
    assert len(game.times) == len(game.moves)
    [usi] = kifu.parse("startpos moves 7g7f\n")
    assert usi.times == [None] and usi.comments == []


def test_variations_nest(game: kifu.Game) -> None:
    v = game.variations
    by_ply = {(x["ply"], tuple(x["moves"][:1])) for x in v}
    assert (9, ("3d2c",)) in by_ply  # ２三角不成 replaces the 9th move
    assert (4, ("8b2b",)) in by_ply  # 同　飛
    nested = [x for x in v if x["variations"]]
    assert nested and nested[0]["variations"][0]["ply"] == 3


def test_positions(game: kifu.Game) -> None:
    assert game.sfen_at(0) == game.start_sfen
    assert game.sfen_at(1).startswith("lnsgkgsnl/1r5b1/ppppppppp/9/9/2P6/PP1PPPPPP/1B5R1/LNSGKGSNL w")
    assert game.sfen_at(-1) == game.sfen_at(9)
    p = game.position_at(2)
    assert p.turn == "black"
    p.push("8h2b+")
    assert p.sfen() == game.sfen_at(3)
    assert game.sfens() == [game.sfen_at(k) for k in range(len(game.moves) + 1)]
    with pytest.raises(IndexError):
        game.sfen_at(10)
    with pytest.raises(IndexError):
        game.sfen_at(-11)


@pytest.mark.parametrize("fmt", ["kif", "kifu", "ki2", "ki2u", "csa", "usi", "jkf"])
def test_conversions_read_back(game: kifu.Game, fmt: str) -> None:
    text = game.to(fmt)
    [back] = kifu.parse(text, format=fmt)
    assert back.moves == game.moves
    assert back.validate().ok


def test_named_writers(game: kifu.Game) -> None:
    assert "+8822UM" in game.to_csa()
    assert game.to_csa(v3=True).startswith("'CSA encoding=UTF-8\nV3.0")
    assert game.to_usi().strip() == "position startpos moves " + " ".join(game.moves)
    assert game.to_usi(endings=True).strip().endswith("resign")
    assert "２二角成(88)" in game.to_kif()
    assert "▲２三角成" in game.to_ki2()
    jkf = json.loads(game.to_jkf())
    assert jkf["header"]["先手"] == "先手太郎"
    with pytest.raises(ValueError):
        game.to("pdf")


def test_validate_report_fields() -> None:
    [g] = kifu.read(FIXTURES / "validate" / "fouls" / "nifu.kifu")
    r = g.validate()
    assert not r.ok and r.errors == 1 and r.codes == ["nifu"]
    [d] = r.diagnostics
    assert (d.code, d.severity, d.line, d.column, d.ply) == ("nifu", "error", 16, 6, 9)
    assert d.move == "P*7d" and d.written == "７四歩打"
    assert d.is_error
    assert r.path and r.path.endswith("nifu.kifu") and r.game == 0 and r.format == "kifu"
    allowed = g.validate(allow=["nifu"])
    assert allowed.ok and allowed.warnings == 1
    assert not g.validate(allow=["nifu"], deny=["nifu"]).ok
    with pytest.raises(ValueError, match="unknown diagnostic code"):
        g.validate(deny=["no-such-code"])
    assert g.diagnostics == r.diagnostics


@pytest.mark.parametrize(
    "name,code",
    [
        ("uchifuzume.csa", "uchifuzume"),
        ("self-check.csa", "self-check"),
        ("dead-piece.csa", "dead-piece"),
        ("result-mismatch.kifu", "result-mismatch"),
        ("move-number.kifu", "move-number"),
        ("time-mismatch.kifu", "time-mismatch"),
    ],
)
def test_fouls_have_their_code(name: str, code: str) -> None:
    games = kifu.read(FIXTURES / "validate" / "fouls" / name)
    assert any(code in g.validate().codes for g in games)


def test_ok_fixtures_are_clean() -> None:
    for path in sorted((FIXTURES / "validate" / "ok").iterdir()):
        for g in kifu.read(path):
            assert g.validate().errors == 0, (path, g.diagnostics)


def test_illegal_moves_stop_the_move_list() -> None:
    # The 9th move is nifu (played: it can be carried out); the move list keeps it and goes on.
    [g] = kifu.parse("startpos moves 2g2f 8c8d 2f2e 8d8e 2e2d 2c2d 2h2d 8e8f P*7d 8f8g+\n")
    assert g.moves[8] == "P*7d" and len(g.moves) == 10
    # A move from an empty square cannot be carried out: the list stops before it.
    [h] = kifu.parse("startpos moves 7g7f 5e5d 2g2f\n")
    assert h.moves == ["7g7f"]
    assert h.validate().codes == ["no-piece"]
    assert h.plies == 3


def test_repr() -> None:
    [g] = kifu.read(VARIATIONS)
    assert "variations.kifu#0" in repr(g) and "TORYO" in repr(g)
    assert "errors=0" in repr(g.validate())


def test_a_game_refuses_to_pickle_and_says_what_to_send(fixtures) -> None:  # type: ignore[no-untyped-def]
    import pickle

    [g] = kifu.read(fixtures / "csa" / "multi.csa")[:1]
    with pytest.raises(TypeError, match="send its path"):
        pickle.dumps(g)
    # What it says to send does go: the JKF text reads back as the same game.
    [back] = kifu.parse(pickle.loads(pickle.dumps(g.to_jkf())), format="jkf")
    assert back.moves == g.moves and back.start_sfen == g.start_sfen


def test_sfens_are_each_positions_sfen_with_or_without_a_foul() -> None:
    # A line of legal moves takes the fast writer, a line with a foul the replay: both give
    # what sfen_at gives, ply by ply, in every fixture game.
    games = list(kifu.iter_games(FIXTURES))
    fouls = [g for g in games if not g.validate().ok and g.moves]
    assert fouls and len(games) > len(fouls)
    for g in games:
        try:
            each = [g.sfen_at(k) for k in range(len(g.moves) + 1)]
        except kifu.ParseError:
            # A start no position can hold (two kings of a side): neither gives SFENs.
            with pytest.raises(kifu.ParseError):
                g.sfens()
            continue
        assert g.sfens() == each, g
