"""The examples of docs/python.md run as written, from the repository root, in order (one
script, as a reader would paste them), and the README points at the package."""

from __future__ import annotations

import os
import re

from conftest import ROOT

DOC = ROOT / "docs" / "python.md"


def blocks() -> list[str]:
    return re.findall(r"```python\n(.*?)```", DOC.read_text(encoding="utf-8"), re.S)


def test_docs_examples_run(capsys) -> None:  # type: ignore[no-untyped-def]
    code = blocks()
    assert len(code) >= 6
    old = os.getcwd()
    os.chdir(ROOT)
    try:
        scope: dict[str, object] = {}
        for i, block in enumerate(code):
            exec(compile(block, f"docs/python.md block {i + 1}", "exec"), scope)
    finally:
        os.chdir(old)
    out = capsys.readouterr().out
    # The comments in the examples show what they print.
    assert "先手太郎 vs 後手花子" in out
    assert "nifu 16 6 9 P*7d ７四歩打" in out
    assert "no-piece 4" in out


def test_readme_says_how_to_install() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert "pip install ./python" in readme
    assert "docs/python.md" in readme
