// The OpenClaw engine adapter, through the plugin entry and the real SDK, with a fake api.
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, readdirSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { PKG, linkHost, conversation } from "./helpers.mjs";

const hasHost = linkHost();

function fakeApi(pluginConfig) {
  const engines = new Map();
  const logs = { info: [], warn: [] };
  return {
    engines,
    logs,
    api: {
      id: "contextfold",
      name: "contextfold",
      registrationMode: "full",
      pluginConfig,
      config: {},
      runtime: {},
      logger: { info: (m) => logs.info.push(m), warn: (m) => logs.warn.push(m), error: (m) => logs.warn.push(m) },
      registerContextEngine: (id, f) => engines.set(id, f),
      registerTool: () => {},
    },
  };
}

async function loadEntry(bust = "") {
  return (await import(path.join(PKG, "js", "openclaw", "index.js") + bust)).default;
}

test("registers engine 'contextfold' with the durable-turn contract", { skip: !hasHost && "openclaw not installed" }, async () => {
  const entry = await loadEntry();
  assert.equal(entry.id, "contextfold");
  const { api, engines } = fakeApi({ stateDir: mkdtempSync(path.join(os.tmpdir(), "cf-")) });
  entry.register(api);
  assert.deepEqual([...engines.keys()], ["contextfold"]);
  const engine = await engines.get("contextfold")({ config: {} });
  assert.equal(engine.info.id, "contextfold");
  assert.deepEqual(engine.info.transcriptSemantics, {
    currentTurnFence: "before-current-turn-entry-v1",
    turnAdvancementIdempotency: "atomic-idempotent-v1",
  });
  for (const m of ["bootstrap", "ingest", "assemble", "compact", "commitTurn", "maintain", "dispose"]) {
    assert.equal(typeof engine[m], "function", m);
  }
});

test("assemble cleans every finished turn, logs one line, and reuses the host's objects", { skip: !hasHost && "openclaw not installed" }, async () => {
  const entry = await loadEntry();
  const { api, engines, logs } = fakeApi({ stateDir: mkdtempSync(path.join(os.tmpdir(), "cf-")) });
  entry.register(api);
  const engine = await engines.get("contextfold")({});
  const input = conversation();
  // OpenClaw passes the new prompt separately: the history ends with a finished turn, whose
  // final answer loses its thinking too.
  const r = await engine.assemble({ sessionKey: "agent:main:main", messages: input, tokenBudget: 10000, prompt: "next" });
  assert.equal(r.messages.length, 4);
  assert.equal(r.messages[0], input[0], "an unchanged message is the host's own object");
  assert.deepEqual(r.messages[3].content, [{ type: "text", text: "you're welcome" }]);
  assert.ok(r.estimatedTokens > 0 && r.estimatedTokens < 200, `${r.estimatedTokens}`);
  assert.equal(logs.info.length, 1);
  assert.match(logs.info[0], /^\[contextfold\] session=agent:main:main 6→4 msgs \d+→\d+ tok \(-\d+\) cleanedRC=0 cleanedThink=3 dropTool=1 dropAsstTC=1$/);
  // without a separate prompt the last message is the frontier and stays untouched
  const r2 = await engine.assemble({ sessionKey: "agent:main:other", messages: input, tokenBudget: 10000 });
  assert.equal(r2.messages[3], input[5]);
  assert.match(logs.info[1], /cleanedThink=2 dropTool=1 dropAsstTC=1$/);
  // nothing to clean → nothing logged
  await engine.assemble({ sessionKey: "k", messages: [{ role: "user", content: "hi" }] });
  assert.equal(logs.info.length, 2);
});

test("config switches are honored", { skip: !hasHost && "openclaw not installed" }, async () => {
  const entry = await loadEntry();
  const { api, engines } = fakeApi({ cleanThinking: false, dropToolResults: false, stateDir: mkdtempSync(path.join(os.tmpdir(), "cf-")) });
  entry.register(api);
  const engine = await engines.get("contextfold")({});
  const r = await engine.assemble({ sessionKey: "k", messages: conversation() });
  assert.equal(r.messages.length, 6, "tool results kept");
  assert.ok(JSON.stringify(r.messages).includes('"thinking"'), "thinking kept");
});

test("any failure inside assemble returns the host's messages unchanged with one warning", { skip: !hasHost && "openclaw not installed" }, async () => {
  const entry = await loadEntry();
  const { api, engines, logs } = fakeApi({ stateDir: mkdtempSync(path.join(os.tmpdir(), "cf-")) });
  entry.register(api);
  const engine = await engines.get("contextfold")({});
  const input = conversation();
  input[2].details = { size: 10n }; // BigInt: not serializable
  const r = await engine.assemble({ sessionKey: "k", messages: input });
  assert.equal(r.messages, input);
  assert.equal(logs.warn.length, 1);
  assert.match(logs.warn[0], /^\[contextfold\] session=k returned the host's messages unchanged: .*BigInt/);
});

test("commitTurn is idempotent, also after a restart", { skip: !hasHost && "openclaw not installed" }, async () => {
  const stateDir = mkdtempSync(path.join(os.tmpdir(), "cf-"));
  const entry = await loadEntry();
  const { api, engines } = fakeApi({ stateDir });
  entry.register(api);
  const e1 = await engines.get("contextfold")({});
  const p = { sessionKey: "agent:main:main", advancementKey: "turn-1", messages: conversation() };
  assert.deepEqual(await e1.commitTurn(p), { status: "committed" });
  assert.deepEqual(await e1.commitTurn(p), { status: "duplicate" });
  // a new process: a fresh module instance over the same state dir
  const entry2 = await loadEntry("?restart");
  const second = fakeApi({ stateDir });
  entry2.register(second.api);
  const e2 = await second.engines.get("contextfold")({});
  assert.deepEqual(await e2.commitTurn(p), { status: "duplicate" });
  assert.deepEqual(await e2.commitTurn({ ...p, advancementKey: "turn-2" }), { status: "committed" });
  const dirs = readdirSync(path.join(stateDir, "sessions"));
  assert.equal(dirs.length, 1);
  assert.equal(readdirSync(path.join(stateDir, "sessions", dirs[0], "commits")).length, 2);
});

test("inside a tool loop the host re-assembles our own output: passed through, not planned again", { skip: !hasHost && "openclaw not installed" }, async () => {
  const entry = await loadEntry();
  const { api, engines, logs } = fakeApi({ stateDir: mkdtempSync(path.join(os.tmpdir(), "cf-")) });
  entry.register(api);
  const engine = await engines.get("contextfold")({});
  const first = await engine.assemble({ sessionKey: "agent:main:loop", messages: conversation(), tokenBudget: 10000, prompt: "next" });
  assert.equal(logs.info.length, 1);
  const loop = [
    ...first.messages,
    { role: "user", content: "next", timestamp: 7 },
    {
      role: "assistant",
      content: [
        { type: "thinking", thinking: "look", thinkingSignature: "s" },
        { type: "toolCall", id: "c9", name: "read", arguments: {} },
      ],
      timestamp: 8,
    },
    { role: "toolResult", toolCallId: "c9", toolName: "read", content: [{ type: "text", text: "data" }], isError: false, timestamp: 9 },
  ];
  const again = await engine.assemble({ sessionKey: "agent:main:loop", messages: loop, tokenBudget: 19000 });
  assert.equal(again.messages, loop, "the host's array, unchanged");
  assert.ok(again.estimatedTokens > 0);
  assert.equal(logs.info.length, 1, "no second plan, no second log line");
  // a new turn (with its prompt) is planned again
  await engine.assemble({ sessionKey: "agent:main:loop", messages: [...conversation(), ...loop.slice(-3)], tokenBudget: 10000, prompt: "more" });
  assert.equal(logs.info.length, 2);
});

test("a long session rewrites index.json only as it grows by 5 %; after a restart the index catches up from the transcript", async () => {
  const { createEngine } = await import(path.join(PKG, "js", "openclaw", "engine.js"));
  const { sessionLines } = await import(path.join(PKG, "..", "bench", "soak", "generate.mjs"));
  const { writeFileSync, appendFileSync, readFileSync, mkdirSync } = await import("node:fs");
  const tmp = mkdtempSync(path.join(os.tmpdir(), "cf-index-"));
  const sessionId = "long-1";
  const params = { sessionId, sessionKey: "agent:main:long" };
  const hostStateDir = path.join(tmp, "host");
  const stateDir = path.join(tmp, "state");
  const transcript = path.join(hostStateDir, "agents", "main", "sessions", `${sessionId}.jsonl`);
  mkdirSync(path.dirname(transcript), { recursive: true });
  const lines = [...sessionLines({ turns: 235, seed: 4, sessionId })];
  const turnStarts = lines
    .map((l, i) => [JSON.parse(l), i])
    .filter(([v]) => v.message?.role === "user")
    .map(([, i]) => i);
  const logger = { info: () => {}, warn: () => {}, error: () => {} };
  const engine = createEngine({ logger, config: {}, stateDir, hostStateDir });
  writeFileSync(transcript, lines.slice(0, turnStarts[0]).join("\n") + "\n");
  await engine.bootstrap(params);
  const indexTurns = () => {
    const dirs = readdirSync(path.join(stateDir, "sessions"));
    return JSON.parse(readFileSync(path.join(stateDir, "sessions", dirs[0], "index.json"), "utf8")).index.turns.length;
  };
  const written = [];
  for (let t = 0; t < turnStarts.length; t++) {
    appendFileSync(transcript, lines.slice(turnStarts[t], turnStarts[t + 1] ?? lines.length).join("\n") + "\n");
    const c = await engine.commitTurn({ ...params, advancementKey: `t${t}`, messages: [] });
    assert.equal(c.status, "committed");
    await engine.maintain(params);
    if (written.at(-1) !== indexTurns()) written.push(indexTurns());
  }
  // Every turn up to 200, then once the index has grown by 5 % (10 turns, then 11).
  assert.deepEqual(written.slice(-4), [200, 210, 220, 231]);
  assert.equal(written.length, 203);
  // A restart: the registry of live sessions is gone, the files stay.
  globalThis[Symbol.for("contextfold.liveSessions")].map.clear();
  const again = createEngine({ logger, config: {}, stateDir, hostStateDir });
  await again.bootstrap(params);
  const status = await again.assemble({ ...params, messages: [], prompt: "next", tokenBudget: 64000 });
  assert.ok(status);
  const live = globalThis[Symbol.for("contextfold.liveSessions")].map.get("agent:main:long");
  const idx = (await live.session()).index();
  assert.equal(idx.turns.length, 235, "the index has every turn of the transcript after the restart");
  assert.equal(indexTurns(), 235, "and the catch-up was written");
});

test("the host's second assemble of our own output with the prompt plans the original history again", {
  skip: !hasHost && "openclaw not installed",
}, async () => {
  const { sessionLines } = await import(path.join(PKG, "..", "bench", "soak", "generate.mjs"));
  const history = [...sessionLines({ turns: 40, seed: 9 })]
    .map((l) => JSON.parse(l))
    .filter((v) => v.type === "message")
    .map((v) => v.message);
  const entry = await loadEntry();
  const { api, engines } = fakeApi({ stateDir: mkdtempSync(path.join(os.tmpdir(), "cf-")) });
  entry.register(api);
  const engine = await engines.get("contextfold")({});
  const key = "agent:main:twice";
  const live = () => globalThis[Symbol.for("contextfold.liveSessions")].map.get(key);
  const first = await engine.assemble({ sessionKey: key, messages: history, tokenBudget: 1500, prompt: "next" });
  const queue = live().pendingSummaries;
  const ids = live().lastAssemble.result.turns.map((t) => t.id);
  assert.ok(queue.length > 0, "a tight budget queues turns for a summary");
  assert.ok(first.messages.length < history.length);
  // Same prompt, our output, the same budget (a tool-loop iteration of a deferred turn): the
  // same plan of the host's turns, and its summary queue.
  const second = await engine.assemble({ sessionKey: key, messages: first.messages, tokenBudget: 1500, prompt: "next" });
  assert.deepEqual(
    live().lastAssemble.result.turns.map((t) => t.id),
    ids,
    "the turns are the host's, not our stubs'",
  );
  assert.deepEqual(live().pendingSummaries, queue, "the summary queue survives");
  assert.ok(live().lastMessages.length === history.length && live().lastMessages.every((m, i) => m === history[i]), "planned over the host's history");
  assert.deepEqual(second.messages, first.messages);
  // The loop grows, the budget left for the history shrinks: folded further, from the
  // original history.
  const third = await engine.assemble({ sessionKey: key, messages: second.messages, tokenBudget: 700, prompt: "next" });
  assert.ok(third.estimatedTokens <= 700, `${third.estimatedTokens} tokens for a budget of 700`);
  assert.ok(third.estimatedTokens < second.estimatedTokens);
  assert.ok(live().lastMessages.length === history.length && live().lastMessages.every((m, i) => m === history[i]), "planned over the host's history");
  // A larger budget: folds stay folded (sticky), still the host's turns.
  const fourth = await engine.assemble({ sessionKey: key, messages: third.messages, tokenBudget: 19000, prompt: "next" });
  assert.ok(fourth.messages.length <= history.length);
  assert.deepEqual(
    live().lastAssemble.result.turns.map((t) => t.id),
    ids,
  );
});
