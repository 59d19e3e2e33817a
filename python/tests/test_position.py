"""kifu.Position: SFEN in and out, legal moves, push/pop with IllegalMove, check, mate, perft
(published counts)."""

from __future__ import annotations

import pytest

import kifu

from conftest import spins_alongside

START = "lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1"


def test_start_and_sfen_round_trip() -> None:
    p = kifu.Position()
    assert p.sfen() == START == str(p)
    assert kifu.Position.from_sfen(START) == p
    assert kifu.Position("startpos") == p
    assert kifu.Position("sfen " + START) == p
    assert p.turn == "black" and p.move_number == 1
    assert p.key == kifu.Position(START).key != kifu.Position("startpos").copy().key + 1
    with pytest.raises(TypeError):
        hash(p)
    assert p != 1


@pytest.mark.parametrize("depth,count", [(1, 30), (2, 900), (3, 25470)])
def test_perft_published_counts(depth: int, count: int) -> None:
    assert kifu.Position().perft(depth) == count


def test_perft_max_moves_position() -> None:
    p = kifu.Position("R8/2K1S1SSk/4B4/9/9/9/9/9/1L1L1L3 b RBGSNLP3g3n17p 1")
    assert p.perft(1) == 593 == len(p.legal_moves())


def test_push_pop_and_illegal() -> None:
    p = kifu.Position()
    p.push("7g7f")
    assert p.turn == "white" and p.move_number == 2
    with pytest.raises(kifu.IllegalMove) as e:
        p.push("7g7f")  # no white piece there
    err = e.value
    assert err.code == "no-piece" and err.ply == 2 and "7g7f" in err.message
    assert isinstance(err, kifu.KifuError)
    assert p.move_number == 2  # unchanged
    p.pop()
    assert p.sfen() == START
    with pytest.raises(IndexError):
        p.pop()
    with pytest.raises(kifu.ParseError) as bad:
        p.push("hello")
    assert bad.value.code == "syntax"


def test_nifu_and_uchifuzume_codes() -> None:
    p = kifu.Position()
    for m in "2g2f 8c8d 2f2e 8d8e 2e2d 2c2d 2h2d 8e8f".split():
        p.push(m)
    assert not p.is_legal("P*7d") and p.is_legal("P*2e")
    with pytest.raises(kifu.IllegalMove) as e:
        p.push("P*7d")
    assert e.value.code == "nifu"
    # 打ち歩詰め: a pawn dropped in front of a trapped king.
    q = kifu.Position("kn7/9/1G7/9/9/9/9/9/8K b P 1")
    with pytest.raises(kifu.IllegalMove) as u:
        q.push("P*9b")
    assert u.value.code == "uchifuzume"
    assert not q.is_legal("P*9b") and q.is_legal("P*9c")


def test_check_and_mate() -> None:
    # Fool's-mate-like: a gold drop mates the bare king in the corner.
    p = kifu.Position("k8/9/1G7/9/9/9/9/9/8K b G 1")
    assert not p.is_check() and not p.is_mate()
    p.push("G*9b")
    assert p.is_check() and p.is_mate()
    assert p.legal_moves() == []
    q = kifu.Position()
    assert not q.is_check() and not q.is_mate()


def test_bad_sfen() -> None:
    with pytest.raises(kifu.ParseError) as e:
        kifu.Position.from_sfen("not an sfen")
    assert e.value.code == "syntax"
    with pytest.raises(kifu.ParseError) as k:
        kifu.Position.from_sfen("kk7/9/9/9/9/9/9/9/8K b - 1")
    assert k.value.code == "bad-position"


def test_a_position_line_is_read_as_the_usi_reader_reads_it() -> None:
    """`Position` takes what `kifu perft --sfen` takes (one parser, issue #48): `position`,
    `startpos` or `sfen`, and moves after `moves`, played."""
    after = kifu.Position()
    after.push("7g7f")
    after.push("3c3d")
    for text in ["position startpos moves 7g7f 3c3d", "startpos moves 7g7f 3c3d", f"sfen {START} moves 7g7f 3c3d"]:
        assert kifu.Position(text) == after, text
    for bad in ["startpos moves 7g7x", "startpos moves 5a5b", "startpos 7g7f"]:
        with pytest.raises(kifu.ParseError) as e:
            kifu.Position(bad)
        assert e.value.code == "syntax", bad


def test_copy_is_independent() -> None:
    p = kifu.Position()
    q = p.copy()
    q.push("7g7f")
    assert p.sfen() == START and q.sfen() != START


def test_pickle_and_deepcopy_keep_the_position_and_its_history() -> None:
    import copy
    import pickle

    p = kifu.Position()
    before = []
    for m in ["7g7f", "3c3d", "8h2b+"]:
        before.append(p.sfen())
        p.push(m)
    for q in (pickle.loads(pickle.dumps(p)), copy.deepcopy(p)):
        assert q == p and q is not p and q.sfen() == p.sfen()
        # The moves pushed before are taken back one by one, to the start.
        for sfen in reversed(before):
            q.pop()
            assert q.sfen() == sfen
        with pytest.raises(IndexError):
            q.pop()
        assert p.sfen() != q.sfen()
    # A state that is not SFENs is refused, not taken.
    with pytest.raises(kifu.ParseError):
        kifu.Position().__setstate__(["not an sfen"])


def test_a_position_goes_to_another_process() -> None:
    import concurrent.futures
    import multiprocessing

    p = kifu.Position("4k4/9/9/9/9/9/9/9/4K4 b G 1")
    ctx = multiprocessing.get_context("spawn")
    with concurrent.futures.ProcessPoolExecutor(1, mp_context=ctx) as pool:
        # Pickled there and back: the child's legal moves, and the position itself.
        assert pool.submit(kifu.Position.legal_moves, p).result() == p.legal_moves()
        assert pool.submit(copy_of, p).result() == p


def copy_of(p: kifu.Position) -> kifu.Position:
    return p.copy()


def test_perft_releases_the_gil() -> None:
    # While a thread counts in Rust, this thread keeps running Python.
    p = kifu.Position()
    done: list[int] = []
    spins, free = spins_alongside(lambda: done.append(p.perft(5)))
    assert done == [19_861_490]
    assert spins > 0.05 * free, (spins, free)
