#!/usr/bin/env bash
# Differential check of the rules core against cshogi: see scripts/oracle-diff.py.
#   scripts/oracle-diff.sh [CASES] [SEED]
# cshogi is installed from PyPI into $KIFU_PEERS_DIR/venv (default ~/.cache/kifu-peers),
# outside the repository; it is an oracle for this script only, never a dependency.
set -euo pipefail
cd "$(dirname "$0")/.."
PEERS=${KIFU_PEERS_DIR:-$HOME/.cache/kifu-peers}
if [ ! -x "$PEERS/venv/bin/python" ]; then
  python3 -m venv "$PEERS/venv"
fi
"$PEERS/venv/bin/python" -c "import cshogi" 2>/dev/null || "$PEERS/venv/bin/pip" install -q cshogi
cargo build --release -q --bin kifu
exec "$PEERS/venv/bin/python" scripts/oracle-diff.py "$@"
