"""Read, check and convert shogi game records (KIF, KI2, CSA, USI/SFEN, JKF) from Python.

The work is done in Rust by the ``kifu`` crate, with the GIL released; ``iter_games`` and
``validate`` read and check many files in parallel and yield results in input order.

>>> import kifu
>>> [game] = kifu.parse("position startpos moves 7g7f 3c3d 8h2b+\\n")
>>> game.moves
['7g7f', '3c3d', '8h2b+']
>>> game.validate().ok
True

See docs/python.md for the whole API.
"""

from __future__ import annotations

from typing import Any

from ._kifu import (
    Diagnostic,
    Game,
    GameIterator,
    IllegalMove,
    KifuError,
    ParseError,
    Position,
    Report,
    ReportIterator,
    _write_table,
    codes,
    iter_games,
    parse,
    read,
    validate,
)

__all__ = [
    "Diagnostic",
    "Game",
    "GameIterator",
    "IllegalMove",
    "KifuError",
    "ParseError",
    "Position",
    "Report",
    "ReportIterator",
    "codes",
    "games_table",
    "iter_games",
    "parse",
    "positions_table",
    "read",
    "validate",
]

__version__ = "0.1.0"

def _table(paths: Any, positions: bool, **options: Any) -> Any:
    import os
    import tempfile

    try:
        import pyarrow.parquet as pq
    except ImportError as e:  # pragma: no cover - pyarrow is a test dependency
        raise ImportError("kifu's tables need pyarrow: pip install pyarrow") from e
    # The Rust side writes Parquet (typed Arrow columns) with the GIL released; pyarrow reads
    # it into memory, and the file goes.
    fd, tmp = tempfile.mkstemp(prefix="kifu-table-", suffix=".parquet")
    os.close(fd)
    try:
        _write_table(paths, tmp, positions=positions, **options)
        return pq.read_table(tmp, memory_map=False)
    finally:
        os.unlink(tmp)


def games_table(paths: Any, **options: Any) -> Any:
    """One row per game of ``paths`` (files, directories, archives) as a ``pyarrow.Table``:
    the columns of ``kifu games`` (docs/tables.md). Options: ``jobs``, ``format``,
    ``encoding``, ``opening_plies`` (default 8) and the filters ``min_rating``,
    ``min_rating_any``, ``min_plies``, ``max_plies``, ``ending`` (list), ``clean``, ``since``,
    ``until`` (``YYYY-MM-DD``), ``player`` (list), ``event`` (list), ``dedup``."""
    return _table(paths, False, **options)


def positions_table(paths: Any, **options: Any) -> Any:
    """One row per move of every main line of ``paths`` as a ``pyarrow.Table``: the columns of
    ``kifu positions`` (game key, ply, SFEN before the move, side, move in USI, time, engine
    eval and PV, legality, result for the mover). Options as for :func:`games_table`."""
    return _table(paths, True, **options)
