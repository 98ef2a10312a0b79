// Faults provoked on purpose: a crash inside the wasm core, a hanging transcript read, LLMs
// that hang, fail or answer garbage, damaged side caches, and two processes writing one state
// dir. In every case the agent's turn goes on and nothing on disk is corrupted.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { PKG, SAMPLE, conversation } from "./helpers.mjs";

const { createEngine, liveSessions } = await import(path.join(PKG, "js", "openclaw", "engine.js"));
const { loadCore } = await import(path.join(PKG, "js", "core", "node.js"));
const { LlmBudget, parseSubtopic } = await import(path.join(PKG, "js", "openclaw", "llm.js"));
const { LiveSession } = await import(path.join(PKG, "js", "openclaw", "live.js"));
const { JsonlTranscript } = await import(path.join(PKG, "js", "openclaw", "transcript.js"));
const { summarizeQueued } = await import(path.join(PKG, "js", "openclaw", "background.js"));
const { writeAtomic } = await import(path.join(PKG, "js", "openclaw", "store.js"));

function tmp() {
  return mkdtempSync(path.join(os.tmpdir(), "cf-fault-"));
}

function logger() {
  const logs = { info: [], warn: [] };
  return { logs, info: (m) => logs.info.push(m), warn: (m) => logs.warn.push(m), error: (m) => logs.warn.push(m) };
}

function engine(extra = {}) {
  const log = logger();
  const e = createEngine({ logger: log, config: {}, stateDir: tmp(), ...extra });
  return { e, logs: log.logs };
}

test("a crash inside the core: the host's messages come back unchanged, then a fresh instance serves", async () => {
  const { e, logs } = engine();
  const input = conversation();
  const key = "agent:main:crash";
  const ok = await e.assemble({ sessionKey: key, messages: input, prompt: "next" });
  // cleaned: the finished turn's answer loses its thinking (its tool exchange fits the budget)
  assert.equal(ok.messages.length, 6);
  assert.ok(!JSON.stringify(ok.messages[3]).includes("done reading"));
  // Make the next plan crash the wasm instance.
  const live = liveSessions().map.get(key);
  const core = await loadCore();
  live.wasm.assemble = () => core.selfCheck("panic");
  const r = await e.assemble({ sessionKey: key, messages: input, prompt: "next" });
  assert.equal(r.messages, input, "the host's own array, unchanged");
  assert.equal(logs.warn.length, 1);
  assert.match(logs.warn[0], /returned the host's messages unchanged: (RuntimeError: )?unreachable/);
  assert.equal(core.poisoned, true);
  const again = await e.assemble({ sessionKey: key, messages: input, prompt: "next" });
  assert.deepEqual(again.messages, ok.messages, "cleaned again, by a new instance");
  assert.notEqual(await loadCore(), core);
});

// The read never settles: without the guard the assemble would never return (the test's
// timeout turns that into a failure instead of a hang).
test("assemble has a wall-clock guard: a hanging transcript read cannot hold the turn", { timeout: 60_000 }, async () => {
  const { e, logs } = engine({ assembleTimeoutMs: 200 });
  const key = "agent:main:hang";
  await e.bootstrap({ sessionKey: key });
  liveSessions().map.get(key).transcript = { kind: "jsonl", read: () => new Promise(() => {}) };
  const input = conversation();
  const r = await e.assemble({ sessionKey: key, messages: input, prompt: "next" });
  assert.equal(r.messages, input);
  assert.match(logs.warn.at(-1), /assemble took longer than 200 ms/);
});

test("LLMs that hang, fail, answer nothing, only reason, or answer garbage leave the heuristics in charge", async () => {
  const b = new LlmBudget({ llmTimeoutMs: 100, llmRetries: 1, llmMaxCallsPerSession: 20 });
  const params = { messages: [{ role: "user", content: "x" }] };
  assert.equal(await b.complete(() => new Promise(() => {}), params), null);
  assert.match(b.lastError, /timed out after 100 ms/);
  assert.equal(
    await b.complete(async () => {
      throw new Error("503 overloaded");
    }, params),
    null,
  );
  assert.match(b.lastError, /503/);
  assert.equal(await b.complete(async () => ({ text: "" }), params), null);
  assert.match(b.lastError, /no visible text/);
  assert.equal(await b.complete(async () => ({ text: "<think>only reasoning</think>" }), params), null);
  assert.equal(await b.complete(async () => ({ text: "sure!" }), params, { accept: (t) => parseSubtopic(t) !== null }), null);
  assert.equal(parseSubtopic("{not json"), null);
  assert.equal(parseSubtopic('{"subtopic": 3}'), null);
  assert.deepEqual(parseSubtopic('ok: {"subtopic": "tests", "isNewSubtopic": true}'), { subtopic: "tests", isNewSubtopic: true });
  // each failure was retried once: two calls per attempt, and the budget is enforced
  const small = new LlmBudget({ llmMaxCallsPerSession: 2, llmRetries: 0 });
  await small.complete(async () => ({ text: "a" }), params);
  await small.complete(async () => ({ text: "b" }), params);
  assert.equal(await small.complete(async () => ({ text: "c" }), params), null);
  assert.match(small.lastError, /budget used up/);

  // summaries fall back to the core's extractive summary
  const dir = tmp();
  const live = new LiveSession({ stateDir: dir, sessionKey: "k", config: {}, logger: logger() });
  const msgs = conversation();
  const made = await summarizeQueued(live, {
    core: await loadCore(),
    llm: new LlmBudget({ llmTimeoutMs: 50, llmRetries: 0 }),
    complete: () => new Promise(() => {}),
    autoSummarize: true,
    turnIds: ["t1"],
    messagesById: new Map([["t1", msgs.slice(0, 4)]]),
    deadline: Date.now() + 10_000,
  });
  assert.equal(made, 1);
  assert.equal(live.summaries.t1.source, "heuristic");
  assert.match(live.summaries.t1.text, /^\[summary of turn t1\]/);
});

function sampleLive(dir) {
  const host = path.join(dir, "host");
  mkdirSync(host, { recursive: true });
  const file = path.join(host, "s.jsonl");
  cpSync(SAMPLE, file);
  const log = logger();
  const live = new LiveSession({
    stateDir: path.join(dir, "state"),
    sessionKey: "agent:main:s",
    config: {},
    logger: log,
    transcript: new JsonlTranscript(file),
  });
  return { live, logs: log.logs };
}

test("damaged side caches are rebuilt from the transcript with a warning", async () => {
  const dir = tmp();
  const first = sampleLive(dir);
  const u = await first.live.sync();
  assert.equal(u.turns, 5);
  await first.live.putSummary("e0004", "[summary of turn e0004] read the ledger", "heuristic");
  const sdir = first.live.dir;
  /** @type {[string, () => void][]} */
  const cases = [
    ["corrupt index", () => writeFileSync(path.join(sdir, "index.json"), '{"version":1,"ind')],
    ["wrong version", () => writeFileSync(path.join(sdir, "index.json"), JSON.stringify({ version: 999, source: "jsonl", index: {} }))],
    [
      "unreadable index",
      () => {
        // a directory where the file should be: reading (and replacing) it fails, even as root
        const f = path.join(sdir, "index.json");
        rmSync(f, { force: true });
        mkdirSync(f);
      },
    ],
    [
      "truncated summary",
      () => {
        const sd = path.join(sdir, "summaries");
        const f = path.join(sd, readdirSync(sd)[0]);
        writeFileSync(f, readFileSync(f, "utf8").slice(0, 10));
      },
    ],
  ];
  for (const [name, damage] of cases) {
    damage();
    const again = sampleLive(dir);
    const r = await again.live.sync();
    assert.equal(r.turns, 5, name);
    const a = await again.live.assemble({ messages: [], prompt: "x" });
    assert.ok(a, name);
    assert.ok(again.logs.warn.length >= 1, `${name}: a warning`);
    if (name === "unreadable index") {
      rmSync(path.join(sdir, "index.json"), { recursive: true });
      continue;
    }
    // the index on disk is valid again
    const idx = JSON.parse(readFileSync(path.join(sdir, "index.json"), "utf8"));
    assert.equal(idx.index.turns.length, 5, name);
  }
});

test("atomic writes: a reader never sees a half-written file", async () => {
  const dir = tmp();
  const file = path.join(dir, "index.json");
  const big = (n) => JSON.stringify({ n, pad: "x".repeat(2_000_000) });
  await writeAtomic(file, big(0));
  let done = false;
  const reads = (async () => {
    let seen = 0;
    while (!done) {
      const v = JSON.parse(readFileSync(file, "utf8")); // throws on a partial file
      assert.equal(v.pad.length, 2_000_000);
      seen++;
      await new Promise((r) => setImmediate(r));
    }
    return seen;
  })();
  for (let i = 1; i <= 20; i++) await writeAtomic(file, big(i));
  done = true;
  assert.ok((await reads) > 0);
  assert.equal(readdirSync(dir).filter((n) => n.endsWith(".tmp")).length, 0, "no temp files left");
});

test("two processes on one state dir: every turn committed exactly once, no corrupt files", async () => {
  const stateDir = tmp();
  const script = `
    const { createEngine } = await import(${JSON.stringify(path.join(PKG, "js", "openclaw", "engine.js"))});
    const e = createEngine({ logger: { info() {}, warn() {} }, config: {}, stateDir: ${JSON.stringify(stateDir)} });
    const keys = Array.from({ length: 60 }, (_, i) => "turn-" + i);
    if (process.argv[1] === "b") keys.reverse();
    let committed = 0;
    for (const k of keys) {
      const r = await e.commitTurn({ sessionKey: "agent:main:shared", advancementKey: k, messages: [] });
      if (r.status === "committed") committed++;
    }
    process.stdout.write(String(committed));
  `;
  const run = (tag) =>
    new Promise((resolve, reject) => {
      const p = spawn(process.execPath, ["--input-type=module", "-e", script, tag], { stdio: ["ignore", "pipe", "inherit"] });
      let out = "";
      p.stdout.on("data", (d) => (out += d));
      p.on("exit", (code) => (code === 0 ? resolve(Number(out)) : reject(new Error(`exit ${code}`))));
    });
  const [a, b] = await Promise.all([run("a"), run("b")]);
  assert.equal(a + b, 60, `committed ${a} + ${b}`);
  const sessions = readdirSync(path.join(stateDir, "sessions"));
  const commits = path.join(stateDir, "sessions", sessions[0], "commits");
  const files = readdirSync(commits);
  assert.equal(files.filter((f) => f.endsWith(".json")).length, 60);
  assert.equal(files.filter((f) => f.endsWith(".tmp")).length, 0);
  for (const f of files) JSON.parse(readFileSync(path.join(commits, f), "utf8"));
});

test("concurrent turns of different sessions in one process", async () => {
  const { e, logs } = engine();
  const runs = Array.from({ length: 20 }, async (_, i) => {
    const key = `agent:main:c${i}`;
    const r = await e.assemble({ sessionKey: key, messages: conversation(), prompt: "next" });
    const c = await e.commitTurn({ sessionKey: key, advancementKey: `t-${i}`, messages: [] });
    return [r.messages.length, c.status];
  });
  for (const [n, status] of await Promise.all(runs)) {
    assert.equal(n, 6);
    assert.equal(status, "committed");
  }
  assert.equal(logs.warn.length, 0);
});
