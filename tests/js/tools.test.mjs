// The agent tools and the /contextfold command, through the plugin entry with a fake api:
// every tool acts on the live state of the calling session (the same one the engine plans
// with), and its effect shows in the engine's next assemble.
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, mkdirSync, writeFileSync, readFileSync, readdirSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { PKG, linkHost } from "./helpers.mjs";

const hasHost = linkHost();
const skip = !hasHost && "openclaw not installed";

// The host's state dir: transcripts live at agents/<agentId>/sessions/<sessionId>.jsonl.
const HOST = mkdtempSync(path.join(os.tmpdir(), "cf-host-"));
process.env.OPENCLAW_STATE_DIR = HOST;

const manifest = JSON.parse(readFileSync(path.join(PKG, "openclaw.plugin.json"), "utf8"));

const WEATHER = ["rain", "forecast", "umbrella", "cloudy", "Paris", "wind", "temperature", "sunny"];
const CODE = ["rust", "borrow", "checker", "lifetime", "compile", "cargo", "trait", "struct"];
const words = (w, n) => Array.from({ length: n }, (_, i) => w[i % w.length]).join(" ");

/** A session of tool-using turns; `spec` = [[tag, vocabulary], ...]. */
function conversation(spec, { resultChars = 2000 } = {}) {
  const msgs = [];
  let ts = 1;
  for (const [tag, vocab] of spec) {
    const call = `call_${tag}`;
    msgs.push({ role: "user", content: [{ type: "text", text: `${tag}: ${words(vocab, 60)}` }], timestamp: ts++ });
    msgs.push({
      role: "assistant",
      content: [
        { type: "thinking", thinking: `thinking about ${tag}`, thinkingSignature: "sig" },
        { type: "toolCall", id: call, name: tag.startsWith("D") ? "deploy" : "read", arguments: { path: `${tag}.txt` } },
      ],
      provider: "anthropic",
      stopReason: "toolUse",
      timestamp: ts++,
    });
    msgs.push({
      role: "toolResult",
      toolCallId: call,
      toolName: "read",
      content: [{ type: "text", text: `RESULT-${tag} ${"A".repeat(resultChars)}` }],
      isError: false,
      timestamp: ts++,
    });
    msgs.push({
      role: "assistant",
      content: [{ type: "text", text: `ANSWER-${tag}: ${words(vocab, 30)}` }],
      provider: "anthropic",
      stopReason: "stop",
      timestamp: ts++,
    });
  }
  return msgs;
}

const STANDARD = [
  ["W1", WEATHER],
  ["W2", WEATHER],
  ["W3", WEATHER],
  ["C1", CODE],
  ["C2", CODE],
  ["C3", CODE],
];

/** Writes the messages as an OpenClaw session JSONL; returns the file and its entries' byte ranges. */
function writeTranscript(sessionId, messages, agentId = "main") {
  const dir = path.join(HOST, "agents", agentId, "sessions");
  mkdirSync(dir, { recursive: true });
  const lines = [JSON.stringify({ type: "session", version: 4, id: sessionId, timestamp: "2026-11-30T00:00:00.000Z", cwd: "/" })];
  for (const [i, m] of messages.entries()) {
    lines.push(
      JSON.stringify({
        type: "message",
        id: `${sessionId}-e${i + 1}`,
        parentId: i ? `${sessionId}-e${i}` : null,
        timestamp: "2026-11-30T00:00:00.000Z",
        message: m,
      }),
    );
  }
  const file = path.join(dir, `${sessionId}.jsonl`);
  writeFileSync(file, lines.join("\n") + "\n");
  return file;
}

let counter = 0;

/**
 * A fresh plugin, session and transcript: {tools, run, engine, assemble, ...}.
 * @param {{spec?: any[], pluginConfig?: object, messages?: any[], transcript?: boolean, runtime?: object}} [o]
 */
async function setup({ spec = STANDARD, pluginConfig = {}, messages, transcript = true, runtime = {} } = {}) {
  const n = ++counter;
  const sessionId = `sess-${n}`;
  const sessionKey = `agent:main:tools-${n}`;
  const stateDir = mkdtempSync(path.join(os.tmpdir(), "cf-state-"));
  const msgs = messages ?? conversation(spec);
  const file = transcript ? writeTranscript(sessionId, msgs) : null;
  const entry = (await import(path.join(PKG, "js", "openclaw", "index.js"))).default;
  const engines = new Map();
  const factories = [];
  const commands = [];
  const logs = { info: [], warn: [] };
  const api = {
    id: "contextfold",
    name: "contextfold",
    registrationMode: "full",
    pluginConfig: { stateDir, preserveRecentMessages: 1, foldOtherTopics: true, ...pluginConfig },
    config: { plugins: { slots: { contextEngine: "contextfold" } } },
    runtime,
    logger: { info: (m) => logs.info.push(m), warn: (m) => logs.warn.push(m), error: (m) => logs.warn.push(m) },
    registerContextEngine: (id, f) => engines.set(id, f),
    registerTool: (f, opts) => factories.push({ f, opts }),
    registerCommand: (c) => commands.push(c),
  };
  entry.register(api);
  const toolCtx = { sessionKey, sessionId, agentId: "main" };
  const tools = Object.fromEntries(factories[0].f(toolCtx).map((t) => [t.name, t]));
  const run = async (name, params = {}) => {
    const r = await tools[name].execute(`call-${name}`, params);
    assert.equal(r.content[0].type, "text");
    assert.ok(Buffer.byteLength(r.content[0].text) <= 64 * 1024, `${name}: result text over 64 KB`);
    return { text: r.content[0].text, details: r.details };
  };
  const engine = await engines.get("contextfold")({});
  const assemble = (budget = 100000) => engine.assemble({ sessionKey, sessionId, messages: msgs, tokenBudget: budget, prompt: "next question" });
  const sessionDir = () => {
    const dirs = readdirSync(path.join(stateDir, "sessions"));
    return path.join(stateDir, "sessions", dirs[0]);
  };
  const state = () => JSON.parse(readFileSync(path.join(sessionDir(), "state.json"), "utf8"));
  return { api, factories, commands, tools, run, engine, assemble, msgs, file, sessionId, sessionKey, stateDir, state, logs, toolCtx };
}

const textOf = (m) => (typeof m.content === "string" ? m.content : (m.content ?? []).map((p) => p.text ?? p.thinking ?? "").join(" "));
const sent = (r) => r.messages.map(textOf).join("\n");
/** Turn `id` (tagged `tag`) is sent folded: as its summary or in a stub, its tool result gone. */
const isFolded = (r, id, tag) =>
  r.messages.some((m) => m.role === "assistant" && (textOf(m).includes(`[summary of turn ${id}]`) || (/\[folded/.test(textOf(m)) && textOf(m).includes(id)))) &&
  !sent(r).includes(`RESULT-${tag}`);
const isStubbed = (r, tag) => r.messages.some((m) => m.role === "assistant" && /\[folded/.test(textOf(m))) && !sent(r).includes(`ANSWER-${tag}`);

test("one factory registers every tool the manifest declares, with JSON Schema parameters; the command too", { skip }, async () => {
  const { factories, tools, commands } = await setup();
  assert.equal(factories.length, 1);
  assert.deepEqual(factories[0].opts.names, manifest.contracts.tools);
  assert.deepEqual(Object.keys(tools).sort(), [...manifest.contracts.tools].sort());
  assert.equal(manifest.contracts.tools.length, 16);
  for (const t of Object.values(tools)) {
    assert.match(t.name, /^[a-z_]+$/);
    assert.ok(t.description.length > 40, `${t.name}: description`);
    assert.equal(t.parameters.type, "object");
    assert.equal(t.parameters.additionalProperties, false, `${t.name}: unknown keys must be refused`);
    for (const [k, p] of Object.entries(t.parameters.properties)) assert.ok(p.description, `${t.name}.${k}: description`);
    assert.equal(typeof t.execute, "function");
  }
  assert.equal(commands.length, 1);
  assert.equal(commands[0].name, "contextfold");
  assert.equal(typeof commands[0].handler, "function");
});

test("context_pin: a pinned turn is never stubbed in the next assemble; unpin restores folding; pins persist", { skip }, async () => {
  const t = await setup();
  let r = await t.assemble();
  assert.ok(isStubbed(r, "W1"), "W1 (another topic) is stubbed without a pin");
  const turns = (await t.run("session_index_query", { query: "turns" })).details.turns;
  const w1 = turns.find((x) => x.user.startsWith("W1:")).id;
  const pin = await t.run("context_pin", { turnId: w1 });
  assert.match(pin.text, new RegExp(`pinned turn "${w1}"`));
  assert.deepEqual(t.state().pins.turnIds, [w1]);
  r = await t.assemble();
  assert.ok(sent(r).includes("ANSWER-W1"), "the pinned turn is sent in full");
  assert.ok(!sent(r).includes("ANSWER-W2"), "W2 stays stubbed");
  const why = await t.run("context_engine_explain", {});
  assert.match(why.text, new RegExp(`${w1} +\\w+ .*pinned`));
  // a pin by pattern and by tool
  await t.run("context_pin", { pattern: "w2:" });
  await t.run("context_pin", { tool: "deploy" });
  r = await t.assemble();
  assert.ok(sent(r).includes("ANSWER-W2"), "pattern pins are case-insensitive");
  assert.deepEqual(t.state().pins, { turnIds: [w1], tools: ["deploy"], patterns: ["w2:"] });
  const list = await t.run("context_pin", {});
  assert.match(list.text, /no change/);
  assert.equal(list.details.pinnedTurns.length, 2);
  // unpin
  await t.run("context_pin", { turnId: w1, unpin: true });
  await t.run("context_pin", { pattern: "w2:", unpin: true });
  r = await t.assemble();
  assert.ok(isStubbed(r, "W1") && !sent(r).includes("ANSWER-W2"), "folding resumes after unpin");
  await assert.rejects(t.run("context_pin", { turnId: w1, unpin: true }), /is not pinned/);
});

test("context_pin: a pinned turn is also left uncleaned (thinking and tool output kept)", { skip }, async () => {
  const t = await setup({
    spec: [
      ["C1", CODE],
      ["C2", CODE],
      ["C3", CODE],
    ],
  });
  let r = await t.assemble();
  // Fold mode keeps tool results while they fit; what cleaning always removes is the thinking.
  assert.ok(!sent(r).includes("thinking about C1"), "cleaned without a pin");
  const c1 = (await t.run("session_index_query", { query: "turns" })).details.turns[0].id;
  await t.run("context_pin", { turnId: c1 });
  r = await t.assemble();
  assert.ok(sent(r).includes("RESULT-C1"), "the pinned turn keeps its tool result");
  assert.ok(sent(r).includes("thinking about C1"), "the pinned turn keeps its thinking");
  assert.ok(!sent(r).includes("thinking about C2"), "other turns are still cleaned");
  assert.deepEqual(r.messages.slice(0, 4), t.msgs.slice(0, 4), "the host's own objects, unchanged");
});

test("context_pin: the turns a phrase pins are the planner's, found in the whole turn (a tool result), not a preview", { skip }, async () => {
  const t = await setup({
    spec: [
      ["C1", CODE],
      ["C2", CODE],
      ["C3", CODE],
    ],
  });
  await t.assemble();
  const turns = (await t.run("session_index_query", { query: "turns" })).details.turns;
  const c2 = turns.find((x) => x.user.startsWith("C2:")).id;
  // "result-c2" is only in C2's tool result, which no preview of the index shows
  assert.ok(!JSON.stringify(turns).toLowerCase().includes("result-c2"), "the phrase is not in the index's previews");
  const pin = await t.run("context_pin", { pattern: "result-c2" });
  assert.deepEqual(pin.details.pinnedTurns, [c2], "the tool reports the turn the phrase pins");
  const r = await t.assemble();
  assert.ok(sent(r).includes("RESULT-C2") && sent(r).includes("thinking about C2"), "and the planner keeps that turn whole");
  assert.ok(!sent(r).includes("thinking about C1"), "other turns are still cleaned");
});

test("context_pin: pinned turns are protected from budget folding too", { skip }, async () => {
  const t = await setup({
    spec: [
      ["C0", CODE],
      ["C1", CODE],
      ["C2", CODE],
      ["C3", CODE],
      ["C4", CODE],
    ],
  });
  let r = await t.assemble(400);
  const stubbed = r.messages.filter((m) => /\[folded/.test(textOf(m))).length;
  assert.ok(stubbed >= 1, "a small budget folds old turns");
  const c0 = (await t.run("session_index_query", { query: "turns" })).details.turns[0].id;
  assert.ok(t.state().folded.includes(c0), "C0 was folded for the budget (sticky)");
  await t.run("context_pin", { turnId: c0 });
  assert.ok(!t.state().folded.includes(c0), "pinning takes the turn out of the folded set");
  r = await t.assemble(400);
  assert.ok(sent(r).includes("ANSWER-C0"), "the pinned turn is kept although over budget");
});

test("context_config: view, change (validated by the schema and the core), persisted; takes effect in the next assemble", { skip }, async () => {
  const t = await setup();
  const view = await t.run("context_config", {});
  assert.match(view.text, /preserveRecentMessages = 1 {2}\(plugin config\)/);
  assert.match(view.text, /foldOtherTopics = true/);
  assert.ok(!("stateDir" in view.details.effective));
  const set = await t.run("context_config", { set: { preserveRecentMessages: 10, summarizeThreshold: 0.5 } });
  assert.match(set.text, /changed: preserveRecentMessages = 10; summarizeThreshold = 0.5/);
  assert.match(set.text, /preserveRecentMessages = 10 {2}\(session override\)/);
  assert.deepEqual(t.state().config, { preserveRecentMessages: 10, summarizeThreshold: 0.5 });
  // bad values: schema types, ranges, enums, unknown and read-only keys
  await assert.rejects(t.run("context_config", { set: { preserveRecentMessages: -1 } }), /context_config: preserveRecentMessages must be ≥ 0, got -1/);
  await assert.rejects(t.run("context_config", { set: { preserveRecentMessages: 1.5 } }), /must be an integer/);
  await assert.rejects(t.run("context_config", { set: { summarizeThreshold: 0 } }), /summarizeThreshold must be > 0/);
  await assert.rejects(t.run("context_config", { set: { mode: "shrink" } }), /mode must be one of "fold", "clean"/);
  await assert.rejects(t.run("context_config", { set: { cleanThinking: "yes" } }), /cleanThinking must be true or false, got string/);
  await assert.rejects(t.run("context_config", { set: { bogus: 1 } }), /unknown config key "bogus"/);
  await assert.rejects(t.run("context_config", { set: { stateDir: "/tmp/x" } }), /stateDir cannot be changed at runtime/);
  await assert.rejects(t.run("context_config", { set: [1] }), /arguments.set must be an object, got array/);
  assert.deepEqual(t.state().config, { preserveRecentMessages: 10, summarizeThreshold: 0.5 }, "a refused change changes nothing");
  const unset = await t.run("context_config", { unset: ["summarizeThreshold"] });
  assert.match(unset.text, /unset summarizeThreshold/);
  await t.run("context_config", { resetAll: true });
  assert.deepEqual(t.state().config, {});
});

test("context_config: a change takes effect in the engine's next assemble", { skip }, async () => {
  const t = await setup();
  let r = await t.assemble();
  assert.ok(isStubbed(r, "W1"));
  await t.run("context_config", { set: { foldOtherTopics: false } });
  r = await t.assemble();
  assert.ok(sent(r).includes("ANSWER-W1"), "other topics are kept while the budget allows");
  await t.run("context_config", { set: { foldOtherTopics: true, mode: "clean" } });
  r = await t.assemble();
  assert.ok(sent(r).includes("ANSWER-W1") && !sent(r).includes("RESULT-W1"), "clean mode: cleaned, never folded");
  await t.run("context_config", { resetAll: true });
  r = await t.assemble();
  assert.ok(isStubbed(r, "W1"), "back to the plugin config");
});

test("context_engine_recover: complete original messages from the transcript, paged, with unfold", { skip }, async () => {
  const t = await setup({
    spec: [
      ["W1", WEATHER],
      ["W2", WEATHER],
      ["C1", CODE],
      ["C2", CODE],
    ],
  });
  const r = await t.assemble();
  assert.ok(!sent(r).includes("RESULT-W1"), "the tool output is not in the request");
  const w1 = (await t.run("context_engine_explain", { decision: "stubbed" })).details.turns[0].id;
  assert.equal(w1, (await t.run("session_index_query", { query: "turns" })).details.turns[0].id);
  const rec = await t.run("context_engine_recover", { turnId: w1 });
  assert.match(rec.text, new RegExp(`^turn ${w1}: 4 message\\(s\\)`));
  const orig = t.msgs.slice(0, 4);
  for (const m of orig) for (const p of m.content) if (p.text) assert.ok(rec.text.includes(p.text), "every text part verbatim");
  assert.ok(rec.text.includes("[thinking] thinking about W1"));
  assert.ok(rec.text.includes('[tool call read id=call_W1] {"path":"W1.txt"}'));
  assert.equal(rec.details.entryIds.length, 4);
  // paging
  const p2 = await t.run("context_engine_recover", { turnId: w1, page: 2, pageSize: 3 });
  assert.match(p2.text, /page 2 of 2/);
  assert.ok(p2.text.includes("ANSWER-W1") && !p2.text.includes("RESULT-W1"));
  await assert.rejects(t.run("context_engine_recover", { turnId: w1, page: 3, pageSize: 3 }), /page 3 is past the last page \(2\)/);
  // unfold: the turn comes back in full while the budget allows
  await t.run("context_pin", {});
  const folded = await t.run("context_prune", { strategy: "fifo", maxTurns: 1 });
  assert.deepEqual(folded.details.turnIds, [w1]);
  const un = await t.run("context_engine_recover", { turnId: w1, unfold: true });
  assert.match(un.text, /unfolded for later requests/);
  assert.ok(!t.state().folded.includes(w1));
});

test("session_index_read_raw returns the exact transcript bytes of a turn", { skip }, async () => {
  const t = await setup({
    spec: [
      ["W1", WEATHER],
      ["C1", CODE],
    ],
  });
  await t.run("session_index_build", {});
  const turns = (await t.run("session_index_query", { query: "turns" })).details.turns;
  const bytes = readFileSync(t.file);
  const lines = bytes.toString("utf8").split("\n");
  const raw = await t.run("session_index_read_raw", { turnId: turns[1].id });
  assert.equal(raw.text, lines.slice(5, 9).join("\n"), "lines 5..8 (after the header and turn 1), byte for byte");
  assert.equal(raw.details.source, "jsonl");
  assert.equal(raw.details.bytes, Buffer.byteLength(lines.slice(5, 9).join("\n")));
  const one = await t.run("session_index_read_raw", { turnId: turns[0].id, page: 2, pageSize: 2 });
  assert.equal(one.text, lines.slice(3, 5).join("\n"));
});

test("large results are cut at 64 KB and continue with offset", { skip }, async () => {
  const t = await setup({
    messages: conversation(
      [
        ["B1", CODE],
        ["B2", CODE],
      ],
      { resultChars: 150_000 },
    ),
  });
  const id = (await t.run("session_index_query", { query: "turns" })).details.turns[0].id;
  const a = await t.run("context_engine_recover", { turnId: id });
  assert.ok(a.details.nextOffset > 0);
  assert.match(a.text, /cut at 64 KB; call again with offset=\d+/);
  const b = await t.run("context_engine_recover", { turnId: id, offset: a.details.nextOffset });
  const c = await t.run("context_engine_recover", { turnId: id, offset: b.details.nextOffset });
  assert.equal(c.details.nextOffset, null);
  const joined = a.text.slice(0, a.text.lastIndexOf("\n[… cut")) + b.text.slice(0, b.text.lastIndexOf("\n[… cut")) + c.text;
  assert.ok(joined.includes(`RESULT-B1 ${"A".repeat(150_000)}`), "the pieces add up to the whole result");
  const raw = await t.run("session_index_read_raw", { turnId: id });
  assert.ok(raw.details.nextOffset > 0);
});

test("bad arguments and traversal attempts fail cleanly", { skip }, async () => {
  const t = await setup();
  for (const name of ["context_engine_recover", "session_index_read_raw", "context_pin"]) {
    await assert.rejects(
      t.run(name, { turnId: "../../etc/passwd" }),
      new RegExp(`^Error: ${name}: no turn "\\.\\./\\.\\./etc/passwd" in this session's index`),
    );
  }
  await assert.rejects(
    t.run("context_engine_recover", { turnId: "x", path: "/etc/passwd" }),
    /context_engine_recover: unknown argument "path" in arguments; allowed: turnId, page, pageSize, offset, unfold/,
  );
  await assert.rejects(t.run("context_engine_recover", {}), /arguments.turnId is required/);
  await assert.rejects(t.run("context_engine_recover", { turnId: 5 }), /arguments.turnId must be a string, got number/);
  await assert.rejects(t.run("context_engine_recover", { turnId: "a".repeat(201) }), /at most 200 characters/);
  await assert.rejects(t.run("session_index_query", { query: "turns", pageSize: 201 }), /arguments.pageSize must be ≤ 200, got 201/);
  await assert.rejects(t.run("session_index_query", { query: "everything" }), /arguments.query must be one of "stats", "largest", "candidates", "turns"/);
  await assert.rejects(t.run("context_prune", { strategy: "lru" }), /must be one of "fifo", "sliding-window", "importance"/);
  await assert.rejects(t.run("context_prune", { strategy: "sliding-window" }), /sliding-window needs keepMessages/);
  await assert.rejects(t.run("context_prune", { strategy: "fifo" }), /fifo needs targetTokens .* or maxTurns/);
  await assert.rejects(t.run("context_summarize", {}), /give turnIds .* or count/);
  await assert.rejects(t.run("context_summarize", { turnIds: [] }), /at least 1 item/);
  await assert.rejects(t.run("context_pin", { unpin: true }), /unpin needs turnId, tool or pattern/);
  await assert.rejects(t.run("context_stats", { verbose: true }), /unknown argument "verbose"/);
  await assert.rejects(t.run("context_engine_status", "status"), /arguments must be an object, got string/);
  // nothing was pinned by the refused calls
  assert.deepEqual((await t.run("context_pin", {})).details.pins, { turnIds: [], tools: [], patterns: [] });
});

test("tools need a session in their context and never read another session's data", { skip }, async () => {
  const a = await setup();
  const b = await setup({
    spec: [
      ["Q1", CODE],
      ["Q2", CODE],
    ],
  });
  const idA = (await a.run("session_index_query", { query: "turns" })).details.turns[0].id;
  await assert.rejects(b.run("context_engine_recover", { turnId: idA }), /no turn .* in this session's index/);
  const noSession = a.factories[0].f({ agentId: "main" });
  const status = noSession.find((x) => x.name === "context_engine_status");
  await assert.rejects(status.execute("c", {}), /no session in this tool call's context/);
});

test("context_prune: fifo / sliding-window / importance fold whole turns, honour pins and the protected tail", { skip }, async () => {
  const t = await setup({
    pluginConfig: { preserveRecentMessages: 2 },
    spec: [
      ["C1", CODE],
      ["C2", CODE],
      ["C3", CODE],
      ["D4", CODE],
      ["C5", CODE],
      ["C6", CODE],
      ["C7", CODE],
    ],
  });
  let r = await t.assemble();
  assert.ok(sent(r).includes("ANSWER-C1"), "one topic, big budget: nothing folded");
  const ids = (await t.run("session_index_query", { query: "turns" })).details.turns.map((x) => x.id);
  await t.run("context_pin", { turnId: ids[1] });
  const dry = await t.run("context_prune", { strategy: "fifo", maxTurns: 2, dryRun: true });
  assert.deepEqual(dry.details.turnIds, [ids[0], ids[2]], "oldest first, the pinned turn skipped");
  assert.match(dry.text, /would prune 2 turn\(s\) by fifo/);
  assert.deepEqual(t.state().folded ?? [], [], "a dry run changes nothing");
  const done = await t.run("context_prune", { strategy: "fifo", maxTurns: 2 });
  assert.match(done.text, /pruned 2 turn\(s\) by fifo: .*\n.*the next request as planned now: ~[\d,]+ → ~[\d,]+ tokens/);
  assert.equal(done.details.skipped.pinned, 1);
  assert.ok(done.details.nextRequestTokens < done.details.plannedBefore);
  r = await t.assemble();
  assert.ok(isFolded(r, ids[0], "C1") && isFolded(r, ids[2], "C3"), "pruned turns are folded in the next request");
  assert.ok(sent(r).includes("ANSWER-C2"), "the pinned turn stays");
  assert.ok(sent(r).includes(`turn ${ids[0]}`), "the stub names the turn id for recovery");
  // sliding window: keep the 8 most recent messages → every unpinned turn before them
  const sw = await t.run("context_prune", { strategy: "sliding-window", keepMessages: 8 });
  assert.deepEqual(sw.details.turnIds, [ids[3], ids[4]]);
  assert.equal(sw.details.skipped.protected, 2);
  // importance on a fresh session
  // tool output kept in the requests (dropToolResults off), one turn with a huge result
  const u = await setup({
    pluginConfig: { preserveRecentMessages: 1, dropToolResults: false },
    messages: conversation([
      ["C1", CODE],
      ["C2", CODE],
      ["C3", CODE],
    ])
      .concat(conversation([["C4", CODE]], { resultChars: 200_000 }).map((m) => ({ ...m, timestamp: m.timestamp + 100 })))
      .concat(conversation([["C5", CODE]]).map((m) => ({ ...m, timestamp: m.timestamp + 200 }))),
  });
  await u.assemble();
  const imp = await u.run("context_prune", { strategy: "importance", maxTurns: 1 });
  const big = (await u.run("session_index_query", { query: "largest" })).details.turns[0].id;
  assert.deepEqual(imp.details.turnIds, [big], "the huge tool-output turn is the least important per token");
  assert.ok(imp.details.pruned[0].score > 0);
});

test("context_set_strategy is persisted and used by context_prune", { skip }, async () => {
  const t = await setup({
    spec: [
      ["C1", CODE],
      ["C2", CODE],
      ["C3", CODE],
      ["C4", CODE],
    ],
  });
  const s = await t.run("context_set_strategy", { strategy: "sliding-window", keepMessages: 4 });
  assert.match(s.text, /prune strategy: fifo → sliding-window; saved/);
  assert.deepEqual(t.state().prune, { strategy: "sliding-window", keepMessages: 4 });
  const p = await t.run("context_prune", { dryRun: true });
  assert.equal(p.details.strategy, "sliding-window");
  assert.equal(p.details.turnIds.length, 3);
  assert.match((await t.run("context_stats", {})).text, /prune strategy: sliding-window/);
  assert.match((await t.run("context_set_strategy", { strategy: "importance" })).text, /context_prune will need targetTokens or maxTurns/);
  await assert.rejects(t.run("context_set_strategy", {}), /arguments.strategy is required/);
});

test("context_summarize: summaries now (heuristic without an LLM), stored, and the turns fold to them", { skip }, async () => {
  // turns that keep their tool output: their summaries are smaller than they are
  const t = await setup({
    spec: [
      ["C1", CODE],
      ["C2", CODE],
      ["C3", CODE],
      ["C4", CODE],
    ],
    pluginConfig: { dropToolResults: false },
  });
  await t.assemble();
  const ids = (await t.run("session_index_query", { query: "turns" })).details.turns.map((x) => x.id);
  const s = await t.run("context_summarize", { count: 2 });
  assert.equal(s.details.made, 2);
  assert.deepEqual(s.details.folded, [ids[0], ids[1]]);
  assert.ok(s.details.summaries.every((x) => x.source === "heuristic"));
  const r = await t.assemble();
  const why = await t.run("context_engine_explain", { decision: "summarized" });
  assert.deepEqual(
    why.details.turns.map((x) => x.id),
    [ids[0], ids[1]],
  );
  const dir = path.join(t.stateDir, "sessions", readdirSync(path.join(t.stateDir, "sessions"))[0], "summaries");
  const stored = readdirSync(dir).map((n) => JSON.parse(readFileSync(path.join(dir, n), "utf8")));
  assert.deepEqual(stored.map((x) => x.turnId).sort(), [ids[0], ids[1]].sort(), "stored in the summary cache");
  for (const x of stored) assert.ok(sent(r).includes(x.text), "the next request carries the summary");
  const again = await t.run("context_summarize", { turnIds: [ids[0], ids[3]] });
  assert.match(again.text, /1 already had a summary/);
  assert.match(again.text, new RegExp(`${ids[3]}: skipped, protected`));
  // with an LLM through the plugin runtime
  const calls = [];
  const l = await setup({
    spec: [
      ["C1", CODE],
      ["C2", CODE],
      ["C3", CODE],
    ],
    runtime: {
      llm: {
        complete: async (p) => {
          calls.push(p);
          return { text: "the user asked about rust lifetimes; answered with cargo advice", usage: { inputTokens: 10, outputTokens: 10 } };
        },
      },
    },
  });
  const ls = await l.run("context_summarize", { count: 1 });
  assert.equal(ls.details.summaries[0].source, "llm");
  assert.equal(calls.length, 1);
  assert.match(ls.text, /\(llm\): \[summary of turn .*\] the user asked about rust lifetimes/);
  const no = await l.run("context_summarize", { count: 1, useLlm: false });
  assert.equal(no.details.summaries[0].source, "heuristic");
  assert.equal(calls.length, 1);
});

test("context_engine_status: active or not, last request, caches, queue, LLM budget, fallback; commits counted", { skip }, async () => {
  const t = await setup();
  let s = await t.run("context_engine_status", {});
  assert.match(
    s.text,
    /^contextfold NOT ACTIVE YET for session agent:main:tools-\d+ \(no request planned .*; 0 committed turn record\(s\); engine slot: contextfold\)/,
  );
  assert.equal(s.details.active, false);
  await t.assemble();
  await t.engine.commitTurn({ sessionKey: t.sessionKey, sessionId: t.sessionId, advancementKey: "turn-1", messages: [] });
  s = await t.run("context_engine_status", {});
  assert.match(s.text, /^contextfold ACTIVE .*planned a request for this session at .*; 1 committed turn record\(s\)/);
  assert.match(s.text, /last request: 24→\d+ msgs/);
  assert.match(s.text, /LLM budget left: 200 calls, 400,000 tokens/);
  assert.match(s.text, /last fallback: none/);
  assert.equal(s.details.lastAssemble.stubbed, 3);
  assert.equal(s.details.slotSelected, true);
  assert.ok(Array.isArray(s.details.pendingSummaries));
});

test("context_stats, context_engine_explain, context_engine_assemble (preview without side effects)", { skip }, async () => {
  const t = await setup();
  assert.match((await t.run("context_engine_explain", {})).text, /no request planned/);
  await t.assemble();
  const st = await t.run("context_stats", {});
  assert.match(st.text, /last request \(.*\): 24→\d+ messages, ~[\d,]+→~[\d,]+ tokens/);
  assert.match(st.text, /by role: user [\d,]+, assistant [\d,]+, tool results [\d,]+/);
  assert.match(st.text, /by part: text [\d,]+, thinking [\d,]+, tool calls [\d,]+, images 0/);
  assert.ok(st.details.session.tokens.toolResult > st.details.session.tokens.user);
  const ex = await t.run("context_engine_explain", { pageSize: 2, page: 2 });
  assert.match(ex.text, /page 2 of 3/);
  assert.equal(ex.details.turns.length, 2);
  const stubs = await t.run("context_engine_explain", { decision: "stubbed" });
  assert.ok(stubs.details.turns.every((x) => x.decision === "stubbed" && /other topic/.test(x.reason)));
  const pv = await t.run("context_engine_assemble", { includeContent: true });
  assert.match(pv.text, /^next request preview \(from the transcript\): 24→\d+ messages/);
  assert.match(pv.text, /stubbed .*other topic/);
  assert.match(pv.text, /\[folded/);
  const small = await t.run("context_engine_assemble", { budget: 300 });
  assert.ok(small.details.tokensAfter < pv.details.tokensAfter);
  const st2 = await t.run("context_engine_status", {});
  assert.equal(st2.details.caches.foldedTurns, 0, "a preview leaves the sticky fold decisions alone");
});

test("topics, sub-topic detection (heuristic and LLM), index build and queries", { skip }, async () => {
  const t = await setup({
    spec: [
      ["W1", WEATHER],
      ["W2", WEATHER],
      ["C1", CODE],
      ["C2", CODE],
      ["C3", CODE],
    ],
  });
  const b = await t.run("session_index_build", { rebuild: true });
  assert.match(b.text, /rebuilt the index from the jsonl transcript: 5 turns/);
  const tp = await t.run("context_engine_topics", {});
  assert.match(tp.text, /^2 topic\(s\) over 5 turns/);
  assert.equal(tp.details.topics[0].turns, 2);
  assert.equal(tp.details.topics[1].firstTurnId, (await t.run("session_index_query", { query: "turns" })).details.turns[2].id);
  const d = await t.run("context_engine_detect_subtopics", { useLlm: false });
  assert.match(d.text, /labelled 5 turn\(s\): 0 by the LLM, 5 by the local heuristic/);
  assert.equal(Object.keys(t.state().subtopics).length, 5);
  const tp2 = await t.run("context_engine_topics", {});
  assert.ok(tp2.details.topics.every((x) => x.subtopics.length >= 1 && x.subtopics[0].label));
  const again = await t.run("context_engine_detect_subtopics", {});
  assert.match(again.text, /labelled 0 turn/);
  // LLM labels
  const l = await setup({
    spec: [
      ["C1", CODE],
      ["C2", CODE],
    ],
    runtime: { llm: { complete: async () => ({ text: '{"subtopic": "borrow errors", "isNewSubtopic": true}' }) } },
  });
  const ld = await l.run("context_engine_detect_subtopics", {});
  assert.match(ld.text, /labelled 2 turn\(s\): 2 by the LLM/);
  assert.deepEqual(Object.values(l.state().subtopics), ["borrow errors", "borrow errors"]);
  // queries
  const stats = await t.run("session_index_query", { query: "stats" });
  assert.match(stats.text, /^5 turns, 20 entries/);
  assert.match(stats.text, /tools: read×5/);
  const largest = await t.run("session_index_query", { query: "largest", pageSize: 2 });
  assert.match(largest.text, /page 1 of 3/);
  const cands = await t.run("session_index_query", { query: "candidates" });
  assert.equal(cands.details.total, 4, "every turn but the protected last one");
});

test("context_engine_compact folds like the host's compaction", { skip }, async () => {
  // turns that keep their tool output: their summaries are smaller than they are
  const t = await setup({
    spec: [
      ["C1", CODE],
      ["C2", CODE],
      ["C3", CODE],
      ["C4", CODE],
    ],
    pluginConfig: { dropToolResults: false },
  });
  await t.assemble();
  const c = await t.run("context_engine_compact", {});
  assert.match(c.text, /^compacted: contextfold: 3 turns folded to summaries, history ~\d+ → ~\d+ tokens/);
  assert.equal(c.details.ok, true);
  assert.ok(c.details.result.tokensAfter < c.details.result.tokensBefore);
  assert.equal(t.state().folded.length, 3);
  await t.assemble();
  const why = await t.run("context_engine_explain", { decision: "summarized" });
  assert.equal(why.details.turns.length, 3);
  // turns smaller than their summaries (tiny tool results): compaction folds none of them
  const small = await setup({
    messages: conversation(
      [
        ["C1", CODE],
        ["C2", CODE],
        ["C3", CODE],
        ["C4", CODE],
      ],
      { resultChars: 10 },
    ),
  });
  await small.assemble();
  const c2 = await small.run("context_engine_compact", {});
  assert.match(c2.text, /^nothing compacted: contextfold: 0 turns folded/);
  assert.equal(c2.details.result.tokensAfter, c2.details.result.tokensBefore);
  assert.equal(small.state().folded.length, 0);
});

test("/contextfold command: status by default, explain, topics, help; needs a session", { skip }, async () => {
  const t = await setup();
  const cmd = t.commands[0];
  await t.assemble();
  const ctx = { sessionKey: t.sessionKey, sessionId: t.sessionId, agentId: "main", channel: "chat", isAuthorizedSender: true, commandBody: "/contextfold" };
  assert.match((await cmd.handler({ ...ctx, args: "" })).text, /^contextfold ACTIVE for session agent:main:tools-\d+/);
  assert.match((await cmd.handler({ ...ctx, args: "status" })).text, /last request: 24→/);
  assert.match((await cmd.handler({ ...ctx, args: "explain" })).text, /stubbed/);
  assert.match((await cmd.handler({ ...ctx, args: "topics" })).text, /2 topic\(s\)/);
  assert.match((await cmd.handler({ ...ctx, args: "help" })).text, /^\/contextfold \[subcommand\]/);
  assert.match((await cmd.handler({ ...ctx, args: "nope" })).text, /unknown subcommand "nope"/);
  assert.match((await cmd.handler({ channel: "chat", isAuthorizedSender: true, commandBody: "/contextfold" })).text, /needs a conversation with a session/);
});
