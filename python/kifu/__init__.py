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

_TABLES_PENDING = (
    "{name}() is not in this build of kifu yet: the Arrow tables are being added to the Rust "
    "crate (issue #22); until then, build rows from kifu.iter_games()"
)


def games_table(paths: Any, **kwargs: Any) -> Any:
    """One row per game as a ``pyarrow.Table`` (not available yet: raises NotImplementedError)."""
    raise NotImplementedError(_TABLES_PENDING.format(name="games_table"))


def positions_table(paths: Any, **kwargs: Any) -> Any:
    """One row per position as a ``pyarrow.Table`` (not available yet: raises NotImplementedError)."""
    raise NotImplementedError(_TABLES_PENDING.format(name="positions_table"))
