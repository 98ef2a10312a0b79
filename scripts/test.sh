#!/usr/bin/env bash
# Sets everything up and runs every test tier:
#   0. the JavaScript: lint and format (Biome), type check (tsc: js/ strict, the tests,
#      benchmarks and scripts loosely) (npm run check)
#   1. Rust: fmt, clippy (host and wasm32), cargo test (unit, property and data tests)
#   2. the wasm core through its real boundary under Node, the engine adapter and the CLI
#      against the built package (node --test tests/js), the dataset converters on the real
#      data in ../shared/data (node --test bench/convert/test)
#   3. the playground in headless Chromium (node --test tests/browser)
#   4. end to end against the real OpenClaw host with a fake model (node --test tests/e2e)
#   5. the release tarball (scripts/pack.sh) installed into a temporary project, the real host
#      and Chromium: CLI, library, plugin, playground (node --test tests/package)
#   6. the benchmark regression subset (bench/run.mjs --fast: invariants, recall above recency)
#   7. a short fuzzing run of every target (scripts/fuzz.sh)
set -euo pipefail
cd "$(dirname "$0")/.."
say() { printf '\n[test] %s\n' "$*" >&2; }

bash scripts/setup.sh --tests
bash scripts/setup-browser.sh
bash scripts/build.sh

# After the build: the type check reads the generated declarations of the wasm core.
say "npm run check (Biome lint and format, tsc type check)"
npm run check --silent

say "cargo fmt --check"
cargo fmt --all --check
say "cargo clippy (host, wasm32)"
cargo clippy --all-targets --quiet -- -D warnings
cargo clippy -p contextfold --target wasm32-unknown-unknown --quiet -- -D warnings
say "cargo test"
cargo test --quiet
say "node --test tests/js (built package)"
node --test tests/js/
say "behaviour check: clean and assemble outputs as recorded (scripts/identity.mjs)"
node scripts/identity.mjs
say "node --test bench/convert/test (dataset converters, real data)"
node --test bench/convert/test/
say "node --test tests/browser (playground in Chromium)"
node --test --test-concurrency=1 tests/browser/
say "node --test tests/e2e (real OpenClaw host)"
node --test --test-concurrency=1 tests/e2e/
say "node --test tests/package (the release tarball, installed)"
node --test --test-concurrency=1 tests/package/
say "benchmark regression subset (bench/run.mjs --fast)"
bash bench/setup.sh
node bench/run.mjs --fast
say "fuzzing, ${FUZZ_SECONDS:-15} s per target (scripts/fuzz.sh)"
bash scripts/fuzz.sh "${FUZZ_SECONDS:-15}"
