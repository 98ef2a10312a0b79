#!/usr/bin/env node
// The quality and cache-stability benchmarks (design/EVALUATION.md §1–4) and the report.
//
// usage: node bench/run.mjs [dataDir] [--fast] [--out bench/out] [--jobs N] [--no-tokens] [--margin X] [--report]
//   dataDir     the evaluation datasets (default ../shared/data relative to the repository)
//   --fast      a fixed subset with assertions (CI): exits 1 when a check fails; the last
//               line is `N passed, M failed`. Writes to <out>/fast/, leaves docs/ alone.
//   --out       where raw results and converted sessions go (default bench/out, git-ignored)
//   --jobs      worker threads (default: available cores, at most 4)
//   --no-tokens do not re-run the token-estimate benchmark (bench/tokens) for the report
//   --margin    the --fast recall margin over recency (default: see checks.mjs)
//   --no-speed  do not re-run the speed and size benchmark (bench/speed) for the report
//   --report    only regenerate docs/ from the raw results of the last full run in --out
// Needs `bash scripts/build.sh` (the wasm core) and `bash bench/setup.sh` (exact tokenizer).
// Progress goes to stderr. See bench/README.md for the methods and definitions.
import { mkdirSync, writeFileSync, existsSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { execFileSync } from "node:child_process";
import { REPO, log, readJson, engine, exactText, sampleOf, snapshotEngine } from "./suite/common.mjs";
import { prepare, BUDGETS, SWEEP_BUDGETS, sessionPath } from "./suite/datasets.mjs";
import { runPool, defaultJobs } from "./suite/pool.mjs";
import { locomoCells, losses, taubenchRows, invariantRows, cleanerRows, cacheRows } from "./suite/aggregate.mjs";
import { fastChecks, DEFAULT_MARGIN, FAST_REPLAY_BUDGET } from "./suite/checks.mjs";
import { topicAlternative, METHOD_ORDER } from "./suite/methods.mjs";
import { writeReport } from "./suite/report.mjs";
import { runSpeed } from "./speed/run.mjs";
import { packageFigures } from "./size/package.mjs";

const t0 = performance.now();
const secs = () => ((performance.now() - t0) / 1000).toFixed(0);

function parseArgs(argv) {
  const o = { dataDir: null, fast: false, out: join(REPO, "bench", "out"), jobs: defaultJobs(), tokens: true, speed: true, margin: DEFAULT_MARGIN };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    const val = () => {
      const v = argv[++i];
      if (v === undefined) usage(`${a} needs a value`);
      return v;
    };
    if (a === "--fast") o.fast = true;
    else if (a === "--out") o.out = resolve(process.cwd(), val());
    else if (a === "--jobs") o.jobs = Math.max(1, Number(val()) | 0);
    else if (a === "--no-tokens") o.tokens = false;
    else if (a === "--no-speed") o.speed = false;
    else if (a === "--margin") o.margin = Number(val());
    else if (a === "--report") o.reportOnly = true;
    else if (a === "-h" || a === "--help") usage(null);
    else if (a.startsWith("-")) usage(`unknown option ${a}`);
    else o.dataDir = resolve(process.cwd(), a);
  }
  o.dataDir ??= resolve(REPO, "..", "shared", "data");
  if (!Number.isFinite(o.margin)) usage("--margin must be a number");
  return o;
}

/** The commit measured (`git describe --always --dirty`), or null outside a checkout. */
function gitDescribe() {
  try {
    return execFileSync("git", ["describe", "--always", "--dirty"], { cwd: REPO, encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] }).trim();
  } catch {
    return null;
  }
}

function usage(err) {
  const text = "usage: node bench/run.mjs [dataDir] [--fast] [--out bench/out] [--jobs N] [--no-tokens] [--no-speed] [--margin X] [--report]\n";
  if (err) {
    process.stderr.write(`[bench] ${err}\n${text}`);
    process.exit(2);
  }
  process.stdout.write(text);
  process.exit(0);
}

/** Methods run per LoCoMo variant (engine methods are run focused and agnostic). */
function locomoMethods(variant, fast, alt) {
  if (fast) return { chat: ["fold"], agentic: ["fold", "foldKeepTools"], multitopic: ["fold"] }[variant];
  return { chat: ["fold", alt, "foldSummaries"], agentic: ["fold", "foldKeepTools"], multitopic: ["fold", alt] }[variant];
}

/** The summary-cache variant is run where summaries can matter: the larger chat budgets. */
const SUMMARY_BUDGETS = [8000, 16000];

/** Every task of the run, with a rough cost so the heavy ones start first. */
function buildTasks(manifest, fast, alt) {
  const B = BUDGETS[fast ? "fast" : "full"];
  const sweepMethods = ["clean", "fold", alt, "foldKeepTools"];
  const tauMethods = ["passthrough", "recency", "clean", "fold", alt, "foldKeepTools"];
  const tasks = [];
  const add = (task, cost) => tasks.push({ task, cost });
  for (const variant of ["chat", "agentic", "multitopic"]) {
    for (const session of manifest.locomo[variant]) {
      const side = readJson(sessionPath(manifest, session, ".questions.json"));
      const msgs = side.stats.messages;
      const nq = side.stats.questions.scorable;
      add({ kind: "locomoInfo", session }, msgs);
      for (const budget of B[variant]) {
        for (const method of ["passthrough", "recency", "clean"]) add({ kind: "locomo", session, variant, method, mode: "agnostic", budget }, msgs);
        for (const method of locomoMethods(variant, fast, alt)) {
          if (method === "foldSummaries" && !SUMMARY_BUDGETS.includes(budget)) continue;
          add({ kind: "locomo", session, variant, method, mode: "focused", budget }, msgs * nq);
          if (method !== "foldSummaries") add({ kind: "locomo", session, variant, method, mode: "agnostic", budget }, msgs * 2);
        }
      }
      const prompt = side.questions.find((q) => q.scorable)?.question ?? null;
      add(
        { kind: "sweep", family: "locomo", name: session, file: sessionPath(manifest, session), budgets: B[variant], methods: sweepMethods, prompt },
        msgs * 40,
      );
    }
  }
  for (const name of manifest.taubench) {
    const side = readJson(sessionPath(manifest, name, ".query.json"));
    if (side.queryIndex != null) add({ kind: "taubench", name, budgets: B.taubench, methods: tauMethods }, 400);
    add({ kind: "sweep", family: "taubench", name, file: sessionPath(manifest, name), budgets: SWEEP_BUDGETS.taubench, methods: sweepMethods }, 300);
  }
  for (const name of manifest.claudeCode) {
    add({ kind: "sweep", family: "claude-code", name, file: sessionPath(manifest, name), budgets: SWEEP_BUDGETS.claudeCode, methods: sweepMethods }, 300);
    add(
      {
        kind: "sweep",
        family: "claude-code (Anthropic shape)",
        name: `${name}.messages.json`,
        file: sessionPath(manifest, name, ".messages.json"),
        budgets: SWEEP_BUDGETS.claudeCode,
        methods: sweepMethods,
        shape: "anthropic",
      },
      300,
    );
  }
  if (manifest.sample)
    add({ kind: "sweep", family: "sample", name: "samples/session.jsonl", file: manifest.sample, budgets: SWEEP_BUDGETS.sample, methods: sweepMethods }, 100);

  // Cache stability replays
  const replays = [];
  const chat26 = manifest.locomo.chat.find((n) => n.includes("conv-26")) ?? manifest.locomo.chat[0];
  const agentic26 = manifest.locomo.agentic.find((n) => n.includes("conv-26")) ?? manifest.locomo.agentic[0];
  const multi = manifest.locomo.multitopic.find((n) => n.includes("conv-26")) ?? manifest.locomo.multitopic[0];
  const tauWithQuery = manifest.taubench.filter((n) => readJson(sessionPath(manifest, n, ".query.json")).queryIndex != null);
  const noTools = ["passthrough", "recency", "clean", "fold", alt];
  const tools = [...noTools, "foldKeepTools"];
  if (fast) {
    if (chat26) replays.push({ label: "LoCoMo chat", name: chat26, budget: FAST_REPLAY_BUDGET, methods: noTools, maxTurns: 60, cost: 60 * 200 });
    for (const n of tauWithQuery.slice(0, 2)) replays.push({ label: "tau-bench", name: n, budget: 1000, methods: tools, cost: 400 });
  } else {
    if (chat26) replays.push({ label: "LoCoMo chat", name: chat26, budget: 8000, methods: noTools, cost: 215 * 300 });
    if (agentic26) replays.push({ label: "LoCoMo agentic", name: agentic26, budget: 8000, methods: tools, cost: 19 * 300 });
    if (multi) replays.push({ label: "LoCoMo multitopic", name: multi, budget: 16000, methods: noTools, cost: 756 * 900 });
    for (const n of sampleOf(tauWithQuery, 5, 11)) replays.push({ label: "tau-bench", name: n, budget: 1000, methods: tools, cost: 400 });
    for (const n of manifest.claudeCode) replays.push({ label: "Claude Code", name: n, budget: 2000, methods: tools, cost: 300 });
  }
  for (const r of replays)
    for (const method of r.methods)
      add({ kind: "replay", label: r.label, name: r.name, file: sessionPath(manifest, r.name), budget: r.budget, method, maxTurns: r.maxTurns }, r.cost);
  if (manifest.sample)
    for (const method of tools) add({ kind: "replay", label: "sample", name: "samples/session.jsonl", file: manifest.sample, budget: 1000, method }, 100);
  return tasks;
}

async function runAll(manifest, opts, pass = "") {
  const { core } = await engine();
  const defaults = core.defaultConfig();
  const alt = topicAlternative(defaults);
  const tasks = buildTasks(manifest, opts.fast, alt);
  // Heaviest first (stable order for equal costs), results stay in task order.
  const order = tasks.map((_, i) => i).sort((a, b) => tasks[b].cost - tasks[a].cost || a - b);
  const ordered = order.map((i) => tasks[i].task);
  let lastLog = 0;
  log(`${pass}${ordered.length} tasks on ${opts.jobs} threads`);
  const times = {};
  const started = performance.now();
  const results = await runPool(ordered, {
    jobs: opts.jobs,
    manifest,
    onDone(done, total, task, result) {
      if (result?.error) log(`task failed: ${task.kind} ${task.session ?? task.name} ${task.method ?? ""} ${task.budget ?? ""}: ${result.error}`);
      const now = performance.now();
      if (now - lastLog > 5000 || done === total) {
        lastLog = now;
        log(`${pass}${done}/${total} tasks, ${secs()} s`);
      }
    },
  });
  times.tasks = (performance.now() - started) / 1000;
  const byKind = (k) => ordered.map((t, i) => [t, results[i]]).filter(([t]) => t.kind === k);
  const errors = ordered
    .map((t, i) => [t, results[i]])
    .filter(([, r]) => r?.error)
    .map(([t, r]) => ({ task: t, error: r.error }));
  const cells = byKind("locomo").map(([t, r]) => (r?.error ? { ...t, error: r.error } : r));
  // Stable order of cells regardless of scheduling
  const cellKey = (c) => `${c.variant}|${c.session}|${c.method}|${c.mode}|${String(c.budget).padStart(6, "0")}`;
  cells.sort((a, b) => (cellKey(a) < cellKey(b) ? -1 : cellKey(a) > cellKey(b) ? 1 : 0));
  const info = byKind("locomoInfo")
    .map(([, r]) => r)
    .filter((r) => r && !r.error)
    .sort((a, b) => (a.name < b.name ? -1 : 1));
  const trajectories = byKind("taubench")
    .map(([t, r]) => (r?.error ? { name: t.name, error: r.error } : r))
    .filter(Boolean)
    .sort((a, b) => (a.name < b.name ? -1 : 1));
  const sweeps = byKind("sweep")
    .map(([t, r]) => (r?.error ? { name: t.name, family: t.family, error: r.error } : { family: t.family, ...r }))
    .sort((a, b) => (a.family + a.name < b.family + b.name ? -1 : 1));
  const replays = byKind("replay").map(([t, r]) => (r?.error ? { name: t.name, method: t.method, error: r.error } : { label: t.label, ...r }));
  replays.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : METHOD_ORDER.indexOf(a.method) - METHOD_ORDER.indexOf(b.method)));

  const results_ = {
    meta: {
      engine: core.version,
      wasm: opts.wasm,
      source: opts.source,
      defaults,
      fast: opts.fast,
      budgets: BUDGETS[opts.fast ? "fast" : "full"],
      tokenizer: "o200k_base (npm tiktoken)",
      dataDir: opts.dataDirShown,
    },
    datasets: { locomo: info },
    locomo: { cells: locomoCells(cells), losses: losses(cells), lossesAlternative: losses(cells, { method: alt }), alternative: alt },
    taubench: { rows: taubenchRows(trajectories), trajectories: trajectories.length },
    invariants: invariantRows(sweeps),
    cleaner: cleanerRows(sweeps),
    cache: cacheRows(replays),
    errors,
  };
  const raw = { cells, trajectories, sweeps, replays };
  return { results: results_, raw, times };
}

const opts = parseArgs(process.argv.slice(2));
opts.dataDirShown = opts.dataDir.startsWith(resolve(REPO, "..")) ? opts.dataDir.replace(resolve(REPO, "..") + "/", "../") : opts.dataDir;
if (!existsSync(opts.dataDir)) log(`warning: data folder ${opts.dataDir} not found; only the built-in sample is measured`);
const outDir = opts.fast ? join(opts.out, "fast") : opts.out;
const tokensMd = join(REPO, "bench", "out", "tokens.md");
const extras = (dir) => ({
  speed: existsSync(join(dir, "speed.json")) ? readJson(join(dir, "speed.json")) : null,
  soak: existsSync(join(dir, "soak.json")) ? readJson(join(dir, "soak.json")) : null,
  pack: packageFigures(join(REPO, "pkg-template")),
});
if (opts.reportOnly) {
  const file = join(outDir, "results.json");
  if (!existsSync(file)) {
    log(`no ${file}: run \`node bench/run.mjs\` first`);
    process.exit(2);
  }
  const manifest = readJson(join(outDir, "sessions", "manifest.json"));
  writeReport(readJson(file), {
    manifest,
    docsDir: join(REPO, "docs"),
    tokensMarkdown: existsSync(tokensMd) ? readFileSync(tokensMd, "utf8") : null,
    ...extras(outDir),
  });
  log("docs/benchmarks.md and docs/benchmarks-savings-recall.svg written from the last run's results");
  process.exit(0);
}
opts.source = gitDescribe();
mkdirSync(outDir, { recursive: true });
// The engine is copied once and loaded from the copy by every thread: a rebuild during the
// run cannot mix two builds. A build in progress can leave a half-written file: retry.
const engineDir = join(outDir, "engine");
for (let attempt = 1; ; attempt++) {
  try {
    opts.wasm = snapshotEngine(engineDir);
    await engine();
    exactText("probe");
    break;
  } catch (err) {
    if (attempt >= 5 || /tokenizer/.test(err.message)) {
      log(err.message);
      process.exit(2);
    }
    log(`loading the engine failed (${err.message}); retrying in 10 s`);
    await new Promise((r) => setTimeout(r, 10_000));
  }
}

log(`converting datasets from ${opts.dataDir}${opts.fast ? " (fast subset)" : ""}`);
const manifest = { ...prepare({ dataDir: opts.dataDir, outDir, fast: opts.fast }), engineDir };
const { results, raw, times } = await runAll(manifest, opts);
const stable = (v) => JSON.stringify(v, null, 1) + "\n";
writeFileSync(join(outDir, "results.json"), stable(results));
writeFileSync(join(outDir, "locomo-questions.json"), JSON.stringify(raw.cells) + "\n");
writeFileSync(join(outDir, "taubench-trajectories.json"), stable(raw.trajectories));
writeFileSync(join(outDir, "invariants.json"), stable(raw.sweeps));
writeFileSync(join(outDir, "cache.json"), stable(raw.replays));
writeFileSync(join(outDir, "timing.json"), stable({ seconds: { tasks: Math.round(times.tasks), total: Number(secs()) }, jobs: opts.jobs }));
log(`raw results in ${outDir} (${secs()} s)`);

if (opts.fast) {
  log("second pass for the determinism check");
  const again = await runAll(manifest, opts, "pass 2: ");
  const same = stable(again.results) === stable(results) && JSON.stringify(again.raw.cells) === JSON.stringify(raw.cells);
  const { passed, failed, lines } = fastChecks(results, raw, { margin: opts.margin, deterministic: same, manifest });
  for (const l of lines) process.stdout.write(`${l}\n`);
  process.stdout.write(`${passed} passed, ${failed} failed\n`);
  process.exit(failed ? 1 : 0);
}

if (opts.tokens) {
  log("token estimate accuracy (bench/tokens/run.mjs)");
  try {
    execFileSync(process.execPath, [join(REPO, "bench", "tokens", "run.mjs"), opts.dataDir], { stdio: ["ignore", "ignore", "inherit"] });
  } catch (err) {
    log(`bench/tokens failed (${err.message}); the report leaves that section out`);
  }
}
if (opts.speed) {
  log("speed and size (bench/speed/run.mjs: 100, 1,000 and 10,000 turns)");
  try {
    const speed = await runSpeed({ pkg: join(REPO, "pkg-template") });
    writeFileSync(join(outDir, "speed.json"), stable(speed));
  } catch (err) {
    log(`bench/speed failed (${err.message}); the report leaves that section out`);
  }
}
writeReport(results, {
  manifest,
  docsDir: join(REPO, "docs"),
  tokensMarkdown: opts.tokens && existsSync(tokensMd) ? readFileSync(tokensMd, "utf8") : null,
  ...extras(outDir),
});
log(`docs/benchmarks.md and docs/benchmarks-savings-recall.svg written (${secs()} s)`);
