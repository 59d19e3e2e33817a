"""The PySpark example of docs/tables.md runs over shards `kifu games` and `kifu positions`
write, in local mode, and reads every game, those with no date or event (a NULL partition)
too. Skipped, with the reason shown, where `pyspark` is not installed; `.ci/run` installs it
(about 400 MB, 20 s; it needs Java 17) and sets `KIFU_REQUIRE_PYSPARK=1`, which turns the skip
into a failure.

    KIFU_BIN=target/debug/kifu python -m pytest -rs tests/python/test_spark.py
"""

import contextlib
import io
import json
import os
import re
import shutil
from pathlib import Path

import pytest

try:
    import pyspark  # noqa: F401
except ImportError:
    if os.environ.get("KIFU_REQUIRE_PYSPARK"):
        raise
    pytest.skip("pyspark is not installed: the PySpark example of docs/tables.md is not run", allow_module_level=True)

from test_tables import GAMES, ROOT, floodgate_games, kifu, partition_counts  # noqa: E402


def docs_python():
    text = (ROOT / "docs" / "tables.md").read_text()
    blocks = [b for b in re.findall(r"```python\n(.*?)```", text, re.S) if "SparkSession" in b]
    assert len(blocks) == 1
    return blocks[0]


def test_the_docs_pyspark_example_reads_the_shards(tmp_path):
    if shutil.which("java") is None and not os.environ.get("JAVA_HOME"):
        assert not os.environ.get("KIFU_REQUIRE_PYSPARK"), "no Java: PySpark needs a JVM"
        pytest.skip("no Java: PySpark needs a JVM")
    src = tmp_path / "in"
    # The fixtures: games with no date and no event, beside the dated floodgate ones.
    shutil.copytree(ROOT / "fixtures" / "validate", src)
    (src / "floodgate.csa").write_text(floodgate_games(GAMES))
    validated = [
        json.loads(x)
        for x in kifu("validate", "--no-progress", "--format", "json", str(src), codes=(1,)).splitlines()
    ]
    validated = [v for v in validated if v.get("game") is not None]
    out = tmp_path / "out"
    out.mkdir()
    kifu("games", "--no-progress", "--format", "parquet", "--partition-by", "year", "-o", str(out / "shards"), str(src))
    kifu("games", "--no-progress", "--format", "parquet", "--partition-by", "event", "-o", str(out / "events"), str(src))
    kifu("positions", "--no-progress", "--format", "parquet", "-o", str(out / "positions") + "/", str(src))
    cwd = os.getcwd()
    os.chdir(out)
    scope = {}
    shown = io.StringIO()
    try:
        with contextlib.redirect_stdout(shown):
            exec(docs_python(), scope)
        games, positions, spark = scope["games"], scope["positions"], scope["spark"]
        assert games.count() == len(validated)
        years = {r["year"]: r["count"] for r in games.groupBy("year").count().collect()}
        assert years == partition_counts(validated, "date")
        assert years[2023] == GAMES // 2 and years[None] > 0
        events = spark.read.parquet("events")
        by_event = {r["event"]: r["count"] for r in events.groupBy("event").count().collect()}
        assert by_event == partition_counts(validated, "event")
        assert dict(games.dtypes)["start_date"] == "date"
        assert dict(games.dtypes)["opening"] == "array<string>"
        assert positions.count() > GAMES * 4 - 5
        spark.stop()
    finally:
        os.chdir(cwd)
    assert "black_wins" in shown.getvalue()
