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
  // final answer loses its thinking too. Its tool exchange fits the budget: it stays.
  const r = await engine.assemble({ sessionKey: "agent:main:main", messages: input, tokenBudget: 10000, prompt: "next" });
  assert.equal(r.messages.length, 6);
  assert.equal(r.messages[0], input[0], "an unchanged message is the host's own object");
  assert.deepEqual(r.messages[5].content, [{ type: "text", text: "you're welcome" }]);
  assert.ok(r.estimatedTokens > 800 && r.estimatedTokens < 1100, `${r.estimatedTokens}`); // the 4,000-character result stays
  // the line of a plan of the host's history is written once the request goes out as it is
  // (here: the turn ends without the host planning it again)
  assert.equal(logs.info.length, 0);
  await engine.dispose();
  assert.equal(logs.info.length, 1);
  // (the tool-call message keeps its thinking: DeepSeek needs it on messages that keep calls)
  assert.match(logs.info[0], /^\[contextfold\] session=agent:main:main 6→6 msgs \d+→\d+ tok \(-\d+\) cleanedRC=0 cleanedThink=2 dropTool=0 dropAsstTC=0$/);
  // without a separate prompt the last message is the frontier and stays untouched
  const r2 = await engine.assemble({ sessionKey: "agent:main:other", messages: input, tokenBudget: 10000 });
  assert.equal(r2.messages[5], input[5]);
  await engine.dispose();
  assert.match(logs.info[1], /cleanedThink=1 dropTool=0 dropAsstTC=0$/);
  // nothing to clean → nothing logged
  await engine.assemble({ sessionKey: "k", messages: [{ role: "user", content: "hi" }] });
  await engine.dispose();
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
  assert.equal(logs.info.length, 1, "the first plan went out as it was: one line; no second plan, no second line");
  // a new turn (with its prompt) is planned again
  await engine.assemble({ sessionKey: "agent:main:loop", messages: [...conversation(), ...loop.slice(-3)], tokenBudget: 10000, prompt: "more" });
  await engine.dispose();
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
  // A budget that folds some turns and keeps others whole: the large ones kept whole that the
  // next plan would fold first are queued for a summary (the ones it folds now it summarizes
  // itself).
  const first = await engine.assemble({ sessionKey: key, messages: history, tokenBudget: 7000, prompt: "next" });
  const queue = live().pendingSummaries;
  const ids = live().lastAssemble.result.turns.map((t) => t.id);
  assert.ok(queue.length > 0, "the budget queues turns for a summary");
  assert.ok(first.messages.length < history.length);
  // Same prompt, our output, the same budget (a tool-loop iteration of a deferred turn): the
  // same plan of the host's turns, and its summary queue.
  const second = await engine.assemble({ sessionKey: key, messages: first.messages, tokenBudget: 7000, prompt: "next" });
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

/**
 * An engine over a JSONL transcript (the host's state dir layout), with its logs.
 * @param {{config?: Record<string, any>, hostConfig?: any}} [opts]
 */
async function engineWithTranscript({ config = {}, hostConfig } = {}) {
  const { createEngine } = await import(path.join(PKG, "js", "openclaw", "engine.js"));
  const { writeFileSync, mkdirSync } = await import("node:fs");
  const tmp = mkdtempSync(path.join(os.tmpdir(), "cf-gw-"));
  const sessionId = `s-${path.basename(tmp)}`;
  const hostStateDir = path.join(tmp, "host");
  const stateDir = path.join(tmp, "state");
  const file = path.join(hostStateDir, "agents", "main", "sessions", `${sessionId}.jsonl`);
  mkdirSync(path.dirname(file), { recursive: true });
  const logs = { info: [], warn: [] };
  const logger = { info: (m) => logs.info.push(m), warn: (m) => logs.warn.push(m), error: (m) => logs.warn.push(m) };
  const engine = createEngine({ logger, config, stateDir, hostStateDir, hostConfig });
  const write = (messages) => {
    const lines = [JSON.stringify({ type: "session", version: 4, id: sessionId, timestamp: "2026-12-01T00:00:00.000Z", cwd: "/" })];
    for (const [i, m] of messages.entries()) {
      lines.push(JSON.stringify({ type: "message", id: `e${i + 1}`, parentId: i ? `e${i}` : null, timestamp: "2026-12-01T00:00:00.000Z", message: m }));
    }
    writeFileSync(file, lines.join("\n") + "\n");
  };
  const key = `agent:main:${sessionId}`;
  return { engine, logs, write, params: { sessionId, sessionKey: key }, stateDir, key };
}

/** A history of `n` finished turns whose tool results are kept (large), as the host sends it. */
function toolTurns(n, resultText) {
  const msgs = [];
  for (let i = 1; i <= n; i++) {
    msgs.push({ role: "user", content: `T${i}: read the file and report`, timestamp: 10 * i });
    msgs.push({
      role: "assistant",
      content: [{ type: "toolCall", id: `c${i}`, name: "read", arguments: { path: "f.txt" } }],
      provider: "fake",
      stopReason: "toolUse",
      timestamp: 10 * i + 1,
    });
    msgs.push({
      role: "toolResult",
      toolCallId: `c${i}`,
      toolName: "read",
      content: [{ type: "text", text: resultText }],
      isError: false,
      timestamp: 10 * i + 2,
    });
    msgs.push({
      role: "assistant",
      content: [{ type: "text", text: `ANSWER-${i}: the file has lines` }],
      provider: "fake",
      stopReason: "stop",
      timestamp: 10 * i + 3,
    });
  }
  return msgs;
}

const lineOf = (l) =>
  /^\[contextfold\] session=\S+ \d+→\d+ msgs \d+→\d+ tok \(-?\d+\) cleanedRC=\d+ cleanedThink=\d+ dropTool=\d+ dropAsstTC=\d+( folded=\d+ masked=\d+ truncated=\d+( recalled=\d+)? budget=\d+( replanned)?)?( budget=\d+)?( over-budget: the newest turn alone exceeds the budget)?$/.test(
    l,
  );

test("a turn as OpenClaw runs it: one line per model request, and every call of the tool loop leaves the answer its room", async () => {
  const file = Array.from({ length: 300 }, (_, i) => `line ${i}: the quick brown fox jumps over the lazy dog ${i} again.`).join("\n");
  const history = toolTurns(6, file);
  const t = await engineWithTranscript({ config: { dropToolResults: false, preserveRecentMessages: 1 } });
  t.write(history);
  const W = 32000;
  const R = 8000;
  const settings = (tokenBudget, first) => ({
    tokenBudget,
    runtimeSettings: {
      limits: first ? { promptTokenBudget: tokenBudget, maxOutputTokens: R } : { promptTokenBudget: W, maxOutputTokens: null },
      model: { provider: "fake" },
    },
  });
  const prompt = "T7: read it once more";
  await t.engine.bootstrap(t.params);
  t.logs.info.length = 0; // (the turns the host never committed here were caught up)
  // 1. the host's first assemble: its budget leaves the reserve and the system prompt out
  const B1 = 11524;
  const a0 = await t.engine.assemble({ ...t.params, messages: history, prompt, ...settings(B1, true) });
  assert.equal(t.logs.info.length, 0, "held: the host plans this request again before sending it");
  // 2. before the first model call: our output again, budget = window − the prompt
  const a1 = await t.engine.assemble({ ...t.params, messages: a0.messages, prompt, ...settings(W - 50, false) });
  assert.equal(t.logs.info.length, 1, "one line for the first model request");
  // 3. before the second model call: a large tool result is pending
  const a2 = await t.engine.assemble({ ...t.params, messages: a1.messages, prompt, ...settings(W - 50 - 4000, false) });
  assert.equal(t.logs.info.length, 2, "one line for the second model request");
  await t.engine.commitTurn({ ...t.params, advancementKey: "turn-7", messages: [] });
  await t.engine.dispose();
  assert.equal(t.logs.info.length, 2, "nothing more when the turn ends");
  assert.ok(t.logs.info.every(lineOf), t.logs.info.join("\n"));
  assert.ok(!t.logs.info.some((l) => /folded=0 masked=0 truncated=0 budget/.test(l)), "no folding fields when nothing folded");
  const { hostTokens } = await import(path.join(PKG, "js", "core", "room.js"));
  const budgets = t.logs.info.map((l) => Number(/budget=(\d+)/.exec(l)?.[1]));
  // each request's history fits what the host left for it, by the engine's count and by the host's
  for (const [out, room] of [
    [a1, B1],
    [a2, B1 - Math.ceil(4000 * 1.25)],
  ]) {
    assert.ok(out.estimatedTokens <= room, `${out.estimatedTokens} > ${room}`);
    assert.ok(hostTokens(out.messages) <= room, `the host would count ${hostTokens(out.messages)} > ${room}`);
  }
  assert.ok(
    budgets.every((b) => b <= B1),
    `no request was planned with the whole window: ${budgets}`,
  );
  assert.ok(hostTokens(history) > B1, "the history alone would not fit: the test proves something");
});

test("operator commands typed into the chat are no turn, no topic and not sent to the model", async () => {
  const t = await engineWithTranscript();
  const u1 = { role: "user", content: "U1: sourdough starter feeding", timestamp: 1, idempotencyKey: "r1:user" };
  const a1 = { role: "assistant", content: [{ type: "text", text: "Feed it twice a day." }], provider: "fake", model: "m", stopReason: "stop", timestamp: 2 };
  const cmd = { role: "user", content: "/contextfold", timestamp: 3, idempotencyKey: "k1:user" };
  const reply = {
    role: "assistant",
    content: [{ type: "text", text: "contextfold ACTIVE for session …" }],
    api: "openai-responses",
    provider: "openclaw",
    model: "gateway-injected",
    idempotencyKey: "k1",
    stopReason: "stop",
    timestamp: 4,
  };
  t.write([u1, a1, cmd, reply]);
  await t.engine.bootstrap(t.params);
  // the host drops the reply and keeps the typed text as the last history message
  const r = await t.engine.assemble({ ...t.params, messages: [u1, a1, cmd], prompt: "U2: and the crumb?", tokenBudget: 10000 });
  assert.ok(!JSON.stringify(r.messages).includes("/contextfold"), JSON.stringify(r.messages));
  const live = globalThis[Symbol.for("contextfold.liveSessions")].map.get(t.key);
  const index = (await live.session()).index();
  assert.deepEqual(
    index.turns.map((x) => x.userPreview),
    ["U1: sourdough starter feeding"],
  );
  // the next turn: the host merged the typed text into the prompt's user message
  const u2 = { role: "user", content: "U2: and the crumb?", timestamp: 5, idempotencyKey: "r2:user" };
  const a2 = {
    role: "assistant",
    content: [{ type: "text", text: "Open crumb needs hydration." }],
    provider: "fake",
    model: "m",
    stopReason: "stop",
    timestamp: 6,
  };
  t.write([u1, a1, cmd, reply, u2, a2]);
  const merged = {
    ...u2,
    content: [
      { type: "text", text: "/contextfold" },
      { type: "text", text: u2.content },
    ],
  };
  await t.engine.bootstrap(t.params);
  const r2 = await t.engine.assemble({ ...t.params, messages: [u1, a1, merged, a2], prompt: "U3: thanks", tokenBudget: 10000 });
  assert.ok(!JSON.stringify(r2.messages).includes("/contextfold"));
  assert.deepEqual(
    r2.messages[2].content.map((p) => p.text),
    ["U2: and the crumb?"],
  );
  const turns = live.lastAssemble.result.turns.map((x) => x.id);
  assert.deepEqual(turns, ["e1", "e5"], "the turns are the transcript's conversation turns, by their entry ids");
});

test("compaction reports what the model gets (the planned history and the host's system prompt) and never makes a turn larger", async () => {
  const file = "x ".repeat(3000);
  const t = await engineWithTranscript({ config: { dropToolResults: false, preserveRecentMessages: 1, autoSummarize: false } });
  const history = toolTurns(4, file);
  t.write(history);
  await t.engine.bootstrap(t.params);
  const W = 64000;
  const first = await t.engine.assemble({
    ...t.params,
    messages: history,
    prompt: "next",
    tokenBudget: 40000,
    runtimeSettings: { limits: { promptTokenBudget: 40000, maxOutputTokens: 16000 } },
  });
  const c = await t.engine.compact({ ...t.params, tokenBudget: W, force: true });
  assert.equal(c.ok, true, JSON.stringify(c));
  const d = c.result.details;
  assert.equal(d.systemPromptTokens, W - 40000 - 16000);
  assert.equal(c.result.tokensBefore, d.historyBefore + d.systemPromptTokens);
  assert.equal(c.result.tokensAfter, d.historyAfter + d.systemPromptTokens);
  assert.equal(d.historyBefore, first.estimatedTokens, "before: what the last request carried, not the raw transcript");
  assert.ok(d.historyAfter < d.historyBefore && c.compacted, JSON.stringify(c));
  // small turns whose summaries are larger than the cleaned turns: nothing is folded
  const small = await engineWithTranscript({ config: { preserveRecentMessages: 1, autoSummarize: false } });
  const chat = [];
  for (let i = 1; i <= 4; i++)
    chat.push(
      { role: "user", content: `Q${i}?`, timestamp: 2 * i },
      { role: "assistant", content: [{ type: "text", text: `A${i}.` }], stopReason: "stop", timestamp: 2 * i + 1 },
    );
  small.write(chat);
  await small.engine.bootstrap(small.params);
  await small.engine.assemble({ ...small.params, messages: chat, prompt: "next", tokenBudget: 40000 });
  const c2 = await small.engine.compact({ ...small.params, tokenBudget: W, force: true });
  assert.ok(c2.result.tokensAfter <= c2.result.tokensBefore, JSON.stringify(c2));
  assert.equal(c2.compacted, c2.result.details.historyAfter < c2.result.details.historyBefore);
});

/** The text the model is sent. */
const sentText = (messages) => messages.map((m) => JSON.stringify(m.content)).join("\n");

test("stubs and masked tool results name the recovery tool only when the request offers it (availableTools)", async () => {
  const history = toolTurns(6, "x ".repeat(3000));
  const plan = async (availableTools) => {
    const t = await engineWithTranscript({ config: { dropToolResults: false, preserveRecentMessages: 1, autoSummarize: false } });
    t.write(history);
    await t.engine.bootstrap(t.params);
    const r = await t.engine.assemble({
      ...t.params,
      messages: history,
      prompt: "next",
      tokenBudget: 4000,
      runtimeSettings: { limits: { promptTokenBudget: 4000, maxOutputTokens: 500 } },
      ...(availableTools ? { availableTools } : {}),
    });
    return sentText(r.messages);
  };
  for (const [tools, offered] of [
    [["read", "context_engine_recover"], true],
    [undefined, true],
    [["read", "exec"], false],
  ]) {
    const text = await plan(tools);
    assert.match(text, /\[result of read masked/, `${tools}: a tool result is masked`);
    assert.equal(text.includes("recover with context_engine_recover"), offered, `${tools}: ${text.slice(0, 400)}`);
    assert.equal(text.includes("context_engine_recover"), offered, `${tools}: no other mention of the tool`);
    assert.equal(text.includes("left out of this request"), !offered, `${tools}`);
  }
});

test("turns folded by a manual compaction say so in the plan that follows, and stay folded after a restart", async () => {
  const t = await engineWithTranscript({ config: { dropToolResults: false, preserveRecentMessages: 1, autoSummarize: false } });
  const history = toolTurns(4, "x ".repeat(3000));
  t.write(history);
  await t.engine.bootstrap(t.params);
  const request = {
    ...t.params,
    messages: history,
    prompt: "next",
    tokenBudget: 40000,
    runtimeSettings: { limits: { promptTokenBudget: 40000, maxOutputTokens: 16000 } },
  };
  await t.engine.assemble(request);
  const live = () => globalThis[Symbol.for("contextfold.liveSessions")].map.get(t.key);
  assert.ok(
    live().lastAssemble.result.turns.every((x) => !/compaction|sticky/.test(x.reason)),
    "nothing folded before",
  );
  const c = await t.engine.compact({ ...t.params, tokenBudget: 64000, force: true });
  assert.equal(c.ok, true, JSON.stringify(c));
  await t.engine.assemble(request);
  const reasons = (r) => r.turns.filter((x) => x.decision === "summarized").map((x) => x.reason);
  const after = reasons(live().lastAssemble.result);
  assert.ok(after.length > 0, JSON.stringify(live().lastAssemble.result.turns));
  assert.deepEqual(
    after,
    after.map(() => "folded by a manual compaction"),
  );
  // the reason survives a restart (state.json)
  globalThis[Symbol.for("contextfold.liveSessions")].map.clear();
  await t.engine.bootstrap(t.params);
  await t.engine.assemble(request);
  assert.deepEqual(reasons(live().lastAssemble.result), after);
});

test("turns the host advanced without committing them are caught up from the transcript; committed turns are not", async () => {
  const t = await engineWithTranscript();
  const chat = [];
  for (let i = 1; i <= 3; i++)
    chat.push(
      { role: "user", content: `Q${i}?`, timestamp: 2 * i },
      { role: "assistant", content: [{ type: "text", text: `A${i}.` }], stopReason: "stop", timestamp: 2 * i + 1 },
    );
  t.write(chat.slice(0, 2));
  // turn 1 was committed by the host (its admitted user entry is e1)
  assert.deepEqual(await t.engine.commitTurn({ ...t.params, advancementKey: "lt-1", admission: { entryId: "e1" }, messages: [] }), { status: "committed" });
  await t.engine.bootstrap(t.params);
  assert.equal(t.logs.info.filter((l) => /caught up/.test(l)).length, 0, "nothing to catch up");
  // turns 2 and 3 ran without a commit (as with Anthropic's cache-ttl pruning)
  t.write(chat);
  await t.engine.bootstrap(t.params);
  const caught = t.logs.info.filter((l) => /caught up/.test(l));
  assert.deepEqual(caught, [`[contextfold] session=${t.key} caught up 2 turn(s) from the transcript that the host advanced without committing them (e3, e5)`]);
  await t.engine.bootstrap(t.params);
  assert.equal(t.logs.info.filter((l) => /caught up/.test(l)).length, 1, "once");
  // a late commit of a caught-up turn is a duplicate, not a second record
  assert.deepEqual(await t.engine.commitTurn({ ...t.params, advancementKey: "lt-2", admission: { entryId: "e3" }, messages: [] }), { status: "duplicate" });
  const dirs = readdirSync(path.join(t.stateDir, "sessions"));
  assert.equal(readdirSync(path.join(t.stateDir, "sessions", dirs[0], "commits")).length, 3);
});

test("a config change is read on the next turn, without a new registration; the entry declares it so to the host", {
  skip: !hasHost && "openclaw not installed",
}, async () => {
  const entry = await loadEntry("?live-config");
  assert.ok(entry.reload.noopPrefixes.includes("plugins.entries.contextfold.config.preserveRecentMessages"));
  assert.ok(!entry.reload.noopPrefixes.some((p) => p.endsWith(".stateDir")), "a new stateDir still replaces the instance");
  let current = { plugins: { entries: { contextfold: { config: { preserveRecentMessages: 5, foldOtherTopics: true, minTurnsPerTopic: 1 } } } } };
  const { api, engines } = fakeApi({ stateDir: mkdtempSync(path.join(os.tmpdir(), "cf-")) });
  api.runtime = { config: { current: () => current } };
  entry.register(api);
  const engine = await engines.get("contextfold")({});
  const key = "agent:main:live-config";
  const msgs = [];
  for (let i = 1; i <= 6; i++)
    msgs.push(
      { role: "user", content: `Q${i} ${i < 4 ? "rain forecast umbrella" : "rust borrow checker"}?`, timestamp: 2 * i },
      { role: "assistant", content: [{ type: "text", text: `A${i}.` }], stopReason: "stop", timestamp: 2 * i + 1 },
    );
  await engine.assemble({ sessionKey: key, messages: msgs, prompt: "rust lifetimes?", tokenBudget: 100000 });
  const live = globalThis[Symbol.for("contextfold.liveSessions")].map.get(key);
  assert.equal(live.config.preserveRecentMessages, 5);
  current = { plugins: { entries: { contextfold: { config: { ...current.plugins.entries.contextfold.config, preserveRecentMessages: 2 } } } } };
  // the next turn: the host creates a new engine instance
  const next = await engines.get("contextfold")({});
  await next.assemble({ sessionKey: key, messages: msgs, prompt: "rust lifetimes?", tokenBudget: 100000 });
  assert.equal(live.config.preserveRecentMessages, 2, "the committed config, not the one captured at registration");
});
