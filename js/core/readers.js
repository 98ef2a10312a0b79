// Readers for the inputs the CLI and the playground accept, and the JSONL rules the plugin's
// transcript reader shares with them. Pure functions over text or bytes (no I/O), so every
// environment shares them:
//   openclaw     OpenClaw session JSONL: a `session` header, entries with id/parentId; the
//                active branch is the parent chain from the newest entry; only `message`
//                entries carry messages
//   claude-code  Claude Code transcript JSONL (uuid/parentUuid, `message` objects)
//   messages     a JSON array of messages (any of the three message shapes)
//   openai       an OpenAI chat request body ({ model?, messages: [...] })
//   anthropic    an Anthropic messages request body ({ system?, messages: [...] })
//
// JSONL rules (the CLI, the playground and the plugin's transcript reader apply the same ones,
// and say the same thing about the same line; `name:LINE` names a line, `byte N` an offset):
//   * blank lines are ignored; a byte order mark at the start of the file is ignored;
//   * a line that is not valid UTF-8 is decoded with replacement characters and a warning
//     names the line and the offset of the first bad byte; its byte range still points at
//     the exact original bytes, so recovery returns them unchanged;
//   * a line that is not JSON is an error naming the line (CLI, playground), or is skipped
//     with a warning (the plugin, which must never stop an agent's turn);
//   * a last line without a newline is used when it is a complete JSON value; otherwise it is
//     what a crashed (or still writing) writer leaves: skipped with a warning (the plugin
//     leaves it for its next read);
//   * an entry without an id is skipped with a warning; a line that repeats an earlier id
//     replaces it (as the host does) with a warning;
//   * the active branch is the parent chain from the newest entry (the host's rule); a parent
//     cycle cuts the chain with a warning; a parent that is not in the file ends it with a
//     warning; an entry that comes before its parent's line is reported, and so is every
//     message entry it takes off the active branch.

/** @import { Message } from "./types.js" */

/**
 * One line of a scanned JSONL input: its 1-based number (undefined when unknown), its file
 * offsets (newline included) and its parsed value.
 * @typedef {{line: number | undefined, start: number, end: number, value: any}} JsonlRecord
 */

/**
 * A transcript entry as the core's index takes it.
 * @typedef {{id: string, parentId: string | null, type: string, message?: Message, firstKeptEntryId?: string, range?: [number, number], seq?: number}} TranscriptEntry
 */

/**
 * An input read into messages. `entries`: the transcript entry of each message;
 * `transcriptEntries` (OpenClaw): every entry with an id, as the core's index takes them.
 * @typedef {object} ReadInput
 * @property {Message[]} messages
 * @property {string} format
 * @property {string[]} warnings
 * @property {string} [sessionId]
 * @property {{id: string, line: number | undefined, range: [number, number]}[]} [entries]
 * @property {TranscriptEntry[]} [transcriptEntries]
 */

/** @typedef {{id: string, parent: string, header: (v: any) => boolean, carries: (v: any) => boolean}} Shape */

export const FORMATS = ["auto", "openclaw", "claude-code", "messages", "openai", "anthropic"];

/** An input error that names where the problem is. */
export class InputError extends Error {
  /** @param {string} message */
  constructor(message) {
    super(message);
    this.name = "InputError";
  }
}

const NL = 0x0a;
const CR = 0x0d;
// Node's Buffer#toString("utf8") keeps a byte order mark and replaces invalid sequences; so
// does a non-fatal decoder that does not strip the BOM.
const decoder = new TextDecoder("utf-8", { ignoreBOM: true });
const encoder = new TextEncoder();

/**
 * @param {Uint8Array} bytes
 * @param {number} start
 * @param {number} end
 * @returns {string}
 */
function decodeRange(bytes, start, end) {
  if (typeof (/** @type {any} */ (bytes).utf8Slice) === "function") return /** @type {Buffer} */ (bytes).toString("utf8", start, end); // Node Buffer: faster
  return decoder.decode(bytes.subarray(start, end));
}

/**
 * Offset (relative to `bytes`) of the first byte in `[start, end)` that is not part of a
 * well-formed UTF-8 sequence, or -1 when the range is valid UTF-8.
 * @param {Uint8Array} bytes
 */
export function invalidUtf8At(bytes, start = 0, end = bytes.length) {
  let i = start;
  while (i < end) {
    const b = bytes[i];
    if (b < 0x80) {
      i++;
      continue;
    }
    let n;
    let min;
    if (b >= 0xc2 && b <= 0xdf) [n, min] = [1, 0x80];
    else if (b >= 0xe0 && b <= 0xef) [n, min] = [2, 0x800];
    else if (b >= 0xf0 && b <= 0xf4) [n, min] = [3, 0x10000];
    else return i;
    if (i + n >= end) return i; // the sequence is cut off
    let cp = b & (0x3f >> n);
    for (let k = 1; k <= n; k++) {
      const c = bytes[i + k];
      if ((c & 0xc0) !== 0x80) return i;
      cp = (cp << 6) | (c & 0x3f);
    }
    if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) return i;
    i += n + 1;
  }
  return -1;
}

/** @param {Uint8Array} bytes */
function defaultIsUtf8(bytes) {
  return invalidUtf8At(bytes) < 0;
}

/**
 * Scans JSONL bytes (a Uint8Array or Buffer that starts at byte `base` of the file) into
 * records `{line, start, end, value}` (`start`/`end`: file offsets of the line, newline
 * included; `line`: 1-based line number, or undefined when `firstLine` is unknown).
 *
 * @param {Uint8Array} bytes
 * @param {object} [o]
 * @param {string} [o.name]        the input's name in messages
 * @param {number} [o.base]        file offset of `bytes[0]`
 * @param {number} [o.firstLine]   line number of the first line in `bytes` (undefined: unknown)
 * @param {boolean} [o.strict]     a line that is not JSON throws an InputError (else: warning)
 * @param {boolean} [o.final]      the bytes end the input (else an unfinished last line is left for later)
 * @param {(b: Uint8Array) => boolean} [o.isUtf8] a fast validity check (Node: `buffer.isUtf8`)
 * @returns {{records: JsonlRecord[], warnings: string[], end: number, nextLine: number | undefined}}
 *   `end`: the file offset after the last consumed line; `nextLine`: the line number there
 */
export function scanJsonl(bytes, { name = "input", base = 0, firstLine = 1, strict = false, final = true, isUtf8 = defaultIsUtf8 } = {}) {
  /** @type {JsonlRecord[]} */
  const records = [];
  /** @type {string[]} */
  const warnings = [];
  /** @type {(line: number | undefined, offset: number) => string} */
  const where = (line, offset) => (line !== undefined ? `${name}:${line}` : `${name}@${offset}`);
  const checkLines = !isUtf8(bytes);
  let start = base === 0 && bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf ? 3 : 0;
  /** @type {number | undefined} */
  let line = firstLine;
  const next = () => (line === undefined ? undefined : line + 1);
  while (start < bytes.length) {
    let nl = bytes.indexOf(NL, start);
    const last = nl < 0;
    if (last) nl = bytes.length;
    let stop = nl;
    if (stop > start && bytes[stop - 1] === CR) stop--;
    // Blank lines (also whitespace-only ones) are skipped silently.
    let a = start;
    while (a < stop && (bytes[a] === 0x20 || bytes[a] === 0x09)) a++;
    if (a < stop) {
      const at = where(line, base + start);
      let bad = -1;
      if (checkLines && !isUtf8(bytes.subarray(a, stop))) bad = invalidUtf8At(bytes, a, stop);
      const text = decodeRange(bytes, a, stop);
      let value;
      let error;
      try {
        value = JSON.parse(text);
      } catch (err) {
        error = err;
      }
      if (error && last && !final) break; // still being written: read again later
      if (error && last) {
        warnings.push(`${at}: truncated final line skipped (byte ${base + start}, ${nl - start} bytes: ${error.message})`);
        start = nl;
        break;
      }
      if (bad >= 0)
        warnings.push(`${at}: invalid UTF-8 at byte ${base + bad}; the line is read with replacement characters (its original bytes are kept for recovery)`);
      if (error) {
        const msg = `${at}: invalid JSON line (byte ${base + start}: ${error.message})`;
        if (strict) throw new InputError(msg);
        warnings.push(`${msg}; skipped`);
      } else {
        records.push({ line, start: base + start, end: base + (last ? nl : nl + 1), value });
      }
    }
    if (last) {
      start = nl;
      break;
    }
    start = nl + 1;
    line = next();
  }
  if (start < bytes.length)
    warnings.push(`${where(line, base + start)}: incomplete last line left for later (byte ${base + start}, ${bytes.length - start} bytes)`);
  return { records, warnings, end: base + start, nextLine: line };
}

/**
 * Converts one OpenClaw JSONL value into an index entry (null for the header and entries
 * without an id). A parent id or type that is not a string cannot name anything: the entry
 * then starts a chain (as an unknown parent does) or is of no known type, and the core's
 * index never refuses the whole batch over one such line.
 * @param {any} value
 * @param {[number, number]} [range]
 * @returns {TranscriptEntry | null}
 */
export function toEntry(value, range) {
  if (!value || typeof value !== "object" || typeof value.id !== "string") return null;
  if (value.type === "session") return null;
  const type = value.type == null ? "message" : typeof value.type === "string" ? value.type : "unknown";
  /** @type {TranscriptEntry} */
  const e = { id: value.id, parentId: typeof value.parentId === "string" ? value.parentId : null, type };
  if (value.type === "message" && value.message && typeof value.message === "object") e.message = value.message;
  if (value.type === "compaction" && typeof value.firstKeptEntryId === "string") e.firstKeptEntryId = value.firstKeptEntryId;
  if (range) e.range = range;
  return e;
}

/** @type {Record<string, Shape>} */
const SHAPES = {
  openclaw: { id: "id", parent: "parentId", header: (v) => v.type === "session", carries: (v) => v.type === "message" },
  "claude-code": { id: "uuid", parent: "parentUuid", header: () => false, carries: (v) => v.type === "user" || v.type === "assistant" },
};

/**
 * @param {any} v
 * @param {Shape} shape
 */
function hasMessage(v, shape) {
  return shape.carries(v) && v.message != null && typeof v.message === "object" && !Array.isArray(v.message);
}

/**
 * The entries of a scanned transcript with ids, and the warnings about the rest (entries
 * without an id, repeated ids, message entries without a message object).
 * @param {JsonlRecord[]} records
 * @param {{format?: string, name?: string}} [o]
 * @returns {{nodes: JsonlRecord[], byId: Map<string, JsonlRecord>, warnings: string[]}}
 */
export function transcriptNodes(records, { format = "openclaw", name = "input" } = {}) {
  const shape = SHAPES[format];
  /** @type {string[]} */
  const warnings = [];
  /** @type {JsonlRecord[]} */
  const nodes = [];
  /** @type {Map<string, JsonlRecord>} */
  const byId = new Map();
  /** @param {JsonlRecord} r */
  const at = (r) => (r.line !== undefined ? `${name}:${r.line}` : `${name}@${r.start}`);
  for (const r of records) {
    const v = r.value;
    if (!v || typeof v !== "object" || Array.isArray(v)) {
      warnings.push(`${at(r)}: not a transcript entry (a JSON ${Array.isArray(v) ? "array" : v === null ? "null" : typeof v}); skipped`);
      continue;
    }
    if (shape.header(v)) continue;
    const id = v[shape.id];
    if (shape.carries(v) && !hasMessage(v, shape)) warnings.push(`${at(r)}: ${v.type} entry without a message object; it carries nothing`);
    if (typeof id !== "string") {
      // Claude Code writes bookkeeping lines without ids (summaries, snapshots): only a
      // message without an id is worth a warning there.
      if (format === "openclaw" || hasMessage(v, shape))
        warnings.push(`${at(r)}: entry without an id skipped${hasMessage(v, shape) ? ` (role ${JSON.stringify(String(v.message.role ?? "?"))})` : ""}`);
      continue;
    }
    const prev = byId.get(id);
    if (prev)
      warnings.push(
        `${at(r)}: duplicate id ${JSON.stringify(id)} (also ${prev.line !== undefined ? `line ${prev.line}` : `byte ${prev.start}`}); the later line is used`,
      );
    byId.set(id, r);
    nodes.push(r);
  }
  return { nodes, byId, warnings };
}

/** The core's branch rule, as `core.activeBranch` offers it. @typedef {{activeBranch: (links: {id?: string | null, parentId?: string | null}[]) => {positions: number[], end: "root" | "cycle" | "unknownParent"}}} BranchRule */

/**
 * The active branch of a scanned transcript, oldest first, chosen by the core's rule (the
 * host's: the parent chain from the newest entry with an id), with warnings where the
 * transcript is damaged (a parent cycle, an unknown parent, entries before their parent).
 * @param {JsonlRecord[]} records
 * @param {{format?: string, name?: string, core: BranchRule}} o
 * @returns {{branch: JsonlRecord[], warnings: string[]}}
 */
export function activeBranch(records, { format = "openclaw", name = "input", core }) {
  const shape = SHAPES[format];
  const { nodes, byId, warnings } = transcriptNodes(records, { format, name });
  /** @param {JsonlRecord} r */
  const at = (r) => (r.line !== undefined ? `${name}:${r.line}` : `${name}@${r.start}`);
  /** @param {JsonlRecord} r */
  const ref = (r) => (r.line !== undefined ? `line ${r.line}` : `byte ${r.start}`);
  // The newest occurrence of each id is the entry; earlier ones are replaced.
  const live = nodes.filter((r) => byId.get(r.value[shape.id]) === r);
  if (live.length === 0) return { branch: [], warnings };
  const links = nodes.map((r) => ({ id: r.value[shape.id], parentId: typeof r.value[shape.parent] === "string" ? r.value[shape.parent] : null }));
  const found = core.activeBranch(links);
  /** @type {JsonlRecord[]} */
  const chain = found.positions.map((i) => /** @type {JsonlRecord} */ (nodes[i]));
  const onBranch = new Set(chain.map((r) => r.value[shape.id]));
  const oldest = /** @type {JsonlRecord} */ (chain[0]);
  /** @type {JsonlRecord | undefined} */
  const cut = found.end === "cycle" ? oldest : undefined; // the entry whose parent link closes a cycle
  if (cut) warnings.push(`${at(cut)}: parent cycle at entry ${JSON.stringify(cut.value[shape.parent])}; the active branch starts after it`);
  // A parent that is not a string names no entry: the core starts the chain there, as at an unknown parent.
  if (found.end === "unknownParent" || (found.end === "root" && oldest.value[shape.parent] != null))
    warnings.push(
      `${at(oldest)}: parent ${JSON.stringify(oldest.value[shape.parent])} of entry ${JSON.stringify(oldest.value[shape.id])} is not in the transcript; the active branch starts here`,
    );
  // Entries written before their parent's line: reported, and so are the messages they take
  // off the active branch (the host's newest entry decides the branch).
  const tip = chain[chain.length - 1];
  /** @param {JsonlRecord} r */
  const early = (r) => {
    const parent = r.value[shape.parent];
    const p = parent == null || r === cut ? undefined : byId.get(parent);
    return p && p.start > r.start ? p : undefined;
  };
  let off = 0;
  for (const r of live) {
    const parent = r.value[shape.parent];
    const p = early(r);
    if (p) {
      const where = onBranch.has(r.value[shape.id])
        ? "on the active branch in parent order"
        : `not on the active branch, which ends at the newest entry ${JSON.stringify(tip.value[shape.id])} (${ref(tip)})`;
      warnings.push(`${at(r)}: entry ${JSON.stringify(r.value[shape.id])} comes before its parent ${JSON.stringify(parent)} (${ref(p)}); ${where}`);
    }
  }
  // Messages off the branch because of such disorder are counted (a normal abandoned branch
  // is not a problem and is not reported).
  const misplaced = new Set(live.filter(early).map((r) => r.value[shape.id]));
  if (misplaced.size > 0) {
    /** @type {Map<string, JsonlRecord[]>} */
    const children = new Map();
    for (const r of live) {
      const parent = r.value[shape.parent];
      if (parent == null) continue;
      if (!children.has(parent)) children.set(parent, []);
      children.get(parent)?.push(r);
    }
    const stack = live.filter((r) => misplaced.has(r.value[shape.id]) && !onBranch.has(r.value[shape.id]));
    const seen = new Set();
    while (stack.length) {
      const r = /** @type {JsonlRecord} */ (stack.pop());
      const id = r.value[shape.id];
      if (seen.has(id) || onBranch.has(id)) continue;
      seen.add(id);
      if (hasMessage(r.value, shape)) off++;
      for (const c of children.get(id) ?? []) stack.push(c);
    }
    if (off > 0) warnings.push(`${name}: ${off} message${off === 1 ? "" : "s"} left off the active branch by entries out of order`);
  }
  return { branch: chain, warnings };
}

/**
 * Guesses the format of an input text.
 * @param {string} text
 */
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

/** @param {any} m */
function isAnthropicShaped(m) {
  return Array.isArray(m?.content) && m.content.some((/** @type {any} */ b) => ["tool_use", "tool_result", "redacted_thinking"].includes(b?.type));
}

/**
 * The format of bytes, deciding from the first line when it is a transcript line.
 * @param {Uint8Array} bytes
 */
function detectBytes(bytes) {
  let a = bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf ? 3 : 0;
  while (a < bytes.length && (bytes[a] === 0x20 || bytes[a] === 0x09 || bytes[a] === NL || bytes[a] === CR)) a++;
  if (bytes[a] === 0x7b) {
    let nl = bytes.indexOf(NL, a);
    if (nl < 0) nl = bytes.length;
    try {
      const f = detectFormat(decodeRange(bytes, a, nl));
      if (f === "openclaw" || f === "claude-code") return f;
    } catch {
      // not a transcript line: decide on the whole text
    }
  }
  return undefined;
}

/**
 * Reads an input (text, or bytes: a Uint8Array / Buffer) into a message array.
 * @param {string|Uint8Array} input
 * @param {object} o
 * @param {string} [o.format]
 * @param {string} [o.name]
 * @param {(b: Uint8Array) => boolean} [o.isUtf8] a fast UTF-8 check (Node: `buffer.isUtf8`)
 * @param {BranchRule} o.core the core, whose rule picks a transcript's active branch
 * @returns {ReadInput}
 */
export function readMessages(input, { format = "auto", name = "input", isUtf8, core }) {
  if (!FORMATS.includes(format)) throw new InputError(`unknown format "${format}" (expected one of ${FORMATS.join(", ")})`);
  const isBytes = typeof input !== "string";
  if (format === "auto") format = (isBytes ? detectBytes(input) : undefined) ?? detectFormat(isBytes ? decodeRange(input, 0, input.length) : input);
  if (format === "openclaw" || format === "claude-code") {
    const bytes = isBytes ? input : encoder.encode(input);
    const scan = scanJsonl(bytes, { name, strict: true, final: true, ...(isUtf8 ? { isUtf8 } : {}) });
    const oc = format === "openclaw";
    const shape = SHAPES[format];
    const { branch, warnings } = activeBranch(scan.records, { format, name, core });
    const picked = branch.filter((r) => hasMessage(r.value, shape));
    const header = oc ? scan.records.find((r) => r.value?.type === "session") : undefined;
    /** @type {ReadInput} */
    const out = {
      format,
      warnings: [...scan.warnings, ...warnings],
      sessionId: oc ? header?.value.id : scan.records.find((r) => r.value?.sessionId)?.value.sessionId,
      messages: picked.map((r) => r.value.message),
      entries: picked.map((r) => ({ id: r.value[shape.id], line: r.line, range: /** @type {[number, number]} */ ([r.start, r.end]) })),
    };
    if (oc) out.transcriptEntries = /** @type {TranscriptEntry[]} */ (scan.records.map((r) => toEntry(r.value, [r.start, r.end])).filter(Boolean));
    return out;
  }
  /** @type {string[]} */
  const warnings = [];
  let text = input;
  if (isBytes) {
    const bad = (isUtf8 ?? defaultIsUtf8)(input) ? -1 : invalidUtf8At(input);
    if (bad >= 0) warnings.push(`${name}: invalid UTF-8 at byte ${bad}; read with replacement characters`);
    text = decodeRange(input, 0, input.length);
  }
  let doc;
  try {
    doc = JSON.parse(/** @type {string} */ (text));
  } catch (err) {
    throw new InputError(`${name}: invalid JSON (${err.message})`);
  }
  const messages = format === "messages" ? doc : doc?.messages;
  if (!Array.isArray(messages))
    throw new InputError(`${name}: expected ${format === "messages" ? "a JSON array of messages" : 'an object with a "messages" array'}`);
  const bad = messages.findIndex((m) => !m || typeof m !== "object" || Array.isArray(m));
  if (bad >= 0) throw new InputError(`${name}: message ${bad} is not an object`);
  return { format, warnings, messages };
}

/**
 * The one-shot assemble request for a read session (the CLI and the playground build it the
 * same way, so they show the same result for the same input and settings).
 * @param {{messages: Message[], entries?: object[]}} session the messages, and the transcript entries for the core's index
 * @param {{prompt?: string | null, budget?: number | null, config?: object}} [settings]
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
