#!/usr/bin/env bash
# Installs what the benchmarks need (idempotent; run from anywhere):
#   - bench/node_modules from bench/package.json (npm `tiktoken`: exact o200k counts;
#     npm `typescript`: its JavaScript and its translated diagnostic messages are corpus text)
#   - the Debian package manpages-zh (Simplified Chinese man pages: the Chinese corpus of
#     bench/tokens), when apt-get is available and it is not installed yet
# The wasm core itself comes from `bash scripts/build.sh` (after `bash scripts/setup.sh`).
set -euo pipefail
cd "$(dirname "$0")"

say() { printf '[bench-setup] %s\n' "$*" >&2; }

if [ ! -f node_modules/tiktoken/package.json ] || [ ! -f node_modules/typescript/package.json ]; then
  say "installing bench packages (npm)"
  if [ -f package-lock.json ]; then
    npm ci --no-audit --no-fund --loglevel=error
  else
    npm install --no-audit --no-fund --loglevel=error
  fi
fi

if ! dpkg-query -W -f='${Status}' manpages-zh 2>/dev/null | grep -q 'install ok installed'; then
  if command -v apt-get >/dev/null; then
    SUDO=""
    [ "$(id -u)" = 0 ] || SUDO="sudo"
    say "installing manpages-zh (apt, ~5 MB)"
    # Minimised images (ubuntu, debian-slim) tell dpkg not to unpack /usr/share/man.
    if grep -qs '^path-exclude=/usr/share/man' /etc/dpkg/dpkg.cfg.d/*; then
      say "warning: a file in /etc/dpkg/dpkg.cfg.d/ excludes /usr/share/man; the pages will not be unpacked"
    fi
    $SUDO apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends manpages-zh >/dev/null
  else
    say "no apt-get: the Chinese category of bench/tokens will be skipped (see bench/tokens/README.md)"
  fi
fi
say "ok"
