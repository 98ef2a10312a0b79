#!/usr/bin/env bash
# Builds the wasm core once and fills pkg-template/ into an installable package directory:
#   pkg-template/wasm/   wasm-bindgen output (--target web; Node loads it with initSync)
#   pkg-template/js/     the JS layer (copied from js/)
#   pkg-template/openclaw.plugin.json, README.md, LICENSE
# The generated files are listed in pkg-template/.gitignore.
set -euo pipefail
cd "$(dirname "$0")/.."
say() { printf '[build] %s\n' "$*" >&2; }

say "cargo build (wasm32, release)"
cargo build -p contextfold --target wasm32-unknown-unknown --release --quiet
WASM=target/wasm32-unknown-unknown/release/contextfold.wasm
OUT=pkg-template
rm -rf "$OUT/wasm" "$OUT/js"
mkdir -p "$OUT/wasm"
wasm-bindgen --target web --out-dir "$OUT/wasm" --out-name contextfold \
  --remove-name-section --remove-producers-section "$WASM"
if [ "${WASM_OPT:-1}" = 1 ]; then
  # binaryen from npm (Debian's older wasm-opt produces modules that fail to instantiate).
  # The same flags as bench/size/measure.sh (keep them identical); what each one brings is in
  # bench/size/README.md.
  say "wasm-opt"
  node_modules/.bin/wasm-opt --flatten --rereloop -Oz -Oz --converge --low-memory-unused --zero-filled-memory \
    "$OUT/wasm/contextfold_bg.wasm" -o "$OUT/wasm/contextfold_bg.wasm"
fi
cp -R js "$OUT/js"
rm -rf "$OUT/js/playground"   # the playground is built into its own folder below
cp openclaw.plugin.json README.md LICENSE "$OUT/"
RAW=$(wc -c < "$OUT/wasm/contextfold_bg.wasm")
GZ=$(gzip -9 -c "$OUT/wasm/contextfold_bg.wasm" | wc -c)
say "ok: $OUT/ (contextfold_bg.wasm $RAW bytes, $GZ gzipped)"
bash scripts/build-playground.sh
