"""The tables across the Arrow C stream interface: games_table/positions_table, the streaming
readers games_batches/positions_batches, and the PyCapsule objects games_stream and
positions_stream that any Arrow reader takes."""

from __future__ import annotations

import datetime
import gc
import time
from collections import Counter
from pathlib import Path

import pytest

import kifu

from conftest import FIXTURES, spins_alongside

pa = pytest.importorskip("pyarrow")

MOVES = ["5i4h", "5a4b", "4h5i", "4b5a"] * 2 + ["7g7f", "3c3d"]


def many_games(tmp_path: Path, games: int) -> Path:
    p = tmp_path / "many.usi"
    p.write_text(("startpos moves " + " ".join(MOVES) + "\n") * games)
    return p


def table_threads() -> int:
    """Threads of this process that run a table (named so by the Rust side)."""
    n = 0
    for comm in Path("/proc/self/task").glob("*/comm"):
        try:
            n += comm.read_text().strip() == "kifu-table"
        except OSError:  # the thread ended meanwhile
            pass
    return n


def test_batches_are_the_table_in_pieces_of_the_size_asked() -> None:
    whole = kifu.positions_table(FIXTURES)
    reader = kifu.positions_batches(FIXTURES, batch_rows=7)
    assert isinstance(reader, pa.RecordBatchReader)
    assert reader.schema == whole.schema
    batches = list(reader)
    assert all(b.num_rows == 7 for b in batches[:-1]) and 0 < batches[-1].num_rows <= 7
    assert pa.Table.from_batches(batches, whole.schema).equals(whole)
    games = kifu.games_table(FIXTURES)
    got = kifu.games_batches(FIXTURES, batch_rows=3).read_all()
    assert got.num_rows == games.num_rows > 3 and got.equals(games)


def test_the_table_types_are_kept() -> None:
    t = kifu.games_table(FIXTURES)
    assert t.schema.field("start_date").type == pa.date32()
    assert t.schema.field("start_time").type == pa.timestamp("ms")
    assert t.schema.field("codes").type == pa.list_(pa.string())
    assert t.schema.field("game").type == pa.int64()
    p = kifu.positions_table(FIXTURES)
    assert p.schema.field("legal").type == pa.bool_()
    assert p.column_names == kifu.positions_stream(FIXTURES).column_names


def test_a_stream_is_read_by_any_arrow_reader_once() -> None:
    s = kifu.games_stream(FIXTURES, min_plies=10)
    assert "plies" in s.column_names
    t = pa.table(s)  # through __arrow_c_stream__
    assert t.num_rows == kifu.games_table(FIXTURES, min_plies=10).num_rows > 0
    assert min(t.column("plies").to_pylist()) >= 10
    with pytest.raises(RuntimeError, match="already read"):
        pa.table(s)
    # A capsule taken and never read is released with it, and its run stops.
    capsule = kifu.positions_stream(FIXTURES).__arrow_c_stream__()
    assert type(capsule).__name__ == "PyCapsule"
    del capsule
    gc.collect()


def test_a_stream_tells_its_schema_before_and_after_it_is_read() -> None:
    s = kifu.positions_stream(FIXTURES, columns=["sfen", "move", "result"])
    schema = pa.schema(s)  # through __arrow_c_schema__, as often as asked
    assert schema == pa.schema(s) == kifu.positions_table(FIXTURES, columns=["sfen", "move", "result"]).schema
    t = pa.table(s)  # the stream, still unread
    assert t.schema == schema and t.num_rows > 0
    assert pa.schema(s) == schema


def test_polars_reads_the_stream_and_the_table() -> None:
    pl = pytest.importorskip("polars", reason="polars is not installed (pip install polars): skipped")
    want = kifu.positions_table(FIXTURES)
    # polars.DataFrame takes the PyCapsule stream; polars.from_arrow a pyarrow table (given
    # the stream itself, polars 2 makes a Series of structs of it).
    df = pl.DataFrame(kifu.positions_stream(FIXTURES))
    assert df.columns == want.column_names and df.height == want.num_rows > 0
    assert df["sfen"].to_list() == want.column("sfen").to_pylist()
    assert df["ply"].dtype == pl.Int32 and df["legal"].dtype == pl.Boolean
    games = pl.from_arrow(kifu.games_table(FIXTURES))
    assert isinstance(games, pl.DataFrame) and games["start_date"].dtype == pl.Date


def test_pandas_takes_the_tables_with_their_types() -> None:
    pytest.importorskip("pandas", reason="pandas is not installed (pip install pandas): skipped")
    games = kifu.games_table(FIXTURES).to_pandas()
    assert len(games) == kifu.games_table(FIXTURES).num_rows > 0
    assert str(games["plies"].dtype) in ("int32", "int64")
    dates = [d for d in games["start_date"] if d is not None]
    assert dates and all(isinstance(d, datetime.date) for d in dates)
    table = kifu.positions_table(FIXTURES, columns=["game_key", "ply", "move"])
    moves = table.to_pandas()
    assert str(moves["ply"].dtype) == "int32"
    counts = Counter(table.column("game_key").to_pylist())
    assert moves.groupby("game_key").size().to_dict() == dict(counts)


def test_duckdb_queries_the_stream_the_batches_and_the_table() -> None:
    duckdb = pytest.importorskip("duckdb", reason="duckdb is not installed (pip install duckdb): skipped")
    want = kifu.positions_table(FIXTURES)
    keys = len(set(want.column("game_key").to_pylist()))
    # DuckDB asks a PyCapsule object for its schema, then for its stream: with the schema
    # given apart, the one-read stream is read once.
    s = kifu.positions_stream(FIXTURES)
    assert duckdb.sql("select count(*), count(distinct game_key) from s").fetchall() == [(want.num_rows, keys)]
    r = kifu.positions_batches(FIXTURES, batch_rows=10)
    assert duckdb.sql("select max(ply) from r").fetchall() == [(max(want.column("ply").to_pylist()),)]
    t = kifu.games_table(FIXTURES)
    assert duckdb.sql("select count(*) from t where plies >= 10").fetchall()[0][0] == sum(
        p >= 10 for p in t.column("plies").to_pylist()
    )


def test_an_empty_table_has_its_columns() -> None:
    t = kifu.games_table(FIXTURES, min_plies=10**6)
    assert t.num_rows == 0 and "game_key" in t.column_names
    assert kifu.positions_batches(FIXTURES, min_plies=10**6).read_next_batch is not None


def test_chosen_columns_are_the_full_tables_in_the_order_asked(tmp_path: Path) -> None:
    # Games judged as read (single CSA files from the even start) and from records.
    for i, moves in enumerate(["+7776FU\n-3334FU\n+8822UM\n-3122GI\n%TORYO\n", "+2726FU\n%CHUDAN\n"]):
        (tmp_path / f"{i}.csa").write_text(f"V2.2\nPI\n+\n{moves}")
    paths = [tmp_path, FIXTURES]
    full = kifu.positions_table(paths)
    for names in (["sfen", "move", "result"], ["result", "ply", "pv"], ["move"]):
        t = kifu.positions_table(paths, columns=names)
        assert t.column_names == names
        assert t.equals(full.select(names)), names
        assert kifu.positions_batches(paths, columns=names, batch_rows=5).read_all().equals(t)
        assert kifu.positions_stream(paths, columns=names).column_names == names
    games = kifu.games_table(paths)
    t = kifu.games_table(paths, columns=["plies", "black", "codes"])
    assert t.equals(games.select(["plies", "black", "codes"]))
    assert t.schema.field("codes").type == pa.list_(pa.string())
    with pytest.raises(ValueError, match="no column `eval`.*eval_cp, mate, pv"):
        kifu.positions_table(paths, columns=["sfen", "eval"])
    with pytest.raises(ValueError, match="named twice"):
        kifu.games_batches(paths, columns=["plies", "plies"])
    with pytest.raises(ValueError, match="no column chosen"):
        kifu.games_stream(paths, columns=[])


def test_bad_arguments_raise_before_anything_runs() -> None:
    with pytest.raises(ValueError, match="finite"):
        kifu.games_batches(FIXTURES, min_rating=float("nan"))
    with pytest.raises(FileNotFoundError):
        kifu.positions_stream(FIXTURES / "no-such-dir")
    with pytest.raises(ValueError, match="not a date"):
        kifu.positions_batches(FIXTURES, until="soon")


PEAK_GROWTH = """
import re, sys
import kifu
path, way, rows = sys.argv[1], sys.argv[2], int(sys.argv[3])
def peak():
    status = open("/proc/self/status").read()
    return int(re.search(r"VmHWM:\\s*(\\d+) kB", status).group(1))
assert sum(b.num_rows for b in kifu.positions_batches(path, batch_rows=8192)) == rows
before = peak()
if way == "batches":
    sizes = [b.num_rows for b in kifu.positions_batches(path, batch_rows=8192)]
    assert sum(sizes) == rows and len(sizes) == -(-rows // 8192) and max(sizes) == 8192, sizes
else:
    assert kifu.positions_table(path).num_rows == rows
print(peak() - before)
"""


def peak_growth(path: Path, way: str, rows: int) -> int:
    """The growth of a fresh interpreter's peak memory (KiB) over one run read the given way,
    after a first run in small batches paid what any run costs once (pyarrow, worker threads
    and their allocator arenas; the default batch is a million rows, the whole table here).
    A fresh process, and its VmHWM, because a peak is a high-water mark: in this process
    earlier tests may have set it above anything this test does, and getrusage's ru_maxrss
    would be no better in a child, since Linux carries it over fork and exec."""
    import subprocess
    import sys

    out = subprocess.run(
        [sys.executable, "-c", PEAK_GROWTH, str(path), way, str(rows)],
        check=True,
        capture_output=True,
        text=True,
    )
    return int(out.stdout.strip())


def test_big_input_streams_in_batches_with_memory_flat(tmp_path: Path) -> None:
    # Read whole, a table's memory grows with the input; read batch by batch, a run holds
    # what its window and queue let in flight (a few chunks' rows, two batches), whatever the
    # input. So streaming five times the input (3,000,000 positions) grows the peak less
    # than holding the table of 600,000 whole. Measured (session 24): the table of 600,000
    # 74 to 92 MB (4 runs); streaming 3,000,000 11 to 27 MB (6 runs), streaming 600,000 16
    # to 42 MB (12 runs: the spread is how far the workers run ahead of the reader), so the
    # bound of sessions 16 to 23, a third of the table, failed one run in four.
    small = many_games(tmp_path, 60_000)
    (tmp_path / "big").mkdir()
    big = many_games(tmp_path / "big", 300_000)
    grown = peak_growth(small, "table", 600_000)
    streamed = peak_growth(big, "batches", 3_000_000)
    assert grown > 40_000, (streamed, grown)
    assert streamed < grown, (streamed, grown)


def wait_for_table_threads(at_most: int) -> int:
    deadline = time.monotonic() + 20
    while table_threads() > at_most and time.monotonic() < deadline:
        time.sleep(0.05)
    return table_threads()


def test_a_reader_dropped_midway_stops_the_run(tmp_path: Path) -> None:
    p = many_games(tmp_path, 100_000)
    # The runs of other tests are over (a run's thread ends a moment after its last batch).
    before = wait_for_table_threads(0)
    reader = kifu.positions_batches(p, batch_rows=1000)
    assert reader.read_next_batch().num_rows == 1000
    # The run waits for the reader to take more (the run, and the threads it started).
    time.sleep(0.5)
    assert table_threads() > before
    del reader
    gc.collect()
    assert wait_for_table_threads(before) == before


def test_tables_are_made_with_the_gil_released(tmp_path: Path) -> None:
    p = many_games(tmp_path, 40_000)
    out: list[int] = []
    spins, free = spins_alongside(lambda: out.append(kifu.positions_table(p, jobs=1).num_rows))
    assert out == [400_000]
    assert spins > 0.05 * free, (spins, free)
