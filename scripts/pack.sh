#!/usr/bin/env bash
# Builds the release artifact: the wasm core and the package directory (scripts/build.sh),
# then `npm pack` of pkg-template/ into dist/contextfold-<version>.tgz. The tarball holds the
# runtime files only (package.json's "files": js/, wasm/, playground/, openclaw.plugin.json,
# README.md, LICENSE); tests/package/ installs it where the repository is out of reach.
#   bash scripts/pack.sh              build, then pack
#   bash scripts/pack.sh --no-build   pack what pkg-template/ holds (after scripts/build.sh)
# Prints the tarball's path on stdout, its size and file count on stderr.
set -euo pipefail
cd "$(dirname "$0")/.."
say() { printf '[pack] %s\n' "$*" >&2; }

if [ "${1:-}" != "--no-build" ]; then
  bash scripts/build.sh
elif [ ! -f pkg-template/wasm/contextfold_bg.wasm ] || [ ! -f pkg-template/playground/index.html ]; then
  say "pkg-template/ is not built: run \`bash scripts/build.sh\` first"
  exit 1
fi
mkdir -p dist
# npm pack names the tarball after the package; an older one of the same version goes first.
rm -f dist/contextfold-*.tgz
JSON=$(cd pkg-template && npm pack --pack-destination ../dist --json --loglevel=error)
node -e '
  const [p] = JSON.parse(process.argv[1]);
  const kib = (b) => (b / 1024).toFixed(1) + " KiB";
  process.stderr.write(`[pack] ok: dist/${p.filename} (${p.entryCount} files, ${kib(p.size)} packed, ${kib(p.unpackedSize)} unpacked)\n`);
  process.stdout.write(`dist/${p.filename}\n`);
' "$JSON"
