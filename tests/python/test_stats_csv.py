"""`kifu stats --format csv` loads as one table in pandas and DuckDB, and agrees with
`stats --format json`.

Run by `.ci/run` from a virtualenv (pandas, duckdb, pyarrow, pytest) after the Rust tests:

    KIFU_BIN=target/debug/kifu python -m pytest tests/python

`KIFU_BIN` is the binary to test (default: `target/debug/kifu` in this repository); the test
fails, rather than skips, when it is missing.
"""

import io
import json
import os
import shutil
import subprocess
from pathlib import Path

import duckdb
import pandas as pd
import pytest

ROOT = Path(__file__).resolve().parents[2]
HEADER = [
    "section",
    "key",
    "value",
    "black",
    "white",
    "draw",
    "other",
    "wins",
    "losses",
    "draws",
    "path",
    "game",
]
SECTIONS = {
    "total",
    "results",
    "endings",
    "lengths",
    "histogram",
    "openings",
    "players",
    "events",
    "fouls",
    "duplicates",
    "time",
}
# More players than the 50 the player list used to be cut to.
GAMES = 60


def kifu_bin():
    path = Path(os.environ.get("KIFU_BIN", ROOT / "target" / "debug" / "kifu"))
    assert path.is_file(), f"no kifu binary at {path} (build it, or set KIFU_BIN)"
    return str(path)


def kifu(*args):
    p = subprocess.run([kifu_bin(), *args], capture_output=True, check=False)
    assert p.returncode == 0, p.stderr.decode(errors="replace")
    return p.stdout.decode()


@pytest.fixture(scope="module")
def inputs(tmp_path_factory):
    """The validate fixtures (clean games and fouls), and a CSA file of GAMES games of one
    opening, each between two players of its own whose names need CSV quoting."""
    root = tmp_path_factory.mktemp("stats")
    shutil.copytree(ROOT / "fixtures" / "validate", root / "fixtures")
    games = []
    for i in range(GAMES):
        games.append(
            f'V2.2\nN+Black, "{i:02}"\nN-White {i:02}\n$EVENT:cup, round {i % 3}\n'
            "PI\n+\n+7776FU\nT3\n-3334FU\nT5\n+8822UM\n-3122GI\n%TORYO\n"
        )
    (root / "many, players.csa").write_text("/\n".join(games))
    return root


@pytest.fixture(scope="module")
def report(inputs):
    return json.loads(kifu("stats", "--no-progress", "--format", "json", str(inputs)))


@pytest.fixture(scope="module")
def csv_file(inputs, tmp_path_factory):
    path = tmp_path_factory.mktemp("out") / "stats.csv"
    path.write_text(kifu("stats", "--no-progress", "--format", "csv", str(inputs)))
    return path


def test_pandas_reads_one_table(csv_file, report):
    df = pd.read_csv(csv_file, keep_default_na=False, na_values=[""])
    assert list(df.columns) == HEADER
    assert set(df["section"]) == SECTIONS
    for col in ["black", "white", "draw", "other", "wins", "losses", "draws", "game"]:
        assert pd.api.types.is_numeric_dtype(df[col]), col
    total = df[df.section == "total"].set_index("key")["value"]
    assert total["games"] == report["games"] > GAMES
    assert total["plies"] == report["plies"]
    assert total["files"] == report["files"]
    results = df[df.section == "results"].set_index("key")["value"].to_dict()
    assert results == {k: float(v) for k, v in report["results"].items()}
    endings = df[df.section == "endings"].set_index("key")["value"].to_dict()
    assert endings == {k: float(v) for k, v in report["endings"].items()}
    fouls = df[df.section == "fouls"].set_index("key")["value"].to_dict()
    assert fouls == {k: float(v) for k, v in report["fouls"].items()}
    assert fouls, "the foul fixtures give diagnostics"

    players = df[df.section == "players"]
    # Every player, not the first 50: two of their own in each generated game.
    assert len(players) == len(report["players"]) >= 2 * GAMES
    quoted = players[players.key == 'Black, "07"'].iloc[0]
    assert (quoted.value, quoted.wins, quoted.losses, quoted.draws) == (1, 0, 1, 0)
    for row, p in zip(players.itertuples(), report["players"]):
        assert (row.key, row.value, row.wins, row.losses, row.draws) == (
            p["name"],
            p["games"],
            p["wins"],
            p["losses"],
            p["draws"],
        )

    openings = df[df.section == "openings"]
    assert len(openings) == len(report["openings"])
    assert (openings.black + openings.white + openings.draw + openings.other == openings.value).all()

    lengths = df[df.section == "lengths"].set_index("key")["value"]
    assert lengths["max"] == report["lengths"]["max"]
    assert lengths["mean"] == pytest.approx(report["lengths"]["mean"], abs=1e-3)
    assert lengths["p50"] == report["lengths"]["percentiles"]["p50"]
    histogram = df[df.section == "histogram"]
    assert histogram["value"].sum() == report["games"]

    dup = df[df.section == "duplicates"]
    assert len(dup) == sum(len(d["locations"]) for d in report["duplicates"])
    many = dup[dup.path.str.endswith("many, players.csa")]
    assert sorted(many.game) == list(range(GAMES))

    events = df[df.section == "events"].set_index("key")["value"].to_dict()
    assert events == {k: float(v) for k, v in report["events"].items()}
    time = df[df.section == "time"].set_index("key")["value"]
    assert time["timed_moves"] == report["time"]["timed_moves"]
    assert time["mean_seconds_per_move"] == pytest.approx(
        report["time"]["mean_seconds_per_move"], abs=1e-3
    )


def test_duckdb_reads_one_table(csv_file, report):
    con = duckdb.connect()
    rel = con.read_csv(str(csv_file), header=True)
    assert rel.columns == HEADER
    rows = con.execute(
        "SELECT count(*) FROM read_csv(?, header = true)", [str(csv_file)]
    ).fetchone()[0]
    assert rows == len(pd.read_csv(csv_file))
    games, wins, losses, draws = con.execute(
        "SELECT sum(value), sum(wins), sum(losses), sum(draws) "
        "FROM read_csv(?, header = true) WHERE section = 'players'",
        [str(csv_file)],
    ).fetchone()
    players = report["players"]
    assert games == sum(p["games"] for p in players)
    assert (wins, losses, draws) == (
        sum(p["wins"] for p in players),
        sum(p["losses"] for p in players),
        sum(p["draws"] for p in players),
    )
    by_section = dict(
        con.execute(
            "SELECT section, count(*) FROM read_csv(?, header = true) GROUP BY section",
            [str(csv_file)],
        ).fetchall()
    )
    assert set(by_section) == SECTIONS
    assert by_section["openings"] == len(report["openings"])
    assert by_section["endings"] == len(report["endings"])


def test_the_csv_is_rfc_4180(csv_file):
    """Every record has the header's number of fields, CRLF-free, quoted where needed."""
    import csv

    with open(csv_file, newline="") as f:
        records = list(csv.reader(f, strict=True))
    assert records[0] == HEADER
    assert all(len(r) == len(HEADER) for r in records)
    assert ["players", 'Black, "07"'] == records[
        next(i for i, r in enumerate(records) if r[1] == 'Black, "07"')
    ][:2]
    assert '"Black, ""07"""' in io.open(csv_file).read()
