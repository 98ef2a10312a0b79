#!/usr/bin/env bash
# Runs every fuzz target of fuzz/ for N seconds each (default 20), one after the other.
#   bash scripts/fuzz.sh [seconds] [target ...]
# Installs cargo-fuzz when it is missing. The toolchain is stable: RUSTC_BOOTSTRAP=1 lets it
# take the sanitizer flags cargo fuzz passes. Corpora grow in fuzz/corpus/<target>/ (seeded
# from fuzz/seeds/<target>/); a crash leaves its input in fuzz/artifacts/<target>/ and fails
# the run. Longer runs: fuzz/README.md.
set -euo pipefail
cd "$(dirname "$0")/.."
say() { printf '[fuzz] %s\n' "$*" >&2; }

SECONDS_EACH="${1:-20}"
shift || true
TARGETS=("$@")
[ ${#TARGETS[@]} -gt 0 ] || TARGETS=(transcript clean_json clean_shapes planner)

if ! cargo fuzz --version >/dev/null 2>&1; then
  say "installing cargo-fuzz"
  # Not --locked: its lock can pin versions newer than the registry this machine reaches.
  cargo install cargo-fuzz
fi

export RUSTC_BOOTSTRAP=1
cd fuzz
say "building the targets"
cargo fuzz build
status=0
for t in "${TARGETS[@]}"; do
  mkdir -p "corpus/$t"
  seeds=()
  [ -d "seeds/$t" ] && seeds=("seeds/$t")
  dict=()
  case "$t" in clean_json | transcript) dict=(-dict=messages.dict) ;; esac
  say "$t: ${SECONDS_EACH}s"
  if ! cargo fuzz run "$t" "corpus/$t" "${seeds[@]}" -- -max_total_time="$SECONDS_EACH" -max_len=65536 -timeout=20 -rss_limit_mb=3072 -print_final_stats=1 "${dict[@]}" 2>"corpus/$t.log"; then
    say "$t: FAILED (see fuzz/corpus/$t.log and fuzz/artifacts/$t/)"
    tail -40 "corpus/$t.log" >&2
    status=1
  else
    say "$t: ok ($(grep -E '^stat::number_of_executed_units' "corpus/$t.log" | awk '{print $2}') runs)"
  fi
done
exit $status
