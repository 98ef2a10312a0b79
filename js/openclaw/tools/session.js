// What the tools read from the calling session: its identity from the tool context, its index
// (refreshed from the transcript first), its turns by id, the messages the next request would
// carry, a planner preview that leaves the sticky decisions as they were, the original
// messages and raw lines of turns, token totals, the protected tail and the pins. Turn ids are
// looked up in the session's own index, never used to build a path.
import { readFileSync } from "node:fs";
import { ToolError, oneLine } from "./errors.js";
import { turnMessages } from "../background.js";

/** @import { IndexTurn, Message, Pins, SessionIndex, TokenBreakdown } from "../../core/types.js" */
/** @import { Core } from "../../core/core.js" */
/** @import { EngineDeps, OpenSession, SessionIdentity } from "../engine.js" */

/**
 * What a tool's `run` gets: the calling session (opened as the engine opens it), the core
 * instance, the engine's deps, the session identity and key, and the call's abort signal.
 * @typedef {object} ToolContext
 * @property {OpenSession} s
 * @property {Core} core
 * @property {EngineDeps} deps
 * @property {SessionIdentity} ident
 * @property {AbortSignal} [signal]
 * @property {string} key
 */
/**
 * A tool's answer: the text the agent reads (capped at 64 KB) and structured details.
 * @typedef {{text: string, details: any}} ToolOutput
 */
/**
 * One agent tool: its name, description, JSON Schema of its arguments, and what it does
 * with arguments that fit the schema.
 * @typedef {object} ToolDef
 * @property {string} name
 * @property {string} description
 * @property {Record<string, any>} parameters
 * @property {(ctx: ToolContext, args: Record<string, any>) => Promise<ToolOutput>} run
 */

const manifest = JSON.parse(readFileSync(new URL("../../../openclaw.plugin.json", import.meta.url), "utf8"));
/** The plugin's config schema (openclaw.plugin.json): keys, types and defaults. */
export const CONFIG_SCHEMA = manifest.configSchema;
/** How long one tool call may spend on LLM calls (summaries, labels). */
export const TOOL_DEADLINE_MS = 60_000;

/**
 * The session identity of a tool call's context; a call without a session is refused.
 * @param {any} toolCtx the host's tool context
 * @returns {SessionIdentity}
 */
export function identityOf(toolCtx) {
  const sessionKey = toolCtx?.sessionKey;
  const sessionId = toolCtx?.sessionId;
  if (!sessionKey && !sessionId) throw new ToolError("no session in this tool call's context: contextfold tools act on the calling session only");
  const target = { ...(toolCtx.agentId ? { agentId: toolCtx.agentId } : {}), ...(sessionKey ? { sessionKey } : {}), ...(sessionId ? { sessionId } : {}) };
  return { ...(sessionKey ? { sessionKey } : {}), ...(sessionId ? { sessionId } : {}), sessionTarget: target };
}

/**
 * Refreshes the index from the transcript; a note for the result when that failed.
 * @param {OpenSession} s
 * @returns {Promise<string | null>}
 */
export async function syncNote(s) {
  try {
    await s.sync();
    return null;
  } catch (err) {
    return `index not refreshed (${oneLine(err)})`;
  }
}

/**
 * @param {OpenSession} s
 * @returns {Promise<SessionIndex>}
 */
export async function indexOf(s) {
  return (await s.session()).index();
}

/** The hash id the planner gives a turn it does not know by entry id. */
export const hashId = (/** @type {IndexTurn} */ t) => `h${t.key}`;

/**
 * The index turn with this id (entry id or hash id); an unknown id is the caller's error.
 * @param {SessionIndex} index
 * @param {string} turnId
 */
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

/**
 * Messages of the session's active branch as the next request would carry them.
 * @param {OpenSession} s
 * @returns {Promise<{messages: Message[], source: string}>}
 */
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

/**
 * The planner over `messages` without changing the session's sticky decisions.
 * @param {OpenSession} s
 * @param {Message[]} messages
 * @param {number | null | undefined} budget
 */
export async function preview(s, messages, budget) {
  const w = await s.session();
  const before = w.folded();
  // a history that ends with a finished answer is planned as the host sends it: complete,
  // with the next prompt to come (an empty prompt says so); else its last turn is live
  const last = messages[messages.length - 1];
  const calls = Array.isArray(last?.content) && last.content.some((/** @type {any} */ p) => p?.type === "toolCall" || p?.type === "tool_use");
  const finished = last?.role === "assistant" && !calls && !last.tool_calls?.length;
  try {
    return w.assemble({ messages, prompt: finished ? "" : null, budget: budget ?? null });
  } finally {
    w.setFolded(before);
  }
}

/**
 * Original messages of the given index turns, read from the transcript (exact).
 * @param {OpenSession} s
 * @param {IndexTurn[]} turns
 */
export async function originalMessages(s, turns) {
  /** @type {Map<string, Message[]>} */
  const out = new Map();
  const tr = s.transcript;
  if (tr?.kind === "jsonl") {
    for (const t of turns) {
      const refs = t.entries.filter((r) => Array.isArray(r.range));
      const lines = await tr.readRanges(refs.map((r) => /** @type {[number, number]} */ (r.range)));
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
          .map((l) => JSON.parse(/** @type {string} */ (l)).message)
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

/**
 * The raw stored lines of a turn: exact JSONL bytes, or the stored event JSON.
 * @param {OpenSession} s
 * @param {IndexTurn} turn
 */
export async function rawLines(s, turn) {
  const tr = s.transcript;
  if (tr?.kind === "jsonl") {
    const refs = turn.entries.filter((r) => Array.isArray(r.range));
    return { source: "jsonl", ids: refs.map((r) => r.id), lines: await tr.readRanges(refs.map((r) => /** @type {[number, number]} */ (r.range))) };
  }
  if (tr?.kind === "sqlite") {
    const ids = turn.entries.map((r) => r.id);
    return { source: "sqlite", ids, lines: (await tr.readEntries(ids)).map((l, i) => l ?? JSON.stringify({ id: ids[i], missing: true })) };
  }
  throw new ToolError("this session's transcript is not readable here (no transcript found for its session id)");
}

/**
 * The session's tokens by role and part type, summed over its turns.
 * @param {SessionIndex} index
 * @returns {TokenBreakdown}
 */
export function breakdownTotals(index) {
  const sum = { total: 0, user: 0, assistant: 0, toolResult: 0, other: 0, text: 0, thinking: 0, toolCall: 0, image: 0 };
  const keys = /** @type {(keyof TokenBreakdown)[]} */ (Object.keys(sum));
  for (const t of index.turns) for (const k of keys) sum[k] += t.tokens?.[k] ?? 0;
  return sum;
}

/**
 * How many recent turns are never folded (preserveRecentMessages; the core's default).
 * @param {Core} core
 * @param {OpenSession} s
 * @returns {number}
 */
export function protectedCount(core, s) {
  const n = s.config?.preserveRecentMessages;
  return Number.isInteger(n) ? n : /** @type {number} */ (core.defaultConfig().preserveRecentMessages);
}

/**
 * A copy of the session's pins.
 * @param {OpenSession} s
 * @returns {Pins}
 */
export function pinsOf(s) {
  /** @type {Partial<Pins>} */
  const p = s.state.pins ?? {};
  return { turnIds: [...(p.turnIds ?? [])], tools: [...(p.tools ?? [])], patterns: [...(p.patterns ?? [])] };
}

/**
 * The ids of the index turns that the pins hold, by the planner's rule (the core's
 * `pinnedTurns`: by entry or hash id, a tool the turn calls or answers, a phrase of its full
 * visible text, read from the transcript when tools or phrases are pinned).
 * @param {Core} core
 * @param {OpenSession} s
 * @param {Pins} pins
 * @param {IndexTurn[]} turns
 * @returns {Promise<Set<string>>}
 */
export async function pinnedTurnIds(core, s, pins, turns) {
  const byText = pins.tools.length > 0 || pins.patterns.length > 0;
  const messages = byText ? await originalMessages(s, turns) : new Map();
  return new Set(
    core.pinnedTurns(
      pins,
      turns.map((t) => ({ ids: [t.id, hashId(t)], messages: messages.get(t.id) ?? [] })),
    ),
  );
}
