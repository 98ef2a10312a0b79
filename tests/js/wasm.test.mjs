// Round trips through the real wasm boundary under Node.
import { test } from "node:test";
import assert from "node:assert/strict";
import path from "node:path";
import { PKG, ROOT, conversation, readJson } from "./helpers.mjs";

const { loadCore, applySteps } = await import(path.join(PKG, "js", "core", "node.js"));
const { JS_KEYS, JS_DEFAULTS } = await import(path.join(PKG, "js", "core", "config.js"));
const { sameJson } = await import(path.join(PKG, "js", "core", "core.js"));

test("kept messages are the caller's own objects; cleaned ones lose thinking and tool chatter", async () => {
  const core = await loadCore();
  const input = conversation();
  const r = core.clean(input, {});
  const out = applySteps(input, r.steps);
  assert.equal(r.fallback, undefined);
  assert.deepEqual(
    out.map((m) => m.role),
    ["user", "assistant", "user", "assistant"],
  );
  assert.equal(out[0], input[0], "unchanged user message is the same object");
  assert.equal(out[3], input[5], "the frontier message is the same object");
  assert.deepEqual(out[1].content, [{ type: "text", text: "a.txt is all As" }]);
  assert.deepEqual(out[1].__openclaw, { runId: "r1" }, "unknown fields survive an edit");
  assert.equal(r.stats.cleanedThink, 2);
  assert.equal(r.stats.dropTool, 1);
  assert.equal(r.stats.dropAsstTC, 1);
  assert.ok(r.stats.tokensAfter < r.stats.tokensBefore / 3);
});

test("bad input comes back as a JS Error with the core's message", async () => {
  const core = await loadCore();
  assert.throws(
    () => core.clean(conversation(), { keepRecentTurn: 1 }),
    /^Error: invalid request: config: unknown field `keepRecentTurn`, expected one of `mode`, /,
  );
  assert.throws(
    () => core.clean(conversation(), { keepRecentTurns: "two" }),
    /^Error: invalid request: config\.keepRecentTurns: invalid type: string "two", expected usize$/,
  );
  assert.throws(() => core.clean(conversation(), { maxTokens: 100 }), /^Error: invalid request: config\.maxTokens: must be at least 256, got 100$/);
  assert.throws(() => core.newSession({ summarizeThreshold: 2 }), /^Error: invalid config: summarizeThreshold: must be in \(0, 1\], got 2$/);
  assert.throws(
    () => core.assembleOnce({ messages: [{ role: "user", content: "hi" }], entries: [{ id: 7 }] }),
    /^Error: invalid request: entries\[0\]\.id: invalid type: integer `7`, expected a string$/,
  );
  const s = core.newSession({});
  assert.throws(() => s.rebuild([{ id: "a", range: "0-9" }]), /^Error: invalid entries: \[0\]\.range: invalid type: string "0-9", expected a tuple of size 2$/);
  s.free();
  assert.equal(core.poisoned, false, "an Err is not a crash");
});

test("the manifest schema and the core agree on every option and default", async () => {
  const core = await loadCore();
  const schema = readJson(path.join(ROOT, "openclaw.plugin.json")).configSchema;
  assert.equal(schema.additionalProperties, false);
  const defaults = core.defaultConfig();
  for (const [k, v] of Object.entries(defaults)) {
    assert.ok(schema.properties[k], `core option ${k} missing from the manifest`);
    assert.deepEqual(schema.properties[k].default, v, `default of ${k}`);
  }
  for (const [k, v] of Object.entries(JS_DEFAULTS)) assert.deepEqual(schema.properties[k]?.default, v, `default of ${k}`);
  for (const k of Object.keys(schema.properties)) {
    assert.ok(k in defaults || JS_KEYS.includes(k), `manifest key ${k} is honored by nobody`);
    assert.ok(!(k in defaults && JS_KEYS.includes(k)), `manifest key ${k} claimed by both layers`);
  }
});

test("token estimate counts Chinese far above chars/4", async () => {
  const core = await loadCore();
  const zh = "上下文引擎在每次请求之前决定模型能看到什么内容".repeat(10);
  const n = core.estimateTokens([{ role: "user", content: zh }]);
  assert.ok(n > (zh.length / 4) * 2.5, `${n} tokens for ${zh.length} CJK characters`);
});

test("a live session sends only new messages, and still sees every change the host makes to old ones", async () => {
  const core = await loadCore();
  const { sessionLines } = await import(path.join(ROOT, "bench", "soak", "generate.mjs"));
  const messages = [...sessionLines({ turns: 12, seed: 3 })]
    .map((l) => JSON.parse(l))
    .filter((v) => v.type === "message")
    .map((v) => v.message);
  // What the model gets, and what became of each turn (a live session's explanations of
  // earlier turns are those of the plan that laid them out; their reasons may differ).
  const plan = (s, msgs, budget = 100000) => {
    const r = s.assemble({ messages: msgs, prompt: "next question", budget });
    return { messages: applySteps(msgs, r.steps), turns: r.turns.map((t) => ({ id: t.id, decision: t.decision })) };
  };
  // What a fresh session (the whole history crossing) makes of `msgs`.
  const fresh = (msgs, budget) => {
    const s = core.newSession({});
    try {
      return plan(s, msgs, budget);
    } finally {
      s.free();
    }
  };
  const live = core.newSession({});
  const transfer = () => {
    const { kept, sent } = live.lastTransfer();
    return { kept, sent };
  };
  const half = messages.slice(0, 20);
  assert.deepEqual(plan(live, half), fresh(half));
  // The history grows: the same objects plus new ones.
  assert.deepEqual(plan(live, messages), fresh(messages));
  assert.deepEqual(transfer(), { kept: 20, sent: messages.length - 20 });
  const againPlan = plan(live, messages);
  const again = againPlan.messages;
  assert.deepEqual(againPlan, fresh(messages));
  assert.deepEqual(transfer(), { kept: messages.length, sent: 0 });
  // Turn explanations equal to the previous response's cross once too.
  assert.equal(live.lastTransfer().repeated, fresh(messages).turns.length);
  // Replacements (cleaned answers) cross once; the host gets copies it may change freely.
  assert.ok(live.lastTransfer().reused > 0, `replacements referred to: ${live.lastTransfer().reused}`);
  const own = again.filter((m) => !messages.includes(m));
  assert.ok(own.length > 0);
  for (const m of own) for (const p of m.content) if (p.type === "text") p.cache_control = { type: "ephemeral" };
  assert.deepEqual(plan(live, messages), fresh(messages), "what the host did to an earlier output does not reach the next one");
  // The host changes an old answer in place: the cleaned copy must show the change.
  const i = messages.findIndex((m, k) => k > 3 && m.role === "assistant" && m.content.some((p) => p.type === "text"));
  messages[i].content.find((p) => p.type === "text").text = "CHANGED-IN-PLACE";
  const out = plan(live, messages);
  assert.ok(JSON.stringify(out.messages).includes("CHANGED-IN-PLACE"), "an in-place edit of an old message reaches the output");
  assert.deepEqual(out, fresh(messages));
  assert.deepEqual(transfer(), { kept: i, sent: messages.length - i });
  // The history is rewritten shorter (e.g. the host compacted it), then grows again.
  const rewritten = [{ role: "user", content: "summary of earlier work" }, ...messages.slice(-9)];
  assert.deepEqual(plan(live, rewritten), fresh(rewritten));
  assert.deepEqual(plan(live, messages), fresh(messages));
  // Fresh objects with the same content are recognised as the same history.
  assert.deepEqual(plan(live, structuredClone(messages)), fresh(messages));
  assert.deepEqual(transfer(), { kept: messages.length, sent: 0 });
  // A tighter budget folds old turns (for good: folds are sticky in a live session): their
  // explanations change and cross again, the others are repeated.
  const tight = plan(live, messages, 400);
  assert.deepEqual(tight, fresh(messages, 400));
  const folded = tight.turns.filter((t) => t.decision !== "cleaned").length;
  assert.ok(
    tight.turns.some((t) => t.decision === "stubbed"),
    JSON.stringify(tight.turns.map((t) => t.decision)),
  );
  assert.equal(live.lastTransfer().repeated, tight.turns.length - folded);
  live.free();
});

test("the live session's comparison of messages tells what JSON.stringify would", () => {
  const m = {
    role: "assistant",
    content: [
      { type: "text", text: "a" },
      { type: "toolCall", id: "x", arguments: { n: 1, s: [1, "2", null, true] } },
    ],
  };
  const cases = [
    structuredClone(m),
    { content: m.content, role: "assistant" }, // key order
    { role: "assistant", content: m.content, extra: 1 },
    { role: "assistant" },
    { role: "assistant", content: [{ type: "text", text: "a" }] },
    { role: "assistant", content: { 0: m.content[0], 1: m.content[1] } }, // object, not array
    {
      role: "assistant",
      content: [
        { type: "text", text: "a" },
        { type: "toolCall", id: "x", arguments: { n: 1, s: [1, 2, null, true] } },
      ],
    },
    {
      role: "assistant",
      content: [
        { type: "text", text: "a" },
        { type: "toolCall", id: "x", arguments: { n: 1, s: [1, "2", null, false] } },
      ],
    },
    {
      role: "assistant",
      content: [
        { type: "text", text: "a" },
        { type: "toolCall", id: "x", arguments: { n: 1, s: [1, "2", null] } },
      ],
    },
    {
      role: "assistant",
      content: [
        { type: "text", text: "a" },
        { type: "toolCall", id: "x", arguments: { n: 1, s: [1, "2", {}, true] } },
      ],
    },
  ];
  for (const c of cases) {
    assert.equal(sameJson(m, c), JSON.stringify(m) === JSON.stringify(c), JSON.stringify(c));
    assert.equal(sameJson(c, m), JSON.stringify(m) === JSON.stringify(c), JSON.stringify(c));
  }
  assert.equal(sameJson(m, cases[0]), true);
});
