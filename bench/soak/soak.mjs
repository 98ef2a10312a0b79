#!/usr/bin/env node
// Soak: replays a generated 10,000-turn session turn by turn through the engine adapter, as
// OpenClaw drives it, and records per-turn time and process memory.
//
//   node bench/soak/soak.mjs [--turns N] [--every K] [--budget TOKENS] [--out FILE] [--pkg DIR] [--readme]
//
// Per turn t: the host's transcript (a legacy JSONL under <hostStateDir>/agents/main/
// sessions/<sessionId>.jsonl) holds turns < t; the engine gets bootstrap → assemble (the
// history so far, the new prompt passed separately, the token budget) → commitTurn → maintain,
// and turn t's lines are appended to the transcript before commitTurn (the host persists the
// turn, then commits it). Every K turns: heapUsed, rss and the wasm memory of the core
// instance. The engine is the built package (pkg-template/; `bash scripts/build.sh` first).
// Prints a table, writes bench/out/soak.json, and with --readme the figures into
// bench/soak/README.md (between the markers there).
import { mkdtempSync, mkdirSync, appendFileSync, writeFileSync, readFileSync, rmSync, existsSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { sessionLines } from "./generate.mjs";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));

function option(name, dflt) {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1] : dflt;
}
// --pkg: another built package directory (e.g. one whose wasm keeps its name section, for
// `node --cpu-prof`).
const PKG = path.resolve(option("pkg", path.join(ROOT, "pkg-template")));
if (!existsSync(path.join(PKG, "wasm", "contextfold_bg.wasm"))) {
  console.error(`${PKG} is not built: run \`bash scripts/build.sh\` first`);
  process.exit(2);
}
const TURNS = Number(option("turns", 10_000));
const EVERY = Number(option("every", 500));
const BUDGET = Number(option("budget", 64_000));
const OUT = path.resolve(option("out", path.join(ROOT, "bench", "out", "soak.json")));
const README = process.argv.includes("--readme");

const { createEngine } = await import(pathToFileURL(path.join(PKG, "js", "openclaw", "engine.js")).href);
const { loadCore } = await import(pathToFileURL(path.join(PKG, "js", "core", "node.js")).href);

const SESSION_ID = `soak-${TURNS}`;
const params = { sessionId: SESSION_ID, sessionKey: "agent:main:soak" };
const tmp = mkdtempSync(path.join(os.tmpdir(), "cf-soak-"));
const stateDir = path.join(tmp, "state");
const hostStateDir = path.join(tmp, "host");
const transcript = path.join(hostStateDir, "agents", "main", "sessions", `${SESSION_ID}.jsonl`);
mkdirSync(path.dirname(transcript), { recursive: true });

// The session, split into turns: each turn's lines and messages (a turn starts at a user message).
const header = [];
const turns = [];
for (const line of sessionLines({ turns: TURNS, seed: 11, sessionId: SESSION_ID })) {
  const v = JSON.parse(line);
  const m = v.type === "message" ? v.message : undefined;
  if (m?.role === "user") turns.push({ lines: [], messages: [] });
  const t = turns.at(-1);
  if (!t) {
    header.push(line);
    continue;
  }
  t.lines.push(line);
  if (m) t.messages.push(m);
}
writeFileSync(transcript, header.join("\n") + "\n");

const logs = { info: 0, warn: [] };
const logger = { info: () => logs.info++, warn: (m) => logs.warn.push(m), error: (m) => logs.warn.push(m) };
const engine = createEngine({ logger, config: {}, stateDir, hostStateDir, transcriptSdk: undefined });

/** The wasm memory of the core instance. */
async function wasmBytes() {
  return (await loadCore()).memoryBytes();
}

const PHASES = ["bootstrap", "assemble", "commitTurn", "maintain"];
const COLS = [
  "turn",
  "messages",
  "msPerTurn",
  "ms_bootstrap",
  "ms_assemble",
  "ms_commitTurn",
  "ms_maintain",
  "p95",
  "heapUsedMiB",
  "rssMiB",
  "wasmMiB",
  "sentMessages",
  "estimatedTokens",
];
const perTurn = []; // ms per turn, and per phase
const samples = [];
const history = [];
let folded = 0;
let overBudget = 0;
const t0 = performance.now();
for (let t = 0; t < TURNS; t++) {
  const turn = turns[t];
  const prompt = turn.messages[0].content.map((p) => p.text).join("");
  const ms = {};
  let a = performance.now();
  await engine.bootstrap(params);
  ms.bootstrap = performance.now() - a;
  a = performance.now();
  const r = await engine.assemble({ ...params, messages: history, prompt, tokenBudget: BUDGET });
  ms.assemble = performance.now() - a;
  if (r.estimatedTokens > BUDGET) overBudget++;
  if (r.messages.length < history.length) folded++;
  // The host runs the model and tools, persists the turn, then commits it.
  appendFileSync(transcript, turn.lines.join("\n") + "\n");
  history.push(...turn.messages);
  a = performance.now();
  const c = await engine.commitTurn({ ...params, advancementKey: `turn-${t}`, messages: history });
  ms.commitTurn = performance.now() - a;
  if (c.status !== "committed") throw new Error(`turn ${t}: commitTurn said ${c.status}`);
  a = performance.now();
  await engine.maintain(params);
  ms.maintain = performance.now() - a;
  ms.total = PHASES.reduce((s, p) => s + ms[p], 0);
  perTurn.push(ms);
  if ((t + 1) % EVERY === 0 || t === 0) {
    global.gc?.();
    const mu = process.memoryUsage();
    const window = perTurn.slice(-EVERY);
    const mean = (k) => window.reduce((s, x) => s + x[k], 0) / window.length;
    const s = {
      turn: t + 1,
      messages: history.length,
      msPerTurn: round(mean("total")),
      ...Object.fromEntries(PHASES.map((p) => [`ms_${p}`, round(mean(p))])),
      p95: round(
        quantile(
          window.map((x) => x.total),
          0.95,
        ),
      ),
      heapUsedMiB: round(mu.heapUsed / 1048576),
      rssMiB: round(mu.rss / 1048576),
      wasmMiB: round((await wasmBytes()) / 1048576),
      sentMessages: r.messages.length,
      estimatedTokens: r.estimatedTokens,
      elapsedS: round((performance.now() - t0) / 1000),
    };
    samples.push(s);
    process.stderr.write(`${fmtRow(s)}\n`);
    // Written as it goes: a run stopped early still leaves its figures.
    mkdirSync(path.dirname(OUT), { recursive: true });
    writeFileSync(OUT, JSON.stringify({ partial: true, turns: TURNS, budget: BUDGET, samples }, null, 2) + "\n");
  }
}
const elapsed = (performance.now() - t0) / 1000;

function round(x) {
  return Math.round(x * 10) / 10;
}
function quantile(xs, q) {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(q * s.length))];
}
function fmtRow(s) {
  return COLS.map((c) => String(s[c]).padStart(c.length)).join(" ");
}

// First vs last thousand turns.
const span = Math.min(1000, Math.floor(TURNS / 2));
const meanOf = (xs, k) => xs.reduce((s, x) => s + x[k], 0) / xs.length;
const first = perTurn.slice(0, span);
const last = perTurn.slice(-span);
const firstS = samples.filter((s) => s.turn <= span && s.turn > 1);
const lastS = samples.filter((s) => s.turn > TURNS - span);
const ratio = (a, b) => Math.round((b / a) * 100) / 100;
const summary = {
  turns: TURNS,
  budget: BUDGET,
  elapsedS: round(elapsed),
  messagesAtEnd: history.length,
  transcriptMiB: round(readFileSync(transcript).length / 1048576),
  firstThousand: {
    msPerTurn: round(meanOf(first, "total")),
    assembleMs: round(meanOf(first, "assemble")),
    rssMiB: firstS.at(-1)?.rssMiB,
    heapUsedMiB: firstS.at(-1)?.heapUsedMiB,
    wasmMiB: firstS.at(-1)?.wasmMiB,
  },
  lastThousand: {
    msPerTurn: round(meanOf(last, "total")),
    assembleMs: round(meanOf(last, "assemble")),
    rssMiB: lastS.at(-1)?.rssMiB,
    heapUsedMiB: lastS.at(-1)?.heapUsedMiB,
    wasmMiB: lastS.at(-1)?.wasmMiB,
  },
  folded,
  overBudget,
  warnings: logs.warn.length,
  node: process.version,
};
summary.ratio = {
  msPerTurn: ratio(summary.firstThousand.msPerTurn, summary.lastThousand.msPerTurn),
  rss: ratio(summary.firstThousand.rssMiB, summary.lastThousand.rssMiB),
  heapUsed: ratio(summary.firstThousand.heapUsedMiB, summary.lastThousand.heapUsedMiB),
  wasm: ratio(summary.firstThousand.wasmMiB, summary.lastThousand.wasmMiB),
};

const table = [COLS.join(" "), ...samples.map(fmtRow)].join("\n");
console.log(table);
console.log(JSON.stringify(summary, null, 2));
if (logs.warn.length) console.log(`warnings (${logs.warn.length}), first: ${logs.warn[0]}`);
mkdirSync(path.dirname(OUT), { recursive: true });
writeFileSync(OUT, JSON.stringify({ summary, samples }, null, 2) + "\n");
if (README) {
  const file = path.join(ROOT, "bench", "soak", "README.md");
  const text = readFileSync(file, "utf8");
  const block = `<!-- soak:begin -->\n\`node bench/soak/soak.mjs --turns ${TURNS} --budget ${BUDGET}\`, ${new Date().toISOString().slice(0, 10)}, Node ${process.version}; ${round(elapsed)} s in all.\n\n\`\`\`\n${table}\n\`\`\`\n\n| | first ${span} turns | last ${span} turns | ratio |\n|---|---|---|---|\n| ms per turn | ${summary.firstThousand.msPerTurn} | ${summary.lastThousand.msPerTurn} | ${summary.ratio.msPerTurn} |\n| of which assemble (ms) | ${summary.firstThousand.assembleMs} | ${summary.lastThousand.assembleMs} | ${ratio(summary.firstThousand.assembleMs, summary.lastThousand.assembleMs)} |\n| rss (MiB) | ${summary.firstThousand.rssMiB} | ${summary.lastThousand.rssMiB} | ${summary.ratio.rss} |\n| heapUsed (MiB) | ${summary.firstThousand.heapUsedMiB} | ${summary.lastThousand.heapUsedMiB} | ${summary.ratio.heapUsed} |\n| wasm memory (MiB) | ${summary.firstThousand.wasmMiB} | ${summary.lastThousand.wasmMiB} | ${summary.ratio.wasm} |\n<!-- soak:end -->`;
  writeFileSync(file, text.replace(/<!-- soak:begin -->[\s\S]*<!-- soak:end -->/, block));
}
rmSync(tmp, { recursive: true, force: true });
