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
import { promises as fs } from "node:fs";
import path from "node:path";

const NL = 0x0a;

/** Converts one parsed JSONL line into an index entry (null for the header / unknown lines). */
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
 * Parses JSONL bytes starting at byte `base` of the file. Only complete lines (ending in a
 * newline) are consumed; `end` is the offset after the last consumed line. Lines that are not
 * JSON are skipped with a warning naming the line's byte offset.
 */
export function parseJsonlBuffer(buf, base = 0, name = "transcript") {
  const entries = [];
  const warnings = [];
  let header;
  let start = 0;
  for (;;) {
    const nl = buf.indexOf(NL, start);
    if (nl < 0) break;
    const line = buf.subarray(start, nl);
    if (line.length > 0) {
      let value;
      try {
        value = JSON.parse(line.toString("utf8"));
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
  if (start < buf.length) warnings.push(`${name}@${base + start}: incomplete last line left for later (${buf.length - start} bytes)`);
  return { entries, warnings, header, end: base + start };
}

/** A JSONL transcript read incrementally by byte offset. */
export class JsonlTranscript {
  constructor(file) {
    this.file = file;
    this.kind = "jsonl";
  }

  /**
   * Reads entries after `cursor` (a byte offset, or undefined for the whole file).
   * @returns {Promise<{entries, cursor, reset, warnings}>}
   */
  async read(cursor) {
    const stat = await fs.stat(this.file);
    let from = typeof cursor === "number" ? cursor : 0;
    let reset = from === 0;
    if (from > stat.size) {
      from = 0; // shrunk: the file was rewritten
      reset = true;
    }
    const fh = await fs.open(this.file, "r");
    try {
      const len = stat.size - from;
      const buf = Buffer.alloc(len);
      if (len > 0) await fh.read(buf, 0, len, from);
      const r = parseJsonlBuffer(buf, from, path.basename(this.file));
      return { entries: r.entries, cursor: r.end, reset, warnings: r.warnings };
    } finally {
      await fh.close();
    }
  }

  /** The exact bytes of the given ranges, decoded per line. */
  async readRanges(ranges) {
    const fh = await fs.open(this.file, "r");
    try {
      const out = [];
      for (const [a, b] of ranges) {
        const buf = Buffer.alloc(b - a);
        await fh.read(buf, 0, b - a, a);
        out.push(buf.toString("utf8").replace(/\n$/, ""));
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
  constructor(sdk, identity) {
    this.sdk = sdk;
    this.identity = identity;
    this.kind = "sqlite";
  }

  /**
   * @param {string} [cursor] the reader's opaque cursor from the previous read
   * @param {object} [o]
   * @param {string} [o.tip] id of the newest entry already indexed (new entries chain from it)
   */
  async read(cursor, { maxPages = 1000, tip } = {}) {
    let reset = cursor === undefined;
    let cur = cursor;
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

  /** The stored events of the given entry ids, as JSON lines (for recovery). */
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

/** Links entries into one chain continuing from `tip` (for readers that skip non-message events). */
export function relink(entries, tip) {
  let prev = tip ?? null;
  return entries.map((e) => {
    const out = { ...e, parentId: prev };
    prev = e.id;
    return out;
  });
}
