// Transcript entries for the core's index, from the bytes of an OpenClaw session JSONL.
// Browser-safe (no Node modules): the same entries as js/openclaw/transcript.js
// `parseJsonlBuffer` gives the CLI, with the same byte ranges, so turn ids, topics and
// recovery agree between the playground and `contextfold assemble`.

const NL = 0x0a;
// Buffer#toString("utf8") keeps a byte order mark and replaces invalid sequences; so does
// a non-fatal decoder that does not strip the BOM.
const decoder = new TextDecoder("utf-8", { ignoreBOM: true });
const encoder = new TextEncoder();

/** Decodes UTF-8 bytes exactly as Node's Buffer#toString("utf8") does. */
export function decodeUtf8(bytes) {
  return decoder.decode(bytes);
}

/** Encodes text to UTF-8 bytes. */
export function encodeUtf8(text) {
  return encoder.encode(text);
}

/** One parsed JSONL line as an index entry (null for the header and lines without an id). */
export function toEntry(value, range) {
  if (!value || typeof value !== "object" || typeof value.id !== "string") return null;
  if (value.type === "session") return null;
  const e = { id: value.id, parentId: value.parentId ?? null, type: value.type ?? "message" };
  if (value.type === "message" && value.message && typeof value.message === "object") e.message = value.message;
  if (value.type === "compaction" && typeof value.firstKeptEntryId === "string") e.firstKeptEntryId = value.firstKeptEntryId;
  if (range) e.range = range;
  return e;
}

/**
 * Parses JSONL bytes (a Uint8Array) that start at byte `base` of the file. Only complete
 * lines (ending in a newline) are consumed; each entry's `range` is `[lineStart, lineEnd)`
 * in file bytes, newline included.
 * @returns {{entries: object[], warnings: string[], header?: object, end: number}}
 */
export function parseJsonlBytes(bytes, base = 0, name = "transcript") {
  const entries = [];
  const warnings = [];
  let header;
  let start = 0;
  for (;;) {
    const nl = bytes.indexOf(NL, start);
    if (nl < 0) break;
    const line = bytes.subarray(start, nl);
    if (line.length > 0) {
      let value;
      try {
        value = JSON.parse(decodeUtf8(line));
      } catch (err) {
        warnings.push(`${name}@${base + start}: invalid JSON line skipped (${err.message})`);
      }
      if (value?.type === "session") header = value;
      const e = value === undefined ? null : toEntry(value, [base + start, base + nl + 1]);
      if (e) entries.push(e);
      else if (value !== undefined && value?.type !== "session") warnings.push(`${name}@${base + start}: entry without an id skipped`);
    }
    start = nl + 1;
  }
  if (start < bytes.length) warnings.push(`${name}@${base + start}: incomplete last line left for later (${bytes.length - start} bytes)`);
  return { entries, warnings, header, end: base + start };
}

/** The original JSONL line of a byte range (without its newline). */
export function lineAt(bytes, [a, b]) {
  return decodeUtf8(bytes.subarray(a, b)).replace(/\n$/, "");
}
