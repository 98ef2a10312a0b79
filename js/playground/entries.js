// Transcript entries for the core's index, from the bytes of an OpenClaw session JSONL.
// Browser-safe (no Node modules): the same entries as js/openclaw/transcript.js
// `parseJsonlBuffer` gives the CLI, with the same byte ranges, so turn ids, topics and
// recovery agree between the playground and `contextfold assemble`.

import { scanJsonl, transcriptNodes, toEntry } from "../core/readers.js";

export { toEntry };

/** @import { TranscriptEntry } from "../core/readers.js" */

// Buffer#toString("utf8") keeps a byte order mark and replaces invalid sequences; so does
// a non-fatal decoder that does not strip the BOM.
const decoder = new TextDecoder("utf-8", { ignoreBOM: true });
const encoder = new TextEncoder();

/**
 * Decodes UTF-8 bytes exactly as Node's Buffer#toString("utf8") does.
 * @param {Uint8Array} bytes
 */
export function decodeUtf8(bytes) {
  return decoder.decode(bytes);
}

/**
 * Encodes text to UTF-8 bytes.
 * @param {string} text
 */
export function encodeUtf8(text) {
  return encoder.encode(text);
}

/**
 * Parses JSONL bytes (a Uint8Array) that start at byte `base` of the file, with the rules the
 * CLI and the plugin share (js/core/readers.js `scanJsonl`): each entry's `range` is
 * `[lineStart, lineEnd)` in file bytes, newline included.
 * @param {Uint8Array} bytes
 * @returns {{entries: TranscriptEntry[], warnings: string[], header?: object, end: number}}
 */
export function parseJsonlBytes(bytes, base = 0, name = "transcript") {
  const scan = scanJsonl(bytes, { name, base, firstLine: base === 0 ? 1 : undefined, strict: false, final: false });
  const header = scan.records.find((r) => r.value?.type === "session")?.value;
  const entries = /** @type {TranscriptEntry[]} */ (scan.records.map((r) => toEntry(r.value, [r.start, r.end])).filter(Boolean));
  const more = transcriptNodes(scan.records, { name }).warnings;
  return { entries, warnings: [...scan.warnings, ...more], header, end: scan.end };
}

/**
 * The original JSONL line of a byte range (without its newline).
 * @param {Uint8Array} bytes
 * @param {[number, number]} range
 */
export function lineAt(bytes, [a, b]) {
  return decodeUtf8(bytes.subarray(a, b)).replace(/\n$/, "");
}
