// Shared pieces of the quality benchmarks: paths, the exact tokenizer, session files, the
// plan → output step, the recency baseline, the text a benchmark searches, and small
// statistics helpers. No benchmark logic lives here.
import { readFileSync, existsSync, mkdirSync, cpSync, rmSync } from "node:fs";
import { createHash } from "node:crypto";
import { createRequire } from "node:module";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { messageSearchText, checkPairing } from "../convert/openclaw.mjs";
import { messageTexts } from "../tokens/messages.mjs";
import { rng } from "../soak/generate.mjs";

export { messageSearchText, checkPairing, rng };

export const REPO = fileURLToPath(new URL("../../", import.meta.url));
export const BENCH = join(REPO, "bench");

export const log = (s) => process.stderr.write(`[bench] ${s}\n`);

// ---------------------------------------------------------------------------------------
// The engine

let corePromise;
let engineRoot = REPO;

/**
 * Copies the engine (js/core/ and the built wasm) into `dir` and loads it from there from now
 * on, so that a rebuild while the benchmarks run cannot mix two builds in one run. Returns
 * the sha256 (12 hex digits) of the copied wasm.
 */
export function snapshotEngine(dir) {
  const wasmDir = ["wasm", join("pkg-template", "wasm")].map((d) => join(REPO, d)).find((d) => existsSync(join(d, "contextfold_bg.wasm")));
  if (!wasmDir) throw new Error("wasm core not found; run `bash scripts/setup.sh && bash scripts/build.sh`");
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(join(dir, "js"), { recursive: true });
  cpSync(join(REPO, "js", "core"), join(dir, "js", "core"), { recursive: true });
  cpSync(wasmDir, join(dir, "wasm"), { recursive: true });
  useEngine(dir);
  return createHash("sha256")
    .update(readFileSync(join(dir, "wasm", "contextfold_bg.wasm")))
    .digest("hex")
    .slice(0, 12);
}

/** Loads the engine from a snapshot made by `snapshotEngine` (worker threads). */
export function useEngine(dir) {
  engineRoot = dir;
  corePromise = undefined;
}

/** The wasm core (one instance per thread), loaded through the package's own Node entry. */
export function engine() {
  corePromise ??= (async () => {
    const mod = await import(pathToFileURL(join(engineRoot, "js", "core", "node.js")).href);
    try {
      return { core: await mod.loadCore(), applySteps: mod.applySteps };
    } catch (err) {
      throw new Error(`cannot load the wasm core (${err.message}); run \`bash scripts/setup.sh && bash scripts/build.sh\``);
    }
  })();
  return corePromise;
}

// ---------------------------------------------------------------------------------------
// Exact tokens (o200k_base), counted over the text the model is shown, the same fields the
// engine's estimate reads (bench/tokens/messages.mjs `messageTexts`), plus the same fixed costs
// (4 tokens of framing per message, 1 600 per image).

export const MESSAGE_OVERHEAD = 4;
export const IMAGE_TOKENS = 1600;

let o200k;
function encoder() {
  if (!o200k) {
    let tiktoken;
    try {
      tiktoken = createRequire(join(BENCH, "package.json"))("tiktoken");
    } catch {
      throw new Error("the exact tokenizer is missing: run `bash bench/setup.sh` (or `cd bench && npm install`)");
    }
    o200k = tiktoken.get_encoding("o200k_base");
  }
  return o200k;
}

const byObject = new WeakMap();
let byText = new Map();

/** Exact o200k tokens of a string (cached). */
export function exactText(s) {
  if (!s) return 0;
  let n = byText.get(s);
  if (n === undefined) {
    n = encoder().encode(s, [], []).length;
    if (byText.size > 200_000) byText = new Map();
    byText.set(s, n);
  }
  return n;
}

/** Exact tokens of one message (cached per object: kept messages are the input's objects). */
export function exactMessage(m) {
  if (m && typeof m === "object") {
    const hit = byObject.get(m);
    if (hit !== undefined) return hit;
  }
  const { strings, images } = messageTexts(m ?? {});
  let n = MESSAGE_OVERHEAD + images * IMAGE_TOKENS;
  for (const s of strings) n += exactText(s);
  for (const extra of [m?.summary, m?.reasoning_content]) if (typeof extra === "string") n += exactText(extra);
  if (m && typeof m === "object") byObject.set(m, n);
  return n;
}

export const exactMessages = (ms) => ms.reduce((n, m) => n + exactMessage(m), 0);

// ---------------------------------------------------------------------------------------
// Sessions

/** Reads an OpenClaw session JSONL: its entries (header excluded) and the message list. */
export function readSession(path) {
  const lines = readFileSync(path, "utf8")
    .split("\n")
    .filter((l) => l.trim());
  const all = lines.map((l) => JSON.parse(l));
  const header = all.find((e) => e.type === "session") ?? null;
  const entries = all.filter((e) => e.type !== "session");
  const messageEntries = entries.filter((e) => e.type === "message" && e.message);
  return { header, entries, messages: messageEntries.map((e) => e.message), entryIds: messageEntries.map((e) => e.id) };
}

export const readJson = (path) => JSON.parse(readFileSync(path, "utf8"));
export const exists = existsSync;

/** Positions of the user messages (a turn starts at each). */
export function turnStarts(messages) {
  const out = [];
  messages.forEach((m, i) => {
    if (m?.role === "user") out.push(i);
  });
  return out;
}

/** The visible text of a user message (its text parts). */
export function userText(m) {
  if (typeof m?.content === "string") return m.content;
  return (Array.isArray(m?.content) ? m.content : [])
    .filter((p) => p?.type === "text")
    .map((p) => p.text ?? "")
    .join("\n");
}

// ---------------------------------------------------------------------------------------
// Plans and outputs

/** Output messages of a plan (kept messages are the input's own objects). */
export function applyPlan(messages, steps) {
  return steps.map((s) => (s.message !== undefined ? s.message : messages[s.source]));
}

/** The identity plan (pass-through). */
export const identitySteps = (n) => Array.from({ length: n }, (_, i) => ({ source: i }));

/**
 * The recency baseline: the newest messages whose estimated tokens fit the budget (the same
 * per-message estimate as the engine's), never starting with a tool result whose call was cut
 * off. `est[i]` is the estimate of message i.
 */
export function recencySteps(messages, est, budget) {
  let i = messages.length;
  let sum = 0;
  while (i > 0 && sum + est[i - 1] <= budget) {
    sum += est[i - 1];
    i--;
  }
  while (i < messages.length && messages[i]?.role === "toolResult") i++;
  const steps = [];
  for (let k = i; k < messages.length; k++) steps.push({ source: k });
  return steps;
}

/** The engine's per-message estimate of every message (one boundary call per message). */
export function estimates(core, messages) {
  return messages.map((m) => core.estimateTokens([m]));
}

// ---------------------------------------------------------------------------------------
// Small helpers

/** A fixed-seed sample of `k` items, in their original order. */
export function sampleOf(items, k, seed) {
  if (items.length <= k) return items.slice();
  const r = rng(seed);
  const idx = items
    .map((_, i) => [r(), i])
    .sort((a, b) => a[0] - b[0])
    .slice(0, k)
    .map((x) => x[1])
    .sort((a, b) => a - b);
  return idx.map((i) => items[i]);
}

export const ratio = (a, b) => (b > 0 ? a / b : null);
export const mean = (xs) => (xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : null);
export function quantile(xs, q) {
  if (!xs.length) return null;
  const s = xs.slice().sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.max(0, Math.round(q * (s.length - 1))))];
}
/** Rounds a number for stable JSON (results are compared byte for byte). */
export const round = (x, d = 4) => (x == null || !Number.isFinite(x) ? x : Math.round(x * 10 ** d) / 10 ** d);
