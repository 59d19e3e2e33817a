"""The extension allocates with mimalloc, whose options are read from the environment when the
extension is loaded: `import kifu` sets lazily committed arenas first (which keeps a streaming
loop's resident memory low) and keeps a value the user chose."""

from __future__ import annotations

import os
import subprocess
import sys

VAR = "MIMALLOC_ARENA_EAGER_COMMIT"
CODE = f"import os, kifu; print(os.environ[{VAR!r}]); print(len(kifu.parse('startpos moves 7g7f')))"


def run(env: dict[str, str]) -> list[str]:
    out = subprocess.run([sys.executable, "-c", CODE], env=env, capture_output=True, text=True, check=True)
    return out.stdout.split()


def test_import_sets_lazy_arenas_unless_the_user_chose() -> None:
    env = {k: v for k, v in os.environ.items() if k != VAR}
    assert run(env) == ["0", "1"]
    env[VAR] = "1"
    assert run(env) == ["1", "1"]
