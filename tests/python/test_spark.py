"""The PySpark example of docs/tables.md runs over shards `kifu games` and `kifu positions`
write, in local mode, and reads every game. Skipped, with the reason shown, where `pyspark`
is not installed (it is not in `.ci/run`'s virtualenv: about 300 MB; it needs Java 17).

    KIFU_BIN=target/debug/kifu python -m pytest -rs tests/python/test_spark.py
"""

import contextlib
import io
import os
import re
import shutil
from pathlib import Path

import pytest

pyspark = pytest.importorskip(
    "pyspark", reason="pyspark is not installed: the PySpark example of docs/tables.md is not run"
)

from test_tables import GAMES, ROOT, floodgate_games, kifu  # noqa: E402


def docs_python():
    text = (ROOT / "docs" / "tables.md").read_text()
    blocks = [b for b in re.findall(r"```python\n(.*?)```", text, re.S) if "SparkSession" in b]
    assert len(blocks) == 1
    return blocks[0]


def test_the_docs_pyspark_example_reads_the_shards(tmp_path):
    if shutil.which("java") is None and not os.environ.get("JAVA_HOME"):
        pytest.skip("no Java: PySpark needs a JVM")
    src = tmp_path / "in"
    src.mkdir()
    (src / "floodgate.csa").write_text(floodgate_games(GAMES))
    out = tmp_path / "out"
    out.mkdir()
    kifu("games", "--no-progress", "--format", "parquet", "--partition-by", "year", "-o", str(out / "shards"), str(src))
    kifu("positions", "--no-progress", "--format", "parquet", "-o", str(out / "positions") + "/", str(src))
    cwd = os.getcwd()
    os.chdir(out)
    scope = {}
    shown = io.StringIO()
    try:
        with contextlib.redirect_stdout(shown):
            exec(docs_python(), scope)
        games, positions, spark = scope["games"], scope["positions"], scope["spark"]
        assert games.count() == GAMES
        years = {r["year"]: r["count"] for r in games.groupBy("year").count().collect()}
        assert years == {2023: GAMES // 2, 2024: GAMES // 2}
        assert dict(games.dtypes)["start_date"] == "date"
        assert dict(games.dtypes)["opening"] == "array<string>"
        assert positions.count() > GAMES * 4 - 5
        spark.stop()
    finally:
        os.chdir(cwd)
    assert "black_wins" in shown.getvalue()
