// Operator commands in the history: which transcript entries and which messages of the host's
// history are a command typed into the chat (`/contextfold`, `/compact`, …) and its reply,
// rather than conversation. Pure (no I/O): the live session feeds the index with the
// transcript entries marked here and plans the host's history with the commands taken out,
// so command turns form no turn, no topic and nothing to fold. It never changes the
// transcript and never decides what a command does.
//
// How a command appears (OpenClaw 2026.9, gateway `chat.send`): the typed text as a user
// message whose idempotencyKey is `<runId>:user`, then the command's reply as an assistant
// message appended by the gateway (provider "openclaw", model "gateway-injected", the same
// `<runId>` as idempotencyKey). Commands the host knows need no context are also flagged
// `excludeFromContext` with `__openclaw.contextFreeCommand`. The host leaves the reply out
// of the model's history but keeps the typed text, as a user message of its own when it is
// the last one, merged into the next prompt's user message (its text parts first) after that.

/** The entry type a marked command entry gets (the index skips entries that are not messages). */
export const COMMAND_ENTRY_TYPE = "contextfold.operator-command";
/** At most this many distinct command texts are remembered per session. */
export const MAX_COMMAND_TEXTS = 200;

/** A transcript message or a message of the host's history, as the host wrote it. @typedef {Record<string, any>} HostMessage */

/** @param {unknown} v @returns {v is HostMessage} */
const isRecord = (v) => v !== null && typeof v === "object" && !Array.isArray(v);

/**
 * The text of a message (string content or its text parts).
 * @param {HostMessage | undefined} m
 * @returns {string}
 */
export function messageText(m) {
  const c = m?.content;
  if (typeof c === "string") return c;
  if (!Array.isArray(c)) return "";
  return c.map((/** @type {any} */ p) => (typeof p?.text === "string" ? p.text : "")).join("\n");
}

/** @param {HostMessage | undefined} m */
const isContextFree = (m) => m?.excludeFromContext === true && m?.__openclaw?.contextFreeCommand === true;

/**
 * True for a command's reply appended by the gateway (never a model's answer).
 * @param {HostMessage | undefined} m
 */
export function isCommandReply(m) {
  if (m?.role !== "assistant") return false;
  return (m.provider === "openclaw" && m.model === "gateway-injected") || isContextFree(m);
}

/**
 * True when `user` is the typed command that `reply` answers.
 * @param {HostMessage | undefined} user
 * @param {HostMessage} reply
 */
function answers(user, reply) {
  if (user?.role !== "user" || !messageText(user).trim().startsWith("/")) return false;
  if (isContextFree(user) && isContextFree(reply)) return true;
  const key = typeof user.idempotencyKey === "string" ? user.idempotencyKey : "";
  return key.endsWith(":user") && key.slice(0, -":user".length) === reply.idempotencyKey;
}

/**
 * Marks the command turns among transcript entries (in branch order): the typed command and
 * its reply get the type `COMMAND_ENTRY_TYPE` (ids and parent ids stay, so the branch is
 * unchanged). Returns the entries (the same array when nothing was marked), the texts of
 * the commands found, and `unanswered`: replies at the start of the entries, whose command
 * came in an earlier read (already indexed as conversation: the caller reads everything again).
 * @param {{type?: string, message?: HostMessage}[]} entries
 * @returns {{entries: {type?: string, message?: HostMessage}[], texts: string[], unanswered: number}}
 */
export function markCommandEntries(entries) {
  const marked = new Set();
  let lastUser = -1;
  let seenMessage = false;
  let unanswered = 0;
  entries.forEach((e, i) => {
    const m = e?.type === "message" || e?.type === undefined ? e?.message : undefined;
    if (!isRecord(m)) return;
    if (isCommandReply(m)) {
      if (lastUser >= 0 && answers(entries[lastUser].message, m)) marked.add(lastUser);
      else if (!seenMessage) unanswered++;
      marked.add(i);
      lastUser = -1;
      seenMessage = true;
      return;
    }
    seenMessage = true;
    lastUser = m.role === "user" ? i : -1;
  });
  if (marked.size === 0) return { entries, texts: [], unanswered };
  /** @type {string[]} */
  const texts = [];
  const out = entries.map((e, i) => {
    if (!marked.has(i)) return e;
    if (e.message?.role === "user") texts.push(messageText(e.message).trim());
    return { ...e, type: COMMAND_ENTRY_TYPE };
  });
  return { entries: out, texts, unanswered };
}

/**
 * Adds command texts to a remembered list (distinct, newest last, bounded).
 * @param {string[] | undefined} list
 * @param {string[]} texts
 */
export function rememberTexts(list, texts) {
  const out = (list ?? []).filter((t) => !texts.includes(t));
  out.push(...new Set(texts));
  return out.slice(-MAX_COMMAND_TEXTS);
}

/**
 * The host's history without the commands in it: a user message that is only a known
 * command (and not answered by the model: the last message, or followed by another user
 * message) is left out; a user message that starts with known commands merged in by the host
 * loses those text parts (and becomes the plain string it was when one text part is left).
 * Returns the same array when there is nothing to take out.
 * @template {HostMessage} M
 * @param {M[]} messages
 * @param {Iterable<string>} texts command texts known from the transcript
 * @returns {M[]}
 */
export function withoutCommands(messages, texts) {
  const known = new Set(texts);
  if (known.size === 0) return messages;
  let changed = false;
  const out = [];
  for (const [i, m] of messages.entries()) {
    if (m?.role !== "user") {
      out.push(m);
      continue;
    }
    if (known.has(messageText(m).trim()) && (i === messages.length - 1 || messages[i + 1]?.role === "user")) {
      changed = true;
      continue;
    }
    if (!Array.isArray(m.content)) {
      out.push(m);
      continue;
    }
    let k = 0;
    while (k < m.content.length - 1 && m.content[k]?.type === "text" && known.has(String(m.content[k].text).trim())) k++;
    if (k === 0) {
      out.push(m);
      continue;
    }
    changed = true;
    const rest = m.content.slice(k);
    const plain = rest.length === 1 && rest[0]?.type === "text" && Object.keys(rest[0]).length === 2;
    out.push({ ...m, content: plain ? rest[0].text : rest });
  }
  return changed ? out : messages;
}
