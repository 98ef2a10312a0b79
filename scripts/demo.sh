#!/usr/bin/env bash
# Sets everything up, builds, and runs the engine on the built-in sample sessions:
#   1. clean: samples/session.jsonl (a five-turn coding session with thinking and tool calls):
#      what the model would see before and after, and the engine's log line;
#   2. fold:  samples/multitopic.jsonl (a day of questions on four subjects) fitted to a
#      1,400-token budget, with the upcoming prompt about an earlier subject: the per-turn
#      decisions (kept, cleaned, masked, stubbed, summarized) and the messages the model would
#      see. The plan folds down to 60 % of the budget (the room above is for the next turns to
#      append to): the hike turns the prompt refers to are not stubbed (the first, the largest,
#      goes as its extractive summary), and bread and script turns fold to stubs until the
#      plan is down to that 60 %.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
bash scripts/build.sh
CLI="node pkg-template/js/cli.js"
printf '\n== clean: samples/session.jsonl ==\n'
$CLI clean samples/session.jsonl
printf '\n== fold: samples/multitopic.jsonl, budget 1,400 tokens ==\n'
$CLI assemble samples/multitopic.jsonl --budget 1400 --prompt "And how long does the whole Alta Via 1 take?"
