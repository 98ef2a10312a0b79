// Transcript readers. The transcript is the host's and is only ever read.
//
//   JSONL (older hosts, exported sessions, the CLI): `agents/<agentId>/sessions/<sessionId>.jsonl`;
//   entries keep their byte range so a turn can be recovered byte for byte.
//   SQLite (OpenClaw ≥ 2026.8): read through the SDK's cursor-based reader
//   (`readSessionTranscriptVisibleMessageDelta`), which already resolves the active branch.
//
// Both yield entries `{id, parentId, type, message?, range?, seq?, firstKeptEntryId?}` for the
// core's index; a reader reports `reset: true` when the transcript was rewritten (shrunk,
// replaced, branch moved), and the caller rebuilds the index from all entries.
import { promises as fs, statSync } from "node:fs";
import { isUtf8 } from "node:buffer";
import path from "node:path";
import { scanJsonl, transcriptNodes, activeBranch, toEntry } from "../core/readers.js";
import { loadCore } from "../core/node.js";

export { toEntry };

/** @import { TranscriptEntry } from "../core/readers.js" */

/**
 * What one read of a transcript gives: the new entries, the cursor to read on from, whether
 * the transcript was rewritten (the caller rebuilds from `entries`), and warnings.
 * @typedef {{entries: TranscriptEntry[], cursor: any, reset: boolean, warnings: string[]}} TranscriptRead
 */
/** @typedef {JsonlTranscript | SqliteTranscript} Transcript */

/**
 * Parses JSONL bytes starting at byte `base` of the file, with the rules the CLI shares
 * (js/core/readers.js), leniently: a line that is not JSON is skipped with a warning, and an
 * unfinished last line is left for the next read. `end` is the offset after the last
 * consumed line. With `branch` (the core, whose rule picks the branch), the bytes are the whole
 * file and the warnings also cover the active branch (repeated ids, cycles, entries out of order).
 * @param {Buffer} buf
 * @param {number} [base]
 * @param {string} [name]
 * @param {{firstLine?: number, branch?: import("../core/readers.js").BranchRule}} [o] `firstLine`: line number of the first line (undefined: unknown)
 */
export function parseJsonlBuffer(buf, base = 0, name = "transcript", { firstLine = base === 0 ? 1 : undefined, branch } = {}) {
  const scan = scanJsonl(buf, { name, base, firstLine, strict: false, final: false, isUtf8 });
  const header = scan.records.find((r) => r.value?.type === "session")?.value;
  const entries = /** @type {TranscriptEntry[]} */ (scan.records.map((r) => toEntry(r.value, [r.start, r.end])).filter(Boolean));
  const more = branch ? activeBranch(scan.records, { name, core: branch }).warnings : transcriptNodes(scan.records, { name }).warnings;
  return { entries, warnings: [...scan.warnings, ...more], header, end: scan.end, nextLine: scan.nextLine };
}

/** A JSONL transcript read incrementally by byte offset. */
export class JsonlTranscript {
  /** @param {string} file */
  constructor(file) {
    this.file = file;
    /** @type {"jsonl"} */
    this.kind = "jsonl";
    // Line number at a byte offset, so warnings of later reads name lines too.
    this.mark = { offset: 0, line: 1 };
  }

  /**
   * Reads entries after `cursor` (a byte offset, or undefined for the whole file).
   * @param {number} [cursor]
   * @param {object} [_o] what a SQLite read takes (a JSONL read needs nothing more)
   * @returns {Promise<TranscriptRead>}
   */
  async read(cursor, _o) {
    // A synchronous stat (microseconds): most reads find nothing new, and an asynchronous one
    // would make every request wait for a turn of the event loop.
    const stat = statSync(this.file);
    let from = typeof cursor === "number" ? cursor : 0;
    let reset = from === 0;
    if (from > stat.size) {
      from = 0; // shrunk: the file was rewritten
      reset = true;
    }
    // Nothing appended since the cursor (the common case: commitTurn read the turn already).
    if (!reset && stat.size === from) return { entries: [], cursor: from, reset, warnings: [] };
    const fh = await fs.open(this.file, "r");
    try {
      const len = stat.size - from;
      const buf = Buffer.alloc(len);
      if (len > 0) await fh.read(buf, 0, len, from);
      const firstLine = from === 0 ? 1 : from === this.mark.offset ? this.mark.line : undefined;
      const r = parseJsonlBuffer(buf, from, path.basename(this.file), { firstLine, branch: from === 0 ? await loadCore() : undefined });
      if (r.nextLine !== undefined) this.mark = { offset: r.end, line: r.nextLine };
      return { entries: r.entries, cursor: r.end, reset, warnings: r.warnings };
    } finally {
      await fh.close();
    }
  }

  /**
   * The lines of the given byte ranges, decoded (without their line ends).
   * @param {[number, number][]} ranges
   */
  async readRanges(ranges) {
    return (await this.readRangeBytes(ranges)).map((b) => b.toString("utf8").replace(/\r?\n$/, ""));
  }

  /**
   * The exact bytes of the given byte ranges (line ends included), as Buffers.
   * @param {[number, number][]} ranges
   */
  async readRangeBytes(ranges) {
    const fh = await fs.open(this.file, "r");
    try {
      const out = [];
      for (const [a, b] of ranges) {
        const buf = Buffer.alloc(b - a);
        const { bytesRead } = await fh.read(buf, 0, b - a, a);
        out.push(bytesRead === buf.length ? buf : buf.subarray(0, bytesRead));
      }
      return out;
    } finally {
      await fh.close();
    }
  }
}

/**
 * The host's SQLite transcript through the SDK reader. Entries of one page come in branch
 * order; their parent ids are re-linked to the previous message entry (the reader skips
 * non-message events, which the index does not need).
 */
export class SqliteTranscript {
  /**
   * @param {any} sdk the host's session-transcript-runtime module
   * @param {object} identity the session's `{agentId?, sessionId, sessionKey?}`
   */
  constructor(sdk, identity) {
    this.sdk = sdk;
    this.identity = identity;
    /** @type {"sqlite"} */
    this.kind = "sqlite";
  }

  /**
   * @param {string} [cursor] the reader's opaque cursor from the previous read
   * @param {object} [o]
   * @param {number} [o.maxPages]
   * @param {string} [o.tip] id of the newest entry already indexed (new entries chain from it)
   * @returns {Promise<TranscriptRead>}
   */
  async read(cursor, { maxPages = 1000, tip } = {}) {
    let reset = cursor === undefined;
    let cur = cursor;
    /** @type {TranscriptEntry[]} */
    const entries = [];
    for (let page = 0; page < maxPages; page++) {
      const r = await this.sdk.readSessionTranscriptVisibleMessageDelta({ ...this.identity, ...(cur !== undefined ? { cursor: cur } : {}) });
      if (r.kind === "reset") {
        // The transcript changed under the cursor: start over from the beginning.
        if (reset && page > 0) break;
        reset = true;
        entries.length = 0;
        cur = r.cursor;
        continue;
      }
      if (r.kind !== "page") return { entries: [], cursor, reset: false, warnings: [`transcript unavailable (${r.reason ?? r.kind})`] };
      for (const e of r.entries ?? []) {
        if (!e?.message || typeof e.entryId !== "string") continue;
        entries.push({ id: e.entryId, parentId: e.parentId ?? null, type: "message", message: e.message, seq: e.seq });
      }
      cur = r.cursor;
      if (!r.hasMore) break;
    }
    // The reader skips non-message events (bootstrap context, model snapshots, cache marks),
    // so a message's stored parent is often one of those: chain the messages directly.
    return { entries: relink(entries, reset ? null : tip), cursor: cur, reset, warnings: [] };
  }

  /**
   * The stored events of the given entry ids, as JSON lines (for recovery).
   * @param {string[]} ids
   * @returns {Promise<(string | null)[]>}
   */
  async readEntries(ids) {
    const want = new Set(ids);
    const events = await this.sdk.readSessionTranscriptEvents(this.identity);
    const byId = new Map();
    for (const ev of events ?? []) {
      const e = ev?.event ?? ev;
      if (e && want.has(e.id)) byId.set(e.id, e);
    }
    return ids.map((id) => (byId.has(id) ? JSON.stringify(byId.get(id)) : null));
  }
}

/**
 * Links entries into one chain continuing from `tip` (for readers that skip non-message events).
 * @param {TranscriptEntry[]} entries
 * @param {string | null | undefined} tip
 */
export function relink(entries, tip) {
  let prev = tip ?? null;
  return entries.map((e) => {
    const out = { ...e, parentId: prev };
    prev = e.id;
    return out;
  });
}
