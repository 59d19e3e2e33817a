#!/usr/bin/env python3
"""Counts the library's public face, so that anyone can see it grow or shrink.

Two counts:

* rough: items declared `pub` at the top level of a file in `src/` (the issue #46 count:
  `grep -rhE '^pub (fn|struct|enum|trait|type|const|static|mod|use) ' src | wc -l`);
* documented: from rustdoc's JSON (nightly: `cargo +nightly rustdoc --lib -- -Z
  unstable-options --output-format json`), the named paths a user of the crate can reach,
  and the public methods and fields of its types, `#[doc(hidden)]` left out as rustdoc leaves
  it out. Skipped, saying so, when no nightly toolchain is installed.

Usage: scripts/count-public.py [--no-rustdoc]
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
ROUGH = re.compile(r"^pub (fn|struct|enum|trait|type|const|static|mod|use) ")


def rough() -> int:
    n = 0
    for path in sorted((ROOT / "src").rglob("*.rs")):
        for line in path.read_text(encoding="utf-8").splitlines():
            if ROUGH.match(line):
                n += 1
    return n


def rustdoc_json() -> dict | None:
    cmd = [
        "cargo", "+nightly", "rustdoc", "--lib", "-q", "--",
        "-Z", "unstable-options", "--output-format", "json",
    ]
    r = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True)
    if r.returncode != 0:
        print(f"skip: rustdoc JSON needs a nightly toolchain ({r.stderr.strip()[:200]})")
        return None
    path = ROOT / "target" / "doc" / "kifu.json"
    return json.loads(path.read_text(encoding="utf-8"))


def inner_kind(item: dict) -> str:
    inner = item.get("inner")
    if isinstance(inner, dict) and inner:
        return next(iter(inner))
    return str(inner)


def documented(doc: dict) -> Counter:
    index = doc["index"]
    counts: Counter = Counter()
    # Named paths: what `kifu::...` reaches (rustdoc lists the crate's own in `paths`).
    for entry in doc["paths"].values():
        if entry.get("crate_id") == 0:
            counts["named paths"] += 1
            counts[f"  {entry.get('kind')}"] += 1
    for item in index.values():
        if item.get("crate_id") != 0:
            continue
        kind = inner_kind(item)
        if kind == "impl":
            impl = item["inner"]["impl"]
            if impl.get("is_synthetic") or impl.get("blanket_impl") is not None:
                continue
            trait = impl.get("trait")
            for member in impl.get("items", []):
                m = index.get(str(member)) or index.get(member)
                if m is None or inner_kind(m) != "function":
                    continue
                if trait is None and m.get("visibility") != "public":
                    continue
                counts["methods (inherent)" if trait is None else "methods (trait impls)"] += 1
        elif kind == "struct_field" and item.get("visibility") == "public":
            counts["public fields"] += 1
    return counts


def main() -> None:
    print(f"rough (top-level `pub` items in src/): {rough()}")
    if "--no-rustdoc" in sys.argv:
        return
    doc = rustdoc_json()
    if doc is None:
        return
    for k, v in sorted(documented(doc).items(), key=lambda kv: (kv[0].startswith("  "), kv[0])):
        print(f"{k}: {v}")


if __name__ == "__main__":
    main()
