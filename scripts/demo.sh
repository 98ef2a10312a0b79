#!/usr/bin/env bash
# Sets everything up, builds, and runs the cleaner on the built-in sample session
# (samples/session.jsonl: an OpenClaw coding session with thinking, tool calls and five turns),
# printing what the model would see before and after, and the engine's log line.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
bash scripts/build.sh
node pkg-template/js/cli.js clean samples/session.jsonl
