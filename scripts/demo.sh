#!/usr/bin/env bash
# Sets everything up, builds, and runs the engine on the built-in sample sessions:
#   1. clean: samples/session.jsonl (a five-turn coding session with thinking and tool calls):
#      what the model would see before and after, and the engine's log line;
#   2. fold:  samples/multitopic.jsonl (a day of questions on four subjects) fitted to a
#      900-token budget, with the upcoming prompt about an earlier subject: the per-turn
#      decisions (kept, cleaned, stubbed, summarized) and the messages the model would see.
#      The five protected recent turns take ~430 tokens; the hike turns the prompt brings back
#      need ~320 more, so the budget leaves room for them and folds the bread turns.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
bash scripts/build.sh
CLI="node pkg-template/js/cli.js"
printf '\n== clean: samples/session.jsonl ==\n'
$CLI clean samples/session.jsonl
printf '\n== fold: samples/multitopic.jsonl, budget 900 tokens ==\n'
$CLI assemble samples/multitopic.jsonl --budget 900 --prompt "And how long does the whole Alta Via 1 take?"
