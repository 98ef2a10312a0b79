// Claude Code transcript JSONL → (a) the Anthropic-shape message list of the active branch and
// (b) an OpenClaw session (EVALUATION.md §3).
//
// Active branch: the parent chain (`parentUuid`) from the newest entry, the newest main-line
// entry when the file mixes in sidechain entries. A compaction boundary (`system` entry with
// `subtype: "compact_boundary"`) has `parentUuid: null` and links the history before it through
// `logicalParentUuid`; by default the chain continues through it so the whole history is kept
// (`acrossCompaction: false` stops there, as a reader that follows `parentUuid` only would).
//
// (a) Anthropic list: the `message` object of every user/assistant entry on the chain, as is
//     (one per entry: Claude Code writes one assistant API response as several entries).
// (b) OpenClaw mapping:
//     assistant entries   consecutive entries with the same `message.id` become one assistant
//                         message; text → text, thinking {thinking, signature} → thinking
//                         {thinking, thinkingSignature}, redacted_thinking {data} → thinking
//                         {thinking:"", thinkingSignature:data, redacted:true}, tool_use
//                         {id, name, input} → toolCall {id, name, arguments}; api
//                         "anthropic-messages", provider "anthropic", model from the message,
//                         usage mapped (input/output/cache read/cache write), stop_reason
//                         end_turn/tool_use/max_tokens → stop/toolUse/length.
//     user entries        a string → one user message; each tool_result block → one toolResult
//                         message (toolName from the call it answers positionally, isError from
//                         is_error, string or text/image blocks → parts); the remaining blocks
//                         (text, image) → one user message after the results.
//     compact boundary    one OpenClaw `compaction` entry whose `summary` is the compact-summary
//                         user message that follows it (`isCompactSummary`), `tokensBefore` from
//                         `compactMetadata.preTokens`, `firstKeptEntryId` the next message entry
//                         (Claude Code keeps nothing from before). With `compaction: "message"`
//                         the summary stays a plain user message and no entry is written.
//     other entries       `system` (hook summaries, ...), `summary`, `file-history-snapshot` are
//                         not messages and are skipped (counted in the meta file).

import { SessionWriter, userMessage, assistantMessage, toolResultMessage, checkPairing, zeroUsage } from "./openclaw.mjs";

/** Parses transcript JSONL; an unparsable final line (a crashed writer) is skipped. */
export function parseTranscript(text, name = "transcript") {
  const lines = text.split("\n");
  const entries = [];
  const warnings = [];
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i].trim();
    if (!line) continue;
    try {
      entries.push(JSON.parse(line));
    } catch (err) {
      if (i >= lines.length - 2 && !text.endsWith("\n")) warnings.push(`${name}:${i + 1}: truncated final line skipped`);
      else throw new Error(`${name}:${i + 1}: invalid JSON line (${err.message})`);
    }
  }
  return { entries, warnings };
}

/**
 * The active chain, oldest first, from the newest entry (main line preferred over sidechain).
 * @returns {{ chain: any[], boundaries: any[] }}
 */
export function activeChain(entries, { acrossCompaction = true } = {}) {
  const withId = entries.filter((e) => typeof e?.uuid === "string");
  if (withId.length === 0) return { chain: [], boundaries: [] };
  const byId = new Map(withId.map((e) => [e.uuid, e]));
  const main = withId.filter((e) => !e.isSidechain);
  let cur = (main.length ? main : withId)[(main.length ? main : withId).length - 1];
  const chain = [];
  const boundaries = [];
  const seen = new Set();
  while (cur) {
    if (seen.has(cur.uuid)) throw new Error(`parent cycle at entry ${cur.uuid}`);
    seen.add(cur.uuid);
    chain.push(cur);
    let parent = cur.parentUuid;
    if (parent == null && acrossCompaction && typeof cur.logicalParentUuid === "string") {
      boundaries.push(cur);
      parent = cur.logicalParentUuid;
    }
    cur = parent == null ? undefined : byId.get(parent);
  }
  return { chain: chain.reverse(), boundaries: boundaries.reverse() };
}

const isMessageEntry = (e) => (e.type === "user" || e.type === "assistant") && e.message && typeof e.message === "object";

/** Anthropic-shape messages of a chain, as is (one per user/assistant entry). */
export function toAnthropicMessages(chain) {
  return chain.filter(isMessageEntry).map((e) => e.message);
}

const STOP = { end_turn: "stop", tool_use: "toolUse", max_tokens: "length", stop_sequence: "stop", pause_turn: "stop", refusal: "stop" };

function mapUsage(u) {
  if (!u || typeof u !== "object") return zeroUsage();
  const usage = zeroUsage();
  usage.input = u.input_tokens ?? 0;
  usage.output = u.output_tokens ?? 0;
  usage.cacheRead = u.cache_read_input_tokens ?? 0;
  usage.cacheWrite = u.cache_creation_input_tokens ?? 0;
  usage.totalTokens = usage.input + usage.output + usage.cacheRead + usage.cacheWrite;
  return usage;
}

/** A content part of a user message or tool result, in OpenClaw shape. */
function mapUserPart(b, counts) {
  if (typeof b === "string") return { type: "text", text: b };
  if (b?.type === "text") return { type: "text", text: String(b.text ?? "") };
  if (b?.type === "image") {
    counts.images++;
    if (b.source?.type === "base64") return { type: "image", data: b.source.data, mimeType: b.source.media_type };
    return { type: "text", text: `[image: ${b.source?.url ?? "unavailable"}]` };
  }
  counts.unknownBlocks++;
  return { type: "text", text: `[${b?.type ?? "block"}] ${JSON.stringify(b)}` };
}

function mapAssistantPart(b, counts) {
  switch (b?.type) {
    case "text":
      counts.text++;
      return { type: "text", text: String(b.text ?? "") };
    case "thinking":
      counts.thinking++;
      return { type: "thinking", thinking: String(b.thinking ?? ""), thinkingSignature: String(b.signature ?? "") };
    case "redacted_thinking":
      counts.redactedThinking++;
      return { type: "thinking", thinking: "", thinkingSignature: String(b.data ?? ""), redacted: true };
    case "tool_use":
    case "server_tool_use":
      counts.toolUse++;
      return { type: "toolCall", id: String(b.id ?? ""), name: String(b.name ?? ""), arguments: b.input && typeof b.input === "object" ? b.input : {} };
    default:
      counts.unknownBlocks++;
      return { type: "text", text: `[${b?.type ?? "block"}] ${JSON.stringify(b)}` };
  }
}

/**
 * Converts one transcript.
 * @param {string} text  JSONL text
 * @param {{ name?: string, acrossCompaction?: boolean, compaction?: "entry"|"message" }} [opts]
 * @returns {{ name: string, jsonl: string, anthropic: any[], messages: any[], meta: any }}
 */
export function convertClaudeCode(text, { name = "claude-code", acrossCompaction = true, compaction = "entry" } = {}) {
  if (!["entry", "message"].includes(compaction)) throw new Error(`unknown compaction mode "${compaction}" (expected entry or message)`);
  const { entries, warnings } = parseTranscript(text, name);
  const { chain, boundaries } = activeChain(entries, { acrossCompaction });
  const anthropic = toAnthropicMessages(chain);
  const first = chain[0] ?? {};
  const sessionId = String(first.sessionId ?? name) + (first.isSidechain && first.agentId ? `-agent-${first.agentId}` : "");
  let lastTs = Date.parse(first.timestamp ?? "") || Date.UTC(2026, 0, 1);
  const tsOf = (e) => {
    const t = Date.parse(e?.timestamp ?? "");
    if (Number.isFinite(t)) lastTs = t;
    return lastTs;
  };
  const w = new SessionWriter({ id: sessionId, timestamp: tsOf(first), cwd: String(first.cwd ?? "/") });
  const counts = {
    text: 0,
    thinking: 0,
    redactedThinking: 0,
    toolUse: 0,
    toolResult: 0,
    images: 0,
    unknownBlocks: 0,
    assistantEntries: 0,
    assistantMessages: 0,
    userEntries: 0,
    metaMessages: 0,
    orphanResults: 0,
    skipped: {},
  };
  const uuidToEntry = {};
  const calls = [];
  const compactions = [];
  let pendingCompaction = null; // boundary waiting for its summary
  let awaitingFirstKept = null; // compaction entry waiting for the next message id
  let group = null; // assistant entries being merged

  const wrote = ({ id }) => {
    if (awaitingFirstKept) {
      awaitingFirstKept.firstKeptEntryId = id;
      awaitingFirstKept = null;
    }
  };
  const flushAssistant = () => {
    if (!group) return;
    const last = group.entries[group.entries.length - 1];
    const content = group.parts.length ? group.parts : [{ type: "text", text: "" }];
    const msg = assistantMessage(content, {
      timestamp: group.ts,
      api: "anthropic-messages",
      provider: "anthropic",
      model: String(last.message.model ?? "unknown"),
      usage: mapUsage(last.message.usage),
      stopReason: STOP[last.message.stop_reason] ?? undefined,
    });
    const loc = w.message(msg);
    wrote(loc);
    counts.assistantMessages++;
    for (const e of group.entries) uuidToEntry[e.uuid] = loc.id;
    for (const p of content) if (p.type === "toolCall") calls.push({ id: p.id, name: p.name, answered: false });
    group = null;
  };
  const writeCompaction = (summaryEntry) => {
    const b = pendingCompaction;
    const summary = summaryEntry ? textOfContent(summaryEntry.message.content) : String(b.content ?? "");
    const fields = {
      summary,
      firstKeptEntryId: null,
      tokensBefore: b.compactMetadata?.preTokens ?? null,
      details: { source: "claude-code", trigger: b.compactMetadata?.trigger ?? null },
    };
    const id = w.entry("compaction", fields, tsOf(b));
    awaitingFirstKept = w.entries[w.entries.length - 1];
    uuidToEntry[b.uuid] = id;
    if (summaryEntry) uuidToEntry[summaryEntry.uuid] = id;
    compactions.push({
      entryId: id,
      boundaryUuid: b.uuid,
      summaryUuid: summaryEntry?.uuid ?? null,
      messagesBefore: w.messages.length,
      tokensBefore: fields.tokensBefore,
    });
    pendingCompaction = null;
  };

  for (const e of chain) {
    if (e.type === "system" && e.subtype === "compact_boundary" && boundaries.includes(e)) {
      flushAssistant();
      if (compaction === "entry") pendingCompaction = e;
      else counts.skipped["system:compact_boundary"] = (counts.skipped["system:compact_boundary"] ?? 0) + 1;
      continue;
    }
    if (!isMessageEntry(e)) {
      const key = `${e.type}${e.subtype ? `:${e.subtype}` : ""}`;
      counts.skipped[key] = (counts.skipped[key] ?? 0) + 1;
      continue;
    }
    if (e.type === "assistant") {
      counts.assistantEntries++;
      if (pendingCompaction) writeCompaction(null);
      const mid = e.message.id;
      if (group && !(mid && group.id === mid)) flushAssistant();
      if (!group) group = { id: mid, ts: tsOf(e), entries: [], parts: [] };
      else tsOf(e);
      group.entries.push(e);
      const blocks =
        typeof e.message.content === "string" ? [{ type: "text", text: e.message.content }] : Array.isArray(e.message.content) ? e.message.content : [];
      for (const b of blocks) group.parts.push(mapAssistantPart(b, counts));
      continue;
    }
    // user entry
    flushAssistant();
    counts.userEntries++;
    if (e.isMeta) counts.metaMessages++;
    if (pendingCompaction) {
      if (e.isCompactSummary) {
        writeCompaction(e);
        continue;
      }
      writeCompaction(null);
    }
    const t = tsOf(e);
    const content = e.message.content;
    if (typeof content === "string") {
      const loc = w.message(userMessage(content, t));
      wrote(loc);
      uuidToEntry[e.uuid] = loc.id;
      continue;
    }
    const blocks = Array.isArray(content) ? content : [];
    const ids = [];
    const rest = [];
    for (const b of blocks) {
      if (b?.type !== "tool_result") {
        rest.push(mapUserPart(b, counts));
        continue;
      }
      counts.toolResult++;
      const id = String(b.tool_use_id ?? "");
      let call = null;
      for (let i = calls.length - 1; i >= 0; i--) {
        if (!calls[i].answered && calls[i].id === id) {
          call = calls[i];
          break;
        }
      }
      if (call) call.answered = true;
      else counts.orphanResults++;
      const parts =
        typeof b.content === "string"
          ? [{ type: "text", text: b.content }]
          : Array.isArray(b.content)
            ? b.content.map((p) => mapUserPart(p, counts))
            : [{ type: "text", text: "" }];
      const loc = w.message(
        toolResultMessage({ toolCallId: id, toolName: call?.name ?? "unknown", content: parts, isError: b.is_error === true, timestamp: t }),
      );
      wrote(loc);
      ids.push(loc.id);
    }
    if (rest.length || ids.length === 0) {
      const loc = w.message({ role: "user", content: rest.length ? rest : [{ type: "text", text: "" }], timestamp: t });
      wrote(loc);
      ids.push(loc.id);
    }
    uuidToEntry[e.uuid] = ids.length === 1 ? ids[0] : ids;
  }
  flushAssistant();
  if (pendingCompaction) writeCompaction(null);

  const pairing = checkPairing(w.messages);
  const jsonl = w.toJsonl();
  const meta = {
    format: "contextfold-bench/claude-code@1",
    name,
    session: `${name}.jsonl`,
    messagesFile: `${name}.messages.json`,
    sessionId,
    sidechain: Boolean(first.isSidechain),
    agentId: first.agentId ?? null,
    acrossCompaction,
    compactionMode: compaction,
    warnings,
    chain: {
      fileEntries: entries.length,
      chainEntries: chain.length,
      newestUuid: chain[chain.length - 1]?.uuid ?? null,
      boundariesCrossed: boundaries.map((b) => b.uuid),
    },
    anthropicMessages: anthropic.length,
    anthropicUuids: chain.filter(isMessageEntry).map((e) => e.uuid),
    messages: w.messages.length,
    counts,
    compactions,
    pairing: { pairs: pairing.pairs.length, violations: pairing.violations, openAtEnd: pairing.openAtEnd },
    uuidToEntryId: uuidToEntry,
    bytes: Buffer.byteLength(jsonl),
  };
  return { name, jsonl, anthropic, messages: w.messages, meta };
}

function textOfContent(content) {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return content.map((b) => (typeof b === "string" ? b : b?.type === "text" ? String(b.text ?? "") : "")).join("\n");
}
