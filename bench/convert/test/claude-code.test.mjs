import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { convertClaudeCode, activeChain, parseTranscript } from "../claude-code.mjs";
import { checkPairing } from "../openclaw.mjs";
import { CLAUDE_CODE, dataPath, readSession, assertShapes } from "./helpers.mjs";

let n = 0;
const base = { sessionId: "s-1", cwd: "/w", isSidechain: false };
const at = (i) => `2026-01-02T10:00:${String(i).padStart(2, "0")}.000Z`;
function transcript() {
  n = 0;
  const lines = [];
  let parent = null;
  const add = (o) => {
    const uuid = `u${++n}`;
    lines.push({ ...base, parentUuid: parent, ...o, uuid, timestamp: at(n) });
    parent = uuid;
    return uuid;
  };
  const asst = (id, content, stop = null) =>
    add({
      type: "assistant",
      message: {
        model: "claude-x",
        id,
        type: "message",
        role: "assistant",
        content,
        stop_reason: stop,
        usage: { input_tokens: 3, output_tokens: 5, cache_read_input_tokens: 7, cache_creation_input_tokens: 11 },
      },
    });
  const user = (content, extra = {}) => add({ type: "user", message: { role: "user", content }, ...extra });
  lines.push({ type: "file-history-snapshot", messageId: "x", snapshot: {} });
  user("run two things");
  asst("msg_1", [{ type: "thinking", thinking: "plan", signature: "SIG1" }]);
  asst("msg_1", [{ type: "tool_use", id: "toolu_X", name: "Bash", input: { command: "ls" } }]);
  asst("msg_1", [{ type: "tool_use", id: "toolu_Y", name: "Read", input: { file_path: "/a.png" } }], "tool_use");
  user([{ type: "tool_result", tool_use_id: "toolu_X", content: "a.png" }]);
  user([
    {
      type: "tool_result",
      tool_use_id: "toolu_Y",
      is_error: true,
      content: [
        { type: "text", text: "partial" },
        { type: "image", source: { type: "base64", media_type: "image/png", data: "AAAA" } },
      ],
    },
  ]);
  // a sidechain entry written into the main file: not on the main chain
  lines.push({ ...base, isSidechain: true, parentUuid: null, type: "user", message: { role: "user", content: "Warmup" }, uuid: "side-1", timestamp: at(40) });
  asst("msg_2", [{ type: "redacted_thinking", data: "OPAQUE" }]);
  asst("msg_2", [{ type: "text", text: "done" }], "end_turn");
  add({ type: "system", subtype: "stop_hook_summary" });
  user([{ type: "text", text: "again" }]);
  asst("msg_3", [{ type: "tool_use", id: "toolu_X", name: "Bash", input: { command: "pwd" } }], "tool_use");
  user([{ type: "tool_result", tool_use_id: "toolu_X", content: "/w" }]);
  const beforeBoundary = asst("msg_4", [{ type: "text", text: "in /w" }], "end_turn");
  parent = null;
  add({
    type: "system",
    subtype: "compact_boundary",
    logicalParentUuid: beforeBoundary,
    content: "Conversation compacted",
    compactMetadata: { trigger: "manual", preTokens: 1234 },
  });
  user("Summary: ran ls and pwd.", { isCompactSummary: true });
  user("continue");
  asst("msg_5", [{ type: "text", text: "ok" }], "end_turn");
  return lines.map((l) => JSON.stringify(l)).join("\n") + "\n";
}

test("active chain: newest main-line entry back through the compaction boundary", () => {
  const { entries } = parseTranscript(transcript());
  const across = activeChain(entries);
  assert.equal(across.chain[0].uuid, "u1");
  assert.equal(across.boundaries.length, 1);
  assert.ok(!across.chain.some((e) => e.isSidechain));
  const stop = activeChain(entries, { acrossCompaction: false });
  assert.equal(stop.chain[0].subtype, "compact_boundary");
});

test("mapping: merged assistant messages, tool results, thinking, compaction entry", () => {
  const r = convertClaudeCode(transcript(), { name: "t" });
  const s = readSession(r.jsonl);
  assertShapes(s.messages);
  assert.deepEqual(
    s.messages.map((m) => m.role),
    ["user", "assistant", "toolResult", "toolResult", "assistant", "user", "assistant", "toolResult", "assistant", "user", "assistant"],
  );
  assert.deepEqual(s.messages[1].content, [
    { type: "thinking", thinking: "plan", thinkingSignature: "SIG1" },
    { type: "toolCall", id: "toolu_X", name: "Bash", arguments: { command: "ls" } },
    { type: "toolCall", id: "toolu_Y", name: "Read", arguments: { file_path: "/a.png" } },
  ]);
  assert.equal(s.messages[1].stopReason, "toolUse");
  assert.equal(s.messages[1].api, "anthropic-messages");
  assert.deepEqual(
    [s.messages[1].usage.input, s.messages[1].usage.output, s.messages[1].usage.cacheRead, s.messages[1].usage.cacheWrite, s.messages[1].usage.totalTokens],
    [3, 5, 7, 11, 26],
  );
  assert.deepEqual(s.messages[3].content, [
    { type: "text", text: "partial" },
    { type: "image", data: "AAAA", mimeType: "image/png" },
  ]);
  assert.equal(s.messages[3].isError, true);
  assert.equal(s.messages[3].toolName, "Read");
  assert.deepEqual(s.messages[4].content, [
    { type: "thinking", thinking: "", thinkingSignature: "OPAQUE", redacted: true },
    { type: "text", text: "done" },
  ]);
  assert.equal(s.messages[4].stopReason, "stop");
  assert.equal(s.messages[7].toolCallId, "toolu_X");
  assert.deepEqual(checkPairing(s.messages).violations, []);
  const comp = s.entries.find((e) => e.type === "compaction");
  assert.equal(comp.summary, "Summary: ran ls and pwd.");
  assert.equal(comp.tokensBefore, 1234);
  assert.equal(comp.firstKeptEntryId, s.entryIds[9]);
  assert.equal(r.meta.counts.skipped["system:stop_hook_summary"], 1);
  // the Anthropic list keeps every user/assistant entry of the chain as is
  assert.equal(r.anthropic.length, 15);
  assert.equal(r.anthropic[2].content[0].id, "toolu_X");
});

test("compaction as a message keeps the summary in the message list", () => {
  const r = convertClaudeCode(transcript(), { compaction: "message" });
  const s = readSession(r.jsonl);
  assert.ok(!s.entries.some((e) => e.type === "compaction"));
  assert.equal(s.messages[9].content[0].text, "Summary: ran ls and pwd.");
});

test("conversion is deterministic", () => {
  assert.equal(convertClaudeCode(transcript()).jsonl, convertClaudeCode(transcript()).jsonl);
});

// ---- real data ----

const files = () =>
  readdirSync(dataPath(CLAUDE_CODE))
    .filter((f) => f.endsWith(".jsonl"))
    .sort();

test("real Claude Code transcripts: every tool_use/tool_result pair and thinking block kept", () => {
  assert.ok(files().length > 0);
  for (const f of files()) {
    const text = readFileSync(join(CLAUDE_CODE, f), "utf8");
    const r = convertClaudeCode(text, { name: f });
    const s = readSession(r.jsonl);
    assertShapes(s.messages);
    const { chain } = activeChain(parseTranscript(text).entries);
    const blocks = chain.filter((e) => (e.type === "user" || e.type === "assistant") && Array.isArray(e.message?.content)).flatMap((e) => e.message.content);
    const uses = blocks.filter((b) => b.type === "tool_use");
    const results = blocks.filter((b) => b.type === "tool_result");
    const calls = s.messages.flatMap((m) => (m.role === "assistant" ? m.content.filter((p) => p.type === "toolCall") : []));
    assert.deepEqual(
      calls.map((c) => c.id),
      uses.map((u) => u.id),
      f,
    );
    assert.deepEqual(
      calls.map((c) => c.arguments),
      uses.map((u) => u.input),
    );
    assert.deepEqual(
      s.messages.filter((m) => m.role === "toolResult").map((m) => m.toolCallId),
      results.map((b) => b.tool_use_id),
    );
    const p = checkPairing(s.messages);
    assert.deepEqual(p.violations, [], f);
    assert.equal(p.pairs.length, uses.length);
    const sigs = s.messages.flatMap((m) => (m.role === "assistant" ? m.content.filter((p) => p.type === "thinking").map((p) => p.thinkingSignature) : []));
    assert.deepEqual(
      sigs,
      blocks.filter((b) => b.type === "thinking").map((b) => b.signature),
      "thinking signatures byte-identical",
    );
    assert.equal(r.anthropic.length, chain.filter((e) => e.type === "user" || e.type === "assistant").length);
    // split assistant entries of one API response become one message
    const ids = new Set(chain.filter((e) => e.type === "assistant").map((e) => e.message.id));
    assert.equal(s.messages.filter((m) => m.role === "assistant").length, ids.size);
  }
});

test("real Claude Code transcript: the manual compaction becomes a compaction entry", () => {
  const r = convertClaudeCode(readFileSync(dataPath(join(CLAUDE_CODE, "sample_main_transcript.jsonl")), "utf8"));
  const s = readSession(r.jsonl);
  const comp = s.entries.filter((e) => e.type === "compaction");
  assert.equal(comp.length, 1);
  assert.ok(comp[0].summary.startsWith("This session is being continued"));
  assert.ok(s.entryIds.includes(comp[0].firstKeptEntryId));
  assert.equal(r.meta.counts.toolUse, r.meta.counts.toolResult);
  assert.ok(r.meta.counts.toolUse > 0);
  assert.equal(convertClaudeCode(readFileSync(join(CLAUDE_CODE, "sample_main_transcript.jsonl"), "utf8")).jsonl, r.jsonl);
});
