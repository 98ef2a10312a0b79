// The plugin's rules for the real gateway, module by module (pure, no host): the answer room
// (room.js), operator commands in the history (operator.js), one log line per model request
// (requestlog.js) and its one format (core.js).
import { test } from "node:test";
import assert from "node:assert/strict";
import path from "node:path";
import { PKG } from "./helpers.mjs";

const room = await import(path.join(PKG, "js", "core", "room.js"));
const operator = await import(path.join(PKG, "js", "openclaw", "operator.js"));
const requestlog = await import(path.join(PKG, "js", "openclaw", "requestlog.js"));
const core = await import(path.join(PKG, "js", "core", "core.js"));

test("answer room: the host's first budget stands; the tool loop's budget shrinks by what the loop added, never the whole window", () => {
  const model = { contextWindow: 32000, maxTokens: 1024 };
  // the host's first assemble: window − reserve (8,000) − system prompt and prompt
  const first = room.historyBudget({ tokenBudget: 11524, limits: { promptTokenBudget: 11524, maxOutputTokens: 8000 }, inLoop: false }, model);
  assert.equal(first.budget, 11524);
  assert.equal(first.rule, "host reserve");
  // before the first model call: window − the prompt; the first budget already counted the prompt
  const call1 = room.historyBudget({ tokenBudget: 31946, limits: { promptTokenBudget: 32000, maxOutputTokens: null }, inLoop: true }, model, first.turn);
  assert.equal(call1.budget, 11524);
  // before the second: a ~4,000-token tool result is pending too (counted with the host's 1.25 margin)
  const call2 = room.historyBudget({ tokenBudget: 27927, limits: { promptTokenBudget: 32000, maxOutputTokens: null }, inLoop: true }, model, call1.turn);
  assert.equal(call2.budget, 11524 - Math.ceil((32000 - 27927 - 54) * 1.25));
  // a model whose answer is larger than the host's reserve needs the rest
  assert.equal(room.historyBudget({ tokenBudget: 20000, limits: { maxOutputTokens: 4000 }, inLoop: false }, { maxTokens: 8192 }).budget, 20000 - 4192);
  // nothing said about the reserve: a quarter of the budget is kept back, at least the answer (up to half)
  assert.equal(room.historyBudget({ tokenBudget: 10000, inLoop: false }, {}).budget, 7500);
  assert.equal(room.historyBudget({ tokenBudget: 10000, inLoop: false }, { maxTokens: 4000 }).budget, 6000);
  assert.equal(room.historyBudget({ tokenBudget: 1000, inLoop: false }, { maxTokens: 4000 }).budget, 500);
  assert.equal(room.historyBudget({ inLoop: false }, model).budget, undefined);
  // the system prompt as the host held it back: window − first budget − reserve
  assert.equal(room.systemPromptTokens(first.turn, 32000), 32000 - 11524 - 8000);
  assert.equal(room.systemPromptTokens({ budget: 5 }, 32000), undefined);
});

test("answer room: the model's limits come from the host's provider config", () => {
  const config = {
    models: { providers: { fake: { models: [{ id: "m1", contextWindow: 32000, maxTokens: 1024 }] }, other: { models: [{ id: "m2", contextWindow: 8000 }] } } },
  };
  assert.deepEqual(room.modelLimits(config, "fake", "m1"), { contextWindow: 32000, maxTokens: 1024 });
  assert.deepEqual(room.modelLimits(config, undefined, "m2"), { contextWindow: 8000, maxTokens: undefined });
  assert.deepEqual(room.modelLimits(config, "fake", "nope"), {});
  assert.deepEqual(room.modelLimits(undefined, "fake", "m1"), {});
});

test("the host's count: characters / 4 × 1.25 over text, reasoning and tool calls; CJK four times; images 8,000", () => {
  assert.equal(room.hostTokens([{ role: "user", content: "x".repeat(400) }]), 125);
  assert.equal(
    room.hostTokens([
      {
        role: "user",
        content: [
          { type: "text", text: "x".repeat(400) },
          { type: "image", data: "…" },
        ],
      },
    ]),
    Math.ceil((8400 / 4) * 1.25),
  );
  assert.equal(room.hostTokens([{ role: "user", content: "好".repeat(100) }]), 125);
  const call = { type: "toolCall", id: "c1", name: "read", arguments: { path: "a" } };
  assert.equal(room.hostTokens([{ role: "assistant", content: [call] }]), Math.ceil((JSON.stringify(call).length / 4) * 1.25));
  assert.equal(room.hostTokens([{ role: "assistant", content: null, reasoning_content: "r".repeat(40) }]), Math.ceil((40 / 4) * 1.25));
});

const cmdUser = (text, key) => ({ role: "user", content: text, timestamp: 1, idempotencyKey: `${key}:user` });
const cmdReply = (text, key) => ({
  role: "assistant",
  content: [{ type: "text", text }],
  api: "openai-responses",
  provider: "openclaw",
  model: "gateway-injected",
  idempotencyKey: key,
  stopReason: "stop",
});
const entry = (id, parentId, message) => ({ id, parentId, type: "message", message });

test("operator commands: a typed command and the gateway's reply are marked in the transcript; the conversation is not", () => {
  const entries = [
    entry("u1", null, { role: "user", content: "U1: about bread", idempotencyKey: "r1:user" }),
    entry("a1", "u1", { role: "assistant", content: [{ type: "text", text: "ANSWER-1" }], provider: "fake", model: "m" }),
    entry("c1", "a1", cmdUser("/contextfold", "k1")),
    entry("c2", "c1", cmdReply("contextfold ACTIVE …", "k1")),
    entry("c3", "c2", cmdUser("/compact", "k2")),
    entry("c4", "c3", cmdReply("⚙️ Compacted …", "k2")),
    entry("u2", "c4", { role: "user", content: "/contextfold", idempotencyKey: "r2:user" }), // sent to the model, answered by it
    entry("a2", "u2", { role: "assistant", content: [{ type: "text", text: "I cannot run that" }], provider: "fake", model: "m" }),
  ];
  const r = operator.markCommandEntries(entries);
  assert.deepEqual(
    r.entries.map((e) => e.type),
    ["message", "message", ...Array(4).fill(operator.COMMAND_ENTRY_TYPE), "message", "message"],
  );
  assert.deepEqual(
    r.entries.map((e) => [e.id, e.parentId]),
    entries.map((e) => [e.id, e.parentId]),
    "the branch is unchanged",
  );
  assert.deepEqual(r.texts, ["/contextfold", "/compact"]);
  assert.equal(r.unanswered, 0);
  // a reply whose command came in an earlier read
  assert.equal(operator.markCommandEntries(entries.slice(3)).unanswered, 1);
  // nothing to mark: the same array
  assert.equal(operator.markCommandEntries(entries.slice(0, 2)).entries.length, 2);
  const plain = entries.slice(0, 2);
  assert.equal(operator.markCommandEntries(plain).entries, plain);
  // the host's context-free commands are flagged on both messages
  const flagged = { excludeFromContext: true, __openclaw: { contextFreeCommand: true } };
  const f = operator.markCommandEntries([
    entry("s1", null, { role: "user", content: "/status", ...flagged }),
    entry("s2", "s1", { role: "assistant", content: [{ type: "text", text: "ok" }], ...flagged }),
  ]);
  assert.deepEqual(f.texts, ["/status"]);
  assert.deepEqual(operator.rememberTexts(["/a", "/b"], ["/b", "/c", "/c"]), ["/a", "/b", "/c"]);
});

test("operator commands: the host's history is planned without them, standalone or merged into the next prompt", () => {
  const u1 = { role: "user", content: "U1", timestamp: 1 };
  const a1 = { role: "assistant", content: [{ type: "text", text: "A1" }], timestamp: 2 };
  const texts = ["/contextfold", "/compact"];
  // the command is the last message of the history
  const last = [u1, a1, { role: "user", content: "/contextfold", timestamp: 3 }];
  assert.deepEqual(operator.withoutCommands(last, texts), [u1, a1]);
  // merged by the host into the next prompt's message (its text parts first)
  const merged = {
    role: "user",
    content: [
      { type: "text", text: "/contextfold" },
      { type: "text", text: "/compact" },
      { type: "text", text: "U2: more" },
    ],
    timestamp: 5,
    idempotencyKey: "r2:user",
  };
  const a2 = { role: "assistant", content: [{ type: "text", text: "A2" }], timestamp: 6 };
  const out = operator.withoutCommands([u1, a1, merged, a2], texts);
  assert.deepEqual(out[2], { role: "user", content: "U2: more", timestamp: 5, idempotencyKey: "r2:user" });
  assert.equal(out[0], u1, "untouched messages are the host's objects");
  // a command the model answered is conversation; unknown texts and no commands: the same array
  const answered = [u1, a1, { role: "user", content: "/contextfold", timestamp: 3 }, a2];
  assert.equal(operator.withoutCommands(answered, texts), answered);
  assert.equal(operator.withoutCommands(last, ["/other"]), last);
  assert.equal(operator.withoutCommands(last, []), last);
});

test("one line per model request: a held plan is dropped when the host plans the request again, written when it goes out as it was", () => {
  const lines = [];
  const logger = { info: (l) => lines.push(l) };
  const s = {};
  requestlog.holdLine(s, logger, "A0");
  requestlog.requestLine(s, logger, "A1"); // the loop's re-assemble before the model call
  requestlog.requestLine(s, logger, "A2"); // before the next model call of the loop
  requestlog.flushLine(s, logger);
  assert.deepEqual(lines, ["A1", "A2"]);
  requestlog.holdLine(s, logger, "B0");
  requestlog.holdLine(s, logger, "C0"); // a new turn: B0 went out as it was
  requestlog.flushLine(s, logger);
  requestlog.flushLine(s, logger);
  assert.deepEqual(lines, ["A1", "A2", "B0", "C0"]);
  requestlog.holdLine(s, logger, null);
  requestlog.requestLine(s, logger, null);
  requestlog.flushLine(s, logger);
  assert.equal(lines.length, 4);
});

test("the request line: folding fields only when folding changed something; one over-budget spelling, after the budget", () => {
  const clean = {
    messagesBefore: 10,
    messagesAfter: 8,
    tokensBefore: 900,
    tokensAfter: 700,
    cleanedRC: 0,
    cleanedThink: 2,
    dropTool: 1,
    dropAsstTC: 1,
    droppedCalls: 0,
    droppedEmpty: 0,
    mergedText: 0,
  };
  const base = "[contextfold] session=k 10→8 msgs 900→700 tok (-200) cleanedRC=0 cleanedThink=2 dropTool=1 dropAsstTC=1";
  const stats = { clean, stubbed: 0, summarized: 0, truncated: 0, budget: 128000, overBudget: false };
  assert.equal(core.formatRequestLine("k", stats), base);
  assert.equal(
    core.formatRequestLine("k", { ...stats, stubbed: 2, summarized: 1, truncated: 1, masked: 2, budget: 600 }),
    `${base} folded=3 masked=2 truncated=1 budget=600`,
  );
  assert.equal(
    core.formatRequestLine("k", { ...stats, stubbed: 2, recalled: 1, budget: 600, replanned: true }),
    `${base} folded=2 masked=0 truncated=0 recalled=1 budget=600 replanned`,
  );
  assert.equal(
    core.formatRequestLine("k", { ...stats, budget: 300, overBudget: true }),
    `${base} budget=300 over-budget: the newest turn alone exceeds the budget`,
  );
  assert.equal(
    core.formatRequestLine("k", { ...stats, stubbed: 1, budget: 300, overBudget: true }),
    `${base} folded=1 masked=0 truncated=0 budget=300 over-budget: the newest turn alone exceeds the budget`,
  );
  assert.equal(core.worthLogging({ ...stats, clean: { ...clean, cleanedThink: 0, dropTool: 0, dropAsstTC: 0 }, masked: 1 }), true);
  assert.equal(core.worthLogging(stats), true);
  const none = { ...clean, cleanedThink: 0, dropTool: 0, dropAsstTC: 0 };
  assert.equal(core.worthLogging({ ...stats, clean: none }), false);
  assert.equal(core.worthLogging({ ...stats, clean: none, overBudget: true }), true);
});

test("whether a request's model can call the recovery tool: the turn's first tool list says, the loop's tools array keeps that answer", async () => {
  const { recoveryToolOffered } = await import(path.join(PKG, "js", "openclaw", "engine.js"));
  const reachable = new Set(["tool_search", "tool_call", "context_engine_recover", "context_stats"]);
  const profileWithout = new Set(["tool_search", "tool_describe", "tool_call"]);
  const loopArray = new Set(["read", "exec", "tool_search", "tool_call"]);
  assert.equal(recoveryToolOffered(reachable, undefined), true);
  assert.equal(recoveryToolOffered(profileWithout, undefined), false);
  assert.equal(recoveryToolOffered(loopArray, true), true);
  assert.equal(recoveryToolOffered(loopArray, false), false);
  assert.equal(recoveryToolOffered(new Set(["read"]), true), false, "no tool_call in the loop: not reachable");
  assert.equal(recoveryToolOffered(["context_engine_recover"], undefined), true);
  assert.equal(recoveryToolOffered(undefined, undefined), undefined);
});
