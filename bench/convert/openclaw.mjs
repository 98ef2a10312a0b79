// Building blocks shared by the dataset converters: an OpenClaw session writer (transcript
// format v4, one linear branch, deterministic ids and timestamps), the AgentMessage shapes
// the converters emit, the positional call/result pairing check (PROVIDERS.md rules 1, 2
// and 4) and the text a benchmark searches when it asks "does this string survive?".
// Pure functions and plain objects: no I/O, no clock, no randomness.

/** Zero usage, in the shape AssistantMessage.usage has (the datasets carry no usage). */
export function zeroUsage() {
  return {
    input: 0,
    output: 0,
    cacheRead: 0,
    cacheWrite: 0,
    totalTokens: 0,
    cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 },
  };
}

/** ISO 8601 text of a millisecond timestamp (always UTC, always with milliseconds). */
export const iso = (ms) => new Date(ms).toISOString();

/** A user message with one text part. */
export function userMessage(text, timestamp) {
  return { role: "user", content: [{ type: "text", text }], timestamp };
}

/**
 * An assistant message. `content` is an array of text / thinking / toolCall parts;
 * `stopReason` defaults to "toolUse" when a toolCall part is present, else "stop".
 * @param {any[]} content
 * @param {{timestamp?: number, api?: string, provider?: string, model?: string, usage?: object, stopReason?: string}} [o]
 */
export function assistantMessage(content, { timestamp, api, provider, model, usage, stopReason } = {}) {
  return {
    role: "assistant",
    content,
    api,
    provider,
    model,
    usage: usage ?? zeroUsage(),
    stopReason: stopReason ?? (content.some((p) => p.type === "toolCall") ? "toolUse" : "stop"),
    timestamp,
  };
}

/** A tool result message; `content` is a string (one text part) or an array of parts. */
export function toolResultMessage({ toolCallId, toolName, content, isError = false, timestamp }) {
  return {
    role: "toolResult",
    toolCallId,
    toolName,
    content: typeof content === "string" ? [{ type: "text", text: content }] : content,
    isError,
    timestamp,
  };
}

/**
 * Writes one OpenClaw session: a `session` header, then entries chained by `parentId`
 * (a single branch, so the active branch is every entry). Entry ids are `m0001`, `m0002`, ...
 * in write order; `messages` holds the messages in order, so a message's index here is its
 * index in the list the engine receives.
 */
export class SessionWriter {
  constructor({ id, timestamp, cwd }) {
    this.header = { type: "session", version: 4, id, timestamp: iso(timestamp), cwd };
    this.entries = [];
    this.messages = [];
    this.messageEntryIds = [];
    this.seq = 0;
    this.parent = null;
  }

  /** Appends a non-message entry (e.g. `compaction`); returns its id. */
  entry(type, fields, timestampMs) {
    const id = `m${String(++this.seq).padStart(4, "0")}`;
    this.entries.push({ type, id, parentId: this.parent, timestamp: iso(timestampMs), ...fields });
    this.parent = id;
    return id;
  }

  /** Appends a message entry; returns `{ id, index }` (entry id, index in the message list). */
  message(message, timestampMs = message.timestamp) {
    const id = this.entry("message", { message }, timestampMs);
    this.messages.push(message);
    this.messageEntryIds.push(id);
    return { id, index: this.messages.length - 1 };
  }

  /** The next message's index (before it is written). */
  get nextIndex() {
    return this.messages.length;
  }

  /** The session as JSONL text (header first, one entry a line, trailing newline). */
  toJsonl() {
    return [this.header, ...this.entries].map((o) => JSON.stringify(o)).join("\n") + "\n";
  }
}

/**
 * The text of a message a benchmark searches for surviving strings: text and thinking
 * parts, tool call names with their JSON arguments, tool result text. Parts are joined
 * with "\n".
 */
export function messageSearchText(message) {
  const content = message?.content;
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return typeof message?.summary === "string" ? message.summary : "";
  const out = [];
  for (const p of content) {
    if (!p || typeof p !== "object") continue;
    if (p.type === "text" && typeof p.text === "string") out.push(p.text);
    else if (p.type === "thinking" && typeof p.thinking === "string") out.push(p.thinking);
    else if (p.type === "toolCall") out.push(`${p.name} ${typeof p.arguments === "string" ? p.arguments : JSON.stringify(p.arguments ?? {})}`);
  }
  return out.join("\n");
}

/**
 * Checks positional call/result pairing over an OpenClaw message list (PROVIDERS.md rules
 * 1, 2 and 4): every toolResult answers an unanswered toolCall with its id in the nearest
 * preceding assistant message; every toolCall is answered before the next user or assistant
 * message. Calls still open at the very end are the live tool loop and are reported apart.
 * @returns {{ violations: {index: number, kind: string, id?: string}[], pairs: {call: number, result: number, id: string}[], openAtEnd: number }}
 */
export function checkPairing(messages) {
  const violations = [];
  const pairs = [];
  let pending = []; // { id, index, answered }
  const flush = () => {
    for (const c of pending) if (!c.answered) violations.push({ index: c.index, kind: "unanswered-call", id: c.id });
    pending = [];
  };
  messages.forEach((m, index) => {
    if (m.role === "toolResult") {
      const call = pending.find((c) => !c.answered && c.id === m.toolCallId);
      if (!call) violations.push({ index, kind: "orphan-result", id: m.toolCallId });
      else {
        call.answered = true;
        pairs.push({ call: call.index, result: index, id: call.id });
      }
      return;
    }
    if (m.role === "user" || m.role === "assistant") flush();
    if (m.role === "assistant" && Array.isArray(m.content)) {
      pending = m.content.filter((p) => p?.type === "toolCall").map((p) => ({ id: p.id, index, answered: false }));
    }
  });
  const openAtEnd = pending.filter((c) => !c.answered).length;
  return { violations, pairs, openAtEnd };
}

/** Total characters of text a message carries (see messageSearchText). */
export const messageChars = (m) => messageSearchText(m).length;
