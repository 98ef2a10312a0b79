#!/usr/bin/env bash
# Installs the browser the playground test drives: Debian's chromium at /usr/bin/chromium.
# Does nothing when it is already there. The test itself installs nothing and skips
# without it.
set -euo pipefail
say() { printf '[setup-browser] %s\n' "$*" >&2; }
if [ -x /usr/bin/chromium ]; then
  say "ok: $(/usr/bin/chromium --version 2>/dev/null || echo /usr/bin/chromium)"
  exit 0
fi
SUDO=""
if [ "$(id -u)" != 0 ]; then SUDO="sudo"; fi
say "installing chromium (apt)"
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -q
$SUDO apt-get install -y -q chromium
say "ok: $(/usr/bin/chromium --version 2>/dev/null || echo /usr/bin/chromium)"
