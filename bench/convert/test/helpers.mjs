// Shared test helpers: where the evaluation data lives, and a strict reader of the sessions
// the converters write.
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { dirname, resolve } from "node:path";
import assert from "node:assert/strict";

const here = dirname(fileURLToPath(import.meta.url));
/** The evaluation data folder (`../shared/data` next to the repository, or $CONTEXTFOLD_DATA). */
export const DATA = process.env.CONTEXTFOLD_DATA ?? resolve(here, "../../../../shared/data");
export const LOCOMO = resolve(DATA, "locomo/locomo-dev.json");
export const TAUBENCH = resolve(DATA, "taubench/gpt-4o-airline-dev.json");
export const CLAUDE_CODE = resolve(DATA, "claude-code");

/**
 * `path` when it exists; else the test fails saying where the data was looked for (CI always
 * has ../shared/data: a real-data test must never pass without its data).
 */
export function dataPath(path) {
  if (!existsSync(path))
    throw new Error(`${path} is missing: the real-data tests read the evaluation data in ${DATA} (set CONTEXTFOLD_DATA to use another folder)`);
  return path;
}

/**
 * Parses an OpenClaw session written by a converter and checks its frame: a v4 header,
 * unique ids, each entry's parentId the previous entry (one branch), ISO timestamps.
 * @returns {{ header: any, entries: any[], messages: any[], entryIds: string[] }}
 */
export function readSession(jsonl) {
  assert.ok(jsonl.endsWith("\n"), "session ends with a newline");
  const lines = jsonl
    .slice(0, -1)
    .split("\n")
    .map((l) => JSON.parse(l));
  const [header, ...entries] = lines;
  assert.equal(header.type, "session");
  assert.equal(header.version, 4);
  assert.equal(typeof header.id, "string");
  assert.ok(!Number.isNaN(Date.parse(header.timestamp)));
  let parent = null;
  const ids = new Set();
  for (const e of entries) {
    assert.ok(!ids.has(e.id), `duplicate id ${e.id}`);
    ids.add(e.id);
    assert.equal(e.parentId, parent, `entry ${e.id} parent`);
    assert.match(e.timestamp, /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
    parent = e.id;
  }
  const msgEntries = entries.filter((e) => e.type === "message");
  return { header, entries, messages: msgEntries.map((e) => e.message), entryIds: msgEntries.map((e) => e.id) };
}

/** The text of a message's text parts joined by "\n". */
export const textOf = (m) =>
  Array.isArray(m.content)
    ? m.content
        .filter((p) => p.type === "text")
        .map((p) => p.text)
        .join("\n")
    : String(m.content);

/** Checks the shapes PROVIDERS.md asks for that a converter controls (rules 10, 11, 14). */
export function assertShapes(messages, { alternating = false } = {}) {
  assert.equal(messages[0].role, "user", "first message is a user message");
  messages.forEach((m, i) => {
    assert.ok(Array.isArray(m.content), `message ${i} content is an array`);
    assert.equal(typeof m.timestamp, "number");
    if (m.role === "assistant") {
      assert.ok(
        m.content.some((p) => (p.type === "text" && p.text.trim()) || p.type === "toolCall"),
        `assistant message ${i} is not empty`,
      );
      assert.ok(["stop", "toolUse", "length", "error", "aborted"].includes(m.stopReason));
      assert.ok(m.usage && typeof m.usage.totalTokens === "number");
    }
    if (alternating && i > 0 && m.role !== "toolResult" && messages[i - 1].role !== "toolResult") {
      assert.notEqual(m.role, messages[i - 1].role, `messages ${i - 1} and ${i} have the same role`);
    }
  });
}
