// Round trips through the real wasm boundary under Node.
import { test } from "node:test";
import assert from "node:assert/strict";
import path from "node:path";
import { PKG, ROOT, conversation, readJson } from "./helpers.mjs";

const { loadCore, applySteps } = await import(path.join(PKG, "js", "core", "node.js"));
const { JS_KEYS, JS_DEFAULTS } = await import(path.join(PKG, "js", "core", "config.js"));

test("kept messages are the caller's own objects; cleaned ones lose thinking and tool chatter", async () => {
  const core = await loadCore();
  const input = conversation();
  const r = core.clean(input, {});
  const out = applySteps(input, r.steps);
  assert.equal(r.fallback, undefined);
  assert.deepEqual(out.map((m) => m.role), ["user", "assistant", "user", "assistant"]);
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
  assert.throws(() => core.clean(conversation(), { keepRecentTurn: 1 }), /invalid config: unknown field `keepRecentTurn`/);
  assert.throws(() => core.clean(conversation(), { keepRecentTurns: "two" }), /invalid config/);
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
