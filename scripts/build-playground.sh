#!/usr/bin/env bash
# Builds the browser playground into pkg-template/playground/, a folder that can be served
# as it is (bash scripts/playground.sh serves it). It holds the page, the shared JS it
# imports, the built-in samples, the plugin manifest (settings and their defaults) and a
# byte-identical copy of the wasm core the plugin ships (pkg-template/wasm/, made by
# scripts/build.sh, which calls this script at its end).
set -euo pipefail
cd "$(dirname "$0")/.."
say() { printf '[build-playground] %s\n' "$*" >&2; }

WASM=pkg-template/wasm
OUT=pkg-template/playground
if [ ! -f "$WASM/contextfold_bg.wasm" ] || [ ! -f "$WASM/contextfold.js" ]; then
  say "the wasm core is not built: run \`bash scripts/build.sh\` first"
  exit 1
fi
MANIFEST=openclaw.plugin.json
[ -f pkg-template/openclaw.plugin.json ] && MANIFEST=pkg-template/openclaw.plugin.json

# Built next to the old folder and swapped in whole, so a running server never serves half.
TMP="$OUT.tmp.$$"
trap 'rm -rf "$TMP"' EXIT
rm -rf "$TMP"
mkdir -p "$TMP/js/playground/views" "$TMP/js/core" "$TMP/wasm" "$TMP/samples"
cp js/playground/index.html "$TMP/index.html"
# every module of the page (serve.mjs, the development server, is not part of it)
cp js/playground/*.js js/playground/*.css "$TMP/js/playground/"
cp js/playground/views/*.js "$TMP/js/playground/views/"
cp js/core/core.js js/core/readers.js js/core/config.js js/core/describe.js js/core/types.js \
  js/core/cache.js js/core/pricing.js js/core/replay.js js/core/room.js "$TMP/js/core/"
cp "$WASM/contextfold.js" "$WASM/contextfold_bg.wasm" "$TMP/wasm/"
cp "$MANIFEST" "$TMP/openclaw.plugin.json"
cp samples/session.jsonl "$TMP/samples/session.jsonl"
cp samples/multitopic.jsonl "$TMP/samples/multitopic.jsonl"
for f in contextfold.js contextfold_bg.wasm; do
  cmp -s "$WASM/$f" "$TMP/wasm/$f" || { say "copy of $WASM/$f differs"; exit 1; }
done
rm -rf "$OUT"
mv "$TMP" "$OUT"
trap - EXIT
say "ok: $OUT/ ($(find "$OUT" -type f | wc -l) files; serve with \`bash scripts/playground.sh\`)"
