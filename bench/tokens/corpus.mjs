// The corpus of the token-estimate benchmark: real text found on a machine where the
// project builds, grouped into categories, each category made of one or more sources.
// Every source is a list of documents read in a fixed order; `sample` cuts deterministic
// slices out of them. A source whose files are missing is reported as skipped.
import { readFileSync, readdirSync, existsSync, statSync } from "node:fs";
import { execFileSync } from "node:child_process";
import { gunzipSync } from "node:zlib";
import { join, dirname, resolve } from "node:path";
import { homedir } from "node:os";
import { createRequire } from "node:module";
import { rng } from "../soak/generate.mjs";

/** Longest prefix of one document that enters a source (no single file dominates). */
export const DOC_CAP = 200_000;

const utf8 = new TextDecoder("utf-8", { fatal: true });
const readText = (p) => {
  try {
    return utf8.decode(readFileSync(p)).replace(/^\uFEFF/, "");
  } catch {
    return null;
  }
};
const isDir = (p) => {
  try {
    return statSync(p).isDirectory();
  } catch {
    return false;
  }
};

/** Files under `dir` (recursive, sorted) whose name passes `keep`. */
function walk(dir, keep, out = []) {
  if (!isDir(dir)) return out;
  for (const name of readdirSync(dir).sort()) {
    const p = join(dir, name);
    if (isDir(p)) walk(p, keep, out);
    else if (keep(name, p)) out.push(p);
  }
  return out;
}

const docs = (paths) => paths.map((p) => ({ name: p, text: readText(p) })).filter((d) => d.text && d.text.trim().length > 0);

/** True for minified or generated one-line code (average line longer than 200 chars). */
const minified = (text) => text.length / (text.split("\n").length || 1) > 200;

export function isCjk(cp) {
  return (
    (cp >= 0x2e80 && cp <= 0x2fdf) ||
    (cp >= 0x3000 && cp <= 0x303f) ||
    (cp >= 0x3040 && cp <= 0x30ff) ||
    (cp >= 0x3100 && cp <= 0x31bf) ||
    (cp >= 0x31f0 && cp <= 0x31ff) ||
    (cp >= 0x3400 && cp <= 0x4dbf) ||
    (cp >= 0x4e00 && cp <= 0x9fff) ||
    (cp >= 0xac00 && cp <= 0xd7af) ||
    (cp >= 0xf900 && cp <= 0xfaff) ||
    (cp >= 0xff00 && cp <= 0xffef) ||
    (cp >= 0x20000 && cp <= 0x2fa1f)
  );
}

/** Character counts by the estimator's three classes (same ranges as crate/src/model/tokens.rs). */
export function charClasses(s) {
  let ascii = 0;
  let cjk = 0;
  let other = 0;
  for (const ch of s) {
    const cp = ch.codePointAt(0);
    if (cp < 0x80) ascii++;
    else if (isCjk(cp)) cjk++;
    else other++;
  }
  return { ascii, cjk, other };
}

/**
 * Finer character counts, for the candidate estimate the report fits: ASCII split into
 * letters, symbols (digits and punctuation) and whitespace (space, tab, line breaks, other
 * controls); non-ASCII split into CJK (as above), Latin-script letters (U+0080–U+024F,
 * U+1E00–U+1EFF), Cyrillic (U+0400–U+052F) and everything else (Greek, Arabic, Hebrew,
 * Indic, Thai, symbols, emoji, …).
 */
export function charFeatures(s) {
  const f = { letter: 0, symbol: 0, space: 0, cjk: 0, latin: 0, cyrillic: 0, other: 0 };
  for (const ch of s) {
    const cp = ch.codePointAt(0);
    if (cp < 0x80) f[ASCII_CLASS[cp]]++;
    else if (isCjk(cp)) f.cjk++;
    else if (cp <= 0x24f || (cp >= 0x1e00 && cp <= 0x1eff)) f.latin++;
    else if (cp >= 0x400 && cp <= 0x52f) f.cyrillic++;
    else f.other++;
  }
  return f;
}
const ASCII_CLASS = Array.from({ length: 128 }, (_, c) => {
  if ((c >= 0x41 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a)) return "letter";
  if (c <= 0x20 || c === 0x7f) return "space";
  return "symbol";
});

// ---------------------------------------------------------------------------------------
// Where things live

/** Crates (name, version) that Cargo.lock pins, for registry files that match this repo. */
function lockedCrates(repo) {
  const lock = readText(join(repo, "Cargo.lock")) ?? "";
  const out = [];
  for (const m of lock.matchAll(/\[\[package\]\]\nname = "([^"]+)"\nversion = "([^"]+)"\nsource = "registry/g)) {
    out.push({ name: m[1], version: m[2] });
  }
  return out;
}

/** Source directory of a crate in the cargo registry cache, if it was fetched. */
function registryDir(name, version) {
  const root = join(process.env.CARGO_HOME ?? join(homedir(), ".cargo"), "registry", "src");
  if (!isDir(root)) return null;
  for (const index of readdirSync(root).sort()) {
    const d = join(root, index, `${name}-${version}`);
    if (isDir(d)) return d;
  }
  return null;
}

/** npm's own install directory (it ships with Node). */
function npmDir() {
  const guess = resolve(dirname(process.execPath), "..", "lib", "node_modules", "npm");
  if (isDir(guess)) return guess;
  try {
    const root = execFileSync("npm", ["root", "-g"], { encoding: "utf8" }).trim();
    return isDir(join(root, "npm")) ? join(root, "npm") : null;
  } catch {
    return null;
  }
}

/** A package installed for the bench (bench/node_modules), or null. */
function benchPackageDir(benchDir, name) {
  try {
    const req = createRequire(join(benchDir, "package.json"));
    return dirname(req.resolve(`${name}/package.json`));
  } catch {
    return null;
  }
}

/** Files of a dataset folder with the given extension (any copy of the datasets). */
export const dataFiles = (dataDir, folder, ext) => walk(join(dataDir, folder), (n) => n.endsWith(ext) && !/licen[cs]e/i.test(n));

// ---------------------------------------------------------------------------------------
// Extraction from formats

/** Plain text of a groff man page: macro lines dropped (except text-carrying ones), escapes removed. */
export function groffText(src) {
  const out = [];
  for (let line of src.split("\n")) {
    if (/^[.']/.test(line)) {
      const m = line.match(/^[.'](?:SH|SS|B|I|BR|BI|IB|IR|RB|RI)\s+(.*)$/);
      if (!m) continue;
      line = m[1].replace(/"/g, "");
    }
    line = line
      .replace(/\\".*$/, "")
      .replace(/\\f(?:\[[^\]]*\]|\(..|.)/g, "")
      .replace(/\\s[-+]?\d/g, "")
      .replace(/\\\((em|en)/g, "—")
      .replace(/\\\(lq/g, "“")
      .replace(/\\\(rq/g, "”")
      .replace(/\\\(bu/g, "•")
      .replace(/\\\(co/g, "©")
      .replace(/\\\(..|\\\*\(..|\\\*\[[^\]]*\]|\\\*./g, "")
      .replace(/\\-/g, "-")
      .replace(/\\e/g, "\\")
      .replace(/\\ /g, " ")
      .replace(/\\[&,/^|:%]/g, "");
    out.push(line);
  }
  return out.join("\n");
}

/** Lines whose non-blank characters are at least `share` CJK (the Chinese prose of a page). */
function cjkLines(text, share = 0.4) {
  return text
    .split("\n")
    .filter((l) => {
      const t = l.replace(/\s+/g, "");
      if (!t) return false;
      return charClasses(t).cjk / [...t].length >= share;
    })
    .join("\n");
}

/** LoCoMo conversations as `Speaker: text` transcripts, one document per session. */
function locomoSessions(dataDir) {
  const out = [];
  for (const file of dataFiles(dataDir, "locomo", ".json")) {
    let data;
    try {
      data = JSON.parse(readFileSync(file, "utf8"));
    } catch {
      continue;
    }
    for (const sample of Array.isArray(data) ? data : [data]) {
      const conv = sample?.conversation;
      if (!conv) continue;
      for (const key of sessionKeys(conv)) {
        const text = conv[key].map((t) => `${t.speaker}: ${t.text}`).join("\n");
        out.push({ name: `${file}#${sample.sample_id}/${key}`, text });
      }
    }
  }
  return out;
}

/** `session_<n>` keys of a LoCoMo conversation in numeric order. */
export function sessionKeys(conv) {
  return Object.keys(conv)
    .filter((k) => /^session_\d+$/.test(k) && Array.isArray(conv[k]))
    .sort((a, b) => Number(a.slice(8)) - Number(b.slice(8)));
}

/** tau-bench trajectories (OpenAI chat format), from every JSON file of the folder. */
export function taubenchTrajectories(dataDir) {
  const out = [];
  for (const file of dataFiles(dataDir, "taubench", ".json")) {
    let data;
    try {
      data = JSON.parse(readFileSync(file, "utf8"));
    } catch {
      continue;
    }
    for (const t of Array.isArray(data) ? data : []) {
      if (Array.isArray(t?.traj)) out.push({ name: `${file}#${t.task_id}/${t.trial}`, traj: t.traj });
    }
  }
  return out;
}

/** Distinct `content` strings of tool messages (the trials repeat the same look-ups). */
function taubenchToolResults(dataDir) {
  const seen = new Set();
  const out = [];
  for (const t of taubenchTrajectories(dataDir)) {
    for (const m of t.traj) {
      if (m.role === "tool" && typeof m.content === "string" && !seen.has(m.content)) {
        seen.add(m.content);
        out.push({ name: t.name, text: m.content });
      }
    }
  }
  return out;
}

/** `cargo metadata` of this workspace (compact, as cargo prints it, and pretty-printed). */
function cargoMetadata(repo) {
  try {
    const host = /host: (\S+)/.exec(execFileSync("rustc", ["-vV"], { encoding: "utf8" }))?.[1];
    const args = ["metadata", "--format-version", "1", "--offline"];
    if (host) args.push("--filter-platform", host);
    const compact = execFileSync("cargo", args, { cwd: repo, encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] }).trim();
    return [
      { name: "cargo metadata", text: compact },
      { name: "cargo metadata (pretty)", text: JSON.stringify(JSON.parse(compact), null, 2) },
    ];
  } catch {
    return [];
  }
}

/** The zh_CN man pages of the Debian package manpages-zh (or any zh_CN pages, without dpkg). */
function chineseManPages() {
  let pages = [];
  try {
    pages = execFileSync("dpkg-query", ["-L", "manpages-zh"], { encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] })
      .split("\n")
      .filter((p) => p.includes("/zh_CN/") && p.endsWith(".gz"));
  } catch {
    pages = [];
  }
  const out = [];
  for (const p of pages.sort()) {
    let src;
    try {
      src = utf8.decode(gunzipSync(readFileSync(p)));
    } catch {
      continue; // a page in a legacy encoding, or a dangling link
    }
    const text = cjkLines(groffText(src));
    if (text.length > 0) out.push({ name: p, text });
  }
  return out;
}

/** Translated TypeScript diagnostics of `locale` (messages joined by newlines). */
function tsDiagnostics(benchDir, locale) {
  const dir = benchPackageDir(benchDir, "typescript");
  if (!dir) return [];
  const p = join(dir, "lib", locale, "diagnosticMessages.generated.json");
  const text = readText(p);
  if (!text) return [];
  return [{ name: p, text: Object.values(JSON.parse(text)).join("\n") }];
}

/**
 * Translations from the gettext catalogs (.mo) installed for `lang` (iso-codes' name lists
 * excluded), one document per catalog, messages joined by newlines.
 */
function gettextCatalogs(lang) {
  const dir = join("/usr/share/locale", lang, "LC_MESSAGES");
  const out = [];
  for (const p of walk(dir, (n) => n.endsWith(".mo") && !n.startsWith("iso"))) {
    const msgs = readMo(p);
    if (msgs?.length) out.push({ name: p, text: msgs.join("\n") });
  }
  return out;
}

/** The translated strings of a GNU .mo file (UTF-8 catalogs only), or null. */
function readMo(p) {
  let buf;
  try {
    buf = readFileSync(p);
  } catch {
    return null;
  }
  if (buf.length < 28) return null;
  const magic = buf.readUInt32LE(0);
  const u32 = magic === 0x950412de ? (o) => buf.readUInt32LE(o) : magic === 0xde120495 ? (o) => buf.readUInt32BE(o) : null;
  if (!u32) return null;
  const n = u32(8);
  const trans = u32(16);
  const out = [];
  try {
    for (let i = 0; i < n; i++) {
      const len = u32(trans + 8 * i);
      const off = u32(trans + 8 * i + 4);
      const s = utf8.decode(buf.subarray(off, off + len));
      if (i === 0 && /^Project-Id-Version|Content-Type:/m.test(s)) {
        if (!/charset=utf-8/i.test(s)) return null; // a legacy encoding
        continue;
      }
      for (const form of s.split("\0")) if (form.trim()) out.push(form);
    }
  } catch {
    return null;
  }
  return out;
}

// ---------------------------------------------------------------------------------------
// The categories

/**
 * The categories, each `{name, sources: [{name, origin, docs}]}`.
 * @param {{repo: string, benchDir: string, dataDir: string}} where
 */
export function categories({ repo, benchDir, dataDir }) {
  const crates = lockedCrates(repo);
  const npm = npmDir();
  const ts = benchPackageDir(benchDir, "typescript");
  const serdeJson = crates
    .filter((c) => c.name === "serde_json")
    .map((c) => registryDir(c.name, c.version))
    .find(Boolean);

  const markdown = docs([
    ...["README.md", "HACKING.md"].map((f) => join(repo, f)).filter(existsSync),
    ...(npm ? walk(join(npm, "docs", "content"), (n) => n.endsWith(".md")) : []),
    ...crates
      .map((c) => registryDir(c.name, c.version))
      .filter(Boolean)
      .map((d) => join(d, "README.md"))
      .filter(existsSync),
  ]);
  const rust = docs([
    ...walk(join(repo, "crate", "src"), (n) => n.endsWith(".rs")),
    ...(serdeJson ? walk(join(serdeJson, "src"), (n) => n.endsWith(".rs")) : []),
  ]);
  const js = docs([
    ...(npm ? walk(join(npm, "lib"), (n) => n.endsWith(".js")) : []),
    ...(npm ? walk(join(npm, "node_modules"), (n) => /\.(c|m)?js$/.test(n)) : []),
    ...(ts ? [join(ts, "lib", "typescript.js")] : []),
  ]).filter((d) => !minified(d.text));
  const packageJson = docs(npm ? walk(npm, (n) => n === "package.json") : []);

  const tsOrigin = "npm `typescript` (bench dev dependency), lib/<locale>/diagnosticMessages.generated.json";
  return [
    {
      name: "English prose",
      sources: [
        { name: "LoCoMo dialog", origin: "<data>/locomo/*.json, `Speaker: text` per turn, one document per session", docs: locomoSessions(dataDir) },
        {
          name: "Markdown docs",
          origin: "README.md, HACKING.md; npm's docs/content/**/*.md; README.md of the crates Cargo.lock pins (cargo registry)",
          docs: markdown,
        },
      ],
    },
    {
      name: "Code",
      sources: [
        { name: "Rust", origin: "crate/src/*.rs; serde_json (version in Cargo.lock) src/**/*.rs from the cargo registry", docs: rust },
        { name: "JavaScript", origin: "npm's lib/ and node_modules/ (ships with Node), typescript/lib/typescript.js; minified files excluded", docs: js },
      ],
    },
    {
      name: "JSON tool output",
      sources: [
        { name: "tau-bench tool results", origin: '<data>/taubench/*.json, distinct `content` of `role: "tool"` messages', docs: taubenchToolResults(dataDir) },
        {
          name: "cargo metadata",
          origin: "`cargo metadata --format-version 1 --offline --filter-platform <host>` of this workspace, compact + 2-space pretty",
          docs: cargoMetadata(repo),
        },
        { name: "package.json", origin: "every package.json under npm's install directory", docs: packageJson },
      ],
    },
    {
      name: "Chinese",
      sources: [{ name: "manpages-zh", origin: "Debian package manpages-zh, zh_CN pages as plain text, lines ≥ 40 % CJK", docs: chineseManPages() }],
    },
    {
      name: "Japanese + Korean",
      sources: [
        { name: "TypeScript ja", origin: tsOrigin, docs: tsDiagnostics(benchDir, "ja") },
        { name: "TypeScript ko", origin: tsOrigin, docs: tsDiagnostics(benchDir, "ko") },
      ],
    },
    {
      name: "Russian",
      sources: [{ name: "TypeScript ru", origin: tsOrigin, docs: tsDiagnostics(benchDir, "ru") }],
    },
    {
      name: "Other scripts",
      sources: [
        ["Greek", "el"],
        ["Arabic", "ar"],
        ["Hebrew", "he"],
        ["Hindi", "hi"],
        ["Thai", "th"],
      ].map(([name, lang]) => ({
        name,
        origin: `gettext catalogs installed under /usr/share/locale/${lang}/LC_MESSAGES (iso-codes lists excluded); depends on the installed packages`,
        docs: gettextCatalogs(lang),
      })),
    },
    {
      name: "Accented Latin",
      sources: ["de", "fr", "es", "pl", "cs"].map((l) => ({ name: `TypeScript ${l}`, origin: tsOrigin, docs: tsDiagnostics(benchDir, l) })),
    },
  ];
}

// ---------------------------------------------------------------------------------------
// Sampling

/** FNV-1a of a string, to derive one independent seed per source. */
export function hash(s) {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 0x01000193);
  return h >>> 0;
}

/**
 * `n` slices of `minLen`–`maxLen` characters (uniform) out of the source's documents, joined
 * in order with blank lines (each document at most DOC_CAP characters). A slice starts at a
 * line start when one is near, and never splits a surrogate pair.
 */
export function sample(source, n, seed, minLen = 300, maxLen = 8000) {
  const text = source.docs.map((d) => d.text.slice(0, DOC_CAP)).join("\n\n");
  if (text.length < minLen) return [];
  const next = rng(hash(`${seed}/${source.name}`));
  const out = [];
  for (let i = 0; i < n; i++) {
    const len = Math.min(text.length, minLen + Math.floor(next() * (maxLen - minLen + 1)));
    let start = Math.floor(next() * (text.length - len + 1));
    const nl = text.indexOf("\n", start);
    if (start > 0 && nl >= 0 && nl - start < 200 && nl + 1 + len <= text.length) start = nl + 1;
    if (isLow(text.charCodeAt(start))) start++;
    let end = Math.min(text.length, start + len);
    if (isLow(text.charCodeAt(end))) end--;
    out.push(text.slice(start, end));
  }
  return out;
}
const isLow = (c) => c >= 0xdc00 && c <= 0xdfff;
