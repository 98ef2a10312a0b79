// Readers for the inputs the CLI and the playground accept. Pure functions over text (no
// I/O), so every environment shares them:
//   openclaw     OpenClaw session JSONL: a `session` header, entries with id/parentId; the
//                active branch is the parent chain from the newest entry; only `message`
//                entries carry messages
//   claude-code  Claude Code transcript JSONL (uuid/parentUuid, `message` objects)
//   messages     a JSON array of messages (any of the three message shapes)
//   openai       an OpenAI chat request body ({ model?, messages: [...] })
//   anthropic    an Anthropic messages request body ({ system?, messages: [...] })

export const FORMATS = ["auto", "openclaw", "claude-code", "messages", "openai", "anthropic"];

/** An input error that names where the problem is. */
export class InputError extends Error {
  constructor(message) {
    super(message);
    this.name = "InputError";
  }
}

/**
 * Parses JSONL text into entries. A bad line is an error naming the line; an unparsable
 * final line without a trailing newline is what a crashed writer leaves, so it is skipped
 * with a warning.
 */
export function parseJsonl(text, name = "input") {
  const lines = text.split("\n");
  const entries = [];
  const warnings = [];
  const truncatedTail = !text.endsWith("\n");
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i].trim();
    if (!line) continue;
    try {
      entries.push({ line: i + 1, value: JSON.parse(line) });
    } catch (err) {
      if (i === lines.length - 1 && truncatedTail) {
        warnings.push(`${name}:${i + 1}: truncated final line skipped (${err.message})`);
        continue;
      }
      throw new InputError(`${name}:${i + 1}: invalid JSON line (${err.message})`);
    }
  }
  return { entries, warnings };
}

/** Guesses the format of an input text. */
export function detectFormat(text) {
  const head = text.trimStart();
  if (head.startsWith("[")) return "messages";
  const firstLine = head.split("\n", 1)[0];
  let first;
  try {
    first = JSON.parse(firstLine);
  } catch {
    first = undefined;
  }
  if (first && typeof first === "object") {
    if (first.type === "session" || (typeof first.id === "string" && "parentId" in first)) return "openclaw";
    if ("uuid" in first || "parentUuid" in first || "sessionId" in first) return "claude-code";
  }
  if (head.startsWith("{")) {
    let doc;
    try {
      doc = JSON.parse(head);
    } catch {
      doc = undefined;
    }
    if (doc && Array.isArray(doc.messages)) return "system" in doc || doc.messages.some(isAnthropicShaped) ? "anthropic" : "openai";
  }
  throw new InputError("cannot tell the input format; pass --format openclaw|claude-code|messages|openai|anthropic");
}

function isAnthropicShaped(m) {
  return Array.isArray(m?.content) && m.content.some((b) => ["tool_use", "tool_result", "redacted_thinking"].includes(b?.type));
}

/** Follows parent links from the newest entry; returns the entries of the active branch in order. */
function activeBranch(entries, idKey, parentKey, name) {
  const byId = new Map();
  for (const e of entries) {
    const id = e.value[idKey];
    if (typeof id === "string") byId.set(id, e);
  }
  const withId = entries.filter((e) => typeof e.value[idKey] === "string");
  if (withId.length === 0) return [];
  const chain = [];
  const seen = new Set();
  let cur = withId[withId.length - 1];
  while (cur) {
    const id = cur.value[idKey];
    if (seen.has(id)) throw new InputError(`${name}:${cur.line}: parent cycle at entry ${id}`);
    seen.add(id);
    chain.push(cur);
    const parent = cur.value[parentKey];
    cur = parent == null ? undefined : byId.get(parent);
  }
  return chain.reverse();
}

/**
 * Reads an input text into a message array.
 * @returns {{ messages: object[], format: string, warnings: string[], sessionId?: string, entries?: object[] }}
 */
export function readMessages(text, { format = "auto", name = "input" } = {}) {
  if (!FORMATS.includes(format)) throw new InputError(`unknown format "${format}" (expected one of ${FORMATS.join(", ")})`);
  if (format === "auto") format = detectFormat(text);
  if (format === "openclaw" || format === "claude-code") {
    const { entries, warnings } = parseJsonl(text, name);
    const oc = format === "openclaw";
    const branch = activeBranch(entries, oc ? "id" : "uuid", oc ? "parentId" : "parentUuid", name);
    const picked = branch.filter((e) =>
      oc ? e.value.type === "message" && e.value.message : (e.value.type === "user" || e.value.type === "assistant") && e.value.message,
    );
    const header = entries.find((e) => e.value.type === "session");
    return {
      format,
      warnings,
      sessionId: oc ? header?.value.id : entries.find((e) => e.value.sessionId)?.value.sessionId,
      messages: picked.map((e) => e.value.message),
      entries: picked.map((e) => ({ id: e.value[oc ? "id" : "uuid"], line: e.line })),
    };
  }
  let doc;
  try {
    doc = JSON.parse(text);
  } catch (err) {
    throw new InputError(`${name}: invalid JSON (${err.message})`);
  }
  const messages = format === "messages" ? doc : doc?.messages;
  if (!Array.isArray(messages)) throw new InputError(`${name}: expected ${format === "messages" ? "a JSON array of messages" : 'an object with a "messages" array'}`);
  const bad = messages.findIndex((m) => !m || typeof m !== "object" || Array.isArray(m));
  if (bad >= 0) throw new InputError(`${name}: message ${bad} is not an object`);
  return { format, warnings: [], messages };
}

/**
 * The one-shot assemble request for a read session (the CLI and the playground build it the
 * same way, so they show the same result for the same input and settings).
 */
export function assembleRequest(session, { prompt, budget, config } = {}) {
  return {
    messages: session.messages,
    ...(session.entries ? { entries: session.entries } : {}),
    prompt: prompt || null,
    budget: budget || null,
    config: config ?? {},
  };
}
