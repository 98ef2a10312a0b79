// Live sessions: one per session key per process, kept across the engine instances the host
// creates per turn. Each holds a wasm Session (index, topics, caches) fed incrementally from
// the transcript, and the on-disk side caches under <stateDir>/sessions/<key>/:
//   index.json      {version, source, cursor, index}      rebuilt from the transcript if bad
//   summaries/<turn>.json  {turnId, text, source, createdAt}  one write-once file per turn
//   state.json      {folded, compacted, pins, subtopics, commands}  sticky decisions (those
//                                                          of manual compactions apart), pins,
//                                                          labels, the texts of operator
//                                                          commands seen
// Every write is atomic (temp file + fsync + rename, or hard link for write-once files), so a
// crash leaves the old or the new file, and two gateways on one state dir never corrupt them.
import { promises as fs } from "node:fs";
import path from "node:path";
import { loadCore } from "../core/node.js";
import { sameJson } from "../core/core.js";
import { keyName, writeAtomic, createOnce } from "./store.js";
import { markCommandEntries, rememberTexts, withoutCommands } from "./operator.js";

/** @import { LiveAssembleResult, IndexUpdate, Message, Pins, Strategy } from "../core/types.js" */
/** @import { LiveCore } from "../core/core.js" */
/** @import { JsConfig } from "../core/config.js" */
/** @import { Transcript } from "./transcript.js" */
/** @import { LlmBudget } from "./llm.js" */
/** @import { Logger } from "./engine.js" */

/**
 * What state.json holds: sticky fold decisions, pins, sub-topic labels, judged topic
 * boundaries, and the agent's runtime settings (context_config, context_set_strategy).
 * @typedef {object} LiveState
 * @property {string[]} folded
 * @property {string[]} [compacted]  the turns of `folded` a manual compaction folded
 * @property {Pins} pins
 * @property {Record<string, string>} subtopics  turn id → label
 * @property {Record<string, "same" | "new">} boundaries  opening turn id → judgement
 * @property {Record<string, unknown>} [config]  runtime config overrides
 * @property {string[]} [commands]  texts of the operator commands seen in the transcript
 * @property {{strategy: Strategy, keepMessages?: number, targetTokens?: number, maxTurns?: number}} [prune]
 */
/** @typedef {{turnId?: string, text: string, source: "llm" | "heuristic", createdAt?: string}} SummaryRecord */

export const STATE_VERSION = 1;
/** Up to this many turns index.json is written after every new turn (see `indexDue`). */
const INDEX_EVERY_TURN_UP_TO = 200;
/** Deterministic sub-topic labels (made again from the transcript when lost) are written
 * with state.json at most this many at a time, or sooner with any other change of it. */
const HEURISTIC_LABELS_PER_WRITE = 20;
/** At most this many turns wait for a background summary (the newest queued are kept). */
const MAX_PENDING_SUMMARIES = 64;

/**
 * Reads a JSON file; undefined when missing, `{corrupt: reason}` when unreadable.
 * @param {string} file
 * @returns {Promise<{value: any, corrupt?: undefined} | {corrupt: string, value?: undefined} | undefined>}
 */
export async function readJsonFile(file) {
  let text;
  try {
    text = await fs.readFile(file, "utf8");
  } catch (err) {
    if (err.code === "ENOENT") return undefined;
    return { corrupt: `${path.basename(file)}: ${err.message}` };
  }
  try {
    return { value: JSON.parse(text) };
  } catch (err) {
    return { corrupt: `${path.basename(file)}: ${err.message}` };
  }
}

export class LiveSession {
  /**
   * @param {object} o
   * @param {string} o.stateDir
   * @param {string} o.sessionKey
   * @param {Record<string, any>} o.config core config (the plugin config without JS-only keys)
   * @param {Transcript} [o.transcript] a JsonlTranscript or SqliteTranscript
   * @param {Logger} [o.logger]
   */
  constructor({ stateDir, sessionKey, config, transcript, logger }) {
    this.dir = path.join(stateDir, "sessions", keyName(sessionKey || "default"));
    this.sessionKey = sessionKey;
    this.config = config;
    this.transcript = transcript;
    this.logger = logger;
    /** The transcript reader's cursor after the last indexed entry. @type {any} */
    this.cursor = undefined;
    /** @type {Record<string, SummaryRecord>} */
    this.summaries = {};
    /** @type {LiveState} */
    this.state = { folded: [], compacted: [], pins: { turnIds: [], tools: [], patterns: [] }, subtopics: {}, boundaries: {} };
    /** @type {LiveCore | undefined} */
    this.wasm = undefined;
    this.loaded = false;
    /** Sub-topic labels recorded since state.json was last written. */
    this.unsavedLabels = 0;
    /** @type {{at: string, result: LiveAssembleResult, budget?: number | null, recoveryTool?: boolean} | null} */
    this.lastAssemble = null;
    /** What this turn's first assemble decided of the history budget (room.js `historyBudget`). @type {{budget: number, pending?: number, hostBudget?: number, reserve?: number} | undefined} */
    this.turnRoom = undefined;
    /** The engine's estimate over the host's count of what it planned, at most 1 (room.js `scaledBudget`). @type {number | undefined} */
    this.hostScale = undefined;
    /** The log line of a plan that may still be planned again before it is sent (requestlog.js). @type {string | null} */
    this.heldLine = null;
    /** @type {Message[] | null} */
    this.lastMessages = null;
    /** What the engine returned for the last plan (the host may hand it back). @type {Message[] | null} */
    this.lastOutput = null;
    /** @type {number | undefined} */
    this.lastAssembleAt = undefined;
    /** @type {string[]} */
    this.pendingSummaries = [];
    /** @type {{at: string, reason: string} | null} */
    this.lastFallback = null;
    /** @type {{stableMessages: number, previousMessages: number} | undefined} */
    this.prefixStability = undefined;
    /** Turns in the index as last written to index.json. @type {number | undefined} */
    this.persistedTurns = undefined;
    /** The JS layer's options (set by openLive). @type {JsConfig | undefined} */
    this.js = undefined;
    /** The session's LLM accounting (set by openLive). @type {LlmBudget | undefined} */
    this.llm = undefined;
  }

  /**
   * Applies a (possibly changed) core config; the wasm session is reconfigured in place.
   * @param {Record<string, any>} config
   */
  setConfig(config) {
    if (JSON.stringify(config) === JSON.stringify(this.config)) return;
    this.config = config;
    if (this.wasm) this.wasm.configure(config);
  }

  /** @param {string} name */
  file(name) {
    return path.join(this.dir, name);
  }

  /** @param {string} msg */
  warn(msg) {
    this.logger?.warn?.(`[contextfold] session=${this.sessionKey} ${msg}`);
  }

  /**
   * A wasm session in a healthy core instance (re-created after a crash).
   * @returns {Promise<LiveCore>}
   */
  async session() {
    const core = await loadCore();
    if (!this.wasm || this.wasm.core !== core) {
      this.wasm = core.newSession(this.config);
      this.cursor = undefined;
      this.loaded = false;
    }
    if (!this.loaded) await this.load();
    return this.wasm;
  }

  /** Loads the side caches from disk; anything unreadable is rebuilt with a warning. */
  async load() {
    const wasm = /** @type {LiveCore} */ (this.wasm);
    this.loaded = true;
    const idx = await readJsonFile(this.file("index.json"));
    if (idx?.corrupt) this.warn(`index unreadable, rebuilding from the transcript (${idx.corrupt})`);
    const v = idx?.value;
    if (v && v.version === STATE_VERSION && v.source === this.transcript?.kind && wasm.loadIndex(v.index)) {
      this.cursor = v.cursor;
    } else if (v) {
      this.warn("index from another version or source, rebuilding from the transcript");
    }
    this.summaries = await this.readSummaries();
    wasm.setSummaries(Object.fromEntries(Object.entries(this.summaries).map(([k, s]) => [k, s.text])));
    const st = await readJsonFile(this.file("state.json"));
    if (st?.corrupt) this.warn(`state unreadable, starting fresh (${st.corrupt})`);
    if (st?.value && typeof st.value === "object") this.state = { ...this.state, ...st.value };
    wasm.setFolded(this.state.folded ?? []);
    wasm.setCompacted(this.state.compacted ?? []);
    wasm.setPins(this.state.pins);
    wasm.setSubtopics(this.state.subtopics ?? {});
    wasm.setMerged(this.mergedBoundaries());
  }

  /**
   * Reads new transcript entries into the index (O(new entries)); rebuilds on a rewrite.
   * Operator commands and their replies are marked first (operator.js), so they form no turn.
   * @returns {Promise<IndexUpdate>}
   */
  async sync() {
    const s = await this.session();
    if (!this.transcript) return { turns: 0, newTurns: 0 };
    let r = await this.readMarked(this.cursor, { tip: s.tip() });
    let full = r.reset || this.cursor === undefined;
    if (!full && r.unanswered > 0) {
      // a command's reply whose typed command an earlier read indexed as conversation
      r = await this.readMarked(undefined);
      full = true;
    }
    let update;
    if (full) {
      update = s.rebuild(r.entries);
    } else {
      update = s.append(r.entries);
      if (update.rewrite) {
        this.warn(`transcript rewritten (${update.rewrite}), rebuilding the index`);
        r = await this.readMarked(undefined);
        update = s.rebuild(r.entries);
      }
    }
    if (r.entries.length > 0 || this.cursor === undefined) {
      const first = this.cursor === undefined;
      this.cursor = r.cursor;
      if (first || update.rewrite || this.indexDue(update.turns)) {
        const ok = await this.persist("index.json", () =>
          JSON.stringify({ version: STATE_VERSION, source: this.transcript?.kind, cursor: this.cursor, index: s.index() }),
        );
        if (ok) this.persistedTurns = update.turns;
      }
    }
    return update;
  }

  /**
   * Reads transcript entries with the operator commands marked; remembers the commands' texts.
   * @param {any} cursor
   * @param {any} [opts]
   */
  async readMarked(cursor, opts) {
    // called by sync, which returns first when there is no transcript
    const r = await /** @type {Transcript} */ (this.transcript).read(cursor, opts);
    for (const w of r.warnings ?? []) this.warn(w);
    const { entries, texts, unanswered } = markCommandEntries(r.entries);
    const known = this.state.commands ?? [];
    if (texts.some((t) => !known.includes(t))) {
      this.state.commands = rememberTexts(known, texts);
      await this.saveState();
    }
    return { ...r, entries, unanswered };
  }

  /**
   * The host's history as the engine plans it: without the operator commands in it.
   * @param {Message[]} messages
   * @returns {Message[]}
   */
  conversation(messages) {
    return withoutCommands(messages, this.state.commands ?? []);
  }

  /**
   * Whether index.json is due: after every new turn while the session is small; for a long
   * session once it has grown by 5 % since the last write, since writing it costs time in
   * proportion to its size. A persisted index is consistent with its own cursor, so after a
   * restart the turns newer than it are read from the transcript again.
   * @param {number} turns
   */
  indexDue(turns) {
    const last = this.persistedTurns ?? 0;
    return turns <= INDEX_EVERY_TURN_UP_TO || turns - last >= Math.max(1, Math.floor(last / 20)) || turns < last;
  }

  /**
   * Writes a side-cache file atomically; a failure is a warning (the state stays in memory).
   * @param {string} name
   * @param {() => string} body
   */
  async persist(name, body) {
    try {
      await writeAtomic(this.file(name), body());
      return true;
    } catch (err) {
      this.warn(`could not write ${name} (${err.code ?? err.message}); keeping it in memory`);
      return false;
    }
  }

  /** Writes state.json (with the wasm session's current fold decisions). */
  async saveState() {
    this.unsavedLabels = 0;
    this.state.folded = this.wasm ? this.wasm.folded() : this.state.folded;
    this.state.compacted = this.wasm ? this.wasm.compacted() : this.state.compacted;
    await this.persist("state.json", () => JSON.stringify(this.state));
  }

  /**
   * Plans a request; remembers what it decided for status, explain and background work.
   * `recoveryTool`: whether the model of this request is offered the recovery tool (stubs
   * name it unless this is `false`); remembered with the plan.
   * @param {{messages: Message[], prompt?: string | null, budget?: number | null, recoveryTool?: boolean}} request
   * @returns {Promise<LiveAssembleResult>}
   */
  async assemble({ messages, prompt, budget, recoveryTool }) {
    const s = await this.session();
    const r = s.assemble({ messages, prompt: prompt ?? null, budget: budget ?? null, recoveryTool: recoveryTool ?? null });
    // How much of the previous request's plan this one repeats from its start (the part a
    // provider's prompt cache can reuse).
    const prev = this.lastAssemble?.result?.steps;
    if (prev) {
      let k = 0;
      while (k < prev.length && k < r.steps.length && sameJson(prev[k], r.steps[k])) k++;
      this.prefixStability = { stableMessages: k, previousMessages: prev.length };
    }
    this.lastAssemble = { at: new Date().toISOString(), result: r, budget, recoveryTool };
    this.lastMessages = messages;
    // The caller records the output of this plan; until then no output is ours.
    this.lastOutput = null;
    // Queued turns stay queued until summarized: a later plan of the same history (the host
    // re-assembles inside a turn) finds them folded already and queues nothing new.
    const queued = new Set([...(this.pendingSummaries ?? []), ...(r.summarize ?? [])]);
    if (queued.size > 0) {
      const inPlan = new Set((r.turns ?? []).map((t) => t.id));
      this.pendingSummaries = [...queued].filter((id) => inPlan.has(id) && !this.summaries[id]).slice(-MAX_PENDING_SUMMARIES);
    } else {
      this.pendingSummaries = [];
    }
    if (r.fallback) this.lastFallback = { at: this.lastAssemble.at, reason: r.fallback };
    // Fold decisions are sticky: written when this plan folded a turn not on record yet.
    if (r.newlyFolded.length > 0) await this.saveState();
    return r;
  }

  /** Reads the summary cache; unreadable entries are skipped with a warning (made again later). */
  async readSummaries() {
    const dir = this.file("summaries");
    /** @type {string[]} */
    let names = [];
    try {
      names = (await fs.readdir(dir)).filter((n) => n.endsWith(".json"));
    } catch (err) {
      if (err.code !== "ENOENT") this.warn(`summary cache unreadable (${err.message})`);
    }
    /** @type {Record<string, SummaryRecord>} */
    const out = {};
    for (const n of names.sort()) {
      const r = await readJsonFile(path.join(dir, n));
      const v = r?.value;
      if (r?.corrupt || typeof v?.turnId !== "string" || typeof v?.text !== "string") {
        this.warn(`summary cache entry ${n} unreadable, ignored (${r?.corrupt ?? "wrong shape"})`);
        continue;
      }
      out[v.turnId] = { text: v.text, source: v.source, createdAt: v.createdAt };
    }
    return out;
  }

  /**
   * True when `messages` starts with the engine's own last output for this session: the
   * host re-assembles inside a tool loop (engines that own compaction), passing back what we
   * returned plus the live loop's new messages.
   * @param {Message[]} messages
   */
  isOwnOutput(messages) {
    const last = this.lastOutput;
    if (!last || last.length === 0 || messages.length < last.length) return false;
    return last.every((m, i) => messages[i] === m || sameMessage(m, messages[i]));
  }

  /**
   * Stores a summary once per turn: cached summaries never change once made.
   * @param {string} turnId
   * @param {string} text
   * @param {"llm" | "heuristic"} source
   */
  async putSummary(turnId, text, source) {
    if (this.summaries[turnId]) return false;
    /** @type {SummaryRecord} */
    const rec = { turnId, text, source, createdAt: new Date().toISOString() };
    const created = await createOnce(path.join(this.file("summaries"), `${keyName(turnId)}.json`), JSON.stringify(rec) + "\n");
    if (!created) {
      // Another process made it first: use theirs.
      Object.assign(this.summaries, await this.readSummaries());
    } else {
      this.summaries[turnId] = rec;
    }
    const text2 = this.summaries[turnId]?.text ?? text;
    (await this.session()).setSummaries({ [turnId]: text2 });
    return created;
  }

  /**
   * All messages of the transcript's active branch (for compaction without a recent request).
   * @returns {Promise<Message[]>}
   */
  async transcriptMessages() {
    if (!this.transcript) return [];
    const r = await this.transcript.read(undefined);
    const byId = new Map(r.entries.map((e) => [e.id, e.message]));
    const idx = (await this.session()).index();
    const refs = [...idx.preamble, ...idx.turns.flatMap((t) => t.entries)];
    return /** @type {Message[]} */ (refs.map((x) => byId.get(x.id)).filter(Boolean));
  }

  /** Turn ids whose lexical topic boundary was judged "same topic". */
  mergedBoundaries() {
    return Object.entries(this.state.boundaries ?? {})
      .filter(([, v]) => v === "same")
      .map(([k]) => k);
  }

  /**
   * Records the judgement of the topic boundary opened by `turnId`.
   * @param {string} turnId
   * @param {boolean} same
   */
  async putBoundary(turnId, same) {
    this.state.boundaries ??= {};
    this.state.boundaries[turnId] = same ? "same" : "new";
    (await this.session()).setMerged(this.mergedBoundaries());
    await this.saveState();
  }

  /**
   * Records the sub-topic label of a turn. A deterministic label (`heuristic`) is written
   * with the next change of state.json, or once HEURISTIC_LABELS_PER_WRITE of them wait:
   * writing the whole state after every turn would cost time in proportion to the session.
   * @param {string} turnId
   * @param {string} label
   * @param {{heuristic?: boolean}} [o]
   */
  async putSubtopic(turnId, label, { heuristic = false } = {}) {
    this.state.subtopics[turnId] = label;
    (await this.session()).setSubtopics({ [turnId]: label });
    this.unsavedLabels++;
    if (!heuristic || this.unsavedLabels >= HEURISTIC_LABELS_PER_WRITE) await this.saveState();
  }
}

/**
 * @param {any} a
 * @param {any} b
 */
function sameMessage(a, b) {
  return a?.role === b?.role && a?.timestamp === b?.timestamp && JSON.stringify(a?.content) === JSON.stringify(b?.content);
}

/** Process-wide registry of live sessions. */
export class LiveSessions {
  constructor() {
    /** @type {Map<string, LiveSession>} */
    this.map = new Map();
  }

  /**
   * The live session of `key`, made by `create` the first time.
   * @param {string} key
   * @param {() => LiveSession} create
   */
  get(key, create) {
    let s = this.map.get(key);
    if (!s) {
      s = create();
      this.map.set(key, s);
    }
    return s;
  }
}
