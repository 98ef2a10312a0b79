// The playground's browser-side transcript entries equal the CLI's (js/openclaw/transcript.js),
// byte ranges included, so turn ids, topics and recovery agree. No browser needed.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { parseJsonlBuffer } from "../../js/openclaw/transcript.js";
import { parseJsonlBytes, lineAt, encodeUtf8, decodeUtf8 } from "../../js/playground/entries.js";
import { multitopicJsonl } from "../../samples/generate-multitopic.mjs";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));

function same(buf, name) {
  const node = parseJsonlBuffer(buf, 0, name);
  const web = parseJsonlBytes(new Uint8Array(buf.buffer, buf.byteOffset, buf.length), 0, name);
  assert.deepEqual(web.entries, node.entries);
  assert.deepEqual(web.header, node.header);
  assert.equal(web.end, node.end);
  assert.equal(web.warnings.length, node.warnings.length);
  for (const e of web.entries) assert.equal(lineAt(buf, e.range), buf.subarray(e.range[0], e.range[1]).toString("utf8").replace(/\n$/, ""));
  return web;
}

test("the built-in samples: identical entries and byte ranges", () => {
  const a = same(readFileSync(`${ROOT}samples/session.jsonl`), "session.jsonl");
  assert.ok(a.entries.length > 20);
  const b = same(Buffer.from(multitopicJsonl(), "utf8"), "multitopic.jsonl");
  assert.ok(b.entries.length > 30);
});

test("multi-byte text, CRLF, blank, bad and unterminated lines", () => {
  const lines = [
    JSON.stringify({ type: "session", version: 4, id: "s" }),
    JSON.stringify({ type: "message", id: "a", parentId: null, message: { role: "user", content: "grüße — 日本語 🚀" } }),
    "",
    JSON.stringify({ type: "message", id: "b", parentId: "a", message: { role: "assistant", content: [{ type: "text", text: "ok ✓" }] } }) + "\r",
    "{not json",
    JSON.stringify({ type: "compaction", id: "c", parentId: "b", firstKeptEntryId: "b", summary: "…" }),
    JSON.stringify({ type: "custom", customType: "x" }),
    JSON.stringify({ type: "message", id: "d", parentId: "c", message: { role: "user", content: "é" } }),
  ];
  const text = lines.join("\n") + "\n" + '{"type":"message","id":"e"';
  const web = same(Buffer.from(text, "utf8"), "t.jsonl");
  assert.deepEqual(
    web.entries.map((e) => e.id),
    ["a", "b", "c", "d"],
  );
  assert.equal(web.entries[2].firstKeptEntryId, "b");
  // Ranges are UTF-8 byte offsets, not string indices.
  const bytes = encodeUtf8(text);
  assert.equal(decodeUtf8(bytes.subarray(...web.entries[0].range)), lines[1] + "\n");
});

test("a byte order mark and invalid UTF-8 decode as Node decodes them", () => {
  const bom = Buffer.concat([
    Buffer.from([0xef, 0xbb, 0xbf]),
    Buffer.from('{"id":"x","parentId":null,"type":"message","message":{"role":"user","content":"hi"}}\n'),
  ]);
  same(bom, "bom.jsonl");
  const bad = Buffer.concat([
    Buffer.from('{"id":"y","parentId":null,"type":"message","message":{"role":"user","content":"'),
    Buffer.from([0xff, 0xfe, 0xc3]),
    Buffer.from('"}}\n'),
  ]);
  const web = same(bad, "bad.jsonl");
  assert.equal(decodeUtf8(bad), bad.toString("utf8"));
  assert.equal(web.entries.length, 1);
});
