#!/usr/bin/env bash
# Builds the page into web/dist: kifu-web compiled to wasm32-unknown-unknown, wasm-bindgen's
# glue (the `no-modules` target: a plain script, which a worker made from a Blob can run), and
# the static files. worker-source.js holds the worker's whole source (glue, the module's bytes
# in base64, worker.js) as one string, so the page needs no fetch and opens from a file on
# disk as well as from any static host. Needs the wasm32-unknown-unknown target and the
# wasm-bindgen CLI of the version web/Cargo.toml pins (see docs/web.md).
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build -p kifu-web --release --target wasm32-unknown-unknown
dist=web/dist
rm -rf "$dist"
mkdir -p "$dist/pkg"
wasm-bindgen --target no-modules --no-typescript --remove-name-section --remove-producers-section --out-dir "$dist/pkg" \
    target/wasm32-unknown-unknown/release/kifu_web.wasm
cp web/static/index.html web/static/style.css web/static/app.js "$dist/"
node web/bundle.js "$dist/pkg/kifu_web.js" "$dist/pkg/kifu_web_bg.wasm" web/static/worker.js \
    > "$dist/worker-source.js"
rm -rf "$dist/pkg"
echo "built $dist ($(du -sh "$dist" | cut -f1))"
