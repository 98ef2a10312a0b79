#!/usr/bin/env bash
# Measures the wasm core that scripts/build.sh ships, and breaks its size down.
#
#   bash bench/size/measure.sh               # build, sizes, breakdown, largest functions
#   TOP=50 bash bench/size/measure.sh        # more rows in the lists of functions
#   NO_BUILD=1 bash bench/size/measure.sh    # reuse the last cargo build
#   SHIPPED_TOP=1 bash bench/size/measure.sh # also the largest functions after wasm-opt
#                                            # (named, ~1 min more)
#
# The cargo output is processed twice:
#   * shipped: exactly as scripts/build.sh does it (wasm-bindgen --remove-name-section
#     --remove-producers-section, then binaryen's wasm-opt with $WASM_OPT_FLAGS); its raw and
#     gzip -9 sizes are the figures to compare;
#   * profiled: wasm-bindgen --keep-debug without wasm-opt, so that twiggy can name every
#     function. It is larger than the shipped module (no wasm-opt, and the name section), but
#     its shares are representative, and before wasm-opt's inlining code is still attributed
#     to the function that holds it.
# The breakdown sorts the profiled module's functions and data into kinds of code (std sorts,
# float formatting, serde, hash maps, ...) and contextfold's own code by module.
#
# Needs wasm-bindgen, node_modules/.bin/wasm-opt (npm binaryen) and twiggy (cargo install
# twiggy). Writes to $OUT (default /tmp/contextfold-size); never touches pkg-template/.
set -euo pipefail
cd "$(dirname "$0")/../.."
OUT=${OUT:-/tmp/contextfold-size}
TOP=${TOP:-30}
TWIGGY=${TWIGGY:-$(command -v twiggy || echo "$HOME/.cargo/bin/twiggy")}
WASM_OPT=node_modules/.bin/wasm-opt
# scripts/build.sh's wasm-opt flags (keep them identical).
WASM_OPT_FLAGS="--flatten --rereloop -Oz -Oz --converge --low-memory-unused --zero-filled-memory"
mkdir -p "$OUT/shipped" "$OUT/profiled"

if [ "${NO_BUILD:-0}" != 1 ]; then
  cargo build -p contextfold --target wasm32-unknown-unknown --release --quiet
fi
WASM=${CARGO_TARGET_DIR:-target}/wasm32-unknown-unknown/release/contextfold.wasm

wasm-bindgen --target web --out-dir "$OUT/shipped" --out-name contextfold \
  --remove-name-section --remove-producers-section "$WASM"
"$WASM_OPT" $WASM_OPT_FLAGS "$OUT/shipped/contextfold_bg.wasm" -o "$OUT/shipped/contextfold_bg.wasm"
wasm-bindgen --target web --out-dir "$OUT/profiled" --out-name contextfold --keep-debug "$WASM"

size_of() { wc -c < "$1" | tr -d ' '; }
RAW=$(size_of "$OUT/shipped/contextfold_bg.wasm")
GZ=$(gzip -9 -c "$OUT/shipped/contextfold_bg.wasm" | wc -c | tr -d ' ')
kb() { awk -v b="$1" 'BEGIN { printf "%.1f KB", b / 1024 }'; }
echo "cargo output      $(size_of "$WASM") bytes"
echo "shipped, raw      $RAW bytes ($(kb "$RAW"))"
echo "shipped, gzip -9  $GZ bytes ($(kb "$GZ"))"

"$TWIGGY" top -n 1000000 --format csv "$OUT/profiled/contextfold_bg.wasm" > "$OUT/profiled.csv"
node - "$OUT/profiled.csv" "$TOP" <<'JS'
const fs = require("fs");
const [file, top] = process.argv.slice(2);
// twiggy csv: Name,ShallowSize,...; names with commas are quoted ("" inside quotes).
const parse = (line) => {
  const out = [];
  let cur = "";
  let q = false;
  for (let i = 0; i < line.length; i++) {
    const ch = line[i];
    if (ch === '"' && q && line[i + 1] === '"') { cur += '"'; i++; }
    else if (ch === '"') q = !q;
    else if (ch === "," && !q) { out.push(cur); cur = ""; }
    else cur += ch;
  }
  out.push(cur);
  return out;
};
const STD = ["core", "alloc", "std", "str", "char", "T", "u8", "u32", "u64", "usize", "f64", "i64", "__rustc", "compiler_builtins"];
const kind = (raw) => {
  const name = raw.replace(/\[[0-9a-f]{16}\]/g, "").replace(/::h[0-9a-f]{16}$/, "");
  if (/^data segment/.test(name)) return "data (.rodata: strings, tables, panic locations)";
  if (/subsection$/.test(name)) return "name section (not shipped)";
  if (/^(type|import|export|elem|table|memory|global|custom|code section|data section)\b|section headers|wasm magic/.test(name)) return "wasm structure";
  if (/multivalue shim/.test(name)) return "wasm-bindgen exports and glue";
  if (/flt2dec|fmt::float|num::bignum|num::diy_float|<f64 as core::fmt::Display>/.test(name)) return "float formatting (core::fmt, flt2dec)";
  if (/core::unicode|<char>::to_lowercase|<str>::to_lowercase|escape_debug/.test(name)) return "unicode tables and case mapping";
  if (/core::slice::sort/.test(name)) return "std sorts";
  if (/btree/.test(name)) return "BTreeMap / BTreeSet";
  if (/hashbrown|indexmap|core::hash|siphash/i.test(name)) return "hash maps (hashbrown, indexmap, SipHash)";
  if (/dlmalloc|__rdl_|__rust_alloc|__rust_dealloc|__rust_realloc/.test(name)) return "allocator (dlmalloc)";
  if (/^<?contextfold::([A-Za-z_]+::)?_::<impl serde/.test(name)) return "serde derives of contextfold types";
  if (/serde_json|serde_core|serde::|zmij|itoa/.test(name) && !/^<?contextfold::/.test(name)) return "serde_json / serde (parse, print, visitors)";
  const m = name.match(/^<?(?:&mut |&)?([A-Za-z_][A-Za-z0-9_]*)(?:::([A-Za-z_][A-Za-z0-9_]*))?/);
  if (!m) return "other";
  if (!name.includes("::")) return "wasm-bindgen exports and glue";
  const [, krate, mod] = m;
  if (krate === "contextfold") return "contextfold::" + (mod && mod !== "_" ? mod : "(lib.rs)");
  if (STD.includes(krate) || /^([A-Z]|bool|dyn|i32|i64|u16|f32)$/.test(krate)) return /fmt|panic/.test(name) ? "std fmt and panics" : "std generic code (Vec, String, iterators, str search)";
  return krate;
};
const rows = fs.readFileSync(file, "utf8").trim().split("\n").slice(1).map(parse)
  .map(([name, size]) => [name, Number(size)]).filter(([, s]) => Number.isFinite(s));
const total = rows.reduce((a, [, s]) => a + s, 0);
const sum = (pairs) => {
  const m = new Map();
  for (const [k, s] of pairs) m.set(k, (m.get(k) || 0) + s);
  return [...m].sort((a, b) => b[1] - a[1]);
};
const show = (title, list) => {
  console.log(`\n${title}`);
  for (const [k, s] of list) console.log(`  ${String(s).padStart(8)}  ${(100 * s / total).toFixed(1).padStart(5)}%  ${k}`);
};
const kinds = rows.map(([n, s]) => [kind(n), s]);
console.log(`\nprofiled module (before wasm-opt, with names): ${total} bytes`);
show("by kind of code", sum(kinds.map(([k, s]) => [k.startsWith("contextfold::") ? "contextfold (own code)" : k, s])));
show("contextfold by module", sum(kinds.filter(([k]) => k.startsWith("contextfold::"))).slice(0, 30));
show(`largest functions and data (top ${top})`, rows.filter(([n]) => !/subsection$/.test(n)).sort((a, b) => b[1] - a[1]).slice(0, Number(top)));
JS

if [ "${SHIPPED_TOP:-0}" = 1 ]; then
  # The shipped optimisation, with names kept (-g): what is left after inlining.
  "$WASM_OPT" $WASM_OPT_FLAGS -g "$OUT/profiled/contextfold_bg.wasm" -o "$OUT/optimized-named.wasm"
  echo
  echo "largest items after wasm-opt (twiggy top, names kept):"
  "$TWIGGY" top -n "$TOP" "$OUT/optimized-named.wasm"
fi
