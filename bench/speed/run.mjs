#!/usr/bin/env node
// Speed and size of the engine (design/EVALUATION.md §5), on generated sessions of 100, 1,000
// and 10,000 turns (bench/soak/generate.mjs: thinking, tool calls with ~2 KB results, answers).
//
// usage: node bench/speed/run.mjs [--sizes 100,1000,10000] [--out bench/out/speed.json] [--no-native] [--pkg DIR] [--reps N]
//
// For each size, in one process and one run:
//   floor        JSON.parse(JSON.stringify(history)): the cost of merely copying the messages,
//                timed on each per-turn request's history right after that request (its
//                garbage then lands on the next commitTurn, not on the next request)
//   assemble     the engine adapter's `assemble` (what the host calls: boundary crossing, core,
//                side caches), in three situations:
//                  first   the first request after the engine opened the session (cold)
//                  turn    one request per new turn: the history grew by the previous turn,
//                          the host's message objects are fresh (parsed anew, as a host that
//                          re-reads its transcript hands them over)
//                  repeat  the same history again in the same objects (a host that keeps its
//                          message array)
//   index        the core's incremental index update for one turn (`Session.append`, in wasm,
//                boundary included) and the adapter's `commitTurn` (transcript read + index
//                + side-cache write); a full `rebuild` of the index of the whole session
//   memory       peak resident set of the process, the wasm instance's linear memory
//   native       the same requests through the same core compiled natively
//                (crate/examples/speed.rs, release build), for the native/wasm ratio: the
//                first request, and one per new turn (index update + delta request)
//   size         the shipped wasm, raw and gzip -9
// Results go to bench/out/speed.json; bench/run.mjs puts them into docs/benchmarks.md.
import { mkdtempSync, mkdirSync, appendFileSync, writeFileSync, readFileSync, rmSync, existsSync, copyFileSync } from "node:fs";
import { execFileSync } from "node:child_process";
import os from "node:os";
import path from "node:path";
import zlib from "node:zlib";
import { fileURLToPath, pathToFileURL } from "node:url";
import { sessionLines } from "../soak/generate.mjs";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const say = (s) => process.stderr.write(`[speed] ${s}\n`);

function option(name, dflt) {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1] : dflt;
}

/** Repetitions per size: enough for a p95 without making the 10,000-turn case slow. */
const REPS = { 100: 40, 1000: 20, 10000: 8 };
const BUDGET = 64_000;
const RESULT_CHARS = 2000;

export function quantile(xs, q) {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(q * s.length))];
}
const stats = (xs) => ({ p50: round(quantile(xs, 0.5)), p95: round(quantile(xs, 0.95)), n: xs.length });
const round = (x) => Math.round(x * 1000) / 1000;

/** A generated session split into its header lines and turns (lines and messages). */
function generate(turns) {
  const header = [];
  const out = [];
  for (const line of sessionLines({ turns, seed: 5, sessionId: `speed-${turns}`, resultChars: RESULT_CHARS })) {
    const v = JSON.parse(line);
    const m = v.type === "message" ? v.message : undefined;
    if (m?.role === "user") out.push({ lines: [], messages: [], entries: [] });
    const t = out.at(-1);
    if (!t) {
      header.push(line);
      continue;
    }
    t.lines.push(line);
    t.entries.push(v);
    if (m) t.messages.push(m);
  }
  return { header, turns: out };
}

const promptOf = (turn) => turn.messages[0].content.map((p) => p.text).join("");

function time(fn) {
  const a = performance.now();
  const r = fn();
  return [performance.now() - a, r];
}
async function timeAsync(fn) {
  const a = performance.now();
  const r = await fn();
  return [performance.now() - a, r];
}

/** The entries of a transcript as the JS reader hands them to the core's index. */
const asEntry = (v) => ({ id: v.id, parentId: v.parentId ?? null, type: v.type, message: v.message ?? null });

async function measureSize(n, { createEngine, core, native }) {
  const reps = Number(option("reps", 0)) || (REPS[n] ?? 10);
  const { header, turns } = generate(n + reps);
  const base = turns.slice(0, n);
  const extra = turns.slice(n);
  const history = base.flatMap((t) => t.messages);
  const historyJson = JSON.stringify(history);
  const r = { turns: n, messages: history.length, historyBytes: Buffer.byteLength(historyJson), reps };

  // The floor: copying the messages once through JSON. These rounds warm it up; the floor
  // reported is measured on each per-turn request's history right after that request (below),
  // so that both see the same input and the same state of a shared machine.
  for (let i = 0; i < reps; i++) time(() => JSON.parse(JSON.stringify(history)));

  // Index: a full rebuild, then one turn at a time (the core, boundary included).
  const entries = [...header.map((l) => JSON.parse(l)), ...base.flatMap((t) => t.entries)].map(asEntry);
  const s = core.newSession({});
  const rebuild = [];
  for (let i = 0; i < Math.min(3, reps); i++) rebuild.push(time(() => s.rebuild(entries))[0]);
  r.rebuild = stats(rebuild);
  const append = [];
  for (const t of extra) append.push(time(() => s.append(t.entries.map(asEntry)))[0]);
  r.indexAppendPerTurn = stats(append);
  s.free();

  // The adapter, as the host drives it.
  const tmp = mkdtempSync(path.join(os.tmpdir(), "cf-speed-"));
  try {
    const sessionId = `speed-${n}`;
    const params = { sessionId, sessionKey: `agent:main:speed${n}` };
    const hostStateDir = path.join(tmp, "host");
    const transcript = path.join(hostStateDir, "agents", "main", "sessions", `${sessionId}.jsonl`);
    mkdirSync(path.dirname(transcript), { recursive: true });
    writeFileSync(transcript, [...header, ...base.flatMap((t) => t.lines)].join("\n") + "\n");
    const warnings = [];
    const logger = { info: () => {}, warn: (m) => warnings.push(m), error: (m) => warnings.push(m) };
    const engine = createEngine({ logger, config: {}, stateDir: path.join(tmp, "state"), hostStateDir });
    const [bootMs] = await timeAsync(() => engine.bootstrap(params));
    r.bootstrap = round(bootMs);

    const call = (messages, prompt) => engine.assemble({ ...params, messages, prompt, tokenBudget: BUDGET });
    const [firstMs, first] = await timeAsync(() => call(JSON.parse(historyJson), promptOf(extra[0])));
    r.first = round(firstMs);
    r.sentMessages = first.messages.length;
    r.estimatedTokens = first.estimatedTokens;

    // One request per new turn, fresh objects each time; the previous turn is committed first.
    const turnMs = [];
    const commitMs = [];
    const floorMs = [];
    let lines = historyJson.slice(0, -1);
    let prev = extra[0];
    for (let k = 1; k < extra.length; k++) {
      appendFileSync(transcript, prev.lines.join("\n") + "\n");
      lines += "," + prev.messages.map((m) => JSON.stringify(m)).join(",");
      const fresh = JSON.parse(lines + "]");
      const [c] = await timeAsync(() => engine.commitTurn({ ...params, advancementKey: `t${n + k}`, messages: fresh }));
      commitMs.push(c);
      await engine.maintain(params);
      const [ms] = await timeAsync(() => call(fresh, promptOf(extra[k])));
      turnMs.push(ms);
      floorMs.push(time(() => JSON.parse(JSON.stringify(fresh)))[0]);
      prev = extra[k];
    }
    r.turn = stats(turnMs);
    r.floor = stats(floorMs);
    r.commitTurn = stats(commitMs);

    // The same history in the same objects, again and again.
    const same = JSON.parse(lines + "]");
    const repeat = [];
    for (let i = 0; i < reps; i++) repeat.push((await timeAsync(() => call(same, promptOf(prev))))[0]);
    r.repeat = stats(repeat);
    r.warnings = warnings.length;
    if (warnings.length) say(`${n} turns: ${warnings.length} warning(s), first: ${warnings[0]}`);
    await engine.dispose?.(params);

    // The same requests natively.
    if (native) {
      const req = path.join(tmp, "request.json");
      const nativeTurns = extra.map((t) => ({ entries: t.entries.map(asEntry), messages: t.messages, prompt: promptOf(t) }));
      writeFileSync(req, JSON.stringify({ entries, messages: history, prompt: promptOf(extra[0]), budget: BUDGET, reps, turns: nativeTurns }));
      // SPEED_KEEP_REQUEST=DIR keeps the request file (for profiling the native core on it).
      if (process.env.SPEED_KEEP_REQUEST) copyFileSync(req, path.join(process.env.SPEED_KEEP_REQUEST, `request-${n}.json`));
      const out = JSON.parse(execFileSync(native, [req], { encoding: "utf8", maxBuffer: 1 << 26 }));
      r.native = { assemble: stats(out.assemble), turn: stats(out.turn), parse: stats(out.parse), rebuild: stats(out.rebuild) };
    }
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
  r.ratio = {
    first: round(r.first / r.floor.p50),
    turn: round(r.turn.p50 / r.floor.p50),
    turnP95: round(r.turn.p95 / r.floor.p95),
    repeat: round(r.repeat.p50 / r.floor.p50),
  };
  return r;
}

/** `gzip -9` size (as scripts/build.sh and bench/size report it); zlib's when gzip is missing. */
export function gzipSize(file, bytes) {
  try {
    return execFileSync("gzip", ["-9", "-c", file], { maxBuffer: 1 << 26 }).length;
  } catch {
    return zlib.gzipSync(bytes, { level: 9 }).length;
  }
}

/** Builds crate/examples/speed.rs natively (release) and returns its path, or null. */
function buildNative() {
  try {
    say("building the native core (cargo build --release --example speed)");
    execFileSync("cargo", ["build", "--release", "--quiet", "-p", "contextfold", "--example", "speed"], { cwd: ROOT, stdio: ["ignore", "ignore", "inherit"] });
    const dir = process.env.CARGO_TARGET_DIR ?? path.join(ROOT, "target");
    return path.join(dir, "release", "examples", "speed");
  } catch (err) {
    say(`native build failed (${err.message}); the native column stays empty`);
    return null;
  }
}

export async function runSpeed({ pkg = path.join(ROOT, "pkg-template"), sizes = [100, 1000, 10000], native = true } = {}) {
  const wasmFile = path.join(pkg, "wasm", "contextfold_bg.wasm");
  if (!existsSync(wasmFile)) throw new Error(`${pkg} is not built: run \`bash scripts/build.sh\` first`);
  const { createEngine } = await import(pathToFileURL(path.join(pkg, "js", "openclaw", "engine.js")).href);
  const { loadCore } = await import(pathToFileURL(path.join(pkg, "js", "core", "node.js")).href);
  const core = await loadCore();
  const nativeBin = native ? buildNative() : null;
  const wasm = readFileSync(wasmFile);
  const out = {
    node: process.version,
    cpus: os.cpus().length,
    budget: BUDGET,
    resultChars: RESULT_CHARS,
    wasm: { raw: wasm.length, gzip: gzipSize(wasmFile, wasm) },
    sizes: [],
  };
  for (const n of sizes) {
    const a = performance.now();
    say(`${n} turns …`);
    const r = await measureSize(n, { createEngine, core, native: nativeBin });
    out.sizes.push(r);
    say(
      `${n} turns (${r.messages} msgs, ${(r.historyBytes / 1048576).toFixed(1)} MiB): floor p50 ${r.floor.p50} ms; assemble first ${r.first} ms, ` +
        `per turn p50 ${r.turn.p50} / p95 ${r.turn.p95} ms (${r.ratio.turn}× floor), repeat p50 ${r.repeat.p50} ms; ` +
        `index append ${r.indexAppendPerTurn.p50} ms/turn, rebuild ${r.rebuild.p50} ms` +
        (r.native ? `; native assemble p50 ${r.native.assemble.p50} ms, per turn p50 ${r.native.turn.p50} ms` : "") +
        ` [${((performance.now() - a) / 1000).toFixed(0)} s]`,
    );
  }
  const ru = process.resourceUsage();
  out.peakRssMiB = round(ru.maxRSS / 1024);
  out.wasmMemoryMiB = round((await wasmMemory(pkg)) / 1048576);
  return out;
}

/** The linear memory of the core instance the engine used. */
async function wasmMemory(pkg) {
  const { loadCore } = await import(pathToFileURL(path.join(pkg, "js", "core", "node.js")).href);
  return (await loadCore()).memoryBytes();
}

if (process.argv[1] && fileURLToPath(import.meta.url) === path.resolve(process.argv[1])) {
  const sizes = option("sizes", "100,1000,10000").split(",").map(Number);
  const outFile = path.resolve(option("out", path.join(ROOT, "bench", "out", "speed.json")));
  const pkg = path.resolve(option("pkg", path.join(ROOT, "pkg-template")));
  const r = await runSpeed({ pkg, sizes, native: !process.argv.includes("--no-native") });
  mkdirSync(path.dirname(outFile), { recursive: true });
  writeFileSync(outFile, JSON.stringify(r, null, 2) + "\n");
  say(`peak rss ${r.peakRssMiB} MiB, wasm memory ${r.wasmMemoryMiB} MiB, wasm ${r.wasm.raw} B raw / ${r.wasm.gzip} B gzip; wrote ${outFile}`);
}
