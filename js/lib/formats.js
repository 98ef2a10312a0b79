// Which wire shape an array of messages has: OpenAI chat, Anthropic messages or OpenClaw
// AgentMessages. The core reads all three alike (crate/src/model/message.rs), so the shape decides
// nothing there; it is reported back to the caller, and a format the caller names is checked
// against the messages, so that a history from the wrong source is refused with the position
// of the first message that does not fit instead of being planned as if it did.
// Pure: never calls the core, never changes a message.
import { InputError } from "../core/readers.js";

/** The shapes a message array can have. */
export const SHAPES = Object.freeze(["openai", "anthropic", "openclaw"]);
/** What a caller may name: a shape, `messages` (any shape, not checked) or `auto`. */
export const ARRAY_FORMATS = Object.freeze(["auto", ...SHAPES, "messages"]);

const OPENCLAW_ROLES = new Set(["toolResult", "custom", "compactionSummary", "branchSummary", "bashExecution"]);
const OPENAI_ROLES = new Set(["tool", "system", "developer", "function"]);
const ANTHROPIC_PARTS = new Set(["tool_use", "tool_result", "redacted_thinking", "server_tool_use", "web_search_tool_result", "document"]);
const OPENAI_PARTS = new Set(["image_url", "input_audio", "file", "refusal"]);

/**
 * What marks one message as one shape: `{shape, why}`, or undefined when the message is
 * valid in all three (a plain user or assistant text message).
 * @param {any} m
 * @returns {{shape: string, why: string} | undefined}
 */
export function markOf(m) {
  const role = m?.role;
  if (OPENCLAW_ROLES.has(role)) return { shape: "openclaw", why: `role "${role}"` };
  if (OPENAI_ROLES.has(role)) return { shape: "openai", why: `role "${role}"` };
  if (m?.tool_calls !== undefined) return { shape: "openai", why: "tool_calls" };
  if (m?.reasoning_content !== undefined) return { shape: "openai", why: "reasoning_content" };
  for (const p of Array.isArray(m?.content) ? m.content : []) {
    const type = p?.type;
    if (type === "toolCall") return { shape: "openclaw", why: 'a "toolCall" part' };
    if (type === "thinking" && p.thinkingSignature !== undefined) return { shape: "openclaw", why: "a thinking part with thinkingSignature" };
    if (type === "image" && typeof p.data === "string") return { shape: "openclaw", why: "an image part with data" };
    if (ANTHROPIC_PARTS.has(type)) return { shape: "anthropic", why: `a "${type}" block` };
    if (type === "thinking" && p.signature !== undefined) return { shape: "anthropic", why: "a thinking block with signature" };
    if (type === "image" && p.source !== undefined) return { shape: "anthropic", why: "an image block with source" };
    if (OPENAI_PARTS.has(type)) return { shape: "openai", why: `a "${type}" part` };
  }
  // OpenClaw stamps every message it keeps; the provider APIs have no such field.
  if (typeof m?.timestamp === "number" && (role === "user" || role === "assistant")) return { shape: "openclaw", why: "a numeric timestamp" };
  return undefined;
}

/**
 * The shape of `messages`: the one its messages mark, `"messages"` when none marks any (or
 * they mark several). With a named `format`, a message marked as another shape is an error.
 * @param {readonly any[]} messages
 * @param {string} [format] one of ARRAY_FORMATS
 * @returns {string}
 * @throws {InputError} when a message is not an object, or does not fit the named shape
 */
export function shapeOf(messages, format = "auto") {
  if (!ARRAY_FORMATS.includes(format)) {
    throw new InputError(`unknown format "${format}" for an array of messages (expected ${ARRAY_FORMATS.join(", ")})`);
  }
  const check = SHAPES.includes(format);
  const seen = new Map();
  for (let i = 0; i < messages.length; i++) {
    const m = messages[i];
    if (m === null || typeof m !== "object" || Array.isArray(m)) throw new InputError(`message ${i} is not an object`);
    const mark = markOf(m);
    if (!mark) continue;
    if (check && mark.shape !== format) {
      throw new InputError(`message ${i} is not ${NAMES[format]}: ${mark.why} is ${NAMES[mark.shape]}`);
    }
    if (!seen.has(mark.shape)) seen.set(mark.shape, i);
  }
  if (format !== "auto") return format;
  return seen.size === 1 ? [...seen.keys()][0] : "messages";
}

/** @type {Record<string, string>} */
const NAMES = { openai: "OpenAI chat", anthropic: "Anthropic messages", openclaw: "OpenClaw AgentMessage" };
