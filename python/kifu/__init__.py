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

import os
from typing import Any

# The extension allocates with mimalloc, which reads its options from the environment when the
# extension is loaded, just below. Arenas committed as they are used (not all at once, the
# default where memory is overcommitted) keep a streaming loop's resident memory flat; a value
# the user set is kept.
os.environ.setdefault("MIMALLOC_ARENA_EAGER_COMMIT", "0")

from ._kifu import (  # noqa: E402  (after the allocator's setting)
    Diagnostic,
    Game,
    GameIterator,
    IllegalMove,
    KifuError,
    ParseError,
    Position,
    Report,
    ReportIterator,
    TableStream,
    _table_stream,
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
    "TableStream",
    "codes",
    "games_batches",
    "games_stream",
    "games_table",
    "iter_games",
    "parse",
    "positions_batches",
    "positions_stream",
    "positions_table",
    "read",
    "validate",
]

__version__ = "0.1.0"

def _reader(paths: Any, positions: bool, **options: Any) -> Any:
    try:
        import pyarrow as pa
    except ImportError as e:  # pragma: no cover - pyarrow is a test dependency
        raise ImportError("kifu's tables need pyarrow: pip install pyarrow") from e
    # The Rust side makes the record batches on a thread of its own (no GIL) and hands them
    # over through Arrow's C stream interface: no file, no copy, no Python object per row.
    return pa.RecordBatchReader.from_stream(_table_stream(paths, positions=positions, **options))


def games_table(paths: Any, **options: Any) -> Any:
    """One row per game of ``paths`` (files, directories, archives) as a ``pyarrow.Table``:
    the columns of ``kifu games`` (docs/tables.md). Options: ``jobs``, ``format``,
    ``encoding``, ``opening_plies`` (default 8) and the filters ``min_rating``,
    ``min_rating_any``, ``min_plies``, ``max_plies``, ``ending`` (list), ``clean``, ``since``,
    ``until`` (``YYYY-MM-DD``), ``player`` (list), ``event`` (list), ``dedup``, and
    ``columns`` (a list of column names: only those, in that order; the positions table
    without ``sfen`` is made without writing a single SFEN)."""
    return _reader(paths, False, **options).read_all()


def positions_table(paths: Any, **options: Any) -> Any:
    """One row per move of every main line of ``paths`` as a ``pyarrow.Table``: the columns of
    ``kifu positions`` (game key, ply, SFEN before the move, side, move in USI, time, engine
    eval and PV, legality, result for the mover). Options as for :func:`games_table`."""
    return _reader(paths, True, **options).read_all()


def games_batches(paths: Any, batch_rows: int = 0, **options: Any) -> Any:
    """The games table as a ``pyarrow.RecordBatchReader``: record batches of ``batch_rows``
    rows (0: 16,384) made while the reader reads, so memory stays flat however many games
    pass. Options as for :func:`games_table`."""
    return _reader(paths, False, batch_rows=batch_rows, **options)


def positions_batches(paths: Any, batch_rows: int = 0, **options: Any) -> Any:
    """The positions table as a ``pyarrow.RecordBatchReader`` of batches of ``batch_rows``
    rows (0: 65,536), made while the reader reads. Options as for :func:`games_table`."""
    return _reader(paths, True, batch_rows=batch_rows, **options)


def games_stream(paths: Any, **options: Any) -> TableStream:
    """The games table as an object of the Arrow PyCapsule interface
    (``__arrow_c_stream__``), for any Arrow reader: ``pyarrow.table(s)``,
    ``polars.DataFrame(s)``, ``duckdb``... Read once. Options as for :func:`games_batches`."""
    return _table_stream(paths, positions=False, **options)


def positions_stream(paths: Any, **options: Any) -> TableStream:
    """The positions table as an object of the Arrow PyCapsule interface; see
    :func:`games_stream`."""
    return _table_stream(paths, positions=True, **options)
