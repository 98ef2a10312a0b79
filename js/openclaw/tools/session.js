// What the tools read from the calling session: its identity from the tool context, its index
// (refreshed from the transcript first), its turns by id, the messages the next request would
// carry, a planner preview that leaves the sticky decisions as they were, the original
// messages and raw lines of turns, token totals, the protected tail and the pins. Turn ids are
// looked up in the session's own index, never used to build a path.
import { readFileSync } from "node:fs";
import { ToolError, oneLine } from "./errors.js";
import { turnMessages } from "../background.js";

const manifest = JSON.parse(readFileSync(new URL("../../../openclaw.plugin.json", import.meta.url), "utf8"));
/** The plugin's config schema (openclaw.plugin.json): keys, types and defaults. */
export const CONFIG_SCHEMA = manifest.configSchema;
/** How long one tool call may spend on LLM calls (summaries, labels). */
export const TOOL_DEADLINE_MS = 60_000;

export function identityOf(toolCtx) {
  const sessionKey = toolCtx?.sessionKey;
  const sessionId = toolCtx?.sessionId;
  if (!sessionKey && !sessionId) throw new ToolError("no session in this tool call's context: contextfold tools act on the calling session only");
  const target = { ...(toolCtx.agentId ? { agentId: toolCtx.agentId } : {}), ...(sessionKey ? { sessionKey } : {}), ...(sessionId ? { sessionId } : {}) };
  return { ...(sessionKey ? { sessionKey } : {}), ...(sessionId ? { sessionId } : {}), sessionTarget: target };
}

export async function syncNote(s) {
  try {
    await s.sync();
    return null;
  } catch (err) {
    return `index not refreshed (${oneLine(err)})`;
  }
}

export async function indexOf(s) {
  return (await s.session()).index();
}

/** The hash id the planner gives a turn it does not know by entry id. */
export const hashId = (t) => `h${t.key}`;

export function findTurn(index, turnId) {
  const t = index.turns.find((x) => x.id === turnId || hashId(x) === turnId);
  if (!t) {
    throw new ToolError(
      `no turn ${JSON.stringify(turnId)} in this session's index (${index.turns.length} turns); ` +
        "use session_index_query or context_engine_topics to list turn ids",
    );
  }
  return t;
}

/** Messages of the session's active branch as the next request would carry them. */
export async function currentMessages(s) {
  if (s.transcript) {
    try {
      const msgs = await s.transcriptMessages();
      if (msgs.length) return { messages: msgs, source: "transcript" };
    } catch {
      // fall back to the last request's history
    }
  }
  return { messages: s.lastMessages ?? [], source: s.lastMessages ? "last request" : "none" };
}

/** The planner over `messages` without changing the session's sticky decisions. */
export async function preview(s, messages, budget) {
  const w = await s.session();
  const before = w.folded();
  // a history that ends with a finished answer is planned as the host sends it: complete,
  // with the next prompt to come (an empty prompt says so); else its last turn is live
  const last = messages[messages.length - 1];
  const calls = Array.isArray(last?.content) && last.content.some((p) => p?.type === "toolCall" || p?.type === "tool_use");
  const finished = last?.role === "assistant" && !calls && !last.tool_calls?.length;
  try {
    return w.assemble({ messages, prompt: finished ? "" : null, budget: budget ?? null });
  } finally {
    w.setFolded(before);
  }
}

/** Original messages of the given index turns, read from the transcript (exact). */
export async function originalMessages(s, turns) {
  const out = new Map();
  const tr = s.transcript;
  if (tr?.kind === "jsonl") {
    for (const t of turns) {
      const refs = t.entries.filter((r) => Array.isArray(r.range));
      const lines = await tr.readRanges(refs.map((r) => r.range));
      out.set(t.id, lines.map((l) => JSON.parse(l).message).filter(Boolean));
    }
    return out;
  }
  if (tr?.kind === "sqlite") {
    for (const t of turns) {
      const lines = await tr.readEntries(t.entries.map((r) => r.id));
      out.set(
        t.id,
        lines
          .filter(Boolean)
          .map((l) => JSON.parse(l).message)
          .filter(Boolean),
      );
    }
    return out;
  }
  const fromLast = turnMessages(s);
  for (const t of turns) {
    const m = fromLast.get(t.id) ?? fromLast.get(hashId(t));
    if (m) out.set(t.id, m);
  }
  return out;
}

/** The raw stored lines of a turn: exact JSONL bytes, or the stored event JSON. */
export async function rawLines(s, turn) {
  const tr = s.transcript;
  if (tr?.kind === "jsonl") {
    const refs = turn.entries.filter((r) => Array.isArray(r.range));
    return { source: "jsonl", ids: refs.map((r) => r.id), lines: await tr.readRanges(refs.map((r) => r.range)) };
  }
  if (tr?.kind === "sqlite") {
    const ids = turn.entries.map((r) => r.id);
    return { source: "sqlite", ids, lines: (await tr.readEntries(ids)).map((l, i) => l ?? JSON.stringify({ id: ids[i], missing: true })) };
  }
  throw new ToolError("this session's transcript is not readable here (no transcript found for its session id)");
}

export function breakdownTotals(index) {
  const sum = { total: 0, user: 0, assistant: 0, toolResult: 0, other: 0, text: 0, thinking: 0, toolCall: 0, image: 0 };
  for (const t of index.turns) for (const k of Object.keys(sum)) sum[k] += t.tokens?.[k] ?? 0;
  return sum;
}

export function protectedCount(s) {
  const n = s.config?.preserveRecentMessages;
  return Number.isInteger(n) ? n : CONFIG_SCHEMA.properties.preserveRecentMessages.default;
}

export function pinsOf(s) {
  const p = s.state.pins ?? {};
  return { turnIds: [...(p.turnIds ?? [])], tools: [...(p.tools ?? [])], patterns: [...(p.patterns ?? [])] };
}

/** Whether an index turn matches the pins (tools and patterns judged on the indexed text). */
export function pinnedInIndex(pins, t) {
  if (pins.turnIds.includes(t.id) || pins.turnIds.includes(hashId(t))) return true;
  if (pins.tools.some((x) => t.tools.includes(x))) return true;
  const text = `${t.topicUser}\n${t.topicAssistant}`.toLowerCase();
  return pins.patterns.some((p) => text.includes(p.toLowerCase()));
}
