#!/usr/bin/env node
// Accuracy of contextfold's token estimate (crate/src/model/tokens.rs, called through the built wasm
// core) against the exact o200k tokenizer, per content category, next to naive chars/4; then
// the same for whole OpenClaw messages of real conversations.
//
// usage: node bench/tokens/run.mjs [dataDir] [--n 150] [--seed 1]
//   dataDir  the evaluation datasets (default: ../shared/data relative to the repo root)
// Needs `bash bench/setup.sh` (exact tokenizer, corpus packages) and `bash scripts/build.sh`.
// Prints a markdown report on stdout and writes it to bench/out/tokens.md; progress on stderr.
import { existsSync, mkdirSync, writeFileSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join, resolve, relative } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { execFileSync } from "node:child_process";
import { categories, sample, charClasses, charFeatures, DOC_CAP } from "./corpus.mjs";
import { conversations, messageTexts } from "./messages.mjs";

const REPO = fileURLToPath(new URL("../../", import.meta.url));
const BENCH = join(REPO, "bench");
const t0 = performance.now();
const log = (s) => process.stderr.write(`[tokens] ${s}\n`);
const secs = () => ((performance.now() - t0) / 1000).toFixed(1);

// ---------------------------------------------------------------------------------------
// Arguments and tools

const opts = { n: 150, seed: 1, dataDir: null };
for (let i = 2; i < process.argv.length; i++) {
  const a = process.argv[i];
  if (a === "--n") opts.n = Number(process.argv[++i]);
  else if (a === "--seed") opts.seed = Number(process.argv[++i]);
  else if (a === "-h" || a === "--help") {
    process.stdout.write("usage: node bench/tokens/run.mjs [dataDir] [--n 150] [--seed 1]\n");
    process.exit(0);
  } else if (a.startsWith("-")) die(`unknown option ${a}`);
  else opts.dataDir = resolve(process.cwd(), a);
}
if (!(opts.n > 0) || !Number.isInteger(opts.seed)) die("--n must be positive and --seed an integer");
const dataDir = opts.dataDir ?? resolve(REPO, "..", "shared", "data");
if (!existsSync(dataDir)) log(`warning: data folder ${dataDir} not found; its sources are skipped`);

function die(msg) {
  process.stderr.write(`[tokens] ${msg}\n`);
  process.exit(2);
}

let tiktoken;
try {
  tiktoken = createRequire(join(BENCH, "package.json"))("tiktoken");
} catch {
  die("the exact tokenizer is missing: run `bash bench/setup.sh` (or `cd bench && npm install`)");
}
const o200k = tiktoken.get_encoding("o200k_base");
const cl100k = tiktoken.get_encoding("cl100k_base");
const exact = (s) => (s ? o200k.encode(s, [], []).length : 0);
const exactCl = (s) => (s ? cl100k.encode(s, [], []).length : 0);

let core;
try {
  const { loadCore } = await import(pathToFileURL(join(REPO, "js", "core", "node.js")).href);
  core = await loadCore();
} catch (err) {
  die(`cannot load the wasm core (${err.message}); run \`bash scripts/build.sh\``);
}

// The estimator's fixed costs, read from the core rather than assumed.
const OVERHEAD = core.estimateTokens([{ role: "user", content: "" }]);
const IMAGE = core.estimateTokens([{ role: "user", content: [{ type: "image", data: "iVBORw0KGgo=", mimeType: "image/png" }] }]) - OVERHEAD;
/** The core's estimate of one string (a one-message array minus the message overhead). */
const estimate = (s) => core.estimateTokens([{ role: "user", content: s }]) - OVERHEAD;
/** The rates of crate/src/model/tokens.rs, in tokens per character (ASCII, CJK, other). */
const RATES = { ascii: 1 / 4.4, cjk: 0.8, other: 0.5 };
const formula = (c) => Math.ceil((c.ascii * 50 + c.cjk * 176 + c.other * 110) / 220);
const naive = (s) => Math.ceil(s.length / 4);

// ---------------------------------------------------------------------------------------
// Statistics

/** Error statistics of `est(r)` against `r.exact` over records. */
function stats(records, est) {
  const errs = [];
  let exactSum = 0;
  let estSum = 0;
  for (const r of records) {
    const e = est(r);
    exactSum += r.exact;
    estSum += e;
    errs.push((e - r.exact) / r.exact);
  }
  const abs = errs.map(Math.abs).sort((a, b) => a - b);
  const mean = (xs) => xs.reduce((a, b) => a + b, 0) / (xs.length || 1);
  return {
    n: records.length,
    exact: exactSum,
    est: estSum,
    mape: mean(abs),
    bias: mean(errs),
    p90: abs.length ? abs[Math.min(abs.length - 1, Math.ceil(0.9 * abs.length) - 1)] : NaN,
  };
}

const pct = (x, sign = false) => (Number.isFinite(x) ? `${sign && x >= 0 ? "+" : ""}${(x * 100).toFixed(1)} %` : "–");
const int = (x) => Math.round(x).toLocaleString("en-US");
const row = (cells) => `| ${cells.join(" | ")} |`;
const sep = (k) => `|${" --- |".repeat(k)}`;

/** Solves the linear system `a x = b` by Gaussian elimination (null when singular). */
function solve(a, b) {
  const n = b.length;
  const m = a.map((r, i) => [...r, b[i]]);
  for (let c = 0; c < n; c++) {
    let p = c;
    for (let r = c + 1; r < n; r++) if (Math.abs(m[r][c]) > Math.abs(m[p][c])) p = r;
    if (Math.abs(m[p][c]) < 1e-12) return null;
    [m[c], m[p]] = [m[p], m[c]];
    for (let r = 0; r < n; r++) {
      if (r === c) continue;
      const f = m[r][c] / m[c][c];
      for (let k = c; k <= n; k++) m[r][k] -= f * m[c][k];
    }
  }
  return m.map((r, i) => r[n] / r[i]);
}

const CLASSES = ["ascii", "cjk", "other"];
const FINE = ["letter", "symbol", "space", "cjk", "latin", "cyrillic", "other"];
/** Rounded rates of the finer candidate (tokens per character), the proposal the report evaluates. */
const PROPOSAL = { letter: 0.22, symbol: 0.55, space: 0.14, cjk: 0.8, latin: 1.25, cyrillic: 0.25, other: 0.45 };

/**
 * Rates (tokens per character) minimising the squared relative error of `Σ rate·count`
 * against the exact count, each category weighted equally. `counts(r)` gives a record's
 * character counts; only the keys in `free` are fitted, the others stay at `base`.
 */
function fitRates(records, counts, free, base = {}) {
  const perCat = new Map();
  for (const r of records) perCat.set(r.category, (perCat.get(r.category) ?? 0) + 1);
  const A = free.map(() => free.map(() => 0));
  const b = free.map(() => 0);
  for (const r of records) {
    const c = counts(r);
    const w = 1 / perCat.get(r.category);
    const fixed = Object.keys(base)
      .filter((k) => !free.includes(k))
      .reduce((s, k) => s + base[k] * c[k], 0);
    const x = free.map((k) => c[k] / r.exact);
    const y = 1 - fixed / r.exact;
    for (let i = 0; i < free.length; i++) {
      b[i] += w * x[i] * y;
      for (let j = 0; j < free.length; j++) A[i][j] += w * x[i] * x[j];
    }
  }
  const sol = solve(A, b);
  if (!sol) return null;
  const out = { ...base };
  for (const [i, k] of free.entries()) out[k] = sol[i];
  return out;
}
/** The estimate of character counts `c` with `rates`, rounded up like the core. */
const predict = (rates, c) => Math.ceil(Object.keys(rates).reduce((s, k) => s + rates[k] * (c[k] ?? 0), 0));
const fmtRates = (r) => `ASCII/${(1 / r.ascii).toFixed(2)} + CJK×${r.cjk.toFixed(2)} + other×${r.other.toFixed(2)}`;

// ---------------------------------------------------------------------------------------
// Text samples per category

const cats = categories({ repo: REPO, benchDir: BENCH, dataDir });
const records = []; // the measured samples (seed)
const fitSet = []; // other slices of the same sources (seed + 1), only for fitting rates
const skipped = [];
let mismatches = 0;
for (const cat of cats) {
  const live = cat.sources.filter((s) => s.docs.length > 0);
  for (const s of cat.sources) if (!s.docs.length) skipped.push(`${cat.name} / ${s.name}`);
  if (!live.length) {
    log(`${cat.name}: skipped (no source text found)`);
    continue;
  }
  const before = records.length;
  live.forEach((src, i) => {
    // The category's n samples are shared equally among its sources (remainder to the first).
    const k = Math.floor(opts.n / live.length) + (i < opts.n % live.length ? 1 : 0);
    for (const text of sample(src, k, opts.seed)) {
      const classes = charClasses(text);
      const est = estimate(text);
      if (est !== formula(classes)) mismatches++;
      records.push({
        category: cat.name,
        source: src.name,
        text,
        chars: text.length,
        classes,
        fine: charFeatures(text),
        exact: exact(text),
        cl100k: exactCl(text),
        est,
      });
    }
    for (const text of sample(src, k, opts.seed + 1)) {
      fitSet.push({ category: cat.name, source: src.name, classes: charClasses(text), fine: charFeatures(text), exact: exact(text) });
    }
  });
  log(`${cat.name}: ${records.length - before} samples from ${live.map((s) => `${s.name} (${s.docs.length} docs)`).join(", ")} — ${secs()} s`);
}

const byCat = (rs, name) => rs.filter((r) => r.category === name);
const catNames = [...new Set(records.map((r) => r.category))];
const srcNames = [...new Set(records.map((r) => `${r.category}\u0000${r.source}`))];
const sumClasses = (rs, key, keys) => Object.fromEntries(keys.map((k) => [k, rs.reduce((a, r) => a + r[key][k], 0)]));

// Rates refitted on the fitting slices: the three current classes, and the finer candidate.
const refit3 = fitRates(fitSet, (r) => r.classes, CLASSES, RATES);
const fine = fitRates(fitSet, (r) => r.fine, FINE, Object.fromEntries(FINE.map((k) => [k, 0])));

// ---------------------------------------------------------------------------------------
// Message-level check

const convSources = conversations({ repo: REPO, dataDir });
const msgRecords = [];
const convRecords = [];
for (const src of convSources) {
  for (const conv of src.conversations) {
    const c = { source: src.name, exact: 0, est: 0, naive: 0, rough: 0, proposal: 0, n: conv.messages.length };
    for (const m of conv.messages) {
      const { strings, images } = messageTexts(m);
      const chars = strings.reduce((a, s) => a + s.length, 0);
      const fixed = OVERHEAD + images * IMAGE;
      const r = {
        source: src.name,
        exact: strings.reduce((a, s) => a + exact(s), 0) + fixed,
        est: core.estimateTokens([m]),
        naive: Math.ceil(chars / 4) + fixed,
        rough: Math.ceil(JSON.stringify(m).length / 4),
        proposal: strings.reduce((a, s) => a + predict(PROPOSAL, charFeatures(s)), 0) + fixed,
      };
      msgRecords.push(r);
      for (const k of ["exact", "est", "naive", "rough", "proposal"]) c[k] += r[k];
    }
    if (conv.messages.length) convRecords.push(c);
  }
  log(`messages: ${src.name}: ${src.conversations.length} conversations — ${secs()} s`);
}
o200k.free();
cl100k.free();

// ---------------------------------------------------------------------------------------
// Report

const out = [];
const p = (s = "") => out.push(s);
const version = (name) => {
  try {
    return JSON.parse(readFileSync(join(BENCH, "node_modules", name, "package.json"), "utf8")).version;
  } catch {
    return "?";
  }
};
let zh = "not installed";
try {
  // biome-ignore lint/suspicious/noTemplateCurlyInString: dpkg-query's own format syntax
  zh = execFileSync("dpkg-query", ["-W", "-f=${Version}", "manpages-zh"], { encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] }) || zh;
} catch {
  /* no dpkg */
}
const rel = relative(REPO, dataDir);
const dataShown = rel.startsWith("..") && !rel.startsWith("../..") ? rel : dataDir;

p("# Token estimate accuracy");
p();
p(`Estimate: contextfold core ${core.version} (\`crate/src/model/tokens.rs\`: ASCII/4.4 + CJK×0.8 + other×0.5, rounded up), called through the wasm build.`);
p(
  `Reference: exact **o200k_base** (npm \`tiktoken\` ${version("tiktoken")}). Corpus: data \`${dataShown}\`, npm \`typescript\` ${version("typescript")}, manpages-zh ${zh}, node ${process.version}.`,
);
p(`Samples: ${opts.n} slices of 300–8 000 characters per category (seed ${opts.seed}), shared equally among the category's sources.`);
p("Error = (estimate − exact) / exact per sample; MAPE = mean |error|; bias = mean error (> 0: the estimate is too high); p90 = 90th percentile of |error|.");
p("chars/4 = ⌈JS string length / 4⌉.");
p();
p("## Per category");
p();
p(
  row([
    "Category",
    "n",
    "chars / o200k token",
    "o200k tokens",
    "estimate",
    "**MAPE**",
    "bias",
    "p90",
    "chars/4",
    "chars/4 MAPE",
    "chars/4 bias",
    "chars/4 p90",
    "cl100k / o200k",
  ]),
);
p(sep(13));
for (const name of catNames) {
  const rs = byCat(records, name);
  const e = stats(rs, (r) => r.est);
  const n4 = stats(rs, (r) => naive(r.text));
  const chars = rs.reduce((a, r) => a + r.chars, 0);
  const cl = rs.reduce((a, r) => a + r.cl100k, 0);
  p(
    row([
      name,
      e.n,
      (chars / e.exact).toFixed(2),
      int(e.exact),
      int(e.est),
      `**${pct(e.mape)}**`,
      pct(e.bias, true),
      pct(e.p90),
      int(n4.est),
      pct(n4.mape),
      pct(n4.bias, true),
      pct(n4.p90),
      (cl / e.exact).toFixed(3),
    ]),
  );
}
if (skipped.length) {
  p();
  p(`Skipped (no text found): ${skipped.join("; ")}.`);
}
p();
p("## Per source");
p();
p(row(["Category / source", "n", "chars / token", "CJK share", "other share", "estimate MAPE", "bias", "chars/4 MAPE", "chars/4 bias"]));
p(sep(9));
for (const key of srcNames) {
  const [cat, src] = key.split("\u0000");
  const rs = records.filter((r) => r.category === cat && r.source === src);
  const e = stats(rs, (r) => r.est);
  const n4 = stats(rs, (r) => naive(r.text));
  const cls = sumClasses(rs, "classes", CLASSES);
  const all = cls.ascii + cls.cjk + cls.other;
  const chars = rs.reduce((a, r) => a + r.chars, 0);
  p(
    row([
      `${cat} / ${src}`,
      e.n,
      (chars / e.exact).toFixed(2),
      pct(cls.cjk / all),
      pct(cls.other / all),
      pct(e.mape),
      pct(e.bias, true),
      pct(n4.mape),
      pct(n4.bias, true),
    ]),
  );
}
p();
p("## Rates that would fit");
p();
p(
  `Rates are fitted on ${fitSet.length} other slices of the same sources (seed ${opts.seed + 1}) by least squares on the relative error, categories weighted equally, and evaluated on the samples above.`,
);
p();
p("**One class at a time.** The class that carries most of a category's tokens, refitted on that category alone (the other two kept at the current rates):");
p();
p(row(["Category", "class (share of chars)", "current rate", "fitted rate", "MAPE now", "MAPE fitted", "bias fitted"]));
p(sep(7));
const fmtRate = (k, v) => (k === "ascii" ? `${(1 / v).toFixed(2)} chars/token` : `${v.toFixed(3)} tokens/char`);
for (const name of catNames) {
  const rs = byCat(records, name);
  const cls = sumClasses(rs, "classes", CLASSES);
  const all = cls.ascii + cls.cjk + cls.other;
  const k = CLASSES.reduce((best, c) => (cls[c] * RATES[c] > cls[best] * RATES[best] ? c : best), "ascii");
  const fit = fitRates(byCat(fitSet, name), (r) => r.classes, [k], RATES);
  const now = stats(rs, (r) => r.est);
  const then = fit ? stats(rs, (r) => predict(fit, r.classes)) : null;
  p(
    row([
      name,
      `${k} (${pct(cls[k] / all)})`,
      fmtRate(k, RATES[k]),
      fit ? fmtRate(k, fit[k]) : "–",
      pct(now.mape),
      then ? pct(then.mape) : "–",
      then ? pct(then.bias, true) : "–",
    ]),
  );
}
p();
if (refit3 && fine) {
  p(`**All categories at once.** The three current classes refitted jointly: **${fmtRates(refit3)}**.`);
  p(
    "A finer candidate splits ASCII into letters, symbols (digits and punctuation) and whitespace, and non-ASCII into CJK, Latin letters (U+0080–U+024F, U+1E00–U+1EFF), Cyrillic (U+0400–U+052F) and other. Its rates in tokens per character, fitted and rounded (the rounded ones are the proposal evaluated below):",
  );
  p();
  p(row(["", ...FINE]));
  p(sep(FINE.length + 1));
  p(row(["fitted", ...FINE.map((k) => fine[k].toFixed(3))]));
  p(row(["proposal", ...FINE.map((k) => String(PROPOSAL[k]))]));
  p();
  p(row(["Category", "current MAPE", "bias", "3 classes refitted MAPE", "bias", "candidate fitted MAPE", "bias", "**proposal MAPE**", "bias", "p90"]));
  p(sep(10));
  for (const name of catNames) {
    const rs = byCat(records, name);
    const a = stats(rs, (r) => r.est);
    const b = stats(rs, (r) => predict(refit3, r.classes));
    const c = stats(rs, (r) => predict(fine, r.fine));
    const d = stats(rs, (r) => predict(PROPOSAL, r.fine));
    p(
      row([
        name,
        pct(a.mape),
        pct(a.bias, true),
        pct(b.mape),
        pct(b.bias, true),
        pct(c.mape),
        pct(c.bias, true),
        `**${pct(d.mape)}**`,
        pct(d.bias, true),
        pct(d.p90),
      ]),
    );
  }
  p();
}
p("## Message level");
p();
p(
  `Whole OpenClaw messages through \`estimateTokens([message])\` against the exact o200k count of the text the message shows the model (text and thinking parts, tool-call name + compact JSON arguments, tool-result text) plus the same ${OVERHEAD} framing tokens per message on both sides. chars/4 is the same text's length / 4 + ${OVERHEAD}; JSON/4 is \`roughTokens\` (the whole message serialised, / 4), the adapter's fallback; proposal is the rounded finer-class estimate above on the same text + ${OVERHEAD}.`,
);
p();
p(
  row([
    "Source",
    "conversations",
    "messages",
    "o200k tokens",
    "estimate",
    "**MAPE**",
    "bias",
    "p90",
    "chars/4 MAPE",
    "chars/4 bias",
    "JSON/4 MAPE",
    "JSON/4 bias",
    "proposal MAPE",
    "proposal bias",
  ]),
);
p(sep(14));
for (const src of convSources) {
  const rs = msgRecords.filter((r) => r.source === src.name);
  if (!rs.length) {
    p(row([src.name, 0, 0, ...Array(11).fill("–")]));
    continue;
  }
  const cs = convRecords.filter((c) => c.source === src.name);
  const [e, n4, j4, f] = ["est", "naive", "rough", "proposal"].map((k) => stats(rs, (r) => r[k]));
  p(
    row([
      src.name,
      cs.length,
      e.n,
      int(e.exact),
      int(e.est),
      `**${pct(e.mape)}**`,
      pct(e.bias, true),
      pct(e.p90),
      pct(n4.mape),
      pct(n4.bias, true),
      pct(j4.mape),
      pct(j4.bias, true),
      pct(f.mape),
      pct(f.bias, true),
    ]),
  );
}
p();
p("Whole conversations (the sum over each conversation's messages): mean signed error of the totals, mean |error| in parentheses.");
p();
p(row(["Source", "conversations", "o200k tokens", "estimate", "chars/4", "JSON/4", "proposal"]));
p(sep(7));
for (const src of convSources) {
  const cs = convRecords.filter((c) => c.source === src.name);
  if (!cs.length) continue;
  const cell = (k) => {
    const s = stats(cs, (c) => c[k]);
    return pct(s.bias, true) + (cs.length > 1 ? ` (${pct(s.mape)})` : "");
  };
  p(row([src.name, cs.length, int(stats(cs, (c) => c.exact).exact), cell("est"), cell("naive"), cell("rough"), cell("proposal")]));
}
p();
p("## Corpus");
p();
p(row(["Category / source", "documents", "characters", "origin"]));
p(sep(4));
for (const cat of cats) {
  for (const src of cat.sources) {
    const chars = src.docs.reduce((a, d) => a + Math.min(d.text.length, DOC_CAP), 0);
    p(row([`${cat.name} / ${src.name}`, src.docs.length, int(chars), src.origin]));
  }
}
p();
p(`Each document enters its source with at most its first ${int(DOC_CAP)} characters.`);
p();
p("## Fixed costs");
p();
p(
  `- Image part: **${IMAGE} tokens** each, whatever its size (\`IMAGE_TOKENS\`; bench/tokens/README.md compares it with the providers' rules). Not measured: no tokenizer counts images, and the datasets carry none.`,
);
p(`- Message framing: **${OVERHEAD} tokens** per message (\`MESSAGE_OVERHEAD\`), added on both sides of the message-level check.`);
p(`- Cross-check: the wasm estimate equals the three-class formula with the rates above on ${records.length - mismatches} of ${records.length} samples.`);
if (mismatches) p("  **The core no longer computes ASCII/4.4 + CJK×0.8 + other×0.5: update `RATES` and `formula` in bench/tokens/run.mjs.**");
p();

const report = out.join("\n");
process.stdout.write(report);
mkdirSync(join(BENCH, "out"), { recursive: true });
writeFileSync(join(BENCH, "out", "tokens.md"), report);
log(`${records.length} samples (+ ${fitSet.length} for fitting), ${msgRecords.length} messages; wrote bench/out/tokens.md — ${secs()} s`);
