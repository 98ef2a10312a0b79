// Writes the seed inputs of the fuzz targets (fuzz/seeds/<target>/) from the built-in sample
// session and a few hand-made shapes. Deterministic; run from the repository root:
//   node fuzz/seeds/make.mjs
import { readFileSync, writeFileSync } from "node:fs";

const sample = readFileSync("samples/session.jsonl");
const messages = sample
  .toString("utf8")
  .split("\n")
  .filter(Boolean)
  .map((l) => JSON.parse(l))
  .filter((e) => e.type === "message")
  .map((e) => e.message);
const seed = (cfg, complete, doc) => Buffer.concat([Buffer.from([cfg, complete]), Buffer.from(JSON.stringify(doc))]);
const openai = {
  messages: [
    { role: "system", content: "be brief" },
    { role: "user", content: "weather?" },
    {
      role: "assistant",
      content: null,
      reasoning_content: "need the tool",
      tool_calls: [
        { id: "c1", type: "function", function: { name: "weather", arguments: '{"city":"Oslo"}' } },
        { id: "c2", type: "function", function: { name: "time", arguments: "{}" } },
      ],
    },
    { role: "tool", tool_call_id: "c2", content: "noon" },
    { role: "tool", tool_call_id: "c1", content: "rain" },
    { role: "assistant", content: "It rains at noon.", reasoning_content: "tool said rain" },
    { role: "user", content: "thanks" },
  ],
};
const anthropic = {
  system: "be brief",
  messages: [
    { role: "user", content: "list files" },
    {
      role: "assistant",
      content: [
        { type: "thinking", thinking: "use ls", signature: "s1" },
        { type: "tool_use", id: "t1", name: "ls", input: {} },
      ],
    },
    {
      role: "user",
      content: [
        { type: "tool_result", tool_use_id: "t1", content: "a b c" },
        { type: "text", text: "and?" },
      ],
    },
    {
      role: "assistant",
      content: [
        { type: "redacted_thinking", data: "x" },
        { type: "text", text: "a, b and c" },
      ],
    },
    { role: "user", content: "ok" },
    { role: "assistant", content: [{ type: "tool_use", id: "t1", name: "ls", input: {} }] },
  ],
};
writeFileSync("fuzz/seeds/clean_json/sample", seed(0x0f, 0, messages));
writeFileSync("fuzz/seeds/clean_json/sample-complete", seed(0x1f, 1, messages.slice(0, -1)));
writeFileSync("fuzz/seeds/clean_json/openai", seed(0x0f, 0, openai));
writeFileSync("fuzz/seeds/clean_json/anthropic", seed(0x0b, 0, anthropic));

const L = (o) => JSON.stringify(o);
const m = (id, parentId, message) => L({ type: "message", id, parentId, message });
const bad = [
  L({ type: "session", version: 4, id: "s" }),
  m("a", "d", { role: "user", content: "hi" }),
  m("c", "b", { role: "user", content: "again" }),
  m("b", "a", { role: "assistant", content: [{ type: "text", text: "yo" }] }),
  m("b", "a", { role: "assistant", content: [{ type: "toolCall", id: "x", name: "read" }] }),
  L({ type: "compaction", id: "k", parentId: "c", firstKeptEntryId: "b", summary: "s" }),
  m("d", "k", { role: "toolResult", toolCallId: "x", content: [] }),
  "{not json",
  L({ type: 7, id: "e", parentId: 5 }),
].join("\n");
writeFileSync("fuzz/seeds/transcript/sample", Buffer.concat([Buffer.from([17]), sample]));
writeFileSync("fuzz/seeds/transcript/bad", Buffer.concat([Buffer.from([3]), Buffer.from(bad + "\n")]));
