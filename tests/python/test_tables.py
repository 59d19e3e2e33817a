"""`kifu games` and `kifu positions` load in pandas, DuckDB and pyarrow as CSV, JSON Lines and
Parquet (one file and Hive shards), with the row counts, column types and values of
`validate --format json`; the DuckDB queries of docs/tables.md run over the shards.

Run by `.ci/run` from its virtualenv (pandas, duckdb, pyarrow, pytest):

    KIFU_BIN=target/debug/kifu python -m pytest tests/python
"""

import json
import os
import re
import shutil
import subprocess
from pathlib import Path

import duckdb
import pandas as pd
import pyarrow.parquet as pq
import pytest

ROOT = Path(__file__).resolve().parents[2]
GAMES = 40


def kifu_bin():
    path = Path(os.environ.get("KIFU_BIN", ROOT / "target" / "debug" / "kifu"))
    assert path.is_file(), f"no kifu binary at {path} (build it, or set KIFU_BIN)"
    return str(path)


def kifu(*args, codes=(0,)):
    p = subprocess.run([kifu_bin(), *args], capture_output=True, check=False)
    assert p.returncode in codes, p.stderr.decode(errors="replace")
    return p.stdout.decode()


def floodgate_games(n):
    """`n` rated, dated floodgate-style games over two years and three openings, some
    repeated (duplicates), one with a foul."""
    openings = [
        "+7776FU\nT3\n-3334FU\nT5\n+8822UM\nT1\n-3122GI\nT2\n",
        "+2726FU\nT2\n-8384FU\nT4\n+2625FU\nT1\n-8485FU\nT6\n",
        "+7776FU\nT3\n-8384FU\nT4\n+6978KI\nT1\n-8485FU\nT6\n",
    ]
    out = []
    for i in range(n):
        year = 2023 + i % 2
        month = 1 + i % 12
        # Every fifth game White resigns after a fifth move; game 7 ends with a drop of a
        # pawn Black does not hold (an error, and the last move of its positions).
        ending = "+5756FU\n%TORYO\n" if i % 5 == 0 else "%TORYO\n"
        out.append(
            f"V2.2\nN+p{i % 7}\nN-q{i % 3}\n"
            f"$EVENT:wdoor+floodgate-300-10F+p{i % 7}+q{i % 3}+{year}{month:02}01120000\n"
            f"$START_TIME:{year}/{month:02}/01 12:00:00\nPI\n+\n"
            f"'black_rate:p{i % 7}+aa:{2000 + 37 * i}.0\n'white_rate:q{i % 3}+bb:2600.0\n"
            + openings[i % 3]
            + ("+0058FU\n%TORYO\n" if i == 7 else ending)
        )
    return "/\n".join(out)


@pytest.fixture(scope="module")
def inputs(tmp_path_factory):
    root = tmp_path_factory.mktemp("tables")
    shutil.copytree(ROOT / "fixtures" / "validate", root / "fixtures")
    (root / "floodgate.csa").write_text(floodgate_games(GAMES))
    return root


@pytest.fixture(scope="module")
def validated(inputs):
    lines = [json.loads(x) for x in kifu("validate", "--no-progress", "--format", "json", str(inputs), codes=(1,)).splitlines()]
    return [x for x in lines if x.get("game") is not None]


@pytest.fixture(scope="module")
def out(inputs, tmp_path_factory):
    """The tables in every format."""
    d = tmp_path_factory.mktemp("out")
    games = ["games", "--no-progress", "--opening-plies", "4"]
    (d / "games.csv").write_text(kifu(*games, str(inputs)))
    (d / "games.jsonl").write_text(kifu(*games, "--format", "json", str(inputs)))
    kifu(*games, "--format", "parquet", "-o", str(d / "games.parquet"), str(inputs))
    kifu(*games, "--format", "parquet", "--partition-by", "year", "-o", str(d / "shards"), str(inputs))
    (d / "positions.csv").write_text(kifu("positions", "--no-progress", str(inputs)))
    (d / "positions.jsonl").write_text(kifu("positions", "--no-progress", "--format", "json", str(inputs)))
    kifu("positions", "--no-progress", "--format", "parquet", "-o", str(d / "positions") + "/", str(inputs))
    return d


def read_csv(path):
    return pd.read_csv(path, keep_default_na=False, na_values=[""], dtype={"final_hash": str, "game_key": str})


def test_games_in_every_format_agree_with_validate(out, validated):
    csv = read_csv(out / "games.csv")
    jl = pd.read_json(out / "games.jsonl", lines=True, dtype={"final_hash": str, "game_key": str})
    pa = pq.read_table(out / "games.parquet").to_pandas()
    n = len(validated)
    assert n > GAMES
    assert len(csv) == len(jl) == len(pa) == n
    assert list(csv.columns) == list(jl.columns) == list(pa.columns)
    for df in (csv, jl, pa):
        assert list(df["path"]) == [v["path"] for v in validated]
        assert list(df["game"]) == [v["game"] for v in validated]
        assert list(df["plies"]) == [v["plies"] for v in validated]
        assert [None if pd.isna(x) else x for x in df["ending"]] == [v["result"]["recorded"] for v in validated]
        assert [None if pd.isna(x) else x for x in df["winner"]] == [v["result"]["winner"] for v in validated]
        assert list(df["errors"]) == [sum(d["severity"] == "error" for d in v["diagnostics"]) for v in validated]
        assert list(df["game_key"]) == list(pa["game_key"])
    # Types: integers, doubles, dates, timestamps, lists.
    for col in ["game", "plies", "errors", "variations"]:
        assert pd.api.types.is_integer_dtype(csv[col]) and pd.api.types.is_integer_dtype(pa[col]), col
    assert pd.api.types.is_float_dtype(csv["black_rating"])
    schema = pq.read_schema(out / "games.parquet")
    assert str(schema.field("start_date").type) == "date32[day]"
    assert str(schema.field("start_time").type) == "timestamp[ms]"
    assert str(schema.field("opening").type) == "list<item: string>"
    assert str(schema.field("codes").type) == "list<item: string>"
    assert str(schema.field("black_rating").type) == "double"
    fg = pa[pa.path.str.endswith("floodgate.csa")]
    assert len(fg) == GAMES
    assert fg.black_rating.tolist() == [2000 + 37 * i for i in range(GAMES)]
    assert str(fg.start_date.iloc[1]) == "2024-02-01"
    assert list(fg.opening.iloc[0]) == ["7g7f", "3c3d", "8h2b+", "3a2b"]
    assert list(fg.opening.iloc[1]) == ["2g2f", "8c8d", "2f2e", "8d8e"]
    assert fg.errors.iloc[7] > 0 and len(fg.codes.iloc[7]) > 0
    assert fg.errors.iloc[6] == 0 and len(fg.codes.iloc[6]) == 0
    assert list(fg.winner.iloc[:2]) == ["black", "white"]
    # CSV lists are the same moves joined by spaces.
    assert csv[csv.path.str.endswith("floodgate.csa")].opening.fillna("").tolist() == [
        " ".join(x) if x is not None else "" for x in fg.opening
    ]


def test_duckdb_reads_every_format(out, validated):
    con = duckdb.connect()
    n = len(validated)
    for src in [
        f"read_csv('{out / 'games.csv'}', header = true)",
        f"read_json('{out / 'games.jsonl'}', format = 'newline_delimited')",
        f"read_parquet('{out / 'games.parquet'}')",
        f"read_parquet('{out / 'shards'}/*/*.parquet', hive_partitioning = true)",
    ]:
        assert con.execute(f"SELECT count(*) FROM {src}").fetchone()[0] == n, src
        assert con.execute(f"SELECT sum(plies) FROM {src}").fetchone()[0] == sum(v["plies"] for v in validated)
    described = con.execute(f"DESCRIBE SELECT * FROM read_parquet('{out / 'games.parquet'}')").fetchall()
    types = {r[0]: r[1] for r in described}
    assert types["start_date"] == "DATE"
    assert types["start_time"] == "TIMESTAMP"
    assert types["opening"] == "VARCHAR[]"
    assert types["game"] == "BIGINT"
    assert types["plies"] == "INTEGER"
    years = dict(
        con.execute(
            f"SELECT year, count(*) FROM read_parquet('{out / 'shards'}/*/*.parquet', hive_partitioning = true) GROUP BY year"
        ).fetchall()
    )
    want = {}
    for v in validated:
        y = int(v["date"][:4]) if v.get("date") else None
        want[y] = want.get(y, 0) + 1
    assert years == want
    assert years[2023] == GAMES // 2
    # Positions: one row per ply of every game; the game keys join.
    plies = sum(v["plies"] for v in validated)
    pos = f"read_parquet('{out / 'positions'}/*.parquet')"
    rows = con.execute(f"SELECT count(*) FROM {pos}").fetchone()[0]
    # A game stops at a move that cannot be carried out: never more rows than plies.
    assert 0 < rows <= plies
    assert con.execute(f"SELECT count(*) FROM read_csv('{out / 'positions.csv'}', header = true)").fetchone()[0] == rows
    assert (
        con.execute(f"SELECT count(*) FROM read_json('{out / 'positions.jsonl'}', format = 'newline_delimited')").fetchone()[0]
        == rows
    )
    unjoined = con.execute(
        f"SELECT count(*) FROM {pos} p ANTI JOIN read_parquet('{out / 'games.parquet'}') g USING (game_key)"
    ).fetchone()[0]
    assert unjoined == 0
    illegal = con.execute(f"SELECT count(*) FROM {pos} WHERE NOT legal").fetchone()[0]
    assert illegal >= 1
    results = dict(con.execute(f"SELECT result, count(*) FROM {pos} GROUP BY result").fetchall())
    assert results.get("win", 0) > 0 and results.get("loss", 0) > 0


def test_duckdb_reads_chosen_columns_as_the_full_table(inputs, out, tmp_path):
    """`--columns sfen,move,result` (the engine trainer's table) in CSV, JSON Lines and
    Parquet: DuckDB reads those columns, typed, and the same rows as the full table's."""
    con = duckdb.connect()
    chosen = ["positions", "--no-progress", "--columns", "sfen,move,result"]
    (tmp_path / "p.csv").write_text(kifu(*chosen, str(inputs)))
    (tmp_path / "p.jsonl").write_text(kifu(*chosen, "--format", "json", str(inputs)))
    kifu(*chosen, "--format", "parquet", "-o", str(tmp_path / "p.parquet"), str(inputs))
    full = con.execute(
        f"SELECT sfen, move, result FROM read_parquet('{out / 'positions'}/*.parquet')"
    ).fetchall()
    assert len(full) > 50
    for src in [
        f"read_csv('{tmp_path / 'p.csv'}', header = true)",
        f"read_json('{tmp_path / 'p.jsonl'}', format = 'newline_delimited')",
        f"read_parquet('{tmp_path / 'p.parquet'}')",
    ]:
        described = con.execute(f"DESCRIBE SELECT * FROM {src}").fetchall()
        assert [r[0] for r in described] == ["sfen", "move", "result"], src
        assert con.execute(f"SELECT * FROM {src}").fetchall() == full, src


def docs_sql():
    text = (ROOT / "docs" / "tables.md").read_text()
    return [b for b in re.findall(r"```sql\n(.*?)```", text, re.S) if "shards/" in b]


def test_the_docs_join_gives_each_move_once_however_often_a_game_is_copied(inputs, tmp_path):
    """The join of docs/tables.md (positions to games on `path` and `game`), over an archive
    holding each floodgate game twice (two files) and repeated games within a file: one row
    per move that passes the query's condition, as pandas finds them without a join."""
    text = (ROOT / "docs" / "tables.md").read_text()
    (query,) = [b for b in re.findall(r"```sql\n(.*?)```", text, re.S) if "USING (path, game)" in b]
    src = tmp_path / "in"
    src.mkdir()
    games_text = floodgate_games(GAMES).replace("2600.0", "3100.0")
    (src / "a.csa").write_text(games_text)
    (src / "b.csa").write_text(games_text)
    kifu("games", "--no-progress", "--format", "parquet", "-o", str(tmp_path / "games.parquet"), str(src))
    kifu("positions", "--no-progress", "--format", "parquet", "-o", str(tmp_path / "positions.parquet"), str(src))
    positions = pq.read_table(tmp_path / "positions.parquet").to_pandas()
    games = pq.read_table(tmp_path / "games.parquet").to_pandas()
    assert positions.groupby("game_key")["path"].nunique().max() == 2, "each game in both files"
    rated = {
        (r.path, r.game)
        for r in games.itertuples()
        if min(r.black_rating, r.white_rating) >= 3000
    }
    want = sum(1 for r in positions.itertuples() if r.result == "win" and (r.path, r.game) in rated)
    assert want > 0
    cwd = os.getcwd()
    os.chdir(tmp_path)
    try:
        got = duckdb.connect().execute(query).fetchall()
        everything = duckdb.connect().execute(
            "SELECT count(*) FROM read_parquet('positions.parquet') p "
            "JOIN read_parquet('games.parquet') g USING (path, game)"
        ).fetchone()[0]
    finally:
        os.chdir(cwd)
    assert len(got) == want
    assert everything == len(positions)


def test_the_docs_duckdb_queries_run_over_shards(out, validated):
    queries = docs_sql()
    assert len(queries) == 3
    cwd = os.getcwd()
    os.chdir(out)
    try:
        con = duckdb.connect()
        by_opening, per_month, players = [con.execute(q).fetchall() for q in queries]
    finally:
        os.chdir(cwd)
    fg = [v for v in validated if v["path"].endswith("floodgate.csa")]
    assert sum(r[1] for r in by_opening) <= len(validated)
    assert sum(r[1] for r in per_month) == sum(1 for v in validated if v.get("date"))
    names = {v.get("black") for v in validated} | {v.get("white") for v in validated}
    assert {r[0] for r in players} == names - {None}
    q0 = next(r for r in players if r[0] == "q0")
    assert q0[1] == sum(1 for v in fg if v["white"] == "q0")
    assert q0[2] == sum(1 for v in fg if v["white"] == "q0" and v["result"]["winner"] == "white")


def docs_readers():
    text = (ROOT / "docs" / "tables.md").read_text()
    blocks = [b for b in re.findall(r"```python\n(.*?)```", text, re.S) if "pd.read_parquet" in b]
    assert len(blocks) == 1
    return blocks[0]


def partition_counts(validated, key):
    """Games per partition value as `--partition-by year|event` makes them: None for a game
    with no date or event, or an empty one."""
    want = {}
    for v in validated:
        value = v.get(key) or None
        if key == "date" and value:
            value = int(value[:4])
        want[value] = want.get(value, 0) + 1
    return want


@pytest.mark.parametrize("by,key", [("year", "date"), ("event", "event")])
def test_the_docs_readers_read_shards_with_null_partitions(inputs, validated, tmp_path, by, key):
    """The block of docs/tables.md that reads shards with DuckDB, polars, pyarrow.dataset and
    pandas, run over shards of games with no date (no event): each reader gives every game, the
    partition as a column, NULL for those games."""
    want = partition_counts(validated, key)
    assert None in want and len(want) > 2, want
    kifu("games", "--no-progress", "--format", "parquet", "--partition-by", by, "-o", str(tmp_path / "shards"), str(inputs))
    assert any("__HIVE_DEFAULT_PARTITION__" in p.name for p in (tmp_path / "shards").iterdir())
    cwd = os.getcwd()
    os.chdir(tmp_path)
    scope = {}
    try:
        exec(docs_readers(), scope)
        duck = scope["duck_games"].aggregate(f"{by}, count(*)").fetchall()
    finally:
        os.chdir(cwd)

    def counts(values):
        out = {}
        for v in values:
            v = None if v is None or (isinstance(v, float) and v != v) else v
            v = int(v) if by == "year" and v is not None else v
            out[v] = out.get(v, 0) + 1
        return out

    pl_games, arrow_games, pd_games = scope["pl_games"], scope["arrow_games"], scope["pd_games"]
    assert counts(pl_games[by].to_list()) == want, "polars"
    assert counts(arrow_games.column(by).to_pylist()) == want, "pyarrow.dataset"
    assert counts(pd_games[by].tolist()) == want, "pandas"
    assert dict(duck) == want, "DuckDB"
    assert len(pd_games) == len(pl_games) == arrow_games.num_rows == len(validated)
    if by == "year":
        assert str(pl_games.schema["year"]).startswith("Int"), pl_games.schema["year"]
        assert str(arrow_games.schema.field("year").type).startswith("int")
    # The other columns are there, typed, in every reader: the plies add up.
    plies = sum(v["plies"] for v in validated)
    assert int(pd_games["plies"].sum()) == pl_games["plies"].sum() == plies
