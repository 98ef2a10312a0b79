// The agent tools: inspect and steer the live state of the calling session.
//
// One factory is registered (`api.registerTool(factory, {names})`); the host calls it with
// the tool context of the run, and every tool acts on that context's session only: the same
// LiveSession the engine uses (openLive with the engine's deps), so a pin, a prune or a config
// change shows in the very next request. No tool takes a path or a session argument; turn ids
// are looked up in the session's own index and never used to build a path. Arguments are
// validated against each tool's JSON Schema (types, ranges, unknown keys); a bad argument
// throws with a message that says what to send instead. Large output is paged (page /
// pageSize ≤ 200) and every result text is capped at 64 KB.
import { readFileSync } from "node:fs";
import { openLive, sessionKeyOf, createEngine } from "./engine.js";
import { splitConfig } from "../core/config.js";
import { loadCore } from "../core/node.js";
import { describeMessage } from "../core/describe.js";
import { SessionStore } from "./store.js";
import { pickComplete, parseSubtopic } from "./llm.js";
import { summarizeQueued, turnAsText, turnMessages } from "./background.js";
import { registerStatusCommand } from "./command.js";

const manifest = JSON.parse(readFileSync(new URL("../../openclaw.plugin.json", import.meta.url), "utf8"));
const CONFIG_SCHEMA = manifest.configSchema;

/** Every tool name (the manifest's `contracts.tools` lists exactly these). */
export const TOOL_NAMES = Object.freeze([
  "context_stats",
  "context_prune",
  "context_summarize",
  "context_pin",
  "context_config",
  "context_set_strategy",
  "context_engine_status",
  "context_engine_compact",
  "context_engine_recover",
  "context_engine_assemble",
  "context_engine_topics",
  "context_engine_detect_subtopics",
  "context_engine_explain",
  "session_index_build",
  "session_index_query",
  "session_index_read_raw",
]);

export const MAX_PAGE_SIZE = 200;
export const MAX_TEXT_BYTES = 64 * 1024;
const STRATEGIES = ["fifo", "sliding-window", "importance"];
/** Config keys that cannot change at runtime (where records live is fixed per process). */
const READ_ONLY_KEYS = new Set(["stateDir"]);
const TOOL_DEADLINE_MS = 60_000;

export class ToolError extends Error {}

// ------------------------------------------------------------------------------------------
// argument validation (the JSON Schema subset the tools use)

function typeName(v) {
  if (v === null) return "null";
  if (Array.isArray(v)) return "array";
  return typeof v;
}

/** Returns an error message, or null when `value` fits `schema`. */
export function checkSchema(schema, value, where) {
  const t = schema.type;
  if (t === "object") {
    if (typeName(value) !== "object") return `${where} must be an object, got ${typeName(value)}`;
    const props = schema.properties ?? {};
    for (const k of Object.keys(value)) {
      if (!(k in props) && schema.additionalProperties === false) {
        const allowed = Object.keys(props);
        return `unknown ${where === "arguments" ? "argument" : "key"} "${k}" in ${where}; allowed: ${allowed.length ? allowed.join(", ") : "none"}`;
      }
    }
    for (const k of schema.required ?? []) if (value[k] === undefined) return `${where}.${k} is required`;
    for (const [k, sub] of Object.entries(props)) {
      if (value[k] === undefined) continue;
      const e = checkSchema(sub, value[k], `${where}.${k}`);
      if (e) return e;
    }
    return null;
  }
  if (t === "string") {
    if (typeof value !== "string") return `${where} must be a string, got ${typeName(value)}`;
    if (schema.enum && !schema.enum.includes(value))
      return `${where} must be one of ${schema.enum.map((x) => JSON.stringify(x)).join(", ")}, got ${JSON.stringify(value)}`;
    if (schema.minLength !== undefined && value.length < schema.minLength) return `${where} must have at least ${schema.minLength} character(s)`;
    if (schema.maxLength !== undefined && value.length > schema.maxLength) return `${where} must have at most ${schema.maxLength} characters`;
    return null;
  }
  if (t === "integer" || t === "number") {
    if (typeof value !== "number" || !Number.isFinite(value)) return `${where} must be a ${t}, got ${typeName(value)}`;
    if (t === "integer" && !Number.isInteger(value)) return `${where} must be an integer, got ${value}`;
    if (schema.minimum !== undefined && value < schema.minimum) return `${where} must be ≥ ${schema.minimum}, got ${value}`;
    if (schema.maximum !== undefined && value > schema.maximum) return `${where} must be ≤ ${schema.maximum}, got ${value}`;
    if (schema.exclusiveMinimum !== undefined && value <= schema.exclusiveMinimum) return `${where} must be > ${schema.exclusiveMinimum}, got ${value}`;
    return null;
  }
  if (t === "boolean") return typeof value === "boolean" ? null : `${where} must be true or false, got ${typeName(value)}`;
  if (t === "array") {
    if (!Array.isArray(value)) return `${where} must be an array, got ${typeName(value)}`;
    if (schema.minItems !== undefined && value.length < schema.minItems) return `${where} must have at least ${schema.minItems} item(s)`;
    if (schema.maxItems !== undefined && value.length > schema.maxItems) return `${where} must have at most ${schema.maxItems} items`;
    if (schema.items) {
      for (let i = 0; i < value.length; i++) {
        const e = checkSchema(schema.items, value[i], `${where}[${i}]`);
        if (e) return e;
      }
    }
    return null;
  }
  return null;
}

// ------------------------------------------------------------------------------------------
// shared parameter schemas

const PAGE = { type: "integer", minimum: 1, maximum: 100000, description: "Page number, 1-based (default 1)." };
const pageSize = (dflt) => ({
  type: "integer",
  minimum: 1,
  maximum: MAX_PAGE_SIZE,
  description: `Items per page, at most ${MAX_PAGE_SIZE} (default ${dflt}).`,
});
const TURN_ID = {
  type: "string",
  minLength: 1,
  maxLength: 200,
  description: "A turn id of this session, as shown in stubs (`[folded … — turn <id>]`), explanations, topics or session_index_query.",
};
const OFFSET = {
  type: "integer",
  minimum: 0,
  maximum: 1_000_000_000,
  description: "Character offset into this page's text, to continue a result that was cut at 64 KB (default 0).",
};
const obj = (properties, required = []) => ({ type: "object", additionalProperties: false, properties, ...(required.length ? { required } : {}) });

// ------------------------------------------------------------------------------------------
// helpers over the live session

function identityOf(toolCtx) {
  const sessionKey = toolCtx?.sessionKey;
  const sessionId = toolCtx?.sessionId;
  if (!sessionKey && !sessionId) throw new ToolError("no session in this tool call's context: contextfold tools act on the calling session only");
  const target = { ...(toolCtx.agentId ? { agentId: toolCtx.agentId } : {}), ...(sessionKey ? { sessionKey } : {}), ...(sessionId ? { sessionId } : {}) };
  return { ...(sessionKey ? { sessionKey } : {}), ...(sessionId ? { sessionId } : {}), sessionTarget: target };
}

async function syncNote(s) {
  try {
    await s.sync();
    return null;
  } catch (err) {
    return `index not refreshed (${oneLine(err)})`;
  }
}

function oneLine(err) {
  return String(err?.message ?? err).split("\n")[0];
}

async function indexOf(s) {
  return (await s.session()).index();
}

/** The hash id the planner gives a turn it does not know by entry id. */
const hashId = (t) => `h${t.key}`;

function findTurn(index, turnId) {
  const t = index.turns.find((x) => x.id === turnId || hashId(x) === turnId);
  if (!t) {
    throw new ToolError(
      `no turn ${JSON.stringify(turnId)} in this session's index (${index.turns.length} turns); ` +
        "use session_index_query or context_engine_topics to list turn ids",
    );
  }
  return t;
}

function pageOf(items, page = 1, size = 20) {
  const pages = Math.max(1, Math.ceil(items.length / size));
  if (page > pages && items.length > 0) throw new ToolError(`page ${page} is past the last page (${pages})`);
  return { items: items.slice((page - 1) * size, page * size), page, pages, total: items.length, pageSize: size };
}

const pageLine = (p, what) => (p.pages > 1 ? `page ${p.page} of ${p.pages} (${p.total} ${what}; pass page=${p.page + 1} for more)` : `${p.total} ${what}`);

/** Cuts `text` to the byte cap, starting at character `offset`. */
export function capText(text, offset = 0) {
  const rest = offset > 0 ? text.slice(offset) : text;
  const buf = Buffer.from(rest, "utf8");
  if (buf.length <= MAX_TEXT_BYTES) return { text: rest, nextOffset: null };
  const note = "\n[… cut at 64 KB; call again with offset=";
  let cut = buf.subarray(0, MAX_TEXT_BYTES - 200).toString("utf8");
  if (cut.endsWith("\uFFFD")) cut = cut.slice(0, -1);
  const nextOffset = offset + cut.length;
  return { text: `${cut}${note}${nextOffset} to continue]`, nextOffset };
}

/** Messages of the session's active branch as the next request would carry them. */
async function currentMessages(s) {
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
async function preview(s, messages, budget) {
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
async function originalMessages(s, turns) {
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
async function rawLines(s, turn) {
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

/** A readable, complete rendering of one message. */
export function renderMessage(m, n) {
  const role = m?.role ?? "?";
  const head = `--- [${n}] ${role}${m?.toolName ? ` (${m.toolName})` : ""}${m?.isError ? " error" : ""}${m?.customType ? ` ${m.customType}` : ""} ---`;
  const body = [];
  const parts = Array.isArray(m?.content) ? m.content : m?.content == null ? [] : [{ type: "text", text: String(m.content) }];
  for (const p of parts) {
    switch (p?.type) {
      case "text":
        body.push(p.text ?? "");
        break;
      case "thinking":
        body.push(`[thinking] ${p.redacted ? "(redacted)" : (p.thinking ?? "")}`);
        break;
      case "redacted_thinking":
        body.push("[thinking] (redacted)");
        break;
      case "toolCall":
      case "tool_use":
        body.push(`[tool call ${p.name} id=${p.id}] ${JSON.stringify(p.arguments ?? p.input ?? {})}`);
        break;
      case "tool_result":
        body.push(`[tool result for ${p.tool_use_id}] ${typeof p.content === "string" ? p.content : JSON.stringify(p.content)}`);
        break;
      case "image":
        body.push(`[image ${p.mimeType ?? p.source?.media_type ?? ""}, ${String(p.data ?? p.source?.data ?? "").length} base64 characters]`);
        break;
      default:
        body.push(JSON.stringify(p));
    }
  }
  if (m?.reasoning_content) body.push(`[reasoning] ${m.reasoning_content}`);
  for (const c of m?.tool_calls ?? []) body.push(`[tool call ${c?.function?.name} id=${c?.id}] ${c?.function?.arguments ?? ""}`);
  if (typeof m?.summary === "string") body.push(m.summary);
  if (typeof m?.command === "string") body.push(`$ ${m.command}\n${m.output ?? ""}`);
  return `${head}\n${body.join("\n")}`;
}

const fmt = (n) => (typeof n === "number" ? n.toLocaleString("en-US") : String(n));

function breakdownTotals(index) {
  const sum = { total: 0, user: 0, assistant: 0, toolResult: 0, other: 0, text: 0, thinking: 0, toolCall: 0, image: 0 };
  for (const t of index.turns) for (const k of Object.keys(sum)) sum[k] += t.tokens?.[k] ?? 0;
  return sum;
}

/**
 * The plugin config merged over defaults, then the session's runtime overrides, with each
 * key's source. The host hands the plugin its config with the schema's defaults filled in,
 * so a plugin-config value equal to the default is shown as the default.
 */
function effectiveConfig(pluginConfig, overrides) {
  const out = {};
  const source = {};
  for (const [k, sch] of Object.entries(CONFIG_SCHEMA.properties)) {
    if (sch.default !== undefined) {
      out[k] = sch.default;
      source[k] = "default";
    }
  }
  for (const [k, v] of Object.entries(pluginConfig ?? {})) {
    out[k] = v;
    source[k] = JSON.stringify(v) === JSON.stringify(CONFIG_SCHEMA.properties[k]?.default) ? "default" : "plugin config";
  }
  for (const [k, v] of Object.entries(overrides ?? {})) {
    out[k] = v;
    source[k] = "session override";
  }
  return { config: out, source };
}

function protectedCount(s) {
  const n = s.config?.preserveRecentMessages;
  return Number.isInteger(n) ? n : CONFIG_SCHEMA.properties.preserveRecentMessages.default;
}

function pinsOf(s) {
  const p = s.state.pins ?? {};
  return { turnIds: [...(p.turnIds ?? [])], tools: [...(p.tools ?? [])], patterns: [...(p.patterns ?? [])] };
}

/** Whether an index turn matches the pins (tools and patterns judged on the indexed text). */
function pinnedInIndex(pins, t) {
  if (pins.turnIds.includes(t.id) || pins.turnIds.includes(hashId(t))) return true;
  if (pins.tools.some((x) => t.tools.includes(x))) return true;
  const text = `${t.topicUser}\n${t.topicAssistant}`.toLowerCase();
  return pins.patterns.some((p) => text.includes(p.toLowerCase()));
}

// ------------------------------------------------------------------------------------------
// status (shared with the /contextfold command)

/** Everything `context_engine_status` reports, as `{text, details}`. */
export async function statusReport(s, deps) {
  const index = await indexOf(s);
  const key = s.sessionKey;
  const committed = await new SessionStore(deps.stateDir, key).committedCount().catch(() => 0);
  const slot = (() => {
    try {
      return deps.api?.config?.plugins?.slots?.contextEngine;
    } catch {
      return undefined;
    }
  })();
  const la = s.lastAssemble;
  const r = la?.result;
  const active = Boolean(la) || committed > 0;
  const why = [
    la ? `planned a request for this session at ${la.at}` : "no request planned for this session in this process yet",
    `${committed} committed turn record(s)`,
    slot !== undefined ? `engine slot: ${slot}` : null,
  ].filter(Boolean);
  const sums = Object.values(s.summaries ?? {});
  const pins = pinsOf(s);
  const llm = s.llm;
  const details = {
    sessionKey: key,
    active,
    activeReasons: why,
    slotSelected: slot === undefined ? null : slot === "contextfold",
    mode: s.config?.mode ?? "fold",
    lastAssemble: r
      ? {
          at: la.at,
          budget: r.stats.budget,
          messagesBefore: r.stats.clean.messagesBefore,
          messagesAfter: r.stats.clean.messagesAfter,
          tokensBefore: r.stats.clean.tokensBefore,
          tokensAfter: r.estimatedTokens,
          turns: r.stats.turns,
          kept: r.stats.kept,
          cleaned: r.stats.cleaned,
          truncated: r.stats.truncated,
          summarized: r.stats.summarized,
          stubbed: r.stats.stubbed,
          overBudget: r.stats.overBudget,
          fallback: r.fallback ?? null,
          recoveryTool: la.recoveryTool ?? null,
        }
      : null,
    index: { turns: index.turns.length, entries: index.entries, source: s.transcript?.kind ?? "none" },
    caches: {
      summaries: sums.length,
      llmSummaries: sums.filter((x) => x.source === "llm").length,
      foldedTurns: (s.state.folded ?? []).length,
      subtopicLabels: Object.keys(s.state.subtopics ?? {}).length,
      pins: pins.turnIds.length + pins.tools.length + pins.patterns.length,
    },
    pendingSummaries: [...(s.pendingSummaries ?? [])],
    llm: llm
      ? { callsLeft: llm.remaining().calls, tokensLeft: llm.remaining().tokens, callsUsed: llm.calls, failures: llm.failures, lastError: llm.lastError }
      : null,
    lastFallback: s.lastFallback ?? null,
  };
  const lines = [
    `contextfold ${active ? "ACTIVE" : "NOT ACTIVE YET"} for session ${key} (${why.join("; ")})${details.slotSelected === false ? " — WARNING: plugins.slots.contextEngine does not select contextfold" : ""}`,
    `mode ${details.mode}; index ${index.turns.length} turns from ${details.index.source}`,
    r
      ? `last request: ${r.stats.clean.messagesBefore}→${r.stats.clean.messagesAfter} msgs, ~${fmt(r.stats.clean.tokensBefore)}→~${fmt(r.estimatedTokens)} tokens of ${fmt(r.stats.budget)}; turns kept ${r.stats.kept}, cleaned ${r.stats.cleaned}, truncated ${r.stats.truncated}, summarized ${r.stats.summarized}, stubbed ${r.stats.stubbed}${r.stats.overBudget ? " (OVER BUDGET: the protected turns alone exceed it)" : ""}; recovery tool ${la.recoveryTool === undefined ? "offered: unknown" : la.recoveryTool ? "offered to the model" : "NOT offered to the model"}`
      : "last request: none in this process",
    `caches: ${details.caches.summaries} summaries (${details.caches.llmSummaries} by LLM), ${details.caches.foldedTurns} folded turns, ${details.caches.subtopicLabels} sub-topic labels, ${details.caches.pins} pins`,
    `background queue: ${details.pendingSummaries.length} turn(s) waiting for a summary`,
    llm
      ? `LLM budget left: ${fmt(details.llm.callsLeft)} calls, ${fmt(details.llm.tokensLeft)} tokens (used ${llm.calls} calls, ${llm.failures} failures${llm.lastError ? `, last error: ${llm.lastError}` : ""})`
      : "LLM budget: not used yet",
    s.lastFallback ? `last fallback: ${s.lastFallback.at}: ${s.lastFallback.reason}` : "last fallback: none",
  ];
  return { text: lines.join("\n"), details };
}

// ------------------------------------------------------------------------------------------
// the tools

function defineTools() {
  return [
    {
      name: "context_stats",
      description:
        "Token usage of this session: messages and tokens before/after the last request the engine planned, the whole session's tokens by role (user, assistant, tool results) and part type (text, thinking, tool calls, images), the prune strategy, and cache figures (summaries, folded turns, pins).",
      parameters: obj({}),
      async run({ s }) {
        const note = await syncNote(s);
        const index = await indexOf(s);
        const totals = breakdownTotals(index);
        const r = s.lastAssemble?.result;
        const strategy = s.state.prune?.strategy ?? "fifo";
        const details = {
          lastRequest: r
            ? {
                at: s.lastAssemble.at,
                messagesBefore: r.stats.clean.messagesBefore,
                messagesAfter: r.stats.clean.messagesAfter,
                tokensBefore: r.stats.clean.tokensBefore,
                tokensAfter: r.estimatedTokens,
                budget: r.stats.budget,
              }
            : null,
          session: { turns: index.turns.length, entries: index.entries, tokens: totals },
          strategy,
          cache: {
            summaries: Object.keys(s.summaries ?? {}).length,
            foldedTurns: (s.state.folded ?? []).length,
            pins: pinsOf(s),
            prefixStability: s.prefixStability ?? null,
          },
        };
        const pct = (a, b) => (b ? Math.round((100 * a) / b) : 0);
        const lines = [
          r
            ? `last request (${s.lastAssemble.at}): ${r.stats.clean.messagesBefore}→${r.stats.clean.messagesAfter} messages, ~${fmt(r.stats.clean.tokensBefore)}→~${fmt(r.estimatedTokens)} tokens (budget ${fmt(r.stats.budget)}, ${pct(r.stats.clean.tokensBefore - r.estimatedTokens, r.stats.clean.tokensBefore)}% saved)`
            : "last request: none planned in this process yet",
          `session: ${index.turns.length} turns, ~${fmt(totals.total)} tokens — by role: user ${fmt(totals.user)}, assistant ${fmt(totals.assistant)}, tool results ${fmt(totals.toolResult)}, other ${fmt(totals.other)}; by part: text ${fmt(totals.text)}, thinking ${fmt(totals.thinking)}, tool calls ${fmt(totals.toolCall)}, images ${fmt(totals.image)}`,
          `prune strategy: ${strategy}`,
          `cache: ${details.cache.summaries} summaries, ${details.cache.foldedTurns} folded turns, ${details.cache.pins.turnIds.length + details.cache.pins.tools.length + details.cache.pins.patterns.length} pins${s.prefixStability ? `, prefix stability ${JSON.stringify(s.prefixStability)}` : ""}`,
        ];
        if (note) lines.push(note);
        return { text: lines.join("\n"), details };
      },
    },
    {
      name: "context_prune",
      description:
        "Prune old turns now, so the next request is smaller. Strategies: fifo (oldest first until targetTokens or maxTurns), sliding-window (keep the keepMessages most recent messages), importance (lowest role weight × tool presence × content length × recency first, until targetTokens or maxTurns). Defaults come from context_set_strategy. " +
        "Pruning FOLDS the chosen turns (adds them to the session's sticky folded set): from the next request on each is sent as a one-line stub naming its turn id (or as its summary when one exists). Folding rather than deleting keeps pairing valid and every turn recoverable with context_engine_recover (unfold: true restores it). Recent (protected), pinned and live turns are never pruned. dryRun: true only shows the choice.",
      parameters: obj({
        strategy: { type: "string", enum: STRATEGIES, description: "fifo, sliding-window or importance (default: the session's strategy)." },
        keepMessages: { type: "integer", minimum: 1, maximum: 1000000, description: "sliding-window: how many of the most recent messages to keep." },
        targetTokens: {
          type: "integer",
          minimum: 0,
          maximum: 100000000,
          description: "fifo / importance: prune until the request is estimated at most this many tokens.",
        },
        maxTurns: { type: "integer", minimum: 1, maximum: 100000, description: "Prune at most this many turns." },
        dryRun: { type: "boolean", description: "Only report what would be pruned (default false)." },
      }),
      async run({ s, core }, p) {
        const note = await syncNote(s);
        const saved = s.state.prune ?? {};
        const strategy = p.strategy ?? saved.strategy ?? "fifo";
        // the saved defaults belong to the saved strategy
        const useSaved = !p.strategy || p.strategy === (saved.strategy ?? "fifo");
        const opts = {
          keepMessages: p.keepMessages ?? (useSaved ? saved.keepMessages : undefined),
          targetTokens: p.targetTokens ?? (useSaved ? saved.targetTokens : undefined),
          maxTurns: p.maxTurns ?? (useSaved ? saved.maxTurns : undefined),
        };
        if (strategy === "sliding-window" && opts.keepMessages === undefined)
          throw new ToolError("sliding-window needs keepMessages (how many recent messages to keep)");
        if (strategy !== "sliding-window" && opts.targetTokens === undefined && opts.maxTurns === undefined)
          throw new ToolError(`${strategy} needs targetTokens (a token target for the next request) or maxTurns (how many turns to prune)`);
        const { messages, source } = await currentMessages(s);
        if (!messages.length) return { text: "nothing to prune: no messages known for this session yet", details: { pruned: [] } };
        const w = await s.session();
        const index = w.index();
        // what each turn costs in the next request as planned now (cleaned, pins and config applied)
        const budget = s.lastAssemble?.budget;
        const planned = await preview(s, messages, budget);
        const turnTokens = {};
        for (const t of planned.turns ?? []) turnTokens[t.id] = t.tokensAfter;
        const r = core.prune({
          messages,
          strategy,
          ...Object.fromEntries(Object.entries(opts).filter(([, v]) => v !== undefined)),
          protectRecentTurns: protectedCount(s),
          preserveSystemMessages: s.config?.preserveSystemMessages ?? true,
          pins: pinsOf(s),
          idsByKey: Object.fromEntries(index.turns.map((t) => [t.key, t.id])),
          turnTokens,
          exclude: w.folded(),
        });
        let after = null;
        if (!p.dryRun && r.turnIds.length) {
          w.setFolded([...new Set([...w.folded(), ...r.turnIds])]);
          await s.saveState();
          after = (await preview(s, messages, budget)).estimatedTokens;
        }
        const ids = r.turnIds;
        const lines = [
          `${p.dryRun ? "would prune" : "pruned"} ${ids.length} turn(s) by ${strategy}${ids.length ? `: ${ids.slice(0, 20).join(", ")}${ids.length > 20 ? ` … (+${ids.length - 20})` : ""}` : ""}`,
          `estimate: ~${fmt(r.tokensBefore)} → ~${fmt(r.tokensAfter)} tokens with the turns removed${after !== null ? `; the next request as planned now: ~${fmt(planned.estimatedTokens)} → ~${fmt(after)} tokens (pruned turns become one-line stubs)` : ""}; target ${r.targetMet ? "met" : "not met"}`,
          `not pruned: ${r.skipped.protected} protected (recent or live), ${r.skipped.pinned} pinned, ${r.skipped.excluded} already folded${r.skipped.gate ? `, ${r.skipped.gate} refused by the validity gate` : ""}`,
          ids.length && !p.dryRun ? "recover any of them with context_engine_recover (turnId; unfold: true sends it in full again)" : null,
          note,
        ].filter(Boolean);
        return {
          text: lines.join("\n"),
          details: {
            strategy,
            dryRun: Boolean(p.dryRun),
            source,
            turnIds: ids,
            pruned: r.pruned,
            tokensBefore: r.tokensBefore,
            tokensAfter: r.tokensAfter,
            plannedBefore: planned.estimatedTokens,
            nextRequestTokens: after,
            targetMet: r.targetMet,
            skipped: r.skipped,
          },
        };
      },
    },
    {
      name: "context_summarize",
      description:
        "Summarize old turns now and fold them: each turn gets a summary (by the LLM when available and useLlm is not false, else a deterministic extractive one from the core), stored in the session's summary cache, and from the next request on the turn is sent as that summary. Give turnIds, or count for the N oldest unsummarized turns. Recent and pinned turns are skipped. The transcript is never changed; context_engine_recover restores any turn.",
      parameters: obj({
        turnIds: { type: "array", items: TURN_ID, minItems: 1, maxItems: 50, description: "Turn ids to summarize (at most 50)." },
        count: { type: "integer", minimum: 1, maximum: 50, description: "Summarize the N oldest turns that are not protected, pinned or already summarized." },
        useLlm: { type: "boolean", description: "Use the LLM when available (default: the autoSummarize setting)." },
      }),
      async run({ s, core, deps, signal }, p) {
        if (!p.turnIds && !p.count) throw new ToolError("give turnIds (a list of turn ids) or count (how many of the oldest turns)");
        const note = await syncNote(s);
        const index = await indexOf(s);
        const pins = pinsOf(s);
        const protectedFrom = index.turns.length - Math.max(1, protectedCount(s));
        const isProtected = (t) => index.turns.indexOf(t) >= protectedFrom || pinnedInIndex(pins, t);
        let turns;
        const skipped = [];
        if (p.turnIds) {
          turns = [];
          for (const id of new Set(p.turnIds)) {
            const t = findTurn(index, id);
            if (isProtected(t)) skipped.push({ id, reason: "protected (recent or pinned)" });
            else turns.push(t);
          }
        } else {
          turns = index.turns.filter((t) => !isProtected(t) && !t.compacted && !s.summaries[t.id]).slice(0, p.count);
        }
        const already = turns.filter((t) => s.summaries[t.id]).map((t) => t.id);
        const todo = turns.filter((t) => !s.summaries[t.id]);
        const messagesById = await originalMessages(s, todo);
        const { js } = splitConfig({ ...(deps.config ?? {}), ...(s.state.config ?? {}) });
        const useLlm = p.useLlm ?? js.autoSummarize;
        const complete = useLlm ? pickComplete(undefined, deps.api) : undefined;
        const made = await summarizeQueued(s, {
          core,
          llm: s.llm,
          complete,
          autoSummarize: useLlm,
          summaryModel: js.summaryModel,
          turnIds: todo.map((t) => t.id),
          messagesById,
          signal,
          deadline: Date.now() + TOOL_DEADLINE_MS,
        });
        const ids = turns.map((t) => t.id).filter((id) => s.summaries[id]);
        const w = await s.session();
        if (ids.length) {
          w.setFolded([...new Set([...w.folded(), ...ids])]);
          await s.saveState();
        }
        const rows = ids.map((id) => ({ id, source: s.summaries[id].source, summary: s.summaries[id].text }));
        const lines = [
          `summarized ${made} turn(s) now${already.length ? `, ${already.length} already had a summary` : ""}; ${ids.length} turn(s) folded to their summaries from the next request on`,
          ...rows.map((x) => `- ${x.id} (${x.source}): ${x.summary.slice(0, 300)}`),
          ...skipped.map((x) => `- ${x.id}: skipped, ${x.reason}`),
          turns.length === 0 && !skipped.length ? "no turn qualified (all recent, pinned, compacted or summarized)" : null,
          s.llm?.lastError && useLlm && made > 0 && rows.some((x) => x.source !== "llm") ? `LLM not used for some: ${s.llm.lastError}` : null,
          note,
        ].filter(Boolean);
        return {
          text: lines.join("\n"),
          details: { made, folded: ids, summaries: rows.map(({ id, source }) => ({ id, source })), skipped, alreadySummarized: already },
        };
      },
    },
    {
      name: "context_pin",
      description:
        "Pin what must stay in full: a turn (turnId), every turn that calls a tool (tool), or every turn whose text contains a phrase (pattern, case-insensitive). Pinned turns are never stubbed, summarized, pruned or folded for the budget. unpin: true removes the given pin. Without arguments: list the pins. Pins persist with the session.",
      parameters: obj({
        turnId: TURN_ID,
        tool: { type: "string", minLength: 1, maxLength: 100, description: 'A tool name, e.g. "read".' },
        pattern: { type: "string", minLength: 2, maxLength: 200, description: "A phrase; turns containing it are pinned." },
        unpin: { type: "boolean", description: "Remove the given pin instead of adding it (default false)." },
      }),
      async run({ s }, p) {
        await syncNote(s);
        const index = await indexOf(s);
        const pins = pinsOf(s);
        const changes = [];
        const edit = (list, value, what) => {
          const has = list.includes(value);
          if (p.unpin) {
            if (!has) throw new ToolError(`${what} ${JSON.stringify(value)} is not pinned`);
            list.splice(list.indexOf(value), 1);
            changes.push(`unpinned ${what} ${JSON.stringify(value)}`);
          } else if (has) {
            changes.push(`${what} ${JSON.stringify(value)} was already pinned`);
          } else {
            if (list.length >= 200) throw new ToolError(`too many ${what} pins (200); unpin some first`);
            list.push(value);
            changes.push(`pinned ${what} ${JSON.stringify(value)}`);
          }
        };
        const w = await s.session();
        if (p.turnId !== undefined) {
          const t = findTurn(index, p.turnId);
          edit(pins.turnIds, t.id, "turn");
          if (!p.unpin) w.setFolded(w.folded().filter((id) => id !== t.id && id !== hashId(t)));
        }
        if (p.tool !== undefined) edit(pins.tools, p.tool, "tool");
        if (p.pattern !== undefined) edit(pins.patterns, p.pattern, "pattern");
        if (p.unpin && !changes.length) throw new ToolError("unpin needs turnId, tool or pattern");
        if (changes.length) {
          s.state.pins = pins;
          w.setPins(pins);
          await s.saveState();
        }
        const matching = index.turns.filter((t) => pinnedInIndex(pins, t)).map((t) => t.id);
        const lines = [
          ...(changes.length ? changes : ["no change (list only)"]),
          `pins: turns [${pins.turnIds.join(", ")}], tools [${pins.tools.join(", ")}], patterns [${pins.patterns.map((x) => JSON.stringify(x)).join(", ")}]`,
          `${matching.length} turn(s) pinned now${matching.length ? `: ${matching.slice(0, 20).join(", ")}${matching.length > 20 ? " …" : ""}` : ""}; they stay in full from the next request on`,
        ];
        return { text: lines.join("\n"), details: { pins, pinnedTurns: matching, changes } };
      },
    },
    {
      name: "context_config",
      description:
        "View or change contextfold's settings for this session at runtime. Without arguments: the effective config (defaults, then the plugin config, then this session's overrides) with each value's source. set: {key: value} changes keys (validated against the plugin's config schema and by the engine core; applies from the next request on and persists with the session); unset: [keys] drops overrides; resetAll: true drops all. stateDir cannot change at runtime.",
      parameters: obj({
        set: { type: "object", description: 'Keys to change, e.g. {"preserveRecentMessages": 8, "foldOtherTopics": false}.' },
        unset: {
          type: "array",
          items: { type: "string", minLength: 1, maxLength: 100 },
          maxItems: 50,
          description: "Override keys to drop (back to the plugin config).",
        },
        resetAll: { type: "boolean", description: "Drop every override of this session." },
      }),
      async run({ s, core, deps }, p) {
        await s.session();
        const overrides = { ...(s.state.config ?? {}) };
        const changes = [];
        if (p.resetAll) {
          for (const k of Object.keys(overrides)) delete overrides[k];
          changes.push("dropped every session override");
        }
        for (const k of p.unset ?? []) {
          if (!(k in CONFIG_SCHEMA.properties)) throw new ToolError(`unknown config key "${k}"`);
          if (k in overrides) {
            delete overrides[k];
            changes.push(`unset ${k}`);
          }
        }
        for (const [k, v] of Object.entries(p.set ?? {})) {
          const sch = CONFIG_SCHEMA.properties[k];
          if (!sch) throw new ToolError(`unknown config key "${k}"; known keys: ${Object.keys(CONFIG_SCHEMA.properties).join(", ")}`);
          if (READ_ONLY_KEYS.has(k)) throw new ToolError(`${k} cannot be changed at runtime (set it in the plugin config)`);
          const e = checkSchema(sch, v, k);
          if (e) throw new ToolError(e);
          overrides[k] = v;
          changes.push(`${k} = ${JSON.stringify(v)}`);
        }
        const { config: eff, source } = effectiveConfig(deps.config, overrides);
        const coreConfig = splitConfig(eff).core;
        try {
          core.newSession(coreConfig).free();
        } catch (err) {
          throw new ToolError(`rejected by the engine core: ${oneLine(err)}`);
        }
        if (changes.length) {
          s.state.config = overrides;
          await s.saveState();
          s.setConfig(splitConfig({ ...(deps.config ?? {}), ...overrides }).core);
        }
        const shown = Object.fromEntries(Object.entries(eff).filter(([k]) => k !== "stateDir"));
        const lines = [
          changes.length ? `changed: ${changes.join("; ")} (from the next request on)` : "no change",
          "effective config:",
          ...Object.entries(shown).map(([k, v]) => `  ${k} = ${JSON.stringify(v)}  (${source[k]})`),
        ];
        return { text: lines.join("\n"), details: { effective: shown, source, overrides, changes } };
      },
    },
    {
      name: "context_set_strategy",
      description:
        "Switch the prune strategy context_prune uses by default for this session (persisted): fifo (oldest first), sliding-window (keep the keepMessages most recent messages) or importance (least important first). Optionally set the default keepMessages, targetTokens or maxTurns with it.",
      parameters: obj(
        {
          strategy: { type: "string", enum: STRATEGIES, description: "fifo, sliding-window or importance." },
          keepMessages: { type: "integer", minimum: 1, maximum: 1000000, description: "Default for sliding-window." },
          targetTokens: { type: "integer", minimum: 0, maximum: 100000000, description: "Default token target for fifo / importance." },
          maxTurns: { type: "integer", minimum: 1, maximum: 100000, description: "Default cap on turns pruned at once." },
        },
        ["strategy"],
      ),
      async run({ s }, p) {
        await s.session();
        const previous = s.state.prune?.strategy ?? "fifo";
        s.state.prune = Object.fromEntries(
          Object.entries({ strategy: p.strategy, keepMessages: p.keepMessages, targetTokens: p.targetTokens, maxTurns: p.maxTurns }).filter(
            ([, v]) => v !== undefined,
          ),
        );
        await s.saveState();
        const hint =
          p.strategy === "sliding-window" && p.keepMessages === undefined
            ? " (context_prune will need keepMessages)"
            : p.strategy !== "sliding-window" && p.targetTokens === undefined && p.maxTurns === undefined
              ? " (context_prune will need targetTokens or maxTurns)"
              : "";
        return { text: `prune strategy: ${previous} → ${p.strategy}${hint}; saved for this session`, details: { previous, prune: s.state.prune } };
      },
    },
    {
      name: "context_engine_status",
      description:
        "Is contextfold active for this session, and how is it doing: whether it planned a request for this session in this process and how many turns it committed, the last request's figures, caches (summaries, folded turns, labels, pins), the background summary queue, the LLM budget left, and the last fallback with its reason.",
      parameters: obj({}),
      async run({ s, deps }) {
        return statusReport(s, deps);
      },
    },
    {
      name: "context_engine_compact",
      description:
        "Run folding now, exactly as a host compaction does: old unprotected turns are summarized into the side cache (LLM when available, else extractive) and folded to their summaries from the next request on. The transcript is never rewritten; every turn stays recoverable.",
      parameters: obj({}),
      async run({ s, deps, ident, signal }) {
        const engine = createEngine(deps);
        const r = await engine.compact({ ...ident, sessionKey: s.sessionKey, tokenBudget: s.lastAssemble?.budget, abortSignal: signal });
        const res = r.result;
        const text = r.ok
          ? `${r.compacted ? "compacted" : "nothing compacted"}: ${r.reason ?? ""}${res ? `; ~${fmt(res.tokensBefore)} → ~${fmt(res.tokensAfter)} tokens, ${res.details?.folded ?? 0} turns folded in all` : ""}`
          : `compaction failed: ${r.reason}`;
        return { text, details: r };
      },
    },
    {
      name: "context_engine_recover",
      description:
        "Unfold a turn: its complete original messages (user prompt, assistant text, thinking, tool calls with arguments, tool results), read from the session transcript — not from a summary. Paged by messages; a page cut at 64 KB continues with offset. unfold: true also sends the turn in full in later requests again (removes it from the folded set; the budget may fold it again).",
      parameters: obj(
        {
          turnId: TURN_ID,
          page: PAGE,
          pageSize: pageSize(50),
          offset: OFFSET,
          unfold: { type: "boolean", description: "Also stop folding this turn (default false)." },
        },
        ["turnId"],
      ),
      async run({ s }, p) {
        await syncNote(s);
        const index = await indexOf(s);
        const t = findTurn(index, p.turnId);
        const msgs = (await originalMessages(s, [t])).get(t.id);
        if (!msgs) throw new ToolError(`turn ${t.id} is indexed but its transcript is not readable here`);
        const pg = pageOf(msgs, p.page ?? 1, p.pageSize ?? 50);
        const first = (pg.page - 1) * pg.pageSize;
        const body = pg.items.map((m, i) => renderMessage(m, first + i + 1)).join("\n");
        let unfolded = false;
        if (p.unfold) {
          const w = await s.session();
          const before = w.folded();
          const next = before.filter((id) => id !== t.id && id !== hashId(t));
          unfolded = next.length !== before.length;
          w.setFolded(next);
          await s.saveState();
        }
        const head = `turn ${t.id}: ${msgs.length} message(s), ~${fmt(t.tokens.total)} tokens, source ${s.transcript?.kind ?? "last request"}; ${pageLine(pg, "messages")}${p.unfold ? (unfolded ? "; unfolded for later requests" : "; it was not folded") : ""}`;
        const cut = capText(`${head}\n${body}`, p.offset ?? 0);
        return {
          text: cut.text,
          details: {
            turnId: t.id,
            entryIds: t.entries.map((e) => e.id),
            messages: msgs.length,
            page: pg.page,
            pages: pg.pages,
            nextOffset: cut.nextOffset,
            unfolded,
          },
        };
      },
    },
    {
      name: "context_engine_assemble",
      description:
        "Preview what the model will see on the next request: the engine plans the session's current history (as the next request would carry it) without changing anything, and lists per turn the decision (kept, cleaned, truncated, summarized, stubbed), tokens before → after, topic and reason. includeContent: true adds the planned messages of the listed turns. Paged by turns.",
      parameters: obj({
        page: PAGE,
        pageSize: pageSize(30),
        budget: { type: "integer", minimum: 256, maximum: 100000000, description: "Token budget to plan for (default: the last request's)." },
        includeContent: { type: "boolean", description: "Also show the planned messages of the turns on this page (default false)." },
        offset: OFFSET,
      }),
      async run({ s }, p) {
        const note = await syncNote(s);
        const { messages, source } = await currentMessages(s);
        if (!messages.length) return { text: "nothing to preview: no messages known for this session yet", details: { turns: [] } };
        const budget = p.budget ?? s.lastAssemble?.budget ?? undefined;
        const r = await preview(s, messages, budget);
        const pg = pageOf(r.turns, p.page ?? 1, p.pageSize ?? 30);
        const lines = [
          `next request preview (from the ${source}): ${r.stats.clean.messagesBefore}→${r.steps.length} messages, ~${fmt(r.stats.clean.tokensBefore)}→~${fmt(r.estimatedTokens)} tokens of ${fmt(r.stats.budget)}; ${pageLine(pg, "turns")}${r.fallback ? `; fallback: ${r.fallback}` : ""}`,
        ];
        for (const t of pg.items) {
          lines.push(
            `${t.id}  ${t.decision}  ${fmt(t.tokensBefore)}→${fmt(t.tokensAfter)}${t.protected ? "  protected" : ""}${t.topic ? `  [${t.topic}]` : ""}  ${t.reason}`,
          );
          if (p.includeContent) {
            const [a, b] = t.range;
            for (const st of r.steps.filter((x) => x.source !== undefined && x.source >= a && x.source < b)) {
              const m = st.message ?? messages[st.source];
              lines.push(renderMessage(m, st.source + 1).replace(/^/gm, "    "));
            }
          }
        }
        if (note) lines.push(note);
        const cut = capText(lines.join("\n"), p.offset ?? 0);
        return {
          text: cut.text,
          details: {
            source,
            budget: r.stats.budget,
            messagesBefore: r.stats.clean.messagesBefore,
            messagesAfter: r.steps.length,
            tokensBefore: r.stats.clean.tokensBefore,
            tokensAfter: r.estimatedTokens,
            page: pg.page,
            pages: pg.pages,
            turns: pg.items.map(({ id, decision, tokensBefore, tokensAfter, topic, reason, protected: prot }) => ({
              id,
              decision,
              tokensBefore,
              tokensAfter,
              topic,
              reason,
              protected: prot,
            })),
            nextOffset: cut.nextOffset,
          },
        };
      },
    },
    {
      name: "context_engine_explain",
      description:
        "For the last request the engine planned in this session: why each turn was kept, cleaned (thinking / finished tool output removed), truncated (huge tool results cut head + tail), summarized or stubbed (folded to one line), with tokens before → after. Filter with decision; paged by turns.",
      parameters: obj({
        decision: { type: "string", enum: ["kept", "cleaned", "truncated", "summarized", "stubbed"], description: "Only turns with this decision." },
        page: PAGE,
        pageSize: pageSize(50),
      }),
      async run({ s }, p) {
        const la = s.lastAssemble;
        if (!la)
          return { text: "no request planned for this session in this process yet (the engine explains the last request it planned)", details: { turns: [] } };
        const r = la.result;
        const turns = (r.turns ?? []).filter((t) => !p.decision || t.decision === p.decision);
        const pg = pageOf(turns, p.page ?? 1, p.pageSize ?? 50);
        const lines = [
          `last request (${la.at}): budget ${fmt(r.stats.budget)}, ~${fmt(r.stats.clean.tokensBefore)}→~${fmt(r.estimatedTokens)} tokens; ${r.stats.turns} turns: kept ${r.stats.kept}, cleaned ${r.stats.cleaned}, truncated ${r.stats.truncated}, summarized ${r.stats.summarized}, stubbed ${r.stats.stubbed}${r.stats.overBudget ? "; OVER BUDGET (protected turns alone exceed it)" : ""}${r.fallback ? `; fallback: ${r.fallback}` : ""}`,
          pageLine(pg, p.decision ? `${p.decision} turns` : "turns"),
          ...pg.items.map(
            (t) =>
              `${t.id}  ${t.decision}  ${fmt(t.tokensBefore)}→${fmt(t.tokensAfter)}${t.protected ? "  protected" : ""}${t.topic ? `  [${t.topic}]` : ""}  ${t.reason}`,
          ),
        ];
        if (r.stats.cleaned + r.stats.kept > 0 && (r.stats.clean.cleanedThink || r.stats.clean.dropTool)) {
          lines.push(
            `cleaner: ${r.stats.clean.cleanedThink} thinking blocks, ${r.stats.clean.cleanedRC} reasoning fields, ${r.stats.clean.dropTool} tool results, ${r.stats.clean.dropAsstTC} call-only messages removed from completed turns`,
          );
        }
        return {
          text: capText(lines.join("\n")).text,
          details: {
            at: la.at,
            stats: r.stats,
            page: pg.page,
            pages: pg.pages,
            turns: pg.items.map(({ id, decision, reason, tokensBefore, tokensAfter, topic, protected: prot }) => ({
              id,
              decision,
              reason,
              tokensBefore,
              tokensAfter,
              topic,
              protected: prot,
            })),
          },
        };
      },
    },
    {
      name: "context_engine_topics",
      description:
        "The session's topics (detected from the turns' vocabulary) and their sub-topics (labels from the background classifier or context_engine_detect_subtopics), each with its turn range (first … last turn id), size and how many of its turns are folded. Paged by topics.",
      parameters: obj({ page: PAGE, pageSize: pageSize(20) }),
      async run({ s }, p) {
        const note = await syncNote(s);
        const w = await s.session();
        const index = w.index();
        const { topics, topicOfTurn } = w.topics();
        const folded = new Set(w.folded());
        const labels = s.state.subtopics ?? {};
        const rows = topics.map((tp) => {
          const turns = index.turns.slice(tp.firstTurn, tp.lastTurn + 1);
          const subs = [];
          for (const t of turns) {
            const label = labels[t.id] ?? null;
            const last = subs[subs.length - 1];
            if (last && last.label === label) {
              last.lastTurnId = t.id;
              last.turns++;
            } else subs.push({ label, firstTurnId: t.id, lastTurnId: t.id, turns: 1 });
          }
          return {
            id: tp.id,
            label: tp.label,
            terms: tp.terms,
            firstTurn: tp.firstTurn,
            lastTurn: tp.lastTurn,
            firstTurnId: turns[0]?.id,
            lastTurnId: turns[turns.length - 1]?.id,
            turns: turns.length,
            folded: turns.filter((t) => folded.has(t.id)).length,
            subtopics: subs.filter((x) => x.label !== null || subs.length > 1),
          };
        });
        const pg = pageOf(rows, p.page ?? 1, p.pageSize ?? 20);
        const lines = [`${rows.length} topic(s) over ${index.turns.length} turns (${topicOfTurn.length} segmented); ${pageLine(pg, "topics")}`];
        for (const t of pg.items) {
          lines.push(
            `#${t.id} "${t.label}": turns ${t.firstTurn + 1}–${t.lastTurn + 1} (${t.turns}; ${t.firstTurnId} … ${t.lastTurnId})${t.folded ? `, ${t.folded} folded` : ""}`,
          );
          for (const x of t.subtopics)
            lines.push(`    - ${x.label === null ? "(unlabelled)" : JSON.stringify(x.label)}: ${x.turns} turn(s), ${x.firstTurnId} … ${x.lastTurnId}`);
        }
        if (note) lines.push(note);
        return { text: capText(lines.join("\n")).text, details: { topics: pg.items, page: pg.page, pages: pg.pages } };
      },
    },
    {
      name: "context_engine_detect_subtopics",
      description:
        "Run sub-topic detection now over the newest turns without a label (or all of them with relabel): one small LLM call per turn when an LLM is available (and useLlm is not false), else a local heuristic that splits each topic where the vocabulary shifts. Labels persist; the engine then stubs old turns of other sub-topics like other topics.",
      parameters: obj({
        maxTurns: { type: "integer", minimum: 1, maximum: MAX_PAGE_SIZE, description: "Label at most this many of the newest turns (default 20)." },
        relabel: { type: "boolean", description: "Also replace existing labels (default false)." },
        useLlm: { type: "boolean", description: "Use the LLM when available (default: the enableLlmConfirmation setting)." },
      }),
      async run({ s, deps, signal }, p) {
        const note = await syncNote(s);
        const w = await s.session();
        const index = w.index();
        const labels = s.state.subtopics ?? (s.state.subtopics = {});
        const want = index.turns.map((t, i) => ({ t, i })).filter(({ t }) => p.relabel || !labels[t.id]);
        const chosen = want.slice(-(p.maxTurns ?? 20));
        const { js } = splitConfig({ ...(deps.config ?? {}), ...(s.state.config ?? {}) });
        const useLlm = p.useLlm ?? js.enableLlmConfirmation;
        const complete = useLlm ? pickComplete(undefined, deps.api) : undefined;
        // the core's deterministic labels: each topic split where the vocabulary shifts
        const heuristic = w.heuristicSubtopics();
        const made = {};
        let byLlm = 0;
        const deadline = Date.now() + TOOL_DEADLINE_MS;
        for (const { t, i } of chosen) {
          if (signal?.aborted || Date.now() > deadline) break;
          let label = null;
          if (complete && !s.llm.exhausted) {
            const prevId = index.turns[i - 1]?.id;
            const prev = prevId ? (made[prevId] ?? labels[prevId]) : undefined;
            const brief = turnAsText(
              [
                { role: "user", content: t.topicUser },
                { role: "assistant", content: t.topicAssistant },
              ],
              600,
            );
            const prompt =
              `Current sub-topic: ${JSON.stringify(prev ?? "none")}.\nTurn:\n${brief}\nTools: ${t.tools.join(", ") || "none"}\n` +
              'Answer only with JSON: {"subtopic": "<2-4 word label>", "isNewSubtopic": true|false}';
            const text = await s.llm.complete(
              complete,
              { messages: [{ role: "user", content: prompt }], maxTokens: 60, purpose: "contextfold.subtopic" },
              { signal, accept: (x) => parseSubtopic(x) !== null },
            );
            const parsed = text ? parseSubtopic(text) : null;
            if (parsed) {
              label = parsed.isNewSubtopic || !prev ? parsed.subtopic : prev;
              byLlm++;
            }
          }
          label ??= heuristic[t.id] ?? null;
          if (label) made[t.id] = label;
        }
        const ids = Object.keys(made);
        if (ids.length) {
          Object.assign(labels, made);
          w.setSubtopics(made);
          await s.saveState();
        }
        const lines = [
          `labelled ${ids.length} turn(s): ${byLlm} by the LLM, ${ids.length - byLlm} by the local heuristic${complete ? "" : " (no LLM used)"}${useLlm && complete && byLlm < ids.length && s.llm.lastError ? `; LLM: ${s.llm.lastError}` : ""}`,
          ...ids.slice(0, 50).map((id) => `- ${id}: ${JSON.stringify(made[id])}`),
          want.length > chosen.length ? `${want.length - chosen.length} older unlabelled turn(s) left; call again with a larger maxTurns` : null,
          note,
        ].filter(Boolean);
        return { text: capText(lines.join("\n")).text, details: { labelled: made, byLlm, heuristic: ids.length - byLlm } };
      },
    },
    {
      name: "session_index_build",
      description:
        "Build or refresh this session's index from its transcript: reads only new entries (a rewrite of the transcript is detected and rebuilt); rebuild: true re-reads everything.",
      parameters: obj({ rebuild: { type: "boolean", description: "Rebuild from the whole transcript (default false)." } }),
      async run({ s }, p) {
        await s.session();
        if (!s.transcript) throw new ToolError("no transcript found for this session (nothing to index)");
        if (p.rebuild) s.cursor = undefined;
        const u = await s.sync();
        const index = await indexOf(s);
        const text = `${p.rebuild ? "rebuilt" : "refreshed"} the index from the ${s.transcript.kind} transcript: ${index.turns.length} turns (${u?.newTurns ?? 0} new), ${index.entries} entries on the active branch${index.skipped ? `, ${index.skipped} skipped` : ""}`;
        return {
          text,
          details: {
            source: s.transcript.kind,
            turns: index.turns.length,
            newTurns: u?.newTurns ?? 0,
            entries: index.entries,
            skipped: index.skipped,
            tip: index.tip,
          },
        };
      },
    },
    {
      name: "session_index_query",
      description:
        "Query this session's index. query: stats (turns, entries, tokens by role and part type, tools used), largest (turns by size), candidates (compression candidates: large turns not recent, pinned, folded or summarized yet — good targets for context_summarize / context_prune), turns (every turn in order). Paged.",
      parameters: obj(
        {
          query: { type: "string", enum: ["stats", "largest", "candidates", "turns"], description: "What to list." },
          page: PAGE,
          pageSize: pageSize(20),
        },
        ["query"],
      ),
      async run({ s }, p) {
        const note = await syncNote(s);
        const index = await indexOf(s);
        const row = (t) => ({
          id: t.id,
          tokens: t.tokens.total,
          tools: t.tools,
          entries: t.entries.length,
          user: t.userPreview,
          assistant: t.assistantPreview,
          compacted: t.compacted || undefined,
        });
        const line = (x) =>
          `${x.id}  ~${fmt(x.tokens)} tok  ${x.entries} entries${x.tools.length ? `  [${x.tools.join(", ")}]` : ""}  ${JSON.stringify(x.user)}${x.compacted ? "  (compacted by the host)" : ""}`;
        if (p.query === "stats") {
          const totals = breakdownTotals(index);
          const tools = {};
          for (const t of index.turns) for (const x of t.tools) tools[x] = (tools[x] ?? 0) + 1;
          const details = {
            turns: index.turns.length,
            entries: index.entries,
            preamble: index.preamble.length,
            skipped: index.skipped,
            compactedTurns: index.turns.filter((t) => t.compacted).length,
            tokens: totals,
            tools,
            firstAt: index.turns[0]?.startedAt ?? null,
            lastAt: index.turns.at(-1)?.endedAt ?? null,
          };
          const text = [
            `${details.turns} turns, ${details.entries} entries (${details.preamble} before the first prompt, ${details.skipped} skipped, ${details.compactedTurns} turns compacted by the host)`,
            `tokens ~${fmt(totals.total)}: user ${fmt(totals.user)}, assistant ${fmt(totals.assistant)}, tool results ${fmt(totals.toolResult)}, other ${fmt(totals.other)}; text ${fmt(totals.text)}, thinking ${fmt(totals.thinking)}, tool calls ${fmt(totals.toolCall)}, images ${fmt(totals.image)}`,
            `tools: ${
              Object.entries(tools)
                .sort((a, b) => b[1] - a[1])
                .map(([k, v]) => `${k}×${v}`)
                .join(", ") || "none"
            }`,
            note,
          ]
            .filter(Boolean)
            .join("\n");
          return { text, details };
        }
        let list = index.turns;
        if (p.query === "largest") list = [...list].sort((a, b) => b.tokens.total - a.tokens.total);
        if (p.query === "candidates") {
          const pins = pinsOf(s);
          const folded = new Set(s.state.folded ?? []);
          const from = index.turns.length - Math.max(1, protectedCount(s));
          list = list
            .filter((t, i) => i < from && !t.compacted && !pinnedInIndex(pins, t) && !folded.has(t.id) && !s.summaries[t.id])
            .sort((a, b) => b.tokens.total - a.tokens.total);
        }
        const pg = pageOf(list.map(row), p.page ?? 1, p.pageSize ?? 20);
        const text = [`${p.query}: ${pageLine(pg, "turns")}`, ...pg.items.map(line), note].filter(Boolean).join("\n");
        return { text: capText(text).text, details: { query: p.query, page: pg.page, pages: pg.pages, total: pg.total, turns: pg.items } };
      },
    },
    {
      name: "session_index_read_raw",
      description:
        "The original transcript entries of a turn as raw JSON lines, exactly as stored (JSONL bytes, or the host's stored events). Paged by lines; a page cut at 64 KB continues with offset.",
      parameters: obj({ turnId: TURN_ID, page: PAGE, pageSize: pageSize(50), offset: OFFSET }, ["turnId"]),
      async run({ s }, p) {
        await syncNote(s);
        const index = await indexOf(s);
        const t = findTurn(index, p.turnId);
        const raw = await rawLines(s, t);
        const pg = pageOf(raw.lines, p.page ?? 1, p.pageSize ?? 50);
        const body = pg.items.join("\n");
        const cut = capText(body, p.offset ?? 0);
        const bytes = Buffer.byteLength(body, "utf8");
        return {
          text: cut.text,
          details: {
            turnId: t.id,
            source: raw.source,
            entryIds: raw.ids.slice((pg.page - 1) * pg.pageSize, pg.page * pg.pageSize),
            page: pg.page,
            pages: pg.pages,
            lines: pg.total,
            bytes,
            nextOffset: cut.nextOffset,
          },
        };
      },
    },
  ];
}

// ------------------------------------------------------------------------------------------
// registration

/**
 * Builds the tools for one tool context. `getDeps` returns the engine's deps (resolved per
 * use: the plugin config hot-reloads).
 */
export function createTools(toolCtx, getDeps) {
  return defineTools().map((def) => ({
    name: def.name,
    label: def.name,
    description: def.description,
    parameters: def.parameters,
    async execute(_toolCallId, params, signal) {
      const args = params ?? {};
      const bad = checkSchema(def.parameters, args, "arguments");
      if (bad) throw new ToolError(`${def.name}: ${bad}`);
      try {
        const ident = identityOf(toolCtx);
        const deps = getDeps();
        const s = await openLive(ident, deps);
        const core = await loadCore();
        const out = await def.run({ s, core, deps, ident, signal, key: sessionKeyOf(ident) }, args);
        const { text } = capText(out.text);
        return { content: [{ type: "text", text }], details: boundDetails(out.details) };
      } catch (err) {
        if (err instanceof ToolError) throw new ToolError(`${def.name}: ${err.message}`);
        throw new Error(`${def.name} failed: ${oneLine(err)}`);
      }
    },
  }));
}

/** Keeps `details` small: a result that would exceed the cap keeps only its scalar fields. */
function boundDetails(d) {
  try {
    if (Buffer.byteLength(JSON.stringify(d ?? null), "utf8") <= MAX_TEXT_BYTES) return d ?? null;
  } catch {
    // not serializable: fall through
  }
  const small = {};
  for (const [k, v] of Object.entries(d ?? {})) if (v === null || typeof v !== "object") small[k] = v;
  return { ...small, truncated: true };
}

/** Registers the agent tools (one factory for all names) and the /contextfold command. */
export function registerTools(api, getDeps) {
  api.registerTool((toolCtx) => createTools(toolCtx, getDeps), { names: [...TOOL_NAMES] });
  registerStatusCommand(api, getDeps, { openLive, statusReport, explain: explainText, topics: topicsText });
}

async function explainText(s) {
  const tool = defineTools().find((t) => t.name === "context_engine_explain");
  return (await tool.run({ s }, { pageSize: 30 })).text;
}

async function topicsText(s) {
  const tool = defineTools().find((t) => t.name === "context_engine_topics");
  return (await tool.run({ s }, { pageSize: 20 })).text;
}
