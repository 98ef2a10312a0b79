#!/usr/bin/env bash
# Builds the browser playground if needed and serves it on http://127.0.0.1:8377
# (PORT=… to change). Everything runs in the browser; the server only hands out the files.
set -euo pipefail
cd "$(dirname "$0")/.."
say() { printf '[playground] %s\n' "$*" >&2; }

WASM=pkg-template/wasm/contextfold_bg.wasm
if [ ! -f "$WASM" ] || [ -n "$(find crate Cargo.toml Cargo.lock -newer "$WASM" -type f -print -quit 2>/dev/null)" ]; then
  say "building the wasm core and the package (scripts/build.sh)"
  bash scripts/build.sh # also builds the playground
elif [ ! -f pkg-template/playground/index.html ] || \
  [ -n "$(find js samples openclaw.plugin.json pkg-template/wasm -newer pkg-template/playground/index.html -type f -print -quit)" ]; then
  bash scripts/build-playground.sh
fi
exec node js/playground/serve.mjs pkg-template/playground --host 127.0.0.1 --port "${PORT:-8377}"
