"""Shared fixtures of the Python package's tests: the repository's record fixtures."""

from __future__ import annotations

from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = ROOT / "fixtures"


@pytest.fixture
def fixtures() -> Path:
    return FIXTURES


@pytest.fixture
def root() -> Path:
    return ROOT


def spins_alongside(fn) -> tuple[float, float]:  # type: ignore[no-untyped-def]
    """Runs fn on a thread while this thread spins; returns (spins done, spins that a free
    thread would do in the same time). With the GIL released by fn the two are close; held,
    this thread only runs in the interpreter's switch intervals before fn enters Rust."""
    import threading
    import time

    def spin_for(seconds: float) -> int:
        n = 0
        end = time.perf_counter() + seconds
        while time.perf_counter() < end:
            n += 1
        return n

    rate = spin_for(0.2) / 0.2
    t = threading.Thread(target=fn)
    t0 = time.perf_counter()
    t.start()
    spins = 0
    while t.is_alive():
        spins += 1
        time.perf_counter()
    elapsed = time.perf_counter() - t0
    t.join()
    return spins, rate * elapsed
