// The engine's own records on disk, under <stateDir>/contextfold/ (never the host's
// transcript). Committed turns (by the host's commitTurn, or caught up from the transcript
// when the host advanced a turn without committing it) are write-once files created
// atomically: a temp file is written and fsynced, then hard-linked to its final name, which
// fails if the name exists. So a turn is committed exactly once, also across gateway restarts and across processes
// sharing one state dir, and a crash leaves either no record or a complete one.
import { promises as fs } from "node:fs";
import { createHash, randomBytes } from "node:crypto";
import path from "node:path";
import os from "node:os";

/**
 * A file-name-safe, stable name for an arbitrary key.
 * @param {unknown} key
 */
export function keyName(key) {
  const safe = String(key)
    .replace(/[^A-Za-z0-9._-]+/g, "_")
    .slice(0, 48);
  const hash = createHash("sha256").update(String(key)).digest("hex").slice(0, 16);
  return `${safe}-${hash}`;
}

/**
 * Resolves the folder contextfold keeps its records in (`<host state dir>/contextfold`), or
 * with `bare` the host's state dir itself.
 * @param {{configured?: string, api?: any, env?: NodeJS.ProcessEnv, bare?: boolean}} [o]
 * @returns {string}
 */
export function resolveStateDir({ configured, api, env = process.env, bare = false } = {}) {
  if (configured && !bare) return path.resolve(configured);
  let base;
  try {
    base = api?.runtime?.state?.resolveStateDir?.(env);
  } catch {
    base = undefined;
  }
  base ??= env.OPENCLAW_STATE_DIR || path.join(os.homedir(), ".openclaw");
  return bare ? base : path.join(base, "contextfold");
}

/**
 * Writes `data` to a fresh temp file beside `file`, fsynced; returns its path.
 * @param {string} file
 * @param {string | Uint8Array} data
 */
async function writeTemp(file, data) {
  await fs.mkdir(path.dirname(file), { recursive: true });
  const tmp = `${file}.${process.pid}.${randomBytes(4).toString("hex")}.tmp`;
  const fh = await fs.open(tmp, "w");
  try {
    await fh.writeFile(data);
    await fh.sync();
  } finally {
    await fh.close();
  }
  return tmp;
}

/**
 * Writes `data` to `file` atomically (temp + fsync + rename).
 * @param {string} file
 * @param {string | Uint8Array} data
 */
export async function writeAtomic(file, data) {
  const tmp = await writeTemp(file, data);
  try {
    await fs.rename(tmp, file);
  } catch (err) {
    await fs.rm(tmp, { force: true });
    throw err;
  }
}

/**
 * Creates `file` with `data` only if it does not exist yet. Returns false when it existed.
 * @param {string} file
 * @param {string | Uint8Array} data
 */
export async function createOnce(file, data) {
  const tmp = await writeTemp(file, data);
  try {
    await fs.link(tmp, file);
    return true;
  } catch (err) {
    if (err.code === "EEXIST") return false;
    throw err;
  } finally {
    await fs.rm(tmp, { force: true });
  }
}

/**
 * Whether a file exists.
 * @param {string} file
 */
async function exists(file) {
  try {
    await fs.access(file);
    return true;
  } catch (err) {
    if (/** @type {any} */ (err).code === "ENOENT") return false;
    throw err;
  }
}

/** The per-session record store. */
export class SessionStore {
  /**
   * @param {string} stateDir
   * @param {string | undefined} sessionKey
   */
  constructor(stateDir, sessionKey) {
    this.dir = path.join(stateDir, "sessions", keyName(sessionKey || "default"));
  }

  /**
   * Records a committed turn under its turn id (the entry id of its user message) when the
   * host names it, else under the advancement key. Returns "committed" the first time and
   * "duplicate" afterwards (also when the turn was caught up from the transcript before).
   * @param {string} advancementKey
   * @param {Record<string, any>} record
   */
  async commitTurn(advancementKey, record) {
    const file = this.commitFile(record.turnId ?? advancementKey);
    const body = JSON.stringify({ advancementKey, ...record }) + "\n";
    return (await createOnce(file, body)) ? "committed" : "duplicate";
  }

  /** @param {string} key */
  commitFile(key) {
    return path.join(this.dir, "commits", `${keyName(key)}.json`);
  }

  /**
   * Records the turns among `turnIds` that have no record yet (the host advanced them
   * without committing them to the engine), marked `source: "transcript"`. Returns the ids
   * recorded now.
   * @param {string[]} turnIds
   * @param {string} [at]
   */
  async catchUp(turnIds, at = new Date().toISOString()) {
    const made = [];
    // One look per turn asked about, not a listing of every record: this runs every turn.
    for (const id of turnIds) {
      if (await exists(this.commitFile(id))) continue;
      const body = JSON.stringify({ turnId: id, source: "transcript", caughtUpAt: at }) + "\n";
      if (await createOnce(this.commitFile(id), body)) made.push(id);
    }
    return made;
  }

  /** Number of committed turns recorded for this session. */
  async committedCount() {
    try {
      const names = await fs.readdir(path.join(this.dir, "commits"));
      return names.filter((n) => n.endsWith(".json")).length;
    } catch (err) {
      if (err.code === "ENOENT") return 0;
      throw err;
    }
  }
}
